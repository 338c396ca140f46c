//! The SQL grammar as PL/SQL reads it inside its own (`plsql/parser/`).
//!
//! PL/SQL's statements hold SQL expressions (`x := a + f(b);`, `IF c%NOTFOUND THEN`) and
//! SQL statements (`SELECT ... INTO ...`, `UPDATE ...`). The PL/SQL parser reads its own
//! grammar over the tokens of this one lexer, through an [`Embedded`] cursor, and hands
//! expressions and data types to the SQL parser at the cursor, so that both grammars agree
//! on every byte position. Static SQL statements are parsed from their own text by
//! [`parse_embedded_statement`].
//!
//! In PL/SQL mode the expression grammar differs from SQL's in two ways: `name%ATTRIBUTE`
//! (a cursor's `%FOUND`, `%NOTFOUND`, `%ISOPEN`, `%ROWCOUNT`, and `%BULK_ROWCOUNT`) is an
//! [`Expr::Function`] named `NAME%ATTRIBUTE` with no arguments, and every column reference's
//! byte span and parts are recorded as a [`ColumnSpan`]: the PL/SQL compiler decides which of
//! them are its variables and, in static SQL, replaces those by binds at these spans.

use super::errors::Syntax;
use super::Parser;
use crate::error::Result;
use crate::syntax::ast::{DataType, Expr, Statement};
use crate::syntax::lexer::{Token, TokenKind};

/// The attributes PL/SQL reads after `%` in an expression.
const ATTRIBUTES: &[&str] = &["FOUND", "NOTFOUND", "ISOPEN", "ROWCOUNT", "BULK_ROWCOUNT"];

/// A column reference as written: its byte range in the text and its name's parts
/// (`r.field` is `["R", "FIELD"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpan {
    pub start: usize,
    pub end: usize,
    pub parts: Vec<String>,
}

/// A cursor over the tokens of a PL/SQL unit's text, from which the SQL parser reads an
/// expression or a data type where the PL/SQL parser asks for one.
pub struct Embedded<'a> {
    parser: Parser<'a>,
}

impl<'a> Embedded<'a> {
    /// Tokenizes `text` (the lexer's errors are its errors). Hints are kept only where SQL
    /// reads them.
    pub fn new(text: &'a str) -> Result<Embedded<'a>> {
        let mut parser = Parser::new(text)?;
        parser.plsql = true;
        Ok(Embedded { parser })
    }

    pub fn text(&self) -> &'a str {
        self.parser.sql
    }

    pub fn tokens(&self) -> &[Token] {
        &self.parser.tokens
    }

    /// The index of the next token.
    pub fn index(&self) -> usize {
        self.parser.index
    }

    pub fn set_index(&mut self, index: usize) {
        self.parser.index = index.min(self.parser.tokens.len());
    }

    pub fn peek(&self) -> Option<&TokenKind> {
        self.parser.peek()
    }

    pub fn peek_nth(&self, offset: usize) -> Option<&TokenKind> {
        self.parser.peek_nth(offset)
    }

    pub fn peek_word(&self) -> Option<&str> {
        self.parser.peek_word()
    }

    pub fn peek_word_nth(&self, offset: usize) -> Option<&str> {
        self.parser.peek_word_nth(offset)
    }

    pub fn is_word(&self, word: &str) -> bool {
        self.parser.is_word(word)
    }

    pub fn eat_word(&mut self, word: &str) -> bool {
        self.parser.eat_word(word)
    }

    pub fn is(&self, kind: &TokenKind) -> bool {
        self.parser.is(kind)
    }

    pub fn eat(&mut self, kind: &TokenKind) -> bool {
        self.parser.eat(kind)
    }

    pub fn advance(&mut self) -> Option<Token> {
        self.parser.advance()
    }

    pub fn at_end(&self) -> bool {
        self.parser.at_end()
    }

    /// Where the next token starts, or the end of the last one.
    pub fn position(&self) -> usize {
        self.parser.position()
    }

    /// The identifier at the cursor (a quoted one, or an unreserved word), consumed.
    pub fn identifier(&mut self) -> Option<String> {
        let name = self.parser.identifier_nth(0)?;
        self.parser.index += 1;
        Some(name)
    }

    /// Whether the token `offset` ahead is an identifier.
    pub fn is_identifier_nth(&self, offset: usize) -> bool {
        self.parser.identifier_nth(offset).is_some()
    }

    /// An SQL expression at the cursor; its column references are recorded
    /// ([`Embedded::take_column_spans`]).
    pub fn expression(&mut self) -> Result<Expr> {
        let expr = self.parser.parse_expression()?;
        debug_assert_eq!(self.parser.depth, 0, "recursion depth is restored");
        Ok(expr)
    }

    /// A comma-separated list of expressions.
    pub fn expression_list(&mut self) -> Result<Vec<Expr>> {
        self.parser.parse_expression_list()
    }

    /// An SQL data type at the cursor.
    pub fn data_type(&mut self) -> Result<DataType> {
        self.parser.parse_data_type()
    }

    /// The column references read since the last call.
    pub fn take_column_spans(&mut self) -> Vec<ColumnSpan> {
        std::mem::take(&mut self.parser.column_spans)
    }

    /// Binds read so far (`:name` host variables), in text order.
    pub fn bind_count(&self) -> usize {
        self.parser.bind_count
    }
}

impl Parser<'_> {
    /// `%FOUND`, `%ROWCOUNT`, ... after a name: the attribute, consumed.
    pub(super) fn parse_plsql_attribute(&mut self) -> Option<String> {
        if !self.is(&TokenKind::Percent) {
            return None;
        }
        let attribute = self.peek_word_nth(1)?;
        if !ATTRIBUTES.contains(&attribute) {
            return None;
        }
        let attribute = attribute.to_string();
        self.index += 2;
        Some(attribute)
    }
}

/// Parses one SQL statement of a PL/SQL unit: `text` is the statement (without its `;`),
/// the parts PL/SQL reads itself (`INTO targets`) already blanked out. Returns the tree and
/// the spans of its column references, as offsets in `text`.
pub fn parse_embedded_statement(text: &str) -> Result<(Statement, Vec<ColumnSpan>)> {
    let mut parser = Parser::new(text)?;
    parser.plsql = true;
    let statement = parser.parse_statement()?;
    if !parser.at_end() {
        return Err(parser.error(Syntax::CommandNotProperlyEnded));
    }
    Ok((statement, std::mem::take(&mut parser.column_spans)))
}
