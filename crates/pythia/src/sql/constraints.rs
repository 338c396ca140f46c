//! The constraints a row change is checked against beyond its table's own columns: CHECK
//! constraints (ORA-02290: FALSE fails, NULL passes), compiled against the table's columns
//! by the SQL layer's planner, and foreign keys (ORA-02291 for a child without its parent,
//! ORA-02292 for a parent with children, ON DELETE CASCADE and SET NULL), whose parent rows
//! are looked up through the parent key's index as of the statement's snapshot.
//!
//! Types, lengths, NOT NULL and unique keys are the row writes' own checks
//! (`catalog/rows.rs`).

use crate::access::heap::RowId;
use crate::catalog::rows::{delete_row, update_row};
use crate::catalog::{Storage, TableDef, OWNER};
use crate::error::{Error, Result};
use crate::transaction::Transaction;
use crate::types::{coerce_to_column, encode_key, Value};

/// A table's CHECK constraints compiled against its columns, in `table.checks` order.
pub fn compile_checks(
    reader: &crate::sql::query::Reader,
    table: &std::sync::Arc<TableDef>,
) -> Result<Vec<crate::sql::eval::Expr>> {
    if table.checks.is_empty() {
        return Ok(Vec::new());
    }
    let conditions: Vec<&crate::syntax::ast::Expr> =
        table.checks.iter().map(|check| &check.condition).collect();
    let mut binds = crate::sql::query::BindValues::default();
    let plan = crate::sql::query::plan_table_statement(
        reader,
        &mut binds,
        table,
        None,
        None,
        &conditions,
        None,
    )?;
    Ok(plan.expressions)
}

/// ORA-02290 for the first CHECK constraint `row` makes FALSE (NULL passes, as in Oracle).
/// `compiled` is [`compile_checks`]'s result for `checks`.
pub fn enforce_checks(
    checks: &[crate::catalog::CheckConstraint],
    compiled: &[crate::sql::eval::Expr],
    row: &[Value],
    context: &crate::sql::eval::Context,
) -> Result<()> {
    for (check, condition) in checks.iter().zip(compiled) {
        let value = condition.evaluate(row, context)?;
        if crate::sql::eval::truth(&value) == Some(false) {
            return Err(check_violated(&check.name));
        }
    }
    Ok(())
}

/// ORA-02290: check constraint (SYSTEM.NAME) violated.
pub fn check_violated(name: &str) -> Error {
    Error::new(2290, format!("check constraint ({OWNER}.{name}) violated"))
}

/// Cascades (ON DELETE CASCADE through tables referencing tables) go at most this deep.
pub const CASCADE_DEPTH_MAX: usize = 32;

/// The positions of named columns of a table (ORA-00904 for a name it does not have).
fn positions_of(table: &TableDef, names: &[String]) -> Result<Vec<usize>> {
    names
        .iter()
        .map(|name| {
            table
                .column(name)
                .ok_or_else(|| Error::invalid_identifier(name))
        })
        .collect()
}

fn same_values(left: &[Value], right: &[Value]) -> Result<bool> {
    for (left, right) in left.iter().zip(right) {
        if crate::sql::eval::compare(left, right)? != Some(std::cmp::Ordering::Equal) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a row of `parent` visible to `reader` has `values` in the columns at
/// `positions`: through the parent key's unique index when there is one.
fn key_exists(
    reader: &crate::sql::query::Reader,
    parent: &TableDef,
    positions: &[usize],
    values: &[Value],
) -> Result<bool> {
    let mut converted = Vec::with_capacity(values.len());
    for (value, &position) in values.iter().zip(positions) {
        match coerce_to_column(value.clone(), &parent.columns[position].data_type, "") {
            Ok(value) => converted.push(value),
            Err(_) => return Ok(false), // no parent row can hold it
        }
    }
    let matches = |row: &[Value]| -> Result<bool> {
        let key: Vec<Value> = positions.iter().map(|&p| row[p].clone()).collect();
        same_values(&key, &converted)
    };
    if let Some(index) = parent
        .indexes
        .iter()
        .find(|index| index.unique && index.columns == positions)
    {
        let mut key = Vec::new();
        encode_key(&converted, &index.descending, &mut key);
        for entry in index.tree.lookup(&reader.storage.cache, &key)? {
            if let Some(row) = reader.fetch(parent, RowId::from_u64(entry.rowid))? {
                if matches(&row)? {
                    return Ok(true);
                }
            }
        }
        return Ok(false);
    }
    let mut found = false;
    reader.scan_table(parent, &mut |_, row| {
        found = matches(row)?;
        Ok(!found)
    })?;
    Ok(found)
}

/// ORA-02291 unless every FOREIGN KEY of `table` is satisfied by `row`: a NULL in its
/// columns, or a parent row with its values. With `before` (an UPDATE), only keys whose
/// values changed are looked up.
pub fn check_parent_keys(
    reader: &crate::sql::query::Reader,
    table: &TableDef,
    row: &[Value],
    before: Option<&[Value]>,
) -> Result<()> {
    for key in &table.foreign_keys {
        let positions = positions_of(table, &key.columns)?;
        let values: Vec<Value> = positions.iter().map(|&p| row[p].clone()).collect();
        if values.iter().any(Value::is_null) {
            continue;
        }
        if let Some(before) = before {
            let old: Vec<Value> = positions.iter().map(|&p| before[p].clone()).collect();
            if same_values(&old, &values)? {
                continue;
            }
        }
        let parent = reader.dictionary.table(&key.parent)?;
        let parent_positions = positions_of(parent, &key.parent_columns)?;
        if !key_exists(reader, parent, &parent_positions, &values)? {
            return Err(Error::new(
                2291,
                format!(
                    "integrity constraint ({OWNER}.{}) violated - parent key not found",
                    key.name
                ),
            ));
        }
    }
    Ok(())
}

/// Whether some table has a FOREIGN KEY referencing `table`.
pub fn is_referenced(dictionary: &crate::catalog::Dictionary, table: &TableDef) -> bool {
    dictionary.tables.values().any(|other| {
        other
            .foreign_keys
            .iter()
            .any(|key| key.parent == table.name)
    })
}

/// What removing a parent row (DELETE: `after` None) or changing its key (UPDATE) does to
/// the rows that reference it: ORA-02292 when there are any, unless the key says ON DELETE
/// CASCADE (they are deleted, and so on down) or ON DELETE SET NULL (their key columns
/// become NULL). The referencing rows are found by a scan of each child table.
pub fn on_parent_change(
    storage: &Storage,
    transaction: &mut Transaction,
    reader: &crate::sql::query::Reader,
    table: &TableDef,
    before: &[Value],
    after: Option<&[Value]>,
    depth: usize,
) -> Result<()> {
    if depth > CASCADE_DEPTH_MAX {
        return Err(Error::new(
            36,
            format!("maximum number of recursive SQL levels ({CASCADE_DEPTH_MAX}) exceeded"),
        ));
    }
    let children: Vec<std::sync::Arc<TableDef>> = reader
        .dictionary
        .tables
        .values()
        .filter(|child| {
            child
                .foreign_keys
                .iter()
                .any(|key| key.parent == table.name)
        })
        .cloned()
        .collect();
    for child in children {
        for key in child
            .foreign_keys
            .iter()
            .filter(|key| key.parent == table.name)
        {
            let parent_positions = positions_of(table, &key.parent_columns)?;
            let values: Vec<Value> = parent_positions
                .iter()
                .map(|&p| before[p].clone())
                .collect();
            if values.iter().any(Value::is_null) {
                continue;
            }
            if let Some(after) = after {
                let new: Vec<Value> = parent_positions.iter().map(|&p| after[p].clone()).collect();
                if same_values(&values, &new)? {
                    continue;
                }
            }
            let child_positions = positions_of(&child, &key.columns)?;
            let mut found = Vec::new();
            reader.scan_table(&child, &mut |rowid, row| {
                let key_values: Vec<Value> =
                    child_positions.iter().map(|&p| row[p].clone()).collect();
                if same_values(&key_values, &values)? {
                    found.push((rowid, row.to_vec()));
                }
                Ok(true)
            })?;
            if found.is_empty() {
                continue;
            }
            match (after, key.on_delete) {
                (None, Some(crate::syntax::ast::ReferentialAction::Cascade)) => {
                    for (rowid, row) in found {
                        if delete_row(storage, transaction, &child, rowid, &mut |_| Ok(true))? {
                            on_parent_change(
                                storage,
                                transaction,
                                reader,
                                &child,
                                &row,
                                None,
                                depth + 1,
                            )?;
                        }
                    }
                }
                (None, Some(crate::syntax::ast::ReferentialAction::SetNull)) => {
                    for (rowid, _) in found {
                        update_row(storage, transaction, &child, rowid, &mut |current| {
                            let mut row = current.to_vec();
                            for &position in &child_positions {
                                row[position] = Value::Null;
                            }
                            Ok(Some(row))
                        })?;
                    }
                }
                _ => {
                    return Err(Error::new(
                        2292,
                        format!(
                            "integrity constraint ({OWNER}.{}) violated - child record found",
                            key.name
                        ),
                    ))
                }
            }
        }
    }
    Ok(())
}
