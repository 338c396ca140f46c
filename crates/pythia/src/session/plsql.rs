//! PL/SQL in the session: an anonymous block is a cursor like any statement; its child's
//! first execution compiles it (`plsql::compile_block`, timed as 'PL/SQL compilation elapsed
//! time') and keeps the compiled unit for every session, and each execution runs it
//! (`plsql::run`, 'PL/SQL execution elapsed time') with this session as its [`Host`]: static
//! SQL is recursive SQL through the session's own parse and execute ('recursive calls').
//!
//! A COMMIT inside PL/SQL does not wait for its redo (Oracle's PL/SQL commit
//! optimisation); the call waits once, for the last commit's, before it returns to the
//! client. `COMMIT WRITE WAIT` and `commit_wait = FORCE_WAIT` wait each time.
//!
//! An unhandled exception undoes the call's work to where it began, as Oracle's implicit
//! savepoint at the start of each call does: the changes of the transaction the call found
//! open, back to where the call found them, or all of a transaction the call began.

use super::{Session, StatementResult};
use crate::error::{Error, Result};
use crate::instrumentation::{self, TimeModelStatistic};
use crate::library_cache::CursorPin;
use crate::plsql::host::ColumnType;
use crate::plsql::{self, Host, Names, SqlOutcome, Unit};
use crate::sql::procedures;
use crate::syntax::ast::Statement;
use crate::syntax::parser;
use crate::types::Value;

/// How deep recursive SQL may nest (ORA-00036).
pub const RECURSIVE_DEPTH_MAX: usize = 50;

impl Session {
    /// Runs an anonymous block: its compiled unit (compiled now on the child's first
    /// execution, or when DDL invalidated it), then the unit with `binds` for its host binds.
    pub(super) fn block(
        &mut self,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<StatementResult> {
        let (out_binds, _, _) = self.run_block(text, text, binds, pin, false)?;
        Ok(StatementResult {
            out_binds,
            ..StatementResult::done("PL/SQL procedure successfully completed.")
        })
    }

    /// A top-level `CALL p(...)` of a stored subprogram: run as the block `BEGIN p(...);
    /// END;` is, its unit kept in the CALL's own cursor (whose text CURSOR_SHARING = FORCE
    /// may have given binds).
    pub(super) fn stored_call(
        &mut self,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<StatementResult> {
        let trimmed = text.trim_start();
        let call = trimmed
            .get(..4)
            .filter(|word| word.eq_ignore_ascii_case("CALL"))
            .map_or(trimmed, |_| &trimmed[4..]);
        let call = call.trim_end().trim_end_matches(';');
        let block = format!("BEGIN {call}; END;");
        let (out_binds, results, unit) = self.run_block(text, &block, binds, pin, true)?;
        let out_parameters = unit
            .call_results
            .iter()
            .zip(results)
            .map(|((name, _), value)| (name.to_lowercase(), value))
            .collect();
        Ok(StatementResult {
            out_binds,
            out_parameters,
            ..StatementResult::done("Call completed.")
        })
    }

    /// Runs the block `source` for the cursor of `text`: its compiled unit (compiled now on
    /// the child's first execution, or when DDL invalidated it), with `binds` for its host
    /// binds; returns the binds as the block left them.
    fn run_block(
        &mut self,
        text: &str,
        source: &str,
        binds: &[Value],
        pin: &mut CursorPin,
        call: bool,
    ) -> Result<(Vec<Value>, Vec<Value>, std::sync::Arc<Unit>)> {
        let (dictionary, valid) = self
            .instance
            .catalog()
            .current_checked(|| pin.child().is_valid());
        let unit = self.plan_of(
            pin,
            (text, &dictionary, valid),
            || self.compile_block(source, call),
            |_| (true, self.unplanned()),
        )?;
        let given = binds.len();
        let mut binds = binds.to_vec();
        binds.resize(unit.bind_slots.len().max(given), Value::Null);
        let results = self.run_unit(&unit, &mut binds)?;
        binds.truncate(given);
        Ok((binds, results, unit))
    }

    /// Compiles a block; `call`: a top-level CALL's, whose OUT parameters are its results.
    fn compile_block(&self, text: &str, call: bool) -> Result<Unit> {
        let _timed = instrumentation::timed(TimeModelStatistic::PlsqlCompilationElapsedTime);
        let block = plsql::parse_block(text)?;
        if call {
            plsql::compile_call(text, &block, self)
        } else {
            plsql::compile_block(text, &block, self)
        }
    }

    /// Runs a compiled unit, its work undone to where it began when it fails; returns its
    /// call results (`Unit::call_results`).
    fn run_unit(&mut self, unit: &Unit, binds: &mut [Value]) -> Result<Vec<Value>> {
        let _timed = instrumentation::timed(TimeModelStatistic::PlsqlExecutionElapsedTime);
        let start = self
            .transaction
            .as_ref()
            .map(|transaction| (transaction.xid, transaction.last_uba));
        let mut state = self.plsql.take();
        let limit = self.settings.statement_timeout;
        let section = self.plsql_section_begin();
        let result = instrumentation::interrupt::interruptible(limit, || {
            plsql::run(unit, &mut SessionHost { session: self }, &mut state, binds)
        });
        self.plsql_section_end(section);
        self.plsql.replace(state);
        // The commits the call made without waiting: one wait, for the last one's redo.
        let synced = match self.plsql_commit_lsn.take() {
            Some(lsn) => self.instance.log().sync_commit(lsn),
            None => Ok(()),
        };
        if result.is_err() {
            if let Some(mut transaction) = self.transaction.take() {
                let stop = match start {
                    Some((xid, uba)) if xid == transaction.xid => uba,
                    _ => 0,
                };
                let undone = self
                    .instance
                    .transactions()
                    .rollback_to(&mut transaction, stop);
                self.transaction = Some(transaction);
                undone?;
            }
        }
        synced?;
        result
    }

    /// A PL/SQL section begins (a block's or CALL's run, a stored call) in the child being
    /// executed: when it is the child's outermost, its start, for `plsql_section_end`.
    pub(super) fn plsql_section_begin(&self) -> Option<std::time::Instant> {
        let mut executing = self.executing.borrow_mut();
        let (_, open) = executing.last_mut()?;
        *open += 1;
        (*open == 1).then(std::time::Instant::now)
    }

    /// The section `plsql_section_begin` began ends: the outermost adds its time to the
    /// child's v$sql.plsql_exec_time.
    pub(super) fn plsql_section_end(&self, started: Option<std::time::Instant>) {
        let mut executing = self.executing.borrow_mut();
        let Some((child, open)) = executing.last_mut() else {
            return;
        };
        *open = open.saturating_sub(1);
        if let Some(started) = started {
            child.statistics.plsql_exec_micros.fetch_add(
                started.elapsed().as_micros() as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
    }

    /// DBMS_OUTPUT's complete lines, taken from the buffer (what SQL*Plus's SET SERVEROUTPUT
    /// ON prints after each call, and the server sends as notices).
    pub fn take_output(&mut self) -> Vec<String> {
        self.plsql.get_mut().output.take_lines()
    }

    /// Turns DBMS_OUTPUT on (`Some(size)`, None for unlimited) or off, as SQL*Plus's SET
    /// SERVEROUTPUT does before its calls.
    pub fn set_server_output(&mut self, enabled: Option<Option<usize>>) {
        match enabled {
            Some(size) => self.plsql.get_mut().output.enable(Some(size)),
            None => self.plsql.get_mut().output.disable(),
        }
    }

    /// A query's result columns, planned with NULL binds and not run.
    fn describe_query(&self, text: &str, binds: usize) -> Result<Vec<ColumnType>> {
        let Statement::Select(query) = parser::parse(text)? else {
            return Err(Error::new(900, "invalid SQL statement"));
        };
        let (dictionary, xid) = self.reader_parts();
        self.query_columns(&dictionary, xid, &query, vec![Value::Null; binds])
    }
}

/// What the compiler reads of the session: its dictionary and its planner.
impl Names for Session {
    fn columns_of(&self, name: &str) -> Option<Vec<ColumnType>> {
        let dictionary = self.instance.catalog().current();
        if let Some(table) = dictionary.tables.get(name) {
            return Some(
                table
                    .columns
                    .iter()
                    .map(|column| (column.name.clone(), Some(column.data_type)))
                    .collect(),
            );
        }
        let quoted = crate::syntax::print::identifier(name);
        self.describe_query(&format!("SELECT * FROM {quoted}"), 0)
            .ok()
    }

    fn describe(&self, text: &str, binds: usize) -> Result<Vec<ColumnType>> {
        self.describe_query(text, binds)
    }

    fn resolve_procedure(&self, name: &str) -> Result<()> {
        procedures::check_procedure(name)
    }

    fn routines(&self, name: &[String]) -> Result<Vec<plsql::host::Signature>> {
        self.routine_signatures(name)
    }

    fn package_variable(
        &self,
        package: &str,
        name: &str,
    ) -> Result<Option<plsql::host::PackageVariable>> {
        self.package_variable_of(package, name)
    }

    fn package_exception(&self, package: &str, name: &str) -> Result<Option<u32>> {
        if !self.is_package(package) {
            return Ok(None);
        }
        let unit = self
            .package_unit(package)
            .map_err(|_| super::programs::invalid(package))?;
        Ok(unit
            .exceptions
            .iter()
            .find(|(exception, _)| exception == name)
            .map(|(_, code)| *code))
    }
}

/// ORA-00036 at the deepest recursive SQL.
fn check_recursive_depth(depth: usize) -> Result<()> {
    if depth >= RECURSIVE_DEPTH_MAX {
        return Err(Error::new(
            36,
            format!("maximum number of recursive SQL levels ({RECURSIVE_DEPTH_MAX}) exceeded"),
        ));
    }
    Ok(())
}

/// How a PL/SQL call reaches the session: with every right ([`Writable`]: a block, a
/// CALL, a unit's static SQL) or only to read ([`ReadOnly`]: a function a query calls,
/// which may run queries and nothing else, ORA-14551).
pub(super) trait CallContext {
    fn session(&self) -> &Session;
    /// Runs `unit` with the host this context gives.
    fn call(
        &mut self,
        unit: &Unit,
        arguments: Vec<Option<Value>>,
        state: &mut plsql::SessionState,
    ) -> Result<plsql::host::Called>;
}

pub(super) struct Writable<'a>(pub(super) &'a mut Session);

impl CallContext for Writable<'_> {
    fn session(&self) -> &Session {
        self.0
    }

    fn call(
        &mut self,
        unit: &Unit,
        arguments: Vec<Option<Value>>,
        state: &mut plsql::SessionState,
    ) -> Result<plsql::host::Called> {
        let mut host = SessionHost {
            session: &mut *self.0,
        };
        plsql::runtime::call(unit, &mut host, state, arguments)
    }
}

pub(super) struct ReadOnly<'a>(pub(super) &'a Session);

impl CallContext for ReadOnly<'_> {
    fn session(&self) -> &Session {
        self.0
    }

    fn call(
        &mut self,
        unit: &Unit,
        arguments: Vec<Option<Value>>,
        state: &mut plsql::SessionState,
    ) -> Result<plsql::host::Called> {
        let mut host = QueryHost { session: self.0 };
        plsql::runtime::call(unit, &mut host, state, arguments)
    }
}

/// A function called from a query as PL/SQL's host: its queries run, as recursive SQL of
/// the query's statement; anything else is ORA-14551, Oracle's rule for such functions.
struct QueryHost<'a> {
    session: &'a Session,
}

fn dml_in_query() -> Error {
    Error::new(14551, "cannot perform a DML operation inside a query")
}

impl Host for QueryHost<'_> {
    fn execute(
        &mut self,
        text: &str,
        binds: &[Value],
        row_limit: usize,
        state: &mut plsql::SessionState,
        _origin: (u32, u32),
    ) -> Result<SqlOutcome> {
        let Statement::Select(query) = parser::parse(text)? else {
            return Err(dml_in_query());
        };
        let _call = instrumentation::user_call();
        let session = self.session;
        std::mem::swap(&mut *session.plsql.borrow_mut(), state);
        let (dictionary, xid) = session.reader_parts();
        let mut bind_values = crate::sql::query::BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let rows = session.with_reader_in(&dictionary, xid, &plan_binds, |reader| {
            crate::sql::query::run_query(reader, &mut bind_values, &query)
        });
        std::mem::swap(&mut *session.plsql.borrow_mut(), state);
        let mut rows = rows?.rows;
        rows.truncate(row_limit);
        let count = rows.len() as u64;
        Ok(SqlOutcome {
            rows,
            rows_affected: count,
        })
    }

    fn call_procedure(&mut self, _: &str, _: &[Value], _: &[(String, Value)]) -> Result<()> {
        Err(dml_in_query())
    }

    fn call_routine(
        &mut self,
        routine: &crate::sql::eval::RoutineCall,
        arguments: Vec<Option<Value>>,
        state: &mut plsql::SessionState,
    ) -> Result<plsql::host::Called> {
        super::programs::call_stored(&mut ReadOnly(self.session), routine, arguments, state)
    }

    fn package_state(&mut self, name: &str, state: &mut plsql::SessionState) -> Result<()> {
        super::packages::package_state(&mut ReadOnly(self.session), name, state)
    }
}

/// The stored functions SQL calls: found by name for its compiler, run read-only with the
/// session's PL/SQL state.
pub(super) struct SqlRoutines<'a> {
    pub(super) session: &'a Session,
}

impl crate::sql::eval::RoutineRunner for SqlRoutines<'_> {
    fn call_function(
        &self,
        routine: &crate::sql::eval::RoutineCall,
        arguments: Vec<Value>,
    ) -> Result<Value> {
        let session = self.session;
        let mut state = session.plsql.take();
        let arguments = arguments.into_iter().map(Some).collect();
        let called =
            super::programs::call_stored(&mut ReadOnly(session), routine, arguments, &mut state);
        *session.plsql.borrow_mut() = state;
        called?
            .value
            .ok_or_else(|| Error::internal("a function returned no value"))
    }
}

impl crate::sql::query::SqlFunctions for SqlRoutines<'_> {
    fn resolve(&self, name: &str, arguments: usize) -> Option<crate::sql::eval::RoutineCall> {
        let parts: Vec<String> = name.split('.').map(str::to_string).collect();
        let candidates = self.session.routine_signatures(&parts).ok()?;
        candidates
            .into_iter()
            .find(|signature| {
                signature.function
                    && signature
                        .parameters
                        .iter()
                        .all(|parameter| parameter.mode == plsql::ast::Mode::In)
                    && arguments <= signature.parameters.len()
                    && signature.parameters[arguments..]
                        .iter()
                        .all(|parameter| parameter.has_default)
            })
            .map(|signature| signature.routine_call())
    }
}

/// The session as PL/SQL's host: what the interpreter runs.
pub(super) struct SessionHost<'a> {
    pub(super) session: &'a mut Session,
}

impl Host for SessionHost<'_> {
    fn execute(
        &mut self,
        text: &str,
        binds: &[Value],
        row_limit: usize,
        state: &mut plsql::SessionState,
        origin: (u32, u32),
    ) -> Result<SqlOutcome> {
        let session = &mut *self.session;
        check_recursive_depth(session.recursive_depth)?;
        let _call = instrumentation::user_call();
        session.recursive_depth += 1;
        // The statement's stored functions run with the caller's state.
        std::mem::swap(session.plsql.get_mut(), state);
        let outer_origin = session.sql_origin.replace(origin);
        let (result, _child) = session.parse_and_run(text, binds, false);
        session.sql_origin = outer_origin;
        std::mem::swap(session.plsql.get_mut(), state);
        session.recursive_depth -= 1;
        let mut result = result?;
        result.rows.truncate(row_limit);
        Ok(SqlOutcome {
            rows: result.rows,
            rows_affected: result.rows_affected,
        })
    }

    fn call_procedure(
        &mut self,
        name: &str,
        arguments: &[Value],
        named: &[(String, Value)],
    ) -> Result<()> {
        let _call = instrumentation::user_call();
        self.session
            .run_procedure(name, arguments.to_vec(), named.to_vec())
    }

    fn call_routine(
        &mut self,
        routine: &crate::sql::eval::RoutineCall,
        arguments: Vec<Option<Value>>,
        state: &mut plsql::SessionState,
    ) -> Result<plsql::host::Called> {
        super::programs::call_stored(&mut Writable(self.session), routine, arguments, state)
    }

    fn package_state(&mut self, name: &str, state: &mut plsql::SessionState) -> Result<()> {
        super::packages::package_state(&mut Writable(self.session), name, state)
    }
}
