//! Counter storage shared by the three kinds of accumulator: a session's own, the departed
//! sessions', and the process-wide unattributed one.
//!
//! All three hold the same `Counters`: one `AtomicU64` per statistic, per wait event (count,
//! timeouts, time, maximum, histogram) and per time-model statistic, plus a few microsecond
//! totals behind the centisecond statistics. What differs is how they are written:
//!
//! ```text
//!   Writer::Owner   a session's counters: one thread at a time writes them, so an increment
//!                   is a Relaxed load and a Relaxed store (no lock prefix, no cache-line
//!                   ping-pong); readers on other threads see a recent value.
//!   Writer::Shared  departed and unattributed: any thread may write, so increments are
//!                   fetch_add / fetch_max.
//! ```
//!
//! Invariant: an `Owner` counter is written by at most one thread at a time. A session is
//! entered by one thread at a time (see `session::enter`), so this holds for sessions; breaking
//! it loses increments but is never undefined behaviour, because every cell is atomic.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::events::{WaitClass, WaitEvent, HISTOGRAM_BUCKETS};
use super::stats::Statistic;
use super::time_model::TimeModelStatistic;

/// Microseconds in a centisecond, the unit of Oracle's time statistics.
pub(crate) const MICROS_PER_CENTISECOND: u64 = 10_000;

/// How a set of counters is written. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Writer {
    Owner,
    Shared,
}

impl Writer {
    #[inline]
    pub(crate) fn add(self, cell: &AtomicU64, amount: u64) {
        self.add_returning_previous(cell, amount);
    }

    /// Adds and returns the value before the addition.
    #[inline]
    pub(crate) fn add_returning_previous(self, cell: &AtomicU64, amount: u64) -> u64 {
        match self {
            Writer::Owner => {
                let previous = cell.load(Relaxed);
                cell.store(previous.wrapping_add(amount), Relaxed);
                previous
            }
            Writer::Shared => cell.fetch_add(amount, Relaxed),
        }
    }

    #[inline]
    pub(crate) fn subtract(self, cell: &AtomicU64, amount: u64) {
        match self {
            Writer::Owner => cell.store(cell.load(Relaxed).wrapping_sub(amount), Relaxed),
            Writer::Shared => {
                cell.fetch_sub(amount, Relaxed);
            }
        }
    }

    #[inline]
    pub(crate) fn max(self, cell: &AtomicU64, value: u64) {
        match self {
            Writer::Owner => {
                if value > cell.load(Relaxed) {
                    cell.store(value, Relaxed);
                }
            }
            Writer::Shared => {
                cell.fetch_max(value, Relaxed);
            }
        }
    }
}

/// Per-event wait accounting: v$system_event / v$session_event and the histogram of
/// v$event_histogram_micro.
pub(crate) struct EventCounters {
    pub(crate) total_waits: AtomicU64,
    pub(crate) total_timeouts: AtomicU64,
    pub(crate) time_waited_micro: AtomicU64,
    pub(crate) max_wait_micro: AtomicU64,
    /// `histogram[k]` counts waits that lasted less than 2^k microseconds and at least
    /// 2^(k-1) (bucket 0: under one microsecond; the last bucket also takes anything longer).
    pub(crate) histogram: [AtomicU64; HISTOGRAM_BUCKETS],
}

impl EventCounters {
    pub(crate) const fn new() -> EventCounters {
        EventCounters {
            total_waits: AtomicU64::new(0),
            total_timeouts: AtomicU64::new(0),
            time_waited_micro: AtomicU64::new(0),
            max_wait_micro: AtomicU64::new(0),
            histogram: [const { AtomicU64::new(0) }; HISTOGRAM_BUCKETS],
        }
    }
}

/// All the counters of one accumulator. See the module documentation.
pub(crate) struct Counters {
    pub(crate) statistics: [AtomicU64; Statistic::COUNT],
    pub(crate) events: [EventCounters; WaitEvent::COUNT],
    pub(crate) time_model: [AtomicU64; TimeModelStatistic::COUNT],
    /// CPU of top-level calls, behind `CPU used by this session`.
    pub(crate) call_cpu_micros: AtomicU64,
    /// CPU of recursive (nested) calls, behind `recursive cpu usage`.
    pub(crate) recursive_cpu_micros: AtomicU64,
    /// CPU spent parsing, behind `parse time cpu`.
    pub(crate) parse_cpu_micros: AtomicU64,
    /// Time in non-idle waits, behind `non-idle wait time`.
    pub(crate) non_idle_wait_micros: AtomicU64,
    /// Time per wait class, behind `application wait time`, `concurrency wait time`, ... and
    /// (the Idle class) the idle time a call leaves out of its elapsed time.
    pub(crate) wait_class_micros: [AtomicU64; WaitClass::COUNT],
}

impl Counters {
    pub(crate) const fn new() -> Counters {
        Counters {
            statistics: [const { AtomicU64::new(0) }; Statistic::COUNT],
            events: [const { EventCounters::new() }; WaitEvent::COUNT],
            time_model: [const { AtomicU64::new(0) }; TimeModelStatistic::COUNT],
            call_cpu_micros: AtomicU64::new(0),
            recursive_cpu_micros: AtomicU64::new(0),
            parse_cpu_micros: AtomicU64::new(0),
            non_idle_wait_micros: AtomicU64::new(0),
            wait_class_micros: [const { AtomicU64::new(0) }; WaitClass::COUNT],
        }
    }

    #[inline]
    pub(crate) fn statistic(&self, statistic: Statistic) -> u64 {
        self.statistics[statistic.index()].load(Relaxed)
    }

    #[inline]
    pub(crate) fn add_statistic(&self, writer: Writer, statistic: Statistic, amount: u64) {
        writer.add(&self.statistics[statistic.index()], amount);
    }

    /// Adds `micros` to a cumulative microsecond total and the matching number of whole
    /// centiseconds to `statistic`: the difference of the rounded-down totals, so that short
    /// intervals add up instead of each rounding to zero.
    pub(crate) fn add_micros_and_centiseconds(
        &self,
        writer: Writer,
        micros_total: &AtomicU64,
        micros: u64,
        statistic: Statistic,
    ) {
        let before = writer.add_returning_previous(micros_total, micros);
        let after = before.wrapping_add(micros);
        let centiseconds =
            (after / MICROS_PER_CENTISECOND).wrapping_sub(before / MICROS_PER_CENTISECOND);
        if centiseconds != 0 {
            self.add_statistic(writer, statistic, centiseconds);
        }
    }

    /// Records one completed wait of `event` that lasted `elapsed_micros`.
    pub(crate) fn record_wait(
        &self,
        writer: Writer,
        event: WaitEvent,
        elapsed_micros: u64,
        timed_out: bool,
    ) {
        let counters = &self.events[event.index()];
        writer.add(&counters.total_waits, 1);
        if timed_out {
            writer.add(&counters.total_timeouts, 1);
        }
        writer.add(&counters.time_waited_micro, elapsed_micros);
        writer.max(&counters.max_wait_micro, elapsed_micros);
        writer.add(&counters.histogram[histogram_bucket(elapsed_micros)], 1);

        let class = event.wait_class();
        let class_micros = &self.wait_class_micros[class.index()];
        let class_statistic = match class {
            WaitClass::Application => Some(Statistic::ApplicationWaitTime),
            WaitClass::Concurrency => Some(Statistic::ConcurrencyWaitTime),
            WaitClass::UserIo => Some(Statistic::UserIoWaitTime),
            _ => None,
        };
        match class_statistic {
            Some(statistic) => {
                self.add_micros_and_centiseconds(writer, class_micros, elapsed_micros, statistic)
            }
            None => writer.add(class_micros, elapsed_micros),
        }
        if class == WaitClass::Idle {
            return;
        }
        self.add_statistic(writer, Statistic::NonIdleWaitCount, 1);
        self.add_micros_and_centiseconds(
            writer,
            &self.non_idle_wait_micros,
            elapsed_micros,
            Statistic::NonIdleWaitTime,
        );
    }

    /// Time in idle waits, which the call that contains them leaves out of its elapsed time.
    #[inline]
    pub(crate) fn idle_wait_micros(&self) -> u64 {
        self.wait_class_micros[WaitClass::Idle.index()].load(Relaxed)
    }

    /// Adds every cumulative counter of `self` into `target` (written as `Shared`). Current-value
    /// statistics are left out: they leave the system total with their session.
    pub(crate) fn fold_into(&self, target: &Counters) {
        let shared = Writer::Shared;
        for statistic in Statistic::ALL {
            if !statistic.is_current_value() {
                shared.add(
                    &target.statistics[statistic.index()],
                    self.statistic(statistic),
                );
            }
        }
        for (source, destination) in self.events.iter().zip(target.events.iter()) {
            shared.add(&destination.total_waits, source.total_waits.load(Relaxed));
            shared.add(
                &destination.total_timeouts,
                source.total_timeouts.load(Relaxed),
            );
            shared.add(
                &destination.time_waited_micro,
                source.time_waited_micro.load(Relaxed),
            );
            shared.max(
                &destination.max_wait_micro,
                source.max_wait_micro.load(Relaxed),
            );
            for (from, to) in source.histogram.iter().zip(destination.histogram.iter()) {
                shared.add(to, from.load(Relaxed));
            }
        }
        for (from, to) in self.time_model.iter().zip(target.time_model.iter()) {
            shared.add(to, from.load(Relaxed));
        }
        let totals = [
            (&self.call_cpu_micros, &target.call_cpu_micros),
            (&self.recursive_cpu_micros, &target.recursive_cpu_micros),
            (&self.parse_cpu_micros, &target.parse_cpu_micros),
            (&self.non_idle_wait_micros, &target.non_idle_wait_micros),
        ];
        for (from, to) in totals {
            shared.add(to, from.load(Relaxed));
        }
        for (from, to) in self
            .wait_class_micros
            .iter()
            .zip(target.wait_class_micros.iter())
        {
            shared.add(to, from.load(Relaxed));
        }
    }
}

/// The histogram bucket of a wait that lasted `elapsed_micros`: the smallest k with
/// `elapsed_micros < 2^k`, capped at the last bucket.
///
/// ```text
///   0 µs -> 0    1 µs -> 1    2..3 µs -> 2    4..7 µs -> 3    1024..2047 µs -> 11
/// ```
#[inline]
pub fn histogram_bucket(elapsed_micros: u64) -> usize {
    let bits = (u64::BITS - elapsed_micros.leading_zeros()) as usize;
    bits.min(HISTOGRAM_BUCKETS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_powers_of_two_upper_bounds() {
        assert_eq!(histogram_bucket(0), 0);
        assert_eq!(histogram_bucket(1), 1);
        assert_eq!(histogram_bucket(2), 2);
        assert_eq!(histogram_bucket(3), 2);
        assert_eq!(histogram_bucket(4), 3);
        assert_eq!(histogram_bucket(1023), 10);
        assert_eq!(histogram_bucket(1024), 11);
        assert_eq!(histogram_bucket((1 << 31) - 1), 31);
        assert_eq!(histogram_bucket(1 << 31), 32);
        assert_eq!(histogram_bucket(u64::MAX), 32);
        for micros in [0u64, 1, 5, 100, 65_535, 1 << 20] {
            let bucket = histogram_bucket(micros);
            assert!(micros < 1u64 << bucket);
            assert!(bucket == 0 || micros >= 1u64 << (bucket - 1));
        }
    }

    #[test]
    fn centiseconds_accumulate_across_short_intervals() {
        let counters = Counters::new();
        for _ in 0..25 {
            counters.add_micros_and_centiseconds(
                Writer::Owner,
                &counters.call_cpu_micros,
                1_000,
                Statistic::CpuUsedByThisSession,
            );
        }
        // 25 ms is 2 whole centiseconds, although each 1 ms interval alone rounds to zero.
        assert_eq!(counters.statistic(Statistic::CpuUsedByThisSession), 2);
    }

    #[test]
    fn fold_skips_current_values_and_keeps_maximum() {
        let session = Counters::new();
        let departed = Counters::new();
        session.add_statistic(Writer::Owner, Statistic::LogonsCurrent, 1);
        session.add_statistic(Writer::Owner, Statistic::ConsistentGets, 7);
        session.record_wait(Writer::Owner, WaitEvent::LogFileSync, 300, false);
        departed.record_wait(Writer::Shared, WaitEvent::LogFileSync, 100, true);
        session.fold_into(&departed);
        assert_eq!(departed.statistic(Statistic::LogonsCurrent), 0);
        assert_eq!(departed.statistic(Statistic::ConsistentGets), 7);
        let sync = &departed.events[WaitEvent::LogFileSync.index()];
        assert_eq!(sync.total_waits.load(Relaxed), 2);
        assert_eq!(sync.total_timeouts.load(Relaxed), 1);
        assert_eq!(sync.time_waited_micro.load(Relaxed), 400);
        assert_eq!(sync.max_wait_micro.load(Relaxed), 300);
    }
}
