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
    /// KGHLUOPS: pins and releases of objects.
    pub operations: AtomicU64,
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

impl super::LibraryCache {
    /// Charges `bytes` to the shared pool for `category`, aging out unpinned objects as
    /// needed; ORA-04031 when nothing more can go. `text` names the object in the error.
    pub(crate) fn allocate(&self, bytes: u64, category: Category, text: &str) -> Result<()> {
        let pool = &self.pool;
        let mut state = pool.state.lock();
        if state.used_bytes + bytes > pool.size() {
            self.age_out(&mut state, bytes, false);
        }
        if state.used_bytes + bytes > pool.size() {
            unlock(state);
            pool.counters.failures.fetch_add(1, Ordering::Relaxed);
            pool.counters
                .last_failure_bytes
                .store(bytes, Ordering::Relaxed);
            let name: String = text.chars().take(32).collect();
            return Err(Error::new(
                4031,
                format!(
                    "unable to allocate {bytes} bytes of shared memory (\"shared pool\",\"{name}\",\"{}\",\"kglhin\")",
                    category.name()
                ),
            ));
        }
        state.used_bytes += bytes;
        state.category_bytes[category as usize] += bytes;
        unlock(state);
        Ok(())
    }

    /// Gives back bytes charged for `category`.
    pub(crate) fn release(&self, bytes: u64, category: Category) {
        let mut state = self.pool.state.lock();
        Self::uncharge(&mut state, bytes, category);
    }

    fn uncharge(state: &mut PoolState, bytes: u64, category: Category) {
        state.used_bytes -= bytes;
        state.category_bytes[category as usize] -= bytes;
    }

    /// Puts a new handle at the tail of the LRU (its bytes already charged).
    pub(crate) fn enter_lru(&self, handle: Arc<Handle>) {
        self.pool.state.lock().lru.push_back(handle);
    }

    /// Ages out unpinned, unkept objects until `bytes` more fit (or, with `everything`, all
    /// that can go: ALTER SYSTEM FLUSH SHARED_POOL). Returns the objects flushed.
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
            if handle.obsolete.load(Ordering::Acquire) {
                continue;
            }
            if !everything && handle.used.swap(false, Ordering::Relaxed) {
                state.lru.push_back(handle);
                continue;
            }
            let Some(mut handle_state) = handle.state.try_exclusive() else {
                state.lru.push_back(handle);
                continue;
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
                state.lru.push_back(handle);
                continue;
            }
            let mut unloaded = false;
            for (copy, mut copy_state) in copies.iter().zip(copy_states) {
                Self::unload(state, &mut copy_state, copy);
                drop(copy_state);
                copy.obsolete.store(true, Ordering::Release);
                Self::uncharge(state, copy.handle_bytes(), Category::Handles);
            }
            handle_state.copies.clear();
            if handle_state.statement.is_some() || !handle_state.children.is_empty() {
                Self::unload(state, &mut handle_state, &handle);
                unloaded = true;
            }
            if unloaded || !copies.is_empty() {
                drop(handle_state);
                flushed += 1;
                state.lru.push_back(handle);
                continue;
            }
            // Nothing loaded: free the handle itself, marked obsolete while its mutex is
            // still held, so that a session reloading it sees either a loaded handle (and the
            // ager passes it over) or an obsolete one (and keeps its tree to itself).
            let removed = self.remove_handle(&handle);
            drop(handle_state);
            if removed {
                Self::uncharge(state, handle.handle_bytes(), Category::Handles);
                flushed += 1;
                state.garbage.push(Garbage::Handle(handle));
            } else {
                state.lru.push_back(handle);
            }
        }
        self.pool
            .counters
            .flushed
            .fetch_add(flushed, Ordering::Relaxed);
        flushed
    }

    /// Drops a handle's heap 0 and children, giving their bytes back.
    pub(crate) fn unload(
        state: &mut PoolState,
        handle_state: &mut super::cursor::HandleState,
        handle: &Handle,
    ) {
        Self::uncharge(state, handle_state.statement_bytes, Category::Heap0);
        for child in handle_state.children.drain(..) {
            Self::uncharge(state, child.sharable_bytes(), Category::SqlArea);
            state.garbage.push(Garbage::Child(child));
        }
        if let Some(statement) = handle_state.statement.take() {
            state.garbage.push(Garbage::Statement(statement));
        }
        handle_state.statement_bytes = 0;
        handle.loaded.store(false, Ordering::Release);
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
        self.pool
            .counters
            .operations
            .fetch_add(1, Ordering::Relaxed);
    }
}
