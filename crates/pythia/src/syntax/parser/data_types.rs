//! Data types, as column definitions and CAST name them, with their precision and length.
//!
//! ```text
//!   NUMBER|NUMERIC|DECIMAL|DEC [({precision | *} [, scale])] | INTEGER|INT|SMALLINT|BIGINT|INT2|INT4|INT8
//!   FLOAT [(n)] | REAL | BINARY_DOUBLE | BINARY_FLOAT | FLOAT4 | FLOAT8 | DOUBLE PRECISION
//!   VARCHAR2|NVARCHAR2 (n [BYTE|CHAR]) | VARCHAR [(n)] | TEXT | {CHAR|CHARACTER|NCHAR} [VARYING] [(n)]
//!   DATE | TIMESTAMP [(0..9)] [WITHOUT TIME ZONE] | BOOLEAN|BOOL
//! ```

use super::{Parser, Syntax};
use crate::error::Result;
use crate::syntax::ast::*;
use crate::syntax::lexer::TokenKind;

impl Parser<'_> {
    pub(super) fn parse_data_type(&mut self) -> Result<DataType> {
        let position = self.position();
        let Some(word) = self.peek_word().map(str::to_string) else {
            return Err(self.error(Syntax::InvalidDatatype));
        };
        self.index += 1;
        let data_type = match word.as_str() {
            "NUMBER" | "NUMERIC" | "DECIMAL" | "DEC" => self.parse_number_precision()?,
            "INTEGER" | "INT" | "SMALLINT" | "BIGINT" | "INT2" | "INT4" | "INT8" => {
                DataType::Integer
            }
            "FLOAT" => {
                if self.is(&TokenKind::LeftParen) {
                    self.parse_length()?;
                }
                DataType::Float
            }
            "REAL" | "BINARY_DOUBLE" | "BINARY_FLOAT" | "FLOAT4" | "FLOAT8" => DataType::Float,
            "DOUBLE" => {
                if !self.eat_word("PRECISION") {
                    return Err(Syntax::InvalidDatatype.at(position));
                }
                DataType::Float
            }
            "VARCHAR2" | "NVARCHAR2" => DataType::Varchar2 {
                length: self.parse_length()?,
            },
            "VARCHAR" => DataType::Varchar2 {
                length: self.parse_optional_length()?.unwrap_or(4000),
            },
            "TEXT" => DataType::Varchar2 { length: 4000 },
            // A row's address, held as its extended text (ROWIDTOCHAR's 18 characters);
            // UROWID's optional length is the most bytes it holds.
            "ROWID" => DataType::Varchar2 { length: 18 },
            "UROWID" => DataType::Varchar2 {
                length: self.parse_optional_length()?.unwrap_or(4000),
            },
            "CHAR" | "CHARACTER" | "NCHAR" if self.eat_word("VARYING") => DataType::Varchar2 {
                length: self.parse_optional_length()?.unwrap_or(4000),
            },
            "CHAR" | "CHARACTER" | "NCHAR" => DataType::Char {
                length: self.parse_optional_length()?.unwrap_or(1),
            },
            "DATE" => DataType::Date,
            "TIMESTAMP" => {
                let precision = if self.eat(&TokenKind::LeftParen) {
                    let precision_position = self.position();
                    let precision = self.parse_unsigned_integer()?;
                    if precision > 9 {
                        return Err(Syntax::DatetimePrecisionOutOfRange.at(precision_position));
                    }
                    self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
                    Some(precision)
                } else {
                    None
                };
                if self.is_word("WITH") && matches!(self.peek_word_nth(1), Some("TIME" | "LOCAL")) {
                    return Err(self.error(Syntax::UnimplementedFeature));
                }
                if self.is_word("WITHOUT")
                    && self.is_word_nth(1, "TIME")
                    && self.is_word_nth(2, "ZONE")
                {
                    self.index += 3;
                }
                DataType::Timestamp { precision }
            }
            "BOOLEAN" | "BOOL" => DataType::Boolean,
            _ => return Err(Syntax::InvalidDatatype.at(position)),
        };
        Ok(data_type)
    }

    /// `[(precision [, scale])]` after NUMBER; `*` is the default precision.
    fn parse_number_precision(&mut self) -> Result<DataType> {
        if !self.eat(&TokenKind::LeftParen) {
            return Ok(DataType::Number {
                precision: None,
                scale: None,
            });
        }
        let precision = if self.eat(&TokenKind::Star) {
            None
        } else {
            let position = self.position();
            let precision = self.parse_unsigned_integer()?;
            if !(1..=38).contains(&precision) {
                return Err(Syntax::PrecisionOutOfRange.at(position));
            }
            Some(precision)
        };
        let scale = if self.eat(&TokenKind::Comma) {
            let position = self.position();
            let negative = self.eat(&TokenKind::Minus);
            if !negative {
                self.eat(&TokenKind::Plus);
            }
            let magnitude = i64::from(self.parse_unsigned_integer()?);
            let scale = if negative { -magnitude } else { magnitude };
            if !(-84..=127).contains(&scale) {
                return Err(Syntax::ScaleOutOfRange.at(position));
            }
            i32::try_from(scale).ok()
        } else {
            None
        };
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(DataType::Number { precision, scale })
    }

    /// `(n [BYTE|CHAR])`.
    fn parse_length(&mut self) -> Result<u32> {
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let position = self.position();
        let length = match self.peek() {
            Some(TokenKind::Number(text)) => text
                .parse::<u32>()
                .map_err(|_| Syntax::LengthTooLong.at(position))?,
            _ => return Err(self.error(Syntax::MissingExpression)),
        };
        self.index += 1;
        if !self.eat_word("BYTE") {
            self.eat_word("CHAR");
        }
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(length)
    }

    fn parse_optional_length(&mut self) -> Result<Option<u32>> {
        if self.is(&TokenKind::LeftParen) {
            return Ok(Some(self.parse_length()?));
        }
        Ok(None)
    }
}
