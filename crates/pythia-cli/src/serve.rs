//! `pythia serve`: opens the instance and serves it over PostgreSQL's wire protocol (and,
//! with `--metrics ADDR`, its Prometheus metrics over HTTP) until SIGINT or SIGTERM, then
//! stops both and shuts the instance down cleanly.

use std::net::SocketAddr;
use std::path::Path;

/// Runs the server; returns the process exit status.
pub fn run(
    dir: &Path,
    listen: SocketAddr,
    metrics: Option<SocketAddr>,
    parameters: &[(String, String)],
) -> i32 {
    let overrides: Vec<(&str, &str)> = parameters
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let instance = match pythia::Instance::open(dir, &overrides) {
        Ok(instance) => instance,
        Err(error) => {
            eprintln!("{error}");
            return 1;
        }
    };
    let server = match pythia_server::Server::start(instance.clone(), listen) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("pythia serve: {error}");
            let _ = instance.shutdown();
            return 1;
        }
    };
    println!(
        "pythia serve: {} on {} (PostgreSQL protocol, server_version {}); Ctrl-C stops",
        dir.display(),
        server.local_addr(),
        pythia_server::SERVER_VERSION
    );
    let metrics = match metrics
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
