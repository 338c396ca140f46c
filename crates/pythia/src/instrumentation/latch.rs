//! Latches: short-term locks on shared memory structures, counted the way v$latch and
//! v$latch_children count them.
//!
//! `Latch<T>` wraps a `parking_lot::Mutex<T>`; `RwLatch<T>` wraps a `parking_lot::RwLock<T>`
//! and adds shared-mode gets, as Oracle's cache buffers chains latches take for readers. A
//! latch protects its data: the guard derefs to it and releases the latch when dropped.
//! Both are a `LatchCore` over their lock, where the counting below is written once.
//!
//! How one willing-to-wait get is counted:
//!
//! ```text
//!   try_lock ---- ok ------------------------------------------> gets += 1
//!      |
//!     busy: a miss
//!      v
//!   spin: up to LATCH_SPIN_ATTEMPTS_MAX tries, pausing between ---- ok ---> gets, misses,
//!      |                                                                     spin_gets += 1
//!     still busy: a sleep
//!      v
//!   wait 'latch: <name>' (or 'latch free') and block until granted ---> gets, misses,
//!                                                                       sleeps += 1,
//!                                                                       wait_time += µs
//! ```
//!
//! So for every latch `misses == spin_gets + sleeps` (one blocking sleep per get that slept),
//! and `misses <= gets`. A no-wait get (`try_lock`) counts `immediate_gets` or
//! `immediate_misses` instead. The wait's parameters are Oracle's: p1 the latch address, p2
//! the latch#, p3 the number of earlier sleeps in this get (0).
//!
//! Each latch is a child: it carries its own counters, on their own cache line, so that the
//! thousands of children of a hot latch (one per hash chain) do not contend on shared
//! counters. The counters are updated while the latch is held, so a plain load and store is
//! exact; only shared-mode gets (several holders at once) and immediate misses (no holder)
//! use atomic read-modify-writes. The uncontended get is one compare-and-swap and two plain
//! memory operations: no allocation, no global atomic.
//!
//! Children register, at creation, in the family of their name; v$latch is the sum over a
//! family's children plus the counts of children already dropped (folded in at drop, so that
//! the totals never go backwards). v$latch_children lists the live children. `latch#` is
//! Pythia's (the position in `LatchName::ALL`), not a particular Oracle release's.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::events::{wait, WaitEvent};

/// Attempts to get a busy latch before sleeping on it (Oracle's `_spin_count` is 2000 polls).
pub const LATCH_SPIN_ATTEMPTS_MAX: u32 = 100;

/// CPU pause hints between two attempts of the spin.
const SPIN_PAUSES_PER_ATTEMPT: u32 = 8;

/// Declares `LatchName` from rows of (variant, name, wait event).
macro_rules! latch_names {
    ($($variant:ident = ($name:literal, $event:ident),)*) => {
        /// The name of a latch (v$latchname). `latch#` is the position in `LatchName::ALL`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum LatchName {
            $(
                #[doc = $name]
                $variant,
            )*
        }

        impl LatchName {
            pub const ALL: [LatchName; LatchName::COUNT] = [$(LatchName::$variant,)*];

            pub const COUNT: usize = [$($name,)*].len();

            /// Oracle's exact name.
            pub const fn name(self) -> &'static str {
                match self {
                    $(LatchName::$variant => $name,)*
                }
            }

            /// The event a session waits on when it sleeps for this latch.
            pub const fn wait_event(self) -> WaitEvent {
                match self {
                    $(LatchName::$variant => WaitEvent::$event,)*
                }
            }
        }
    };
}

latch_names! {
    CacheBuffersChains = ("cache buffers chains", LatchCacheBuffersChains),
    CacheBuffersLruChain = ("cache buffers lru chain", LatchCacheBuffersLruChain),
    CacheBufferHandles = ("cache buffer handles", LatchFree),
    CheckpointQueueLatch = ("checkpoint queue latch", LatchCheckpointQueueLatch),
    ObjectQueueHeaderOperation = ("object queue header operation", LatchObjectQueueHeaderOperation),
    ActiveCheckpointQueueLatch = ("active checkpoint queue latch", LatchFree),
    MultiblockReadObjects = ("multiblock read objects", LatchFree),
    SimulatorHashLatch = ("simulator hash latch", LatchFree),
    SimulatorLruLatch = ("simulator lru latch", LatchFree),
    RedoAllocation = ("redo allocation", LatchRedoAllocation),
    RedoWriting = ("redo writing", LatchRedoWriting),
    RedoCopy = ("redo copy", LatchRedoCopy),
    ConsistentRba = ("Consistent RBA", LatchFree),
    LgwrLwnScn = ("lgwr LWN SCN", LatchFree),
    MostlyLatchFreeScn = ("mostly latch-free SCN", LatchFree),
    SharedPool = ("shared pool", LatchSharedPool),
    SharedPoolSimulator = ("shared pool simulator", LatchFree),
    LibraryCache = ("library cache", LatchLibraryCache),
    LibraryCachePin = ("library cache pin", LatchFree),
    LibraryCacheLock = ("library cache lock", LatchFree),
    RowCacheObjects = ("row cache objects", LatchRowCacheObjects),
    EnqueueHashChains = ("enqueue hash chains", LatchEnqueueHashChains),
    Enqueues = ("enqueues", LatchFree),
    DmlLockAllocation = ("dml lock allocation", LatchFree),
    UndoGlobalData = ("undo global data", LatchUndoGlobalData),
    InMemoryUndoLatch = ("In memory undo latch", LatchInMemoryUndoLatch),
    TransactionAllocation = ("transaction allocation", LatchFree),
    CommitCallbackAllocation = ("commit callback allocation", LatchFree),
    ListOfBlockAllocation = ("list of block allocation", LatchFree),
    FileNumberTranslationTable = ("file number translation table", LatchFree),
    SequenceCache = ("sequence cache", LatchFree),
    SessionAllocation = ("session allocation", LatchFree),
    SessionIdleBit = ("session idle bit", LatchFree),
    Messages = ("messages", LatchMessages),
    PostWaitQueue = ("post/wait queue", LatchFree),
    ParameterTableManagement = ("parameter table management", LatchFree),
    SqlMemoryManagerWorkareaListLatch = ("SQL memory manager workarea list latch", LatchFree),
    ChannelOperationsParentLatch = ("channel operations parent latch", LatchFree),
}

impl LatchName {
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `latch#`.
    pub const fn number(self) -> u32 {
        self as u32
    }

    pub fn from_name(name: &str) -> Option<LatchName> {
        LatchName::ALL
            .iter()
            .copied()
            .find(|latch| latch.name() == name)
    }
}

/// The counters of one latch (or their sum over a family), as v$latch shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatchStatistics {
    pub gets: u64,
    pub misses: u64,
    pub spin_gets: u64,
    pub sleeps: u64,
    /// Microseconds spent sleeping for the latch (v$latch.wait_time).
    pub wait_time: u64,
    pub immediate_gets: u64,
    pub immediate_misses: u64,
}

impl LatchStatistics {
    pub const ZERO: LatchStatistics = LatchStatistics {
        gets: 0,
        misses: 0,
        spin_gets: 0,
        sleeps: 0,
        wait_time: 0,
        immediate_gets: 0,
        immediate_misses: 0,
    };

    pub(crate) fn accumulate(&mut self, other: &LatchStatistics) {
        self.gets += other.gets;
        self.misses += other.misses;
        self.spin_gets += other.spin_gets;
        self.sleeps += other.sleeps;
        self.wait_time += other.wait_time;
        self.immediate_gets += other.immediate_gets;
        self.immediate_misses += other.immediate_misses;
    }
}

/// A child latch's counters, alone on their cache line.
#[repr(align(64))]
struct LatchCounters {
    gets: AtomicU64,
    misses: AtomicU64,
    spin_gets: AtomicU64,
    sleeps: AtomicU64,
    wait_time: AtomicU64,
    immediate_gets: AtomicU64,
    immediate_misses: AtomicU64,
}

/// How the holder of a latch updates its counters: alone (exclusive) or with other holders.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holding {
    Exclusive,
    Shared,
}

impl Holding {
    #[inline]
    fn add(self, cell: &AtomicU64, amount: u64) {
        match self {
            Holding::Exclusive => cell.store(cell.load(Relaxed).wrapping_add(amount), Relaxed),
            Holding::Shared => {
                cell.fetch_add(amount, Relaxed);
            }
        }
    }
}

impl LatchCounters {
    const fn new() -> LatchCounters {
        LatchCounters {
            gets: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            spin_gets: AtomicU64::new(0),
            sleeps: AtomicU64::new(0),
            wait_time: AtomicU64::new(0),
            immediate_gets: AtomicU64::new(0),
            immediate_misses: AtomicU64::new(0),
        }
    }

    fn read(&self) -> LatchStatistics {
        LatchStatistics {
            gets: self.gets.load(Relaxed),
            misses: self.misses.load(Relaxed),
            spin_gets: self.spin_gets.load(Relaxed),
            sleeps: self.sleeps.load(Relaxed),
            wait_time: self.wait_time.load(Relaxed),
            immediate_gets: self.immediate_gets.load(Relaxed),
            immediate_misses: self.immediate_misses.load(Relaxed),
        }
    }

    #[inline]
    fn count_get(&self, holding: Holding) {
        holding.add(&self.gets, 1);
    }

    fn count_spin_get(&self, holding: Holding) {
        holding.add(&self.gets, 1);
        holding.add(&self.misses, 1);
        holding.add(&self.spin_gets, 1);
    }

    fn count_sleep_get(&self, holding: Holding, wait_micros: u64) {
        holding.add(&self.gets, 1);
        holding.add(&self.misses, 1);
        holding.add(&self.sleeps, 1);
        holding.add(&self.wait_time, wait_micros);
    }

    fn count_immediate_get(&self, holding: Holding) {
        holding.add(&self.immediate_gets, 1);
    }

    fn count_immediate_miss(&self) {
        // Not holding the latch: other threads may be counting too.
        self.immediate_misses.fetch_add(1, Relaxed);
    }
}

/// One child latch: its name, its place in the family, its counters.
pub(crate) struct LatchChild {
    name: LatchName,
    /// Index in the family's `children`; `child#` is `slot + 1`.
    slot: usize,
    counters: LatchCounters,
}

impl LatchChild {
    fn address(&self) -> u64 {
        self as *const LatchChild as u64
    }
}

struct LatchFamily {
    children: Vec<Option<Arc<LatchChild>>>,
    free_slots: Vec<usize>,
    /// Counts of dropped children.
    departed: LatchStatistics,
}

impl LatchFamily {
    const fn new() -> LatchFamily {
        LatchFamily {
            children: Vec::new(),
            free_slots: Vec::new(),
            departed: LatchStatistics::ZERO,
        }
    }
}

static FAMILIES: [Mutex<LatchFamily>; LatchName::COUNT] =
    [const { Mutex::new(LatchFamily::new()) }; LatchName::COUNT];

/// A child's membership in its family: registered at creation, folded and removed at drop.
struct Registration {
    child: Arc<LatchChild>,
}

impl Registration {
    fn new(name: LatchName) -> Registration {
        let mut family = FAMILIES[name.index()].lock();
        let slot = family.free_slots.pop().unwrap_or(family.children.len());
        let child = Arc::new(LatchChild {
            name,
            slot,
            counters: LatchCounters::new(),
        });
        if slot == family.children.len() {
            family.children.push(Some(child.clone()));
        } else {
            debug_assert!(family.children[slot].is_none());
            family.children[slot] = Some(child.clone());
        }
        Registration { child }
    }

    fn wait_parameters(&self) -> (WaitEvent, u64, u64) {
        (
            self.child.name.wait_event(),
            self.child.address(),
            self.child.name.number() as u64,
        )
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut family = FAMILIES[self.child.name.index()].lock();
        let statistics = self.child.counters.read();
        family.departed.accumulate(&statistics);
        family.children[self.child.slot] = None;
        family.free_slots.push(self.child.slot);
    }
}

/// A latch's identity and counters, as `Latch::statistics` and v$latch_children show them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatchChildStatistics {
    pub name: LatchName,
    /// v$latch_children.child#, from 1; reused after a child is dropped.
    pub child_number: u32,
    /// v$latch_children.addr.
    pub address: u64,
    pub statistics: LatchStatistics,
}

/// v$latch: per name, the sum over its children (live and dropped) and the live child count.
pub(crate) fn family_totals() -> Vec<(LatchName, LatchStatistics, usize)> {
    LatchName::ALL
        .iter()
        .map(|&name| {
            let family = FAMILIES[name.index()].lock();
            let mut total = family.departed;
            let mut live = 0;
            for child in family.children.iter().flatten() {
                total.accumulate(&child.counters.read());
                live += 1;
            }
            (name, total, live)
        })
        .collect()
}

/// v$latch_children: every live child.
pub(crate) fn children() -> Vec<LatchChildStatistics> {
    let mut rows = Vec::new();
    for name in LatchName::ALL {
        let family = FAMILIES[name.index()].lock();
        rows.extend(
            family
                .children
                .iter()
                .flatten()
                .map(|child| child_statistics(child)),
        );
    }
    rows
}

fn child_statistics(child: &LatchChild) -> LatchChildStatistics {
    LatchChildStatistics {
        name: child.name,
        child_number: child.slot as u32 + 1,
        address: child.address(),
        statistics: child.counters.read(),
    }
}

/// Spins up to `LATCH_SPIN_ATTEMPTS_MAX` attempts, calling `attempt` when `busy` says the
/// latch may be free.
#[inline]
fn spin<G>(mut busy: impl FnMut() -> bool, mut attempt: impl FnMut() -> Option<G>) -> Option<G> {
    for _ in 0..LATCH_SPIN_ATTEMPTS_MAX {
        for _ in 0..SPIN_PAUSES_PER_ATTEMPT {
            std::hint::spin_loop();
        }
        if !busy() {
            if let Some(guard) = attempt() {
                return Some(guard);
            }
        }
    }
    None
}

/// One way of getting a latch's lock of kind `L`: the lock operations the accounting in
/// `LatchCore` is written over, once for `Latch` (exclusive on a `Mutex`) and `RwLatch`
/// (shared or exclusive on an `RwLock`). Static dispatch only: each mode is a type, each get
/// is monomorphized and inlined as if written out by hand.
trait GetMode<'a, L> {
    type Guard;
    /// How the holder updates the counters.
    const HOLDING: Holding;
    /// Takes the lock if it is free now.
    fn try_get(lock: &'a L) -> Option<Self::Guard>;
    /// Whether a get must fail now (the spin polls this between attempts).
    fn busy(lock: &'a L) -> bool;
    /// Blocks until the lock is granted.
    fn get(lock: &'a L) -> Self::Guard;
}

/// Exclusive gets: `Latch::lock`, `RwLatch::write`.
struct ExclusiveGet;

/// Shared gets: `RwLatch::read`.
struct SharedGet;

/// Implements `GetMode`, a row for each mode of a lock kind: the mode, the lock, its guard,
/// how the holder counts, then the lock's own try, busy test and blocking get.
macro_rules! get_modes {
    ($($mode:ident on $lock:ident -> $guard:ident, $holding:ident:
        $try_get:ident, $busy:ident, $get:ident;)*) => {
        $(
            impl<'a, T: 'a> GetMode<'a, $lock<T>> for $mode {
                type Guard = $guard<'a, T>;
                const HOLDING: Holding = Holding::$holding;

                #[inline]
                fn try_get(lock: &'a $lock<T>) -> Option<$guard<'a, T>> {
                    lock.$try_get()
                }

                #[inline]
                fn busy(lock: &'a $lock<T>) -> bool {
                    lock.$busy()
                }

                #[inline]
                fn get(lock: &'a $lock<T>) -> $guard<'a, T> {
                    lock.$get()
                }
            }
        )*
    };
}

// A shared get is kept out only by a writer: it polls `is_locked_exclusive`.
get_modes! {
    ExclusiveGet on Mutex -> MutexGuard, Exclusive: try_lock, is_locked, lock;
    ExclusiveGet on RwLock -> RwLockWriteGuard, Exclusive: try_write, is_locked, write;
    SharedGet on RwLock -> RwLockReadGuard, Shared: try_read, is_locked_exclusive, read;
}

/// What `Latch` and `RwLatch` share: the registration (name, child, counters) and the lock,
/// with the counting of gets, misses, spins and sleeps and the timing of the wait written
/// once over the lock's `GetMode`s.
struct LatchCore<L> {
    registration: Registration,
    lock: L,
}

impl<L> LatchCore<L> {
    fn new(name: LatchName, lock: L) -> LatchCore<L> {
        LatchCore {
            registration: Registration::new(name),
            lock,
        }
    }

    /// A willing-to-wait get: spins, then sleeps until the latch is granted.
    #[inline]
    fn get<'a, M: GetMode<'a, L>>(&'a self) -> M::Guard {
        match M::try_get(&self.lock) {
            Some(guard) => {
                self.registration.child.counters.count_get(M::HOLDING);
                guard
            }
            None => self.get_contended::<M>(),
        }
    }

    #[cold]
    #[inline(never)]
    fn get_contended<'a, M: GetMode<'a, L>>(&'a self) -> M::Guard {
        let counters = &self.registration.child.counters;
        if let Some(guard) = spin(|| M::busy(&self.lock), || M::try_get(&self.lock)) {
            counters.count_spin_get(M::HOLDING);
            return guard;
        }
        let (event, address, number) = self.registration.wait_parameters();
        let sleep = wait(event, address, number, 0);
        let guard = M::get(&self.lock);
        let completed = sleep.finish();
        counters.count_sleep_get(M::HOLDING, completed.elapsed_micros);
        guard
    }

    /// A no-wait (immediate) get: the latch if it is free now.
    #[inline]
    fn try_get<'a, M: GetMode<'a, L>>(&'a self) -> Option<M::Guard> {
        let counters = &self.registration.child.counters;
        match M::try_get(&self.lock) {
            Some(guard) => {
                counters.count_immediate_get(M::HOLDING);
                Some(guard)
            }
            None => {
                counters.count_immediate_miss();
                None
            }
        }
    }

    fn name(&self) -> LatchName {
        self.registration.child.name
    }

    fn statistics(&self) -> LatchChildStatistics {
        child_statistics(&self.registration.child)
    }

    /// The lock, once the child's counts are folded into its family.
    fn into_lock(self) -> L {
        let LatchCore { registration, lock } = self;
        drop(registration);
        lock
    }

    fn debug(&self, kind: &str, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct(kind)
            .field("name", &self.name().name())
            .finish_non_exhaustive()
    }
}

/// An exclusive latch protecting a `T`. See the module documentation.
pub struct Latch<T> {
    core: LatchCore<Mutex<T>>,
}

/// Holds a `Latch`; releases it when dropped.
#[must_use = "the latch is released as soon as the guard is dropped"]
pub struct LatchGuard<'a, T> {
    guard: MutexGuard<'a, T>,
}

impl<T> Latch<T> {
    /// Creates a child latch of `name`, registered for v$latch and v$latch_children.
    pub fn new(name: LatchName, value: T) -> Latch<T> {
        Latch {
            core: LatchCore::new(name, Mutex::new(value)),
        }
    }

    /// A willing-to-wait get: spins, then sleeps until the latch is granted.
    #[inline]
    pub fn lock(&self) -> LatchGuard<'_, T> {
        LatchGuard {
            guard: self.core.get::<ExclusiveGet>(),
        }
    }

    /// A no-wait (immediate) get: the latch if it is free now.
    #[inline]
    pub fn try_lock(&self) -> Option<LatchGuard<'_, T>> {
        let guard = self.core.try_get::<ExclusiveGet>()?;
        Some(LatchGuard { guard })
    }

    pub fn name(&self) -> LatchName {
        self.core.name()
    }

    /// This child's identity and counters.
    pub fn statistics(&self) -> LatchChildStatistics {
        self.core.statistics()
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.core.lock.get_mut()
    }

    pub fn into_inner(self) -> T {
        self.core.into_lock().into_inner()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Latch<T> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.core.debug("Latch", formatter)
    }
}

impl<T> std::ops::Deref for LatchGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for LatchGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

/// A latch with shared gets for readers and exclusive gets for writers.
pub struct RwLatch<T> {
    core: LatchCore<RwLock<T>>,
}

/// Holds an `RwLatch` in shared mode.
#[must_use = "the latch is released as soon as the guard is dropped"]
pub struct LatchReadGuard<'a, T> {
    guard: RwLockReadGuard<'a, T>,
}

/// Holds an `RwLatch` in exclusive mode.
#[must_use = "the latch is released as soon as the guard is dropped"]
pub struct LatchWriteGuard<'a, T> {
    guard: RwLockWriteGuard<'a, T>,
}

impl<T> RwLatch<T> {
    pub fn new(name: LatchName, value: T) -> RwLatch<T> {
        RwLatch {
            core: LatchCore::new(name, RwLock::new(value)),
        }
    }

    /// A willing-to-wait get in shared mode.
    #[inline]
    pub fn read(&self) -> LatchReadGuard<'_, T> {
        LatchReadGuard {
            guard: self.core.get::<SharedGet>(),
        }
    }

    /// A willing-to-wait get in exclusive mode.
    #[inline]
    pub fn write(&self) -> LatchWriteGuard<'_, T> {
        LatchWriteGuard {
            guard: self.core.get::<ExclusiveGet>(),
        }
    }

    /// A no-wait get in shared mode.
    pub fn try_read(&self) -> Option<LatchReadGuard<'_, T>> {
        let guard = self.core.try_get::<SharedGet>()?;
        Some(LatchReadGuard { guard })
    }

    /// A no-wait get in exclusive mode.
    pub fn try_write(&self) -> Option<LatchWriteGuard<'_, T>> {
        let guard = self.core.try_get::<ExclusiveGet>()?;
        Some(LatchWriteGuard { guard })
    }

    pub fn name(&self) -> LatchName {
        self.core.name()
    }

    pub fn statistics(&self) -> LatchChildStatistics {
        self.core.statistics()
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.core.lock.get_mut()
    }

    pub fn into_inner(self) -> T {
        self.core.into_lock().into_inner()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for RwLatch<T> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.core.debug("RwLatch", formatter)
    }
}

impl<T> std::ops::Deref for LatchReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::Deref for LatchWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for LatchWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType};
    use std::collections::HashSet;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn names_are_unique_and_round_trip() {
        let names: HashSet<_> = LatchName::ALL.iter().map(|latch| latch.name()).collect();
        assert_eq!(names.len(), LatchName::COUNT);
        for latch in LatchName::ALL {
            assert_eq!(LatchName::from_name(latch.name()), Some(latch));
            assert_eq!(LatchName::ALL[latch.number() as usize], latch);
        }
        assert_eq!(
            LatchName::CacheBuffersChains.wait_event(),
            WaitEvent::LatchCacheBuffersChains
        );
        assert_eq!(LatchName::SequenceCache.wait_event(), WaitEvent::LatchFree);
    }

    #[test]
    fn gets_are_exact_under_concurrency() {
        let latch = Arc::new(Latch::new(LatchName::CacheBuffersChains, 0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let latch = latch.clone();
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        *latch.lock() += 1;
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(*latch.lock(), 40_000);
        let statistics = latch.statistics().statistics;
        assert_eq!(statistics.gets, 40_001);
        assert_eq!(statistics.misses, statistics.spin_gets + statistics.sleeps);
        assert!(statistics.misses <= statistics.gets);
        assert_eq!(
            (statistics.immediate_gets, statistics.immediate_misses),
            (0, 0)
        );
    }

    #[test]
    fn shared_gets_are_exact_under_concurrency() {
        let latch = Arc::new(RwLatch::new(LatchName::CacheBuffersChains, 7u64));
        let threads: Vec<_> = (0..4)
            .map(|thread| {
                let latch = latch.clone();
                std::thread::spawn(move || {
                    for iteration in 0..10_000 {
                        if thread == 0 && iteration % 100 == 0 {
                            let mut guard = latch.write();
                            *guard = 7;
                        } else {
                            assert_eq!(*latch.read(), 7);
                        }
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let statistics = latch.statistics().statistics;
        assert_eq!(statistics.gets, 40_000);
        assert_eq!(statistics.misses, statistics.spin_gets + statistics.sleeps);
    }

    #[test]
    fn contended_latch_records_miss_sleep_and_wait() {
        let latch = Arc::new(Latch::new(LatchName::CacheBuffersChains, ()));
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let (held_sender, held) = mpsc::channel();
        let holder = {
            let latch = latch.clone();
            let session = session.clone();
            std::thread::spawn(move || {
                let _guard = latch.lock();
                held_sender.send(()).unwrap();
                // Release only once the other thread sleeps on the latch, so that it must sleep.
                while !session.record().current_wait.read().waiting {
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        };
        held.recv().unwrap();
        {
            let _entered = enter(&session);
            let _guard = latch.lock();
        }
        holder.join().unwrap();
        let statistics = latch.statistics().statistics;
        assert_eq!(statistics.gets, 2);
        assert_eq!(statistics.misses, 1);
        assert_eq!(statistics.sleeps, 1);
        assert_eq!(statistics.spin_gets, 0);
        let waits = session.event_totals(WaitEvent::LatchCacheBuffersChains);
        assert_eq!(waits.total_waits, 1);
        assert_eq!(statistics.wait_time, waits.time_waited_micro);
        let last = session.record().current_wait.read();
        assert_eq!(last.p1, latch.statistics().address);
        assert_eq!(last.p2, LatchName::CacheBuffersChains.number() as u64);
    }

    #[test]
    fn immediate_gets_and_misses() {
        let latch = Latch::new(LatchName::RedoCopy, 1);
        {
            let _held = latch.try_lock().expect("free");
            assert!(latch.try_lock().is_none());
        }
        let statistics = latch.statistics().statistics;
        assert_eq!(
            (statistics.immediate_gets, statistics.immediate_misses),
            (1, 1)
        );
        assert_eq!(statistics.gets, 0);
        assert_eq!(latch.into_inner(), 1);
    }

    #[test]
    fn family_totals_include_dropped_children_and_never_decrease() {
        let name = LatchName::ParameterTableManagement;
        let total = |name: LatchName| {
            family_totals()
                .into_iter()
                .find(|(family, _, _)| *family == name)
                .unwrap()
                .1
        };
        let before = total(name);
        let first = Latch::new(name, ());
        let second = Latch::new(name, ());
        assert_ne!(
            first.statistics().child_number,
            second.statistics().child_number
        );
        for _ in 0..5 {
            drop(first.lock());
        }
        drop(second.lock());
        assert!(children()
            .iter()
            .any(|child| child.address == first.statistics().address));
        let live = total(name);
        assert!(live.gets >= before.gets + 6);
        drop(first);
        drop(second);
        let after = total(name);
        assert!(after.gets >= live.gets, "v$latch went backwards");
    }
}
