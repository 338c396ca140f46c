//! ALTER TABLE: what the statement asks (ADD, MODIFY, RENAME, DROP of columns; ADD and
//! DROP CONSTRAINT), checked against the rows the table holds, then applied to the
//! dictionary as a `catalog::Alteration`.

use std::sync::Arc;

use super::ddl::check_conditions;
use super::ddl::columns_read;
use super::ddl::create_key_index;
use super::ddl::key_columns;
use super::ddl::resolve_foreign_key;
use super::unsupported;
use super::Session;
use crate::catalog::{self, Alteration, TableDef};
use crate::error::{Error, Result};
use crate::sql::constraints;
use crate::sql::query::{self, BindValues, Reader};
use crate::syntax::ast;
use crate::types::Value;

/// Renames a column wherever an expression (a CHECK condition) reads it.
pub(super) fn rename_column(expr: &mut ast::Expr, from: &str, to: &str) {
    if let ast::Expr::Column { name, .. } = expr {
        if name == from {
            *name = to.to_string();
        }
    }
    expr.for_each_child_mut(&mut |child| rename_column(child, from, to));
}

impl Session {
    /// ALTER TABLE: each action becomes an [`Alteration`] of the table (or, for keys, an
    /// index) applied by the catalog in one DDL transaction.
    pub(super) fn alter_table(
        &mut self,
        name: &ast::ObjectName,
        action: &ast::AlterTableAction,
    ) -> Result<()> {
        use ast::AlterTableAction as A;
        let instance = self.instance.clone();
        let catalog = instance.catalog();
        let table = self.table(name)?;
        match action {
            A::AddColumns(added) => {
                let new_columns = catalog::columns_from_ast(added)?;
                let mut fills = Vec::with_capacity(new_columns.len());
                let mut added_checks = Vec::new();
                for (column, declared) in new_columns.iter().zip(added) {
                    if table.column(&column.name).is_some() {
                        return Err(Error::new(
                            1430,
                            "column being added already exists in table",
                        ));
                    }
                    if declared.primary_key || declared.unique {
                        return Err(unsupported("keys in ALTER TABLE ... ADD column"));
                    }
                    for constraint in &declared.constraints {
                        match &constraint.kind {
                            ast::TableConstraintKind::Check(condition) => {
                                added_checks.push(catalog::CheckConstraint {
                                    name: constraint
                                        .name
                                        .clone()
                                        .unwrap_or_else(|| catalog.constraint_name()),
                                    condition: condition.clone(),
                                })
                            }
                            _ => return Err(unsupported("FOREIGN KEY constraints")),
                        }
                    }
                    // Oracle fills existing rows with the default, evaluated once.
                    let fill = match &column.default {
                        None => Value::Null,
                        Some(default) => self.with_reader(&BindValues::default(), |reader| {
                            let mut binds = BindValues::default();
                            query::compile_row_free(reader, &mut binds, default)?
                                .evaluate(&[], &reader.row_context())
                        })?,
                    };
                    if fill.is_null() && !column.nullable {
                        fills.push(None); // ORA-01758 if the table has rows
                    } else {
                        fills.push(Some(fill));
                    }
                }
                let table_name = table.name.clone();
                let mut all_columns = table.columns.clone();
                all_columns.extend(new_columns.iter().cloned());
                check_conditions(&all_columns, &added_checks)?;
                // The added CHECKs, compiled against the new shape, validate the rows as
                // they will be (ORA-02293), as Oracle does.
                let mut shaped = catalog::clone_table(&table);
                shaped.columns = all_columns;
                shaped.checks = added_checks.clone();
                let shaped = Arc::new(shaped);
                let compiled = self.with_reader(&BindValues::default(), |reader| {
                    constraints::compile_checks(reader, &shaped)
                })?;
                let (dictionary, xid) = self.reader_parts();
                self.with_reader_in(&dictionary, xid, &BindValues::default(), |reader| {
                let context = reader.row_context();
                let context = &context;
                let compiled = &compiled;
                let shaped = &shaped;
                catalog.alter_table(&table.name, move |old| {
                    let mut alteration = Alteration::of(old);
                    alteration.columns.extend(new_columns);
                    alteration.checks.extend(added_checks);
                    if !compiled.is_empty() {
                        alteration.validate_new = Some(Box::new(move |row: &[Value]| {
                            for (check, condition) in shaped.checks.iter().zip(compiled) {
                                let value = condition.evaluate(row, context)?;
                                if crate::sql::eval::truth(&value) == Some(false) {
                                    return Err(Error::new(
                                        2293,
                                        format!(
                                            "cannot validate ({}.{}) - check constraint violated",
                                            catalog::OWNER,
                                            check.name
                                        ),
                                    ));
                                }
                            }
                            Ok(())
                        }));
                    }
                    if fills.iter().any(Option::is_none) {
                        alteration.validate = Some(Box::new(move |_| {
                            Err(Error::new(
                                1758,
                                format!(
                                    "table {table_name} must be empty to add mandatory (NOT NULL) column"
                                ),
                            ))
                        }));
                    } else if fills.iter().any(|fill| !matches!(fill, Some(Value::Null))) {
                        let fills: Vec<Value> = fills.into_iter().flatten().collect();
                        alteration.rewrite = Some(Box::new(move |mut row| {
                            row.extend(fills.iter().cloned());
                            Ok(row)
                        }));
                    }
                    Ok(alteration)
                })
                })
            }
            A::DropColumn(column) => {
                let position = table
                    .column(column)
                    .ok_or_else(|| Error::invalid_identifier(column))?;
                if catalog.current().tables.values().any(|other| {
                    other
                        .foreign_keys
                        .iter()
                        .any(|key| key.parent == table.name && key.parent_columns.contains(column))
                }) {
                    return Err(Error::new(12992, "cannot drop parent key column"));
                }
                let column = column.clone();
                catalog.alter_table(&table.name, move |old| {
                    let mut alteration = Alteration::of(old);
                    alteration.columns.remove(position);
                    let mut checks = Vec::new();
                    for check in alteration.checks {
                        let read = columns_read(&check.condition);
                        if !read.contains(&column) {
                            checks.push(check);
                        } else if read.len() > 1 {
                            return Err(Error::new(
                                12991,
                                "column is referenced in a multi-column constraint",
                            ));
                        }
                    }
                    alteration.checks = checks;
                    let mut foreign_keys = Vec::new();
                    for key in alteration.foreign_keys {
                        if !key.columns.contains(&column) {
                            foreign_keys.push(key);
                        } else if key.columns.len() > 1 {
                            return Err(Error::new(
                                12991,
                                "column is referenced in a multi-column constraint",
                            ));
                        }
                    }
                    alteration.foreign_keys = foreign_keys;
                    alteration.dropped_column = Some(position);
                    alteration.rewrite = Some(Box::new(move |mut row| {
                        row.remove(position);
                        Ok(row)
                    }));
                    Ok(alteration)
                })
            }
            A::ModifyColumns(modifications) => self.modify_columns(&table, modifications),
            A::RenameTo(new_name) => {
                let new_name = new_name.clone();
                catalog.alter_table(&table.name, move |old| {
                    let mut alteration = Alteration::of(old);
                    alteration.name = new_name;
                    Ok(alteration)
                })
            }
            A::RenameColumn { from, to } => {
                let position = table
                    .column(from)
                    .ok_or_else(|| Error::invalid_identifier(from))?;
                if table.column(to).is_some() {
                    return Err(Error::new(957, "duplicate column name"));
                }
                let (from, to) = (from.clone(), to.clone());
                catalog.alter_table(&table.name, move |old| {
                    let mut alteration = Alteration::of(old);
                    alteration.columns[position].name = to.clone();
                    for check in &mut alteration.checks {
                        rename_column(&mut check.condition, &from, &to);
                    }
                    Ok(alteration)
                })
            }
            A::AddConstraint(constraint) => self.add_constraint(&table, constraint),
            A::DropConstraint(constraint) => self.drop_constraint(&table, constraint),
            A::DropPrimaryKey | A::DropUnique(_) => {
                let wanted = match action {
                    A::DropUnique(columns) => Some(columns),
                    _ => None,
                };
                let found = table.indexes.iter().find(|index| {
                    let names: Vec<&String> = index
                        .columns
                        .iter()
                        .map(|&position| &table.columns[position].name)
                        .collect();
                    index.constraint.is_some()
                        && match wanted {
                            None => index.primary,
                            Some(columns) => {
                                !index.primary && names.iter().copied().eq(columns.iter())
                            }
                        }
                });
                match found.and_then(|index| index.constraint.clone()) {
                    Some(constraint) => self.drop_constraint(&table, &constraint),
                    None if wanted.is_some() => {
                        Err(Error::new(2442, "Cannot drop nonexistent unique key"))
                    }
                    None => Err(Error::new(2441, "Cannot drop nonexistent primary key")),
                }
            }
            // Only the pool and CACHE are kept (PCTFREE and the rest are read and dropped).
            A::Attributes { storage, cache } => {
                if storage.buffer_pool.is_none() && cache.is_none() {
                    return Ok(());
                }
                catalog.alter_table(&table.name, |old| {
                    let mut alteration = Alteration::of(old);
                    alteration.buffer_pool = storage.buffer_pool.unwrap_or(old.buffer_pool);
                    alteration.cache = cache.unwrap_or(old.cache);
                    Ok(alteration)
                })
            }
        }
    }

    /// ALTER TABLE ... MODIFY: new types, defaults and NULL / NOT NULL, checked against
    /// the rows there are (ORA-02296, ORA-01439, ORA-01440, ORA-01441).
    pub(super) fn modify_columns(
        &mut self,
        table: &Arc<TableDef>,
        modifications: &[ast::ColumnModification],
    ) -> Result<()> {
        let instance = self.instance.clone();
        let catalog = instance.catalog();
        let mut columns = table.columns.clone();
        // Per changed column: (position, must not be NULL, type changed).
        let mut checks: Vec<(usize, bool, bool)> = Vec::new();
        for modification in modifications {
            let position = table
                .column(&modification.name)
                .ok_or_else(|| Error::invalid_identifier(&modification.name))?;
            let column = &mut columns[position];
            let mut type_changed = false;
            if let Some(data_type) = &modification.data_type {
                let data_type = catalog::data_type_from_ast(data_type)?;
                data_type.validate()?;
                type_changed = data_type != column.data_type;
                column.data_type = data_type;
            }
            if let Some(default) = &modification.default {
                column.default = match default {
                    ast::Expr::Literal(ast::Literal::Null) => None,
                    other => Some(other.clone()),
                };
            }
            let mut not_null = false;
            if let Some(required) = modification.not_null {
                if required && !column.nullable {
                    return Err(Error::new(
                        1442,
                        "column to be modified to NOT NULL is already NOT NULL",
                    ));
                }
                if !required && column.nullable {
                    return Err(Error::new(
                        1451,
                        "column to be modified to NULL cannot be modified to NULL",
                    ));
                }
                if !required
                    && table
                        .indexes
                        .iter()
                        .any(|index| index.primary && index.columns.contains(&position))
                {
                    return Err(Error::new(
                        1451,
                        "column to be modified to NULL cannot be modified to NULL",
                    ));
                }
                column.nullable = !required;
                not_null = required;
            }
            checks.push((position, not_null, type_changed));
        }
        let old_columns = table.columns.clone();
        let new_columns = columns.clone();
        let table_name = table.name.clone();
        catalog.alter_table(&table.name, move |old| {
            let mut alteration = Alteration::of(old);
            alteration.columns = columns;
            let validations = checks.clone();
            let table_name = table_name.clone();
            alteration.validate = Some(Box::new(move |row| {
                for &(position, not_null, type_changed) in &validations {
                    let value = &row[position];
                    if value.is_null() {
                        if not_null {
                            return Err(Error::new(
                                2296,
                                format!(
                                    "cannot enable ({}.{table_name}) - null values found",
                                    catalog::OWNER
                                ),
                            ));
                        }
                        continue;
                    }
                    if !type_changed {
                        continue;
                    }
                    let (old_type, new_type) = (
                        old_columns[position].data_type,
                        new_columns[position].data_type,
                    );
                    if old_type.is_numeric() != new_type.is_numeric()
                        || old_type.is_text() != new_type.is_text()
                        || old_type.is_datetime() != new_type.is_datetime()
                    {
                        return Err(Error::new(
                            1439,
                            "column to be modified must be empty to change datatype",
                        ));
                    }
                    let name = &new_columns[position].name;
                    match crate::types::coerce_to_column(value.clone(), &new_type, name) {
                        Ok(converted) if converted == *value || new_type.is_text() => {}
                        Ok(_) | Err(_) if new_type.is_numeric() => return Err(Error::new(
                            1440,
                            "column to be modified must be empty to decrease precision or scale",
                        )),
                        _ => {
                            return Err(Error::new(
                                1441,
                                "cannot decrease column length because some value is too big",
                            ))
                        }
                    }
                }
                Ok(())
            }));
            if checks.iter().any(|&(_, _, type_changed)| type_changed) {
                // Values are converted to the new types (CHAR pads, for one).
                alteration.rewrite = Some(Box::new(Ok));
            }
            Ok(alteration)
        })
    }

    pub(super) fn add_constraint(
        &mut self,
        table: &Arc<TableDef>,
        constraint: &ast::TableConstraint,
    ) -> Result<()> {
        let instance = self.instance.clone();
        let catalog = instance.catalog();
        let name = constraint
            .name
            .clone()
            .unwrap_or_else(|| catalog.constraint_name());
        if self.constraint_exists(&name) {
            return Err(Error::new(
                2264,
                "name already used by an existing constraint",
            ));
        }
        match &constraint.kind {
            ast::TableConstraintKind::PrimaryKey { columns } => {
                if table.indexes.iter().any(|index| index.primary) {
                    return Err(Error::new(2260, "table can have only one primary key"));
                }
                // A primary key's columns become NOT NULL: ORA-02437 when a NULL is there.
                let mut positions = Vec::new();
                for column in columns {
                    positions.push(
                        table
                            .column(column)
                            .ok_or_else(|| Error::invalid_identifier(column))?,
                    );
                }
                // One DDL statement: the columns become NOT NULL and the key's index is
                // made together, or neither happens (duplicates roll both back).
                let constraint_name = name.clone();
                catalog.statement(|statement| {
                    statement.alter_table(&table.name, move |old| {
                        let mut alteration = Alteration::of(old);
                        for &position in &positions {
                            alteration.columns[position].nullable = false;
                        }
                        let check_positions = positions.clone();
                        alteration.validate = Some(Box::new(move |row| {
                            if check_positions.iter().any(|&p| row[p].is_null()) {
                                return Err(Error::new(
                                    2437,
                                    format!(
                                    "cannot validate ({}.{constraint_name}) - primary key violated",
                                    catalog::OWNER
                                ),
                                ));
                            }
                            Ok(())
                        }));
                        Ok(alteration)
                    })?;
                    create_key_index(statement, &table.name, &name, columns, true)
                })
            }
            ast::TableConstraintKind::Unique { columns } => catalog.statement(|statement| {
                create_key_index(statement, &table.name, &name, columns, false)
            }),
            ast::TableConstraintKind::Check(condition) => {
                let check = catalog::CheckConstraint {
                    name: name.clone(),
                    condition: condition.clone(),
                };
                check_conditions(&table.columns, std::slice::from_ref(&check))?;
                // The new constraint's condition, compiled against the table, checks every row.
                let compiled = self.with_reader(&BindValues::default(), |reader| {
                    let conditions = [&check.condition];
                    query::plan_table_statement(
                        reader,
                        &mut BindValues::default(),
                        table,
                        None,
                        None,
                        &conditions,
                        None,
                    )
                    .map(|plan| plan.expressions)
                })?;
                let (dictionary, xid) = self.reader_parts();
                let result = self.with_reader_in(&dictionary, xid, &BindValues::default(), |reader| {
                    let context = reader.row_context();
                    let compiled = &compiled;
                    let check_name = name.clone();
                    catalog.alter_table(&table.name, |old| {
                        let mut alteration = Alteration::of(old);
                        alteration.checks.push(check.clone());
                        let context = &context;
                        alteration.validate = Some(Box::new(move |row: &[Value]| {
                            let value = compiled[0].evaluate(row, context)?;
                            if crate::sql::eval::truth(&value) == Some(false) {
                                return Err(Error::new(
                                    2293,
                                    format!(
                                        "cannot validate ({}.{check_name}) - check constraint violated",
                                        catalog::OWNER
                                    ),
                                ));
                            }
                            Ok(())
                        }));
                        Ok(alteration)
                    })
                });
                result
            }
            ast::TableConstraintKind::ForeignKey {
                columns,
                references,
            } => {
                let mut key = catalog::ForeignKey {
                    name: name.clone(),
                    columns: columns.clone(),
                    parent: references.table.name.clone(),
                    parent_columns: references.columns.clone(),
                    on_delete: references.on_delete,
                };
                let own_keys = key_columns(table);
                resolve_foreign_key(
                    &catalog.current(),
                    &table.name,
                    &table.columns,
                    &own_keys,
                    &mut key,
                )?;
                let xid = 0;
                self.with_reader(&BindValues::default(), |reader| {
                    let reader = Reader { xid, ..*reader };
                    let mut probe = catalog::clone_table(table);
                    probe.foreign_keys = vec![key.clone()];
                    catalog.alter_table(&table.name, |old| {
                        let mut alteration = Alteration::of(old);
                        alteration.foreign_keys.push(key.clone());
                        let probe = &probe;
                        let reader = &reader;
                        let key_name = key.name.clone();
                        alteration.validate = Some(Box::new(move |row: &[Value]| {
                            constraints::check_parent_keys(reader, probe, row, None).map_err(|error| {
                                if error.code() == 2291 {
                                    Error::new(
                                        2298,
                                        format!(
                                            "cannot validate ({}.{key_name}) - parent keys not found",
                                            catalog::OWNER
                                        ),
                                    )
                                } else {
                                    error
                                }
                            })
                        }));
                        Ok(alteration)
                    })
                })
            }
        }
    }

    pub(super) fn constraint_exists(&self, name: &str) -> bool {
        let dictionary = self.instance.catalog().current();
        dictionary
            .indexes
            .values()
            .any(|index| index.constraint.as_deref() == Some(name))
            || dictionary.tables.values().any(|table| {
                table.checks.iter().any(|check| check.name == name)
                    || table.foreign_keys.iter().any(|key| key.name == name)
            })
    }

    pub(super) fn drop_constraint(&mut self, table: &Arc<TableDef>, name: &str) -> Result<()> {
        let instance = self.instance.clone();
        let catalog = instance.catalog();
        if let Some(index) = table
            .indexes
            .iter()
            .find(|index| index.constraint.as_deref() == Some(name))
        {
            let names: Vec<String> = index
                .columns
                .iter()
                .map(|&position| table.columns[position].name.clone())
                .collect();
            if catalog.current().tables.values().any(|other| {
                other
                    .foreign_keys
                    .iter()
                    .any(|key| key.parent == table.name && key.parent_columns == names)
            }) {
                return Err(Error::new(
                    2273,
                    "this unique/primary key is referenced by some foreign keys",
                ));
            }
            return catalog.drop_constraint_index(&index.name);
        }
        if table.foreign_keys.iter().any(|key| key.name == name) {
            let name = name.to_string();
            return catalog.alter_table(&table.name, move |old| {
                let mut alteration = Alteration::of(old);
                alteration.foreign_keys.retain(|key| key.name != name);
                Ok(alteration)
            });
        }
        if !table.checks.iter().any(|check| check.name == name) {
            return Err(Error::new(
                2443,
                "Cannot drop constraint - nonexistent constraint",
            ));
        }
        let name = name.to_string();
        catalog.alter_table(&table.name, move |old| {
            let mut alteration = Alteration::of(old);
            alteration.checks.retain(|check| check.name != name);
            Ok(alteration)
        })
    }
}
