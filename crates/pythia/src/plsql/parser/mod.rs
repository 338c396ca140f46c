//! The PL/SQL parser: a unit's text to its [`Block`] tree.
//!
//! It reads PL/SQL's own grammar by recursive descent over the SQL lexer's tokens, through
//! `syntax::parser::Embedded`, and hands every expression and data type to the SQL parser at
//! the cursor, so the two grammars share one lexer and one set of byte positions. A static
//! SQL statement runs from its first word to the `;` at its own parenthesis depth; its
//! `INTO targets` are read here and blanked out, and the rest is parsed by the SQL parser
//! (`parse_embedded_statement`).
//!
//! ```text
//!   unit        [<<label>>] [DECLARE declaration...] BEGIN statement... [EXCEPTION handler...] END [label] [;]
//!   declaration name [CONSTANT] type [NOT NULL] [:= | DEFAULT expr] ;  | name EXCEPTION ;
//!               | PRAGMA EXCEPTION_INIT (name, -n) ; | TYPE name IS RECORD (field, ...) ;
//!               | SUBTYPE name IS type [NOT NULL] ; | CURSOR name [(parameters)] IS query ;
//!   program     PROCEDURE name [(parameter, ...)] [AUTHID ...] {IS | AS} [declaration...] BEGIN ... END [name] [;]
//!               | FUNCTION name [(parameter, ...)] RETURN type [DETERMINISTIC ...] {IS | AS} ... END [name] [;]
//!               | PACKAGE name [AUTHID ...] {IS | AS} declaration... END [name] [;]
//!               | PACKAGE BODY name {IS | AS} declaration... [BEGIN statement...] END [name] [;]
//!   parameter   name [IN | OUT | IN OUT] [NOCOPY] type [:= | DEFAULT expr]
//!   type        sql type | PLS_INTEGER | BINARY_INTEGER | BOOLEAN | name | name%TYPE | name%ROWTYPE
//!   statement   [<<label>>] (assignment | IF | CASE | LOOP | WHILE | FOR | EXIT | CONTINUE
//!               | NULL | RETURN | GOTO | RAISE | call | static SQL | OPEN | FETCH | CLOSE | block) ;
//! ```
//!
//! Failures are Oracle's: ORA-06550 with the line and column, then `PLS-00103: Encountered
//! the symbol "X" when expecting one of the following: ...` for text that does not fit the
//! grammar, or `PL/SQL: ORA-nnnnn` and `PL/SQL: SQL Statement ignored` for a static SQL
//! statement the SQL parser refuses. Nesting is bounded by [`NESTING_MAX`] (blocks, loops and
//! IFs inside one another), so no text can overflow the stack.

use super::ast::*;
use super::errors;
use crate::error::{Error, Result};
use crate::syntax::lexer::TokenKind;
use crate::syntax::parser::Embedded;

mod declarations;
mod programs;
mod statements;

pub use declarations::PARAMETER_STRING_BYTES;
pub use programs::parse_program;
#[cfg(test)]
mod tests;

/// The deepest nesting of blocks and compound statements a unit may have.
pub const NESTING_MAX: usize = 64;

/// What Oracle lists after "when expecting one of the following:" where a statement may
/// start.
const STATEMENT_START: &str = "begin case declare exit for goto if loop mod null pragma raise return select update while with <an identifier> <a double-quoted delimited-identifier> <a bind variable> << continue close current delete fetch lock insert open rollback savepoint set sql execute commit forall merge pipe purge";

/// Parses an anonymous block: the whole text, its END followed by `;`.
pub fn parse_block(text: &str) -> Result<Block> {
    let mut parser = UnitParser::new(text)?;
    let block = parser.block()?;
    parser.expect_semicolon()?;
    if !parser.tokens.at_end() {
        return Err(parser.unexpected("end-of-file"));
    }
    Ok(block)
}

pub(super) struct UnitParser<'a> {
    pub(super) tokens: Embedded<'a>,
    depth: usize,
}

impl<'a> UnitParser<'a> {
    pub(super) fn new(text: &'a str) -> Result<UnitParser<'a>> {
        let tokens = Embedded::new(text).map_err(|error| {
            let position = error.position().unwrap_or(0);
            errors::compilation(text, position, &format!("PL/SQL: {error}"))
        })?;
        Ok(UnitParser { tokens, depth: 0 })
    }

    pub(super) fn text(&self) -> &'a str {
        self.tokens.text()
    }

    /// `[<<label>>] [DECLARE ...] BEGIN ... [EXCEPTION ...] END [label]` (no `;`).
    pub(super) fn block(&mut self) -> Result<Block> {
        let label = self.labels()?.pop();
        self.block_after_labels(label)
    }

    fn block_after_labels(&mut self, label: Option<String>) -> Result<Block> {
        self.enter()?;
        let position = self.tokens.position();
        let declarations = if self.tokens.eat_word("DECLARE") {
            self.declarations()?
        } else {
            Vec::new()
        };
        let end_label = label.clone();
        let block = self.block_body(label, end_label.as_deref(), declarations, position)?;
        self.leave();
        Ok(block)
    }

    /// `BEGIN statements [EXCEPTION handlers] END [end_label]`, after the declarations
    /// (a block's after DECLARE, a subprogram's after IS).
    pub(super) fn block_body(
        &mut self,
        label: Option<String>,
        end_label: Option<&str>,
        declarations: Vec<Declaration>,
        position: usize,
    ) -> Result<Block> {
        self.expect_word("BEGIN", "begin function pragma procedure subtype type <an identifier> <a double-quoted delimited-identifier> current cursor delete exists prior")?;
        let body = self.statements(&["EXCEPTION", "END"])?;
        let mut handlers = Vec::new();
        if self.tokens.eat_word("EXCEPTION") {
            while self.tokens.is_word("WHEN") {
                handlers.push(self.handler()?);
            }
            if handlers.is_empty() {
                return Err(self.unexpected("when"));
            }
        }
        self.expect_word("END", STATEMENT_START)?;
        self.end_label(end_label)?;
        Ok(Block {
            label,
            declarations,
            body,
            handlers,
            position,
        })
    }

    /// `WHEN name [OR name ...] THEN statements`
    fn handler(&mut self) -> Result<Handler> {
        let position = self.tokens.position();
        self.tokens.eat_word("WHEN");
        let mut exceptions = vec![self.dotted_name("others <an identifier>")?];
        while self.tokens.eat_word("OR") {
            exceptions.push(self.dotted_name("others <an identifier>")?);
        }
        self.expect_word("THEN", "or then")?;
        let body = self.statements(&["WHEN", "END"])?;
        Ok(Handler {
            exceptions,
            body,
            position,
        })
    }

    /// `END`'s optional label, which must be the block's or loop's own (PLS-00113).
    pub(super) fn end_label(&mut self, label: Option<&str>) -> Result<()> {
        let position = self.tokens.position();
        if matches!(self.tokens.peek(), Some(TokenKind::Semicolon) | None) {
            return Ok(());
        }
        let Some(name) = self.tokens.identifier() else {
            return Ok(());
        };
        if label != Some(name.as_str()) {
            return Err(errors::compilation(
                self.text(),
                position,
                &format!(
                    "PLS-00113: END identifier '{name}' must match '{}' at line 1, column 1",
                    label.unwrap_or("")
                ),
            ));
        }
        Ok(())
    }

    /// `<<label>>` before a block or statement, any number of them.
    pub(super) fn labels(&mut self) -> Result<Vec<String>> {
        let mut labels = Vec::new();
        while self.tokens.is(&TokenKind::Less) && self.tokens.peek_nth(1) == Some(&TokenKind::Less)
        {
            self.tokens.advance();
            self.tokens.advance();
            let label = self.identifier("<an identifier>")?;
            for _ in 0..2 {
                if !self.tokens.eat(&TokenKind::Greater) {
                    return Err(self.unexpected(">>"));
                }
            }
            labels.push(label);
        }
        Ok(labels)
    }

    // ---- Tokens ------------------------------------------------------------------------

    pub(super) fn expect_word(&mut self, word: &str, expecting: &str) -> Result<()> {
        if self.tokens.eat_word(word) {
            Ok(())
        } else {
            Err(self.unexpected(expecting))
        }
    }

    pub(super) fn expect(&mut self, kind: &TokenKind, expecting: &str) -> Result<()> {
        if self.tokens.eat(kind) {
            Ok(())
        } else {
            Err(self.unexpected(expecting))
        }
    }

    pub(super) fn expect_semicolon(&mut self) -> Result<()> {
        self.expect(&TokenKind::Semicolon, ";")
    }

    pub(super) fn identifier(&mut self, expecting: &str) -> Result<String> {
        self.tokens
            .identifier()
            .ok_or_else(|| self.unexpected(expecting))
    }

    /// `a`, `a.b`, `a.b.c`.
    pub(super) fn dotted_name(&mut self, expecting: &str) -> Result<Vec<String>> {
        let mut parts = vec![self.identifier(expecting)?];
        while self.tokens.is(&TokenKind::Period)
            && self.tokens.peek_nth(1) != Some(&TokenKind::Period)
        {
            self.tokens.advance();
            // A reserved word may follow a period: a collection's method (`a.DELETE`).
            if let Some(word) = self.tokens.peek_word().map(str::to_string) {
                self.tokens.advance();
                parts.push(word);
                continue;
            }
            parts.push(self.identifier("<an identifier>")?);
        }
        Ok(parts)
    }

    /// PLS-00103 at the next token.
    pub(super) fn unexpected(&self, expecting: &str) -> Error {
        let position = self.tokens.position();
        let symbol = match self.tokens.tokens().get(self.tokens.index()) {
            None => "end-of-file".to_string(),
            Some(token) => match &token.kind {
                TokenKind::Word(word) => word.clone(),
                TokenKind::String(value) => value.clone(),
                _ => token.text(self.text()).to_string(),
            },
        };
        errors::compilation(
            self.text(),
            position,
            &format!(
                "PLS-00103: Encountered the symbol \"{symbol}\" when expecting one of the following:\n\n   {expecting}"
            ),
        )
    }

    /// An SQL expression at the cursor; the SQL parser's error becomes PLS-00103 there.
    pub(super) fn expression(&mut self) -> Result<crate::syntax::ast::Expr> {
        let expr = self
            .tokens
            .expression()
            .map_err(|error| self.sql_syntax(error));
        self.tokens.take_column_spans();
        expr
    }

    /// The SQL parser's error at a PL/SQL position: PLS-00103 at the token it stopped on.
    pub(super) fn sql_syntax(&mut self, error: Error) -> Error {
        if error.code() == 6550 {
            return error;
        }
        if let Some(position) = error.position() {
            if let Some(index) = self
                .tokens
                .tokens()
                .iter()
                .position(|token| token.start >= position)
            {
                self.tokens.set_index(index);
            } else {
                self.tokens.set_index(usize::MAX);
            }
        }
        self.unexpected("( - + case mod new not null <an identifier> <a double-quoted delimited-identifier> <a bind variable> continue avg count current exists max min prior sql stddev sum variance execute forall merge time timestamp interval date <a string literal with character set specification> <a number> <a single-quoted SQL string> pipe")
    }

    // ---- Nesting -------------------------------------------------------------------------

    pub(super) fn enter(&mut self) -> Result<()> {
        if self.depth >= NESTING_MAX {
            return Err(errors::compilation(
                self.text(),
                self.tokens.position(),
                &format!("PLS-00123: program too large (nesting deeper than {NESTING_MAX} levels)"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        debug_assert!(self.depth > 0, "every leave pairs with an enter");
        self.depth -= 1;
    }
}
