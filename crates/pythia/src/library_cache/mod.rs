//! The library cache: statements parsed once and shared by every session of the instance.
//!
//! ```text
//!   parse call (text)
//!     CURSOR_SHARING=FORCE? literals -> :"SYS_B_n"           (cursor_sharing.rs)
//!     session cursor cache hit?  -> the handle, no latch, no bucket   (session_cache.rs)
//!     sql_id = MD5(text || NUL)                               (sql_id.rs)
//!     'library cache' latch (S) -> bucket[hash mod n] mutex (S, kglhbh1 63) -> handle
//!        found, heap 0 loaded         -> soft parse
//!        found, aged out              -> reload heap 0 (parse again; reloads + 1)
//!        not found                    -> parse, allocate in the shared pool (pool.rs),
//!                                        insert under the bucket mutex (X, kglhdgn1 62)
//!   execute (binds)
//!     handle mutex (X, kglpin1 4): pins + 1, find the child with this optimizer
//!        environment and these bind types
//!        found  -> its pin in S (kksfbc), execute its plan           (a pin hit)
//!        none   -> a new child, its pin in X while this session plans: others wait on
//!                  'cursor: pin S wait on X'; then publish (plan charged to the pool)
//!     done: pin released; handle mutex (X, kglpndl1 95): pins - 1
//! ```
//!
//! The bucket array has `_kgl_bucket_count`'s number of buckets (509, 1021, ... as Oracle's
//! table) and doubles, under the 'library cache' latch held exclusively, when handles
//! outnumber buckets by [`CHAIN_LENGTH_MAX`]: Oracle's growth, which leaves non-prime sizes.
//!
//! DBMS_SHARED_POOL: KEEP pins a handle in the pool for good; MARKHOT makes sessions use
//! `_kgl_hot_object_copies` copies of a cursor, each session always the same copy (its sid
//! modulo the copies), so that the pins of many sessions spread over several mutexes.
//!
//! Invalidation: the catalog calls [`LibraryCache::invalidate`] with the names of the objects
//! a DDL changed, while it publishes the new dictionary (under its latch): every child whose
//! statement names one of them is marked invalid, and its next execution builds it again.
//! A session checks its child's validity under the same latch as it reads the dictionary, so
//! it never runs a plan against a dictionary the plan was not made for.

pub mod cursor;
pub mod cursor_sharing;
pub mod objects;
pub mod pool;
pub mod session_cache;
pub mod sql_id;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use md5::{Digest, Md5};

use crate::error::{Error, Result};
use crate::instrumentation::striped::StripedCounter;
use crate::instrumentation::{KglMutex, Latch, LatchName, MutexType, RwLatch};
use crate::syntax::ast::{self, Statement};
use crate::syntax::lexer::{tokenize, TokenKind};

use cursor::{location, ChildStatistics};
pub use cursor::{
    ChildCursor, ChildKey, CursorPin, Executable, Handle, Mismatch, Namespace, PlanSummary,
};
use pool::{Category, SharedPool};
use sql_id::SqlId;

/// A dependency that matches every object: a statement whose dependencies could not all be
/// listed (`DEPENDENCIES_MAX`) is invalidated by any DDL.
pub const ANY_OBJECT: &str = "*";

/// Handles per bucket, on average, beyond which the bucket array doubles.
pub const CHAIN_LENGTH_MAX: usize = 2;

/// The most buckets the array grows to.
pub const BUCKETS_MAX: usize = 1 << 22;

/// A namespace's counters (v$librarycache).
#[derive(Default)]
pub struct NamespaceCounters {
    /// Counted at every parse call and execution of every session: striped by CPU.
    pub gets: StripedCounter,
    pub gethits: StripedCounter,
    pub pins: StripedCounter,
    pub pinhits: StripedCounter,
    pub reloads: AtomicU64,
    pub invalidations: AtomicU64,
}

type Chain = KglMutex<Vec<Arc<Handle>>>;

/// An open cursor of a session (v$open_cursor).
#[derive(Clone)]
pub struct OpenCursor {
    pub handle: Arc<Handle>,
    /// v$open_cursor.cursor_type.
    pub cursor_type: &'static str,
}

/// What a parse call found.
pub struct Parsed {
    pub handle: Arc<Handle>,
    pub statement: Arc<Statement>,
}

pub struct LibraryCache {
    /// The bucket array: the 'library cache' latch, shared to search, exclusive to grow.
    directory: RwLatch<Box<[Chain]>>,
    handles: AtomicUsize,
    pub(crate) pool: SharedPool,
    namespaces: [NamespaceCounters; 6],
    hot_copies: u32,
    next_address: AtomicU64,
    /// Full hash values marked hot before (or after) their cursor was loaded.
    hot_hashes: Latch<HashSet<[u32; 4]>>,
    /// Objects marked hot (schema, name, namespace): recorded and shown.
    hot_objects: Latch<BTreeSet<(String, String, u32)>>,
    open_cursors: Latch<BTreeMap<u32, Vec<OpenCursor>>>,
    /// Compiled stored units (`objects.rs`).
    objects: Latch<objects::Objects>,
}

impl LibraryCache {
    pub fn new(buckets: usize, shared_pool_bytes: u64, hot_copies: u32) -> LibraryCache {
        LibraryCache {
            directory: RwLatch::new(LatchName::LibraryCache, Self::chains(buckets.max(1))),
            handles: AtomicUsize::new(0),
            pool: SharedPool::new(shared_pool_bytes),
            namespaces: Default::default(),
            hot_copies,
            next_address: AtomicU64::new(0x7000_0000),
            hot_hashes: Latch::new(LatchName::LibraryCacheLock, HashSet::new()),
            hot_objects: Latch::new(LatchName::LibraryCacheLock, BTreeSet::new()),
            open_cursors: Latch::new(LatchName::LibraryCacheLock, BTreeMap::new()),
            objects: Latch::new(LatchName::LibraryCacheLock, objects::Objects::default()),
        }
    }

    fn chains(count: usize) -> Box<[Chain]> {
        (0..count)
            .map(|number| KglMutex::new(MutexType::LibraryCache, number as u64, Vec::new()))
            .collect()
    }

    pub fn bucket_count(&self) -> usize {
        self.directory.read().len()
    }

    pub fn namespace(&self, namespace: Namespace) -> &NamespaceCounters {
        &self.namespaces[namespace.index()]
    }

    fn sql_area(&self) -> &NamespaceCounters {
        self.namespace(Namespace::SqlArea)
    }

    /// A parse call served by a session's cursor cache: a get and a hit in SQL AREA.
    pub fn count_cached_get(&self, handle: &Handle) {
        let counters = self.sql_area();
        counters.gets.add(1);
        counters.gethits.add(1);
        handle.mark_used();
        handle.parse_calls.fetch_add(1, Ordering::Relaxed);
    }

    /// The parent cursor of `text` for a session: found (soft parse), reloaded, or loaded by
    /// `load` (the parser; it returns the tree and the bytes it holds). A hot cursor gives
    /// the session its copy.
    pub fn get(
        &self,
        text: &str,
        sid: u32,
        load: impl FnOnce() -> Result<(Statement, u64)>,
    ) -> Result<Parsed> {
        let counters = self.sql_area();
        counters.gets.add(1);
        let hash = bucket_hash(text);
        let handle = match self.find(text, hash) {
            Some(handle) => handle,
            None => return self.load_new(text, sid, load),
        };
        handle.mark_used();
        handle.parse_calls.fetch_add(1, Ordering::Relaxed);
        let statement = handle
            .state
            .exclusive(location::PARSE_LOCK)
            .statement
            .clone();
        let statement = match statement {
            Some(statement) => {
                counters.gethits.add(1);
                statement
            }
            None => self.reload(&handle, load)?,
        };
        let handle = self.copy_for(handle, &statement, sid)?;
        Ok(Parsed { handle, statement })
    }

    fn bucket_of(chains: &[Chain], hash: u64) -> usize {
        (hash % chains.len() as u64) as usize
    }

    fn find(&self, text: &str, hash: u64) -> Option<Arc<Handle>> {
        let directory = self.directory.read();
        let chain = directory[Self::bucket_of(&directory, hash)].shared(location::BUCKET_SEARCH);
        chain
            .iter()
            .find(|handle| handle.bucket_hash == hash && *handle.text == *text)
            .cloned()
    }

    /// Loads heap 0 of a handle that was aged out.
    fn reload(
        &self,
        handle: &Arc<Handle>,
        load: impl FnOnce() -> Result<(Statement, u64)>,
    ) -> Result<Arc<Statement>> {
        let (statement, bytes) = load()?;
        // Marked used again just before allocating: that allocation may bring the ager to
        // this very ghost, which then waits a pass for us.
        handle.mark_used();
        self.allocate(bytes, Category::Heap0, &handle.text)?;
        let statement = Arc::new(statement);
        let mut state = handle.state.exclusive(location::PARSE_LOCK);
        if let Some(existing) = state.statement.clone() {
            drop(state);
            self.release(bytes, Category::Heap0);
            return Ok(existing);
        }
        if handle.obsolete.load(Ordering::Acquire) {
            // Freed meanwhile: this session uses its tree; the next parse loads anew.
            drop(state);
            self.release(bytes, Category::Heap0);
            return Ok(statement);
        }
        state.statement = Some(statement.clone());
        state.statement_bytes = bytes;
        state.loads += 1;
        handle.loaded.store(true, Ordering::Release);
        drop(state);
        handle.reloads.fetch_add(1, Ordering::Relaxed);
        self.sql_area().reloads.fetch_add(1, Ordering::Relaxed);
        Ok(statement)
    }

    fn load_new(
        &self,
        text: &str,
        sid: u32,
        load: impl FnOnce() -> Result<(Statement, u64)>,
    ) -> Result<Parsed> {
        let (statement, bytes) = load()?;
        let handle = Arc::new(Handle::new(
            Arc::from(text),
            SqlId::of(text),
            0,
            self.address(),
        ));
        self.allocate(handle.handle_bytes(), Category::Handles, text)?;
        if let Err(error) = self.allocate(bytes, Category::Heap0, text) {
            self.release(handle.handle_bytes(), Category::Handles);
            return Err(error);
        }
        let statement = Arc::new(statement);
        handle
            .command_type
            .store(command_type(&statement), Ordering::Relaxed);
        {
            let mut state = handle.state.exclusive(location::HANDLE_CREATE);
            state.statement = Some(statement.clone());
            state.statement_bytes = bytes;
            state.loads = 1;
        }
        handle.loaded.store(true, Ordering::Release);
        handle.parse_calls.store(1, Ordering::Relaxed);
        if self.hot_hashes.lock().contains(&handle.id.words) {
            handle.hot.store(true, Ordering::Relaxed);
        }
        // In the LRU before any other session can find it in its bucket: invalidation and
        // KEEP / MARKHOT list handles from the LRU, and must see every handle a session can
        // pin. (New, it is marked used: the ager passes it over once while it has no child.)
        self.enter_lru(handle.clone());
        let existing = {
            let directory = self.directory.read();
            let mut chain = directory[Self::bucket_of(&directory, handle.bucket_hash)]
                .exclusive(location::HANDLE_CREATE);
            let existing = chain
                .iter()
                .find(|other| other.bucket_hash == handle.bucket_hash && other.text == handle.text)
                .cloned();
            if existing.is_none() && !handle.is_obsolete() {
                chain.push(handle.clone());
            }
            existing
        };
        if let Some(existing) = existing {
            // Another session loaded the same text meanwhile: use its handle (and its tree
            // when it has one; the two trees are of the same text). Ours leaves the LRU at
            // the ager's next pass. Marked obsolete, and its heap 0 taken back, under its
            // mutex: an ager that took the mutex first unloaded the heap and gave its bytes
            // back (then ours has nothing to give); one after sees the mark and goes on.
            let heap_0_bytes = {
                let mut state = handle.state.exclusive(location::HANDLE_CREATE);
                handle.obsolete.store(true, Ordering::Release);
                handle.loaded.store(false, Ordering::Release);
                state.statement_bytes = 0;
                state.statement.take().map_or(0, |_| bytes)
            };
            self.release(handle.handle_bytes(), Category::Handles);
            self.release(heap_0_bytes, Category::Heap0);
            let theirs = existing
                .state
                .exclusive(location::PARSE_LOCK)
                .statement
                .clone();
            let statement = theirs.unwrap_or(statement);
            let handle = self.copy_for(existing, &statement, sid)?;
            return Ok(Parsed { handle, statement });
        }
        let count = self.handles.fetch_add(1, Ordering::Relaxed) + 1;
        self.grow_if_long(count);
        let handle = self.copy_for(handle, &statement, sid)?;
        Ok(Parsed { handle, statement })
    }

    fn address(&self) -> u64 {
        self.next_address.fetch_add(0x1000, Ordering::Relaxed)
    }

    /// Doubles the bucket array when chains have grown long.
    fn grow_if_long(&self, handles: usize) {
        let buckets = self.directory.read().len();
        if handles <= buckets * CHAIN_LENGTH_MAX || buckets * 2 > BUCKETS_MAX {
            return;
        }
        let mut directory = self.directory.write();
        if handles <= directory.len() * CHAIN_LENGTH_MAX {
            return; // another session grew it
        }
        let chains = Self::chains(directory.len() * 2);
        for chain in directory.iter_mut() {
            for handle in chain.get_mut().drain(..) {
                let bucket = Self::bucket_of(&chains, handle.bucket_hash);
                chains[bucket]
                    .exclusive(location::HANDLE_CREATE)
                    .push(handle);
            }
        }
        *directory = chains;
    }

    /// Takes a handle out of its bucket (the ager freeing it). False if its bucket is busy.
    pub(crate) fn remove_handle(&self, handle: &Arc<Handle>) -> bool {
        let Some(directory) = self.directory.try_read() else {
            return false;
        };
        let Some(mut chain) =
            directory[Self::bucket_of(&directory, handle.bucket_hash)].try_exclusive()
        else {
            return false;
        };
        chain.retain(|other| !Arc::ptr_eq(other, handle));
        handle.obsolete.store(true, Ordering::Release);
        handle.loaded.store(false, Ordering::Release);
        self.handles.fetch_sub(1, Ordering::Relaxed);
        true
    }

    /// The handle a session uses for `handle`: itself, or its copy when it is hot.
    fn copy_for(
        &self,
        handle: Arc<Handle>,
        statement: &Arc<Statement>,
        sid: u32,
    ) -> Result<Arc<Handle>> {
        if !handle.is_hot() || self.hot_copies == 0 {
            return Ok(handle);
        }
        let copy_number = sid as usize % self.hot_copies as usize;
        if let Some(copy) = handle
            .state
            .shared(location::INSPECT)
            .copies
            .get(copy_number)
        {
            return Ok(copy.clone());
        }
        // Make the copies: charged first, installed under the handle's mutex.
        let copies: Vec<Arc<Handle>> = (1..=self.hot_copies)
            .map(|copy| {
                Arc::new(Handle::new(
                    handle.text.clone(),
                    handle.id.clone(),
                    copy,
                    self.address(),
                ))
            })
            .collect();
        let bytes: u64 = copies.iter().map(|copy| copy.handle_bytes()).sum();
        if self
            .allocate(bytes, Category::Handles, &handle.text)
            .is_err()
        {
            // No room for the copies: the session uses the object itself, as if not hot.
            return Ok(handle);
        }
        for copy in &copies {
            let mut state = copy.state.exclusive(location::HANDLE_CREATE);
            state.statement = Some(statement.clone());
            state.loads = 1;
            copy.hot.store(false, Ordering::Relaxed);
            copy.loaded.store(true, Ordering::Release);
            copy.command_type.store(
                handle.command_type.load(Ordering::Relaxed),
                Ordering::Relaxed,
            );
        }
        let mut state = handle.state.exclusive(location::INSPECT);
        if state.copies.is_empty() && handle.is_loaded() {
            state.copies = copies;
        } else {
            drop(state);
            self.release(bytes, Category::Handles);
            state = handle.state.exclusive(location::INSPECT);
        }
        Ok(state
            .copies
            .get(copy_number)
            .cloned()
            .unwrap_or_else(|| handle.clone()))
    }

    /// Pins the child of `handle` that `key` shares, or a new one for this session to build.
    pub fn pin(self: &Arc<Self>, handle: &Arc<Handle>, key: &ChildKey) -> CursorPin {
        handle.mark_used();
        let counters = self.sql_area();
        counters.pins.add(1);
        self.count_lru_operation();
        let mut state = handle.state.exclusive(location::PIN);
        state.pins += 1;
        loop {
            let found = state
                .children
                .iter()
                .find(|child| child.key == *key && child.is_valid())
                .cloned();
            if let Some(child) = found {
                drop(state);
                child.pin.acquire_shared(location::CHILD_PIN);
                if child.is_built() {
                    child
                        .statistics
                        .users_executing
                        .fetch_add(1, Ordering::Relaxed);
                    counters.pinhits.add(1);
                    return CursorPin {
                        handle: handle.clone(),
                        child,
                        building: false,
                        library: self.clone(),
                    };
                }
                // Its build failed while this session waited: look again.
                // SAFETY: the shared get just taken above, given back once.
                unsafe { child.pin.release_shared() };
                state = handle.state.exclusive(location::PIN);
                continue;
            }
            // An invalid child is replaced once built: one still being built is its
            // builder's to publish (and charge), and stays in the list until then.
            let replaced = state
                .children
                .iter()
                .position(|child| child.key == *key && !child.is_valid() && child.is_built())
                .map(|position| state.children.remove(position));
            let (number, loads, invalidations) = match &replaced {
                Some(old) => (
                    old.number,
                    old.loads + 1,
                    old.invalidations.load(Ordering::Relaxed),
                ),
                None => {
                    let number = state.next_child_number;
                    state.next_child_number += 1;
                    (number, 1, 0)
                }
            };
            let mismatch = state
                .children
                .iter()
                .fold(Mismatch::default(), |mismatch, child| {
                    mismatch.union(Mismatch::between(key, child))
                });
            let mismatch = Mismatch {
                invalidated: replaced.is_some(),
                ..mismatch
            };
            let child = Arc::new(ChildCursor::new(
                number,
                key.clone(),
                mismatch,
                u64::from(handle.id.hash_value()),
                loads,
                invalidations,
            ));
            child.pin.acquire_exclusive(location::CHILD_BUILD);
            state.children.push(child.clone());
            drop(state);
            if let Some(old) = replaced {
                self.release(old.sharable_bytes(), Category::SqlArea);
                counters.reloads.fetch_add(1, Ordering::Relaxed);
            }
            return CursorPin {
                handle: handle.clone(),
                child,
                building: true,
                library: self.clone(),
            };
        }
    }

    /// Every handle in the library cache, copies included (for the views, invalidation,
    /// KEEP and MARKHOT): the LRU list holds each live handle once.
    pub fn handles(&self) -> Vec<Arc<Handle>> {
        let mut handles: Vec<Arc<Handle>> = {
            let pool = self.pool.state.lock();
            pool.lru
                .iter()
                .flatten()
                .chain(&pool.in_flight)
                .filter(|handle| !handle.obsolete.load(Ordering::Acquire))
                .cloned()
                .collect()
        };
        let copies: Vec<Arc<Handle>> = handles
            .iter()
            .flat_map(|handle| handle.state.shared(location::INSPECT).copies.clone())
            .collect();
        handles.extend(copies);
        handles
    }

    /// DDL changed the objects `names` (upper case): their dependent cursors are invalid.
    pub fn invalidate(&self, names: &BTreeSet<String>) -> u64 {
        if names.is_empty() {
            return 0;
        }
        let mut invalidated = 0;
        for handle in self.handles() {
            let state = handle.state.exclusive(location::INSPECT);
            for child in &state.children {
                if child.depends_on_any(names) && child.invalidate() {
                    invalidated += 1;
                }
            }
        }
        self.sql_area()
            .invalidations
            .fetch_add(invalidated, Ordering::Relaxed);
        invalidated
    }

    /// The handles (not copies) whose full hash value, sql_id, or `address,hash_value` is
    /// `name`.
    fn named(&self, name: &str) -> Vec<Arc<Handle>> {
        let name = name.trim().to_lowercase();
        let full_hash = parse_full_hash(&name).ok();
        let address_hash = name.split_once(',').and_then(|(address, hash)| {
            Some((
                u64::from_str_radix(address.trim(), 16).ok()?,
                hash.trim().parse::<u32>().ok()?,
            ))
        });
        self.handles()
            .into_iter()
            .filter(|handle| {
                handle.copy == 0
                    && (full_hash == Some(handle.id.words)
                        || address_hash == Some((handle.address, handle.id.hash_value()))
                        || (name.len() == sql_id::SQL_ID_LENGTH && handle.id.to_string() == name))
            })
            .collect()
    }

    /// DBMS_SHARED_POOL.KEEP / UNKEEP of a cursor. ORA-06502-style error when none matches.
    pub fn keep(&self, name: &str, keep: bool) -> Result<()> {
        let handles = self.named(name);
        if handles.is_empty() {
            return Err(no_such_cursor(name));
        }
        for handle in handles {
            handle.state.exclusive(location::INSPECT).kept = keep;
        }
        Ok(())
    }

    /// DBMS_SHARED_POOL.MARKHOT / UNMARKHOT of a cursor by its full hash value (32
    /// hexadecimal digits). A hash not loaded yet is marked for when it is.
    pub fn mark_hot(&self, full_hash: &str, hot: bool) -> Result<()> {
        let words = parse_full_hash(full_hash)?;
        {
            let mut marks = self.hot_hashes.lock();
            if hot {
                marks.insert(words);
            } else {
                marks.remove(&words);
            }
        }
        for handle in self.named(full_hash) {
            handle.hot.store(hot, Ordering::Relaxed);
            if !hot {
                let copies = std::mem::take(&mut handle.state.exclusive(location::INSPECT).copies);
                for copy in copies {
                    let children =
                        std::mem::take(&mut copy.state.exclusive(location::INSPECT).children);
                    let bytes: u64 = children.iter().map(|child| child.sharable_bytes()).sum();
                    copy.obsolete.store(true, Ordering::Release);
                    self.release(bytes, Category::SqlArea);
                    self.release(copy.handle_bytes(), Category::Handles);
                }
            }
        }
        Ok(())
    }

    /// DBMS_SHARED_POOL.MARKHOT / UNMARKHOT of an object (schema, name, namespace).
    pub fn mark_object_hot(&self, schema: &str, name: &str, namespace: u32, hot: bool) {
        let key = (schema.to_uppercase(), name.to_uppercase(), namespace);
        let mut marks = self.hot_objects.lock();
        if hot {
            marks.insert(key);
        } else {
            marks.remove(&key);
        }
    }

    pub fn hot_objects(&self) -> Vec<(String, String, u32)> {
        self.hot_objects.lock().iter().cloned().collect()
    }

    /// DBMS_SHARED_POOL.PURGE of a cursor: its heaps go now unless it is pinned.
    pub fn purge(&self, name: &str) -> Result<()> {
        let handles = self.named(name);
        if handles.is_empty() {
            return Err(no_such_cursor(name));
        }
        let mut pool = self.pool.state.lock();
        for handle in handles {
            let Some(mut state) = handle.state.try_exclusive() else {
                continue;
            };
            if state.pins == 0 {
                state.kept = false;
                Self::unload(&mut pool, &mut state, &handle);
            }
        }
        pool::unlock(pool);
        Ok(())
    }

    /// Replaces session `sid`'s open cursors (v$open_cursor); an empty list removes it.
    pub fn set_open_cursors(&self, sid: u32, cursors: Vec<OpenCursor>) {
        let mut registry = self.open_cursors.lock();
        if cursors.is_empty() {
            registry.remove(&sid);
        } else {
            registry.insert(sid, cursors);
        }
    }

    pub fn open_cursors(&self) -> Vec<(u32, OpenCursor)> {
        self.open_cursors
            .lock()
            .iter()
            .flat_map(|(&sid, cursors)| cursors.iter().map(move |cursor| (sid, cursor.clone())))
            .collect()
    }
}

fn no_such_cursor(name: &str) -> Error {
    Error::new(
        6502,
        format!("PL/SQL: numeric or value error: no cursor '{name}' in the library cache"),
    )
}

/// 32 hexadecimal digits: the four words of a full hash value.
fn parse_full_hash(text: &str) -> Result<[u32; 4]> {
    let text = text.trim();
    if text.len() != 32 || !text.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::new(
            6502,
            format!("PL/SQL: numeric or value error: '{text}' is not a 32-digit full hash value"),
        ));
    }
    let mut words = [0u32; 4];
    for (index, word) in words.iter_mut().enumerate() {
        *word = u32::from_str_radix(&text[index * 8..index * 8 + 8], 16).expect("hex digits");
    }
    Ok(words)
}

/// Oracle's command type (v$sql.command_type) of a statement.
pub fn command_type(statement: &Statement) -> u64 {
    match statement {
        Statement::CreateTable { .. } => 1,
        Statement::Insert { .. } => 2,
        Statement::Select(_) => 3,
        Statement::CreateIndex { .. } => 9,
        Statement::DropIndex { .. } => 10,
        Statement::AlterIndex { .. } => 11,
        Statement::DropTable { .. } => 12,
        Statement::CreateSequence { .. } => 13,
        Statement::AlterSequence { .. } => 14,
        Statement::AlterTable { .. } => 15,
        Statement::DropSequence { .. } => 16,
        Statement::Comment { .. } => 29,
        Statement::CreateView { .. } => 21,
        Statement::DropView { .. } => 22,
        Statement::CreateProgram { kind, .. } => match kind {
            ast::ProgramKind::Procedure => 24,
            ast::ProgramKind::Function => 91,
            ast::ProgramKind::Package => 94,
            ast::ProgramKind::PackageBody => 97,
        },
        Statement::AlterCompile { kind, .. } => match kind {
            ast::ProgramKind::Procedure => 25,
            ast::ProgramKind::Function => 92,
            ast::ProgramKind::Package => 95,
            ast::ProgramKind::PackageBody => 98,
        },
        Statement::DropProgram { kind, .. } => match kind {
            ast::ProgramKind::Procedure => 68,
            ast::ProgramKind::Function => 93,
            ast::ProgramKind::Package => 96,
            ast::ProgramKind::PackageBody => 99,
        },
        Statement::Block => 47,
        Statement::Call(_) => 170,
        Statement::Update { .. } => 6,
        Statement::Delete { .. } => 7,
        Statement::Rename { .. } => 28,
        Statement::Truncate { .. } => 85,
        Statement::Commit { .. } => 44,
        Statement::Rollback { .. } => 45,
        Statement::Savepoint(_) => 46,
        Statement::AlterSession(_) => 42,
        Statement::AlterSystem(_) => 49,
        Statement::Explain { .. } => 50,
        Statement::CreateUser { .. } => 51,
        Statement::AlterUser { .. } => 43,
        Statement::DropUser { .. } => 53,
        Statement::Grant {
            revoke, privileges, ..
        } => match (privileges, revoke) {
            (ast::Privileges::Table { .. }, false) => 17,
            (ast::Privileges::Table { .. }, true) => 18,
            (ast::Privileges::System(_), false) => 114,
            (ast::Privileges::System(_), true) => 115,
        },
        _ => 0,
    }
}

/// The hash a text's bucket is chosen by: FxHash, cheap enough that a soft parse costs a
/// small fraction of a hard one (MD5, for the sql_id, is computed once, at load).
pub fn bucket_hash(text: &str) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(text.as_bytes());
    hasher.finish()
}

/// The exact and force matching signatures of a text: the first 64 bits of the MD5 of its
/// tokens, upper case outside literals and quoted names, single-spaced (so that case and
/// spacing do not matter), of the text itself and of the text with its literals replaced.
pub fn signatures(text: &str) -> (u64, u64) {
    let exact = signature(text);
    let force = match cursor_sharing::force_literals(text) {
        Some(forced) => signature(&forced.text),
        None => exact,
    };
    (exact, force)
}

fn signature(text: &str) -> u64 {
    let Ok(tokens) = tokenize(text) else {
        return 0;
    };
    let mut hasher = Md5::new();
    for token in &tokens {
        let source = &text[token.start..token.end];
        match &token.kind {
            TokenKind::Word(_) => hasher.update(source.to_uppercase().as_bytes()),
            _ => hasher.update(source.as_bytes()),
        }
        hasher.update(b" ");
    }
    let digest = hasher.finalize();
    u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// The names a text refers to (upper case): every word and quoted name, which include the
/// objects it depends on (and some keywords, harmless for invalidation).
pub fn referenced_names(text: &str) -> BTreeSet<String> {
    let Ok(tokens) = tokenize(text) else {
        return BTreeSet::new();
    };
    tokens
        .iter()
        .filter_map(|token| match &token.kind {
            TokenKind::Word(word) => Some(word.to_uppercase()),
            TokenKind::QuotedIdentifier(name) => Some(name.clone()),
            _ => None,
        })
        .collect()
}

impl ChildStatistics {
    /// One execution's figures.
    pub fn record(
        &self,
        buffer_gets: u64,
        disk_reads: u64,
        rows: u64,
        elapsed_micros: u64,
        cpu_micros: u64,
    ) {
        self.executions.fetch_add(1, Ordering::Relaxed);
        self.buffer_gets.fetch_add(buffer_gets, Ordering::Relaxed);
        self.disk_reads.fetch_add(disk_reads, Ordering::Relaxed);
        self.rows_processed.fetch_add(rows, Ordering::Relaxed);
        self.elapsed_micros
            .fetch_add(elapsed_micros, Ordering::Relaxed);
        self.cpu_micros.fetch_add(cpu_micros, Ordering::Relaxed);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        self.last_active.store(now, Ordering::Relaxed);
    }
}
