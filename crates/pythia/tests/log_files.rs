//! Recovery after a crash through SQL (docs/architecture/redo.md): a redo block damaged
//! before the crash.
//!
//! What this pins: recovery stopped at a torn or corrupt redo block without saying where or
//! why.

use std::sync::Arc;

use pythia::instance::{Instance, ALERT_FILE};
use pythia::storage::vfs::{SimVfs, Vfs};

mod common;
use common::{run, temp_dir, text_rows, SMALL};

/// A redo block in the middle of what recovery reads is damaged after the crash (its
/// checksum no longer matches). Recovery must stop at the last good record before it, apply
/// nothing of what follows, open the database, and say in the alert log which block ended it
/// and why.
#[test]
fn a_torn_redo_block_ends_recovery_at_the_last_good_record_and_the_alert_log_names_it() {
    // The files live in a simulated file system; the alert log is written to the real
    // directory of the same name.
    let dir = temp_dir("logfiles-torn");
    std::fs::create_dir_all(&dir).unwrap();
    let vfs = SimVfs::new(61);
    vfs.create_dir_all(&dir).unwrap();
    let parameters = Instance::read_parameters(&vfs, &dir, SMALL).unwrap();
    let instance =
        Instance::open_with_parameters(Arc::new(vfs.clone()), &dir, parameters.clone()).unwrap();
    let mut session = instance.connect().unwrap();
    run(&mut session, "CREATE TABLE t (id NUMBER)");
    run(&mut session, "ALTER SYSTEM CHECKPOINT");
    // Each commit writes the log and ends its write on a redo block boundary: the next
    // transaction's redo starts in a block of its own.
    let mut starts = Vec::new();
    for id in 1..=8 {
        starts.push(instance.log().written_lsn());
        run(&mut session, &format!("INSERT INTO t VALUES ({id})"));
        run(&mut session, "COMMIT");
    }
    let (sequence, sequence_start) = instance.log().current_position();
    let group = instance.log().group_of(sequence).path.clone();
    drop(session);
    instance.abandon();
    drop(instance);

    // The crash keeps everything written; then the first block of the fifth transaction's
    // redo is damaged.
    let after = vfs.crash_keep_all();
    let block = (starts[4] - sequence_start) / 496 + 1;
    let file = after.open(&group, false).unwrap();
    let mut bytes = vec![0u8; 512];
    file.read_at(&mut bytes, block * 512).unwrap();
    bytes[200] ^= 0x5A;
    file.write_at(&bytes, block * 512).unwrap();
    file.sync_data().unwrap();

    let reopened =
        Instance::open_with_parameters(Arc::new(after.clone()), &dir, parameters.clone()).unwrap();
    let report = reopened.open_report().roll_forward.clone().unwrap();
    assert!(report.stop.is_damage(), "{}", report.stop);
    assert_eq!(
        report.end_lsn, starts[4],
        "the last good record ends the fourth transaction"
    );
    let mut session = reopened.connect().unwrap();
    assert_eq!(
        text_rows(&mut session, "SELECT id FROM t ORDER BY id"),
        [["1"], ["2"], ["3"], ["4"]],
        "the four transactions before the damaged block, nothing after it"
    );
    let alert = std::fs::read_to_string(dir.join(ALERT_FILE)).unwrap();
    let named = format!(
        "torn or corrupt redo block: sequence {sequence} block {block} fails its checksum; recovery stops at the last good record"
    );
    assert!(alert.contains(&named), "{alert}");
    assert!(alert.contains("Completed redo application of"), "{alert}");

    // The database works on, and a second crash recovers the new work too: the new redo
    // overwrote the damaged block, and the stale blocks after it end the redo.
    run(&mut session, "INSERT INTO t VALUES (9)");
    run(&mut session, "COMMIT");
    drop(session);
    reopened.abandon();
    drop(reopened);
    let again =
        Instance::open_with_parameters(Arc::new(after.crash_keep_all()), &dir, parameters).unwrap();
    let report = again.open_report().roll_forward.clone().unwrap();
    assert!(!report.stop.is_damage(), "{}", report.stop);
    let mut session = again.connect().unwrap();
    assert_eq!(
        text_rows(&mut session, "SELECT id FROM t ORDER BY id"),
        [["1"], ["2"], ["3"], ["4"], ["9"]]
    );
}
