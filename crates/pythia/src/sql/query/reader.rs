//! The `Reader` a statement reads through: the storage, the dictionary version, the
//! snapshot SCN and transaction, the bind values and the work area; table scans and rowid
//! fetches a block at a time, with the row versions the snapshot sees.

use std::collections::HashMap;

use super::execute::execute;
use super::plan::QueryPlan;
use crate::access::heap::{self, RowId};
use crate::access::scan::FullScan;
use crate::access::segment;
use crate::buffer::{AccessKind, BlockAccess};
use crate::catalog::{Dictionary, Storage, TableDef};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic};
use crate::io::block::{self, BlockId, BlockType};
use crate::sql::eval::{Context, Expr, SequenceAccess, SubqueryRunner};
use crate::sql::optimizer::OptimizerEnvironment;
use crate::syntax::ast;
use crate::types::{decode_row_into, RowSet, Value};

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
    /// The stored functions the statement may call (PL/SQL's); None where none can run.
    pub functions: Option<&'a dyn SqlFunctions>,
}

/// The stored functions SQL may call: found by name for the compiler, run by the evaluator
/// (`Expr::Routine`).
pub trait SqlFunctions: crate::sql::eval::RoutineRunner {
    /// The stored function `name` names that takes `arguments` arguments (all IN), if any.
    fn resolve(&self, name: &str, arguments: usize) -> Option<crate::sql::eval::RoutineCall>;
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
    pub(super) fn release(&self, bytes: u64) {
        self.used_bytes
            .set(self.used_bytes.get().saturating_sub(bytes));
    }

    /// Counts a row the statement keeps.
    pub(super) fn charge(&self, row: &[Value]) -> Result<()> {
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
    pub(super) fn context(&self, rownum: u64) -> Context<'_> {
        Context {
            binds: &self.binds.values,
            rownum,
            sequences: self.sequences,
            outer: self.outer,
            subqueries: Some(self),
            dictionary: Some(self.dictionary),
            routines: self
                .functions
                .map(|functions| functions as &dyn crate::sql::eval::RoutineRunner),
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
        let mut batch = RowBatch::new(table, options);
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
        debug_assert!(
            options
                .vouching
                .is_none_or(|vouching| vouching.live.len() == rowids.len()),
            "one entry state per rowid"
        );
        let mut batch = RowBatch::new(table, options);
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
        debug_assert_eq!(run_start, rowids.len());
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
            if options.segment.is_some_and(|header| {
                block::block_type(&data) != BlockType::HeapData
                    || heap::segment_header(&data) != header
            }) {
                return Ok(true); // a rowid of another segment: none of this table's rows
            }
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
                    stamp_rowid(&mut batch.row, options.rowid, block.block, slot);
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
            stamp_rowid(row, options.rowid, block.block, found.slot);
            if !visit(found, row)? {
                return Ok(false);
            }
        }
        debug_assert_eq!(
            start,
            batch.decoded.len(),
            "every row decoded in place is visited"
        );
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
    /// Rows carry their ROWID pseudo-column, one value after the table's columns: the
    /// table's object id, which the rowid text names.
    pub rowid: Option<u32>,
    /// The rowids come from a user (a ROWID value): a block that is not a heap block of the
    /// segment with this header block holds none of the table's rows.
    pub segment: Option<u32>,
}

/// Fills a row's ROWID pseudo-column, its last value, when the read carries it.
fn stamp_rowid(row: &mut [Value], object_id: Option<u32>, block: u32, slot: u16) {
    if let (Some(object_id), Some(last)) = (object_id, row.last_mut()) {
        *last = Value::Text(RowId { block, slot }.to_oracle_string(object_id));
    }
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
    /// A batch for `table`'s rows: its columns, then its ROWID when the read carries it.
    fn new(table: &TableDef, options: ReadOptions<'m>) -> RowBatch<'m> {
        RowBatch {
            width: table.columns.len() + options.rowid.is_some() as usize,
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

impl Reader<'_> {
    /// Evaluation context for DML (no ROWNUM).
    pub fn row_context(&self) -> Context<'_> {
        self.context(0)
    }
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
            routines: None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUE_BYTES: u64 = std::mem::size_of::<Value>() as u64;

    #[test]
    fn a_work_area_counts_each_value_and_its_text_and_gives_back_what_is_released() {
        let area = WorkArea::new(10 * VALUE_BYTES);
        area.charge(&[Value::integer(1), Value::text("abc")])
            .unwrap();
        assert_eq!(area.used_bytes(), 2 * VALUE_BYTES + 3);
        area.release(VALUE_BYTES);
        assert_eq!(area.used_bytes(), VALUE_BYTES + 3);
        area.release(u64::MAX);
        assert_eq!(area.used_bytes(), 0);
    }

    #[test]
    fn a_row_beyond_the_bound_is_ora_04036_and_is_not_counted() {
        let area = WorkArea::new(3 * VALUE_BYTES);
        area.charge(&[Value::Null, Value::Null]).unwrap();
        let error = area.charge(&[Value::Null, Value::Null]).unwrap_err();
        assert_eq!(error.code(), 4036);
        assert_eq!(area.used_bytes(), 2 * VALUE_BYTES);
        area.charge(&[Value::Null]).unwrap();
        assert_eq!(area.used_bytes(), 3 * VALUE_BYTES);
    }

    #[test]
    fn numbered_binds_take_their_number_and_named_ones_their_first_appearance() {
        let mut binds = BindValues::default();
        assert_eq!(binds.index_of("1"), 0);
        assert_eq!(binds.index_of("3"), 2);
        assert_eq!(binds.index_of("A"), 0);
        assert_eq!(binds.index_of("B"), 1);
        assert_eq!(binds.index_of("A"), 0);
        assert_eq!(binds.names.len(), 2);
    }

    #[test]
    fn named_binds_are_numbered_in_the_order_the_text_names_them() {
        let crate::syntax::ast::Statement::Select(query) =
            crate::syntax::parser::parse("SELECT :b FROM t WHERE a = :a AND c = :b").unwrap()
        else {
            panic!("a query");
        };
        let mut binds = BindValues::default();
        binds.register_names([ast::Node::Query(&query)]);
        let mut names: Vec<(&String, &usize)> = binds.names.iter().collect();
        names.sort_by_key(|(_, position)| **position);
        let names: Vec<String> = names.iter().map(|(name, _)| name.to_uppercase()).collect();
        assert_eq!(names, ["B", "A"]);
    }
}
