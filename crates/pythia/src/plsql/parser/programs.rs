//! Stored units and subprograms: `PROCEDURE`, `FUNCTION`, `PACKAGE`, `PACKAGE BODY`, and a
//! block's or a package's own procedures and functions.

use super::{UnitParser, STATEMENT_START};
use crate::error::Result;
use crate::plsql::ast::*;
use crate::syntax::lexer::TokenKind;

/// Parses a stored unit's source: the text of CREATE PROCEDURE (FUNCTION, PACKAGE, PACKAGE
/// BODY) from its kind's keyword on, as `dba_source` keeps it.
pub fn parse_program(text: &str) -> Result<Program> {
    let mut parser = UnitParser::new(text)?;
    let program = parser.program()?;
    parser.tokens.eat(&TokenKind::Semicolon);
    if !parser.tokens.at_end() {
        return Err(parser.unexpected("end-of-file"));
    }
    Ok(program)
}

impl UnitParser<'_> {
    fn program(&mut self) -> Result<Program> {
        match self.tokens.peek_word() {
            Some("PROCEDURE" | "FUNCTION") => {
                let (schema, subprogram) = self.subprogram_named(true)?;
                if subprogram.body.is_none() {
                    return Err(self.unexpected("is as"));
                }
                Ok(Program::Subprogram { schema, subprogram })
            }
            Some("PACKAGE") => {
                self.tokens.advance();
                let body = self.tokens.eat_word("BODY");
                let (schema, name) = self.unit_name()?;
                let current_user = if body { false } else { self.authid()? };
                if !self.tokens.eat_word("IS") && !self.tokens.eat_word("AS") {
                    return Err(self.unexpected("authid is as"));
                }
                self.enter()?;
                let position = self.tokens.position();
                let declarations = self.declarations()?;
                let program = if body {
                    let initialisation = if self.tokens.is_word("BEGIN") {
                        Some(self.block_body(None, Some(&name), Vec::new(), position)?)
                    } else {
                        self.expect_word("END", "begin end function pragma procedure")?;
                        self.end_label(Some(&name))?;
                        None
                    };
                    Program::PackageBody {
                        schema,
                        name,
                        declarations,
                        initialisation,
                    }
                } else {
                    self.expect_word("END", "end function pragma procedure subtype type cursor")?;
                    self.end_label(Some(&name))?;
                    Program::Package {
                        schema,
                        name,
                        current_user,
                        declarations,
                    }
                };
                self.leave();
                Ok(program)
            }
            _ => Err(self.unexpected("procedure function package")),
        }
    }

    /// `[schema.]name`.
    fn unit_name(&mut self) -> Result<(Option<String>, String)> {
        let mut parts = self.dotted_name("<an identifier>")?;
        match parts.len() {
            1 => Ok((None, parts.remove(0))),
            2 => {
                let name = parts.remove(1);
                Ok((Some(parts.remove(0)), name))
            }
            _ => Err(self.unexpected("( ; is as")),
        }
    }

    /// `AUTHID CURRENT_USER | DEFINER`, or nothing: whether it is CURRENT_USER.
    fn authid(&mut self) -> Result<bool> {
        if !self.tokens.eat_word("AUTHID") {
            return Ok(false);
        }
        match self.tokens.peek_word() {
            Some("CURRENT_USER") => {
                self.tokens.advance();
                Ok(true)
            }
            Some("DEFINER") => {
                self.tokens.advance();
                Ok(false)
            }
            _ => Err(self.unexpected("current_user definer")),
        }
    }

    /// A block's or a package's subprogram: its specification, and its body unless `;`
    /// follows (which the declaration reads).
    pub(super) fn subprogram(&mut self) -> Result<Subprogram> {
        Ok(self.subprogram_named(false)?.1)
    }

    fn subprogram_named(&mut self, stored: bool) -> Result<(Option<String>, Subprogram)> {
        let position = self.tokens.position();
        let function = self.tokens.is_word("FUNCTION");
        self.tokens.advance();
        let (schema, name) = if stored {
            self.unit_name()?
        } else {
            (None, self.identifier("<an identifier>")?)
        };
        let parameters = self.parameters()?;
        let returns = if function {
            self.expect_word("RETURN", "( return")?;
            Some(self.parameter_type()?)
        } else {
            None
        };
        let mut deterministic = false;
        let mut current_user = false;
        loop {
            match self.tokens.peek_word() {
                Some("AUTHID") => current_user = self.authid()?,
                Some("DETERMINISTIC") => {
                    self.tokens.advance();
                    deterministic = true;
                }
                Some("PARALLEL_ENABLE" | "RESULT_CACHE" | "PIPELINED") => {
                    // Read and not kept: each changes how Oracle runs the function, not
                    // what it returns.
                    self.tokens.advance();
                    if self.tokens.eat_word("RELIES_ON") {
                        self.skip_parenthesized()?;
                    }
                }
                _ => break,
            }
        }
        let body = if self.tokens.is(&TokenKind::Semicolon) && !stored {
            None
        } else {
            if !self.tokens.eat_word("IS") && !self.tokens.eat_word("AS") {
                return Err(self.unexpected(if function {
                    "authid deterministic is as"
                } else {
                    "( ; authid is as"
                }));
            }
            self.enter()?;
            let block_position = self.tokens.position();
            let declarations = self.declarations()?;
            if self.tokens.is_word("END") {
                return Err(self.unexpected(STATEMENT_START));
            }
            let block = self.block_body(None, Some(&name), declarations, block_position)?;
            self.leave();
            Some(block)
        };
        Ok((
            schema,
            Subprogram {
                name,
                parameters,
                returns,
                deterministic,
                current_user,
                body,
                position,
            },
        ))
    }

    /// A parenthesised group, skipped whole.
    fn skip_parenthesized(&mut self) -> Result<()> {
        self.expect(&TokenKind::LeftParen, "(")?;
        let mut depth = 1;
        while depth > 0 {
            match self.tokens.peek() {
                None => return Err(self.unexpected(")")),
                Some(TokenKind::LeftParen) => depth += 1,
                Some(TokenKind::RightParen) => depth -= 1,
                _ => {}
            }
            self.tokens.advance();
        }
        Ok(())
    }
}
