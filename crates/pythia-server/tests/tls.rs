//! TLS (the cargo feature `tls`): a client that asks for it (psql with `sslmode=require`)
//! gets an encrypted connection with the server's certificate; one that does not
//! (`sslmode=disable`) goes on in clear; a start with a certificate file that holds none
//! fails with a message. The certificate is self-signed, made for the test by `openssl`
//! (Debian's, on every machine of this kind).
#![cfg(feature = "tls")]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use pythia_server::programs::{run_to_end, Ended};
use pythia_server::{Server, ServerOptions, TlsFiles};

mod common;
use common::{start_with, temp_dir};

/// A self-signed certificate and its key for 127.0.0.1, in `directory`.
fn certificate(directory: &Path) -> TlsFiles {
    std::fs::create_dir_all(directory).unwrap();
    let files = TlsFiles {
        certificate_chain: directory.join("server.crt"),
        private_key: directory.join("server.key"),
    };
    let mut openssl = Command::new("openssl");
    openssl
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=127.0.0.1", "-keyout"])
        .arg(&files.private_key)
        .arg("-out")
        .arg(&files.certificate_chain);
    let status = exited(&mut openssl);
    assert!(status.status.success(), "{status:?}");
    files
}

/// Runs `command` to its end; the test fails if it cannot start or runs past a minute.
fn exited(command: &mut Command) -> std::process::Output {
    match run_to_end(command, Duration::from_secs(60)) {
        Ok(Ended::Exited(output)) => output,
        other => panic!("{command:?}: {other:?}"),
    }
}

/// `psql` with `sslmode` against `address`: what `\conninfo` and a query print.
fn psql(address: std::net::SocketAddr, sslmode: &str) -> String {
    let mut psql = Command::new("psql");
    psql.arg(format!(
        "host={} port={} user=system dbname=pythia sslmode={sslmode} connect_timeout=10",
        address.ip(),
        address.port()
    ))
    .args([
        "-X",
        "-c",
        "\\conninfo",
        "-c",
        "select 41 + 1 answer from dual",
    ]);
    let output = exited(&mut psql);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn clients_that_ask_get_tls_and_the_others_go_on_in_clear() {
    let files = certificate(&temp_dir("tls-certificate"));
    let (_instance, server) = start_with(
        "tls",
        &[],
        None,
        ServerOptions {
            trust: true,
            tls: Some(files),
        },
    );
    let encrypted = psql(server.local_addr(), "require");
    assert!(
        encrypted.contains("SSL connection (protocol: TLSv1.3"),
        "{encrypted}"
    );
    assert!(encrypted.contains("42"), "{encrypted}");
    let clear = psql(server.local_addr(), "disable");
    assert!(!clear.contains("SSL connection"), "{clear}");
    assert!(clear.contains("42"), "{clear}");
    assert_eq!(server.stop(), 0);
}

#[test]
fn a_certificate_file_without_a_certificate_fails_the_start() {
    let directory = temp_dir("tls-empty");
    std::fs::create_dir_all(&directory).unwrap();
    let empty = directory.join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let instance = pythia::Instance::open(
        directory.join("db"),
        &[("db_cache_size", "8M"), ("undo_tablespace_size", "16M")],
    )
    .unwrap();
    let error = Server::start(
        instance,
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            trust: true,
            tls: Some(TlsFiles {
                certificate_chain: empty.clone(),
                private_key: empty,
            }),
        },
    )
    .err()
    .expect("no certificate, no start");
    assert!(error.to_string().contains("--tls-cert"), "{error}");
}
