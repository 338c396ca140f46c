//! What the server's tests share: an instance in a fresh directory with a server in front
//! of it on a free loopback port, and tokio-postgres connections to it.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use pythia::Instance;
use pythia_server::{Server, ServerOptions};
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pythia-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// An instance in a fresh directory, served in trust mode (no password) on a free
/// loopback port.
pub fn start(name: &str, parameters: &[(&str, &str)]) -> (Arc<Instance>, Server) {
    start_with(
        name,
        parameters,
        None,
        ServerOptions {
            trust: true,
            ..ServerOptions::default()
        },
    )
}

/// An instance created with SYSTEM's password `system_password`, served with `options`.
pub fn start_with(
    name: &str,
    parameters: &[(&str, &str)],
    system_password: Option<&str>,
    options: ServerOptions,
) -> (Arc<Instance>, Server) {
    let mut all = vec![("db_cache_size", "8M"), ("undo_tablespace_size", "16M")];
    all.extend_from_slice(parameters);
    let instance = Instance::open_with_password(temp_dir(name), &all, system_password).unwrap();
    let server = Server::start(instance.clone(), "127.0.0.1:0".parse().unwrap(), options).unwrap();
    (instance, server)
}

pub async fn connect(address: SocketAddr) -> Result<Client, tokio_postgres::Error> {
    connect_as(address, "system", None).await
}

/// A connection as `user`, with `password` when there is one (SCRAM-SHA-256).
pub async fn connect_as(
    address: SocketAddr,
    user: &str,
    password: Option<&str>,
) -> Result<Client, tokio_postgres::Error> {
    let mut config = tokio_postgres::Config::new();
    config
        .host(address.ip().to_string())
        .port(address.port())
        .user(user)
        .dbname("pythia")
        .connect_timeout(std::time::Duration::from_secs(10));
    if let Some(password) = password {
        config.password(password);
    }
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(connection);
    Ok(client)
}

/// `connect`, waiting out ORA-00020 while the sessions of connections just closed end
/// (their threads see the close a moment later): at most 2 s.
pub async fn connect_when_free(address: SocketAddr) -> Client {
    for _ in 0..100 {
        match connect(address).await {
            Ok(client) => return client,
            Err(error)
                if error
                    .as_db_error()
                    .is_some_and(|db| db.code().code() == "53300") =>
            {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await
            }
            Err(error) => panic!("{error}"),
        }
    }
    panic!("no session came free in 2 s");
}

/// The first column of each row a simple query returns (a NULL left out).
pub async fn first_column(client: &Client, sql: &str) -> Vec<String> {
    client
        .simple_query(sql)
        .await
        .unwrap_or_else(|error| panic!("{sql}: {error}"))
        .into_iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .collect()
}

/// The first column of the first row a simple query returns.
pub async fn first_value(client: &Client, sql: &str) -> String {
    first_column(client, sql)
        .await
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no row from {sql}"))
}
