//! Buffer pools through the parameters and the views (docs/buffer-pools.md): the Oracle8 and
//! the modern ways of sizing them, seed 001's rules, and what v$buffer_pool, x$kcbwds, x$bh
//! and v$bh show of a running instance.

use pythia::{Instance, Session};

mod common;
use common::{number, open_small_blocks as open, temp_dir, text_rows};

/// The error opening with these parameters gives (it must give one).
fn open_error(name: &str, extra: &[(&str, &str)]) -> pythia::Error {
    match open(name, extra) {
        Ok(_) => panic!("{name}: opened with {extra:?}"),
        Err(error) => error,
    }
}

/// Seed 001's example: 1000 buffers, 3 LRU latches, KEEP 200 and RECYCLE 100 with one each.
const SEED_EXAMPLE: &[(&str, &str)] = &[
    ("db_block_buffers", "1000"),
    ("db_block_lru_latches", "3"),
    ("buffer_pool_keep", "(buffers:200, lru_latches:1)"),
    ("buffer_pool_recycle", "(buffers:100, lru_latches:1)"),
];

#[test]
fn the_oracle8_parameters_make_three_pools_in_consecutive_ranges() {
    let instance = open("pools-oracle8", SEED_EXAMPLE).unwrap();
    let mut session = instance.connect().unwrap();
    let pools = text_rows(
        &mut session,
        "SELECT name, buffers, lo_bnum, hi_bnum, set_count, block_size FROM v$buffer_pool ORDER BY id",
    );
    assert_eq!(
        pools,
        vec![
            vec!["DEFAULT", "700", "0", "699", "1", "2048"],
            vec!["KEEP", "200", "700", "899", "1", "2048"],
            vec!["RECYCLE", "100", "900", "999", "1", "2048"],
        ]
    );
    let sets = text_rows(
        &mut session,
        "SELECT set_id, pool_name, start_buf#, end_buf#, cnum_set, algorithm FROM x$kcbwds ORDER BY set_id",
    );
    assert_eq!(
        sets,
        vec![
            vec!["1", "DEFAULT", "0", "699", "700", "TOUCH COUNT"],
            vec!["2", "KEEP", "700", "899", "200", "TOUCH COUNT"],
            vec!["3", "RECYCLE", "900", "999", "100", "TOUCH COUNT"],
        ]
    );
    let buffers = text_rows(
        &mut session,
        "SELECT pool, count(*) FROM x$bh GROUP BY pool ORDER BY pool",
    );
    assert_eq!(
        buffers,
        vec![
            vec!["DEFAULT", "700"],
            vec!["KEEP", "200"],
            vec!["RECYCLE", "100"],
        ]
    );
    drop(session);
    instance.shutdown().unwrap();
}

#[test]
fn a_default_pool_of_several_working_sets_divides_its_buffers_equally() {
    let instance = open(
        "pools-sets",
        &[("db_block_buffers", "301"), ("db_block_lru_latches", "2")],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    let sets = text_rows(
        &mut session,
        "SELECT start_buf#, end_buf#, cnum_set FROM x$kcbwds ORDER BY set_id",
    );
    assert_eq!(
        sets,
        vec![vec!["0", "150", "151"], vec!["151", "300", "150"]]
    );
    drop(session);
    instance.shutdown().unwrap();
}

#[test]
fn old_and_new_parameters_together_get_ora_00381() {
    let error = open_error(
        "pools-both",
        &[("db_block_buffers", "1000"), ("db_keep_cache_size", "1M")],
    );
    assert_eq!(error.code(), 381, "{error}");
    let error = open_error(
        "pools-both-2",
        &[("buffer_pool_keep", "100"), ("db_cache_size", "8M")],
    );
    assert_eq!(error.code(), 381, "{error}");
}

#[test]
fn pools_that_break_seed_001s_rules_get_ora_00378_naming_the_rule() {
    for (name, parameters, words) in [
        (
            "pools-small-set",
            &[
                ("db_block_buffers", "1000"),
                ("db_block_lru_latches", "3"),
                ("buffer_pool_keep", "(buffers:40, lru_latches:1)"),
            ][..],
            "at least 50 buffers",
        ),
        (
            "pools-no-default",
            &[
                ("db_block_buffers", "1000"),
                ("db_block_lru_latches", "2"),
                ("buffer_pool_keep", "(buffers:500, lru_latches:1)"),
                ("buffer_pool_recycle", "(buffers:500, lru_latches:1)"),
            ][..],
            "DEFAULT needs",
        ),
    ] {
        let error = open_error(name, parameters);
        assert_eq!(error.code(), 378, "{error}");
        assert!(error.to_string().contains(words), "{error}");
    }
    // Aging that would promote every buffer the replacement scan meets.
    for (name, criteria, cool) in [("pools-criteria-1", "1", "0"), ("pools-cool-2", "2", "2")] {
        let error = open_error(
            name,
            &[
                ("_db_aging_hot_criteria", criteria),
                ("_db_aging_cool_count", cool),
            ],
        );
        assert_eq!(error.code(), 378, "{error}");
        assert!(
            error.to_string().contains("_db_aging_hot_criteria"),
            "{error}"
        );
    }
    let error = open_error(
        "pools-huge",
        &[
            ("db_block_buffers", "1000"),
            ("buffer_pool_keep", "18446744073709551615"),
            ("buffer_pool_recycle", "10"),
        ],
    );
    assert_eq!(error.code(), 96, "{error}");
    let error = open_error(
        "pools-bad-syntax",
        &[
            ("db_block_buffers", "1000"),
            ("buffer_pool_keep", "(buffers=200)"),
        ],
    );
    assert_eq!(error.code(), 96, "{error}");
}

#[test]
fn the_modern_parameters_size_keep_and_recycle_pools() {
    let instance = open(
        "pools-modern",
        &[
            ("db_cache_size", "4M"),
            ("db_keep_cache_size", "256K"),
            ("db_recycle_cache_size", "128K"),
        ],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    let pools = text_rows(
        &mut session,
        "SELECT name, buffers FROM v$buffer_pool ORDER BY id",
    );
    assert_eq!(
        pools,
        vec![
            vec!["DEFAULT", "2048"],
            vec!["KEEP", "128"],
            vec!["RECYCLE", "64"],
        ]
    );
    drop(session);
    instance.shutdown().unwrap();
}

/// With `_db_aging_touch_time = 0` every hit counts: a block read over and over shows its
/// touches in x$bh.tch, and v$bh lists it in the DEFAULT pool.
#[test]
fn x_bh_shows_the_touches_of_a_block_read_again_and_again() {
    let instance = open(
        "pools-touches",
        &[("db_cache_size", "4M"), ("_db_aging_touch_time", "0")],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    text_rows(
        &mut session,
        "CREATE TABLE touched (id NUMBER, val VARCHAR2(20))",
    );
    text_rows(&mut session, "INSERT INTO touched VALUES (1, 'one')");
    text_rows(&mut session, "COMMIT");
    // The table's data blocks (class 1): the scans' own segment header reads do not count.
    let touches = |session: &mut Session| -> u64 {
        let rows = text_rows(
            session,
            "SELECT max(b.tch) FROM x$bh b, dba_objects o \
             WHERE b.obj = o.data_object_id AND o.object_name = 'TOUCHED' \
             AND b.class = 1 AND b.state = 1",
        );
        number(&rows[0][0])
    };
    let before = touches(&mut session);
    for _ in 0..20 {
        text_rows(&mut session, "SELECT val FROM touched");
    }
    let after = touches(&mut session);
    assert!(
        after >= before + 20,
        "the table's block went from {before} to {after} touches in 20 scans"
    );
    drop(session);
    instance.shutdown().unwrap();
}

#[test]
fn the_classic_lru_is_selectable_and_an_unknown_algorithm_is_refused() {
    let instance = open(
        "pools-lru",
        &[("db_cache_size", "4M"), ("_db_lru_algorithm", "lru")],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    let algorithms = text_rows(&mut session, "SELECT DISTINCT algorithm FROM x$kcbwds");
    assert_eq!(algorithms, vec![vec!["LRU"]]);
    drop(session);
    instance.shutdown().unwrap();
    let error = open_error(
        "pools-lru-bad",
        &[("db_cache_size", "4M"), ("_db_lru_algorithm", "MRU")],
    );
    assert_eq!(error.code(), 96, "{error}");
}

/// Seed 001's test script reads v$buffer_pool_statistics before and after its load: the
/// DEFAULT pool's gets, changes and reads move, the idle pools' do not, and the script's own
/// query (DECODE against a division by zero) runs unchanged.
#[test]
fn buffer_pool_statistics_count_each_pools_work() {
    let instance = open("pools-statistics", SEED_EXAMPLE).unwrap();
    let mut session = instance.connect().unwrap();
    let seed_query = "SELECT name \
              ,consistent_gets+db_block_gets logical_reads \
              ,physical_reads \
              ,DECODE(consistent_gets+db_block_gets,0,TO_NUMBER(null) \
                     ,ROUND(1-physical_reads/(consistent_gets+db_block_gets),1) ) \
                     hit_ratio \
          FROM sys.v$buffer_pool_statistics";
    let columns = "SELECT name, consistent_gets, db_block_gets, db_block_change, buf_got, \
                   physical_reads, cnum_set FROM v$buffer_pool_statistics ORDER BY id";
    let before = text_rows(&mut session, columns);
    assert_eq!(before.len(), 3);
    text_rows(
        &mut session,
        "CREATE TABLE stuffed (id NUMBER PRIMARY KEY, val VARCHAR2(100))",
    );
    for id in 0..200 {
        text_rows(
            &mut session,
            &format!("INSERT INTO stuffed VALUES ({id}, 'row {id}')"),
        );
    }
    text_rows(&mut session, "COMMIT");
    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    text_rows(&mut session, "SELECT count(*) FROM stuffed");
    let after = text_rows(&mut session, columns);
    let value = |rows: &[Vec<String>], row: usize, column: usize| number(&rows[row][column]);
    for column in 1..=5 {
        assert!(
            value(&after, 0, column) > value(&before, 0, column),
            "DEFAULT column {column}: {:?} then {:?}",
            before[0],
            after[0]
        );
    }
    for row in 1..3 {
        assert_eq!(after[row][..6], before[row][..6], "an idle pool moved");
    }
    assert_eq!(
        (
            value(&after, 0, 6),
            value(&after, 1, 6),
            value(&after, 2, 6)
        ),
        (700, 200, 100)
    );
    let ratios = text_rows(&mut session, seed_query);
    assert_eq!(ratios.len(), 3);
    let keep = ratios.iter().find(|row| row[0] == "KEEP").unwrap();
    assert_eq!(keep[1], "0");
    drop(session);
    instance.shutdown().unwrap();
}

/// A table in KEEP and its index in RECYCLE are read into those pools (their data and index
/// blocks here; segment headers and DML: `dml_reads_and_formats_blocks_in_the_tables_pool`);
/// after ALTER TABLE moves the table to DEFAULT, its cached blocks stay in KEEP until they
/// leave the cache, and blocks read afterwards go to DEFAULT (seed 001).
#[test]
fn segments_are_read_into_the_pool_their_storage_clause_names() {
    let instance = open("pools-segments", SEED_EXAMPLE).unwrap();
    let mut session = instance.connect().unwrap();
    text_rows(
        &mut session,
        "CREATE TABLE kept (id NUMBER, val VARCHAR2(100)) STORAGE (BUFFER_POOL KEEP)",
    );
    text_rows(
        &mut session,
        "CREATE INDEX kept_id ON kept (id) STORAGE (BUFFER_POOL RECYCLE)",
    );
    for id in 0..300 {
        text_rows(
            &mut session,
            &format!("INSERT INTO kept VALUES ({id}, 'value number {id}')"),
        );
    }
    text_rows(&mut session, "COMMIT");
    let pools_of = |session: &mut Session, object: &str| -> Vec<String> {
        text_rows(
            session,
            &format!(
                "SELECT DISTINCT b.pool FROM x$bh b, dba_objects o \
                 WHERE b.obj = o.data_object_id AND o.object_name = '{object}' \
                 AND b.state = 1 AND b.class = 1 ORDER BY 1"
            ),
        )
        .into_iter()
        .map(|row| row[0].clone())
        .collect()
    };
    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    text_rows(&mut session, "SELECT count(*) FROM kept");
    text_rows(
        &mut session,
        "SELECT /*+ INDEX(kept kept_id) */ val FROM kept WHERE id = 17",
    );
    assert_eq!(pools_of(&mut session, "KEPT"), vec!["KEEP"]);
    assert_eq!(pools_of(&mut session, "KEPT_ID"), vec!["RECYCLE"]);

    text_rows(
        &mut session,
        "ALTER TABLE kept STORAGE (BUFFER_POOL DEFAULT)",
    );
    text_rows(&mut session, "SELECT count(*) FROM kept");
    assert_eq!(
        pools_of(&mut session, "KEPT"),
        vec!["KEEP"],
        "cached blocks stay"
    );
    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    text_rows(&mut session, "SELECT count(*) FROM kept");
    assert_eq!(pools_of(&mut session, "KEPT"), vec!["DEFAULT"]);
    let segments = text_rows(
        &mut session,
        "SELECT segment_name, buffer_pool FROM dba_segments \
         WHERE segment_name IN ('KEPT', 'KEPT_ID') ORDER BY 1",
    );
    assert_eq!(
        segments,
        vec![vec!["KEPT", "DEFAULT"], vec!["KEPT_ID", "RECYCLE"]]
    );
    drop(session);
    instance.shutdown().unwrap();
}

/// A full scan of a table larger than `_small_table_threshold` puts its blocks at the cold
/// end of the list; a small table's scan, or a CACHE table's, puts them at the midpoint.
#[test]
fn large_table_scans_enter_at_the_cold_end_unless_the_table_is_cached() {
    // One working set, whatever the CPUs: positions are per set.
    let instance = open(
        "pools-scans",
        &[
            ("db_block_buffers", "2048"),
            ("db_block_lru_latches", "1"),
            ("_small_table_threshold", "4"),
        ],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    for table in ["scanned", "cached"] {
        text_rows(
            &mut session,
            &format!("CREATE TABLE {table} (id NUMBER, val VARCHAR2(200))"),
        );
        for id in 0..200 {
            text_rows(
                &mut session,
                &format!("INSERT INTO {table} VALUES ({id}, rpad('x', 150, 'x'))"),
            );
        }
    }
    text_rows(&mut session, "ALTER TABLE cached CACHE");
    text_rows(&mut session, "COMMIT");
    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    // The CACHE table first: were its blocks placed like a large table's, or the large
    // table's like any read, the second scan's would land in front of the first's.
    text_rows(&mut session, "SELECT count(*) FROM cached");
    text_rows(&mut session, "SELECT count(*) FROM scanned");
    // Where each table's data blocks sit in their working set's list, numbered from the
    // MRU end: the cold end is the highest positions.
    let deepest_half = |session: &mut Session, table: &str| -> u64 {
        let rows = text_rows(
            session,
            &format!(
                "SELECT count(*) FROM x$bh b, x$kcbwds w, dba_objects o \
                 WHERE b.set_ds = w.addr AND b.obj = o.data_object_id \
                 AND o.object_name = '{table}' AND b.class = 1 \
                 AND b.position >= w.cnum_repl / 2"
            ),
        );
        number(&rows[0][0])
    };
    let blocks = |session: &mut Session, table: &str| -> u64 {
        let rows = text_rows(
            session,
            &format!(
                "SELECT count(*) FROM x$bh b, dba_objects o \
                 WHERE b.obj = o.data_object_id AND o.object_name = '{table}' AND b.class = 1"
            ),
        );
        number(&rows[0][0])
    };
    let scanned = blocks(&mut session, "SCANNED");
    assert!(
        scanned > 4,
        "the table is larger than the threshold: {scanned} blocks"
    );
    assert_eq!(
        deepest_half(&mut session, "SCANNED"),
        scanned,
        "every scanned block is in the cold half"
    );
    assert_eq!(
        deepest_half(&mut session, "CACHED"),
        0,
        "a CACHE table's blocks enter at the midpoint"
    );
    // x$bh.flag 524288 marks blocks a full scan read: the large table's, not the CACHE one's.
    let flagged = |session: &mut Session, table: &str| -> u64 {
        let rows = text_rows(
            session,
            &format!(
                "SELECT count(*) FROM x$bh b, dba_objects o \
                 WHERE b.obj = o.data_object_id AND o.object_name = '{table}' \
                 AND b.class = 1 AND b.flag >= 524288"
            ),
        );
        number(&rows[0][0])
    };
    assert_eq!(flagged(&mut session, "SCANNED"), scanned);
    assert_eq!(flagged(&mut session, "CACHED"), 0);
    // NXT_REPL and PRV_REPL link the list both ways, in POSITION order: one buffer per set
    // has no next (the LRU end).
    let links = text_rows(
        &mut session,
        "SELECT (SELECT count(*) FROM x$bh a, x$bh b WHERE a.nxt_repl = b.addr \
                 AND b.prv_repl = a.addr AND b.position > a.position), \
                (SELECT count(*) FROM x$bh WHERE position IS NOT NULL), \
                (SELECT count(*) FROM x$kcbwds) FROM dual",
    );
    assert_eq!(
        number(&links[0][0]),
        number(&links[0][1]) - number(&links[0][2]),
        "{links:?}"
    );
    drop(session);
    instance.shutdown().unwrap();
}

/// A get that finds its buffer held by a change in progress waits, timed as 'buffer busy
/// waits' and counted in its pool's BUFFER_BUSY_WAIT; the wait ends when the holder lets go.
#[test]
fn a_get_of_a_buffer_held_for_a_change_waits_as_buffer_busy_waits() {
    let instance = open("pools-busy", &[]).unwrap();
    let mut session = instance.connect().unwrap();
    text_rows(&mut session, "CREATE TABLE busy (id NUMBER)");
    text_rows(&mut session, "INSERT INTO busy VALUES (1)");
    text_rows(&mut session, "COMMIT");
    let table = instance
        .catalog()
        .current()
        .tables
        .values()
        .find(|table| table.name == "BUSY")
        .cloned()
        .unwrap();
    let block = pythia::access::segment::used_blocks(instance.cache(), table.segment).unwrap()[0];
    let waits = |session: &mut Session| {
        let rows = text_rows(
            session,
            "SELECT (SELECT NVL(SUM(total_waits), 0) FROM v$system_event \
                     WHERE event = 'buffer busy waits'), \
                    (SELECT SUM(buffer_busy_wait) FROM v$buffer_pool_statistics) FROM dual",
        );
        (number(&rows[0][0]), number(&rows[0][1]))
    };
    let before = waits(&mut session);
    let held = instance
        .cache()
        .write(block, pythia::buffer::AccessKind::Lookup)
        .unwrap();
    std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let _session = instance.connect().unwrap();
            drop(
                instance
                    .cache()
                    .read(block, pythia::buffer::AccessKind::Lookup)
                    .unwrap(),
            );
        });
        // The reader counts its wait before it blocks: wait for the count (bounded), then
        // check that it is still blocked while the change holds the buffer.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let busy = || {
            instance
                .cache()
                .pool_statistics()
                .iter()
                .map(|pool| pool.buffer_busy_waits)
                .sum::<u64>()
        };
        while busy() == before.1 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(
            !reader.is_finished(),
            "the reader did not wait for the buffer"
        );
        drop(held);
        reader.join().unwrap();
    });
    let after = waits(&mut session);
    // v$system_event is process-wide: another test running beside this one may add a wait
    // of its own. The exact count is the pool's, of this instance, just below.
    assert!(
        after.0 - before.0 >= 1,
        "buffer busy waits in v$system_event: {before:?} then {after:?}"
    );
    assert_eq!(
        after.1 - before.1,
        1,
        "BUFFER_BUSY_WAIT in v$buffer_pool_statistics"
    );
    drop(session);
    instance.shutdown().unwrap();
}

/// The lowest and highest place of a table's data blocks in their working set's list (0: the
/// MRU end). A block read at the midpoint enters in front of the blocks read before it; a
/// block read at the cold end behind all of them.
fn list_places(session: &mut Session, table: &str) -> (u64, u64) {
    let rows = text_rows(
        session,
        &format!(
            "SELECT min(b.position), max(b.position) FROM x$bh b, dba_objects o \
             WHERE b.obj = o.data_object_id AND o.object_name = '{table}' AND b.class = 1"
        ),
    );
    (number(&rows[0][0]), number(&rows[0][1]))
}

/// `/*+ CACHE(t) */` and `/*+ NOCACHE(t) */` override the table's CACHE attribute for the
/// statement's full scans (SELECT, UPDATE, DELETE): CACHE reads a large NOCACHE table at the
/// midpoint, NOCACHE a CACHE table at the cold end. As in Oracle, an aliased table is named
/// by its alias (a hint naming its table is ignored), and a table within
/// `_small_table_threshold` is read at the midpoint whatever the hint.
#[test]
fn cache_and_nocache_hints_override_the_tables_attribute() {
    // One working set, whatever the CPUs: positions are per set.
    let instance = open(
        "pools-hints",
        &[
            ("db_block_buffers", "2048"),
            ("db_block_lru_latches", "1"),
            ("_small_table_threshold", "4"),
        ],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    for (table, rows) in [("scanned", 200), ("cached", 200), ("small", 5)] {
        text_rows(
            &mut session,
            &format!("CREATE TABLE {table} (id NUMBER, val VARCHAR2(200))"),
        );
        for id in 0..rows {
            text_rows(
                &mut session,
                &format!("INSERT INTO {table} VALUES ({id}, rpad('x', 150, 'x'))"),
            );
        }
    }
    text_rows(&mut session, "ALTER TABLE cached CACHE");
    text_rows(&mut session, "COMMIT");
    // Each round reads SMALL first, at the midpoint: a table read after it at the midpoint
    // lies wholly in front of it, one read at the cold end wholly behind it.
    let round = |session: &mut Session, statements: &[&str]| {
        text_rows(session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
        text_rows(session, "SELECT count(*) FROM small");
        for statement in statements {
            text_rows(session, statement);
        }
    };
    let behind_small = |session: &mut Session, table: &str| -> bool {
        let (small_first, small_last) = list_places(session, "SMALL");
        let (first, last) = list_places(session, table);
        assert!(
            first > small_last || last < small_first,
            "{table} ({first}..{last}) and SMALL ({small_first}..{small_last}) interleave"
        );
        first > small_last
    };

    round(
        &mut session,
        &[
            "SELECT /*+ NOCACHE(c) */ count(*) FROM cached c",
            "SELECT /*+ CACHE(scanned) */ count(*) FROM scanned",
        ],
    );
    assert!(
        behind_small(&mut session, "CACHED"),
        "NOCACHE: the cold end"
    );
    assert!(
        !behind_small(&mut session, "SCANNED"),
        "CACHE: the midpoint"
    );

    // Without the hints the tables' own attributes hold.
    round(
        &mut session,
        &[
            "SELECT count(*) FROM cached c",
            "SELECT count(*) FROM scanned",
        ],
    );
    assert!(!behind_small(&mut session, "CACHED"));
    assert!(behind_small(&mut session, "SCANNED"));

    // An aliased table is named by its alias: these hints name no table.
    round(
        &mut session,
        &[
            "SELECT /*+ NOCACHE(cached) */ count(*) FROM cached c",
            "SELECT /*+ CACHE(scanned) */ count(*) FROM scanned s",
        ],
    );
    assert!(!behind_small(&mut session, "CACHED"));
    assert!(behind_small(&mut session, "SCANNED"));

    // UPDATE and DELETE scans take their statement's hint.
    round(
        &mut session,
        &[
            "UPDATE /*+ NOCACHE(c) */ cached c SET val = 'y' WHERE id < 0",
            "DELETE /*+ CACHE(s) */ FROM scanned s WHERE id < 0",
        ],
    );
    assert!(behind_small(&mut session, "CACHED"));
    assert!(!behind_small(&mut session, "SCANNED"));

    // A small table is read at the midpoint even under NOCACHE: in front of CACHED, read
    // before it at the midpoint.
    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    text_rows(&mut session, "SELECT count(*) FROM cached");
    text_rows(
        &mut session,
        "SELECT /*+ NOCACHE(small) */ count(*) FROM small",
    );
    let (cached_first, _) = list_places(&mut session, "CACHED");
    let (_, small_last) = list_places(&mut session, "SMALL");
    assert!(small_last < cached_first, "{small_last} {cached_first}");
    drop(session);
    instance.shutdown().unwrap();
}

/// DML works in the table's pool: INSERT formats the table's new blocks and reads its segment
/// header there; UPDATE reads the rows it changes there and formats the blocks its migrated
/// rows move to there; the unique check of an INSERT reads the row of the key it collides
/// with there. Before, all of these went to DEFAULT whatever the table's STORAGE clause.
#[test]
fn dml_reads_and_formats_blocks_in_the_tables_pool() {
    let instance = open("pools-dml", SEED_EXAMPLE).unwrap();
    let mut session = instance.connect().unwrap();
    text_rows(
        &mut session,
        "CREATE TABLE kept (id NUMBER PRIMARY KEY, val VARCHAR2(1000)) \
         STORAGE (BUFFER_POOL KEEP)",
    );
    for id in 0..100 {
        text_rows(
            &mut session,
            &format!("INSERT INTO kept VALUES ({id}, 'value {id}')"),
        );
    }
    text_rows(&mut session, "COMMIT");
    // Every buffer of the table (its header, class 4, and its data blocks), by pool.
    let pools = |session: &mut Session| -> Vec<Vec<String>> {
        text_rows(
            session,
            "SELECT b.pool, count(*) FROM x$bh b, dba_objects o \
             WHERE b.obj = o.data_object_id AND o.object_name = 'KEPT' AND b.state = 1 \
             GROUP BY b.pool ORDER BY 1",
        )
    };
    let inserted = pools(&mut session);
    assert_eq!(inserted.len(), 1, "{inserted:?}");
    assert_eq!(inserted[0][0], "KEEP");
    let blocks_inserted = number(&inserted[0][1]);

    let keep_statistics = |session: &mut Session| -> (u64, u64) {
        let rows = text_rows(
            session,
            "SELECT db_block_change, buf_got FROM v$buffer_pool_statistics WHERE name = 'KEEP'",
        );
        (number(&rows[0][0]), number(&rows[0][1]))
    };
    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    let (changes_before, got_before) = keep_statistics(&mut session);
    // Rows of 600 bytes: three to a 2 KiB block, so most of them migrate to new blocks.
    text_rows(
        &mut session,
        "UPDATE kept SET val = rpad('x', 600, 'x') WHERE id < 50",
    );
    text_rows(&mut session, "COMMIT");
    let updated = pools(&mut session);
    assert_eq!(updated.len(), 1, "{updated:?}");
    assert_eq!(updated[0][0], "KEEP");
    assert!(
        number(&updated[0][1]) > blocks_inserted,
        "migrated rows took new blocks: {updated:?}, {blocks_inserted} before"
    );
    let (changes_after, got_after) = keep_statistics(&mut session);
    assert!(
        changes_after >= changes_before + 50,
        "{changes_before} {changes_after}"
    );
    assert!(got_after > got_before);

    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    let duplicate = session
        .execute("INSERT INTO kept VALUES (0, 'again')")
        .expect_err("a duplicate key");
    assert_eq!(duplicate.code(), 1, "{duplicate}");
    text_rows(&mut session, "ROLLBACK");
    let checked = pools(&mut session);
    assert_eq!(checked.len(), 1, "{checked:?}");
    assert_eq!(checked[0][0], "KEEP");
    drop(session);
    instance.shutdown().unwrap();
}

/// An index in KEEP has its header and root read into KEEP when the dictionary loads at
/// open, not into DEFAULT: every cached block of the index is in KEEP after a restart.
#[test]
fn an_index_is_opened_in_its_own_pool() {
    let dir = temp_dir("pools-index-open");
    let mut parameters: Vec<(&str, &str)> = common::SMALL_BLOCKS.to_vec();
    parameters.extend_from_slice(SEED_EXAMPLE);
    {
        let instance = Instance::open(&dir, &parameters).unwrap();
        let mut session = instance.connect().unwrap();
        text_rows(&mut session, "CREATE TABLE kept (id NUMBER)");
        text_rows(&mut session, "CREATE INDEX kept_id ON kept (id)");
        text_rows(&mut session, "INSERT INTO kept VALUES (1)");
        text_rows(&mut session, "COMMIT");
        text_rows(
            &mut session,
            "ALTER INDEX kept_id STORAGE (BUFFER_POOL KEEP)",
        );
        drop(session);
        instance.shutdown().unwrap();
    }
    let instance = Instance::open(&dir, &parameters).unwrap();
    let mut session = instance.connect().unwrap();
    let pools = text_rows(
        &mut session,
        "SELECT b.pool, count(*) FROM x$bh b, dba_objects o \
         WHERE b.obj = o.data_object_id AND o.object_name = 'KEPT_ID' GROUP BY b.pool",
    );
    assert_eq!(pools.len(), 1, "{pools:?}");
    assert_eq!(pools[0][0], "KEEP", "{pools:?}");
    drop(session);
    instance.shutdown().unwrap();
}

/// Reads `reads` rows of `advised`'s `rows`, one per block, drawn uniformly: a working set
/// larger than the 700-buffer DEFAULT pool, so that the advice has a curve to draw.
fn advised_workload(session: &mut Session, rows: u64, reads: u64) {
    let select = session
        .prepare("SELECT val FROM advised WHERE id = :1")
        .unwrap();
    let mut state = reads;
    for _ in 0..reads {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let key = (state >> 33) % rows;
        let result = session
            .execute_prepared(&select, &[pythia::Value::integer(key as i64)])
            .unwrap();
        assert_eq!(result.rows.len(), 1, "key {key}");
    }
}

/// ESTD_PHYSICAL_READS by SIZE_FACTOR for a pool, in size order.
fn advice_of(session: &mut Session, pool: &str) -> Vec<Vec<String>> {
    text_rows(
        session,
        &format!(
            "SELECT size_factor, buffers_for_estimate, estd_physical_reads, \
             estd_physical_read_factor, advice_status, size_for_estimate, block_size \
             FROM v$db_cache_advice WHERE name = '{pool}' ORDER BY size_factor"
        ),
    )
}

/// v$db_cache_advice after a workload that does not fit the DEFAULT pool: 20 rows per pool
/// from 0.1 to 2.0 of its buffers; at 1.0 the physical reads v$buffer_pool_statistics
/// measured (ESTD_PHYSICAL_READ_FACTOR 1); fewer reads estimated for larger sizes, never
/// more; and ALTER SYSTEM turns it OFF (the last estimates stay, with ADVICE_STATUS OFF) and
/// ON again (a new period).
#[test]
fn db_cache_advice_estimates_the_reads_of_twenty_sizes() {
    let instance = open("pools-advice", SEED_EXAMPLE).unwrap();
    let mut session = instance.connect().unwrap();
    text_rows(
        &mut session,
        "CREATE TABLE advised (id NUMBER PRIMARY KEY, val VARCHAR2(1600))",
    );
    let insert = session
        .prepare("INSERT INTO advised VALUES (:1, rpad('x', 1500, 'x'))")
        .unwrap();
    let rows = 1_000u64;
    for id in 0..rows {
        session
            .execute_prepared(&insert, &[pythia::Value::integer(id as i64)])
            .unwrap();
    }
    text_rows(&mut session, "COMMIT");
    text_rows(&mut session, "ALTER SYSTEM FLUSH BUFFER_CACHE");
    advised_workload(&mut session, rows, 4_000);

    let all = text_rows(
        &mut session,
        "SELECT name, count(*) FROM v$db_cache_advice GROUP BY name ORDER BY name",
    );
    assert_eq!(
        all,
        vec![
            vec!["DEFAULT", "20"],
            vec!["KEEP", "20"],
            vec!["RECYCLE", "20"],
        ]
    );
    let default = advice_of(&mut session, "DEFAULT");
    let measured = text_rows(
        &mut session,
        "SELECT physical_reads FROM v$buffer_pool_statistics WHERE name = 'DEFAULT'",
    );
    let factors: Vec<&str> = default.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(factors[0], ".1", "as Oracle writes numbers");
    assert_eq!(factors[9], "1");
    assert_eq!(factors[19], "2");
    assert_eq!(default[0][1], "70");
    assert_eq!(default[19][1], "1400");
    let current = &default[9];
    assert_eq!(current[1], "700");
    assert_eq!(
        current[2], measured[0][0],
        "the 1.0 row is what the pool measured"
    );
    assert_eq!(current[3], "1");
    assert_eq!(current[4], "ON");
    assert_eq!(current[5], "1.37", "700 buffers of 2 KiB in MB");
    assert_eq!(current[6], "2048");
    let estimates: Vec<u64> = default.iter().map(|row| number(&row[2])).collect();
    assert!(
        estimates.windows(2).all(|pair| pair[0] >= pair[1]),
        "non-increasing: {estimates:?}"
    );
    assert!(
        estimates[0] > estimates[9] && estimates[9] > estimates[19],
        "a pool too small for the working set: {estimates:?}"
    );
    // The idle KEEP pool read nothing: no factor (NULL), no reads estimated.
    let keep = advice_of(&mut session, "KEEP");
    assert!(keep.iter().all(|row| row[2] == "0" && row[3].is_empty()));
    let sampled = text_rows(
        &mut session,
        "SELECT gets FROM v$latch WHERE name = 'simulator lru latch'",
    );
    assert!(number(&sampled[0][0]) > 0, "sampled gets take the latch");

    // OFF: the last period's estimates stay, shown OFF; more reads change nothing.
    text_rows(&mut session, "ALTER SYSTEM SET db_cache_advice = OFF");
    advised_workload(&mut session, rows, 500);
    let off = advice_of(&mut session, "DEFAULT");
    assert!(off.iter().all(|row| row[4] == "OFF"));
    let columns = |rows: &[Vec<String>]| -> Vec<(String, String)> {
        rows.iter()
            .map(|row| (row[0].clone(), row[2].clone()))
            .collect()
    };
    assert_eq!(columns(&off), columns(&default));
    assert_eq!(
        text_rows(
            &mut session,
            "SELECT value FROM v$parameter WHERE name = 'db_cache_advice'"
        ),
        vec![vec!["OFF"]]
    );

    // ON again: a new period, which has read nothing yet.
    text_rows(&mut session, "ALTER SYSTEM SET db_cache_advice = ON");
    let fresh = advice_of(&mut session, "DEFAULT");
    assert!(fresh.iter().all(|row| row[2] == "0" && row[4] == "ON"));
    advised_workload(&mut session, rows, 500);
    let again = advice_of(&mut session, "DEFAULT");
    assert!(number(&again[0][2]) > 0);
    drop(session);
    instance.shutdown().unwrap();
}

/// Started OFF the advice has no period to show estimates of: no rows. READY allocates its
/// lists without collecting; ON collects. The sample factor is bounded (1 to 1024).
#[test]
fn db_cache_advice_off_at_startup_shows_no_rows_until_turned_on() {
    let instance = open(
        "pools-advice-off",
        &[("db_cache_size", "4M"), ("db_cache_advice", "OFF")],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    let count = |session: &mut Session| {
        number(&text_rows(session, "SELECT count(*) FROM v$db_cache_advice")[0][0])
    };
    assert_eq!(count(&mut session), 0);
    text_rows(&mut session, "ALTER SYSTEM SET db_cache_advice = READY");
    text_rows(&mut session, "SELECT count(*) FROM dual");
    assert_eq!(count(&mut session), 0, "READY collects nothing");
    text_rows(&mut session, "ALTER SYSTEM SET db_cache_advice = ON");
    assert_eq!(count(&mut session), 20);
    drop(session);
    instance.shutdown().unwrap();
    let error = open_error(
        "pools-advice-factor",
        &[("_db_cache_advice_sample_factor", "0")],
    );
    assert_eq!(error.code(), 96, "{error}");
}
