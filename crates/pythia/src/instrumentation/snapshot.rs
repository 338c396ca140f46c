//! Snapshots for the v$ views: plain functions that return rows as Rust structs. The views
//! module turns them into tables; AWR snapshots store them.
//!
//! System values are `departed + unattributed + sum over live sessions`, read under the
//! registry's read lock (see `session`), so successive snapshots of a cumulative statistic or
//! event never decrease. Times are in microseconds; the views derive Oracle's centisecond
//! columns (time_waited, average_wait, ...).

use std::time::SystemTime;

use super::accounting::Counters;
use super::events::{CurrentWait, WaitEvent, WaitState, HISTOGRAM_BUCKETS};
use super::latch::{self, LatchChildStatistics, LatchName, LatchStatistics};
use super::mutex::{self, MutexSleepHistoryRow, MutexSleepRow};
use super::session::{
    registry, EventTotals, SessionRecord, SessionStatus, SessionType, UNATTRIBUTED,
};
use super::stats::Statistic;
use super::time_model::{now_micros, TimeModelStatistic};
use std::sync::atomic::Ordering::Relaxed;

/// A row of v$sysstat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatisticRow {
    pub statistic: Statistic,
    pub value: u64,
}

/// A row of v$sesstat (v$mystat is the current session's rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionStatisticRow {
    pub sid: u32,
    pub statistic: Statistic,
    pub value: u64,
}

/// A row of v$system_event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRow {
    pub event: WaitEvent,
    pub total_waits: u64,
    pub total_timeouts: u64,
    pub time_waited_micro: u64,
    pub max_wait_micro: u64,
}

/// A row of v$session_event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionEventRow {
    pub sid: u32,
    pub event: WaitEvent,
    pub total_waits: u64,
    pub total_timeouts: u64,
    pub time_waited_micro: u64,
    pub max_wait_micro: u64,
}

/// A row of v$event_histogram_micro: waits of `event` that lasted less than
/// `wait_time_micro` (a power of two) and at least half of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventHistogramRow {
    pub event: WaitEvent,
    pub wait_time_micro: u64,
    pub wait_count: u64,
}

/// A row of v$session_wait: the session's current wait, or its last one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionWaitRow {
    pub sid: u32,
    /// seq#: incremented by each wait.
    pub sequence_number: u64,
    /// None if the session has not waited yet.
    pub event: Option<WaitEvent>,
    pub p1: u64,
    pub p2: u64,
    pub p3: u64,
    pub state: WaitState,
    /// Waiting: the time waited so far. Otherwise: the duration of the last wait.
    pub wait_time_micro: u64,
    /// 0 while waiting.
    pub time_since_last_wait_micro: u64,
}

/// A row of v$session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub sid: u32,
    pub serial_number: u32,
    pub username: String,
    pub program: String,
    pub session_type: SessionType,
    pub status: SessionStatus,
    pub sql_id: Option<String>,
    /// The outermost and innermost stored PL/SQL unit running (object ids), 0 for none.
    pub plsql_entry_object_id: u32,
    pub plsql_object_id: u32,
    pub logon_time: SystemTime,
    /// The current or last wait, as in v$session_wait.
    pub event: Option<WaitEvent>,
    pub state: WaitState,
    pub wait_time_micro: u64,
    pub p1: u64,
    pub p2: u64,
    pub p3: u64,
}

/// A row of v$latch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatchRow {
    pub name: LatchName,
    pub statistics: LatchStatistics,
    /// Live children of this name.
    pub children: usize,
}

/// A row of v$sys_time_model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeModelRow {
    pub statistic: TimeModelStatistic,
    pub value: u64,
}

/// A row of v$sess_time_model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionTimeModelRow {
    pub sid: u32,
    pub statistic: TimeModelStatistic,
    pub value: u64,
}

/// Sums `read` over departed, unattributed and live sessions, in one consistent view.
fn system_sum<R>(read: impl Fn(&Counters) -> R, mut combine: impl FnMut(&mut R, R)) -> R {
    registry().with_sessions(|departed, live| {
        let mut total = read(departed);
        combine(&mut total, read(&UNATTRIBUTED));
        for session in live {
            combine(&mut total, read(&session.counters));
        }
        total
    })
}

fn statistic_values(counters: &Counters) -> [u64; Statistic::COUNT] {
    std::array::from_fn(|index| counters.statistics[index].load(Relaxed))
}

fn time_model_values(counters: &Counters) -> [u64; TimeModelStatistic::COUNT] {
    std::array::from_fn(|index| counters.time_model[index].load(Relaxed))
}

fn all_event_totals(counters: &Counters) -> Vec<EventTotals> {
    WaitEvent::ALL
        .iter()
        .map(|&event| EventTotals::read(counters, event))
        .collect()
}

fn add_arrays<const N: usize>(total: &mut [u64; N], more: [u64; N]) {
    for (sum, value) in total.iter_mut().zip(more) {
        *sum = sum.wrapping_add(value);
    }
}

/// The system value of one statistic (a row of v$sysstat).
pub fn system_statistic(statistic: Statistic) -> u64 {
    system_sum(
        |counters| counters.statistic(statistic),
        |total, value| *total = total.wrapping_add(value),
    )
}

/// v$sysstat: every statistic, in `statistic#` order.
pub fn system_statistics() -> Vec<StatisticRow> {
    let values = system_sum(statistic_values, add_arrays);
    Statistic::ALL
        .iter()
        .map(|&statistic| StatisticRow {
            statistic,
            value: values[statistic.index()],
        })
        .collect()
}

/// v$sesstat for one session: every statistic (zeros included), or nothing if `sid` is not live.
pub fn session_statistics(sid: u32) -> Vec<SessionStatisticRow> {
    registry()
        .with_session(sid, |session| {
            let values = statistic_values(&session.counters);
            Statistic::ALL
                .iter()
                .map(|&statistic| SessionStatisticRow {
                    sid,
                    statistic,
                    value: values[statistic.index()],
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The system totals of one event.
pub fn system_event(event: WaitEvent) -> EventTotals {
    system_sum(
        |counters| EventTotals::read(counters, event),
        |total, more| total.accumulate(&more),
    )
}

fn combine_event_totals(total: &mut [EventTotals], more: &[EventTotals]) {
    for (sum, value) in total.iter_mut().zip(more) {
        sum.accumulate(value);
    }
}

/// Every event's system totals, histogram included, in `event#` order (`ALL[i]`'s at `i`),
/// read in one pass: a wait being recorded meanwhile may show in `total_waits` and not yet in
/// its histogram bucket, or the reverse, but no event is read at a different moment from the
/// others. v$system_event and v$event_histogram are made of it.
pub fn system_event_totals() -> Vec<EventTotals> {
    system_sum(all_event_totals, |total, more| {
        combine_event_totals(total, &more)
    })
}

/// v$system_event: the events that have been waited on.
pub fn system_events() -> Vec<EventRow> {
    let totals = system_event_totals();
    WaitEvent::ALL
        .iter()
        .zip(totals.iter())
        .filter(|(_, totals)| totals.total_waits > 0)
        .map(|(&event, totals)| EventRow {
            event,
            total_waits: totals.total_waits,
            total_timeouts: totals.total_timeouts,
            time_waited_micro: totals.time_waited_micro,
            max_wait_micro: totals.max_wait_micro,
        })
        .collect()
}

/// v$session_event for one session: the events it has waited on.
pub fn session_events(sid: u32) -> Vec<SessionEventRow> {
    registry()
        .with_session(sid, |session| {
            WaitEvent::ALL
                .iter()
                .map(|&event| (event, EventTotals::read(&session.counters, event)))
                .filter(|(_, totals)| totals.total_waits > 0)
                .map(|(event, totals)| SessionEventRow {
                    sid,
                    event,
                    total_waits: totals.total_waits,
                    total_timeouts: totals.total_timeouts,
                    time_waited_micro: totals.time_waited_micro,
                    max_wait_micro: totals.max_wait_micro,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// v$event_histogram_micro: the non-empty buckets of every event, system-wide.
pub fn event_histograms() -> Vec<EventHistogramRow> {
    let totals = system_event_totals();
    let mut rows = Vec::new();
    for (&event, totals) in WaitEvent::ALL.iter().zip(totals.iter()) {
        for bucket in 0..HISTOGRAM_BUCKETS {
            let wait_count = totals.histogram[bucket];
            if wait_count > 0 {
                rows.push(EventHistogramRow {
                    event,
                    wait_time_micro: 1u64 << bucket,
                    wait_count,
                });
            }
        }
    }
    rows
}

fn wait_columns(wait: &CurrentWait, now: u64) -> (u64, u64) {
    if wait.waiting {
        (now.saturating_sub(wait.start_micros), 0)
    } else if wait.event.is_some() {
        (wait.duration_micros, now.saturating_sub(wait.end_micros))
    } else {
        (0, 0)
    }
}

fn session_wait_row(session: &SessionRecord, now: u64) -> SessionWaitRow {
    let wait = session.current_wait.read();
    let (wait_time_micro, time_since_last_wait_micro) = wait_columns(&wait, now);
    SessionWaitRow {
        sid: session.sid,
        sequence_number: wait.sequence_number,
        event: wait.event,
        p1: wait.p1,
        p2: wait.p2,
        p3: wait.p3,
        state: wait.state(),
        wait_time_micro,
        time_since_last_wait_micro,
    }
}

/// v$session_wait: one row per live session.
pub fn session_waits() -> Vec<SessionWaitRow> {
    let now = now_micros();
    registry().with_sessions(|_, live| {
        live.iter()
            .map(|session| session_wait_row(session, now))
            .collect()
    })
}

/// v$session: one row per live session.
pub fn sessions() -> Vec<SessionRow> {
    let now = now_micros();
    registry().with_sessions(|_, live| {
        live.iter()
            .map(|session| {
                let wait = session_wait_row(session, now);
                SessionRow {
                    sid: session.sid,
                    serial_number: session.serial_number,
                    username: session.username.lock().clone(),
                    program: session.program.lock().clone(),
                    session_type: session.session_type,
                    status: session.status(),
                    sql_id: session.sql_id(),
                    plsql_entry_object_id: session
                        .plsql_entry_object
                        .load(std::sync::atomic::Ordering::Relaxed),
                    plsql_object_id: session
                        .plsql_object
                        .load(std::sync::atomic::Ordering::Relaxed),
                    logon_time: session.logon_time,
                    event: wait.event,
                    state: wait.state,
                    wait_time_micro: wait.wait_time_micro,
                    p1: wait.p1,
                    p2: wait.p2,
                    p3: wait.p3,
                }
            })
            .collect()
    })
}

/// v$latch: every latch name, summed over its children (live and dropped).
pub fn latches() -> Vec<LatchRow> {
    latch::family_totals()
        .into_iter()
        .map(|(name, statistics, children)| LatchRow {
            name,
            statistics,
            children,
        })
        .collect()
}

/// v$latch_children: every live child latch.
pub fn latch_children() -> Vec<LatchChildStatistics> {
    latch::children()
}

/// v$mutex_sleep.
pub fn mutex_sleeps() -> Vec<MutexSleepRow> {
    mutex::sleep_rows()
}

/// v$mutex_sleep_history, oldest first.
pub fn mutex_sleep_history() -> Vec<MutexSleepHistoryRow> {
    mutex::sleep_history_rows()
}

/// v$sys_time_model.
pub fn system_time_model() -> Vec<TimeModelRow> {
    let values = system_sum(time_model_values, add_arrays);
    TimeModelStatistic::ALL
        .iter()
        .map(|&statistic| TimeModelRow {
            statistic,
            value: values[statistic.index()],
        })
        .collect()
}

/// v$sess_time_model for one session, or nothing if `sid` is not live.
pub fn session_time_model(sid: u32) -> Vec<SessionTimeModelRow> {
    registry()
        .with_session(sid, |session| {
            let values = time_model_values(&session.counters);
            TimeModelStatistic::ALL
                .iter()
                .map(|&statistic| SessionTimeModelRow {
                    sid,
                    statistic,
                    value: values[statistic.index()],
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{add, enter, user_call, wait, SessionInstrumentation};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn value_of(rows: &[SessionStatisticRow], statistic: Statistic) -> u64 {
        rows.iter()
            .find(|row| row.statistic == statistic)
            .unwrap()
            .value
    }

    #[test]
    fn system_totals_include_departed_sessions() {
        let before = system_statistic(Statistic::TableFetchContinuedRow);
        let logons_before = system_statistic(Statistic::LogonsCumulative);
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        {
            let _entered = enter(&session);
            add(Statistic::TableFetchContinuedRow, 17);
            drop(wait(WaitEvent::DbFileParallelRead, 1, 2, 3));
        }
        let sid = session.sid();
        assert_eq!(
            value_of(&session_statistics(sid), Statistic::TableFetchContinuedRow),
            17
        );
        assert!(session_events(sid)
            .iter()
            .any(|row| row.event == WaitEvent::DbFileParallelRead));
        let live = system_statistic(Statistic::TableFetchContinuedRow);
        let waits_live = system_event(WaitEvent::DbFileParallelRead).total_waits;
        drop(session);
        let departed = system_statistic(Statistic::TableFetchContinuedRow);
        assert!(live >= before + 17);
        assert!(
            departed >= live,
            "v$sysstat went backwards: {live} -> {departed}"
        );
        assert!(system_event(WaitEvent::DbFileParallelRead).total_waits >= waits_live);
        assert!(system_statistic(Statistic::LogonsCumulative) > logons_before);
    }

    #[test]
    fn system_totals_never_decrease_while_sessions_come_and_go() {
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..3)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut sessions = 0u64;
                    while !stop.load(Ordering::Relaxed) || sessions < 20 {
                        let session =
                            SessionInstrumentation::new(SessionType::User, "W", "test").unwrap();
                        let _entered = enter(&session);
                        add(Statistic::SortsRows, 3);
                        drop(wait(WaitEvent::DirectPathWriteTemp, 0, 0, 0));
                        sessions += 1;
                    }
                    sessions
                })
            })
            .collect();
        let mut previous_rows = 0;
        let mut previous_waits = 0;
        for _ in 0..300 {
            let rows = system_statistic(Statistic::SortsRows);
            let waits = system_event(WaitEvent::DirectPathWriteTemp).total_waits;
            assert!(
                rows >= previous_rows,
                "sorts (rows) went backwards: {previous_rows} -> {rows}"
            );
            assert!(
                waits >= previous_waits,
                "waits went backwards: {previous_waits} -> {waits}"
            );
            previous_rows = rows;
            previous_waits = waits;
        }
        stop.store(true, Ordering::Relaxed);
        let sessions: u64 = workers
            .into_iter()
            .map(|worker| worker.join().unwrap())
            .sum();
        assert!(system_statistic(Statistic::SortsRows) >= previous_rows.max(3 * sessions));
    }

    #[test]
    fn unattributed_counts_are_part_of_system_totals() {
        let before = system_statistic(Statistic::CursorAuthentications);
        std::thread::spawn(|| add(Statistic::CursorAuthentications, 5))
            .join()
            .unwrap();
        assert!(system_statistic(Statistic::CursorAuthentications) >= before + 5);
    }

    #[test]
    fn views_show_a_live_session() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "sqlplus").unwrap();
        session.set_sql_id(Some("9babjv8yq8ru3"));
        let sid = session.sid();
        {
            let _entered = enter(&session);
            let _call = user_call();
            drop(wait(WaitEvent::DbFileSequentialRead, 7, 8, 1));
        }
        let row = sessions()
            .into_iter()
            .find(|row| row.sid == sid)
            .expect("v$session row");
        assert_eq!(row.username, "SCOTT");
        assert_eq!(row.program, "sqlplus");
        assert_eq!(row.session_type, SessionType::User);
        assert_eq!(row.status, SessionStatus::Inactive);
        assert_eq!(row.sql_id.as_deref(), Some("9babjv8yq8ru3"));
        assert_eq!(row.event, Some(WaitEvent::DbFileSequentialRead));
        assert_ne!(row.state, WaitState::Waiting);
        let wait_row = session_waits()
            .into_iter()
            .find(|row| row.sid == sid)
            .unwrap();
        assert_eq!((wait_row.p1, wait_row.p2, wait_row.p3), (7, 8, 1));
        assert_eq!(wait_row.sequence_number, 1);
        let time_model = session_time_model(sid);
        assert_eq!(time_model.len(), TimeModelStatistic::COUNT);
        assert!(system_time_model()
            .iter()
            .any(|row| row.statistic == TimeModelStatistic::DbTime));
        assert!(event_histograms()
            .iter()
            .any(|row| row.event == WaitEvent::DbFileSequentialRead));
        assert_eq!(system_statistics().len(), Statistic::COUNT);
        assert_eq!(latches().len(), LatchName::COUNT);
    }
}
