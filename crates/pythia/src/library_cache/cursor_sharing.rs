//! `CURSOR_SHARING = FORCE`: the lexical pass that replaces a statement's literals by
//! system-generated binds before the statement is hashed, so that `... WHERE dummy = 'X'`
//! and `... WHERE dummy = 'Y'` become one text, `... WHERE dummy = :"SYS_B_0"`, and share
//! one cursor. The pass works on the lexer's tokens and their byte positions: everything
//! but the replaced literals (spacing, case, comments, hints) is kept as written.
//!
//! What is replaced: string literals (`'x'`, `q'[x]'`, `N'x'`) and numbers, numbered
//! `SYS_B_0`, `SYS_B_1`, ... in order of appearance, in queries, DML and `CALL`. What is
//! kept, as Oracle keeps it:
//! - every literal of a statement carrying the hint `CURSOR_SHARING_EXACT`;
//! - statements that are not queries, DML or CALL: DDL, `ALTER SESSION`, transaction
//!   control, and PL/SQL blocks (`BEGIN p('a', 1); END;` keeps its literals: seed 004);
//! - the text of `DATE '...'`, `TIMESTAMP '...'` and `INTERVAL '...'` literals, which a
//!   bind cannot stand for;
//! - a number that is a whole ORDER BY or GROUP BY item (`ORDER BY 2` names a column; a
//!   bind there would sort by a constant).
//!
//! A minus sign before a number stays an operator: `x = -1` becomes `x = -:"SYS_B_0"`.

use std::fmt::Write;

use crate::error::Result;
use crate::sql::lexer::{tokenize, tokenize_spans, Token, TokenKind};
use crate::types::Value;

/// A statement's text with its literals replaced, and the literals' values in bind order.
#[derive(Clone, Debug, PartialEq)]
pub struct ForcedText {
    pub text: String,
    pub binds: Vec<Value>,
}

/// The text `CURSOR_SHARING = FORCE` hashes for `sql`, and the values of the literals it
/// replaced; None when nothing is replaced (the statement is kept as written). Lexical
/// errors are the parser's to report: the text is then kept.
///
/// The pass reads spans only (`tokenize_spans`, which builds no values): words are compared
/// as written, case-insensitively, and only a replaced literal's value is made, by lexing
/// that literal's own text.
pub fn force_literals(sql: &str) -> Option<ForcedText> {
    let tokens = tokenize_spans(sql).ok()?;
    let replaced = literals_to_replace(sql, &tokens)?;
    if replaced.is_empty() {
        return None;
    }
    let mut text = String::with_capacity(sql.len() + replaced.len() * 8);
    let mut binds = Vec::with_capacity(replaced.len());
    let mut written = 0;
    for (number, &index) in replaced.iter().enumerate() {
        let token = &tokens[index];
        text.push_str(&sql[written..token.start]);
        let _ = write!(text, ":\"SYS_B_{number}\"");
        written = token.end;
        binds.push(literal_value(token.text(sql), &token.kind).ok()?);
    }
    text.push_str(&sql[written..]);
    Some(ForcedText { text, binds })
}

/// Words whose parenthesized numbers are a data type's size, precision or scale.
const TYPE_NAMES: &[&str] = &[
    "NUMBER",
    "NUMERIC",
    "DECIMAL",
    "DEC",
    "FLOAT",
    "VARCHAR2",
    "VARCHAR",
    "NVARCHAR2",
    "CHAR",
    "NCHAR",
    "CHARACTER",
    "RAW",
    "TIMESTAMP",
    "DAY",
    "SECOND",
    "YEAR",
    "MONTH",
    "UROWID",
];

/// The positions of the tokens to replace, None when the statement keeps its literals.
fn literals_to_replace(sql: &str, tokens: &[Token]) -> Option<Vec<usize>> {
    // A word as written, when the token at `index` is one.
    let word = |index: usize| match tokens.get(index) {
        Some(token) if matches!(token.kind, TokenKind::Word(_)) => Some(token.text(sql)),
        _ => None,
    };
    let is_one_of = |index: usize, words: &[&str]| {
        word(index).is_some_and(|word| words.iter().any(|w| word.eq_ignore_ascii_case(w)))
    };
    // A statement may open with parentheses: `(SELECT ...) UNION ...`.
    let open = tokens
        .iter()
        .take_while(|token| token.kind == TokenKind::LeftParen)
        .count();
    const STATEMENTS: &[&str] = &[
        "SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "MERGE", "CALL",
    ];
    if !is_one_of(0, STATEMENTS) && !is_one_of(open, STATEMENTS) {
        return None;
    }
    // A statement with binds of its own keeps its literals: system binds are not mixed with
    // an application's (whose values come by position or name at each execution).
    if tokens
        .iter()
        .any(|token| matches!(token.kind, TokenKind::Bind(_)))
    {
        return None;
    }
    let exact = tokens.iter().any(|token| {
        matches!(token.kind, TokenKind::Hint(_))
            && token
                .text(sql)
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|name| name.eq_ignore_ascii_case("CURSOR_SHARING_EXACT"))
    });
    if exact {
        return None;
    }
    const CLAUSES: &[&str] = &[
        "HAVING",
        "UNION",
        "INTERSECT",
        "MINUS",
        "EXCEPT",
        "FETCH",
        "OFFSET",
        "FOR",
        "WHERE",
        "FROM",
    ];
    let mut replaced = Vec::new();
    // The paren depths at which an ORDER BY or GROUP BY list is open.
    let mut sort_lists: Vec<usize> = Vec::new();
    // The paren depths at which a data type's size or precision is open: `NUMBER(5,2)` in a
    // CAST, `TIMESTAMP(3)`, `INTERVAL DAY(2) TO SECOND(3)` keep their numbers.
    let mut type_sizes: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    for (index, token) in tokens.iter().enumerate() {
        match &token.kind {
            TokenKind::LeftParen => {
                depth += 1;
                if index > 0 && is_one_of(index - 1, TYPE_NAMES) {
                    type_sizes.push(depth);
                }
            }
            TokenKind::RightParen => {
                type_sizes.retain(|open| *open != depth);
                depth = depth.saturating_sub(1);
                sort_lists.retain(|open| *open <= depth);
            }
            TokenKind::Number(_) if type_sizes.last() == Some(&depth) => {}
            TokenKind::Word(_)
                if is_one_of(index, &["ORDER", "GROUP"]) && is_one_of(index + 1, &["BY"]) =>
            {
                sort_lists.push(depth);
            }
            TokenKind::Word(_) if is_one_of(index, CLAUSES) => {
                sort_lists.retain(|open| *open < depth);
            }
            TokenKind::String(_) | TokenKind::NationalString(_) => {
                let typed = index > 0 && is_one_of(index - 1, &["DATE", "TIMESTAMP", "INTERVAL"]);
                if !typed {
                    replaced.push(index);
                }
            }
            TokenKind::Number(_) => {
                let in_sort_list = sort_lists.last() == Some(&depth);
                let whole_item = in_sort_list
                    && matches!(
                        tokens.get(index.wrapping_sub(1)).map(|t| &t.kind),
                        Some(TokenKind::Comma | TokenKind::Word(_))
                    )
                    && matches!(
                        tokens.get(index + 1).map(|t| &t.kind),
                        None | Some(
                            TokenKind::Comma | TokenKind::RightParen | TokenKind::Semicolon
                        ) | Some(TokenKind::Word(_))
                    );
                if !whole_item {
                    replaced.push(index);
                }
            }
            _ => {}
        }
    }
    Some(replaced)
}

/// The value of a literal token written as `text`: a number is read as written; a string is
/// lexed again alone, which unescapes it exactly as the statement's own lexing would.
fn literal_value(text: &str, kind: &TokenKind) -> Result<Value> {
    Ok(match kind {
        TokenKind::Number(_) => Value::parse_number(text)?,
        // The common case, 'text' with no quote inside: the value is what the quotes hold.
        TokenKind::String(_)
            if text.len() >= 2
                && text.starts_with('\'')
                && !text[1..text.len() - 1].contains('\'') =>
        {
            Value::text(&text[1..text.len() - 1])
        }
        _ => match tokenize(text)?.into_iter().next().map(|token| token.kind) {
            Some(TokenKind::String(value) | TokenKind::NationalString(value)) => {
                Value::text(&value)
            }
            _ => unreachable!("a literal's text lexes as that literal"),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forced(sql: &str) -> Option<String> {
        force_literals(sql).map(|forced| forced.text)
    }

    #[test]
    fn type_sizes_and_statements_with_binds_keep_their_numbers() {
        assert_eq!(
            forced("select cast(1.234 as number(5,2)), cast('abc' as varchar2(2)) from t"),
            Some(
                "select cast(:\"SYS_B_0\" as number(5,2)), cast(:\"SYS_B_1\" as varchar2(2)) from t"
                    .to_string()
            )
        );
        assert_eq!(
            forced("select interval '5' day(3) to second(2), cast(x as timestamp(3)) from t where y = 4"),
            Some(
                "select interval '5' day(3) to second(2), cast(x as timestamp(3)) from t where y = :\"SYS_B_0\""
                    .to_string()
            )
        );
        // Functions of the same shape still share: mod(x, 7) is not a type.
        assert_eq!(
            forced("select mod(x, 7) from t"),
            Some("select mod(x, :\"SYS_B_0\") from t".to_string())
        );
        assert_eq!(forced("select a from t where a = :1 and b = 'x'"), None);
    }

    #[test]
    fn literals_become_numbered_system_binds() {
        let dummy =
            force_literals("SELECT /* c */ \"DUMMY\" FROM dual WHERE dummy = 'X' AND 1 < 2.5")
                .unwrap();
        assert_eq!(
            dummy.text,
            "SELECT /* c */ \"DUMMY\" FROM dual WHERE dummy = :\"SYS_B_0\" AND :\"SYS_B_1\" < :\"SYS_B_2\""
        );
        assert_eq!(dummy.binds.len(), 3);
        assert_eq!(dummy.binds[0], Value::text("X"));
        // Two statements differing in their literals become one text.
        assert_eq!(
            forced("select * from t where a = 'Y' and b = 7"),
            forced("select * from t where a = 'Z' and b = 12345")
        );
    }

    #[test]
    fn a_minus_sign_stays_an_operator_and_dml_and_call_are_forced() {
        assert_eq!(
            forced("UPDATE t SET a = -1 WHERE b IN (1, 2)").unwrap(),
            "UPDATE t SET a = -:\"SYS_B_0\" WHERE b IN (:\"SYS_B_1\", :\"SYS_B_2\")"
        );
        assert_eq!(
            forced("INSERT INTO t VALUES (q'[it's]', N'x')").unwrap(),
            "INSERT INTO t VALUES (:\"SYS_B_0\", :\"SYS_B_1\")"
        );
        assert_eq!(
            forced("CALL p('a', 1)").unwrap(),
            "CALL p(:\"SYS_B_0\", :\"SYS_B_1\")"
        );
    }

    #[test]
    fn what_oracle_keeps_is_kept() {
        // PL/SQL blocks (seed 004), DDL, session settings, the CURSOR_SHARING_EXACT hint.
        assert_eq!(forced("BEGIN p('a', 1); END;"), None);
        assert_eq!(forced("CREATE TABLE t (a NUMBER DEFAULT 5)"), None);
        assert_eq!(forced("ALTER SESSION SET pga_aggregate_limit = 5"), None);
        assert_eq!(
            forced("SELECT /*+ CURSOR_SHARING_EXACT */ * FROM t WHERE a = 1"),
            None
        );
        // Typed literals, and whole ORDER BY / GROUP BY items.
        assert_eq!(
            forced("SELECT a, count(*) FROM t WHERE d > DATE '2024-01-01' AND a > 3 GROUP BY 1 ORDER BY 2 DESC, a + 1").unwrap(),
            "SELECT a, count(*) FROM t WHERE d > DATE '2024-01-01' AND a > :\"SYS_B_0\" GROUP BY 1 ORDER BY 2 DESC, a + :\"SYS_B_1\""
        );
        // ORDER BY inside a subquery ends with its parenthesis.
        assert_eq!(
            forced("SELECT * FROM (SELECT a FROM t ORDER BY 1) WHERE a = 2").unwrap(),
            "SELECT * FROM (SELECT a FROM t ORDER BY 1) WHERE a = :\"SYS_B_0\""
        );
        // Nothing to replace, or a text the lexer refuses: kept.
        assert_eq!(forced("SELECT a FROM t"), None);
        assert_eq!(forced("SELECT 'unterminated FROM t"), None);
    }

    #[test]
    fn the_forced_text_parses_with_its_binds() {
        for sql in [
            "SELECT * FROM t WHERE a = 'x' AND b BETWEEN 1 AND 2 OR c LIKE 'a%' ESCAPE '\\'",
            "INSERT INTO t (a, b) VALUES (1.5e3, 'two')",
            "SELECT a FROM t WHERE a IN (SELECT 1 FROM dual) ORDER BY a FETCH FIRST 3 ROWS ONLY",
            "DELETE FROM t WHERE a IN (SELECT 1 FROM dual WHERE ROWNUM < 4)",
        ] {
            let forced = force_literals(sql).unwrap();
            crate::sql::parser::parse(&forced.text)
                .unwrap_or_else(|error| panic!("{}: {error}", forced.text));
        }
    }
}
