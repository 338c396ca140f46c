//! What a session's calls return: a statement's result and feedback, a prepared
//! statement's description, and a column as DESCRIBE shows it.

use crate::types::{DataType, Value};

pub use crate::types::Column;

/// What a statement returned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatementResult {
    /// True for queries (even with no rows): `columns` and `rows` hold the result.
    pub is_query: bool,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
    /// Rows inserted, updated or deleted; rows returned for a query.
    pub rows_affected: u64,
    /// SQL*Plus feedback: `Table created.`, `3 rows updated.`, `Commit complete.`; for a
    /// query, `no rows selected` or `n rows selected.`.
    pub feedback: String,
    /// What a client should be told besides the result (the server sends it as a NOTICE):
    /// what VACUUM did, for one.
    pub notice: Option<String>,
    /// A PL/SQL block's host binds as the block left them (its OUT and IN OUT values), in the
    /// order of the binds given to it; empty for other statements.
    pub out_binds: Vec<Value>,
    /// A top-level CALL's OUT and IN OUT parameters, by name (lower case, as PostgreSQL
    /// names a CALL's result columns), with the values the procedure left in them: the
    /// server returns them as a row.
    pub out_parameters: Vec<(String, Value)>,
}

/// What a prepared statement takes and gives, known before it runs
/// ([`Session::describe_prepared`](crate::Session::describe_prepared)).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Description {
    /// The type each bind position's context gives it (`$1` compared with a NUMBER column
    /// is a NUMBER); None where the context says nothing, and text is then as good as any
    /// type. Positions as the binds of [`Session::execute_prepared`](crate::Session::execute_prepared) take them.
    pub binds: Vec<Option<DataType>>,
    /// A query's result columns; None for a statement that returns no rows.
    pub columns: Option<Vec<Column>>,
}

/// A column as `DESCRIBE` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct DescribeColumn {
    pub name: String,
    pub nullable: bool,
    /// `NUMBER(10,2)`, `VARCHAR2(30)`, `DATE`, ...
    pub type_text: String,
}

impl StatementResult {
    /// A query's result: its columns and rows, with SQL*Plus's feedback for them.
    pub(crate) fn query(columns: Vec<Column>, rows: Vec<Vec<Value>>) -> StatementResult {
        let count = rows.len() as u64;
        StatementResult {
            is_query: true,
            columns,
            rows,
            rows_affected: count,
            feedback: match count {
                0 => "no rows selected".to_string(),
                1 => "1 row selected.".to_string(),
                n => format!("{n} rows selected."),
            },
            ..Default::default()
        }
    }

    pub(crate) fn done(feedback: impl Into<String>) -> StatementResult {
        StatementResult {
            feedback: feedback.into(),
            ..Default::default()
        }
    }
}
