//! The one narrow interface through which PL/SQL reaches the session: what the compiler asks
//! of the dictionary ([`Names`], which only reads) and what the interpreter asks of the SQL
//! engine ([`Host`], which runs statements). The session implements both
//! (`session/plsql.rs`); nothing else of the session is visible here.

use crate::error::Result;
use crate::plsql::ast::Mode;
use crate::plsql::runtime::SessionState;
use crate::sql::eval::RoutineCall;
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

/// A stored subprogram as its callers compile against it: its name, its parameters and
/// whether it returns a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// `SYSTEM.P` (`SYSTEM.PKG.P` for a package's).
    pub name: String,
    pub object_id: u32,
    pub parameters: Vec<ParameterSignature>,
    pub function: bool,
    /// A package's subprogram: its place among the package's subprograms.
    pub member: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterSignature {
    pub name: String,
    pub mode: Mode,
    pub has_default: bool,
}

impl Signature {
    /// How a subprogram's callers see it; `name` qualified (`SYSTEM.P`).
    pub fn of(subprogram: &crate::plsql::ast::Subprogram, name: &str, object_id: u32) -> Signature {
        Signature {
            name: name.to_string(),
            object_id,
            parameters: subprogram
                .parameters
                .iter()
                .map(|parameter| ParameterSignature {
                    name: parameter.name.clone(),
                    mode: parameter.mode,
                    has_default: parameter.default.is_some(),
                })
                .collect(),
            function: subprogram.returns.is_some(),
            member: None,
        }
    }

    /// How an expression names it (`sql::eval::Expr::Routine`).
    pub fn routine_call(&self) -> RoutineCall {
        RoutineCall {
            name: self.name.clone(),
            object_id: self.object_id,
            member: self.member,
        }
    }
}

/// A package variable as other units compile against it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageVariable {
    pub global: usize,
    pub kind: crate::plsql::code::SlotKind,
    pub constant: bool,
}

/// What a call of a stored subprogram gave back: each parameter's value at the end (the
/// caller keeps the OUT and IN OUT ones) and a function's result.
#[derive(Debug, Default)]
pub struct Called {
    pub parameters: Vec<Value>,
    pub value: Option<Value>,
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

    /// The stored procedures or functions `name` names (`P`, `SCHEMA.P`, `PKG.P`; several
    /// for an overloaded package subprogram), none when it names none; an error when it
    /// names a unit that does not compile (PLS-00905).
    fn routines(&self, name: &[String]) -> Result<Vec<Signature>>;

    /// The package variable `package.name` names, when there is one (public, in the
    /// package's specification).
    fn package_variable(&self, package: &str, name: &str) -> Result<Option<PackageVariable>>;

    /// The Oracle error of the exception `package.name` (public, in the package's
    /// specification, with its PRAGMA EXCEPTION_INIT), when there is one.
    fn package_exception(&self, package: &str, name: &str) -> Result<Option<u32>>;
}

/// What the interpreter asks: statements and procedures run.
pub trait Host {
    /// Runs one SQL statement as recursive SQL, one level below the unit's caller, with
    /// `binds` for `:B1, :B2, ...` in order of first appearance; a query returns at most
    /// `row_limit` rows. `state` is the session's PL/SQL state, which the stored functions
    /// the statement calls run with; `origin` the unit's object id and the line of the
    /// statement (v$sql.program_id, program_line#).
    fn execute(
        &mut self,
        text: &str,
        binds: &[Value],
        row_limit: usize,
        state: &mut SessionState,
        origin: (u32, u32),
    ) -> Result<SqlOutcome>;

    /// Runs a procedure `resolve_procedure` accepted, with its arguments' values.
    fn call_procedure(
        &mut self,
        name: &str,
        arguments: &[Value],
        named: &[(String, Value)],
    ) -> Result<()>;

    /// Calls a stored subprogram with a value or None (its default; an OUT parameter) for
    /// each parameter; `state` is the session's PL/SQL state the caller runs with.
    fn call_routine(
        &mut self,
        routine: &RoutineCall,
        arguments: Vec<Option<Value>>,
        state: &mut SessionState,
    ) -> Result<Called>;

    /// Makes sure the session has the current state of package `name` in `state`:
    /// initialised now at its first use; ORA-04068 (once) when the package was compiled
    /// again since the state was made, which is discarded.
    fn package_state(&mut self, name: &str, state: &mut SessionState) -> Result<()>;
}
