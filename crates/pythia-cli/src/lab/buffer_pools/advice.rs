//! `pythia lab advice`: how well v$db_cache_advice predicts the physical reads of other cache
//! sizes, checked by running them (`docs/lab-buffer-pools.md`, "Cache advice").
//!
//! ```text
//!   build Table 4's objects once (stuffer.rs)
//!   per algorithm (classic LRU, touch count):
//!     BUFFER_STUFFER in one 1000-buffer DEFAULT pool, once per sample factor (4: the
//!       default, and 1: every block simulated); read v$db_cache_advice for the run
//!     rerun at 500, 700, 1500 and 2000 buffers (db_block_buffers): the physical reads
//!       each size really makes
//!     print predicted against measured, with the error (target: within 10%), and a
//!       one-list replay of the 1000-buffer run's recorded gets through the algorithm at each
//!       size (the cache's own policy, no sampling, no working sets, no correction)
//! ```
//!
//! The advice simulates what the pool runs: the classic LRU in Mattson's stack, one per
//! working set; the touch count in miniature caches, 20 per working set (`buffer/advice.rs`,
//! `buffer/miniature.rs`). The runs are deterministic (virtual time, one session, whose
//! pending samples the view applies before it answers): a rerun prints the same figures.

use std::path::Path;

use comfy_table::Table;
use std::sync::Arc;

use pythia::buffer::simulate::{self, Access};
use pythia::buffer::{
    AgingParameters, BufferPool, ClassicLruPolicy, TouchCountPolicy, VirtualClock,
};

use super::stuffer::{build, stuff, Run, CACHE_BUFFERS};

/// The sizes rerun to check the advice, in buffers (0.5, 0.7, 1.5 and 2.0 of the pool).
const RERUN_BUFFERS: [usize; 4] = [500, 700, 1_500, 2_000];

/// The sample factors whose advice is checked: Oracle's default, and every block.
const SAMPLE_FACTORS: [usize; 2] = [4, 1];

/// The target: a prediction within this share of what the rerun measures.
const ERROR_TARGET: f64 = 0.10;

/// Runs BUFFER_STUFFER in one DEFAULT pool of `buffers` buffers (3 LRU latches, as Table 5),
/// aged by `algorithm`, the advice sampling one block in `sample_factor`.
fn run_at(
    dir: &Path,
    buffers: usize,
    algorithm: &str,
    sample_factor: usize,
) -> pythia::Result<Run> {
    let buffers = buffers.to_string();
    let sample_factor = sample_factor.to_string();
    let parameters = [
        ("db_block_buffers", buffers.as_str()),
        ("db_block_lru_latches", "3"),
        ("_db_lru_algorithm", algorithm),
        ("_db_cache_advice_sample_factor", sample_factor.as_str()),
    ];
    stuff(dir, &parameters, &["DEFAULT"; 4])
}

/// The DEFAULT pool's estimated reads at `buffers`, if the advice has that size.
fn predicted(run: &Run, buffers: usize) -> Option<u64> {
    run.advice
        .iter()
        .find(|(pool, size, _)| *pool == BufferPool::Default && *size == buffers)
        .map(|(_, _, reads)| *reads)
}

/// The misses of `trace` replayed through one list of `buffers` aged by `algorithm` (the
/// experiment's default aging parameters for the touch count).
fn replayed(algorithm: &str, buffers: usize, trace: &[Access]) -> u64 {
    if algorithm == "LRU" {
        return simulate::replay(&ClassicLruPolicy::new(buffers), buffers, trace, None).misses;
    }
    let clock = Arc::new(VirtualClock::new(0));
    let policy = TouchCountPolicy::new(buffers, AgingParameters::DEFAULT_POOL, clock.clone());
    simulate::replay(&policy, buffers, trace, Some(&clock)).misses
}

fn error(predicted: u64, measured: u64) -> f64 {
    predicted as f64 / measured as f64 - 1.0
}

/// "12,345 (+3.1%)", with a mark where the error is outside the target.
fn with_error(predicted: Option<u64>, measured: u64) -> String {
    let Some(predicted) = predicted else {
        return "-".to_string();
    };
    let off = error(predicted, measured);
    let mark = if off.abs() > ERROR_TARGET { " *" } else { "" };
    format!("{predicted} ({:+.1}%){mark}", 100.0 * off)
}

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let started = std::time::Instant::now();
    println!(
        "advice experiment: v$db_cache_advice after BUFFER_STUFFER in one {CACHE_BUFFERS}-buffer \
         DEFAULT pool, against reruns at {RERUN_BUFFERS:?} buffers (target: within {:.0}%)",
        100.0 * ERROR_TARGET
    );
    if quick {
        println!("(quick changes nothing here: the experiment is its full size)");
    }
    let database = dir.join("db");
    build(&database)?;
    let mut worst: Vec<(String, f64)> = Vec::new();
    for (algorithm, label) in [
        ("LRU", "classic LRU (simulated in Mattson's stack)"),
        (
            "TOUCH_COUNT",
            "touch count (the default; simulated in miniature caches)",
        ),
    ] {
        let advised: Vec<Run> = SAMPLE_FACTORS
            .iter()
            .map(|&factor| run_at(&database, CACHE_BUFFERS, algorithm, factor))
            .collect::<pythia::Result<_>>()?;
        let current = advised[0].physical_reads();
        let trace = advised[0].trace.all();
        let mut table = Table::new();
        table.set_header(vec![
            "buffers",
            "size factor",
            "measured (rerun)",
            "advice, 1 block in 4",
            "advice, every block",
            "one-list replay",
        ]);
        let mut sizes: Vec<(usize, u64)> = vec![(CACHE_BUFFERS, current)];
        for buffers in RERUN_BUFFERS {
            let rerun = run_at(&database, buffers, algorithm, SAMPLE_FACTORS[0])?;
            sizes.push((buffers, rerun.physical_reads()));
        }
        sizes.sort_unstable();
        for (buffers, measured) in sizes {
            let replayed = replayed(algorithm, buffers, &trace);
            let predictions: Vec<Option<u64>> =
                advised.iter().map(|run| predicted(run, buffers)).collect();
            for (factor, prediction) in SAMPLE_FACTORS.iter().zip(&predictions) {
                if let (Some(prediction), true) = (prediction, buffers != CACHE_BUFFERS) {
                    worst.push((
                        format!("{algorithm}, {buffers} buffers, 1 in {factor}"),
                        error(*prediction, measured),
                    ));
                }
            }
            table.add_row(vec![
                buffers.to_string(),
                format!("{:.1}", buffers as f64 / CACHE_BUFFERS as f64),
                measured.to_string(),
                with_error(predictions[0], measured),
                with_error(predictions[1], measured),
                format!("{replayed} ({:+.1}%)", 100.0 * error(replayed, measured)),
            ]);
        }
        println!("\n{label}: physical reads, predicted (error against the rerun)");
        println!("{table}");
    }
    let outside = worst
        .iter()
        .filter(|(_, off)| off.abs() > ERROR_TARGET)
        .count();
    if let Some((name, off)) = worst.iter().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())) {
        println!(
            "largest error: {name}, {:+.1}%; {outside} of {} predictions outside {:.0}% (marked *)",
            100.0 * off,
            worst.len(),
            100.0 * ERROR_TARGET
        );
    }
    println!(
        "advice experiment in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
