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

use crate::error::Result;
use crate::sql::lexer::{tokenize, tokenize_spans, TokenKind};
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
/// The pass reads lexemes (`quick_scan`, or the lexer's spans for texts it does not take):
/// only what the rules look at, with each word's keyword classes found once, and only a
/// replaced literal's value is made, from that literal's own text.
pub fn force_literals(sql: &str) -> Option<ForcedText> {
    let (mut text, mut binds) = (String::new(), Vec::new());
    force_literals_into(sql, &mut text, &mut binds).then_some(ForcedText { text, binds })
}

/// `force_literals` into buffers the caller keeps (a session reuses its text buffer: a
/// forced statement found in its cursor cache then allocates no text). Returns whether
/// literals were replaced; `text` and `binds` are cleared first and hold the forced text
/// and its binds only then.
pub fn force_literals_into(sql: &str, text: &mut String, binds: &mut Vec<Value>) -> bool {
    text.clear();
    binds.clear();
    LEXEMES.with(|buffer| {
        let mut lexemes = buffer.take();
        let forced = if quick_scan(sql, &mut lexemes) {
            force_with(sql, &lexemes, text, binds)
        } else {
            lexer_lexemes(sql).is_some_and(|lexemes| force_with(sql, &lexemes, text, binds))
        };
        if lexemes.capacity() <= LEXEME_BUFFER_MAX {
            lexemes.clear();
            buffer.set(lexemes);
        }
        forced
    })
}

/// A thread's lexeme buffer is kept for its next statement up to this many lexemes.
const LEXEME_BUFFER_MAX: usize = 1024;

thread_local! {
    /// The quick scan's lexemes, reused from one statement to the next.
    static LEXEMES: std::cell::Cell<Vec<Lexeme>> = const { std::cell::Cell::new(Vec::new()) };
}

/// What the rules need to know of a token: its kind (a word with its keyword classes) and
/// where it is in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lexeme {
    kind: Kind,
    start: usize,
    end: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An unquoted word; `keyword_classes` tells what the rules need of it, when they ask.
    Word,
    String,
    Number,
    LeftParen,
    RightParen,
    Comma,
    Semicolon,
    /// A bind the statement carries itself.
    Bind,
    /// A hint naming `CURSOR_SHARING_EXACT`.
    ExactHint,
    /// Anything else: operators, quoted names, other hints.
    Other,
}

/// Keyword classes of a word (`keyword_classes`).
const KEYWORD_STATEMENT: u8 = 1;
/// Clauses that end an ORDER BY or GROUP BY list at their depth.
const KEYWORD_CLAUSE: u8 = 2;
const KEYWORD_ORDER_OR_GROUP: u8 = 4;
const KEYWORD_BY: u8 = 8;
/// Words whose parenthesized numbers are a data type's size, precision or scale.
const KEYWORD_TYPE_NAME: u8 = 16;
/// Words before a literal whose text a bind cannot stand for: `DATE '2020-01-01'`.
const KEYWORD_TYPED_LITERAL: u8 = 32;

/// The keyword classes of `word`, compared case-insensitively.
fn keyword_classes(word: &[u8]) -> u8 {
    let Some(first) = word.first() else {
        return 0;
    };
    let is = |keyword: &[u8]| word.eq_ignore_ascii_case(keyword);
    // By length first: most words are names, and a name rarely has a keyword's length and
    // first letter both.
    match (word.len(), first.to_ascii_uppercase()) {
        (2, b'B') if is(b"BY") => KEYWORD_BY,
        (3, b'D') if is(b"DAY") || is(b"DEC") => KEYWORD_TYPE_NAME,
        (3, b'F') if is(b"FOR") => KEYWORD_CLAUSE,
        (3, b'R') if is(b"RAW") => KEYWORD_TYPE_NAME,
        (4, b'C') if is(b"CALL") => KEYWORD_STATEMENT,
        (4, b'C') if is(b"CHAR") => KEYWORD_TYPE_NAME,
        (4, b'D') if is(b"DATE") => KEYWORD_TYPED_LITERAL,
        (4, b'F') if is(b"FROM") => KEYWORD_CLAUSE,
        (4, b'W') if is(b"WITH") => KEYWORD_STATEMENT,
        (4, b'Y') if is(b"YEAR") => KEYWORD_TYPE_NAME,
        (5, b'F') if is(b"FETCH") => KEYWORD_CLAUSE,
        (5, b'F') if is(b"FLOAT") => KEYWORD_TYPE_NAME,
        (5, b'G') if is(b"GROUP") => KEYWORD_ORDER_OR_GROUP,
        (5, b'M') if is(b"MERGE") => KEYWORD_STATEMENT,
        (5, b'M') if is(b"MINUS") => KEYWORD_CLAUSE,
        (5, b'M') if is(b"MONTH") => KEYWORD_TYPE_NAME,
        (5, b'N') if is(b"NCHAR") => KEYWORD_TYPE_NAME,
        (5, b'O') if is(b"ORDER") => KEYWORD_ORDER_OR_GROUP,
        (5, b'U') if is(b"UNION") => KEYWORD_CLAUSE,
        (5, b'W') if is(b"WHERE") => KEYWORD_CLAUSE,
        (6, b'D') if is(b"DELETE") => KEYWORD_STATEMENT,
        (6, b'E') if is(b"EXCEPT") => KEYWORD_CLAUSE,
        (6, b'H') if is(b"HAVING") => KEYWORD_CLAUSE,
        (6, b'I') if is(b"INSERT") => KEYWORD_STATEMENT,
        (6, b'N') if is(b"NUMBER") => KEYWORD_TYPE_NAME,
        (6, b'O') if is(b"OFFSET") => KEYWORD_CLAUSE,
        (6, b'S') if is(b"SELECT") => KEYWORD_STATEMENT,
        (6, b'S') if is(b"SECOND") => KEYWORD_TYPE_NAME,
        (6, b'U') if is(b"UPDATE") => KEYWORD_STATEMENT,
        (6, b'U') if is(b"UROWID") => KEYWORD_TYPE_NAME,
        (7, b'D') if is(b"DECIMAL") => KEYWORD_TYPE_NAME,
        (7, b'N') if is(b"NUMERIC") => KEYWORD_TYPE_NAME,
        (7, b'V') if is(b"VARCHAR") => KEYWORD_TYPE_NAME,
        (8, b'I') if is(b"INTERVAL") => KEYWORD_TYPED_LITERAL,
        (8, b'V') if is(b"VARCHAR2") => KEYWORD_TYPE_NAME,
        (9, b'C') if is(b"CHARACTER") => KEYWORD_TYPE_NAME,
        (9, b'I') if is(b"INTERSECT") => KEYWORD_CLAUSE,
        (9, b'N') if is(b"NVARCHAR2") => KEYWORD_TYPE_NAME,
        (9, b'T') if is(b"TIMESTAMP") => KEYWORD_TYPE_NAME | KEYWORD_TYPED_LITERAL,
        _ => 0,
    }
}

/// The lexemes of `sql` from the lexer's spans; None on a lexical error.
fn lexer_lexemes(sql: &str) -> Option<Vec<Lexeme>> {
    let tokens = tokenize_spans(sql).ok()?;
    Some(
        tokens
            .iter()
            .map(|token| {
                let kind = match &token.kind {
                    TokenKind::Word(_) => Kind::Word,
                    TokenKind::String(_) | TokenKind::NationalString(_) => Kind::String,
                    TokenKind::Number(_) => Kind::Number,
                    TokenKind::LeftParen => Kind::LeftParen,
                    TokenKind::RightParen => Kind::RightParen,
                    TokenKind::Comma => Kind::Comma,
                    TokenKind::Semicolon => Kind::Semicolon,
                    TokenKind::Bind(_) => Kind::Bind,
                    TokenKind::Hint(_)
                        if token
                            .text(sql)
                            .split(|c: char| !c.is_alphanumeric() && c != '_')
                            .any(|name| name.eq_ignore_ascii_case("CURSOR_SHARING_EXACT")) =>
                    {
                        Kind::ExactHint
                    }
                    _ => Kind::Other,
                };
                Lexeme {
                    kind,
                    start: token.start,
                    end: token.end,
                }
            })
            .collect(),
    )
}

/// The lexemes of the texts most literal SQL is made of: ASCII words, numbers, plain quoted
/// strings, plain quoted names, plain comments, whitespace and operators. Anything else (a
/// hint, a `--` comment, a bind, a prefixed string, `(+)`, a non-ASCII byte, an unterminated
/// string or comment) returns false, and the lexer decides. Tests check that what this finds
/// gives the same forced text as the lexer's tokens.
fn quick_scan(sql: &str, lexemes: &mut Vec<Lexeme>) -> bool {
    quick_scan_into(sql, lexemes).is_some()
}

fn quick_scan_into(sql: &str, lexemes: &mut Vec<Lexeme>) -> Option<()> {
    let bytes = sql.as_bytes();
    lexemes.clear();
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let start = index;
        let kind = match byte {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => {
                index += 1;
                continue;
            }
            b'/' if bytes.get(index + 1) == Some(&b'*') => {
                if bytes.get(index + 2) == Some(&b'+') {
                    return None;
                }
                // From star to star, to one before a slash.
                let mut star = index + 2;
                loop {
                    star += find_byte(&bytes[star..], b'*')?;
                    if bytes.get(star + 1) == Some(&b'/') {
                        break;
                    }
                    star += 1;
                }
                index = star + 2;
                continue;
            }
            b'-' if bytes.get(index + 1) == Some(&b'-') => return None,
            b'\'' => {
                // Quote to quote, past doubled quotes.
                index += 1;
                loop {
                    index += find_byte(&bytes[index..], b'\'')?;
                    if bytes.get(index + 1) != Some(&b'\'') {
                        break;
                    }
                    index += 2;
                }
                index += 1;
                Kind::String
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
                Kind::Number
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                index += 1 + bytes[index + 1..]
                    .iter()
                    .position(|&b| !WORD_BYTES[b as usize])
                    .unwrap_or(bytes.len() - index - 1);
                let word = &bytes[start..index];
                if word.len() > crate::sql::lexer::IDENTIFIER_BYTES_MAX
                    || bytes.get(index).is_some_and(|b| !b.is_ascii())
                    || (bytes.get(index) == Some(&b'\'')
                        && word.len() <= 2
                        && matches!(word[0], b'n' | b'N' | b'q' | b'Q'))
                {
                    return None;
                }
                Kind::Word
            }
            // A quoted name: never a keyword. `""` inside, a non-ASCII byte, an empty or a
            // too long name, or no closing quote: the lexer decides.
            b'"' => {
                index += 1;
                while let Some(&byte) = bytes.get(index) {
                    if byte == b'"' || !byte.is_ascii() {
                        break;
                    }
                    index += 1;
                }
                let length = index - start - 1;
                if bytes.get(index) != Some(&b'"')
                    || bytes.get(index + 1) == Some(&b'"')
                    || length == 0
                    || length > crate::sql::lexer::IDENTIFIER_BYTES_MAX
                {
                    return None;
                }
                index += 1;
                Kind::Other
            }
            b'(' => {
                let after = sql[index + 1..].trim_start_matches([' ', '\t', '\n', '\r']);
                if after.starts_with('+') {
                    return None;
                }
                index += 1;
                Kind::LeftParen
            }
            b')' => {
                index += 1;
                Kind::RightParen
            }
            b',' => {
                index += 1;
                Kind::Comma
            }
            b';' => {
                index += 1;
                Kind::Semicolon
            }
            // `!` and `^` only start `!=` and `^=`, `|` only `||`: alone, the lexer's error.
            b'!' | b'^' if bytes.get(index + 1) != Some(&b'=') => return None,
            b'|' if bytes.get(index + 1) != Some(&b'|') => return None,
            b'<' | b'>' | b'=' | b'!' | b'^' | b'|' | b'+' | b'-' | b'*' | b'/' | b'%' | b'.' => {
                index += 1;
                Kind::Other
            }
            _ => return None,
        };
        lexemes.push(Lexeme {
            kind,
            start,
            end: index,
        });
    }
    Some(())
}

/// The position of the first `needle` in `haystack`, eight bytes at a time: the comments and
/// strings of literal SQL are short, where a general memchr spends more in setting up than in
/// searching.
fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let repeated = ONES * u64::from(needle);
    let mut chunks = haystack.chunks_exact(8);
    for (number, chunk) in chunks.by_ref().enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ repeated;
        // A zero byte of `word` is a match; the lowest flagged byte is always a true one.
        let zeros = word.wrapping_sub(ONES) & !word & HIGHS;
        if zeros != 0 {
            return Some(number * 8 + zeros.trailing_zeros() as usize / 8);
        }
    }
    let rest = chunks.remainder();
    let offset = haystack.len() - rest.len();
    rest.iter()
        .position(|&byte| byte == needle)
        .map(|position| offset + position)
}

/// The bytes an unquoted word continues with: ASCII letters and digits, `_`, `$`, `#`.
const WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'#';
        byte += 1;
    }
    table
};

/// Applies the rules of the module documentation to `lexemes` of `sql`: the forced text and
/// its binds, or None when the statement keeps its literals.
fn force_with(sql: &str, lexemes: &[Lexeme], text: &mut String, binds: &mut Vec<Value>) -> bool {
    // The keyword classes of the lexeme at `index`, found when a rule asks (0 for no word).
    let classes = |index: usize| match lexemes.get(index) {
        Some(lexeme) if lexeme.kind == Kind::Word => {
            keyword_classes(&sql.as_bytes()[lexeme.start..lexeme.end])
        }
        _ => 0,
    };
    let previous_classes = |index: usize| index.checked_sub(1).map_or(0, classes);
    // A statement may open with parentheses: `(SELECT ...) UNION ...`.
    let open = lexemes
        .iter()
        .take_while(|lexeme| lexeme.kind == Kind::LeftParen)
        .count();
    let statement = classes(0) | if open > 0 { classes(open) } else { 0 };
    if statement & KEYWORD_STATEMENT == 0 {
        return false;
    }
    // A statement with binds of its own keeps its literals: system binds are not mixed with
    // an application's (whose values come by position or name at each execution).
    if lexemes
        .iter()
        .any(|lexeme| matches!(lexeme.kind, Kind::Bind | Kind::ExactHint))
    {
        return false;
    }
    let mut written = 0;
    // The paren depths at which an ORDER BY or GROUP BY list is open.
    let mut sort_lists: Vec<usize> = Vec::new();
    // The paren depths at which a data type's size or precision is open: `NUMBER(5,2)` in a
    // CAST, `TIMESTAMP(3)`, `INTERVAL DAY(2) TO SECOND(3)` keep their numbers.
    let mut type_sizes: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    for (index, lexeme) in lexemes.iter().enumerate() {
        let replace = match lexeme.kind {
            Kind::LeftParen => {
                depth += 1;
                if previous_classes(index) & KEYWORD_TYPE_NAME != 0 {
                    type_sizes.push(depth);
                }
                false
            }
            Kind::RightParen => {
                type_sizes.retain(|open| *open != depth);
                depth = depth.saturating_sub(1);
                sort_lists.retain(|open| *open <= depth);
                false
            }
            // Only ORDER and GROUP open a sort list: other words are not asked unless one is
            // open (for the clauses that close it).
            Kind::Word
                if !sort_lists.is_empty()
                    || (lexeme.end - lexeme.start == 5
                        && matches!(sql.as_bytes()[lexeme.start], b'O' | b'o' | b'G' | b'g')) =>
            {
                let classes_here = classes(index);
                if classes_here & KEYWORD_ORDER_OR_GROUP != 0
                    && classes(index + 1) & KEYWORD_BY != 0
                {
                    sort_lists.push(depth);
                } else if classes_here & KEYWORD_CLAUSE != 0 {
                    sort_lists.retain(|open| *open < depth);
                }
                false
            }
            Kind::String => previous_classes(index) & KEYWORD_TYPED_LITERAL == 0,
            Kind::Number if type_sizes.last() == Some(&depth) => false,
            Kind::Number => {
                let in_sort_list = sort_lists.last() == Some(&depth);
                let whole_item = in_sort_list
                    && matches!(
                        index.checked_sub(1).map(|before| lexemes[before].kind),
                        Some(Kind::Comma | Kind::Word)
                    )
                    && matches!(
                        lexemes.get(index + 1).map(|after| after.kind),
                        None | Some(Kind::Comma | Kind::RightParen | Kind::Semicolon | Kind::Word)
                    );
                !whole_item
            }
            _ => false,
        };
        if replace {
            if text.is_empty() {
                text.reserve(sql.len() + 16);
            }
            text.push_str(&sql[written..lexeme.start]);
            push_system_bind(text, binds.len());
            written = lexeme.end;
            match literal_value(&sql[lexeme.start..lexeme.end], lexeme.kind) {
                Ok(value) => binds.push(value),
                Err(_) => {
                    text.clear();
                    binds.clear();
                    return false;
                }
            }
        }
    }
    if binds.is_empty() {
        return false;
    }
    text.push_str(&sql[written..]);
    true
}

/// Appends `:"SYS_B_<number>"` (without the formatting machinery: this is most of what a
/// forced parse writes).
fn push_system_bind(text: &mut String, number: usize) {
    text.push_str(":\"SYS_B_");
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        text.push(digit as char);
    }
    text.push('"');
}

/// The value of a literal written as `text`: a number is read as written; a string is
/// lexed again alone, which unescapes it exactly as the statement's own lexing would.
fn literal_value(text: &str, kind: Kind) -> Result<Value> {
    Ok(match kind {
        Kind::Number => Value::parse_number(text)?,
        // The common case, 'text' with no quote inside: the value is what the quotes hold.
        _ if text.len() >= 2
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

    /// What the lexer's tokens give, checked against the quick scan's where it takes the text.
    fn forced_by_the_lexer(sql: &str) -> Option<ForcedText> {
        // A text the lexer rejects is kept as written: the quick scan must not force it.
        let forced = |lexemes: &[Lexeme]| {
            let (mut text, mut binds) = (String::new(), Vec::new());
            force_with(sql, lexemes, &mut text, &mut binds).then_some(ForcedText { text, binds })
        };
        let by_the_lexer = lexer_lexemes(sql).and_then(|lexemes| forced(&lexemes));
        let mut lexemes = Vec::new();
        if quick_scan(sql, &mut lexemes) {
            assert_eq!(forced(&lexemes), by_the_lexer, "{sql:?}");
        }
        by_the_lexer
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        #[test]
        fn the_quick_scan_agrees_with_the_lexer_on_keywords(
            head in proptest::sample::select(vec!["select", "SELECT", "(select", "insert into"]),
            words in proptest::collection::vec(proptest::sample::select(vec![
                "from", "t", "where", "x", "=", "'a'", "'it''s'", "1", "2.5", ",", "(", ")",
                "order by", "group BY", "cast", "as", "number", "Varchar2", "date", "timestamp",
                "interval", "day", "to", "second", "having", "union", "n'x'", "/* c */",
                "--c\n", ":b", "fetch", "/*+ cursor_sharing_exact */", "rows", "-",
                "values", ";", "\"DUMMY\"", "\"a\"\"b\"", "\"\"", "\"open", "!", "!=",
                "^", "^=", "|", "||",
            ]), 1..24)
        ) {
            let _ = forced_by_the_lexer(&format!("{head} {}", words.join(" ")));
        }
    }

    proptest::proptest! {
        #[test]
        fn find_byte_finds_the_first_occurrence(
            haystack in proptest::collection::vec(proptest::sample::select(vec![b'*', b'/', b'a', 0, 0x80, 0xff, b'\'']), 0..40),
            needle in proptest::sample::select(vec![b'*', b'\'', 0, 0xff]),
        ) {
            proptest::prop_assert_eq!(
                find_byte(&haystack, needle),
                haystack.iter().position(|&byte| byte == needle)
            );
        }
    }

    #[test]
    fn every_keyword_is_classified_in_any_case() {
        let classes = [
            (
                KEYWORD_STATEMENT,
                "SELECT WITH INSERT UPDATE DELETE MERGE CALL",
            ),
            (
                KEYWORD_CLAUSE,
                "HAVING UNION INTERSECT MINUS EXCEPT FETCH OFFSET FOR WHERE FROM",
            ),
            (KEYWORD_ORDER_OR_GROUP, "ORDER GROUP"),
            (KEYWORD_BY, "BY"),
            (
                KEYWORD_TYPE_NAME,
                "NUMBER NUMERIC DECIMAL DEC FLOAT VARCHAR2 VARCHAR NVARCHAR2 CHAR NCHAR \
                 CHARACTER RAW TIMESTAMP DAY SECOND YEAR MONTH UROWID",
            ),
            (KEYWORD_TYPED_LITERAL, "DATE TIMESTAMP INTERVAL"),
        ];
        for (class, words) in classes {
            for word in words.split_whitespace() {
                for written in [word.to_string(), word.to_lowercase()] {
                    assert_ne!(keyword_classes(written.as_bytes()) & class, 0, "{written}");
                }
            }
        }
        for name in [
            "T",
            "DUMMY",
            "SELECTS",
            "BYE",
            "DATES",
            "X1",
            "ORDERS",
            "INTERVALS",
        ] {
            assert_eq!(keyword_classes(name.as_bytes()), 0, "{name}");
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
