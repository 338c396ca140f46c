//! `pythia serve`: opens the instance and serves it over PostgreSQL's wire protocol (and,
//! with `--metrics ADDR`, its Prometheus metrics over HTTP) until SIGINT or SIGTERM, then
//! stops both and shuts the instance down cleanly.
//!
//! Clients log on with SCRAM-SHA-256 against the database's users, or, with `--trust` (on a
//! loopback address only), without a password. A database created here gets SYSTEM with
//! the password `--password` or `PYTHIA_PASSWORD` gives, or none: then SYSTEM logs on only
//! in trust mode or through `pythia shell`, where `ALTER USER SYSTEM IDENTIFIED BY ...`
//! gives it one.

use std::net::SocketAddr;
use std::path::Path;

/// How `pythia serve` was asked to run.
pub struct ServeOptions {
    pub listen: SocketAddr,
    pub trust: bool,
    /// SYSTEM's password for a database created now (`--password`, else
    /// `PYTHIA_PASSWORD`).
    pub password: Option<String>,
    /// Where to serve Prometheus metrics, if anywhere.
    pub metrics: Option<SocketAddr>,
    /// TLS for the clients that ask for it.
    pub tls: Option<pythia_server::TlsFiles>,
}

/// Runs the server; returns the process exit status.
pub fn run(dir: &Path, options: &ServeOptions, parameters: &[(String, String)]) -> i32 {
    let overrides: Vec<(&str, &str)> = parameters
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let password = options
        .password
        .clone()
        .or_else(|| std::env::var(pythia::instance::SYSTEM_PASSWORD_VARIABLE).ok());
    let instance = match pythia::Instance::open_with_password(dir, &overrides, password.as_deref())
    {
        Ok(instance) => instance,
        Err(error) => {
            eprintln!("{error}");
            return 1;
        }
    };
    if password.is_some() && !instance.open_report().created {
        eprintln!(
            "pythia serve: the database exists: its users keep their passwords (the one given \
             is for a new database's SYSTEM; ALTER USER changes a password)"
        );
    }
    let system_without_password = instance
        .account(pythia::catalog::users::SYSTEM_USER)
        .is_some_and(|account| account.verifier.is_none());
    if system_without_password && !options.trust {
        eprintln!(
            "pythia serve: SYSTEM has no password, so no client can log on as SYSTEM: give it \
             one with `ALTER USER SYSTEM IDENTIFIED BY ...` in `pythia shell`, or serve with \
             --trust on a loopback address"
        );
    }
    let server_options = pythia_server::ServerOptions {
        trust: options.trust,
        tls: options.tls.clone(),
    };
    let server =
        match pythia_server::Server::start(instance.clone(), options.listen, server_options) {
            Ok(server) => server,
            Err(error) => {
                eprintln!("pythia serve: {error}");
                let _ = instance.shutdown();
                return 1;
            }
        };
    println!(
        "pythia serve: {} on {} (PostgreSQL protocol, server_version {}, {}{}); Ctrl-C stops",
        dir.display(),
        server.local_addr(),
        pythia_server::SERVER_VERSION,
        if options.trust {
            "trust: no password"
        } else {
            "SCRAM-SHA-256 passwords"
        },
        if options.tls.is_some() {
            ", TLS for clients that ask"
        } else {
            ""
        }
    );
    let metrics = match options
        .metrics
        .map(|address| pythia_server::MetricsEndpoint::start(instance.clone(), address))
        .transpose()
    {
        Ok(metrics) => metrics,
        Err(error) => {
            eprintln!("pythia serve: --metrics: {error}");
            server.stop();
            let _ = instance.shutdown();
            return 1;
        }
    };
    if let Some(metrics) = &metrics {
        println!(
            "pythia serve: Prometheus metrics on http://{}/metrics",
            metrics.local_addr()
        );
    }
    if let Err(error) = pythia_server::wait_for_interrupt() {
        eprintln!("pythia serve: waiting for a signal: {error}");
    }
    println!("pythia serve: stopping");
    if let Some(metrics) = metrics {
        metrics.stop();
    }
    let running = server.stop();
    if running > 0 {
        eprintln!("pythia serve: {running} connection threads still running after the wait");
    }
    match instance.shutdown() {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("{error}");
            1
        }
    }
}
