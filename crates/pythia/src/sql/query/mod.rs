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

mod aggregate;
mod compile;
mod costing;
mod execute;
mod explain;
mod index_scan;
mod join;
mod plan;
mod planner;
mod reader;
mod resolve;
mod rule;
mod set_operation;
mod table_plan;

use crate::error::Result;
use crate::syntax::ast;
use crate::types::RowSet;

pub use crate::sql::optimizer::Estimate;
pub use compile::{compile_row_free, heading, literal_value, plan_values, ValuesPlan};
pub use execute::execute;
pub use explain::{explain_insert, explain_query, explain_table_statement, format_plan, PlanLine};
pub use index_scan::{index_rowids, IndexScan, IN_LIST_PROBES_MAX};
pub use plan::{Access, QueryPlan};
pub use reader::{
    evaluate_constant, BindValues, ReadOptions, Reader, RowFound, TableFunctions, Vouching,
    WorkArea,
};
pub use table_plan::{matching_rows, plan_table_statement, TablePlan};

use planner::plan_subquery;

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
