//! Expressions compiled against a scope (`ast::Expr` to `eval::Expr`): columns, binds,
//! row values, subqueries (run at plan time or correlated), and their types and headings.

use std::sync::Arc;

use super::aggregate::aggregate_function;
use super::execute::execute;
use super::plan::QueryPlan;
use super::planner::{plan_nested, unsupported, Planner};
use super::reader::{BindValues, Reader};
use super::resolve::{invalid_column, Scope};
use crate::error::{Error, Result};
use crate::sql::eval::{Expr, Function, Subquery, SubqueryKind};
use crate::syntax::ast::{self, BinaryOperator};
use crate::types::{DataType, RowSet, Value};

impl Planner<'_, '_> {
    pub(super) fn type_of(&self, expr: &ast::Expr) -> Option<DataType> {
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
    pub(super) fn compile_scalar(&mut self, expr: &ast::Expr) -> Result<Expr> {
        let compiled = self.compile(expr)?;
        if compiled.max_column().is_some() {
            return Err(Error::new(
                904,
                "invalid identifier in a row limiting clause",
            ));
        }
        Ok(compiled)
    }

    pub(super) fn compile(&mut self, expr: &ast::Expr) -> Result<Expr> {
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
                let function = match Function::resolve(name, args.len()) {
                    Ok(function) => function,
                    Err(error) => {
                        // A stored PL/SQL function, where the statement can run one.
                        let routine = self
                            .reader
                            .functions
                            .and_then(|functions| functions.resolve(name, args.len()));
                        let Some(routine) = routine else {
                            return Err(error);
                        };
                        let args = args
                            .iter()
                            .map(|arg| self.compile(arg))
                            .collect::<Result<Vec<_>>>()?;
                        return Ok(Expr::Routine(std::sync::Arc::new(routine), args));
                    }
                };
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

    /// Plans a subquery of an expression, with this query's scope as its outer scope. One
    /// that reads no outer column runs now, under the statement's snapshot, and its rows
    /// become constants; a correlated one stays a plan, run for each row with the outer
    /// columns it reads. `one_column`: the subquery must return one column (ORA-00913).
    fn subquery(&mut self, query: &ast::Query, one_column: bool) -> Result<PlannedSubquery> {
        let scopes: Vec<&Scope> = std::iter::once(&self.scope)
            .chain(self.outer.iter().copied())
            .collect();
        let (plan, outer_columns) =
            plan_nested(self.reader, self.binds, query, &scopes, self.ctes)?;
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

    /// The items of a row value `(a, b, ...)`; ORA-00920 for anything else where a row
    /// value is compared.
    fn compile_tuple(&mut self, expr: &ast::Expr) -> Result<Vec<Expr>> {
        let ast::Expr::Tuple(items) = expr else {
            return Err(Error::new(920, "invalid relational operator"));
        };
        items.iter().map(|item| self.compile(item)).collect()
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

/// A subquery of an expression, planned.
enum PlannedSubquery {
    /// It read no outer column and ran at plan time.
    Rows(RowSet),
    /// Correlated: its plan and the outer row's columns it reads.
    Correlated(Arc<QueryPlan>, Vec<Expr>),
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

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;

    fn columns(count: usize) -> Vec<Expr> {
        (0..count).map(Expr::Column).collect()
    }

    fn constants(values: &[Option<i64>]) -> Vec<Expr> {
        values
            .iter()
            .map(|value| Expr::Constant(value.map_or(Value::Null, Value::integer)))
            .collect()
    }

    fn evaluate(expr: &Expr, row: &[Option<i64>]) -> Value {
        let row: Vec<Value> = row
            .iter()
            .map(|value| value.map_or(Value::Null, Value::integer))
            .collect();
        expr.evaluate(&row, &testing::context()).unwrap()
    }

    /// How deep ORs nest in `expr`.
    fn or_depth(expr: &Expr) -> usize {
        match expr {
            Expr::Binary(left, BinaryOperator::Or, right) => {
                1 + or_depth(left).max(or_depth(right))
            }
            _ => 0,
        }
    }

    #[test]
    fn a_row_value_in_a_list_has_sqls_three_valued_result() {
        let list = || {
            vec![
                constants(&[Some(1), Some(2)]),
                constants(&[Some(3), Some(4)]),
                constants(&[Some(5), None]),
            ]
        };
        let is_in = tuple_in(&columns(2), list(), false).unwrap();
        let not_in = tuple_in(&columns(2), list(), true).unwrap();
        assert_eq!(evaluate(&is_in, &[Some(3), Some(4)]), Value::Boolean(true));
        assert_eq!(evaluate(&is_in, &[Some(7), Some(8)]), Value::Boolean(false));
        // (5, 6) = (5, NULL) is unknown, and no other row matches.
        assert_eq!(evaluate(&is_in, &[Some(5), Some(6)]), Value::Null);
        assert_eq!(evaluate(&not_in, &[Some(7), Some(8)]), Value::Boolean(true));
        assert_eq!(evaluate(&not_in, &[Some(5), Some(6)]), Value::Null);
        assert_eq!(
            evaluate(&not_in, &[Some(3), Some(4)]),
            Value::Boolean(false)
        );
    }

    #[test]
    fn a_row_value_in_no_rows_is_false_and_not_in_them_true() {
        let is_in = tuple_in(&columns(2), Vec::new(), false).unwrap();
        let not_in = tuple_in(&columns(2), Vec::new(), true).unwrap();
        assert_eq!(evaluate(&is_in, &[None, None]), Value::Boolean(false));
        assert_eq!(evaluate(&not_in, &[None, None]), Value::Boolean(true));
    }

    #[test]
    fn row_values_of_other_widths_are_errors() {
        let code = |result: Result<Expr>| result.unwrap_err().code();
        let wide = vec![constants(&[Some(1), Some(2), Some(3)])];
        let narrow = vec![constants(&[Some(1)])];
        assert_eq!(code(tuple_in(&columns(2), wide, false)), 913);
        assert_eq!(code(tuple_in(&columns(2), narrow, false)), 947);
        assert_eq!(code(tuple_equal(&columns(2), &columns(1))), 920);
        assert_eq!(code(tuple_equal(&[], &[])), 920);
    }

    #[test]
    fn a_long_in_list_of_row_values_is_a_balanced_or() {
        let rows: Vec<Vec<Expr>> = (0..1000)
            .map(|value| constants(&[Some(value), Some(-value)]))
            .collect();
        let is_in = tuple_in(&columns(2), rows, false).unwrap();
        // 1000 equalities paired level by level: 500, 250, 125, 63, 32, 16, 8, 4, 2, 1.
        assert_eq!(or_depth(&is_in), 10);
        assert_eq!(evaluate(&is_in, &[Some(0), Some(0)]), Value::Boolean(true));
        assert_eq!(
            evaluate(&is_in, &[Some(999), Some(-999)]),
            Value::Boolean(true)
        );
        assert_eq!(
            evaluate(&is_in, &[Some(999), Some(999)]),
            Value::Boolean(false)
        );
    }
}
