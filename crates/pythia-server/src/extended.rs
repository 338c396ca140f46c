//! PostgreSQL's extended query protocol: Parse, Bind, Describe, Execute, Close, Sync.
//!
//! ```text
//!   Parse    the text split by the engine's lexer (one statement, or none) -> Session::prepare:
//!            a parent cursor in the library cache, held by the named or unnamed statement
//!   Describe Session::describe_prepared, once per statement and kept with it: the bind
//!            types (ParameterDescription) and a query's columns (RowDescription, else NoData)
//!   Bind     the parameters, decoded by the client's types, else the described ones, else text
//!   Execute  Session::execute_prepared on the connection's thread; rows encoded in the
//!            portal's formats; a row limit suspends the portal (pgwire keeps its rows)
//!   Sync     ends the implicit transaction, as PostgreSQL does: outside BEGIN the work
//!            since the last Sync commits, or rolls back if any of it failed
//! ```
//!
//! Transaction control (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`) parses without a cursor and
//! executes as in a simple query. Parameters are positional (`$1`); a statement parsed under
//! CURSOR_SHARING=FORCE keeps its own system binds and takes none from the client.

use std::fmt::Debug;
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use futures::StreamExt;
use futures::{stream, Sink, SinkExt};
use pgwire::api::copy::{send_copy_in_response, send_copy_out_response};
use pgwire::api::portal::{Format, Portal, PortalExecutionState};
use pgwire::api::query::ExtendedQueryHandler;
use pgwire::api::results::{FieldInfo, QueryResponse, Response, Tag};
use pgwire::api::stmt::{QueryParser, StoredStatement};
use pgwire::api::store::Entry;
use pgwire::api::store::PortalStore;
use pgwire::api::Type;
use pgwire::api::{ClientInfo, ClientPortalStore, PgWireConnectionState, DEFAULT_NAME};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::data::{NoData, ParameterDescription, RowDescription};
use pgwire::messages::extendedquery::{
    Bind, BindComplete, Execute, Parse, ParseComplete, PortalSuspended,
};
use pgwire::messages::extendedquery::{
    Describe, Sync as SyncMessage, TARGET_TYPE_BYTE_PORTAL, TARGET_TYPE_BYTE_STATEMENT,
};
use pgwire::messages::response::EmptyQueryResponse;
use pgwire::messages::response::ReadyForQuery;
use pgwire::messages::{Message, PgWireBackendMessage};
use pythia::{Prepared, Value};

use crate::copy::CopyStatement;
use crate::wire;
use crate::READY_FOR_QUERY_BYTES;
use crate::{control, error_info, split_statements, Backend, Control, Handlers, Outcome};

/// A statement the extended protocol parsed: what it runs, and what describing it told.
#[derive(Clone)]
pub(crate) struct Parsed(Arc<ParsedStatement>);

pub(crate) struct ParsedStatement {
    /// The Parse message's whole text, for error positions.
    message: String,
    /// Where the statement starts in `message`, and the statement itself.
    offset: usize,
    pub(crate) text: String,
    pub(crate) kind: Kind,
    /// Filled by the first Describe, and kept while the statement lives.
    described: OnceLock<Described>,
}

pub(crate) enum Kind {
    /// BEGIN, COMMIT, ROLLBACK and their PostgreSQL spellings: no cursor.
    Control(Control),
    /// Everything else: a cursor the session prepared.
    Statement(Prepared),
    /// COPY FROM STDIN or TO STDOUT, which runs when executed (`copy`).
    Copy(CopyStatement),
}

/// A statement's parameters and result columns as announced to the client.
pub(crate) struct Described {
    parameters: Vec<Type>,
    /// None: the statement returns no rows (NoData).
    pub(crate) columns: Option<Vec<(String, Type)>>,
}

impl Parsed {
    pub(crate) fn statement(&self) -> &ParsedStatement {
        &self.0
    }

    /// The result columns a Describe announced (None before any, or for no rows).
    pub(crate) fn columns(&self) -> Option<&[(String, Type)]> {
        self.0.described.get()?.columns.as_deref()
    }
}

/// Parse: one statement's text into a cursor, on the connection's thread.
pub(crate) struct Parser {
    pub(crate) backend: Arc<OnceLock<Arc<Backend>>>,
}

fn user_error(info: ErrorInfo) -> PgWireError {
    PgWireError::UserError(Box::new(info))
}

#[async_trait]
impl QueryParser for Parser {
    type Statement = Parsed;

    async fn parse_sql<C>(
        &self,
        _client: &C,
        sql: &str,
        _types: &[Option<Type>],
    ) -> PgWireResult<Option<Parsed>>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        let backend = self.backend.get().ok_or(PgWireError::NotReadyForQuery)?;
        let mut statements = split_statements(sql)
            .map_err(|error| user_error(error_info(&error, sql, 0, "ERROR")))?;
        if statements.len() > 1 {
            return Err(user_error(ErrorInfo::new(
                "ERROR".into(),
                "42601".into(),
                "ORA-00933: SQL command not properly ended: cannot insert multiple commands \
                 into a prepared statement"
                    .into(),
            )));
        }
        let Some((offset, text)) = statements.pop() else {
            return Ok(None); // only comments: an empty query
        };
        let kind = match (crate::copy::parse(&text), control(&text)) {
            (Some(copy), _) => Kind::Copy(
                copy.map_err(|error| user_error(error_info(&error, sql, offset, "ERROR")))?,
            ),
            (None, Control::Statement) => {
                let to_prepare = text.clone();
                let prepared = backend
                    .run(move |connection| connection.session()?.prepare(&to_prepare))
                    .await?
                    .map_err(|error| user_error(error_info(&error, sql, offset, "ERROR")))?;
                Kind::Statement(prepared)
            }
            (None, other) => Kind::Control(other),
        };
        Ok(Some(Parsed(Arc::new(ParsedStatement {
            message: sql.to_string(),
            offset,
            text,
            kind,
            described: OnceLock::new(),
        }))))
    }

    /// What a Describe told, once one was answered (`Handlers::on_describe` describes through
    /// the engine; pgwire's own describing, which calls these, is not used).
    fn get_parameter_types(&self, statement: &Parsed) -> PgWireResult<Vec<Type>> {
        Ok(statement
            .0
            .described
            .get()
            .map(|described| described.parameters.clone())
            .unwrap_or_default())
    }

    fn get_result_schema(
        &self,
        statement: &Parsed,
        format: Option<&Format>,
    ) -> PgWireResult<Vec<FieldInfo>> {
        let columns = statement
            .0
            .described
            .get()
            .and_then(|described| described.columns.as_deref());
        Ok(columns.map_or_else(Vec::new, |columns| {
            wire::fields(columns, format.unwrap_or(&Format::UnifiedText)).to_vec()
        }))
    }
}

/// ParseComplete and BindComplete: a message's type and length, nothing else.
const PARSE_OR_BIND_COMPLETE_BYTES: u64 = 5;
/// A Sync from the client.
const SYNC_BYTES: u64 = 5;

impl Handlers {
    /// Notes a message's traffic for the session's statistics (counted at the next Sync):
    /// the message received, and `answer_bytes` sent for it.
    fn note_traffic(&self, message: &impl Message, answer_bytes: u64) {
        if let Some(backend) = self.backend.get() {
            backend.note_traffic(message.message_length() as u64 + 1, answer_bytes);
        }
    }

    /// What `parsed` takes and gives, described once by the engine and kept.
    async fn describe<'p>(&self, parsed: &'p Parsed) -> PgWireResult<&'p Described> {
        if let Some(described) = parsed.0.described.get() {
            return Ok(described);
        }
        let described = match &parsed.0.kind {
            Kind::Control(_) | Kind::Copy(_) => Described {
                parameters: Vec::new(),
                columns: None,
            },
            Kind::Statement(prepared) => {
                let prepared = prepared.clone();
                let description = self
                    .backend()?
                    .run(move |connection| connection.session()?.describe_prepared(&prepared))
                    .await?
                    .map_err(|error| {
                        user_error(error_info(
                            &error,
                            &parsed.0.message,
                            parsed.0.offset,
                            "ERROR",
                        ))
                    })?;
                Described {
                    parameters: description
                        .binds
                        .iter()
                        .map(|data_type| wire::wire_type(data_type.as_ref()))
                        .collect(),
                    columns: description.columns.as_deref().map(wire::described),
                }
            }
        };
        Ok(parsed.0.described.get_or_init(|| described))
    }

    /// The types a portal's parameters are decoded by: the client's where it gave one, else
    /// the described ones.
    fn parameter_types(statement: &StoredStatement<Parsed>) -> Vec<Option<Type>> {
        let described = statement
            .statement
            .0
            .described
            .get()
            .map(|described| described.parameters.as_slice())
            .unwrap_or_default();
        (0..statement.parameter_types.len().max(described.len()))
            .map(|index| {
                statement
                    .parameter_types
                    .get(index)
                    .cloned()
                    .flatten()
                    .or_else(|| described.get(index).cloned())
            })
            .collect()
    }
}

#[async_trait]
impl ExtendedQueryHandler for Handlers {
    type Statement = Parsed;
    type QueryParser = Parser;

    fn query_parser(&self) -> Arc<Parser> {
        Arc::new(Parser {
            backend: self.backend.clone(),
        })
    }

    /// Overridden to buffer ParseComplete rather than flush it (pgwire's default sends it at
    /// once): the answers to Parse, Bind, Describe and Execute leave in one write at Sync
    /// (or Flush), as PostgreSQL sends them, not one TCP segment each.
    async fn on_parse<C>(&self, client: &mut C, message: Parse) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Parsed>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        self.note_traffic(&message, PARSE_OR_BIND_COMPLETE_BYTES);
        let name = message.name.as_deref().unwrap_or(DEFAULT_NAME).to_owned();
        match StoredStatement::parse(client, &message, self.query_parser()).await? {
            Some(statement) => client.portal_store().put_statement(Arc::new(statement)),
            None => client.portal_store().put_empty_statement(&name),
        }
        client
            .feed(PgWireBackendMessage::ParseComplete(ParseComplete::new()))
            .await?;
        Ok(())
    }

    /// Overridden to buffer BindComplete (see `on_parse`).
    async fn on_bind<C>(&self, client: &mut C, message: Bind) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Parsed>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        self.note_traffic(&message, PARSE_OR_BIND_COMPLETE_BYTES);
        let statement_name = message.statement_name.as_deref().unwrap_or(DEFAULT_NAME);
        let portal_name = message.portal_name.as_deref().unwrap_or(DEFAULT_NAME);
        match client.portal_store().get_statement(statement_name) {
            Some(Entry::Value(statement)) => {
                let portal = Portal::try_new(&message, statement)?;
                client.portal_store().put_portal(Arc::new(portal));
            }
            Some(Entry::Empty) if message.parameters.is_empty() => {
                client.portal_store().put_empty_portal(portal_name);
            }
            Some(Entry::Empty) => {
                return Err(user_error(ErrorInfo::new(
                    "ERROR".into(),
                    "08P01".into(),
                    format!(
                        "ORA-01006: bind variable does not exist: the statement {statement_name:?} \
                         is empty and the Bind gives {} parameters",
                        message.parameters.len()
                    ),
                )))
            }
            None => return Err(PgWireError::StatementNotFound(statement_name.to_owned())),
        }
        client
            .feed(PgWireBackendMessage::BindComplete(BindComplete::new()))
            .await?;
        Ok(())
    }

    /// Overridden to buffer the answer (see `on_parse`): the rows, PortalSuspended or
    /// CommandComplete go out with the ReadyForQuery of the next Sync. A row limit suspends
    /// the portal, whose next Execute goes on where it stopped.
    async fn on_execute<C>(&self, client: &mut C, message: Execute) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Parsed>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if !matches!(client.state(), PgWireConnectionState::ReadyForQuery) {
            return Err(PgWireError::NotReadyForQuery);
        }
        // The answer's bytes are noted where it is made (`do_query`).
        self.note_traffic(&message, 0);
        let portal_name = message.name.as_deref().unwrap_or(DEFAULT_NAME);
        let max_rows = message.max_rows.max(0) as usize;
        let portal = match client.portal_store().get_portal(portal_name) {
            Some(Entry::Value(portal)) => portal,
            Some(Entry::Empty) => {
                client
                    .feed(PgWireBackendMessage::EmptyQueryResponse(
                        EmptyQueryResponse::new(),
                    ))
                    .await?;
                return Ok(());
            }
            None => return Err(PgWireError::PortalNotFound(portal_name.to_owned())),
        };
        client.set_state(PgWireConnectionState::QueryInProgress);
        let started = matches!(
            *portal.state().lock().await,
            PortalExecutionState::Suspended(_) | PortalExecutionState::Finished
        );
        if !started {
            match self.do_query(client, &portal, max_rows).await {
                Ok(Response::Query(rows)) if max_rows == 0 => {
                    // Run to completion, as nearly every Execute asks: the rows go straight
                    // to the client, and the portal is finished (a second Execute of it
                    // gets no rows), without parking them in its suspended state first.
                    *portal.state().lock().await = PortalExecutionState::Finished;
                    client.set_state(PgWireConnectionState::ReadyForQuery);
                    return feed_rows(client, rows, false).await;
                }
                Ok(Response::Query(rows)) => portal.start(rows).await,
                Ok(Response::Execution(tag)) => {
                    client
                        .feed(PgWireBackendMessage::CommandComplete(tag.into()))
                        .await?;
                    client.set_state(PgWireConnectionState::ReadyForQuery);
                    return Ok(());
                }
                Ok(Response::CopyIn(copy)) => {
                    client.set_state(PgWireConnectionState::CopyInProgress(true));
                    return send_copy_in_response(client, copy).await;
                }
                Ok(Response::CopyOut(copy)) => {
                    send_copy_out_response(client, copy).await?;
                    client.set_state(PgWireConnectionState::ReadyForQuery);
                    return Ok(());
                }
                Ok(_) => {
                    client.set_state(PgWireConnectionState::ReadyForQuery);
                    return Err(PgWireError::UserError(Box::new(ErrorInfo::new(
                        "ERROR".into(),
                        "XX000".into(),
                        "ORA-00600: internal error code, arguments: [on_execute: an answer \
                         Pythia does not give]"
                            .into(),
                    ))));
                }
                Err(error) => {
                    client.set_state(PgWireConnectionState::ReadyForQuery);
                    return Err(error);
                }
            }
        }
        let fetched = portal.fetch(max_rows).await;
        client.set_state(PgWireConnectionState::ReadyForQuery);
        let fetched = fetched?;
        feed_rows(client, fetched.response, fetched.suspended).await
    }

    /// Overridden to describe through the engine, on the connection's thread, and to answer
    /// NoData for a statement that returns no rows even when it takes parameters (pgwire's
    /// default sends an empty RowDescription then).
    async fn on_describe<C>(&self, client: &mut C, message: Describe) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Parsed>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let received = message.message_length() as u64 + 1;
        let name = message.name.as_deref().unwrap_or(DEFAULT_NAME);
        let (parameters, fields) = match message.target_type {
            TARGET_TYPE_BYTE_STATEMENT => match client.portal_store().get_statement(name) {
                Some(Entry::Value(statement)) => {
                    let described = self.describe(&statement.statement).await?;
                    let parameters = Self::parameter_types(&statement)
                        .into_iter()
                        .map(|data_type| data_type.unwrap_or(Type::TEXT))
                        .collect();
                    let fields = described
                        .columns
                        .as_deref()
                        .map(|columns| wire::fields(columns, &Format::UnifiedText));
                    (Some(parameters), fields)
                }
                Some(Entry::Empty) => (Some(Vec::new()), None),
                None => return Err(PgWireError::StatementNotFound(name.to_owned())),
            },
            TARGET_TYPE_BYTE_PORTAL => match client.portal_store().get_portal(name) {
                Some(Entry::Value(portal)) => {
                    let described = self.describe(&portal.statement.statement).await?;
                    let fields = described
                        .columns
                        .as_deref()
                        .map(|columns| wire::fields(columns, &portal.result_column_format));
                    (None, fields)
                }
                Some(Entry::Empty) => (None, None),
                None => return Err(PgWireError::PortalNotFound(name.to_owned())),
            },
            other => return Err(PgWireError::InvalidTargetType(other)),
        };
        // ParameterDescription: a count and an oid each; RowDescription, or NoData.
        let sent = parameters
            .as_ref()
            .map_or(0, |parameters| 5 + 2 + 4 * parameters.len() as u64)
            + fields
                .as_deref()
                .map_or(5, |fields| crate::row_description_bytes(fields));
        if let Some(backend) = self.backend.get() {
            backend.note_traffic(received, sent);
        }
        if let Some(parameters) = parameters {
            client
                .feed(PgWireBackendMessage::ParameterDescription(
                    ParameterDescription::new(parameters.iter().map(Type::oid).collect()),
                ))
                .await?;
        }
        let message = match fields {
            Some(fields) => PgWireBackendMessage::RowDescription(RowDescription::new(
                fields.iter().map(Into::into).collect(),
            )),
            None => PgWireBackendMessage::NoData(NoData::new()),
        };
        client.feed(message).await?;
        Ok(())
    }

    async fn do_query<C>(
        &self,
        client: &mut C,
        portal: &Portal<Parsed>,
        _max_rows: usize,
    ) -> PgWireResult<Response>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Parsed>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let parsed = portal.statement.statement.clone();
        if let Kind::Copy(copy) = &parsed.statement().kind {
            return self.copy_response(copy.clone()).await;
        }
        let values: Vec<Value> =
            wire::parameters(portal, &Self::parameter_types(&portal.statement))?;
        let formats = portal.result_column_format.clone();
        let running = parsed.clone();
        let (outcome, notices) = self
            .backend()?
            .run(move |connection| {
                let outcome = connection.execute_parsed(&running, &values, &formats);
                (outcome, connection.take_notices())
            })
            .await?;
        for line in &notices {
            client.feed(crate::notice_response(line)).await?;
        }
        let statement = parsed.statement();
        self.backend()?
            .note_traffic(0, crate::answer_bytes(&outcome));
        match outcome {
            Ok(Outcome::Rows { fields, rows, tag }) => {
                let mut response =
                    QueryResponse::new(fields, stream::iter(rows.into_iter().map(Ok)));
                response.set_command_tag(tag);
                Ok(Response::Query(response))
            }
            Ok(Outcome::Done(tag, notice)) => {
                if let Some(notice) = notice {
                    client.feed(crate::notice_response(&notice)).await?;
                }
                Ok(Response::Execution(tag))
            }
            Err(error) => Err(user_error(error_info(
                &error,
                &statement.message,
                statement.offset,
                "ERROR",
            ))),
        }
    }

    /// Ends the implicit transaction (outside BEGIN: commits the work since the last Sync,
    /// or rolls it back if any of it failed) and reports the session's own status: pgwire
    /// would report a failed transaction after any error.
    async fn on_sync<C>(&self, client: &mut C, _message: SyncMessage) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Parsed>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        client.portal_store().rm_portal(DEFAULT_NAME);
        let succeeded = !self
            .backend
            .get()
            .is_some_and(|backend| backend.take_failed());
        if let Some(backend) = self.backend.get() {
            // The round trip ends here: its traffic goes to the session's statistics, with
            // this Sync and its ReadyForQuery.
            let (received, sent) = backend.take_traffic();
            let implicit_open = backend.implicit_open();
            let ended = backend
                .run(move |connection| {
                    if let Some(session) = &connection.session {
                        session.count_client_traffic(
                            received + SYNC_BYTES,
                            sent + READY_FOR_QUERY_BYTES,
                            1,
                        );
                    }
                    // Work for the session only when an implicit transaction is open to
                    // end: a Sync after a query, or inside BEGIN, has nothing to do.
                    if implicit_open {
                        connection.end_message(succeeded)
                    } else {
                        Ok(())
                    }
                })
                .await?;
            if let (true, Err(error)) = (succeeded, ended) {
                client
                    .feed(PgWireBackendMessage::ErrorResponse(
                        error_info(&error, "", 0, "ERROR").into(),
                    ))
                    .await?;
            }
        }
        client.set_state(PgWireConnectionState::ReadyForQuery);
        let status = self.transaction_status();
        client.set_transaction_status(status);
        client
            .send(PgWireBackendMessage::ReadyForQuery(ReadyForQuery::new(
                status,
            )))
            .await?;
        self.await_client(false);
        Ok(())
    }
}

/// Sends an Execute's rows, then PortalSuspended if the portal has more (`suspended`), else
/// CommandComplete with the count sent.
async fn feed_rows<C>(
    client: &mut C,
    mut response: QueryResponse,
    suspended: bool,
) -> PgWireResult<()>
where
    C: Sink<PgWireBackendMessage> + Unpin,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
{
    let command = response.command_tag().to_owned();
    let mut rows = 0;
    while let Some(row) = response.data_rows().next().await {
        client.feed(PgWireBackendMessage::DataRow(row?)).await?;
        rows += 1;
    }
    let end = if suspended {
        PgWireBackendMessage::PortalSuspended(PortalSuspended::new())
    } else {
        PgWireBackendMessage::CommandComplete(Tag::new(&command).with_rows(rows).into())
    };
    client.feed(end).await?;
    Ok(())
}
