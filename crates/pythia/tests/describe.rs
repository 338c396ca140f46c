//! `Session::describe_prepared`: what a prepared statement takes and gives before it runs,
//! as PostgreSQL's extended protocol asks at Parse. The bind types come from each bind's
//! context (`sql/describe.rs`); a query's columns from a plan made and not kept.

use std::sync::Arc;

use pythia::types::DataType;
use pythia::{Column, Instance, Session, Value};

mod common;
use common::{temp_dir, SMALL};

fn open(name: &str) -> (Arc<Instance>, Session) {
    let instance = Instance::open(temp_dir(name), SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    for sql in [
        "create table accounts (aid int not null, balance number(12,2), filler char(84), \
         opened date)",
        "create table branches (bid int, name varchar2(30))",
    ] {
        session.execute(sql).unwrap();
    }
    (instance, session)
}

fn bind_types(session: &mut Session, sql: &str) -> Vec<Option<DataType>> {
    let prepared = session.prepare(sql).unwrap();
    session.describe_prepared(&prepared).unwrap().binds
}

#[test]
fn a_binds_context_gives_its_type() {
    let (_instance, mut session) = open("describe-binds");
    let integer = Some(DataType::integer());
    let text = Some(DataType::varchar2(4000));
    let number = Some(DataType::number());
    let cases: Vec<(&str, Vec<Option<DataType>>)> = vec![
        ("select balance from accounts where aid = $1", vec![integer]),
        (
            "select 1 from accounts a, branches b where :x < a.balance and b.name = :y",
            vec![
                Some(DataType::number_with(12, 2)),
                Some(DataType::varchar2(30)),
            ],
        ),
        (
            "select 1 from accounts where aid between $1 and $2 or filler in ($3, 'x')",
            vec![integer, integer, Some(DataType::char(84))],
        ),
        (
            "insert into accounts (filler, aid) values ($1, $2)",
            vec![Some(DataType::char(84)), integer],
        ),
        (
            "insert into accounts values (:1, :2, :3, :4)",
            vec![
                integer,
                Some(DataType::number_with(12, 2)),
                Some(DataType::char(84)),
                Some(DataType::Date),
            ],
        ),
        // pgbench's tpcb-like update: the increment is arithmetic, the key a comparison.
        (
            "update accounts set balance = balance + $1 where aid = $2",
            vec![number, integer],
        ),
        (
            "update accounts a set filler = $1 where a.aid = $2",
            vec![Some(DataType::char(84)), integer],
        ),
        (
            "select cast($1 as int), name || $2 from branches where name like $3 \
             offset $4 rows",
            vec![integer, text, text, number],
        ),
        // No context: no type. `$2` alone still makes position 0 a parameter.
        ("select upper($1) from dual", vec![None]),
        ("select 1 from branches where bid = $2", vec![None, integer]),
        (
            "select 1 from accounts, branches where name = $1 and aid = $2",
            vec![Some(DataType::varchar2(30)), integer],
        ),
        ("commit", vec![]),
    ];
    for (sql, expected) in cases {
        assert_eq!(bind_types(&mut session, sql), expected, "{sql}");
    }
}

#[test]
fn a_querys_columns_are_known_before_it_runs_and_nothing_runs() {
    let (_instance, mut session) = open("describe-columns");
    session
        .execute("insert into accounts (aid, balance) values (1, 10)")
        .unwrap();
    let prepared = session
        .prepare("select aid, balance b, count(*) over_all from accounts where aid = $1 group by aid, balance")
        .unwrap();
    let description = session.describe_prepared(&prepared).unwrap();
    assert_eq!(
        description.columns,
        Some(vec![
            Column {
                name: "AID".into(),
                data_type: Some(DataType::integer())
            },
            Column {
                name: "B".into(),
                data_type: Some(DataType::number_with(12, 2))
            },
            Column {
                name: "OVER_ALL".into(),
                data_type: Some(DataType::number())
            },
        ])
    );
    let update = session
        .prepare("update accounts set balance = 0 where aid = $1")
        .unwrap();
    assert_eq!(session.describe_prepared(&update).unwrap().columns, None);
    // Describing ran nothing: the row is as it was, and the statement runs after.
    let rows = session
        .execute_prepared(&prepared, &[Value::integer(1)])
        .unwrap()
        .rows;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][1].to_string(), "10");
}

#[test]
fn describing_a_statement_on_a_missing_table_fails_as_its_execution_would() {
    let (_instance, mut session) = open("describe-missing");
    let prepared = session
        .prepare("select * from nowhere where a = $1")
        .unwrap();
    let error = session.describe_prepared(&prepared).unwrap_err();
    assert_eq!(error.code(), 942);
    // The session goes on.
    assert_eq!(
        session
            .execute("select count(*) from accounts")
            .unwrap()
            .rows[0][0]
            .to_string(),
        "0"
    );
}
