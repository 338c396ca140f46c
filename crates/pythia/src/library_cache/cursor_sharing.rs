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
    let tokens = match quick_scan(sql) {
        Some(tokens) => tokens,
        None => tokenize_spans(sql).ok()?,
    };
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

/// The tokens `literals_to_replace` reads, for the texts most literal SQL is made of: ASCII
/// words, numbers, plain quoted strings, plain comments, whitespace and operators. Anything
/// else (a hint, a `--` comment, a quoted name, a bind, a prefixed string, `(+)`, a
/// non-ASCII byte, an unterminated string or comment) returns None, and the lexer decides.
/// Operators become `TokenKind::Equal` whatever they are: the rules only look at words,
/// literals, parentheses, commas and semicolons. A test checks that what this finds gives
/// the same forced text as the lexer's tokens.
fn quick_scan(sql: &str) -> Option<Vec<Token>> {
    let bytes = sql.as_bytes();
    let mut tokens = Vec::with_capacity(sql.len() / 6 + 4);
    let mut index = 0;
    let token = |kind, start, end| Token { kind, start, end };
    while let Some(&byte) = bytes.get(index) {
        let start = index;
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => index += 1,
            b'/' if bytes.get(index + 1) == Some(&b'*') => {
                if bytes.get(index + 2) == Some(&b'+') {
                    return None;
                }
                let close = sql[index + 2..].find("*/")?;
                index += 2 + close + 2;
            }
            b'-' if bytes.get(index + 1) == Some(&b'-') => return None,
            b'\'' => {
                index += 1;
                loop {
                    match bytes.get(index) {
                        None => return None,
                        Some(b'\'') if bytes.get(index + 1) == Some(&b'\'') => index += 2,
                        Some(b'\'') => break,
                        Some(_) => index += 1,
                    }
                }
                index += 1;
                tokens.push(token(TokenKind::String(String::new()), start, index));
            }
            b'0'..=b'9' | b'.'
                if byte != b'.' || bytes.get(index + 1).is_some_and(u8::is_ascii_digit) =>
            {
                let digits = |mut at: usize| {
                    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                        at += 1;
                    }
                    at
                };
                index = digits(index);
                if bytes.get(index) == Some(&b'.') && bytes.get(index + 1) != Some(&b'.') {
                    index = digits(index + 1);
                }
                if matches!(bytes.get(index), Some(b'e' | b'E')) {
                    let mut exponent = index + 1;
                    if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
                        exponent += 1;
                    }
                    if bytes.get(exponent).is_some_and(u8::is_ascii_digit) {
                        index = digits(exponent);
                    }
                }
                tokens.push(token(TokenKind::Number(String::new()), start, index));
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while bytes
                    .get(index)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'#'))
                {
                    index += 1;
                }
                if index - start > crate::sql::lexer::IDENTIFIER_BYTES_MAX
                    || bytes.get(index).is_some_and(|b| !b.is_ascii())
                    || (bytes.get(index) == Some(&b'\'')
                        && matches!(
                            &sql[start..index].to_ascii_uppercase()[..],
                            "N" | "Q" | "NQ"
                        ))
                {
                    return None;
                }
                tokens.push(token(TokenKind::Word(String::new()), start, index));
            }
            b'(' => {
                let after = sql[index + 1..].trim_start_matches([' ', '\t', '\n', '\r']);
                if after.starts_with('+') {
                    return None;
                }
                index += 1;
                tokens.push(token(TokenKind::LeftParen, start, index));
            }
            b')' | b',' | b';' => {
                index += 1;
                let kind = match byte {
                    b')' => TokenKind::RightParen,
                    b',' => TokenKind::Comma,
                    _ => TokenKind::Semicolon,
                };
                tokens.push(token(kind, start, index));
            }
            b'<' | b'>' | b'=' | b'!' | b'^' | b'|' | b'+' | b'-' | b'*' | b'/' | b'%' | b'.' => {
                index += 1;
                tokens.push(token(TokenKind::Equal, start, index));
            }
            _ => return None,
        }
    }
    Some(tokens)
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

    /// What the lexer's tokens give, for comparison with the quick scan.
    fn forced_by_the_lexer(sql: &str) -> Option<ForcedText> {
        let tokens = tokenize_spans(sql).ok()?;
        let replaced = literals_to_replace(sql, &tokens)?;
        let quick = quick_scan(sql).map(|tokens| literals_to_replace(sql, &tokens));
        if let Some(quick) = quick {
            let spans = |replaced: &[usize], tokens: &[Token]| -> Vec<(usize, usize)> {
                replaced
                    .iter()
                    .map(|&i| (tokens[i].start, tokens[i].end))
                    .collect()
            };
            let quick_tokens = quick_scan(sql).unwrap();
            assert_eq!(
                quick.map(|q| spans(&q, &quick_tokens)),
                Some(spans(&replaced, &tokens)),
                "{sql:?}"
            );
        }
        (!replaced.is_empty()).then_some(())?;
        force_literals(sql)
    }

    #[test]
    fn the_quick_scan_replaces_what_the_lexer_would() {
        for sql in [
            "SELECT /* comment: $$$$ */ \"DUMMY\" FROM dual WHERE dummy = '0412345'",
            "SELECT /* c */ dummy FROM dual WHERE dummy = 'it''s' AND x < 1.5e3 ORDER BY 1, 2",
            "select a, count(*) from t where b in (1, 2, 3) group by a having count(*) > 2",
            "select cast(1.5 as number(5,2)), x||'y', -1, .5, 1..2 from t where d = date '2020-01-01'",
            "insert into t values (1, 'a', null); ",
            "select n'x', q'[y]' from t",
            "select * from t where a = b (+)",
            "select 'unterminated from t",
        ] {
            let _ = forced_by_the_lexer(sql);
        }
    }

    proptest::proptest! {
        #[test]
        fn the_quick_scan_agrees_with_the_lexer(
            sql in "(SELECT|select) [a-zA-Z0-9 '.,()+*/=<>|_;-]{0,40}( ORDER BY [0-9, ]{0,8})?"
        ) {
            let _ = forced_by_the_lexer(&sql);
        }
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
