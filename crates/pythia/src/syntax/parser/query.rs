//! Queries: WITH, set operators, ORDER BY, row limits and FOR UPDATE around SELECT blocks, and
//! the blocks' clauses, FROM items and joins.
//!
//! ```text
//!   query   := [WITH name [(cols)] AS (query), ...] operand {{UNION [ALL] | INTERSECT | MINUS | EXCEPT} operand}
//!              [ORDER BY expr [ASC|DESC] [NULLS FIRST|LAST], ...] [OFFSET n ROWS] [FETCH FIRST n ROWS ONLY | LIMIT n]
//!              [FOR UPDATE [OF cols] [NOWAIT | WAIT n | SKIP LOCKED]]
//!   operand := SELECT [hint] [DISTINCT|UNIQUE|ALL] items [FROM from, ...] [WHERE c] [GROUP BY exprs] [HAVING c] | (query)
//!   from    := {t [alias] | (query) [alias] | f(args) [alias] | TABLE(f) | (from)} {join from [ON c | USING (cols)]}
//! ```

use super::{Parser, Syntax};
use crate::error::Result;
use crate::syntax::ast::*;
use crate::syntax::lexer::TokenKind;

/// Non-reserved words that may follow a select item, so are not taken as its alias.
const COLUMN_ALIAS_STOP_WORDS: &[&str] =
    &["EXCEPT", "FETCH", "JOIN", "LIMIT", "OFFSET", "RETURNING"];

/// A parenthesized query that is nothing but its body is its body.
pub(super) fn into_set_expression(query: Box<Query>) -> SetExpr {
    if query.is_bare() {
        let Query { body, .. } = *query;
        body
    } else {
        SetExpr::Query(query)
    }
}

impl Parser<'_> {
    pub(super) fn starts_query(&self) -> bool {
        matches!(self.peek_word(), Some("SELECT" | "WITH"))
    }

    /// Whether the current `(` opens a query, possibly after more parentheses: `((SELECT`.
    pub(super) fn parenthesized_query_ahead(&self) -> bool {
        let mut offset = 0;
        while self.peek_nth(offset) == Some(&TokenKind::LeftParen) {
            offset += 1;
        }
        offset > 0 && matches!(self.peek_word_nth(offset), Some("SELECT" | "WITH"))
    }

    pub(super) fn parse_query(&mut self) -> Result<Box<Query>> {
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

    pub(super) fn at_set_operator(&self) -> bool {
        matches!(
            self.peek_word(),
            Some("UNION" | "INTERSECT" | "MINUS" | "EXCEPT")
        )
    }

    /// `left {UNION [ALL] | INTERSECT | MINUS | EXCEPT} operand ...`, left-associative.
    pub(super) fn parse_set_operations(&mut self, mut left: SetExpr) -> Result<SetExpr> {
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
    pub(super) fn parse_query_tail(
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

    pub(super) fn parse_where_clause(&mut self) -> Result<Option<Expr>> {
        if self.eat_word("WHERE") {
            return Ok(Some(self.parse_expression()?));
        }
        Ok(None)
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

    pub(super) fn parse_query_and_right_parenthesis(&mut self) -> Result<Box<Query>> {
        let query = self.parse_query()?;
        self.expect(&TokenKind::RightParen, Syntax::MissingRightParenthesis)?;
        Ok(query)
    }
}
