//! The time model: v$sys_time_model and v$sess_time_model, in microseconds.
//!
//! ```text
//!   DB time                                  (user calls, elapsed, idle waits left out)
//!     DB CPU                                 (user calls, thread CPU time)
//!     connection management call elapsed time
//!     sequence load elapsed time
//!     sql execute elapsed time
//!     parse time elapsed
//!       hard parse elapsed time
//!         hard parse (sharing criteria) elapsed time
//!       failed parse elapsed time
//!     PL/SQL execution elapsed time
//!     PL/SQL compilation elapsed time
//!   background elapsed time                  (calls made by background sessions)
//!     background cpu time
//! ```
//!
//! Two guards measure time:
//!
//! - `user_call()` brackets one call from the client (parse, execute, fetch; for a background
//!   process, one unit of work). Only the outermost call of a session counts elapsed and CPU
//!   time, so nested (recursive) calls are not counted twice; each call counts `user calls`
//!   (outermost) or `recursive calls` (nested). A user session is ACTIVE while a call runs.
//!   DB time is the call's elapsed time minus the idle waits inside it. The centisecond
//!   statistics `DB time`, `CPU used by this session` and `recursive cpu usage` follow.
//! - `timed(statistic)` brackets a section such as a parse or an execution; nested sections of
//!   the same statistic count once. A `parse time elapsed` section also measures CPU for
//!   `parse time cpu`.
//!
//! CPU time is the thread's own (`CLOCK_THREAD_CPUTIME_ID`), elapsed time a monotonic clock.
//! Reading the thread's CPU clock is a system call (0.5 us on the lab's VM, where a whole
//! point select takes 2 us), so `cpu_clock_nanos` reads it only when it must: an interval
//! shorter than `CPU_CLOCK_EXTRAPOLATION_NANOS` since the last reading is counted as CPU
//! time (no thread is preempted and scheduled again, or sleeps and is woken, that fast),
//! and a longer one, or one more than `CPU_CLOCK_REFRESH_NANOS` after the last system
//! call, reads the clock. A short call's CPU time is then its elapsed time, and a call that
//! waited or was preempted is measured by the kernel.

use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::OnceLock;
use std::time::Instant;

use super::accounting::{Counters, Writer};
use super::session::{SessionStatus, SessionType, Target};
use super::stats::Statistic;

/// Declares `TimeModelStatistic` from rows of (variant, name, parent).
macro_rules! time_model_statistics {
    ($($variant:ident = ($name:literal, $parent:expr),)*) => {
        /// A statistic of v$sys_time_model, in microseconds.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum TimeModelStatistic {
            $(
                #[doc = $name]
                $variant,
            )*
        }

        impl TimeModelStatistic {
            pub const ALL: [TimeModelStatistic; TimeModelStatistic::COUNT] =
                [$(TimeModelStatistic::$variant,)*];

            pub const COUNT: usize = [$($name,)*].len();

            /// Oracle's exact name, as in v$sys_time_model.stat_name.
            pub const fn name(self) -> &'static str {
                match self {
                    $(TimeModelStatistic::$variant => $name,)*
                }
            }

            /// The statistic this one is part of, in the tree of the module documentation.
            pub const fn parent(self) -> Option<TimeModelStatistic> {
                match self {
                    $(TimeModelStatistic::$variant => $parent,)*
                }
            }
        }
    };
}

use TimeModelStatistic as T;

time_model_statistics! {
    DbTime = ("DB time", None),
    DbCpu = ("DB CPU", Some(T::DbTime)),
    ConnectionManagementCallElapsedTime = ("connection management call elapsed time", Some(T::DbTime)),
    SequenceLoadElapsedTime = ("sequence load elapsed time", Some(T::DbTime)),
    SqlExecuteElapsedTime = ("sql execute elapsed time", Some(T::DbTime)),
    ParseTimeElapsed = ("parse time elapsed", Some(T::DbTime)),
    HardParseElapsedTime = ("hard parse elapsed time", Some(T::ParseTimeElapsed)),
    HardParseSharingCriteriaElapsedTime = ("hard parse (sharing criteria) elapsed time", Some(T::HardParseElapsedTime)),
    FailedParseElapsedTime = ("failed parse elapsed time", Some(T::ParseTimeElapsed)),
    PlsqlExecutionElapsedTime = ("PL/SQL execution elapsed time", Some(T::DbTime)),
    PlsqlCompilationElapsedTime = ("PL/SQL compilation elapsed time", Some(T::DbTime)),
    BackgroundElapsedTime = ("background elapsed time", None),
    BackgroundCpuTime = ("background cpu time", Some(T::BackgroundElapsedTime)),
}

impl TimeModelStatistic {
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn from_name(name: &str) -> Option<TimeModelStatistic> {
        TimeModelStatistic::ALL
            .iter()
            .copied()
            .find(|statistic| statistic.name() == name)
    }

    /// Measured by `user_call`, not by `timed`.
    pub const fn is_call_level(self) -> bool {
        matches!(
            self,
            T::DbTime | T::DbCpu | T::BackgroundElapsedTime | T::BackgroundCpuTime
        )
    }
}

/// Microseconds since the instrumentation's epoch (the first call), from a monotonic clock.
#[inline]
pub fn now_micros() -> u64 {
    now_nanos() / 1_000
}

/// Nanoseconds since the instrumentation's epoch (the first call), from a monotonic clock.
#[inline]
pub fn now_nanos() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// CPU time consumed by the calling thread, in microseconds (0 where the platform has no
/// per-thread CPU clock). A system call each time; see `cpu_clock_nanos`.
pub fn thread_cpu_micros() -> u64 {
    thread_cpu_nanos() / 1_000
}

fn thread_cpu_nanos() -> u64 {
    #[cfg(unix)]
    {
        let mut time = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `time` is a valid, writable timespec; the clock id is a constant.
        let result = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
        if result != 0 {
            return 0;
        }
        (time.tv_sec as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(time.tv_nsec as u64)
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// An interval shorter than this since the thread's last CPU clock reading is counted as
/// CPU time without reading the clock: shorter than a preemption (a scheduler slice is
/// 0.75 ms or more) and than a sleep and wake-up through the kernel. What it can overcount is
/// a sub-10 us stretch off the CPU, once per interval.
pub const CPU_CLOCK_EXTRAPOLATION_NANOS: u64 = 10_000;

/// The thread's CPU clock is read through the kernel at least this often while it is used,
/// which bounds what extrapolated intervals can add up to wrongly.
pub const CPU_CLOCK_REFRESH_NANOS: u64 = 1_000_000;

/// The last CPU clock value this thread handed out, when (monotonic) it was valid, and when
/// the kernel was last asked.
#[derive(Clone, Copy)]
struct CpuClockAnchor {
    cpu_nanos: u64,
    at_nanos: u64,
    read_at_nanos: u64,
}

thread_local! {
    static CPU_CLOCK: Cell<Option<CpuClockAnchor>> = const { Cell::new(None) };
}

/// The calling thread's CPU time at monotonic time `now_nanos` (from `now_nanos()`), read
/// from the kernel or extrapolated as the module documentation says.
pub fn cpu_clock_nanos(now_nanos: u64) -> u64 {
    if cfg!(not(unix)) {
        return 0; // no per-thread clock to extrapolate from
    }
    let anchor = CPU_CLOCK.with(Cell::get).and_then(|anchor| {
        let since = now_nanos.checked_sub(anchor.at_nanos)?;
        let fresh = now_nanos.saturating_sub(anchor.read_at_nanos) < CPU_CLOCK_REFRESH_NANOS;
        (since < CPU_CLOCK_EXTRAPOLATION_NANOS && fresh).then_some(CpuClockAnchor {
            cpu_nanos: anchor.cpu_nanos + since,
            at_nanos: now_nanos,
            read_at_nanos: anchor.read_at_nanos,
        })
    });
    let anchor = anchor.unwrap_or_else(|| CpuClockAnchor {
        cpu_nanos: thread_cpu_nanos(),
        at_nanos: now_nanos,
        read_at_nanos: now_nanos,
    });
    CPU_CLOCK.with(|clock| clock.set(Some(anchor)));
    anchor.cpu_nanos
}

thread_local! {
    /// Nesting depths for threads with no session (a session keeps its own).
    static UNATTRIBUTED_CALL_DEPTH: Cell<u32> = const { Cell::new(0) };
    static UNATTRIBUTED_SECTION_DEPTHS: [Cell<u32>; TimeModelStatistic::COUNT] =
        const { [const { Cell::new(0) }; TimeModelStatistic::COUNT] };
}

/// Increments the call depth of `target` and returns the depth before.
fn enter_call(target: &Target) -> u32 {
    match target {
        Target::Session(session) => {
            let depth = &session.record().call_depth;
            let before = depth.load(Relaxed);
            depth.store(before + 1, Relaxed);
            before
        }
        Target::Unattributed => {
            UNATTRIBUTED_CALL_DEPTH.with(|depth| depth.replace(depth.get() + 1))
        }
    }
}

fn exit_call(target: &Target) {
    match target {
        Target::Session(session) => {
            let depth = &session.record().call_depth;
            depth.store(depth.load(Relaxed).saturating_sub(1), Relaxed);
        }
        Target::Unattributed => {
            let _ =
                UNATTRIBUTED_CALL_DEPTH.try_with(|depth| depth.set(depth.get().saturating_sub(1)));
        }
    }
}

fn enter_section(target: &Target, statistic: TimeModelStatistic) -> u32 {
    match target {
        Target::Session(session) => {
            let depth = &session.record().section_depths[statistic.index()];
            let before = depth.load(Relaxed);
            depth.store(before + 1, Relaxed);
            before
        }
        Target::Unattributed => UNATTRIBUTED_SECTION_DEPTHS.with(|depths| {
            let depth = &depths[statistic.index()];
            depth.replace(depth.get() + 1)
        }),
    }
}

fn exit_section(target: &Target, statistic: TimeModelStatistic) {
    match target {
        Target::Session(session) => {
            let depth = &session.record().section_depths[statistic.index()];
            depth.store(depth.load(Relaxed).saturating_sub(1), Relaxed);
        }
        Target::Unattributed => {
            let _ = UNATTRIBUTED_SECTION_DEPTHS.try_with(|depths| {
                let depth = &depths[statistic.index()];
                depth.set(depth.get().saturating_sub(1));
            });
        }
    }
}

/// Measures one call; see the module documentation. Created by `user_call()`.
#[must_use = "the call is measured until the guard is dropped"]
pub struct UserCall {
    target: Target,
    outermost: bool,
    start_nanos: u64,
    start_cpu_nanos: u64,
    start_idle_micros: u64,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Starts measuring a call of the current session. See the module documentation.
pub fn user_call() -> UserCall {
    let target = Target::current();
    let outermost = enter_call(&target) == 0;
    let (counters, writer) = target.counters();
    if outermost {
        if target.session_type() == SessionType::User {
            counters.add_statistic(writer, Statistic::UserCalls, 1);
        }
        if let Target::Session(session) = &target {
            session.record().set_status(SessionStatus::Active);
        }
    } else {
        counters.add_statistic(writer, Statistic::RecursiveCalls, 1);
    }
    let start_idle_micros = counters.idle_wait_micros();
    let start_nanos = now_nanos();
    UserCall {
        outermost,
        start_nanos,
        start_cpu_nanos: cpu_clock_nanos(start_nanos),
        start_idle_micros,
        target,
        _not_send: std::marker::PhantomData,
    }
}

impl UserCall {
    /// Whether this is the session's outermost call (the one that counts time).
    pub fn is_outermost(&self) -> bool {
        self.outermost
    }
}

impl Drop for UserCall {
    fn drop(&mut self) {
        let end_nanos = now_nanos();
        let cpu_micros = micros_between(self.start_cpu_nanos, cpu_clock_nanos(end_nanos));
        let elapsed_micros = micros_between(self.start_nanos, end_nanos);
        exit_call(&self.target);
        let (counters, writer) = self.target.counters();
        if !self.outermost {
            counters.add_micros_and_centiseconds(
                writer,
                &counters.recursive_cpu_micros,
                cpu_micros,
                Statistic::RecursiveCpuUsage,
            );
            return;
        }
        let idle_micros = counters
            .idle_wait_micros()
            .wrapping_sub(self.start_idle_micros);
        let busy_micros = elapsed_micros.saturating_sub(idle_micros);
        record_call_time(
            counters,
            writer,
            self.target.session_type(),
            busy_micros,
            cpu_micros,
        );
        if let Target::Session(session) = &self.target {
            if session.session_type() == SessionType::User {
                session.record().set_status(SessionStatus::Inactive);
            }
        }
    }
}

/// The microseconds from `start` to `end` (nanoseconds), as the difference of the two in
/// whole microseconds: summed over many short intervals this neither loses nor adds the
/// fractions a per-interval rounding would.
fn micros_between(start_nanos: u64, end_nanos: u64) -> u64 {
    (end_nanos / 1_000).saturating_sub(start_nanos / 1_000)
}

fn record_call_time(
    counters: &Counters,
    writer: Writer,
    session_type: SessionType,
    busy_micros: u64,
    cpu_micros: u64,
) {
    match session_type {
        SessionType::User => {
            counters.add_micros_and_centiseconds(
                writer,
                &counters.time_model[T::DbTime.index()],
                busy_micros,
                Statistic::DbTime,
            );
            writer.add(&counters.time_model[T::DbCpu.index()], cpu_micros);
        }
        SessionType::Background => {
            writer.add(
                &counters.time_model[T::BackgroundElapsedTime.index()],
                busy_micros,
            );
            writer.add(
                &counters.time_model[T::BackgroundCpuTime.index()],
                cpu_micros,
            );
        }
    }
    counters.add_micros_and_centiseconds(
        writer,
        &counters.call_cpu_micros,
        cpu_micros,
        Statistic::CpuUsedByThisSession,
    );
}

/// Measures one section of a time-model statistic. Created by `timed()`.
#[must_use = "the section is measured until the guard is dropped"]
pub struct TimedSection {
    target: Target,
    statistic: TimeModelStatistic,
    outermost: bool,
    start_nanos: u64,
    /// Only measured for `parse time elapsed` (for `parse time cpu`).
    start_cpu_nanos: Option<u64>,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Starts measuring a section of `statistic` (not one of the call-level statistics, which
/// `user_call` measures). See the module documentation.
pub fn timed(statistic: TimeModelStatistic) -> TimedSection {
    debug_assert!(
        !statistic.is_call_level(),
        "{} is measured by user_call",
        statistic.name()
    );
    let target = Target::current();
    let outermost = enter_section(&target, statistic) == 0;
    let measure_cpu = outermost && statistic == T::ParseTimeElapsed;
    let start_nanos = now_nanos();
    TimedSection {
        target,
        statistic,
        outermost,
        start_nanos,
        start_cpu_nanos: measure_cpu.then(|| cpu_clock_nanos(start_nanos)),
        _not_send: std::marker::PhantomData,
    }
}

impl Drop for TimedSection {
    fn drop(&mut self) {
        let end_nanos = now_nanos();
        let elapsed_micros = micros_between(self.start_nanos, end_nanos);
        exit_section(&self.target, self.statistic);
        if !self.outermost {
            return;
        }
        let (counters, writer) = self.target.counters();
        let cell = &counters.time_model[self.statistic.index()];
        if self.statistic == T::ParseTimeElapsed {
            counters.add_micros_and_centiseconds(
                writer,
                cell,
                elapsed_micros,
                Statistic::ParseTimeElapsed,
            );
        } else {
            writer.add(cell, elapsed_micros);
        }
        if let Some(start_cpu_nanos) = self.start_cpu_nanos {
            let cpu_micros = micros_between(start_cpu_nanos, cpu_clock_nanos(end_nanos));
            counters.add_micros_and_centiseconds(
                writer,
                &counters.parse_cpu_micros,
                cpu_micros,
                Statistic::ParseTimeCpu,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation};
    use std::collections::HashSet;

    /// Spins until the thread has used at least `cpu_micros` of CPU.
    fn burn_cpu(cpu_micros: u64) -> u64 {
        let start = thread_cpu_micros();
        let mut accumulator: u64 = 0;
        while thread_cpu_micros() < start + cpu_micros {
            for step in 0..10_000u64 {
                accumulator = accumulator
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(step);
            }
            std::hint::black_box(accumulator);
        }
        accumulator
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        let names: HashSet<_> = TimeModelStatistic::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), TimeModelStatistic::COUNT);
        for statistic in TimeModelStatistic::ALL {
            assert_eq!(
                TimeModelStatistic::from_name(statistic.name()),
                Some(statistic)
            );
            assert_eq!(TimeModelStatistic::ALL[statistic.index()], statistic);
        }
        assert_eq!(T::HardParseElapsedTime.parent(), Some(T::ParseTimeElapsed));
    }

    #[test]
    fn thread_cpu_time_increases_after_busy_work() {
        let before = thread_cpu_micros();
        burn_cpu(20_000);
        let after = thread_cpu_micros();
        assert!(after >= before + 20_000, "before {before} after {after}");
    }

    #[test]
    fn the_cpu_clock_extrapolates_short_intervals_and_reads_the_kernel_for_long_ones() {
        let start = now_nanos() + CPU_CLOCK_REFRESH_NANOS;
        let first = cpu_clock_nanos(start);
        // A short interval is counted as CPU time, exactly.
        let short = CPU_CLOCK_EXTRAPOLATION_NANOS / 2;
        assert_eq!(cpu_clock_nanos(start + short), first + short);
        // A long one is the kernel's reading.
        let before = thread_cpu_nanos();
        let long = cpu_clock_nanos(start + short + CPU_CLOCK_EXTRAPOLATION_NANOS);
        let after = thread_cpu_nanos();
        assert!(before <= long && long <= after, "{before} {long} {after}");
        // Short steps add up only until the refresh interval: then the kernel is asked.
        let mut now = start + short + CPU_CLOCK_EXTRAPOLATION_NANOS;
        let mut extrapolated = long;
        let steps = CPU_CLOCK_REFRESH_NANOS / short;
        for _ in 1..steps {
            now += short;
            extrapolated += short;
            assert_eq!(cpu_clock_nanos(now), extrapolated);
        }
        let before = thread_cpu_nanos();
        let refreshed = cpu_clock_nanos(now + short);
        assert!(before <= refreshed && refreshed <= thread_cpu_nanos());
        // A clock going back (another epoch reading raced) reads the kernel too.
        let before = thread_cpu_nanos();
        let back = cpu_clock_nanos(now);
        assert!(before <= back && back <= thread_cpu_nanos());
    }

    #[test]
    fn a_call_that_sleeps_counts_its_time_but_not_as_cpu() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = enter(&session);
        for _ in 0..3 {
            let _call = user_call();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let db_cpu = session.time_model(T::DbCpu);
        let db_time = session.time_model(T::DbTime);
        assert!(db_time >= 60_000, "DB time {db_time}");
        assert!(db_cpu < 30_000, "DB CPU {db_cpu} of DB time {db_time}");
    }

    #[test]
    fn many_short_calls_add_up_to_the_thread_cpu_they_used() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = enter(&session);
        let before = thread_cpu_micros();
        let mut accumulator = 0u64;
        for call in 0..20_000u64 {
            let _call = user_call();
            for step in 0..200u64 {
                accumulator = accumulator.wrapping_mul(31).wrapping_add(step ^ call);
            }
            std::hint::black_box(accumulator);
        }
        let used = thread_cpu_micros() - before;
        let db_cpu = session.time_model(T::DbCpu);
        // The calls are most of the loop: their CPU is neither lost nor invented.
        assert!(db_cpu <= used + 1_000, "DB CPU {db_cpu} thread CPU {used}");
        assert!(db_cpu * 4 >= used, "DB CPU {db_cpu} thread CPU {used}");
    }

    #[test]
    fn user_call_records_db_time_and_cpu_once_for_nested_calls() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = enter(&session);
        assert_eq!(session.status(), SessionStatus::Inactive);
        let wall = Instant::now();
        {
            let call = user_call();
            assert!(call.is_outermost());
            assert_eq!(session.status(), SessionStatus::Active);
            burn_cpu(15_000);
            {
                let recursive = user_call();
                assert!(!recursive.is_outermost());
                burn_cpu(15_000);
            }
        }
        let wall_micros = wall.elapsed().as_micros() as u64;
        assert_eq!(session.status(), SessionStatus::Inactive);
        assert_eq!(session.statistic(Statistic::UserCalls), 1);
        assert_eq!(session.statistic(Statistic::RecursiveCalls), 1);
        let db_time = session.time_model(T::DbTime);
        let db_cpu = session.time_model(T::DbCpu);
        assert!(db_cpu >= 30_000, "DB CPU {db_cpu}");
        // Counted once: the nested call's time is inside the outer call's, not added again.
        assert!(
            db_time <= wall_micros + 1,
            "DB time {db_time} wall {wall_micros}"
        );
        assert!(session.statistic(Statistic::CpuUsedByThisSession) >= 3);
        assert!(session.statistic(Statistic::RecursiveCpuUsage) >= 1);
        assert_eq!(session.statistic(Statistic::DbTime), db_time / 10_000);
        assert_eq!(session.time_model(T::BackgroundElapsedTime), 0);
    }

    #[test]
    fn background_calls_count_background_time_not_db_time() {
        let session = SessionInstrumentation::new(SessionType::Background, "SYS", "LGWR").unwrap();
        let _entered = enter(&session);
        assert_eq!(session.status(), SessionStatus::Active);
        {
            let _work = user_call();
            burn_cpu(5_000);
        }
        assert_eq!(session.status(), SessionStatus::Active);
        assert_eq!(session.time_model(T::DbTime), 0);
        assert_eq!(session.time_model(T::DbCpu), 0);
        assert_eq!(session.statistic(Statistic::UserCalls), 0);
        assert!(session.time_model(T::BackgroundCpuTime) >= 5_000);
        assert!(session.time_model(T::BackgroundElapsedTime) > 0);
    }

    #[test]
    fn nested_sections_of_one_statistic_count_once() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = enter(&session);
        let wall = Instant::now();
        {
            let _parse = timed(T::ParseTimeElapsed);
            {
                let _again = timed(T::ParseTimeElapsed);
                let _hard = timed(T::HardParseElapsedTime);
                burn_cpu(12_000);
            }
        }
        let wall_micros = wall.elapsed().as_micros() as u64;
        let parse = session.time_model(T::ParseTimeElapsed);
        let hard = session.time_model(T::HardParseElapsedTime);
        assert!(hard > 0 && hard <= parse, "hard {hard} parse {parse}");
        assert!(parse <= wall_micros + 1, "parse {parse} wall {wall_micros}");
        assert!(session.statistic(Statistic::ParseTimeCpu) >= 1);
        assert_eq!(
            session.statistic(Statistic::ParseTimeElapsed),
            parse / 10_000
        );
    }

    #[test]
    fn calls_without_a_session_are_unattributed() {
        let before = super::super::session::UNATTRIBUTED.statistic(Statistic::RecursiveCalls);
        {
            let _outer = user_call();
            let _inner = user_call();
        }
        let after = super::super::session::UNATTRIBUTED.statistic(Statistic::RecursiveCalls);
        assert!(after > before);
    }
}
