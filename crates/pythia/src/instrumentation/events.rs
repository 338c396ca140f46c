//! Wait events: v$event_name, v$system_event, v$session_event, v$session_wait and
//! v$event_histogram_micro.
//!
//! A wait is a stretch of time in which a session cannot proceed until something else happens
//! (an I/O completes, LGWR posts, a latch is freed, a client sends the next call). Code that is
//! about to block says so:
//!
//! ```ignore
//! let wait = instrumentation::wait(WaitEvent::LogFileSync, buffer_number, sync_scn, 0);
//! lgwr.wait_until_written(scn);
//! drop(wait); // or let it fall out of scope
//! ```
//!
//! Life of one wait, on the session that is current on the thread:
//!
//! ```text
//!   wait(event, p1, p2, p3)           current wait := (event, p1..p3, WAITING, start)
//!        | ... blocked ...            v$session_wait shows WAITING with the time so far
//!   drop(guard)                       elapsed := now - start (monotonic clock, microseconds)
//!        |                            event: total_waits += 1, time_waited_micro += elapsed,
//!        |                                   max_wait_micro, histogram[bucket(elapsed)] += 1
//!        |                            class: idle time is kept apart and left out of DB time
//!        v                            current wait := (event, p1..p3, WAITED KNOWN TIME or
//!                                                      WAITED SHORT TIME, elapsed)
//! ```
//!
//! Histogram buckets are powers of two of microseconds, like v$event_histogram_micro: bucket k
//! counts waits with `2^(k-1) <= elapsed < 2^k` µs (bucket 0: under 1 µs), k in 0..=32; the last
//! bucket also takes the rare wait of more than 2^32 µs (71 minutes).
//!
//! The current wait is published through a sequence lock: the session's thread writes it
//! without taking a lock, and a reader on another thread retries until it has read a version
//! that no write overlapped, so it never sees the event of one wait with the parameters of
//! another. Waits may nest (a latch sleep inside another wait): both are recorded, and the
//! inner one's end puts the outer one back in v$session_wait.

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Arc;

use super::accounting::Writer;
use super::session::{SessionInstrumentation, Target, UNATTRIBUTED};
use super::time_model::now_micros;

/// Number of buckets in a wait histogram (v$event_histogram_micro's 2^0 .. 2^32 µs).
pub const HISTOGRAM_BUCKETS: usize = 33;

/// A wait of less than this is reported as `WAITED SHORT TIME` (Oracle: one centisecond).
pub const SHORT_WAIT_MICROS_MAX: u64 = 10_000;

/// Oracle's wait classes, with their `wait_class#` and `wait_class_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WaitClass {
    Other = 0,
    Application = 1,
    Configuration = 2,
    Administrative = 3,
    Concurrency = 4,
    Commit = 5,
    Idle = 6,
    Network = 7,
    UserIo = 8,
    SystemIo = 9,
    Scheduler = 10,
    Cluster = 11,
    Queueing = 12,
}

impl WaitClass {
    pub const COUNT: usize = 13;

    pub const ALL: [WaitClass; WaitClass::COUNT] = [
        WaitClass::Other,
        WaitClass::Application,
        WaitClass::Configuration,
        WaitClass::Administrative,
        WaitClass::Concurrency,
        WaitClass::Commit,
        WaitClass::Idle,
        WaitClass::Network,
        WaitClass::UserIo,
        WaitClass::SystemIo,
        WaitClass::Scheduler,
        WaitClass::Cluster,
        WaitClass::Queueing,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `wait_class#`.
    pub const fn number(self) -> u32 {
        self as u32
    }

    /// Oracle's exact name, as in v$event_name.wait_class.
    pub const fn name(self) -> &'static str {
        match self {
            WaitClass::Other => "Other",
            WaitClass::Application => "Application",
            WaitClass::Configuration => "Configuration",
            WaitClass::Administrative => "Administrative",
            WaitClass::Concurrency => "Concurrency",
            WaitClass::Commit => "Commit",
            WaitClass::Idle => "Idle",
            WaitClass::Network => "Network",
            WaitClass::UserIo => "User I/O",
            WaitClass::SystemIo => "System I/O",
            WaitClass::Scheduler => "Scheduler",
            WaitClass::Cluster => "Cluster",
            WaitClass::Queueing => "Queueing",
        }
    }

    /// Oracle's `wait_class_id`.
    pub const fn id(self) -> u32 {
        match self {
            WaitClass::Other => 1893977003,
            WaitClass::Application => 4217450380,
            WaitClass::Configuration => 3290255840,
            WaitClass::Administrative => 4166625743,
            WaitClass::Concurrency => 3875070507,
            WaitClass::Commit => 3386400367,
            WaitClass::Idle => 2723168908,
            WaitClass::Network => 2000153315,
            WaitClass::UserIo => 1740759767,
            WaitClass::SystemIo => 4108307767,
            WaitClass::Scheduler => 2396326234,
            WaitClass::Cluster => 3871361733,
            WaitClass::Queueing => 644977587,
        }
    }

    pub fn from_name(name: &str) -> Option<WaitClass> {
        WaitClass::ALL
            .iter()
            .copied()
            .find(|class| class.name() == name)
    }
}

/// Declares `WaitEvent` from rows of (variant, name, class, p1 name, p2 name, p3 name).
macro_rules! wait_events {
    ($($variant:ident = ($name:literal, $class:ident, $p1:literal, $p2:literal, $p3:literal),)*) => {
        /// A wait event of v$event_name. `event#` is the position in `WaitEvent::ALL`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum WaitEvent {
            $(
                #[doc = $name]
                $variant,
            )*
        }

        impl WaitEvent {
            /// Every event, in `event#` order; `ALL[e.index()] == e`.
            pub const ALL: [WaitEvent; WaitEvent::COUNT] = [$(WaitEvent::$variant,)*];

            pub const COUNT: usize = [$($name,)*].len();

            /// Oracle's exact name, as in v$event_name.name.
            pub const fn name(self) -> &'static str {
                match self {
                    $(WaitEvent::$variant => $name,)*
                }
            }

            pub const fn wait_class(self) -> WaitClass {
                match self {
                    $(WaitEvent::$variant => WaitClass::$class,)*
                }
            }

            /// The names of p1, p2 and p3 (v$event_name.parameter1..3); empty when unused.
            pub const fn parameter_names(self) -> [&'static str; 3] {
                match self {
                    $(WaitEvent::$variant => [$p1, $p2, $p3],)*
                }
            }
        }
    };
}

wait_events! {
    // User I/O
    DbFileSequentialRead = ("db file sequential read", UserIo, "file#", "block#", "blocks"),
    DbFileScatteredRead = ("db file scattered read", UserIo, "file#", "block#", "blocks"),
    DbFileParallelRead = ("db file parallel read", UserIo, "files", "blocks", "requests"),
    DbFileSingleWrite = ("db file single write", UserIo, "file#", "block#", "blocks"),
    DirectPathRead = ("direct path read", UserIo, "file number", "first dba", "block cnt"),
    DirectPathReadTemp = ("direct path read temp", UserIo, "file number", "first dba", "block cnt"),
    DirectPathWrite = ("direct path write", UserIo, "file number", "first dba", "block cnt"),
    DirectPathWriteTemp = ("direct path write temp", UserIo, "file number", "first dba", "block cnt"),
    ReadByOtherSession = ("read by other session", UserIo, "file#", "block#", "class#"),
    // System I/O
    DbFileParallelWrite = ("db file parallel write", SystemIo, "requests", "interrupt", "timeout"),
    ControlFileSequentialRead = ("control file sequential read", SystemIo, "file#", "block#", "blocks"),
    ControlFileParallelWrite = ("control file parallel write", SystemIo, "files", "block#", "requests"),
    LogFileParallelWrite = ("log file parallel write", SystemIo, "files", "blocks", "requests"),
    LogFileSequentialRead = ("log file sequential read", SystemIo, "log#", "block#", "blocks"),
    LogFileSingleWrite = ("log file single write", SystemIo, "log#", "block#", "blocks"),
    LogArchiveIo = ("Log archive I/O", SystemIo, "count", "intr", "timeout"),
    // Commit
    LogFileSync = ("log file sync", Commit, "buffer#", "sync scn", ""),
    // Configuration
    LogFileSwitchCompletion = ("log file switch completion", Configuration, "", "", ""),
    LogFileSwitchCheckpointIncomplete = ("log file switch (checkpoint incomplete)", Configuration, "", "", ""),
    LogFileSwitchArchivingNeeded = ("log file switch (archiving needed)", Configuration, "", "", ""),
    LogFileSwitchPrivateStrandFlushIncomplete = ("log file switch (private strand flush incomplete)", Configuration, "", "", ""),
    LogBufferSpace = ("log buffer space", Configuration, "", "", ""),
    FreeBufferWaits = ("free buffer waits", Configuration, "file#", "block#", "set-id#"),
    WriteCompleteWaits = ("write complete waits", Configuration, "file#", "block#", ""),
    CheckpointCompleted = ("checkpoint completed", Configuration, "", "", ""),
    EnqueueSqContention = ("enq: SQ - contention", Configuration, "name|mode", "object #", "0"),
    EnqueueTxAllocateItlEntry = ("enq: TX - allocate ITL entry", Configuration, "name|mode", "usn<<16 | slot", "sequence"),
    EnqueueHwContention = ("enq: HW - contention", Configuration, "name|mode", "table space #", "block"),
    LatchRedoWriting = ("latch: redo writing", Configuration, "address", "number", "tries"),
    LatchRedoCopy = ("latch: redo copy", Configuration, "address", "number", "tries"),
    // Concurrency
    BufferBusyWaits = ("buffer busy waits", Concurrency, "file#", "block#", "class#"),
    EnqueueTxIndexContention = ("enq: TX - index contention", Concurrency, "name|mode", "usn<<16 | slot", "sequence"),
    LatchCacheBuffersChains = ("latch: cache buffers chains", Concurrency, "address", "number", "tries"),
    LatchSharedPool = ("latch: shared pool", Concurrency, "address", "number", "tries"),
    LatchLibraryCache = ("latch: library cache", Concurrency, "address", "number", "tries"),
    LatchRowCacheObjects = ("latch: row cache objects", Concurrency, "address", "number", "tries"),
    LatchInMemoryUndoLatch = ("latch: In memory undo latch", Concurrency, "address", "number", "tries"),
    LibraryCacheMutexX = ("library cache: mutex X", Concurrency, "idn", "value", "where"),
    LibraryCacheMutexS = ("library cache: mutex S", Concurrency, "idn", "value", "where"),
    CursorPinS = ("cursor: pin S", Concurrency, "idn", "value", "where"),
    CursorPinSWaitOnX = ("cursor: pin S wait on X", Concurrency, "idn", "value", "where"),
    CursorPinX = ("cursor: pin X", Concurrency, "idn", "value", "where"),
    CursorMutexX = ("cursor: mutex X", Concurrency, "idn", "value", "where"),
    CursorMutexS = ("cursor: mutex S", Concurrency, "idn", "value", "where"),
    RowCacheLock = ("row cache lock", Concurrency, "cache id", "mode", "request"),
    LibraryCacheLock = ("library cache lock", Concurrency, "handle address", "lock address", "100*mode+namespace"),
    LibraryCachePin = ("library cache pin", Concurrency, "handle address", "pin address", "100*mode+namespace"),
    LibraryCacheLoadLock = ("library cache load lock", Concurrency, "object address", "lock address", "100*mask+namespace"),
    // Application
    EnqueueTxRowLockContention = ("enq: TX - row lock contention", Application, "name|mode", "usn<<16 | slot", "sequence"),
    EnqueueTmContention = ("enq: TM - contention", Application, "name|mode", "object #", "table/partition"),
    SqlNetBreakResetToClient = ("SQL*Net break/reset to client", Application, "driver id", "break?", ""),
    // Other
    LatchFree = ("latch free", Other, "address", "number", "tries"),
    LatchCacheBuffersLruChain = ("latch: cache buffers lru chain", Other, "address", "number", "tries"),
    LatchCheckpointQueueLatch = ("latch: checkpoint queue latch", Other, "address", "number", "tries"),
    LatchRedoAllocation = ("latch: redo allocation", Other, "address", "number", "tries"),
    LatchUndoGlobalData = ("latch: undo global data", Other, "address", "number", "tries"),
    LatchEnqueueHashChains = ("latch: enqueue hash chains", Other, "address", "number", "tries"),
    LatchMessages = ("latch: messages", Other, "address", "number", "tries"),
    LatchObjectQueueHeaderOperation = ("latch: object queue header operation", Other, "address", "number", "tries"),
    LgwrWaitForRedoCopy = ("LGWR wait for redo copy", Other, "copy latch #", "", ""),
    EnqueueTxContention = ("enq: TX - contention", Other, "name|mode", "usn<<16 | slot", "sequence"),
    EnqueueCfContention = ("enq: CF - contention", Other, "name|mode", "0", "operation"),
    RdbmsIpcReply = ("rdbms ipc reply", Other, "from_process", "timeout", ""),
    // Network
    SqlNetMessageToClient = ("SQL*Net message to client", Network, "driver id", "#bytes", ""),
    SqlNetMoreDataToClient = ("SQL*Net more data to client", Network, "driver id", "#bytes", ""),
    SqlNetMoreDataFromClient = ("SQL*Net more data from client", Network, "driver id", "#bytes", ""),
    // Idle
    SqlNetMessageFromClient = ("SQL*Net message from client", Idle, "driver id", "#bytes", ""),
    RdbmsIpcMessage = ("rdbms ipc message", Idle, "timeout", "", ""),
    PmonTimer = ("pmon timer", Idle, "duration", "", ""),
    SmonTimer = ("smon timer", Idle, "sleep time", "failed", ""),
    PlsqlLockTimer = ("PL/SQL lock timer", Idle, "duration", "", ""),
    JobqSlaveWait = ("jobq slave wait", Idle, "", "", ""),
}

impl WaitEvent {
    /// The slot of this event's counters in every accumulator.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `event#`.
    pub const fn number(self) -> u32 {
        self as u32
    }

    /// Idle events (waiting for work) are left out of DB time and of the non-idle statistics.
    pub const fn is_idle(self) -> bool {
        matches!(self.wait_class(), WaitClass::Idle)
    }

    /// The event with Oracle's exact name, if Pythia has it.
    pub fn from_name(name: &str) -> Option<WaitEvent> {
        WaitEvent::ALL
            .iter()
            .copied()
            .find(|event| event.name() == name)
    }
}

/// p1 of the `enq: ...` events: the two-letter lock type in the top bytes and the requested
/// mode in the low bits (`'TX' << 16 | 6` for a TX lock requested in exclusive mode).
pub const fn enqueue_name_and_mode(lock_type: [u8; 2], mode: u32) -> u64 {
    ((lock_type[0] as u64) << 24) | ((lock_type[1] as u64) << 16) | mode as u64
}

/// The state column of v$session_wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitState {
    /// The session is waiting now.
    Waiting,
    /// The session is not waiting; its last wait took less than a centisecond.
    WaitedShortTime,
    /// The session is not waiting; its last wait took the time in `wait_time_micro`.
    WaitedKnownTime,
}

impl WaitState {
    pub const fn name(self) -> &'static str {
        match self {
            WaitState::Waiting => "WAITING",
            WaitState::WaitedShortTime => "WAITED SHORT TIME",
            WaitState::WaitedKnownTime => "WAITED KNOWN TIME",
        }
    }
}

/// A session's current (or last) wait, as read from its `CurrentWaitSlot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CurrentWait {
    /// None until the session's first wait.
    pub(crate) event: Option<WaitEvent>,
    pub(crate) p1: u64,
    pub(crate) p2: u64,
    pub(crate) p3: u64,
    pub(crate) waiting: bool,
    pub(crate) start_micros: u64,
    /// Duration of the last completed wait (meaningless while `waiting`).
    pub(crate) duration_micros: u64,
    /// When the last completed wait ended.
    pub(crate) end_micros: u64,
    /// v$session_wait.seq#: incremented by every wait.
    pub(crate) sequence_number: u64,
}

impl CurrentWait {
    pub(crate) const NONE: CurrentWait = CurrentWait {
        event: None,
        p1: 0,
        p2: 0,
        p3: 0,
        waiting: false,
        start_micros: 0,
        duration_micros: 0,
        end_micros: 0,
        sequence_number: 0,
    };

    /// The slot's content after `completed` ended, when no outer wait is in progress.
    fn ended(completed: &CompletedWait, sequence_number: u64) -> CurrentWait {
        CurrentWait {
            event: Some(completed.event),
            p1: completed.p1,
            p2: completed.p2,
            p3: completed.p3,
            waiting: false,
            start_micros: completed
                .end_micros
                .saturating_sub(completed.elapsed_micros),
            duration_micros: completed.elapsed_micros,
            end_micros: completed.end_micros,
            sequence_number,
        }
    }

    pub(crate) fn state(&self) -> WaitState {
        if self.waiting {
            WaitState::Waiting
        } else if self.duration_micros < SHORT_WAIT_MICROS_MAX {
            WaitState::WaitedShortTime
        } else {
            WaitState::WaitedKnownTime
        }
    }
}

const NO_EVENT: u64 = u64::MAX;

/// The sequence-locked slot holding a session's current wait. See the module documentation.
pub(crate) struct CurrentWaitSlot {
    /// Odd while a write is in progress.
    version: AtomicU64,
    event: AtomicU64,
    p1: AtomicU64,
    p2: AtomicU64,
    p3: AtomicU64,
    waiting: AtomicU64,
    start_micros: AtomicU64,
    duration_micros: AtomicU64,
    end_micros: AtomicU64,
    sequence_number: AtomicU64,
}

impl CurrentWaitSlot {
    pub(crate) const fn new() -> CurrentWaitSlot {
        CurrentWaitSlot {
            version: AtomicU64::new(0),
            event: AtomicU64::new(NO_EVENT),
            p1: AtomicU64::new(0),
            p2: AtomicU64::new(0),
            p3: AtomicU64::new(0),
            waiting: AtomicU64::new(0),
            start_micros: AtomicU64::new(0),
            duration_micros: AtomicU64::new(0),
            end_micros: AtomicU64::new(0),
            sequence_number: AtomicU64::new(0),
        }
    }

    /// Publishes `wait`. Called by the session's thread; `fetch_add` on the version keeps the
    /// slot readable (never stuck odd) even if the one-writer rule is broken.
    pub(crate) fn write(&self, wait: &CurrentWait) {
        self.version.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::Release);
        let relaxed = Ordering::Relaxed;
        self.event.store(
            wait.event.map_or(NO_EVENT, |event| event.index() as u64),
            relaxed,
        );
        self.p1.store(wait.p1, relaxed);
        self.p2.store(wait.p2, relaxed);
        self.p3.store(wait.p3, relaxed);
        self.waiting.store(wait.waiting as u64, relaxed);
        self.start_micros.store(wait.start_micros, relaxed);
        self.duration_micros.store(wait.duration_micros, relaxed);
        self.end_micros.store(wait.end_micros, relaxed);
        self.sequence_number.store(wait.sequence_number, relaxed);
        self.version.fetch_add(1, Ordering::Release);
    }

    /// Reads a version of the slot that no write overlapped.
    pub(crate) fn read(&self) -> CurrentWait {
        let mut attempts: u32 = 0;
        loop {
            let before = self.version.load(Ordering::Acquire);
            if before.is_multiple_of(2) {
                let relaxed = Ordering::Relaxed;
                let event_index = self.event.load(relaxed);
                let wait = CurrentWait {
                    event: WaitEvent::ALL.get(event_index as usize).copied(),
                    p1: self.p1.load(relaxed),
                    p2: self.p2.load(relaxed),
                    p3: self.p3.load(relaxed),
                    waiting: self.waiting.load(relaxed) != 0,
                    start_micros: self.start_micros.load(relaxed),
                    duration_micros: self.duration_micros.load(relaxed),
                    end_micros: self.end_micros.load(relaxed),
                    sequence_number: self.sequence_number.load(relaxed),
                };
                fence(Ordering::Acquire);
                if self.version.load(Ordering::Relaxed) == before {
                    return wait;
                }
            }
            // The writer is a handful of stores from done; let it run if it was preempted.
            attempts += 1;
            if attempts.is_multiple_of(64) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// Called after each of a session's waits ends (SQL trace writes its `WAIT #` lines from
/// here). It runs on the waiting thread, possibly while that thread holds the latch or mutex
/// it waited for: it must not take latches or mutexes itself.
pub type WaitListener = Arc<dyn Fn(&CompletedWait) + Send + Sync>;

/// A wait that has ended, as returned by `WaitGuard::finish` and given to a `WaitListener`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletedWait {
    pub event: WaitEvent,
    pub p1: u64,
    pub p2: u64,
    pub p3: u64,
    pub elapsed_micros: u64,
    /// When the wait ended, in microseconds of the instrumentation's monotonic clock.
    pub end_micros: u64,
    pub timed_out: bool,
}

/// Times one wait: created by `wait()`, records the wait when dropped or finished.
#[must_use = "a wait is timed until the guard is dropped"]
pub struct WaitGuard {
    target: Target,
    event: WaitEvent,
    p1: u64,
    p2: u64,
    p3: u64,
    start_micros: u64,
    timed_out: bool,
    /// The session's wait slot before this wait, put back if it was itself a wait in progress.
    previous: CurrentWait,
    finished: bool,
    /// Not `Send`: the wait is recorded into the session's counters by the thread that waits.
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Starts timing a wait for `event` on the current session (or the unattributed accumulator
/// if no session is current). See the module documentation.
pub fn wait(event: WaitEvent, p1: u64, p2: u64, p3: u64) -> WaitGuard {
    let target = Target::current();
    let start_micros = now_micros();
    let mut previous = CurrentWait::NONE;
    if let Target::Session(session) = &target {
        let slot = &session.record().current_wait;
        previous = slot.read();
        slot.write(&CurrentWait {
            event: Some(event),
            p1,
            p2,
            p3,
            waiting: true,
            start_micros,
            duration_micros: 0,
            end_micros: previous.end_micros,
            sequence_number: previous.sequence_number.wrapping_add(1),
        });
    }
    WaitGuard {
        target,
        event,
        p1,
        p2,
        p3,
        start_micros,
        timed_out: false,
        previous,
        finished: false,
        _not_send: std::marker::PhantomData,
    }
}

/// Records a wait whose duration was measured elsewhere (an asynchronous I/O completion, a
/// replayed trace). It does not appear in v$session_wait as in progress.
pub fn record_wait(
    event: WaitEvent,
    p1: u64,
    p2: u64,
    p3: u64,
    elapsed_micros: u64,
    timed_out: bool,
) {
    let end_micros = now_micros();
    let completed = CompletedWait {
        event,
        p1,
        p2,
        p3,
        elapsed_micros,
        end_micros,
        timed_out,
    };
    match Target::current() {
        Target::Session(session) => {
            let slot = &session.record().current_wait;
            let previous = slot.read();
            // Inside a wait in progress, that wait stays what v$session_wait shows.
            if !previous.waiting {
                let sequence_number = previous.sequence_number.wrapping_add(1);
                slot.write(&CurrentWait::ended(&completed, sequence_number));
            }
            finish_on_session(&session, &completed);
        }
        Target::Unattributed => {
            UNATTRIBUTED.record_wait(Writer::Shared, event, elapsed_micros, timed_out);
        }
    }
}

fn finish_on_session(session: &SessionInstrumentation, completed: &CompletedWait) {
    let record = session.record();
    record.counters.record_wait(
        Writer::Owner,
        completed.event,
        completed.elapsed_micros,
        completed.timed_out,
    );
    record.notify_wait_listener(completed);
}

impl WaitGuard {
    pub fn event(&self) -> WaitEvent {
        self.event
    }

    /// Marks the wait as ended by its timeout rather than by the event (v$system_event's
    /// total_timeouts): `rdbms ipc message` when nobody posted, `log file sync` polling.
    pub fn set_timed_out(&mut self) {
        self.timed_out = true;
    }

    /// Microseconds since the wait started.
    pub fn elapsed_micros(&self) -> u64 {
        now_micros().saturating_sub(self.start_micros)
    }

    /// Ends the wait now and returns what was recorded.
    pub fn finish(mut self) -> CompletedWait {
        self.complete()
    }

    fn complete(&mut self) -> CompletedWait {
        debug_assert!(!self.finished);
        self.finished = true;
        let end_micros = now_micros();
        let completed = CompletedWait {
            event: self.event,
            p1: self.p1,
            p2: self.p2,
            p3: self.p3,
            elapsed_micros: end_micros.saturating_sub(self.start_micros),
            end_micros,
            timed_out: self.timed_out,
        };
        match &self.target {
            Target::Session(session) => {
                let slot = &session.record().current_wait;
                let sequence_number = slot.read().sequence_number;
                if self.previous.waiting {
                    // A nested wait ended: the outer wait is what the session waits on again.
                    slot.write(&CurrentWait {
                        sequence_number,
                        ..self.previous
                    });
                } else {
                    slot.write(&CurrentWait::ended(&completed, sequence_number));
                }
                finish_on_session(session, &completed);
            }
            Target::Unattributed => {
                UNATTRIBUTED.record_wait(
                    Writer::Shared,
                    self.event,
                    completed.elapsed_micros,
                    self.timed_out,
                );
            }
        }
        completed
    }
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.complete();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType, TimeModelStatistic};
    use std::collections::HashSet;
    use std::sync::atomic::Ordering::Relaxed;
    use std::time::Duration;

    #[test]
    fn from_name_round_trips_every_event_and_names_are_unique() {
        let mut names = HashSet::new();
        for event in WaitEvent::ALL {
            assert_eq!(WaitEvent::from_name(event.name()), Some(event));
            assert!(names.insert(event.name()), "duplicate {}", event.name());
            assert_eq!(WaitEvent::ALL[event.index()], event);
        }
        for class in WaitClass::ALL {
            assert_eq!(WaitClass::from_name(class.name()), Some(class));
            assert_eq!(WaitClass::ALL[class.index()], class);
        }
    }

    #[test]
    fn events_have_oracle_classes_and_parameters() {
        assert_eq!(WaitEvent::LogFileSync.wait_class(), WaitClass::Commit);
        assert_eq!(
            WaitEvent::LogFileSync.parameter_names(),
            ["buffer#", "sync scn", ""]
        );
        assert_eq!(
            WaitEvent::LogFileParallelWrite.parameter_names(),
            ["files", "blocks", "requests"]
        );
        assert_eq!(
            WaitEvent::EnqueueTxRowLockContention.wait_class(),
            WaitClass::Application
        );
        assert_eq!(
            WaitEvent::LatchEnqueueHashChains.wait_class(),
            WaitClass::Other
        );
        assert_eq!(WaitEvent::CursorPinS.wait_class(), WaitClass::Concurrency);
        assert!(WaitEvent::SqlNetMessageFromClient.is_idle());
        assert!(!WaitEvent::SqlNetMessageToClient.is_idle());
        assert_eq!(WaitClass::UserIo.name(), "User I/O");
        assert_eq!(enqueue_name_and_mode(*b"TX", 6), 0x5458_0006);
    }

    #[test]
    fn wait_guard_records_count_time_and_histogram_bucket() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = enter(&session);
        let sleep = Duration::from_millis(3);
        {
            let _wait = wait(WaitEvent::DbFileSequentialRead, 4, 130, 1);
            std::thread::sleep(sleep);
        }
        let totals = session.event_totals(WaitEvent::DbFileSequentialRead);
        assert_eq!(totals.total_waits, 1);
        assert_eq!(totals.total_timeouts, 0);
        assert!(totals.time_waited_micro >= 3_000);
        assert_eq!(totals.max_wait_micro, totals.time_waited_micro);
        let bucket = totals
            .histogram
            .iter()
            .position(|&count| count == 1)
            .unwrap();
        assert_eq!(totals.histogram.iter().sum::<u64>(), 1);
        // 3000 µs lies in [2048, 4096): bucket 12 at least.
        assert!(bucket >= 12, "bucket {bucket}");
        assert!(totals.time_waited_micro < 1u64 << bucket);

        let current = session.record().current_wait.read();
        assert_eq!(current.event, Some(WaitEvent::DbFileSequentialRead));
        assert_eq!((current.p1, current.p2, current.p3), (4, 130, 1));
        assert!(!current.waiting);
        assert_eq!(current.duration_micros, totals.time_waited_micro);
        assert_eq!(current.sequence_number, 1);
    }

    #[test]
    fn timeouts_are_counted() {
        let session = SessionInstrumentation::new(SessionType::Background, "SYS", "LGWR").unwrap();
        let _entered = enter(&session);
        let mut wait = wait(WaitEvent::RdbmsIpcMessage, 300, 0, 0);
        wait.set_timed_out();
        let completed = wait.finish();
        assert!(completed.timed_out);
        let totals = session.event_totals(WaitEvent::RdbmsIpcMessage);
        assert_eq!((totals.total_waits, totals.total_timeouts), (1, 1));
    }

    #[test]
    fn session_wait_shows_waiting_then_waited() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let (started_sender, started) = std::sync::mpsc::channel();
        let (release_sender, release) = std::sync::mpsc::channel::<()>();
        let waiter = {
            let session = session.clone();
            std::thread::spawn(move || {
                let _entered = enter(&session);
                let _wait = wait(
                    WaitEvent::EnqueueTxRowLockContention,
                    enqueue_name_and_mode(*b"TX", 6),
                    65_539,
                    42,
                );
                started_sender.send(()).unwrap();
                release.recv().unwrap();
            })
        };
        started.recv().unwrap();
        let during = session.record().current_wait.read();
        assert!(during.waiting);
        assert_eq!(during.state(), WaitState::Waiting);
        assert_eq!(during.event, Some(WaitEvent::EnqueueTxRowLockContention));
        assert_eq!(during.p3, 42);
        release_sender.send(()).unwrap();
        waiter.join().unwrap();
        let after = session.record().current_wait.read();
        assert!(!after.waiting);
        assert_ne!(after.state(), WaitState::Waiting);
        assert_eq!(
            session
                .event_totals(WaitEvent::EnqueueTxRowLockContention)
                .total_waits,
            1
        );
    }

    #[test]
    fn nested_wait_restores_outer_wait() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = enter(&session);
        let outer = wait(WaitEvent::LogFileSync, 1, 2, 0);
        {
            let _inner = wait(WaitEvent::LatchRedoWriting, 9, 9, 0);
            assert_eq!(
                session.record().current_wait.read().event,
                Some(WaitEvent::LatchRedoWriting)
            );
        }
        let current = session.record().current_wait.read();
        assert!(current.waiting);
        assert_eq!(current.event, Some(WaitEvent::LogFileSync));
        drop(outer);
        assert_eq!(session.event_totals(WaitEvent::LogFileSync).total_waits, 1);
        assert_eq!(
            session
                .event_totals(WaitEvent::LatchRedoWriting)
                .total_waits,
            1
        );
        assert!(!session.record().current_wait.read().waiting);
    }

    #[test]
    fn idle_waits_are_left_out_of_db_time() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = enter(&session);
        let wall = std::time::Instant::now();
        {
            let _call = crate::instrumentation::user_call();
            let _idle = wait(WaitEvent::SqlNetMessageFromClient, 0, 1, 0);
            std::thread::sleep(Duration::from_millis(5));
        }
        let wall_micros = wall.elapsed().as_micros() as u64;
        let idle = session
            .event_totals(WaitEvent::SqlNetMessageFromClient)
            .time_waited_micro;
        let db_time = session.time_model(TimeModelStatistic::DbTime);
        assert!(idle >= 5_000);
        // Both sides are differences of clock readings truncated to whole microseconds: 1 µs slack.
        assert!(
            db_time + idle <= wall_micros + 1,
            "db time {db_time} idle {idle} wall {wall_micros}"
        );
        assert_eq!(
            session.statistic(crate::instrumentation::Statistic::NonIdleWaitCount),
            0
        );
    }

    #[test]
    fn waits_without_a_session_go_to_the_unattributed_accumulator() {
        let before = UNATTRIBUTED.events[WaitEvent::CheckpointCompleted.index()]
            .total_waits
            .load(Relaxed);
        drop(wait(WaitEvent::CheckpointCompleted, 0, 0, 0));
        record_wait(WaitEvent::CheckpointCompleted, 0, 0, 0, 10, false);
        let after = UNATTRIBUTED.events[WaitEvent::CheckpointCompleted.index()]
            .total_waits
            .load(Relaxed);
        assert!(after >= before + 2);
    }

    #[test]
    fn wait_listener_sees_completed_waits() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let seen = Arc::new(parking_lot::Mutex::new(Vec::new()));
        let sink = seen.clone();
        session.set_wait_listener(Some(Arc::new(move |completed: &CompletedWait| {
            sink.lock().push(*completed)
        })));
        let _entered = enter(&session);
        drop(wait(WaitEvent::DbFileScatteredRead, 5, 6, 7));
        record_wait(WaitEvent::LogFileSync, 1, 2, 0, 250, false);
        let seen = seen.lock();
        assert_eq!(seen.len(), 2);
        assert_eq!(
            (seen[0].event, seen[0].p1, seen[0].p2, seen[0].p3),
            (WaitEvent::DbFileScatteredRead, 5, 6, 7)
        );
        assert_eq!(
            (seen[1].event, seen[1].elapsed_micros),
            (WaitEvent::LogFileSync, 250)
        );
    }
}
