//! What the server's tests share: an instance in a fresh directory with a server in front
//! of it on a free loopback port, and tokio-postgres connections to it.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use pythia::Instance;
use pythia_server::Server;
use tokio_postgres::{Client, NoTls};

pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pythia-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub fn start(name: &str, parameters: &[(&str, &str)]) -> (Arc<Instance>, Server) {
    let mut all = vec![("db_cache_size", "8M"), ("undo_tablespace_size", "16M")];
    all.extend_from_slice(parameters);
    let instance = Instance::open(temp_dir(name), &all).unwrap();
    let server = Server::start(instance.clone(), "127.0.0.1:0".parse().unwrap()).unwrap();
    (instance, server)
}

pub async fn connect(address: SocketAddr) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(
        &format!(
            "host={} port={} user=system dbname=pythia connect_timeout=10",
            address.ip(),
            address.port()
        ),
        NoTls,
    )
    .await?;
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
