//! Full scans' multiblock reads through the views (docs/buffer-pools.md, "Scans"): a scan
//! reads the blocks that are not cached `db_file_multiblock_read_count` at a time, as 'db
//! file scattered read' waits, around the blocks that are cached; a failed read leaves the
//! cache as it found it.

use std::path::Path;
use std::sync::Arc;

use pythia::io::vfs::{SimVfs, Vfs};
use pythia::{Instance, Session};

mod common;
use common::{run, temp_dir, text_rows};

/// 2 KiB blocks, one working set of 2048 buffers: the scanned table fits in the cache.
const BASE: &[(&str, &str)] = &[
    ("db_block_size", "2048"),
    ("log_file_size", "4M"),
    ("undo_tablespace_size", "16M"),
    ("log_buffer", "1M"),
    ("db_block_buffers", "2048"),
    ("db_block_lru_latches", "1"),
    ("db_file_multiblock_read_count", "8"),
];

fn number(text: &str) -> u64 {
    text.parse()
        .unwrap_or_else(|_| panic!("{text:?} is not a number"))
}

/// What a session has read: its statistics and its scattered and sequential read waits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Reads {
    physical_reads: u64,
    io_requests: u64,
    prefetched: u64,
    scattered_waits: u64,
    sequential_waits: u64,
}

impl std::ops::Sub for Reads {
    type Output = Reads;
    fn sub(self, before: Reads) -> Reads {
        Reads {
            physical_reads: self.physical_reads - before.physical_reads,
            io_requests: self.io_requests - before.io_requests,
            prefetched: self.prefetched - before.prefetched,
            scattered_waits: self.scattered_waits - before.scattered_waits,
            sequential_waits: self.sequential_waits - before.sequential_waits,
        }
    }
}

fn reads(session: &mut Session) -> Reads {
    let statistic = |session: &mut Session, name: &str| -> u64 {
        number(
            &text_rows(
                session,
                &format!(
                    "SELECT m.value FROM v$mystat m, v$statname n \
                     WHERE m.statistic# = n.statistic# AND n.name = '{name}'"
                ),
            )[0][0],
        )
    };
    let waits = |session: &mut Session, event: &str| -> u64 {
        let rows = text_rows(
            session,
            &format!(
                "SELECT total_waits FROM v$session_event WHERE event = '{event}' \
                 AND sid = (SELECT sid FROM v$mystat WHERE rownum = 1)"
            ),
        );
        rows.first().map_or(0, |row| number(&row[0]))
    };
    Reads {
        physical_reads: statistic(session, "physical reads"),
        io_requests: statistic(session, "physical read IO requests"),
        prefetched: statistic(session, "physical reads cache prefetch"),
        scattered_waits: waits(session, "db file scattered read"),
        sequential_waits: waits(session, "db file sequential read"),
    }
}

/// Creates `scanned` (id, val) with 1280 rows of some 150 bytes: about 130 blocks of 2 KiB,
/// over extents of 8 blocks and more, and a primary key index.
fn create_scanned_table(session: &mut Session) {
    run(
        session,
        "CREATE TABLE scanned (id NUMBER PRIMARY KEY, val VARCHAR2(200))",
    );
    for id in 1..=10 {
        run(
            session,
            &format!("INSERT INTO scanned VALUES ({id}, rpad('x', 150, 'x'))"),
        );
    }
    for shift in [10, 20, 40, 80, 160, 320, 640] {
        run(
            session,
            &format!("INSERT INTO scanned SELECT id + {shift}, val FROM scanned"),
        );
    }
    run(session, "COMMIT");
}

/// The cached blocks of SCANNED (its segment header and data blocks), and whether any is
/// cached twice.
fn cached_blocks(session: &mut Session) -> (u64, bool) {
    let blocks = number(
        &text_rows(
            session,
            "SELECT count(*) FROM x$bh b, dba_objects o \
             WHERE b.obj = o.data_object_id AND o.object_name = 'SCANNED' AND b.state = 1",
        )[0][0],
    );
    let doubled = !text_rows(
        session,
        "SELECT b.dbablk FROM x$bh b WHERE b.state = 1 \
         GROUP BY b.file#, b.dbablk HAVING count(*) > 1",
    )
    .is_empty();
    (blocks, doubled)
}

/// A scan of a flushed table with `db_file_multiblock_read_count = 8` reads it in multiblock
/// reads: fewer I/Os than blocks, shown as 'db file scattered read' in v$session_event and
/// v$system_event, with `physical reads` the blocks read and `physical reads cache prefetch`
/// every block of a read after its first. With the count at 1 every block is read alone.
#[test]
fn a_full_scan_reads_its_blocks_in_multiblock_reads() {
    let instance = Instance::open(temp_dir("mbr-scan"), BASE).unwrap();
    let mut session = instance.connect().unwrap();
    create_scanned_table(&mut session);
    run(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    let system_waits = |session: &mut Session| -> u64 {
        text_rows(
            session,
            "SELECT total_waits FROM v$system_event WHERE event = 'db file scattered read'",
        )
        .first()
        .map_or(0, |row| number(&row[0]))
    };
    let system_before = system_waits(&mut session);
    let before = reads(&mut session);
    assert_eq!(
        text_rows(&mut session, "SELECT count(*) FROM scanned"),
        vec![vec!["1280"]]
    );
    let scan = reads(&mut session) - before;
    let (blocks, doubled) = cached_blocks(&mut session);
    assert!(!doubled);
    assert!(blocks > 100, "the table has {blocks} blocks");
    assert_eq!(
        scan.physical_reads, blocks,
        "{scan:?}: every block read once"
    );
    // The segment header alone, the data blocks in reads of at most 8 (extents of 8 blocks,
    // the first holding the header: never 8 blocks fewer than a read each).
    assert!(scan.scattered_waits > 0, "{scan:?}");
    assert!(scan.io_requests < scan.physical_reads / 4, "{scan:?}");
    assert!(scan.io_requests * 8 >= scan.physical_reads, "{scan:?}");
    assert_eq!(
        scan.io_requests,
        scan.scattered_waits + scan.sequential_waits,
        "{scan:?}"
    );
    assert_eq!(
        scan.prefetched,
        scan.physical_reads - scan.io_requests,
        "{scan:?}"
    );
    assert!(system_waits(&mut session) >= system_before + scan.scattered_waits);

    run(
        &mut session,
        "ALTER SESSION SET db_file_multiblock_read_count = 1",
    );
    run(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    let before = reads(&mut session);
    text_rows(&mut session, "SELECT count(*) FROM scanned");
    let single = reads(&mut session) - before;
    assert_eq!(single.scattered_waits, 0, "{single:?}");
    assert_eq!(single.prefetched, 0, "{single:?}");
    assert_eq!(single.physical_reads, blocks, "{single:?}");
    assert_eq!(single.io_requests, blocks, "{single:?}");
    drop(session);
    instance.shutdown().unwrap();
}

/// Blocks cached before the scan (here by index lookups) end its multiblock reads, which
/// read around them: the scan reads every other block once, and none twice.
#[test]
fn a_scan_reads_around_the_blocks_already_cached() {
    let instance = Instance::open(temp_dir("mbr-around"), BASE).unwrap();
    let mut session = instance.connect().unwrap();
    create_scanned_table(&mut session);
    run(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    for id in [3, 150, 400, 401, 777, 1200] {
        text_rows(
            &mut session,
            &format!("SELECT val FROM scanned WHERE id = {id}"),
        );
    }
    let (cached_before, _) = cached_blocks(&mut session);
    assert!(
        cached_before >= 4,
        "{cached_before} blocks cached by lookups"
    );
    let before = reads(&mut session);
    text_rows(&mut session, "SELECT count(*) FROM scanned");
    let scan = reads(&mut session) - before;
    let (cached_after, doubled) = cached_blocks(&mut session);
    assert!(!doubled);
    assert_eq!(
        scan.physical_reads,
        cached_after - cached_before,
        "{scan:?}: only the blocks not cached were read, each once"
    );
    assert!(scan.scattered_waits > 0, "{scan:?}");
    drop(session);
    instance.shutdown().unwrap();
}

/// A multiblock read that fails (the disk refuses reads) fails the statement with the error
/// a single-block read gives, ORA-01115, and leaves no buffer mapped to a block it did not
/// read: once reads work again, the same scan counts every row and reads each block once.
#[test]
fn a_failed_multiblock_read_leaves_the_cache_consistent() {
    let vfs = SimVfs::new(17);
    let dir = Path::new("/db");
    vfs.create_dir_all(dir).unwrap();
    let parameters = Instance::read_parameters(&vfs, dir, BASE).unwrap();
    let instance = Instance::open_with_parameters(Arc::new(vfs.clone()), dir, parameters).unwrap();
    let mut session = instance.connect().unwrap();
    create_scanned_table(&mut session);
    let failing_scan = |session: &mut Session| -> pythia::Error {
        run(session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
        // The segment header's read and the first window's pass; the second window's fails.
        vfs.fail_reads_after(3);
        let error = session
            .execute("SELECT count(*) FROM scanned")
            .expect_err("a scan of an unreadable disk");
        vfs.clear_faults();
        error
    };
    let multiblock = failing_scan(&mut session);
    assert_eq!(multiblock.code(), 1115, "{multiblock}");
    // The header and the first extent's 7 data blocks, nothing of the failed read.
    let (cached, doubled) = cached_blocks(&mut session);
    assert_eq!(cached, 8);
    assert!(!doubled);
    let free = number(&text_rows(&mut session, "SELECT sum(cnum_free) FROM x$kcbwds")[0][0]);
    let holding =
        number(&text_rows(&mut session, "SELECT count(*) FROM x$bh WHERE state = 1")[0][0]);
    assert_eq!(
        free + holding,
        2048,
        "every buffer is free or holds a block"
    );

    let before = reads(&mut session);
    assert_eq!(
        text_rows(&mut session, "SELECT count(*) FROM scanned"),
        vec![vec!["1280"]]
    );
    let scan = reads(&mut session) - before;
    let (blocks, doubled) = cached_blocks(&mut session);
    assert!(!doubled);
    assert_eq!(scan.physical_reads, blocks - 8, "{scan:?}");

    // A single-block read fails the same way.
    run(
        &mut session,
        "ALTER SESSION SET db_file_multiblock_read_count = 1",
    );
    let single = failing_scan(&mut session);
    assert_eq!(single.code(), multiblock.code());
    assert_eq!(single.to_string(), multiblock.to_string());
    drop(session);
    instance.shutdown().unwrap();
}
