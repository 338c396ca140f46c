//! `pythia lab hitpath`: the buffer cache's hit path, one thread against two.
//!
//! ```text
//!   a table's blocks, all cached --> T threads, each: get a random block (consistent get,
//!                                    BufferCache::read), release it; for ROUND_MILLIS
//!   rounds: 1 thread, 2 threads, 1 thread, ... (interleaved: this VM's speed drifts)
//! ```
//!
//! A hit takes the hash chain's latch in shared mode, pins the buffer and counts a touch; it
//! moves nothing in the replacement list (`docs/buffer-pools.md`). So two threads on two CPUs
//! should get nearly twice the gets of one (the issue's target: at least 1.7x).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use comfy_table::Table;
use pythia::access::segment;
use pythia::buffer::AccessKind;
use pythia::instrumentation::{self, SessionInstrumentation, SessionType};
use pythia::{Instance, Value};

use crate::lab::common::{lab_error, median, Rng};

const ROWS: i64 = 20_000;

fn rounds(quick: bool) -> usize {
    if quick {
        3
    } else {
        7
    }
}

fn round_millis(quick: bool) -> u64 {
    if quick {
        300
    } else {
        1_000
    }
}

fn best(rates: &[f64]) -> f64 {
    rates.iter().copied().fold(0.0, f64::max)
}

/// Which blocks each thread reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Blocks {
    /// Each thread its own half of the table: sessions working on different rows.
    Own,
    /// Every thread all of them: sessions reading the same rows, whose buffers' pins, content
    /// locks and hash chain latches they all write.
    Shared,
}

/// Gets per second of `threads` threads reading `blocks` at random for `millis`.
fn measure(
    instance: &Arc<Instance>,
    blocks: &[pythia::io::block::BlockId],
    mode: Blocks,
    threads: usize,
    millis: u64,
) -> pythia::Result<f64> {
    let total = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for number in 0..threads {
            let (total, stop, failed) = (&total, &stop, &failed);
            scope.spawn(move || {
                // A session per thread, entered for the whole loop as a dedicated server's
                // is during a call: its statistics are its own (without one they would go to
                // the shared, unattributed counters, one cache line for every thread).
                let Ok(session) = SessionInstrumentation::new(SessionType::User, "LAB", "hitpath")
                else {
                    failed.store(true, Ordering::Relaxed);
                    return;
                };
                let _entered = instrumentation::enter(&session);
                let mut rng = Rng::new(number as u64 + 1);
                let mut gets = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..256 {
                        let block = match mode {
                            Blocks::Shared => blocks[rng.below(blocks.len() as u64) as usize],
                            Blocks::Own => {
                                let share = blocks.len() / threads;
                                blocks[number * share + rng.below(share as u64) as usize]
                            }
                        };
                        match instance.cache().read(block, AccessKind::Lookup) {
                            Ok(read) => drop(read),
                            Err(_) => {
                                failed.store(true, Ordering::Relaxed);
                                return;
                            }
                        }
                        gets += 1;
                    }
                }
                total.fetch_add(gets, Ordering::Relaxed);
            });
        }
        std::thread::sleep(Duration::from_millis(millis));
        stop.store(true, Ordering::Relaxed);
    });
    if failed.load(Ordering::Relaxed) {
        return Err(lab_error(
            "a session could not connect or a cached block could not be read",
        ));
    }
    Ok(total.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64())
}

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let instance = Instance::open(dir, &[("db_cache_size", "64M")])?;
    let mut session = instance.connect()?;
    session.execute("CREATE TABLE hitpath_t (id NUMBER, pad VARCHAR2(100))")?;
    let insert = session.prepare("INSERT INTO hitpath_t VALUES (:1, :2)")?;
    for id in 1..=ROWS {
        session.execute_prepared(&insert, &[Value::integer(id), Value::text("x".repeat(80))])?;
    }
    session.execute("COMMIT")?;
    let table = instance
        .catalog()
        .current()
        .tables
        .values()
        .find(|table| table.name == "HITPATH_T")
        .cloned()
        .ok_or_else(|| lab_error("HITPATH_T is not in the dictionary"))?;
    let blocks = segment::used_blocks(instance.cache(), table.segment)?;
    for &block in &blocks {
        drop(instance.cache().read(block, AccessKind::Lookup)?);
    }
    println!(
        "hitpath experiment: {} cached blocks read at random (consistent gets through BufferCache::read), \
         1 and 2 threads, {} interleaved rounds of {} ms",
        blocks.len(),
        rounds(quick),
        round_millis(quick)
    );
    // With the cache advice as configured (ON by default: the blocks of one address in four
    // are simulated, their gets batched per thread and applied under each working set's
    // 'simulator lru latch' once per batch), then OFF.
    for (advice, mode) in [
        ("ON", Blocks::Own),
        ("ON", Blocks::Shared),
        ("OFF", Blocks::Own),
        ("OFF", Blocks::Shared),
    ] {
        session.execute(&format!(
            "ALTER SYSTEM SET db_cache_advice = {advice} SCOPE = MEMORY"
        ))?;
        let mut one = Vec::new();
        let mut two = Vec::new();
        for _ in 0..rounds(quick) {
            one.push(measure(&instance, &blocks, mode, 1, round_millis(quick))?);
            two.push(measure(&instance, &blocks, mode, 2, round_millis(quick))?);
        }
        let mut table = Table::new();
        table.set_header(vec![
            "threads",
            "best gets/s",
            "median gets/s",
            "rounds (gets/s)",
        ]);
        for (threads, rates) in [(1, &one), (2, &two)] {
            table.add_row(vec![
                threads.to_string(),
                format!("{:.0}", best(rates)),
                format!("{:.0}", median(rates)),
                rates
                    .iter()
                    .map(|rate| format!("{:.2}M", rate / 1e6))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]);
        }
        let reading = match mode {
            Blocks::Own => "each thread its own half of the blocks",
            Blocks::Shared => "every thread all the blocks",
        };
        println!("db_cache_advice = {advice}, {reading}\n{table}");
        println!(
            "2 threads / 1 thread: best {:.2}x, median {:.2}x (target: at least 1.7x)",
            best(&two) / best(&one),
            median(&two) / median(&one)
        );
    }
    drop(session);
    instance.shutdown()
}
