//! `pythia serve`: opens the instance and serves it over PostgreSQL's wire protocol until
//! SIGINT or SIGTERM, then stops the server and shuts the instance down cleanly.

use std::net::SocketAddr;
use std::path::Path;

/// Runs the server; returns the process exit status.
pub fn run(dir: &Path, listen: SocketAddr, parameters: &[(String, String)]) -> i32 {
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
    if let Err(error) = pythia_server::wait_for_interrupt() {
        eprintln!("pythia serve: waiting for a signal: {error}");
    }
    println!("pythia serve: stopping");
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
