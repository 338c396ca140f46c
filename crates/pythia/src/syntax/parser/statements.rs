//! Statements other than queries and DDL: the dispatcher on the first word, DML, transaction
//! control, EXPLAIN PLAN, CALL and PL/SQL blocks (their text, for `plsql/`), ALTER SYSTEM / ALTER SESSION, and
//! PostgreSQL's SET, SHOW and VACUUM.
//!
//! ```text
//!   INSERT [hint] INTO t [(cols)] {VALUES (exprs), ... | query}
//!   UPDATE [hint] t [alias] SET col = expr, ... [WHERE cond]
//!   DELETE [hint] [FROM] t [alias] [WHERE cond]
//!   COMMIT [WORK] [WRITE [WAIT|NOWAIT] [IMMEDIATE|BATCH]] | ROLLBACK [WORK] [TO [SAVEPOINT] s]
//!   SAVEPOINT s | BEGIN [WORK|TRANSACTION] [modes] | START TRANSACTION [modes]
//!   EXPLAIN PLAN [SET STATEMENT_ID = 'id'] FOR statement
//!   CALL p([args]) | [DECLARE ...] BEGIN ... END (a PL/SQL block: the rest of the text)
//!   ALTER SYSTEM {SET name = value, ... [SCOPE = ..] [SID = '..'] | CHECKPOINT | SWITCH LOGFILE
//!                 | FLUSH {BUFFER_CACHE | SHARED_POOL}}
//!   ALTER SESSION SET name = value ... | SET [SESSION|LOCAL] name {TO|=} value, ... | SHOW name
//!   VACUUM [(options) | FULL | FREEZE | VERBOSE | ANALYZE ...] [table [(cols)], ...]
//! ```

use super::errors::invalid_qualified_name;
use super::{Parser, Syntax};
use crate::error::{Error, Result};
use crate::syntax::ast::*;
use crate::syntax::lexer::TokenKind;

impl Parser<'_> {
    pub(super) fn parse_statement(&mut self) -> Result<Statement> {
        if self.is(&TokenKind::LeftParen) {
            return Ok(Statement::Select(self.parse_query()?));
        }
        match self.peek_word() {
            Some("SELECT" | "WITH") => Ok(Statement::Select(self.parse_query()?)),
            Some("INSERT") => self.parse_insert(),
            Some("UPDATE") => self.parse_update(),
            Some("DELETE") => self.parse_delete(),
            Some("CREATE") => self.parse_create(),
            Some("DROP") => self.parse_drop(),
            Some("ALTER") => self.parse_alter(),
            Some("TRUNCATE") => self.parse_truncate(),
            Some("COMMENT") => self.parse_comment(),
            Some("GRANT" | "REVOKE") => self.parse_grant(),
            Some("RENAME") => {
                self.index += 1;
                let from = self.parse_object_name(Syntax::InvalidTableName)?;
                self.expect_word("TO", Syntax::MissingKeyword)?;
                let to = self.parse_object_name(Syntax::InvalidTableName)?;
                Ok(Statement::Rename { from, to })
            }
            Some("COMMIT" | "END") => self.parse_commit(),
            Some("ROLLBACK") => self.parse_rollback(),
            Some("SAVEPOINT") => {
                self.index += 1;
                Ok(Statement::Savepoint(
                    self.parse_identifier(Syntax::InvalidIdentifier)?,
                ))
            }
            Some("BEGIN" | "START") => self.parse_begin(),
            Some("DECLARE") => self.parse_block(),
            Some("EXPLAIN") => self.parse_explain(),
            Some("ANALYZE") => self.parse_analyze(),
            Some("CALL") => self.parse_call(),
            Some("SET") => self.parse_set(),
            Some("SHOW") => self.parse_show(),
            Some("VACUUM") => self.parse_vacuum(),
            _ => Err(self.error(Syntax::InvalidSqlStatement)),
        }
    }

    /// PostgreSQL's VACUUM, in its parenthesized form or its older one of keywords.
    fn parse_vacuum(&mut self) -> Result<Statement> {
        self.index += 1;
        let mut analyze = false;
        if self.eat(&TokenKind::LeftParen) {
            loop {
                let option = self.parse_identifier(Syntax::MissingRightParenthesis)?;
                // An option's value: a boolean word, a number or a string (`PARALLEL 2`).
                let enabled = match self.peek() {
                    Some(TokenKind::Word(word)) => match word.as_str() {
                        "TRUE" | "ON" => {
                            self.index += 1;
                            true
                        }
                        "FALSE" | "OFF" => {
                            self.index += 1;
                            false
                        }
                        _ => true,
                    },
                    Some(TokenKind::Number(_) | TokenKind::String(_)) => {
                        self.index += 1;
                        true
                    }
                    _ => true,
                };
                if option == "ANALYZE" || option == "ANALYSE" {
                    analyze = enabled;
                }
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
            self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        } else {
            while let Some(word @ ("FULL" | "FREEZE" | "VERBOSE" | "ANALYZE" | "ANALYSE")) =
                self.peek_word()
            {
                analyze |= word.starts_with("ANALY");
                self.index += 1;
            }
        }
        let mut tables = Vec::new();
        if !self.at_statement_end() {
            loop {
                tables.push(self.parse_object_name(Syntax::InvalidTableName)?);
                if self.is(&TokenKind::LeftParen) {
                    self.parse_identifier_list(Syntax::MissingRightParenthesis)?;
                }
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
        }
        Ok(Statement::Vacuum { analyze, tables })
    }

    fn parse_insert(&mut self) -> Result<Statement> {
        self.index += 1;
        let hint = self.take_hint();
        self.expect_word("INTO", Syntax::MissingIntoKeyword)?;
        let table = self.parse_object_name(Syntax::InvalidTableName)?;
        let columns = if self.is(&TokenKind::LeftParen) && !self.parenthesized_query_ahead() {
            Some(self.parse_identifier_list(Syntax::MissingComma)?)
        } else {
            None
        };
        let source = if self.eat_word("VALUES") {
            let mut rows = Vec::new();
            loop {
                rows.push(self.parse_values_row()?);
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
            InsertSource::Values(rows)
        } else if self.starts_query() || self.is(&TokenKind::LeftParen) {
            InsertSource::Query(self.parse_query()?)
        } else {
            return Err(self.error(Syntax::MissingValuesKeyword));
        };
        let returning = self.parse_returning()?;
        Ok(Statement::Insert {
            hint,
            table,
            columns,
            source,
            returning,
        })
    }

    fn parse_values_row(&mut self) -> Result<Vec<Expr>> {
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let mut values = Vec::new();
        loop {
            values.push(self.parse_expression()?);
            if self.eat(&TokenKind::Comma) {
                continue;
            }
            self.expect(&TokenKind::RightParen, Syntax::MissingComma)?;
            return Ok(values);
        }
    }

    fn parse_update(&mut self) -> Result<Statement> {
        self.index += 1;
        let hint = self.take_hint();
        let table = self.parse_object_name(Syntax::InvalidTableName)?;
        let alias = self.parse_table_alias()?;
        self.expect_word("SET", Syntax::MissingSetKeyword)?;
        let mut assignments = Vec::new();
        loop {
            if self.is(&TokenKind::LeftParen) {
                // SET (a, b) = (subquery)
                return Err(self.error(Syntax::UnimplementedFeature));
            }
            let column = self.parse_assignment_target(&table, alias.as_deref())?;
            self.expect(&TokenKind::Equal, Syntax::MissingEqualSign)?;
            assignments.push((column, self.parse_expression()?));
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        let where_clause = self.parse_where_clause()?;
        let returning = self.parse_returning()?;
        Ok(Statement::Update {
            hint,
            table,
            alias,
            assignments,
            where_clause,
            returning,
        })
    }

    /// `column`, `qualifier.column` or `schema.table.column`, where the qualifier must name
    /// the updated table (its alias if it has one).
    fn parse_assignment_target(
        &mut self,
        table: &ObjectName,
        alias: Option<&str>,
    ) -> Result<String> {
        let position = self.position();
        let mut parts = vec![self.parse_identifier(Syntax::InvalidIdentifier)?];
        while parts.len() < 3 && self.eat(&TokenKind::Period) {
            parts.push(self.parse_identifier(Syntax::InvalidIdentifier)?);
        }
        let qualifier_matches = match parts.as_slice() {
            [_] => true,
            [qualifier, _] => match alias {
                Some(alias) => qualifier == alias,
                None => *qualifier == table.name,
            },
            [schema, qualifier, _] => {
                alias.is_none() && *qualifier == table.name && table.schema.as_ref() == Some(schema)
            }
            _ => false,
        };
        if !qualifier_matches {
            return Err(invalid_qualified_name(&parts, position));
        }
        Ok(parts.pop().unwrap_or_default())
    }

    fn parse_delete(&mut self) -> Result<Statement> {
        self.index += 1;
        let hint = self.take_hint();
        self.eat_word("FROM");
        let table = self.parse_object_name(Syntax::InvalidTableName)?;
        let alias = self.parse_table_alias()?;
        let where_clause = self.parse_where_clause()?;
        let returning = self.parse_returning()?;
        Ok(Statement::Delete {
            hint,
            table,
            alias,
            where_clause,
            returning,
        })
    }

    /// `RETURNING | RETURN expr, ...` after DML, or nothing (`LOG ERRORS` is unimplemented).
    fn parse_returning(&mut self) -> Result<Vec<Expr>> {
        self.unimplemented_if_word(&["LOG"])?;
        if !(self.eat_word("RETURNING") || self.eat_word("RETURN")) {
            return Ok(Vec::new());
        }
        let mut returning = vec![self.parse_expression()?];
        while self.eat(&TokenKind::Comma) {
            returning.push(self.parse_expression()?);
        }
        self.unimplemented_if_word(&["INTO", "BULK"])?;
        Ok(returning)
    }

    fn parse_commit(&mut self) -> Result<Statement> {
        let is_end = self.is_word("END");
        self.index += 1;
        if !self.eat_word("WORK") {
            self.eat_word("TRANSACTION");
        }
        if is_end || !self.eat_word("WRITE") {
            return Ok(Statement::Commit { write: None });
        }
        let mut write = CommitWrite {
            wait: None,
            immediate: None,
        };
        loop {
            if write.wait.is_none() && self.eat_word("WAIT") {
                write.wait = Some(true);
            } else if write.wait.is_none() && self.eat_word("NOWAIT") {
                write.wait = Some(false);
            } else if write.immediate.is_none() && self.eat_word("IMMEDIATE") {
                write.immediate = Some(true);
            } else if write.immediate.is_none() && self.eat_word("BATCH") {
                write.immediate = Some(false);
            } else {
                return Ok(Statement::Commit { write: Some(write) });
            }
        }
    }

    fn parse_rollback(&mut self) -> Result<Statement> {
        self.index += 1;
        if !self.eat_word("WORK") {
            self.eat_word("TRANSACTION");
        }
        let to_savepoint = if self.eat_word("TO") {
            self.eat_word("SAVEPOINT");
            Some(self.parse_identifier(Syntax::InvalidIdentifier)?)
        } else {
            None
        };
        Ok(Statement::Rollback { to_savepoint })
    }

    /// PostgreSQL `BEGIN [WORK|TRANSACTION] [modes]` or `START TRANSACTION [modes]`. Oracle's
    /// `BEGIN ... END;` is an anonymous PL/SQL block ([`Statement::Block`]).
    fn parse_begin(&mut self) -> Result<Statement> {
        if self.eat_word("START") {
            self.expect_word("TRANSACTION", Syntax::InvalidSqlStatement)?;
        } else {
            let is_transaction = matches!(self.peek_nth(1), None | Some(TokenKind::Semicolon))
                || matches!(
                    self.peek_word_nth(1),
                    Some("WORK" | "TRANSACTION" | "ISOLATION")
                );
            if !is_transaction {
                return self.parse_block();
            }
            self.index += 1;
            if !self.eat_word("WORK") {
                self.eat_word("TRANSACTION");
            }
        }
        self.parse_transaction_modes()?;
        Ok(Statement::Begin)
    }

    /// `ISOLATION LEVEL ...`, `READ ONLY|WRITE`, `[NOT] DEFERRABLE`, comma-separated: read and
    /// not kept (the engine runs Oracle's read-committed).
    fn parse_transaction_modes(&mut self) -> Result<()> {
        loop {
            if self.eat_word("ISOLATION") {
                self.expect_word("LEVEL", Syntax::MissingKeyword)?;
                let known = self.eat_word("SERIALIZABLE")
                    || (self.eat_word("READ")
                        && (self.eat_word("COMMITTED") || self.eat_word("UNCOMMITTED")))
                    || (self.eat_word("REPEATABLE") && self.eat_word("READ"));
                if !known {
                    return Err(self.error(Syntax::MissingKeyword));
                }
            } else if self.eat_word("READ") {
                if !(self.eat_word("ONLY") || self.eat_word("WRITE")) {
                    return Err(self.error(Syntax::MissingKeyword));
                }
            } else if self.eat_word("NOT") {
                self.expect_word("DEFERRABLE", Syntax::MissingKeyword)?;
            } else if !self.eat_word("DEFERRABLE") {
                return Ok(());
            }
            self.eat(&TokenKind::Comma);
        }
    }

    fn parse_explain(&mut self) -> Result<Statement> {
        self.index += 1;
        self.expect_word("PLAN", Syntax::MissingKeyword)?;
        let statement_id = if self.eat_word("SET") {
            self.expect_word("STATEMENT_ID", Syntax::MissingKeyword)?;
            self.expect(&TokenKind::Equal, Syntax::MissingEqualSign)?;
            Some(self.parse_string_literal()?)
        } else {
            None
        };
        self.unimplemented_if_word(&["INTO"])?;
        self.expect_word("FOR", Syntax::MissingKeyword)?;
        let explainable = self.is(&TokenKind::LeftParen)
            || matches!(
                self.peek_word(),
                Some("SELECT" | "WITH" | "INSERT" | "UPDATE" | "DELETE" | "CREATE")
            );
        if !explainable {
            return Err(self.error(Syntax::InvalidSqlStatement));
        }
        let statement = self.parse_statement()?;
        if matches!(
            statement,
            Statement::CreateSequence { .. } | Statement::CreateView { .. }
        ) {
            return Err(Syntax::InvalidSqlStatement.at(self.end_position));
        }
        Ok(Statement::Explain {
            statement_id,
            statement: Box::new(statement),
        })
    }

    /// `CALL name([arguments])`: the parentheses are required.
    fn parse_call(&mut self) -> Result<Statement> {
        self.index += 1;
        let name = self.parse_procedure_name()?;
        if !self.is(&TokenKind::LeftParen) {
            return Err(self.error(Syntax::MissingLeftParenthesis));
        }
        Ok(Statement::Call(self.parse_call_arguments(name)?))
    }

    /// `name` or `package.name` (at most three parts), joined by `.`.
    fn parse_procedure_name(&mut self) -> Result<String> {
        let mut parts = vec![self.parse_identifier(Syntax::InvalidIdentifier)?];
        while parts.len() < 3 && self.eat(&TokenKind::Period) {
            parts.push(self.parse_identifier(Syntax::InvalidIdentifier)?);
        }
        Ok(parts.join("."))
    }

    /// `[(argument, ..., name => argument, ...)]` after a procedure's name: positional
    /// arguments first, then named ones (PLS-00312 for a positional one after a named one).
    fn parse_call_arguments(&mut self, name: String) -> Result<ProcedureCall> {
        let mut call = ProcedureCall {
            name,
            args: Vec::new(),
            named: Vec::new(),
        };
        if !self.eat(&TokenKind::LeftParen) || self.eat(&TokenKind::RightParen) {
            return Ok(call);
        }
        loop {
            let named = matches!(
                (self.peek_nth(1), self.peek_nth(2)),
                (Some(TokenKind::Equal), Some(TokenKind::Greater))
            ) && self.identifier_nth(0).is_some();
            if named {
                let parameter = self.parse_identifier(Syntax::InvalidIdentifier)?;
                self.index += 2;
                call.named.push((parameter, self.parse_expression()?));
            } else if !call.named.is_empty() {
                return Err(Error::syntax(
                    6550,
                    "PLS-00312: a positional parameter association may not follow a named association",
                    self.position(),
                ));
            } else {
                call.args.push(self.parse_expression()?);
            }
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(call)
    }

    /// An anonymous PL/SQL block, `[DECLARE ...] BEGIN ... END;`: the rest of the text,
    /// which the PL/SQL layer (`plsql/`) parses and compiles. A block runs to the end
    /// of the text it is in, as Oracle's clients send one per call: the SQL grammar does not
    /// know where PL/SQL's own statements end.
    fn parse_block(&mut self) -> Result<Statement> {
        self.index = self.tokens.len();
        Ok(Statement::Block)
    }

    pub(super) fn parse_alter_system(&mut self) -> Result<Statement> {
        self.index += 1;
        let action = match self.peek_word() {
            Some("SET") => {
                self.index += 1;
                let name = self.parse_parameter_name()?;
                self.expect_parameter_equal_sign(&name)?;
                let mut values = vec![self.parse_parameter_value()?];
                while self.eat(&TokenKind::Comma) {
                    values.push(self.parse_parameter_value()?);
                }
                let mut scope = None;
                let mut sid = None;
                loop {
                    if self.eat_word("SCOPE") {
                        self.expect(&TokenKind::Equal, Syntax::MissingEqualSign)?;
                        scope = Some(match self.peek_word() {
                            Some("MEMORY") => ParameterScope::Memory,
                            Some("SPFILE") => ParameterScope::Spfile,
                            Some("BOTH") => ParameterScope::Both,
                            _ => return Err(self.error(Syntax::MissingOrInvalidOption)),
                        });
                        self.index += 1;
                    } else if self.eat_word("SID") {
                        self.expect(&TokenKind::Equal, Syntax::MissingEqualSign)?;
                        sid = Some(self.parse_string_literal()?);
                    } else if self.eat_word("COMMENT") {
                        self.expect(&TokenKind::Equal, Syntax::MissingEqualSign)?;
                        self.parse_string_literal()?;
                    } else if !self.eat_word("DEFERRED") {
                        break;
                    }
                }
                AlterSystemAction::Set {
                    name,
                    values,
                    scope,
                    sid,
                }
            }
            Some("CHECKPOINT") => {
                self.index += 1;
                let local = self.eat_word("LOCAL");
                if !local {
                    self.eat_word("GLOBAL");
                }
                AlterSystemAction::Checkpoint { local }
            }
            Some("SWITCH") => {
                self.index += 1;
                self.expect_word("LOGFILE", Syntax::IllegalAlterSystemOption)?;
                AlterSystemAction::SwitchLogfile
            }
            Some("FLUSH") => {
                self.index += 1;
                if self.eat_word("BUFFER_CACHE") {
                    AlterSystemAction::FlushBufferCache
                } else if self.eat_word("SHARED_POOL") {
                    AlterSystemAction::FlushSharedPool
                } else {
                    return Err(self.error(Syntax::IllegalAlterSystemOption));
                }
            }
            _ => return Err(self.error(Syntax::IllegalAlterSystemOption)),
        };
        Ok(Statement::AlterSystem(action))
    }

    pub(super) fn parse_alter_session(&mut self) -> Result<Statement> {
        self.index += 1;
        self.expect_word("SET", Syntax::InvalidAlterSessionOption)?;
        let mut settings = Vec::new();
        loop {
            let name = self.parse_parameter_name()?;
            self.expect_parameter_equal_sign(&name)?;
            let value = self.parse_parameter_value()?;
            settings.push(SessionSetting { name, value });
            if self.at_statement_end() {
                return Ok(Statement::AlterSession(settings));
            }
        }
    }

    /// PostgreSQL `SET [SESSION|LOCAL] name {TO|=} value[, ...]` and `SET TIME ZONE value`.
    fn parse_set(&mut self) -> Result<Statement> {
        self.index += 1;
        if !self.eat_word("SESSION") {
            self.eat_word("LOCAL");
        }
        if self.is_word("TRANSACTION") || self.is_word("CHARACTERISTICS") {
            return Err(self.error(Syntax::UnimplementedFeature));
        }
        let name = if self.is_word("TIME") && self.is_word_nth(1, "ZONE") {
            self.index += 2;
            "TIMEZONE".to_string()
        } else {
            let name = self.parse_parameter_name()?;
            if !(self.eat_word("TO") || self.eat(&TokenKind::Equal)) {
                return Err(self.error(Syntax::MissingOrInvalidOption));
            }
            name
        };
        let first_start = self.position();
        let mut value = self.parse_parameter_value()?;
        if self.is(&TokenKind::Comma) {
            while self.eat(&TokenKind::Comma) {
                self.parse_parameter_value()?;
            }
            let last_end = self
                .index
                .checked_sub(1)
                .and_then(|last| self.tokens.get(last))
                .map_or(self.end_position, |token| token.end);
            debug_assert!(
                first_start < last_end && last_end <= self.sql.len(),
                "the list is a range of the text"
            );
            value = ParameterValue::List(self.sql[first_start..last_end].to_string());
        }
        Ok(Statement::Set { name, value })
    }

    fn parse_show(&mut self) -> Result<Statement> {
        self.index += 1;
        let name = if self.is_word("TIME") && self.is_word_nth(1, "ZONE") {
            self.index += 2;
            "TIMEZONE".to_string()
        } else if self.is_word("TRANSACTION")
            && self.is_word_nth(1, "ISOLATION")
            && self.is_word_nth(2, "LEVEL")
        {
            self.index += 3;
            "TRANSACTION_ISOLATION".to_string()
        } else {
            self.parse_parameter_name()?
        };
        Ok(Statement::Show(name))
    }
}
