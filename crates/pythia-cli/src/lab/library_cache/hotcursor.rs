//! `pythia lab hotcursor`: seed 003's hot cursors. Many sessions run the same three statements
//! with binds on a small table in a loop, so that every execution finds, pins and releases the
//! same few library cache objects:
//!
//! ```text
//!   session 1 ─┐                               ┌─ Library Cache mutex of the handle
//!   session 2 ─┼─ (parse) + execute ──> ...    ┤     (kglhbh1, kglpin1, kglpndl1, ...)
//!   ...        │   the same 3 cursors          └─ Cursor Pin mutex of the child
//!   session N ─┘                                   (kksfbc, kksLockDelete)
//! ```
//!
//! The statements are parsed once per session and then executed (HammerDB's way in the seed;
//! the quick run) or, in the full run also, parsed at every execution.
//!
//! Run 1 reports the top wait events and the mutex sleeps by type and location. Run 2, on a
//! fresh instance opened with `_kgl_hot_object_copies = 4`, warms the cursors up, marks each
//! hot with `DBMS_SHARED_POOL.MARKHOT(hash => full_hash_value, namespace => 0)` (the hash from
//! v$db_object_cache), and runs the same load: the sessions should spread over the copies, and
//! 'library cache: mutex X' sleeps fall (seed 003: 1,443,752 -> 23,288 waits). The full run
//! makes `HOT_ROUNDS` pairs of runs in turn and judges the target on their totals; the first
//! pair is shown whole, the others by a line each. Views or packages this build does not have
//! yet print "n/a". Every loop is bounded in count and time.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::{Instance, Value};

use crate::lab::common::{
    lab_error, latch_sample, latches_that_slept, number, progress, query_rows, LatchCounts, Rng,
    Snapshot,
};

const SEED: u64 = 0x484f_5443_5552; // "HOTCUR"
const ROWS: i64 = 200;
/// A session gives up after this many failed statements.
const SESSION_ERRORS_MAX: u64 = 10;
/// Executions of each statement before MARKHOT, so that the cursors exist to be marked.
const WARM_UP_EXECUTIONS: u64 = 20;
const HOT_OBJECT_COPIES: &str = "4";
/// Pairs of runs in the full experiment. On a machine with few CPUs the sleeps come from
/// sessions preempted while holding a mutex, a few hundred per run and more in the machine's
/// slow phases: the target is judged on the totals of interleaved rounds.
const HOT_ROUNDS: u32 = 3;
/// Below this many mutex waits (or sleeps) in run 1, a change is noise.
const MUTEX_WAITS_TO_JUDGE: f64 = 100.0;

/// The hot statements: (text, number of binds). No quotes in them: their texts are used as
/// literals in the queries of v$db_object_cache.
const STATEMENTS: [(&str, usize); 3] = [
    ("SELECT val FROM hot_t WHERE id = :1", 1),
    ("SELECT count(*) FROM hot_t WHERE id BETWEEN :1 AND :2", 2),
    (
        "SELECT id, val FROM hot_t WHERE id = :1 AND val IS NOT NULL",
        1,
    ),
];

/// How a session issues the hot statements.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Parsed once per session, then executed: HammerDB's way in seed 003. Each execution
    /// pins and unpins the cursor (kglpin1, kksfbc, kglpndl1).
    ParseOnce,
    /// Parsed at every execution: a soft parse (the session cursor cache, else the bucket
    /// search kglhbh1) before the same pin and unpin.
    ParseEach,
}

impl Mode {
    fn describe(self) -> &'static str {
        match self {
            Mode::ParseOnce => "parsed once per session (prepare + execute_prepared)",
            Mode::ParseEach => "parsed at each execution (execute_with)",
        }
    }
}

struct Scale {
    /// The modes to run, each with its pair of runs.
    modes: &'static [Mode],
    sessions: usize,
    executions_per_session: u64,
    /// Pairs of runs (default, then hot), judged on their totals.
    rounds: u32,
    /// Each run stops at this even if its executions are not done.
    time_limit: Duration,
}

/// The binds of statement `which` for a random row.
fn binds_for(which: usize, rng: &mut Rng) -> Vec<Value> {
    let id = 1 + rng.below(ROWS as u64) as i64;
    match STATEMENTS[which].1 {
        1 => vec![Value::integer(id)],
        _ => vec![Value::integer(id), Value::integer(id + 5)],
    }
}

/// (mutex type, location) -> (sleeps, wait time in microseconds), from v$mutex_sleep.
type MutexSleeps = HashMap<(String, String), (f64, f64)>;

fn mutex_sleeps(session: &mut pythia::Session) -> Option<MutexSleeps> {
    let rows = query_rows(
        session,
        "SELECT mutex_type, location, sleeps, wait_time FROM v$mutex_sleep ORDER BY sleeps DESC",
    )?;
    let mut sleeps = MutexSleeps::new();
    for row in rows.iter().filter(|row| row.len() >= 4) {
        let entry = sleeps
            .entry((row[0].to_string(), row[1].to_string()))
            .or_default();
        entry.0 += number(&row[2]).unwrap_or(0.0);
        entry.1 += number(&row[3]).unwrap_or(0.0);
    }
    Some(sleeps)
}

/// The change of v$mutex_sleep between two samples, most sleeps first.
fn mutex_delta(before: &MutexSleeps, after: &MutexSleeps) -> Vec<(String, String, f64, f64)> {
    let mut rows: Vec<_> = after
        .iter()
        .map(|(key, (sleeps, wait))| {
            let (sleeps_before, wait_before) = before.get(key).copied().unwrap_or((0.0, 0.0));
            (
                key.0.clone(),
                key.1.clone(),
                sleeps - sleeps_before,
                wait - wait_before,
            )
        })
        .filter(|row| row.2 > 0.0)
        .collect();
    rows.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
    rows
}

/// What one run measured.
struct HotRun {
    elapsed: f64,
    executions: u64,
    events: Table,
    /// None: v$mutex_sleep failed.
    mutexes: Option<Vec<(String, String, f64, f64)>>,
    /// The latches that slept most (None: v$latch failed).
    latches: Option<Vec<(String, LatchCounts)>>,
    mutex_x: (u64, u64),
    cursor_pin_s: (u64, u64),
    /// What MARKHOT said for each statement (run 2 only).
    marking: Vec<String>,
    /// v$db_object_cache rows of the hot statements after the run: name, property, executions.
    object_cache: Option<Vec<Vec<String>>>,
}

fn load(instance: &Arc<Instance>) -> pythia::Result<()> {
    let mut session = instance.connect()?;
    session.execute("CREATE TABLE hot_t (id NUMBER PRIMARY KEY, val VARCHAR2(20))")?;
    let insert = session.prepare("INSERT INTO hot_t VALUES (:1, :2)")?;
    for id in 1..=ROWS {
        session.execute_prepared(
            &insert,
            &[Value::integer(id), Value::text(format!("value {id}"))],
        )?;
    }
    session.execute("COMMIT")?;
    Ok(())
}

/// Marks each statement hot: the full hash from v$db_object_cache, then MARKHOT. Returns a
/// line per statement saying what happened.
fn mark_hot(session: &mut pythia::Session) -> Vec<String> {
    STATEMENTS
        .iter()
        .map(|(text, _)| {
            let hash = query_rows(
                session,
                &format!("SELECT full_hash_value FROM v$db_object_cache WHERE name = '{text}'"),
            )
            .and_then(|rows| {
                rows.first()
                    .and_then(|row| row.first())
                    .map(|v| v.to_string())
            });
            let Some(hash) = hash else {
                return format!("{text}: no full_hash_value in v$db_object_cache (n/a)");
            };
            let call =
                format!("BEGIN DBMS_SHARED_POOL.MARKHOT(hash => '{hash}', namespace => 0); END;");
            match session.execute(&call) {
                Ok(_) => format!("{text}: MARKHOT(hash => '{hash}') done"),
                Err(error) => format!("{text}: MARKHOT(hash => '{hash}') failed: {error}"),
            }
        })
        .collect()
}

fn run_once(dir: &Path, scale: &Scale, mode: Mode, hot: bool) -> pythia::Result<HotRun> {
    let _ = std::fs::remove_dir_all(dir);
    let parameters: &[(&str, &str)] = if hot {
        &[("_kgl_hot_object_copies", HOT_OBJECT_COPIES)]
    } else {
        &[]
    };
    let instance = Instance::open(dir, parameters)?;
    load(&instance)?;
    let mut monitor = instance.connect()?;
    let mut rng = Rng::new(SEED);
    for (which, (text, _)) in STATEMENTS.iter().enumerate() {
        for _ in 0..WARM_UP_EXECUTIONS {
            monitor.execute_with(text, &binds_for(which, &mut rng))?;
        }
    }
    let marking = if hot {
        mark_hot(&mut monitor)
    } else {
        Vec::new()
    };

    let mutexes_before = mutex_sleeps(&mut monitor);
    let latches_before = latch_sample(&mut monitor);
    let before = Snapshot::take();
    let started = Instant::now();
    let deadline = started + scale.time_limit;
    let stop = AtomicBool::new(false);
    let bar = progress(
        scale.sessions as u64 * scale.executions_per_session,
        if hot {
            "hot cursors (marked hot)"
        } else {
            "hot cursors"
        },
    );
    let mut executions = 0;
    crate::lab::common::run_sessions(
        scale.sessions,
        &stop,
        |number| worker(&instance, number, scale, mode, deadline, &stop, &bar),
        |count| executions += count,
    )?;
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    let after = Snapshot::take();
    let mutexes_after = mutex_sleeps(&mut monitor);
    let latches_after = latch_sample(&mut monitor);
    let names: Vec<String> = STATEMENTS
        .iter()
        .map(|(text, _)| format!("'{text}'"))
        .collect();
    let object_cache = query_rows(
        &mut monitor,
        &format!(
            "SELECT name, property, executions FROM v$db_object_cache WHERE name IN ({}) ORDER BY name, property",
            names.join(", ")
        ),
    )
    .map(|rows| {
        rows.iter()
            .map(|row| row.iter().map(|value| value.to_string()).collect())
            .collect()
    });
    drop(monitor);
    instance.shutdown()?;
    Ok(HotRun {
        elapsed,
        executions,
        events: after.events_table(&before, 5),
        mutexes: match (mutexes_before, mutexes_after) {
            (Some(before), Some(after)) => Some(mutex_delta(&before, &after)),
            _ => None,
        },
        latches: match (latches_before, latches_after) {
            (Some(before), Some(after)) => Some(latches_that_slept(&before, &after, 5)),
            _ => None,
        },
        mutex_x: after.event_delta(&before, "library cache: mutex X"),
        cursor_pin_s: after.event_delta(&before, "cursor: pin S"),
        marking,
        object_cache,
    })
}

fn worker(
    instance: &Arc<Instance>,
    number: usize,
    scale: &Scale,
    mode: Mode,
    deadline: Instant,
    stop: &AtomicBool,
    bar: &indicatif::ProgressBar,
) -> pythia::Result<u64> {
    let mut session = instance.connect()?;
    let prepared = match mode {
        Mode::ParseOnce => STATEMENTS
            .iter()
            .map(|(text, _)| session.prepare(text).map(Some))
            .collect::<pythia::Result<Vec<_>>>()?,
        Mode::ParseEach => vec![None; STATEMENTS.len()],
    };
    let mut rng = Rng::new(SEED ^ ((number as u64 + 1) << 32));
    let mut executions = 0;
    let mut errors = 0;
    for count in 0..scale.executions_per_session {
        if count % 64 == 0 {
            if stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
                break;
            }
            bar.inc(64);
        }
        let which = (count as usize + number) % STATEMENTS.len();
        let binds = binds_for(which, &mut rng);
        let outcome = match &prepared[which] {
            Some(prepared) => session.execute_prepared(prepared, &binds),
            None => session.execute_with(STATEMENTS[which].0, &binds),
        };
        match outcome {
            Ok(_) => executions += 1,
            Err(error) => {
                errors += 1;
                if errors == 1 {
                    eprintln!("hotcursor session {number}: {error}");
                }
                if errors >= SESSION_ERRORS_MAX {
                    return Err(lab_error(format!(
                        "hotcursor session {number}: too many failed statements, last: {error}"
                    )));
                }
            }
        }
    }
    Ok(executions)
}

fn mutex_table(rows: &Option<Vec<(String, String, f64, f64)>>) -> String {
    let Some(rows) = rows else {
        return "v$mutex_sleep: n/a".to_string();
    };
    if rows.is_empty() {
        return "v$mutex_sleep: no sleeps during the run".to_string();
    }
    let mut table = Table::new();
    table.set_header(vec!["mutex type", "location", "sleeps", "wait time ms"]);
    for (mutex_type, location, sleeps, wait) in rows {
        table.add_row(vec![
            mutex_type.clone(),
            location.clone(),
            format!("{sleeps:.0}"),
            format!("{:.1}", wait / 1000.0),
        ]);
    }
    table.to_string()
}

/// Seed 003: HammerDB on a 4-socket Xeon, mutex sleeps before and after MARKHOT of the
/// packages and procedures (type, location, sleeps before, time ms before, after, time after).
const SEED_MUTEX_SLEEPS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "Cursor Pin",
        "kksfbc [KKSCHLFSP2]",
        "634,827",
        "933,897",
        "644,771",
        "973,310",
    ),
    (
        "Library Cache",
        "kglpin1   4",
        "610,798",
        "747,221",
        "10,879",
        "11,115",
    ),
    (
        "Library Cache",
        "kglpndl1  95",
        "599,973",
        "753,431",
        "8,330",
        "10,836",
    ),
    (
        "Library Cache",
        "kglpnal1  90",
        "503,140",
        "155,556",
        "6,959",
        "1,857",
    ),
    (
        "Cursor Pin",
        "kksLockDelete [KKSCHLPIN6]",
        "454,516",
        "701,271",
        "455,400",
        "725,202",
    ),
    ("Library Cache", "kglhbh1   63", "2", "1", "1", "0"),
];

fn print_run(title: &str, run: &HotRun) {
    println!(
        "{title}: {} executions in {:.2} s, {:.0} executions/s",
        run.executions,
        run.elapsed,
        run.executions as f64 / run.elapsed.max(1e-9)
    );
    for line in &run.marking {
        println!("  {line}");
    }
    println!("top 5 wait events (non-idle, by time):");
    println!("{}", run.events);
    println!("mutex sleeps by type and location (delta over the run):");
    println!("{}", mutex_table(&run.mutexes));
    match &run.latches {
        Some(rows) if !rows.is_empty() => {
            let mut table = Table::new();
            table.set_header(vec![
                "latch (most sleeps)",
                "gets",
                "sleeps",
                "wait time ms",
            ]);
            for (name, counts) in rows {
                table.add_row(vec![
                    name.clone(),
                    format!("{:.0}", counts.gets),
                    format!("{:.0}", counts.sleeps),
                    format!("{:.1}", counts.wait_time / 1000.0),
                ]);
            }
            println!("{table}");
        }
        Some(_) => println!("v$latch: no latch slept during the run"),
        None => println!("v$latch: n/a"),
    }
    match &run.object_cache {
        Some(rows) if !rows.is_empty() => {
            let mut table = Table::new();
            table.set_header(vec!["v$db_object_cache name", "property", "executions"]);
            for row in rows {
                table.add_row(row.clone());
            }
            println!("{table}");
        }
        Some(_) => println!("v$db_object_cache: no rows for the hot statements"),
        None => println!("v$db_object_cache: n/a"),
    }
}

/// Library Cache mutex sleeps of a run (v$mutex_sleep), if the view answered.
fn library_cache_sleeps(run: &HotRun) -> Option<f64> {
    run.mutexes.as_ref().map(|rows| {
        rows.iter()
            .filter(|row| row.0 == "Library Cache")
            .fold(0.0, |total, row| total + row.2)
    })
}

/// Prints whether `what` fell by at least 90% from run 1 to run 2, or that run 1 had too few
/// for the change to mean anything.
fn verdict(what: &str, before: f64, after: f64) {
    if before < MUTEX_WAITS_TO_JUDGE {
        println!(
            "  {what}: {before:.0} -> {after:.0}; run 1 had fewer than {MUTEX_WAITS_TO_JUDGE:.0}, too few for the target (down >= 90%) to mean anything"
        );
    } else {
        println!(
            "  {what}: {before:.0} -> {after:.0}, {} (target: down >= 90%): {}",
            change(before, after),
            if after * 10.0 <= before { "yes" } else { "NO" }
        );
    }
}

fn change(before: f64, after: f64) -> String {
    if before <= 0.0 {
        "n/a (none before)".to_string()
    } else {
        format!("{:+.1}%", 100.0 * (after / before - 1.0))
    }
}

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let scale = if quick {
        Scale {
            modes: &[Mode::ParseOnce],
            sessions: 12,
            executions_per_session: 10_000,
            rounds: 1,
            time_limit: Duration::from_secs(3),
        }
    } else {
        Scale {
            modes: &[Mode::ParseOnce, Mode::ParseEach],
            sessions: 32,
            executions_per_session: 100_000,
            rounds: HOT_ROUNDS,
            time_limit: Duration::from_secs(60),
        }
    };
    println!(
        "hotcursor experiment (seed 003): {} sessions x {} executions (at most {} s per run) of {} statements with binds on a {ROWS}-row table",
        scale.sessions,
        scale.executions_per_session,
        scale.time_limit.as_secs(),
        STATEMENTS.len()
    );
    for (text, _) in STATEMENTS {
        println!("  {text}");
    }
    for &mode in scale.modes {
        println!("\n== statements {} ==", mode.describe());
        compare_runs(dir, &scale, mode)?;
    }
    let mut seed = Table::new();
    seed.set_header(vec![
        "seed 003 mutex type",
        "location",
        "sleeps before",
        "ms before",
        "sleeps after MARKHOT",
        "ms after",
    ]);
    for row in SEED_MUTEX_SLEEPS {
        seed.add_row(vec![row.0, row.1, row.2, row.3, row.4, row.5]);
    }
    println!("\nseed 003 (HammerDB, 4-socket Xeon, packages and procedures marked hot), for shape:\n{seed}");
    Ok(())
}

/// What the rounds of one kind of run add up to.
#[derive(Default)]
struct Totals {
    executions: u64,
    elapsed: f64,
    mutex_x: (u64, u64),
    cursor_pin_s: (u64, u64),
    /// None once a run's v$mutex_sleep failed.
    sleeps: Option<f64>,
}

impl Totals {
    fn add(&mut self, run: &HotRun, first: bool) {
        self.executions += run.executions;
        self.elapsed += run.elapsed;
        self.mutex_x.0 += run.mutex_x.0;
        self.mutex_x.1 += run.mutex_x.1;
        self.cursor_pin_s.0 += run.cursor_pin_s.0;
        self.cursor_pin_s.1 += run.cursor_pin_s.1;
        self.sleeps = match (first, self.sleeps, library_cache_sleeps(run)) {
            (true, _, sleeps) => sleeps,
            (false, Some(total), Some(sleeps)) => Some(total + sleeps),
            _ => None,
        };
    }

    fn rate(&self) -> f64 {
        self.executions as f64 / self.elapsed.max(1e-9)
    }
}

/// Run 1 (default instance) and run 2 (hot copies, statements marked hot) in one mode,
/// `scale.rounds` times in turn, so that both see the same phases of the machine, and the
/// change between their totals. The first round's runs are shown whole.
fn compare_runs(dir: &Path, scale: &Scale, mode: Mode) -> pythia::Result<()> {
    let suffix = match mode {
        Mode::ParseOnce => "once",
        Mode::ParseEach => "each",
    };
    let mut plain = Totals::default();
    let mut hot = Totals::default();
    let mut rounds = Table::new();
    rounds.set_header(vec![
        "round",
        "mutex X waits, run 1",
        "run 2 (hot)",
        "Library Cache sleeps, run 1",
        "run 2 (hot)",
        "executions/s, run 1",
        "run 2 (hot)",
    ]);
    for round in 1..=scale.rounds {
        let plain_run = run_once(
            &dir.join(format!("hotcursor-plain-{suffix}")),
            scale,
            mode,
            false,
        )?;
        let hot_run = run_once(
            &dir.join(format!("hotcursor-hot-{suffix}")),
            scale,
            mode,
            true,
        )?;
        if round == 1 {
            print_run("run 1, default instance", &plain_run);
            println!();
            print_run(
                &format!(
                    "run 2, _kgl_hot_object_copies = {HOT_OBJECT_COPIES}, statements marked hot"
                ),
                &hot_run,
            );
        }
        let sleeps = |run: &HotRun| {
            library_cache_sleeps(run).map_or("n/a".to_string(), |value| format!("{value:.0}"))
        };
        let rate = |run: &HotRun| format!("{:.0}", run.executions as f64 / run.elapsed.max(1e-9));
        rounds.add_row(vec![
            round.to_string(),
            plain_run.mutex_x.0.to_string(),
            hot_run.mutex_x.0.to_string(),
            sleeps(&plain_run),
            sleeps(&hot_run),
            rate(&plain_run),
            rate(&hot_run),
        ]);
        plain.add(&plain_run, round == 1);
        hot.add(&hot_run, round == 1);
    }
    if scale.rounds > 1 {
        println!(
            "
every round (run 1 and run 2 in turn):
{rounds}"
        );
    }

    let mut summary = Table::new();
    summary.set_header(vec![
        format!("total of {} round(s)", scale.rounds),
        "run 1".to_string(),
        "run 2 (hot)".to_string(),
        "change".to_string(),
        "seed 003 change".to_string(),
    ]);
    summary.add_row(vec![
        "'library cache: mutex X' waits".to_string(),
        plain.mutex_x.0.to_string(),
        hot.mutex_x.0.to_string(),
        change(plain.mutex_x.0 as f64, hot.mutex_x.0 as f64),
        "1,443,752 -> 23,288 (-98.4%)".to_string(),
    ]);
    summary.add_row(vec![
        "'library cache: mutex X' time ms".to_string(),
        format!("{:.1}", plain.mutex_x.1 as f64 / 1000.0),
        format!("{:.1}", hot.mutex_x.1 as f64 / 1000.0),
        change(plain.mutex_x.1 as f64, hot.mutex_x.1 as f64),
        "2,284 s -> 24.3 s".to_string(),
    ]);
    summary.add_row(vec![
        "'cursor: pin S' waits".to_string(),
        plain.cursor_pin_s.0.to_string(),
        hot.cursor_pin_s.0.to_string(),
        change(plain.cursor_pin_s.0 as f64, hot.cursor_pin_s.0 as f64),
        "1,060,588 -> 1,071,740 (+1.1%)".to_string(),
    ]);
    let sleeps = |total: &Totals| {
        total
            .sleeps
            .map_or("n/a".to_string(), |value| format!("{value:.0}"))
    };
    summary.add_row(vec![
        "Library Cache mutex sleeps (v$mutex_sleep)".to_string(),
        sleeps(&plain),
        sleeps(&hot),
        match (plain.sleeps, hot.sleeps) {
            (Some(before), Some(after)) => change(before, after),
            _ => "n/a".to_string(),
        },
        "1,713,913 -> 26,169 (-98.5%)".to_string(),
    ]);
    summary.add_row(vec![
        "executions/s".to_string(),
        format!("{:.0}", plain.rate()),
        format!("{:.0}", hot.rate()),
        change(plain.rate(), hot.rate()),
        "throughput improved".to_string(),
    ]);
    println!("{summary}");
    verdict(
        "'library cache: mutex X' waits",
        plain.mutex_x.0 as f64,
        hot.mutex_x.0 as f64,
    );
    if let (Some(before), Some(after)) = (plain.sleeps, hot.sleeps) {
        verdict("Library Cache mutex sleeps (v$mutex_sleep)", before, after);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binds_match_each_statement() {
        let mut rng = Rng::new(1);
        for (which, (text, count)) in STATEMENTS.iter().enumerate() {
            assert_eq!(binds_for(which, &mut rng).len(), *count, "{text}");
            assert!(!text.contains('\''), "texts are quoted as literals: {text}");
        }
    }

    #[test]
    fn mutex_deltas_keep_what_grew_most_first() {
        let key = |location: &str| ("Library Cache".to_string(), location.to_string());
        let before = MutexSleeps::from([(key("kglpin1   4"), (10.0, 100.0))]);
        let after = MutexSleeps::from([
            (key("kglpin1   4"), (15.0, 160.0)),
            (key("kglhbh1   63"), (9.0, 40.0)),
            (key("kglpndl1  95"), (0.0, 0.0)),
        ]);
        let rows = mutex_delta(&before, &after);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].1, "kglhbh1   63");
        assert_eq!((rows[1].2, rows[1].3), (5.0, 60.0));
    }
}
