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

pub mod rows;
pub mod statistics;
pub mod users;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::access::btree::{BTree, PurgePredicate};
use crate::access::heap::{self, RowId};
use crate::access::segment::{self, SegmentKind};
use crate::access::space::SpaceManager;
use crate::buffer::{AccessKind, BufferCache, BufferPool};
use crate::error::{Error, Result};
use crate::instrumentation::{Enqueue, LatchName, RwLatch, WaitEvent};
use crate::io::block::BlockId;
use crate::io::datafile::SYSTEM_FILE;
use crate::redo::log::RedoLog;
use crate::redo::mtr::Mtr;
use crate::syntax::ast;
use crate::transaction::{InsertPoints, RowChange, TransactionManager};
use crate::types::{decode_row, encode_row, DataType, Value};

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

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    pub default: Option<ast::Expr>,
}

#[derive(Debug)]
pub struct TableDef {
    pub object_id: u32,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// The heap segment's header block.
    pub segment: BlockId,
    /// The blocks inserts go to (shared by every version of this definition).
    pub insert_points: Arc<InsertPoints>,
    pub indexes: Vec<Arc<IndexDef>>,
    /// CHECK constraints, in the order they were made.
    pub checks: Vec<CheckConstraint>,
    /// FOREIGN KEY constraints this table's rows must satisfy.
    pub foreign_keys: Vec<ForeignKey>,
    /// COMMENT ON TABLE / COLUMN.
    pub comments: Comments,
    /// Optimizer statistics, once gathered (ANALYZE, DBMS_STATS).
    pub statistics: Option<Arc<statistics::TableStatistics>>,
    /// The pool the heap segment's blocks are read into (`STORAGE (BUFFER_POOL ...)`).
    /// Blocks cached before an ALTER changed it stay in their pool until aged out.
    pub buffer_pool: BufferPool,
    /// `CACHE`: a full scan's blocks enter the pool at the midpoint like any read, instead
    /// of at the cold end (`NOCACHE`, the default).
    pub cache: bool,
    pub created: i64,
    ddl: String,
    dictionary_row: RowId,
    /// The STATS rows of DICT$ that keep `statistics`, rewritten together.
    statistics_rows: Vec<RowId>,
}

/// A CHECK constraint: its name (given, or SYS_C...) and its condition over the table's
/// columns. A row passes unless the condition is FALSE (NULL passes, as in Oracle).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckConstraint {
    pub name: String,
    pub condition: ast::Expr,
}

/// A FOREIGN KEY constraint: `columns` of this table reference `parent_columns` of
/// `parent`, which a PRIMARY KEY or UNIQUE constraint of the parent covers. Names, not
/// positions: DICT$ keeps them in the child's CREATE TABLE text, and a rename of the parent
/// or of its columns rewrites that text.
#[derive(Clone, Debug, PartialEq)]
pub struct ForeignKey {
    pub name: String,
    pub columns: Vec<String>,
    pub parent: String,
    pub parent_columns: Vec<String>,
    pub on_delete: Option<ast::ReferentialAction>,
}

/// A table's comments (COMMENT ON TABLE / COLUMN), each a COMMENT row of DICT$:
/// `['COMMENT', table obj#, column name or NULL, text]`.
#[derive(Clone, Debug, Default)]
pub struct Comments {
    pub table: Option<String>,
    /// By column name.
    pub columns: BTreeMap<String, String>,
    /// Their DICT$ rows, rewritten together whenever one changes.
    rows: Vec<RowId>,
}

impl Comments {
    /// Replaces the table's COMMENT rows in DICT$ with rows for what `self` holds now.
    fn write(&mut self, context: &mut DdlContext, table_id: u32) -> Result<()> {
        for row in self.rows.drain(..) {
            context.delete(row)?;
        }
        let mut written = Vec::new();
        let entries = self.table.iter().map(|text| (None, text)).chain(
            self.columns
                .iter()
                .map(|(column, text)| (Some(column), text)),
        );
        for (column, text) in entries {
            written.push(context.insert(&[
                Value::text("COMMENT"),
                Value::integer(table_id as i64),
                column.map_or(Value::Null, Value::text),
                Value::text(text),
            ])?);
        }
        self.rows = written;
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.table.is_none() && self.columns.is_empty()
    }
}

/// A table's columns and constraints as its CREATE TABLE text states them.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Definition {
    pub columns: Vec<ColumnDef>,
    pub checks: Vec<CheckConstraint>,
    pub foreign_keys: Vec<ForeignKey>,
}

/// What ALTER TABLE makes of a table: its new name and shape, and what happens to its rows.
/// `Catalog::alter_table` applies it in the DDL's transaction.
pub struct Alteration<'a> {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub checks: Vec<CheckConstraint>,
    pub foreign_keys: Vec<ForeignKey>,
    /// Checks each existing row (in the old shape) first; an error fails the DDL.
    pub validate: Option<Box<RowCheck<'a>>>,
    /// Makes each existing row's new values from its old ones; None: rows stay as they are.
    pub rewrite: Option<Box<RowRewrite<'a>>>,
    /// Checks each existing row's new values (rewritten, or read with NULL in added
    /// columns); an error fails the DDL.
    pub validate_new: Option<Box<RowCheck<'a>>>,
    /// A column removed (DROP COLUMN): the indexes on it go, the others are renumbered.
    pub dropped_column: Option<usize>,
    /// `STORAGE (BUFFER_POOL ...)`: the pool of the table's blocks read from now on.
    pub buffer_pool: BufferPool,
    /// `CACHE` / `NOCACHE`.
    pub cache: bool,
}

pub type RowCheck<'a> = dyn Fn(&[Value]) -> Result<()> + 'a;
pub type RowRewrite<'a> = dyn Fn(Vec<Value>) -> Result<Vec<Value>> + 'a;

impl Alteration<'_> {
    /// The same table, unchanged: the caller changes what it needs.
    pub fn of<'a>(table: &TableDef) -> Alteration<'a> {
        Alteration {
            name: table.name.clone(),
            columns: table.columns.clone(),
            checks: table.checks.clone(),
            foreign_keys: table.foreign_keys.clone(),
            validate: None,
            rewrite: None,
            validate_new: None,
            dropped_column: None,
            buffer_pool: table.buffer_pool,
            cache: table.cache,
        }
    }
}

impl TableDef {
    /// The columns and constraints, as the CREATE TABLE text states them.
    pub fn definition(&self) -> Definition {
        Definition {
            columns: self.columns.clone(),
            checks: self.checks.clone(),
            foreign_keys: self.foreign_keys.clone(),
        }
    }

    /// The table's DICT$ row.
    fn dictionary_values(&self) -> Vec<Value> {
        vec![
            Value::text("TABLE"),
            Value::integer(self.object_id as i64),
            Value::text(&self.name),
            Value::integer(self.segment.block as i64),
            Value::text(&self.ddl),
            Value::integer(self.created),
            Value::integer(self.buffer_pool.code() as i64),
            Value::integer(self.cache as i64),
        ]
    }

    /// The CREATE TABLE text DICT$ keeps for this definition (see [`table_ddl`]).
    pub fn ddl(&self) -> &str {
        &self.ddl
    }

    /// The column's position, by its (upper-case) name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|column| column.name == name)
    }

    /// Replaces the table's STATS rows in DICT$ with rows for `self.statistics` (none when
    /// it is None). Index statistics are kept by index object number.
    fn write_statistics(&mut self, context: &mut DdlContext) -> Result<()> {
        for row in self.statistics_rows.drain(..) {
            context.delete(row)?;
        }
        let Some(gathered) = &self.statistics else {
            return Ok(());
        };
        let indexes = &self.indexes;
        let index_id = |name: &str| {
            indexes
                .iter()
                .find(|index| index.name == name)
                .map(|index| index.object_id)
        };
        for row in statistics::dictionary_rows(self.object_id, gathered, &index_id) {
            self.statistics_rows.push(context.insert(&row)?);
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct IndexDef {
    pub object_id: u32,
    pub name: String,
    pub table_id: u32,
    pub table_name: String,
    /// Positions of the indexed columns in the table.
    pub columns: Vec<usize>,
    /// For each column, whether it is kept in descending order (`CREATE INDEX ... (c DESC)`).
    pub descending: Vec<bool>,
    pub unique: bool,
    /// The PRIMARY KEY or UNIQUE constraint the index enforces, if any.
    pub constraint: Option<String>,
    /// Whether that constraint is the table's primary key.
    pub primary: bool,
    /// The pool the index segment's blocks are read into (`STORAGE (BUFFER_POOL ...)`);
    /// an index has its own, whatever its table's is.
    pub buffer_pool: BufferPool,
    pub tree: BTree,
    dictionary_row: RowId,
}

impl IndexDef {
    /// The index's DICT$ row.
    fn dictionary_values(&self) -> Vec<Value> {
        let positions: Vec<String> = self
            .columns
            .iter()
            .zip(&self.descending)
            .map(|(position, descending)| {
                format!("{position}{}", if *descending { "D" } else { "" })
            })
            .collect();
        vec![
            Value::text("INDEX"),
            Value::integer(self.object_id as i64),
            Value::text(&self.name),
            Value::integer(self.table_id as i64),
            Value::integer(self.unique as i64),
            Value::text(positions.join(",")),
            Value::integer(self.tree.header().block as i64),
            self.constraint.as_deref().map_or(Value::Null, Value::text),
            match (&self.constraint, self.primary) {
                (None, _) => Value::Null,
                (Some(_), true) => Value::text("P"),
                (Some(_), false) => Value::text("U"),
            },
            Value::integer(self.buffer_pool.code() as i64),
        ]
    }
}

#[derive(Debug)]
pub struct SequenceDef {
    pub object_id: u32,
    pub name: String,
    pub increment: i128,
    pub min: i128,
    pub max: i128,
    pub cache: i128,
    pub cycle: bool,
    state: Arc<Enqueue<SequenceState>>,
    dictionary_row: RowId,
}

#[derive(Debug)]
struct SequenceState {
    /// The next value to hand out.
    next: i128,
    /// Values up to (ascending) or down to (descending) this one, exclusive, are reserved in
    /// DICT$ already.
    high_water: i128,
}

impl SequenceDef {
    /// The last number a `nextval` may reach before the reservation runs out, for views.
    pub fn last_number(&self) -> i128 {
        self.state.lock().high_water
    }
}

/// A view: a stored query, planned where a FROM list names it.
#[derive(Debug)]
pub struct ViewDef {
    pub object_id: u32,
    pub name: String,
    /// The names given in `CREATE VIEW name (columns)`; empty: the query's own.
    pub columns: Vec<String>,
    pub query: Arc<ast::Query>,
    /// The CREATE VIEW statement as written (DICT$ keeps it; it is parsed again at open).
    pub ddl: String,
    pub created: i64,
    dictionary_row: RowId,
}

/// One immutable version of the dictionary.
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    pub tables: BTreeMap<String, Arc<TableDef>>,
    pub indexes: BTreeMap<String, Arc<IndexDef>>,
    pub sequences: BTreeMap<String, Arc<SequenceDef>>,
    pub views: BTreeMap<String, Arc<ViewDef>>,
    /// Users, by name (`users.rs`): a namespace of their own, as in Oracle.
    pub users: BTreeMap<String, Arc<users::UserDef>>,
}

impl Dictionary {
    pub fn table(&self, name: &str) -> Result<&Arc<TableDef>> {
        self.tables.get(name).ok_or_else(Error::table_not_found)
    }

    /// The index `name`, or ORA-01418.
    pub fn index(&self, name: &str) -> Result<&Arc<IndexDef>> {
        self.indexes
            .get(name)
            .ok_or_else(|| Error::new(1418, "specified index does not exist"))
    }

    /// The table with object id `object_id`, if it exists.
    fn table_by_id(&self, object_id: u32) -> Option<Arc<TableDef>> {
        self.tables
            .values()
            .find(|table| table.object_id == object_id)
            .cloned()
    }

    fn name_in_use(&self, name: &str) -> bool {
        self.tables.contains_key(name)
            || self.indexes.contains_key(name)
            || self.sequences.contains_key(name)
            || self.views.contains_key(name)
    }
}

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

/// The names (upper case) of the objects that differ between two dictionaries: tables,
/// indexes, views and sequences added, dropped or changed (ALTER SEQUENCE makes a new
/// definition; handing out cached values does not), with each changed index's table.
pub fn changed_objects(
    before: &Dictionary,
    after: &Dictionary,
) -> std::collections::BTreeSet<String> {
    fn differing<T>(
        before: &BTreeMap<String, Arc<T>>,
        after: &BTreeMap<String, Arc<T>>,
        changed: &mut std::collections::BTreeSet<String>,
    ) -> Vec<Arc<T>> {
        let mut objects = Vec::new();
        for (name, object) in before {
            match after.get(name) {
                Some(other) if Arc::ptr_eq(object, other) => {}
                Some(other) => {
                    changed.insert(name.clone());
                    objects.push(object.clone());
                    objects.push(other.clone());
                }
                None => {
                    changed.insert(name.clone());
                    objects.push(object.clone());
                }
            }
        }
        for (name, object) in after {
            if !before.contains_key(name) {
                changed.insert(name.clone());
                objects.push(object.clone());
            }
        }
        objects
    }
    let mut changed = std::collections::BTreeSet::new();
    differing(&before.tables, &after.tables, &mut changed);
    for index in differing(&before.indexes, &after.indexes, &mut changed) {
        changed.insert(index.table_name.clone());
    }
    differing(&before.views, &after.views, &mut changed);
    differing(&before.sequences, &after.sequences, &mut changed);
    changed
}

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

    /// Reads DICT$ of an existing database (after recovery).
    pub fn open(storage: Storage) -> Result<Catalog> {
        let header = storage.space.bootstrap(&storage.cache)?;
        if header == 0 {
            return Err(Error::new(
                704,
                "bootstrap process failure: the datafile has no dictionary",
            ));
        }
        let header = BlockId::new(SYSTEM_FILE, header);
        let mut dictionary = Dictionary::default();
        let mut highest = FIRST_USER_OBJECT - 1;
        let mut index_rows = Vec::new();
        let mut comment_rows = Vec::new();
        let mut user_rows = users::UserRows::default();
        let mut statistics_rows: BTreeMap<u32, (Vec<RowId>, statistics::StatisticsRows)> =
            BTreeMap::new();
        for (rowid, values) in scan_dictionary(&storage, header)? {
            let object_id = integer(&values, 1)? as u32;
            highest = highest.max(object_id);
            let kind = text(&values, 0)?;
            let Some(values) = user_rows.take(&kind, rowid, values) else {
                continue;
            };
            match kind.as_str() {
                "TABLE" => {
                    let table = table_from_row(rowid, &values)?;
                    dictionary
                        .tables
                        .insert(table.name.clone(), Arc::new(table));
                }
                "INDEX" => index_rows.push((rowid, values)),
                "COMMENT" => comment_rows.push((rowid, values)),
                "STATS" => {
                    let (rows, read) = statistics_rows.entry(object_id).or_default();
                    rows.push(rowid);
                    read.add(&values)?;
                }
                "SEQUENCE" => {
                    let sequence = sequence_from_row(rowid, &values)?;
                    dictionary
                        .sequences
                        .insert(sequence.name.clone(), Arc::new(sequence));
                }
                "VIEW" => {
                    let view = view_from_row(rowid, &values)?;
                    dictionary.views.insert(view.name.clone(), Arc::new(view));
                }
                other => {
                    return Err(Error::internal(format!(
                        "unknown dictionary row kind {other}"
                    )))
                }
            }
        }
        for (rowid, values) in index_rows {
            let table_id = integer(&values, 3)? as u32;
            let Some(table) = dictionary.table_by_id(table_id) else {
                continue; // its table was dropped in the same transaction's aftermath
            };
            let index = index_from_row(&storage, rowid, &values, &table)?;
            let index = Arc::new(index);
            dictionary.indexes.insert(index.name.clone(), index.clone());
            let mut table = clone_table(&table);
            table.indexes.push(index);
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
        }
        for (rowid, values) in comment_rows {
            let table_id = integer(&values, 1)? as u32;
            let Some(table) = dictionary.table_by_id(table_id) else {
                continue;
            };
            let mut table = clone_table(&table);
            let comment = text(&values, 3)?;
            match values.get(2).and_then(Value::as_str) {
                None => table.comments.table = Some(comment),
                Some(column) => {
                    table.comments.columns.insert(column.to_string(), comment);
                }
            }
            table.comments.rows.push(rowid);
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
        }
        for (table_id, (rows, read)) in statistics_rows {
            let Some(table) = dictionary.table_by_id(table_id) else {
                continue;
            };
            let mut table = clone_table(&table);
            let indexes = &table.indexes;
            let index_name = |id: u32| {
                indexes
                    .iter()
                    .find(|index| index.object_id == id)
                    .map(|index| index.name.clone())
            };
            table.statistics = read.finish(&index_name).map(Arc::new);
            table.statistics_rows = rows;
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
        }
        user_rows.apply(&mut dictionary)?;
        let catalog = Catalog::with(storage, header, dictionary, highest + 1);
        // A database made before users: SYSTEM arrives now, without a password.
        catalog.create_system_user(None)?;
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

    /// Runs one DDL statement: serialized with other DDL (the 'library cache lock' below),
    /// `work` makes every change of the statement through a [`DdlStatement`], each seeing
    /// the ones before it, in one transaction committed durably before the new dictionary
    /// is published. An error rolls all of it back; a crash leaves all of it or none of it
    /// (the segments it made and dropped included: see the module documentation).
    pub fn statement<T>(&self, work: impl FnOnce(&mut DdlStatement) -> Result<T>) -> Result<T> {
        let _ddl = self.ddl.lock();
        let transactions = &self.storage.transactions;
        let mut statement = DdlStatement {
            dictionary: (*self.current()).clone(),
            context: DdlContext {
                catalog: self,
                transaction: Some(transactions.begin()?),
            },
        };
        match work(&mut statement) {
            Ok(value) => {
                let DdlStatement {
                    dictionary,
                    mut context,
                } = statement;
                let transaction = context.transaction.take().expect("transaction");
                transactions.commit(transaction, true)?;
                let mut current = self.current.write();
                let before = std::mem::replace(&mut *current, Arc::new(dictionary));
                if let Some(hook) = self.change_hook.get() {
                    hook(&before, &current);
                }
                Ok(value)
            }
            Err(error) => {
                if let Some(transaction) = statement.context.transaction.take() {
                    transactions.rollback(transaction)?;
                }
                Err(error)
            }
        }
    }

    /// A statement of one change, made on the dictionary and in the transaction directly.
    fn change(
        &self,
        work: impl FnOnce(&mut Dictionary, &mut DdlContext) -> Result<()>,
    ) -> Result<()> {
        self.statement(|statement| work(&mut statement.dictionary, &mut statement.context))
    }

    /// CREATE INDEX: [`DdlStatement::create_index`] as a statement of its own.
    pub fn create_index(
        &self,
        name: &str,
        table_name: &str,
        columns: &[(String, bool)],
        unique: bool,
        constraint: Option<(&str, bool)>,
        buffer_pool: BufferPool,
    ) -> Result<()> {
        self.statement(|statement| {
            statement.create_index(name, table_name, columns, unique, constraint, buffer_pool)
        })
    }

    /// ALTER TABLE (and RENAME): [`DdlStatement::alter_table`] as a statement of its own.
    pub fn alter_table<'a>(
        &self,
        name: &str,
        work: impl FnOnce(&TableDef) -> Result<Alteration<'a>>,
    ) -> Result<()> {
        self.statement(|statement| statement.alter_table(name, work))
    }

    /// COMMENT ON TABLE (`column` None) or COLUMN; an empty text removes the comment.
    pub fn comment(&self, name: &str, column: Option<&str>, text: &str) -> Result<()> {
        self.change(|dictionary, context| {
            let old = dictionary.table(name)?.clone();
            let mut table = clone_table(&old);
            let text = (!text.is_empty()).then(|| text.to_string());
            match column {
                None => table.comments.table = text,
                Some(column) => {
                    if table.column(column).is_none() {
                        return Err(Error::invalid_identifier(column));
                    }
                    match text {
                        Some(text) => table.comments.columns.insert(column.to_string(), text),
                        None => table.comments.columns.remove(column),
                    };
                }
            }
            if !(table.comments.is_empty() && old.comments.is_empty()) {
                table.comments.write(context, table.object_id)?;
            }
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
            Ok(())
        })
    }

    /// Publishes new optimizer statistics of table `name` (ANALYZE, DBMS_STATS): `work` sees
    /// the table's current definition and returns its statistics (None: delete them). The
    /// STATS rows of DICT$ are rewritten in the DDL's transaction and a new dictionary
    /// version is swapped in, so plans made against the old one are made again. ORA-00942
    /// when the table is gone or is no longer object `object_id` (dropped and made again
    /// while its statistics were gathered). Statistics of columns and indexes the table no
    /// longer has are left out.
    pub fn set_statistics(
        &self,
        name: &str,
        object_id: u32,
        work: impl FnOnce(&TableDef) -> Result<Option<statistics::TableStatistics>>,
    ) -> Result<()> {
        self.change(|dictionary, context| {
            let old = dictionary.table(name)?.clone();
            if old.object_id != object_id {
                return Err(Error::table_not_found());
            }
            let mut table = clone_table(&old);
            table.statistics = work(&old)?.map(|mut gathered| {
                gathered
                    .columns
                    .retain(|column, _| old.column(column).is_some());
                gathered
                    .indexes
                    .retain(|index, _| old.indexes.iter().any(|other| other.name == *index));
                Arc::new(gathered)
            });
            if table.statistics.is_none() && old.statistics.is_none() {
                return Ok(());
            }
            table.write_statistics(context)?;
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
            Ok(())
        })
    }

    pub fn drop_index(&self, name: &str) -> Result<()> {
        self.drop_index_of(name, false)
    }

    /// ALTER TABLE ... DROP CONSTRAINT of a primary or unique key: its index goes with it.
    pub fn drop_constraint_index(&self, name: &str) -> Result<()> {
        self.drop_index_of(name, true)
    }

    fn drop_index_of(&self, name: &str, constraint: bool) -> Result<()> {
        self.statement(|statement| statement.drop_index_of(name, constraint))
    }

    /// ALTER INDEX ... STORAGE: [`DdlStatement::alter_index`] as a statement of its own.
    pub fn alter_index(&self, name: &str, buffer_pool: BufferPool) -> Result<()> {
        self.statement(|statement| statement.alter_index(name, buffer_pool))
    }

    pub fn create_sequence(&self, name: &str, options: &[ast::SequenceOption]) -> Result<()> {
        check_name(name)?;
        let settings = SequenceSettings::from_options(options, None)?;
        self.change(|dictionary, context| {
            if dictionary.name_in_use(name) {
                return Err(Error::name_in_use());
            }
            let object_id = self.next_object_id();
            let mut row = vec![
                Value::text("SEQUENCE"),
                Value::integer(object_id as i64),
                Value::text(name),
            ];
            settings.push_values(&mut row, settings.start);
            let dictionary_row = context.insert(&row)?;
            let sequence = settings.into_def(object_id, name, settings.start, dictionary_row);
            dictionary
                .sequences
                .insert(name.to_string(), Arc::new(sequence));
            Ok(())
        })
    }

    pub fn alter_sequence(&self, name: &str, options: &[ast::SequenceOption]) -> Result<()> {
        self.change(|dictionary, context| {
            let old = dictionary
                .sequences
                .get(name)
                .cloned()
                .ok_or_else(|| Error::new(2289, "sequence does not exist"))?;
            if options
                .iter()
                .any(|option| matches!(option, ast::SequenceOption::StartWith(_)))
            {
                return Err(Error::new(2283, "cannot alter starting sequence number"));
            }
            let settings = SequenceSettings::from_options(options, Some(&old))?;
            // The next value continues where the old definition was: unused cached values
            // are discarded, as in Oracle.
            let next = old.state.lock().next;
            let mut row = vec![
                Value::text("SEQUENCE"),
                Value::integer(old.object_id as i64),
                Value::text(name),
            ];
            settings.push_values(&mut row, next);
            context.update(old.dictionary_row, &row)?;
            let sequence = settings.into_def(old.object_id, name, next, old.dictionary_row);
            dictionary
                .sequences
                .insert(name.to_string(), Arc::new(sequence));
            Ok(())
        })
    }

    /// Creates (or, with `or_replace`, replaces) a view. `ddl` is the CREATE VIEW statement,
    /// which DICT$ keeps and the next open parses again; the caller has checked that its
    /// query plans.
    pub fn create_view(
        &self,
        name: &str,
        or_replace: bool,
        columns: &[String],
        query: &ast::Query,
        ddl: &str,
    ) -> Result<()> {
        check_name(name)?;
        self.change(|dictionary, context| {
            let replaced = match dictionary.views.get(name) {
                Some(view) if or_replace => Some(view.clone()),
                _ if dictionary.name_in_use(name) => return Err(Error::name_in_use()),
                _ => None,
            };
            let object_id = match &replaced {
                Some(view) => {
                    context.delete(view.dictionary_row)?;
                    view.object_id
                }
                None => self.next_object_id(),
            };
            let created = now_seconds();
            let row = vec![
                Value::text("VIEW"),
                Value::integer(object_id as i64),
                Value::text(name),
                Value::Null,
                Value::text(ddl),
                Value::integer(created),
            ];
            let dictionary_row = context.insert(&row)?;
            let view = ViewDef {
                object_id,
                name: name.to_string(),
                columns: columns.to_vec(),
                query: Arc::new(query.clone()),
                ddl: ddl.to_string(),
                created,
                dictionary_row,
            };
            dictionary.views.insert(name.to_string(), Arc::new(view));
            Ok(())
        })
    }

    pub fn drop_view(&self, name: &str) -> Result<()> {
        self.change(|dictionary, context| {
            let view = dictionary
                .views
                .remove(name)
                .ok_or_else(Error::table_not_found)?;
            users::drop_table_privileges(dictionary, context, view.object_id)?;
            context.delete(view.dictionary_row)
        })
    }

    pub fn drop_sequence(&self, name: &str) -> Result<()> {
        self.change(|dictionary, context| {
            let sequence = dictionary
                .sequences
                .remove(name)
                .ok_or_else(|| Error::new(2289, "sequence does not exist"))?;
            context.delete(sequence.dictionary_row)
        })
    }

    /// NEXTVAL: the next number, reserving a new cached range in DICT$ when the current one
    /// is used up.
    pub fn next_value(&self, sequence: &SequenceDef) -> Result<i128> {
        let mut state = sequence.state.lock();
        let ascending = sequence.increment > 0;
        let mut value = state.next;
        let beyond = if ascending {
            value > sequence.max
        } else {
            value < sequence.min
        };
        if beyond {
            if !sequence.cycle {
                return Err(Error::new(
                    8004,
                    format!(
                        "sequence {}.NEXTVAL {} {}VALUE and cannot be instantiated",
                        sequence.name,
                        if ascending { "exceeds" } else { "goes below" },
                        if ascending { "MAX" } else { "MIN" }
                    ),
                ));
            }
            value = if ascending {
                sequence.min
            } else {
                sequence.max
            };
            state.high_water = value;
        }
        let reserved = if ascending {
            value < state.high_water
        } else {
            value > state.high_water
        };
        if !reserved {
            let high_water = value + sequence.increment * sequence.cache.max(1);
            let mut row = vec![
                Value::text("SEQUENCE"),
                Value::integer(sequence.object_id as i64),
                Value::text(&sequence.name),
            ];
            SequenceSettings::of(sequence).push_values(&mut row, high_water);
            self.recursive_update(sequence.dictionary_row, &row)?;
            state.high_water = high_water;
        }
        state.next = value + sequence.increment;
        Ok(value)
    }

    /// Changes a DICT$ row in a transaction of its own, committed at once (Oracle's
    /// recursive SQL for SEQ$).
    fn recursive_update(&self, rowid: RowId, row: &[Value]) -> Result<()> {
        let transactions = &self.storage.transactions;
        let mut transaction = transactions.begin()?;
        let mut data = Vec::new();
        encode_row(row, &mut data);
        let changed = transactions.change_row(
            &mut transaction,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Update(data.clone())),
        );
        match changed {
            Ok(_) => transactions.commit(transaction, true).map(|_| ()),
            Err(error) => {
                transactions.rollback(transaction)?;
                Err(error)
            }
        }
    }

    pub fn storage(&self) -> &Storage {
        &self.storage
    }
}

/// One DDL statement in the making ([`Catalog::statement`]): its own copy of the dictionary,
/// which each change updates, and its transaction. A statement of several changes (CREATE
/// TABLE and its keys' indexes, ALTER TABLE ... ADD PRIMARY KEY, DROP TABLE of a list) makes
/// them all here, so that they commit together or not at all.
pub struct DdlStatement<'a> {
    dictionary: Dictionary,
    context: DdlContext<'a>,
}

impl DdlStatement<'_> {
    /// The dictionary as the statement has changed it so far.
    pub fn dictionary(&self) -> &Dictionary {
        &self.dictionary
    }

    /// Creates a table whose blocks go to `buffer_pool`, scanned at the midpoint when
    /// `cache`; `rows` (CREATE TABLE AS SELECT) are inserted in the same transaction. DICT$
    /// keeps the CREATE TABLE text made from the definition.
    pub fn create_table(
        &mut self,
        name: &str,
        definition: Definition,
        buffer_pool: BufferPool,
        cache: bool,
        rows: Vec<Vec<Value>>,
    ) -> Result<()> {
        let catalog = self.context.catalog;
        check_name(name)?;
        let ddl = table_ddl(name, &definition)?;
        let Definition {
            columns,
            checks,
            foreign_keys,
        } = definition;
        let ddl = ddl.as_str();
        if columns.is_empty() || columns.len() > TABLE_COLUMNS_MAX {
            return Err(Error::new(
                1792,
                format!("maximum number of columns in a table or view is {TABLE_COLUMNS_MAX}"),
            ));
        }
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        if dictionary.name_in_use(name) {
            return Err(Error::name_in_use());
        }
        let object_id = catalog.next_object_id();
        let segment = context.create_segment(object_id, SegmentKind::Heap, buffer_pool)?;
        let mut table = TableDef {
            object_id,
            name: name.to_string(),
            columns,
            segment,
            insert_points: Arc::default(),
            indexes: Vec::new(),
            checks,
            foreign_keys,
            comments: Comments::default(),
            statistics: None,
            buffer_pool,
            cache,
            created: now_seconds(),
            ddl: ddl.to_string(),
            dictionary_row: RowId { block: 0, slot: 0 },
            statistics_rows: Vec::new(),
        };
        table.dictionary_row = context.insert(&table.dictionary_values())?;
        for row in rows {
            let row = rows::check_row(&table, row)?;
            rows::insert_row(&catalog.storage, context.transaction(), &table, &row)?;
        }
        dictionary.tables.insert(name.to_string(), Arc::new(table));
        Ok(())
    }

    /// Creates an index on `columns`, each (column name, kept in descending order), and
    /// fills it from the table's rows (committed ones, and the statement's own: CREATE TABLE
    /// AS SELECT). `constraint` names the PRIMARY KEY or UNIQUE constraint it enforces; the
    /// index's blocks go to `buffer_pool`.
    pub fn create_index(
        &mut self,
        name: &str,
        table_name: &str,
        columns: &[(String, bool)],
        unique: bool,
        constraint: Option<(&str, bool)>,
        buffer_pool: BufferPool,
    ) -> Result<()> {
        let catalog = self.context.catalog;
        check_name(name)?;
        if columns.is_empty() || columns.len() > INDEX_COLUMNS_MAX {
            return Err(Error::new(
                1793,
                format!("maximum number of index columns is {INDEX_COLUMNS_MAX}"),
            ));
        }
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        if dictionary.name_in_use(name) {
            return Err(Error::name_in_use());
        }
        let table = dictionary.table(table_name)?.clone();
        let mut positions = Vec::with_capacity(columns.len());
        for (column, _) in columns {
            let position = table
                .column(column)
                .ok_or_else(|| Error::invalid_identifier(column))?;
            if positions.contains(&position) {
                return Err(Error::new(957, "duplicate column name"));
            }
            positions.push(position);
        }
        if let Some(existing) = table
            .indexes
            .iter()
            .find(|index| index.columns == positions)
        {
            if constraint.is_none() || existing.unique {
                return Err(Error::new(1408, "such column list already indexed"));
            }
        }
        let object_id = catalog.next_object_id();
        let tree = context.create_tree(object_id, unique, buffer_pool)?;
        let mut index = IndexDef {
            object_id,
            name: name.to_string(),
            table_id: table.object_id,
            table_name: table.name.clone(),
            descending: columns.iter().map(|(_, descending)| *descending).collect(),
            columns: positions,
            unique,
            constraint: constraint.map(|(name, _)| name.to_string()),
            primary: constraint.is_some_and(|(_, primary)| primary),
            buffer_pool,
            tree,
            dictionary_row: RowId { block: 0, slot: 0 },
        };
        index.dictionary_row = context.insert(&index.dictionary_values())?;
        let index = Arc::new(index);
        rows::build_index(&catalog.storage, context.transaction(), &table, &index)?;
        dictionary.indexes.insert(name.to_string(), index.clone());
        let mut changed = clone_table(&table);
        changed.indexes.push(index.clone());
        // Oracle computes an index's statistics when it creates it. Here they hang off
        // the table's, so only an analyzed table gets them (its figures are kept).
        if let Some(gathered) = &table.statistics {
            let mut with_index = (**gathered).clone();
            with_index.indexes.insert(
                index.name.clone(),
                statistics::IndexStatistics::measure(
                    &catalog.storage.cache,
                    &index,
                    now_seconds(),
                )?,
            );
            changed.statistics = Some(Arc::new(with_index));
            changed.write_statistics(context)?;
        }
        dictionary
            .tables
            .insert(changed.name.clone(), Arc::new(changed));
        Ok(())
    }

    /// ALTER TABLE (and RENAME): `work` sees the table's current definition and says what
    /// it becomes. In the DDL's transaction: existing rows are validated and rewritten (each
    /// rewrite logged and undone on failure like any change), indexes on a dropped column
    /// are dropped (ORA-12991 for a multi-column key) and the others renumbered, and the
    /// table's DICT$ row gets its new name and CREATE TABLE text.
    pub fn alter_table<'a>(
        &mut self,
        name: &str,
        work: impl FnOnce(&TableDef) -> Result<Alteration<'a>>,
    ) -> Result<()> {
        let catalog = self.context.catalog;
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let old = dictionary.table(name)?.clone();
        let alteration = work(&old)?;
        check_name(&alteration.name)?;
        if alteration.name != old.name && dictionary.name_in_use(&alteration.name) {
            return Err(Error::name_in_use());
        }
        if alteration.columns.is_empty() {
            return Err(Error::new(12983, "cannot drop all columns in a table"));
        }
        if alteration.columns.len() > TABLE_COLUMNS_MAX {
            return Err(Error::new(
                1792,
                format!("maximum number of columns in a table or view is {TABLE_COLUMNS_MAX}"),
            ));
        }
        let definition = Definition {
            columns: alteration.columns,
            checks: alteration.checks,
            foreign_keys: alteration.foreign_keys,
        };
        let ddl = table_ddl(&alteration.name, &definition)?;
        let mut table = clone_table(&old);
        table.name = alteration.name.clone();
        // Tables whose foreign keys reference this one follow its new names.
        let renamed_columns: Vec<(String, String)> = if alteration.dropped_column.is_none()
            && definition.columns.len() == old.columns.len()
        {
            old.columns
                .iter()
                .zip(&definition.columns)
                .filter(|(before, after)| before.name != after.name)
                .map(|(before, after)| (before.name.clone(), after.name.clone()))
                .collect()
        } else {
            Vec::new()
        };
        if table.name != old.name || !renamed_columns.is_empty() {
            let children: Vec<Arc<TableDef>> = dictionary
                .tables
                .values()
                .filter(|other| {
                    other.object_id != old.object_id
                        && other.foreign_keys.iter().any(|key| key.parent == old.name)
                })
                .cloned()
                .collect();
            for child in children {
                let mut changed = clone_table(&child);
                for key in &mut changed.foreign_keys {
                    if key.parent != old.name {
                        continue;
                    }
                    key.parent = table.name.clone();
                    for column in &mut key.parent_columns {
                        if let Some((_, to)) =
                            renamed_columns.iter().find(|(from, _)| from == column)
                        {
                            *column = to.clone();
                        }
                    }
                }
                changed.ddl = table_ddl(&changed.name, &changed.definition())?;
                context.update(changed.dictionary_row, &changed.dictionary_values())?;
                dictionary
                    .tables
                    .insert(changed.name.clone(), Arc::new(changed));
            }
        }
        if !table.comments.columns.is_empty() {
            let dropped = alteration
                .dropped_column
                .map(|position| old.columns[position].name.clone());
            let mut columns = BTreeMap::new();
            for (column, text) in std::mem::take(&mut table.comments.columns) {
                if Some(&column) == dropped.as_ref() {
                    continue;
                }
                let column = renamed_columns
                    .iter()
                    .find(|(from, _)| *from == column)
                    .map_or(column, |(_, to)| to.clone());
                columns.insert(column, text);
            }
            let changed = columns != old.comments.columns;
            table.comments.columns = columns;
            if changed {
                table.comments.write(context, table.object_id)?;
            }
        }
        table.columns = definition.columns;
        table.checks = definition.checks;
        table.foreign_keys = definition.foreign_keys;
        table.buffer_pool = alteration.buffer_pool;
        table.cache = alteration.cache;
        table.ddl = ddl.clone();
        table.indexes.clear();
        // Indexes: renumbered past a dropped column, renamed with the table.
        for index in &old.indexes {
            let mut columns = index.columns.clone();
            if let Some(dropped) = alteration.dropped_column {
                if columns.contains(&dropped) {
                    if index.constraint.is_some() && columns.len() > 1 {
                        return Err(Error::new(
                            12991,
                            "column is referenced in a multi-column constraint",
                        ));
                    }
                    context.delete(index.dictionary_row)?;
                    dictionary.indexes.remove(&index.name);
                    context.drop_segment(index.object_id, index.tree.header())?;
                    continue;
                }
                for column in &mut columns {
                    if *column > dropped {
                        *column -= 1;
                    }
                }
            }
            let changed = Arc::new(IndexDef {
                table_name: table.name.clone(),
                columns,
                ..(**index).clone()
            });
            if changed.columns != index.columns {
                context.update(changed.dictionary_row, &changed.dictionary_values())?;
            }
            dictionary
                .indexes
                .insert(changed.name.clone(), changed.clone());
            table.indexes.push(changed);
        }
        if alteration.validate.is_some()
            || alteration.rewrite.is_some()
            || alteration.validate_new.is_some()
        {
            let storage = &catalog.storage;
            let rows = rows::current_rows(storage, context.transaction(), &old)?;
            for (rowid, row) in rows {
                if let Some(validate) = &alteration.validate {
                    validate(&row)?;
                }
                let Some(rewrite) = &alteration.rewrite else {
                    if let Some(validate_new) = &alteration.validate_new {
                        let mut padded = row.clone();
                        padded.resize(table.columns.len(), Value::Null);
                        validate_new(&padded)?;
                    }
                    continue;
                };
                let new_row = rows::check_row(&table, rewrite(row.clone())?)?;
                if let Some(validate_new) = &alteration.validate_new {
                    validate_new(&new_row)?;
                }
                let mut data = Vec::new();
                encode_row(&new_row, &mut data);
                let transaction = context.transaction();
                storage.transactions.change_row(
                    transaction,
                    old.object_id,
                    old.buffer_pool,
                    rowid,
                    &mut |_| Ok(RowChange::Update(data.clone())),
                )?;
                // An index whose key changed with the row (a type change that pads
                // or converts a key column): move its entry.
                for index in &table.indexes {
                    let Some(before) = old
                        .indexes
                        .iter()
                        .find(|other| other.object_id == index.object_id)
                    else {
                        continue;
                    };
                    rows::move_index_entry(
                        storage,
                        transaction,
                        &table,
                        before,
                        index,
                        &row,
                        &new_row,
                        rowid,
                    )?;
                }
            }
        }
        if let Some(gathered) = &old.statistics {
            // A renamed column keeps its statistics, a dropped one (and the indexes that
            // went with it) loses them; a type change keeps them, as in Oracle.
            let mut kept = match alteration.dropped_column {
                Some(position) => gathered.with_column_renamed(&old.columns[position].name, None),
                None => (**gathered).clone(),
            };
            for (from, to) in &renamed_columns {
                kept = kept.with_column_renamed(from, Some(to));
            }
            kept.indexes
                .retain(|name, _| table.indexes.iter().any(|index| index.name == *name));
            if kept != **gathered {
                table.statistics = Some(Arc::new(kept));
                table.write_statistics(context)?;
            }
        }
        context.update(table.dictionary_row, &table.dictionary_values())?;
        dictionary.tables.remove(&old.name);
        dictionary
            .tables
            .insert(table.name.clone(), Arc::new(table));
        Ok(())
    }

    /// DROP TABLE: the table's DICT$ rows (its indexes', comments' and statistics' too) are
    /// deleted, and its segments are freed by the commit.
    pub fn drop_table(&mut self, name: &str) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let table = dictionary.table(name)?.clone();
        for index in &table.indexes {
            context.delete(index.dictionary_row)?;
            dictionary.indexes.remove(&index.name);
            context.drop_segment(index.object_id, index.tree.header())?;
        }
        for row in table.comments.rows.iter().chain(&table.statistics_rows) {
            context.delete(*row)?;
        }
        users::drop_table_privileges(dictionary, context, table.object_id)?;
        context.delete(table.dictionary_row)?;
        dictionary.tables.remove(name);
        context.drop_segment(table.object_id, table.segment)?;
        Ok(())
    }

    fn drop_index_of(&mut self, name: &str, constraint: bool) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let index = dictionary.index(name)?.clone();
        if index.constraint.is_some() && !constraint {
            return Err(Error::new(
                2429,
                "cannot drop index used for enforcement of unique/primary key",
            ));
        }
        context.delete(index.dictionary_row)?;
        dictionary.indexes.remove(name);
        if let Some(table) = dictionary.table_by_id(index.table_id) {
            let mut changed = clone_table(&table);
            changed
                .indexes
                .retain(|other| other.object_id != index.object_id);
            if let Some(gathered) = &table.statistics {
                if gathered.indexes.contains_key(&index.name) {
                    let mut kept = (**gathered).clone();
                    kept.indexes.remove(&index.name);
                    changed.statistics = Some(Arc::new(kept));
                    changed.write_statistics(context)?;
                }
            }
            dictionary
                .tables
                .insert(changed.name.clone(), Arc::new(changed));
        }
        context.drop_segment(index.object_id, index.tree.header())?;
        Ok(())
    }

    /// ALTER INDEX ... STORAGE (BUFFER_POOL ...): the index's blocks read from now on go to
    /// `buffer_pool`; those cached stay in their pool until aged out (seed 001). Its DICT$
    /// row is rewritten in the DDL's transaction, and its table gets a new definition too,
    /// so the cursors that depend on the table are invalidated as by any DDL.
    pub fn alter_index(&mut self, name: &str, buffer_pool: BufferPool) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let old = dictionary.index(name)?.clone();
        let index = Arc::new(IndexDef {
            buffer_pool,
            tree: old.tree.clone().with_pool(buffer_pool),
            ..(*old).clone()
        });
        context.update(index.dictionary_row, &index.dictionary_values())?;
        dictionary.indexes.insert(name.to_string(), index.clone());
        if let Some(table) = dictionary.table_by_id(index.table_id) {
            let mut changed = clone_table(&table);
            for entry in &mut changed.indexes {
                if entry.object_id == index.object_id {
                    *entry = index.clone();
                }
            }
            dictionary
                .tables
                .insert(changed.name.clone(), Arc::new(changed));
        }
        Ok(())
    }

    /// TRUNCATE: the table and each of its indexes get a new, empty segment, and the old
    /// ones are freed by the commit, so that a crash leaves the rows and their index
    /// entries, or none of either. (Oracle keeps the segment and bumps its data object
    /// number; a segment of our own does for that, and the space is the same: one extent.)
    /// The table's statistics stay, as in Oracle.
    pub fn truncate_table(&mut self, name: &str) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let table = dictionary.table(name)?.clone();
        let mut changed = clone_table(&table);
        changed.segment =
            context.create_segment(table.object_id, SegmentKind::Heap, table.buffer_pool)?;
        changed.insert_points = Arc::default();
        context.drop_segment(table.object_id, table.segment)?;
        context.update(changed.dictionary_row, &changed.dictionary_values())?;
        changed.indexes.clear();
        for old in &table.indexes {
            let index = Arc::new(IndexDef {
                tree: context.create_tree(old.object_id, old.unique, old.buffer_pool)?,
                ..(**old).clone()
            });
            context.drop_segment(old.object_id, old.tree.header())?;
            context.update(index.dictionary_row, &index.dictionary_values())?;
            dictionary.indexes.insert(index.name.clone(), index.clone());
            changed.indexes.push(index);
        }
        dictionary
            .tables
            .insert(changed.name.clone(), Arc::new(changed));
        Ok(())
    }
}

/// What a DDL change works with: the catalog and the statement's transaction.
struct DdlContext<'a> {
    catalog: &'a Catalog,
    transaction: Option<crate::transaction::Transaction>,
}

impl DdlContext<'_> {
    fn transaction(&mut self) -> &mut crate::transaction::Transaction {
        self.transaction.as_mut().expect("DDL transaction")
    }

    /// Creates a segment whose blocks go to `pool`, in the statement's transaction: its
    /// rollback frees it.
    fn create_segment(
        &mut self,
        object_id: u32,
        kind: SegmentKind,
        pool: BufferPool,
    ) -> Result<BlockId> {
        let storage = &self.catalog.storage;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        storage
            .transactions
            .create_segment(transaction, object_id, |mtr| {
                let header = segment::create(mtr, &storage.space, object_id, kind, pool)?;
                Ok((header, header))
            })
    }

    /// Creates an index segment whose blocks go to `pool`, in the statement's transaction.
    fn create_tree(&mut self, object_id: u32, unique: bool, pool: BufferPool) -> Result<BTree> {
        let storage = &self.catalog.storage;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        let tree = storage
            .transactions
            .create_segment(transaction, object_id, |mtr| {
                let tree = BTree::create(mtr, &storage.space, object_id, unique, pool)?;
                Ok((tree.header(), tree))
            })?;
        Ok(tree.with_purge(purge_predicate(storage)))
    }

    /// Frees the segment at `header` (of object `object_id`) when the statement commits.
    fn drop_segment(&mut self, object_id: u32, header: BlockId) -> Result<()> {
        let storage = &self.catalog.storage;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        storage
            .transactions
            .drop_segment_at_commit(transaction, object_id, header)
    }

    fn insert(&mut self, row: &[Value]) -> Result<RowId> {
        let mut data = Vec::new();
        encode_row(row, &mut data);
        let catalog = self.catalog;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        catalog.storage.transactions.insert_row(
            transaction,
            catalog.dictionary_segment,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            &catalog.dictionary_points,
            &data,
        )
    }

    fn update(&mut self, rowid: RowId, row: &[Value]) -> Result<()> {
        let mut data = Vec::new();
        encode_row(row, &mut data);
        let catalog = self.catalog;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        catalog.storage.transactions.change_row(
            transaction,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Update(data.clone())),
        )?;
        Ok(())
    }

    fn delete(&mut self, rowid: RowId) -> Result<()> {
        let catalog = self.catalog;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        catalog.storage.transactions.change_row(
            transaction,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Delete),
        )?;
        Ok(())
    }
}

/// Sequence options resolved to values, with Oracle's defaults.
#[derive(Clone, Copy)]
struct SequenceSettings {
    start: i128,
    increment: i128,
    min: i128,
    max: i128,
    cache: i128,
    cycle: bool,
}

/// NOMAXVALUE of an ascending sequence: 10^28 - 1 (Oracle: 10^28 - 1 too).
const SEQUENCE_VALUE_MAX: i128 = 9_999_999_999_999_999_999_999_999_999;

impl SequenceSettings {
    fn of(sequence: &SequenceDef) -> SequenceSettings {
        SequenceSettings {
            start: 0,
            increment: sequence.increment,
            min: sequence.min,
            max: sequence.max,
            cache: sequence.cache,
            cycle: sequence.cycle,
        }
    }

    fn from_options(
        options: &[ast::SequenceOption],
        old: Option<&SequenceDef>,
    ) -> Result<SequenceSettings> {
        use ast::SequenceOption as O;
        let mut increment = old.map_or(1, |old| old.increment);
        let mut start = None;
        let mut min = old.map(|old| old.min);
        let mut max = old.map(|old| old.max);
        let mut cache = old.map_or(20, |old| old.cache);
        let mut cycle = old.is_some_and(|old| old.cycle);
        for option in options {
            match *option {
                O::StartWith(value) => start = Some(value),
                O::IncrementBy(value) => increment = value,
                O::MinValue(value) => min = Some(value),
                O::NoMinValue => min = None,
                O::MaxValue(value) => max = Some(value),
                O::NoMaxValue => max = None,
                O::Cache(value) => cache = value,
                O::NoCache => cache = 1,
                O::Cycle => cycle = true,
                O::NoCycle => cycle = false,
                O::Order | O::NoOrder => {}
            }
        }
        if increment == 0 {
            return Err(Error::new(4002, "INCREMENT must be a non-zero integer"));
        }
        let min = min.unwrap_or(if increment > 0 {
            1
        } else {
            -SEQUENCE_VALUE_MAX
        });
        let max = max.unwrap_or(if increment > 0 {
            SEQUENCE_VALUE_MAX
        } else {
            -1
        });
        if min >= max {
            return Err(Error::new(4004, "MINVALUE must be less than MAXVALUE"));
        }
        if cache < 1 {
            return Err(Error::new(
                4010,
                "the number of values to CACHE must be greater than 1",
            ));
        }
        let start = start.unwrap_or(if increment > 0 { min } else { max });
        if start < min {
            return Err(Error::new(4006, "START WITH cannot be less than MINVALUE"));
        }
        if start > max {
            return Err(Error::new(4008, "START WITH cannot be more than MAXVALUE"));
        }
        Ok(SequenceSettings {
            start,
            increment,
            min,
            max,
            cache,
            cycle,
        })
    }

    fn push_values(&self, row: &mut Vec<Value>, high_water: i128) {
        for value in [self.increment, self.min, self.max, self.cache] {
            row.push(number(value));
        }
        row.push(Value::integer(self.cycle as i64));
        row.push(number(high_water));
    }

    fn into_def(self, object_id: u32, name: &str, next: i128, row: RowId) -> SequenceDef {
        SequenceDef {
            object_id,
            name: name.to_string(),
            increment: self.increment,
            min: self.min,
            max: self.max,
            cache: self.cache,
            cycle: self.cycle,
            state: Arc::new(Enqueue::new(
                *b"SQ",
                WaitEvent::EnqueueSqContention,
                object_id as u64,
                SequenceState {
                    next,
                    high_water: next,
                },
            )),
            dictionary_row: row,
        }
    }
}

fn number(value: i128) -> Value {
    Value::Number(rust_decimal::Decimal::from_i128_with_scale(value, 0))
}

/// Every committed DICT$ row with its rowid.
fn scan_dictionary(storage: &Storage, header: BlockId) -> Result<Vec<(RowId, Vec<Value>)>> {
    let transactions = &storage.transactions;
    let snapshot = transactions.snapshot();
    let mut rows = Vec::new();
    for block in segment::used_blocks(&storage.cache, header)? {
        let pieces = {
            let data = storage.cache.read(block, AccessKind::Lookup)?;
            heap::pieces(&data)?
        };
        for (slot, piece) in pieces {
            if let Some(data) = transactions.consistent_version(piece, snapshot.scn, 0)? {
                rows.push((
                    RowId {
                        block: block.block,
                        slot,
                    },
                    decode_row(&data)?,
                ));
            }
        }
    }
    Ok(rows)
}

fn integer(values: &[Value], index: usize) -> Result<i128> {
    values
        .get(index)
        .and_then(Value::as_decimal)
        .and_then(|number| i128::try_from(number).ok())
        .ok_or_else(|| Error::internal(format!("dictionary row: column {index} is not a number")))
}

fn text(values: &[Value], index: usize) -> Result<String> {
    values
        .get(index)
        .and_then(|value| value.as_str().map(str::to_string))
        .ok_or_else(|| Error::internal(format!("dictionary row: column {index} is not text")))
}

/// The number in column `index`, or None when the row has no such column (written by a
/// build that did not keep it) or NULL there.
fn optional_integer(values: &[Value], index: usize) -> Result<Option<i128>> {
    match values.get(index) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => integer(values, index).map(Some),
    }
}

/// The buffer pool code in column `index` of a TABLE or INDEX row; DEFAULT when absent.
fn buffer_pool(values: &[Value], index: usize) -> Result<BufferPool> {
    let Some(code) = optional_integer(values, index)? else {
        return Ok(BufferPool::Default);
    };
    u8::try_from(code)
        .ok()
        .and_then(BufferPool::from_code)
        .ok_or_else(|| Error::internal(format!("dictionary row: buffer pool code {code}")))
}

fn table_from_row(rowid: RowId, values: &[Value]) -> Result<TableDef> {
    let ddl = text(values, 4)?;
    let Definition {
        columns,
        checks,
        foreign_keys,
    } = definition_from_ddl(&ddl)?;
    Ok(TableDef {
        object_id: integer(values, 1)? as u32,
        name: text(values, 2)?,
        columns,
        foreign_keys,
        comments: Comments::default(),
        statistics: None,
        segment: BlockId::new(SYSTEM_FILE, integer(values, 3)? as u32),
        insert_points: Arc::default(),
        indexes: Vec::new(),
        checks,
        buffer_pool: buffer_pool(values, 6)?,
        cache: optional_integer(values, 7)?.is_some_and(|flag| flag != 0),
        created: integer(values, 5)? as i64,
        ddl,
        dictionary_row: rowid,
        statistics_rows: Vec::new(),
    })
}

/// The columns and CHECK constraints of a stored CREATE TABLE text. Texts written before
/// tables were stored as generated text (the user's own CREATE TABLE) read the same way:
/// their PRIMARY KEY and UNIQUE clauses are ignored here (the INDEX rows hold the keys), and
/// they could have no CHECK clause.
pub fn definition_from_ddl(ddl: &str) -> Result<Definition> {
    let ast::Statement::CreateTable {
        columns,
        constraints,
        ..
    } = crate::syntax::parser::parse(ddl)?
    else {
        return Err(Error::internal(
            "dictionary row: table text is not CREATE TABLE",
        ));
    };
    let mut checks = Vec::new();
    let mut foreign_keys = Vec::new();
    let written = columns
        .iter()
        .flat_map(|column| column.constraints.iter())
        .chain(constraints.iter());
    for constraint in written {
        if let ast::TableConstraintKind::Check(condition) = &constraint.kind {
            checks.push(CheckConstraint {
                name: constraint.name.clone().unwrap_or_default(),
                condition: condition.clone(),
            });
        }
        if let ast::TableConstraintKind::ForeignKey {
            columns,
            references,
        } = &constraint.kind
        {
            foreign_keys.push(ForeignKey {
                name: constraint.name.clone().unwrap_or_default(),
                columns: columns.clone(),
                parent: references.table.name.clone(),
                parent_columns: references.columns.clone(),
                on_delete: references.on_delete,
            });
        }
    }
    Ok(Definition {
        columns: columns_from_ast(&columns)?,
        checks,
        foreign_keys,
    })
}

/// The PRIMARY KEY columns a CREATE TABLE text states (a text a user wrote: generated
/// texts state none, their INDEX rows say which key is primary).
fn written_primary_key(ddl: &str) -> Option<Vec<String>> {
    let Ok(ast::Statement::CreateTable {
        columns,
        constraints,
        ..
    }) = crate::syntax::parser::parse(ddl)
    else {
        return None;
    };
    if let Some(column) = columns.iter().find(|column| column.primary_key) {
        return Some(vec![column.name.clone()]);
    }
    constraints
        .iter()
        .find_map(|constraint| match &constraint.kind {
            ast::TableConstraintKind::PrimaryKey { columns } => Some(columns.clone()),
            _ => None,
        })
}

/// The CREATE TABLE text of a definition: `CREATE TABLE "T" ("A" NUMBER(5) DEFAULT 0 NOT
/// NULL, ..., CONSTRAINT "C" CHECK (...))`. Keys are not in it (their INDEX rows hold
/// them). [`definition_from_ddl`] reads it back to the same definition.
pub fn table_ddl(name: &str, definition: &Definition) -> Result<String> {
    use crate::syntax::print;
    let list = |names: &[String]| {
        names
            .iter()
            .map(|name| print::identifier(name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    for column in &definition.columns {
        let mut part = format!(
            "{} {}",
            print::identifier(&column.name),
            print::column_type(&column.data_type)
        );
        if let Some(default) = &column.default {
            part.push_str(" DEFAULT ");
            part.push_str(&print::expression(default)?);
        }
        if !column.nullable {
            part.push_str(" NOT NULL");
        }
        parts.push(part);
    }
    for check in &definition.checks {
        parts.push(format!(
            "CONSTRAINT {} CHECK ({})",
            print::identifier(&check.name),
            print::expression(&check.condition)?
        ));
    }
    for key in &definition.foreign_keys {
        parts.push(format!(
            "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({}){}",
            print::identifier(&key.name),
            list(&key.columns),
            print::identifier(&key.parent),
            list(&key.parent_columns),
            match key.on_delete {
                None => "",
                Some(ast::ReferentialAction::Cascade) => " ON DELETE CASCADE",
                Some(ast::ReferentialAction::SetNull) => " ON DELETE SET NULL",
            }
        ));
    }
    Ok(format!(
        "CREATE TABLE {} ({})",
        print::identifier(name),
        parts.join(", ")
    ))
}

/// Lets an index insert that finds its leaf full first remove the delete-marked entries no
/// running statement can need any more (their deleting transaction committed before the
/// oldest snapshot), instead of splitting.
fn purge_predicate(storage: &Storage) -> PurgePredicate {
    let transactions = storage.transactions.clone();
    Arc::new(move |xid| transactions.is_purgeable(xid))
}

fn index_from_row(
    storage: &Storage,
    rowid: RowId,
    values: &[Value],
    table: &TableDef,
) -> Result<IndexDef> {
    let unique = integer(values, 4)? != 0;
    let (columns, descending): (Vec<usize>, Vec<bool>) = text(values, 5)?
        .split(',')
        .map(|position| {
            let (position, descending) = match position.strip_suffix('D') {
                Some(position) => (position, true),
                None => (position, false),
            };
            position
                .parse::<usize>()
                .map(|position| (position, descending))
                .map_err(|_| Error::internal("dictionary row: bad index column list"))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let header = BlockId::new(SYSTEM_FILE, integer(values, 6)? as u32);
    let primary = match values.get(8) {
        Some(kind) => kind.as_str() == Some("P"),
        None => {
            values.get(7).is_some_and(|name| !name.is_null())
                && written_primary_key(&table.ddl).is_some_and(|key| {
                    key.iter()
                        .map(|name| table.column(name))
                        .collect::<Option<Vec<_>>>()
                        .is_some_and(|positions| positions == columns)
                })
        }
    };
    Ok(IndexDef {
        object_id: integer(values, 1)? as u32,
        name: text(values, 2)?,
        table_id: table.object_id,
        table_name: table.name.clone(),
        columns,
        descending,
        unique,
        constraint: values
            .get(7)
            .and_then(|value| value.as_str().map(str::to_string)),
        // Rows written before the kind was kept have no column 8: their table's text is
        // still the user's own CREATE TABLE, whose PRIMARY KEY clause tells.
        primary,
        buffer_pool: buffer_pool(values, 9)?,
        tree: BTree::open(&storage.cache, header, unique, buffer_pool(values, 9)?)?
            .with_purge(purge_predicate(storage)),
        dictionary_row: rowid,
    })
}

fn sequence_from_row(rowid: RowId, values: &[Value]) -> Result<SequenceDef> {
    let settings = SequenceSettings {
        start: 0,
        increment: integer(values, 3)?,
        min: integer(values, 4)?,
        max: integer(values, 5)?,
        cache: integer(values, 6)?,
        cycle: integer(values, 7)? != 0,
    };
    // Numbers below the high-water value may have been handed out before the crash or
    // shutdown: continue after it.
    let high_water = integer(values, 8)?;
    Ok(settings.into_def(
        integer(values, 1)? as u32,
        &text(values, 2)?,
        high_water,
        rowid,
    ))
}

/// A VIEW row of DICT$: kind, object id, name, (no segment), the CREATE VIEW text, created.
fn view_from_row(rowid: RowId, values: &[Value]) -> Result<ViewDef> {
    let ddl = text(values, 4)?;
    let statement = crate::syntax::parser::parse(&ddl)
        .map_err(|error| Error::internal(format!("stored view text does not parse: {error}")))?;
    let ast::Statement::CreateView {
        name,
        columns,
        query,
        ..
    } = statement
    else {
        return Err(Error::internal("a VIEW row whose text is not CREATE VIEW"));
    };
    Ok(ViewDef {
        object_id: integer(values, 1)? as u32,
        name: name.name,
        columns,
        query: Arc::new(*query),
        ddl,
        created: integer(values, 5)? as i64,
        dictionary_row: rowid,
    })
}

/// A copy of a definition (the dictionary holds them behind `Arc`s).
pub fn clone_table(table: &TableDef) -> TableDef {
    TableDef {
        object_id: table.object_id,
        name: table.name.clone(),
        columns: table.columns.clone(),
        segment: table.segment,
        insert_points: table.insert_points.clone(),
        indexes: table.indexes.clone(),
        checks: table.checks.clone(),
        foreign_keys: table.foreign_keys.clone(),
        comments: table.comments.clone(),
        statistics: table.statistics.clone(),
        buffer_pool: table.buffer_pool,
        cache: table.cache,
        created: table.created,
        ddl: table.ddl.clone(),
        dictionary_row: table.dictionary_row,
        statistics_rows: table.statistics_rows.clone(),
    }
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > OBJECT_NAME_BYTES_MAX {
        return Err(Error::new(
            972,
            format!("identifier is too long (at most {OBJECT_NAME_BYTES_MAX} bytes)"),
        ));
    }
    Ok(())
}

/// Columns of a CREATE TABLE, checked: types valid, names unique.
pub fn columns_from_ast(columns: &[ast::ColumnDef]) -> Result<Vec<ColumnDef>> {
    let mut result: Vec<ColumnDef> = Vec::with_capacity(columns.len());
    for column in columns {
        if result.iter().any(|other| other.name == column.name) {
            return Err(Error::new(957, "duplicate column name"));
        }
        let data_type = data_type_from_ast(&column.data_type)?;
        data_type.validate()?;
        result.push(ColumnDef {
            name: column.name.clone(),
            data_type,
            nullable: !(column.not_null || column.primary_key),
            default: column.default.clone(),
        });
    }
    Ok(result)
}

/// The type system's type for a declared type.
pub fn data_type_from_ast(data_type: &ast::DataType) -> Result<DataType> {
    Ok(match *data_type {
        ast::DataType::Number { precision, scale } => match (precision, scale) {
            (None, None) => DataType::number(),
            (precision, scale) => {
                let precision = match precision {
                    Some(precision) => Some(u8::try_from(precision).map_err(|_| {
                        Error::new(
                            1727,
                            "numeric precision specifier is out of range (1 to 38)",
                        )
                    })?),
                    None => None,
                };
                let scale = match scale {
                    Some(scale) => Some(i8::try_from(scale).map_err(|_| {
                        Error::new(1728, "numeric scale specifier is out of range (-84 to 127)")
                    })?),
                    None => None,
                };
                DataType::Number { precision, scale }
            }
        },
        ast::DataType::Integer => DataType::integer(),
        ast::DataType::Float => DataType::Float,
        ast::DataType::Varchar2 { length } => DataType::varchar2(length),
        ast::DataType::Char { length } => DataType::char(length),
        ast::DataType::Date => DataType::Date,
        ast::DataType::Timestamp { .. } => DataType::Timestamp,
        ast::DataType::Boolean => DataType::Boolean,
    })
}

pub(crate) fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database made by the build before buffer pools were kept has TABLE rows of six
    /// columns and INDEX rows of nine. It must still open, its tables and indexes in
    /// DEFAULT and its tables NOCACHE; and the first DDL on them writes rows of the new
    /// shape that read back the same.
    #[test]
    fn rows_written_before_buffer_pools_read_as_default_and_nocache() {
        let dir = std::env::temp_dir().join(format!("pythia-old-pools-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let small = [
            ("db_cache_size", "8M"),
            ("log_file_size", "4M"),
            ("undo_tablespace_size", "16M"),
        ];
        let open = || crate::Instance::open(&dir, &small).unwrap();
        {
            let instance = open();
            let mut session = instance.connect().unwrap();
            for sql in [
                "create table t (id number primary key, v varchar2(5)) \
                 storage (buffer_pool keep) cache",
                "create index t_v on t (v) storage (buffer_pool recycle)",
                "insert into t values (1, 'one')",
                "commit",
            ] {
                session.execute(sql).unwrap();
            }
            let catalog = instance.catalog();
            catalog
                .change(|dictionary, context| {
                    for table in dictionary.tables.values() {
                        let values = table.dictionary_values();
                        assert_eq!(values.len(), 8);
                        context.update(table.dictionary_row, &values[..6])?;
                    }
                    for index in dictionary.indexes.values() {
                        let values = index.dictionary_values();
                        assert_eq!(values.len(), 10);
                        context.update(index.dictionary_row, &values[..9])?;
                    }
                    Ok(())
                })
                .unwrap();
            drop(session);
            instance.shutdown().unwrap();
        }
        let instance = open();
        let dictionary = instance.catalog().current();
        let table = dictionary.table("T").unwrap();
        assert_eq!(
            (table.buffer_pool, table.cache),
            (BufferPool::Default, false)
        );
        assert_eq!(table.indexes.len(), 2);
        for index in dictionary.indexes.values() {
            assert_eq!(index.buffer_pool, BufferPool::Default, "{}", index.name);
        }
        let mut session = instance.connect().unwrap();
        let found = session
            .execute("select v from t where id = 1")
            .unwrap()
            .rows;
        assert_eq!(found, vec![vec![Value::text("one")]]);
        session
            .execute("alter table t storage (buffer_pool recycle)")
            .unwrap();
        drop(session);
        instance.shutdown().unwrap();
        drop(instance);
        let instance = open();
        let dictionary = instance.catalog().current();
        let table = dictionary.table("T").unwrap();
        assert_eq!(
            (table.buffer_pool, table.cache),
            (BufferPool::Recycle, false)
        );
        drop(instance);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// DICT$ keeps a table as the text `table_ddl` writes; reading it back must give the
    /// same definition, or an ALTER would change a table across a restart.
    #[test]
    fn generated_table_text_reads_back_to_the_same_definition() {
        let original = "CREATE TABLE \"Mixed\" (id NUMBER PRIMARY KEY, a NUMBER(5), \
             b NUMBER(7,2) DEFAULT -1.5 NOT NULL, c NUMBER(*,2), i INTEGER, f BINARY_DOUBLE, \
             v VARCHAR2(20) DEFAULT 'it''s', ch CHAR(3), d DATE DEFAULT SYSDATE, \
             ts TIMESTAMP, flag BOOLEAN, \"lower col\" NUMBER, \
             CONSTRAINT pos CHECK (a > 0 AND b BETWEEN -10 AND 10 OR v IN ('x', 'y')), \
             CONSTRAINT named CHECK (upper(v) LIKE 'A%' OR ch IS NULL), \
             CONSTRAINT fk1 FOREIGN KEY (a, i) REFERENCES parent (x, \"y\") ON DELETE CASCADE, \
             CONSTRAINT fk2 FOREIGN KEY (c) REFERENCES other (z))";
        let definition = definition_from_ddl(original).unwrap();
        assert_eq!(definition.checks.len(), 2);
        assert_eq!(definition.foreign_keys.len(), 2);
        let generated = table_ddl("Mixed", &definition).unwrap();
        let again = definition_from_ddl(&generated).unwrap();
        assert_eq!(again, definition, "{generated}");
        assert_eq!(table_ddl("Mixed", &again).unwrap(), generated);
        // The primary key's NOT NULL is kept as NOT NULL (the key itself is an INDEX row).
        assert!(!definition.columns[0].nullable);
        // Which key is primary: an old text says, a generated one does not.
        assert_eq!(written_primary_key(original), Some(vec!["ID".to_string()]));
        assert_eq!(written_primary_key(&generated), None);
        assert_eq!(
            written_primary_key("CREATE TABLE t (a NUMBER, b NUMBER, PRIMARY KEY (b, a))"),
            Some(vec!["B".to_string(), "A".to_string()])
        );
    }
}
