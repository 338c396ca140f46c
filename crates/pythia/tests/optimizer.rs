//! The optimizer changes plans, never answers: the same queries over random data give the
//! same rows under the rule-based planner and under the cost-based one, whatever its
//! parameters push it to (indexes at any price, full scans at any price), and with or
//! without statistics. The plans made along the way must use every join method, so that
//! the comparison covers them.

use std::collections::BTreeSet;

use proptest::prelude::*;
use pythia::{Instance, Session, Value};

mod common;
use common::{run, temp_dir, SMALL};

/// A query's rows, sorted (the queries promise no order).
fn sorted_rows(session: &mut Session, sql: &str) -> Vec<String> {
    let mut rows: Vec<String> = session
        .execute(sql)
        .unwrap_or_else(|error| panic!("{sql}: {error}"))
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    rows.sort();
    rows
}

/// The join operations of a query's plan.
fn joins(session: &mut Session, sql: &str) -> BTreeSet<String> {
    run(session, &format!("explain plan for {sql}"));
    session
        .execute("select rtrim(operation || ' ' || options) from plan_table where plan_id = (select max(plan_id) from plan_table) and (operation like '%JOIN%' or operation = 'NESTED LOOPS')")
        .unwrap()
        .rows
        .iter()
        .map(|row| row[0].to_string())
        .collect()
}

const QUERIES: &[&str] = &[
    "select a.id, b.id from a, b where a.k = b.k",
    "select a.id, b.id from a, b where a.k < b.k and b.v = 2",
    "select a.id, b.id from a, b where a.v >= b.v and a.k = 1",
    "select a.id, b.id, c.id from a, b, c where a.k = b.k and b.v = c.v",
    "select a.id, c.id from a, b, c where a.v = c.v and c.k between 1 and 3 and b.id = a.id",
    "select a.id, b.id from a left join b on b.k = a.k and b.v > 1",
    "select a.id, b.id from a full join b on b.k = a.k",
    "select a.id, b.id from a, b where b.k(+) <= a.k",
    "select a.k, count(*), sum(b.v) from a, b where a.k = b.k group by a.k",
    "select a.id from a where a.k in (select k from b where b.v = a.v)",
    "select a.id from a where exists (select 1 from c where c.k > a.k and c.v = a.v)",
    "select a.id, b.id from a, b where a.id = b.id and a.k is not null",
    "select a.id from a where a.k = 2 and a.v between 1 and 4",
    "select c.id from c where c.k > 2 or c.v is null",
    "select c.id from c where c.k >= 1 and c.v < 3",
    "select b.id, c.id from b, c where c.k = b.k and c.v > b.v",
    "select a.id, b.id from a join b on b.v between a.k and a.v",
    "select x.id, c.id from (select id, k from a where v > 0) x, c where c.k = x.k",
    "select a.id, b.id, c.id from a, b, c where a.k = b.k and b.k = c.k and a.v <> c.v",
    "select a.id from a where a.v not in (select v from c where c.v is not null and c.k = 1)",
    "select a.id, b.id from a, b where a.k = 1 and b.v = 2",
    "select a.id, b.id from a left join b on b.v = 3",
    "select a.id, b.id, c.id from a left join (b join c on b.k = c.k) on a.v = b.v",
    "select a.id, b.id, c.id from a join b on a.k = b.k full join c on c.v = b.v",
    "select c.id from c where c.k in (1, 3, 5, 3, null)",
    "select c.id, b.id from c, b where c.k = 1 and c.v in (0, 2) and b.k in (c.v, 4)",
];

/// Session settings each query runs under; the first is the reference.
const SETTINGS: &[&str] = &[
    "alter session set optimizer_mode = RULE",
    "alter session set optimizer_mode = ALL_ROWS optimizer_index_cost_adj = 100 \"_db_file_optimizer_read_count\" = 8",
    "alter session set optimizer_mode = ALL_ROWS optimizer_index_cost_adj = 1",
    "alter session set optimizer_mode = ALL_ROWS optimizer_index_cost_adj = 10000 \"_db_file_optimizer_read_count\" = 1024",
    "alter session set optimizer_mode = ALL_ROWS optimizer_index_cost_adj = 100 \"_db_file_optimizer_read_count\" = 1",
];

type Row = (Option<i64>, Option<i64>);

fn load(session: &mut Session, table: &str, rows: &[Row]) {
    for (id, (k, v)) in rows.iter().enumerate() {
        let value = |x: &Option<i64>| x.map_or(Value::Null, Value::integer);
        session
            .execute_with(
                &format!("insert into {table} values (:1, :2, :3)"),
                &[Value::integer(id as i64 + 1), value(k), value(v)],
            )
            .unwrap();
    }
}

fn rows_strategy() -> impl Strategy<Value = Vec<Row>> {
    prop::collection::vec(
        (
            prop::option::weighted(0.85, 0i64..6),
            prop::option::weighted(0.85, 0i64..5),
        ),
        0..30,
    )
}

#[test]
fn plans_change_but_answers_do_not() {
    let dir = temp_dir("equivalence");
    let instance = Instance::open(&dir, SMALL).unwrap();
    // The runner takes a Fn: the session and what the plans used are borrowed per case.
    let session = std::cell::RefCell::new(instance.connect().unwrap());
    let methods = std::cell::RefCell::new(BTreeSet::new());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 20,
        ..ProptestConfig::default()
    });
    runner
        .run(
            &(rows_strategy(), rows_strategy(), rows_strategy()),
            |(a, b, c)| {
                let session = &mut *session.borrow_mut();
                for table in ["a", "b", "c"] {
                    let _ = session.execute(&format!("drop table {table}"));
                    run(
                        session,
                        &format!(
                            "create table {table} (id number primary key, k number, v number)"
                        ),
                    );
                }
                run(session, "create index b_k on b (k)");
                run(session, "create index c_kv on c (k, v)");
                load(session, "a", &a);
                load(session, "b", &b);
                load(session, "c", &c);
                run(session, "commit");
                let mut expected = Vec::new();
                for query in QUERIES {
                    run(session, SETTINGS[0]);
                    expected.push(sorted_rows(session, query));
                }
                // Costed with Oracle's default statistics, then with gathered ones.
                for analyzed in [false, true] {
                    if analyzed {
                        run(
                            session,
                            "begin dbms_stats.gather_schema_stats('SYSTEM'); end;",
                        );
                    }
                    for (query, expected) in QUERIES.iter().zip(&expected) {
                        for setting in &SETTINGS[1..] {
                            run(session, setting);
                            methods.borrow_mut().extend(joins(session, query));
                            let actual = sorted_rows(session, query);
                            prop_assert_eq!(
                                &actual,
                                expected,
                                "{} under {}, analyzed: {}",
                                query,
                                setting,
                                analyzed
                            );
                        }
                    }
                }
                Ok(())
            },
        )
        .unwrap();
    let methods = methods.into_inner();
    for method in [
        "NESTED LOOPS",
        "HASH JOIN",
        "MERGE JOIN",
        "MERGE JOIN CARTESIAN",
        "HASH JOIN OUTER",
        "MERGE JOIN OUTER",
    ] {
        assert!(
            methods.contains(method),
            "no plan used {method}: {methods:?}"
        );
    }
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}
