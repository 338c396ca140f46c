//! Sessions as the instrumentation sees them: identity (v$session), per-session counters, the
//! registry of live sessions, the departed-sessions accumulator, and the thread-local current
//! session that lets deep code count without a context argument.
//!
//! ```text
//!   registry (RwLock)                         thread-local CURRENT
//!   +-----------------------------+           +------------------------------+
//!   | sid 1: SessionRecord ------+---- Arc --| Arc<SessionInstrumentation>  |  enter() sets,
//!   | sid 2: SessionRecord       |            +------------------------------+  the guard restores
//!   | sid 3: (free, serial# 4)   |
//!   | departed: Counters         |            UNATTRIBUTED: Counters (no session current)
//!   +-----------------------------+
//!
//!   system value = departed + unattributed + sum over live sessions
//! ```
//!
//! Invariants:
//! 1. A session's counters are written by one thread at a time, the one that entered it; so
//!    increments are plain load + store (see `accounting`).
//! 2. When a session ends (its last `Arc<SessionInstrumentation>` is dropped), its cumulative
//!    counters are added to `departed` and its record leaves the registry under one write
//!    lock; readers hold the read lock, so they see the session either live or departed, never
//!    both and never neither: system totals never go backwards.
//! 3. Sizes are bounded: at most `sessions_max` live sessions (ORA-00018 beyond). Sids are
//!    reused lowest first, and each reuse of a sid increments its serial#, as in Oracle.
//!
//! Failure: creating a session fails only when the limit is reached. Counting never fails and
//! never allocates.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Weak};
use std::time::SystemTime;

use parking_lot::{Mutex, RwLock};

use super::accounting::{Counters, Writer};
use super::events::{CompletedWait, CurrentWaitSlot, WaitEvent, WaitListener, HISTOGRAM_BUCKETS};
use super::interrupt::{InterruptFlag, Interrupter};
use super::stats::Statistic;
use super::time_model::TimeModelStatistic;
use crate::error::{Error, Result};

/// Default limit on live sessions (Oracle's SESSIONS parameter); see `set_sessions_max`.
pub const SESSIONS_MAX_DEFAULT: usize = 2048;

/// Longest sql_id text kept for v$session (Oracle's are 13 characters).
pub const SQL_ID_BYTES_MAX: usize = 32;

/// v$session.type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SessionType {
    User,
    Background,
}

impl SessionType {
    pub const fn name(self) -> &'static str {
        match self {
            SessionType::User => "USER",
            SessionType::Background => "BACKGROUND",
        }
    }
}

/// v$session.status: ACTIVE while in a call (background sessions are always ACTIVE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SessionStatus {
    Active,
    Inactive,
}

impl SessionStatus {
    pub const fn name(self) -> &'static str {
        match self {
            SessionStatus::Active => "ACTIVE",
            SessionStatus::Inactive => "INACTIVE",
        }
    }
}

/// A wait event's totals for one session or for the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventTotals {
    pub total_waits: u64,
    pub total_timeouts: u64,
    pub time_waited_micro: u64,
    pub max_wait_micro: u64,
    /// See `histogram_bucket`: `histogram[k]` counts waits of less than 2^k µs.
    pub histogram: [u64; HISTOGRAM_BUCKETS],
}

impl EventTotals {
    pub const ZERO: EventTotals = EventTotals {
        total_waits: 0,
        total_timeouts: 0,
        time_waited_micro: 0,
        max_wait_micro: 0,
        histogram: [0; HISTOGRAM_BUCKETS],
    };

    pub(crate) fn read(counters: &Counters, event: WaitEvent) -> EventTotals {
        let source = &counters.events[event.index()];
        EventTotals {
            total_waits: source.total_waits.load(Relaxed),
            total_timeouts: source.total_timeouts.load(Relaxed),
            time_waited_micro: source.time_waited_micro.load(Relaxed),
            max_wait_micro: source.max_wait_micro.load(Relaxed),
            histogram: std::array::from_fn(|bucket| source.histogram[bucket].load(Relaxed)),
        }
    }

    /// Adds `other` into `self` (the maximum is a maximum, the rest are sums).
    pub(crate) fn accumulate(&mut self, other: &EventTotals) {
        self.total_waits = self.total_waits.wrapping_add(other.total_waits);
        self.total_timeouts = self.total_timeouts.wrapping_add(other.total_timeouts);
        self.time_waited_micro = self.time_waited_micro.wrapping_add(other.time_waited_micro);
        self.max_wait_micro = self.max_wait_micro.max(other.max_wait_micro);
        for (total, count) in self.histogram.iter_mut().zip(other.histogram.iter()) {
            *total = total.wrapping_add(*count);
        }
    }
}

/// Fixed-size text, so that setting the current sql_id never allocates.
struct TextSlot {
    length: usize,
    bytes: [u8; SQL_ID_BYTES_MAX],
}

impl TextSlot {
    const EMPTY: TextSlot = TextSlot {
        length: 0,
        bytes: [0; SQL_ID_BYTES_MAX],
    };

    fn set(&mut self, text: &str) {
        let mut length = text.len().min(SQL_ID_BYTES_MAX);
        while !text.is_char_boundary(length) {
            length -= 1;
        }
        self.bytes[..length].copy_from_slice(&text.as_bytes()[..length]);
        self.length = length;
    }

    fn get(&self) -> Option<String> {
        (self.length > 0).then(|| String::from_utf8_lossy(&self.bytes[..self.length]).into_owned())
    }
}

/// The part of a session the registry keeps: identity and counters. Shared between the
/// session's handle and the registry, so that readers can always read it.
pub(crate) struct SessionRecord {
    pub(crate) sid: u32,
    pub(crate) serial_number: u32,
    pub(crate) session_type: SessionType,
    pub(crate) logon_time: SystemTime,
    pub(crate) username: Mutex<String>,
    pub(crate) program: Mutex<String>,
    sql_id: Mutex<TextSlot>,
    /// v$session.plsql_entry_object_id and plsql_object_id: the outermost and the
    /// innermost stored PL/SQL unit the session is running, 0 for none.
    pub(crate) plsql_entry_object: AtomicU32,
    pub(crate) plsql_object: AtomicU32,
    status: AtomicU8,
    pub(crate) counters: Box<Counters>,
    pub(crate) current_wait: CurrentWaitSlot,
    /// Depth of nested user calls in progress (owner thread only).
    pub(crate) call_depth: AtomicU32,
    /// Depth of nested time-model sections in progress, per statistic (owner thread only).
    pub(crate) section_depths: [AtomicU32; TimeModelStatistic::COUNT],
    has_wait_listener: AtomicBool,
    wait_listener: Mutex<Option<WaitListener>>,
    /// Thread token of the thread that entered the session (0: none) and how many times.
    entered_by: AtomicU64,
    entered_depth: AtomicU32,
    /// A cancel asked of the running statement (`interrupt`).
    pub(crate) interrupt: InterruptFlag,
}

impl SessionRecord {
    pub(crate) fn status(&self) -> SessionStatus {
        if self.status.load(Relaxed) == 0 {
            SessionStatus::Inactive
        } else {
            SessionStatus::Active
        }
    }

    pub(crate) fn set_status(&self, status: SessionStatus) {
        self.status
            .store((status == SessionStatus::Active) as u8, Relaxed);
    }

    pub(crate) fn sql_id(&self) -> Option<String> {
        self.sql_id.lock().get()
    }

    pub(crate) fn notify_wait_listener(&self, completed: &CompletedWait) {
        if !self.has_wait_listener.load(Relaxed) {
            return;
        }
        let listener = self.wait_listener.lock().clone();
        if let Some(listener) = listener {
            listener(completed);
        }
    }
}

/// A session's instrumentation: what every thread doing database work holds, as an
/// `Arc<SessionInstrumentation>`, and enters (`enter`) while it works for the session.
/// Dropping the last `Arc` ends the session: its counters are folded into the system totals.
pub struct SessionInstrumentation {
    record: Arc<SessionRecord>,
    registry: &'static SessionRegistry,
}

impl SessionInstrumentation {
    /// Logs a session on: allocates a sid (and serial#), counts `logons cumulative` and sets
    /// `logons current`. Fails with ORA-00018 when `sessions_max` sessions are live.
    pub fn new(
        session_type: SessionType,
        username: &str,
        program: &str,
    ) -> Result<Arc<SessionInstrumentation>> {
        SessionInstrumentation::new_in(registry(), session_type, username, program)
    }

    pub(crate) fn new_in(
        registry: &'static SessionRegistry,
        session_type: SessionType,
        username: &str,
        program: &str,
    ) -> Result<Arc<SessionInstrumentation>> {
        // Background processes do not count against the limit, as Oracle reserves their
        // sessions: the instance must be able to start LGWR and DBWR whatever the load.
        let limited = session_type == SessionType::User;
        // Allocate the large counter block before taking the registry lock.
        let counters = Box::new(Counters::new());
        counters.add_statistic(Writer::Owner, Statistic::LogonsCumulative, 1);
        counters.add_statistic(Writer::Owner, Statistic::LogonsCurrent, 1);
        let mut inner = registry.inner.write();
        let (sid, serial_number) = inner.allocate_sid(limited)?;
        let record = Arc::new(SessionRecord {
            sid,
            serial_number,
            session_type,
            logon_time: SystemTime::now(),
            username: Mutex::new(username.to_owned()),
            program: Mutex::new(program.to_owned()),
            sql_id: Mutex::new(TextSlot::EMPTY),
            plsql_entry_object: AtomicU32::new(0),
            plsql_object: AtomicU32::new(0),
            status: AtomicU8::new((session_type == SessionType::Background) as u8),
            counters,
            current_wait: CurrentWaitSlot::new(),
            call_depth: AtomicU32::new(0),
            section_depths: [const { AtomicU32::new(0) }; TimeModelStatistic::COUNT],
            has_wait_listener: AtomicBool::new(false),
            wait_listener: Mutex::new(None),
            entered_by: AtomicU64::new(0),
            entered_depth: AtomicU32::new(0),
            interrupt: InterruptFlag::default(),
        });
        let handle = Arc::new(SessionInstrumentation {
            record: record.clone(),
            registry,
        });
        inner.slots[sid as usize - 1].occupant = Some(Occupant {
            record,
            handle: Arc::downgrade(&handle),
        });
        if session_type == SessionType::Background {
            inner.background_count += 1;
        }
        Ok(handle)
    }

    pub(crate) fn record(&self) -> &SessionRecord {
        &self.record
    }

    pub fn sid(&self) -> u32 {
        self.record.sid
    }

    /// A handle that cancels this session's running statement from another thread.
    pub fn interrupter(&self) -> Interrupter {
        Interrupter(self.record.clone())
    }

    /// v$session.serial#: distinguishes this session from earlier ones with the same sid.
    pub fn serial_number(&self) -> u32 {
        self.record.serial_number
    }

    pub fn session_type(&self) -> SessionType {
        self.record.session_type
    }

    pub fn logon_time(&self) -> SystemTime {
        self.record.logon_time
    }

    pub fn username(&self) -> String {
        self.record.username.lock().clone()
    }

    pub fn set_username(&self, username: &str) {
        *self.record.username.lock() = username.to_owned();
    }

    pub fn program(&self) -> String {
        self.record.program.lock().clone()
    }

    pub fn set_program(&self, program: &str) {
        *self.record.program.lock() = program.to_owned();
    }

    /// The sql_id of the statement the session is running (v$session.sql_id).
    pub fn sql_id(&self) -> Option<String> {
        self.record.sql_id()
    }

    /// Sets or clears v$session.sql_id; text beyond `SQL_ID_BYTES_MAX` bytes is cut off.
    pub fn set_sql_id(&self, sql_id: Option<&str>) {
        let mut slot = self.record.sql_id.lock();
        match sql_id {
            Some(text) => slot.set(text),
            None => *slot = TextSlot::EMPTY,
        }
    }

    pub fn status(&self) -> SessionStatus {
        self.record.status()
    }

    /// The stored PL/SQL units the session runs: the outermost and the innermost (0 for
    /// none), as v$session shows them.
    pub fn plsql_objects(&self) -> (u32, u32) {
        (
            self.record.plsql_entry_object.load(Relaxed),
            self.record.plsql_object.load(Relaxed),
        )
    }

    pub fn set_plsql_objects(&self, entry: u32, current: u32) {
        self.record.plsql_entry_object.store(entry, Relaxed);
        self.record.plsql_object.store(current, Relaxed);
    }

    /// Normally maintained by `user_call`; exposed for the connection layer.
    pub fn set_status(&self, status: SessionStatus) {
        self.record.set_status(status);
    }

    /// This session's value of `statistic` (v$sesstat).
    pub fn statistic(&self, statistic: Statistic) -> u64 {
        self.record.counters.statistic(statistic)
    }

    /// Counts into this session directly. Only the thread using the session may call it (see
    /// the module invariants); deep code uses `instrumentation::add` instead.
    pub fn add(&self, statistic: Statistic, amount: u64) {
        self.record
            .counters
            .add_statistic(Writer::Owner, statistic, amount);
    }

    /// Lowers a current-value statistic (`opened cursors current`). Same rule as `add`.
    pub fn subtract(&self, statistic: Statistic, amount: u64) {
        debug_assert!(
            statistic.is_current_value(),
            "{} is cumulative",
            statistic.name()
        );
        Writer::Owner.subtract(&self.record.counters.statistics[statistic.index()], amount);
    }

    /// This session's totals for `event` (v$session_event).
    pub fn event_totals(&self, event: WaitEvent) -> EventTotals {
        EventTotals::read(&self.record.counters, event)
    }

    /// This session's value of a time-model statistic, in microseconds (v$sess_time_model).
    pub fn time_model(&self, statistic: TimeModelStatistic) -> u64 {
        self.record.counters.time_model[statistic.index()].load(Relaxed)
    }

    /// Installs (or removes) the function called after each of this session's waits.
    pub fn set_wait_listener(&self, listener: Option<WaitListener>) {
        let mut slot = self.record.wait_listener.lock();
        self.record
            .has_wait_listener
            .store(listener.is_some(), Relaxed);
        *slot = listener;
    }
}

impl Drop for SessionInstrumentation {
    fn drop(&mut self) {
        let record = &self.record;
        let mut inner = self.registry.inner.write();
        record.counters.fold_into(&self.registry.departed);
        inner.release_sid(record.sid);
    }
}

impl std::fmt::Debug for SessionInstrumentation {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SessionInstrumentation")
            .field("sid", &self.record.sid)
            .field("serial#", &self.record.serial_number)
            .field("type", &self.record.session_type)
            .finish()
    }
}

struct Occupant {
    record: Arc<SessionRecord>,
    handle: Weak<SessionInstrumentation>,
}

struct SessionSlot {
    serial_number: u32,
    occupant: Option<Occupant>,
}

struct RegistryInner {
    /// `slots[sid - 1]`.
    slots: Vec<SessionSlot>,
    free_sids: BTreeSet<u32>,
    live_count: usize,
    /// Live background sessions (not counted against `sessions_max`).
    background_count: usize,
    /// Limit on live user sessions.
    sessions_max: usize,
}

impl RegistryInner {
    fn allocate_sid(&mut self, limited: bool) -> Result<(u32, u32)> {
        if limited && self.user_count() >= self.sessions_max {
            return Err(Error::new(18, "maximum number of sessions exceeded"));
        }
        let sid = match self.free_sids.pop_first() {
            Some(sid) => sid,
            None => {
                self.slots.push(SessionSlot {
                    serial_number: 0,
                    occupant: None,
                });
                u32::try_from(self.slots.len()).map_err(|_| Error::internal("sid overflow"))?
            }
        };
        let slot = &mut self.slots[sid as usize - 1];
        debug_assert!(slot.occupant.is_none());
        slot.serial_number = slot.serial_number.wrapping_add(1).max(1);
        self.live_count += 1;
        Ok((sid, slot.serial_number))
    }

    fn user_count(&self) -> usize {
        self.live_count - self.background_count
    }

    fn release_sid(&mut self, sid: u32) {
        let slot = &mut self.slots[sid as usize - 1];
        debug_assert!(slot.occupant.is_some());
        if let Some(occupant) = slot.occupant.take() {
            if occupant.record.session_type == SessionType::Background {
                self.background_count -= 1;
            }
        }
        self.free_sids.insert(sid);
        self.live_count -= 1;
    }
}

/// The list of live sessions, and the accumulator of those that ended.
pub struct SessionRegistry {
    inner: RwLock<RegistryInner>,
    /// Written only under the write lock (when a session ends), read under the read lock.
    departed: Counters,
}

static REGISTRY: SessionRegistry = SessionRegistry::new(SESSIONS_MAX_DEFAULT);

/// Counts made on threads with no current session. Part of every system total.
pub(crate) static UNATTRIBUTED: Counters = Counters::new();

/// The instance's session registry.
pub fn registry() -> &'static SessionRegistry {
    &REGISTRY
}

impl SessionRegistry {
    pub(crate) const fn new(sessions_max: usize) -> SessionRegistry {
        SessionRegistry {
            inner: RwLock::new(RegistryInner {
                slots: Vec::new(),
                free_sids: BTreeSet::new(),
                live_count: 0,
                background_count: 0,
                sessions_max,
            }),
            departed: Counters::new(),
        }
    }

    pub fn sessions_max(&self) -> usize {
        self.inner.read().sessions_max
    }

    /// Sets the limit on live user sessions (set at startup from the SESSIONS parameter).
    /// Sessions already live stay; new ones fail with ORA-00018 while the limit is reached.
    /// Background sessions are not counted.
    pub fn set_sessions_max(&self, sessions_max: usize) {
        assert!(sessions_max > 0, "sessions_max must be positive");
        self.inner.write().sessions_max = sessions_max;
    }

    pub fn live_count(&self) -> usize {
        self.inner.read().live_count
    }

    /// Sids of the live sessions, ascending.
    pub fn sids(&self) -> Vec<u32> {
        let inner = self.inner.read();
        live_records(&inner).map(|record| record.sid).collect()
    }

    /// The live session with this sid, if it is still live (ALTER SYSTEM KILL SESSION, v$ by
    /// sid). The caller must not keep it longer than needed: holding it keeps the session live.
    pub fn session(&self, sid: u32) -> Option<Arc<SessionInstrumentation>> {
        let handle = {
            let inner = self.inner.read();
            let slot = inner.slots.get((sid as usize).checked_sub(1)?)?;
            slot.occupant.as_ref()?.handle.clone()
        };
        // Upgrade outside the lock: if this were the last reference, its drop takes the lock.
        handle.upgrade()
    }

    /// Runs `read` over a consistent view: the departed accumulator and the live records.
    pub(crate) fn with_sessions<R>(
        &self,
        read: impl FnOnce(&Counters, &[&SessionRecord]) -> R,
    ) -> R {
        let inner = self.inner.read();
        let live: Vec<&SessionRecord> = live_records(&inner).collect();
        read(&self.departed, &live)
    }

    /// Runs `read` on the live session `sid`, if there is one.
    pub(crate) fn with_session<R>(
        &self,
        sid: u32,
        read: impl FnOnce(&SessionRecord) -> R,
    ) -> Option<R> {
        let inner = self.inner.read();
        let slot = inner.slots.get((sid as usize).checked_sub(1)?)?;
        slot.occupant
            .as_ref()
            .map(|occupant| read(&occupant.record))
    }
}

fn live_records(inner: &RegistryInner) -> impl Iterator<Item = &SessionRecord> {
    inner
        .slots
        .iter()
        .filter_map(|slot| slot.occupant.as_ref().map(|occupant| &*occupant.record))
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<SessionInstrumentation>>> = const { RefCell::new(None) };
    static THREAD_TOKEN: u64 = {
        static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);
        NEXT_TOKEN.fetch_add(1, Relaxed)
    };
}

/// Runs `use_current` with the thread's current session (None if there is none, or if the
/// thread is being torn down).
#[inline]
pub(crate) fn with_current<R>(
    use_current: impl FnOnce(Option<&Arc<SessionInstrumentation>>) -> R,
) -> R {
    let mut use_current = Some(use_current);
    let result = CURRENT.try_with(|current| {
        let use_current = use_current.take().expect("called once");
        use_current(current.borrow().as_ref())
    });
    match result {
        Ok(value) => value,
        Err(_) => (use_current.take().expect("not called yet"))(None),
    }
}

/// Makes `session` the thread's current session until the guard is dropped; the previous one
/// (if any) is restored then. Guards must be dropped in reverse order of creation.
pub fn enter(session: &Arc<SessionInstrumentation>) -> EnterGuard {
    let record = session.record();
    let token = THREAD_TOKEN.with(|token| *token);
    let owner = record.entered_by.load(Relaxed);
    debug_assert!(
        owner == 0 || owner == token,
        "session {} is entered on two threads at once; its counts would be lost",
        record.sid
    );
    record.entered_by.store(token, Relaxed);
    record.entered_depth.fetch_add(1, Relaxed);
    let previous = CURRENT.with(|current| current.replace(Some(session.clone())));
    EnterGuard {
        previous,
        entered: session.clone(),
        _not_send: std::marker::PhantomData,
    }
}

/// Restores the previous current session when dropped. Not `Send`: it belongs to the thread.
#[must_use = "the session is current only while the guard lives"]
pub struct EnterGuard {
    previous: Option<Arc<SessionInstrumentation>>,
    entered: Arc<SessionInstrumentation>,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let replaced = CURRENT
            .try_with(|current| current.replace(previous))
            .ok()
            .flatten();
        debug_assert!(
            replaced
                .as_ref()
                .is_none_or(|session| Arc::ptr_eq(session, &self.entered)),
            "EnterGuards dropped out of order"
        );
        let record = self.entered.record();
        if record.entered_depth.fetch_sub(1, Relaxed) == 1 {
            record.entered_by.store(0, Relaxed);
        }
        // `replaced` and `self.entered` drop here, outside the thread-local borrow: if either is
        // the session's last handle, its drop takes the registry lock.
        drop(replaced);
    }
}

/// Creates the session of a background process (LGWR, DBW0, CKPT, MMON): type BACKGROUND,
/// no username, `program` as its name. Background sessions do not count against
/// `sessions_max`, so this cannot fail.
pub fn background_session(program: &str) -> Arc<SessionInstrumentation> {
    SessionInstrumentation::new(SessionType::Background, "", program)
        .expect("background sessions are not limited")
}

/// The thread's current session, if any.
pub fn current() -> Option<Arc<SessionInstrumentation>> {
    with_current(|current| current.cloned())
}

/// The sid of the thread's current session, if any.
pub fn current_sid() -> Option<u32> {
    with_current(|current| current.map(|session| session.sid()))
}

/// Adds `amount` to `statistic` for the current session (or the unattributed accumulator).
/// This is how deep code counts: `instrumentation::add(Statistic::ConsistentGets, 1)`.
#[inline]
pub fn add(statistic: Statistic, amount: u64) {
    let counted = with_current(|current| match current {
        Some(session) => {
            session
                .record
                .counters
                .add_statistic(Writer::Owner, statistic, amount);
            true
        }
        None => false,
    });
    if !counted {
        UNATTRIBUTED.add_statistic(Writer::Shared, statistic, amount);
    }
}

/// Lowers a current-value statistic (`opened cursors current`, `session cursor cache count`)
/// for the current session (or the unattributed accumulator).
#[inline]
pub fn subtract(statistic: Statistic, amount: u64) {
    debug_assert!(
        statistic.is_current_value(),
        "{} is cumulative",
        statistic.name()
    );
    let cell_index = statistic.index();
    let counted = with_current(|current| match current {
        Some(session) => {
            Writer::Owner.subtract(&session.record.counters.statistics[cell_index], amount);
            true
        }
        None => false,
    });
    if !counted {
        Writer::Shared.subtract(&UNATTRIBUTED.statistics[cell_index], amount);
    }
}

/// Where a measurement made on this thread is recorded.
pub(crate) enum Target {
    Session(Arc<SessionInstrumentation>),
    Unattributed,
}

impl Target {
    pub(crate) fn current() -> Target {
        with_current(|current| match current {
            Some(session) => Target::Session(session.clone()),
            None => Target::Unattributed,
        })
    }

    pub(crate) fn counters(&self) -> (&Counters, Writer) {
        match self {
            Target::Session(session) => (&session.record.counters, Writer::Owner),
            Target::Unattributed => (&UNATTRIBUTED, Writer::Shared),
        }
    }

    /// Threads without a session are accounted as foreground work.
    pub(crate) fn session_type(&self) -> SessionType {
        match self {
            Target::Session(session) => session.record.session_type,
            Target::Unattributed => SessionType::User,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_registry(sessions_max: usize) -> &'static SessionRegistry {
        Box::leak(Box::new(SessionRegistry::new(sessions_max)))
    }

    #[test]
    fn sids_are_reused_lowest_first_with_a_new_serial_number() {
        let registry = test_registry(10);
        let first = SessionInstrumentation::new_in(registry, SessionType::User, "A", "p").unwrap();
        let second = SessionInstrumentation::new_in(registry, SessionType::User, "B", "p").unwrap();
        assert_eq!((first.sid(), first.serial_number()), (1, 1));
        assert_eq!((second.sid(), second.serial_number()), (2, 1));
        drop(first);
        let third = SessionInstrumentation::new_in(registry, SessionType::User, "C", "p").unwrap();
        assert_eq!((third.sid(), third.serial_number()), (1, 2));
        assert_eq!(registry.sids(), vec![1, 2]);
        assert_eq!(registry.live_count(), 2);
    }

    #[test]
    fn session_limit_is_ora_00018() {
        let registry = test_registry(2);
        let _a = SessionInstrumentation::new_in(registry, SessionType::User, "A", "p").unwrap();
        let b = SessionInstrumentation::new_in(registry, SessionType::User, "B", "p").unwrap();
        let error =
            SessionInstrumentation::new_in(registry, SessionType::User, "C", "p").unwrap_err();
        assert_eq!(error.code(), 18);
        let background =
            SessionInstrumentation::new_in(registry, SessionType::Background, "", "LGWR");
        assert!(background.is_ok(), "background sessions are not limited");
        drop(b);
        let _c = SessionInstrumentation::new_in(registry, SessionType::User, "C", "p").unwrap();
        assert_eq!(registry.live_count(), 3);
    }

    #[test]
    fn departed_sessions_keep_cumulative_counts_but_not_current_values() {
        let registry = test_registry(10);
        let session =
            SessionInstrumentation::new_in(registry, SessionType::User, "A", "p").unwrap();
        session.add(Statistic::ConsistentGets, 5);
        session.add(Statistic::OpenedCursorsCurrent, 2);
        assert_eq!(session.statistic(Statistic::LogonsCurrent), 1);
        assert_eq!(session.statistic(Statistic::LogonsCumulative), 1);
        drop(session);
        registry.with_sessions(|departed, live| {
            assert!(live.is_empty());
            assert_eq!(departed.statistic(Statistic::ConsistentGets), 5);
            assert_eq!(departed.statistic(Statistic::LogonsCumulative), 1);
            assert_eq!(departed.statistic(Statistic::LogonsCurrent), 0);
            assert_eq!(departed.statistic(Statistic::OpenedCursorsCurrent), 0);
        });
    }

    #[test]
    fn enter_sets_the_current_session_and_restores_the_previous_one() {
        let outer = SessionInstrumentation::new(SessionType::User, "OUTER", "p").unwrap();
        let inner = SessionInstrumentation::new(SessionType::Background, "SYS", "DBW0").unwrap();
        assert_eq!(current_sid(), None);
        {
            let _outer_guard = enter(&outer);
            add(Statistic::ConsistentGets, 3);
            {
                let _inner_guard = enter(&inner);
                assert_eq!(current_sid(), Some(inner.sid()));
                add(Statistic::PhysicalWrites, 8);
            }
            assert_eq!(current_sid(), Some(outer.sid()));
            add(Statistic::ConsistentGets, 1);
        }
        assert_eq!(current_sid(), None);
        assert_eq!(outer.statistic(Statistic::ConsistentGets), 4);
        assert_eq!(outer.statistic(Statistic::PhysicalWrites), 0);
        assert_eq!(inner.statistic(Statistic::PhysicalWrites), 8);
    }

    #[test]
    fn entered_session_outlives_its_other_handles() {
        let session = SessionInstrumentation::new(SessionType::User, "A", "p").unwrap();
        let sid = session.sid();
        let serial_number = session.serial_number();
        let guard = enter(&session);
        drop(session);
        add(Statistic::UserCalls, 1);
        let still_live = registry().session(sid).expect("kept live by the guard");
        assert_eq!(still_live.serial_number(), serial_number);
        assert_eq!(still_live.statistic(Statistic::UserCalls), 1);
        drop(still_live);
        drop(guard);
        let reused = registry().session(sid);
        assert!(reused.is_none_or(|session| session.serial_number() != serial_number));
    }

    #[test]
    fn sql_id_slot_truncates_at_a_character_boundary() {
        let session = SessionInstrumentation::new(SessionType::User, "A", "p").unwrap();
        session.set_sql_id(Some("7ztv2z24kw0s0"));
        assert_eq!(session.sql_id().as_deref(), Some("7ztv2z24kw0s0"));
        let long = "é".repeat(SQL_ID_BYTES_MAX);
        session.set_sql_id(Some(&long));
        assert_eq!(session.sql_id().unwrap().len(), SQL_ID_BYTES_MAX);
        session.set_sql_id(None);
        assert_eq!(session.sql_id(), None);
    }
}
