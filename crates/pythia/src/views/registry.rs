//! The one table of views: every name a query may read as a view, of every kind, with the
//! function that reads its rows now.
//!
//! ```text
//!   kind        files                                  names
//!   Fixed       statistics, events, sessions, latches, v$..., x$... (the instance's memory;
//!               library_cache, buffer_cache, redo,     v$fixed_table lists them)
//!               this file
//!   Dictionary  dictionary, programs, users            DUAL, dba_... (with user_ and all_
//!                                                      twins where the dba_ view has them)
//!   PgCatalog   pg_catalog                             pg_class, pg_attribute, ... (PostgreSQL
//!                                                      clients' catalogs, over the dictionary)
//! ```
//!
//! Each view file declares its views in a `VIEWS` table; [`resolve`] finds a name in
//! [`GROUPS`] (a `user_x` or `all_x` name through its `dba_x` view) and reads the rows.
//! A fixed view's columns are static and [`table::build`] checks its rows against them; a
//! dictionary or pg_catalog view's rows come with their columns. A view is added by one
//! line in its file's `VIEWS`: nothing else lists names.

use super::table::{self, varchar2, Columns};
use super::{
    buffer_cache, dictionary, events, latches, library_cache, pg_catalog, programs, redo, sessions,
    statistics, users, FixedTable, ViewContext,
};
use crate::error::Result;
use crate::types::{RowSet, Value};

/// What kind of view a name is, and so where its rows come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// A v$ view or x$ table: the instance's memory, read now.
    Fixed,
    /// DUAL and the dba_ views over one version of the dictionary; `twins`: it is also
    /// found as user_ (without its owner column) and all_ (the same rows: every object is
    /// SYSTEM's and visible to every session).
    Dictionary { twins: bool },
    /// PostgreSQL's catalogs, for PostgreSQL clients (`pg_catalog.pg_class` or `pg_class`).
    PgCatalog,
}

/// How a view reads its rows.
pub(super) enum Build {
    /// Static columns, rows read now (one value per column, in column order).
    Fixed {
        columns: Columns,
        rows: fn(&ViewContext) -> Vec<Vec<Value>>,
    },
    /// Rows with their columns.
    Rows(fn(&ViewContext) -> Result<RowSet>),
}

/// One view: what [`resolve`] returns for `name`.
pub(super) struct View {
    /// Oracle's (or PostgreSQL's) name, upper case.
    pub(super) name: &'static str,
    pub(super) kind: ViewKind,
    pub(super) build: Build,
}

impl View {
    /// A fixed view.
    pub(super) const fn fixed(
        name: &'static str,
        columns: Columns,
        rows: fn(&ViewContext) -> Vec<Vec<Value>>,
    ) -> View {
        View {
            name,
            kind: ViewKind::Fixed,
            build: Build::Fixed { columns, rows },
        }
    }
}

/// The views of this file.
const VIEWS: &[View] = &[View::fixed(
    "V$FIXED_TABLE",
    FIXED_TABLE_COLUMNS,
    fixed_table_rows,
)];

/// Every view, by the file that builds it.
const GROUPS: &[&[View]] = &[
    statistics::VIEWS,
    events::VIEWS,
    sessions::VIEWS,
    latches::VIEWS,
    library_cache::VIEWS,
    buffer_cache::VIEWS,
    redo::VIEWS,
    VIEWS,
    dictionary::VIEWS,
    programs::VIEWS,
    users::VIEWS,
    pg_catalog::VIEWS,
];

fn views() -> impl Iterator<Item = &'static View> {
    GROUPS.iter().flat_map(|group| group.iter())
}

fn find(name: &str) -> Option<&'static View> {
    views().find(|view| view.name.eq_ignore_ascii_case(name))
}

/// The view named `name` (case-insensitive) read now, or None when no view has that name
/// (the caller's ORA-00942). A `user_x` / `all_x` name is the `dba_x` view's twin.
pub fn resolve(name: &str, context: &ViewContext) -> Result<Option<RowSet>> {
    if let Some(view) = find(name) {
        return read(view, context).map(Some);
    }
    let upper = name.to_ascii_uppercase();
    let (base, user) = match (upper.strip_prefix("USER_"), upper.strip_prefix("ALL_")) {
        (Some(rest), _) => (rest, true),
        (_, Some(rest)) => (rest, false),
        _ => return Ok(None),
    };
    let Some(view) = find(&format!("DBA_{base}")) else {
        return Ok(None);
    };
    if view.kind != (ViewKind::Dictionary { twins: true }) {
        return Ok(None);
    }
    let mut rows = read(view, context)?;
    if user {
        // The user_ view: the same rows without the owner column (the first one here).
        if let Some(owner) = rows.columns.iter().position(|(column, _)| {
            column == "OWNER" || column == "SEQUENCE_OWNER" || column == "INDEX_OWNER"
        }) {
            rows.columns.remove(owner);
            for row in &mut rows.rows {
                debug_assert!(row.len() > owner, "{name}: a row narrower than its columns");
                row.remove(owner);
            }
        }
    }
    Ok(Some(rows))
}

fn read(view: &View, context: &ViewContext) -> Result<RowSet> {
    match &view.build {
        Build::Fixed { columns, rows } => {
            let table = table::build(columns, rows(context));
            Ok(RowSet {
                columns: table
                    .columns
                    .into_iter()
                    .map(|(name, data_type)| (name, Some(data_type)))
                    .collect(),
                rows: table.rows,
            })
        }
        Build::Rows(rows) => {
            let set = rows(context)?;
            debug_assert!(
                set.rows.iter().all(|row| row.len() == set.columns.len()),
                "{}: a row not as wide as its columns",
                view.name
            );
            Ok(set)
        }
    }
}

/// The fixed view named `name` (case-insensitive, e.g. "V$SYSSTAT"), or None if there is
/// no such fixed view.
pub fn fixed_table(name: &str, context: &ViewContext) -> Option<FixedTable> {
    let view = find(name)?;
    match &view.build {
        Build::Fixed { columns, rows } => Some(table::build(columns, rows(context))),
        Build::Rows(_) => None,
    }
}

/// Every fixed view's name, upper case (for v$fixed_table and error messages).
pub fn fixed_table_names() -> Vec<&'static str> {
    view_names(ViewKind::Fixed)
}

/// The names of every view of `kind`, upper case, sorted.
pub fn view_names(kind: ViewKind) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = views()
        .filter(|view| view.kind == kind)
        .map(|view| view.name)
        .collect();
    names.sort_unstable();
    names
}

const FIXED_TABLE_COLUMNS: Columns = &[("NAME", varchar2(128)), ("TYPE", varchar2(5))];

/// v$fixed_table: every fixed view and fixed table, in name order; TYPE is TABLE for the X$
/// tables (x$kghlu) and VIEW for the V$ views, as Oracle lists them.
fn fixed_table_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    fixed_table_names()
        .into_iter()
        .map(|name| vec![table::text(name), table::text(fixed_type(name))])
        .collect()
}

/// v$fixed_table.type of `name`.
fn fixed_type(name: &str) -> &'static str {
    if name.starts_with("X$") {
        "TABLE"
    } else {
        "VIEW"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{self, SessionInstrumentation, SessionType, WaitEvent};

    use crate::types::DataType;
    use std::collections::HashSet;

    fn context(sid: u32) -> ViewContext<'static> {
        ViewContext::detached(sid)
    }

    #[test]
    fn every_name_is_one_view_and_twins_follow_their_dba_view() {
        let names: Vec<&str> = views().map(|view| view.name).collect();
        let unique: HashSet<&str> = names.iter().copied().collect();
        assert_eq!(unique.len(), names.len(), "a name registered twice");
        let context = context(0);
        let twinned = view_names(ViewKind::Dictionary { twins: true });
        assert!(twinned.contains(&"DBA_TABLES") && twinned.contains(&"DBA_OBJECTS"));
        for name in twinned {
            let base = name.strip_prefix("DBA_").expect(name);
            if name == "DBA_SEGMENTS" {
                // Segments are read through the buffer cache: none without an instance.
                assert_eq!(resolve(name, &context).unwrap_err().code(), 600);
                continue;
            }
            let dba = resolve(name, &context).unwrap().expect(name);
            let all = resolve(&format!("ALL_{base}"), &context)
                .unwrap()
                .expect(name);
            let user = resolve(&format!("user_{}", base.to_lowercase()), &context)
                .unwrap()
                .expect(name);
            assert_eq!(all.columns, dba.columns, "{name}");
            assert_eq!(user.columns.len() + 1, dba.columns.len(), "{name}");
        }
        // A view without twins is found only by its own name.
        assert!(resolve("DBA_USERS", &context).unwrap().is_some());
        assert!(resolve("USER_USERS", &context).unwrap().is_none());
        assert!(resolve("USER_DUAL", &context).unwrap().is_none());
        let dual = resolve("dual", &context).unwrap().unwrap();
        assert_eq!(dual.rows, vec![vec![Value::text("X")]]);
        // Every kind goes through the same lookup.
        assert!(resolve("v$sysstat", &context).unwrap().is_some());
        assert!(resolve("PG_CLASS", &context).unwrap().is_some());
        assert!(resolve("NO_SUCH_VIEW", &context).unwrap().is_none());
        assert!(!fixed_table_names().contains(&"DUAL"));
    }

    #[test]
    fn unknown_names_are_none() {
        let context = context(0);
        assert!(fixed_table("V$NO_SUCH_VIEW", &context).is_none());
        assert!(fixed_table("SYSSTAT", &context).is_none());
        assert!(fixed_table("", &context).is_none());
        assert!(fixed_table("V$SYSSTAT ", &context).is_none());
    }

    #[test]
    fn names_are_found_in_any_case() {
        let context = context(0);
        let upper = fixed_table("V$STATNAME", &context).unwrap();
        let lower = fixed_table("v$statname", &context).unwrap();
        let mixed = fixed_table("V$StatName", &context).unwrap();
        assert_eq!(upper, lower);
        assert_eq!(upper, mixed);
    }

    #[test]
    fn names_are_unique_upper_case_and_sorted() {
        let names = fixed_table_names();
        let unique: HashSet<&str> = names.iter().copied().collect();
        assert_eq!(unique.len(), names.len());
        for name in &names {
            assert!(name.starts_with("V$") || name.starts_with("X$"), "{name}");
            assert_eq!(*name, name.to_ascii_uppercase());
        }
        assert!(names.windows(2).all(|pair| pair[0] < pair[1]));
        for required in [
            "V$STATNAME",
            "V$SYSSTAT",
            "V$SESSTAT",
            "V$MYSTAT",
            "V$SYSTEM_EVENT",
            "V$SESSION_EVENT",
            "V$SESSION_WAIT",
            "V$EVENT_HISTOGRAM",
            "V$EVENT_HISTOGRAM_MICRO",
            "V$LATCH",
            "V$LATCH_CHILDREN",
            "V$MUTEX_SLEEP",
            "V$MUTEX_SLEEP_HISTORY",
            "V$SESSION",
            "V$SYS_TIME_MODEL",
            "V$SESS_TIME_MODEL",
            "V$PARAMETER",
            "V$FIXED_TABLE",
        ]
        .into_iter()
        .chain(library_cache::VIEWS.iter().map(|view| view.name))
        {
            assert!(unique.contains(required), "{required} missing");
        }
    }

    #[test]
    fn fixed_table_lists_every_view() {
        let table = fixed_table("V$FIXED_TABLE", &context(0)).unwrap();
        let listed: Vec<Value> = table.rows.iter().map(|row| row[0].clone()).collect();
        let names: Vec<Value> = fixed_table_names().into_iter().map(table::text).collect();
        assert_eq!(listed, names);
        for row in &table.rows {
            let name = row[0].to_text().unwrap();
            let expected = if name.starts_with("X$") {
                "TABLE"
            } else {
                "VIEW"
            };
            assert_eq!(row[1], table::text(expected), "{name}");
        }
        assert!(table
            .rows
            .contains(&vec![table::text("X$KGHLU"), table::text("TABLE")]));
    }

    /// Whether `value` may stand in a column of `data_type`.
    fn has_type(value: &Value, data_type: &DataType) -> bool {
        match (data_type, value) {
            (_, Value::Null) => true,
            (DataType::Number { .. }, Value::Number(_)) => true,
            (DataType::Date, Value::Date(_)) => true,
            (DataType::Timestamp, Value::Timestamp(_)) => true,
            (DataType::Varchar2 { length }, Value::Text(text)) => {
                !text.is_empty() && text.len() <= *length as usize
            }
            _ => false,
        }
    }

    #[test]
    fn every_view_has_rows_as_wide_as_its_columns_and_of_their_types() {
        // A session of our own with a wait, so that the per-session views have a row.
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "views").unwrap();
        {
            let _entered = instrumentation::enter(&session);
            drop(instrumentation::wait(
                WaitEvent::DbFileSequentialRead,
                1,
                2,
                1,
            ));
        }
        let mut context = context(session.sid());
        // A library cache with a cursor, so that its views have rows to check.
        context.library_cache = Some(library_cache::sample_library_cache());
        for name in fixed_table_names() {
            let table = fixed_table(name, &context).unwrap();
            assert!(!table.columns.is_empty(), "{name} has no columns");
            let column_names: HashSet<&str> = table
                .columns
                .iter()
                .map(|(column, _)| column.as_str())
                .collect();
            assert_eq!(
                column_names.len(),
                table.columns.len(),
                "{name}: duplicate column"
            );
            for (column, _) in &table.columns {
                assert_eq!(*column, column.to_ascii_uppercase(), "{name}.{column}");
            }
            for row in &table.rows {
                assert_eq!(row.len(), table.columns.len(), "{name}: {row:?}");
                for (value, (column, data_type)) in row.iter().zip(&table.columns) {
                    assert!(
                        has_type(value, data_type),
                        "{name}.{column} ({data_type:?}) holds {value:?}"
                    );
                }
            }
        }
        for always_filled in [
            "V$STATNAME",
            "V$SYSSTAT",
            "V$MYSTAT",
            "V$SESSTAT",
            "V$SESSION",
            "V$SESSION_WAIT",
            "V$SESSION_EVENT",
            "V$SYSTEM_EVENT",
            "V$EVENT_HISTOGRAM",
            "V$EVENT_HISTOGRAM_MICRO",
            "V$EVENT_NAME",
            "V$LATCH",
            "V$LATCHNAME",
            "V$SYS_TIME_MODEL",
            "V$SESS_TIME_MODEL",
            "V$PARAMETER",
            "V$FIXED_TABLE",
        ]
        .into_iter()
        .chain(library_cache::VIEWS.iter().map(|view| view.name))
        {
            let table = fixed_table(always_filled, &context).unwrap();
            assert!(!table.rows.is_empty(), "{always_filled} is empty");
        }
    }
}
