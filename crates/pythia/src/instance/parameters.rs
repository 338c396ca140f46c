//! Initialization parameters: Oracle's `init.ora`, `ALTER SYSTEM`, `ALTER SESSION` and
//! `v$parameter`.
//!
//! ```text
//!   DEFINITIONS (static registry)         Parameters (the instance's, and one per session)
//!   name, kind, default, modifiability -> per parameter: value, source, ismodified,
//!                                         and the value the parameter file holds
//!
//!   init.ora ---------- load_file --> SetScope::InitFile     \
//!   -p name=value ----------------->  SetScope::CommandLine   |  set(name, text, scope)
//!   ALTER SYSTEM SET ... SCOPE=x --->  SetScope::AlterSystem  |  validates, then assigns
//!   ALTER SESSION SET ------------->  SetScope::AlterSession  /
//!
//!   readers: get_integer / get_bytes / get_bool / get_string    views: rows(), visible_rows()
//!   SCOPE=SPFILE|BOTH: write_file(path) rewrites init.ora with what the file must hold
//! ```
//!
//! # The registry
//!
//! [`DEFINITIONS`] is one static table, keyed by the Oracle name (lowercase; hidden parameters
//! keep their leading underscore). Each entry gives the [`Kind`] (which fixes the `v$parameter`
//! TYPE and how text is validated), the default, whether `ALTER SYSTEM` may change it
//! (`ISSYS_MODIFIABLE`: IMMEDIATE, DEFERRED or FALSE), whether `ALTER SESSION` may
//! (`ISSES_MODIFIABLE`), and the one-line `v$parameter.description`. Adding a parameter is
//! adding an entry (and a constant in [`names`]); the registry tests check every default
//! against its own kind.
//!
//! Kinds: booleans (`TRUE`/`FALSE`), integers with a range (and, for `db_block_size`, a power of
//! two), big integers in bytes written as `67108864`, `512K`, `64M`, `1G` (K, M, G, T, P, E are
//! powers of 1024, either case), strings (kept as written), and enumerations (case-insensitive,
//! stored in the uppercase of the registry). Defaults are text parsed by the same rules, except
//! `sessions`, derived from `processes` as Oracle does (`1.5 * processes + 22`) for as long as
//! it is not set, and `commit_logging`/`commit_wait`, unset (the empty string, which is NULL in
//! Oracle) until set.
//!
//! # Values, sources and copies
//!
//! [`Parameters`] holds one value per registry entry, where it came from ([`Source`]), and the
//! `ISMODIFIED` state: `MODIFIED` after `ALTER SESSION`, `SYSTEM_MOD` after `ALTER SYSTEM`. It is
//! an `Arc` over the settings, copied on the first write: the instance keeps one, a session
//! clones it at logon (a pointer copy) and `ALTER SESSION` changes only the session's copy.
//! After `ALTER SYSTEM` on an IMMEDIATE parameter, [`Parameters::inherit_system_change`] brings
//! a session's copy up to date unless the session set the parameter itself. Pythia does not ask
//! for the `DEFERRED` keyword on DEFERRED parameters: the new value is in the instance's copy,
//! which sessions that log on later clone.
//!
//! Who may change what, and where ([`SetScope`]):
//!
//! ```text
//!                              static (FALSE)        IMMEDIATE or DEFERRED
//!   InitFile (startup)         memory and file       memory and file
//!   CommandLine (startup)      memory                memory
//!   ALTER SYSTEM SCOPE=MEMORY  ORA-02095             memory
//!   ALTER SYSTEM SCOPE=SPFILE  file                  file
//!   ALTER SYSTEM SCOPE=BOTH    ORA-02095             memory and file
//!   ALTER SESSION              the session's copy if ISSES_MODIFIABLE, otherwise ORA-02096
//! ```
//!
//! Modifiability follows Oracle's. A new value reaches a component when it reads the
//! parameter again: components that size memory at startup read theirs once.
//!
//! # The parameter file (Pythia keeps `init.ora` as its spfile)
//!
//! Oracle keeps a binary server parameter file that `ALTER SYSTEM ... SCOPE=SPFILE` edits.
//! Pythia keeps the text file instead, so that the file a user reads and edits is the file the
//! instance writes: [`Parameters::write_file`] rewrites `init.ora` with every value the file
//! must hold (the values read from it, and those set with `SCOPE=SPFILE` or `BOTH`), and no
//! other. Values given on the command line or with `SCOPE=MEMORY` are not written. A rewrite
//! does not keep comments (as `CREATE PFILE FROM SPFILE`); it goes through a temporary file and
//! a rename, so a crash leaves the old file or the new one. Grammar, one parameter per line:
//!
//! ```text
//!   # a comment                    blank lines and comments are skipped
//!   name = value                   names case-insensitive, "_hidden" may be double-quoted
//!   name = 'a # b'  or  "a # b"    quotes enclosing the whole value are removed
//!   name = value      # comment    '#' outside quotes starts a comment
//!   name = (buffers:200, lru_latches:1)
//!   name = v1, v2                  lists are kept as text, as written
//! ```
//!
//! A parameter named twice takes the last value. A `*.` before a name (Oracle's "every
//! instance" prefix, in files written by `CREATE PFILE`) is ignored. There is no `IFILE`.
//!
//! # Errors
//!
//! - Unknown name: ORA-01078 (file, command line) with a second line
//!   `LRM-00101: unknown parameter name 'x'`; ORA-02065 for `ALTER SYSTEM`, ORA-02248 for
//!   `ALTER SESSION`, with the same second line.
//! - Invalid value: ORA-00096 `invalid value X for parameter Y, must be from among A, B` or
//!   `..., must be between MIN and MAX`.
//! - Static parameter with `ALTER SYSTEM` in memory: ORA-02095; not session-modifiable with
//!   `ALTER SESSION`: ORA-02096.
//! - Parameter file: a line that is not `name = value` is ORA-01078 with
//!   `LRM-00116: syntax error ...`; a file that cannot be read is ORA-01078 with
//!   `LRM-00109: could not open parameter file`. Every error found in a file names its line.
//!
//! No input, to [`Parameters::set`] or in a file, makes this module panic.
//!
//! # Pythia's own parameters
//!
//! These names are not Oracle's; they size files that Oracle creates with explicit statements
//! (`CREATE DATABASE ... LOGFILE GROUP ... SIZE`, `UNDO TABLESPACE ... DATAFILE ... SIZE`):
//!
//! - `log_file_size`: size of each online redo log file (static, default 64M, at least 1M).
//! - `log_groups`: number of online redo log groups (static, 2 to 16, default 3).
//! - `undo_tablespace_size`: size of the undo tablespace's file (static, default 256M).
//!
//! Like `db_block_size`, they take effect when the database is created; the control file
//! records what the files were created with.
//!
//! # Hidden parameters
//!
//! Names starting with `_` are Oracle's undocumented parameters. `v$parameter` shows them only
//! once set ([`Parameters::visible_rows`]); [`Parameters::rows`] returns them all, flagged.
//! Where the default is 0 (`_db_block_hash_latches`, `_small_table_threshold`), the component
//! that reads the parameter derives the value itself.
//!
//! # Invariants
//!
//! 1. `Parameters` holds exactly one setting per [`DEFINITIONS`] entry, in registry order.
//! 2. Every value held, in memory or for the file, passed its definition's validation; in
//!    particular every string can be written to the parameter file and read back unchanged.
//! 3. A setting whose source is [`Source::Default`] holds its definition's default value
//!    (a derived default is computed whenever it is read).

use std::fmt;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};

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

const KILOBYTE: u64 = 1 << 10;
const MEGABYTE: u64 = 1 << 20;
const GIGABYTE: u64 = 1 << 30;
const TERABYTE: u64 = 1 << 40;

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

fn index_of(name: &str) -> Option<usize> {
    let name = bare_name(name);
    DEFINITIONS
        .iter()
        .position(|definition| definition.name.eq_ignore_ascii_case(name))
}

/// The name without surrounding blanks and double quotes (`"_spin_count"`, as SQL and
/// Oracle's parameter files write hidden names).
fn bare_name(name: &str) -> &str {
    let name = name.trim();
    match name
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        Some(inner) => inner.trim(),
        None => name,
    }
}

/// A parameter's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Boolean(bool),
    Integer(i64),
    Bytes(u64),
    /// Strings as written; enumerations in the registry's uppercase.
    Text(Arc<str>),
}

/// The text `v$parameter.value` shows: sizes in plain bytes, booleans `TRUE`/`FALSE`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Boolean(true) => f.write_str("TRUE"),
            Value::Boolean(false) => f.write_str("FALSE"),
            Value::Integer(number) => write!(f, "{number}"),
            Value::Bytes(bytes) => write!(f, "{bytes}"),
            Value::Text(text) => f.write_str(text),
        }
    }
}

impl Value {
    /// The text `v$parameter.display_value` shows: sizes with the largest exact suffix (`64M`).
    pub fn display_value(&self) -> String {
        match self {
            Value::Bytes(bytes) => format_size(*bytes),
            other => other.to_string(),
        }
    }
}

/// Where a parameter's current value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Default,
    InitFile,
    CommandLine,
    AlterSystem,
    AlterSession,
}

/// Who is setting a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetScope {
    /// A line of the parameter file, at startup.
    InitFile,
    /// A `-p name=value` override, at startup; not written to the parameter file.
    CommandLine,
    /// `ALTER SYSTEM SET name = value SCOPE = ...`.
    AlterSystem { scope: AlterSystemScope },
    /// `ALTER SESSION SET name = value`, on the session's copy.
    AlterSession,
}

/// `ALTER SYSTEM ... SCOPE=`: the running instance, the parameter file, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlterSystemScope {
    Memory,
    Spfile,
    Both,
}

/// `v$parameter.ismodified`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modification {
    No,
    Session,
    System,
}

impl Modification {
    const fn as_str(self) -> &'static str {
        match self {
            Modification::No => "FALSE",
            Modification::Session => "MODIFIED",
            Modification::System => "SYSTEM_MOD",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Setting {
    /// For a derived default, what `defaults()` computed; the live value is derived on read.
    value: Value,
    source: Source,
    modification: Modification,
    /// What the parameter file holds; `None` when the file does not name the parameter.
    file_value: Option<Value>,
}

/// A row of `v$parameter`, with Oracle's columns as Oracle shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterRow {
    pub num: u32,
    pub name: &'static str,
    /// TYPE: 1 Boolean, 2 String, 3 Integer, 6 Big integer.
    pub type_code: u8,
    pub value: String,
    pub display_value: String,
    /// `TRUE` or `FALSE`.
    pub isdefault: &'static str,
    /// `TRUE` or `FALSE`.
    pub isses_modifiable: &'static str,
    /// `IMMEDIATE`, `DEFERRED` or `FALSE`.
    pub issys_modifiable: &'static str,
    /// `FALSE`, `MODIFIED` (ALTER SESSION) or `SYSTEM_MOD` (ALTER SYSTEM).
    pub ismodified: &'static str,
    pub description: &'static str,
    /// An underscore parameter: `v$parameter` shows it only once set.
    pub hidden: bool,
}

/// The current value of every parameter. Cloning copies a pointer; the first change to a
/// clone copies the settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameters {
    /// One per `DEFINITIONS` entry, in the same order.
    settings: Arc<Vec<Setting>>,
}

impl Default for Parameters {
    fn default() -> Self {
        Parameters::defaults()
    }
}

impl Parameters {
    /// Every parameter at its default.
    pub fn defaults() -> Parameters {
        let settings = DEFINITIONS
            .iter()
            .map(|definition| Setting {
                value: fixed_default(definition),
                source: Source::Default,
                modification: Modification::No,
                file_value: None,
            })
            .collect();
        let mut parameters = Parameters {
            settings: Arc::new(settings),
        };
        // Derived defaults read the fixed ones, which are all in place now.
        for (index, definition) in DEFINITIONS.iter().enumerate() {
            if let DefaultValue::Derived(derive) = definition.default {
                let value = derive(&parameters);
                Arc::make_mut(&mut parameters.settings)[index].value = value;
            }
        }
        parameters
    }

    /// Reads an `init.ora`-style file (see the module documentation for its grammar).
    pub fn load_file(path: &Path) -> Result<Parameters> {
        let cannot_open = |reason: String| {
            Error::new(
                1078,
                format!(
                    "failure in processing system parameters\n\
                     LRM-00109: could not open parameter file '{}' ({reason})",
                    path.display()
                ),
            )
        };
        let file = std::fs::File::open(path).map_err(|error| cannot_open(error.to_string()))?;
        let mut bytes = Vec::new();
        file.take(INIT_FILE_BYTES_MAX + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| cannot_open(error.to_string()))?;
        if bytes.len() as u64 > INIT_FILE_BYTES_MAX {
            return Err(cannot_open(format!(
                "larger than {INIT_FILE_BYTES_MAX} bytes"
            )));
        }
        let text = std::str::from_utf8(&bytes).map_err(|error| {
            let line = bytes[..error.valid_up_to()]
                .iter()
                .filter(|&&byte| byte == b'\n')
                .count()
                + 1;
            at_line(
                Error::new(
                    1078,
                    "failure in processing system parameters\n\
                     LRM-00123: invalid character found in the input file (not UTF-8)",
                ),
                line,
                Some(path),
            )
        })?;
        parse_text(text, Some(path))
    }

    /// Reads the text of an `init.ora`-style file.
    pub fn parse(text: &str) -> Result<Parameters> {
        parse_text(text, None)
    }

    /// Sets a parameter from text, as a parameter file line, a `-p` override, `ALTER SYSTEM`
    /// or `ALTER SESSION` would. The text is trimmed and one pair of quotes enclosing all of it
    /// is removed. Nothing changes when it fails.
    pub fn set(&mut self, name: &str, value_text: &str, scope: SetScope) -> Result<()> {
        let index = index_of(name).ok_or_else(|| unknown_parameter(name, scope))?;
        self.assign(index, unquote_whole(value_text.trim()), scope)
    }

    /// `ALTER SYSTEM RESET name SCOPE=...`: back to the default in memory, and/or out of the
    /// parameter file.
    pub fn reset(&mut self, name: &str, scope: AlterSystemScope) -> Result<()> {
        let set_scope = SetScope::AlterSystem { scope };
        let index = index_of(name).ok_or_else(|| unknown_parameter(name, set_scope))?;
        let definition = &DEFINITIONS[index];
        check_modifiable(definition, set_scope)?;
        let default = fixed_default(definition);
        let setting = &mut Arc::make_mut(&mut self.settings)[index];
        if scope != AlterSystemScope::Spfile {
            setting.value = default;
            setting.source = Source::Default;
            setting.modification = Modification::System;
        }
        if scope != AlterSystemScope::Memory {
            setting.file_value = None;
        }
        Ok(())
    }

    /// After `ALTER SYSTEM` changed `name` in `system` (the instance's parameters), brings
    /// this session's copy up to date: only for IMMEDIATE parameters, and not when the
    /// session set its own value with `ALTER SESSION`. Returns whether the value changed.
    pub fn inherit_system_change(&mut self, system: &Parameters, name: &str) -> bool {
        let Some(index) = index_of(name) else {
            return false;
        };
        if DEFINITIONS[index].issys_modifiable != SystemModifiable::Immediate {
            return false;
        }
        let ours = &self.settings[index];
        let theirs = &system.settings[index];
        if ours.modification == Modification::Session
            || (ours.value == theirs.value && ours.source == theirs.source)
        {
            return false;
        }
        let (value, source) = (theirs.value.clone(), theirs.source);
        let setting = &mut Arc::make_mut(&mut self.settings)[index];
        setting.value = value;
        setting.source = source;
        setting.modification = Modification::System;
        true
    }

    /// `inherit_system_change` for every parameter: a session catching up with the ALTER
    /// SYSTEM changes other sessions made since it last looked.
    pub fn inherit_system_changes(&mut self, system: &Parameters) {
        for definition in DEFINITIONS.iter() {
            self.inherit_system_change(system, definition.name);
        }
    }

    /// An Integer parameter's value (a Big integer's too, capped at `i64::MAX`).
    pub fn get_integer(&self, name: &str) -> i64 {
        match self.value_of(name) {
            Some(Value::Integer(number)) => number,
            Some(Value::Bytes(bytes)) => i64::try_from(bytes).unwrap_or(i64::MAX),
            _ => misused_getter(name, "get_integer"),
        }
    }

    /// A Big integer parameter's value in bytes (an Integer's too, as sizes like
    /// `db_block_size` are Oracle Integers).
    pub fn get_bytes(&self, name: &str) -> u64 {
        match self.value_of(name) {
            Some(Value::Bytes(bytes)) => bytes,
            Some(Value::Integer(number)) => u64::try_from(number).unwrap_or(0),
            _ => misused_getter(name, "get_bytes"),
        }
    }

    pub fn get_bool(&self, name: &str) -> bool {
        match self.value_of(name) {
            Some(Value::Boolean(value)) => value,
            _ => misused_getter(name, "get_bool"),
        }
    }

    /// Any parameter's value as `v$parameter.value` shows it (an unset one is empty).
    pub fn get_string(&self, name: &str) -> String {
        match self.value_of(name) {
            Some(value) => value.to_string(),
            None => misused_getter(name, "get_string"),
        }
    }

    /// The current value, `None` for an unknown name.
    pub fn value(&self, name: &str) -> Option<Value> {
        self.value_of(name)
    }

    /// Where the current value came from, `None` for an unknown name.
    pub fn source(&self, name: &str) -> Option<Source> {
        index_of(name).map(|index| self.settings[index].source)
    }

    /// Whether the parameter is at its default (`v$parameter.isdefault`).
    pub fn is_default(&self, name: &str) -> bool {
        self.source(name) == Some(Source::Default)
    }

    /// Whether `ALTER SYSTEM` or `ALTER SESSION` changed it since startup.
    pub fn is_modified(&self, name: &str) -> bool {
        index_of(name).is_some_and(|index| self.settings[index].modification != Modification::No)
    }

    /// Whether `ALTER SESSION` set it in this (a session's) copy: its value is then the
    /// session's own, not the system's it inherits otherwise.
    pub fn is_set_by_session(&self, name: &str) -> bool {
        index_of(name)
            .is_some_and(|index| self.settings[index].modification == Modification::Session)
    }

    /// The number of library cache hash buckets that `_kgl_bucket_count` selects.
    pub fn kgl_bucket_count(&self) -> u64 {
        let index = usize::try_from(self.get_integer(names::KGL_BUCKET_COUNT)).unwrap_or(0);
        KGL_BUCKET_COUNTS[index.min(KGL_BUCKET_COUNTS.len() - 1)]
    }

    /// Every parameter, as `v$parameter` would show it if it showed hidden ones.
    pub fn rows(&self) -> Vec<ParameterRow> {
        DEFINITIONS
            .iter()
            .enumerate()
            .map(|(index, definition)| {
                let setting = &self.settings[index];
                let value = self.current(index);
                ParameterRow {
                    num: index as u32 + 1,
                    name: definition.name,
                    type_code: definition.kind.type_code(),
                    value: value.to_string(),
                    display_value: value.display_value(),
                    isdefault: oracle_bool(setting.source == Source::Default),
                    isses_modifiable: oracle_bool(definition.isses_modifiable),
                    issys_modifiable: definition.issys_modifiable.as_str(),
                    ismodified: setting.modification.as_str(),
                    description: definition.description,
                    hidden: definition.is_hidden(),
                }
            })
            .collect()
    }

    /// The rows `v$parameter` shows: hidden parameters only when set or modified.
    pub fn visible_rows(&self) -> Vec<ParameterRow> {
        self.rows()
            .into_iter()
            .filter(|row| !row.hidden || row.isdefault == "FALSE" || row.ismodified != "FALSE")
            .collect()
    }

    /// The parameter file's text: every value the file holds, in registry order.
    pub fn to_file_text(&self) -> String {
        let mut text = String::from(
            "# Pythia initialization parameters. Pythia rewrites this file for\n\
             # ALTER SYSTEM ... SCOPE=SPFILE or BOTH; comments are not kept.\n",
        );
        for (definition, setting) in DEFINITIONS.iter().zip(self.settings.iter()) {
            if let Some(value) = &setting.file_value {
                text.push_str(&format!(
                    "{} = {}\n",
                    definition.name,
                    file_value_text(value)
                ));
            }
        }
        text
    }

    /// Rewrites the parameter file (for `SCOPE=SPFILE` or `BOTH`): through a temporary file
    /// beside it and a rename, so that a crash leaves either the old file or the new one.
    pub fn write_file(&self, path: &Path) -> Result<()> {
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        let temporary = Path::new(&temporary);
        let write = || -> std::io::Result<()> {
            let mut file = std::fs::File::create(temporary)?;
            file.write_all(self.to_file_text().as_bytes())?;
            file.sync_all()?;
            std::fs::rename(temporary, path)?;
            // The rename is durable once the directory is synced; best effort, as not every
            // platform lets a directory be opened.
            if let Some(parent) = path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
            {
                if let Ok(directory) = std::fs::File::open(parent) {
                    let _ = directory.sync_all();
                }
            }
            Ok(())
        };
        write().map_err(|error| {
            let _ = std::fs::remove_file(temporary);
            Error::io(path, error)
        })
    }

    fn value_of(&self, name: &str) -> Option<Value> {
        index_of(name).map(|index| self.current(index))
    }

    fn current(&self, index: usize) -> Value {
        let setting = &self.settings[index];
        match (setting.source, DEFINITIONS[index].default) {
            (Source::Default, DefaultValue::Derived(derive)) => derive(self),
            _ => setting.value.clone(),
        }
    }

    /// Validates `text` (already trimmed and unquoted) for parameter `index` and assigns it.
    fn assign(&mut self, index: usize, text: &str, scope: SetScope) -> Result<()> {
        let definition = &DEFINITIONS[index];
        check_modifiable(definition, scope)?;
        let value = parse_value(definition, text)?;
        let setting = &mut Arc::make_mut(&mut self.settings)[index];
        let (in_memory, in_file) = match scope {
            SetScope::InitFile => (Some((Source::InitFile, setting.modification)), true),
            SetScope::CommandLine => (Some((Source::CommandLine, setting.modification)), false),
            SetScope::AlterSystem {
                scope: AlterSystemScope::Memory,
            } => (Some((Source::AlterSystem, Modification::System)), false),
            SetScope::AlterSystem {
                scope: AlterSystemScope::Spfile,
            } => (None, true),
            SetScope::AlterSystem {
                scope: AlterSystemScope::Both,
            } => (Some((Source::AlterSystem, Modification::System)), true),
            SetScope::AlterSession => (Some((Source::AlterSession, Modification::Session)), false),
        };
        if in_file {
            setting.file_value = Some(value.clone());
        }
        if let Some((source, modification)) = in_memory {
            setting.value = value;
            setting.source = source;
            setting.modification = modification;
        }
        Ok(())
    }
}

fn oracle_bool(value: bool) -> &'static str {
    if value {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// A getter called with a name not in the registry, or of another kind: a bug in the caller,
/// which names parameters with the constants in [`names`]. Loud in debug builds; in release
/// the getter returns the zero of its type rather than take the instance down.
fn misused_getter<T: Default>(name: &str, getter: &str) -> T {
    if cfg!(debug_assertions) {
        panic!("{getter}({name:?}): no such parameter of that kind");
    }
    T::default()
}

/// A definition's default as a value (for a derived default, a placeholder replaced on read).
fn fixed_default(definition: &Definition) -> Value {
    match definition.default {
        DefaultValue::Text(text) => parse_value(definition, text).unwrap_or_else(|error| {
            // The registry tests parse every default; this is unreachable from a tested build.
            if cfg!(debug_assertions) {
                panic!("default of {} does not parse: {error}", definition.name);
            }
            Value::Text(Arc::from(text))
        }),
        DefaultValue::Unset => Value::Text(Arc::from("")),
        DefaultValue::Derived(_) => Value::Integer(0),
    }
}

fn check_modifiable(definition: &Definition, scope: SetScope) -> Result<()> {
    match scope {
        SetScope::AlterSystem {
            scope: AlterSystemScope::Memory | AlterSystemScope::Both,
        } if definition.issys_modifiable == SystemModifiable::False => Err(Error::new(
            2095,
            "specified initialization parameter cannot be modified",
        )),
        SetScope::AlterSession if !definition.isses_modifiable => Err(Error::new(
            2096,
            "specified initialization parameter is not modifiable with this option",
        )),
        _ => Ok(()),
    }
}

fn parse_value(definition: &Definition, text: &str) -> Result<Value> {
    let invalid = || invalid_value(definition, text);
    if text.len() > VALUE_BYTES_MAX {
        return Err(invalid());
    }
    match definition.kind {
        Kind::Boolean if text.eq_ignore_ascii_case("TRUE") => Ok(Value::Boolean(true)),
        Kind::Boolean if text.eq_ignore_ascii_case("FALSE") => Ok(Value::Boolean(false)),
        Kind::Boolean => Err(invalid()),
        Kind::Integer {
            min,
            max,
            power_of_two,
        } => {
            let number: i64 = text.parse().map_err(|_| invalid())?;
            let shape_ok = !power_of_two || (number > 0 && number & (number - 1) == 0);
            if (min..=max).contains(&number) && shape_ok {
                Ok(Value::Integer(number))
            } else {
                Err(invalid())
            }
        }
        Kind::Size {
            min_bytes,
            max_bytes,
        } => match parse_size(text) {
            Some(bytes) if (min_bytes..=max_bytes).contains(&bytes) => Ok(Value::Bytes(bytes)),
            _ => Err(invalid()),
        },
        Kind::String => {
            if text.chars().any(char::is_control) || file_text(text).is_none() {
                return Err(invalid());
            }
            Ok(Value::Text(Arc::from(text)))
        }
        Kind::Enumeration(values) => values
            .iter()
            .find(|value| value.eq_ignore_ascii_case(text))
            .map(|value| Value::Text(Arc::from(*value)))
            .ok_or_else(invalid),
    }
}

/// `67108864`, `512K`, `64M`, `1G` (K, M, G, T, P, E: powers of 1024, either case).
fn parse_size(text: &str) -> Option<u64> {
    let shift = match text.as_bytes().last()?.to_ascii_uppercase() {
        b'K' => 10,
        b'M' => 20,
        b'G' => 30,
        b'T' => 40,
        b'P' => 50,
        b'E' => 60,
        _ => 0,
    };
    // The suffix, when there is one, is a single ASCII byte: slicing it off is safe.
    let digits = if shift == 0 {
        text
    } else {
        &text[..text.len() - 1]
    };
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Bytes with the largest suffix that divides them exactly: `67108864` is `64M`.
fn format_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0".to_string();
    }
    for (unit, suffix) in [
        (TERABYTE, 'T'),
        (GIGABYTE, 'G'),
        (MEGABYTE, 'M'),
        (KILOBYTE, 'K'),
    ] {
        if bytes.is_multiple_of(unit) {
            return format!("{}{suffix}", bytes / unit);
        }
    }
    bytes.to_string()
}

fn invalid_value(definition: &Definition, text: &str) -> Error {
    let rule = match definition.kind {
        Kind::Boolean => ", must be from among TRUE, FALSE".to_string(),
        Kind::Integer {
            min,
            max,
            power_of_two,
        } => {
            let shape = if power_of_two { "a power of two " } else { "" };
            format!(", must be {shape}between {min} and {max}")
        }
        Kind::Size {
            min_bytes,
            max_bytes,
        } => {
            format!(
                ", must be between {} and {}",
                format_size(min_bytes),
                format_size(max_bytes)
            )
        }
        Kind::String => format!(
            ", must be at most {VALUE_BYTES_MAX} bytes, without control characters, \
             and quotable with ' or \""
        ),
        Kind::Enumeration(values) => format!(", must be from among {}", values.join(", ")),
    };
    Error::new(
        96,
        format!(
            "invalid value {} for parameter {}{rule}",
            shown(text),
            definition.name
        ),
    )
}

/// The error for a name no parameter has, as the statement of `scope` reports it.
pub fn unknown_parameter(name: &str, scope: SetScope) -> Error {
    let headline = match scope {
        SetScope::InitFile | SetScope::CommandLine => {
            (1078, "failure in processing system parameters")
        }
        SetScope::AlterSystem { .. } => (2065, "illegal option for ALTER SYSTEM"),
        SetScope::AlterSession => (2248, "invalid option for ALTER SESSION"),
    };
    Error::new(
        headline.0,
        format!(
            "{}\nLRM-00101: unknown parameter name '{}'",
            headline.1,
            shown(bare_name(name))
        ),
    )
}

fn syntax_error(found: &str, following: &str) -> Error {
    Error::new(
        1078,
        format!(
            "failure in processing system parameters\n\
             LRM-00116: syntax error at '{}' following '{}'",
            shown(found),
            shown(following)
        ),
    )
}

/// Text from the user, for an error message: control characters escaped, long text cut.
fn shown(text: &str) -> String {
    const SHOWN_CHARACTERS_MAX: usize = 80;
    let mut shown = String::new();
    for (count, character) in text.chars().enumerate() {
        if count == SHOWN_CHARACTERS_MAX {
            shown.push_str("...");
            break;
        }
        if character.is_control() {
            shown.extend(character.escape_default());
        } else {
            shown.push(character);
        }
    }
    shown
}

/// Adds where in the parameter file an error was found, at the end of its last line.
fn at_line(error: Error, line: usize, path: Option<&Path>) -> Error {
    let place = match path {
        Some(path) => format!("line {line} of {}", path.display()),
        None => format!("line {line}"),
    };
    Error::new(error.code(), format!("{} ({place})", error.message()))
}

fn parse_text(text: &str, path: Option<&Path>) -> Result<Parameters> {
    let mut parameters = Parameters::defaults();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        parse_line(&mut parameters, line).map_err(|error| at_line(error, index + 1, path))?;
    }
    Ok(parameters)
}

/// One `name = value` line, trimmed, not blank and not a comment.
fn parse_line(parameters: &mut Parameters, line: &str) -> Result<()> {
    let Some(equals) = line.find('=') else {
        return Err(syntax_error("end of line", line));
    };
    // `*.name`: the "every instance" prefix of files written by Oracle's CREATE PFILE.
    let name = line[..equals].trim();
    let name = name.strip_prefix("*.").unwrap_or(name);
    if name.is_empty() {
        return Err(syntax_error("=", "start of line"));
    }
    let value = read_value(&line[equals + 1..])?;
    let index = index_of(name).ok_or_else(|| unknown_parameter(name, SetScope::InitFile))?;
    parameters.assign(index, value, SetScope::InitFile)
}

/// The value of a parameter file line, given what follows the `=`: up to a `#` outside
/// quotes, trimmed, without quotes that enclose all of it.
fn read_value(part: &str) -> Result<&str> {
    let mut quote = None;
    let mut end = part.len();
    for (position, character) in part.char_indices() {
        match quote {
            Some(open) if character == open => quote = None,
            Some(_) => {}
            None if character == '#' => {
                end = position;
                break;
            }
            None if character == '\'' || character == '"' => quote = Some(character),
            None => {}
        }
    }
    if let Some(open) = quote {
        return Err(syntax_error("end of line", &format!("unterminated {open}")));
    }
    let value = part[..end].trim();
    if value.is_empty() {
        return Err(syntax_error("end of line", "="));
    }
    Ok(unquote_whole(value))
}

/// `'text'` or `"text"` without the quotes, when they enclose all of it; otherwise the text.
fn unquote_whole(text: &str) -> &str {
    let Some(quote) = text
        .chars()
        .next()
        .filter(|first| *first == '\'' || *first == '"')
    else {
        return text;
    };
    // The quote is one ASCII byte.
    let rest = &text[1..];
    match rest.find(quote) {
        Some(close) if close + 1 == rest.len() => &rest[..close],
        _ => text,
    }
}

/// How to write a string value in the parameter file so that reading it gives it back: as is
/// when that works, otherwise in quotes it does not contain. `None` when neither works.
fn file_text(text: &str) -> Option<String> {
    let reads_back =
        |written: &str| !written.contains(['\n', '\r']) && read_value(written).ok() == Some(text);
    if reads_back(text) {
        return Some(text.to_string());
    }
    ['"', '\'']
        .iter()
        .map(|quote| format!("{quote}{text}{quote}"))
        .find(|quoted| reads_back(quoted))
}

fn file_value_text(value: &Value) -> String {
    match value {
        // Every string held passed `parse_value`, which checked that it can be written.
        Value::Text(text) => file_text(text).unwrap_or_else(|| format!("\"{text}\"")),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const MEMORY: SetScope = SetScope::AlterSystem {
        scope: AlterSystemScope::Memory,
    };
    const SPFILE: SetScope = SetScope::AlterSystem {
        scope: AlterSystemScope::Spfile,
    };
    const BOTH: SetScope = SetScope::AlterSystem {
        scope: AlterSystemScope::Both,
    };

    /// A file under the system's temporary directory, removed when dropped.
    struct TemporaryFile(std::path::PathBuf);

    impl TemporaryFile {
        fn new(contents: &[u8]) -> TemporaryFile {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let name = format!(
                "pythia-parameters-{}-{}.ora",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            let path = std::env::temp_dir().join(name);
            std::fs::write(&path, contents).unwrap();
            TemporaryFile(path)
        }
    }

    impl Drop for TemporaryFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn row(parameters: &Parameters, name: &str) -> ParameterRow {
        parameters
            .rows()
            .into_iter()
            .find(|row| row.name == name)
            .unwrap()
    }

    fn error_of<T: fmt::Debug>(result: Result<T>) -> Error {
        result.expect_err("expected an error")
    }

    // The registry.

    #[test]
    fn registry_names_are_unique_lowercase_and_described() {
        for (index, definition) in DEFINITIONS.iter().enumerate() {
            assert_eq!(definition.name, definition.name.to_lowercase());
            assert!(!definition.description.is_empty(), "{}", definition.name);
            assert_eq!(
                index_of(definition.name),
                Some(index),
                "{} is listed twice",
                definition.name
            );
        }
    }

    #[test]
    fn registry_defaults_obey_their_own_kinds() {
        for definition in DEFINITIONS {
            match definition.default {
                DefaultValue::Text(text) => {
                    let parsed = parse_value(definition, text);
                    assert!(parsed.is_ok(), "{}: {:?}", definition.name, parsed);
                }
                DefaultValue::Unset => {
                    assert!(
                        matches!(definition.kind, Kind::String | Kind::Enumeration(_)),
                        "{}",
                        definition.name
                    )
                }
                DefaultValue::Derived(derive) => {
                    let value = derive(&Parameters::defaults());
                    assert!(
                        parse_value(definition, &value.to_string()).is_ok(),
                        "{}",
                        definition.name
                    );
                }
            }
            if let Kind::Enumeration(values) = definition.kind {
                assert!(
                    values.iter().all(|value| *value == value.to_uppercase()),
                    "{}",
                    definition.name
                );
            }
        }
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let parameters = Parameters::defaults();
        assert_eq!(parameters.get_string(names::DB_NAME), "PYTHIA");
        assert_eq!(parameters.get_integer(names::DB_BLOCK_SIZE), 8192);
        assert_eq!(parameters.get_bytes(names::DB_BLOCK_SIZE), 8192);
        assert_eq!(parameters.get_bytes(names::DB_CACHE_SIZE), 64 << 20);
        assert_eq!(parameters.get_bytes(names::SHARED_POOL_SIZE), 64 << 20);
        assert_eq!(parameters.get_bytes(names::LOG_BUFFER), 8 << 20);
        assert_eq!(parameters.get_bytes(names::LOG_FILE_SIZE), 64 << 20);
        assert_eq!(parameters.get_integer(names::LOG_GROUPS), 3);
        assert_eq!(parameters.get_bytes(names::UNDO_TABLESPACE_SIZE), 256 << 20);
        assert_eq!(parameters.get_integer(names::PROCESSES), 100);
        assert_eq!(parameters.get_integer(names::SESSIONS), 172);
        assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 300);
        assert_eq!(parameters.get_integer(names::SESSION_CACHED_CURSORS), 50);
        assert_eq!(parameters.get_string(names::CURSOR_SHARING), "EXACT");
        assert_eq!(parameters.get_string(names::COMMIT_LOGGING), "");
        assert_eq!(parameters.get_string(names::COMMIT_WAIT), "");
        assert_eq!(
            parameters.get_integer(names::DB_FILE_MULTIBLOCK_READ_COUNT),
            128
        );
        assert_eq!(parameters.get_integer(names::DB_WRITER_PROCESSES), 1);
        assert_eq!(parameters.get_string(names::OPTIMIZER_MODE), "ALL_ROWS");
        assert_eq!(parameters.get_string(names::NLS_DATE_FORMAT), "DD-MON-RR");
        assert_eq!(parameters.get_string(names::STATISTICS_LEVEL), "TYPICAL");
        assert!(parameters.get_bool(names::TIMED_STATISTICS));
        assert!(!parameters.get_bool(names::SQL_TRACE));
        assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "");
        assert_eq!(parameters.get_bytes(names::DB_KEEP_CACHE_SIZE), 0);
        assert_eq!(parameters.get_bytes(names::DB_RECYCLE_CACHE_SIZE), 0);
        assert_eq!(parameters.get_string(names::DB_CACHE_ADVICE), "ON");
        assert_eq!(parameters.get_integer(names::KGL_BUCKET_COUNT), 9);
        assert_eq!(parameters.kgl_bucket_count(), 262139);
        assert_eq!(parameters.get_integer(names::KGL_HOT_OBJECT_COPIES), 0);
        assert_eq!(
            parameters.get_integer(names::KGHLU_TRANSIENT_PERCENT) as u64,
            crate::library_cache::pool::TRANSIENT_PERCENT_DEFAULT
        );
        assert_eq!(parameters.get_integer(names::DB_BLOCK_HASH_LATCHES), 0);
        assert!(parameters.get_bool(names::USE_ADAPTIVE_LOG_FILE_SYNC));
        assert_eq!(parameters.get_integer(names::SMALL_TABLE_THRESHOLD), 0);
        assert_eq!(parameters.get_integer(names::SPIN_COUNT), 2000);
        assert!(DEFINITIONS
            .iter()
            .all(|definition| parameters.is_default(definition.name)));
        assert_eq!(parameters, Parameters::default());
    }

    #[test]
    fn kgl_bucket_counts_are_the_largest_primes_below_powers_of_two() {
        let is_prime = |number: u64| {
            number > 1
                && (2..)
                    .take_while(|d| d * d <= number)
                    .all(|d| !number.is_multiple_of(d))
        };
        for (index, count) in KGL_BUCKET_COUNTS.iter().enumerate() {
            let power = 1u64 << (9 + index);
            let largest = (0..power).rev().find(|&number| is_prime(number)).unwrap();
            assert_eq!(*count, largest, "index {index}");
        }
        let mut parameters = Parameters::defaults();
        parameters
            .set(names::KGL_BUCKET_COUNT, "0", SetScope::InitFile)
            .unwrap();
        assert_eq!(parameters.kgl_bucket_count(), 509);
        assert_eq!(
            error_of(parameters.set(names::KGL_BUCKET_COUNT, "13", SetScope::InitFile)).code(),
            96
        );
    }

    #[test]
    fn lookups_are_case_insensitive_and_accept_quoted_hidden_names() {
        assert_eq!(
            definition("DB_Block_Size").map(|d| d.name),
            Some("db_block_size")
        );
        assert_eq!(
            definition(" \"_SPIN_COUNT\" ").map(|d| d.name),
            Some("_spin_count")
        );
        assert!(definition("work_mem").is_none());
        let parameters = Parameters::defaults();
        assert_eq!(parameters.get_integer("PROCESSES"), 100);
        assert_eq!(parameters.value("nope"), None);
        assert_eq!(parameters.source("nope"), None);
    }

    // Sessions derived from processes.

    #[test]
    fn sessions_follow_processes_until_set() {
        let mut parameters = Parameters::defaults();
        parameters
            .set(names::PROCESSES, "200", SetScope::InitFile)
            .unwrap();
        assert_eq!(parameters.get_integer(names::SESSIONS), 322);
        assert_eq!(row(&parameters, names::SESSIONS).value, "322");
        assert_eq!(row(&parameters, names::SESSIONS).isdefault, "TRUE");
        parameters
            .set(names::SESSIONS, "50", SetScope::InitFile)
            .unwrap();
        parameters
            .set(names::PROCESSES, "1000", SetScope::CommandLine)
            .unwrap();
        assert_eq!(parameters.get_integer(names::SESSIONS), 50);
        parameters
            .set(names::PROCESSES, "10000", SetScope::InitFile)
            .unwrap();
        parameters
            .reset(names::SESSIONS, AlterSystemScope::Spfile)
            .unwrap();
        assert_eq!(
            parameters.get_integer(names::SESSIONS),
            50,
            "SCOPE=SPFILE leaves memory alone"
        );
    }

    // Values: sizes, integers, enumerations, booleans, strings.

    #[test]
    fn sizes_take_suffixes_in_either_case_or_plain_bytes() {
        assert_eq!(parse_size("67108864"), Some(64 << 20));
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size("512k"), Some(512 << 10));
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("2t"), Some(2 << 40));
        assert_eq!(parse_size("15E"), Some(15 << 60));
        for bad in [
            "",
            "M",
            "-1M",
            "1.5G",
            "1 G",
            "1MB",
            "0x10",
            "+5",
            "16E",
            "99999999999999999999",
            "１M",
        ] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
        let mut parameters = Parameters::defaults();
        parameters
            .set(names::DB_CACHE_SIZE, "128m", MEMORY)
            .unwrap();
        assert_eq!(parameters.get_bytes(names::DB_CACHE_SIZE), 128 << 20);
        parameters
            .set(names::LOG_BUFFER, "262144", SetScope::InitFile)
            .unwrap();
        assert_eq!(parameters.get_bytes(names::LOG_BUFFER), 256 << 10);
    }

    #[test]
    fn sizes_display_with_the_largest_exact_suffix() {
        assert_eq!(format_size(0), "0");
        assert_eq!(format_size(1000), "1000");
        assert_eq!(format_size(1536 << 10), "1536K");
        assert_eq!(format_size(64 << 20), "64M");
        assert_eq!(format_size(2 << 30), "2G");
        assert_eq!(format_size(1 << 40), "1T");
    }

    #[test]
    fn sizes_out_of_range_name_the_range() {
        let mut parameters = Parameters::defaults();
        let error = error_of(parameters.set(names::LOG_BUFFER, "128K", SetScope::InitFile));
        assert_eq!(error.code(), 96);
        assert_eq!(
            error.message(),
            "invalid value 128K for parameter log_buffer, must be between 256K and 1G"
        );
        let error = error_of(parameters.set(names::DB_CACHE_SIZE, "1M", MEMORY));
        assert_eq!(
            error.message(),
            "invalid value 1M for parameter db_cache_size, must be between 4M and 1T"
        );
        assert_eq!(
            error_of(parameters.set(names::LOG_FILE_SIZE, "lots", SetScope::InitFile)).code(),
            96
        );
        assert_eq!(
            parameters,
            Parameters::defaults(),
            "failed sets change nothing"
        );
    }

    #[test]
    fn integers_check_their_range() {
        let mut parameters = Parameters::defaults();
        let error = error_of(parameters.set(names::PROCESSES, "0", SetScope::InitFile));
        assert_eq!(
            error.to_string(),
            "ORA-00096: invalid value 0 for parameter processes, must be between 1 and 10000"
        );
        assert_eq!(
            error_of(parameters.set(names::PROCESSES, "10001", SetScope::InitFile)).code(),
            96
        );
        assert_eq!(
            error_of(parameters.set(names::PROCESSES, "ten", SetScope::InitFile)).code(),
            96
        );
        assert_eq!(
            error_of(parameters.set(names::LOG_GROUPS, "1", SetScope::InitFile)).code(),
            96
        );
        assert_eq!(
            error_of(parameters.set(names::LOG_GROUPS, "17", SetScope::InitFile)).code(),
            96
        );
        parameters
            .set(names::LOG_GROUPS, "16", SetScope::InitFile)
            .unwrap();
        parameters
            .set(names::PROCESSES, " 10000 ", SetScope::CommandLine)
            .unwrap();
        assert_eq!(parameters.get_integer(names::PROCESSES), 10000);
    }

    #[test]
    fn db_block_size_is_a_power_of_two_in_range() {
        let mut parameters = Parameters::defaults();
        for good in ["2048", "4096", "16384", "32768"] {
            parameters
                .set(names::DB_BLOCK_SIZE, good, SetScope::InitFile)
                .unwrap();
        }
        for bad in ["1024", "3000", "65536", "0", "-8192"] {
            let error = error_of(parameters.set(names::DB_BLOCK_SIZE, bad, SetScope::InitFile));
            assert_eq!(
                error.message(),
                format!("invalid value {bad} for parameter db_block_size, must be a power of two between 2048 and 32768")
            );
        }
    }

    #[test]
    fn enumerations_are_case_insensitive_and_stored_uppercase() {
        let mut parameters = Parameters::defaults();
        parameters
            .set(names::CURSOR_SHARING, "force", MEMORY)
            .unwrap();
        assert_eq!(parameters.get_string(names::CURSOR_SHARING), "FORCE");
        parameters
            .set(names::OPTIMIZER_MODE, "First_Rows", SetScope::AlterSession)
            .unwrap();
        assert_eq!(parameters.get_string(names::OPTIMIZER_MODE), "FIRST_ROWS");
        parameters
            .set(names::COMMIT_WAIT, "'nowait'", SetScope::AlterSession)
            .unwrap();
        assert_eq!(parameters.get_string(names::COMMIT_WAIT), "NOWAIT");
        let error = error_of(parameters.set(names::CURSOR_SHARING, "similar", MEMORY));
        assert_eq!(
            error.to_string(),
            "ORA-00096: invalid value similar for parameter cursor_sharing, must be from among EXACT, FORCE"
        );
        assert_eq!(
            error_of(parameters.set(names::CURSOR_SHARING, "EXACT, FORCE", MEMORY)).code(),
            96
        );
        assert_eq!(
            error_of(parameters.set(names::COMMIT_LOGGING, "", MEMORY)).code(),
            96
        );
    }

    #[test]
    fn booleans_are_true_or_false() {
        let mut parameters = Parameters::defaults();
        parameters
            .set(names::SQL_TRACE, "true", SetScope::AlterSession)
            .unwrap();
        assert!(parameters.get_bool(names::SQL_TRACE));
        parameters
            .set(names::TIMED_STATISTICS, "False", MEMORY)
            .unwrap();
        assert!(!parameters.get_bool(names::TIMED_STATISTICS));
        let error = error_of(parameters.set(names::SQL_TRACE, "yes", SetScope::AlterSession));
        assert_eq!(
            error.message(),
            "invalid value yes for parameter sql_trace, must be from among TRUE, FALSE"
        );
    }

    #[test]
    fn strings_are_kept_as_written_without_control_characters() {
        let mut parameters = Parameters::defaults();
        parameters
            .set(
                names::NLS_DATE_FORMAT,
                "'YYYY-MM-DD HH24:MI:SS'",
                SetScope::AlterSession,
            )
            .unwrap();
        assert_eq!(
            parameters.get_string(names::NLS_DATE_FORMAT),
            "YYYY-MM-DD HH24:MI:SS"
        );
        parameters.set(names::DIAGNOSTIC_DEST, "", MEMORY).unwrap();
        assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "");
        let error =
            error_of(parameters.set(names::DIAGNOSTIC_DEST, "/tmp\nLRM-00101: forged", MEMORY));
        assert_eq!(error.code(), 96);
        assert!(error
            .message()
            .starts_with("invalid value /tmp\\nLRM-00101: forged for parameter diagnostic_dest"));
        assert_eq!(
            error_of(parameters.set(names::DIAGNOSTIC_DEST, "x".repeat(4001).as_str(), MEMORY))
                .code(),
            96
        );
        assert_eq!(
            error_of(parameters.set(names::DIAGNOSTIC_DEST, "a\"b'c", MEMORY)).code(),
            96
        );
        parameters
            .set(names::DIAGNOSTIC_DEST, "it's", MEMORY)
            .unwrap();
        assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "it's");
    }

    #[test]
    fn rows_show_values_as_oracle_does() {
        let mut parameters = Parameters::defaults();
        let cache = row(&parameters, names::DB_CACHE_SIZE);
        assert_eq!(
            cache,
            ParameterRow {
                num: cache.num,
                name: "db_cache_size",
                type_code: 6,
                value: "67108864".to_string(),
                display_value: "64M".to_string(),
                isdefault: "TRUE",
                isses_modifiable: "FALSE",
                issys_modifiable: "IMMEDIATE",
                ismodified: "FALSE",
                description: "Size of DEFAULT buffer pool for standard block size buffers",
                hidden: false,
            }
        );
        assert_eq!(row(&parameters, names::TIMED_STATISTICS).type_code, 1);
        assert_eq!(row(&parameters, names::TIMED_STATISTICS).value, "TRUE");
        assert_eq!(row(&parameters, names::CURSOR_SHARING).type_code, 2);
        assert_eq!(row(&parameters, names::DB_BLOCK_SIZE).type_code, 3);
        assert_eq!(row(&parameters, names::DB_BLOCK_SIZE).display_value, "8192");
        assert_eq!(
            row(&parameters, names::SESSION_CACHED_CURSORS).issys_modifiable,
            "DEFERRED"
        );
        assert_eq!(
            row(&parameters, names::SESSION_CACHED_CURSORS).isses_modifiable,
            "TRUE"
        );
        assert_eq!(row(&parameters, names::PROCESSES).issys_modifiable, "FALSE");
        let numbers: Vec<u32> = parameters.rows().iter().map(|row| row.num).collect();
        assert_eq!(numbers, (1..=DEFINITIONS.len() as u32).collect::<Vec<_>>());

        parameters.set(names::DB_CACHE_SIZE, "1G", MEMORY).unwrap();
        parameters
            .set(names::OPTIMIZER_MODE, "rule", SetScope::AlterSession)
            .unwrap();
        parameters
            .set(names::OPEN_CURSORS, "1000", SetScope::InitFile)
            .unwrap();
        let cache = row(&parameters, names::DB_CACHE_SIZE);
        assert_eq!(
            (cache.value.as_str(), cache.display_value.as_str()),
            ("1073741824", "1G")
        );
        assert_eq!((cache.isdefault, cache.ismodified), ("FALSE", "SYSTEM_MOD"));
        let mode = row(&parameters, names::OPTIMIZER_MODE);
        assert_eq!(
            (mode.value.as_str(), mode.isdefault, mode.ismodified),
            ("RULE", "FALSE", "MODIFIED")
        );
        let cursors = row(&parameters, names::OPEN_CURSORS);
        assert_eq!((cursors.isdefault, cursors.ismodified), ("FALSE", "FALSE"));
        assert_eq!(
            parameters.source(names::OPEN_CURSORS),
            Some(Source::InitFile)
        );
        assert!(!parameters.is_modified(names::OPEN_CURSORS));
        assert!(parameters.is_modified(names::OPTIMIZER_MODE));
    }

    #[test]
    fn visible_rows_hide_underscore_parameters_until_set() {
        let mut parameters = Parameters::defaults();
        let visible = |parameters: &Parameters| -> Vec<&'static str> {
            parameters
                .visible_rows()
                .iter()
                .map(|row| row.name)
                .collect()
        };
        assert!(visible(&parameters)
            .iter()
            .all(|name| !name.starts_with('_')));
        assert!(visible(&parameters).contains(&"db_block_size"));
        assert!(parameters
            .rows()
            .iter()
            .any(|row| row.name == "_spin_count" && row.hidden));
        parameters.set("\"_spin_count\"", "4000", MEMORY).unwrap();
        parameters
            .set("_kgl_bucket_count", "3", SetScope::InitFile)
            .unwrap();
        let shown = visible(&parameters);
        assert!(shown.contains(&"_spin_count") && shown.contains(&"_kgl_bucket_count"));
        assert!(!shown.contains(&"_db_block_hash_latches"));
    }

    // Who may change what.

    #[test]
    fn static_parameters_change_only_in_the_file() {
        let mut parameters = Parameters::defaults();
        for scope in [MEMORY, BOTH] {
            let error = error_of(parameters.set(names::DB_BLOCK_SIZE, "4096", scope));
            assert_eq!(
                error.to_string(),
                "ORA-02095: specified initialization parameter cannot be modified"
            );
            assert_eq!(
                error_of(parameters.reset(names::LOG_GROUPS, AlterSystemScope::Both)).code(),
                2095
            );
        }
        // ORA-02095 comes before the value is looked at, as in Oracle.
        assert_eq!(
            error_of(parameters.set(names::PROCESSES, "junk", MEMORY)).code(),
            2095
        );
        parameters
            .set(names::DB_BLOCK_SIZE, "4096", SPFILE)
            .unwrap();
        assert_eq!(
            parameters.get_integer(names::DB_BLOCK_SIZE),
            8192,
            "memory keeps the running value"
        );
        assert!(parameters
            .to_file_text()
            .contains("\ndb_block_size = 4096\n"));
        assert_eq!(
            error_of(parameters.set(names::DB_BLOCK_SIZE, "4000", SPFILE)).code(),
            96
        );
        for name in [
            names::DB_WRITER_PROCESSES,
            names::LOG_FILE_SIZE,
            names::LOG_GROUPS,
            names::UNDO_TABLESPACE_SIZE,
            names::KGL_BUCKET_COUNT,
            names::KGL_HOT_OBJECT_COPIES,
            names::KGHLU_TRANSIENT_PERCENT,
            names::DB_BLOCK_HASH_LATCHES,
            names::SMALL_TABLE_THRESHOLD,
            names::LOG_BUFFER,
            names::PROCESSES,
            names::SESSIONS,
        ] {
            assert_eq!(
                definition(name).unwrap().issys_modifiable,
                SystemModifiable::False,
                "{name}"
            );
        }
    }

    #[test]
    fn dynamic_parameters_change_in_memory_and_file_by_scope() {
        let mut parameters = Parameters::defaults();
        parameters.set(names::OPEN_CURSORS, "500", MEMORY).unwrap();
        assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 500);
        assert!(!parameters.to_file_text().contains("open_cursors"));
        parameters.set(names::OPEN_CURSORS, "600", SPFILE).unwrap();
        assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 500);
        assert!(parameters.to_file_text().contains("open_cursors = 600"));
        parameters.set(names::SPIN_COUNT, "10", BOTH).unwrap();
        assert_eq!(parameters.get_integer(names::SPIN_COUNT), 10);
        assert!(parameters.to_file_text().contains("_spin_count = 10"));
        parameters
            .set(names::SESSION_CACHED_CURSORS, "20", MEMORY)
            .unwrap();
        assert_eq!(
            parameters.get_integer(names::SESSION_CACHED_CURSORS),
            20,
            "DEFERRED needs no keyword"
        );

        parameters
            .reset(names::SPIN_COUNT, AlterSystemScope::Both)
            .unwrap();
        assert_eq!(parameters.get_integer(names::SPIN_COUNT), 2000);
        assert!(parameters.is_default(names::SPIN_COUNT));
        assert!(!parameters.to_file_text().contains("_spin_count"));
        parameters
            .reset(names::OPEN_CURSORS, AlterSystemScope::Spfile)
            .unwrap();
        assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 500);
        assert!(!parameters.to_file_text().contains("open_cursors"));
    }

    #[test]
    fn alter_session_needs_a_session_modifiable_parameter() {
        let mut parameters = Parameters::defaults();
        let error = error_of(parameters.set(names::OPEN_CURSORS, "10", SetScope::AlterSession));
        assert_eq!(
            error.to_string(),
            "ORA-02096: specified initialization parameter is not modifiable with this option"
        );
        assert_eq!(
            error_of(parameters.set(names::DB_BLOCK_SIZE, "4096", SetScope::AlterSession)).code(),
            2096
        );
        parameters
            .set(names::NLS_DATE_FORMAT, "DD.MM.YYYY", SetScope::AlterSession)
            .unwrap();
        assert_eq!(
            parameters.source(names::NLS_DATE_FORMAT),
            Some(Source::AlterSession)
        );
        // nls_date_format is session-only: ALTER SYSTEM may only write it to the file.
        assert_eq!(
            error_of(parameters.set(names::NLS_DATE_FORMAT, "DD.MM.YYYY", MEMORY)).code(),
            2095
        );
        assert!(
            !parameters.to_file_text().contains("nls_date_format"),
            "ALTER SESSION is never written"
        );
    }

    #[test]
    fn unknown_names_are_reported_per_statement() {
        let mut parameters = Parameters::defaults();
        let error = error_of(parameters.set("work_mem", "5", SetScope::CommandLine));
        assert_eq!(
            error.to_string(),
            "ORA-01078: failure in processing system parameters\nLRM-00101: unknown parameter name 'work_mem'"
        );
        let error = error_of(parameters.set("bogus", "5", MEMORY));
        assert_eq!(error.code(), 2065);
        assert_eq!(
            error.message(),
            "illegal option for ALTER SYSTEM\nLRM-00101: unknown parameter name 'bogus'"
        );
        let error = error_of(parameters.set("bogus", "5", SetScope::AlterSession));
        assert_eq!(error.code(), 2248);
        assert_eq!(
            error.message(),
            "invalid option for ALTER SESSION\nLRM-00101: unknown parameter name 'bogus'"
        );
        assert_eq!(
            error_of(parameters.reset("bogus", AlterSystemScope::Spfile)).code(),
            2065
        );
    }

    #[test]
    fn clones_share_until_one_changes() {
        let system = Parameters::defaults();
        let mut session = system.clone();
        assert!(Arc::ptr_eq(&system.settings, &session.settings));
        session
            .set(names::CURSOR_SHARING, "FORCE", SetScope::AlterSession)
            .unwrap();
        assert!(!Arc::ptr_eq(&system.settings, &session.settings));
        assert_eq!(system.get_string(names::CURSOR_SHARING), "EXACT");
        assert_eq!(session.get_string(names::CURSOR_SHARING), "FORCE");
    }

    #[test]
    fn sessions_inherit_immediate_system_changes_they_did_not_override() {
        let mut system = Parameters::defaults();
        let mut session = system.clone();
        session
            .set(names::OPTIMIZER_MODE, "RULE", SetScope::AlterSession)
            .unwrap();
        system
            .set(names::OPTIMIZER_MODE, "FIRST_ROWS", MEMORY)
            .unwrap();
        system.set(names::STATISTICS_LEVEL, "ALL", MEMORY).unwrap();
        system
            .set(names::SESSION_CACHED_CURSORS, "10", MEMORY)
            .unwrap();
        assert!(!session.inherit_system_change(&system, names::OPTIMIZER_MODE));
        assert_eq!(session.get_string(names::OPTIMIZER_MODE), "RULE");
        assert!(session.inherit_system_change(&system, names::STATISTICS_LEVEL));
        assert_eq!(session.get_string(names::STATISTICS_LEVEL), "ALL");
        assert_eq!(
            row(&session, names::STATISTICS_LEVEL).ismodified,
            "SYSTEM_MOD"
        );
        assert!(
            !session.inherit_system_change(&system, names::STATISTICS_LEVEL),
            "already current"
        );
        assert!(
            !session.inherit_system_change(&system, names::SESSION_CACHED_CURSORS),
            "DEFERRED"
        );
        assert_eq!(session.get_integer(names::SESSION_CACHED_CURSORS), 50);
        assert!(!session.inherit_system_change(&system, "bogus"));
    }

    // The parameter file.

    #[test]
    fn file_parsing_skips_comments_and_blank_lines_and_unquotes_values() {
        let text = "\u{feff}# Pythia test instance\n\
                    \n\
                    *.DB_NAME = 'ORCL'   # the name\n\
                    \tdb_cache_size=128M\r\n\
                    nls_date_format = \"DD-MON-YYYY # not a comment\"\n\
                    \"_spin_count\" = 500\n\
                    cursor_sharing = force\n\
                    buffer_pool_keep = (buffers:200, lru_latches:1)\n\
                    buffer_pool_recycle = 'a', 'b'   # lists stay text\n\
                    diagnostic_dest = v1, v2\n\
                    processes = 50\n\
                    processes = 60\n";
        let parameters = Parameters::parse(text).unwrap();
        assert_eq!(parameters.get_string(names::DB_NAME), "ORCL");
        assert_eq!(parameters.get_bytes(names::DB_CACHE_SIZE), 128 << 20);
        assert_eq!(
            parameters.get_string(names::NLS_DATE_FORMAT),
            "DD-MON-YYYY # not a comment"
        );
        assert_eq!(parameters.get_integer(names::SPIN_COUNT), 500);
        assert_eq!(parameters.get_string(names::CURSOR_SHARING), "FORCE");
        assert_eq!(
            parameters.get_string(names::BUFFER_POOL_KEEP),
            "(buffers:200, lru_latches:1)"
        );
        assert_eq!(
            parameters.get_string(names::BUFFER_POOL_RECYCLE),
            "'a', 'b'"
        );
        assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "v1, v2");
        assert_eq!(
            parameters.get_integer(names::PROCESSES),
            60,
            "the last line wins"
        );
        assert_eq!(parameters.source(names::DB_NAME), Some(Source::InitFile));
        assert!(parameters.is_default(names::LOG_BUFFER));
        assert!(!parameters.is_modified(names::DB_NAME));
    }

    #[test]
    fn file_errors_name_the_line() {
        let cases = [
            (
                "db_name = X\nbogus = 1\n",
                1078,
                "LRM-00101: unknown parameter name 'bogus' (line 2)",
            ),
            (
                "# c\n\nprocesses = 0\n",
                96,
                "must be between 1 and 10000 (line 3)",
            ),
            (
                "cursor_sharing = similar",
                96,
                "must be from among EXACT, FORCE (line 1)",
            ),
            (
                "db_name\n",
                1078,
                "LRM-00116: syntax error at 'end of line' following 'db_name' (line 1)",
            ),
            (
                "\n = 5\n",
                1078,
                "LRM-00116: syntax error at '=' following 'start of line' (line 2)",
            ),
            (
                "db_name =   # nothing\n",
                1078,
                "LRM-00116: syntax error at 'end of line' following '=' (line 1)",
            ),
            (
                "db_name = 'PYTHIA\n",
                1078,
                "following 'unterminated '' (line 1)",
            ),
            (
                "db block size = 8192\n",
                1078,
                "unknown parameter name 'db block size' (line 1)",
            ),
        ];
        for (text, code, ending) in cases {
            let error = error_of(Parameters::parse(text));
            assert_eq!(error.code(), code, "{text:?}: {error}");
            assert!(error.message().ends_with(ending), "{text:?}: {error}");
        }
    }

    #[test]
    fn load_file_reads_and_reports_the_path() {
        let file = TemporaryFile::new(b"db_name = FILEDB\nlog_groups = 4\n");
        let parameters = Parameters::load_file(&file.0).unwrap();
        assert_eq!(parameters.get_string(names::DB_NAME), "FILEDB");
        assert_eq!(parameters.get_integer(names::LOG_GROUPS), 4);

        let file = TemporaryFile::new(b"db_name = FILEDB\nlog_groups = 40\n");
        let error = error_of(Parameters::load_file(&file.0));
        assert_eq!(error.code(), 96);
        assert!(
            error
                .message()
                .ends_with(&format!("(line 2 of {})", file.0.display())),
            "{error}"
        );

        let file = TemporaryFile::new(b"db_name = ok\ndb_name = \xff\n");
        let error = error_of(Parameters::load_file(&file.0));
        assert!(
            error.message().contains("LRM-00123") && error.message().contains("(line 2 of"),
            "{error}"
        );

        let missing = std::env::temp_dir().join("pythia-parameters-missing/init.ora");
        let error = error_of(Parameters::load_file(&missing));
        assert_eq!(error.code(), 1078);
        assert!(
            error
                .message()
                .contains("LRM-00109: could not open parameter file"),
            "{error}"
        );

        let file = TemporaryFile::new("#".repeat(INIT_FILE_BYTES_MAX as usize + 1).as_bytes());
        assert!(error_of(Parameters::load_file(&file.0))
            .message()
            .contains("larger than"));
    }

    #[test]
    fn write_file_keeps_what_the_file_holds_and_reads_back() {
        let file = TemporaryFile::new(b"# old comment\ndb_name = FILEDB\nprocesses = 50\n");
        let mut parameters = Parameters::load_file(&file.0).unwrap();
        parameters.set(names::DB_CACHE_SIZE, "1G", BOTH).unwrap();
        parameters
            .set(names::LOG_FILE_SIZE, "128M", SPFILE)
            .unwrap();
        parameters
            .set(names::NLS_DATE_FORMAT, "YYYY # MM", SPFILE)
            .unwrap();
        parameters
            .set(names::DIAGNOSTIC_DEST, "/var/tmp", MEMORY)
            .unwrap();
        parameters
            .set(names::SPIN_COUNT, "1", SetScope::CommandLine)
            .unwrap();
        parameters.write_file(&file.0).unwrap();
        let written = std::fs::read_to_string(&file.0).unwrap();
        let lines: Vec<&str> = written
            .lines()
            .filter(|line| !line.starts_with('#'))
            .collect();
        assert_eq!(
            lines,
            [
                "db_name = FILEDB",
                "db_cache_size = 1073741824",
                "log_file_size = 134217728",
                "processes = 50",
                "nls_date_format = \"YYYY # MM\"",
            ]
        );
        let reread = Parameters::load_file(&file.0).unwrap();
        assert_eq!(reread.get_bytes(names::LOG_FILE_SIZE), 128 << 20);
        assert_eq!(reread.get_string(names::NLS_DATE_FORMAT), "YYYY # MM");
        assert!(reread.is_default(names::DIAGNOSTIC_DEST) && reread.is_default(names::SPIN_COUNT));

        let directory = std::env::temp_dir().join("pythia-parameters-no-such-directory/init.ora");
        assert_eq!(error_of(parameters.write_file(&directory)).code(), 1115);
    }

    // Never panic, whatever the input.

    fn any_name() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(
                DEFINITIONS
                    .iter()
                    .map(|definition| definition.name)
                    .collect::<Vec<_>>()
            )
            .prop_map(String::from),
            any::<String>(),
            "[ \"_A-Za-z]{0,24}",
        ]
    }

    fn any_value_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[-+0-9KMGTkmgt]{0,12}",
            "[ '\"#,()a-zA-Z0-9_]{0,16}",
            proptest::sample::select(vec![
                "TRUE", "false", "64M", "8192", "EXACT", "''", "\"\"", "'", ""
            ])
            .prop_map(String::from),
        ]
    }

    fn any_scope() -> impl Strategy<Value = SetScope> {
        proptest::sample::select(vec![
            SetScope::InitFile,
            SetScope::CommandLine,
            MEMORY,
            SPFILE,
            BOTH,
            SetScope::AlterSession,
        ])
    }

    proptest! {
        #[test]
        fn set_never_panics_and_fails_without_changes(
            name in any_name(),
            text in any_value_text(),
            scope in any_scope(),
        ) {
            let mut parameters = Parameters::defaults();
            let before = parameters.clone();
            match parameters.set(&name, &text, scope) {
                Ok(()) => {
                    // Whatever was accepted reads back from the file it is written to.
                    let reread = Parameters::parse(&parameters.to_file_text()).unwrap();
                    let expected = match scope {
                        SetScope::InitFile | SPFILE | BOTH => {
                            let mut file = before.clone();
                            file.set(&name, &text, SetScope::InitFile).unwrap();
                            file.get_string(&name)
                        }
                        _ => before.get_string(&name),
                    };
                    prop_assert_eq!(reread.get_string(&name), expected);
                    let _ = parameters.rows();
                }
                Err(error) => {
                    let codes = [96, 1078, 2065, 2095, 2096, 2248];
                    prop_assert!(codes.contains(&error.code()), "{}", error);
                    prop_assert_eq!(parameters, before);
                }
            }
        }

        #[test]
        fn parse_never_panics(
            lines in proptest::collection::vec(
                (any_name(), "[ \t]{0,2}=?[ \t]{0,2}", any_value_text()),
                0..8,
            ),
            noise in any::<String>(),
        ) {
            let mut text: String = lines
                .iter()
                .map(|(name, equals, value)| format!("{name}{equals}{value}\n"))
                .collect();
            let _ = Parameters::parse(&text);
            text.push_str(&noise);
            let _ = Parameters::parse(&text);
        }

        #[test]
        fn what_parse_reads_writes_back(
            lines in proptest::collection::vec((any_name(), any_value_text()), 0..24),
        ) {
            // Keep the lines that parse, so that the file is rich in accepted values.
            let mut text = String::new();
            for (name, value) in lines {
                let line = format!("{name} = {value}\n");
                if Parameters::parse(&format!("{text}{line}")).is_ok() {
                    text.push_str(&line);
                }
            }
            let parameters = Parameters::parse(&text).unwrap();
            let reread = Parameters::parse(&parameters.to_file_text()).unwrap();
            prop_assert_eq!(reread, parameters);
        }

        #[test]
        fn load_file_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let file = TemporaryFile::new(&bytes);
            let _ = Parameters::load_file(&file.0);
        }
    }
}
