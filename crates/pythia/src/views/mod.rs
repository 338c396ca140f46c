//! Views: every name a query reads as a view, through one registry (`registry.rs`): Oracle's
//! fixed v$ views and x$ tables built on demand from the instrumentation's snapshots and the
//! instance's structures; DUAL and the dba_ / user_ / all_ views over one version of the
//! dictionary (`dictionary.rs`, `users.rs`); and PostgreSQL's pg_catalog for its clients
//! (`pg_catalog.rs`). The session resolves a name that is not a table with
//! [`resolve`] and a [`ViewContext`] built by [`ViewContext::of`]; PLAN_TABLE is not a view
//! but the session's private table (Oracle's is a global temporary table).
//!
//! Adding a view: write its rows function in the file of its kind and add one line to that
//! file's `VIEWS` table; the registry's tests then read it and check every row against its
//! columns.
//!
//! No view is stored anywhere. When a query names one, the session calls [`resolve`] with
//! the view's name and a [`ViewContext`] (the querying session's sid, parameters and
//! dictionary version, its instance's structures); the view reads what it shows at that
//! moment: a fixed view through [`FixedTable`] (Oracle's column names and types, checked
//! rows of [`Value`]s), the others as rows with their columns. The executor then filters,
//! joins and sorts it like any other row source.
//!
//! ```text
//!   SELECT ... FROM v$sysstat ...
//!        |
//!        v  resolve("V$SYSSTAT", context)              registry: name -> kind + row builder
//!   statistics.rs  v$statname v$sysstat v$sesstat v$mystat v$sys_time_model v$sess_time_model
//!   events.rs      v$event_name v$system_event v$session_event v$session_wait
//!                  v$event_histogram v$event_histogram_micro
//!   sessions.rs    v$session v$parameter
//!   latches.rs     v$latchname v$latch v$latch_children v$mutex_sleep v$mutex_sleep_history
//!   library_cache.rs v$librarycache v$sql v$sqlarea v$sqltext v$sql_shared_cursor
//!                  v$open_cursor v$sgastat v$db_object_cache x$kghlu
//!   buffer_cache.rs v$buffer_pool v$buffer_pool_statistics x$kcbwds x$bh v$bh
//!                  v$db_cache_advice
//!   redo.rs        v$log v$logfile v$archived_log
//!   registry.rs    the one table of views of every kind, lookup by name, v$fixed_table
//!   dictionary.rs  DUAL, dba_tables ... (and user_, all_ twins)   users.rs  dba_users ...
//!   pg_catalog.rs  pg_class, pg_attribute, ... and the oid helpers PostgreSQL functions use
//!        |
//!        v  crate::instrumentation::{system_statistics, session_events, latches, ...}
//!   per-session counters, departed and unattributed accumulators, latch families, mutex table
//!        and the instance's library cache, buffer cache, redo log and archiver (ViewContext)
//! ```
//!
//! # Where the numbers come from
//!
//! Everything but v$parameter and the library cache views comes from
//! `crate::instrumentation`, which is process-global:
//! every instance in the process, and every test, counts into the same registry of sessions.
//! System-wide views (v$sysstat, v$system_event, v$event_histogram, v$sys_time_model) show
//! `departed + unattributed + the sum over live sessions`; per-session views (v$sesstat,
//! v$session_event, v$sess_time_model) show the live sessions only, as Oracle does.
//! v$parameter shows `ViewContext::parameters`, the querying session's own copy (so
//! `ALTER SESSION` shows there), as `Parameters::visible_rows()` gives it. The library cache
//! views (library_cache.rs) read the querying session's instance's library cache, which is
//! per instance; without one (`ViewContext::library_cache` None) they have no rows.
//!
//! # How consistent a read is
//!
//! Counters are read without stopping the sessions that write them: each counter is an atomic
//! read with Relaxed ordering, so a view shows every counter at some recent value, not all of
//! them at one instant. Within one system-wide view the sum over sessions is taken under the
//! session registry's read lock, so a session that ends during the read is counted once,
//! either live or departed, and a cumulative value never goes backwards between two reads.
//! Views that list every session (v$sesstat, v$session_event, v$sess_time_model) read the
//! sessions one after the other: a session that logs on or off meanwhile may be missing, and
//! two sessions' rows are not from the same instant. Rates and deltas are therefore taken
//! between two reads of the same view, as AWR and every DBA script do.
//!
//! # Units and types
//!
//! The instrumentation keeps microseconds; the views show Oracle's units: TIME_WAITED,
//! AVERAGE_WAIT and MAX_WAIT in centiseconds (rounded, AVERAGE_WAIT to two decimals, as
//! Oracle's own view definitions round them), *_MICRO columns and latch and mutex WAIT_TIME
//! in microseconds. Numbers are `NUMBER` values, text is `VARCHAR2(n)` (cut to `n` bytes if a
//! value is longer, as Oracle's fixed-width columns cut it), Oracle's `RAW` addresses are
//! shown as their hexadecimal text in a `VARCHAR2(16)`, times of day are DATE and TIMESTAMP
//! values in the server's local time (as SYSDATE is), and a column Oracle leaves empty is
//! NULL. Every value of a row has its column's type: `table::build` asserts it as it
//! assembles each view, and the registry's tests read every view to check it.
//!
//! Failure: none. An unknown name is `None`, for the executor to raise ORA-00942; a session
//! that is gone shows no rows.

mod buffer_cache;
mod dictionary;
mod events;
mod latches;
mod library_cache;
pub mod pg_catalog;
mod programs;
mod redo;
mod registry;
mod sessions;
mod statistics;
mod table;
mod users;

use std::sync::{Arc, OnceLock};

use crate::buffer::BufferCache;
use crate::catalog::Dictionary;
use crate::error::{Error, Result};
use crate::instance::Instance;
use crate::library_cache::LibraryCache;
use crate::parameters::Parameters;
use crate::redo::archive::Archiver;
use crate::redo::log::RedoLog;
use crate::types::{DataType, Value};

pub use registry::{fixed_table, fixed_table_names, resolve, view_names, ViewKind};

/// A fixed view's content at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedTable {
    /// Oracle's column names, upper case, with their types.
    pub columns: Vec<(String, DataType)>,
    pub rows: Vec<Vec<Value>>,
}

/// What the views need from the querying session: built in one place, [`ViewContext::of`],
/// for a session on an instance, and [`ViewContext::detached`] where there is none (tests,
/// tools), whose instance views then have no rows.
#[derive(Clone)]
pub struct ViewContext<'a> {
    /// The querying session's sid (v$mystat shows this session's rows).
    pub sid: u32,
    /// The querying session's parameters (v$parameter shows `visible_rows()` of them).
    pub parameters: &'a Parameters,
    /// The dictionary version the querying statement reads (the dba_ and pg_catalog views).
    pub dictionary: &'a Dictionary,
    /// The querying session's instance's library cache (v$sql, v$librarycache, ...); None
    /// where there is no instance: those views then have no rows.
    pub library_cache: Option<Arc<LibraryCache>>,
    /// The instance's buffer cache (v$buffer_pool, x$bh, dba_segments, ...).
    pub buffer_cache: Option<Arc<BufferCache>>,
    /// The instance's redo log (v$log, v$logfile).
    pub redo_log: Option<Arc<RedoLog>>,
    /// The instance's ARC0 state (v$archived_log).
    pub archiver: Option<Arc<Archiver>>,
    /// What PL/SQL, a layer above, reads of a unit's source for dba_procedures and
    /// dba_arguments (the session gives it; None: those views have no rows).
    pub programs: Option<&'a dyn ProgramDescriber>,
}

/// A unit's subprograms and their parameters, read from its source by PL/SQL (which lies
/// above the views): what dba_procedures and dba_arguments show.
pub trait ProgramDescriber {
    /// `program`'s rows; `dictionary` resolves what its parameters' types name.
    fn subprograms(
        &self,
        program: &crate::catalog::ProgramDef,
        dictionary: &Dictionary,
    ) -> Vec<SubprogramInfo>;
}

/// One row of dba_procedures, with its dba_arguments rows.
#[derive(Clone, Debug, PartialEq)]
pub struct SubprogramInfo {
    /// PROCEDURE_NAME: a package's subprogram; None for the unit itself.
    pub name: Option<String>,
    /// SUBPROGRAM_ID: 0 for a package itself, 1 for a standalone unit, 1.. in order for a
    /// package's subprograms.
    pub id: u32,
    /// OVERLOAD: the n-th of a package's subprograms of this name, when there are several.
    pub overload: Option<u32>,
    /// OBJECT_TYPE: PROCEDURE, FUNCTION or PACKAGE.
    pub object_type: &'static str,
    pub deterministic: bool,
    pub current_user: bool,
    pub arguments: Vec<ArgumentInfo>,
}

/// One row of dba_arguments: a parameter, or a function's result (no name, position 0).
#[derive(Clone, Debug, PartialEq)]
pub struct ArgumentInfo {
    pub name: Option<String>,
    pub position: u32,
    /// DATA_TYPE as Oracle names it (NUMBER, VARCHAR2, PL/SQL BOOLEAN, ...); None where the
    /// type is a name only a compilation resolves.
    pub data_type: Option<String>,
    /// PLS_TYPE: the PL/SQL type written, where it differs from the SQL one.
    pub pls_type: Option<String>,
    /// IN, OUT or IN/OUT.
    pub in_out: &'static str,
    pub defaulted: bool,
}

impl<'a> ViewContext<'a> {
    /// The context of session `sid` of `instance`, with its parameters, reading `dictionary`.
    pub fn of(
        instance: &Instance,
        sid: u32,
        parameters: &'a Parameters,
        dictionary: &'a Dictionary,
    ) -> ViewContext<'a> {
        ViewContext {
            sid,
            parameters,
            dictionary,
            library_cache: Some(instance.library_cache().clone()),
            buffer_cache: Some(instance.cache().clone()),
            redo_log: Some(instance.log().clone()),
            archiver: Some(instance.archiver().clone()),
            programs: None,
        }
    }

    /// A context with no instance: the default parameters, an empty dictionary.
    pub fn detached(sid: u32) -> ViewContext<'static> {
        static PARAMETERS: OnceLock<Parameters> = OnceLock::new();
        static DICTIONARY: OnceLock<Dictionary> = OnceLock::new();
        ViewContext {
            sid,
            parameters: PARAMETERS.get_or_init(Parameters::defaults),
            dictionary: DICTIONARY.get_or_init(Dictionary::default),
            library_cache: None,
            buffer_cache: None,
            redo_log: None,
            archiver: None,
            programs: None,
        }
    }

    /// The buffer cache, which a view over segments reads (ORA-00600 without an instance).
    pub(crate) fn cache(&self) -> Result<&BufferCache> {
        self.buffer_cache
            .as_deref()
            .ok_or_else(|| Error::internal("a view of segments read without an instance"))
    }
}

impl std::fmt::Debug for ViewContext<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ViewContext")
            .field("sid", &self.sid)
            .field("library_cache", &self.library_cache.is_some())
            .field("buffer_cache", &self.buffer_cache.is_some())
            .field("redo_log", &self.redo_log.is_some())
            .field("archiver", &self.archiver.is_some())
            .finish()
    }
}
