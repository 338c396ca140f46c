//! The plan of an UPDATE or DELETE (`TablePlan`): its table's access path and WHERE
//! conjuncts, and the rows they match.

use std::borrow::Cow;
use std::sync::Arc;

use super::costing;
use super::index_scan::access_rowids;
use super::plan::Access;
use super::planner::{split_conjuncts, Planner};
use super::reader::{BindValues, ReadOptions, Reader};
use super::resolve::{names_rowid, ScopeColumn};
use super::rule::choose_access;
use crate::access::heap::RowId;
use crate::catalog::TableDef;
use crate::error::Result;
use crate::sql::eval::{Context, Expr};
use crate::sql::hints::Hints;
use crate::syntax::ast;
use crate::types::Value;

pub struct TablePlan {
    pub access: Access,
    /// The statement's CACHE (true) / NOCACHE (false) hint on its table, for a full scan.
    pub cache: Option<bool>,
    /// Cost-based plans: what the access is estimated to cost and yield.
    pub(super) access_estimate: Option<costing::AccessEstimate>,
    pub filters: Vec<Expr>,
    pub expressions: Vec<Expr>,
    /// Whether the plan holds nothing read at planning time (a subquery's rows), so that
    /// the statement's cursor can keep it, as a query's keeps its [`QueryPlan`].
    pub reusable: bool,
    /// The statement names ROWID: its expressions read rows with the table's ROWID
    /// pseudo-column after its columns (`TablePlan::scope_row`); the table's object id.
    pub rowid: Option<u32>,
}

impl TablePlan {
    /// The row the plan's expressions read for the table's row `current` at `rowid`: the
    /// row itself, or with the ROWID pseudo-column after it when the statement names it.
    pub fn scope_row<'v>(&self, current: &'v [Value], rowid: RowId) -> Cow<'v, [Value]> {
        match self.rowid {
            None => Cow::Borrowed(current),
            Some(object_id) => {
                let mut row = Vec::with_capacity(current.len() + 1);
                row.extend_from_slice(current);
                row.push(Value::Text(rowid.to_oracle_string(object_id)));
                Cow::Owned(row)
            }
        }
    }

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
            hidden: false,
        });
    }
    let rowid = expressions
        .iter()
        .copied()
        .chain(where_clause)
        .any(|expr| names_rowid(ast::Node::Expr(expr)))
        .then_some(table.object_id);
    if rowid.is_some() {
        planner
            .scope
            .columns
            .push(ScopeColumn::rowid(qualifier.clone()));
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
    let (access, access_estimate) =
        match costing::table_access(reader, table, rowid.is_some(), &conditions) {
            Some((access, estimate)) => (access, Some(estimate)),
            None => (
                choose_access(table, 0, rowid.is_some(), &conditions).0,
                None,
            ),
        };
    let cache = planner.hints.cache(&qualifier);
    Ok(TablePlan {
        access,
        cache,
        access_estimate,
        filters,
        expressions,
        reusable: !planner.read_rows,
        rowid,
    })
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
        if plan.accepts(&plan.scope_row(values, rowid), &context)? {
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
        access @ (Access::Index { .. } | Access::Rowid(_)) => {
            let Some(scan) = access_rowids(reader, table, access, &[])? else {
                reader.scan_table_columns(table, scan_options, &mut keep)?;
                return Ok(rows);
            };
            let options = ReadOptions {
                segment: matches!(access, Access::Rowid(_)).then_some(table.segment.block),
                ..ReadOptions::default()
            };
            reader.fetch_rows(table, &scan.rowids, options, &mut |found, values| {
                keep(scan.rowids[found.position], values)
            })?;
        }
    }
    Ok(rows)
}
