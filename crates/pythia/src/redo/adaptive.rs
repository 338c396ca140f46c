//! Adaptive log file sync: how a committing session learns that its redo is on disk, and
//! LGWR's choice between the two ways (Oracle 11.2.0.3's `_use_adaptive_log_file_sync`).
//!
//! ```text
//!   post/wait: session --sleeps on the log's condition--> LGWR writes, syncs, posts every
//!              waiter --> the kernel wakes each one: a scheduling delay per waiter ('ack')
//!   polling:   session --sleeps one poll interval, looks at the written LSN, again--> done:
//!              nobody is posted; a session notices up to one interval late
//! ```
//!
//! Post/wait answers at once when wake-ups are cheap. When the machine is busy, a post takes a
//! scheduling delay to reach its session (and LGWR spends its time posting): polling then
//! costs the sessions less, as long as the poll interval is short against the write itself.
//!
//! **What LGWR measures**, over windows of [`WINDOW`] (counters kept by the sessions and by
//! LGWR, read and reset at each evaluation):
//! - syncs: commits that waited, and their 'log file sync' time (the sync rate);
//! - writes: LGWR's writes and their time ('log file parallel write', `rw`);
//! - ack: in post/wait, the delay from LGWR's post to the waiting session running again;
//! - sched: LGWR's own scheduling delay, from a session's post of LGWR to LGWR running.
//!
//! **The rules** (Pythia's; Oracle's are not published, its LGWR trace shows the same inputs):
//! - post/wait to polling, when the window holds at least [`SYNCS_MIN`] syncs and the average
//!   ack exceeds `_adaptive_log_file_sync_use_polling_threshold` percent (200) of what polling
//!   would cost instead, half a poll interval (the interval is the average write time, within
//!   [`POLL_SLEEP_MIN`] and [`POLL_SLEEP_MAX`]).
//! - polling back to post/wait, when what made polling pay has gone: the sync rate fell below
//!   `_adaptive_log_file_sync_use_postwait_threshold` percent (50) of the rate at the switch,
//!   or LGWR's scheduling delay fell below that percent of the delay at the switch.
//! - at most `_adaptive_log_file_sync_high_switch_freq_threshold` (3) switches a minute.
//!
//! Each switch is written to LGWR's trace file, as Oracle's LGWR writes it, and counted in
//! v$sysstat ('redo synch switches to polling' / '... to post/wait', Pythia's names).

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// How often LGWR evaluates the method (it also wakes at least this often).
pub const WINDOW: Duration = Duration::from_secs(3);
/// A window with fewer syncs than this never switches to polling: too little to judge.
pub const SYNCS_MIN: u64 = 100;
/// Poll intervals are the average write time, within these bounds.
pub const POLL_SLEEP_MIN: Duration = Duration::from_micros(20);
pub const POLL_SLEEP_MAX: Duration = Duration::from_millis(10);

/// Oracle's defaults for the thresholds.
pub const USE_POLLING_THRESHOLD_PERCENT: u64 = 200;
pub const USE_POSTWAIT_THRESHOLD_PERCENT: u64 = 50;
pub const HIGH_SWITCH_FREQ_THRESHOLD: u64 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMethod {
    PostWait,
    Polling,
}

/// What one window measured (microseconds and counts).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Window {
    pub seconds: f64,
    pub syncs: u64,
    pub sync_micros: u64,
    pub acks: u64,
    pub ack_micros: u64,
    pub writes: u64,
    pub write_micros: u64,
    pub scheds: u64,
    pub sched_micros: u64,
}

fn average(total: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        total as f64 / count as f64
    }
}

impl Window {
    pub fn sync_rate(&self) -> f64 {
        if self.seconds <= 0.0 {
            0.0
        } else {
            self.syncs as f64 / self.seconds
        }
    }

    pub fn ack_micros(&self) -> f64 {
        average(self.ack_micros, self.acks)
    }

    pub fn write_micros(&self) -> f64 {
        average(self.write_micros, self.writes)
    }

    pub fn sched_micros(&self) -> f64 {
        average(self.sched_micros, self.scheds)
    }

    pub fn sync_micros(&self) -> f64 {
        average(self.sync_micros, self.syncs)
    }

    /// The poll interval for writes like this window's.
    pub fn poll_sleep(&self) -> Duration {
        Duration::from_micros(self.write_micros() as u64).clamp(POLL_SLEEP_MIN, POLL_SLEEP_MAX)
    }
}

/// The method for the next window, given the current one, this window, and the window that
/// made the last switch to polling.
pub fn decide(method: SyncMethod, window: &Window, at_switch: Option<&Window>) -> SyncMethod {
    match method {
        SyncMethod::PostWait => {
            let polling_cost = window.poll_sleep().as_micros() as f64 / 2.0;
            let switch = window.syncs >= SYNCS_MIN
                && window.ack_micros() * 100.0
                    > USE_POLLING_THRESHOLD_PERCENT as f64 * polling_cost;
            if switch {
                SyncMethod::Polling
            } else {
                SyncMethod::PostWait
            }
        }
        SyncMethod::Polling => {
            let Some(at_switch) = at_switch else {
                return SyncMethod::PostWait;
            };
            let below =
                |now: f64, then: f64| now * 100.0 < USE_POSTWAIT_THRESHOLD_PERCENT as f64 * then;
            if below(window.sync_rate(), at_switch.sync_rate())
                || (window.scheds > 0 && below(window.sched_micros(), at_switch.sched_micros()))
            {
                SyncMethod::PostWait
            } else {
                SyncMethod::Polling
            }
        }
    }
}

/// The counters of the current window, the method, and the switch history.
pub struct AdaptiveSync {
    enabled: AtomicBool,
    polling: AtomicBool,
    /// The poll interval in microseconds, set at each evaluation.
    poll_sleep_micros: AtomicU64,
    syncs: AtomicU64,
    sync_micros: AtomicU64,
    acks: AtomicU64,
    ack_micros: AtomicU64,
    writes: AtomicU64,
    write_micros: AtomicU64,
    scheds: AtomicU64,
    sched_micros: AtomicU64,
    /// Nanoseconds since `base` of LGWR's latest post of the waiters, and of the latest post
    /// of LGWR by a session (0: none pending).
    posted_waiters_at: AtomicU64,
    posted_lgwr_at: AtomicU64,
    base: Instant,
    history: Mutex<History>,
    trace_file: Mutex<Option<PathBuf>>,
}

struct History {
    window_start: Instant,
    switches: Vec<Instant>,
    at_switch: Option<Window>,
}

impl Default for AdaptiveSync {
    fn default() -> Self {
        Self::new()
    }
}

impl AdaptiveSync {
    pub fn new() -> AdaptiveSync {
        let now = Instant::now();
        AdaptiveSync {
            enabled: AtomicBool::new(true),
            polling: AtomicBool::new(false),
            poll_sleep_micros: AtomicU64::new(POLL_SLEEP_MIN.as_micros() as u64),
            syncs: AtomicU64::new(0),
            sync_micros: AtomicU64::new(0),
            acks: AtomicU64::new(0),
            ack_micros: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            write_micros: AtomicU64::new(0),
            scheds: AtomicU64::new(0),
            sched_micros: AtomicU64::new(0),
            posted_waiters_at: AtomicU64::new(0),
            posted_lgwr_at: AtomicU64::new(0),
            base: now,
            history: Mutex::new(History {
                window_start: now,
                switches: Vec::new(),
                at_switch: None,
            }),
            trace_file: Mutex::new(None),
        }
    }

    /// `_use_adaptive_log_file_sync`: when false, post/wait always.
    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Relaxed);
        if !enabled {
            self.polling.store(false, Relaxed);
        }
    }

    pub fn set_trace_file(&self, path: PathBuf) {
        *self.trace_file.lock() = Some(path);
    }

    pub fn method(&self) -> SyncMethod {
        if self.polling.load(Relaxed) {
            SyncMethod::Polling
        } else {
            SyncMethod::PostWait
        }
    }

    pub fn poll_sleep(&self) -> Duration {
        Duration::from_micros(self.poll_sleep_micros.load(Relaxed))
    }

    fn nanos(&self) -> u64 {
        (self.base.elapsed().as_nanos() as u64).max(1)
    }

    /// A commit waited `micros` in 'log file sync'.
    pub fn record_sync(&self, micros: u64) {
        self.syncs.fetch_add(1, Relaxed);
        self.sync_micros.fetch_add(micros, Relaxed);
    }

    /// LGWR wrote and synced in `micros`, and is about to post the waiters.
    pub fn record_write(&self, micros: u64) {
        self.writes.fetch_add(1, Relaxed);
        self.write_micros.fetch_add(micros, Relaxed);
        self.posted_waiters_at.store(self.nanos(), Relaxed);
    }

    /// A session posted by LGWR is running again (post/wait).
    pub fn record_woken(&self) {
        let posted = self.posted_waiters_at.load(Relaxed);
        if posted > 0 {
            let micros = self.nanos().saturating_sub(posted) / 1000;
            self.acks.fetch_add(1, Relaxed);
            self.ack_micros.fetch_add(micros, Relaxed);
        }
    }

    /// A session posts LGWR.
    pub fn record_lgwr_posted(&self) {
        let _ = self
            .posted_lgwr_at
            .compare_exchange(0, self.nanos(), Relaxed, Relaxed);
    }

    /// LGWR is running after a post.
    pub fn record_lgwr_woken(&self) {
        let posted = self.posted_lgwr_at.swap(0, Relaxed);
        if posted > 0 {
            let micros = self.nanos().saturating_sub(posted) / 1000;
            self.scheds.fetch_add(1, Relaxed);
            self.sched_micros.fetch_add(micros, Relaxed);
        }
    }

    /// Ends the window if [`WINDOW`] has passed: decides the method for the next one and
    /// returns the switch made, if any (LGWR calls this in its loop).
    pub fn evaluate(&self, now: Instant) -> Option<SyncMethod> {
        let mut history = self.history.lock();
        let seconds = now.saturating_duration_since(history.window_start);
        if seconds < WINDOW {
            return None;
        }
        history.window_start = now;
        let window = Window {
            seconds: seconds.as_secs_f64(),
            syncs: self.syncs.swap(0, Relaxed),
            sync_micros: self.sync_micros.swap(0, Relaxed),
            acks: self.acks.swap(0, Relaxed),
            ack_micros: self.ack_micros.swap(0, Relaxed),
            writes: self.writes.swap(0, Relaxed),
            write_micros: self.write_micros.swap(0, Relaxed),
            scheds: self.scheds.swap(0, Relaxed),
            sched_micros: self.sched_micros.swap(0, Relaxed),
        };
        if window.writes > 0 {
            self.poll_sleep_micros
                .store(window.poll_sleep().as_micros() as u64, Relaxed);
        }
        if !self.enabled.load(Relaxed) {
            return None;
        }
        let method = self.method();
        let next = decide(method, &window, history.at_switch.as_ref());
        if next == method {
            return None;
        }
        let minute_ago = now.checked_sub(Duration::from_secs(60));
        history
            .switches
            .retain(|&at| minute_ago.is_none_or(|minute_ago| at > minute_ago));
        if history.switches.len() as u64 >= HIGH_SWITCH_FREQ_THRESHOLD {
            return None;
        }
        history.switches.push(now);
        history.at_switch = (next == SyncMethod::Polling).then_some(window);
        self.polling.store(next == SyncMethod::Polling, Relaxed);
        self.trace_switch(next, &window);
        Some(next)
    }

    /// Writes the switch to LGWR's trace file, as Oracle's LGWR does (best effort: the trace
    /// is diagnostics).
    fn trace_switch(&self, to: SyncMethod, window: &Window) {
        let Some(path) = self.trace_file.lock().clone() else {
            return;
        };
        let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        else {
            return;
        };
        let stamp = chrono::Local::now().format("%Y-%m-%dT%H:%M:%S%.6f%:z");
        let text = match to {
            SyncMethod::Polling => format!(
                "*** {stamp}\nkcrfw_update_adaptive_sync_mode: post->poll sync#={} sync={:.0} \
                 ack={:.0} rw={:.0} min_sleep={}\nLog file sync switching to polling\n\
                 Current scheduling delay is {:.0} usec\n\
                 Current approximate redo synch write rate is {:.0} per sec\n",
                window.syncs,
                window.sync_micros(),
                window.ack_micros(),
                window.write_micros(),
                window.poll_sleep().as_micros(),
                window.sched_micros(),
                window.sync_rate(),
            ),
            SyncMethod::PostWait => format!(
                "*** {stamp}\nkcrfw_update_adaptive_sync_mode: poll->post curr_sched_delay={:.0} \
                 curr_sync_rate={:.0}\nLog file sync switching to post/wait\n\
                 Current approximate redo synch write rate is {:.0} per sec\n",
                window.sched_micros(),
                window.sync_rate(),
                window.sync_rate(),
            ),
        };
        let _ = file.write_all(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy_window() -> Window {
        // 1,000 commits a second, writes of 400 us, sessions woken 900 us after the post.
        Window {
            seconds: 3.0,
            syncs: 3000,
            sync_micros: 3000 * 1500,
            acks: 3000,
            ack_micros: 3000 * 900,
            writes: 1000,
            write_micros: 1000 * 400,
            scheds: 1000,
            sched_micros: 1000 * 300,
        }
    }

    #[test]
    fn slow_wake_ups_against_the_write_time_switch_to_polling_and_fast_ones_do_not() {
        let busy = busy_window();
        // Half a poll interval is 200 us; 900 us of ack is over 200% of it.
        assert_eq!(
            decide(SyncMethod::PostWait, &busy, None),
            SyncMethod::Polling
        );
        let quick = Window {
            ack_micros: 3000 * 300,
            ..busy
        };
        assert_eq!(
            decide(SyncMethod::PostWait, &quick, None),
            SyncMethod::PostWait
        );
        let few = Window {
            syncs: SYNCS_MIN - 1,
            ..busy
        };
        assert_eq!(
            decide(SyncMethod::PostWait, &few, None),
            SyncMethod::PostWait
        );
    }

    #[test]
    fn polling_returns_to_post_wait_when_the_rate_or_the_scheduling_delay_halves() {
        let busy = busy_window();
        assert_eq!(
            decide(SyncMethod::Polling, &busy, Some(&busy)),
            SyncMethod::Polling
        );
        let quiet = Window {
            syncs: 1000,
            ..busy
        };
        assert_eq!(
            decide(SyncMethod::Polling, &quiet, Some(&busy)),
            SyncMethod::PostWait
        );
        let prompt = Window {
            sched_micros: 1000 * 100,
            ..busy
        };
        assert_eq!(
            decide(SyncMethod::Polling, &prompt, Some(&busy)),
            SyncMethod::PostWait
        );
    }

    /// Through the counters: a busy window switches and traces it; the next switch waits for
    /// the window; disabled, nothing switches; three switches a minute at most.
    #[test]
    fn evaluation_switches_at_most_three_times_a_minute_and_traces_each_switch() {
        let dir = std::env::temp_dir().join(format!("pythia-adaptive-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("lgwr.trc");
        let _ = std::fs::remove_file(&trace);
        let sync = AdaptiveSync::new();
        sync.set_trace_file(trace.clone());
        let start = Instant::now();
        let feed = |sync: &AdaptiveSync, syncs: u64, ack: u64| {
            for _ in 0..syncs {
                sync.record_sync(1500);
                sync.acks.fetch_add(1, Relaxed);
                sync.ack_micros.fetch_add(ack, Relaxed);
            }
            for _ in 0..100 {
                sync.record_write(400);
            }
        };
        feed(&sync, 3000, 900);
        assert_eq!(
            sync.evaluate(start + WINDOW / 2),
            None,
            "the window is not over"
        );
        assert_eq!(sync.evaluate(start + WINDOW), Some(SyncMethod::Polling));
        assert_eq!(sync.method(), SyncMethod::Polling);
        assert_eq!(sync.poll_sleep(), Duration::from_micros(400));
        let text = std::fs::read_to_string(&trace).unwrap();
        assert!(
            text.contains("Log file sync switching to polling"),
            "{text}"
        );
        assert!(text.contains("Current approximate redo synch write rate is 1000 per sec"));
        // A quiet window: back to post/wait (the second switch).
        feed(&sync, 100, 900);
        assert_eq!(
            sync.evaluate(start + 2 * WINDOW),
            Some(SyncMethod::PostWait)
        );
        feed(&sync, 3000, 900);
        assert_eq!(sync.evaluate(start + 3 * WINDOW), Some(SyncMethod::Polling));
        // A fourth switch within the minute is refused.
        feed(&sync, 100, 900);
        assert_eq!(sync.evaluate(start + 4 * WINDOW), None);
        assert_eq!(sync.method(), SyncMethod::Polling);
        // Disabled: post/wait at once, and no switch.
        sync.set_enabled(false);
        assert_eq!(sync.method(), SyncMethod::PostWait);
        feed(&sync, 3000, 900);
        assert_eq!(sync.evaluate(start + 30 * WINDOW), None);
        let text = std::fs::read_to_string(&trace).unwrap();
        assert_eq!(text.matches("Log file sync switching").count(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
