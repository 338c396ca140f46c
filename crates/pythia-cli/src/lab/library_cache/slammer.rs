//! `pythia lab slammer`: seed 000's SQLSlammer. N sessions, each on its own thread, issue
//! `total_slams` batches ("slams") of `stmts_per_slam` statements
//!
//! ```text
//!   literal:  SELECT /* comment: $$$$ */ "DUMMY" FROM dual WHERE dummy = '0412345'
//!   bind:     SELECT /* comment: $$$$ */ "DUMMY" FROM dual WHERE dummy = :hv
//! ```
//!
//! padded by the comment to `stmt_size` characters, sleeping `slam_sleep` between slams. Each
//! session draws its values from its own seeded generator, so that (as in the seed, where each
//! job seeded its generator with its job number) the sessions make their own literal streams.
//!
//! Three configurations on a fresh instance each (seed 000 Table 2, tests 1, 2 and 3):
//! literals under `cursor_sharing = EXACT`, binds under EXACT, literals under FORCE, at
//! `shared_pool_size = 15M`. The report has the shape of the seed's Table 3, with its numbers
//! beside. Then a throughput comparison without sleeps: Pythia binds, Pythia FORCE, and the
//! same literal statements on SQLite re-prepared for each execution; and the seed's Figure 1
//! sweep (literal SQL, EXACT, shared pool 10M to 50M, two sizes at quick scale: Oracle 8.1.5
//! got 25-31% slower as the pool grew). `-p name=value` sets the SQLSlammer parameters.
//!
//! A view the build does not have prints "n/a". Every loop stops at its count or at the
//! configuration's time limit, whichever comes first.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::{Instance, Value};

use crate::lab::common::{
    lab_error, latch_delta, latch_sample, latches_that_slept, number, progress, query_rows,
    query_sum, time_model_micros, LatchCounts, Rng, Snapshot,
};

const SEED: u64 = 0x534c_414d_4d45; // "SLAMME"
/// The literals cycle over this many values (the seed's generator: "over 1 million").
const LITERAL_VALUES: u64 = 10_000_000;
/// A session gives up after this many failed statements.
const SESSION_ERRORS_MAX: u64 = 10;
/// The most sessions `-p sessions=` accepts.
const SESSIONS_MAX: u64 = 256;
/// The longest statement `-p stmt_size=` accepts, in characters.
const STMT_SIZE_MAX: u64 = 64 * 1024;

const COMMENT_HEAD: &str = "SELECT /* comment: ";

/// How a statement carries its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Literal,
    Bind,
}

/// One statement of a slam: its text and the value it looks for (the literal in the text, or
/// the value to bind to `:hv`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedStatement {
    pub sql: String,
    pub value: String,
}

/// A session's statement stream: the same session number gives the same statements.
pub struct StatementGenerator {
    rng: Rng,
    stmt_size: usize,
    random_comment: bool,
}

impl StatementGenerator {
    pub fn new(session_number: u64, stmt_size: usize, random_comment: bool) -> StatementGenerator {
        StatementGenerator {
            rng: Rng::new(SEED ^ (session_number + 1).wrapping_mul(0x1_0000_0001)),
            stmt_size,
            random_comment,
        }
    }

    /// The next statement. The value is drawn in both styles, so a session's bind values are
    /// the literals of its literal stream.
    pub fn next_statement(&mut self, style: Style) -> GeneratedStatement {
        let value = format!("{:07}", self.rng.below(LITERAL_VALUES));
        let tail = match style {
            Style::Literal => format!(" */ \"DUMMY\" FROM dual WHERE dummy = '{value}'"),
            Style::Bind => " */ \"DUMMY\" FROM dual WHERE dummy = :hv".to_string(),
        };
        let padding_length = self
            .stmt_size
            .saturating_sub(COMMENT_HEAD.len() + tail.len());
        let padding: String = if self.random_comment {
            (0..padding_length)
                .map(|_| (b'a' + self.rng.below(26) as u8) as char)
                .collect()
        } else {
            "$".repeat(padding_length)
        };
        GeneratedStatement {
            sql: format!("{COMMENT_HEAD}{padding}{tail}"),
            value,
        }
    }
}

/// The SQLSlammer parameters (Listing 1) plus the lab's limits.
#[derive(Clone)]
struct Workload {
    sessions: usize,
    stmts_per_slam: u64,
    total_slams: u64,
    /// Slams of the throughput comparison's runs (binds, FORCE, SQLite: the cheap ones).
    comparison_slams: u64,
    slam_sleep: Duration,
    stmt_size: usize,
    random_comment: bool,
    /// Each configuration stops at this even if its slams are not done.
    time_limit: Duration,
}

impl Workload {
    fn describe(&self) -> String {
        format!(
            "{} sessions x {} slams x {} statements, {:.1} ms sleep between slams, statements padded to {} characters, random comment {}, at most {} s per configuration",
            self.sessions,
            self.total_slams,
            self.stmts_per_slam,
            self.slam_sleep.as_secs_f64() * 1000.0,
            self.stmt_size,
            if self.random_comment { "on" } else { "off" },
            self.time_limit.as_secs()
        )
    }
}

/// A row of Table 2: how the statements are written and how the instance shares them.
#[derive(Clone, Copy)]
struct Configuration {
    label: &'static str,
    style: Style,
    cursor_sharing: &'static str,
}

const CONFIGURATIONS: [Configuration; 3] = [
    Configuration {
        label: "literals EXACT",
        style: Style::Literal,
        cursor_sharing: "EXACT",
    },
    Configuration {
        label: "binds EXACT",
        style: Style::Bind,
        cursor_sharing: "EXACT",
    },
    Configuration {
        label: "literals FORCE",
        style: Style::Literal,
        cursor_sharing: "FORCE",
    },
];

/// Seed 000 Table 3, tests 1 (literal NDS, EXACT), 2 (binds NDS, EXACT) and 3 (literal NDS,
/// FORCE): 10 jobs x 1000 slams x 5 statements, 0.02 s sleep, shared pool 15M, one CPU.
const SEED_TABLE_3: &[(&str, [&str; 3])] = &[
    ("elapsed time (secs)", ["100", "51", "45"]),
    ("latch wait time (secs)", ["183.2", "24.6", "9.7"]),
    ("library cache latch gets", ["", "", ""]),
    ("library cache latch sleeps", ["", "", ""]),
    (
        "library cache latch sleep rate",
        ["0.24%", "0.10%", "0.09%"],
    ),
    ("shared pool latch gets", ["", "", ""]),
    ("shared pool latch sleeps", ["", "", ""]),
    ("shared pool latch sleep rate", ["0.08%", "0.00%", "0.00%"]),
    ("latch with most sleeps", ["", "", ""]),
    ("flushed chunks", ["144,904", "0", "0"]),
    ("pins and releases", ["736,368", "100,215", "37,203"]),
    ("executions", ["53,077", "52,709", "52,665"]),
    ("parse count (hard)", ["50,274", "195", "189"]),
    (
        "no-parse ratio (1 - hard/executions)",
        ["5.3%", "99.6%", "99.6%"],
    ),
    ("SQL AREA get hit ratio (v$librarycache)", ["", "", ""]),
    ("CPU used (secs)", ["194.5", "103.9", "91.7"]),
    ("DB CPU (secs, time model)", ["", "", ""]),
    ("parse time CPU (secs)", ["59.8", "9.1", "12.1"]),
    ("statements/s", ["", "", ""]),
];

/// What the views say at one moment (None: the view is not there or failed).
struct ViewSample {
    latches: Option<HashMap<String, LatchCounts>>,
    flushed_chunks: Option<f64>,
    pins_and_releases: Option<f64>,
    /// v$librarycache's SQL AREA row: gets, gethits.
    sql_area: Option<(f64, f64)>,
}

impl ViewSample {
    fn take(session: &mut pythia::Session) -> ViewSample {
        ViewSample {
            latches: latch_sample(session),
            flushed_chunks: query_sum(session, "SELECT kghlufsh, kghluops FROM x$kghlu", 0),
            pins_and_releases: query_sum(session, "SELECT kghlufsh, kghluops FROM x$kghlu", 1),
            sql_area: query_rows(
                session,
                "SELECT gets, gethits FROM v$librarycache WHERE namespace = 'SQL AREA'",
            )
            .and_then(|rows| {
                let row = rows.first()?;
                Some((number(row.first()?)?, number(row.get(1)?)?))
            }),
        }
    }

    /// SQL AREA gethits / gets since `before`, as a percentage.
    fn sql_area_hit_ratio(&self, before: &ViewSample) -> Option<String> {
        let (gets, gethits) = self.sql_area?;
        let (gets_before, gethits_before) = before.sql_area?;
        let gets = gets - gets_before;
        Some(if gets > 0.0 {
            format!("{:.1}%", 100.0 * (gethits - gethits_before) / gets)
        } else {
            "no gets".to_string()
        })
    }

    fn latch_delta(&self, before: &ViewSample, name: &str) -> Option<LatchCounts> {
        Some(latch_delta(
            before.latches.as_ref()?,
            self.latches.as_ref()?,
            name,
        ))
    }

    /// The latch that slept most since `before`: "name: sleeps", "none" or "n/a".
    fn most_slept(&self, before: &ViewSample) -> String {
        match (before.latches.as_ref(), self.latches.as_ref()) {
            (Some(before), Some(after)) => latches_that_slept(before, after, 1)
                .first()
                .map_or("none".to_string(), |(name, counts)| {
                    format!("{name}: {:.0}", counts.sleeps)
                }),
            _ => "n/a".to_string(),
        }
    }
}

fn difference(now: Option<f64>, then: Option<f64>) -> Option<f64> {
    Some(now? - then?)
}

/// The measurements of one configuration.
struct Measured {
    elapsed: f64,
    /// Statements the sessions completed.
    statements: u64,
    errors: u64,
    latch_wait_micros: u64,
    library_cache: Option<LatchCounts>,
    shared_pool: Option<LatchCounts>,
    most_slept_latch: String,
    sql_area_hit_ratio: Option<String>,
    flushed_chunks: Option<f64>,
    pins_and_releases: Option<f64>,
    executions: u64,
    hard_parses: u64,
    cpu_centiseconds: u64,
    /// DB CPU (time model) over the run, to check 'CPU used by this session' against.
    db_cpu_micros: u64,
    parse_cpu_centiseconds: u64,
    /// The two non-idle events waited on longest: "event: ms, ...".
    top_events: String,
}

impl Measured {
    fn statements_per_second(&self) -> f64 {
        self.statements as f64 / self.elapsed.max(1e-9)
    }
}

/// What one session did.
#[derive(Default)]
struct SessionTally {
    statements: u64,
    errors: u64,
}

fn open_instance(
    dir: &Path,
    shared_pool_size: &str,
    cursor_sharing: &str,
) -> pythia::Result<Arc<Instance>> {
    let _ = std::fs::remove_dir_all(dir);
    Instance::open(
        dir,
        &[
            ("shared_pool_size", shared_pool_size),
            ("cursor_sharing", cursor_sharing),
        ],
    )
}

/// Runs one configuration on a fresh instance in `dir`.
fn run_configuration(
    dir: &Path,
    workload: &Workload,
    configuration: Configuration,
    shared_pool_size: &str,
) -> pythia::Result<Measured> {
    let instance = open_instance(dir, shared_pool_size, configuration.cursor_sharing)?;
    let mut monitor = instance.connect()?;
    let views_before = ViewSample::take(&mut monitor);
    let before = Snapshot::take();
    let db_cpu_before = time_model_micros("DB CPU");
    let started = Instant::now();
    let deadline = started + workload.time_limit;
    let stop = AtomicBool::new(false);
    let bar = progress(
        workload.sessions as u64 * workload.total_slams,
        &format!("{} {shared_pool_size}", configuration.label),
    );
    let mut statements = 0;
    let mut errors = 0;
    crate::lab::common::run_sessions(
        workload.sessions,
        &stop,
        |number| {
            slam(
                &instance,
                number as u64,
                workload,
                configuration.style,
                deadline,
                &stop,
                &bar,
            )
        },
        |tally| {
            statements += tally.statements;
            errors += tally.errors;
        },
    )?;
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    let after = Snapshot::take();
    let db_cpu_micros = time_model_micros("DB CPU").saturating_sub(db_cpu_before);
    let views_after = ViewSample::take(&mut monitor);
    drop(monitor);
    instance.shutdown()?;

    let latch_wait_micros = ["latch: shared pool", "latch: library cache", "latch free"]
        .iter()
        .map(|event| after.event_delta(&before, event).1)
        .sum();
    Ok(Measured {
        elapsed,
        statements,
        errors,
        latch_wait_micros,
        library_cache: views_after.latch_delta(&views_before, "library cache"),
        shared_pool: views_after.latch_delta(&views_before, "shared pool"),
        most_slept_latch: views_after.most_slept(&views_before),
        sql_area_hit_ratio: views_after.sql_area_hit_ratio(&views_before),
        flushed_chunks: difference(views_after.flushed_chunks, views_before.flushed_chunks),
        pins_and_releases: difference(
            views_after.pins_and_releases,
            views_before.pins_and_releases,
        ),
        executions: after.statistic_delta(&before, "execute count"),
        hard_parses: after.statistic_delta(&before, "parse count (hard)"),
        cpu_centiseconds: after.statistic_delta(&before, "CPU used by this session"),
        db_cpu_micros,
        parse_cpu_centiseconds: after.statistic_delta(&before, "parse time cpu"),
        top_events: after
            .top_events(&before, 2)
            .iter()
            .map(|(event, _, micros)| format!("{event}: {:.0} ms", *micros as f64 / 1000.0))
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// One SQLSlammer session.
fn slam(
    instance: &Arc<Instance>,
    number: u64,
    workload: &Workload,
    style: Style,
    deadline: Instant,
    stop: &AtomicBool,
    bar: &indicatif::ProgressBar,
) -> pythia::Result<SessionTally> {
    let mut session = instance.connect()?;
    let mut generator =
        StatementGenerator::new(number, workload.stmt_size, workload.random_comment);
    let mut tally = SessionTally::default();
    for slam_number in 0..workload.total_slams {
        if stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
            break;
        }
        if slam_number > 0 && !workload.slam_sleep.is_zero() {
            std::thread::sleep(workload.slam_sleep);
        }
        for _ in 0..workload.stmts_per_slam {
            let statement = generator.next_statement(style);
            let outcome = match style {
                Style::Literal => session.execute(&statement.sql),
                Style::Bind => {
                    session.execute_with(&statement.sql, &[Value::text(statement.value.clone())])
                }
            };
            match outcome {
                Ok(_) => tally.statements += 1,
                Err(error) => {
                    tally.errors += 1;
                    if tally.errors == 1 {
                        eprintln!("slammer session {number}: {error}");
                    }
                    if tally.errors >= SESSION_ERRORS_MAX {
                        return Err(lab_error(format!(
                            "slammer session {number}: too many failed statements, last: {error}"
                        )));
                    }
                }
            }
        }
        bar.inc(1);
    }
    Ok(tally)
}

/// The same literal statements on SQLite, prepared anew for each execution (no statement
/// cache), one connection per session on one database file in WAL mode.
fn run_sqlite(dir: &Path, workload: &Workload) -> pythia::Result<Measured> {
    let sqlite_error = |error: rusqlite::Error| lab_error(format!("sqlite: {error}"));
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)
        .map_err(|error| lab_error(format!("{}: {error}", dir.display())))?;
    let file = dir.join("slammer.db");
    {
        let connection = rusqlite::Connection::open(&file).map_err(sqlite_error)?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL; CREATE TABLE dual (dummy TEXT); INSERT INTO dual VALUES ('X');",
            )
            .map_err(sqlite_error)?;
    }
    let started = Instant::now();
    let deadline = started + workload.time_limit;
    let bar = progress(
        workload.sessions as u64 * workload.total_slams,
        "sqlite re-prepare",
    );
    let mut statements = 0;
    std::thread::scope(|scope| -> pythia::Result<()> {
        let workers: Vec<_> = (0..workload.sessions)
            .map(|number| {
                let (file, bar) = (&file, &bar);
                scope.spawn(move || -> Result<SessionTally, rusqlite::Error> {
                    let connection = rusqlite::Connection::open(file)?;
                    let mut generator = StatementGenerator::new(
                        number as u64,
                        workload.stmt_size,
                        workload.random_comment,
                    );
                    let mut tally = SessionTally::default();
                    for slam_number in 0..workload.total_slams {
                        if Instant::now() >= deadline {
                            break;
                        }
                        if slam_number > 0 && !workload.slam_sleep.is_zero() {
                            std::thread::sleep(workload.slam_sleep);
                        }
                        for _ in 0..workload.stmts_per_slam {
                            let statement = generator.next_statement(Style::Literal);
                            let mut prepared = connection.prepare(&statement.sql)?;
                            let mut rows = prepared.query([])?;
                            while rows.next()?.is_some() {}
                            tally.statements += 1;
                        }
                        bar.inc(1);
                    }
                    Ok(tally)
                })
            })
            .collect();
        for worker in workers {
            let tally = worker
                .join()
                .expect("sqlite session panicked")
                .map_err(sqlite_error)?;
            statements += tally.statements;
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    Ok(Measured {
        elapsed,
        statements,
        errors: 0,
        latch_wait_micros: 0,
        library_cache: None,
        shared_pool: None,
        most_slept_latch: "n/a".to_string(),
        sql_area_hit_ratio: None,
        flushed_chunks: None,
        pins_and_releases: None,
        executions: statements,
        hard_parses: statements,
        cpu_centiseconds: 0,
        db_cpu_micros: 0,
        parse_cpu_centiseconds: 0,
        top_events: String::new(),
    })
}

fn or_na(value: Option<String>) -> String {
    value.unwrap_or_else(|| "n/a".to_string())
}

fn rate(counts: Option<LatchCounts>) -> String {
    or_na(counts.map(|counts| {
        if counts.gets > 0.0 {
            format!("{:.3}%", 100.0 * counts.sleeps / counts.gets)
        } else {
            "0.000%".to_string()
        }
    }))
}

/// Our column of Table 3 for one configuration, in SEED_TABLE_3's order.
fn table_3_column(measured: &Measured) -> Vec<String> {
    let latch = |counts: Option<LatchCounts>, field: fn(LatchCounts) -> f64| {
        or_na(counts.map(|counts| format!("{:.0}", field(counts))))
    };
    vec![
        format!("{:.2}", measured.elapsed),
        format!("{:.3}", measured.latch_wait_micros as f64 / 1e6),
        latch(measured.library_cache, |counts| counts.gets),
        latch(measured.library_cache, |counts| counts.sleeps),
        rate(measured.library_cache),
        latch(measured.shared_pool, |counts| counts.gets),
        latch(measured.shared_pool, |counts| counts.sleeps),
        rate(measured.shared_pool),
        measured.most_slept_latch.clone(),
        or_na(measured.flushed_chunks.map(|value| format!("{value:.0}"))),
        or_na(
            measured
                .pins_and_releases
                .map(|value| format!("{value:.0}")),
        ),
        measured.executions.to_string(),
        measured.hard_parses.to_string(),
        format!(
            "{:.1}%",
            100.0 * (1.0 - measured.hard_parses as f64 / measured.executions.max(1) as f64)
        ),
        or_na(measured.sql_area_hit_ratio.clone()),
        format!("{:.2}", measured.cpu_centiseconds as f64 / 100.0),
        format!("{:.2}", measured.db_cpu_micros as f64 / 1e6),
        format!("{:.2}", measured.parse_cpu_centiseconds as f64 / 100.0),
        format!("{:.0}", measured.statements_per_second()),
    ]
}

fn yes_no(condition: bool) -> &'static str {
    if condition {
        "yes"
    } else {
        "NO"
    }
}

/// The `-p` settings [`run`] takes (`tfuse_rand_comment` is also `random_comment`).
pub const SETTINGS: &[&str] = &[
    "sessions",
    "stmts_per_slam",
    "total_slams",
    "slam_sleeptime",
    "stmt_size",
    "random_comment",
    "time_limit",
    "shared_pool_size",
];

/// Applies `-p name=value` settings to the workload: the SQLSlammer parameters by their
/// Listing 1 names (without `_IN`), `sessions`, `time_limit` (seconds) and
/// `shared_pool_size` (Table 3's and the comparison's pool). Returns the pool size.
fn apply_parameters(
    workload: &mut Workload,
    parameters: &[(String, String)],
) -> pythia::Result<String> {
    let mut shared_pool_size = "15M".to_string();
    for (name, value) in parameters {
        let invalid = || lab_error(format!("slammer: invalid value '{value}' for {name}"));
        let count = |value: &str| value.parse::<u64>().ok().filter(|count| *count > 0);
        let seconds = |value: &str| {
            value
                .parse::<f64>()
                .ok()
                .filter(|seconds| seconds.is_finite() && *seconds >= 0.0 && *seconds <= 3600.0)
                .map(Duration::from_secs_f64)
        };
        match name.to_ascii_lowercase().as_str() {
            "sessions" => {
                workload.sessions = count(value)
                    .filter(|sessions| *sessions <= SESSIONS_MAX)
                    .ok_or_else(invalid)? as usize
            }
            "stmts_per_slam" => workload.stmts_per_slam = count(value).ok_or_else(invalid)?,
            "total_slams" => {
                workload.total_slams = count(value).ok_or_else(invalid)?;
                workload.comparison_slams = workload.total_slams.max(workload.comparison_slams);
            }
            "slam_sleeptime" => workload.slam_sleep = seconds(value).ok_or_else(invalid)?,
            "stmt_size" => {
                workload.stmt_size = count(value)
                    .filter(|size| *size <= STMT_SIZE_MAX)
                    .ok_or_else(invalid)? as usize
            }
            "tfuse_rand_comment" | "random_comment" => {
                workload.random_comment = match value.to_ascii_lowercase().as_str() {
                    "true" | "1" | "yes" => true,
                    "false" | "0" | "no" => false,
                    _ => return Err(invalid()),
                }
            }
            "time_limit" => workload.time_limit = seconds(value).ok_or_else(invalid)?,
            "shared_pool_size" => shared_pool_size = value.clone(),
            _ => {
                return Err(lab_error(format!(
                    "slammer: unknown parameter '{name}'; known: {}",
                    SETTINGS.join(", ")
                )))
            }
        }
    }
    Ok(shared_pool_size)
}

/// The experiment with `-p` settings applied over the quick or full defaults.
pub fn run(quick: bool, dir: &Path, parameters: &[(String, String)]) -> pythia::Result<()> {
    let mut workload = if quick {
        Workload {
            sessions: 10,
            stmts_per_slam: 5,
            total_slams: 1000,
            comparison_slams: 5000,
            slam_sleep: Duration::ZERO,
            stmt_size: 100,
            random_comment: false,
            time_limit: Duration::from_secs(4),
        }
    } else {
        Workload {
            sessions: 10,
            stmts_per_slam: 5,
            total_slams: 5000,
            comparison_slams: 5000,
            slam_sleep: Duration::from_micros(100),
            stmt_size: 100,
            random_comment: false,
            time_limit: Duration::from_secs(60),
        }
    };
    let shared_pool_size = apply_parameters(&mut workload, parameters)?;
    println!(
        "slammer experiment (seed 000, SQLSlammer): {}",
        workload.describe()
    );
    println!("shared_pool_size = {shared_pool_size}; each configuration on a fresh instance");

    let mut measured = Vec::new();
    for configuration in CONFIGURATIONS {
        let result = run_configuration(
            &dir.join(format!("slammer-{}", measured.len())),
            &workload,
            configuration,
            &shared_pool_size,
        )?;
        if result.errors > 0 {
            println!(
                "{}: {} statements failed (first error printed above)",
                configuration.label, result.errors
            );
        }
        measured.push(result);
    }

    let mut table = Table::new();
    let mut header = vec!["metric".to_string()];
    header.extend(CONFIGURATIONS.iter().map(|c| c.label.to_string()));
    header.extend(
        [
            "seed T1 literals EXACT",
            "seed T2 binds EXACT",
            "seed T3 literals FORCE",
        ]
        .iter()
        .map(|name| name.to_string()),
    );
    table.set_header(header);
    let columns: Vec<Vec<String>> = measured.iter().map(table_3_column).collect();
    for (row, (name, seed)) in SEED_TABLE_3.iter().enumerate() {
        let mut cells = vec![name.to_string()];
        cells.extend(columns.iter().map(|column| column[row].clone()));
        cells.extend(seed.iter().map(|cell| cell.to_string()));
        table.add_row(cells);
    }
    println!("Table 3 (ours: delta over each run; latch wait time = 'latch: shared pool' + 'latch: library cache' + 'latch free')");
    println!("{table}");

    let (literal, binds, force) = (&measured[0], &measured[1], &measured[2]);
    println!("shape against the seed:");
    println!(
        "  hard parses: binds {} and FORCE {} far below literals {} (seed: 195, 189 vs 50,274): {}",
        binds.hard_parses,
        force.hard_parses,
        literal.hard_parses,
        yes_no(
            binds.hard_parses * 10 < literal.hard_parses.max(1)
                && force.hard_parses * 10 < literal.hard_parses.max(1)
        )
    );
    println!(
        "  elapsed: binds {:.2}x and FORCE {:.2}x faster than literals EXACT (seed: 1.96x, 2.22x): {}",
        literal.elapsed / binds.elapsed.max(1e-9),
        literal.elapsed / force.elapsed.max(1e-9),
        yes_no(binds.elapsed < literal.elapsed && force.elapsed < literal.elapsed)
    );

    comparison(dir, &workload, &shared_pool_size)?;

    shared_pool_sweep(dir, &workload, quick)
}

/// Pythia FORCE vs Pythia binds vs SQLite re-preparing the same literal statements, each run
/// anew with `comparison_slams` slams and no sleep, so that none lasts only a few tens of
/// milliseconds (the cheap configurations do in Table 3 at quick scale) or measures sleeps.
fn comparison(dir: &Path, workload: &Workload, shared_pool_size: &str) -> pythia::Result<()> {
    // No sleep: at 0.1 ms between slams the cheap configurations would measure the sleep
    // (5 statements take a few microseconds).
    let workload = Workload {
        total_slams: workload.comparison_slams,
        slam_sleep: Duration::ZERO,
        ..workload.clone()
    };
    // Interleaved rounds, the fastest run of each kept: on this 2-vCPU VM a run's throughput
    // is bimodal (within one process, from one run to the next, Pythia's and SQLite's
    // alike), with where the host places the two vCPUs.
    let workload = &workload;
    let pythia_run = |configuration: usize, name: &'static str| {
        Box::new(move |round| {
            run_configuration(
                &dir.join(format!("slammer-compare-{name}-{round}")),
                workload,
                CONFIGURATIONS[configuration],
                shared_pool_size,
            )
        }) as Box<dyn Fn(usize) -> pythia::Result<Measured> + '_>
    };
    let runs = vec![
        pythia_run(1, "binds"),
        pythia_run(2, "force"),
        Box::new(|round| run_sqlite(&dir.join(format!("slammer-sqlite-{round}")), workload)),
    ];
    let mut fastest = fastest_of_rounds(COMPARISON_ROUNDS, &runs)?.into_iter();
    let (Some((binds, binds_rates)), Some((force, force_rates)), Some((sqlite, sqlite_rates))) =
        (fastest.next(), fastest.next(), fastest.next())
    else {
        unreachable!("three runs")
    };
    let mut table = Table::new();
    table.set_header(vec![
        "run",
        "statements",
        "elapsed s",
        "statements/s",
        "every round's statements/s",
    ]);
    for (name, result, rates) in [
        ("Pythia binds EXACT", &binds, &binds_rates),
        ("Pythia literals FORCE", &force, &force_rates),
        ("SQLite literals, prepare each time", &sqlite, &sqlite_rates),
    ] {
        table.add_row(vec![
            name.to_string(),
            result.statements.to_string(),
            format!("{:.2}", result.elapsed),
            format!("{:.0}", result.statements_per_second()),
            rates
                .iter()
                .map(|rate| format!("{rate:.0}"))
                .collect::<Vec<_>>()
                .join(", "),
        ]);
    }
    println!(
        "throughput: {} sessions x {} slams x {} statements, no sleep, each session on its own thread (SQLite: a connection each, one file, WAL); the fastest of {COMPARISON_ROUNDS} interleaved rounds",
        workload.sessions, workload.total_slams, workload.stmts_per_slam
    );
    println!("{table}");
    let force_vs_binds = force.statements_per_second() / binds.statements_per_second().max(1e-9);
    let force_vs_sqlite = force.statements_per_second() / sqlite.statements_per_second().max(1e-9);
    println!(
        "  FORCE / binds = {force_vs_binds:.3}x (target >= 0.9x: {}); FORCE / SQLite re-prepare = {force_vs_sqlite:.3}x (target >= 2x: {})",
        yes_no(force_vs_binds >= 0.9),
        yes_no(force_vs_sqlite >= 2.0)
    );
    Ok(())
}

/// Rounds of the comparison's runs (binds, FORCE, SQLite).
const COMPARISON_ROUNDS: usize = 5;

/// Rounds of the shared pool sweep's runs (one per size).
const SWEEP_ROUNDS: usize = 5;

/// Runs each of `runs` once per round, `rounds` times, interleaved (the first of each, then
/// the second, ...), and returns for each its fastest run and every run's statements per
/// second.
fn fastest_of_rounds(
    rounds: usize,
    runs: &[Box<dyn Fn(usize) -> pythia::Result<Measured> + '_>],
) -> pythia::Result<Vec<(Measured, Vec<f64>)>> {
    let mut fastest: Vec<Option<(Measured, Vec<f64>)>> = runs.iter().map(|_| None).collect();
    for round in 0..rounds.max(1) {
        for (run, kept) in runs.iter().zip(fastest.iter_mut()) {
            let result = run(round)?;
            let rate = result.statements_per_second();
            match kept {
                Some((best, rates)) => {
                    rates.push(rate);
                    if rate > best.statements_per_second() {
                        *best = result;
                    }
                }
                None => *kept = Some((result, vec![rate])),
            }
        }
    }
    Ok(fastest.into_iter().flatten().collect())
}

/// Seed 000 Figure 1: literal SQL under EXACT as the shared pool grows. Oracle 8.1.5 got 25%
/// (DBMS_SQL) and 31% (NDS) slower from 10 MB to 50 MB; Pythia must not get slower.
fn shared_pool_sweep(dir: &Path, workload: &Workload, quick: bool) -> pythia::Result<()> {
    let sizes: &[&str] = if quick {
        &["10M", "50M"]
    } else {
        &["10M", "20M", "30M", "40M", "50M"]
    };
    let mut table = Table::new();
    table.set_header(vec![
        "shared_pool_size",
        "elapsed s",
        "statements/s",
        "parse count (hard)",
        "flushed chunks",
        "shared pool latch sleep rate",
        "latch wait s",
        "DB CPU s",
        "top wait events",
    ]);
    // Interleaved repetitions, the fastest of each size kept: a run moves by 10-15% with
    // where the shared pool latch's sleeps fall, and by more with where the host places the
    // VM's two vCPUs.
    let repetitions = SWEEP_ROUNDS;
    let runs: Vec<Box<dyn Fn(usize) -> pythia::Result<Measured> + '_>> = sizes
        .iter()
        .map(|size| {
            Box::new(move |repetition| {
                run_configuration(
                    &dir.join(format!("slammer-pool-{size}-{repetition}")),
                    workload,
                    CONFIGURATIONS[0],
                    size,
                )
            }) as Box<dyn Fn(usize) -> pythia::Result<Measured>>
        })
        .collect();
    let best = fastest_of_rounds(repetitions, &runs)?;
    let mut rates = Vec::new();
    for (size, (result, _)) in sizes.iter().zip(best.iter()) {
        table.add_row(vec![
            size.to_string(),
            format!("{:.2}", result.elapsed),
            format!("{:.0}", result.statements_per_second()),
            result.hard_parses.to_string(),
            or_na(result.flushed_chunks.map(|value| format!("{value:.0}"))),
            rate(result.shared_pool),
            format!("{:.2}", result.latch_wait_micros as f64 / 1e6),
            format!("{:.2}", result.db_cpu_micros as f64 / 1e6),
            result.top_events.clone(),
        ]);
        rates.push(result.statements_per_second());
    }
    println!(
        "shared pool sweep (seed Figure 1): literal SQL, cursor_sharing = EXACT, the fastest of {repetitions} run(s) per size"
    );
    println!("{table}");
    let (first, last) = (rates[0], rates[rates.len() - 1]);
    let change = last / first.max(1e-9) - 1.0;
    println!(
        "  {} -> {}: throughput {:+.1}% (seed, Oracle 8.1.5, 10M -> 50M: 25% to 31% slower); target within 5%: {}",
        sizes[0],
        sizes[sizes.len() - 1],
        100.0 * change,
        yes_no(change.abs() < 0.05)
    );
    if quick {
        println!(
            "  (quick runs last under a second and their literal throughput is bimodal on 2 cores, with how long the shared pool latch's sleepers leave a CPU idle: judge Figure 1 with the full run)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_padded_to_stmt_size() {
        for random_comment in [false, true] {
            let mut generator = StatementGenerator::new(3, 120, random_comment);
            for style in [Style::Literal, Style::Bind] {
                let statement = generator.next_statement(style);
                assert_eq!(statement.sql.len(), 120, "{}", statement.sql);
                assert!(statement.sql.starts_with(COMMENT_HEAD));
            }
        }
        // Shorter than the statement itself: no padding, nothing cut.
        let statement = StatementGenerator::new(0, 10, false).next_statement(Style::Literal);
        assert!(statement
            .sql
            .ends_with(&format!("dummy = '{}'", statement.value)));
        assert!(statement.sql.contains("comment:  */"));
    }

    #[test]
    fn sessions_make_their_own_literal_streams() {
        let stream = |session: u64| -> Vec<String> {
            let mut generator = StatementGenerator::new(session, 80, false);
            (0..50)
                .map(|_| generator.next_statement(Style::Literal).sql)
                .collect()
        };
        assert_eq!(stream(4), stream(4), "same session, same statements");
        assert_ne!(stream(4), stream(5));
        let distinct: std::collections::HashSet<String> = stream(4).into_iter().collect();
        assert!(distinct.len() > 45, "literals repeat too often");
    }

    #[test]
    fn parameters_set_the_workload_and_unknown_ones_fail() {
        let mut workload = Workload {
            sessions: 10,
            stmts_per_slam: 5,
            total_slams: 1000,
            comparison_slams: 5000,
            slam_sleep: Duration::ZERO,
            stmt_size: 100,
            random_comment: false,
            time_limit: Duration::from_secs(4),
        };
        let set = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect()
        };
        let pool = apply_parameters(
            &mut workload,
            &set(&[
                ("sessions", "3"),
                ("total_slams", "20000"),
                ("slam_sleeptime", ".02"),
                ("random_comment", "true"),
                ("stmt_size", "50"),
                ("shared_pool_size", "50M"),
            ]),
        )
        .unwrap();
        assert_eq!(pool, "50M");
        assert_eq!(workload.sessions, 3);
        assert_eq!(workload.total_slams, 20000);
        assert_eq!(workload.comparison_slams, 20000);
        assert_eq!(workload.slam_sleep, Duration::from_millis(20));
        assert!(workload.random_comment);
        assert_eq!(workload.stmt_size, 50);
        assert_eq!(apply_parameters(&mut workload, &[]).unwrap(), "15M");
        for bad in [
            ("sessions", "0"),
            ("sessions", "100000"),
            ("slam_sleeptime", "-1"),
            ("random_comment", "maybe"),
            ("no_such", "1"),
        ] {
            assert!(
                apply_parameters(&mut workload, &set(&[bad])).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn binds_share_one_text_and_carry_the_literal_stream() {
        let mut literal = StatementGenerator::new(7, 90, false);
        let mut bind = StatementGenerator::new(7, 90, false);
        let texts: std::collections::HashSet<String> = (0..20)
            .map(|_| {
                let expected = literal.next_statement(Style::Literal);
                let statement = bind.next_statement(Style::Bind);
                assert_eq!(statement.value, expected.value);
                assert!(statement.sql.ends_with("dummy = :hv"));
                statement.sql
            })
            .collect();
        assert_eq!(texts.len(), 1);
    }
}
