use std::time::Duration;

use crate::io::block::BlockId;
use crate::io::vfs::SimVfs;
use crate::redo::record::{self, RecordBuilder};

use super::*;

/// A valid record of exactly `length` bytes (one vector with one changed range).
fn record_of(length: usize) -> Vec<u8> {
    let changed = length - record::RECORD_HEADER_BYTES - record::VECTOR_HEADER_BYTES - 4;
    let before = vec![0u8; 2048];
    let mut after = before.clone();
    after[100..100 + changed].fill(0xAB);
    let mut builder = RecordBuilder::new(1, 0);
    assert!(builder.push_vector(BlockId::new(1, 1), &before, &after, false));
    let bytes = builder.finish();
    assert_eq!(bytes.len(), length);
    bytes
}

/// The stream of sequence 1 read back, split into records.
fn records_on_disk(log: &RedoLog) -> Vec<u64> {
    let mut epoch = 0;
    let segments = log.read_sequence(1, 0, 0, &mut epoch).unwrap().segments;
    segments
        .iter()
        .flat_map(|(start, stream)| RedoLog::split_records(stream, *start, 0).0)
        .map(|(lsn, _)| lsn)
        .collect()
}

/// A record ending one to three bytes before a redo block's end leaves too little room
/// for the next length word. Whether LGWR's write pads that gap or the next record does,
/// the reader must step over it; it once stopped there and lost every later commit.
#[test]
fn a_gap_too_small_for_a_length_word_is_padding_whoever_pads_it() {
    for gap in 1..=3usize {
        for write_between in [true, false] {
            let vfs = SimVfs::new(gap as u64);
            let log = started_log(&vfs);
            let (first, end) = log.append(&record_of(REDO_PAYLOAD_BYTES - gap)).unwrap();
            if write_between {
                log.write_once().unwrap();
            }
            let (second, _) = log.append(&record_of(100)).unwrap();
            log.write_once().unwrap();
            assert_eq!(first, 0);
            assert_eq!(end as usize, REDO_PAYLOAD_BYTES - gap);
            assert_eq!(
                second as usize, REDO_PAYLOAD_BYTES,
                "the next record starts a block"
            );
            assert_eq!(records_on_disk(&log), vec![first, second], "gap {gap}");
        }
    }
}

/// A log on a simulated file system, started at the beginning of sequence 1, no LGWR.
fn started_log(vfs: &SimVfs) -> RedoLog {
    started_log_sized(vfs, 64 << 10, 1 << 20)
}

/// A log of two groups of `file_size` bytes and a buffer of `buffer_bytes`, at LSN 0.
fn started_log_sized(vfs: &SimVfs, file_size: u64, buffer_bytes: usize) -> RedoLog {
    let dir = std::path::Path::new("/db");
    vfs.create_dir_all(dir).unwrap();
    let log = RedoLog::open(vfs, dir, 2, file_size, buffer_bytes).unwrap();
    let start = StreamPosition {
        sequence: 1,
        sequence_start_lsn: 0,
        next_lsn: 0,
    };
    log.start_at(start, 0, 1).unwrap();
    log
}

/// The bug this pins: the write-ahead rule waited for redo up to a block's LSN, which is
/// where the record of the block's last change starts. A write ends padded to a redo
/// block boundary and the next record starts exactly there, at `written_lsn`: a block
/// changed by that record passed the rule at once, and DBWR wrote it before a byte of its
/// record was on disk. A power loss, or a `kill -9` with the record still in the log
/// buffer, then left changes in the datafiles that no redo describes: an index branch
/// naming a block whose formatting was lost (ORA-00600 at the next open), a transaction
/// table slot naming an undo block that never got its records (an uncommitted
/// transaction's rows kept), space allocated to no segment. Found by `tests/ddl_crash.rs`.
#[test]
fn a_block_write_waits_for_the_whole_record_that_starts_where_a_write_ended() {
    let vfs = SimVfs::new(6);
    let log = started_log(&vfs);
    std::thread::scope(|scope| {
        let lgwr = scope.spawn(|| log.run_lgwr());
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (_, end) = log.append(&record_of(100)).unwrap();
            log.flush_to(end).unwrap();
            let (next, _) = log.append(&record_of(100)).unwrap();
            assert_eq!(
                next,
                log.written_lsn(),
                "the next record starts where the write ended"
            );
            log.flush_record(next).unwrap();
            assert!(log.written_lsn() > next);
            assert_eq!(records_on_disk(&log).last(), Some(&next));
        }));
        log.shutdown(); // before any panic goes on: LGWR must not be left running
        lgwr.join().unwrap();
        if let Err(panic) = checked {
            std::panic::resume_unwind(panic);
        }
    });
}

/// Four sessions append records of many sizes at once through a 64 KiB buffer that wraps
/// around about twenty times, LGWR writing behind them: every record reaches the disk
/// whole, at the LSN its append returned, and nothing else does.
#[test]
fn parallel_copies_through_a_wrapping_buffer_land_whole_at_their_lsns() {
    let vfs = SimVfs::new(11);
    let log = started_log_sized(&vfs, 8 << 20, LOG_BUFFER_BYTES_MIN);
    // Copies slower than LGWR's cycle: a writer that did not wait for them would write
    // the ring's old bytes in their place.
    log.slow_copies.store(true, Ordering::Relaxed);
    let mut appended: Vec<(u64, u64)> = std::thread::scope(|scope| {
        let lgwr = scope.spawn(|| log.run_lgwr());
        let sessions: Vec<_> = (0..4u64)
            .map(|session| {
                let log = &log;
                scope.spawn(move || {
                    (0..300u64)
                        .map(|number| {
                            let length = 60 + ((session * 7919 + number * 104_729) % 1900);
                            log.append(&record_of(length as usize)).unwrap()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let joined: Vec<_> = sessions.into_iter().map(|session| session.join()).collect();
        log.shutdown(); // before any unwrap: a panicking session must not leave LGWR running
        lgwr.join().unwrap();
        joined
            .into_iter()
            .flat_map(|session| session.unwrap())
            .collect::<Vec<(u64, u64)>>()
    });
    appended.sort_unstable();
    let buffer_turns = appended.last().unwrap().1 / LOG_BUFFER_BYTES_MIN as u64;
    assert!(
        buffer_turns >= 15,
        "the buffer wrapped {buffer_turns} times"
    );
    let mut epoch = 0;
    let segments = log.read_sequence(1, 0, 0, &mut epoch).unwrap().segments;
    let on_disk: Vec<(u64, u64)> = segments
        .iter()
        .flat_map(|(start, stream)| RedoLog::split_records(stream, *start, 0).0)
        .map(|(lsn, bytes)| {
            assert_eq!(
                bytes,
                record_of(bytes.len()).as_slice(),
                "the record at {lsn} is intact"
            );
            (lsn, lsn + bytes.len() as u64)
        })
        .collect();
    assert_eq!(on_disk, appended);
}

/// A crash keeps the first block of a two-block record and loses the second; recovery
/// restarts the stream at that second block and a new incarnation writes a commit there.
/// Read as one stream, the cut record's head ran into the new commit, failed its
/// checksum and hid it: a second crash lost an acknowledged commit. The epoch rise marks
/// where the new incarnation began, and reading restarts there.
#[test]
fn a_record_cut_by_a_crash_does_not_hide_what_the_next_incarnation_wrote() {
    let vfs = SimVfs::new(5);
    let log = started_log(&vfs);
    let (first, _) = log.append(&record_of(100)).unwrap();
    log.write_once().unwrap();
    let (cut, _) = log.append(&record_of(700)).unwrap();
    log.write_once().unwrap();
    assert_eq!(
        cut as usize, REDO_PAYLOAD_BYTES,
        "the record starts block 1"
    );
    // The crash: block 2 (the record's second block) never reached the disk.
    let group = &log.groups()[0];
    let lost_block = 2u64;
    group
        .file
        .write_at(
            &[0u8; REDO_BLOCK_BYTES],
            (lost_block + 1) * REDO_BLOCK_BYTES as u64,
        )
        .unwrap();
    assert_eq!(records_on_disk(&log), vec![first]);
    // Recovery ends the stream after `first` and starts the next incarnation at block 2.
    let restart = lost_block * REDO_PAYLOAD_BYTES as u64;
    log.start_at(
        StreamPosition {
            sequence: 1,
            sequence_start_lsn: 0,
            next_lsn: restart,
        },
        0,
        2,
    )
    .unwrap();
    let (after, _) = log.append(&record_of(100)).unwrap();
    log.write_once().unwrap();
    assert_eq!(after, restart);
    assert_eq!(records_on_disk(&log), vec![first, after]);
}

/// A commit used to post LGWR and sleep until LGWR posted back: two thread wake-ups on
/// the path of every lone commit. With no write in progress, the committing session now
/// writes the log itself (here no LGWR even runs), and still records what LGWR would.
#[test]
fn a_lone_commit_writes_the_log_itself_and_records_it_as_lgwr_would() {
    let vfs = SimVfs::new(3);
    let log = started_log(&vfs);
    let session = instrumentation::SessionInstrumentation::new(
        instrumentation::SessionType::User,
        "SCOTT",
        "test",
    )
    .unwrap();
    let _entered = instrumentation::enter(&session);
    let (first, _) = log.append(&record_of(100)).unwrap();
    let (second, end) = log.append(&record_of(100)).unwrap();
    let syncs_before = vfs.syncs();
    log.sync_commit(end).unwrap();
    assert_eq!(vfs.syncs() - syncs_before, 1, "one write and one sync");
    assert!(log.written_lsn() >= end);
    assert_eq!(records_on_disk(&log), vec![first, second]);
    assert_eq!(session.event_totals(WaitEvent::LogFileSync).total_waits, 1);
    assert_eq!(
        session
            .event_totals(WaitEvent::LogFileParallelWrite)
            .total_waits,
        1
    );
    assert_eq!(session.statistic(Statistic::RedoWrites), 1);
    assert_eq!(session.statistic(Statistic::RedoSynchWrites), 1);
}

/// While a write is in progress, a commit must not write (writes go one at a time, in LSN
/// order): it posts LGWR, which writes it once the write in progress is over.
#[test]
fn a_commit_during_a_write_in_progress_is_written_by_lgwr() {
    let vfs = SimVfs::new(4);
    let log = Arc::new(started_log(&vfs));
    let lgwr = {
        let log = Arc::clone(&log);
        std::thread::spawn(move || log.run_lgwr())
    };
    let in_progress = log.writing.lock();
    let (lsn, end) = log.append(&record_of(100)).unwrap();
    let committer = {
        let log = Arc::clone(&log);
        std::thread::spawn(move || log.sync_commit(end))
    };
    std::thread::sleep(Duration::from_millis(20));
    assert!(
        log.written_lsn() < end,
        "nothing is written while a write is in progress"
    );
    drop(in_progress);
    committer.join().unwrap().unwrap();
    assert_eq!(records_on_disk(&log), vec![lsn]);
    log.shutdown();
    lgwr.join().unwrap();
}

/// An LGWR that panicked left the commits waiting for its write waiting for ever. The
/// log now ends with ORA-00470, for them and for every later commit.
#[test]
fn an_lgwr_that_panics_fails_the_commits_instead_of_hanging_them() {
    let vfs = SimVfs::new(6);
    let log = Arc::new(started_log(&vfs));
    log.panic_in_lgwr.store(true, Ordering::Relaxed);
    let lgwr = {
        let log = Arc::clone(&log);
        std::thread::spawn(move || log.run_lgwr())
    };
    // A write in progress: the commit cannot write for itself, and posts LGWR.
    let in_progress = log.writing.lock();
    let (_, end) = log.append(&record_of(100)).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    {
        let log = Arc::clone(&log);
        std::thread::spawn(move || sender.send(log.sync_commit(end)));
    }
    let error = receiver
        .recv_timeout(Duration::from_secs(60))
        .expect("the commit returned")
        .unwrap_err();
    assert_eq!(error.code(), 470, "{error}");
    assert!(error.to_string().contains("LGWR test panic"), "{error}");
    lgwr.join().expect("LGWR's panic is caught");
    drop(in_progress);
    assert_eq!(log.append(&record_of(100)).unwrap_err().code(), 470);
}

/// After a failed write nothing is known of what reached the disk: a session's failed
/// write must end the log for everyone, as LGWR's does.
#[test]
fn a_failed_write_by_a_session_fails_every_later_commit() {
    let vfs = SimVfs::new(5);
    let log = started_log(&vfs);
    let (_, end) = log.append(&record_of(100)).unwrap();
    vfs.fail_io_after(1);
    assert!(log.sync_commit(end).is_err());
    vfs.clear_faults();
    assert!(log.append(&record_of(100)).is_err());
    assert!(log.sync_commit(end).is_err());
    assert!(log.write_once().is_err());
    assert!(log.written_lsn() < end);
}

/// Log files grew with every LGWR write, so each commit's fdatasync also had to write the
/// new file size (about 45 us on top of a 100 us fdatasync on the lab's disk). LGWR
/// now formats a file with zeros a step ahead of its redo. The zeros must never cover
/// redo: not redo written since the file was opened, nor redo a file already held when
/// it was opened shorter than its full size.
#[test]
fn log_files_are_formatted_ahead_of_their_redo_and_never_over_it() {
    let step = LOG_FILE_FORMAT_STEP_BYTES;
    let file_size = 3 * step;
    let vfs = SimVfs::new(7);
    let dir = std::path::Path::new("/db");
    vfs.create_dir_all(dir).unwrap();
    let log = RedoLog::open(&vfs, dir, 2, file_size, 1 << 20).unwrap();
    let length = |log: &RedoLog| log.groups()[0].file.len().unwrap();
    assert_eq!(length(&log), 0, "nothing is formatted before it is needed");
    let sequence_one = StreamPosition {
        sequence: 1,
        sequence_start_lsn: 0,
        next_lsn: 0,
    };
    log.start_at(sequence_one, 0, 1).unwrap();
    assert_eq!(
        length(&log),
        step,
        "the header's write formats the first step"
    );
    // Enough redo to cross into the second step, one record (and one block) a write.
    let mut lsns = Vec::new();
    while lsns.len() as u64 * (REDO_BLOCK_BYTES as u64) < step {
        lsns.push(log.append(&record_of(400)).unwrap().0);
        log.write_once().unwrap();
    }
    assert_eq!(length(&log), 2 * step);
    assert_eq!(records_on_disk(&log), lsns);

    // Opened again with only its first three blocks (as a file from before formatting
    // was), the file keeps them when the next write formats past its end.
    log.groups()[0]
        .file
        .set_len(3 * REDO_BLOCK_BYTES as u64)
        .unwrap();
    log.groups()[0].file.sync_data().unwrap();
    drop(log);
    let kept_end = 2 * REDO_PAYLOAD_BYTES as u64;
    let mut expected = lsns[..2].to_vec();
    let reopened = RedoLog::open(&vfs, dir, 2, file_size, 1 << 20).unwrap();
    assert_eq!(records_on_disk(&reopened), expected);
    // As recovery does: new redo starts in the first block after the last whole record.
    let resume = StreamPosition {
        next_lsn: kept_end,
        ..sequence_one
    };
    reopened.start_at(resume, 0, 2).unwrap();
    expected.push(reopened.append(&record_of(400)).unwrap().0);
    reopened.write_once().unwrap();
    assert_eq!(length(&reopened), step);
    assert_eq!(records_on_disk(&reopened), expected);
}

/// The writer keeps its image of the blocks from one write to the next: a short write
/// after a long one must carry none of the long one's bytes past its own end, where a
/// reader would take them for records.
#[test]
fn a_short_write_after_a_long_one_carries_none_of_its_bytes() {
    let vfs = SimVfs::new(22);
    let log = started_log(&vfs);
    let long = log.append(&record_of(1500)).unwrap().0;
    log.write_once().unwrap(); // blocks 1 to 4
    let short = log.append(&record_of(100)).unwrap().0;
    log.write_once().unwrap(); // block 5: the long write padded to a block boundary
    assert_eq!(records_on_disk(&log), [long, short]);
    let mut block = vec![0u8; REDO_BLOCK_BYTES];
    log.groups()[0]
        .file
        .read_at(&mut block, 5 * REDO_BLOCK_BYTES as u64)
        .unwrap();
    assert_eq!(read_u32(&block, 8), 5, "block 5 of the sequence");
    let past_the_record = &block[REDO_BLOCK_HEADER_BYTES + 100..];
    assert!(past_the_record.iter().all(|&byte| byte == 0));
}

/// Recovery stopped silently at a damaged redo block: nothing said where, or whether it
/// was the ordinary end of the redo or damage. Reading now names the block and the fault,
/// and still returns nothing from the damaged block on.
#[test]
fn reading_stops_at_a_damaged_block_and_says_which_and_why() {
    let vfs = SimVfs::new(21);
    let log = started_log(&vfs);
    let mut lsns = Vec::new();
    for _ in 0..3 {
        lsns.push(log.append(&record_of(400)).unwrap().0);
        log.write_once().unwrap(); // one record a write: blocks 1, 2 and 3
    }
    assert_eq!(records_on_disk(&log), lsns);
    let end_of = |log: &RedoLog| log.read_sequence(1, 0, 0, &mut 0).unwrap().end;
    let unwritten = SequenceEnd {
        sequence: 1,
        block: 4,
        fault: Some(BlockFault::Unwritten),
    };
    assert_eq!(end_of(&log), unwritten);
    assert_eq!(
        unwritten.to_string(),
        "end of redo: block 4 of sequence 1 was never written"
    );

    let group = &log.groups()[0];
    let mut block = vec![0u8; REDO_BLOCK_BYTES];
    group
        .file
        .read_at(&mut block, 2 * REDO_BLOCK_BYTES as u64)
        .unwrap();
    block[100] ^= 0xFF;
    group
        .file
        .write_at(&block, 2 * REDO_BLOCK_BYTES as u64)
        .unwrap();
    let damaged = end_of(&log);
    assert_eq!(
        damaged,
        SequenceEnd {
            sequence: 1,
            block: 2,
            fault: Some(BlockFault::ChecksumMismatch),
        }
    );
    assert!(damaged.fault.unwrap().is_damage());
    assert_eq!(
        damaged.to_string(),
        "torn or corrupt redo block: sequence 1 block 2 fails its checksum"
    );
    assert_eq!(
        records_on_disk(&log),
        vec![lsns[0]],
        "nothing from block 2 on"
    );
}

/// The blocks that end the redo written (never written, left by the group's earlier use
/// or by an earlier incarnation) are told apart from torn or corrupt ones.
#[test]
fn check_block_tells_the_end_of_the_redo_from_damage() {
    // A valid block 3 of sequence 5, written in epoch 2.
    let mut block = vec![0u8; REDO_BLOCK_BYTES];
    write_u32(&mut block, 4, 5);
    write_u32(&mut block, 8, 3);
    write_u32(&mut block, 12, 2);
    block[100] = 7;
    let checksum = crc32c::crc32c(&block[4..]);
    write_u32(&mut block, 0, checksum);
    assert_eq!(RedoLog::check_block(&block, 5, 3, 1), Ok(2));
    let faults = [
        (
            RedoLog::check_block(&[0u8; REDO_BLOCK_BYTES], 5, 3, 1),
            BlockFault::Unwritten,
        ),
        (
            RedoLog::check_block(&block, 8, 3, 1),
            BlockFault::EarlierSequence(5),
        ),
        (
            RedoLog::check_block(&block, 5, 3, 3),
            BlockFault::EarlierEpoch {
                found: 2,
                before: 3,
            },
        ),
        (
            RedoLog::check_block(&block, 2, 3, 1),
            BlockFault::LaterSequence(5),
        ),
        (
            RedoLog::check_block(&block, 5, 4, 1),
            BlockFault::WrongBlockNumber(3),
        ),
    ];
    for (found, expected) in faults {
        assert_eq!(found, Err(expected));
    }
    block[200] ^= 1;
    assert_eq!(
        RedoLog::check_block(&block, 5, 3, 1),
        Err(BlockFault::ChecksumMismatch)
    );
    let damage: Vec<bool> = [
        BlockFault::Unwritten,
        BlockFault::EarlierSequence(5),
        BlockFault::EarlierEpoch {
            found: 2,
            before: 3,
        },
        BlockFault::ChecksumMismatch,
        BlockFault::WrongBlockNumber(3),
        BlockFault::LaterSequence(5),
    ]
    .into_iter()
    .map(BlockFault::is_damage)
    .collect();
    assert_eq!(damage, [false, false, false, true, true, true]);
}

/// Appends records of 1000 bytes until the log is in `sequence` (no LGWR: each append's
/// redo is written at once). Bounded by the records two sequences hold.
fn append_until_sequence(log: &RedoLog, sequence: u64) {
    for _ in 0..2 * log.capacity() / 1000 + 2 {
        if log.current_sequence() >= sequence {
            return;
        }
        log.append(&record_of(1000)).unwrap();
        log.write_once().unwrap();
    }
    assert!(log.current_sequence() >= sequence);
}

/// A user session of its own, and a thread that runs `work` in it.
fn spawn_in_session(
    work: impl FnOnce() + Send + 'static,
) -> (
    Arc<instrumentation::SessionInstrumentation>,
    std::thread::JoinHandle<()>,
) {
    let session = instrumentation::SessionInstrumentation::new(
        instrumentation::SessionType::User,
        "SCOTT",
        "test",
    )
    .unwrap();
    let entered = session.clone();
    let thread = std::thread::spawn(move || {
        let _entered = instrumentation::enter(&entered);
        work()
    });
    (session, thread)
}

/// Waits (bounded) until `session` has counted a redo log space request.
fn wait_for_space_request(session: &instrumentation::SessionInstrumentation) {
    for _ in 0..3000 {
        if session.statistic(Statistic::RedoLogSpaceRequests) > 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the appender never asked for log space");
}

/// With archiving on, a log group must not be reused before its sequence is archived:
/// redo not yet archived would be lost. The appender that needs the group waits on 'log
/// file switch (archiving needed)' (and the alert log says so once) until ARC0 archives
/// the sequence, or until archiving is turned off.
#[test]
fn a_group_is_not_reused_before_its_sequence_is_archived() {
    let vfs = SimVfs::new(31);
    let log = Arc::new(started_log_sized(&vfs, 8 << 10, LOG_BUFFER_BYTES_MIN));
    let alerts = Arc::new(Mutex::new(Vec::<String>::new()));
    let kept = alerts.clone();
    log.set_alert(Arc::new(move |message| {
        kept.lock().push(message.to_string())
    }));
    log.checkpoint_completed(u64::MAX); // checkpoints never hold a switch back here
    log.set_archive_required(true);
    append_until_sequence(&log, 2);
    assert!(!log.status()[0].archived);

    for (needed, old, release) in [(3u64, 1u64, "archived"), (4, 2, "archiving off")] {
        let appending = log.clone();
        let (session, appender) =
            spawn_in_session(move || append_until_sequence(&appending, needed));
        wait_for_space_request(&session);
        assert_eq!(log.current_sequence(), needed - 1, "{release}");
        if release == "archived" {
            log.archived_through(old);
        } else {
            log.set_archive_required(false);
        }
        appender.join().unwrap();
        assert_eq!(log.current_sequence(), needed);
        assert_eq!(
            session
                .event_totals(WaitEvent::LogFileSwitchArchivingNeeded)
                .total_waits,
            1,
            "{release}"
        );
    }
    let alerts = alerts.lock();
    let cannot_allocate: Vec<&String> = alerts
        .iter()
        .filter(|message| message.contains("cannot allocate new log"))
        .collect();
    assert_eq!(
        cannot_allocate,
        [
            "Thread 1 cannot allocate new log, sequence 3\nAll online logs needed archiving",
            "Thread 1 cannot allocate new log, sequence 4\nAll online logs needed archiving",
        ]
    );
    assert!(alerts
        .iter()
        .any(|message| message.starts_with("Thread 1 advanced to log sequence 4 (LGWR switch)")));
}

/// ALTER SYSTEM SWITCH LOGFILE used to move the stream's next LSN to the end of the
/// sequence. When the switch then had to wait for a checkpoint, the session first waited
/// for the redo up to that LSN to be written, which no write ever reaches: it hung (two
/// groups, switches in a row). A switch now waits for the checkpoint only.
#[test]
fn a_switch_that_waits_for_a_checkpoint_does_not_hang() {
    let vfs = SimVfs::new(37);
    let log = Arc::new(started_log_sized(&vfs, 8 << 10, LOG_BUFFER_BYTES_MIN));
    let lgwr = {
        let log = log.clone();
        std::thread::spawn(move || log.run_lgwr())
    };
    let switching = log.clone();
    let (session, switcher) = spawn_in_session(move || {
        for _ in 0..3 {
            // As after a commit: everything written when the switch comes.
            let (_, end) = switching.append(&record_of(100)).unwrap();
            switching.flush_to(end).unwrap();
            switching.switch_logfile().unwrap();
        }
    });
    // The switch into sequence 3 needs group 1, whose sequence the checkpoint has not
    // passed: the switcher waits; then the checkpoint (DBWR's part here) completes.
    wait_for_space_request(&session);
    log.checkpoint_completed(u64::MAX);
    for _ in 0..3000 {
        if switcher.is_finished() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let finished = switcher.is_finished();
    log.shutdown();
    assert!(finished, "ALTER SYSTEM SWITCH LOGFILE hung");
    switcher.join().unwrap();
    lgwr.join().unwrap();
    assert_eq!(log.current_sequence(), 4);
    assert_eq!(
        session
            .event_totals(WaitEvent::LogFileSwitchCheckpointIncomplete)
            .total_waits,
        1
    );
    assert_eq!(
        session
            .event_totals(WaitEvent::LogFileSwitchCompletion)
            .total_waits,
        3
    );
}
