//! Buffer pools and their working sets: which pools the parameters ask for, and the rules a
//! layout must keep (seed 001; `docs/buffer-pools.md`).
//!
//! ```text
//!   buf#  0 ............................................................. total - 1
//!         [ DEFAULT: set 0 | set 1 | ... ][ KEEP: set k | ... ][ RECYCLE: set r | ... ]
//! ```
//!
//! Pools take consecutive buffer ranges in the order DEFAULT, KEEP, RECYCLE; a pool's buffers
//! are split equally among its working sets (the first sets take one more when they do not
//! divide), each set with its own 'cache buffers lru chain' latch and replacement list.

use crate::buffer::touch_count::AgingParameters;
use crate::error::{Error, Result};

/// A working set holds at least this many buffers (seed 001: "The minimum size of an LRU
/// working set is 50 buffers").
pub const WORKING_SET_BUFFERS_MIN: usize = 50;

/// All pools together have at most this many LRU latches per CPU (seed 001: six times the
/// number of CPUs).
pub const LRU_LATCHES_PER_CPU_MAX: usize = 6;

/// The most buffers (or LRU latches) one pool's parameter may name: `db_block_buffers`' bound.
pub const POOL_BUFFERS_MAX: usize = i32::MAX as usize;

/// A segment's buffer pool (`STORAGE (BUFFER_POOL ...)`, `dba_segments.buffer_pool`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BufferPool {
    #[default]
    Default = 0,
    Keep = 1,
    Recycle = 2,
}

impl BufferPool {
    pub const ALL: [BufferPool; 3] = [BufferPool::Default, BufferPool::Keep, BufferPool::Recycle];

    /// Oracle's name, as in `v$buffer_pool.name` and `dba_segments.buffer_pool`.
    pub const fn name(self) -> &'static str {
        match self {
            BufferPool::Default => "DEFAULT",
            BufferPool::Keep => "KEEP",
            BufferPool::Recycle => "RECYCLE",
        }
    }

    /// The pool a name (any case) names.
    pub fn from_name(name: &str) -> Option<BufferPool> {
        BufferPool::ALL
            .into_iter()
            .find(|pool| pool.name().eq_ignore_ascii_case(name))
    }

    pub const fn index(self) -> usize {
        self as usize
    }

    /// The stored code (dictionary, redo): the index.
    pub const fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<BufferPool> {
        BufferPool::ALL.get(usize::from(code)).copied()
    }
}

/// How working sets age their buffers (`_db_lru_algorithm`, Pythia's own parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LruAlgorithm {
    /// Oracle8i: touch counts and midpoint insertion.
    #[default]
    TouchCount,
    /// Oracle 8.0: every hit moves the buffer to the MRU end.
    Lru,
    /// Second chance over a FIFO (what the cache used before the pools).
    Clock,
}

impl LruAlgorithm {
    pub const NAMES: [&'static str; 3] = ["TOUCH_COUNT", "LRU", "CLOCK"];

    pub fn from_name(name: &str) -> Option<LruAlgorithm> {
        match name.to_ascii_uppercase().as_str() {
            "TOUCH_COUNT" => Some(LruAlgorithm::TouchCount),
            "LRU" => Some(LruAlgorithm::Lru),
            "CLOCK" => Some(LruAlgorithm::Clock),
            _ => None,
        }
    }
}

/// One pool's size: buffers and working sets (0 buffers: not configured).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolSize {
    pub buffers: usize,
    pub working_sets: usize,
}

/// The pools of a cache and how they age.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheLayout {
    /// Indexed by [`BufferPool::index`].
    pub pools: [PoolSize; 3],
    pub algorithm: LruAlgorithm,
    /// The `_db_aging_*` parameters; `percent_hot` is replaced by the pool's own.
    pub aging: AgingParameters,
    /// `_db_percent_hot_default`, `_keep`, `_recycle`.
    pub percent_hot: [u32; 3],
    /// `_small_table_threshold`: a table of at most this many blocks is scanned into the
    /// midpoint like any read; a larger one's scanned blocks enter at the cold end.
    pub small_table_blocks: usize,
    /// `_db_cache_advice_sample_factor`: the cache advice simulates one block in this many
    /// (`buffer/advice.rs`).
    pub advice_sample_factor: usize,
}

impl CacheLayout {
    /// One DEFAULT pool of one working set: tests and tools.
    pub fn single(buffers: usize) -> CacheLayout {
        CacheLayout {
            pools: [
                PoolSize {
                    buffers,
                    working_sets: 1,
                },
                PoolSize::default(),
                PoolSize::default(),
            ],
            algorithm: LruAlgorithm::default(),
            aging: AgingParameters::DEFAULT_POOL,
            percent_hot: [50, 0, 0],
            small_table_blocks: Self::derived_small_table_blocks(buffers),
            advice_sample_factor: crate::buffer::advice::SAMPLE_FACTOR_DEFAULT,
        }
    }

    /// Oracle's derived `_small_table_threshold`: 2% of the buffers, at least one.
    pub fn derived_small_table_blocks(buffers: usize) -> usize {
        (buffers / 50).max(1)
    }

    pub fn with_algorithm(self, algorithm: LruAlgorithm) -> CacheLayout {
        CacheLayout { algorithm, ..self }
    }

    pub fn pool(&self, pool: BufferPool) -> PoolSize {
        self.pools[pool.index()]
    }

    pub fn total_buffers(&self) -> usize {
        self.pools.iter().map(|pool| pool.buffers).sum()
    }

    pub fn total_working_sets(&self) -> usize {
        self.pools.iter().map(|pool| pool.working_sets).sum()
    }

    /// The aging parameters of a pool's working sets.
    pub fn aging_of(&self, pool: BufferPool) -> AgingParameters {
        self.aging.with_percent_hot(self.percent_hot[pool.index()])
    }

    /// The Oracle8 way: `db_block_buffers` and `db_block_lru_latches` for all pools, KEEP and
    /// RECYCLE given theirs (`buffer_pool_keep`, `buffer_pool_recycle`), DEFAULT the rest.
    pub fn oracle8(
        buffers: usize,
        lru_latches: usize,
        keep: PoolSize,
        recycle: PoolSize,
    ) -> Result<CacheLayout> {
        let taken_buffers = keep.buffers + recycle.buffers;
        let taken_latches = keep.working_sets + recycle.working_sets;
        if taken_buffers >= buffers || taken_latches >= lru_latches {
            return Err(pools_error(format!(
                "KEEP and RECYCLE take {taken_buffers} of db_block_buffers = {buffers} and \
                 {taken_latches} of db_block_lru_latches = {lru_latches}: DEFAULT needs at \
                 least one of each"
            )));
        }
        let mut layout = CacheLayout::single(buffers - taken_buffers);
        layout.small_table_blocks = Self::derived_small_table_blocks(buffers);
        layout.pools[BufferPool::Default.index()].working_sets = lru_latches - taken_latches;
        layout.pools[BufferPool::Keep.index()] = keep;
        layout.pools[BufferPool::Recycle.index()] = recycle;
        Ok(layout)
    }

    /// The modern way: each pool's size in buffers (`db_cache_size`, `db_keep_cache_size`,
    /// `db_recycle_cache_size` over the block size); each pool gets one working set per
    /// `WORKING_SET_BUFFERS_MIN` buffers, at most `cpus`.
    pub fn modern(default: usize, keep: usize, recycle: usize, cpus: usize) -> CacheLayout {
        let sized = |buffers: usize| PoolSize {
            buffers,
            working_sets: if buffers == 0 {
                0
            } else {
                (buffers / WORKING_SET_BUFFERS_MIN).clamp(1, cpus.max(1))
            },
        };
        let mut layout = CacheLayout::single(default);
        layout.pools = [sized(default), sized(keep), sized(recycle)];
        layout.small_table_blocks = Self::derived_small_table_blocks(default + keep + recycle);
        layout
    }

    /// Checks the rules of seed 001, and that aging can tell hot buffers from new and cooled
    /// ones: ORA-00378 naming the one broken.
    pub fn check(&self, cpus: usize) -> Result<()> {
        let AgingParameters {
            hot_criteria,
            cool_count,
            ..
        } = self.aging;
        if hot_criteria < 2 || cool_count >= hot_criteria {
            // A block enters with one touch and a cooled one with the cool count: at the hot
            // criteria, every buffer the replacement scan meets would be promoted again.
            return Err(pools_error(format!(
                "_db_aging_hot_criteria ({hot_criteria}) must be at least 2 and above \
                 _db_aging_cool_count ({cool_count})"
            )));
        }
        for pool in BufferPool::ALL {
            let PoolSize {
                buffers,
                working_sets,
            } = self.pool(pool);
            let name = pool.name();
            if pool == BufferPool::Default && (buffers == 0 || working_sets == 0) {
                return Err(pools_error(
                    "the DEFAULT pool needs buffers and at least one LRU latch".to_string(),
                ));
            }
            if buffers > 0 && working_sets == 0 {
                return Err(pools_error(format!(
                    "the {name} pool has {buffers} buffers and no LRU latch"
                )));
            }
            if buffers == 0 && working_sets > 0 {
                return Err(pools_error(format!(
                    "the {name} pool has {working_sets} LRU latches and no buffers"
                )));
            }
            if working_sets > 0 && buffers < working_sets.saturating_mul(WORKING_SET_BUFFERS_MIN) {
                return Err(pools_error(format!(
                    "the {name} pool has {buffers} buffers for {working_sets} LRU latches: a \
                     working set needs at least {WORKING_SET_BUFFERS_MIN} buffers"
                )));
            }
        }
        let latches_max = LRU_LATCHES_PER_CPU_MAX * cpus.max(1);
        if self.total_working_sets() > latches_max {
            return Err(pools_error(format!(
                "{} LRU latches in all pools: at most {latches_max} ({LRU_LATCHES_PER_CPU_MAX} \
                 per CPU, {cpus} CPUs)",
                self.total_working_sets()
            )));
        }
        Ok(())
    }
}

/// Reads `N` or `(buffers:N, lru_latches:M)` (any case, any spaces, either order; a missing
/// `lru_latches` is 1): the value of `buffer_pool_keep` or `buffer_pool_recycle`. An empty
/// text is no pool.
pub fn parse_pool_size(parameter: &str, text: &str) -> Result<PoolSize> {
    let invalid = || {
        Error::new(
            96,
            format!(
                "invalid value {text} for parameter {parameter}, must be N or (buffers:N, lru_latches:M)"
            ),
        )
    };
    // Bounded as db_block_buffers is, so that sums of pool sizes cannot overflow.
    let number = |value: &str| {
        value
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&number| number <= POOL_BUFFERS_MAX)
            .ok_or_else(invalid)
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(PoolSize::default());
    }
    let Some(inner) = trimmed
        .strip_prefix('(')
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        let buffers = number(trimmed)?;
        return Ok(PoolSize {
            buffers,
            working_sets: usize::from(buffers > 0),
        });
    };
    let (mut buffers, mut latches) = (None, None);
    for item in inner.split(',') {
        let (key, value) = item.split_once(':').ok_or_else(invalid)?;
        let slot = match key.trim().to_ascii_lowercase().as_str() {
            "buffers" => &mut buffers,
            "lru_latches" => &mut latches,
            _ => return Err(invalid()),
        };
        if slot.replace(number(value)?).is_some() {
            return Err(invalid());
        }
    }
    let buffers = buffers.ok_or_else(invalid)?;
    Ok(PoolSize {
        buffers,
        working_sets: latches.unwrap_or(usize::from(buffers > 0)),
    })
}

fn pools_error(detail: String) -> Error {
    Error::new(
        378,
        format!("buffer pools cannot be created as specified: {detail}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_names_and_codes_round_trip() {
        for pool in BufferPool::ALL {
            assert_eq!(
                BufferPool::from_name(&pool.name().to_lowercase()),
                Some(pool)
            );
            assert_eq!(BufferPool::from_code(pool.code()), Some(pool));
        }
        assert_eq!(BufferPool::from_name("HOT"), None);
        assert_eq!(BufferPool::from_code(3), None);
    }

    #[test]
    fn pool_sizes_parse_in_both_forms() {
        let parse = |text| parse_pool_size("buffer_pool_keep", text);
        assert_eq!(
            parse("(buffers:200, lru_latches:1)").unwrap(),
            PoolSize {
                buffers: 200,
                working_sets: 1
            }
        );
        assert_eq!(
            parse(" ( LRU_LATCHES : 2 , Buffers:150 ) ").unwrap(),
            PoolSize {
                buffers: 150,
                working_sets: 2
            }
        );
        assert_eq!(parse("100").unwrap().working_sets, 1);
        assert_eq!(parse("").unwrap(), PoolSize::default());
        for bad in [
            "(buffers:x)",
            "(lru_latches:1)",
            "(buffers:1, buffers:2)",
            "(size:5)",
            "-3",
        ] {
            let error = parse(bad).unwrap_err();
            assert_eq!(error.code(), 96, "{bad}");
            assert!(error.to_string().contains("buffer_pool_keep"), "{error}");
        }
    }

    /// Seed 001's example and Table 5's configurations.
    #[test]
    fn the_seeds_configurations_are_valid_layouts() {
        let pool = |buffers, working_sets| PoolSize {
            buffers,
            working_sets,
        };
        let example = CacheLayout::oracle8(1000, 3, pool(200, 1), pool(100, 1)).unwrap();
        assert_eq!(example.pool(BufferPool::Default), pool(700, 1));
        example.check(1).unwrap();
        for (keep, recycle, default) in [
            (pool(0, 0), pool(0, 0), pool(1000, 3)),
            (pool(0, 0), pool(50, 1), pool(950, 2)),
            (pool(500, 1), pool(0, 0), pool(500, 2)),
            (pool(150, 1), pool(50, 1), pool(800, 1)),
        ] {
            let layout = CacheLayout::oracle8(1000, 3, keep, recycle).unwrap();
            assert_eq!(layout.pool(BufferPool::Default), default);
            layout.check(1).unwrap();
        }
    }

    #[test]
    fn layouts_that_break_the_rules_get_ora_00378() {
        let pool = |buffers, working_sets| PoolSize {
            buffers,
            working_sets,
        };
        let broken = [
            CacheLayout::oracle8(1000, 3, pool(40, 1), pool(0, 0)),
            CacheLayout::oracle8(1000, 3, pool(120, 3), pool(0, 0)),
            CacheLayout::oracle8(1000, 2, pool(100, 1), pool(100, 1)),
            CacheLayout::oracle8(100, 3, pool(0, 0), pool(0, 0)),
            CacheLayout::oracle8(10_000, 7, pool(0, 0), pool(0, 0)),
        ];
        for layout in broken {
            let error = layout.and_then(|layout| layout.check(1)).unwrap_err();
            assert_eq!(error.code(), 378, "{error}");
        }
        assert!(
            CacheLayout::oracle8(10_000, 7, pool(0, 0), pool(0, 0))
                .unwrap()
                .check(2)
                .is_ok(),
            "12 latches allowed on 2 CPUs"
        );
    }

    #[test]
    fn the_modern_form_gives_each_pool_sets_of_at_least_fifty_buffers() {
        let layout = CacheLayout::modern(8192, 120, 0, 2);
        assert_eq!(layout.pool(BufferPool::Default).working_sets, 2);
        assert_eq!(layout.pool(BufferPool::Keep).working_sets, 2);
        assert_eq!(layout.pool(BufferPool::Recycle), PoolSize::default());
        layout.check(2).unwrap();
        assert_eq!(
            CacheLayout::modern(60, 0, 0, 8)
                .pool(BufferPool::Default)
                .working_sets,
            1
        );
    }
}
