//! Queries: a SELECT's query blocks planned into a `QueryPlan` and the plan run into rows;
//! also the plans of UPDATE and DELETE (`TablePlan`) and of INSERT's VALUES rows.
//!
//! ```text
//!   plan_query ──> planner.rs   plan_subquery: one query block
//!                    │ resolve.rs        the FROM list as sources and a scope of columns:
//!                    │                   tables, views, WITH queries, inline views, join
//!                    │                   groups, generate_series, table functions
//!                    │ set_operation.rs  UNION / INTERSECT / MINUS branches, one source
//!                    │ compile.rs        expressions against the scope; a subquery runs now
//!                    │                   (its rows become constants) or stays a plan
//!                    │ aggregate.rs      GROUP BY keys and aggregates: the group row
//!                    ▼
//!                  arrange_sources: join order, access paths, join methods
//!                    by cost: costing.rs  |  by rule: rule.rs
//!                    ▼
//!                  QueryPlan (plan.rs) ──> explain.rs: PlanLines, DBMS_XPLAN's table
//!
//!   execute ────> execute.rs   above the join: ROWNUM, grouping (aggregate.rs), projection,
//!                    │         DISTINCT, ORDER BY, OFFSET / FETCH
//!                    ▼
//!                  join.rs      one level per source, in join order: nested loops, hash,
//!                    │          merge or cartesian; outer rows padded, FULL joins completed
//!                    ├──> index_scan.rs  the rowids an index probe proposes
//!                    ▼
//!                  reader.rs    full scans and rowid fetches a block at a time, the row
//!                               versions the snapshot sees, the work area
//!
//!   UPDATE, DELETE: table_plan.rs, one table's access path (costing.rs, else rule.rs) and
//!   WHERE conjuncts (compile.rs), its rows read through index_scan.rs and reader.rs.
//! ```
//!
//! A query block (`planner::plan_subquery`). A set operation, or a parenthesized query with
//! its own ORDER BY or row limit, is planned as the one source of `SELECT * FROM (...)`,
//! whose columns are named after the first branch's. Every other FROM item becomes a source
//! with its columns at an offset of the row the join builds (`Scope`). A WHERE conjunct goes
//! to the first level where every column it reads is bound (`level_of`); one on ROWNUM is
//! applied after the join, one with `(+)` becomes an ON condition of the table it makes
//! optional. An outer join's conditions stay with its optional source: a RIGHT join is
//! planned as the LEFT join of its sides swapped, a FULL join on the first two sources, and
//! a join nested on the optional side (or a FULL join after other sources) is planned apart
//! as one source, a join group (`add_join_group`).
//!
//! Cost or rule (`costing::costed`). `optimizer_mode = RULE` plans by rule; CHOOSE costs a
//! block when one of its tables has gathered statistics; ALL_ROWS and FIRST_ROWS (costed
//! alike) always cost, with Oracle's defaults for tables without statistics. Bind values
//! are not peeked: a bind is an unknown value to the estimates. `QueryPlan::costed` says
//! which planned it; a rule-based plan's DBMS_XPLAN output ends with Oracle's note.
//!
//! Join order (`arrange_sources`). With `(+)` joins the optional tables go last, each group
//! in FROM order. Otherwise a costed inner join of 2 to `JOIN_SEARCH_SOURCES_MAX` sources
//! takes the cheapest left-deep order (`costing::order_by_cost`: each subset of sources'
//! cheapest plan extended by one more, each level with its cheapest access and method). By
//! rule (or beyond that many sources), an inner join of more than two sources puts next the
//! first source in FROM order that a conjunct connects to those placed
//! (`rule::order_connected`). ANSI outer joins keep FROM order. The conjuncts then move to
//! their level in the new order.
//!
//! Access paths. For a table, `rule::access_candidates` lists what each index allows from
//! the conjuncts evaluable at its level (an outer join's ON conditions): the longest prefix
//! of index columns compared by equality with constants, binds and earlier sources' columns,
//! then on the next column an IN list (INLIST ITERATOR) or, if that column is kept
//! ascending, a range (`<`, `<=`, `>`, `>=`, BETWEEN). By rule the best ranked wins (`rule::choose_access`: equality on
//! every column of a unique index, an INDEX UNIQUE SCAN, then the longest prefix, an INDEX
//! RANGE SCAN), else TABLE ACCESS FULL; by cost, the cheapest of a full scan and each
//! candidate (`costing::cheapest_access`). The index narrows what is read; an entry proposes
//! a rowid, and the row version the statement's snapshot sees decides. The conjuncts the
//! key range came from are skipped only on rows the scan vouches for (`Vouching`: an exact
//! NUMBER probe, a live entry, the row's current committed version); every other conjunct
//! is evaluated on every row read.
//!
//! Join methods (`plan::Join`, run by `join.rs`). NESTED LOOPS runs the source's access for
//! each row built so far (an index probed with its values); HASH JOIN reads the source once
//! into a hash table on its column equalities with earlier sources; MERGE JOIN reads it once
//! sorted on one key column (an equality, else `<`, `<=`, `>`, `>=`) and finds each row's
//! range by binary search; MERGE JOIN CARTESIAN reads it once into a buffer. Keys join
//! columns of one type kind (not CHAR), so that equality is SQL's. Every method keeps the
//! join's conditions among the level's: the hash, the sort or the buffer only chooses which
//! rows are tried. By cost, each level takes the cheapest of nested loops and the others
//! (`costing::level_choice`); by rule (`rule::choose_joins_by_rule`), a fully scanned table
//! that equalities join is hashed, a planned source after the first is hashed or buffered,
//! and the rest are nested loops.
//!
//! Hints are read once per query block (`Hints::parse` in `plan_subquery`; a join group
//! takes its block's, an UPDATE or DELETE its statement's, in `plan_table_statement`): only
//! CACHE and NOCACHE act, on that block's full scans.
//!
//! What runs when. A subquery in an expression that reads no outer column runs once, at plan
//! time, under the statement's snapshot, and becomes constants; so are the rows of views
//! (v$, dba_) and table functions read at plan time. A plan that read nothing so
//! (`QueryPlan::reusable`) is kept by its child cursor and runs again until DDL invalidates
//! it; any other is planned again at each execution. At each execution: inline views, set
//! operations and join groups run (under nested loops, once per row before them); hash and
//! sorted tables are built at their first probe (`JoinTables`); index probe values (binds,
//! earlier sources' columns) are evaluated at each probe, and one that cannot probe the
//! index (a number against a text column) reads the table whole instead; a correlated
//! subquery, planned once, runs for each outer row (`eval::Subquery`).
//!
//! Rows are read a block at a time (`Reader::read_block_rows`), decoded under the block's
//! latch straight from the block; a plan of one table that touches no other block checks
//! and emits them there too (`ReadOptions::visit_under_latch`). Reads are consistent: every
//! table is read as of the statement's snapshot SCN through undo (see `transaction`), plus
//! the reading transaction's own changes.
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
#[cfg(test)]
mod testing;

use crate::error::{Error, Result};
use crate::syntax::ast;
use crate::types::RowSet;

pub use crate::sql::optimizer::Estimate;
pub use compile::{compile_row_free, heading, literal_value, plan_values, ValuesPlan};
pub use execute::execute;
pub use explain::{explain_insert, explain_query, explain_table_statement, format_plan, PlanLine};
pub use index_scan::{index_rowids, IndexScan, IN_LIST_PROBES_MAX};
pub use plan::{Access, ForUpdatePlan, QueryPlan};
pub use reader::{
    evaluate_constant, BindValues, ReadOptions, Reader, RowFound, SqlFunctions, TableFunctions,
    Vouching, WorkArea,
};
pub use table_plan::{matching_rows, plan_table_statement, TablePlan};

use planner::plan_subquery;

/// Plans and runs a query; returns its columns and rows.
/// FOR UPDATE is the session's to run (it locks rows): here, inside another statement or a
/// read-only context, it is ORA-01786.
pub fn run_query(reader: &Reader, binds: &mut BindValues, query: &ast::Query) -> Result<RowSet> {
    let plan = plan_query(reader, binds, query)?;
    if plan.for_update.is_some() {
        return Err(Error::new(
            1786,
            "FOR UPDATE of this query expression is not allowed",
        ));
    }
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
