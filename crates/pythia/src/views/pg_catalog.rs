//! PostgreSQL's system catalogs (`pg_catalog.pg_class`, `pg_attribute`, `pg_index`, ...)
//! as views over Pythia's dictionary, and the catalog functions PostgreSQL clients call
//! with them (`format_type`, `pg_get_indexdef`, `pg_get_constraintdef`, casts to
//! `regclass`), so that psql's `\dt`, `\d`, `\di` and `\d TABLE` read our tables.
//!
//! The views are built like the `dba_` views (`views::dictionary`): rows of values computed
//! from one immutable version of the dictionary when a query names them. Nothing is
//! stored. Catalogs of things Pythia does not have (inheritance, partitioning, row-level
//! security policies, extended statistics, publications) are empty views with the columns
//! clients read.
//!
//! ```text
//!   pg_namespace   pg_catalog (11), system (2200): every object belongs to SYSTEM
//!   pg_class       a row per table (relkind r), index (i), sequence (S), view (v)
//!   pg_attribute   a row per column of a table, view or index (attnum from 1)
//!   pg_index       a row per index       pg_constraint  a row per P, U, C, F constraint
//!   pg_attrdef     a row per default     pg_type, pg_am, pg_collation, pg_roles: fixed rows
//! ```
//!
//! # Object identifiers
//!
//! A table's, index's, sequence's or view's oid is its dictionary object id (DBA_OBJECTS.
//! OBJECT_ID): stable across restarts and DDL that keeps the object. Types, access methods,
//! collations, the two namespaces and the one role have PostgreSQL's own oids (int4 is 23,
//! btree 403, pg_catalog 11, the bootstrap superuser 10, which is SYSTEM here). A PRIMARY
//! KEY or UNIQUE constraint's oid is its index's; CHECK and FOREIGN KEY constraints and
//! column defaults have no dictionary id, so theirs is derived from their names (a hash
//! into [`DERIVED_OID_BASE`, 2^32)): stable while the name is.
//!
//! # Names
//!
//! Oracle folds unquoted identifiers to upper case, PostgreSQL to lower case, and clients
//! compare `relname` with names as they would have folded them (`c.relname ~
//! '^(pgbench_accounts)$'`). So the views show a name with no lower-case letter in lower
//! case (`PGBENCH_ACCOUNTS`, created from an unquoted `pgbench_accounts`, is
//! `pgbench_accounts`) and any other name as it is (`"Mixed"` stays `Mixed`): each
//! dialect's unquoted spelling maps to the other's. A name created quoted in upper case
//! (`"ABC"`) shows as `abc` too. Unquoted names in the SQL Pythia parses are still folded
//! to upper case, so `SELECT * FROM pgbench_accounts` finds the table whichever way.
//!
//! # Types
//!
//! A column's type is shown as the PostgreSQL type that holds what the column declares:
//! NUMBER(38,0) (INTEGER, INT, what pgbench's `int` becomes) is `integer`; other NUMBERs
//! `numeric[(p,s)]`; CHAR(n) `character(n)`; VARCHAR2(n) `character varying(n)`;
//! BINARY_DOUBLE `double precision`; DATE `timestamp(0) without time zone` (it keeps the
//! time to the second); TIMESTAMP `timestamp without time zone`; BOOLEAN `boolean`.
//!
//! Failure: none; an oid that names nothing gives NULL from the functions, as PostgreSQL's
//! do for a dropped object.

use rust_decimal::Decimal;

use super::registry::{Build, View, ViewKind};
use super::ViewContext;
use crate::catalog::{Dictionary, TableDef};
use crate::error::Result;
use crate::syntax::ast::ReferentialAction;
use crate::types::RowSet;
use crate::types::{DataType, Value};

/// The views of this file, found as `pg_catalog.name` or by the bare name.
pub(super) const VIEWS: &[View] = &[
    View {
        name: "PG_NAMESPACE",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_namespace),
    },
    View {
        name: "PG_CLASS",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_class),
    },
    View {
        name: "PG_ATTRIBUTE",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_attribute),
    },
    View {
        name: "PG_TYPE",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_type),
    },
    View {
        name: "PG_INDEX",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_index),
    },
    View {
        name: "PG_AM",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_am),
    },
    View {
        name: "PG_CONSTRAINT",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_constraint),
    },
    View {
        name: "PG_ATTRDEF",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_attrdef),
    },
    View {
        name: "PG_COLLATION",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_collation),
    },
    View {
        name: "PG_ROLES",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_roles),
    },
    View {
        name: "PG_INHERITS",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_inherits),
    },
    View {
        name: "PG_PARTITIONED_TABLE",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_partitioned_table),
    },
    View {
        name: "PG_POLICY",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_policy),
    },
    View {
        name: "PG_STATISTIC_EXT",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_statistic_ext),
    },
    View {
        name: "PG_PUBLICATION",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_publication),
    },
    View {
        name: "PG_PUBLICATION_NAMESPACE",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_publication_namespace),
    },
    View {
        name: "PG_PUBLICATION_REL",
        kind: ViewKind::PgCatalog,
        build: Build::Rows(pg_publication_rel),
    },
];

/// The schema qualifier of these views and functions (upper case, as parsed).
pub const SCHEMA: &str = "PG_CATALOG";

/// pg_catalog's namespace oid.
pub const PG_CATALOG_NAMESPACE_OID: i64 = 11;
/// The namespace of every object (SYSTEM's): the oid PostgreSQL gives the schema objects
/// are created in by default.
pub const SYSTEM_NAMESPACE_OID: i64 = 2200;
/// The bootstrap superuser's oid: SYSTEM.
pub const SYSTEM_ROLE_OID: i64 = 10;
/// The heap access method (a table's relam) and btree (an index's).
const HEAP_ACCESS_METHOD_OID: i64 = 2;
const BTREE_ACCESS_METHOD_OID: i64 = 403;
/// The default collation, which text types have.
const DEFAULT_COLLATION_OID: i64 = 100;
/// Oids derived from names start here, above any dictionary object id in practice.
pub const DERIVED_OID_BASE: u32 = 1 << 31;

/// PostgreSQL's oids of the types the views use.
mod type_oid {
    pub const BOOL: i64 = 16;
    pub const CHAR: i64 = 18;
    pub const NAME: i64 = 19;
    pub const INT8: i64 = 20;
    pub const INT2: i64 = 21;
    pub const INT4: i64 = 23;
    pub const TEXT: i64 = 25;
    pub const OID: i64 = 26;
    pub const FLOAT4: i64 = 700;
    pub const FLOAT8: i64 = 701;
    pub const BPCHAR: i64 = 1042;
    pub const VARCHAR: i64 = 1043;
    pub const DATE: i64 = 1082;
    pub const TIMESTAMP: i64 = 1114;
    pub const TIMESTAMPTZ: i64 = 1184;
    pub const NUMERIC: i64 = 1700;
    pub const REGCLASS: i64 = 2205;
    pub const REGTYPE: i64 = 2206;
    pub const REGNAMESPACE: i64 = 4089;
}

/// pg_type's rows: (oid, name, length, category, collation).
const TYPES: &[(i64, &str, i64, &str, i64)] = &[
    (type_oid::BOOL, "bool", 1, "B", 0),
    (type_oid::CHAR, "char", 1, "Z", 950),
    (type_oid::NAME, "name", 64, "S", 950),
    (type_oid::INT8, "int8", 8, "N", 0),
    (type_oid::INT2, "int2", 2, "N", 0),
    (type_oid::INT4, "int4", 4, "N", 0),
    (type_oid::TEXT, "text", -1, "S", DEFAULT_COLLATION_OID),
    (type_oid::OID, "oid", 4, "N", 0),
    (type_oid::FLOAT4, "float4", 4, "N", 0),
    (type_oid::FLOAT8, "float8", 8, "N", 0),
    (type_oid::BPCHAR, "bpchar", -1, "S", DEFAULT_COLLATION_OID),
    (type_oid::VARCHAR, "varchar", -1, "S", DEFAULT_COLLATION_OID),
    (type_oid::DATE, "date", 4, "D", 0),
    (type_oid::TIMESTAMP, "timestamp", 8, "D", 0),
    (type_oid::TIMESTAMPTZ, "timestamptz", 8, "D", 0),
    (type_oid::NUMERIC, "numeric", -1, "N", 0),
    (type_oid::REGCLASS, "regclass", 4, "N", 0),
    (type_oid::REGTYPE, "regtype", 4, "N", 0),
    (type_oid::REGNAMESPACE, "regnamespace", 4, "N", 0),
];

/// The name a PostgreSQL client expects for a dictionary name (see the module
/// documentation): lower case when it has no lower-case letter, else as it is.
pub fn client_name(name: &str) -> String {
    if name.chars().any(char::is_lowercase) {
        name.to_string()
    } else {
        name.to_lowercase()
    }
}

/// PostgreSQL's `quote_ident`: the name in double quotes unless it is lower-case letters,
/// digits and underscores, not starting with a digit.
pub fn quote_identifier(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|first| first.is_ascii_lowercase() || first == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// A client name, quoted where PostgreSQL would quote it.
fn shown(name: &str) -> String {
    quote_identifier(&client_name(name))
}

/// The oid derived from a name (see the module documentation): FNV-1a, into the upper half
/// of the oid range.
fn derived_oid(kind: &str, name: &str) -> i64 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in kind.bytes().chain([0]).chain(name.bytes()) {
        hash ^= byte as u32;
        hash = hash.wrapping_mul(0x0100_0193);
    }
    (DERIVED_OID_BASE | hash) as i64
}

fn constraint_oid(name: &str) -> i64 {
    derived_oid("constraint", name)
}

fn default_oid(table: &TableDef, column: &str) -> i64 {
    derived_oid("default", &format!("{}.{column}", table.name))
}

/// A column's type as PostgreSQL's (type oid, typmod). typmod is PostgreSQL's encoding:
/// the length plus 4 for character types, `(precision << 16 | scale) + 4` for numeric,
/// the fractional digits for timestamp, -1 for none.
pub fn postgresql_type(data_type: &DataType) -> (i64, i64) {
    match *data_type {
        DataType::Number {
            precision: Some(38),
            scale: Some(0),
        } => (type_oid::INT4, -1),
        DataType::Number {
            precision: Some(precision),
            scale,
        } => (
            type_oid::NUMERIC,
            (((precision as i64) << 16) | (scale.unwrap_or(0) as i64 & 0xffff)) + 4,
        ),
        DataType::Number { .. } => (type_oid::NUMERIC, -1),
        DataType::Float => (type_oid::FLOAT8, -1),
        DataType::Varchar2 { length } => (type_oid::VARCHAR, length as i64 + 4),
        DataType::Char { length } => (type_oid::BPCHAR, length as i64 + 4),
        DataType::Date => (type_oid::TIMESTAMP, 0),
        DataType::Timestamp => (type_oid::TIMESTAMP, -1),
        DataType::Boolean => (type_oid::BOOL, -1),
    }
}

/// PostgreSQL's `format_type(type oid, typmod)`: the SQL name of a type, NULL for an
/// unknown oid (PostgreSQL says `???`).
pub fn format_type(type_oid: i64, typmod: Option<i64>) -> Option<String> {
    let modifier = typmod.filter(|typmod| *typmod >= 0);
    Some(match type_oid {
        type_oid::BOOL => "boolean".to_string(),
        type_oid::CHAR => "\"char\"".to_string(),
        type_oid::NAME => "name".to_string(),
        type_oid::INT8 => "bigint".to_string(),
        type_oid::INT2 => "smallint".to_string(),
        type_oid::INT4 => "integer".to_string(),
        type_oid::TEXT => "text".to_string(),
        type_oid::OID => "oid".to_string(),
        type_oid::FLOAT4 => "real".to_string(),
        type_oid::FLOAT8 => "double precision".to_string(),
        type_oid::BPCHAR => match modifier {
            Some(typmod) => format!("character({})", typmod - 4),
            None => "character".to_string(),
        },
        type_oid::VARCHAR => match modifier {
            Some(typmod) => format!("character varying({})", typmod - 4),
            None => "character varying".to_string(),
        },
        type_oid::DATE => "date".to_string(),
        type_oid::TIMESTAMP => match modifier {
            Some(digits) => format!("timestamp({digits}) without time zone"),
            None => "timestamp without time zone".to_string(),
        },
        type_oid::TIMESTAMPTZ => "timestamp with time zone".to_string(),
        type_oid::NUMERIC => match modifier {
            Some(typmod) => {
                let packed = typmod - 4;
                format!("numeric({},{})", packed >> 16, (packed & 0xffff) as i16)
            }
            None => "numeric".to_string(),
        },
        type_oid::REGCLASS => "regclass".to_string(),
        type_oid::REGTYPE => "regtype".to_string(),
        type_oid::REGNAMESPACE => "regnamespace".to_string(),
        _ => return None,
    })
}

/// A relation of pg_class: what the functions need to know of an oid.
enum Relation<'a> {
    Table(&'a TableDef),
    Index(&'a crate::catalog::IndexDef),
    Sequence(&'a str),
    View(&'a str),
}

fn relation(dictionary: &Dictionary, oid: i64) -> Option<Relation<'_>> {
    let oid = u32::try_from(oid).ok()?;
    if let Some(table) = dictionary.tables.values().find(|t| t.object_id == oid) {
        return Some(Relation::Table(table));
    }
    if let Some(index) = dictionary.indexes.values().find(|i| i.object_id == oid) {
        return Some(Relation::Index(index));
    }
    if let Some(sequence) = dictionary.sequences.values().find(|s| s.object_id == oid) {
        return Some(Relation::Sequence(&sequence.name));
    }
    dictionary
        .views
        .values()
        .find(|v| v.object_id == oid)
        .map(|view| Relation::View(&view.name))
}

/// `oid::regclass`: the relation's name as PostgreSQL shows it (quoted where needed), NULL
/// when no relation has that oid.
pub fn relation_name(dictionary: &Dictionary, oid: i64) -> Option<String> {
    Some(shown(match relation(dictionary, oid)? {
        Relation::Table(table) => &table.name,
        Relation::Index(index) => &index.name,
        Relation::Sequence(name) | Relation::View(name) => name,
    }))
}

/// `'name'::regclass`: the oid of the relation a client names (folded as PostgreSQL folds
/// it: unquoted lower case is our upper case), NULL when there is none.
pub fn relation_oid(dictionary: &Dictionary, name: &str) -> Option<i64> {
    let name = name.strip_prefix("system.").unwrap_or(name);
    let dictionary_name = match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
        Some(quoted) => quoted.replace("\"\"", "\""),
        None => name.to_uppercase(),
    };
    let id = dictionary
        .tables
        .get(&dictionary_name)
        .map(|t| t.object_id)
        .or_else(|| {
            dictionary
                .indexes
                .get(&dictionary_name)
                .map(|i| i.object_id)
        })
        .or_else(|| {
            dictionary
                .sequences
                .get(&dictionary_name)
                .map(|s| s.object_id)
        })
        .or_else(|| dictionary.views.get(&dictionary_name).map(|v| v.object_id))?;
    Some(id as i64)
}

/// `oid::regnamespace`.
pub fn namespace_name(oid: i64) -> Option<String> {
    match oid {
        PG_CATALOG_NAMESPACE_OID => Some("pg_catalog".to_string()),
        SYSTEM_NAMESPACE_OID => Some(client_name(crate::catalog::OWNER)),
        _ => None,
    }
}

/// `pg_get_userbyid(oid)`: the role's name, PostgreSQL's `unknown (OID=n)` for another.
pub fn user_name(oid: i64) -> String {
    if oid == SYSTEM_ROLE_OID {
        client_name(crate::catalog::OWNER)
    } else {
        format!("unknown (OID={oid})")
    }
}

/// `pg_table_is_visible(oid)`: every relation is in SYSTEM's schema, which is on the path;
/// NULL for an oid that names none.
pub fn table_is_visible(dictionary: &Dictionary, oid: i64) -> Option<bool> {
    relation(dictionary, oid).map(|_| true)
}

/// `pg_relation_is_publishable(oid)`: whether a publication could hold the relation (a
/// table); NULL for an oid that names none.
pub fn relation_is_publishable(dictionary: &Dictionary, oid: i64) -> Option<bool> {
    relation(dictionary, oid).map(|relation| matches!(relation, Relation::Table(_)))
}

/// `pg_get_indexdef(oid, column, pretty)`: the index's CREATE INDEX text (column 0), or the
/// name of its `column`-th column; NULL for an oid that is no index.
pub fn index_definition(dictionary: &Dictionary, oid: i64, column: i64) -> Option<String> {
    let Relation::Index(index) = relation(dictionary, oid)? else {
        return None;
    };
    let table = dictionary.tables.get(&index.table_name)?;
    let column_name = |position: usize| shown(&table.columns[position].name);
    if column > 0 {
        let position = *index.columns.get(column as usize - 1)?;
        return Some(column_name(position));
    }
    let columns: Vec<String> = index
        .columns
        .iter()
        .zip(&index.descending)
        .map(|(&position, &descending)| {
            let name = column_name(position);
            if descending {
                format!("{name} DESC")
            } else {
                name
            }
        })
        .collect();
    Some(format!(
        "CREATE {}INDEX {} ON {}.{} USING btree ({})",
        if index.unique { "UNIQUE " } else { "" },
        shown(&index.name),
        shown(crate::catalog::OWNER),
        shown(&table.name),
        columns.join(", ")
    ))
}

/// `pg_get_constraintdef(oid)`: `PRIMARY KEY (a)`, `UNIQUE (a, b)`, `CHECK (condition)`,
/// `FOREIGN KEY (a) REFERENCES p(x) [ON DELETE ...]`; NULL for an oid that is no
/// constraint. A CHECK condition is Pythia's text of it (`dba_constraints.search_condition`).
pub fn constraint_definition(dictionary: &Dictionary, oid: i64) -> Option<String> {
    constraints(dictionary)
        .into_iter()
        .find(|constraint| constraint.oid == oid)
        .map(|constraint| constraint.definition)
}

/// A constraint as pg_constraint and pg_get_constraintdef show it.
struct Constraint {
    oid: i64,
    name: String,
    kind: &'static str,
    table_oid: i64,
    /// The enforcing index's oid (P, U; for F the parent key's), 0 for none.
    index_oid: i64,
    /// F: the parent table's oid, else 0.
    parent_oid: i64,
    /// F: the ON DELETE action's letter (`a` no action, `c` cascade, `n` set null), else ' '.
    delete_action: &'static str,
    /// attnums of the constrained columns, and of the referenced ones for F.
    columns: Vec<i64>,
    parent_columns: Vec<i64>,
    /// C: the condition's text.
    condition: Option<String>,
    definition: String,
}

fn attnum(table: &TableDef, name: &str) -> i64 {
    table
        .columns
        .iter()
        .position(|column| column.name == name)
        .map_or(0, |position| position as i64 + 1)
}

fn constraints(dictionary: &Dictionary) -> Vec<Constraint> {
    let mut constraints = Vec::new();
    for table in dictionary.tables.values() {
        let names = |positions: &[usize]| -> String {
            positions
                .iter()
                .map(|&position| shown(&table.columns[position].name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for index in &table.indexes {
            let Some(name) = &index.constraint else {
                continue;
            };
            let keyword = if index.primary {
                "PRIMARY KEY"
            } else {
                "UNIQUE"
            };
            constraints.push(Constraint {
                oid: index.object_id as i64,
                name: name.clone(),
                kind: if index.primary { "p" } else { "u" },
                table_oid: table.object_id as i64,
                index_oid: index.object_id as i64,
                parent_oid: 0,
                delete_action: " ",
                columns: index.columns.iter().map(|&p| p as i64 + 1).collect(),
                parent_columns: Vec::new(),
                condition: None,
                definition: format!("{keyword} ({})", names(&index.columns)),
            });
        }
        for check in &table.checks {
            let condition = crate::syntax::print::expression(&check.condition)
                .unwrap_or_else(|error| error.to_string());
            let mut columns = Vec::new();
            check.condition.walk_within_query(&mut |expr| {
                if let crate::syntax::ast::Expr::Column { name, .. } = expr {
                    let number = attnum(table, name);
                    if number > 0 && !columns.contains(&number) {
                        columns.push(number);
                    }
                }
            });
            constraints.push(Constraint {
                oid: constraint_oid(&check.name),
                name: check.name.clone(),
                kind: "c",
                table_oid: table.object_id as i64,
                index_oid: 0,
                parent_oid: 0,
                delete_action: " ",
                columns,
                parent_columns: Vec::new(),
                definition: format!("CHECK ({condition})"),
                condition: Some(condition),
            });
        }
        for key in &table.foreign_keys {
            let parent = dictionary.tables.get(&key.parent);
            let parent_index = parent.and_then(|parent| {
                parent.indexes.iter().find(|index| {
                    index
                        .columns
                        .iter()
                        .map(|&position| parent.columns[position].name.as_str())
                        .eq(key.parent_columns.iter().map(String::as_str))
                })
            });
            let listed = |names: &[String]| {
                names
                    .iter()
                    .map(|name| shown(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let (delete_action, delete_clause) = match key.on_delete {
                None => ("a", ""),
                Some(ReferentialAction::Cascade) => ("c", " ON DELETE CASCADE"),
                Some(ReferentialAction::SetNull) => ("n", " ON DELETE SET NULL"),
            };
            constraints.push(Constraint {
                oid: constraint_oid(&key.name),
                name: key.name.clone(),
                kind: "f",
                table_oid: table.object_id as i64,
                index_oid: parent_index.map_or(0, |index| index.object_id as i64),
                parent_oid: parent.map_or(0, |parent| parent.object_id as i64),
                delete_action,
                columns: key.columns.iter().map(|name| attnum(table, name)).collect(),
                parent_columns: parent.map_or_else(Vec::new, |parent| {
                    key.parent_columns
                        .iter()
                        .map(|name| attnum(parent, name))
                        .collect()
                }),
                condition: None,
                definition: format!(
                    "FOREIGN KEY ({}) REFERENCES {}({}){delete_clause}",
                    listed(&key.columns),
                    shown(&key.parent),
                    listed(&key.parent_columns)
                ),
            });
        }
    }
    constraints
}

/// PostgreSQL's text form of an array of numbers: `{1,2}`.
fn array_text(values: &[i64]) -> Value {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    Value::text(format!("{{{}}}", items.join(",")))
}

/// The column types of the views.
#[derive(Clone, Copy)]
enum Kind {
    /// An oid, a count, a number: NUMBER.
    Number,
    /// A name or text: VARCHAR2.
    Text,
    Boolean,
}

fn columns(names: &[(&str, Kind)]) -> Vec<(String, Option<DataType>)> {
    names
        .iter()
        .map(|(name, kind)| {
            let data_type = match kind {
                Kind::Number => DataType::number(),
                Kind::Text => DataType::varchar2(4000),
                Kind::Boolean => DataType::Boolean,
            };
            (name.to_string(), Some(data_type))
        })
        .collect()
}

fn number(value: i64) -> Value {
    Value::Number(Decimal::from(value))
}

fn boolean(value: bool) -> Value {
    Value::Boolean(value)
}

use Kind::{Boolean as B, Number as N, Text as T};

/// pg_catalog.PG_NAMESPACE.
fn pg_namespace(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[("OID", N), ("NSPNAME", T), ("NSPOWNER", N), ("NSPACL", T)],
        [PG_CATALOG_NAMESPACE_OID, SYSTEM_NAMESPACE_OID]
            .into_iter()
            .map(|oid| {
                vec![
                    number(oid),
                    Value::text(namespace_name(oid).unwrap_or_default()),
                    number(SYSTEM_ROLE_OID),
                    Value::Null,
                ]
            })
            .collect(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_CLASS.
fn pg_class(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("RELNAME", T),
            ("RELNAMESPACE", N),
            ("RELTYPE", N),
            ("RELOFTYPE", N),
            ("RELOWNER", N),
            ("RELAM", N),
            ("RELFILENODE", N),
            ("RELTABLESPACE", N),
            ("RELPAGES", N),
            ("RELTUPLES", N),
            ("RELALLVISIBLE", N),
            ("RELTOASTRELID", N),
            ("RELHASINDEX", B),
            ("RELISSHARED", B),
            ("RELPERSISTENCE", T),
            ("RELKIND", T),
            ("RELNATTS", N),
            ("RELCHECKS", N),
            ("RELHASRULES", B),
            ("RELHASTRIGGERS", B),
            ("RELHASSUBCLASS", B),
            ("RELROWSECURITY", B),
            ("RELFORCEROWSECURITY", B),
            ("RELISPOPULATED", B),
            ("RELREPLIDENT", T),
            ("RELISPARTITION", B),
            ("RELREWRITE", N),
            ("RELACL", T),
            ("RELOPTIONS", T),
            ("RELPARTBOUND", T),
        ],
        class_rows(dictionary),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_ATTRIBUTE.
fn pg_attribute(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("ATTRELID", N),
            ("ATTNAME", T),
            ("ATTTYPID", N),
            ("ATTSTATTARGET", N),
            ("ATTLEN", N),
            ("ATTNUM", N),
            ("ATTNDIMS", N),
            ("ATTTYPMOD", N),
            ("ATTNOTNULL", B),
            ("ATTHASDEF", B),
            ("ATTHASMISSING", B),
            ("ATTIDENTITY", T),
            ("ATTGENERATED", T),
            ("ATTISDROPPED", B),
            ("ATTISLOCAL", B),
            ("ATTINHCOUNT", N),
            ("ATTCOLLATION", N),
        ],
        attribute_rows(dictionary),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_TYPE.
fn pg_type(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("TYPNAME", T),
            ("TYPNAMESPACE", N),
            ("TYPOWNER", N),
            ("TYPLEN", N),
            ("TYPBYVAL", B),
            ("TYPTYPE", T),
            ("TYPCATEGORY", T),
            ("TYPISDEFINED", B),
            ("TYPRELID", N),
            ("TYPELEM", N),
            ("TYPNOTNULL", B),
            ("TYPBASETYPE", N),
            ("TYPTYPMOD", N),
            ("TYPCOLLATION", N),
        ],
        TYPES
            .iter()
            .map(|&(oid, name, length, category, collation)| {
                vec![
                    number(oid),
                    Value::text(name),
                    number(PG_CATALOG_NAMESPACE_OID),
                    number(SYSTEM_ROLE_OID),
                    number(length),
                    boolean((1..=8).contains(&length)),
                    Value::text("b"),
                    Value::text(category),
                    boolean(true),
                    number(0),
                    number(0),
                    boolean(false),
                    number(0),
                    number(-1),
                    number(collation),
                ]
            })
            .collect(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_INDEX.
fn pg_index(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("INDEXRELID", N),
            ("INDRELID", N),
            ("INDNATTS", N),
            ("INDNKEYATTS", N),
            ("INDISUNIQUE", B),
            ("INDNULLSNOTDISTINCT", B),
            ("INDISPRIMARY", B),
            ("INDISEXCLUSION", B),
            ("INDIMMEDIATE", B),
            ("INDISCLUSTERED", B),
            ("INDISVALID", B),
            ("INDCHECKXMIN", B),
            ("INDISREADY", B),
            ("INDISLIVE", B),
            ("INDISREPLIDENT", B),
            ("INDKEY", T),
            ("INDOPTION", T),
            ("INDEXPRS", T),
            ("INDPRED", T),
        ],
        dictionary
            .indexes
            .values()
            .map(|index| {
                let count = index.columns.len() as i64;
                // int2vector's text form: numbers separated by blanks.
                let key: Vec<String> = index.columns.iter().map(|p| (p + 1).to_string()).collect();
                // INDOPTION_DESC is bit 0; a descending column also sorts NULLs first
                // (bit 1), as ours do.
                let option: Vec<&str> = index
                    .descending
                    .iter()
                    .map(|&descending| if descending { "3" } else { "0" })
                    .collect();
                vec![
                    number(index.object_id as i64),
                    number(index.table_id as i64),
                    number(count),
                    number(count),
                    boolean(index.unique),
                    boolean(false),
                    boolean(index.primary),
                    boolean(false),
                    boolean(true),
                    boolean(false),
                    boolean(true),
                    boolean(false),
                    boolean(true),
                    boolean(true),
                    boolean(false),
                    Value::text(key.join(" ")),
                    Value::text(option.join(" ")),
                    Value::Null,
                    Value::Null,
                ]
            })
            .collect(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_AM.
fn pg_am(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[("OID", N), ("AMNAME", T), ("AMHANDLER", T), ("AMTYPE", T)],
        vec![
            vec![
                number(HEAP_ACCESS_METHOD_OID),
                Value::text("heap"),
                Value::text("heap_tableam_handler"),
                Value::text("t"),
            ],
            vec![
                number(BTREE_ACCESS_METHOD_OID),
                Value::text("btree"),
                Value::text("bthandler"),
                Value::text("i"),
            ],
        ],
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_CONSTRAINT.
fn pg_constraint(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("CONNAME", T),
            ("CONNAMESPACE", N),
            ("CONTYPE", T),
            ("CONDEFERRABLE", B),
            ("CONDEFERRED", B),
            ("CONVALIDATED", B),
            ("CONRELID", N),
            ("CONTYPID", N),
            ("CONINDID", N),
            ("CONPARENTID", N),
            ("CONFRELID", N),
            ("CONFUPDTYPE", T),
            ("CONFDELTYPE", T),
            ("CONFMATCHTYPE", T),
            ("CONISLOCAL", B),
            ("CONINHCOUNT", N),
            ("CONNOINHERIT", B),
            ("CONKEY", T),
            ("CONFKEY", T),
            ("CONBIN", T),
        ],
        constraints(dictionary)
            .into_iter()
            .map(|constraint| {
                let foreign = constraint.kind == "f";
                vec![
                    number(constraint.oid),
                    Value::text(client_name(&constraint.name)),
                    number(SYSTEM_NAMESPACE_OID),
                    Value::text(constraint.kind),
                    boolean(false),
                    boolean(false),
                    boolean(true),
                    number(constraint.table_oid),
                    number(0),
                    number(constraint.index_oid),
                    number(0),
                    number(constraint.parent_oid),
                    Value::text(if foreign { "a" } else { " " }),
                    Value::text(constraint.delete_action),
                    Value::text(if foreign { "s" } else { " " }),
                    boolean(true),
                    number(0),
                    boolean(false),
                    array_text(&constraint.columns),
                    if foreign {
                        array_text(&constraint.parent_columns)
                    } else {
                        Value::Null
                    },
                    constraint.condition.map_or(Value::Null, Value::text),
                ]
            })
            .collect(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_ATTRDEF.
fn pg_attrdef(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[("OID", N), ("ADRELID", N), ("ADNUM", N), ("ADBIN", T)],
        dictionary
            .tables
            .values()
            .flat_map(|table| {
                table
                    .columns
                    .iter()
                    .enumerate()
                    .filter_map(move |(position, column)| {
                        let default = column.default.as_ref()?;
                        let text = crate::syntax::print::expression(default).ok()?;
                        Some(vec![
                            number(default_oid(table, &column.name)),
                            number(table.object_id as i64),
                            number(position as i64 + 1),
                            Value::text(text),
                        ])
                    })
            })
            .collect(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_COLLATION.
fn pg_collation(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("COLLNAME", T),
            ("COLLNAMESPACE", N),
            ("COLLOWNER", N),
            ("COLLPROVIDER", T),
            ("COLLISDETERMINISTIC", B),
            ("COLLENCODING", N),
        ],
        [
            (DEFAULT_COLLATION_OID, "default", "d"),
            (950, "C", "c"),
            (951, "POSIX", "c"),
        ]
        .into_iter()
        .map(|(oid, name, provider)| {
            vec![
                number(oid),
                Value::text(name),
                number(PG_CATALOG_NAMESPACE_OID),
                number(SYSTEM_ROLE_OID),
                Value::text(provider),
                boolean(true),
                number(-1),
            ]
        })
        .collect(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_ROLES.
fn pg_roles(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("ROLNAME", T),
            ("ROLSUPER", B),
            ("ROLINHERIT", B),
            ("ROLCREATEROLE", B),
            ("ROLCREATEDB", B),
            ("ROLCANLOGIN", B),
            ("ROLREPLICATION", B),
            ("ROLCONNLIMIT", N),
            ("ROLPASSWORD", T),
            ("ROLBYPASSRLS", B),
            ("OID", N),
        ],
        vec![vec![
            Value::text(user_name(SYSTEM_ROLE_OID)),
            boolean(true),
            boolean(true),
            boolean(true),
            boolean(true),
            boolean(true),
            boolean(false),
            number(-1),
            Value::text("********"),
            boolean(false),
            number(SYSTEM_ROLE_OID),
        ]],
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

// What Pythia does not have (inherits, partitioned tables, policies, extended statistics,
// publications): the columns clients read, no rows.

/// pg_catalog.PG_INHERITS.
fn pg_inherits(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("INHRELID", N),
            ("INHPARENT", N),
            ("INHSEQNO", N),
            ("INHDETACHPENDING", B),
        ],
        Vec::new(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_PARTITIONED_TABLE.
fn pg_partitioned_table(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("PARTRELID", N),
            ("PARTSTRAT", T),
            ("PARTNATTS", N),
            ("PARTDEFID", N),
            ("PARTATTRS", T),
            ("PARTEXPRS", T),
        ],
        Vec::new(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_POLICY.
fn pg_policy(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("POLNAME", T),
            ("POLRELID", N),
            ("POLCMD", T),
            ("POLPERMISSIVE", B),
            ("POLROLES", T),
            ("POLQUAL", T),
            ("POLWITHCHECK", T),
        ],
        Vec::new(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_STATISTIC_EXT.
fn pg_statistic_ext(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("STXRELID", N),
            ("STXNAME", T),
            ("STXNAMESPACE", N),
            ("STXOWNER", N),
            ("STXSTATTARGET", N),
            ("STXKEYS", T),
            ("STXKIND", T),
            ("STXEXPRS", T),
        ],
        Vec::new(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_PUBLICATION.
fn pg_publication(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("PUBNAME", T),
            ("PUBOWNER", N),
            ("PUBALLTABLES", B),
            ("PUBINSERT", B),
            ("PUBUPDATE", B),
            ("PUBDELETE", B),
            ("PUBTRUNCATE", B),
            ("PUBVIAROOT", B),
        ],
        Vec::new(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_PUBLICATION_NAMESPACE.
fn pg_publication_namespace(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) =
        (&[("OID", N), ("PNPUBID", N), ("PNNSPID", N)], Vec::new());
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// pg_catalog.PG_PUBLICATION_REL.
fn pg_publication_rel(_context: &ViewContext) -> Result<RowSet> {
    let (names, rows): (&[(&str, Kind)], Vec<Vec<Value>>) = (
        &[
            ("OID", N),
            ("PRPUBID", N),
            ("PRRELID", N),
            ("PRQUAL", T),
            ("PRATTRS", T),
        ],
        Vec::new(),
    );
    Ok(RowSet {
        columns: columns(names),
        rows,
    })
}

/// A relation as pg_class shows it.
struct ClassRow<'a> {
    oid: u32,
    name: &'a str,
    access_method: i64,
    kind: &'static str,
    columns: usize,
    checks: usize,
    /// RELPAGES and RELTUPLES: what statistics measured; 0 and -1 (PostgreSQL 14+'s
    /// "never analyzed") without.
    pages: i64,
    tuples: i64,
    has_index: bool,
}

impl<'a> ClassRow<'a> {
    fn other(oid: u32, name: &'a str, kind: &'static str, columns: usize) -> ClassRow<'a> {
        ClassRow {
            oid,
            name,
            access_method: 0,
            kind,
            columns,
            checks: 0,
            pages: 0,
            tuples: -1,
            has_index: false,
        }
    }
}

/// pg_class: tables, their indexes, sequences and views, by oid.
fn class_rows(dictionary: &Dictionary) -> Vec<Vec<Value>> {
    let mut relations: Vec<ClassRow> = Vec::new();
    for table in dictionary.tables.values() {
        let statistics = table.statistics.as_deref();
        relations.push(ClassRow {
            oid: table.object_id,
            name: &table.name,
            access_method: HEAP_ACCESS_METHOD_OID,
            kind: "r",
            columns: table.columns.len(),
            checks: table.checks.len(),
            pages: statistics.map_or(0, |gathered| gathered.blocks as i64),
            tuples: statistics.map_or(-1, |gathered| gathered.num_rows as i64),
            has_index: !table.indexes.is_empty(),
        });
    }
    for index in dictionary.indexes.values() {
        relations.push(ClassRow {
            access_method: BTREE_ACCESS_METHOD_OID,
            ..ClassRow::other(index.object_id, &index.name, "i", index.columns.len())
        });
    }
    for sequence in dictionary.sequences.values() {
        relations.push(ClassRow::other(sequence.object_id, &sequence.name, "S", 3));
    }
    for view in dictionary.views.values() {
        relations.push(ClassRow::other(
            view.object_id,
            &view.name,
            "v",
            view.columns.len(),
        ));
    }
    relations.sort_by_key(|relation| relation.oid);
    relations
        .into_iter()
        .map(|relation| {
            let oid = relation.oid as i64;
            vec![
                number(oid),
                Value::text(client_name(relation.name)),
                number(SYSTEM_NAMESPACE_OID),
                number(0),
                number(0),
                number(SYSTEM_ROLE_OID),
                number(relation.access_method),
                number(oid),
                number(0),
                number(relation.pages),
                number(relation.tuples),
                number(0),
                number(0),
                boolean(relation.has_index),
                boolean(false),
                Value::text("p"),
                Value::text(relation.kind),
                number(relation.columns as i64),
                number(relation.checks as i64),
                boolean(false),
                // Foreign keys are not triggers here: psql asks for none.
                boolean(false),
                boolean(false),
                boolean(false),
                boolean(false),
                boolean(true),
                Value::text(if relation.kind == "r" { "d" } else { "n" }),
                boolean(false),
                number(0),
                Value::Null,
                Value::Null,
                Value::Null,
            ]
        })
        .collect()
}

/// pg_attribute: the columns of tables and views, and of indexes (named after the
/// table's columns they hold).
fn attribute_rows(dictionary: &Dictionary) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    let mut push = |relation: u32,
                    position: usize,
                    name: &str,
                    data_type: Option<DataType>,
                    not_null: bool,
                    has_default: bool| {
        let (type_id, typmod) = data_type
            .as_ref()
            .map_or((type_oid::TEXT, -1), postgresql_type);
        let length = TYPES
            .iter()
            .find(|row| row.0 == type_id)
            .map_or(-1, |row| row.2);
        let collation = TYPES
            .iter()
            .find(|row| row.0 == type_id)
            .map_or(0, |row| row.4);
        rows.push(vec![
            number(relation as i64),
            Value::text(client_name(name)),
            number(type_id),
            number(-1),
            number(length),
            number(position as i64 + 1),
            number(0),
            number(typmod),
            boolean(not_null),
            boolean(has_default),
            boolean(false),
            Value::Null,
            Value::Null,
            boolean(false),
            boolean(true),
            number(0),
            number(collation),
        ]);
    };
    for table in dictionary.tables.values() {
        for (position, column) in table.columns.iter().enumerate() {
            push(
                table.object_id,
                position,
                &column.name,
                Some(column.data_type),
                !column.nullable,
                column.default.is_some(),
            );
        }
    }
    for index in dictionary.indexes.values() {
        let Some(table) = dictionary.tables.get(&index.table_name) else {
            continue;
        };
        for (position, &column) in index.columns.iter().enumerate() {
            let column = &table.columns[column];
            push(
                index.object_id,
                position,
                &column.name,
                Some(column.data_type),
                !column.nullable,
                false,
            );
        }
    }
    // A view's columns as its CREATE VIEW named them (a view that took its query's names
    // has none here: the dictionary does not keep them), typed as text.
    for view in dictionary.views.values() {
        for (position, name) in view.columns.iter().enumerate() {
            push(view.object_id, position, name, None, false, false);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_between_the_dialects_unquoted_forms() {
        assert_eq!(client_name("PGBENCH_ACCOUNTS"), "pgbench_accounts");
        assert_eq!(client_name("Mixed"), "Mixed");
        assert_eq!(client_name("SYS_C0001"), "sys_c0001");
        assert_eq!(quote_identifier("pgbench_accounts"), "pgbench_accounts");
        assert_eq!(quote_identifier("Mixed"), "\"Mixed\"");
        assert_eq!(quote_identifier("1a"), "\"1a\"");
        assert_eq!(quote_identifier("a b"), "\"a b\"");
    }

    #[test]
    fn types_are_formatted_as_postgresql_formats_them() {
        let formatted = |data_type: DataType| {
            let (oid, typmod) = postgresql_type(&data_type);
            format_type(oid, Some(typmod)).unwrap()
        };
        assert_eq!(formatted(DataType::integer()), "integer");
        assert_eq!(formatted(DataType::Char { length: 84 }), "character(84)");
        assert_eq!(formatted(DataType::varchar2(20)), "character varying(20)");
        assert_eq!(formatted(DataType::number()), "numeric");
        assert_eq!(formatted(DataType::number_with(10, 2)), "numeric(10,2)");
        assert_eq!(formatted(DataType::number_with(5, -2)), "numeric(5,-2)");
        assert_eq!(formatted(DataType::Date), "timestamp(0) without time zone");
        assert_eq!(
            formatted(DataType::Timestamp),
            "timestamp without time zone"
        );
        assert_eq!(formatted(DataType::Float), "double precision");
        assert_eq!(formatted(DataType::Boolean), "boolean");
        // Without a typmod, and an oid that is no type.
        assert_eq!(format_type(1042, None).unwrap(), "character");
        assert_eq!(format_type(1042, Some(-1)).unwrap(), "character");
        assert_eq!(format_type(99999, None), None);
    }

    #[test]
    fn derived_oids_are_stable_and_above_dictionary_ids() {
        let oid = constraint_oid("SYS_C0001");
        assert_eq!(oid, constraint_oid("SYS_C0001"));
        assert_ne!(oid, constraint_oid("SYS_C0002"));
        assert!(oid >= DERIVED_OID_BASE as i64 && oid <= u32::MAX as i64);
    }

    #[test]
    fn every_view_has_its_columns_and_rows_of_their_width() {
        let context = ViewContext::detached(0);
        let names = crate::views::view_names(ViewKind::PgCatalog);
        for required in [
            "PG_NAMESPACE",
            "PG_CLASS",
            "PG_ATTRIBUTE",
            "PG_TYPE",
            "PG_INDEX",
            "PG_AM",
            "PG_CONSTRAINT",
            "PG_ATTRDEF",
            "PG_COLLATION",
            "PG_ROLES",
            "PG_INHERITS",
            "PG_PARTITIONED_TABLE",
            "PG_POLICY",
            "PG_STATISTIC_EXT",
            "PG_PUBLICATION",
            "PG_PUBLICATION_NAMESPACE",
            "PG_PUBLICATION_REL",
        ] {
            assert!(names.contains(&required), "{required} missing");
        }
        for name in names {
            let view = crate::views::resolve(name, &context).unwrap().expect(name);
            assert!(!view.columns.is_empty(), "{name}");
            for row in &view.rows {
                assert_eq!(row.len(), view.columns.len(), "{name}");
            }
        }
        assert!(crate::views::resolve("PG_NO_SUCH_VIEW", &context)
            .unwrap()
            .is_none());
        let namespaces = crate::views::resolve("PG_NAMESPACE", &context)
            .unwrap()
            .unwrap();
        assert_eq!(namespaces.rows[1][1], Value::text("system"));
    }
}
