//! DDL: CREATE / ALTER / DROP of tables, indexes, views and sequences, TRUNCATE, COMMENT and
//! ANALYZE, with the columns, constraints and physical attributes (storage clauses) they take.
//!
//! ```text
//!   CREATE TABLE [IF NOT EXISTS] t {(column | constraint, ...) | [(names)]} [attributes] [AS query]
//!   CREATE [UNIQUE] INDEX i ON t (col [ASC|DESC], ...) [attributes]
//!   CREATE [OR REPLACE] [[NO] FORCE] VIEW v [(cols)] AS query | CREATE SEQUENCE s [options]
//!   ALTER TABLE t {ADD | DROP | MODIFY | RENAME | attributes} | ALTER INDEX i [REBUILD] attributes
//!   ALTER SEQUENCE s options | DROP {TABLE | INDEX | VIEW | SEQUENCE} name | TRUNCATE [TABLE] t
//!   CREATE [OR REPLACE] {PROCEDURE | FUNCTION | PACKAGE [BODY]} name ... (PL/SQL: the rest
//!   is the unit's source) | DROP {PROCEDURE | FUNCTION | PACKAGE [BODY]} name
//!   ALTER {PROCEDURE | FUNCTION | PACKAGE} name COMPILE [BODY | PACKAGE | SPECIFICATION]
//!   COMMENT ON {TABLE t | COLUMN t.c} IS 'text' | ANALYZE TABLE t {COMPUTE | ESTIMATE | DELETE} STATISTICS
//! ```

use super::{Parser, Syntax};
use crate::error::Result;
use crate::syntax::ast::*;
use crate::syntax::lexer::TokenKind;

impl Parser<'_> {
    pub(super) fn parse_create(&mut self) -> Result<Statement> {
        self.index += 1;
        let or_replace = if self.eat_word("OR") {
            self.expect_word("REPLACE", Syntax::MissingKeyword)?;
            true
        } else {
            false
        };
        let force = if self.eat_word("NO") {
            self.expect_word("FORCE", Syntax::MissingKeyword)?;
            true
        } else {
            self.eat_word("FORCE") || self.eat_word("NOFORCE")
        };
        if !force {
            if let Some(statement) = self.parse_create_program(or_replace)? {
                return Ok(statement);
            }
        }
        match self.peek_word() {
            Some("VIEW") => self.parse_create_view(or_replace),
            _ if or_replace || force => Err(self.error(Syntax::MissingOrInvalidOption)),
            Some("TABLE") => self.parse_create_table(),
            Some("UNIQUE") if self.is_word_nth(1, "INDEX") => {
                self.index += 1;
                self.parse_create_index(true)
            }
            Some("INDEX") => self.parse_create_index(false),
            Some("USER") => self.parse_create_user(),
            Some("SEQUENCE") => {
                self.index += 1;
                let name = self.parse_object_name(Syntax::InvalidSequenceName)?;
                let options = self.parse_sequence_options()?;
                Ok(Statement::CreateSequence { name, options })
            }
            _ => Err(self.error(Syntax::InvalidCreateCommand)),
        }
    }

    /// `[EDITIONABLE | NONEDITIONABLE] PROCEDURE | FUNCTION | PACKAGE [BODY] [schema.]name
    /// ...`: the rest is PL/SQL, which this parser does not read (the statement's text from
    /// the kind's keyword is the unit's source). None when the statement creates something
    /// else.
    fn parse_create_program(&mut self, or_replace: bool) -> Result<Option<Statement>> {
        let start = self.index;
        if (self.eat_word("EDITIONABLE") || self.eat_word("NONEDITIONABLE"))
            && !matches!(self.peek_word(), Some("PROCEDURE" | "FUNCTION" | "PACKAGE"))
        {
            return Err(self.error(Syntax::InvalidCreateCommand));
        }
        let source_start = self.position();
        let kind = match self.peek_word() {
            Some("PROCEDURE") => ProgramKind::Procedure,
            Some("FUNCTION") => ProgramKind::Function,
            Some("PACKAGE") if self.is_word_nth(1, "BODY") => {
                self.index += 1;
                ProgramKind::PackageBody
            }
            Some("PACKAGE") => ProgramKind::Package,
            _ => {
                self.index = start;
                return Ok(None);
            }
        };
        self.index += 1;
        let name = self.parse_object_name(Syntax::InvalidIdentifier)?;
        self.index = self.tokens.len();
        Ok(Some(Statement::CreateProgram {
            kind,
            name,
            or_replace,
            source_start,
        }))
    }

    /// `PROCEDURE | FUNCTION | PACKAGE [BODY]` after DROP or ALTER.
    fn parse_program_kind(&mut self) -> Option<ProgramKind> {
        let kind = match self.peek_word()? {
            "PROCEDURE" => ProgramKind::Procedure,
            "FUNCTION" => ProgramKind::Function,
            "PACKAGE" if self.is_word_nth(1, "BODY") => {
                self.index += 1;
                ProgramKind::PackageBody
            }
            "PACKAGE" => ProgramKind::Package,
            _ => return None,
        };
        self.index += 1;
        Some(kind)
    }

    fn parse_create_table(&mut self) -> Result<Statement> {
        self.index += 1;
        let if_not_exists =
            self.is_word("IF") && self.is_word_nth(1, "NOT") && self.is_word_nth(2, "EXISTS");
        if if_not_exists {
            self.index += 3;
        }
        let name = self.parse_object_name(Syntax::InvalidTableName)?;
        let mut columns = Vec::new();
        let mut constraints = Vec::new();
        let has_elements = self.is(&TokenKind::LeftParen);
        let mut column_names = Vec::new();
        if has_elements && self.is_bare_name_list() {
            column_names = self.parse_identifier_list(Syntax::MissingRightParenthesis)?;
        } else if has_elements {
            self.index += 1;
            loop {
                if self.starts_table_constraint() {
                    constraints.push(self.parse_table_constraint()?);
                } else {
                    columns.push(self.parse_column_definition()?);
                }
                if self.eat(&TokenKind::Comma) {
                    continue;
                }
                self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
                break;
            }
        }
        let (storage, cache) = self.parse_table_attributes()?;
        let as_query = if self.eat_word("AS") {
            Some(self.parse_query()?)
        } else {
            None
        };
        if as_query.is_none() && !column_names.is_empty() {
            // `(a, b)` without types is only for AS SELECT: a column lacks its type.
            return Err(self.error(Syntax::InvalidDatatype));
        }
        if as_query.is_none() {
            if !has_elements {
                return Err(self.error(Syntax::MissingLeftParenthesis));
            }
            if !self.at_statement_end() {
                return Err(self.error(Syntax::MissingOrInvalidOption));
            }
        }
        Ok(Statement::CreateTable {
            name,
            if_not_exists,
            columns,
            constraints,
            column_names,
            as_query,
            storage,
            cache,
        })
    }

    /// Whether a `(` starts a list of bare column names, `(a, "b")`, as CREATE TABLE ... AS
    /// SELECT may have.
    fn is_bare_name_list(&self) -> bool {
        let mut offset = 1;
        loop {
            match self.peek_nth(offset) {
                Some(TokenKind::Word(_) | TokenKind::QuotedIdentifier(_)) => {}
                _ => return false,
            }
            match self.peek_nth(offset + 1) {
                Some(TokenKind::Comma) => offset += 2,
                Some(TokenKind::RightParen) => return true,
                _ => return false,
            }
        }
    }

    fn starts_table_constraint(&self) -> bool {
        match self.peek_word() {
            Some("CONSTRAINT" | "UNIQUE" | "CHECK") => true,
            Some("PRIMARY" | "FOREIGN") => self.is_word_nth(1, "KEY"),
            _ => false,
        }
    }

    fn parse_table_constraint(&mut self) -> Result<TableConstraint> {
        let name = if self.eat_word("CONSTRAINT") {
            Some(self.parse_identifier(Syntax::InvalidIdentifier)?)
        } else {
            None
        };
        let kind = if self.eat_word("PRIMARY") {
            self.expect_word("KEY", Syntax::MissingKeyword)?;
            TableConstraintKind::PrimaryKey {
                columns: self.parse_identifier_list(Syntax::MissingRightParenthesis)?,
            }
        } else if self.eat_word("UNIQUE") {
            TableConstraintKind::Unique {
                columns: self.parse_identifier_list(Syntax::MissingRightParenthesis)?,
            }
        } else if self.eat_word("CHECK") {
            TableConstraintKind::Check(self.parse_check_condition()?)
        } else if self.eat_word("FOREIGN") {
            self.expect_word("KEY", Syntax::MissingKeyword)?;
            let columns = self.parse_identifier_list(Syntax::MissingRightParenthesis)?;
            self.expect_word("REFERENCES", Syntax::MissingKeyword)?;
            TableConstraintKind::ForeignKey {
                columns,
                references: self.parse_foreign_key_reference()?,
            }
        } else {
            return Err(self.error(Syntax::MissingKeyword));
        };
        Ok(TableConstraint { name, kind })
    }

    /// `(condition)` of a CHECK constraint.
    fn parse_check_condition(&mut self) -> Result<Expr> {
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let condition = self.parse_expression()?;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(condition)
    }

    /// What follows REFERENCES: `table [(columns)] [ON DELETE CASCADE | ON DELETE SET NULL]`.
    fn parse_foreign_key_reference(&mut self) -> Result<ForeignKeyReference> {
        let table = self.parse_object_name(Syntax::InvalidTableName)?;
        let columns = if self.is(&TokenKind::LeftParen) {
            self.parse_identifier_list(Syntax::MissingRightParenthesis)?
        } else {
            Vec::new()
        };
        let on_delete = if self.eat_word("ON") {
            self.expect_word("DELETE", Syntax::MissingKeyword)?;
            if self.eat_word("CASCADE") {
                Some(ReferentialAction::Cascade)
            } else if self.eat_word("SET") {
                self.expect_word("NULL", Syntax::MissingNullKeyword)?;
                Some(ReferentialAction::SetNull)
            } else {
                return Err(self.error(Syntax::MissingKeyword));
            }
        } else {
            None
        };
        Ok(ForeignKeyReference {
            table,
            columns,
            on_delete,
        })
    }

    fn parse_column_definition(&mut self) -> Result<ColumnDef> {
        let name = self.parse_identifier(Syntax::InvalidIdentifier)?;
        let data_type = self.parse_data_type()?;
        let mut column = ColumnDef::new(name, data_type);
        loop {
            if self.eat_word("DEFAULT") {
                column.default = Some(self.parse_expression()?);
                continue;
            }
            let constraint_name = if self.eat_word("CONSTRAINT") {
                Some(self.parse_identifier(Syntax::InvalidIdentifier)?)
            } else {
                None
            };
            if self.eat_word("NOT") {
                self.expect_word("NULL", Syntax::MissingNullKeyword)?;
                column.not_null = true;
                column.not_null_constraint_name = constraint_name;
            } else if self.eat_word("NULL") {
                column.not_null = false;
            } else if self.is_word("PRIMARY") && self.is_word_nth(1, "KEY") {
                self.index += 2;
                column.primary_key = true;
                column.primary_key_constraint_name = constraint_name;
            } else if self.eat_word("UNIQUE") {
                column.unique = true;
                column.unique_constraint_name = constraint_name;
            } else if self.eat_word("CHECK") {
                let kind = TableConstraintKind::Check(self.parse_check_condition()?);
                column.constraints.push(TableConstraint {
                    name: constraint_name,
                    kind,
                });
            } else if self.eat_word("REFERENCES") {
                let references = self.parse_foreign_key_reference()?;
                let kind = TableConstraintKind::ForeignKey {
                    columns: vec![column.name.clone()],
                    references,
                };
                column.constraints.push(TableConstraint {
                    name: constraint_name,
                    kind,
                });
            } else if constraint_name.is_some() {
                return Err(self.error(Syntax::MissingKeyword));
            } else {
                return Ok(column);
            }
        }
    }

    /// A table's physical attributes and `CACHE` / `NOCACHE`, in any order, as CREATE TABLE
    /// and ALTER TABLE take them (possibly none: the caller decides whether that is an
    /// error). The last CACHE or NOCACHE said wins.
    fn parse_table_attributes(&mut self) -> Result<(StorageClause, Option<bool>)> {
        let mut storage = StorageClause::default();
        let mut cache = None;
        loop {
            if self.parse_physical_attribute(&mut storage)? {
                continue;
            }
            if self.eat_word("CACHE") {
                cache = Some(true);
            } else if self.eat_word("NOCACHE") {
                cache = Some(false);
            } else {
                return Ok((storage, cache));
            }
        }
    }

    /// One physical attribute of a table or index, if the next tokens are one. Only
    /// BUFFER_POOL and PCTFREE are kept.
    fn parse_physical_attribute(&mut self, storage: &mut StorageClause) -> Result<bool> {
        match self.peek_word() {
            Some("TABLESPACE") => {
                self.index += 1;
                self.parse_identifier(Syntax::MissingOrInvalidOption)?;
            }
            Some("PCTFREE") => {
                self.index += 1;
                let position = self.position();
                let pctfree = self.parse_unsigned_integer()?;
                if pctfree > 99 {
                    return Err(Syntax::InvalidPctfree.at(position));
                }
                storage.pctfree = Some(pctfree);
            }
            Some("PCTUSED" | "INITRANS" | "MAXTRANS") => {
                self.index += 1;
                self.parse_unsigned_integer()?;
            }
            Some("STORAGE") => {
                self.index += 1;
                self.parse_storage_options(storage)?;
            }
            Some(
                "LOGGING" | "NOLOGGING" | "COMPRESS" | "NOCOMPRESS" | "MONITORING" | "NOMONITORING"
                | "NOPARALLEL",
            ) => {
                self.index += 1;
            }
            Some("PARALLEL") => {
                self.index += 1;
                if matches!(self.peek(), Some(TokenKind::Number(_))) {
                    self.index += 1;
                }
            }
            Some("SEGMENT") => {
                self.index += 1;
                self.expect_word("CREATION", Syntax::MissingOrInvalidOption)?;
                if !(self.eat_word("IMMEDIATE") || self.eat_word("DEFERRED")) {
                    return Err(self.error(Syntax::MissingOrInvalidOption));
                }
            }
            // PostgreSQL storage parameters: WITH (fillfactor = 100).
            Some("WITH") if self.peek_nth(1) == Some(&TokenKind::LeftParen) => {
                self.index += 1;
                self.skip_parenthesized()?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `STORAGE (option ...)`, at least one option: `BUFFER_POOL KEEP | RECYCLE | DEFAULT` is
    /// kept; Oracle's other options (`INITIAL n[K|M|G|T]`, `NEXT n[K|M|G|T]`, `MINEXTENTS n`,
    /// `MAXEXTENTS n | UNLIMITED`, `PCTINCREASE n`, `FREELISTS n`, `FREELIST GROUPS n`) are
    /// read and not kept, as extents are sized by the space manager. A word that is no
    /// option is ORA-02143; an option without its value is ORA-00922 (ORA-01722 for a
    /// number out of range). When an option is given twice, the last one counts.
    fn parse_storage_options(&mut self, storage: &mut StorageClause) -> Result<()> {
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let mut options = 0;
        loop {
            if self.is(&TokenKind::RightParen) && options > 0 {
                self.index += 1;
                return Ok(());
            }
            if self.at_statement_end() {
                return Err(self.error(Syntax::MissingRightParenthesis));
            }
            let Some(option) = self.peek_word().map(str::to_string) else {
                return Err(self.error(Syntax::InvalidStorageOption));
            };
            self.index += 1;
            match option.as_str() {
                "BUFFER_POOL" => {
                    let pool = self.peek_word().and_then(BufferPool::from_name);
                    storage.buffer_pool =
                        Some(pool.ok_or_else(|| self.error(Syntax::MissingOrInvalidOption))?);
                    self.index += 1;
                }
                "INITIAL" | "NEXT" => self.parse_storage_size()?,
                "MAXEXTENTS" if self.eat_word("UNLIMITED") => {}
                "MINEXTENTS" | "MAXEXTENTS" | "PCTINCREASE" | "FREELISTS" => {
                    self.parse_storage_number()?;
                }
                "FREELIST" => {
                    self.expect_word("GROUPS", Syntax::InvalidStorageOption)?;
                    self.parse_storage_number()?;
                }
                _ => {
                    self.index -= 1;
                    return Err(self.error(Syntax::InvalidStorageOption));
                }
            }
            options += 1;
        }
    }

    /// The whole number a STORAGE option takes (ORA-00922 when there is none).
    fn parse_storage_number(&mut self) -> Result<u32> {
        if !matches!(self.peek(), Some(TokenKind::Number(_))) {
            return Err(self.error(Syntax::MissingOrInvalidOption));
        }
        self.parse_unsigned_integer()
    }

    /// A size in bytes with an optional unit, `64K`, `1M`, `2G`, `1T` (the unit is a word
    /// of its own to the lexer).
    fn parse_storage_size(&mut self) -> Result<()> {
        self.parse_storage_number()?;
        if matches!(self.peek_word(), Some("K" | "M" | "G" | "T")) {
            self.index += 1;
        }
        Ok(())
    }

    fn parse_create_index(&mut self, unique: bool) -> Result<Statement> {
        self.index += 1;
        let name = self.parse_object_name(Syntax::InvalidIndexName)?;
        self.expect_word("ON", Syntax::MissingOnKeyword)?;
        let table = self.parse_object_name(Syntax::InvalidTableName)?;
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let mut columns = Vec::new();
        loop {
            let column = self.parse_identifier(Syntax::InvalidIdentifier)?;
            let descending = self.eat_word("DESC");
            if !descending {
                self.eat_word("ASC");
            }
            columns.push((column, descending));
            if self.eat(&TokenKind::Comma) {
                continue;
            }
            self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
            break;
        }
        let mut storage = StorageClause::default();
        loop {
            if self.parse_physical_attribute(&mut storage)?
                || self.eat_word("ONLINE")
                || self.eat_word("NOSORT")
            {
                continue;
            }
            if self.eat_word("COMPUTE") {
                self.expect_word("STATISTICS", Syntax::MissingKeyword)?;
                continue;
            }
            break;
        }
        if !self.at_statement_end() {
            return Err(self.error(Syntax::InvalidCreateIndexOption));
        }
        Ok(Statement::CreateIndex {
            name,
            unique,
            table,
            columns,
            storage,
        })
    }

    fn parse_sequence_options(&mut self) -> Result<Vec<SequenceOption>> {
        let mut options = Vec::new();
        loop {
            let option = match self.peek_word() {
                Some("START") => {
                    self.index += 1;
                    self.eat_word("WITH");
                    SequenceOption::StartWith(self.parse_signed_integer()?)
                }
                Some("INCREMENT") => {
                    self.index += 1;
                    self.eat_word("BY");
                    SequenceOption::IncrementBy(self.parse_signed_integer()?)
                }
                Some("MINVALUE") => {
                    self.index += 1;
                    SequenceOption::MinValue(self.parse_signed_integer()?)
                }
                Some("MAXVALUE") => {
                    self.index += 1;
                    SequenceOption::MaxValue(self.parse_signed_integer()?)
                }
                Some("CACHE") => {
                    self.index += 1;
                    SequenceOption::Cache(self.parse_signed_integer()?)
                }
                Some("NOMINVALUE") => self.word_option(SequenceOption::NoMinValue),
                Some("NOMAXVALUE") => self.word_option(SequenceOption::NoMaxValue),
                Some("NOCACHE") => self.word_option(SequenceOption::NoCache),
                Some("CYCLE") => self.word_option(SequenceOption::Cycle),
                Some("NOCYCLE") => self.word_option(SequenceOption::NoCycle),
                Some("ORDER") => self.word_option(SequenceOption::Order),
                Some("NOORDER") => self.word_option(SequenceOption::NoOrder),
                // PostgreSQL spells the negative options in two words: NO MAXVALUE.
                Some("NO") => {
                    self.index += 1;
                    let option = match self.peek_word() {
                        Some("MINVALUE") => SequenceOption::NoMinValue,
                        Some("MAXVALUE") => SequenceOption::NoMaxValue,
                        Some("CACHE") => SequenceOption::NoCache,
                        Some("CYCLE") => SequenceOption::NoCycle,
                        Some("ORDER") => SequenceOption::NoOrder,
                        _ => return Err(self.error(Syntax::MissingOrInvalidOption)),
                    };
                    self.word_option(option)
                }
                _ => return Ok(options),
            };
            options.push(option);
        }
    }

    /// Consumes the one word that is `option`.
    fn word_option(&mut self, option: SequenceOption) -> SequenceOption {
        self.index += 1;
        option
    }

    fn parse_create_view(&mut self, or_replace: bool) -> Result<Statement> {
        self.index += 1;
        let name = self.parse_object_name(Syntax::InvalidTableName)?;
        let columns = if self.is(&TokenKind::LeftParen) {
            self.parse_identifier_list(Syntax::MissingRightParenthesis)?
        } else {
            Vec::new()
        };
        self.expect_word("AS", Syntax::MissingKeyword)?;
        let query = self.parse_query()?;
        self.unimplemented_if_word(&["WITH"])?;
        Ok(Statement::CreateView {
            or_replace,
            name,
            columns,
            query,
        })
    }

    pub(super) fn parse_drop(&mut self) -> Result<Statement> {
        self.index += 1;
        if let Some(kind) = self.parse_program_kind() {
            let name = self.parse_object_name(Syntax::InvalidIdentifier)?;
            return Ok(Statement::DropProgram { kind, name });
        }
        match self.peek_word() {
            Some("TABLE") => {
                self.index += 1;
                let if_exists = self.is_word("IF") && self.is_word_nth(1, "EXISTS");
                if if_exists {
                    self.index += 2;
                }
                let mut names = vec![self.parse_object_name(Syntax::InvalidTableName)?];
                while self.eat(&TokenKind::Comma) {
                    names.push(self.parse_object_name(Syntax::InvalidTableName)?);
                }
                let mut purge = false;
                let mut cascade_constraints = false;
                loop {
                    if self.eat_word("CASCADE") {
                        self.eat_word("CONSTRAINTS");
                        cascade_constraints = true;
                    } else if self.eat_word("PURGE") {
                        purge = true;
                    } else {
                        break;
                    }
                }
                Ok(Statement::DropTable {
                    names,
                    if_exists,
                    purge,
                    cascade_constraints,
                })
            }
            Some("INDEX") => {
                self.index += 1;
                Ok(Statement::DropIndex {
                    name: self.parse_object_name(Syntax::InvalidIndexName)?,
                })
            }
            Some("VIEW") => {
                self.index += 1;
                Ok(Statement::DropView {
                    name: self.parse_object_name(Syntax::InvalidTableName)?,
                })
            }
            Some("SEQUENCE") => {
                self.index += 1;
                Ok(Statement::DropSequence {
                    name: self.parse_object_name(Syntax::InvalidSequenceName)?,
                })
            }
            Some("USER") => self.parse_drop_user(),
            _ => Err(self.error(Syntax::InvalidDropOption)),
        }
    }

    pub(super) fn parse_truncate(&mut self) -> Result<Statement> {
        self.index += 1;
        self.eat_word("TABLE");
        let mut tables = vec![self.parse_object_name(Syntax::InvalidTableName)?];
        while self.eat(&TokenKind::Comma) {
            tables.push(self.parse_object_name(Syntax::InvalidTableName)?);
        }
        loop {
            if self.eat_word("DROP") {
                self.eat_word("ALL");
                self.expect_word("STORAGE", Syntax::MissingKeyword)?;
            } else if self.eat_word("REUSE") {
                self.expect_word("STORAGE", Syntax::MissingKeyword)?;
            } else if self.eat_word("RESTART") || self.eat_word("CONTINUE") {
                self.expect_word("IDENTITY", Syntax::MissingKeyword)?;
            } else if !(self.eat_word("CASCADE") || self.eat_word("RESTRICT")) {
                return Ok(Statement::Truncate { tables });
            }
        }
    }

    pub(super) fn parse_alter(&mut self) -> Result<Statement> {
        self.index += 1;
        if let Some(mut kind) = self.parse_program_kind() {
            let name = self.parse_object_name(Syntax::InvalidIdentifier)?;
            self.eat_word("EDITIONABLE");
            self.eat_word("NONEDITIONABLE");
            self.expect_word("COMPILE", Syntax::MissingOrInvalidOption)?;
            if self.eat_word("BODY") {
                kind = ProgramKind::PackageBody;
            } else if self.eat_word("PACKAGE") || self.eat_word("SPECIFICATION") {
                kind = ProgramKind::Package;
            }
            self.eat_word("DEBUG");
            if self.eat_word("REUSE") {
                self.expect_word("SETTINGS", Syntax::MissingKeyword)?;
            }
            return Ok(Statement::AlterCompile { kind, name });
        }
        match self.peek_word() {
            Some("TABLE") => {
                self.index += 1;
                let name = self.parse_object_name(Syntax::InvalidTableName)?;
                let action = self.parse_alter_table_action()?;
                Ok(Statement::AlterTable { name, action })
            }
            Some("INDEX") => self.parse_alter_index(),
            Some("SEQUENCE") => {
                self.index += 1;
                let name = self.parse_object_name(Syntax::InvalidSequenceName)?;
                let options = self.parse_sequence_options()?;
                if options.is_empty() {
                    return Err(self.error(Syntax::NoAlterSequenceOptions));
                }
                Ok(Statement::AlterSequence { name, options })
            }
            Some("SYSTEM") => self.parse_alter_system(),
            Some("SESSION") => self.parse_alter_session(),
            Some("USER") => self.parse_alter_user(),
            _ => Err(self.error(Syntax::InvalidAlterCommand)),
        }
    }

    fn parse_alter_table_action(&mut self) -> Result<AlterTableAction> {
        let action = match self.peek_word() {
            Some("ADD") => {
                self.index += 1;
                self.eat_word("COLUMN");
                if self.eat(&TokenKind::LeftParen) {
                    let mut columns = Vec::new();
                    loop {
                        columns.push(self.parse_column_definition()?);
                        if self.eat(&TokenKind::Comma) {
                            continue;
                        }
                        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
                        break AlterTableAction::AddColumns(columns);
                    }
                } else if self.starts_table_constraint() {
                    AlterTableAction::AddConstraint(self.parse_table_constraint()?)
                } else {
                    AlterTableAction::AddColumns(vec![self.parse_column_definition()?])
                }
            }
            Some("DROP") => {
                self.index += 1;
                if self.eat_word("COLUMN") {
                    AlterTableAction::DropColumn(self.parse_identifier(Syntax::InvalidIdentifier)?)
                } else if self.eat_word("CONSTRAINT") {
                    AlterTableAction::DropConstraint(
                        self.parse_identifier(Syntax::InvalidIdentifier)?,
                    )
                } else if self.eat_word("PRIMARY") {
                    self.expect_word("KEY", Syntax::MissingKeyword)?;
                    AlterTableAction::DropPrimaryKey
                } else if self.eat_word("UNIQUE") {
                    AlterTableAction::DropUnique(
                        self.parse_identifier_list(Syntax::MissingRightParenthesis)?,
                    )
                } else {
                    return Err(self.error(Syntax::MissingKeyword));
                }
            }
            Some("MODIFY") => {
                self.index += 1;
                if self.eat(&TokenKind::LeftParen) {
                    let mut columns = Vec::new();
                    loop {
                        columns.push(self.parse_column_modification()?);
                        if self.eat(&TokenKind::Comma) {
                            continue;
                        }
                        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
                        break AlterTableAction::ModifyColumns(columns);
                    }
                } else {
                    AlterTableAction::ModifyColumns(vec![self.parse_column_modification()?])
                }
            }
            Some("RENAME") => {
                self.index += 1;
                if self.eat_word("TO") {
                    AlterTableAction::RenameTo(self.parse_identifier(Syntax::InvalidTableName)?)
                } else if self.eat_word("COLUMN") {
                    let from = self.parse_identifier(Syntax::InvalidIdentifier)?;
                    self.expect_word("TO", Syntax::MissingKeyword)?;
                    let to = self.parse_identifier(Syntax::InvalidIdentifier)?;
                    AlterTableAction::RenameColumn { from, to }
                } else {
                    return Err(self.error(Syntax::MissingKeyword));
                }
            }
            _ => {
                let start = self.index;
                let (storage, cache) = self.parse_table_attributes()?;
                if self.index == start {
                    return Err(self.error(Syntax::InvalidAlterTableOption));
                }
                AlterTableAction::Attributes { storage, cache }
            }
        };
        Ok(action)
    }

    fn parse_column_modification(&mut self) -> Result<ColumnModification> {
        let name = self.parse_identifier(Syntax::InvalidIdentifier)?;
        let has_type =
            matches!(self.peek_word(), Some(word) if !matches!(word, "DEFAULT" | "NOT" | "NULL"));
        let data_type = if has_type {
            Some(self.parse_data_type()?)
        } else {
            None
        };
        let mut modification = ColumnModification {
            name,
            data_type,
            default: None,
            not_null: None,
        };
        loop {
            if self.eat_word("DEFAULT") {
                modification.default = Some(self.parse_expression()?);
            } else if self.eat_word("NOT") {
                self.expect_word("NULL", Syntax::MissingNullKeyword)?;
                modification.not_null = Some(true);
            } else if self.eat_word("NULL") {
                modification.not_null = Some(false);
            } else {
                return Ok(modification);
            }
        }
    }

    fn parse_alter_index(&mut self) -> Result<Statement> {
        self.index += 1;
        let name = self.parse_object_name(Syntax::InvalidIndexName)?;
        let mut storage = StorageClause::default();
        let action = if self.eat_word("REBUILD") {
            while self.parse_physical_attribute(&mut storage)? || self.eat_word("ONLINE") {}
            AlterIndexAction::Rebuild { storage }
        } else {
            if !self.parse_physical_attribute(&mut storage)? {
                return Err(self.error(Syntax::InvalidAlterIndexOption));
            }
            while self.parse_physical_attribute(&mut storage)? {}
            AlterIndexAction::Storage(storage)
        };
        Ok(Statement::AlterIndex { name, action })
    }

    /// `COMMENT ON TABLE t IS '...'` or `COMMENT ON COLUMN t.c IS '...'`.
    pub(super) fn parse_comment(&mut self) -> Result<Statement> {
        self.index += 1;
        self.expect_word("ON", Syntax::MissingKeyword)?;
        let (table, column) = if self.eat_word("TABLE") {
            (self.parse_object_name(Syntax::InvalidTableName)?, None)
        } else if self.eat_word("COLUMN") {
            let mut parts = vec![self.parse_identifier(Syntax::InvalidTableName)?];
            while self.eat(&TokenKind::Period) {
                parts.push(self.parse_identifier(Syntax::InvalidIdentifier)?);
            }
            let column = parts.pop().unwrap_or_default();
            let table = match parts.len() {
                1 => ObjectName::new(parts.remove(0)),
                2 => ObjectName::qualified(parts.remove(0), parts.remove(0)),
                _ => return Err(self.error(Syntax::InvalidTableName)),
            };
            (table, Some(column))
        } else {
            return Err(self.error(Syntax::MissingKeyword));
        };
        self.expect_word("IS", Syntax::MissingKeyword)?;
        let text = self.parse_string_literal()?;
        Ok(Statement::Comment {
            table,
            column,
            text,
        })
    }

    pub(super) fn parse_analyze(&mut self) -> Result<Statement> {
        self.index += 1;
        self.expect_word("TABLE", Syntax::InvalidAnalyzeCommand)?;
        let table = self.parse_object_name(Syntax::InvalidTableName)?;
        let mut action = if self.eat_word("COMPUTE") {
            AnalyzeAction::Compute
        } else if self.eat_word("ESTIMATE") {
            AnalyzeAction::Estimate(None)
        } else if self.eat_word("DELETE") {
            AnalyzeAction::Delete
        } else {
            return Err(self.error(Syntax::InvalidAnalyzeCommand));
        };
        self.expect_word("STATISTICS", Syntax::MissingKeyword)?;
        if action == AnalyzeAction::Estimate(None) && self.eat_word("SAMPLE") {
            let size = self.parse_unsigned_integer()?;
            let sample = if self.eat_word("ROWS") {
                Sample::Rows(size)
            } else if self.eat_word("PERCENT") {
                Sample::Percent(size)
            } else {
                return Err(self.error(Syntax::MissingKeyword));
            };
            action = AnalyzeAction::Estimate(Some(sample));
        }
        // `FOR TABLE`, `FOR ALL [INDEXED] COLUMNS [SIZE n]`, `FOR ALL [LOCAL] INDEXES`,
        // `FOR COLUMNS a, b`: accepted and not kept (everything is gathered).
        if action != AnalyzeAction::Delete {
            while self.eat_word("FOR") {
                let known = if self.eat_word("TABLE") {
                    true
                } else if self.eat_word("ALL") {
                    if !self.eat_word("INDEXED") {
                        self.eat_word("LOCAL");
                    }
                    self.eat_word("COLUMNS") || self.eat_word("INDEXES")
                } else {
                    self.eat_word("COLUMNS")
                };
                if !known {
                    return Err(self.error(Syntax::InvalidAnalyzeCommand));
                }
                while !self.at_end() && !self.is(&TokenKind::Semicolon) && !self.is_word("FOR") {
                    self.index += 1;
                }
            }
        }
        Ok(Statement::Analyze { table, action })
    }
}
