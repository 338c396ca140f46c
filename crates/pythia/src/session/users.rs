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
use super::StatementResult;
use crate::catalog::users::SYSTEM_USER;
use crate::error::{Error, Result};
use crate::instance::logon::verifier_text;
use crate::syntax::ast::{Node, ObjectName, Password, Statement, TableReference};
use crate::syntax::lexer::{begins_with_none_of, tokenize, TokenKind};
use crate::types::Value;

/// What a written password is replaced by in the text the library cache keeps.
pub const PASSWORD_BIND: &str = ":password";

/// A `CREATE USER` or `ALTER USER` text with written passwords: the text with each
/// replaced by [`PASSWORD_BIND`], and the passwords in order. None for any other text,
/// found cheaply: the lexer runs only on a text that has the word IDENTIFIED and does not
/// begin with a plain word other than CREATE or ALTER.
pub(super) fn hide_password(sql: &str) -> Option<(String, Vec<String>)> {
    const WORD: &[u8] = b"IDENTIFIED";
    // Every parse passes here: most texts begin with another word and need no more; a
    // window is compared only where its first letter is an I.
    if begins_with_none_of(sql, &["CREATE", "ALTER"])
        || !sql
            .as_bytes()
            .windows(WORD.len())
            .any(|window| window[0] | 0x20 == b'i' && window.eq_ignore_ascii_case(WORD))
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
                let verifier = verifier_of(password.as_ref(), binds)?;
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
                let verifier = verifier_of(password.as_ref(), binds)?;
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

    /// Whether the session's user may run `statement`, checked at every execution (a cursor
    /// is shared by every user who runs its text, and a grant or revoke acts on the next
    /// execution): ORA-01031 if not. SYSTEM may run anything. Another user needs SELECT on
    /// each table or view a query names, anywhere in the statement (Oracle's definer's
    /// rights: a view's own tables are its owner's business), and INSERT, UPDATE or DELETE
    /// on a DML statement's table; an UPDATE or DELETE reads its table without SELECT on it
    /// (Oracle's SQL92_SECURITY = FALSE). A name a WITH clause defines is not an object in
    /// its scope; a name the dictionary does not hold (DUAL, v$ and dba_ views, pg_catalog)
    /// is everyone's to read. DDL, ALTER SYSTEM, ANALYZE, VACUUM and the supplied packages
    /// (DBMS_STATS, DBMS_SHARED_POOL) are SYSTEM's: no CREATE TABLE or ANY privilege exists
    /// to grant. User administration checks itself (`user_statement`).
    pub(super) fn check_privileges(&self, statement: &Statement) -> Result<()> {
        if self.user == SYSTEM_USER {
            return Ok(());
        }
        let target = match statement {
            Statement::Select(_) => None,
            Statement::Insert { table, .. } => Some((table, "INSERT")),
            Statement::Update { table, .. } => Some((table, "UPDATE")),
            Statement::Delete { table, .. } => Some((table, "DELETE")),
            Statement::Explain { statement, .. } => return self.check_privileges(statement),
            Statement::Commit { .. }
            | Statement::Rollback { .. }
            | Statement::Savepoint(_)
            | Statement::Begin
            | Statement::AlterSession(_)
            | Statement::Set { .. }
            | Statement::Show(_)
            | Statement::CreateUser { .. }
            | Statement::AlterUser { .. }
            | Statement::DropUser { .. }
            | Statement::Grant { .. } => return Ok(()),
            _ => return Err(Error::insufficient_privileges()),
        };
        let dictionary = self.instance.catalog().current();
        let user = dictionary.user(&self.user)?;
        let check =
            |name: &ObjectName, privilege: &str| match dictionary.privilege_object(&name.name) {
                Ok((object_id, _)) if !user.holds(object_id, Some(privilege)) => {
                    Err(Error::insufficient_privileges())
                }
                _ => Ok(()),
            };
        if let Some((table, privilege)) = target {
            check(table, privilege)?;
        }
        let mut read = Vec::new();
        tables_read(Node::Statement(statement), &mut Vec::new(), &mut read);
        read.into_iter().try_for_each(|name| check(name, "SELECT"))
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

/// The tables and views `node` reads (each `FROM` name, in subqueries too), leaving out the
/// names of the WITH clauses in scope: a query's own, each from its definition on (so a
/// recursive one names itself), and its enclosing queries'. A schema-qualified name is
/// always an object's.
fn tables_read<'a>(node: Node<'a>, in_scope: &mut Vec<&'a str>, read: &mut Vec<&'a ObjectName>) {
    match node {
        Node::TableReference(TableReference::Table { name, .. })
            if name.schema.is_some() || !in_scope.contains(&name.name.as_str()) =>
        {
            read.push(name);
        }
        Node::Query(query) => {
            // The WITH clause's queries are the first children, in order (`for_each_child`).
            let outer = in_scope.len();
            let mut defined = 0;
            node.for_each_child(&mut |child| {
                if let Some(common) = query.with.get(defined) {
                    in_scope.push(&common.name);
                    defined += 1;
                }
                tables_read(child, in_scope, read);
            });
            in_scope.truncate(outer);
            return;
        }
        _ => {}
    }
    node.for_each_child(&mut |child| tables_read(child, in_scope, read));
}

/// The verifier of the password a statement gives, if it gives one.
fn verifier_of(password: Option<&Password>, binds: &[Value]) -> Result<Option<String>> {
    password
        .map(|password| verifier_text(&password_text(password, binds)?))
        .transpose()
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
