//! `pythia lab scan`: a hot set against full scans (the issue's scan experiment, after seed
//! 001's case for the RECYCLE pool and Oracle8i's midpoint insertion).
//!
//! ```text
//!   session 1 (hot):  SELECT data_col FROM hot_t WHERE id = :1   (HOT_ROWS rows, one per block)
//!                     warm-up alone, then on and on while session 2 scans
//!   session 2 (scan): SELECT COUNT(*) FROM big_t                   (BIG_ROWS blocks: 7.5x the pool)
//!   report: the hot session's physical reads while the scans ran = the hot set's extra misses
//! ```
//!
//! The pool is 1000 buffers of 2048 bytes; the hot set (its rows and its index) is about 20%
//! of it. Time is virtual, advanced by the hot session (1 s per [`LOOKUPS_PER_SECOND`]
//! lookups), so that the touch count sees the hot set touched over many seconds, as a hot set
//! is, however fast this machine reads.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::buffer::VirtualClock;
use pythia::{Session, Value};

use super::stuffer::open;
use crate::lab::common::{integer, lab_error, query_rows, run_sessions, Rng};

const HOT_ROWS: u64 = 190;
/// 7.5 times the pool.
const BIG_ROWS: u64 = 7_500;
const DATA_CHARS: usize = 1_500;
const LOOKUPS_PER_SECOND: u64 = 1_000;
/// Virtual seconds the hot session runs alone first: every hot block is read and touched
/// again after `_db_aging_touch_time`.
const WARM_UP_SECONDS: u64 = 20;
/// Bounds of the hot session's loop while the scans run.
const HOT_LOOKUPS_MAX: u64 = 20_000_000;
const RUN_SECONDS_MAX: u64 = 120;
/// The baseline's lookups (no scanner).
const BASELINE_LOOKUPS: u64 = 200_000;

struct Configuration {
    name: &'static str,
    parameters: &'static [(&'static str, &'static str)],
    /// The big table's attributes: `CACHE` or `NOCACHE`, and its pool.
    cache: &'static str,
    pool: &'static str,
}

const POOL: [(&str, &str); 2] = [("db_block_buffers", "1000"), ("db_block_lru_latches", "2")];

const CONFIGURATIONS: [Configuration; 5] = [
    Configuration {
        name: "touch count, NOCACHE",
        parameters: &[],
        cache: "NOCACHE",
        pool: "DEFAULT",
    },
    Configuration {
        name: "touch count, CACHE",
        parameters: &[],
        cache: "CACHE",
        pool: "DEFAULT",
    },
    Configuration {
        name: "touch count, RECYCLE pool (CACHE)",
        parameters: &[("buffer_pool_recycle", "(buffers:100, lru_latches:1)")],
        cache: "CACHE",
        pool: "RECYCLE",
    },
    Configuration {
        name: "classic LRU, NOCACHE",
        parameters: &[("_db_lru_algorithm", "LRU")],
        cache: "NOCACHE",
        pool: "DEFAULT",
    },
    Configuration {
        name: "classic LRU, CACHE",
        parameters: &[("_db_lru_algorithm", "LRU")],
        cache: "CACHE",
        pool: "DEFAULT",
    },
];

fn build(dir: &Path) -> pythia::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let clock = Arc::new(VirtualClock::new(0));
    let instance = open(dir, &[], &clock)?;
    let mut session = instance.connect()?;
    let data = "x".repeat(DATA_CHARS);
    for (table, rows) in [("hot_t", HOT_ROWS), ("big_t", BIG_ROWS)] {
        session.execute(&format!(
            "CREATE TABLE {table} (id NUMBER PRIMARY KEY, data_col VARCHAR2(2000))"
        ))?;
        let insert = session.prepare(&format!("INSERT INTO {table} VALUES (:1, :2)"))?;
        for id in 1..=rows {
            session.execute_prepared(
                &insert,
                &[Value::integer(id as i64), Value::text(data.clone())],
            )?;
        }
        session.execute("COMMIT")?;
        session.execute(&format!("ANALYZE TABLE {table} COMPUTE STATISTICS"))?;
    }
    drop(session);
    instance.shutdown()
}

/// The session's own (physical reads, session logical reads).
fn my_reads(session: &mut Session) -> pythia::Result<(u64, u64)> {
    let rows = query_rows(
        session,
        "SELECT n.name, m.value FROM v$mystat m, v$statname n \
         WHERE m.statistic# = n.statistic# AND n.name IN ('physical reads', 'session logical reads')",
    )
    .ok_or_else(|| lab_error("v$mystat could not be read"))?;
    let value = |name: &str| {
        rows.iter()
            .find(|row| row[0].to_string() == name)
            .map_or(0, |row| integer(&row[1]) as u64)
    };
    Ok((value("physical reads"), value("session logical reads")))
}

/// What one configuration measured.
#[derive(Default)]
struct Outcome {
    /// The hot session's gets and physical reads while the scans ran.
    hot_gets: u64,
    hot_misses: u64,
    /// The scanning session's physical reads and the scans it made.
    scan_reads: u64,
    scans: u64,
}

enum Work {
    Hot(u64, u64),
    Scan(u64, u64),
}

fn measure(
    dir: &Path,
    configuration: Option<&Configuration>,
    scans: u64,
) -> pythia::Result<Outcome> {
    let clock = Arc::new(VirtualClock::new(0));
    let mut parameters = POOL.to_vec();
    if let Some(configuration) = configuration {
        parameters.extend_from_slice(configuration.parameters);
        let instance = open(dir, &parameters, &clock)?;
        let mut session = instance.connect()?;
        session.execute(&format!(
            "ALTER TABLE big_t STORAGE (BUFFER_POOL {}) {}",
            configuration.pool, configuration.cache
        ))?;
        drop(session);
        instance.shutdown()?;
    }
    let instance = open(dir, &parameters, &clock)?;
    let warm = AtomicBool::new(false);
    let scanning = configuration.is_some();
    let done = AtomicBool::new(false);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let mut outcome = Outcome::default();
    run_sessions(
        2,
        &stop,
        |number| {
            if number == 0 {
                // However the hot session ends, the scanner stops waiting for it.
                let _warm = SetOnDrop(&warm);
                let mut session = instance.connect()?;
                let lookup = session.prepare("SELECT data_col FROM hot_t WHERE id = :1")?;
                let mut rng = Rng::new(7);
                let mut lookups = 0u64;
                let mut look = |session: &mut Session| -> pythia::Result<()> {
                    let id = 1 + rng.below(HOT_ROWS);
                    session.execute_prepared(&lookup, &[Value::integer(id as i64)])?;
                    lookups += 1;
                    clock.set((lookups / LOOKUPS_PER_SECOND) as u32);
                    Ok(())
                };
                for _ in 0..WARM_UP_SECONDS * LOOKUPS_PER_SECOND {
                    look(&mut session)?;
                }
                let before = my_reads(&mut session)?;
                warm.store(true, Ordering::Release);
                // Without a scanner, a fixed number of lookups.
                let limit = if scanning {
                    HOT_LOOKUPS_MAX
                } else {
                    BASELINE_LOOKUPS
                };
                let mut phase = 0;
                while phase < limit
                    && !(scanning && done.load(Ordering::Acquire))
                    && !stop.load(Ordering::Relaxed)
                    && started.elapsed() < Duration::from_secs(RUN_SECONDS_MAX)
                {
                    look(&mut session)?;
                    phase += 1;
                }
                let after = my_reads(&mut session)?;
                Ok(Work::Hot(after.1 - before.1, after.0 - before.0))
            } else {
                // However the scanner ends, the hot session stops looking up.
                let _done = SetOnDrop(&done);
                let mut session = instance.connect()?;
                while !warm.load(Ordering::Acquire) {
                    if stop.load(Ordering::Relaxed)
                        || started.elapsed() >= Duration::from_secs(RUN_SECONDS_MAX)
                    {
                        return Ok(Work::Scan(0, 0));
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                let before = my_reads(&mut session)?;
                let mut done_scans = 0;
                for _ in 0..scans {
                    if stop.load(Ordering::Relaxed)
                        || started.elapsed() >= Duration::from_secs(RUN_SECONDS_MAX)
                    {
                        break;
                    }
                    session.execute("SELECT COUNT(*) FROM big_t")?;
                    done_scans += 1;
                }
                done.store(true, Ordering::Release);
                let after = my_reads(&mut session)?;
                Ok(Work::Scan(after.0 - before.0, done_scans))
            }
        },
        |work| match work {
            Work::Hot(gets, misses) => {
                outcome.hot_gets = gets;
                outcome.hot_misses = misses;
            }
            Work::Scan(reads, scans) => {
                outcome.scan_reads = reads;
                outcome.scans = scans;
            }
        },
    )?;
    instance.shutdown()?;
    Ok(outcome)
}

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let started = Instant::now();
    let scans = if quick { 2 } else { 6 };
    println!(
        "scan experiment: a hot set of {HOT_ROWS} one-row blocks and its index (about 20% of a \
         1000-buffer pool) read by primary key while another session scans a {BIG_ROWS}-block \
         table {scans} times"
    );
    build(&dir.join("db"))?;
    let mut table = Table::new();
    table.set_header(vec![
        "configuration",
        "hot gets while scanning",
        "hot misses",
        "hits lost",
        "scans",
        "blocks the scans read",
    ]);
    let baseline = measure(&dir.join("db"), None, 0)?;
    table.add_row(vec![
        "no scan (baseline)".to_string(),
        baseline.hot_gets.to_string(),
        baseline.hot_misses.to_string(),
        lost(&baseline),
        "0".to_string(),
        "0".to_string(),
    ]);
    for configuration in &CONFIGURATIONS {
        let outcome = measure(&dir.join("db"), Some(configuration), scans)?;
        table.add_row(vec![
            configuration.name.to_string(),
            outcome.hot_gets.to_string(),
            outcome.hot_misses.to_string(),
            lost(&outcome),
            outcome.scans.to_string(),
            outcome.scan_reads.to_string(),
        ]);
    }
    println!("{table}");
    println!(
        "scan experiment in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Sets a flag when dropped: on every way out of a session's work, errors and panics too.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// The share of the hot session's gets that missed.
fn lost(outcome: &Outcome) -> String {
    if outcome.hot_gets == 0 {
        return "n/a".to_string();
    }
    format!(
        "{:.3}%",
        100.0 * outcome.hot_misses as f64 / outcome.hot_gets as f64
    )
}
