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
        let mut rows: Vec<(&str, u64, u64)> = self
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
        let mut table = Table::new();
        table.set_header(vec!["wait event", "waits", "time waited ms", "avg wait us"]);
        for (name, waits, time) in rows.into_iter().take(limit) {
            table.add_row(vec![
                name.to_string(),
                waits.to_string(),
                format!("{:.1}", time as f64 / 1000.0),
                format!("{:.0}", time as f64 / waits.max(1) as f64),
            ]);
        }
        table
    }
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

pub fn lab_error(message: impl Into<String>) -> pythia::Error {
    pythia::Error::new(900, message)
}
