//! Stopping a running statement through the server: a CancelRequest from another
//! connection (psql's Ctrl-C, tokio-postgres's cancel token) and `SET statement_timeout`.
//! The statement fails with SQLSTATE 57014 and its ORA- text; the connection goes on.
//!
//! The long query is a cross join that would run for many seconds: the cancel or the
//! limit under test stops it, and `LONG_QUERY_BOUND` fails the test if neither does.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio_postgres::NoTls;

mod common;
use common::{connect, first_value, start};

const LONG_QUERY: &str = "select count(*) from t a, t b, t c where a.v + b.v + c.v = 1";

/// How long the long query may take to stop before the test fails.
const LONG_QUERY_BOUND: Duration = Duration::from_secs(60);

/// The table `LONG_QUERY` joins with itself: 3,000 rows, every `v` 0.
async fn create_long_querys_table(client: &tokio_postgres::Client) {
    client
        .batch_execute(
            "create table t (id number primary key, v number); \
             insert into t select x, 0 from generate_series(1, 3000) as x",
        )
        .await
        .unwrap();
}

/// Sends a CancelRequest for `client`'s session and returns once the server has handled it:
/// it closes the request's connection after handling it, and this waits for the close, as
/// libpq's PQcancel does (tokio-postgres's `cancel_query` returns once the request is sent).
/// Without the wait, a cancel repeated while the query was ending could reach the server
/// after the client had sent its next statement, and cancel that one.
async fn cancel_and_wait_until_handled(client: &tokio_postgres::Client, address: SocketAddr) {
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    client
        .cancel_token()
        .cancel_query_raw(&mut socket, NoTls)
        .await
        .unwrap();
    // An error reading means the connection is gone too.
    let _ = socket.read_to_end(&mut Vec::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_request_and_statement_timeout_stop_the_running_statement() {
    let (_instance, server) = start("cancel", &[]);
    let client = Arc::new(connect(server.local_addr()).await.unwrap());
    create_long_querys_table(&client).await;

    // A cancel request from its own connection, as libpq sends one.
    let running = {
        let client = client.clone();
        tokio::spawn(async move { client.simple_query(LONG_QUERY).await })
    };
    // A cancel that comes before the query has armed is dropped, and on a loaded machine
    // the query may start late: cancel again every 50 ms until it has stopped (bounded).
    let deadline = tokio::time::Instant::now() + LONG_QUERY_BOUND;
    while !running.is_finished() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the cancel did not stop the query"
        );
        cancel_and_wait_until_handled(&client, server.local_addr()).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let error = running.await.unwrap().unwrap_err();
    let database = error.as_db_error().expect("an error from the server");
    assert_eq!(database.code().code(), "57014");
    assert!(
        database.message().starts_with("ORA-01013"),
        "{}",
        database.message()
    );
    // The connection goes on.
    assert_eq!(first_value(&client, "select count(*) from t").await, "3000");
    // The table of cancel keys the request looked in is a latch v$latch counts.
    let gets = first_value(
        &client,
        "select gets from v$latch where name = 'session allocation'",
    )
    .await;
    assert!(gets.parse::<u64>().unwrap() >= 2, "{gets}"); // the logon's insert, the cancel

    // statement_timeout, set the way PostgreSQL's clients set it.
    client
        .batch_execute("set statement_timeout = '200ms'")
        .await
        .unwrap();
    let error = tokio::time::timeout(LONG_QUERY_BOUND, client.simple_query(LONG_QUERY))
        .await
        .expect("statement_timeout did not stop the query")
        .unwrap_err();
    let database = error.as_db_error().expect("an error from the server");
    assert_eq!(database.code().code(), "57014");
    assert!(
        database.message().starts_with("ORA-00040"),
        "{}",
        database.message()
    );
    // Through the extended protocol too.
    let error = tokio::time::timeout(LONG_QUERY_BOUND, client.query(LONG_QUERY, &[]))
        .await
        .expect("statement_timeout did not stop the query")
        .unwrap_err();
    assert_eq!(error.as_db_error().unwrap().code().code(), "57014");
    assert_eq!(first_value(&client, "show statement_timeout").await, "200");
    assert_eq!(server.stop(), 0);
}

/// The dead connection check (`CLIENT_CHECK_INTERVAL`): a client that goes away while its
/// statement runs gets that statement stopped (ORA-03113) and its session ended, which
/// rolls back its transaction and releases its row lock. The bug this pins: the
/// connection's thread ran the statement to its end without reading the socket, so the
/// long query here ran for hours after its client left, holding the lock another session
/// waits for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gone_while_its_statement_runs_ends_the_statement_and_frees_its_locks() {
    let (_instance, server) = start("client-gone", &[]);
    let address = server.local_addr();
    let other = connect(address).await.unwrap();
    create_long_querys_table(&other).await;
    // The client that goes: it locks a row, then runs the long query.
    let mut config = tokio_postgres::Config::new();
    config
        .host(address.ip().to_string())
        .port(address.port())
        .user("system")
        .dbname("pythia");
    let (gone, connection) = config.connect(NoTls).await.unwrap();
    let driver = tokio::spawn(connection);
    gone.batch_execute("begin; update t set v = 1 where id = 1")
        .await
        .unwrap();
    let running = tokio::spawn(async move { gone.simple_query(LONG_QUERY).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The connection's end closes its socket, as a killed client's does.
    driver.abort();
    running.abort();
    // The row is free once the session has ended: the other session's update waits for
    // it ('enq: TX - row lock contention') and then goes through.
    let updated = tokio::time::timeout(
        LONG_QUERY_BOUND,
        other.execute("update t set v = 2 where id = 1", &[]),
    )
    .await
    .expect("the gone client's statement kept running, and its lock")
    .unwrap();
    assert_eq!(updated, 1);
    // Its transaction was rolled back: only the other session's change is there.
    assert_eq!(first_value(&other, "select sum(v) from t").await, "2");
    assert_eq!(server.stop(), 0);
}
