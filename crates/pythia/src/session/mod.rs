//! Sessions: what `instance.connect()` returns, and the embedded API's entry point. The
//! server and the CLI talk to a `Session`; nothing below this layer knows it.
//!
//! A session runs one statement at a time on the calling thread (Oracle's dedicated server).
//! It parses statements, runs them, and keeps what lives between them: its transaction
//! (begun at the first change, ended by COMMIT, ROLLBACK or DDL) and savepoints, its copy of
//! the parameters (`ALTER SESSION`), its sequences' CURRVAL, its parsed statements, and its
//! instrumentation (the `sid` of `v$session`). Many sessions run at once on their own
//! threads; they share the instance's structures, each guarded by its own latch.
//!
//! ```text
//!   execute(text, binds)                                    mod.rs: the calls, `run`
//!     user call (DB time, DB CPU)
//!     parse  ── CURSOR_SHARING=FORCE pass; session cursor cache, else the library cache
//!               (soft parse), else the parser (a new parent cursor) ── parse count   parse.rs
//!     execute ── pin the child cursor (built here on first use: a hard parse)        mod.rs
//!             ── query: snapshot → the child's plan (or a new one) → rows          select.rs
//!             ── DML: transaction (begun at the first change) → rows changed, or
//!                undone to the statement's start on error            dml.rs, transaction.rs
//!             ── DDL: commit what is open, then the catalog's own transaction
//!                                                        ddl.rs, alter_table.rs, users.rs
//!             ── COMMIT / ROLLBACK / SAVEPOINT                            transaction.rs
//!             ── ALTER SESSION / SYSTEM, SET, SHOW          settings.rs, client_settings.rs
//!             ── EXPLAIN PLAN                                                  explain.rs
//!             ── ANALYZE, DBMS_STATS, VACUUM, CALL                          statistics.rs
//! ```
//!
//! `logon.rs` holds `Instance::connect` and `Instance::logon`, which make sessions;
//! `results.rs` what a call returns (`StatementResult`, `Description`, `DescribeColumn`).
//!
//! Cursors are the library cache's (`crate::library_cache`): a parse call finds the parent
//! cursor of the text (through the session cursor cache, then the shared library cache,
//! else it parses and loads one), and an execution pins the child cursor that this session's
//! optimizer environment and bind types share. The first execution of a child builds it:
//! a query's or a DML statement's plan is published in the child for every session to
//! reuse while DDL on the objects it names has not invalidated it; plans that hold rows read
//! at planning time (subqueries, views) are made again at every execution.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::instance::Instance;
use crate::instrumentation::{
    self, interrupt, SessionInstrumentation, SessionType, Statistic, TimeModelStatistic, WaitEvent,
};
use crate::library_cache::session_cache::SessionCursorCache;
use crate::library_cache::{ChildCursor, ChildKey, CursorPin, Handle};
use crate::parameters::{Parameters, SetScope};
use crate::sql::describe;
use crate::syntax::ast::Statement;
use crate::transaction::commit::{CommitDecision, CommitRequest};
use crate::transaction::Transaction;
use crate::types::Value;

mod alter_table;
mod client_settings;
mod ddl;
mod dml;
mod explain;
mod logon;
mod packages;
mod parse;
mod plsql;
mod programs;
mod results;
mod select;
mod settings;
mod statistics;
mod transaction;
mod users;

pub use results::{Column, DescribeColumn, Description, StatementResult};

use client_settings::ClientSettings;
use dml::TableStatement;
use explain::PlanTableRow;
use settings::{parameter_text, StatementSettings};

/// A statement parsed once for repeated execution with different binds: an open cursor on
/// its parent in the library cache.
#[derive(Clone)]
pub struct Prepared {
    text: String,
    cursor: ParsedCursor,
    /// The parse call that made this is counted in v$sql.parse_calls with the first
    /// execution (the child cursor it counts in is known only then); clones share it.
    parse_call_pending: Arc<std::sync::atomic::AtomicBool>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Prepared")
            .field("text", &self.cursor.handle.text)
            .field("sql_id", &self.cursor.handle.id.to_string())
            .finish()
    }
}

/// What a parse call gives: the parent cursor, its tree, and under CURSOR_SHARING=FORCE the
/// values of the literals its text replaced by system binds.
#[derive(Clone)]
struct ParsedCursor {
    handle: Arc<Handle>,
    statement: Arc<Statement>,
    forced_binds: Vec<Value>,
}

impl Prepared {
    pub fn text(&self) -> &str {
        &self.text
    }
}

pub struct Session {
    instance: Arc<Instance>,
    /// The user logged on (v$session.username, USER): SYSTEM through `Instance::connect`.
    user: String,
    instrumentation: Arc<SessionInstrumentation>,
    transaction: Option<Transaction>,
    parameters: Parameters,
    /// The instance's parameter generation this session's copy has caught up with.
    parameters_generation: u64,
    current_values: RefCell<HashMap<u32, Value>>,
    /// The session cursor cache (`session_cached_cursors`).
    cursor_cache: SessionCursorCache,
    /// CURSOR_SHARING=FORCE's forced text, kept from one parse call to the next: a forced
    /// statement found in the session cursor cache allocates none.
    forced_text: String,
    /// Its literals' values, kept the same way: the vector comes back after each execution
    /// of a forced statement (`parse_and_run`).
    forced_binds: Vec<Value>,
    /// The library cache handle of the statement running now or last (v$session.sql_id).
    current_handle: u64,
    /// What statements read of the parameters, derived again when they change
    /// (`parameters_changed`) rather than looked up by name for every statement.
    settings: StatementSettings,
    /// The session's PLAN_TABLE: what EXPLAIN PLAN wrote (Oracle's is a global temporary
    /// table, private to each session too), at most `PLAN_TABLE_ROWS_MAX` rows.
    plan_table: Vec<PlanTableRow>,
    next_plan_id: u64,
    /// What PostgreSQL's SET kept of its own settings (`sql::client_settings`).
    client_settings: ClientSettings,
    /// What PL/SQL keeps between calls: DBMS_OUTPUT's buffer (`plsql::SessionState`).
    /// It lives here while SQL runs (a query's stored functions take it for their call);
    /// a running PL/SQL call holds it (`plsql.rs`).
    plsql: std::cell::RefCell<crate::plsql::SessionState>,
    /// How deep recursive SQL (PL/SQL's static SQL) nests now.
    recursive_depth: usize,
    /// The PL/SQL unit (object id) and line of the static SQL running now, which a child
    /// cursor it builds records (v$sql.program_id, program_line#).
    sql_origin: Option<(u32, u32)>,
    /// How deep calls of stored subprograms nest now.
    plsql_depth: std::cell::Cell<usize>,
    /// The children this session is executing, innermost last, each with the PL/SQL
    /// sections open in it: the outermost section's time is the child's PL/SQL time
    /// (`plsql::timed_for_cursor`).
    executing: std::cell::RefCell<Vec<(Arc<ChildCursor>, u32)>>,
    /// The redo a COMMIT inside the running PL/SQL call did not wait for: the call waits
    /// for it before it returns.
    plsql_commit_lsn: Option<u64>,
    /// The stored units being compiled again now, innermost last (`programs.rs`).
    compiling: std::cell::RefCell<Vec<String>>,
}

/// ORA-00979 (not a GROUP BY expression) and ORA-00937 (not a single-group group function):
/// what replacing a GROUP BY expression's literals by distinct binds can cause.
const FORCED_GROUPING_ERRORS: [u32; 2] = [979, 937];

impl Drop for Session {
    fn drop(&mut self) {
        // A session that ends without COMMIT loses its changes, as in Oracle.
        let _entered = instrumentation::enter(&self.instrumentation);
        if let Some(transaction) = self.transaction.take() {
            let _ = self.instance.transactions().rollback(transaction);
        }
        let change = self.cursor_cache.clear();
        self.cursor_cache_changed(change);
        self.instance.session_ended();
        self.instance.user_logged_off(&self.user);
    }
}

impl Session {
    /// A session of `user`, who the caller has authenticated and authorized
    /// (`Instance::connect`, `Instance::logon`).
    pub(crate) fn new(instance: Arc<Instance>, user: &str) -> Result<Session> {
        instance.admit_session()?;
        let instrumentation = match SessionInstrumentation::new(SessionType::User, user, "pythia") {
            Ok(instrumentation) => instrumentation,
            Err(error) => {
                instance.session_ended();
                return Err(error);
            }
        };
        let parameters_generation = instance.parameters_generation();
        let parameters = instance.parameters();
        let settings = StatementSettings::of(&parameters, &instance);
        instance.user_logged_on(user);
        Ok(Session {
            instance,
            user: user.to_string(),
            instrumentation,
            transaction: None,
            parameters,
            parameters_generation,
            current_values: RefCell::new(HashMap::new()),
            cursor_cache: SessionCursorCache::new(settings.session_cached_cursors),
            forced_text: String::new(),
            forced_binds: Vec::new(),
            current_handle: 0,
            settings,
            plan_table: Vec::new(),
            next_plan_id: 1,
            client_settings: ClientSettings::default(),
            plsql: Default::default(),
            recursive_depth: 0,
            sql_origin: None,
            plsql_depth: std::cell::Cell::new(0),
            executing: std::cell::RefCell::new(Vec::new()),
            plsql_commit_lsn: None,
            compiling: std::cell::RefCell::new(Vec::new()),
        })
    }

    pub fn instance(&self) -> &Arc<Instance> {
        &self.instance
    }

    /// The user logged on.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The session's id, as `v$session.sid` shows it.
    pub fn sid(&self) -> u32 {
        self.instrumentation.sid()
    }

    /// A handle that cancels this session's running query or DML statement from another
    /// thread: it fails with ORA-01013, undoing its own changes, and the session goes on
    /// (`instrumentation::interrupt`).
    pub fn interrupter(&self) -> interrupt::Interrupter {
        self.instrumentation.interrupter()
    }

    /// The session's parameters (its copy: ALTER SESSION changes only these).
    pub fn parameters(&self) -> &Parameters {
        &self.parameters
    }

    /// Whether a transaction is open (changes not yet committed or rolled back).
    pub fn in_transaction(&self) -> bool {
        self.transaction.is_some()
    }

    /// Counts a client's traffic for this session: `bytes received via SQL*Net from client`,
    /// `bytes sent via SQL*Net to client` and `SQL*Net roundtrips to/from client` (the server
    /// counts its protocol messages' sizes as they go on the wire).
    pub fn count_client_traffic(&self, received_bytes: u64, sent_bytes: u64, round_trips: u64) {
        let _entered = instrumentation::enter(&self.instrumentation);
        instrumentation::add(Statistic::BytesReceivedViaSqlNetFromClient, received_bytes);
        instrumentation::add(Statistic::BytesSentViaSqlNetToClient, sent_bytes);
        instrumentation::add(Statistic::SqlNetRoundtripsToFromClient, round_trips);
    }

    /// Starts this session's wait for its client, as a dedicated server waits on its
    /// socket: 'SQL*Net message from client' (idle) for the next request, or 'SQL*Net more
    /// data from client' (`more_data`) for the rest of one (a COPY's rows). The wait is
    /// recorded when the guard drops, on this thread; the server's connection threads keep
    /// it while they read the socket.
    pub fn wait_for_client(&self, more_data: bool) -> instrumentation::WaitGuard {
        let _entered = instrumentation::enter(&self.instrumentation);
        let event = if more_data {
            WaitEvent::SqlNetMoreDataFromClient
        } else {
            WaitEvent::SqlNetMessageFromClient
        };
        instrumentation::wait(event, 0, 1, 0)
    }

    /// Parses and executes one statement.
    pub fn execute(&mut self, sql: &str) -> Result<StatementResult> {
        self.execute_with(sql, &[])
    }

    /// Executes one statement with bind values (`:1`, `$1` by number; `:name` in order of
    /// first appearance).
    pub fn execute_with(&mut self, sql: &str, binds: &[Value]) -> Result<StatementResult> {
        self.executing_call(|session| session.parse_and_run(sql, binds, binds.is_empty()))
    }

    /// Parses once for repeated execution.
    pub fn prepare(&mut self, sql: &str) -> Result<Prepared> {
        let _entered = instrumentation::enter(&self.instrumentation);
        let _call = instrumentation::user_call();
        self.inherit_system_changes();
        Ok(Prepared {
            text: sql.to_string(),
            cursor: self.parse(sql, true)?,
            parse_call_pending: Arc::new(std::sync::atomic::AtomicBool::new(true)),
        })
    }

    pub fn execute_prepared(
        &mut self,
        prepared: &Prepared,
        binds: &[Value],
    ) -> Result<StatementResult> {
        self.executing_call(|session| {
            if prepared.cursor.handle.is_obsolete() {
                // Its parent was freed from the shared pool: parse again (the cursor it finds
                // or loads is in the library cache, where the views and DDL see it).
                session.parse_and_run(&prepared.text, binds, true)
            } else {
                let parse_call = prepared
                    .parse_call_pending
                    .swap(false, std::sync::atomic::Ordering::Relaxed);
                session.run_cursor(&prepared.cursor, binds, parse_call)
            }
        })
    }

    /// What `prepared` takes and gives, without running it: the types its binds' contexts
    /// give them (`sql::describe`) and, for a query, its result columns, from a plan made
    /// with NULL binds and not kept (the first execution makes its own, as a hard parse).
    /// Under CURSOR_SHARING=FORCE the system binds are the engine's own: none is described.
    pub fn describe_prepared(&mut self, prepared: &Prepared) -> Result<Description> {
        let _entered = instrumentation::enter(&self.instrumentation);
        self.inherit_system_changes();
        let cursor = &prepared.cursor;
        // A statement the user may not run is not described either (its columns are the
        // table's).
        self.check_privileges(&cursor.statement)?;
        let (dictionary, xid) = self.reader_parts();
        let forced = !cursor.forced_binds.is_empty();
        let binds = if forced {
            Vec::new()
        } else {
            describe::bind_types(&cursor.statement, &dictionary)
        };
        let columns = match cursor.statement.as_ref() {
            Statement::Select(query) => {
                let values = if forced {
                    cursor.forced_binds.clone()
                } else {
                    vec![Value::Null; binds.len()]
                };
                Some(
                    self.query_columns(&dictionary, xid, query, values)?
                        .into_iter()
                        .map(|(name, data_type)| Column { name, data_type })
                        .collect(),
                )
            }
            Statement::Call(call) if self.calls_stored(&call.name) => self.call_columns(call)?,
            _ => None,
        };
        Ok(Description { binds, columns })
    }

    /// One user call that executes a cursor (`work`): the session's instrumentation entered,
    /// the call measured, and its CPU added to the child cursor it ran (v$sql.cpu_time).
    fn executing_call(
        &mut self,
        work: impl FnOnce(&mut Session) -> (Result<StatementResult>, Option<Arc<ChildCursor>>),
    ) -> Result<StatementResult> {
        let _entered = instrumentation::enter(&self.instrumentation);
        let cpu_before = self.instrumentation.time_model(TimeModelStatistic::DbCpu);
        let (result, child) = {
            let _call = instrumentation::user_call();
            self.inherit_system_changes();
            work(self)
        };
        if let Some(child) = child {
            let cpu = self
                .instrumentation
                .time_model(TimeModelStatistic::DbCpu)
                .saturating_sub(cpu_before);
            child
                .statistics
                .cpu_micros
                .fetch_add(cpu, std::sync::atomic::Ordering::Relaxed);
        }
        result
    }

    /// A parse call for `sql` and the execution of its cursor. CURSOR_SHARING=FORCE gives
    /// each literal its own bind, so an expression repeated in GROUP BY no longer matches its
    /// select-list twin: a forced statement failing so runs again as written (a failed
    /// statement changed nothing).
    fn parse_and_run(
        &mut self,
        sql: &str,
        binds: &[Value],
        may_force: bool,
    ) -> (Result<StatementResult>, Option<Arc<ChildCursor>>) {
        let cursor = match self.parse(sql, may_force) {
            Ok(cursor) => cursor,
            Err(error) => return (Err(error), None),
        };
        let outcome = self.run_cursor(&cursor, binds, true);
        let forced = !cursor.forced_binds.is_empty();
        let mut forced_binds = cursor.forced_binds;
        forced_binds.clear();
        self.forced_binds = forced_binds;
        match outcome {
            (Err(error), _) if forced && FORCED_GROUPING_ERRORS.contains(&error.code()) => {
                self.parse_and_run(sql, binds, false)
            }
            outcome => outcome,
        }
    }

    /// Executes a parsed cursor: pins its child (building it on first use), runs the
    /// statement, and counts the execution in the child's statistics. Returns the child.
    fn run_cursor(
        &mut self,
        cursor: &ParsedCursor,
        binds: &[Value],
        parse_call: bool,
    ) -> (Result<StatementResult>, Option<Arc<ChildCursor>>) {
        let binds: &[Value] = if cursor.forced_binds.is_empty() {
            binds
        } else {
            &cursor.forced_binds
        };
        let key = ChildKey::new(
            self.settings.environment,
            self.settings.optimizer.mode.name(),
            binds,
        );
        let mut pin = self.instance.library_cache().pin(&cursor.handle, &key);
        let child = pin.child().clone();
        if parse_call {
            child
                .statistics
                .parse_calls
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        if self.current_handle != cursor.handle.address {
            self.current_handle = cursor.handle.address;
            self.instrumentation
                .set_sql_id(Some(&cursor.handle.id.to_string()));
        }
        let gets_before = self
            .instrumentation
            .statistic(Statistic::SessionLogicalReads);
        let reads_before = self.instrumentation.statistic(Statistic::PhysicalReads);
        let started = std::time::Instant::now();
        self.executing.borrow_mut().push((child.clone(), 0));
        let result = self.run(&cursor.statement, &cursor.handle.text, binds, &mut pin);
        self.executing.borrow_mut().pop();
        drop(pin);
        let rows = result.as_ref().map_or(0, |result| result.rows_affected);
        child.statistics.record(
            self.instrumentation
                .statistic(Statistic::SessionLogicalReads)
                .saturating_sub(gets_before),
            self.instrumentation
                .statistic(Statistic::PhysicalReads)
                .saturating_sub(reads_before),
            rows,
            started.elapsed().as_micros() as u64,
            0,
        );
        (result, Some(child))
    }

    /// The columns of a table or view, for `DESCRIBE`. ORA-04043 when there is no such object.
    pub fn describe(&mut self, name: &str) -> Result<Vec<DescribeColumn>> {
        let _entered = instrumentation::enter(&self.instrumentation);
        let name = name.trim().trim_matches('"').to_uppercase();
        let dictionary = self.instance.catalog().current();
        let no_object = || Error::new(4043, format!("object {name} does not exist"));
        // A user describes what it holds a privilege on, as in Oracle; to anyone else the
        // object does not exist.
        if let Ok((object_id, _)) = dictionary.privilege_object(&name) {
            if !dictionary.user(&self.user)?.holds(object_id, None) {
                return Err(no_object());
            }
        }
        if let Some(table) = dictionary.tables.get(&name) {
            return Ok(table
                .columns
                .iter()
                .map(|column| DescribeColumn {
                    name: column.name.clone(),
                    nullable: column.nullable,
                    type_text: column.data_type.to_string(),
                })
                .collect());
        }
        match self.view(&dictionary, &name)? {
            Some(rows) => Ok(rows
                .columns
                .into_iter()
                .map(|(name, data_type)| DescribeColumn {
                    name,
                    nullable: true,
                    type_text: data_type.map_or("VARCHAR2(4000)".to_string(), |t| t.to_string()),
                })
                .collect()),
            None => Err(no_object()),
        }
    }

    fn run(
        &mut self,
        statement: &Statement,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<StatementResult> {
        instrumentation::add(Statistic::ExecuteCount, 1);
        if pin.is_building() {
            instrumentation::add(Statistic::ParseCountHard, 1);
            if !matches!(
                statement,
                Statement::Select(_)
                    | Statement::Insert { .. }
                    | Statement::Update { .. }
                    | Statement::Delete { .. }
                    | Statement::Block
            ) && !matches!(statement, Statement::Call(call) if self.calls_stored(&call.name))
            {
                // Statements that keep no plan: the child is built as it is found.
                let dictionary = self.instance.catalog().current();
                self.publish(pin, text, &dictionary, None, self.unplanned(), Some(0))?;
            }
        }
        let _timed = instrumentation::timed(TimeModelStatistic::SqlExecuteElapsedTime);
        self.check_privileges(statement)?;
        match statement {
            Statement::Select(query) => self.select(query, text, binds, pin),
            Statement::Insert {
                table,
                columns,
                source,
                returning,
                ..
            } => {
                refuse_returning_at_top(returning, self.recursive_depth)?;
                self.dml(|session, transaction| {
                    let columns = columns.as_deref();
                    let call = (text, binds);
                    session.insert(transaction, table, columns, source, returning, call, pin)
                })
                .map(|rows| rows.result("created"))
            }
            Statement::Update {
                hint,
                table,
                alias,
                assignments,
                where_clause,
                returning,
            } => {
                refuse_returning_at_top(returning, self.recursive_depth)?;
                let statement = TableStatement {
                    table,
                    alias: alias.as_deref(),
                    hint: hint.as_deref(),
                    assignments,
                    where_clause: where_clause.as_ref(),
                    returning,
                };
                self.dml(|session, transaction| {
                    session.update(transaction, &statement, text, binds, pin)
                })
                .map(|rows| rows.result("updated"))
            }
            Statement::Delete {
                hint,
                table,
                alias,
                where_clause,
                returning,
            } => {
                refuse_returning_at_top(returning, self.recursive_depth)?;
                let statement = TableStatement {
                    table,
                    alias: alias.as_deref(),
                    hint: hint.as_deref(),
                    assignments: &[],
                    where_clause: where_clause.as_ref(),
                    returning,
                };
                self.dml(|session, transaction| {
                    session.delete(transaction, &statement, text, binds, pin)
                })
                .map(|rows| rows.result("deleted"))
            }
            Statement::Commit { write } => {
                let statement = write.map_or_else(CommitRequest::default, |write| CommitRequest {
                    wait: write.wait,
                    immediate: write.immediate,
                });
                let mut decision = CommitDecision::decide(
                    statement,
                    self.settings.commit_session,
                    self.settings.commit_system,
                );
                // The PL/SQL commit optimisation: a COMMIT inside PL/SQL that was not told
                // WRITE WAIT does not wait for its redo; the call waits once, for the last
                // one, before it returns (`run_unit`). FORCE_WAIT waits each time.
                let deferred = self.recursive_depth > 0
                    && statement.wait.is_none()
                    && decision.performed.wait
                    && !(self.settings.commit_session.force_wait
                        || self.settings.commit_system.force_wait);
                if deferred {
                    decision.performed.wait = false;
                    decision.performed.immediate = true;
                }
                self.commit(Some(&decision))?;
                if deferred {
                    self.plsql_commit_lsn = Some(self.instance.log().current_lsn());
                }
                Ok(StatementResult::done("Commit complete."))
            }
            Statement::Rollback { to_savepoint } => {
                self.rollback(to_savepoint.as_deref())?;
                Ok(StatementResult::done("Rollback complete."))
            }
            Statement::Savepoint(name) => {
                let transaction = self.begin()?;
                let uba = transaction.last_uba;
                transaction
                    .savepoints
                    .retain(|(existing, _)| existing != name);
                transaction.savepoints.push((name.clone(), uba));
                Ok(StatementResult::done("Savepoint created."))
            }
            Statement::Begin => Ok(StatementResult::done("")),
            Statement::AlterSession(settings) => {
                for setting in settings {
                    let value = parameter_text(&setting.value);
                    let set = self.parameters.set(
                        &setting.name.to_lowercase(),
                        &value,
                        SetScope::AlterSession,
                    );
                    self.parameters_changed();
                    set?;
                }
                Ok(StatementResult::done("Session altered."))
            }
            Statement::AlterSystem(action) => self.alter_system(action),
            Statement::Set { name, value } => self.set_setting(name, value),
            Statement::Show(name) => self.show_setting(name),
            Statement::Vacuum { analyze, tables } => self.vacuum(*analyze, tables),
            Statement::Explain {
                statement_id,
                statement,
            } => self.explain(statement_id.as_deref(), statement, binds),
            Statement::Block => self.block(text, binds, pin),
            Statement::Call(call) if self.calls_stored(&call.name) => {
                self.stored_call(text, binds, pin)
            }
            other => {
                // DDL commits what is open, as in Oracle, and always WAIT IMMEDIATE.
                self.commit(None)?;
                self.ddl(other, text, binds)
            }
        }
    }
}

/// RETURNING without INTO is PL/SQL's (a client's RETURNING rows are not built yet).
fn refuse_returning_at_top(returning: &[crate::syntax::ast::Expr], depth: usize) -> Result<()> {
    if !returning.is_empty() && depth == 0 {
        return Err(Error::new(925, "missing INTO keyword"));
    }
    Ok(())
}

fn changed(rows: u64, verb: &str) -> StatementResult {
    StatementResult {
        rows_affected: rows,
        feedback: format!("{rows} row{} {verb}.", if rows == 1 { "" } else { "s" }),
        ..Default::default()
    }
}

fn unsupported(what: &str) -> Error {
    Error::new(3001, format!("unimplemented feature: {what}"))
}
