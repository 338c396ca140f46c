//! Buffer pools through the parameters and the views (docs/buffer-pools.md): the Oracle8 and
//! the modern ways of sizing them, seed 001's rules, and what v$buffer_pool, x$kcbwds, x$bh
//! and v$bh show of a running instance.

use std::sync::Arc;

use pythia::{Instance, Session};

mod common;
use common::{temp_dir, text_rows};

/// Small redo and undo, and 2 KiB blocks as in seed 001.
const BASE: &[(&str, &str)] = &[
    ("db_block_size", "2048"),
    ("log_file_size", "4M"),
    ("undo_tablespace_size", "16M"),
    ("log_buffer", "1M"),
];

fn open(name: &str, extra: &[(&str, &str)]) -> pythia::Result<Arc<Instance>> {
    let mut parameters: Vec<(&str, &str)> = BASE.to_vec();
    parameters.extend_from_slice(extra);
    Instance::open(temp_dir(name), &parameters)
}

/// The error opening with these parameters gives (it must give one).
fn open_error(name: &str, extra: &[(&str, &str)]) -> pythia::Error {
    match open(name, extra) {
        Ok(_) => panic!("{name}: opened with {extra:?}"),
        Err(error) => error,
    }
}

fn number(text: &str) -> u64 {
    text.parse()
        .unwrap_or_else(|_| panic!("{text:?} is not a number"))
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
/// blocks: segment headers are read into DEFAULT for now); after ALTER TABLE
/// moves the table to DEFAULT, its cached blocks stay in KEEP until they leave the cache, and
/// blocks read afterwards go to DEFAULT (seed 001).
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
