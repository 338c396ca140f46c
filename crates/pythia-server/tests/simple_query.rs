//! The simple query protocol through a real PostgreSQL client (tokio-postgres): results,
//! command tags, autocommit and explicit transactions, errors with their SQLSTATE, one
//! dedicated session per connection, and a connection that vanishes losing only its own
//! work.

use tokio_postgres::{Client, SimpleQueryMessage};

mod common;
use common::{connect, connect_when_free, start};

/// What a simple query sent back, each message through `pick`.
async fn messages<T>(
    client: &Client,
    sql: &str,
    pick: impl Fn(SimpleQueryMessage) -> Option<T>,
) -> Vec<T> {
    let sent = client.simple_query(sql).await.unwrap();
    sent.into_iter().filter_map(pick).collect()
}

/// The rows of a simple query, as text.
async fn rows(client: &Client, sql: &str) -> Vec<Vec<Option<String>>> {
    messages(client, sql, |message| match message {
        SimpleQueryMessage::Row(row) => Some(
            (0..row.len())
                .map(|index| row.get(index).map(str::to_string))
                .collect(),
        ),
        _ => None,
    })
    .await
}

/// The command tags' row counts of a simple query, in order.
async fn counts(client: &Client, sql: &str) -> Vec<u64> {
    messages(client, sql, |message| match message {
        SimpleQueryMessage::CommandComplete(rows) => Some(rows),
        _ => None,
    })
    .await
}

fn text(values: &[&str]) -> Vec<Option<String>> {
    values.iter().map(|value| Some(value.to_string())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_results_and_autocommit_through_a_postgresql_client() {
    let (_instance, server) = start("basics", &[]);
    let first = connect(server.local_addr()).await.unwrap();
    // Several statements in one message, each with its own command tag.
    assert_eq!(
        counts(
            &first,
            "create table t (id number primary key, name varchar2(40), flag boolean); \
             insert into t values (1, 'one; with a semicolon', true); \
             insert into t values (2, null, false); update t set name = 'two' where id = 2"
        )
        .await,
        vec![0, 1, 1, 1]
    );
    assert_eq!(
        rows(&first, "select id, name, flag from t order by id").await,
        vec![
            text(&["1", "one; with a semicolon", "t"]),
            text(&["2", "two", "f"])
        ]
    );
    // Autocommit: another connection, another session, sees the rows at once.
    let second = connect(server.local_addr()).await.unwrap();
    assert_eq!(
        rows(&second, "select count(*) from t").await,
        vec![text(&["2"])]
    );
    // Each connection has a session of its own.
    let sid = |rows: Vec<Vec<Option<String>>>| rows[0][0].clone().unwrap();
    let query = "select sid from v$mystat where rownum = 1";
    assert_ne!(
        sid(rows(&first, query).await),
        sid(rows(&second, query).await)
    );
    // Between requests this session waited on 'SQL*Net message from client'.
    let own = sid(rows(&first, query).await);
    let waits = rows(
        &first,
        &format!(
            "select total_waits from v$session_event \
             where event = 'SQL*Net message from client' and sid = {own}"
        ),
    )
    .await;
    let waits: u64 = waits[0][0].as_deref().unwrap().parse().unwrap();
    assert!(waits >= 4, "{waits} waits for the client");
    // And its traffic is counted under Oracle's names: 5 messages before this one.
    let traffic = rows(
        &first,
        "select n.name, m.value from v$mystat m, v$statname n \
         where m.statistic# = n.statistic# and n.name like '%SQL*Net%' order by n.name",
    )
    .await;
    let value = |name: &str| -> u64 {
        let row = traffic
            .iter()
            .find(|row| row[0].as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no statistic {name}"));
        row[1].as_deref().unwrap().parse().unwrap()
    };
    assert_eq!(value("SQL*Net roundtrips to/from client"), 5);
    assert!(value("bytes received via SQL*Net from client") > 300);
    assert!(value("bytes sent via SQL*Net to client") > 200);
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explicit_transactions_commit_and_roll_back_as_a_unit() {
    let (_instance, server) = start("transactions", &[]);
    let client = connect(server.local_addr()).await.unwrap();
    let other = connect(server.local_addr()).await.unwrap();
    client
        .simple_query("create table t (a number)")
        .await
        .unwrap();
    client
        .simple_query("begin; insert into t values (1); insert into t values (2)")
        .await
        .unwrap();
    // Uncommitted: the other session sees nothing yet.
    assert_eq!(
        rows(&other, "select count(*) from t").await,
        vec![text(&["0"])]
    );
    client.simple_query("rollback").await.unwrap();
    assert_eq!(
        rows(&client, "select count(*) from t").await,
        vec![text(&["0"])]
    );
    client
        .simple_query("start transaction; insert into t values (3); commit")
        .await
        .unwrap();
    assert_eq!(rows(&other, "select a from t").await, vec![text(&["3"])]);
    // tokio-postgres's own transaction API sends BEGIN and COMMIT.
    let mut client = client;
    let transaction = client.transaction().await.unwrap();
    transaction
        .simple_query("insert into t values (4)")
        .await
        .unwrap();
    transaction.commit().await.unwrap();
    assert_eq!(
        rows(&other, "select count(*) from t").await,
        vec![text(&["2"])]
    );
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_carry_their_sqlstate_and_the_connection_goes_on() {
    let (_instance, server) = start("errors", &[]);
    let client = connect(server.local_addr()).await.unwrap();
    client
        .simple_query("create table t (a number primary key)")
        .await
        .unwrap();
    let error = client
        .simple_query("select * from missing")
        .await
        .unwrap_err();
    let database = error.as_db_error().expect("an error from the server");
    assert_eq!(database.code().code(), "42P01");
    assert!(
        database.message().contains("ORA-00942"),
        "{}",
        database.message()
    );
    // A message of several statements is one implicit transaction, as in PostgreSQL: the
    // first error ends it and undoes it whole; the third insert never runs.
    let error = client
        .simple_query(
            "insert into t values (1); insert into t values (1); insert into t values (2)",
        )
        .await
        .unwrap_err();
    assert_eq!(error.as_db_error().unwrap().code().code(), "23505");
    assert!(rows(&client, "select a from t").await.is_empty());
    client
        .simple_query("insert into t values (1)")
        .await
        .unwrap();
    // A syntax error points at its character, counted in the whole message (1-based).
    let message = "select 1 from dual; select from";
    let error = client.simple_query(message).await.unwrap_err();
    let database = error.as_db_error().unwrap();
    assert_eq!(database.code().code(), "42601");
    let position = match database.position() {
        Some(tokio_postgres::error::ErrorPosition::Original(position)) => *position as usize,
        other => panic!("no position: {other:?}"),
    };
    assert!(
        position > "select 1 from dual; ".len() && position <= message.len(),
        "position {position} is not in the second statement"
    );
    // Inside an explicit transaction a failed statement undoes only itself.
    client
        .simple_query("begin; insert into t values (3)")
        .await
        .unwrap();
    assert!(client
        .simple_query("insert into t values (3)")
        .await
        .is_err());
    client.simple_query("commit").await.unwrap();
    assert_eq!(
        rows(&client, "select a from t order by a").await,
        vec![text(&["1"]), text(&["3"])]
    );
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vanished_connection_loses_its_open_transaction_and_nothing_else() {
    let (instance, server) = start("vanish", &[("processes", "4")]);
    let keeper = connect(server.local_addr()).await.unwrap();
    keeper
        .simple_query("create table t (a number); insert into t values (0)")
        .await
        .unwrap();
    let leaver = connect(server.local_addr()).await.unwrap();
    leaver
        .simple_query("begin; update t set a = 1")
        .await
        .unwrap();
    drop(leaver);
    // Its thread ends and its session rolls back, releasing the row it locked: the keeper
    // changes the row without waiting long (a lock left behind would hold it for good).
    let update = keeper.simple_query("update t set a = 2");
    tokio::time::timeout(std::time::Duration::from_secs(30), update)
        .await
        .expect("the vanished session's row lock was never released")
        .unwrap();
    assert_eq!(rows(&keeper, "select a from t").await, vec![text(&["2"])]);
    // Its slot in `processes` comes free too: with `processes` at 4, more connections than
    // that in turn all get in.
    for _ in 0..8 {
        let client = connect_when_free(server.local_addr()).await;
        assert_eq!(rows(&client, "select a from t").await, vec![text(&["2"])]);
    }
    // Beyond `processes` the login fails with ORA-00020 and only that connection is refused.
    let mut held = Vec::new();
    let refused = loop {
        match connect(server.local_addr()).await {
            Ok(client) => held.push(client),
            Err(error) => break error,
        }
        assert!(held.len() < 4, "processes did not bound the sessions");
    };
    let database = refused.as_db_error().expect("refused by the server");
    assert_eq!(database.code().code(), "53300");
    assert!(
        database.message().contains("ORA-00020"),
        "{}",
        database.message()
    );
    assert_eq!(rows(&keeper, "select a from t").await, vec![text(&["2"])]);
    drop(held);
    assert_eq!(server.stop(), 0, "connection threads left running");
    drop(instance);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_that_never_log_on_cost_no_thread() {
    let (_instance, server) = start("sockets", &[]);
    let idle: Vec<std::net::TcpStream> = (0..20)
        .map(|_| std::net::TcpStream::connect(server.local_addr()).unwrap())
        .collect();
    let client = connect(server.local_addr()).await.unwrap();
    assert_eq!(
        rows(&client, "select 1 from dual").await,
        vec![text(&["1"])]
    );
    assert_eq!(server.connection_threads(), 1);
    drop(idle);
    drop(client);
    assert_eq!(server.stop(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transaction_modes_savepoints_and_a_stop_with_a_transaction_open() {
    let (instance, server) = start("modes", &[]);
    let client = connect(server.local_addr()).await.unwrap();
    client
        .simple_query("create table t (a number)")
        .await
        .unwrap();
    // BEGIN with a transaction mode is a BEGIN, not a PL/SQL block.
    client
        .simple_query("begin isolation level read committed; insert into t values (1)")
        .await
        .unwrap();
    client.simple_query("rollback").await.unwrap();
    assert!(rows(&client, "select a from t").await.is_empty());
    // ROLLBACK TRANSACTION TO a savepoint undoes back to it and the transaction goes on.
    client
        .simple_query(
            "begin; insert into t values (1); savepoint s; insert into t values (2); \
             rollback transaction to s; insert into t values (3); commit",
        )
        .await
        .unwrap();
    assert_eq!(
        rows(&client, "select a from t order by a").await,
        vec![text(&["1"]), text(&["3"])]
    );
    // Stopping the server with a transaction open rolls it back before `stop` returns: the
    // row it locked is free at once for a session of the instance.
    client
        .simple_query("begin; update t set a = 10 where a = 1")
        .await
        .unwrap();
    assert_eq!(server.stop(), 0, "connection threads left running");
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut session = instance.connect().unwrap();
        let changed = session.execute("update t set a = 11 where a = 1").unwrap();
        session.execute("commit").unwrap();
        let _ = done.send(changed.rows_affected);
    });
    let changed = finished
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the stopped connection's row lock was never released");
    assert_eq!(changed, 1);
}
