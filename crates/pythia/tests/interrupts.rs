//! Stopping a running statement: a cancel from another thread (ORA-01013) and
//! `statement_timeout` (ORA-00040), in a query, in a DML statement and in a row lock wait.
//! The interrupted statement undoes only itself; the session, its transaction and everyone
//! else go on. And PostgreSQL's SET and SHOW, which is how a server's client sets the limit.
//!
//! The long statements here are cross joins that would run for many seconds: each is
//! stopped by the limit or the cancel under test, never left to run to its end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pythia::{Instance, Session};

mod common;
use common::{temp_dir, SMALL};

/// An instance with `t`: 3,000 rows, enough that `t` joined to itself twice is billions
/// of rows.
fn open(name: &str) -> (Arc<Instance>, Session) {
    let instance = Instance::open(temp_dir(name), SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    session
        .execute("create table t (id number primary key, v number)")
        .unwrap();
    let insert = session.prepare("insert into t values (:1, 0)").unwrap();
    for id in 1..=3000 {
        session
            .execute_prepared(&insert, &[pythia::Value::integer(id)])
            .unwrap();
    }
    session.execute("commit").unwrap();
    (instance, session)
}

const LONG_QUERY: &str = "select count(*) from t a, t b, t c where a.v + b.v + c.v = 1";

fn count(session: &mut Session, sql: &str) -> String {
    session.execute(sql).unwrap().rows[0][0].to_string()
}

#[test]
fn statement_timeout_stops_a_query_and_a_dml_statement_and_the_session_goes_on() {
    let (_instance, mut session) = open("interrupt-timeout");
    session.execute("insert into t values (0, 5)").unwrap();
    session
        .execute("alter session set statement_timeout = 200")
        .unwrap();
    let started = Instant::now();
    let error = session.execute(LONG_QUERY).unwrap_err();
    assert_eq!(error.code(), 40, "{error}");
    assert!(started.elapsed() < Duration::from_secs(30));
    // A DML statement: its own changes are undone, the transaction's earlier ones kept.
    let error = session
        .execute("update t set v = v + 1 where id in (select a.id from t a, t b, t c where a.v + b.v + c.v = 1)")
        .unwrap_err();
    assert_eq!(error.code(), 40, "{error}");
    assert_eq!(count(&mut session, "select sum(v) from t"), "5");
    // Short statements run under the limit.
    assert_eq!(count(&mut session, "select count(*) from t"), "3001");
    session.execute("commit").unwrap();
    // PostgreSQL's spelling sets the same parameter, in its units.
    session.execute("set statement_timeout = '2s'").unwrap();
    assert_eq!(count(&mut session, "show statement_timeout"), "2000");
    session.execute("set statement_timeout to 0").unwrap();
    assert_eq!(count(&mut session, "select v from t where id = 0"), "5");
}

#[test]
fn a_cancel_from_another_thread_stops_the_running_query_only() {
    let (_instance, mut session) = open("interrupt-cancel");
    let interrupter = session.interrupter();
    // A cancel while nothing runs is dropped: the next statement runs.
    interrupter.cancel();
    assert_eq!(count(&mut session, "select count(*) from t"), "3000");
    let runner = std::thread::spawn(move || {
        let error = session.execute(LONG_QUERY).unwrap_err();
        (session, error)
    });
    // A cancel that comes before the query has armed is dropped (see the one above), and on
    // a loaded machine the query may start late: cancel again every 50 ms until it has
    // stopped (bounded). A cancel once it has stopped is dropped by the next statement.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !runner.is_finished() {
        assert!(
            Instant::now() < deadline,
            "the cancel did not stop the query"
        );
        interrupter.cancel();
        std::thread::sleep(Duration::from_millis(50));
    }
    let (mut session, error) = runner.join().unwrap();
    assert_eq!(error.code(), 1013, "{error}");
    assert_eq!(count(&mut session, "select count(*) from t"), "3000");
}

#[test]
fn a_row_lock_wait_ends_at_the_time_limit_and_the_holder_goes_on() {
    let (instance, mut holder) = open("interrupt-lock");
    holder.execute("update t set v = 1 where id = 7").unwrap();
    let mut waiter = instance.connect().unwrap();
    waiter
        .execute("alter session set statement_timeout = 300")
        .unwrap();
    let started = Instant::now();
    let error = waiter
        .execute("update t set v = 2 where id = 7")
        .unwrap_err();
    assert_eq!(error.code(), 40, "{error}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    holder.execute("commit").unwrap();
    waiter.execute("update t set v = 3 where id = 7").unwrap();
    waiter.execute("commit").unwrap();
    assert_eq!(count(&mut holder, "select v from t where id = 7"), "3");
}

#[test]
fn set_and_show_keep_postgresqls_client_settings() {
    let (_instance, mut session) = open("interrupt-settings");
    session.execute("set application_name = 'pgbench'").unwrap();
    session.execute("set datestyle to iso").unwrap();
    assert_eq!(count(&mut session, "show application_name"), "pgbench");
    assert_eq!(count(&mut session, "show DateStyle"), "iso");
    assert_eq!(count(&mut session, "show server_encoding"), "UTF8");
    // A Pythia parameter under its own name.
    session.execute("set cursor_sharing = force").unwrap();
    assert_eq!(count(&mut session, "show cursor_sharing"), "FORCE");
    let all = session.execute("show all").unwrap();
    assert!(all
        .rows
        .iter()
        .any(|row| row[0].to_string() == "application_name"));
    // Unknown names are ALTER SESSION's error.
    assert_eq!(
        session.execute("show no_such_thing").unwrap_err().code(),
        2248
    );
    assert_eq!(
        session.execute("set no_such_thing = 1").unwrap_err().code(),
        2248
    );
}
