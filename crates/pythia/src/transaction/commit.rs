//! COMMIT's write options: whether a commit waits until its redo is durable (WAIT, NOWAIT)
//! and whether its commit record starts a redo write (IMMEDIATE, BATCH); which level's
//! choice wins; the statistics that count both.
//!
//! Three levels may choose, and the nearest wins, as in Oracle:
//!
//! ```text
//!   COMMIT WRITE [WAIT|NOWAIT] [IMMEDIATE|BATCH]      the statement
//!   ALTER SESSION SET commit_wait / commit_logging    the session
//!   ALTER SYSTEM SET  commit_wait / commit_logging    the system (also init.ora, -p)
//!   none of them                                      WAIT IMMEDIATE
//! ```
//!
//! The two choices are made separately: `COMMIT WRITE BATCH` in a session with
//! `commit_wait = NOWAIT` is NOWAIT BATCH. One exception, `commit_wait = FORCE_WAIT`: set
//! for the system, every commit is WAIT IMMEDIATE, whatever the session and the statement
//! ask; set for the session, whatever the statement asks. Oracle's reference calls this
//! "the default behavior (immediate flushing of the redo log buffer with wait)", so it forces
//! IMMEDIATE as well as WAIT. (Its note that altering `commit_logging` after `FORCE_WAIT`
//! makes `FORCE_WAIT` invalid, which depends on the order of the two changes, is not
//! modelled: here `FORCE_WAIT` holds until `commit_wait` itself is changed.)
//!
//! What each choice does (`RedoLog::commit_redo`):
//!
//! ```text
//!              IMMEDIATE                              BATCH
//!   WAIT       write now (the session itself, or      no write started: LGWR writes at its
//!              LGWR if a write is in progress),       own triggers (another commit's write,
//!              'log file sync' until durable          a third of the buffer, 3 s), and
//!                                                     'log file sync' until it has
//!   NOWAIT     post LGWR, return at once              return at once
//! ```
//!
//! Every commit is visible to other sessions once its SCN is published, before any of this
//! (as in Oracle). A NOWAIT commit is not durable when it returns: a crash loses the commits
//! whose records were still in the log buffer, at most the unwritten tail of the redo stream,
//! never a commit before a durable one.
//!
//! Statistics (Oracle's names): each COMMIT statement that ends a transaction with changes
//! counts once in `commit wait/nowait requested` and in one of `commit wait requested` or
//! `commit nowait requested`, likewise `commit batch/immediate requested` and one of `commit
//! batch requested` or `commit immediate requested`: what the statement and the parameters
//! asked for, the default counting as WAIT IMMEDIATE. The `... performed` ones count what was
//! done, which differs from what was asked only under FORCE_WAIT. A COMMIT with nothing to
//! commit writes no redo and counts in none of them. Implicit commits (DDL's, and the
//! catalog's own transactions) are always WAIT IMMEDIATE and are not counted either.

use crate::instrumentation::{self, Statistic};

/// What a commit does with its redo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitOptions {
    /// WAIT: return once the commit record is durable. NOWAIT: return at once.
    pub wait: bool,
    /// IMMEDIATE: the commit record starts a write. BATCH: LGWR writes it when it would anyway.
    pub immediate: bool,
}

impl CommitOptions {
    /// The default, and what implicit commits always do.
    pub const WAIT_IMMEDIATE: CommitOptions = CommitOptions {
        wait: true,
        immediate: true,
    };
}

/// What one level asks for: `None` where it leaves the choice to the next level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitRequest {
    pub wait: Option<bool>,
    pub immediate: Option<bool>,
}

/// `commit_wait` and `commit_logging` as set at one level (the session or the system).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitSetting {
    pub request: CommitRequest,
    /// `commit_wait = FORCE_WAIT`.
    pub force_wait: bool,
}

impl CommitSetting {
    /// From the two parameters' values as `v$parameter` shows them: the empty string when
    /// unset. The parameter layer has validated them (ORA-00096 otherwise).
    pub fn from_parameters(commit_wait: &str, commit_logging: &str) -> CommitSetting {
        let wait = match commit_wait {
            "WAIT" | "FORCE_WAIT" => Some(true),
            "NOWAIT" => Some(false),
            _ => None,
        };
        let immediate = match commit_logging {
            "IMMEDIATE" => Some(true),
            "BATCH" => Some(false),
            _ => None,
        };
        CommitSetting {
            request: CommitRequest { wait, immediate },
            force_wait: commit_wait == "FORCE_WAIT",
        }
    }
}

/// What a commit was asked to do and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitDecision {
    pub requested: CommitOptions,
    pub performed: CommitOptions,
}

impl CommitDecision {
    /// The nearest level that chose wins for each choice (statement, session, system,
    /// default); FORCE_WAIT at the session or the system level makes it WAIT IMMEDIATE.
    /// `session` holds only what the session set itself (what it inherits is `system`).
    pub fn decide(
        statement: CommitRequest,
        session: CommitSetting,
        system: CommitSetting,
    ) -> CommitDecision {
        let requested = CommitOptions {
            wait: statement
                .wait
                .or(session.request.wait)
                .or(system.request.wait)
                .unwrap_or(true),
            immediate: statement
                .immediate
                .or(session.request.immediate)
                .or(system.request.immediate)
                .unwrap_or(true),
        };
        // FORCE_WAIT for the system overrides the session's and the statement's options, for
        // the session the statement's: either way, it wins over every level below it.
        let performed = if system.force_wait || session.force_wait {
            CommitOptions::WAIT_IMMEDIATE
        } else {
            requested
        };
        CommitDecision {
            requested,
            performed,
        }
    }

    /// Counts the decision in the session's statistics (see the module's documentation).
    pub fn count(&self) {
        use Statistic::*;
        let groups = [
            (
                self.requested,
                [
                    CommitWaitNowaitRequested,
                    CommitWaitRequested,
                    CommitNowaitRequested,
                    CommitBatchImmediateRequested,
                    CommitImmediateRequested,
                    CommitBatchRequested,
                ],
            ),
            (
                self.performed,
                [
                    CommitWaitNowaitPerformed,
                    CommitWaitPerformed,
                    CommitNowaitPerformed,
                    CommitBatchImmediatePerformed,
                    CommitImmediatePerformed,
                    CommitBatchPerformed,
                ],
            ),
        ];
        for (options, [wait_or_nowait, wait, nowait, batch_or_immediate, immediate, batch]) in
            groups
        {
            instrumentation::add(wait_or_nowait, 1);
            instrumentation::add(if options.wait { wait } else { nowait }, 1);
            instrumentation::add(batch_or_immediate, 1);
            instrumentation::add(if options.immediate { immediate } else { batch }, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrumentation::{SessionInstrumentation, SessionType};

    /// The statement's `WRITE` clause, as text: "", "NOWAIT", "WAIT BATCH", ...
    fn statement(text: &str) -> CommitRequest {
        let word = |yes: &str, no: &str| {
            let words: Vec<&str> = text.split_whitespace().collect();
            if words.contains(&yes) {
                Some(true)
            } else if words.contains(&no) {
                Some(false)
            } else {
                None
            }
        };
        CommitRequest {
            wait: word("WAIT", "NOWAIT"),
            immediate: word("IMMEDIATE", "BATCH"),
        }
    }

    /// Options written out in full: "WAIT IMMEDIATE", "NOWAIT BATCH", ...
    fn options(text: &str) -> CommitOptions {
        let request = statement(text);
        CommitOptions {
            wait: request.wait.expect("WAIT or NOWAIT"),
            immediate: request.immediate.expect("IMMEDIATE or BATCH"),
        }
    }

    /// Every case of the precedence that matters: (statement, session commit_wait, session
    /// commit_logging, system commit_wait, system commit_logging, requested, performed).
    #[test]
    fn the_nearest_level_wins_and_force_wait_wins_over_every_level_below_it() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, &str, &str, &str, &str, &str)] = &[
            // Nothing set: WAIT IMMEDIATE.
            ("",               "",           "",          "",           "",          "WAIT IMMEDIATE",   "WAIT IMMEDIATE"),
            // Each level alone.
            ("NOWAIT",         "",           "",          "",           "",          "NOWAIT IMMEDIATE", "NOWAIT IMMEDIATE"),
            ("BATCH",          "",           "",          "",           "",          "WAIT BATCH",       "WAIT BATCH"),
            ("",               "NOWAIT",     "BATCH",     "",           "",          "NOWAIT BATCH",     "NOWAIT BATCH"),
            ("",               "",           "",          "NOWAIT",     "BATCH",     "NOWAIT BATCH",     "NOWAIT BATCH"),
            // The statement over the session, the session over the system.
            ("WAIT",           "NOWAIT",     "",          "",           "",          "WAIT IMMEDIATE",   "WAIT IMMEDIATE"),
            ("IMMEDIATE",      "",           "BATCH",     "",           "",          "WAIT IMMEDIATE",   "WAIT IMMEDIATE"),
            ("",               "WAIT",       "IMMEDIATE", "NOWAIT",     "BATCH",     "WAIT IMMEDIATE",   "WAIT IMMEDIATE"),
            ("WAIT",           "",           "",          "NOWAIT",     "",          "WAIT IMMEDIATE",   "WAIT IMMEDIATE"),
            // The two choices separately: each from its own nearest level.
            ("BATCH",          "NOWAIT",     "",          "",           "",          "NOWAIT BATCH",     "NOWAIT BATCH"),
            ("NOWAIT",         "",           "",          "",           "BATCH",     "NOWAIT BATCH",     "NOWAIT BATCH"),
            ("",               "NOWAIT",     "",          "WAIT",       "BATCH",     "NOWAIT BATCH",     "NOWAIT BATCH"),
            // FORCE_WAIT for the system: over the session and the statement.
            ("NOWAIT BATCH",   "",           "",          "FORCE_WAIT", "",          "NOWAIT BATCH",     "WAIT IMMEDIATE"),
            ("",               "NOWAIT",     "BATCH",     "FORCE_WAIT", "",          "NOWAIT BATCH",     "WAIT IMMEDIATE"),
            ("",               "",           "",          "FORCE_WAIT", "BATCH",     "WAIT BATCH",       "WAIT IMMEDIATE"),
            ("",               "",           "",          "FORCE_WAIT", "",          "WAIT IMMEDIATE",   "WAIT IMMEDIATE"),
            // FORCE_WAIT for the session: over the statement, and over the system's NOWAIT.
            ("NOWAIT",         "FORCE_WAIT", "",          "",           "",          "NOWAIT IMMEDIATE", "WAIT IMMEDIATE"),
            ("BATCH",          "FORCE_WAIT", "",          "NOWAIT",     "",          "WAIT BATCH",       "WAIT IMMEDIATE"),
            ("",               "FORCE_WAIT", "",          "NOWAIT",     "",          "WAIT IMMEDIATE",   "WAIT IMMEDIATE"),
        ];
        for &(
            write,
            session_wait,
            session_logging,
            system_wait,
            system_logging,
            requested,
            performed,
        ) in cases
        {
            let decision = CommitDecision::decide(
                statement(write),
                CommitSetting::from_parameters(session_wait, session_logging),
                CommitSetting::from_parameters(system_wait, system_logging),
            );
            let case = format!(
                "COMMIT WRITE {write}; session {session_wait} {session_logging}; system {system_wait} {system_logging}"
            );
            assert_eq!(decision.requested, options(requested), "requested: {case}");
            assert_eq!(decision.performed, options(performed), "performed: {case}");
        }
    }

    #[test]
    fn each_commit_counts_once_in_each_group_of_statistics() {
        let session = SessionInstrumentation::new(SessionType::User, "SCOTT", "test").unwrap();
        let _entered = instrumentation::enter(&session);
        let forced = CommitDecision {
            requested: CommitOptions {
                wait: false,
                immediate: false,
            },
            performed: CommitOptions::WAIT_IMMEDIATE,
        };
        forced.count();
        // The statistics that count, by name (v$statname's): each of the others stays at 0.
        let counted: Vec<&str> = Statistic::ALL
            .iter()
            .filter(|statistic| session.statistic(**statistic) > 0)
            .map(|statistic| statistic.name())
            .filter(|name| name.starts_with("commit "))
            .collect();
        assert_eq!(
            counted,
            [
                "commit batch/immediate requested",
                "commit batch requested",
                "commit batch/immediate performed",
                "commit immediate performed",
                "commit wait/nowait requested",
                "commit nowait requested",
                "commit wait/nowait performed",
                "commit wait performed",
            ]
        );
    }
}
