//! Users and privileges in the engine: CREATE / ALTER / DROP USER, GRANT and REVOKE through
//! SQL, the views that show them, what survives a restart, who may log on
//! (`Instance::logon`), and where a password must never be found: not in DICT$, not in any
//! file of the database, not in the library cache.

use std::sync::Arc;

use pythia::scram::{client_proof, salted_password};
use pythia::{Instance, Session};

mod common;
use common::{error_code, run, temp_dir, text_rows, SMALL};

fn open(name: &str) -> (Arc<Instance>, Session) {
    let instance = Instance::open_with_password(temp_dir(name), SMALL, None).unwrap();
    let session = instance.connect().unwrap();
    (instance, session)
}

/// Whether `password` logs `user` on: a SCRAM proof made from it checks against the
/// verifier the dictionary keeps.
fn password_works(instance: &Instance, user: &str, password: &str) -> bool {
    let Some(verifier) = instance.account(user).and_then(|account| account.verifier) else {
        return false;
    };
    let auth_message = b"n=,r=abc,r=abcdef,s=c2FsdA==,i=4096,c=biws,r=abcdef";
    let salted = salted_password(password, &verifier.salt, verifier.iterations);
    verifier.verify_proof(auth_message, &client_proof(&salted, auth_message))
}

#[test]
fn users_and_grants_are_kept_in_the_dictionary_and_shown_by_the_views() {
    let (instance, mut session) = open("users-ddl");
    run(
        &mut session,
        "create table emp (id number primary key, name varchar2(20))",
    );
    run(&mut session, "create user scott identified by Tiger");
    run(
        &mut session,
        "create user app no authentication account lock",
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select username, account_status, authentication_type, \
             nvl2(lock_date, 'locked', 'open') from dba_users order by username"
        ),
        [
            ["APP", "LOCKED", "NONE", "locked"],
            ["SCOTT", "OPEN", "PASSWORD", "open"],
            ["SYSTEM", "OPEN", "NONE", "open"],
        ]
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select user_id from dba_users where username = 'SYSTEM'"
        ),
        [["5"]]
    );
    run(&mut session, "grant create session to scott");
    run(&mut session, "grant select, insert on emp to scott, app");
    run(&mut session, "grant all on emp to scott");
    assert_eq!(
        text_rows(
            &mut session,
            "select grantee, privilege, admin_option from dba_sys_privs"
        ),
        [["SCOTT", "CREATE SESSION", "NO"]]
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select grantee, owner, table_name, grantor, privilege from dba_tab_privs \
             order by grantee, privilege"
        ),
        [
            ["APP", "SYSTEM", "EMP", "SYSTEM", "INSERT"],
            ["APP", "SYSTEM", "EMP", "SYSTEM", "SELECT"],
            ["SCOTT", "SYSTEM", "EMP", "SYSTEM", "DELETE"],
            ["SCOTT", "SYSTEM", "EMP", "SYSTEM", "INSERT"],
            ["SCOTT", "SYSTEM", "EMP", "SYSTEM", "SELECT"],
            ["SCOTT", "SYSTEM", "EMP", "SYSTEM", "UPDATE"],
        ]
    );
    run(&mut session, "revoke insert, delete on emp from scott");
    run(&mut session, "rename emp to employees");
    assert_eq!(
        text_rows(
            &mut session,
            "select table_name, privilege from dba_tab_privs where grantee = 'SCOTT' \
             order by privilege"
        ),
        [["EMPLOYEES", "SELECT"], ["EMPLOYEES", "UPDATE"]]
    );
    // Oracle's errors.
    assert_eq!(
        error_code(&mut session, "create user scott identified by x"),
        1920
    );
    assert_eq!(
        error_code(&mut session, "alter user nobody account lock"),
        1918
    );
    assert_eq!(error_code(&mut session, "drop user nobody"), 1918);
    assert_eq!(
        error_code(&mut session, "grant create session to nobody"),
        1917
    );
    assert_eq!(
        error_code(&mut session, "revoke create session from app"),
        1952
    );
    assert_eq!(
        error_code(&mut session, "revoke delete on employees from app"),
        1927
    );
    assert_eq!(
        error_code(&mut session, "grant select on nothing to app"),
        942
    );
    assert_eq!(
        error_code(&mut session, "grant create session to system"),
        1749
    );
    assert_eq!(error_code(&mut session, "drop user system"), 28014);
    // A failed GRANT to several users changes none of them.
    assert_eq!(
        error_code(&mut session, "grant create session to app, nobody"),
        1917
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select count(*) from dba_sys_privs where grantee = 'APP'"
        ),
        [["0"]]
    );
    // Everything is still there after a restart.
    drop(session);
    instance.shutdown().unwrap();
    let dir = instance.directory().to_path_buf();
    drop(instance);
    let instance = Instance::open_with_password(&dir, SMALL, None).unwrap();
    let mut session = instance.connect().unwrap();
    assert_eq!(
        text_rows(&mut session, "select username from dba_users order by 1"),
        [["APP"], ["SCOTT"], ["SYSTEM"]]
    );
    assert_eq!(
        text_rows(&mut session, "select count(*) from dba_tab_privs"),
        [["4"]]
    );
    assert!(password_works(&instance, "scott", "Tiger"));
    // DROP TABLE takes its grants, DROP USER its user's.
    run(&mut session, "drop table employees");
    assert_eq!(
        text_rows(&mut session, "select count(*) from dba_tab_privs"),
        [["0"]]
    );
    run(&mut session, "drop user scott cascade");
    assert_eq!(
        text_rows(&mut session, "select username from all_users order by 1"),
        [["APP"], ["SYSTEM"]]
    );
    assert_eq!(
        text_rows(&mut session, "select count(*) from dba_sys_privs"),
        [["0"]]
    );
    assert!(instance.account("scott").is_none());
}

#[test]
fn logon_checks_the_account_and_create_session() {
    let (instance, mut session) = open("users-logon");
    run(&mut session, "create user scott identified by tiger");
    let code = |user: &str| instance.logon(user, "test").err().map(|error| error.code());
    assert_eq!(code("nobody"), Some(1017));
    assert_eq!(code("scott"), Some(1045), "no CREATE SESSION yet");
    run(&mut session, "grant create session to scott");
    run(&mut session, "alter user scott account lock");
    assert_eq!(code("scott"), Some(28000));
    run(&mut session, "alter user scott account unlock");
    let mut scott = instance.logon("scott", "test").unwrap();
    assert_eq!(scott.user(), "SCOTT");
    assert_eq!(text_rows(&mut scott, "select user from dual"), [["SCOTT"]]);
    assert_eq!(
        text_rows(
            &mut scott,
            "select username from v$session where sid = (select sid from v$mystat where rownum = 1)"
        ),
        [["SCOTT"]]
    );
    // The embedded API's session is SYSTEM's.
    assert_eq!(
        text_rows(&mut session, "select user from dual"),
        [["SYSTEM"]]
    );
    // Only SYSTEM administers users; anyone changes their own password.
    assert_eq!(
        error_code(&mut scott, "create user eve identified by x"),
        1031
    );
    assert_eq!(
        error_code(&mut scott, "alter user system identified by x"),
        1031
    );
    assert_eq!(
        error_code(&mut scott, "alter user scott account unlock"),
        1031
    );
    assert_eq!(
        error_code(&mut scott, "grant create session to scott"),
        1031
    );
    assert_eq!(error_code(&mut scott, "drop user scott"), 1031);
    run(&mut scott, "alter user scott identified by lion");
    assert!(password_works(&instance, "SCOTT", "lion"));
    assert!(!password_works(&instance, "SCOTT", "tiger"));
    // A user with a session cannot be dropped.
    assert_eq!(error_code(&mut session, "drop user scott"), 1940);
    drop(scott);
    run(&mut session, "drop user scott");
    // Every failure was written to the alert log, none of them with a password.
    let alert = std::fs::read_to_string(instance.directory().join("alert.log")).unwrap();
    let failed: Vec<&str> = alert
        .lines()
        .filter(|line| line.contains("Logon failed"))
        .collect();
    assert_eq!(failed.len(), 3, "{failed:?}");
    assert!(
        failed[0].contains("user \"nobody\" from test: ORA-01017"),
        "{}",
        failed[0]
    );
    assert!(
        failed[2].contains("ORA-28000: the account is locked"),
        "{}",
        failed[2]
    );
    assert_eq!(instance.failed_logons(), 3);
}

/// The bug this pins, before it could happen: a password written in CREATE or ALTER USER
/// reaching the library cache (v$sql), DICT$, the redo log or any datafile.
#[test]
fn a_password_is_kept_nowhere() {
    let (instance, mut session) = open("users-nowhere");
    const PASSWORD: &str = "Xyzzy_Plugh_7331";
    run(
        &mut session,
        &format!("create user scott identified by {PASSWORD}"),
    );
    run(
        &mut session,
        &format!("alter user scott identified by \"{PASSWORD}2\" account unlock"),
    );
    // Twice, with another password: the same cursor, its text without either.
    run(
        &mut session,
        "alter user scott identified by Other1 account unlock",
    );
    assert_eq!(
        text_rows(
            &mut session,
            "select sql_text, executions from v$sql where lower(sql_text) like 'alter user%'"
        ),
        [[
            "alter user scott identified by :password account unlock",
            "2"
        ]]
    );
    let texts = text_rows(&mut session, "select sql_text from v$sql");
    assert!(
        !texts.iter().flatten().any(|text| text.contains("Xyzzy")),
        "{texts:?}"
    );
    let verifier = instance
        .account("SCOTT")
        .unwrap()
        .verifier
        .unwrap()
        .to_string();
    assert!(verifier.starts_with("SCRAM-SHA-256$4096:"), "{verifier}");
    assert!(!verifier.contains("Other1"));
    assert!(password_works(&instance, "SCOTT", "Other1"));
    // A prepared statement hides it too.
    let prepared = session
        .prepare(&format!("alter user scott identified by {PASSWORD}3"))
        .unwrap();
    assert!(!format!("{prepared:?}").contains("Xyzzy"));
    session.execute_prepared(&prepared, &[]).unwrap();
    assert!(password_works(&instance, "SCOTT", &format!("{PASSWORD}3")));
    drop(session);
    instance.shutdown().unwrap();
    let dir = instance.directory().to_path_buf();
    drop(instance);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.windows(5).any(|window| window == b"Xyzzy"),
            "{} holds the password",
            path.display()
        );
    }
}

#[test]
fn system_gets_its_password_when_the_database_is_created() {
    let dir = temp_dir("users-system");
    let instance = Instance::open_with_password(&dir, SMALL, Some("manager")).unwrap();
    assert!(password_works(&instance, "system", "manager"));
    assert!(!password_works(&instance, "system", "Manager"));
    instance.shutdown().unwrap();
    drop(instance);
    // An existing database keeps its password: only a creation takes one.
    let instance = Instance::open_with_password(&dir, SMALL, Some("other")).unwrap();
    assert!(password_works(&instance, "SYSTEM", "manager"));
    assert!(!password_works(&instance, "SYSTEM", "other"));
    let mut session = instance.logon("system", "test").unwrap();
    assert_eq!(
        text_rows(&mut session, "select user from dual"),
        [["SYSTEM"]]
    );
    // Without a password, SYSTEM has no verifier: no password logs it on.
    let (instance, _session) = open("users-system-none");
    assert!(instance.account("SYSTEM").unwrap().verifier.is_none());
    assert!(!password_works(&instance, "SYSTEM", ""));
}

#[test]
fn failed_logons_in_the_alert_log_are_bounded() {
    let (instance, _session) = open("users-alert");
    for _ in 0..100 {
        assert!(instance
            .logon("nobody\nforged line", "127.0.0.1:5")
            .is_err());
    }
    assert_eq!(instance.failed_logons(), 100);
    let alert = std::fs::read_to_string(instance.directory().join("alert.log")).unwrap();
    let lines: Vec<&str> = alert
        .lines()
        .filter(|line| line.contains("Logon failed"))
        .collect();
    assert_eq!(
        lines.len(),
        pythia::instance::logon::FAILED_LOGON_ALERTS_PER_MINUTE as usize
    );
    assert!(
        lines[0].contains(r#"user "nobody\nforged line" from 127.0.0.1:5"#),
        "{}",
        lines[0]
    );
    assert!(!alert.lines().any(|line| line.starts_with("forged line")));
}

/// Table privileges are checked at every execution, through the cursors every user shares:
/// SELECT for what a statement reads, anywhere in it, INSERT / UPDATE / DELETE for a DML
/// statement's table, on a table or a view; a REVOKE acts on the next execution; DDL and the
/// supplied packages are SYSTEM's; a WITH clause's name is not a table; what the dictionary
/// does not hold (DUAL, v$ views) is everyone's to read.
#[test]
fn table_privileges_are_checked_at_every_execution() {
    let (instance, mut system) = open("users-privileges");
    run(
        &mut system,
        "create table emp (id number primary key, salary number)",
    );
    run(&mut system, "create table secret (id number)");
    run(&mut system, "insert into emp values (1, 100)");
    run(&mut system, "insert into secret values (7)");
    run(&mut system, "create view emp_ids as select id from emp");
    run(&mut system, "commit");
    run(&mut system, "create user scott identified by tiger");
    run(&mut system, "grant create session to scott");
    let mut scott = instance.logon("scott", "test").unwrap();

    // Nothing granted: every use of emp is refused, the session goes on.
    assert_eq!(error_code(&mut scott, "select * from emp"), 1031);
    assert_eq!(
        error_code(&mut scott, "insert into emp values (2, 1)"),
        1031
    );
    assert_eq!(
        text_rows(&mut scott, "select 'still here' from dual"),
        [["still here"]]
    );
    // SYSTEM runs the same text: the shared cursor is checked for each user.
    assert_eq!(text_rows(&mut system, "select * from emp"), [["1", "100"]]);

    run(&mut system, "grant select on emp to scott");
    assert_eq!(text_rows(&mut scott, "select * from emp"), [["1", "100"]]);
    // Reading a table it may not read, in a subquery, a join or a WITH clause's query.
    for refused in [
        "select * from emp where id in (select id from secret)",
        "select e.id from emp e join secret s on s.id = e.id",
        "with s as (select id from secret) select * from s",
        "select * from emp where exists (with emp as (select 1 x from dual) select * from secret)",
        "insert into emp select id, 0 from secret",
        "explain plan for select * from secret",
    ] {
        assert_eq!(error_code(&mut scott, refused), 1031, "{refused}");
    }
    // A WITH clause's name is no table, even named as one.
    assert_eq!(
        text_rows(
            &mut scott,
            "with secret as (select id from emp) select * from secret"
        ),
        [["1"]]
    );
    // DML needs its own privilege on its table.
    assert_eq!(error_code(&mut scott, "update emp set salary = 0"), 1031);
    assert_eq!(error_code(&mut scott, "delete from emp"), 1031);
    run(&mut system, "grant insert, update on emp to scott");
    run(&mut scott, "insert into emp values (2, 200)");
    run(
        &mut scott,
        "update emp set salary = salary + 1 where id = 2",
    );
    assert_eq!(error_code(&mut scott, "delete from emp where id = 2"), 1031);
    run(&mut scott, "commit");
    assert_eq!(
        text_rows(&mut system, "select salary from emp where id = 2"),
        [["201"]]
    );

    // DESCRIBE shows what the user holds a privilege on; the rest does not exist for it.
    assert_eq!(
        scott
            .describe("emp")
            .unwrap()
            .iter()
            .map(|column| column.name.as_str())
            .collect::<Vec<_>>(),
        ["ID", "SALARY"]
    );
    assert_eq!(scott.describe("secret").unwrap_err().code(), 4043);
    assert_eq!(system.describe("secret").unwrap().len(), 1);

    // A view is granted on its own; its tables are its owner's business.
    assert_eq!(error_code(&mut scott, "select * from emp_ids"), 1031);
    run(&mut system, "grant select on emp_ids to scott");
    run(&mut system, "revoke select on emp from scott");
    assert_eq!(
        text_rows(&mut scott, "select id from emp_ids order by id"),
        [["1"], ["2"]]
    );
    // The revoke acts on the next execution of a cursor scott has run before.
    assert_eq!(error_code(&mut scott, "select * from emp"), 1031);
    assert_eq!(
        text_rows(
            &mut system,
            "select table_name, privilege, type from dba_tab_privs \
             where grantee = 'SCOTT' order by 1, 2"
        ),
        [
            ["EMP", "INSERT", "TABLE"],
            ["EMP", "UPDATE", "TABLE"],
            ["EMP_IDS", "SELECT", "VIEW"],
        ]
    );
    // Dropping the view drops its grants.
    run(&mut system, "drop view emp_ids");
    assert_eq!(
        text_rows(
            &mut system,
            "select count(*) from dba_tab_privs where table_name = 'EMP_IDS'"
        ),
        [["0"]]
    );

    // DDL, ALTER SYSTEM and the supplied packages are SYSTEM's.
    for refused in [
        "create table mine (id number)",
        "drop table secret",
        "truncate table emp",
        "create index emp_salary on emp (salary)",
        "alter system flush shared_pool",
        "begin dbms_stats.gather_table_stats('SYSTEM', 'EMP'); end;",
    ] {
        assert_eq!(error_code(&mut scott, refused), 1031, "{refused}");
    }
    // The fixed views and DUAL are everyone's; the session's own settings too.
    run(&mut scott, "alter session set optimizer_mode = first_rows");
    assert_eq!(
        text_rows(&mut scott, "select count(*) from v$mystat where rownum = 1"),
        [["1"]]
    );
}
