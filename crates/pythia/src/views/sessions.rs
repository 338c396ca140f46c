//! Sessions and parameters: v$session and v$parameter.
//!
//! v$session has one row per live session, foreground and background, from the
//! instrumentation's session registry: identity, status, the statement being run (SQL_ID)
//! and the current or last wait, with the same wait columns as v$session_wait. Background
//! sessions have no USERNAME (NULL, as Oracle shows them) and their process name as PROGRAM.
//!
//! v$parameter shows the querying session's parameters, as handed over in
//! `ViewContext::parameters`: hidden (underscore) parameters only once set, as
//! `Parameters::visible_rows` decides.

use super::events::{parameter_texts, wait_class_values, wait_time};
use super::registry::View;
use super::table::{date, number, text, varchar2, Columns, NUMBER};
use super::ViewContext;
use crate::instrumentation;
use crate::types::{DataType, Value};

pub(super) const VIEWS: &[View] = &[
    View::fixed("V$SESSION", SESSION_COLUMNS, session_rows),
    View::fixed("V$PARAMETER", PARAMETER_COLUMNS, parameter_rows),
];

const SESSION_COLUMNS: Columns = &[
    ("SID", NUMBER),
    ("SERIAL#", NUMBER),
    ("USERNAME", varchar2(128)),
    ("STATUS", varchar2(8)),
    ("PROGRAM", varchar2(48)),
    ("TYPE", varchar2(10)),
    ("SQL_ID", varchar2(13)),
    ("PLSQL_ENTRY_OBJECT_ID", NUMBER),
    ("PLSQL_OBJECT_ID", NUMBER),
    ("LOGON_TIME", DataType::Date),
    ("EVENT#", NUMBER),
    ("EVENT", varchar2(64)),
    ("P1TEXT", varchar2(64)),
    ("P1", NUMBER),
    ("P2TEXT", varchar2(64)),
    ("P2", NUMBER),
    ("P3TEXT", varchar2(64)),
    ("P3", NUMBER),
    ("WAIT_CLASS_ID", NUMBER),
    ("WAIT_CLASS#", NUMBER),
    ("WAIT_CLASS", varchar2(64)),
    ("WAIT_TIME", NUMBER),
    ("STATE", varchar2(19)),
    ("WAIT_TIME_MICRO", NUMBER),
];

const PARAMETER_COLUMNS: Columns = &[
    ("NUM", NUMBER),
    ("NAME", varchar2(80)),
    ("TYPE", NUMBER),
    ("VALUE", varchar2(4000)),
    ("DISPLAY_VALUE", varchar2(4000)),
    ("ISDEFAULT", varchar2(9)),
    ("ISSES_MODIFIABLE", varchar2(5)),
    ("ISSYS_MODIFIABLE", varchar2(9)),
    ("ISMODIFIED", varchar2(10)),
    ("DESCRIPTION", varchar2(255)),
];

fn session_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::sessions()
        .into_iter()
        .map(|row| {
            let [p1_text, p2_text, p3_text] = parameter_texts(row.event);
            let mut values = vec![
                number(row.sid.into()),
                number(row.serial_number.into()),
                text(&row.username),
                text(row.status.name()),
                text(&row.program),
                text(row.session_type.name()),
                row.sql_id.as_deref().map_or(Value::Null, text),
                // NULL when no stored unit runs, as Oracle shows it.
                match row.plsql_entry_object_id {
                    0 => Value::Null,
                    id => number(id.into()),
                },
                match row.plsql_object_id {
                    0 => Value::Null,
                    id => number(id.into()),
                },
                date(row.logon_time),
                row.event
                    .map_or(Value::Null, |event| number(event.number().into())),
                row.event.map_or(Value::Null, |event| text(event.name())),
                p1_text,
                number(row.p1),
                p2_text,
                number(row.p2),
                p3_text,
                number(row.p3),
            ];
            values.extend(wait_class_values(row.event));
            values.extend([
                wait_time(row.state, row.wait_time_micro),
                text(row.state.name()),
                number(row.wait_time_micro),
            ]);
            values
        })
        .collect()
}

fn parameter_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    context
        .parameters
        .visible_rows()
        .into_iter()
        .map(|row| {
            vec![
                number(row.num.into()),
                text(row.name),
                number(row.type_code.into()),
                text(&row.value),
                text(&row.display_value),
                text(row.isdefault),
                text(row.isses_modifiable),
                text(row.issys_modifiable),
                text(row.ismodified),
                text(row.description),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{enter, wait, SessionInstrumentation, SessionType, WaitEvent};
    use crate::parameters::{Parameters, SetScope};
    use crate::views::{fixed_table, FixedTable};
    use std::time::SystemTime;

    fn column(table: &FixedTable, name: &str) -> usize {
        table
            .columns
            .iter()
            .position(|(column, _)| column == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    fn find_row<'t>(table: &'t FixedTable, name: &str, value: &Value) -> Option<&'t Vec<Value>> {
        let index = column(table, name);
        table.rows.iter().find(|row| row[index] == *value)
    }

    fn get(table: &FixedTable, row: &[Value], name: &str) -> Value {
        row[column(table, name)].clone()
    }

    fn context_with(parameters: &Parameters) -> ViewContext<'_> {
        ViewContext {
            parameters,
            ..ViewContext::detached(0)
        }
    }

    #[test]
    fn session_shows_identity_statement_and_last_wait() {
        let before = SystemTime::now();
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "sqlplus").unwrap();
        session.set_sql_id(Some("9babjv8yq8ru3"));
        let sid = session.sid();
        {
            let _entered = enter(&session);
            drop(wait(WaitEvent::DbFileSequentialRead, 7, 8, 1));
        }
        let table = fixed_table("V$SESSION", &context_with(&Parameters::defaults())).unwrap();
        let row = find_row(&table, "SID", &number(sid.into())).expect("v$session row");
        let expect = [
            ("SERIAL#", number(session.serial_number().into())),
            ("USERNAME", text("SCOTT")),
            ("STATUS", text("INACTIVE")),
            ("PROGRAM", text("sqlplus")),
            ("TYPE", text("USER")),
            ("SQL_ID", text("9babjv8yq8ru3")),
            (
                "EVENT#",
                number(WaitEvent::DbFileSequentialRead.number().into()),
            ),
            ("EVENT", text("db file sequential read")),
            ("P1TEXT", text("file#")),
            ("P1", number(7)),
            ("P2", number(8)),
            ("P3", number(1)),
            ("WAIT_CLASS", text("User I/O")),
        ];
        for (name, value) in expect {
            assert_eq!(get(&table, row, name), value, "{name}");
        }
        assert_ne!(get(&table, row, "STATE"), text("WAITING"));
        // LOGON_TIME is a DATE, truncated to the second, between our two readings of the clock.
        let Value::Date(logon) = get(&table, row, "LOGON_TIME") else {
            panic!("LOGON_TIME is not a DATE");
        };
        let Value::Date(earliest) = date(before) else {
            unreachable!()
        };
        let Value::Date(latest) = date(SystemTime::now()) else {
            unreachable!()
        };
        assert!(earliest <= logon && logon <= latest);
    }

    #[test]
    fn session_shows_a_background_session_without_username_and_an_active_status() {
        let session = instrumentation::background_session("TST0");
        let table = fixed_table("V$SESSION", &context_with(&Parameters::defaults())).unwrap();
        let row = find_row(&table, "SID", &number(session.sid().into())).unwrap();
        assert_eq!(get(&table, row, "USERNAME"), Value::Null);
        assert_eq!(get(&table, row, "PROGRAM"), text("TST0"));
        assert_eq!(get(&table, row, "TYPE"), text("BACKGROUND"));
        assert_eq!(get(&table, row, "STATUS"), text("ACTIVE"));
        assert_eq!(get(&table, row, "SQL_ID"), Value::Null);
        assert_eq!(get(&table, row, "EVENT"), Value::Null);
    }

    #[test]
    fn parameter_shows_db_block_size_by_default() {
        let table = fixed_table("V$PARAMETER", &context_with(&Parameters::defaults())).unwrap();
        let row = find_row(&table, "NAME", &text("db_block_size")).unwrap();
        assert_eq!(get(&table, row, "VALUE"), text("8192"));
        assert_eq!(get(&table, row, "DISPLAY_VALUE"), text("8192"));
        assert_eq!(get(&table, row, "TYPE"), number(3));
        assert_eq!(get(&table, row, "ISDEFAULT"), text("TRUE"));
        assert_eq!(get(&table, row, "ISSES_MODIFIABLE"), text("FALSE"));
        assert_eq!(get(&table, row, "ISSYS_MODIFIABLE"), text("FALSE"));
        assert_eq!(get(&table, row, "ISMODIFIED"), text("FALSE"));
        assert_eq!(
            get(&table, row, "DESCRIPTION"),
            text("Size of database block in bytes")
        );
        // Sizes: VALUE in bytes, DISPLAY_VALUE with a suffix.
        let cache = find_row(&table, "NAME", &text("db_cache_size")).unwrap();
        assert_eq!(get(&table, cache, "VALUE"), text("67108864"));
        assert_eq!(get(&table, cache, "DISPLAY_VALUE"), text("64M"));
        assert_eq!(get(&table, cache, "TYPE"), number(6));
        // Hidden parameters stay hidden until set.
        assert!(find_row(&table, "NAME", &text("_spin_count")).is_none());
    }

    #[test]
    fn parameter_shows_the_session_copy_after_alter_session() {
        let mut parameters = Parameters::defaults();
        parameters
            .set("cursor_sharing", "force", SetScope::AlterSession)
            .unwrap();
        let table = fixed_table("V$PARAMETER", &context_with(&parameters)).unwrap();
        let row = find_row(&table, "NAME", &text("cursor_sharing")).unwrap();
        assert_eq!(get(&table, row, "VALUE"), text("FORCE"));
        assert_eq!(get(&table, row, "ISMODIFIED"), text("MODIFIED"));
        assert_eq!(table.rows.len(), parameters.visible_rows().len());
    }
}
