//! Instrumentation: wait events, latches and mutexes, statistics and the time model: what the
//! v$ views show.
//!
//! # How code uses it
//!
//! ```ignore
//! use crate::instrumentation::{self, Statistic, WaitEvent, Latch, LatchName};
//!
//! // A thread that works for a session enters it (once per call, or for its whole life).
//! let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "sqlplus")?;
//! let _entered = instrumentation::enter(&session);
//! let _call = instrumentation::user_call();            // DB time, DB CPU, user calls
//!
//! // Deep code counts and waits without a context argument.
//! instrumentation::add(Statistic::ConsistentGets, 1);
//! let _read = instrumentation::wait(WaitEvent::DbFileSequentialRead, file, block, 1);
//!
//! // Shared structures are guarded by instrumented latches and mutexes.
//! let chain = Latch::new(LatchName::CacheBuffersChains, Vec::new());
//! chain.lock().push(buffer);
//! ```
//!
//! # Design
//!
//! ```text
//!   thread ──enter()──> thread-local current session ──> SessionInstrumentation
//!     add(stat, n)          │                              counters: statistics, events
//!     wait(event, p1..p3)   │ none current                 (+ histograms), time model,
//!     user_call()           v                              current wait, identity
//!                       UNATTRIBUTED counters                      │ dropped
//!                                                                  v
//!   v$sysstat = departed + unattributed + Σ live sessions <── departed counters
//! ```
//!
//! **Per-session counters.** Each session has its own block of counters, written only by the
//! thread that has entered it. An increment is then a Relaxed load and store: no lock prefix,
//! and no cache line bouncing between CPUs as one shared counter per statistic would cause
//! under load. Readers on other threads (the views) read Relaxed and see recent values; the
//! views sum sessions when asked, which is rare next to counting.
//!
//! **Departed accumulator.** When a session ends, its cumulative counts are added to a
//! departed-sessions accumulator in the same registry write lock that removes the session, so
//! a reader sees the counts exactly once and system totals never go backwards (AWR deltas
//! between snapshots stay non-negative). Current values (`logons current`, `opened cursors
//! current`) are not folded: they leave with their session. Work done on a thread with no
//! session (startup, tests) counts into a process-wide unattributed accumulator with atomic
//! read-modify-writes; it is part of every system total.
//!
//! **Waits.** `wait(event, p1, p2, p3)` returns a guard that publishes the wait in the
//! session's v$session_wait slot and, when dropped, records the elapsed microseconds (a
//! monotonic clock) into the event's count, time, maximum and histogram. Histogram bucket k
//! counts waits with `2^(k-1) <= µs < 2^k` (bucket 0: under a microsecond; k up to 32), as in
//! v$event_histogram_micro. Idle events (`SQL*Net message from client`, `rdbms ipc message`)
//! are recorded like the others but left out of DB time.
//!
//! **Latches** (`latch`): a get tries once (`gets`), on failure counts a miss and spins a
//! bounded number of attempts (`spin_gets` if one succeeds), then sleeps in a wait for the
//! latch's event (`sleeps`, `wait_time`); `misses == spin_gets + sleeps`. Each latch carries
//! its own counters on its own cache line; families of children by name make v$latch.
//!
//! **Enqueues** (`enqueue`): locks held for a whole operation (DDL, a sequence refill, a
//! control file update). No spinning: a waiter sleeps in a timed wait on the enqueue's
//! event (`enq: SQ - contention`, ...), counted in `enqueue requests`, `enqueue waits` and
//! `enqueue releases`.
//!
//! **Mutexes** (`mutex`): library cache mutexes with shared and exclusive gets on one atomic
//! word laid out as Oracle's, spin then yield/sleep, with sleeps recorded per (mutex type,
//! location) for v$mutex_sleep and per (mutex, session) for v$mutex_sleep_history.
//!
//! **Time model** (`time_model`): `user_call()` measures a call's elapsed time (less idle
//! waits) and thread CPU time once per outermost call; `timed(statistic)` measures sections
//! such as parses and executions.
//!
//! Failure: nothing here fails except creating a session beyond `sessions_max` (ORA-00018).
//! Counting never allocates; sizes are fixed by the enums and bounded limits.

mod accounting;
mod enqueue;
mod events;
pub mod heap;
pub mod interrupt;
mod latch;
mod mutex;
mod session;
mod snapshot;
mod stats;
pub mod striped;
mod time_model;

pub use accounting::histogram_bucket;
pub use enqueue::{Enqueue, EnqueueGuard};
pub use events::{
    enqueue_name_and_mode, record_wait, wait, CompletedWait, WaitClass, WaitEvent, WaitGuard,
    WaitListener, WaitState, HISTOGRAM_BUCKETS, SHORT_WAIT_MICROS_MAX,
};
pub use latch::{
    Latch, LatchChildStatistics, LatchGuard, LatchName, LatchReadGuard, LatchStatistics,
    LatchWriteGuard, RwLatch, LATCH_SPIN_ATTEMPTS_MAX,
};
pub use mutex::{
    KglMutex, KglMutexExclusiveGuard, KglMutexSharedGuard, MutexMode, MutexSleepHistoryRow,
    MutexSleepRow, MutexType, MUTEX_SLEEP_HISTORY_ROWS_MAX, MUTEX_SLEEP_MICROS_MAX,
    MUTEX_SLEEP_MICROS_MIN, MUTEX_SPIN_ATTEMPTS_MAX, MUTEX_YIELDS_BEFORE_SLEEP,
};
pub use session::{
    add, background_session, current, current_sid, enter, registry, subtract, EnterGuard,
    EventTotals, SessionInstrumentation, SessionRegistry, SessionStatus, SessionType,
    SESSIONS_MAX_DEFAULT, SQL_ID_BYTES_MAX,
};
pub use snapshot::{
    event_histograms, latch_children, latches, mutex_sleep_history, mutex_sleeps, session_events,
    session_statistics, session_time_model, session_waits, sessions, system_event,
    system_event_totals, system_events, system_statistic, system_statistics, system_time_model,
    EventHistogramRow, EventRow, LatchRow, SessionEventRow, SessionRow, SessionStatisticRow,
    SessionTimeModelRow, SessionWaitRow, StatisticRow, TimeModelRow,
};
pub use stats::{Statistic, StatisticClass};
pub use time_model::{
    now_micros, thread_cpu_micros, timed, user_call, TimeModelStatistic, TimedSection, UserCall,
};
