//! The session's part in users and privileges: running CREATE / ALTER / DROP USER, GRANT
//! and REVOKE (the dictionary's side is `catalog::users`), deciding who may, and keeping a
//! written password out of every shared structure.
//!
//! ```text
//!   "alter user scott identified by Tiger"
//!      hide_password ──> text  "alter user scott identified by :password"   (library cache,
//!                    └─> bind  'Tiger'                                        v$sql, sql_id)
//!      the statement runs with the bind: the verifier is made, DICT$ keeps only it
//! ```
//!
//! The password becomes the statement's own bind before the parse call, the way
//! CURSOR_SHARING=FORCE turns literals into system binds: the cursor the library cache
//! keeps, and every view of it, shows `:password`, and two statements that differ only in
//! their password share it. Only SYSTEM administers users (ORA-01031 for anyone else), save
//! a user changing their own password; DROP USER of a user with a session is ORA-01940.

use super::Session;
use crate::catalog::users::SYSTEM_USER;
use crate::error::{Error, Result};
use crate::instance::logon::verifier_text;
use crate::session::StatementResult;
use crate::sql::ast::{Password, Statement};
use crate::sql::lexer::{tokenize, TokenKind};
use crate::types::Value;

/// What a written password is replaced by in the text the library cache keeps.
pub const PASSWORD_BIND: &str = ":password";

/// A `CREATE USER` or `ALTER USER` text with written passwords: the text with each
/// replaced by [`PASSWORD_BIND`], and the passwords in order. None for any other text,
/// found cheaply: the lexer runs only on a text that has the word IDENTIFIED.
pub(super) fn hide_password(sql: &str) -> Option<(String, Vec<String>)> {
    const WORD: &[u8] = b"IDENTIFIED";
    if !sql
        .as_bytes()
        .windows(WORD.len())
        .any(|window| window.eq_ignore_ascii_case(WORD))
    {
        return None;
    }
    let tokens = tokenize(sql).ok()?;
    let word = |index: usize| match tokens.get(index).map(|token| &token.kind) {
        Some(TokenKind::Word(word)) => word.as_str(),
        _ => "",
    };
    if !(matches!(word(0), "CREATE" | "ALTER") && word(1) == "USER") {
        return None;
    }
    let mut text = String::with_capacity(sql.len());
    let mut passwords = Vec::new();
    let mut copied = 0;
    for index in 2..tokens.len() {
        if !(word(index) == "IDENTIFIED" && word(index + 1) == "BY") {
            continue;
        }
        let Some(token) = tokens.get(index + 2) else {
            continue;
        };
        let password = match &token.kind {
            TokenKind::Word(_) => token.text(sql).to_string(),
            TokenKind::QuotedIdentifier(value) if !value.is_empty() => value.clone(),
            _ => continue,
        };
        text.push_str(&sql[copied..token.start]);
        text.push_str(PASSWORD_BIND);
        copied = token.end;
        passwords.push(password);
    }
    if passwords.is_empty() {
        return None;
    }
    text.push_str(&sql[copied..]);
    Some((text, passwords))
}

impl Session {
    /// CREATE / ALTER / DROP USER, GRANT, REVOKE: each the catalog's own transaction (the
    /// session's was committed before, as for any DDL).
    pub(super) fn user_statement(
        &mut self,
        statement: &Statement,
        binds: &[Value],
    ) -> Result<StatementResult> {
        let catalog = self.instance.catalog();
        match statement {
            Statement::CreateUser {
                name,
                password,
                lock,
            } => {
                self.require_administrator()?;
                let verifier = match password {
                    Some(password) => Some(verifier_text(&password_text(password, binds)?)?),
                    None => None,
                };
                catalog.create_user(name, verifier, lock.unwrap_or(false))?;
                Ok(StatementResult::done("User created."))
            }
            Statement::AlterUser {
                name,
                password,
                lock,
            } => {
                // Anyone may change their own password; nothing else of anyone's.
                if !(*name == self.user && lock.is_none()) {
                    self.require_administrator()?;
                }
                let verifier = match password {
                    Some(password) => Some(verifier_text(&password_text(password, binds)?)?),
                    None => None,
                };
                catalog.alter_user(name, verifier, *lock)?;
                Ok(StatementResult::done("User altered."))
            }
            Statement::DropUser { name } => {
                self.require_administrator()?;
                if name != SYSTEM_USER && self.instance.is_logged_on(name) {
                    return Err(Error::new(
                        1940,
                        "cannot drop a user that is currently connected",
                    ));
                }
                catalog.drop_user(name)?;
                Ok(StatementResult::done("User dropped."))
            }
            Statement::Grant {
                revoke,
                privileges,
                users,
            } => {
                self.require_administrator()?;
                catalog.grant(&self.user, privileges, users, *revoke)?;
                Ok(StatementResult::done(if *revoke {
                    "Revoke succeeded."
                } else {
                    "Grant succeeded."
                }))
            }
            _ => Err(Error::internal("user_statement: not a user statement")),
        }
    }

    /// ORA-01031 unless the session is SYSTEM's.
    fn require_administrator(&self) -> Result<()> {
        if self.user == SYSTEM_USER {
            Ok(())
        } else {
            Err(Error::insufficient_privileges())
        }
    }
}

/// The password a statement gives: written, or its bind's value (ORA-01008 when unbound).
fn password_text(password: &Password, binds: &[Value]) -> Result<String> {
    match password {
        Password::Text(text) => Ok(text.clone()),
        Password::Bind(index) => binds
            .get(*index)
            .and_then(Value::to_text)
            .ok_or_else(|| Error::new(1008, "not all variables bound")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_passwords_are_hidden_and_nothing_else_is_touched() {
        assert_eq!(
            hide_password("create user scott identified by Tiger"),
            Some((
                "create user scott identified by :password".to_string(),
                vec!["Tiger".to_string()]
            ))
        );
        assert_eq!(
            hide_password("ALTER USER scott /* c */ IDENTIFIED BY \"p w\" ACCOUNT UNLOCK"),
            Some((
                "ALTER USER scott /* c */ IDENTIFIED BY :password ACCOUNT UNLOCK".to_string(),
                vec!["p w".to_string()]
            ))
        );
        assert_eq!(hide_password("alter user scott account lock"), None);
        assert_eq!(hide_password("alter user scott identified by :p"), None);
        assert_eq!(
            hide_password("select 'identified by x' from dual"),
            None,
            "not a user statement"
        );
        assert_eq!(hide_password("select 1 from dual"), None);
    }
}
