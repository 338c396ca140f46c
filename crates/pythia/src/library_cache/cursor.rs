//! Parent cursors (library cache handles) and child cursors, and the pin a session holds on
//! a child while it executes.
//!
//! ```text
//!   Handle (parent: one per text, or per hot copy of a text)
//!     mutex "Library Cache" (idn = hash value): pin / unpin counts, the children list
//!     heap 0: the syntax tree (None once aged out: a later get reloads it)
//!     children ──> ChildCursor 0, 1, ...  one per optimizer environment and bind types
//!                    mutex "Cursor Pin": S while a session executes it, X while it is built
//!                    plan (a query's or a DML statement's, when it can run again),
//!                    statistics (v$sql)
//! ```
//!
//! Invariants:
//! 1. A child's pin is held exclusively only by the session building it, from the moment the
//!    child enters its parent's list until [`CursorPin::publish`] or the pin's drop; every
//!    other session's shared get waits for that ('cursor: pin S wait on X').
//! 2. A child that failed to build leaves its parent's list before its pin is released, and
//!    is marked invalid, so a waiter that gets it afterwards looks again.
//! 3. `HandleState::pins` counts the [`CursorPin`]s on the handle's children: a handle with
//!    pins is never aged out.

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::instrumentation::{KglMutex, MutexType};
use crate::syntax::ast::Statement;
use crate::types::Value;

use super::sql_id::SqlId;

/// Fixed bytes charged for a handle besides its text (Oracle's KGLHD chunk).
pub const HANDLE_BYTES: u64 = 256;
/// Fixed bytes charged for a child cursor besides its plan.
pub const CHILD_BYTES: u64 = 512;

/// Mutex locations, as Oracle names them in v$mutex_sleep.
pub mod location {
    /// Searching a hash bucket's chain.
    pub const BUCKET_SEARCH: &str = "kglhbh1   63";
    /// Adding a handle to, or taking one out of, a hash bucket's chain.
    pub const HANDLE_CREATE: &str = "kglhdgn1  62";
    /// A parse call's lock on the parent (heap 0, the syntax tree).
    pub const PARSE_LOCK: &str = "kglpnal1  90";
    /// Pinning the parent for an execution, and finding its child.
    pub const PIN: &str = "kglpin1   4";
    /// Unpinning the parent after an execution.
    pub const UNPIN: &str = "kglpndl1  95";
    /// Getting a child's pin to execute it (kksfbc: find bound cursor).
    pub const CHILD_PIN: &str = "kksfbc [KKSCHLFSP2]";
    /// Building a new child.
    pub const CHILD_BUILD: &str = "kkshbbr [KKSCHLFSP3]";
    /// Reading a handle for the views, invalidation, KEEP and MARKHOT.
    pub const INSPECT: &str = "kglhdgc1  102";
}

/// A library cache namespace (v$librarycache.namespace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Namespace {
    SqlArea,
    TableProcedure,
    Body,
    Trigger,
    Index,
    Cluster,
}

impl Namespace {
    pub const ALL: [Namespace; 6] = [
        Namespace::SqlArea,
        Namespace::TableProcedure,
        Namespace::Body,
        Namespace::Trigger,
        Namespace::Index,
        Namespace::Cluster,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Namespace::SqlArea => "SQL AREA",
            Namespace::TableProcedure => "TABLE/PROCEDURE",
            Namespace::Body => "BODY",
            Namespace::Trigger => "TRIGGER",
            Namespace::Index => "INDEX",
            Namespace::Cluster => "CLUSTER",
        }
    }

    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A parent cursor: one statement text in the library cache (or one hot copy of it).
pub struct Handle {
    /// The text as hashed (after CURSOR_SHARING = FORCE replaced literals).
    pub text: Arc<str>,
    pub id: SqlId,
    /// 0 for the object itself; 1..=n for its hot copies (`_kgl_hot_object_copies`).
    pub copy: u32,
    /// v$sql.address: a number unique in the instance.
    pub address: u64,
    /// What the bucket is chosen by: a fast hash of the text (`bucket_hash`).
    pub bucket_hash: u64,
    /// Normalized-text signatures (v$sql.exact_matching_signature and
    /// force_matching_signature), computed when first asked for.
    signatures: OnceLock<(u64, u64)>,
    /// Oracle's command type of the statement (v$sql.command_type), 0 until parsed.
    pub command_type: AtomicU64,
    pub(crate) state: KglMutex<HandleState>,
    /// Set by every use; the ager gives a used handle a second chance (see `pool`).
    pub(crate) used: AtomicBool,
    /// Whether heap 0 is loaded: read without the mutex by session cursor cache hits.
    pub(crate) loaded: AtomicBool,
    /// Marked hot (DBMS_SHARED_POOL.MARKHOT): sessions use its copies.
    pub(crate) hot: AtomicBool,
    /// Freed: no longer in the library cache (sessions may still hold it).
    pub(crate) obsolete: AtomicBool,
    /// Parse calls that found or loaded this handle (v$sqlarea.parse_calls).
    pub(crate) parse_calls: AtomicU64,
    /// Times heap 0 was loaded again after being aged out.
    pub(crate) reloads: AtomicU64,
    /// Unix seconds of the first load (v$sql.first_load_time).
    pub first_load: i64,
}

/// What a handle's mutex guards.
#[derive(Default)]
pub(crate) struct HandleState {
    pub(crate) statement: Option<Arc<Statement>>,
    /// Bytes charged for `statement`.
    pub(crate) statement_bytes: u64,
    pub(crate) children: Vec<Arc<ChildCursor>>,
    pub(crate) next_child_number: u32,
    /// Pins held on the children (executions in progress).
    pub(crate) pins: u32,
    /// DBMS_SHARED_POOL.KEEP: never aged out.
    pub(crate) kept: bool,
    /// The hot copies, when marked hot.
    pub(crate) copies: Vec<Arc<Handle>>,
    /// Times heap 0 was loaded.
    pub(crate) loads: u64,
}

impl HandleState {
    /// Whether the handle was used more than once: parsed again, executed again, or loaded
    /// again after being aged out. The LRU's transient part keeps a handle until it is.
    pub(crate) fn used_again(&self, handle: &Handle) -> bool {
        handle.parse_calls.load(Ordering::Relaxed) > 1
            || handle.reloads.load(Ordering::Relaxed) > 0
            || self
                .children
                .iter()
                .map(|child| child.statistics.executions.load(Ordering::Relaxed))
                .sum::<u64>()
                > 1
    }

    /// Bytes of heap 0 and the children: what aging the handle out gives back.
    pub fn loaded_bytes(&self) -> u64 {
        self.statement_bytes
            + self
                .children
                .iter()
                .map(|child| child.sharable_bytes.load(Ordering::Relaxed))
                .sum::<u64>()
    }
}

impl Handle {
    /// Sets the second-chance bit the ager clears, writing only when it is clear: every
    /// parse call and pin of a shared cursor asks, and a store each time would move the
    /// handle's cache line between CPUs for nothing.
    #[inline]
    pub(crate) fn mark_used(&self) {
        if !self.used.load(Ordering::Relaxed) {
            self.used.store(true, Ordering::Relaxed);
        }
    }

    pub(crate) fn new(text: Arc<str>, id: SqlId, copy: u32, address: u64) -> Handle {
        Handle {
            bucket_hash: super::bucket_hash(&text),
            state: KglMutex::new(
                MutexType::LibraryCache,
                u64::from(id.hash_value()),
                HandleState::default(),
            ),
            text,
            id,
            copy,
            address,
            signatures: OnceLock::new(),
            command_type: AtomicU64::new(0),
            used: AtomicBool::new(true),
            loaded: AtomicBool::new(false),
            hot: AtomicBool::new(false),
            obsolete: AtomicBool::new(false),
            parse_calls: AtomicU64::new(0),
            reloads: AtomicU64::new(0),
            first_load: chrono::Utc::now().timestamp(),
        }
    }

    /// v$sql.exact_matching_signature and force_matching_signature.
    pub fn signatures(&self) -> (u64, u64) {
        *self
            .signatures
            .get_or_init(|| super::signatures(&self.text))
    }

    /// Bytes charged for the handle itself.
    pub fn handle_bytes(&self) -> u64 {
        HANDLE_BYTES + self.text.len() as u64
    }

    pub fn is_loaded(&self) -> bool {
        self.loaded.load(Ordering::Acquire) && !self.obsolete.load(Ordering::Acquire)
    }

    /// Freed from the library cache (sessions may still hold it).
    pub fn is_obsolete(&self) -> bool {
        self.obsolete.load(Ordering::Acquire)
    }

    pub fn is_hot(&self) -> bool {
        self.hot.load(Ordering::Relaxed)
    }
}

/// The type of a bind value, as child cursor matching compares them.
pub fn bind_type(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Number(_) => 1,
        Value::Float(_) => 2,
        Value::Text(_) => 3,
        Value::Date(_) => 4,
        Value::Timestamp(_) => 5,
        Value::Boolean(_) => 6,
    }
}

/// What a child cursor is shared by: sessions with the same optimizer environment
/// executing with binds of the same types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildKey {
    /// A digest of the parameters the optimizer reads.
    pub environment: u64,
    pub optimizer_mode: &'static str,
    pub bind_types: Box<[u8]>,
}

impl ChildKey {
    pub fn new(environment: u64, optimizer_mode: &'static str, binds: &[Value]) -> ChildKey {
        ChildKey {
            environment,
            optimizer_mode,
            bind_types: binds.iter().map(bind_type).collect(),
        }
    }
}

/// Why a child could not share an existing one (v$sql_shared_cursor's Y/N columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mismatch {
    pub optimizer: bool,
    pub bind: bool,
    /// It replaces a child that DDL invalidated.
    pub invalidated: bool,
}

impl Mismatch {
    /// How `key` differs from an existing child's.
    pub(crate) fn between(key: &ChildKey, existing: &ChildCursor) -> Mismatch {
        Mismatch {
            optimizer: existing.key.environment != key.environment,
            bind: existing.key.bind_types != key.bind_types,
            invalidated: !existing.is_valid(),
        }
    }

    pub(crate) fn union(self, other: Mismatch) -> Mismatch {
        Mismatch {
            optimizer: self.optimizer || other.optimizer,
            bind: self.bind || other.bind,
            invalidated: self.invalidated || other.invalidated,
        }
    }
}

/// A child's execution statistics (v$sql), counted without its mutex.
#[derive(Default)]
pub struct ChildStatistics {
    pub executions: AtomicU64,
    pub parse_calls: AtomicU64,
    pub buffer_gets: AtomicU64,
    pub disk_reads: AtomicU64,
    pub rows_processed: AtomicU64,
    pub elapsed_micros: AtomicU64,
    pub cpu_micros: AtomicU64,
    /// PL/SQL's time within the child's executions (v$sql.plsql_exec_time): a block's or
    /// a CALL's run, or the stored functions a statement called, with what they ran.
    pub plsql_exec_micros: AtomicU64,
    pub users_executing: AtomicU64,
    /// Unix seconds of the last execution.
    pub last_active: AtomicU64,
}

/// The executable part of a child cursor (Oracle's heap 6): the plan a child keeps, so that
/// its executions after the first plan nothing, kept only when it can run again whatever the
/// binds. Its type is its builder's (the SQL layer's query, UPDATE / DELETE and INSERT ...
/// VALUES plans): the library cache shares it and charges its bytes, and never looks inside.
pub type Executable = Arc<dyn Any + Send + Sync>;

/// What the optimizer decided for a child, set when it is built.
#[derive(Clone, Debug)]
pub struct PlanSummary {
    pub optimizer_mode: &'static str,
    pub cost: Option<f64>,
    pub plan_hash_value: u32,
}

/// A child cursor: what one optimizer environment made of its parent's statement.
pub struct ChildCursor {
    pub number: u32,
    pub key: ChildKey,
    pub mismatch: Mismatch,
    pub(crate) pin: KglMutex<()>,
    plan: OnceLock<Executable>,
    summary: OnceLock<PlanSummary>,
    /// Names of the objects the statement depends on (upper case): DDL on any invalidates it.
    dependencies: OnceLock<Box<[String]>>,
    /// The PL/SQL unit whose static SQL built it, and the line (v$sql.program_id,
    /// program_line#); None for a client's statement.
    program: OnceLock<(u32, u32)>,
    valid: AtomicBool,
    /// Built: `publish` ran. False while building, and for a child that failed.
    built: AtomicBool,
    pub(crate) sharable_bytes: AtomicU64,
    pub statistics: ChildStatistics,
    /// Loads of this child number (1, plus one per rebuild after an invalidation).
    pub loads: u64,
    /// Times this child number was invalidated.
    pub invalidations: AtomicU64,
    pub first_load: i64,
}

impl ChildCursor {
    pub(crate) fn new(
        number: u32,
        key: ChildKey,
        mismatch: Mismatch,
        identifier: u64,
        loads: u64,
        invalidations: u64,
    ) -> ChildCursor {
        ChildCursor {
            number,
            key,
            mismatch,
            pin: KglMutex::new(MutexType::CursorPin, identifier, ()),
            plan: OnceLock::new(),
            summary: OnceLock::new(),
            dependencies: OnceLock::new(),
            program: OnceLock::new(),
            valid: AtomicBool::new(true),
            built: AtomicBool::new(false),
            sharable_bytes: AtomicU64::new(0),
            statistics: ChildStatistics::default(),
            loads,
            invalidations: AtomicU64::new(invalidations),
            first_load: chrono::Utc::now().timestamp(),
        }
    }

    pub fn is_valid(&self) -> bool {
        self.valid.load(Ordering::Acquire)
    }

    pub fn is_built(&self) -> bool {
        self.built.load(Ordering::Acquire)
    }

    /// The kept plan, when it can run again and is a `P` (a builder's kind of plan: the
    /// text names what kind of statement it is, so another kind is never kept for it).
    pub fn plan<P: Any + Send + Sync>(&self) -> Option<Arc<P>> {
        let executable = self.plan.get()?;
        if !executable.is::<P>() {
            return None;
        }
        executable.clone().downcast::<P>().ok()
    }

    pub fn summary(&self) -> Option<&PlanSummary> {
        self.summary.get()
    }

    /// The PL/SQL unit (object id, 0 for an anonymous block) and line whose static SQL
    /// built this child.
    pub fn program(&self) -> Option<(u32, u32)> {
        self.program.get().copied()
    }

    pub(crate) fn set_program(&self, object_id: u32, line: u32) {
        let _ = self.program.set((object_id, line));
    }

    pub fn dependencies(&self) -> &[String] {
        self.dependencies.get().map_or(&[], |names| names)
    }

    pub fn sharable_bytes(&self) -> u64 {
        self.sharable_bytes.load(Ordering::Relaxed)
    }

    /// Marks the child invalid; true if it was valid.
    pub(crate) fn invalidate(&self) -> bool {
        let was = self.valid.swap(false, Ordering::AcqRel);
        if was {
            self.invalidations.fetch_add(1, Ordering::Relaxed);
        }
        was
    }

    pub(crate) fn depends_on_any(&self, names: &std::collections::BTreeSet<String>) -> bool {
        // Unbuilt children have no dependencies yet: they are rebuilt anyway if invalid.
        !self.is_built()
            || self
                .dependencies()
                .iter()
                .any(|name| name == super::ANY_OBJECT || names.contains(name))
    }
}

/// A session's pin on a child cursor: shared while the session executes it, exclusive while
/// the session builds it. Dropping it releases the child and unpins the parent.
pub struct CursorPin {
    pub(crate) handle: Arc<Handle>,
    pub(crate) child: Arc<ChildCursor>,
    pub(crate) building: bool,
    pub(crate) library: Arc<super::LibraryCache>,
}

impl CursorPin {
    pub fn child(&self) -> &Arc<ChildCursor> {
        &self.child
    }

    pub fn handle(&self) -> &Arc<Handle> {
        &self.handle
    }

    /// Whether this session is building the child (its first execution): the plan it makes
    /// is to be published.
    pub fn is_building(&self) -> bool {
        self.building
    }

    /// Finishes building the child: its plan (when it can run again), what the
    /// optimizer decided, its dependencies, and the plan's bytes, charged to the shared
    /// pool (ORA-04031 when they cannot be found; the child is then dropped). The pin
    /// becomes shared.
    pub fn publish(
        &mut self,
        plan: Option<Executable>,
        summary: PlanSummary,
        dependencies: Vec<String>,
        plan_bytes: u64,
        program: Option<(u32, u32)>,
    ) -> crate::Result<()> {
        if let Some((object_id, line)) = program {
            self.child.set_program(object_id, line);
        }
        assert!(self.building, "publish by the builder only");
        let bytes = CHILD_BYTES + if plan.is_some() { plan_bytes } else { 0 };
        self.library
            .allocate(bytes, super::pool::Category::SqlArea, &self.handle.text)?;
        // Charged only while the child is in a live handle's list: a handle freed before
        // this session pinned it (or a copy UNMARKHOT dropped) gives the bytes straight back,
        // since nothing would uncharge them later. Pinned, the handle cannot be freed now.
        // The bytes are recorded under the handle's mutex, so that whoever takes the child
        // out of the list (aging, UNMARKHOT) reads them and gives them back.
        let listed = {
            let state = self.handle.state.exclusive(location::PIN);
            let listed = !self.handle.obsolete.load(Ordering::Acquire)
                && state
                    .children
                    .iter()
                    .any(|child| Arc::ptr_eq(child, &self.child));
            if listed {
                self.child.sharable_bytes.store(bytes, Ordering::Relaxed);
            }
            listed
        };
        if !listed {
            self.library.release(bytes, super::pool::Category::SqlArea);
        }
        if let Some(plan) = plan {
            let _ = self.child.plan.set(plan);
        }
        let _ = self.child.summary.set(summary);
        let _ = self.child.dependencies.set(dependencies.into_boxed_slice());
        self.child.built.store(true, Ordering::Release);
        // Exclusive to shared: only a builder ever holds this pin exclusively, and this
        // builder is done, so nothing can take it between the two.
        // SAFETY: `building`: this pin holds the exclusive get `LibraryCache::pin` took.
        unsafe { self.child.pin.release_exclusive() };
        self.child.pin.acquire_shared(location::CHILD_PIN);
        self.child
            .statistics
            .users_executing
            .fetch_add(1, Ordering::Relaxed);
        self.building = false;
        Ok(())
    }
}

impl Drop for CursorPin {
    fn drop(&mut self) {
        if self.building {
            // The build failed: the child leaves the list before waiters can get it.
            crate::instrumentation::add(crate::instrumentation::Statistic::ParseCountFailures, 1);
            self.child.valid.store(false, Ordering::Release);
            let mut state = self.handle.state.exclusive(location::UNPIN);
            state
                .children
                .retain(|child| !Arc::ptr_eq(child, &self.child));
            state.pins -= 1;
            drop(state);
            // SAFETY: `building`: this pin holds the exclusive get `LibraryCache::pin` took.
            unsafe { self.child.pin.release_exclusive() };
        } else {
            // SAFETY: not building: this pin holds one shared get (from `pin` or `publish`).
            unsafe { self.child.pin.release_shared() };
            self.child
                .statistics
                .users_executing
                .fetch_sub(1, Ordering::Relaxed);
            let mut state = self.handle.state.exclusive(location::UNPIN);
            state.pins -= 1;
        }
        self.library.count_lru_operation();
    }
}
