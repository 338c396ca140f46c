//! A profiling harness for sessions parsing and executing at once: THREADS sessions, each
//! running COUNT statements `SELECT /* concurrent */ dummy FROM dual WHERE dummy = ...` as
//! `binds` (one text, a bind, found in the session cursor cache), `private` (the same, each
//! session with a text of its own: no cursor shared), `force` (a literal in
//! each text, CURSOR_SHARING = FORCE) or `exact` (a literal in each text, each a hard
//! parse). KINDS is a comma-separated list run in turn, each on a new instance (with
//! `shared_pool_size` POOL, 64M by default, and `_kghlu_transient_percent` TRANSIENT, 10 by
//! default), in one process. Prints statements per second; run it under `perf` to see where sessions
//! contend:
//!
//! ```text
//! cargo build --release -p pythia --example concurrent_parse
//! perf record -g target/release/examples/concurrent_parse 10 200000 binds
//! target/release/examples/concurrent_parse 10 20000 exact,exact 10M
//! ```

use std::time::Instant;

use pythia::{Instance, Value};

fn main() -> pythia::Result<()> {
    let mut arguments = std::env::args().skip(1);
    let mut number = |default: u64| {
        arguments
            .next()
            .map_or(default, |text| text.parse().expect("a number"))
    };
    let threads = number(10);
    let count = number(100_000);
    let kinds = arguments.next().unwrap_or_else(|| "binds".to_string());
    let pool = arguments.next().unwrap_or_else(|| "64M".to_string());
    let transient = arguments.next().unwrap_or_else(|| "10".to_string());
    for kind in kinds.split(',') {
        run(threads, count, kind, &pool, &transient)?;
    }
    Ok(())
}

fn run(threads: u64, count: u64, kind: &str, pool: &str, transient: &str) -> pythia::Result<()> {
    let dir = std::env::temp_dir().join(format!("pythia-concurrent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let instance = Instance::open(
        &dir,
        &[
            ("shared_pool_size", pool),
            ("_kghlu_transient_percent", transient),
        ],
    )?;
    let started = Instant::now();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let instance = &instance;
                scope.spawn(move || -> pythia::Result<()> {
                    let mut session = instance.connect()?;
                    if kind == "force" {
                        session.execute("ALTER SESSION SET cursor_sharing = FORCE")?;
                    }
                    // `private`: binds, but each session its own text (no cursor shared).
                    let text = if kind == "private" {
                        format!("SELECT /* concurrent {thread} */ dummy FROM dual WHERE dummy = :1")
                    } else {
                        "SELECT /* concurrent */ dummy FROM dual WHERE dummy = :1".to_string()
                    };
                    for number in 0..count {
                        let value = format!("{:07}", (number * 7919 + thread) % 10_000_000);
                        if kind == "force" || kind == "exact" {
                            let literal = format!(
                                "SELECT /* concurrent */ dummy FROM dual WHERE dummy = '{value}'"
                            );
                            session.execute(&literal)?;
                        } else {
                            session.execute_with(&text, &[Value::text(value)])?;
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        for worker in workers {
            worker.join().expect("a session panicked")?;
        }
        pythia::Result::Ok(())
    })?;
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{threads} sessions x {count} {kind}: {:.0} statements/s",
        (threads * count) as f64 / elapsed
    );
    // What every statement took of what all sessions share: latch gets per statement.
    let mut session = instance.connect()?;
    let latches =
        session.execute("SELECT name, gets FROM v$latch WHERE gets > 0 ORDER BY gets DESC")?;
    let per_statement: Vec<String> = latches
        .rows
        .iter()
        .map(|row| {
            format!(
                "{} {:.2}",
                row[0],
                row[1].to_string().parse::<f64>().unwrap_or(0.0) / (threads * count) as f64
            )
        })
        .take(6)
        .collect();
    println!("  latch gets per statement: {}", per_statement.join(", "));
    let sql = session.execute(
        "SELECT executions, parse_calls, sql_text FROM v$sql WHERE sql_text LIKE '%concurrent%'",
    )?;
    for row in sql.rows.iter().take(3) {
        println!("  v$sql: {row:?}");
    }
    instance.shutdown()?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
