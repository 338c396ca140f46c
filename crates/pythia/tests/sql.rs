//! SQL through the embedded API: DDL, DML, queries, transactions, errors, persistence.

use pythia::{Instance, Session, Value};

mod common;
use common::{across_a_restart, error_code, run, temp_dir, text_rows, with_database, SMALL};

#[test]
fn create_insert_query_update_delete_and_reopen() {
    across_a_restart(
        "basic",
        |_, mut session| {
            run(&mut session, "create table emp (id number(6) primary key, name varchar2(20) not null, dept number, salary number(8,2) default 1000)");
            run(&mut session, "create index emp_dept on emp (dept)");
            for id in 1..=50 {
                session
                    .execute_with(
                        "insert into emp (id, name, dept) values (:1, :2, :3)",
                        &[
                            Value::integer(id),
                            Value::text(format!("E{id}")),
                            Value::integer(id % 5),
                        ],
                    )
                    .unwrap();
            }
            run(&mut session, "commit");
            assert_eq!(
                text_rows(&mut session, "select name, salary from emp where id = 7"),
                vec![vec!["E7", "1000"]]
            );
            assert_eq!(
                text_rows(&mut session, "select count(*) from emp where dept = 3"),
                vec![vec!["10"]]
            );
            assert_eq!(
            text_rows(&mut session, "select dept, count(*), sum(id) from emp group by dept having count(*) > 0 order by dept desc"),
            vec![
                vec!["4", "10", "265"],
                vec!["3", "10", "255"],
                vec!["2", "10", "245"],
                vec!["1", "10", "235"],
                vec!["0", "10", "275"],
            ]
        );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select id from emp where id between 10 and 12 order by 1"
                ),
                vec![vec!["10"], vec!["11"], vec!["12"]]
            );
            let updated = session
                .execute("update emp set salary = salary * 2 where dept = 1")
                .unwrap();
            assert_eq!(updated.rows_affected, 10);
            assert_eq!(updated.feedback, "10 rows updated.");
            let deleted = session.execute("delete from emp where id > 45").unwrap();
            assert_eq!(deleted.rows_affected, 5);
            run(&mut session, "commit");
            assert_eq!(
                text_rows(&mut session, "select max(salary), min(salary) from emp"),
                vec![vec!["2000", "1000"]]
            );
            // Errors keep the session usable and change nothing.
            assert_eq!(
                error_code(
                    &mut session,
                    "insert into emp (id, name) values (7, 'again')"
                ),
                1
            );
            assert_eq!(
                error_code(&mut session, "insert into emp (id) values (100)"),
                1400
            );
            assert_eq!(error_code(&mut session, "select nope from emp"), 904);
            assert_eq!(error_code(&mut session, "select * from nowhere"), 942);
            assert_eq!(
                error_code(
                    &mut session,
                    "insert into emp (id, name) values (1234567, 'x')"
                ),
                1438
            );
            assert_eq!(error_code(&mut session, "selec 1 from dual"), 900);
            assert_eq!(
                text_rows(&mut session, "select count(*) from emp"),
                vec![vec!["45"]]
            );
            run(&mut session, "commit");
        },
        |_, mut session, ()| {
            assert_eq!(
                text_rows(&mut session, "select count(*), sum(salary) from emp"),
                vec![vec!["45", "54000"]]
            );
            assert_eq!(
                text_rows(&mut session, "select name from emp where id = 45"),
                vec![vec!["E45"]]
            );
            assert_eq!(
                text_rows(&mut session, "select table_name from user_tables"),
                vec![vec!["EMP"]]
            );
            let indexes = text_rows(
                &mut session,
                "select index_name, uniqueness from dba_indexes order by index_name",
            );
            assert_eq!(indexes.len(), 2);
            assert_eq!(indexes[0], vec!["EMP_DEPT", "NONUNIQUE"]);
            assert!(indexes[1][0].starts_with("SYS_C"), "{indexes:?}");
            assert_eq!(indexes[1][1], "UNIQUE");
        },
    );
}

#[test]
fn rollback_savepoints_and_read_consistency_between_sessions() {
    let dir = temp_dir("tx");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut a = instance.connect().unwrap();
    let mut b = instance.connect().unwrap();
    run(
        &mut a,
        "create table t (k number primary key, v varchar2(10))",
    );
    run(&mut a, "insert into t values (1, 'one')");
    // Not committed: b does not see it.
    assert_eq!(text_rows(&mut b, "select count(*) from t"), vec![vec!["0"]]);
    run(&mut a, "savepoint s1");
    run(&mut a, "insert into t values (2, 'two')");
    run(&mut a, "rollback to savepoint s1");
    run(&mut a, "commit");
    assert_eq!(
        text_rows(&mut b, "select k, v from t"),
        vec![vec!["1", "one"]]
    );
    run(&mut a, "update t set v = 'uno' where k = 1");
    assert_eq!(
        text_rows(&mut b, "select v from t where k = 1"),
        vec![vec!["one"]]
    );
    assert_eq!(
        text_rows(&mut a, "select v from t where k = 1"),
        vec![vec!["uno"]]
    );
    run(&mut a, "rollback");
    assert_eq!(
        text_rows(&mut a, "select v from t where k = 1"),
        vec![vec!["one"]]
    );
    drop((a, b));
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sequences_joins_and_functions() {
    across_a_restart(
        "seq",
        |_, mut session| {
            run(
                &mut session,
                "create sequence s start with 10 increment by 5 cache 3",
            );
            assert_eq!(
                text_rows(&mut session, "select s.nextval from dual"),
                vec![vec!["10"]]
            );
            assert_eq!(
                text_rows(&mut session, "select s.nextval from dual"),
                vec![vec!["15"]]
            );
            assert_eq!(
                text_rows(&mut session, "select s.currval from dual"),
                vec![vec!["15"]]
            );
            run(&mut session, "alter sequence s increment by 1");
            assert_eq!(
                text_rows(&mut session, "select s.nextval from dual"),
                vec![vec!["20"]]
            );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select sequence_name, increment_by from user_sequences"
                ),
                vec![vec!["S", "1"]]
            );
            run(
                &mut session,
                "create table d (id number primary key, name varchar2(10))",
            );
            run(
                &mut session,
                "create table e (id number primary key, d_id number, name varchar2(10))",
            );
            run(&mut session, "insert into d values (1, 'sales')");
            run(&mut session, "insert into d values (2, 'ops')");
            run(&mut session, "insert into e values (1, 1, 'ann')");
            run(&mut session, "insert into e values (2, 1, 'bob')");
            run(&mut session, "insert into e values (3, null, 'cy')");
            run(&mut session, "commit");
            assert_eq!(
                text_rows(
                    &mut session,
                    "select e.name, d.name from e, d where e.d_id = d.id order by e.name"
                ),
                vec![vec!["ann", "sales"], vec!["bob", "sales"]]
            );
            assert_eq!(
        text_rows(
            &mut session,
            "select e.name, nvl(d.name, '-') from e left join d on e.d_id = d.id order by 1"
        ),
        vec![vec!["ann", "sales"], vec!["bob", "sales"], vec!["cy", "-"]]
    );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select upper(name), length(name), substr(name, 2) from e where id = 1"
                ),
                vec![vec!["ANN", "3", "nn"]]
            );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select name from d where id in (select d_id from e)"
                ),
                vec![vec!["sales"]]
            );
        },
        // The sequence continues after its cached range on reopen: no number is given twice.
        |_, mut session, ()| {
            let next: i64 = text_rows(&mut session, "select s.nextval from dual")[0][0]
                .parse()
                .unwrap();
            assert!(next > 20, "sequence went back to {next}");
        },
    );
}

#[test]
fn fixed_views_are_queryable_with_sql() {
    let dir = temp_dir("views");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    let sid = session.sid().to_string();
    let before: i64 = text_rows(&mut session, "select m.value from v$mystat m, v$statname n where m.statistic# = n.statistic# and n.name = 'execute count'")[0][0].parse().unwrap();
    run(&mut session, "select 1 from dual");
    let after: i64 = text_rows(&mut session, "select m.value from v$mystat m, v$statname n where m.statistic# = n.statistic# and n.name = 'execute count'")[0][0].parse().unwrap();
    assert_eq!(
        after - before,
        2,
        "the select from dual and the query itself"
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select value from v$parameter where name = 'db_cache_size'"
        ),
        vec![vec![(8 << 20).to_string()]]
    );
    run(&mut session, "alter session set cursor_sharing = force");
    assert_eq!(
        text_rows(
            &mut session,
            "select value from v$parameter where name = 'cursor_sharing'"
        ),
        vec![vec!["FORCE"]]
    );
    assert_eq!(
        text_rows(
            &mut session,
            &format!("select count(*) from v$session where sid = {sid}")
        ),
        vec![vec!["1"]]
    );
    assert_eq!(
        error_code(&mut session, "alter session set no_such_parameter = 1"),
        2248
    );
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

fn my_statistic(session: &mut Session, name: &str) -> i64 {
    let sql = format!(
        "select m.value from v$mystat m, v$statname n \
         where m.statistic# = n.statistic# and n.name = '{name}'"
    );
    text_rows(session, &sql)[0][0].parse().unwrap()
}

/// Every COMMIT counts in 'user commits', as in Oracle, even one with nothing to commit or
/// after an UPDATE that matched no row; only ROLLBACK counts in 'user rollbacks'.
#[test]
fn commits_and_rollbacks_are_counted_as_what_they_are() {
    let dir = temp_dir("commit-counts");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "create table t (id number primary key)");
    let commits = my_statistic(&mut session, "user commits");
    let rollbacks = my_statistic(&mut session, "user rollbacks");
    run(&mut session, "update t set id = 2 where id = 1");
    run(&mut session, "commit");
    run(&mut session, "commit");
    run(&mut session, "insert into t values (1)");
    run(&mut session, "commit");
    assert_eq!(my_statistic(&mut session, "user commits"), commits + 3);
    run(&mut session, "insert into t values (2)");
    run(&mut session, "rollback");
    assert_eq!(my_statistic(&mut session, "user rollbacks"), rollbacks + 1);
    assert_eq!(my_statistic(&mut session, "user commits"), commits + 3);
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

/// ALTER SYSTEM on an immediate parameter reaches every session at its next call, except a
/// session that set its own value with ALTER SESSION.
#[test]
fn alter_system_reaches_other_sessions_unless_they_set_their_own() {
    let dir = temp_dir("alter-system");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut first = instance.connect().unwrap();
    let mut second = instance.connect().unwrap();
    let mut third = instance.connect().unwrap();
    let value = |session: &mut Session| {
        text_rows(
            session,
            "select value from v$parameter where name = 'cursor_sharing'",
        )[0][0]
            .clone()
    };
    assert_eq!(value(&mut second), "EXACT");
    run(&mut third, "alter session set cursor_sharing = exact");
    run(
        &mut first,
        "alter system set cursor_sharing = force scope = memory",
    );
    assert_eq!(value(&mut first), "FORCE");
    assert_eq!(value(&mut second), "FORCE");
    assert_eq!(value(&mut third), "EXACT");
    drop((first, second, third));
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each session is a dedicated server: `processes` bounds how many are live at once.
#[test]
fn sessions_beyond_processes_are_refused_until_one_ends() {
    let dir = temp_dir("processes");
    let mut parameters = SMALL.to_vec();
    parameters.push(("processes", "2"));
    let instance = Instance::open(&dir, &parameters).unwrap();
    let first = instance.connect().unwrap();
    let second = instance.connect().unwrap();
    match instance.connect() {
        Ok(_) => panic!("a third session was admitted with processes = 2"),
        Err(error) => assert_eq!(error.code(), 20, "{error}"),
    }
    drop(first);
    let mut third = instance.connect().unwrap();
    run(&mut third, "select 1 from dual");
    drop((second, third));
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Updating an indexed column leaves delete-marked entries behind; an insert that finds its
/// leaf full removes those no snapshot can need before splitting, so an index whose keys
/// move around within their range does not grow with the number of updates.
#[test]
fn delete_marked_index_entries_are_purged_instead_of_growing_the_index() {
    let dir = temp_dir("index-purge");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(
        &mut session,
        "create table t (id number primary key, v number)",
    );
    run(&mut session, "create index t_v on t (v)");
    for id in 0..300 {
        run(&mut session, &format!("insert into t values ({id}, {id})"));
    }
    run(&mut session, "commit");
    let blocks = |session: &mut Session| -> i64 {
        text_rows(
            session,
            "select blocks from dba_segments where segment_name = 'T_V'",
        )[0][0]
            .parse()
            .unwrap()
    };
    let initial = blocks(&mut session);
    for _ in 0..40 {
        run(&mut session, "update t set v = mod(v + 7, 300)");
        run(&mut session, "commit");
    }
    let after = blocks(&mut session);
    // 12,000 dead entries would need dozens of leaves; the live ones fit in a few.
    assert!(
        after <= initial * 4 + 8,
        "the index grew from {initial} to {after} blocks"
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select count(*) from t where v between 0 and 299"
        )[0][0],
        "300"
    );
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A query decodes only the columns it reads; every clause that reads a column must still
/// see it: WHERE, ORDER BY, GROUP BY, HAVING, aggregate arguments, join conditions.
#[test]
fn columns_read_only_by_one_clause_are_still_decoded() {
    let dir = temp_dir("column-mask");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(
        &mut session,
        "create table w (a number primary key, b varchar2(10), c number, d number, e number)",
    );
    run(
        &mut session,
        "create table z (k number primary key, label varchar2(10))",
    );
    for a in 1..=6 {
        run(
            &mut session,
            &format!(
                "insert into w values ({a}, 'b{a}', {}, {}, {})",
                a % 3,
                10 - a,
                a * 100
            ),
        );
    }
    run(&mut session, "insert into z values (0, 'zero')");
    run(&mut session, "insert into z values (1, 'one')");
    run(&mut session, "commit");
    assert_eq!(
        text_rows(&mut session, "select b from w where c = 1 order by d"),
        vec![vec!["b4".to_string()], vec!["b1".to_string()]]
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select c, count(*) from w group by c having max(e) > 400 order by c"
        ),
        vec![
            vec!["0".to_string(), "2".to_string()],
            vec!["2".to_string(), "2".to_string()]
        ]
    );
    assert_eq!(
        text_rows(&mut session, "select sum(e) from w where a between 2 and 4"),
        vec![vec!["900".to_string()]]
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select z.label from w join z on z.k = w.c where w.a = 4"
        ),
        vec![vec!["one".to_string()]]
    );
    assert_eq!(
        text_rows(&mut session, "select * from w where a = 2"),
        vec![vec![
            "2".to_string(),
            "b2".to_string(),
            "2".to_string(),
            "8".to_string(),
            "200".to_string()
        ]]
    );
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Row migration. The behaviour pinned: an UPDATE that made a row longer than its block's
/// free space failed with ORA-01467 ("row migration is not implemented"). Now the row moves
/// to another block and leaves a forwarding head at its ROWID: the primary key index still
/// finds it, a full scan returns it once, older statements and rollbacks see the old
/// version, it survives a restart, it moves again, comes home and is deleted, and reads
/// that follow the forward count 'table fetch continued row'.
mod migration {
    use super::*;

    fn run_with(session: &mut Session, sql: &str, binds: &[Value]) {
        session
            .execute_with(sql, binds)
            .unwrap_or_else(|error| panic!("{sql}: {error}"));
    }

    fn text(letter: char, length: usize) -> Value {
        Value::text(letter.to_string().repeat(length))
    }

    /// Row 10 by primary key (index -> ROWID -> head -> migrated piece): length and first letter.
    fn row_10(session: &mut Session) -> Vec<Vec<String>> {
        text_rows(
            session,
            "select length(pad), substr(pad, 1, 1) from t where id = 10",
        )
    }

    /// Rows whose pad starts with `letter`, by full scan (pad has no index).
    fn scanned_ids(session: &mut Session, letter: char) -> Vec<Vec<String>> {
        text_rows(
            session,
            &format!("select id from t where substr(pad, 1, 1) = '{letter}' order by id"),
        )
    }

    fn one(value: &str) -> Vec<Vec<String>> {
        vec![vec![value.to_string()]]
    }

    fn pair(length: &str, letter: &str) -> Vec<Vec<String>> {
        vec![vec![length.to_string(), letter.to_string()]]
    }

    #[test]
    fn an_update_that_outgrows_its_block_migrates_the_row_and_every_path_still_finds_it() {
        across_a_restart(
            "migration",
            |instance, mut a| {
                let mut b = instance.connect().unwrap();
                run(
                    &mut a,
                    "create table t (id number primary key, pad varchar2(4000))",
                );
                // 200 rows of about 110 bytes: the first 8 KiB block is full well before row 60.
                for id in 1..=200 {
                    run_with(
                        &mut a,
                        "insert into t values (:1, :2)",
                        &[Value::integer(id), text('x', 100)],
                    );
                }
                run(&mut a, "commit");

                // Row 10's block has a few hundred bytes free: 3000 bytes must migrate.
                let continued = my_statistic(&mut a, "table fetch continued row");
                run_with(
                    &mut a,
                    "update t set pad = :1 where id = 10",
                    &[text('y', 3000)],
                );
                assert_eq!(row_10(&mut a), pair("3000", "y"));
                assert!(my_statistic(&mut a, "table fetch continued row") > continued);
                assert_eq!(scanned_ids(&mut a, 'y'), one("10"));
                assert_eq!(text_rows(&mut a, "select count(*) from t"), one("200"));
                assert_eq!(
                    text_rows(&mut a, "select count(*) from t where length(pad) > 0"),
                    one("200")
                );
                // Another session's statements are older than the uncommitted change: undo.
                assert_eq!(row_10(&mut b), pair("100", "x"));
                assert_eq!(scanned_ids(&mut b, 'y'), Vec::<Vec<String>>::new());
                assert_eq!(text_rows(&mut b, "select count(*) from t"), one("200"));

                // Rollback puts the old version back.
                run(&mut a, "rollback");
                assert_eq!(row_10(&mut a), pair("100", "x"));
                assert_eq!(scanned_ids(&mut a, 'x').len(), 200);

                // Migrate and commit; then grow in place, move, come home, migrate again.
                for (letter, length) in [('y', 3000), ('z', 3900), ('w', 50), ('v', 3500)] {
                    run_with(
                        &mut a,
                        "update t set pad = :1 where id = 10",
                        &[text(letter, length)],
                    );
                    run(&mut a, "commit");
                    assert_eq!(
                        row_10(&mut b),
                        pair(&length.to_string(), &letter.to_string())
                    );
                    assert_eq!(scanned_ids(&mut b, letter), one("10"));
                    assert_eq!(text_rows(&mut b, "select count(*) from t"), one("200"));
                }

                // A savepoint: change the migrated row twice, delete it, roll back to the savepoint.
                run(&mut a, "savepoint s1");
                run_with(
                    &mut a,
                    "update t set pad = :1 where id = 10",
                    &[text('u', 3990)],
                );
                run_with(
                    &mut a,
                    "update t set pad = :1 where id = 10",
                    &[text('t', 200)],
                );
                run(&mut a, "delete from t where id = 10");
                assert_eq!(text_rows(&mut a, "select count(*) from t"), one("199"));
                assert_eq!(row_10(&mut a), Vec::<Vec<String>>::new());
                run(&mut a, "rollback to savepoint s1");
                assert_eq!(row_10(&mut a), pair("3500", "v"));
                assert_eq!(text_rows(&mut a, "select count(*) from t"), one("200"));

                // Delete the migrated row: rolled back, then committed; its key can come back.
                run(&mut a, "delete from t where id = 10");
                assert_eq!(row_10(&mut b), pair("3500", "v"));
                run(&mut a, "rollback");
                assert_eq!(row_10(&mut a), pair("3500", "v"));
                run(&mut a, "delete from t where id = 10");
                run(&mut a, "commit");
                assert_eq!(text_rows(&mut b, "select count(*) from t"), one("199"));
                run_with(&mut a, "insert into t values (10, :1)", &[text('x', 100)]);
                run(&mut a, "commit");
                assert_eq!(row_10(&mut b), pair("100", "x"));

                // Every row grows: most migrate, into blocks they share.
                run_with(&mut a, "update t set pad = :1", &[text('m', 1000)]);
                assert_eq!(
                    text_rows(&mut b, "select count(*), sum(length(pad)) from t"),
                    vec![vec!["200".to_string(), "20000".to_string()]]
                );
                assert_eq!(
                    text_rows(&mut a, "select count(*), sum(length(pad)) from t"),
                    vec![vec!["200".to_string(), "200000".to_string()]]
                );
                run(&mut a, "commit");
                for id in [1, 10, 59, 60, 61, 137, 200] {
                    assert_eq!(
                        text_rows(
                            &mut b,
                            &format!("select length(pad) from t where id = {id}")
                        ),
                        one("1000"),
                        "row {id}"
                    );
                }
            },
            // Forwarding heads and migrated pieces are on disk like any row.
            |_, mut session, ()| {
                let continued = my_statistic(&mut session, "table fetch continued row");
                assert_eq!(
                    text_rows(&mut session, "select count(*), sum(length(pad)) from t"),
                    vec![vec!["200".to_string(), "200000".to_string()]]
                );
                assert!(my_statistic(&mut session, "table fetch continued row") > continued);
                assert_eq!(row_10(&mut session), pair("1000", "m"));
                assert_eq!(scanned_ids(&mut session, 'm').len(), 200);
                run_with(
                    &mut session,
                    "update t set pad = :1 where id = 10",
                    &[text('k', 3999)],
                );
                run(&mut session, "commit");
                assert_eq!(row_10(&mut session), pair("3999", "k"));
            },
        );
    }

    /// CREATE INDEX reads every row's current version, through the forwards.
    #[test]
    fn an_index_created_over_migrated_rows_finds_them() {
        let dir = temp_dir("migration-index");
        let instance = Instance::open(&dir, SMALL).unwrap();
        let mut session = instance.connect().unwrap();
        run(
            &mut session,
            "create table t (id number primary key, n number, pad varchar2(4000))",
        );
        for id in 1..=100 {
            run_with(
                &mut session,
                "insert into t values (:1, :2, :3)",
                &[Value::integer(id), Value::integer(id % 7), text('x', 100)],
            );
        }
        run(&mut session, "commit");
        run_with(&mut session, "update t set pad = :1", &[text('m', 1000)]);
        run(&mut session, "commit");
        run(&mut session, "create index t_n on t (n)");
        assert_eq!(
            text_rows(
                &mut session,
                "select count(*), sum(length(pad)) from t where n = 3"
            ),
            vec![vec!["14".to_string(), "14000".to_string()]]
        );
        drop(session);
        drop(instance);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// An index range scan skips re-evaluating the conjuncts its key range came from only for a
/// row it can vouch for: a live entry and the row's current version committed by another
/// transaction. This pins every case where it must not: an entry whose row another session
/// has changed but not committed (the version comes from undo), a delete-marked entry left
/// by a committed key change, the reader's own uncommitted key change, and a probe value
/// that needs a conversion.
#[test]
fn an_index_range_vouches_only_for_live_entries_of_current_rows() {
    let dir = temp_dir("index-vouch");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut reader = instance.connect().unwrap();
    let mut writer = instance.connect().unwrap();
    run(
        &mut reader,
        "create table r (id number primary key, v number)",
    );
    for id in 1..=10 {
        run(&mut reader, &format!("insert into r values ({id}, {id})"));
    }
    run(&mut reader, "commit");
    let count = |session: &mut Session, low: i64, high: i64| -> i64 {
        let result = session
            .execute_with(
                "select count(*), nvl(sum(id), 0) from r where id between :1 and :2",
                &[Value::integer(low), Value::integer(high)],
            )
            .unwrap();
        let count: i64 = result.rows[0][0].to_string().parse().unwrap();
        let sum: i64 = result.rows[0][1].to_string().parse().unwrap();
        // Every row counted really lies in the range.
        assert!(
            sum >= count * low && sum <= count * high,
            "{count} rows summing to {sum}"
        );
        count
    };
    // Uncommitted key change by another session: the reader sees the old key through undo,
    // both by the old (still live) entry and not by the new one.
    run(&mut writer, "update r set id = id + 100 where id = 5");
    assert_eq!(count(&mut reader, 1, 10), 10);
    assert_eq!(count(&mut reader, 100, 110), 0);
    // Committed: the old entry is delete-marked, its row now has key 105.
    run(&mut writer, "commit");
    assert_eq!(count(&mut reader, 1, 10), 9);
    assert_eq!(count(&mut reader, 100, 110), 1);
    assert_eq!(count(&mut reader, 5, 5), 0);
    // The reader's own uncommitted change.
    run(&mut reader, "update r set id = 206 where id = 6");
    assert_eq!(count(&mut reader, 1, 10), 8);
    assert_eq!(count(&mut reader, 200, 210), 1);
    assert_eq!(count(&mut writer, 1, 10), 9);
    run(&mut reader, "rollback");
    assert_eq!(count(&mut reader, 1, 10), 9);
    assert_eq!(count(&mut reader, 200, 210), 0);
    // A text bind converts to NUMBER: the probe is not exact, the rows are checked.
    let result = reader
        .execute_with(
            "select count(*) from r where id between :1 and :2",
            &[Value::text("2"), Value::text("4")],
        )
        .unwrap();
    assert_eq!(result.rows[0][0].to_string(), "3");
    drop(reader);
    drop(writer);
    instance.shutdown().unwrap();
}

/// A session reuses a query's plan from one execution to the next. This pins when it must
/// not: after DDL (here by another session) the plan would read a dropped table's segment,
/// and a plan holding a subquery's rows would answer with the rows of its first execution.
#[test]
fn a_kept_plan_is_not_reused_after_ddl_or_when_it_holds_rows() {
    let dir = temp_dir("plan-reuse");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    let mut other = instance.connect().unwrap();
    run(
        &mut session,
        "create table p (id number primary key, v number)",
    );
    run(&mut session, "insert into p values (1, 10)");
    run(&mut session, "create table q (m number)");
    run(&mut session, "insert into q values (10)");
    run(&mut session, "commit");
    let by_id = session.prepare("select v from p where id = :1").unwrap();
    let value = |session: &mut Session| {
        let result = session
            .execute_prepared(&by_id, &[Value::integer(1)])
            .unwrap();
        result.rows.first().map(|row| row[0].to_string())
    };
    assert_eq!(value(&mut session).as_deref(), Some("10"));
    assert_eq!(value(&mut session).as_deref(), Some("10"));
    // The table is dropped and made again, with other rows, by another session.
    run(&mut other, "drop table p");
    run(
        &mut other,
        "create table p (id number primary key, v number)",
    );
    run(&mut other, "insert into p values (1, 20)");
    run(&mut other, "commit");
    assert_eq!(value(&mut session).as_deref(), Some("20"));
    // A subquery's result is part of the plan: it is planned at every execution.
    let sql = "select count(*) from p where v > (select max(m) from q)";
    assert_eq!(text_rows(&mut session, sql), vec![vec!["1".to_string()]]);
    run(&mut session, "insert into q values (30)");
    assert_eq!(text_rows(&mut session, sql), vec![vec!["0".to_string()]]);
    drop(session);
    drop(other);
    instance.shutdown().unwrap();
}

/// An UPDATE's and a DELETE's plan, and an INSERT's compiled VALUES, are kept in their
/// cursor, as a query's plan is (they were made again at every execution before). This pins when a kept one must not run: after
/// DDL on its table (a new index, the table dropped and made again by another session,
/// whose new segment the old plan does not know), and when the plan holds a subquery's rows,
/// which would change the rows of the first execution at every later one.
#[test]
fn a_kept_dml_plan_is_not_reused_after_ddl_or_when_it_holds_rows() {
    let dir = temp_dir("dml-plan-reuse");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    let mut other = instance.connect().unwrap();
    run(&mut session, "create table p (id number, v number)");
    for id in 1..=20 {
        run(
            &mut session,
            &format!("insert into p values ({id}, {id} * 10)"),
        );
    }
    run(&mut session, "create table q (m number)");
    run(&mut session, "insert into q values (150)");
    run(&mut session, "commit");
    analyze(&mut session);
    let update_text = "update p set v = v + :2 where id = :1";
    let update = session.prepare(update_text).unwrap();
    let add = |session: &mut Session, id: i64, amount: i64| {
        session
            .execute_prepared(&update, &[Value::integer(id), Value::integer(amount)])
            .unwrap()
            .rows_affected
    };
    let value = |session: &mut Session, id: i64| {
        text_rows(session, &format!("select v from p where id = {id}"))[0][0].clone()
    };
    let plan_of = |session: &mut Session| {
        let rows = text_rows(
            session,
            &format!(
                "select plan_hash_value from v$sql where sql_text = '{update_text}' \
                 and is_obsolete = 'N' and object_status = 'VALID'"
            ),
        );
        assert_eq!(rows.len(), 1, "one valid child: {rows:?}");
        rows[0][0].clone()
    };
    // Each execution's binds choose its row, through the one plan.
    assert_eq!(add(&mut session, 3, 1), 1);
    assert_eq!(add(&mut session, 4, 2), 1);
    assert_eq!(value(&mut session, 3), "31");
    assert_eq!(value(&mut session, 4), "42");
    let full_scan = plan_of(&mut session);
    assert_ne!(full_scan, "0", "an UPDATE's child shows its plan's hash");
    // A new index: the next execution plans again, and through the index.
    run(&mut session, "commit");
    run(&mut other, "create unique index p_id on p (id)");
    analyze(&mut other);
    assert_eq!(add(&mut session, 5, 3), 1);
    assert_eq!(value(&mut session, 5), "53");
    let by_index = plan_of(&mut session);
    assert_ne!(
        by_index, full_scan,
        "the plan was made again after CREATE INDEX"
    );
    // The table dropped and made again, with other rows, by another session.
    run(&mut session, "commit");
    run(&mut other, "drop table p");
    run(&mut other, "create table p (id number, v number)");
    run(&mut other, "insert into p values (5, 500)");
    run(&mut other, "commit");
    assert_eq!(add(&mut session, 5, 1), 1);
    assert_eq!(value(&mut session, 5), "501");
    // A subquery's result is part of the plan: it is planned at every execution.
    run(&mut session, "insert into p values (6, 600)");
    let delete = "delete from p where v > (select max(m) from q)";
    assert_eq!(changed_rows(&mut session, delete), 2);
    run(&mut session, "insert into p values (7, 140)");
    run(&mut session, "insert into p values (8, 120)");
    run(&mut session, "update q set m = 130");
    assert_eq!(changed_rows(&mut session, delete), 1);
    assert_eq!(
        text_rows(&mut session, "select id from p"),
        vec![vec!["8".to_string()]]
    );
    // An INSERT's VALUES are kept compiled, but not a scalar subquery's value in them.
    let insert = session
        .prepare("insert into p values (:id, (select max(m) from q))")
        .unwrap();
    session
        .execute_prepared(&insert, &[Value::integer(9)])
        .unwrap();
    run(&mut session, "update q set m = 140");
    session
        .execute_prepared(&insert, &[Value::integer(10)])
        .unwrap();
    assert_eq!(
        text_rows(
            &mut session,
            "select id, v from p where id >= 9 order by id"
        ),
        vec![
            vec!["9".to_string(), "130".to_string()],
            vec!["10".to_string(), "140".to_string()],
        ]
    );
    // After DDL the next execution counts the table's columns again: two values no longer
    // fill its three.
    run(&mut session, "commit");
    run(&mut other, "alter table p add (w number)");
    let error = session
        .execute_prepared(&insert, &[Value::integer(11)])
        .unwrap_err();
    assert_eq!(error.code(), 947, "{error}");
    drop(session);
    drop(other);
    instance.shutdown().unwrap();
}

fn analyze(session: &mut Session) {
    run(
        session,
        "begin dbms_stats.gather_table_stats(user, 'P'); end;",
    );
}

fn changed_rows(session: &mut Session, sql: &str) -> u64 {
    session.execute(sql).unwrap().rows_affected
}

/// A view is stored in the dictionary as its CREATE VIEW text and parsed again at open: it
/// survives a restart, replaced or not, and a dropped view stays dropped.
#[test]
fn views_survive_a_restart() {
    // Its own directory: `fixed_views_are_queryable_with_sql` runs beside it, and
    // `temp_dir` empties the directory it names.
    across_a_restart(
        "views-restart",
        |_, mut session| {
            run(
                &mut session,
                "create table t (id number primary key, v number)",
            );
            run(&mut session, "insert into t values (1, 10)");
            run(&mut session, "insert into t values (2, 20)");
            run(&mut session, "commit");
            run(
                &mut session,
                "create view big (ident) as select id from t where v > 15",
            );
            run(
                &mut session,
                "create view small as select id from t where v < 15",
            );
            run(
                &mut session,
                "create or replace view small as select id * 100 id from t where v < 15",
            );
            run(&mut session, "create view doomed as select 1 x from dual");
            run(&mut session, "drop view doomed");
        },
        |_, mut session, ()| {
            assert_eq!(
                text_rows(&mut session, "select ident from big"),
                vec![vec!["2".to_string()]]
            );
            assert_eq!(
                text_rows(&mut session, "select id from small"),
                vec![vec!["100".to_string()]]
            );
            assert_eq!(error_code(&mut session, "select * from doomed"), 942);
        },
    );
}

/// Sorts, hash group-bys, hash uniques and hash joins each count one optimal work-area
/// execution ('workarea executions - optimal'); a sort also counts 'sorts (memory)'.
#[test]
fn work_areas_are_counted() {
    let dir = temp_dir("work-areas");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "create table a (k number, v number)");
    run(&mut session, "create table b (k number, w number)");
    run(&mut session, "insert into a values (1, 10)");
    run(&mut session, "insert into b values (1, 20)");
    let optimal = |session: &mut Session| my_statistic(session, "workarea executions - optimal");
    let sorts = |session: &mut Session| my_statistic(session, "sorts (memory)");
    let (optimal_before, sorts_before) = (optimal(&mut session), sorts(&mut session));
    // A hash join, a hash group-by and a sort: three work areas.
    text_rows(
        &mut session,
        "select a.k, sum(w) from a, b where a.k = b.k group by a.k order by 1",
    );
    // The statistics query itself (a fixed view read with a filter) uses none.
    assert_eq!(optimal(&mut session) - optimal_before, 3);
    assert_eq!(sorts(&mut session) - sorts_before, 1);
    drop(session);
    instance.shutdown().unwrap();
}

/// ALTER TABLE rewrites the table's CREATE TABLE text in DICT$: after a restart the table
/// has the shape the last ALTER gave it (added, modified, renamed and dropped columns, a
/// new name, its CHECK constraints with their names), and its rows and index still work.
#[test]
fn altered_tables_survive_a_restart() {
    across_a_restart(
        "altered",
        |_, mut session| {
            run(
                &mut session,
                "create table t (id number primary key, gone number, v varchar2(5))",
            );
            run(&mut session, "insert into t values (1, 7, 'a')");
            run(&mut session, "insert into t values (2, 8, null)");
            run(&mut session, "commit");
            run(
                &mut session,
                "alter table t add (grade char(2) default 'B' not null, n number(3) check (n > 0))",
            );
            run(
                &mut session,
                "alter table t modify (v varchar2(20) default 'dflt')",
            );
            run(&mut session, "create index t_v on t (v)");
            run(&mut session, "alter table t rename column v to label");
            run(&mut session, "alter table t drop column gone");
            run(
                &mut session,
                "alter table t add constraint t_label check (label <> 'bad')",
            );
            run(&mut session, "rename t to t2");
            run(
                &mut session,
                "create table c as select id, label || '!' shout from t2",
            );
        },
        |_, mut session, ()| {
            assert_eq!(
                text_rows(
                    &mut session,
                    "select id, label, grade, n from t2 order by id"
                ),
                vec![
                    vec!["1".to_string(), "a".into(), "B ".into(), "".into()],
                    vec!["2".to_string(), "".into(), "B ".into(), "".into()],
                ]
            );
            assert_eq!(error_code(&mut session, "select gone from t2"), 904);
            // The index on the column after the dropped one was renumbered, on disk too.
            assert_eq!(
                text_rows(&mut session, "select id from t2 where label = 'a'"),
                vec![vec!["1".to_string()]]
            );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select column_name from user_ind_columns where index_name = 'T_V'"
                ),
                vec![vec!["LABEL".to_string()]]
            );
            assert_eq!(
                error_code(&mut session, "insert into t2 (id) values (1)"),
                1
            );
            assert_eq!(
                error_code(&mut session, "insert into t2 (id, label) values (3, 'bad')"),
                2290
            );
            assert_eq!(
                error_code(&mut session, "insert into t2 (id, n) values (3, 0)"),
                2290
            );
            run(&mut session, "insert into t2 (id) values (3)");
            assert_eq!(
                text_rows(&mut session, "select label, grade from t2 where id = 3"),
                vec![vec!["dflt".to_string(), "B ".into()]]
            );
            assert_eq!(
                text_rows(&mut session, "select shout from c order by id"),
                vec![vec!["a!".to_string()], vec!["!".to_string()]]
            );
        },
    );
}

/// Foreign keys live in the child's CREATE TABLE text in DICT$: after a restart they are
/// still enforced both ways, with their names, ON DELETE rule, and a parent's new name.
#[test]
fn foreign_keys_survive_a_restart() {
    across_a_restart(
        "foreign-keys",
        |_, mut session| {
            run(&mut session, "create table p (id number primary key)");
            run(
            &mut session,
            "create table c (id number, p_id number constraint c_p references p on delete cascade)",
        );
            run(&mut session, "insert into p values (1)");
            run(&mut session, "insert into p values (2)");
            run(&mut session, "insert into c values (10, 1)");
            run(&mut session, "insert into c values (20, 2)");
            run(&mut session, "commit");
            run(&mut session, "rename p to parent");
        },
        |_, mut session, ()| {
            assert_eq!(
                error_code(&mut session, "insert into c values (30, 3)"),
                2291
            );
            run(&mut session, "delete from parent where id = 1");
            assert_eq!(
                text_rows(&mut session, "select id from c"),
                vec![vec!["20".to_string()]]
            );
            assert_eq!(error_code(&mut session, "drop table parent"), 2449);
        },
    );
}

/// Comments are COMMENT rows of DICT$: after a restart they are back, following a column's
/// rename and gone with a dropped column or table.
#[test]
fn comments_survive_a_restart() {
    across_a_restart(
        "comments",
        |_, mut session| {
            run(
                &mut session,
                "create table t (a number, b number, c number)",
            );
            run(&mut session, "comment on table t is 'the table'");
            run(&mut session, "comment on column t.a is 'column a'");
            run(&mut session, "comment on column t.b is 'column b'");
            run(&mut session, "alter table t rename column a to first");
            run(&mut session, "alter table t drop column b");
            run(&mut session, "create table gone (x number)");
            run(&mut session, "comment on table gone is 'soon gone'");
            run(&mut session, "drop table gone");
        },
        |_, mut session, ()| {
            assert_eq!(
                text_rows(
                    &mut session,
                    "select comments from user_tab_comments where table_name = 'T'"
                ),
                vec![vec!["the table".to_string()]]
            );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select column_name, comments from user_col_comments \
             where comments is not null order by 1"
                ),
                vec![vec!["FIRST".to_string(), "column a".to_string()]]
            );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select count(*) from user_tab_comments where table_name = 'GONE'"
                ),
                vec![vec!["0".to_string()]]
            );
        },
    );
}

/// Optimizer statistics are STATS rows of DICT$. Gathering publishes a new dictionary
/// version (plans made before are made again); after a restart the statistics are back as
/// gathered, a renamed column's under its new name, and what DROP INDEX and DELETE
/// STATISTICS removed stays removed.
#[test]
fn statistics_survive_a_restart() {
    use pythia::catalog::statistics::IndexStatistics;

    let dir = temp_dir("statistics");
    let table_query = "select num_rows, blocks, avg_row_len, sample_size, \
         to_char(last_analyzed, 'YYYY-MM-DD HH24:MI:SS') from user_tables where table_name = 'T'";
    let column_query = "select column_name, num_distinct, num_nulls, low_value, high_value, \
         avg_col_len from user_tab_col_statistics order by table_name, column_name";
    let index_query = "select index_name, blevel, leaf_blocks, distinct_keys, clustering_factor, \
         num_rows from user_indexes order by index_name";
    let (tables, columns, indexes, index_statistics) =
        with_database(&dir, |instance, mut session| {
            run(
            &mut session,
            "create table t (id number primary key, grp number, name varchar2(10), gone number)",
        );
            for id in 1..=50 {
                let name = if id % 10 == 0 {
                    "null".to_string()
                } else {
                    format!("'n{}'", id % 4)
                };
                run(
                    &mut session,
                    &format!("insert into t values ({id}, {}, {name}, {id})", id % 5),
                );
            }
            run(&mut session, "commit");
            run(&mut session, "create index t_grp on t(grp)");
            run(&mut session, "create index t_name on t(name)");
            run(&mut session, "create table u (a number)");
            run(&mut session, "insert into u values (1)");
            run(&mut session, "commit");

            let version = instance.catalog().current();
            run(&mut session, "analyze table t compute statistics");
            assert!(!std::sync::Arc::ptr_eq(
                &version,
                &instance.catalog().current()
            ));
            run(
                &mut session,
                "begin dbms_stats.gather_table_stats('SYSTEM', 'U'); end;",
            );
            run(&mut session, "alter table t rename column grp to bucket");
            run(&mut session, "alter table t drop column gone");
            run(&mut session, "drop index t_name");
            run(&mut session, "analyze table u delete statistics");

            let dictionary = instance.catalog().current();
            let gathered = dictionary.table("T").unwrap().statistics.clone().unwrap();
            assert_eq!(gathered.num_rows, 50);
            assert_eq!(gathered.sample_size, 50);
            let bucket = &gathered.columns["BUCKET"];
            assert_eq!(
                (bucket.num_distinct, bucket.num_nulls),
                (5, 0),
                "{gathered:?}"
            );
            assert_eq!(bucket.low_value, Value::integer(0));
            assert_eq!(bucket.high_value, Value::integer(4));
            let name = &gathered.columns["NAME"];
            assert_eq!((name.num_distinct, name.num_nulls), (4, 5));
            assert!(!gathered.columns.contains_key("GRP"));
            assert!(!gathered.columns.contains_key("GONE"));
            assert_eq!(
                gathered.indexes.keys().collect::<Vec<_>>().len(),
                2,
                "the key's index and T_GRP: {gathered:?}"
            );
            let grp: &IndexStatistics = &gathered.indexes["T_GRP"];
            assert_eq!((grp.distinct_keys, grp.num_rows, grp.blevel), (5, 50, 0));
            assert!(dictionary.table("U").unwrap().statistics.is_none());
            let index_statistics = gathered.indexes.clone();

            let tables = text_rows(&mut session, table_query);
            let columns = text_rows(&mut session, column_query);
            let indexes = text_rows(&mut session, index_query);
            assert_eq!(tables[0][0], "50");
            assert_eq!(columns.len(), 3, "{columns:?}");
            (tables, columns, indexes, index_statistics)
        });
    with_database(&dir, |instance, mut session| {
        assert_eq!(text_rows(&mut session, table_query), tables);
        assert_eq!(text_rows(&mut session, column_query), columns);
        assert_eq!(text_rows(&mut session, index_query), indexes);
        let dictionary = instance.catalog().current();
        let gathered = dictionary.table("T").unwrap().statistics.clone().unwrap();
        assert_eq!(gathered.indexes, index_statistics);
        assert_eq!(gathered.columns["BUCKET"].num_distinct, 5);
        assert!(dictionary.table("U").unwrap().statistics.is_none());
        // Still maintained after the restart: DROP TABLE removes the STATS rows with it.
        run(&mut session, "drop table t");
        run(&mut session, "create table t (id number)");
        assert_eq!(
            text_rows(&mut session, table_query),
            vec![vec![String::new(); 5]]
        );
    });
    with_database(&dir, |instance, _| {
        assert!(instance
            .catalog()
            .current()
            .table("T")
            .unwrap()
            .statistics
            .is_none());
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// A DBMS_STATS call is a statement like any other: its arguments may be binds (by number
/// or by name), it counts as an execution, and its reading of the table is a full scan with
/// buffer gets, as a query's would be.
#[test]
fn statistics_calls_take_binds_and_count_as_work() {
    let dir = temp_dir("statistics-work");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "create table t (a number)");
    for a in 1..=20 {
        run(&mut session, &format!("insert into t values ({})", a % 3));
    }
    run(&mut session, "commit");
    let statistic = |session: &mut Session, name: &str| -> i64 {
        text_rows(
            session,
            &format!(
                "select m.value from v$mystat m, v$statname n \
                 where m.statistic# = n.statistic# and n.name = '{name}'"
            ),
        )[0][0]
            .parse()
            .unwrap()
    };
    let scans = statistic(&mut session, "table scans (short tables)");
    let gets = statistic(&mut session, "consistent gets");
    let executions = statistic(&mut session, "execute count");
    session
        .execute_with(
            "begin dbms_stats.gather_table_stats(:owner, tabname => :name); end;",
            &[Value::text("system"), Value::text("t")],
        )
        .unwrap();
    // The call, then the query reading the count: two executions (v$ views scan no table).
    assert_eq!(statistic(&mut session, "execute count"), executions + 2);
    assert_eq!(
        statistic(&mut session, "table scans (short tables)"),
        scans + 1
    );
    assert!(statistic(&mut session, "consistent gets") > gets);
    assert_eq!(
        text_rows(
            &mut session,
            "select num_rows, num_distinct from user_tables t, user_tab_col_statistics c \
             where t.table_name = c.table_name and c.column_name = 'A'"
        ),
        vec![vec!["20".to_string(), "3".to_string()]]
    );
    session
        .execute_with(
            "call dbms_stats.delete_table_stats(:1, :2)",
            &[Value::text("SYSTEM"), Value::text("T")],
        )
        .unwrap();
    assert_eq!(
        text_rows(&mut session, "select num_rows from user_tables"),
        vec![vec![String::new()]]
    );
    drop(session);
    instance.shutdown().unwrap();
}

/// Gathering commits its STATS rows durably before it returns (a DDL transaction whose
/// commit is waited for): a power loss after ANALYZE returned keeps them. A power loss
/// during a later gathering (at the sync of its commit) leaves either the old statistics or
/// the new ones whole, as for any unacknowledged commit: never the table's figures of one
/// and the columns' or the index's of the other. Several seeds, so that the simulated disk
/// both drops and keeps the unsynced commit.
#[test]
fn statistics_survive_a_power_loss_whole() {
    use pythia::instance::InstanceConfig;
    use pythia::io::vfs::{SimVfs, Vfs};
    use std::sync::Arc;

    let config = InstanceConfig {
        block_size: 2048,
        cache_bytes: 256 * 2048,
        log_buffer_bytes: 256 << 10,
        log_file_size: 1 << 20,
        log_groups: 3,
        undo_bytes: 4 << 20,
    };
    let figures = "select t.num_rows, i.num_rows, a.num_distinct, b.num_distinct \
         from user_tables t, user_indexes i, user_tab_col_statistics a, user_tab_col_statistics b \
         where i.table_name = t.table_name and a.table_name = t.table_name \
         and b.table_name = t.table_name and a.column_name = 'A' and b.column_name = 'B'";
    let strings = |row: [&str; 4]| -> Vec<Vec<String>> {
        vec![row.iter().map(|value| value.to_string()).collect()]
    };
    let old = strings(["40", "40", "40", "4"]);
    let new = strings(["60", "60", "60", "5"]);
    let mut outcomes = std::collections::BTreeSet::new();
    for seed in 1..=6 {
        let dir = std::path::Path::new("/db");
        let vfs = SimVfs::new(seed);
        vfs.create_dir_all(dir).unwrap();
        let instance = Instance::open_with(Arc::new(vfs.clone()), dir, config.clone()).unwrap();
        let mut session = instance.connect().unwrap();
        run(&mut session, "create table t (a number, b varchar2(10))");
        for a in 0..40 {
            run(
                &mut session,
                &format!("insert into t values ({a}, 'b{}')", a % 4),
            );
        }
        run(&mut session, "commit");
        run(&mut session, "create index t_a on t(a)");
        run(&mut session, "analyze table t compute statistics");
        assert_eq!(text_rows(&mut session, figures), old);
        for a in 40..60 {
            run(&mut session, &format!("insert into t values ({a}, 'c')"));
        }
        run(&mut session, "commit");
        vfs.crash_after_syncs(1);
        assert!(session
            .execute("analyze table t compute statistics")
            .is_err());
        drop(session);
        instance.abandon();
        drop(instance);
        let after = vfs.crash();
        let instance = Instance::open_with(Arc::new(after), dir, config.clone()).unwrap();
        let mut session = instance.connect().unwrap();
        let found = text_rows(&mut session, figures);
        assert!(found == old || found == new, "seed {seed}: {found:?}");
        outcomes.insert(found == new);
        drop(session);
        instance.shutdown().unwrap();
    }
    assert_eq!(outcomes.len(), 2, "both outcomes met: {outcomes:?}");
}

/// Gathering reads the table as a query does, as of its start: rows another session has
/// inserted and not committed are not counted, nor its uncommitted deletes applied; and
/// that session's transaction goes on undisturbed (gathering takes no lock).
#[test]
fn gathering_counts_only_committed_rows() {
    let dir = temp_dir("statistics-consistent");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut writer = instance.connect().unwrap();
    let mut analyst = instance.connect().unwrap();
    run(&mut writer, "create table t (a number)");
    for a in 0..10 {
        run(&mut writer, &format!("insert into t values ({a})"));
    }
    run(&mut writer, "commit");
    run(&mut writer, "insert into t values (100)");
    run(&mut writer, "insert into t values (101)");
    run(&mut writer, "delete from t where a < 3");
    run(&mut analyst, "analyze table t compute statistics");
    assert_eq!(
        text_rows(
            &mut analyst,
            "select t.num_rows, c.num_distinct, c.low_value, c.high_value \
             from user_tables t, user_tab_col_statistics c where t.table_name = c.table_name"
        ),
        vec![vec![
            "10".to_string(),
            "10".to_string(),
            "0".to_string(),
            "9".to_string()
        ]]
    );
    assert!(writer.in_transaction());
    run(&mut writer, "commit");
    run(&mut analyst, "analyze table t compute statistics");
    assert_eq!(
        text_rows(&mut analyst, "select num_rows from user_tables"),
        vec![vec!["9".to_string()]]
    );
    drop(writer);
    drop(analyst);
    instance.shutdown().unwrap();
}

/// Statistics keep the first 32 bytes of a text column's lowest and highest values, as
/// Oracle's RAW(32) does: the dictionary row that holds them then fits a block, whatever the
/// length of the values (long values made ANALYZE fail with ORA-01467 in 2048-byte blocks).
#[test]
fn statistics_keep_the_first_32_bytes_of_long_values() {
    let dir = temp_dir("statistics-long-values");
    let mut overrides = SMALL.to_vec();
    overrides.push(("db_block_size", "2048"));
    let instance = Instance::open(&dir, &overrides).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "create table t (a varchar2(2000))");
    run(&mut session, "insert into t values (rpad('a', 1500, 'a'))");
    // 'é' is two bytes, the 32nd and 33rd: the high value stops before it.
    run(
        &mut session,
        "insert into t values (rpad('b', 31, 'b') || 'é' || rpad('b', 1500, 'b'))",
    );
    run(&mut session, "commit");
    run(&mut session, "analyze table t compute statistics");
    assert_eq!(
        text_rows(
            &mut session,
            "select num_distinct, length(low_value), high_value from user_tab_col_statistics"
        ),
        vec![vec!["2".to_string(), "32".to_string(), "b".repeat(31)]]
    );
    drop(session);
    instance.shutdown().unwrap();
}

#[test]
fn a_descending_index_column_survives_a_reopen() {
    across_a_restart(
        "descending",
        |_, mut session| {
            run(&mut session, "alter session set optimizer_mode = rule");
            run(&mut session, "create table t (a number, b number)");
            run(&mut session, "create index t_ab on t (a desc, b)");
            for a in 0..20 {
                session
                    .execute_with(
                        "insert into t values (:1, :2)",
                        &[Value::integer(a % 4), Value::integer(a)],
                    )
                    .unwrap();
            }
            run(&mut session, "commit");
        },
        |_, mut session, ()| {
            run(&mut session, "alter session set optimizer_mode = rule");
            assert_eq!(
        text_rows(&mut session, "select descend from dba_ind_columns where index_name = 'T_AB' order by column_position"),
        vec![vec!["DESC"], vec!["ASC"]]
    );
            // Found through the index by its descending keys, and maintained by new rows.
            run(&mut session, "insert into t values (3, 100)");
            assert_eq!(
                text_rows(&mut session, "select count(*), sum(b) from t where a = 3"),
                vec![vec!["6", "155"]]
            );
        },
    );
}

#[test]
fn a_number_bound_against_an_indexed_text_column_reads_past_the_index() {
    let dir = temp_dir("textbind");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "alter session set optimizer_mode = rule");
    run(&mut session, "create table vc (c varchar2(5))");
    run(&mut session, "create index vc_c on vc (c)");
    for text in ["10", "7", "3", "010"] {
        session
            .execute_with("insert into vc values (:1)", &[Value::text(text)])
            .unwrap();
    }
    run(&mut session, "commit");
    // The plan takes the index for a bind; a number bound converts the column instead.
    let count = |session: &mut Session, sql: &str, bind: Value| {
        session.execute_with(sql, &[bind]).unwrap().rows[0][0].to_string()
    };
    assert_eq!(
        count(
            &mut session,
            "select count(*) from vc where c > :1",
            Value::integer(5)
        ),
        "3"
    );
    assert_eq!(
        count(
            &mut session,
            "select count(*) from vc where c = :1",
            Value::integer(10)
        ),
        "2"
    );
    assert_eq!(
        count(
            &mut session,
            "select count(*) from vc where c = :1",
            Value::text("10")
        ),
        "1"
    );
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_forced_text_with_its_system_binds_answers_as_the_literal_text() {
    use pythia::library_cache::cursor_sharing::force_literals;
    let dir = temp_dir("forced");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "create table t (a number, b varchar2(10))");
    for (a, b) in [(1, "x"), (2, "y"), (-3, "it's"), (4, "")] {
        session
            .execute_with(
                "insert into t values (:1, :2)",
                &[Value::integer(a), Value::text(b)],
            )
            .unwrap();
    }
    for sql in [
        "select a, b from t where b = 'x' or a > 1.5 order by 1",
        "select a * 2, b || '!' from t where a in (1, -3, 4) order by a desc",
        "select count(*), sum(a) from t where b like 'i%' or b is null",
        "select b from t where a = -3",
    ] {
        let forced = force_literals(sql).unwrap();
        let direct = text_rows(&mut session, sql);
        let bound: Vec<Vec<String>> = session
            .execute_with(&forced.text, &forced.binds)
            .unwrap()
            .rows
            .iter()
            .map(|row| row.iter().map(|value| value.to_string()).collect())
            .collect();
        assert_eq!(bound, direct, "{sql} as {}", forced.text);
    }
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn named_binds_take_positions_in_the_order_the_text_names_them() {
    let dir = temp_dir("namedbinds");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "create table t (a number, b varchar2(5))");
    run(&mut session, "insert into t values (1, 'x')");
    // The select list names :label first, though the WHERE clause is planned first.
    let result = session
        .execute_with(
            "select :label, b from t where a = :wanted and :label is not null",
            &[Value::text("L"), Value::integer(1)],
        )
        .unwrap();
    assert_eq!(result.rows[0][0].to_string(), "L");
    assert_eq!(result.rows[0][1].to_string(), "x");
    let updated = session
        .execute_with(
            "update t set b = :new where a = :key",
            &[Value::text("y"), Value::integer(1)],
        )
        .unwrap();
    assert_eq!(updated.rows_affected, 1);
    assert_eq!(text_rows(&mut session, "select b from t"), vec![vec!["y"]]);
    drop(session);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}
