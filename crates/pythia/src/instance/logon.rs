//! Logging on: who may open a session, and what a failed logon leaves in the alert log.
//!
//! ```text
//!   server: account(name) ──> verifier ──> SCRAM exchange (the server's auth.rs)
//!                                              | proof checked (or trust mode)
//!                                              v
//!           logon(name, client) ── user exists?      ORA-01017 (28P01)
//!                                  account open?     ORA-28000 (28000)
//!                                  CREATE SESSION?   ORA-01045 (28000)
//!                                  ──> Session, v$session.username = the user
//!           any failure ──> logon_failed: a line in alert.log (at most
//!                           FAILED_LOGON_ALERTS_PER_MINUTE a minute; the next failure after
//!                           the minute counts the ones not written)
//! ```
//!
//! The embedded API's `Instance::connect` is the local logon (Oracle's `/ as sysdba`): a
//! session as SYSTEM, no password and no check, for whoever can open the database's files.
//! A client naming a user is looked up by the name as sent, else in upper case
//! (`Dictionary::user_for_logon`). An unknown user and a wrong password fail alike, with
//! ORA-01017, so that no one can probe for names; a locked account or a missing CREATE
//! SESSION are told only to a client that proved its password, as Oracle does.

use std::time::{Duration, Instant};

use super::Instance;
use crate::catalog::users::{CREATE_SESSION, PASSWORD_BYTES_MAX};
use crate::error::{Error, Result};
use crate::scram::Verifier;

/// Lines the alert log gets about failed logons in a minute; the rest are only counted, and
/// the first failure after the minute writes how many were not written, so that a client
/// hammering wrong passwords cannot fill the disk.
pub const FAILED_LOGON_ALERTS_PER_MINUTE: u32 = 60;
/// The longest user name an alert line shows (a client chooses it).
const ALERT_NAME_CHARACTERS_MAX: usize = 128;
const ALERT_WINDOW: Duration = Duration::from_secs(60);

/// What the server authenticates a client against.
#[derive(Clone, Debug)]
pub struct Account {
    /// The user's name in the dictionary.
    pub name: String,
    /// None: no password (NO AUTHENTICATION, or SYSTEM of a database made without one), or
    /// one that does not read back: no password logs this user on.
    pub verifier: Option<Verifier>,
}

/// The failed logons' lines in the alert log: how many this minute, how many not written.
#[derive(Debug, Default)]
pub(super) struct FailedLogons {
    window_start: Option<Instant>,
    written: u32,
    not_written: u64,
    total: u64,
}

/// The verifier's text DICT$ keeps for `password`: ORA-00988 for an empty password or one
/// longer than [`PASSWORD_BYTES_MAX`].
pub fn verifier_text(password: &str) -> Result<String> {
    if password.is_empty() || password.len() > PASSWORD_BYTES_MAX {
        return Err(Error::new(
            988,
            format!("missing or invalid password(s): 1 to {PASSWORD_BYTES_MAX} bytes"),
        ));
    }
    Ok(Verifier::new(password)?.to_string())
}

impl Instance {
    /// The account a client names (`sent`, as the startup message has it), for its
    /// authentication; None when there is no such user.
    pub fn account(&self, sent: &str) -> Option<Account> {
        let dictionary = self.catalog.current();
        let user = dictionary.user_for_logon(sent)?;
        Some(Account {
            name: user.name.clone(),
            verifier: user.scram_verifier(),
        })
    }

    /// The user's name if it may log on.
    pub(crate) fn authorize(&self, sent: &str) -> Result<String> {
        let dictionary = self.catalog.current();
        let user = dictionary
            .user_for_logon(sent)
            .ok_or_else(Error::invalid_logon)?;
        if user.locked_since.is_some() {
            return Err(Error::new(28000, "the account is locked"));
        }
        if !user.has_system_privilege(CREATE_SESSION) {
            return Err(Error::new(
                1045,
                format!(
                    "user {} lacks CREATE SESSION privilege; logon denied",
                    user.name
                ),
            ));
        }
        Ok(user.name.clone())
    }

    /// Writes a failed logon to the alert log: who (`sent`, as the client sent it), from
    /// where, and the error; at most [`FAILED_LOGON_ALERTS_PER_MINUTE`] lines a minute.
    pub fn logon_failed(&self, sent: &str, client: &str, error: &Error) {
        let shown: String = sent.chars().take(ALERT_NAME_CHARACTERS_MAX).collect();
        let mut lines = Vec::new();
        {
            let mut failed = self.failed_logons.lock();
            failed.total += 1;
            let now = Instant::now();
            let window_over = failed
                .window_start
                .is_none_or(|start| now.duration_since(start) >= ALERT_WINDOW);
            if window_over {
                if failed.not_written > 0 {
                    lines.push(format!(
                        "{} more failed logons in the last minute were not written here",
                        failed.not_written
                    ));
                }
                failed.window_start = Some(now);
                failed.written = 0;
                failed.not_written = 0;
            }
            if failed.written < FAILED_LOGON_ALERTS_PER_MINUTE {
                failed.written += 1;
                // Debug formatting quotes the name and escapes what could forge a line.
                lines.push(format!(
                    "Logon failed: user {shown:?} from {client}: {error}"
                ));
            } else {
                failed.not_written += 1;
            }
        }
        for line in lines {
            self.alert(&line);
        }
    }

    /// Failed logons since the instance started (written to the alert log or not).
    pub fn failed_logons(&self) -> u64 {
        self.failed_logons.lock().total
    }

    /// Counts a session of `user` (DROP USER refuses a user who has one).
    pub(crate) fn user_logged_on(&self, user: &str) {
        *self.logged_on.lock().entry(user.to_string()).or_default() += 1;
    }

    /// A session of `user` ended.
    pub(crate) fn user_logged_off(&self, user: &str) {
        let mut logged_on = self.logged_on.lock();
        if let Some(count) = logged_on.get_mut(user) {
            *count -= 1;
            if *count == 0 {
                logged_on.remove(user);
            }
        }
    }

    /// Whether `user` has a session now.
    pub(crate) fn is_logged_on(&self, user: &str) -> bool {
        self.logged_on.lock().contains_key(user)
    }
}
