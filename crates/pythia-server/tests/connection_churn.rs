//! Connection churn: 1,200 connections opened and closed, some with a transaction left
//! open, leave no connection thread, no session and no growing memory behind.
//!
//! Alone in its test binary (one test function) because it counts the process's threads
//! and resident memory (/proc/self/status): beside it in `simple_query.rs`, the other tests'
//! instances, connection threads and memory were counted too, and failed it at random.

mod common;
use common::{connect, connect_when_free, first_column, start};

/// A number from this process's /proc status (`Threads:`, `VmRSS:` in kB).
fn process_status(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with(field)).unwrap();
    line[field.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn process_threads() -> usize {
    process_status("Threads:")
}

/// How much more memory 1,000 connections may leave resident than the first 200 did, in
/// kB: what a leak of 16 KiB a connection would pass (allocators keep freed pages).
const CHURN_RESIDENT_GROWTH_KB_MAX: usize = 16 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_opened_and_closed_leave_no_thread_or_session_behind() {
    let (instance, server) = start("churn", &[]);
    let warm = connect(server.local_addr()).await.unwrap();
    first_column(&warm, "select 1 from dual").await;
    drop(warm);
    // A closed connection's thread ends a moment after the close: at most 30 s.
    let settled = || {
        let left = server.wait_for_connection_threads(0, std::time::Duration::from_secs(30));
        assert_eq!(left, 0, "{left} connection threads never ended");
    };
    settled();
    let before = process_threads();
    let mut resident_after_warm_up = 0;
    for round in 0..1_200 {
        if round == 200 {
            // The allocator's and the instance's caches are warm: from here on, memory that
            // stays is what the connections leak.
            resident_after_warm_up = process_status("VmRSS:");
        }
        let client = connect_when_free(server.local_addr()).await;
        if round % 3 == 0 {
            // Some leave a transaction open behind them.
            client
                .simple_query("begin; select 1 from dual")
                .await
                .unwrap();
        } else {
            assert_eq!(first_column(&client, "select 1 from dual").await, ["1"]);
        }
    }
    settled();
    // A connection's thread is counted out just before it exits: wait for the exits (at
    // most 10 s). The test's own runtime may have started a blocking thread or two.
    let mut after = process_threads();
    for _ in 0..1000 {
        if after <= before + 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        after = process_threads();
    }
    assert!(
        after <= before + 2,
        "{before} threads before, {after} after"
    );
    let resident = process_status("VmRSS:");
    assert!(
        resident <= resident_after_warm_up + CHURN_RESIDENT_GROWTH_KB_MAX,
        "{resident_after_warm_up} kB resident after 200 connections, {resident} kB after 1,200"
    );
    // Every session ended: the instance has none left (asked of the instance rather than
    // v$session, which is process-wide).
    assert_eq!(instance.user_sessions(), 0);
    server.stop();
}
