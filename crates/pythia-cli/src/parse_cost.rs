//! `pythia lab parse`: what a hard parse, a soft parse and a session cursor cache hit cost,
//! measured on the same statement shape in one run.
//!
//! Each loop executes `SELECT /* parse */ dummy FROM dual WHERE dummy = '<n>'`-shaped work
//! N times; the parse's cost is the loop's time per statement less the time per execution
//! of an already-open cursor (`execute_prepared`), which does no parse call at all:
//! - hard: N distinct literal texts, each new to the library cache (parse, plan, load);
//! - soft: one text N times, found in the library cache each time (session cursor cache
//!   off), so that only the parse call differs from the open cursor's execution;
//! - cached: one text N times with a bind, in the session cursor cache.
//!
//! Instruction counts of the same three (valgrind, `examples/parse_calls.rs` in the pythia
//! crate) are steadier than these times on a shared machine.

use std::path::Path;
use std::time::Instant;

use comfy_table::Table;
use pythia::{Instance, Value};

fn text(number: u64) -> String {
    format!("SELECT /* parse cost */ dummy FROM dual WHERE dummy = 'v{number:07}'")
}

pub fn run(quick: bool, dir: &Path) -> pythia::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let statements: u64 = if quick { 3_000 } else { 20_000 };
    let instance = Instance::open(dir, &[("shared_pool_size", "256M")])?;
    let mut session = instance.connect()?;
    let per_statement = |started: Instant| started.elapsed().as_nanos() as f64 / statements as f64;

    // Each loop runs twice and keeps its faster run: the first of a kind warms caches up.
    let prepared = session.prepare("SELECT /* parse cost */ dummy FROM dual WHERE dummy = :1")?;
    let bind = [Value::text("v0000001")];
    let mut execute_only = f64::MAX;
    for _ in 0..2 {
        let started = Instant::now();
        for _ in 0..statements {
            session.execute_prepared(&prepared, &bind)?;
        }
        execute_only = execute_only.min(per_statement(started));
    }

    session.execute("ALTER SESSION SET session_cached_cursors = 0")?;
    let mut hard = f64::MAX;
    for round in 0..2 {
        let started = Instant::now();
        for number in 0..statements {
            session.execute(&text(round * statements + number))?;
        }
        hard = hard.min(per_statement(started));
    }
    let mut soft = f64::MAX;
    for _ in 0..2 {
        let started = Instant::now();
        for _ in 0..statements {
            session.execute(&text(1))?;
        }
        soft = soft.min(per_statement(started));
    }

    session.execute("ALTER SESSION SET session_cached_cursors = 50")?;
    let bound = "SELECT /* parse cost */ dummy FROM dual WHERE dummy = :1";
    let mut cached = f64::MAX;
    for _ in 0..2 {
        let started = Instant::now();
        for _ in 0..statements {
            session.execute_with(bound, &bind)?;
        }
        cached = cached.min(per_statement(started));
    }

    // The open cursor again, last: the process's first loop also pays for warming it up.
    for _ in 0..2 {
        let started = Instant::now();
        for _ in 0..statements {
            session.execute_prepared(&prepared, &bind)?;
        }
        execute_only = execute_only.min(per_statement(started));
    }

    let parse = |total: f64| (total - execute_only).max(1.0);
    let mut table = Table::new();
    table.set_header(vec![
        "parse call",
        "ns per statement",
        "ns of parse",
        "hard / this",
    ]);
    for (name, total) in [
        ("hard (new text: parse, plan, load)", hard),
        ("soft (found in the library cache)", soft),
        ("session cursor cache hit", cached),
        ("none (execute an open cursor)", execute_only),
    ] {
        table.add_row(vec![
            name.to_string(),
            format!("{total:.0}"),
            if total == execute_only {
                "-".to_string()
            } else {
                format!("{:.0}", parse(total))
            },
            if total == execute_only {
                "-".to_string()
            } else {
                format!("{:.1}x", parse(hard) / parse(total))
            },
        ]);
    }
    println!("parse experiment: {statements} statements per loop, one session");
    println!("{table}");
    let ratio = parse(hard) / parse(soft);
    println!(
        "soft parse {:.0} ns, hard parse {:.0} ns: a soft parse is {ratio:.0}x cheaper (target: at least 50x)",
        parse(soft),
        parse(hard)
    );
    drop(session);
    instance.shutdown()
}
