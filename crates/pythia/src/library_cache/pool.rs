//! Shared pool memory: `shared_pool_size` bytes for every library cache object, charged
//! what each really holds, with an LRU of handles that ages unpinned objects out when an
//! allocation does not fit, and ORA-04031 when nothing can go.
//!
//! ```text
//!   allocate(bytes) under the 'shared pool' latch:
//!     while used + bytes > size:
//!       handle = LRU head           used since the last pass? -> tail (second chance)
//!                                   pinned, kept or busy?      -> tail
//!                                   heap 0 or children loaded? -> unload them (flush), tail
//!                                   nothing loaded?            -> free the handle itself
//!     still no room -> ORA-04031
//! ```
//!
//! A use of a handle only sets its `used` flag (no latch): the LRU order is refreshed lazily,
//! when the ager reaches a used handle, so a soft parse never touches this latch. An aged-out
//! handle stays in its bucket with its text until a later pass frees it: a get that finds it
//! unloaded loads it again and counts a reload, as Oracle's v$librarycache.reloads does.
//!
//! Lock order: the 'shared pool' latch is never taken while holding a library cache mutex or
//! the 'library cache' latch; the ager takes handle and bucket mutexes only with `try_`
//! gets, so it cannot deadlock with a session that holds one.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::instrumentation::striped::StripedCounter;
use crate::instrumentation::{Latch, LatchName};

use super::cursor::{ChildCursor, Handle};
use crate::instrumentation::LatchGuard;
use crate::sql::ast::Statement;

/// What an allocation holds (v$sgastat names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// Handles: their text and fixed part.
    Handles,
    /// Heap 0: a parent's syntax tree.
    Heap0,
    /// Child cursors and their plans.
    SqlArea,
}

impl Category {
    pub const ALL: [Category; 3] = [Category::Handles, Category::Heap0, Category::SqlArea];

    /// v$sgastat.name.
    pub const fn name(self) -> &'static str {
        match self {
            Category::Handles => "KGLHD",
            Category::Heap0 => "KGLH0",
            Category::SqlArea => "SQLA",
        }
    }
}

pub(crate) struct PoolState {
    pub(crate) used_bytes: u64,
    pub(crate) category_bytes: [u64; 3],
    /// Every handle in the library cache, least recently placed first.
    pub(crate) lru: VecDeque<Arc<Handle>>,
    /// What aging took out, dropped only once the latch is released (`unlock`): freeing a
    /// tree or a plan is many frees of cold memory, which the latch must not wait for.
    pub(crate) garbage: Vec<Garbage>,
    /// Handles taken from the LRU by an allocation's ager, being examined without the latch.
    pub(crate) in_flight: Vec<Arc<Handle>>,
}

/// An object aged out, kept alive until the 'shared pool' latch is released.
pub(crate) enum Garbage {
    Statement(#[allow(dead_code)] Arc<Statement>),
    Child(#[allow(dead_code)] Arc<ChildCursor>),
    Handle(#[allow(dead_code)] Arc<Handle>),
}

/// x$kghlu: the shared pool LRU's counters (Steve Adams' shared_pool_lru_stats.sql).
#[derive(Default)]
pub struct LruCounters {
    /// KGHLUFSH: objects flushed (aged out) to make room.
    pub flushed: AtomicU64,
    /// KGHLUOPS: pins and releases: a cursor's pin and unpin at each execution, and each
    /// allocation and release of shared pool memory (a hard parse makes three).
    pub operations: StripedCounter,
    /// KGHLURCR: loads of objects that had been loaded before (recurrent).
    pub recurrent: AtomicU64,
    /// KGHLUTRN: first loads (transient).
    pub transient: AtomicU64,
    /// KGHLUNFU: allocations that failed (ORA-04031).
    pub failures: AtomicU64,
    /// KGHLUNFS: the size of the last failed allocation.
    pub last_failure_bytes: AtomicU64,
}

pub(crate) struct SharedPool {
    /// `shared_pool_size` (ALTER SYSTEM changes it).
    pub(crate) size_bytes: AtomicU64,
    pub(crate) state: Latch<PoolState>,
    pub(crate) counters: LruCounters,
}

impl SharedPool {
    pub(crate) fn new(size_bytes: u64) -> SharedPool {
        SharedPool {
            size_bytes: AtomicU64::new(size_bytes),
            state: Latch::new(
                LatchName::SharedPool,
                PoolState {
                    used_bytes: 0,
                    category_bytes: [0; 3],
                    lru: VecDeque::new(),
                    garbage: Vec::new(),
                    in_flight: Vec::new(),
                },
            ),
            counters: LruCounters::default(),
        }
    }
}

impl SharedPool {
    pub(crate) fn size(&self) -> u64 {
        self.size_bytes.load(Ordering::Relaxed)
    }
}

/// Releases the 'shared pool' latch, then drops what aging took out under it.
pub(crate) fn unlock(mut state: LatchGuard<'_, PoolState>) {
    let garbage = std::mem::take(&mut state.garbage);
    drop(state);
    drop(garbage);
}

/// Handles the ager takes from the LRU at a time, to examine outside the latch.
pub const AGING_BATCH: usize = 16;

/// What examining one handle for aging did.
enum Aged {
    /// Used, pinned, kept or busy: back to the LRU's tail.
    Kept(Arc<Handle>),
    /// Its heaps (and hot copies) went; the handle stays, back to the LRU's tail.
    Unloaded(Arc<Handle>, [u64; 3]),
    /// Nothing was loaded: the handle itself was freed.
    Freed([u64; 3]),
    /// Already freed by someone else.
    Gone,
}

impl super::LibraryCache {
    /// Charges `bytes` to the shared pool for `category`, aging out unpinned objects as
    /// needed; ORA-04031 when nothing more can go. `text` names the object in the error.
    ///
    /// Aging works in batches: [`AGING_BATCH`] handles leave the LRU's head under the latch
    /// (listed as in flight, so that `handles` still sees them), are examined and aged with
    /// the latch released (touching a cold handle, its mutex and its bucket costs cache
    /// misses that would otherwise lengthen the latch's hold, and more so the larger the
    /// pool), and come back (or their bytes do) under the latch.
    pub(crate) fn allocate(&self, bytes: u64, category: Category, text: &str) -> Result<()> {
        let pool = &self.pool;
        self.count_lru_operation();
        let mut examined = 0usize;
        let mut budget = None;
        loop {
            let batch: Vec<Arc<Handle>> = {
                let mut state = pool.state.lock();
                if state.used_bytes + bytes <= pool.size() {
                    state.used_bytes += bytes;
                    state.category_bytes[category as usize] += bytes;
                    unlock(state);
                    return Ok(());
                }
                let budget = *budget.get_or_insert(state.lru.len() * 2 + 1);
                let count = AGING_BATCH.min(state.lru.len());
                if examined >= budget || count == 0 {
                    unlock(state);
                    break;
                }
                let batch: Vec<Arc<Handle>> = state.lru.drain(..count).collect();
                state.in_flight.extend(batch.iter().cloned());
                batch
            };
            examined += batch.len();
            let mut garbage = Vec::new();
            let aged: Vec<Aged> = batch
                .into_iter()
                .map(|handle| self.age_one(handle, false, &mut garbage))
                .collect();
            let mut state = pool.state.lock();
            let mut flushed = 0;
            for outcome in aged {
                let (handle, flushed_one) = Self::settle(&mut state, outcome);
                flushed += u64::from(flushed_one);
                if let Some(handle) = handle {
                    state.in_flight.retain(|other| !Arc::ptr_eq(other, &handle));
                    state.lru.push_back(handle);
                }
            }
            // Handles freed (or found freed) are obsolete: they leave `in_flight` here.
            state.in_flight.retain(|other| !other.is_obsolete());
            drop(state);
            drop(garbage);
            pool.counters.flushed.fetch_add(flushed, Ordering::Relaxed);
        }
        pool.counters.failures.fetch_add(1, Ordering::Relaxed);
        pool.counters
            .last_failure_bytes
            .store(bytes, Ordering::Relaxed);
        let name: String = text.chars().take(32).collect();
        Err(Error::new(
            4031,
            format!(
                "unable to allocate {bytes} bytes of shared memory (\"shared pool\",\"{name}\",\"{}\",\"kglhin\")",
                category.name()
            ),
        ))
    }

    /// Gives back bytes charged for `category`.
    pub(crate) fn release(&self, bytes: u64, category: Category) {
        self.count_lru_operation();
        let mut state = self.pool.state.lock();
        Self::uncharge(&mut state, bytes, category);
    }

    fn uncharge(state: &mut PoolState, bytes: u64, category: Category) {
        state.used_bytes -= bytes;
        state.category_bytes[category as usize] -= bytes;
    }

    /// Gives back bytes freed in every category (indexed by `Category as usize`).
    fn uncharge_all(state: &mut PoolState, freed: [u64; 3]) {
        for category in Category::ALL {
            Self::uncharge(state, freed[category as usize], category);
        }
    }

    /// Gives back what aging one handle freed. Returns the handle when it goes back to the
    /// LRU, and whether anything was flushed.
    fn settle(state: &mut PoolState, outcome: Aged) -> (Option<Arc<Handle>>, bool) {
        let (handle, freed, flushed) = match outcome {
            Aged::Kept(handle) => (Some(handle), [0; 3], false),
            Aged::Unloaded(handle, freed) => (Some(handle), freed, true),
            Aged::Freed(freed) => (None, freed, true),
            Aged::Gone => (None, [0; 3], false),
        };
        Self::uncharge_all(state, freed);
        (handle, flushed)
    }

    /// Puts a new handle at the tail of the LRU (its bytes already charged).
    pub(crate) fn enter_lru(&self, handle: Arc<Handle>) {
        self.pool.state.lock().lru.push_back(handle);
    }

    /// Ages out unpinned, unkept objects until `bytes` more fit (or, with `everything`, all
    /// that can go: ALTER SYSTEM FLUSH SHARED_POOL), with the latch held throughout.
    /// Returns the objects flushed.
    pub(crate) fn age_out(&self, state: &mut PoolState, bytes: u64, everything: bool) -> u64 {
        let size = self.pool.size();
        let mut examined = 0;
        let mut flushed = 0;
        let limit = state.lru.len() * 2 + 1;
        while (everything || state.used_bytes + bytes > size) && examined < limit {
            let Some(handle) = state.lru.pop_front() else {
                break;
            };
            examined += 1;
            let outcome = self.age_one(handle, everything, &mut state.garbage);
            let (handle, flushed_one) = Self::settle(state, outcome);
            flushed += u64::from(flushed_one);
            if let Some(handle) = handle {
                state.lru.push_back(handle);
            }
        }
        self.pool
            .counters
            .flushed
            .fetch_add(flushed, Ordering::Relaxed);
        flushed
    }

    /// Examines one handle taken from the LRU: gives it a second chance if used since the
    /// last pass (unless `everything`), keeps it if pinned, kept or busy, else unloads its
    /// heaps and hot copies, or frees it when nothing was loaded. What it takes out goes to
    /// `garbage`, for the caller to drop without the latch. Touches no pool state: it runs
    /// with or without the latch.
    fn age_one(&self, handle: Arc<Handle>, everything: bool, garbage: &mut Vec<Garbage>) -> Aged {
        if handle.is_obsolete() {
            return Aged::Gone;
        }
        if !everything && handle.used.swap(false, Ordering::Relaxed) {
            return Aged::Kept(handle);
        }
        let Some(mut handle_state) = handle.state.try_exclusive() else {
            return Aged::Kept(handle);
        };
        let copies = handle_state.copies.clone();
        let mut copy_states = Vec::with_capacity(copies.len());
        for copy in &copies {
            match copy.state.try_exclusive() {
                Some(copy_state) if copy_state.pins == 0 => copy_states.push(copy_state),
                _ => break,
            }
        }
        if handle_state.pins > 0 || handle_state.kept || copy_states.len() < copies.len() {
            drop(copy_states);
            drop(handle_state);
            return Aged::Kept(handle);
        }
        let mut freed = [0u64; 3];
        for (copy, mut copy_state) in copies.iter().zip(copy_states) {
            Self::unload_into(&mut copy_state, copy, &mut freed, garbage);
            drop(copy_state);
            copy.obsolete.store(true, Ordering::Release);
            freed[Category::Handles as usize] += copy.handle_bytes();
        }
        handle_state.copies.clear();
        if handle_state.statement.is_some() || !handle_state.children.is_empty() {
            Self::unload_into(&mut handle_state, &handle, &mut freed, garbage);
        }
        if freed != [0; 3] {
            drop(handle_state);
            return Aged::Unloaded(handle, freed);
        }
        // Nothing loaded: free the handle itself, marked obsolete while its mutex is still
        // held, so that a session reloading it sees either a loaded handle (and the ager
        // passes it over) or an obsolete one (and keeps its tree to itself).
        let removed = self.remove_handle(&handle);
        drop(handle_state);
        if removed {
            freed[Category::Handles as usize] += handle.handle_bytes();
            garbage.push(Garbage::Handle(handle));
            Aged::Freed(freed)
        } else {
            Aged::Kept(handle)
        }
    }

    /// Drops a handle's heap 0 and children into `garbage`, adding their bytes to `freed`.
    fn unload_into(
        handle_state: &mut super::cursor::HandleState,
        handle: &Handle,
        freed: &mut [u64; 3],
        garbage: &mut Vec<Garbage>,
    ) {
        freed[Category::Heap0 as usize] += handle_state.statement_bytes;
        for child in handle_state.children.drain(..) {
            freed[Category::SqlArea as usize] += child.sharable_bytes();
            garbage.push(Garbage::Child(child));
        }
        if let Some(statement) = handle_state.statement.take() {
            garbage.push(Garbage::Statement(statement));
        }
        handle_state.statement_bytes = 0;
        handle.loaded.store(false, Ordering::Release);
    }

    /// Drops a handle's heap 0 and children, giving their bytes back (the latch held).
    pub(crate) fn unload(
        state: &mut PoolState,
        handle_state: &mut super::cursor::HandleState,
        handle: &Handle,
    ) {
        let mut freed = [0u64; 3];
        Self::unload_into(handle_state, handle, &mut freed, &mut state.garbage);
        Self::uncharge_all(state, freed);
    }

    /// ALTER SYSTEM FLUSH SHARED_POOL: everything not pinned or kept goes.
    pub fn flush(&self) -> u64 {
        let mut state = self.pool.state.lock();
        // Two passes: the first unloads heaps, the second frees the emptied handles.
        let flushed = self.age_out(&mut state, 0, true) + self.age_out(&mut state, 0, true);
        unlock(state);
        flushed
    }

    /// Bytes in use, by category, and the pool's size (v$sgastat).
    pub fn memory(&self) -> (u64, [u64; 3], u64) {
        let state = self.pool.state.lock();
        (state.used_bytes, state.category_bytes, self.pool.size())
    }

    /// ALTER SYSTEM SET shared_pool_size: a smaller pool ages out what no longer fits.
    pub fn resize(&self, size_bytes: u64) {
        let mut state = self.pool.state.lock();
        self.pool.size_bytes.store(size_bytes, Ordering::Relaxed);
        if state.used_bytes > size_bytes {
            self.age_out(&mut state, 0, false);
        }
        unlock(state);
    }

    pub fn lru_counters(&self) -> &LruCounters {
        &self.pool.counters
    }

    pub(crate) fn count_lru_operation(&self) {
        self.pool.counters.operations.add(1);
    }
}
