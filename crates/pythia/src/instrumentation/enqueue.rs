//! Enqueues: locks held for as long as an operation takes (a DDL, a sequence refill, a
//! control file update), as opposed to latches, which guard a few instructions.
//!
//! A waiter does not spin: it sleeps in a timed wait on the lock's event with Oracle's
//! parameters: `enq: SQ - contention` (p1 = name|mode, p2 = the sequence's object id),
//! `enq: CF - contention`, or `library cache lock` for DDL, which Oracle serializes with
//! library cache locks rather than an enqueue. For events named `enq: ...` every get counts
//! `enqueue requests`, every one that must wait `enqueue waits`, every release `enqueue
//! releases`. Only exclusive mode exists today.

use std::ops::{Deref, DerefMut};

use parking_lot::{Mutex, MutexGuard};

use super::{add, enqueue_name_and_mode, wait, Statistic, WaitEvent};

/// Exclusive mode, Oracle's mode 6.
const MODE_EXCLUSIVE: u32 = 6;

/// A lock guarding a `T`, its waiters timed on `event` with parameters `p1`..`p3`.
pub struct Enqueue<T> {
    event: WaitEvent,
    parameters: (u64, u64, u64),
    counted: bool,
    inner: Mutex<T>,
}

impl<T> Enqueue<T> {
    /// An enqueue of Oracle lock type `lock_type` (two letters, e.g. `SQ`) on resource `id`,
    /// its waiters on `event`.
    pub const fn new(lock_type: [u8; 2], event: WaitEvent, id: u64, value: T) -> Enqueue<T> {
        let p1 = enqueue_name_and_mode(lock_type, MODE_EXCLUSIVE);
        Enqueue::with_event(event, (p1, id, 0), value)
    }

    /// A lock whose waiters wait on `event` with the given parameters.
    pub const fn with_event(event: WaitEvent, parameters: (u64, u64, u64), value: T) -> Enqueue<T> {
        let name = event.name().as_bytes();
        let counted = name.len() > 4 && name[0] == b'e' && name[1] == b'n' && name[2] == b'q';
        Enqueue {
            event,
            parameters,
            counted,
            inner: Mutex::new(value),
        }
    }

    /// Gets the lock in exclusive mode, waiting on its event while another holds it.
    pub fn lock(&self) -> EnqueueGuard<'_, T> {
        self.count(Statistic::EnqueueRequests);
        let guard = match self.inner.try_lock() {
            Some(guard) => guard,
            None => {
                self.count(Statistic::EnqueueWaits);
                let (p1, p2, p3) = self.parameters;
                let _wait = wait(self.event, p1, p2, p3);
                self.inner.lock()
            }
        };
        EnqueueGuard {
            guard,
            counted: self.counted,
        }
    }

    /// Gets the lock if it is free, without waiting.
    pub fn try_lock(&self) -> Option<EnqueueGuard<'_, T>> {
        self.count(Statistic::EnqueueRequests);
        self.inner.try_lock().map(|guard| EnqueueGuard {
            guard,
            counted: self.counted,
        })
    }

    fn count(&self, statistic: Statistic) {
        if self.counted {
            add(statistic, 1);
        }
    }
}

impl<T> std::fmt::Debug for Enqueue<T> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Enqueue")
            .field("event", &self.event.name())
            .field("parameters", &self.parameters)
            .finish()
    }
}

/// Held while the lock is; counts `enqueue releases` when dropped.
pub struct EnqueueGuard<'a, T> {
    guard: MutexGuard<'a, T>,
    counted: bool,
}

impl<T> Deref for EnqueueGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for EnqueueGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for EnqueueGuard<'_, T> {
    fn drop(&mut self) {
        if self.counted {
            add(Statistic::EnqueueReleases, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType};

    #[test]
    fn a_waiter_is_timed_on_the_enqueue_event_and_counted() {
        let enqueue = Arc::new(Enqueue::new(
            *b"SQ",
            WaitEvent::EnqueueSqContention,
            42,
            0u64,
        ));
        let holder = enqueue.lock();
        let session = SessionInstrumentation::new(SessionType::User, "TEST", "enqueue").unwrap();
        let waiter = {
            let enqueue = enqueue.clone();
            let session = session.clone();
            thread::spawn(move || {
                let _entered = enter(&session);
                *enqueue.lock() += 1;
                (
                    session.event_totals(WaitEvent::EnqueueSqContention),
                    session.statistic(Statistic::EnqueueWaits),
                    session.statistic(Statistic::EnqueueReleases),
                )
            })
        };
        // Release only once the waiter is seen waiting on the enqueue, so that it must wait:
        // a fixed sleep let a waiter scheduled late find the lock free (bounded, 30 s).
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let current = session.record().current_wait.read();
            if current.waiting && current.event == Some(WaitEvent::EnqueueSqContention) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the waiter never waited on the enqueue"
            );
            thread::sleep(Duration::from_millis(1));
        }
        drop(holder);
        let (totals, waits, releases) = waiter.join().unwrap();
        assert_eq!(*enqueue.lock(), 1);
        assert_eq!(totals.total_waits, 1);
        assert!(totals.time_waited_micro > 0);
        assert_eq!((waits, releases), (1, 1));
    }
}
