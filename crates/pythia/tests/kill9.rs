//! Durability under `kill -9`: a child process commits one row per transaction and
//! acknowledges each id after `commit` returns; the test kills it with SIGKILL at a random
//! moment, reopens the database (crash recovery) and checks that every acknowledged row is
//! there, nothing beyond the one insert in flight, and that the primary key index and the
//! table agree. Several rounds continue on the same database.
//!
//! The child is this test binary itself, re-executed with `PYTHIA_KILL9_WORKER=<dir>` and
//! filtered to [`kill9_worker_mode`], which then runs the worker of
//! `examples/commit_worker.rs`: nothing extra to build.

#[path = "../examples/commit_worker.rs"]
mod commit_worker;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use pythia::{Instance, Session};

const WORKER_ENV: &str = "PYTHIA_KILL9_WORKER";
const ROUNDS: usize = 5;

/// In the child: runs the commit worker. In a normal test run: does nothing.
#[test]
fn kill9_worker_mode() {
    if let Some(dir) = std::env::var_os(WORKER_ENV) {
        if let Err(error) = commit_worker::run(Path::new(&dir)) {
            eprintln!("kill9 worker: {error}");
            std::process::exit(1);
        }
        std::process::exit(0);
    }
}

/// Kills (SIGKILL) and reaps the child on every path, panics included.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

fn count(session: &mut Session, sql: &str) -> i64 {
    let result = session
        .execute(sql)
        .unwrap_or_else(|error| panic!("{sql}: {error}"));
    result.rows[0][0]
        .to_string()
        .parse()
        .unwrap_or_else(|_| panic!("{sql}: not an integer: {:?}", result.rows[0][0]))
}

/// Starts the worker, reads acknowledgements for `run_for` after the first one, kills it
/// with SIGKILL and returns every id it acknowledged (in order).
fn round(dir: &Path, run_for: Duration) -> Vec<i64> {
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "kill9_worker_mode",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_ENV, dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the worker");
    let mut child = KillOnDrop(child);
    let stdout = child.0.stdout.take().unwrap();
    let (sender, receiver) = mpsc::channel();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // libtest's "test kill9_worker_mode ... " has no newline before the first ack.
            if let Some(at) = line.find("ACK ") {
                let id = line[at + 4..].trim().parse::<i64>().unwrap();
                if sender.send(id).is_err() {
                    break;
                }
            }
        }
    });
    let mut acked = Vec::new();
    // The first ack (open, recovery, DDL) may take a while; bounded all the same.
    match receiver.recv_timeout(Duration::from_secs(60)) {
        Ok(id) => acked.push(id),
        Err(error) => panic!("the worker acknowledged nothing within 60 s: {error:?}"),
    }
    let deadline = Instant::now() + run_for;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match receiver.recv_timeout(left) {
            Ok(id) => acked.push(id),
            Err(mpsc::RecvTimeoutError::Timeout) => break,
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the worker exited early"),
        }
    }
    drop(child); // SIGKILL, then reap: the pipe closes and the reader sees EOF.
    reader.join().unwrap();
    // Acks written before the kill are acknowledged too.
    acked.extend(receiver.try_iter());
    acked
}

#[test]
fn acknowledged_commits_survive_kill_9() {
    if std::env::var_os(WORKER_ENV).is_some() {
        return;
    }
    // Reads from the child are bounded; this bounds the rest (recovery, queries) too.
    let (finished, watchdog) = mpsc::channel::<()>();
    thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) =
            watchdog.recv_timeout(Duration::from_secs(240))
        {
            eprintln!("WATCHDOG: kill9 test did not finish within 240 s; aborting");
            std::process::abort();
        }
    });
    let dir: PathBuf = std::env::temp_dir().join(format!("pythia-kill9-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut rng = Rng(0x9E37_79B9 ^ std::process::id() as u64);
    let mut present = 0i64; // rows the database holds: ids 1..=present
    for round_number in 1..=ROUNDS {
        let run_for = Duration::from_millis(100 + rng.below(301));
        let acked = round(&dir, run_for);
        for (i, id) in acked.iter().enumerate() {
            assert_eq!(
                *id,
                present + 1 + i as i64,
                "round {round_number}: acks not consecutive from {}",
                present + 1
            );
        }
        let last_acked = *acked.last().unwrap();

        let instance = Instance::open(&dir, commit_worker::PARAMETERS)
            .unwrap_or_else(|error| panic!("round {round_number}: reopen: {error}"));
        let mut session = instance.connect().unwrap();
        let by_index = count(
            &mut session,
            "select count(*) from t where id between 0 and 1e9",
        );
        let full = count(&mut session, "select count(*) from t");
        let by_payload = count(
            &mut session,
            "select count(*) from t where payload >= 'payload'",
        );
        let max = count(&mut session, "select nvl(max(id), 0) from t");
        let acked_present = count(
            &mut session,
            &format!("select count(*) from t where id <= {last_acked}"),
        );
        println!(
            "round {round_number}: ran {run_for:?}, acked {} (up to {last_acked}), rows {full}, max id {max}",
            acked.len()
        );
        assert_eq!(
            acked_present, last_acked,
            "round {round_number}: an acknowledged commit was lost"
        );
        assert!(
            max <= last_acked + 1,
            "round {round_number}: id {max} present beyond the last ack {last_acked} + 1"
        );
        assert_eq!(
            full, max,
            "round {round_number}: ids 1..={max} not all present"
        );
        assert_eq!(
            by_index, full,
            "round {round_number}: primary key index path and full scan disagree"
        );
        assert_eq!(
            by_payload, full,
            "round {round_number}: payload index and full scan disagree"
        );
        drop(session);
        instance.shutdown().unwrap();
        drop(instance);
        present = max;
    }
    drop(finished);
    let _ = std::fs::remove_dir_all(&dir);
}
