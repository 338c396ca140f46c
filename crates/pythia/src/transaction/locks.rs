//! Row locks: a writer that meets another active transaction's row waits on that transaction
//! ('enq: TX - row lock contention'), after looking for a deadlock (ORA-00060).

use std::time::Duration;

use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic, WaitEvent};

use super::{TransactionManager, TransactionStatus};

impl TransactionManager {
    /// Waits until `holder` ends, as transaction `waiter` ('enq: TX - row lock contention').
    /// ORA-00060 when the wait would close a cycle.
    pub fn wait_for(&self, waiter: u64, holder: u64) -> Result<()> {
        self.wait_for_at_most(waiter, holder, None)
    }

    /// `wait_for`, for at most `timeout` (None: as long as it takes): then ORA-30006, as
    /// `SELECT ... FOR UPDATE WAIT n` has it.
    pub fn wait_for_at_most(
        &self,
        waiter: u64,
        holder: u64,
        timeout: Option<Duration>,
    ) -> Result<()> {
        let deadline = timeout.map(|timeout| std::time::Instant::now() + timeout);
        let entry = match self.shard(holder).lock().get(&holder).cloned() {
            Some(entry) => entry,
            None => return Ok(()),
        };
        {
            let mut waits = self.waits_for.lock();
            let mut current = holder;
            let mut steps = 0;
            while let Some(&next) = waits.get(&current) {
                if next == waiter || steps > 10_000 {
                    instrumentation::add(Statistic::EnqueueDeadlocks, 1);
                    return Err(Error::deadlock());
                }
                current = next;
                steps += 1;
            }
            if holder == waiter {
                return Err(Error::deadlock());
            }
            waits.insert(waiter, holder);
        }
        instrumentation::add(Statistic::EnqueueRequests, 1);
        instrumentation::add(Statistic::EnqueueWaits, 1);
        let waited = {
            let _wait = instrumentation::wait(
                WaitEvent::EnqueueTxRowLockContention,
                0x5458_0006,
                holder >> 16,
                holder & 0xFFFF,
            );
            let mut status = entry.status.lock();
            let mut waited = Ok(());
            while *status == TransactionStatus::Active && waited.is_ok() {
                if deadline.is_some_and(|deadline| std::time::Instant::now() >= deadline) {
                    waited = Err(Error::new(
                        30006,
                        "resource busy; acquire with WAIT timeout expired",
                    ));
                    break;
                }
                entry
                    .finished
                    .wait_for(&mut status, Duration::from_millis(100));
                // A cancel or the statement's time limit ends the wait (the statement
                // fails; the holder goes on).
                waited = instrumentation::interrupt::check_waiting();
            }
            waited
        };
        self.waits_for.lock().remove(&waiter);
        waited
    }
}
