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

use crate::error::{Error, Result};
use crate::syntax::ast::*;
use crate::syntax::lexer::{is_reserved_word, tokenize, Token, TokenKind};

mod users;
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
        let statement = parser.parse_statement()?;
        parser.check_invariants(&statement);
        statements.push(statement);
        if !parser.eat(&TokenKind::Semicolon) && !parser.at_end() {
            return Err(parser.error(Syntax::CommandNotProperlyEnded));
        }
    }
}

/// The syntax errors the parser raises, with Oracle's numbers and wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    InvalidSqlStatement,
    InvalidCreateCommand,
    InvalidDatatype,
    InvalidTableName,
    InvalidIdentifier,
    MissingKeyword,
    MissingLeftParenthesis,
    MissingRightParenthesis,
    MissingNullKeyword,
    LengthTooLong,
    InvalidCharacter,
    MissingComma,
    MissingOrInvalidOption,
    FromKeywordNotFound,
    MissingByKeyword,
    MissingIntoKeyword,
    MissingValuesKeyword,
    MissingEqualSign,
    MissingSelectKeyword,
    CommandNotProperlyEnded,
    MissingExpression,
    InvalidAlterCommand,
    InvalidDropOption,
    InvalidIndexName,
    MissingOnKeyword,
    MissingSetKeyword,
    InvalidAnalyzeCommand,
    InvalidNumber,
    PrecisionOutOfRange,
    ScaleOutOfRange,
    InvalidAlterTableOption,
    StringLiteralRequired,
    IllegalAlterSystemOption,
    InvalidCreateIndexOption,
    InvalidPctfree,
    InvalidStorageOption,
    InvalidAlterIndexOption,
    InvalidAlterSessionOption,
    InvalidSequenceName,
    NoAlterSequenceOptions,
    UnimplementedFeature,
    DatetimePrecisionOutOfRange,
}

impl Syntax {
    fn code(self) -> u32 {
        match self {
            Syntax::InvalidSqlStatement => 900,
            Syntax::InvalidCreateCommand => 901,
            Syntax::InvalidDatatype => 902,
            Syntax::InvalidTableName => 903,
            Syntax::InvalidIdentifier => 904,
            Syntax::MissingKeyword => 905,
            Syntax::MissingLeftParenthesis => 906,
            Syntax::MissingRightParenthesis => 907,
            Syntax::MissingNullKeyword => 908,
            Syntax::LengthTooLong => 910,
            Syntax::InvalidCharacter => 911,
            Syntax::MissingComma => 917,
            Syntax::MissingOrInvalidOption => 922,
            Syntax::FromKeywordNotFound => 923,
            Syntax::MissingByKeyword => 924,
            Syntax::MissingIntoKeyword => 925,
            Syntax::MissingValuesKeyword => 926,
            Syntax::MissingEqualSign => 927,
            Syntax::MissingSelectKeyword => 928,
            Syntax::CommandNotProperlyEnded => 933,
            Syntax::MissingExpression => 936,
            Syntax::InvalidAlterCommand => 940,
            Syntax::InvalidDropOption => 950,
            Syntax::InvalidIndexName => 953,
            Syntax::MissingOnKeyword => 969,
            Syntax::MissingSetKeyword => 971,
            Syntax::InvalidAnalyzeCommand => 1490,
            Syntax::InvalidNumber => 1722,
            Syntax::PrecisionOutOfRange => 1727,
            Syntax::ScaleOutOfRange => 1728,
            Syntax::InvalidAlterTableOption => 1735,
            Syntax::StringLiteralRequired => 1780,
            Syntax::IllegalAlterSystemOption => 2065,
            Syntax::InvalidCreateIndexOption => 2158,
            Syntax::InvalidPctfree => 2211,
            Syntax::InvalidStorageOption => 2143,
            Syntax::InvalidAlterIndexOption => 2243,
            Syntax::InvalidAlterSessionOption => 2248,
            Syntax::InvalidSequenceName => 2277,
            Syntax::NoAlterSequenceOptions => 2286,
            Syntax::UnimplementedFeature => 3001,
            Syntax::DatetimePrecisionOutOfRange => 30088,
        }
    }

    fn message(self) -> &'static str {
        match self {
            Syntax::InvalidSqlStatement => "invalid SQL statement",
            Syntax::InvalidCreateCommand => "invalid CREATE command",
            Syntax::InvalidDatatype => "invalid datatype",
            Syntax::InvalidTableName => "invalid table name",
            // Oracle names the identifier when it knows one; a syntax error does not.
            Syntax::InvalidIdentifier => ": invalid identifier",
            Syntax::MissingKeyword => "missing keyword",
            Syntax::MissingLeftParenthesis => "missing left parenthesis",
            Syntax::MissingRightParenthesis => "missing right parenthesis",
            Syntax::MissingNullKeyword => "missing NULL keyword",
            Syntax::LengthTooLong => "specified length too long for its datatype",
            Syntax::InvalidCharacter => "invalid character",
            Syntax::MissingComma => "missing comma",
            Syntax::MissingOrInvalidOption => "missing or invalid option",
            Syntax::FromKeywordNotFound => "FROM keyword not found where expected",
            Syntax::MissingByKeyword => "missing BY keyword",
            Syntax::MissingIntoKeyword => "missing INTO keyword",
            Syntax::MissingValuesKeyword => "missing VALUES keyword",
            Syntax::MissingEqualSign => "missing equal sign",
            Syntax::MissingSelectKeyword => "missing SELECT keyword",
            Syntax::CommandNotProperlyEnded => "SQL command not properly ended",
            Syntax::MissingExpression => "missing expression",
            Syntax::InvalidAlterCommand => "invalid ALTER command",
            Syntax::InvalidDropOption => "invalid DROP option",
            Syntax::InvalidIndexName => "missing or invalid index name",
            Syntax::MissingOnKeyword => "missing ON keyword",
            Syntax::MissingSetKeyword => "missing SET keyword",
            Syntax::InvalidAnalyzeCommand => "invalid ANALYZE command",
            Syntax::InvalidNumber => "invalid number",
            Syntax::PrecisionOutOfRange => "numeric precision specifier is out of range (1 to 38)",
            Syntax::ScaleOutOfRange => "numeric scale specifier is out of range (-84 to 127)",
            Syntax::InvalidAlterTableOption => "invalid ALTER TABLE option",
            Syntax::StringLiteralRequired => "string literal required",
            Syntax::IllegalAlterSystemOption => "illegal option for ALTER SYSTEM",
            Syntax::InvalidCreateIndexOption => "invalid CREATE INDEX option",
            Syntax::InvalidPctfree => "invalid value for PCTFREE or PCTUSED",
            Syntax::InvalidStorageOption => "invalid STORAGE option",
            Syntax::InvalidAlterIndexOption => {
                "invalid ALTER INDEX or ALTER MATERIALIZED VIEW option"
            }
            Syntax::InvalidAlterSessionOption => "invalid option for ALTER SESSION",
            Syntax::InvalidSequenceName => "invalid sequence name",
            Syntax::NoAlterSequenceOptions => "no options specified for ALTER SEQUENCE",
            Syntax::UnimplementedFeature => "unimplemented feature",
            Syntax::DatetimePrecisionOutOfRange => "datetime/interval precision is out of range",
        }
    }

    fn at(self, position: usize) -> Error {
        Error::syntax(self.code(), self.message(), position)
    }
}

// Operator precedences, loosest first.
const PRECEDENCE_OR: u8 = 1;
const PRECEDENCE_AND: u8 = 2;
const PRECEDENCE_NOT: u8 = 3;
const PRECEDENCE_COMPARISON: u8 = 4;
const PRECEDENCE_ADDITIVE: u8 = 5;
const PRECEDENCE_MULTIPLICATIVE: u8 = 6;
const PRECEDENCE_UNARY: u8 = 7;
const PRECEDENCE_POSTFIX: u8 = 8;

/// Keywords after which a hint is read (Oracle reads it nowhere else).
const HINTED_KEYWORDS: &[&str] = &["SELECT", "INSERT", "UPDATE", "DELETE", "MERGE"];

/// Non-reserved words that may follow a select item, so are not taken as its alias.
const COLUMN_ALIAS_STOP_WORDS: &[&str] =
    &["EXCEPT", "FETCH", "JOIN", "LIMIT", "OFFSET", "RETURNING"];

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

/// The units a parameter's size may have: `64M`.
const SIZE_UNITS: &[&str] = &["K", "M", "G", "T", "P", "E"];

/// Functions that are called without parentheses.
pub(crate) const NILADIC_FUNCTIONS: &[&str] = &[
    "CURRENT_DATE",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "LOCALTIMESTAMP",
    "SESSION_USER",
    "SYSDATE",
    "SYSTIMESTAMP",
    "UID",
    "USER",
];

/// What a parenthesized list turned out to hold.
enum Parenthesized {
    Query(Box<Query>),
    List(Vec<Expr>),
}

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

/// Joins `first` and `rest` with `op` into a balanced tree whose operands read in text order.
fn balanced(op: BinaryOperator, first: Expr, mut rest: Vec<Expr>) -> Expr {
    if rest.is_empty() {
        return first;
    }
    let left_count = (rest.len() + 1).div_ceil(2);
    let right = rest.split_off(left_count - 1);
    let mut right = right.into_iter();
    let Some(right_first) = right.next() else {
        return first;
    };
    Expr::Binary {
        left: Box::new(balanced(op, first, rest)),
        op,
        right: Box::new(balanced(op, right_first, right.collect())),
    }
}

/// The function PostgreSQL's subscript `a[i]` is: the i-th element of an array's text form.
pub const ARRAY_ELEMENT: &str = "ARRAY_ELEMENT";

/// PostgreSQL's `left ~ right` (and `~*`, `!~`, `!~*`) as Oracle's
/// `[NOT] REGEXP_LIKE(left, right[, 'i'])`.
fn regular_expression_match(
    left: Expr,
    right: Expr,
    negated: bool,
    case_insensitive: bool,
) -> Expr {
    let mut args = vec![left, right];
    if case_insensitive {
        args.push(Expr::Literal(Literal::String("i".to_string())));
    }
    let matched = Expr::Function {
        name: "REGEXP_LIKE".to_string(),
        args,
        distinct: false,
        star: false,
    };
    if negated {
        Expr::Unary {
            op: UnaryOperator::Not,
            expr: Box::new(matched),
        }
    } else {
        matched
    }
}

fn binary(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::Binary {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }
}

/// ORA-00904 naming a qualified name: `"A"."B"."C"."D": invalid identifier`.
fn invalid_qualified_name(parts: &[String], position: usize) -> Error {
    let quoted: Vec<String> = parts.iter().map(|part| format!("\"{part}\"")).collect();
    Error::syntax(
        904,
        format!("{}: invalid identifier", quoted.join(".")),
        position,
    )
}

/// A parenthesized list as a value: its only item, or a tuple.
fn single_or_tuple(mut list: Vec<Expr>) -> Expr {
    if list.len() == 1 {
        if let Some(only) = list.pop() {
            return only;
        }
    }
    Expr::Tuple(list)
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

/// A parenthesized query that is nothing but its body is its body.
fn into_set_expression(query: Box<Query>) -> SetExpr {
    if query.is_bare() {
        let Query { body, .. } = *query;
        body
    } else {
        SetExpr::Query(query)
    }
}

fn comparison_operator(kind: &TokenKind) -> Option<BinaryOperator> {
    Some(match kind {
        TokenKind::Equal => BinaryOperator::Equal,
        TokenKind::NotEqual => BinaryOperator::NotEqual,
        TokenKind::Less => BinaryOperator::Less,
        TokenKind::LessOrEqual => BinaryOperator::LessOrEqual,
        TokenKind::Greater => BinaryOperator::Greater,
        TokenKind::GreaterOrEqual => BinaryOperator::GreaterOrEqual,
        _ => return None,
    })
}

fn arithmetic_operator(kind: &TokenKind) -> Option<BinaryOperator> {
    Some(match kind {
        TokenKind::Plus => BinaryOperator::Add,
        TokenKind::Minus => BinaryOperator::Subtract,
        TokenKind::Concat => BinaryOperator::Concat,
        TokenKind::Star => BinaryOperator::Multiply,
        TokenKind::Slash => BinaryOperator::Divide,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    fn new(sql: &'a str) -> Result<Parser<'a>> {
        let tokens = keep_statement_hints(tokenize(sql)?);
        let end_position = tokens.last().map_or(0, |token| token.end);
        Ok(Parser {
            sql,
            tokens,
            index: 0,
            end_position,
            depth: 0,
            bind_count: 0,
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

    // ---- Token access ---------------------------------------------------------------------

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
        self.tokens
            .get(self.index)
            .map_or(self.end_position, |token| token.start)
    }

    fn error(&self, syntax: Syntax) -> Error {
        syntax.at(self.position())
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
                        return Ok((start, end));
                    }
                }
                Some(_) => {}
                None => return Err(self.error(Syntax::MissingRightParenthesis)),
            }
        }
        Err(self.error(Syntax::MissingRightParenthesis))
    }

    // ---- Nesting limits -------------------------------------------------------------------

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
        self.depth -= 1;
        result
    }

    fn depth_error(&self, position: usize) -> Error {
        Error::syntax(
            939,
            format!("statement nesting exceeds the limit of {PARSE_DEPTH_MAX} levels"),
            position,
        )
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
        let budget = NODE_LEVELS_PER_DEPTH * (PARSE_DEPTH_MAX + 1 - self.depth);
        if height > budget {
            return Err(self.depth_error(position));
        }
        Ok(())
    }

    // ---- Names ----------------------------------------------------------------------------

    /// An identifier: a quoted identifier, or a word that is not reserved.
    fn parse_identifier(&mut self, missing: Syntax) -> Result<String> {
        let name = match self.peek() {
            Some(TokenKind::QuotedIdentifier(name)) => name.clone(),
            // Unquoted identifiers start with a letter; the lexer lets `_` start a word only
            // for hidden parameter names.
            Some(TokenKind::Word(word)) if word.starts_with('_') => {
                return Err(self.error(Syntax::InvalidCharacter))
            }
            Some(TokenKind::Word(word)) if !is_reserved_word(word) => word.clone(),
            _ => return Err(self.error(missing)),
        };
        self.index += 1;
        Ok(name)
    }

    /// The identifier at `offset` tokens ahead, if there is one there.
    fn identifier_nth(&self, offset: usize) -> Option<String> {
        match self.peek_nth(offset)? {
            TokenKind::QuotedIdentifier(name) => Some(name.clone()),
            TokenKind::Word(word) if !word.starts_with('_') && !is_reserved_word(word) => {
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
                if !is_reserved_word(word) && !stop_words.contains(&word.as_str()) =>
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

    /// The name of a parameter: any word (hidden ones start with `_`) or a quoted identifier,
    /// with PostgreSQL's dotted custom names (`myapp.setting`).
    fn parse_parameter_name(&mut self) -> Result<String> {
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

    // ---- Statements -----------------------------------------------------------------------

    fn parse_statement(&mut self) -> Result<Statement> {
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
            Some("DECLARE") => Err(self.plsql_error()),
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

    fn plsql_error(&self) -> Error {
        Error::syntax(
            900,
            "invalid SQL statement: PL/SQL blocks are not supported yet",
            self.position(),
        )
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

    fn parse_where_clause(&mut self) -> Result<Option<Expr>> {
        if self.eat_word("WHERE") {
            return Ok(Some(self.parse_expression()?));
        }
        Ok(None)
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
        self.unimplemented_if_word(&["RETURNING", "RETURN", "LOG"])?;
        Ok(Statement::Insert {
            hint,
            table,
            columns,
            source,
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
        self.unimplemented_if_word(&["RETURNING", "RETURN", "LOG"])?;
        Ok(Statement::Update {
            hint,
            table,
            alias,
            assignments,
            where_clause,
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
        self.unimplemented_if_word(&["RETURNING", "RETURN", "LOG"])?;
        Ok(Statement::Delete {
            hint,
            table,
            alias,
            where_clause,
        })
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
    /// `BEGIN ... END;` is an anonymous PL/SQL block: one made only of procedure calls is a
    /// [`Statement::Block`], any other is ORA-00900.
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
                return self.parse_call_block();
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

    /// `COMMENT ON TABLE t IS '...'` or `COMMENT ON COLUMN t.c IS '...'`.
    fn parse_comment(&mut self) -> Result<Statement> {
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

    fn parse_analyze(&mut self) -> Result<Statement> {
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

    /// `BEGIN call; [call; ...] END [;]`, each call `name[(arguments)]`. A block holding
    /// anything else (assignments, NULL, control flow, SQL) is ORA-00900: PL/SQL is not
    /// supported beyond calls.
    fn parse_call_block(&mut self) -> Result<Statement> {
        let start = self.position();
        self.index += 1; // BEGIN
        let mut calls = Vec::new();
        while !self.is_word("END") {
            let looks_like_call = self.identifier_nth(0).is_some()
                && !matches!(
                    self.peek_word(),
                    Some(
                        "NULL"
                            | "IF"
                            | "LOOP"
                            | "WHILE"
                            | "FOR"
                            | "RETURN"
                            | "EXIT"
                            | "RAISE"
                            | "GOTO"
                            | "DECLARE"
                            | "EXECUTE"
                            | "OPEN"
                            | "CLOSE"
                            | "FETCH"
                            | "CASE"
                            | "PIPE"
                            | "FORALL"
                            | "CONTINUE"
                    )
                )
                && matches!(
                    self.peek_nth(1),
                    Some(TokenKind::LeftParen | TokenKind::Period | TokenKind::Semicolon)
                );
            if !looks_like_call {
                return Err(Error::syntax(
                    900,
                    "invalid SQL statement: PL/SQL blocks are not supported yet",
                    start,
                ));
            }
            let name = self.parse_procedure_name()?;
            calls.push(self.parse_call_arguments(name)?);
            self.expect(&TokenKind::Semicolon, Syntax::CommandNotProperlyEnded)?;
        }
        self.index += 1; // END
        if calls.is_empty() {
            return Err(Error::syntax(
                6550,
                "PLS-00103: Encountered the symbol \"END\" when expecting a statement",
                start,
            ));
        }
        Ok(Statement::Block(calls))
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

    // ---- DDL ------------------------------------------------------------------------------

    fn parse_create(&mut self) -> Result<Statement> {
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

    fn parse_data_type(&mut self) -> Result<DataType> {
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

    fn parse_drop(&mut self) -> Result<Statement> {
        self.index += 1;
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

    fn parse_truncate(&mut self) -> Result<Statement> {
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

    fn parse_alter(&mut self) -> Result<Statement> {
        self.index += 1;
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

    fn parse_alter_system(&mut self) -> Result<Statement> {
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

    fn parse_alter_session(&mut self) -> Result<Statement> {
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

    /// The `=` after a parameter name, which Oracle lets `SET EVENTS '...'` leave out.
    fn expect_parameter_equal_sign(&mut self, name: &str) -> Result<()> {
        if self.eat(&TokenKind::Equal)
            || (name == "EVENTS" && matches!(self.peek(), Some(TokenKind::String(_))))
        {
            return Ok(());
        }
        Err(self.error(Syntax::MissingEqualSign))
    }

    /// A parameter value: a number (with an optional sign and size unit), a string, a word,
    /// or a parenthesized list kept as written.
    fn parse_parameter_value(&mut self) -> Result<ParameterValue> {
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

    // ---- Queries --------------------------------------------------------------------------

    fn starts_query(&self) -> bool {
        matches!(self.peek_word(), Some("SELECT" | "WITH"))
    }

    /// Whether the current `(` opens a query, possibly after more parentheses: `((SELECT`.
    fn parenthesized_query_ahead(&self) -> bool {
        let mut offset = 0;
        while self.peek_nth(offset) == Some(&TokenKind::LeftParen) {
            offset += 1;
        }
        offset > 0 && matches!(self.peek_word_nth(offset), Some("SELECT" | "WITH"))
    }

    fn parse_query(&mut self) -> Result<Box<Query>> {
        self.enter()?;
        let result = self.parse_query_at_this_level();
        self.leave(result)
    }

    fn parse_query_at_this_level(&mut self) -> Result<Box<Query>> {
        let with = if self.eat_word("WITH") {
            self.parse_common_table_expressions()?
        } else {
            Vec::new()
        };
        let first = self.parse_set_operand()?;
        let body = self.parse_set_operations(first)?;
        self.parse_query_tail(with, body)
    }

    fn parse_common_table_expressions(&mut self) -> Result<Vec<CommonTableExpression>> {
        let mut list = Vec::new();
        loop {
            let name = self.parse_identifier(Syntax::InvalidIdentifier)?;
            let columns = if self.is(&TokenKind::LeftParen) {
                self.parse_identifier_list(Syntax::MissingRightParenthesis)?
            } else {
                Vec::new()
            };
            self.expect_word("AS", Syntax::MissingKeyword)?;
            self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
            let query = self.parse_query_and_right_parenthesis()?;
            list.push(CommonTableExpression {
                name,
                columns,
                query,
            });
            if !self.eat(&TokenKind::Comma) {
                return Ok(list);
            }
        }
    }

    /// A SELECT block or a parenthesized query.
    fn parse_set_operand(&mut self) -> Result<SetExpr> {
        if self.is_word("SELECT") {
            return self.parse_select().map(SetExpr::Select);
        }
        if self.eat(&TokenKind::LeftParen) {
            return self
                .parse_query_and_right_parenthesis()
                .map(into_set_expression);
        }
        Err(self.error(Syntax::MissingSelectKeyword))
    }

    fn at_set_operator(&self) -> bool {
        matches!(
            self.peek_word(),
            Some("UNION" | "INTERSECT" | "MINUS" | "EXCEPT")
        )
    }

    /// `left {UNION [ALL] | INTERSECT | MINUS | EXCEPT} operand ...`, left-associative.
    fn parse_set_operations(&mut self, mut left: SetExpr) -> Result<SetExpr> {
        let mut left_height = None;
        while self.at_set_operator() {
            let position = self.position();
            let op = match self.advance().map(|token| token.kind) {
                Some(TokenKind::Word(word)) if word == "UNION" => {
                    if self.eat_word("ALL") {
                        SetOperator::UnionAll
                    } else {
                        self.eat_word("DISTINCT");
                        SetOperator::Union
                    }
                }
                Some(TokenKind::Word(word)) if word == "INTERSECT" => SetOperator::Intersect,
                _ => SetOperator::Minus,
            };
            let height_before = left_height.unwrap_or_else(|| Node::SetExpr(&left).height());
            let right = self.parse_set_operand()?;
            left = SetExpr::SetOperation {
                op,
                left: Box::new(left),
                right: Box::new(right),
            };
            left_height =
                Some(self.check_node_height(Node::SetExpr(&left), height_before, position)?);
        }
        Ok(left)
    }

    /// ORDER BY, OFFSET/FETCH (or PostgreSQL LIMIT/OFFSET) and FOR UPDATE after a query body.
    fn parse_query_tail(
        &mut self,
        with: Vec<CommonTableExpression>,
        body: SetExpr,
    ) -> Result<Box<Query>> {
        let mut query = Box::new(Query::from_body(body));
        query.with = with;
        if self.eat_word("ORDER") {
            self.expect_word("BY", Syntax::MissingByKeyword)?;
            query.order_by = self.parse_order_by_items()?;
        }
        self.parse_row_limits(&mut query)?;
        if self.is_word("FOR") && self.is_word_nth(1, "UPDATE") {
            self.index += 2;
            query.for_update = Some(self.parse_for_update()?);
        }
        Ok(query)
    }

    /// OFFSET and FETCH, or PostgreSQL's LIMIT and OFFSET in either order.
    fn parse_row_limits(&mut self, query: &mut Query) -> Result<()> {
        let mut limited = false;
        loop {
            if query.offset.is_none() && self.eat_word("OFFSET") {
                query.offset = Some(self.parse_expression()?);
                if !self.eat_word("ROWS") {
                    self.eat_word("ROW");
                }
            } else if !limited && self.eat_word("FETCH") {
                limited = true;
                query.fetch_first = Some(self.parse_fetch_first()?);
            } else if !limited && self.eat_word("LIMIT") {
                limited = true;
                if !self.eat_word("ALL") {
                    query.fetch_first = Some(self.parse_expression()?);
                }
            } else {
                return Ok(());
            }
        }
    }

    /// `FIRST|NEXT [n] ROW|ROWS ONLY` after FETCH.
    fn parse_fetch_first(&mut self) -> Result<Expr> {
        if !(self.eat_word("FIRST") || self.eat_word("NEXT")) {
            return Err(self.error(Syntax::MissingKeyword));
        }
        let count = if matches!(self.peek_word(), Some("ROW" | "ROWS")) {
            Expr::Literal(Literal::Number("1".to_string()))
        } else {
            self.parse_expression()?
        };
        self.unimplemented_if_word(&["PERCENT"])?;
        if !(self.eat_word("ROWS") || self.eat_word("ROW")) {
            return Err(self.error(Syntax::MissingKeyword));
        }
        if self.is_word("WITH") && self.is_word_nth(1, "TIES") {
            return Err(self.error(Syntax::UnimplementedFeature));
        }
        self.expect_word("ONLY", Syntax::MissingKeyword)?;
        Ok(count)
    }

    fn parse_order_by_items(&mut self) -> Result<Vec<OrderByItem>> {
        let mut items = Vec::new();
        loop {
            let expr = self.parse_expression()?;
            let key = match &expr {
                Expr::Literal(Literal::Number(text))
                    if text.bytes().all(|byte| byte.is_ascii_digit()) =>
                {
                    text.parse()
                        .map_or(SortKey::Expression(expr), SortKey::Position)
                }
                _ => SortKey::Expression(expr),
            };
            let descending = self.eat_word("DESC");
            if !descending {
                self.eat_word("ASC");
            }
            let nulls_first = if self.eat_word("NULLS") {
                if self.eat_word("FIRST") {
                    Some(true)
                } else if self.eat_word("LAST") {
                    Some(false)
                } else {
                    return Err(self.error(Syntax::MissingKeyword));
                }
            } else {
                None
            };
            items.push(OrderByItem {
                key,
                descending,
                nulls_first,
            });
            if !self.eat(&TokenKind::Comma) {
                return Ok(items);
            }
        }
    }

    /// What follows FOR UPDATE: `[OF columns] [NOWAIT | WAIT n | SKIP LOCKED]`.
    fn parse_for_update(&mut self) -> Result<ForUpdate> {
        let mut columns = Vec::new();
        if self.eat_word("OF") {
            loop {
                columns.push(self.parse_expression()?);
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
        }
        let wait = if self.eat_word("NOWAIT") {
            LockWait::NoWait
        } else if self.eat_word("WAIT") {
            LockWait::WaitSeconds(self.parse_unsigned_integer()?)
        } else if self.is_word("SKIP") && self.is_word_nth(1, "LOCKED") {
            self.index += 2;
            LockWait::SkipLocked
        } else {
            LockWait::Wait
        };
        Ok(ForUpdate { columns, wait })
    }

    /// Whether the select list ended where a query or subquery may end without a FROM.
    fn at_query_end(&self) -> bool {
        match self.peek() {
            None | Some(TokenKind::Semicolon | TokenKind::RightParen) => true,
            Some(TokenKind::Word(word)) => {
                matches!(
                    word.as_str(),
                    "UNION"
                        | "INTERSECT"
                        | "MINUS"
                        | "EXCEPT"
                        | "ORDER"
                        | "OFFSET"
                        | "FETCH"
                        | "LIMIT"
                )
            }
            _ => false,
        }
    }

    fn parse_select(&mut self) -> Result<Box<Select>> {
        self.expect_word("SELECT", Syntax::MissingSelectKeyword)?;
        let hint = self.take_hint();
        let distinct = if self.eat_word("DISTINCT") || self.eat_word("UNIQUE") {
            true
        } else {
            self.eat_word("ALL");
            false
        };
        let mut select = Box::new(Select {
            hint,
            distinct,
            projection: Vec::new(),
            from: Vec::new(),
            where_clause: None,
            group_by: Vec::new(),
            having: None,
        });
        self.parse_select_clauses(&mut select)?;
        Ok(select)
    }

    /// The clauses of a SELECT block after `SELECT [DISTINCT]`. Each clause has its own function
    /// so that this frame, live while subqueries recurse, stays small.
    fn parse_select_clauses(&mut self, select: &mut Select) -> Result<()> {
        select.projection = self.parse_projection()?;
        select.from = self.parse_from_clause()?;
        select.where_clause = self.parse_where_clause()?;
        self.unimplemented_hierarchical_query()?;
        select.group_by = self.parse_group_by()?;
        select.having = self.parse_having()?;
        Ok(())
    }

    /// The select list, its vector no larger than it (the tree may be kept in the shared
    /// pool, and most lists hold one item).
    fn parse_projection(&mut self) -> Result<Vec<SelectItem>> {
        let mut projection = Vec::with_capacity(1);
        loop {
            projection.push(self.parse_select_item()?);
            if !self.eat(&TokenKind::Comma) {
                projection.shrink_to_fit();
                return Ok(projection);
            }
        }
    }

    /// `FROM items`, or nothing where a FROM-less (PostgreSQL) query may end.
    fn parse_from_clause(&mut self) -> Result<Vec<TableReference>> {
        if !self.eat_word("FROM") {
            return if self.at_query_end() {
                Ok(Vec::new())
            } else {
                Err(self.error(Syntax::FromKeywordNotFound))
            };
        }
        // No larger than it: see parse_projection.
        let mut from = Vec::with_capacity(1);
        loop {
            from.push(self.parse_table_reference()?);
            if !self.eat(&TokenKind::Comma) {
                from.shrink_to_fit();
                return Ok(from);
            }
        }
    }

    fn parse_group_by(&mut self) -> Result<Vec<Expr>> {
        if !self.eat_word("GROUP") {
            return Ok(Vec::new());
        }
        self.expect_word("BY", Syntax::MissingByKeyword)?;
        self.parse_expression_list()
    }

    fn parse_having(&mut self) -> Result<Option<Expr>> {
        if !self.eat_word("HAVING") {
            return Ok(None);
        }
        self.parse_expression().map(Some)
    }

    /// CONNECT BY and START WITH are not implemented.
    fn unimplemented_hierarchical_query(&self) -> Result<()> {
        if (self.is_word("CONNECT") && self.is_word_nth(1, "BY"))
            || (self.is_word("START") && self.is_word_nth(1, "WITH"))
        {
            return Err(self.error(Syntax::UnimplementedFeature));
        }
        Ok(())
    }

    fn parse_select_item(&mut self) -> Result<SelectItem> {
        if self.eat(&TokenKind::Star) {
            return Ok(SelectItem::Wildcard);
        }
        if let Some(item) = self.parse_qualified_wildcard() {
            return Ok(item);
        }
        self.parse_expression()
            .and_then(|expr| self.finish_select_item(expr))
    }

    /// The optional alias after a select item's expression.
    fn finish_select_item(&mut self, expr: Expr) -> Result<SelectItem> {
        let alias = if self.eat_word("AS") {
            Some(self.parse_identifier(Syntax::FromKeywordNotFound)?)
        } else {
            self.parse_bare_alias(COLUMN_ALIAS_STOP_WORDS)?
        };
        Ok(SelectItem::Expression { expr, alias })
    }

    /// `t.*` or `schema.t.*`, if that is what comes next.
    fn parse_qualified_wildcard(&mut self) -> Option<SelectItem> {
        let first = self.identifier_nth(0)?;
        if self.peek_nth(1) != Some(&TokenKind::Period) {
            return None;
        }
        if self.peek_nth(2) == Some(&TokenKind::Star) {
            self.index += 3;
            return Some(SelectItem::QualifiedWildcard(ObjectName::new(first)));
        }
        let second = self.identifier_nth(2)?;
        if self.peek_nth(3) == Some(&TokenKind::Period)
            && self.peek_nth(4) == Some(&TokenKind::Star)
        {
            self.index += 5;
            return Some(SelectItem::QualifiedWildcard(ObjectName::qualified(
                first, second,
            )));
        }
        None
    }

    /// One FROM item with its joins.
    fn parse_table_reference(&mut self) -> Result<TableReference> {
        self.enter()?;
        let result = self.parse_joins();
        self.leave(result)
    }

    /// A table primary and the joins that follow it, nested to the left.
    fn parse_joins(&mut self) -> Result<TableReference> {
        let mut left = self.parse_table_primary()?;
        let mut left_height = None;
        loop {
            let position = self.position();
            let Some((kind, natural)) = self.parse_join_keywords()? else {
                return Ok(left);
            };
            let height_before = left_height.unwrap_or_else(|| Node::TableReference(&left).height());
            left = self.parse_join(left, kind, natural)?;
            left_height = Some(self.check_node_height(
                Node::TableReference(&left),
                height_before,
                position,
            )?);
        }
    }

    /// The right side and condition of a join whose keywords were read.
    fn parse_join(
        &mut self,
        left: TableReference,
        kind: JoinKind,
        natural: bool,
    ) -> Result<TableReference> {
        let right = self.parse_table_primary()?;
        let condition = if natural {
            JoinCondition::Natural
        } else if kind == JoinKind::Cross {
            JoinCondition::None
        } else if self.eat_word("ON") {
            JoinCondition::On(self.parse_expression()?)
        } else if self.eat_word("USING") {
            JoinCondition::Using(self.parse_identifier_list(Syntax::MissingRightParenthesis)?)
        } else {
            return Err(self.error(Syntax::MissingKeyword));
        };
        Ok(TableReference::Join {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            condition,
        })
    }

    /// `[NATURAL] [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER] | CROSS] JOIN`, if next.
    fn parse_join_keywords(&mut self) -> Result<Option<(JoinKind, bool)>> {
        let natural = self.eat_word("NATURAL");
        let kind = match self.peek_word() {
            Some("JOIN") => JoinKind::Inner,
            Some("INNER") => {
                self.index += 1;
                JoinKind::Inner
            }
            Some(side @ ("LEFT" | "RIGHT" | "FULL")) => {
                let kind = match side {
                    "LEFT" => JoinKind::Left,
                    "RIGHT" => JoinKind::Right,
                    _ => JoinKind::Full,
                };
                self.index += 1;
                self.eat_word("OUTER");
                kind
            }
            Some("CROSS") if !natural => {
                self.index += 1;
                JoinKind::Cross
            }
            _ if natural => return Err(self.error(Syntax::MissingKeyword)),
            _ => return Ok(None),
        };
        self.expect_word("JOIN", Syntax::MissingKeyword)?;
        Ok(Some((kind, natural)))
    }

    /// A table, an inline view, or a parenthesized join.
    fn parse_table_primary(&mut self) -> Result<TableReference> {
        if self.is_word("TABLE") && self.peek_nth(1) == Some(&TokenKind::LeftParen) {
            return self.parse_table_function();
        }
        if self.function_call_ahead() {
            return self.parse_function_table();
        }
        if !self.is(&TokenKind::LeftParen) {
            return self.parse_named_table();
        }
        let is_query = self.parenthesized_query_ahead();
        self.index += 1;
        if is_query {
            return self
                .parse_query_and_right_parenthesis()
                .and_then(|query| self.finish_inline_view(query));
        }
        let inner = self.parse_table_reference()?;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(inner)
    }

    /// Whether a name followed by `(` comes next (`f(`, `schema.f(`): in a FROM list,
    /// PostgreSQL's call of a function that returns rows.
    fn function_call_ahead(&self) -> bool {
        self.identifier_nth(0).is_some()
            && match self.peek_nth(1) {
                Some(TokenKind::LeftParen) => true,
                Some(TokenKind::Period) => {
                    self.identifier_nth(2).is_some()
                        && self.peek_nth(3) == Some(&TokenKind::LeftParen)
                }
                _ => false,
            }
    }

    /// `name(args) [[AS] alias [(column, ...)]]`, a function call next.
    fn parse_function_table(&mut self) -> Result<TableReference> {
        let position = self.position();
        let (name, args) = match self.parse_name_expression()? {
            Expr::Function {
                name,
                args,
                distinct: false,
                star: false,
            } => (name, args),
            _ => return Err(Syntax::InvalidTableName.at(position)),
        };
        let alias = self.parse_table_alias()?;
        let columns = if alias.is_some() && self.is(&TokenKind::LeftParen) {
            self.parse_identifier_list(Syntax::MissingRightParenthesis)?
        } else {
            Vec::new()
        };
        Ok(TableReference::TableFunction {
            name,
            args,
            alias,
            columns,
        })
    }

    fn parse_named_table(&mut self) -> Result<TableReference> {
        let name = self.parse_object_name(Syntax::InvalidTableName)?;
        let alias = self.parse_table_alias()?;
        Ok(TableReference::Table { name, alias })
    }

    /// `TABLE(name[(args)]) [alias]`, TABLE and its parenthesis next.
    fn parse_table_function(&mut self) -> Result<TableReference> {
        self.index += 2;
        let (name, args) = match self.parse_expression()? {
            Expr::Function { name, args, .. } => (name, args),
            Expr::Column {
                schema: None,
                table,
                name,
            } => (
                table.map_or(name.clone(), |package| format!("{package}.{name}")),
                Vec::new(),
            ),
            _ => return Err(self.error(Syntax::InvalidTableName)),
        };
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        let alias = self.parse_table_alias()?;
        Ok(TableReference::TableFunction {
            name,
            args,
            alias,
            columns: Vec::new(),
        })
    }

    fn finish_inline_view(&mut self, query: Box<Query>) -> Result<TableReference> {
        let alias = self.parse_table_alias()?;
        Ok(TableReference::Subquery { query, alias })
    }

    // ---- Expressions ----------------------------------------------------------------------
    //
    // The functions in the recursive cycle (parse_expression_above, parse_operators_above,
    // parse_operator, parse_prefix, parse_primary, parse_parenthesized, ...) dispatch to
    // helpers and combine results with `map` / `and_then`, so that each frame holds few
    // temporaries: see `enter`.

    fn parse_expression(&mut self) -> Result<Expr> {
        self.parse_expression_above(0)
    }

    /// An expression whose operators all bind tighter than `precedence`.
    fn parse_expression_above(&mut self, precedence: u8) -> Result<Expr> {
        self.enter()?;
        let result = self
            .parse_prefix()
            .and_then(|left| self.parse_operators_above(left, precedence));
        self.leave(result)
    }

    /// `expr [, expr ...]`
    fn parse_expression_list(&mut self) -> Result<Vec<Expr>> {
        let mut list = Vec::new();
        loop {
            list.push(self.parse_expression()?);
            if !self.eat(&TokenKind::Comma) {
                return Ok(list);
            }
        }
    }

    /// The operators after `left` that bind tighter than `precedence`, applied in turn.
    fn parse_operators_above(&mut self, mut left: Expr, precedence: u8) -> Result<Expr> {
        let mut left_height = None;
        let mut compared = false;
        while let Some(operator) = self.infix_precedence(&left) {
            if operator <= precedence || (operator == PRECEDENCE_COMPARISON && compared) {
                break;
            }
            let position = self.position();
            let height_before = left_height.unwrap_or_else(|| Node::Expr(&left).height());
            left = self.parse_operator(left, operator)?;
            left_height =
                Some(self.check_expression_height(&left, operator, height_before, position)?);
            compared |= operator == PRECEDENCE_COMPARISON;
        }
        Ok(left)
    }

    fn parse_operator(&mut self, left: Expr, operator: u8) -> Result<Expr> {
        if operator == PRECEDENCE_OR || operator == PRECEDENCE_AND {
            self.parse_logical_chain(left, operator)
        } else {
            self.parse_infix(left, operator)
        }
    }

    /// The height of `expr`, just built by `operator` on a left operand `height_before` high,
    /// checked against what the current depth leaves room for.
    fn check_expression_height(
        &self,
        expr: &Expr,
        operator: u8,
        height_before: usize,
        position: usize,
    ) -> Result<usize> {
        if operator == PRECEDENCE_OR || operator == PRECEDENCE_AND {
            // A balanced chain: measured whole, once.
            let height = Node::Expr(expr).height();
            self.check_height(height, position)?;
            return Ok(height);
        }
        self.check_node_height(Node::Expr(expr), height_before, position)
    }

    /// The precedence of the infix or postfix operator that comes next, if one does.
    fn infix_precedence(&self, left: &Expr) -> Option<u8> {
        match self.peek()? {
            TokenKind::Word(word) => match word.as_str() {
                "OR" => Some(PRECEDENCE_OR),
                "AND" => Some(PRECEDENCE_AND),
                "IS" | "LIKE" | "BETWEEN" | "IN" => Some(PRECEDENCE_COMPARISON),
                "NOT" if matches!(self.peek_word_nth(1), Some("LIKE" | "BETWEEN" | "IN")) => {
                    Some(PRECEDENCE_COMPARISON)
                }
                // PostgreSQL's `OPERATOR(schema.op)` and `COLLATE name`.
                "OPERATOR" if self.peek_nth(1) == Some(&TokenKind::LeftParen) => {
                    self.operator_call_precedence()
                }
                "COLLATE" if self.identifier_nth(1).is_some() => Some(PRECEDENCE_POSTFIX),
                _ => None,
            },
            TokenKind::RegularExpressionMatch { .. } => Some(PRECEDENCE_COMPARISON),
            TokenKind::LeftBracket => Some(PRECEDENCE_POSTFIX),
            TokenKind::Equal
            | TokenKind::NotEqual
            | TokenKind::Less
            | TokenKind::LessOrEqual
            | TokenKind::Greater
            | TokenKind::GreaterOrEqual => Some(PRECEDENCE_COMPARISON),
            TokenKind::Plus | TokenKind::Minus | TokenKind::Concat => Some(PRECEDENCE_ADDITIVE),
            TokenKind::Star | TokenKind::Slash => Some(PRECEDENCE_MULTIPLICATIVE),
            TokenKind::DoubleColon => Some(PRECEDENCE_POSTFIX),
            TokenKind::OuterJoin if matches!(left, Expr::Column { .. }) => Some(PRECEDENCE_POSTFIX),
            _ => None,
        }
    }

    /// The precedence of `OPERATOR([schema.]op)`, next: the operator's own.
    fn operator_call_precedence(&self) -> Option<u8> {
        let offset = if self.peek_nth(3) == Some(&TokenKind::Period) {
            4
        } else {
            2
        };
        match self.peek_nth(offset)? {
            TokenKind::RegularExpressionMatch { .. } => Some(PRECEDENCE_COMPARISON),
            kind if comparison_operator(kind).is_some() => Some(PRECEDENCE_COMPARISON),
            TokenKind::Plus | TokenKind::Minus | TokenKind::Concat => Some(PRECEDENCE_ADDITIVE),
            TokenKind::Star | TokenKind::Slash => Some(PRECEDENCE_MULTIPLICATIVE),
            // Not an operator: parse_operator_call reports it.
            _ => Some(PRECEDENCE_COMPARISON),
        }
    }

    /// `first AND b AND c ...` (or OR) as a balanced tree.
    fn parse_logical_chain(&mut self, first: Expr, precedence: u8) -> Result<Expr> {
        let (keyword, op) = if precedence == PRECEDENCE_OR {
            ("OR", BinaryOperator::Or)
        } else {
            ("AND", BinaryOperator::And)
        };
        let mut rest = Vec::new();
        while self.eat_word(keyword) {
            rest.push(self.parse_expression_above(precedence)?);
        }
        Ok(balanced(op, first, rest))
    }

    /// The operator after `left` and what it takes on its right.
    fn parse_infix(&mut self, left: Expr, precedence: u8) -> Result<Expr> {
        if self.eat_word("IS") {
            return self.parse_is_null(left);
        }
        if self.is_word("COLLATE") {
            // Comparisons are binary (Oracle's BINARY, PostgreSQL's "C"): the collation
            // is read and not kept.
            self.index += 1;
            if self.peek_nth(1) == Some(&TokenKind::Period) {
                self.index += 2;
            }
            // Any word names a collation, reserved ones too (`pg_catalog.default`).
            match self.peek() {
                Some(TokenKind::Word(_) | TokenKind::QuotedIdentifier(_)) => self.index += 1,
                _ => return Err(self.error(Syntax::InvalidIdentifier)),
            }
            return Ok(left);
        }
        if self.is_word("OPERATOR") {
            return self.parse_operator_call(left, precedence);
        }
        if self.eat(&TokenKind::LeftBracket) {
            return self.parse_subscript(left);
        }
        let negated = self.eat_word("NOT");
        match self.peek_word() {
            Some("LIKE") => return self.parse_like(left, negated),
            Some("BETWEEN") => return self.parse_between(left, negated),
            Some("IN") => return self.parse_in(left, negated),
            _ => {}
        }
        let Some(kind) = self.peek() else {
            return Err(self.error(Syntax::MissingExpression));
        };
        if let Some(op) = comparison_operator(kind) {
            self.index += 1;
            return self.parse_comparison(left, op, precedence);
        }
        if let Some(op) = arithmetic_operator(kind) {
            self.index += 1;
            return self
                .parse_expression_above(precedence)
                .map(|right| binary(left, op, right));
        }
        if let TokenKind::RegularExpressionMatch {
            negated,
            case_insensitive,
        } = *kind
        {
            self.index += 1;
            return self
                .parse_expression_above(precedence)
                .map(|right| regular_expression_match(left, right, negated, case_insensitive));
        }
        match kind {
            TokenKind::DoubleColon => {
                self.index += 1;
                self.parse_cast_target(left)
            }
            TokenKind::OuterJoin => {
                self.index += 1;
                Ok(Expr::OuterJoin(Box::new(left)))
            }
            _ => Err(self.error(Syntax::MissingExpression)),
        }
    }

    /// PostgreSQL's `OPERATOR(schema.op) right` after `left`: the operator as if written
    /// alone (`OPERATOR(pg_catalog.~)` is `~`). The schema is read and not kept.
    fn parse_operator_call(&mut self, left: Expr, precedence: u8) -> Result<Expr> {
        self.index += 2;
        if self.identifier_nth(0).is_some() && self.peek_nth(1) == Some(&TokenKind::Period) {
            self.index += 2;
        }
        let Some(kind) = self.peek().cloned() else {
            return Err(self.error(Syntax::MissingExpression));
        };
        let operator_position = self.index;
        self.index += 1;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        if let TokenKind::RegularExpressionMatch {
            negated,
            case_insensitive,
        } = kind
        {
            return self
                .parse_expression_above(precedence)
                .map(|right| regular_expression_match(left, right, negated, case_insensitive));
        }
        let op = comparison_operator(&kind)
            .or_else(|| arithmetic_operator(&kind))
            .ok_or_else(|| {
                self.tokens.get(operator_position).map_or_else(
                    || self.error(Syntax::MissingExpression),
                    |token| Syntax::MissingExpression.at(token.start),
                )
            })?;
        if op.is_comparison() {
            return self.parse_comparison(left, op, precedence);
        }
        self.parse_expression_above(precedence)
            .map(|right| binary(left, op, right))
    }

    /// `[index]` after an array value, the `[` read: `ARRAY_ELEMENT(array, index)`.
    fn parse_subscript(&mut self, left: Expr) -> Result<Expr> {
        let index = self.parse_expression()?;
        self.expect(&TokenKind::RightBracket, Syntax::MissingRightParenthesis)?;
        Ok(Expr::Function {
            name: ARRAY_ELEMENT.to_string(),
            args: vec![left, index],
            distinct: false,
            star: false,
        })
    }

    /// `[NOT] NULL` after IS.
    fn parse_is_null(&mut self, left: Expr) -> Result<Expr> {
        let negated = self.eat_word("NOT");
        self.expect_word("NULL", Syntax::MissingNullKeyword)?;
        Ok(Expr::IsNull {
            expr: Box::new(left),
            negated,
        })
    }

    /// What follows a comparison operator: a value, or ANY/SOME/ALL and a list or subquery.
    fn parse_comparison(&mut self, left: Expr, op: BinaryOperator, precedence: u8) -> Result<Expr> {
        let quantifier = match self.peek_word() {
            Some("ANY" | "SOME") => Quantifier::Any,
            Some("ALL") => Quantifier::All,
            _ => {
                return self
                    .parse_expression_above(precedence)
                    .map(|right| binary(left, op, right))
            }
        };
        self.index += 1;
        self.parse_parenthesized()
            .map(|parenthesized| Expr::QuantifiedComparison {
                left: Box::new(left),
                op,
                quantifier,
                right: match parenthesized {
                    Parenthesized::Query(query) => QuantifiedOperand::Subquery(query),
                    Parenthesized::List(list) => QuantifiedOperand::List(list),
                },
            })
    }

    /// `LIKE pattern [ESCAPE escape]` after `left` (and NOT when `negated`).
    fn parse_like(&mut self, left: Expr, negated: bool) -> Result<Expr> {
        self.index += 1;
        let pattern = self.parse_expression_above(PRECEDENCE_COMPARISON)?;
        let escape = if self.eat_word("ESCAPE") {
            Some(self.parse_expression_above(PRECEDENCE_COMPARISON)?)
        } else {
            None
        };
        Ok(Expr::Like {
            expr: Box::new(left),
            pattern: Box::new(pattern),
            escape: escape.map(Box::new),
            negated,
        })
    }

    /// `BETWEEN low AND high` after `left` (and NOT when `negated`).
    fn parse_between(&mut self, left: Expr, negated: bool) -> Result<Expr> {
        self.index += 1;
        let low = self.parse_expression_above(PRECEDENCE_COMPARISON)?;
        self.expect_word("AND", Syntax::MissingKeyword)?;
        let high = self.parse_expression_above(PRECEDENCE_COMPARISON)?;
        Ok(Expr::Between {
            expr: Box::new(left),
            low: Box::new(low),
            high: Box::new(high),
            negated,
        })
    }

    /// `IN (list or query)` after `left` (and NOT when `negated`).
    fn parse_in(&mut self, left: Expr, negated: bool) -> Result<Expr> {
        self.index += 1;
        self.parse_parenthesized()
            .map(|parenthesized| match parenthesized {
                Parenthesized::Query(query) => Expr::InSubquery {
                    expr: Box::new(left),
                    query,
                    negated,
                },
                Parenthesized::List(list) => Expr::InList {
                    expr: Box::new(left),
                    list,
                    negated,
                },
            })
    }

    /// `(query)` or `(expr, ...)`. A query may also start with a parenthesized operand:
    /// `((SELECT ...) UNION (SELECT ...))`.
    fn parse_parenthesized(&mut self) -> Result<Parenthesized> {
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        if self.starts_query() {
            return self
                .parse_query_and_right_parenthesis()
                .map(Parenthesized::Query);
        }
        self.parse_expression_list()
            .and_then(|list| self.finish_parenthesized(list))
    }

    /// The `)` after a parenthesized list, or the rest of a query whose first operand is the
    /// list's only item, a scalar subquery.
    fn finish_parenthesized(&mut self, mut list: Vec<Expr>) -> Result<Parenthesized> {
        let continues_query = self.at_set_operator()
            || matches!(
                self.peek_word(),
                Some("ORDER" | "OFFSET" | "FETCH" | "LIMIT")
            );
        if continues_query && list.len() == 1 {
            if let Some(Expr::ScalarSubquery(first)) = list.pop() {
                let body = self.parse_set_operations(into_set_expression(first))?;
                let query = self.parse_query_tail(Vec::new(), body)?;
                self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
                return Ok(Parenthesized::Query(query));
            }
            return Err(self.error(Syntax::MissingRightParenthesis));
        }
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(Parenthesized::List(list))
    }

    fn parse_query_and_right_parenthesis(&mut self) -> Result<Box<Query>> {
        let query = self.parse_query()?;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(query)
    }

    /// NOT and the unary signs, or a primary expression.
    fn parse_prefix(&mut self) -> Result<Expr> {
        let op = match self.peek() {
            Some(TokenKind::Word(word)) if word == "NOT" => UnaryOperator::Not,
            Some(TokenKind::Minus) => UnaryOperator::Minus,
            Some(TokenKind::Plus) => UnaryOperator::Plus,
            _ => return self.parse_primary(),
        };
        self.index += 1;
        if op == UnaryOperator::Not && self.is_word("EXISTS") {
            return self.parse_exists(true);
        }
        let precedence = if op == UnaryOperator::Not {
            PRECEDENCE_NOT
        } else {
            PRECEDENCE_UNARY
        };
        self.parse_expression_above(precedence)
            .map(|operand| Expr::Unary {
                op,
                expr: Box::new(operand),
            })
    }

    fn parse_primary(&mut self) -> Result<Expr> {
        match self.peek() {
            Some(TokenKind::LeftParen) => {
                self.parse_parenthesized()
                    .map(|parenthesized| match parenthesized {
                        Parenthesized::Query(query) => Expr::ScalarSubquery(query),
                        Parenthesized::List(list) => single_or_tuple(list),
                    })
            }
            Some(TokenKind::Word(_)) => self.parse_word_expression(),
            Some(TokenKind::QuotedIdentifier(_)) => self.parse_name_expression(),
            Some(TokenKind::Bind(_)) => Ok(self.parse_bind()),
            _ => self.parse_literal(),
        }
    }

    fn parse_literal(&mut self) -> Result<Expr> {
        let literal = match self.peek() {
            Some(TokenKind::Number(text)) => Literal::Number(text.clone()),
            Some(TokenKind::String(value) | TokenKind::NationalString(value)) => {
                Literal::String(value.clone())
            }
            _ => return Err(self.error(Syntax::MissingExpression)),
        };
        self.index += 1;
        Ok(Expr::Literal(literal))
    }

    /// The bind at the current token, numbered in the order binds are read.
    fn parse_bind(&mut self) -> Expr {
        let name = match self.peek() {
            Some(TokenKind::Bind(name)) => name.clone(),
            _ => String::new(),
        };
        self.index += 1;
        let position = self.bind_count;
        self.bind_count += 1;
        Expr::Bind { name, position }
    }

    /// An expression that starts with a word: a keyword literal, CASE, CAST, EXISTS, a
    /// pseudo-column, a niladic function, or a column or function name.
    fn parse_word_expression(&mut self) -> Result<Expr> {
        let next = self.peek_nth(1);
        match self.peek_word().unwrap_or_default() {
            "NULL" | "TRUE" | "FALSE" => Ok(self.parse_keyword_literal()),
            "DATE" | "TIMESTAMP" if matches!(next, Some(TokenKind::String(_))) => {
                Ok(self.parse_datetime_literal())
            }
            "CASE" => self.parse_case(),
            "CAST" if next == Some(&TokenKind::LeftParen) => self.parse_cast(),
            "ARRAY"
                if next == Some(&TokenKind::LeftParen)
                    && matches!(self.peek_word_nth(2), Some("SELECT" | "WITH")) =>
            {
                self.parse_array_subquery()
            }
            "EXISTS" => self.parse_exists(false),
            "ROWNUM" => {
                self.index += 1;
                Ok(Expr::Rownum)
            }
            "ROWID" => self.parse_name_expression(),
            word if NILADIC_FUNCTIONS.contains(&word) && next != Some(&TokenKind::Period) => {
                self.parse_niladic_function()
            }
            "PRIOR" | "LEVEL" | "CONNECT_BY_ROOT" => Err(self.error(Syntax::UnimplementedFeature)),
            word if is_reserved_word(word) => Err(self.error(Syntax::MissingExpression)),
            _ => self.parse_name_expression(),
        }
    }

    /// NULL, TRUE or FALSE.
    fn parse_keyword_literal(&mut self) -> Expr {
        let literal = match self.peek_word() {
            Some("TRUE") => Literal::Boolean(true),
            Some("FALSE") => Literal::Boolean(false),
            _ => Literal::Null,
        };
        self.index += 1;
        Expr::Literal(literal)
    }

    /// `DATE 'yyyy-mm-dd'` or `TIMESTAMP '...'`.
    fn parse_datetime_literal(&mut self) -> Expr {
        let is_date = self.is_word("DATE");
        let value = match self.peek_nth(1) {
            Some(TokenKind::String(value)) => value.clone(),
            _ => String::new(),
        };
        self.index += 2;
        Expr::Literal(if is_date {
            Literal::Date(value)
        } else {
            Literal::Timestamp(value)
        })
    }

    /// SYSDATE, USER, ...: without parentheses, or with arguments (`CURRENT_TIMESTAMP(3)`).
    fn parse_niladic_function(&mut self) -> Result<Expr> {
        let name = self.peek_word().unwrap_or_default().to_string();
        self.index += 1;
        if self.is(&TokenKind::LeftParen) {
            return self.parse_function_call(name);
        }
        Ok(Expr::Function {
            name,
            args: Vec::new(),
            distinct: false,
            star: false,
        })
    }

    /// `a`, `a.b`, `a.b.c` as a column, or followed by `(` as a function call.
    fn parse_name_expression(&mut self) -> Result<Expr> {
        let position = self.position();
        let mut parts = vec![self.parse_name_part(Syntax::MissingExpression)?];
        while self.eat(&TokenKind::Period) {
            parts.push(self.parse_name_part(Syntax::InvalidIdentifier)?);
        }
        if parts.len() > 3 {
            return Err(invalid_qualified_name(&parts, position));
        }
        if self.is(&TokenKind::LeftParen) {
            return self.parse_function_call(parts.join("."));
        }
        let name = parts.pop().unwrap_or_default();
        let table = parts.pop();
        let schema = parts.pop();
        Ok(Expr::Column {
            schema,
            table,
            name,
        })
    }

    /// One part of a dotted name; ROWID is allowed although reserved.
    fn parse_name_part(&mut self, missing: Syntax) -> Result<String> {
        if self.eat_word("ROWID") {
            return Ok("ROWID".to_string());
        }
        self.parse_identifier(missing)
    }

    /// `name(...)`: `*`, `DISTINCT|ALL args`, or plain arguments.
    fn parse_function_call(&mut self, name: String) -> Result<Expr> {
        if name == "TRIM" && self.trim_with_from_ahead() {
            return self.parse_trim_from();
        }
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let star = self.is(&TokenKind::Star) && self.peek_nth(1) == Some(&TokenKind::RightParen);
        let mut distinct = false;
        let args = if star {
            self.index += 2;
            Vec::new()
        } else if self.eat(&TokenKind::RightParen) {
            Vec::new()
        } else {
            distinct = self.eat_word("DISTINCT") || self.eat_word("UNIQUE");
            if !distinct {
                self.eat_word("ALL");
            }
            self.parse_arguments()?
        };
        // Analytic functions and LISTAGG's WITHIN GROUP.
        if self.is_word("OVER") || (self.is_word("WITHIN") && self.is_word_nth(1, "GROUP")) {
            return Err(self.error(Syntax::UnimplementedFeature));
        }
        Ok(Expr::Function {
            name,
            args,
            distinct,
            star,
        })
    }

    /// Whether `(` after TRIM opens the `[LEADING | TRAILING | BOTH] [char] FROM source`
    /// form: a side keyword follows, or a FROM at the parenthesis's own depth.
    fn trim_with_from_ahead(&self) -> bool {
        if !self.is(&TokenKind::LeftParen) {
            return false;
        }
        if matches!(self.peek_word_nth(1), Some("LEADING" | "TRAILING" | "BOTH")) {
            return true;
        }
        let mut depth = 0usize;
        let mut offset = 1;
        while let Some(token) = self.peek_nth(offset) {
            match token {
                TokenKind::LeftParen => depth += 1,
                TokenKind::RightParen if depth == 0 => return false,
                TokenKind::RightParen => depth -= 1,
                TokenKind::Word(word) if depth == 0 && word == "FROM" => return true,
                _ => {}
            }
            offset += 1;
        }
        false
    }

    /// `TRIM([LEADING | TRAILING | BOTH] [char] FROM source)`, as LTRIM / RTRIM calls:
    /// LEADING is `LTRIM(source, char)`, TRAILING `RTRIM(source, char)`, BOTH (the default)
    /// both; the character defaults to a blank.
    fn parse_trim_from(&mut self) -> Result<Expr> {
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        let side = ["LEADING", "TRAILING", "BOTH"]
            .into_iter()
            .find(|side| self.eat_word(side))
            .unwrap_or("BOTH");
        let character = if self.is_word("FROM") {
            Expr::Literal(Literal::String(" ".to_string()))
        } else {
            self.parse_expression()?
        };
        if let Expr::Literal(Literal::String(text)) = &character {
            if text.chars().count() != 1 {
                return Err(Error::new(30001, "trim set should have only one character"));
            }
        }
        self.expect_word("FROM", Syntax::MissingKeyword)?;
        let source = self.parse_expression()?;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        let call = |name: &str, args: Vec<Expr>| Expr::Function {
            name: name.to_string(),
            args,
            distinct: false,
            star: false,
        };
        Ok(match side {
            "LEADING" => call("LTRIM", vec![source, character]),
            "TRAILING" => call("RTRIM", vec![source, character]),
            _ => call(
                "LTRIM",
                vec![call("RTRIM", vec![source, character.clone()]), character],
            ),
        })
    }

    /// `expr, ...)` of a function call.
    fn parse_arguments(&mut self) -> Result<Vec<Expr>> {
        let args = self.parse_expression_list()?;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(args)
    }

    fn parse_boxed_expression(&mut self) -> Result<Box<Expr>> {
        self.parse_expression().map(Box::new)
    }

    fn parse_case(&mut self) -> Result<Expr> {
        self.index += 1;
        let operand = if self.is_word("WHEN") {
            None
        } else {
            Some(self.parse_boxed_expression()?)
        };
        let mut when_then = Vec::new();
        while self.eat_word("WHEN") {
            when_then.push(self.parse_when_then()?);
        }
        if when_then.is_empty() {
            return Err(self.error(Syntax::MissingKeyword));
        }
        let else_result = if self.eat_word("ELSE") {
            Some(self.parse_boxed_expression()?)
        } else {
            None
        };
        self.expect_word("END", Syntax::MissingKeyword)?;
        Ok(Expr::Case {
            operand,
            when_then,
            else_result,
        })
    }

    /// `condition THEN result` of a CASE, after WHEN.
    fn parse_when_then(&mut self) -> Result<(Expr, Expr)> {
        let when = self.parse_expression()?;
        self.expect_word("THEN", Syntax::MissingKeyword)?;
        self.parse_expression().map(|then| (when, then))
    }

    fn parse_cast(&mut self) -> Result<Expr> {
        self.index += 1;
        self.expect(&TokenKind::LeftParen, Syntax::MissingLeftParenthesis)?;
        self.parse_expression()
            .and_then(|expr| self.finish_cast(expr))
    }

    /// `AS type)` of a CAST.
    fn finish_cast(&mut self, expr: Expr) -> Result<Expr> {
        self.expect_word("AS", Syntax::MissingKeyword)?;
        let cast = self.parse_cast_target(expr)?;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(cast)
    }

    /// The type `expr` is cast to, after `::` or CAST's AS, and the cast. PostgreSQL's
    /// names may be qualified with `pg_catalog.`; `oid` is INTEGER and `name` VARCHAR2(64);
    /// an array type (`int2[]`) is its text form, VARCHAR2(4000) (Pythia has no arrays);
    /// a cast to an object identifier type (`regclass`, `regtype`, `regnamespace`) is the
    /// function of that name (`REGCLASS(expr)`: an oid's name, or a name's oid).
    fn parse_cast_target(&mut self, expr: Expr) -> Result<Expr> {
        if self.is_word("PG_CATALOG") && self.peek_nth(1) == Some(&TokenKind::Period) {
            self.index += 2;
        }
        let data_type = match self.peek_word() {
            Some(word @ ("REGCLASS" | "REGTYPE" | "REGNAMESPACE")) => {
                let name = word.to_string();
                self.index += 1;
                return Ok(Expr::Function {
                    name,
                    args: vec![expr],
                    distinct: false,
                    star: false,
                });
            }
            Some("OID") => {
                self.index += 1;
                DataType::Integer
            }
            Some("NAME") => {
                self.index += 1;
                DataType::Varchar2 { length: 64 }
            }
            _ => self.parse_data_type()?,
        };
        let data_type = if self.is(&TokenKind::LeftBracket)
            && self.peek_nth(1) == Some(&TokenKind::RightBracket)
        {
            self.index += 2;
            DataType::Varchar2 { length: 4000 }
        } else {
            data_type
        };
        Ok(Expr::Cast {
            expr: Box::new(expr),
            data_type,
        })
    }

    /// PostgreSQL's `ARRAY(query)`: the function ARRAY over the query as a subquery, which
    /// the planner turns into the array of the query's values (in their text form).
    fn parse_array_subquery(&mut self) -> Result<Expr> {
        self.index += 2;
        let query = self.parse_query_and_right_parenthesis()?;
        Ok(Expr::Function {
            name: "ARRAY".to_string(),
            args: vec![Expr::ScalarSubquery(query)],
            distinct: false,
            star: false,
        })
    }

    fn parse_exists(&mut self, negated: bool) -> Result<Expr> {
        self.index += 1;
        if !self.is(&TokenKind::LeftParen) {
            return Err(self.error(Syntax::MissingLeftParenthesis));
        }
        // Where the query should have started: just inside the parenthesis.
        let position = self
            .tokens
            .get(self.index + 1)
            .map_or(self.end_position, |token| token.start);
        match self.parse_parenthesized()? {
            Parenthesized::Query(query) => Ok(Expr::Exists { query, negated }),
            Parenthesized::List(mut list) => match list.pop() {
                Some(Expr::ScalarSubquery(query)) if list.is_empty() => {
                    Ok(Expr::Exists { query, negated })
                }
                _ => Err(Syntax::MissingSelectKeyword.at(position)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- Helpers ------------------------------------------------------------------------------

    fn parse_ok(sql: &str) -> Statement {
        parse(sql).unwrap_or_else(|error| panic!("{sql}: {error:?}"))
    }

    fn query(sql: &str) -> Query {
        match parse_ok(sql) {
            Statement::Select(query) => *query,
            other => panic!("{sql}: not a query: {other:?}"),
        }
    }

    fn select(sql: &str) -> Select {
        match query(sql).body {
            SetExpr::Select(select) => *select,
            other => panic!("{sql}: not a SELECT block: {other:?}"),
        }
    }

    /// The expression `text` in `SELECT text FROM DUAL`.
    fn expression(text: &str) -> Expr {
        match select(&format!("SELECT {text} FROM DUAL"))
            .projection
            .into_iter()
            .next()
        {
            Some(SelectItem::Expression { expr, .. }) => expr,
            other => panic!("{text}: {other:?}"),
        }
    }

    /// The condition `text` in `SELECT * FROM T WHERE text`.
    fn condition(text: &str) -> Expr {
        select(&format!("SELECT * FROM T WHERE {text}"))
            .where_clause
            .expect("a WHERE clause")
    }

    /// Asserts that `sql` fails with `code` at the first occurrence of `at` (or at the end of
    /// the text when `at` is empty).
    fn assert_error(sql: &str, code: u32, at: &str) {
        let error = parse(sql).expect_err(sql);
        let position = if at.is_empty() {
            sql.trim_end().len()
        } else {
            sql.find(at).expect("`at` is in the text")
        };
        assert_eq!(
            (error.code(), error.position()),
            (code, Some(position)),
            "{sql}: {error:?}"
        );
    }

    fn column(name: &str) -> Expr {
        Expr::Column {
            schema: None,
            table: None,
            name: name.to_string(),
        }
    }

    fn qualified_column(table: &str, name: &str) -> Expr {
        Expr::Column {
            schema: None,
            table: Some(table.to_string()),
            name: name.to_string(),
        }
    }

    fn number(text: &str) -> Expr {
        Expr::Literal(Literal::Number(text.to_string()))
    }

    fn string(value: &str) -> Expr {
        Expr::Literal(Literal::String(value.to_string()))
    }

    fn bind(name: &str, position: usize) -> Expr {
        Expr::Bind {
            name: name.to_string(),
            position,
        }
    }

    fn binary(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
        Expr::Binary {
            left: Box::new(left),
            op,
            right: Box::new(right),
        }
    }

    fn unary(op: UnaryOperator, expr: Expr) -> Expr {
        Expr::Unary {
            op,
            expr: Box::new(expr),
        }
    }

    fn function(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Function {
            name: name.to_string(),
            args,
            distinct: false,
            star: false,
        }
    }

    fn table(name: &str) -> TableReference {
        TableReference::Table {
            name: ObjectName::new(name),
            alias: None,
        }
    }

    fn aliased_table(name: &str, alias: &str) -> TableReference {
        TableReference::Table {
            name: ObjectName::new(name),
            alias: Some(alias.to_string()),
        }
    }

    fn item(expr: Expr) -> SelectItem {
        SelectItem::Expression { expr, alias: None }
    }

    fn plain_select(projection: Vec<SelectItem>, from: Vec<TableReference>) -> Select {
        Select {
            hint: None,
            distinct: false,
            projection,
            from,
            where_clause: None,
            group_by: Vec::new(),
            having: None,
        }
    }

    fn select_one_from_dual(value: &str) -> SetExpr {
        SetExpr::Select(Box::new(plain_select(
            vec![item(number(value))],
            vec![table("DUAL")],
        )))
    }

    // ---- Expressions ---------------------------------------------------------------------------

    #[test]
    fn operator_precedence_follows_oracle() {
        use BinaryOperator::*;
        assert_eq!(
            expression("1 + 2 * 3"),
            binary(number("1"), Add, binary(number("2"), Multiply, number("3")))
        );
        assert_eq!(
            expression("1 - 2 - 3"),
            binary(
                binary(number("1"), Subtract, number("2")),
                Subtract,
                number("3")
            )
        );
        assert_eq!(
            expression("A || B + C"),
            binary(binary(column("A"), Concat, column("B")), Add, column("C"))
        );
        assert_eq!(
            expression("- A * B"),
            binary(
                unary(UnaryOperator::Minus, column("A")),
                Multiply,
                column("B")
            )
        );
        assert_eq!(
            expression("(1 + 2) * 3"),
            binary(binary(number("1"), Add, number("2")), Multiply, number("3"))
        );
        assert_eq!(
            condition("A = 1 OR B = 2 AND NOT C = 3"),
            binary(
                binary(column("A"), Equal, number("1")),
                Or,
                binary(
                    binary(column("B"), Equal, number("2")),
                    And,
                    unary(UnaryOperator::Not, binary(column("C"), Equal, number("3")))
                )
            )
        );
        // `::` binds tighter than unary minus, and comparisons are looser than arithmetic.
        assert_eq!(
            condition("-X::INT + 1 >= Y"),
            binary(
                binary(
                    unary(
                        UnaryOperator::Minus,
                        Expr::Cast {
                            expr: Box::new(column("X")),
                            data_type: DataType::Integer
                        }
                    ),
                    Add,
                    number("1")
                ),
                GreaterOrEqual,
                column("Y")
            )
        );
        assert_eq!(
            condition("A != 1"),
            binary(column("A"), NotEqual, number("1"))
        );
        assert_eq!(
            condition("A ^= 1"),
            binary(column("A"), NotEqual, number("1"))
        );
        assert_eq!(
            condition("A <> 1"),
            binary(column("A"), NotEqual, number("1"))
        );
    }

    #[test]
    fn comparisons_do_not_chain() {
        assert_error("SELECT * FROM T WHERE A = B = C", 933, "= C");
    }

    #[test]
    fn long_and_or_chains_are_balanced_in_text_order() {
        use BinaryOperator::*;
        let term = |value: &str| binary(column("A"), Equal, number(value));
        assert_eq!(
            condition("A = 1 OR A = 2 OR A = 3"),
            binary(binary(term("1"), Or, term("2")), Or, term("3"))
        );
        assert_eq!(
            condition("A = 1 AND A = 2 AND A = 3 AND A = 4"),
            binary(
                binary(term("1"), And, term("2")),
                And,
                binary(term("3"), And, term("4"))
            )
        );
        let many: Vec<String> = (0..10_000).map(|value| format!("A = {value}")).collect();
        let statement = parse_ok(&format!("SELECT * FROM T WHERE {}", many.join(" OR ")));
        assert!(Node::Statement(&statement).height() < 25);
    }

    #[test]
    fn null_between_in_like_and_their_negations() {
        let a = || Box::new(column("A"));
        assert_eq!(
            condition("A IS NULL"),
            Expr::IsNull {
                expr: a(),
                negated: false
            }
        );
        assert_eq!(
            condition("A IS NOT NULL"),
            Expr::IsNull {
                expr: a(),
                negated: true
            }
        );
        assert_eq!(
            condition("A NOT BETWEEN 1 AND 2 + 3"),
            Expr::Between {
                expr: a(),
                low: Box::new(number("1")),
                high: Box::new(binary(number("2"), BinaryOperator::Add, number("3"))),
                negated: true
            }
        );
        assert_eq!(
            condition("A IN (1, 'x')"),
            Expr::InList {
                expr: a(),
                list: vec![number("1"), string("x")],
                negated: false
            }
        );
        assert_eq!(
            condition("A NOT IN (1)"),
            Expr::InList {
                expr: a(),
                list: vec![number("1")],
                negated: true
            }
        );
        assert_eq!(
            condition("A LIKE 'a\\_%' ESCAPE '\\'"),
            Expr::Like {
                expr: a(),
                pattern: Box::new(string("a\\_%")),
                escape: Some(Box::new(string("\\"))),
                negated: false
            }
        );
        assert_eq!(
            condition("A NOT LIKE 'x%'"),
            Expr::Like {
                expr: a(),
                pattern: Box::new(string("x%")),
                escape: None,
                negated: true
            }
        );
    }

    #[test]
    fn subquery_predicates() {
        let subquery = || Box::new(Query::from_body(select_one_from_dual("1")));
        assert_eq!(
            condition("A IN (SELECT 1 FROM DUAL)"),
            Expr::InSubquery {
                expr: Box::new(column("A")),
                query: subquery(),
                negated: false
            }
        );
        assert_eq!(
            condition("(A, B) NOT IN (SELECT 1 FROM DUAL)"),
            Expr::InSubquery {
                expr: Box::new(Expr::Tuple(vec![column("A"), column("B")])),
                query: subquery(),
                negated: true
            }
        );
        assert_eq!(
            condition("(A, B) IN ((1, 2), (3, 4))"),
            Expr::InList {
                expr: Box::new(Expr::Tuple(vec![column("A"), column("B")])),
                list: vec![
                    Expr::Tuple(vec![number("1"), number("2")]),
                    Expr::Tuple(vec![number("3"), number("4")])
                ],
                negated: false
            }
        );
        assert_eq!(
            condition("EXISTS (SELECT 1 FROM DUAL)"),
            Expr::Exists {
                query: subquery(),
                negated: false
            }
        );
        assert_eq!(
            condition("NOT EXISTS (SELECT 1 FROM DUAL)"),
            Expr::Exists {
                query: subquery(),
                negated: true
            }
        );
        assert_eq!(
            condition("A > ALL (SELECT 1 FROM DUAL)"),
            Expr::QuantifiedComparison {
                left: Box::new(column("A")),
                op: BinaryOperator::Greater,
                quantifier: Quantifier::All,
                right: QuantifiedOperand::Subquery(subquery())
            }
        );
        assert_eq!(
            condition("A = SOME (1, 2)"),
            Expr::QuantifiedComparison {
                left: Box::new(column("A")),
                op: BinaryOperator::Equal,
                quantifier: Quantifier::Any,
                right: QuantifiedOperand::List(vec![number("1"), number("2")])
            }
        );
        assert_eq!(
            expression("(SELECT 1 FROM DUAL)"),
            Expr::ScalarSubquery(subquery())
        );
        assert_eq!(
            expression("((SELECT 1 FROM DUAL))"),
            Expr::ScalarSubquery(subquery())
        );
    }

    #[test]
    fn a_parenthesized_subquery_may_start_a_set_operation() {
        let Expr::ScalarSubquery(query) =
            expression("((SELECT 1 FROM DUAL) UNION (SELECT 2 FROM DUAL) ORDER BY 1)")
        else {
            panic!("not a scalar subquery");
        };
        assert_eq!(
            query.body,
            SetExpr::SetOperation {
                op: SetOperator::Union,
                left: Box::new(select_one_from_dual("1")),
                right: Box::new(select_one_from_dual("2"))
            }
        );
        assert_eq!(query.order_by.len(), 1);
    }

    #[test]
    fn case_cast_and_postgresql_casts() {
        assert_eq!(
            expression("CASE WHEN A = 1 THEN 'one' WHEN A = 2 THEN 'two' ELSE 'many' END"),
            Expr::Case {
                operand: None,
                when_then: vec![
                    (
                        binary(column("A"), BinaryOperator::Equal, number("1")),
                        string("one")
                    ),
                    (
                        binary(column("A"), BinaryOperator::Equal, number("2")),
                        string("two")
                    ),
                ],
                else_result: Some(Box::new(string("many")))
            }
        );
        assert_eq!(
            expression("CASE A WHEN 1 THEN 'one' END"),
            Expr::Case {
                operand: Some(Box::new(column("A"))),
                when_then: vec![(number("1"), string("one"))],
                else_result: None
            }
        );
        assert_eq!(
            expression("CAST(A AS NUMBER(10, 2))"),
            Expr::Cast {
                expr: Box::new(column("A")),
                data_type: DataType::Number {
                    precision: Some(10),
                    scale: Some(2)
                }
            }
        );
        assert_eq!(
            expression("'1'::varchar(10)"),
            Expr::Cast {
                expr: Box::new(string("1")),
                data_type: DataType::Varchar2 { length: 10 }
            }
        );
        assert_eq!(
            expression("A::text::int"),
            Expr::Cast {
                expr: Box::new(Expr::Cast {
                    expr: Box::new(column("A")),
                    data_type: DataType::Varchar2 { length: 4000 }
                }),
                data_type: DataType::Integer
            }
        );
    }

    #[test]
    fn function_calls() {
        assert_eq!(
            expression("COUNT(*)"),
            Expr::Function {
                name: "COUNT".into(),
                args: vec![],
                distinct: false,
                star: true
            }
        );
        assert_eq!(
            expression("count(DISTINCT a)"),
            Expr::Function {
                name: "COUNT".into(),
                args: vec![column("A")],
                distinct: true,
                star: false
            }
        );
        assert_eq!(
            expression("DBMS_RANDOM.VALUE"),
            qualified_column("DBMS_RANDOM", "VALUE")
        );
        assert_eq!(
            expression("dbms_random.value(1, 10)"),
            function("DBMS_RANDOM.VALUE", vec![number("1"), number("10")])
        );
        assert_eq!(expression("sys.pkg.f()"), function("SYS.PKG.F", vec![]));
        assert_eq!(
            expression("NVL(A, 0)"),
            function("NVL", vec![column("A"), number("0")])
        );
        for name in [
            "SYSDATE",
            "SYSTIMESTAMP",
            "CURRENT_TIMESTAMP",
            "CURRENT_DATE",
            "USER",
            "UID",
            "LOCALTIMESTAMP",
        ] {
            assert_eq!(expression(name), function(name, vec![]), "{name}");
        }
        assert_eq!(
            expression("CURRENT_TIMESTAMP(3)"),
            function("CURRENT_TIMESTAMP", vec![number("3")])
        );
    }

    #[test]
    fn pseudo_columns_and_qualified_names() {
        assert_eq!(expression("ROWNUM"), Expr::Rownum);
        assert_eq!(expression("ROWID"), column("ROWID"));
        assert_eq!(expression("e.rowid"), qualified_column("E", "ROWID"));
        assert_eq!(
            expression("seq.NEXTVAL"),
            qualified_column("SEQ", "NEXTVAL")
        );
        assert_eq!(
            expression("scott.seq.currval"),
            Expr::Column {
                schema: Some("SCOTT".into()),
                table: Some("SEQ".into()),
                name: "CURRVAL".into()
            }
        );
        assert_eq!(
            expression("\"Mixed\".\"Case\""),
            qualified_column("Mixed", "Case")
        );
        assert_eq!(expression("text"), column("TEXT"));
        assert_eq!(expression("\"DATE\""), column("DATE"));
    }

    #[test]
    fn literals_keep_their_text() {
        assert_eq!(expression("1.5E-3"), number("1.5E-3"));
        assert_eq!(expression("'it''s'"), string("it's"));
        assert_eq!(expression("q'[it's]'"), string("it's"));
        assert_eq!(expression("N'ünï'"), string("ünï"));
        assert_eq!(expression("NULL"), Expr::Literal(Literal::Null));
        assert_eq!(expression("TRUE"), Expr::Literal(Literal::Boolean(true)));
        assert_eq!(expression("false"), Expr::Literal(Literal::Boolean(false)));
        assert_eq!(
            expression("DATE '2024-01-31'"),
            Expr::Literal(Literal::Date("2024-01-31".into()))
        );
        assert_eq!(
            expression("TIMESTAMP '2024-01-31 12:00:00.5'"),
            Expr::Literal(Literal::Timestamp("2024-01-31 12:00:00.5".into()))
        );
        assert_eq!(expression("-1"), unary(UnaryOperator::Minus, number("1")));
    }

    #[test]
    fn binds_are_numbered_in_text_order() {
        assert_eq!(
            expression(r#":a + :1 + :"SYS_B_0" + $1"#),
            binary(
                binary(
                    binary(bind("A", 0), BinaryOperator::Add, bind("1", 1)),
                    BinaryOperator::Add,
                    bind("SYS_B_0", 2)
                ),
                BinaryOperator::Add,
                bind("1", 3)
            )
        );
        let statement = parse_ok(
            "SELECT :a FROM T WHERE X IN (SELECT :b FROM U WHERE Y = :c) AND Z = :a ORDER BY :d",
        );
        let mut binds = Vec::new();
        Node::Statement(&statement).walk(&mut |node| {
            if let Node::Expr(Expr::Bind { name, position }) = node {
                binds.push((name.clone(), *position));
            }
        });
        binds.sort_by_key(|(_, position)| *position);
        let expected = [("A", 0), ("B", 1), ("C", 2), ("A", 3), ("D", 4)]
            .map(|(name, position)| (name.to_string(), position));
        assert_eq!(binds, expected);
        assert_eq!(statement.bind_count(), 5);
        assert_eq!(parse_ok("COMMIT").bind_count(), 0);
        assert_eq!(
            parse_ok("INSERT INTO T VALUES (:1, :2), (:3, :4)").bind_count(),
            4
        );
    }

    #[test]
    fn outer_join_marker_wraps_the_column() {
        let expected = binary(
            Expr::OuterJoin(Box::new(qualified_column("A", "X"))),
            BinaryOperator::Equal,
            qualified_column("B", "Y"),
        );
        assert_eq!(condition("A.X(+) = B.Y"), expected);
        assert_eq!(condition("A.X ( + ) = B.Y"), expected);
        assert_eq!(
            condition("A.X = B.Y(+)"),
            binary(
                qualified_column("A", "X"),
                BinaryOperator::Equal,
                Expr::OuterJoin(Box::new(qualified_column("B", "Y")))
            )
        );
    }

    // ---- Queries -------------------------------------------------------------------------------

    #[test]
    fn select_block_with_every_clause() {
        let select = select(
            "SELECT /*+ FULL(e) */ DISTINCT e.*, e.name AS n, sal s, \"Mixed\" \"Alias\", scott.emp.* \
             FROM scott.emp e, dept d WHERE e.deptno = d.deptno GROUP BY e.name, sal HAVING COUNT(*) > 1",
        );
        assert_eq!(select.hint.as_deref(), Some("FULL(e)"));
        assert!(select.distinct);
        assert_eq!(
            select.projection,
            vec![
                SelectItem::QualifiedWildcard(ObjectName::new("E")),
                SelectItem::Expression {
                    expr: qualified_column("E", "NAME"),
                    alias: Some("N".into())
                },
                SelectItem::Expression {
                    expr: column("SAL"),
                    alias: Some("S".into())
                },
                SelectItem::Expression {
                    expr: column("Mixed"),
                    alias: Some("Alias".into())
                },
                SelectItem::QualifiedWildcard(ObjectName::qualified("SCOTT", "EMP")),
            ]
        );
        assert_eq!(
            select.from,
            vec![
                TableReference::Table {
                    name: ObjectName::qualified("SCOTT", "EMP"),
                    alias: Some("E".into())
                },
                aliased_table("DEPT", "D"),
            ]
        );
        assert_eq!(
            select.where_clause,
            Some(binary(
                qualified_column("E", "DEPTNO"),
                BinaryOperator::Equal,
                qualified_column("D", "DEPTNO")
            ))
        );
        assert_eq!(
            select.group_by,
            vec![qualified_column("E", "NAME"), column("SAL")]
        );
        assert_eq!(
            select.having,
            Some(binary(
                Expr::Function {
                    name: "COUNT".into(),
                    args: vec![],
                    distinct: false,
                    star: true
                },
                BinaryOperator::Greater,
                number("1")
            ))
        );
        assert!(!select_block_is_distinct("SELECT ALL 1 FROM DUAL"));
        assert!(select_block_is_distinct("SELECT UNIQUE 1 FROM DUAL"));
    }

    fn select_block_is_distinct(sql: &str) -> bool {
        select(sql).distinct
    }

    #[test]
    fn hints_count_only_right_after_the_keyword() {
        assert_eq!(select("SELECT 1 /*+ FULL(t) */ FROM DUAL").hint, None);
        assert_eq!(
            select("SELECT /*+ A */ /*+ B */ 1 FROM DUAL")
                .hint
                .as_deref(),
            Some("A")
        );
        assert_eq!(
            select("SELECT --+ INDEX(t i)\n 1 FROM DUAL")
                .hint
                .as_deref(),
            Some("INDEX(t i)")
        );
        assert_eq!(select("SELECT /* a comment */ 1 FROM DUAL").hint, None);
    }

    #[test]
    fn set_operators_share_one_precedence_and_associate_left() {
        let body = query(
            "SELECT 1 FROM DUAL UNION SELECT 2 FROM DUAL UNION ALL SELECT 3 FROM DUAL \
             MINUS SELECT 4 FROM DUAL INTERSECT SELECT 5 FROM DUAL EXCEPT SELECT 6 FROM DUAL",
        )
        .body;
        let operation = |op, left, right: &str| SetExpr::SetOperation {
            op,
            left: Box::new(left),
            right: Box::new(select_one_from_dual(right)),
        };
        let expected = operation(
            SetOperator::Minus,
            operation(
                SetOperator::Intersect,
                operation(
                    SetOperator::Minus,
                    operation(
                        SetOperator::UnionAll,
                        operation(SetOperator::Union, select_one_from_dual("1"), "2"),
                        "3",
                    ),
                    "4",
                ),
                "5",
            ),
            "6",
        );
        assert_eq!(body, expected);
    }

    #[test]
    fn parenthesized_queries_keep_only_what_they_need() {
        let query = query("(SELECT 1 FROM DUAL) UNION (SELECT 2 FROM DUAL ORDER BY 1) ORDER BY 1");
        let SetExpr::SetOperation { left, right, .. } = query.body else {
            panic!("not a set operation")
        };
        assert_eq!(*left, select_one_from_dual("1"));
        let SetExpr::Query(right) = *right else {
            panic!("the ordered operand keeps its query")
        };
        assert_eq!(right.order_by.len(), 1);
        assert_eq!(query.order_by.len(), 1);
    }

    #[test]
    fn order_by_and_row_limits() {
        let query = query("SELECT A FROM T ORDER BY 1 DESC NULLS LAST, A ASC NULLS FIRST, B OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY");
        assert_eq!(
            query.order_by,
            vec![
                OrderByItem {
                    key: SortKey::Position(1),
                    descending: true,
                    nulls_first: Some(false)
                },
                OrderByItem {
                    key: SortKey::Expression(column("A")),
                    descending: false,
                    nulls_first: Some(true)
                },
                OrderByItem {
                    key: SortKey::Expression(column("B")),
                    descending: false,
                    nulls_first: None
                },
            ]
        );
        assert_eq!(query.offset, Some(number("5")));
        assert_eq!(query.fetch_first, Some(number("10")));
        assert_eq!(
            self::query("SELECT A FROM T FETCH FIRST ROW ONLY").fetch_first,
            Some(number("1"))
        );
        assert_eq!(
            self::query("SELECT A FROM T FETCH FIRST :n ROWS ONLY").fetch_first,
            Some(bind("N", 0))
        );
        let postgresql = self::query("SELECT A FROM T ORDER BY A LIMIT 10 OFFSET 20");
        assert_eq!(
            (postgresql.fetch_first, postgresql.offset),
            (Some(number("10")), Some(number("20")))
        );
        let unlimited = self::query("SELECT A FROM T LIMIT ALL");
        assert_eq!(unlimited.fetch_first, None);
        assert_error(
            "SELECT A FROM T FETCH FIRST 5 PERCENT ROWS ONLY",
            3001,
            "PERCENT",
        );
    }

    #[test]
    fn for_update_variants() {
        let lock = |sql: &str| query(sql).for_update.expect("FOR UPDATE");
        assert_eq!(
            lock("SELECT * FROM T FOR UPDATE"),
            ForUpdate {
                columns: vec![],
                wait: LockWait::Wait
            }
        );
        assert_eq!(
            lock("SELECT * FROM T FOR UPDATE NOWAIT").wait,
            LockWait::NoWait
        );
        assert_eq!(
            lock("SELECT * FROM T FOR UPDATE WAIT 5").wait,
            LockWait::WaitSeconds(5)
        );
        assert_eq!(
            lock("SELECT * FROM T FOR UPDATE OF T.A, B SKIP LOCKED"),
            ForUpdate {
                columns: vec![qualified_column("T", "A"), column("B")],
                wait: LockWait::SkipLocked
            }
        );
    }

    #[test]
    fn with_clause() {
        let query =
            query("WITH x (a) AS (SELECT 1 FROM DUAL), y AS (SELECT * FROM x) SELECT * FROM y");
        assert_eq!(query.with.len(), 2);
        assert_eq!(query.with[0].name, "X");
        assert_eq!(query.with[0].columns, vec!["A"]);
        assert_eq!(
            *query.with[0].query,
            Query::from_body(select_one_from_dual("1"))
        );
        assert_eq!(query.with[1].name, "Y");
        assert!(query.with[1].columns.is_empty());
        assert_eq!(
            query.body,
            SetExpr::Select(Box::new(plain_select(
                vec![SelectItem::Wildcard],
                vec![table("Y")]
            )))
        );
    }

    #[test]
    fn ansi_joins_nest_to_the_left() {
        let from =
            select("SELECT * FROM A JOIN B ON A.ID = B.ID LEFT OUTER JOIN C USING (ID, X)").from;
        assert_eq!(
            from,
            vec![TableReference::Join {
                left: Box::new(TableReference::Join {
                    left: Box::new(table("A")),
                    right: Box::new(table("B")),
                    kind: JoinKind::Inner,
                    condition: JoinCondition::On(binary(
                        qualified_column("A", "ID"),
                        BinaryOperator::Equal,
                        qualified_column("B", "ID")
                    )),
                }),
                right: Box::new(table("C")),
                kind: JoinKind::Left,
                condition: JoinCondition::Using(vec!["ID".into(), "X".into()]),
            }]
        );
        let from = select(
            "SELECT * FROM A INNER JOIN B ON 1 = 1 CROSS JOIN C NATURAL JOIN D RIGHT JOIN E ON 1 = 1 \
             FULL OUTER JOIN F ON 1 = 1 NATURAL LEFT JOIN G, H",
        )
        .from;
        let mut kinds = Vec::new();
        let mut reference = &from[0];
        while let TableReference::Join {
            left,
            kind,
            condition,
            ..
        } = reference
        {
            kinds.push((*kind, matches!(condition, JoinCondition::Natural)));
            reference = left;
        }
        use JoinKind::*;
        assert_eq!(
            kinds,
            vec![
                (Left, true),
                (Full, false),
                (Right, false),
                (Inner, true),
                (Cross, false),
                (Inner, false)
            ]
        );
        assert_eq!(from[1], table("H"));
    }

    #[test]
    fn inline_views_and_parenthesized_joins() {
        let from = select("SELECT * FROM (SELECT 1 FROM DUAL) v, ((SELECT 1 FROM DUAL)) AS w, (A JOIN B USING (X))").from;
        let view = |alias: &str| TableReference::Subquery {
            query: Box::new(Query::from_body(select_one_from_dual("1"))),
            alias: Some(alias.into()),
        };
        assert_eq!(from[0], view("V"));
        assert_eq!(from[1], view("W"));
        assert_eq!(
            from[2],
            TableReference::Join {
                left: Box::new(table("A")),
                right: Box::new(table("B")),
                kind: JoinKind::Inner,
                condition: JoinCondition::Using(vec!["X".into()])
            }
        );
    }

    #[test]
    fn aliases_are_never_reserved_words() {
        assert_eq!(
            select("SELECT A text FROM T").projection,
            vec![SelectItem::Expression {
                expr: column("A"),
                alias: Some("TEXT".into())
            }]
        );
        assert_eq!(select("SELECT A FROM T LEFT JOIN U ON 1 = 1").from.len(), 1);
        assert_error("SELECT 1 AS FROM DUAL", 923, "FROM");
        assert_error("SELECT A B C FROM T", 923, "C FROM");
        assert_error("SELECT 1 FROM DUAL X Y", 933, "Y");
        assert_error("SELECT 1 FROM DUAL WHERE 1 = 1 2", 933, "2");
    }

    #[test]
    fn from_may_be_left_out_as_in_postgresql() {
        assert_eq!(select("SELECT 1").from, vec![]);
        assert_eq!(select("SELECT 1;").from, vec![]);
        assert!(matches!(
            query("SELECT 1 UNION SELECT 2").body,
            SetExpr::SetOperation { .. }
        ));
        assert_eq!(
            expression("(SELECT 1)"),
            Expr::ScalarSubquery(Box::new(Query::from_body(SetExpr::Select(Box::new(
                plain_select(vec![item(number("1"))], vec![])
            )))))
        );
        assert_error("SELECT 1 2 FROM DUAL", 923, "2");
    }

    // ---- DML -----------------------------------------------------------------------------------

    #[test]
    fn insert_values_and_queries() {
        assert_eq!(
            parse_ok("INSERT /*+ APPEND */ INTO scott.t (a, \"b\") VALUES (1, 'x'), (:v, NULL)"),
            Statement::Insert {
                hint: Some("APPEND".into()),
                table: ObjectName::qualified("SCOTT", "T"),
                columns: Some(vec!["A".into(), "b".into()]),
                source: InsertSource::Values(vec![
                    vec![number("1"), string("x")],
                    vec![bind("V", 0), Expr::Literal(Literal::Null)]
                ]),
            }
        );
        let from_query = |sql: &str| match parse_ok(sql) {
            Statement::Insert {
                columns,
                source: InsertSource::Query(query),
                ..
            } => (columns, *query),
            other => panic!("{sql}: {other:?}"),
        };
        let one = Query::from_body(select_one_from_dual("1"));
        assert_eq!(
            from_query("INSERT INTO T SELECT 1 FROM DUAL"),
            (None, one.clone())
        );
        assert_eq!(
            from_query("INSERT INTO T (A) (SELECT 1 FROM DUAL)"),
            (Some(vec!["A".into()]), one)
        );
        assert_eq!(
            from_query("INSERT INTO T WITH X AS (SELECT 1 FROM DUAL) SELECT * FROM X")
                .1
                .with
                .len(),
            1
        );
    }

    #[test]
    fn update_with_alias_and_qualified_columns() {
        assert_eq!(
            parse_ok(
                "UPDATE /*+ INDEX(e) */ emp e SET e.sal = sal * 1.1, comm = NULL WHERE empno = :1"
            ),
            Statement::Update {
                hint: Some("INDEX(e)".into()),
                table: ObjectName::new("EMP"),
                alias: Some("E".into()),
                assignments: vec![
                    (
                        "SAL".into(),
                        binary(column("SAL"), BinaryOperator::Multiply, number("1.1"))
                    ),
                    ("COMM".into(), Expr::Literal(Literal::Null)),
                ],
                where_clause: Some(binary(column("EMPNO"), BinaryOperator::Equal, bind("1", 0))),
            }
        );
        assert!(parse("UPDATE scott.emp SET scott.emp.sal = 1").is_ok());
        assert!(parse("UPDATE emp SET emp.sal = 1").is_ok());
        let error = parse("UPDATE emp e SET x.sal = 1").unwrap_err();
        assert_eq!(
            (error.code(), error.message(), error.position()),
            (904, "\"X\".\"SAL\": invalid identifier", Some(17))
        );
        assert_error(
            "UPDATE emp SET (a, b) = (SELECT 1, 2 FROM DUAL)",
            3001,
            "(a",
        );
    }

    #[test]
    fn delete_with_and_without_from() {
        let expected = Statement::Delete {
            hint: None,
            table: ObjectName::new("T"),
            alias: None,
            where_clause: Some(binary(column("A"), BinaryOperator::Equal, number("1"))),
        };
        assert_eq!(parse_ok("DELETE T WHERE A = 1"), expected);
        assert_eq!(parse_ok("DELETE FROM T WHERE A = 1"), expected);
        assert_eq!(
            parse_ok("DELETE /*+ FULL(x) */ FROM T x"),
            Statement::Delete {
                hint: Some("FULL(x)".into()),
                table: ObjectName::new("T"),
                alias: Some("X".into()),
                where_clause: None
            }
        );
        assert_error("DELETE FROM T RETURNING A INTO :X", 3001, "RETURNING");
    }

    // ---- DDL -----------------------------------------------------------------------------------

    #[test]
    fn create_table_with_columns_constraints_and_storage() {
        let statement = parse_ok(
            "CREATE TABLE scott.t (
               id NUMBER(10) CONSTRAINT t_pk PRIMARY KEY,
               name VARCHAR2(30 CHAR) NOT NULL,
               code CHAR UNIQUE,
               price NUMBER(*, -2) DEFAULT 0 CONSTRAINT price_ck CHECK (price >= 0),
               dept_id INTEGER REFERENCES dept (id) ON DELETE CASCADE,
               created DATE DEFAULT SYSDATE NOT NULL,
               ts TIMESTAMP(3), f FLOAT(10), d DOUBLE PRECISION, b BOOLEAN, txt TEXT, v VARCHAR(10), n NUMBER,
               CONSTRAINT t_uk UNIQUE (name, code),
               CHECK (id > 0),
               FOREIGN KEY (dept_id) REFERENCES dept ON DELETE SET NULL
             ) PCTFREE 20 TABLESPACE users STORAGE (INITIAL 64K NEXT 1M BUFFER_POOL KEEP) NOLOGGING CACHE",
        );
        let Statement::CreateTable {
            name,
            if_not_exists,
            columns,
            constraints,
            as_query,
            storage,
            cache,
            ..
        } = statement
        else {
            panic!("not CREATE TABLE");
        };
        assert_eq!(name, ObjectName::qualified("SCOTT", "T"));
        assert!(!if_not_exists && as_query.is_none());
        assert_eq!(
            storage,
            StorageClause {
                buffer_pool: Some(BufferPool::Keep),
                pctfree: Some(20)
            }
        );
        assert_eq!(cache, Some(true));

        let mut id = ColumnDef::new(
            "ID",
            DataType::Number {
                precision: Some(10),
                scale: None,
            },
        );
        id.primary_key = true;
        id.primary_key_constraint_name = Some("T_PK".into());
        let mut name = ColumnDef::new("NAME", DataType::Varchar2 { length: 30 });
        name.not_null = true;
        let mut code = ColumnDef::new("CODE", DataType::Char { length: 1 });
        code.unique = true;
        let mut price = ColumnDef::new(
            "PRICE",
            DataType::Number {
                precision: None,
                scale: Some(-2),
            },
        );
        price.default = Some(number("0"));
        price.constraints.push(TableConstraint {
            name: Some("PRICE_CK".into()),
            kind: TableConstraintKind::Check(binary(
                column("PRICE"),
                BinaryOperator::GreaterOrEqual,
                number("0"),
            )),
        });
        let mut dept_id = ColumnDef::new("DEPT_ID", DataType::Integer);
        dept_id.constraints.push(TableConstraint {
            name: None,
            kind: TableConstraintKind::ForeignKey {
                columns: vec!["DEPT_ID".into()],
                references: ForeignKeyReference {
                    table: ObjectName::new("DEPT"),
                    columns: vec!["ID".into()],
                    on_delete: Some(ReferentialAction::Cascade),
                },
            },
        });
        let mut created = ColumnDef::new("CREATED", DataType::Date);
        created.default = Some(function("SYSDATE", vec![]));
        created.not_null = true;
        let expected_columns = vec![
            id,
            name,
            code,
            price,
            dept_id,
            created,
            ColumnDef::new("TS", DataType::Timestamp { precision: Some(3) }),
            ColumnDef::new("F", DataType::Float),
            ColumnDef::new("D", DataType::Float),
            ColumnDef::new("B", DataType::Boolean),
            ColumnDef::new("TXT", DataType::Varchar2 { length: 4000 }),
            ColumnDef::new("V", DataType::Varchar2 { length: 10 }),
            ColumnDef::new(
                "N",
                DataType::Number {
                    precision: None,
                    scale: None,
                },
            ),
        ];
        assert_eq!(columns, expected_columns);
        assert_eq!(
            constraints,
            vec![
                TableConstraint {
                    name: Some("T_UK".into()),
                    kind: TableConstraintKind::Unique {
                        columns: vec!["NAME".into(), "CODE".into()]
                    }
                },
                TableConstraint {
                    name: None,
                    kind: TableConstraintKind::Check(binary(
                        column("ID"),
                        BinaryOperator::Greater,
                        number("0")
                    ))
                },
                TableConstraint {
                    name: None,
                    kind: TableConstraintKind::ForeignKey {
                        columns: vec!["DEPT_ID".into()],
                        references: ForeignKeyReference {
                            table: ObjectName::new("DEPT"),
                            columns: vec![],
                            on_delete: Some(ReferentialAction::SetNull)
                        },
                    }
                },
            ]
        );
    }

    #[test]
    fn create_table_as_select_and_postgresql_forms() {
        let Statement::CreateTable {
            columns,
            as_query,
            cache,
            storage,
            ..
        } = parse_ok("CREATE TABLE t2 NOCACHE STORAGE (BUFFER_POOL RECYCLE) AS SELECT * FROM t")
        else {
            panic!("not CREATE TABLE");
        };
        assert!(columns.is_empty());
        let Statement::CreateTable {
            column_names,
            as_query: named_query,
            ..
        } = parse_ok("CREATE TABLE t3 (a, \"b\") AS SELECT 1, 2 FROM dual")
        else {
            panic!("not CREATE TABLE");
        };
        assert_eq!(column_names, vec!["A".to_string(), "b".to_string()]);
        assert!(named_query.is_some());
        assert_eq!(parse("CREATE TABLE t4 (a, b)").unwrap_err().code(), 902);
        assert_eq!(cache, Some(false));
        assert_eq!(storage.buffer_pool, Some(BufferPool::Recycle));
        assert_eq!(
            *as_query.expect("AS query"),
            Query::from_body(SetExpr::Select(Box::new(plain_select(
                vec![SelectItem::Wildcard],
                vec![table("T")]
            ))))
        );
        let Statement::CreateTable { if_not_exists, columns, storage, .. } =
            parse_ok("CREATE TABLE IF NOT EXISTS pgbench_branches (bid int not null, bbalance int, filler char(88)) WITH (fillfactor=100)")
        else {
            panic!("not CREATE TABLE");
        };
        assert!(if_not_exists);
        assert_eq!(columns.len(), 3);
        assert_eq!(columns[2].data_type, DataType::Char { length: 88 });
        assert_eq!(storage, StorageClause::default());
    }

    #[test]
    fn data_type_errors() {
        assert_error("CREATE TABLE T (A FOO)", 902, "FOO");
        assert_error("CREATE TABLE T (A DOUBLE)", 902, "DOUBLE");
        assert_error("CREATE TABLE T (A NUMBER(39))", 1727, "39");
        assert_error("CREATE TABLE T (A NUMBER(0))", 1727, "0");
        assert_error("CREATE TABLE T (A NUMBER(5, 128))", 1728, "128");
        assert_error("CREATE TABLE T (A NUMBER(5, -85))", 1728, "-85");
        assert_error("CREATE TABLE T (A VARCHAR2)", 906, ")");
        assert_error("CREATE TABLE T (A VARCHAR2(99999999999))", 910, "999");
        assert_error("CREATE TABLE T (A TIMESTAMP(10))", 30088, "10");
        assert_error("CREATE TABLE T (A TIMESTAMP WITH TIME ZONE)", 3001, "WITH");
        assert_error("CREATE TABLE T (A NUMBER) PCTFREE 100", 2211, "100");
    }

    #[test]
    fn drop_and_truncate() {
        assert_eq!(
            parse_ok("DROP TABLE scott.t CASCADE CONSTRAINTS PURGE"),
            Statement::DropTable {
                names: vec![ObjectName::qualified("SCOTT", "T")],
                if_exists: false,
                purge: true,
                cascade_constraints: true
            }
        );
        assert_eq!(
            parse_ok("DROP TABLE IF EXISTS t"),
            Statement::DropTable {
                names: vec![ObjectName::new("T")],
                if_exists: true,
                purge: false,
                cascade_constraints: false
            }
        );
        // pgbench's first statement: PostgreSQL drops a list of tables.
        assert_eq!(
            parse_ok("drop table if exists pgbench_accounts, pgbench_branches, s.pgbench_history"),
            Statement::DropTable {
                names: vec![
                    ObjectName::new("PGBENCH_ACCOUNTS"),
                    ObjectName::new("PGBENCH_BRANCHES"),
                    ObjectName::qualified("S", "PGBENCH_HISTORY")
                ],
                if_exists: true,
                purge: false,
                cascade_constraints: false
            }
        );
        assert_error("DROP TABLE a, ", 903, "");
        assert_eq!(
            parse_ok("TRUNCATE TABLE t DROP STORAGE"),
            Statement::Truncate {
                tables: vec![ObjectName::new("T")]
            }
        );
        assert_eq!(
            parse_ok("TRUNCATE a, s.b RESTART IDENTITY CASCADE"),
            Statement::Truncate {
                tables: vec![ObjectName::new("A"), ObjectName::qualified("S", "B")]
            }
        );
        assert_eq!(
            parse_ok("DROP INDEX s.i"),
            Statement::DropIndex {
                name: ObjectName::qualified("S", "I")
            }
        );
        assert_eq!(
            parse_ok("DROP VIEW v"),
            Statement::DropView {
                name: ObjectName::new("V")
            }
        );
        assert_eq!(
            parse_ok("DROP SEQUENCE q"),
            Statement::DropSequence {
                name: ObjectName::new("Q")
            }
        );
    }

    #[test]
    fn indexes() {
        assert_eq!(
            parse_ok(
                "CREATE UNIQUE INDEX scott.i ON scott.t (a, b DESC, c ASC) TABLESPACE x \
                 STORAGE (BUFFER_POOL RECYCLE) PCTFREE 5 ONLINE COMPUTE STATISTICS"
            ),
            Statement::CreateIndex {
                name: ObjectName::qualified("SCOTT", "I"),
                unique: true,
                table: ObjectName::qualified("SCOTT", "T"),
                columns: vec![("A".into(), false), ("B".into(), true), ("C".into(), false)],
                storage: StorageClause {
                    buffer_pool: Some(BufferPool::Recycle),
                    pctfree: Some(5)
                },
            }
        );
        assert!(matches!(
            parse_ok("CREATE INDEX pgbench_i ON pgbench_accounts (aid) WITH (fillfactor = 90)"),
            Statement::CreateIndex { unique: false, .. }
        ));
        assert_eq!(
            parse_ok("ALTER INDEX i REBUILD ONLINE STORAGE (BUFFER_POOL KEEP)"),
            Statement::AlterIndex {
                name: ObjectName::new("I"),
                action: AlterIndexAction::Rebuild {
                    storage: StorageClause {
                        buffer_pool: Some(BufferPool::Keep),
                        pctfree: None
                    }
                }
            }
        );
        assert_eq!(
            parse_ok("ALTER INDEX i STORAGE (BUFFER_POOL DEFAULT)"),
            Statement::AlterIndex {
                name: ObjectName::new("I"),
                action: AlterIndexAction::Storage(StorageClause {
                    buffer_pool: Some(BufferPool::Default),
                    pctfree: None
                })
            }
        );
        assert_error("ALTER INDEX i UNUSABLE", 2243, "UNUSABLE");
        assert_error("CREATE INDEX i t (a)", 969, "t (a)");
        assert_error("CREATE INDEX i ON t (a) REVERSE", 2158, "REVERSE");
    }

    /// Seed 001's example and every option of Oracle's STORAGE clause parse; only
    /// BUFFER_POOL is kept. Bad clauses are ORA-02143 (a word that is no option), ORA-00922
    /// (an option without its value, a pool that does not exist) or ORA-00907, at the
    /// offending token.
    #[test]
    fn storage_clauses() {
        let pool = |sql: &str| match parse_ok(sql) {
            Statement::CreateTable { storage, .. } | Statement::CreateIndex { storage, .. } => {
                storage.buffer_pool
            }
            Statement::AlterTable {
                action: AlterTableAction::Attributes { storage, .. },
                ..
            }
            | Statement::AlterIndex {
                action: AlterIndexAction::Storage(storage),
                ..
            } => storage.buffer_pool,
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(
            pool(
                "CREATE TABLE new_table (col1 NUMBER, col2 VARCHAR2(100)) TABLESPACE users \
                 STORAGE (INITIAL 64K NEXT 128K BUFFER_POOL KEEP)"
            ),
            Some(BufferPool::Keep)
        );
        assert_eq!(
            pool(
                "CREATE TABLE t (a NUMBER) STORAGE (INITIAL 1M NEXT 10 MINEXTENTS 1 \
                 MAXEXTENTS UNLIMITED PCTINCREASE 0 FREELISTS 4 FREELIST GROUPS 2 \
                 buffer_pool recycle)"
            ),
            Some(BufferPool::Recycle)
        );
        assert_eq!(
            pool("CREATE TABLE t (a NUMBER) STORAGE (MAXEXTENTS 505 INITIAL 2G NEXT 1T)"),
            None
        );
        // The last BUFFER_POOL said counts, as the last of any option.
        assert_eq!(
            pool("CREATE INDEX i ON t (a) STORAGE (BUFFER_POOL KEEP BUFFER_POOL DEFAULT)"),
            Some(BufferPool::Default)
        );
        assert_eq!(
            pool("ALTER INDEX i STORAGE (NEXT 64K BUFFER_POOL RECYCLE)"),
            Some(BufferPool::Recycle)
        );
        assert_eq!(
            pool("ALTER TABLE t STORAGE (BUFFER_POOL KEEP) CACHE"),
            Some(BufferPool::Keep)
        );
        let Statement::CreateTable { cache, .. } =
            parse_ok("CREATE TABLE t (a NUMBER) CACHE STORAGE (BUFFER_POOL KEEP) NOCACHE")
        else {
            panic!("not CREATE TABLE");
        };
        assert_eq!(cache, Some(false));

        let errors: &[(&str, u32, &str)] = &[
            ("CREATE TABLE t (a NUMBER) STORAGE (SIZE 10)", 2143, "SIZE"),
            ("ALTER TABLE t STORAGE ()", 2143, ")"),
            ("ALTER TABLE t STORAGE (INITIAL 64K, NEXT 1)", 2143, ","),
            ("ALTER TABLE t STORAGE (BUFFER_POOL HOT)", 922, "HOT"),
            ("ALTER TABLE t STORAGE (BUFFER_POOL)", 922, ")"),
            ("ALTER TABLE t STORAGE (INITIAL)", 922, ")"),
            ("ALTER TABLE t STORAGE (MAXEXTENTS LOTS)", 922, "LOTS"),
            ("ALTER TABLE t STORAGE (FREELIST 2)", 2143, "2"),
            ("ALTER TABLE t STORAGE (NEXT 99999999999)", 1722, "999"),
            ("ALTER TABLE t STORAGE (BUFFER_POOL KEEP", 907, ""),
            ("ALTER TABLE t STORAGE BUFFER_POOL KEEP", 906, "BUFFER_POOL"),
            (
                "CREATE INDEX i ON t (a) STORAGE (PCTFREE 5)",
                2143,
                "PCTFREE",
            ),
            ("ALTER TABLE t STORAGE (KEEP)", 2143, "KEEP"),
            ("ALTER INDEX i STORAGE (BUFFER_POOL KEPT)", 922, "KEPT"),
            ("ALTER TABLE t CACHE NOW", 933, "NOW"),
        ];
        for (sql, code, at) in errors {
            assert_error(sql, *code, at);
        }
    }

    #[test]
    fn alter_table_actions() {
        let action = |sql: &str| match parse_ok(sql) {
            Statement::AlterTable { action, .. } => action,
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(
            action("ALTER TABLE t ADD c NUMBER"),
            AlterTableAction::AddColumns(vec![ColumnDef::new(
                "C",
                DataType::Number {
                    precision: None,
                    scale: None
                }
            )])
        );
        assert_eq!(
            action("ALTER TABLE t ADD COLUMN c int"),
            AlterTableAction::AddColumns(vec![ColumnDef::new("C", DataType::Integer)])
        );
        let AlterTableAction::AddColumns(columns) =
            action("ALTER TABLE t ADD (c DATE, d VARCHAR2(5) DEFAULT 'x' NOT NULL)")
        else {
            panic!("not ADD");
        };
        assert_eq!(columns.len(), 2);
        assert_eq!(
            (columns[1].default.clone(), columns[1].not_null),
            (Some(string("x")), true)
        );
        assert_eq!(
            action("ALTER TABLE t ADD CONSTRAINT t_pk PRIMARY KEY (a, b)"),
            AlterTableAction::AddConstraint(TableConstraint {
                name: Some("T_PK".into()),
                kind: TableConstraintKind::PrimaryKey {
                    columns: vec!["A".into(), "B".into()]
                }
            })
        );
        assert!(matches!(
            action("ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES u (b)"),
            AlterTableAction::AddConstraint(TableConstraint {
                name: None,
                kind: TableConstraintKind::ForeignKey { .. }
            })
        ));
        assert!(matches!(
            action("ALTER TABLE t ADD UNIQUE (a)"),
            AlterTableAction::AddConstraint(_)
        ));
        assert!(matches!(
            action("ALTER TABLE t ADD CHECK (a > 0)"),
            AlterTableAction::AddConstraint(_)
        ));
        assert_eq!(
            action("ALTER TABLE t DROP COLUMN c"),
            AlterTableAction::DropColumn("C".into())
        );
        assert_eq!(
            action("ALTER TABLE t DROP CONSTRAINT t_pk"),
            AlterTableAction::DropConstraint("T_PK".into())
        );
        assert_eq!(
            action("ALTER TABLE t MODIFY (c VARCHAR2(20) NOT NULL, d DEFAULT 1)"),
            AlterTableAction::ModifyColumns(vec![
                ColumnModification {
                    name: "C".into(),
                    data_type: Some(DataType::Varchar2 { length: 20 }),
                    default: None,
                    not_null: Some(true)
                },
                ColumnModification {
                    name: "D".into(),
                    data_type: None,
                    default: Some(number("1")),
                    not_null: None
                },
            ])
        );
        assert_eq!(
            action("ALTER TABLE t MODIFY c NULL"),
            AlterTableAction::ModifyColumns(vec![ColumnModification {
                name: "C".into(),
                data_type: None,
                default: None,
                not_null: Some(false)
            }])
        );
        assert_eq!(
            action("ALTER TABLE t RENAME TO u"),
            AlterTableAction::RenameTo("U".into())
        );
        assert_eq!(
            parse_ok("COMMENT ON COLUMN s.t.c IS 'it''s'"),
            Statement::Comment {
                table: ObjectName::qualified("S", "T"),
                column: Some("C".into()),
                text: "it's".into()
            }
        );
        assert_eq!(
            parse_ok("COMMENT ON TABLE t IS ''"),
            Statement::Comment {
                table: ObjectName::new("T"),
                column: None,
                text: String::new()
            }
        );
        assert_eq!(
            action("ALTER TABLE t DROP PRIMARY KEY"),
            AlterTableAction::DropPrimaryKey
        );
        assert_eq!(
            action("ALTER TABLE t DROP UNIQUE (a, b)"),
            AlterTableAction::DropUnique(vec!["A".into(), "B".into()])
        );
        assert_eq!(
            parse_ok("RENAME t TO u"),
            Statement::Rename {
                from: ObjectName::new("T"),
                to: ObjectName::new("U")
            }
        );
        assert_eq!(
            action("ALTER TABLE t RENAME COLUMN a TO b"),
            AlterTableAction::RenameColumn {
                from: "A".into(),
                to: "B".into()
            }
        );
        assert_eq!(
            action("ALTER TABLE t STORAGE (BUFFER_POOL KEEP) PCTFREE 10"),
            AlterTableAction::Attributes {
                storage: StorageClause {
                    buffer_pool: Some(BufferPool::Keep),
                    pctfree: Some(10)
                },
                cache: None
            }
        );
        let cache_only = |cache| AlterTableAction::Attributes {
            storage: StorageClause::default(),
            cache: Some(cache),
        };
        assert_eq!(action("ALTER TABLE t CACHE"), cache_only(true));
        assert_eq!(action("ALTER TABLE t NOCACHE"), cache_only(false));
        assert_eq!(
            action("ALTER TABLE t NOCACHE STORAGE (BUFFER_POOL RECYCLE)"),
            AlterTableAction::Attributes {
                storage: StorageClause {
                    buffer_pool: Some(BufferPool::Recycle),
                    pctfree: None
                },
                cache: Some(false)
            }
        );
        assert_error("ALTER TABLE t SHRINK SPACE", 1735, "SHRINK");
        assert_error("ALTER TABLE t DROP c", 905, "c");
    }

    #[test]
    fn sequences() {
        use SequenceOption::*;
        assert_eq!(
            parse_ok("CREATE SEQUENCE s START WITH -5 INCREMENT BY -1 MINVALUE -100 MAXVALUE 0 CACHE 20 CYCLE ORDER"),
            Statement::CreateSequence {
                name: ObjectName::new("S"),
                options: vec![StartWith(-5), IncrementBy(-1), MinValue(-100), MaxValue(0), Cache(20), Cycle, Order]
            }
        );
        assert_eq!(
            parse_ok("CREATE SEQUENCE s NOMINVALUE NOMAXVALUE NOCACHE NOCYCLE NOORDER MAXVALUE 9999999999999999999999999999"),
            Statement::CreateSequence {
                name: ObjectName::new("S"),
                options: vec![NoMinValue, NoMaxValue, NoCache, NoCycle, NoOrder, MaxValue(9_999_999_999_999_999_999_999_999_999)]
            }
        );
        assert_eq!(
            parse_ok("CREATE SEQUENCE s START 1 INCREMENT 2 NO MAXVALUE NO CYCLE"),
            Statement::CreateSequence {
                name: ObjectName::new("S"),
                options: vec![StartWith(1), IncrementBy(2), NoMaxValue, NoCycle]
            }
        );
        assert_eq!(
            parse_ok("CREATE SEQUENCE s"),
            Statement::CreateSequence {
                name: ObjectName::new("S"),
                options: vec![]
            }
        );
        assert_eq!(
            parse_ok("ALTER SEQUENCE s INCREMENT BY 10"),
            Statement::AlterSequence {
                name: ObjectName::new("S"),
                options: vec![IncrementBy(10)]
            }
        );
        assert_error("ALTER SEQUENCE s", 2286, "");
        assert_error("CREATE SEQUENCE s START WITH 1.5", 1722, "1.5");
        assert_error("CREATE SEQUENCE s CYCLES", 933, "CYCLES");
    }

    #[test]
    fn views() {
        assert_eq!(
            parse_ok("CREATE OR REPLACE FORCE VIEW v (a) AS SELECT 1 FROM DUAL"),
            Statement::CreateView {
                or_replace: true,
                name: ObjectName::new("V"),
                columns: vec!["A".into()],
                query: Box::new(Query::from_body(select_one_from_dual("1")))
            }
        );
        assert!(matches!(
            parse_ok("CREATE VIEW s.v AS SELECT 1 FROM DUAL"),
            Statement::CreateView {
                or_replace: false,
                ..
            }
        ));
        assert_error("CREATE OR REPLACE TABLE t (a int)", 922, "TABLE");
        assert_error("CREATE VIEW v SELECT 1 FROM DUAL", 905, "SELECT");
    }

    // ---- Transactions, sessions and the system -------------------------------------------------

    #[test]
    fn transaction_control() {
        assert_eq!(parse_ok("COMMIT"), Statement::Commit { write: None });
        assert_eq!(parse_ok("commit work;"), Statement::Commit { write: None });
        assert_eq!(parse_ok("END"), Statement::Commit { write: None });
        assert_eq!(
            parse_ok("COMMIT WRITE NOWAIT BATCH"),
            Statement::Commit {
                write: Some(CommitWrite {
                    wait: Some(false),
                    immediate: Some(false)
                })
            }
        );
        assert_eq!(
            parse_ok("COMMIT WORK WRITE IMMEDIATE WAIT"),
            Statement::Commit {
                write: Some(CommitWrite {
                    wait: Some(true),
                    immediate: Some(true)
                })
            }
        );
        assert_eq!(
            parse_ok("COMMIT WRITE"),
            Statement::Commit {
                write: Some(CommitWrite {
                    wait: None,
                    immediate: None
                })
            }
        );
        assert_eq!(
            parse_ok("ROLLBACK"),
            Statement::Rollback { to_savepoint: None }
        );
        assert_eq!(
            parse_ok("ROLLBACK WORK TO SAVEPOINT sp1"),
            Statement::Rollback {
                to_savepoint: Some("SP1".into())
            }
        );
        assert_eq!(
            parse_ok("ROLLBACK TO sp1"),
            Statement::Rollback {
                to_savepoint: Some("SP1".into())
            }
        );
        assert_eq!(
            parse_ok("SAVEPOINT sp1"),
            Statement::Savepoint("SP1".into())
        );
        for sql in [
            "BEGIN",
            "BEGIN;",
            "BEGIN WORK",
            "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE",
            "BEGIN ISOLATION LEVEL READ COMMITTED",
            "START TRANSACTION",
            "START TRANSACTION ISOLATION LEVEL SERIALIZABLE READ ONLY NOT DEFERRABLE",
        ] {
            assert_eq!(parse_ok(sql), Statement::Begin, "{sql}");
        }
        let error = parse("BEGIN NULL; END;").unwrap_err();
        assert_eq!((error.code(), error.position()), (900, Some(0)));
        assert_eq!(
            error.message(),
            "invalid SQL statement: PL/SQL blocks are not supported yet"
        );
        assert_eq!(
            parse("DECLARE x NUMBER; BEGIN NULL; END;")
                .unwrap_err()
                .code(),
            900
        );
        assert_error("COMMIT FORCE", 933, "FORCE");
    }

    #[test]
    fn alter_system() {
        let system = |sql: &str| match parse_ok(sql) {
            Statement::AlterSystem(action) => action,
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(
            system("ALTER SYSTEM SET db_cache_size = 64M SCOPE = MEMORY"),
            AlterSystemAction::Set {
                name: "DB_CACHE_SIZE".into(),
                values: vec![ParameterValue::Size("64M".into())],
                scope: Some(ParameterScope::Memory),
                sid: None
            }
        );
        assert_eq!(
            system(
                "ALTER SYSTEM SET \"_kgl_bucket_count\" = 4 COMMENT = 'why' SCOPE=SPFILE SID='*'"
            ),
            AlterSystemAction::Set {
                name: "_kgl_bucket_count".into(),
                values: vec![ParameterValue::Number("4".into())],
                scope: Some(ParameterScope::Spfile),
                sid: Some("*".into())
            }
        );
        assert!(
            matches!(system("ALTER SYSTEM SET _kgl_bucket_count = -1"), AlterSystemAction::Set { name, values, .. }
            if name == "_KGL_BUCKET_COUNT" && values == vec![ParameterValue::Number("-1".into())])
        );
        assert_eq!(
            system("ALTER SYSTEM SET db_block_lru_latches = (buffers:200, lru_latches:1), 'a', force, 1g DEFERRED"),
            AlterSystemAction::Set {
                name: "DB_BLOCK_LRU_LATCHES".into(),
                values: vec![
                    ParameterValue::List("(buffers:200, lru_latches:1)".into()),
                    ParameterValue::String("a".into()),
                    ParameterValue::Identifier("FORCE".into()),
                    ParameterValue::Size("1g".into()),
                ],
                scope: None,
                sid: None
            }
        );
        assert_eq!(
            system("ALTER SYSTEM CHECKPOINT"),
            AlterSystemAction::Checkpoint { local: false }
        );
        assert_eq!(
            system("ALTER SYSTEM CHECKPOINT GLOBAL"),
            AlterSystemAction::Checkpoint { local: false }
        );
        assert_eq!(
            system("ALTER SYSTEM CHECKPOINT LOCAL"),
            AlterSystemAction::Checkpoint { local: true }
        );
        assert_eq!(
            system("ALTER SYSTEM SWITCH LOGFILE"),
            AlterSystemAction::SwitchLogfile
        );
        assert_eq!(
            system("ALTER SYSTEM FLUSH BUFFER_CACHE"),
            AlterSystemAction::FlushBufferCache
        );
        assert_eq!(
            system("ALTER SYSTEM FLUSH SHARED_POOL"),
            AlterSystemAction::FlushSharedPool
        );
        assert_error("ALTER SYSTEM KILL SESSION '1,2'", 2065, "KILL");
        assert_error("ALTER SYSTEM SET x 1", 927, "1");
        assert_error("ALTER SYSTEM SET x = 1 SCOPE = NOWHERE", 922, "NOWHERE");
    }

    #[test]
    fn alter_session() {
        assert_eq!(
            parse_ok("ALTER SESSION SET EVENTS '10046 trace name context forever, level 12'"),
            Statement::AlterSession(vec![SessionSetting {
                name: "EVENTS".into(),
                value: ParameterValue::String("10046 trace name context forever, level 12".into())
            }])
        );
        assert_eq!(
            parse_ok("ALTER SESSION SET optimizer_mode = ALL_ROWS cursor_sharing = \"EXACT\""),
            Statement::AlterSession(vec![
                SessionSetting {
                    name: "OPTIMIZER_MODE".into(),
                    value: ParameterValue::Identifier("ALL_ROWS".into())
                },
                SessionSetting {
                    name: "CURSOR_SHARING".into(),
                    value: ParameterValue::Identifier("EXACT".into())
                },
            ])
        );
        assert_error("ALTER SESSION ENABLE PARALLEL DML", 2248, "ENABLE");
        assert_error("ALTER SESSION SET", 922, "");
    }

    #[test]
    fn explain_analyze_and_call() {
        assert_eq!(
            parse_ok("EXPLAIN PLAN SET STATEMENT_ID = 'q1' FOR SELECT 1 FROM DUAL"),
            Statement::Explain {
                statement_id: Some("q1".into()),
                statement: Box::new(Statement::Select(Box::new(Query::from_body(
                    select_one_from_dual("1")
                ))))
            }
        );
        assert!(matches!(
            parse_ok("EXPLAIN PLAN FOR DELETE FROM T"),
            Statement::Explain { statement_id: None, statement } if matches!(*statement, Statement::Delete { .. })
        ));
        assert_error("EXPLAIN PLAN FOR COMMIT", 900, "COMMIT");
        assert_error("EXPLAIN SELECT 1 FROM DUAL", 905, "SELECT");
        assert_error(
            "EXPLAIN PLAN SET STATEMENT_ID = q1 FOR SELECT 1 FROM DUAL",
            1780,
            "q1",
        );
        assert_eq!(
            parse_ok("ANALYZE TABLE scott.t COMPUTE STATISTICS"),
            Statement::Analyze {
                table: ObjectName::qualified("SCOTT", "T"),
                action: AnalyzeAction::Compute
            }
        );
        assert_eq!(
            parse_ok("ANALYZE TABLE t ESTIMATE STATISTICS SAMPLE 10 PERCENT"),
            Statement::Analyze {
                table: ObjectName::new("T"),
                action: AnalyzeAction::Estimate(Some(Sample::Percent(10)))
            }
        );
        assert_eq!(
            parse_ok("analyze table t estimate statistics sample 500 rows"),
            Statement::Analyze {
                table: ObjectName::new("T"),
                action: AnalyzeAction::Estimate(Some(Sample::Rows(500)))
            }
        );
        assert_eq!(
            parse_ok("ANALYZE TABLE t ESTIMATE STATISTICS"),
            Statement::Analyze {
                table: ObjectName::new("T"),
                action: AnalyzeAction::Estimate(None)
            }
        );
        assert_eq!(
            parse_ok("ANALYZE TABLE t DELETE STATISTICS"),
            Statement::Analyze {
                table: ObjectName::new("T"),
                action: AnalyzeAction::Delete
            }
        );
        assert_error("ANALYZE INDEX i COMPUTE STATISTICS", 1490, "INDEX");
        assert_error(
            "ANALYZE TABLE t COMPUTE STATISTICS SAMPLE 5 ROWS",
            933,
            "SAMPLE",
        );
        assert_error("ANALYZE TABLE t ESTIMATE STATISTICS SAMPLE 5", 905, "");
        assert_eq!(
            parse_ok("ANALYZE TABLE t COMPUTE STATISTICS FOR TABLE FOR ALL INDEXES FOR ALL INDEXED COLUMNS SIZE 254"),
            Statement::Analyze {
                table: ObjectName::new("T"),
                action: AnalyzeAction::Compute
            }
        );
        assert_error(
            "ANALYZE TABLE t COMPUTE STATISTICS FOR EVERYTHING",
            1490,
            "EVERYTHING",
        );
        let call = |name: &str, args: Vec<Expr>, named: Vec<(&str, Expr)>| ProcedureCall {
            name: name.into(),
            args,
            named: named
                .into_iter()
                .map(|(name, value)| (name.to_string(), value))
                .collect(),
        };
        assert_eq!(
            parse_ok("CALL p()"),
            Statement::Call(call("P", vec![], vec![]))
        );
        assert_eq!(
            parse_ok("CALL pkg.proc(1, 'x')"),
            Statement::Call(call("PKG.PROC", vec![number("1"), string("x")], vec![]))
        );
        assert_eq!(
            parse_ok(
                "call dbms_stats.gather_table_stats('SYSTEM', tabname => 'T', cascade => TRUE)"
            ),
            Statement::Call(call(
                "DBMS_STATS.GATHER_TABLE_STATS",
                vec![string("SYSTEM")],
                vec![
                    ("TABNAME", string("T")),
                    ("CASCADE", Expr::Literal(Literal::Boolean(true)))
                ]
            ))
        );
        assert_error("CALL p", 906, "");
        assert_error("CALL p(a => 1, 2)", 6550, "2");
    }

    /// An anonymous block of procedure calls is one statement (SQL*Plus's EXEC sends
    /// `BEGIN p; END;`); BEGIN alone stays PostgreSQL's transaction start, and any other
    /// PL/SQL is ORA-00900.
    #[test]
    fn blocks_of_procedure_calls() {
        let call = |name: &str, args: Vec<Expr>| ProcedureCall {
            name: name.into(),
            args,
            named: Vec::new(),
        };
        assert_eq!(
            parse_ok("BEGIN dbms_stats.gather_schema_stats('SYSTEM'); END;"),
            Statement::Block(vec![call(
                "DBMS_STATS.GATHER_SCHEMA_STATS",
                vec![string("SYSTEM")]
            )])
        );
        assert_eq!(
            parse_ok("begin p; q(1); end"),
            Statement::Block(vec![call("P", vec![]), call("Q", vec![number("1")])])
        );
        assert_eq!(
            parse_many("BEGIN p; END; SELECT 1 FROM dual")
                .unwrap()
                .len(),
            2
        );
        for sql in [
            "BEGIN NULL; END;",
            "BEGIN x := 1; END;",
            "BEGIN IF a THEN p; END IF; END;",
        ] {
            let error = parse(sql).unwrap_err();
            assert_eq!((error.code(), error.position()), (900, Some(0)), "{sql}");
        }
        assert_eq!(parse("BEGIN END;").unwrap_err().code(), 6550);
        assert_error("BEGIN p(1) END;", 933, "END");
    }

    fn call(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Function {
            name: name.to_string(),
            args,
            distinct: false,
            star: false,
        }
    }

    fn text(value: &str) -> Expr {
        Expr::Literal(Literal::String(value.to_string()))
    }

    #[test]
    fn postgresql_table_functions_in_from() {
        // pgbench's generator: the alias names the table and, PostgreSQL's rule for a
        // function of one column, the column.
        let from =
            select("select aid, (aid - 1) / 100000 + 1 from generate_series(1, 100000) as aid")
                .from;
        assert_eq!(
            from,
            vec![TableReference::TableFunction {
                name: "GENERATE_SERIES".into(),
                args: vec![number("1"), number("100000")],
                alias: Some("AID".into()),
                columns: Vec::new(),
            }]
        );
        let from = select("select * from pg_catalog.generate_series(0, 9, 3) g(x), t").from;
        assert_eq!(
            from[0],
            TableReference::TableFunction {
                name: "PG_CATALOG.GENERATE_SERIES".into(),
                args: vec![number("0"), number("9"), number("3")],
                alias: Some("G".into()),
                columns: vec!["X".into()],
            }
        );
        assert!(matches!(&from[1], TableReference::Table { name, .. } if name.name == "T"));
        // No alias, and Oracle's TABLE(...) form unchanged.
        assert!(matches!(
            &select("select * from generate_series(1, 2)").from[0],
            TableReference::TableFunction { alias: None, columns, .. } if columns.is_empty()
        ));
        assert!(matches!(
            &select("select * from table(dbms_xplan.display)").from[0],
            TableReference::TableFunction { name, .. } if name == "DBMS_XPLAN.DISPLAY"
        ));
        assert_error("select * from generate_series(1, 2) as g(x", 907, "");
        assert_error("select * from f(distinct a)", 903, "f(");
    }

    #[test]
    fn postgresql_operators_casts_and_arrays() {
        let regexp = |args: Vec<Expr>| call("REGEXP_LIKE", args);
        let not = |expr: Expr| Expr::Unary {
            op: UnaryOperator::Not,
            expr: Box::new(expr),
        };
        assert_eq!(condition("a ~ '^x'"), regexp(vec![column("A"), text("^x")]));
        assert_eq!(
            condition("a ~* 'x'"),
            regexp(vec![column("A"), text("x"), text("i")])
        );
        assert_eq!(
            condition("a !~ 'x'"),
            not(regexp(vec![column("A"), text("x")]))
        );
        assert_eq!(
            condition("a !~* 'x'"),
            not(regexp(vec![column("A"), text("x"), text("i")]))
        );
        // psql's \d pattern match: OPERATOR(schema.op) is the operator, COLLATE is read and
        // not kept, and binds tighter than the comparison.
        assert_eq!(
            condition("c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default AND b"),
            Expr::Binary {
                left: Box::new(regexp(vec![
                    qualified_column("C", "RELNAME"),
                    text("^(t)$")
                ])),
                op: BinaryOperator::And,
                right: Box::new(column("B")),
            }
        );
        assert_eq!(condition("a OPERATOR(=) 1"), condition("a = 1"));
        assert_eq!(
            condition("a operator(pg_catalog.+) 1 = 2"),
            condition("a + 1 = 2")
        );
        assert_eq!(condition("a COLLATE \"C\" < b"), condition("a < b"));
        assert_error("SELECT * FROM T WHERE a OPERATOR(pg_catalog.,) 1", 936, ",");
        assert_error("SELECT * FROM T WHERE a OPERATOR(~ 1", 907, "1");
        // Casts: the object identifier types are functions, an array type is its text.
        assert_eq!(
            expression("c.oid::pg_catalog.regclass::pg_catalog.text"),
            Expr::Cast {
                expr: Box::new(call("REGCLASS", vec![qualified_column("C", "OID")])),
                data_type: DataType::Varchar2 { length: 4000 },
            }
        );
        assert_eq!(
            expression("CAST(x AS regtype)"),
            call("REGTYPE", vec![column("X")])
        );
        assert_eq!(
            expression("p::pg_catalog.int2[]"),
            Expr::Cast {
                expr: Box::new(column("P")),
                data_type: DataType::Varchar2 { length: 4000 },
            }
        );
        assert_eq!(
            expression("x::oid"),
            Expr::Cast {
                expr: Box::new(column("X")),
                data_type: DataType::Integer,
            }
        );
        // Subscripts and ARRAY(query).
        assert_eq!(
            expression("prattrs[s + 1]"),
            call(
                ARRAY_ELEMENT,
                vec![
                    column("PRATTRS"),
                    binary(column("S"), BinaryOperator::Add, number("1"))
                ]
            )
        );
        assert_error("SELECT a[1 FROM DUAL", 907, "FROM");
        let Expr::Function { name, args, .. } =
            expression("array(select rolname from r order by 1)")
        else {
            panic!("ARRAY(query) is a function");
        };
        assert_eq!(name, "ARRAY");
        assert!(matches!(args.as_slice(), [Expr::ScalarSubquery(_)]));
        // ARRAY of something else is a call of a function ARRAY (unknown to the planner).
        assert_eq!(expression("array(1)"), call("ARRAY", vec![number("1")]));
    }

    #[test]
    fn postgresql_set_show_and_vacuum() {
        assert_eq!(
            parse_ok("SET search_path TO public, pg_catalog"),
            Statement::Set {
                name: "SEARCH_PATH".into(),
                value: ParameterValue::List("public, pg_catalog".into())
            }
        );
        assert_eq!(
            parse_ok("SET client_encoding = 'UTF8'"),
            Statement::Set {
                name: "CLIENT_ENCODING".into(),
                value: ParameterValue::String("UTF8".into())
            }
        );
        assert_eq!(
            parse_ok("SET SESSION statement_timeout = 0"),
            Statement::Set {
                name: "STATEMENT_TIMEOUT".into(),
                value: ParameterValue::Number("0".into())
            }
        );
        assert_eq!(
            parse_ok("SET TIME ZONE 'UTC'"),
            Statement::Set {
                name: "TIMEZONE".into(),
                value: ParameterValue::String("UTC".into())
            }
        );
        assert_eq!(
            parse_ok("SET myapp.mode TO DEFAULT"),
            Statement::Set {
                name: "MYAPP.MODE".into(),
                value: ParameterValue::Identifier("DEFAULT".into())
            }
        );
        assert_error("SET x 1", 922, "1");
        assert_eq!(
            parse_ok("SHOW server_version"),
            Statement::Show("SERVER_VERSION".into())
        );
        assert_eq!(parse_ok("SHOW ALL"), Statement::Show("ALL".into()));
        assert_eq!(
            parse_ok("SHOW TRANSACTION ISOLATION LEVEL"),
            Statement::Show("TRANSACTION_ISOLATION".into())
        );
        let vacuum = |analyze: bool, tables: &[&str]| Statement::Vacuum {
            analyze,
            tables: tables.iter().map(|name| ObjectName::new(*name)).collect(),
        };
        assert_eq!(
            parse_ok("VACUUM ANALYZE pgbench_accounts"),
            vacuum(true, &["PGBENCH_ACCOUNTS"])
        );
        assert_eq!(parse_ok("VACUUM"), vacuum(false, &[]));
        // What pgbench -i sends: a list of tables.
        assert_eq!(
            parse_ok("vacuum analyze pgbench_branches, pgbench_tellers"),
            vacuum(true, &["PGBENCH_BRANCHES", "PGBENCH_TELLERS"])
        );
        assert_eq!(
            parse_ok("VACUUM FULL FREEZE VERBOSE t (a, b), u"),
            vacuum(false, &["T", "U"])
        );
        assert_eq!(
            parse_ok("VACUUM (VERBOSE, ANALYZE) t"),
            vacuum(true, &["T"])
        );
        assert_eq!(
            parse_ok("VACUUM (ANALYZE off, PARALLEL 2, INDEX_CLEANUP 'auto')"),
            vacuum(false, &[])
        );
        assert_error("VACUUM (ANALYZE", 907, "");
        assert_error("VACUUM t u", 933, "u");
    }

    #[test]
    fn parse_many_splits_on_top_level_semicolons() {
        let statements =
            parse_many("SELECT :a FROM DUAL; COMMIT;; SELECT ';' FROM DUAL WHERE B = :b;").unwrap();
        assert_eq!(statements.len(), 3);
        assert_eq!(statements[1], Statement::Commit { write: None });
        assert_eq!(statements[0].bind_count(), 1);
        let Statement::Select(last) = &statements[2] else {
            panic!("not a query")
        };
        let SetExpr::Select(block) = &last.body else {
            panic!("not a block")
        };
        assert_eq!(
            block.where_clause,
            Some(binary(column("B"), BinaryOperator::Equal, bind("B", 0)))
        );
        assert_eq!(parse_many("").unwrap(), vec![]);
        assert_eq!(parse_many(" ; -- nothing\n").unwrap(), vec![]);
        let error = parse_many("COMMIT; SELEC 1").unwrap_err();
        assert_eq!((error.code(), error.position()), (900, Some(8)));
        let error = parse_many("COMMIT ROLLBACK").unwrap_err();
        assert_eq!((error.code(), error.position()), (933, Some(7)));
    }

    // ---- Errors --------------------------------------------------------------------------------

    #[test]
    fn errors_name_the_oracle_code_and_the_offending_token() {
        assert_error("", 900, "");
        assert_error("SELEC 1 FROM DUAL", 900, "SELEC");
        assert_error("SELECT FROM DUAL", 936, "FROM");
        assert_error("SELECT 1 FROM", 903, "");
        assert_error("SELECT 1 FROM WHERE", 903, "WHERE");
        assert_error("SELECT 1 FROM DUAL WHERE", 936, "");
        assert_error("SELECT * FROM T WHERE (A = 1", 907, "");
        assert_error("SELECT * FROM T WHERE A IN (1 2)", 907, "2");
        assert_error("SELECT F(1 2) FROM DUAL", 907, "2");
        assert_error("INSERT INTO T VALUES (1 2)", 917, "2");
        assert_error("INSERT INTO T (A B) VALUES (1)", 917, "B)");
        assert_error("INSERT INTO T VALUES 1", 906, "1");
        assert_error("INSERT INTO T (A) 1", 926, "1");
        assert_error("INSERT T VALUES (1)", 925, "T VALUES");
        assert_error("UPDATE T A = 1", 971, "=");
        assert_error("UPDATE T SET A 1", 927, "1");
        assert_error("SELECT * FROM T GROUP A", 924, "A");
        assert_error("SELECT * FROM T ORDER A", 924, "A");
        assert_error("SELECT * FROM T WHERE A IS 1", 908, "1");
        assert_error("CREATE TABLE T (A NUMBER B NUMBER)", 907, "B NUMBER");
        assert_error("CREATE TABLE T (A NUMBER) FOO", 922, "FOO");
        assert_error("CREATE TABLE T", 906, "");
        assert_error("CREATE TABL T", 901, "TABL");
        assert_error("DROP TABL T", 950, "TABL");
        assert_error("ALTER TABL T", 940, "TABL");
        assert_error("SELECT * FROM T JOIN U", 905, "");
        assert_error("SELECT * FROM T NATURAL X", 905, "X");
        assert_error("SELECT CASE WHEN 1 = 1 THEN 2 FROM DUAL", 905, "FROM");
        assert_error("SELECT CASE END FROM DUAL", 905, "FROM");
        assert_error("SELECT * FROM T WHERE A BETWEEN 1 2", 905, "2");
        assert_error("SELECT CAST(1 NUMBER) FROM DUAL", 905, "NUMBER");
        assert_error("SELECT * FROM T WHERE EXISTS 1", 906, "1");
        assert_error("SELECT * FROM T WHERE EXISTS (1)", 928, "1");
        assert_error("SELECT 1 FROM DUAL; SELECT 2 FROM DUAL", 933, "SELECT 2");
        assert_error("SELECT 1 UNION 2", 928, "2");
        assert_error("SELECT _X FROM DUAL", 911, "_X");
        assert_error("SELECT ROW_NUMBER() OVER (ORDER BY A) FROM T", 3001, "OVER");
        assert_error("SELECT * FROM T CONNECT BY PRIOR A = B", 3001, "CONNECT");
        assert_error("SELECT 'abc FROM DUAL", 1756, "'abc");
        assert_error("SELECT \"abc FROM DUAL", 1740, "\"abc");
        assert_error(&format!("SELECT {} FROM DUAL", "A".repeat(129)), 972, "AAA");
        assert_error("SELECT * FROM T WHERE A = 1 (+)", 933, "(+)");
    }

    #[test]
    fn invalid_identifier_messages_are_oracles() {
        let error = parse("CREATE TABLE T (SELECT NUMBER)").unwrap_err();
        assert_eq!(error.to_string(), "ORA-00904: : invalid identifier");
        assert_eq!(error.position(), Some(16));
        let error = parse("SELECT A.B.C.D FROM T").unwrap_err();
        assert_eq!(
            error.to_string(),
            "ORA-00904: \"A\".\"B\".\"C\".\"D\": invalid identifier"
        );
        assert_eq!(error.position(), Some(7));
        assert_eq!(
            parse("SELECT 1 FROM DUAL X Y").unwrap_err().to_string(),
            "ORA-00933: SQL command not properly ended"
        );
    }

    // ---- Limits --------------------------------------------------------------------------------

    /// Runs `check` on a thread with a 2 MiB stack, Rust's default for spawned threads.
    fn on_small_stack(check: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(check)
            .expect("spawn")
            .join()
            .expect("no stack overflow");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        on_small_stack(|| {
            let depth = 100_000;
            let cases = [
                format!(
                    "SELECT {}1{} FROM DUAL",
                    "(".repeat(depth),
                    ")".repeat(depth)
                ),
                format!("SELECT {}1 FROM DUAL", "- ".repeat(depth)),
                format!("SELECT * FROM DUAL WHERE {} 1 = 1", "NOT ".repeat(depth)),
                format!(
                    "SELECT * FROM {}DUAL{}",
                    "(SELECT * FROM ".repeat(depth),
                    ")".repeat(depth)
                ),
                format!(
                    "SELECT {}1{} FROM DUAL",
                    "(SELECT ".repeat(depth),
                    " FROM DUAL)".repeat(depth)
                ),
                format!(
                    "SELECT {}1{} FROM DUAL",
                    "F(".repeat(depth),
                    ")".repeat(depth)
                ),
                format!(
                    "SELECT {}1{} FROM DUAL",
                    "CASE WHEN 1 = 1 THEN ".repeat(depth),
                    " END".repeat(depth)
                ),
                format!("SELECT 1{} FROM DUAL", " + 1".repeat(depth)),
                format!("SELECT 1{} FROM DUAL", "::INT".repeat(depth)),
                format!(
                    "SELECT 1 FROM DUAL{}",
                    " UNION SELECT 1 FROM DUAL".repeat(depth)
                ),
                format!("SELECT 1 FROM T{}", " JOIN T ON 1 = 1".repeat(depth)),
                format!("SELECT 1 FROM {}T{}", "(".repeat(depth), ")".repeat(depth)),
                format!(
                    "SELECT * FROM T WHERE A IN {}1{}",
                    "(".repeat(depth),
                    ")".repeat(depth)
                ),
                format!(
                    "EXPLAIN PLAN FOR SELECT {}1{} FROM DUAL",
                    "(".repeat(depth),
                    ")".repeat(depth)
                ),
            ];
            for sql in &cases {
                let error = parse(sql).expect_err(&sql[..60]);
                assert_eq!(error.code(), 939, "{}: {error:?}", &sql[..60]);
                assert_eq!(
                    error.message(),
                    "statement nesting exceeds the limit of 200 levels"
                );
            }
        });
    }

    #[test]
    fn nesting_just_inside_the_limit_parses() {
        on_small_stack(|| {
            let depth = PARSE_DEPTH_MAX / 2;
            let sql = format!(
                "SELECT {}1{} FROM DUAL",
                "(".repeat(depth),
                ")".repeat(depth)
            );
            assert_eq!(select(&sql).projection, vec![item(number("1"))]);
            let sql = format!(
                "SELECT 1 FROM DUAL{}",
                " UNION SELECT 1 FROM DUAL".repeat(300)
            );
            assert!(parse(&sql).is_ok());
            let sql = format!(
                "SELECT * FROM T WHERE A IN ({})",
                vec!["1"; 100_000].join(", ")
            );
            assert!(parse(&sql).is_ok());
        });
    }

    /// Mixes of nesting and left-operand chains, which together could build a tree taller than
    /// either limit alone: every accepted tree stays under NODE_HEIGHT_MAX.
    #[test]
    fn every_accepted_tree_stays_under_the_height_limit() {
        on_small_stack(|| {
            // Each level of a shape is `open inner middle chain... close`, where the chain is an
            // operator repeated to grow a left-operand chain at that level.
            let shapes = [
                ("(", "", " + 1", ")"),
                ("(SELECT ", "", " FROM DUAL UNION SELECT 1", " FROM DUAL)"),
                ("(SELECT 1 FROM T WHERE A = ", "", " || 2", " ORDER BY 1)"),
                ("-(", "", "::INT", ")"),
                ("(SELECT 1 FROM T WHERE A = ", "", " AND B = 1", ")"),
                ("(SELECT ", " FROM T", " JOIN T ON 1 = 1", ")"),
            ];
            let mut tallest = 0;
            for nesting in [1, 10, 50, 100, 150, 199, 250] {
                for chain in [1, 3, 10, 100, 400] {
                    for (open, middle, operator, close) in shapes {
                        let level_end = format!("{middle}{}{close}", operator.repeat(chain));
                        let sql = format!(
                            "SELECT {}1{} FROM DUAL",
                            open.repeat(nesting),
                            level_end.repeat(nesting)
                        );
                        match parse(&sql) {
                            Ok(statement) => {
                                let height = Node::Statement(&statement).height();
                                assert!(height <= NODE_HEIGHT_MAX, "{height} > {NODE_HEIGHT_MAX}");
                                tallest = tallest.max(height);
                            }
                            Err(error) => assert_eq!(
                                error.code(),
                                939,
                                "{error:?}: {}",
                                &sql[..sql.len().min(200)]
                            ),
                        }
                    }
                }
            }
            eprintln!("tallest accepted tree: {tallest} of {NODE_HEIGHT_MAX}");
            assert!(
                tallest > NODE_HEIGHT_MAX / 2,
                "the shapes come near the limit: {tallest}"
            );
        });
    }

    // ---- Fuzzing -------------------------------------------------------------------------------

    /// xorshift64*: a small deterministic generator, so that failures reproduce.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    const VOCABULARY: &[&str] = &[
        "SELECT",
        "FROM",
        "WHERE",
        "GROUP",
        "BY",
        "ORDER",
        "HAVING",
        "UNION",
        "ALL",
        "MINUS",
        "INTERSECT",
        "JOIN",
        "LEFT",
        "OUTER",
        "ON",
        "USING",
        "AND",
        "OR",
        "NOT",
        "IN",
        "IS",
        "NULL",
        "LIKE",
        "ESCAPE",
        "BETWEEN",
        "EXISTS",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "CAST",
        "AS",
        "DISTINCT",
        "INSERT",
        "INTO",
        "VALUES",
        "UPDATE",
        "SET",
        "DELETE",
        "CREATE",
        "TABLE",
        "INDEX",
        "UNIQUE",
        "PRIMARY",
        "KEY",
        "CONSTRAINT",
        "CHECK",
        "REFERENCES",
        "DROP",
        "ALTER",
        "ADD",
        "MODIFY",
        "SEQUENCE",
        "START",
        "WITH",
        "VIEW",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT",
        "BEGIN",
        "SYSTEM",
        "SESSION",
        "EXPLAIN",
        "PLAN",
        "FOR",
        "FETCH",
        "FIRST",
        "ROWS",
        "ONLY",
        "OFFSET",
        "LIMIT",
        "NUMBER",
        "VARCHAR2",
        "DATE",
        "TIMESTAMP",
        "STORAGE",
        "BUFFER_POOL",
        "KEEP",
        "DUAL",
        "T",
        "A",
        "B",
        "\"Q\"",
        "ROWNUM",
        "SYSDATE",
        "COUNT",
        "1",
        "2.5",
        "'s'",
        "N'n'",
        ":1",
        ":b",
        "$1",
        "(",
        ")",
        ",",
        ".",
        "*",
        "+",
        "-",
        "/",
        "||",
        "=",
        "<>",
        "<",
        ">=",
        "::",
        "(+)",
        ";",
        "/*+ FULL(T) */",
        "ANY",
        "ALL",
        "TRUNCATE",
        "CALL",
        "SHOW",
        "VACUUM",
        "NEXTVAL",
        "64M",
        "ANALYZE",
        "CASCADE",
    ];

    const CORPUS: &[&str] = &[
        "SELECT /*+ FULL(E) */ E.*, COUNT(*) C FROM SCOTT.EMP E JOIN DEPT D ON E.DEPTNO = D.DEPTNO WHERE E.SAL > :1 GROUP BY E.ENAME HAVING COUNT(*) > 1 ORDER BY 2 DESC",
        "SELECT A FROM T WHERE B IN (SELECT C FROM U WHERE D = T.D) AND NOT EXISTS (SELECT 1 FROM V) OR X BETWEEN 1 AND 2",
        "WITH X AS (SELECT 1 A FROM DUAL) SELECT CASE WHEN A = 1 THEN 'a' ELSE 'b' END FROM X UNION ALL SELECT 'c' FROM DUAL",
        "INSERT INTO T (A, B) VALUES (1, 'x'), (:a, SYSDATE)",
        "UPDATE T X SET X.A = A + 1, B = NULL WHERE C LIKE 'a%' ESCAPE '!'",
        "DELETE FROM T WHERE ROWNUM <= 10 AND A.B(+) = C.D",
        "CREATE TABLE T (A NUMBER(5, 2) DEFAULT 0 NOT NULL PRIMARY KEY, B VARCHAR2(10) CHECK (B <> 'x'), CONSTRAINT U1 UNIQUE (B)) STORAGE (BUFFER_POOL KEEP) CACHE",
        "CREATE UNIQUE INDEX I ON T (A DESC, B) PCTFREE 10",
        "ALTER TABLE T ADD (C DATE, D TIMESTAMP(6))",
        "CREATE SEQUENCE S START WITH 1 INCREMENT BY 1 NOCACHE",
        "ALTER SYSTEM SET DB_CACHE_SIZE = 64M SCOPE = BOTH",
        "ALTER SESSION SET EVENTS '10046 trace name context forever, level 12'",
        "EXPLAIN PLAN SET STATEMENT_ID = 'x' FOR SELECT * FROM T FETCH FIRST 5 ROWS ONLY",
        "SELECT A::TEXT, CAST(B AS INT) FROM T LIMIT 10 OFFSET 5 FOR UPDATE NOWAIT",
        "COMMIT WRITE BATCH NOWAIT",
    ];

    /// Parses `sql`, which must not panic, and checks what a successful parse promises.
    fn parse_without_panic(sql: &str) {
        if let Ok(statement) = parse(sql) {
            let mut positions = Vec::new();
            Node::Statement(&statement).walk(&mut |node| {
                if let Node::Expr(Expr::Bind { position, .. }) = node {
                    positions.push(*position);
                }
            });
            positions.sort_unstable();
            assert!(
                positions.iter().copied().eq(0..positions.len()),
                "{sql}: bind positions {positions:?}"
            );
        }
        let _ = parse_many(sql);
    }

    #[test]
    fn corpus_parses() {
        for sql in CORPUS {
            parse_ok(sql);
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut random = Random(0x9E37_79B9_7F4A_7C15);
        let alphabet: Vec<u8> =
            b"SELECT FROM WHERE abcxyz_$#0123456789'\"`:;.,()+-*/|=<>!^%?@ \n\t"
                .iter()
                .copied()
                .chain([0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF])
                .collect();
        for _ in 0..10_000 {
            let length = random.below(48);
            let bytes: Vec<u8> = (0..length)
                .map(|_| alphabet[random.below(alphabet.len())])
                .collect();
            let sql = String::from_utf8_lossy(&bytes);
            let _ = tokenize(&sql);
            parse_without_panic(&sql);
        }
    }

    #[test]
    fn random_token_sequences_never_panic() {
        let mut random = Random(0xD1B5_4A32_D192_ED03);
        for _ in 0..10_000 {
            let length = 1 + random.below(30);
            let tokens: Vec<&str> = (0..length).map(|_| random.pick(VOCABULARY)).collect();
            parse_without_panic(&tokens.join(" "));
        }
    }

    #[test]
    fn mutated_statements_never_panic() {
        let mut random = Random(0x2545_F491_4F6C_DD1D);
        for _ in 0..10_000 {
            let sql = random.pick(CORPUS);
            let mut tokens: Vec<String> = tokenize(sql)
                .unwrap()
                .iter()
                .map(|token| token.text(sql).to_string())
                .collect();
            for _ in 0..1 + random.below(3) {
                let at = random.below(tokens.len());
                match random.below(4) {
                    0 => {
                        tokens.remove(at);
                    }
                    1 => tokens.insert(at, random.pick(VOCABULARY).to_string()),
                    2 => {
                        let other = random.below(tokens.len());
                        tokens.swap(at, other);
                    }
                    _ => tokens[at] = random.pick(VOCABULARY).to_string(),
                }
                if tokens.is_empty() {
                    break;
                }
            }
            parse_without_panic(&tokens.join(" "));
        }
    }
}
