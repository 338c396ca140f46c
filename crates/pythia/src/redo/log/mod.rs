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

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::instrumentation::{
    self, Enqueue, EnqueueGuard, Latch, LatchGuard, LatchName, Statistic, WaitEvent,
};
use crate::io::block::{read_u32, read_u64, write_u32, write_u64};
use crate::io::vfs::{AlignedBuffer, Vfs, VfsFile, Written};
use crate::redo::adaptive::{AdaptiveSync, SyncMethod};
use crate::redo::record::RECORD_HEADER_BYTES;

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

/// Why reading a sequence's redo blocks stopped at a block (`RedoLog::check_block`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockFault {
    /// All zeros: never written. The end of the redo written.
    Unwritten,
    /// A valid block of an earlier sequence this group held: the group's current use
    /// ends before it. The end of the redo written.
    EarlierSequence(u64),
    /// A valid block of this sequence, from an earlier incarnation (a lower epoch than the
    /// blocks before it): left past the point where redo restarted after a crash. The end
    /// of the redo written.
    EarlierEpoch { found: u32, before: u32 },
    /// The checksum does not match: a torn write, or a corrupt block.
    ChecksumMismatch,
    /// A valid checksum on a block that says it is another block of the file: corrupt.
    WrongBlockNumber(u64),
    /// A valid checksum on a block of a later sequence than the file's header: corrupt.
    LaterSequence(u64),
}

impl BlockFault {
    /// A torn or corrupt block, as opposed to the ordinary end of what was written.
    pub fn is_damage(self) -> bool {
        matches!(
            self,
            BlockFault::ChecksumMismatch
                | BlockFault::WrongBlockNumber(_)
                | BlockFault::LaterSequence(_)
        )
    }
}

/// Where and why reading a sequence stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceEnd {
    pub sequence: u64,
    /// The first block not read (1 is the first redo block of the file).
    pub block: u64,
    /// None: every block up to the end of the file was read.
    pub fault: Option<BlockFault>,
}

impl std::fmt::Display for SequenceEnd {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (sequence, block) = (self.sequence, self.block);
        match self.fault {
            None => write!(
                formatter,
                "end of redo: sequence {sequence} is full (block {} is its last)",
                block - 1
            ),
            Some(BlockFault::Unwritten) => write!(
                formatter,
                "end of redo: block {block} of sequence {sequence} was never written"
            ),
            Some(BlockFault::EarlierSequence(found)) => write!(
                formatter,
                "end of redo: block {block} of sequence {sequence} still holds sequence {found}, \
                 the group's earlier use"
            ),
            Some(BlockFault::EarlierEpoch { found, before }) => write!(
                formatter,
                "end of redo: block {block} of sequence {sequence} is from an earlier \
                 incarnation (epoch {found} after epoch {before})"
            ),
            Some(BlockFault::ChecksumMismatch) => write!(
                formatter,
                "torn or corrupt redo block: sequence {sequence} block {block} fails its checksum"
            ),
            Some(BlockFault::WrongBlockNumber(found)) => write!(
                formatter,
                "corrupt redo block: sequence {sequence} block {block} says it is block {found}"
            ),
            Some(BlockFault::LaterSequence(found)) => write!(
                formatter,
                "corrupt redo block: sequence {sequence} block {block} says it is of sequence \
                 {found}"
            ),
        }
    }
}

/// A sequence's redo read back for recovery (`RedoLog::read_sequence`).
#[derive(Clone, Debug)]
pub struct SequenceRead {
    /// The LSN where each segment starts, and its payload bytes: a new segment starts
    /// wherever a block's epoch is higher than the one before it.
    pub segments: Vec<(u64, Vec<u8>)>,
    pub end: SequenceEnd,
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

/// A run of the stream in the log buffer: the LSNs `[start_lsn, start_lsn + bytes)` of one
/// sequence, stored at the buffer positions `[position, position + bytes)`. A new run starts
/// wherever the stream jumps: at a log switch, and after each write's padding.
struct Run {
    sequence: u64,
    sequence_start_lsn: u64,
    start_lsn: u64,
    position: u64,
    bytes: u64,
}

impl Run {
    fn end_lsn(&self) -> u64 {
        self.start_lsn + self.bytes
    }
}

/// The writer's image of the redo blocks it writes, built where a direct write takes it
/// without a copy, and kept from one write to the next: a commit's write then allocates and
/// zeroes nothing. It grows to the largest write so far, which is bounded by the log buffer
/// (a write takes at most what the buffer holds).
#[derive(Default)]
struct WriteImage {
    buffer: Option<AlignedBuffer>,
}

impl WriteImage {
    /// `count` whole redo blocks of the image, their bytes left from an earlier write.
    fn blocks(&mut self, count: usize) -> std::io::Result<&mut [u8]> {
        let bytes = count * REDO_BLOCK_BYTES;
        if self
            .buffer
            .as_ref()
            .is_none_or(|buffer| buffer.len() < bytes)
        {
            self.buffer = Some(AlignedBuffer::zeroed(bytes)?);
        }
        let buffer = self.buffer.as_mut().expect("allocated above");
        Ok(&mut buffer[..bytes])
    }
}

struct BufferState {
    /// What is allocated and not yet taken by a write, oldest first.
    runs: Vec<Run>,
    next_lsn: u64,
    /// The buffer position of the next byte allocated: it only grows, and the byte at
    /// position p lives at `p % size` of the ring.
    next_position: u64,
    sequence: u64,
    sequence_start_lsn: u64,
    /// `ALTER SYSTEM SWITCH LOGFILE`: the next record starts the next sequence.
    switch_requested: bool,
}

/// The log buffer's bytes: a ring that sessions copy their records into in parallel, each into
/// the range the 'redo allocation' latch gave it, and that a writer reads once every copy into
/// the range it writes has finished.
///
/// Ownership of a range, which is what makes the unsynchronized accesses sound:
/// 1. A range is allocated to one session under the allocation latch, while that session
///    holds a 'redo copy' latch; only that session writes it, before releasing the copy latch.
/// 2. A writer takes ranges under the allocation latch, then takes and releases every copy
///    latch: each copy into its ranges has then finished (and happens before its reads).
/// 3. A range is allocated again only after the write that took it has read it: the writer
///    raises `released` (Release) after its reads, and the allocator reads it (Acquire).
struct Ring {
    bytes: Box<[std::cell::UnsafeCell<u8>]>,
}

// SAFETY: concurrent accesses are to disjoint ranges, ordered by the latches (see `Ring`).
unsafe impl Sync for Ring {}

impl Ring {
    fn new(size: usize) -> Ring {
        Ring {
            bytes: (0..size).map(|_| std::cell::UnsafeCell::new(0)).collect(),
        }
    }

    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The two slices of ring offsets that `length` bytes from `position` occupy.
    fn spans(&self, position: u64, length: usize) -> [(usize, usize); 2] {
        let start = (position % self.size()) as usize;
        let first = length.min(self.bytes.len() - start);
        [(start, first), (0, length - first)]
    }

    /// Copies `data` to `position`.
    ///
    /// SAFETY: the caller owns `[position, position + data.len())` (see `Ring`), which is at
    /// most the ring's size.
    unsafe fn write(&self, position: u64, data: &[u8]) {
        let base = std::cell::UnsafeCell::raw_get(self.bytes.as_ptr());
        let mut done = 0;
        for (offset, length) in self.spans(position, data.len()) {
            std::ptr::copy_nonoverlapping(data[done..].as_ptr(), base.add(offset), length);
            done += length;
        }
    }

    /// Copies the bytes at `position` into `out`.
    ///
    /// SAFETY: every copy into `[position, position + out.len())` has finished and nothing
    /// writes it until the caller releases it (see `Ring`).
    unsafe fn read(&self, position: u64, out: &mut [u8]) {
        let base = std::cell::UnsafeCell::raw_get(self.bytes.as_ptr()).cast_const();
        let mut done = 0;
        for (offset, length) in self.spans(position, out.len()) {
            std::ptr::copy_nonoverlapping(base.add(offset), out[done..].as_mut_ptr(), length);
            done += length;
        }
    }
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

/// What keeps a log group from being reused at a switch.
#[derive(Clone, Copy, Debug)]
enum ReuseBlocker {
    /// The checkpoint must reach `target`, the end of the sequence the group holds.
    CheckpointIncomplete { target: u64 },
    /// ARC0 must archive `sequence`, the sequence the group holds.
    ArchivingNeeded { sequence: u64 },
}

/// What DBVERIFY (`instance/dbverify.rs`) found in one online log file. The file's blocks
/// are read in order from block 1: first the run that recovery would read of the sequence its
/// header names (`valid`), then every block after it, each in exactly one class.
#[derive(Clone, Debug, Default)]
pub struct LogFileVerification {
    pub group: u32,
    pub path: PathBuf,
    /// The sequence the file header names; None when the header is not valid (a group never
    /// used, or invalidated by recovery because it held a sequence past the end of the stream).
    pub sequence: Option<u64>,
    /// Redo blocks in the file (the header block not counted).
    pub blocks: u64,
    /// Blocks from block 1 on as recovery reads them: each passes its CRC-32C, names the
    /// header's sequence and its own block number, and has an epoch no lower than the block
    /// before it.
    pub valid: u64,
    /// Whole records in the valid blocks (each passed its own length and checksum checks).
    pub records: u64,
    /// Bytes at the end of one incarnation's run of valid blocks that hold no whole record:
    /// the head of a record whose tail a crash kept from disk. Recovery skips them.
    pub cut_bytes: u64,
    /// After the valid blocks: all zeros (never written, or formatted ahead of the redo).
    pub unwritten: u64,
    /// After the valid blocks: a good checksum and its own block number, of an older
    /// sequence (an earlier use of the file) or of this sequence with an older epoch (an
    /// incarnation that crashed, whose tail the next one did not overwrite), or any such block
    /// when the header is not valid. Recovery never reads them.
    pub stale: u64,
    /// After the valid blocks: a good checksum and its own block number, of this sequence
    /// (or a later one) with an epoch no lower than the last valid block's: redo past a hole,
    /// which recovery would not reach. Block numbers.
    pub unreachable: Vec<u64>,
    /// After the valid blocks: neither zeros nor a good checksum naming its own block number
    /// (torn or corrupt). Block numbers.
    pub damaged: Vec<u64>,
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

    /// Copies a record into the log buffer. Returns (start LSN, end LSN).
    pub fn append(&self, record: &[u8]) -> Result<(u64, u64)> {
        self.append_with(record, &mut |_| Ok(()))
    }

    /// `append`, calling `before_switch_wait(target)` (with no latch of the log held) each
    /// time it must wait for a checkpoint up to `target` before a log group can be reused:
    /// a caller that holds blocks makes them stop holding that checkpoint back first.
    pub fn append_with(
        &self,
        record: &[u8],
        before_switch_wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<(u64, u64)> {
        let length = record.len() as u64;
        if length > self.capacity || length > self.buffer_bytes_max as u64 {
            return Err(Error::internal(format!(
                "redo record of {length} bytes exceeds the log buffer or a log file"
            )));
        }
        loop {
            self.check_failed()?;
            // The copy latch first: a writer that takes this record's range waits for it.
            let copying = self.copy_latch();
            let mut state = self.state.lock();
            // A record never starts in the last bytes of a redo block, where its length word
            // would straddle the boundary: the reader could not tell it from padding.
            let left_in_block = block_bytes_left(state.next_lsn - state.sequence_start_lsn);
            let mut padding = if left_in_block < RECORD_LENGTH_BYTES as u64 {
                left_in_block
            } else {
                0
            };
            let sequence_end = state.sequence_start_lsn + self.capacity;
            let switching =
                state.switch_requested || state.next_lsn + padding + length > sequence_end;
            if switching {
                padding = 0; // the record starts the next sequence, on a block boundary
            }
            let released = self.released_position.load(Ordering::Acquire);
            if state.next_position + padding + length - released > self.buffer_bytes_max as u64 {
                drop(state);
                drop(copying);
                instrumentation::add(Statistic::RedoBufferAllocationRetries, 1);
                let _wait = instrumentation::wait(WaitEvent::LogBufferSpace, 0, 0, 0);
                let target = self.current_lsn();
                self.wait_written(target)?;
                continue;
            }
            if switching {
                // The record does not fit: the stream jumps to the next sequence, if its group
                // may be reused.
                let next_sequence = state.sequence + 1;
                if let Some(blocker) = self.reuse_blocker(next_sequence, sequence_end) {
                    drop(state);
                    drop(copying);
                    self.wait_for_reuse(blocker, next_sequence, before_switch_wait)?;
                    continue;
                }
                state.sequence = next_sequence;
                state.sequence_start_lsn = sequence_end;
                state.switch_requested = false;
                state.next_lsn = sequence_end;
                // The log switch checkpoint: everything before the new sequence may go to disk.
                self.request_checkpoint(sequence_end);
            }
            let run_start = state.next_lsn;
            let position = state.next_position;
            let bytes = padding + length;
            let sequence = state.sequence;
            match state.runs.last_mut() {
                Some(run) if run.sequence == sequence && run.end_lsn() == run_start => {
                    run.bytes += bytes;
                }
                _ => {
                    let sequence_start_lsn = state.sequence_start_lsn;
                    state.runs.push(Run {
                        sequence,
                        sequence_start_lsn,
                        start_lsn: run_start,
                        position,
                        bytes,
                    })
                }
            }
            state.next_lsn += bytes;
            state.next_position += bytes;
            let buffered = state.next_position - released;
            drop(state);
            #[cfg(test)]
            if self.slow_copies.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_micros(300));
            }
            // SAFETY: `[position, position + bytes)` was allocated to this session above, and
            // it holds its copy latch until the copy is done (see `Ring`).
            unsafe {
                self.ring
                    .write(position, &[0u8; RECORD_LENGTH_BYTES][..padding as usize]);
                self.ring.write(position + padding, record);
            }
            drop(copying);
            if switching {
                self.post_archiver();
            }
            if padding > 0 {
                instrumentation::add(Statistic::RedoWastage, padding);
            }
            instrumentation::add(Statistic::RedoEntries, 1);
            instrumentation::add(Statistic::RedoSize, length);
            if buffered >= (self.buffer_bytes_max as u64 / 3).min(LGWR_WRITE_THRESHOLD_BYTES as u64)
            {
                self.wake_lgwr();
            }
            let start = run_start + padding;
            if self.sync_every_record.load(Ordering::Relaxed) {
                self.flush_to(start + length)?;
            }
            return Ok((start, start + length));
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

    /// One of the 'redo copy' latches: the first free one from this thread's own, else (all
    /// busy) a wait for its own.
    fn copy_latch(&self) -> LatchGuard<'_, ()> {
        thread_local! {
            static HOME: usize = {
                static NEXT: AtomicUsize = AtomicUsize::new(0);
                NEXT.fetch_add(1, Ordering::Relaxed)
            };
        }
        let count = self.copy_latches.len();
        let home = HOME.with(|home| *home) % count;
        (0..count)
            .find_map(|offset| self.copy_latches[(home + offset) % count].try_lock())
            .unwrap_or_else(|| self.copy_latches[home].lock())
    }

    /// Waits until every copy into the buffer that had allocated its range by now is done
    /// (a writer, after taking its runs).
    fn wait_for_copies(&self) {
        for latch in &self.copy_latches {
            if latch.try_lock().is_none() {
                let _wait = instrumentation::wait(WaitEvent::LgwrWaitForRedoCopy, 0, 0, 0);
                drop(latch.lock());
            }
        }
    }

    /// What keeps the group of `next_sequence` (starting at `next_start`) from being reused,
    /// if anything: the checkpoint has not passed the end of the sequence it holds, or
    /// (archiving on) ARC0 has not archived that sequence.
    fn reuse_blocker(&self, next_sequence: u64, next_start: u64) -> Option<ReuseBlocker> {
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
    fn wait_for_reuse(
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

    fn post_archiver(&self) {
        if !self.archive_required() {
            return;
        }
        let post = self.archiver_post.lock().clone();
        if let Some(post) = post {
            post();
        }
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

    /// Waits until `sequence` is archived, or archiving is turned off.
    fn wait_archived(&self, sequence: u64) -> Result<()> {
        let mut guard = self.written.lock();
        while self.archive_required() && self.archived_sequence() < sequence {
            self.check_failed()?;
            if self.shutdown.load(Ordering::Acquire) {
                return Err(Error::new(1089, "immediate shutdown or close in progress"));
            }
            self.written_ready
                .wait_for(&mut guard, Duration::from_millis(100));
        }
        Ok(())
    }

    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    fn request_checkpoint(&self, lsn: u64) {
        if let Some(request) = self.checkpoint_request.lock().as_ref() {
            request(lsn);
        }
    }

    fn wait_checkpoint(&self, lsn: u64) -> Result<()> {
        let mut guard = self.written.lock();
        while self.checkpoint_lsn() < lsn {
            self.check_failed()?;
            if self.shutdown.load(Ordering::Acquire) {
                return Err(Error::new(1089, "immediate shutdown or close in progress"));
            }
            self.written_ready
                .wait_for(&mut guard, Duration::from_millis(100));
        }
        Ok(())
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

    /// Adaptive log file sync: the method committing sessions use, LGWR's trace file.
    pub fn adaptive(&self) -> &AdaptiveSync {
        &self.adaptive
    }

    fn wake_lgwr(&self) {
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
    fn park_for_write(&self, lsn: u64, deadline: Instant) {
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
    fn unpark_writes(&self, written: u64) {
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

    fn wait_written(&self, lsn: u64) -> Result<()> {
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
                    return Err(Error::new(1089, "immediate shutdown or close in progress"));
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
    fn write_once(&self) -> Result<()> {
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
    fn fail(&self, error: Error) {
        *self.failed.lock() = Some(error);
        self.has_failed.store(true, Ordering::Release);
        self.unpark_writes(u64::MAX);
        self.notify_log_waiters();
    }

    /// Takes everything buffered, pads to a block boundary, writes and syncs it.
    fn write_and_sync(&self, image: &mut WriteImage) -> Result<()> {
        let (runs, end_lsn, end_position) = {
            let mut state = self.state.lock();
            if state.runs.is_empty() {
                return Ok(());
            }
            let runs = std::mem::take(&mut state.runs);
            // Pad the stream to the next block boundary of its sequence.
            let offset = state.next_lsn - state.sequence_start_lsn;
            let rest = (REDO_PAYLOAD_BYTES as u64 - offset % REDO_PAYLOAD_BYTES as u64)
                % REDO_PAYLOAD_BYTES as u64;
            state.next_lsn += rest;
            instrumentation::add(Statistic::RedoWastage, rest);
            (runs, state.next_lsn, state.next_position)
        };
        self.wait_for_copies();
        let started = Instant::now();
        let mut blocks_written = 0u64;
        let mut touched: Vec<u32> = Vec::new();
        {
            let _wait = instrumentation::wait(WaitEvent::LogFileParallelWrite, 1, 0, 1);
            let mut previous_sequence = None;
            for run in &runs {
                if previous_sequence.is_some_and(|previous| previous != run.sequence) {
                    // A sequence is durable before anything of the next one is written: recovery
                    // relies on it to continue from one sequence into the next.
                    self.sync_groups(&mut touched)?;
                }
                previous_sequence = Some(run.sequence);
                blocks_written += self.write_run(run, &mut touched, image)?;
            }
            self.sync_groups(&mut touched)?;
        }
        let write_micros = started.elapsed().as_micros() as u64;
        instrumentation::add(Statistic::RedoWrites, 1);
        instrumentation::add(Statistic::RedoBlocksWritten, blocks_written);
        add_centiseconds(
            &self.write_micros_total,
            write_micros,
            Statistic::RedoWriteTime,
        );
        self.adaptive.record_write(write_micros);
        // The space first: a session waiting for it waits for `written_lsn`.
        self.released_position
            .fetch_max(end_position, Ordering::AcqRel);
        self.written_lsn.fetch_max(end_lsn, Ordering::AcqRel);
        self.unpark_writes(end_lsn);
        Ok(())
    }

    fn sync_groups(&self, touched: &mut Vec<u32>) -> Result<()> {
        for group in touched.drain(..) {
            let log = &self.groups[group as usize - 1];
            log.file
                .sync_data()
                .map_err(|error| Error::io(&log.path, error))?;
        }
        Ok(())
    }

    /// Writes one run (within one sequence) as whole redo blocks. Returns blocks written.
    fn write_run(&self, run: &Run, touched: &mut Vec<u32>, image: &mut WriteImage) -> Result<u64> {
        let group = self.group_of(run.sequence);
        let sequence_start = run.sequence_start_lsn;
        let held = self.group_sequences.lock()[group.group as usize - 1].sequence;
        if held != run.sequence {
            self.write_file_header(run.sequence, sequence_start, now_seconds())?;
            self.alert(&format!(
                "Thread 1 advanced to log sequence {} (LGWR switch)\n  Current log# {} seq# {} mem# 0: {}",
                run.sequence,
                group.group,
                run.sequence,
                group.path.display()
            ));
        }
        let offset = run.start_lsn - sequence_start;
        let first_block = offset / REDO_PAYLOAD_BYTES as u64;
        debug_assert_eq!(
            offset % REDO_PAYLOAD_BYTES as u64,
            0,
            "runs start on block boundaries"
        );
        let block_count = (run.bytes as usize).div_ceil(REDO_PAYLOAD_BYTES);
        let image = image
            .blocks(block_count)
            .map_err(|error| Error::io(&group.path, error))?;
        for index in 0..block_count {
            let block = &mut image[index * REDO_BLOCK_BYTES..(index + 1) * REDO_BLOCK_BYTES];
            let block_number = first_block + 1 + index as u64;
            write_u32(block, 4, run.sequence as u32);
            write_u32(block, 8, block_number as u32);
            write_u32(block, 12, self.epoch.load(Ordering::Acquire));
            let from = (index * REDO_PAYLOAD_BYTES) as u64;
            let payload = (run.bytes - from).min(REDO_PAYLOAD_BYTES as u64) as usize;
            // SAFETY: the run was taken from the buffer by this writer, every copy into it has
            // finished (`wait_for_copies`), and it is released only after this write.
            unsafe {
                self.ring.read(
                    run.position + from,
                    &mut block[REDO_BLOCK_HEADER_BYTES..REDO_BLOCK_HEADER_BYTES + payload],
                );
            }
            // A block the run ends in is padded with zeros (the image holds an earlier write's).
            block[REDO_BLOCK_HEADER_BYTES + payload..].fill(0);
            let checksum = crc32c::crc32c(&block[4..]);
            write_u32(block, 0, checksum);
        }
        let position = (first_block + 1) * REDO_BLOCK_BYTES as u64;
        let written = self.write_in_place(group, image, position)?;
        if written == Written::NeedsSync && !touched.contains(&group.group) {
            touched.push(group.group);
        }
        Ok(block_count as u64)
    }

    /// Writes (and syncs) the header that makes a group hold `sequence`.
    fn write_file_header(&self, sequence: u64, start_lsn: u64, first_time: u64) -> Result<()> {
        let group = self.group_of(sequence);
        let header = FileHeader {
            group: group.group,
            sequence,
            start_lsn,
            file_size: self.file_size,
            first_time,
            ..FileHeader::default()
        };
        self.write_durably(group, &header.encode(), 0)?;
        self.group_sequences.lock()[group.group as usize - 1] = header;
        Ok(())
    }

    /// Writes `bytes` at `position` of a group's file. If they would reach past what is
    /// formatted, it first formats the file with zeros up to the next multiple of
    /// [`LOG_FILE_FORMAT_STEP_BYTES`] after their end (at most to the file's size). Every write
    /// to a log file goes through here.
    ///
    /// Why: a commit costs LGWR's write and fdatasync. A write past the end of a file, or into
    /// a hole or a fallocate'd range, changes the file's size or its block map, and fdatasync
    /// must then also write that metadata (the inode, or a journal commit). On the lab's ext4
    /// disk, against a 100 us fdatasync: a 512-byte write past the end added about 45 us, and
    /// each first write into a 4 KiB of a hole or a fallocate'd range about 50 us. Into
    /// formatted space, a redo write is an overwrite in place and fdatasync flushes data only.
    /// Oracle formats a whole log file at creation; formatting in steps instead keeps opening
    /// a database with large log files fast, at the cost of one slower write (the zeros and
    /// the new size) per step, and after the first pass through a file there is nothing left
    /// to format.
    ///
    /// The zeros are not synced on their own: the redo write's own sync covers them. They are
    /// what a never-written redo block reads as anyway (past the end of a file too), so they
    /// change nothing recovery finds; and they only cover bytes past `formatted_bytes`, which
    /// no write since the file was opened has reached, and which were past its end then.
    ///
    /// Returns [`Written::Durable`] when the bytes and the zeros before them were all
    /// written direct with `O_DSYNC`, so that no `sync_data` is needed for them.
    fn write_in_place(&self, group: &LogGroup, bytes: &[u8], position: u64) -> Result<Written> {
        let io = |error| Error::io(&group.path, error);
        // Direct or not, one way for the zeros and the redo after them: a direct write into
        // a range whose cached pages are dirty would first wait for the kernel to write
        // them back.
        let direct = self.direct_writes.load(Ordering::Relaxed);
        let mut all = Written::Durable;
        let mut write = |bytes: &[u8], position: u64| {
            let written = if direct {
                group.file.write_direct(bytes, position)
            } else {
                group
                    .file
                    .write_at(bytes, position)
                    .map(|()| Written::NeedsSync)
            }
            .map_err(io)?;
            if written == Written::NeedsSync {
                all = Written::NeedsSync;
            }
            Ok::<(), Error>(())
        };
        let end = position + bytes.len() as u64;
        {
            let mut formatted = group.formatted_bytes.lock();
            if end > *formatted {
                let target = end
                    .next_multiple_of(LOG_FILE_FORMAT_STEP_BYTES)
                    .min(self.file_size)
                    .max(end);
                let zeros = AlignedBuffer::zeroed(
                    (target - *formatted).min(LOG_FILE_FORMAT_STEP_BYTES) as usize,
                )
                .map_err(io)?;
                while *formatted < target {
                    let length = (target - *formatted).min(zeros.len() as u64) as usize;
                    write(&zeros[..length], *formatted)?;
                    *formatted += length as u64;
                }
            }
        }
        write(bytes, position)?;
        Ok(all)
    }

    /// Writes `bytes` at `position` of a group's file and makes them durable: a sync unless
    /// the write was durable already.
    fn write_durably(&self, group: &LogGroup, bytes: &[u8], position: u64) -> Result<()> {
        if self.write_in_place(group, bytes, position)? == Written::NeedsSync {
            group
                .file
                .sync_data()
                .map_err(|error| Error::io(&group.path, error))?;
        }
        Ok(())
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

    /// Forgets a group's contents (its header is zeroed): used by recovery for sequences past
    /// the point where the stream ended, so that they are never read as a continuation.
    pub fn invalidate_group(&self, group: &LogGroup) -> Result<()> {
        self.write_durably(group, &[0u8; REDO_BLOCK_BYTES], 0)?;
        self.group_sequences.lock()[group.group as usize - 1] = FileHeader::default();
        Ok(())
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

    /// Reads a group's header, or None if it never held redo or is damaged.
    pub fn read_file_header(&self, group: &LogGroup) -> Result<Option<FileHeader>> {
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        group
            .file
            .read_at(&mut block, 0)
            .map_err(|error| Error::io(&group.path, error))?;
        let header = FileHeader::decode(&block);
        if let Some(header) = header {
            self.group_sequences.lock()[group.group as usize - 1] = header;
        }
        Ok(header)
    }

    /// The header of the sequence a group holds, as last written or read.
    pub fn held_sequence(&self, group: &LogGroup) -> FileHeader {
        self.group_sequences.lock()[group.group as usize - 1]
    }

    /// Checks redo block `block_number` of `sequence` (its bytes in `block`): its epoch if it
    /// is valid and no older than `epoch_before`, else why not.
    pub fn check_block(
        block: &[u8],
        sequence: u64,
        block_number: u64,
        epoch_before: u32,
    ) -> std::result::Result<u32, BlockFault> {
        if read_u32(block, 0) != crc32c::crc32c(&block[4..REDO_BLOCK_BYTES]) {
            if block.iter().all(|&byte| byte == 0) {
                return Err(BlockFault::Unwritten);
            }
            return Err(BlockFault::ChecksumMismatch);
        }
        let found_sequence = read_u32(block, 4) as u64;
        if found_sequence < sequence {
            return Err(BlockFault::EarlierSequence(found_sequence));
        }
        if found_sequence > sequence {
            return Err(BlockFault::LaterSequence(found_sequence));
        }
        let found_block = read_u32(block, 8) as u64;
        if found_block != block_number {
            return Err(BlockFault::WrongBlockNumber(found_block));
        }
        let epoch = read_u32(block, 12);
        if epoch < epoch_before {
            return Err(BlockFault::EarlierEpoch {
                found: epoch,
                before: epoch_before,
            });
        }
        Ok(epoch)
    }

    /// Reads the stream of `sequence` from `from_lsn` for recovery, stopping at the first block
    /// that is torn, damaged or from an older use of the file (`check_block`), and says which
    /// and why. Returns the stream as segments (the LSN where each starts, and its payload
    /// bytes): a new segment starts wherever a block's epoch is higher than the one before
    /// it. That block is where a later incarnation began writing after recovery, at a record
    /// boundary, while the block before it may end with the head of a record whose tail the
    /// crash lost; the two must not be read as one.
    pub fn read_sequence(
        &self,
        sequence: u64,
        sequence_start: u64,
        from_lsn: u64,
        epoch_seen: &mut u32,
    ) -> Result<SequenceRead> {
        let group = self.group_of(sequence);
        let offset = from_lsn - sequence_start;
        let first_block = offset / REDO_PAYLOAD_BYTES as u64;
        let skip = (offset % REDO_PAYLOAD_BYTES as u64) as usize;
        let total_blocks = self.file_size / REDO_BLOCK_BYTES as u64 - 1;
        let mut segments: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        let _wait = instrumentation::wait(WaitEvent::LogFileSequentialRead, 0, 0, 0);
        let mut end = SequenceEnd {
            sequence,
            block: total_blocks + 1,
            fault: None,
        };
        for index in first_block..total_blocks {
            let position = (index + 1) * REDO_BLOCK_BYTES as u64;
            group
                .file
                .read_at(&mut block, position)
                .map_err(|error| Error::io(&group.path, error))?;
            let epoch = match Self::check_block(&block, sequence, index + 1, *epoch_seen) {
                Ok(epoch) => epoch,
                Err(fault) => {
                    end.block = index + 1;
                    end.fault = Some(fault);
                    break;
                }
            };
            let payload = &block[REDO_BLOCK_HEADER_BYTES..];
            if index == first_block {
                segments.push((from_lsn, payload[skip..].to_vec()));
            } else if epoch > *epoch_seen {
                let lsn = sequence_start + index * REDO_PAYLOAD_BYTES as u64;
                segments.push((lsn, payload.to_vec()));
            } else if let Some((_, bytes)) = segments.last_mut() {
                bytes.extend_from_slice(payload);
            }
            *epoch_seen = epoch;
        }
        Ok(SequenceRead { segments, end })
    }

    /// Reads a whole log file for DBVERIFY: see [`LogFileVerification`] for what each count
    /// means. Only reads.
    pub fn verify_file(&self, group: &LogGroup) -> Result<LogFileVerification> {
        // A header naming a sequence that another group holds is not this file's to read.
        let header = self
            .read_file_header(group)?
            .map(|header| (header.sequence, header.start_lsn))
            .filter(|(sequence, _)| *sequence > 0 && self.group_of(*sequence).group == group.group);
        let blocks = self.file_size / REDO_BLOCK_BYTES as u64 - 1;
        let mut report = LogFileVerification {
            group: group.group,
            path: group.path.clone(),
            sequence: header.map(|(sequence, _)| sequence),
            blocks,
            ..Default::default()
        };
        let mut last_epoch = 0u32;
        if let Some((sequence, start)) = header {
            for (segment_start, stream) in self
                .read_sequence(sequence, start, start, &mut last_epoch)?
                .segments
            {
                let (records, end) = RedoLog::split_records(&stream, segment_start, start);
                report.records += records.len() as u64;
                report.cut_bytes += segment_start + stream.len() as u64 - end;
                report.valid += (stream.len() / REDO_PAYLOAD_BYTES) as u64;
            }
        }
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        for number in report.valid + 1..=blocks {
            group
                .file
                .read_at(&mut block, number * REDO_BLOCK_BYTES as u64)
                .map_err(|error| Error::io(&group.path, error))?;
            if block.iter().all(|&byte| byte == 0) {
                report.unwritten += 1;
            } else if read_u32(&block, 0) != crc32c::crc32c(&block[4..])
                || read_u32(&block, 8) as u64 != number
            {
                report.damaged.push(number);
            } else {
                let block_sequence = read_u32(&block, 4) as u64;
                let epoch = read_u32(&block, 12);
                match header {
                    Some((sequence, _))
                        if block_sequence > sequence
                            || (block_sequence == sequence && epoch >= last_epoch) =>
                    {
                        report.unreachable.push(number)
                    }
                    _ => report.stale += 1,
                }
            }
        }
        Ok(report)
    }

    /// Splits a stream read by `read_sequence` into records. Returns (lsn, record bytes) and
    /// the LSN just past the last whole, valid record.
    pub fn split_records(
        stream: &[u8],
        stream_start_lsn: u64,
        sequence_start: u64,
    ) -> (Vec<(u64, &[u8])>, u64) {
        let mut records = Vec::new();
        let mut position = 0usize;
        loop {
            let lsn = stream_start_lsn + position as u64;
            if position + 4 > stream.len() {
                return (records, lsn);
            }
            let left_in_block = block_bytes_left(lsn - sequence_start) as usize;
            if left_in_block < RECORD_LENGTH_BYTES {
                // Too little room for a length word: padding (see `append`).
                position += left_in_block;
                continue;
            }
            let length = read_u32(stream, position) as usize;
            if length == 0 {
                // Padding: the rest of this redo block is unused.
                let next = position + left_in_block;
                if next > stream.len() || stream[position..next].iter().any(|&byte| byte != 0) {
                    return (records, lsn);
                }
                position = next;
                continue;
            }
            if length < RECORD_HEADER_BYTES || position + length > stream.len() {
                return (records, lsn);
            }
            let record = &stream[position..position + length];
            if crate::redo::record::decode(record).is_err() {
                return (records, lsn);
            }
            records.push((lsn, record));
            position += length;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::block::BlockId;
    use crate::io::vfs::SimVfs;
    use crate::redo::record::{self, RecordBuilder};

    /// A valid record of exactly `length` bytes (one vector with one changed range).
    fn record_of(length: usize) -> Vec<u8> {
        let changed = length - record::RECORD_HEADER_BYTES - record::VECTOR_HEADER_BYTES - 4;
        let before = vec![0u8; 2048];
        let mut after = before.clone();
        after[100..100 + changed].fill(0xAB);
        let mut builder = RecordBuilder::new(1, 0);
        assert!(builder.push_vector(BlockId::new(1, 1), &before, &after, false));
        let bytes = builder.finish();
        assert_eq!(bytes.len(), length);
        bytes
    }

    /// The stream of sequence 1 read back, split into records.
    fn records_on_disk(log: &RedoLog) -> Vec<u64> {
        let mut epoch = 0;
        let segments = log.read_sequence(1, 0, 0, &mut epoch).unwrap().segments;
        segments
            .iter()
            .flat_map(|(start, stream)| RedoLog::split_records(stream, *start, 0).0)
            .map(|(lsn, _)| lsn)
            .collect()
    }

    /// A record ending one to three bytes before a redo block's end leaves too little room
    /// for the next length word. Whether LGWR's write pads that gap or the next record does,
    /// the reader must step over it; it once stopped there and lost every later commit.
    #[test]
    fn a_gap_too_small_for_a_length_word_is_padding_whoever_pads_it() {
        for gap in 1..=3usize {
            for write_between in [true, false] {
                let vfs = SimVfs::new(gap as u64);
                let log = started_log(&vfs);
                let (first, end) = log.append(&record_of(REDO_PAYLOAD_BYTES - gap)).unwrap();
                if write_between {
                    log.write_once().unwrap();
                }
                let (second, _) = log.append(&record_of(100)).unwrap();
                log.write_once().unwrap();
                assert_eq!(first, 0);
                assert_eq!(end as usize, REDO_PAYLOAD_BYTES - gap);
                assert_eq!(
                    second as usize, REDO_PAYLOAD_BYTES,
                    "the next record starts a block"
                );
                assert_eq!(records_on_disk(&log), vec![first, second], "gap {gap}");
            }
        }
    }

    /// A log on a simulated file system, started at the beginning of sequence 1, no LGWR.
    fn started_log(vfs: &SimVfs) -> RedoLog {
        started_log_sized(vfs, 64 << 10, 1 << 20)
    }

    /// A log of two groups of `file_size` bytes and a buffer of `buffer_bytes`, at LSN 0.
    fn started_log_sized(vfs: &SimVfs, file_size: u64, buffer_bytes: usize) -> RedoLog {
        let dir = std::path::Path::new("/db");
        vfs.create_dir_all(dir).unwrap();
        let log = RedoLog::open(vfs, dir, 2, file_size, buffer_bytes).unwrap();
        let start = StreamPosition {
            sequence: 1,
            sequence_start_lsn: 0,
            next_lsn: 0,
        };
        log.start_at(start, 0, 1).unwrap();
        log
    }

    /// The bug this pins: the write-ahead rule waited for redo up to a block's LSN, which is
    /// where the record of the block's last change starts. A write ends padded to a redo
    /// block boundary and the next record starts exactly there, at `written_lsn`: a block
    /// changed by that record passed the rule at once, and DBWR wrote it before a byte of its
    /// record was on disk. A power loss, or a `kill -9` with the record still in the log
    /// buffer, then left changes in the datafiles that no redo describes: an index branch
    /// naming a block whose formatting was lost (ORA-00600 at the next open), a transaction
    /// table slot naming an undo block that never got its records (an uncommitted
    /// transaction's rows kept), space allocated to no segment. Found by `tests/ddl_crash.rs`.
    #[test]
    fn a_block_write_waits_for_the_whole_record_that_starts_where_a_write_ended() {
        let vfs = SimVfs::new(6);
        let log = started_log(&vfs);
        std::thread::scope(|scope| {
            let lgwr = scope.spawn(|| log.run_lgwr());
            let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let (_, end) = log.append(&record_of(100)).unwrap();
                log.flush_to(end).unwrap();
                let (next, _) = log.append(&record_of(100)).unwrap();
                assert_eq!(
                    next,
                    log.written_lsn(),
                    "the next record starts where the write ended"
                );
                log.flush_record(next).unwrap();
                assert!(log.written_lsn() > next);
                assert_eq!(records_on_disk(&log).last(), Some(&next));
            }));
            log.shutdown(); // before any panic goes on: LGWR must not be left running
            lgwr.join().unwrap();
            if let Err(panic) = checked {
                std::panic::resume_unwind(panic);
            }
        });
    }

    /// Four sessions append records of many sizes at once through a 64 KiB buffer that wraps
    /// around about twenty times, LGWR writing behind them: every record reaches the disk
    /// whole, at the LSN its append returned, and nothing else does.
    #[test]
    fn parallel_copies_through_a_wrapping_buffer_land_whole_at_their_lsns() {
        let vfs = SimVfs::new(11);
        let log = started_log_sized(&vfs, 8 << 20, LOG_BUFFER_BYTES_MIN);
        // Copies slower than LGWR's cycle: a writer that did not wait for them would write
        // the ring's old bytes in their place.
        log.slow_copies.store(true, Ordering::Relaxed);
        let mut appended: Vec<(u64, u64)> = std::thread::scope(|scope| {
            let lgwr = scope.spawn(|| log.run_lgwr());
            let sessions: Vec<_> = (0..4u64)
                .map(|session| {
                    let log = &log;
                    scope.spawn(move || {
                        (0..300u64)
                            .map(|number| {
                                let length = 60 + ((session * 7919 + number * 104_729) % 1900);
                                log.append(&record_of(length as usize)).unwrap()
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let joined: Vec<_> = sessions.into_iter().map(|session| session.join()).collect();
            log.shutdown(); // before any unwrap: a panicking session must not leave LGWR running
            lgwr.join().unwrap();
            joined
                .into_iter()
                .flat_map(|session| session.unwrap())
                .collect::<Vec<(u64, u64)>>()
        });
        appended.sort_unstable();
        let buffer_turns = appended.last().unwrap().1 / LOG_BUFFER_BYTES_MIN as u64;
        assert!(
            buffer_turns >= 15,
            "the buffer wrapped {buffer_turns} times"
        );
        let mut epoch = 0;
        let segments = log.read_sequence(1, 0, 0, &mut epoch).unwrap().segments;
        let on_disk: Vec<(u64, u64)> = segments
            .iter()
            .flat_map(|(start, stream)| RedoLog::split_records(stream, *start, 0).0)
            .map(|(lsn, bytes)| {
                assert_eq!(
                    bytes,
                    record_of(bytes.len()).as_slice(),
                    "the record at {lsn} is intact"
                );
                (lsn, lsn + bytes.len() as u64)
            })
            .collect();
        assert_eq!(on_disk, appended);
    }

    /// A crash keeps the first block of a two-block record and loses the second; recovery
    /// restarts the stream at that second block and a new incarnation writes a commit there.
    /// Read as one stream, the cut record's head ran into the new commit, failed its
    /// checksum and hid it: a second crash lost an acknowledged commit. The epoch rise marks
    /// where the new incarnation began, and reading restarts there.
    #[test]
    fn a_record_cut_by_a_crash_does_not_hide_what_the_next_incarnation_wrote() {
        let vfs = SimVfs::new(5);
        let log = started_log(&vfs);
        let (first, _) = log.append(&record_of(100)).unwrap();
        log.write_once().unwrap();
        let (cut, _) = log.append(&record_of(700)).unwrap();
        log.write_once().unwrap();
        assert_eq!(
            cut as usize, REDO_PAYLOAD_BYTES,
            "the record starts block 1"
        );
        // The crash: block 2 (the record's second block) never reached the disk.
        let group = &log.groups()[0];
        let lost_block = 2u64;
        group
            .file
            .write_at(
                &[0u8; REDO_BLOCK_BYTES],
                (lost_block + 1) * REDO_BLOCK_BYTES as u64,
            )
            .unwrap();
        assert_eq!(records_on_disk(&log), vec![first]);
        // Recovery ends the stream after `first` and starts the next incarnation at block 2.
        let restart = lost_block * REDO_PAYLOAD_BYTES as u64;
        log.start_at(
            StreamPosition {
                sequence: 1,
                sequence_start_lsn: 0,
                next_lsn: restart,
            },
            0,
            2,
        )
        .unwrap();
        let (after, _) = log.append(&record_of(100)).unwrap();
        log.write_once().unwrap();
        assert_eq!(after, restart);
        assert_eq!(records_on_disk(&log), vec![first, after]);
    }

    /// A commit used to post LGWR and sleep until LGWR posted back: two thread wake-ups on
    /// the path of every lone commit. With no write in progress, the committing session now
    /// writes the log itself (here no LGWR even runs), and still records what LGWR would.
    #[test]
    fn a_lone_commit_writes_the_log_itself_and_records_it_as_lgwr_would() {
        let vfs = SimVfs::new(3);
        let log = started_log(&vfs);
        let session = instrumentation::SessionInstrumentation::new(
            instrumentation::SessionType::User,
            "SCOTT",
            "test",
        )
        .unwrap();
        let _entered = instrumentation::enter(&session);
        let (first, _) = log.append(&record_of(100)).unwrap();
        let (second, end) = log.append(&record_of(100)).unwrap();
        let syncs_before = vfs.syncs();
        log.sync_commit(end).unwrap();
        assert_eq!(vfs.syncs() - syncs_before, 1, "one write and one sync");
        assert!(log.written_lsn() >= end);
        assert_eq!(records_on_disk(&log), vec![first, second]);
        assert_eq!(session.event_totals(WaitEvent::LogFileSync).total_waits, 1);
        assert_eq!(
            session
                .event_totals(WaitEvent::LogFileParallelWrite)
                .total_waits,
            1
        );
        assert_eq!(session.statistic(Statistic::RedoWrites), 1);
        assert_eq!(session.statistic(Statistic::RedoSynchWrites), 1);
    }

    /// While a write is in progress, a commit must not write (writes go one at a time, in LSN
    /// order): it posts LGWR, which writes it once the write in progress is over.
    #[test]
    fn a_commit_during_a_write_in_progress_is_written_by_lgwr() {
        let vfs = SimVfs::new(4);
        let log = Arc::new(started_log(&vfs));
        let lgwr = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || log.run_lgwr())
        };
        let in_progress = log.writing.lock();
        let (lsn, end) = log.append(&record_of(100)).unwrap();
        let committer = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || log.sync_commit(end))
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            log.written_lsn() < end,
            "nothing is written while a write is in progress"
        );
        drop(in_progress);
        committer.join().unwrap().unwrap();
        assert_eq!(records_on_disk(&log), vec![lsn]);
        log.shutdown();
        lgwr.join().unwrap();
    }

    /// An LGWR that panicked left the commits waiting for its write waiting for ever. The
    /// log now ends with ORA-00470, for them and for every later commit.
    #[test]
    fn an_lgwr_that_panics_fails_the_commits_instead_of_hanging_them() {
        let vfs = SimVfs::new(6);
        let log = Arc::new(started_log(&vfs));
        log.panic_in_lgwr.store(true, Ordering::Relaxed);
        let lgwr = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || log.run_lgwr())
        };
        // A write in progress: the commit cannot write for itself, and posts LGWR.
        let in_progress = log.writing.lock();
        let (_, end) = log.append(&record_of(100)).unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        {
            let log = Arc::clone(&log);
            std::thread::spawn(move || sender.send(log.sync_commit(end)));
        }
        let error = receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the commit returned")
            .unwrap_err();
        assert_eq!(error.code(), 470, "{error}");
        assert!(error.to_string().contains("LGWR test panic"), "{error}");
        lgwr.join().expect("LGWR's panic is caught");
        drop(in_progress);
        assert_eq!(log.append(&record_of(100)).unwrap_err().code(), 470);
    }

    /// After a failed write nothing is known of what reached the disk: a session's failed
    /// write must end the log for everyone, as LGWR's does.
    #[test]
    fn a_failed_write_by_a_session_fails_every_later_commit() {
        let vfs = SimVfs::new(5);
        let log = started_log(&vfs);
        let (_, end) = log.append(&record_of(100)).unwrap();
        vfs.fail_io_after(1);
        assert!(log.sync_commit(end).is_err());
        vfs.clear_faults();
        assert!(log.append(&record_of(100)).is_err());
        assert!(log.sync_commit(end).is_err());
        assert!(log.write_once().is_err());
        assert!(log.written_lsn() < end);
    }

    /// Log files grew with every LGWR write, so each commit's fdatasync also had to write the
    /// new file size (about 45 us on top of a 100 us fdatasync on the lab's disk). LGWR
    /// now formats a file with zeros a step ahead of its redo. The zeros must never cover
    /// redo: not redo written since the file was opened, nor redo a file already held when
    /// it was opened shorter than its full size.
    #[test]
    fn log_files_are_formatted_ahead_of_their_redo_and_never_over_it() {
        let step = LOG_FILE_FORMAT_STEP_BYTES;
        let file_size = 3 * step;
        let vfs = SimVfs::new(7);
        let dir = std::path::Path::new("/db");
        vfs.create_dir_all(dir).unwrap();
        let log = RedoLog::open(&vfs, dir, 2, file_size, 1 << 20).unwrap();
        let length = |log: &RedoLog| log.groups()[0].file.len().unwrap();
        assert_eq!(length(&log), 0, "nothing is formatted before it is needed");
        let sequence_one = StreamPosition {
            sequence: 1,
            sequence_start_lsn: 0,
            next_lsn: 0,
        };
        log.start_at(sequence_one, 0, 1).unwrap();
        assert_eq!(
            length(&log),
            step,
            "the header's write formats the first step"
        );
        // Enough redo to cross into the second step, one record (and one block) a write.
        let mut lsns = Vec::new();
        while lsns.len() as u64 * (REDO_BLOCK_BYTES as u64) < step {
            lsns.push(log.append(&record_of(400)).unwrap().0);
            log.write_once().unwrap();
        }
        assert_eq!(length(&log), 2 * step);
        assert_eq!(records_on_disk(&log), lsns);

        // Opened again with only its first three blocks (as a file from before formatting
        // was), the file keeps them when the next write formats past its end.
        log.groups()[0]
            .file
            .set_len(3 * REDO_BLOCK_BYTES as u64)
            .unwrap();
        log.groups()[0].file.sync_data().unwrap();
        drop(log);
        let kept_end = 2 * REDO_PAYLOAD_BYTES as u64;
        let mut expected = lsns[..2].to_vec();
        let reopened = RedoLog::open(&vfs, dir, 2, file_size, 1 << 20).unwrap();
        assert_eq!(records_on_disk(&reopened), expected);
        // As recovery does: new redo starts in the first block after the last whole record.
        let resume = StreamPosition {
            next_lsn: kept_end,
            ..sequence_one
        };
        reopened.start_at(resume, 0, 2).unwrap();
        expected.push(reopened.append(&record_of(400)).unwrap().0);
        reopened.write_once().unwrap();
        assert_eq!(length(&reopened), step);
        assert_eq!(records_on_disk(&reopened), expected);
    }

    /// The writer keeps its image of the blocks from one write to the next: a short write
    /// after a long one must carry none of the long one's bytes past its own end, where a
    /// reader would take them for records.
    #[test]
    fn a_short_write_after_a_long_one_carries_none_of_its_bytes() {
        let vfs = SimVfs::new(22);
        let log = started_log(&vfs);
        let long = log.append(&record_of(1500)).unwrap().0;
        log.write_once().unwrap(); // blocks 1 to 4
        let short = log.append(&record_of(100)).unwrap().0;
        log.write_once().unwrap(); // block 5: the long write padded to a block boundary
        assert_eq!(records_on_disk(&log), [long, short]);
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        log.groups()[0]
            .file
            .read_at(&mut block, 5 * REDO_BLOCK_BYTES as u64)
            .unwrap();
        assert_eq!(read_u32(&block, 8), 5, "block 5 of the sequence");
        let past_the_record = &block[REDO_BLOCK_HEADER_BYTES + 100..];
        assert!(past_the_record.iter().all(|&byte| byte == 0));
    }

    /// Recovery stopped silently at a damaged redo block: nothing said where, or whether it
    /// was the ordinary end of the redo or damage. Reading now names the block and the fault,
    /// and still returns nothing from the damaged block on.
    #[test]
    fn reading_stops_at_a_damaged_block_and_says_which_and_why() {
        let vfs = SimVfs::new(21);
        let log = started_log(&vfs);
        let mut lsns = Vec::new();
        for _ in 0..3 {
            lsns.push(log.append(&record_of(400)).unwrap().0);
            log.write_once().unwrap(); // one record a write: blocks 1, 2 and 3
        }
        assert_eq!(records_on_disk(&log), lsns);
        let end_of = |log: &RedoLog| log.read_sequence(1, 0, 0, &mut 0).unwrap().end;
        let unwritten = SequenceEnd {
            sequence: 1,
            block: 4,
            fault: Some(BlockFault::Unwritten),
        };
        assert_eq!(end_of(&log), unwritten);
        assert_eq!(
            unwritten.to_string(),
            "end of redo: block 4 of sequence 1 was never written"
        );

        let group = &log.groups()[0];
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        group
            .file
            .read_at(&mut block, 2 * REDO_BLOCK_BYTES as u64)
            .unwrap();
        block[100] ^= 0xFF;
        group
            .file
            .write_at(&block, 2 * REDO_BLOCK_BYTES as u64)
            .unwrap();
        let damaged = end_of(&log);
        assert_eq!(
            damaged,
            SequenceEnd {
                sequence: 1,
                block: 2,
                fault: Some(BlockFault::ChecksumMismatch),
            }
        );
        assert!(damaged.fault.unwrap().is_damage());
        assert_eq!(
            damaged.to_string(),
            "torn or corrupt redo block: sequence 1 block 2 fails its checksum"
        );
        assert_eq!(
            records_on_disk(&log),
            vec![lsns[0]],
            "nothing from block 2 on"
        );
    }

    /// The blocks that end the redo written (never written, left by the group's earlier use
    /// or by an earlier incarnation) are told apart from torn or corrupt ones.
    #[test]
    fn check_block_tells_the_end_of_the_redo_from_damage() {
        // A valid block 3 of sequence 5, written in epoch 2.
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        write_u32(&mut block, 4, 5);
        write_u32(&mut block, 8, 3);
        write_u32(&mut block, 12, 2);
        block[100] = 7;
        let checksum = crc32c::crc32c(&block[4..]);
        write_u32(&mut block, 0, checksum);
        assert_eq!(RedoLog::check_block(&block, 5, 3, 1), Ok(2));
        let faults = [
            (
                RedoLog::check_block(&[0u8; REDO_BLOCK_BYTES], 5, 3, 1),
                BlockFault::Unwritten,
            ),
            (
                RedoLog::check_block(&block, 8, 3, 1),
                BlockFault::EarlierSequence(5),
            ),
            (
                RedoLog::check_block(&block, 5, 3, 3),
                BlockFault::EarlierEpoch {
                    found: 2,
                    before: 3,
                },
            ),
            (
                RedoLog::check_block(&block, 2, 3, 1),
                BlockFault::LaterSequence(5),
            ),
            (
                RedoLog::check_block(&block, 5, 4, 1),
                BlockFault::WrongBlockNumber(3),
            ),
        ];
        for (found, expected) in faults {
            assert_eq!(found, Err(expected));
        }
        block[200] ^= 1;
        assert_eq!(
            RedoLog::check_block(&block, 5, 3, 1),
            Err(BlockFault::ChecksumMismatch)
        );
        let damage: Vec<bool> = [
            BlockFault::Unwritten,
            BlockFault::EarlierSequence(5),
            BlockFault::EarlierEpoch {
                found: 2,
                before: 3,
            },
            BlockFault::ChecksumMismatch,
            BlockFault::WrongBlockNumber(3),
            BlockFault::LaterSequence(5),
        ]
        .into_iter()
        .map(BlockFault::is_damage)
        .collect();
        assert_eq!(damage, [false, false, false, true, true, true]);
    }

    /// Appends records of 1000 bytes until the log is in `sequence` (no LGWR: each append's
    /// redo is written at once). Bounded by the records two sequences hold.
    fn append_until_sequence(log: &RedoLog, sequence: u64) {
        for _ in 0..2 * log.capacity() / 1000 + 2 {
            if log.current_sequence() >= sequence {
                return;
            }
            log.append(&record_of(1000)).unwrap();
            log.write_once().unwrap();
        }
        assert!(log.current_sequence() >= sequence);
    }

    /// A user session of its own, and a thread that runs `work` in it.
    fn spawn_in_session(
        work: impl FnOnce() + Send + 'static,
    ) -> (
        Arc<instrumentation::SessionInstrumentation>,
        std::thread::JoinHandle<()>,
    ) {
        let session = instrumentation::SessionInstrumentation::new(
            instrumentation::SessionType::User,
            "SCOTT",
            "test",
        )
        .unwrap();
        let entered = session.clone();
        let thread = std::thread::spawn(move || {
            let _entered = instrumentation::enter(&entered);
            work()
        });
        (session, thread)
    }

    /// Waits (bounded) until `session` has counted a redo log space request.
    fn wait_for_space_request(session: &instrumentation::SessionInstrumentation) {
        for _ in 0..3000 {
            if session.statistic(Statistic::RedoLogSpaceRequests) > 0 {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the appender never asked for log space");
    }

    /// With archiving on, a log group must not be reused before its sequence is archived:
    /// redo not yet archived would be lost. The appender that needs the group waits on 'log
    /// file switch (archiving needed)' (and the alert log says so once) until ARC0 archives
    /// the sequence, or until archiving is turned off.
    #[test]
    fn a_group_is_not_reused_before_its_sequence_is_archived() {
        let vfs = SimVfs::new(31);
        let log = Arc::new(started_log_sized(&vfs, 8 << 10, LOG_BUFFER_BYTES_MIN));
        let alerts = Arc::new(Mutex::new(Vec::<String>::new()));
        let kept = alerts.clone();
        log.set_alert(Arc::new(move |message| {
            kept.lock().push(message.to_string())
        }));
        log.checkpoint_completed(u64::MAX); // checkpoints never hold a switch back here
        log.set_archive_required(true);
        append_until_sequence(&log, 2);
        assert!(!log.status()[0].archived);

        for (needed, old, release) in [(3u64, 1u64, "archived"), (4, 2, "archiving off")] {
            let appending = log.clone();
            let (session, appender) =
                spawn_in_session(move || append_until_sequence(&appending, needed));
            wait_for_space_request(&session);
            assert_eq!(log.current_sequence(), needed - 1, "{release}");
            if release == "archived" {
                log.archived_through(old);
            } else {
                log.set_archive_required(false);
            }
            appender.join().unwrap();
            assert_eq!(log.current_sequence(), needed);
            assert_eq!(
                session
                    .event_totals(WaitEvent::LogFileSwitchArchivingNeeded)
                    .total_waits,
                1,
                "{release}"
            );
        }
        let alerts = alerts.lock();
        let cannot_allocate: Vec<&String> = alerts
            .iter()
            .filter(|message| message.contains("cannot allocate new log"))
            .collect();
        assert_eq!(
            cannot_allocate,
            [
                "Thread 1 cannot allocate new log, sequence 3\nAll online logs needed archiving",
                "Thread 1 cannot allocate new log, sequence 4\nAll online logs needed archiving",
            ]
        );
        assert!(alerts.iter().any(
            |message| message.starts_with("Thread 1 advanced to log sequence 4 (LGWR switch)")
        ));
    }

    /// ALTER SYSTEM SWITCH LOGFILE used to move the stream's next LSN to the end of the
    /// sequence. When the switch then had to wait for a checkpoint, the session first waited
    /// for the redo up to that LSN to be written, which no write ever reaches: it hung (two
    /// groups, switches in a row). A switch now waits for the checkpoint only.
    #[test]
    fn a_switch_that_waits_for_a_checkpoint_does_not_hang() {
        let vfs = SimVfs::new(37);
        let log = Arc::new(started_log_sized(&vfs, 8 << 10, LOG_BUFFER_BYTES_MIN));
        let lgwr = {
            let log = log.clone();
            std::thread::spawn(move || log.run_lgwr())
        };
        let switching = log.clone();
        let (session, switcher) = spawn_in_session(move || {
            for _ in 0..3 {
                // As after a commit: everything written when the switch comes.
                let (_, end) = switching.append(&record_of(100)).unwrap();
                switching.flush_to(end).unwrap();
                switching.switch_logfile().unwrap();
            }
        });
        // The switch into sequence 3 needs group 1, whose sequence the checkpoint has not
        // passed: the switcher waits; then the checkpoint (DBWR's part here) completes.
        wait_for_space_request(&session);
        log.checkpoint_completed(u64::MAX);
        for _ in 0..3000 {
            if switcher.is_finished() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let finished = switcher.is_finished();
        log.shutdown();
        assert!(finished, "ALTER SYSTEM SWITCH LOGFILE hung");
        switcher.join().unwrap();
        lgwr.join().unwrap();
        assert_eq!(log.current_sequence(), 4);
        assert_eq!(
            session
                .event_totals(WaitEvent::LogFileSwitchCheckpointIncomplete)
                .total_waits,
            1
        );
        assert_eq!(
            session
                .event_totals(WaitEvent::LogFileSwitchCompletion)
                .total_waits,
            3
        );
    }
}
