//! SQL text for parsed pieces: the dictionary writes a table's CREATE TABLE text from its
//! definition (`catalog::table_ddl`), and its column defaults and CHECK conditions are
//! expressions.
//!
//! Invariant: parsing what these functions print gives back the same tree. Identifiers are
//! always double-quoted (so case and keywords survive), and every operator application is
//! parenthesized (so precedence never matters). Only expressions a column default or a
//! CHECK condition may hold are printed: subqueries, bind variables, ROWNUM and outer-join
//! marks are ORA-02251 / ORA-02436-style errors, as in Oracle, which refuses them there.

use crate::error::{Error, Result};
use crate::syntax::ast::{BinaryOperator, DataType, Expr, Literal, UnaryOperator};
use crate::types;

/// `"NAME"`, with `"` doubled (the lexer does not allow it in names, so this is defensive).
pub fn identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A string literal: `'it''s'`.
pub fn string(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// A column's type, as the parser reads it back to the same `types::DataType`.
pub fn column_type(data_type: &types::DataType) -> String {
    match *data_type {
        types::DataType::Number {
            precision: None,
            scale: None,
        } => "NUMBER".to_string(),
        types::DataType::Number {
            precision: Some(precision),
            scale: None,
        } => format!("NUMBER({precision})"),
        types::DataType::Number {
            precision: Some(precision),
            scale: Some(scale),
        } => format!("NUMBER({precision},{scale})"),
        types::DataType::Number {
            precision: None,
            scale: Some(scale),
        } => format!("NUMBER(*,{scale})"),
        types::DataType::Float => "BINARY_DOUBLE".to_string(),
        types::DataType::Varchar2 { length } => format!("VARCHAR2({length})"),
        types::DataType::Char { length } => format!("CHAR({length})"),
        types::DataType::Date => "DATE".to_string(),
        types::DataType::Timestamp => "TIMESTAMP".to_string(),
        types::DataType::Boolean => "BOOLEAN".to_string(),
    }
}

/// A declared type of the syntax tree (CAST's target).
fn declared_type(data_type: &DataType) -> String {
    match *data_type {
        DataType::Number { precision, scale } => match (precision, scale) {
            (None, None) => "NUMBER".to_string(),
            (Some(precision), None) => format!("NUMBER({precision})"),
            (Some(precision), Some(scale)) => format!("NUMBER({precision},{scale})"),
            (None, Some(scale)) => format!("NUMBER(*,{scale})"),
        },
        DataType::Integer => "INTEGER".to_string(),
        DataType::Float => "BINARY_DOUBLE".to_string(),
        DataType::Varchar2 { length } => format!("VARCHAR2({length})"),
        DataType::Char { length } => format!("CHAR({length})"),
        DataType::Date => "DATE".to_string(),
        DataType::Timestamp { precision: None } => "TIMESTAMP".to_string(),
        DataType::Timestamp {
            precision: Some(precision),
        } => format!("TIMESTAMP({precision})"),
        DataType::Boolean => "BOOLEAN".to_string(),
    }
}

fn not_allowed(what: &str) -> Error {
    Error::new(2251, format!("subquery not allowed here ({what})"))
}

/// The text of an expression of a column default or a CHECK condition.
pub fn expression(expr: &Expr) -> Result<String> {
    let mut out = String::new();
    write_expression(expr, &mut out)?;
    Ok(out)
}

fn write_list(list: &[Expr], out: &mut String) -> Result<()> {
    for (position, item) in list.iter().enumerate() {
        if position > 0 {
            out.push_str(", ");
        }
        write_expression(item, out)?;
    }
    Ok(())
}

fn operator(op: BinaryOperator) -> &'static str {
    match op {
        BinaryOperator::Add => "+",
        BinaryOperator::Subtract => "-",
        BinaryOperator::Multiply => "*",
        BinaryOperator::Divide => "/",
        BinaryOperator::Concat => "||",
        BinaryOperator::Equal => "=",
        BinaryOperator::NotEqual => "<>",
        BinaryOperator::Less => "<",
        BinaryOperator::LessOrEqual => "<=",
        BinaryOperator::Greater => ">",
        BinaryOperator::GreaterOrEqual => ">=",
        BinaryOperator::And => "AND",
        BinaryOperator::Or => "OR",
    }
}

fn write_expression(expr: &Expr, out: &mut String) -> Result<()> {
    match expr {
        Expr::Literal(literal) => match literal {
            Literal::Number(text) => out.push_str(text),
            Literal::String(value) => out.push_str(&string(value)),
            Literal::Null => out.push_str("NULL"),
            Literal::Boolean(value) => out.push_str(if *value { "TRUE" } else { "FALSE" }),
            Literal::Date(value) => {
                out.push_str("DATE ");
                out.push_str(&string(value));
            }
            Literal::Timestamp(value) => {
                out.push_str("TIMESTAMP ");
                out.push_str(&string(value));
            }
        },
        Expr::Column {
            schema,
            table,
            name,
        } => {
            for part in [schema, table].into_iter().flatten() {
                out.push_str(&identifier(part));
                out.push('.');
            }
            out.push_str(&identifier(name));
        }
        Expr::Bind { .. } => {
            return Err(Error::new(
                1027,
                "bind variables not allowed for data definition operations",
            ))
        }
        Expr::Rownum => return Err(not_allowed("ROWNUM")),
        Expr::OuterJoin(_) => return Err(not_allowed("(+)")),
        Expr::Unary { op, expr } => {
            out.push('(');
            out.push_str(match op {
                UnaryOperator::Plus => "+ ",
                UnaryOperator::Minus => "- ",
                UnaryOperator::Not => "NOT ",
            });
            write_expression(expr, out)?;
            out.push(')');
        }
        Expr::Binary { left, op, right } => {
            out.push('(');
            write_expression(left, out)?;
            out.push(' ');
            out.push_str(operator(*op));
            out.push(' ');
            write_expression(right, out)?;
            out.push(')');
        }
        Expr::IsNull { expr, negated } => {
            out.push('(');
            write_expression(expr, out)?;
            out.push_str(if *negated {
                " IS NOT NULL)"
            } else {
                " IS NULL)"
            });
        }
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            out.push('(');
            write_expression(expr, out)?;
            out.push_str(if *negated {
                " NOT BETWEEN "
            } else {
                " BETWEEN "
            });
            write_expression(low, out)?;
            out.push_str(" AND ");
            write_expression(high, out)?;
            out.push(')');
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            out.push('(');
            write_expression(expr, out)?;
            out.push_str(if *negated { " NOT IN (" } else { " IN (" });
            write_list(list, out)?;
            out.push_str("))");
        }
        Expr::Like {
            expr,
            pattern,
            escape,
            negated,
        } => {
            out.push('(');
            write_expression(expr, out)?;
            out.push_str(if *negated { " NOT LIKE " } else { " LIKE " });
            write_expression(pattern, out)?;
            if let Some(escape) = escape {
                out.push_str(" ESCAPE ");
                write_expression(escape, out)?;
            }
            out.push(')');
        }
        Expr::InSubquery { .. }
        | Expr::Exists { .. }
        | Expr::QuantifiedComparison { .. }
        | Expr::ScalarSubquery(_) => return Err(not_allowed("a subquery")),
        Expr::Case {
            operand,
            when_then,
            else_result,
        } => {
            out.push_str("CASE");
            if let Some(operand) = operand {
                out.push(' ');
                write_expression(operand, out)?;
            }
            for (when, then) in when_then {
                out.push_str(" WHEN ");
                write_expression(when, out)?;
                out.push_str(" THEN ");
                write_expression(then, out)?;
            }
            if let Some(else_result) = else_result {
                out.push_str(" ELSE ");
                write_expression(else_result, out)?;
            }
            out.push_str(" END");
        }
        Expr::Function {
            name,
            args,
            distinct,
            star,
        } => {
            out.push_str(name);
            let niladic = crate::syntax::parser::NILADIC_FUNCTIONS.contains(&name.as_str());
            if args.is_empty() && !star && niladic {
                return Ok(());
            }
            out.push('(');
            if *distinct {
                out.push_str("DISTINCT ");
            }
            if *star {
                out.push('*');
            }
            write_list(args, out)?;
            out.push(')');
        }
        Expr::Cast { expr, data_type } => {
            out.push_str("CAST(");
            write_expression(expr, out)?;
            out.push_str(" AS ");
            out.push_str(&declared_type(data_type));
            out.push(')');
        }
        Expr::Tuple(items) => {
            out.push('(');
            write_list(items, out)?;
            out.push(')');
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::{SelectItem, SetExpr, Statement};
    use crate::syntax::parser::parse;

    fn expression_of(sql: &str) -> Expr {
        let Statement::Select(query) = parse(&format!("SELECT {sql} FROM dual")).unwrap() else {
            panic!("not a query");
        };
        let SetExpr::Select(select) = &query.body else {
            panic!("not a select");
        };
        let SelectItem::Expression { expr, .. } = &select.projection[0] else {
            panic!("not an expression");
        };
        expr.clone()
    }

    #[test]
    fn printed_expressions_parse_back_to_the_same_tree() {
        for sql in [
            "a + b * -c",
            "NOT (a = 1 OR b <> 'it''s')",
            "a IS NOT NULL AND b BETWEEN 1 AND 10",
            "c IN (1, 2, 3) AND d NOT LIKE 'x%' ESCAPE '\\'",
            "CASE WHEN a > 0 THEN 'p' ELSE 'n' END",
            "CASE a WHEN 1 THEN 2 END",
            "UPPER(name) || SYSDATE || CAST(x AS NUMBER(5,2)) || TRUNC(SYSDATE)",
            "DATE '2024-01-31' + 1",
            "TIMESTAMP '2024-01-31 10:00:00'",
            "\"mixed Case\" >= 1.5e3",
            "NULL",
            "COUNT(*)",
        ] {
            let parsed = expression_of(sql);
            let printed = expression(&parsed).unwrap();
            assert_eq!(
                expression_of(&printed),
                parsed,
                "{sql} printed as {printed}"
            );
        }
    }

    #[test]
    fn subqueries_and_binds_are_refused() {
        assert_eq!(
            expression(&expression_of("(SELECT 1 FROM dual)"))
                .unwrap_err()
                .code(),
            2251
        );
        assert_eq!(expression(&expression_of(":x")).unwrap_err().code(), 1027);
    }
}
