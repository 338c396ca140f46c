//! The session: parses statements, runs them, and keeps what lives between them (the open
//! transaction, savepoints, CURRVAL, the session's parameters, its parsed statements).
//!
//! ```text
//!   execute(text, binds)
//!     user call (DB time, DB CPU)
//!     parse  ── CURSOR_SHARING=FORCE pass; session cursor cache, else the library cache
//!               (soft parse), else the parser (a new parent cursor) ── parse count
//!     execute ── pin the child cursor (built here on first use: a hard parse)
//!             ── query: snapshot → the child's plan (or a new one) → rows
//!             ── DML: transaction (begun at the first change) → rows changed, or undone to
//!                the statement's start on error (statement-level atomicity)
//!             ── DDL: commit what is open, then the catalog's own transaction
//!             ── COMMIT / ROLLBACK / SAVEPOINT, ALTER SESSION / SYSTEM
//! ```
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

use crate::access::heap::RowId;
use crate::buffer::BufferPool;
use crate::catalog::rows;
use crate::catalog::statistics::IndexStatistics;
use crate::catalog::{self, views::dictionary_view, Alteration, Dictionary, SequenceDef, TableDef};
use crate::error::{Error, Result};
use crate::instance::Instance;
use crate::instrumentation::{
    self, interrupt, SessionInstrumentation, SessionType, Statistic, TimeModelStatistic, WaitEvent,
};
use crate::library_cache::session_cache::SessionCursorCache;
use crate::library_cache::{
    cursor_sharing, ChildCursor, ChildKey, CursorPin, Executable, Handle, PlanSummary,
};
use crate::parameters::{AlterSystemScope, Parameters, SetScope};
use crate::session::{Column, DescribeColumn, Description, StatementResult};
use crate::sql::client_settings::{self, ClientSettings};
use crate::sql::eval::SequenceAccess;
use crate::sql::gather::{self, SampleSize};
use crate::sql::optimizer::OptimizerEnvironment;
use crate::sql::procedures::{self, StatisticsCall};
use crate::sql::query::{self, BindValues, Reader};
use crate::sql::{constraints, describe};
use crate::syntax::ast::{self, Statement};
use crate::syntax::parser;
use crate::transaction::commit::{CommitDecision, CommitOptions, CommitRequest, CommitSetting};
use crate::transaction::Transaction;
use crate::types::RowSet;
use crate::types::{DataType, Value};

mod users;

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
}

/// ORA-00979 (not a GROUP BY expression) and ORA-00937 (not a single-group group function):
/// what replacing a GROUP BY expression's literals by distinct binds can cause.
const FORCED_GROUPING_ERRORS: [u32; 2] = [979, 937];

/// The most object names a cursor records as its dependencies.
pub const DEPENDENCIES_MAX: usize = 1024;

/// Makes a statement's plan; on its child's first execution (`building`) the work is timed
/// as a hard parse and its heap bytes counted for the shared pool. Returns the plan and
/// those bytes (None when not building or when the allocator could not count them).
fn make_plan<T>(building: bool, make: impl FnOnce() -> Result<T>) -> (Result<T>, Option<u64>) {
    if !building {
        return (make(), None);
    }
    let _timed = instrumentation::timed(TimeModelStatistic::ParseTimeElapsed);
    let _hard = instrumentation::timed(TimeModelStatistic::HardParseElapsedTime);
    instrumentation::heap::measure(make)
}

/// An UPDATE or DELETE as its first step reads it (a DELETE has no assignments).
struct TableStatement<'s> {
    table: &'s ast::ObjectName,
    alias: Option<&'s str>,
    hint: Option<&'s str>,
    assignments: &'s [(String, ast::Expr)],
    where_clause: Option<&'s ast::Expr>,
}

/// What UPDATE's and DELETE's first step found: the dictionary the plan runs against, its
/// table, the SET targets' column positions, the plan, and the rows it may change.
struct RowsToChange {
    dictionary: Arc<Dictionary>,
    table: Arc<TableDef>,
    targets: Vec<usize>,
    plan: Arc<query::TablePlan>,
    rows: Vec<(RowId, Vec<Value>)>,
}

/// `name`'s table in `dictionary`; ORA-00942 for another schema's name, as every object
/// is SYSTEM's.
fn table_in(dictionary: &Dictionary, name: &ast::ObjectName) -> Result<Arc<TableDef>> {
    if name
        .schema
        .as_deref()
        .is_some_and(|schema| schema != catalog::OWNER)
    {
        return Err(Error::table_not_found());
    }
    dictionary.table(&name.name).cloned()
}

/// v$sql.plan_hash_value: a digest of the plan's steps (operation, options, object), so that
/// two children with the same steps have the same value.
fn plan_hash_value(lines: &[query::PlanLine]) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    for line in lines {
        (
            line.depth,
            &line.operation,
            &line.options,
            &line.object_name,
        )
            .hash(&mut hasher);
    }
    hasher.finish() as u32
}

/// The most rows a session's PLAN_TABLE keeps; the oldest plans go first.
pub const PLAN_TABLE_ROWS_MAX: usize = 10_000;

/// The parameters every statement reads, as values.
#[derive(Clone, Copy, Debug)]
struct StatementSettings {
    /// `pga_aggregate_limit`: a statement's work areas (`query::WorkArea`).
    pga_aggregate_limit: u64,
    optimizer: OptimizerEnvironment,
    /// A digest of `optimizer`: sessions share a child cursor only with the same one.
    environment: u64,
    /// `cursor_sharing = FORCE`.
    force_literals: bool,
    /// `session_cached_cursors`.
    session_cached_cursors: usize,
    /// `db_file_multiblock_read_count`: blocks per I/O of a full scan.
    multiblock_read_count: usize,
    /// `statement_timeout`: the longest a query or DML statement may run.
    statement_timeout: Option<std::time::Duration>,
    /// `commit_wait` and `commit_logging` as the session set them itself (unset otherwise)...
    commit_session: CommitSetting,
    /// ... and as the system did: a COMMIT's options are decided from both.
    commit_system: CommitSetting,
}

impl StatementSettings {
    fn of(parameters: &Parameters, instance: &Instance) -> StatementSettings {
        use crate::parameters::names;
        let optimizer = OptimizerEnvironment::from_parameters(
            parameters,
            instance.catalog().storage().cache.block_size(),
        );
        let commit_setting = |parameters: &Parameters, own_only: bool| {
            let value = |name| {
                if own_only && !parameters.is_set_by_session(name) {
                    String::new()
                } else {
                    parameters.get_string(name)
                }
            };
            CommitSetting::from_parameters(
                &value(names::COMMIT_WAIT),
                &value(names::COMMIT_LOGGING),
            )
        };
        StatementSettings {
            pga_aggregate_limit: parameters.get_bytes(names::PGA_AGGREGATE_LIMIT),
            environment: optimizer.digest(),
            optimizer,
            force_literals: parameters.get_string(names::CURSOR_SHARING) == "FORCE",
            session_cached_cursors: parameters.get_integer(names::SESSION_CACHED_CURSORS) as usize,
            multiblock_read_count: parameters.get_integer(names::DB_FILE_MULTIBLOCK_READ_COUNT)
                as usize,
            statement_timeout: match parameters.get_integer(names::STATEMENT_TIMEOUT) {
                0 => None,
                milliseconds => Some(std::time::Duration::from_millis(milliseconds as u64)),
            },
            commit_session: commit_setting(parameters, true),
            commit_system: commit_setting(&instance.parameters(), false),
        }
    }
}

/// One step of an explained plan.
struct PlanTableRow {
    statement_id: Option<String>,
    plan_id: u64,
    timestamp: i64,
    line: query::PlanLine,
}

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
                let mut bind_values = BindValues::new(values);
                let plan_binds = bind_values.clone();
                let plan = self.with_reader_in(&dictionary, xid, &plan_binds, |reader| {
                    query::plan_query(reader, &mut bind_values, query)
                })?;
                Some(
                    plan.row_set_columns()
                        .into_iter()
                        .map(|(name, data_type)| Column { name, data_type })
                        .collect(),
                )
            }
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
        let result = self.run(&cursor.statement, &cursor.handle.text, binds, &mut pin);
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

    /// Catches up with ALTER SYSTEM changes other sessions made (immediate parameters this
    /// session did not set itself), as Oracle's sessions do.
    fn inherit_system_changes(&mut self) {
        let generation = self.instance.parameters_generation();
        if generation != self.parameters_generation {
            self.parameters
                .inherit_system_changes(&self.instance.parameters());
            self.parameters_generation = generation;
            self.parameters_changed();
        }
    }

    /// After a change of the session's parameters: kept plans are made again, and the
    /// settings statements read are derived again.
    fn parameters_changed(&mut self) {
        self.settings = StatementSettings::of(&self.parameters, &self.instance);
        if self.settings.session_cached_cursors != self.cursor_cache.capacity() {
            let change = self
                .cursor_cache
                .resize(self.settings.session_cached_cursors);
            self.cursor_cache_changed(change);
        }
    }

    /// After cursors entered or left the session cursor cache: its statistic and
    /// v$open_cursor.
    fn cursor_cache_changed(&self, change: i64) {
        if change == 0 {
            return;
        }
        if change > 0 {
            instrumentation::add(Statistic::SessionCursorCacheCount, change as u64);
        } else {
            instrumentation::subtract(Statistic::SessionCursorCacheCount, change.unsigned_abs());
        }
        self.instance
            .library_cache()
            .set_open_cursors(self.sid(), self.cursor_cache.open_cursors());
    }

    /// PostgreSQL's `SET name = value`: a Pythia parameter for the session (as ALTER
    /// SESSION; `statement_timeout` also in PostgreSQL's units, `'5s'`), else one of
    /// PostgreSQL's client settings, kept for SHOW (`sql::client_settings`).
    fn set_setting(&mut self, name: &str, value: &ast::ParameterValue) -> Result<StatementResult> {
        use crate::parameters::{definition, names};
        let name = name.to_lowercase();
        let text = parameter_text(value);
        if definition(&name).is_none() && ClientSettings::takes(&name) {
            // PostgreSQL folds an unquoted word to lower case, as it does names.
            let text = match value {
                ast::ParameterValue::Identifier(word) => word.to_lowercase(),
                _ => text,
            };
            self.client_settings.set(&name, &text)?;
        } else {
            let text = match client_settings::milliseconds(&text) {
                Some(milliseconds) if name == names::STATEMENT_TIMEOUT => milliseconds.to_string(),
                _ => text,
            };
            let set = self.parameters.set(&name, &text, SetScope::AlterSession);
            self.parameters_changed();
            set?;
        }
        Ok(StatementResult::done("SET"))
    }

    /// PostgreSQL's `SHOW name`: one row, one column named after the setting (a Pythia
    /// parameter's value as v$parameter shows it, or a client setting's); `SHOW ALL`: every
    /// one, as rows of (name, setting). An unknown name is ALTER SESSION's error for it.
    fn show_setting(&self, name: &str) -> Result<StatementResult> {
        use crate::parameters::{definition, unknown_parameter, DEFINITIONS};
        let name = name.to_lowercase();
        let parameter = |name: &str| {
            self.parameters
                .value(name)
                .map_or_else(String::new, |value| value.display_value())
        };
        let text = Some(DataType::varchar2(4000));
        let (columns, rows) = if name == "all" {
            let mut rows: Vec<(String, String)> = DEFINITIONS
                .iter()
                .filter(|definition| !definition.is_hidden())
                .map(|definition| (definition.name.to_string(), parameter(definition.name)))
                .collect();
            rows.extend(self.client_settings.all());
            rows.sort();
            let rows = rows
                .into_iter()
                .map(|(name, value)| vec![Value::text(name), Value::text(value)])
                .collect();
            (vec![("NAME", text), ("SETTING", text)], rows)
        } else {
            let value = match definition(&name) {
                Some(_) => parameter(&name),
                None => self
                    .client_settings
                    .get(&name)
                    .ok_or_else(|| unknown_parameter(&name, SetScope::AlterSession))?,
            };
            (vec![(name.as_str(), text)], vec![vec![Value::text(value)]])
        };
        let columns = columns
            .into_iter()
            .map(|(name, data_type)| Column {
                name: name.to_string(),
                data_type,
            })
            .collect();
        Ok(StatementResult::query(columns, rows))
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

    /// A parse call: the parent cursor of `sql` (after CURSOR_SHARING=FORCE replaced its
    /// literals, when `may_force`: not for a statement executed with binds of its own),
    /// from the session cursor cache, the library cache, or the parser.
    fn parse(&mut self, sql: &str, may_force: bool) -> Result<ParsedCursor> {
        if let Some((text, passwords)) = users::hide_password(sql) {
            // The password travels as the statement's own bind: no cursor keeps it.
            return self.parse_text(&text, passwords.into_iter().map(Value::text).collect());
        }
        if !(self.settings.force_literals && may_force) {
            return self.parse_text(sql, Vec::new());
        }
        let mut text = std::mem::take(&mut self.forced_text);
        let mut binds = std::mem::take(&mut self.forced_binds);
        let parsed = if cursor_sharing::force_literals_into(sql, &mut text, &mut binds) {
            match self.parse_text(&text, binds) {
                // What FORCE made of the text does not parse (a literal where the grammar
                // wants one): the statement is parsed as written, which reports its own
                // errors.
                Err(_) => self.parse_text(sql, Vec::new()),
                parsed => parsed,
            }
        } else {
            self.parse_text(sql, Vec::new())
        };
        self.forced_text = text;
        parsed
    }

    /// The parse call for `text` as it will be hashed (`forced_binds`: the values of the
    /// literals FORCE replaced in it).
    fn parse_text(&mut self, text: &str, forced_binds: Vec<Value>) -> Result<ParsedCursor> {
        instrumentation::add(Statistic::ParseCountTotal, 1);
        let library_cache = self.instance.library_cache();
        if let Some((handle, statement)) = self.cursor_cache.lookup(text) {
            instrumentation::add(Statistic::SessionCursorCacheHits, 1);
            library_cache.count_cached_get(&handle);
            return Ok(ParsedCursor {
                handle,
                statement,
                forced_binds,
            });
        }
        // Only loads are timed: a soft parse costs less than two reads of the thread's CPU
        // clock would.
        let parsed = library_cache.get(text, self.sid(), || {
            let _timed = instrumentation::timed(TimeModelStatistic::ParseTimeElapsed);
            let _hard = instrumentation::timed(TimeModelStatistic::HardParseElapsedTime);
            let (statement, bytes) = instrumentation::heap::measure(|| parser::parse(text));
            match statement {
                Ok(statement) => Ok((statement, bytes.unwrap_or(text.len() as u64 * 8))),
                Err(error) => {
                    instrumentation::add(Statistic::ParseCountFailures, 1);
                    Err(error)
                }
            }
        })?;
        let change = self
            .cursor_cache
            .note(text, &parsed.handle, &parsed.statement);
        self.cursor_cache_changed(change);
        Ok(ParsedCursor {
            handle: parsed.handle,
            statement: parsed.statement,
            forced_binds,
        })
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
            ) {
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
                ..
            } => self
                .dml(|session, transaction| {
                    let columns = columns.as_deref();
                    session.insert(transaction, table, columns, source, text, binds, pin)
                })
                .map(|rows| changed(rows, "created")),
            Statement::Update {
                hint,
                table,
                alias,
                assignments,
                where_clause,
            } => {
                let statement = TableStatement {
                    table,
                    alias: alias.as_deref(),
                    hint: hint.as_deref(),
                    assignments,
                    where_clause: where_clause.as_ref(),
                };
                self.dml(|session, transaction| {
                    session.update(transaction, &statement, text, binds, pin)
                })
                .map(|rows| changed(rows, "updated"))
            }
            Statement::Delete {
                hint,
                table,
                alias,
                where_clause,
            } => {
                let statement = TableStatement {
                    table,
                    alias: alias.as_deref(),
                    hint: hint.as_deref(),
                    assignments: &[],
                    where_clause: where_clause.as_ref(),
                };
                self.dml(|session, transaction| {
                    session.delete(transaction, &statement, text, binds, pin)
                })
                .map(|rows| changed(rows, "deleted"))
            }
            Statement::Commit { write } => {
                let statement = write.map_or_else(CommitRequest::default, |write| CommitRequest {
                    wait: write.wait,
                    immediate: write.immediate,
                });
                let decision = CommitDecision::decide(
                    statement,
                    self.settings.commit_session,
                    self.settings.commit_system,
                );
                self.commit(Some(&decision))?;
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
            other => {
                // DDL commits what is open, as in Oracle, and always WAIT IMMEDIATE.
                self.commit(None)?;
                self.ddl(other, text, binds)
            }
        }
    }

    fn reader_parts(&self) -> (Arc<Dictionary>, u64) {
        let xid = self
            .transaction
            .as_ref()
            .map_or(0, |transaction| transaction.xid);
        (self.instance.catalog().current(), xid)
    }

    /// EXPLAIN PLAN: plans `statement` without running it and writes its steps into the
    /// session's PLAN_TABLE.
    fn explain(
        &mut self,
        statement_id: Option<&str>,
        statement: &Statement,
        binds: &[Value],
    ) -> Result<StatementResult> {
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let xid = self
            .transaction
            .as_ref()
            .map_or(0, |transaction| transaction.xid);
        let lines = self.with_reader(&plan_binds, |reader| {
            let reader = Reader { xid, ..*reader };
            let table_plan = |binds: &mut BindValues,
                              table: &ast::ObjectName,
                              alias: Option<&str>,
                              hint: Option<&str>,
                              expressions: &[&ast::Expr],
                              where_clause: Option<&ast::Expr>| {
                let definition = reader.dictionary.table(&table.name)?;
                query::plan_table_statement(
                    &reader,
                    binds,
                    definition,
                    alias,
                    hint,
                    expressions,
                    where_clause,
                )
            };
            match statement {
                Statement::Select(query) => {
                    let plan = query::plan_query(&reader, &mut bind_values, query)?;
                    Ok(query::explain_query(&plan))
                }
                Statement::Update {
                    hint,
                    table,
                    alias,
                    assignments,
                    where_clause,
                } => {
                    let expressions: Vec<&ast::Expr> =
                        assignments.iter().map(|(_, expr)| expr).collect();
                    let plan = table_plan(
                        &mut bind_values,
                        table,
                        alias.as_deref(),
                        hint.as_deref(),
                        &expressions,
                        where_clause.as_ref(),
                    )?;
                    Ok(query::explain_table_statement(
                        "UPDATE",
                        "UPDATE STATEMENT",
                        &table.name,
                        &plan,
                    ))
                }
                Statement::Delete {
                    hint,
                    table,
                    alias,
                    where_clause,
                } => {
                    let plan = table_plan(
                        &mut bind_values,
                        table,
                        alias.as_deref(),
                        hint.as_deref(),
                        &[],
                        where_clause.as_ref(),
                    )?;
                    Ok(query::explain_table_statement(
                        "DELETE",
                        "DELETE STATEMENT",
                        &table.name,
                        &plan,
                    ))
                }
                Statement::Insert { table, source, .. } => {
                    reader.dictionary.table(&table.name)?;
                    let plan = match source {
                        ast::InsertSource::Query(query) => {
                            Some(query::plan_query(&reader, &mut bind_values, query)?)
                        }
                        _ => None,
                    };
                    Ok(query::explain_insert(&table.name, plan.as_ref()))
                }
                _ => Err(unsupported("EXPLAIN PLAN of this statement")),
            }
        })?;
        let mut lines = lines;
        if let Some(statement_line) = lines.first_mut() {
            statement_line.optimizer = Some(
                self.parameters
                    .get_string(crate::parameters::names::OPTIMIZER_MODE),
            );
        }
        let plan_id = self.next_plan_id;
        self.next_plan_id += 1;
        let timestamp = catalog::now_seconds();
        for line in lines {
            self.plan_table.push(PlanTableRow {
                statement_id: statement_id.map(str::to_string),
                plan_id,
                timestamp,
                line,
            });
        }
        if self.plan_table.len() > PLAN_TABLE_ROWS_MAX {
            let excess = self.plan_table.len() - PLAN_TABLE_ROWS_MAX;
            self.plan_table.drain(..excess);
        }
        Ok(StatementResult::done("Explained."))
    }

    /// The session's PLAN_TABLE, with Oracle's columns (those that have values here).
    fn plan_table_rows(&self) -> RowSet {
        let text = Some(DataType::varchar2(128));
        let number = Some(DataType::number());
        let optional = |value: &Option<String>| value.as_deref().map_or(Value::Null, Value::text);
        RowSet {
            columns: vec![
                ("STATEMENT_ID".to_string(), text),
                ("PLAN_ID".to_string(), number),
                ("TIMESTAMP".to_string(), Some(DataType::Date)),
                ("OPERATION".to_string(), text),
                ("OPTIONS".to_string(), text),
                ("OBJECT_OWNER".to_string(), text),
                ("OBJECT_NAME".to_string(), text),
                ("OBJECT_TYPE".to_string(), text),
                ("OPTIMIZER".to_string(), text),
                ("ID".to_string(), number),
                ("PARENT_ID".to_string(), number),
                ("DEPTH".to_string(), number),
                ("POSITION".to_string(), number),
                ("COST".to_string(), number),
                ("CARDINALITY".to_string(), number),
                ("BYTES".to_string(), number),
            ],
            rows: self
                .plan_table
                .iter()
                .map(|row| {
                    let line = &row.line;
                    let estimated = |value: fn(&query::Estimate) -> u64| {
                        line.estimate.as_ref().map_or(Value::Null, |estimate| {
                            Value::integer(value(estimate) as i64)
                        })
                    };
                    vec![
                        optional(&row.statement_id),
                        Value::integer(row.plan_id as i64),
                        Value::Date(row.timestamp),
                        Value::text(&line.operation),
                        optional(&line.options),
                        line.object_name
                            .as_ref()
                            .map_or(Value::Null, |_| Value::text(catalog::OWNER)),
                        optional(&line.object_name),
                        optional(&line.object_type),
                        optional(&line.optimizer),
                        Value::integer(line.id as i64),
                        line.parent_id
                            .map_or(Value::Null, |parent| Value::integer(parent as i64)),
                        Value::integer(line.depth as i64),
                        Value::integer(line.position as i64),
                        estimated(|estimate| estimate.shown_cost()),
                        estimated(|estimate| estimate.shown_rows()),
                        estimated(|estimate| estimate.shown_bytes()),
                    ]
                })
                .collect(),
        }
    }

    /// `TABLE(name(args))` in a FROM list: DBMS_XPLAN.DISPLAY([table, statement_id,
    /// format]) shows the last plan in PLAN_TABLE (of that statement id, when given) as
    /// Oracle's DISPLAY does, one line per row in PLAN_TABLE_OUTPUT.
    fn table_function(&self, name: &str, args: &[Value]) -> Result<Option<RowSet>> {
        if name != "DBMS_XPLAN.DISPLAY" {
            return Ok(None);
        }
        if let Some(table) = args.first().filter(|table| !table.is_null()) {
            if !table.to_string().eq_ignore_ascii_case("PLAN_TABLE") {
                return Err(Error::table_not_found());
            }
        }
        let statement_id = args.get(1).filter(|id| !id.is_null()).map(Value::to_string);
        let chosen = self
            .plan_table
            .iter()
            .filter(|row| statement_id.is_none() || row.statement_id == statement_id)
            .map(|row| row.plan_id)
            .max();
        let lines: Vec<&query::PlanLine> = self
            .plan_table
            .iter()
            .filter(|row| Some(row.plan_id) == chosen)
            .map(|row| &row.line)
            .collect();
        let output = if lines.is_empty() {
            vec!["Error: cannot fetch last explain plan from PLAN_TABLE".to_string()]
        } else {
            query::format_plan(&lines)
        };
        Ok(Some(RowSet {
            columns: vec![(
                "PLAN_TABLE_OUTPUT".to_string(),
                Some(DataType::varchar2(300)),
            )],
            rows: output
                .into_iter()
                .map(|line| vec![Value::text(line)])
                .collect(),
        }))
    }

    fn view(&self, dictionary: &Dictionary, name: &str) -> Result<Option<RowSet>> {
        if name == "PLAN_TABLE" {
            return Ok(Some(self.plan_table_rows()));
        }
        if let Some(rows) = dictionary_view(name, dictionary, self.instance.cache())? {
            return Ok(Some(rows));
        }
        if let Some(rows) = catalog::pg_catalog::pg_catalog_view(name, dictionary) {
            return Ok(Some(rows));
        }
        let context = crate::views::ViewContext {
            sid: self.sid(),
            parameters: self.parameters.visible_rows(),
            library_cache: Some(self.instance.library_cache().clone()),
            buffer_cache: Some(self.instance.cache().clone()),
            redo_log: Some(self.instance.log().clone()),
            archiver: Some(self.instance.archiver().clone()),
        };
        Ok(
            crate::views::fixed_table(name, &context).map(|table| RowSet {
                columns: table
                    .columns
                    .into_iter()
                    .map(|(name, data_type)| (name, Some(data_type)))
                    .collect(),
                rows: table.rows,
            }),
        )
    }

    /// Runs `work` with a reader for the current moment (statement-level consistency).
    fn with_reader<T>(
        &self,
        binds: &BindValues,
        work: impl FnOnce(&Reader) -> Result<T>,
    ) -> Result<T> {
        let (dictionary, xid) = self.reader_parts();
        self.with_reader_in(&dictionary, xid, binds, work)
    }

    /// `with_reader` on a dictionary version the caller holds.
    fn with_reader_in<T>(
        &self,
        dictionary: &Arc<Dictionary>,
        xid: u64,
        binds: &BindValues,
        work: impl FnOnce(&Reader) -> Result<T>,
    ) -> Result<T> {
        let snapshot = self.instance.transactions().snapshot();
        let views = |name: &str| self.view(dictionary, name).ok().flatten();
        let table_functions = |name: &str, args: &[Value]| self.table_function(name, args);
        let work_area = query::WorkArea::new(self.settings.pga_aggregate_limit);
        let sequences = SessionSequences { session: self };
        let reader = Reader {
            storage: self.instance.catalog().storage(),
            dictionary,
            snapshot_scn: snapshot.scn,
            xid,
            binds,
            sequences: &sequences,
            views: &views,
            outer: &[],
            table_functions: &table_functions,
            work_area: &work_area,
            optimizer: self.settings.optimizer,
            multiblock_read_count: self.settings.multiblock_read_count,
        };
        work(&reader)
    }

    fn select(
        &mut self,
        query: &ast::Query,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<StatementResult> {
        // The child's validity is read under the latch the dictionary is read under, so a
        // plan never runs against a dictionary changed since it was made.
        let (dictionary, valid) = self
            .instance
            .catalog()
            .current_checked(|| pin.child().is_valid());
        let xid = self
            .transaction
            .as_ref()
            .map_or(0, |transaction| transaction.xid);
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let limit = self.settings.statement_timeout;
        let (plan, rows) = self.with_reader_in(&dictionary, xid, &plan_binds, |reader| {
            let plan = self.plan_of(
                pin,
                (text, &dictionary, valid),
                || query::plan_query(reader, &mut bind_values, query),
                |plan| {
                    let summary = self.plan_summary(
                        plan.costed,
                        plan.estimate.as_ref().map(|estimate| estimate.cost),
                        &query::explain_query(plan),
                    );
                    (plan.reusable, summary)
                },
            )?;
            let rows = interrupt::interruptible(limit, || query::execute(reader, &plan))?;
            Ok((plan, rows))
        })?;
        let rows = RowSet {
            columns: plan.row_set_columns(),
            rows,
        };
        let columns = rows
            .columns
            .into_iter()
            .map(|(name, data_type)| Column { name, data_type })
            .collect();
        Ok(StatementResult::query(columns, rows.rows))
    }

    /// The objects a statement depends on: the names its text uses, and through each view
    /// among them, the names of the view's query (so DDL on a view's table invalidates the
    /// statement). Past `DEPENDENCIES_MAX` names the list ends with
    /// `library_cache::ANY_OBJECT`: any DDL then invalidates the statement.
    fn dependencies(&self, text: &str, dictionary: &Dictionary) -> Vec<String> {
        let mut names = crate::library_cache::referenced_names(text);
        let mut views: Vec<String> = names
            .iter()
            .filter(|name| dictionary.views.contains_key(*name))
            .cloned()
            .collect();
        let mut expanded = std::collections::BTreeSet::new();
        let mut capped = false;
        while let Some(view) = views.pop() {
            if names.len() >= DEPENDENCIES_MAX {
                capped = true;
                break;
            }
            if !expanded.insert(view.clone()) {
                continue;
            }
            if let Some(definition) = dictionary.views.get(&view) {
                for name in crate::library_cache::referenced_names(&definition.ddl) {
                    if dictionary.views.contains_key(&name) {
                        views.push(name.clone());
                    }
                    names.insert(name);
                }
            }
        }
        let mut names: Vec<String> = names.into_iter().collect();
        if capped || names.len() > DEPENDENCIES_MAX {
            names.truncate(DEPENDENCIES_MAX);
            names.push(crate::library_cache::ANY_OBJECT.to_string());
        }
        names
    }

    /// The open transaction, begun if there is none.
    fn begin(&mut self) -> Result<&mut Transaction> {
        if self.transaction.is_none() {
            self.transaction = Some(self.instance.transactions().begin()?);
        }
        Ok(self.transaction.as_mut().expect("transaction"))
    }

    /// Runs a DML statement in the session's transaction; on error its changes are undone
    /// and the transaction goes on (statement-level atomicity).
    fn dml(&mut self, work: impl FnOnce(&Session, &mut Transaction) -> Result<u64>) -> Result<u64> {
        let mut transaction = match self.transaction.take() {
            Some(transaction) => transaction,
            None => self.instance.transactions().begin()?,
        };
        let start = transaction.last_uba;
        // The statement's work stops at a cancel or its time limit; the rollback below
        // always runs to its end (`rollback_to` is shielded).
        let result = interrupt::interruptible(self.settings.statement_timeout, || {
            work(self, &mut transaction)
        });
        if result.is_err() {
            let undone = self
                .instance
                .transactions()
                .rollback_to(&mut transaction, start);
            self.transaction = Some(transaction);
            undone?;
            return result;
        }
        self.transaction = Some(transaction);
        result
    }

    /// Ends the open transaction with a commit. A COMMIT statement passes the options decided
    /// for it, counted when there is something to commit (`transaction::commit`); an implicit
    /// commit passes none and is WAIT IMMEDIATE.
    fn commit(&mut self, decision: Option<&CommitDecision>) -> Result<()> {
        match self.transaction.take() {
            Some(transaction) if transaction.last_uba == 0 => {
                self.instance.transactions().commit_unchanged(transaction)
            }
            Some(transaction) => {
                if let Some(decision) = decision {
                    decision.count();
                }
                let options =
                    decision.map_or(CommitOptions::WAIT_IMMEDIATE, |decision| decision.performed);
                self.instance
                    .transactions()
                    .commit_with(transaction, options)
                    .map(|_| ())
            }
            // Oracle counts every COMMIT call, even with nothing to commit.
            None => {
                instrumentation::add(Statistic::UserCommits, 1);
                Ok(())
            }
        }
    }

    fn rollback(&mut self, to_savepoint: Option<&str>) -> Result<()> {
        let transactions = self.instance.transactions().clone();
        match to_savepoint {
            None => {
                if let Some(transaction) = self.transaction.take() {
                    transactions.rollback(transaction)?;
                }
                Ok(())
            }
            Some(name) => {
                let Some(transaction) = self.transaction.as_mut() else {
                    return Err(Error::new(
                        1086,
                        format!(
                            "savepoint '{name}' never established in this session or is invalid"
                        ),
                    ));
                };
                let Some(position) = transaction
                    .savepoints
                    .iter()
                    .position(|(saved, _)| saved == name)
                else {
                    return Err(Error::new(
                        1086,
                        format!(
                            "savepoint '{name}' never established in this session or is invalid"
                        ),
                    ));
                };
                let uba = transaction.savepoints[position].1;
                transaction.savepoints.truncate(position + 1);
                transactions.rollback_to(transaction, uba)
            }
        }
    }

    fn table(&self, name: &ast::ObjectName) -> Result<Arc<TableDef>> {
        table_in(&self.instance.catalog().current(), name)
    }

    /// The summary of a child that has no plan (or no optimizer's choice in it).
    fn unplanned(&self) -> PlanSummary {
        PlanSummary {
            optimizer_mode: self.settings.optimizer.mode.name(),
            cost: None,
            plan_hash_value: 0,
        }
    }

    /// What the optimizer decided for a child being built, from its plan's EXPLAIN lines.
    fn plan_summary(
        &self,
        costed: bool,
        cost: Option<f64>,
        explained: &[query::PlanLine],
    ) -> PlanSummary {
        PlanSummary {
            optimizer_mode: if costed {
                self.settings.optimizer.mode.name()
            } else {
                "RULE"
            },
            cost,
            plan_hash_value: plan_hash_value(explained),
        }
    }

    /// The plan a statement runs: the one its child keeps (`kept` finds it there), when the
    /// child is still valid (`child`: the text, the dictionary version it runs against, and
    /// the child's validity read with it), else one `make` makes now. On the child's first
    /// execution the new plan is published with what `describe` says of it: the plan to
    /// keep, if it can run again, and the optimizer's summary.
    fn plan_of<P: std::any::Any + Send + Sync>(
        &self,
        pin: &mut CursorPin,
        child: (&str, &Dictionary, bool),
        make: impl FnOnce() -> Result<P>,
        describe: impl FnOnce(&Arc<P>) -> (bool, PlanSummary),
    ) -> Result<Arc<P>> {
        let (text, dictionary, valid) = child;
        if valid {
            if let Some(plan) = pin.child().plan::<P>() {
                return Ok(plan);
            }
        }
        let (planned, bytes) = make_plan(pin.is_building(), make);
        let plan = Arc::new(planned?);
        if pin.is_building() {
            let (reusable, summary) = describe(&plan);
            let kept = reusable.then(|| plan.clone() as Executable);
            self.publish(pin, text, dictionary, kept, summary, bytes)?;
        }
        Ok(plan)
    }

    /// Finishes building `pin`'s child with its plan (`kept` when it can run again) and
    /// the objects `text` depends on in `dictionary`. `bytes`: the plan's, when the
    /// allocator counted them; else an estimate from the text's length.
    fn publish(
        &self,
        pin: &mut CursorPin,
        text: &str,
        dictionary: &Dictionary,
        kept: Option<Executable>,
        summary: PlanSummary,
        bytes: Option<u64>,
    ) -> Result<()> {
        let bytes = bytes.unwrap_or(text.len() as u64 * 16);
        let dependencies = self.dependencies(text, dictionary);
        pin.publish(kept, summary, dependencies, bytes)
    }

    /// INSERT: the rows of its VALUES (through the plan its cursor keeps, or a new one,
    /// published on the first execution as an UPDATE's is) or of its query, each checked and
    /// inserted.
    #[allow(clippy::too_many_arguments)]
    fn insert(
        &self,
        transaction: &mut Transaction,
        table_name: &ast::ObjectName,
        columns: Option<&[String]>,
        source: &ast::InsertSource,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<u64> {
        // As for a query: the child's validity is read under the dictionary's latch.
        let (dictionary, valid) = self
            .instance
            .catalog()
            .current_checked(|| pin.child().is_valid());
        let table = table_in(&dictionary, table_name)?;
        let targets: Vec<usize> = match columns {
            None => (0..table.columns.len()).collect(),
            Some(names) => {
                let mut targets = Vec::with_capacity(names.len());
                for name in names {
                    let position = table
                        .column(name)
                        .ok_or_else(|| Error::invalid_identifier(name))?;
                    if targets.contains(&position) {
                        return Err(Error::new(957, "duplicate column name"));
                    }
                    targets.push(position);
                }
                targets
            }
        };
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let storage = self.instance.catalog().storage().clone();
        let xid = transaction.xid;
        // The transaction is out of the session while the statement runs: its query must
        // still see the transaction's earlier changes (the reader carries its xid).
        let rows: Vec<Vec<Value>> =
            self.with_reader_in(&dictionary, xid, &plan_binds, |reader| match source {
                ast::InsertSource::Values(rows) => {
                    let plan = self.plan_of(
                        pin,
                        (text, &dictionary, valid),
                        || query::plan_values(reader, &mut bind_values, rows),
                        |plan| (plan.reusable, self.unplanned()),
                    )?;
                    let context = reader.row_context();
                    plan.rows
                        .iter()
                        .map(|row| {
                            row.iter()
                                .map(|expr| expr.evaluate(&[], &context))
                                .collect()
                        })
                        .collect()
                }
                ast::InsertSource::Query(query) => {
                    if pin.is_building() {
                        // Its query is planned at each execution: the child keeps no plan.
                        self.publish(pin, text, &dictionary, None, self.unplanned(), Some(0))?;
                    }
                    Ok(query::run_query(reader, &mut bind_values, query)?.rows)
                }
            })?;
        let checks = self.with_reader(&BindValues::default(), |reader| {
            constraints::compile_checks(reader, &table)
        })?;
        let mut inserted = Vec::new();
        let mut count = 0;
        for values in rows {
            if values.len() != targets.len() {
                return Err(Error::new(
                    if values.len() > targets.len() {
                        913
                    } else {
                        947
                    },
                    if values.len() > targets.len() {
                        "too many values"
                    } else {
                        "not enough values"
                    },
                ));
            }
            let mut row = vec![None; table.columns.len()];
            for (value, &target) in values.into_iter().zip(&targets) {
                row[target] = Some(value);
            }
            let row = self.fill_defaults(&table, row, binds)?;
            let row = rows::check_row(&table, row)?;
            if !checks.is_empty() {
                self.with_reader(&BindValues::default(), |reader| {
                    constraints::enforce_checks(&table.checks, &checks, &row, &reader.row_context())
                })?;
            }
            rows::insert_row(&storage, transaction, &table, &row)?;
            if !table.foreign_keys.is_empty() {
                inserted.push(row);
            }
            count += 1;
        }
        // Parent keys are looked up once the statement's rows are in, as Oracle checks at
        // the end of the statement: a row may reference itself or a row inserted with it.
        if !inserted.is_empty() {
            let xid = transaction.xid;
            self.with_reader(&BindValues::default(), |reader| {
                let reader = Reader { xid, ..*reader };
                for row in &inserted {
                    constraints::check_parent_keys(&reader, &table, row, None)?;
                }
                Ok(())
            })?;
        }
        Ok(count)
    }

    fn fill_defaults(
        &self,
        table: &TableDef,
        row: Vec<Option<Value>>,
        binds: &[Value],
    ) -> Result<Vec<Value>> {
        let mut result = Vec::with_capacity(row.len());
        for (position, value) in row.into_iter().enumerate() {
            match value {
                Some(value) => result.push(value),
                None => match &table.columns[position].default {
                    None => result.push(Value::Null),
                    Some(default) => {
                        let mut bind_values = BindValues::new(binds.to_vec());
                        let plan_binds = bind_values.clone();
                        let value = self.with_reader(&plan_binds, |reader| {
                            query::compile_row_free(reader, &mut bind_values, default)?
                                .evaluate(&[], &reader.row_context())
                        })?;
                        result.push(value);
                    }
                },
            }
        }
        Ok(result)
    }

    fn update(
        &self,
        transaction: &mut Transaction,
        statement: &TableStatement,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<u64> {
        let storage = self.instance.catalog().storage().clone();
        self.change_rows(
            transaction,
            statement,
            (text, binds),
            pin,
            |reader, transaction, found| {
                let RowsToChange {
                    table,
                    targets,
                    plan,
                    rows,
                    ..
                } = found;
                let mut count = 0;
                let context = reader.row_context();
                let checks = constraints::compile_checks(reader, &table)?;
                let referenced = constraints::is_referenced(reader.dictionary, &table);
                let keyed = referenced || !table.foreign_keys.is_empty();
                // Keys are checked once every row is updated, as Oracle checks at the end of
                // the statement (one statement may change a parent key and its children).
                let mut changes = Vec::new();
                for (rowid, _) in rows {
                    let mut change = None;
                    let updated =
                        rows::update_row(&storage, transaction, &table, rowid, &mut |current| {
                            if !plan.accepts(current, &context)? {
                                return Ok(None);
                            }
                            let mut row = current.to_vec();
                            for (expr, &target) in plan.expressions.iter().zip(&targets) {
                                row[target] = expr.evaluate(current, &context)?;
                            }
                            if !checks.is_empty() || keyed {
                                row = rows::check_row(&table, row)?;
                                constraints::enforce_checks(
                                    &table.checks,
                                    &checks,
                                    &row,
                                    &context,
                                )?;
                            }
                            if keyed {
                                change = Some((current.to_vec(), row.clone()));
                            }
                            Ok(Some(row))
                        })?;
                    if let (true, Some(change)) = (updated, change) {
                        changes.push(change);
                    }
                    count += updated as u64;
                }
                for (before, after) in changes {
                    constraints::check_parent_keys(reader, &table, &after, Some(&before))?;
                    if referenced {
                        constraints::on_parent_change(
                            &storage,
                            transaction,
                            reader,
                            &table,
                            &before,
                            Some(&after),
                            0,
                        )?;
                    }
                }
                Ok(count)
            },
        )
    }

    /// UPDATE's and DELETE's frame: finds the rows the statement may change
    /// ([`Session::rows_to_change`]), then runs `work` on them with a reader on the same
    /// dictionary version that carries the transaction (a subquery of the statement must
    /// see its changes). `call`: the statement's text and binds.
    fn change_rows(
        &self,
        transaction: &mut Transaction,
        statement: &TableStatement,
        call: (&str, &[Value]),
        pin: &mut CursorPin,
        work: impl FnOnce(&Reader, &mut Transaction, RowsToChange) -> Result<u64>,
    ) -> Result<u64> {
        let (text, binds) = call;
        let xid = transaction.xid;
        let found = self.rows_to_change(xid, statement, text, binds, pin)?;
        let dictionary = found.dictionary.clone();
        self.with_reader_in(
            &dictionary,
            xid,
            &BindValues::new(binds.to_vec()),
            |reader| work(reader, transaction, found),
        )
    }

    /// UPDATE's and DELETE's first step: finds, with the statement's snapshot and the
    /// transaction's own changes, the rows the statement may change, through the plan its
    /// cursor keeps, or a new one. A new plan is published in the cursor on its first
    /// execution (kept when it can run again), as a query's is.
    fn rows_to_change(
        &self,
        xid: u64,
        statement: &TableStatement,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<RowsToChange> {
        // As for a query: the child's validity is read under the dictionary's latch, so a
        // kept plan only runs against the dictionary it was made against.
        let (dictionary, valid) = self
            .instance
            .catalog()
            .current_checked(|| pin.child().is_valid());
        let table = table_in(&dictionary, statement.table)?;
        let targets = statement
            .assignments
            .iter()
            .map(|(name, _)| {
                table
                    .column(name)
                    .ok_or_else(|| Error::invalid_identifier(name))
            })
            .collect::<Result<Vec<usize>>>()?;
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let (plan, rows) = self.with_reader_in(&dictionary, xid, &plan_binds, |reader| {
            let expressions: Vec<&ast::Expr> =
                statement.assignments.iter().map(|(_, expr)| expr).collect();
            let make = || {
                query::plan_table_statement(
                    reader,
                    &mut bind_values,
                    &table,
                    statement.alias,
                    statement.hint,
                    &expressions,
                    statement.where_clause,
                )
            };
            let plan = self.plan_of(pin, (text, &dictionary, valid), make, |plan| {
                let (operation, lines) = if statement.assignments.is_empty() {
                    ("DELETE", "DELETE STATEMENT")
                } else {
                    ("UPDATE", "UPDATE STATEMENT")
                };
                let explained = query::explain_table_statement(operation, lines, &table.name, plan);
                let cost = explained
                    .first()
                    .and_then(|line| line.estimate.as_ref())
                    .map(|estimate| estimate.cost);
                let summary = self.plan_summary(cost.is_some(), cost, &explained);
                (plan.reusable, summary)
            })?;
            let rows = query::matching_rows(reader, &table, &plan)?;
            Ok((plan, rows))
        })?;
        Ok(RowsToChange {
            dictionary,
            table,
            targets,
            plan,
            rows,
        })
    }

    fn delete(
        &self,
        transaction: &mut Transaction,
        statement: &TableStatement,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<u64> {
        let storage = self.instance.catalog().storage().clone();
        self.change_rows(
            transaction,
            statement,
            (text, binds),
            pin,
            |reader, transaction, found| {
                let RowsToChange {
                    table, plan, rows, ..
                } = found;
                let mut count = 0;
                let context = reader.row_context();
                let referenced = constraints::is_referenced(reader.dictionary, &table);
                // Referencing rows are looked at once the statement's rows are all deleted, as
                // Oracle checks at the end of the statement: `DELETE FROM t` of a table that
                // references itself removes parents and children together.
                let mut removed_rows = Vec::new();
                for (rowid, _) in rows {
                    let mut removed = None;
                    let deleted =
                        rows::delete_row(&storage, transaction, &table, rowid, &mut |current| {
                            let accepted = plan.accepts(current, &context)?;
                            if accepted && referenced {
                                removed = Some(current.to_vec());
                            }
                            Ok(accepted)
                        })?;
                    if let (true, Some(removed)) = (deleted, removed) {
                        removed_rows.push(removed);
                    }
                    count += deleted as u64;
                }
                for removed in removed_rows {
                    constraints::on_parent_change(
                        &storage,
                        transaction,
                        reader,
                        &table,
                        &removed,
                        None,
                        0,
                    )?;
                }
                Ok(count)
            },
        )
    }

    fn ddl(
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
            Statement::Block(calls) => {
                for call in calls {
                    self.procedure_call(call, binds)?;
                }
                Ok(StatementResult::done(
                    "PL/SQL procedure successfully completed.",
                ))
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
            Statement::CreateUser { .. }
            | Statement::AlterUser { .. }
            | Statement::DropUser { .. }
            | Statement::Grant { .. } => self.user_statement(statement, binds),
            _ => Err(unsupported("this statement")),
        }
    }

    /// PostgreSQL's VACUUM: nothing to reclaim (old row versions are in undo and space
    /// freed by DELETE is reused, as in Oracle), so plain VACUUM only checks its tables'
    /// names. VACUUM ANALYZE gathers optimizer statistics of its tables (every table when
    /// none is named), each as `ANALYZE TABLE t COMPUTE STATISTICS` would, in its own
    /// transaction after committing what the session has open.
    fn vacuum(&mut self, analyze: bool, names: &[ast::ObjectName]) -> Result<StatementResult> {
        let tables: Vec<Arc<TableDef>> = if names.is_empty() {
            self.instance
                .catalog()
                .current()
                .tables
                .values()
                .cloned()
                .collect()
        } else {
            names
                .iter()
                .map(|name| self.table(name))
                .collect::<Result<_>>()?
        };
        const NOTHING: &str =
            "VACUUM did nothing: old row versions are kept in undo, as in Oracle, so there is nothing to reclaim";
        let said = if analyze {
            self.commit(None)?;
            for table in &tables {
                self.gather(table, SampleSize::All, true)?;
            }
            format!(
                "{NOTHING}; ANALYZE gathered the optimizer statistics of {} table{}.",
                tables.len(),
                if tables.len() == 1 { "" } else { "s" }
            )
        } else {
            format!("{NOTHING}.")
        };
        Ok(StatementResult {
            notice: Some(said.clone()),
            ..StatementResult::done(said)
        })
    }

    /// Gathers statistics of `table` (and of its indexes with `cascade`; without, the
    /// indexes keep the statistics they had) under a snapshot of now, then publishes them
    /// in a DDL transaction of the catalog: a new dictionary version.
    fn gather(&self, table: &TableDef, sample: SampleSize, cascade: bool) -> Result<()> {
        let now = catalog::now_seconds();
        let gathered = self.with_reader(&BindValues::default(), |reader| {
            gather::table_statistics(reader, table, sample, cascade, now)
        })?;
        self.instance
            .catalog()
            .set_statistics(&table.name, table.object_id, |current| {
                let mut gathered = gathered;
                if let (false, Some(old)) = (cascade, &current.statistics) {
                    gathered.indexes = old.indexes.clone();
                }
                Ok(Some(gathered))
            })
    }

    /// DBMS_STATS.GATHER_INDEX_STATS: the index's statistics, merged into its table's. A
    /// table never analyzed has its own statistics gathered too (they hold the index's).
    fn gather_index(&self, name: &str, sample: SampleSize) -> Result<()> {
        let dictionary = self.instance.catalog().current();
        let index = dictionary
            .indexes
            .get(name)
            .ok_or_else(|| procedures::not_found("INDEX", catalog::OWNER, name))?
            .clone();
        let table = dictionary.table(&index.table_name)?.clone();
        let now = catalog::now_seconds();
        let (table_statistics, index_statistics) =
            self.with_reader(&BindValues::default(), |reader| {
                let table_statistics = match table.statistics {
                    Some(_) => None,
                    None => Some(gather::table_statistics(
                        reader, &table, sample, false, now,
                    )?),
                };
                Ok((
                    table_statistics,
                    IndexStatistics::measure(&reader.storage.cache, &index, now)?,
                ))
            })?;
        self.instance
            .catalog()
            .set_statistics(&table.name, table.object_id, |current| {
                let mut statistics = match (table_statistics, &current.statistics) {
                    (Some(gathered), _) => gathered,
                    (None, Some(old)) => (**old).clone(),
                    // Deleted meanwhile: nothing to hang the index's figures on.
                    (None, None) => return Ok(None),
                };
                statistics
                    .indexes
                    .insert(index.name.clone(), index_statistics);
                Ok(Some(statistics))
            })
    }

    /// Runs one procedure call of a CALL statement or a block: the arguments are evaluated
    /// (constants, binds, expressions of them), bound to the procedure's parameters, and
    /// the procedure runs. Each gathering commits on its own, as DBMS_STATS does.
    fn procedure_call(&mut self, call: &ast::ProcedureCall, binds: &[Value]) -> Result<()> {
        procedures::check_procedure(&call.name)?;
        let mut bind_values = BindValues::new(binds.to_vec());
        let reader_binds = bind_values.clone();
        let (positional, named) = self.with_reader(&reader_binds, |reader| {
            let mut evaluate = |expr: &ast::Expr| -> Result<Value> {
                if let Some(constant) = procedures::constant_argument(expr) {
                    return constant;
                }
                query::compile_row_free(reader, &mut bind_values, expr)?
                    .evaluate(&[], &reader.row_context())
            };
            let positional = call
                .args
                .iter()
                .map(&mut evaluate)
                .collect::<Result<Vec<_>>>()?;
            let named = call
                .named
                .iter()
                .map(|(name, expr)| Ok((name.clone(), evaluate(expr)?)))
                .collect::<Result<Vec<_>>>()?;
            Ok((positional, named))
        })?;
        if crate::sql::shared_pool_procedures::names_package(&call.name) {
            return crate::sql::shared_pool_procedures::run(
                &self.instance,
                &call.name,
                positional,
                named,
            );
        }
        let catalog = self.instance.catalog();
        let table = |name: &str| {
            catalog
                .current()
                .tables
                .get(name)
                .cloned()
                .ok_or_else(|| procedures::not_found("TABLE", catalog::OWNER, name))
        };
        match procedures::statistics_call(&call.name, positional, named)? {
            StatisticsCall::GatherTable {
                table: name,
                sample,
                cascade,
            } => self.gather(&*table(&name)?, sample, cascade),
            StatisticsCall::GatherSchema { sample, cascade } => {
                let tables: Vec<Arc<TableDef>> =
                    catalog.current().tables.values().cloned().collect();
                for each in tables {
                    match self.gather(&each, sample, cascade) {
                        // Dropped since the list was taken: nothing to gather.
                        Err(error) if error.code() == 942 => continue,
                        other => other?,
                    }
                }
                Ok(())
            }
            StatisticsCall::GatherIndex { index, sample } => self.gather_index(&index, sample),
            StatisticsCall::DeleteTable { table: name } => {
                let found = table(&name)?;
                catalog.set_statistics(&found.name, found.object_id, |_| Ok(None))
            }
            StatisticsCall::DeleteIndex { index: name } => {
                let dictionary = catalog.current();
                let index = dictionary
                    .indexes
                    .get(&name)
                    .ok_or_else(|| procedures::not_found("INDEX", catalog::OWNER, &name))?;
                let found = dictionary.table(&index.table_name)?;
                catalog.set_statistics(&found.name, found.object_id, |current| {
                    Ok(current.statistics.as_deref().map(|gathered| {
                        let mut kept = gathered.clone();
                        kept.indexes.remove(&name);
                        kept
                    }))
                })
            }
            StatisticsCall::DeleteSchema => {
                for each in catalog.current().tables.values() {
                    match catalog.set_statistics(&each.name, each.object_id, |_| Ok(None)) {
                        Err(error) if error.code() == 942 => continue,
                        other => other?,
                    }
                }
                Ok(())
            }
        }
    }

    /// CREATE TABLE, with its keys and CHECK constraints, and with AS SELECT its columns
    /// named and typed from the query's and its rows inserted in the same DDL. The last
    /// argument is the table's buffer pool and CACHE flag; its keys' indexes go to DEFAULT,
    /// as Oracle's do without a USING INDEX clause.
    fn create_table(
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

    /// ALTER TABLE: each action becomes an [`Alteration`] of the table (or, for keys, an
    /// index) applied by the catalog in one DDL transaction.
    fn alter_table(
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
    fn modify_columns(
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

    fn add_constraint(
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

    fn constraint_exists(&self, name: &str) -> bool {
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

    fn drop_constraint(&mut self, table: &Arc<TableDef>, name: &str) -> Result<()> {
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

    fn alter_system(&mut self, action: &ast::AlterSystemAction) -> Result<StatementResult> {
        match action {
            ast::AlterSystemAction::Set {
                name,
                values,
                scope,
                ..
            } => {
                let value = values
                    .iter()
                    .map(parameter_text)
                    .collect::<Vec<_>>()
                    .join(",");
                let scope = match scope {
                    None | Some(ast::ParameterScope::Both) => AlterSystemScope::Both,
                    Some(ast::ParameterScope::Memory) => AlterSystemScope::Memory,
                    Some(ast::ParameterScope::Spfile) => AlterSystemScope::Spfile,
                };
                let name = name.to_lowercase();
                self.instance.alter_system_set(&name, &value, scope)?;
                self.parameters
                    .inherit_system_change(&self.instance.parameters(), &name);
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::Checkpoint { .. } => {
                self.instance.checkpoint()?;
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::SwitchLogfile => {
                self.instance.switch_logfile()?;
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::FlushBufferCache => {
                self.instance.cache().flush()?;
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::FlushSharedPool => {
                self.instance.library_cache().flush();
                Ok(StatementResult::done("System altered."))
            }
        }
    }
}

fn changed(rows: u64, verb: &str) -> StatementResult {
    StatementResult {
        rows_affected: rows,
        feedback: format!("{rows} row{} {verb}.", if rows == 1 { "" } else { "s" }),
        ..Default::default()
    }
}

/// Columns for CREATE TABLE AS SELECT from the query's result: its names, its types, and
/// where the planner does not know a type, the first value's (NUMBER, VARCHAR2(4000),
/// DATE, ...; a column of NULLs only is VARCHAR2(4000)).
fn query_columns(result: &RowSet) -> Result<Vec<catalog::ColumnDef>> {
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
fn key_columns(table: &TableDef) -> Vec<(Vec<String>, bool)> {
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
fn resolve_foreign_key(
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
const VOLATILE_FUNCTIONS: &[&str] = &[
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
fn check_conditions(
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
fn columns_read(expr: &ast::Expr) -> Vec<String> {
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

/// Renames a column wherever an expression (a CHECK condition) reads it.
fn rename_column(expr: &mut ast::Expr, from: &str, to: &str) {
    if let ast::Expr::Column { name, .. } = expr {
        if name == from {
            *name = to.to_string();
        }
    }
    expr.for_each_child_mut(&mut |child| rename_column(child, from, to));
}

fn unsupported(what: &str) -> Error {
    Error::new(3001, format!("unimplemented feature: {what}"))
}

/// A parameter value as the parameter registry reads it.
fn parameter_text(value: &ast::ParameterValue) -> String {
    match value {
        ast::ParameterValue::Number(text)
        | ast::ParameterValue::String(text)
        | ast::ParameterValue::Identifier(text)
        | ast::ParameterValue::Size(text)
        | ast::ParameterValue::List(text) => text.clone(),
    }
}

/// NEXTVAL through the catalog, CURRVAL from the session.
struct SessionSequences<'a> {
    session: &'a Session,
}

impl SequenceAccess for SessionSequences<'_> {
    fn next_value(&self, sequence: &SequenceDef) -> Result<Value> {
        let value = self.session.instance.catalog().next_value(sequence)?;
        let value = Value::Number(rust_decimal::Decimal::from_i128_with_scale(value, 0));
        self.session
            .current_values
            .borrow_mut()
            .insert(sequence.object_id, value.clone());
        Ok(value)
    }

    fn current_value(&self, sequence: &SequenceDef) -> Result<Value> {
        self.session
            .current_values
            .borrow()
            .get(&sequence.object_id)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    8002,
                    format!(
                        "sequence {}.CURRVAL is not yet defined in this session",
                        sequence.name
                    ),
                )
            })
    }
}

/// The index of a PRIMARY KEY or UNIQUE constraint of table `table_name`, made in
/// `statement`: unique, in ascending order, in the DEFAULT pool (there is no USING INDEX
/// clause). Duplicates in the rows are ORA-02437 (primary key) or ORA-02299 (unique), as
/// Oracle reports them.
fn create_key_index(
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
fn drop_referenced_keys(
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
