//! `COPY ... FROM STDIN` and `COPY ... TO STDOUT`: PostgreSQL's bulk load and unload, which
//! `pgbench -i` loads its accounts with and psql's `\copy` speaks.
//!
//! ```text
//!   COPY t [(c, ...)] FROM STDIN [WITH (FORMAT text|csv, DELIMITER 'x', NULL 'x', HEADER, ...)]
//!     Query ──> CopyInResponse                 one prepared INSERT of the columns, a
//!     CopyData* (any chunks of the rows) ──>   savepoint before the first row; rows
//!                                              parsed as whole lines arrive, each field
//!                                              decoded by its column's type, inserted
//!     CopyDone ──> CommandComplete "COPY n"    (outside BEGIN: committed)
//!     CopyFail, or a bad row ──> ErrorResponse  every row of the COPY undone (rollback to the
//!                                               savepoint; outside BEGIN: rolled back)
//!
//!   COPY t [(c, ...)] | (query) TO STDOUT [WITH (...)]
//!     Query ──> CopyOutResponse, CopyData (a row each), CopyDone, CommandComplete "COPY n"
//! ```
//!
//! The text format is PostgreSQL's: fields split by the delimiter (a tab), `\N` for NULL,
//! backslash escapes (`\t`, `\n`, `\\`, `\r`, octal `\ooo`, hex `\xhh`, ...), a line `\.`
//! ends the data. CSV: fields split by the delimiter (a comma), quoted with `"` (doubled to
//! escape it), an unquoted empty field is NULL, a HEADER line is skipped on input and
//! written on output. A COPY is the only statement of its message (PostgreSQL runs it in
//! the middle of one; Pythia refuses, 0A000). Rows are bounded by `COPY_LINE_BYTES_MAX`.

use std::fmt::Debug;

use async_trait::async_trait;
use bytes::Bytes;
use futures::{stream, Sink, SinkExt};
use pgwire::api::copy::CopyHandler;
use pgwire::api::query::send_execution_response;
use pgwire::api::results::{CopyResponse, Response, Tag};
use pgwire::api::{ClientInfo, PgWireConnectionState, Type};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::copy::{CopyData, CopyDone, CopyFail, CopyInResponse, CopyOutResponse};
use pgwire::messages::PgWireBackendMessage;
use pythia::syntax::lexer::{tokenize, Token, TokenKind};
use pythia::{Prepared, Value};

use crate::wire::{decode, wire_type};
use crate::{error_info, error_response, Connection, Handlers};

/// The longest line (one row) a COPY takes: past it the COPY fails, as a line that never
/// ends would otherwise be held whole.
pub const COPY_LINE_BYTES_MAX: usize = 16 << 20;

/// A parsed COPY statement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CopyStatement {
    pub(crate) source: Source,
    pub(crate) direction: Direction,
    pub(crate) options: Options,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Source {
    /// A table, as written (its name may be qualified or quoted), and the columns named
    /// (empty: all of them, in order).
    Table { name: String, columns: Vec<String> },
    /// `COPY (query) TO STDOUT`: the query's text.
    Query(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    FromStdin,
    ToStdout,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Options {
    pub(crate) csv: bool,
    pub(crate) delimiter: u8,
    /// The text that stands for NULL.
    pub(crate) null: String,
    pub(crate) header: bool,
    pub(crate) quote: u8,
    pub(crate) escape: u8,
}

impl Options {
    fn text() -> Options {
        Options {
            csv: false,
            delimiter: b'\t',
            null: "\\N".to_string(),
            header: false,
            quote: b'"',
            escape: b'"',
        }
    }

    fn csv(&mut self) {
        self.csv = true;
        self.delimiter = b',';
        self.null = String::new();
    }
}

/// ORA-03001 for a COPY option or form Pythia does not take; ORA-00933 for text that is not
/// a COPY statement at all.
fn unsupported(what: &str) -> pythia::Error {
    pythia::Error::new(3001, format!("unimplemented feature: COPY {what}"))
}

fn malformed(what: &str) -> pythia::Error {
    pythia::Error::new(933, format!("SQL command not properly ended: COPY {what}"))
}

/// The COPY statement `sql` is, None if it is not one.
pub(crate) fn parse(sql: &str) -> Option<pythia::Result<CopyStatement>> {
    if pythia::syntax::lexer::begins_with_none_of(sql, &["COPY"]) {
        return None;
    }
    let tokens = tokenize(sql).ok()?;
    let word = |token: Option<&Token>| match token.map(|token| &token.kind) {
        Some(TokenKind::Word(word)) => word.to_ascii_uppercase(),
        _ => String::new(),
    };
    if word(tokens.first()) != "COPY" {
        return None;
    }
    Some(parse_tokens(sql, &tokens, &word))
}

fn parse_tokens(
    sql: &str,
    tokens: &[Token],
    word: &dyn Fn(Option<&Token>) -> String,
) -> pythia::Result<CopyStatement> {
    let mut index = 1;
    let text_of = |from: usize, to: usize| sql[tokens[from].start..tokens[to - 1].end].to_string();
    let source = if matches!(
        tokens.get(index).map(|t| &t.kind),
        Some(TokenKind::LeftParen)
    ) {
        let close = matching_paren(tokens, index).ok_or_else(|| malformed("query"))?;
        let query = text_of(index + 1, close);
        index = close + 1;
        Source::Query(query)
    } else {
        // The table's name: words and dots, as written.
        let start = index;
        while matches!(
            tokens.get(index).map(|t| &t.kind),
            Some(TokenKind::Word(_) | TokenKind::QuotedIdentifier(_) | TokenKind::Period)
        ) && !(index > start && ["FROM", "TO"].contains(&word(tokens.get(index)).as_str()))
        {
            index += 1;
        }
        if index == start {
            return Err(malformed("without a table"));
        }
        let name = text_of(start, index);
        let mut columns = Vec::new();
        if matches!(
            tokens.get(index).map(|t| &t.kind),
            Some(TokenKind::LeftParen)
        ) {
            let close = matching_paren(tokens, index).ok_or_else(|| malformed("columns"))?;
            for part in tokens[index + 1..close].split(|t| t.kind == TokenKind::Comma) {
                if part.is_empty() {
                    return Err(malformed("columns"));
                }
                columns.push(sql[part[0].start..part[part.len() - 1].end].to_string());
            }
            index = close + 1;
        }
        Source::Table { name, columns }
    };
    let direction = match (
        word(tokens.get(index)).as_str(),
        word(tokens.get(index + 1)).as_str(),
    ) {
        ("FROM", "STDIN") => Direction::FromStdin,
        ("TO", "STDOUT") => Direction::ToStdout,
        ("FROM" | "TO", _) => {
            return Err(unsupported(
                "with a file or program (only FROM STDIN and TO STDOUT: the client's side)",
            ))
        }
        _ => return Err(malformed("without FROM STDIN or TO STDOUT")),
    };
    if matches!(source, Source::Query(_)) && direction == Direction::FromStdin {
        return Err(malformed("FROM STDIN into a query"));
    }
    index += 2;
    let mut options = Options::text();
    if word(tokens.get(index)) == "WITH" {
        index += 1;
    }
    if matches!(
        tokens.get(index).map(|t| &t.kind),
        Some(TokenKind::LeftParen)
    ) {
        let close = matching_paren(tokens, index).ok_or_else(|| malformed("options"))?;
        for part in tokens[index + 1..close].split(|t| t.kind == TokenKind::Comma) {
            let name = word(part.first());
            let value = part.get(1).map(|token| match &token.kind {
                TokenKind::String(text) => text.clone(),
                TokenKind::Word(word) => word.to_ascii_lowercase(),
                TokenKind::QuotedIdentifier(word) => word.clone(),
                _ => sql[token.start..token.end].to_string(),
            });
            option(&mut options, &name, value.as_deref())?;
        }
        index = close + 1;
    } else {
        // The old form: WITH CSV HEADER, DELIMITER 'x', NULL 'x'.
        while index < tokens.len() {
            let name = word(tokens.get(index));
            let takes_value = ["DELIMITER", "NULL", "QUOTE", "ESCAPE"].contains(&name.as_str());
            let value = if takes_value {
                index += 1;
                match tokens.get(index).map(|t| &t.kind) {
                    Some(TokenKind::String(text)) => Some(text.clone()),
                    _ => return Err(malformed(&format!("{name} without a string"))),
                }
            } else {
                None
            };
            let name = if name == "BINARY" {
                "FORMAT".to_string()
            } else {
                name
            };
            let value = if name == "FORMAT" {
                Some("binary".to_string())
            } else {
                value
            };
            option(&mut options, &name, value.as_deref().or(Some("true")))?;
            index += 1;
        }
    }
    if index < tokens.len() {
        return Err(malformed("with text after its options"));
    }
    Ok(CopyStatement {
        source,
        direction,
        options,
    })
}

fn matching_paren(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (index, token) in tokens.iter().enumerate().skip(open) {
        match token.kind {
            TokenKind::LeftParen => depth += 1,
            TokenKind::RightParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

fn single_byte(name: &str, value: Option<&str>) -> pythia::Result<u8> {
    match value.map(str::as_bytes) {
        Some([byte]) if byte.is_ascii() => Ok(*byte),
        _ => Err(unsupported(&format!(
            "{name} other than one ASCII character"
        ))),
    }
}

fn option(options: &mut Options, name: &str, value: Option<&str>) -> pythia::Result<()> {
    let yes = |value: Option<&str>| {
        !matches!(
            value.map(str::to_ascii_lowercase).as_deref(),
            Some("false" | "off" | "0")
        )
    };
    match name {
        "FORMAT" | "CSV" => match value.map(str::to_ascii_lowercase).as_deref() {
            Some("csv" | "true") => options.csv(),
            Some("text") => {}
            Some(other) => return Err(unsupported(&format!("FORMAT {other}"))),
            None => return Err(malformed("FORMAT without a value")),
        },
        "DELIMITER" => options.delimiter = single_byte(name, value)?,
        "NULL" => options.null = value.unwrap_or_default().to_string(),
        "HEADER" => options.header = yes(value),
        "QUOTE" => options.quote = single_byte(name, value)?,
        "ESCAPE" => options.escape = single_byte(name, value)?,
        // Nothing to do here: every load is logged, and Pythia's text is UTF8.
        "FREEZE" => {}
        "ENCODING" if value.is_some_and(|value| value.eq_ignore_ascii_case("utf8")) => {}
        other => return Err(unsupported(&format!("option {other}"))),
    }
    Ok(())
}

/// Splits the complete records off the front of `pending` (the bytes received so far):
/// returns them and leaves the incomplete tail in `pending`.
pub(crate) fn take_records(
    pending: &mut Vec<u8>,
    options: &Options,
) -> pythia::Result<Vec<Vec<u8>>> {
    let mut records = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (index, &byte) in pending.iter().enumerate() {
        if options.csv && byte == options.quote {
            // An escaped quote inside quotes toggles twice: still quoted.
            quoted = !quoted;
        } else if byte == b'\n' && !quoted {
            let mut record = &pending[start..index];
            if let [head @ .., b'\r'] = record {
                record = head;
            }
            records.push(record.to_vec());
            start = index + 1;
        }
    }
    pending.drain(..start);
    if pending.len() > COPY_LINE_BYTES_MAX {
        return Err(pythia::Error::new(
            3001,
            format!("unimplemented feature: a COPY line longer than {COPY_LINE_BYTES_MAX} bytes"),
        ));
    }
    Ok(records)
}

/// Whether `record` is the text format's end-of-data line.
pub(crate) fn is_end_marker(record: &[u8], options: &Options) -> bool {
    !options.csv && record == b"\\."
}

/// A record's fields, None for NULL.
pub(crate) fn fields(record: &[u8], options: &Options) -> pythia::Result<Vec<Option<Vec<u8>>>> {
    if options.csv {
        csv_fields(record, options)
    } else {
        record
            .split(|byte| *byte == options.delimiter)
            .map(|field| {
                if field == options.null.as_bytes() {
                    Ok(None)
                } else {
                    unescape(field).map(Some)
                }
            })
            .collect()
    }
}

fn bad_line(what: &str) -> pythia::Error {
    pythia::Error::new(
        1722,
        format!("invalid number or value in COPY data: {what}"),
    )
}

/// The text format's backslash escapes.
fn unescape(field: &[u8]) -> pythia::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(field.len());
    let mut bytes = field.iter().copied().peekable();
    while let Some(byte) = bytes.next() {
        if byte != b'\\' {
            out.push(byte);
            continue;
        }
        let Some(next) = bytes.next() else {
            return Err(bad_line("a backslash at the end of a field"));
        };
        match next {
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let mut value = u32::from(next - b'0');
                for _ in 0..2 {
                    match bytes.peek() {
                        Some(&digit @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(digit - b'0');
                            bytes.next();
                        }
                        _ => break,
                    }
                }
                out.push(value as u8);
            }
            b'x' => {
                let mut value = 0u32;
                let mut digits = 0;
                while digits < 2 {
                    match bytes.peek().and_then(|digit| (*digit as char).to_digit(16)) {
                        Some(digit) => {
                            value = value * 16 + digit;
                            bytes.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push(b'x');
                } else {
                    out.push(value as u8);
                }
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

fn csv_fields(record: &[u8], options: &Options) -> pythia::Result<Vec<Option<Vec<u8>>>> {
    let mut fields = Vec::new();
    let mut field = Vec::new();
    let mut quoted_field = false;
    let mut in_quotes = false;
    let mut index = 0;
    while index < record.len() {
        let byte = record[index];
        if in_quotes {
            if byte == options.escape
                && options.escape != options.quote
                && record.get(index + 1) == Some(&options.quote)
            {
                field.push(options.quote);
                index += 1;
            } else if byte == options.quote {
                if record.get(index + 1) == Some(&options.quote) && options.escape == options.quote
                {
                    field.push(options.quote);
                    index += 1;
                } else {
                    in_quotes = false;
                }
            } else {
                field.push(byte);
            }
        } else if byte == options.quote {
            in_quotes = true;
            quoted_field = true;
        } else if byte == options.delimiter {
            fields.push(csv_value(std::mem::take(&mut field), quoted_field, options));
            quoted_field = false;
        } else {
            field.push(byte);
        }
        index += 1;
    }
    if in_quotes {
        return Err(bad_line("an unterminated CSV quoted field"));
    }
    fields.push(csv_value(field, quoted_field, options));
    Ok(fields)
}

fn csv_value(field: Vec<u8>, quoted: bool, options: &Options) -> Option<Vec<u8>> {
    (quoted || field != options.null.as_bytes()).then_some(field)
}

/// One row as a line of the format: fields from `text` (None: NULL).
pub(crate) fn format_row(row: &[Option<String>], options: &Options) -> Vec<u8> {
    let mut line = Vec::new();
    for (index, value) in row.iter().enumerate() {
        if index > 0 {
            line.push(options.delimiter);
        }
        match value {
            None => line.extend_from_slice(options.null.as_bytes()),
            Some(text) if options.csv => {
                let needs_quotes = text.is_empty()
                    || text.bytes().any(|byte| {
                        byte == options.delimiter
                            || byte == options.quote
                            || byte == b'\n'
                            || byte == b'\r'
                    });
                if needs_quotes {
                    line.push(options.quote);
                    for byte in text.bytes() {
                        if byte == options.quote {
                            line.push(options.escape);
                        }
                        line.push(byte);
                    }
                    line.push(options.quote);
                } else {
                    line.extend_from_slice(text.as_bytes());
                }
            }
            Some(text) => {
                for byte in text.bytes() {
                    match byte {
                        b'\\' => line.extend_from_slice(b"\\\\"),
                        b'\n' => line.extend_from_slice(b"\\n"),
                        b'\r' => line.extend_from_slice(b"\\r"),
                        b'\t' => line.extend_from_slice(b"\\t"),
                        byte if byte == options.delimiter => {
                            line.push(b'\\');
                            line.push(byte);
                        }
                        byte => line.push(byte),
                    }
                }
            }
        }
    }
    line.push(b'\n');
    line
}

// ----- on the connection's thread ---------------------------------------------------------

/// A `COPY ... FROM STDIN` in progress on a connection's thread.
pub(crate) struct CopyIn {
    options: Options,
    /// `INSERT INTO table (columns) VALUES ($1, ...)`, prepared once.
    insert: Prepared,
    /// Each column's type, which its fields are decoded by.
    types: Vec<Type>,
    /// Bytes received after the last complete line.
    pending: Vec<u8>,
    /// Lines read (for errors, 1-based as PostgreSQL counts them), rows inserted.
    lines: u64,
    rows: u64,
    /// The text format's `\.` was read: what follows is ignored.
    ended: bool,
    /// The first failure: the rest of the data is read and ignored, and CopyDone reports it.
    failure: Option<pythia::Error>,
}

/// The savepoint a COPY's rows are undone to when one of them fails.
const COPY_SAVEPOINT: &str = "PYTHIA_COPY";

/// A column name for SQL, quoted as the dictionary keeps it.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

impl Connection {
    /// Starts a `COPY ... FROM STDIN`: the INSERT its rows go through, and a savepoint to
    /// undo them to. Returns the number of columns, for the CopyInResponse.
    pub(crate) fn copy_in_start(&mut self, statement: CopyStatement) -> pythia::Result<usize> {
        let Source::Table { name, columns } = statement.source else {
            return Err(malformed("FROM STDIN into a query"));
        };
        let session = self.session()?;
        let columns = if columns.is_empty() {
            let bare = name.rsplit('.').next().unwrap_or(&name).trim_matches('"');
            session
                .describe(bare)?
                .iter()
                .map(|column| quoted(&column.name))
                .collect()
        } else {
            columns
        };
        let binds: Vec<String> = (1..=columns.len()).map(|n| format!("${n}")).collect();
        let insert = session.prepare(&format!(
            "insert into {name} ({}) values ({})",
            columns.join(", "),
            binds.join(", ")
        ))?;
        let types = session
            .describe_prepared(&insert)?
            .binds
            .iter()
            .map(|data_type| wire_type(data_type.as_ref()))
            .collect();
        session.execute(&format!("savepoint {COPY_SAVEPOINT}"))?;
        self.copy_in = Some(CopyIn {
            options: statement.options,
            insert,
            types,
            pending: Vec::new(),
            lines: 0,
            rows: 0,
            ended: false,
            failure: None,
        });
        Ok(columns.len())
    }

    /// Inserts the complete lines of what arrived (`data`, any part of the stream).
    pub(crate) fn copy_in_data(&mut self, data: &[u8]) {
        let Some(mut copy) = self.copy_in.take() else {
            return;
        };
        if copy.failure.is_none() && !copy.ended {
            copy.pending.extend_from_slice(data);
            match take_records(&mut copy.pending, &copy.options) {
                Ok(records) => {
                    for record in records {
                        if let Err(error) = self.copy_line(&mut copy, &record) {
                            copy.failure = Some(error);
                            break;
                        }
                    }
                }
                Err(error) => copy.failure = Some(error),
            }
        }
        self.copy_in = Some(copy);
    }

    fn copy_line(&mut self, copy: &mut CopyIn, record: &[u8]) -> pythia::Result<()> {
        copy.lines += 1;
        let at_line = |error: pythia::Error| {
            pythia::Error::new(
                error.code(),
                format!("{} (COPY line {})", error.message(), copy.lines),
            )
        };
        if copy.ended || (copy.options.header && copy.lines == 1) {
            return Ok(());
        }
        if is_end_marker(record, &copy.options) {
            copy.ended = true;
            return Ok(());
        }
        let fields = fields(record, &copy.options).map_err(at_line)?;
        if fields.len() != copy.types.len() {
            let (code, message) = if fields.len() > copy.types.len() {
                (913, "too many values")
            } else {
                (947, "not enough values")
            };
            return Err(at_line(pythia::Error::new(code, message)));
        }
        let values = fields
            .iter()
            .zip(&copy.types)
            .map(|(field, data_type)| {
                decode(field.as_deref(), data_type, false).map_err(|_| {
                    at_line(bad_line(&format!(
                        "'{}' as {}",
                        String::from_utf8_lossy(field.as_deref().unwrap_or_default()),
                        data_type.name()
                    )))
                })
            })
            .collect::<pythia::Result<Vec<Value>>>()?;
        self.session()?
            .execute_prepared(&copy.insert, &values)
            .map_err(at_line)?;
        copy.rows += 1;
        Ok(())
    }

    /// Ends the COPY: on CopyDone (`done`) inserts a last line without its line end and
    /// keeps the rows (outside BEGIN: commits them), else (CopyFail, or a failed row) undoes
    /// them all. Returns the rows inserted.
    pub(crate) fn copy_in_end(&mut self, done: bool, data: &[u8]) -> pythia::Result<u64> {
        self.copy_in_data(data);
        let Some(mut copy) = self.copy_in.take() else {
            return Err(pythia::Error::internal("copy_in_end: no COPY in progress"));
        };
        if done && copy.failure.is_none() && !copy.ended && !copy.pending.is_empty() {
            let last: Vec<u8> = std::mem::take(&mut copy.pending);
            if let Err(error) = self.copy_line(&mut copy, &last) {
                copy.failure = Some(error);
            }
        }
        let failure = match (done, copy.failure) {
            (_, Some(failure)) => Some(failure),
            (false, None) => Some(pythia::Error::cancelled()),
            (true, None) => None,
        };
        match failure {
            None => {
                if !self.explicit {
                    self.end_implicit(true)?;
                }
                Ok(copy.rows)
            }
            Some(failure) => {
                self.session()?
                    .execute(&format!("rollback to savepoint {COPY_SAVEPOINT}"))?;
                if !self.explicit {
                    self.end_implicit(false)?;
                }
                Err(failure)
            }
        }
    }

    /// A `COPY ... TO STDOUT`: the rows as lines of the format, a header first if asked.
    pub(crate) fn copy_out(&mut self, statement: CopyStatement) -> pythia::Result<CopiedOut> {
        let query = match &statement.source {
            Source::Query(query) => query.clone(),
            Source::Table { name, columns } if columns.is_empty() => {
                format!("select * from {name}")
            }
            Source::Table { name, columns } => {
                format!("select {} from {name}", columns.join(", "))
            }
        };
        let result = self.session()?.execute(&query)?;
        if !self.explicit {
            self.end_implicit(true)?;
        }
        let options = &statement.options;
        let mut lines = Vec::with_capacity(result.rows.len() + 1);
        if options.csv && options.header {
            let names: Vec<Option<String>> = result
                .columns
                .iter()
                .map(|column| Some(crate::wire::column_name(&column.name)))
                .collect();
            lines.push(format_row(&names, options));
        }
        for row in &result.rows {
            let texts: Vec<Option<String>> = row.iter().map(crate::wire::text).collect();
            lines.push(format_row(&texts, options));
        }
        Ok(CopiedOut {
            columns: result.columns.len(),
            lines,
            rows: result.rows.len(),
        })
    }
}

/// What a `COPY ... TO STDOUT` sends.
pub(crate) struct CopiedOut {
    pub(crate) columns: usize,
    pub(crate) lines: Vec<Vec<u8>>,
    pub(crate) rows: usize,
}

// ----- the protocol -----------------------------------------------------------------------

/// Bytes of CopyData gathered on the network side before they go to the connection's
/// thread in one job: a job per message would cost a channel round trip per row.
pub const COPY_BATCH_BYTES: usize = 256 << 10;

impl Handlers {
    /// The COPY statement of a simple query: CopyInResponse and the COPY state for FROM
    /// STDIN; the rows and their CommandComplete for TO STDOUT. Returns whether the query
    /// is over (false: a COPY FROM STDIN goes on, and ReadyForQuery comes after CopyDone).
    pub(crate) async fn copy_statement<C>(
        &self,
        client: &mut C,
        text: &str,
        statement: pythia::Result<CopyStatement>,
    ) -> PgWireResult<bool>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let statement = match statement {
            Ok(statement) => statement,
            Err(error) => {
                client.feed(error_response(&error, text, 0)).await?;
                return Ok(true);
            }
        };
        let backend = self.backend()?;
        match statement.direction {
            Direction::FromStdin => {
                match backend
                    .run(move |connection| connection.copy_in_start(statement))
                    .await?
                {
                    Ok(columns) => {
                        self.copy_buffer().clear();
                        client
                            .send(PgWireBackendMessage::CopyInResponse(CopyInResponse::new(
                                0,
                                columns as i16,
                                vec![0; columns],
                            )))
                            .await?;
                        client.set_state(PgWireConnectionState::CopyInProgress(false));
                        Ok(false)
                    }
                    Err(error) => {
                        client.feed(error_response(&error, text, 0)).await?;
                        Ok(true)
                    }
                }
            }
            Direction::ToStdout => {
                match backend
                    .run(move |connection| connection.copy_out(statement))
                    .await?
                {
                    Ok(copied) => {
                        client
                            .feed(PgWireBackendMessage::CopyOutResponse(CopyOutResponse::new(
                                0,
                                copied.columns as i16,
                                vec![0; copied.columns],
                            )))
                            .await?;
                        for line in copied.lines {
                            client
                                .feed(PgWireBackendMessage::CopyData(CopyData::new(Bytes::from(
                                    line,
                                ))))
                                .await?;
                        }
                        client
                            .feed(PgWireBackendMessage::CopyDone(CopyDone::new()))
                            .await?;
                        send_execution_response(client, Tag::new("COPY").with_rows(copied.rows))
                            .await?;
                    }
                    Err(error) => client.feed(error_response(&error, text, 0)).await?,
                }
                Ok(true)
            }
        }
    }

    /// A COPY executed through the extended protocol: pgwire sends the CopyInResponse (and
    /// takes the CopyData to `CopyHandler`), or the rows of a COPY TO STDOUT.
    pub(crate) async fn copy_response(&self, statement: CopyStatement) -> PgWireResult<Response> {
        let backend = self.backend()?;
        let failed = |error: pythia::Error| {
            PgWireError::UserError(Box::new(error_info(&error, "", 0, "ERROR")))
        };
        match statement.direction {
            Direction::FromStdin => {
                let columns = backend
                    .run(move |connection| connection.copy_in_start(statement))
                    .await?
                    .map_err(failed)?;
                self.copy_buffer().clear();
                Ok(Response::CopyIn(CopyResponse::new(
                    0,
                    columns,
                    stream::empty(),
                )))
            }
            Direction::ToStdout => {
                let copied = backend
                    .run(move |connection| connection.copy_out(statement))
                    .await?
                    .map_err(failed)?;
                let lines = copied
                    .lines
                    .into_iter()
                    .map(|line| Ok(CopyData::new(Bytes::from(line))));
                Ok(Response::CopyOut(CopyResponse::new(
                    0,
                    copied.columns,
                    stream::iter(lines),
                )))
            }
        }
    }

    fn copy_buffer(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.copy_buffer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes the gathered CopyData when it reaches `at_least` bytes.
    fn take_copy_batch(&self, at_least: usize) -> Option<Vec<u8>> {
        let mut buffer = self.copy_buffer();
        (buffer.len() >= at_least).then(|| std::mem::take(&mut *buffer))
    }

    /// Ends the COPY on the connection's thread (CopyDone: `done`), with the rest of the
    /// data, and sets the transaction status the following ReadyForQuery reports.
    async fn copy_end<C>(&self, client: &mut C, done: bool) -> PgWireResult<pythia::Result<u64>>
    where
        C: ClientInfo,
    {
        let rest = self.take_copy_batch(0).unwrap_or_default();
        let ended = self
            .backend()?
            .run(move |connection| connection.copy_in_end(done, &rest))
            .await?;
        client.set_transaction_status(self.transaction_status());
        Ok(ended)
    }
}

#[async_trait]
impl CopyHandler for Handlers {
    async fn on_copy_data<C>(&self, _client: &mut C, copy_data: CopyData) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        self.copy_buffer().extend_from_slice(&copy_data.data);
        if let Some(batch) = self.take_copy_batch(COPY_BATCH_BYTES) {
            self.backend()?
                .run(move |connection| connection.copy_in_data(&batch))
                .await?;
            self.await_client(true);
        }
        Ok(())
    }

    async fn on_copy_done<C>(&self, client: &mut C, _done: CopyDone) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        match self.copy_end(client, true).await? {
            Ok(rows) => {
                send_execution_response(client, Tag::new("COPY").with_rows(rows as usize)).await?;
                self.await_client(false);
                Ok(())
            }
            Err(error) => Err(PgWireError::UserError(Box::new(error_info(
                &error, "", 0, "ERROR",
            )))),
        }
    }

    async fn on_copy_fail<C>(&self, client: &mut C, fail: CopyFail) -> PgWireError
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let error = match self.copy_end(client, false).await {
            Ok(Err(error)) if error.code() != 1013 => error,
            Ok(_) => pythia::Error::new(
                1013,
                format!(
                    "user requested cancel of current operation: COPY from stdin failed: {}",
                    fail.message
                ),
            ),
            Err(error) => return error,
        };
        PgWireError::UserError(Box::new(error_info(&error, "", 0, "ERROR")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(sql: &str) -> CopyStatement {
        parse(sql).expect("a COPY").expect("parses")
    }

    #[test]
    fn statements_parse_as_postgresql_writes_them() {
        let statement = copy("copy pgbench_accounts from stdin with (freeze on)");
        assert_eq!(
            statement.source,
            Source::Table {
                name: "pgbench_accounts".into(),
                columns: vec![]
            }
        );
        assert_eq!(statement.direction, Direction::FromStdin);
        assert_eq!(statement.options, Options::text());
        let statement = copy(
            "COPY s.t (a, \"B\") FROM STDIN WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'nil')",
        );
        assert_eq!(
            statement.source,
            Source::Table {
                name: "s.t".into(),
                columns: vec!["a".into(), "\"B\"".into()]
            }
        );
        assert!(statement.options.csv && statement.options.header);
        assert_eq!(statement.options.delimiter, b';');
        assert_eq!(statement.options.null, "nil");
        let statement = copy("copy (select a from t where b = 'x') to stdout csv header");
        assert_eq!(
            statement.source,
            Source::Query("select a from t where b = 'x'".into())
        );
        assert_eq!(statement.direction, Direction::ToStdout);
        assert!(statement.options.csv && statement.options.header);
        assert!(parse("select 1 from dual").is_none());
        assert_eq!(
            parse("copy t from '/etc/passwd'")
                .unwrap()
                .unwrap_err()
                .code(),
            3001
        );
        assert_eq!(
            parse("copy t from stdin (format binary)")
                .unwrap()
                .unwrap_err()
                .code(),
            3001
        );
        assert_eq!(parse("copy t").unwrap().unwrap_err().code(), 933);
    }

    #[test]
    fn records_split_at_line_ends_and_wait_for_the_rest() {
        let options = Options::text();
        let mut pending = b"1\ta\n2\tb\r\n3\t".to_vec();
        let records = take_records(&mut pending, &options).unwrap();
        assert_eq!(records, vec![b"1\ta".to_vec(), b"2\tb".to_vec()]);
        assert_eq!(pending, b"3\t");
        // A CSV quoted field holds its line end.
        let mut csv = Options::text();
        csv.csv();
        let mut pending = b"1,\"two\nlines\"\n2,x".to_vec();
        let records = take_records(&mut pending, &csv).unwrap();
        assert_eq!(records, vec![b"1,\"two\nlines\"".to_vec()]);
        assert_eq!(pending, b"2,x");
    }

    #[test]
    fn fields_decode_nulls_escapes_and_quotes() {
        let options = Options::text();
        assert_eq!(
            fields(b"1\t\\N\ta\\tb\\\\c\\101\\x41", &options).unwrap(),
            vec![Some(b"1".to_vec()), None, Some(b"a\tb\\cAA".to_vec())]
        );
        let mut csv = Options::text();
        csv.csv();
        assert_eq!(
            fields(b"1,,\"\",\"a,\"\"b\"\"\"", &csv).unwrap(),
            vec![
                Some(b"1".to_vec()),
                None,
                Some(Vec::new()),
                Some(b"a,\"b\"".to_vec())
            ]
        );
        assert_eq!(fields(b"\"open", &csv).unwrap_err().code(), 1722);
    }

    #[test]
    fn rows_format_and_read_back_the_same() {
        for csv in [false, true] {
            let mut options = Options::text();
            if csv {
                options.csv();
            }
            let row = vec![
                Some("plain".to_string()),
                None,
                Some("tab\tnew\nline \\ \"quote\", comma".to_string()),
            ];
            let mut line = format_row(&row, &options);
            let records = take_records(&mut line, &options).unwrap();
            assert_eq!(records.len(), 1);
            let back: Vec<Option<String>> = fields(&records[0], &options)
                .unwrap()
                .into_iter()
                .map(|field| field.map(|bytes| String::from_utf8(bytes).unwrap()))
                .collect();
            assert_eq!(back, row, "csv: {csv}");
        }
    }
}
