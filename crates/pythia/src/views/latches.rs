//! Latches and mutexes: v$latchname, v$latch, v$latch_children, v$mutex_sleep and
//! v$mutex_sleep_history.
//!
//! v$latch has one row per latch name, summed over the name's children, live and dropped
//! (so its counts never go backwards); v$latch_children lists the live children, ADDR being
//! the child's address. For every latch `MISSES = SPIN_GETS + SLEEPS`; WAIT_TIME is in
//! microseconds, as in Oracle. LATCH# is Pythia's (the position in `LatchName::ALL`).
//!
//! v$mutex_sleep has one row per (mutex type, location) that has slept, WAIT_TIME in
//! microseconds; v$mutex_sleep_history keeps the last sleep of each (mutex, requesting
//! session), at most `MUTEX_SLEEP_HISTORY_ROWS_MAX` rows, oldest first. MUTEX_VALUE is the
//! mutex word when the sleep began (holder sid in the high half, shared references in the
//! low half), shown as the hexadecimal text of Oracle's RAW.

use super::registry::View;
use super::table::{number, raw, text, timestamp, varchar2, Columns, NUMBER, RAW_ADDRESS_DIGITS};
use super::ViewContext;
use crate::instrumentation::{self, LatchName, LatchStatistics};
use crate::types::{DataType, Value};

pub(super) const VIEWS: &[View] = &[
    View::fixed("V$LATCHNAME", LATCHNAME_COLUMNS, latchname_rows),
    View::fixed("V$LATCH", LATCH_COLUMNS, latch_rows),
    View::fixed(
        "V$LATCH_CHILDREN",
        LATCH_CHILDREN_COLUMNS,
        latch_children_rows,
    ),
    View::fixed("V$MUTEX_SLEEP", MUTEX_SLEEP_COLUMNS, mutex_sleep_rows),
    View::fixed(
        "V$MUTEX_SLEEP_HISTORY",
        MUTEX_SLEEP_HISTORY_COLUMNS,
        mutex_sleep_history_rows,
    ),
];

const LATCHNAME_COLUMNS: Columns = &[("LATCH#", NUMBER), ("NAME", varchar2(64))];

const LATCH_COLUMNS: Columns = &[
    ("LATCH#", NUMBER),
    ("NAME", varchar2(64)),
    ("GETS", NUMBER),
    ("MISSES", NUMBER),
    ("SLEEPS", NUMBER),
    ("IMMEDIATE_GETS", NUMBER),
    ("IMMEDIATE_MISSES", NUMBER),
    ("SPIN_GETS", NUMBER),
    ("WAIT_TIME", NUMBER),
];

const LATCH_CHILDREN_COLUMNS: Columns = &[
    ("ADDR", varchar2(RAW_ADDRESS_DIGITS)),
    ("LATCH#", NUMBER),
    ("CHILD#", NUMBER),
    ("NAME", varchar2(64)),
    ("GETS", NUMBER),
    ("MISSES", NUMBER),
    ("SLEEPS", NUMBER),
    ("IMMEDIATE_GETS", NUMBER),
    ("IMMEDIATE_MISSES", NUMBER),
    ("SPIN_GETS", NUMBER),
    ("WAIT_TIME", NUMBER),
];

const MUTEX_SLEEP_COLUMNS: Columns = &[
    ("MUTEX_TYPE", varchar2(32)),
    ("LOCATION", varchar2(40)),
    ("SLEEPS", NUMBER),
    ("WAIT_TIME", NUMBER),
];

const MUTEX_SLEEP_HISTORY_COLUMNS: Columns = &[
    ("MUTEX_IDENTIFIER", NUMBER),
    ("SLEEP_TIMESTAMP", DataType::Timestamp),
    ("MUTEX_TYPE", varchar2(32)),
    ("GETS", NUMBER),
    ("SLEEPS", NUMBER),
    ("REQUESTING_SESSION", NUMBER),
    ("BLOCKING_SESSION", NUMBER),
    ("LOCATION", varchar2(40)),
    ("MUTEX_VALUE", varchar2(RAW_ADDRESS_DIGITS)),
];

/// LATCH# and NAME.
fn latch_identity(name: LatchName) -> [Value; 2] {
    [number(name.number().into()), text(name.name())]
}

/// GETS through WAIT_TIME, in v$latch's column order.
fn latch_counts(statistics: &LatchStatistics) -> [Value; 7] {
    [
        number(statistics.gets),
        number(statistics.misses),
        number(statistics.sleeps),
        number(statistics.immediate_gets),
        number(statistics.immediate_misses),
        number(statistics.spin_gets),
        number(statistics.wait_time),
    ]
}

fn latchname_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    LatchName::ALL
        .iter()
        .map(|&name| latch_identity(name).to_vec())
        .collect()
}

fn latch_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::latches()
        .into_iter()
        .map(|row| {
            let mut values = latch_identity(row.name).to_vec();
            values.extend(latch_counts(&row.statistics));
            values
        })
        .collect()
}

fn latch_children_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::latch_children()
        .into_iter()
        .map(|child| {
            let mut values = vec![
                raw(child.address),
                number(child.name.number().into()),
                number(child.child_number.into()),
                text(child.name.name()),
            ];
            values.extend(latch_counts(&child.statistics));
            values
        })
        .collect()
}

fn mutex_sleep_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::mutex_sleeps()
        .into_iter()
        .map(|row| {
            vec![
                text(row.mutex_type.name()),
                text(row.location),
                number(row.sleeps),
                number(row.wait_time),
            ]
        })
        .collect()
}

fn mutex_sleep_history_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::mutex_sleep_history()
        .into_iter()
        .map(|row| {
            vec![
                number(row.mutex_identifier),
                timestamp(row.sleep_timestamp),
                text(row.mutex_type.name()),
                number(row.gets),
                number(row.sleeps),
                number(row.requesting_session.into()),
                number(row.blocking_session.into()),
                text(row.location),
                raw(row.mutex_value),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{
        enter, KglMutex, Latch, MutexType, SessionInstrumentation, SessionType,
    };
    use crate::views::{fixed_table, FixedTable};
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    fn context() -> ViewContext<'static> {
        ViewContext {
            ..ViewContext::detached(0)
        }
    }

    fn column(table: &FixedTable, name: &str) -> usize {
        table
            .columns
            .iter()
            .position(|(column, _)| column == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    fn get(table: &FixedTable, row: &[Value], name: &str) -> Value {
        row[column(table, name)].clone()
    }

    fn as_u64(value: &Value) -> u64 {
        value.to_text().unwrap().parse().unwrap()
    }

    /// v$latch's row for `name`, by column name.
    fn latch_row(name: LatchName) -> (FixedTable, Vec<Value>) {
        let table = fixed_table("V$LATCH", &context()).unwrap();
        let row = table
            .rows
            .iter()
            .find(|row| row[column(&table, "NAME")] == text(name.name()))
            .unwrap()
            .clone();
        (table, row)
    }

    #[test]
    fn latch_and_latch_children_count_gets() {
        let name = LatchName::ChannelOperationsParentLatch;
        let (table, before) = latch_row(name);
        let gets_before = as_u64(&get(&table, &before, "GETS"));
        let immediate_before = as_u64(&get(&table, &before, "IMMEDIATE_GETS"));
        let latch = Latch::new(name, 0u32);
        for _ in 0..5 {
            *latch.lock() += 1;
        }
        drop(latch.try_lock());
        let (table, after) = latch_row(name);
        assert_eq!(get(&table, &after, "LATCH#"), number(name.number().into()));
        assert!(as_u64(&get(&table, &after, "GETS")) >= gets_before + 5);
        assert!(as_u64(&get(&table, &after, "IMMEDIATE_GETS")) > immediate_before);
        let misses = as_u64(&get(&table, &after, "MISSES"));
        let spin_gets = as_u64(&get(&table, &after, "SPIN_GETS"));
        let sleeps = as_u64(&get(&table, &after, "SLEEPS"));
        assert_eq!(misses, spin_gets + sleeps);

        let children = fixed_table("V$LATCH_CHILDREN", &context()).unwrap();
        let ours = latch.statistics();
        let row = children
            .rows
            .iter()
            .find(|row| row[column(&children, "ADDR")] == raw(ours.address))
            .expect("v$latch_children row");
        assert_eq!(get(&children, row, "NAME"), text(name.name()));
        assert_eq!(
            get(&children, row, "CHILD#"),
            number(ours.child_number.into())
        );
        assert_eq!(get(&children, row, "GETS"), number(5));
        assert_eq!(get(&children, row, "IMMEDIATE_GETS"), number(1));
        assert_eq!(get(&children, row, "MISSES"), number(0));
    }

    #[test]
    fn latchname_lists_every_latch() {
        let table = fixed_table("V$LATCHNAME", &context()).unwrap();
        assert_eq!(table.rows.len(), LatchName::COUNT);
        assert_eq!(
            fixed_table("V$LATCH", &context()).unwrap().rows.len(),
            LatchName::COUNT
        );
        assert!(table
            .rows
            .iter()
            .any(|row| row[1] == text("cache buffers chains")));
    }

    /// Whether the session `sid` is waiting now, as v$session_wait shows it.
    fn is_waiting(sid: u32) -> bool {
        let table = fixed_table("V$SESSION_WAIT", &context()).unwrap();
        table.rows.iter().any(|row| {
            row[column(&table, "SID")] == number(sid.into())
                && row[column(&table, "STATE")] == text("WAITING")
        })
    }

    #[test]
    fn a_contended_mutex_shows_in_mutex_sleep_and_its_history() {
        const LOCATION: &str = "kglhdgn  1 (views test)";
        const IDENTIFIER: u64 = 0x7E57_0001;
        let mutex = Arc::new(KglMutex::new(MutexType::LibraryCache, IDENTIFIER, ()));
        let holder = SessionInstrumentation::new(SessionType::User, "HOLDER", "test").unwrap();
        let requester = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let requester_sid = requester.sid();

        let (held_sender, held) = mpsc::channel();
        let (release_sender, release) = mpsc::channel::<()>();
        let holding = {
            let mutex = mutex.clone();
            let holder = holder.clone();
            std::thread::spawn(move || {
                let _entered = enter(&holder);
                let _guard = mutex.exclusive("views test holder");
                held_sender.send(()).unwrap();
                release.recv().unwrap();
            })
        };
        held.recv().unwrap();
        let requesting = {
            let mutex = mutex.clone();
            let requester = requester.clone();
            std::thread::spawn(move || {
                let _entered = enter(&requester);
                drop(mutex.exclusive(LOCATION));
            })
        };
        while !is_waiting(requester_sid) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let waiting = fixed_table("V$SESSION", &context()).unwrap();
        let row = waiting
            .rows
            .iter()
            .find(|row| row[column(&waiting, "SID")] == number(requester_sid.into()))
            .unwrap();
        assert_eq!(get(&waiting, row, "EVENT"), text("library cache: mutex X"));
        assert_eq!(get(&waiting, row, "P1"), number(IDENTIFIER));
        assert_eq!(get(&waiting, row, "STATE"), text("WAITING"));
        assert_eq!(get(&waiting, row, "WAIT_TIME"), number(0));
        release_sender.send(()).unwrap();
        holding.join().unwrap();
        requesting.join().unwrap();

        let sleeps = fixed_table("V$MUTEX_SLEEP", &context()).unwrap();
        let row = sleeps
            .rows
            .iter()
            .find(|row| row[column(&sleeps, "LOCATION")] == text(LOCATION))
            .expect("v$mutex_sleep row");
        assert_eq!(get(&sleeps, row, "MUTEX_TYPE"), text("Library Cache"));
        assert!(as_u64(&get(&sleeps, row, "SLEEPS")) >= 1);

        let history = fixed_table("V$MUTEX_SLEEP_HISTORY", &context()).unwrap();
        let row = history
            .rows
            .iter()
            .find(|row| row[column(&history, "MUTEX_IDENTIFIER")] == number(IDENTIFIER))
            .expect("v$mutex_sleep_history row");
        assert_eq!(
            get(&history, row, "REQUESTING_SESSION"),
            number(requester_sid.into())
        );
        assert_eq!(
            get(&history, row, "BLOCKING_SESSION"),
            number(holder.sid().into())
        );
        assert_eq!(get(&history, row, "LOCATION"), text(LOCATION));
        assert_eq!(get(&history, row, "MUTEX_TYPE"), text("Library Cache"));
        // The holder's sid in the high half of the mutex word.
        let Value::Text(mutex_value) = get(&history, row, "MUTEX_VALUE") else {
            panic!("MUTEX_VALUE is not text");
        };
        assert_eq!(
            u64::from_str_radix(&mutex_value, 16).unwrap() >> 32,
            u64::from(holder.sid())
        );
        assert!(matches!(
            get(&history, row, "SLEEP_TIMESTAMP"),
            Value::Timestamp(_)
        ));
    }
}
