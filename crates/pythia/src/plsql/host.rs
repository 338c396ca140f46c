//! The one narrow interface through which PL/SQL reaches the session: what the compiler asks
//! of the dictionary ([`Names`], which only reads) and what the interpreter asks of the SQL
//! engine ([`Host`], which runs statements). The session implements both
//! (`session/plsql.rs`); nothing else of the session is visible here.

use crate::error::Result;
use crate::types::{DataType, Value};

/// A result column as the compiler sees it: its name and, where known, its type.
pub type ColumnType = (String, Option<DataType>);

/// What a recursive SQL statement gave back.
#[derive(Debug, Default)]
pub struct SqlOutcome {
    /// A query's rows (at most the limit asked for).
    pub rows: Vec<Vec<Value>>,
    /// Rows inserted, updated or deleted; rows returned by a query.
    pub rows_affected: u64,
}

/// What the compiler reads: the names static SQL and declarations may use. Compiling runs
/// nothing.
pub trait Names {
    /// The columns of a table or view named `name` (upper case), or None when there is no
    /// such object.
    fn columns_of(&self, name: &str) -> Option<Vec<ColumnType>>;

    /// A query's result columns, planned with `binds` NULL binds and not run.
    fn describe(&self, text: &str, binds: usize) -> Result<Vec<ColumnType>>;

    /// Whether the session runs a procedure named `name` (`DBMS_STATS.GATHER_TABLE_STATS`):
    /// ORA-06550 with PLS-00201 or PLS-00302 when not.
    fn resolve_procedure(&self, name: &str) -> Result<()>;
}

/// What the interpreter asks: statements and procedures run.
pub trait Host {
    /// Runs one SQL statement as recursive SQL, one level below the unit's caller, with
    /// `binds` for `:B1, :B2, ...` in order of first appearance; a query returns at most
    /// `row_limit` rows.
    fn execute(&mut self, text: &str, binds: &[Value], row_limit: usize) -> Result<SqlOutcome>;

    /// Runs a procedure `resolve_procedure` accepted, with its arguments' values.
    fn call_procedure(
        &mut self,
        name: &str,
        arguments: &[Value],
        named: &[(String, Value)],
    ) -> Result<()>;
}
