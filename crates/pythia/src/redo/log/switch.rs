//! Log switches: when a group may be reused (the checkpoint past its old sequence, and ARC0
//! done with it when archiving is on), and the waits when it may not yet.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic, WaitEvent};

use super::{add_centiseconds, RedoLog};

impl RedoLog {
    /// What keeps the group of `next_sequence` (starting at `next_start`) from being reused,
    /// if anything: the checkpoint has not passed the end of the sequence it holds, or
    /// (archiving on) ARC0 has not archived that sequence.
    pub(super) fn reuse_blocker(
        &self,
        next_sequence: u64,
        next_start: u64,
    ) -> Option<ReuseBlocker> {
        let groups = self.groups.len() as u64;
        if next_sequence <= groups {
            return None; // the group was never used
        }
        let old_sequence = next_sequence - groups;
        let old_end = next_start - (groups - 1) * self.capacity;
        if self.checkpoint_lsn() < old_end {
            return Some(ReuseBlocker::CheckpointIncomplete { target: old_end });
        }
        if self.archive_required() && self.archived_sequence() < old_sequence {
            return Some(ReuseBlocker::ArchivingNeeded {
                sequence: old_sequence,
            });
        }
        None
    }

    /// An appender's wait before a log switch, until `blocker` may be gone (the caller then
    /// looks again). Counts `redo log space requests` and `redo log space wait time`, and
    /// tells the alert log once per switch and reason, as Oracle's "cannot allocate new log".
    pub(super) fn wait_for_reuse(
        &self,
        blocker: ReuseBlocker,
        next_sequence: u64,
        before_switch_wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        instrumentation::add(Statistic::RedoLogSpaceRequests, 1);
        let archiving = matches!(blocker, ReuseBlocker::ArchivingNeeded { .. });
        let alerted = next_sequence << 1 | u64::from(archiving);
        if self.space_wait_alerted.swap(alerted, Ordering::AcqRel) != alerted {
            self.alert(&format!(
                "Thread 1 cannot allocate new log, sequence {next_sequence}\n{}",
                if archiving {
                    "All online logs needed archiving"
                } else {
                    "Checkpoint not complete"
                }
            ));
        }
        let started = Instant::now();
        let result = match blocker {
            ReuseBlocker::CheckpointIncomplete { target } => {
                let _wait =
                    instrumentation::wait(WaitEvent::LogFileSwitchCheckpointIncomplete, 0, 0, 0);
                self.request_checkpoint(target);
                before_switch_wait(target).and_then(|()| {
                    let everything = self.current_lsn();
                    self.wait_written(everything)?;
                    self.wait_checkpoint(target)
                })
            }
            ReuseBlocker::ArchivingNeeded { sequence } => {
                let _wait = instrumentation::wait(WaitEvent::LogFileSwitchArchivingNeeded, 0, 0, 0);
                self.post_archiver();
                self.wait_archived(sequence)
            }
        };
        add_centiseconds(
            &self.space_wait_micros_total,
            started.elapsed().as_micros() as u64,
            Statistic::RedoLogSpaceWaitTime,
        );
        result
    }

    /// Whether a group must be archived before it is reused (`log_archive_dest` is set).
    pub fn archive_required(&self) -> bool {
        self.archive_required.load(Ordering::Acquire)
    }

    /// Turns archiving on or off. Off releases the sessions waiting for ARC0.
    pub fn set_archive_required(&self, required: bool) {
        self.archive_required.store(required, Ordering::Release);
        self.notify_log_waiters();
    }

    /// Every sequence up to this one is archived (or needs no archiving).
    pub fn archived_sequence(&self) -> u64 {
        self.archived_sequence.load(Ordering::Acquire)
    }

    /// ARC0 archived every sequence up to `sequence`: their groups may be reused.
    pub fn archived_through(&self, sequence: u64) {
        self.archived_sequence.fetch_max(sequence, Ordering::AcqRel);
        self.notify_log_waiters();
    }

    /// At open: what the control file says is archived, before any redo is written.
    pub fn set_archived_sequence(&self, sequence: u64) {
        self.archived_sequence.store(sequence, Ordering::Release);
    }

    pub fn set_archiver_post(&self, post: Arc<dyn Fn() + Send + Sync>) {
        *self.archiver_post.lock() = Some(post);
    }

    pub(super) fn post_archiver(&self) {
        if !self.archive_required() {
            return;
        }
        let post = self.archiver_post.lock().clone();
        if let Some(post) = post {
            post();
        }
    }

    /// Waits until `sequence` is archived, or archiving is turned off.
    fn wait_archived(&self, sequence: u64) -> Result<()> {
        self.wait_until(|| !self.archive_required() || self.archived_sequence() >= sequence)
    }

    /// Waits until `done`, checked whenever the log's waiters are notified (a checkpoint or an
    /// archive completed) and at least every 100 ms; fails if the log failed or shuts down.
    fn wait_until(&self, done: impl Fn() -> bool) -> Result<()> {
        let mut guard = self.written.lock();
        while !done() {
            self.check_failed()?;
            if self.shutdown.load(Ordering::Acquire) {
                return Err(Error::shutdown_in_progress());
            }
            self.written_ready
                .wait_for(&mut guard, Duration::from_millis(100));
        }
        Ok(())
    }

    pub(super) fn request_checkpoint(&self, lsn: u64) {
        if let Some(request) = self.checkpoint_request.lock().as_ref() {
            request(lsn);
        }
    }

    fn wait_checkpoint(&self, lsn: u64) -> Result<()> {
        self.wait_until(|| self.checkpoint_lsn() >= lsn)
    }

    /// Ends the current sequence: the next record starts a new one, and the rest of this
    /// one stays unused (ALTER SYSTEM SWITCH LOGFILE).
    ///
    /// It once moved the stream's next LSN to the end of the sequence instead, an LSN no
    /// write reaches when everything before it is already written (LGWR has nothing to
    /// write): an appender that then had to wait for a checkpoint or for log buffer space
    /// waited for the redo up to it to be written, forever.
    pub fn switch_logfile(&self) -> Result<()> {
        {
            let mut state = self.state.lock();
            if state.next_lsn == state.sequence_start_lsn {
                return Ok(()); // the current sequence is empty: nothing to switch from
            }
            state.switch_requested = true;
        }
        let marker = crate::redo::record::RecordBuilder::new(0, 0).finish();
        let (_, end) = self.append(&marker)?;
        // The switch is complete when the old sequence's tail and the new one's header are
        // on disk: the one wait on 'log file switch completion' (see the module doc).
        let _wait = instrumentation::wait(WaitEvent::LogFileSwitchCompletion, 0, 0, 0);
        self.flush_to(end)
    }
}

/// What keeps a log group from being reused at a switch.
#[derive(Clone, Copy, Debug)]
pub(super) enum ReuseBlocker {
    /// The checkpoint must reach `target`, the end of the sequence the group holds.
    CheckpointIncomplete { target: u64 },
    /// ARC0 must archive `sequence`, the sequence the group holds.
    ArchivingNeeded { sequence: u64 },
}
