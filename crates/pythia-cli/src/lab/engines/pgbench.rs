//! `pythia lab pgbench`: the same pgbench commands against `pythia serve` and against
//! PostgreSQL 15 in one run, as issue 7 asks: scale 10, each point 15 seconds, the two
//! servers taking turns point by point, printing tps and the ratio.
//!
//! ```text
//!   Pythia: an instance in DIR/pythia, db_cache_size = SHARED_BUFFERS, cursor_sharing =
//!           FORCE, the server in this process on a free loopback port
//!   PostgreSQL 15: initdb in DIR/postgresql (as the user `postgres` when run as root,
//!           which PostgreSQL refuses to be), shared_buffers = SHARED_BUFFERS, fsync on,
//!           synchronous_commit on, listening on a free loopback port, stopped at the end
//!   both:   pgbench -i -s SCALE (COPY), then for each point  pgbench -n ARGS -c N -j J -T S
//! ```
//!
//! The points and the issue's targets: select-only (`-S`) with `-M simple` (our shared
//! cursors against PostgreSQL's re-planning: at least 1.5x) and `-M prepared` (at least 1x)
//! at 1 and 8 clients; tpcb-like with `-M prepared` at 1, 8 and 32 clients (at least 1x).
//! pgbench, initdb and postgres come from Debian's PostgreSQL 15
//! (`scripts/install_pg_clients.sh`). Each point runs `rounds` times on each server, the two
//! taking turns (the first of a round alternating), and the median counts: on this 2-vCPU
//! virtual machine one 15-second run of the same command moves by 20% and more from one
//! minute to the next. `-p scale=N`, `-p seconds=S`, `-p rounds=R` (3) change the scale, the
//! length of a run and the runs a point; `--quick` is scale 1, 3 seconds and one round.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use comfy_table::Table;
use pythia::Instance;
use pythia_server::programs::{self, Ended};
use pythia_server::{Server, ServerOptions};

use crate::lab::common::{lab_error, median};

/// The buffer cache of both servers: Pythia's db_cache_size, PostgreSQL's shared_buffers.
const SHARED_BUFFERS: &str = "256MB";

/// Debian's PostgreSQL 15 programs.
const POSTGRESQL_BIN: &str = "/usr/lib/postgresql/15/bin";

/// The longest one pgbench run may take beyond its own `-T` before the lab gives up on it.
const RUN_SLACK: Duration = Duration::from_secs(120);

/// One point: a name, pgbench's arguments, the clients, and the issue's target ratio.
struct Point {
    workload: &'static str,
    arguments: &'static [&'static str],
    clients: u32,
    target: f64,
}

const POINTS: &[Point] = &[
    Point {
        workload: "select-only, -M simple",
        arguments: &["-S", "-M", "simple"],
        clients: 1,
        target: 1.5,
    },
    Point {
        workload: "select-only, -M simple",
        arguments: &["-S", "-M", "simple"],
        clients: 8,
        target: 1.5,
    },
    Point {
        workload: "select-only, -M prepared",
        arguments: &["-S", "-M", "prepared"],
        clients: 1,
        target: 1.0,
    },
    Point {
        workload: "select-only, -M prepared",
        arguments: &["-S", "-M", "prepared"],
        clients: 8,
        target: 1.0,
    },
    Point {
        workload: "tpcb-like, -M prepared",
        arguments: &["-M", "prepared"],
        clients: 1,
        target: 1.0,
    },
    Point {
        workload: "tpcb-like, -M prepared",
        arguments: &["-M", "prepared"],
        clients: 8,
        target: 1.0,
    },
    Point {
        workload: "tpcb-like, -M prepared",
        arguments: &["-M", "prepared"],
        clients: 32,
        target: 1.0,
    },
];

/// Where pgbench connects: address, user, database.
struct Target {
    host: String,
    port: u16,
    user: &'static str,
    database: &'static str,
}

fn program(name: &str) -> pythia::Result<PathBuf> {
    let path = Path::new(POSTGRESQL_BIN).join(name);
    if path.exists() {
        Ok(path)
    } else {
        Err(lab_error(format!(
            "{} is not installed: run scripts/install_pg_clients.sh",
            path.display()
        )))
    }
}

/// Runs `command`, failing with its output unless it exits 0 within `limit`.
pub(super) fn run_to_end(command: &mut Command, limit: Duration) -> pythia::Result<String> {
    let shown = format!("{command:?}");
    let output = match programs::run_to_end(command, limit) {
        Ok(Ended::Exited(output)) => output,
        Ok(Ended::TimedOut(_)) => {
            return Err(lab_error(format!("{shown} ran longer than {limit:?}")))
        }
        Err(error) => return Err(lab_error(format!("{shown}: {error}"))),
    };
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        return Err(lab_error(format!(
            "{shown} failed ({}): {}{}",
            output.status,
            stdout,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(stdout)
}

fn pgbench(target: &Target, arguments: &[String], limit: Duration) -> pythia::Result<String> {
    run_to_end(
        Command::new(program("pgbench")?)
            .arg("-h")
            .arg(&target.host)
            .arg("-p")
            .arg(target.port.to_string())
            .arg("-U")
            .arg(target.user)
            .args(arguments)
            .arg(target.database)
            .env("PGCONNECT_TIMEOUT", "10"),
        limit,
    )
}

/// A median with the range of the runs it came from: "45883 (41020-47112)".
fn spread(median: f64, runs: &[f64]) -> String {
    if runs.len() < 2 {
        return format!("{median:.0}");
    }
    let low = runs.iter().copied().fold(f64::INFINITY, f64::min);
    let high = runs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{median:.0} ({low:.0}-{high:.0})")
}

/// tps from pgbench's report, and the failed transactions it counted.
fn tps_of(report: &str) -> pythia::Result<(f64, u64)> {
    let tps = report
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .ok_or_else(|| lab_error(format!("no tps in pgbench's report:\n{report}")))?;
    let failed = report
        .lines()
        .find_map(|line| line.strip_prefix("number of failed transactions: "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or(0);
    Ok((tps, failed))
}

fn free_port() -> pythia::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|error| lab_error(format!("no free port: {error}")))?;
    Ok(listener
        .local_addr()
        .map_err(|error| lab_error(error.to_string()))?
        .port())
}

/// A PostgreSQL 15 server of its own, stopped when dropped.
pub(super) struct PostgreSql {
    data: PathBuf,
    port: u16,
    /// Commands run as `postgres` when the lab runs as root.
    as_postgres: bool,
}

impl PostgreSql {
    fn command(&self, name: &str) -> pythia::Result<Command> {
        let program = program(name)?;
        Ok(if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        })
    }

    pub(super) fn start(dir: &Path) -> pythia::Result<PostgreSql> {
        let data = dir.join("postgresql");
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).map_err(|error| lab_error(error.to_string()))?;
        // Absolute: the server runs in its own directory and puts its socket in this one.
        let data = data
            .canonicalize()
            .map_err(|error| lab_error(error.to_string()))?;
        // PostgreSQL refuses to run as root.
        let as_postgres =
            run_to_end(Command::new("id").arg("-u"), Duration::from_secs(10))?.trim() == "0";
        if as_postgres {
            run_to_end(
                Command::new("chown").args(["-R", "postgres:"]).arg(&data),
                Duration::from_secs(30),
            )?;
        }
        let server = PostgreSql {
            data: data.clone(),
            port: free_port()?,
            as_postgres,
        };
        run_to_end(
            server.command("initdb")?.arg("-D").arg(&data).args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            ]),
            Duration::from_secs(120),
        )?;
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c shared_buffers={SHARED_BUFFERS} \
             -c max_connections=100 -c fsync=on -c synchronous_commit=on",
            server.port,
            data.display()
        );
        run_to_end(
            server
                .command("pg_ctl")?
                .arg("-D")
                .arg(&data)
                .args(["-w", "-l"])
                .arg(data.join("server.log"))
                .arg("-o")
                .arg(options)
                .arg("start"),
            Duration::from_secs(120),
        )?;
        Ok(server)
    }

    /// psql connected to the server's `postgres` database as `postgres`.
    pub(super) fn psql(&self) -> pythia::Result<Command> {
        let mut command = Command::new(program("psql")?);
        command
            .arg("-h")
            .arg("127.0.0.1")
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-U", "postgres", "-d", "postgres"])
            .env("PGCONNECT_TIMEOUT", "10");
        Ok(command)
    }

    fn target(&self) -> Target {
        Target {
            host: "127.0.0.1".to_string(),
            port: self.port,
            user: "postgres",
            database: "postgres",
        }
    }
}

impl Drop for PostgreSql {
    fn drop(&mut self) {
        if let Ok(mut command) = self.command("pg_ctl") {
            let _ = run_to_end(
                command
                    .arg("-D")
                    .arg(&self.data)
                    .args(["-m", "fast", "stop"]),
                Duration::from_secs(60),
            );
        }
    }
}

pub(super) fn setting(
    parameters: &[(String, String)],
    name: &str,
    default: u64,
) -> pythia::Result<u64> {
    match parameters.iter().find(|(key, _)| key == name) {
        Some((_, value)) => value
            .parse()
            .map_err(|_| lab_error(format!("-p {name}={value}: not a whole number"))),
        None => Ok(default),
    }
}

/// The `-p` settings [`run`] takes.
pub const SETTINGS: &[&str] = &["scale", "seconds", "rounds"];

pub fn run(quick: bool, dir: &Path, parameters: &[(String, String)]) -> pythia::Result<()> {
    if let Some((name, _)) = parameters
        .iter()
        .find(|(name, _)| !SETTINGS.contains(&name.as_str()))
    {
        return Err(lab_error(format!(
            "-p {name}: lab pgbench takes scale, seconds and rounds"
        )));
    }
    let scale = setting(parameters, "scale", if quick { 1 } else { 10 })?;
    let seconds = setting(parameters, "seconds", if quick { 3 } else { 15 })?;
    let rounds = setting(parameters, "rounds", if quick { 1 } else { 3 })?.max(1);
    println!(
        "pgbench against Pythia and PostgreSQL 15, scale {scale}, {rounds} x {seconds} s a \
         point each, cache {SHARED_BUFFERS} each"
    );
    program("pgbench")?;
    let _ = std::fs::remove_dir_all(dir);
    // CURSOR_SHARING=FORCE: pgbench's simple protocol sends its keys as literals, one new
    // text a query; FORCE shares one cursor among them, as a DBA would set it for such an
    // application (seed 000: the library cache and literal SQL). PostgreSQL plans each anew.
    let instance = Instance::open(
        dir.join("pythia"),
        &[
            ("db_cache_size", "256M"),
            ("processes", "100"),
            ("cursor_sharing", "FORCE"),
        ],
    )?;
    // Trust on the loopback for both servers: the comparison is of the work, not the logon.
    let server = Server::start(
        instance.clone(),
        "127.0.0.1:0".parse().expect("an address"),
        ServerOptions {
            trust: true,
            ..ServerOptions::default()
        },
    )
    .map_err(|error| lab_error(format!("pythia serve: {error}")))?;
    let pythia = Target {
        host: "127.0.0.1".to_string(),
        port: server.local_addr().port(),
        user: "system",
        database: "pythia",
    };
    let postgresql = PostgreSql::start(dir)?;
    let targets = [("Pythia", &pythia), ("PostgreSQL", &postgresql.target())];
    let init_limit = Duration::from_secs(600 + 120 * scale);
    for (name, target) in targets {
        let started = std::time::Instant::now();
        pgbench(
            target,
            &[
                "-i".to_string(),
                "-q".into(),
                "-s".into(),
                scale.to_string(),
            ],
            init_limit,
        )?;
        println!(
            "  {name}: pgbench -i -s {scale} in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    let mut table = Table::new();
    table.set_header(vec![
        "workload",
        "clients",
        "Pythia tps (median; range)",
        "PostgreSQL tps (median; range)",
        "ratio",
        "target",
        "met",
    ]);
    for point in POINTS {
        let mut arguments: Vec<String> = vec!["-n".into()];
        arguments.extend(point.arguments.iter().map(|argument| argument.to_string()));
        arguments.extend([
            "-c".into(),
            point.clients.to_string(),
            "-j".into(),
            point.clients.min(2).to_string(),
            "-T".into(),
            seconds.to_string(),
        ]);
        let limit = Duration::from_secs(seconds) + RUN_SLACK;
        // Each server's runs of this point, the two taking turns and the first of each
        // round alternating, so that neither always runs on the machine the other warmed.
        let mut runs: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for round in 0..rounds {
            for turn in 0..2 {
                let which = (turn + round as usize) % 2;
                let (name, target) = targets[which];
                let (tps, failed) = tps_of(&pgbench(target, &arguments, limit)?)?;
                if failed > 0 {
                    return Err(lab_error(format!(
                        "{name}: {failed} failed transactions in {} at {} clients",
                        point.workload, point.clients
                    )));
                }
                runs[which].push(tps);
            }
        }
        let measured = runs.each_ref().map(|tps| median(tps));
        let ratio = measured[0] / measured[1].max(1e-9);
        table.add_row(vec![
            point.workload.to_string(),
            point.clients.to_string(),
            spread(measured[0], &runs[0]),
            spread(measured[1], &runs[1]),
            format!("{ratio:.2}x"),
            format!(">= {:.1}x", point.target),
            if ratio >= point.target { "yes" } else { "no" }.to_string(),
        ]);
        println!(
            "  {} at {} clients: Pythia {} tps, PostgreSQL {} tps",
            point.workload,
            point.clients,
            spread(measured[0], &runs[0]),
            spread(measured[1], &runs[1])
        );
    }
    println!("{table}");
    drop(postgresql);
    server.stop();
    instance.shutdown()?;
    Ok(())
}
