//! EXPLAIN PLAN: the plan a statement would run with, written to the session's PLAN_TABLE
//! (at most `PLAN_TABLE_ROWS_MAX` rows), which `SELECT ... FROM plan_table` reads.

use super::unsupported;
use super::{Session, StatementResult};
use crate::catalog;
use crate::error::Result;
use crate::sql::query::{self, BindValues, Reader};
use crate::syntax::ast::{self, Statement};
use crate::types::RowSet;
use crate::types::{DataType, Value};

/// The most rows a session's PLAN_TABLE keeps; the oldest plans go first.
pub const PLAN_TABLE_ROWS_MAX: usize = 10_000;

/// One step of an explained plan.
pub(super) struct PlanTableRow {
    pub(super) statement_id: Option<String>,
    pub(super) plan_id: u64,
    pub(super) timestamp: i64,
    pub(super) line: query::PlanLine,
}

impl Session {
    /// EXPLAIN PLAN: plans `statement` without running it and writes its steps into the
    /// session's PLAN_TABLE.
    pub(super) fn explain(
        &mut self,
        statement_id: Option<&str>,
        statement: &Statement,
        binds: &[Value],
    ) -> Result<StatementResult> {
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let xid = self
            .transaction
            .as_ref()
            .map_or(0, |transaction| transaction.xid);
        let lines = self.with_reader(&plan_binds, |reader| {
            let reader = Reader { xid, ..*reader };
            let table_plan = |binds: &mut BindValues,
                              table: &ast::ObjectName,
                              alias: Option<&str>,
                              hint: Option<&str>,
                              expressions: &[&ast::Expr],
                              where_clause: Option<&ast::Expr>| {
                let definition = reader.dictionary.table(&table.name)?;
                query::plan_table_statement(
                    &reader,
                    binds,
                    definition,
                    alias,
                    hint,
                    expressions,
                    where_clause,
                )
            };
            match statement {
                Statement::Select(query) => {
                    let plan = query::plan_query(&reader, &mut bind_values, query)?;
                    Ok(query::explain_query(&plan))
                }
                Statement::Update {
                    hint,
                    table,
                    alias,
                    assignments,
                    where_clause,
                    ..
                } => {
                    let expressions: Vec<&ast::Expr> =
                        assignments.iter().map(|(_, expr)| expr).collect();
                    let plan = table_plan(
                        &mut bind_values,
                        table,
                        alias.as_deref(),
                        hint.as_deref(),
                        &expressions,
                        where_clause.as_ref(),
                    )?;
                    Ok(query::explain_table_statement(
                        "UPDATE",
                        "UPDATE STATEMENT",
                        &table.name,
                        &plan,
                    ))
                }
                Statement::Delete {
                    hint,
                    table,
                    alias,
                    where_clause,
                    ..
                } => {
                    let plan = table_plan(
                        &mut bind_values,
                        table,
                        alias.as_deref(),
                        hint.as_deref(),
                        &[],
                        where_clause.as_ref(),
                    )?;
                    Ok(query::explain_table_statement(
                        "DELETE",
                        "DELETE STATEMENT",
                        &table.name,
                        &plan,
                    ))
                }
                Statement::Insert { table, source, .. } => {
                    reader.dictionary.table(&table.name)?;
                    let plan = match source {
                        ast::InsertSource::Query(query) => {
                            Some(query::plan_query(&reader, &mut bind_values, query)?)
                        }
                        _ => None,
                    };
                    Ok(query::explain_insert(&table.name, plan.as_ref()))
                }
                _ => Err(unsupported("EXPLAIN PLAN of this statement")),
            }
        })?;
        let mut lines = lines;
        if let Some(statement_line) = lines.first_mut() {
            statement_line.optimizer = Some(
                self.parameters
                    .get_string(crate::parameters::names::OPTIMIZER_MODE),
            );
        }
        let plan_id = self.next_plan_id;
        self.next_plan_id += 1;
        let timestamp = catalog::now_seconds();
        for line in lines {
            self.plan_table.push(PlanTableRow {
                statement_id: statement_id.map(str::to_string),
                plan_id,
                timestamp,
                line,
            });
        }
        if self.plan_table.len() > PLAN_TABLE_ROWS_MAX {
            let excess = self.plan_table.len() - PLAN_TABLE_ROWS_MAX;
            self.plan_table.drain(..excess);
        }
        Ok(StatementResult::done("Explained."))
    }

    /// The session's PLAN_TABLE, with Oracle's columns (those that have values here).
    pub(super) fn plan_table_rows(&self) -> RowSet {
        let text = Some(DataType::varchar2(128));
        let number = Some(DataType::number());
        let optional = |value: &Option<String>| value.as_deref().map_or(Value::Null, Value::text);
        RowSet {
            columns: vec![
                ("STATEMENT_ID".to_string(), text),
                ("PLAN_ID".to_string(), number),
                ("TIMESTAMP".to_string(), Some(DataType::Date)),
                ("OPERATION".to_string(), text),
                ("OPTIONS".to_string(), text),
                ("OBJECT_OWNER".to_string(), text),
                ("OBJECT_NAME".to_string(), text),
                ("OBJECT_TYPE".to_string(), text),
                ("OPTIMIZER".to_string(), text),
                ("ID".to_string(), number),
                ("PARENT_ID".to_string(), number),
                ("DEPTH".to_string(), number),
                ("POSITION".to_string(), number),
                ("COST".to_string(), number),
                ("CARDINALITY".to_string(), number),
                ("BYTES".to_string(), number),
            ],
            rows: self
                .plan_table
                .iter()
                .map(|row| {
                    let line = &row.line;
                    let estimated = |value: fn(&query::Estimate) -> u64| {
                        line.estimate.as_ref().map_or(Value::Null, |estimate| {
                            Value::integer(value(estimate) as i64)
                        })
                    };
                    vec![
                        optional(&row.statement_id),
                        Value::integer(row.plan_id as i64),
                        Value::Date(row.timestamp),
                        Value::text(&line.operation),
                        optional(&line.options),
                        line.object_name
                            .as_ref()
                            .map_or(Value::Null, |_| Value::text(catalog::OWNER)),
                        optional(&line.object_name),
                        optional(&line.object_type),
                        optional(&line.optimizer),
                        Value::integer(line.id as i64),
                        line.parent_id
                            .map_or(Value::Null, |parent| Value::integer(parent as i64)),
                        Value::integer(line.depth as i64),
                        Value::integer(line.position as i64),
                        estimated(|estimate| estimate.shown_cost()),
                        estimated(|estimate| estimate.shown_rows()),
                        estimated(|estimate| estimate.shown_bytes()),
                    ]
                })
                .collect(),
        }
    }
}
