//! `pythia shell` end to end: the built binary, a fresh database directory, a script on stdin.
//!
//! A statement meant to fail queries a table that does not exist (ORA-00942).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "pythia-shell-test-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create the test directory");
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn database(&self) -> PathBuf {
        self.0.join("db")
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create the script's directory");
        }
        std::fs::write(&path, text).expect("write the script");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

/// Runs `pythia shell <dir>/db -p db_cache_size=8M <arguments>` with `script` on stdin.
fn shell(dir: &TempDir, arguments: &[&str], script: &str) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pythia"));
    command
        .arg("shell")
        .arg(dir.database())
        .args(["-p", "db_cache_size=8M"])
        .args(arguments);
    run(command, script)
}

fn run(mut command: Command, script: &str) -> Run {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pythia");
    let mut stdin = child.stdin.take().expect("stdin");
    let script = script.to_string();
    // Written from a thread, so a large script cannot block against a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(script.as_bytes());
    });
    let output = child.wait_with_output().expect("wait for pythia");
    writer.join().expect("stdin writer");
    Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The error a query on a missing table gives: the stub's or the executor's.
fn has_missing_table_error(stdout: &str) -> bool {
    stdout.contains("ORA-03001: unimplemented feature")
        || stdout.contains("ORA-00942: table or view does not exist")
}

#[test]
fn prompt_prints_its_text() {
    let dir = TempDir::new("prompt");
    let run = shell(&dir, &[], "prompt hello\nPRO  two  words;\nprompt\n");
    assert_eq!(run.stdout, "hello\ntwo  words;\n\n", "{}", run.stderr);
    assert_eq!(run.status, 0);
    assert!(dir.database().join("control01.ctl").exists());
}

#[test]
fn bail_stops_at_the_first_failing_statement_and_exits_1() {
    let dir = TempDir::new("bail");
    let run = shell(
        &dir,
        &["--bail"],
        "prompt before\nselect * from no_such_table;\nprompt after\n",
    );
    assert_eq!(run.status, 1);
    assert!(run.stdout.starts_with("before\n"), "{}", run.stdout);
    assert!(has_missing_table_error(&run.stdout), "{}", run.stdout);
    assert!(!run.stdout.contains("after"), "{}", run.stdout);
}

#[test]
fn without_bail_a_script_runs_to_the_end_and_exits_0() {
    let dir = TempDir::new("no-bail");
    let run = shell(
        &dir,
        &[],
        "select * from no_such_table;\nfoo bar\nprompt after\n",
    );
    assert_eq!(run.status, 0);
    assert!(has_missing_table_error(&run.stdout), "{}", run.stdout);
    assert!(run
        .stdout
        .contains("SP2-0734: unknown command beginning \"foo bar...\" - rest of line ignored.\n"));
    assert!(run.stdout.ends_with("after\n"), "{}", run.stdout);
}

#[test]
fn bail_stops_at_shell_errors_too() {
    let dir = TempDir::new("bail-shell");
    let run = shell(&dir, &["--bail"], "foo bar\nprompt after\n");
    assert_eq!(run.status, 1);
    assert!(run.stdout.contains("SP2-0734"), "{}", run.stdout);
    assert!(!run.stdout.contains("after"), "{}", run.stdout);
}

#[test]
fn an_unterminated_quote_is_reported_and_not_run() {
    let dir = TempDir::new("quote");
    let script = "prompt start\nselect 'abc\n  from dual;\n";
    let run = shell(&dir, &[], script);
    assert_eq!(run.status, 0);
    assert_eq!(
        run.stdout,
        "start\nERROR in standard input: end of input inside a quoted string opened at line 2; \
         the statement was not run.\n"
    );
    let run = shell(&dir, &["--bail"], script);
    assert_eq!(run.status, 1);
}

#[test]
fn show_parameter_runs_its_query_through_the_session() {
    let dir = TempDir::new("show-parameter");
    let run = shell(&dir, &[], "show parameter db_cache_size\n");
    assert_eq!(run.status, 0);
    if run.stdout.contains("ORA-03001") {
        // The stub executor: the query's error, as SQL*Plus shows an error without a position.
        assert_eq!(run.stdout, "ERROR:\nORA-03001: unimplemented feature\n\n");
    } else {
        assert!(
            run.stdout
                .contains("\ndb_cache_size                        big integer 8M\n"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn describe_of_a_missing_object_says_so() {
    let dir = TempDir::new("describe");
    let run = shell(&dir, &[], "desc no_such_table\n");
    assert_eq!(run.status, 0);
    assert!(
        run.stdout.starts_with("ERROR:\nORA-04043: object "),
        "{}",
        run.stdout
    );
}

#[test]
fn exit_sets_the_status_and_stops_reading() {
    let dir = TempDir::new("exit");
    let run = shell(&dir, &[], "prompt one\nexit 3\nprompt never\n");
    assert_eq!(run.status, 3);
    assert_eq!(run.stdout, "one\n");
    let run = shell(&dir, &[], "quit failure\n");
    assert_eq!(run.status, 1);
    let run = shell(&dir, &[], "EXIT SUCCESS ROLLBACK\n");
    assert_eq!(run.status, 0);
}

#[test]
fn whenever_sqlerror_exit_leaves_at_a_failing_statement() {
    let dir = TempDir::new("whenever");
    let run = shell(
        &dir,
        &[],
        "whenever sqlerror exit 7\nprompt before\nselect * from no_such_table;\nprompt never\n",
    );
    assert_eq!(run.status, 7);
    assert!(!run.stdout.contains("never"), "{}", run.stdout);
}

#[test]
fn whenever_sqlerror_continue_overrides_bail() {
    let dir = TempDir::new("whenever-continue");
    let script = "whenever sqlerror continue\nselect * from no_such_table;\nprompt after\n\
                  whenever sqlerror exit failure\nselect * from no_such_table;\nprompt never\n";
    let run = shell(&dir, &["--bail"], script);
    assert_eq!(run.status, 1);
    assert!(run.stdout.contains("after\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("never"), "{}", run.stdout);
}

#[test]
fn at_runs_scripts_and_double_at_is_relative_to_the_running_script() {
    let dir = TempDir::new("at");
    let main = dir.write(
        "scripts/main.sql",
        "prompt in main\n@@sub/child\nprompt back in main\n",
    );
    dir.write(
        "scripts/sub/child.sql",
        "prompt in child\n@@grandchild.sql\n",
    );
    dir.write("scripts/sub/grandchild.sql", "prompt in grandchild");
    let run = shell(&dir, &[], &format!("@{}\nprompt done\n", main.display()));
    assert_eq!(
        run.stdout, "in main\nin child\nin grandchild\nback in main\ndone\n",
        "{}",
        run.stderr
    );
    assert_eq!(run.status, 0);
}

#[test]
fn a_missing_script_is_reported_and_bail_stops_there() {
    let dir = TempDir::new("missing-script");
    let missing = dir.path().join("nowhere/none");
    let script = format!("@{}\nprompt after\n", missing.display());
    let run = shell(&dir, &[], &script);
    assert_eq!(run.status, 0);
    assert!(
        run.stdout.starts_with(&format!(
            "SP2-0310: unable to open file \"{}.sql\"",
            missing.display()
        )),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("after\n"));
    let run = shell(&dir, &["--bail"], &script);
    assert_eq!(run.status, 1);
    assert!(!run.stdout.contains("after"));
}

#[test]
fn scripts_nest_at_most_twenty_deep() {
    let dir = TempDir::new("depth");
    let endless = dir.write("endless.sql", "prompt level\n@@endless\n");
    let run = shell(
        &dir,
        &[],
        &format!("@{}\nprompt after\n", endless.display()),
    );
    assert_eq!(run.status, 0);
    assert_eq!(run.stdout.matches("level\n").count(), 20, "{}", run.stdout);
    assert_eq!(
        run.stdout
            .matches("SP2-0309: SQL*Plus command procedures may only be nested to a depth of 20.\n")
            .count(),
        1
    );
    assert!(run.stdout.ends_with("after\n"));
}

#[test]
fn an_over_long_statement_is_refused_and_the_script_goes_on() {
    let dir = TempDir::new("too-long");
    let long_value = "x".repeat(1_100_000);
    // One line past the bound, then a statement whose lines add up past it.
    let many_lines =
        "  'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',\n".repeat(20_000);
    // And a long line inside a statement: the rest of the statement goes with it.
    let script = format!(
        "select '{long_value}' from dual;\nprompt after one\nselect\n{many_lines}  1 from dual;\n\
         prompt after two\nselect\n'{long_value}'\nfrom dual;\nprompt after three\n"
    );
    let run = shell(&dir, &[], &script);
    assert_eq!(run.status, 0);
    let refused = "SP2-0027: Input is too long (> 1048576 bytes) - statement ignored.\n";
    assert_eq!(
        run.stdout,
        format!("{refused}after one\n{refused}after two\n{refused}after three\n")
    );
}

#[test]
fn sqlblanklines_off_ends_a_statement_at_a_blank_line_without_running_it() {
    let dir = TempDir::new("blank-lines");
    let run = shell(
        &dir,
        &[],
        "set sqlblanklines off\nselect *\n\nfrom no_such_table;\nlist\n",
    );
    assert_eq!(
        run.stdout,
        "SP2-0734: unknown command beginning \"from no_su...\" - rest of line ignored.\n\
         \x20 1* select *\n"
    );
}

#[test]
fn the_buffer_is_listed_and_run_again_with_slash() {
    let dir = TempDir::new("buffer");
    let run = shell(&dir, &[], "/\nselect *\n  from no_such_table;\nlist\n/\n");
    assert!(
        run.stdout
            .starts_with("SP2-0103: Nothing in SQL buffer to run.\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  1  select *\n  2*   from no_such_table\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("ORA-").count(), 2, "{}", run.stdout);
}

#[test]
fn echo_shows_each_line_with_its_prompt_and_timing_shows_elapsed_time() {
    let dir = TempDir::new("echo");
    let run = shell(
        &dir,
        &[],
        "set echo on\nset timing on\nselect *\n  from no_such_table;\n",
    );
    assert!(
        run.stdout
            .starts_with("SQL> set timing on\nSQL> select *\n  2    from no_such_table;\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Elapsed: 00:00:"), "{}", run.stdout);
}

#[test]
fn parameters_are_checked_when_the_database_opens() {
    let dir = TempDir::new("parameters");
    let run = shell(&dir, &["-p", "no_such_parameter=1"], "prompt never\n");
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("ORA-"), "{}", run.stderr);
    assert!(!run.stdout.contains("never"));
}

#[test]
fn the_default_directory_is_pythia_data() {
    let dir = TempDir::new("default-dir");
    let mut command = Command::new(env!("CARGO_BIN_EXE_pythia"));
    command
        .arg("shell")
        .args(["-p", "db_cache_size=8M"])
        .current_dir(dir.path());
    let run = run(command, "prompt here\n");
    assert_eq!(run.stdout, "here\n", "{}", run.stderr);
    assert!(dir.path().join("pythia-data/control01.ctl").exists());
}

#[test]
fn a_second_shell_on_an_open_database_is_refused() {
    let dir = TempDir::new("locked");
    let mut first = Command::new(env!("CARGO_BIN_EXE_pythia"))
        .arg("shell")
        .arg(dir.database())
        .args(["-p", "db_cache_size=8M"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pythia");
    let mut first_stdin = first.stdin.take().expect("stdin");
    // Once the first shell answers, it has the directory open.
    first_stdin.write_all(b"prompt ready\n").expect("write");
    let mut stdout = first.stdout.take().expect("stdout");
    let mut ready = [0u8; 6];
    std::io::Read::read_exact(&mut stdout, &mut ready).expect("read");
    assert_eq!(&ready, b"ready\n");
    let second = shell(&dir, &[], "prompt never\n");
    assert_eq!(second.status, 1);
    assert!(second.stderr.contains("ORA-01102"), "{}", second.stderr);
    drop(first_stdin);
    assert!(first.wait().expect("wait").success());
}

// ---- With the executor -------------------------------------------------------------------

#[test]
fn query_results_print_as_sql_plus_prints_them() {
    let dir = TempDir::new("results");
    let script = "\
create table t (id number(10) primary key, name varchar2(20));
insert into t values (1, 'one');
insert into t values (2, 'two');
select id, name from t order by id;
select id from t where id > 5;
set feedback off
insert into t values (3, null);
select count(*) from t;
";
    let run = shell(&dir, &[], script);
    assert_eq!(
        run.stdout,
        "
Table created.


1 row created.


1 row created.


        ID NAME
---------- ----
         1 one
         2 two

2 rows selected.


no rows selected


  COUNT(*)
----------
         3

"
    );
    assert_eq!(run.status, 0);
}

#[test]
fn a_clean_exit_commits_and_exit_rollback_does_not() {
    let dir = TempDir::new("commit-on-exit");
    let run = shell(
        &dir,
        &[],
        "create table t (id number);\ninsert into t values (1);\n",
    );
    assert_eq!(run.status, 0, "{}", run.stdout);
    let run = shell(&dir, &[], "insert into t values (2);\nexit rollback\n");
    assert_eq!(run.status, 0, "{}", run.stdout);
    let run = shell(
        &dir,
        &["--bail"],
        "insert into t values (3);\nselect * from no_such_table;\n",
    );
    assert_eq!(run.status, 1, "{}", run.stdout);
    let run = shell(&dir, &[], "select id from t order by id;\n");
    assert_eq!(
        run.stdout,
        "\n        ID\n----------\n         1\n\n1 row selected.\n\n"
    );
}

#[test]
fn show_parameter_lists_names_types_and_values() {
    let dir = TempDir::new("show-parameter-executor");
    let run = shell(&dir, &[], "show parameter db_cache_size\n");
    assert_eq!(
        run.stdout,
        format!(
            "\nNAME                                 TYPE        VALUE\n{} {} {}\n\
             db_cache_size                        big integer 8M\n",
            "-".repeat(36),
            "-".repeat(11),
            "-".repeat(30)
        )
    );
}

#[test]
fn describe_shows_name_null_and_type() {
    let dir = TempDir::new("describe-executor");
    let run = shell(
        &dir,
        &[],
        "create table t (id number(10) not null, name varchar2(20));\ndesc t\n",
    );
    assert!(
        run.stdout.contains(&format!(
            " Name{}Null?    Type\n {} -------- {}\n ID{}NOT NULL NUMBER(10)\n NAME{}VARCHAR2(20)\n",
            " ".repeat(38),
            "-".repeat(41),
            "-".repeat(28),
            " ".repeat(40),
            " ".repeat(47),
        )),
        "{}",
        run.stdout
    );
}

#[test]
fn a_syntax_error_points_at_its_line_and_column() {
    let dir = TempDir::new("error-position");
    let run = shell(&dir, &[], "select *\n  from;\n");
    assert!(
        run.stdout
            .starts_with("  from\n      *\nERROR at line 2:\nORA-00903"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_plsql_block_runs_once_at_its_slash() {
    let dir = TempDir::new("plsql");
    let run = shell(&dir, &[], "begin\n  null;\n\n  null;\nend;\n/\nexec null\n");
    assert_eq!(
        run.stdout,
        "\nPL/SQL procedure successfully completed.\n\n\
         \nPL/SQL procedure successfully completed.\n\n"
    );
}

#[test]
fn strings_and_comments_keep_their_semicolons() {
    let dir = TempDir::new("semicolons");
    let run = shell(
        &dir,
        &[],
        "select 'a;b' as x -- not the end;\n  from dual /* nor; this */;\n",
    );
    assert_eq!(run.stdout, "\nX\n---\na;b\n\n1 row selected.\n\n");
}

/// EXEC sends `BEGIN call; END;`, which runs when the block is made only of procedure
/// calls: DBMS_STATS through EXEC, and through a block ended by `/`.
#[test]
fn exec_runs_a_dbms_stats_call() {
    let dir = TempDir::new("exec-dbms-stats");
    let run = shell(
        &dir,
        &[],
        "create table t (a number);\ninsert into t values (1);\n\
         exec dbms_stats.gather_table_stats('SYSTEM', 'T', cascade => true)\n\
         begin\n  dbms_stats.gather_schema_stats(ownname => 'SYSTEM');\nend;\n/\n\
         select num_rows from user_tables;\n",
    );
    assert!(
        run.stdout.ends_with(
            "\nPL/SQL procedure successfully completed.\n\n\
             \nPL/SQL procedure successfully completed.\n\n\
             \n  NUM_ROWS\n----------\n         1\n\n1 row selected.\n\n"
        ),
        "{}",
        run.stdout
    );
}
