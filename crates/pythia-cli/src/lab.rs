//! `pythia lab`: named, repeatable experiments on an embedded database.
//!
//! `commit` (here), `oltp`, `sqlite`, `parse`, `slammer`, `hotcursor`, `stuffer`, `midpoint`
//! `scan`, `hitpath`, `advice` and `crash` (a file each; `midpoint` shares `stuffer.rs`,
//! `advice` builds on it); with no name, all of them at quick scale. Each builds its own
//! instances; `-p name=value` settings reach only `slammer` (the SQLSlammer parameters) and
//! `crash` (seed, kills), the others say they ignore them.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use comfy_table::Table;
use pythia::buffer::BufferPool;
use pythia::instance::{Instance, InstanceConfig};
use pythia::instrumentation::{self, SessionInstrumentation, SessionType, Statistic, WaitEvent};
use pythia::redo::mtr::Mtr;
use pythia::storage::segment::{self, SegmentKind};

pub fn run_lab(
    name: Option<&str>,
    quick: bool,
    dir: &std::path::Path,
    parameters: &[(String, String)],
) -> pythia::Result<()> {
    if !parameters.is_empty() && !matches!(name, Some("slammer" | "crash")) {
        eprintln!(
            "note: only the slammer and crash experiments apply -p settings; they are ignored"
        );
    }
    match name {
        None => {
            let started = std::time::Instant::now();
            commit_experiment(true, &dir.join("lab-commit"))?;
            println!();
            crate::oltp::run(true, &dir.join("lab-oltp"))?;
            println!();
            crate::sqlite_bench::run(true, &dir.join("lab-sqlite"))?;
            println!();
            crate::parse_cost::run(true, &dir.join("lab-parse"))?;
            println!();
            crate::slammer::run(true, &dir.join("lab-slammer"))?;
            println!();
            crate::hotcursor::run(true, &dir.join("lab-hotcursor"))?;
            println!();
            crate::stuffer::run_stuffer(true, &dir.join("lab-stuffer"))?;
            println!();
            crate::stuffer::run_midpoint(true, &dir.join("lab-midpoint"))?;
            println!();
            crate::scan::run(true, &dir.join("lab-scan"))?;
            println!();
            crate::hitpath::run(true, &dir.join("lab-hitpath"))?;
            println!();
            crate::advice::run(true, &dir.join("lab-advice"))?;
            println!();
            crate::crash::run(true, &dir.join("lab-crash"), &[])?;
            println!(
                "\nall experiments (quick scale) in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Some("commit") => commit_experiment(quick, &dir.join("lab-commit")),
        Some("oltp") => crate::oltp::run(quick, &dir.join("lab-oltp")),
        Some("sqlite") => crate::sqlite_bench::run(quick, &dir.join("lab-sqlite")),
        Some("parse") => crate::parse_cost::run(quick, &dir.join("lab-parse")),
        Some("slammer") => crate::slammer::run_with(quick, &dir.join("lab-slammer"), parameters),
        Some("hotcursor") => crate::hotcursor::run(quick, &dir.join("lab-hotcursor")),
        Some("stuffer") => crate::stuffer::run_stuffer(quick, &dir.join("lab-stuffer")),
        Some("midpoint") => crate::stuffer::run_midpoint(quick, &dir.join("lab-midpoint")),
        Some("scan") => crate::scan::run(quick, &dir.join("lab-scan")),
        Some("hitpath") => crate::hitpath::run(quick, &dir.join("lab-hitpath")),
        Some("advice") => crate::advice::run(quick, &dir.join("lab-advice")),
        Some("crash") => crate::crash::run(quick, &dir.join("lab-crash"), parameters),
        Some(other) => Err(pythia::Error::new(
            900,
            format!(
                "unknown experiment '{other}'; experiments: commit, oltp, sqlite, parse, slammer, hotcursor, stuffer, midpoint, scan, hitpath, advice, crash"
            ),
        )),
    }
}

/// Seed 002's question in miniature: what does a commit cost, and how does group commit
/// share one log write among sessions? Each session inserts a 100-byte row and commits
/// (WRITE WAIT) in a loop.
fn commit_experiment(quick: bool, dir: &std::path::Path) -> pythia::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let config = InstanceConfig {
        cache_bytes: 32 << 20,
        log_file_size: 32 << 20,
        undo_bytes: 64 << 20,
        ..Default::default()
    };
    let instance = Instance::open_directory(dir, config)?;
    let table = {
        let mut mtr = Mtr::new(instance.cache());
        let header = segment::create(
            &mut mtr,
            instance.space(),
            1000,
            SegmentKind::Heap,
            BufferPool::Default,
        )?;
        mtr.commit(instance.log(), instance.transactions().current_scn(), 0)?;
        header
    };
    let commits_per_session = if quick { 300 } else { 3000 };
    let mut results = Table::new();
    results.set_header(vec![
        "sessions",
        "commits",
        "elapsed s",
        "commits/s",
        "redo writes",
        "commits per write",
        "avg log file sync us",
        "avg log file parallel write us",
    ]);
    println!("commit experiment: each session inserts a row and commits WRITE WAIT, {commits_per_session} times");
    for sessions in [1usize, 4, 16] {
        let writes_before = instrumentation::system_statistic(Statistic::RedoWrites);
        let sync_before = instrumentation::system_event(WaitEvent::LogFileSync);
        let write_before = instrumentation::system_event(WaitEvent::LogFileParallelWrite);
        let started = Instant::now();
        let hint = Arc::new(AtomicU64::new(0));
        std::thread::scope(|scope| -> pythia::Result<()> {
            let mut workers = Vec::new();
            for _ in 0..sessions {
                let instance = &instance;
                let hint = hint.clone();
                workers.push(scope.spawn(move || -> pythia::Result<()> {
                    let session =
                        SessionInstrumentation::new(SessionType::User, "LAB", "pythia lab")?;
                    let _entered = instrumentation::enter(&session);
                    let transactions = instance.transactions();
                    for number in 0..commits_per_session {
                        let mut transaction = transactions.begin()?;
                        let row = format!("{number:0100}");
                        transactions.insert_row(
                            &mut transaction,
                            table,
                            1000,
                            BufferPool::Default,
                            &hint,
                            row.as_bytes(),
                        )?;
                        transactions.commit(transaction, true)?;
                    }
                    Ok(())
                }));
            }
            for worker in workers {
                worker.join().expect("lab session panicked")?;
            }
            Ok(())
        })?;
        let elapsed = started.elapsed().as_secs_f64();
        let commits = (sessions * commits_per_session) as u64;
        let writes = instrumentation::system_statistic(Statistic::RedoWrites) - writes_before;
        let sync = instrumentation::system_event(WaitEvent::LogFileSync);
        let write = instrumentation::system_event(WaitEvent::LogFileParallelWrite);
        let average =
            |now: u64, before: u64, count: u64| (now - before).checked_div(count).unwrap_or(0);
        results.add_row(vec![
            sessions.to_string(),
            commits.to_string(),
            format!("{elapsed:.2}"),
            format!("{:.0}", commits as f64 / elapsed),
            writes.to_string(),
            format!("{:.1}", commits as f64 / writes.max(1) as f64),
            average(
                sync.time_waited_micro,
                sync_before.time_waited_micro,
                sync.total_waits - sync_before.total_waits,
            )
            .to_string(),
            average(
                write.time_waited_micro,
                write_before.time_waited_micro,
                write.total_waits - write_before.total_waits,
            )
            .to_string(),
        ]);
    }
    println!("{results}");
    instance.shutdown()
}
