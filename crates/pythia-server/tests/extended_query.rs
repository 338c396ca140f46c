//! The extended query protocol through tokio-postgres, which uses it for every `query`,
//! `execute` and `prepare`, with binary results and parameters: the types Pythia describes
//! for parameters and columns, values in both directions, prepared statements as cursors of
//! the library cache, the implicit transaction ended at Sync, portals fetched a few rows at
//! a time, and errors that leave the connection usable.

use chrono::NaiveDateTime;
use rust_decimal::Decimal;
use tokio_postgres::types::Type;

mod common;
use common::{connect, start};

/// The rows of `t`, counted through the extended protocol.
async fn count(client: &tokio_postgres::Client) -> String {
    client
        .query_one("select count(*) from t", &[])
        .await
        .unwrap()
        .get::<_, Decimal>(0)
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_and_columns_are_described_and_travel_in_binary() {
    let (_instance, server) = start("extended-types", &[]);
    let client = connect(server.local_addr()).await.unwrap();
    client
        .batch_execute(
            "create table accounts (aid int not null primary key, small number(5), \
             balance number(12,2), rate binary_double, filler char(4), name varchar2(20), \
             opened date, active boolean)",
        )
        .await
        .unwrap();

    // What the engine infers for each `$n` from its context, and each column's type.
    let insert = client
        .prepare(
            "insert into accounts (aid, small, balance, rate, filler, name, opened, active) \
             values ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .await
        .unwrap();
    assert_eq!(
        insert.params(),
        &[
            Type::INT8,
            Type::INT4,
            Type::NUMERIC,
            Type::FLOAT8,
            Type::BPCHAR,
            Type::VARCHAR,
            Type::TIMESTAMP,
            Type::BOOL
        ]
    );
    assert!(insert.columns().is_empty());
    let opened = NaiveDateTime::parse_from_str("2026-11-27 10:30:05", "%Y-%m-%d %H:%M:%S").unwrap();
    let balance = Decimal::new(123_456, 2);
    let inserted = client
        .execute(
            &insert,
            &[
                &7i64, &12i32, &balance, &0.25f64, &"ab", &"seven", &opened, &true,
            ],
        )
        .await
        .unwrap();
    assert_eq!(inserted, 1);

    let select = client
        .prepare(
            "select aid, small, balance, rate, filler, name, opened, active, aid * 2 twice, \
             substr(name, 1, 2) part from accounts where aid = $1",
        )
        .await
        .unwrap();
    assert_eq!(select.params(), &[Type::INT8]);
    let columns: Vec<(&str, &Type)> = select
        .columns()
        .iter()
        .map(|column| (column.name(), column.type_()))
        .collect();
    assert_eq!(
        columns,
        vec![
            ("aid", &Type::INT8),
            ("small", &Type::INT4),
            ("balance", &Type::NUMERIC),
            ("rate", &Type::FLOAT8),
            ("filler", &Type::BPCHAR),
            ("name", &Type::VARCHAR),
            ("opened", &Type::TIMESTAMP),
            ("active", &Type::BOOL),
            // Arithmetic is a number; an expression whose type the planner does not know
            // travels as text.
            ("twice", &Type::NUMERIC),
            ("part", &Type::TEXT),
        ]
    );
    let row = client.query_one(&select, &[&7i64]).await.unwrap();
    assert_eq!(row.get::<_, i64>(0), 7);
    assert_eq!(row.get::<_, i32>(1), 12);
    assert_eq!(row.get::<_, Decimal>(2), balance);
    assert_eq!(row.get::<_, f64>(3), 0.25);
    assert_eq!(row.get::<_, String>(4), "ab  ");
    assert_eq!(row.get::<_, String>(5), "seven");
    assert_eq!(row.get::<_, NaiveDateTime>(6), opened);
    assert!(row.get::<_, bool>(7));
    assert_eq!(row.get::<_, Decimal>(8), Decimal::from(14));
    assert_eq!(row.get::<_, String>(9), "se");

    // NULL both ways.
    client
        .execute(
            &insert,
            &[
                &8i64,
                &None::<i32>,
                &None::<Decimal>,
                &None::<f64>,
                &None::<&str>,
                &None::<&str>,
                &None::<NaiveDateTime>,
                &None::<bool>,
            ],
        )
        .await
        .unwrap();
    let row = client.query_one(&select, &[&8i64]).await.unwrap();
    assert_eq!(row.get::<_, Option<i32>>(1), None);
    assert_eq!(row.get::<_, Option<Decimal>>(2), None);
    assert_eq!(row.get::<_, Option<String>>(5), None);
    assert_eq!(row.get::<_, Option<NaiveDateTime>>(6), None);
    assert!(client.query(&select, &[&9i64]).await.unwrap().is_empty());
    assert_eq!(server.stop(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_statement_is_one_cursor_executed_many_times() {
    let (_instance, server) = start("extended-cursor", &[]);
    let client = connect(server.local_addr()).await.unwrap();
    client
        .batch_execute("create table t (a int, b varchar2(10))")
        .await
        .unwrap();
    let insert = client
        .prepare("insert /* extended-cursor */ into t values ($1, $2)")
        .await
        .unwrap();
    let traffic = client
        .prepare(
            "select s.name, m.value from v$mystat m, v$statname s \
             where m.statistic# = s.statistic# and s.name like '%SQL*Net%client%' order by 1",
        )
        .await
        .unwrap();
    let statistics = || async {
        client
            .query(&traffic, &[])
            .await
            .unwrap()
            .iter()
            .map(|row| row.get::<_, Decimal>(1))
            .collect::<Vec<_>>()
    };
    let before = statistics().await;
    for a in 0..25i64 {
        client
            .execute(&insert, &[&a, &format!("v{a}")])
            .await
            .unwrap();
    }
    let after = statistics().await;
    // In name order (upper case first): round trips, bytes received, bytes sent. Each
    // execution is Bind, Execute and Sync, one round trip; the first reading's own Sync
    // counts after it read, one more.
    assert_eq!(
        after[0] - before[0],
        Decimal::from(26),
        "{before:?} -> {after:?}"
    );
    // Each Bind carries its two values; each answer a CommandComplete and a ReadyForQuery.
    assert!(
        after[1] - before[1] > Decimal::from(25 * 20),
        "{before:?} -> {after:?}"
    );
    assert!(
        after[2] - before[2] > Decimal::from(25 * 15),
        "{before:?} -> {after:?}"
    );
    let row = client
        .query_one(
            "select executions, parse_calls from v$sql \
             where sql_text = 'insert /* extended-cursor */ into t values ($1, $2)'",
            &[],
        )
        .await
        .unwrap();
    // One Parse, 25 executions of the cursor it opened.
    assert_eq!(row.get::<_, Decimal>(0), Decimal::from(25));
    assert_eq!(row.get::<_, Decimal>(1), Decimal::from(1));
    // Autocommit at each Sync: a second connection sees every row.
    let other = connect(server.local_addr()).await.unwrap();
    assert_eq!(count(&other).await, "25");
    assert_eq!(server.stop(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_errors_and_portals() {
    let (_instance, server) = start("extended-transactions", &[]);
    let mut client = connect(server.local_addr()).await.unwrap();
    let other = connect(server.local_addr()).await.unwrap();
    client
        .batch_execute("create table t (a int primary key)")
        .await
        .unwrap();
    // An explicit transaction: nothing is visible elsewhere until COMMIT.
    let transaction = client.transaction().await.unwrap();
    for a in 0..5i64 {
        transaction
            .execute("insert into t values ($1)", &[&a])
            .await
            .unwrap();
    }
    assert_eq!(count(&other).await, "0");
    // A row limit suspends the portal: rows come a few at a time.
    let portal = transaction
        .bind("select a from t order by a", &[])
        .await
        .unwrap();
    let mut fetched = Vec::new();
    loop {
        let rows = transaction.query_portal(&portal, 2).await.unwrap();
        if rows.is_empty() {
            break;
        }
        assert!(rows.len() <= 2);
        fetched.extend(rows.iter().map(|row| row.get::<_, i64>(0)));
    }
    assert_eq!(fetched, vec![0, 1, 2, 3, 4]);
    // Executed with no row limit, a portal sends all its rows at once and is then finished:
    // a second Execute of it gets none.
    let portal = transaction
        .bind("select a from t order by a", &[])
        .await
        .unwrap();
    let all = transaction.query_portal(&portal, 0).await.unwrap();
    let all: Vec<i64> = all.iter().map(|row| row.get(0)).collect();
    assert_eq!(all, vec![0, 1, 2, 3, 4]);
    assert!(transaction
        .query_portal(&portal, 0)
        .await
        .unwrap()
        .is_empty());
    transaction.commit().await.unwrap();
    assert_eq!(count(&other).await, "5");

    // A failing statement: PostgreSQL's SQLSTATE, the ORA- text, and the connection goes on.
    let error = client
        .execute("insert into t values ($1)", &[&1i64])
        .await
        .unwrap_err();
    let database = error.as_db_error().expect("an error from the server");
    assert_eq!(database.code().code(), "23505");
    assert!(
        database.message().starts_with("ORA-00001"),
        "{}",
        database.message()
    );
    let error = client.prepare("select a frm t").await.unwrap_err();
    assert_eq!(error.as_db_error().unwrap().code().code(), "42601");
    let error = client
        .prepare("select 1 from dual; select 2 from dual")
        .await
        .unwrap_err();
    assert_eq!(error.as_db_error().unwrap().code().code(), "42601");
    let error = client
        .prepare("select * from missing where a = $1")
        .await
        .unwrap_err();
    assert_eq!(error.as_db_error().unwrap().code().code(), "42P01");
    assert_eq!(count(&client).await, "5");

    // ROLLBACK through the extended protocol ends the transaction it began.
    client.execute("begin", &[]).await.unwrap();
    client.execute("delete from t", &[]).await.unwrap();
    client.execute("rollback", &[]).await.unwrap();
    assert_eq!(count(&other).await, "5");
    assert_eq!(server.stop(), 0);
}
