//! Name resolution: the scope of a query block's columns, and the FROM list's references
//! (tables, views, WITH queries, inline views, joins, table functions) made into sources;
//! USING and NATURAL merges, outer columns of enclosing queries, sequences.

use std::sync::Arc;

use super::plan::{Access, PlannedRows, QueryPlan, Series, Source, SourceKind};
use super::planner::{arrange_sources, level_of, plan_nested, split_conjuncts, Planner};
use super::reader::{BindValues, Reader};
use crate::error::{Error, Result};
use crate::sql::eval::{Expr, Function};
use crate::syntax::ast::{self, BinaryOperator};
use crate::types::{Column, DataType, Value};

#[derive(Clone, Debug)]
pub(super) struct ScopeColumn {
    pub(super) qualifier: String,
    pub(super) name: String,
    pub(super) data_type: Option<DataType>,
    /// One of the two columns a USING or NATURAL join merged: an unqualified name and `*`
    /// reach the merged column (`Scope::merged`) instead.
    pub(super) merged: bool,
    /// A pseudo-column (a table's ROWID): reached by its name, left out of `*` and of
    /// NATURAL joins.
    pub(super) hidden: bool,
}

impl ScopeColumn {
    /// The ROWID pseudo-column of the table `qualifier` names: hidden, its address's text.
    pub(super) fn rowid(qualifier: String) -> ScopeColumn {
        ScopeColumn {
            qualifier,
            name: ROWID.to_string(),
            data_type: Some(ROWID_TYPE),
            merged: false,
            hidden: true,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct Scope {
    pub(super) columns: Vec<ScopeColumn>,
    /// The columns USING and NATURAL joins merged, in order: name, value (the left column,
    /// the right one for a RIGHT join, COALESCE of both for a FULL join), type.
    pub(super) merged: Vec<(String, Expr, Option<DataType>)>,
}

impl Scope {
    pub(super) fn resolve(&self, table: Option<&str>, name: &str) -> Result<Option<usize>> {
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
    let planned = plan_nested(reader, binds, &view.query, &[], &[]);
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

impl Planner<'_, '_> {
    pub(super) fn add_reference(
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
                let rowid = match &kind {
                    SourceKind::Table { table, .. } if self.names_rowid => Some(table.object_id),
                    _ => None,
                };
                self.add_source(kind, qualifier, name.name.clone(), &columns, outer, sources);
                if let Some(object_id) = rowid {
                    self.add_rowid_column(object_id, sources);
                }
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
                let (plan, _) = plan_nested(self.reader, self.binds, query, &[], self.ctes)?;
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
                                !right.hidden
                                    && self.scope.columns[start..before]
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

    pub(super) fn sequence_reference(
        &self,
        table: Option<&str>,
        name: &str,
    ) -> Result<Option<Expr>> {
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

    /// For a WHERE conjunct with `(+)` marks, the source they make optional: every marked
    /// expression must read columns of that one source (ORA-01468 otherwise).
    pub(super) fn outer_joined_source(
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

    /// Plans the WITH query at `position` in `ctes` where a FROM list names it: it sees the
    /// WITH queries defined before it, not itself; its column list renames its columns.
    fn plan_cte(&mut self, position: usize) -> Result<QueryPlan> {
        let cte = &self.ctes[position];
        let (mut plan, _) = plan_nested(
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
    pub(super) fn add_planned_source(
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
            names_rowid: self.names_rowid,
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
            for_update: None,
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

    /// Adds a source of `kind` to the FROM list: its columns to the scope, qualified by
    /// `qualifier`, after those already there.
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
                hidden: false,
            });
        }
        sources.push(Source::new(kind, offset, columns.len(), name, outer));
    }

    /// Gives the table source just added its ROWID pseudo-column: one more column after
    /// its own, hidden, that its reads fill with each row's address (`Source::rowid`).
    fn add_rowid_column(&mut self, object_id: u32, sources: &mut [Source]) {
        let source = sources.last_mut().expect("the table source just added");
        let qualifier = self.scope.columns[source.offset].qualifier.clone();
        self.scope.columns.push(ScopeColumn::rowid(qualifier));
        source.carry_rowid(object_id);
    }

    /// The outer query's column `table.name` as an `Expr::Outer` reference, if this is a
    /// subquery and the outer scope has it.
    pub(super) fn outer_reference(
        &mut self,
        table: Option<&str>,
        name: &str,
    ) -> Result<Option<Expr>> {
        for depth in 0..self.outer.len() {
            if let Some(column) = self.outer[depth].resolve(table, name)? {
                return Ok(Some(self.outer_at(depth, column)));
            }
        }
        Ok(None)
    }

    /// `Expr::Outer` for column `column` of the enclosing scope at `depth`, recorded once.
    pub(super) fn outer_at(&mut self, depth: usize, column: usize) -> Expr {
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

/// The pseudo-column that names a row's address, and its type: the extended ROWID text
/// (`RowId::to_oracle_string`), as ROWIDTOCHAR shows it.
pub(super) const ROWID: &str = "ROWID";
pub(super) const ROWID_TYPE: DataType = DataType::Varchar2 { length: 18 };

/// Whether a statement's tree names the ROWID pseudo-column anywhere (subqueries too), so
/// that the tables it reads carry it.
pub(super) fn names_rowid(node: ast::Node) -> bool {
    let mut found = false;
    node.walk(&mut |node| {
        if let ast::Node::Expr(ast::Expr::Column { name, .. }) = node {
            found |= name == ROWID;
        }
    });
    found
}

pub(super) fn invalid_column(table: Option<&str>, name: &str) -> Error {
    match table {
        Some(table) => Error::new(904, format!("\"{table}\".\"{name}\": invalid identifier")),
        None => Error::invalid_identifier(name),
    }
}
