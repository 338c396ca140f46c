//! The buffer cache: frames, hash chains, pins, and the way a block gets into a frame.
//!
//! ```text
//!   read(BlockId, access) --hash--> partition i ('cache buffers chains' latch, shared)
//!         | found: pin frame, touch it (its working set's policy), drop latch,
//!         |        take content lock S -> hit
//!         | missing: a free frame of the access's pool (the working set the block's address
//!         |          hashes to: its free list, else its policy's victim), map it under the
//!         |          latch (exclusive) with the content lock held X, drop latch, read, downgrade
//!
//!   prefetch([BlockId], access): a full scan's multiblock read (`access/scan.rs`)
//!         for each run of consecutive blocks that are not cached (a cached one ends a run):
//!         map a frame per block as a miss does (a run's first may wait for a free buffer,
//!         the others take only what is free now), one I/O for the run, then each frame is
//!         valid (and unpinned: the scan's own `read` is a hit) or unmapped
//! ```
//!
//! The frames are divided into buffer pools and working sets by a [`CacheLayout`]
//! (`buffer/pools.rs`); each working set has its own replacement policy and free list. A block
//! is found by its hash wherever it is cached: only a miss asks which pool it belongs in (a
//! pool the layout does not configure means DEFAULT).
//!
//! Invariants:
//! 1. A frame is found through the hash only while it is mapped; a mapped frame's `tag` names
//!    its block. Mapping and unmapping happen under the partition's latch in exclusive mode.
//! 2. A pinned frame (pins > 0) is never unmapped or reused. Pins are taken under the
//!    partition latch (shared), so an evictor holding it exclusive sees every pin.
//! 3. A dirty frame is written (after the redo that describes it is on disk: the write-ahead
//!    rule) before it is unmapped. Nothing dirty is ever dropped.
//! 4. A frame whose read failed is marked invalid and unmapped; a session that waited on its
//!    content lock retries the lookup. This holds for every frame of a failed multiblock
//!    read: no frame stays mapped to a block that was not read.
//! 5. A multiblock read pins at most `read_run_blocks_max` buffers of its pool (a quarter of
//!    the pool's smallest working set), and waits for a free buffer only while it pins none.
//!
//! Statistics: `consistent gets` for read access, `db block gets` for current-mode (write)
//! access, both in `session logical reads`; physical reads and writes come from the file set.
//!
//! Every block get starts in `pin`, which also feeds the lab's recording (`start_trace`) and
//! the cache advice (`set_advice`, v$db_cache_advice: `buffer/advice.rs`): each costs one
//! relaxed load while off.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use rustc_hash::FxHashMap;

use crate::buffer::advice::{AdviceMode, AdviceRow, CacheAdvice, SimulatedAlgorithm};
use crate::buffer::policy::{
    AccessKind, ClassicLruPolicy, ClockPolicy, FrameId, ReplacementPolicy,
};
use crate::buffer::pools::{BufferPool, CacheLayout, LruAlgorithm};
use crate::buffer::simulate::Access;
use crate::buffer::touch_count::{AgingClock, TouchCountPolicy};
use crate::buffer::trace::{BlockTrace, TraceRecorder, TracedAccess};
use crate::error::{Error, Result};
use crate::instrumentation::striped::StripedCounter;
use crate::instrumentation::{self, LatchName, RwLatch, Statistic, WaitEvent};
use crate::io::block::{self, BlockId};
use crate::io::datafile::FileSet;

/// The write-ahead rule's hook: before it writes a block, the cache asks the redo log to make
/// durable the record that last changed it (whose start is the block's LSN), and everything
/// before it.
pub trait RedoFlusher: Send + Sync {
    fn flush_record(&self, lsn: u64) -> Result<()>;
}

const EMPTY_TAG: u64 = u64::MAX;

pub(crate) struct Frame {
    data: RwLock<Box<[u8]>>,
    tag: AtomicU64,
    pins: AtomicU32,
    valid: AtomicBool,
    dirty: AtomicBool,
    /// Set when a read into the frame failed while other sessions had pinned it to wait for
    /// the read: whoever drops the last pin gives the frame back to its free list.
    orphaned: AtomicBool,
    /// Set when a multiblock read brought the block in ahead of its first get: that get is
    /// not a touch (the read was), so that a scan's own get of a block it read does not make
    /// the block look used twice (under `_db_aging_touch_time = 0`, or the classic LRU, it
    /// would be promoted).
    read_ahead: AtomicBool,
    /// Set while one writer owns the frame's write: two writers of one buffer could land an
    /// older image on disk after a newer one was written and the buffer marked clean.
    writing: AtomicBool,
    /// LSN of the first change since the frame was last clean (checkpoint queue order).
    first_dirty_lsn: AtomicU64,
    /// Its block was read by a full scan (x$bh.flag 524288).
    scanned: AtomicBool,
    /// It is on its working set's write list.
    on_write_list: AtomicBool,
    /// While a mini-transaction that has not begun to commit holds the block latched: the
    /// block as of its last logged change, which DBWR writes instead of the latched content
    /// (see `write_frames`). Held by DBWR across that write; a holder that must wait for it
    /// waits on 'write complete waits'.
    holder_image: parking_lot::Mutex<Option<HolderImage>>,
}

/// What DBWR may write for a block latched by a mini-transaction still making its change.
#[derive(Clone)]
pub enum HolderImage {
    /// The content before the change: durable redo describes everything in it.
    Before(Arc<[u8]>),
    /// The block is being formatted anew: its old content is dead (freed space, or undo no
    /// active transaction needs), so nothing need be written for it.
    Dead,
}

/// How a block is wanted: the kind of access (for the policy) and the pool of its segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockAccess {
    pub kind: AccessKind,
    pub pool: BufferPool,
}

impl From<AccessKind> for BlockAccess {
    /// A block of no particular segment (dictionary, undo, space headers): DEFAULT.
    fn from(kind: AccessKind) -> BlockAccess {
        BlockAccess {
            kind,
            pool: BufferPool::Default,
        }
    }
}

impl AccessKind {
    /// This access to a block of a segment in `pool`.
    pub fn in_pool(self, pool: BufferPool) -> BlockAccess {
        BlockAccess { kind: self, pool }
    }
}

/// A working set: consecutive frames with their own replacement list (and its 'cache buffers
/// lru chain' latch) and free list.
pub(crate) struct WorkingSet {
    pub(crate) pool: BufferPool,
    /// Its first frame; the policy numbers its frames from 0.
    pub(crate) first: FrameId,
    pub(crate) count: usize,
    pub(crate) policy: Box<dyn ReplacementPolicy>,
    free: parking_lot::Mutex<Vec<FrameId>>,
    /// Dirty buffers the replacement scan met and took off the replacement list, with the
    /// block each held, for the set's DBWR to write first (Oracle's LRUW list); written, they
    /// go back to the replacement list's cold end. A frame is on it at most once
    /// (`Frame::on_write_list`).
    write_list: parking_lot::Mutex<Vec<(FrameId, u64)>>,
    statistics: SetStatistics,
}

/// What happened in a working set, for v$buffer_pool_statistics (seed 001's Table 3). Gets
/// are counted at every block get, by every session: striped by CPU.
#[derive(Default)]
struct SetStatistics {
    consistent_gets: StripedCounter,
    db_block_gets: StripedCounter,
    db_block_changes: StripedCounter,
    physical_reads: AtomicU64,
    /// Buffers written (SUM_WRITE; PHYSICAL_WRITES).
    physical_writes: AtomicU64,
    /// Buffers taken for a new block, from the free list or the replacement scan (BUF_GOT).
    buffers_got: AtomicU64,
    /// Buffers the replacement scan looked at (SUM_SCAN, FREE_BUFFER_INSPECTED).
    inspected: AtomicU64,
    dirty_inspected: AtomicU64,
    free_buffer_waits: AtomicU64,
    write_complete_waits: AtomicU64,
    /// Gets that waited for a buffer another session held or was reading into
    /// (BUFFER_BUSY_WAIT: 'buffer busy waits' and 'read by other session' both).
    buffer_busy_waits: AtomicU64,
}

/// One pool's row of v$buffer_pool_statistics: its working sets' statistics summed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolStatistics {
    pub pool: BufferPool,
    /// Buffers in the largest working set (SET_MSIZE).
    pub largest_set: usize,
    /// Buffers on the replacement lists, on the write lists, and in all (CNUM_REPL,
    /// CNUM_WRITE, CNUM_SET).
    pub on_lists: usize,
    pub on_write_lists: usize,
    pub buffers: usize,
    pub buffers_got: u64,
    pub buffers_written: u64,
    pub buffers_inspected: u64,
    pub free_buffer_waits: u64,
    pub write_complete_waits: u64,
    pub buffer_busy_waits: u64,
    pub dirty_buffers_inspected: u64,
    pub db_block_changes: u64,
    pub db_block_gets: u64,
    pub consistent_gets: u64,
    pub physical_reads: u64,
    pub physical_writes: u64,
}

impl WorkingSet {
    fn local(&self, frame: FrameId) -> FrameId {
        frame - self.first
    }
}

pub struct BufferCache {
    block_size: usize,
    frames: Box<[Frame]>,
    /// Hash chains: block address to frame. Fx hashing: every block get looks one up.
    partitions: Box<[RwLatch<FxHashMap<BlockId, FrameId>>]>,
    layout: CacheLayout,
    sets: Box<[WorkingSet]>,
    /// Each frame's working set (an index into `sets`).
    set_of_frame: Box<[u16]>,
    /// Per pool (by index): its working sets, a range of `sets` (empty: not configured).
    pool_sets: [std::ops::Range<usize>; 3],
    files: Arc<FileSet>,
    redo: Arc<dyn RedoFlusher>,
    dirty_count: AtomicUsize,
    /// Frames dirtied beyond this count wake DBWR.
    dirty_target: usize,
    /// Posts the DBWR that writes a working set's buffers (None: every DBWR). Unset while no
    /// DBWR runs (opening, after shutdown): then a free-buffer request writes for itself.
    dbwr_wakeup: parking_lot::Mutex<Option<DbwrWakeup>>,
    dbwr_running: AtomicBool,
    /// What touch-count aging and the trace read the time from.
    clock: Arc<dyn AgingClock>,
    /// The lab's recording of block gets (`start_trace`), off unless asked for.
    trace: TraceRecorder,
    /// The instance's `db_file_multiblock_read_count`, for the full scans that run outside a
    /// session's statement (DDL reading a table); a statement's scans use its session's.
    multiblock_read_count: AtomicUsize,
    /// v$db_cache_advice's simulation (`buffer/advice.rs`), OFF until `set_advice`.
    advice: CacheAdvice,
}

/// How the cache posts DBWR: the working set that needs clean buffers, or None for all.
pub type DbwrWakeup = Box<dyn Fn(Option<usize>) + Send + Sync>;

/// A pinned block held in shared mode (a consistent get). Dropping it releases both.
pub struct BlockRead<'a> {
    cache: &'a BufferCache,
    frame: FrameId,
    guard: Option<RwLockReadGuard<'a, Box<[u8]>>>,
}

/// A pinned block held in exclusive mode (a db block get). Only a mini-transaction should
/// hold one for a change; the change is logged when the mini-transaction commits.
pub struct BlockWrite<'a> {
    cache: &'a BufferCache,
    frame: FrameId,
    id: BlockId,
    guard: Option<RwLockWriteGuard<'a, Box<[u8]>>>,
}

impl std::ops::Deref for BlockRead<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.guard.as_ref().unwrap()
    }
}

impl Drop for BlockRead<'_> {
    fn drop(&mut self) {
        self.guard = None;
        self.cache.unpin(self.frame);
    }
}

impl std::ops::Deref for BlockWrite<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.guard.as_ref().unwrap()
    }
}

impl std::ops::DerefMut for BlockWrite<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.guard.as_mut().unwrap()
    }
}

impl BlockWrite<'_> {
    pub fn id(&self) -> BlockId {
        self.id
    }

    /// Whether the buffer holds changes not yet written. A clean buffer stays clean while
    /// held: only the holder's mini-transaction dirties a buffer it holds, and no writer
    /// writes a clean one. A dirty one may turn clean only through the holder image its
    /// holder published (`write_holder_image`): a writer's own copy of a held buffer is not
    /// taken (`try_read` fails), and one taken before leaves the buffer dirty.
    pub fn is_dirty(&self) -> bool {
        self.cache.frames[self.frame].dirty.load(Ordering::Acquire)
    }

    /// Puts the frame on the dirty list before its redo is appended, with `floor` (an LSN no
    /// later than the redo to come) as its first change. Without this a checkpoint could run
    /// between the append and `mark_changed`, miss the buffer, and record a position past
    /// redo whose block is not on disk.
    pub fn mark_dirty_from(&mut self, floor: u64) {
        let frame = &self.cache.frames[self.frame];
        self.cache
            .set_of(self.frame)
            .statistics
            .db_block_changes
            .add(1);
        if !frame.dirty.swap(true, Ordering::AcqRel) {
            frame.first_dirty_lsn.store(floor, Ordering::Release);
            let dirty = self.cache.dirty_count.fetch_add(1, Ordering::Relaxed) + 1;
            if dirty >= self.cache.dirty_target {
                self.cache.wake_dbwr(None);
            }
        }
    }

    /// Makes the frame stop holding back checkpoints below `floor` while its holder waits:
    /// if it was first changed before `floor`, writes `before` (its content as of its last
    /// logged change, which the caller's redo flush has made durable) and records `floor` as
    /// its first change, since the holder's own change is yet to be logged. A mini-transaction
    /// waiting for a log-switch checkpoint calls this for the blocks it holds: DBWR cannot
    /// write a block held exclusively, and the checkpoint would wait for it forever.
    /// `before` is None for a block the holder is formatting anew: its old content is dead
    /// (freed space, or an undo block no active transaction needs), so nothing is written.
    pub fn write_before_image(&mut self, before: Option<&[u8]>, floor: u64) -> Result<bool> {
        let frame = &self.cache.frames[self.frame];
        if !frame.dirty.load(Ordering::Acquire)
            || frame.first_dirty_lsn.load(Ordering::Acquire) >= floor
        {
            return Ok(false);
        }
        let Some(before) = before else {
            frame.first_dirty_lsn.store(floor, Ordering::Release);
            return Ok(false);
        };
        // DBWR may be writing a copy it took before this holder latched the block: wait for
        // that write (one I/O; DBWR cannot take a new copy while the block is latched).
        if frame.writing.swap(true, Ordering::AcqRel) {
            self.cache.count_write_complete_wait(self.frame);
            let _wait = instrumentation::wait(
                WaitEvent::WriteCompleteWaits,
                self.id.file as u64,
                self.id.block as u64,
                0,
            );
            while frame.writing.swap(true, Ordering::AcqRel) {
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        }
        let _claim = WriteClaim(&frame.writing);
        self.cache.write_single(self.id, before)?;
        frame.first_dirty_lsn.store(floor, Ordering::Release);
        Ok(true)
    }

    /// Publishes (Some) or withdraws (None) what DBWR may write for this block while it is
    /// latched here. A mini-transaction publishes when it takes the block and withdraws
    /// before it appends its redo or abandons its change.
    pub fn set_holder_image(&self, image: Option<HolderImage>) {
        let slot = &self.cache.frames[self.frame].holder_image;
        let mut published = match slot.try_lock() {
            Some(published) => published,
            None => {
                // DBWR is writing the published image: Oracle's 'write complete waits'.
                self.cache.count_write_complete_wait(self.frame);
                let _wait = instrumentation::wait(
                    WaitEvent::WriteCompleteWaits,
                    self.id.file as u64,
                    self.id.block as u64,
                    0,
                );
                slot.lock()
            }
        };
        *published = image;
    }

    /// Records that redo at `lsn` describes this block's new content: stamps the LSN and puts
    /// the frame on the dirty list.
    pub fn mark_changed(&mut self, lsn: u64) {
        block::set_lsn(self, lsn);
        self.mark_dirty_from(lsn);
    }
}

impl Drop for BlockWrite<'_> {
    fn drop(&mut self) {
        self.guard = None;
        self.cache.unpin(self.frame);
    }
}

/// Clears a frame's `writing` flag when dropped.
struct WriteClaim<'a>(&'a AtomicBool);

impl Drop for WriteClaim<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// A frame mapped to a block that is being read into it: its content lock held exclusive,
/// pinned once for the reader, not yet valid.
struct MappedFrame<'a> {
    id: BlockId,
    frame: FrameId,
    content: RwLockWriteGuard<'a, Box<[u8]>>,
}

/// The working set (an index among `sets` of a pool) a block's address hashes to: where it
/// is read, and whose advice list simulates it.
fn home_set(id: BlockId, sets: usize) -> usize {
    let hash = id.to_u64().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    (hash % sets as u64) as usize
}

/// One buffer as x$bh shows it.
#[derive(Clone, Debug)]
pub struct BufferHeader {
    pub frame: FrameId,
    pub block: Option<BlockId>,
    pub object_id: u32,
    pub class: &'static str,
    pub dirty: bool,
    pub pinned: bool,
    /// Its working set (an index of [`BufferCache::working_set_rows`]) and that set's pool.
    pub working_set: usize,
    pub pool: BufferPool,
    /// Position in its working set's replacement list, 0 at the MRU end.
    pub lru_position: Option<usize>,
    /// Its neighbours in that list, towards the MRU end and towards the LRU end.
    pub previous_in_list: Option<FrameId>,
    pub next_in_list: Option<FrameId>,
    pub touch_count: u32,
    /// When its last counted touch happened, on the aging clock (seconds).
    pub touch_time: u32,
    pub hot: bool,
    /// A session is reading its block into it.
    pub reading: bool,
    /// Its block was read by a full scan.
    pub scanned: bool,
}

/// One working set as x$kcbwds shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkingSetRow {
    pub set_id: usize,
    pub pool: BufferPool,
    pub first_buffer: FrameId,
    pub last_buffer: FrameId,
    /// Buffers in the set, on its replacement list, in its hot region, on its free list.
    pub buffers: usize,
    pub on_list: usize,
    pub hot: usize,
    pub free: usize,
    /// The policy's name (TOUCH COUNT, LRU, CLOCK).
    pub algorithm: &'static str,
}

impl BufferCache {
    /// A cache laid out as `layout` says (its rules checked by the caller: see
    /// [`CacheLayout::check`]); touch-count aging reads `clock`.
    pub fn new(
        block_size: usize,
        layout: &CacheLayout,
        clock: Arc<dyn AgingClock>,
        files: Arc<FileSet>,
        redo: Arc<dyn RedoFlusher>,
    ) -> BufferCache {
        let frame_count = layout.total_buffers();
        assert!(
            frame_count >= 16,
            "a buffer cache needs at least 16 buffers"
        );
        assert!(
            layout.pool(BufferPool::Default).working_sets > 0,
            "a buffer cache needs a DEFAULT pool"
        );
        let mut sets = Vec::with_capacity(layout.total_working_sets());
        let mut pool_sets: [std::ops::Range<usize>; 3] = [0..0, 0..0, 0..0];
        let mut first = 0;
        for pool in BufferPool::ALL {
            let size = layout.pool(pool);
            let start = sets.len();
            for number in 0..size.working_sets {
                // Equal shares; the first sets take one more when they do not divide.
                let count = size.buffers / size.working_sets
                    + usize::from(number < size.buffers % size.working_sets);
                let policy: Box<dyn ReplacementPolicy> = match layout.algorithm {
                    LruAlgorithm::TouchCount => Box::new(TouchCountPolicy::new(
                        count,
                        layout.aging_of(pool),
                        clock.clone(),
                    )),
                    LruAlgorithm::Lru => Box::new(ClassicLruPolicy::new(count)),
                    LruAlgorithm::Clock => Box::new(ClockPolicy::new(count)),
                };
                sets.push(WorkingSet {
                    pool,
                    first,
                    count,
                    policy,
                    free: parking_lot::Mutex::new((first..first + count).rev().collect()),
                    write_list: parking_lot::Mutex::new(Vec::new()),
                    statistics: SetStatistics::default(),
                });
                first += count;
            }
            pool_sets[pool.index()] = start..sets.len();
        }
        let mut set_of_frame = vec![0u16; frame_count];
        for (index, set) in sets.iter().enumerate() {
            let index = u16::try_from(index).expect("working sets fit in 16 bits");
            set_of_frame[set.first..set.first + set.count].fill(index);
        }
        let frames: Box<[Frame]> = (0..frame_count)
            .map(|_| Frame {
                data: RwLock::new(vec![0u8; block_size].into_boxed_slice()),
                tag: AtomicU64::new(EMPTY_TAG),
                pins: AtomicU32::new(0),
                valid: AtomicBool::new(false),
                orphaned: AtomicBool::new(false),
                read_ahead: AtomicBool::new(false),
                dirty: AtomicBool::new(false),
                writing: AtomicBool::new(false),
                first_dirty_lsn: AtomicU64::new(0),
                scanned: AtomicBool::new(false),
                on_write_list: AtomicBool::new(false),
                holder_image: parking_lot::Mutex::new(None),
            })
            .collect();
        // One 'cache buffers chains' latch per 2 buffers, as a power of two, at most
        // HASH_LATCHES_MAX (Oracle sizes _db_block_hash_latches from the cache size in the
        // same spirit). Every get writes its latch's word and counters: with one latch per 32
        // buffers two sessions reading different blocks kept sharing latches, and their
        // cache lines moved between the CPUs at nearly every get (`lab hitpath`).
        let partition_count = (frame_count / 2)
            .clamp(4, Self::HASH_LATCHES_MAX)
            .next_power_of_two();
        let partitions = (0..partition_count)
            .map(|_| RwLatch::new(LatchName::CacheBuffersChains, FxHashMap::default()))
            .collect();
        let set_buffers = pool_sets
            .clone()
            .map(|range| sets[range].iter().map(|set| set.count).collect());
        // The advice simulates what each pool runs: the touch count in miniature caches, the
        // classic LRU (and CLOCK, which approximates it) in Mattson's stack.
        let algorithms = BufferPool::ALL.map(|pool| match layout.algorithm {
            LruAlgorithm::TouchCount => SimulatedAlgorithm::TouchCount(layout.aging_of(pool)),
            LruAlgorithm::Lru | LruAlgorithm::Clock => SimulatedAlgorithm::Lru,
        });
        let advice = CacheAdvice::new(
            set_buffers,
            algorithms,
            layout.advice_sample_factor,
            clock.clone(),
        );
        BufferCache {
            block_size,
            frames,
            partitions,
            layout: layout.clone(),
            sets: sets.into_boxed_slice(),
            set_of_frame: set_of_frame.into_boxed_slice(),
            pool_sets,
            files,
            redo,
            dirty_count: AtomicUsize::new(0),
            dirty_target: (frame_count / 4).max(8),
            dbwr_wakeup: parking_lot::Mutex::new(None),
            dbwr_running: AtomicBool::new(false),
            clock,
            trace: TraceRecorder::default(),
            multiblock_read_count: AtomicUsize::new(Self::MULTIBLOCK_READ_COUNT_DEFAULT),
            advice,
        }
    }

    /// Starts recording every block get (at most `limit`, see [`TRACE_ACCESSES_MAX`]) with
    /// the pool of the buffer that served it and the aging clock's time, for a what-if
    /// replay.
    ///
    /// [`TRACE_ACCESSES_MAX`]: crate::buffer::trace::TRACE_ACCESSES_MAX
    pub fn start_trace(&self, limit: usize) {
        self.trace.start(limit);
    }

    /// Ends the recording `start_trace` began and returns it.
    pub fn stop_trace(&self) -> BlockTrace {
        self.trace.stop()
    }

    /// Most 'cache buffers chains' latches a cache has (a power of two).
    pub const HASH_LATCHES_MAX: usize = 1 << 16;

    /// `db_file_multiblock_read_count`'s default.
    pub const MULTIBLOCK_READ_COUNT_DEFAULT: usize = 128;

    /// The instance's `db_file_multiblock_read_count` (see the field).
    pub fn multiblock_read_count(&self) -> usize {
        self.multiblock_read_count.load(Ordering::Relaxed)
    }

    /// Sets the instance's `db_file_multiblock_read_count` (at startup, ALTER SYSTEM).
    pub fn set_multiblock_read_count(&self, blocks: usize) {
        self.multiblock_read_count
            .store(blocks.max(1), Ordering::Relaxed);
    }

    /// Turns the cache advice OFF, READY or ON (`db_cache_advice`); turning it ON starts a new
    /// period of v$db_cache_advice.
    pub fn set_advice(&self, mode: AdviceMode) {
        self.advice
            .set_mode(mode, |pool| self.pool_physical_reads(pool));
    }

    pub fn advice_mode(&self) -> AdviceMode {
        self.advice.mode()
    }

    /// v$db_cache_advice: 20 rows per pool, once the advice has been ON.
    pub fn cache_advice(&self) -> Vec<AdviceRow> {
        self.advice.rows(|pool| self.pool_physical_reads(pool))
    }

    pub fn block_size(&self) -> usize {
        self.block_size
    }

    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    pub fn files(&self) -> &Arc<FileSet> {
        &self.files
    }

    pub fn layout(&self) -> &CacheLayout {
        &self.layout
    }

    /// How a full scan of a table of `blocks` blocks in `pool` reads them: into the midpoint
    /// like any read when the table is small (`_small_table_threshold`) or `cached` (the
    /// table's CACHE attribute or the CACHE hint), else at the cold end.
    pub fn scan_access(&self, blocks: usize, pool: BufferPool, cached: bool) -> BlockAccess {
        let kind = if cached || blocks <= self.layout.small_table_blocks {
            AccessKind::Lookup
        } else {
            AccessKind::Scan
        };
        kind.in_pool(pool)
    }

    /// Every working set, in set id order (x$kcbwds, v$buffer_pool).
    pub fn working_set_rows(&self) -> Vec<WorkingSetRow> {
        self.sets
            .iter()
            .enumerate()
            .map(|(set_id, set)| WorkingSetRow {
                set_id,
                pool: set.pool,
                first_buffer: set.first,
                last_buffer: set.first + set.count - 1,
                buffers: set.count,
                on_list: set.policy.positions().len(),
                hot: set.policy.hot_buffers(),
                free: set.free.lock().len(),
                algorithm: set.policy.name(),
            })
            .collect()
    }

    fn set_of(&self, frame: FrameId) -> &WorkingSet {
        &self.sets[usize::from(self.set_of_frame[frame])]
    }

    /// A working set's index in `sets` (its set id).
    fn index_of(&self, set: &WorkingSet) -> usize {
        usize::from(self.set_of_frame[set.first])
    }

    /// The working sets (a range of `sets`) blocks of `pool` are read into: DEFAULT's when
    /// the layout does not configure `pool`.
    fn pool_range(&self, pool: BufferPool) -> std::ops::Range<usize> {
        let range = self.pool_sets[pool.index()].clone();
        if range.is_empty() {
            return self.pool_sets[BufferPool::Default.index()].clone();
        }
        range
    }

    /// The working sets a block of `pool` may be read into, the one its address hashes to
    /// first; a pool the layout does not configure sends its blocks to DEFAULT.
    fn sets_for(&self, id: BlockId, pool: BufferPool) -> impl Iterator<Item = &WorkingSet> {
        let range = self.pool_range(pool);
        let count = range.len();
        let first = home_set(id, count);
        (0..count).map(move |offset| &self.sets[range.start + (first + offset) % count])
    }

    /// Physical reads of a pool's working sets so far.
    fn pool_physical_reads(&self, pool: BufferPool) -> u64 {
        self.sets[self.pool_sets[pool.index()].clone()]
            .iter()
            .map(|set| set.statistics.physical_reads.load(Ordering::Relaxed))
            .sum()
    }

    fn touched(&self, frame: FrameId) {
        let set = self.set_of(frame);
        set.policy.touched(set.local(frame));
    }

    /// A pinned frame's content lock: at once if `try_lock` gets it, else waited for, timed
    /// as 'read by other session' while another session reads the block into the frame and
    /// as 'buffer busy waits' while one holds it in a mode this get cannot share (a change
    /// in progress, or readers when this get is a change). p3 is the block class (1: data
    /// block, the only class the cache tells apart).
    fn content_wait<G>(
        &self,
        id: BlockId,
        frame: FrameId,
        try_lock: impl FnOnce() -> Option<G>,
        lock: impl FnOnce() -> G,
    ) -> G {
        // Read before trying: a read that completes between a failed try and this load
        // would otherwise be taken for a change in progress.
        let valid = self.frames[frame].valid.load(Ordering::Acquire);
        if let Some(guard) = try_lock() {
            return guard;
        }
        let event = if valid {
            WaitEvent::BufferBusyWaits
        } else {
            WaitEvent::ReadByOtherSession
        };
        self.set_of(frame)
            .statistics
            .buffer_busy_waits
            .fetch_add(1, Ordering::Relaxed);
        let _wait = instrumentation::wait(event, id.file as u64, id.block as u64, 1);
        lock()
    }

    /// A get found the block cached in `frame`: a touch, unless it is the first get of a block
    /// a multiblock read brought in (`Frame::read_ahead`).
    fn hit(&self, frame: FrameId) {
        let read_ahead = &self.frames[frame].read_ahead;
        // A relaxed load first: the hit path pays a plain load, not a read-modify-write.
        if !(read_ahead.load(Ordering::Relaxed) && read_ahead.swap(false, Ordering::AcqRel)) {
            self.touched(frame);
        }
    }

    fn count_write_complete_wait(&self, frame: FrameId) {
        self.set_of(frame)
            .statistics
            .write_complete_waits
            .fetch_add(1, Ordering::Relaxed);
    }

    /// v$buffer_pool_statistics: one row per configured pool.
    pub fn pool_statistics(&self) -> Vec<PoolStatistics> {
        let mut rows: Vec<PoolStatistics> = Vec::new();
        for set in self.sets.iter() {
            if rows.last().is_none_or(|row| row.pool != set.pool) {
                rows.push(PoolStatistics {
                    pool: set.pool,
                    ..PoolStatistics::default()
                });
            }
            let row = rows.last_mut().expect("pushed above");
            let statistics = &set.statistics;
            let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
            row.largest_set = row.largest_set.max(set.count);
            row.on_lists += set.policy.positions().len();
            row.on_write_lists += set.write_list.lock().len();
            row.buffers += set.count;
            row.buffers_got += load(&statistics.buffers_got);
            row.buffers_written += load(&statistics.physical_writes);
            row.buffers_inspected += load(&statistics.inspected);
            row.free_buffer_waits += load(&statistics.free_buffer_waits);
            row.write_complete_waits += load(&statistics.write_complete_waits);
            row.buffer_busy_waits += load(&statistics.buffer_busy_waits);
            row.dirty_buffers_inspected += load(&statistics.dirty_inspected);
            row.db_block_changes += statistics.db_block_changes.load();
            row.db_block_gets += statistics.db_block_gets.load();
            row.consistent_gets += statistics.consistent_gets.load();
            row.physical_reads += load(&statistics.physical_reads);
            row.physical_writes += load(&statistics.physical_writes);
        }
        rows
    }

    /// Gives back a frame that holds no block to its working set's free list.
    fn give_back(&self, frame: FrameId) {
        self.set_of(frame).free.lock().push(frame);
    }

    /// Registers how to post DBWR (`None` when it stops).
    pub fn set_dbwr_wakeup(&self, wakeup: Option<DbwrWakeup>) {
        let mut registered = self.dbwr_wakeup.lock();
        self.dbwr_running.store(wakeup.is_some(), Ordering::Release);
        *registered = wakeup;
    }

    /// Posts the DBWR of working set `set` (None: all of them), if one runs.
    fn wake_dbwr(&self, set: Option<usize>) {
        if let Some(wakeup) = self.dbwr_wakeup.lock().as_ref() {
            wakeup(set);
        }
    }

    pub fn working_set_count(&self) -> usize {
        self.sets.len()
    }

    /// DBWR's cleaning of the working sets `owned` picks: first the buffers their
    /// replacement scans put on their write lists, then, `ahead` and while more than the
    /// dirty target are dirty, the oldest changed (checkpoint order) up to `limit` in all.
    /// Returns the buffers written.
    pub(crate) fn clean_sets(
        &self,
        owned: &dyn Fn(usize) -> bool,
        limit: usize,
        ahead: bool,
    ) -> Result<usize> {
        let mut taken: Vec<(FrameId, u64)> = Vec::new();
        for (index, set) in self.sets.iter().enumerate() {
            if !owned(index) {
                continue;
            }
            let mut list = set.write_list.lock();
            for (frame, tag) in list.drain(..) {
                self.frames[frame]
                    .on_write_list
                    .store(false, Ordering::Release);
                taken.push((frame, tag));
            }
        }
        let mut frames: Vec<FrameId> = taken.iter().map(|&(frame, _)| frame).collect();
        if ahead && frames.len() < limit && self.dirty_count() >= self.dirty_target {
            let room = limit - frames.len();
            frames.extend(self.dirty_frames_where(u64::MAX, room, &|frame| {
                owned(usize::from(self.set_of_frame[frame]))
            }));
        }
        frames.sort_unstable();
        frames.dedup();
        let written = self.write_frames(&frames);
        // Back to the replacement list's cold end (Oracle moves written buffers from LRUW to
        // the LRU end), whether the write succeeded or not, if the buffer still holds its
        // block: the partition latch keeps it from being unmapped meanwhile.
        for (frame, tag) in taken {
            if tag == EMPTY_TAG {
                continue;
            }
            let id = BlockId::from_u64(tag);
            let partition = self.partition(id).read();
            if partition.get(&id) == Some(&frame)
                && self.frames[frame].valid.load(Ordering::Acquire)
            {
                let set = self.set_of(frame);
                set.policy.inserted(set.local(frame), AccessKind::Scan);
            }
        }
        written
    }

    pub fn dirty_count(&self) -> usize {
        self.dirty_count.load(Ordering::Relaxed)
    }

    fn partition(&self, id: BlockId) -> &RwLatch<FxHashMap<BlockId, FrameId>> {
        // Fibonacci hashing of the packed address spreads neighbouring blocks over latches.
        let hash = id.to_u64().wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.partitions[(hash >> 32) as usize & (self.partitions.len() - 1)]
    }

    fn unpin(&self, frame: FrameId) {
        let state = &self.frames[frame];
        let previous = state.pins.fetch_sub(1, Ordering::AcqRel);
        debug_assert!(previous > 0, "unpin of an unpinned frame");
        if previous == 1 && state.orphaned.swap(false, Ordering::AcqRel) {
            self.give_back(frame);
        }
    }

    /// Finds a mapped block and pins it, or returns None.
    fn lookup_and_pin(&self, id: BlockId) -> Option<FrameId> {
        let partition = self.partition(id).read();
        let frame = *partition.get(&id)?;
        self.frames[frame].pins.fetch_add(1, Ordering::Acquire);
        Some(frame)
    }

    /// A consistent get: the block in shared mode.
    pub fn read(&self, id: BlockId, access: impl Into<BlockAccess>) -> Result<BlockRead<'_>> {
        // Where a running statement notices a cancel or its time limit (only inside a
        // section the engine armed: `instrumentation::interrupt`).
        instrumentation::interrupt::check()?;
        let access = access.into();
        instrumentation::add(Statistic::ConsistentGets, 1);
        instrumentation::add(Statistic::ConsistentGetsFromCache, 1);
        instrumentation::add(Statistic::SessionLogicalReads, 1);
        loop {
            let frame = self.pin(id, access, false)?;
            let data = &self.frames[frame].data;
            let guard = self.content_wait(id, frame, || data.try_read(), || data.read());
            if self.frames[frame].valid.load(Ordering::Acquire) {
                self.set_of(frame).statistics.consistent_gets.add(1);
                return Ok(BlockRead {
                    cache: self,
                    frame,
                    guard: Some(guard),
                });
            }
            drop(guard);
            self.unpin(frame);
        }
    }

    /// A current-mode get: the block in exclusive mode, for a change.
    pub fn write(&self, id: BlockId, access: impl Into<BlockAccess>) -> Result<BlockWrite<'_>> {
        let access = access.into();
        instrumentation::add(Statistic::DbBlockGets, 1);
        instrumentation::add(Statistic::DbBlockGetsFromCache, 1);
        instrumentation::add(Statistic::SessionLogicalReads, 1);
        loop {
            let frame = self.pin(id, access, false)?;
            let data = &self.frames[frame].data;
            let guard = self.content_wait(id, frame, || data.try_write(), || data.write());
            if self.frames[frame].valid.load(Ordering::Acquire) {
                self.set_of(frame).statistics.db_block_gets.add(1);
                return Ok(BlockWrite {
                    cache: self,
                    frame,
                    id,
                    guard: Some(guard),
                });
            }
            drop(guard);
            self.unpin(frame);
        }
    }

    /// A block that is being formatted for the first time: no disk read, zero content. A
    /// block that is not cached gets a buffer of `pool`, its segment's.
    pub fn new_block(&self, id: BlockId, pool: BufferPool) -> Result<BlockWrite<'_>> {
        instrumentation::add(Statistic::DbBlockGets, 1);
        instrumentation::add(Statistic::SessionLogicalReads, 1);
        loop {
            let frame = self.pin(id, AccessKind::Lookup.in_pool(pool), true)?;
            let mut guard = self.frames[frame].data.write();
            if self.frames[frame].valid.load(Ordering::Acquire) {
                self.set_of(frame).statistics.db_block_gets.add(1);
                guard.fill(0);
                return Ok(BlockWrite {
                    cache: self,
                    frame,
                    id,
                    guard: Some(guard),
                });
            }
            drop(guard);
            self.unpin(frame);
        }
    }

    /// Returns a pinned frame holding `id`, reading it (or zero-filling it when `fresh`).
    fn pin(&self, id: BlockId, access: BlockAccess, fresh: bool) -> Result<FrameId> {
        let frame = self.pin_frame(id, access, fresh)?;
        if self.trace.is_on() {
            // The pool of the buffer that served the get: a block cached before its segment
            // moved to another pool is still served from the old one.
            self.trace.record(TracedAccess {
                pool: self.set_of(frame).pool,
                access: Access {
                    block: id.to_u64(),
                    kind: access.kind,
                    second: self.clock.seconds(),
                },
            });
        }
        if self.advice.is_collecting() {
            // Simulated in the pool that served the get, in the set its address hashes to.
            let pool = self.set_of(frame).pool;
            self.advice
                .record(pool, id.to_u64(), access.kind, !fresh, |sets| {
                    home_set(id, sets)
                });
        }
        Ok(frame)
    }

    fn pin_frame(&self, id: BlockId, access: BlockAccess, fresh: bool) -> Result<FrameId> {
        if let Some(frame) = self.lookup_and_pin(id) {
            self.hit(frame);
            return Ok(frame);
        }
        let frame = self.free_frame(id, access.pool)?;
        let frame_state = &self.frames[frame];
        // Map the frame with its content lock held, so that others who find it wait for the
        // read instead of reading the block a second time.
        let mut content = frame_state.data.write();
        {
            let mut partition = self.partition(id).write();
            if let Some(&existing) = partition.get(&id) {
                self.frames[existing].pins.fetch_add(1, Ordering::Acquire);
                drop(partition);
                drop(content);
                frame_state.pins.store(0, Ordering::Release);
                self.give_back(frame);
                self.hit(existing);
                return Ok(existing);
            }
            frame_state.tag.store(id.to_u64(), Ordering::Release);
            frame_state.valid.store(false, Ordering::Release);
            frame_state.read_ahead.store(false, Ordering::Release);
            partition.insert(id, frame);
        }
        let outcome = if fresh {
            content.fill(0);
            Ok(())
        } else {
            self.files.read_block(id, &mut content)
        };
        let mapped = MappedFrame { id, frame, content };
        match outcome {
            Ok(()) => {
                self.loaded(mapped, access, !fresh, false);
                Ok(frame)
            }
            Err(error) => {
                self.abandon_read(mapped);
                Err(error)
            }
        }
    }

    /// A frame mapped for `id` whose read succeeded: valid from now on, with its content lock
    /// released (waiters go on), counted in its working set (a buffer got, and a physical
    /// read when `physical`), and in its policy's list as `access` places it. It stays
    /// pinned for the caller. `read_ahead`: the block was read ahead of its first get.
    fn loaded(
        &self,
        mapped: MappedFrame<'_>,
        access: BlockAccess,
        physical: bool,
        read_ahead: bool,
    ) {
        let MappedFrame { frame, content, .. } = mapped;
        let state = &self.frames[frame];
        state.read_ahead.store(read_ahead, Ordering::Release);
        state.valid.store(true, Ordering::Release);
        drop(content);
        let set = self.set_of(frame);
        set.statistics.buffers_got.fetch_add(1, Ordering::Relaxed);
        if physical {
            set.statistics
                .physical_reads
                .fetch_add(1, Ordering::Relaxed);
        }
        state
            .scanned
            .store(access.kind == AccessKind::Scan, Ordering::Relaxed);
        set.policy.inserted(set.local(frame), access.kind);
    }

    /// A frame mapped for a block whose read failed: unmapped, and its caller's pin dropped.
    /// Waiters see it invalid and retry (and fail likewise). They pinned it through the hash:
    /// the last pin dropped, this one or theirs, gives the frame back (`unpin`), so that no
    /// one is left holding a pin on a frame handed out again.
    fn abandon_read(&self, mapped: MappedFrame<'_>) {
        let MappedFrame { id, frame, content } = mapped;
        let state = &self.frames[frame];
        self.partition(id).write().remove(&id);
        state.tag.store(EMPTY_TAG, Ordering::Release);
        state.orphaned.store(true, Ordering::Release);
        drop(content);
        self.unpin(frame);
    }

    /// The most blocks one multiblock read takes into `pool`: a quarter of the pool's
    /// smallest working set, at least one. A run's buffers stay pinned until its one I/O
    /// ends, so a longer run could pin a small pool whole (a 50-buffer RECYCLE pool under
    /// `db_file_multiblock_read_count = 128`) and leave its other users, or the run itself,
    /// waiting for a free buffer.
    pub fn read_run_blocks_max(&self, pool: BufferPool) -> usize {
        let smallest = self.sets[self.pool_range(pool)]
            .iter()
            .map(|set| set.count)
            .min()
            .unwrap_or(0);
        (smallest / 4).max(1)
    }

    /// Reads into the cache, for a full scan, the blocks of `window` that are not cached:
    /// `window` is consecutive blocks of one file (a scan's next `db_file_multiblock_read_count`
    /// blocks of one extent). Each run of uncached blocks is read with one I/O
    /// (`FileSet::read_blocks`: 'db file scattered read', or 'db file sequential read' for a
    /// run of one). A cached block ends a run and the next run starts after it, as Oracle
    /// reads around cached blocks: no cached block is read again. A run is at most
    /// [`Self::read_run_blocks_max`] blocks, and its blocks after the first take only buffers
    /// that are free without waiting: a run never holds buffers while it waits for more.
    ///
    /// The blocks read enter the cache as `access` places them (the scan's: the cold end for
    /// a large NOCACHE table, else the midpoint), each counted in its working set's physical
    /// reads like a single read. The scan then gets each with `read`: a hit, and not a touch
    /// (`Frame::read_ahead`). Blocks another session maps meanwhile are left to it (`pin`'s
    /// race, seen from this side).
    ///
    /// Fails when an I/O fails (ORA-01115, as a single read would), leaving no buffer mapped
    /// to a block it did not read. A block that fails its checks is left out of the cache,
    /// and the run goes on: the scan's own get reads it alone and reports ORA-01578 where the
    /// scan meets it, as before multiblock reads. Returns the blocks read into the cache.
    pub fn prefetch(&self, window: &[BlockId], access: impl Into<BlockAccess>) -> Result<usize> {
        let access = access.into();
        assert!(
            window
                .windows(2)
                .all(|pair| pair[1].file == pair[0].file && pair[1].block == pair[0].block + 1),
            "a multiblock read of blocks that do not follow each other: {window:?}"
        );
        let run_max = self.read_run_blocks_max(access.pool);
        let mut run: Vec<MappedFrame<'_>> = Vec::with_capacity(run_max.min(window.len()));
        let mut position = 0;
        let mut blocks_read = 0;
        while position < window.len() {
            for &id in &window[position..] {
                if run.len() == run_max {
                    break;
                }
                // Only a run's first block may wait for a buffer: it holds none yet.
                match self.map_for_read(id, access.pool, run.is_empty()) {
                    Ok(Some(mapped)) => run.push(mapped),
                    Ok(None) => break,
                    Err(error) => {
                        for mapped in run.drain(..) {
                            self.abandon_read(mapped);
                        }
                        return Err(error);
                    }
                }
            }
            if run.is_empty() {
                position += 1; // cached: read around it
                continue;
            }
            let count = run.len();
            blocks_read += self.read_run(window[position], &mut run, access)?;
            position += count;
        }
        Ok(blocks_read)
    }

    /// Maps a free frame of `pool` to `id` for a read, its content lock held exclusive (as
    /// `pin` does, so that others who find it wait for the read). None when `id` is cached
    /// (or another session maps it first), or when `wait` is false and no buffer is free now.
    fn map_for_read(
        &self,
        id: BlockId,
        pool: BufferPool,
        wait: bool,
    ) -> Result<Option<MappedFrame<'_>>> {
        if self.partition(id).read().contains_key(&id) {
            return Ok(None);
        }
        let frame = if wait {
            self.free_frame(id, pool)?
        } else {
            match self.free_frame_without_waiting(id, pool)? {
                Some(frame) => frame,
                None => return Ok(None),
            }
        };
        let state = &self.frames[frame];
        let content = state.data.write();
        let mut partition = self.partition(id).write();
        if partition.contains_key(&id) {
            drop(partition);
            drop(content);
            state.pins.store(0, Ordering::Release);
            self.give_back(frame);
            return Ok(None);
        }
        state.tag.store(id.to_u64(), Ordering::Release);
        state.valid.store(false, Ordering::Release);
        state.read_ahead.store(false, Ordering::Release);
        partition.insert(id, frame);
        drop(partition);
        Ok(Some(MappedFrame { id, frame, content }))
    }

    /// Reads the frames of `run` (mapped to consecutive blocks from `first`) with one I/O and
    /// settles each: loaded, or abandoned when its block fails its checks. On an I/O error
    /// every frame is abandoned. Empties `run`; returns the blocks loaded.
    fn read_run(
        &self,
        first: BlockId,
        run: &mut Vec<MappedFrame<'_>>,
        access: BlockAccess,
    ) -> Result<usize> {
        let verdicts = {
            let mut buffers: Vec<&mut [u8]> = run
                .iter_mut()
                .map(|mapped| &mut mapped.content[..])
                .collect();
            self.files.read_blocks(first, &mut buffers)
        };
        let verdicts = match verdicts {
            Ok(verdicts) => verdicts,
            Err(error) => {
                for mapped in run.drain(..) {
                    self.abandon_read(mapped);
                }
                return Err(error);
            }
        };
        let mut loaded = 0;
        for (mapped, verdict) in run.drain(..).zip(verdicts) {
            if verdict.is_ok() {
                let frame = mapped.frame;
                self.loaded(mapped, access, true, true);
                self.unpin(frame);
                loaded += 1;
            } else {
                self.abandon_read(mapped);
            }
        }
        Ok(loaded)
    }

    /// How many replacement scans a free-buffer request makes, a millisecond apart, before it
    /// gives up with ORA-00379.
    const FREE_BUFFER_ROUNDS_MAX: usize = 2000;
    /// Rounds (a millisecond or more each) a free-buffer request waits for DBWR before it
    /// writes dirty buffers itself: a safety valve (Oracle's server processes always wait),
    /// so that a slow or stuck DBWR delays requests but cannot make them fail.
    const FREE_BUFFER_SELF_WRITE_ROUNDS: usize = 1000;

    /// A frame of `pool` with no block, pinned once for the caller, for block `id`: from the
    /// free list of the working set the block hashes to, else evicted from it, else from the
    /// pool's other sets.
    fn free_frame(&self, id: BlockId, pool: BufferPool) -> Result<FrameId> {
        if let Some(frame) = self.free_frame_without_waiting(id, pool)? {
            return Ok(frame);
        }
        for round in 0..Self::FREE_BUFFER_ROUNDS_MAX {
            let write_dirty = !self.dbwr_running.load(Ordering::Acquire)
                || round >= Self::FREE_BUFFER_SELF_WRITE_ROUNDS;
            if write_dirty {
                // No DBWR to do it (or it is too slow): write what the scans put on the
                // write lists, and the dirty buffers the scan meets, before waiting.
                for set in self.sets_for(id, pool) {
                    let index = self.index_of(set);
                    self.clean_sets(&|other| other == index, Self::LARGE_DIRTY_QUEUE, false)?;
                }
                for set in self.sets_for(id, pool) {
                    if let Some(frame) = self.evict_one(set, true)? {
                        return Ok(frame);
                    }
                }
            }
            // Every buffer is pinned, dirty (on its write list now), being written, or
            // latched by a change in progress: post the pool's writers and wait for them and
            // for the changes to finish, then look again.
            for set in self.sets_for(id, pool) {
                self.wake_dbwr(Some(self.index_of(set)));
            }
            if let Some(set) = self.sets_for(id, pool).next() {
                set.statistics
                    .free_buffer_waits
                    .fetch_add(1, Ordering::Relaxed);
            }
            let _wait = instrumentation::wait(WaitEvent::FreeBufferWaits, round as u64, 0, 0);
            std::thread::sleep(std::time::Duration::from_millis(1));
            if let Some(frame) = self.sets_for(id, pool).find_map(|set| self.pop_free(set)) {
                return Ok(frame);
            }
            if !write_dirty {
                for set in self.sets_for(id, pool) {
                    if let Some(frame) = self.evict_one(set, false)? {
                        return Ok(frame);
                    }
                }
            }
        }
        let pool = self.sets_for(id, pool).next().map_or(pool, |set| set.pool);
        let buffers = self.layout.pool(pool).buffers;
        Err(Error::new(
            379,
            format!(
                "no free buffers available in buffer pool {} for block size {}K: all {buffers} buffers are pinned",
                pool.name(),
                self.block_size() / 1024,
            ),
        ))
    }

    /// `free_frame` without the wait: a frame from a free list, else one pass of the
    /// replacement scan over the pool's working sets; None when neither gives one now.
    fn free_frame_without_waiting(&self, id: BlockId, pool: BufferPool) -> Result<Option<FrameId>> {
        if let Some(frame) = self.sets_for(id, pool).find_map(|set| self.pop_free(set)) {
            return Ok(Some(frame));
        }
        instrumentation::add(Statistic::FreeBufferRequested, 1);
        let write_dirty = !self.dbwr_running.load(Ordering::Acquire);
        for set in self.sets_for(id, pool) {
            if let Some(frame) = self.evict_one(set, write_dirty)? {
                return Ok(Some(frame));
            }
        }
        Ok(None)
    }

    /// A frame from a working set's free list, pinned once for the caller.
    fn pop_free(&self, set: &WorkingSet) -> Option<FrameId> {
        let frame = set.free.lock().pop()?;
        self.frames[frame].pins.store(1, Ordering::Release);
        Some(frame)
    }

    /// Writes `image` of block `id` on its own, sealed, after the redo it needs (the write-
    /// ahead rule): a before image written for a block its holder keeps latched.
    fn write_single(&self, id: BlockId, image: &[u8]) -> Result<()> {
        let mut sealed: Box<[u8]> = image.into();
        self.redo.flush_record(block::lsn(&sealed))?;
        block::seal(&mut sealed);
        self.files.write_blocks(&[(id, &sealed[..])])
    }

    /// Dirty buffers one replacement scan puts on its write list before it stops and posts
    /// DBWR (Oracle's `_db_large_dirty_queue`).
    const LARGE_DIRTY_QUEUE: usize = 25;

    /// One pass of the replacement scan: a frame evicted and pinned for the caller, or None
    /// when no buffer could be freed this time. A dirty buffer it meets goes on the set's
    /// write list for DBWR, or is written here when `write_dirty` (no DBWR runs, or the
    /// request has waited long enough).
    fn evict_one(&self, set: &WorkingSet, write_dirty: bool) -> Result<Option<FrameId>> {
        let attempts_max = set.count * 4;
        let mut dirty_met = 0;
        // Whether the last candidate is still on the list, refused (the policies move a
        // refused candidate aside when asked again with an attempt above 0).
        let mut refused = false;
        for attempt in 0..attempts_max {
            let Some(local) = set
                .policy
                .next_victim(if refused { attempt.max(1) } else { 0 })
            else {
                break;
            };
            refused = true;
            let frame = set.first + local;
            instrumentation::add(Statistic::FreeBufferInspected, 1);
            set.statistics.inspected.fetch_add(1, Ordering::Relaxed);
            let state = &self.frames[frame];
            if state.pins.load(Ordering::Acquire) > 0 {
                continue;
            }
            if state.dirty.load(Ordering::Acquire) {
                instrumentation::add(Statistic::DirtyBuffersInspected, 1);
                set.statistics
                    .dirty_inspected
                    .fetch_add(1, Ordering::Relaxed);
                if !write_dirty {
                    // Off the replacement list, onto the write list, for DBWR.
                    if !state.on_write_list.swap(true, Ordering::AcqRel) {
                        set.policy.removed(local);
                        refused = false;
                        let tag = state.tag.load(Ordering::Acquire);
                        set.write_list.lock().push((frame, tag));
                    }
                    dirty_met += 1;
                    if dirty_met >= Self::LARGE_DIRTY_QUEUE {
                        break;
                    }
                    continue;
                }
                self.write_frames(&[frame])?;
                if state.dirty.load(Ordering::Acquire) {
                    continue;
                }
            }
            let tag = state.tag.load(Ordering::Acquire);
            if tag == EMPTY_TAG {
                continue;
            }
            let id = BlockId::from_u64(tag);
            let mut partition = self.partition(id).write();
            if partition.get(&id) != Some(&frame)
                || state.pins.load(Ordering::Acquire) > 0
                || state.dirty.load(Ordering::Acquire)
            {
                continue;
            }
            partition.remove(&id);
            state.tag.store(EMPTY_TAG, Ordering::Release);
            state.pins.store(1, Ordering::Release);
            drop(partition);
            set.policy.removed(local);
            if dirty_met > 0 {
                self.wake_dbwr(Some(self.index_of(set)));
            }
            return Ok(Some(frame));
        }
        if dirty_met > 0 {
            self.wake_dbwr(Some(self.index_of(set)));
        }
        Ok(None)
    }

    /// Writes the given frames if dirty (write-ahead rule first) and marks them clean unless
    /// they changed while being written. Used by DBWR, checkpoints and free-buffer requests.
    pub(crate) fn write_frames(&self, frames: &[FrameId]) -> Result<usize> {
        let mut written_for_holders = 0;
        let mut images: Vec<(FrameId, BlockId, Box<[u8]>, u64)> = Vec::with_capacity(frames.len());
        let mut highest_lsn = 0;
        // Released (writing flags cleared) when this function returns, on every path.
        let mut claims = Vec::with_capacity(frames.len());
        for &frame in frames {
            let state = &self.frames[frame];
            if !state.dirty.load(Ordering::Acquire) {
                continue;
            }
            if state.writing.swap(true, Ordering::AcqRel) {
                continue; // another session is writing this buffer
            }
            let claimed = WriteClaim(&state.writing);
            // Never wait for a buffer's latch here: its holder may be waiting for something
            // this thread holds (a free-buffer request runs inside a mini-transaction) or for
            // this very checkpoint. A block latched by a mini-transaction still making its
            // change is written as it was before the change; any other busy buffer is left
            // dirty for the next round.
            let Some(content) = state.data.try_read() else {
                if self.write_holder_image(frame)? {
                    written_for_holders += 1;
                }
                continue;
            };
            let tag = state.tag.load(Ordering::Acquire);
            if tag == EMPTY_TAG
                || !state.valid.load(Ordering::Acquire)
                || !state.dirty.load(Ordering::Acquire)
            {
                continue;
            }
            claims.push(claimed);
            let mut image = content.clone();
            drop(content);
            let lsn = block::lsn(&image);
            block::seal(&mut image);
            highest_lsn = highest_lsn.max(lsn);
            images.push((frame, BlockId::from_u64(tag), image, lsn));
        }
        if images.is_empty() {
            return Ok(written_for_holders);
        }
        self.redo.flush_record(highest_lsn)?;
        let batch: Vec<(BlockId, &[u8])> = images
            .iter()
            .map(|(_, id, image, _)| (*id, &image[..]))
            .collect();
        self.files.write_blocks(&batch)?;
        for (frame, id, _, written_lsn) in &images {
            self.set_of(*frame)
                .statistics
                .physical_writes
                .fetch_add(1, Ordering::Relaxed);
            let state = &self.frames[*frame];
            let Some(content) = state.data.try_read() else {
                continue; // busy: stays dirty, written again later
            };
            if state.tag.load(Ordering::Acquire) != id.to_u64() {
                continue;
            }
            if block::lsn(&content) == *written_lsn {
                if state.dirty.swap(false, Ordering::AcqRel) {
                    state.first_dirty_lsn.store(0, Ordering::Release);
                    self.dirty_count.fetch_sub(1, Ordering::Relaxed);
                }
            } else {
                // Changed while being written: what is on disk now holds every change up to
                // the record at `written_lsn`. The checkpoint may move up to that record but
                // not past it: a checkpoint position must be a record boundary, because
                // recovery starts parsing redo there (replaying that one record again is
                // harmless: the block's LSN shows it is already applied).
                state
                    .first_dirty_lsn
                    .fetch_max(*written_lsn, Ordering::AcqRel);
            }
        }
        Ok(images.len() + written_for_holders)
    }

    /// For a frame latched by a mini-transaction that published its before image: writes that
    /// image and marks the frame clean (the holder's commit dirties it again from its own
    /// redo on). The holder cannot withdraw the image meanwhile: both hold `holder_image`.
    /// Returns whether the frame became clean.
    fn write_holder_image(&self, frame: FrameId) -> Result<bool> {
        let state = &self.frames[frame];
        let published = state.holder_image.lock();
        let Some(image) = published.as_ref() else {
            return Ok(false);
        };
        let tag = state.tag.load(Ordering::Acquire);
        if tag == EMPTY_TAG || !state.dirty.load(Ordering::Acquire) {
            return Ok(false);
        }
        if let HolderImage::Before(before) = image {
            self.write_single(BlockId::from_u64(tag), before)?;
        }
        if state.dirty.swap(false, Ordering::AcqRel) {
            state.first_dirty_lsn.store(0, Ordering::Release);
            self.dirty_count.fetch_sub(1, Ordering::Relaxed);
        }
        Ok(true)
    }

    /// Dirty frames in checkpoint-queue order (oldest first change first), up to `limit`.
    pub(crate) fn dirty_frames(&self, up_to_lsn: u64, limit: usize) -> Vec<FrameId> {
        self.dirty_frames_where(up_to_lsn, limit, &|_| true)
    }

    /// `dirty_frames` among the frames `wanted` picks.
    fn dirty_frames_where(
        &self,
        up_to_lsn: u64,
        limit: usize,
        wanted: &dyn Fn(FrameId) -> bool,
    ) -> Vec<FrameId> {
        let mut dirty: Vec<(u64, FrameId)> = self
            .frames
            .iter()
            .enumerate()
            .filter(|(index, frame)| frame.dirty.load(Ordering::Acquire) && wanted(*index))
            .map(|(index, frame)| (frame.first_dirty_lsn.load(Ordering::Acquire), index))
            .filter(|(lsn, _)| *lsn <= up_to_lsn)
            .collect();
        dirty.sort_unstable();
        dirty
            .into_iter()
            .take(limit)
            .map(|(_, frame)| frame)
            .collect()
    }

    /// Writes every buffer changed at or before `lsn` (a checkpoint's work). Returns buffers
    /// written.
    pub fn write_dirty_up_to(&self, lsn: u64) -> Result<usize> {
        let mut written = 0;
        loop {
            let frames = self.dirty_frames(lsn, crate::io::datafile::DOUBLE_WRITE_BATCH_BLOCKS_MAX);
            if frames.is_empty() {
                return Ok(written);
            }
            let round = self.write_frames(&frames)?;
            if round == 0 {
                // Every one is latched by a change in progress: let it finish.
                let _wait = instrumentation::wait(WaitEvent::WriteCompleteWaits, 0, 0, 0);
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            written += round;
        }
    }

    /// The oldest first-change LSN among dirty buffers (the checkpoint position), if any.
    pub fn oldest_dirty_lsn(&self) -> Option<u64> {
        self.frames
            .iter()
            .filter(|frame| frame.dirty.load(Ordering::Acquire))
            .map(|frame| frame.first_dirty_lsn.load(Ordering::Acquire))
            .min()
    }

    /// Drops every clean, unpinned buffer (ALTER SYSTEM FLUSH BUFFER_CACHE writes dirty ones
    /// first). Returns the number dropped.
    pub fn flush(&self) -> Result<usize> {
        self.write_dirty_up_to(u64::MAX)?;
        // The advice's lists are caches too: a rerun at another size would be flushed alike.
        self.advice.flush();
        let mut dropped = 0;
        for (index, state) in self.frames.iter().enumerate() {
            let tag = state.tag.load(Ordering::Acquire);
            if tag == EMPTY_TAG {
                continue;
            }
            let id = BlockId::from_u64(tag);
            let mut partition = self.partition(id).write();
            if partition.get(&id) == Some(&index)
                && state.pins.load(Ordering::Acquire) == 0
                && !state.dirty.load(Ordering::Acquire)
            {
                partition.remove(&id);
                state.tag.store(EMPTY_TAG, Ordering::Release);
                drop(partition);
                let set = self.set_of(index);
                set.policy.removed(set.local(index));
                // Off its write list too: a freed frame is on no list but the free list.
                if state.on_write_list.load(Ordering::Acquire) {
                    set.write_list.lock().retain(|&(frame, _)| frame != index);
                    state.on_write_list.store(false, Ordering::Release);
                }
                set.free.lock().push(index);
                dropped += 1;
            }
        }
        Ok(dropped)
    }

    /// One row per buffer, for x$bh / v$bh.
    pub fn buffer_headers(&self) -> Vec<BufferHeader> {
        // Per frame: its position in its set's list, and the frames before and after it.
        let mut places: HashMap<FrameId, (usize, Option<FrameId>, Option<FrameId>)> =
            HashMap::new();
        for set in self.sets.iter() {
            let mut listed = set.policy.positions();
            listed.sort_unstable_by_key(|&(_, position)| position);
            for (index, &(local, position)) in listed.iter().enumerate() {
                let neighbour = |at: Option<usize>| {
                    at.and_then(|at| listed.get(at))
                        .map(|&(local, _)| set.first + local)
                };
                places.insert(
                    set.first + local,
                    (
                        position,
                        neighbour(index.checked_sub(1)),
                        neighbour(Some(index + 1)),
                    ),
                );
            }
        }
        self.frames
            .iter()
            .enumerate()
            .map(|(index, state)| {
                let tag = state.tag.load(Ordering::Acquire);
                let block = (tag != EMPTY_TAG).then(|| BlockId::from_u64(tag));
                let (object_id, class) = match (block, state.data.try_read()) {
                    (Some(_), Some(content)) => (
                        block::object_id(&content),
                        block::block_type(&content).class_name(),
                    ),
                    (Some(_), None) => (0, "data block"),
                    (None, _) => (0, "free"),
                };
                let working_set = usize::from(self.set_of_frame[index]);
                let set = &self.sets[working_set];
                let place = places.get(&index).copied();
                BufferHeader {
                    frame: index,
                    block,
                    object_id,
                    class,
                    dirty: state.dirty.load(Ordering::Relaxed),
                    pinned: state.pins.load(Ordering::Relaxed) > 0,
                    working_set,
                    pool: set.pool,
                    lru_position: place.map(|place| place.0),
                    previous_in_list: place.and_then(|place| place.1),
                    next_in_list: place.and_then(|place| place.2),
                    touch_count: set.policy.touch_count(set.local(index)),
                    touch_time: set.policy.touch_time(set.local(index)),
                    hot: set.policy.is_hot(set.local(index)),
                    reading: block.is_some() && !state.valid.load(Ordering::Acquire),
                    scanned: block.is_some() && state.scanned.load(Ordering::Relaxed),
                }
            })
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! Multiblock reads (`prefetch`) against a simulated disk: what one read takes, what a
    //! cached block, a small pool, a failed I/O and a corrupt block do to it.

    use std::path::Path;

    use super::*;
    use crate::buffer::pools::PoolSize;
    use crate::buffer::VirtualClock;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType};
    use crate::io::block::BlockType;
    use crate::io::datafile::SYSTEM_FILE;
    use crate::io::vfs::{SimVfs, Vfs};

    const BLOCK_SIZE: usize = 2048;
    /// The first block the tests write: past the space bitmap, as a segment's would be.
    const FIRST: u32 = 100;

    /// Nothing in these tests is changed, so nothing waits for redo.
    struct NoRedo;

    impl RedoFlusher for NoRedo {
        fn flush_record(&self, _lsn: u64) -> Result<()> {
            Ok(())
        }
    }

    /// A cache laid out as `layout` over a simulated disk holding `blocks` sealed heap blocks
    /// from `FIRST` on.
    pub(crate) fn cache_over(vfs: &SimVfs, layout: &CacheLayout, blocks: u32) -> BufferCache {
        let dir = Path::new("/db");
        vfs.create_dir_all(dir).unwrap();
        let files = Arc::new(FileSet::open(vfs, dir, BLOCK_SIZE).unwrap());
        let images: Vec<(BlockId, Vec<u8>)> = (FIRST..FIRST + blocks)
            .map(|number| {
                let id = BlockId::new(SYSTEM_FILE, number);
                let mut image = vec![0u8; BLOCK_SIZE];
                block::format(&mut image, id, BlockType::HeapData, 7);
                block::seal(&mut image);
                (id, image)
            })
            .collect();
        let batch: Vec<(BlockId, &[u8])> =
            images.iter().map(|(id, image)| (*id, &image[..])).collect();
        files.write_blocks(&batch).unwrap();
        BufferCache::new(
            BLOCK_SIZE,
            layout,
            Arc::new(VirtualClock::default()),
            files,
            Arc::new(NoRedo),
        )
    }

    fn ids(from: u32, count: u32) -> Vec<BlockId> {
        (from..from + count)
            .map(|number| BlockId::new(SYSTEM_FILE, number))
            .collect()
    }

    fn session() -> Arc<SessionInstrumentation> {
        SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap()
    }

    /// The blocks the cache holds, in block order.
    fn cached(cache: &BufferCache) -> Vec<u32> {
        let mut blocks: Vec<u32> = cache
            .buffer_headers()
            .iter()
            .filter_map(|header| header.block.map(|id| id.block))
            .collect();
        blocks.sort_unstable();
        blocks
    }

    /// Every buffer either holds a block or is on its free list, none pinned: nothing leaked.
    fn assert_consistent(cache: &BufferCache) {
        let headers = cache.buffer_headers();
        assert!(
            headers.iter().all(|header| !header.pinned),
            "a buffer left pinned"
        );
        let holding = headers
            .iter()
            .filter(|header| header.block.is_some())
            .count();
        let free: usize = cache.working_set_rows().iter().map(|row| row.free).sum();
        assert_eq!(
            holding + free,
            cache.frame_count(),
            "buffers lost or doubled"
        );
    }

    #[test]
    fn a_window_of_uncached_blocks_is_one_scattered_read() {
        let vfs = SimVfs::new(1);
        let cache = cache_over(&vfs, &CacheLayout::single(200), 8);
        let session = session();
        let _entered = enter(&session);
        assert_eq!(cache.prefetch(&ids(FIRST, 8), AccessKind::Scan).unwrap(), 8);
        let scattered = session.event_totals(WaitEvent::DbFileScatteredRead);
        assert_eq!(scattered.total_waits, 1);
        let current = session.record().current_wait.read();
        assert_eq!(
            (current.p1, current.p2, current.p3),
            (SYSTEM_FILE as u64, FIRST as u64, 8)
        );
        assert_eq!(session.statistic(Statistic::PhysicalReads), 8);
        assert_eq!(session.statistic(Statistic::PhysicalReadIoRequests), 1);
        assert_eq!(
            session.statistic(Statistic::PhysicalReadTotalMultiBlockRequests),
            1
        );
        assert_eq!(session.statistic(Statistic::PhysicalReadsCachePrefetch), 7);
        // The scan's gets find every block, and read nothing more.
        for id in ids(FIRST, 8) {
            let data = cache.read(id, AccessKind::Scan).unwrap();
            assert_eq!(block::block_type(&data), BlockType::HeapData);
        }
        assert_eq!(session.statistic(Statistic::PhysicalReads), 8);
        let pool = &cache.pool_statistics()[0];
        assert_eq!((pool.physical_reads, pool.buffers_got), (8, 8));
        assert_eq!(cached(&cache), (FIRST..FIRST + 8).collect::<Vec<_>>());
        assert_consistent(&cache);
    }

    #[test]
    fn cached_blocks_split_a_window_and_are_not_read_again() {
        let vfs = SimVfs::new(2);
        let cache = cache_over(&vfs, &CacheLayout::single(200), 8);
        let session = session();
        let _entered = enter(&session);
        drop(
            cache
                .read(BlockId::new(SYSTEM_FILE, FIRST + 3), AccessKind::Lookup)
                .unwrap(),
        );
        assert_eq!(cache.prefetch(&ids(FIRST, 8), AccessKind::Scan).unwrap(), 7);
        // [100 101 102] (103) [104 105 106 107]: two multiblock reads around the cached block.
        assert_eq!(
            session
                .event_totals(WaitEvent::DbFileScatteredRead)
                .total_waits,
            2
        );
        assert_eq!(
            session
                .event_totals(WaitEvent::DbFileSequentialRead)
                .total_waits,
            1,
            "only the block read before"
        );
        assert_eq!(session.statistic(Statistic::PhysicalReads), 8);
        assert_eq!(session.statistic(Statistic::PhysicalReadIoRequests), 3);
        // A window wholly cached reads nothing.
        assert_eq!(cache.prefetch(&ids(FIRST, 8), AccessKind::Scan).unwrap(), 0);
        assert_eq!(session.statistic(Statistic::PhysicalReads), 8);
        assert_consistent(&cache);
    }

    #[test]
    fn a_run_of_one_block_is_a_sequential_read() {
        let vfs = SimVfs::new(3);
        let cache = cache_over(&vfs, &CacheLayout::single(200), 4);
        let session = session();
        let _entered = enter(&session);
        for number in [FIRST + 1, FIRST + 3] {
            drop(
                cache
                    .read(BlockId::new(SYSTEM_FILE, number), AccessKind::Lookup)
                    .unwrap(),
            );
        }
        assert_eq!(cache.prefetch(&ids(FIRST, 4), AccessKind::Scan).unwrap(), 2);
        assert_eq!(
            session
                .event_totals(WaitEvent::DbFileScatteredRead)
                .total_waits,
            0
        );
        assert_eq!(
            session
                .event_totals(WaitEvent::DbFileSequentialRead)
                .total_waits,
            4
        );
        assert_eq!(session.statistic(Statistic::PhysicalReadsCachePrefetch), 0);
    }

    /// A 50-buffer RECYCLE pool under a 128-block window: runs of at most 12 blocks (a
    /// quarter of its one working set), every block read once, nothing left pinned, and the
    /// DEFAULT pool untouched.
    #[test]
    fn runs_in_a_small_pool_are_capped_at_a_quarter_of_its_working_set() {
        let vfs = SimVfs::new(4);
        let layout = CacheLayout::oracle8(
            250,
            2,
            PoolSize::default(),
            PoolSize {
                buffers: 50,
                working_sets: 1,
            },
        )
        .unwrap();
        let cache = cache_over(&vfs, &layout, 128);
        assert_eq!(cache.read_run_blocks_max(BufferPool::Recycle), 12);
        assert_eq!(cache.read_run_blocks_max(BufferPool::Default), 50);
        let session = session();
        let _entered = enter(&session);
        let read = cache
            .prefetch(
                &ids(FIRST, 128),
                AccessKind::Scan.in_pool(BufferPool::Recycle),
            )
            .unwrap();
        assert_eq!(read, 128);
        assert_eq!(session.statistic(Statistic::PhysicalReads), 128);
        // 128 = 10 x 12 + 8: eleven reads.
        assert_eq!(session.statistic(Statistic::PhysicalReadIoRequests), 11);
        let pools = cache.pool_statistics();
        let recycle = pools
            .iter()
            .find(|row| row.pool == BufferPool::Recycle)
            .unwrap();
        assert_eq!(recycle.physical_reads, 128);
        let default = pools
            .iter()
            .find(|row| row.pool == BufferPool::Default)
            .unwrap();
        assert_eq!(default.physical_reads, 0);
        assert_eq!(
            cached(&cache).len(),
            50,
            "the pool holds the last 50 blocks"
        );
        assert_consistent(&cache);
    }

    /// An I/O error fails the read with ORA-01115 and leaves no buffer mapped to a block it
    /// did not read, so that the same read works once the disk does.
    #[test]
    fn a_failed_multiblock_read_leaves_no_buffer_behind() {
        let vfs = SimVfs::new(5);
        let cache = cache_over(&vfs, &CacheLayout::single(200), 16);
        drop(
            cache
                .read(BlockId::new(SYSTEM_FILE, FIRST + 4), AccessKind::Lookup)
                .unwrap(),
        );
        vfs.fail_io_after(1);
        let error = cache
            .prefetch(&ids(FIRST, 16), AccessKind::Scan)
            .unwrap_err();
        assert_eq!(error.code(), 1115, "{error}");
        assert_eq!(cached(&cache), vec![FIRST + 4]);
        assert_consistent(&cache);
        // A get of a block the failed read had mapped reads it again, and fails alike.
        assert_eq!(
            cache
                .read(BlockId::new(SYSTEM_FILE, FIRST), AccessKind::Scan)
                .err()
                .map(|error| error.code()),
            Some(1115)
        );
        vfs.clear_faults();
        assert_eq!(
            cache.prefetch(&ids(FIRST, 16), AccessKind::Scan).unwrap(),
            15
        );
        assert_eq!(cached(&cache), (FIRST..FIRST + 16).collect::<Vec<_>>());
        assert_consistent(&cache);
    }

    /// A block that fails its checks stays out of the cache; the rest of its read is kept,
    /// and the block's own get reports ORA-01578 as a single read always did.
    #[test]
    fn a_corrupt_block_is_left_out_and_fails_its_own_get() {
        let vfs = SimVfs::new(6);
        let cache = cache_over(&vfs, &CacheLayout::single(200), 8);
        let datafile = vfs.open(Path::new("/db/system01.dbf"), false).unwrap();
        datafile
            .write_at(b"garbage", (FIRST as u64 + 2) * BLOCK_SIZE as u64 + 100)
            .unwrap();
        assert_eq!(cache.prefetch(&ids(FIRST, 8), AccessKind::Scan).unwrap(), 7);
        let expected: Vec<u32> = (FIRST..FIRST + 8).filter(|&n| n != FIRST + 2).collect();
        assert_eq!(cached(&cache), expected);
        assert_consistent(&cache);
        let error = cache
            .read(BlockId::new(SYSTEM_FILE, FIRST + 2), AccessKind::Scan)
            .err()
            .expect("a corrupt block");
        assert_eq!(error.code(), 1578, "{error}");
        assert_consistent(&cache);
    }

    /// Sessions reading the same window at once (`pin`'s race, from both sides): each block
    /// ends up in one buffer, read once per round, and every get sees the block.
    #[test]
    fn sessions_reading_one_window_at_once_map_each_block_once() {
        let vfs = SimVfs::new(8);
        let cache = cache_over(&vfs, &CacheLayout::single(200), 64);
        for _round in 0..20 {
            cache.flush().unwrap();
            let sessions: Vec<_> = (0..4).map(|_| session()).collect();
            std::thread::scope(|scope| {
                for (reader, session) in sessions.iter().enumerate() {
                    let cache = &cache;
                    scope.spawn(move || {
                        let _entered = enter(session);
                        for id in ids(FIRST, 64).chunks(8) {
                            if reader % 2 == 0 {
                                cache.prefetch(id, AccessKind::Scan).unwrap();
                            }
                            for &id in id {
                                let data = cache.read(id, AccessKind::Scan).unwrap();
                                assert!(block::verify(&data, id).is_ok());
                            }
                        }
                    });
                }
            });
            assert_eq!(cached(&cache), (FIRST..FIRST + 64).collect::<Vec<_>>());
            assert_consistent(&cache);
            let reads: u64 = sessions
                .iter()
                .map(|session| session.statistic(Statistic::PhysicalReads))
                .sum();
            assert_eq!(reads, 64, "each block read once");
        }
    }

    /// Sessions scanning different blocks through a small pool at once: runs capped at a
    /// quarter of its working set, taking only free buffers after their first, never wait
    /// while holding buffers, so all of them finish without ORA-00379.
    #[test]
    fn concurrent_multiblock_reads_in_a_small_pool_all_finish() {
        let vfs = SimVfs::new(9);
        let layout = CacheLayout::oracle8(
            250,
            2,
            PoolSize::default(),
            PoolSize {
                buffers: 50,
                working_sets: 1,
            },
        )
        .unwrap();
        let cache = cache_over(&vfs, &layout, 256);
        let access = AccessKind::Scan.in_pool(BufferPool::Recycle);
        std::thread::scope(|scope| {
            for reader in 0..4u32 {
                let cache = &cache;
                scope.spawn(move || {
                    for round in 0..16u32 {
                        let first = FIRST + (reader * 64 + round * 16) % 240;
                        let window = ids(first, 16);
                        cache.prefetch(&window, access).unwrap();
                        for &id in &window {
                            drop(cache.read(id, access).unwrap());
                        }
                    }
                });
            }
        });
        assert_consistent(&cache);
    }

    /// The scan's own get of a block a multiblock read brought in is not a touch: with every
    /// hit counted (`_db_aging_touch_time = 0`) a scanned block has one touch, as if read
    /// alone; a second get counts.
    #[test]
    fn the_first_get_of_a_block_read_ahead_is_not_a_touch() {
        let vfs = SimVfs::new(7);
        let mut layout = CacheLayout::single(200);
        layout.aging.touch_time = 0;
        let cache = cache_over(&vfs, &layout, 4);
        cache.prefetch(&ids(FIRST, 4), AccessKind::Lookup).unwrap();
        let touches = |cache: &BufferCache| -> Vec<u32> {
            let mut headers: Vec<BufferHeader> = cache
                .buffer_headers()
                .into_iter()
                .filter(|header| header.block.is_some())
                .collect();
            headers.sort_by_key(|header| header.block);
            headers.iter().map(|header| header.touch_count).collect()
        };
        for id in ids(FIRST, 4) {
            drop(cache.read(id, AccessKind::Lookup).unwrap());
        }
        assert_eq!(touches(&cache), vec![1, 1, 1, 1]);
        drop(
            cache
                .read(BlockId::new(SYSTEM_FILE, FIRST), AccessKind::Lookup)
                .unwrap(),
        );
        assert_eq!(touches(&cache), vec![2, 1, 1, 1]);
    }
}
