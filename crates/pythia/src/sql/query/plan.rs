//! The plan of a query block: its sources (tables with their access paths, rows, planned
//! inline views, series), how each is joined, and what is derived from the whole plan
//! (reusability, the columns each source decodes).

use std::sync::Arc;

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use super::aggregate::Aggregate;
use super::costing;
use super::execute::execute;
use super::reader::Reader;
use super::set_operation::set_operation;
use crate::catalog::{IndexDef, TableDef};
use crate::error::{Error, Result};
use crate::sql::eval::{Context, Expr};
use crate::sql::optimizer::Estimate;
use crate::syntax::ast::{self, BinaryOperator};
use crate::types::{Column, DataType, Value};

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
    /// TABLE ACCESS BY USER ROWID: the row whose ROWID the value names (`WHERE ROWID =
    /// :b`), none when it names no row of the table.
    Rowid(Expr),
}

#[derive(Clone, Debug)]
pub(super) enum SourceKind {
    Table {
        table: Arc<TableDef>,
        access: Access,
        /// The query block's CACHE (true) / NOCACHE (false) hint on this table: wins over
        /// the table's CACHE attribute for its full scans. None: no hint.
        cache: Option<bool>,
    },
    /// Rows read at planning time: a view (v$, dba_), DUAL, a table function's; `true`:
    /// rows that never change (DUAL's), so that a plan reading them can run again.
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
pub(super) struct Series {
    pub(super) start: Expr,
    pub(super) stop: Expr,
    /// None: 1.
    pub(super) step: Option<Expr>,
}

impl Series {
    /// The table function's name, without PostgreSQL's `PG_CATALOG.` qualifier.
    pub(super) const NAME: &'static str = "GENERATE_SERIES";

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
    pub(super) fn for_each(
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
    pub(super) fn constant_rows(&self) -> Option<f64> {
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
pub(super) enum PlannedRows {
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
    pub(super) fn rows(&self, reader: &Reader) -> Result<Vec<Vec<Value>>> {
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
    pub(super) fn columns(&self) -> &[Column] {
        match self {
            PlannedRows::Query(plan) => &plan.columns,
            PlannedRows::SetOperation { left, .. } => left.columns(),
        }
    }

    pub(super) fn reusable(&self) -> bool {
        match self {
            PlannedRows::Query(plan) => plan.reusable,
            PlannedRows::SetOperation { left, right, .. } => left.reusable() && right.reusable(),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Source {
    pub(super) kind: SourceKind,
    pub(super) offset: usize,
    pub(super) width: usize,
    pub(super) outer: bool,
    /// ON conditions of an outer join (a row that fails them does not match).
    pub(super) on: Vec<Expr>,
    /// Conjuncts evaluable once this source is bound (applied after outer-join padding).
    pub(super) filters: Vec<Expr>,
    /// Conjuncts its index access's key range implies: evaluated only on rows the index
    /// scan cannot vouch for (a version rebuilt from undo, a delete-marked entry, ...).
    pub(super) index_filters: Vec<Expr>,
    /// The object EXPLAIN PLAN names for it: a table's or fixed view's name, an inline
    /// view's or a table function's alias (empty without one).
    pub(super) name: String,
    /// The columns of this source the query reads (None: all of them); a table source
    /// decodes only these.
    pub(super) needed: Option<Arc<[bool]>>,
    /// `needed` for a row the index vouches for (`index_filters` not evaluated).
    pub(super) needed_vouched: Option<Arc<[bool]>>,
    /// The second source of a FULL join (also `outer`): its rows that match no row of the
    /// first are added, the first's columns NULL.
    pub(super) full: bool,
    /// A table source whose last column is its ROWID pseudo-column: the table's object id,
    /// which the rowid text carries. Its reads fill that column with each row's address.
    pub(super) rowid: Option<u32>,
    /// How the source is joined to the rows before it.
    pub(super) join: Join,
    /// Cost-based plans: what the plan up to and including this level costs and yields.
    pub(super) estimate: Option<Estimate>,
    /// Cost-based plans: what one execution of this source's access costs and yields.
    pub(super) access_estimate: Option<costing::AccessEstimate>,
}

/// How a source is joined to the rows built before it. Every method keeps the join's
/// conditions among the level's conditions: a hash, a sort or a buffer only decides which
/// of the source's rows are tried for each row built so far.
#[derive(Clone, Debug, Default)]
pub(super) enum Join {
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
pub(super) struct MergeKey {
    pub(super) inner: usize,
    pub(super) outer: usize,
    pub(super) op: BinaryOperator,
}

impl Source {
    pub(super) fn new(
        kind: SourceKind,
        offset: usize,
        width: usize,
        name: String,
        outer: bool,
    ) -> Source {
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
            rowid: None,
            join: Join::NestedLoops,
            estimate: None,
            access_estimate: None,
        }
    }
}

/// A planned query.
pub struct QueryPlan {
    pub(super) sources: Vec<Source>,
    pub(super) width: usize,
    pub(super) rownum_filters: Vec<Expr>,
    pub(super) grouped: Option<GroupedPlan>,
    pub(super) projection: Vec<Expr>,
    pub(super) order_by: Vec<(Expr, bool, bool)>,
    pub(super) distinct: bool,
    pub(super) offset: Option<Expr>,
    pub(super) fetch: Option<Expr>,
    pub columns: Vec<Column>,
    /// Whether the plan holds nothing read at planning time (subquery results, views'
    /// rows): then it can run again as long as the dictionary it was made against is
    /// current.
    pub reusable: bool,
    /// One table, and no expression that touches blocks (sequences, subqueries): a row can
    /// be checked and emitted while its block's latch is held
    /// (`ReadOptions::visit_under_latch`).
    pub(super) rows_touch_no_block: bool,
    /// Whether the cost-based optimizer planned it (else the rules did).
    pub costed: bool,
    /// Cost-based plans: what the whole plan costs and yields.
    pub estimate: Option<Estimate>,
    /// Cost-based plans: the estimates of the steps above the join (grouping, DISTINCT,
    /// ORDER BY, ROWNUM), in the order `query_node` adds them.
    pub(super) above_estimates: Vec<Estimate>,
    /// `FOR UPDATE`: the tables whose rows the query locks. The rows `execute` returns
    /// carry, after the visible columns, one ROWID per table here (NULL for an outer join's
    /// missing row), for the session to lock them and drop them.
    pub for_update: Option<ForUpdatePlan>,
}

/// What `SELECT ... FOR UPDATE [OF ...] [NOWAIT | WAIT n | SKIP LOCKED]` locks, and how it
/// waits for a row another transaction holds.
#[derive(Debug, Clone)]
pub struct ForUpdatePlan {
    pub tables: Vec<Arc<TableDef>>,
    pub wait: ast::LockWait,
}

pub(super) struct GroupedPlan {
    pub(super) keys: Vec<Expr>,
    pub(super) aggregates: Vec<Aggregate>,
    pub(super) having: Option<Expr>,
}

impl Source {
    /// The table source carries its ROWID pseudo-column, one column after its own.
    pub(super) fn carry_rowid(&mut self, object_id: u32) {
        self.width += 1;
        self.rowid = Some(object_id);
    }
}

impl QueryPlan {
    /// Settles what is derived from the rest of the plan: whether it can run again
    /// (`read_rows`: something was read while planning), whether rows are checked under the
    /// block latch, and which columns each source decodes.
    pub(super) fn finish(&mut self, read_rows: bool) {
        debug_assert!(
            self.sources
                .iter()
                .all(|source| source.offset + source.width <= self.width),
            "every source's columns are within the row"
        );
        debug_assert_eq!(
            self.sources
                .iter()
                .map(|source| source.width)
                .sum::<usize>(),
            self.width,
            "the sources' columns make up the row"
        );
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
    pub(super) fn rename_columns(
        &mut self,
        names: &[String],
        mismatch: impl FnOnce() -> Error,
    ) -> Result<()> {
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
            if let SourceKind::Table {
                access: Access::Rowid(value),
                ..
            } = &source.kind
            {
                expressions.push(value);
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

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;

    fn number(value: i64) -> Value {
        Value::integer(value)
    }

    fn series(start: Value, stop: Value, step: Option<Value>) -> Series {
        Series {
            start: Expr::Constant(start),
            stop: Expr::Constant(stop),
            step: step.map(Expr::Constant),
        }
    }

    fn values(series: &Series) -> Result<Vec<Decimal>> {
        let mut values = Vec::new();
        series.for_each(&testing::context(), &mut |position, value| {
            assert_eq!(position, values.len() as u64);
            values.push(value);
            Ok(true)
        })?;
        Ok(values)
    }

    fn decimals(values: &[i64]) -> Vec<Decimal> {
        values.iter().map(|value| Decimal::from(*value)).collect()
    }

    #[test]
    fn a_series_runs_from_start_to_stop_by_step_either_way() {
        let up = series(number(1), number(10), Some(number(3)));
        assert_eq!(values(&up).unwrap(), decimals(&[1, 4, 7, 10]));
        assert_eq!(up.constant_rows(), Some(4.0));
        let down = series(number(5), number(1), Some(number(-2)));
        assert_eq!(values(&down).unwrap(), decimals(&[5, 3, 1]));
        assert_eq!(down.constant_rows(), Some(3.0));
        let by_one = series(number(1), number(3), None);
        assert_eq!(values(&by_one).unwrap(), decimals(&[1, 2, 3]));
        assert_eq!(by_one.constant_rows(), Some(3.0));
    }

    #[test]
    fn a_series_takes_fractional_steps() {
        let quarters = series(
            number(0),
            number(1),
            Some(Value::Number(Decimal::new(25, 2))),
        );
        let expected: Vec<Decimal> = (0..=4).map(|k| Decimal::new(25 * k, 2)).collect();
        assert_eq!(values(&quarters).unwrap(), expected);
        assert_eq!(quarters.constant_rows(), Some(5.0));
    }

    #[test]
    fn a_series_past_its_stop_or_with_a_null_argument_is_empty() {
        let backwards = series(number(5), number(1), None);
        assert_eq!(values(&backwards).unwrap(), Vec::new());
        assert_eq!(backwards.constant_rows(), Some(0.0));
        let null = series(number(1), Value::Null, None);
        assert_eq!(values(&null).unwrap(), Vec::new());
        assert_eq!(null.constant_rows(), None);
    }

    #[test]
    fn a_series_with_step_zero_is_ora_01428() {
        let still = series(number(1), number(5), Some(number(0)));
        assert_eq!(values(&still).unwrap_err().code(), 1428);
        assert_eq!(still.constant_rows(), None);
    }

    #[test]
    fn a_series_stops_when_its_visitor_does() {
        let long = series(number(1), number(1_000_000), None);
        let mut seen = Vec::new();
        let finished = long
            .for_each(&testing::context(), &mut |_, value| {
                seen.push(value);
                Ok(seen.len() < 3)
            })
            .unwrap();
        assert!(!finished);
        assert_eq!(seen, decimals(&[1, 2, 3]));
    }

    #[test]
    fn rename_columns_takes_a_list_of_the_plans_width_or_none() {
        let mut plan = testing::plan(2);
        let mismatch = || Error::new(32038, "mismatch");
        plan.rename_columns(&[], mismatch).unwrap();
        assert_eq!(plan.columns[0].name, "C0");
        let names = ["A".to_string(), "B".to_string()];
        plan.rename_columns(&names, mismatch).unwrap();
        let renamed: Vec<&str> = plan
            .columns
            .iter()
            .map(|column| column.name.as_str())
            .collect();
        assert_eq!(renamed, ["A", "B"]);
        let error = plan.rename_columns(&names[..1], mismatch).unwrap_err();
        assert_eq!(error.code(), 32038);
        assert_eq!(plan.columns[0].name, "A");
    }
}
