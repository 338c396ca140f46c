//! A plan's steps as EXPLAIN PLAN and DBMS_XPLAN show them: `PlanLine`s numbered in
//! preorder, and their table.

use super::costing;
use super::plan::{Access, Join, PlannedRows, QueryPlan, Source, SourceKind};
use super::table_plan::TablePlan;
use crate::sql::optimizer::{self, Estimate};
use crate::syntax::ast;

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
        Access::Rowid(_) => PlanNode::new("TABLE ACCESS", Some("BY USER ROWID"))
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

#[cfg(test)]
mod tests {
    use super::super::plan::{GroupedPlan, MergeKey};
    use super::super::testing;
    use super::*;
    use crate::sql::eval::Expr;
    use crate::syntax::ast::BinaryOperator;
    use crate::types::Value;

    /// A plan line's place and names: (id, parent, depth, position, operation, options,
    /// object).
    type Shape<'l> = (
        usize,
        Option<usize>,
        usize,
        usize,
        &'l str,
        Option<&'l str>,
        Option<&'l str>,
    );

    fn shapes(lines: &[PlanLine]) -> Vec<Shape<'_>> {
        lines
            .iter()
            .map(|line| {
                (
                    line.id,
                    line.parent_id,
                    line.depth,
                    line.position,
                    line.operation.as_str(),
                    line.options.as_deref(),
                    line.object_name.as_deref(),
                )
            })
            .collect()
    }

    fn joined(mut source: Source, join: Join) -> Source {
        source.join = join;
        source
    }

    #[test]
    fn steps_are_numbered_in_preorder_with_their_parent_depth_and_position() {
        let mut lines = Vec::new();
        PlanNode::new("A", None)
            .over(PlanNode::new("B", None).over(PlanNode::new("D", Some("X"))))
            .over(PlanNode::new("C", None).on("T", "TABLE"))
            .flatten(None, 0, 1, &mut lines);
        assert_eq!(
            shapes(&lines),
            [
                (0, None, 0, 1, "A", None, None),
                (1, Some(0), 1, 1, "B", None, None),
                (2, Some(1), 2, 1, "D", Some("X"), None),
                (3, Some(0), 1, 2, "C", None, Some("T")),
            ]
        );
        assert_eq!(lines[3].object_type.as_deref(), Some("TABLE"));
    }

    #[test]
    fn a_hash_join_lists_its_build_input_first() {
        let mut plan = testing::plan(2);
        plan.sources = vec![
            testing::rows_source(0, 1, "A"),
            joined(testing::rows_source(1, 1, "B"), Join::Hash(vec![(1, 0)])),
        ];
        assert_eq!(
            shapes(&explain_query(&plan)),
            [
                (0, None, 0, 1, "SELECT STATEMENT", None, None),
                (1, Some(0), 1, 1, "HASH JOIN", None, None),
                (2, Some(1), 2, 1, "FIXED TABLE", Some("FULL"), Some("B")),
                (3, Some(1), 2, 2, "FIXED TABLE", Some("FULL"), Some("A")),
            ]
        );
    }

    #[test]
    fn a_left_deep_join_is_under_grouping_distinct_order_by_and_rownum() {
        let mut plan = testing::plan(1);
        let key = MergeKey {
            inner: 2,
            outer: 0,
            op: BinaryOperator::Equal,
        };
        plan.sources = vec![
            testing::rows_source(0, 1, "A"),
            testing::rows_source(1, 1, "B"),
            joined(testing::rows_source(2, 1, "C"), Join::Merge(key)),
        ];
        plan.grouped = Some(GroupedPlan {
            keys: Vec::new(),
            aggregates: Vec::new(),
            having: None,
        });
        plan.distinct = true;
        plan.order_by = vec![(Expr::Column(0), false, false)];
        plan.rownum_filters = vec![Expr::Constant(Value::Boolean(true))];
        assert_eq!(
            shapes(&explain_query(&plan)),
            [
                (0, None, 0, 1, "SELECT STATEMENT", None, None),
                (1, Some(0), 1, 1, "COUNT", Some("STOPKEY"), None),
                (2, Some(1), 2, 1, "SORT", Some("ORDER BY"), None),
                (3, Some(2), 3, 1, "HASH", Some("UNIQUE"), None),
                (4, Some(3), 4, 1, "SORT", Some("AGGREGATE"), None),
                (5, Some(4), 5, 1, "MERGE JOIN", None, None),
                (6, Some(5), 6, 1, "NESTED LOOPS", None, None),
                (7, Some(6), 7, 1, "FIXED TABLE", Some("FULL"), Some("A")),
                (8, Some(6), 7, 2, "FIXED TABLE", Some("FULL"), Some("B")),
                (9, Some(5), 6, 2, "SORT", Some("JOIN"), None),
                (10, Some(9), 7, 1, "FIXED TABLE", Some("FULL"), Some("C")),
            ]
        );
    }

    #[test]
    fn an_outer_cartesian_join_buffers_its_optional_side() {
        let mut plan = testing::plan(2);
        let mut optional = joined(testing::rows_source(1, 1, "B"), Join::Cartesian);
        optional.outer = true;
        plan.sources = vec![testing::rows_source(0, 1, "A"), optional];
        assert_eq!(
            shapes(&explain_query(&plan))[1..],
            [
                (
                    1,
                    Some(0),
                    1,
                    1,
                    "MERGE JOIN",
                    Some("OUTER CARTESIAN"),
                    None
                ),
                (2, Some(1), 2, 1, "FIXED TABLE", Some("FULL"), Some("A")),
                (3, Some(1), 2, 2, "BUFFER", Some("SORT"), None),
                (4, Some(3), 3, 1, "FIXED TABLE", Some("FULL"), Some("B")),
            ]
        );
    }

    fn line(id: usize, operation: &str, options: Option<&str>, object: Option<&str>) -> PlanLine {
        PlanLine {
            id,
            parent_id: id.checked_sub(1),
            depth: id,
            position: 1,
            operation: operation.to_string(),
            options: options.map(str::to_string),
            object_name: object.map(str::to_string),
            object_type: None,
            optimizer: None,
            estimate: None,
        }
    }

    #[test]
    fn a_rule_based_plan_is_a_table_of_id_operation_and_name_and_the_rule_note() {
        let lines = [
            line(0, "SELECT STATEMENT", None, None),
            line(1, "TABLE ACCESS", Some("FULL"), Some("T")),
        ];
        let rule = "-".repeat(35);
        assert_eq!(
            format_plan(&lines.iter().collect::<Vec<_>>()),
            [
                rule.as_str(),
                "| Id  | Operation          | Name |",
                &rule,
                "|   0 | SELECT STATEMENT   |      |",
                "|   1 |  TABLE ACCESS FULL | T    |",
                &rule,
                "",
                "Note",
                "-----",
                "   - rule based optimizer used (consider using cbo)",
            ]
        );
    }

    #[test]
    fn a_costed_plan_shows_rows_bytes_and_cost_right_aligned_and_scaled() {
        let estimate = Estimate {
            cost: 2.4,
            rows: 150_000.0,
            bytes: 3_000_000.0,
        };
        let lines = [
            PlanLine {
                estimate: Some(estimate),
                ..line(0, "SELECT STATEMENT", None, None)
            },
            PlanLine {
                estimate: Some(estimate),
                ..line(1, "TABLE ACCESS", Some("FULL"), Some("T"))
            },
        ];
        let rule = "-".repeat(57);
        assert_eq!(
            format_plan(&lines.iter().collect::<Vec<_>>()),
            [
                rule.as_str(),
                "| Id  | Operation          | Name | Rows | Bytes | Cost |",
                &rule,
                "|   0 | SELECT STATEMENT   |      | 150K | 3000K |    2 |",
                "|   1 |  TABLE ACCESS FULL | T    | 150K | 3000K |    2 |",
                &rule,
            ]
        );
    }

    #[test]
    fn an_insert_loads_its_table_over_its_querys_plan() {
        assert_eq!(
            shapes(&explain_insert("T", None)),
            [
                (0, None, 0, 1, "INSERT STATEMENT", None, None),
                (1, Some(0), 1, 1, "LOAD TABLE CONVENTIONAL", None, Some("T")),
            ]
        );
        let mut plan = testing::plan(1);
        plan.sources = vec![testing::rows_source(0, 1, "DUAL")];
        assert_eq!(
            shapes(&explain_insert("T", Some(&plan)))[2],
            (2, Some(1), 2, 1, "FIXED TABLE", Some("FULL"), Some("DUAL"))
        );
    }
}
