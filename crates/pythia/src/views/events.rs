//! Wait events: v$event_name, v$system_event, v$session_event, v$session_wait,
//! v$event_histogram and v$event_histogram_micro.
//!
//! The instrumentation records each wait's count, timeouts, time and maximum in microseconds,
//! and a histogram with power-of-two microsecond buckets. The views derive Oracle's columns:
//!
//! ```text
//!   TIME_WAITED    round(time_waited_micro / 10000)                 centiseconds
//!   AVERAGE_WAIT   round(time_waited_micro / (10000 * waits), 2)    centiseconds
//!   MAX_WAIT       round(max_wait_micro / 10000)                    centiseconds
//!   WAIT_TIME      0 waiting, -1 last wait under 1 cs, else its centiseconds
//! ```
//!
//! v$event_histogram_micro shows the buckets as kept: WAIT_TIME_MICRO = 2^k counts the waits
//! of at least 2^(k-1) and under 2^k µs (1: under a microsecond); the last bucket, 2^32, also
//! holds every longer wait. v$event_histogram folds them into millisecond buckets reading a
//! millisecond as 1024 µs, so that each microsecond bucket falls into exactly one millisecond
//! bucket: WAIT_TIME_MILLI 1 holds the waits under 1024 µs, 2^j the waits of 2^(j-1) to 2^j
//! such milliseconds. A bucket boundary is therefore 2.4% above Oracle's (a wait of 2.01 ms
//! counts under 2 ms, not under 4).
//!
//! Events that have never been waited on have no rows in v$system_event, v$session_event
//! and the histograms, as in Oracle; v$event_name lists them all. EVENT# is the position in
//! `WaitEvent::ALL` (Pythia's, not a particular Oracle release's); Pythia does not keep
//! Oracle's EVENT_ID hashes.

use super::registry::View;
use super::table::{average_centiseconds, centiseconds, number, signed, text, varchar2};
use super::table::{Columns, NUMBER};
use super::ViewContext;
use crate::instrumentation::{self, registry, WaitEvent, WaitState};
use crate::types::Value;

pub(super) const VIEWS: &[View] = &[
    View::fixed("V$EVENT_NAME", EVENT_NAME_COLUMNS, event_name_rows),
    View::fixed("V$SYSTEM_EVENT", SYSTEM_EVENT_COLUMNS, system_event_rows),
    View::fixed("V$SESSION_EVENT", SESSION_EVENT_COLUMNS, session_event_rows),
    View::fixed("V$SESSION_WAIT", SESSION_WAIT_COLUMNS, session_wait_rows),
    View::fixed(
        "V$EVENT_HISTOGRAM",
        EVENT_HISTOGRAM_COLUMNS,
        event_histogram_rows,
    ),
    View::fixed(
        "V$EVENT_HISTOGRAM_MICRO",
        EVENT_HISTOGRAM_MICRO_COLUMNS,
        event_histogram_micro_rows,
    ),
];

const EVENT_NAME_COLUMNS: Columns = &[
    ("EVENT#", NUMBER),
    ("NAME", varchar2(64)),
    ("PARAMETER1", varchar2(64)),
    ("PARAMETER2", varchar2(64)),
    ("PARAMETER3", varchar2(64)),
    ("WAIT_CLASS_ID", NUMBER),
    ("WAIT_CLASS#", NUMBER),
    ("WAIT_CLASS", varchar2(64)),
];

const SYSTEM_EVENT_COLUMNS: Columns = &[
    ("EVENT", varchar2(64)),
    ("TOTAL_WAITS", NUMBER),
    ("TOTAL_TIMEOUTS", NUMBER),
    ("TIME_WAITED", NUMBER),
    ("AVERAGE_WAIT", NUMBER),
    ("TIME_WAITED_MICRO", NUMBER),
    ("WAIT_CLASS_ID", NUMBER),
    ("WAIT_CLASS#", NUMBER),
    ("WAIT_CLASS", varchar2(64)),
];

const SESSION_EVENT_COLUMNS: Columns = &[
    ("SID", NUMBER),
    ("EVENT", varchar2(64)),
    ("TOTAL_WAITS", NUMBER),
    ("TOTAL_TIMEOUTS", NUMBER),
    ("TIME_WAITED", NUMBER),
    ("AVERAGE_WAIT", NUMBER),
    ("MAX_WAIT", NUMBER),
    ("TIME_WAITED_MICRO", NUMBER),
    ("WAIT_CLASS_ID", NUMBER),
    ("WAIT_CLASS#", NUMBER),
    ("WAIT_CLASS", varchar2(64)),
];

const SESSION_WAIT_COLUMNS: Columns = &[
    ("SID", NUMBER),
    ("SEQ#", NUMBER),
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
    ("SECONDS_IN_WAIT", NUMBER),
    ("STATE", varchar2(19)),
    ("WAIT_TIME_MICRO", NUMBER),
    ("TIME_SINCE_LAST_WAIT_MICRO", NUMBER),
];

const EVENT_HISTOGRAM_COLUMNS: Columns = &[
    ("EVENT#", NUMBER),
    ("EVENT", varchar2(64)),
    ("WAIT_TIME_MILLI", NUMBER),
    ("WAIT_COUNT", NUMBER),
];

const EVENT_HISTOGRAM_MICRO_COLUMNS: Columns = &[
    ("EVENT#", NUMBER),
    ("EVENT", varchar2(64)),
    ("WAIT_TIME_FORMAT", varchar2(30)),
    ("WAIT_TIME_MICRO", NUMBER),
    ("WAIT_COUNT", NUMBER),
];

const MICROS_PER_MILLISECOND: u64 = 1_000;
const MICROS_PER_SECOND: u64 = 1_000_000;
const MICROS_PER_MINUTE: u64 = 60 * MICROS_PER_SECOND;

/// WAIT_CLASS_ID, WAIT_CLASS# and WAIT_CLASS of `event`; NULLs for no event.
pub(super) fn wait_class_values(event: Option<WaitEvent>) -> [Value; 3] {
    match event {
        Some(event) => {
            let class = event.wait_class();
            [
                number(class.id().into()),
                number(class.number().into()),
                text(class.name()),
            ]
        }
        None => [Value::Null, Value::Null, Value::Null],
    }
}

/// P1TEXT, P2TEXT and P3TEXT of `event`: NULL where the event does not use the parameter.
pub(super) fn parameter_texts(event: Option<WaitEvent>) -> [Value; 3] {
    let names = event.map_or(["", "", ""], |event| event.parameter_names());
    names.map(text)
}

/// WAIT_TIME of v$session_wait and v$session: 0 while waiting, -1 when the last wait took
/// under a centisecond, otherwise the last wait's centiseconds.
pub(super) fn wait_time(state: WaitState, wait_time_micro: u64) -> Value {
    match state {
        WaitState::Waiting => number(0),
        WaitState::WaitedShortTime => signed(-1),
        WaitState::WaitedKnownTime => centiseconds(wait_time_micro),
    }
}

fn event_name_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    WaitEvent::ALL
        .iter()
        .map(|&event| {
            let mut row = vec![number(event.number().into()), text(event.name())];
            row.extend(parameter_texts(Some(event)));
            row.extend(wait_class_values(Some(event)));
            row
        })
        .collect()
}

fn system_event_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::system_events()
        .into_iter()
        .map(|row| {
            let mut values = vec![
                text(row.event.name()),
                number(row.total_waits),
                number(row.total_timeouts),
                centiseconds(row.time_waited_micro),
                average_centiseconds(row.time_waited_micro, row.total_waits),
                number(row.time_waited_micro),
            ];
            values.extend(wait_class_values(Some(row.event)));
            values
        })
        .collect()
}

fn session_event_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    registry()
        .sids()
        .into_iter()
        .flat_map(instrumentation::session_events)
        .map(|row| {
            let mut values = vec![
                number(row.sid.into()),
                text(row.event.name()),
                number(row.total_waits),
                number(row.total_timeouts),
                centiseconds(row.time_waited_micro),
                average_centiseconds(row.time_waited_micro, row.total_waits),
                centiseconds(row.max_wait_micro),
                number(row.time_waited_micro),
            ];
            values.extend(wait_class_values(Some(row.event)));
            values
        })
        .collect()
}

/// A session that has not waited yet shows its EVENT and texts as NULL and parameters as 0.
fn session_wait_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::session_waits()
        .into_iter()
        .map(|row| {
            let [p1_text, p2_text, p3_text] = parameter_texts(row.event);
            // Not waiting: the time since the last wait began, as Oracle's deprecated column.
            let seconds_in_wait = match row.state {
                WaitState::Waiting => row.wait_time_micro,
                _ => row
                    .wait_time_micro
                    .saturating_add(row.time_since_last_wait_micro),
            } / MICROS_PER_SECOND;
            let mut values = vec![
                number(row.sid.into()),
                number(row.sequence_number),
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
                number(seconds_in_wait),
                text(row.state.name()),
                number(row.wait_time_micro),
                number(row.time_since_last_wait_micro),
            ]);
            values
        })
        .collect()
}

/// The v$event_histogram bucket (WAIT_TIME_MILLI) that the microsecond bucket
/// `wait_time_micro` (a power of two) folds into, a millisecond being 1024 µs.
fn millisecond_bucket(wait_time_micro: u64) -> u64 {
    (wait_time_micro >> 10).max(1)
}

fn event_histogram_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    // Rows come by event, then by ascending bucket: equal millisecond buckets are adjacent.
    let mut folded: Vec<(WaitEvent, u64, u64)> = Vec::new();
    for row in instrumentation::event_histograms() {
        let milli = millisecond_bucket(row.wait_time_micro);
        match folded.last_mut() {
            Some((event, bucket, count)) if *event == row.event && *bucket == milli => {
                *count += row.wait_count;
            }
            _ => folded.push((row.event, milli, row.wait_count)),
        }
    }
    folded
        .into_iter()
        .map(|(event, milli, count)| {
            vec![
                number(event.number().into()),
                text(event.name()),
                number(milli),
                number(count),
            ]
        })
        .collect()
}

/// WAIT_TIME_FORMAT: a bucket's bound in the largest unit it reaches, truncated: "512
/// microseconds", "1 millisecond", "4 seconds", "1 minute 7 seconds".
fn wait_time_format(micros: u64) -> String {
    fn count(amount: u64, unit: &str) -> String {
        let plural = if amount == 1 { "" } else { "s" };
        format!("{amount} {unit}{plural}")
    }
    if micros < MICROS_PER_MILLISECOND {
        count(micros, "microsecond")
    } else if micros < MICROS_PER_SECOND {
        count(micros / MICROS_PER_MILLISECOND, "millisecond")
    } else if micros < MICROS_PER_MINUTE {
        count(micros / MICROS_PER_SECOND, "second")
    } else {
        format!(
            "{} {}",
            count(micros / MICROS_PER_MINUTE, "minute"),
            count(micros % MICROS_PER_MINUTE / MICROS_PER_SECOND, "second")
        )
    }
}

fn event_histogram_micro_rows(_context: &ViewContext) -> Vec<Vec<Value>> {
    instrumentation::event_histograms()
        .into_iter()
        .map(|row| {
            vec![
                number(row.event.number().into()),
                text(row.event.name()),
                text(&wait_time_format(row.wait_time_micro)),
                number(row.wait_time_micro),
                number(row.wait_count),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{
        enter, histogram_bucket, wait, SessionInstrumentation, SessionType,
    };
    use crate::views::{fixed_table, FixedTable};
    use std::time::Duration;

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

    fn as_u64(value: &Value) -> u64 {
        value.to_text().unwrap().parse().unwrap()
    }

    /// The row of `table` whose `key` columns hold `values`, as a map from column to value.
    fn find_row(table: &FixedTable, keys: &[(&str, Value)]) -> Option<Vec<Value>> {
        table
            .rows
            .iter()
            .find(|row| {
                keys.iter()
                    .all(|(name, value)| row[column(table, name)] == *value)
            })
            .cloned()
    }

    fn get(table: &FixedTable, row: &[Value], name: &str) -> Value {
        row[column(table, name)].clone()
    }

    /// System totals of `event`: (TOTAL_WAITS, TIME_WAITED_MICRO), zeros if never waited on.
    fn system_totals(event: WaitEvent) -> (u64, u64) {
        let table = fixed_table("V$SYSTEM_EVENT", &context(0)).unwrap();
        find_row(&table, &[("EVENT", text(event.name()))]).map_or((0, 0), |row| {
            (
                as_u64(&get(&table, &row, "TOTAL_WAITS")),
                as_u64(&get(&table, &row, "TIME_WAITED_MICRO")),
            )
        })
    }

    /// WAIT_COUNT of one bucket of `view` (a histogram), 0 if the bucket is empty.
    fn bucket_count(view: &str, bucket_column: &str, event: WaitEvent, bucket: u64) -> u64 {
        let table = fixed_table(view, &context(0)).unwrap();
        find_row(
            &table,
            &[
                ("EVENT", text(event.name())),
                (bucket_column, number(bucket)),
            ],
        )
        .map_or(0, |row| as_u64(&get(&table, &row, "WAIT_COUNT")))
    }

    #[test]
    fn a_timed_wait_shows_in_session_and_system_events_and_histograms() {
        // An event no other test waits on, so that the histogram delta is ours alone.
        let event = WaitEvent::LogFileSwitchPrivateStrandFlushIncomplete;
        let (waits_before, micros_before) = system_totals(event);
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let sid = session.sid();
        let elapsed_micros = {
            let _entered = enter(&session);
            let guard = wait(event, 0, 0, 0);
            std::thread::sleep(Duration::from_millis(3));
            guard.finish().elapsed_micros
        };
        assert!(elapsed_micros >= 3_000);
        let micro_bucket = 1u64 << histogram_bucket(elapsed_micros);
        let milli_bucket = millisecond_bucket(micro_bucket);
        let micro_count = bucket_count(
            "V$EVENT_HISTOGRAM_MICRO",
            "WAIT_TIME_MICRO",
            event,
            micro_bucket,
        );

        let sessions = fixed_table("V$SESSION_EVENT", &context(sid)).unwrap();
        let row = find_row(
            &sessions,
            &[("SID", number(sid.into())), ("EVENT", text(event.name()))],
        )
        .expect("v$session_event row");
        assert_eq!(get(&sessions, &row, "TOTAL_WAITS"), number(1));
        assert_eq!(get(&sessions, &row, "TOTAL_TIMEOUTS"), number(0));
        assert_eq!(
            get(&sessions, &row, "TIME_WAITED_MICRO"),
            number(elapsed_micros)
        );
        assert_eq!(
            get(&sessions, &row, "TIME_WAITED"),
            centiseconds(elapsed_micros)
        );
        assert_eq!(
            get(&sessions, &row, "MAX_WAIT"),
            centiseconds(elapsed_micros)
        );
        assert_eq!(
            get(&sessions, &row, "AVERAGE_WAIT"),
            average_centiseconds(elapsed_micros, 1)
        );
        assert_eq!(get(&sessions, &row, "WAIT_CLASS"), text("Configuration"));

        let (waits_after, micros_after) = system_totals(event);
        assert!(waits_after > waits_before);
        assert!(micros_after >= micros_before + elapsed_micros);

        // The wait is in its bucket of both histograms (other tests may add to it, not remove).
        assert!(micro_count >= 1);
        assert!(bucket_count("V$EVENT_HISTOGRAM", "WAIT_TIME_MILLI", event, milli_bucket) >= 1);
        let micro = fixed_table("V$EVENT_HISTOGRAM_MICRO", &context(0)).unwrap();
        let row = find_row(
            &micro,
            &[
                ("EVENT", text(event.name())),
                ("WAIT_TIME_MICRO", number(micro_bucket)),
            ],
        )
        .unwrap();
        assert_eq!(
            get(&micro, &row, "WAIT_TIME_FORMAT"),
            text(&wait_time_format(micro_bucket))
        );
        assert_eq!(get(&micro, &row, "EVENT#"), number(event.number().into()));
    }

    #[test]
    fn session_wait_shows_the_last_wait_then_the_current_one() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let sid = session.sid();
        let elapsed_micros = {
            let _entered = enter(&session);
            wait(WaitEvent::DbFileScatteredRead, 4, 130, 8)
                .finish()
                .elapsed_micros
        };
        let table = fixed_table("V$SESSION_WAIT", &context(sid)).unwrap();
        let row = find_row(&table, &[("SID", number(sid.into()))]).unwrap();
        let expect = [
            ("SEQ#", number(1)),
            ("EVENT", text("db file scattered read")),
            ("P1TEXT", text("file#")),
            ("P1", number(4)),
            ("P2TEXT", text("block#")),
            ("P2", number(130)),
            ("P3TEXT", text("blocks")),
            ("P3", number(8)),
            ("WAIT_CLASS", text("User I/O")),
            ("WAIT_CLASS#", number(8)),
            ("WAIT_CLASS_ID", number(1740759767)),
            ("WAIT_TIME_MICRO", number(elapsed_micros)),
        ];
        for (name, value) in expect {
            assert_eq!(get(&table, &row, name), value, "{name}");
        }
        let short = elapsed_micros < instrumentation::SHORT_WAIT_MICROS_MAX;
        assert_eq!(
            get(&table, &row, "STATE"),
            text(if short {
                "WAITED SHORT TIME"
            } else {
                "WAITED KNOWN TIME"
            })
        );
        if short {
            assert_eq!(get(&table, &row, "WAIT_TIME"), signed(-1));
        }

        // Now waiting, on another thread entered into the same session.
        let (started_sender, started) = std::sync::mpsc::channel();
        let (release_sender, release) = std::sync::mpsc::channel::<()>();
        let waiter = {
            let session = session.clone();
            std::thread::spawn(move || {
                let _entered = enter(&session);
                let _wait = wait(WaitEvent::LogFileSync, 12, 34, 0);
                started_sender.send(()).unwrap();
                release.recv().unwrap();
            })
        };
        started.recv().unwrap();
        let table = fixed_table("V$SESSION_WAIT", &context(sid)).unwrap();
        let row = find_row(&table, &[("SID", number(sid.into()))]).unwrap();
        assert_eq!(get(&table, &row, "STATE"), text("WAITING"));
        assert_eq!(get(&table, &row, "EVENT"), text("log file sync"));
        assert_eq!(get(&table, &row, "SEQ#"), number(2));
        assert_eq!(get(&table, &row, "WAIT_TIME"), number(0));
        assert_eq!(get(&table, &row, "P3TEXT"), Value::Null);
        assert_eq!(get(&table, &row, "TIME_SINCE_LAST_WAIT_MICRO"), number(0));
        release_sender.send(()).unwrap();
        waiter.join().unwrap();
    }

    #[test]
    fn event_name_lists_every_event() {
        let table = fixed_table("V$EVENT_NAME", &context(0)).unwrap();
        assert_eq!(table.rows.len(), WaitEvent::COUNT);
        let row = find_row(&table, &[("NAME", text("log file parallel write"))]).unwrap();
        assert_eq!(get(&table, &row, "PARAMETER1"), text("files"));
        assert_eq!(get(&table, &row, "WAIT_CLASS"), text("System I/O"));
    }

    #[test]
    fn microsecond_buckets_fold_into_millisecond_buckets() {
        assert_eq!(millisecond_bucket(1), 1);
        assert_eq!(millisecond_bucket(1024), 1);
        assert_eq!(millisecond_bucket(2048), 2);
        assert_eq!(millisecond_bucket(4096), 4);
        assert_eq!(millisecond_bucket(1 << 32), 1 << 22);
    }

    #[test]
    fn wait_time_format_uses_the_largest_unit_reached() {
        assert_eq!(wait_time_format(1), "1 microsecond");
        assert_eq!(wait_time_format(512), "512 microseconds");
        assert_eq!(wait_time_format(1024), "1 millisecond");
        assert_eq!(wait_time_format(524_288), "524 milliseconds");
        assert_eq!(wait_time_format(1_048_576), "1 second");
        assert_eq!(wait_time_format(1 << 26), "1 minute 7 seconds");
        assert_eq!(wait_time_format(1 << 32), "71 minutes 34 seconds");
    }

    #[test]
    fn wait_time_is_zero_waiting_minus_one_short_else_centiseconds() {
        assert_eq!(wait_time(WaitState::Waiting, 123_456), number(0));
        assert_eq!(wait_time(WaitState::WaitedShortTime, 9_999), signed(-1));
        assert_eq!(wait_time(WaitState::WaitedKnownTime, 10_000), number(1));
        assert_eq!(wait_time(WaitState::WaitedKnownTime, 25_000), number(3));
    }
}
