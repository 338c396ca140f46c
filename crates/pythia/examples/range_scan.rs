//! A profiling harness for the row path: 50,000 rows, then N range scans of 1,000 rows
//! (`select sum(val) ... where id between :1 and :2`), or N point selects with `point`.
//!
//! Instructions per row, as docs/benchmarks.md and its history report them:
//!
//! ```text
//! cargo build --release -p pythia --example range_scan
//! valgrind --tool=callgrind target/release/examples/range_scan 300   # minus the same with 0,
//! valgrind --tool=callgrind target/release/examples/range_scan 0     # divided by 300,000
//! ```

use std::time::Instant;

use pythia::{Instance, Value};

const ROWS: i64 = 50_000;
const RANGE: i64 = 1_000;

fn main() -> pythia::Result<()> {
    let mut arguments = std::env::args().skip(1);
    let count: i64 = arguments
        .next()
        .map_or(3_000, |text| text.parse().expect("a count"));
    let point = arguments.next().as_deref() == Some("point");
    let dir = std::env::temp_dir().join(format!("pythia-range-scan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let instance = Instance::open(&dir, &[])?;
    let mut session = instance.connect()?;
    session.execute("create table bench (id number primary key, val number, pad varchar2(100))")?;
    let insert = session.prepare("insert into bench values (:1, :2, :3)")?;
    for id in 1..=ROWS {
        let row = [
            Value::integer(id),
            Value::integer(id % 97),
            Value::text("x".repeat(40)),
        ];
        session.execute_prepared(&insert, &row)?;
    }
    session.execute("commit")?;
    let started = Instant::now();
    if point {
        let select = session.prepare("select val from bench where id = :1")?;
        for k in 0..count {
            session.execute_prepared(&select, &[Value::integer(1 + (k * 7919) % ROWS)])?;
        }
    } else {
        let select = session.prepare("select sum(val) from bench where id between :1 and :2")?;
        for k in 0..count {
            let low = 1 + (k * 7919) % (ROWS - RANGE);
            session.execute_prepared(
                &select,
                &[Value::integer(low), Value::integer(low + RANGE - 1)],
            )?;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{count} {} in {elapsed:.3} s",
        if point {
            "point selects"
        } else {
            "range scans"
        }
    );
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
