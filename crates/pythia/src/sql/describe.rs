//! Describing a prepared statement without running it: the type each bind variable's
//! context gives it. A client of PostgreSQL's extended protocol asks this at Parse, before
//! any execution, and encodes its parameters with the types it is told (`$1` compared
//! with a NUMBER column is a number, `$2` inserted into a VARCHAR2 column is text), as
//! Oracle's OCI describes a cursor's binds.
//!
//! The inference reads the tree and the dictionary only, never a row:
//!
//! ```text
//!   column = :1, :1 < column, column BETWEEN :1 AND :2, column IN (:1, :2)
//!                                        -> the column's type
//!   INSERT INTO t (a, b) VALUES (:1, :2) -> a's and b's types (the same for INSERT ... SELECT :1, :2)
//!   UPDATE t SET a = :1                  -> a's type
//!   :1 + x, x * :1, -:1 ...              -> NUMBER        x || :1, x LIKE :1 -> VARCHAR2
//!   CAST(:1 AS type), :1::type           -> type          OFFSET :1, FETCH FIRST :1 -> NUMBER
//! ```
//!
//! A bind whose context says nothing (a function's argument, a select-list item) has no
//! type: the caller announces it as text, which Oracle's implicit conversions accept
//! wherever a value goes. Columns are resolved against every table the statement names
//! (its DML target and each FROM item, by alias or name); a name two of them share with
//! different types gives nothing. Views are not looked into.
//!
//! Positions follow [`BindValues`]: `:1` and `$1` are position 0, `:name` binds are numbered
//! in order of first appearance.

use std::sync::Arc;

use crate::catalog::{data_type_from_ast, Dictionary, TableDef};
use crate::sql::query::BindValues;
use crate::syntax::ast::{
    BinaryOperator, Expr, InsertSource, Literal, Node, QuantifiedOperand, SelectItem, SetExpr,
    Statement, TableReference, UnaryOperator,
};
use crate::types::DataType;

/// The type of each bind position of `statement` (one entry per position, None where the
/// context gives no type).
pub(crate) fn bind_types(statement: &Statement, dictionary: &Dictionary) -> Vec<Option<DataType>> {
    let mut positions = BindValues::new(Vec::new());
    positions.register_names(std::iter::once(Node::Statement(statement)));
    let mut count = 0;
    Node::Statement(statement).walk(&mut |node| {
        if let Node::Expr(Expr::Bind { name, .. }) = node {
            count = count.max(positions.index_of(name) + 1);
        }
    });
    let mut inference = Inference {
        sources: sources(statement, dictionary),
        positions,
        types: vec![None; count],
    };
    inference.statement(statement);
    Node::Statement(statement).walk(&mut |node| {
        if let Node::Expr(expr) = node {
            inference.expression(expr);
        }
    });
    inference.types
}

/// The tables a statement names, each under the name its columns are qualified with.
fn sources(statement: &Statement, dictionary: &Dictionary) -> Vec<(String, Arc<TableDef>)> {
    let mut sources = Vec::new();
    let mut add = |name: &str, alias: Option<&String>| {
        if let Some(table) = dictionary.tables.get(name) {
            sources.push((
                alias.cloned().unwrap_or_else(|| name.to_string()),
                table.clone(),
            ));
        }
    };
    match statement {
        Statement::Insert { table, .. } => add(&table.name, None),
        Statement::Update { table, alias, .. } | Statement::Delete { table, alias, .. } => {
            add(&table.name, alias.as_ref())
        }
        _ => {}
    }
    Node::Statement(statement).walk(&mut |node| {
        if let Node::TableReference(TableReference::Table { name, alias }) = node {
            add(&name.name, alias.as_ref());
        }
    });
    sources
}

struct Inference {
    sources: Vec<(String, Arc<TableDef>)>,
    positions: BindValues,
    types: Vec<Option<DataType>>,
}

/// What arithmetic gives, and what text operators take.
const NUMBER: DataType = DataType::number();
const TEXT: DataType = DataType::varchar2(4000);

impl Inference {
    /// Gives `expr` the type `data_type` if it is a bind without one yet: the first context
    /// met decides.
    fn give(&mut self, expr: &Expr, data_type: Option<DataType>) {
        let (Expr::Bind { name, .. }, Some(data_type)) = (expr, data_type) else {
            return;
        };
        let position = self.positions.index_of(name);
        if let Some(slot @ None) = self.types.get_mut(position) {
            *slot = Some(data_type);
        }
    }

    /// The statement's own contexts: the columns an INSERT's values and an UPDATE's
    /// assignments go into.
    fn statement(&mut self, statement: &Statement) {
        match statement {
            Statement::Insert {
                table,
                columns,
                source,
                ..
            } => {
                let Some(target) = self.column_types(&table.name, columns.as_deref()) else {
                    return;
                };
                let rows: Vec<Vec<&Expr>> = match source {
                    InsertSource::Values(rows) => {
                        rows.iter().map(|row| row.iter().collect()).collect()
                    }
                    InsertSource::Query(query) => match &query.body {
                        SetExpr::Select(select) => vec![select
                            .projection
                            .iter()
                            .filter_map(|item| match item {
                                SelectItem::Expression { expr, .. } => Some(expr),
                                _ => None,
                            })
                            .collect()],
                        _ => Vec::new(),
                    },
                };
                for row in rows {
                    for (expr, data_type) in row.into_iter().zip(&target) {
                        self.give(expr, *data_type);
                    }
                }
            }
            Statement::Update {
                table,
                alias,
                assignments,
                ..
            } => {
                let target = alias.as_deref().unwrap_or(&table.name);
                for (column, expr) in assignments {
                    let data_type = self.column_type(Some(target), column);
                    self.give(expr, data_type);
                }
            }
            Statement::Select(query) => self.row_limits(query),
            _ => {}
        }
        Node::Statement(statement).walk(&mut |node| {
            if let Node::Query(query) = node {
                self.row_limits(query);
            }
        });
    }

    fn row_limits(&mut self, query: &crate::syntax::ast::Query) {
        for limit in query.offset.iter().chain(&query.fetch_first) {
            self.give(limit, Some(NUMBER));
        }
    }

    /// The types of `columns` of `table` (all its columns in order when None).
    fn column_types(
        &self,
        table: &str,
        columns: Option<&[String]>,
    ) -> Option<Vec<Option<DataType>>> {
        let (_, definition) = self.sources.iter().find(|(name, _)| name == table)?;
        Some(match columns {
            Some(columns) => columns
                .iter()
                .map(|name| self.column_type(Some(table), name))
                .collect(),
            None => definition
                .columns
                .iter()
                .map(|column| Some(column.data_type))
                .collect(),
        })
    }

    /// The type of column `name` (of the source named `table`, or of any source that has
    /// it); None when no source has it or two have it with different types.
    fn column_type(&self, table: Option<&str>, name: &str) -> Option<DataType> {
        let mut found = self
            .sources
            .iter()
            .filter(|(source, _)| table.is_none_or(|table| table == source))
            .filter_map(|(_, definition)| {
                definition
                    .columns
                    .iter()
                    .find(|column| column.name == name)
                    .map(|column| column.data_type)
            });
        let first = found.next()?;
        found.all(|other| other == first).then_some(first)
    }

    /// What a value of `expr` is, as far as a bind beside it needs to know.
    fn type_of(&self, expr: &Expr) -> Option<DataType> {
        match expr {
            Expr::Column { table, name, .. } => self.column_type(table.as_deref(), name),
            Expr::Literal(Literal::Number(_)) => Some(NUMBER),
            Expr::Literal(Literal::String(_)) => Some(TEXT),
            Expr::Literal(Literal::Boolean(_)) => Some(DataType::Boolean),
            Expr::Literal(Literal::Date(_)) => Some(DataType::Date),
            Expr::Literal(Literal::Timestamp(_)) => Some(DataType::Timestamp),
            Expr::Cast { data_type, .. } => data_type_from_ast(data_type).ok(),
            Expr::Unary {
                op: UnaryOperator::Minus | UnaryOperator::Plus,
                expr,
            } => self.type_of(expr),
            Expr::Binary { op, .. } if is_arithmetic(*op) => Some(NUMBER),
            Expr::Binary {
                op: BinaryOperator::Concat,
                ..
            } => Some(TEXT),
            _ => None,
        }
    }

    /// The contexts one expression gives the binds directly below it.
    fn expression(&mut self, expr: &Expr) {
        match expr {
            Expr::Binary { left, op, right } => {
                if is_arithmetic(*op) {
                    self.give(left, Some(NUMBER));
                    self.give(right, Some(NUMBER));
                } else if *op == BinaryOperator::Concat {
                    self.give(left, Some(TEXT));
                    self.give(right, Some(TEXT));
                } else if op.is_comparison() {
                    let (left_type, right_type) = (self.type_of(left), self.type_of(right));
                    self.give(left, right_type);
                    self.give(right, left_type);
                }
            }
            Expr::Unary {
                op: UnaryOperator::Minus | UnaryOperator::Plus,
                expr,
            } => self.give(expr, Some(NUMBER)),
            Expr::Between {
                expr, low, high, ..
            } => self.alike(&[expr, low, high]),
            Expr::InList { expr, list, .. }
            | Expr::QuantifiedComparison {
                left: expr,
                right: QuantifiedOperand::List(list),
                ..
            } => {
                let mut all: Vec<&Expr> = vec![expr];
                all.extend(list);
                self.alike(&all);
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                ..
            } => {
                for text in [Some(expr), Some(pattern), escape.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    self.give(text, Some(TEXT));
                }
            }
            Expr::Cast { expr, data_type } => {
                let data_type = data_type_from_ast(data_type).ok();
                self.give(expr, data_type);
            }
            Expr::Case {
                operand: Some(operand),
                when_then,
                ..
            } => {
                let mut all: Vec<&Expr> = vec![operand];
                all.extend(when_then.iter().map(|(when, _)| when));
                self.alike(&all);
            }
            _ => {}
        }
    }

    /// Operands compared with one another: each bind among them gets the first type the
    /// others have.
    fn alike(&mut self, operands: &[&Expr]) {
        let data_type = operands.iter().find_map(|operand| self.type_of(operand));
        for operand in operands {
            self.give(operand, data_type);
        }
    }
}

fn is_arithmetic(op: BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Add
            | BinaryOperator::Subtract
            | BinaryOperator::Multiply
            | BinaryOperator::Divide
    )
}
