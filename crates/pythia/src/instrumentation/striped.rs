//! Counters that sessions on every CPU add to at once, striped by CPU: a statistic such as
//! v$librarycache's SQL AREA pins is counted at every execution of every session, and one
//! atomic word for it was a cache line every CPU wrote. Each CPU adds to its own stripe (its
//! own cache lines); a reader sums the stripes. The CPU is the one the thread runs on when
//! it counts (`sched_getcpu`, a few nanoseconds through the kernel's per-thread data), so a
//! thread moved between CPUs only changes which stripe it adds to.
//!
//! The same CPU index shards other structures written by every statement (the registry of
//! running snapshots, `transaction`).

use std::sync::atomic::{AtomicU64, Ordering};

/// At most this many stripes (or shards), one per CPU below it.
pub const STRIPES_MAX: usize = 64;

/// The number of stripes for this machine: its CPUs, at least 1, at most `STRIPES_MAX`.
pub fn stripe_count() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |cpus| cpus.get())
        .clamp(1, STRIPES_MAX)
}

/// The stripe among `count` for the CPU the calling thread runs on (a per-thread one where
/// the platform cannot tell the CPU).
#[inline]
pub fn current_stripe(count: usize) -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; returns -1 on failure.
        let cpu = unsafe { libc::sched_getcpu() };
        if cpu >= 0 {
            return cpu as usize % count;
        }
    }
    thread_local! {
        static THREAD_STRIPE: usize = {
            static NEXT: AtomicU64 = AtomicU64::new(0);
            NEXT.fetch_add(1, Ordering::Relaxed) as usize
        };
    }
    THREAD_STRIPE.with(|stripe| *stripe % count)
}

/// One stripe, alone on its cache lines (128 bytes: adjacent-line prefetchers pair lines).
#[repr(align(128))]
#[derive(Default)]
struct Stripe(AtomicU64);

/// A counter added to by many CPUs and read rarely (a view).
pub struct StripedCounter {
    stripes: Box<[Stripe]>,
}

impl Default for StripedCounter {
    fn default() -> StripedCounter {
        StripedCounter::new()
    }
}

impl StripedCounter {
    pub fn new() -> StripedCounter {
        StripedCounter {
            stripes: (0..stripe_count()).map(|_| Stripe::default()).collect(),
        }
    }

    #[inline]
    pub fn add(&self, amount: u64) {
        self.stripes[current_stripe(self.stripes.len())]
            .0
            .fetch_add(amount, Ordering::Relaxed);
    }

    /// The sum of the stripes: every add that happened before the call, and perhaps some
    /// made during it.
    pub fn load(&self) -> u64 {
        self.stripes
            .iter()
            .map(|stripe| stripe.0.load(Ordering::Relaxed))
            .fold(0, u64::wrapping_add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_from_many_threads_sum_exactly() {
        let counter = StripedCounter::new();
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..10_000 {
                        counter.add(1);
                    }
                    counter.add(5);
                });
            }
        });
        assert_eq!(counter.load(), 8 * 10_005);
    }

    #[test]
    fn stripes_are_within_bounds_and_on_their_own_lines() {
        assert!((1..=STRIPES_MAX).contains(&stripe_count()));
        for count in [1, 2, 3, 64] {
            assert!(current_stripe(count) < count);
        }
        assert_eq!(std::mem::align_of::<Stripe>(), 128);
    }
}
