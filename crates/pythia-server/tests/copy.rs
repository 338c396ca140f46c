//! COPY through tokio-postgres, which sends it through the extended protocol: rows in,
//! in chunks that split lines anywhere, in PostgreSQL's text and CSV formats; a bad row
//! undoing the whole COPY and the connection going on; a client's CopyFail; rows out.
//! (pgbench's COPY, through the simple protocol, is in clients.rs.)

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use rust_decimal::Decimal;

mod common;
use common::{connect, start};

async fn copy_in(
    client: &tokio_postgres::Client,
    statement: &str,
    chunks: &[&[u8]],
) -> Result<u64, tokio_postgres::Error> {
    let sink = client.copy_in::<_, Bytes>(statement).await?;
    futures::pin_mut!(sink);
    for chunk in chunks {
        sink.send(Bytes::copy_from_slice(chunk)).await?;
    }
    sink.finish().await
}

async fn count(client: &tokio_postgres::Client) -> Decimal {
    client
        .query_one("select count(*) from t", &[])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_copy_in_and_out_and_a_bad_row_undoes_the_copy() {
    let (_instance, server) = start("copy", &[]);
    let client = connect(server.local_addr()).await.unwrap();
    client
        .batch_execute("create table t (id int primary key, name varchar2(30), added timestamp)")
        .await
        .unwrap();
    // Text format, lines split across chunks, escapes and NULL.
    let copied = copy_in(
        &client,
        "copy t from stdin",
        &[
            b"1\tone\t2026-01-02 03:04:05\n2\ttw",
            b"o\t\\N\n3\ttab\\there\t2026-11-27 00:00:00\n",
            b"4\tlast line without its end\t\\N",
        ],
    )
    .await
    .unwrap();
    assert_eq!(copied, 4);
    let row = client
        .query_one("select name, added from t where id = 3", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "tab\there");
    // CSV with a header and a quoted field holding a comma and a line end, named columns.
    let copied = copy_in(
        &client,
        "copy t (name, id) from stdin with (format csv, header)",
        &[b"name,id\n\"a, \"\"quoted\"\"\nname\",5\n", b"plain,6\n"],
    )
    .await
    .unwrap();
    assert_eq!(copied, 2);
    let name: String = client
        .query_one("select name from t where id = 5", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(name, "a, \"quoted\"\nname");
    assert_eq!(count(&client).await, Decimal::from(6));

    // A bad row (a duplicate key on line 2, a value that is not a number on line 3):
    // nothing of the COPY stays, the error says which line, the connection goes on.
    let error = copy_in(
        &client,
        "copy t (id, name) from stdin",
        &[b"7\tseven\n1\tagain\n"],
    )
    .await
    .unwrap_err();
    let database = error.as_db_error().expect("an error from the server");
    assert_eq!(database.code().code(), "23505");
    assert!(
        database.message().contains("COPY line 2"),
        "{}",
        database.message()
    );
    let error = copy_in(&client, "copy t (id) from stdin", &[b"8\nnot a number\n"])
        .await
        .unwrap_err();
    let database = error.as_db_error().expect("an error from the server");
    assert_eq!(database.code().code(), "22P02");
    assert!(
        database.message().contains("COPY line 2"),
        "{}",
        database.message()
    );
    assert_eq!(count(&client).await, Decimal::from(6));

    // The client gives up: its CopyFail undoes what it sent.
    {
        let sink = client
            .copy_in::<_, Bytes>("copy t (id) from stdin")
            .await
            .unwrap();
        futures::pin_mut!(sink);
        sink.send(Bytes::from_static(b"9\n10\n")).await.unwrap();
        // Dropped without finish: tokio-postgres sends CopyFail.
    }
    assert_eq!(count(&client).await, Decimal::from(6));

    // Rows out, as COPY writes them.
    let out = client
        .copy_out("copy (select id, name from t where id <= 2 order by id) to stdout")
        .await
        .unwrap();
    futures::pin_mut!(out);
    let mut text = Vec::new();
    while let Some(chunk) = out.next().await {
        text.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(String::from_utf8(text).unwrap(), "1\tone\n2\ttwo\n");
    assert_eq!(server.stop(), 0);
}
