//! Helpers the lab's SQL experiments share: a seeded generator, progress bars, deltas of the
//! instance's statistics and wait events between two snapshots.

use std::collections::HashMap;
use std::time::Duration;

use comfy_table::Table;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pythia::instrumentation;

/// xorshift64*: tiny, seeded, repeatable.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..bound` (bound > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress(length: u64, message: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg:28} [{bar:40}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The statistics the lab reports, in the order it prints them.
pub const KEY_STATISTICS: &[&str] = &[
    "user commits",
    "user rollbacks",
    "execute count",
    "parse count (total)",
    "session logical reads",
    "consistent gets",
    "db block gets",
    "physical reads",
    "physical writes",
    "redo size",
    "redo writes",
];

/// System statistics and wait events at one moment.
pub struct Snapshot {
    statistics: HashMap<&'static str, u64>,
    /// event name -> (total waits, time waited in microseconds, idle)
    events: HashMap<&'static str, (u64, u64, bool)>,
}

impl Snapshot {
    pub fn take() -> Snapshot {
        let statistics = instrumentation::system_statistics()
            .into_iter()
            .map(|row| (row.statistic.name(), row.value))
            .collect();
        let events = instrumentation::system_events()
            .into_iter()
            .map(|row| {
                (
                    row.event.name(),
                    (row.total_waits, row.time_waited_micro, row.event.is_idle()),
                )
            })
            .collect();
        Snapshot { statistics, events }
    }

    /// The change of a statistic since `before`.
    pub fn statistic_delta(&self, before: &Snapshot, name: &str) -> u64 {
        let now = self.statistics.get(name).copied().unwrap_or(0);
        let then = before.statistics.get(name).copied().unwrap_or(0);
        now.saturating_sub(then)
    }

    /// The change of an event's (total waits, time waited in microseconds) since `before`.
    pub fn event_delta(&self, before: &Snapshot, name: &str) -> (u64, u64) {
        let (waits, time, _) = self.events.get(name).copied().unwrap_or((0, 0, false));
        let (waits_before, time_before, _) =
            before.events.get(name).copied().unwrap_or((0, 0, false));
        (
            waits.saturating_sub(waits_before),
            time.saturating_sub(time_before),
        )
    }

    /// The table of key statistics' deltas, with per-operation rates when `operations` is
    /// given.
    pub fn statistics_table(&self, before: &Snapshot, operations: Option<u64>) -> Table {
        let mut table = Table::new();
        if operations.is_some() {
            table.set_header(vec!["statistic", "delta", "per operation"]);
        } else {
            table.set_header(vec!["statistic", "delta"]);
        }
        for name in KEY_STATISTICS {
            if !self.statistics.contains_key(name) {
                continue;
            }
            let delta = self.statistic_delta(before, name);
            let mut row = vec![name.to_string(), delta.to_string()];
            if let Some(operations) = operations {
                row.push(format!("{:.2}", delta as f64 / operations.max(1) as f64));
            }
            table.add_row(row);
        }
        table
    }

    /// The non-idle wait events by time waited since `before`, at most `limit` of them.
    pub fn events_table(&self, before: &Snapshot, limit: usize) -> Table {
        let mut table = Table::new();
        table.set_header(vec!["wait event", "waits", "time waited ms", "avg wait us"]);
        for (name, waits, time) in self.top_events(before, limit) {
            table.add_row(vec![
                name.to_string(),
                waits.to_string(),
                format!("{:.1}", time as f64 / 1000.0),
                format!("{:.0}", time as f64 / waits.max(1) as f64),
            ]);
        }
        table
    }

    /// The non-idle wait events that were waited on since `before`, most time first, at most
    /// `limit` of them: (event, waits, microseconds).
    pub fn top_events(&self, before: &Snapshot, limit: usize) -> Vec<(&'static str, u64, u64)> {
        let mut rows: Vec<(&'static str, u64, u64)> = self
            .events
            .iter()
            .filter(|(_, (_, _, idle))| !idle)
            .map(|(name, (waits, time, _))| {
                let (waits_before, time_before, _) =
                    before.events.get(name).copied().unwrap_or((0, 0, false));
                (
                    *name,
                    waits.saturating_sub(waits_before),
                    time.saturating_sub(time_before),
                )
            })
            .filter(|(_, waits, _)| *waits > 0)
            .collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
        rows.truncate(limit);
        rows
    }
}

/// A system time-model statistic (v$sys_time_model, microseconds) now, by name; 0 if absent.
pub fn time_model_micros(name: &str) -> u64 {
    instrumentation::system_time_model()
        .into_iter()
        .find(|row| row.statistic.name() == name)
        .map_or(0, |row| row.value)
}

/// A NUMBER (or NULL) result as an i128; panics loudly on anything else.
pub fn integer(value: &pythia::Value) -> i128 {
    match value {
        pythia::Value::Null => 0,
        other => other
            .to_string()
            .parse::<i128>()
            .unwrap_or_else(|_| panic!("expected an integer, got {other:?}")),
    }
}

/// A numeric result as an f64, or None for NULL and anything that is not a number.
pub fn number(value: &pythia::Value) -> Option<f64> {
    match value {
        pythia::Value::Null => None,
        other => other.to_string().trim().parse::<f64>().ok(),
    }
}

/// The rows of a query, or None when it fails (a view this build does not have yet: the
/// experiments print "n/a" then).
pub fn query_rows(session: &mut pythia::Session, sql: &str) -> Option<Vec<Vec<pythia::Value>>> {
    session.execute(sql).ok().map(|result| result.rows)
}

/// The sum of column `column` over the rows of `sql`, or None when the query fails.
pub fn query_sum(session: &mut pythia::Session, sql: &str, column: usize) -> Option<f64> {
    let rows = query_rows(session, sql)?;
    Some(
        rows.iter()
            .filter_map(|row| row.get(column).and_then(number))
            .fold(0.0, |total, value| total + value),
    )
}

/// Gets, sleeps and wait time (microseconds) of one latch family, as v$latch shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatchCounts {
    pub gets: f64,
    pub sleeps: f64,
    pub wait_time: f64,
}

/// Every latch family's counters from v$latch, or None when the query fails.
pub fn latch_sample(session: &mut pythia::Session) -> Option<HashMap<String, LatchCounts>> {
    let rows = query_rows(session, "SELECT name, gets, sleeps, wait_time FROM v$latch")?;
    Some(
        rows.iter()
            .filter(|row| row.len() >= 4)
            .map(|row| {
                (
                    row[0].to_string(),
                    LatchCounts {
                        gets: number(&row[1]).unwrap_or(0.0),
                        sleeps: number(&row[2]).unwrap_or(0.0),
                        wait_time: number(&row[3]).unwrap_or(0.0),
                    },
                )
            })
            .collect(),
    )
}

/// The change of one latch's counters between two samples.
pub fn latch_delta(
    before: &HashMap<String, LatchCounts>,
    after: &HashMap<String, LatchCounts>,
    name: &str,
) -> LatchCounts {
    let now = after.get(name).copied().unwrap_or_default();
    let then = before.get(name).copied().unwrap_or_default();
    LatchCounts {
        gets: now.gets - then.gets,
        sleeps: now.sleeps - then.sleeps,
        wait_time: now.wait_time - then.wait_time,
    }
}

/// The latches that slept between two samples, most sleeps first, at most `limit`.
pub fn latches_that_slept(
    before: &HashMap<String, LatchCounts>,
    after: &HashMap<String, LatchCounts>,
    limit: usize,
) -> Vec<(String, LatchCounts)> {
    let mut rows: Vec<(String, LatchCounts)> = after
        .keys()
        .map(|name| (name.clone(), latch_delta(before, after, name)))
        .filter(|(_, counts)| counts.sleeps > 0.0)
        .collect();
    rows.sort_by(|a, b| b.1.sleeps.total_cmp(&a.1.sleeps).then(a.0.cmp(&b.0)));
    rows.truncate(limit);
    rows
}

/// The median of some runs' figures (the mean of the middle two of an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    }
}

pub fn lab_error(message: impl Into<String>) -> pythia::Error {
    pythia::Error::new(900, message)
}

/// Runs `sessions` lab sessions, each on its own thread (`work(number)`), and hands each one's
/// result to `add` in session order. The first error sets `stop` (which the sessions poll, so
/// the others end early) and is returned once every session has ended.
pub fn run_sessions<T: Send>(
    sessions: usize,
    stop: &std::sync::atomic::AtomicBool,
    work: impl Fn(usize) -> pythia::Result<T> + Sync,
    mut add: impl FnMut(T),
) -> pythia::Result<()> {
    std::thread::scope(|scope| {
        let work = &work;
        let workers: Vec<_> = (0..sessions)
            .map(|number| scope.spawn(move || work(number)))
            .collect();
        let mut first_error = None;
        for worker in workers {
            let outcome = worker.join().unwrap_or_else(|panic| {
                // Stop the others before the panic goes on: the scope waits for them.
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                std::panic::resume_unwind(panic)
            });
            match outcome {
                Ok(result) => add(result),
                Err(error) => {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    first_error.get_or_insert(error);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(gets: f64, sleeps: f64, wait_time: f64) -> LatchCounts {
        LatchCounts {
            gets,
            sleeps,
            wait_time,
        }
    }

    #[test]
    fn latch_deltas_keep_the_latches_that_slept_most_first() {
        let before = HashMap::from([
            ("shared pool".to_string(), counts(100.0, 2.0, 50.0)),
            ("library cache".to_string(), counts(10.0, 0.0, 0.0)),
        ]);
        let after = HashMap::from([
            ("shared pool".to_string(), counts(300.0, 5.0, 80.0)),
            ("library cache".to_string(), counts(40.0, 0.0, 0.0)),
            ("redo copy".to_string(), counts(7.0, 4.0, 9.0)),
        ]);
        assert_eq!(
            latch_delta(&before, &after, "shared pool"),
            counts(200.0, 3.0, 30.0)
        );
        // A latch first seen after the run counts from zero; one that never slept is left out.
        let slept = latches_that_slept(&before, &after, 5);
        let names: Vec<&str> = slept.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["redo copy", "shared pool"]);
        assert_eq!(latches_that_slept(&before, &after, 1).len(), 1);
    }

    #[test]
    fn numbers_read_from_values_and_nothing_else() {
        assert_eq!(number(&pythia::Value::integer(42)), Some(42.0));
        assert_eq!(number(&pythia::Value::text("0.5")), Some(0.5));
        assert_eq!(number(&pythia::Value::text("HOT")), None);
        assert_eq!(number(&pythia::Value::Null), None);
    }
}
