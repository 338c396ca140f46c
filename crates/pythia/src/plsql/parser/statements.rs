//! A block's statements: assignment, control flow, calls, cursors, nested blocks, and static
//! SQL, whose extent and `INTO` targets are read here and the rest left to the SQL parser.

use super::{UnitParser, STATEMENT_START};
use crate::error::Result;
use crate::plsql::ast::*;
use crate::plsql::errors;
use crate::syntax::lexer::TokenKind;
use crate::syntax::parser::parse_embedded_statement;

/// The words that start a static SQL statement.
const SQL_WORDS: &[&str] = &[
    "SELECT",
    "WITH",
    "INSERT",
    "UPDATE",
    "DELETE",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "MERGE",
    "LOCK",
];

impl UnitParser<'_> {
    /// Statements up to one of the words `until` (not consumed).
    pub(super) fn statements(&mut self, until: &[&str]) -> Result<Vec<Statement>> {
        let mut statements = Vec::new();
        loop {
            if self
                .tokens
                .peek_word()
                .is_some_and(|word| until.contains(&word))
            {
                // A block or branch holds at least one statement (NULL; when empty).
                if statements.is_empty() {
                    return Err(self.unexpected(STATEMENT_START));
                }
                return Ok(statements);
            }
            if self.tokens.at_end() {
                return Err(self.unexpected(STATEMENT_START));
            }
            statements.push(self.statement()?);
        }
    }

    fn statement(&mut self) -> Result<Statement> {
        let labels = self.labels()?;
        let position = self.tokens.position();
        if matches!(self.tokens.peek_word(), Some("DECLARE" | "BEGIN")) {
            let block = self.block_after_labels(labels.last().cloned())?;
            self.expect_semicolon()?;
            return Ok(Statement {
                labels,
                kind: StatementKind::Block(Box::new(block)),
                position,
            });
        }
        self.enter()?;
        let kind = self.statement_kind(labels.last().map(String::as_str));
        self.leave();
        let kind = kind?;
        self.expect_semicolon()?;
        Ok(Statement {
            labels,
            kind,
            position,
        })
    }

    fn statement_kind(&mut self, label: Option<&str>) -> Result<StatementKind> {
        if let Some(TokenKind::Bind(name)) = self.tokens.peek() {
            let target = Target::Bind(name.clone(), self.tokens.position());
            self.tokens.advance();
            return self.assignment(target);
        }
        let word = self.tokens.peek_word().map(str::to_string);
        match word.as_deref() {
            Some(word) if SQL_WORDS.contains(&word) => {
                Ok(StatementKind::Sql(Box::new(self.sql_statement()?)))
            }
            Some("NULL") => {
                self.tokens.advance();
                Ok(StatementKind::Null)
            }
            Some("IF") => self.if_statement(),
            Some("CASE") => self.case_statement(),
            Some("LOOP") => {
                let body = self.loop_body(label)?;
                Ok(StatementKind::Loop { body })
            }
            Some("WHILE") => {
                self.tokens.advance();
                let condition = self.expression()?;
                let body = self.loop_body(label)?;
                Ok(StatementKind::While { condition, body })
            }
            Some("FOR") => self.for_statement(label),
            Some("EXIT" | "CONTINUE") => {
                self.tokens.advance();
                let label = if self.tokens.is_word("WHEN") {
                    None
                } else {
                    self.tokens.identifier()
                };
                let condition = if self.tokens.eat_word("WHEN") {
                    Some(self.expression()?)
                } else {
                    None
                };
                Ok(if word.as_deref() == Some("EXIT") {
                    StatementKind::Exit { label, condition }
                } else {
                    StatementKind::Continue { label, condition }
                })
            }
            Some("RETURN") => {
                self.tokens.advance();
                if self.tokens.is(&TokenKind::Semicolon) {
                    Ok(StatementKind::Return(None))
                } else {
                    Ok(StatementKind::Return(Some(self.expression()?)))
                }
            }
            Some("GOTO") => {
                self.tokens.advance();
                Ok(StatementKind::Goto(self.identifier("<an identifier>")?))
            }
            Some("RAISE") => {
                self.tokens.advance();
                if self.tokens.is(&TokenKind::Semicolon) {
                    Ok(StatementKind::Raise(None))
                } else {
                    Ok(StatementKind::Raise(Some(
                        self.dotted_name("<an identifier>")?,
                    )))
                }
            }
            Some("OPEN") => {
                self.tokens.advance();
                let cursor = self.identifier("<an identifier>")?;
                let arguments = self.arguments()?;
                if self.tokens.is_word("FOR") {
                    return Err(errors::compilation(
                        self.text(),
                        self.tokens.position(),
                        "PLS-00999: implementation restriction (may be temporary) OPEN ... FOR is not supported yet",
                    ));
                }
                Ok(StatementKind::Open { cursor, arguments })
            }
            Some("FETCH") => {
                self.tokens.advance();
                let cursor = self.identifier("<an identifier>")?;
                if self.tokens.is_word("BULK") {
                    return Err(errors::compilation(
                        self.text(),
                        self.tokens.position(),
                        "PLS-00999: implementation restriction (may be temporary) BULK COLLECT is not supported yet",
                    ));
                }
                self.expect_word("INTO", "into bulk")?;
                let into = self.targets()?;
                Ok(StatementKind::Fetch { cursor, into })
            }
            Some("CLOSE") => {
                self.tokens.advance();
                let cursor = self.identifier("<an identifier>")?;
                Ok(StatementKind::Close { cursor })
            }
            Some("EXECUTE" | "FORALL" | "PIPE") => Err(errors::compilation(
                self.text(),
                self.tokens.position(),
                &format!(
                    "PLS-00999: implementation restriction (may be temporary) {} is not supported yet",
                    word.as_deref().unwrap_or_default()
                ),
            )),
            _ if self.tokens.is_identifier_nth(0) => {
                let position = self.tokens.position();
                let name = self.dotted_name(STATEMENT_START)?;
                if self.assignment_operator() {
                    let value = self.expression()?;
                    return Ok(StatementKind::Assign {
                        target: Target::Name(name, position),
                        value,
                    });
                }
                let arguments = self.arguments()?;
                if self.assignment_operator() {
                    // `x(i) := ...`: an element of a collection.
                    let index = match <[Argument; 1]>::try_from(arguments) {
                        Ok([Argument { name: None, value }]) => value,
                        _ => return Err(self.unexpected(";")),
                    };
                    let value = self.expression()?;
                    return Ok(StatementKind::Assign {
                        target: Target::Element {
                            name,
                            index,
                            position,
                        },
                        value,
                    });
                }
                Ok(StatementKind::Call { name, arguments })
            }
            _ => Err(self.unexpected(STATEMENT_START)),
        }
    }

    fn assignment(&mut self, target: Target) -> Result<StatementKind> {
        if !self.assignment_operator() {
            return Err(self.unexpected(":="));
        }
        let value = self.expression()?;
        Ok(StatementKind::Assign { target, value })
    }

    /// `IF c THEN ... [ELSIF c THEN ...]... [ELSE ...] END IF`
    fn if_statement(&mut self) -> Result<StatementKind> {
        self.tokens.advance();
        let mut branches = Vec::new();
        let mut otherwise = None;
        loop {
            let condition = self.expression()?;
            self.expect_word("THEN", "then and or")?;
            let body = self.statements(&["ELSIF", "ELSE", "END"])?;
            branches.push((condition, body));
            if self.tokens.eat_word("ELSIF") {
                continue;
            }
            if self.tokens.eat_word("ELSE") {
                otherwise = Some(self.statements(&["END"])?);
            }
            break;
        }
        self.expect_word("END", "end elsif else")?;
        self.expect_word("IF", "if")?;
        Ok(StatementKind::If {
            branches,
            otherwise,
        })
    }

    /// `CASE [operand] WHEN x THEN ... [ELSE ...] END CASE`
    fn case_statement(&mut self) -> Result<StatementKind> {
        self.tokens.advance();
        let operand = if self.tokens.is_word("WHEN") {
            None
        } else {
            Some(self.expression()?)
        };
        let mut branches = Vec::new();
        while self.tokens.eat_word("WHEN") {
            let value = self.expression()?;
            self.expect_word("THEN", "then")?;
            branches.push((value, self.statements(&["WHEN", "ELSE", "END"])?));
        }
        if branches.is_empty() {
            return Err(self.unexpected("when"));
        }
        let otherwise = if self.tokens.eat_word("ELSE") {
            Some(self.statements(&["END"])?)
        } else {
            None
        };
        self.expect_word("END", "when else end")?;
        self.expect_word("CASE", "case")?;
        Ok(StatementKind::Case {
            operand,
            branches,
            otherwise,
        })
    }

    /// `LOOP statements END LOOP [label]`
    fn loop_body(&mut self, label: Option<&str>) -> Result<Vec<Statement>> {
        self.expect_word("LOOP", "loop")?;
        let body = self.statements(&["END"])?;
        self.expect_word("END", "end")?;
        self.expect_word("LOOP", "loop")?;
        self.end_label(label)?;
        Ok(body)
    }

    /// `FOR i IN [REVERSE] low..high LOOP`, `FOR r IN cursor[(args)] LOOP`, or
    /// `FOR r IN (query) LOOP`.
    fn for_statement(&mut self, label: Option<&str>) -> Result<StatementKind> {
        self.tokens.advance();
        let variable = self.identifier("<an identifier>")?;
        self.expect_word("IN", "in")?;
        let reverse = self.tokens.eat_word("REVERSE");
        let query_ahead = self.tokens.is(&TokenKind::LeftParen)
            && matches!(self.tokens.peek_word_nth(1), Some("SELECT" | "WITH"));
        if query_ahead && !reverse {
            self.tokens.advance();
            let query = self.sql_statement_until_parenthesis()?;
            self.expect(&TokenKind::RightParen, ")")?;
            let body = self.loop_body(label)?;
            return Ok(StatementKind::ForCursor {
                record: variable,
                source: CursorSource::Query(Box::new(query)),
                body,
            });
        }
        let cursor_ahead = !reverse
            && self.tokens.is_identifier_nth(0)
            && (self.tokens.peek_word_nth(1) == Some("LOOP")
                || self.tokens.peek_nth(1) == Some(&TokenKind::LeftParen)
                    && self.parenthesized_then_loop());
        if cursor_ahead {
            let cursor = self.identifier("<an identifier>")?;
            let arguments = self.arguments()?;
            let body = self.loop_body(label)?;
            return Ok(StatementKind::ForCursor {
                record: variable,
                source: CursorSource::Named { cursor, arguments },
                body,
            });
        }
        let low = self.expression()?;
        if !self.tokens.eat(&TokenKind::Period) {
            return Err(self.unexpected(".."));
        }
        // The lexer reads `1..5` as `1`, `.`, `.5`: the high bound's first number then
        // carries the second point.
        let split_number =
            matches!(self.tokens.peek(), Some(TokenKind::Number(text)) if text.starts_with('.'));
        if !split_number && !self.tokens.eat(&TokenKind::Period) {
            return Err(self.unexpected(".."));
        }
        let mut high = self.expression()?;
        if split_number {
            drop_leading_point(&mut high);
        }
        let body = self.loop_body(label)?;
        Ok(StatementKind::ForRange {
            variable,
            reverse,
            low,
            high,
            body,
        })
    }

    /// Whether the `(` after the next token closes just before LOOP: `c(1, 2) LOOP` is a
    /// cursor with arguments, `f(1)..10 LOOP` a range.
    fn parenthesized_then_loop(&self) -> bool {
        let tokens = self.tokens.tokens();
        let mut depth = 0usize;
        for (offset, token) in tokens[self.tokens.index() + 1..].iter().enumerate() {
            match token.kind {
                TokenKind::LeftParen => depth += 1,
                TokenKind::RightParen => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return self.tokens.peek_word_nth(offset + 2) == Some("LOOP");
                    }
                }
                TokenKind::Semicolon => return false,
                _ => {}
            }
        }
        false
    }

    /// `(argument, ..., name => value, ...)` or nothing.
    pub(super) fn arguments(&mut self) -> Result<Vec<Argument>> {
        let mut arguments = Vec::new();
        if !self.tokens.eat(&TokenKind::LeftParen) {
            return Ok(arguments);
        }
        if self.tokens.eat(&TokenKind::RightParen) {
            return Ok(arguments);
        }
        loop {
            let named = self.tokens.is_identifier_nth(0)
                && self.tokens.peek_nth(1) == Some(&TokenKind::Equal)
                && self.tokens.peek_nth(2) == Some(&TokenKind::Greater);
            let name = if named {
                let name = self.tokens.identifier();
                self.tokens.advance();
                self.tokens.advance();
                name
            } else {
                None
            };
            let value = self.expression()?;
            arguments.push(Argument { name, value });
            if !self.tokens.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RightParen, ", )")?;
        Ok(arguments)
    }

    /// Targets of INTO: `name[.field]` or `:bind`, comma-separated.
    fn targets(&mut self) -> Result<Vec<Target>> {
        let mut targets = Vec::new();
        loop {
            let position = self.tokens.position();
            if let Some(TokenKind::Bind(name)) = self.tokens.peek() {
                targets.push(Target::Bind(name.clone(), position));
                self.tokens.advance();
            } else {
                targets.push(Target::Name(self.dotted_name("<an identifier>")?, position));
            }
            if !self.tokens.eat(&TokenKind::Comma) {
                return Ok(targets);
            }
        }
    }

    /// A static SQL statement from the cursor to the `;` at its depth (not consumed).
    pub(super) fn sql_statement(&mut self) -> Result<Sql> {
        self.sql_until(false)
    }

    /// A query inside `( ... )`, up to the `)` that closes it (not consumed).
    fn sql_statement_until_parenthesis(&mut self) -> Result<Sql> {
        self.sql_until(true)
    }

    fn sql_until(&mut self, parenthesized: bool) -> Result<Sql> {
        let first = self.tokens.index();
        let tokens = self.tokens.tokens();
        let is_query = matches!(self.tokens.peek_word(), Some("SELECT" | "WITH"));
        let is_dml = matches!(
            self.tokens.peek_word(),
            Some("INSERT" | "UPDATE" | "DELETE")
        );
        // DML's `RETURNING exprs INTO targets`: the targets run to the statement's end.
        let mut returning = false;
        let mut depth = 0usize;
        let mut last = first;
        // A query's INTO, and the FROM after it: the targets lie between.
        let mut into_at: Option<usize> = None;
        let mut from_at: Option<usize> = None;
        let mut first_from: Option<usize> = None;
        // `WHERE CURRENT OF cursor`: the WHERE's token and the cursor's name.
        let mut current_of: Option<(usize, String)> = None;
        while let Some(token) = tokens.get(last) {
            match &token.kind {
                TokenKind::LeftParen => depth += 1,
                TokenKind::RightParen if depth == 0 && parenthesized => break,
                TokenKind::RightParen => depth = depth.saturating_sub(1),
                TokenKind::Semicolon if depth == 0 => break,
                TokenKind::Word(word) if depth == 0 && is_query => match word.as_str() {
                    "INTO" if into_at.is_none() => into_at = Some(last),
                    "FROM" if first_from.is_none() && (into_at.is_none() || from_at.is_some()) => {
                        first_from = Some(last)
                    }
                    "FROM" if into_at.is_some() && from_at.is_none() => from_at = Some(last),
                    "BULK" => {
                        return Err(errors::compilation(
                            self.text(),
                            token.start,
                            "PLS-00999: implementation restriction (may be temporary) BULK COLLECT is not supported yet",
                        ))
                    }
                    _ => {}
                },
                TokenKind::Word(word) if depth == 0 && is_dml => match word.as_str() {
                    "RETURNING" | "RETURN" => returning = true,
                    "WHERE"
                        if matches!(tokens.get(last + 1).map(|t| &t.kind), Some(TokenKind::Word(w)) if w == "CURRENT")
                            && matches!(tokens.get(last + 2).map(|t| &t.kind), Some(TokenKind::Word(w)) if w == "OF") =>
                    {
                        let Some(TokenKind::Word(cursor)) = tokens.get(last + 3).map(|t| &t.kind)
                        else {
                            return Err(errors::compilation(
                                self.text(),
                                tokens.get(last + 3).map_or(token.end, |t| t.start),
                                "PLS-00103: Encountered the symbol \"end-of-file\" when expecting one of the following:\n\n   <an identifier>",
                            ));
                        };
                        current_of = Some((last, cursor.clone()));
                        last += 3;
                    }
                    "INTO" if returning && into_at.is_none() => into_at = Some(last),
                    "BULK" if returning => {
                        return Err(errors::compilation(
                            self.text(),
                            token.start,
                            "PLS-00999: implementation restriction (may be temporary) BULK COLLECT is not supported yet",
                        ))
                    }
                    _ => {}
                },
                _ => {}
            }
            last += 1;
        }
        if last == first {
            return Err(self.unexpected(STATEMENT_START));
        }
        let start = tokens[first].start;
        let end = tokens[last - 1].end;
        let mut text = self.text()[start..end].to_string();
        // `WHERE CURRENT OF cursor`, blanked out: the compiler writes the rowid test there.
        let current_of = match current_of {
            Some((where_index, cursor)) => {
                let blank_start = tokens[where_index].start - start;
                let blank_end = tokens[where_index + 3].end - start;
                text.replace_range(blank_start..blank_end, &" ".repeat(blank_end - blank_start));
                Some((cursor, blank_start))
            }
            None => None,
        };
        let query_from = first_from.map(|index| tokens[index].start - start);
        // The INTO targets, read by the PL/SQL grammar, and blanked out of the SQL text.
        let mut targets = Vec::new();
        if let Some(into_index) = into_at {
            let from_index = from_at.unwrap_or(last);
            self.tokens.set_index(into_index + 1);
            targets = self.targets()?;
            if self.tokens.index() != from_index {
                return Err(self.unexpected("from"));
            }
            let blank_start = self.tokens.tokens()[into_index].start - start;
            let blank_end = self.tokens.tokens()[from_index - 1].end - start;
            let blanked: String = text[blank_start..blank_end]
                .chars()
                .map(|character| " ".repeat(character.len_utf8()))
                .collect();
            text.replace_range(blank_start..blank_end, &blanked);
        } else if is_query && !parenthesized && !self.in_cursor_declaration(first) {
            return Err(errors::compilation(
                self.text(),
                start,
                "PLS-00428: an INTO clause is expected in this SELECT statement",
            ));
        }
        let (statement, columns) = parse_embedded_statement(&text).map_err(|error| {
            let position = start + error.position().unwrap_or(0);
            errors::sql_statement_ignored(self.text(), position, start, &error)
        })?;
        self.tokens.set_index(last);
        Ok(Sql {
            text,
            start,
            statement,
            columns,
            into: targets,
            from_at: query_from,
            current_of,
        })
    }

    /// Whether the query starting at token `first` follows `CURSOR name [(...)] IS`.
    fn in_cursor_declaration(&self, first: usize) -> bool {
        first > 0
            && matches!(
                &self.tokens.tokens()[first - 1].kind,
                TokenKind::Word(word) if word == "IS"
            )
    }
}

/// `.5` at the far left of an expression read as `5`: the high bound of `1..5`.
fn drop_leading_point(expr: &mut crate::syntax::ast::Expr) {
    use crate::syntax::ast::{Expr, Literal};
    match expr {
        Expr::Literal(Literal::Number(text)) => {
            if let Some(rest) = text.strip_prefix('.') {
                *text = rest.to_string();
            }
        }
        Expr::Binary { left, .. } => drop_leading_point(left),
        Expr::Between { expr, .. }
        | Expr::IsNull { expr, .. }
        | Expr::InList { expr, .. }
        | Expr::Like { expr, .. } => drop_leading_point(expr),
        _ => {}
    }
}
