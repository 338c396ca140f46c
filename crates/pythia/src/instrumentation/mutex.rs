//! Library cache mutexes (Oracle's KGX mutexes, used by the KGL library cache): one word per
//! object, taken with an atomic compare-and-swap, in shared or exclusive mode; v$mutex_sleep
//! and v$mutex_sleep_history show where sessions slept on them.
//!
//! The mutex value is laid out as Oracle's (so that p2 of a mutex wait decodes the same way):
//!
//! ```text
//!   63                 32 31  30                      0
//!   +--------------------+---+-------------------------+
//!   | exclusive holder   | W | shared reference count  |
//!   | sid (0: none)      |   |                         |
//!   +--------------------+---+-------------------------+
//!   W: an exclusive requester is sleeping; new shared gets wait for it (no starvation).
//! ```
//!
//! A get tries the CAS; if the mutex is busy it spins (`MUTEX_SPIN_ATTEMPTS_MAX`, Oracle's
//! `_mutex_spin_count`), then sleeps: it yields the CPU for the first sleeps and then sleeps
//! with an exponential backoff up to `MUTEX_SLEEP_MICROS_MAX`, spinning again after each
//! sleep, as Oracle's default `_mutex_wait_scheme` does. The whole sleeping phase is one wait:
//!
//! ```text
//!   type            exclusive get             shared get (blocked by X / by others)
//!   Library Cache   library cache: mutex X    library cache: mutex S
//!   Cursor Pin      cursor: pin X             cursor: pin S wait on X / cursor: pin S
//!   Cursor Parent,  cursor: mutex X           cursor: mutex S
//!   Cursor Stat,
//!   hash table
//! ```
//!
//! with p1 = the mutex identifier (idn: the object's hash value), p2 = the mutex value when
//! the wait began, p3 = the location id ("where"). Each sleep is counted for the mutex and for
//! its (mutex type, location) pair; the location is the acquisition site, a static string such
//! as `"kglpin1   4"` or `"kksfbc [KKSCHLFSP2]"`. Gets are counted per mutex.
//!
//! Guards release on drop; there is no poisoning. A thread must not take a mutex it already
//! holds exclusively (it would wait for itself).

use std::cell::UnsafeCell;
use std::collections::{HashMap, VecDeque};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;

use super::events::{wait, WaitEvent};
use super::session::current_sid;

/// CAS attempts on a busy mutex before sleeping (Oracle's `_mutex_spin_count` default).
pub const MUTEX_SPIN_ATTEMPTS_MAX: u32 = 255;

/// Sleeps that only yield the CPU before real sleeps begin.
pub const MUTEX_YIELDS_BEFORE_SLEEP: u32 = 2;

/// First real sleep; each further one doubles, up to `MUTEX_SLEEP_MICROS_MAX`.
pub const MUTEX_SLEEP_MICROS_MIN: u64 = 50;
pub const MUTEX_SLEEP_MICROS_MAX: u64 = 1_000;

/// Rows kept by v$mutex_sleep_history (the oldest is dropped first).
pub const MUTEX_SLEEP_HISTORY_ROWS_MAX: usize = 1024;

const EXCLUSIVE_HOLDER_MASK: u64 = 0xFFFF_FFFF_0000_0000;
const EXCLUSIVE_WAITING: u64 = 1 << 31;
const SHARED_REFERENCE_MASK: u64 = EXCLUSIVE_WAITING - 1;
/// Holder id of a thread with no session (sids start at 1 and never reach it).
const UNATTRIBUTED_HOLDER: u64 = u32::MAX as u64;

/// v$mutex_sleep.mutex_type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MutexType {
    LibraryCache,
    CursorPin,
    CursorParent,
    CursorStat,
    HashTable,
}

impl MutexType {
    pub const ALL: [MutexType; 5] = [
        MutexType::LibraryCache,
        MutexType::CursorPin,
        MutexType::CursorParent,
        MutexType::CursorStat,
        MutexType::HashTable,
    ];

    /// Oracle's exact name.
    pub const fn name(self) -> &'static str {
        match self {
            MutexType::LibraryCache => "Library Cache",
            MutexType::CursorPin => "Cursor Pin",
            MutexType::CursorParent => "Cursor Parent",
            MutexType::CursorStat => "Cursor Stat",
            MutexType::HashTable => "hash table",
        }
    }

    pub fn from_name(name: &str) -> Option<MutexType> {
        MutexType::ALL
            .iter()
            .copied()
            .find(|mutex_type| mutex_type.name() == name)
    }

    /// The event a get of this type waits on (see the table in the module documentation).
    pub const fn wait_event(self, mode: MutexMode, blocked_by_exclusive: bool) -> WaitEvent {
        match (self, mode) {
            (MutexType::LibraryCache, MutexMode::Exclusive) => WaitEvent::LibraryCacheMutexX,
            (MutexType::LibraryCache, MutexMode::Shared) => WaitEvent::LibraryCacheMutexS,
            (MutexType::CursorPin, MutexMode::Exclusive) => WaitEvent::CursorPinX,
            (MutexType::CursorPin, MutexMode::Shared) if blocked_by_exclusive => {
                WaitEvent::CursorPinSWaitOnX
            }
            (MutexType::CursorPin, MutexMode::Shared) => WaitEvent::CursorPinS,
            (_, MutexMode::Exclusive) => WaitEvent::CursorMutexX,
            (_, MutexMode::Shared) => WaitEvent::CursorMutexS,
        }
    }
}

/// The mode of a mutex get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MutexMode {
    Shared,
    Exclusive,
}

/// A row of v$mutex_sleep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutexSleepRow {
    pub mutex_type: MutexType,
    pub location: &'static str,
    pub sleeps: u64,
    /// Microseconds.
    pub wait_time: u64,
}

/// A row of v$mutex_sleep_history: the last sleep of one session on one mutex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutexSleepHistoryRow {
    pub mutex_identifier: u64,
    pub sleep_timestamp: SystemTime,
    pub mutex_type: MutexType,
    /// The mutex's gets and sleeps when the sleep ended.
    pub gets: u64,
    pub sleeps: u64,
    pub requesting_session: u32,
    /// The exclusive holder when the sleep began (0: held in shared mode, or no session).
    pub blocking_session: u32,
    pub location: &'static str,
    pub mutex_value: u64,
}

#[derive(Default)]
struct SleepTotals {
    sleeps: u64,
    wait_time: u64,
}

struct SleepTable {
    totals: HashMap<(MutexType, &'static str), SleepTotals>,
    location_ids: HashMap<&'static str, u64>,
    history: VecDeque<MutexSleepHistoryRow>,
}

static SLEEP_TABLE: LazyLock<Mutex<SleepTable>> = LazyLock::new(|| {
    Mutex::new(SleepTable {
        totals: HashMap::new(),
        location_ids: HashMap::new(),
        history: VecDeque::with_capacity(MUTEX_SLEEP_HISTORY_ROWS_MAX),
    })
});

/// The "where" number of a location (p3 of mutex waits), assigned at its first sleep.
fn location_id(location: &'static str) -> u64 {
    let mut table = SLEEP_TABLE.lock();
    let next = table.location_ids.len() as u64 + 1;
    *table.location_ids.entry(location).or_insert(next)
}

/// v$mutex_sleep.
pub(crate) fn sleep_rows() -> Vec<MutexSleepRow> {
    let table = SLEEP_TABLE.lock();
    let mut rows: Vec<MutexSleepRow> = table
        .totals
        .iter()
        .map(|(&(mutex_type, location), totals)| MutexSleepRow {
            mutex_type,
            location,
            sleeps: totals.sleeps,
            wait_time: totals.wait_time,
        })
        .collect();
    rows.sort_by(|a, b| (a.mutex_type, a.location).cmp(&(b.mutex_type, b.location)));
    rows
}

/// v$mutex_sleep_history, oldest first.
pub(crate) fn sleep_history_rows() -> Vec<MutexSleepHistoryRow> {
    SLEEP_TABLE.lock().history.iter().cloned().collect()
}

fn sleep_once(sleeps_so_far: u32) {
    if sleeps_so_far < MUTEX_YIELDS_BEFORE_SLEEP {
        std::thread::yield_now();
        return;
    }
    let doublings = (sleeps_so_far - MUTEX_YIELDS_BEFORE_SLEEP).min(16);
    let micros = (MUTEX_SLEEP_MICROS_MIN << doublings).min(MUTEX_SLEEP_MICROS_MAX);
    std::thread::sleep(Duration::from_micros(micros));
}

fn holder_session(value: u64) -> u32 {
    match value >> 32 {
        UNATTRIBUTED_HOLDER => 0,
        sid => sid as u32,
    }
}

/// A library cache mutex protecting a `T`. See the module documentation.
pub struct KglMutex<T> {
    value: AtomicU64,
    gets: AtomicU64,
    sleeps: AtomicU64,
    mutex_type: MutexType,
    identifier: u64,
    data: UnsafeCell<T>,
}

// SAFETY: the mutex hands out `&T` to several threads only in shared mode (hence `T: Sync`)
// and `&mut T` to one thread at a time in exclusive mode (hence `T: Send`), with Acquire on
// every get and Release on every release.
unsafe impl<T: Send> Send for KglMutex<T> {}
unsafe impl<T: Send + Sync> Sync for KglMutex<T> {}

/// Holds a `KglMutex` in shared mode (a pin in S mode).
#[must_use = "the mutex is released as soon as the guard is dropped"]
pub struct KglMutexSharedGuard<'a, T> {
    mutex: &'a KglMutex<T>,
    _not_send: PhantomData<*const ()>,
}

/// Holds a `KglMutex` in exclusive mode.
#[must_use = "the mutex is released as soon as the guard is dropped"]
pub struct KglMutexExclusiveGuard<'a, T> {
    mutex: &'a KglMutex<T>,
    _not_send: PhantomData<*const ()>,
}

impl<T> KglMutex<T> {
    /// A mutex of `mutex_type` for the object whose hash value is `identifier` (the idn).
    pub const fn new(mutex_type: MutexType, identifier: u64, value: T) -> KglMutex<T> {
        KglMutex {
            value: AtomicU64::new(0),
            gets: AtomicU64::new(0),
            sleeps: AtomicU64::new(0),
            mutex_type,
            identifier,
            data: UnsafeCell::new(value),
        }
    }

    pub fn mutex_type(&self) -> MutexType {
        self.mutex_type
    }

    pub fn identifier(&self) -> u64 {
        self.identifier
    }

    pub fn gets(&self) -> u64 {
        self.gets.load(Ordering::Relaxed)
    }

    pub fn sleeps(&self) -> u64 {
        self.sleeps.load(Ordering::Relaxed)
    }

    /// The raw mutex value (holder sid << 32 | waiting bit | reference count).
    pub fn value(&self) -> u64 {
        self.value.load(Ordering::Relaxed)
    }

    /// Gets the mutex in shared mode, waiting as long as it takes; `location` names the call
    /// site for v$mutex_sleep.
    #[inline]
    pub fn shared(&self, location: &'static str) -> KglMutexSharedGuard<'_, T> {
        self.acquire_shared(location);
        KglMutexSharedGuard {
            mutex: self,
            _not_send: PhantomData,
        }
    }

    /// A shared get without a guard, for an owner that holds it across calls (a cursor pin
    /// held while its cursor executes) and gives it back with [`KglMutex::release_shared`]
    /// exactly once. The data is not reachable this way: only the guard derefs.
    #[inline]
    pub fn acquire_shared(&self, location: &'static str) {
        if self.try_acquire(MutexMode::Shared, 0).is_err() {
            self.acquire_contended(MutexMode::Shared, 0, location);
        }
        self.gets.fetch_add(1, Ordering::Relaxed);
    }

    /// Gives back one [`KglMutex::acquire_shared`].
    ///
    /// # Safety
    /// The caller must hold a shared get it has not given back: one from
    /// `acquire_shared`, given back exactly once. Releasing a get nobody holds corrupts the
    /// mutex word and can let an exclusive get in beside a shared guard.
    #[inline]
    pub unsafe fn release_shared(&self) {
        let before = self.value.fetch_sub(1, Ordering::Release);
        debug_assert!(
            before & SHARED_REFERENCE_MASK > 0,
            "no shared get to release"
        );
    }

    /// Gets the mutex in exclusive mode, waiting as long as it takes.
    #[inline]
    pub fn exclusive(&self, location: &'static str) -> KglMutexExclusiveGuard<'_, T> {
        let holder = Self::holder_id();
        if self.try_acquire(MutexMode::Exclusive, holder).is_err() {
            self.acquire_contended(MutexMode::Exclusive, holder, location);
        }
        self.count_exclusive_get();
        KglMutexExclusiveGuard {
            mutex: self,
            _not_send: PhantomData,
        }
    }

    /// An exclusive get without a guard, for an owner that holds it across calls (a child
    /// cursor being built) and gives it back with [`KglMutex::release_exclusive`] exactly
    /// once, on the same thread.
    pub fn acquire_exclusive(&self, location: &'static str) {
        let holder = Self::holder_id();
        if self.try_acquire(MutexMode::Exclusive, holder).is_err() {
            self.acquire_contended(MutexMode::Exclusive, holder, location);
        }
        self.count_exclusive_get();
    }

    /// Gives back one [`KglMutex::acquire_exclusive`].
    ///
    /// # Safety
    /// The caller must be the exclusive holder, by `acquire_exclusive` on this thread, and
    /// give it back exactly once: releasing another's exclusive get would let a second
    /// `&mut T` exist.
    pub unsafe fn release_exclusive(&self) {
        // Keep only the waiting bit: another exclusive requester may have set it.
        let before = self.value.fetch_and(EXCLUSIVE_WAITING, Ordering::Release);
        debug_assert!(
            before & EXCLUSIVE_HOLDER_MASK != 0,
            "no exclusive get to release"
        );
    }

    /// Gets the mutex in shared mode if that is possible without waiting.
    pub fn try_shared(&self) -> Option<KglMutexSharedGuard<'_, T>> {
        self.try_acquire(MutexMode::Shared, 0).ok()?;
        self.gets.fetch_add(1, Ordering::Relaxed);
        Some(KglMutexSharedGuard {
            mutex: self,
            _not_send: PhantomData,
        })
    }

    /// Gets the mutex in exclusive mode if that is possible without waiting.
    pub fn try_exclusive(&self) -> Option<KglMutexExclusiveGuard<'_, T>> {
        self.try_acquire(MutexMode::Exclusive, Self::holder_id())
            .ok()?;
        self.count_exclusive_get();
        Some(KglMutexExclusiveGuard {
            mutex: self,
            _not_send: PhantomData,
        })
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }

    fn holder_id() -> u64 {
        current_sid().map_or(UNATTRIBUTED_HOLDER, u64::from)
    }

    fn count_exclusive_get(&self) {
        // The only holder: no other get can be counting now.
        let gets = self.gets.load(Ordering::Relaxed);
        self.gets.store(gets + 1, Ordering::Relaxed);
    }

    /// One CAS attempt. On failure, returns the value that made it fail.
    #[inline]
    fn try_acquire(&self, mode: MutexMode, holder: u64) -> Result<(), u64> {
        let observed = self.value.load(Ordering::Relaxed);
        let desired = match mode {
            MutexMode::Shared => {
                if observed & (EXCLUSIVE_HOLDER_MASK | EXCLUSIVE_WAITING) != 0 {
                    return Err(observed);
                }
                assert!(
                    observed & SHARED_REFERENCE_MASK < SHARED_REFERENCE_MASK,
                    "mutex reference count overflow"
                );
                observed + 1
            }
            MutexMode::Exclusive => {
                if observed & (EXCLUSIVE_HOLDER_MASK | SHARED_REFERENCE_MASK) != 0 {
                    return Err(observed);
                }
                // Taking the mutex clears the waiting bit; other waiters set it again.
                holder << 32
            }
        };
        self.value
            .compare_exchange(observed, desired, Ordering::Acquire, Ordering::Relaxed)
            .map(|_| ())
    }

    #[cold]
    #[inline(never)]
    fn acquire_contended(&self, mode: MutexMode, holder: u64, location: &'static str) {
        let mut observed = self.value.load(Ordering::Relaxed);
        for _ in 0..MUTEX_SPIN_ATTEMPTS_MAX {
            std::hint::spin_loop();
            match self.try_acquire(mode, holder) {
                Ok(()) => return,
                Err(value) => observed = value,
            }
        }
        let blocked_by_exclusive = observed & EXCLUSIVE_HOLDER_MASK != 0;
        let event = self.mutex_type.wait_event(mode, blocked_by_exclusive);
        let sleep_wait = wait(event, self.identifier, observed, location_id(location));
        let mut sleeps: u32 = 0;
        'acquired: loop {
            if mode == MutexMode::Exclusive {
                self.announce_exclusive_waiter();
            }
            sleep_once(sleeps);
            sleeps += 1;
            for _ in 0..MUTEX_SPIN_ATTEMPTS_MAX {
                if self.try_acquire(mode, holder).is_ok() {
                    break 'acquired;
                }
                std::hint::spin_loop();
            }
        }
        let completed = sleep_wait.finish();
        let mutex_sleeps =
            self.sleeps.fetch_add(u64::from(sleeps), Ordering::Relaxed) + u64::from(sleeps);
        let row = MutexSleepHistoryRow {
            mutex_identifier: self.identifier,
            sleep_timestamp: SystemTime::now(),
            mutex_type: self.mutex_type,
            gets: self.gets.load(Ordering::Relaxed) + 1,
            sleeps: mutex_sleeps,
            requesting_session: current_sid().unwrap_or(0),
            blocking_session: holder_session(observed),
            location,
            mutex_value: observed,
        };
        let mut table = SLEEP_TABLE.lock();
        let totals = table.totals.entry((self.mutex_type, location)).or_default();
        totals.sleeps += u64::from(sleeps);
        totals.wait_time += completed.elapsed_micros;
        let same_pair = table.history.iter().position(|existing| {
            existing.mutex_identifier == row.mutex_identifier
                && existing.mutex_type == row.mutex_type
                && existing.requesting_session == row.requesting_session
        });
        if let Some(position) = same_pair {
            table.history.remove(position);
        } else if table.history.len() == MUTEX_SLEEP_HISTORY_ROWS_MAX {
            table.history.pop_front();
        }
        table.history.push_back(row);
    }

    /// Sets the waiting bit so that new shared gets let a sleeping exclusive get through.
    fn announce_exclusive_waiter(&self) {
        let observed = self.value.load(Ordering::Relaxed);
        if observed & (EXCLUSIVE_HOLDER_MASK | EXCLUSIVE_WAITING) == 0 {
            self.value.fetch_or(EXCLUSIVE_WAITING, Ordering::Relaxed);
        }
    }
}

impl<T> std::fmt::Debug for KglMutex<T> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("KglMutex")
            .field("type", &self.mutex_type.name())
            .field("identifier", &self.identifier)
            .field("value", &format_args!("{:#x}", self.value()))
            .finish_non_exhaustive()
    }
}

impl<T> std::ops::Deref for KglMutexSharedGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: a shared get is held: no exclusive holder can exist until it is released.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T> Drop for KglMutexSharedGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the guard holds one shared get, given back here once.
        unsafe { self.mutex.release_shared() };
    }
}

impl<T> std::ops::Deref for KglMutexExclusiveGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the exclusive get is held: this guard is the only access.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T> std::ops::DerefMut for KglMutexExclusiveGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the exclusive get is held: this guard is the only access.
        unsafe { &mut *self.mutex.data.get() }
    }
}

impl<T> Drop for KglMutexExclusiveGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the guard is the exclusive holder, given back here once.
        unsafe { self.mutex.release_exclusive() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType};
    use std::sync::{mpsc, Arc};

    /// Holds `mutex` in `mode` on another thread (in its own session) until `session` is seen
    /// waiting, so that the get under test must sleep. Returns the holder's sid.
    fn hold_until_waiting<T: Send + Sync + 'static>(
        mutex: Arc<KglMutex<T>>,
        mode: MutexMode,
        session: Arc<SessionInstrumentation>,
        request: impl FnOnce() + Send + 'static,
    ) -> u32 {
        let holder = SessionInstrumentation::new(SessionType::User, "HOLDER", "test").unwrap();
        let holder_sid = holder.sid();
        let (held_sender, held) = mpsc::channel();
        let holding = std::thread::spawn(move || {
            let _entered = enter(&holder);
            let _shared = (mode == MutexMode::Shared).then(|| mutex.shared("test holder"));
            let _exclusive = (mode == MutexMode::Exclusive).then(|| mutex.exclusive("test holder"));
            held_sender.send(()).unwrap();
            while !session.record().current_wait.read().waiting {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        held.recv().unwrap();
        request();
        holding.join().unwrap();
        holder_sid
    }

    #[test]
    fn exclusive_gets_protect_data_and_count_exactly() {
        let mutex = Arc::new(KglMutex::new(MutexType::LibraryCache, 0x1234, 0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let mutex = mutex.clone();
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        let mut guard = mutex.exclusive("kglpnal1  90");
                        // A non-atomic read-modify-write: lost updates would show a race.
                        let value = *guard;
                        *guard = value + 1;
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(*mutex.shared("test"), 40_000);
        assert_eq!(mutex.gets(), 40_001);
        assert_eq!(mutex.value(), 0);
    }

    #[test]
    fn shared_gets_count_exactly() {
        let mutex = Arc::new(KglMutex::new(MutexType::CursorPin, 77, 5u32));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let mutex = mutex.clone();
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        assert_eq!(*mutex.shared("kksfbc [KKSCHLFSP2]"), 5);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(mutex.gets(), 40_000);
        assert_eq!(mutex.value(), 0);
    }

    #[test]
    fn contended_exclusive_get_sleeps_and_is_recorded() {
        const LOCATION: &str = "kglpin1   4 (test)";
        let mutex = Arc::new(KglMutex::new(MutexType::LibraryCache, 0xABCD, ()));
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let requester = {
            let mutex = mutex.clone();
            let session = session.clone();
            move || {
                let _entered = enter(&session);
                drop(mutex.exclusive(LOCATION));
            }
        };
        let holder_sid = hold_until_waiting(
            mutex.clone(),
            MutexMode::Exclusive,
            session.clone(),
            requester,
        );
        assert!(mutex.sleeps() >= 1);
        assert_eq!(mutex.gets(), 2);
        let waits = session.event_totals(WaitEvent::LibraryCacheMutexX);
        assert_eq!(waits.total_waits, 1);
        let row = sleep_rows()
            .into_iter()
            .find(|row| row.location == LOCATION)
            .expect("v$mutex_sleep row");
        assert_eq!(row.mutex_type, MutexType::LibraryCache);
        assert_eq!(row.sleeps, mutex.sleeps());
        assert_eq!(row.wait_time, waits.time_waited_micro);
        let history = sleep_history_rows()
            .into_iter()
            .find(|row| row.location == LOCATION)
            .expect("v$mutex_sleep_history row");
        assert_eq!(history.mutex_identifier, 0xABCD);
        assert_eq!(history.requesting_session, session.sid());
        assert_eq!(history.blocking_session, holder_sid);
        assert_eq!(history.mutex_value >> 32, holder_sid as u64);
        let wait = session.record().current_wait.read();
        assert_eq!(
            (wait.event, wait.p1),
            (Some(WaitEvent::LibraryCacheMutexX), 0xABCD)
        );
    }

    #[test]
    fn shared_get_blocked_by_exclusive_waits_on_cursor_pin_s_wait_on_x() {
        let mutex = Arc::new(KglMutex::new(MutexType::CursorPin, 99, ()));
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let requester = {
            let mutex = mutex.clone();
            let session = session.clone();
            move || {
                let _entered = enter(&session);
                drop(mutex.shared("kkslce [KKSCHLPIN2]"));
            }
        };
        hold_until_waiting(
            mutex.clone(),
            MutexMode::Exclusive,
            session.clone(),
            requester,
        );
        assert_eq!(
            session
                .event_totals(WaitEvent::CursorPinSWaitOnX)
                .total_waits,
            1
        );
        assert_eq!(session.event_totals(WaitEvent::CursorPinS).total_waits, 0);
    }

    #[test]
    fn exclusive_get_waits_for_shared_holders() {
        let mutex = Arc::new(KglMutex::new(MutexType::CursorParent, 5, ()));
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let requester = {
            let mutex = mutex.clone();
            let session = session.clone();
            move || {
                let _entered = enter(&session);
                drop(mutex.exclusive("kkshGetNextChild [KKSHBKLOC1]"));
            }
        };
        let holder_sid =
            hold_until_waiting(mutex.clone(), MutexMode::Shared, session.clone(), requester);
        assert_ne!(holder_sid, 0);
        assert_eq!(session.event_totals(WaitEvent::CursorMutexX).total_waits, 1);
        assert!(mutex.try_shared().is_some());
        assert!(mutex.try_exclusive().is_some());
    }

    #[test]
    fn wait_events_follow_oracle() {
        assert_eq!(
            MutexType::CursorPin.wait_event(MutexMode::Shared, false),
            WaitEvent::CursorPinS
        );
        assert_eq!(
            MutexType::HashTable.wait_event(MutexMode::Exclusive, true),
            WaitEvent::CursorMutexX
        );
        for mutex_type in MutexType::ALL {
            assert_eq!(MutexType::from_name(mutex_type.name()), Some(mutex_type));
        }
    }
}
