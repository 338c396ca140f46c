//! `pythia dbv DIR`: DBVERIFY of a closed database (`pythia::instance::dbverify`), printed
//! the way Oracle's `dbv` prints a datafile's summary, then one line per online log file.
//!
//! Exit status 1 when a block fails that no open would repair (a failing datafile block
//! without a whole image in the double-write file, a damaged redo block, or redo past a
//! hole), or when the directory cannot be verified (no database, or open in an instance).

use std::path::Path;

use pythia::instance::dbverify;

pub fn run(dir: &Path) -> i32 {
    let report = match dbverify::verify(pythia::io::vfs::os().as_ref(), dir) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("{error}");
            return 1;
        }
    };
    println!(
        "DBVERIFY: {} ({}, checkpoint at LSN {})",
        dir.display(),
        if report.creating {
            "its creation did not finish: the next open creates it anew"
        } else if report.clean_shutdown {
            "closed cleanly"
        } else {
            "needs crash recovery"
        },
        report.checkpoint_lsn
    );
    for file in &report.datafiles {
        println!();
        println!(
            "DBVERIFY - Verification starting : FILE = {}",
            file.path.display()
        );
        println!("Total Pages Examined         : {}", file.examined);
        println!("Total Pages Processed (Data) : {}", file.data);
        println!("Total Pages Processed (Index): {}", file.index);
        println!("Total Pages Processed (Other): {}", file.other);
        println!("Total Pages Failing          : {}", file.failing.len());
        println!(
            "  of which in dblwr.dat      : {}",
            file.failing
                .iter()
                .filter(|(_, restorable)| *restorable)
                .count()
        );
        println!("Total Pages Empty            : {}", file.empty);
        for (id, restorable) in &file.failing {
            let what = if *restorable {
                "torn; the next open restores it from dblwr.dat"
            } else {
                "corrupt"
            };
            println!("Page {id} failed: {what}");
        }
    }
    println!();
    for log in &report.log_files {
        let sequence = log
            .sequence
            .map_or("no valid header".to_string(), |sequence| {
                format!("sequence {sequence}")
            });
        println!(
            "{} (group {}, {sequence}): {} blocks, {} valid holding {} records ({} bytes cut \
             by a crash), {} unwritten, {} stale, {} unreachable, {} damaged",
            log.path.display(),
            log.group,
            log.blocks,
            log.valid,
            log.records,
            log.cut_bytes,
            log.unwritten,
            log.stale,
            log.unreachable.len(),
            log.damaged.len()
        );
    }
    let problems = report.problems(false);
    println!();
    for problem in &problems {
        println!("{problem}");
    }
    println!(
        "DBVERIFY - Verification complete: {} blocks examined, {}",
        report.blocks_examined(),
        if problems.is_empty() {
            "no block that an open would not repair fails".to_string()
        } else {
            format!("{} blocks fail beyond repair", problems.len())
        }
    );
    i32::from(!problems.is_empty())
}
