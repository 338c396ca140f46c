//! Parameter names and values, as ALTER SYSTEM SET, ALTER SESSION SET and PostgreSQL's SET and
//! SHOW take them.
//!
//! ```text
//!   name  := {word | "quoted"} [. {word | "quoted"} ...]
//!   value := [+|-] number [K|M|G|T|P|E] | 'string' | word | "quoted" | ( ... ) kept as written
//! ```

use super::{Parser, Syntax};
use crate::error::Result;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Token, TokenKind};

/// The units a parameter's size may have: `64M`.
const SIZE_UNITS: &[&str] = &["K", "M", "G", "T", "P", "E"];

impl Parser<'_> {
    /// The name of a parameter: any word (hidden ones start with `_`) or a quoted identifier,
    /// with PostgreSQL's dotted custom names (`myapp.setting`).
    pub(super) fn parse_parameter_name(&mut self) -> Result<String> {
        let mut name = match self.peek() {
            Some(TokenKind::Word(word) | TokenKind::QuotedIdentifier(word)) => word.clone(),
            _ => return Err(self.error(Syntax::MissingOrInvalidOption)),
        };
        self.index += 1;
        while self.is(&TokenKind::Period) {
            let Some(TokenKind::Word(part) | TokenKind::QuotedIdentifier(part)) = self.peek_nth(1)
            else {
                break;
            };
            name.push('.');
            name.push_str(part);
            self.index += 2;
        }
        Ok(name)
    }

    /// The `=` after a parameter name, which Oracle lets `SET EVENTS '...'` leave out.
    pub(super) fn expect_parameter_equal_sign(&mut self, name: &str) -> Result<()> {
        if self.eat(&TokenKind::Equal)
            || (name == "EVENTS" && matches!(self.peek(), Some(TokenKind::String(_))))
        {
            return Ok(());
        }
        Err(self.error(Syntax::MissingEqualSign))
    }

    /// A parameter value: a number (with an optional sign and size unit), a string, a word,
    /// or a parenthesized list kept as written.
    pub(super) fn parse_parameter_value(&mut self) -> Result<ParameterValue> {
        let Some(token) = self.tokens.get(self.index).cloned() else {
            return Err(self.error(Syntax::MissingOrInvalidOption));
        };
        let value = match token.kind {
            TokenKind::Minus | TokenKind::Plus => {
                let Some(number) = self
                    .tokens
                    .get(self.index + 1)
                    .filter(|next| matches!(next.kind, TokenKind::Number(_)))
                else {
                    return Err(Syntax::MissingOrInvalidOption.at(token.end));
                };
                let number = number.clone();
                self.index += 1;
                let sign = if token.kind == TokenKind::Minus {
                    "-"
                } else {
                    ""
                };
                return Ok(self.parameter_number(sign, &number));
            }
            TokenKind::Number(_) => return Ok(self.parameter_number("", &token)),
            TokenKind::String(value) | TokenKind::NationalString(value) => {
                ParameterValue::String(value)
            }
            TokenKind::Word(word) | TokenKind::QuotedIdentifier(word) => {
                ParameterValue::Identifier(word)
            }
            TokenKind::LeftParen => {
                let (start, end) = self.skip_parenthesized()?;
                return Ok(ParameterValue::List(self.sql[start..end].to_string()));
            }
            _ => return Err(self.error(Syntax::MissingOrInvalidOption)),
        };
        self.index += 1;
        Ok(value)
    }

    /// The number token at the current index, with a size unit (`64M`) if one is written
    /// right after it.
    fn parameter_number(&mut self, sign: &str, number: &Token) -> ParameterValue {
        self.index += 1;
        if let Some(unit) = self.tokens.get(self.index) {
            let is_unit = match &unit.kind {
                TokenKind::Word(word) => SIZE_UNITS.contains(&word.as_str()),
                _ => false,
            };
            if is_unit && unit.start == number.end {
                let end = unit.end;
                self.index += 1;
                return ParameterValue::Size(format!("{sign}{}", &self.sql[number.start..end]));
            }
        }
        ParameterValue::Number(format!("{sign}{}", number.text(self.sql)))
    }
}
