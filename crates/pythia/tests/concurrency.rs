//! Concurrency: row locks, deadlock detection (ORA-00060) and statement-level read
//! consistency under many sessions transferring money between a few accounts.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use pythia::instrumentation::{self, WaitEvent, WaitState};
use pythia::{Instance, Session, Value};

mod common;
use common::{temp_dir, SMALL};

const ACCOUNTS: i64 = 20;
const INITIAL: i64 = 1000;
const THREADS: usize = 8;
const TRANSFERS_PER_THREAD: u64 = 300;
const TIME_BOUND: Duration = Duration::from_secs(20);
const WATCHDOG: Duration = Duration::from_secs(120);

/// Aborts the whole process if `done` is not set within `limit`: a hang must fail the
/// test run rather than block it forever.
fn watchdog(name: &'static str, limit: Duration) -> Arc<AtomicBool> {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < limit {
            if flag.load(Ordering::SeqCst) {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        eprintln!("WATCHDOG: test {name} did not finish within {limit:?}: workers hung; aborting");
        std::process::abort();
    });
    done
}

/// xorshift64*: no dependency needed for a little randomness.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn integer(value: &Value) -> i64 {
    value
        .to_string()
        .parse()
        .unwrap_or_else(|_| panic!("not an integer: {value:?}"))
}

fn sum_and_count(session: &mut Session) -> (i64, i64) {
    let result = session
        .execute("select sum(bal), count(*) from acct")
        .unwrap_or_else(|error| panic!("select sum: {error}"));
    assert_eq!(result.rows.len(), 1);
    (integer(&result.rows[0][0]), integer(&result.rows[0][1]))
}

#[derive(Default)]
struct Counters {
    committed: AtomicU64,
    deadlocks: AtomicU64,
    moved: AtomicU64,
    queries: AtomicU64,
    /// (who, sum, count) of every statement that saw a wrong total.
    inconsistent: Mutex<Vec<(String, i64, i64)>>,
}

/// One `select sum(bal), count(*)` statement: it must see the invariant total.
fn check_sum(session: &mut Session, counters: &Counters, who: &str) {
    assert!(!session.in_transaction());
    let (sum, count) = sum_and_count(session);
    counters.queries.fetch_add(1, Ordering::SeqCst);
    if (sum, count) != (ACCOUNTS * INITIAL, ACCOUNTS) {
        counters
            .inconsistent
            .lock()
            .unwrap()
            .push((who.to_string(), sum, count));
    }
}

/// One transfer: debit and credit in random order, then commit. Ok(true) when committed,
/// Ok(false) after ORA-00060 (rolled back).
fn transfer(
    session: &mut Session,
    rng: &mut Rng,
    counters: &Counters,
    ledger: &mut [i64],
) -> Result<bool, pythia::Error> {
    let from = rng.below(ACCOUNTS as u64) as i64 + 1;
    let mut to = rng.below(ACCOUNTS as u64 - 1) as i64 + 1;
    if to >= from {
        to += 1;
    }
    let amount = rng.below(50) as i64 + 1;
    let mut steps = [(from, -amount), (to, amount)];
    if rng.below(2) == 0 {
        steps.swap(0, 1);
    }
    for (step, (id, delta)) in steps.into_iter().enumerate() {
        if step == 1 {
            // Hold the first row lock a little so transactions overlap and cycles form.
            thread::sleep(Duration::from_micros(rng.below(400)));
        }
        let result = session.execute_with(
            "update acct set bal = bal + :1 where id = :2",
            &[Value::integer(delta), Value::integer(id)],
        );
        match result {
            Ok(result) => assert_eq!(result.rows_affected, 1, "update of account {id}"),
            Err(error) if error.code() == 60 => {
                counters.deadlocks.fetch_add(1, Ordering::SeqCst);
                session.execute("rollback")?;
                return Ok(false);
            }
            Err(error) => return Err(error),
        }
    }
    session.execute("commit")?;
    ledger[from as usize] -= amount;
    ledger[to as usize] += amount;
    counters.committed.fetch_add(1, Ordering::SeqCst);
    counters.moved.fetch_add(amount as u64, Ordering::SeqCst);
    Ok(true)
}

/// Transfers, crossing in random order so deadlocks happen, keep every balance and the
/// total right. (The sums the workers and readers run are checked by the next test.)
#[test]
fn transfers_keep_the_total_and_deadlocks_are_detected() {
    transfers("transfers", false);
}

/// Statement-level read consistency: every `select sum(bal), count(*)` run while the
/// transfers commit sees the invariant total.
#[test]
fn statements_see_a_consistent_total_during_transfers() {
    transfers("reads", true);
}

fn transfers(name: &'static str, check_reads: bool) {
    let done = watchdog(name, WATCHDOG);
    let dir = temp_dir(name);
    let instance = Instance::open(&dir, SMALL).unwrap();
    {
        let mut session = instance.connect().unwrap();
        session
            .execute("create table acct (id number primary key, bal number not null)")
            .unwrap();
        for id in 1..=ACCOUNTS {
            session
                .execute_with(
                    "insert into acct (id, bal) values (:1, :2)",
                    &[Value::integer(id), Value::integer(INITIAL)],
                )
                .unwrap();
        }
        session.execute("commit").unwrap();
        assert_eq!(sum_and_count(&mut session), (ACCOUNTS * INITIAL, ACCOUNTS));
    }

    let counters = Arc::new(Counters::default());
    let barrier = Arc::new(Barrier::new(THREADS));
    let start = Instant::now();
    let mut handles = Vec::new();
    for worker in 0..THREADS {
        let instance = instance.clone();
        let counters = counters.clone();
        let barrier = barrier.clone();
        handles.push(thread::spawn(move || {
            let mut session = instance.connect().unwrap();
            let mut rng = Rng::new(worker as u64 + 7);
            let mut ledger = vec![0i64; ACCOUNTS as usize + 1];
            let mut attempts = 0u64;
            barrier.wait();
            let begin = Instant::now();
            while attempts < TRANSFERS_PER_THREAD && begin.elapsed() < TIME_BOUND {
                attempts += 1;
                // Every third step of the odd workers is a consistency check instead.
                if worker % 2 == 1 && attempts.is_multiple_of(3) {
                    check_sum(&mut session, &counters, &format!("worker {worker}"));
                    continue;
                }
                transfer(&mut session, &mut rng, &counters, &mut ledger)
                    .unwrap_or_else(|error| panic!("worker {worker}: {error}"));
            }
            assert!(!session.in_transaction());
            ledger
        }));
    }
    // Two more sessions do nothing but check the total while the transfers run.
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|reader| {
            let instance = instance.clone();
            let counters = counters.clone();
            let stop = stop.clone();
            thread::spawn(move || {
                let mut session = instance.connect().unwrap();
                while !stop.load(Ordering::SeqCst) {
                    check_sum(&mut session, &counters, &format!("reader {reader}"));
                }
            })
        })
        .collect();
    let mut ledger = vec![0i64; ACCOUNTS as usize + 1];
    for handle in handles {
        let part = handle.join().expect("worker panicked");
        for (total, delta) in ledger.iter_mut().zip(part) {
            *total += delta;
        }
    }
    let elapsed = start.elapsed();
    stop.store(true, Ordering::SeqCst);
    for reader in readers {
        reader.join().expect("reader panicked");
    }
    done.store(true, Ordering::SeqCst);

    let mut session = instance.connect().unwrap();
    assert_eq!(sum_and_count(&mut session), (ACCOUNTS * INITIAL, ACCOUNTS));
    // Every committed transfer, and only those, is reflected in the balances.
    let result = session
        .execute("select id, bal from acct order by id")
        .unwrap();
    assert_eq!(result.rows.len(), ACCOUNTS as usize);
    for row in &result.rows {
        let id = integer(&row[0]);
        let bal = integer(&row[1]);
        assert_eq!(
            bal,
            INITIAL + ledger[id as usize],
            "balance of account {id}"
        );
    }
    let committed = counters.committed.load(Ordering::SeqCst);
    let deadlocks = counters.deadlocks.load(Ordering::SeqCst);
    println!(
        "transfers: {committed} committed ({} moved), {deadlocks} deadlocks (ORA-00060), {} sums checked, {elapsed:?}",
        counters.moved.load(Ordering::SeqCst),
        counters.queries.load(Ordering::SeqCst),
    );
    let inconsistent = counters.inconsistent.lock().unwrap().clone();
    if !inconsistent.is_empty() {
        println!(
            "{} statements saw a wrong total: {inconsistent:?}",
            inconsistent.len()
        );
    }
    assert!(
        !check_reads || inconsistent.is_empty(),
        "{} of {} statements saw a total other than {}: {inconsistent:?}",
        inconsistent.len(),
        counters.queries.load(Ordering::SeqCst),
        ACCOUNTS * INITIAL
    );
    assert!(committed > 0);
    drop(session);
    instance.shutdown().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_sessions_crossing_updates_deadlock() {
    let done = watchdog("two_sessions", Duration::from_secs(60));
    let dir = temp_dir("pair");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut a = instance.connect().unwrap();
    let mut b = instance.connect().unwrap();
    a.execute("create table acct (id number primary key, bal number not null)")
        .unwrap();
    a.execute("insert into acct values (1, 100)").unwrap();
    a.execute("insert into acct values (2, 100)").unwrap();
    a.execute("commit").unwrap();

    a.execute("update acct set bal = bal - 10 where id = 1")
        .unwrap();
    b.execute("update acct set bal = bal - 20 where id = 2")
        .unwrap();

    // A now waits for B's row 2 in its own thread.
    let a_sid = a.sid();
    let (sender, receiver) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let result = a.execute("update acct set bal = bal + 10 where id = 2");
        sender.send(()).unwrap();
        (a, result.map(|r| r.rows_affected))
    });
    // B may close the cycle only once A waits for row 2: were A's thread to start late, B
    // would wait for row 1 first and A's update then close the cycle itself. A fixed pause
    // did not guarantee that on a loaded machine: wait until A is seen waiting on the row
    // lock (bounded), and A must not finish while B holds row 2.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(
            receiver.try_recv().is_err(),
            "A's update of row 2 did not wait for B's lock"
        );
        let waiting = instrumentation::session_waits().into_iter().any(|row| {
            row.sid == a_sid
                && row.state == WaitState::Waiting
                && row.event == Some(WaitEvent::EnqueueTxRowLockContention)
        });
        if waiting {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "A was never seen waiting for B's lock on row 2"
        );
        thread::sleep(Duration::from_millis(5));
    }
    // B closes the cycle.
    let b_result = b.execute("update acct set bal = bal + 20 where id = 1");
    let b_deadlocked = match &b_result {
        Ok(_) => false,
        Err(error) => {
            assert_eq!(error.code(), 60, "B: {error}");
            true
        }
    };
    if b_deadlocked {
        // B's statement was rolled back, its transaction is still open: roll it back,
        // which releases row 2 for A.
        assert!(b.in_transaction());
        b.execute("rollback").unwrap();
    }
    receiver
        .recv_timeout(Duration::from_secs(30))
        .expect("A never finished waiting");
    let (mut a, a_result) = waiter.join().unwrap();
    let a_deadlocked = match &a_result {
        Ok(rows) => {
            assert_eq!(*rows, 1);
            false
        }
        Err(error) => {
            assert_eq!(error.code(), 60, "A: {error}");
            true
        }
    };
    assert!(
        a_deadlocked ^ b_deadlocked,
        "exactly one session must get ORA-00060 (A: {a_result:?}, B: {:?})",
        b_result.as_ref().map(|r| r.rows_affected)
    );
    if a_deadlocked {
        assert!(a.in_transaction());
        a.execute("rollback").unwrap();
        // B waited for A and now has row 1.
        b.execute("commit").unwrap();
    } else {
        a.execute("commit").unwrap();
    }
    let result = a.execute("select id, bal from acct order by id").unwrap();
    let balances: Vec<(i64, i64)> = result
        .rows
        .iter()
        .map(|row| (integer(&row[0]), integer(&row[1])))
        .collect();
    if a_deadlocked {
        assert_eq!(balances, vec![(1, 120), (2, 80)]);
    } else {
        assert_eq!(balances, vec![(1, 90), (2, 110)]);
    }
    println!(
        "pair: deadlock reported to {}",
        if a_deadlocked { "A" } else { "B" }
    );
    done.store(true, Ordering::SeqCst);
    drop(a);
    drop(b);
    instance.shutdown().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A statement that copied a block while another transaction's change was in it, and
/// judges the copy after that transaction rolled back, must still see the row as it was
/// before the change (the rolled-back xid stays known until every older snapshot ends).
#[test]
fn a_version_copied_before_a_rollback_stays_invisible() {
    use pythia::access::{heap, segment};
    use pythia::buffer::AccessKind;

    let dir = temp_dir("rollback-copy");
    let instance = Instance::open(&dir, SMALL).unwrap();
    let mut writer = instance.connect().unwrap();
    writer
        .execute("create table acct (id number primary key, bal number not null)")
        .unwrap();
    writer
        .execute("insert into acct (id, bal) values (1, 1000)")
        .unwrap();
    writer.execute("commit").unwrap();
    writer
        .execute("update acct set bal = bal + 5 where id = 1")
        .unwrap();

    let transactions = instance.transactions();
    let storage = instance.catalog().storage();
    let snapshot = transactions.snapshot();
    let table = instance.catalog().current().table("ACCT").unwrap().clone();
    let blocks = segment::used_blocks(&storage.cache, table.segment).unwrap();
    let pieces: Vec<_> = blocks
        .iter()
        .flat_map(|block| {
            heap::pieces(&storage.cache.read(*block, AccessKind::Scan).unwrap()).unwrap()
        })
        .collect();
    assert_eq!(pieces.len(), 1);

    writer.execute("rollback").unwrap();
    // Ended transactions are pruned from the table every so often: not this one yet.
    transactions.prune();
    let (_, piece) = pieces.into_iter().next().unwrap();
    let seen = transactions
        .consistent_version(piece, snapshot.scn, 0)
        .unwrap()
        .map(|data| pythia::types::decode_row(&data).unwrap());
    assert_eq!(
        seen,
        Some(vec![Value::integer(1), Value::integer(1000)]),
        "the rolled-back +5 must not be visible"
    );
    drop(snapshot);
    drop(writer);
    drop(instance);
    let _ = std::fs::remove_dir_all(&dir);
}
