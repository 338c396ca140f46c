//! DBWR: the database writer, and the checkpoints it performs (CKPT's role here too).
//!
//! DBWR sleeps until it is posted or 3 seconds pass. Posted because too many buffers are
//! dirty, it writes the oldest dirty buffers (checkpoint-queue order) in batches. Asked for a
//! checkpoint up to an LSN (a log switch, `ALTER SYSTEM CHECKPOINT`, a clean shutdown), it
//! writes every buffer first changed at or before it and then records the checkpoint through
//! the instance's callback (control file, then the redo log's reuse rule). Every 3 seconds it
//! also advances the incremental checkpoint: the oldest first-change LSN among dirty buffers,
//! or the end of the durable redo when none is dirty, so that recovery reads little redo.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::buffer::BufferCache;
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic, WaitEvent};

/// How often DBWR wakes by itself (Oracle: 3 seconds).
pub const DBWR_TIMEOUT: Duration = Duration::from_secs(3);
/// Buffers per write batch when cleaning ahead of free-buffer requests.
const CLEAN_BATCH_BUFFERS: usize = 64;

/// Records a checkpoint: `(lsn)` is the position recovery may start from.
pub type CheckpointRecorder = Box<dyn Fn(u64) -> Result<()> + Send + Sync>;
/// The durable end of redo (an incremental checkpoint never passes it).
pub type DurableLsn = Box<dyn Fn() -> u64 + Send + Sync>;

#[derive(Default)]
struct Requests {
    posted: bool,
    /// Highest checkpoint LSN asked for and not yet done.
    checkpoint_target: Option<u64>,
    /// Highest checkpoint LSN completed.
    completed: u64,
    failure: Option<Error>,
}

pub struct Dbwr {
    cache: Arc<BufferCache>,
    requests: Mutex<Requests>,
    posted: Condvar,
    completed: Condvar,
    shutdown: AtomicBool,
    record_checkpoint: CheckpointRecorder,
    durable_lsn: DurableLsn,
}

impl Dbwr {
    pub fn new(
        cache: Arc<BufferCache>,
        record_checkpoint: CheckpointRecorder,
        durable_lsn: DurableLsn,
    ) -> Arc<Dbwr> {
        let dbwr = Arc::new(Dbwr {
            cache: cache.clone(),
            requests: Mutex::new(Requests::default()),
            posted: Condvar::new(),
            completed: Condvar::new(),
            shutdown: AtomicBool::new(false),
            record_checkpoint,
            durable_lsn,
        });
        let weak = Arc::downgrade(&dbwr);
        cache.set_dbwr_wakeup(Box::new(move || {
            if let Some(dbwr) = weak.upgrade() {
                dbwr.post();
            }
        }));
        dbwr
    }

    /// Wakes DBWR to clean buffers.
    pub fn post(&self) {
        let mut requests = self.requests.lock();
        requests.posted = true;
        self.posted.notify_one();
    }

    /// Asks for a checkpoint up to `lsn` without waiting for it.
    pub fn request_checkpoint(&self, lsn: u64) {
        let mut requests = self.requests.lock();
        if lsn > requests.completed {
            requests.checkpoint_target = Some(requests.checkpoint_target.unwrap_or(0).max(lsn));
            self.posted.notify_one();
        }
    }

    /// Asks for a checkpoint up to `lsn` and waits on 'checkpoint completed' until it is done.
    pub fn checkpoint(&self, lsn: u64) -> Result<()> {
        self.request_checkpoint(lsn);
        let _wait = instrumentation::wait(WaitEvent::CheckpointCompleted, 0, 0, 0);
        let mut requests = self.requests.lock();
        while requests.completed < lsn {
            if let Some(error) = requests.failure.clone() {
                return Err(error);
            }
            if self.shutdown.load(Ordering::Acquire) {
                return Err(Error::new(1089, "immediate shutdown or close in progress"));
            }
            self.completed
                .wait_for(&mut requests, Duration::from_millis(100));
        }
        Ok(())
    }

    pub fn shutdown(&self) {
        self.shutdown.store(true, Ordering::Release);
        let _requests = self.requests.lock();
        self.posted.notify_all();
    }

    /// DBWR's main loop.
    pub fn run(&self) {
        while !self.shutdown.load(Ordering::Acquire) {
            let (posted, target) = {
                let mut requests = self.requests.lock();
                // Checked under the lock that `shutdown` notifies under: no missed wake-up.
                if !requests.posted
                    && requests.checkpoint_target.is_none()
                    && !self.shutdown.load(Ordering::Acquire)
                {
                    let _idle = instrumentation::wait(WaitEvent::RdbmsIpcMessage, 300, 0, 0);
                    self.posted.wait_for(&mut requests, DBWR_TIMEOUT);
                }
                let posted = std::mem::take(&mut requests.posted);
                (posted, requests.checkpoint_target.take())
            };
            let result = match target {
                Some(lsn) => self.do_checkpoint(lsn),
                None if posted => self.clean_ahead(),
                None => self.incremental_checkpoint(),
            };
            if let Err(error) = result {
                let mut requests = self.requests.lock();
                requests.failure = Some(error);
                self.completed.notify_all();
            }
        }
    }

    fn do_checkpoint(&self, lsn: u64) -> Result<()> {
        instrumentation::add(Statistic::DbwrCheckpoints, 1);
        instrumentation::add(Statistic::BackgroundCheckpointsStarted, 1);
        let written = self.cache.write_dirty_up_to(lsn)?;
        instrumentation::add(Statistic::DbwrCheckpointBuffersWritten, written as u64);
        // Every buffer first changed at or before `lsn` is on disk now (see write_frames):
        // recovery may start there.
        let position = lsn;
        (self.record_checkpoint)(position)?;
        instrumentation::add(Statistic::BackgroundCheckpointsCompleted, 1);
        let mut requests = self.requests.lock();
        requests.completed = requests.completed.max(position);
        self.completed.notify_all();
        Ok(())
    }

    fn clean_ahead(&self) -> Result<()> {
        let frames = self.cache.dirty_frames(u64::MAX, CLEAN_BATCH_BUFFERS);
        self.cache.write_frames(&frames)?;
        Ok(())
    }

    fn incremental_checkpoint(&self) -> Result<()> {
        let durable = (self.durable_lsn)();
        let position = self
            .cache
            .oldest_dirty_lsn()
            .map_or(durable, |oldest| oldest.min(durable));
        let completed = self.requests.lock().completed;
        if position > completed {
            (self.record_checkpoint)(position)?;
            let mut requests = self.requests.lock();
            requests.completed = requests.completed.max(position);
            self.completed.notify_all();
        }
        Ok(())
    }
}
