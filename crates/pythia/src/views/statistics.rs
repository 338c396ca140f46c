//! Statistics and the time model: v$statname, v$sysstat, v$sesstat, v$mystat,
//! v$sys_time_model and v$sess_time_model.
//!
//! Statistic numbers, names, classes and STAT_IDs are the `Statistic` enum's (Oracle 12.1's
//! numbering, a subset). The time model's STAT_IDs are Oracle's hashes of the statistic
//! names, kept here because the instrumentation names its time-model statistics but does not
//! number them. Values are as the instrumentation counts them: the time statistics of
//! v$sysstat in centiseconds, the time model in microseconds.

use super::registry::View;
use super::table::{number, signed, text, varchar2, Columns, NUMBER};
use super::ViewContext;
use crate::instrumentation::{self, registry, Statistic, TimeModelStatistic};
use crate::types::Value;

pub(super) const VIEWS: &[View] = &[
    View::fixed("V$STATNAME", STATNAME_COLUMNS, statname_rows),
    View::fixed("V$SYSSTAT", SYSSTAT_COLUMNS, sysstat_rows),
    View::fixed("V$SESSTAT", SESSTAT_COLUMNS, sesstat_rows),
    View::fixed("V$MYSTAT", SESSTAT_COLUMNS, mystat_rows),
    View::fixed(
        "V$SYS_TIME_MODEL",
        SYS_TIME_MODEL_COLUMNS,
        sys_time_model_rows,
    ),
    View::fixed(
        "V$SESS_TIME_MODEL",
        SESS_TIME_MODEL_COLUMNS,
        sess_time_model_rows,
    ),
];

const STATNAME_COLUMNS: Columns = &[
    ("STATISTIC#", NUMBER),
    ("NAME", varchar2(64)),
    ("CLASS", NUMBER),
    ("STAT_ID", NUMBER),
];

const SYSSTAT_COLUMNS: Columns = &[
    ("STATISTIC#", NUMBER),
    ("NAME", varchar2(64)),
    ("CLASS", NUMBER),
    ("VALUE", NUMBER),
    ("STAT_ID", NUMBER),
];

/// v$sesstat and v$mystat.
const SESSTAT_COLUMNS: Columns = &[("SID", NUMBER), ("STATISTIC#", NUMBER), ("VALUE", NUMBER)];

const SYS_TIME_MODEL_COLUMNS: Columns = &[
    ("STAT_ID", NUMBER),
    ("STAT_NAME", varchar2(64)),
    ("VALUE", NUMBER),
];

const SESS_TIME_MODEL_COLUMNS: Columns = &[
    ("SID", NUMBER),
    ("STAT_ID", NUMBER),
    ("STAT_NAME", varchar2(64)),
    ("VALUE", NUMBER),
];

/// A statistic's value. Current values (`logons current`, ...) go down as well as up, so
/// their counters are read as signed: a value briefly below zero shows as negative, not as
/// a number near 2^64.
fn statistic_value(statistic: Statistic, value: u64) -> Value {
    if statistic.is_current_value() {
        signed(value as i64)
    } else {
        number(value)
    }
}

fn statname_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    Statistic::ALL
        .iter()
        .map(|statistic| {
            vec![
                number(statistic.number().into()),
                text(statistic.name()),
                number(statistic.class().into()),
                number(statistic.stat_id().into()),
            ]
        })
        .collect()
}

fn sysstat_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::system_statistics()
        .into_iter()
        .map(|row| {
            let statistic = row.statistic;
            vec![
                number(statistic.number().into()),
                text(statistic.name()),
                number(statistic.class().into()),
                statistic_value(statistic, row.value),
                number(statistic.stat_id().into()),
            ]
        })
        .collect()
}

/// The v$sesstat rows of one session (none if it is not live).
fn session_statistic_rows(sid: u32) -> Vec<Vec<Value>> {
    instrumentation::session_statistics(sid)
        .into_iter()
        .map(|row| {
            vec![
                number(row.sid.into()),
                number(row.statistic.number().into()),
                statistic_value(row.statistic, row.value),
            ]
        })
        .collect()
}

fn sesstat_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    registry()
        .sids()
        .into_iter()
        .flat_map(session_statistic_rows)
        .collect()
}

fn mystat_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    session_statistic_rows(context.sid)
}

/// Oracle's STAT_ID of a time-model statistic (a hash of its name, the same in every release).
const fn time_model_stat_id(statistic: TimeModelStatistic) -> u32 {
    use TimeModelStatistic as T;
    match statistic {
        T::DbTime => 3649082374,
        T::DbCpu => 2748282437,
        T::ConnectionManagementCallElapsedTime => 1990024365,
        T::SequenceLoadElapsedTime => 4127043053,
        T::SqlExecuteElapsedTime => 2821698184,
        T::ParseTimeElapsed => 1431595225,
        T::HardParseElapsedTime => 372226525,
        T::HardParseSharingCriteriaElapsedTime => 3138706091,
        T::FailedParseElapsedTime => 1824284809,
        T::PlsqlExecutionElapsedTime => 2643905994,
        T::PlsqlCompilationElapsedTime => 1311180441,
        T::BackgroundElapsedTime => 4157170894,
        T::BackgroundCpuTime => 2451517896,
    }
}

fn sys_time_model_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::system_time_model()
        .into_iter()
        .map(|row| {
            vec![
                number(time_model_stat_id(row.statistic).into()),
                text(row.statistic.name()),
                number(row.value),
            ]
        })
        .collect()
}

fn sess_time_model_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    registry()
        .sids()
        .into_iter()
        .flat_map(instrumentation::session_time_model)
        .map(|row| {
            vec![
                number(row.sid.into()),
                number(time_model_stat_id(row.statistic).into()),
                text(row.statistic.name()),
                number(row.value),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType};
    use crate::views::{fixed_table, FixedTable};
    use std::collections::HashSet;

    fn context(sid: u32) -> ViewContext<'static> {
        ViewContext::detached(sid)
    }

    fn column(table: &FixedTable, name: &str) -> usize {
        table
            .columns
            .iter()
            .position(|(column, _)| column == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    /// The value of `statistic` in v$mystat or v$sesstat for `sid`.
    fn session_value(table: &FixedTable, sid: u32, statistic: Statistic) -> Option<Value> {
        let sid_column = column(table, "SID");
        let number_column = column(table, "STATISTIC#");
        let value_column = column(table, "VALUE");
        table
            .rows
            .iter()
            .find(|row| {
                row[sid_column] == number(sid.into())
                    && row[number_column] == number(statistic.number().into())
            })
            .map(|row| row[value_column].clone())
    }

    fn sysstat_value(statistic: Statistic) -> u64 {
        let table = fixed_table("V$SYSSTAT", &context(0)).unwrap();
        let name_column = column(&table, "NAME");
        let value_column = column(&table, "VALUE");
        let row = table
            .rows
            .iter()
            .find(|row| row[name_column] == text(statistic.name()))
            .unwrap();
        row[value_column].to_text().unwrap().parse().unwrap()
    }

    #[test]
    fn mystat_shows_what_the_session_counted() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let sid = session.sid();
        {
            let _entered = enter(&session);
            instrumentation::add(Statistic::LeafNodeSplits, 41);
            instrumentation::add(Statistic::LeafNodeSplits, 1);
        }
        let mystat = fixed_table("V$MYSTAT", &context(sid)).unwrap();
        assert_eq!(mystat.rows.len(), Statistic::COUNT);
        assert!(mystat.rows.iter().all(|row| row[0] == number(sid.into())));
        assert_eq!(
            session_value(&mystat, sid, Statistic::LeafNodeSplits),
            Some(number(42))
        );
        assert_eq!(
            session_value(&mystat, sid, Statistic::LogonsCurrent),
            Some(number(1))
        );
        assert_eq!(
            session_value(&mystat, sid, Statistic::RootNodeSplits),
            Some(number(0))
        );
        let sesstat = fixed_table("V$SESSTAT", &context(0)).unwrap();
        assert_eq!(
            session_value(&sesstat, sid, Statistic::LeafNodeSplits),
            Some(number(42))
        );
    }

    #[test]
    fn mystat_of_a_session_that_is_gone_is_empty() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let sid = session.sid();
        let serial_number = session.serial_number();
        drop(session);
        let mystat = fixed_table("V$MYSTAT", &context(sid)).unwrap();
        // The sid may have been reused by another test's session meanwhile.
        let reused = registry()
            .session(sid)
            .is_some_and(|other| other.serial_number() != serial_number);
        assert!(mystat.rows.is_empty() || reused);
    }

    #[test]
    fn sysstat_includes_a_session_counts_and_never_goes_back_when_it_ends() {
        let before = sysstat_value(Statistic::LeafNode9010Splits);
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        {
            let _entered = enter(&session);
            instrumentation::add(Statistic::LeafNode9010Splits, 7);
        }
        let live = sysstat_value(Statistic::LeafNode9010Splits);
        drop(session);
        let departed = sysstat_value(Statistic::LeafNode9010Splits);
        assert!(live >= before + 7, "{before} -> {live}");
        assert!(departed >= live, "{live} -> {departed}");
    }

    #[test]
    fn statname_matches_sysstat_and_oracle_numbers() {
        let statname = fixed_table("V$STATNAME", &context(0)).unwrap();
        let sysstat = fixed_table("V$SYSSTAT", &context(0)).unwrap();
        assert_eq!(statname.rows.len(), Statistic::COUNT);
        assert_eq!(sysstat.rows.len(), Statistic::COUNT);
        for (name_row, stat_row) in statname.rows.iter().zip(&sysstat.rows) {
            assert_eq!(name_row[..3], stat_row[..3]);
            assert_eq!(name_row[3], stat_row[4]);
        }
        let hard_parses = statname
            .rows
            .iter()
            .find(|row| row[1] == text("parse count (hard)"))
            .unwrap();
        assert_eq!(
            hard_parses,
            &vec![
                number(574),
                text("parse count (hard)"),
                number(64),
                number(143509059)
            ]
        );
    }

    #[test]
    fn time_model_has_oracle_stat_ids_and_the_session_db_time() {
        let ids: HashSet<u32> = TimeModelStatistic::ALL
            .iter()
            .map(|&statistic| time_model_stat_id(statistic))
            .collect();
        assert_eq!(ids.len(), TimeModelStatistic::COUNT);
        // DB time and parse time elapsed hash to the same STAT_ID as their v$statname namesakes.
        assert_eq!(
            time_model_stat_id(TimeModelStatistic::DbTime),
            Statistic::DbTime.stat_id()
        );
        assert_eq!(
            time_model_stat_id(TimeModelStatistic::ParseTimeElapsed),
            Statistic::ParseTimeElapsed.stat_id()
        );

        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let sid = session.sid();
        {
            let _entered = enter(&session);
            let _call = instrumentation::user_call();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let system = fixed_table("V$SYS_TIME_MODEL", &context(sid)).unwrap();
        assert_eq!(system.rows.len(), TimeModelStatistic::COUNT);
        assert!(system
            .rows
            .iter()
            .any(|row| row[0] == number(3649082374) && row[1] == text("DB time")));

        let sessions = fixed_table("V$SESS_TIME_MODEL", &context(sid)).unwrap();
        let mine: Vec<&Vec<Value>> = sessions
            .rows
            .iter()
            .filter(|row| row[0] == number(sid.into()))
            .collect();
        assert_eq!(mine.len(), TimeModelStatistic::COUNT);
        let db_time = mine.iter().find(|row| row[2] == text("DB time")).unwrap()[3]
            .to_text()
            .unwrap()
            .parse::<u64>()
            .unwrap();
        assert!(db_time >= 2_000, "DB time {db_time} µs");
    }
}
