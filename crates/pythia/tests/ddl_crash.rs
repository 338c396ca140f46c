//! DDL is all or nothing across a crash: every sync of a DDL statement is, in turn, the
//! moment of a crash (as `kill -9` keeps the files: every completed write; and as a power
//! loss keeps them: unsynced writes dropped, applied or torn), and after recovery the
//! statement's whole effect must be there, or none of it: the tables and indexes, their
//! constraints, their rows and index entries, and the space their segments hold. With the
//! redo log syncing every record (`RedoLog::set_sync_every_record`), every mini-transaction
//! of a statement is such a moment; an index build from 400 rows syncs often enough by
//! itself (log buffer writes, DBWR's writes).
//!
//! The bug this pins: `CREATE TABLE t (... PRIMARY KEY (...))` committed the table in one
//! DDL transaction and the key's index in a second one, so a crash between the two left `t`
//! without its primary key. The crash test's worker, killed 0-100 ms after it started while
//! it created its schema (`lab crash`, one run in several, seed 190256017 once), came back
//! to a `t` that existed, skipped it, and failed on `create table child (... references t)`
//! with ORA-02268 (referenced table does not have a primary key); a `child` or `counters`
//! left without its key failed the checker instead ("not read through an index"). ALTER
//! TABLE ... ADD PRIMARY KEY (the NOT NULL columns, then the index), DROP TABLE of a list
//! and with CASCADE CONSTRAINTS (the children's foreign keys, then each table) were several
//! commits too; TRUNCATE emptied the heap in a mini-transaction of its own before its
//! indexes were swapped in a transaction, so a crash between left index entries naming rows
//! that were gone. And a segment made by a DDL that did not commit, or freed by one that
//! did, was leaked by a crash at the wrong moment. Now a DDL statement is one transaction:
//! the segments it makes are freed by its rollback (an undo record), those it drops are
//! freed by its commit's own redo record.
//!
//! Crashing an index build at each of its syncs also found a bug under DDL: the write-ahead
//! rule let a block go to disk before the redo record of its last change (`RedoLog::
//! flush_record`), which left index branches naming blocks that were never formatted
//! (ORA-00600 at the next open) and an uncommitted DDL's dictionary row in place.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::config;
use pythia::instance::Instance;
use pythia::io::vfs::{SimVfs, Vfs};
use pythia::Session;

/// A statement's effect as a recovered database shows it.
#[derive(Debug, PartialEq)]
enum Effect {
    /// None of it.
    Absent,
    /// All of it.
    Whole,
    /// Some of it: what is there and what is not (always a failure).
    Partial(String),
}

/// One DDL statement under test: the schema and rows before it, and how to tell, on a
/// recovered database, whether its effect is there. The space is checked too, to the block:
/// the statements are chosen so that no segment that outlives them grows (DICT$ has room for
/// their rows), as a rolled-back insert leaves its segment grown.
struct Case {
    name: &'static str,
    setup: &'static [&'static str],
    statement: &'static str,
    /// Whether every redo record is synced as it is appended, so that every mini-transaction
    /// of the statement is a crash point of its own (`RedoLog::set_sync_every_record`).
    /// Without it, only the statement's commit and what fills the log buffer or makes DBWR
    /// write sync (plenty, for an index built from 400 rows).
    sync_every_record: bool,
    effect: fn(&Arc<Instance>, &mut Session) -> Effect,
}

/// Crashes are tried at up to this many syncs of one statement; a statement that still
/// syncs after that fails the test (it would mean a loop, or a test that no longer reaches
/// the end of its statement).
const SYNCS_MAX: u64 = 400;

fn execute(session: &mut Session, sql: &str) {
    session
        .execute(sql)
        .unwrap_or_else(|error| panic!("{sql}: {error}"));
}

fn count(session: &mut Session, sql: &str) -> i64 {
    let result = session
        .execute(sql)
        .unwrap_or_else(|error| panic!("{sql}: {error}"));
    result.rows[0][0].to_string().parse().unwrap()
}

/// Whether table `name` exists, through SQL.
fn table_exists(session: &mut Session, name: &str) -> bool {
    match session.execute(&format!("select count(*) from {name}")) {
        Ok(_) => true,
        Err(error) if error.code() == 942 => false,
        Err(error) => panic!("select from {name}: {error}"),
    }
}

/// The live entries of index `name`, or None when there is no such index; checks the tree.
fn index_entries(instance: &Instance, name: &str) -> Option<usize> {
    let dictionary = instance.catalog().current();
    let index = dictionary.index(name).ok()?;
    index.tree.check(instance.cache()).unwrap();
    Some(
        index
            .tree
            .range(instance.cache(), None, None)
            .map(|entry| entry.unwrap())
            .filter(|entry| !entry.deleted)
            .count(),
    )
}

/// The constraint types (P, U, C, R) of table `name`, sorted.
fn constraint_kinds(session: &mut Session, name: &str) -> String {
    let result = session
        .execute(&format!(
            "select constraint_type from user_constraints where table_name = '{name}' \
             order by constraint_type"
        ))
        .unwrap();
    result.rows.iter().map(|row| row[0].to_string()).collect()
}

fn describe(parts: &[(&str, bool)]) -> String {
    parts
        .iter()
        .map(|(what, there)| format!("{what}: {}", if *there { "there" } else { "missing" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Absent when every part is missing, Whole when every part is there.
fn all_or_nothing(parts: &[(&str, bool)]) -> Effect {
    if parts.iter().all(|(_, there)| *there) {
        Effect::Whole
    } else if parts.iter().all(|(_, there)| !*there) {
        Effect::Absent
    } else {
        Effect::Partial(describe(parts))
    }
}

const ROWS: &str = "insert into t (id, tag, payload) \
     select n, 'tag ' || mod(n, 37), rpad('p', 150, 'x') from generate_series(1, 400) as n";

/// Rows for a statement whose every mini-transaction is a crash point (two per row for an
/// index build: the entry's undo, then the entry).
const FEW_ROWS: &str = "insert into t (id, tag, payload) \
     select n, 'tag ' || mod(n, 37), rpad('p', 150, 'x') from generate_series(1, 60) as n";

fn create_table_with_keys(instance: &Arc<Instance>, session: &mut Session) -> Effect {
    let exists = table_exists(session, "t");
    let primary = index_entries(instance, "T_PK").is_some();
    let unique = index_entries(instance, "T_CODE_UK").is_some();
    let kinds = if exists {
        constraint_kinds(session, "T")
    } else {
        String::new()
    };
    let effect = all_or_nothing(&[
        ("table t", exists),
        ("primary key index", primary),
        ("unique key index", unique),
        ("check constraint", kinds.contains('C')),
        (
            "constraints P and U",
            kinds.contains('P') && kinds.contains('U'),
        ),
    ]);
    if effect == Effect::Whole {
        execute(session, "insert into t values (1, 'a', 'n')");
        let duplicate = session.execute("insert into t values (1, 'b', 'n')");
        assert_eq!(duplicate.err().map(|error| error.code()), Some(1));
        execute(session, "rollback");
    }
    effect
}

fn create_index_on_rows(instance: &Arc<Instance>, session: &mut Session) -> Effect {
    let rows = count(session, "select count(*) from t") as usize;
    assert_eq!(rows, 400, "t's rows, made before the statement");
    match index_entries(instance, "T_TAG") {
        None => Effect::Absent,
        Some(entries) if entries == rows => Effect::Whole,
        Some(entries) => Effect::Partial(format!("index t_tag has {entries} of {rows} rows")),
    }
}

fn drop_table_list(instance: &Arc<Instance>, session: &mut Session) -> Effect {
    let parent = table_exists(session, "t");
    let child = table_exists(session, "child");
    let parent_index = index_entries(instance, "T_PK").is_some();
    let child_index = index_entries(instance, "CHILD_PK").is_some();
    assert!(table_exists(session, "keeper"), "keeper is not dropped");
    let keeper_key = constraint_kinds(session, "KEEPER").contains('R');
    let effect = all_or_nothing(&[
        ("table t dropped", !parent),
        ("table child dropped", !child),
        ("t's index dropped", !parent_index),
        ("child's index dropped", !child_index),
        ("keeper's foreign key dropped", !keeper_key),
    ]);
    match effect {
        // The parts are "dropped": all there is the statement's whole effect.
        Effect::Whole => {
            assert_eq!(count(session, "select count(*) from keeper"), 3);
            Effect::Whole
        }
        Effect::Absent => {
            assert_eq!(count(session, "select count(*) from t"), 400);
            assert_eq!(count(session, "select count(*) from child"), 400);
            assert_eq!(index_entries(instance, "T_PK"), Some(400));
            Effect::Absent
        }
        partial => partial,
    }
}

fn add_primary_key(instance: &Arc<Instance>, session: &mut Session) -> Effect {
    let not_null = count(
        session,
        "select count(*) from user_tab_columns where table_name = 'T' and column_name = 'ID' \
         and nullable = 'N'",
    ) == 1;
    let constraint = constraint_kinds(session, "T").contains('P');
    let index = index_entries(instance, "T_PK");
    let effect = all_or_nothing(&[
        ("id NOT NULL", not_null),
        ("primary key constraint", constraint),
        ("its index", index.is_some()),
    ]);
    if effect == Effect::Whole && index != Some(60) {
        return Effect::Partial(format!("the key's index holds {index:?} of 60 rows"));
    }
    effect
}

fn truncate(instance: &Arc<Instance>, session: &mut Session) -> Effect {
    let rows = count(session, "select count(*) from t") as usize;
    let primary = index_entries(instance, "T_PK").unwrap();
    let tag = index_entries(instance, "T_TAG").unwrap();
    match (rows, primary, tag) {
        (0, 0, 0) => Effect::Whole,
        (400, 400, 400) => Effect::Absent,
        _ => Effect::Partial(format!(
            "t holds {rows} rows, t_pk {primary} entries, t_tag {tag}"
        )),
    }
}

const TABLE_T: &str = "create table t (id number, tag varchar2(20), payload varchar2(200), \
     constraint t_pk primary key (id))";

const CASES: &[Case] = &[
    Case {
        name: "CREATE TABLE with PRIMARY KEY, UNIQUE and CHECK",
        setup: &[],
        statement: "create table t (id number, code varchar2(10), note varchar2(20) \
                    check (note <> 'x'), constraint t_pk primary key (id), \
                    constraint t_code_uk unique (code))",
        sync_every_record: true,
        effect: create_table_with_keys,
    },
    Case {
        name: "CREATE INDEX on a table with rows",
        setup: &[TABLE_T, ROWS, "commit"],
        statement: "create index t_tag on t (tag, payload)",
        sync_every_record: false,
        effect: create_index_on_rows,
    },
    Case {
        name: "DROP TABLE of a list, CASCADE CONSTRAINTS",
        setup: &[
            TABLE_T,
            ROWS,
            "create table child (id number, part number, \
             constraint child_pk primary key (id, part), foreign key (id) references t)",
            "insert into child select id, 1 from t",
            "create table keeper (id number references t)",
            "insert into keeper values (1)",
            "insert into keeper values (2)",
            "insert into keeper values (3)",
            "commit",
        ],
        statement: "drop table t, child cascade constraints",
        sync_every_record: true,
        effect: drop_table_list,
    },
    Case {
        name: "ALTER TABLE ... ADD PRIMARY KEY on a table with rows",
        setup: &[
            "create table t (id number, tag varchar2(20), payload varchar2(200))",
            FEW_ROWS,
            "commit",
        ],
        statement: "alter table t add constraint t_pk primary key (id)",
        sync_every_record: true,
        effect: add_primary_key,
    },
    Case {
        name: "TRUNCATE of a table with indexes",
        setup: &[TABLE_T, ROWS, "create index t_tag on t (tag)", "commit"],
        statement: "truncate table t",
        sync_every_record: true,
        effect: truncate,
    },
];

/// Opens a new database on `vfs` and runs `case`'s setup, made durable by a checkpoint.
fn prepared(vfs: &SimVfs, case: &Case) -> (Arc<Instance>, Session) {
    let dir = Path::new("/db");
    vfs.create_dir_all(dir).unwrap();
    let instance = Instance::open_with(Arc::new(vfs.clone()), dir, config()).unwrap();
    let mut session = instance.connect().unwrap();
    for sql in case.setup {
        execute(&mut session, sql);
    }
    instance.checkpoint().unwrap();
    (instance, session)
}

/// The blocks the space bitmap holds allocated.
fn allocated(instance: &Instance) -> u64 {
    instance.space().allocated_blocks(instance.cache()).unwrap()
}

/// Runs `case` at every sync of its statement, in both crash modes.
fn crash_at_every_sync(case: &Case) {
    let dir = Path::new("/db");
    // The space before and after the statement, from a run without a crash.
    let (space_before, space_after) = {
        let vfs = SimVfs::new(1);
        let (instance, mut session) = prepared(&vfs, case);
        let before = allocated(&instance);
        execute(&mut session, case.statement);
        let after = allocated(&instance);
        assert_eq!((case.effect)(&instance, &mut session), Effect::Whole);
        drop(session);
        instance.shutdown().unwrap();
        (before, after)
    };
    // kill -9 once; a power loss twice, its unsynced writes dropped, applied or torn by two
    // generators.
    for (kill, seed_base) in [(true, 0), (false, 0), (false, 1_000)] {
        let mut crash_at = 1;
        loop {
            assert!(
                crash_at <= SYNCS_MAX,
                "{}: still syncing after {SYNCS_MAX} syncs",
                case.name
            );
            let vfs = SimVfs::new(seed_base + crash_at);
            let (instance, mut session) = prepared(&vfs, case);
            instance.log().set_sync_every_record(case.sync_every_record);
            vfs.crash_after_syncs(crash_at);
            let outcome = session.execute(case.statement);
            // A simulated crash makes the directory vanish for the dead file system.
            let crashed = !vfs.exists(dir);
            drop(session);
            instance.abandon();
            drop(instance);
            let after = if kill {
                vfs.crash_keep_all()
            } else {
                vfs.crash()
            };
            let context = format!(
                "{}: crash at sync {crash_at} of the statement ({})",
                case.name,
                if kill { "kill -9" } else { "power loss" }
            );
            if !crashed {
                assert!(outcome.is_ok(), "{context}: {:?}", outcome.err());
            }
            let reopened = Instance::open_with(Arc::new(after.clone()), dir, config())
                .unwrap_or_else(|error| panic!("{context}: reopen: {error}"));
            let mut session = reopened.connect().unwrap();
            let effect = (case.effect)(&reopened, &mut session);
            match &effect {
                Effect::Partial(what) => panic!("{context}: half a statement: {what}"),
                // A statement that returned is durable (its commit waited).
                Effect::Absent if outcome.is_ok() => {
                    panic!("{context}: the statement returned, and its effect is lost")
                }
                _ => {}
            }
            let expected_space = match effect {
                Effect::Whole => space_after,
                _ => space_before,
            };
            assert_eq!(
                allocated(&reopened),
                expected_space,
                "{context}: blocks allocated after recovery ({effect:?}); a leaked or lost segment"
            );
            if effect == Effect::Absent {
                // Nothing of it is left in the way: the statement runs again, whole.
                execute(&mut session, case.statement);
                assert_eq!(
                    (case.effect)(&reopened, &mut session),
                    Effect::Whole,
                    "{context}: the statement again"
                );
            }
            drop(session);
            reopened.shutdown().unwrap();
            drop(reopened);
            // Recovered once (and the statement run again if it was absent), it opens again
            // whole.
            let again = Instance::open_with(Arc::new(after), dir, config()).unwrap();
            let mut session = again.connect().unwrap();
            assert_eq!(
                (case.effect)(&again, &mut session),
                Effect::Whole,
                "{context}: opened again"
            );
            drop(session);
            again.shutdown().unwrap();
            if !crashed {
                // The statement's last sync was passed: every earlier one was a crash.
                assert!(crash_at > 1, "{context}: the statement never synced");
                break;
            }
            crash_at += 1;
        }
    }
}

#[test]
fn create_table_with_a_primary_key_is_all_or_nothing_at_every_sync() {
    crash_at_every_sync(&CASES[0]);
}

#[test]
fn create_index_on_a_table_with_rows_is_all_or_nothing_at_every_sync() {
    crash_at_every_sync(&CASES[1]);
}

#[test]
fn drop_table_of_a_list_is_all_or_nothing_at_every_sync() {
    crash_at_every_sync(&CASES[2]);
}

#[test]
fn alter_table_add_primary_key_is_all_or_nothing_at_every_sync() {
    crash_at_every_sync(&CASES[3]);
}

#[test]
fn truncate_is_all_or_nothing_at_every_sync() {
    crash_at_every_sync(&CASES[4]);
}

fn error_of(session: &mut Session, sql: &str) -> u32 {
    match session.execute(sql) {
        Ok(_) => panic!("{sql}: expected an error"),
        Err(error) => error.code(),
    }
}

/// The same without a crash: a DDL statement that fails part way leaves nothing of itself.
/// Its first parts were commits of their own: a primary key that failed on duplicates left
/// its table to a compensating DROP TABLE (and the key's segment allocated), ALTER TABLE
/// ... ADD PRIMARY KEY put the columns' NULLs back by a second ALTER, and DROP TABLE or
/// TRUNCATE of a list stopped at the first table it could not do, the ones before it done.
#[test]
fn a_failed_ddl_statement_leaves_nothing_of_itself() {
    let vfs = SimVfs::new(7);
    let dir = Path::new("/db");
    vfs.create_dir_all(dir).unwrap();
    let instance = Instance::open_with(Arc::new(vfs.clone()), dir, config()).unwrap();
    let mut session = instance.connect().unwrap();
    execute(
        &mut session,
        "create table t (id number, tag varchar2(20), payload varchar2(200))",
    );
    execute(&mut session, ROWS);
    execute(&mut session, "insert into t (id, tag) values (1, 'again')");
    execute(&mut session, "commit");
    let space = allocated(&instance);

    let primary = "create table u (constraint u_pk primary key (id)) as select id from t";
    assert_eq!(error_of(&mut session, primary), 2437);
    assert!(!table_exists(&mut session, "u"));
    assert_eq!(allocated(&instance), space, "{primary}");

    let add = "alter table t add constraint t_pk primary key (id)";
    assert_eq!(error_of(&mut session, add), 2437);
    let nullable = count(
        &mut session,
        "select count(*) from user_tab_columns where table_name = 'T' and column_name = 'ID' \
         and nullable = 'Y'",
    );
    assert_eq!(nullable, 1, "{add}: id is NOT NULL");
    assert!(index_entries(&instance, "T_PK").is_none());
    assert_eq!(allocated(&instance), space, "{add}");

    let unique = "create unique index t_id on t (id)";
    assert_eq!(error_of(&mut session, unique), 1452);
    assert!(index_entries(&instance, "T_ID").is_none());
    assert_eq!(allocated(&instance), space, "{unique}");

    // Lists: every table or none.
    execute(&mut session, "create table p (id number primary key)");
    execute(&mut session, "create table c (id number references p)");
    execute(&mut session, "insert into p values (1)");
    execute(&mut session, "commit");
    assert_eq!(error_of(&mut session, "truncate table t, p"), 2266);
    assert_eq!(count(&mut session, "select count(*) from t"), 401);
    assert_eq!(error_of(&mut session, "drop table t, p"), 2449);
    assert!(table_exists(&mut session, "t"));
    assert!(table_exists(&mut session, "p"));
    drop(session);
    instance.shutdown().unwrap();
}
