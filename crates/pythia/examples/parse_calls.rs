//! A profiling harness for parse calls: N executions of one statement with a bind, as a
//! `kind` of parse call: `hard` (N distinct texts, each new), `soft` (one text, found in the
//! library cache; session cursor cache off), `cached` (one text, in the session cursor
//! cache), `force` (one text with a literal under CURSOR_SHARING = FORCE: the literal
//! replaced, then as `cached`) or `none` (an open cursor executed, no parse call).
//! Instructions per parse call:
//!
//! ```text
//! cargo build --release -p pythia --example parse_calls
//! valgrind --tool=callgrind target/release/examples/parse_calls 10000 soft  # minus
//! valgrind --tool=callgrind target/release/examples/parse_calls 0 soft      # / 10,000
//! ```
//! and the same for `none`: a kind's parse cost is its figure less `none`'s.

use pythia::{Instance, Value};

fn main() -> pythia::Result<()> {
    let mut arguments = std::env::args().skip(1);
    let count: u64 = arguments
        .next()
        .map_or(10_000, |text| text.parse().expect("a count"));
    let kind = arguments.next().unwrap_or_else(|| "soft".to_string());
    let dir = std::env::temp_dir().join(format!("pythia-parse-calls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let instance = Instance::open(&dir, &[("shared_pool_size", "256M")])?;
    let mut session = instance.connect()?;
    let text = "SELECT /* parse calls */ dummy FROM dual WHERE dummy = :1";
    let bind = [Value::text("X")];
    if kind == "soft" {
        session.execute("ALTER SESSION SET session_cached_cursors = 0")?;
    }
    if kind == "force" {
        session.execute("ALTER SESSION SET cursor_sharing = FORCE")?;
    }
    let literal = "SELECT /* parse calls */ dummy FROM dual WHERE dummy = 'X'";
    let prepared = session.prepare(text)?;
    for _ in 0..3 {
        session.execute_with(text, &bind)?;
    }
    for number in 0..count {
        match kind.as_str() {
            "hard" => {
                let distinct = format!("{text} /* {number} */");
                session.execute_with(&distinct, &bind)?;
            }
            "none" => {
                session.execute_prepared(&prepared, &bind)?;
            }
            "force" => {
                session.execute(literal)?;
            }
            _ => {
                session.execute_with(text, &bind)?;
            }
        }
    }
    drop(session);
    instance.shutdown()?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
