//! Queries: name resolution, access paths, and the row pipeline.
//!
//! ```text
//!   ast::Query ──plan──> QueryPlan
//!                          sources: [ table (full scan | index scan) | rows (views, DUAL)
//!                                     | planned (inline views, set operations: a plan
//!                                     run at each execution) ], each with its join
//!                                     kind, ON conditions and the WHERE conjuncts that
//!                                     become evaluable once it is bound
//!                          grouping: GROUP BY keys + aggregates, HAVING
//!                          projection, DISTINCT, ORDER BY keys, OFFSET / FETCH
//!
//!   execute: nested loops over the sources in FROM order (a left-deep join; the index of
//!   an inner table is probed with values of the outer row), filters applied at the first
//!   level where they can be, then grouping, projection, DISTINCT, sort, and the row limit.
//!
//!   A set operation (`a UNION b ORDER BY 1`) is planned as `SELECT * FROM (a UNION b)
//!   ORDER BY 1`: its branches become one planned source, whose columns are named after
//!   the first branch's.
//! ```
//!
//! Access paths. For each table the planner looks at the conjuncts that compare an indexed
//! column with an expression of constants, binds and columns of earlier sources: equality
//! on every column of a unique index is an INDEX UNIQUE SCAN; equality on a prefix of an
//! index's columns, possibly followed by a range (`<`, `<=`, `>`, `>=`, BETWEEN) on the next
//! column, an INDEX RANGE SCAN; otherwise a TABLE ACCESS FULL. The index narrows what is
//! read; an entry proposes a rowid, and the row version the statement's snapshot sees
//! decides. The conjuncts the key range came from are skipped only on rows the scan vouches
//! for (`Vouching`: an exact NUMBER probe, a live entry, the row's current committed
//! version); every other conjunct is evaluated on every row read. This is a rule-based
//! choice; the SQL issue replaces it with costs from gathered statistics.
//!
//! Rows are read a block at a time (`Reader::read_block_rows`), decoded under the block's
//! latch straight from the block; a plan of one table that touches no other block checks
//! and emits them there too (`ReadOptions::visit_under_latch`).
//!
//! Reads are consistent: every table is read as of the statement's snapshot SCN through
//! undo (see `transaction`), plus the reading transaction's own changes. A subquery in
//! an expression that reads no outer column runs once, at plan time, under the same
//! snapshot, and becomes constants; a correlated one is planned once and runs for each outer
//! row (`eval::Subquery`).
//!
//! Everything is materialized in memory between the pipeline and the result, counted
//! against the statement's work area (`WorkArea`: ORA-04036 beyond `pga_aggregate_limit`).

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;

mod costing;
use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::rc::Rc;
use std::sync::Arc;

use crate::access::heap::{self, RowId};
use crate::access::scan::FullScan;
use crate::access::segment;
use crate::buffer::{AccessKind, BlockAccess};
use crate::catalog::{Dictionary, IndexDef, Storage, TableDef};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic};
use crate::io::block::BlockId;
use crate::sql::eval::{
    self, Context, Expr, Function, SequenceAccess, Subquery, SubqueryKind, SubqueryRunner,
};
use crate::sql::hints::Hints;
pub use crate::sql::optimizer::Estimate;
use crate::sql::optimizer::{self, OptimizerEnvironment};
use crate::syntax::ast::{self, BinaryOperator};
use crate::types::Column;
use crate::types::{
    decode_row_into, encode_key, key_prefix_successor, DataType, GroupKey, RowSet, RunningSum,
    Value,
};

/// Where a statement reads from, and as of when.
pub struct Reader<'a> {
    pub storage: &'a Storage,
    pub dictionary: &'a Dictionary,
    pub snapshot_scn: u64,
    /// The reading transaction (its own changes are visible), 0 for none.
    pub xid: u64,
    pub binds: &'a BindValues,
    pub sequences: &'a dyn SequenceAccess,
    /// Resolves names that are not tables: views (v$, dba_), DUAL.
    pub views: &'a dyn Fn(&str) -> Option<RowSet>,
    /// The outer row's values when this reader runs a correlated subquery (`Expr::Outer`).
    pub outer: &'a [Value],
    /// Rows of a table function, `TABLE(name(args))`: None when there is no such function.
    pub table_functions: &'a TableFunctions<'a>,
    /// The statement's work area: what its materialized rows may take.
    pub work_area: &'a WorkArea,
    /// The parameters plans are made with (`optimizer_mode`, ...).
    pub optimizer: OptimizerEnvironment,
    /// `db_file_multiblock_read_count`: the most blocks a full scan reads with one I/O.
    pub multiblock_read_count: usize,
}

/// The memory a statement's work areas hold (materialized result rows, sort keys, groups,
/// DISTINCT and set-operation rows), counted against a bound: a statement that would
/// exceed it fails with ORA-04036 instead of taking the machine's memory. Sizes are
/// estimates: a value's in-memory size plus its text.
#[derive(Debug)]
pub struct WorkArea {
    used_bytes: std::cell::Cell<u64>,
    bytes_max: u64,
}

impl WorkArea {
    pub fn new(bytes_max: u64) -> WorkArea {
        WorkArea {
            used_bytes: std::cell::Cell::new(0),
            bytes_max,
        }
    }

    pub fn used_bytes(&self) -> u64 {
        self.used_bytes.get()
    }

    /// Gives back what rows that are dropped took.
    fn release(&self, bytes: u64) {
        self.used_bytes
            .set(self.used_bytes.get().saturating_sub(bytes));
    }

    /// Counts a row the statement keeps.
    fn charge(&self, row: &[Value]) -> Result<()> {
        let bytes: u64 = row
            .iter()
            .map(|value| {
                std::mem::size_of::<Value>() as u64
                    + match value {
                        Value::Text(text) => text.len() as u64,
                        _ => 0,
                    }
            })
            .sum();
        let used = self.used_bytes.get() + bytes;
        if used > self.bytes_max {
            return Err(Error::new(
                4036,
                format!(
                    "PGA memory used by the instance exceeds PGA_AGGREGATE_LIMIT: this statement's work areas need more than {} bytes",
                    self.bytes_max
                ),
            ));
        }
        self.used_bytes.set(used);
        Ok(())
    }
}

/// Resolves `TABLE(name(args))` to its rows, None when there is no such function.
pub type TableFunctions<'a> = dyn Fn(&str, &[Value]) -> Result<Option<RowSet>> + 'a;

/// Bind values by position, and the map from bind names to positions.
#[derive(Clone, Debug, Default)]
pub struct BindValues {
    pub values: Vec<Value>,
    /// `:name` binds: the position of each name's first occurrence, in order of appearance.
    pub names: HashMap<String, usize>,
}

impl BindValues {
    /// Binds for a statement given in positional order; names get positions on first use.
    pub fn new(values: Vec<Value>) -> BindValues {
        BindValues {
            values,
            names: HashMap::new(),
        }
    }

    /// Gives the named binds of `nodes` their positions in the order the text names them
    /// first, before planning compiles them in its own order (the WHERE clause before the
    /// select list, for one): `select :b from t where a = :a` binds :b first.
    pub(crate) fn register_names<'n>(&mut self, nodes: impl IntoIterator<Item = ast::Node<'n>>) {
        let mut binds: Vec<(usize, &str)> = Vec::new();
        for node in nodes {
            node.walk(&mut |node| {
                if let ast::Node::Expr(ast::Expr::Bind { name, position }) = node {
                    binds.push((*position, name.as_str()));
                }
            });
        }
        binds.sort_unstable_by_key(|(position, _)| *position);
        for (_, name) in binds {
            self.index_of(name);
        }
    }

    pub(crate) fn index_of(&mut self, name: &str) -> usize {
        // `:1`, `$1`: numbered. `:name`: in order of first appearance.
        if let Ok(number) = name.parse::<usize>() {
            if number >= 1 {
                return number - 1;
            }
        }
        let next = self.names.len();
        *self.names.entry(name.to_string()).or_insert(next)
    }
}

impl SubqueryRunner for Reader<'_> {
    fn rows(&self, plan: &QueryPlan, outer: &[Value]) -> Result<Vec<Vec<Value>>> {
        let reader = Reader { outer, ..*self };
        // What one run of a correlated subquery holds is freed when its value is taken:
        // it must not add up over the rows of the query around it.
        let used = self.work_area.used_bytes();
        let rows = execute(&reader, plan);
        self.work_area.used_bytes.set(used);
        rows
    }
}

impl<'a> Reader<'a> {
    fn context(&self, rownum: u64) -> Context<'_> {
        Context {
            binds: &self.binds.values,
            rownum,
            sequences: self.sequences,
            outer: self.outer,
            subqueries: Some(self),
            dictionary: Some(self.dictionary),
        }
    }

    /// Calls `visit` with each row of `table` visible to this reader, with its rowid, until
    /// it returns false. Each row is met once, at its head: migrated pieces are left out, and
    /// a forwarding head is followed to its data.
    pub fn scan_table(
        &self,
        table: &TableDef,
        visit: &mut dyn FnMut(RowId, &mut [Value]) -> Result<bool>,
    ) -> Result<bool> {
        self.scan_table_columns(table, ReadOptions::default(), visit)
    }

    /// `scan_table`, reading as `options` say (only the columns `needed` marks are decoded,
    /// the others read as NULL).
    pub fn scan_table_columns(
        &self,
        table: &TableDef,
        options: ReadOptions,
        visit: &mut dyn FnMut(RowId, &mut [Value]) -> Result<bool>,
    ) -> Result<bool> {
        let cache = &self.storage.cache;
        let extents = segment::used_extents(cache, table.segment, table.buffer_pool)?;
        let blocks = FullScan::blocks(&extents);
        instrumentation::add(
            if blocks <= SHORT_TABLE_BLOCKS {
                Statistic::TableScansShortTables
            } else {
                Statistic::TableScansLongTables
            },
            1,
        );
        let mut batch = RowBatch::new(table.columns.len(), options);
        let cached = options.cache.unwrap_or(table.cache);
        let access = cache.scan_access(blocks, table.buffer_pool, cached);
        let mut scan = FullScan::new(cache, extents, access, self.multiblock_read_count);
        while let Some(block) = scan.next_block()? {
            let go_on = self.read_block_rows(
                block,
                access,
                BlockSlots::All,
                0,
                &mut batch,
                &mut |found, row| {
                    instrumentation::add(Statistic::TableScanRowsGotten, 1);
                    visit(
                        RowId {
                            block: block.block,
                            slot: found.slot,
                        },
                        row,
                    )
                },
            )?;
            if !go_on {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The version of the row at `rowid` visible to this reader (through its forwarding
    /// head when the row has migrated: 'table fetch continued row').
    pub fn fetch(&self, table: &TableDef, rowid: RowId) -> Result<Option<Vec<Value>>> {
        let mut found = None;
        self.fetch_rows(table, &[rowid], ReadOptions::default(), &mut |_, row| {
            found = Some(row.to_vec());
            Ok(false)
        })?;
        Ok(found)
    }

    /// The rows of `table` at `rowids` visible to this reader, in that order, read as
    /// `options` say, until `visit` returns false. Consecutive rowids in one block share one
    /// get of it (Oracle's TABLE ACCESS BY INDEX ROWID BATCHED): an index range scan meets
    /// rows stored together one after another. `visit` learns the row's position in
    /// `rowids` and whether the index vouches for it (`RowFound`).
    pub fn fetch_rows(
        &self,
        table: &TableDef,
        rowids: &[RowId],
        options: ReadOptions,
        visit: &mut dyn FnMut(RowFound, &mut [Value]) -> Result<bool>,
    ) -> Result<bool> {
        let mut batch = RowBatch::new(table.columns.len(), options);
        let mut slots = Vec::new();
        let mut run_start = 0;
        for run in rowids.chunk_by(|a, b| a.block == b.block) {
            slots.clear();
            slots.extend(run.iter().map(|rowid| rowid.slot));
            instrumentation::add(Statistic::TableFetchByRowid, run.len() as u64);
            let go_on = self.read_block_rows(
                run[0].block_id(),
                AccessKind::Lookup.in_pool(table.buffer_pool),
                BlockSlots::These(&slots),
                run_start,
                &mut batch,
                visit,
            )?;
            if !go_on {
                return Ok(false);
            }
            run_start += run.len();
        }
        Ok(true)
    }

    /// The rows in `slots` of `block` as this reader sees them, with one get of the block:
    /// `visit` for each visible row, in the order of `slots`, until it returns false.
    ///
    /// Under the block's latch, a row whose head is a plain row made by a transaction this
    /// reader sees is decoded in place; any other head (changed after the snapshot, deleted,
    /// forwarded) is copied out and resolved through `consistent_version` once the latch is
    /// released. `visit` runs under the latch only when the caller says it may
    /// (`ReadOptions::visit_under_latch`), and then only until the first row that needs undo,
    /// so that rows keep their order; otherwise it runs after the latch is released, free to
    /// read other blocks (the inner side of a join). Positions count from `first`.
    fn read_block_rows(
        &self,
        block: BlockId,
        access: BlockAccess,
        slots: BlockSlots,
        first: usize,
        batch: &mut RowBatch,
        visit: &mut dyn FnMut(RowFound, &mut [Value]) -> Result<bool>,
    ) -> Result<bool> {
        let transactions = &self.storage.transactions;
        let width = batch.width;
        let options = batch.options;
        batch.decoded.clear();
        batch.rows.clear();
        batch.row.resize(width, Value::Null);
        {
            let data = self.storage.cache.read(block, access)?;
            let count = match slots {
                BlockSlots::All => heap::slot_count(&data),
                BlockSlots::These(slots) => slots.len(),
            };
            let mut deferring = !options.visit_under_latch;
            for position in 0..count {
                let slot = match slots {
                    BlockSlots::All => position as u16,
                    BlockSlots::These(slots) => slots[position],
                };
                let Some(piece) = heap::read_ref(&data, slot)? else {
                    continue;
                };
                if piece.is_migrated() {
                    continue; // its row is met at its head, in another slot
                }
                let position = first + position;
                if !piece.is_plain()
                    || !batch.sees(piece.xid, |xid| {
                        transactions.visible(xid, self.snapshot_scn, self.xid)
                    })
                {
                    let found = RowFound {
                        slot,
                        position,
                        vouched: false,
                    };
                    batch.rows.push((found, Some(piece.to_owned())));
                    deferring = true;
                    continue;
                }
                // The reader's own rows may be mid-statement (heap changed, indexes not
                // yet): only others' committed rows are vouched for.
                let current = self.xid == 0 || piece.xid != self.xid;
                let vouched = current
                    && options
                        .vouching
                        .is_some_and(|vouching| vouching.live[position]);
                let needed = match options.vouching {
                    Some(vouching) if vouched => vouching.needed,
                    _ => options.needed,
                };
                let found = RowFound {
                    slot,
                    position,
                    vouched,
                };
                if deferring {
                    let start = batch.decoded.len();
                    batch.decoded.resize(start + width, Value::Null);
                    decode_row_into(piece.data, needed, &mut batch.decoded[start..])?;
                    batch.rows.push((found, None));
                } else {
                    decode_row_into(piece.data, needed, &mut batch.row)?;
                    if !visit(found, &mut batch.row)? {
                        return Ok(false);
                    }
                }
            }
        }
        let mut start = 0;
        for (found, piece) in batch.rows.drain(..) {
            let row = match piece {
                None => {
                    start += width;
                    &mut batch.decoded[start - width..start]
                }
                Some(piece) => {
                    let Some(data) =
                        transactions.consistent_version(piece, self.snapshot_scn, self.xid)?
                    else {
                        continue;
                    };
                    decode_row_into(&data, options.needed, &mut batch.row)?;
                    &mut batch.row[..]
                }
            };
            if !visit(found, row)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// How `fetch_rows` and `scan_table_columns` read rows.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions<'m> {
    /// The columns to decode (None: all of them); the others read as NULL.
    pub needed: Option<&'m [bool]>,
    /// The rows an index scan vouches for, and the columns those need.
    pub vouching: Option<Vouching<'m>>,
    /// `visit` reads no block and takes no latch, so it may run under the block's latch on
    /// a row decoded straight from the block (no copy into a batch first).
    pub visit_under_latch: bool,
    /// A full scan's CACHE (true) / NOCACHE (false) hint: wins over the table's CACHE
    /// attribute (`BufferCache::scan_access`). None: the table's attribute.
    pub cache: Option<bool>,
}

/// A row `read_block_rows` found.
#[derive(Clone, Copy, Debug)]
pub struct RowFound {
    pub slot: u16,
    /// Its place in the slots (or rowids) asked for.
    pub position: usize,
    /// The index scan vouches for it (`Vouching`): its key-range conjuncts hold.
    pub vouched: bool,
}

/// The rows of an exact index scan that need no check against the conjuncts its key range
/// came from, and the columns such a row needs. A row is vouched for when its entry is
/// live and it is read in place from a plain head another transaction committed before the
/// snapshot: a live entry's key is then the row's key, because a change writes the row
/// before its index entries and undoes them in reverse order, and a reader sees no
/// uncommitted change of others. Anything else (a version rebuilt from undo, a
/// delete-marked entry, the reader's own changes, a migrated row) is checked as usual.
#[derive(Clone, Copy, Debug)]
pub struct Vouching<'v> {
    /// Per rowid asked for: its entry is live (not delete-marked).
    pub live: &'v [bool],
    pub needed: Option<&'v [bool]>,
}

/// Which slots of a block `read_block_rows` reads.
#[derive(Clone, Copy)]
enum BlockSlots<'s> {
    All,
    These(&'s [u16]),
}

/// The buffers `read_block_rows` reuses from block to block.
struct RowBatch<'m> {
    width: usize,
    options: ReadOptions<'m>,
    /// Rows decoded in place but not yet visited, `width` values each, in the order of
    /// `rows`' None entries.
    decoded: Vec<Value>,
    /// The block's rows not yet visited, in order: None when decoded in place, else the
    /// head copied out.
    rows: Vec<(RowFound, Option<heap::RowPiece>)>,
    /// The row being visited: decoded from the block, or rebuilt from undo.
    row: Vec<Value>,
    /// The last transaction found visible. Visibility to a fixed snapshot, once true, stays
    /// true (a commit is not undone), so rows of one transaction ask the table once.
    visible_xid: u64,
}

impl<'m> RowBatch<'m> {
    fn new(width: usize, options: ReadOptions<'m>) -> RowBatch<'m> {
        RowBatch {
            width,
            options,
            decoded: Vec::new(),
            rows: Vec::new(),
            row: Vec::new(),
            visible_xid: 0,
        }
    }

    fn sees(&mut self, xid: u64, visible: impl FnOnce(u64) -> bool) -> bool {
        if xid == self.visible_xid {
            return true;
        }
        let seen = visible(xid);
        if seen {
            self.visible_xid = xid;
        }
        seen
    }
}

/// Tables of at most this many blocks count as short (`_small_table_threshold`'s role).
const SHORT_TABLE_BLOCKS: usize = 20;

/// How a table source is read.
#[derive(Clone, Debug)]
pub enum Access {
    Full,
    Index {
        index: Arc<IndexDef>,
        /// Values for a prefix of the index's columns.
        equal: Vec<Expr>,
        /// INLIST ITERATOR: values for the column after the prefix, one probe each (then
        /// no range).
        in_list: Vec<Expr>,
        lower: Option<(Expr, bool)>,
        upper: Option<(Expr, bool)>,
    },
}

#[derive(Clone, Debug)]
enum SourceKind {
    Table {
        table: Arc<TableDef>,
        access: Access,
        /// The query block's CACHE (true) / NOCACHE (false) hint on this table: wins over
        /// the table's CACHE attribute for its full scans. None: no hint.
        cache: Option<bool>,
    },
    /// Rows read at planning time: a view (v$, dba_), DUAL.
    /// Rows read at planning time; `true`: rows that never change (DUAL's), so that a plan
    /// reading them can run again.
    Rows(Arc<Vec<Vec<Value>>>, bool),
    /// Rows a plan makes at each execution: an inline view, a set operation's branches.
    Planned(Arc<PlannedRows>),
    /// PostgreSQL's `generate_series(start, stop[, step])`: one NUMBER column, its values
    /// made one at a time as the source is read, from arguments evaluated at each execution
    /// (constants, binds, an enclosing query's columns).
    Series(Arc<Series>),
}

/// The arguments of a `generate_series` source.
#[derive(Clone, Debug)]
struct Series {
    start: Expr,
    stop: Expr,
    /// None: 1.
    step: Option<Expr>,
}

impl Series {
    /// The table function's name, without PostgreSQL's `PG_CATALOG.` qualifier.
    const NAME: &'static str = "GENERATE_SERIES";

    /// The (start, stop, step) of one execution; None when an argument is NULL (no rows).
    fn bounds(&self, context: &Context) -> Result<Option<(Decimal, Decimal, Decimal)>> {
        let number = |expr: &Expr| -> Result<Option<Decimal>> {
            let value = expr.evaluate(&[], context)?;
            if value.is_null() {
                return Ok(None);
            }
            value
                .cast(&DataType::number())?
                .as_decimal()
                .map(Some)
                .ok_or_else(|| Error::new(1722, "invalid number"))
        };
        let step = match &self.step {
            Some(step) => number(step)?,
            None => Some(Decimal::ONE),
        };
        let (Some(start), Some(stop), Some(step)) =
            (number(&self.start)?, number(&self.stop)?, step)
        else {
            return Ok(None);
        };
        if step.is_zero() {
            return Err(Error::new(
                1428,
                "argument '0' is out of range: generate_series' step size cannot equal zero",
            ));
        }
        Ok(Some((start, stop, step)))
    }

    /// Calls `visit` with each value in turn until it returns false; false if it did.
    fn for_each(
        &self,
        context: &Context,
        visit: &mut dyn FnMut(u64, Decimal) -> Result<bool>,
    ) -> Result<bool> {
        let Some((start, stop, step)) = self.bounds(context)? else {
            return Ok(true);
        };
        let mut value = start;
        let mut position = 0u64;
        while if step.is_sign_positive() {
            value <= stop
        } else {
            value >= stop
        } {
            if !visit(position, value)? {
                return Ok(false);
            }
            position += 1;
            // A value beyond NUMBER's range ends the series, as it would end PostgreSQL's.
            match value.checked_add(step) {
                Some(next) => value = next,
                None => break,
            }
        }
        Ok(true)
    }

    /// How many rows it makes when its arguments are constants, else None.
    fn constant_rows(&self) -> Option<f64> {
        let constant = |expr: &Expr| match expr {
            Expr::Constant(value) => value.as_decimal(),
            _ => None,
        };
        let start = constant(&self.start)?;
        let stop = constant(&self.stop)?;
        let step = match &self.step {
            Some(step) => constant(step)?,
            None => Decimal::ONE,
        };
        if step.is_zero() {
            return None;
        }
        let count = ((stop - start) / step).floor() + Decimal::ONE;
        Some(count.to_f64().unwrap_or(0.0).max(0.0))
    }
}

/// A plan whose rows are a source of another: a query, or a set operation of two.
enum PlannedRows {
    Query(Box<QueryPlan>),
    SetOperation {
        op: ast::SetOperator,
        left: Box<PlannedRows>,
        right: Box<PlannedRows>,
    },
}

impl std::fmt::Debug for PlannedRows {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlannedRows::Query(plan) => write!(formatter, "Query({} columns)", plan.columns.len()),
            PlannedRows::SetOperation { op, left, right } => formatter
                .debug_struct("SetOperation")
                .field("op", op)
                .field("left", left)
                .field("right", right)
                .finish(),
        }
    }
}

impl PlannedRows {
    fn rows(&self, reader: &Reader) -> Result<Vec<Vec<Value>>> {
        match self {
            PlannedRows::Query(plan) => execute(reader, plan),
            PlannedRows::SetOperation { op, left, right } => {
                let (left, right) = (left.rows(reader)?, right.rows(reader)?);
                // The other side's rows, held while the result is built.
                for row in &right {
                    reader.work_area.charge(row)?;
                }
                Ok(set_operation(*op, left, right))
            }
        }
    }

    /// The first branch's columns: the names and types a set operation's result has.
    fn columns(&self) -> &[Column] {
        match self {
            PlannedRows::Query(plan) => &plan.columns,
            PlannedRows::SetOperation { left, .. } => left.columns(),
        }
    }

    fn reusable(&self) -> bool {
        match self {
            PlannedRows::Query(plan) => plan.reusable,
            PlannedRows::SetOperation { left, right, .. } => left.reusable() && right.reusable(),
        }
    }
}

/// UNION, UNION ALL, INTERSECT, MINUS of two row lists, with rows compared as DISTINCT
/// compares them (NULLs equal). All but UNION ALL return each row once, in the order of its
/// first appearance.
fn set_operation(
    op: ast::SetOperator,
    left: Vec<Vec<Value>>,
    right: Vec<Vec<Value>>,
) -> Vec<Vec<Value>> {
    let key = |row: &[Value]| row.iter().cloned().map(GroupKey).collect::<Vec<_>>();
    let mut seen = HashSet::new();
    match op {
        ast::SetOperator::UnionAll => left.into_iter().chain(right).collect(),
        ast::SetOperator::Union => left
            .into_iter()
            .chain(right)
            .filter(|row| seen.insert(key(row)))
            .collect(),
        ast::SetOperator::Intersect | ast::SetOperator::Minus => {
            let other: HashSet<Vec<GroupKey>> = right.iter().map(|row| key(row)).collect();
            let keep_common = op == ast::SetOperator::Intersect;
            left.into_iter()
                .filter(|row| {
                    let row_key = key(row);
                    other.contains(&row_key) == keep_common && seen.insert(row_key)
                })
                .collect()
        }
    }
}

/// Plans the branches of a set operation. Each branch is planned on its own (no outer
/// scope: a set operation cannot be correlated here). ORA-01789 when branches differ in
/// width, ORA-01790 when a column's types differ in kind.
fn plan_set_expression(
    reader: &Reader,
    binds: &mut BindValues,
    body: &ast::SetExpr,
    ctes: &[ast::CommonTableExpression],
) -> Result<PlannedRows> {
    match body {
        ast::SetExpr::SetOperation { op, left, right } => {
            let left = plan_set_expression(reader, binds, left, ctes)?;
            let right = plan_set_expression(reader, binds, right, ctes)?;
            let (left_columns, right_columns) = (left.columns(), right.columns());
            if left_columns.len() != right_columns.len() {
                return Err(Error::new(
                    1789,
                    "query block has incorrect number of result columns",
                ));
            }
            for (a, b) in left_columns.iter().zip(right_columns) {
                if let (Some(a), Some(b)) = (a.data_type, b.data_type) {
                    if a.family() != b.family() {
                        return Err(Error::new(
                            1790,
                            "expression must have same datatype as corresponding expression",
                        ));
                    }
                }
            }
            Ok(PlannedRows::SetOperation {
                op: *op,
                left: Box::new(left),
                right: Box::new(right),
            })
        }
        ast::SetExpr::Select(select) => {
            let query = ast::Query::from_body(ast::SetExpr::Select(select.clone()));
            Ok(PlannedRows::Query(Box::new(
                plan_subquery(reader, binds, &query, &[], ctes)?.0,
            )))
        }
        ast::SetExpr::Query(query) => Ok(PlannedRows::Query(Box::new(
            plan_subquery(reader, binds, query, &[], ctes)?.0,
        ))),
    }
}

#[derive(Clone, Debug)]
struct Source {
    kind: SourceKind,
    offset: usize,
    width: usize,
    outer: bool,
    /// ON conditions of an outer join (a row that fails them does not match).
    on: Vec<Expr>,
    /// Conjuncts evaluable once this source is bound (applied after outer-join padding).
    filters: Vec<Expr>,
    /// Conjuncts its index access's key range implies: evaluated only on rows the index
    /// scan cannot vouch for (a version rebuilt from undo, a delete-marked entry, ...).
    index_filters: Vec<Expr>,
    /// Conjuncts on ROWNUM, applied after every other filter of the last level.
    name: String,
    /// The columns of this source the query reads (None: all of them); a table source
    /// decodes only these.
    needed: Option<Arc<[bool]>>,
    /// `needed` for a row the index vouches for (`index_filters` not evaluated).
    needed_vouched: Option<Arc<[bool]>>,
    /// The second source of a FULL join (also `outer`): its rows that match no row of the
    /// first are added, the first's columns NULL.
    full: bool,
    /// How the source is joined to the rows before it.
    join: Join,
    /// Cost-based plans: what the plan up to and including this level costs and yields.
    estimate: Option<Estimate>,
    /// Cost-based plans: what one execution of this source's access costs and yields.
    access_estimate: Option<costing::AccessEstimate>,
}

/// How a source is joined to the rows built before it. Every method keeps the join's
/// conditions among the level's conditions: a hash, a sort or a buffer only decides which
/// of the source's rows are tried for each row built so far.
#[derive(Clone, Debug, Default)]
enum Join {
    /// NESTED LOOPS: the source's access runs for each row built so far (with its values,
    /// when an index is probed by them).
    #[default]
    NestedLoops,
    /// HASH JOIN: (this source's column, an earlier source's column) pairs whose equality
    /// the join requires. The source's rows are read once into a hash table on these
    /// columns, and each row built so far probes it.
    Hash(Vec<(usize, usize)>),
    /// MERGE JOIN: the source's rows are read once and sorted on the key's `inner` column,
    /// and each row built so far finds the rows whose key compares with its `outer` column
    /// by binary search.
    Merge(MergeKey),
    /// MERGE JOIN CARTESIAN: the source's rows (which depend on no earlier source) are read
    /// once into a buffer (BUFFER SORT), and each row built so far tries all of them.
    Cartesian,
}

/// The key of a MERGE JOIN: `inner op outer`, `inner` a column of the source, `outer` one of
/// an earlier source, of one type kind.
#[derive(Clone, Copy, Debug)]
struct MergeKey {
    inner: usize,
    outer: usize,
    op: BinaryOperator,
}

impl Source {
    fn new(kind: SourceKind, offset: usize, width: usize, name: String, outer: bool) -> Source {
        Source {
            kind,
            offset,
            width,
            outer,
            on: Vec::new(),
            filters: Vec::new(),
            index_filters: Vec::new(),
            name,
            needed: None,
            needed_vouched: None,
            full: false,
            join: Join::NestedLoops,
            estimate: None,
            access_estimate: None,
        }
    }
}

#[derive(Clone, Debug)]
struct ScopeColumn {
    qualifier: String,
    name: String,
    data_type: Option<DataType>,
    /// One of the two columns a USING or NATURAL join merged: an unqualified name and `*`
    /// reach the merged column (`Scope::merged`) instead.
    merged: bool,
}

#[derive(Clone, Debug, Default)]
struct Scope {
    columns: Vec<ScopeColumn>,
    /// The columns USING and NATURAL joins merged, in order: name, value (the left column,
    /// the right one for a RIGHT join, COALESCE of both for a FULL join), type.
    merged: Vec<(String, Expr, Option<DataType>)>,
}

impl Scope {
    fn resolve(&self, table: Option<&str>, name: &str) -> Result<Option<usize>> {
        let mut found = None;
        for (index, column) in self.columns.iter().enumerate() {
            if column.name == name
                && table.map_or(!column.merged, |table| column.qualifier == table)
            {
                if found.is_some() {
                    return Err(Error::new(918, "column ambiguously defined"));
                }
                found = Some(index);
            }
        }
        Ok(found)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AggregateFunction {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    /// PostgreSQL's `string_agg(text, separator)`: the non-NULL values in the order the
    /// rows come, each after the separator evaluated on its row (not before the first).
    StringAgg,
}

#[derive(Clone, Debug)]
struct Aggregate {
    function: AggregateFunction,
    argument: Option<Expr>,
    /// STRING_AGG's separator, evaluated on the row.
    separator: Option<Expr>,
    distinct: bool,
}

/// GROUP BY keys (ASTs, to recognize them in the select list) and aggregates found.
#[derive(Default)]
struct Grouping {
    keys: Vec<ast::Expr>,
    key_exprs: Vec<Expr>,
    aggregates: Vec<Aggregate>,
    /// ASTs of aggregates already registered (reused when written twice).
    aggregate_asts: Vec<ast::Expr>,
}

/// A planned query.
pub struct QueryPlan {
    sources: Vec<Source>,
    width: usize,
    rownum_filters: Vec<Expr>,
    grouped: Option<GroupedPlan>,
    projection: Vec<Expr>,
    order_by: Vec<(Expr, bool, bool)>,
    distinct: bool,
    offset: Option<Expr>,
    fetch: Option<Expr>,
    pub columns: Vec<Column>,
    /// Whether the plan holds nothing read at planning time (subquery results, views'
    /// rows): then it can run again as long as the dictionary it was made against is
    /// current.
    pub reusable: bool,
    /// One table, and no expression that touches blocks (sequences, subqueries): a row can
    /// be checked and emitted while its block's latch is held
    /// (`ReadOptions::visit_under_latch`).
    rows_touch_no_block: bool,
    /// Whether the cost-based optimizer planned it (else the rules did).
    pub costed: bool,
    /// Cost-based plans: what the whole plan costs and yields.
    pub estimate: Option<Estimate>,
    /// Cost-based plans: the estimates of the steps above the join (grouping, DISTINCT,
    /// ORDER BY, ROWNUM), in the order `query_node` adds them.
    above_estimates: Vec<Estimate>,
}

struct GroupedPlan {
    keys: Vec<Expr>,
    aggregates: Vec<Aggregate>,
    having: Option<Expr>,
}

/// Plans and runs a query; returns its columns and rows.
pub fn run_query(reader: &Reader, binds: &mut BindValues, query: &ast::Query) -> Result<RowSet> {
    let plan = plan_query(reader, binds, query)?;
    let rows = execute(reader, &plan)?;
    Ok(RowSet {
        columns: plan.row_set_columns(),
        rows,
    })
}

pub fn plan_query(
    reader: &Reader,
    binds: &mut BindValues,
    query: &ast::Query,
) -> Result<QueryPlan> {
    binds.register_names([ast::Node::Query(query)]);
    Ok(plan_subquery(reader, binds, query, &[], &[])?.0)
}

/// `plan_query` for a query inside others whose scopes are `outer` (the nearest first),
/// where the WITH queries `ctes` of enclosing queries are visible: also returns the outer
/// columns the plan reads, as (depth in `outer`, column) (empty when not correlated).
fn plan_subquery(
    reader: &Reader,
    binds: &mut BindValues,
    query: &ast::Query,
    outer: &[&Scope],
    ctes: &[ast::CommonTableExpression],
) -> Result<(QueryPlan, Vec<(usize, usize)>)> {
    // This query's WITH queries follow the enclosing ones: a later name hides an earlier.
    let ctes: Vec<ast::CommonTableExpression> = ctes.iter().chain(&query.with).cloned().collect();
    let ctes = ctes.as_slice();
    if query.for_update.is_some() {
        return Err(unsupported("SELECT ... FOR UPDATE"));
    }
    // A set operation, or a parenthesized query with its own ORDER BY or row limit, is
    // planned as the one source of `SELECT *`, which then takes the ORDER BY and limits.
    let select_all = ast::Select {
        hint: None,
        distinct: false,
        projection: vec![ast::SelectItem::Wildcard],
        from: Vec::new(),
        where_clause: None,
        group_by: Vec::new(),
        having: None,
    };
    let (select, planned_source) = match &query.body {
        ast::SetExpr::Select(select) => (select.as_ref(), None),
        ast::SetExpr::Query(inner)
            if query.order_by.is_empty()
                && query.offset.is_none()
                && query.fetch_first.is_none() =>
        {
            return plan_subquery(reader, binds, inner, outer, ctes)
        }
        body => (
            &select_all,
            Some(plan_set_expression(reader, binds, body, ctes)?),
        ),
    };
    let mut planner = Planner {
        reader,
        binds,
        scope: Scope::default(),
        grouping: None,
        read_rows: false,
        outer,
        outer_columns: Vec::new(),
        ctes,
        outer_join_marks_allowed: false,
        hints: Hints::parse(select.hint.as_deref()),
    };
    // Sized for what the FROM clause names: a plan is kept in the shared pool, and a source
    // is some 450 bytes (a vector's first growth would reserve four).
    let mut sources = Vec::with_capacity(select.from.len() + usize::from(planned_source.is_some()));
    let mut where_conjuncts = Vec::new();
    if let Some(condition) = &select.where_clause {
        split_conjuncts(condition, &mut where_conjuncts);
    }
    if let Some(planned) = planned_source {
        planner.add_planned_source(planned, String::new(), false, &mut sources);
    }
    for reference in &select.from {
        planner.add_reference(reference, false, &mut sources)?;
    }
    if sources.is_empty() {
        return Err(Error::new(923, "FROM keyword not found where expected"));
    }
    // WHERE conjuncts go to the first level where every column they read is bound.
    let mut rownum_filters = Vec::new();
    let mut pending = Vec::new();
    for conjunct in where_conjuncts {
        planner.outer_join_marks_allowed = true;
        let compiled = planner.compile(conjunct);
        planner.outer_join_marks_allowed = false;
        let compiled = compiled?;
        if mentions_rownum(conjunct) {
            rownum_filters.push(compiled);
        } else {
            pending.push((conjunct, compiled));
        }
    }
    let mut old_style_outer = false;
    for (ast_conjunct, compiled) in pending {
        match planner.outer_joined_source(ast_conjunct, &sources)? {
            Some(optional) => {
                // `a.x = b.y(+)`: an ON condition of b, which a LEFT JOIN makes optional.
                if select
                    .from
                    .iter()
                    .any(|item| matches!(item, ast::TableReference::Join { .. }))
                {
                    return Err(Error::new(
                        25156,
                        "old style outer join (+) cannot be used with ANSI joins",
                    ));
                }
                old_style_outer = true;
                sources[optional].outer = true;
                sources[optional].on.push(compiled);
            }
            None => {
                let level = level_of(&sources, &compiled);
                sources[level].filters.push(compiled);
            }
        }
    }
    let (joined, facts) = arrange_sources(reader, &planner.scope, &mut sources, old_style_outer)?;
    let width = planner.scope.columns.len();
    // Grouping.
    let has_aggregates = select.projection.iter().any(
        |item| matches!(item, ast::SelectItem::Expression { expr, .. } if contains_aggregate(expr)),
    ) || select.having.as_ref().is_some_and(contains_aggregate)
        || query.order_by.iter().any(
            |item| matches!(&item.key, ast::SortKey::Expression(expr) if contains_aggregate(expr)),
        );
    let grouped = !select.group_by.is_empty() || has_aggregates;
    if grouped {
        let mut grouping = Grouping::default();
        for key in &select.group_by {
            grouping.key_exprs.push(planner.compile(key)?);
            grouping.keys.push(key.clone());
        }
        planner.grouping = Some(grouping);
    }
    // Projection.
    let mut projection = Vec::with_capacity(select.projection.len());
    let mut columns = Vec::with_capacity(select.projection.len());
    let mut aliases: Vec<Option<String>> = Vec::new();
    for item in &select.projection {
        match item {
            ast::SelectItem::Wildcard | ast::SelectItem::QualifiedWildcard(_) => {
                if grouped {
                    return Err(Error::new(979, "not a GROUP BY expression"));
                }
                let qualifier = match item {
                    ast::SelectItem::QualifiedWildcard(name) => Some(name.name.clone()),
                    _ => None,
                };
                let mut any = false;
                if qualifier.is_none() {
                    // Oracle lists the columns a USING or NATURAL join merged first.
                    for (name, expr, data_type) in &planner.scope.merged {
                        projection.push(expr.clone());
                        columns.push(Column {
                            name: name.clone(),
                            data_type: *data_type,
                        });
                        aliases.push(Some(name.clone()));
                        any = true;
                    }
                }
                for (index, column) in planner.scope.columns.iter().enumerate() {
                    if qualifier
                        .as_ref()
                        .map_or(!column.merged, |q| &column.qualifier == q)
                    {
                        projection.push(Expr::Column(index));
                        columns.push(Column {
                            name: column.name.clone(),
                            data_type: column.data_type,
                        });
                        aliases.push(Some(column.name.clone()));
                        any = true;
                    }
                }
                if !any {
                    return Err(Error::new(
                        904,
                        format!("\"{}\": invalid identifier", qualifier.unwrap_or_default()),
                    ));
                }
            }
            ast::SelectItem::Expression { expr, alias } => {
                let compiled = planner.compile(expr)?;
                let name = alias.clone().unwrap_or_else(|| heading(expr));
                columns.push(Column {
                    name: name.clone(),
                    data_type: planner.type_of(expr),
                });
                aliases.push(Some(name));
                projection.push(compiled);
            }
        }
    }
    let having = match &select.having {
        Some(condition) if grouped => Some(planner.compile(condition)?),
        Some(_) => return Err(Error::new(979, "not a GROUP BY expression")),
        None => None,
    };
    // ORDER BY: positions and select-list aliases refer to the projection; other
    // expressions are computed from the row (or the group).
    let mut order_by = Vec::new();
    for item in &query.order_by {
        let nulls_first = item.nulls_first.unwrap_or(item.descending);
        let key = match &item.key {
            ast::SortKey::Position(position) => {
                if *position == 0 || *position > projection.len() {
                    return Err(Error::new(
                        1785,
                        "ORDER BY item must be the number of a SELECT-list expression",
                    ));
                }
                OrderKey::Output(position - 1)
            }
            ast::SortKey::Expression(ast::Expr::Column {
                table: None, name, ..
            }) if aliases
                .iter()
                .filter(|alias| alias.as_deref() == Some(name))
                .count()
                == 1
                && planner.scope.resolve(None, name)?.is_none_or(|_| true) =>
            {
                let position = aliases
                    .iter()
                    .position(|alias| alias.as_deref() == Some(name))
                    .unwrap();
                OrderKey::Output(position)
            }
            ast::SortKey::Expression(expr) => {
                if select.distinct {
                    return Err(Error::new(1791, "not a SELECTed expression"));
                }
                OrderKey::Computed(planner.compile(expr)?)
            }
        };
        order_by.push((key, item.descending, nulls_first));
    }
    // Order keys that are outputs are evaluated as projection columns appended at the end.
    let visible = projection.len();
    let mut order_exprs = Vec::new();
    for (key, descending, nulls_first) in order_by {
        let expr = match key {
            OrderKey::Output(position) => Expr::Column(position),
            OrderKey::Computed(expr) => {
                projection.push(expr);
                Expr::Column(projection.len() - 1)
            }
        };
        order_exprs.push((expr, descending, nulls_first));
    }
    let _ = visible;
    let offset = query
        .offset
        .as_ref()
        .map(|expr| planner.compile_scalar(expr))
        .transpose()?;
    let fetch = query
        .fetch_first
        .as_ref()
        .map(|expr| planner.compile_scalar(expr))
        .transpose()?;
    let grouped_plan = planner.grouping.take().map(|grouping| GroupedPlan {
        keys: grouping.key_exprs,
        aggregates: grouping.aggregates,
        having,
    });
    let mut plan = QueryPlan {
        sources,
        width,
        rownum_filters,
        grouped: grouped_plan,
        projection,
        order_by: order_exprs,
        distinct: select.distinct,
        offset,
        fetch,
        columns,
        reusable: false,
        rows_touch_no_block: false,
        costed: facts.is_some(),
        estimate: None,
        above_estimates: Vec::new(),
    };
    if let (Some(joined), Some(facts)) = (joined, &facts) {
        plan.above_estimates = costing::estimates_above_join(&plan, joined, facts);
        plan.estimate = Some(plan.above_estimates.last().copied().unwrap_or(joined));
    }
    plan.finish(planner.read_rows);
    Ok((plan, planner.outer_columns))
}

/// Orders a FROM list's sources and chooses each one's access path and join method: by
/// cost when the session's optimizer mode costs this statement (then with the estimate of
/// the joined rows and the facts it was made from), by rule otherwise.
fn arrange_sources(
    reader: &Reader,
    scope: &Scope,
    sources: &mut Vec<Source>,
    old_style_outer: bool,
) -> Result<(Option<Estimate>, Option<optimizer::ScopeFacts>)> {
    let costed = costing::costed(&reader.optimizer, sources);
    let any_outer = sources.iter().any(|source| source.outer);
    let facts = costed.then(|| costing::scope_facts(reader, sources));
    let costing = facts.as_ref().map(|facts| costing::Costing {
        scope,
        facts,
        environment: &reader.optimizer,
    });
    let searched = !any_outer && (2..=optimizer::JOIN_SEARCH_SOURCES_MAX).contains(&sources.len());
    if old_style_outer {
        order_outer_joined_last(sources)?;
    } else if let Some(costing) = costing.as_ref().filter(|_| searched) {
        costing::order_by_cost(sources, costing);
    } else if sources.len() > 2 && !any_outer {
        order_connected(sources);
    }
    if sources.get(1).is_some_and(|second| second.full) {
        // WHERE applies after a FULL join: the first source's conjuncts wait for the
        // second level, so that a row of the second is not taken for unmatched because its
        // partner failed a WHERE conjunct.
        let first = std::mem::take(&mut sources[0].filters);
        sources[1].filters.extend(first);
    }
    let joined = match &costing {
        Some(costing) => Some(costing::choose_methods_by_cost(sources, costing)),
        None => {
            // Access paths by rule, from the conjuncts at or before each table's level
            // (inner joins) or its ON conditions (outer joins).
            for source in sources.iter_mut() {
                let candidates: Vec<&Expr> = if source.outer {
                    source.on.iter().collect()
                } else {
                    source.filters.iter().collect()
                };
                if let SourceKind::Table { table, .. } = &source.kind {
                    let (chosen, implied) = choose_access(table, source.offset, &candidates);
                    let outer = source.outer;
                    if let SourceKind::Table { access, .. } = &mut source.kind {
                        *access = chosen;
                    }
                    if !outer {
                        split_implied(source, &implied);
                    }
                }
            }
            choose_joins_by_rule(sources, scope);
            None
        }
    };
    Ok((joined, facts))
}

impl QueryPlan {
    /// Settles what is derived from the rest of the plan: whether it can run again
    /// (`read_rows`: something was read while planning), whether rows are checked under the
    /// block latch, and which columns each source decodes.
    fn finish(&mut self, read_rows: bool) {
        self.reusable = !read_rows
            && self.sources.iter().all(|source| match &source.kind {
                SourceKind::Table { .. } => true,
                SourceKind::Rows(_, constant) => *constant,
                SourceKind::Planned(planned) => planned.reusable(),
                SourceKind::Series(_) => true,
            });
        self.rows_touch_no_block = self.sources.len() == 1 && !self.touches_blocks();
        self.mark_needed_columns();
    }

    /// Gives the result's columns the names of a column list (a view's, a WITH query's);
    /// an empty list keeps them; a list of another length is `mismatch`'s error.
    fn rename_columns(&mut self, names: &[String], mismatch: impl FnOnce() -> Error) -> Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        if names.len() != self.columns.len() {
            return Err(mismatch());
        }
        for (column, name) in self.columns.iter_mut().zip(names) {
            column.name = name.clone();
        }
        Ok(())
    }

    /// Whether some expression of the plan may read blocks (a sequence, a subquery).
    fn touches_blocks(&self) -> bool {
        let mut expressions: Vec<&Expr> = Vec::new();
        for source in &self.sources {
            expressions.extend(source.on.iter().chain(&source.filters));
            expressions.extend(&source.index_filters);
            if let SourceKind::Table {
                access:
                    Access::Index {
                        equal,
                        in_list,
                        lower,
                        upper,
                        ..
                    },
                ..
            } = &source.kind
            {
                expressions.extend(equal.iter().chain(in_list));
                expressions.extend(lower.iter().chain(upper.iter()).map(|(expr, _)| expr));
            }
        }
        expressions.extend(&self.rownum_filters);
        expressions.extend(&self.projection);
        expressions.extend(self.order_by.iter().map(|(expr, _, _)| expr));
        expressions.extend(self.offset.iter().chain(&self.fetch));
        if let Some(grouped) = &self.grouped {
            expressions.extend(grouped.keys.iter().chain(&grouped.having));
            expressions.extend(
                grouped
                    .aggregates
                    .iter()
                    .filter_map(|aggregate| aggregate.argument.as_ref()),
            );
        }
        expressions.iter().any(|expr| expr.touches_blocks())
    }

    /// The result's columns, as a `RowSet` names them.
    pub fn row_set_columns(&self) -> Vec<(String, Option<DataType>)> {
        self.columns
            .iter()
            .map(|column| (column.name.clone(), column.data_type))
            .collect()
    }

    /// Records, for each source, which of its columns some expression of the plan reads.
    /// With grouping, the projection, HAVING and ORDER BY read the group row (keys, then
    /// aggregates), not the sources: only the keys and the aggregates' arguments count.
    fn mark_needed_columns(&mut self) {
        let mut used = vec![false; self.width];
        let mut mark = |expr: &Expr| expr.mark_columns(&mut used);
        for source in &self.sources {
            source.on.iter().chain(&source.filters).for_each(&mut mark);
        }
        self.rownum_filters.iter().for_each(&mut mark);
        self.offset.iter().chain(&self.fetch).for_each(&mut mark);
        if self.grouped.is_none() {
            self.projection.iter().for_each(&mut mark);
            self.order_by.iter().for_each(|(expr, _, _)| mark(expr));
        }
        if let Some(grouped) = &self.grouped {
            grouped.keys.iter().for_each(&mut mark);
            grouped
                .aggregates
                .iter()
                .filter_map(|aggregate| aggregate.argument.as_ref())
                .for_each(&mut mark);
        }
        // A row the index vouches for is not checked against its source's `index_filters`,
        // so it needs none of its own columns for them; the columns of earlier sources they
        // read are the index probe's values, needed either way.
        let mut with_index_filters = used.clone();
        for source in &self.sources {
            let own = source.offset..source.offset + source.width;
            for filter in &source.index_filters {
                let mut read = vec![false; self.width];
                filter.mark_columns(&mut read);
                for (column, _) in read.iter().enumerate().filter(|(_, &read)| read) {
                    with_index_filters[column] = true;
                    if !own.contains(&column) {
                        used[column] = true;
                    }
                }
            }
        }
        let mask = |used: &[bool]| (!used.iter().all(|&read| read)).then(|| used.into());
        for source in &mut self.sources {
            let own = source.offset..source.offset + source.width;
            source.needed_vouched = mask(&used[own.clone()]);
            source.needed = mask(&with_index_filters[own]);
        }
    }
}

enum OrderKey {
    Output(usize),
    Computed(Expr),
}

fn unsupported(what: &str) -> Error {
    Error::new(3001, format!("unimplemented feature: {what}"))
}

fn split_conjuncts<'e>(expr: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>) {
    if let ast::Expr::Binary {
        left,
        op: BinaryOperator::And,
        right,
    } = expr
    {
        split_conjuncts(left, out);
        split_conjuncts(right, out);
    } else {
        out.push(expr);
    }
}

fn mentions_rownum(expr: &ast::Expr) -> bool {
    let mut found = false;
    expr.walk_within_query(&mut |node| found |= matches!(node, ast::Expr::Rownum));
    found
}

fn contains_aggregate(expr: &ast::Expr) -> bool {
    let mut found = false;
    expr.walk_within_query(&mut |node| {
        if let ast::Expr::Function { name, .. } = node {
            found |= aggregate_function(name).is_some();
        }
    });
    found
}

fn aggregate_function(name: &str) -> Option<AggregateFunction> {
    Some(match name {
        "COUNT" => AggregateFunction::Count,
        "SUM" => AggregateFunction::Sum,
        "AVG" => AggregateFunction::Avg,
        "MIN" => AggregateFunction::Min,
        "MAX" => AggregateFunction::Max,
        "STRING_AGG" | "PG_CATALOG.STRING_AGG" => AggregateFunction::StringAgg,
        _ => return None,
    })
}

/// The longest text STRING_AGG makes (VARCHAR2's limit): ORA-01489 beyond.
const STRING_AGG_BYTES_MAX: usize = 4000;

/// Views inside views may nest this deep; deeper is taken for a circular definition.
const VIEW_DEPTH_MAX: usize = 32;

thread_local! {
    static VIEW_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Plans a view's query where a FROM list names it, its columns renamed by the view's
/// column list. A view whose query no longer plans (a table it reads was dropped) is
/// ORA-04063; one that reaches itself, ORA-01731.
fn plan_view(
    reader: &Reader,
    binds: &mut BindValues,
    view: &crate::catalog::ViewDef,
) -> Result<QueryPlan> {
    let depth = VIEW_DEPTH.with(|depth| depth.get());
    if depth >= VIEW_DEPTH_MAX {
        return Err(Error::new(1731, "circular view definition encountered"));
    }
    VIEW_DEPTH.with(|cell| cell.set(depth + 1));
    let planned = plan_subquery(reader, binds, &view.query, &[], &[]);
    VIEW_DEPTH.with(|cell| cell.set(depth));
    let mut plan = match planned {
        Ok((plan, _)) => plan,
        Err(error) if error.code() == 1731 => return Err(error),
        Err(error) => {
            return Err(Error::new(
                4063,
                format!("view \"{}\" has errors: {error}", view.name),
            ))
        }
    };
    plan.rename_columns(&view.columns, || {
        Error::new(
            4063,
            format!(
                "view \"{}\" has errors: its column list no longer fits",
                view.name
            ),
        )
    })?;
    Ok(plan)
}

/// Makes a HASH JOIN of each table after the first that no index serves (a full scan per
/// row built so far otherwise) and that an equality `its column = an earlier source's
/// column` joins, when both columns have the same kind of type (so that the hash's equality
/// is SQL's: no implicit conversion between them).
/// Moves the filters an index access's key range implies (positions in `filters`) to
/// `index_filters`: they are evaluated only on rows the index cannot vouch for
/// (IndexScan::exact).
fn split_implied(source: &mut Source, implied: &[usize]) {
    let filters = std::mem::take(&mut source.filters);
    for (position, filter) in filters.into_iter().enumerate() {
        if implied.contains(&position) {
            source.index_filters.push(filter);
        } else {
            source.filters.push(filter);
        }
    }
}

/// Join methods by rule: a table read by a full scan and joined to earlier sources by column
/// equalities of one type kind is a HASH JOIN; a planned source (inline view, join group)
/// after the first is run once per execution, not once per row before it: hashed when such
/// equalities join it, else buffered (MERGE JOIN CARTESIAN).
fn choose_joins_by_rule(sources: &mut [Source], scope: &Scope) {
    for source in sources.iter_mut().skip(1) {
        let planned = match source.kind {
            SourceKind::Table {
                access: Access::Full,
                ..
            } => false,
            SourceKind::Planned(_) => true,
            _ => continue,
        };
        let conditions: Vec<&Expr> = if source.outer {
            source.on.iter().collect()
        } else {
            source.filters.iter().collect()
        };
        let keys = costing::join_keys(source, &conditions, scope).0;
        if !keys.is_empty() {
            source.join = Join::Hash(keys);
        } else if planned {
            source.join = Join::Cartesian;
        }
    }
}

/// `(a, b) = (x, y)` as `a = x AND b = y`, which has SQL's three-valued result for row
/// values: FALSE when a pair differs, else NULL when a pair is unknown. ORA-00920 when the
/// rows differ in width.
fn tuple_equal(left: &[Expr], right: &[Expr]) -> Result<Expr> {
    if left.len() != right.len() || left.is_empty() {
        return Err(Error::new(920, "invalid relational operator"));
    }
    let mut pairs = left.iter().zip(right).map(|(a, b)| {
        Expr::Binary(
            Box::new(a.clone()),
            BinaryOperator::Equal,
            Box::new(b.clone()),
        )
    });
    let first = pairs.next().expect("one pair at least");
    Ok(pairs.fold(first, |all, pair| {
        Expr::Binary(Box::new(all), BinaryOperator::And, Box::new(pair))
    }))
}

/// `(a, b) [NOT] IN ((x, y), ...)` as `[NOT] ((a, b) = (x, y) OR ...)`: SQL's row-value IN,
/// NULL rules included. Over no rows IN is FALSE.
fn tuple_in(left: &[Expr], rows: Vec<Vec<Expr>>, negated: bool) -> Result<Expr> {
    let mut equalities = Vec::with_capacity(rows.len());
    for row in rows {
        if row.len() != left.len() {
            return Err(Error::new(
                if row.len() > left.len() { 913 } else { 947 },
                if row.len() > left.len() {
                    "too many values"
                } else {
                    "not enough values"
                },
            ));
        }
        equalities.push(tuple_equal(left, &row)?);
    }
    // A balanced OR: a subquery's thousands of rows must not make a thousands-deep tree.
    while equalities.len() > 1 {
        let mut pairs = Vec::with_capacity(equalities.len().div_ceil(2));
        let mut items = equalities.into_iter();
        while let Some(first) = items.next() {
            pairs.push(match items.next() {
                Some(second) => Expr::Binary(Box::new(first), BinaryOperator::Or, Box::new(second)),
                None => first,
            });
        }
        equalities = pairs;
    }
    let any = equalities
        .pop()
        .unwrap_or(Expr::Constant(Value::Boolean(false)));
    Ok(if negated {
        Expr::Unary(ast::UnaryOperator::Not, Box::new(any))
    } else {
        any
    })
}

/// Orders the sources of an inner join so that each one after the first is joined to those
/// before it by some conjunct, when one can be: FROM order otherwise (the first source
/// stays first). A FROM list written `t1, t3, t2 WHERE t1.a = t2.a AND t2.b = t3.b` would
/// otherwise pair every row of t1 with every row of t3 before t2 could filter them. The
/// conjuncts then move to the level where their columns are bound in the new order.
fn order_connected(sources: &mut Vec<Source>) {
    let mut filters = Vec::new();
    for source in sources.iter_mut() {
        filters.append(&mut source.filters);
    }
    let range = |source: &Source| source.offset..source.offset + source.width;
    let mut remaining: Vec<Source> = std::mem::take(sources);
    let mut ordered = vec![remaining.remove(0)];
    while !remaining.is_empty() {
        let next = remaining
            .iter()
            .position(|candidate| {
                filters.iter().any(|filter| {
                    filter.reads_columns_in(range(candidate))
                        && ordered
                            .iter()
                            .any(|chosen| filter.reads_columns_in(range(chosen)))
                        && remaining.iter().all(|other| {
                            std::ptr::eq(other, candidate) || !filter.reads_columns_in(range(other))
                        })
                })
            })
            .unwrap_or(0);
        ordered.push(remaining.remove(next));
    }
    *sources = ordered;
    for filter in filters {
        let level = level_of(sources, &filter);
        sources[level].filters.push(filter);
    }
}

/// Puts the tables `(+)` made optional after the others, keeping each group in FROM order,
/// and moves the WHERE conjuncts to the level where their columns are bound in that order.
/// An optional table whose conditions read another optional table placed after it is
/// ORA-01416 (Oracle accepts chains in FROM order only too).
fn order_outer_joined_last(sources: &mut Vec<Source>) -> Result<()> {
    let (required, optional): (Vec<Source>, Vec<Source>) = std::mem::take(sources)
        .into_iter()
        .partition(|source| !source.outer);
    *sources = required.into_iter().chain(optional).collect();
    let mut filters = Vec::new();
    for source in sources.iter_mut() {
        filters.append(&mut source.filters);
    }
    for filter in filters {
        let level = level_of(sources, &filter);
        sources[level].filters.push(filter);
    }
    for (position, source) in sources.iter().enumerate() {
        if source
            .on
            .iter()
            .any(|condition| level_of(sources, condition) > position)
        {
            return Err(Error::new(
                1416,
                "two tables cannot be outer-joined to each other",
            ));
        }
    }
    Ok(())
}

/// The level (source) at which an expression's columns are all bound: the last, in join
/// order, of the sources whose columns it reads. Join order need not be column order: a
/// RIGHT JOIN or `(+)` puts the optional table after the one it is joined to.
fn level_of(sources: &[Source], expr: &Expr) -> usize {
    sources
        .iter()
        .rposition(|source| expr.reads_columns_in(source.offset..source.offset + source.width))
        .unwrap_or(0)
}

/// The access path for a table at `offset` given conjuncts that may be evaluated when it is
/// read (columns at `offset..` are the table's, earlier ones come from outer sources), and
/// the positions of the conjuncts the index's key range implies (see `IndexScan::exact`).
fn choose_access(
    table: &Arc<TableDef>,
    offset: usize,
    conjuncts: &[&Expr],
) -> (Access, Vec<usize>) {
    let mut best: Option<AccessCandidate> = None;
    for candidate in access_candidates(table, offset, conjuncts) {
        if best
            .as_ref()
            .is_none_or(|best| candidate.score > best.score)
        {
            best = Some(candidate);
        }
    }
    best.map_or((Access::Full, Vec::new()), |best| {
        (best.access, best.implied)
    })
}

/// An index access a table's conjuncts allow.
struct AccessCandidate {
    access: Access,
    /// Positions of the conjuncts the key range implies (see `IndexScan::exact`).
    implied: Vec<usize>,
    /// Positions of the conjuncts whose facts make up the key range.
    used: Vec<usize>,
    /// An equality on every column of a unique index.
    unique: bool,
    /// The rule-based rank: unique full equality best, then the longest equality prefix,
    /// then a range on the next column.
    score: u32,
}

/// The index accesses possible for a table at `offset` given conjuncts that may be
/// evaluated when it is read (columns at `offset..` are the table's, earlier ones come from
/// outer sources): for each index, the longest equality prefix and a range on the next
/// column.
fn access_candidates(
    table: &Arc<TableDef>,
    offset: usize,
    conjuncts: &[&Expr],
) -> Vec<AccessCandidate> {
    let width = table.columns.len();
    let is_outer_value = |expr: &Expr| {
        !expr.reads_columns_in(offset..offset + width)
            && !matches!(expr, Expr::NextValue(_) | Expr::Rownum)
    };
    // A constant that is not text cannot probe a text column's index: the comparison
    // converts the column (see `Probe::Unusable`, which catches binds at execution).
    let probes = |column: usize, value: &Expr| match value {
        Expr::Constant(constant) => {
            constant.is_null()
                || matches!(constant, Value::Text(_))
                || !matches!(
                    table.columns[column].data_type,
                    DataType::Varchar2 { .. } | DataType::Char { .. }
                )
        }
        _ => true,
    };
    // (column, op, value) facts from the conjuncts, each with the position of the conjunct
    // that states it; the first fact of a kind on a column wins.
    let mut equal: HashMap<usize, (Expr, usize)> = HashMap::new();
    let mut lower: HashMap<usize, ((Expr, bool), usize)> = HashMap::new();
    let mut upper: HashMap<usize, ((Expr, bool), usize)> = HashMap::new();
    let mut in_lists: HashMap<usize, (Vec<Expr>, usize)> = HashMap::new();
    // Facts each conjunct states (a BETWEEN states two).
    let mut stated = vec![0usize; conjuncts.len()];
    for (position, conjunct) in conjuncts.iter().enumerate() {
        match *conjunct {
            Expr::Binary(left, op, right) => {
                let (column, op, value) = match (&**left, &**right) {
                    (Expr::Column(c), value)
                        if (offset..offset + width).contains(c) && is_outer_value(value) =>
                    {
                        (c - offset, *op, value.clone())
                    }
                    (value, Expr::Column(c))
                        if (offset..offset + width).contains(c) && is_outer_value(value) =>
                    {
                        (c - offset, op.mirrored(), value.clone())
                    }
                    _ => continue,
                };
                if !probes(column, &value) {
                    continue;
                }
                stated[position] = 1;
                match op {
                    BinaryOperator::Equal => {
                        equal.entry(column).or_insert((value, position));
                    }
                    BinaryOperator::Greater => {
                        lower.entry(column).or_insert(((value, false), position));
                    }
                    BinaryOperator::GreaterOrEqual => {
                        lower.entry(column).or_insert(((value, true), position));
                    }
                    BinaryOperator::Less => {
                        upper.entry(column).or_insert(((value, false), position));
                    }
                    BinaryOperator::LessOrEqual => {
                        upper.entry(column).or_insert(((value, true), position));
                    }
                    _ => stated[position] = 0,
                }
            }
            Expr::Between {
                expr,
                low,
                high,
                negated: false,
            } => {
                if let Expr::Column(c) = **expr {
                    if (offset..offset + width).contains(&c)
                        && is_outer_value(low)
                        && is_outer_value(high)
                        && probes(c - offset, low)
                        && probes(c - offset, high)
                    {
                        stated[position] = 2;
                        lower
                            .entry(c - offset)
                            .or_insert((((**low).clone(), true), position));
                        upper
                            .entry(c - offset)
                            .or_insert((((**high).clone(), true), position));
                    }
                }
            }
            Expr::InList {
                expr,
                list,
                negated: false,
                ..
            } => {
                if let Expr::Column(c) = **expr {
                    if (offset..offset + width).contains(&c)
                        && list.len() <= IN_LIST_PROBES_MAX
                        && list
                            .iter()
                            .all(|item| is_outer_value(item) && probes(c - offset, item))
                    {
                        stated[position] = 1;
                        in_lists
                            .entry(c - offset)
                            .or_insert((list.clone(), position));
                    }
                }
            }
            _ => {}
        }
    }
    let mut candidates = Vec::new();
    for index in &table.indexes {
        let mut prefix = Vec::new();
        let mut used = Vec::new();
        for column in &index.columns {
            match equal.get(column) {
                Some((value, position)) => {
                    prefix.push(value.clone());
                    used.push(*position);
                }
                None => break,
            }
        }
        // A range on the next column, if it is kept ascending (a descending column's range
        // would run backwards through the keys: only its equalities are used).
        let next = index
            .columns
            .get(prefix.len())
            .copied()
            .filter(|_| !index.descending[prefix.len()]);
        let mut range_lower = next.and_then(|column| lower.get(&column).cloned());
        let mut range_upper = next.and_then(|column| upper.get(&column).cloned());
        // An IN list on the next column instead of a range: one probe per value.
        let in_list = match index
            .columns
            .get(prefix.len())
            .and_then(|c| in_lists.get(c))
        {
            Some((values, position)) if range_lower.is_none() && range_upper.is_none() => {
                used.push(*position);
                values.clone()
            }
            _ => Vec::new(),
        };
        if !in_list.is_empty() {
            range_lower = None;
            range_upper = None;
        }
        if prefix.is_empty() && range_lower.is_none() && range_upper.is_none() && in_list.is_empty()
        {
            continue;
        }
        let probed = prefix.len() + !in_list.is_empty() as usize;
        let full_unique = index.unique && probed == index.columns.len();
        let score = if full_unique {
            1000
        } else {
            (prefix.len() as u32) * 10
                + !in_list.is_empty() as u32 * 6
                + range_lower.is_some() as u32 * 3
                + range_upper.is_some() as u32 * 3
                + index.unique as u32
        };
        let (lower, upper) = if full_unique {
            (None, None)
        } else {
            (range_lower, range_upper)
        };
        used.extend(
            lower
                .iter()
                .chain(upper.iter())
                .map(|(_, position)| *position),
        );
        // A conjunct is implied when every fact it states is part of the key range.
        let mut implied: Vec<usize> = used
            .iter()
            .copied()
            .filter(|position| {
                used.iter().filter(|used| *used == position).count() == stated[*position]
            })
            .collect();
        implied.sort_unstable();
        implied.dedup();
        candidates.push(AccessCandidate {
            access: Access::Index {
                index: index.clone(),
                equal: prefix,
                in_list,
                lower: lower.map(|(bound, _)| bound),
                upper: upper.map(|(bound, _)| bound),
            },
            implied,
            used,
            unique: full_unique,
            score,
        });
    }
    candidates
}

struct Planner<'r, 'a> {
    reader: &'r Reader<'a>,
    binds: &'r mut BindValues,
    scope: Scope,
    grouping: Option<Grouping>,
    /// A subquery ran while planning: its rows are in the plan.
    read_rows: bool,
    /// The scopes of the queries this one is inside, the nearest first: names not found
    /// here are looked up there, in that order, and become `Expr::Outer` references (empty
    /// for a top-level query).
    outer: &'r [&'r Scope],
    /// The outer columns this query reads, as (depth in `outer`, column), in order of first
    /// use: `Expr::Outer(k)` reads `outer_columns[k]`.
    outer_columns: Vec<(usize, usize)>,
    /// The WITH queries visible here, innermost last.
    ctes: &'r [ast::CommonTableExpression],
    /// Whether `(+)` may appear: in WHERE conjuncts.
    outer_join_marks_allowed: bool,
    /// The query block's hints (CACHE / NOCACHE for its tables).
    hints: Hints,
}

impl Planner<'_, '_> {
    fn add_reference(
        &mut self,
        reference: &ast::TableReference,
        outer: bool,
        sources: &mut Vec<Source>,
    ) -> Result<()> {
        match reference {
            ast::TableReference::Table { name, alias } => {
                let qualifier = alias.clone().unwrap_or_else(|| name.name.clone());
                let ours = name
                    .schema
                    .as_deref()
                    .is_none_or(|schema| schema == crate::catalog::OWNER);
                // A name is, in this order: a WITH query, a view, a table, a fixed view.
                let cte = name
                    .schema
                    .is_none()
                    .then(|| self.cte(&name.name))
                    .flatten();
                let view = ours
                    .then(|| self.reader.dictionary.views.get(&name.name).cloned())
                    .flatten();
                let plan = match (cte, view) {
                    (Some(position), _) => Some(self.plan_cte(position)?),
                    (None, Some(view)) => Some(plan_view(self.reader, self.binds, &view)?),
                    (None, None) => None,
                };
                if let Some(plan) = plan {
                    let planned = PlannedRows::Query(Box::new(plan));
                    self.add_planned_source(planned, qualifier, outer, sources);
                    return Ok(());
                }
                let (kind, columns): (SourceKind, Vec<(String, Option<DataType>)>) =
                    match self.reader.dictionary.tables.get(&name.name) {
                        Some(table) if ours => (
                            SourceKind::Table {
                                table: table.clone(),
                                access: Access::Full,
                                cache: self.hints.cache(&qualifier),
                            },
                            table
                                .columns
                                .iter()
                                .map(|column| (column.name.clone(), Some(column.data_type)))
                                .collect(),
                        ),
                        _ => match (self.reader.views)(&name.name) {
                            Some(rows) => {
                                let constant = name.name == "DUAL";
                                (
                                    SourceKind::Rows(Arc::new(rows.rows), constant),
                                    rows.columns,
                                )
                            }
                            None => return Err(Error::table_not_found()),
                        },
                    };
                self.add_source(kind, qualifier, name.name.clone(), &columns, outer, sources);
                Ok(())
            }
            ast::TableReference::TableFunction {
                name,
                args,
                alias,
                columns,
            } if name.strip_prefix("PG_CATALOG.").unwrap_or(name) == Series::NAME => {
                self.add_series(args, alias.as_deref(), columns, outer, sources)
            }
            ast::TableReference::TableFunction {
                name, args, alias, ..
            } => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    let expr = self.compile(arg)?;
                    values.push(expr.evaluate(&[], &self.reader.context(0))?);
                }
                let rows = (self.reader.table_functions)(name, &values)?
                    .ok_or_else(|| Error::new(904, format!("\"{name}\": invalid identifier")))?;
                // Its rows are read now: the plan cannot be kept.
                self.read_rows = true;
                let qualifier = alias.clone().unwrap_or_default();
                let kind = SourceKind::Rows(Arc::new(rows.rows), false);
                self.add_source(
                    kind,
                    qualifier.clone(),
                    qualifier,
                    &rows.columns,
                    outer,
                    sources,
                );
                Ok(())
            }
            ast::TableReference::Subquery { query, alias } => {
                // An inline view is planned here and runs at each execution; it cannot read
                // the columns of the FROM list it is in.
                let (plan, _) = plan_subquery(self.reader, self.binds, query, &[], self.ctes)?;
                let qualifier = alias.clone().unwrap_or_default();
                self.add_planned_source(
                    PlannedRows::Query(Box::new(plan)),
                    qualifier,
                    outer,
                    sources,
                );
                Ok(())
            }
            ast::TableReference::Join {
                left,
                right,
                kind,
                condition,
            } => {
                let right_join = *kind == ast::JoinKind::Right;
                let full_join = *kind == ast::JoinKind::Full;
                let is_outer = !matches!(kind, ast::JoinKind::Inner | ast::JoinKind::Cross);
                let is_join =
                    |side: &ast::TableReference| matches!(side, ast::TableReference::Join { .. });
                // A FULL join runs on the first two sources of a FROM list: after other
                // sources it is joined to them as one unit.
                if full_join && !sources.is_empty() {
                    return self.add_join_group(reference, outer, sources);
                }
                // This join's own left side starts here: USING and NATURAL look for their
                // left columns in it, not in earlier items of the FROM list.
                let start = self.scope.columns.len();
                // The side of a RIGHT or FULL join that becomes optional or is swapped, and
                // the optional side of an outer join, must each be one source: a join there
                // is planned as a unit, so that its rows match (or are padded) whole.
                if (right_join || full_join) && is_join(left) {
                    self.add_join_group(left, outer, sources)?;
                } else {
                    self.add_reference(left, outer, sources)?;
                }
                let before = self.scope.columns.len();
                if is_outer && is_join(right) {
                    self.add_join_group(right, !right_join, sources)?;
                } else {
                    self.add_reference(right, is_outer && !right_join, sources)?;
                }
                if right_join {
                    // A RIGHT JOIN B is B LEFT JOIN A: B drives, A is optional; the columns
                    // keep their order (A's first), only the join order changes.
                    let last = sources.len() - 1;
                    sources.swap(last - 1, last);
                    sources[last].outer = true;
                }
                if full_join {
                    sources[1].full = true;
                }
                let conditions: Vec<Expr> = match condition {
                    ast::JoinCondition::On(expr) => {
                        let mut conjuncts = Vec::new();
                        split_conjuncts(expr, &mut conjuncts);
                        conjuncts
                            .into_iter()
                            .map(|conjunct| self.compile(conjunct))
                            .collect::<Result<_>>()?
                    }
                    ast::JoinCondition::Using(names) => {
                        self.merge_columns(names, start..before, *kind)?
                    }
                    ast::JoinCondition::Natural => {
                        // NATURAL: USING every name both sides have.
                        let names: Vec<String> = self.scope.columns[before..]
                            .iter()
                            .filter(|right| {
                                self.scope.columns[start..before]
                                    .iter()
                                    .any(|left| !left.merged && left.name == right.name)
                            })
                            .map(|column| column.name.clone())
                            .collect();
                        self.merge_columns(&names, start..before, *kind)?
                    }
                    ast::JoinCondition::None => Vec::new(),
                };
                let last = sources.len() - 1;
                for condition in conditions {
                    if is_outer {
                        sources[last].on.push(condition);
                    } else {
                        let level = level_of(sources, &condition);
                        sources[level].filters.push(condition);
                    }
                }
                Ok(())
            }
        }
    }

    fn type_of(&self, expr: &ast::Expr) -> Option<DataType> {
        match expr {
            ast::Expr::Column { table, name, .. } => self
                .scope
                .resolve(table.as_deref(), name)
                .ok()
                .flatten()
                .and_then(|index| self.scope.columns[index].data_type),
            ast::Expr::Literal(ast::Literal::Number(_)) => Some(DataType::number()),
            ast::Expr::Literal(ast::Literal::String(text)) => {
                Some(DataType::varchar2(text.len().max(1) as u32))
            }
            ast::Expr::Literal(ast::Literal::Boolean(_)) => Some(DataType::Boolean),
            ast::Expr::Literal(ast::Literal::Date(_)) => Some(DataType::Date),
            ast::Expr::Literal(ast::Literal::Timestamp(_)) => Some(DataType::Timestamp),
            ast::Expr::Rownum => Some(DataType::number()),
            ast::Expr::Cast { data_type, .. } => crate::catalog::data_type_from_ast(data_type).ok(),
            ast::Expr::Unary {
                op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus,
                expr,
            } => self.type_of(expr),
            // Date arithmetic as Oracle's: a date plus or minus days is a date, the
            // difference of two dates a number of days.
            ast::Expr::Binary { left, op, right } => {
                let is_date = |data_type: Option<DataType>| {
                    matches!(data_type, Some(DataType::Date | DataType::Timestamp))
                };
                let (left, right) = (self.type_of(left), self.type_of(right));
                match op {
                    ast::BinaryOperator::Add if is_date(left) => left,
                    ast::BinaryOperator::Add if is_date(right) => right,
                    ast::BinaryOperator::Subtract if is_date(left) && !is_date(right) => left,
                    ast::BinaryOperator::Add
                    | ast::BinaryOperator::Subtract
                    | ast::BinaryOperator::Multiply
                    | ast::BinaryOperator::Divide => Some(DataType::number()),
                    _ => None,
                }
            }
            ast::Expr::Case {
                when_then,
                else_result,
                ..
            } => when_then
                .iter()
                .map(|(_, then)| then)
                .chain(else_result.as_deref())
                .find_map(|result| self.type_of(result)),
            // Functions whose result is a number, a date, or of their first argument's type;
            // text functions are left to the values (their lengths are not known here).
            ast::Expr::Function { name, args, .. } => match name.as_str() {
                "COUNT" | "SUM" | "AVG" | "STDDEV" | "VARIANCE" | "ABS" | "MOD" | "POWER"
                | "SQRT" | "SIGN" | "CEIL" | "FLOOR" | "LENGTH" | "INSTR" | "TO_NUMBER" => {
                    Some(DataType::number())
                }
                "SYSDATE" | "CURRENT_DATE" | "TO_DATE" | "ADD_MONTHS" | "LAST_DAY" => {
                    Some(DataType::Date)
                }
                "SYSTIMESTAMP" | "CURRENT_TIMESTAMP" | "LOCALTIMESTAMP" | "TO_TIMESTAMP" => {
                    Some(DataType::Timestamp)
                }
                // ROUND and TRUNC take numbers and dates.
                "ROUND" | "TRUNC" => match args.first().and_then(|arg| self.type_of(arg)) {
                    Some(DataType::Date | DataType::Timestamp) => Some(DataType::Date),
                    _ => Some(DataType::number()),
                },
                "MIN" | "MAX" | "NVL" | "COALESCE" | "GREATEST" | "LEAST" => {
                    args.iter().find_map(|arg| self.type_of(arg))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// An expression that may not read columns (OFFSET, FETCH FIRST).
    fn compile_scalar(&mut self, expr: &ast::Expr) -> Result<Expr> {
        let compiled = self.compile(expr)?;
        if compiled.max_column().is_some() {
            return Err(Error::new(
                904,
                "invalid identifier in a row limiting clause",
            ));
        }
        Ok(compiled)
    }

    fn compile(&mut self, expr: &ast::Expr) -> Result<Expr> {
        // In a grouped query, GROUP BY expressions and aggregates are columns of the group
        // row: [keys..., aggregates...].
        if let Some(grouping) = &self.grouping {
            if let Some(position) = grouping.keys.iter().position(|key| key == expr) {
                return Ok(Expr::Column(position));
            }
        }
        if let ast::Expr::Function {
            name,
            args,
            distinct,
            star,
        } = expr
        {
            if let Some(function) = aggregate_function(name) {
                return self.compile_aggregate(expr, function, args, *distinct, *star);
            }
        }
        use ast::Expr as E;
        Ok(match expr {
            E::Literal(literal) => Expr::Constant(literal_value(literal)?),
            E::Column {
                schema: _,
                table,
                name,
            } => {
                // An unqualified name of a merged column; two of them, or one and a column
                // of another FROM item, are ambiguous.
                let merged = match table {
                    Some(_) => None,
                    None => {
                        let mut found = self
                            .scope
                            .merged
                            .iter()
                            .filter(|(merged, _, _)| merged == name);
                        match (found.next(), found.next()) {
                            (Some(_), Some(_)) => {
                                return Err(Error::new(918, "column ambiguously defined"))
                            }
                            (Some((_, expr, _)), None) => {
                                let expr = expr.clone();
                                if self.scope.resolve(None, name)?.is_some() {
                                    return Err(Error::new(918, "column ambiguously defined"));
                                }
                                Some(expr)
                            }
                            _ => None,
                        }
                    }
                };
                if self.grouping.is_some() {
                    // Not a GROUP BY key (checked above) but maybe a pseudo-column.
                    if let Some(sequence) = self.sequence_reference(table.as_deref(), name)? {
                        return Ok(sequence);
                    }
                    if merged.is_some() || self.scope.resolve(table.as_deref(), name)?.is_some() {
                        return Err(Error::new(979, "not a GROUP BY expression"));
                    }
                    // An outer column is one value for the whole subquery.
                    if let Some(outer) = self.outer_reference(table.as_deref(), name)? {
                        return Ok(outer);
                    }
                    return Err(invalid_column(table.as_deref(), name));
                }
                if let Some(merged) = merged {
                    return Ok(merged);
                }
                match self.scope.resolve(table.as_deref(), name)? {
                    Some(index) => Expr::Column(index),
                    None => match self.outer_reference(table.as_deref(), name)? {
                        Some(outer) => outer,
                        None => match self.sequence_reference(table.as_deref(), name)? {
                            Some(sequence) => sequence,
                            None if table.is_none() && (name == "SYSDATE" || name == "USER") => {
                                Expr::Function(Function::resolve(name, 0)?, Vec::new())
                            }
                            None => return Err(invalid_column(table.as_deref(), name)),
                        },
                    },
                }
            }
            E::Bind { name, .. } => Expr::Bind(self.binds.index_of(name)),
            E::Rownum => Expr::Rownum,
            E::OuterJoin(inner) => {
                if !self.outer_join_marks_allowed {
                    return Err(Error::new(
                        30563,
                        "outer join operator (+) is not allowed here",
                    ));
                }
                self.compile(inner)?
            }
            E::Unary { op, expr } => Expr::Unary(*op, Box::new(self.compile(expr)?)),
            E::Binary { left, op, right }
                if matches!(**left, E::Tuple(_)) || matches!(**right, E::Tuple(_)) =>
            {
                // `(a, b) = (x, y)` is `a = x AND b = y`; `<>` is its negation.
                let negated = match op {
                    BinaryOperator::Equal => false,
                    BinaryOperator::NotEqual => true,
                    _ => return Err(Error::new(920, "invalid relational operator")),
                };
                let left = self.compile_tuple(left)?;
                let right = self.compile_tuple(right)?;
                let equal = tuple_equal(&left, &right)?;
                if negated {
                    Expr::Unary(ast::UnaryOperator::Not, Box::new(equal))
                } else {
                    equal
                }
            }
            E::Binary { left, op, right } => Expr::Binary(
                Box::new(self.compile(left)?),
                *op,
                Box::new(self.compile(right)?),
            ),
            E::IsNull { expr, negated } => Expr::IsNull(Box::new(self.compile(expr)?), *negated),
            E::Between {
                expr,
                low,
                high,
                negated,
            } => Expr::Between {
                expr: Box::new(self.compile(expr)?),
                low: Box::new(self.compile(low)?),
                high: Box::new(self.compile(high)?),
                negated: *negated,
            },
            E::InList {
                expr,
                list,
                negated,
            } if matches!(**expr, E::Tuple(_)) => {
                let left = self.compile_tuple(expr)?;
                let mut rows = Vec::with_capacity(list.len());
                for item in list {
                    rows.push(self.compile_tuple(item)?);
                }
                tuple_in(&left, rows, *negated)?
            }
            E::InSubquery {
                expr,
                query,
                negated,
            } if matches!(**expr, E::Tuple(_)) => {
                let left = self.compile_tuple(expr)?;
                match self.subquery(query, false)? {
                    PlannedSubquery::Rows(rows) => {
                        let rows = rows
                            .rows
                            .into_iter()
                            .map(|row| row.into_iter().map(Expr::Constant).collect())
                            .collect();
                        tuple_in(&left, rows, *negated)?
                    }
                    PlannedSubquery::Correlated(plan, arguments) => {
                        let width = plan.columns.len();
                        if width != left.len() {
                            return Err(if width > left.len() {
                                Error::new(913, "too many values")
                            } else {
                                Error::new(947, "not enough values")
                            });
                        }
                        Expr::Subquery(Box::new(Subquery {
                            plan,
                            arguments,
                            kind: SubqueryKind::RowIn {
                                exprs: left,
                                negated: *negated,
                            },
                        }))
                    }
                }
            }
            E::InList {
                expr,
                list,
                negated,
            } => Expr::in_list(
                self.compile(expr)?,
                list.iter()
                    .map(|item| self.compile(item))
                    .collect::<Result<_>>()?,
                *negated,
            ),
            E::InSubquery {
                expr,
                query,
                negated,
            } => match self.subquery(query, true)? {
                PlannedSubquery::Rows(rows) => Expr::in_list(
                    self.compile(expr)?,
                    rows.rows
                        .into_iter()
                        .map(|mut row| Expr::Constant(row.remove(0)))
                        .collect(),
                    *negated,
                ),
                PlannedSubquery::Correlated(plan, arguments) => {
                    Expr::Subquery(Box::new(Subquery {
                        plan,
                        arguments,
                        kind: SubqueryKind::In {
                            expr: Box::new(self.compile(expr)?),
                            negated: *negated,
                        },
                    }))
                }
            },
            E::Exists { query, negated } => match self.subquery(query, false)? {
                PlannedSubquery::Rows(rows) => {
                    Expr::Constant(Value::Boolean(rows.rows.is_empty() == *negated))
                }
                PlannedSubquery::Correlated(plan, arguments) => {
                    Expr::Subquery(Box::new(Subquery {
                        plan,
                        arguments,
                        kind: SubqueryKind::Exists { negated: *negated },
                    }))
                }
            },
            E::ScalarSubquery(query) => match self.subquery(query, true)? {
                PlannedSubquery::Rows(rows) => match rows.rows.len() {
                    0 => Expr::Constant(Value::Null),
                    1 => Expr::Constant(rows.rows[0][0].clone()),
                    _ => {
                        return Err(Error::new(
                            1427,
                            "single-row subquery returns more than one row",
                        ))
                    }
                },
                PlannedSubquery::Correlated(plan, arguments) => {
                    Expr::Subquery(Box::new(Subquery {
                        plan,
                        arguments,
                        kind: SubqueryKind::Scalar,
                    }))
                }
            },
            E::Like {
                expr,
                pattern,
                escape,
                negated,
            } => Expr::Like {
                expr: Box::new(self.compile(expr)?),
                pattern: Box::new(self.compile(pattern)?),
                escape: escape
                    .as_ref()
                    .map(|escape| self.compile(escape).map(Box::new))
                    .transpose()?,
                negated: *negated,
            },
            E::Case {
                operand,
                when_then,
                else_result,
            } => Expr::Case {
                operand: operand
                    .as_ref()
                    .map(|operand| self.compile(operand).map(Box::new))
                    .transpose()?,
                when_then: when_then
                    .iter()
                    .map(|(when, then)| Ok((self.compile(when)?, self.compile(then)?)))
                    .collect::<Result<_>>()?,
                else_result: else_result
                    .as_ref()
                    .map(|result| self.compile(result).map(Box::new))
                    .transpose()?,
            },
            E::Function { name, args, .. } if name == "ARRAY" => match args.as_slice() {
                // PostgreSQL's ARRAY(query): the array of the query's values, as text.
                [E::ScalarSubquery(query)] => match self.subquery(query, true)? {
                    PlannedSubquery::Rows(rows) => {
                        let values: Vec<Value> =
                            rows.rows.into_iter().map(|mut row| row.remove(0)).collect();
                        Expr::Constant(crate::sql::postgresql::array_text(&values))
                    }
                    PlannedSubquery::Correlated(plan, arguments) => {
                        Expr::Subquery(Box::new(Subquery {
                            plan,
                            arguments,
                            kind: SubqueryKind::Array,
                        }))
                    }
                },
                _ => return Err(Error::invalid_identifier(name)),
            },
            E::Function { name, args, .. } => {
                let function = Function::resolve(name, args.len())?;
                let args = args
                    .iter()
                    .map(|arg| self.compile(arg))
                    .collect::<Result<Vec<_>>>()?;
                Expr::Function(function, args)
            }
            E::Cast { expr, data_type } => Expr::Cast(
                Box::new(self.compile(expr)?),
                crate::catalog::data_type_from_ast(data_type)?,
            ),
            E::QuantifiedComparison {
                left,
                op,
                quantifier,
                right,
            } => {
                if !op.is_comparison() {
                    return Err(Error::new(920, "invalid relational operator"));
                }
                let all = *quantifier == ast::Quantifier::All;
                let expr = Box::new(self.compile(left)?);
                match right {
                    ast::QuantifiedOperand::List(items) => Expr::Quantified {
                        expr,
                        op: *op,
                        all,
                        list: items
                            .iter()
                            .map(|item| self.compile(item))
                            .collect::<Result<_>>()?,
                    },
                    ast::QuantifiedOperand::Subquery(query) => match self.subquery(query, true)? {
                        PlannedSubquery::Rows(rows) => Expr::Quantified {
                            expr,
                            op: *op,
                            all,
                            list: rows
                                .rows
                                .into_iter()
                                .map(|mut row| Expr::Constant(row.remove(0)))
                                .collect(),
                        },
                        PlannedSubquery::Correlated(plan, arguments) => {
                            Expr::Subquery(Box::new(Subquery {
                                plan,
                                arguments,
                                kind: SubqueryKind::Quantified { expr, op: *op, all },
                            }))
                        }
                    },
                }
            }
            E::Tuple(_) => return Err(unsupported("row value expressions")),
        })
    }

    fn compile_aggregate(
        &mut self,
        expr: &ast::Expr,
        function: AggregateFunction,
        args: &[ast::Expr],
        distinct: bool,
        star: bool,
    ) -> Result<Expr> {
        let Some(grouping) = &self.grouping else {
            return Err(Error::new(934, "group function is not allowed here"));
        };
        if let Some(position) = grouping
            .aggregate_asts
            .iter()
            .position(|known| known == expr)
        {
            return Ok(Expr::Column(grouping.keys.len() + position));
        }
        let arguments_wanted = if function == AggregateFunction::StringAgg {
            2
        } else {
            1
        };
        if !(star || args.len() == arguments_wanted) || (star && arguments_wanted == 2) {
            return Err(Error::new(909, "invalid number of arguments"));
        }
        // The argument is computed from the row, not the group.
        let saved = self.grouping.take();
        let argument = if star {
            None
        } else {
            if contains_aggregate(&args[0]) {
                self.grouping = saved;
                return Err(Error::new(935, "group function is nested too deeply"));
            }
            match self.compile(&args[0]) {
                Ok(argument) => Some(argument),
                Err(error) => {
                    self.grouping = saved;
                    return Err(error);
                }
            }
        };
        let separator = match args.get(1) {
            Some(separator) if arguments_wanted == 2 => match self.compile(separator) {
                Ok(separator) => Some(separator),
                Err(error) => {
                    self.grouping = saved;
                    return Err(error);
                }
            },
            _ => None,
        };
        let mut grouping = saved.expect("grouping");
        grouping.aggregates.push(Aggregate {
            function,
            argument,
            separator,
            distinct,
        });
        grouping.aggregate_asts.push(expr.clone());
        let position = grouping.keys.len() + grouping.aggregates.len() - 1;
        self.grouping = Some(grouping);
        Ok(Expr::Column(position))
    }

    fn sequence_reference(&self, table: Option<&str>, name: &str) -> Result<Option<Expr>> {
        let Some(table) = table else {
            return Ok(None);
        };
        if name != "NEXTVAL" && name != "CURRVAL" {
            return Ok(None);
        }
        let Some(sequence) = self.reader.dictionary.sequences.get(table) else {
            return Err(Error::new(2289, "sequence does not exist"));
        };
        Ok(Some(if name == "NEXTVAL" {
            Expr::NextValue(sequence.clone())
        } else {
            Expr::CurrentValue(sequence.clone())
        }))
    }

    /// Plans a subquery of an expression, with this query's scope as its outer scope. One
    /// that reads no outer column runs now, under the statement's snapshot, and its rows
    /// become constants; a correlated one stays a plan, run for each row with the outer
    /// columns it reads. `one_column`: the subquery must return one column (ORA-00913).
    fn subquery(&mut self, query: &ast::Query, one_column: bool) -> Result<PlannedSubquery> {
        let scopes: Vec<&Scope> = std::iter::once(&self.scope)
            .chain(self.outer.iter().copied())
            .collect();
        let (plan, outer_columns) =
            plan_subquery(self.reader, self.binds, query, &scopes, self.ctes)?;
        if one_column && plan.columns.len() != 1 {
            return Err(Error::new(913, "too many values"));
        }
        if outer_columns.is_empty() {
            self.read_rows = true;
            let rows = execute(self.reader, &plan)?;
            return Ok(PlannedSubquery::Rows(RowSet {
                columns: plan.row_set_columns(),
                rows,
            }));
        }
        self.read_rows |= !plan.reusable;
        let mut arguments = Vec::with_capacity(outer_columns.len());
        for (depth, column) in outer_columns {
            arguments.push(match (depth, &self.grouping) {
                (0, None) => Expr::Column(column),
                // In the select list or HAVING of an aggregate query the subquery is
                // evaluated on the group row: a column of this query it reads must be a
                // GROUP BY key, read from the key's place.
                (0, Some(grouping)) => grouping
                    .key_exprs
                    .iter()
                    .position(|key| matches!(key, Expr::Column(c) if *c == column))
                    .map(Expr::Column)
                    .ok_or_else(|| Error::new(979, "not a GROUP BY expression"))?,
                // A column of a query further out: this query reads it as its own outer
                // value and passes it on.
                (depth, _) => self.outer_at(depth - 1, column),
            });
        }
        Ok(PlannedSubquery::Correlated(Arc::new(plan), arguments))
    }

    /// For a WHERE conjunct with `(+)` marks, the source they make optional: every marked
    /// expression must read columns of that one source (ORA-01468 otherwise).
    fn outer_joined_source(
        &mut self,
        conjunct: &ast::Expr,
        sources: &[Source],
    ) -> Result<Option<usize>> {
        let mut marked = Vec::new();
        conjunct.walk_within_query(&mut |expr| {
            if let ast::Expr::OuterJoin(inner) = expr {
                marked.push((**inner).clone());
            }
        });
        let mut optional = None;
        for expr in &marked {
            self.outer_join_marks_allowed = true;
            let compiled = self.compile(expr);
            self.outer_join_marks_allowed = false;
            let compiled = compiled?;
            let reads: Vec<usize> = (0..sources.len())
                .filter(|&index| {
                    let source = &sources[index];
                    compiled.reads_columns_in(source.offset..source.offset + source.width)
                })
                .collect();
            let [source] = reads.as_slice() else {
                return Err(Error::new(
                    1468,
                    "a predicate may reference only one outer-joined table",
                ));
            };
            if optional.is_some_and(|optional| optional != *source) {
                return Err(Error::new(
                    1468,
                    "a predicate may reference only one outer-joined table",
                ));
            }
            optional = Some(*source);
        }
        Ok(optional)
    }

    /// USING (names): for each name, the equality of the left side's column (scope columns
    /// before `before`) and the right side's, and one merged column in their place.
    fn merge_columns(
        &mut self,
        names: &[String],
        left_side: std::ops::Range<usize>,
        kind: ast::JoinKind,
    ) -> Result<Vec<Expr>> {
        let (start, before) = (left_side.start, left_side.end);
        let mut conditions = Vec::new();
        for name in names {
            let width = self.scope.columns.len();
            // Each side's value: a column an earlier USING within that side merged stands
            // for its merged value (COALESCE of both for a FULL join); else its own column.
            let merged_value = |scope: &Scope, side: std::ops::Range<usize>| {
                scope.merged.iter().find_map(|(merged, value, data_type)| {
                    let within = !value.reads_columns_in(0..side.start)
                        && !value.reads_columns_in(side.end..usize::MAX);
                    (merged == name && within).then(|| (value.clone(), *data_type))
                })
            };
            let column = |scope: &Scope, range: std::ops::Range<usize>| {
                let columns = &scope.columns[range.clone()];
                columns
                    .iter()
                    .position(|column| &column.name == name && !column.merged)
                    .map(|position| position + range.start)
            };
            let (left_value, data_type) = match merged_value(&self.scope, start..before) {
                Some(found) => found,
                None => {
                    let left = column(&self.scope, start..before)
                        .ok_or_else(|| Error::invalid_identifier(name))?;
                    self.scope.columns[left].merged = true;
                    (Expr::Column(left), self.scope.columns[left].data_type)
                }
            };
            let right_value = match merged_value(&self.scope, before..width) {
                Some((value, _)) => value,
                None => {
                    let right = column(&self.scope, before..width)
                        .ok_or_else(|| Error::invalid_identifier(name))?;
                    self.scope.columns[right].merged = true;
                    Expr::Column(right)
                }
            };
            conditions.push(Expr::Binary(
                Box::new(left_value.clone()),
                BinaryOperator::Equal,
                Box::new(right_value.clone()),
            ));
            let value = match kind {
                ast::JoinKind::Right => right_value,
                ast::JoinKind::Full => {
                    Expr::Function(Function::Coalesce, vec![left_value, right_value])
                }
                _ => left_value,
            };
            // The merged column now has this join's value; an entry for either side's
            // earlier merge is replaced (merges in other FROM items stay).
            self.scope.merged.retain(|(merged, value, _)| {
                merged != name
                    || value.reads_columns_in(0..start)
                    || value.reads_columns_in(width..usize::MAX)
            });
            self.scope.merged.push((name.clone(), value, data_type));
        }
        Ok(conditions)
    }

    /// The items of a row value `(a, b, ...)`; ORA-00920 for anything else where a row
    /// value is compared.
    fn compile_tuple(&mut self, expr: &ast::Expr) -> Result<Vec<Expr>> {
        let ast::Expr::Tuple(items) = expr else {
            return Err(Error::new(920, "invalid relational operator"));
        };
        items.iter().map(|item| self.compile(item)).collect()
    }

    /// Plans the WITH query at `position` in `ctes` where a FROM list names it: it sees the
    /// WITH queries defined before it, not itself; its column list renames its columns.
    fn plan_cte(&mut self, position: usize) -> Result<QueryPlan> {
        let cte = &self.ctes[position];
        let (mut plan, _) = plan_subquery(
            self.reader,
            self.binds,
            &cte.query,
            &[],
            &self.ctes[..position],
        )?;
        plan.rename_columns(&cte.columns, || {
            Error::new(
                32038,
                "number of WITH clause column names does not match number of elements in select list",
            )
        })?;
        Ok(plan)
    }

    /// The position in `ctes` of the WITH query named `name` that is visible here.
    fn cte(&self, name: &str) -> Option<usize> {
        self.ctes.iter().rposition(|cte| cte.name == name)
    }

    /// Adds a source whose rows a plan makes at each execution, its columns named as the
    /// plan names them, qualified by `qualifier`.
    fn add_planned_source(
        &mut self,
        planned: PlannedRows,
        qualifier: String,
        outer: bool,
        sources: &mut Vec<Source>,
    ) {
        let columns: Vec<(String, Option<DataType>)> = planned
            .columns()
            .iter()
            .map(|column| (column.name.clone(), column.data_type))
            .collect();
        let kind = SourceKind::Planned(Arc::new(planned));
        self.add_source(kind, qualifier.clone(), qualifier, &columns, outer, sources);
    }

    /// Adds a join tree as one source (a "join group"): planned apart, as the query
    /// `SELECT * FROM reference` would be, its rows a planned source whose columns keep the
    /// qualifiers and USING merges they have in it. Its conditions cannot read the other
    /// sources of this FROM list (ORA-00904), as Oracle's ON conditions cannot read later
    /// tables; they can read an enclosing query's columns, as this query can.
    fn add_join_group(
        &mut self,
        reference: &ast::TableReference,
        outer: bool,
        sources: &mut Vec<Source>,
    ) -> Result<()> {
        let mut group = Planner {
            reader: self.reader,
            binds: &mut *self.binds,
            scope: Scope::default(),
            grouping: None,
            read_rows: false,
            // The enclosing queries' columns, numbered as this query numbers them.
            outer: self.outer,
            outer_columns: self.outer_columns.clone(),
            ctes: self.ctes,
            outer_join_marks_allowed: false,
            // The group is part of this query block: its tables take its hints.
            hints: self.hints.clone(),
        };
        let mut members = Vec::new();
        group.add_reference(reference, false, &mut members)?;
        let (joined, _) = arrange_sources(self.reader, &group.scope, &mut members, false)?;
        let (scope, read_rows) = (group.scope, group.read_rows);
        self.outer_columns = group.outer_columns;
        let width = scope.columns.len();
        // Every column, then the value of each merged one.
        let mut projection: Vec<Expr> = (0..width).map(Expr::Column).collect();
        let mut columns: Vec<Column> = scope
            .columns
            .iter()
            .map(|column| Column {
                name: column.name.clone(),
                data_type: column.data_type,
            })
            .collect();
        for (name, value, data_type) in &scope.merged {
            projection.push(value.clone());
            columns.push(Column {
                name: name.clone(),
                data_type: *data_type,
            });
        }
        let mut plan = QueryPlan {
            sources: members,
            width,
            rownum_filters: Vec::new(),
            grouped: None,
            projection,
            order_by: Vec::new(),
            distinct: false,
            offset: None,
            fetch: None,
            columns,
            reusable: false,
            rows_touch_no_block: false,
            costed: joined.is_some(),
            estimate: joined,
            above_estimates: Vec::new(),
        };
        plan.finish(read_rows);
        self.read_rows |= read_rows;
        let offset = self.scope.columns.len();
        self.add_planned_source(
            PlannedRows::Query(Box::new(plan)),
            String::new(),
            outer,
            sources,
        );
        for (position, column) in scope.columns.into_iter().enumerate() {
            self.scope.columns[offset + position] = column;
        }
        for (k, (name, _, data_type)) in scope.merged.into_iter().enumerate() {
            let position = offset + width + k;
            // Reached through `Scope::merged` only, not by a qualified name.
            self.scope.columns[position].merged = true;
            self.scope
                .merged
                .push((name, Expr::Column(position), data_type));
        }
        Ok(())
    }

    /// Adds a source of `kind` to the FROM list: its columns to the scope, qualified by
    /// `qualifier`, after those already there.
    /// `generate_series(start, stop[, step]) [[AS] alias [(column)]]`: PostgreSQL names its
    /// one column after the column list, else the alias, else the function.
    fn add_series(
        &mut self,
        args: &[ast::Expr],
        alias: Option<&str>,
        columns: &[String],
        outer: bool,
        sources: &mut Vec<Source>,
    ) -> Result<()> {
        if args.len() < 2 {
            return Err(Error::new(938, "not enough arguments for function"));
        }
        if args.len() > 3 {
            return Err(Error::new(939, "too many arguments for function"));
        }
        if columns.len() > 1 {
            return Err(Error::new(1730, "invalid number of column names specified"));
        }
        let mut compiled = Vec::with_capacity(args.len());
        for arg in args {
            let expr = self.compile(arg)?;
            // An argument is evaluated before the FROM list's rows exist (no LATERAL).
            if expr.max_column().is_some() {
                return Err(Error::new(
                    904,
                    "generate_series' arguments cannot read columns of the FROM list it is in",
                ));
            }
            compiled.push(expr);
        }
        let mut compiled = compiled.into_iter();
        let series = Series {
            start: compiled.next().unwrap_or(Expr::Constant(Value::Null)),
            stop: compiled.next().unwrap_or(Expr::Constant(Value::Null)),
            step: compiled.next(),
        };
        let qualifier = alias.unwrap_or(Series::NAME).to_string();
        let column = columns
            .first()
            .cloned()
            .unwrap_or_else(|| qualifier.clone());
        self.add_source(
            SourceKind::Series(Arc::new(series)),
            qualifier,
            Series::NAME.to_string(),
            &[(column, Some(DataType::number()))],
            outer,
            sources,
        );
        Ok(())
    }

    fn add_source(
        &mut self,
        kind: SourceKind,
        qualifier: String,
        name: String,
        columns: &[(String, Option<DataType>)],
        outer: bool,
        sources: &mut Vec<Source>,
    ) {
        let offset = self.scope.columns.len();
        for (column, data_type) in columns {
            self.scope.columns.push(ScopeColumn {
                qualifier: qualifier.clone(),
                name: column.clone(),
                data_type: *data_type,
                merged: false,
            });
        }
        sources.push(Source::new(kind, offset, columns.len(), name, outer));
    }

    /// The outer query's column `table.name` as an `Expr::Outer` reference, if this is a
    /// subquery and the outer scope has it.
    fn outer_reference(&mut self, table: Option<&str>, name: &str) -> Result<Option<Expr>> {
        for depth in 0..self.outer.len() {
            if let Some(column) = self.outer[depth].resolve(table, name)? {
                return Ok(Some(self.outer_at(depth, column)));
            }
        }
        Ok(None)
    }

    /// `Expr::Outer` for column `column` of the enclosing scope at `depth`, recorded once.
    fn outer_at(&mut self, depth: usize, column: usize) -> Expr {
        let key = (depth, column);
        let position = match self.outer_columns.iter().position(|used| *used == key) {
            Some(position) => position,
            None => {
                self.outer_columns.push(key);
                self.outer_columns.len() - 1
            }
        };
        Expr::Outer(position)
    }
}

/// A subquery of an expression, planned.
enum PlannedSubquery {
    /// It read no outer column and ran at plan time.
    Rows(RowSet),
    /// Correlated: its plan and the outer row's columns it reads.
    Correlated(Arc<QueryPlan>, Vec<Expr>),
}

fn invalid_column(table: Option<&str>, name: &str) -> Error {
    match table {
        Some(table) => Error::new(904, format!("\"{table}\".\"{name}\": invalid identifier")),
        None => Error::invalid_identifier(name),
    }
}

pub fn literal_value(literal: &ast::Literal) -> Result<Value> {
    Ok(match literal {
        ast::Literal::Number(text) => Value::parse_number(text)?,
        ast::Literal::String(text) => Value::text(text.clone()),
        ast::Literal::Null => Value::Null,
        ast::Literal::Boolean(value) => Value::Boolean(*value),
        ast::Literal::Date(text) => Value::text(text.clone()).cast(&DataType::Date)?,
        ast::Literal::Timestamp(text) => Value::text(text.clone()).cast(&DataType::Timestamp)?,
    })
}

/// The heading Oracle gives an unaliased expression: its text, in upper case.
pub fn heading(expr: &ast::Expr) -> String {
    use ast::Expr as E;
    match expr {
        E::Column {
            table: Some(table),
            name,
            ..
        } if name == "NEXTVAL" || name == "CURRVAL" => {
            format!("{table}.{name}")
        }
        E::Column { name, .. } => name.clone(),
        E::Literal(ast::Literal::Number(text)) => text.clone(),
        E::Literal(ast::Literal::String(text)) => format!("'{}'", text.to_uppercase()),
        E::Literal(ast::Literal::Null) => "NULL".to_string(),
        E::Bind { name, .. } => format!(":{name}"),
        E::Rownum => "ROWNUM".to_string(),
        E::Function {
            name,
            args,
            star,
            distinct,
        } => {
            if *star {
                format!("{name}(*)")
            } else {
                let args: Vec<String> = args.iter().map(heading).collect();
                format!(
                    "{name}({}{})",
                    if *distinct { "DISTINCT " } else { "" },
                    args.join(",")
                )
            }
        }
        E::Binary { left, op, right } => {
            let op = match op {
                BinaryOperator::Add => "+",
                BinaryOperator::Subtract => "-",
                BinaryOperator::Multiply => "*",
                BinaryOperator::Divide => "/",
                BinaryOperator::Concat => "||",
                _ => "?",
            };
            format!("{}{op}{}", heading(left), heading(right))
        }
        E::Unary {
            op: ast::UnaryOperator::Minus,
            expr,
        } => format!("-{}", heading(expr)),
        _ => "EXPR".to_string(),
    }
}

// ----- execution ----------------------------------------------------------------------

/// Aggregate state for one group.
#[derive(Clone)]
enum Accumulator {
    Count(u64),
    Sum(RunningSum),
    Avg(RunningSum, u64),
    Extreme(Value),
    /// STRING_AGG's text so far; None before the first value.
    Text(Option<String>),
}

struct GroupState {
    keys: Vec<Value>,
    accumulators: Vec<Accumulator>,
    distinct_seen: Vec<HashSet<GroupKey>>,
}

/// Runs a planned query.
pub fn execute(reader: &Reader, plan: &QueryPlan) -> Result<Vec<Vec<Value>>> {
    let mut outputs: Vec<Vec<Value>> = Vec::new();
    let mut groups: Vec<GroupState> = Vec::new();
    let mut group_index: HashMap<Vec<GroupKey>, usize> = HashMap::new();
    let mut rownum = 0u64;
    let visible = plan.columns.len();
    // DISTINCT without grouping keeps each row once as it comes (HASH UNIQUE): only
    // distinct rows take work-area memory.
    let mut distinct_seen: HashSet<Vec<GroupKey>> = HashSet::new();
    let mut row = vec![Value::Null; plan.width];
    {
        let mut emit = |row: &[Value]| -> Result<bool> {
            // ROWNUM conditions: a row that fails them does not take the number; once such a
            // condition that reads no column fails, no later row can pass it either.
            let candidate = rownum + 1;
            let context = reader.context(candidate);
            for filter in &plan.rownum_filters {
                if !filter.is_true(row, &context)? {
                    return Ok(filter.max_column().is_some());
                }
            }
            rownum = candidate;
            match &plan.grouped {
                None => {
                    let values = plan
                        .projection
                        .iter()
                        .map(|expr| expr.evaluate(row, &context))
                        .collect::<Result<Vec<_>>>()?;
                    if plan.distinct {
                        let key: Vec<GroupKey> =
                            values[..visible].iter().cloned().map(GroupKey).collect();
                        if distinct_seen.contains(&key) {
                            return Ok(true);
                        }
                        reader.work_area.charge(&values[..visible])?;
                        distinct_seen.insert(key);
                    }
                    reader.work_area.charge(&values)?;
                    outputs.push(values);
                }
                Some(grouped) => {
                    let position = if grouped.keys.is_empty() {
                        // One group for the whole input: no key to evaluate or hash.
                        if groups.is_empty() {
                            groups.push(new_group(Vec::new(), &grouped.aggregates));
                        }
                        0
                    } else {
                        let keys = grouped
                            .keys
                            .iter()
                            .map(|expr| expr.evaluate(row, &context))
                            .collect::<Result<Vec<_>>>()?;
                        let hashed: Vec<GroupKey> = keys.iter().cloned().map(GroupKey).collect();
                        match group_index.get(&hashed) {
                            Some(position) => *position,
                            None => {
                                // The key, in the group and in the index.
                                reader.work_area.charge(&keys)?;
                                reader.work_area.charge(&keys)?;
                                groups.push(new_group(keys, &grouped.aggregates));
                                group_index.insert(hashed, groups.len() - 1);
                                groups.len() - 1
                            }
                        }
                    };
                    accumulate(&mut groups[position], &grouped.aggregates, row, &context)?;
                }
            }
            Ok(true)
        };
        let tables = JoinTables::default();
        join_level(reader, plan, 0, &mut row, &mut emit, None, &tables)?;
    }
    if let Some(grouped) = &plan.grouped {
        if groups.is_empty() && grouped.keys.is_empty() {
            // Aggregates over no rows: one row (COUNT 0, others NULL).
            groups.push(new_group(Vec::new(), &grouped.aggregates));
        }
        let context = reader.context(0);
        for group in groups {
            let mut group_row = group.keys;
            for accumulator in group.accumulators {
                group_row.push(finish(accumulator)?);
            }
            if let Some(having) = &grouped.having {
                if !having.is_true(&group_row, &context)? {
                    continue;
                }
            }
            outputs.push(
                plan.projection
                    .iter()
                    .map(|expr| expr.evaluate(&group_row, &context))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
    }
    if plan.distinct && plan.grouped.is_some() {
        let mut seen = HashSet::new();
        let mut kept = Vec::with_capacity(outputs.len());
        for row in outputs {
            let key: Vec<GroupKey> = row[..visible].iter().cloned().map(GroupKey).collect();
            if seen.contains(&key) {
                continue;
            }
            reader.work_area.charge(&row[..visible])?;
            seen.insert(key);
            kept.push(row);
        }
        outputs = kept;
    }
    // Hash group-by and hash unique work areas, all of them in memory.
    let hash_work_areas = plan
        .grouped
        .as_ref()
        .is_some_and(|grouped| !grouped.keys.is_empty()) as u64
        + plan.distinct as u64;
    instrumentation::add(Statistic::WorkareaExecutionsOptimal, hash_work_areas);
    if !plan.order_by.is_empty() {
        instrumentation::add(Statistic::WorkareaExecutionsOptimal, 1);
        instrumentation::add(Statistic::SortsMemory, 1);
        instrumentation::add(Statistic::SortsRows, outputs.len() as u64);
        let context = reader.context(0);
        let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = outputs
            .into_iter()
            .map(|row| {
                let keys = plan
                    .order_by
                    .iter()
                    .map(|(expr, _, _)| expr.evaluate(&row, &context))
                    .collect::<Result<Vec<_>>>()?;
                reader.work_area.charge(&keys)?;
                Ok((keys, row))
            })
            .collect::<Result<_>>()?;
        keyed.sort_by(|(left, _), (right, _)| {
            for (index, (_, descending, nulls_first)) in plan.order_by.iter().enumerate() {
                let (a, b) = (&left[index], &right[index]);
                let order = match (a.is_null(), b.is_null()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => {
                        if *nulls_first {
                            std::cmp::Ordering::Less
                        } else {
                            std::cmp::Ordering::Greater
                        }
                    }
                    (false, true) => {
                        if *nulls_first {
                            std::cmp::Ordering::Greater
                        } else {
                            std::cmp::Ordering::Less
                        }
                    }
                    (false, false) => {
                        let order = a.total_cmp(b);
                        if *descending {
                            order.reverse()
                        } else {
                            order
                        }
                    }
                };
                if order != std::cmp::Ordering::Equal {
                    return order;
                }
            }
            std::cmp::Ordering::Equal
        });
        outputs = keyed.into_iter().map(|(_, row)| row).collect();
    }
    let context = reader.context(0);
    let offset = match &plan.offset {
        Some(expr) => row_count(&expr.evaluate(&[], &context)?)?,
        None => 0,
    };
    let fetch = match &plan.fetch {
        Some(expr) => Some(row_count(&expr.evaluate(&[], &context)?)?),
        None => None,
    };
    let mut result: Vec<Vec<Value>> = outputs
        .into_iter()
        .skip(offset)
        .take(fetch.unwrap_or(usize::MAX))
        .collect();
    for row in &mut result {
        row.truncate(visible);
    }
    Ok(result)
}

fn row_count(value: &Value) -> Result<usize> {
    Ok(value
        .to_decimal()
        .map(|number| number.floor())
        .ok()
        .and_then(|number| u64::try_from(number).ok())
        .unwrap_or(0) as usize)
}

fn new_group(keys: Vec<Value>, aggregates: &[Aggregate]) -> GroupState {
    GroupState {
        keys,
        accumulators: aggregates
            .iter()
            .map(|aggregate| match aggregate.function {
                AggregateFunction::Count => Accumulator::Count(0),
                AggregateFunction::Sum => Accumulator::Sum(RunningSum::Empty),
                AggregateFunction::Avg => Accumulator::Avg(RunningSum::Empty, 0),
                AggregateFunction::Min | AggregateFunction::Max => {
                    Accumulator::Extreme(Value::Null)
                }
                AggregateFunction::StringAgg => Accumulator::Text(None),
            })
            .collect(),
        distinct_seen: aggregates.iter().map(|_| HashSet::new()).collect(),
    }
}

fn accumulate(
    group: &mut GroupState,
    aggregates: &[Aggregate],
    row: &[Value],
    context: &Context,
) -> Result<()> {
    for (index, aggregate) in aggregates.iter().enumerate() {
        let value = match &aggregate.argument {
            None => {
                if let Accumulator::Count(count) = &mut group.accumulators[index] {
                    *count += 1;
                }
                continue;
            }
            Some(argument) => argument.operand(row, context)?,
        };
        if value.is_null() {
            continue;
        }
        if aggregate.distinct
            && !group.distinct_seen[index].insert(GroupKey(value.clone().into_owned()))
        {
            continue;
        }
        let accumulator = &mut group.accumulators[index];
        match accumulator {
            Accumulator::Count(count) => *count += 1,
            Accumulator::Sum(sum) => sum.add(&value)?,
            Accumulator::Avg(sum, count) => {
                sum.add(&value)?;
                *count += 1;
            }
            Accumulator::Extreme(best) => {
                let replace = best.is_null() || {
                    let order = eval::compare(&value, best)?;
                    match aggregate.function {
                        AggregateFunction::Min => order == Some(std::cmp::Ordering::Less),
                        _ => order == Some(std::cmp::Ordering::Greater),
                    }
                };
                if replace {
                    *best = value.into_owned();
                }
            }
            Accumulator::Text(text) => {
                let value = value.to_text().unwrap_or_default();
                match text {
                    None => *text = Some(value),
                    Some(text) => {
                        if let Some(separator) = &aggregate.separator {
                            let separator = separator.evaluate(row, context)?;
                            text.push_str(&separator.to_text().unwrap_or_default());
                        }
                        text.push_str(&value);
                    }
                }
                // VARCHAR2's bound, as Oracle's LISTAGG has it.
                if text
                    .as_ref()
                    .is_some_and(|text| text.len() > STRING_AGG_BYTES_MAX)
                {
                    return Err(Error::new(
                        1489,
                        "result of string concatenation is too long",
                    ));
                }
            }
        }
    }
    Ok(())
}

fn finish(accumulator: Accumulator) -> Result<Value> {
    Ok(match accumulator {
        Accumulator::Count(count) => Value::integer(count as i64),
        Accumulator::Sum(sum) => sum.total(),
        Accumulator::Avg(sum, count) => {
            if count == 0 {
                Value::Null
            } else {
                sum.total().div(&Value::integer(count as i64))?
            }
        }
        Accumulator::Extreme(value) => value,
        Accumulator::Text(text) => text.map_or(Value::Null, Value::text),
    })
}

/// Nested loops: binds source `level` for each of its rows that match, then goes deeper.
/// `full_matches` collects the rows of a FULL join's second source that met their ON
/// conditions, so that the first level can add the others afterwards.
fn join_level(
    reader: &Reader,
    plan: &QueryPlan,
    level: usize,
    row: &mut Vec<Value>,
    emit: &mut dyn FnMut(&[Value]) -> Result<bool>,
    full_matches: Option<&RefCell<FxHashSet<u64>>>,
    tables: &JoinTables,
) -> Result<bool> {
    if level == plan.sources.len() {
        return emit(row);
    }
    let source = &plan.sources[level];
    let context = reader.context(0);
    let mut matched = false;
    // A FULL join of the first two sources: the second's matches are collected here.
    let full = (level == 0 && plan.sources.get(1).is_some_and(|next| next.full))
        .then(|| RefCell::new(FxHashSet::default()));
    let deeper_matches = full.as_ref().or(full_matches);
    // A query of one source has rows that are its rows: the candidate is checked and
    // emitted where it lies, not copied into `row` first.
    let alone = plan.sources.len() == 1;
    // `vouched`: the row is known to satisfy `index_filters` (IndexScan::exact).
    let mut visit = |candidate: &mut [Value],
                     vouched: bool,
                     identity: u64,
                     row: &mut Vec<Value>|
     -> Result<bool> {
        // Each candidate row is a point where a cancel or the time limit stops a statement
        // whose rows come from memory (a hash join's probes) as well as from blocks.
        crate::instrumentation::interrupt::check()?;
        let current: &[Value] = if alone {
            candidate
        } else {
            for (slot, value) in row[source.offset..source.offset + source.width]
                .iter_mut()
                .zip(candidate.iter_mut())
            {
                std::mem::swap(slot, value);
            }
            row
        };
        if !vouched {
            for filter in &source.index_filters {
                if !filter.is_true(current, &context)? {
                    return Ok(true);
                }
            }
        }
        for condition in &source.on {
            if !condition.is_true(current, &context)? {
                return Ok(true);
            }
        }
        matched = true;
        if source.full {
            if let Some(matches) = full_matches {
                matches.borrow_mut().insert(identity);
            }
        }
        for filter in &source.filters {
            if !filter.is_true(current, &context)? {
                return Ok(true);
            }
        }
        if alone {
            emit(candidate)
        } else {
            join_level(reader, plan, level + 1, row, emit, deeper_matches, tables)
        }
    };
    if !source_rows(reader, plan, source, row, false, tables, &mut visit)? {
        return Ok(false);
    }
    if source.outer && !matched {
        for value in &mut row[source.offset..source.offset + source.width] {
            *value = Value::Null;
        }
        for filter in &source.filters {
            if !filter.is_true(row, &context)? {
                return Ok(true);
            }
        }
        return join_level(reader, plan, level + 1, row, emit, full_matches, tables);
    }
    if let Some(matches) = full {
        // The second source's rows that matched no row of the first, the first's columns
        // NULL, through the WHERE conjuncts (all at the second level: see `plan_subquery`).
        let matches = matches.into_inner();
        for value in &mut row[source.offset..source.offset + source.width] {
            *value = Value::Null;
        }
        let second = &plan.sources[1];
        let mut unmatched = |candidate: &mut [Value],
                             _: bool,
                             identity: u64,
                             row: &mut Vec<Value>|
         -> Result<bool> {
            if matches.contains(&identity) {
                return Ok(true);
            }
            for (slot, value) in row[second.offset..second.offset + second.width]
                .iter_mut()
                .zip(candidate.iter_mut())
            {
                std::mem::swap(slot, value);
            }
            for filter in &second.filters {
                if !filter.is_true(row, &context)? {
                    return Ok(true);
                }
            }
            join_level(reader, plan, 2, row, emit, None, tables)
        };
        return source_rows(reader, plan, second, row, true, tables, &mut unmatched);
    }
    Ok(true)
}

/// The tables of a plan's HASH JOINs and MERGE JOINs, built at their first probe in an
/// execution, by the source's offset.
#[derive(Default)]
struct JoinTables {
    hashed: RefCell<HashMap<usize, Rc<HashTable>>>,
    sorted: RefCell<HashMap<usize, Rc<SortedTable>>>,
}

/// A HASH JOIN's rows by their join key, with their identities.
type HashTable = FxHashMap<Vec<GroupKey>, Vec<(u64, Vec<Value>)>>;

/// A MERGE JOIN's rows sorted on their key, with their identities.
type SortedTable = Vec<(Value, u64, Vec<Value>)>;

/// A join source's rows read once (by its access, which reads no earlier source), each
/// with its identity, through `keep` (false: leave the row out); they count against the
/// statement's work area, as one work area that fit in memory (there is no other kind yet).
/// The filters the access's key range implies are checked here on the rows the index does
/// not vouch for (their other columns may not even be decoded for those it does), so the
/// rows kept are all vouched for when probed.
fn build_rows(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    row: &mut Vec<Value>,
    keep: &mut dyn FnMut(&[Value], u64) -> Result<bool>,
) -> Result<()> {
    let context = reader.context(0);
    let mut add = |candidate: &mut [Value], vouched: bool, identity: u64, row: &mut Vec<Value>| {
        if !vouched && !source.index_filters.is_empty() {
            let slots = &mut row[source.offset..source.offset + source.width];
            slots.swap_with_slice(candidate);
            let passes = source
                .index_filters
                .iter()
                .try_fold(true, |passes, filter| {
                    Ok::<_, Error>(passes && filter.is_true(row, &context)?)
                });
            row[source.offset..source.offset + source.width].swap_with_slice(candidate);
            if !passes? {
                return Ok(true);
            }
        }
        if keep(candidate, identity)? {
            reader.work_area.charge(candidate)?;
        }
        Ok(true)
    };
    read_source(reader, plan, source, row, false, &mut add)?;
    instrumentation::add(Statistic::WorkareaExecutionsOptimal, 1);
    Ok(())
}

/// The hash table of a HASH JOIN source, keyed on its join columns; rows with a NULL key
/// are left out, since NULL equals nothing.
fn hash_table(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    keys: &[(usize, usize)],
    row: &mut Vec<Value>,
    tables: &JoinTables,
) -> Result<Rc<HashTable>> {
    if let Some(table) = tables.hashed.borrow().get(&source.offset) {
        return Ok(table.clone());
    }
    let mut table = HashTable::default();
    build_rows(reader, plan, source, row, &mut |candidate, identity| {
        let mut key = Vec::with_capacity(keys.len());
        for (inner, _) in keys {
            let value = &candidate[inner - source.offset];
            if value.is_null() {
                return Ok(false);
            }
            key.push(GroupKey(value.clone()));
        }
        table
            .entry(key)
            .or_default()
            .push((identity, candidate.to_vec()));
        Ok(true)
    })?;
    let table = Rc::new(table);
    tables
        .hashed
        .borrow_mut()
        .insert(source.offset, table.clone());
    Ok(table)
}

/// The rows of a MERGE JOIN source sorted on its key (SORT JOIN; rows with a NULL key are
/// left out, since NULL compares with nothing), or with no key those of a MERGE JOIN
/// CARTESIAN's source as read (BUFFER SORT, which in Oracle sorts nothing either).
fn sorted_table(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    key: Option<MergeKey>,
    row: &mut Vec<Value>,
    tables: &JoinTables,
) -> Result<Rc<SortedTable>> {
    if let Some(table) = tables.sorted.borrow().get(&source.offset) {
        return Ok(table.clone());
    }
    let mut table: SortedTable = Vec::new();
    build_rows(reader, plan, source, row, &mut |candidate, identity| {
        let value = match key {
            Some(key) => candidate[key.inner - source.offset].clone(),
            None => Value::Null,
        };
        if key.is_some() && value.is_null() {
            return Ok(false);
        }
        table.push((value, identity, candidate.to_vec()));
        Ok(true)
    })?;
    if key.is_some() {
        table.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    instrumentation::add(Statistic::SortsMemory, 1);
    instrumentation::add(Statistic::SortsRows, table.len() as u64);
    let table = Rc::new(table);
    tables
        .sorted
        .borrow_mut()
        .insert(source.offset, table.clone());
    Ok(table)
}

/// The rows of a sorted MERGE JOIN table whose key compares with `value` by `op`
/// (`key op value`): one binary search for each bound.
fn merge_range(table: &SortedTable, op: BinaryOperator, value: &Value) -> std::ops::Range<usize> {
    let first_not_below = table.partition_point(|(key, _, _)| key.total_cmp(value).is_lt());
    let first_above = table.partition_point(|(key, _, _)| key.total_cmp(value).is_le());
    match op {
        BinaryOperator::Equal => first_not_below..first_above,
        BinaryOperator::Less => 0..first_not_below,
        BinaryOperator::LessOrEqual => 0..first_above,
        BinaryOperator::Greater => first_above..table.len(),
        BinaryOperator::GreaterOrEqual => first_not_below..table.len(),
        _ => 0..table.len(),
    }
}

/// What `source_rows` calls for each row: (candidate, vouched, identity, row) -> go on.
type SourceVisit<'v> = dyn FnMut(&mut [Value], bool, u64, &mut Vec<Value>) -> Result<bool> + 'v;

/// A source's rows for a join level: `visit(candidate, vouched, identity, row)` for each, until
/// it returns false. The identity tells rows apart (a rowid, or the row's position);
/// `full_scan` reads a table whole whatever its access path.
fn source_rows(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    row: &mut Vec<Value>,
    full_scan: bool,
    tables: &JoinTables,
    visit: &mut SourceVisit,
) -> Result<bool> {
    if full_scan {
        return read_source(reader, plan, source, row, true, visit);
    }
    let (table, range) = match &source.join {
        Join::NestedLoops => return read_source(reader, plan, source, row, false, visit),
        Join::Hash(keys) => {
            let table = hash_table(reader, plan, source, keys, row, tables)?;
            let mut key = Vec::with_capacity(keys.len());
            for (_, outer) in keys {
                if row[*outer].is_null() {
                    return Ok(true); // NULL equals nothing
                }
                key.push(GroupKey(row[*outer].clone()));
            }
            let mut scratch = Vec::with_capacity(source.width);
            for (identity, candidate) in table.get(&key).into_iter().flatten() {
                scratch.clone_from(candidate);
                if !visit(&mut scratch, true, *identity, row)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        Join::Merge(key) => {
            let table = sorted_table(reader, plan, source, Some(*key), row, tables)?;
            let value = row[key.outer].clone();
            if value.is_null() {
                return Ok(true); // NULL compares with nothing
            }
            let range = merge_range(&table, key.op, &value);
            (table, range)
        }
        Join::Cartesian => {
            let table = sorted_table(reader, plan, source, None, row, tables)?;
            let range = 0..table.len();
            (table, range)
        }
    };
    // Each kept row is copied into one scratch row (the visit swaps its values out).
    let mut scratch = Vec::with_capacity(source.width);
    for (_, identity, candidate) in &table[range] {
        scratch.clone_from(candidate);
        if !visit(&mut scratch, true, *identity, row)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A source's rows by its access path (`full_scan`: a table read whole whatever its
/// access), with the arguments of `source_rows`.
fn read_source(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    row: &mut Vec<Value>,
    full_scan: bool,
    visit: &mut SourceVisit,
) -> Result<bool> {
    match &source.kind {
        SourceKind::Rows(rows, _) => {
            for (position, candidate) in rows.iter().enumerate() {
                if !visit(&mut candidate.clone(), false, position as u64, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        SourceKind::Series(series) => {
            let context = reader.context(0);
            series.for_each(&context, &mut |position, value| {
                let mut candidate = vec![Value::Number(value)];
                visit(&mut candidate, false, position, row)
            })
        }
        SourceKind::Planned(planned) => {
            // The rows are held for this visit only: what they took of the work area is
            // given back when they are dropped (nested loops run them once per row before).
            let used = reader.work_area.used_bytes();
            let rows = planned.rows(reader)?;
            let held = reader.work_area.used_bytes().saturating_sub(used);
            let mut going = true;
            for (position, mut candidate) in rows.into_iter().enumerate() {
                if !visit(&mut candidate, false, position as u64, row)? {
                    going = false;
                    break;
                }
            }
            reader.work_area.release(held);
            Ok(going)
        }
        SourceKind::Table {
            table,
            access,
            cache,
        } => {
            let scan = match access {
                Access::Index { .. } if !full_scan => access_rowids(reader, table, access, row)?,
                _ => None,
            };
            if let Some(scan) = scan {
                let vouching = scan.exact.then(|| Vouching {
                    live: &scan.live,
                    needed: source.needed_vouched.as_deref(),
                });
                let options = ReadOptions {
                    needed: source.needed.as_deref(),
                    vouching,
                    visit_under_latch: plan.rows_touch_no_block,
                    cache: None,
                };
                return reader.fetch_rows(table, &scan.rowids, options, &mut |found, candidate| {
                    let identity = scan.rowids[found.position].to_u64();
                    visit(candidate, found.vouched, identity, row)
                });
            }
            // A full scan, or an index access whose values cannot probe it this time.
            let mut outer_row = std::mem::take(row);
            let options = ReadOptions {
                needed: source.needed.as_deref(),
                vouching: None,
                visit_under_latch: plan.rows_touch_no_block,
                cache: *cache,
            };
            let result = reader.scan_table_columns(table, options, &mut |rowid, candidate| {
                visit(candidate, false, rowid.to_u64(), &mut outer_row)
            });
            *row = outer_row;
            result
        }
    }
}

/// The most values of an IN list an index access probes one by one (INLIST ITERATOR); a
/// longer list is a filter.
pub const IN_LIST_PROBES_MAX: usize = 1000;

/// The rowids an index access proposes: one index scan, or for an IN list one per distinct
/// value (INLIST ITERATOR), each row once. None when a value cannot probe the index (see
/// `index_rowids`).
fn access_rowids(
    reader: &Reader,
    table: &TableDef,
    access: &Access,
    row: &[Value],
) -> Result<Option<IndexScan>> {
    let Access::Index {
        index,
        equal,
        in_list,
        lower,
        upper,
    } = access
    else {
        unreachable!("an index access");
    };
    if in_list.is_empty() {
        return index_rowids(
            reader,
            table,
            index,
            equal,
            lower.as_ref(),
            upper.as_ref(),
            row,
        );
    }
    let context = reader.context(0);
    let mut probe = equal.clone();
    probe.push(Expr::Constant(Value::Null));
    let mut combined = IndexScan {
        rowids: Vec::new(),
        live: Vec::new(),
        exact: true,
    };
    let mut values_seen = HashSet::new();
    let mut rows_seen = FxHashSet::default();
    for item in in_list {
        let value = item.evaluate(row, &context)?;
        if !values_seen.insert(GroupKey(value.clone())) {
            continue;
        }
        *probe.last_mut().expect("the probed value") = Expr::Constant(value);
        let Some(scan) = index_rowids(reader, table, index, &probe, None, None, row)? else {
            return Ok(None);
        };
        combined.exact &= scan.exact;
        for (rowid, live) in scan.rowids.into_iter().zip(scan.live) {
            // A row whose key changed between two listed values has an entry under each.
            if rows_seen.insert(rowid.to_u64()) {
                combined.rowids.push(rowid);
                combined.live.push(live);
            }
        }
    }
    Ok(Some(combined))
}

/// What an index scan proposes: rowids, each once, in index order.
pub struct IndexScan {
    pub rowids: Vec<RowId>,
    /// Per rowid: its entry is live (not delete-marked).
    pub live: Vec<bool>,
    /// Every probe value already had its key column's type, NUMBER (no conversion): key
    /// order and equality are then exactly SQL's, and the range decides the conjuncts it
    /// came from for the rows `Vouching` describes.
    exact: bool,
}

/// The rowids an index scan proposes, each once, in index order.
pub fn index_rowids(
    reader: &Reader,
    table: &TableDef,
    index: &IndexDef,
    equal: &[Expr],
    lower: Option<&(Expr, bool)>,
    upper: Option<&(Expr, bool)>,
    row: &[Value],
) -> Result<Option<IndexScan>> {
    let context = reader.context(0);
    let column_type = |position: usize| table.columns[index.columns[position]].data_type;
    let nothing = IndexScan {
        rowids: Vec::new(),
        live: Vec::new(),
        exact: false,
    };
    let mut exact = true;
    let mut is_exact = |value: &Value, data_type: &DataType| {
        exact &= matches!(
            (data_type, value),
            (DataType::Number { .. }, Value::Number(_))
        );
    };
    let mut prefix_values = Vec::with_capacity(equal.len());
    for (position, expr) in equal.iter().enumerate() {
        let value = expr.evaluate(row, &context)?;
        is_exact(&value, &column_type(position));
        match key_value(value, &column_type(position))? {
            Probe::Key(value) => prefix_values.push(value),
            Probe::Nothing => return Ok(Some(nothing)),
            Probe::Unusable => return Ok(None),
        }
    }
    let descending = &index.descending[..(prefix_values.len() + 1).min(index.descending.len())];
    let mut prefix = Vec::new();
    encode_key(
        &prefix_values,
        &index.descending[..prefix_values.len()],
        &mut prefix,
    );
    // Err(Probe::Nothing): the bound can match nothing (NULL); Ok(None): no bound.
    type BoundKey = std::result::Result<Option<(Vec<u8>, bool)>, Probe>;
    let mut bound_key = |bound: Option<&(Expr, bool)>| -> Result<BoundKey> {
        let Some((expr, inclusive)) = bound else {
            return Ok(Ok(None));
        };
        let value = expr.evaluate(row, &context)?;
        is_exact(&value, &column_type(prefix_values.len()));
        let value = match key_value(value, &column_type(prefix_values.len()))? {
            Probe::Key(value) => value,
            other => return Ok(Err(other)),
        };
        let mut values = prefix_values.clone();
        values.push(value);
        let mut key = Vec::new();
        encode_key(&values, descending, &mut key);
        Ok(Ok(Some((key, *inclusive))))
    };
    let (lower_key, upper_key) = match (bound_key(lower)?, bound_key(upper)?) {
        (Ok(lower), Ok(upper)) => (lower, upper),
        (Err(Probe::Unusable), _) | (_, Err(Probe::Unusable)) => return Ok(None),
        _ => return Ok(Some(nothing)),
    };
    // Keys of longer tuples extend their prefix's bytes, so "every key with this prefix" is
    // [prefix, successor(prefix)).
    let lower_bound: Bound<Vec<u8>> = match lower_key {
        Some((key, true)) => Bound::Included(key),
        Some((key, false)) => match key_prefix_successor(&key) {
            Some(successor) => Bound::Included(successor),
            None => return Ok(Some(nothing)),
        },
        None if prefix.is_empty() => Bound::Unbounded,
        None => Bound::Included(prefix.clone()),
    };
    let upper_bound: Bound<Vec<u8>> = match upper_key {
        Some((key, true)) => key_prefix_successor(&key).map_or(Bound::Unbounded, Bound::Excluded),
        Some((key, false)) => Bound::Excluded(key),
        // `col > v` alone: up to the NULLs, which sort last and compare with nothing.
        None if lower.is_some() => {
            let mut values = prefix_values.clone();
            values.push(Value::Null);
            let mut key = Vec::new();
            encode_key(&values, descending, &mut key);
            Bound::Excluded(key)
        }
        None if prefix.is_empty() => Bound::Unbounded,
        None => key_prefix_successor(&prefix).map_or(Bound::Unbounded, Bound::Excluded),
    };
    let mut entries = Vec::new();
    index.tree.range_bounds_rowids(
        &reader.storage.cache,
        lower_bound.as_ref().map(Vec::as_slice),
        upper_bound.as_ref().map(Vec::as_slice),
        &mut |rowid, deleted| entries.push((rowid, !deleted)),
    )?;
    // A row appears twice when a key change left a delete-marked entry for its old key in
    // the range too. Sorting a copy finds whether any did; only then is each kept once (the
    // first, in index order).
    let mut sorted: Vec<u64> = entries.iter().map(|(rowid, _)| *rowid).collect();
    sorted.sort_unstable();
    if sorted.windows(2).any(|pair| pair[0] == pair[1]) {
        let mut seen = FxHashSet::default();
        entries.retain(|(rowid, _)| seen.insert(*rowid));
    }
    Ok(Some(IndexScan {
        rowids: entries
            .iter()
            .map(|(rowid, _)| RowId::from_u64(*rowid))
            .collect(),
        live: entries.iter().map(|(_, live)| *live).collect(),
        exact,
    }))
}

/// A value as an index key column's probe.
enum Probe {
    Key(Value),
    /// NULL, or a value no key can equal: the probe matches nothing.
    Nothing,
    /// A value the column would have to be converted to compare with (a number or a date
    /// against text: Oracle converts the text), so the index's order does not serve.
    Unusable,
}

/// A value converted to a key column's type for probing. Conversion errors are the
/// comparison's errors (ORA-01722 ...).
fn key_value(value: Value, data_type: &DataType) -> Result<Probe> {
    if value.is_null() {
        return Ok(Probe::Nothing);
    }
    let converted = match (data_type, &value) {
        (DataType::Number { .. } | DataType::Float, Value::Number(_) | Value::Float(_)) => value,
        (DataType::Number { .. }, _) => Value::Number(value.to_decimal()?),
        (DataType::Float, _) => Value::Float(value.to_float()?),
        (DataType::Varchar2 { .. } | DataType::Char { .. }, Value::Text(_)) => value,
        (DataType::Varchar2 { .. } | DataType::Char { .. }, _) => return Ok(Probe::Unusable),
        (DataType::Date | DataType::Timestamp, Value::Date(_) | Value::Timestamp(_)) => value,
        (other, _) => value.cast(other)?,
    };
    Ok(Probe::Key(converted))
}

/// Evaluates a constant expression (defaults, VALUES rows without columns).
pub fn evaluate_constant(
    expr: &Expr,
    binds: &[Value],
    sequences: &dyn SequenceAccess,
    rownum: u64,
) -> Result<Value> {
    expr.evaluate(
        &[],
        &Context {
            binds,
            rownum,
            sequences,
            outer: &[],
            subqueries: None,
            dictionary: None,
        },
    )
}

/// One step of a plan as EXPLAIN PLAN shows it (a row of PLAN_TABLE): Oracle's operation
/// and option names, the object, and the step's place in the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanLine {
    pub id: usize,
    pub parent_id: Option<usize>,
    pub depth: usize,
    /// The step's position among its parent's children, from 1.
    pub position: usize,
    pub operation: String,
    pub options: Option<String>,
    pub object_name: Option<String>,
    pub object_type: Option<String>,
    /// PLAN_TABLE.OPTIMIZER: the optimizer mode, on the statement's line.
    pub optimizer: Option<String>,
    /// Cost-based plans: COST, CARDINALITY and BYTES.
    pub estimate: Option<Estimate>,
}

/// A plan step before numbering.
struct PlanNode {
    operation: &'static str,
    options: Option<&'static str>,
    object: Option<(String, &'static str)>,
    estimate: Option<Estimate>,
    children: Vec<PlanNode>,
}

impl PlanNode {
    fn new(operation: &'static str, options: Option<&'static str>) -> PlanNode {
        PlanNode {
            operation,
            options,
            object: None,
            estimate: None,
            children: Vec::new(),
        }
    }

    fn estimated(mut self, estimate: Option<Estimate>) -> PlanNode {
        self.estimate = estimate;
        self
    }

    fn on(mut self, name: &str, kind: &'static str) -> PlanNode {
        self.object = Some((name.to_string(), kind));
        self
    }

    fn over(mut self, child: PlanNode) -> PlanNode {
        self.children.push(child);
        self
    }

    /// Numbers the tree in preorder, as Oracle numbers plan steps.
    fn flatten(
        self,
        parent: Option<usize>,
        depth: usize,
        position: usize,
        out: &mut Vec<PlanLine>,
    ) {
        let id = out.len();
        out.push(PlanLine {
            id,
            parent_id: parent,
            depth,
            position,
            operation: self.operation.to_string(),
            options: self.options.map(str::to_string),
            object_name: self.object.as_ref().map(|(name, _)| name.clone()),
            object_type: self.object.map(|(_, kind)| kind.to_string()),
            optimizer: None,
            estimate: self.estimate,
        });
        for (index, child) in self.children.into_iter().enumerate() {
            child.flatten(Some(id), depth + 1, index + 1, out);
        }
    }
}

/// The access steps of a table read through `access`.
fn access_node(
    table: &str,
    access: &Access,
    estimate: Option<costing::AccessEstimate>,
) -> PlanNode {
    let table_estimate = estimate.map(|estimate| estimate.table);
    let index_estimate = estimate.and_then(|estimate| estimate.index);
    match access {
        Access::Full => PlanNode::new("TABLE ACCESS", Some("FULL"))
            .on(table, "TABLE")
            .estimated(table_estimate),
        Access::Index {
            index,
            equal,
            in_list,
            lower,
            upper,
        } => {
            let unique = index.unique
                && equal.len() + !in_list.is_empty() as usize == index.columns.len()
                && lower.is_none()
                && upper.is_none();
            let (table_options, index_options) = if unique {
                ("BY INDEX ROWID", "UNIQUE SCAN")
            } else {
                ("BY INDEX ROWID BATCHED", "RANGE SCAN")
            };
            let node = PlanNode::new("TABLE ACCESS", Some(table_options))
                .on(table, "TABLE")
                .estimated(table_estimate)
                .over(
                    PlanNode::new("INDEX", Some(index_options))
                        .on(
                            &index.name,
                            if index.unique {
                                "INDEX (UNIQUE)"
                            } else {
                                "INDEX"
                            },
                        )
                        .estimated(index_estimate),
                );
            if in_list.is_empty() {
                node
            } else {
                PlanNode::new("INLIST ITERATOR", None)
                    .estimated(table_estimate)
                    .over(node)
            }
        }
    }
}

fn source_node(source: &Source) -> PlanNode {
    let estimate = source.access_estimate.map(|estimate| estimate.table);
    match &source.kind {
        SourceKind::Table { table, access, .. } => {
            access_node(&table.name, access, source.access_estimate)
        }
        SourceKind::Rows(..) => PlanNode::new("FIXED TABLE", Some("FULL"))
            .on(&source.name, "TABLE (FIXED)")
            .estimated(estimate),
        // Oracle's name for rows a table function makes.
        SourceKind::Series(_) => PlanNode::new("COLLECTION ITERATOR", Some("PICKLER FETCH"))
            .on(&source.name, "PROCEDURE")
            .estimated(estimate),
        SourceKind::Planned(planned) => {
            let view = PlanNode::new("VIEW", None)
                .estimated(estimate)
                .over(planned_node(planned));
            if source.name.is_empty() {
                view
            } else {
                view.on(&source.name, "VIEW")
            }
        }
    }
}

fn planned_node(planned: &PlannedRows) -> PlanNode {
    match planned {
        PlannedRows::Query(plan) => query_node(plan),
        PlannedRows::SetOperation { op, left, right } => {
            let (operation, options) = match op {
                ast::SetOperator::UnionAll | ast::SetOperator::Union => ("UNION-ALL", None),
                ast::SetOperator::Intersect => ("INTERSECTION", None),
                ast::SetOperator::Minus => ("MINUS", None),
            };
            let node = PlanNode::new(operation, options)
                .over(planned_node(left))
                .over(planned_node(right));
            if *op == ast::SetOperator::Union {
                PlanNode::new("HASH", Some("UNIQUE")).over(node)
            } else {
                node
            }
        }
    }
}

/// The steps of a query plan: the join tree (nested loops, left-deep, in join order), then
/// grouping, DISTINCT, ORDER BY and ROWNUM as the steps above it.
fn query_node(plan: &QueryPlan) -> PlanNode {
    let mut sources = plan.sources.iter();
    let mut node = sources
        .next()
        .map_or_else(|| PlanNode::new("FAST DUAL", None), source_node);
    let mut above = plan.above_estimates.iter().copied();
    for source in sources {
        let options = if source.full {
            Some("FULL OUTER")
        } else if source.outer {
            Some("OUTER")
        } else {
            None
        };
        let join = |operation| PlanNode::new(operation, options).estimated(source.estimate);
        // A merge join's second input (or a cartesian one's) is read once and kept: its
        // access's estimate plus a sort.
        let sorted = |operation, options| {
            PlanNode::new(operation, Some(options))
                .estimated(source.access_estimate.map(|estimate| Estimate {
                    cost: estimate.table.cost + optimizer::sort_cost(estimate.table.rows),
                    ..estimate.table
                }))
                .over(source_node(source))
        };
        node = match &source.join {
            Join::NestedLoops => join("NESTED LOOPS").over(node).over(source_node(source)),
            // Oracle lists a hash join's build input (the source hashed) first, then the
            // input that probes it (the rows joined so far).
            Join::Hash(_) => join("HASH JOIN").over(source_node(source)).over(node),
            Join::Merge(_) => join("MERGE JOIN").over(node).over(sorted("SORT", "JOIN")),
            Join::Cartesian => {
                let mut cartesian = PlanNode::new("MERGE JOIN", Some("CARTESIAN"))
                    .estimated(source.estimate)
                    .over(node)
                    .over(sorted("BUFFER", "SORT"));
                if options.is_some() {
                    cartesian.options = Some("OUTER CARTESIAN");
                }
                cartesian
            }
        };
    }
    if let Some(grouped) = &plan.grouped {
        node = if grouped.keys.is_empty() {
            PlanNode::new("SORT", Some("AGGREGATE")).over(node)
        } else {
            PlanNode::new("HASH", Some("GROUP BY")).over(node)
        }
        .estimated(above.next());
    }
    if plan.distinct {
        node = PlanNode::new("HASH", Some("UNIQUE"))
            .estimated(above.next())
            .over(node);
    }
    if !plan.order_by.is_empty() {
        node = PlanNode::new("SORT", Some("ORDER BY"))
            .estimated(above.next())
            .over(node);
    }
    if !plan.rownum_filters.is_empty() {
        node = PlanNode::new("COUNT", Some("STOPKEY"))
            .estimated(above.next())
            .over(node);
    }
    node
}

/// A plan as DBMS_XPLAN.DISPLAY prints it: a table of Id, Operation (indented by depth),
/// Name and, for a cost-based plan, Rows, Bytes and Cost; a rule-based plan ends with
/// Oracle's note saying so.
pub fn format_plan(lines: &[&PlanLine]) -> Vec<String> {
    let operation = |line: &PlanLine| {
        let mut text = " ".repeat(line.depth);
        text.push_str(&line.operation);
        if let Some(options) = &line.options {
            text.push(' ');
            text.push_str(options);
        }
        text
    };
    let costed = lines.iter().any(|line| line.estimate.is_some());
    // (heading, right-aligned, value of a line)
    type Cell<'c> = Box<dyn Fn(&PlanLine) -> String + 'c>;
    let mut columns: Vec<(&str, bool, Cell)> = vec![
        ("Id", true, Box::new(|line: &PlanLine| line.id.to_string())),
        ("Operation", false, Box::new(operation)),
        (
            "Name",
            false,
            Box::new(|line: &PlanLine| line.object_name.clone().unwrap_or_default()),
        ),
    ];
    if costed {
        let shown = |value: fn(&Estimate) -> String| {
            Box::new(move |line: &PlanLine| line.estimate.as_ref().map_or_else(String::new, value))
                as Cell
        };
        columns.push(("Rows", true, shown(|e| optimizer::scaled(e.shown_rows()))));
        columns.push(("Bytes", true, shown(|e| optimizer::scaled(e.shown_bytes()))));
        columns.push(("Cost", true, shown(|e| e.shown_cost().to_string())));
    }
    let cells: Vec<Vec<String>> = lines
        .iter()
        .map(|line| columns.iter().map(|(_, _, cell)| cell(line)).collect())
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(column, (heading, _, _))| {
            cells
                .iter()
                .map(|row| row[column].len())
                .max()
                .unwrap_or(0)
                .max(heading.len())
                .max(if column == 0 { 3 } else { 0 })
        })
        .collect();
    let row_text = |values: &[String], headings: bool| {
        let mut text = String::from("|");
        for (column, value) in values.iter().enumerate() {
            let width = widths[column];
            if columns[column].1 && !headings {
                text.push_str(&format!(" {value:>width$} |"));
            } else {
                text.push_str(&format!(" {value:width$} |"));
            }
        }
        text
    };
    let headings: Vec<String> = columns
        .iter()
        .map(|(heading, _, _)| heading.to_string())
        .collect();
    let rule = "-".repeat(row_text(&headings, true).len());
    let mut out = vec![rule.clone(), row_text(&headings, true), rule.clone()];
    out.extend(cells.iter().map(|row| row_text(row, false)));
    out.push(rule);
    if !costed {
        out.push(String::new());
        out.push("Note".to_string());
        out.push("-----".to_string());
        out.push("   - rule based optimizer used (consider using cbo)".to_string());
    }
    out
}

/// EXPLAIN PLAN's rows for a query: `SELECT STATEMENT` and the plan's steps under it.
pub fn explain_query(plan: &QueryPlan) -> Vec<PlanLine> {
    let mut lines = Vec::new();
    PlanNode::new("SELECT STATEMENT", None)
        .estimated(plan.estimate)
        .over(query_node(plan))
        .flatten(None, 0, 1, &mut lines);
    lines
}

/// EXPLAIN PLAN's rows for an UPDATE or DELETE (`operation` is "UPDATE" or "DELETE").
pub fn explain_table_statement(
    operation: &'static str,
    statement: &'static str,
    table: &str,
    plan: &TablePlan,
) -> Vec<PlanLine> {
    let mut lines = Vec::new();
    let estimate = plan.access_estimate.map(|estimate| estimate.table);
    PlanNode::new(statement, None)
        .estimated(estimate)
        .over(
            PlanNode::new(operation, None)
                .on(table, "TABLE")
                .over(access_node(table, &plan.access, plan.access_estimate)),
        )
        .flatten(None, 0, 1, &mut lines);
    lines
}

/// EXPLAIN PLAN's rows for an INSERT, with the plan of its query when it has one.
pub fn explain_insert(table: &str, query: Option<&QueryPlan>) -> Vec<PlanLine> {
    let mut load = PlanNode::new("LOAD TABLE CONVENTIONAL", None).on(table, "TABLE");
    if let Some(plan) = query {
        load = load.over(query_node(plan));
    }
    let mut lines = Vec::new();
    PlanNode::new("INSERT STATEMENT", None)
        .estimated(query.and_then(|plan| plan.estimate))
        .over(load)
        .flatten(None, 0, 1, &mut lines);
    lines
}

pub struct TablePlan {
    pub access: Access,
    /// The statement's CACHE (true) / NOCACHE (false) hint on its table, for a full scan.
    pub cache: Option<bool>,
    /// Cost-based plans: what the access is estimated to cost and yield.
    access_estimate: Option<costing::AccessEstimate>,
    pub filters: Vec<Expr>,
    pub expressions: Vec<Expr>,
    /// Whether the plan holds nothing read at planning time (a subquery's rows), so that
    /// the statement's cursor can keep it, as a query's keeps its [`QueryPlan`].
    pub reusable: bool,
}

impl TablePlan {
    /// Whether every WHERE conjunct is TRUE for `row`.
    pub fn accepts(&self, row: &[Value], context: &Context) -> Result<bool> {
        for filter in &self.filters {
            if !filter.is_true(row, context)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Plans UPDATE and DELETE: `expressions` (SET values) and the WHERE clause are compiled
/// against the table's columns; `hint` is the statement's hint text.
pub fn plan_table_statement(
    reader: &Reader,
    binds: &mut BindValues,
    table: &Arc<TableDef>,
    alias: Option<&str>,
    hint: Option<&str>,
    expressions: &[&ast::Expr],
    where_clause: Option<&ast::Expr>,
) -> Result<TablePlan> {
    binds.register_names(
        expressions
            .iter()
            .copied()
            .chain(where_clause)
            .map(ast::Node::Expr),
    );
    let mut planner = Planner {
        hints: Hints::parse(hint),
        ..Planner::row_free(reader, binds)
    };
    let qualifier = alias.unwrap_or(&table.name).to_string();
    for column in &table.columns {
        planner.scope.columns.push(ScopeColumn {
            qualifier: qualifier.clone(),
            name: column.name.clone(),
            data_type: Some(column.data_type),
            merged: false,
        });
    }
    let mut conjuncts = Vec::new();
    if let Some(condition) = where_clause {
        split_conjuncts(condition, &mut conjuncts);
    }
    let filters = conjuncts
        .into_iter()
        .map(|conjunct| planner.compile(conjunct))
        .collect::<Result<Vec<_>>>()?;
    let expressions = expressions
        .iter()
        .map(|expr| planner.compile(expr))
        .collect::<Result<Vec<_>>>()?;
    let conditions: Vec<&Expr> = filters.iter().collect();
    let (access, access_estimate) = match costing::table_access(reader, table, &conditions) {
        Some((access, estimate)) => (access, Some(estimate)),
        None => (choose_access(table, 0, &conditions).0, None),
    };
    let cache = planner.hints.cache(&qualifier);
    Ok(TablePlan {
        access,
        cache,
        access_estimate,
        filters,
        expressions,
        reusable: !planner.read_rows,
    })
}

/// Compiles an expression that reads no columns (INSERT ... VALUES, defaults).
pub fn compile_row_free(reader: &Reader, binds: &mut BindValues, expr: &ast::Expr) -> Result<Expr> {
    binds.register_names([ast::Node::Expr(expr)]);
    Planner::row_free(reader, binds).compile(expr)
}

/// An INSERT ... VALUES's rows, compiled: what its cursor keeps, as a query's keeps its
/// [`QueryPlan`].
pub struct ValuesPlan {
    pub rows: Vec<Vec<Expr>>,
    /// Whether nothing was read while compiling them (a scalar subquery's rows).
    pub reusable: bool,
}

/// Compiles the rows of `INSERT ... VALUES (...), (...)` (their expressions read no
/// columns).
pub fn plan_values(
    reader: &Reader,
    binds: &mut BindValues,
    rows: &[Vec<ast::Expr>],
) -> Result<ValuesPlan> {
    binds.register_names(rows.iter().flatten().map(ast::Node::Expr));
    let mut planner = Planner::row_free(reader, binds);
    let rows = rows
        .iter()
        .map(|row| row.iter().map(|expr| planner.compile(expr)).collect())
        .collect::<Result<Vec<Vec<Expr>>>>()?;
    Ok(ValuesPlan {
        rows,
        reusable: !planner.read_rows,
    })
}

impl<'r, 'a> Planner<'r, 'a> {
    /// A planner for expressions outside any query: no columns, no outer queries, no hints
    /// (UPDATE and DELETE add their table's columns and their hints).
    fn row_free(reader: &'r Reader<'a>, binds: &'r mut BindValues) -> Planner<'r, 'a> {
        Planner {
            reader,
            binds,
            scope: Scope::default(),
            grouping: None,
            read_rows: false,
            outer: &[],
            outer_columns: Vec::new(),
            ctes: &[],
            outer_join_marks_allowed: false,
            hints: Hints::default(),
        }
    }
}

/// The rows of `table` that the plan's access path proposes and its filters accept, as the
/// reader sees them: (rowid, values).
pub fn matching_rows(
    reader: &Reader,
    table: &TableDef,
    plan: &TablePlan,
) -> Result<Vec<(RowId, Vec<Value>)>> {
    let context = reader.context(0);
    let mut rows = Vec::new();
    let mut keep = |rowid: RowId, values: &mut [Value]| -> Result<bool> {
        if plan.accepts(values, &context)? {
            rows.push((rowid, values.to_vec()));
        }
        Ok(true)
    };
    let scan_options = ReadOptions {
        cache: plan.cache,
        ..ReadOptions::default()
    };
    match &plan.access {
        Access::Full => {
            reader.scan_table_columns(table, scan_options, &mut keep)?;
        }
        access @ Access::Index { .. } => {
            let Some(scan) = access_rowids(reader, table, access, &[])? else {
                reader.scan_table_columns(table, scan_options, &mut keep)?;
                return Ok(rows);
            };
            for rowid in scan.rowids {
                if let Some(mut values) = reader.fetch(table, rowid)? {
                    keep(rowid, &mut values)?;
                }
            }
        }
    }
    Ok(rows)
}

impl Reader<'_> {
    /// Evaluation context for DML (no ROWNUM).
    pub fn row_context(&self) -> Context<'_> {
        self.context(0)
    }
}
