//! `pythia lab oltp`: N sessions on their own threads run a seeded mix of point selects,
//! branch aggregates, single-row updates + commit and inserts + commit against `accounts`.
//! Reports throughput per kind, the deltas of key statistics, the top wait events, and checks
//! that the table holds exactly what the sessions were told was committed.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::{Instance, Value};

use crate::lab::common::{integer, lab_error, progress, Rng, Snapshot};

const SEED: u64 = 0x5059_5448_4941; // "PYTHIA"
const BRANCHES: i64 = 100;
/// Inserted ids start here, each session in its own range, clear of the initial rows.
const INSERT_BASE: i64 = 1_000_000_000;
const INSERT_RANGE: i64 = 100_000_000;

const KINDS: [&str; 4] = [
    "point select",
    "branch aggregate",
    "update + commit",
    "insert + commit",
];

struct Scale {
    sessions: usize,
    initial_rows: i64,
    operations_per_session: u64,
    time_limit: Duration,
}

#[derive(Default, Clone)]
struct Tally {
    count: [u64; 4],
    micros: [u64; 4],
    errors: u64,
    inserted: i64,
    inserted_balance: i128,
    balance_delta: i128,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        for kind in 0..4 {
            self.count[kind] += other.count[kind];
            self.micros[kind] += other.micros[kind];
        }
        self.errors += other.errors;
        self.inserted += other.inserted;
        self.inserted_balance += other.inserted_balance;
        self.balance_delta += other.balance_delta;
    }
}

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let scale = if quick {
        Scale {
            sessions: 4,
            initial_rows: 10_000,
            operations_per_session: 1_000,
            time_limit: Duration::from_secs(30),
        }
    } else {
        Scale {
            sessions: 16,
            initial_rows: 200_000,
            operations_per_session: 10_000,
            time_limit: Duration::from_secs(300),
        }
    };
    let _ = std::fs::remove_dir_all(dir);
    let instance = Instance::open(
        dir,
        &[
            ("db_cache_size", "64M"),
            ("log_file_size", "64M"),
            ("undo_tablespace_size", "256M"),
        ],
    )?;
    println!(
        "oltp experiment: {} sessions, {} operations each (at most {} s), {} initial accounts in {} branches, seed {SEED:#x}",
        scale.sessions,
        scale.operations_per_session,
        scale.time_limit.as_secs(),
        scale.initial_rows,
        BRANCHES
    );
    println!("mix: 50% point select by id, 15% count/sum by branch, 25% update balance + commit, 10% insert + commit");

    let initial_balance = load(&instance, &scale)?;

    let before = Snapshot::take();
    let started = Instant::now();
    let deadline = started + scale.time_limit;
    let stop = AtomicBool::new(false);
    let bar = progress(
        scale.sessions as u64 * scale.operations_per_session,
        "oltp operations",
    );
    let mut total = Tally::default();
    crate::lab::common::run_sessions(
        scale.sessions,
        &stop,
        |number| worker(&instance, number, &scale, deadline, &stop, &bar),
        |tally| total.add(&tally),
    )?;
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    let after = Snapshot::take();

    let operations: u64 = total.count.iter().sum();
    let mut results = Table::new();
    results.set_header(vec!["operation", "count", "ops/s", "avg latency us"]);
    for (kind, name) in KINDS.iter().enumerate() {
        results.add_row(vec![
            name.to_string(),
            total.count[kind].to_string(),
            format!("{:.0}", total.count[kind] as f64 / elapsed),
            format!(
                "{:.0}",
                total.micros[kind] as f64 / total.count[kind].max(1) as f64
            ),
        ]);
    }
    results.add_row(vec![
        "total".to_string(),
        operations.to_string(),
        format!("{:.0}", operations as f64 / elapsed),
        format!(
            "{:.0}",
            total.micros.iter().sum::<u64>() as f64 / operations.max(1) as f64
        ),
    ]);
    println!(
        "elapsed {elapsed:.2} s, {} failed operations (rolled back)",
        total.errors
    );
    println!("{results}");
    println!("statistics (delta over the run):");
    println!("{}", after.statistics_table(&before, Some(operations)));
    println!("top wait events by time (non-idle, delta over the run):");
    println!("{}", after.events_table(&before, 10));

    // The invariant: every acknowledged insert is there, nothing else is, and the balances add
    // up to the initial total plus every acknowledged update and insert.
    let mut session = instance.connect()?;
    let result = session.execute("select count(*), sum(balance) from accounts")?;
    let count = integer(&result.rows[0][0]);
    let sum = integer(&result.rows[0][1]);
    let expected_count = scale.initial_rows as i128 + total.inserted as i128;
    let expected_sum = initial_balance + total.balance_delta + total.inserted_balance;
    drop(session);
    if count != expected_count || sum != expected_sum {
        return Err(lab_error(format!(
            "OLTP INVARIANT VIOLATED: accounts has {count} rows summing to {sum}; expected {expected_count} rows summing to {expected_sum}"
        )));
    }
    println!(
        "invariant holds: {count} rows = {} initial + {} acknowledged inserts; sum(balance) = {sum}",
        scale.initial_rows, total.inserted
    );
    instance.shutdown()
}

/// Creates `accounts` and its branch index and loads the initial rows; returns their total
/// balance.
fn load(instance: &std::sync::Arc<Instance>, scale: &Scale) -> pythia::Result<i128> {
    let mut session = instance.connect()?;
    session.execute(
        "create table accounts (id number primary key, branch number, balance number, name varchar2(40))",
    )?;
    session.execute("create index accounts_branch on accounts (branch)")?;
    let insert = session.prepare("insert into accounts values (:1, :2, :3, :4)")?;
    let mut rng = Rng::new(SEED);
    let mut total: i128 = 0;
    let bar = progress(scale.initial_rows as u64, "loading accounts");
    for id in 1..=scale.initial_rows {
        let balance = rng.below(10_000) as i64;
        total += balance as i128;
        session.execute_prepared(
            &insert,
            &[
                Value::integer(id),
                Value::integer(id % BRANCHES),
                Value::integer(balance),
                Value::text(format!("account {id}")),
            ],
        )?;
        if id % 1000 == 0 {
            session.execute("commit")?;
            bar.set_position(id as u64);
        }
    }
    session.execute("commit")?;
    bar.finish_and_clear();
    Ok(total)
}

fn worker(
    instance: &std::sync::Arc<Instance>,
    number: usize,
    scale: &Scale,
    deadline: Instant,
    stop: &AtomicBool,
    bar: &indicatif::ProgressBar,
) -> pythia::Result<Tally> {
    let mut session = instance.connect()?;
    let select = session.prepare("select name, balance from accounts where id = :1")?;
    let aggregate =
        session.prepare("select count(*), sum(balance) from accounts where branch = :1")?;
    let update = session.prepare("update accounts set balance = balance + :1 where id = :2")?;
    let insert = session.prepare("insert into accounts values (:1, :2, :3, :4)")?;
    let mut rng = Rng::new(SEED ^ ((number as u64 + 1) << 32));
    let mut tally = Tally::default();
    let mut next_insert = INSERT_BASE + number as i64 * INSERT_RANGE;
    for _ in 0..scale.operations_per_session {
        if stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
            break;
        }
        let roll = rng.below(100);
        let kind = match roll {
            0..=49 => 0,
            50..=64 => 1,
            65..=89 => 2,
            _ => 3,
        };
        let started = Instant::now();
        let outcome: pythia::Result<()> = (|| {
            match kind {
                0 => {
                    let id = 1 + rng.below(scale.initial_rows as u64) as i64;
                    let result = session.execute_prepared(&select, &[Value::integer(id)])?;
                    if result.rows.len() != 1 {
                        return Err(lab_error(format!(
                            "point select of account {id} returned {} rows",
                            result.rows.len()
                        )));
                    }
                }
                1 => {
                    let branch = rng.below(BRANCHES as u64) as i64;
                    let result = session.execute_prepared(&aggregate, &[Value::integer(branch)])?;
                    if result.rows.len() != 1 || integer(&result.rows[0][0]) == 0 {
                        return Err(lab_error(format!(
                            "branch {branch} aggregate came back empty"
                        )));
                    }
                }
                2 => {
                    let id = 1 + rng.below(scale.initial_rows as u64) as i64;
                    let delta = rng.below(201) as i64 - 100;
                    let result = session
                        .execute_prepared(&update, &[Value::integer(delta), Value::integer(id)])?;
                    if result.rows_affected != 1 {
                        return Err(lab_error(format!(
                            "update of account {id} changed {} rows",
                            result.rows_affected
                        )));
                    }
                    session.execute("commit")?;
                    tally.balance_delta += delta as i128;
                }
                _ => {
                    let id = next_insert;
                    next_insert += 1;
                    let balance = rng.below(10_000) as i64;
                    session.execute_prepared(
                        &insert,
                        &[
                            Value::integer(id),
                            Value::integer(rng.below(BRANCHES as u64) as i64),
                            Value::integer(balance),
                            Value::text(format!("new account {id}")),
                        ],
                    )?;
                    session.execute("commit")?;
                    tally.inserted += 1;
                    tally.inserted_balance += balance as i128;
                }
            }
            Ok(())
        })();
        match outcome {
            Ok(()) => {
                tally.count[kind] += 1;
                tally.micros[kind] += started.elapsed().as_micros() as u64;
            }
            Err(error) => {
                tally.errors += 1;
                eprintln!("session {number}: {} failed: {error}", KINDS[kind]);
                if session.in_transaction() {
                    session.execute("rollback")?;
                }
                if tally.errors > 10 {
                    return Err(lab_error(format!(
                        "session {number}: too many failed operations, last: {error}"
                    )));
                }
            }
        }
        bar.inc(1);
    }
    Ok(tally)
}
