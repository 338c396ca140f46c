//! The Prometheus endpoint over real TCP connections: every exposition passes a strict
//! checker of the text format 0.0.4 (below), the counters follow the work done between two
//! scrapes exactly, a wait event's histogram agrees with v$system_event, a scrape itself
//! runs no SQL, bad requests get their status and the endpoint goes on, idle connections
//! are closed after the read timeout, and the largest exposition Pythia can produce fits
//! the bound.
//!
//! The checker is written here rather than taken from a crate: `prometheus-parse` (0.2.5)
//! splits label values on commas, merges the buckets of every labelled histogram of a name
//! into one and skips lines it cannot read, so it would pass expositions that Prometheus
//! refuses or reads differently.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pythia::instrumentation::{
    EventTotals, LatchName, LatchRow, LatchStatistics, MutexSleepRow, MutexType, SessionStatus,
    SessionType, Statistic, StatisticRow, TimeModelRow, TimeModelStatistic, WaitEvent,
    HISTOGRAM_BUCKETS,
};
use pythia::Instance;
use pythia_server::metrics::{
    is_label_name, is_metric_name, render, SessionCount, Snapshot, EXPOSITION_CONTENT_TYPE,
    METRICS_BODY_BYTES_MAX, METRICS_CONNECTIONS_MAX, METRICS_READ_TIMEOUT,
    METRICS_REQUEST_BYTES_MAX,
};
use pythia_server::{MetricsEndpoint, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_postgres::Client;

mod common;
use common::first_value;

/// The instrumentation is the process's, and opening a database commits: every test here
/// that opens one runs under this lock, so that the counts between two scrapes are exactly
/// the work of the test that takes them.
static INSTANCES: Mutex<()> = Mutex::new(());

/// Runs `test` on a runtime of its own, holding `INSTANCES`.
fn serially(test: impl Future<Output = ()>) {
    let _instances = INSTANCES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(test);
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A new database with the server and a metrics endpoint on free loopback ports.
fn start(name: &str) -> (Arc<Instance>, Server, MetricsEndpoint) {
    let (instance, server) = common::start(&format!("metrics-{name}"), &[]);
    let metrics = MetricsEndpoint::start(instance.clone(), loopback()).unwrap();
    (instance, server, metrics)
}

fn stop(instance: Arc<Instance>, server: Server, metrics: MetricsEndpoint) {
    metrics.stop();
    server.stop();
    instance.shutdown().unwrap();
}

async fn connect(address: SocketAddr) -> Client {
    common::connect(address).await.unwrap()
}

/// An HTTP answer: status, headers (names in lower case), body.
struct Answer {
    status: u16,
    headers: HashMap<String, String>,
    body: String,
}

/// Sends `request` as it is on a new connection and reads the answer to the end.
async fn exchange(address: SocketAddr, request: &[u8]) -> Answer {
    let mut socket = TcpStream::connect(address).await.unwrap();
    socket.write_all(request).await.unwrap();
    read_answer(&mut socket).await
}

async fn read_answer(socket: &mut TcpStream) -> Answer {
    let mut bytes = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), socket.read_to_end(&mut bytes))
        .await
        .expect("the answer came within 30 s")
        .unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("status line {status_line:?}"));
    let headers: HashMap<String, String> = lines
        .map(|line| {
            let (name, value) = line.split_once(": ").unwrap();
            (name.to_ascii_lowercase(), value.to_string())
        })
        .collect();
    assert_eq!(
        headers["content-length"].parse::<usize>().unwrap(),
        body.len(),
        "Content-Length"
    );
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// GET /metrics, checked strictly.
async fn scrape(address: SocketAddr) -> Exposition {
    let answer = exchange(
        address,
        b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n",
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.headers["content-type"], EXPOSITION_CONTENT_TYPE);
    check(&answer.body).unwrap_or_else(|error| panic!("{error}\n{}", answer.body))
}

// ----- a strict checker of the text exposition format 0.0.4 --------------------------

/// A series: its sample name and its labels.
type Series = (String, BTreeMap<String, String>);

/// What the checker read.
struct Exposition {
    types: HashMap<String, String>,
    samples: HashMap<Series, f64>,
}

impl Exposition {
    fn get(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let labels = labels
            .iter()
            .map(|(label, value)| (label.to_string(), value.to_string()))
            .collect();
        self.samples.get(&(name.to_string(), labels)).copied()
    }

    fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.get(name, labels)
            .unwrap_or_else(|| panic!("no sample {name}{labels:?}"))
    }

    /// The samples of `name`, with their labels.
    fn all(&self, name: &str) -> Vec<(&BTreeMap<String, String>, f64)> {
        self.samples
            .iter()
            .filter(|((sample, _), _)| sample == name)
            .map(|((_, labels), value)| (labels, *value))
            .collect()
    }
}

/// A value as Go's ParseFloat (Prometheus's) reads it.
fn parse_value(text: &str) -> Result<f64, String> {
    match text {
        "+Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        _ if text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')) =>
        {
            text.parse().map_err(|_| format!("bad value {text:?}"))
        }
        _ => Err(format!("bad value {text:?}")),
    }
}

/// `name{labels} value [timestamp]` into its parts.
fn parse_sample(line: &str) -> Result<(String, BTreeMap<String, String>, f64), String> {
    let name_end = line
        .find(['{', ' '])
        .ok_or_else(|| format!("no value: {line:?}"))?;
    let name = &line[..name_end];
    if !is_metric_name(name) {
        return Err(format!("bad metric name {name:?}"));
    }
    let mut rest = &line[name_end..];
    let mut labels = BTreeMap::new();
    if let Some(inside) = rest.strip_prefix('{') {
        let mut characters = inside.char_indices().peekable();
        loop {
            // A label name up to '=', or the closing brace (after a comma or at once).
            let start = characters.peek().map(|&(at, _)| at).ok_or("unclosed {")?;
            if inside[start..].starts_with('}') {
                rest = &inside[start + 1..];
                break;
            }
            let equals = inside[start..]
                .find('=')
                .ok_or_else(|| format!("no '=' in {line:?}"))?;
            let label = &inside[start..start + equals];
            if !is_label_name(label) {
                return Err(format!("bad label name {label:?} in {line:?}"));
            }
            while characters
                .peek()
                .is_some_and(|&(at, _)| at <= start + equals)
            {
                characters.next();
            }
            if characters.next().map(|(_, c)| c) != Some('"') {
                return Err(format!("unquoted value of {label} in {line:?}"));
            }
            let mut value = String::new();
            loop {
                match characters.next().map(|(_, c)| c) {
                    None => return Err(format!("unterminated value in {line:?}")),
                    Some('"') => break,
                    Some('\\') => match characters.next().map(|(_, c)| c) {
                        Some('\\') => value.push('\\'),
                        Some('"') => value.push('"'),
                        Some('n') => value.push('\n'),
                        other => return Err(format!("bad escape \\{other:?} in {line:?}")),
                    },
                    Some('\n') => return Err(format!("raw line feed in {line:?}")),
                    Some(c) => value.push(c),
                }
            }
            if labels.insert(label.to_string(), value).is_some() {
                return Err(format!("label {label} twice in {line:?}"));
            }
            match characters.peek().map(|&(_, c)| c) {
                Some(',') => {
                    characters.next();
                }
                Some('}') => {}
                _ => return Err(format!("expected ',' or '}}' in {line:?}")),
            }
        }
    }
    let mut fields = rest
        .strip_prefix(' ')
        .ok_or_else(|| format!("no space before the value: {line:?}"))?
        .split(' ');
    let value = parse_value(fields.next().unwrap_or(""))?;
    if let Some(timestamp) = fields.next() {
        timestamp
            .parse::<i64>()
            .map_err(|_| format!("bad timestamp in {line:?}"))?;
    }
    if fields.next().is_some() {
        return Err(format!("trailing text in {line:?}"));
    }
    Ok((name.to_string(), labels, value))
}

/// Checks `text` against the text format 0.0.4, and the rules this endpoint keeps besides
/// (every family has its HELP and TYPE first): one HELP and one TYPE per family, before its
/// samples; a family's lines together; no series twice; counters non-negative; each
/// histogram's buckets in increasing `le`, cumulative, ending at `+Inf`, equal to `_count`,
/// with a `_sum`.
fn check(text: &str) -> Result<Exposition, String> {
    if !text.ends_with('\n') || text.contains('\r') {
        return Err("lines must end with a line feed alone".into());
    }
    let mut types: HashMap<String, String> = HashMap::new();
    let mut helps: HashSet<String> = HashSet::new();
    let mut finished: HashSet<String> = HashSet::new();
    let mut current: Option<String> = None;
    let mut samples: HashMap<Series, f64> = HashMap::new();
    let mut order: Vec<Series> = Vec::new();
    let mut enter = |family: &str, current: &mut Option<String>| -> Result<(), String> {
        if current.as_deref() != Some(family) {
            if finished.contains(family) {
                return Err(format!("the lines of {family} are not together"));
            }
            if let Some(previous) = current.take() {
                finished.insert(previous);
            }
            *current = Some(family.to_string());
        }
        Ok(())
    };
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let mut words = comment.trim_start().splitn(3, ' ');
            match words.next() {
                Some("HELP") => {
                    let name = words.next().ok_or("HELP without a name")?;
                    if !is_metric_name(name) || !helps.insert(name.to_string()) {
                        return Err(format!("bad or second HELP for {name}"));
                    }
                    let help = words.next().unwrap_or("");
                    let mut characters = help.chars();
                    while let Some(c) = characters.next() {
                        if c == '\\' && !matches!(characters.next(), Some('\\' | 'n')) {
                            return Err(format!("bad escape in HELP of {name}"));
                        }
                    }
                    enter(name, &mut current)?;
                }
                Some("TYPE") => {
                    let name = words.next().ok_or("TYPE without a name")?;
                    let kind = words.next().ok_or("TYPE without a type")?;
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind) {
                        return Err(format!("bad type {kind} of {name}"));
                    }
                    if !is_metric_name(name)
                        || types.insert(name.to_string(), kind.to_string()).is_some()
                    {
                        return Err(format!("bad or second TYPE for {name}"));
                    }
                    if samples.keys().any(|(sample, _)| sample == name) {
                        return Err(format!("TYPE of {name} after its samples"));
                    }
                    enter(name, &mut current)?;
                }
                _ => {} // a comment
            }
            continue;
        }
        let (name, labels, value) = parse_sample(line)?;
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| {
                name.strip_suffix(suffix)
                    .filter(|base| types.get(*base).is_some_and(|kind| kind == "histogram"))
            })
            .unwrap_or(&name)
            .to_string();
        let kind = types
            .get(&family)
            .ok_or_else(|| format!("{name} has no TYPE before it"))?;
        if !helps.contains(&family) {
            return Err(format!("{family} has no HELP"));
        }
        enter(&family, &mut current)?;
        if kind == "histogram" && name == family {
            return Err(format!("histogram {family} has a plain sample"));
        }
        if kind == "counter" && (value.is_nan() || value < 0.0) {
            return Err(format!("counter {name} is {value}"));
        }
        let series = (name, labels);
        if samples.insert(series.clone(), value).is_some() {
            return Err(format!("series {series:?} twice"));
        }
        order.push(series);
    }
    // Histograms: per family and label set (without le), in the order written.
    let mut buckets: HashMap<Series, Vec<(f64, f64)>> = HashMap::new();
    for (name, labels) in &order {
        let Some(family) = name.strip_suffix("_bucket") else {
            continue;
        };
        if types.get(family).map(String::as_str) != Some("histogram") {
            continue;
        }
        let mut rest = labels.clone();
        let bound = rest
            .remove("le")
            .ok_or_else(|| format!("{name}{labels:?} has no le"))?;
        let bound = parse_value(&bound)?;
        buckets
            .entry((family.to_string(), rest))
            .or_default()
            .push((bound, samples[&(name.clone(), labels.clone())]));
    }
    for ((family, labels), list) in &buckets {
        for pair in list.windows(2) {
            if pair[0].0.partial_cmp(&pair[1].0) != Some(std::cmp::Ordering::Less) {
                return Err(format!("{family}{labels:?}: le not increasing"));
            }
            if pair[0].1 > pair[1].1 {
                return Err(format!("{family}{labels:?}: buckets not cumulative"));
            }
        }
        let last = list.last().unwrap();
        if last.0 != f64::INFINITY {
            return Err(format!("{family}{labels:?}: no +Inf bucket"));
        }
        let count = samples
            .get(&(format!("{family}_count"), labels.clone()))
            .ok_or_else(|| format!("{family}{labels:?}: no _count"))?;
        if *count != last.1 {
            return Err(format!("{family}{labels:?}: _count {count} is not +Inf's"));
        }
        if !samples.contains_key(&(format!("{family}_sum"), labels.clone())) {
            return Err(format!("{family}{labels:?}: no _sum"));
        }
    }
    for (name, labels) in samples.keys() {
        for suffix in ["_sum", "_count"] {
            if let Some(family) = name.strip_suffix(suffix) {
                if types.get(family).map(String::as_str) == Some("histogram")
                    && !buckets.contains_key(&(family.to_string(), labels.clone()))
                {
                    return Err(format!("{name}{labels:?} has no buckets"));
                }
            }
        }
    }
    Ok(Exposition { types, samples })
}

#[test]
fn the_checker_refuses_what_prometheus_refuses() {
    let good = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\",y=\"q\\\"\"} 3\n";
    assert!(check(good).is_ok());
    let refused = [
        "# HELP a A.\n# TYPE a counter\na 1", // no final line feed
        "# TYPE a counter\na 1\n",            // no HELP
        "# HELP a A.\na 1\n",                 // no TYPE
        "# HELP a A.\n# TYPE a counter\na 1\n# TYPE a counter\n", // TYPE twice
        "# HELP a A.\n# TYPE a counter\na{x=\"1\",x=\"2\"} 1\n", // label twice
        "# HELP a A.\n# TYPE a counter\na{x=\"\\t\"} 1\n", // bad escape
        "# HELP a A.\n# TYPE a counter\na{x=1} 1\n", // unquoted
        "# HELP a A.\n# TYPE a counter\na{1x=\"1\"} 1\n", // label name
        "# HELP a A.\n# TYPE a counter\na 1\na 2\n", // series twice
        "# HELP a A.\n# TYPE a counter\na -1\n", // negative counter
        "# HELP a A.\n# TYPE a gauge\na one\n", // value
        "# HELP a-b A.\n# TYPE a-b gauge\na-b 1\n", // metric name
        "# HELP a A.\n# TYPE a gauge\n# HELP b B.\n# TYPE b gauge\nb 1\na 1\n", // apart
        "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n\
         h_sum 1\nh_count 1\n", // not cumulative
        "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", // no +Inf
        "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n", // count
        "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\n\
         h_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", // le order
    ];
    for text in refused {
        assert!(check(text).is_err(), "accepted:\n{text}");
    }
}

// ----- the endpoint ------------------------------------------------------------------

#[test]
fn counters_follow_the_work_done_between_two_scrapes() {
    serially(async {
        let (instance, server, metrics) = start("follow");
        let address = metrics.local_addr();
        let client = connect(server.local_addr()).await;
        client
            .simple_query("create table t (id number primary key, name varchar2(20))")
            .await
            .unwrap();

        let before = scrape(address).await;
        // 5 statements outside BEGIN commit on their own; one explicit transaction commits,
        // another rolls back: 6 commits and 1 rollback.
        for id in 1..=5 {
            client
                .simple_query(&format!("insert into t values ({id}, 'row {id}')"))
                .await
                .unwrap();
        }
        client
            .simple_query(
                "begin; insert into t values (6, 'six'); update t set name = 'x' where id = 1; commit",
            )
            .await
            .unwrap();
        client
            .simple_query("begin; delete from t where id = 2; rollback")
            .await
            .unwrap();
        let after = scrape(address).await;

        let delta = |name: &str| after.value(name, &[]) - before.value(name, &[]);
        assert_eq!(delta("oracledb_activity_user_commits"), 6.0);
        assert_eq!(delta("oracledb_activity_user_rollbacks"), 1.0);
        assert!(delta("oracledb_activity_execute_count") >= 9.0);
        assert!(delta("oracledb_activity_parse_count_total") >= 9.0);
        for exposition in [&before, &after] {
            assert_eq!(
                exposition.types["oracledb_activity_user_commits"],
                "counter"
            );
            assert_eq!(
                exposition.value("oracledb_activity_user_commits", &[]),
                exposition.value("oracledb_sysstat_user_commits", &[])
            );
            assert_eq!(exposition.value("oracledb_up", &[]), 1.0);
        }
        // Buffers were got: the cache buffers chains latches say so.
        let chains = [("name", "cache buffers chains")];
        assert!(
            after.value("oracledb_latch_gets_total", &chains)
                > before.value("oracledb_latch_gets_total", &chains)
        );
        assert_eq!(
            after.all("oracledb_latch_gets_total").len(),
            LatchName::COUNT
        );
        let db_time = [("stat_name", "DB time")];
        assert!(
            after.value("oracledb_sys_time_model_seconds_total", &db_time)
                > before.value("oracledb_sys_time_model_seconds_total", &db_time)
        );
        // This connection's session, idle between its requests; LGWR and DBW0 at work.
        let sessions = |status: &str, kind: &str| {
            after.value(
                "oracledb_sessions_value",
                &[("status", status), ("type", kind)],
            )
        };
        assert!(sessions("INACTIVE", "USER") + sessions("ACTIVE", "USER") >= 1.0);
        assert!(sessions("ACTIVE", "BACKGROUND") >= 1.0);

        // The same numbers as the views, read through SQL with nothing committing between.
        let commits = first_value(
            &client,
            "select value from v$sysstat where name = 'user commits'",
        )
        .await;
        let waits = first_value(
            &client,
            "select total_waits || ' ' || time_waited_micro from v$system_event \
             where event = 'log file sync'",
        )
        .await;
        let histogram = first_value(
            &client,
            "select sum(wait_count) from v$event_histogram_micro where event = 'log file sync'",
        )
        .await;
        let third = scrape(address).await;
        assert_eq!(
            third.value("oracledb_activity_user_commits", &[]),
            commits.parse::<f64>().unwrap()
        );
        let (total_waits, time_waited_micro) = waits.split_once(' ').unwrap();
        let sync = [("event", "log file sync"), ("wait_class", "Commit")];
        let count = third.value("oracledb_system_event_wait_seconds_count", &sync);
        assert_eq!(count, total_waits.parse::<f64>().unwrap());
        assert_eq!(count, histogram.parse::<f64>().unwrap());
        let sum = third.value("oracledb_system_event_wait_seconds_sum", &sync);
        assert!((sum - time_waited_micro.parse::<f64>().unwrap() / 1e6).abs() < 1e-9);
        // Commit's class time is its events' time.
        let class_sum: f64 = third
            .all("oracledb_system_event_wait_seconds_sum")
            .into_iter()
            .filter(|(labels, _)| labels["wait_class"] == "Commit")
            .map(|(_, value)| value)
            .sum();
        assert!((third.value("oracledb_wait_time_commit", &[]) - class_sum).abs() < 1e-6);
        // Every event's buckets are v$event_histogram_micro's bounds, in seconds.
        let bounds: Vec<&str> = third
            .all("oracledb_system_event_wait_seconds_bucket")
            .into_iter()
            .filter(|(labels, _)| labels["event"] == "log file sync")
            .map(|(labels, _)| labels["le"].as_str())
            .collect();
        assert_eq!(bounds.len(), HISTOGRAM_BUCKETS);
        assert!(bounds.contains(&"0.000512") && bounds.contains(&"0.001024"));

        // A scrape logs on to nothing, parses and executes nothing.
        let fourth = scrape(address).await;
        for unmoved in [
            "oracledb_sysstat_logons_cumulative",
            "oracledb_activity_execute_count",
            "oracledb_activity_parse_count_total",
            "oracledb_sysstat_opened_cursors_cumulative",
        ] {
            assert_eq!(
                fourth.value(unmoved, &[]),
                third.value(unmoved, &[]),
                "{unmoved}"
            );
        }
        assert_eq!(
            fourth.value("oracledb_exporter_scrapes_total", &[]),
            third.value("oracledb_exporter_scrapes_total", &[]) + 1.0
        );
        drop(client);
        stop(instance, server, metrics);
    });
}

#[test]
fn bad_requests_get_their_status_and_the_endpoint_goes_on() {
    serially(async {
        let (instance, server, metrics) = start("requests");
        let address = metrics.local_addr();
        let oversized = format!(
            "GET /metrics HTTP/1.1\r\nX-Padding: {}\r\n\r\n",
            "x".repeat(METRICS_REQUEST_BYTES_MAX)
        );
        let cases: [(&[u8], u16); 7] = [
            (
                b"POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",
                405,
            ),
            (b"HEAD /metrics HTTP/1.1\r\n\r\n", 405),
            (b"GET /metric HTTP/1.1\r\n\r\n", 404),
            (b"GET / HTTP/1.1\r\n\r\n", 404),
            (b"hello\r\n\r\n", 400),
            (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),
            (oversized.as_bytes(), 431),
        ];
        for (request, status) in cases {
            let answer = exchange(address, request).await;
            assert_eq!(
                answer.status,
                status,
                "{:?}",
                String::from_utf8_lossy(&request[..request.len().min(40)])
            );
            if status == 405 {
                assert_eq!(answer.headers["allow"], "GET");
            }
            assert_eq!(answer.headers["connection"], "close");
            // The endpoint goes on.
            scrape(address).await;
        }
        // A query string is not part of the path; HTTP/1.0 is answered too.
        let answer = exchange(address, b"GET /metrics?collect[]=all HTTP/1.0\r\n\r\n").await;
        assert_eq!(answer.status, 200);
        // A client that leaves before asking costs nothing.
        drop(TcpStream::connect(address).await.unwrap());
        scrape(address).await;
        stop(instance, server, metrics);
    });
}

#[test]
fn idle_connections_are_closed_and_a_scrape_waits_for_their_slot() {
    serially(async {
        let (instance, server, metrics) = start("idle");
        let address = metrics.local_addr();
        let started = Instant::now();
        // Every slot taken by a connection that sends half a request and then nothing.
        let mut idle = Vec::new();
        for _ in 0..METRICS_CONNECTIONS_MAX {
            let mut socket = TcpStream::connect(address).await.unwrap();
            socket
                .write_all(b"GET /metrics HTTP/1.1\r\n")
                .await
                .unwrap();
            idle.push(socket);
        }
        let waiting = tokio::spawn(scrape(address));
        for socket in &mut idle {
            let answer = read_answer(socket).await;
            assert_eq!(answer.status, 408);
        }
        assert!(started.elapsed() >= METRICS_READ_TIMEOUT - Duration::from_millis(100));
        // Their slots freed, the scrape that waited in the backlog is served.
        let exposition = waiting.await.unwrap();
        assert_eq!(exposition.value("oracledb_up", &[]), 1.0);
        stop(instance, server, metrics);
    });
}

#[test]
fn oracledb_up_falls_to_zero_when_the_instance_shuts_down() {
    serially(async {
        let (instance, _server, metrics) = start("up");
        assert_eq!(
            scrape(metrics.local_addr()).await.value("oracledb_up", &[]),
            1.0
        );
        instance.shutdown().unwrap();
        assert_eq!(
            scrape(metrics.local_addr()).await.value("oracledb_up", &[]),
            0.0
        );
    });
}

#[test]
fn the_endpoint_listens_on_loopback_addresses_only() {
    let _instances = INSTANCES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (instance, _server) = common::start("metrics-loopback", &[]);
    let refused = MetricsEndpoint::start(instance.clone(), "0.0.0.0:0".parse().unwrap());
    assert_eq!(
        refused.err().map(|error| error.kind()),
        Some(std::io::ErrorKind::InvalidInput)
    );
    instance.shutdown().unwrap();
}

/// The largest exposition Pythia can produce: every event waited on in every bucket, every
/// statistic and latch, mutex sleeps at locations that need escaping.
#[test]
fn the_largest_exposition_is_well_formed_and_within_the_bound() {
    let mut totals = EventTotals::ZERO;
    totals.histogram = [u64::MAX / 64; HISTOGRAM_BUCKETS];
    totals.total_waits = totals.histogram.iter().sum();
    totals.time_waited_micro = u64::MAX;
    totals.total_timeouts = u64::MAX;
    let locations: [&'static str; 3] = ["kglpin1   4", "say \"where\"", "back\\slash\nline"];
    let snapshot = Snapshot {
        instance_open: true,
        statistics: Statistic::ALL
            .into_iter()
            .map(|statistic| StatisticRow {
                statistic,
                value: u64::MAX,
            })
            .collect(),
        events: WaitEvent::ALL
            .into_iter()
            .map(|event| (event, totals))
            .collect(),
        latches: LatchName::ALL
            .into_iter()
            .map(|name| LatchRow {
                name,
                statistics: LatchStatistics {
                    gets: u64::MAX,
                    misses: u64::MAX,
                    spin_gets: u64::MAX,
                    sleeps: u64::MAX,
                    wait_time: u64::MAX,
                    immediate_gets: u64::MAX,
                    immediate_misses: u64::MAX,
                },
                children: 1,
            })
            .collect(),
        mutex_sleeps: [MutexType::LibraryCache, MutexType::CursorPin]
            .into_iter()
            .flat_map(|mutex_type| {
                locations.map(|location| MutexSleepRow {
                    mutex_type,
                    location,
                    sleeps: 1,
                    wait_time: 1,
                })
            })
            .collect(),
        time_model: TimeModelStatistic::ALL
            .into_iter()
            .map(|statistic| TimeModelRow {
                statistic,
                value: u64::MAX,
            })
            .collect(),
        sessions: vec![SessionCount {
            status: SessionStatus::Active,
            session_type: SessionType::User,
            sessions: 2048,
        }],
        read_micros: 1,
    };
    let text = render(&snapshot, u64::MAX);
    assert!(
        text.len() < METRICS_BODY_BYTES_MAX / 2,
        "{} bytes: the bound is too near",
        text.len()
    );
    let exposition = check(&text).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        exposition.value(
            "oracledb_mutex_sleeps_total",
            &[
                ("mutex_type", "Cursor Pin"),
                ("location", "back\\slash\nline")
            ]
        ),
        1.0
    );
    let statistics = exposition
        .types
        .keys()
        .filter(|name| name.starts_with("oracledb_sysstat_"))
        .count();
    assert_eq!(statistics, Statistic::COUNT);
    assert_eq!(
        exposition
            .all("oracledb_system_event_wait_seconds_count")
            .len(),
        WaitEvent::COUNT
    );
}
