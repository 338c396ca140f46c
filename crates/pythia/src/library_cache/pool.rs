//! Shared pool memory: `shared_pool_size` bytes for every library cache object, charged
//! what each really holds, with an LRU of handles that ages unpinned objects out when an
//! allocation does not fit, and ORA-04031 when nothing can go.
//!
//! The LRU has Oracle's two parts (x$kghlu's TRANSIENT and RECURRENT CHUNKS, the two sides
//! of the SEPARATOR in a shared pool heap dump) and a third for handles whose heaps went:
//! a new handle is transient, and moves to the recurrent part when the ager finds it used
//! more than once (parsed again, executed again), kept or hot. The transient part is kept
//! to `_kghlu_transient_percent` of the pool and at most [`TRANSIENT_BYTES_MAX`], even when
//! the pool has room: literal SQL, each statement used once, then cycles through memory
//! that stays in the CPU's caches, whatever the pool's size, instead of through all of it
//! (a statement freed after the whole pool was filled is cold: freeing and reusing its
//! memory cost a cache miss per node). A handle aged out of any part keeps its text as a ghost
//! (S3-FIFO's ghost queue): ghosts are freed first when room is needed, and a statement
//! reused later than the transient part's window finds its ghost, is reloaded once, and is
//! recurrent from then on.
//!
//! ```text
//!   allocate(bytes) under the 'shared pool' latch:
//!     while used + bytes > size, or the transient part is over its target:
//!       handle = head of, in this order, the first part with handles whose last batch
//!                did not come back empty-handed:
//!                  transient over its target: transient, ghosts, recurrent
//!                  else:                      ghosts, recurrent, transient
//!         transient, loaded, and used again, kept or hot?  -> recurrent tail
//!         transient, parsed, not yet executed?             -> transient tail (once)
//!         ghost loaded again by a parse?                   -> recurrent tail
//!         recurrent, used since last pass?  -> recurrent tail (second chance)
//!         pinned, kept or busy?             -> tail of its part
//!         heap 0 or children loaded?        -> unload them (flush), ghosts' tail
//!         nothing loaded?                   -> free the handle itself
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
use crate::syntax::ast::Statement;

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
    /// The LRU's parts (indexed by `Part`), each least recently placed first: every handle
    /// in the library cache is in one (or in `in_flight`).
    pub(crate) lru: [VecDeque<Arc<Handle>>; 3],
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
    /// KGHLUNFU: allocations that failed (ORA-04031).
    pub failures: AtomicU64,
    /// KGHLUNFS: the size of the last failed allocation.
    pub last_failure_bytes: AtomicU64,
}

/// One part of the LRU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// Handles not (yet) used more than once.
    Transient = 0,
    /// Handles used more than once.
    Recurrent = 1,
    /// Handles whose heaps were aged out: only their text is left, so that a parse that
    /// finds one reloads it and it becomes recurrent (S3-FIFO's ghost queue).
    Ghost = 2,
}

/// The most the LRU's transient part may hold, whatever the pool's size: its bytes are what
/// literal SQL cycles through, and the fewer they are, the more of them the CPU's caches
/// hold (`examples/concurrent_parse 10 25000 exact POOL PERCENT`: 10 sessions of literal
/// SQL ran 155-173k statements/s through a 5 MB transient part, 176-204k through 1 MB and
/// 234-243k through 200 KB). A statement reused later than that is caught by its ghost.
pub const TRANSIENT_BYTES_MAX: u64 = 256 << 10;

/// `_kghlu_transient_percent`'s default: the share of the shared pool the LRU's transient
/// part may hold (as 2Q's and S3-FIFO's probation queues, 10-25% of the cache).
pub const TRANSIENT_PERCENT_DEFAULT: u64 = 10;

pub(crate) struct SharedPool {
    /// `shared_pool_size` (ALTER SYSTEM changes it).
    pub(crate) size_bytes: AtomicU64,
    /// `_kghlu_transient_percent`.
    pub(crate) transient_percent: AtomicU64,
    pub(crate) state: Latch<PoolState>,
    pub(crate) counters: LruCounters,
}

impl SharedPool {
    pub(crate) fn new(size_bytes: u64) -> SharedPool {
        SharedPool {
            size_bytes: AtomicU64::new(size_bytes),
            transient_percent: AtomicU64::new(TRANSIENT_PERCENT_DEFAULT),
            state: Latch::new(
                LatchName::SharedPool,
                PoolState {
                    used_bytes: 0,
                    category_bytes: [0; 3],
                    lru: [VecDeque::new(), VecDeque::new(), VecDeque::new()],
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

    /// The bytes the transient part may hold: `_kghlu_transient_percent` of the pool, at
    /// most [`TRANSIENT_BYTES_MAX`].
    fn transient_target(&self) -> u64 {
        let share = self.transient_percent.load(Ordering::Relaxed);
        (u128::from(self.size()) * u128::from(share) / 100).min(u128::from(TRANSIENT_BYTES_MAX))
            as u64
    }

    /// Whether the transient part holds more than its target. Its bytes are estimated: the
    /// bytes in use, less the ghosts' share of the handles' bytes (a ghost holds only its
    /// handle), times the transient part's share of the loaded handles (a handle's bytes are
    /// charged in pieces, handle, tree, each child, by callers that do not know its part).
    fn transient_over(&self, state: &PoolState) -> bool {
        let [transient, recurrent, ghosts] = state.lru.each_ref().map(|list| list.len() as u128);
        let loaded = transient + recurrent;
        if loaded == 0 {
            return false;
        }
        let handle_bytes = u128::from(state.category_bytes[Category::Handles as usize]);
        let ghost_bytes = handle_bytes * ghosts / (loaded + ghosts);
        let loaded_bytes = u128::from(state.used_bytes).saturating_sub(ghost_bytes);
        loaded_bytes * transient > u128::from(self.transient_target()) * loaded
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
    /// Pinned, kept or busy, or recurrent and used since the last pass: back to the tail of
    /// its part.
    Kept(Arc<Handle>),
    /// Transient and used again, kept or hot, or a ghost loaded again: to the recurrent
    /// part's tail.
    Promoted(Arc<Handle>),
    /// Its heaps (and hot copies) went; the handle stays, a ghost, at the ghost part's tail.
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
    /// Aging works in batches: [`AGING_BATCH`] handles leave the head of one part of the
    /// LRU under the latch (listed as in flight, so that `handles` still sees them), are
    /// examined and aged with the latch released (touching a cold handle, its mutex and its
    /// bucket costs cache misses that would otherwise lengthen the latch's hold, and more
    /// so the larger the pool), and come back (or their bytes do) under the latch. When the
    /// bytes fit but the transient part is over its share, they are charged and one batch of
    /// the transient part is aged.
    pub(crate) fn allocate(&self, bytes: u64, category: Category, text: &str) -> Result<()> {
        let pool = &self.pool;
        self.count_lru_operation();
        let mut examined = 0usize;
        let mut budget = None;
        // By part: its last batch freed nothing. Then batches come from the next part in
        // the order, whatever the transient part's share (a part may hold only pinned or
        // kept handles), until every part with handles is stuck, when a new round begins (a
        // recurrent pass that only cleared `used` bits frees on the next).
        let mut stuck = [false; 3];
        loop {
            let (batch, part, charged) = {
                let mut state = pool.state.lock();
                let over = pool.transient_over(&state);
                let charged = state.used_bytes + bytes <= pool.size();
                if charged {
                    state.used_bytes += bytes;
                    state.category_bytes[category as usize] += bytes;
                    if !over {
                        unlock(state);
                        return Ok(());
                    }
                }
                // Handles other sessions' agers are examining count too: they may be about
                // to free room (without them a small pool could fail while they do).
                let listed: usize = state.lru.iter().map(VecDeque::len).sum();
                let handles = listed + state.in_flight.len();
                let budget = *budget.get_or_insert(handles * 2 + 1);
                if !charged && (examined >= budget || handles == 0) {
                    unlock(state);
                    break;
                }
                if listed == 0 {
                    // Every handle is with another ager: let it finish, then look again.
                    unlock(state);
                    if charged {
                        return Ok(());
                    }
                    examined += 1;
                    std::thread::yield_now();
                    continue;
                }
                // Over its target, the transient part first; else ghosts (they hold least and
                // are worth least), then recurrent handles, then the transient part.
                let order = if over {
                    [Part::Transient, Part::Ghost, Part::Recurrent]
                } else {
                    [Part::Ghost, Part::Recurrent, Part::Transient]
                };
                let open = |part: &Part, stuck: &[bool; 3]| {
                    !stuck[*part as usize] && !state.lru[*part as usize].is_empty()
                };
                if !order.iter().any(|part| open(part, &stuck)) {
                    stuck = [false; 3];
                }
                let part = order
                    .into_iter()
                    .find(|part| open(part, &stuck))
                    .unwrap_or(order[0]);
                if charged && part != Part::Transient {
                    // The bytes fit: only the transient part's target was to be kept.
                    unlock(state);
                    return Ok(());
                }
                let list = &mut state.lru[part as usize];
                let count = AGING_BATCH.min(list.len());
                let batch: Vec<Arc<Handle>> = list.drain(..count).collect();
                state.in_flight.extend(batch.iter().cloned());
                (batch, part, charged)
            };
            examined += batch.len().max(1);
            let mut garbage = Vec::new();
            let aged: Vec<Aged> = batch
                .into_iter()
                .map(|handle| self.age_one(handle, part, false, &mut garbage))
                .collect();
            let mut state = pool.state.lock();
            let mut flushed = 0;
            for outcome in aged {
                let (placed, flushed_one) = Self::settle(&mut state, outcome, part);
                flushed += u64::from(flushed_one);
                if let Some(handle) = placed {
                    state.in_flight.retain(|other| !Arc::ptr_eq(other, &handle));
                }
            }
            // Handles freed (or found freed) are obsolete: they leave `in_flight` here.
            state.in_flight.retain(|other| !other.is_obsolete());
            drop(state);
            drop(garbage);
            pool.counters.flushed.fetch_add(flushed, Ordering::Relaxed);
            if charged {
                return Ok(());
            }
            stuck[part as usize] = flushed == 0;
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

    /// Gives back what aging one handle, taken from `part`, freed, and puts the handle back
    /// in the part its outcome says. Returns the handle when it went back, and whether
    /// anything was flushed.
    fn settle(state: &mut PoolState, outcome: Aged, part: Part) -> (Option<Arc<Handle>>, bool) {
        let (placed, freed, flushed) = match outcome {
            Aged::Kept(handle) => (Some((handle, part)), [0; 3], false),
            Aged::Promoted(handle) => (Some((handle, Part::Recurrent)), [0; 3], false),
            Aged::Unloaded(handle, freed) => (Some((handle, Part::Ghost)), freed, true),
            Aged::Freed(freed) => (None, freed, true),
            Aged::Gone => (None, [0; 3], false),
        };
        Self::uncharge_all(state, freed);
        let placed = placed.map(|(handle, part)| {
            state.lru[part as usize].push_back(handle.clone());
            handle
        });
        (placed, flushed)
    }

    /// Puts a new handle at the tail of the LRU's transient part (its bytes already
    /// charged).
    pub(crate) fn enter_lru(&self, handle: Arc<Handle>) {
        self.pool.state.lock().lru[Part::Transient as usize].push_back(handle);
    }

    /// x$kghlu's KGHLURCR and KGHLUTRN: the handles in the LRU's recurrent and transient
    /// parts.
    pub fn lru_parts(&self) -> (u64, u64) {
        let state = self.pool.state.lock();
        (
            state.lru[Part::Recurrent as usize].len() as u64,
            state.lru[Part::Transient as usize].len() as u64,
        )
    }

    /// `_kghlu_transient_percent`: the share of the pool the LRU's transient part may hold.
    pub fn set_transient_percent(&self, percent: u64) {
        self.pool
            .transient_percent
            .store(percent.clamp(1, 90), Ordering::Relaxed);
    }

    /// Ages out unpinned, unkept objects until `bytes` more fit (or, with `everything`, all
    /// that can go: ALTER SYSTEM FLUSH SHARED_POOL), with the latch held throughout, the
    /// transient part first. Returns the objects flushed.
    pub(crate) fn age_out(&self, state: &mut PoolState, bytes: u64, everything: bool) -> u64 {
        let size = self.pool.size();
        let mut flushed = 0;
        for part in [Part::Transient, Part::Ghost, Part::Recurrent] {
            let mut examined = 0;
            let limit = state.lru[part as usize].len() * 2 + 1;
            while (everything || state.used_bytes + bytes > size) && examined < limit {
                let Some(handle) = state.lru[part as usize].pop_front() else {
                    break;
                };
                examined += 1;
                let outcome = self.age_one(handle, part, everything, &mut state.garbage);
                let (_, flushed_one) = Self::settle(state, outcome, part);
                flushed += u64::from(flushed_one);
            }
        }
        self.pool
            .counters
            .flushed
            .fetch_add(flushed, Ordering::Relaxed);
        flushed
    }

    /// Examines one handle taken from `part` of the LRU (unless `everything`: a transient
    /// handle used more than once, kept or hot is promoted, as is a ghost a parse loaded
    /// again; a recurrent one used since the last pass, and a ghost a parse is reloading,
    /// get a second chance), keeps it if pinned, kept or busy, else unloads its heaps and hot
    /// copies (it becomes a ghost), or frees it when nothing was loaded. What it takes out goes to `garbage`, for
    /// the caller to drop without the latch. Touches no pool state: it runs with or without
    /// the latch.
    fn age_one(
        &self,
        handle: Arc<Handle>,
        part: Part,
        everything: bool,
        garbage: &mut Vec<Garbage>,
    ) -> Aged {
        if handle.is_obsolete() {
            return Aged::Gone;
        }
        if !everything && part == Part::Recurrent && handle.used.swap(false, Ordering::Relaxed) {
            return Aged::Kept(handle);
        }
        let Some(mut handle_state) = handle.state.try_exclusive() else {
            return Aged::Kept(handle);
        };
        // Again under its mutex: a session that lost the race to load the same text marks
        // its handle obsolete, and takes its heap 0 back, under this mutex.
        if handle.is_obsolete() {
            return Aged::Gone;
        }
        if !everything && part == Part::Transient && handle_state.statement.is_some() {
            // Loaded and used again, kept or hot: recurrent. (An unloaded handle is not
            // promoted: it is freed, or promoted once a parse reloads it.)
            if handle_state.kept || handle.is_hot() || handle_state.used_again(&handle) {
                drop(handle_state);
                return Aged::Promoted(handle);
            }
            // Parsed but not yet executed: one more pass, for its first execution.
            if handle_state.children.is_empty() && handle.used.swap(false, Ordering::Relaxed) {
                drop(handle_state);
                return Aged::Kept(handle);
            }
        }
        if !everything && part == Part::Ghost {
            // Heap 0 loaded again by a parse: used again, recurrent. (A child alone proves
            // nothing: a session that parsed before the handle was unloaded pins it after.)
            if handle_state.statement.is_some() {
                drop(handle_state);
                return Aged::Promoted(handle);
            }
            // A parse found it and is reloading it (its allocation may be what brought the
            // ager here): kept for the next pass.
            if handle.used.swap(false, Ordering::Relaxed) {
                drop(handle_state);
                return Aged::Kept(handle);
            }
        }
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
            // A ghost now: the next use of its bit is a parse finding it (see above).
            handle.used.store(false, Ordering::Relaxed);
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
