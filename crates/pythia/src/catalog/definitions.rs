//! The dictionary's definitions in memory: tables (with their columns, constraints and
//! comments), indexes, sequences and views, and `Dictionary`, one immutable version of them
//! all.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::access::btree::BTree;
use crate::access::heap::RowId;
use crate::buffer::BufferPool;
use crate::error::{Error, Result};
use crate::instrumentation::Enqueue;
use crate::io::block::BlockId;
use crate::syntax::ast;
use crate::transaction::InsertPoints;
use crate::types::DataType;

use super::sequences::SequenceState;
use super::{statistics, users};

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
    pub(super) ddl: String,
    pub(super) dictionary_row: RowId,
    /// The STATS rows of DICT$ that keep `statistics`, rewritten together.
    pub(super) statistics_rows: Vec<RowId>,
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
    pub(super) rows: Vec<RowId>,
}

impl Comments {
    pub(super) fn is_empty(&self) -> bool {
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

impl TableDef {
    /// The columns and constraints, as the CREATE TABLE text states them.
    pub fn definition(&self) -> Definition {
        Definition {
            columns: self.columns.clone(),
            checks: self.checks.clone(),
            foreign_keys: self.foreign_keys.clone(),
        }
    }

    /// The CREATE TABLE text DICT$ keeps for this definition (see
    /// [`table_ddl`](super::table_ddl)).
    pub fn ddl(&self) -> &str {
        &self.ddl
    }

    /// The column's position, by its (upper-case) name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|column| column.name == name)
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
    pub(super) dictionary_row: RowId,
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
    pub(super) state: Arc<Enqueue<SequenceState>>,
    pub(super) dictionary_row: RowId,
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
    pub(super) dictionary_row: RowId,
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
    /// Procedures, functions and packages (`programs.rs`), in the namespace of tables.
    pub programs: BTreeMap<String, Arc<super::ProgramDef>>,
    /// Package bodies, by their package's name: a namespace of their own.
    pub bodies: BTreeMap<String, Arc<super::ProgramDef>>,
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
    pub(super) fn table_by_id(&self, object_id: u32) -> Option<Arc<TableDef>> {
        self.tables
            .values()
            .find(|table| table.object_id == object_id)
            .cloned()
    }

    pub(super) fn name_in_use(&self, name: &str) -> bool {
        self.tables.contains_key(name)
            || self.indexes.contains_key(name)
            || self.sequences.contains_key(name)
            || self.views.contains_key(name)
            || self.programs.contains_key(name)
    }
}

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
    // A unit changes when its source does (or it comes or goes), not when it is compiled
    // again or marked INVALID: its callers compiled against the source.
    for (programs_before, programs_after) in [
        (&before.programs, &after.programs),
        (&before.bodies, &after.bodies),
    ] {
        for (name, program) in programs_before {
            match programs_after.get(name) {
                Some(other) if other.source == program.source && other.kind == program.kind => {}
                _ => {
                    changed.insert(name.clone());
                }
            }
        }
        for name in programs_after.keys() {
            if !programs_before.contains_key(name) {
                changed.insert(name.clone());
            }
        }
    }
    changed
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
