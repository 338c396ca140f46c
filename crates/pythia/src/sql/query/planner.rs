//! Turning a query block into a `QueryPlan`: the FROM list's sources, the WHERE conjuncts
//! placed at their levels, the join order and access paths (by cost or by rule), grouping,
//! projection, ORDER BY and the row limit.

use std::sync::Arc;

use super::aggregate::{contains_aggregate, Grouping};
use super::compile::heading;
use super::costing;
use super::plan::{ForUpdatePlan, GroupedPlan, QueryPlan, Source, SourceKind};
use super::reader::{BindValues, Reader};
use super::resolve::{names_rowid, Scope};
use super::rule::{choose_access, choose_joins_by_rule, order_connected};
use super::set_operation::plan_set_expression;
use crate::catalog::TableDef;
use crate::error::{Error, Result};
use crate::sql::eval::Expr;
use crate::sql::hints::Hints;
use crate::sql::optimizer::{self, Estimate};
use crate::syntax::ast::{self, BinaryOperator};
use crate::types::Column;

/// `plan_query` for a query inside others whose scopes are `outer` (the nearest first),
/// where the WITH queries `ctes` of enclosing queries are visible: also returns the outer
/// columns the plan reads, as (depth in `outer`, column) (empty when not correlated).
pub(super) fn plan_subquery(
    reader: &Reader,
    binds: &mut BindValues,
    query: &ast::Query,
    outer: &[&Scope],
    ctes: &[ast::CommonTableExpression],
) -> Result<(QueryPlan, Vec<(usize, usize)>)> {
    // This query's WITH queries follow the enclosing ones: a later name hides an earlier.
    let ctes: Vec<ast::CommonTableExpression> = ctes.iter().chain(&query.with).cloned().collect();
    let ctes = ctes.as_slice();
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
        // FOR UPDATE locks rows by their rowids: its tables carry them.
        names_rowid: query.for_update.is_some() || names_rowid(ast::Node::Query(query)),
    };
    let set_operation = planned_source.is_some();
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
                    if !column.hidden
                        && qualifier
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
    // FOR UPDATE: the locked tables' rowids follow the visible columns.
    let for_update = match &query.for_update {
        Some(lock) => {
            if set_operation || select.distinct || planner.grouping.is_some() {
                return Err(for_update_not_allowed());
            }
            let tables = locked_tables(&mut planner, &sources, &lock.columns)?;
            for (_, rowid_column) in &tables {
                projection.push(Expr::Column(*rowid_column));
            }
            Some(ForUpdatePlan {
                tables: tables.into_iter().map(|(table, _)| table).collect(),
                wait: lock.wait,
            })
        }
        None => None,
    };
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
        for_update,
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
pub(super) fn arrange_sources(
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
                    let (chosen, implied) =
                        choose_access(table, source.offset, source.rowid.is_some(), &candidates);
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

enum OrderKey {
    Output(usize),
    Computed(Expr),
}

/// `plan_subquery` for a query inside another (an inline view, a view, a WITH query, a set
/// operation's branch, a subquery in an expression): FOR UPDATE is a top-level query's
/// only (ORA-01786), as its rowids are the session's to lock.
pub(super) fn plan_nested(
    reader: &Reader,
    binds: &mut BindValues,
    query: &ast::Query,
    outer: &[&Scope],
    ctes: &[ast::CommonTableExpression],
) -> Result<(QueryPlan, Vec<(usize, usize)>)> {
    let planned = plan_subquery(reader, binds, query, outer, ctes)?;
    if planned.0.for_update.is_some() {
        return Err(for_update_not_allowed());
    }
    Ok(planned)
}

/// The tables FOR UPDATE locks, with the scope column of each one's ROWID: those the OF
/// columns belong to, or without OF every table of the FROM list.
fn locked_tables(
    planner: &mut Planner,
    sources: &[Source],
    columns: &[ast::Expr],
) -> Result<Vec<(Arc<TableDef>, usize)>> {
    let mut wanted: Vec<usize> = Vec::new();
    for column in columns {
        let Expr::Column(position) = planner.compile(column)? else {
            return Err(Error::new(904, "invalid identifier in FOR UPDATE OF"));
        };
        wanted.push(position);
    }
    let mut tables = Vec::new();
    for source in sources {
        let (SourceKind::Table { table, .. }, Some(_)) = (&source.kind, source.rowid) else {
            continue;
        };
        let own = source.offset..source.offset + source.width;
        if wanted.is_empty() || wanted.iter().any(|position| own.contains(position)) {
            tables.push((table.clone(), own.end - 1));
        }
    }
    if tables.is_empty() {
        return Err(for_update_not_allowed());
    }
    Ok(tables)
}

fn for_update_not_allowed() -> Error {
    Error::new(1786, "FOR UPDATE of this query expression is not allowed")
}

pub(super) fn unsupported(what: &str) -> Error {
    Error::new(3001, format!("unimplemented feature: {what}"))
}

pub(super) fn split_conjuncts<'e>(expr: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>) {
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

/// Moves the filters an index access's key range implies (positions in `filters`) to
/// `index_filters`: they are evaluated only on rows the index cannot vouch for
/// (IndexScan::exact).
pub(super) fn split_implied(source: &mut Source, implied: &[usize]) {
    let filters = std::mem::take(&mut source.filters);
    for (position, filter) in filters.into_iter().enumerate() {
        if implied.contains(&position) {
            source.index_filters.push(filter);
        } else {
            source.filters.push(filter);
        }
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
pub(super) fn level_of(sources: &[Source], expr: &Expr) -> usize {
    sources
        .iter()
        .rposition(|source| expr.reads_columns_in(source.offset..source.offset + source.width))
        .unwrap_or(0)
}

pub(super) struct Planner<'r, 'a> {
    pub(super) reader: &'r Reader<'a>,
    pub(super) binds: &'r mut BindValues,
    pub(super) scope: Scope,
    pub(super) grouping: Option<Grouping>,
    /// A subquery ran while planning: its rows are in the plan.
    pub(super) read_rows: bool,
    /// The scopes of the queries this one is inside, the nearest first: names not found
    /// here are looked up there, in that order, and become `Expr::Outer` references (empty
    /// for a top-level query).
    pub(super) outer: &'r [&'r Scope],
    /// The outer columns this query reads, as (depth in `outer`, column), in order of first
    /// use: `Expr::Outer(k)` reads `outer_columns[k]`.
    pub(super) outer_columns: Vec<(usize, usize)>,
    /// The WITH queries visible here, innermost last.
    pub(super) ctes: &'r [ast::CommonTableExpression],
    /// Whether `(+)` may appear: in WHERE conjuncts.
    pub(super) outer_join_marks_allowed: bool,
    /// The query block's hints (CACHE / NOCACHE for its tables).
    pub(super) hints: Hints,
    /// The statement names ROWID: its tables get the pseudo-column
    /// (`Planner::add_rowid_column`).
    pub(super) names_rowid: bool,
}

impl<'r, 'a> Planner<'r, 'a> {
    /// A planner for expressions outside any query: no columns, no outer queries, no hints
    /// (UPDATE and DELETE add their table's columns and their hints).
    pub(super) fn row_free(reader: &'r Reader<'a>, binds: &'r mut BindValues) -> Planner<'r, 'a> {
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
            names_rowid: false,
        }
    }
}
