//! `pythia lab commit`: seed 002's experiment (what frequent commits cost a task) and what
//! group commit does for many sessions.
//!
//! ```text
//!   part 1, one session, N iterations of (as the seed's PL/SQL loop, through SQL):
//!     id := SELECT t1_seq.NEXTVAL FROM dual
//!     INSERT INTO t1 VALUES (:id, :3000 characters)     variant 1: COMMIT WRITE WAIT
//!     SELECT text FROM t1 WHERE id = :id
//!     UPDATE t1 SET text = 'update' WHERE id = :id       variant 1: COMMIT WRITE WAIT
//!     DELETE FROM t1 WHERE id = :id                      variants 1, 2: COMMIT WRITE WAIT
//!   variant 3: one COMMIT WRITE WAIT after the loop
//!
//!   part 2, S = 1, 2, 4, 8, 16, 32 sessions (a thread each) for a fixed time each:
//!     INSERT INTO g VALUES (:session, :n, :100 characters); COMMIT WRITE WAIT
//!   and one session with COMMIT WRITE NOWAIT
//! ```
//!
//! Part 1 reports each variant's elapsed time, its time in 'log file sync' and 'log file
//! parallel write', redo size, redo writes and user commits (system deltas: nothing else
//! runs), next to the seed's figures (Oracle 19.23, 5 million iterations) divided by its
//! iterations, so that the shapes compare: the seed's variant 1 took 1386 s, variant 2 771 s,
//! variant 3 503 s, with 501 s and 192 s of 'log file sync' in variants 1 and 2. The seed's
//! point: the commits in the loop cost variant 1 nearly twice variant 2's time, and 'log file
//! sync' is the bulk of the difference.
//!
//! `-p sessions=N` runs part 2 alone, with 1 and N sessions (1 to 256) and the NOWAIT line;
//! `-p seconds=S` sets each point's time (1 to 600).
//!
//! Part 2 reports commits per second, redo writes, commits per write and the average 'log
//! file sync' and 'log file parallel write', and the ratio of commits per second to one
//! session's: with group commit, one write makes every commit in it durable, so commits per
//! write rise with the sessions while the write costs about the same.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::{Instance, Session, Value};

use crate::lab::common::{lab_error, progress, run_sessions, Rng, Snapshot};

/// The seed's iterations and its figures (seconds): elapsed per variant, 'log file sync' in
/// variants 1 and 2 (the seed gives none for variant 3).
const SEED_ITERATIONS: f64 = 5_000_000.0;
const SEED_ELAPSED_SECONDS: [f64; 3] = [1386.0, 771.0, 503.0];
const SEED_LOG_FILE_SYNC_SECONDS: [Option<f64>; 3] = [Some(501.0), Some(192.0), None];

/// The seed's row: `dbms_random.string('X', 3000)`.
const TEXT_CHARS: usize = 3000;
/// Part 2's rows.
const SMALL_TEXT_CHARS: usize = 100;
const SESSION_COUNTS: [usize; 6] = [1, 2, 4, 8, 16, 32];
/// Part 2's bound on one session's commits at one point, whatever the time.
const COMMITS_PER_SESSION_MAX: u64 = 10_000_000;

struct Scale {
    iterations: u64,
    point: Duration,
    /// Part 2's session counts; `None`: part 1 and every count of [`SESSION_COUNTS`].
    sessions: Option<usize>,
}

impl Scale {
    fn of(quick: bool) -> Scale {
        if quick {
            Scale {
                iterations: 200,
                point: Duration::from_millis(300),
                sessions: None,
            }
        } else {
            Scale {
                iterations: 20_000,
                point: Duration::from_secs(3),
                sessions: None,
            }
        }
    }

    /// Applies `-p` settings: `sessions` (1 to 256) and `seconds` (1 to 600).
    fn with(mut self, parameters: &[(String, String)]) -> pythia::Result<Scale> {
        for (name, value) in parameters {
            let number = value.parse::<u64>().ok();
            match (name.as_str(), number) {
                ("sessions", Some(n @ 1..=256)) => self.sessions = Some(n as usize),
                ("seconds", Some(n @ 1..=600)) => self.point = Duration::from_secs(n),
                _ => {
                    return Err(lab_error(format!(
                        "commit: bad setting {name}={value}; it takes sessions (1 to 256) and seconds (1 to 600)"
                    )))
                }
            }
        }
        Ok(self)
    }

    /// Part 2's session counts.
    fn session_counts(&self) -> Vec<usize> {
        match self.sessions {
            Some(1) => vec![1],
            Some(sessions) => vec![1, sessions],
            None => SESSION_COUNTS.to_vec(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// A commit after each of the three changes.
    EachChange,
    /// One commit per iteration.
    EachIteration,
    /// One commit after the loop.
    AtEnd,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::EachChange, Variant::EachIteration, Variant::AtEnd];

    fn name(self) -> &'static str {
        match self {
            Variant::EachChange => "1: commit after each change",
            Variant::EachIteration => "2: commit each iteration",
            Variant::AtEnd => "3: commit at the end",
        }
    }
}

/// What a run changed in the system's statistics and events.
struct Measured {
    elapsed: Duration,
    log_file_sync: (u64, u64),
    log_file_parallel_write: (u64, u64),
    redo_size: u64,
    redo_writes: u64,
    user_commits: u64,
}

impl Measured {
    fn between(before: &Snapshot, after: &Snapshot, elapsed: Duration) -> Measured {
        Measured {
            elapsed,
            log_file_sync: after.event_delta(before, "log file sync"),
            log_file_parallel_write: after.event_delta(before, "log file parallel write"),
            redo_size: after.statistic_delta(before, "redo size"),
            redo_writes: after.statistic_delta(before, "redo writes"),
            user_commits: after.statistic_delta(before, "user commits"),
        }
    }

    /// Average microseconds of an event's waits.
    fn average_micros((waits, micros): (u64, u64)) -> f64 {
        micros as f64 / waits.max(1) as f64
    }
}

/// The `-p` settings [`run`] takes.
pub const SETTINGS: &[&str] = &["sessions", "seconds"];

pub fn run(quick: bool, dir: &Path, parameters: &[(String, String)]) -> pythia::Result<()> {
    let scale = Scale::of(quick).with(parameters)?;
    let _ = std::fs::remove_dir_all(dir);
    let instance = Instance::open(dir, &[("db_cache_size", "64M")])?;
    if scale.sessions.is_none() {
        variants(&instance, &scale)?;
        println!();
    }
    group_commit(&instance, &scale)?;
    instance.shutdown()
}

/// `length` characters as `dbms_random.string('X', length)` gives them: uppercase letters
/// and digits.
fn random_text(rng: &mut Rng, length: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..length)
        .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize] as char)
        .collect()
}

/// Part 1: the seed's three variants, one after the other in one session.
fn variants(instance: &Arc<Instance>, scale: &Scale) -> pythia::Result<()> {
    let mut session = instance.connect()?;
    session.execute("create table t1 (id number primary key, text varchar2(3000))")?;
    session.execute("create sequence t1_seq")?;
    let text = Value::text(random_text(&mut Rng::new(2), TEXT_CHARS));
    println!(
        "commit experiment, part 1 (seed 002): {} iterations of insert a {TEXT_CHARS}-character row, select it, update it, delete it; COMMIT WRITE WAIT",
        scale.iterations
    );
    let mut results = Vec::new();
    for variant in Variant::ALL {
        results.push(run_variant(&mut session, variant, scale.iterations, &text)?);
    }
    print_variants(&results, scale.iterations);
    Ok(())
}

fn run_variant(
    session: &mut Session,
    variant: Variant,
    iterations: u64,
    text: &Value,
) -> pythia::Result<Measured> {
    let next_id = session.prepare("select t1_seq.nextval from dual")?;
    let insert = session.prepare("insert into t1 (id, text) values (:1, :2)")?;
    let select = session.prepare("select text from t1 where id = :1")?;
    let update = session.prepare("update t1 set text = 'update' where id = :1")?;
    let delete = session.prepare("delete from t1 where id = :1")?;
    let commit = session.prepare("commit write wait")?;
    let bar = progress(iterations, variant.name());
    let before = Snapshot::take();
    let started = Instant::now();
    for iteration in 0..iterations {
        let id = session.execute_prepared(&next_id, &[])?.rows[0][0].clone();
        session.execute_prepared(&insert, &[id.clone(), text.clone()])?;
        if variant == Variant::EachChange {
            session.execute_prepared(&commit, &[])?;
        }
        let selected = session.execute_prepared(&select, std::slice::from_ref(&id))?;
        if selected.rows.len() != 1 {
            return Err(lab_error(format!(
                "variant {}: the row just inserted (id {id}) was not found",
                variant.name()
            )));
        }
        session.execute_prepared(&update, std::slice::from_ref(&id))?;
        if variant == Variant::EachChange {
            session.execute_prepared(&commit, &[])?;
        }
        session.execute_prepared(&delete, &[id])?;
        if variant != Variant::AtEnd {
            session.execute_prepared(&commit, &[])?;
        }
        if iteration % 256 == 0 {
            bar.set_position(iteration);
        }
    }
    session.execute_prepared(&commit, &[])?;
    let elapsed = started.elapsed();
    bar.finish_and_clear();
    Ok(Measured::between(&before, &Snapshot::take(), elapsed))
}

fn print_variants(results: &[Measured], iterations: u64) {
    let per_iteration = |micros: f64| micros / iterations.max(1) as f64;
    let seed_per_iteration = |seconds: f64| seconds * 1e6 / SEED_ITERATIONS;
    let elapsed_micros = |measured: &Measured| measured.elapsed.as_secs_f64() * 1e6;
    let last = elapsed_micros(&results[2]).max(1.0);
    let mut times = Table::new();
    times.set_header(vec![
        "variant",
        "elapsed s",
        "us/iteration",
        "x variant 3",
        "seed us/iteration",
        "seed x variant 3",
        "log file sync us/iteration",
        "seed log file sync us/iteration",
        "elapsed - log file sync us/iteration",
        "seed elapsed - log file sync",
    ]);
    for (index, measured) in results.iter().enumerate() {
        let elapsed = elapsed_micros(measured);
        let sync = measured.log_file_sync.1 as f64;
        let seed_sync = SEED_LOG_FILE_SYNC_SECONDS[index];
        let seed_elapsed = SEED_ELAPSED_SECONDS[index];
        times.add_row(vec![
            Variant::ALL[index].name().to_string(),
            format!("{:.2}", measured.elapsed.as_secs_f64()),
            format!("{:.1}", per_iteration(elapsed)),
            format!("{:.2}", elapsed / last),
            format!("{:.1}", seed_per_iteration(seed_elapsed)),
            format!("{:.2}", seed_elapsed / SEED_ELAPSED_SECONDS[2]),
            format!("{:.1}", per_iteration(sync)),
            seed_sync.map_or("-".to_string(), |seconds| {
                format!("{:.1}", seed_per_iteration(seconds))
            }),
            format!("{:.1}", per_iteration(elapsed - sync)),
            seed_sync.map_or("-".to_string(), |seconds| {
                format!("{:.1}", seed_per_iteration(seed_elapsed - seconds))
            }),
        ]);
    }
    println!("{times}");
    let mut redo = Table::new();
    redo.set_header(vec![
        "variant",
        "user commits",
        "redo writes",
        "redo size/iteration",
        "log file sync waits",
        "avg log file sync us",
        "log file parallel write us/iteration",
        "avg log file parallel write us",
    ]);
    for (index, measured) in results.iter().enumerate() {
        redo.add_row(vec![
            Variant::ALL[index].name().to_string(),
            measured.user_commits.to_string(),
            measured.redo_writes.to_string(),
            format!("{:.0}", per_iteration(measured.redo_size as f64)),
            measured.log_file_sync.0.to_string(),
            format!("{:.0}", Measured::average_micros(measured.log_file_sync)),
            format!(
                "{:.1}",
                per_iteration(measured.log_file_parallel_write.1 as f64)
            ),
            format!(
                "{:.0}",
                Measured::average_micros(measured.log_file_parallel_write)
            ),
        ]);
    }
    println!("{redo}");
    // The seed's shape: variant 1 > 2 > 3, and 'log file sync' the bulk of 1 - 2.
    let difference = elapsed_micros(&results[0]) - elapsed_micros(&results[1]);
    let sync_difference = results[0].log_file_sync.1 as f64 - results[1].log_file_sync.1 as f64;
    let seed_difference = SEED_ELAPSED_SECONDS[0] - SEED_ELAPSED_SECONDS[1];
    let seed_sync_difference = 501.0 - 192.0;
    // A share of a difference that is not positive says nothing (a run disturbed by load).
    let sync_share = if difference > 0.0 {
        format!("{:.0}%", 100.0 * sync_difference / difference)
    } else {
        "n/a, variant 1 was not slower".to_string()
    };
    println!(
        "variant 1 - variant 2: {:.1} us/iteration, of which 'log file sync' {sync_share} (seed: {:.1} us/iteration, {:.0}%)",
        per_iteration(difference),
        seed_per_iteration(seed_difference),
        100.0 * seed_sync_difference / seed_difference
    );
}

/// One point of part 2: `sessions` sessions committing single-row inserts with `commit`
/// for `duration`. Returns the commits and what they cost.
fn commit_point(
    instance: &Arc<Instance>,
    sessions: usize,
    commit: &str,
    duration: Duration,
) -> pythia::Result<(u64, Measured)> {
    let stop = AtomicBool::new(false);
    let start = Barrier::new(sessions + 1);
    let text = Value::text(random_text(&mut Rng::new(3), SMALL_TEXT_CHARS));
    let mut commits = 0u64;
    let mut measured = None;
    std::thread::scope(|scope| -> pythia::Result<()> {
        let timer = scope.spawn(|| {
            start.wait();
            let before = Snapshot::take();
            let started = Instant::now();
            std::thread::sleep(duration);
            stop.store(true, Ordering::Relaxed);
            (before, started)
        });
        let result = run_sessions(
            sessions,
            &stop,
            |number| {
                // Connected and parsed before the clock starts; the barrier is passed even
                // when connecting fails, so that the timer never waits for ever.
                let prepared = instance.connect().and_then(|mut session| {
                    let insert = session.prepare("insert into g values (:1, :2, :3)")?;
                    let commit = session.prepare(commit)?;
                    Ok((session, insert, commit))
                });
                start.wait();
                let (mut session, insert, commit) = prepared?;
                let mut done = 0u64;
                while !stop.load(Ordering::Relaxed) && done < COMMITS_PER_SESSION_MAX {
                    session.execute_prepared(
                        &insert,
                        &[
                            Value::integer(number as i64),
                            Value::integer(done as i64),
                            text.clone(),
                        ],
                    )?;
                    session.execute_prepared(&commit, &[])?;
                    done += 1;
                }
                Ok(done)
            },
            |done| commits += done,
        );
        let (before, started) = timer.join().expect("the timer thread panicked");
        measured = Some(Measured::between(
            &before,
            &Snapshot::take(),
            started.elapsed(),
        ));
        result
    })?;
    Ok((commits, measured.expect("measured once the sessions ended")))
}

/// Part 2: group commit from 1 to 32 sessions, and one session with NOWAIT.
fn group_commit(instance: &Arc<Instance>, scale: &Scale) -> pythia::Result<()> {
    let mut session = instance.connect()?;
    session.execute("create table g (session_number number, n number, text varchar2(100))")?;
    drop(session);
    println!(
        "commit experiment, part 2: each session (a thread) inserts a {SMALL_TEXT_CHARS}-character row and commits, for {:.1} s per line",
        scale.point.as_secs_f64()
    );
    let mut table = Table::new();
    table.set_header(vec![
        "sessions",
        "COMMIT WRITE",
        "commits",
        "commits/s",
        "x 1 session WAIT",
        "redo writes",
        "commits per write",
        "avg log file sync us",
        "avg log file parallel write us",
    ]);
    let mut one_session_rate = None;
    let points = scale
        .session_counts()
        .into_iter()
        .map(|sessions| (sessions, "WAIT"))
        .chain(std::iter::once((1, "NOWAIT")));
    for (sessions, mode) in points {
        let (commits, measured) = commit_point(
            instance,
            sessions,
            &format!("commit write {}", mode.to_lowercase()),
            scale.point,
        )?;
        let rate = commits as f64 / measured.elapsed.as_secs_f64().max(1e-9);
        let baseline = *one_session_rate.get_or_insert(rate);
        table.add_row(vec![
            sessions.to_string(),
            mode.to_string(),
            commits.to_string(),
            format!("{rate:.0}"),
            format!("{:.2}", rate / baseline.max(1e-9)),
            measured.redo_writes.to_string(),
            format!("{:.1}", commits as f64 / measured.redo_writes.max(1) as f64),
            format!("{:.0}", Measured::average_micros(measured.log_file_sync)),
            format!(
                "{:.0}",
                Measured::average_micros(measured.log_file_parallel_write)
            ),
        ]);
    }
    println!("{table}");
    Ok(())
}
