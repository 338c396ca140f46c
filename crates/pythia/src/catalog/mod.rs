//! The data dictionary: tables, indexes, sequences, views, users and privileges, stored in
//! the database itself.
//!
//! ```text
//!   file header (block 0) --bootstrap pointer--> DICT$ segment (object 1, a heap table)
//!                                                 one row per object, through transactions:
//!      ['TABLE',    obj#, name, segment block, CREATE TABLE text, created,
//!                   buffer pool, cache]
//!      ['INDEX',    obj#, name, table obj#, unique, column positions "0,2D" (a D suffix:
//!                   descending), segment block, constraint name or NULL,
//!                   constraint kind 'P' / 'U' or NULL, buffer pool]
//!      ['SEQUENCE', obj#, name, increment, min, max, cache, cycle, high-water value]
//!      ['VIEW',     obj#, name, NULL, CREATE VIEW text, created]
//!      ['COMMENT',  table obj#, column name or NULL, comment]
//!      ['STATS',    table obj#, 'TABLE' | 'COLUMN' | 'INDEX', ...]   optimizer statistics
//!      ['USER', ...], ['SYSPRIV', ...], ['TABPRIV', ...]     users and privileges (users.rs)
//!      ['PROGRAM', ...], ['SOURCE', ...]       stored PL/SQL units and their source (programs.rs)
//!
//!   Catalog (in memory) ── current() ──> Arc<Dictionary>   immutable; DDL copies, changes,
//!                                                           writes DICT$, then swaps it in
//! ```
//!
//! Each DICT$ row is a row of the row codec (see "Row format"), its first column the kind.
//! Column by column, with the codec's type (NUMBER, TEXT, DATE, ...) of each:
//!
//! | kind | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 |
//! |---|---|---|---|---|---|---|---|---|---|
//! | `TABLE` | obj# NUMBER | name TEXT | segment header block NUMBER | CREATE TABLE text TEXT | created NUMBER (seconds since the epoch) | buffer pool NUMBER (absent in old rows) | cache NUMBER 0/1 (absent in old rows) | | |
//! | `INDEX` | obj# | name | table obj# | unique NUMBER 0/1 | column positions TEXT `"0,2"` | segment header block | constraint name TEXT or NULL | constraint kind TEXT `P` / `U` or NULL (absent in old rows) | buffer pool NUMBER (absent in old rows) |
//! | `SEQUENCE` | obj# | name | increment NUMBER | min | max | cache | cycle 0/1 | high-water value | |
//! | `VIEW` | obj# | name | NULL | CREATE VIEW text | created | | | | |
//! | `COMMENT` | table obj# | column name TEXT, NULL for the table | comment TEXT | | | | | | |
//! | `STATS` `TABLE` | table obj# | `'TABLE'` | NULL | num_rows NUMBER | blocks | avg_row_len | sample_size | last_analyzed (seconds since the epoch) | |
//! | `STATS` `COLUMN` | table obj# | `'COLUMN'` | column name TEXT | num_distinct NUMBER | num_nulls | low value, of the column's own type (NUMBER, TEXT, DATE, TIMESTAMP, BINARY_DOUBLE, BOOLEAN), NULL when every value is NULL | high value, likewise | avg_col_len NUMBER | |
//! | `STATS` `INDEX` | table obj# | `'INDEX'` | index obj# NUMBER | blevel | leaf_blocks | distinct_keys | num_rows | clustering_factor | last_analyzed |
//!
//! A buffer pool is kept as `BufferPool::code`: 0 DEFAULT, 1 KEEP, 2 RECYCLE (another number
//! is an ORA-00600 at open); the cache flag as 1 for `CACHE`, 0 for `NOCACHE`. Rows written
//! before they were kept have no columns 6 and 7 (TABLE) or 9 (INDEX), and a missing or NULL
//! value reads as DEFAULT and NOCACHE; the next DDL that rewrites such a row writes it
//! whole. A build from before reads the new rows and ignores the columns it does not know.
//! An index has its own pool, DEFAULT unless its CREATE or ALTER INDEX said otherwise (the
//! index of a PRIMARY KEY or UNIQUE constraint too, whatever its table's pool).
//!
//! A table's STATS rows (one TABLE row, a COLUMN row per analyzed column, an INDEX row per
//! analyzed index) are written together by [`Catalog::set_statistics`] in the gathering's
//! transaction, replacing the ones before, and read back at open into
//! `TableDef::statistics`. They name their table and indexes by object number, so renames
//! of either leave them alone; a column by name, so RENAME COLUMN rewrites them (DROP
//! COLUMN and DROP INDEX too, without the dropped one's rows). DROP TABLE deletes them,
//! TRUNCATE keeps them (as Oracle); CREATE INDEX on an analyzed table adds the new index's. A database made before statistics has no STATS rows
//! and reads as before; an INDEX row of an index no longer there is ignored at open and
//! deleted at the next rewrite.
//!
//! DICT$ rows are written through the transaction layer like any table's rows, so they have
//! redo and undo. A DDL statement is one transaction ([`Catalog::statement`]), committed
//! durably before it returns (Oracle's implicit commit), however many objects it changes:
//! CREATE TABLE with its keys' indexes (and AS SELECT's rows), ALTER TABLE ... ADD PRIMARY
//! KEY (the columns NOT NULL, then the index), DROP TABLE of a list with the foreign keys
//! CASCADE CONSTRAINTS drops, TRUNCATE of a list. Each part is a method of the
//! [`DdlStatement`], made on the statement's own copy of the dictionary, which is published
//! only after the commit. An error rolls all of it back; a crash leaves all of it or none of
//! it. The segments are part of the transaction too
//! ([`TransactionManager::create_segment`], [`TransactionManager::drop_segment_at_commit`]):
//! one made by a statement that rolls back (or was in flight at a crash) is freed with it,
//! one dropped is freed by the commit record's own redo, so that no crash leaks or loses one.
//! TRUNCATE gives the table and its indexes new segments and drops the old ones, rather
//! than cutting a segment back in place, which no rollback could undo.
//!
//! Before this, CREATE TABLE committed the table and then each key's index in a DDL of its
//! own: a crash between left a table without its primary key (`lab crash`'s worker then
//! failed with ORA-02268 on the table referencing it). `tests/ddl_crash.rs` crashes each kind
//! of DDL at every one of its syncs.
//!
//! A table's row holds a CREATE TABLE text written from its definition ([`table_ddl`]; a
//! database made before holds the user's own text, read the same way), and opening the
//! database parses it again for the columns, types, defaults, NOT NULL flags and CHECK
//! constraints: one definition of what a column is, the parser's. ALTER TABLE
//! ([`Catalog::alter_table`]) validates and rewrites the rows in its transaction and writes
//! the text again. `dba_tab_columns` and friends are built from the parsed
//! form. Object numbers come from a counter rebuilt at open as one past the highest in DICT$.
//!
//! Readers take `current()`, a pointer to an immutable dictionary, at the start of each
//! statement: name resolution never waits for DDL. DDL statements are serialized by one
//! mutex. A statement that started before a DROP TABLE and still reads the table may fail
//! on the freed blocks (known limit: Oracle's DDL locks, in the library cache issue).
//!
//! Sequences hand out numbers from an in-memory range of `cache` values; taking a new range
//! first writes its end (the high-water value) to DICT$ in a recursive transaction committed
//! at once, as Oracle updates SEQ$. After a crash the numbers of the unused cached range are
//! skipped, never handed out twice.
//!
//! The files, by job: `mod.rs` the catalog (its storage, the published dictionary, object
//! numbers) and the making of DICT$ (`Catalog::create`); `definitions.rs` the definitions in
//! memory (`TableDef`, `IndexDef`, `SequenceDef`, `ViewDef`) and `Dictionary`, one version of
//! them all; `dict_rows.rs` each definition's DICT$ row, made and read back, and the
//! dictionary read at open (`Catalog::open`); `table_text.rs` a table's CREATE TABLE text;
//! `ddl.rs` DDL statements (`Catalog::statement`, `DdlStatement`, `DdlContext`) and the DDL
//! of tables, indexes, comments, statistics and views; `sequences.rs` sequences, their DDL
//! and NEXTVAL; `programs.rs` stored PL/SQL units and the invalidation of their dependents;
//! `rows.rs` the row and index writes of DML; `statistics.rs` optimizer
//! statistics; `users.rs` users and privileges.

mod ddl;
mod definitions;
mod dict_rows;
pub mod programs;
pub mod rows;
mod sequences;
pub mod statistics;
mod table_text;
pub mod users;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::access::segment::{self, SegmentKind};
use crate::access::space::SpaceManager;
use crate::buffer::{BufferCache, BufferPool};
use crate::error::Result;
use crate::instrumentation::{Enqueue, LatchName, RwLatch, WaitEvent};
use crate::io::block::BlockId;
use crate::redo::log::RedoLog;
use crate::redo::mtr::Mtr;
use crate::transaction::{InsertPoints, TransactionManager};

pub use ddl::{Alteration, DdlStatement, RowCheck, RowRewrite};
pub use definitions::{
    changed_objects, clone_table, CheckConstraint, ColumnDef, Comments, Definition, Dictionary,
    ForeignKey, IndexDef, SequenceDef, TableDef, ViewDef,
};
pub use programs::{CompileError, Compiled, ProgramDef};
pub use table_text::{columns_from_ast, data_type_from_ast, definition_from_ddl, table_ddl};

/// DICT$'s object number.
pub const DICTIONARY_OBJECT: u32 = 1;
/// The first object number given to user objects.
pub const FIRST_USER_OBJECT: u32 = 100;
/// Columns a table may have (Oracle: 1000).
pub const TABLE_COLUMNS_MAX: usize = 1000;
/// Columns an index may have (Oracle: 32).
pub const INDEX_COLUMNS_MAX: usize = 32;
/// Length of an object name (Oracle 12.2+: 128 bytes).
pub const OBJECT_NAME_BYTES_MAX: usize = 128;
/// The owner every object belongs to until users arrive with the server issue.
pub const OWNER: &str = "SYSTEM";

/// The storage a catalog works on (the instance's components).
#[derive(Clone)]
pub struct Storage {
    pub cache: Arc<BufferCache>,
    pub log: Arc<RedoLog>,
    pub space: Arc<SpaceManager>,
    pub transactions: Arc<TransactionManager>,
}

/// p3 of the 'library cache lock' a DDL waits on: 100 * mode (3, exclusive) + namespace 0.
const DDL_LOCK_MODE: u64 = 300;

pub struct Catalog {
    storage: Storage,
    dictionary_segment: BlockId,
    dictionary_points: InsertPoints,
    current: RwLatch<Arc<Dictionary>>,
    next_object_id: AtomicU64,
    /// Serializes DDL: held for a whole change, waited on as 'library cache lock'.
    ddl: Enqueue<()>,
    /// Called with the old and new dictionary as each change is published, under the
    /// latch that guards `current` (the library cache invalidates dependent cursors).
    change_hook: std::sync::OnceLock<ChangeHook>,
}

/// What the catalog calls as it publishes a new dictionary.
pub type ChangeHook = Box<dyn Fn(&Dictionary, &Dictionary) + Send + Sync>;

impl Catalog {
    /// Creates DICT$ in a new database, with the user SYSTEM and the verifier of its
    /// password (None: SYSTEM has no password, see `users.rs`).
    pub fn create(storage: Storage, system_verifier: Option<String>) -> Result<Catalog> {
        let mut mtr = Mtr::new(&storage.cache);
        let header = segment::create(
            &mut mtr,
            &storage.space,
            DICTIONARY_OBJECT,
            SegmentKind::Heap,
            BufferPool::Default,
        )?;
        storage.space.set_bootstrap(&mut mtr, header.block)?;
        let end = mtr.commit(&storage.log, storage.transactions.current_scn(), 0)?;
        storage.log.flush_to(end)?;
        let catalog = Catalog::with(storage, header, Dictionary::default(), FIRST_USER_OBJECT);
        catalog.create_system_user(system_verifier)?;
        Ok(catalog)
    }

    fn with(storage: Storage, header: BlockId, dictionary: Dictionary, next: u32) -> Catalog {
        Catalog {
            storage,
            dictionary_segment: header,
            dictionary_points: InsertPoints::default(),
            current: RwLatch::new(LatchName::RowCacheObjects, Arc::new(dictionary)),
            next_object_id: AtomicU64::new(next as u64),
            ddl: Enqueue::with_event(WaitEvent::LibraryCacheLock, (0, 0, DDL_LOCK_MODE), ()),
            change_hook: std::sync::OnceLock::new(),
        }
    }

    /// The dictionary as of now; statements resolve names against one version.
    pub fn current(&self) -> Arc<Dictionary> {
        self.current.read().clone()
    }

    /// The dictionary as of now, and what `check` says under the same latch: a change
    /// published after the read has not run its hook before `check` (see `set_change_hook`).
    pub fn current_checked<T>(&self, check: impl FnOnce() -> T) -> (Arc<Dictionary>, T) {
        let current = self.current.read();
        let checked = check();
        (current.clone(), checked)
    }

    /// Sets what is called as each change is published (once).
    pub fn set_change_hook(&self, hook: ChangeHook) {
        let _ = self.change_hook.set(hook);
    }

    /// A name for an unnamed constraint: SYS_C followed by a number, as Oracle names them.
    pub fn constraint_name(&self) -> String {
        format!("SYS_C{:07}", self.next_object_id())
    }

    fn next_object_id(&self) -> u32 {
        self.next_object_id.fetch_add(1, Ordering::AcqRel) as u32
    }

    pub fn storage(&self) -> &Storage {
        &self.storage
    }
}

pub(crate) fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}
