//! `pythia lab plsql`: PL/SQL on an embedded Pythia against PL/pgSQL on PostgreSQL 15, the
//! same work in one run, as issue 26 asks: an arithmetic loop on NUMBER and on PLS_INTEGER
//! (PostgreSQL's `numeric` and `bigint`), static `SELECT ... INTO` and `UPDATE` by primary
//! key in a loop, a stored function called from SQL on every row of a table, and a
//! top-level call's soft parse.
//!
//! ```text
//!   Pythia:      an instance in DIR/pythia; each workload one anonymous block, timed from
//!                the call to its return (Session::execute)
//!   PostgreSQL:  initdb in DIR/postgresql (lab pgbench's server); each workload one DO
//!                block through psql, timed by psql's \timing (the server's own time)
//!   both:        the engines take turns, round by round, the first alternating; the
//!                median of the rounds counts
//! ```
//!
//! The targets (time on PostgreSQL over time on Pythia): the NUMBER loop at least 2x, the
//! PLS_INTEGER loop at least 1x, SELECT INTO at least 1.5x, UPDATE at least 2x; a function
//! in SQL at most 1 us a call over the bare query; a soft parse of `BEGIN p(:1); END;` no
//! dearer than a one-row query's (both timed as parse calls, `Session::prepare`, in turns;
//! within 5%, the spread of repeated runs on this machine). `--quick` runs
//! a tenth of the work, one round; `-p rounds=R` (3) sets the rounds.

use std::path::Path;
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::{Instance, Session};

use super::pgbench::{run_to_end, setting, PostgreSql};
use crate::lab::common::{lab_error, median};

/// The `-p` settings [`run`] takes.
pub const SETTINGS: &[&str] = &["rounds"];

/// The rows of the keyed table SELECT INTO and UPDATE read.
const KEYED_ROWS: u64 = 1000;

/// One timed workload: its blocks on each engine (the loop count is `{n}`), and its target.
struct Workload {
    name: &'static str,
    pythia: &'static str,
    postgresql: &'static str,
    /// The iterations at full scale.
    iterations: u64,
    target: f64,
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "NUMBER loop (numeric)",
        pythia: "declare n number := 0; begin for i in 1..{n} loop n := n + i; end loop; end;",
        postgresql: "DO $$ DECLARE n numeric := 0; BEGIN FOR i IN 1..{n} LOOP n := n + i; END LOOP; END $$;",
        iterations: 1_000_000,
        target: 2.0,
    },
    Workload {
        name: "PLS_INTEGER loop (bigint)",
        pythia: "declare n pls_integer := 0; begin for i in 1..{n} loop n := n + 1; end loop; end;",
        postgresql: "DO $$ DECLARE n bigint := 0; BEGIN FOR i IN 1..{n} LOOP n := n + 1; END LOOP; END $$;",
        iterations: 1_000_000,
        target: 1.0,
    },
    Workload {
        name: "SELECT INTO by primary key",
        pythia: "declare x number; begin for i in 1..{n} loop select v into x from keyed where id = mod(i, 1000) + 1; end loop; end;",
        postgresql: "DO $$ DECLARE x numeric; BEGIN FOR i IN 1..{n} LOOP SELECT v INTO x FROM keyed WHERE id = mod(i, 1000) + 1; END LOOP; END $$;",
        iterations: 100_000,
        target: 1.5,
    },
    Workload {
        name: "UPDATE by primary key",
        pythia: "begin for i in 1..{n} loop update keyed set v = v + 1 where id = mod(i, 1000) + 1; end loop; commit; end;",
        postgresql: "DO $$ BEGIN FOR i IN 1..{n} LOOP UPDATE keyed SET v = v + 1 WHERE id = mod(i, 1000) + 1; END LOOP; END $$;",
        iterations: 100_000,
        target: 2.0,
    },
];

/// psql against the lab's PostgreSQL: runs `sql` with \timing and returns the milliseconds
/// of its last statement.
fn psql_millis(server: &PostgreSql, sql: &str) -> pythia::Result<f64> {
    let output = run_to_end(
        server
            .psql()?
            .args([
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                "\\timing on",
                "-c",
            ])
            .arg(sql),
        Duration::from_secs(600),
    )?;
    output
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("Time: "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .ok_or_else(|| lab_error(format!("no time in psql's output:\n{output}")))
}

fn pythia_millis(session: &mut Session, sql: &str) -> pythia::Result<f64> {
    let started = Instant::now();
    session.execute(sql)?;
    Ok(started.elapsed().as_secs_f64() * 1000.0)
}

fn setup_pythia(session: &mut Session, rows: u64) -> pythia::Result<()> {
    for statement in [
        "create table keyed (id number primary key, v number)".to_string(),
        format!("begin for i in 1..{KEYED_ROWS} loop insert into keyed values (i, 0); end loop; commit; end;"),
        "create table big (id number)".to_string(),
        format!("begin for i in 1..{rows} loop insert into big values (i); end loop; commit; end;"),
        "create function twice(x number) return number is begin return 2 * x; end;".to_string(),
        "create procedure nothing(n number) is begin null; end;".to_string(),
    ] {
        session.execute(&statement)?;
    }
    Ok(())
}

fn setup_postgresql(server: &PostgreSql, rows: u64) -> pythia::Result<()> {
    psql_millis(
        server,
        &format!(
            "CREATE TABLE keyed (id integer PRIMARY KEY, v numeric); \
             INSERT INTO keyed SELECT g, 0 FROM generate_series(1, {KEYED_ROWS}) g; \
             CREATE TABLE big AS SELECT g::numeric AS id FROM generate_series(1, {rows}) g; \
             CREATE FUNCTION twice(x numeric) RETURNS numeric LANGUAGE plpgsql AS \
             $$ BEGIN RETURN 2 * x; END $$; ANALYZE;"
        ),
    )?;
    Ok(())
}

/// Microseconds a parse call of `sql` takes (`Session::prepare`, the extended protocol's
/// Parse: a soft parse once the text is in the session cursor cache), over `calls` calls.
fn parse_micros_per_call(session: &mut Session, sql: &str, calls: u64) -> pythia::Result<f64> {
    session.prepare(sql)?;
    let started = Instant::now();
    for _ in 0..calls {
        session.prepare(sql)?;
    }
    Ok(started.elapsed().as_secs_f64() * 1e6 / calls as f64)
}

pub fn run(quick: bool, dir: &Path, parameters: &[(String, String)]) -> pythia::Result<()> {
    if let Some((name, _)) = parameters
        .iter()
        .find(|(name, _)| !SETTINGS.contains(&name.as_str()))
    {
        return Err(lab_error(format!("-p {name}: lab plsql takes rounds")));
    }
    let rounds = setting(parameters, "rounds", if quick { 1 } else { 3 })?.max(1);
    let scale = if quick { 10 } else { 1 };
    let rows = 100_000 / scale;
    println!(
        "PL/SQL on Pythia against PL/pgSQL on PostgreSQL 15, {rounds} round(s), {} scale",
        if quick { "a tenth" } else { "full" }
    );
    let _ = std::fs::remove_dir_all(dir);
    let instance = Instance::open(dir.join("pythia"), &[("db_cache_size", "256M")])?;
    let mut session = instance.connect()?;
    setup_pythia(&mut session, rows)?;
    let postgresql = PostgreSql::start(dir)?;
    setup_postgresql(&postgresql, rows)?;

    let mut table = Table::new();
    table.set_header(vec![
        "workload",
        "iterations",
        "Pythia ms (median)",
        "PostgreSQL ms (median)",
        "ratio (PostgreSQL / Pythia)",
        "target",
        "met",
    ]);
    for workload in WORKLOADS {
        let n = workload.iterations / scale;
        let pythia_sql = workload.pythia.replace("{n}", &n.to_string());
        let postgresql_sql = workload.postgresql.replace("{n}", &n.to_string());
        let mut runs: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for round in 0..rounds {
            for turn in 0..2 {
                let which = (turn + round as usize) % 2;
                let millis = if which == 0 {
                    pythia_millis(&mut session, &pythia_sql)?
                } else {
                    psql_millis(&postgresql, &postgresql_sql)?
                };
                runs[which].push(millis);
            }
        }
        let measured = runs.each_ref().map(|millis| median(millis));
        let ratio = measured[1] / measured[0].max(1e-9);
        table.add_row(vec![
            workload.name.to_string(),
            n.to_string(),
            format!("{:.1}", measured[0]),
            format!("{:.1}", measured[1]),
            format!("{ratio:.2}x"),
            format!(">= {:.1}x", workload.target),
            if ratio >= workload.target {
                "yes"
            } else {
                "no"
            }
            .to_string(),
        ]);
        println!(
            "  {}: Pythia {:.1} ms, PostgreSQL {:.1} ms",
            workload.name, measured[0], measured[1]
        );
    }

    // A function in SQL: the query with the call against the bare query, per row.
    let mut with_call = Vec::new();
    let mut bare = Vec::new();
    let mut postgresql_per_row = Vec::new();
    for _ in 0..rounds {
        with_call.push(pythia_millis(
            &mut session,
            "select sum(twice(id)) from big",
        )?);
        bare.push(pythia_millis(&mut session, "select sum(2 * id) from big")?);
        let called = psql_millis(&postgresql, "SELECT sum(twice(id)) FROM big")?;
        let plain = psql_millis(&postgresql, "SELECT sum(2 * id) FROM big")?;
        postgresql_per_row.push((called - plain) * 1000.0 / rows as f64);
    }
    let per_call = (median(&with_call) - median(&bare)) * 1000.0 / rows as f64;
    table.add_row(vec![
        "function in SQL, per call over the bare query".to_string(),
        rows.to_string(),
        format!("{per_call:.2} us"),
        format!("{:.2} us", median(&postgresql_per_row)),
        "-".to_string(),
        "<= 1 us".to_string(),
        if per_call <= 1.0 { "yes" } else { "no" }.to_string(),
    ]);

    // A top-level call's soft parse against a one-row query's, in turns.
    let calls = 20_000 / scale;
    let mut blocks = Vec::new();
    let mut queries = Vec::new();
    for _ in 0..rounds.max(3) {
        blocks.push(parse_micros_per_call(
            &mut session,
            "begin nothing(:1); end;",
            calls,
        )?);
        queries.push(parse_micros_per_call(
            &mut session,
            "select :1 from dual",
            calls,
        )?);
    }
    let (block, query) = (median(&blocks), median(&queries));
    table.add_row(vec![
        "soft parse: BEGIN p(:1); END; against SELECT :1 FROM DUAL".to_string(),
        calls.to_string(),
        format!("{block:.2} us"),
        format!("{query:.2} us (Pythia's query)"),
        format!("{:.2}x", query / block.max(1e-9)),
        "block <= query".to_string(),
        // Within 5%: repeated runs of either spread by as much here.
        if block <= query * 1.05 { "yes" } else { "no" }.to_string(),
    ]);
    println!("{table}");
    drop(postgresql);
    drop(session);
    instance.shutdown()?;
    Ok(())
}
