//! Expressions, by precedence climbing (the ladder is in the module's essay): the operators and
//! predicates (IS NULL, LIKE, BETWEEN, IN, EXISTS, PostgreSQL's `~`, `::` and `a[i]`), and the
//! primaries: literals, binds, names and pseudo-columns, function calls, CASE, CAST and
//! parenthesized lists and subqueries.

use super::embedded::ColumnSpan;
use super::errors::invalid_qualified_name;
use super::query::into_set_expression;
use super::{Parser, Syntax};
use crate::error::{Error, Result};
use crate::syntax::ast::*;
use crate::syntax::lexer::TokenKind;

// Operator precedences, loosest first.
const PRECEDENCE_OR: u8 = 1;
const PRECEDENCE_AND: u8 = 2;
const PRECEDENCE_NOT: u8 = 3;
const PRECEDENCE_COMPARISON: u8 = 4;
const PRECEDENCE_ADDITIVE: u8 = 5;
const PRECEDENCE_MULTIPLICATIVE: u8 = 6;
const PRECEDENCE_UNARY: u8 = 7;
const PRECEDENCE_POSTFIX: u8 = 8;

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

/// A parenthesized list as a value: its only item, or a tuple.
fn single_or_tuple(mut list: Vec<Expr>) -> Expr {
    if list.len() == 1 {
        if let Some(only) = list.pop() {
            return only;
        }
    }
    Expr::Tuple(list)
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

impl Parser<'_> {
    // The functions in the recursive cycle (parse_expression_above, parse_operators_above,
    // parse_operator, parse_prefix, parse_primary, parse_parenthesized, ...) dispatch to
    // helpers and combine results with `map` / `and_then`, so that each frame holds few
    // temporaries: see `enter`.

    pub(super) fn parse_expression(&mut self) -> Result<Expr> {
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
    pub(super) fn parse_expression_list(&mut self) -> Result<Vec<Expr>> {
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
            word if self.is_reserved(word) => Err(self.error(Syntax::MissingExpression)),
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
    pub(super) fn parse_name_expression(&mut self) -> Result<Expr> {
        let position = self.position();
        let mut parts = vec![self.parse_name_part(Syntax::MissingExpression)?];
        // `..` is PL/SQL's range (`FOR i IN lo..hi`), never a qualification.
        while self.is(&TokenKind::Period) && self.peek_nth(1) != Some(&TokenKind::Period) {
            self.index += 1;
            // PL/SQL names a collection's methods after its name, reserved words among them
            // (`a.PRIOR(k)`, `a.EXISTS(k)`).
            if let Some(word) = self.peek_word().filter(|_| self.plsql).map(str::to_string) {
                self.index += 1;
                parts.push(word);
                continue;
            }
            parts.push(self.parse_name_part(Syntax::InvalidIdentifier)?);
        }
        if parts.len() > 3 {
            return Err(invalid_qualified_name(&parts, position));
        }
        if self.is(&TokenKind::LeftParen) {
            return self.parse_function_call(parts.join("."));
        }
        if self.plsql {
            if let Some(attribute) = self.parse_plsql_attribute() {
                return Ok(Expr::Function {
                    name: format!("{}%{attribute}", parts.join(".")),
                    args: Vec::new(),
                    distinct: false,
                    star: false,
                });
            }
            self.column_spans.push(ColumnSpan {
                start: position,
                end: self.tokens[self.index - 1].end,
                parts: parts.clone(),
            });
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
