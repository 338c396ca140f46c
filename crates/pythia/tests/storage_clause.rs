//! Segments' buffer pools and tables' CACHE attribute through SQL (seed 001):
//! `STORAGE (BUFFER_POOL KEEP | RECYCLE | DEFAULT)` on CREATE / ALTER TABLE and INDEX,
//! `CACHE` / `NOCACHE` on CREATE / ALTER TABLE, what dba_segments, user_segments,
//! dba_tables and dba_indexes show of them, that they survive a restart and other DDL, that
//! changing them invalidates the cursors on the table, and that a bad STORAGE clause is an
//! ORA- error after which the session goes on.

use std::sync::Arc;

use pythia::library_cache::sql_id::SqlId;
use pythia::{Instance, Session, Value};

mod common;
use common::{error_code, run, temp_dir, text_rows, SMALL};

/// (segment, type, pool) of every segment, by name.
fn segments(session: &mut Session, view: &str) -> Vec<Vec<String>> {
    text_rows(
        session,
        &format!(
            "select segment_name, segment_type, buffer_pool from {view} \
             where segment_name not like 'SYS%' order by segment_name"
        ),
    )
}

/// (table, cache, pool) of every table, by name.
fn tables(session: &mut Session) -> Vec<Vec<String>> {
    text_rows(
        session,
        "select table_name, cache, buffer_pool from dba_tables order by table_name",
    )
}

/// (index, pool) of every index, by name; a key's index (SYS_C...) shows as its table's.
fn indexes(session: &mut Session) -> Vec<Vec<String>> {
    text_rows(
        session,
        "select case when index_name like 'SYS%' then table_name || '_PK' else index_name end, \
         buffer_pool from dba_indexes order by 1",
    )
}

fn strings(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| row.iter().map(|value| value.to_string()).collect())
        .collect()
}

#[test]
fn pools_and_cache_are_kept_shown_changed_and_survive_a_restart() {
    let dir = temp_dir("storage-clause");
    let altered_tables = strings(&[
        &["LOOKUP", "    N", "KEEP"],
        &["NEW_TABLE", "    N", "DEFAULT"],
        &["SCRATCH", "    Y", "RECYCLE"],
    ]);
    let altered_indexes = strings(&[&["LOOKUP_NAME", "KEEP"], &["LOOKUP_PK", "DEFAULT"]]);
    {
        let instance = Instance::open(&dir, SMALL).unwrap();
        let mut session = instance.connect().unwrap();
        // Seed 001's example, word for word.
        run(
            &mut session,
            "CREATE TABLE new_table (col1 NUMBER, col2 VARCHAR2(100)) TABLESPACE users \
             STORAGE (INITIAL 64K NEXT 128K BUFFER_POOL KEEP)",
        );
        run(
            &mut session,
            "create table lookup (id number primary key, name varchar2(10)) cache",
        );
        run(
            &mut session,
            "create index lookup_name on lookup (name) storage (buffer_pool recycle)",
        );
        run(
            &mut session,
            "create table scratch storage (buffer_pool recycle) nocache as select 1 a from dual",
        );
        for id in 1..=20 {
            run(
                &mut session,
                &format!("insert into lookup values ({id}, 'N{id}')"),
            );
        }
        run(&mut session, "commit");
        assert_eq!(
            tables(&mut session),
            strings(&[
                &["LOOKUP", "    Y", "DEFAULT"],
                &["NEW_TABLE", "    N", "KEEP"],
                &["SCRATCH", "    N", "RECYCLE"],
            ])
        );
        assert_eq!(
            indexes(&mut session),
            strings(&[&["LOOKUP_NAME", "RECYCLE"], &["LOOKUP_PK", "DEFAULT"]])
        );
        let expected = strings(&[
            &["LOOKUP", "TABLE", "DEFAULT"],
            &["LOOKUP_NAME", "INDEX", "RECYCLE"],
            &["NEW_TABLE", "TABLE", "KEEP"],
            &["SCRATCH", "TABLE", "RECYCLE"],
        ]);
        assert_eq!(segments(&mut session, "dba_segments"), expected);
        assert_eq!(segments(&mut session, "user_segments"), expected);
        // The key's index is a segment of its own, in DEFAULT whatever its table's pool.
        assert_eq!(
            text_rows(
                &mut session,
                "select count(*) from dba_segments where segment_type = 'INDEX' \
                 and segment_name like 'SYS_C%' and buffer_pool = 'DEFAULT'"
            ),
            vec![vec!["1"]]
        );

        run(
            &mut session,
            "alter table new_table storage (buffer_pool default)",
        );
        run(
            &mut session,
            "alter table lookup nocache storage (buffer_pool keep)",
        );
        run(&mut session, "alter table scratch cache");
        run(
            &mut session,
            "alter index lookup_name storage (next 1m buffer_pool keep)",
        );
        // Physical attributes that are not kept change nothing and are no error.
        run(&mut session, "alter table scratch pctfree 20");
        run(
            &mut session,
            "alter index lookup_name storage (maxextents unlimited)",
        );

        // Bad clauses: ORA- errors, and the session and the dictionary go on unchanged.
        let bad: &[(&str, u32)] = &[
            ("alter table lookup storage (buffer_pool hot)", 922),
            ("alter table lookup storage (colour red)", 2143),
            ("alter table lookup storage ()", 2143),
            ("create table t2 (a number) storage (initial)", 922),
            ("create index i2 on lookup (name, id) storage (keep)", 2143),
            ("alter index lookup_name storage (buffer_pool)", 922),
            ("alter index no_such_index storage (buffer_pool keep)", 1418),
            ("alter table no_such_table cache", 942),
            ("alter table lookup cache please", 933),
            (
                "alter index lookup_name rebuild storage (buffer_pool recycle)",
                3001,
            ),
        ];
        for (sql, code) in bad {
            assert_eq!(error_code(&mut session, sql), *code, "{sql}");
        }
        assert_eq!(
            text_rows(
                &mut session,
                "select count(*), max(name) from lookup where id > 0"
            ),
            vec![vec!["20", "N9"]]
        );
        assert_eq!(
            text_rows(
                &mut session,
                "select count(*) from dba_objects where object_name in ('T2', 'I2')"
            ),
            vec![vec!["0"]]
        );

        // Other DDL keeps the pools and the flag.
        run(&mut session, "alter table lookup add (note varchar2(5))");
        run(&mut session, "truncate table scratch");
        assert_eq!(tables(&mut session), altered_tables);
        assert_eq!(indexes(&mut session), altered_indexes);
        drop(session);
        instance.shutdown().unwrap();
    }
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    assert_eq!(tables(&mut session), altered_tables);
    assert_eq!(indexes(&mut session), altered_indexes);
    assert_eq!(
        segments(&mut session, "dba_segments"),
        strings(&[
            &["LOOKUP", "TABLE", "KEEP"],
            &["LOOKUP_NAME", "INDEX", "KEEP"],
            &["NEW_TABLE", "TABLE", "DEFAULT"],
            &["SCRATCH", "TABLE", "RECYCLE"],
        ])
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select count(*) from lookup where name = 'N7'"
        ),
        vec![vec!["1"]]
    );
}

/// The invalidations of the one child cursor of `sql` in v$sql.
fn invalidations(observer: &mut Session, sql: &str) -> String {
    let found = observer
        .execute_with(
            "select invalidations from v$sql where sql_id = :1",
            &[Value::text(SqlId::of(sql).to_string())],
        )
        .unwrap()
        .rows;
    assert_eq!(found.len(), 1, "{sql}: {found:?}");
    found[0][0].to_string()
}

#[test]
fn changing_a_pool_or_the_cache_flag_invalidates_the_tables_cursors() {
    let instance: Arc<Instance> = Instance::open(temp_dir("storage-invalidate"), SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    let mut observer = instance.connect().unwrap();
    run(&mut session, "create table t (id number)");
    run(&mut session, "create index t_id on t (id)");
    run(&mut session, "create table u (id number)");
    let on_t = "select count(*) from t where id > 0";
    let on_u = "select count(*) from u";
    run(&mut session, on_t);
    run(&mut session, on_u);
    let mut expected = 0;
    for ddl in [
        "alter table t storage (buffer_pool keep)",
        "alter table t cache",
        "alter index t_id storage (buffer_pool recycle)",
    ] {
        run(&mut session, ddl);
        expected += 1;
        run(&mut session, on_t);
        assert_eq!(
            invalidations(&mut observer, on_t),
            expected.to_string(),
            "{ddl}"
        );
    }
    assert_eq!(invalidations(&mut observer, on_u), "0");
}
