//! The registry of parameters: every name Pythia knows, its kind, default, modifiability and
//! description, in `v$parameter` order (`DEFINITIONS`), and the name constants the code reads
//! them by (`names`).

use crate::parameters::{Parameters, Value};

/// The Oracle names of the parameters in the registry.
pub mod names {
    pub const DB_NAME: &str = "db_name";
    pub const DB_BLOCK_SIZE: &str = "db_block_size";
    pub const DB_CACHE_SIZE: &str = "db_cache_size";
    pub const DB_KEEP_CACHE_SIZE: &str = "db_keep_cache_size";
    pub const DB_RECYCLE_CACHE_SIZE: &str = "db_recycle_cache_size";
    pub const DB_CACHE_ADVICE: &str = "db_cache_advice";
    pub const DB_CACHE_ADVICE_SAMPLE_FACTOR: &str = "_db_cache_advice_sample_factor";
    pub const BUFFER_POOL_KEEP: &str = "buffer_pool_keep";
    pub const BUFFER_POOL_RECYCLE: &str = "buffer_pool_recycle";
    pub const DB_BLOCK_BUFFERS: &str = "db_block_buffers";
    pub const DB_BLOCK_LRU_LATCHES: &str = "db_block_lru_latches";
    pub const DB_LRU_ALGORITHM: &str = "_db_lru_algorithm";
    pub const DB_AGING_TOUCH_TIME: &str = "_db_aging_touch_time";
    pub const DB_AGING_HOT_CRITERIA: &str = "_db_aging_hot_criteria";
    pub const DB_AGING_STAY_COUNT: &str = "_db_aging_stay_count";
    pub const DB_AGING_COOL_COUNT: &str = "_db_aging_cool_count";
    pub const DB_PERCENT_HOT_DEFAULT: &str = "_db_percent_hot_default";
    pub const DB_PERCENT_HOT_KEEP: &str = "_db_percent_hot_keep";
    pub const DB_PERCENT_HOT_RECYCLE: &str = "_db_percent_hot_recycle";
    pub const SHARED_POOL_SIZE: &str = "shared_pool_size";
    pub const LOG_BUFFER: &str = "log_buffer";
    pub const LOG_FILE_SIZE: &str = "log_file_size";
    pub const LOG_GROUPS: &str = "log_groups";
    pub const LOG_ARCHIVE_DEST: &str = "log_archive_dest";
    pub const FILESYSTEMIO_OPTIONS: &str = "filesystemio_options";
    pub const UNDO_TABLESPACE_SIZE: &str = "undo_tablespace_size";
    pub const PROCESSES: &str = "processes";
    pub const SESSIONS: &str = "sessions";
    pub const OPEN_CURSORS: &str = "open_cursors";
    pub const PGA_AGGREGATE_LIMIT: &str = "pga_aggregate_limit";
    pub const SESSION_CACHED_CURSORS: &str = "session_cached_cursors";
    pub const CURSOR_SHARING: &str = "cursor_sharing";
    pub const COMMIT_LOGGING: &str = "commit_logging";
    pub const COMMIT_WAIT: &str = "commit_wait";
    pub const STATEMENT_TIMEOUT: &str = "statement_timeout";
    pub const DB_FILE_MULTIBLOCK_READ_COUNT: &str = "db_file_multiblock_read_count";
    pub const DB_WRITER_PROCESSES: &str = "db_writer_processes";
    pub const OPTIMIZER_MODE: &str = "optimizer_mode";
    pub const OPTIMIZER_INDEX_COST_ADJ: &str = "optimizer_index_cost_adj";
    pub const DB_FILE_OPTIMIZER_READ_COUNT: &str = "_db_file_optimizer_read_count";
    pub const NLS_DATE_FORMAT: &str = "nls_date_format";
    pub const STATISTICS_LEVEL: &str = "statistics_level";
    pub const TIMED_STATISTICS: &str = "timed_statistics";
    pub const SQL_TRACE: &str = "sql_trace";
    pub const DIAGNOSTIC_DEST: &str = "diagnostic_dest";
    pub const KGL_BUCKET_COUNT: &str = "_kgl_bucket_count";
    pub const KGL_HOT_OBJECT_COPIES: &str = "_kgl_hot_object_copies";
    pub const KGHLU_TRANSIENT_PERCENT: &str = "_kghlu_transient_percent";
    pub const DB_BLOCK_HASH_LATCHES: &str = "_db_block_hash_latches";
    pub const USE_ADAPTIVE_LOG_FILE_SYNC: &str = "_use_adaptive_log_file_sync";
    pub const SMALL_TABLE_THRESHOLD: &str = "_small_table_threshold";
    pub const SPIN_COUNT: &str = "_spin_count";
}

/// Longest value text accepted, in bytes (`v$parameter.value` is a VARCHAR2(4000)).
pub const VALUE_BYTES_MAX: usize = 4000;

/// Largest parameter file read, in bytes.
pub const INIT_FILE_BYTES_MAX: u64 = 1 << 20;

/// Library cache hash bucket counts that `_kgl_bucket_count` indexes (Oracle's table: the
/// largest prime below each power of two from 2^9).
pub const KGL_BUCKET_COUNTS: [u64; 13] = [
    509, 1021, 2039, 4093, 8191, 16381, 32749, 65521, 131071, 262139, 524287, 1048573, 2097143,
];

pub(super) const KILOBYTE: u64 = 1 << 10;
pub(super) const MEGABYTE: u64 = 1 << 20;
pub(super) const GIGABYTE: u64 = 1 << 30;
pub(super) const TERABYTE: u64 = 1 << 40;

/// What values a parameter takes, and so its `v$parameter` TYPE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `TRUE` or `FALSE`, either case.
    Boolean,
    /// A decimal integer in `min..=max`.
    Integer {
        min: i64,
        max: i64,
        power_of_two: bool,
    },
    /// A size in bytes in `min_bytes..=max_bytes`, with an optional K, M, G, T, P, E suffix.
    Size { min_bytes: u64, max_bytes: u64 },
    /// Any text (without control characters), kept as written.
    String,
    /// One of the listed words (uppercase in the registry), matched case-insensitively.
    Enumeration(&'static [&'static str]),
}

impl Kind {
    /// An integer in `min..=max`.
    pub const fn integer(min: i64, max: i64) -> Kind {
        Kind::Integer {
            min,
            max,
            power_of_two: false,
        }
    }

    /// A power of two in `min..=max`.
    pub const fn power_of_two(min: i64, max: i64) -> Kind {
        Kind::Integer {
            min,
            max,
            power_of_two: true,
        }
    }

    /// A size in bytes in `min_bytes..=max_bytes`.
    pub const fn size(min_bytes: u64, max_bytes: u64) -> Kind {
        Kind::Size {
            min_bytes,
            max_bytes,
        }
    }

    /// `v$parameter.type`: 1 Boolean, 2 String, 3 Integer, 6 Big integer.
    pub const fn type_code(self) -> u8 {
        match self {
            Kind::Boolean => 1,
            Kind::String | Kind::Enumeration(_) => 2,
            Kind::Integer { .. } => 3,
            Kind::Size { .. } => 6,
        }
    }
}

/// `ISSYS_MODIFIABLE`: whether and how `ALTER SYSTEM` may change a parameter in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemModifiable {
    /// Changes the instance's value and every session's that did not set its own.
    Immediate,
    /// Changes the instance's value, which sessions that log on later take.
    Deferred,
    /// Static: only the parameter file (`SCOPE=SPFILE`), for the next startup.
    False,
}

impl SystemModifiable {
    pub const fn as_str(self) -> &'static str {
        match self {
            SystemModifiable::Immediate => "IMMEDIATE",
            SystemModifiable::Deferred => "DEFERRED",
            SystemModifiable::False => "FALSE",
        }
    }
}

/// A parameter's default.
#[derive(Clone, Copy, Debug)]
pub enum DefaultValue {
    /// Text, validated like a value given by the user.
    Text(&'static str),
    /// Not set: the empty string (NULL in Oracle), for strings and enumerations.
    Unset,
    /// Computed from other parameters whenever read, until the parameter is set. The function
    /// must read only parameters whose default is not derived.
    Derived(fn(&Parameters) -> Value),
}

/// One registry entry.
#[derive(Clone, Copy, Debug)]
pub struct Definition {
    /// The Oracle name, lowercase.
    pub name: &'static str,
    pub kind: Kind,
    pub default: DefaultValue,
    pub issys_modifiable: SystemModifiable,
    pub isses_modifiable: bool,
    /// `v$parameter.description`.
    pub description: &'static str,
}

impl Definition {
    /// Oracle's undocumented parameters: `v$parameter` shows them only once set.
    pub fn is_hidden(&self) -> bool {
        self.name.starts_with('_')
    }
}

/// Every parameter Pythia knows, in `v$parameter.num` order.
pub static DEFINITIONS: &[Definition] = &[
    Definition {
        name: names::DB_NAME,
        kind: Kind::String,
        default: DefaultValue::Text("PYTHIA"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "database name specified in CREATE DATABASE",
    },
    Definition {
        name: names::DB_BLOCK_SIZE,
        kind: Kind::power_of_two(2048, 32768),
        default: DefaultValue::Text("8192"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Size of database block in bytes",
    },
    Definition {
        name: names::DB_CACHE_SIZE,
        kind: Kind::size(4 * MEGABYTE, TERABYTE),
        default: DefaultValue::Text("64M"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "Size of DEFAULT buffer pool for standard block size buffers",
    },
    Definition {
        name: names::DB_KEEP_CACHE_SIZE,
        kind: Kind::size(0, TERABYTE),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "Size of KEEP buffer pool for standard block size buffers",
    },
    Definition {
        name: names::DB_RECYCLE_CACHE_SIZE,
        kind: Kind::size(0, TERABYTE),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "Size of RECYCLE buffer pool for standard block size buffers",
    },
    Definition {
        name: names::DB_CACHE_ADVICE,
        kind: Kind::Enumeration(&["ON", "READY", "OFF"]),
        default: DefaultValue::Text("ON"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "Buffer cache sizing advisory",
    },
    // Oracle 8's way of sizing the pools (docs/buffer-pools.md): db_block_buffers and
    // db_block_lru_latches for all of them, KEEP and RECYCLE given `N` or
    // `(buffers:N, lru_latches:M)`, DEFAULT the rest. Not together with db_cache_size,
    // db_keep_cache_size or db_recycle_cache_size (ORA-00381).
    Definition {
        name: names::DB_BLOCK_BUFFERS,
        kind: Kind::integer(0, i32::MAX as i64),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Number of database blocks cached in memory",
    },
    // 0: derived, one per CPU at most, each working set at least 50 buffers.
    Definition {
        name: names::DB_BLOCK_LRU_LATCHES,
        kind: Kind::integer(0, 6 * 1024),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "number of lru latches",
    },
    Definition {
        name: names::BUFFER_POOL_KEEP,
        kind: Kind::String,
        default: DefaultValue::Unset,
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Number of database blocks/latches in keep buffer pool",
    },
    Definition {
        name: names::BUFFER_POOL_RECYCLE,
        kind: Kind::String,
        default: DefaultValue::Unset,
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Number of database blocks/latches in recycle buffer pool",
    },
    Definition {
        name: names::SHARED_POOL_SIZE,
        kind: Kind::size(4 * MEGABYTE, TERABYTE),
        default: DefaultValue::Text("64M"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "size in bytes of shared pool",
    },
    Definition {
        name: names::LOG_BUFFER,
        kind: Kind::size(256 * KILOBYTE, GIGABYTE),
        default: DefaultValue::Text("8M"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "redo circular buffer size",
    },
    Definition {
        name: names::LOG_FILE_SIZE,
        kind: Kind::size(MEGABYTE, TERABYTE),
        default: DefaultValue::Text("64M"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "size in bytes of each online redo log file (Pythia)",
    },
    Definition {
        name: names::LOG_GROUPS,
        kind: Kind::integer(2, 16),
        default: DefaultValue::Text("3"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "number of online redo log groups (Pythia)",
    },
    // DIRECTIO and SETALL: online redo log writes bypass the operating system's cache
    // (`O_DIRECT`, where the file system allows it). Pythia's file I/O is synchronous, so
    // ASYNCH changes nothing and SETALL is DIRECTIO. Datafiles are always written through
    // the cache. docs/architecture/redo.md, "Direct writes".
    Definition {
        name: names::FILESYSTEMIO_OPTIONS,
        kind: Kind::Enumeration(&["NONE", "DIRECTIO", "ASYNCH", "SETALL"]),
        default: DefaultValue::Text("DIRECTIO"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "IO operations on filesystem files",
    },
    // Empty: no archiving (NOARCHIVELOG). A directory: ARC0 archives each full log sequence
    // there (redo/archive.rs); changed by ALTER SYSTEM, it applies to the next log archived.
    Definition {
        name: names::LOG_ARCHIVE_DEST,
        kind: Kind::String,
        default: DefaultValue::Unset,
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "archival destination text string",
    },
    Definition {
        name: names::UNDO_TABLESPACE_SIZE,
        kind: Kind::size(MEGABYTE, TERABYTE),
        default: DefaultValue::Text("256M"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "size in bytes of the undo tablespace (Pythia)",
    },
    Definition {
        name: names::PROCESSES,
        kind: Kind::integer(1, 10_000),
        default: DefaultValue::Text("100"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "user processes",
    },
    Definition {
        name: names::SESSIONS,
        kind: Kind::integer(1, 65_536),
        default: DefaultValue::Derived(derive_sessions),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "user and system sessions",
    },
    Definition {
        name: names::OPEN_CURSORS,
        kind: Kind::integer(0, 65_535),
        default: DefaultValue::Text("300"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "max # cursors per session",
    },
    Definition {
        name: names::SESSION_CACHED_CURSORS,
        kind: Kind::integer(0, 65_535),
        default: DefaultValue::Text("50"),
        issys_modifiable: SystemModifiable::Deferred,
        isses_modifiable: true,
        description: "Number of cursors to cache in a session.",
    },
    Definition {
        name: names::CURSOR_SHARING,
        kind: Kind::Enumeration(&["EXACT", "FORCE"]),
        default: DefaultValue::Text("EXACT"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "cursor sharing mode",
    },
    Definition {
        name: names::COMMIT_LOGGING,
        kind: Kind::Enumeration(&["IMMEDIATE", "BATCH"]),
        default: DefaultValue::Unset,
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "transaction commit log write behaviour",
    },
    Definition {
        name: names::COMMIT_WAIT,
        kind: Kind::Enumeration(&["WAIT", "NOWAIT", "FORCE_WAIT"]),
        default: DefaultValue::Unset,
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "transaction commit log wait behaviour",
    },
    Definition {
        // Here the bound of one statement's work areas (its materialized rows, sort keys,
        // groups, set operations): beyond it the statement fails with ORA-04036. Oracle's
        // bounds the instance's PGA and is not session-modifiable; this one is, so that a
        // session can be held tighter.
        name: names::PGA_AGGREGATE_LIMIT,
        kind: Kind::size(MEGABYTE, TERABYTE),
        default: DefaultValue::Text("1G"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "limit of aggregate PGA memory consumed by the instance",
    },
    Definition {
        // PostgreSQL's name (Oracle has no such parameter: its Resource Manager cancels a
        // call past MAX_EST_EXEC_TIME with ORA-00040, the error used here): the longest a
        // query or DML statement may run, in milliseconds, 0 for no limit.
        name: names::STATEMENT_TIMEOUT,
        kind: Kind::integer(0, 2_147_483_647),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "longest a statement may run, in milliseconds, 0 for no limit (Pythia)",
    },
    Definition {
        name: names::DB_FILE_MULTIBLOCK_READ_COUNT,
        kind: Kind::integer(1, 1024),
        default: DefaultValue::Text("128"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "db block to be read each IO",
    },
    Definition {
        name: names::DB_WRITER_PROCESSES,
        kind: Kind::integer(1, 100),
        default: DefaultValue::Text("1"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "number of background database writer processes to start",
    },
    Definition {
        name: names::OPTIMIZER_MODE,
        kind: Kind::Enumeration(&["ALL_ROWS", "FIRST_ROWS", "CHOOSE", "RULE"]),
        default: DefaultValue::Text("ALL_ROWS"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "optimizer mode",
    },
    Definition {
        name: names::OPTIMIZER_INDEX_COST_ADJ,
        kind: Kind::integer(1, 10000),
        default: DefaultValue::Text("100"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "optimizer index cost adjustment",
    },
    // Oracle costs full scans with this many blocks per read, not with
    // db_file_multiblock_read_count (which sizes the reads themselves).
    Definition {
        name: names::DB_FILE_OPTIMIZER_READ_COUNT,
        kind: Kind::integer(1, 1024),
        default: DefaultValue::Text("8"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "multiblock read count for regular clients",
    },
    // Stored as text: the date format's own rules are checked where it is used.
    Definition {
        name: names::NLS_DATE_FORMAT,
        kind: Kind::String,
        default: DefaultValue::Text("DD-MON-RR"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: true,
        description: "NLS Oracle date format",
    },
    Definition {
        name: names::STATISTICS_LEVEL,
        kind: Kind::Enumeration(&["TYPICAL", "ALL", "BASIC"]),
        default: DefaultValue::Text("TYPICAL"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "statistics level",
    },
    Definition {
        name: names::TIMED_STATISTICS,
        kind: Kind::Boolean,
        default: DefaultValue::Text("TRUE"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "maintain internal timing statistics",
    },
    Definition {
        name: names::SQL_TRACE,
        kind: Kind::Boolean,
        default: DefaultValue::Text("FALSE"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: true,
        description: "enable SQL trace",
    },
    // Empty: the database directory.
    Definition {
        name: names::DIAGNOSTIC_DEST,
        kind: Kind::String,
        default: DefaultValue::Unset,
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "diagnostic base directory",
    },
    // An index into KGL_BUCKET_COUNTS, not a count: see Parameters::kgl_bucket_count.
    Definition {
        name: names::KGL_BUCKET_COUNT,
        kind: Kind::integer(0, KGL_BUCKET_COUNTS.len() as i64 - 1),
        default: DefaultValue::Text("9"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "index to the bucket count array",
    },
    Definition {
        name: names::KGL_HOT_OBJECT_COPIES,
        kind: Kind::integer(0, 64),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Number of copies for the hot object",
    },
    // Pythia's own: see library_cache::pool.
    Definition {
        name: names::KGHLU_TRANSIENT_PERCENT,
        kind: Kind::integer(1, 90),
        default: DefaultValue::Text("10"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "percent of the shared pool the LRU's transient part may hold",
    },
    // Buffer aging (buffer/touch_count.rs): Oracle8i's hidden parameters, seed 001's Table 7,
    // and Pythia's choice of algorithm (TOUCH_COUNT, Oracle 8.0's LRU, or CLOCK).
    Definition {
        name: names::DB_LRU_ALGORITHM,
        kind: Kind::Enumeration(&["TOUCH_COUNT", "LRU", "CLOCK"]),
        default: DefaultValue::Text("TOUCH_COUNT"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "how working sets age buffers: touch count, classic LRU or CLOCK",
    },
    Definition {
        name: names::DB_AGING_TOUCH_TIME,
        kind: Kind::integer(0, 3600),
        default: DefaultValue::Text("3"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Seconds between two touches of a buffer that both count",
    },
    Definition {
        name: names::DB_AGING_HOT_CRITERIA,
        kind: Kind::integer(1, 1000),
        default: DefaultValue::Text("2"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Touch count which sends a buffer to head of replacement list",
    },
    Definition {
        name: names::DB_AGING_STAY_COUNT,
        kind: Kind::integer(0, 1000),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Touch count set when buffer moved to head of replacement list",
    },
    Definition {
        name: names::DB_AGING_COOL_COUNT,
        kind: Kind::integer(0, 1000),
        default: DefaultValue::Text("1"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Touch count set when buffer cooled",
    },
    Definition {
        name: names::DB_PERCENT_HOT_DEFAULT,
        kind: Kind::integer(0, 100),
        default: DefaultValue::Text("50"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Percent of default buffer pool considered hot",
    },
    Definition {
        name: names::DB_PERCENT_HOT_KEEP,
        kind: Kind::integer(0, 100),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Percent of keep buffer pool considered hot",
    },
    Definition {
        name: names::DB_PERCENT_HOT_RECYCLE,
        kind: Kind::integer(0, 100),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Percent of recycle buffer pool considered hot",
    },
    // 0: the buffer cache derives the count from its size.
    Definition {
        name: names::DB_BLOCK_HASH_LATCHES,
        kind: Kind::integer(0, 1 << 20),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "Number of database block hash latches",
    },
    Definition {
        name: names::USE_ADAPTIVE_LOG_FILE_SYNC,
        kind: Kind::Boolean,
        default: DefaultValue::Text("TRUE"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "Adaptively switch between post/wait and polling",
    },
    // In blocks. 0: derived from the buffer cache's size when the instance starts.
    Definition {
        name: names::SMALL_TABLE_THRESHOLD,
        kind: Kind::integer(0, i32::MAX as i64),
        default: DefaultValue::Text("0"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "lower threshold level of table size for direct reads",
    },
    Definition {
        name: names::SPIN_COUNT,
        kind: Kind::integer(0, 1_000_000),
        default: DefaultValue::Text("2000"),
        issys_modifiable: SystemModifiable::Immediate,
        isses_modifiable: false,
        description: "Amount to spin waiting for a latch",
    },
    // The advice simulates the blocks of 1/factor of the address hash space in lists of
    // 1/factor of the buffers (buffer/advice.rs).
    Definition {
        name: names::DB_CACHE_ADVICE_SAMPLE_FACTOR,
        kind: Kind::integer(1, 1024),
        default: DefaultValue::Text("4"),
        issys_modifiable: SystemModifiable::False,
        isses_modifiable: false,
        description: "cache advisory sampling factor",
    },
];

/// Oracle's default for SESSIONS: 1.5 * PROCESSES + 22.
fn derive_sessions(parameters: &Parameters) -> Value {
    let processes = parameters.get_integer(names::PROCESSES);
    Value::Integer(
        (processes.saturating_mul(3) / 2)
            .saturating_add(22)
            .min(65_536),
    )
}

/// The registry entry for `name` (case-insensitive; a hidden name may be double-quoted).
pub fn definition(name: &str) -> Option<&'static Definition> {
    index_of(name).map(|index| &DEFINITIONS[index])
}

pub(super) fn index_of(name: &str) -> Option<usize> {
    let name = bare_name(name);
    DEFINITIONS
        .iter()
        .position(|definition| definition.name.eq_ignore_ascii_case(name))
}

/// The name without surrounding blanks and double quotes (`"_spin_count"`, as SQL and
/// Oracle's parameter files write hidden names).
pub(super) fn bare_name(name: &str) -> &str {
    let name = name.trim();
    match name
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        Some(inner) => inner.trim(),
        None => name,
    }
}
