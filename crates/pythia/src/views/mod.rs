//! Fixed views: Oracle's v$ views, built on demand as tables of values from the
//! instrumentation's snapshots and the querying session's parameters.
//!
//! A fixed view is not stored anywhere. When a query names one, the SQL executor calls
//! [`fixed_table`] with the view's name and a [`ViewContext`] (the querying session's sid and
//! parameters); the view reads what it shows at that moment and returns a [`FixedTable`]:
//! Oracle's column names and types, and rows of [`Value`]s. The executor then filters, joins
//! and sorts it like any other row source.
//!
//! ```text
//!   SELECT ... FROM v$sysstat ...
//!        |
//!        v  fixed_table("V$SYSSTAT", context)          registry: name -> columns + row builder
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
//!   registry.rs    the list of views, lookup by name, v$fixed_table
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
mod events;
mod latches;
mod library_cache;
mod redo;
mod registry;
mod sessions;
mod statistics;
mod table;

use std::sync::Arc;

use crate::buffer::BufferCache;
use crate::library_cache::LibraryCache;
use crate::parameters::ParameterRow;
use crate::redo::archive::Archiver;
use crate::redo::log::RedoLog;
use crate::types::{DataType, Value};

pub use registry::{fixed_table, fixed_table_names};

/// A fixed view's content at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedTable {
    /// Oracle's column names, upper case, with their types.
    pub columns: Vec<(String, DataType)>,
    pub rows: Vec<Vec<Value>>,
}

/// What the views need from the caller.
#[derive(Clone)]
pub struct ViewContext {
    /// The querying session's sid (v$mystat shows this session's rows).
    pub sid: u32,
    /// The querying session's parameters as v$parameter shows them (`Parameters::visible_rows()`).
    pub parameters: Vec<ParameterRow>,
    /// The querying session's instance's library cache (v$sql, v$librarycache, ...); None
    /// where there is no instance, as in unit tests: those views then have no rows.
    pub library_cache: Option<Arc<LibraryCache>>,
    /// The querying session's instance's buffer cache (v$buffer_pool, x$bh, ...); None where
    /// there is no instance.
    pub buffer_cache: Option<Arc<BufferCache>>,
    /// The querying session's instance's redo log (v$log, v$logfile); None where there is
    /// no instance.
    pub redo_log: Option<Arc<RedoLog>>,
    /// The querying session's instance's ARC0 state (v$archived_log); None where there is no
    /// instance.
    pub archiver: Option<Arc<Archiver>>,
}

impl std::fmt::Debug for ViewContext {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ViewContext")
            .field("sid", &self.sid)
            .field("parameters", &self.parameters)
            .field("library_cache", &self.library_cache.is_some())
            .field("buffer_cache", &self.buffer_cache.is_some())
            .field("redo_log", &self.redo_log.is_some())
            .field("archiver", &self.archiver.is_some())
            .finish()
    }
}
