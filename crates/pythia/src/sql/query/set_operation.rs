//! Set operations: planning UNION, INTERSECT and MINUS branches, and combining their rows.

use std::collections::HashSet;

use super::plan::PlannedRows;
use super::planner::plan_nested;
use super::reader::{BindValues, Reader};
use crate::error::{Error, Result};
use crate::syntax::ast;
use crate::types::{GroupKey, Value};

/// UNION, UNION ALL, INTERSECT, MINUS of two row lists, with rows compared as DISTINCT
/// compares them (NULLs equal). All but UNION ALL return each row once, in the order of its
/// first appearance.
pub(super) fn set_operation(
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
pub(super) fn plan_set_expression(
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
                plan_nested(reader, binds, &query, &[], ctes)?.0,
            )))
        }
        ast::SetExpr::Query(query) => Ok(PlannedRows::Query(Box::new(
            plan_nested(reader, binds, query, &[], ctes)?.0,
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[Option<i64>]) -> Vec<Vec<Value>> {
        values
            .iter()
            .map(|value| vec![value.map_or(Value::Null, Value::integer)])
            .collect()
    }

    fn combine(op: ast::SetOperator) -> Vec<Vec<Value>> {
        let left = rows(&[Some(1), Some(2), Some(2), None]);
        let right = rows(&[Some(2), Some(3), None]);
        set_operation(op, left, right)
    }

    #[test]
    fn union_all_keeps_every_row_of_both_in_order() {
        assert_eq!(
            combine(ast::SetOperator::UnionAll),
            rows(&[Some(1), Some(2), Some(2), None, Some(2), Some(3), None])
        );
    }

    #[test]
    fn union_keeps_each_row_once_in_order_of_first_appearance_nulls_equal() {
        assert_eq!(
            combine(ast::SetOperator::Union),
            rows(&[Some(1), Some(2), None, Some(3)])
        );
    }

    #[test]
    fn intersect_and_minus_keep_the_left_rows_the_right_has_or_lacks_once_each() {
        assert_eq!(combine(ast::SetOperator::Intersect), rows(&[Some(2), None]));
        assert_eq!(combine(ast::SetOperator::Minus), rows(&[Some(1)]));
        let left = rows(&[Some(1), Some(1), None]);
        assert_eq!(
            set_operation(ast::SetOperator::Minus, left, Vec::new()),
            rows(&[Some(1), None])
        );
    }

    #[test]
    fn rows_are_compared_whole() {
        let row = |number, text: &str| vec![Value::integer(number), Value::text(text)];
        let left = vec![row(1, "a"), row(1, "b")];
        let right = vec![row(1, "a")];
        assert_eq!(
            set_operation(ast::SetOperator::Minus, left, right),
            vec![row(1, "b")]
        );
    }
}
