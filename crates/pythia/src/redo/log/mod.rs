//! The log buffer, the online redo log files, and LGWR.
//!
//! ```text
//!  sessions --append: a 'redo copy' latch, then the 'redo allocation' latch for the range only,
//!              then the copy in parallel--> log buffer (a ring) --LGWR--> redo01.log
//!                                                                          redo02.log
//!  commit: append commit record, then 'log file sync' until written_lsn >= its end
//!          (posted by LGWR or polling: `redo/adaptive.rs`)
//! ```
//!
//! Positions. Redo is one stream of bytes; an LSN is a position in it. Log file sequence `s`
//! holds the positions `[start(s), start(s) + capacity)`, where capacity is the payload of all
//! its redo blocks. Sequence `s` lives in group `(s - 1) % groups + 1`.
//!
//! Redo file layout: block 0 is the file header; then 512-byte redo blocks, each a 16-byte
//! header and 496 bytes of the stream:
//!
//! ```text
//! file header (block 0)                  redo block header (every other block)
//!   0  8 magic "PYTHRLOG"                  0  4 CRC-32C of bytes 4..512
//!   8  4 CRC-32C of bytes 12..512          4  4 sequence number
//!  12  4 group number                      8  4 block number in the file
//!  16  4 sequence number                  12  4 epoch: opens of the database
//!  20  8 start LSN of the sequence
//!  28  8 log file size in bytes (it fixes the sequence's capacity)
//!  36  8 first time: when the sequence began, seconds since 1970 (0: not recorded)
//!  44 .. archive files only, zero here (see `redo/archive.rs`)
//! ```
//!
//! An archived log (`redo/archive.rs`) is a copy of a log file in this same format: the same
//! header, with a few more fields filled, and the same redo blocks.
//!
//! The epoch guards against stale blocks: after a crash, new redo overwrites the log from
//! the first torn block on, and blocks further along may still hold valid-looking redo of
//! the previous incarnation. Those carry an older epoch, and recovery stops at the first
//! block whose epoch is lower than one it already read. A block whose epoch is higher than
//! the one before it is where a later incarnation began writing, at a record boundary:
//! recovery restarts its record parsing there, so that the head of a record a crash cut short
//! in the block before is never read together with what came after it.
//!
//! Every LGWR write ends on a block boundary: the rest of its last block is padding (counted
//! as `redo wastage`), and the next record starts in a fresh block, so a write never rewrites
//! a block that an earlier write made durable. A record length of 0 in the stream is padding.
//!
//! DBVERIFY (`RedoLog::verify_file`) reads every block of a log file: the run that recovery
//! would read from block 1 of the sequence its header names, the records in it, then each
//! later block as unwritten (zeros), stale (whole, of an older sequence or epoch), unreachable
//! (whole redo of this sequence past a hole: a bug) or damaged (torn or corrupt).
//!
//! Group commit: a write takes everything in the buffer at once; every commit whose record is
//! in that write is durable when it completes. Sessions wait on 'log file sync'; the write's
//! I/O is 'log file parallel write'. A committing session that finds no write in progress
//! writes and syncs the buffer itself instead of posting LGWR and waiting to be posted back
//! (two thread wake-ups saved on an idle log: about 12 us here); when a write is in progress
//! it posts LGWR and waits as in Oracle, so commits arriving during a write share the next
//! one. Oracle's LGWR does every write; this is where Pythia differs.
//!
//! Log switches: when a record does not fit in the current sequence, the stream jumps to the
//! next sequence. A group may be reused only when the checkpoint has passed everything its
//! old sequence held, and (archiving on) when ARC0 has archived that sequence:
//!
//! ```text
//!   sequence s+1 needs group g, which holds s+1-groups ("old"):
//!     checkpoint_lsn < end of old  -> 'log file switch (checkpoint incomplete)': ask DBWR for
//!                                     the checkpoint, make everything before the jump durable,
//!                                     wait for the checkpoint
//!     archiving on and old not     -> 'log file switch (archiving needed)': post ARC0, wait
//!       archived                      until it has archived old (or archiving is turned off)
//!     else                         -> the stream jumps to the start of s+1; DBWR is asked for
//!                                     the log switch checkpoint; ARC0 is posted
//! ```
//!
//! The appender that crosses into a new sequence does not wait for the switch itself: the new
//! sequence's header is written by the next write (LGWR's, or a committing session's) before
//! its first redo block. Only `ALTER SYSTEM SWITCH LOGFILE` waits for a switch to complete, on
//! 'log file switch completion'.
//!
//! The files, by job: `mod.rs` the log's state, opening it and v$log; `buffer.rs` the ring and
//! `append`; `switch.rs` when a group may be reused, and the switch waits; `lgwr.rs` where a
//! commit waits ('log file sync') and LGWR's loop; `write.rs` a write and its sync ('log file
//! parallel write'); `verify.rs` reading blocks back for recovery and DBVERIFY.

mod buffer;
mod lgwr;
mod switch;
mod verify;
mod write;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::instrumentation::{self, Enqueue, Latch, LatchName, Statistic, WaitEvent};
use crate::io::block::{read_u32, read_u64, write_u32, write_u64};
use crate::io::vfs::{Vfs, VfsFile};
use crate::redo::adaptive::AdaptiveSync;

use buffer::{BufferState, Ring};
use write::WriteImage;

pub use verify::{BlockFault, LogFileVerification, SequenceEnd, SequenceRead};

pub const REDO_BLOCK_BYTES: usize = 512;
pub const REDO_BLOCK_HEADER_BYTES: usize = 16;
pub const REDO_PAYLOAD_BYTES: usize = REDO_BLOCK_BYTES - REDO_BLOCK_HEADER_BYTES;
/// Asks DBWR for a checkpoint up to an LSN (a log switch needs one).
type CheckpointRequester = Box<dyn Fn(u64) + Send + Sync>;
/// Appends a message to the alert log (the instance's `alert.log`).
pub type AlertLog = Arc<dyn Fn(&str) + Send + Sync>;
/// Posts ARC0: a sequence may have become archivable, or an appender waits for one.
type ArchiverPost = Arc<dyn Fn() + Send + Sync>;

/// The log buffer's least size (`log_buffer` below it is raised to it).
pub const LOG_BUFFER_BYTES_MIN: usize = 64 * 1024;
/// At most this many 'redo copy' latches (Oracle's `_log_simultaneous_copies`, whose
/// default, twice the CPUs, Pythia takes too).
pub const LOG_SIMULTANEOUS_COPIES_MAX: usize = 64;

/// 'redo copy' latches: twice the CPUs, at least 2, at most [`LOG_SIMULTANEOUS_COPIES_MAX`].
fn log_simultaneous_copies() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    (2 * cpus).clamp(2, LOG_SIMULTANEOUS_COPIES_MAX)
}

/// Adds to a centisecond `statistic` the whole centiseconds that `micros` completes on a
/// running microsecond total: one short write or commit each rounding down to zero would
/// leave the statistic at zero forever.
fn add_centiseconds(total: &AtomicU64, micros: u64, statistic: Statistic) {
    let before = total.fetch_add(micros, Ordering::Relaxed);
    let centiseconds = (before + micros) / 10_000 - before / 10_000;
    if centiseconds > 0 {
        instrumentation::add(statistic, centiseconds);
    }
}

/// A record opens with its length, a u32.
const RECORD_LENGTH_BYTES: usize = 4;

/// Payload bytes from `offset` (within a sequence) to the end of its redo block.
fn block_bytes_left(offset: u64) -> u64 {
    REDO_PAYLOAD_BYTES as u64 - offset % REDO_PAYLOAD_BYTES as u64
}
pub const LOG_FILE_MAGIC: &[u8; 8] = b"PYTHRLOG";
/// LGWR writes at least this often when there is redo to write (Oracle: every 3 seconds).
pub const LGWR_TIMEOUT: Duration = Duration::from_secs(3);
/// LGWR also writes when the buffer holds this much (Oracle: 1 MB).
pub const LGWR_WRITE_THRESHOLD_BYTES: usize = 1 << 20;
/// A log file is formatted (written with zeros) ahead of its redo in steps of this many bytes:
/// see [`RedoLog::write_in_place`].
pub const LOG_FILE_FORMAT_STEP_BYTES: u64 = 1 << 20;

/// One online log group (one member).
pub struct LogGroup {
    pub group: u32,
    pub path: PathBuf,
    pub(super) file: Arc<dyn VfsFile>,
    /// How far the file holds written bytes (redo, or the zeros that format it ahead of its
    /// redo): its length when opened, then it only grows. See [`RedoLog::write_in_place`].
    formatted_bytes: Mutex<u64>,
}

/// A log file's header (block 0), or an archived log's (which fills the archive fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileHeader {
    pub group: u32,
    /// 0: the group never held a sequence (or recovery invalidated it).
    pub sequence: u64,
    pub start_lsn: u64,
    /// The online log file's size, which fixes the sequence's capacity.
    pub file_size: u64,
    /// When the sequence began, seconds since 1970 (0: not recorded).
    pub first_time: u64,
    /// Archives only: the start of the next sequence.
    pub next_lsn: u64,
    /// Archives only: when the next sequence began (0: not recorded).
    pub next_time: u64,
    /// Archives only: when the archive was completed, seconds since 1970.
    pub completion_time: u64,
    /// Archives only: the redo blocks that follow the header.
    pub blocks: u32,
}

impl FileHeader {
    /// The header block: magic, checksum, fields (see the module documentation).
    pub fn encode(&self) -> Vec<u8> {
        let mut header = vec![0u8; REDO_BLOCK_BYTES];
        header[0..8].copy_from_slice(LOG_FILE_MAGIC);
        write_u32(&mut header, 12, self.group);
        write_u32(&mut header, 16, self.sequence as u32);
        write_u64(&mut header, 20, self.start_lsn);
        write_u64(&mut header, 28, self.file_size);
        write_u64(&mut header, 36, self.first_time);
        write_u64(&mut header, 44, self.next_lsn);
        write_u64(&mut header, 52, self.next_time);
        write_u64(&mut header, 60, self.completion_time);
        write_u32(&mut header, 68, self.blocks);
        let checksum = crc32c::crc32c(&header[12..]);
        write_u32(&mut header, 8, checksum);
        header
    }

    /// The header in `block`, or None if it is not a valid header (never written, damaged).
    pub fn decode(block: &[u8]) -> Option<FileHeader> {
        if block.len() < REDO_BLOCK_BYTES
            || &block[0..8] != LOG_FILE_MAGIC
            || read_u32(block, 8) != crc32c::crc32c(&block[12..REDO_BLOCK_BYTES])
        {
            return None;
        }
        Some(FileHeader {
            group: read_u32(block, 12),
            sequence: read_u32(block, 16) as u64,
            start_lsn: read_u64(block, 20),
            file_size: read_u64(block, 28),
            first_time: read_u64(block, 36),
            next_lsn: read_u64(block, 44),
            next_time: read_u64(block, 52),
            completion_time: read_u64(block, 60),
            blocks: read_u32(block, 68),
        })
    }
}

/// Seconds since 1970, for the times headers record.
pub fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// Where the stream stands, as v$log shows it.
#[derive(Clone, Debug)]
pub struct LogStatus {
    pub group: u32,
    pub sequence: u64,
    pub bytes: u64,
    pub status: &'static str,
    /// Archived (only ever true with archiving on).
    pub archived: bool,
    pub first_lsn: u64,
    /// Seconds since 1970 (0: not recorded).
    pub first_time: u64,
    /// The start of the next sequence; None for the current one.
    pub next_lsn: Option<u64>,
    /// When the next sequence began (0: not known).
    pub next_time: u64,
}

pub struct RedoLog {
    groups: Vec<LogGroup>,
    file_size: u64,
    capacity: u64,
    buffer_bytes_max: usize,
    state: Latch<BufferState>,
    ring: Ring,
    /// Buffer positions below this are written and may be allocated again.
    released_position: AtomicU64,
    /// Held by a session from before it allocates until its copy into the buffer is done.
    copy_latches: Vec<Latch<()>>,
    written_lsn: AtomicU64,
    epoch: std::sync::atomic::AtomicU32,
    /// Lowest LSN recovery would need (the checkpoint position), for group reuse.
    checkpoint_lsn: AtomicU64,
    work: Mutex<bool>,
    work_ready: Condvar,
    /// LGWR was posted and has not yet looked: a session that finds it set need not take
    /// `work` to post again (LGWR's next write takes its record).
    lgwr_posted: AtomicBool,
    /// Log state waits other than a write's (checkpoint, archiving) sleep on this with
    /// `written_ready`. Sessions waiting for a write park on `written_lsn` instead
    /// (`park_for_write`).
    written: Mutex<()>,
    /// Held by whoever writes and syncs the buffer (LGWR, or a committing session when no
    /// write is in progress: see `sync_commit`), so that writes happen one at a time and in
    /// LSN order. Waiting for it is 'latch: redo writing' (Oracle's latch that serializes
    /// LGWR's writes); 'LGWR wait for redo copy' is a writer's wait for copies in progress.
    /// It guards the writer's reusable image of the blocks it writes.
    writing: Enqueue<WriteImage>,
    written_ready: Condvar,
    shutdown: AtomicBool,
    failed: Mutex<Option<Error>>,
    /// `failed` holds an error (read where no lock may be taken).
    has_failed: AtomicBool,
    checkpoint_request: Mutex<Option<CheckpointRequester>>,
    /// Running totals behind `redo write time` and `redo synch time` (centiseconds).
    write_micros_total: AtomicU64,
    sync_micros_total: AtomicU64,
    /// Post/wait or polling for committing sessions, and what LGWR measures to choose.
    adaptive: AdaptiveSync,
    /// Tests: every copy into the buffer sleeps first, widening the window a writer must
    /// wait for.
    #[cfg(test)]
    slow_copies: AtomicBool,
    /// Tests: LGWR panics when it next wakes.
    #[cfg(test)]
    panic_in_lgwr: AtomicBool,
    /// Crash tests: every record is written and synced as it is appended
    /// (`set_sync_every_record`).
    sync_every_record: AtomicBool,
    /// Redo blocks, and the zeros that format a file ahead of them, are written with
    /// `VfsFile::write_direct` (`filesystemio_options` DIRECTIO or SETALL).
    direct_writes: AtomicBool,
    /// LGWR's view of which sequence each group holds: the headers written or read.
    group_sequences: Mutex<Vec<FileHeader>>,
    /// Archiving is on (`log_archive_dest` set): a group is reused only once ARC0 has
    /// archived the sequence it holds.
    archive_required: AtomicBool,
    /// Every sequence up to this one is archived, or was skipped while archiving was off
    /// (see `redo/archive.rs`).
    archived_sequence: AtomicU64,
    archiver_post: Mutex<Option<ArchiverPost>>,
    alert: Mutex<Option<AlertLog>>,
    /// Running total behind `redo log space wait time` (centiseconds).
    space_wait_micros_total: AtomicU64,
    /// The log switch wait last told to the alert log (`next sequence << 1 | archiving`), so
    /// that the sessions waiting for one switch report it once.
    space_wait_alerted: AtomicU64,
}

/// Where recovery left the stream: the next record goes here.
#[derive(Clone, Copy, Debug, Default)]
pub struct StreamPosition {
    pub sequence: u64,
    pub sequence_start_lsn: u64,
    pub next_lsn: u64,
}

impl RedoLog {
    pub fn file_names(groups: u32) -> Vec<String> {
        (1..=groups)
            .map(|group| format!("redo{group:02}.log"))
            .collect()
    }

    /// Opens the log groups in `dir` (creating the files when absent).
    pub fn open(
        vfs: &dyn Vfs,
        dir: &std::path::Path,
        group_count: u32,
        file_size: u64,
        buffer_bytes_max: usize,
    ) -> Result<RedoLog> {
        assert!(group_count >= 2, "at least two log groups");
        let blocks = file_size / REDO_BLOCK_BYTES as u64;
        assert!(blocks >= 16, "log files of at least 8 KiB");
        let mut groups = Vec::new();
        for (index, name) in Self::file_names(group_count).into_iter().enumerate() {
            let path = dir.join(name);
            let file = vfs
                .open(&path, true)
                .map_err(|error| Error::io(&path, error))?;
            let length = file.len().map_err(|error| Error::io(&path, error))?;
            groups.push(LogGroup {
                group: index as u32 + 1,
                path,
                file,
                formatted_bytes: Mutex::new(length),
            });
        }
        let capacity = (blocks - 1) * REDO_PAYLOAD_BYTES as u64;
        let buffer_bytes_max = buffer_bytes_max.max(LOG_BUFFER_BYTES_MIN);
        Ok(RedoLog {
            group_sequences: Mutex::new(vec![FileHeader::default(); groups.len()]),
            archive_required: AtomicBool::new(false),
            archived_sequence: AtomicU64::new(0),
            archiver_post: Mutex::new(None),
            alert: Mutex::new(None),
            space_wait_micros_total: AtomicU64::new(0),
            space_wait_alerted: AtomicU64::new(0),
            groups,
            file_size,
            capacity,
            buffer_bytes_max,
            state: Latch::new(
                LatchName::RedoAllocation,
                BufferState {
                    runs: Vec::new(),
                    next_lsn: 0,
                    next_position: 0,
                    sequence: 0,
                    sequence_start_lsn: 0,
                    switch_requested: false,
                },
            ),
            ring: Ring::new(buffer_bytes_max),
            released_position: AtomicU64::new(0),
            copy_latches: (0..log_simultaneous_copies())
                .map(|_| Latch::new(LatchName::RedoCopy, ()))
                .collect(),
            written_lsn: AtomicU64::new(0),
            epoch: std::sync::atomic::AtomicU32::new(1),
            checkpoint_lsn: AtomicU64::new(0),
            work: Mutex::new(false),
            work_ready: Condvar::new(),
            lgwr_posted: AtomicBool::new(false),
            written: Mutex::new(()),
            written_ready: Condvar::new(),
            has_failed: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            writing: Enqueue::with_event(
                WaitEvent::LatchRedoWriting,
                (0, 0, 0),
                WriteImage::default(),
            ),
            failed: Mutex::new(None),
            checkpoint_request: Mutex::new(None),
            write_micros_total: AtomicU64::new(0),
            sync_micros_total: AtomicU64::new(0),
            adaptive: AdaptiveSync::new(),
            #[cfg(test)]
            slow_copies: AtomicBool::new(false),
            #[cfg(test)]
            panic_in_lgwr: AtomicBool::new(false),
            sync_every_record: AtomicBool::new(false),
            direct_writes: AtomicBool::new(false),
        })
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn group_count(&self) -> u32 {
        self.groups.len() as u32
    }

    pub fn group_of(&self, sequence: u64) -> &LogGroup {
        &self.groups[((sequence - 1) % self.groups.len() as u64) as usize]
    }

    pub fn groups(&self) -> &[LogGroup] {
        &self.groups
    }

    /// Sets where new redo goes (after creation or recovery) and the checkpoint position.
    pub fn start_at(
        &self,
        position: StreamPosition,
        checkpoint_lsn: u64,
        epoch: u32,
    ) -> Result<()> {
        self.epoch.store(epoch, Ordering::Release);
        {
            let mut state = self.state.lock();
            state.next_lsn = position.next_lsn;
            state.sequence = position.sequence;
            state.sequence_start_lsn = position.sequence_start_lsn;
        }
        self.written_lsn.store(position.next_lsn, Ordering::Release);
        self.checkpoint_lsn.store(checkpoint_lsn, Ordering::Release);
        // A sequence recovery continues keeps the time it began.
        let held = self.group_sequences.lock()[self.group_of(position.sequence).group as usize - 1];
        let first_time = if (held.sequence, held.start_lsn)
            == (position.sequence, position.sequence_start_lsn)
        {
            held.first_time
        } else {
            now_seconds()
        };
        self.write_file_header(position.sequence, position.sequence_start_lsn, first_time)
    }

    /// Roll forward is starting: the redo it applies is read from disk, so it is durable by
    /// definition, and a block changed by it may be written (the write-ahead rule holds)
    /// before LGWR runs. `start_at` ends this state.
    pub fn begin_recovery(&self) {
        self.written_lsn.store(u64::MAX, Ordering::Release);
    }

    pub fn set_checkpoint_requester(&self, request: Box<dyn Fn(u64) + Send + Sync>) {
        *self.checkpoint_request.lock() = Some(request);
    }

    /// Records a completed checkpoint: recovery now starts at `lsn`.
    pub fn checkpoint_completed(&self, lsn: u64) {
        self.checkpoint_lsn.fetch_max(lsn, Ordering::AcqRel);
        self.notify_log_waiters();
    }

    /// Wakes the sessions waiting on `written_ready` (for a checkpoint, for archiving, or for
    /// a failed log to fail them) to look again at what they wait for.
    fn notify_log_waiters(&self) {
        let _guard = self.written.lock();
        self.written_ready.notify_all();
    }

    pub fn checkpoint_lsn(&self) -> u64 {
        self.checkpoint_lsn.load(Ordering::Acquire)
    }

    pub fn written_lsn(&self) -> u64 {
        self.written_lsn.load(Ordering::Acquire)
    }

    /// The position where the next record will go.
    pub fn current_lsn(&self) -> u64 {
        self.state.lock().next_lsn
    }

    pub fn current_sequence(&self) -> u64 {
        self.state.lock().sequence
    }

    /// The current sequence and the LSN where it starts.
    pub fn current_position(&self) -> (u64, u64) {
        let state = self.state.lock();
        (state.sequence, state.sequence_start_lsn)
    }

    fn check_failed(&self) -> Result<()> {
        match self.failed.lock().as_ref() {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    /// For crash tests (`tests/ddl_crash.rs`): when on, every record is written and synced as
    /// it is appended, before its mini-transaction lets its blocks go, so that a simulated
    /// crash at the n-th sync falls after the n-th change of a statement: between any two of
    /// its mini-transactions, not only where its commit or a full buffer writes the log.
    pub fn set_sync_every_record(&self, on: bool) {
        self.sync_every_record.store(on, Ordering::Relaxed);
    }

    /// Whether redo writes bypass the operating system's cache (`filesystemio_options`): see
    /// `VfsFile::write_direct`, which falls back to cached writes where the file system
    /// refuses.
    pub fn set_direct_writes(&self, on: bool) {
        self.direct_writes.store(on, Ordering::Relaxed);
    }

    pub fn set_alert(&self, alert: AlertLog) {
        *self.alert.lock() = Some(alert);
    }

    /// Writes `message` to the alert log, if the instance gave one.
    pub fn alert(&self, message: &str) {
        let alert = self.alert.lock().clone();
        if let Some(alert) = alert {
            alert(message);
        }
    }

    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// Adaptive log file sync: the method committing sessions use, LGWR's trace file.
    pub fn adaptive(&self) -> &AdaptiveSync {
        &self.adaptive
    }

    /// The sequence holding `lsn` and its start, among the sequences the groups hold now.
    pub fn sequence_of(&self, lsn: u64) -> Option<(u64, u64)> {
        let current = self.current_position();
        if lsn >= current.1 {
            return Some(current);
        }
        self.group_sequences
            .lock()
            .iter()
            .filter(|held| {
                held.sequence > 0 && held.start_lsn <= lsn && lsn <= held.start_lsn + self.capacity
            })
            .max_by_key(|held| held.sequence)
            .map(|held| (held.sequence, held.start_lsn))
    }

    /// Asks LGWR to write everything and stop.
    pub fn shutdown(&self) {
        self.shutdown.store(true, Ordering::Release);
        self.unpark_writes(u64::MAX);
        self.wake_lgwr();
    }

    /// v$log rows: each group's sequence as its header says, except that the current
    /// sequence shows in its group from the switch on (its header is written with its first
    /// redo block).
    pub fn status(&self) -> Vec<LogStatus> {
        let (current, current_start) = self.current_position();
        let checkpoint = self.checkpoint_lsn();
        let archiving = self.archive_required();
        let archived = self.archived_sequence();
        let mut held = self.group_sequences.lock().clone();
        if current > 0 {
            let slot = &mut held[self.group_of(current).group as usize - 1];
            if slot.sequence != current {
                *slot = FileHeader {
                    sequence: current,
                    start_lsn: current_start,
                    ..FileHeader::default()
                };
            }
        }
        let first_time_of = |sequence: u64| {
            held.iter()
                .find(|header| header.sequence == sequence && sequence > 0)
                .map_or(0, |header| header.first_time)
        };
        held.iter()
            .enumerate()
            .map(|(index, header)| {
                let sequence = header.sequence;
                let status = if sequence == 0 {
                    "UNUSED"
                } else if sequence == current {
                    "CURRENT"
                } else if header.start_lsn + self.capacity > checkpoint {
                    "ACTIVE"
                } else {
                    "INACTIVE"
                };
                let switched_out = sequence > 0 && sequence != current;
                LogStatus {
                    group: index as u32 + 1,
                    sequence,
                    bytes: self.file_size,
                    status,
                    archived: archiving && switched_out && sequence <= archived,
                    first_lsn: header.start_lsn,
                    first_time: header.first_time,
                    next_lsn: switched_out.then_some(header.start_lsn + self.capacity),
                    next_time: if switched_out {
                        first_time_of(sequence + 1)
                    } else {
                        0
                    },
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
