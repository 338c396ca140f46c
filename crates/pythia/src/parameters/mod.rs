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

mod definitions;
mod file;
mod settings;
mod values;

pub use definitions::{
    definition, names, DefaultValue, Definition, Kind, SystemModifiable, DEFINITIONS,
    INIT_FILE_BYTES_MAX, KGL_BUCKET_COUNTS, VALUE_BYTES_MAX,
};
pub use settings::{AlterSystemScope, ParameterRow, Parameters, SetScope, Source, Value};
pub use values::unknown_parameter;

#[cfg(test)]
mod tests;
