//! The parser's unit tests, one file for each file of the grammar (and the limits and
//! fuzzing of the whole), and here the helpers they share.

use super::*;

mod ddl;
mod errors;
mod expression;
pub(crate) mod fuzzing;
mod limits;
mod query;
mod statements;

fn parse_ok(sql: &str) -> Statement {
    parse(sql).unwrap_or_else(|error| panic!("{sql}: {error:?}"))
}

fn query(sql: &str) -> Query {
    match parse_ok(sql) {
        Statement::Select(query) => *query,
        other => panic!("{sql}: not a query: {other:?}"),
    }
}

fn select(sql: &str) -> Select {
    match query(sql).body {
        SetExpr::Select(select) => *select,
        other => panic!("{sql}: not a SELECT block: {other:?}"),
    }
}

/// The expression `text` in `SELECT text FROM DUAL`.
fn expression(text: &str) -> Expr {
    match select(&format!("SELECT {text} FROM DUAL"))
        .projection
        .into_iter()
        .next()
    {
        Some(SelectItem::Expression { expr, .. }) => expr,
        other => panic!("{text}: {other:?}"),
    }
}

/// The condition `text` in `SELECT * FROM T WHERE text`.
fn condition(text: &str) -> Expr {
    select(&format!("SELECT * FROM T WHERE {text}"))
        .where_clause
        .expect("a WHERE clause")
}

/// Asserts that `sql` fails with `code` at the first occurrence of `at` (or at the end of
/// the text when `at` is empty).
fn assert_error(sql: &str, code: u32, at: &str) {
    let error = parse(sql).expect_err(sql);
    let position = if at.is_empty() {
        sql.trim_end().len()
    } else {
        sql.find(at).expect("`at` is in the text")
    };
    assert_eq!(
        (error.code(), error.position()),
        (code, Some(position)),
        "{sql}: {error:?}"
    );
}

fn column(name: &str) -> Expr {
    Expr::Column {
        schema: None,
        table: None,
        name: name.to_string(),
    }
}

fn qualified_column(table: &str, name: &str) -> Expr {
    Expr::Column {
        schema: None,
        table: Some(table.to_string()),
        name: name.to_string(),
    }
}

fn number(text: &str) -> Expr {
    Expr::Literal(Literal::Number(text.to_string()))
}

fn string(value: &str) -> Expr {
    Expr::Literal(Literal::String(value.to_string()))
}

fn bind(name: &str, position: usize) -> Expr {
    Expr::Bind {
        name: name.to_string(),
        position,
    }
}

fn binary(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::Binary {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }
}

fn unary(op: UnaryOperator, expr: Expr) -> Expr {
    Expr::Unary {
        op,
        expr: Box::new(expr),
    }
}

fn function(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function {
        name: name.to_string(),
        args,
        distinct: false,
        star: false,
    }
}

fn table(name: &str) -> TableReference {
    TableReference::Table {
        name: ObjectName::new(name),
        alias: None,
    }
}

fn aliased_table(name: &str, alias: &str) -> TableReference {
    TableReference::Table {
        name: ObjectName::new(name),
        alias: Some(alias.to_string()),
    }
}

fn item(expr: Expr) -> SelectItem {
    SelectItem::Expression { expr, alias: None }
}

fn plain_select(projection: Vec<SelectItem>, from: Vec<TableReference>) -> Select {
    Select {
        hint: None,
        distinct: false,
        projection,
        from,
        where_clause: None,
        group_by: Vec::new(),
        having: None,
    }
}

fn select_one_from_dual(value: &str) -> SetExpr {
    SetExpr::Select(Box::new(plain_select(
        vec![item(number(value))],
        vec![table("DUAL")],
    )))
}

fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function {
        name: name.to_string(),
        args,
        distinct: false,
        star: false,
    }
}

fn text(value: &str) -> Expr {
    Expr::Literal(Literal::String(value.to_string()))
}

#[test]
fn plsql_unreserved_words_are_sorted_sql_reserved_and_names_only_in_plsql() {
    use crate::syntax::lexer::is_reserved_word;
    use crate::syntax::parser::PLSQL_UNRESERVED;
    assert!(PLSQL_UNRESERVED.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(PLSQL_UNRESERVED.iter().all(|word| is_reserved_word(word)));
    // Plain SQL keeps them reserved; the SQL of a PL/SQL unit may name a variable so.
    assert!(crate::syntax::parser::parse("SELECT increment FROM t").is_err());
    assert!(
        crate::syntax::parser::parse_embedded_statement("SELECT a FROM t WHERE b = increment")
            .is_ok()
    );
}
