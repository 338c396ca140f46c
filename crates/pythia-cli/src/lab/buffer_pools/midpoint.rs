//! `pythia lab midpoint`: seed 001's Table 9, Oracle8i's midpoint insertion. BUFFER_STUFFER
//! (the `stuffer` experiment's objects, query and virtual time: [`super::stuffer`]) in one
//! 1000-buffer DEFAULT pool: the classic LRU first (Oracle 8.0, TEST0), then the touch count
//! at `_db_percent_hot_default` 50, 0, 75 and 25; each run's physical reads beside the seed's,
//! Belady's optimum for the same gets, and the seed's own objects (Table 8) replayed.

use std::path::Path;

use comfy_table::Table;

use super::stuffer::{
    build, objects_table, off_by, ratio, seed_model, stuff, Algorithm, CACHE_BUFFERS,
    ITERATION_MILLIS, TABLE_4, TABLE_8,
};

/// Table 9: Oracle8i, one 1000-buffer DEFAULT pool, by `_db_percent_hot_default` (None: the
/// Oracle 8.0 baseline, the classic LRU), with its physical and logical reads.
const MIDPOINT_TESTS: [(&str, Option<u32>, u64, u64); 5] = [
    ("TEST0", None, 16_018, 30_164),
    ("TEST1", Some(50), 11_233, 20_317),
    ("TEST2", Some(0), 13_525, 20_321),
    ("TEST3", Some(75), 11_452, 20_316),
    ("TEST4", Some(25), 12_122, 20_318),
];

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let started = std::time::Instant::now();
    println!(
        "midpoint experiment (seed 001, Table 9): BUFFER_STUFFER in one {CACHE_BUFFERS}-buffer DEFAULT pool, \
         by _db_percent_hot_default; virtual time {ITERATION_MILLIS} ms per access"
    );
    if quick {
        println!("(quick changes nothing here: the experiment is its full size)");
    }
    let segments = build(&dir.join("db"))?;
    println!("{}", objects_table(&segments));
    let mut table = Table::new();
    table.set_header(vec![
        "test",
        "_db_percent_hot_default",
        "physical reads",
        "logical reads",
        "hit ratio",
        "Belady",
        "seed physical",
        "seed hit ratio",
        "vs seed",
        "seed's objects replayed",
        "replayed vs seed",
    ]);
    for (name, percent_hot, seed_physical, seed_logical) in MIDPOINT_TESTS {
        let percent = percent_hot.map(|percent| percent.to_string());
        let mut parameters = vec![("db_block_buffers", "1000"), ("db_block_lru_latches", "3")];
        match &percent {
            Some(percent) => parameters.push(("_db_percent_hot_default", percent.as_str())),
            None => parameters.push(("_db_lru_algorithm", "LRU")),
        }
        let run = stuff(&dir.join("db"), &parameters, &["DEFAULT"; 4])?;
        // TEST0 is Oracle 8.0's run, on Table 4's objects; the others Oracle8i's, Table 8's.
        let (objects, algorithm) = match percent_hot {
            Some(_) => (TABLE_8, Algorithm::TouchCount),
            None => (TABLE_4, Algorithm::Lru),
        };
        let model = seed_model(
            objects,
            &["DEFAULT"; 4],
            &[("DEFAULT", CACHE_BUFFERS)],
            algorithm,
            percent_hot.unwrap_or(0),
        );
        table.add_row(vec![
            name.to_string(),
            percent.unwrap_or_else(|| "N/A (LRU)".to_string()),
            run.physical_reads().to_string(),
            run.logical_reads().to_string(),
            ratio(run.physical_reads(), run.logical_reads()),
            run.belady().to_string(),
            seed_physical.to_string(),
            ratio(seed_physical, seed_logical),
            off_by(run.physical_reads(), seed_physical),
            model.replayed.to_string(),
            off_by(model.replayed, seed_physical),
        ]);
    }
    println!("{table}");
    println!(
        "midpoint experiment in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The touch count replayed on Table 8's objects at the seed's pace reproduces Table 9:
    /// each `_db_percent_hot_default` within 5% of the seed's physical reads.
    #[test]
    fn the_seeds_objects_reproduce_table_9() {
        for (name, percent_hot, seed_physical, _) in MIDPOINT_TESTS {
            let Some(percent_hot) = percent_hot else {
                continue;
            };
            let model = seed_model(
                TABLE_8,
                &["DEFAULT"; 4],
                &[("DEFAULT", CACHE_BUFFERS)],
                Algorithm::TouchCount,
                percent_hot,
            );
            let off = model.replayed as f64 / seed_physical as f64 - 1.0;
            assert!(
                off.abs() < 0.05,
                "{name} ({percent_hot}% hot): {} reads, the seed {seed_physical}",
                model.replayed
            );
        }
    }
}
