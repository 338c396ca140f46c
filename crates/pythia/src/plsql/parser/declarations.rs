//! A block's declarations: variables and constants, exceptions and EXCEPTION_INIT, record
//! types, subtypes and cursors, and the types they name.

use super::UnitParser;
use crate::error::Result;
use crate::plsql::ast::*;
use crate::plsql::errors;
use crate::syntax::lexer::TokenKind;

/// PL/SQL's integer types, all held as PLS_INTEGER.
const INTEGER_TYPES: &[&str] = &[
    "PLS_INTEGER",
    "BINARY_INTEGER",
    "SIMPLE_INTEGER",
    "NATURAL",
    "NATURALN",
    "POSITIVE",
    "POSITIVEN",
    "SIGNTYPE",
];

/// The length of an unconstrained VARCHAR2 parameter or return value: PL/SQL's largest.
pub const PARAMETER_STRING_BYTES: u32 = 32_767;

const DECLARATION_START: &str = "begin function pragma procedure subtype type <an identifier> <a double-quoted delimited-identifier> current cursor";

impl UnitParser<'_> {
    /// Declarations up to BEGIN (or a package's END).
    pub(super) fn declarations(&mut self) -> Result<Vec<Declaration>> {
        let mut declarations = Vec::new();
        while !self.tokens.is_word("BEGIN") && !self.tokens.is_word("END") && !self.tokens.at_end()
        {
            declarations.extend(self.declaration()?);
        }
        Ok(declarations)
    }

    /// One declaration; None for a pragma that is read and not kept.
    fn declaration(&mut self) -> Result<Option<Declaration>> {
        let position = self.tokens.position();
        let declaration = match self.tokens.peek_word() {
            Some("PRAGMA") => {
                self.tokens.advance();
                let pragma = self.identifier("<an identifier>")?;
                if pragma == "AUTONOMOUS_TRANSACTION" {
                    self.expect_semicolon()?;
                    return Ok(Some(Declaration::Autonomous { position }));
                }
                if pragma != "EXCEPTION_INIT" {
                    // Other pragmas (SERIALLY_REUSABLE, ...) are read and not kept.
                    while !self.tokens.is(&TokenKind::Semicolon) && !self.tokens.at_end() {
                        self.tokens.advance();
                    }
                    self.expect_semicolon()?;
                    return Ok(None);
                }
                self.expect(&TokenKind::LeftParen, "(")?;
                let name = self.identifier("<an identifier>")?;
                self.expect(&TokenKind::Comma, ",")?;
                let negative = self.tokens.eat(&TokenKind::Minus);
                let code = match self.tokens.peek() {
                    Some(TokenKind::Number(text)) => text.parse::<i64>().ok(),
                    _ => None,
                }
                .ok_or_else(|| self.unexpected("<an integer>"))?;
                self.tokens.advance();
                self.expect(&TokenKind::RightParen, ")")?;
                Declaration::ExceptionInit {
                    name,
                    code: if negative { -code } else { code },
                    position,
                }
            }
            Some("TYPE") => {
                self.tokens.advance();
                let name = self.identifier("<an identifier>")?;
                self.expect_word("IS", "is")?;
                if self.tokens.eat_word("TABLE") {
                    self.expect_word("OF", "of")?;
                    let element = self.type_name()?;
                    let not_null = self.not_null()?;
                    let key = self.index_by()?;
                    Declaration::Collection {
                        name,
                        element,
                        not_null,
                        key,
                        position,
                    }
                } else {
                    self.record_type(name, position)?
                }
            }
            Some("SUBTYPE") => {
                self.tokens.advance();
                let name = self.identifier("<an identifier>")?;
                self.expect_word("IS", "is")?;
                let base = self.type_name()?;
                let not_null = self.not_null()?;
                Declaration::Subtype {
                    name,
                    base,
                    not_null,
                    position,
                }
            }
            Some("CURSOR") => {
                self.tokens.advance();
                let name = self.identifier("<an identifier>")?;
                let parameters = self.parameters()?;
                self.expect_word("IS", "is (")?;
                let query = self.sql_statement()?;
                Declaration::Cursor {
                    name,
                    parameters,
                    query: Box::new(query),
                    position,
                }
            }
            Some("PROCEDURE" | "FUNCTION") => {
                let subprogram = self.subprogram()?;
                Declaration::Subprogram(Box::new(subprogram))
            }
            _ => {
                let name = self.identifier(DECLARATION_START)?;
                if self.tokens.eat_word("EXCEPTION") {
                    Declaration::Exception { name, position }
                } else {
                    let constant = self.tokens.eat_word("CONSTANT");
                    let type_name = self.type_name()?;
                    let not_null = self.not_null()?;
                    let default = self.default()?;
                    if constant && default.is_none() {
                        return Err(errors::compilation(
                            self.text(),
                            position,
                            "PLS-00322: declaration of a constant must contain an initialization assignment",
                        ));
                    }
                    if not_null && default.is_none() {
                        return Err(errors::compilation(
                            self.text(),
                            position,
                            "PLS-00218: a variable declared NOT NULL must have an initialization assignment",
                        ));
                    }
                    Declaration::Variable {
                        name,
                        type_name,
                        constant,
                        not_null,
                        default,
                        position,
                    }
                }
            }
        };
        self.expect_semicolon()?;
        Ok(Some(declaration))
    }

    /// `(name [IN | OUT | IN OUT] [NOCOPY] type [:= default], ...)` or nothing.
    pub(super) fn parameters(&mut self) -> Result<Vec<Parameter>> {
        let mut parameters = Vec::new();
        if !self.tokens.eat(&TokenKind::LeftParen) {
            return Ok(parameters);
        }
        loop {
            let name = self.identifier("<an identifier>")?;
            let mode = if self.tokens.eat_word("IN") {
                if self.tokens.eat_word("OUT") {
                    Mode::InOut
                } else {
                    Mode::In
                }
            } else if self.tokens.eat_word("OUT") {
                Mode::Out
            } else {
                Mode::In
            };
            self.tokens.eat_word("NOCOPY");
            let type_name = self.parameter_type()?;
            let default = self.default()?;
            if default.is_some() && mode != Mode::In {
                return Err(errors::compilation(
                    self.text(),
                    self.tokens.position(),
                    "PLS-00230: OUT and IN OUT formal parameters may not have default expressions",
                ));
            }
            parameters.push(Parameter {
                name,
                mode,
                type_name,
                default,
            });
            if !self.tokens.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RightParen, ", )")?;
        Ok(parameters)
    }

    /// A type: an SQL type, an integer type, BOOLEAN, a declared name, or `name%TYPE` /
    /// `name%ROWTYPE`.
    /// `RECORD (field type [NOT NULL] [:= default], ...)` after `TYPE name IS`.
    fn record_type(&mut self, name: String, position: usize) -> Result<Declaration> {
        if !self.tokens.eat_word("RECORD") {
            let message = if self.tokens.is_word("VARRAY") || self.tokens.is_word("VARYING") {
                "PLS-00999: implementation restriction (may be temporary) VARRAY types are not supported yet"
            } else {
                "PLS-00999: implementation restriction (may be temporary) only RECORD and INDEX BY TABLE types are declared in this release"
            };
            return Err(errors::compilation(
                self.text(),
                self.tokens.position(),
                message,
            ));
        }
        self.expect(&TokenKind::LeftParen, "(")?;
        let mut fields = Vec::new();
        loop {
            let name = self.identifier("<an identifier>")?;
            let type_name = self.type_name()?;
            let not_null = self.not_null()?;
            let default = self.default()?;
            fields.push(Field {
                name,
                type_name,
                not_null,
                default,
            });
            if !self.tokens.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RightParen, ", )")?;
        Ok(Declaration::Record {
            name,
            fields,
            position,
        })
    }

    /// `INDEX BY PLS_INTEGER | BINARY_INTEGER | VARCHAR2(n) | STRING(n) | LONG` after a
    /// collection's element type; a nested table (no INDEX BY) comes with part 2.
    fn index_by(&mut self) -> Result<CollectionKeyType> {
        if !self.tokens.is_word("INDEX") {
            return Err(errors::compilation(
                self.text(),
                self.tokens.position(),
                "PLS-00999: implementation restriction (may be temporary) nested tables (TABLE OF without INDEX BY) are not supported yet",
            ));
        }
        self.tokens.advance();
        self.expect_word("BY", "by")?;
        let position = self.tokens.position();
        if self.tokens.eat_word("LONG") {
            return Ok(CollectionKeyType::Text(32_760));
        }
        match self.type_name()? {
            TypeName::PlsInteger => Ok(CollectionKeyType::Integer),
            TypeName::Sql(crate::syntax::ast::DataType::Varchar2 { length }) => {
                Ok(CollectionKeyType::Text(length))
            }
            _ => Err(errors::compilation(
                self.text(),
                position,
                "PLS-00315: Implementation restriction: unsupported table index type",
            )),
        }
    }

    pub(super) fn type_name(&mut self) -> Result<TypeName> {
        if let Some(word) = self.tokens.peek_word() {
            if INTEGER_TYPES.contains(&word) {
                self.tokens.advance();
                return Ok(TypeName::PlsInteger);
            }
            if word == "STRING" {
                // PL/SQL's STRING(n) is VARCHAR2(n).
                self.tokens.advance();
                self.expect(&TokenKind::LeftParen, "(")?;
                let length = match self.tokens.peek() {
                    Some(TokenKind::Number(text)) => text.parse::<u32>().ok(),
                    _ => None,
                }
                .ok_or_else(|| self.unexpected("<an integer>"))?;
                self.tokens.advance();
                self.expect(&TokenKind::RightParen, ")")?;
                return Ok(TypeName::Sql(crate::syntax::ast::DataType::Varchar2 {
                    length,
                }));
            }
        }
        // `name%TYPE`, `name%ROWTYPE`, or a declared type's name.
        let is_attribute = |parser: &Self, offset: usize| {
            parser.tokens.peek_nth(offset) == Some(&TokenKind::Percent)
        };
        let mut length = 1;
        while self.tokens.peek_nth(length) == Some(&TokenKind::Period) {
            length += 2;
        }
        if is_attribute(self, length) {
            let name = self.dotted_name("<an identifier>")?;
            self.tokens.advance(); // %
            return match self.tokens.peek_word() {
                Some("TYPE") => {
                    self.tokens.advance();
                    Ok(TypeName::TypeOf(name))
                }
                Some("ROWTYPE") => {
                    self.tokens.advance();
                    Ok(TypeName::RowTypeOf(name))
                }
                _ => Err(self.unexpected("rowtype type")),
            };
        }
        let index = self.tokens.index();
        match self.tokens.data_type() {
            Ok(data_type) => Ok(TypeName::Sql(data_type)),
            Err(_) => {
                self.tokens.set_index(index);
                Ok(TypeName::Named(self.dotted_name("<an identifier>")?))
            }
        }
    }

    /// A parameter's or a RETURN's type, which has no length: `VARCHAR2`, `NUMBER`, `CHAR`
    /// take the largest PL/SQL allows (32767 for the strings), or a type as anywhere else.
    pub(super) fn parameter_type(&mut self) -> Result<TypeName> {
        let unconstrained = match self.tokens.peek_word() {
            Some("VARCHAR2" | "NVARCHAR2" | "VARCHAR" | "CHAR" | "NCHAR" | "LONG") => {
                self.tokens.peek_nth(1) != Some(&TokenKind::LeftParen)
            }
            _ => false,
        };
        if unconstrained {
            self.tokens.advance();
            return Ok(TypeName::Sql(crate::syntax::ast::DataType::Varchar2 {
                length: PARAMETER_STRING_BYTES,
            }));
        }
        self.type_name()
    }

    fn not_null(&mut self) -> Result<bool> {
        if self.tokens.eat_word("NOT") {
            self.expect_word("NULL", "null")?;
            return Ok(true);
        }
        Ok(false)
    }

    /// `:= expr` or `DEFAULT expr`, or nothing.
    pub(super) fn default(&mut self) -> Result<Option<crate::syntax::ast::Expr>> {
        if self.assignment_operator() || self.tokens.eat_word("DEFAULT") {
            return Ok(Some(self.expression()?));
        }
        Ok(None)
    }

    /// `:=` (the lexer reads it as `:` and `=`), consumed.
    pub(super) fn assignment_operator(&mut self) -> bool {
        let tokens = self.tokens.tokens();
        let index = self.tokens.index();
        let adjacent = match (tokens.get(index), tokens.get(index + 1)) {
            (Some(colon), Some(equal)) => {
                colon.kind == TokenKind::Colon
                    && equal.kind == TokenKind::Equal
                    && colon.end == equal.start
            }
            _ => false,
        };
        if adjacent {
            self.tokens.set_index(index + 2);
        }
        adjacent
    }
}
