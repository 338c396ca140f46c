//! `pythia serve`: PostgreSQL's wire protocol in front of an instance, so that PostgreSQL
//! clients connect unchanged. The design, and what is built of it (all six increments:
//! the simple and extended query protocols, COPY, SCRAM-SHA-256 and TLS, cancel and
//! timeouts, the metrics endpoint), is `docs/architecture/server.md`.
//!
//! ```text
//!   lib.rs       Server, the listener, a connection's thread, simple query, transactions
//!   extended.rs  Parse / Bind / Describe / Execute on the session's prepared statements
//!   split.rs     a simple query message into statements (the engine's lexer)
//!   wire.rs      values and types to and from PostgreSQL's text and binary formats
//!   copy.rs      COPY FROM STDIN and TO STDOUT
//!   auth.rs      SCRAM-SHA-256 over the dictionary's verifiers; tls.rs, rustls
//!   metrics.rs   the Prometheus endpoint over the v$ views; programs.rs, client names
//! ```
//!
//! The server talks only to `pythia::Session` (and `Instance::logon`): it is above every
//! layer of the engine, and nothing in the engine knows it.
//!
//! ```text
//!   client --TCP--> the listener's thread (tokio): accepts, holds a socket until its first byte
//!                      |
//!                      v
//!                   the connection's own thread, with a tokio runtime of its own:
//!                   pgwire reads a message, the thread's pythia::Session runs it
//!                   (synchronous), pgwire writes the answer; no hand-off between threads;
//!                   'SQL*Net message from client' from each answer to the next request
//! ```
//!
//! Oracle's dedicated server: each connection's session lives on an OS thread of its own
//! for the connection's life, because the engine's waits, latches and per-thread CPU clock
//! are thread-based; tokio only moves bytes. The thread ends when the connection does, and
//! the session's open transaction rolls back with it.
//!
//! Transactions follow PostgreSQL's clients: outside `BEGIN` / `START TRANSACTION` each
//! statement commits on its own (autocommit); `COMMIT`, `END`, `ROLLBACK` and `ABORT` end an
//! explicit transaction. A failed statement undoes only itself, as in Oracle: the
//! transaction is never in PostgreSQL's failed state.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Debug;
use std::io;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use futures::{stream, Sink, SinkExt};
use pgwire::api::auth::{
    protocol_negotiation, save_startup_parameters_to_metadata, AuthDriver, AuthOutcome,
    DefaultServerParameterProvider, StartupHandler,
};
use pgwire::api::cancel::CancelHandler;
use pgwire::api::portal::Format;
use pgwire::api::query::{
    send_execution_response, send_query_response, send_ready_for_query, ExtendedQueryHandler,
    SimpleQueryHandler,
};
use pgwire::api::results::{FieldInfo, QueryResponse, Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::{
    ClientInfo, ClientPortalStore, ErrorHandler, PgWireConnectionState, PgWireServerHandlers,
};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::cancel::CancelRequest;
use pgwire::messages::data::DataRow;
use pgwire::messages::response::{CommandComplete, EmptyQueryResponse, TransactionStatus};
use pgwire::messages::simplequery::Query;
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};
use pythia::instrumentation::interrupt::Interrupter;
use pythia::instrumentation::{Latch, LatchName, WaitGuard};
use pythia::syntax::lexer::tokenize;
use pythia::{Instance, Session, StatementResult, Value};

mod auth;
mod copy;
mod extended;
pub mod metrics;
pub mod programs;
mod split;
mod tls;
mod wire;

pub use auth::SCRAM_MESSAGE_BYTES_MAX;
pub use metrics::MetricsEndpoint;
pub use split::split_statements;
use split::{begins_transaction, word};
pub use tls::TlsFiles;

/// How long `Server::stop` waits for the connections' threads to finish the statement they
/// are running and roll back what they had open.
pub const CONNECTION_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The connections' threads alive, and a condition variable for `Server::stop` to wait on.
#[derive(Default)]
struct Live {
    threads: Mutex<usize>,
    ended: Condvar,
    /// Connections ended by a panic on their thread (a bug: the fuzz test asserts none).
    panics: AtomicU64,
}

/// Counts a connection's thread in `Live` until dropped, however the thread ends.
struct LiveThread(Arc<Live>);

impl Live {
    /// Waits (at most `timeout`) until no more than `at_most` connections' threads are
    /// alive, and returns how many are then.
    fn wait_until_at_most(&self, at_most: usize, timeout: Duration) -> usize {
        let threads = self
            .threads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (threads, _) = self
            .ended
            .wait_timeout_while(threads, timeout, |threads| *threads > at_most)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *threads
    }
}

impl Drop for LiveThread {
    fn drop(&mut self) {
        let mut threads = self
            .0
            .threads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *threads -= 1;
        self.0.ended.notify_all();
    }
}

/// What the server reports as `server_version`: clients read the leading number.
pub const SERVER_VERSION: &str = concat!("15.0 (Pythia ", env!("CARGO_PKG_VERSION"), ")");

// ----- the connection's thread ------------------------------------------------------------

/// What a connection's thread keeps for its session.
struct Connection {
    instance: Arc<Instance>,
    /// Who logs on: the user the startup message named, and the client's address (for the
    /// alert log's line when the logon fails).
    logon: Logon,
    session: Option<Session>,
    /// Inside `BEGIN` ... `COMMIT`: statements do not commit on their own.
    explicit: bool,
    /// A `COPY ... FROM STDIN` taking rows (`copy`).
    copy_in: Option<copy::CopyIn>,
    /// A panic ended the session: the connection takes no more work.
    dead: bool,
}

/// A connection's session and what the protocol keeps of it. It lives on the connection's
/// thread, which runs this connection's protocol too: the work of a request runs where its
/// message was read, with no hand-off between threads.
struct Backend {
    connection: Mutex<Connection>,
    /// After the last work: a transaction is open, or an explicit one began (the status
    /// ReadyForQuery reports)...
    in_transaction: AtomicBool,
    /// ... and an implicit transaction is open (a Sync ends it).
    implicit_open: AtomicBool,
    /// An extended-protocol message failed since the last Sync: the Sync rolls back the
    /// implicit transaction instead of committing it.
    failed: AtomicBool,
    /// The extended protocol's traffic since the last Sync (bytes received, bytes sent),
    /// counted into the session's statistics at the Sync.
    traffic: Mutex<(u64, u64)>,
}

/// The user a connection logs on as, and where it comes from.
struct Logon {
    user: String,
    client: String,
}

thread_local! {
    /// The connection thread's wait for its client ('SQL*Net message from client'), from
    /// its last answer to its next request (`Handlers::await_client`).
    static CLIENT_WAIT: RefCell<Option<WaitGuard>> = const { RefCell::new(None) };
}

impl Backend {
    fn new(instance: Arc<Instance>, logon: Logon) -> Backend {
        Backend {
            connection: Mutex::new(Connection {
                instance,
                logon,
                session: None,
                explicit: false,
                copy_in: None,
                dead: false,
            }),
            in_transaction: AtomicBool::new(false),
            implicit_open: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            traffic: Mutex::new((0, 0)),
        }
    }

    /// Runs `work` on the connection (on this, the connection's own thread). A panic ends
    /// the session, whose state is then unknown: its transaction rolls back, and the
    /// connection gets a FATAL error.
    async fn run<R>(&self, work: impl FnOnce(&mut Connection) -> R) -> PgWireResult<R> {
        // The client's request is here: its wait ends.
        end_client_wait();
        let mut connection = self
            .connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if connection.dead {
            return Err(ended());
        }
        match std::panic::catch_unwind(AssertUnwindSafe(|| work(&mut connection))) {
            Ok(result) => {
                let open = connection
                    .session
                    .as_ref()
                    .is_some_and(|session| session.in_transaction());
                self.in_transaction
                    .store(open || connection.explicit, Ordering::Release);
                self.implicit_open
                    .store(open && !connection.explicit, Ordering::Release);
                Ok(result)
            }
            Err(_) => {
                connection.dead = true;
                connection.copy_in = None;
                connection.session = None;
                Err(ended())
            }
        }
    }

    /// Notes an extended-protocol message's traffic: `received` bytes from the client,
    /// `sent` bytes of answer.
    fn note_traffic(&self, received: u64, sent: u64) {
        let mut traffic = self
            .traffic
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        traffic.0 += received;
        traffic.1 += sent;
    }

    /// The traffic noted since the last call.
    fn take_traffic(&self) -> (u64, u64) {
        std::mem::take(
            &mut *self
                .traffic
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    /// Whether an implicit transaction is open, for a Sync to end.
    fn implicit_open(&self) -> bool {
        self.implicit_open.load(Ordering::Acquire)
    }

    /// Whether a message failed since the last call, which starts the count again.
    fn take_failed(&self) -> bool {
        self.failed.swap(false, Ordering::AcqRel)
    }

    fn transaction_status(&self) -> TransactionStatus {
        if self.in_transaction.load(Ordering::Acquire) {
            TransactionStatus::Transaction
        } else {
            TransactionStatus::Idle
        }
    }
}

/// Ends the connection thread's wait for its client, recording it.
fn end_client_wait() {
    let _ = CLIENT_WAIT.try_with(|wait| wait.borrow_mut().take());
}

fn ended() -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "FATAL".into(),
        "XX000".into(),
        "the session of this connection ended after an internal error".into(),
    )))
}

/// How a statement bears on the transaction, as PostgreSQL's clients use it.
#[derive(Debug, PartialEq, Eq)]
enum Control {
    /// `BEGIN [WORK | TRANSACTION]`, `START TRANSACTION`: nothing for the engine.
    Begin,
    /// `COMMIT ...`, `END`, `ROLLBACK` (not `TO SAVEPOINT`), `ABORT`: the engine's statement.
    End(&'static str),
    /// Anything else, `ROLLBACK TO` and PL/SQL blocks included.
    Statement,
}

/// The words `control` looks for first.
const CONTROL_WORDS: [&str; 6] = ["BEGIN", "START", "END", "ABORT", "ROLLBACK", "COMMIT"];

fn control(sql: &str) -> Control {
    if pythia::syntax::lexer::begins_with_none_of(sql, &CONTROL_WORDS) {
        return Control::Statement;
    }
    let Ok(tokens) = tokenize(sql) else {
        return Control::Statement; // the engine reports the lexer's error
    };
    if begins_transaction(&tokens) {
        return Control::Begin;
    }
    let words: Vec<&str> = tokens.iter().map(|token| word(Some(token))).collect();
    // The word alone, or with WORK or TRANSACTION: `ROLLBACK TRANSACTION TO a` is the engine's.
    let bare = |rest: &[&str]| matches!(rest, [] | ["WORK" | "TRANSACTION"]);
    match words.split_first() {
        Some((&"END", rest)) if bare(rest) => Control::End("commit"),
        Some((&"ABORT" | &"ROLLBACK", rest)) if bare(rest) => Control::End("rollback"),
        Some((&"COMMIT", _)) => Control::End(""),
        _ => Control::Statement,
    }
}

impl Connection {
    fn session(&mut self) -> pythia::Result<&mut Session> {
        if self.session.is_none() {
            let logon = &self.logon;
            let mut session = self.instance.logon(&logon.user, &logon.client)?;
            // DBMS_OUTPUT is on, its lines sent as notices after each statement (as a
            // PostgreSQL client sees RAISE NOTICE); DBMS_OUTPUT.DISABLE turns it off.
            session.set_server_output(Some(None));
            self.session = Some(session);
        }
        Ok(self.session.as_mut().expect("connected above"))
    }

    /// DBMS_OUTPUT's lines since the last statement, for notices (none before a session).
    fn take_notices(&mut self) -> Vec<String> {
        self.session
            .as_mut()
            .map(Session::take_output)
            .unwrap_or_default()
    }

    /// Runs one statement of a simple query. Outside an explicit transaction it commits
    /// (rolls back, if it failed) at once, unless `deferred`: a message of several statements
    /// is one implicit transaction, as in PostgreSQL, ended by `end_message`.
    fn run(&mut self, sql: &str, deferred: bool) -> pythia::Result<Outcome> {
        let outcome = match control(sql) {
            Control::Statement => self
                .session()?
                .execute(sql)
                .and_then(|result| encode(result, sql, None, &Format::UnifiedText)),
            control => return self.run_control(&control, sql),
        };
        if !self.explicit && !deferred {
            self.end_implicit(outcome.is_ok())?;
        }
        outcome
    }

    /// Runs a statement the extended protocol parsed, with its parameters, its rows encoded
    /// in `formats` with the column types a Describe told the client. The implicit
    /// transaction ends at the next Sync (`end_message`).
    fn execute_parsed(
        &mut self,
        parsed: &extended::Parsed,
        binds: &[Value],
        formats: &Format,
    ) -> pythia::Result<Outcome> {
        let statement = parsed.statement();
        match &statement.kind {
            extended::Kind::Control(control) => self.run_control(control, &statement.text),
            extended::Kind::Copy(_) => Err(pythia::Error::internal("execute_parsed: a COPY")),
            extended::Kind::Statement(prepared) => {
                let result = self.session()?.execute_prepared(prepared, binds)?;
                encode(result, &statement.text, parsed.columns(), formats)
            }
        }
    }

    /// BEGIN, COMMIT, ROLLBACK and the like, which PostgreSQL's clients send to mark an
    /// explicit transaction.
    fn run_control(&mut self, control: &Control, sql: &str) -> pythia::Result<Outcome> {
        match *control {
            Control::Begin => {
                self.explicit = true;
                Ok(Outcome::Done(Tag::new("BEGIN"), None))
            }
            Control::End(instead) => {
                let text = if instead.is_empty() { sql } else { instead };
                let session = self.session()?;
                session.execute(text)?;
                // Explicit until the engine says the transaction is over.
                self.explicit = session.in_transaction();
                let tag = if instead == "rollback" {
                    "ROLLBACK"
                } else {
                    "COMMIT"
                };
                Ok(Outcome::Done(Tag::new(tag), None))
            }
            Control::Statement => Err(pythia::Error::internal("run_control: not a control")),
        }
    }

    /// Ends an implicit transaction: commits what is open, or rolls it back after an error.
    fn end_implicit(&mut self, succeeded: bool) -> pythia::Result<()> {
        let session = self.session()?;
        if session.in_transaction() {
            session.execute(if succeeded { "commit" } else { "rollback" })?;
        }
        Ok(())
    }

    /// Counts a statement's traffic in the session's statistics; `received` (non-zero for
    /// a message's first statement) also counts the round trip and its ReadyForQuery.
    fn count_traffic(&self, received: u64, outcome: &pythia::Result<Outcome>) {
        if let Some(session) = &self.session {
            let (ready, round_trips) = if received > 0 {
                (READY_FOR_QUERY_BYTES, 1)
            } else {
                (0, 0)
            };
            session.count_client_traffic(received, wire_bytes(outcome) + ready, round_trips);
        }
    }

    /// After the last statement of a message sent with `deferred`.
    fn end_message(&mut self, succeeded: bool) -> pythia::Result<()> {
        if self.explicit {
            return Ok(());
        }
        self.end_implicit(succeeded)
    }
}

// ----- encoding ---------------------------------------------------------------------------

/// A statement's result, encoded for the wire (on the connection's thread).
enum Outcome {
    Rows {
        fields: Arc<Vec<FieldInfo>>,
        rows: Vec<DataRow>,
        /// The command tag: SELECT, or CALL for a CALL's OUT parameters.
        tag: &'static str,
    },
    /// A statement without rows: its command tag, and what the client should be told
    /// besides (`StatementResult::notice`), sent as a NOTICE before the tag.
    Done(Tag, Option<String>),
}

/// A NOTICE, as PostgreSQL sends one (severity, SQLSTATE 00000, the message).
fn notice_response(message: &str) -> PgWireBackendMessage {
    PgWireBackendMessage::NoticeResponse(
        ErrorInfo::new("NOTICE".into(), "00000".into(), message.to_string()).into(),
    )
}

/// Bytes of a message's type and length fields.
const MESSAGE_HEADER_BYTES: u64 = 5;
/// A ReadyForQuery message.
const READY_FOR_QUERY_BYTES: u64 = MESSAGE_HEADER_BYTES + 1;

/// The bytes the protocol messages answering one statement take on the wire (RowDescription,
/// DataRows and CommandComplete, or the ErrorResponse), as PostgreSQL frames them: what
/// `bytes sent via SQL*Net to client` counts.
fn wire_bytes(outcome: &pythia::Result<Outcome>) -> u64 {
    let description = match outcome {
        Ok(Outcome::Rows { fields, .. }) => row_description_bytes(fields),
        _ => 0,
    };
    description + answer_bytes(outcome)
}

/// A RowDescription's bytes.
fn row_description_bytes(fields: &[FieldInfo]) -> u64 {
    fields
        .iter()
        .map(|field| field.name().len() as u64 + 1 + 18)
        .sum::<u64>()
        + MESSAGE_HEADER_BYTES
        + 2
}

/// `wire_bytes` without the RowDescription, which the extended protocol sends at Describe.
fn answer_bytes(outcome: &pythia::Result<Outcome>) -> u64 {
    let command_complete = |tag: &str| MESSAGE_HEADER_BYTES + tag.len() as u64 + 1;
    match outcome {
        Ok(Outcome::Rows { rows, tag, .. }) => {
            let data: u64 = rows
                .iter()
                .map(|row| MESSAGE_HEADER_BYTES + 2 + row.data.len() as u64)
                .sum();
            // The tag `SELECT n`, measured without formatting it.
            let digits = rows.len().checked_ilog10().map_or(1, |log| log + 1);
            data + MESSAGE_HEADER_BYTES + tag.len() as u64 + 1 + u64::from(digits) + 1
        }
        Ok(Outcome::Done(tag, notice)) => {
            command_complete(&CommandComplete::from(tag.clone()).tag)
                + notice.as_ref().map_or(0, |notice| {
                    // Severity (twice), SQLSTATE and message fields, and the final NUL.
                    MESSAGE_HEADER_BYTES + 2 * (1 + 7) + (1 + 6) + (1 + notice.len() as u64 + 1) + 1
                })
        }
        // Severity (twice), SQLSTATE, message and position fields, each a code byte and a
        // NUL-terminated string, and the final NUL.
        Err(error) => {
            MESSAGE_HEADER_BYTES
                + 2 * (1 + 6)
                + (1 + 6)
                + (1 + error.to_string().len() as u64 + 1)
                + error.position().map_or(0, |_| 1 + 6)
                + 1
        }
    }
}

/// A statement's result for the wire: its command tag, or its rows encoded in `formats`
/// with the column types `described` (what a Describe told the client) or, without one,
/// the result's own. ORA-03001 when a described statement's result no longer has the
/// columns described (DDL between Describe and Execute), as PostgreSQL refuses a cached
/// plan that changed its result type.
fn encode(
    result: StatementResult,
    sql: &str,
    described: Option<&[(String, pgwire::api::Type)]>,
    formats: &Format,
) -> pythia::Result<Outcome> {
    if !result.out_parameters.is_empty() {
        // A CALL's OUT and IN OUT parameters, one row, as PostgreSQL returns them.
        let (names, values): (Vec<String>, Vec<Value>) = result.out_parameters.into_iter().unzip();
        let columns: Vec<pythia::Column> = names
            .into_iter()
            .zip(&values)
            .map(|(name, value)| pythia::Column {
                name,
                data_type: value.data_type(),
            })
            .collect();
        let fields = match described {
            Some(described) if described.len() == columns.len() => wire::fields(described, formats),
            _ => wire::fields(&wire::described(&columns), formats),
        };
        let rows = wire::encode_rows(&fields, &[values])?;
        return Ok(Outcome::Rows {
            fields,
            rows,
            tag: "CALL",
        });
    }
    if !result.is_query {
        return Ok(Outcome::Done(
            command_tag(sql, result.rows_affected),
            result.notice,
        ));
    }
    let fields = match described {
        Some(described) if described.len() != result.columns.len() => {
            return Err(pythia::Error::new(
                3001,
                "unimplemented feature: cached plan must not change result type \
                 (describe the statement again)",
            ))
        }
        Some(described) => wire::fields(described, formats),
        None => wire::fields(&wire::described(&result.columns), formats),
    };
    let rows = wire::encode_rows(&fields, &result.rows)?;
    Ok(Outcome::Rows {
        fields,
        rows,
        tag: "SELECT",
    })
}

/// PostgreSQL's command tags: `INSERT 0 n`, `UPDATE n`, `CREATE TABLE`, ... Read from the
/// statement's first words, compared without allocating (every statement comes here).
fn command_tag(sql: &str, rows: u64) -> Tag {
    const VERBS: [&str; 9] = [
        "INSERT", "UPDATE", "DELETE", "MERGE", "SELECT", "CREATE", "DROP", "ALTER", "TRUNCATE",
    ];
    // The object's kind, past OR REPLACE, UNIQUE, GLOBAL TEMPORARY and the like.
    const KINDS: [&str; 11] = [
        "TABLE",
        "INDEX",
        "VIEW",
        "SEQUENCE",
        "PROCEDURE",
        "FUNCTION",
        "TRIGGER",
        "PACKAGE",
        "TYPE",
        "SYNONYM",
        "USER",
    ];
    let one_of = |words: &[&'static str], word: &str| {
        words
            .iter()
            .copied()
            .find(|known| known.eq_ignore_ascii_case(word))
    };
    let mut words = sql.split_whitespace().take(6);
    let first = words.next().unwrap_or("");
    match one_of(&VERBS, first) {
        Some("INSERT") => Tag::new("INSERT").with_oid(0).with_rows(rows as usize),
        Some(verb @ ("UPDATE" | "DELETE" | "MERGE" | "SELECT")) => {
            Tag::new(verb).with_rows(rows as usize)
        }
        Some(verb) => match words.find_map(|word| one_of(&KINDS, word)) {
            Some(kind) => Tag::new(&format!("{verb} {kind}")),
            None => Tag::new(verb),
        },
        // An anonymous PL/SQL block (a transaction's BEGIN never gets here): PostgreSQL's
        // tag for an anonymous code block.
        None if ["BEGIN", "DECLARE"]
            .iter()
            .any(|word| word.eq_ignore_ascii_case(first))
            || first.starts_with("<<") =>
        {
            Tag::new("DO")
        }
        None => Tag::new(&first.to_ascii_uppercase()),
    }
}

/// An engine error as PostgreSQL's clients read one: the SQLSTATE of the same condition
/// (`pythia::Error::sqlstate`), the ORA- text as the message, and the position 1-based in
/// characters of the whole message `text`, in which the failing statement starts at byte
/// `offset`.
fn error_info(error: &pythia::Error, text: &str, offset: usize, severity: &str) -> ErrorInfo {
    let mut info = ErrorInfo::new(severity.into(), error.sqlstate().into(), error.to_string());
    info.position = error.position().map(|byte| {
        let byte = offset + byte;
        let characters = text
            .get(..byte)
            .map_or(byte, |prefix| prefix.chars().count());
        (characters + 1).to_string()
    });
    info
}

/// An engine error in a query message `text` (see [`error_info`]), as the ErrorResponse sent.
fn error_response(error: &pythia::Error, text: &str, offset: usize) -> PgWireBackendMessage {
    PgWireBackendMessage::ErrorResponse(error_info(error, text, offset, "ERROR").into())
}

// ----- the protocol -----------------------------------------------------------------------

/// Shared by every connection.
struct Shared {
    instance: Arc<Instance>,
    /// SCRAM-SHA-256, or trust (`ServerOptions::trust`).
    authentication: auth::ClientAuthentication,
    driver: AuthDriver<DefaultServerParameterProvider>,
    live: Arc<Live>,
    cancels: Arc<CancelKeys>,
    /// Set when the server stops: every connection's thread closes its connection.
    stopping: tokio::sync::watch::Sender<bool>,
    /// TLS for clients that ask for it, if configured (`tls`).
    tls: tls::Acceptor,
}

/// Where a CancelRequest finds the session it names: the (process id, secret key) each
/// logged-on connection was given, to its session's interrupter and its socket. Shared by
/// every connection's thread and the listener's, so an instrumented latch: 'session
/// allocation', Oracle's for the table of sessions (v$latch counts its gets and misses).
type CancelKeys = Latch<HashMap<(i32, Vec<u8>), Registered>>;

/// An empty [`CancelKeys`].
fn cancel_keys() -> CancelKeys {
    Latch::new(LatchName::SessionAllocation, HashMap::new())
}

/// A logged-on connection, as a CancelRequest and the dead connection check find it.
struct Registered {
    interrupter: Interrupter,
    /// The connection's socket, shared with its thread, for [`check_clients`] to look at
    /// without reading from it.
    socket: Option<Arc<std::net::TcpStream>>,
}

/// How often [`check_clients`] looks for clients gone while their statement runs.
pub const CLIENT_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// The dead connection check (Oracle's `SQLNET.EXPIRE_TIME`, PostgreSQL's
/// `client_connection_check_interval`), on the listener's thread: every
/// [`CLIENT_CHECK_INTERVAL`] it peeks at each logged-on connection's socket, and a socket
/// its client has closed interrupts the session's running statement with ORA-03113. The
/// connection's thread runs a statement to its end without reading its socket, so without
/// this a client gone in the middle of a long statement left it running, holding its locks,
/// until it ended. Between statements this changes nothing: the thread, waiting on the
/// socket, sees the end itself, and an interrupt that finds no statement is dropped.
async fn check_clients(cancels: Arc<CancelKeys>) {
    let mut interval = tokio::time::interval(CLIENT_CHECK_INTERVAL);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let registered = cancels.lock();
        for connection in registered.values() {
            if connection.socket.as_deref().is_some_and(client_gone) {
                connection.interrupter.client_gone();
            }
        }
    }
}

/// Whether the client of `socket` (non-blocking, as every connection's is) has closed its
/// end or reset the connection: a peek reads the end of the stream, or an error other than
/// "no data yet". Data waiting (a pipelined request, TLS records) says it is there.
fn client_gone(socket: &std::net::TcpStream) -> bool {
    match socket.peek(&mut [0u8; 1]) {
        Ok(0) => true,
        Ok(_) => false,
        Err(error) => !matches!(
            error.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
        ),
    }
}

/// A connection's entry in `CancelKeys`, removed when the connection ends.
struct CancelRegistration {
    key: (i32, Vec<u8>),
    cancels: Arc<CancelKeys>,
}

impl Drop for CancelRegistration {
    fn drop(&mut self) {
        self.cancels.lock().remove(&self.key);
    }
}

/// One per connection: pgwire asks it for its handlers, so it carries the connection's
/// thread, started once the client has authenticated: a socket that never logs on costs a
/// tokio task, not a thread, so the threads stay bounded by the sessions (`processes`).
struct Handlers {
    shared: Arc<Shared>,
    number: u64,
    backend: Arc<OnceLock<Arc<Backend>>>,
    cancel_registration: Arc<OnceLock<CancelRegistration>>,
    /// CopyData gathered for the connection's thread (`copy::COPY_BATCH_BYTES`).
    copy_buffer: Arc<Mutex<Vec<u8>>>,
    /// The connection's socket, for the dead connection check (`check_clients`).
    socket: Option<Arc<std::net::TcpStream>>,
}

impl PgWireServerHandlers for Handlers {
    fn simple_query_handler(&self) -> Arc<impl SimpleQueryHandler> {
        Arc::new(self.clone_inner())
    }

    fn startup_handler(&self) -> Arc<impl StartupHandler> {
        Arc::new(self.clone_inner())
    }

    fn extended_query_handler(&self) -> Arc<impl ExtendedQueryHandler> {
        Arc::new(self.clone_inner())
    }

    fn error_handler(&self) -> Arc<impl ErrorHandler> {
        Arc::new(self.clone_inner())
    }

    fn cancel_handler(&self) -> Arc<impl CancelHandler> {
        Arc::new(self.clone_inner())
    }

    fn copy_handler(&self) -> Arc<impl pgwire::api::copy::CopyHandler> {
        Arc::new(self.clone_inner())
    }
}

/// A CancelRequest (which comes on a connection of its own) interrupts the running
/// statement of the session its key names: the statement fails with ORA-01013 (SQLSTATE
/// 57014), undoing its own changes, and the session goes on. A key no connection has is
/// ignored, as PostgreSQL ignores it.
#[async_trait]
impl CancelHandler for Handlers {
    async fn on_cancel_request(&self, request: CancelRequest) {
        let key = (request.pid, request.secret_key.to_bytes().to_vec());
        let cancels = self.shared.cancels.lock();
        if let Some(connection) = cancels.get(&key) {
            connection.interrupter.cancel();
        }
    }
}

/// Notes every error a handler returns (the extended protocol's: a simple query answers its
/// own), so that the next Sync rolls back the implicit transaction.
impl ErrorHandler for Handlers {
    fn on_error<C>(&self, _client: &C, _error: &mut PgWireError)
    where
        C: ClientInfo,
    {
        if let Some(backend) = self.backend.get() {
            backend.failed.store(true, Ordering::Release);
        }
        // pgwire answers the error: the client's next request is awaited.
        self.await_client(false);
    }
}

impl Handlers {
    fn clone_inner(&self) -> Handlers {
        Handlers {
            shared: self.shared.clone(),
            number: self.number,
            backend: self.backend.clone(),
            cancel_registration: self.cancel_registration.clone(),
            copy_buffer: self.copy_buffer.clone(),
            socket: self.socket.clone(),
        }
    }

    /// The connection's thread; an error before logon (pgwire asks for no query before it).
    fn backend(&self) -> PgWireResult<&Arc<Backend>> {
        self.backend.get().ok_or(PgWireError::NotReadyForQuery)
    }

    /// Starts the session's wait for its client, after an answer: 'SQL*Net message from
    /// client', or 'SQL*Net more data from client' (`more_data`) inside a COPY. The next
    /// request's work ends it (`Backend::run`).
    fn await_client(&self, more_data: bool) {
        let Some(backend) = self.backend.get() else {
            return;
        };
        let connection = backend
            .connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(session) = &connection.session {
            let wait = session.wait_for_client(more_data);
            let _ = CLIENT_WAIT.try_with(|slot| *slot.borrow_mut() = Some(wait));
        }
    }

    /// The session's transaction status (idle before logon).
    fn transaction_status(&self) -> TransactionStatus {
        self.backend
            .get()
            .map_or(TransactionStatus::Idle, |backend| {
                backend.transaction_status()
            })
    }
}

#[async_trait]
impl StartupHandler for Handlers {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let driver = &self.shared.driver;
        let outcome = match message {
            PgWireFrontendMessage::Startup(ref startup) => {
                protocol_negotiation(client, startup).await?;
                save_startup_parameters_to_metadata(client, startup);
                let mechanism = self.shared.authentication.create();
                driver.begin_authentication(client, mechanism).await?
            }
            PgWireFrontendMessage::PasswordMessageFamily(message) => {
                driver.advance_authentication(client, message).await?
            }
            _ => return Ok(()),
        };
        if let AuthOutcome::Authenticated { final_message, .. } = outcome {
            // The session logs on now, so that ORA-00020 and the like fail the login (FATAL)
            // rather than the first statement.
            let logon = Logon {
                user: auth::user_of(client),
                client: client.socket_addr().to_string(),
            };
            let backend = self
                .backend
                .get_or_init(|| Arc::new(Backend::new(self.shared.instance.clone(), logon)));
            let interrupter = backend
                .run(|connection| connection.session().map(|session| session.interrupter()))
                .await?
                .map_err(|error| {
                    PgWireError::UserError(Box::new(error_info(&error, "", 0, "FATAL")))
                })?;
            driver
                .complete_authentication(client, final_message)
                .await?;
            self.await_client(false);
            // The key the client was just given finds this session for a cancel.
            let (pid, secret_key) = client.pid_and_secret_key();
            let key = (pid, secret_key.to_bytes().to_vec());
            self.shared.cancels.lock().insert(
                key.clone(),
                Registered {
                    interrupter,
                    socket: self.socket.clone(),
                },
            );
            let _ = self.cancel_registration.set(CancelRegistration {
                key,
                cancels: self.shared.cancels.clone(),
            });
        }
        Ok(())
    }
}

#[async_trait]
impl SimpleQueryHandler for Handlers {
    /// Overridden, not pgwire's default, to send each statement's answer as it comes, to end
    /// the query string at its first error as PostgreSQL does, and to report the session's
    /// own transaction status (pgwire would mark the transaction failed after an error).
    async fn on_query<C>(&self, client: &mut C, query: Query) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if !matches!(client.state(), PgWireConnectionState::ReadyForQuery) {
            return Err(PgWireError::NotReadyForQuery);
        }
        client.set_state(PgWireConnectionState::QueryInProgress);
        let text = &query.query;
        match split_statements(text) {
            Err(error) => {
                client.feed(error_response(&error, text, 0)).await?;
            }
            Ok(statements) if statements.iter().any(|(_, sql)| copy::parse(sql).is_some()) => {
                let (_, sql) = &statements[0];
                match copy::parse(sql) {
                    Some(statement) if statements.len() == 1 => {
                        if !self.copy_statement(client, text, statement).await? {
                            // COPY FROM STDIN: CopyData follow; ReadyForQuery after CopyDone.
                            self.await_client(true);
                            return Ok(());
                        }
                    }
                    _ => {
                        let error = pythia::Error::new(
                            3001,
                            "unimplemented feature: COPY must be the only statement of its \
                             message",
                        );
                        client.feed(error_response(&error, text, 0)).await?;
                    }
                }
            }
            Ok(statements) if statements.is_empty() => {
                client
                    .feed(PgWireBackendMessage::EmptyQueryResponse(
                        EmptyQueryResponse::new(),
                    ))
                    .await?;
            }
            Ok(statements) => {
                let deferred = statements.len() > 1;
                let mut succeeded = true;
                // The Query message: header, text, NUL. Counted with the first statement,
                // with the round trip and the ReadyForQuery that ends it.
                let mut received = MESSAGE_HEADER_BYTES + text.len() as u64 + 1;
                for (offset, statement) in statements {
                    let (outcome, notices) = self
                        .backend()?
                        .run(move |connection| {
                            let outcome = connection.run(&statement, deferred);
                            connection.count_traffic(received, &outcome);
                            (outcome, connection.take_notices())
                        })
                        .await?;
                    received = 0;
                    for line in &notices {
                        client.feed(notice_response(line)).await?;
                    }
                    match outcome {
                        Ok(Outcome::Rows { fields, rows, tag }) => {
                            let rows = stream::iter(rows.into_iter().map(Ok));
                            let mut response = QueryResponse::new(fields, rows);
                            response.set_command_tag(tag);
                            send_query_response(client, response, true).await?
                        }
                        Ok(Outcome::Done(tag, notice)) => {
                            if let Some(notice) = notice {
                                client.feed(notice_response(&notice)).await?;
                            }
                            send_execution_response(client, tag).await?
                        }
                        Err(error) => {
                            client.feed(error_response(&error, text, offset)).await?;
                            succeeded = false;
                            break;
                        }
                    }
                }
                if deferred {
                    let ended = self
                        .backend()?
                        .run(move |connection| connection.end_message(succeeded))
                        .await?;
                    if let (true, Err(error)) = (succeeded, ended) {
                        client.feed(error_response(&error, text, 0)).await?;
                    }
                }
            }
        }
        client.set_state(PgWireConnectionState::ReadyForQuery);
        let status = self.transaction_status();
        client.set_transaction_status(status);
        send_ready_for_query(client, status).await?;
        self.await_client(false);
        Ok(())
    }

    async fn do_query<C>(&self, _client: &mut C, _query: &str) -> PgWireResult<Vec<Response>>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        unreachable!("on_query is overridden and never calls do_query")
    }
}

// ----- the server -------------------------------------------------------------------------

/// A running server: its address, and the way to stop it.
pub struct Server {
    listener: ListenerThread,
    live: Arc<Live>,
    stopping: tokio::sync::watch::Sender<bool>,
}

/// How a server is started.
#[derive(Clone, Debug, Default)]
pub struct ServerOptions {
    /// Logs clients on without a password (`--trust`): refused unless the listen address is
    /// a loopback address. Otherwise every connection proves its user's password with
    /// SCRAM-SHA-256.
    pub trust: bool,
    /// TLS for the clients that ask for it (`--tls-cert`, `--tls-key`; the cargo feature
    /// `tls`): `tls.rs`.
    pub tls: Option<TlsFiles>,
}

impl Server {
    /// Starts serving `instance` on `listen` (port 0: any free port) in a thread of its own.
    /// Trust mode only on a loopback address.
    pub fn start(
        instance: Arc<Instance>,
        listen: SocketAddr,
        options: ServerOptions,
    ) -> io::Result<Server> {
        if options.trust && !listen.ip().is_loopback() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{listen}: --trust logs clients on without a password, so it is allowed \
                     on a loopback address only (127.0.0.1, ::1); without --trust every \
                     client proves its password with SCRAM-SHA-256"
                ),
            ));
        }
        let authentication = if options.trust {
            auth::ClientAuthentication::Trust
        } else {
            let scram = auth::Scram::new(instance.clone())
                .map_err(|error| io::Error::other(error.to_string()))?;
            auth::ClientAuthentication::Scram(Arc::new(scram))
        };
        let tls = tls::acceptor(options.tls.as_ref())?;
        let mut parameters = DefaultServerParameterProvider::default();
        parameters.server_version = SERVER_VERSION.into();
        let live = Arc::new(Live::default());
        let (stopping, _) = tokio::sync::watch::channel(false);
        let shared = Arc::new(Shared {
            instance,
            authentication,
            driver: AuthDriver::new(parameters),
            live: live.clone(),
            cancels: Arc::new(cancel_keys()),
            stopping: stopping.clone(),
            tls,
        });
        // The listener's thread accepts, and holds sockets until their first byte; each
        // connection then runs on a thread of its own (`spawn_connection`). Stopping it
        // ends the tasks of sockets that have not spoken yet; the connections' threads end
        // on `stopping`.
        let listener =
            ListenerThread::start(listen, "pythia-listener", "pythia serve", move |listener| {
                let cancels = shared.cancels.clone();
                async move {
                    tokio::join!(accept_loop(listener, shared), check_clients(cancels));
                }
            })?;
        Ok(Server {
            listener,
            live,
            stopping,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr
    }

    /// The connections' threads alive now: one per logged-on connection, until its session
    /// has ended.
    pub fn connection_threads(&self) -> usize {
        *self
            .live
            .threads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits (at most `timeout`) until no more than `at_most` connections' threads are
    /// alive, and returns how many are then. A connection's thread ends a moment after its
    /// client sees the end (a refused logon's error, a closed socket): tests wait here for
    /// that instead of reading [`Server::connection_threads`] at once.
    pub fn wait_for_connection_threads(&self, at_most: usize, timeout: Duration) -> usize {
        self.live.wait_until_at_most(at_most, timeout)
    }

    /// Connections ended by a panic on their thread since the server started (each ended
    /// alone; a panic is a bug, which the fuzz test looks for).
    pub fn connection_panics(&self) -> u64 {
        self.live.panics.load(Ordering::Relaxed)
    }

    /// Stops accepting, closes every connection, and waits (at most
    /// [`CONNECTION_DRAIN_TIMEOUT`]) for their threads to finish the statement they run and
    /// roll back what they had open: the instance can then shut down. Returns the threads
    /// still running after the wait (0 normally).
    pub fn stop(mut self) -> usize {
        self.shut()
    }

    fn shut(&mut self) -> usize {
        self.stopping.send_replace(true);
        self.listener.stop();
        self.live.wait_until_at_most(0, CONNECTION_DRAIN_TIMEOUT)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shut();
    }
}

/// A TCP listener served by a thread of its own on a current-thread tokio runtime until
/// stopped: the server's, and the metrics endpoint's.
pub(crate) struct ListenerThread {
    pub(crate) local_addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ListenerThread {
    /// Binds `listen` (port 0: any free port) and runs `serve` on the listener, in a
    /// thread named `name`, until `stop`; `label` starts the message of a listener that
    /// cannot be registered with the runtime.
    pub(crate) fn start<Serve, Served>(
        listen: SocketAddr,
        name: &str,
        label: &'static str,
        serve: Serve,
    ) -> io::Result<ListenerThread>
    where
        Serve: FnOnce(tokio::net::TcpListener) -> Served + Send + 'static,
        Served: std::future::Future<Output = ()>,
    {
        let listener = std::net::TcpListener::bind(listen)?;
        listener.set_nonblocking(true)?;
        let local_addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => listener,
                        Err(error) => {
                            eprintln!("{label}: {error}");
                            return;
                        }
                    };
                    tokio::select! {
                        _ = serve(listener) => {}
                        _ = stopped => {}
                    }
                });
                // Dropping the runtime ends the tasks it still runs.
            })?;
        Ok(ListenerThread {
            local_addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stops accepting and waits for the thread (again: nothing).
    pub(crate) fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Blocks until the process gets SIGINT (Ctrl-C) or SIGTERM.
pub fn wait_for_interrupt() -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    runtime.block_on(async {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            interrupted = tokio::signal::ctrl_c() => interrupted,
            _ = terminate.recv() => Ok(()),
        }
    })
}

/// How long a socket may stay silent after it connects before it is closed: until its
/// client sends its first byte it costs a task of the listener, not a thread.
pub const FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(60);

/// Connection threads beyond `processes` that may be logging on at once; more connections
/// wait for one to end (at most `FIRST_BYTE_TIMEOUT`) before they are closed.
pub const LOGON_THREADS_SPARE: usize = 16;

async fn accept_loop(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    let connections = AtomicU64::new(0);
    let processes = shared
        .instance
        .parameters()
        .get_integer(pythia::parameters::names::PROCESSES)
        .max(1) as usize;
    let threads = Arc::new(tokio::sync::Semaphore::new(processes + LOGON_THREADS_SPARE));
    loop {
        let (socket, _peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of descriptors and the like: this connection is lost, not the server.
                eprintln!("pythia serve: accept: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let number = connections.fetch_add(1, Ordering::Relaxed) + 1;
        let shared = shared.clone();
        let threads = threads.clone();
        tokio::spawn(async move {
            let started = async {
                // The first byte (peeked, left for the protocol); none, the client left.
                let first = socket.peek(&mut [0u8; 1]).await.ok()?;
                if first == 0 {
                    return None;
                }
                threads.acquire_owned().await.ok()
            };
            let Ok(Some(permit)) = tokio::time::timeout(FIRST_BYTE_TIMEOUT, started).await else {
                return; // silent, or no thread came free: closed
            };
            let Ok(socket) = socket.into_std() else {
                return;
            };
            if let Err(error) = spawn_connection(socket, shared, number, permit) {
                eprintln!("pythia serve: no thread for connection {number}: {error}");
            }
        });
    }
}

/// Starts connection `number`'s thread: Oracle's dedicated server, which reads its
/// client's socket, runs its session and answers, all on one thread with a runtime of its
/// own. The thread ends when the connection does (or the server stops); the session's
/// open transaction rolls back with it.
fn spawn_connection(
    socket: std::net::TcpStream,
    shared: Arc<Shared>,
    number: u64,
    permit: tokio::sync::OwnedSemaphorePermit,
) -> io::Result<()> {
    *shared
        .live
        .threads
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) += 1;
    let counted = LiveThread(shared.live.clone());
    let mut stopping = shared.stopping.subscribe();
    std::thread::Builder::new()
        .name(format!("pythia-conn-{number}"))
        .spawn(move || {
            let _counted = counted;
            let _permit = permit;
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .enable_time()
                .build()
            {
                Ok(runtime) => runtime,
                Err(error) => {
                    eprintln!("pythia serve: connection {number}: {error}");
                    return;
                }
            };
            let live = shared.live.clone();
            let served = std::panic::catch_unwind(AssertUnwindSafe(|| {
                runtime.block_on(async move {
                    // A second handle on the socket, to look at it while a statement runs.
                    let probe = socket.try_clone().ok().map(Arc::new);
                    let Ok(socket) = tokio::net::TcpStream::from_std(socket) else {
                        return;
                    };
                    let tls = tls::for_connection(&shared.tls);
                    let handlers = Handlers {
                        shared,
                        number,
                        backend: Arc::default(),
                        cancel_registration: Arc::default(),
                        copy_buffer: Arc::default(),
                        socket: probe,
                    };
                    tokio::select! {
                        // A connection's error ends that connection only.
                        _ = pgwire::tokio::process_socket(socket, tls, handlers) => {}
                        _ = stopping.wait_for(|stop| *stop) => {}
                    }
                })
            }));
            if served.is_err() {
                // The connection (and its session, rolled back) ended; nothing else did.
                live.panics.fetch_add(1, Ordering::Relaxed);
                eprintln!("pythia serve: connection {number} ended by an internal error");
            }
            // The session was dropped with the connection's handlers, on this thread: an
            // open transaction rolled back.
            end_client_wait();
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes sent via SQL*Net to client` counts a query's answer as PostgreSQL frames it:
    /// its DataRows and the CommandComplete `SELECT n`, measured without formatting the tag.
    #[test]
    fn a_query_answer_counts_its_tag_as_framed() {
        for count in [0usize, 1, 9, 10, 99, 100, 12_345] {
            let row = || DataRow::new(bytes::BytesMut::from(&b"abc"[..]), 1);
            let outcome = Ok(Outcome::Rows {
                fields: Arc::new(Vec::new()),
                rows: (0..count).map(|_| row()).collect(),
                tag: "SELECT",
            });
            let tag = format!("SELECT {count}");
            let framed = count as u64 * (MESSAGE_HEADER_BYTES + 2 + 3)
                + MESSAGE_HEADER_BYTES
                + tag.len() as u64
                + 1;
            assert_eq!(answer_bytes(&outcome), framed, "{count} rows");
        }
    }

    #[test]
    fn transaction_control_is_read_as_postgresql_clients_mean_it() {
        assert_eq!(control("begin"), Control::Begin);
        assert_eq!(control("BEGIN TRANSACTION"), Control::Begin);
        assert_eq!(
            control("start transaction isolation level read committed"),
            Control::Begin
        );
        assert_eq!(control("begin null; end"), Control::Statement);
        assert_eq!(control("end"), Control::End("commit"));
        assert_eq!(control("commit write nowait"), Control::End(""));
        assert_eq!(control("rollback"), Control::End("rollback"));
        assert_eq!(control("abort"), Control::End("rollback"));
        assert_eq!(control("rollback to savepoint a"), Control::Statement);
        assert_eq!(control("rollback work to a"), Control::Statement);
        assert_eq!(
            control("rollback transaction to savepoint a"),
            Control::Statement
        );
        assert_eq!(control("rollback /* x */ to a"), Control::Statement);
        assert_eq!(
            control("begin isolation level serializable"),
            Control::Begin
        );
        assert_eq!(control("begin read only"), Control::Begin);
        assert_eq!(control("end transaction"), Control::End("commit"));
        assert_eq!(control("select 1 from dual"), Control::Statement);
    }

    #[test]
    fn command_tags_are_postgresqls() {
        let tag = |sql: &str, rows| command_tag(sql, rows);
        assert_eq!(tag("begin p(1); end;", 0), Tag::new("DO"));
        assert_eq!(tag("DECLARE n NUMBER; BEGIN NULL; END;", 0), Tag::new("DO"));
        assert_eq!(
            tag("insert into t values (1)", 1),
            Tag::new("INSERT").with_oid(0).with_rows(1)
        );
        assert_eq!(
            tag("update t set a = 1", 3),
            Tag::new("UPDATE").with_rows(3)
        );
        assert_eq!(
            tag("create table t (a number)", 0),
            Tag::new("CREATE TABLE")
        );
        assert_eq!(
            tag("create unique index i on t (a)", 0),
            Tag::new("CREATE INDEX")
        );
        assert_eq!(
            tag("create or replace view v as select 1 from dual", 0),
            Tag::new("CREATE VIEW")
        );
        // The text on the wire (pgwire's CommandComplete, patched to build it without
        // `format!`).
        let text = |sql: &str, rows| CommandComplete::from(command_tag(sql, rows)).tag;
        assert_eq!(text("INSERT into t values (1)", 1), "INSERT 0 1");
        assert_eq!(text("delete from t", 0), "DELETE 0");
        assert_eq!(text("select * from t", 12_345), "SELECT 12345");
        assert_eq!(
            text("merge into t using s on (1 = 1)", u64::MAX),
            format!("MERGE {}", usize::MAX)
        );
        assert_eq!(text("drop  table t", 0), "DROP TABLE");
        assert_eq!(text("lock table t in exclusive mode", 0), "LOCK");
    }
}
