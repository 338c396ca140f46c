//! INSERT, UPDATE and DELETE: the rows a statement changes, found through its kept plan,
//! checked against the table's constraints (`sql::constraints`) and written with their
//! index entries through the transaction (`catalog::rows`).

use std::sync::Arc;

use super::Session;
use crate::access::heap::RowId;
use crate::catalog::rows;
use crate::catalog::{self, Dictionary, SequenceDef, TableDef};
use crate::error::{Error, Result};
use crate::library_cache::CursorPin;
use crate::sql::constraints;
use crate::sql::eval::SequenceAccess;
use crate::sql::query::{self, BindValues, Reader};
use crate::syntax::ast;
use crate::transaction::Transaction;
use crate::types::Value;

/// An UPDATE or DELETE as its first step reads it (a DELETE has no assignments).
pub(super) struct TableStatement<'s> {
    pub(super) table: &'s ast::ObjectName,
    pub(super) alias: Option<&'s str>,
    pub(super) hint: Option<&'s str>,
    pub(super) assignments: &'s [(String, ast::Expr)],
    pub(super) where_clause: Option<&'s ast::Expr>,
    /// RETURNING's expressions, over each changed row's new values (DELETE's: its old).
    pub(super) returning: &'s [ast::Expr],
}

/// What a DML statement did: the rows it changed, and RETURNING's values of each.
pub(super) struct Changed {
    pub(super) rows: u64,
    pub(super) returned: Vec<Vec<Value>>,
}

impl Changed {
    /// The statement's result: `n rows verb.`, with the RETURNING values as its rows.
    pub(super) fn result(self, verb: &str) -> super::StatementResult {
        let mut result = super::changed(self.rows, verb);
        result.rows = self.returned;
        result
    }
}

/// What UPDATE's and DELETE's first step found: the dictionary the plan runs against, its
/// table, the SET targets' column positions, the plan, and the rows it may change.
pub(super) struct RowsToChange {
    pub(super) dictionary: Arc<Dictionary>,
    pub(super) table: Arc<TableDef>,
    pub(super) targets: Vec<usize>,
    pub(super) plan: Arc<query::TablePlan>,
    pub(super) rows: Vec<(RowId, Vec<Value>)>,
}

/// `name`'s table in `dictionary`; ORA-00942 for another schema's name, as every object
/// is SYSTEM's.
pub(super) fn table_in(dictionary: &Dictionary, name: &ast::ObjectName) -> Result<Arc<TableDef>> {
    if name
        .schema
        .as_deref()
        .is_some_and(|schema| schema != catalog::OWNER)
    {
        return Err(Error::table_not_found());
    }
    dictionary.table(&name.name).cloned()
}

/// NEXTVAL through the catalog, CURRVAL from the session.
pub(super) struct SessionSequences<'a> {
    pub(super) session: &'a Session,
}

impl SequenceAccess for SessionSequences<'_> {
    fn next_value(&self, sequence: &SequenceDef) -> Result<Value> {
        let value = self.session.instance.catalog().next_value(sequence)?;
        let value = Value::Number(rust_decimal::Decimal::from_i128_with_scale(value, 0));
        self.session
            .current_values
            .borrow_mut()
            .insert(sequence.object_id, value.clone());
        Ok(value)
    }

    fn current_value(&self, sequence: &SequenceDef) -> Result<Value> {
        self.session
            .current_values
            .borrow()
            .get(&sequence.object_id)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    8002,
                    format!(
                        "sequence {}.CURRVAL is not yet defined in this session",
                        sequence.name
                    ),
                )
            })
    }
}

impl Session {
    pub(super) fn table(&self, name: &ast::ObjectName) -> Result<Arc<TableDef>> {
        table_in(&self.instance.catalog().current(), name)
    }

    /// INSERT: the rows of its VALUES (through the plan its cursor keeps, or a new one,
    /// published on the first execution as an UPDATE's is) or of its query, each checked and
    /// inserted.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn insert(
        &self,
        transaction: &mut Transaction,
        table_name: &ast::ObjectName,
        columns: Option<&[String]>,
        source: &ast::InsertSource,
        returning: &[ast::Expr],
        call: (&str, &[Value]),
        pin: &mut CursorPin,
    ) -> Result<Changed> {
        let (text, binds) = call;
        // As for a query: the child's validity is read under the dictionary's latch.
        let (dictionary, valid) = self
            .instance
            .catalog()
            .current_checked(|| pin.child().is_valid());
        let table = table_in(&dictionary, table_name)?;
        let targets: Vec<usize> = match columns {
            None => (0..table.columns.len()).collect(),
            Some(names) => {
                let mut targets = Vec::with_capacity(names.len());
                for name in names {
                    let position = table
                        .column(name)
                        .ok_or_else(|| Error::invalid_identifier(name))?;
                    if targets.contains(&position) {
                        return Err(Error::new(957, "duplicate column name"));
                    }
                    targets.push(position);
                }
                targets
            }
        };
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let storage = self.instance.catalog().storage().clone();
        let xid = transaction.xid;
        // The transaction is out of the session while the statement runs: its query must
        // still see the transaction's earlier changes (the reader carries its xid).
        let rows: Vec<Vec<Value>> =
            self.with_reader_in(&dictionary, xid, &plan_binds, |reader| match source {
                ast::InsertSource::Values(rows) => {
                    let plan = self.plan_of(
                        pin,
                        (text, &dictionary, valid),
                        || query::plan_values(reader, &mut bind_values, rows),
                        |plan| (plan.reusable, self.unplanned()),
                    )?;
                    let context = reader.row_context();
                    plan.rows
                        .iter()
                        .map(|row| {
                            row.iter()
                                .map(|expr| expr.evaluate(&[], &context))
                                .collect()
                        })
                        .collect()
                }
                ast::InsertSource::Query(query) => {
                    if pin.is_building() {
                        // Its query is planned at each execution: the child keeps no plan.
                        self.publish(pin, text, &dictionary, None, self.unplanned(), Some(0))?;
                    }
                    Ok(query::run_query(reader, &mut bind_values, query)?.rows)
                }
            })?;
        let checks = self.with_reader(&BindValues::default(), |reader| {
            constraints::compile_checks(reader, &table)
        })?;
        let returning = self.returning_plan(&dictionary, xid, &table, returning, binds)?;
        let mut returned = Vec::new();
        let mut inserted = Vec::new();
        let mut count = 0;
        for values in rows {
            if values.len() != targets.len() {
                return Err(Error::new(
                    if values.len() > targets.len() {
                        913
                    } else {
                        947
                    },
                    if values.len() > targets.len() {
                        "too many values"
                    } else {
                        "not enough values"
                    },
                ));
            }
            let mut row = vec![None; table.columns.len()];
            for (value, &target) in values.into_iter().zip(&targets) {
                row[target] = Some(value);
            }
            let row = self.fill_defaults(&table, row, binds)?;
            let row = rows::check_row(&table, row)?;
            if !checks.is_empty() {
                self.with_reader(&BindValues::default(), |reader| {
                    constraints::enforce_checks(&table.checks, &checks, &row, &reader.row_context())
                })?;
            }
            let rowid = rows::insert_row(&storage, transaction, &table, &row)?;
            if let Some(returning) = &returning {
                let scope_row = returning.scope_row(&row, rowid);
                returned.push(self.returned_values(&returning.expressions, &scope_row, binds)?);
            }
            if !table.foreign_keys.is_empty() {
                inserted.push(row);
            }
            count += 1;
        }
        // Parent keys are looked up once the statement's rows are in, as Oracle checks at
        // the end of the statement: a row may reference itself or a row inserted with it.
        if !inserted.is_empty() {
            let xid = transaction.xid;
            self.with_reader(&BindValues::default(), |reader| {
                let reader = Reader { xid, ..*reader };
                for row in &inserted {
                    constraints::check_parent_keys(&reader, &table, row, None)?;
                }
                Ok(())
            })?;
        }
        Ok(Changed {
            rows: count,
            returned,
        })
    }

    /// RETURNING's expressions compiled over the table's row, as a plan's expressions
    /// (None without RETURNING).
    fn returning_plan(
        &self,
        dictionary: &Arc<Dictionary>,
        xid: u64,
        table: &Arc<TableDef>,
        returning: &[ast::Expr],
        binds: &[Value],
    ) -> Result<Option<query::TablePlan>> {
        if returning.is_empty() {
            return Ok(None);
        }
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        self.with_reader_in(dictionary, xid, &plan_binds, |reader| {
            let expressions: Vec<&ast::Expr> = returning.iter().collect();
            let plan = query::plan_table_statement(
                reader,
                &mut bind_values,
                table,
                None,
                None,
                &expressions,
                None,
            )?;
            Ok(Some(plan))
        })
    }

    /// RETURNING's values over one row.
    fn returned_values(
        &self,
        returning: &[crate::sql::eval::Expr],
        row: &[Value],
        binds: &[Value],
    ) -> Result<Vec<Value>> {
        let bind_values = BindValues::new(binds.to_vec());
        self.with_reader(&bind_values, |reader| {
            let context = reader.row_context();
            returning
                .iter()
                .map(|expr| expr.evaluate(row, &context))
                .collect()
        })
    }

    pub(super) fn fill_defaults(
        &self,
        table: &TableDef,
        row: Vec<Option<Value>>,
        binds: &[Value],
    ) -> Result<Vec<Value>> {
        let mut result = Vec::with_capacity(row.len());
        for (position, value) in row.into_iter().enumerate() {
            match value {
                Some(value) => result.push(value),
                None => match &table.columns[position].default {
                    None => result.push(Value::Null),
                    Some(default) => {
                        let mut bind_values = BindValues::new(binds.to_vec());
                        let plan_binds = bind_values.clone();
                        let value = self.with_reader(&plan_binds, |reader| {
                            query::compile_row_free(reader, &mut bind_values, default)?
                                .evaluate(&[], &reader.row_context())
                        })?;
                        result.push(value);
                    }
                },
            }
        }
        Ok(result)
    }

    pub(super) fn update(
        &self,
        transaction: &mut Transaction,
        statement: &TableStatement,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<Changed> {
        let storage = self.instance.catalog().storage().clone();
        self.change_rows(
            transaction,
            statement,
            (text, binds),
            pin,
            |reader, transaction, found| {
                let RowsToChange {
                    table,
                    targets,
                    plan,
                    rows,
                    ..
                } = found;
                let mut count = 0;
                let mut returned = Vec::new();
                let returning = &plan.expressions[targets.len()..];
                let context = reader.row_context();
                let checks = constraints::compile_checks(reader, &table)?;
                let referenced = constraints::is_referenced(reader.dictionary, &table);
                let keyed = referenced || !table.foreign_keys.is_empty();
                // Keys are checked once every row is updated, as Oracle checks at the end of
                // the statement (one statement may change a parent key and its children).
                let mut changes = Vec::new();
                for (rowid, _) in rows {
                    let mut change = None;
                    let updated =
                        rows::update_row(&storage, transaction, &table, rowid, &mut |current| {
                            let scope_row = plan.scope_row(current, rowid);
                            if !plan.accepts(&scope_row, &context)? {
                                return Ok(None);
                            }
                            let mut row = current.to_vec();
                            for (expr, &target) in plan.expressions.iter().zip(&targets) {
                                row[target] = expr.evaluate(&scope_row, &context)?;
                            }
                            if !checks.is_empty() || keyed {
                                row = rows::check_row(&table, row)?;
                                constraints::enforce_checks(
                                    &table.checks,
                                    &checks,
                                    &row,
                                    &context,
                                )?;
                            }
                            if keyed {
                                change = Some((current.to_vec(), row.clone()));
                            }
                            if !returning.is_empty() {
                                let new_row = plan.scope_row(&row, rowid);
                                returned.push(
                                    returning
                                        .iter()
                                        .map(|expr| expr.evaluate(&new_row, &context))
                                        .collect::<Result<Vec<_>>>()?,
                                );
                            }
                            Ok(Some(row))
                        })?;
                    if let (true, Some(change)) = (updated, change) {
                        changes.push(change);
                    }
                    count += updated as u64;
                }
                for (before, after) in changes {
                    constraints::check_parent_keys(reader, &table, &after, Some(&before))?;
                    if referenced {
                        constraints::on_parent_change(
                            &storage,
                            transaction,
                            reader,
                            &table,
                            &before,
                            Some(&after),
                            0,
                        )?;
                    }
                }
                Ok(Changed {
                    rows: count,
                    returned,
                })
            },
        )
    }

    /// UPDATE's and DELETE's frame: finds the rows the statement may change
    /// ([`Session::rows_to_change`]), then runs `work` on them with a reader on the same
    /// dictionary version that carries the transaction (a subquery of the statement must
    /// see its changes). `call`: the statement's text and binds.
    pub(super) fn change_rows(
        &self,
        transaction: &mut Transaction,
        statement: &TableStatement,
        call: (&str, &[Value]),
        pin: &mut CursorPin,
        work: impl FnOnce(&Reader, &mut Transaction, RowsToChange) -> Result<Changed>,
    ) -> Result<Changed> {
        let (text, binds) = call;
        let xid = transaction.xid;
        let found = self.rows_to_change(xid, statement, text, binds, pin)?;
        let dictionary = found.dictionary.clone();
        self.with_reader_in(
            &dictionary,
            xid,
            &BindValues::new(binds.to_vec()),
            |reader| work(reader, transaction, found),
        )
    }

    /// UPDATE's and DELETE's first step: finds, with the statement's snapshot and the
    /// transaction's own changes, the rows the statement may change, through the plan its
    /// cursor keeps, or a new one. A new plan is published in the cursor on its first
    /// execution (kept when it can run again), as a query's is.
    pub(super) fn rows_to_change(
        &self,
        xid: u64,
        statement: &TableStatement,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<RowsToChange> {
        // As for a query: the child's validity is read under the dictionary's latch, so a
        // kept plan only runs against the dictionary it was made against.
        let (dictionary, valid) = self
            .instance
            .catalog()
            .current_checked(|| pin.child().is_valid());
        let table = table_in(&dictionary, statement.table)?;
        let targets = statement
            .assignments
            .iter()
            .map(|(name, _)| {
                table
                    .column(name)
                    .ok_or_else(|| Error::invalid_identifier(name))
            })
            .collect::<Result<Vec<usize>>>()?;
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let (plan, rows) = self.with_reader_in(&dictionary, xid, &plan_binds, |reader| {
            let expressions: Vec<&ast::Expr> = statement
                .assignments
                .iter()
                .map(|(_, expr)| expr)
                .chain(statement.returning)
                .collect();
            let make = || {
                query::plan_table_statement(
                    reader,
                    &mut bind_values,
                    &table,
                    statement.alias,
                    statement.hint,
                    &expressions,
                    statement.where_clause,
                )
            };
            let plan = self.plan_of(pin, (text, &dictionary, valid), make, |plan| {
                let (operation, lines) = if statement.assignments.is_empty() {
                    ("DELETE", "DELETE STATEMENT")
                } else {
                    ("UPDATE", "UPDATE STATEMENT")
                };
                let explained = query::explain_table_statement(operation, lines, &table.name, plan);
                let cost = explained
                    .first()
                    .and_then(|line| line.estimate.as_ref())
                    .map(|estimate| estimate.cost);
                let summary = self.plan_summary(cost.is_some(), cost, &explained);
                (plan.reusable, summary)
            })?;
            let rows = query::matching_rows(reader, &table, &plan)?;
            Ok((plan, rows))
        })?;
        Ok(RowsToChange {
            dictionary,
            table,
            targets,
            plan,
            rows,
        })
    }

    pub(super) fn delete(
        &self,
        transaction: &mut Transaction,
        statement: &TableStatement,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<Changed> {
        let storage = self.instance.catalog().storage().clone();
        self.change_rows(
            transaction,
            statement,
            (text, binds),
            pin,
            |reader, transaction, found| {
                let RowsToChange {
                    table, plan, rows, ..
                } = found;
                let mut count = 0;
                let mut returned = Vec::new();
                let context = reader.row_context();
                let referenced = constraints::is_referenced(reader.dictionary, &table);
                // Referencing rows are looked at once the statement's rows are all deleted, as
                // Oracle checks at the end of the statement: `DELETE FROM t` of a table that
                // references itself removes parents and children together.
                let mut removed_rows = Vec::new();
                for (rowid, _) in rows {
                    let mut removed = None;
                    let deleted =
                        rows::delete_row(&storage, transaction, &table, rowid, &mut |current| {
                            let scope_row = plan.scope_row(current, rowid);
                            let accepted = plan.accepts(&scope_row, &context)?;
                            if accepted && referenced {
                                removed = Some(current.to_vec());
                            }
                            if accepted && !plan.expressions.is_empty() {
                                returned.push(
                                    plan.expressions
                                        .iter()
                                        .map(|expr| expr.evaluate(&scope_row, &context))
                                        .collect::<Result<Vec<_>>>()?,
                                );
                            }
                            Ok(accepted)
                        })?;
                    if let (true, Some(removed)) = (deleted, removed) {
                        removed_rows.push(removed);
                    }
                    count += deleted as u64;
                }
                for removed in removed_rows {
                    constraints::on_parent_change(
                        &storage,
                        transaction,
                        reader,
                        &table,
                        &removed,
                        None,
                        0,
                    )?;
                }
                Ok(Changed {
                    rows: count,
                    returned,
                })
            },
        )
    }
}
