//! `pythia lab`: named, repeatable experiments on an embedded database.
//!
//! `commit`, `oltp`, `sqlite`, `parse`, `slammer`, `hotcursor`, `stuffer`, `midpoint`
//! `scan`, `hitpath`, `advice`, `crash` and `pgbench` (a file each; `midpoint` shares
//! `stuffer.rs`, `advice` builds on it); with no name, all of them at quick scale but
//! `pgbench`, which needs PostgreSQL 15 installed (`scripts/install_pg_clients.sh`). Each
//! builds its own instances; `-p name=value` settings reach only `slammer` (the SQLSlammer
//! parameters), `crash` (seed, kills), `commit` (sessions, seconds), `sqlite`
//! (filesystemio_options) and `pgbench` (scale, seconds); the others say they ignore them.

pub mod buffer_pools;
pub mod common;
pub mod engines;
pub mod library_cache;
pub mod redo;

pub fn run_lab(
    name: Option<&str>,
    quick: bool,
    dir: &std::path::Path,
    parameters: &[(String, String)],
) -> pythia::Result<()> {
    if !parameters.is_empty()
        && !matches!(
            name,
            Some("slammer" | "crash" | "commit" | "sqlite" | "pgbench")
        )
    {
        eprintln!(
            "note: only the slammer, crash, commit, sqlite and pgbench experiments apply -p \
             settings; they are ignored"
        );
    }
    match name {
        None => {
            let started = std::time::Instant::now();
            redo::commit::run(true, &dir.join("lab-commit"), &[])?;
            println!();
            engines::oltp::run(true, &dir.join("lab-oltp"))?;
            println!();
            engines::sqlite::run(true, &dir.join("lab-sqlite"), &[])?;
            println!();
            library_cache::parse::run(true, &dir.join("lab-parse"))?;
            println!();
            library_cache::slammer::run(true, &dir.join("lab-slammer"))?;
            println!();
            library_cache::hotcursor::run(true, &dir.join("lab-hotcursor"))?;
            println!();
            buffer_pools::stuffer::run(true, &dir.join("lab-stuffer"))?;
            println!();
            buffer_pools::midpoint::run(true, &dir.join("lab-midpoint"))?;
            println!();
            buffer_pools::scan::run(true, &dir.join("lab-scan"))?;
            println!();
            buffer_pools::hitpath::run(true, &dir.join("lab-hitpath"))?;
            println!();
            buffer_pools::advice::run(true, &dir.join("lab-advice"))?;
            println!();
            redo::crash::run(true, &dir.join("lab-crash"), &[])?;
            println!(
                "\nall experiments (quick scale) in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Some("commit") => redo::commit::run(quick, &dir.join("lab-commit"), parameters),
        Some("oltp") => engines::oltp::run(quick, &dir.join("lab-oltp")),
        Some("sqlite") => engines::sqlite::run(quick, &dir.join("lab-sqlite"), parameters),
        Some("parse") => library_cache::parse::run(quick, &dir.join("lab-parse")),
        Some("slammer") => library_cache::slammer::run_with(quick, &dir.join("lab-slammer"), parameters),
        Some("hotcursor") => library_cache::hotcursor::run(quick, &dir.join("lab-hotcursor")),
        Some("stuffer") => buffer_pools::stuffer::run(quick, &dir.join("lab-stuffer")),
        Some("midpoint") => buffer_pools::midpoint::run(quick, &dir.join("lab-midpoint")),
        Some("scan") => buffer_pools::scan::run(quick, &dir.join("lab-scan")),
        Some("hitpath") => buffer_pools::hitpath::run(quick, &dir.join("lab-hitpath")),
        Some("advice") => buffer_pools::advice::run(quick, &dir.join("lab-advice")),
        Some("crash") => redo::crash::run(quick, &dir.join("lab-crash"), parameters),
        Some("pgbench") => engines::pgbench::run(quick, &dir.join("lab-pgbench"), parameters),
        Some(other) => Err(pythia::Error::new(
            900,
            format!(
                "unknown experiment '{other}'; experiments: commit, oltp, sqlite, parse, slammer, hotcursor, stuffer, midpoint, scan, hitpath, advice, crash, pgbench"
            ),
        )),
    }
}
