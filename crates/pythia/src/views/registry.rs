//! The list of fixed views, lookup by name, and v$fixed_table.
//!
//! Each view file declares its views as [`FixedView`]s: the name, the columns (static), and
//! the function that reads the rows. The registry only finds a view by name and hands its
//! rows to [`table::build`], which checks them against the columns.

use super::table::{self, varchar2, Columns};
use super::{
    buffer_cache, events, latches, library_cache, redo, sessions, statistics, FixedTable,
    ViewContext,
};
use crate::types::Value;

/// One fixed view: what [`fixed_table`] returns for `name`.
pub(super) struct FixedView {
    /// Oracle's name, upper case.
    pub(super) name: &'static str,
    pub(super) columns: Columns,
    /// Reads the rows now; each row has one value per column, in column order.
    pub(super) rows: fn(&ViewContext) -> Vec<Vec<Value>>,
}

/// The views of this file.
const VIEWS: &[FixedView] = &[FixedView {
    name: "V$FIXED_TABLE",
    columns: FIXED_TABLE_COLUMNS,
    rows: fixed_table_rows,
}];

/// Every view, by the file that builds it.
const GROUPS: &[&[FixedView]] = &[
    statistics::VIEWS,
    events::VIEWS,
    sessions::VIEWS,
    latches::VIEWS,
    library_cache::VIEWS,
    buffer_cache::VIEWS,
    redo::VIEWS,
    VIEWS,
];

fn views() -> impl Iterator<Item = &'static FixedView> {
    GROUPS.iter().flat_map(|group| group.iter())
}

/// The fixed view named `name` (case-insensitive, e.g. "V$SYSSTAT"), or None if there is no such view.
pub fn fixed_table(name: &str, context: &ViewContext) -> Option<FixedTable> {
    let view = views().find(|view| view.name.eq_ignore_ascii_case(name))?;
    Some(table::build(view.columns, (view.rows)(context)))
}

/// Every fixed view's name, upper case (for v$fixed_table and error messages).
pub fn fixed_table_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = views().map(|view| view.name).collect();
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
    use crate::parameters::Parameters;
    use crate::types::DataType;
    use std::collections::HashSet;

    fn context(sid: u32) -> ViewContext {
        ViewContext {
            sid,
            parameters: Parameters::defaults().visible_rows(),
            library_cache: None,
            buffer_cache: None,
            redo_log: None,
            archiver: None,
        }
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
