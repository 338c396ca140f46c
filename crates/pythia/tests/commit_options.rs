//! COMMIT WRITE options and the parameters commit_wait and commit_logging, through SQL:
//! which level wins (`transaction/commit.rs`), what the commit statistics count, and whether
//! the commit waited on 'log file sync'.

use std::time::{Duration, Instant};

use pythia::instrumentation::{self, Statistic, WaitEvent, WaitState};
use pythia::{Instance, Session};

mod common;
use common::{run, temp_dir, SMALL};

fn statistic(session: &Session, statistic: Statistic) -> u64 {
    instrumentation::session_statistics(session.sid())
        .into_iter()
        .find(|row| row.statistic == statistic)
        .map_or(0, |row| row.value)
}

fn log_file_syncs(session: &Session) -> u64 {
    instrumentation::session_events(session.sid())
        .into_iter()
        .find(|row| row.event == WaitEvent::LogFileSync)
        .map_or(0, |row| row.total_waits)
}

/// The session's commit statistics as options: "WAIT IMMEDIATE", "NOWAIT BATCH", ..., one
/// word of each pair per commit counted (so "" when nothing was counted).
fn counted(session: &Session, statistics: [(Statistic, &str); 4]) -> String {
    let mut words = Vec::new();
    for (statistic_counted, word) in statistics {
        for _ in 0..statistic(session, statistic_counted) {
            words.push(word);
        }
    }
    words.join(" ")
}

fn requested(session: &Session) -> String {
    counted(
        session,
        [
            (Statistic::CommitWaitRequested, "WAIT"),
            (Statistic::CommitNowaitRequested, "NOWAIT"),
            (Statistic::CommitImmediateRequested, "IMMEDIATE"),
            (Statistic::CommitBatchRequested, "BATCH"),
        ],
    )
}

fn performed(session: &Session) -> String {
    counted(
        session,
        [
            (Statistic::CommitWaitPerformed, "WAIT"),
            (Statistic::CommitNowaitPerformed, "NOWAIT"),
            (Statistic::CommitImmediatePerformed, "IMMEDIATE"),
            (Statistic::CommitBatchPerformed, "BATCH"),
        ],
    )
}

/// A new session that first runs `settings` (ALTER SESSION statements).
fn session_with(instance: &std::sync::Arc<Instance>, settings: &[&str]) -> Session {
    let mut session = instance.connect().unwrap();
    for setting in settings {
        run(&mut session, setting);
    }
    session
}

/// Inserts a row and ends the transaction with `commit`; returns (requested, performed,
/// 'log file sync' waits), as the session's statistics and events count them.
fn commit_a_row(session: &mut Session, commit: &str) -> (String, String, u64) {
    run(session, "insert into t values (1)");
    let syncs_before = log_file_syncs(session);
    run(session, commit);
    let total = |statistic_counted| statistic(session, statistic_counted);
    assert_eq!(
        total(Statistic::CommitWaitNowaitRequested),
        1,
        "one commit, counted once"
    );
    assert_eq!(total(Statistic::CommitBatchImmediateRequested), 1);
    assert_eq!(total(Statistic::CommitWaitNowaitPerformed), 1);
    assert_eq!(total(Statistic::CommitBatchImmediatePerformed), 1);
    (
        requested(session),
        performed(session),
        log_file_syncs(session) - syncs_before,
    )
}

/// Each combination of the statement's options, the session's parameters and the system's
/// that decides something, FORCE_WAIT at either level included. A NOWAIT commit records no
/// 'log file sync'; a WAIT IMMEDIATE one records one.
#[test]
fn the_statement_wins_over_the_session_over_the_system_except_under_force_wait() {
    let dir = temp_dir("commit-options");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut admin = instance.connect().unwrap();
    run(&mut admin, "create table t (n number)");

    // (the session's ALTER SESSION statements, the COMMIT, requested, performed, syncs)
    type Case = (
        &'static [&'static str],
        &'static str,
        &'static str,
        &'static str,
        u64,
    );
    let check = |cases: &[Case], system: &str| {
        for &(settings, commit, expected_requested, expected_performed, syncs) in cases {
            let mut session = session_with(&instance, settings);
            let observed = commit_a_row(&mut session, commit);
            assert_eq!(
                observed,
                (
                    expected_requested.to_string(),
                    expected_performed.to_string(),
                    syncs
                ),
                "system {system}; session {settings:?}; {commit}"
            );
        }
    };

    const NOWAIT: &str = "alter session set commit_wait = nowait";
    const WAIT: &str = "alter session set commit_wait = wait";
    const FORCE_WAIT: &str = "alter session set commit_wait = force_wait";
    const BATCH: &str = "alter session set commit_logging = batch";
    const IMMEDIATE: &str = "alter session set commit_logging = immediate";
    #[rustfmt::skip]
    check(&[
        (&[], "commit", "WAIT IMMEDIATE", "WAIT IMMEDIATE", 1),
        (&[], "commit work write nowait", "NOWAIT IMMEDIATE", "NOWAIT IMMEDIATE", 0),
        (&[NOWAIT], "commit", "NOWAIT IMMEDIATE", "NOWAIT IMMEDIATE", 0),
        (&[NOWAIT], "commit write wait", "WAIT IMMEDIATE", "WAIT IMMEDIATE", 1),
        (&[NOWAIT, BATCH], "commit", "NOWAIT BATCH", "NOWAIT BATCH", 0),
        (&[BATCH], "commit write nowait immediate", "NOWAIT IMMEDIATE", "NOWAIT IMMEDIATE", 0),
        (&[FORCE_WAIT], "commit write nowait batch", "NOWAIT BATCH", "WAIT IMMEDIATE", 1),
        // Altered after FORCE_WAIT, commit_wait no longer forces anything.
        (&[FORCE_WAIT, NOWAIT], "commit", "NOWAIT IMMEDIATE", "NOWAIT IMMEDIATE", 0),
    ], "unset");

    // A session connected before ALTER SYSTEM follows it from its next call on.
    let mut earlier = session_with(&instance, &[]);
    run(
        &mut admin,
        "alter system set commit_wait = nowait scope = memory",
    );
    run(
        &mut admin,
        "alter system set commit_logging = batch scope = memory",
    );
    assert_eq!(
        commit_a_row(&mut earlier, "commit"),
        ("NOWAIT BATCH".to_string(), "NOWAIT BATCH".to_string(), 0)
    );
    #[rustfmt::skip]
    check(&[
        (&[], "commit", "NOWAIT BATCH", "NOWAIT BATCH", 0),
        (&[WAIT, IMMEDIATE], "commit", "WAIT IMMEDIATE", "WAIT IMMEDIATE", 1),
        (&[], "commit write wait immediate", "WAIT IMMEDIATE", "WAIT IMMEDIATE", 1),
        (&[IMMEDIATE], "commit", "NOWAIT IMMEDIATE", "NOWAIT IMMEDIATE", 0),
        (&[FORCE_WAIT], "commit", "WAIT BATCH", "WAIT IMMEDIATE", 1),
    ], "NOWAIT BATCH");

    run(
        &mut admin,
        "alter system set commit_wait = force_wait scope = memory",
    );
    #[rustfmt::skip]
    check(&[
        (&[], "commit", "WAIT BATCH", "WAIT IMMEDIATE", 1),
        (&[NOWAIT], "commit write nowait", "NOWAIT BATCH", "WAIT IMMEDIATE", 1),
        (&[NOWAIT, IMMEDIATE], "commit write batch", "NOWAIT BATCH", "WAIT IMMEDIATE", 1),
    ], "FORCE_WAIT BATCH");

    // Every acknowledged commit is there, NOWAIT ones included (visible at once).
    let rows = admin.execute("select count(*) from t").unwrap().rows;
    assert_eq!(rows[0][0].to_string(), "17");
    drop((admin, earlier));
    instance.shutdown().unwrap();
}

/// A COMMIT with nothing to commit writes no redo and counts in none of the commit
/// statistics; neither does DDL's implicit commit, which is WAIT IMMEDIATE whatever the
/// session's commit_wait.
#[test]
fn empty_and_implicit_commits_count_no_options() {
    let dir = temp_dir("commit-options-implicit");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = session_with(&instance, &["alter session set commit_wait = nowait"]);
    run(&mut session, "commit write nowait");
    run(&mut session, "create table t (n number)");
    run(&mut session, "insert into t values (1)");
    let syncs_before = log_file_syncs(&session);
    run(&mut session, "create table u (n number)");
    assert!(
        log_file_syncs(&session) > syncs_before,
        "DDL's commit waits on 'log file sync'"
    );
    assert_eq!(requested(&session), "");
    assert_eq!(performed(&session), "");
    drop(session);
    instance.shutdown().unwrap();
}

/// WAIT BATCH starts no write: the committing session waits on 'log file sync' until a
/// write LGWR makes anyway covers its record, here the write of another session's WAIT
/// IMMEDIATE commit (else LGWR's 3-second timeout), and it writes nothing itself.
#[test]
fn a_wait_batch_commit_waits_for_a_write_it_did_not_start() {
    let dir = temp_dir("commit-options-batch");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut other = instance.connect().unwrap();
    run(&mut other, "create table t (n number)");
    let mut batched = session_with(&instance, &["alter session set commit_logging = batch"]);
    run(&mut batched, "insert into t values (1)");
    let batched_sid = batched.sid();
    let writes_before = statistic(&batched, Statistic::RedoWrites);
    let committer = std::thread::spawn(move || {
        run(&mut batched, "commit");
        batched
    });
    // Until the batched commit waits, so that the other commit's write comes after its
    // record. Or until it has ended: LGWR's own 3-second timer may write the record before
    // this loop looks, and the checks below hold for that write too. A commit that has done
    // neither in 30 s has not started (or hangs): fail here rather than let the other commit
    // go first and the checks below fail for a reason they do not name.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let waiting = instrumentation::session_waits().into_iter().any(|row| {
            row.sid == batched_sid
                && row.state == WaitState::Waiting
                && row.event == Some(WaitEvent::LogFileSync)
        });
        if waiting || committer.is_finished() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the WAIT BATCH commit was never seen waiting on 'log file sync' in 30 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    run(&mut other, "insert into t values (2)");
    run(&mut other, "commit");
    let batched = committer.join().unwrap();
    assert_eq!(requested(&batched), "WAIT BATCH");
    assert_eq!(performed(&batched), "WAIT BATCH");
    assert_eq!(log_file_syncs(&batched), 1);
    assert_eq!(
        statistic(&batched, Statistic::RedoWrites) - writes_before,
        0,
        "the batched commit wrote no redo itself"
    );
    assert_eq!(
        other.execute("select count(*) from t").unwrap().rows[0][0].to_string(),
        "2"
    );
    drop((batched, other));
    instance.shutdown().unwrap();
}

/// A value outside commit_wait's or commit_logging's list is ORA-00096 naming the values
/// allowed, for ALTER SESSION and ALTER SYSTEM alike, and changes nothing.
#[test]
fn a_bad_commit_wait_or_commit_logging_is_ora_00096() {
    let dir = temp_dir("commit-options-errors");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    let cases = [
        (
            "alter session set commit_wait = later",
            "ORA-00096: invalid value LATER for parameter commit_wait, must be from among WAIT, NOWAIT, FORCE_WAIT",
        ),
        (
            "alter system set commit_wait = 'force' scope = memory",
            "ORA-00096: invalid value force for parameter commit_wait, must be from among WAIT, NOWAIT, FORCE_WAIT",
        ),
        (
            "alter session set commit_logging = 'lazy'",
            "ORA-00096: invalid value lazy for parameter commit_logging, must be from among IMMEDIATE, BATCH",
        ),
    ];
    for (statement, message) in cases {
        let error = session.execute(statement).unwrap_err();
        assert_eq!(error.to_string(), message, "{statement}");
    }
    assert_eq!(
        session.parameters().get_string("commit_wait"),
        "",
        "still unset"
    );
    assert_eq!(instance.parameters().get_string("commit_wait"), "");
    drop(session);
    instance.shutdown().unwrap();
}

/// Seed 002's note, the PL/SQL commit optimisation: a loop of COMMITs in a block waits on
/// 'log file sync' once, for the last commit, before the call returns; COMMIT WRITE WAIT in
/// the loop waits every time, and so does every commit under commit_wait = FORCE_WAIT.
#[test]
fn commits_inside_plsql_wait_once_per_call_unless_told_to_wait() {
    let dir = temp_dir("plsql-commits");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "create table t (n number)");
    let loop_of = |commit: &str| {
        format!("begin for i in 1..20 loop insert into t values (i); {commit}; end loop; end;")
    };
    let waits = |session: &mut Session, block: &str| {
        let syncs = log_file_syncs(session);
        let commits = statistic(session, Statistic::UserCommits);
        run(session, block);
        (
            statistic(session, Statistic::UserCommits) - commits,
            log_file_syncs(session) - syncs,
        )
    };
    assert_eq!(waits(&mut session, &loop_of("commit")), (20, 1));
    assert_eq!(waits(&mut session, &loop_of("commit write wait")), (20, 20));
    // NOWAIT asked for in the block: no wait at all, not even at the end.
    assert_eq!(
        waits(&mut session, &loop_of("commit write nowait")),
        (20, 0)
    );
    run(&mut session, "alter session set commit_wait = force_wait");
    assert_eq!(waits(&mut session, &loop_of("commit")), (20, 20));
    // Outside PL/SQL each COMMIT waits, as before.
    run(&mut session, "alter session set commit_wait = wait");
    run(&mut session, "insert into t values (0)");
    let syncs = log_file_syncs(&session);
    run(&mut session, "commit");
    assert_eq!(log_file_syncs(&session) - syncs, 1);
    // What the loops committed is durable: all of it is there after a restart.
    drop(session);
    instance.shutdown().unwrap();
    drop(instance);
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut session = instance.connect().unwrap();
    let rows = common::text_rows(&mut session, "select count(*) from t");
    assert_eq!(rows, vec![vec!["81".to_string()]]);
    drop(session);
    instance.shutdown().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
