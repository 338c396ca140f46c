//! The parser: statement text to a [`Statement`].
//!
//! [`parse`] tokenizes the text ([`crate::syntax::lexer`]) and reads one statement by recursive
//! descent; [`parse_many`] reads statements separated by `;` (the PostgreSQL simple query
//! protocol). Expressions are read by precedence climbing, from loosest to tightest:
//!
//! ```text
//!   OR < AND < NOT < comparison, IS, LIKE, BETWEEN, IN < + - || < * / < unary + - < ::, (+)
//! ```
//!
//! Comparisons do not chain (`a = b = c` is an error, as in Oracle). Set operators (UNION,
//! UNION ALL, INTERSECT, MINUS/EXCEPT) share one precedence and associate to the left, as in
//! Oracle.
//!
//! Invariants:
//!
//! 1. Input can never overflow the stack. Recursion (nested expressions, subqueries,
//!    parenthesized joins) is limited to [`PARSE_DEPTH_MAX`] levels, and loops that stack
//!    nodes on a left operand (`a + b + c`, `x UNION y UNION z`, joins) check the height of
//!    what they build, so every tree is at most [`NODE_HEIGHT_MAX`] nodes high and the code
//!    that later walks it recursively is safe too. AND/OR chains are built balanced, so that a
//!    generated thousand-term OR stays shallow.
//!    Measured at the limit, parsing uses at most about 0.4 MB of stack in an optimized
//!    build and 0.9 MB in an unoptimized one (the deep-nesting tests run on a 2 MiB thread),
//!    because the functions on recursive paths keep their frames small: see `Parser::enter`.
//! 2. Bind variables are numbered 0, 1, 2... in text order, per statement.
//! 3. A hint is kept only directly after SELECT, INSERT, UPDATE, DELETE or MERGE (where Oracle
//!    reads it); anywhere else it is a comment.
//!
//! Failures are Oracle's syntax errors, worded as Oracle words them, with the byte offset of
//! the token where the parser noticed (the end of the last token when the text ended too
//! soon): ORA-00900 for an unknown statement, ORA-00933 for trailing text, ORA-00936 for a
//! missing expression, ORA-00907 for a missing `)`, and so on. Exceeding the nesting limit is
//! ORA-00939. Features that Oracle has and this parser does not (analytic functions,
//! CONNECT BY, RETURNING, PL/SQL blocks, ...) fail with ORA-03001 "unimplemented feature"
//! (ORA-00900 for PL/SQL) rather than with a misleading syntax error.
//!
//! The grammar is split by job, each file an `impl Parser` block of its own: this one holds
//! the entry points, the token cursor (and hints), the nesting limits, names and literal
//! tokens; `statements.rs` the dispatcher on the first word, DML, transactions, EXPLAIN, CALL
//! and the session and system statements; `ddl.rs` CREATE / ALTER / DROP and their storage
//! clauses; `embedded.rs` the grammar as PL/SQL reads it inside its own; `data_types.rs` the type names; `parameters.rs` parameter names and values;
//! `query.rs` queries; `expression.rs` expressions; `errors.rs` the ORA- errors; `users.rs`
//! users and privileges; `tests/` the unit tests, split the same way.

use crate::error::Result;
use crate::syntax::ast::*;
use crate::syntax::lexer::{is_reserved_word, tokenize, Token, TokenKind};

mod data_types;
mod ddl;
mod embedded;
mod errors;
mod expression;
mod parameters;
mod query;
mod statements;
#[cfg(test)]
pub(crate) mod tests;
mod users;

pub use embedded::{parse_embedded_statement, ColumnSpan, Embedded};
use errors::Syntax;
pub use expression::ARRAY_ELEMENT;
pub(crate) use expression::NILADIC_FUNCTIONS;
pub use users::TABLE_PRIVILEGES;

/// The deepest nesting of expressions and subqueries the parser accepts.
pub const PARSE_DEPTH_MAX: usize = 200;

/// How many tree levels one level of parser recursion may add at most (e.g. a scalar subquery
/// adds Expr, Query, SetExpr, Select); it turns the recursion limit into a height budget.
const NODE_LEVELS_PER_DEPTH: usize = 4;

/// The height ([`Node::height`]) no parsed statement exceeds.
pub const NODE_HEIGHT_MAX: usize = NODE_LEVELS_PER_DEPTH * (PARSE_DEPTH_MAX + 2);

/// Parses exactly one statement; a trailing `;` is allowed.
pub fn parse(sql: &str) -> Result<Statement> {
    let mut parser = Parser::new(sql)?;
    let statement = parser.parse_statement()?;
    parser.eat(&TokenKind::Semicolon);
    if !parser.at_end() {
        return Err(parser.error(Syntax::CommandNotProperlyEnded));
    }
    parser.check_invariants(&statement);
    Ok(statement)
}

/// Parses statements separated by `;`. Empty statements are skipped, so empty text is an
/// empty list. Bind positions start again at 0 in each statement.
pub fn parse_many(sql: &str) -> Result<Vec<Statement>> {
    let mut parser = Parser::new(sql)?;
    let mut statements = Vec::new();
    loop {
        while parser.eat(&TokenKind::Semicolon) {}
        if parser.at_end() {
            return Ok(statements);
        }
        parser.bind_count = 0;
        let first = parser.index;
        let statement = parser.parse_statement()?;
        debug_assert!(
            parser.index > first,
            "a statement consumes at least one token"
        );
        parser.check_invariants(&statement);
        statements.push(statement);
        if !parser.eat(&TokenKind::Semicolon) && !parser.at_end() {
            return Err(parser.error(Syntax::CommandNotProperlyEnded));
        }
    }
}

/// Keywords after which a hint is read (Oracle reads it nowhere else).
const HINTED_KEYWORDS: &[&str] = &["SELECT", "INSERT", "UPDATE", "DELETE", "MERGE"];

/// SQL's reserved words that PL/SQL does not reserve (Oracle's PL/SQL Language Reference,
/// "PL/SQL Reserved Words"), and that have no other role where a name is read: in a unit, a
/// variable, parameter or field may be called so. Sorted for binary search. (DELETE, EXISTS,
/// PRIOR, ROWID, ROWNUM, the type names and the like keep their SQL meaning.)
pub(super) const PLSQL_UNRESERVED: &[&str] = &[
    "ACCESS",
    "ADD",
    "AUDIT",
    "COLUMN",
    "COMMENT",
    "FILE",
    "IMMEDIATE",
    "INCREMENT",
    "INITIAL",
    "MAXEXTENTS",
    "MODIFY",
    "NOAUDIT",
    "OFFLINE",
    "ONLINE",
    "PCTFREE",
    "PRIVILEGES",
    "RENAME",
    "SUCCESSFUL",
    "SYNONYM",
    "TRIGGER",
    "VALIDATE",
    "WHENEVER",
];

/// Non-reserved words that may follow a table reference, so are not taken as its alias.
const TABLE_ALIAS_STOP_WORDS: &[&str] = &[
    "CROSS",
    "EXCEPT",
    "FETCH",
    "FULL",
    "INNER",
    "JOIN",
    "LEFT",
    "LIMIT",
    "LOG",
    "NATURAL",
    "OFFSET",
    "OUTER",
    "PARTITION",
    "PIVOT",
    "RETURN",
    "RETURNING",
    "RIGHT",
    "SAMPLE",
    "UNPIVOT",
    "USING",
    "WINDOW",
];

struct Parser<'a> {
    sql: &'a str,
    tokens: Vec<Token>,
    /// The next token to read.
    index: usize,
    /// Where errors at the end of the text point: just past the last token.
    end_position: usize,
    /// Current recursion depth, at most PARSE_DEPTH_MAX.
    depth: usize,
    /// Binds read so far in the current statement.
    bind_count: usize,
    /// Reading for PL/SQL (`embedded.rs`): `name%ATTRIBUTE` is read, and every column
    /// reference's span is recorded in `column_spans`.
    plsql: bool,
    column_spans: Vec<ColumnSpan>,
}

/// Drops hints that are not directly after a keyword that takes one, and all but the first
/// of several hints in a row.
fn keep_statement_hints(tokens: Vec<Token>) -> Vec<Token> {
    let mut kept: Vec<Token> = Vec::with_capacity(tokens.len());
    for token in tokens {
        let after_hinted_keyword = match kept.last() {
            Some(Token {
                kind: TokenKind::Word(word),
                ..
            }) => HINTED_KEYWORDS.contains(&word.as_str()),
            _ => false,
        };
        let misplaced_hint = matches!(token.kind, TokenKind::Hint(_)) && !after_hinted_keyword;
        if !misplaced_hint {
            kept.push(token);
        }
    }
    kept
}

/// The height of `node`, given the height of its first child, which the caller measured
/// before (the left operand it was built on).
fn height_given_first_child(node: Node<'_>, first_child_height: usize) -> usize {
    let mut tallest = first_child_height;
    let mut first = true;
    node.for_each_child(&mut |child| {
        if first {
            first = false;
        } else {
            tallest = tallest.max(child.height());
        }
    });
    tallest + 1
}

impl<'a> Parser<'a> {
    fn new(sql: &'a str) -> Result<Parser<'a>> {
        let tokens = keep_statement_hints(tokenize(sql)?);
        let end_position = tokens.last().map_or(0, |token| token.end);
        debug_assert!(
            tokens.iter().all(|token| token.start < token.end),
            "every token covers text"
        );
        debug_assert!(
            tokens.windows(2).all(|pair| pair[0].end <= pair[1].start),
            "tokens are in text order and do not overlap"
        );
        debug_assert!(end_position <= sql.len(), "tokens lie within the text");
        Ok(Parser {
            sql,
            tokens,
            index: 0,
            end_position,
            depth: 0,
            bind_count: 0,
            plsql: false,
            column_spans: Vec::new(),
        })
    }

    /// Paired checks of what the parser promises about every tree it returns.
    fn check_invariants(&self, statement: &Statement) {
        debug_assert_eq!(
            statement.bind_count(),
            self.bind_count,
            "every bind read is in the tree once"
        );
        debug_assert!(
            Node::Statement(statement).height() <= NODE_HEIGHT_MAX,
            "tree height is bounded"
        );
        debug_assert_eq!(self.depth, 0, "recursion depth is restored");
    }

    // ---- Token access ----------------------------------------------------------------------

    fn peek(&self) -> Option<&TokenKind> {
        self.peek_nth(0)
    }

    fn peek_nth(&self, offset: usize) -> Option<&TokenKind> {
        self.tokens
            .get(self.index + offset)
            .map(|token| &token.kind)
    }

    fn peek_word(&self) -> Option<&str> {
        self.peek_word_nth(0)
    }

    fn peek_word_nth(&self, offset: usize) -> Option<&str> {
        match self.peek_nth(offset) {
            Some(TokenKind::Word(word)) => Some(word),
            _ => None,
        }
    }

    fn is_word(&self, word: &str) -> bool {
        self.peek_word() == Some(word)
    }

    fn is_word_nth(&self, offset: usize, word: &str) -> bool {
        self.peek_word_nth(offset) == Some(word)
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.is_word(word);
        if found {
            self.index += 1;
        }
        found
    }

    fn expect_word(&mut self, word: &str, missing: Syntax) -> Result<()> {
        if self.eat_word(word) {
            Ok(())
        } else {
            Err(self.error(missing))
        }
    }

    fn is(&self, kind: &TokenKind) -> bool {
        self.peek() == Some(kind)
    }

    fn eat(&mut self, kind: &TokenKind) -> bool {
        let found = self.is(kind);
        if found {
            self.index += 1;
        }
        found
    }

    fn expect(&mut self, kind: &TokenKind, missing: Syntax) -> Result<()> {
        if self.eat(kind) {
            Ok(())
        } else {
            Err(self.error(missing))
        }
    }

    fn advance(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.index).cloned();
        if token.is_some() {
            self.index += 1;
        }
        token
    }

    fn at_end(&self) -> bool {
        self.index >= self.tokens.len()
    }

    fn at_statement_end(&self) -> bool {
        self.at_end() || self.is(&TokenKind::Semicolon)
    }

    /// Where the next token starts, or the end of the last token.
    fn position(&self) -> usize {
        debug_assert!(
            self.index <= self.tokens.len(),
            "the cursor stays within the tokens"
        );
        self.tokens
            .get(self.index)
            .map_or(self.end_position, |token| token.start)
    }

    /// Skips a balanced parenthesized group starting at the current `(`, and returns the byte
    /// range it covers.
    fn skip_parenthesized(&mut self) -> Result<(usize, usize)> {
        let start = self.position();
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let mut open = 1usize;
        while open > 0 {
            match self.advance() {
                Some(Token {
                    kind: TokenKind::LeftParen,
                    ..
                }) => open += 1,
                Some(Token {
                    kind: TokenKind::RightParen,
                    end,
                    ..
                }) => {
                    open -= 1;
                    if open == 0 {
                        debug_assert!(start < end && end <= self.sql.len(), "a range of the text");
                        return Ok((start, end));
                    }
                }
                Some(_) => {}
                None => return Err(self.error(Syntax::MissingRightParenthesis)),
            }
        }
        Err(self.error(Syntax::MissingRightParenthesis))
    }

    fn unimplemented_if_word(&self, words: &[&str]) -> Result<()> {
        match self.peek_word() {
            Some(word) if words.contains(&word) => Err(self.error(Syntax::UnimplementedFeature)),
            _ => Ok(()),
        }
    }

    fn take_hint(&mut self) -> Option<String> {
        let Some(TokenKind::Hint(text)) = self.peek() else {
            return None;
        };
        let text = text.clone();
        self.index += 1;
        Some(text)
    }

    // ---- Nesting limits --------------------------------------------------------------------

    /// Goes one recursion level deeper, failing with ORA-00939 past the limit. Every
    /// successful `enter` is paired with a `leave` of that level's result.
    ///
    /// The functions on a recursive path keep their frames small (they box what they return
    /// and leave bulky work to helpers): an unoptimized build gives every temporary its own
    /// stack slot, and 200 levels must fit a session thread's stack.
    fn enter(&mut self) -> Result<()> {
        if self.depth >= PARSE_DEPTH_MAX {
            return Err(self.depth_error(self.position()));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave<T>(&mut self, result: Result<T>) -> Result<T> {
        debug_assert!(self.depth > 0, "every leave pairs with an enter");
        self.depth -= 1;
        result
    }

    /// The height of `node`, just built in a loop on a left operand `height_before` high,
    /// checked with [`Parser::check_height`].
    fn check_node_height(
        &self,
        node: Node<'_>,
        height_before: usize,
        position: usize,
    ) -> Result<usize> {
        let height = height_given_first_child(node, height_before);
        self.check_height(height, position)?;
        Ok(height)
    }

    /// Fails when a node built in a loop at the current depth is taller than the depth
    /// leaves room for, which keeps whole trees under NODE_HEIGHT_MAX.
    fn check_height(&self, height: usize, position: usize) -> Result<()> {
        debug_assert!(
            self.depth <= PARSE_DEPTH_MAX,
            "enter keeps the depth in bounds"
        );
        let budget = NODE_LEVELS_PER_DEPTH * (PARSE_DEPTH_MAX + 1 - self.depth);
        if height > budget {
            return Err(self.depth_error(position));
        }
        Ok(())
    }

    // ---- Names -----------------------------------------------------------------------------

    /// Whether `word` is reserved here: one of Oracle's SQL reserved words, less, in PL/SQL
    /// (a unit and the SQL inside it), those PL/SQL does not reserve
    /// ([`PLSQL_UNRESERVED`]): a variable may be called INCREMENT or LEVEL.
    pub(super) fn is_reserved(&self, word: &str) -> bool {
        is_reserved_word(word) && !(self.plsql && PLSQL_UNRESERVED.binary_search(&word).is_ok())
    }

    /// An identifier: a quoted identifier, or a word that is not reserved.
    fn parse_identifier(&mut self, missing: Syntax) -> Result<String> {
        let name = match self.peek() {
            Some(TokenKind::QuotedIdentifier(name)) => name.clone(),
            // Unquoted identifiers start with a letter; the lexer lets `_` start a word only
            // for hidden parameter names.
            Some(TokenKind::Word(word)) if word.starts_with('_') => {
                return Err(self.error(Syntax::InvalidCharacter))
            }
            Some(TokenKind::Word(word)) if !self.is_reserved(word) => word.clone(),
            _ => return Err(self.error(missing)),
        };
        self.index += 1;
        Ok(name)
    }

    /// The identifier at `offset` tokens ahead, if there is one there.
    fn identifier_nth(&self, offset: usize) -> Option<String> {
        match self.peek_nth(offset)? {
            TokenKind::QuotedIdentifier(name) => Some(name.clone()),
            TokenKind::Word(word) if !word.starts_with('_') && !self.is_reserved(word) => {
                Some(word.clone())
            }
            _ => None,
        }
    }

    /// `name` or `schema.name`.
    fn parse_object_name(&mut self, missing: Syntax) -> Result<ObjectName> {
        let first = self.parse_identifier(missing)?;
        if self.eat(&TokenKind::Period) {
            let name = self.parse_identifier(missing)?;
            return Ok(ObjectName::qualified(first, name));
        }
        Ok(ObjectName::new(first))
    }

    /// `(a, b, ...)`; `missing_separator` is the error for something else than `,` or `)`
    /// after a name.
    fn parse_identifier_list(&mut self, missing_separator: Syntax) -> Result<Vec<String>> {
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let mut names = Vec::new();
        loop {
            names.push(self.parse_identifier(Syntax::InvalidIdentifier)?);
            if self.eat(&TokenKind::Comma) {
                continue;
            }
            self.expect(&TokenKind::RightParen, missing_separator)?;
            return Ok(names);
        }
    }

    /// An alias written without AS: a quoted identifier, or a non-reserved word that is not
    /// one of `stop_words`.
    fn parse_bare_alias(&mut self, stop_words: &[&str]) -> Result<Option<String>> {
        match self.peek() {
            Some(TokenKind::QuotedIdentifier(_)) => {
                Ok(Some(self.parse_identifier(Syntax::InvalidIdentifier)?))
            }
            Some(TokenKind::Word(word))
                if !self.is_reserved(word) && !stop_words.contains(&word.as_str()) =>
            {
                Ok(Some(self.parse_identifier(Syntax::InvalidIdentifier)?))
            }
            _ => Ok(None),
        }
    }

    /// A table alias: `[AS] alias` (AS is PostgreSQL's; Oracle takes none).
    fn parse_table_alias(&mut self) -> Result<Option<String>> {
        if self.eat_word("AS") {
            return Ok(Some(self.parse_identifier(Syntax::InvalidIdentifier)?));
        }
        self.parse_bare_alias(TABLE_ALIAS_STOP_WORDS)
    }

    // ---- Literal tokens --------------------------------------------------------------------

    fn parse_string_literal(&mut self) -> Result<String> {
        match self.peek() {
            Some(TokenKind::String(value) | TokenKind::NationalString(value)) => {
                let value = value.clone();
                self.index += 1;
                Ok(value)
            }
            _ => Err(self.error(Syntax::StringLiteralRequired)),
        }
    }

    /// A number token that is a whole number fitting u32.
    fn parse_unsigned_integer(&mut self) -> Result<u32> {
        let position = self.position();
        let Some(TokenKind::Number(text)) = self.peek() else {
            return Err(self.error(Syntax::MissingExpression));
        };
        let value = text
            .parse::<u32>()
            .map_err(|_| Syntax::InvalidNumber.at(position))?;
        self.index += 1;
        Ok(value)
    }

    /// An optionally signed whole number, as in sequence options.
    fn parse_signed_integer(&mut self) -> Result<i128> {
        let negative = self.eat(&TokenKind::Minus);
        if !negative {
            self.eat(&TokenKind::Plus);
        }
        let position = self.position();
        let Some(TokenKind::Number(text)) = self.peek() else {
            return Err(self.error(Syntax::MissingExpression));
        };
        let magnitude = text
            .parse::<i128>()
            .map_err(|_| Syntax::InvalidNumber.at(position))?;
        self.index += 1;
        Ok(if negative { -magnitude } else { magnitude })
    }
}
