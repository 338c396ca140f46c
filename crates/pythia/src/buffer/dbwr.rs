//! DBWR: the database writers, and the checkpoints they perform (CKPT's role here too).
//!
//! ```text
//!   db_writer_processes = n:  DBW0 .. DBWn-1, writer i owns the working sets s with s mod n = i
//!   replacement scan meets dirty buffers --> the set's write list --> post its writer
//!   too many dirty buffers (mark_dirty)  --> post every writer
//!   DBW0 also: checkpoints (every set), the incremental checkpoint every 3 seconds
//! ```
//!
//! A writer sleeps until it is posted or 3 seconds pass. Posted, it cleans its working sets:
//! their write lists first (buffers a free-buffer request passed over), then, while more than
//! the dirty target are dirty, their oldest dirty buffers (checkpoint-queue order), in
//! batches. Asked for a checkpoint up to an LSN (a log switch, `ALTER SYSTEM CHECKPOINT`, a
//! clean shutdown), DBW0 writes every buffer first changed at or before it, whatever its set,
//! and then records the checkpoint through the instance's callback (control file, then the
//! redo log's reuse rule). Every 3 seconds DBW0 also advances the incremental checkpoint: the
//! oldest first-change LSN among dirty buffers, or the end of the durable redo when none is
//! dirty, so that recovery reads little redo.

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
    /// Per writer: posted since it last looked.
    posted: Vec<bool>,
    /// Highest checkpoint LSN asked for and not yet done.
    checkpoint_target: Option<u64>,
    /// Highest checkpoint LSN completed.
    completed: u64,
    failure: Option<Error>,
}

pub struct Dbwr {
    cache: Arc<BufferCache>,
    /// `db_writer_processes`.
    writers: usize,
    requests: Mutex<Requests>,
    posted: Condvar,
    completed: Condvar,
    shutdown: AtomicBool,
    record_checkpoint: CheckpointRecorder,
    durable_lsn: DurableLsn,
}

impl Dbwr {
    /// The writers' shared state; `writers` threads must each call `run` with their number.
    pub fn new(
        cache: Arc<BufferCache>,
        writers: usize,
        record_checkpoint: CheckpointRecorder,
        durable_lsn: DurableLsn,
    ) -> Arc<Dbwr> {
        let writers = writers.max(1);
        let dbwr = Arc::new(Dbwr {
            cache: cache.clone(),
            writers,
            requests: Mutex::new(Requests {
                posted: vec![false; writers],
                ..Requests::default()
            }),
            posted: Condvar::new(),
            completed: Condvar::new(),
            shutdown: AtomicBool::new(false),
            record_checkpoint,
            durable_lsn,
        });
        let weak = Arc::downgrade(&dbwr);
        cache.set_dbwr_wakeup(Some(Box::new(move |set: Option<usize>| {
            if let Some(dbwr) = weak.upgrade() {
                dbwr.post(set.map(|set| dbwr.writer_of(set)));
            }
        })));
        dbwr
    }

    pub fn writers(&self) -> usize {
        self.writers
    }

    /// The writer that owns working set `set`.
    fn writer_of(&self, set: usize) -> usize {
        set % self.writers
    }

    /// Wakes a writer (None: all of them) to clean buffers.
    pub fn post(&self, writer: Option<usize>) {
        let mut requests = self.requests.lock();
        match writer {
            Some(writer) => requests.posted[writer] = true,
            None => requests.posted.fill(true),
        }
        self.posted.notify_all();
    }

    /// Asks for a checkpoint up to `lsn` without waiting for it.
    pub fn request_checkpoint(&self, lsn: u64) {
        let mut requests = self.requests.lock();
        if lsn > requests.completed {
            requests.checkpoint_target = Some(requests.checkpoint_target.unwrap_or(0).max(lsn));
            // Every writer waits on this condition variable and only DBW0 takes checkpoints:
            // wake them all, or DBW0 could sleep on while another writer swallowed the wake.
            self.posted.notify_all();
        }
    }

    /// Asks for a checkpoint up to `lsn` and waits on 'checkpoint completed' until it is done,
    /// or a writer's failure (an I/O error, ORA-00471 for a writer gone) ends the wait.
    pub fn checkpoint(&self, lsn: u64) -> Result<()> {
        self.request_checkpoint(lsn);
        let _wait = instrumentation::wait(WaitEvent::CheckpointCompleted, 0, 0, 0);
        let mut requests = self.requests.lock();
        while requests.completed < lsn {
            if let Some(error) = requests.failure.clone() {
                return Err(error);
            }
            if self.shutdown.load(Ordering::Acquire) {
                return Err(Error::shutdown_in_progress());
            }
            self.completed
                .wait_for(&mut requests, Duration::from_millis(100));
        }
        Ok(())
    }

    pub fn shutdown(&self) {
        // From now on a free-buffer request writes for itself.
        self.cache.set_dbwr_wakeup(None);
        self.shutdown.store(true, Ordering::Release);
        let _requests = self.requests.lock();
        self.posted.notify_all();
    }

    /// Writer `writer`'s main loop (DBW0 is writer 0, and alone takes checkpoints), until
    /// `shutdown`. A writer that panics ends as Oracle's would, with ORA-00471 ('DBWR process
    /// terminated with error', `terminated`), rather than leave its waiters waiting.
    /// Returns that error when it ends so, for the instance to end its redo log with.
    pub fn run(&self, writer: usize) -> Result<()> {
        let serving = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.serve(writer)));
        match serving {
            Ok(()) => Ok(()),
            Err(panic) => {
                let error =
                    Error::background_terminated(471, &format!("DBW{writer}"), panic.as_ref());
                self.terminated(error.clone());
                Err(error)
            }
        }
    }

    /// A writer is gone (`error` says which and why): every checkpoint waiting, and every one
    /// asked for from now on, fails with it (nothing completes them any more), and a session
    /// that needs a free buffer writes dirty ones itself, as after `shutdown`. Committed work
    /// is in the redo: the next open recovers it.
    fn terminated(&self, error: Error) {
        self.cache.set_dbwr_wakeup(None);
        let mut requests = self.requests.lock();
        requests.failure = Some(error);
        self.completed.notify_all();
    }

    fn serve(&self, writer: usize) {
        let mut last_incremental = std::time::Instant::now();
        while !self.shutdown.load(Ordering::Acquire) {
            let target = {
                let mut requests = self.requests.lock();
                let waiting = |requests: &Requests| {
                    !requests.posted[writer]
                        && (writer != 0 || requests.checkpoint_target.is_none())
                };
                // Checked under the lock that `shutdown` notifies under: no missed wake-up.
                if waiting(&requests) && !self.shutdown.load(Ordering::Acquire) {
                    let _idle = instrumentation::wait(WaitEvent::RdbmsIpcMessage, 300, 0, 0);
                    self.posted.wait_for(&mut requests, DBWR_TIMEOUT);
                }
                requests.posted[writer] = false;
                if writer == 0 {
                    requests.checkpoint_target.take()
                } else {
                    None
                }
            };
            // A checkpoint first; then, posted or not (a wake-up by timeout drains the write
            // lists too, so that no buffer waits there for a post), the writer's own sets; and
            // for DBW0 the incremental checkpoint every DBWR_TIMEOUT however often it is posted.
            let mut result = match target {
                Some(lsn) => self.do_checkpoint(lsn),
                None => Ok(()),
            };
            if result.is_ok() {
                result = self.clean_ahead(writer);
            }
            if result.is_ok() && writer == 0 && last_incremental.elapsed() >= DBWR_TIMEOUT {
                last_incremental = std::time::Instant::now();
                result = self.incremental_checkpoint();
            }
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

    /// Cleans the working sets this writer owns (`BufferCache::clean_sets`).
    fn clean_ahead(&self, writer: usize) -> Result<()> {
        let owned = |set: usize| self.writer_of(set) == writer;
        self.cache.clean_sets(&owned, CLEAN_BATCH_BUFFERS, true)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::cache::tests::cache_over;
    use crate::buffer::pools::CacheLayout;
    use crate::io::vfs::SimVfs;

    /// A database writer that panicked left every checkpoint waiting for ever (an open that
    /// checkpoints after recovery hung). Its waiters and later checkpoints now get ORA-00471.
    #[test]
    fn a_writer_that_panics_fails_its_checkpoints_instead_of_hanging_them() {
        let vfs = SimVfs::new(3);
        let cache = Arc::new(cache_over(&vfs, &CacheLayout::single(200), 4));
        let dbwr = Dbwr::new(
            cache,
            1,
            Box::new(|lsn| panic!("recording checkpoint {lsn}")),
            Box::new(|| 0),
        );
        let writer = {
            let dbwr = dbwr.clone();
            std::thread::spawn(move || dbwr.run(0).unwrap_err())
        };
        // On a thread of its own, so that a hang fails the test instead of stopping it.
        let (sender, receiver) = std::sync::mpsc::channel();
        {
            let dbwr = dbwr.clone();
            std::thread::spawn(move || sender.send(dbwr.checkpoint(10)));
        }
        let error = receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the checkpoint returned")
            .unwrap_err();
        assert_eq!(error.code(), 471, "{error}");
        assert!(
            error.to_string().contains("recording checkpoint 10"),
            "{error}"
        );
        let ended = writer.join().expect("the writer's panic is caught");
        assert_eq!(
            ended.code(),
            471,
            "what the instance ends its redo log with"
        );
        assert_eq!(dbwr.checkpoint(20).unwrap_err().code(), 471);
    }
}
