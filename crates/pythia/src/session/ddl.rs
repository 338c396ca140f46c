//! DDL: CREATE and DROP of tables, indexes, views and sequences, TRUNCATE, COMMENT,
//! ANALYZE; each commits what is open first (as Oracle does) and runs in the catalog's own
//! transaction. ALTER TABLE has its own file (`alter_table.rs`); the key and constraint
//! helpers both share are here.

use super::unsupported;
use super::{Session, StatementResult};
use crate::buffer::BufferPool;
use crate::catalog::{self, Alteration, Dictionary, TableDef};
use crate::error::{Error, Result};
use crate::sql::gather::{self, SampleSize};
use crate::sql::query::{self, BindValues};
use crate::syntax::ast::{self, Statement};
use crate::types::RowSet;
use crate::types::Value;

/// Columns for CREATE TABLE AS SELECT from the query's result: its names, its types, and
/// where the planner does not know a type, the first value's (NUMBER, VARCHAR2(4000),
/// DATE, ...; a column of NULLs only is VARCHAR2(4000)).
pub(super) fn query_columns(result: &RowSet) -> Result<Vec<catalog::ColumnDef>> {
    let mut columns: Vec<catalog::ColumnDef> = Vec::with_capacity(result.columns.len());
    for (position, (name, data_type)) in result.columns.iter().enumerate() {
        if columns.iter().any(|column| &column.name == name) {
            return Err(Error::new(957, "duplicate column name"));
        }
        let valid_name = !name.is_empty()
            && name.len() <= catalog::OBJECT_NAME_BYTES_MAX
            && !name.contains(['(', ')', ' ', '+', '-', '*', '/', '|', '\'', ',']);
        if !valid_name {
            return Err(Error::new(
                998,
                "must name this expression with a column alias",
            ));
        }
        let data_type = match data_type {
            Some(crate::types::DataType::Varchar2 { length }) => {
                // The planner's length is a guess for expressions: keep the longest value.
                let longest = result
                    .rows
                    .iter()
                    .filter_map(|row| row[position].as_str().map(str::len))
                    .max()
                    .unwrap_or(0) as u32;
                crate::types::DataType::varchar2(
                    (*length)
                        .max(longest)
                        .clamp(1, crate::types::VARCHAR2_BYTES_MAX),
                )
            }
            Some(data_type) => *data_type,
            None => {
                let first = result
                    .rows
                    .iter()
                    .map(|row| &row[position])
                    .find(|value| !value.is_null());
                match first {
                    Some(Value::Number(_)) => crate::types::DataType::number(),
                    Some(Value::Float(_)) => crate::types::DataType::Float,
                    Some(Value::Date(_)) => crate::types::DataType::Date,
                    Some(Value::Timestamp(_)) => crate::types::DataType::Timestamp,
                    Some(Value::Boolean(_)) => crate::types::DataType::Boolean,
                    _ => crate::types::DataType::varchar2(crate::types::VARCHAR2_BYTES_MAX),
                }
            }
        };
        columns.push(catalog::ColumnDef {
            name: name.clone(),
            data_type,
            nullable: true,
            default: None,
        });
    }
    Ok(columns)
}

/// A table's PRIMARY KEY and UNIQUE constraints: (column names, is primary).
pub(super) fn key_columns(table: &TableDef) -> Vec<(Vec<String>, bool)> {
    table
        .indexes
        .iter()
        .filter(|index| index.constraint.is_some())
        .map(|index| {
            let names = index
                .columns
                .iter()
                .map(|&position| table.columns[position].name.clone())
                .collect();
            (names, index.primary)
        })
        .collect()
}

/// Checks a FOREIGN KEY of table `name` (whose columns and keys are given, since it may
/// not exist yet) and fills in the parent's primary key columns when none were written:
/// ORA-00942 (no parent table), ORA-00904, ORA-02268 (a parent without a primary key),
/// ORA-02256 (column counts differ), ORA-02270 (no PRIMARY KEY or UNIQUE constraint of the
/// parent is exactly those columns).
pub(super) fn resolve_foreign_key(
    dictionary: &Dictionary,
    name: &str,
    columns: &[catalog::ColumnDef],
    own_keys: &[(Vec<String>, bool)],
    key: &mut catalog::ForeignKey,
) -> Result<()> {
    for column in &key.columns {
        if !columns.iter().any(|c| &c.name == column) {
            return Err(Error::invalid_identifier(column));
        }
    }
    let (parent_columns, parent_keys): (Vec<String>, Vec<(Vec<String>, bool)>) =
        if key.parent == name {
            (
                columns.iter().map(|c| c.name.clone()).collect(),
                own_keys.to_vec(),
            )
        } else {
            let parent = dictionary.table(&key.parent)?;
            (
                parent.columns.iter().map(|c| c.name.clone()).collect(),
                key_columns(parent),
            )
        };
    if key.parent_columns.is_empty() {
        key.parent_columns = parent_keys
            .iter()
            .find(|(_, primary)| *primary)
            .map(|(columns, _)| columns.clone())
            .ok_or_else(|| Error::new(2268, "referenced table does not have a primary key"))?;
    }
    for column in &key.parent_columns {
        if !parent_columns.contains(column) {
            return Err(Error::invalid_identifier(column));
        }
    }
    if key.parent_columns.len() != key.columns.len() {
        return Err(Error::new(
            2256,
            "number of referencing columns must match referenced columns",
        ));
    }
    if !parent_keys
        .iter()
        .any(|(columns, _)| *columns == key.parent_columns)
    {
        return Err(Error::new(
            2270,
            "no matching unique or primary key for this column-list",
        ));
    }
    Ok(())
}

/// Functions whose value depends on when or by whom they are called: not in a CHECK.
pub(super) const VOLATILE_FUNCTIONS: &[&str] = &[
    "SYSDATE",
    "SYSTIMESTAMP",
    "CURRENT_DATE",
    "CURRENT_TIMESTAMP",
    "LOCALTIMESTAMP",
    "USER",
    "UID",
    "CURRENT_USER",
    "SESSION_USER",
    "USERENV",
    "SYS_CONTEXT",
    "SYS_GUID",
];

/// Checks that CHECK conditions print (no subqueries or binds: ORA-02251), call no
/// function whose value changes with time or session (ORA-02436; nor a package's, such
/// as DBMS_RANDOM.VALUE) and read only the table's columns (ORA-00904).
pub(super) fn check_conditions(
    columns: &[catalog::ColumnDef],
    checks: &[catalog::CheckConstraint],
) -> Result<()> {
    for check in checks {
        crate::syntax::print::expression(&check.condition)?;
        // A condition must give the same answer for a row at any time (Oracle).
        let mut volatile = None;
        ast::Node::Expr(&check.condition).walk(&mut |node| {
            if let ast::Node::Expr(ast::Expr::Function { name, .. }) = node {
                if VOLATILE_FUNCTIONS.contains(&name.as_str()) || name.contains('.') {
                    volatile.get_or_insert_with(|| name.clone());
                }
            }
        });
        if let Some(name) = volatile {
            return Err(Error::new(
                2436,
                format!("date or system variable wrongly specified in CHECK constraint ({name})"),
            ));
        }
        for name in columns_read(&check.condition) {
            if !columns.iter().any(|column| column.name == name) {
                return Err(Error::invalid_identifier(&name));
            }
        }
    }
    Ok(())
}

/// The names of the columns an expression reads.
pub(super) fn columns_read(expr: &ast::Expr) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    ast::Node::Expr(expr).walk(&mut |node| {
        if let ast::Node::Expr(ast::Expr::Column { name, .. }) = node {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    });
    names
}

/// The index of a PRIMARY KEY or UNIQUE constraint of table `table_name`, made in
/// `statement`: unique, in ascending order, in the DEFAULT pool (there is no USING INDEX
/// clause). Duplicates in the rows are ORA-02437 (primary key) or ORA-02299 (unique), as
/// Oracle reports them.
pub(super) fn create_key_index(
    statement: &mut catalog::DdlStatement,
    table_name: &str,
    name: &str,
    columns: &[String],
    primary: bool,
) -> Result<()> {
    let ascending: Vec<(String, bool)> = columns
        .iter()
        .map(|column| (column.clone(), false))
        .collect();
    let created = statement.create_index(
        name,
        table_name,
        &ascending,
        true,
        Some((name, primary)),
        BufferPool::Default,
    );
    match created {
        Err(error) if error.code() == 1452 && primary => Err(Error::new(
            2437,
            format!(
                "cannot validate ({}.{name}) - primary key violated",
                catalog::OWNER
            ),
        )),
        Err(error) if error.code() == 1452 => Err(Error::new(
            2299,
            format!(
                "cannot validate ({}.{name}) - duplicate keys found",
                catalog::OWNER
            ),
        )),
        other => other,
    }
}

/// DROP TABLE of a table other tables' foreign keys reference: ORA-02449, or with CASCADE
/// CONSTRAINTS those foreign keys are dropped first, in the same `statement`. The foreign
/// keys of tables in `dropping` (the statement's other tables, which go too) never stop it.
pub(super) fn drop_referenced_keys(
    statement: &mut catalog::DdlStatement,
    name: &str,
    cascade: bool,
    dropping: &[&str],
) -> Result<()> {
    let children: Vec<String> = statement
        .dictionary()
        .tables
        .values()
        .filter(|other| {
            other.name != name && other.foreign_keys.iter().any(|key| key.parent == name)
        })
        .map(|other| other.name.clone())
        .collect();
    if children.is_empty() {
        return Ok(());
    }
    let outside = children
        .iter()
        .any(|child| !dropping.contains(&child.as_str()));
    if outside && !cascade {
        return Err(Error::new(
            2449,
            "unique/primary keys in table referenced by foreign keys",
        ));
    }
    for child in children {
        statement.alter_table(&child, |old| {
            let mut alteration = Alteration::of(old);
            alteration.foreign_keys.retain(|key| key.parent != name);
            Ok(alteration)
        })?;
    }
    Ok(())
}

impl Session {
    pub(super) fn ddl(
        &mut self,
        statement: &Statement,
        text: &str,
        binds: &[Value],
    ) -> Result<StatementResult> {
        let catalog = self.instance.catalog();
        match statement {
            Statement::Analyze { table, action } => {
                let table = self.table(table)?;
                let sample = match action {
                    ast::AnalyzeAction::Delete => {
                        catalog.set_statistics(&table.name, table.object_id, |_| Ok(None))?;
                        return Ok(StatementResult::done("Table analyzed."));
                    }
                    ast::AnalyzeAction::Compute => SampleSize::All,
                    ast::AnalyzeAction::Estimate(sample) => match *sample {
                        None => SampleSize::Rows(gather::ESTIMATE_ROWS_DEFAULT),
                        Some(ast::Sample::Rows(0) | ast::Sample::Percent(0)) => {
                            return Err(Error::new(
                                1490,
                                "invalid ANALYZE command: the sample must be at least 1",
                            ))
                        }
                        Some(ast::Sample::Rows(rows)) => SampleSize::Rows(rows as u64),
                        Some(ast::Sample::Percent(percent)) if percent >= 100 => SampleSize::All,
                        Some(ast::Sample::Percent(percent)) => SampleSize::Percent(percent as f64),
                    },
                };
                self.gather(&table, sample, true)?;
                Ok(StatementResult::done("Table analyzed."))
            }
            Statement::Call(call) => {
                self.procedure_call(call, binds)?;
                Ok(StatementResult::done("Call completed."))
            }
            Statement::CreateTable {
                name,
                if_not_exists,
                columns,
                constraints,
                column_names,
                as_query,
                storage,
                cache,
            } => {
                if *if_not_exists && catalog.current().tables.contains_key(&name.name) {
                    return Ok(StatementResult::done("Table created."));
                }
                self.create_table(
                    &name.name,
                    columns,
                    constraints,
                    column_names,
                    as_query.as_deref(),
                    (
                        storage.buffer_pool.unwrap_or_default(),
                        cache.unwrap_or(false),
                    ),
                )?;
                Ok(StatementResult::done("Table created."))
            }
            Statement::AlterTable { name, action } => {
                self.alter_table(name, action)?;
                Ok(StatementResult::done("Table altered."))
            }
            Statement::Comment {
                table,
                column,
                text,
            } => {
                let table = self.table(table)?;
                catalog.comment(&table.name, column.as_deref(), text)?;
                Ok(StatementResult::done("Comment created."))
            }
            Statement::Rename { from, to } => {
                if !catalog.current().tables.contains_key(&from.name) {
                    return Err(Error::table_not_found());
                }
                let to = to.name.clone();
                catalog.alter_table(&from.name, |table| {
                    let mut alteration = Alteration::of(table);
                    alteration.name = to;
                    Ok(alteration)
                })?;
                Ok(StatementResult::done("Table renamed."))
            }
            Statement::DropTable {
                names,
                if_exists,
                cascade_constraints,
                ..
            } => {
                // PostgreSQL's list: every name is checked before any table goes, so that a
                // missing one (without IF EXISTS) drops nothing; IF EXISTS skips the missing.
                // One DDL statement: the tables, and the foreign keys CASCADE CONSTRAINTS
                // drops, go together or not at all.
                catalog.statement(|statement| {
                    let mut existing = Vec::with_capacity(names.len());
                    for name in names {
                        if statement.dictionary().tables.contains_key(&name.name) {
                            existing.push(name.name.as_str());
                        } else if !*if_exists {
                            return Err(Error::table_not_found());
                        }
                    }
                    for name in &existing {
                        drop_referenced_keys(statement, name, *cascade_constraints, &existing)?;
                        statement.drop_table(name)?;
                    }
                    Ok(())
                })?;
                Ok(StatementResult::done("Table dropped."))
            }
            Statement::Truncate { tables } => {
                // A list (PostgreSQL's) is one DDL statement: every table or none.
                catalog.statement(|statement| {
                    for table in tables {
                        let referenced = statement.dictionary().tables.values().any(|other| {
                            other.name != table.name
                                && other
                                    .foreign_keys
                                    .iter()
                                    .any(|key| key.parent == table.name)
                        });
                        if referenced {
                            return Err(Error::new(
                                2266,
                                "unique/primary keys in table referenced by enabled foreign keys",
                            ));
                        }
                        statement.truncate_table(&table.name)?;
                    }
                    Ok(())
                })?;
                Ok(StatementResult::done("Table truncated."))
            }
            Statement::CreateIndex {
                name,
                unique,
                table,
                columns,
                storage,
            } => {
                catalog.create_index(
                    &name.name,
                    &table.name,
                    columns,
                    *unique,
                    None,
                    storage.buffer_pool.unwrap_or_default(),
                )?;
                Ok(StatementResult::done("Index created."))
            }
            // Only the pool is kept; REBUILD is not done yet.
            Statement::AlterIndex {
                name,
                action: ast::AlterIndexAction::Storage(storage),
            } => {
                catalog.current().index(&name.name)?;
                if let Some(pool) = storage.buffer_pool {
                    catalog.alter_index(&name.name, pool)?;
                }
                Ok(StatementResult::done("Index altered."))
            }
            Statement::DropIndex { name } => {
                catalog.drop_index(&name.name)?;
                Ok(StatementResult::done("Index dropped."))
            }
            Statement::CreateSequence { name, options } => {
                catalog.create_sequence(&name.name, options)?;
                Ok(StatementResult::done("Sequence created."))
            }
            Statement::AlterSequence { name, options } => {
                catalog.alter_sequence(&name.name, options)?;
                Ok(StatementResult::done("Sequence altered."))
            }
            Statement::DropSequence { name } => {
                catalog.drop_sequence(&name.name)?;
                Ok(StatementResult::done("Sequence dropped."))
            }
            Statement::CreateView {
                or_replace,
                name,
                columns,
                query,
            } => {
                // Oracle compiles a view when it is created: its query must plan now.
                let plan = self.with_reader(&BindValues::default(), |reader| {
                    query::plan_query(reader, &mut BindValues::default(), query)
                })?;
                if !columns.is_empty() && columns.len() != plan.columns.len() {
                    return Err(Error::new(1730, "invalid number of column names specified"));
                }
                catalog.create_view(&name.name, *or_replace, columns, query, text)?;
                Ok(StatementResult::done("View created."))
            }
            Statement::DropView { name } => {
                catalog.drop_view(&name.name)?;
                Ok(StatementResult::done("View dropped."))
            }
            Statement::CreateProgram {
                kind,
                name,
                or_replace,
                source_start,
            } => {
                let source = text.get(*source_start..).unwrap_or_default().trim_end();
                self.create_program(*kind, name, *or_replace, source)
            }
            Statement::DropProgram { kind, name } => self.drop_program(*kind, name),
            Statement::AlterCompile { kind, name } => self.alter_compile(*kind, name),
            Statement::CreateUser { .. }
            | Statement::AlterUser { .. }
            | Statement::DropUser { .. }
            | Statement::Grant { .. } => self.user_statement(statement, binds),
            _ => Err(unsupported("this statement")),
        }
    }

    /// CREATE TABLE, with its keys and CHECK constraints, and with AS SELECT its columns
    /// named and typed from the query's and its rows inserted in the same DDL. The last
    /// argument is the table's buffer pool and CACHE flag; its keys' indexes go to DEFAULT,
    /// as Oracle's do without a USING INDEX clause.
    pub(super) fn create_table(
        &mut self,
        name: &str,
        columns: &[ast::ColumnDef],
        constraints: &[ast::TableConstraint],
        column_names: &[String],
        as_query: Option<&ast::Query>,
        (buffer_pool, cache): (BufferPool, bool),
    ) -> Result<()> {
        let instance = self.instance.clone();
        let catalog = instance.catalog();
        let (mut definitions, rows) = match as_query {
            None => (catalog::columns_from_ast(columns)?, Vec::new()),
            Some(query) => {
                if !columns.is_empty() {
                    return Err(Error::new(
                        1773,
                        "may not specify column datatypes in this CREATE TABLE",
                    ));
                }
                let mut result = self.with_reader(&BindValues::default(), |reader| {
                    query::run_query(reader, &mut BindValues::default(), query)
                })?;
                if !column_names.is_empty() {
                    if column_names.len() != result.columns.len() {
                        return Err(Error::new(1730, "invalid number of column names specified"));
                    }
                    for (column, name) in result.columns.iter_mut().zip(column_names) {
                        column.0 = name.clone();
                    }
                }
                (query_columns(&result)?, result.rows)
            }
        };
        // Keys: (columns, is primary, constraint name).
        let mut keys: Vec<(Vec<String>, bool, Option<String>)> = Vec::new();
        let mut checks = Vec::new();
        let mut foreign_keys = Vec::new();
        let mut written: Vec<&ast::TableConstraint> = Vec::new();
        for column in columns {
            written.extend(column.constraints.iter());
            if column.primary_key {
                keys.push((
                    vec![column.name.clone()],
                    true,
                    column.primary_key_constraint_name.clone(),
                ));
            }
            if column.unique {
                keys.push((
                    vec![column.name.clone()],
                    false,
                    column.unique_constraint_name.clone(),
                ));
            }
        }
        written.extend(constraints.iter());
        for constraint in written {
            match &constraint.kind {
                ast::TableConstraintKind::PrimaryKey { columns } => {
                    keys.push((columns.clone(), true, constraint.name.clone()))
                }
                ast::TableConstraintKind::Unique { columns } => {
                    keys.push((columns.clone(), false, constraint.name.clone()))
                }
                ast::TableConstraintKind::Check(condition) => {
                    checks.push(catalog::CheckConstraint {
                        name: constraint
                            .name
                            .clone()
                            .unwrap_or_else(|| catalog.constraint_name()),
                        condition: condition.clone(),
                    })
                }
                ast::TableConstraintKind::ForeignKey {
                    columns,
                    references,
                } => foreign_keys.push(catalog::ForeignKey {
                    name: constraint
                        .name
                        .clone()
                        .unwrap_or_else(|| catalog.constraint_name()),
                    columns: columns.clone(),
                    parent: references.table.name.clone(),
                    parent_columns: references.columns.clone(),
                    on_delete: references.on_delete,
                }),
            }
        }
        if keys.iter().filter(|(_, primary, _)| *primary).count() > 1 {
            return Err(Error::new(2260, "table can have only one primary key"));
        }
        for (key_columns, primary, _) in &keys {
            for key_column in key_columns {
                let Some(definition) = definitions.iter_mut().find(|c| &c.name == key_column)
                else {
                    return Err(Error::invalid_identifier(key_column));
                };
                if *primary {
                    definition.nullable = false;
                }
            }
        }
        check_conditions(&definitions, &checks)?;
        let own_keys: Vec<(Vec<String>, bool)> = keys
            .iter()
            .map(|(columns, primary, _)| (columns.clone(), *primary))
            .collect();
        for key in &mut foreign_keys {
            resolve_foreign_key(&catalog.current(), name, &definitions, &own_keys, key)?;
        }
        let definition = catalog::Definition {
            columns: definitions,
            checks,
            foreign_keys,
        };
        // One DDL statement: the table, its rows (AS SELECT) and its keys' indexes commit
        // together, or none of them does.
        catalog.statement(|statement| {
            statement.create_table(name, definition, buffer_pool, cache, rows)?;
            for (key_columns, primary, constraint_name) in keys {
                let constraint = constraint_name.unwrap_or_else(|| catalog.constraint_name());
                create_key_index(statement, name, &constraint, &key_columns, primary)?;
            }
            Ok(())
        })
    }
}
