//! Interrupting a running statement: a client's cancel (ORA-01013: user requested cancel of
//! current operation), its time limit, `statement_timeout` (ORA-00040: active time limit
//! exceeded - call aborted, as Oracle's Resource Manager cancels a call), or its client gone
//! (ORA-03113: end-of-file on communication channel, found by the server's dead connection
//! check).
//!
//! ```text
//!   any thread: Interrupter::cancel, ──> the session's flag
//!               Interrupter::client_gone
//!                                            │ read where the statement may stop:
//!   session thread: interruptible(limit, work)   at each consistent get and each row a
//!     armed ──────────────────────────────────   join or scan considers (the flag, and the
//!       work: a query's execution, a DML         clock every CLOCK_CHECK_GETS checks), and
//!       statement's row work                     every 100 ms of a row lock wait
//!                                            ──> Err(ORA-01013 | ORA-00040 | ORA-03113)
//!     disarmed: what follows (statement rollback, commit)
//! ```
//!
//! Invariants:
//! 1. A check fails only inside an armed section, and only the engine arms: a query's
//!    execution and a DML statement's work on its rows. Statement-level rollback, commit,
//!    rollback and recovery run disarmed (`shielded` disarms inside an armed section), so
//!    they always run to their end: an interrupted statement undoes its own changes as any
//!    failed statement does, and the session and its transaction go on.
//! 2. A cancel that arrives while no statement is armed is dropped when the next statement
//!    arms, as PostgreSQL ignores a cancel between queries.
//! 3. One interrupt fails one statement: the check that reports it clears it.
//!
//! Cost on the hit path: a consistent get reads one thread-local flag; only an armed one
//! loads the session's flag, and the clock once every `CLOCK_CHECK_GETS` checks.

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::session::{with_current, SessionRecord};
use crate::error::{Error, Result};

/// No interrupt requested.
const NONE: u8 = 0;
/// A client asked to cancel the running statement.
const CANCEL: u8 = 1;
/// The session's client went away while the statement ran.
const CLIENT_GONE: u8 = 2;

/// Checks between two readings of the clock for `statement_timeout`.
pub const CLOCK_CHECK_GETS: u32 = 256;

/// The interrupt state of a session, on its record.
#[derive(Default)]
pub(crate) struct InterruptFlag(AtomicU8);

/// What a thread knows of the section it runs: armed or not, and its deadline.
#[derive(Clone, Copy)]
struct Section {
    armed: bool,
    deadline: Option<Instant>,
    /// Checks left before the next reading of the clock.
    countdown: u32,
}

thread_local! {
    static SECTION: Cell<Section> = const {
        Cell::new(Section {
            armed: false,
            deadline: None,
            countdown: CLOCK_CHECK_GETS,
        })
    };
}

/// A handle that interrupts a session's running statement from any thread (a server's
/// cancel request); it keeps no session alive beyond its record.
#[derive(Clone)]
pub struct Interrupter(pub(crate) Arc<SessionRecord>);

impl Interrupter {
    /// Asks the session's running statement to stop with ORA-01013.
    pub fn cancel(&self) {
        self.0.interrupt.0.store(CANCEL, Ordering::Release);
    }

    /// Stops the session's running statement with ORA-03113: its client is gone, and
    /// nobody will read the answer.
    pub fn client_gone(&self) {
        self.0.interrupt.0.store(CLIENT_GONE, Ordering::Release);
    }
}

/// ORA-00040, the error of a statement stopped by `statement_timeout`.
pub fn time_limit_exceeded() -> Error {
    Error::new(40, "active time limit exceeded - call aborted")
}

/// Whether `error` is an interrupt (a cancel, a time limit, a client gone): what a PL/SQL
/// handler does not catch, so that no loop outlives it.
pub fn is_interrupt(error: &Error) -> bool {
    let code = error.code();
    code == Error::cancelled().code()
        || code == Error::client_gone().code()
        || code == time_limit_exceeded().code()
}

/// Runs `work` armed: the checks inside it fail on a cancel, or once `limit` has passed.
/// A cancel left from before is dropped first (invariant 2), unless this section is nested
/// in an armed one (a PL/SQL call's recursive SQL): a cancel that arrived between two of its
/// statements then stops the next, and the nearer deadline holds.
pub fn interruptible<T>(limit: Option<Duration>, work: impl FnOnce() -> Result<T>) -> Result<T> {
    let outer = SECTION.with(Cell::get);
    if !outer.armed {
        with_current(|current| {
            if let Some(session) = current {
                session.record().interrupt.0.store(NONE, Ordering::Relaxed);
            }
        });
    }
    let deadline = limit.map(|limit| Instant::now() + limit);
    let deadline = match (outer.armed.then_some(outer.deadline).flatten(), deadline) {
        (Some(outer), Some(inner)) => Some(outer.min(inner)),
        (outer, inner) => outer.or(inner),
    };
    let section = Section {
        armed: true,
        deadline,
        countdown: CLOCK_CHECK_GETS,
    };
    with_section(section, work)
}

/// Runs `work` disarmed, even inside an armed section: for what must run to its end.
pub fn shielded<T>(work: impl FnOnce() -> T) -> T {
    let section = Section {
        armed: false,
        deadline: None,
        countdown: CLOCK_CHECK_GETS,
    };
    with_section(section, work)
}

fn with_section<T>(section: Section, work: impl FnOnce() -> T) -> T {
    /// Restores the enclosing section however `work` ends.
    struct Restore(Section);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = SECTION.try_with(|current| current.set(self.0));
        }
    }
    let _restore = Restore(SECTION.with(|current| current.replace(section)));
    work()
}

/// Fails with the pending interrupt when the thread runs an armed section: a cancel of the
/// current session (ORA-01013), its client gone (ORA-03113), or its deadline passed
/// (ORA-00040). Called at each
/// consistent get and at each row a query's sources give.
#[inline]
pub fn check() -> Result<()> {
    let Ok(mut section) = SECTION.try_with(Cell::get) else {
        return Ok(());
    };
    if !section.armed {
        return Ok(());
    }
    let interrupt = with_current(|current| {
        current.map_or(NONE, |session| {
            // A plain load first: the read-modify-write only when there is something to take.
            let flag = &session.record().interrupt.0;
            match flag.load(Ordering::Relaxed) {
                NONE => NONE,
                _ => flag.swap(NONE, Ordering::AcqRel),
            }
        })
    });
    match interrupt {
        CANCEL => return Err(Error::cancelled()),
        CLIENT_GONE => return Err(Error::client_gone()),
        _ => {}
    }
    if let Some(deadline) = section.deadline {
        section.countdown -= 1;
        if section.countdown == 0 {
            section.countdown = CLOCK_CHECK_GETS;
            if Instant::now() >= deadline {
                // One interrupt fails one statement.
                section.deadline = None;
                SECTION.with(|current| current.set(section));
                return Err(time_limit_exceeded());
            }
        }
        SECTION.with(|current| current.set(section));
    }
    Ok(())
}

/// `check` for a waiter that does no gets (a row lock wait): the clock is read every time.
pub fn check_waiting() -> Result<()> {
    SECTION.with(|current| {
        let mut section = current.get();
        section.countdown = 1;
        current.set(section);
    });
    check()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{enter, SessionInstrumentation, SessionType};

    fn session() -> Arc<SessionInstrumentation> {
        SessionInstrumentation::new(SessionType::User, "TEST", "interrupt").unwrap()
    }

    #[test]
    fn a_cancel_fails_one_armed_check_and_nothing_outside() {
        let session = session();
        let _entered = enter(&session);
        let interrupter = session.interrupter();
        // Disarmed: a cancel is not seen.
        interrupter.cancel();
        assert!(check().is_ok());
        let outcome: Result<()> = interruptible(None, || {
            // The cancel from before the statement was dropped when it armed.
            check()?;
            interrupter.cancel();
            // Shielded work inside the armed section is not interrupted; the next armed
            // check is.
            shielded(check)?;
            check()
        });
        assert_eq!(outcome.unwrap_err().code(), 1013);
        // One interrupt, one failure.
        assert!(interruptible(None, check).is_ok());
    }

    #[test]
    fn a_gone_client_fails_one_armed_check_with_ora_03113() {
        let session = session();
        let _entered = enter(&session);
        let interrupter = session.interrupter();
        let outcome: Result<()> = interruptible(None, || {
            check()?;
            interrupter.client_gone();
            check()
        });
        let error = outcome.unwrap_err();
        assert_eq!((error.code(), error.sqlstate()), (3113, "08006"));
        assert!(interruptible(None, check).is_ok());
    }

    #[test]
    fn a_deadline_fails_a_check_after_it_passes() {
        let session = session();
        let _entered = enter(&session);
        let outcome = interruptible(Some(Duration::ZERO), || {
            for _ in 0..CLOCK_CHECK_GETS * 2 {
                check()?;
            }
            Ok(())
        });
        assert_eq!(outcome.unwrap_err().code(), 40);
        let outcome = interruptible(Some(Duration::from_secs(3600)), || {
            for _ in 0..CLOCK_CHECK_GETS * 2 {
                check()?;
            }
            check_waiting()
        });
        assert!(outcome.is_ok());
        // The section ends with the statement.
        assert!(check().is_ok());
    }
}
