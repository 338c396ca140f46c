//! Where a commit waits and LGWR writes: 'log file sync' (`sync_commit`, `commit_redo`),
//! a committing session's own write when none is in progress, and LGWR's loop (`run_lgwr`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::instrumentation::{self, EnqueueGuard, Statistic, WaitEvent};
use crate::redo::adaptive::SyncMethod;

use super::write::WriteImage;
use super::{add_centiseconds, RedoLog, LGWR_TIMEOUT};

impl RedoLog {
    pub(super) fn wake_lgwr(&self) {
        self.adaptive.record_lgwr_posted();
        // Posted already, and LGWR has not yet taken the post: its coming write takes every
        // record appended before this (its `swap(false)` below synchronizes with this one).
        if self.lgwr_posted.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut work = self.work.lock();
        *work = true;
        self.work_ready.notify_one();
    }

    /// The key sessions park on while they wait for a write: the address of `written_lsn`.
    fn write_key(&self) -> usize {
        &self.written_lsn as *const AtomicU64 as usize
    }

    /// Sleeps until a write covers `lsn`, the log fails or shuts down, or `deadline`; may
    /// return early (callers loop). No lock is shared by the waiters: each parks with its LSN
    /// as its token, and the writer wakes those its write covered (`unpark_writes`). With a
    /// mutex and a condition variable instead, the woken sessions handed the mutex to one
    /// another, a wake-up each: at 32 committing sessions a third of their CPU time went to
    /// that mutex.
    pub(super) fn park_for_write(&self, lsn: u64, deadline: Instant) {
        let validate = || {
            self.written_lsn() < lsn
                && !self.has_failed.load(Ordering::Acquire)
                && !self.shutdown.load(Ordering::Acquire)
        };
        // SAFETY: the key is this log's own address, parked on only by these two functions;
        // `validate` takes no lock and parks nothing, and the callbacks do nothing.
        unsafe {
            parking_lot_core::park(
                self.write_key(),
                validate,
                || {},
                |_, _| {},
                parking_lot_core::ParkToken(lsn as usize),
                Some(deadline),
            );
        }
    }

    /// Wakes the sessions parked for a write up to `written` (every one, for `u64::MAX`).
    /// Called after `written_lsn` is raised: a session that parks later sees the new value
    /// in `park_for_write`'s check, made under the same bucket lock.
    pub(super) fn unpark_writes(&self, written: u64) {
        use parking_lot_core::{FilterOp, DEFAULT_UNPARK_TOKEN};
        let covered = |token: parking_lot_core::ParkToken| {
            if token.0 as u64 <= written {
                FilterOp::Unpark
            } else {
                FilterOp::Skip
            }
        };
        // SAFETY: as in `park_for_write`; the filter and callback take no lock.
        unsafe {
            parking_lot_core::unpark_filter(self.write_key(), covered, |_| DEFAULT_UNPARK_TOKEN);
        }
    }

    /// Waits until redo up to `lsn` is on disk ('log file sync' is timed by the caller).
    pub fn flush_to(&self, lsn: u64) -> Result<()> {
        if self.written_lsn() >= lsn {
            return Ok(());
        }
        self.wait_written(lsn)
    }

    /// Waits until the record that starts at `lsn`, and everything before it, is on disk:
    /// the write-ahead rule for a block, whose LSN is where the record of its last change
    /// starts. `flush_to(lsn)` is not that: a write ends padded to a redo block boundary and
    /// the next record starts exactly there, so a block changed by that record carries the
    /// LSN `written_lsn` already has, before a byte of its record is written. Any byte of a
    /// record on disk means all of it is: a write takes every record allocated before it,
    /// whole, and a record never spans two sequences.
    pub fn flush_record(&self, lsn: u64) -> Result<()> {
        self.flush_to(lsn.saturating_add(1))
    }

    pub(super) fn wait_written(&self, lsn: u64) -> Result<()> {
        self.wake_lgwr();
        while self.written_lsn() < lsn {
            self.check_failed()?;
            if self.shutdown.load(Ordering::Acquire) {
                // LGWR drains before it stops: give it a moment, then give up.
                let deadline = Instant::now() + Duration::from_millis(10);
                while self.written_lsn() < lsn && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if self.written_lsn() < lsn {
                    return Err(Error::shutdown_in_progress());
                }
                return Ok(());
            }
            self.park_for_write(lsn, Instant::now() + Duration::from_millis(50));
        }
        Ok(())
    }

    /// A commit: waits on 'log file sync' until the commit record at `end_lsn` is durable.
    ///
    /// When no write is in progress, the committing session writes the log buffer itself
    /// (every record in it, not only its own) rather than post LGWR and sleep until LGWR
    /// posts back. That differs from Oracle, where LGWR does every write; it saves two thread
    /// wake-ups on the path of a lone commit, each a scheduling delay that grows with the
    /// load on the machine. The session records the write as LGWR would ('log file parallel
    /// write' nested in its 'log file sync', `redo writes`, `redo blocks written`), and its
    /// 'log file sync' is timed as before. When a write is in progress (LGWR's, or another
    /// session's), the session posts LGWR and waits: LGWR's next write takes every record that
    /// arrived meanwhile, which keeps group commit.
    pub fn sync_commit(&self, end_lsn: u64) -> Result<()> {
        instrumentation::add(Statistic::RedoSynchWrites, 1);
        let started = Instant::now();
        let result = {
            let _wait = instrumentation::wait(WaitEvent::LogFileSync, 0, end_lsn, 0);
            self.write_or_wait(end_lsn)
        };
        let micros = started.elapsed().as_micros() as u64;
        self.adaptive.record_sync(micros);
        instrumentation::add(Statistic::RedoSynchTimeUsec, micros);
        add_centiseconds(&self.sync_micros_total, micros, Statistic::RedoSynchTime);
        result
    }

    /// A commit under `COMMIT WRITE` options (`transaction::commit`), its record ending at
    /// `end_lsn`. WAIT IMMEDIATE is `sync_commit`. NOWAIT returns at once, having posted LGWR
    /// if IMMEDIATE. WAIT BATCH starts no write: it waits on 'log file sync' for LGWR to write
    /// the record at one of its own triggers (another commit's write, a third of the buffer,
    /// `LGWR_TIMEOUT`); should LGWR not have written it a timeout later, or should the log fail
    /// or shut down, it waits as a WAIT IMMEDIATE commit would (`flush_to`, which posts LGWR).
    pub fn commit_redo(&self, end_lsn: u64, wait: bool, immediate: bool) -> Result<()> {
        match (wait, immediate) {
            (true, true) => self.sync_commit(end_lsn),
            (false, true) => {
                self.wake_lgwr();
                Ok(())
            }
            (false, false) => Ok(()),
            (true, false) => {
                let _wait = instrumentation::wait(WaitEvent::LogFileSync, 0, end_lsn, 0);
                let deadline = Instant::now() + LGWR_TIMEOUT;
                while self.written_lsn() < end_lsn
                    && self.check_failed().is_ok()
                    && !self.shutdown.load(Ordering::Acquire)
                    && Instant::now() < deadline
                {
                    self.park_for_write(end_lsn, deadline);
                }
                self.flush_to(end_lsn)
            }
        }
    }

    /// Makes redo up to `lsn` durable: writes it in this thread if no write is in progress,
    /// else waits for LGWR (see `sync_commit`).
    fn write_or_wait(&self, lsn: u64) -> Result<()> {
        if self.written_lsn() >= lsn {
            return Ok(());
        }
        if let Some(mut writing) = self.writing.try_lock() {
            // Every earlier write has completed, and the record up to `lsn` is in the buffer:
            // this write takes it.
            self.write_buffered(&mut writing)?;
        }
        self.wait_synced(lsn)
    }

    /// A commit's wait for LGWR's write up to `lsn`: posted by LGWR, or polling, whichever
    /// the adaptive log file sync chose (`redo/adaptive.rs`).
    fn wait_synced(&self, lsn: u64) -> Result<()> {
        if self.written_lsn() >= lsn {
            return Ok(());
        }
        if self.adaptive.method() == SyncMethod::PostWait {
            let result = self.wait_written(lsn);
            self.adaptive.record_woken();
            return result;
        }
        self.wake_lgwr();
        instrumentation::add(Statistic::RedoSynchPollWrites, 1);
        while self.written_lsn() < lsn {
            self.check_failed()?;
            if self.shutdown.load(Ordering::Acquire) {
                // LGWR drains before it stops: the post/wait path knows how to wait for that.
                return self.wait_written(lsn);
            }
            std::thread::sleep(self.adaptive.poll_sleep());
            instrumentation::add(Statistic::RedoSynchPolls, 1);
        }
        Ok(())
    }

    /// LGWR's main loop. Returns when `shutdown` was called and everything is written. An
    /// LGWR that panics ends the log as a failed write does, with ORA-00470 ('LGWR process
    /// terminated with error'): every commit waiting, and every later one, fails, rather
    /// than wait for a writer that is gone.
    pub fn run_lgwr(&self) {
        let serving = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.serve_lgwr()));
        if let Err(panic) = serving {
            self.terminate(Error::background_terminated(470, "LGWR", panic.as_ref()));
        }
    }

    /// A background process is gone (`error` says which: LGWR, a database writer, ARC0):
    /// the log ends with its error, as after a failed write, and the alert log says so. No
    /// change can be made after it, nor waited for: a commit would wait for LGWR, a log
    /// switch for DBWR's checkpoint or ARC0's archive.
    pub fn terminate(&self, error: Error) {
        self.alert(&format!(
            "Terminating the redo log due to error {}: {error}",
            error.code()
        ));
        self.fail(error);
    }

    fn serve_lgwr(&self) {
        loop {
            {
                let mut work = self.work.lock();
                if !*work && !self.shutdown.load(Ordering::Acquire) {
                    let _idle = instrumentation::wait(WaitEvent::RdbmsIpcMessage, 300, 0, 0);
                    self.work_ready.wait_for(&mut work, LGWR_TIMEOUT);
                }
                *work = false;
            }
            #[cfg(test)]
            if self.panic_in_lgwr.load(Ordering::Relaxed) {
                panic!("LGWR test panic");
            }
            // Taken: a session that appends from now on posts again. A swap, so that it
            // synchronizes with the posts it saw (their records are in the coming write).
            self.lgwr_posted.swap(false, Ordering::AcqRel);
            self.adaptive.record_lgwr_woken();
            let stopping = self.shutdown.load(Ordering::Acquire);
            if self.write_once().is_err() {
                return; // the failure is recorded: every later append and wait fails
            }
            match self.adaptive.evaluate(Instant::now()) {
                Some(SyncMethod::Polling) => {
                    instrumentation::add(Statistic::RedoSynchSwitchesToPolling, 1)
                }
                Some(SyncMethod::PostWait) => {
                    instrumentation::add(Statistic::RedoSynchSwitchesToPostWait, 1)
                }
                None => {}
            }
            if stopping && self.state.lock().runs.is_empty() {
                return;
            }
        }
    }

    /// Writes and syncs everything buffered, once no other write is in progress.
    pub(super) fn write_once(&self) -> Result<()> {
        let mut writing = self.writing.lock();
        self.write_buffered(&mut writing)
    }

    /// Writes and syncs everything buffered, then posts the sessions waiting for it; the
    /// caller holds `writing` (its guard is the argument). A failed write is final: it is
    /// recorded, the waiters are posted to see it, and nothing is written after it (after a
    /// failed sync nothing is known of what reached the disk; see `io::vfs`).
    fn write_buffered(&self, writing: &mut EnqueueGuard<'_, WriteImage>) -> Result<()> {
        self.check_failed()?;
        let result = self.write_and_sync(writing);
        if let Err(error) = &result {
            self.fail(error.clone());
        }
        result
    }

    /// Ends the log with `error`, for good: the sessions waiting are posted to see it, and
    /// every later append and wait fails with it.
    pub(super) fn fail(&self, error: Error) {
        *self.failed.lock() = Some(error);
        self.has_failed.store(true, Ordering::Release);
        self.unpark_writes(u64::MAX);
        self.notify_log_waiters();
    }
}
