//! `pythia lab`: named, repeatable experiments on an embedded database.
//!
//! `commit`, `oltp`, `sqlite`, `parse`, `slammer`, `hotcursor`, `stuffer`, `midpoint`
//! `scan`, `hitpath`, `advice`, `crash` and `pgbench` (a file each; `midpoint` shares
//! `stuffer.rs`, `advice` builds on it); with no name, all of them at quick scale but
//! `pgbench`, which needs PostgreSQL 15 installed (`scripts/install_pg_clients.sh`). Each
//! builds its own instances; `-p name=value` settings reach only `slammer` (the SQLSlammer
//! parameters), `crash` (seed, kills), `commit` (sessions, seconds), `sqlite`
//! (filesystemio_options) and `pgbench` (scale, seconds); the others say they ignore them.

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
            crate::commit::run(true, &dir.join("lab-commit"), &[])?;
            println!();
            crate::oltp::run(true, &dir.join("lab-oltp"))?;
            println!();
            crate::sqlite_bench::run(true, &dir.join("lab-sqlite"), &[])?;
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
        Some("commit") => crate::commit::run(quick, &dir.join("lab-commit"), parameters),
        Some("oltp") => crate::oltp::run(quick, &dir.join("lab-oltp")),
        Some("sqlite") => crate::sqlite_bench::run(quick, &dir.join("lab-sqlite"), parameters),
        Some("parse") => crate::parse_cost::run(quick, &dir.join("lab-parse")),
        Some("slammer") => crate::slammer::run_with(quick, &dir.join("lab-slammer"), parameters),
        Some("hotcursor") => crate::hotcursor::run(quick, &dir.join("lab-hotcursor")),
        Some("stuffer") => crate::stuffer::run_stuffer(quick, &dir.join("lab-stuffer")),
        Some("midpoint") => crate::stuffer::run_midpoint(quick, &dir.join("lab-midpoint")),
        Some("scan") => crate::scan::run(quick, &dir.join("lab-scan")),
        Some("hitpath") => crate::hitpath::run(quick, &dir.join("lab-hitpath")),
        Some("advice") => crate::advice::run(quick, &dir.join("lab-advice")),
        Some("crash") => crate::crash::run(quick, &dir.join("lab-crash"), parameters),
        Some("pgbench") => crate::pgbench::run(quick, &dir.join("lab-pgbench"), parameters),
        Some(other) => Err(pythia::Error::new(
            900,
            format!(
                "unknown experiment '{other}'; experiments: commit, oltp, sqlite, parse, slammer, hotcursor, stuffer, midpoint, scan, hitpath, advice, crash, pgbench"
            ),
        )),
    }
}
