//! Stored procedures and functions through the embedded API: they survive a restart with
//! their source, status and errors; every session runs one compiled unit from the library
//! cache (v$db_object_cache, v$librarycache's TABLE/PROCEDURE namespace); a replaced unit is
//! compiled again, once; and a DDL on a table a unit names makes it INVALID until the next
//! call compiles it.

use pythia::Session;

mod common;
use common::{across_a_restart, error_code, number, run, text_rows};

fn scalar(session: &mut Session, sql: &str) -> String {
    text_rows(session, sql)
        .into_iter()
        .next()
        .and_then(|row| row.into_iter().next())
        .unwrap_or_else(|| panic!("{sql}: no row"))
}

/// A procedure whose source is several SOURCE pieces long, with characters of more than
/// one byte across the pieces' boundaries.
fn long_source() -> String {
    let mut source = String::from("procedure long_one(n in out number) is\nbegin\n");
    for line in 0..200 {
        source.push_str(&format!(
            "  n := n + 1; -- ligne numéro {line}, ça compte\n"
        ));
    }
    source.push_str("end;");
    source
}

#[test]
fn stored_units_survive_a_restart_with_their_source_status_and_errors() {
    across_a_restart(
        "programs-restart",
        |_, mut session| {
            let source = long_source();
            run(
                &mut session,
                &format!("create procedure {}", &source["procedure ".len()..]),
            );
            run(
                &mut session,
                "create function twice(x number) return number is begin return 2 * x; end;",
            );
            // Stored with its errors.
            let result = session
                .execute("create procedure broken is begin undefined_thing := 1; end;")
                .unwrap();
            assert_eq!(
                result.feedback,
                "Warning: Procedure created with compilation errors."
            );
            source
        },
        |_, mut session, source| {
            let stored: String = text_rows(
                &mut session,
                "select text from user_source where name = 'LONG_ONE' order by line",
            )
            .into_iter()
            .map(|row| row[0].clone())
            .collect();
            assert_eq!(stored, source);
            assert_eq!(
                text_rows(
                    &mut session,
                    "select object_name, status from user_objects \
                     where object_type in ('PROCEDURE', 'FUNCTION') order by object_name"
                ),
                vec![
                    vec!["BROKEN", "INVALID"],
                    vec!["LONG_ONE", "VALID"],
                    vec!["TWICE", "VALID"],
                ]
            );
            assert_eq!(
                text_rows(
                    &mut session,
                    "select line, position, text from user_errors where name = 'BROKEN'"
                ),
                vec![vec![
                    "1",
                    "27",
                    "PLS-00201: identifier 'UNDEFINED_THING' must be declared"
                ]]
            );
            run(
                &mut session,
                "declare n number := 1; begin long_one(n); if n <> 201 or twice(n) <> 402 then \
                 raise_application_error(-20000, 'wrong: ' || n); end if; end;",
            );
            assert_eq!(error_code(&mut session, "begin broken; end;"), 6550);
        },
    );
}

#[test]
fn sessions_share_one_compiled_unit_and_a_replacement_is_one_reload() {
    across_a_restart(
        "programs-shared",
        |instance, mut first| {
            run(&mut first, "create table hits (n number)");
            run(
                &mut first,
                "create procedure hit(k number) is begin insert into hits values (k); end;",
            );
            let mut second = instance.connect().unwrap();
            let pins_before = number(&scalar(
                &mut first,
                "select pins from v$librarycache where namespace = 'TABLE/PROCEDURE'",
            ));
            for k in 0..3 {
                run(&mut first, &format!("begin hit({k}); end;"));
                run(&mut second, &format!("begin hit({k}); end;"));
            }
            let pins_after = number(&scalar(
                &mut first,
                "select pins from v$librarycache where namespace = 'TABLE/PROCEDURE'",
            ));
            assert_eq!(pins_after - pins_before, 6, "a pin per call");
            assert_eq!(
                text_rows(
                    &mut first,
                    "select type, loads, executions from v$db_object_cache \
                     where owner = 'SYSTEM' and name = 'HIT'"
                ),
                vec![vec!["PROCEDURE", "1", "6"]]
            );
            run(
                &mut first,
                "create or replace procedure hit(k number) is begin insert into hits values (-k); end;",
            );
            run(&mut second, "begin hit(7); end;");
            run(&mut first, "begin hit(8); end;");
            assert_eq!(
                text_rows(
                    &mut first,
                    "select loads, executions from v$db_object_cache where name = 'HIT'"
                ),
                vec![vec!["2", "2"]]
            );
            run(&mut first, "commit");
            run(&mut second, "commit");
            assert_eq!(scalar(&mut first, "select sum(n) from hits"), "-9");
        },
        |_, _, _| {},
    );
}

#[test]
fn ddl_on_a_named_table_invalidates_and_the_next_call_recompiles() {
    across_a_restart(
        "programs-invalidation",
        |_, mut session| {
            run(&mut session, "create table items (n number)");
            run(
                &mut session,
                "create procedure add_item(k number) is begin insert into items values (k); end;",
            );
            run(
                &mut session,
                "create procedure add_two is begin add_item(1); add_item(2); end;",
            );
            run(&mut session, "drop table items");
            // The unit naming the table and the one calling it, both.
            assert_eq!(
                text_rows(
                    &mut session,
                    "select object_name, status from user_objects \
                     where object_type = 'PROCEDURE' order by object_name"
                ),
                vec![vec!["ADD_ITEM", "INVALID"], vec!["ADD_TWO", "INVALID"]]
            );
        },
        |_, mut session, _| {
            // INVALID is kept across the restart; the table comes back and the call
            // compiles both again.
            assert_eq!(error_code(&mut session, "begin add_two; end;"), 6550);
            run(&mut session, "create table items (n number)");
            run(&mut session, "begin add_two; end;");
            assert_eq!(scalar(&mut session, "select count(*) from items"), "2");
            assert_eq!(
                text_rows(
                    &mut session,
                    "select object_name, status from user_objects \
                     where object_type = 'PROCEDURE' order by object_name"
                ),
                vec![vec!["ADD_ITEM", "VALID"], vec!["ADD_TWO", "VALID"]]
            );
        },
    );
}

#[test]
fn deep_recursion_is_bounded_without_exhausting_the_stack() {
    across_a_restart(
        "programs-recursion",
        |_, mut session| {
            run(
                &mut session,
                "create function depth(n number) return number is \
                 begin if n = 0 then return 0; end if; return 1 + depth(n - 1); end;",
            );
            assert_eq!(
                scalar(&mut session, "select 1 from dual"),
                "1",
                "the session works"
            );
            run(
                &mut session,
                "declare d number; begin d := depth(900); if d <> 900 then \
                 raise_application_error(-20000, 'depth ' || d); end if; end;",
            );
            assert_eq!(
                error_code(
                    &mut session,
                    "declare d number; begin d := depth(5000); end;"
                ),
                6500
            );
            // The session is whole after it.
            run(&mut session, "declare d number; begin d := depth(10); end;");
        },
        |_, _, _| {},
    );
}

#[test]
fn each_session_has_its_own_package_state_and_a_recompilation_discards_it_once() {
    across_a_restart(
        "programs-package-state",
        |instance, mut first| {
            run(
                &mut first,
                "create package tally is n number := 0; procedure bump; end;",
            );
            run(
                &mut first,
                "create package body tally is procedure bump is begin n := n + 1; end; \
                 begin n := 100; end;",
            );
            let mut second = instance.connect().unwrap();
            for _ in 0..3 {
                run(&mut first, "begin tally.bump; end;");
            }
            run(&mut second, "begin tally.bump; end;");
            let read = |session: &mut Session| -> String {
                run(
                    session,
                    "create table if not exists seen (s number, v number)",
                );
                run(session, "begin insert into seen values (1, tally.n); end;");
                let v = scalar(session, "select max(v) from seen");
                run(session, "rollback");
                v
            };
            assert_eq!(read(&mut first), "103");
            assert_eq!(read(&mut second), "101");
            // Compiled again: each session's state is discarded once, then made anew.
            run(
                &mut first,
                "create or replace package body tally is procedure bump is begin n := n + 10; end; end;",
            );
            assert_eq!(error_code(&mut second, "begin tally.bump; end;"), 4068);
            run(&mut second, "begin tally.bump; end;");
            assert_eq!(read(&mut second), "10");
            assert_eq!(error_code(&mut first, "begin tally.bump; end;"), 4068);
        },
        |_, mut session, _| {
            // A new instance: the state starts from the initial values again.
            run(&mut session, "begin tally.bump; end;");
            run(
                &mut session,
                "create table if not exists seen (s number, v number)",
            );
            run(
                &mut session,
                "begin insert into seen values (1, tally.n); end;",
            );
            assert_eq!(scalar(&mut session, "select max(v) from seen"), "10");
        },
    );
}

fn int(value: i64) -> pythia::Value {
    pythia::Value::integer(value)
}

/// A top-level CALL returns its procedure's OUT and IN OUT parameters by name
/// (`StatementResult::out_parameters`, the row the server sends), whether the caller gave a
/// bind or NULL for them; a block's binds still come back as `out_binds`.
#[test]
fn a_call_returns_its_out_parameters_by_name() {
    across_a_restart(
        "programs-call-results",
        |_, mut session| {
            run(
                &mut session,
                "create procedure swap_sum(a in out number, b in out number, total out number) is \
                 t number; begin t := a; a := b; b := t; total := a + b; end;",
            );
            let result = session.execute("call swap_sum(1, 2, null)").unwrap();
            let by_name: Vec<(String, String)> = result
                .out_parameters
                .iter()
                .map(|(name, value)| (name.clone(), value.to_string()))
                .collect();
            assert_eq!(
                by_name,
                [("a", "2"), ("b", "1"), ("total", "3")]
                    .map(|(name, value)| (name.to_string(), value.to_string()))
            );
            // With binds for the OUT arguments, the binds come back too.
            let prepared = session.prepare("call swap_sum(:x, :y, :z)").unwrap();
            let result = session
                .execute_prepared(&prepared, &[int(5), int(7), pythia::Value::Null])
                .unwrap();
            assert_eq!(result.out_binds, [int(7), int(5), int(12)]);
            assert_eq!(result.out_parameters.len(), 3);
            // A block returns no parameters of its own.
            let block = session.execute("begin swap_sum(1, 2, null); end;");
            assert_eq!(block.unwrap_err().code(), 6550);
        },
        |_, _, _| {},
    );
}

/// v$sql.plsql_exec_time: a block's cursor has its run's time, a query has the time of the
/// stored functions it called, and a query that calls none has none.
#[test]
fn plsql_exec_time_is_the_time_of_the_plsql_a_cursor_ran() {
    across_a_restart(
        "programs-plsql-exec-time",
        |_, mut session| {
            run(
                &mut session,
                "create function spin(n number) return number is s number := 0; \
                 begin for i in 1 .. n loop s := s + i; end loop; return s; end;",
            );
            run(
                &mut session,
                "declare s number := 0; begin for i in 1 .. 20000 loop s := s + i; end loop; end;",
            );
            run(&mut session, "select spin(20000) from dual");
            run(&mut session, "select 42 from dual");
            let time = |session: &mut Session, text: &str| -> i64 {
                scalar(
                    session,
                    &format!("select plsql_exec_time from v$sql where sql_text = '{text}'"),
                )
                .parse()
                .unwrap()
            };
            let block =
                "declare s number := 0; begin for i in 1 .. 20000 loop s := s + i; end loop; end;";
            assert!(time(&mut session, block) > 0, "the block's own run");
            assert!(
                time(&mut session, "select spin(20000) from dual") > 0,
                "the function it called"
            );
            assert_eq!(time(&mut session, "select 42 from dual"), 0);
        },
        |_, _, _| {},
    );
}
