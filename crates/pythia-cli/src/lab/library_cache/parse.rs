//! `pythia lab parse`: what a hard parse, a soft parse and a session cursor cache hit cost,
//! measured on the same statement shape in one run.
//!
//! Two statement shapes, each measured alone: the simplest query (one row from dual), where
//! a hard parse does the least work it can, and an OLTP lookup (a two-table join through a
//! primary key). Each loop executes one shape's work N times; the parse's cost is the loop's
//! time per statement less the time per execution of the same text's cursor held open (`execute_prepared`), which does no parse call at all:
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

/// The target: a soft parse at least this many times cheaper than a hard one.
const SOFT_TO_HARD_MIN: f64 = 50.0;

/// A statement shape measured: its text with a literal (distinct for each `number`), and
/// with a bind in its place.
struct Shape {
    name: &'static str,
    literal: fn(u64) -> String,
    bound: &'static str,
    bind: fn() -> Value,
}

const SHAPES: [Shape; 2] = [
    Shape {
        name: "one row from dual (the simplest query: the least a hard parse does)",
        literal: |number| {
            format!("SELECT /* parse cost */ dummy FROM dual WHERE dummy = 'v{number:07}'")
        },
        bound: "SELECT /* parse cost */ dummy FROM dual WHERE dummy = :1",
        bind: || Value::text("v0000001"),
    },
    Shape {
        name: "a two-table join through a primary key (an OLTP lookup)",
        literal: |number| {
            format!(
                "SELECT /* parse cost */ e.ename, d.dname FROM parse_emp e, parse_dept d \
                 WHERE e.deptno = d.deptno AND e.empno = {}",
                number + 1
            )
        },
        bound: "SELECT /* parse cost */ e.ename, d.dname FROM parse_emp e, parse_dept d \
                WHERE e.deptno = d.deptno AND e.empno = :1",
        bind: || Value::integer(1),
    },
];

/// Nanoseconds per statement of each kind of parse call, execution included, and of the
/// same executions with no parse call: each kind's parse costs its figure less its baseline.
struct Costs {
    /// New literal texts.
    hard: f64,
    /// One literal text, found in the library cache.
    soft: f64,
    /// The literal text's cursor, open: executed with no parse call.
    literal_none: f64,
    /// The bound text, in the session cursor cache.
    cached: f64,
    /// The bound text's cursor, open.
    bound_none: f64,
}

fn create_tables(session: &mut pythia::Session) -> pythia::Result<()> {
    session.execute("CREATE TABLE parse_dept (deptno NUMBER PRIMARY KEY, dname VARCHAR2(20))")?;
    session.execute(
        "CREATE TABLE parse_emp (empno NUMBER PRIMARY KEY, ename VARCHAR2(20), deptno NUMBER)",
    )?;
    for deptno in 1..=4 {
        session.execute_with(
            "INSERT INTO parse_dept VALUES (:1, :2)",
            &[
                Value::integer(deptno),
                Value::text(format!("dept {deptno}")),
            ],
        )?;
    }
    for empno in 1..=100 {
        session.execute_with(
            "INSERT INTO parse_emp VALUES (:1, :2, :3)",
            &[
                Value::integer(empno),
                Value::text(format!("emp {empno}")),
                Value::integer(1 + empno % 4),
            ],
        )?;
    }
    session.execute("COMMIT")?;
    Ok(())
}

/// The fastest of two loops of `statements` runs of `work` (the first warms caches up), in
/// nanoseconds per statement.
fn fastest(
    session: &mut pythia::Session,
    statements: u64,
    mut work: impl FnMut(&mut pythia::Session, u64) -> pythia::Result<()>,
) -> pythia::Result<f64> {
    let mut fastest = f64::MAX;
    for round in 0..2 {
        let started = Instant::now();
        for number in 0..statements {
            work(session, round * statements + number)?;
        }
        fastest = fastest.min(started.elapsed().as_nanos() as f64 / statements as f64);
    }
    Ok(fastest)
}

fn measure(session: &mut pythia::Session, shape: &Shape, statements: u64) -> pythia::Result<Costs> {
    let bind = [(shape.bind)()];
    let same = (shape.literal)(0);
    let bound = session.prepare(shape.bound)?;
    let literal = session.prepare(&same)?;
    let mut literal_none = fastest(session, statements, |session, _| {
        session.execute_prepared(&literal, &[]).map(drop)
    })?;
    let mut bound_none = fastest(session, statements, |session, _| {
        session.execute_prepared(&bound, &bind).map(drop)
    })?;

    session.execute("ALTER SESSION SET session_cached_cursors = 0")?;
    let hard = fastest(session, statements, |session, number| {
        session.execute(&(shape.literal)(number + 1)).map(drop)
    })?;
    let soft = fastest(session, statements, |session, _| {
        session.execute(&same).map(drop)
    })?;
    session.execute("ALTER SESSION SET session_cached_cursors = 50")?;
    let cached = fastest(session, statements, |session, _| {
        session.execute_with(shape.bound, &bind).map(drop)
    })?;

    // The open cursors again, last: the first loops also paid for warming up.
    literal_none = literal_none.min(fastest(session, statements, |session, _| {
        session.execute_prepared(&literal, &[]).map(drop)
    })?);
    bound_none = bound_none.min(fastest(session, statements, |session, _| {
        session.execute_prepared(&bound, &bind).map(drop)
    })?);
    Ok(Costs {
        hard,
        soft,
        literal_none,
        cached,
        bound_none,
    })
}

fn report(shape: &Shape, costs: &Costs) {
    let hard = (costs.hard - costs.literal_none).max(1.0);
    let mut table = Table::new();
    table.set_header(vec![
        "parse call",
        "ns per statement",
        "ns of parse",
        "hard / this",
    ]);
    for (name, total, baseline) in [
        (
            "hard (new literal text: parse, plan, load)",
            costs.hard,
            costs.literal_none,
        ),
        (
            "soft (one literal text, found in the library cache)",
            costs.soft,
            costs.literal_none,
        ),
        (
            "session cursor cache hit (bound text)",
            costs.cached,
            costs.bound_none,
        ),
    ] {
        let parse = (total - baseline).max(1.0);
        table.add_row(vec![
            name.to_string(),
            format!("{total:.0}"),
            format!("{parse:.0}"),
            format!("{:.1}x", hard / parse),
        ]);
    }
    for (name, total) in [
        ("none: the literal text's open cursor", costs.literal_none),
        ("none: the bound text's open cursor", costs.bound_none),
    ] {
        table.add_row(vec![
            name.to_string(),
            format!("{total:.0}"),
            "-".to_string(),
            "-".to_string(),
        ]);
    }
    println!("\n{}:\n  {}\n{table}", shape.name, shape.bound);
    let soft = (costs.soft - costs.literal_none).max(1.0);
    let ratio = hard / soft;
    println!(
        "soft parse {soft:.0} ns, hard parse {hard:.0} ns: a soft parse is {ratio:.0}x cheaper (target: at least {SOFT_TO_HARD_MIN:.0}x): {}",
        if ratio >= SOFT_TO_HARD_MIN { "yes" } else { "NO" }
    );
}

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let statements: u64 = if quick { 3_000 } else { 20_000 };
    let instance = Instance::open(dir, &[("shared_pool_size", "256M")])?;
    let mut session = instance.connect()?;
    create_tables(&mut session)?;
    println!("parse experiment: {statements} statements per loop, one session");
    for shape in &SHAPES {
        let costs = measure(&mut session, shape, statements)?;
        report(shape, &costs);
    }
    drop(session);
    instance.shutdown()
}
