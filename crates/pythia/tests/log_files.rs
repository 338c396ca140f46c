//! Online log groups, log switches, archiving and the recovery report, through SQL
//! (docs/architecture/redo.md): v$log, v$logfile and v$archived_log, `ALTER SYSTEM SWITCH
//! LOGFILE` and `CHECKPOINT`, `log_archive_dest`, and a redo block damaged before a crash.
//!
//! What these pin: v$log and v$logfile did not exist (the rows were there, unshown); nothing
//! archived full logs; and recovery stopped at a torn or corrupt redo block without saying
//! where or why.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pythia::instance::{Instance, ALERT_FILE};
use pythia::io::vfs::{SimVfs, Vfs};
use pythia::Session;

mod common;
use common::{run, temp_dir, text_rows, SMALL};

/// Opens a new database in a fresh directory with SMALL and `extra`.
fn open(name: &str, extra: &[(&str, &str)]) -> (Arc<Instance>, PathBuf) {
    let dir = temp_dir(name);
    let mut parameters: Vec<(&str, &str)> = SMALL.to_vec();
    parameters.extend_from_slice(extra);
    let instance = Instance::open(&dir, &parameters).unwrap();
    (instance, dir)
}

fn number(text: &str) -> u64 {
    text.parse()
        .unwrap_or_else(|_| panic!("{text:?} is not a number"))
}

/// v$log as (group, sequence, status, archived, first change, next change) by group.
fn log_rows(session: &mut Session) -> Vec<(u64, u64, String, String, u64, String)> {
    text_rows(
        session,
        "SELECT group#, sequence#, status, archived, first_change#, next_change# FROM v$log ORDER BY group#",
    )
    .into_iter()
    .map(|row| {
        (
            number(&row[0]),
            number(&row[1]),
            row[2].clone(),
            row[3].clone(),
            number(&row[4]),
            row[5].clone(),
        )
    })
    .collect()
}

/// The CURRENT group and its sequence.
fn current(session: &mut Session) -> (u64, u64) {
    let current: Vec<(u64, u64)> = log_rows(session)
        .into_iter()
        .filter(|row| row.2 == "CURRENT")
        .map(|row| (row.0, row.1))
        .collect();
    assert_eq!(current.len(), 1, "one CURRENT group: {current:?}");
    current[0]
}

#[test]
fn a_log_switch_moves_current_to_the_next_group_and_a_checkpoint_makes_the_rest_inactive() {
    let (instance, dir) = open("logfiles-switch", &[]);
    let mut session = instance.connect().unwrap();
    let rows = log_rows(&mut session);
    assert_eq!(rows.len(), 3, "three groups: {rows:?}");
    let (group, sequence) = current(&mut session);

    run(&mut session, "ALTER SYSTEM SWITCH LOGFILE");
    let (next_group, next_sequence) = current(&mut session);
    assert_eq!(next_group, group % 3 + 1);
    assert_eq!(next_sequence, sequence + 1);
    let rows = log_rows(&mut session);
    let old = &rows[group as usize - 1];
    assert_eq!(old.1, sequence);
    assert!(old.2 == "ACTIVE" || old.2 == "INACTIVE", "{old:?}");
    assert_eq!(old.3, "NO", "no archiving: nothing is archived");
    let new = &rows[next_group as usize - 1];
    assert_eq!(
        number(&old.5),
        new.4,
        "the old sequence ends where the new one starts"
    );
    assert_eq!(new.5, "", "the current sequence has no NEXT_CHANGE#");

    run(&mut session, "ALTER SYSTEM SWITCH LOGFILE");
    run(&mut session, "ALTER SYSTEM CHECKPOINT");
    let (_, last_sequence) = current(&mut session);
    assert_eq!(last_sequence, sequence + 2);
    for row in log_rows(&mut session) {
        if row.2 != "CURRENT" {
            assert_eq!(row.2, "INACTIVE", "after a checkpoint: {row:?}");
        }
    }
    let waits = text_rows(
        &mut session,
        "SELECT total_waits FROM v$system_event WHERE event = 'log file switch completion'",
    );
    assert!(number(&waits[0][0]) >= 2, "{waits:?}");

    let files = text_rows(
        &mut session,
        "SELECT group#, status, type, member, is_recovery_dest_file FROM v$logfile ORDER BY group#",
    );
    let expected: Vec<Vec<String>> = (1..=3)
        .map(|group| {
            vec![
                group.to_string(),
                String::new(),
                "ONLINE".to_string(),
                dir.join(format!("redo{group:02}.log"))
                    .display()
                    .to_string(),
                "NO".to_string(),
            ]
        })
        .collect();
    assert_eq!(files, expected);
}

/// Checks an archived log as a stranger would: its header's magic and CRC-32C, then every
/// redo block's CRC-32C, sequence and block number. Returns (sequence, redo blocks).
fn check_archive_file(path: &Path) -> (u64, u64) {
    let bytes = std::fs::read(path).unwrap();
    let u32_at = |block: &[u8], offset: usize| {
        u32::from_le_bytes(block[offset..offset + 4].try_into().unwrap())
    };
    let header = &bytes[..512];
    assert_eq!(&header[..8], b"PYTHRLOG", "{}", path.display());
    assert_eq!(u32_at(header, 8), crc32c::crc32c(&header[12..]));
    let sequence = u32_at(header, 16) as u64;
    let blocks = u32_at(header, 68) as u64;
    assert_eq!(bytes.len() as u64, (blocks + 1) * 512, "{}", path.display());
    for number in 1..=blocks {
        let block = &bytes[number as usize * 512..(number as usize + 1) * 512];
        assert_eq!(
            u32_at(block, 0),
            crc32c::crc32c(&block[4..]),
            "block {number}"
        );
        assert_eq!(u32_at(block, 4) as u64, sequence);
        assert_eq!(u32_at(block, 8) as u64, number);
    }
    (sequence, blocks)
}

/// Waits (bounded) until ARC0 has archived every sequence before the current one.
fn wait_until_archived(session: &mut Session) -> u64 {
    for _ in 0..3000 {
        let (_, sequence) = current(session);
        let archived = text_rows(session, "SELECT count(*) FROM v$archived_log");
        if number(&archived[0][0]) == sequence - 1 {
            return sequence;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("ARC0 did not archive every full log");
}

#[test]
fn archiving_copies_every_full_log_and_each_copy_passes_its_checksums() {
    let dir = temp_dir("logfiles-archiving");
    let destination = dir.join("arch");
    std::fs::create_dir_all(&destination).unwrap();
    let destination_text = destination.display().to_string();
    let mut parameters: Vec<(&str, &str)> = SMALL.to_vec();
    parameters.extend_from_slice(&[
        ("log_file_size", "1M"),
        ("log_groups", "2"),
        ("log_archive_dest", &destination_text),
    ]);
    let instance = Instance::open(&dir, &parameters).unwrap();
    let mut session = instance.connect().unwrap();
    run(
        &mut session,
        "CREATE TABLE t (id NUMBER, pad VARCHAR2(1000))",
    );
    // Redo past several switches: two groups only, so that sessions must wait for ARC0 at
    // times, and switches both forced and by a full log.
    for round in 0..4 {
        for id in 0..150 {
            run(
                &mut session,
                &format!(
                    "INSERT INTO t VALUES ({}, rpad('x', 900, 'x'))",
                    round * 150 + id
                ),
            );
        }
        run(&mut session, "COMMIT");
        run(&mut session, "ALTER SYSTEM SWITCH LOGFILE");
    }
    run(&mut session, "UPDATE t SET pad = rpad('y', 900, 'y')");
    run(&mut session, "COMMIT");
    let sequence = wait_until_archived(&mut session);
    assert!(
        sequence >= 6,
        "several switches: now in sequence {sequence}"
    );

    let rows = text_rows(
        &mut session,
        "SELECT name, sequence#, first_change#, next_change#, blocks, block_size, archived, status, completion_time FROM v$archived_log ORDER BY sequence#",
    );
    let mut next_change = 0;
    for (index, row) in rows.iter().enumerate() {
        let sequence = index as u64 + 1;
        let path = destination.join(format!("arch_{sequence}.arc"));
        assert_eq!(row[0], path.display().to_string());
        assert_eq!(number(&row[1]), sequence);
        assert_eq!(number(&row[2]), next_change, "sequences follow one another");
        next_change = number(&row[3]);
        assert_eq!(check_archive_file(&path), (sequence, number(&row[4])));
        assert!(number(&row[4]) > 0);
        assert_eq!(row[5..8], ["512", "YES", "A"]);
        assert!(!row[8].is_empty(), "a completion time");
    }
    for row in log_rows(&mut session) {
        let expected = if row.2 == "CURRENT" { "NO" } else { "YES" };
        assert_eq!(row.3, expected, "{row:?}");
    }
    let alert = std::fs::read_to_string(dir.join(ALERT_FILE)).unwrap();
    assert!(alert.contains("ARC0: Archived log"), "{alert}");

    // The list survives a restart: it is rebuilt from the files.
    drop(session);
    instance.shutdown().unwrap();
    drop(instance);
    let instance = Instance::open(&dir, &parameters).unwrap();
    let mut session = instance.connect().unwrap();
    let listed = text_rows(
        &mut session,
        "SELECT name, sequence#, first_change#, next_change#, blocks, block_size, archived, status, completion_time FROM v$archived_log ORDER BY sequence#",
    );
    assert_eq!(listed[..rows.len()], rows[..]);
}

/// Every file under `dir`, recursively (bounded by the test's small directory).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn with_archiving_off_nothing_is_archived() {
    let (instance, dir) = open("logfiles-noarchivelog", &[("log_groups", "2")]);
    let mut session = instance.connect().unwrap();
    run(&mut session, "CREATE TABLE t (id NUMBER)");
    for id in 0..4 {
        run(&mut session, &format!("INSERT INTO t VALUES ({id})"));
        run(&mut session, "COMMIT");
        run(&mut session, "ALTER SYSTEM SWITCH LOGFILE");
    }
    let (_, sequence) = current(&mut session);
    assert!(sequence >= 5);
    assert!(log_rows(&mut session).iter().all(|row| row.3 == "NO"));
    assert_eq!(
        text_rows(&mut session, "SELECT count(*) FROM v$archived_log"),
        [["0"]]
    );
    let archives: Vec<PathBuf> = files_under(&dir)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|extension| extension == "arc"))
        .collect();
    assert!(archives.is_empty(), "{archives:?}");
    let alert = std::fs::read_to_string(dir.join(ALERT_FILE)).unwrap();
    assert!(!alert.contains("ARC0"), "{alert}");
}

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
