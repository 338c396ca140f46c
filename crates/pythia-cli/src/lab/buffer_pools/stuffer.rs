//! `pythia lab stuffer`: seed 001's BUFFER_STUFFER, on Table 4's objects in 2048-byte blocks;
//! its objects, run and replays serve `midpoint` and `advice` too.
//!
//! ```text
//!   build once:  LARGE_TBL  14,406 rows, one per block  + LARGE_TBL_PK (unique, id_col)
//!                LOOKUP_TBL    500 rows, one per block  + LOOKUP_TBL_PK (unique, id_col)
//!   each configuration: restart with its pools (Table 5) and its objects' BUFFER_POOL, then
//!     10,000 x  SELECT a.data_col, b.data_col FROM large_tbl a, lookup_tbl b
//!               WHERE a.id_col = :1 AND a.id_col2 = b.id_col
//!               (:1 from the seed's linear congruential generator: no row twice)
//!     and report v$buffer_pool_statistics' deltas per pool (Table 6), next to Belady's
//!     optimum and other policies replayed on the same recorded block gets.
//! ```
//!
//! Time is virtual: the seed's runs took 112-162 s for the 10,000 accesses (100 batches of
//! 100, with a 0.1 s sleep between batches), and touch-count aging counts at most one touch
//! per `_db_aging_touch_time` (3 s) of a buffer. The experiment advances the instance's aging
//! clock by [`ITERATION_MILLIS`] per access and by the sleep per batch, so that blocks age as
//! they did in the seed's runs, however fast this machine is; the LRU configurations do not
//! read the clock at all.
//!
//! Where the seed says nothing, choices (all in `docs/lab-buffer-pools.md`): LARGE_TBL's key is the
//! generator's value plus one (1..=14,406); its `id_col2` is `1 + id_col mod 500`, so that the
//! 500 LOOKUP_TBL rows are reached evenly (the seed's TEST3 read exactly 500 LOOKUP_TBL blocks
//! into a 500-buffer KEEP pool, so it had at most 500 rows in use); the generator starts at 0.

use std::path::Path;
use std::sync::Arc;

use comfy_table::Table;
use pythia::buffer::simulate::{self, Access, Outcome};
use pythia::buffer::{
    AccessKind, AgingParameters, BlockTrace, BufferPool, ClassicLruPolicy, ClockPolicy,
    TouchCountPolicy, TracedAccess, VirtualClock,
};
use pythia::{Instance, Value};

use crate::lab::common::{integer, lab_error, query_rows};

/// The seed's generator: x -> (967 x + 3041) mod 14,406 (`bcX.set_rand(14406, 967, 3041)`),
/// full period, so 10,000 draws never repeat a key.
const LCG_MODULUS: u64 = 14_406;
const LCG_MULTIPLIER: u64 = 967;
const LCG_INCREMENT: u64 = 3_041;
const LARGE_ROWS: u64 = LCG_MODULUS;
const LOOKUP_ROWS: u64 = 500;
/// `buffer_stuffer(100, .1, 100)`: 100 batches of 100 accesses, 0.1 s apart.
const BATCHES: u64 = 100;
const ACCESSES_PER_BATCH: u64 = 100;
const BATCH_SLEEP_MILLIS: u64 = 100;
/// Virtual time one access takes: (124 s - 10 s of sleeps) / 10,000, the seed's Oracle8i
/// default run (Table 9, TEST1).
pub(super) const ITERATION_MILLIS: u64 = 11;
/// Characters of `data_col`: enough that one row fills a 2048-byte block.
const DATA_CHARS: usize = 1_500;
/// The buffers of every configuration (Table 5).
pub(super) const CACHE_BUFFERS: usize = 1_000;
/// The fewest physical reads the seed's run could make: every block of its objects once.
const SEED_MINIMUM_READS: u64 = 10_652;

const QUERY: &str = "SELECT a.data_col data1, b.data_col data2 FROM large_tbl a, lookup_tbl b \
                     WHERE a.id_col = :1 AND a.id_col2 = b.id_col";

const OBJECTS: [(&str, &str, u64); 4] = [
    ("LARGE_TBL", "TABLE", 14_409),
    ("LARGE_TBL_PK", "INDEX", 142),
    ("LOOKUP_TBL", "TABLE", 505),
    ("LOOKUP_TBL_PK", "INDEX", 5),
];

/// One of Table 5's configurations: its pools and where each object goes, with Table 6's
/// figures per pool (physical reads, logical reads).
struct Configuration {
    name: &'static str,
    purpose: &'static str,
    parameters: &'static [(&'static str, &'static str)],
    /// (object, pool) for LARGE_TBL, LARGE_TBL_PK, LOOKUP_TBL, LOOKUP_TBL_PK.
    pools: [&'static str; 4],
    /// Table 6: (pool, physical reads, logical reads).
    seed: &'static [(&'static str, u64, u64)],
    /// The KEEP pool is there to hold both indexes (TEST4: 150 buffers for the seed's 147
    /// index blocks): it is sized to hold ours, which are larger (`keep_for_indexes`).
    keep_holds_indexes: bool,
    /// Table 5's buffers per pool, for replaying the seed's own objects (`seed_model`).
    seed_buffers: &'static [(&'static str, usize)],
}

const CONFIGURATIONS: [Configuration; 4] = [
    Configuration {
        name: "TEST1",
        purpose: "DEFAULT pool only",
        parameters: &[("db_block_buffers", "1000"), ("db_block_lru_latches", "3")],
        pools: ["DEFAULT", "DEFAULT", "DEFAULT", "DEFAULT"],
        seed: &[("DEFAULT", 16_018, 30_164)],
        keep_holds_indexes: false,
        seed_buffers: &[("DEFAULT", 1000)],
    },
    Configuration {
        name: "TEST2",
        purpose: "LARGE_TBL in a small RECYCLE pool",
        parameters: &[
            ("db_block_buffers", "1000"),
            ("db_block_lru_latches", "3"),
            ("buffer_pool_recycle", "(buffers:50, lru_latches:1)"),
        ],
        pools: ["RECYCLE", "DEFAULT", "DEFAULT", "DEFAULT"],
        seed: &[("DEFAULT", 706, 20_164), ("RECYCLE", 10_000, 10_000)],
        keep_holds_indexes: false,
        seed_buffers: &[("DEFAULT", 950), ("RECYCLE", 50)],
    },
    Configuration {
        name: "TEST3",
        purpose: "LOOKUP_TBL pinned in KEEP",
        parameters: &[
            ("db_block_buffers", "1000"),
            ("db_block_lru_latches", "3"),
            ("buffer_pool_keep", "(buffers:500, lru_latches:1)"),
        ],
        pools: ["DEFAULT", "DEFAULT", "KEEP", "DEFAULT"],
        seed: &[("DEFAULT", 12_845, 20_164), ("KEEP", 500, 10_000)],
        keep_holds_indexes: false,
        seed_buffers: &[("DEFAULT", 500), ("KEEP", 500)],
    },
    Configuration {
        name: "TEST4",
        purpose: "RECYCLE for LARGE_TBL, indexes in KEEP",
        parameters: &[
            ("db_block_buffers", "1000"),
            ("db_block_lru_latches", "3"),
            ("buffer_pool_recycle", "(buffers:50, lru_latches:1)"),
            ("buffer_pool_keep", "(buffers:150, lru_latches:1)"),
        ],
        pools: ["RECYCLE", "KEEP", "DEFAULT", "KEEP"],
        seed: &[
            ("DEFAULT", 553, 10_364),
            ("RECYCLE", 10_000, 10_000),
            ("KEEP", 147, 10_000),
        ],
        keep_holds_indexes: true,
        seed_buffers: &[("DEFAULT", 800), ("RECYCLE", 50), ("KEEP", 150)],
    },
];

/// What one run measured: per pool (in BufferPool order) logical and physical reads, the
/// block gets it recorded, and v$db_cache_advice for the run (`lab advice`).
pub(super) struct Run {
    /// (pool, buffers, logical reads, physical reads) of the configured pools.
    pools: Vec<(BufferPool, usize, u64, u64)>,
    pub(super) trace: BlockTrace,
    aging: [AgingParameters; 3],
    /// (pool, BUFFERS_FOR_ESTIMATE, ESTD_PHYSICAL_READS), by pool and size.
    pub(super) advice: Vec<(BufferPool, usize, u64)>,
}

impl Run {
    pub(super) fn physical_reads(&self) -> u64 {
        self.pools.iter().map(|pool| pool.3).sum()
    }

    pub(super) fn logical_reads(&self) -> u64 {
        self.pools.iter().map(|pool| pool.2).sum()
    }

    /// Belady's optimum with the same pools: each pool's own gets through its own buffers.
    pub(super) fn belady(&self) -> u64 {
        self.pools
            .iter()
            .map(|&(pool, buffers, _, _)| {
                simulate::belady(buffers, &self.trace.of_pool(pool)).misses
            })
            .sum()
    }
}

/// The run's accesses in order: the LARGE_TBL key the generator gives, and the virtual second
/// it happens at ([`ITERATION_MILLIS`] per access, [`BATCH_SLEEP_MILLIS`] after each batch).
fn schedule() -> impl Iterator<Item = (u64, u32)> {
    let mut x = 0u64;
    (0..BATCHES * ACCESSES_PER_BATCH).map(move |number| {
        x = (LCG_MULTIPLIER * x + LCG_INCREMENT) % LCG_MODULUS;
        let millis = number * ITERATION_MILLIS + number / ACCESSES_PER_BATCH * BATCH_SLEEP_MILLIS;
        (x + 1, (millis / 1000) as u32)
    })
}

/// The LOOKUP_TBL row a LARGE_TBL row joins (its `id_col2`).
fn lookup_of(key: u64) -> u64 {
    1 + key % LOOKUP_ROWS
}

/// Settings every open of the experiment's database uses.
const BASE_PARAMETERS: [(&str, &str); 4] = [
    ("db_block_size", "2048"),
    ("undo_tablespace_size", "16M"),
    ("log_file_size", "16M"),
    ("log_buffer", "1M"),
];

pub(super) fn open(
    dir: &Path,
    parameters: &[(&str, &str)],
    clock: &Arc<VirtualClock>,
) -> pythia::Result<Arc<Instance>> {
    let mut all: Vec<(&str, &str)> = BASE_PARAMETERS.to_vec();
    all.extend_from_slice(parameters);
    Instance::open_with_clock(dir, &all, clock.clone())
}

/// Creates and loads Table 4's objects in a new database; returns (object, blocks it has,
/// segment header included).
pub(super) fn build(dir: &Path) -> pythia::Result<Vec<(String, u64)>> {
    let _ = std::fs::remove_dir_all(dir);
    let clock = Arc::new(VirtualClock::new(0));
    let instance = open(dir, &[], &clock)?;
    let mut session = instance.connect()?;
    for table in ["large_tbl", "lookup_tbl"] {
        session.execute(&format!(
            "CREATE TABLE {table} (id_col NUMBER NOT NULL, id_col2 NUMBER, data_col VARCHAR2(2000))"
        ))?;
    }
    let data = "x".repeat(DATA_CHARS);
    for (table, rows) in [("large_tbl", LARGE_ROWS), ("lookup_tbl", LOOKUP_ROWS)] {
        let insert = session.prepare(&format!("INSERT INTO {table} VALUES (:1, :2, :3)"))?;
        for id in 1..=rows {
            let lookup = lookup_of(id);
            session.execute_prepared(
                &insert,
                &[
                    Value::integer(id as i64),
                    Value::integer(lookup as i64),
                    Value::text(data.clone()),
                ],
            )?;
        }
        session.execute("COMMIT")?;
    }
    for table in ["large_tbl", "lookup_tbl"] {
        session.execute(&format!(
            "CREATE UNIQUE INDEX {table}_pk ON {table} (id_col)"
        ))?;
        session.execute(&format!("ANALYZE TABLE {table} COMPUTE STATISTICS"))?;
    }
    // Every block of the four objects is cached now (the loads wrote the tables and indexes,
    // ANALYZE read them): x$bh counts them, seed 001's z$buffer_cache question in plain SQL.
    let rows = query_rows(
        &mut session,
        "SELECT o.object_name, COUNT(*) FROM x$bh b, user_objects o \
         WHERE b.obj = o.data_object_id GROUP BY o.object_name",
    )
    .ok_or_else(|| lab_error("x$bh could not be read"))?;
    drop(session);
    instance.shutdown()?;
    Ok(rows
        .iter()
        .map(|row| (row[0].to_string(), integer(&row[1]) as u64))
        .collect())
}

/// Restarts with `parameters`, puts each object in its pool, restarts again (the seed ran
/// each test right after startup), and runs the 10,000 accesses, recording their block gets.
pub(super) fn stuff(
    dir: &Path,
    parameters: &[(&str, &str)],
    pools: &[&str; 4],
) -> pythia::Result<Run> {
    let clock = Arc::new(VirtualClock::new(0));
    {
        let instance = open(dir, parameters, &clock)?;
        let mut session = instance.connect()?;
        for ((object, kind, _), pool) in OBJECTS.iter().zip(pools) {
            session.execute(&format!(
                "ALTER {kind} {object} STORAGE (BUFFER_POOL {pool})"
            ))?;
        }
        drop(session);
        instance.shutdown()?;
    }
    let instance = open(dir, parameters, &clock)?;
    let mut session = instance.connect()?;
    let statement = session.prepare(QUERY)?;
    let statistics = |session: &mut pythia::Session| {
        query_rows(
            session,
            "SELECT name, consistent_gets + db_block_gets, physical_reads \
             FROM v$buffer_pool_statistics ORDER BY id",
        )
        .ok_or_else(|| lab_error("v$buffer_pool_statistics could not be read"))
    };
    // The cache advice's period is the run's, as the statistics' deltas are.
    for mode in ["READY", "ON"] {
        session.execute(&format!(
            "ALTER SYSTEM SET db_cache_advice = {mode} SCOPE = MEMORY"
        ))?;
    }
    let before = statistics(&mut session)?;
    instance.cache().start_trace(1 << 20);
    for (key, second) in schedule() {
        clock.set(second);
        let result = session.execute_prepared(&statement, &[Value::integer(key as i64)])?;
        if result.rows.len() != 1 {
            return Err(lab_error(format!(
                "key {key} found {} rows instead of one",
                result.rows.len()
            )));
        }
    }
    let trace = instance.cache().stop_trace();
    if trace.dropped > 0 {
        return Err(lab_error(format!(
            "the trace of the run dropped {} block gets",
            trace.dropped
        )));
    }
    let after = statistics(&mut session)?;
    let advice = query_rows(
        &mut session,
        "SELECT name, buffers_for_estimate, estd_physical_reads FROM v$db_cache_advice \
         ORDER BY id, size_factor",
    )
    .ok_or_else(|| lab_error("v$db_cache_advice could not be read"))?
    .iter()
    .map(|row| {
        let pool = BufferPool::from_name(&row[0].to_string()).unwrap_or_default();
        (pool, integer(&row[1]) as usize, integer(&row[2]) as u64)
    })
    .collect();
    let layout = instance.cache().layout().clone();
    let pools = after
        .iter()
        .map(|row| {
            let name = row[0].to_string();
            let pool = BufferPool::from_name(&name)
                .ok_or_else(|| lab_error(format!("unknown pool {name}")))?;
            let earlier = before.iter().find(|old| old[0].to_string() == name);
            let delta = |column: usize| {
                (integer(&row[column]) - earlier.map_or(0, |old| integer(&old[column]))) as u64
            };
            Ok((pool, layout.pool(pool).buffers, delta(1), delta(2)))
        })
        .collect::<pythia::Result<Vec<_>>>()?;
    let aging = BufferPool::ALL.map(|pool| layout.aging_of(pool));
    drop(session);
    instance.shutdown()?;
    Ok(Run {
        pools,
        trace,
        aging,
        advice,
    })
}

/// The buffers of a KEEP pool that holds both indexes as the seed's TEST4 did (its 147 index
/// blocks in 150 buffers): the next multiple of 50 (the least a working set has) above our
/// indexes' blocks plus the seed's 3 to spare. Our indexes are larger than Oracle's: a leaf
/// entry keeps the transaction that delete-marked it (`access/btree.rs`).
fn keep_for_indexes(segments: &[(String, u64)]) -> usize {
    let index_blocks: u64 = segments
        .iter()
        .filter(|(name, _)| name.ends_with("_PK"))
        .map(|(_, blocks)| blocks)
        .sum();
    (index_blocks as usize + 3).div_ceil(50) * 50
}

/// A configuration's parameters, with KEEP sized for our indexes where it holds them.
fn parameters_of(
    configuration: &Configuration,
    segments: &[(String, u64)],
    algorithm: &str,
) -> Vec<(String, String)> {
    let mut parameters: Vec<(String, String)> = configuration
        .parameters
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    if configuration.keep_holds_indexes {
        for (name, value) in &mut parameters {
            if name == "buffer_pool_keep" {
                *value = format!("(buffers:{}, lru_latches:1)", keep_for_indexes(segments));
            }
        }
    }
    parameters.push(("_db_lru_algorithm".to_string(), algorithm.to_string()));
    parameters
}

pub(super) fn ratio(physical: u64, logical: u64) -> String {
    if logical == 0 {
        return String::new();
    }
    format!("{:.1}%", 100.0 * (1.0 - physical as f64 / logical as f64))
}

pub(super) fn off_by(ours: u64, theirs: u64) -> String {
    format!("{:+.1}%", 100.0 * (ours as f64 / theirs as f64 - 1.0))
}

pub(super) fn objects_table(segments: &[(String, u64)]) -> Table {
    let mut table = Table::new();
    table.set_header(vec!["object", "type", "blocks", "seed (Table 4)"]);
    for (name, kind, seed_blocks) in OBJECTS {
        let blocks = segments
            .iter()
            .find(|(segment, _)| segment == name)
            .map_or(0, |(_, blocks)| *blocks);
        table.add_row(vec![
            name.to_string(),
            kind.to_string(),
            blocks.to_string(),
            seed_blocks.to_string(),
        ]);
    }
    table
}

/// Misses of `trace` replayed through a pool of `buffers` buffers aged by `algorithm`.
fn replay(algorithm: Algorithm, buffers: usize, aging: AgingParameters, trace: &[Access]) -> u64 {
    match algorithm {
        Algorithm::TouchCount => {
            let clock = Arc::new(VirtualClock::new(0));
            let policy = TouchCountPolicy::new(buffers, aging, clock.clone());
            simulate::replay(&policy, buffers, trace, Some(&clock)).misses
        }
        Algorithm::Lru => {
            simulate::replay(&ClassicLruPolicy::new(buffers), buffers, trace, None).misses
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Algorithm {
    Lru,
    TouchCount,
}

impl Algorithm {
    fn parameter(self) -> &'static str {
        match self {
            Algorithm::Lru => "LRU",
            Algorithm::TouchCount => "TOUCH_COUNT",
        }
    }
}

/// The what-if advisor: the run's gets of each pool replayed through every policy at the
/// pool's size (one list per pool, where the cache splits it into working sets), next to
/// Belady's optimum. The replays start empty, while the pools held the few blocks opening
/// the database read: they count those as misses.
fn what_if(run: &Run) -> Table {
    let mut table = Table::new();
    table.set_header(vec![
        "pool",
        "buffers",
        "gets",
        "measured",
        "touch count",
        "LRU",
        "CLOCK",
        "FIFO",
        "2Q",
        "S3-FIFO",
        "Belady",
    ]);
    for &(pool, buffers, _, physical) in &run.pools {
        let trace = run.trace.of_pool(pool);
        if trace.is_empty() {
            continue;
        }
        let aging = run.aging[pool.index()];
        let clock_policy = simulate::replay(&ClockPolicy::new(buffers), buffers, &trace, None);
        let misses = |outcome: Outcome| outcome.misses.to_string();
        table.add_row(vec![
            pool.name().to_string(),
            buffers.to_string(),
            trace.len().to_string(),
            physical.to_string(),
            replay(Algorithm::TouchCount, buffers, aging, &trace).to_string(),
            replay(Algorithm::Lru, buffers, aging, &trace).to_string(),
            misses(clock_policy),
            misses(simulate::fifo(buffers, &trace)),
            misses(simulate::two_q(buffers, &trace)),
            misses(simulate::s3_fifo(buffers, &trace)),
            misses(simulate::belady(buffers, &trace)),
        ]);
    }
    table
}

/// The seed's own objects as blocks: Table 4 (Oracle 8.0) or Table 8 (Oracle8i). An index
/// is a root over leaves holding its keys in order.
#[derive(Clone, Copy)]
pub(super) struct SeedObjects {
    large_pk_blocks: u64,
    lookup_pk_blocks: u64,
}

pub(super) const TABLE_4: SeedObjects = SeedObjects {
    large_pk_blocks: 142,
    lookup_pk_blocks: 5,
};
pub(super) const TABLE_8: SeedObjects = SeedObjects {
    large_pk_blocks: 67,
    lookup_pk_blocks: 2,
};

/// The block gets the seed's run made, as far as its objects' sizes tell: per access the
/// nested loop's six gets (LARGE_TBL_PK root and leaf, the LARGE_TBL row, LOOKUP_TBL_PK root
/// and leaf, the LOOKUP_TBL row), each with the pool `pools` gives its object. Replaying it
/// separates what our larger index entries change from what the policy does.
fn seed_trace(objects: SeedObjects, pools: &[&str; 4]) -> BlockTrace {
    let pool = |object: usize| BufferPool::from_name(pools[object]).unwrap_or_default();
    // Block numbers: each object in its own range.
    const LARGE: u64 = 1 << 32;
    const LARGE_PK: u64 = 2 << 32;
    const LOOKUP: u64 = 3 << 32;
    const LOOKUP_PK: u64 = 4 << 32;
    let leaf = |keys: u64, blocks: u64, key: u64| {
        let leaves = blocks.saturating_sub(1).max(1);
        1 + (key - 1) * leaves / keys
    };
    let mut trace = Vec::with_capacity(6 * (BATCHES * ACCESSES_PER_BATCH) as usize);
    for (key, second) in schedule() {
        let lookup = lookup_of(key);
        for (object, block) in [
            (1, LARGE_PK),
            (1, LARGE_PK + leaf(LARGE_ROWS, objects.large_pk_blocks, key)),
            (0, LARGE + key),
            (3, LOOKUP_PK),
            (
                3,
                LOOKUP_PK + leaf(LOOKUP_ROWS, objects.lookup_pk_blocks, lookup),
            ),
            (2, LOOKUP + lookup),
        ] {
            trace.push(TracedAccess {
                pool: pool(object),
                access: Access {
                    block,
                    kind: AccessKind::Lookup,
                    second,
                },
            });
        }
    }
    BlockTrace {
        accesses: trace,
        dropped: 0,
    }
}

/// Physical reads of the seed's own objects replayed through pools of `buffers` (pool name,
/// buffers) aged by `algorithm` (DEFAULT's hot share `percent_hot`).
pub(super) fn seed_model(
    objects: SeedObjects,
    pools: &[&str; 4],
    buffers: &[(&str, usize)],
    algorithm: Algorithm,
    percent_hot: u32,
) -> SeedModel {
    let trace = seed_trace(objects, pools);
    let mut model = SeedModel::default();
    for &(name, size) in buffers {
        let Some(pool) = BufferPool::from_name(name) else {
            continue;
        };
        let gets = trace.of_pool(pool);
        if gets.is_empty() {
            continue;
        }
        let hot = if pool == BufferPool::Default {
            percent_hot
        } else {
            0
        };
        let aging = AgingParameters::DEFAULT_POOL.with_percent_hot(hot);
        model.replayed += replay(algorithm, size, aging, &gets);
        model.fifo += simulate::fifo(size, &gets).misses;
        model.belady += simulate::belady(size, &gets).misses;
    }
    model
}

/// Physical reads of the seed's objects replayed (`seed_model`).
#[derive(Default)]
pub(super) struct SeedModel {
    /// Through the run's algorithm.
    pub(super) replayed: u64,
    pub(super) fifo: u64,
    pub(super) belady: u64,
}

/// Table 6's layout for one algorithm's four runs, then the totals against the seed, the
/// optimum and the model of the seed's own objects.
fn print_runs(algorithm: Algorithm, runs: &[(&Configuration, Run)]) {
    let mut table = Table::new();
    table.set_header(vec![
        "test",
        "pool",
        "physical reads",
        "logical reads",
        "hit ratio",
        "seed physical",
        "seed logical",
        "seed hit ratio",
    ]);
    for (configuration, run) in runs {
        let seed_of = |pool: BufferPool| {
            configuration
                .seed
                .iter()
                .find(|(name, _, _)| *name == pool.name())
        };
        for &(pool, _, logical, physical) in &run.pools {
            let seed = seed_of(pool);
            table.add_row(vec![
                configuration.name.to_string(),
                pool.name().to_string(),
                physical.to_string(),
                logical.to_string(),
                ratio(physical, logical),
                seed.map_or(String::new(), |seed| seed.1.to_string()),
                seed.map_or(String::new(), |seed| seed.2.to_string()),
                seed.map_or(String::new(), |seed| ratio(seed.1, seed.2)),
            ]);
        }
    }
    println!("{table}");
    let mut totals = Table::new();
    totals.set_header(vec![
        "test",
        "purpose",
        "physical reads",
        "seed (Table 6)",
        "vs seed",
        "Belady, same pools",
        "over Belady",
        "seed's objects replayed",
        "their FIFO",
        "their Belady",
    ]);
    for (configuration, run) in runs {
        let belady = run.belady();
        let seed_physical: u64 = configuration.seed.iter().map(|seed| seed.1).sum();
        let model = seed_model(
            TABLE_4,
            &configuration.pools,
            configuration.seed_buffers,
            algorithm,
            run.aging[BufferPool::Default.index()].percent_hot,
        );
        totals.add_row(vec![
            configuration.name.to_string(),
            configuration.purpose.to_string(),
            run.physical_reads().to_string(),
            seed_physical.to_string(),
            off_by(run.physical_reads(), seed_physical),
            belady.to_string(),
            off_by(run.physical_reads(), belady),
            model.replayed.to_string(),
            model.fifo.to_string(),
            model.belady.to_string(),
        ]);
    }
    println!("{totals}");
}

/// Takes no `-p` settings: `pythia lab` notes that it ignores them.
pub fn run(quick: bool, dir: &Path, _parameters: &[(String, String)]) -> pythia::Result<()> {
    let started = std::time::Instant::now();
    println!(
        "stuffer experiment (seed 001, BUFFER_STUFFER): {} LCG-chosen LARGE_TBL rows joined to LOOKUP_TBL, \
         2048-byte blocks, {CACHE_BUFFERS} buffers in 3 LRU latches; virtual time {ITERATION_MILLIS} ms per access",
        BATCHES * ACCESSES_PER_BATCH
    );
    if quick {
        println!("(quick changes nothing here: the experiment is its full size)");
    }
    let segments = build(&dir.join("db"))?;
    println!("{}", objects_table(&segments));
    println!(
        "TEST4's KEEP pool holds both indexes as in the seed (147 blocks in 150 buffers): {} buffers for ours. \
         The seed's minimum is {SEED_MINIMUM_READS} reads.",
        keep_for_indexes(&segments)
    );
    for (algorithm, label) in [
        (Algorithm::Lru, "Oracle 8.0's classic LRU (the seed's runs)"),
        (
            Algorithm::TouchCount,
            "Oracle8i's touch count with midpoint insertion",
        ),
    ] {
        println!("\n{label}");
        let mut runs = Vec::new();
        for configuration in &CONFIGURATIONS {
            let parameters = parameters_of(configuration, &segments, algorithm.parameter());
            let parameters: Vec<(&str, &str)> = parameters
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str()))
                .collect();
            let run = stuff(&dir.join("db"), &parameters, &configuration.pools)?;
            runs.push((configuration, run));
        }
        print_runs(algorithm, &runs);
        if let Some((_, run)) = runs.first() {
            println!("what-if: TEST1's block gets replayed through each policy (misses)");
            println!("{}", what_if(run));
        }
    }
    println!(
        "\nstuffer experiment in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_never_repeats_a_key_in_a_run() {
        let mut seen = std::collections::HashSet::new();
        for (key, _) in schedule() {
            assert!((1..=LARGE_ROWS).contains(&key));
            assert!(seen.insert(key), "key {key} drawn twice");
        }
        assert_eq!(seen.len(), 10_000);
    }

    /// With LARGE_TBL alone in RECYCLE (TEST2, TEST4), every other block is read once: the
    /// pools reach Belady's optimum, which is one read per block.
    #[test]
    fn a_recycle_pool_for_the_large_table_reaches_the_optimum() {
        for configuration in CONFIGURATIONS.iter().filter(|c| c.pools[0] == "RECYCLE") {
            for algorithm in [Algorithm::Lru, Algorithm::TouchCount] {
                let model = seed_model(
                    TABLE_4,
                    &configuration.pools,
                    configuration.seed_buffers,
                    algorithm,
                    50,
                );
                let blocks = 10_000 + 142 + LOOKUP_ROWS + 5;
                assert_eq!(model.belady, blocks, "{}", configuration.name);
                assert_eq!(model.replayed, blocks, "{}", configuration.name);
            }
        }
    }
}
