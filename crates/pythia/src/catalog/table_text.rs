//! A table's CREATE TABLE text, which its DICT$ row keeps: written from the table's
//! definition (`table_ddl`) and parsed back into one (`definition_from_ddl`), with the
//! columns and types of a CREATE TABLE.

use crate::error::{Error, Result};
use crate::syntax::ast;
use crate::types::DataType;

use super::{CheckConstraint, ColumnDef, Definition, ForeignKey};

/// The columns and CHECK constraints of a stored CREATE TABLE text. Texts written before
/// tables were stored as generated text (the user's own CREATE TABLE) read the same way:
/// their PRIMARY KEY and UNIQUE clauses are ignored here (the INDEX rows hold the keys), and
/// they could have no CHECK clause.
pub fn definition_from_ddl(ddl: &str) -> Result<Definition> {
    let ast::Statement::CreateTable {
        columns,
        constraints,
        ..
    } = crate::syntax::parser::parse(ddl)?
    else {
        return Err(Error::internal(
            "dictionary row: table text is not CREATE TABLE",
        ));
    };
    let mut checks = Vec::new();
    let mut foreign_keys = Vec::new();
    let written = columns
        .iter()
        .flat_map(|column| column.constraints.iter())
        .chain(constraints.iter());
    for constraint in written {
        if let ast::TableConstraintKind::Check(condition) = &constraint.kind {
            checks.push(CheckConstraint {
                name: constraint.name.clone().unwrap_or_default(),
                condition: condition.clone(),
            });
        }
        if let ast::TableConstraintKind::ForeignKey {
            columns,
            references,
        } = &constraint.kind
        {
            foreign_keys.push(ForeignKey {
                name: constraint.name.clone().unwrap_or_default(),
                columns: columns.clone(),
                parent: references.table.name.clone(),
                parent_columns: references.columns.clone(),
                on_delete: references.on_delete,
            });
        }
    }
    Ok(Definition {
        columns: columns_from_ast(&columns)?,
        checks,
        foreign_keys,
    })
}

/// The PRIMARY KEY columns a CREATE TABLE text states (a text a user wrote: generated
/// texts state none, their INDEX rows say which key is primary).
pub(super) fn written_primary_key(ddl: &str) -> Option<Vec<String>> {
    let Ok(ast::Statement::CreateTable {
        columns,
        constraints,
        ..
    }) = crate::syntax::parser::parse(ddl)
    else {
        return None;
    };
    if let Some(column) = columns.iter().find(|column| column.primary_key) {
        return Some(vec![column.name.clone()]);
    }
    constraints
        .iter()
        .find_map(|constraint| match &constraint.kind {
            ast::TableConstraintKind::PrimaryKey { columns } => Some(columns.clone()),
            _ => None,
        })
}

/// The CREATE TABLE text of a definition: `CREATE TABLE "T" ("A" NUMBER(5) DEFAULT 0 NOT
/// NULL, ..., CONSTRAINT "C" CHECK (...))`. Keys are not in it (their INDEX rows hold
/// them). [`definition_from_ddl`] reads it back to the same definition.
pub fn table_ddl(name: &str, definition: &Definition) -> Result<String> {
    use crate::syntax::print;
    let list = |names: &[String]| {
        names
            .iter()
            .map(|name| print::identifier(name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    for column in &definition.columns {
        let mut part = format!(
            "{} {}",
            print::identifier(&column.name),
            print::column_type(&column.data_type)
        );
        if let Some(default) = &column.default {
            part.push_str(" DEFAULT ");
            part.push_str(&print::expression(default)?);
        }
        if !column.nullable {
            part.push_str(" NOT NULL");
        }
        parts.push(part);
    }
    for check in &definition.checks {
        parts.push(format!(
            "CONSTRAINT {} CHECK ({})",
            print::identifier(&check.name),
            print::expression(&check.condition)?
        ));
    }
    for key in &definition.foreign_keys {
        parts.push(format!(
            "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({}){}",
            print::identifier(&key.name),
            list(&key.columns),
            print::identifier(&key.parent),
            list(&key.parent_columns),
            match key.on_delete {
                None => "",
                Some(ast::ReferentialAction::Cascade) => " ON DELETE CASCADE",
                Some(ast::ReferentialAction::SetNull) => " ON DELETE SET NULL",
            }
        ));
    }
    Ok(format!(
        "CREATE TABLE {} ({})",
        print::identifier(name),
        parts.join(", ")
    ))
}

/// Columns of a CREATE TABLE, checked: types valid, names unique.
pub fn columns_from_ast(columns: &[ast::ColumnDef]) -> Result<Vec<ColumnDef>> {
    let mut result: Vec<ColumnDef> = Vec::with_capacity(columns.len());
    for column in columns {
        if result.iter().any(|other| other.name == column.name) {
            return Err(Error::new(957, "duplicate column name"));
        }
        let data_type = data_type_from_ast(&column.data_type)?;
        data_type.validate()?;
        result.push(ColumnDef {
            name: column.name.clone(),
            data_type,
            nullable: !(column.not_null || column.primary_key),
            default: column.default.clone(),
        });
    }
    Ok(result)
}

/// The type system's type for a declared type.
pub fn data_type_from_ast(data_type: &ast::DataType) -> Result<DataType> {
    Ok(match *data_type {
        ast::DataType::Number { precision, scale } => match (precision, scale) {
            (None, None) => DataType::number(),
            (precision, scale) => {
                let precision = match precision {
                    Some(precision) => Some(u8::try_from(precision).map_err(|_| {
                        Error::new(
                            1727,
                            "numeric precision specifier is out of range (1 to 38)",
                        )
                    })?),
                    None => None,
                };
                let scale = match scale {
                    Some(scale) => Some(i8::try_from(scale).map_err(|_| {
                        Error::new(1728, "numeric scale specifier is out of range (-84 to 127)")
                    })?),
                    None => None,
                };
                DataType::Number { precision, scale }
            }
        },
        ast::DataType::Integer => DataType::integer(),
        ast::DataType::Float => DataType::Float,
        ast::DataType::Varchar2 { length } => DataType::varchar2(length),
        ast::DataType::Char { length } => DataType::char(length),
        ast::DataType::Date => DataType::Date,
        ast::DataType::Timestamp { .. } => DataType::Timestamp,
        ast::DataType::Boolean => DataType::Boolean,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DICT$ keeps a table as the text `table_ddl` writes; reading it back must give the
    /// same definition, or an ALTER would change a table across a restart.
    #[test]
    fn generated_table_text_reads_back_to_the_same_definition() {
        let original = "CREATE TABLE \"Mixed\" (id NUMBER PRIMARY KEY, a NUMBER(5), \
             b NUMBER(7,2) DEFAULT -1.5 NOT NULL, c NUMBER(*,2), i INTEGER, f BINARY_DOUBLE, \
             v VARCHAR2(20) DEFAULT 'it''s', ch CHAR(3), d DATE DEFAULT SYSDATE, \
             ts TIMESTAMP, flag BOOLEAN, \"lower col\" NUMBER, \
             CONSTRAINT pos CHECK (a > 0 AND b BETWEEN -10 AND 10 OR v IN ('x', 'y')), \
             CONSTRAINT named CHECK (upper(v) LIKE 'A%' OR ch IS NULL), \
             CONSTRAINT fk1 FOREIGN KEY (a, i) REFERENCES parent (x, \"y\") ON DELETE CASCADE, \
             CONSTRAINT fk2 FOREIGN KEY (c) REFERENCES other (z))";
        let definition = definition_from_ddl(original).unwrap();
        assert_eq!(definition.checks.len(), 2);
        assert_eq!(definition.foreign_keys.len(), 2);
        let generated = table_ddl("Mixed", &definition).unwrap();
        let again = definition_from_ddl(&generated).unwrap();
        assert_eq!(again, definition, "{generated}");
        assert_eq!(table_ddl("Mixed", &again).unwrap(), generated);
        // The primary key's NOT NULL is kept as NOT NULL (the key itself is an INDEX row).
        assert!(!definition.columns[0].nullable);
        // Which key is primary: an old text says, a generated one does not.
        assert_eq!(written_primary_key(original), Some(vec!["ID".to_string()]));
        assert_eq!(written_primary_key(&generated), None);
        assert_eq!(
            written_primary_key("CREATE TABLE t (a NUMBER, b NUMBER, PRIMARY KEY (b, a))"),
            Some(vec!["B".to_string(), "A".to_string()])
        );
    }
}
