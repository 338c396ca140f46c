//! A commit worker for crash tests: opens the database in the directory given as argument,
//! creates (if absent) `t (id number primary key, payload varchar2(100))` with an index on
//! `payload`, then inserts rows with increasing ids, one per transaction, and prints
//! `ACK <id>` (flushed) after each `commit` returns. It never stops on its own: the test
//! kills it with SIGKILL.
//!
//! `cargo run --example commit_worker -- /tmp/db` runs it by hand; `tests/kill9.rs` includes
//! this file and runs [`run`] inside a re-executed copy of the test binary.

use std::io::Write;
use std::path::Path;

use pythia::{Instance, Value};

pub const PARAMETERS: &[(&str, &str)] = &[
    ("db_cache_size", "8M"),
    ("log_file_size", "4M"),
    ("undo_tablespace_size", "16M"),
    ("log_buffer", "1M"),
];

/// Runs DDL, ignoring ORA-00955 (the object already exists from an earlier run).
fn create_if_absent(session: &mut pythia::Session, sql: &str) -> pythia::Result<()> {
    match session.execute(sql) {
        Err(error) if error.code() == 955 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// Inserts and acknowledges rows forever (or until stdout closes or an error).
pub fn run(dir: &Path) -> pythia::Result<()> {
    let instance = Instance::open(dir, PARAMETERS)?;
    let mut session = instance.connect()?;
    create_if_absent(
        &mut session,
        "create table t (id number primary key, payload varchar2(100))",
    )?;
    create_if_absent(&mut session, "create index t_payload on t (payload)")?;
    let result = session.execute("select nvl(max(id), 0) from t")?;
    let mut id: i64 = result.rows[0][0]
        .to_string()
        .parse()
        .expect("max(id) is an integer");
    let stdout = std::io::stdout();
    loop {
        id += 1;
        session.execute_with(
            "insert into t (id, payload) values (:1, :2)",
            &[Value::integer(id), Value::text(format!("payload {id:08}"))],
        )?;
        session.execute("commit")?;
        let mut out = stdout.lock();
        if writeln!(out, "ACK {id}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return Ok(());
        }
    }
}

#[allow(dead_code)]
fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: commit_worker <database directory>");
    if let Err(error) = run(Path::new(&dir)) {
        eprintln!("commit_worker: {error}");
        std::process::exit(1);
    }
}
