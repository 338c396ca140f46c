//! `pythia lab sqlite`: the same operations on Pythia and on SQLite (WAL, synchronous=FULL)
//! in one run: bulk insert in one transaction, point select by primary key with a prepared
//! statement and a bind, range scans of 1,000 rows, single-row update + commit; and the
//! disk's own fdatasync latency for scale, sampled after each commit of that loop
//! ([`SyncProbe`]), Pythia's and SQLite's alike.
//!
//! The update + commit loop runs in [`UPDATE_ROUNDS`] rounds, the engines taking turns, so
//! that both meet the disk of the same seconds: its fdatasync latency drifts by a third from
//! one minute to the next, and run one after the other the two engines' loops were minutes
//! apart.
//!
//! Concurrent commits: 1 and 32 sessions (threads, each with its own session or connection),
//! each committing single-row inserts for a fixed time, on each engine: group commit against
//! SQLite's one writer at a time; each point in rounds, the engines taking turns.
//!
//! The bulk insert ends, on each engine, when its rows are in the database file (Pythia's
//! ALTER SYSTEM CHECKPOINT, SQLite's checkpoint of the WAL, which its commit starts on its
//! own): the loops after it then start with no write of the load still to do.
//!
//! Commit latency: SQLite commits each UPDATE on its own (autocommit), so the comparison times
//! the update and its commit together. That includes executing the update, which is not
//! commit latency; Pythia's COMMIT statements are also timed alone, inside the same loop.

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::{Instance, Value};

use crate::lab::common::{integer, lab_error, progress, run_sessions, Rng, Snapshot};

const SEED: u64 = 0x5351_4c49_5445; // "SQLITE"
const RANGE: i64 = 1_000;

struct Scale {
    rows: i64,
    point_selects: u64,
    range_scans: u64,
    commits: u64,
    /// Each timed loop stops at this even if its count is not reached.
    time_limit: Duration,
    /// How long each point of the concurrent-commit comparison runs.
    commit_seconds: Duration,
    /// Pythia's `filesystemio_options`, when `-p` sets it (else the default).
    filesystemio_options: Option<String>,
}

impl Scale {
    /// Pythia's parameters for an instance of this run: `overrides`, and the `-p` setting.
    fn parameters<'a>(&'a self, overrides: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut parameters = overrides.to_vec();
        if let Some(value) = &self.filesystemio_options {
            parameters.push(("filesystemio_options", value));
        }
        parameters
    }
}

/// The session counts of the concurrent-commit comparison.
const COMMIT_SESSIONS: [usize; 2] = [1, 32];
/// A session commits at most this many rows in one point (a bound besides the time).
const COMMITS_PER_SESSION_MAX: u64 = 1_000_000;

/// Count and elapsed time of one timed loop.
#[derive(Clone, Copy, Default)]
struct Measure {
    operations: u64,
    seconds: f64,
}

impl Measure {
    fn add(&mut self, other: Measure) {
        self.operations += other.operations;
        self.seconds += other.seconds;
    }

    fn per_second(self) -> f64 {
        self.operations as f64 / self.seconds.max(1e-9)
    }

    fn micros_each(self) -> f64 {
        self.seconds * 1e6 / self.operations.max(1) as f64
    }
}

/// Runs `body(i)` for i in 0..count, stopping early at the time limit.
fn timed<E>(
    count: u64,
    limit: Duration,
    message: &str,
    mut body: impl FnMut(u64) -> Result<(), E>,
) -> Result<Measure, E> {
    let bar = progress(count, message);
    let started = Instant::now();
    let mut done = 0;
    while done < count {
        body(done)?;
        done += 1;
        if done % 64 == 0 {
            bar.set_position(done);
        }
        if started.elapsed() >= limit {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok(Measure {
        operations: done,
        seconds,
    })
}

fn sqlite_error(error: rusqlite::Error) -> pythia::Error {
    lab_error(format!("sqlite: {error}"))
}

/// The value column of row `id`.
fn value_of(id: i64) -> i64 {
    id % 1000
}

/// The expected sum of `value_of` over ids in `low..=high`.
fn expected_sum(low: i64, high: i64) -> i128 {
    (low..=high).map(|id| value_of(id) as i128).sum()
}

/// The `-p` settings [`run`] takes.
pub const SETTINGS: &[&str] = &["filesystemio_options"];

/// `-p filesystemio_options=NONE` (or DIRECTIO, SETALL, ASYNCH) opens Pythia's instances
/// with that setting: the cost of direct redo writes, measured against cached ones.
pub fn run(quick: bool, dir: &Path, parameters: &[(String, String)]) -> pythia::Result<()> {
    let mut filesystemio = None;
    for (name, value) in parameters {
        match name.as_str() {
            "filesystemio_options" => filesystemio = Some(value.clone()),
            _ => {
                return Err(lab_error(format!(
                    "sqlite: bad setting {name}={value}; it takes filesystemio_options"
                )))
            }
        }
    }
    let scale = if quick {
        Scale {
            rows: 50_000,
            point_selects: 20_000,
            range_scans: 200,
            commits: 200,
            time_limit: Duration::from_secs(10),
            commit_seconds: Duration::from_millis(1500),
            filesystemio_options: filesystemio,
        }
    } else {
        Scale {
            rows: 1_000_000,
            point_selects: 200_000,
            range_scans: 2_000,
            commits: 2_000,
            time_limit: Duration::from_secs(60),
            commit_seconds: Duration::from_secs(5),
            filesystemio_options: filesystemio,
        }
    };
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)
        .map_err(|error| lab_error(format!("{}: {error}", dir.display())))?;
    println!(
        "sqlite benchmark: {} rows; {} point selects, {} range scans of {RANGE} rows, {} update+commit (each loop at most {} s); seed {SEED:#x}",
        scale.rows,
        scale.point_selects,
        scale.range_scans,
        scale.commits,
        scale.time_limit.as_secs()
    );
    if let Some(value) = &scale.filesystemio_options {
        println!("pythia's filesystemio_options: {value}");
    }

    let mut probe = SyncProbe::create(&dir.join("fdatasync.tmp"))?;
    let mut pythia_bench = run_pythia(&dir.join("pythia"), &scale)?;
    let mut sqlite_bench = run_sqlite(&dir.join("sqlite"), &scale)?;
    let (pythia_updates, pythia_commit, sqlite_updates) =
        update_rounds(&scale, &mut pythia_bench, &mut sqlite_bench, &mut probe)?;
    let fsync = probe.measure;
    let [bulk, point, scan] = pythia_bench.finish()?;
    let pythia = [bulk, point, scan, pythia_updates];
    let [bulk, point, scan] = sqlite_bench.measures;
    let sqlite = [bulk, point, scan, sqlite_updates];

    let mut table = Table::new();
    table.set_header(vec![
        "operation",
        "Pythia ops/s",
        "SQLite ops/s",
        "ratio (Pythia/SQLite)",
    ]);
    let names = [
        format!("bulk insert ({} rows, one transaction)", scale.rows),
        "point select by primary key (prepared, bind)".to_string(),
        format!("range scan ({RANGE} rows, sum)"),
        "single-row update + commit".to_string(),
    ];
    for (index, name) in names.iter().enumerate() {
        let (p, s) = (pythia[index].per_second(), sqlite[index].per_second());
        table.add_row(vec![
            name.clone(),
            format!("{p:.0}"),
            format!("{s:.0}"),
            format!("{:.2}x", p / s),
        ]);
    }
    println!("{table}");

    let mut latency = Table::new();
    latency.set_header(vec!["commit latency", "avg us", "ratio to one fdatasync"]);
    latency.add_row(vec![
        format!(
            "fdatasync of a {PROBE_WRITE_BYTES}-byte write, one after each commit ({} samples)",
            fsync.operations
        ),
        format!("{:.0}", fsync.micros_each()),
        "1.00x".to_string(),
    ]);
    for (name, measure) in [
        ("Pythia update + commit", pythia[3]),
        ("Pythia COMMIT alone (same loop)", pythia_commit),
        ("SQLite update + commit", sqlite[3]),
    ] {
        latency.add_row(vec![
            name.to_string(),
            format!("{:.0}", measure.micros_each()),
            format!("{:.2}x", measure.micros_each() / fsync.micros_each()),
        ]);
    }
    println!("{latency}");

    let mut concurrent = Table::new();
    concurrent.set_header(vec![
        "sessions, single-row insert + commit",
        "Pythia commits/s",
        "SQLite commits/s",
        "ratio (Pythia/SQLite)",
    ]);
    for (sessions, (p, s)) in COMMIT_SESSIONS.iter().zip(concurrent_commits(dir, &scale)?) {
        concurrent.add_row(vec![
            sessions.to_string(),
            format!("{:.0}", p.per_second()),
            format!("{:.0}", s.per_second()),
            format!("{:.2}x", p.per_second() / s.per_second()),
        ]);
    }
    println!("{concurrent}");
    Ok(())
}

/// Each point of [`COMMIT_SESSIONS`] runs in this many rounds, the engines taking turns, so
/// that both meet the disk of the same seconds (its fdatasync latency drifts from minute
/// to minute).
const COMMIT_ROUNDS: u32 = 5;

/// Concurrent commits on both engines: per point of [`COMMIT_SESSIONS`], (Pythia, SQLite).
fn concurrent_commits(dir: &Path, scale: &Scale) -> pythia::Result<Vec<(Measure, Measure)>> {
    let instance = Instance::open(
        dir.join("pythia-commits"),
        &scale.parameters(&[("db_cache_size", "64M"), ("log_file_size", "128M")]),
    )?;
    let table =
        "create table commits (id number primary key, session_id number, payload varchar2(40))";
    instance.connect()?.execute(table)?;
    let pythia_open = || {
        let mut session = instance.connect()?;
        let insert = session.prepare("insert into commits values (:1, :2, :3)")?;
        let commit = session.prepare("commit")?;
        Ok((session, insert, commit))
    };
    let pythia_commit =
        |(session, insert, commit): &mut (pythia::Session, _, _), number: u64, id: i64| {
            session.execute_prepared(
                insert,
                &[
                    Value::integer(id),
                    Value::integer(number as i64),
                    Value::text(format!("row {id}")),
                ],
            )?;
            session.execute_prepared(commit, &[])?;
            Ok(())
        };
    let sqlite_dir = dir.join("sqlite-commits");
    std::fs::create_dir_all(&sqlite_dir)
        .map_err(|error| lab_error(format!("{}: {error}", sqlite_dir.display())))?;
    let path = sqlite_dir.join("commits.db");
    let sqlite_open = || open_sqlite(&path);
    // Open throughout: when the last connection to a WAL database closes, SQLite checkpoints
    // and deletes the WAL, and the next round's commits would grow a new one.
    let keeper = sqlite_open()?;
    keeper
        .execute_batch(
            "create table commits (id integer primary key, session_id integer, payload text);",
        )
        .map_err(sqlite_error)?;
    let sqlite_commit = |connection: &mut rusqlite::Connection, number: u64, id: i64| {
        connection
            .prepare_cached("insert into commits values (?1, ?2, ?3)")
            .and_then(|mut insert| {
                insert.execute(rusqlite::params![id, number as i64, format!("row {id}")])
            })
            .map_err(sqlite_error)?;
        Ok(())
    };
    let slice = scale.commit_seconds / COMMIT_ROUNDS;
    let mut first_id = 0;
    let mut measures = Vec::new();
    for sessions in COMMIT_SESSIONS {
        let (mut pythia, mut sqlite) = (Measure::default(), Measure::default());
        for _ in 0..COMMIT_ROUNDS {
            pythia.add(commit_point(
                sessions,
                slice,
                first_id,
                &pythia_open,
                &pythia_commit,
            )?);
            first_id += sessions as u64 * COMMITS_PER_SESSION_MAX;
            sqlite.add(commit_point(
                sessions,
                slice,
                first_id,
                &sqlite_open,
                &sqlite_commit,
            )?);
            first_id += sessions as u64 * COMMITS_PER_SESSION_MAX;
        }
        measures.push((pythia, sqlite));
    }
    drop(keeper);
    instance.shutdown()?;
    Ok(measures)
}

/// `sessions` threads, each opening its session with `open`, then, all together, calling
/// `commit_one(session, its number, row id)` for `duration` (at most
/// [`COMMITS_PER_SESSION_MAX`] times). Counts the commits that completed within `duration`:
/// a commit still waiting at the end (SQLite's busy handler sleeps up to 100 ms) is not
/// counted, and its wait does not stretch the time. Session n's row ids start at `first_id +
/// n * COMMITS_PER_SESSION_MAX`.
fn commit_point<S>(
    sessions: usize,
    duration: Duration,
    first_id: u64,
    open: &(impl Fn() -> pythia::Result<S> + Sync),
    commit_one: &(impl Fn(&mut S, u64, i64) -> pythia::Result<()> + Sync),
) -> pythia::Result<Measure> {
    let opened = std::sync::Barrier::new(sessions);
    let stop = AtomicBool::new(false);
    let mut operations = 0;
    run_sessions(
        sessions,
        &stop,
        |number| {
            let number = number as u64;
            // The barrier is passed even when opening failed: nobody waits for ever.
            let handle = open();
            opened.wait();
            let mut handle = handle?;
            let started = Instant::now();
            let first = first_id + number * COMMITS_PER_SESSION_MAX;
            let mut done = 0;
            while done < COMMITS_PER_SESSION_MAX && !stop.load(Ordering::Relaxed) {
                commit_one(&mut handle, number, (first + done) as i64)?;
                if started.elapsed() > duration {
                    break;
                }
                done += 1;
            }
            Ok(done)
        },
        |done| operations += done,
    )?;
    Ok(Measure {
        operations,
        seconds: duration.as_secs_f64(),
    })
}

/// A connection to the SQLite database at `path` as every comparison here uses it: WAL,
/// `synchronous = FULL` (a setting of the connection), and a busy timeout for the sessions
/// that wait for the one writer.
fn open_sqlite(path: &Path) -> pythia::Result<rusqlite::Connection> {
    let connection = rusqlite::Connection::open(path).map_err(sqlite_error)?;
    connection
        .busy_timeout(Duration::from_secs(30))
        .map_err(sqlite_error)?;
    let mode: String = connection
        .query_row("pragma journal_mode = wal", [], |row| row.get(0))
        .map_err(sqlite_error)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(lab_error(format!(
            "sqlite: journal_mode is {mode}, not wal"
        )));
    }
    connection
        .execute_batch("pragma synchronous = full;")
        .map_err(sqlite_error)?;
    Ok(connection)
}

/// Bytes of each write the fdatasync probe makes: one redo block, about what a single-row
/// update and its commit write.
const PROBE_WRITE_BYTES: usize = 512;
/// The probe's file: formatted with zeros first, then written in turn, as a redo log is.
const PROBE_FILE_BYTES: u64 = 1 << 20;

/// The reference for commit latency: a redo-sized write and fdatasync in a formatted file on
/// the same disk, sampled once after each commit of both engines' update + commit loops, so
/// that the three are measured over the same seconds (an fdatasync on this disk takes
/// anywhere from 70 to 150 us from one minute to the next), and so that each engine's next
/// update follows the same sleep in fdatasync. Sampled so, an fdatasync follows another one
/// as a commit's does; a burst of them back to back is faster (the disk's best case).
struct SyncProbe {
    file: std::fs::File,
    path: std::path::PathBuf,
    offset: u64,
    measure: Measure,
}

impl SyncProbe {
    fn create(path: &Path) -> pythia::Result<SyncProbe> {
        let io = |error: std::io::Error| lab_error(format!("{}: {error}", path.display()));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(path)
            .map_err(io)?;
        file.write_all_at(&vec![0u8; PROBE_FILE_BYTES as usize], 0)
            .map_err(io)?;
        file.sync_all().map_err(io)?;
        Ok(SyncProbe {
            file,
            path: path.to_path_buf(),
            offset: 0,
            measure: Measure::default(),
        })
    }

    /// One write of the next [`PROBE_WRITE_BYTES`] and its fdatasync, timed. Returns the
    /// seconds it took, which the loop it interrupts takes off its own time.
    fn sample(&mut self) -> pythia::Result<f64> {
        let started = Instant::now();
        self.file
            .write_all_at(&[0x5a; PROBE_WRITE_BYTES], self.offset)
            .and_then(|()| self.file.sync_data())
            .map_err(|error| lab_error(format!("{}: {error}", self.path.display())))?;
        let seconds = started.elapsed().as_secs_f64();
        self.measure.seconds += seconds;
        self.measure.operations += 1;
        self.offset = (self.offset + PROBE_WRITE_BYTES as u64) % PROBE_FILE_BYTES;
        Ok(seconds)
    }

    /// [`timed`] `body`, `count` times within the scale's time limit, with a sample after
    /// each call; the samples' time is not counted in the loop's.
    fn timed_between(
        &mut self,
        count: u64,
        scale: &Scale,
        message: &str,
        mut body: impl FnMut() -> pythia::Result<()>,
    ) -> pythia::Result<Measure> {
        let mut sampling = 0.0;
        let mut measure = timed(count, scale.time_limit, message, |_| {
            body()?;
            sampling += self.sample()?;
            Ok(())
        })?;
        measure.seconds -= sampling;
        Ok(measure)
    }
}

impl Drop for SyncProbe {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The update + commit loop runs in this many rounds (see the module documentation).
const UPDATE_ROUNDS: u64 = 10;

/// Single-row update + commit on both engines in [`UPDATE_ROUNDS`] rounds, with a probe
/// sample after each commit of either. Returns Pythia's update + commit,
/// its COMMIT statements alone, and SQLite's update + commit. Each engine stops at the scale's
/// time limit, counted over its own turns.
fn update_rounds(
    scale: &Scale,
    pythia: &mut PythiaBench,
    sqlite: &mut SqliteBench,
    probe: &mut SyncProbe,
) -> pythia::Result<(Measure, Measure, Measure)> {
    let per_round = scale.commits.div_ceil(UPDATE_ROUNDS);
    let mut pythia_commit = Measure::default();
    let (mut pythia_updates, mut sqlite_updates) = (Measure::default(), Measure::default());
    for round in 0..UPDATE_ROUNDS {
        let limit = scale.time_limit.as_secs_f64();
        if pythia_updates.seconds >= limit || sqlite_updates.seconds >= limit {
            break;
        }
        let count = per_round.min(scale.commits - pythia_updates.operations);
        if count == 0 {
            break;
        }
        // The engines take the first turn in alternate rounds: neither always follows the
        // other's writes.
        if round % 2 == 1 {
            sqlite_updates.add(sqlite.update_and_commit(scale, count, probe)?);
        }
        let (updates, commit) = pythia.update_and_commit(scale, count, probe)?;
        pythia_updates.add(updates);
        pythia_commit.add(commit);
        if round % 2 == 0 {
            sqlite_updates.add(sqlite.update_and_commit(scale, count, probe)?);
        }
    }
    Ok((pythia_updates, pythia_commit, sqlite_updates))
}

/// Pythia's side: the instance after the load, the point selects and the range scans (their
/// measures), ready for rounds of update + commit.
struct PythiaBench {
    instance: std::sync::Arc<Instance>,
    session: pythia::Session,
    update: pythia::Prepared,
    commit: pythia::Prepared,
    rng: Rng,
    before: Snapshot,
    measures: [Measure; 3],
}

/// Loads Pythia's table and measures the bulk insert, the point selects and the range scans.
fn run_pythia(dir: &Path, scale: &Scale) -> pythia::Result<PythiaBench> {
    let undo = if scale.rows > 100_000 { "2G" } else { "256M" };
    let instance = Instance::open(
        dir,
        &scale.parameters(&[
            ("db_cache_size", "256M"),
            ("log_file_size", "128M"),
            ("undo_tablespace_size", undo),
        ]),
    )?;
    let mut session = instance.connect()?;
    session.execute(
        "create table bench (id number primary key, grp number, val number, name varchar2(40))",
    )?;
    let before = Snapshot::take();

    let insert = session.prepare("insert into bench values (:1, :2, :3, :4)")?;
    let started = Instant::now();
    let bar = progress(scale.rows as u64, "pythia bulk insert");
    for id in 1..=scale.rows {
        session.execute_prepared(
            &insert,
            &[
                Value::integer(id),
                Value::integer(id % 100),
                Value::integer(value_of(id)),
                Value::text(format!("row {id}")),
            ],
        )?;
        if id % 1024 == 0 {
            bar.set_position(id as u64);
        }
    }
    session.execute("commit")?;
    // The load ends when its rows are in the datafiles, as SQLite's ends with a checkpoint:
    // else DBWR writes them during the loops below, and the commits meet its writes.
    session.execute("alter system checkpoint")?;
    bar.finish_and_clear();
    let bulk = Measure {
        operations: scale.rows as u64,
        seconds: started.elapsed().as_secs_f64(),
    };

    let select = session.prepare("select name from bench where id = :1")?;
    let mut rng = Rng::new(SEED);
    let point = timed(
        scale.point_selects,
        scale.time_limit,
        "pythia point select",
        |_| {
            let id = 1 + rng.below(scale.rows as u64) as i64;
            let result = session.execute_prepared(&select, &[Value::integer(id)])?;
            if result.rows.len() != 1 {
                return Err(lab_error(format!("pythia: row {id} not found")));
            }
            Ok(())
        },
    )?;

    let range = session.prepare("select sum(val) from bench where id between :1 and :2")?;
    let mut rng = Rng::new(SEED ^ 1);
    let scan = timed(
        scale.range_scans,
        scale.time_limit,
        "pythia range scan",
        |_| {
            let low = 1 + rng.below((scale.rows - RANGE + 1) as u64) as i64;
            let high = low + RANGE - 1;
            let result =
                session.execute_prepared(&range, &[Value::integer(low), Value::integer(high)])?;
            let sum = integer(&result.rows[0][0]);
            if sum != expected_sum(low, high) {
                return Err(lab_error(format!(
                    "pythia: sum over {low}..={high} is {sum}, expected {}",
                    expected_sum(low, high)
                )));
            }
            Ok(())
        },
    )?;

    let update = session.prepare("update bench set grp = grp + 1 where id = :1")?;
    let commit = session.prepare("commit")?;
    Ok(PythiaBench {
        instance,
        session,
        update,
        commit,
        rng: Rng::new(SEED ^ 2),
        before,
        measures: [bulk, point, scan],
    })
}

impl PythiaBench {
    /// `count` single-row updates, each committed: the loop's measure, and its COMMIT
    /// statements' alone. `probe` takes a sample after each commit (not counted in the
    /// loop's time).
    fn update_and_commit(
        &mut self,
        scale: &Scale,
        count: u64,
        probe: &mut SyncProbe,
    ) -> pythia::Result<(Measure, Measure)> {
        let mut commit_alone = Measure::default();
        let updates = probe.timed_between(count, scale, "pythia update+commit", || {
            let id = 1 + self.rng.below(scale.rows as u64) as i64;
            let result = self
                .session
                .execute_prepared(&self.update, &[Value::integer(id)])?;
            if result.rows_affected != 1 {
                return Err(lab_error(format!(
                    "pythia: update of {id} changed {} rows",
                    result.rows_affected
                )));
            }
            let started = Instant::now();
            self.session.execute_prepared(&self.commit, &[])?;
            commit_alone.add(Measure {
                operations: 1,
                seconds: started.elapsed().as_secs_f64(),
            });
            Ok(())
        })?;
        Ok((updates, commit_alone))
    }

    /// Prints the statistics and waits over the whole benchmark, shuts the instance down,
    /// and returns the bulk insert's, point selects' and range scans' measures.
    fn finish(self) -> pythia::Result<[Measure; 3]> {
        let after = Snapshot::take();
        println!("pythia statistics over the benchmark:");
        println!("{}", after.statistics_table(&self.before, None));
        println!("pythia top wait events over the benchmark:");
        println!("{}", after.events_table(&self.before, 6));
        drop(self.session);
        self.instance.shutdown()?;
        Ok(self.measures)
    }
}

/// SQLite's side, as [`PythiaBench`].
struct SqliteBench {
    connection: rusqlite::Connection,
    rng: Rng,
    measures: [Measure; 3],
}

impl SqliteBench {
    /// `count` single-row updates, each its own transaction (autocommit), committed with an
    /// fsync of the WAL; `probe` samples after each, as after Pythia's.
    fn update_and_commit(
        &mut self,
        scale: &Scale,
        count: u64,
        probe: &mut SyncProbe,
    ) -> pythia::Result<Measure> {
        let mut update = self
            .connection
            .prepare_cached("update bench set grp = grp + 1 where id = ?1")
            .map_err(sqlite_error)?;
        let rng = &mut self.rng;
        probe.timed_between(count, scale, "sqlite update+commit", || {
            let id = 1 + rng.below(scale.rows as u64) as i64;
            let changed = update.execute([id]).map_err(sqlite_error)?;
            if changed != 1 {
                return Err(lab_error(format!(
                    "sqlite: update of {id} changed {changed} rows"
                )));
            }
            Ok(())
        })
    }
}

/// Loads SQLite's table and measures the bulk insert, the point selects and the range scans.
fn run_sqlite(dir: &Path, scale: &Scale) -> pythia::Result<SqliteBench> {
    std::fs::create_dir_all(dir)
        .map_err(|error| lab_error(format!("{}: {error}", dir.display())))?;
    let mut connection = open_sqlite(&dir.join("bench.db"))?;
    connection
        .execute_batch(
            "create table bench (id integer primary key, grp integer, val integer, name text);",
        )
        .map_err(sqlite_error)?;

    let started = Instant::now();
    let bar = progress(scale.rows as u64, "sqlite bulk insert");
    {
        let transaction = connection.transaction().map_err(sqlite_error)?;
        {
            let mut insert = transaction
                .prepare("insert into bench values (?1, ?2, ?3, ?4)")
                .map_err(sqlite_error)?;
            for id in 1..=scale.rows {
                insert
                    .execute(rusqlite::params![
                        id,
                        id % 100,
                        value_of(id),
                        format!("row {id}")
                    ])
                    .map_err(sqlite_error)?;
                if id % 1024 == 0 {
                    bar.set_position(id as u64);
                }
            }
        }
        transaction.commit().map_err(sqlite_error)?;
    }
    // The commit's automatic checkpoint has copied the WAL into the database already (a
    // passive one, with no reader in the way); a full one makes sure, as Pythia's load ends
    // with ALTER SYSTEM CHECKPOINT.
    connection
        .query_row("pragma wal_checkpoint(full)", [], |row| {
            row.get::<_, i64>(0)
        })
        .map_err(sqlite_error)?;
    bar.finish_and_clear();
    let bulk = Measure {
        operations: scale.rows as u64,
        seconds: started.elapsed().as_secs_f64(),
    };

    let mut select = connection
        .prepare("select name from bench where id = ?1")
        .map_err(sqlite_error)?;
    let mut rng = Rng::new(SEED);
    let point = timed(
        scale.point_selects,
        scale.time_limit,
        "sqlite point select",
        |_| {
            let id = 1 + rng.below(scale.rows as u64) as i64;
            let name: String = select
                .query_row([id], |row| row.get(0))
                .map_err(sqlite_error)?;
            if name.is_empty() {
                return Err(lab_error("sqlite: empty name"));
            }
            Ok(())
        },
    )?;
    drop(select);

    let mut range = connection
        .prepare("select sum(val) from bench where id between ?1 and ?2")
        .map_err(sqlite_error)?;
    let mut rng = Rng::new(SEED ^ 1);
    let scan = timed(
        scale.range_scans,
        scale.time_limit,
        "sqlite range scan",
        |_| {
            let low = 1 + rng.below((scale.rows - RANGE + 1) as u64) as i64;
            let high = low + RANGE - 1;
            let sum: i64 = range
                .query_row([low, high], |row| row.get(0))
                .map_err(sqlite_error)?;
            if sum as i128 != expected_sum(low, high) {
                return Err(lab_error(format!(
                    "sqlite: sum over {low}..={high} is {sum}"
                )));
            }
            Ok(())
        },
    )?;
    drop(range);

    Ok(SqliteBench {
        connection,
        rng: Rng::new(SEED ^ 2),
        measures: [bulk, point, scan],
    })
}
