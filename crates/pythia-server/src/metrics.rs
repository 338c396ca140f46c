//! The Prometheus metrics endpoint of `pythia serve --metrics 127.0.0.1:9187`: the wait
//! events with their histograms, v$sysstat, the latches, the mutex sleeps and the time model
//! as Prometheus's text exposition format 0.0.4, named as oracledb_exporter names what it
//! has (`oracledb_up`, `oracledb_activity_user_commits`, `oracledb_wait_time_user_io`,
//! `oracledb_sessions_value{status,type}`) and under the same `oracledb_` prefix what it
//! lacks. `docs/architecture/server.md` ("Metrics") lists every name with its view and unit.
//!
//! ```text
//!   Prometheus --GET /metrics--> tokio task on the endpoint's own thread ("pythia-metrics")
//!                                   | Snapshot::read: the v$ views' rows, straight from the
//!                                   | instrumentation (no session, no SQL)
//!                                   v
//!                                render: text/plain; version=0.0.4 --> Prometheus
//! ```
//!
//! **Where the numbers come from.** oracledb_exporter logs on and runs SQL against the v$
//! views. Here the endpoint calls the functions the v$ views themselves are built from
//! (`pythia::instrumentation::system_statistics`, `system_event_totals`, `latches`, ...), so
//! every number is the view's, and a scrape costs no logon, no parse, no cursor in the
//! shared pool and no execution: `logons cumulative`, `execute count`, `parse count (total)`
//! and v$sql do not see the scraper, and the deltas between two scrapes are the workload's
//! own. What a scrape does take: the session registry's read lock while it sums the
//! sessions' counters (a session logging on or off waits for that long), each latch
//! family's list lock, and the mutex sleep table's lock, each for a read of fixed-size
//! counters.
//!
//! **Bounds.** One endpoint thread with a current-thread runtime, so scrapes are read and
//! rendered one at a time; at most [`METRICS_CONNECTIONS_MAX`] connections are served at
//! once (further ones wait in the listen backlog until a slot frees); a request's head is at
//! most [`METRICS_REQUEST_BYTES_MAX`] (431 beyond) and must arrive within
//! [`METRICS_READ_TIMEOUT`] (408 after); the answer must be taken within
//! [`METRICS_WRITE_TIMEOUT`]. The exposition's size is bounded by construction (the series
//! are the enums' events, statistics, latches and time-model rows, and the mutex sleep
//! table's (type, location) pairs, which are code sites); [`METRICS_BODY_BYTES_MAX`] checks
//! it, and a test renders the largest possible exposition under it.
//!
//! **HTTP.** A minimal HTTP/1.1 responder, one request per connection (`Connection:
//! close`): `GET /metrics` (a query string is ignored) gets the exposition; another path
//! 404; another method on `/metrics` 405 with `Allow: GET`; a malformed request line 400.
//! Loopback addresses only, as the server: nothing here authenticates.
//!
//! **Consistency.** As the views: each counter is read at some recent value, a cumulative
//! value never decreases from one scrape to the next, and the system sums are taken in one
//! pass over the sessions. A histogram's `_count` is the sum of its buckets (so it always
//! equals the `+Inf` bucket); a wait being recorded during the read may show in `_sum` and
//! not yet in a bucket, or the reverse.

use std::fmt::{self, Write as _};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pythia::instrumentation::{
    self, EventTotals, LatchRow, MutexSleepRow, SessionStatus, SessionType, Statistic,
    StatisticRow, TimeModelRow, WaitClass, WaitEvent, HISTOGRAM_BUCKETS,
};
use pythia::Instance;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Connections served at once; further ones wait in the listen backlog.
pub const METRICS_CONNECTIONS_MAX: usize = 4;

/// The largest request head (request line and headers) read; 431 beyond.
pub const METRICS_REQUEST_BYTES_MAX: usize = 8 * 1024;

/// How long a connection may take to send its request head; 408 after.
pub const METRICS_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a client may take to receive the answer before the connection is dropped.
pub const METRICS_WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest exposition served; the largest Pythia can produce is well under it (a test
/// renders it), so a larger one is a bug and gets 500.
pub const METRICS_BODY_BYTES_MAX: usize = 1024 * 1024;

/// What an exposition is sent as: the text format, version 0.0.4.
pub const EXPOSITION_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// After answering, what a client still sends is read and dropped for at most this long
/// and this much, so that closing a socket with unread bytes (which sends a reset) cannot
/// destroy the answer before the client has read it.
const LINGER_TIMEOUT: Duration = Duration::from_secs(1);
const LINGER_BYTES_MAX: usize = 64 * 1024;

/// Every metric name starts with it, as oracledb_exporter's.
const PREFIX: &str = "oracledb";

// ----- what a scrape reads ---------------------------------------------------------------

/// How many sessions of one type are in one status (a row of oracledb_exporter's `SELECT
/// status, type, COUNT(*) FROM v$session GROUP BY status, type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionCount {
    pub status: SessionStatus,
    pub session_type: SessionType,
    pub sessions: u64,
}

/// The rows of the v$ views that one scrape shows, read straight from the instrumentation.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// `oracledb_up`: the instance has not been shut down.
    pub instance_open: bool,
    /// v$sysstat: every statistic.
    pub statistics: Vec<StatisticRow>,
    /// v$system_event with v$event_histogram_micro: the events waited on, in `event#` order.
    pub events: Vec<(WaitEvent, EventTotals)>,
    /// v$latch: every latch name.
    pub latches: Vec<LatchRow>,
    /// v$mutex_sleep: the (mutex type, location) pairs that slept.
    pub mutex_sleeps: Vec<MutexSleepRow>,
    /// v$sys_time_model: every statistic, microseconds.
    pub time_model: Vec<TimeModelRow>,
    /// v$session counted by status and type: every combination, zeros included.
    pub sessions: Vec<SessionCount>,
    /// How long reading all of the above took.
    pub read_micros: u64,
}

impl Snapshot {
    /// Reads what a scrape shows. The instrumentation is the process's: with one instance
    /// per process, as `pythia serve` has, it is that instance's.
    pub fn read(instance: &Instance) -> Snapshot {
        let started = Instant::now();
        let events = WaitEvent::ALL
            .into_iter()
            .zip(instrumentation::system_event_totals())
            .filter(|(_, totals)| totals.total_waits > 0 || histogram_count(totals) > 0)
            .collect();
        let mut sessions: Vec<SessionCount> = [SessionType::User, SessionType::Background]
            .into_iter()
            .flat_map(|session_type| {
                [SessionStatus::Active, SessionStatus::Inactive].map(|status| SessionCount {
                    status,
                    session_type,
                    sessions: 0,
                })
            })
            .collect();
        for session in instrumentation::sessions() {
            if let Some(count) = sessions.iter_mut().find(|count| {
                count.status == session.status && count.session_type == session.session_type
            }) {
                count.sessions += 1;
            }
        }
        let mut snapshot = Snapshot {
            instance_open: instance.is_open(),
            statistics: instrumentation::system_statistics(),
            events,
            latches: instrumentation::latches(),
            mutex_sleeps: instrumentation::mutex_sleeps(),
            time_model: instrumentation::system_time_model(),
            sessions,
            read_micros: 0,
        };
        snapshot.read_micros = started.elapsed().as_micros() as u64;
        snapshot
    }

    fn statistic(&self, statistic: Statistic) -> u64 {
        self.statistics
            .iter()
            .find(|row| row.statistic == statistic)
            .map_or(0, |row| row.value)
    }
}

/// The waits an event's histogram holds: the sum of its buckets.
fn histogram_count(totals: &EventTotals) -> u64 {
    saturating_sum(totals.histogram.iter().copied())
}

/// Counts add up without overflowing (wrapping would make a counter go backwards; no
/// counter of the instrumentation comes near 2^64).
fn saturating_sum(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(0, u64::saturating_add)
}

// ----- the exposition --------------------------------------------------------------------

/// v$sysstat's statistics that oracledb_exporter shows as `oracledb_activity_<name>`.
const ACTIVITY_STATISTICS: [Statistic; 4] = [
    Statistic::ExecuteCount,
    Statistic::ParseCountTotal,
    Statistic::UserCommits,
    Statistic::UserRollbacks,
];

/// A column of a v$ view shown as a counter family: the name's end, its help, its value.
struct CounterColumn<Row> {
    suffix: &'static str,
    help: &'static str,
    read: fn(&Row) -> Number,
}

/// v$latch's columns, as `oracledb_latch_<suffix>{name}`.
const LATCH_COLUMNS: [CounterColumn<LatchRow>; 7] = [
    CounterColumn {
        suffix: "gets_total",
        help: "v$latch GETS: willing-to-wait gets.",
        read: |row| Number::Count(row.statistics.gets),
    },
    CounterColumn {
        suffix: "misses_total",
        help: "v$latch MISSES: willing-to-wait gets that found the latch busy.",
        read: |row| Number::Count(row.statistics.misses),
    },
    CounterColumn {
        suffix: "sleeps_total",
        help: "v$latch SLEEPS: misses that slept after spinning.",
        read: |row| Number::Count(row.statistics.sleeps),
    },
    CounterColumn {
        suffix: "spin_gets_total",
        help: "v$latch SPIN_GETS: misses that got the latch while spinning.",
        read: |row| Number::Count(row.statistics.spin_gets),
    },
    CounterColumn {
        suffix: "immediate_gets_total",
        help: "v$latch IMMEDIATE_GETS: no-wait gets that got the latch.",
        read: |row| Number::Count(row.statistics.immediate_gets),
    },
    CounterColumn {
        suffix: "immediate_misses_total",
        help: "v$latch IMMEDIATE_MISSES: no-wait gets that found it busy.",
        read: |row| Number::Count(row.statistics.immediate_misses),
    },
    CounterColumn {
        suffix: "wait_time_seconds_total",
        help: "v$latch WAIT_TIME: time slept waiting for the latch.",
        read: |row| Number::Micros(row.statistics.wait_time),
    },
];

/// v$mutex_sleep's columns, as `oracledb_mutex_<suffix>{mutex_type,location}`.
const MUTEX_SLEEP_COLUMNS: [CounterColumn<MutexSleepRow>; 2] = [
    CounterColumn {
        suffix: "sleeps_total",
        help: "v$mutex_sleep SLEEPS: sleeps for a mutex, by mutex type and location.",
        read: |row| Number::Count(row.sleeps),
    },
    CounterColumn {
        suffix: "wait_time_seconds_total",
        help: "v$mutex_sleep WAIT_TIME: time slept for a mutex, by mutex type and location.",
        read: |row| Number::Micros(row.wait_time),
    },
];

/// The Prometheus type of a metric family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// A sample's value: a count as it is, or microseconds shown in seconds.
#[derive(Clone, Copy, Debug)]
enum Number {
    Count(u64),
    Micros(u64),
}

impl fmt::Display for Number {
    /// Exact decimals: `1500000` µs is `1.5`, `512` µs `0.000512`; no floating point.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Number::Count(count) => write!(formatter, "{count}"),
            Number::Micros(micros) => {
                let (whole, mut fraction) = (micros / 1_000_000, micros % 1_000_000);
                if fraction == 0 {
                    return write!(formatter, "{whole}");
                }
                let mut digits = 6;
                while fraction % 10 == 0 {
                    fraction /= 10;
                    digits -= 1;
                }
                write!(formatter, "{whole}.{fraction:0digits$}")
            }
        }
    }
}

/// The text being written: families one after another, each with its HELP and TYPE first.
#[derive(Default)]
struct Exposition {
    text: String,
}

impl Exposition {
    fn family(&mut self, name: &str, kind: Kind, help: &str) {
        debug_assert!(is_metric_name(name), "{name}");
        let _ = write!(self.text, "# HELP {name} ");
        for character in help.chars() {
            match character {
                '\\' => self.text.push_str("\\\\"),
                '\n' => self.text.push_str("\\n"),
                other => self.text.push(other),
            }
        }
        let _ = writeln!(self.text, "\n# TYPE {name} {}", kind.name());
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: Number) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (index, (label, label_value)) in labels.iter().enumerate() {
                debug_assert!(is_label_name(label), "{label}");
                if index > 0 {
                    self.text.push(',');
                }
                self.text.push_str(label);
                self.text.push_str("=\"");
                push_label_value(&mut self.text, label_value);
                self.text.push('"');
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {value}");
    }

    /// A family of one sample without labels.
    fn single(&mut self, name: &str, kind: Kind, help: &str, value: Number) {
        self.family(name, kind, help);
        self.sample(name, &[], value);
    }
}

/// A label value as the format escapes it: backslash, double quote and line feed.
fn push_label_value(text: &mut String, value: &str) {
    for character in value.chars() {
        match character {
            '\\' => text.push_str("\\\\"),
            '"' => text.push_str("\\\""),
            '\n' => text.push_str("\\n"),
            other => text.push(other),
        }
    }
}

/// A valid metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
pub fn is_metric_name(name: &str) -> bool {
    let mut characters = name.chars();
    characters
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == ':')
        && characters.all(|rest| rest.is_ascii_alphanumeric() || rest == '_' || rest == ':')
}

/// A valid label name: `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__` (reserved).
pub fn is_label_name(name: &str) -> bool {
    let mut characters = name.chars();
    characters
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && characters.all(|rest| rest.is_ascii_alphanumeric() || rest == '_')
        && !name.starts_with("__")
}

/// An Oracle name as a part of a metric name, by oracledb_exporter's rule (spaces become
/// `_`; `(`, `)` and `/` go; lower case: `parse count (total)` is `parse_count_total`, `User
/// I/O` is `user_io`), extended so that every result is valid: any other character a
/// metric name cannot hold becomes `_`, and runs of `_` are one.
pub fn metric_name_part(oracle_name: &str) -> String {
    let mut part = String::with_capacity(oracle_name.len());
    for character in oracle_name.chars() {
        match character {
            '(' | ')' | '/' => {}
            character if character.is_ascii_alphanumeric() => {
                part.push(character.to_ascii_lowercase())
            }
            _ if part.is_empty() || part.ends_with('_') => {}
            _ => part.push('_'),
        }
    }
    while part.ends_with('_') {
        part.pop();
    }
    part
}

/// The exposition of `snapshot`, the `scrapes`-th served by its endpoint.
pub fn render(snapshot: &Snapshot, scrapes: u64) -> String {
    let mut out = Exposition::default();
    render_exporter(&mut out, snapshot, scrapes);
    render_activity(&mut out, snapshot);
    render_events(&mut out, snapshot);
    render_statistics(&mut out, snapshot);
    render_latches(&mut out, snapshot);
    render_mutex_sleeps(&mut out, snapshot);
    render_time_model(&mut out, snapshot);
    out.text
}

/// oracledb_exporter's own: up, and the scrapes.
fn render_exporter(out: &mut Exposition, snapshot: &Snapshot, scrapes: u64) {
    out.single(
        &format!("{PREFIX}_up"),
        Kind::Gauge,
        "Whether the instance is open (1) or shut down (0).",
        Number::Count(u64::from(snapshot.instance_open)),
    );
    out.single(
        &format!("{PREFIX}_exporter_scrapes_total"),
        Kind::Counter,
        "Scrapes of this endpoint since it started, this one included.",
        Number::Count(scrapes),
    );
    out.single(
        &format!("{PREFIX}_exporter_last_scrape_duration_seconds"),
        Kind::Gauge,
        "How long this scrape took to read the instrumentation.",
        Number::Micros(snapshot.read_micros),
    );
    out.single(
        &format!("{PREFIX}_exporter_last_scrape_error"),
        Kind::Gauge,
        "Whether this scrape failed to read something (always 0: reading the \
         instrumentation cannot fail).",
        Number::Count(0),
    );
}

/// oracledb_exporter's default metrics: activity from v$sysstat, sessions from v$session,
/// wait time per class.
fn render_activity(out: &mut Exposition, snapshot: &Snapshot) {
    for statistic in ACTIVITY_STATISTICS {
        out.single(
            &format!("{PREFIX}_activity_{}", metric_name_part(statistic.name())),
            Kind::Counter,
            &format!("v$sysstat '{}'.", statistic.name()),
            Number::Count(snapshot.statistic(statistic)),
        );
    }
    let name = format!("{PREFIX}_sessions_value");
    out.family(
        &name,
        Kind::Gauge,
        "Sessions by status and type (v$session, user and background).",
    );
    for count in &snapshot.sessions {
        out.sample(
            &name,
            &[
                ("status", count.status.name()),
                ("type", count.session_type.name()),
            ],
            Number::Count(count.sessions),
        );
    }
    for class in WaitClass::ALL {
        if class == WaitClass::Idle {
            continue;
        }
        let micros = saturating_sum(
            snapshot
                .events
                .iter()
                .filter(|(event, _)| event.wait_class() == class)
                .map(|(_, totals)| totals.time_waited_micro),
        );
        out.single(
            &format!("{PREFIX}_wait_time_{}", metric_name_part(class.name())),
            Kind::Counter,
            &format!(
                "Seconds waited on the events of wait class '{}' (v$system_event); its rate is \
                 oracledb_exporter's value, the sessions waiting on average.",
                class.name()
            ),
            Number::Micros(micros),
        );
    }
}

/// Every event waited on: a histogram over v$event_histogram_micro's buckets, and its
/// timeouts.
fn render_events(out: &mut Exposition, snapshot: &Snapshot) {
    let name = format!("{PREFIX}_system_event_wait_seconds");
    let (bucket, sum, count) = (
        format!("{name}_bucket"),
        format!("{name}_sum"),
        format!("{name}_count"),
    );
    out.family(
        &name,
        Kind::Histogram,
        "Waits by event (v$system_event: _count TOTAL_WAITS, _sum TIME_WAITED_MICRO) in the \
         buckets of v$event_histogram_micro (le: WAIT_TIME_MICRO, a wait counted under it \
         lasted less).",
    );
    // The last bucket also takes every longer wait: it is +Inf's.
    let bounded_buckets = HISTOGRAM_BUCKETS - 1;
    let bounds: Vec<String> = (0..bounded_buckets)
        .map(|bucket| Number::Micros(1 << bucket).to_string())
        .collect();
    for (event, totals) in &snapshot.events {
        let labels = [
            ("event", event.name()),
            ("wait_class", event.wait_class().name()),
        ];
        let mut cumulative = 0u64;
        for (waits, bound) in totals.histogram.iter().zip(&bounds) {
            cumulative = cumulative.saturating_add(*waits);
            out.sample(
                &bucket,
                &[labels[0], labels[1], ("le", bound)],
                Number::Count(cumulative),
            );
        }
        let total = histogram_count(totals);
        out.sample(
            &bucket,
            &[labels[0], labels[1], ("le", "+Inf")],
            Number::Count(total),
        );
        out.sample(&sum, &labels, Number::Micros(totals.time_waited_micro));
        out.sample(&count, &labels, Number::Count(total));
    }
    let name = format!("{PREFIX}_system_event_timeouts_total");
    out.family(
        &name,
        Kind::Counter,
        "Waits that timed out, by event (v$system_event TOTAL_TIMEOUTS).",
    );
    for (event, totals) in &snapshot.events {
        out.sample(
            &name,
            &[
                ("event", event.name()),
                ("wait_class", event.wait_class().name()),
            ],
            Number::Count(totals.total_timeouts),
        );
    }
}

/// Every statistic of v$sysstat as `oracledb_sysstat_<name>`, its value as the view shows
/// it (the time statistics in centiseconds).
fn render_statistics(out: &mut Exposition, snapshot: &Snapshot) {
    for row in &snapshot.statistics {
        let statistic = row.statistic;
        let kind = if statistic.is_current_value() {
            Kind::Gauge
        } else {
            Kind::Counter
        };
        out.single(
            &format!("{PREFIX}_sysstat_{}", metric_name_part(statistic.name())),
            kind,
            &format!(
                "v$sysstat '{}' (statistic# {}, class {}).",
                statistic.name(),
                statistic.number(),
                statistic.class()
            ),
            Number::Count(row.value),
        );
    }
}

/// Each column a family, each row a sample labelled by `labels`.
fn render_columns<Row>(
    out: &mut Exposition,
    view: &str,
    columns: &[CounterColumn<Row>],
    rows: &[Row],
    labels: impl Fn(&Row) -> Vec<(&'static str, &str)>,
) {
    for column in columns {
        let name = format!("{PREFIX}_{view}_{}", column.suffix);
        out.family(&name, Kind::Counter, column.help);
        for row in rows {
            out.sample(&name, &labels(row), (column.read)(row));
        }
    }
}

/// v$latch: every latch name's gets, misses, sleeps and wait time.
fn render_latches(out: &mut Exposition, snapshot: &Snapshot) {
    render_columns(out, "latch", &LATCH_COLUMNS, &snapshot.latches, |row| {
        vec![("name", row.name.name())]
    });
}

/// v$mutex_sleep: sleeps and their time per (mutex type, location).
fn render_mutex_sleeps(out: &mut Exposition, snapshot: &Snapshot) {
    render_columns(
        out,
        "mutex",
        &MUTEX_SLEEP_COLUMNS,
        &snapshot.mutex_sleeps,
        |row| {
            vec![
                ("mutex_type", row.mutex_type.name()),
                ("location", row.location),
            ]
        },
    );
}

/// v$sys_time_model, in seconds.
fn render_time_model(out: &mut Exposition, snapshot: &Snapshot) {
    let name = format!("{PREFIX}_sys_time_model_seconds_total");
    out.family(
        &name,
        Kind::Counter,
        "v$sys_time_model VALUE by STAT_NAME (DB time, DB CPU, parse time elapsed, ...). \
         The statistics nest: DB time includes DB CPU and the elapsed times below it.",
    );
    for row in &snapshot.time_model {
        out.sample(
            &name,
            &[("stat_name", row.statistic.name())],
            Number::Micros(row.value),
        );
    }
}

// ----- HTTP ------------------------------------------------------------------------------

/// An answer: status, the headers that vary, the body.
#[derive(Debug, PartialEq, Eq)]
struct Response {
    status: u16,
    reason: &'static str,
    content_type: &'static str,
    allow: Option<&'static str>,
    body: String,
}

impl Response {
    fn text(status: u16, reason: &'static str, body: &str) -> Response {
        Response {
            status,
            reason,
            content_type: "text/plain; charset=utf-8",
            allow: None,
            body: format!("{body}\n"),
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.status,
            self.reason,
            self.content_type,
            self.body.len()
        );
        if let Some(allow) = self.allow {
            let _ = write!(head, "Allow: {allow}\r\n");
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(self.body.as_bytes());
        bytes
    }
}

/// The request line's method and path (the target without its query string).
#[derive(Debug, PartialEq, Eq)]
struct RequestLine<'a> {
    method: &'a str,
    path: &'a str,
}

/// `METHOD /target HTTP/1.x` on the head's first line, or None if it is not one.
fn parse_request_line(head: &[u8]) -> Option<RequestLine<'_>> {
    let end = head
        .iter()
        .position(|&byte| byte == b'\n')
        .unwrap_or(head.len());
    let line = std::str::from_utf8(&head[..end]).ok()?;
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut parts = line.split(' ');
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    // A method is an HTTP token: letters, digits and a few marks, no separators.
    let token = |byte: u8| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte);
    let valid = parts.next().is_none()
        && !method.is_empty()
        && method.bytes().all(token)
        && target.starts_with('/')
        && version.starts_with("HTTP/1.");
    let path = target.split('?').next().unwrap_or(target);
    valid.then_some(RequestLine { method, path })
}

/// The end of a request head (after its blank line), if `bytes` holds one.
fn head_end(bytes: &[u8]) -> Option<usize> {
    let crlf = bytes.windows(4).position(|window| window == b"\r\n\r\n");
    let lf = bytes.windows(2).position(|window| window == b"\n\n");
    match (crlf, lf) {
        (Some(crlf), Some(lf)) => Some((crlf + 4).min(lf + 2)),
        (Some(crlf), None) => Some(crlf + 4),
        (None, Some(lf)) => Some(lf + 2),
        (None, None) => None,
    }
}

/// What a complete request head gets; `scrape` makes the exposition when it is a scrape.
fn route(head: &[u8], scrape: impl FnOnce() -> Response) -> Response {
    let Some(request) = parse_request_line(head) else {
        return Response::text(
            400,
            "Bad Request",
            "expected a request line such as: GET /metrics HTTP/1.1",
        );
    };
    if request.path != "/metrics" {
        return Response::text(404, "Not Found", "only /metrics is served here");
    }
    if request.method != "GET" {
        let mut response = Response::text(405, "Method Not Allowed", "/metrics answers GET only");
        response.allow = Some("GET");
        return response;
    }
    scrape()
}

/// What the endpoint's connections share.
struct Endpoint {
    instance: Arc<Instance>,
    scrapes: AtomicU64,
}

impl Endpoint {
    fn scrape(&self) -> Response {
        let scrapes = self.scrapes.fetch_add(1, Ordering::Relaxed) + 1;
        let body = render(&Snapshot::read(&self.instance), scrapes);
        if body.len() > METRICS_BODY_BYTES_MAX {
            return Response::text(
                500,
                "Internal Server Error",
                &format!(
                    "the exposition has {} bytes, more than METRICS_BODY_BYTES_MAX ({})",
                    body.len(),
                    METRICS_BODY_BYTES_MAX
                ),
            );
        }
        Response {
            status: 200,
            reason: "OK",
            content_type: EXPOSITION_CONTENT_TYPE,
            allow: None,
            body,
        }
    }
}

/// How reading a request head ended.
enum Head {
    Complete(Vec<u8>),
    TooLarge,
    /// The client closed (or reset) the connection before the head was complete.
    Closed,
}

async fn read_head(socket: &mut TcpStream) -> Head {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = head_end(&head) {
            head.truncate(end);
            return Head::Complete(head);
        }
        if head.len() >= METRICS_REQUEST_BYTES_MAX {
            return Head::TooLarge;
        }
        let room = (METRICS_REQUEST_BYTES_MAX - head.len()).min(chunk.len());
        match socket.read(&mut chunk[..room]).await {
            Ok(0) | Err(_) => return Head::Closed,
            Ok(read) => head.extend_from_slice(&chunk[..read]),
        }
    }
}

/// Serves one connection: one request, one answer, then the connection closes.
async fn answer(mut socket: TcpStream, endpoint: &Endpoint) {
    let response = match tokio::time::timeout(METRICS_READ_TIMEOUT, read_head(&mut socket)).await {
        Err(_elapsed) => Response::text(
            408,
            "Request Timeout",
            "the request did not arrive in METRICS_READ_TIMEOUT",
        ),
        Ok(Head::Closed) => return,
        Ok(Head::TooLarge) => Response::text(
            431,
            "Request Header Fields Too Large",
            "the request head is larger than METRICS_REQUEST_BYTES_MAX",
        ),
        Ok(Head::Complete(head)) => route(&head, || endpoint.scrape()),
    };
    let bytes = response.to_bytes();
    let sent = tokio::time::timeout(METRICS_WRITE_TIMEOUT, async {
        socket.write_all(&bytes).await?;
        socket.shutdown().await
    })
    .await;
    if !matches!(sent, Ok(Ok(()))) {
        return;
    }
    let _ = tokio::time::timeout(LINGER_TIMEOUT, async {
        let mut drained = 0;
        let mut chunk = [0u8; 4096];
        while drained < LINGER_BYTES_MAX {
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(read) => drained += read,
            }
        }
    })
    .await;
}

async fn accept_loop(listener: tokio::net::TcpListener, endpoint: Arc<Endpoint>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(METRICS_CONNECTIONS_MAX));
    loop {
        // A slot first: connections beyond the limit wait in the listen backlog.
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return; // never closed
        };
        let socket = match listener.accept().await {
            Ok((socket, _peer)) => socket,
            Err(error) => {
                // Out of descriptors and the like: this connection is lost, not the endpoint.
                eprintln!("pythia serve: metrics: accept: {error}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let endpoint = endpoint.clone();
        tokio::spawn(async move {
            let _slot = slot;
            answer(socket, &endpoint).await;
        });
    }
}

/// A running metrics endpoint: its address, and the way to stop it.
pub struct MetricsEndpoint {
    listener: crate::ListenerThread,
}

impl MetricsEndpoint {
    /// Starts serving `instance`'s metrics on `listen` (port 0: any free port) in a thread
    /// of its own. Loopback addresses only: nothing here authenticates.
    pub fn start(instance: Arc<Instance>, listen: SocketAddr) -> io::Result<MetricsEndpoint> {
        if !listen.ip().is_loopback() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{listen}: the metrics endpoint listens on loopback addresses only (it \
                     authenticates nobody)"
                ),
            ));
        }
        let endpoint = Arc::new(Endpoint {
            instance,
            scrapes: AtomicU64::new(0),
        });
        // Stopping the listener's thread drops the connections being served.
        let listener = crate::ListenerThread::start(
            listen,
            "pythia-metrics",
            "pythia serve: metrics",
            move |listener| accept_loop(listener, endpoint),
        )?;
        Ok(MetricsEndpoint { listener })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr
    }

    /// Stops accepting, drops the connections being served, and waits for the thread.
    pub fn stop(mut self) {
        self.listener.stop();
    }
}

impl Drop for MetricsEndpoint {
    fn drop(&mut self) {
        self.listener.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_names_become_metric_names_as_oracledb_exporter_makes_them() {
        assert_eq!(metric_name_part("parse count (total)"), "parse_count_total");
        assert_eq!(metric_name_part("execute count"), "execute_count");
        assert_eq!(metric_name_part("User I/O"), "user_io");
        assert_eq!(metric_name_part("System I/O"), "system_io");
        assert_eq!(
            metric_name_part("SQL*Net roundtrips to/from client"),
            "sql_net_roundtrips_tofrom_client"
        );
        assert_eq!(
            metric_name_part("rollback changes - undo records applied"),
            "rollback_changes_undo_records_applied"
        );
        assert_eq!(
            metric_name_part("CPU used by this session"),
            "cpu_used_by_this_session"
        );
    }

    #[test]
    fn every_statistic_gets_a_valid_name_of_its_own() {
        let mut names = std::collections::HashSet::new();
        for statistic in Statistic::ALL {
            let name = format!("{PREFIX}_sysstat_{}", metric_name_part(statistic.name()));
            assert!(is_metric_name(&name), "{name}");
            assert!(names.insert(name.clone()), "two statistics are {name}");
        }
        for class in WaitClass::ALL {
            assert!(is_metric_name(&format!(
                "{PREFIX}_wait_time_{}",
                metric_name_part(class.name())
            )));
        }
    }

    #[test]
    fn names_are_checked_as_the_format_defines_them() {
        for good in ["oracledb_up", "_x", "a:b_9", "A"] {
            assert!(is_metric_name(good), "{good}");
        }
        for bad in ["", "9a", "a-b", "a b", "a.b", "é"] {
            assert!(!is_metric_name(bad), "{bad}");
        }
        for good in ["le", "_x", "wait_class", "A9"] {
            assert!(is_label_name(good), "{good}");
        }
        for bad in ["", "__name__", "a:b", "9a", "a-b"] {
            assert!(!is_label_name(bad), "{bad}");
        }
    }

    #[test]
    fn microseconds_are_written_as_exact_seconds() {
        let seconds = |micros| Number::Micros(micros).to_string();
        assert_eq!(seconds(0), "0");
        assert_eq!(seconds(1), "0.000001");
        assert_eq!(seconds(512), "0.000512");
        assert_eq!(seconds(1_500_000), "1.5");
        assert_eq!(seconds(2_000_000), "2");
        assert_eq!(seconds(1 << 31), "2147.483648");
        assert_eq!(seconds(u64::MAX), "18446744073709.551615");
    }

    #[test]
    fn label_values_and_help_are_escaped() {
        let mut out = Exposition::default();
        out.family("a_b", Kind::Counter, "back\\slash and\nline");
        out.sample("a_b", &[("where", "say \"hi\"\\\n")], Number::Count(3));
        assert_eq!(
            out.text,
            "# HELP a_b back\\\\slash and\\nline\n# TYPE a_b counter\n\
             a_b{where=\"say \\\"hi\\\"\\\\\\n\"} 3\n"
        );
    }

    #[test]
    fn requests_are_routed_by_path_then_method() {
        let ok = || Response::text(200, "OK", "scraped");
        let status = |head: &str| route(head.as_bytes(), ok).status;
        assert_eq!(status("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 200);
        assert_eq!(status("GET /metrics?name[]=x HTTP/1.0\r\n\r\n"), 200);
        assert_eq!(status("GET / HTTP/1.1\r\n\r\n"), 404);
        assert_eq!(status("POST /elsewhere HTTP/1.1\r\n\r\n"), 404);
        assert_eq!(status("POST /metrics HTTP/1.1\r\n\r\n"), 405);
        assert_eq!(status("HEAD /metrics HTTP/1.1\r\n\r\n"), 405);
        assert_eq!(
            route(b"DELETE /metrics HTTP/1.1\r\n\r\n", ok).allow,
            Some("GET")
        );
        assert_eq!(status("GET /metrics\r\n\r\n"), 400);
        assert_eq!(status("GET  /metrics HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(status("GET metrics HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(status("G(T /metrics HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(status("GET /metrics SPDY/3\r\n\r\n"), 400);
        assert_eq!(status("\u{1}\u{2}\r\n\r\n"), 400);
    }

    #[test]
    fn a_head_ends_at_its_blank_line() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: x\r\n"), None);
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
        assert_eq!(head_end(b"GET / HTTP/1.1\n\nbody"), Some(16));
    }

    #[test]
    fn an_answer_carries_its_length_and_closes() {
        let mut response = Response::text(405, "Method Not Allowed", "no");
        response.allow = Some("GET");
        assert_eq!(
            String::from_utf8(response.to_bytes()).unwrap(),
            "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: 3\r\nConnection: close\r\nAllow: GET\r\n\r\nno\n"
        );
    }
}
