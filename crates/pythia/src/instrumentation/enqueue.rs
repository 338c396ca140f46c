//! Enqueues: locks held for as long as an operation takes (a DDL, a sequence refill, a
//! control file update), as opposed to latches, which guard a few instructions.
//!
//! A waiter does not spin: it sleeps in a timed wait on the enqueue's event (`enq: SQ -
//! contention`, `enq: CF - contention`, ...) with Oracle's parameters (p1 = name|mode, p2 =
//! the resource's id). Every get counts `enqueue requests`, every one that must wait
//! `enqueue waits`, every release `enqueue releases`. Only exclusive mode exists today.

use std::ops::{Deref, DerefMut};

use parking_lot::{Mutex, MutexGuard};

use super::{add, enqueue_name_and_mode, wait, Statistic, WaitEvent};

/// Exclusive mode, Oracle's mode 6.
const MODE_EXCLUSIVE: u32 = 6;

/// An enqueue guarding a `T`: lock type (two letters), the event its waiters wait on, and
/// the id of the resource (p2).
pub struct Enqueue<T> {
    lock_type: [u8; 2],
    event: WaitEvent,
    id: u64,
    inner: Mutex<T>,
}

impl<T> Enqueue<T> {
    pub const fn new(lock_type: [u8; 2], event: WaitEvent, id: u64, value: T) -> Enqueue<T> {
        Enqueue {
            lock_type,
            event,
            id,
            inner: Mutex::new(value),
        }
    }

    /// Gets the enqueue in exclusive mode, waiting on its event while another holds it.
    pub fn lock(&self) -> EnqueueGuard<'_, T> {
        add(Statistic::EnqueueRequests, 1);
        let guard = match self.inner.try_lock() {
            Some(guard) => guard,
            None => {
                add(Statistic::EnqueueWaits, 1);
                let p1 = enqueue_name_and_mode(self.lock_type, MODE_EXCLUSIVE);
                let _wait = wait(self.event, p1, self.id, 0);
                self.inner.lock()
            }
        };
        EnqueueGuard { guard }
    }
}

/// Held while the enqueue is; counts `enqueue releases` when dropped.
pub struct EnqueueGuard<'a, T> {
    guard: MutexGuard<'a, T>,
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
        add(Statistic::EnqueueReleases, 1);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType};

    #[test]
    fn a_waiter_is_timed_on_the_enqueue_event_and_counted() {
        let enqueue = Arc::new(Enqueue::new(*b"SQ", WaitEvent::EnqueueSqContention, 42, 0u64));
        let holder = enqueue.lock();
        let waiter = {
            let enqueue = enqueue.clone();
            thread::spawn(move || {
                let session =
                    SessionInstrumentation::new(SessionType::User, "TEST", "enqueue").unwrap();
                let _entered = enter(&session);
                *enqueue.lock() += 1;
                (
                    session.event_totals(WaitEvent::EnqueueSqContention),
                    session.statistic(Statistic::EnqueueWaits),
                    session.statistic(Statistic::EnqueueReleases),
                )
            })
        };
        thread::sleep(Duration::from_millis(30));
        drop(holder);
        let (totals, waits, releases) = waiter.join().unwrap();
        assert_eq!(*enqueue.lock(), 1);
        assert_eq!(totals.total_waits, 1);
        assert!(totals.time_waited_micro > 0);
        assert_eq!((waits, releases), (1, 1));
    }
}
