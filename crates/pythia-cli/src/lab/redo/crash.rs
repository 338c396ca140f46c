//! `pythia lab crash`: acknowledged commits survive `kill -9`, whole (issue 6).
//!
//! ```text
//!  round 1..=kills, one database throughout:
//!    pythia crash-worker DIR      4 sessions, each in a loop: insert a row of t, its child
//!    (this binary, re-executed)   rows, update its counters row, COMMIT WRITE WAIT, print
//!                                 "ACK <session> <seq>"
//!    the lab reads the acks; at a seeded random moment after the first (one round in four:
//!    0-100 ms after the worker started, mostly during its open): SIGKILL
//!    DBVERIFY the files as the kill left them      (instance/dbverify.rs in the library)
//!    open (crash recovery), check rows against acks and indexes against tables, shut down
//!    DBVERIFY again
//! ```
//!
//! A transaction of session `s` with sequence number `q` inserts `t (s, q, tag, payload)`,
//! whose payload is 16 to 200 bytes, or 1,000 to 3,900 one time in four (so that one spans
//! redo blocks and several log writes), inserts `1 + q % 3` rows of `child (s, q, part,
//! note)`, and sets `counters.seq = q` for `s`. Every value follows from `(s, q)`. What each
//! round checks, failing the run at the first breach:
//!
//! 1. Acks: each session's are consecutive, from the one after the last committed sequence
//!    found in the previous round.
//! 2. Every acknowledged commit is present: for each session the sequences in `t` are exactly
//!    `1..=m`, with `m` the last acknowledged one or the next (the commit in flight at the
//!    kill may or may not have reached the redo on disk).
//! 3. Nothing partial: every row's tag and payload are the ones written; the counter equals
//!    `m`; the child rows are exactly those of the present sequences, notes included.
//! 4. Indexes agree with their tables: every B-tree passes `BTree::check`, and its live
//!    entries name exactly the table's rows (the ROWIDs a walk of its heap blocks finds, one
//!    to one); the same keys come back by index and by full scan through SQL (RULE mode,
//!    each plan checked with EXPLAIN PLAN).
//! 5. Every checksum good (DBVERIFY): after the kill, every datafile block passes its checks
//!    or has a whole image in the double-write file (a torn write the open restores), and
//!    no redo block is damaged or past a hole; after recovery and a clean shutdown, every
//!    datafile block passes.
//!
//! A kill during the worker's very first open may leave no database, or one whose creation
//! did not finish (the next open creates it anew), or the schema in part: the first of its
//! DDL statements and not the others (the next round's worker makes the rest), and the
//! counters rows or none. With nothing acknowledged yet, that is all right, and the round
//! checks the rest only once the setup is whole. A DDL statement recovered in part (a table
//! without its primary key) is a breach in any round: each is all or nothing.
//!
//! Each round is a row of the table printed at the end: acks per session, the highest
//! sequence present, in-flight commits found, datafile blocks failing at the kill (torn) and
//! blocks the open restored from `dblwr.dat` (torn, or older than their image there), redo
//! records applied, transactions rolled back, roll forward's time (the open report's) and the
//! whole open's, blocks DBVERIFY read in both passes.
//!
//! The seed fixes the kill moments; which commit is in flight at each is the scheduler's.
//! `-p seed=N` repeats a run's kill moments, `-p kills=N` sets the number of rounds.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::access::heap::{self, RowId};
use pythia::access::segment;
use pythia::buffer::AccessKind;
use pythia::catalog::{Dictionary, TableDef};
use pythia::instance::dbverify;
use pythia::io::block::BlockId;
use pythia::{Instance, Session, Value};

use crate::lab::common::{integer, lab_error, Rng};

/// Sessions the worker runs, each on its own thread.
pub const SESSIONS: usize = 4;

/// The worker's and the checker's parameters: a small cache (DBWR writes, through the
/// double-write file, while sessions commit) and small log files (log switches and their
/// checkpoints within a round).
const PARAMETERS: &[(&str, &str)] = &[
    ("db_cache_size", "8M"),
    ("log_file_size", "4M"),
    ("undo_tablespace_size", "16M"),
    ("log_buffer", "1M"),
];

const SCHEMA: &[&str] = &[
    "create table t (session_id number, seq number, tag varchar2(40) not null, \
     payload varchar2(4000) not null, primary key (session_id, seq))",
    "create index t_tag on t (tag)",
    "create table child (session_id number, seq number, part number, note varchar2(60) not null, \
     primary key (session_id, seq, part), foreign key (session_id, seq) references t)",
    "create table counters (session_id number primary key, seq number not null)",
];

/// The worker stops on its own after this many transactions per session or this long (the
/// lab kills it long before).
const WORKER_TRANSACTIONS_MAX: i64 = 1_000_000;
const WORKER_SECONDS_MAX: u64 = 600;
/// The worker's first ack (open, recovery, DDL) must come within this.
const FIRST_ACK_SECONDS_MAX: u64 = 120;
/// One round in this many kills the worker at most this long after it started instead of
/// after its first ack.
const EARLY_KILL_ONE_IN: u64 = 4;
const EARLY_KILL_MILLIS_MAX: u64 = 100;

/// The payload of transaction `(session, seq)`: its length and bytes follow from both.
fn payload(session: usize, seq: i64) -> String {
    let mut hash = (session as u64) << 40 ^ seq as u64;
    hash = hash.wrapping_add(0x9E37_79B9_7F4A_7C15);
    hash = (hash ^ hash >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    hash = (hash ^ hash >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
    hash ^= hash >> 31;
    let length = if hash.is_multiple_of(4) {
        1_000 + (hash >> 8) % 2_901
    } else {
        16 + (hash >> 8) % 185
    } as usize;
    let unit = format!("{session}:{seq};");
    unit.repeat(length / unit.len() + 1)[..length].to_string()
}

fn tag(session: usize, seq: i64) -> String {
    format!("s{session}-{seq:09}")
}

fn parts(seq: i64) -> i64 {
    1 + seq % 3
}

fn note(session: usize, seq: i64, part: i64) -> String {
    format!("note {session}/{seq}/{part}")
}

/// Runs DDL, ignoring ORA-00955 (the object exists from an earlier round).
fn create_if_absent(session: &mut Session, sql: &str) -> pythia::Result<()> {
    match session.execute(sql) {
        Err(error) if error.code() == 955 => Ok(()),
        other => other.map(|_| ()),
    }
}

// ------------------------------------------------------------------------------------------
// The worker: the child process the lab kills.
// ------------------------------------------------------------------------------------------

/// `pythia crash-worker DIR`: opens the database (recovering it), creates the schema if
/// absent, then runs the sessions until killed. Returns on an error before the sessions start,
/// when stdout closes (the lab is gone) or at the limits above; a session's error ends the
/// process with status 1.
pub fn worker(dir: &Path) -> pythia::Result<()> {
    let instance = Instance::open(dir, PARAMETERS)?;
    set_up(&instance)?;
    let started = Instant::now();
    thread::scope(|scope| {
        for number in 0..SESSIONS {
            let instance = &instance;
            scope.spawn(move || {
                if let Err(error) = session_loop(instance, number, started) {
                    // The others would go on committing: the whole worker stops, and the lab
                    // sees it exit before its kill.
                    eprintln!("crash worker, session {number}: {error}");
                    std::process::exit(1);
                }
            });
        }
    });
    instance.shutdown()
}

/// The worker's setup: the SCHEMA statements an earlier round's kill left undone, then a
/// counters row per session (one transaction).
fn set_up(instance: &Arc<Instance>) -> pythia::Result<()> {
    let mut setup = instance.connect()?;
    for statement in SCHEMA {
        create_if_absent(&mut setup, statement)?;
    }
    for session in 0..SESSIONS {
        match setup.execute_with(
            "insert into counters (session_id, seq) values (:1, 0)",
            &[Value::integer(session as i64)],
        ) {
            Err(error) if error.code() == 1 => {}
            other => {
                other?;
            }
        }
    }
    setup.execute("commit")?;
    Ok(())
}

/// One session's transactions, each acknowledged on stdout once its COMMIT returned.
fn session_loop(instance: &Arc<Instance>, number: usize, started: Instant) -> pythia::Result<()> {
    let mut session = instance.connect()?;
    let id = Value::integer(number as i64);
    let result = session.execute_with(
        "select seq from counters where session_id = :1",
        std::slice::from_ref(&id),
    )?;
    let mut seq = integer(&result.rows[0][0]) as i64;
    let stdout = std::io::stdout();
    for _ in 0..WORKER_TRANSACTIONS_MAX {
        if started.elapsed() > Duration::from_secs(WORKER_SECONDS_MAX) {
            break;
        }
        seq += 1;
        let key = [id.clone(), Value::integer(seq)];
        session.execute_with(
            "insert into t (session_id, seq, tag, payload) values (:1, :2, :3, :4)",
            &[
                key[0].clone(),
                key[1].clone(),
                Value::text(tag(number, seq)),
                Value::text(payload(number, seq)),
            ],
        )?;
        let updated =
            session.execute_with("update counters set seq = :2 where session_id = :1", &key)?;
        if updated.rows_affected != 1 {
            return Err(lab_error(format!(
                "session {number}: {} counters rows updated",
                updated.rows_affected
            )));
        }
        for part in 1..=parts(seq) {
            session.execute_with(
                "insert into child (session_id, seq, part, note) values (:1, :2, :3, :4)",
                &[
                    key[0].clone(),
                    key[1].clone(),
                    Value::integer(part),
                    Value::text(note(number, seq, part)),
                ],
            )?;
        }
        session.execute("commit write wait")?;
        let mut out = stdout.lock();
        if writeln!(out, "ACK {number} {seq}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break; // the lab is gone
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------
// The lab: rounds of run, kill, verify, recover, check.
// ------------------------------------------------------------------------------------------

struct Settings {
    kills: usize,
    seed: u64,
    /// How long the worker runs after its first ack, in ms: drawn from this range per round.
    run_millis: (u64, u64),
}

impl Settings {
    fn new(quick: bool, parameters: &[(String, String)]) -> pythia::Result<Settings> {
        let mut settings = Settings {
            kills: if quick { 6 } else { 20 },
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |elapsed| {
                    elapsed.as_nanos() as u64 ^ std::process::id() as u64
                }),
            run_millis: if quick { (50, 400) } else { (50, 1_500) },
        };
        for (name, value) in parameters {
            let number = value
                .parse::<u64>()
                .map_err(|_| lab_error(format!("crash: {name}={value} is not a number")))?;
            match name.as_str() {
                "seed" => settings.seed = number,
                "kills" if (1..=1_000).contains(&number) => settings.kills = number as usize,
                _ => {
                    return Err(lab_error(format!(
                        "crash: unknown setting {name}={value}; it takes seed and kills (1 to 1000)"
                    )))
                }
            }
        }
        Ok(settings)
    }
}

/// Kills (SIGKILL) and reaps the worker on every path, errors included.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// When a round's SIGKILL comes.
#[derive(Clone, Copy, Debug)]
enum KillAt {
    /// This long after the worker's first ack: the sessions are committing.
    AfterFirstAck(Duration),
    /// This long after the worker started, acked or not: mostly during its open (roll
    /// forward, rollback, the checkpoint after them, DDL), a crash during recovery.
    AfterStart(Duration),
}

impl std::fmt::Display for KillAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KillAt::AfterFirstAck(after) => write!(f, "ack + {}", after.as_millis()),
            KillAt::AfterStart(after) => write!(f, "start + {}", after.as_millis()),
        }
    }
}

/// Starts the worker, reads its acks until `kill_at`, kills it with SIGKILL and returns every
/// ack it wrote: (session, seq), in the order written.
fn run_worker(dir: &Path, kill_at: KillAt) -> pythia::Result<Vec<(usize, i64)>> {
    let started = Instant::now();
    let executable = std::env::current_exe()
        .map_err(|error| lab_error(format!("crash: this program's path: {error}")))?;
    let child = Command::new(executable)
        .arg("crash-worker")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|error| lab_error(format!("crash: starting the worker: {error}")))?;
    let mut child = KillOnDrop(child);
    let stdout = child.0.stdout.take().expect("the worker's stdout is piped");
    let (sender, receiver) = mpsc::channel();
    let reader = thread::spawn(move || -> Result<(), String> {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let mut words = line.split_whitespace();
            let ack = match (words.next(), words.next(), words.next()) {
                (Some("ACK"), Some(session), Some(seq)) => session
                    .parse::<usize>()
                    .ok()
                    .filter(|session| *session < SESSIONS)
                    .zip(seq.parse::<i64>().ok()),
                _ => None,
            };
            let ack = ack.ok_or_else(|| format!("the worker wrote '{line}'"))?;
            if sender.send(ack).is_err() {
                break;
            }
        }
        Ok(())
    });
    let mut acked = Vec::new();
    let early_exit = || lab_error("crash: the worker exited before it was killed");
    let deadline = match kill_at {
        KillAt::AfterStart(after) => started + after,
        KillAt::AfterFirstAck(after) => {
            match receiver.recv_timeout(Duration::from_secs(FIRST_ACK_SECONDS_MAX)) {
                Ok(ack) => acked.push(ack),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(lab_error(format!(
                        "crash: the worker acknowledged nothing within {FIRST_ACK_SECONDS_MAX} s"
                    )))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(early_exit()),
            }
            Instant::now() + after
        }
    };
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match receiver.recv_timeout(left) {
            Ok(ack) => acked.push(ack),
            Err(mpsc::RecvTimeoutError::Timeout) => break,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(early_exit()),
        }
    }
    drop(child); // SIGKILL, then reap: the pipe closes and the reader sees its end.
    reader
        .join()
        .expect("the ack reader panicked")
        .map_err(|message| lab_error(format!("crash: {message}")))?;
    // Acks written before the kill are acknowledgements too.
    acked.extend(receiver.try_iter());
    Ok(acked)
}

/// One round's figures, for the table.
struct Round {
    kill_at: KillAt,
    acked: [usize; SESSIONS],
    present: [i64; SESSIONS],
    in_flight_found: usize,
    torn_blocks: usize,
    restored_blocks: usize,
    roll_forward_micros: u64,
    open_millis: f64,
    /// The open created the database (the kill came before the worker's first open finished).
    created: bool,
    redo_records: u64,
    rolled_back: usize,
    blocks_verified: u64,
}

/// The `-p` settings [`run`] takes.
pub const SETTINGS: &[&str] = &["seed", "kills"];

pub fn run(quick: bool, dir: &Path, parameters: &[(String, String)]) -> pythia::Result<()> {
    let settings = Settings::new(quick, parameters)?;
    let _ = std::fs::remove_dir_all(dir);
    println!(
        "crash: {} kills (SIGKILL {}-{} ms after the worker's first ack, or one time in \
         {EARLY_KILL_ONE_IN} 0-{EARLY_KILL_MILLIS_MAX} ms after it started), {SESSIONS} sessions \
         committing WRITE WAIT; seed {} (repeat with -p seed={})",
        settings.kills, settings.run_millis.0, settings.run_millis.1, settings.seed, settings.seed
    );
    let started = Instant::now();
    let mut rng = Rng::new(settings.seed);
    // Per session, the last sequence known committed: acknowledged, or found after a kill.
    let mut committed = [0i64; SESSIONS];
    let mut rounds = Vec::new();
    let mut outcome = Ok(());
    for number in 1..=settings.kills {
        let (low, high) = settings.run_millis;
        let kill_at = if rng.below(EARLY_KILL_ONE_IN) == 0 {
            KillAt::AfterStart(Duration::from_millis(rng.below(EARLY_KILL_MILLIS_MAX + 1)))
        } else {
            KillAt::AfterFirstAck(Duration::from_millis(low + rng.below(high - low + 1)))
        };
        match round(dir, kill_at, &mut committed) {
            Ok(round) => rounds.push(round),
            Err(error) => {
                // The lab's own findings (ORA-00900) bare; an engine error with its number.
                let cause = match error.code() {
                    900 => error.message().to_string(),
                    _ => error.to_string(),
                };
                outcome = Err(lab_error(format!(
                    "CRASH TEST FAILED in round {number} (seed {}, database left in {}): {cause}",
                    settings.seed,
                    dir.display()
                )));
                break;
            }
        }
    }
    print_rounds(&rounds);
    outcome?;
    let commits: usize = rounds.iter().flat_map(|round| round.acked).sum();
    let recovery: Vec<f64> = rounds.iter().map(|round| round.open_millis).collect();
    let low = recovery.iter().copied().fold(f64::INFINITY, f64::min);
    let high = recovery.iter().copied().fold(0.0, f64::max);
    println!(
        "verdict: PASS. {} kills, {commits} acknowledged commits all present and whole, {} \
         in-flight commits found, every block verified; open after a kill took {low:.0}-{high:.0} \
         ms ({:.1} s in all)",
        rounds.len(),
        rounds
            .iter()
            .map(|round| round.in_flight_found)
            .sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs, kills, verifies, recovers and checks once; `committed` moves to what was found.
fn round(dir: &Path, kill_at: KillAt, committed: &mut [i64; SESSIONS]) -> pythia::Result<Round> {
    let acks = run_worker(dir, kill_at)?;
    let mut acked = [0usize; SESSIONS];
    let mut last_acked = *committed;
    for (session, seq) in acks {
        if seq != last_acked[session] + 1 {
            return Err(lab_error(format!(
                "session {session} acknowledged {seq} after {}",
                last_acked[session]
            )));
        }
        last_acked[session] = seq;
        acked[session] += 1;
    }

    // A kill during the worker's very first open may leave no database yet (no valid control
    // file) or a creation that did not finish: the next open creates the database anew, and
    // nothing can have been acknowledged.
    let nothing_acknowledged = last_acked == [0; SESSIONS];
    let vfs = pythia::io::vfs::os();
    let crashed = match dbverify::verify(vfs.as_ref(), dir) {
        Err(error) if error.code() == 205 && nothing_acknowledged => None,
        Ok(report) if report.creating && nothing_acknowledged => None,
        Ok(report) if report.creating => {
            return Err(lab_error(
                "DBVERIFY after the kill: the control file says the database is being \
                 created, after commits were acknowledged",
            ))
        }
        Ok(report) => match report.problems(false).first() {
            Some(problem) => {
                return Err(lab_error(format!("DBVERIFY after the kill: {problem}")));
            }
            None => Some(report),
        },
        Err(error) => return Err(error),
    };

    let opening = Instant::now();
    let instance = Instance::open(dir, PARAMETERS)?;
    let open_millis = opening.elapsed().as_secs_f64() * 1e3;
    let report = instance.open_report().clone();
    let present = check(&instance, &last_acked).map_err(lab_error)?;
    instance.shutdown()?;
    drop(instance);

    let recovered = dbverify::verify(vfs.as_ref(), dir)?;
    if let Some(problem) = recovered.problems(true).first() {
        return Err(lab_error(format!("DBVERIFY after recovery: {problem}")));
    }
    let in_flight_found = (0..SESSIONS)
        .filter(|&session| present[session] > last_acked[session])
        .count();
    *committed = present;
    Ok(Round {
        kill_at,
        acked,
        present,
        in_flight_found,
        torn_blocks: crashed
            .as_ref()
            .map_or(0, dbverify::Report::datafile_blocks_failing),
        restored_blocks: report.blocks_repaired,
        roll_forward_micros: report.recovery_micros,
        open_millis,
        redo_records: report.redo_records_applied,
        rolled_back: report.transactions_rolled_back,
        blocks_verified: crashed
            .as_ref()
            .map_or(0, dbverify::Report::blocks_examined)
            + recovered.blocks_examined(),
        created: report.created,
    })
}

fn print_rounds(rounds: &[Round]) {
    let mut table = Table::new();
    table.set_header(vec![
        "round",
        "killed at ms",
        "acked per session",
        "present (max seq)",
        "in flight found",
        "torn / restored blocks",
        "redo records",
        "rolled back",
        "roll forward ms",
        "open ms",
        "blocks verified",
    ]);
    let joined = |values: &mut dyn Iterator<Item = String>| values.collect::<Vec<_>>().join(" ");
    for (index, round) in rounds.iter().enumerate() {
        table.add_row(vec![
            (index + 1).to_string(),
            round.kill_at.to_string(),
            joined(&mut round.acked.iter().map(usize::to_string)),
            joined(&mut round.present.iter().map(i64::to_string)),
            round.in_flight_found.to_string(),
            format!("{} / {}", round.torn_blocks, round.restored_blocks),
            round.redo_records.to_string(),
            round.rolled_back.to_string(),
            if round.created {
                "(created)".to_string()
            } else {
                format!("{:.1}", round.roll_forward_micros as f64 / 1e3)
            },
            format!("{:.0}", round.open_millis),
            round.blocks_verified.to_string(),
        ]);
    }
    println!("{table}");
}

// ------------------------------------------------------------------------------------------
// The checks after recovery (2, 3 and 4 of the module documentation).
// ------------------------------------------------------------------------------------------

fn query(session: &mut Session, sql: &str) -> Result<Vec<Vec<Value>>, String> {
    session
        .execute(sql)
        .map(|result| result.rows)
        .map_err(|error| format!("{sql}: {error}"))
}

fn text(value: &Value) -> String {
    value.to_string()
}

fn session_of(value: &Value) -> Result<usize, String> {
    usize::try_from(integer(value))
        .ok()
        .filter(|session| *session < SESSIONS)
        .ok_or_else(|| format!("a row of session {value}"))
}

/// Checks the recovered database against the acks; returns each session's highest sequence
/// present.
fn check(
    instance: &Arc<Instance>,
    last_acked: &[i64; SESSIONS],
) -> Result<[i64; SESSIONS], String> {
    let mut session = instance.connect().map_err(|error| error.to_string())?;
    if !setup_done(instance, &mut session)? {
        if *last_acked == [0; SESSIONS] {
            return Ok([0; SESSIONS]); // killed before the worker's sessions started
        }
        return Err("the worker's setup is not all there, after commits were acknowledged".into());
    }
    let mut present = [0i64; SESSIONS];
    let mut seqs: [BTreeSet<i64>; SESSIONS] = Default::default();
    for row in query(&mut session, "select session_id, seq, tag, payload from t")? {
        let (number, seq) = (session_of(&row[0])?, integer(&row[1]) as i64);
        if !seqs[number].insert(seq) {
            return Err(format!("t holds ({number}, {seq}) twice"));
        }
        if text(&row[2]) != tag(number, seq) || text(&row[3]) != payload(number, seq) {
            return Err(format!(
                "t ({number}, {seq}): tag or payload not as written"
            ));
        }
    }
    for number in 0..SESSIONS {
        let max = seqs[number].last().copied().unwrap_or(0);
        if max < last_acked[number] {
            return Err(format!(
                "session {number}: acknowledged commit {} lost (t holds up to {max})",
                last_acked[number]
            ));
        }
        if max > last_acked[number] + 1 {
            return Err(format!(
                "session {number}: t holds {max}, beyond the last ack {} and the one in flight",
                last_acked[number]
            ));
        }
        if seqs[number].len() as i64 != max {
            return Err(format!("session {number}: t misses a sequence below {max}"));
        }
        present[number] = max;
    }
    let counters = query(&mut session, "select session_id, seq from counters")?;
    let counters: BTreeMap<usize, i64> = counters
        .iter()
        .map(|row| Ok((session_of(&row[0])?, integer(&row[1]) as i64)))
        .collect::<Result<_, String>>()?;
    let expected: BTreeMap<usize, i64> = present.iter().copied().enumerate().collect();
    if counters != expected {
        return Err(format!(
            "counters {counters:?} do not match the highest sequences in t {expected:?}"
        ));
    }
    let mut children = BTreeSet::new();
    for row in query(
        &mut session,
        "select session_id, seq, part, note from child",
    )? {
        let (number, seq, part) = (
            session_of(&row[0])?,
            integer(&row[1]) as i64,
            integer(&row[2]) as i64,
        );
        if text(&row[3]) != note(number, seq, part) || !children.insert((number, seq, part)) {
            return Err(format!(
                "child ({number}, {seq}, {part}): twice or not as written"
            ));
        }
    }
    let expected: BTreeSet<(usize, i64, i64)> = (0..SESSIONS)
        .flat_map(|number| {
            (1..=present[number])
                .flat_map(move |seq| (1..=parts(seq)).map(move |part| (number, seq, part)))
        })
        .collect();
    if children != expected {
        return Err(format!(
            "child holds {} rows where the transactions in t wrote {}",
            children.len(),
            expected.len()
        ));
    }
    for table in ["t", "child", "counters"] {
        check_indexes(instance, table)?;
    }
    check_access_paths(&mut session).map(|()| present)
}

/// Whether the worker's setup (every SCHEMA statement, a counters row per session) was
/// all committed: it is done before any session starts, so it is, once anything has been
/// acknowledged. A kill during it legitimately leaves the first statements of SCHEMA and not
/// the others (each commits before the next begins; the next round's worker makes the rest),
/// and no counters row or all of them; anything else is a breach (`schema_made`).
fn setup_done(instance: &Instance, session: &mut Session) -> Result<bool, String> {
    if schema_made(instance)? < SCHEMA.len() {
        return Ok(false);
    }
    let counters = query(session, "select count(*) from counters")?;
    match integer(&counters[0][0]) {
        0 => Ok(false),
        rows if rows == SESSIONS as i128 => Ok(true),
        rows => Err(format!(
            "counters holds {rows} of the setup's {SESSIONS} rows, which one commit inserted"
        )),
    }
}

/// What each SCHEMA statement makes, as a dictionary shows it: (the statement, whether any
/// of it is there, whether all of it is).
fn schema_statements(dictionary: &Dictionary) -> [(&'static str, bool, bool); 4] {
    let has_primary_key = |table: &TableDef, columns: &[&str]| {
        let positions: Option<Vec<usize>> =
            columns.iter().map(|column| table.column(column)).collect();
        table
            .indexes
            .iter()
            .any(|index| index.primary && Some(&index.columns) == positions.as_ref())
    };
    let table = |name: &str| dictionary.table(name).ok();
    let (t, child, counters) = (table("T"), table("CHILD"), table("COUNTERS"));
    let t_tag = dictionary.indexes.get("T_TAG");
    [
        (
            SCHEMA[0],
            t.is_some(),
            t.is_some_and(|t| has_primary_key(t, &["SESSION_ID", "SEQ"])),
        ),
        (
            SCHEMA[1],
            t_tag.is_some(),
            t_tag.is_some_and(|index| index.table_name == "T"),
        ),
        (
            SCHEMA[2],
            child.is_some(),
            child.is_some_and(|child| {
                has_primary_key(child, &["SESSION_ID", "SEQ", "PART"])
                    && child.foreign_keys.iter().any(|key| key.parent == "T")
            }),
        ),
        (
            SCHEMA[3],
            counters.is_some(),
            counters.is_some_and(|counters| has_primary_key(counters, &["SESSION_ID"])),
        ),
    ]
}

/// How many SCHEMA statements the recovered database holds, each whole and in order. A
/// statement there in part (a table without its primary key: the crash test once found one,
/// made by a CREATE TABLE that committed its key's index separately) or one there without
/// those before it is an error: each DDL statement is all or nothing, and the worker runs
/// them in order.
fn schema_made(instance: &Instance) -> Result<usize, String> {
    let statements = schema_statements(&instance.catalog().current());
    if let Some((statement, ..)) = statements.iter().find(|(_, any, all)| *any && !*all) {
        return Err(format!("`{statement}` was recovered in part"));
    }
    let made = statements.iter().take_while(|(_, any, _)| *any).count();
    if let Some((statement, ..)) = statements[made..].iter().find(|(_, any, _)| *any) {
        return Err(format!(
            "`{statement}` was recovered without the statements before it"
        ));
    }
    Ok(made)
}

/// The ROWIDs of the rows of the heap segment `header` a new snapshot sees (a migrated row
/// at its head), read block by block beneath SQL.
fn visible_rowids(instance: &Instance, header: BlockId) -> pythia::Result<Vec<u64>> {
    let transactions = instance.transactions();
    let snapshot = transactions.snapshot();
    let mut rowids = Vec::new();
    for block in segment::used_blocks(instance.cache(), header)? {
        let pieces = heap::pieces(&instance.cache().read(block, AccessKind::Scan)?)?;
        for (slot, piece) in pieces {
            if transactions
                .consistent_version(piece, snapshot.scn, 0)?
                .is_some()
            {
                rowids.push(
                    RowId {
                        block: block.block,
                        slot,
                    }
                    .to_u64(),
                );
            }
        }
    }
    Ok(rowids)
}

/// Every index of `table` is a sound B-tree whose live entries are the table's rows, one to
/// one.
fn check_indexes(instance: &Arc<Instance>, table: &str) -> Result<(), String> {
    let dictionary = instance.catalog().current();
    let definition = dictionary
        .table(&table.to_uppercase())
        .map_err(|error| error.to_string())?;
    let rowids = visible_rowids(instance, definition.segment)
        .map_err(|error| format!("{table}: {error}"))?;
    let rows: BTreeSet<u64> = rowids.iter().copied().collect();
    for index in &definition.indexes {
        let cache = instance.cache();
        index
            .tree
            .check(cache)
            .map_err(|error| format!("index {}: {error}", index.name))?;
        let mut entries = Vec::new();
        for entry in index.tree.range(cache, None, None) {
            let entry = entry.map_err(|error| format!("index {}: {error}", index.name))?;
            if !entry.deleted {
                entries.push(entry.rowid);
            }
        }
        let named: BTreeSet<u64> = entries.iter().copied().collect();
        if rows.len() != rowids.len() || entries.len() != rowids.len() || named != rows {
            return Err(format!(
                "index {} has {} live entries for {} rows of {table}, or names other rows",
                index.name,
                entries.len(),
                rowids.len()
            ));
        }
    }
    Ok(())
}

/// The operations of a query's plan, as "OPERATION OPTIONS" lines.
fn plan(session: &mut Session, sql: &str) -> Result<Vec<String>, String> {
    query(session, &format!("explain plan for {sql}"))?;
    Ok(query(
        session,
        "select rtrim(operation || ' ' || options) from plan_table \
         where plan_id = (select max(plan_id) from plan_table)",
    )?
    .iter()
    .map(|row| text(&row[0]))
    .collect())
}

/// The same keys by index and by full scan, through SQL: each pair of queries, the first
/// read through an index (a range on its leading column under the rule-based optimizer) and
/// the second by a full scan, EXPLAIN PLAN showing which.
fn check_access_paths(session: &mut Session) -> Result<(), String> {
    query(session, "alter session set optimizer_mode = rule")?;
    const PAIRS: &[(&str, &str)] = &[
        (
            "select session_id, seq from t where session_id >= 0",
            "select session_id, seq from t",
        ),
        ("select tag from t where tag >= 's'", "select tag from t"),
        (
            "select session_id, seq, part from child where session_id >= 0",
            "select session_id, seq, part from child",
        ),
        (
            "select session_id, seq from counters where session_id >= 0",
            "select session_id, seq from counters",
        ),
    ];
    for (by_index, by_scan) in PAIRS {
        let index_plan = plan(session, by_index)?;
        let scan_plan = plan(session, by_scan)?;
        if !index_plan.iter().any(|line| line.starts_with("INDEX")) {
            return Err(format!(
                "{by_index}: not read through an index: {index_plan:?}"
            ));
        }
        if !scan_plan.iter().any(|line| line == "TABLE ACCESS FULL") {
            return Err(format!("{by_scan}: not a full scan: {scan_plan:?}"));
        }
        let keys = |rows: Vec<Vec<Value>>| -> BTreeSet<String> {
            rows.iter()
                .map(|row| row.iter().map(text).collect::<Vec<_>>().join("|"))
                .collect()
        };
        let (indexed, scanned) = (query(session, by_index)?, query(session, by_scan)?);
        let (index_count, scan_count) = (indexed.len(), scanned.len());
        if index_count != scan_count || keys(indexed) != keys(scanned) {
            return Err(format!(
                "{by_index} ({index_count} rows) and {by_scan} ({scan_count} rows) disagree"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_follow_from_session_and_sequence_and_vary_in_length() {
        assert_eq!(payload(2, 77), payload(2, 77));
        assert_ne!(payload(1, 77), payload(2, 77));
        let lengths: Vec<usize> = (1..=400).map(|seq| payload(0, seq).len()).collect();
        assert!(lengths.iter().all(|length| (16..=3_900).contains(length)));
        let long = lengths.iter().filter(|length| **length >= 1_000).count();
        assert!((50..=150).contains(&long), "{long} long payloads in 400");
        assert!(payload(3, 12).starts_with("3:12;3:12;"));
    }

    /// An instance with the lab's parameters in a directory of its own, with `statements`
    /// run in it; shut down and removed when dropped.
    struct Scratch {
        instance: Arc<Instance>,
        dir: std::path::PathBuf,
    }

    impl Scratch {
        fn with(name: &str, statements: &[&str]) -> Scratch {
            let dir = std::env::temp_dir()
                .join(format!("pythia-crash-check-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let instance = Instance::open(&dir, PARAMETERS).unwrap();
            let mut session = instance.connect().unwrap();
            for statement in statements {
                session
                    .execute(statement)
                    .unwrap_or_else(|error| panic!("{statement}: {error}"));
            }
            Scratch { instance, dir }
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = self.instance.shutdown();
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// A kill between two of the worker's DDL statements (between `create table t` and
    /// `create index t_tag`, say) leaves the first ones: with nothing acknowledged that is no
    /// failure, and the next round's worker makes the rest; then the checks run in full.
    #[test]
    fn a_schema_cut_between_two_statements_passes_and_the_next_worker_completes_it() {
        for made in 0..=SCHEMA.len() {
            let scratch = Scratch::with(&format!("cut{made}"), &SCHEMA[..made]);
            let instance = &scratch.instance;
            assert_eq!(schema_made(instance), Ok(made));
            assert_eq!(check(instance, &[0; SESSIONS]), Ok([0; SESSIONS]), "{made}");
            set_up(instance).unwrap();
            let mut session = instance.connect().unwrap();
            assert_eq!(setup_done(instance, &mut session), Ok(true), "{made}");
            assert_eq!(check(instance, &[0; SESSIONS]), Ok([0; SESSIONS]), "{made}");
            // Acknowledged commits are looked for once the setup is whole.
            assert!(check(instance, &[1, 0, 0, 0]).is_err());
        }
    }

    /// A statement recovered in part, or out of order, fails the round at once, acknowledged
    /// commits or not: the engine makes each DDL statement all or nothing.
    #[test]
    fn a_statement_recovered_in_part_or_out_of_order_fails_the_check() {
        let without_key = "create table t (session_id number, seq number, \
                           tag varchar2(40) not null, payload varchar2(4000) not null)";
        let part = Scratch::with("part", &[without_key]);
        let found = check(&part.instance, &[0; SESSIONS]).unwrap_err();
        assert!(found.contains("recovered in part"), "{found}");
        let order = Scratch::with("order", &[SCHEMA[0], SCHEMA[2]]);
        let found = check(&order.instance, &[0; SESSIONS]).unwrap_err();
        assert!(
            found.contains("without the statements before it"),
            "{found}"
        );
    }

    #[test]
    fn settings_take_seed_and_kills_and_refuse_the_rest() {
        let settings = |pairs: &[(&str, &str)]| {
            let owned: Vec<(String, String)> = pairs
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect();
            Settings::new(true, &owned)
        };
        let set = settings(&[("seed", "42"), ("kills", "3")]).unwrap();
        assert_eq!((set.seed, set.kills), (42, 3));
        assert_eq!(settings(&[]).unwrap().kills, 6);
        assert!(settings(&[("kills", "0")]).is_err());
        assert!(settings(&[("sessions", "8")]).is_err());
        assert!(settings(&[("seed", "x")]).is_err());
    }
}
