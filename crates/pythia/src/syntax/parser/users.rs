//! The parser's part for users and privileges: CREATE / ALTER / DROP USER, GRANT and REVOKE,
//! in Oracle's syntax.
//!
//! ```text
//!   CREATE USER name {IDENTIFIED BY password | NO AUTHENTICATION} [ACCOUNT {LOCK | UNLOCK}]
//!               [DEFAULT TABLESPACE t] [TEMPORARY TABLESPACE t] [QUOTA {n [K|M|G] | UNLIMITED} ON t]
//!   ALTER USER name {IDENTIFIED BY password | ACCOUNT {LOCK | UNLOCK}} ...
//!   DROP USER name [CASCADE]
//!   GRANT {CREATE SESSION | {SELECT | INSERT | UPDATE | DELETE}, ... | ALL [PRIVILEGES]} [ON table]
//!         TO user, ...
//!   REVOKE ... FROM user, ...
//! ```
//!
//! A password is an identifier whose case is kept (Oracle's passwords are case-sensitive
//! whether quoted or not), a quoted identifier, or a bind (`:password`, what the session
//! puts in place of a written one). Tablespace and quota clauses are read and not kept: this
//! engine has no tablespaces. Oracle's errors: ORA-00988 for a missing password, ORA-00990
//! for an unknown privilege, ORA-01935 for a missing user name; roles (`GRANT CONNECT`) are
//! ORA-01919, `WITH ADMIN OPTION` / `WITH GRANT OPTION` and PUBLIC are not built (ORA-03001).

use super::{Parser, Syntax};
use crate::error::{Error, Result};
use crate::syntax::ast::{Password, Privileges, Statement};
use crate::syntax::lexer::TokenKind;

/// The table privileges GRANT and REVOKE take; ALL is these four.
pub const TABLE_PRIVILEGES: [&str; 4] = ["SELECT", "INSERT", "UPDATE", "DELETE"];

/// ORA-00988: missing or invalid password(s).
fn invalid_password(position: usize) -> Error {
    Error::syntax(988, "missing or invalid password(s)", position)
}

/// ORA-00990: missing or invalid privilege.
fn invalid_privilege(position: usize) -> Error {
    Error::syntax(990, "missing or invalid privilege", position)
}

impl Parser<'_> {
    /// After CREATE: `USER ...`.
    pub(super) fn parse_create_user(&mut self) -> Result<Statement> {
        self.index += 1;
        let name = self.parse_user_name()?;
        let password = if self.eat_word("NO") {
            self.expect_word("AUTHENTICATION", Syntax::MissingKeyword)?;
            None
        } else {
            Some(self.parse_identified_by()?)
        };
        let mut lock = None;
        while !self.at_end() && !self.is(&TokenKind::Semicolon) {
            if !self.parse_user_option(&mut lock)? {
                return Err(self.error(Syntax::MissingOrInvalidOption));
            }
        }
        Ok(Statement::CreateUser {
            name,
            password,
            lock,
        })
    }

    /// After ALTER: `USER ...`, at least one change.
    pub(super) fn parse_alter_user(&mut self) -> Result<Statement> {
        self.index += 1;
        let name = self.parse_user_name()?;
        let mut password = None;
        let mut lock = None;
        let mut changes = 0;
        while !self.at_end() && !self.is(&TokenKind::Semicolon) {
            if self.is_word("IDENTIFIED") {
                password = Some(self.parse_identified_by()?);
            } else if !self.parse_user_option(&mut lock)? {
                return Err(self.error(Syntax::MissingOrInvalidOption));
            }
            changes += 1;
        }
        if changes == 0 {
            return Err(self.error(Syntax::MissingOrInvalidOption));
        }
        Ok(Statement::AlterUser {
            name,
            password,
            lock,
        })
    }

    /// After DROP: `USER name [CASCADE]` (users own no objects here: CASCADE changes
    /// nothing).
    pub(super) fn parse_drop_user(&mut self) -> Result<Statement> {
        self.index += 1;
        let name = self.parse_user_name()?;
        self.eat_word("CASCADE");
        Ok(Statement::DropUser { name })
    }

    /// `GRANT ... TO users` or `REVOKE ... FROM users`.
    pub(super) fn parse_grant(&mut self) -> Result<Statement> {
        let revoke = self.is_word("REVOKE");
        self.index += 1;
        let privileges = self.parse_privileges()?;
        self.expect_word(if revoke { "FROM" } else { "TO" }, Syntax::MissingKeyword)?;
        let mut users = vec![self.parse_grantee()?];
        while self.eat(&TokenKind::Comma) {
            users.push(self.parse_grantee()?);
        }
        if self.is_word("WITH") {
            return Err(self.error(Syntax::UnimplementedFeature));
        }
        Ok(Statement::Grant {
            revoke,
            privileges,
            users,
        })
    }

    /// `CREATE SESSION`, or table privileges and `ON table`.
    fn parse_privileges(&mut self) -> Result<Privileges> {
        if self.is_word("CREATE") && self.is_word_nth(1, "SESSION") {
            self.index += 2;
            return Ok(Privileges::System(vec!["CREATE SESSION".to_string()]));
        }
        let mut privileges = Vec::new();
        if self.eat_word("ALL") {
            self.eat_word("PRIVILEGES");
            privileges.extend(TABLE_PRIVILEGES.iter().map(|name| name.to_string()));
        } else {
            loop {
                match self.peek_word() {
                    Some(word) if TABLE_PRIVILEGES.contains(&word) => {
                        if !privileges.iter().any(|known| known == word) {
                            privileges.push(word.to_string());
                        }
                        self.index += 1;
                    }
                    // A word that is not a privilege here: a role (CONNECT, DBA, RESOURCE)
                    // when it stands alone before TO / FROM, else an unknown privilege.
                    Some(word)
                        if privileges.is_empty()
                            && matches!(self.peek_word_nth(1), Some("TO" | "FROM")) =>
                    {
                        return Err(Error::new(1919, format!("role '{word}' does not exist"))
                            .at(self.position()));
                    }
                    _ => return Err(invalid_privilege(self.position())),
                }
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
        }
        if !self.eat_word("ON") {
            return Err(invalid_privilege(self.position()));
        }
        let table = self.parse_object_name(Syntax::InvalidTableName)?;
        Ok(Privileges::Table { privileges, table })
    }

    /// A user name after TO or FROM. PUBLIC is not a user here.
    fn parse_grantee(&mut self) -> Result<String> {
        if self.is_word("PUBLIC") {
            return Err(self.error(Syntax::UnimplementedFeature));
        }
        self.parse_user_name()
    }

    /// A user's name: ORA-01935 when there is none.
    fn parse_user_name(&mut self) -> Result<String> {
        let position = self.position();
        match self.peek() {
            Some(TokenKind::QuotedIdentifier(name)) => {
                let name = name.clone();
                self.index += 1;
                Ok(name)
            }
            Some(TokenKind::Word(word)) if !word.starts_with('_') => {
                let name = word.clone();
                self.index += 1;
                Ok(name)
            }
            _ => Err(Error::syntax(1935, "missing user or role name", position)),
        }
    }

    /// `IDENTIFIED BY password`.
    fn parse_identified_by(&mut self) -> Result<Password> {
        self.expect_word("IDENTIFIED", Syntax::MissingKeyword)?;
        self.expect_word("BY", Syntax::MissingByKeyword)?;
        let position = self.position();
        let token = self.tokens.get(self.index).cloned();
        let password = match token.as_ref().map(|token| &token.kind) {
            Some(TokenKind::QuotedIdentifier(text)) if !text.is_empty() => {
                Password::Text(text.clone())
            }
            // As written: the lexer's word is upper-cased, a password keeps its case.
            Some(TokenKind::Word(_)) => Password::Text(
                token
                    .as_ref()
                    .map_or("", |token| token.text(self.sql))
                    .into(),
            ),
            Some(TokenKind::Bind(_)) => {
                let bind = self.bind_count;
                self.bind_count += 1;
                Password::Bind(bind)
            }
            _ => return Err(invalid_password(position)),
        };
        self.index += 1;
        Ok(password)
    }

    /// One of `ACCOUNT LOCK|UNLOCK`, `DEFAULT TABLESPACE t`, `TEMPORARY TABLESPACE t`,
    /// `QUOTA {n [K|M|G] | UNLIMITED} ON t`; false when the next words are none of them.
    fn parse_user_option(&mut self, lock: &mut Option<bool>) -> Result<bool> {
        if self.eat_word("ACCOUNT") {
            *lock = Some(if self.eat_word("LOCK") {
                true
            } else if self.eat_word("UNLOCK") {
                false
            } else {
                return Err(self.error(Syntax::MissingOrInvalidOption));
            });
        } else if self.eat_word("DEFAULT") || self.eat_word("TEMPORARY") {
            self.expect_word("TABLESPACE", Syntax::MissingKeyword)?;
            self.parse_identifier(Syntax::MissingOrInvalidOption)?;
        } else if self.eat_word("QUOTA") {
            if !self.eat_word("UNLIMITED") {
                match self.peek() {
                    Some(TokenKind::Number(_)) => self.index += 1,
                    _ => return Err(self.error(Syntax::MissingOrInvalidOption)),
                }
                // A size unit written apart from its number (`10 M`); `10M` is one word.
                if matches!(self.peek_word(), Some("K" | "M" | "G" | "T")) {
                    self.index += 1;
                }
            }
            self.expect_word("ON", Syntax::MissingOnKeyword)?;
            self.parse_identifier(Syntax::MissingOrInvalidOption)?;
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::ast::{ObjectName, Password, Privileges, Statement};
    use crate::syntax::parser::parse;

    #[test]
    fn user_statements_parse_as_oracle_writes_them() {
        assert_eq!(
            parse("create user scott identified by Tiger").unwrap(),
            Statement::CreateUser {
                name: "SCOTT".into(),
                password: Some(Password::Text("Tiger".into())),
                lock: None,
            }
        );
        assert_eq!(
            parse(
                "CREATE USER \"Mixed\" IDENTIFIED BY \"p@ss word\" DEFAULT TABLESPACE users \
                 TEMPORARY TABLESPACE temp QUOTA UNLIMITED ON users ACCOUNT LOCK"
            )
            .unwrap(),
            Statement::CreateUser {
                name: "Mixed".into(),
                password: Some(Password::Text("p@ss word".into())),
                lock: Some(true),
            }
        );
        assert_eq!(
            parse("create user app no authentication quota 10M on users").unwrap(),
            Statement::CreateUser {
                name: "APP".into(),
                password: None,
                lock: None,
            }
        );
        assert_eq!(
            parse("alter user scott identified by :password account unlock").unwrap(),
            Statement::AlterUser {
                name: "SCOTT".into(),
                password: Some(Password::Bind(0)),
                lock: Some(false),
            }
        );
        assert_eq!(
            parse("drop user scott cascade").unwrap(),
            Statement::DropUser {
                name: "SCOTT".into()
            }
        );
        assert_eq!(
            parse("grant create session to scott, adams").unwrap(),
            Statement::Grant {
                revoke: false,
                privileges: Privileges::System(vec!["CREATE SESSION".into()]),
                users: vec!["SCOTT".into(), "ADAMS".into()],
            }
        );
        assert_eq!(
            parse("revoke select, update on emp from scott").unwrap(),
            Statement::Grant {
                revoke: true,
                privileges: Privileges::Table {
                    privileges: vec!["SELECT".into(), "UPDATE".into()],
                    table: ObjectName::new("EMP"),
                },
                users: vec!["SCOTT".into()],
            }
        );
        let all = parse("grant all privileges on system.emp to scott").unwrap();
        let Statement::Grant {
            privileges: Privileges::Table { privileges, .. },
            ..
        } = all
        else {
            panic!("{all:?}")
        };
        assert_eq!(privileges, ["SELECT", "INSERT", "UPDATE", "DELETE"]);
    }

    #[test]
    fn user_statement_errors_are_oracles() {
        let code = |sql: &str| parse(sql).unwrap_err().code();
        assert_eq!(code("create user scott"), 905);
        assert_eq!(code("create user scott identified by"), 988);
        assert_eq!(code("create user scott identified by 'x'"), 988);
        assert_eq!(code("create user"), 1935);
        assert_eq!(code("alter user scott"), 922);
        assert_eq!(code("alter user scott account"), 922);
        assert_eq!(code("grant connect to scott"), 1919);
        assert_eq!(code("grant select to scott"), 990);
        assert_eq!(code("grant alter on t to scott"), 990);
        assert_eq!(code("grant create session to public"), 3001);
        assert_eq!(code("grant select on t to scott with grant option"), 3001);
        assert_eq!(code("revoke create session to scott"), 905);
    }
}
