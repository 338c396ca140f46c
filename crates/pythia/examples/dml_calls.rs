//! A profiling harness for one session's changes, as `lab sqlite` makes them: N executions
//! of a `kind` of call on a 20,000-row table with a primary key, by a pseudo-random id:
//! `update` (an UPDATE, all in one open transaction), `insert` (an INSERT of a new row, all
//! in one transaction), `update-commit` and `insert-commit` (each followed by a COMMIT), or
//! `select` (a point select by the same key, for comparison).
//! Instructions per call (every thread counted):
//!
//! ```text
//! cargo build --release -p pythia --example dml_calls
//! valgrind --tool=callgrind target/release/examples/dml_calls 2000 update  # minus
//! valgrind --tool=callgrind target/release/examples/dml_calls 0 update     # / 2,000
//! ```
//! Wall-clock time per call, and the COMMIT's share of it:
//! `target/release/examples/dml_calls 20000 update-commit` prints them.

use pythia::{Instance, Value};

const ROWS: i64 = 20_000;

fn main() -> pythia::Result<()> {
    let mut arguments = std::env::args().skip(1);
    let count: u64 = arguments
        .next()
        .map_or(10_000, |text| text.parse().expect("a count"));
    let kind = arguments.next().unwrap_or_else(|| "update".to_string());
    let dir = std::env::temp_dir().join(format!("pythia-dml-calls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let instance = Instance::open(&dir, &[])?;
    let mut session = instance.connect()?;
    session.execute("CREATE TABLE t (id NUMBER PRIMARY KEY, v NUMBER, pad VARCHAR2(100))")?;
    let insert = session.prepare("INSERT INTO t VALUES (:1, :2, :3)")?;
    for id in 0..ROWS {
        let row = [
            Value::integer(id),
            Value::integer(0),
            Value::text("x".repeat(100)),
        ];
        session.execute_prepared(&insert, &row)?;
    }
    session.execute("COMMIT")?;
    let update = session.prepare("UPDATE t SET v = v + 1 WHERE id = :1")?;
    let select = session.prepare("SELECT v FROM t WHERE id = :1")?;
    let commit = session.prepare("COMMIT")?;
    let mut id = 1;
    let started = std::time::Instant::now();
    let mut committing = std::time::Duration::ZERO;
    for number in 0..count as i64 {
        // The generator of seed 001's BUFFER_STUFFER: every id once per period.
        id = (id * 967 + 3041) % ROWS;
        let bind = [Value::integer(id)];
        match kind.as_str() {
            "select" => {
                session.execute_prepared(&select, &bind)?;
            }
            "insert" | "insert-commit" => {
                let row = [
                    Value::integer(ROWS + number),
                    Value::integer(0),
                    Value::text("x".repeat(100)),
                ];
                session.execute_prepared(&insert, &row)?;
            }
            "update-commit" => {
                session.execute_prepared(&update, &bind)?;
            }
            _ => {
                session.execute_prepared(&update, &bind)?;
            }
        }
        if kind.ends_with("-commit") {
            let commit_started = std::time::Instant::now();
            session.execute_prepared(&commit, &[])?;
            committing += commit_started.elapsed();
        }
    }
    if count > 0 {
        let per_call = |time: std::time::Duration| time.as_secs_f64() * 1e6 / count as f64;
        let elapsed = started.elapsed();
        println!(
            "{kind}: {count} calls, {:.1} us each, of which COMMIT {:.1} us",
            per_call(elapsed),
            per_call(committing)
        );
    }
    session.execute("COMMIT")?;
    if kind.ends_with("-commit") {
        // What of a COMMIT was the log write itself: the rest is the commit's own work.
        let waits = session.execute(
            "SELECT event, total_waits, ROUND(time_waited_micro / total_waits, 1) \
             FROM v$system_event \
             WHERE event IN ('log file sync', 'log file parallel write') ORDER BY event",
        )?;
        for row in waits.rows {
            println!("{}: {} waits, {} us on average", row[0], row[1], row[2]);
        }
        let redo = session.execute(
            "SELECT name, value FROM v$sysstat \
             WHERE name IN ('redo size', 'redo entries', 'user commits') ORDER BY name",
        )?;
        for row in redo.rows {
            println!(
                "{}: {} (since the instance started, the load included)",
                row[0], row[1]
            );
        }
    }
    drop(session);
    instance.shutdown()?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
