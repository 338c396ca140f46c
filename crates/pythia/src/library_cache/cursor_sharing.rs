//! `CURSOR_SHARING = FORCE`: the lexical pass that replaces a statement's literals by
//! system-generated binds before the statement is hashed, so that `... WHERE dummy = 'X'`
//! and `... WHERE dummy = 'Y'` become one text, `... WHERE dummy = :"SYS_B_0"`, and share
//! one cursor. The pass works on lexemes and their byte positions: everything but the
//! replaced literals (spacing, case, comments, hints) is kept as written.
//!
//! ```text
//!   sql ──> force_quickly: one pass over the bytes, ──> text with :"SYS_B_n", binds
//!           the rules applied as each lexeme is read
//!             │ Unusual (a hint, a bind, `--`, `(+)`, non-ASCII outside strings, ...)
//!             v
//!           the lexer's tokens ──> force_with ──────> text with :"SYS_B_n", binds
//! ```
//!
//! Both paths give the same text and binds for every text the first takes (tests compare
//! them, and the first with the pass it replaced).
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
use crate::syntax::lexer::{tokenize, tokenize_spans, TokenKind};
use crate::types::Value;
use rust_decimal::Decimal;

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
/// The pass reads the text once (`force_quickly`), or, for the texts it does not take, the
/// lexer's spans (`force_with`): only what the rules look at, with a word's keyword classes
/// found when a rule asks, and only a replaced literal's value is made, from that literal's
/// own text.
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
    if let Ok(forced) = force_quickly(sql, text, binds) {
        return forced;
    }
    text.clear();
    binds.clear();
    lexer_lexemes(sql).is_some_and(|lexemes| force_with(sql, &lexemes, text, binds))
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

/// The keyword classes of the word at `start..end` of `text`, compared case-insensitively.
fn keyword_classes(text: &[u8], start: usize, end: usize) -> u8 {
    let length = end - start;
    if length == 0 || length > KEYWORD_BYTES_MAX {
        return 0;
    }
    let word = word_in_capitals(text, start, length);
    // One comparison a keyword, against a constant: `keyword_in_capitals` of a literal is
    // computed when compiling.
    let is = |keyword: &[u8]| word == keyword_in_capitals(keyword);
    // By length first: most words are names, and a name rarely has a keyword's length and
    // first letter both.
    match (length, word.0 as u8) {
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

/// The longest keyword `keyword_classes` knows (CHARACTER, INTERSECT, NVARCHAR2, TIMESTAMP).
const KEYWORD_BYTES_MAX: usize = 9;

/// A word of one to `KEYWORD_BYTES_MAX` bytes as `keyword_classes` compares it: its first
/// eight bytes, little-endian, zero past its end, then its ninth byte (zero for a shorter
/// word), lowercase ASCII letters in capitals and every other byte as it is. Two words of
/// the same length are the same word, case aside, exactly when these are equal.
type WordInCapitals = (u64, u8);

/// A keyword, written in capitals, as `word_in_capitals` gives a word that is the keyword.
const fn keyword_in_capitals(keyword: &[u8]) -> WordInCapitals {
    let mut head = 0u64;
    let mut index = 0;
    while index < keyword.len() && index < 8 {
        head |= (keyword[index] as u64) << (8 * index);
        index += 1;
    }
    let ninth = if keyword.len() > 8 { keyword[8] } else { 0 };
    (head, ninth)
}

/// The word of `length` bytes (one to `KEYWORD_BYTES_MAX`) at `start` of `text` as
/// `WordInCapitals`: eight bytes at a time, one load from the text where a byte at a time
/// cost a loop.
fn word_in_capitals(text: &[u8], start: usize, length: usize) -> WordInCapitals {
    let eight = match text.get(start..start + 8) {
        Some(eight) => u64::from_le_bytes(eight.try_into().expect("eight bytes")),
        // The text ends within eight bytes of the word's start.
        None => text[start..]
            .iter()
            .rev()
            .fold(0, |eight, &byte| eight << 8 | u64::from(byte)),
    };
    let kept = match length {
        8.. => u64::MAX,
        _ => (1 << (8 * length)) - 1,
    };
    let ninth = match length {
        9 => text[start + 8].to_ascii_uppercase(),
        _ => 0,
    };
    (in_capitals(eight & kept), ninth)
}

/// `eight` bytes with their lowercase ASCII letters in capitals, the others as they are.
fn in_capitals(eight: u64) -> u64 {
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Each byte's low seven bits plus 0x1F reach the high bit from `a` (0x61) up, plus 0x05
    // from past `z` (0x7B) up; no sum leaves its byte (0x7F + 0x1F < 0x100).
    let low_seven = eight & !HIGHS;
    let from_a = low_seven + 0x1F1F_1F1F_1F1F_1F1F;
    let past_z = low_seven + 0x0505_0505_0505_0505;
    // A lowercase letter's byte: from `a`, not past `z`, and ASCII (its high bit clear).
    let lowercase = from_a & !past_z & !eight & HIGHS;
    eight - (lowercase >> 2)
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

/// Why the fused pass hands a text to the lexer: something it does not take (see
/// `force_quickly`).
struct Unusual;

/// What the fused pass and its pieces give, unless the text is `Unusual`.
type Fused<T> = std::result::Result<T, Unusual>;

/// What a byte starts, for the fused pass's dispatch: one table load in place of a chain of
/// comparisons.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Start {
    Space,
    /// A letter or `_`.
    Word,
    Digit,
    Dot,
    Quote,
    DoubleQuote,
    Slash,
    Minus,
    LeftParen,
    RightParen,
    Comma,
    Semicolon,
    /// `!` or `^`, which only start `!=` and `^=`.
    BangOrCaret,
    /// `|`, which only starts `||`.
    Bar,
    /// A one-byte operator: `<`, `>`, `=`, `+`, `*`, `%`.
    Operator,
    /// Anything else (`:`, `@`, a non-ASCII byte, ...): the lexer decides.
    Unusual,
}

const BYTE_STARTS: [Start; 256] = {
    let mut table = [Start::Unusual; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = match b {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => Start::Space,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => Start::Word,
            b'0'..=b'9' => Start::Digit,
            b'.' => Start::Dot,
            b'\'' => Start::Quote,
            b'"' => Start::DoubleQuote,
            b'/' => Start::Slash,
            b'-' => Start::Minus,
            b'(' => Start::LeftParen,
            b')' => Start::RightParen,
            b',' => Start::Comma,
            b';' => Start::Semicolon,
            b'!' | b'^' => Start::BangOrCaret,
            b'|' => Start::Bar,
            b'<' | b'>' | b'=' | b'+' | b'*' | b'%' => Start::Operator,
            _ => Start::Unusual,
        };
        byte += 1;
    }
    table
};

// The pieces of the fused pass's grammar (`force_quickly`): the texts most literal SQL is
// made of, ASCII words, numbers, plain quoted strings, plain quoted names, plain comments,
// whitespace and operators. Anything else (a hint, a `--` comment, a bind, a prefixed
// string, `(+)`, a non-ASCII byte outside strings and comments, an unterminated string or
// comment) is `Unusual`, and the lexer decides.

/// The end of the comment opening at `start` with `/*`, past its `*/`.
fn comment_end(bytes: &[u8], start: usize) -> Fused<usize> {
    if bytes.get(start + 2) == Some(&b'+') {
        return Err(Unusual);
    }
    // From star to star, to one before a slash.
    let mut star = start + 2;
    loop {
        star += find_byte(&bytes[star..], b'*').ok_or(Unusual)?;
        if bytes.get(star + 1) == Some(&b'/') {
            return Ok(star + 2);
        }
        star += 1;
    }
}

/// Where the lexeme at or after `index` starts: past spaces and comments.
fn skip_blanks(bytes: &[u8], mut index: usize) -> Fused<usize> {
    while let Some(&byte) = bytes.get(index) {
        match BYTE_STARTS[usize::from(byte)] {
            Start::Space => index += 1,
            Start::Slash if bytes.get(index + 1) == Some(&b'*') => {
                index = comment_end(bytes, index)?;
            }
            Start::Minus if bytes.get(index + 1) == Some(&b'-') => return Err(Unusual),
            _ => break,
        }
    }
    Ok(index)
}

/// The end of the word starting at `start` (a letter or `_`).
fn word_end(bytes: &[u8], start: usize) -> Fused<usize> {
    let end = start
        + 1
        + bytes[start + 1..]
            .iter()
            .position(|&byte| !WORD_BYTES[usize::from(byte)])
            .unwrap_or(bytes.len() - start - 1);
    // A non-ASCII byte after the word (where the lexer's name goes on) is Unusual when
    // read next.
    let length = end - start;
    if length > crate::syntax::lexer::IDENTIFIER_BYTES_MAX
        || (bytes.get(end) == Some(&b'\'')
            && length <= 2
            && matches!(bytes[start], b'n' | b'N' | b'q' | b'Q'))
    {
        return Err(Unusual);
    }
    Ok(end)
}

/// The end of the number starting at `start` (a digit, or a dot before one).
fn number_end(bytes: &[u8], start: usize) -> usize {
    let digits = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    };
    let mut end = digits(start);
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1) != Some(&b'.') {
        end = digits(end + 1);
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exponent = end + 1;
        if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
            exponent += 1;
        }
        if bytes.get(exponent).is_some_and(u8::is_ascii_digit) {
            end = digits(exponent);
        }
    }
    end
}

/// The end of the string starting at `start` with a quote (quote to quote, past doubled
/// quotes), and whether it holds no doubled quote: its value is then what the quotes hold.
fn string_end(bytes: &[u8], start: usize) -> Fused<(usize, bool)> {
    let mut quote = start + 1;
    let mut plain = true;
    loop {
        quote += find_byte(&bytes[quote..], b'\'').ok_or(Unusual)?;
        if bytes.get(quote + 1) != Some(&b'\'') {
            return Ok((quote + 1, plain));
        }
        plain = false;
        quote += 2;
    }
}

/// The end of the quoted name starting at `start`: never a keyword. `""` inside, a
/// non-ASCII byte, an empty or a too long name, or no closing quote: the lexer decides.
fn quoted_name_end(bytes: &[u8], start: usize) -> Fused<usize> {
    // A byte at a time: names are short, shorter than a search takes to set up.
    let mut close = start + 1;
    while let Some(&byte) = bytes.get(close) {
        if byte == b'"' || !byte.is_ascii() {
            break;
        }
        close += 1;
    }
    let length = close - start - 1;
    if bytes.get(close) != Some(&b'"')
        || bytes.get(close + 1) == Some(&b'"')
        || length == 0
        || length > crate::syntax::lexer::IDENTIFIER_BYTES_MAX
    {
        return Err(Unusual);
    }
    Ok(close + 1)
}

/// The end of the `(` at `start`; `(+)`, Oracle's outer join, is the lexer's.
fn left_paren_end(bytes: &[u8], start: usize) -> Fused<usize> {
    let after = bytes[start + 1..]
        .iter()
        .position(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
    if after.is_some_and(|after| bytes[start + 1 + after] == b'+') {
        return Err(Unusual);
    }
    Ok(start + 1)
}

/// The kind of the lexeme at or after `index`, None at the end, for the rule that looks one
/// ahead of a number; only Word, Comma, RightParen and Semicolon are told apart. A lexeme
/// the pass does not take is read as `Other`: reading it next hands the text to the lexer.
#[inline(never)]
fn next_kind(bytes: &[u8], index: usize) -> Fused<Option<Kind>> {
    let start = skip_blanks(bytes, index)?;
    Ok(bytes
        .get(start)
        .map(|&byte| match BYTE_STARTS[usize::from(byte)] {
            Start::Word => Kind::Word,
            Start::Comma => Kind::Comma,
            Start::RightParen => Kind::RightParen,
            Start::Semicolon => Kind::Semicolon,
            _ => Kind::Other,
        }))
}

/// Whether the lexeme at or after `index` is the word BY.
#[inline(never)]
fn next_is_by(bytes: &[u8], index: usize) -> Fused<bool> {
    let start = skip_blanks(bytes, index)?;
    if bytes
        .get(start)
        .is_none_or(|&byte| BYTE_STARTS[usize::from(byte)] != Start::Word)
    {
        return Ok(false);
    }
    let end = word_end(bytes, start)?;
    Ok(keyword_classes(bytes, start, end) & KEYWORD_BY != 0)
}

/// The deepest parenthesis the fused pass follows: its sort lists and type sizes are bits of
/// a u64, one a depth. A text nested deeper goes to the lexer's path.
const FUSED_DEPTH_MAX: usize = 63;

/// The rules of the module documentation applied in one pass over `sql`'s bytes, a lexeme at
/// a time with no list of them: the text between replaced literals is copied a run at a
/// time, a word's keyword classes are found only when a rule asks, and the two rules that
/// look one lexeme ahead (ORDER or GROUP before BY; a number that is a whole ORDER BY item)
/// read only as far as that lexeme's first byte or word. Ok(whether literals were replaced),
/// with `text` and `binds` as `force_literals_into` leaves them; Unusual when the text is not
/// one the pass takes (`text` and `binds` then hold a part of the work, to be cleared).
///
/// This is `force_with` streamed: the ORDER and GROUP lists and the type sizes, stacks of
/// paren depths there, are sets of bits here. A stack's depths are never above the current
/// depth (a `)` pops those of the depth it closes, pushes are at the current depth), so its
/// top is the current depth exactly when the set holds it.
fn force_quickly(sql: &str, text: &mut String, binds: &mut Vec<Value>) -> Fused<bool> {
    let bytes = sql.as_bytes();
    let mut index = 0;
    let mut depth = 0usize;
    // A statement may open with parentheses: `(SELECT ...) UNION ...`. Its first word is
    // the one lexeme the rules below need not see: it opens no list, it sizes no type.
    let mut previous = loop {
        index = skip_blanks(bytes, index)?;
        match bytes.get(index).map(|&byte| BYTE_STARTS[usize::from(byte)]) {
            Some(Start::LeftParen) if depth < FUSED_DEPTH_MAX => {
                index = left_paren_end(bytes, index)?;
                depth += 1;
            }
            Some(Start::LeftParen) => return Err(Unusual),
            Some(Start::Word) => {
                let start = index;
                index = word_end(bytes, start)?;
                if keyword_classes(bytes, start, index) & KEYWORD_STATEMENT == 0 {
                    return Ok(false);
                }
                break Lexeme {
                    kind: Kind::Word,
                    start,
                    end: index,
                };
            }
            _ => return Ok(false),
        }
    };
    let previous_classes = |previous: &Lexeme| match previous.kind {
        Kind::Word => keyword_classes(bytes, previous.start, previous.end),
        _ => 0,
    };
    let mut written = 0;
    let mut sort_lists = 0u64;
    let mut type_sizes = 0u64;
    while let Some(&byte) = bytes.get(index) {
        // The space between words, before the table: most spaces are single ones.
        if byte == b' ' {
            index += 1;
            continue;
        }
        let start = index;
        // Read in the arms that ask: most lexemes are words.
        let following = || bytes.get(start + 1).copied();
        let mut plain_string = false;
        let (kind, replace) = match BYTE_STARTS[usize::from(byte)] {
            Start::Space => {
                index += 1;
                continue;
            }
            Start::Slash if following() == Some(b'*') => {
                index = comment_end(bytes, index)?;
                continue;
            }
            // Only ORDER and GROUP open a sort list: other words are not asked unless one is
            // open (for the clauses that close it).
            Start::Word => {
                index = word_end(bytes, start)?;
                if sort_lists != 0
                    || (index - start == 5 && matches!(byte, b'O' | b'o' | b'G' | b'g'))
                {
                    let classes = keyword_classes(bytes, start, index);
                    if classes & KEYWORD_ORDER_OR_GROUP != 0 && next_is_by(bytes, index)? {
                        sort_lists |= 1 << depth;
                    } else if classes & KEYWORD_CLAUSE != 0 {
                        sort_lists &= (1 << depth) - 1;
                    }
                }
                (Kind::Word, false)
            }
            Start::Digit => {
                index = number_end(bytes, start);
                (Kind::Number, true)
            }
            Start::Dot if following().is_some_and(|byte| byte.is_ascii_digit()) => {
                index = number_end(bytes, start);
                (Kind::Number, true)
            }
            Start::Quote => {
                (index, plain_string) = string_end(bytes, start)?;
                (
                    Kind::String,
                    previous_classes(&previous) & KEYWORD_TYPED_LITERAL == 0,
                )
            }
            Start::DoubleQuote => {
                index = quoted_name_end(bytes, start)?;
                (Kind::Other, false)
            }
            Start::LeftParen => {
                index = left_paren_end(bytes, start)?;
                if depth == FUSED_DEPTH_MAX {
                    return Err(Unusual);
                }
                depth += 1;
                if previous_classes(&previous) & KEYWORD_TYPE_NAME != 0 {
                    type_sizes |= 1 << depth;
                }
                (Kind::LeftParen, false)
            }
            Start::RightParen => {
                index += 1;
                type_sizes &= !(1 << depth);
                depth = depth.saturating_sub(1);
                sort_lists &= u64::MAX >> (FUSED_DEPTH_MAX - depth);
                (Kind::RightParen, false)
            }
            Start::Comma => {
                index += 1;
                (Kind::Comma, false)
            }
            Start::Semicolon => {
                index += 1;
                (Kind::Semicolon, false)
            }
            Start::Minus if following() == Some(b'-') => return Err(Unusual),
            Start::BangOrCaret if following() != Some(b'=') => return Err(Unusual),
            Start::Bar if following() != Some(b'|') => return Err(Unusual),
            Start::Slash
            | Start::Minus
            | Start::Dot
            | Start::BangOrCaret
            | Start::Bar
            | Start::Operator => {
                index += 1;
                (Kind::Other, false)
            }
            Start::Unusual => return Err(Unusual),
        };
        // A number keeps its text as a type's size, or as a whole ORDER BY or GROUP BY item.
        let replace = replace
            && !(kind == Kind::Number
                && (type_sizes & (1 << depth) != 0
                    || (sort_lists & (1 << depth) != 0
                        && matches!(previous.kind, Kind::Comma | Kind::Word)
                        && matches!(
                            next_kind(bytes, index)?,
                            None | Some(
                                Kind::Comma | Kind::RightParen | Kind::Semicolon | Kind::Word
                            )
                        ))));
        if replace {
            if text.is_empty() {
                text.reserve(sql.len() + 16);
            }
            text.push_str(&sql[written..start]);
            push_system_bind(text, binds.len());
            written = index;
            let literal = &sql[start..index];
            let value = if plain_string {
                // What `literal_value` makes of it, without looking for quotes again.
                Ok(Value::text(&literal[1..literal.len() - 1]))
            } else {
                literal_value(literal, kind)
            };
            match value {
                Ok(value) => binds.push(value),
                // A number too large for a NUMBER keeps the statement as written, but only
                // the lexer's tokens can tell: this one may have been replaced on a look
                // ahead at a lexeme the pass does not take (`GROUP BY x 1e400 é`).
                Err(_) => return Err(Unusual),
            }
        }
        previous = Lexeme {
            kind,
            start,
            end: index,
        };
    }
    if binds.is_empty() {
        return Ok(false);
    }
    text.push_str(&sql[written..]);
    Ok(true)
}

/// The position of the first `needle` in `haystack`, sixteen bytes at a time: the comments
/// and strings of literal SQL are short, where a general memchr spends more in setting up
/// than in searching.
fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let repeated = ONES * u64::from(needle);
    // The bytes of `eight` that are `needle`, flagged by their high bit; the lowest flagged
    // byte is always a true one.
    let flags = |eight: &[u8]| {
        let word = u64::from_le_bytes(eight.try_into().expect("eight bytes")) ^ repeated;
        word.wrapping_sub(ONES) & !word & HIGHS
    };
    let mut at = 0;
    while let Some(sixteen) = haystack.get(at..at + 16) {
        let (low, high) = (flags(&sixteen[..8]), flags(&sixteen[8..]));
        if low | high != 0 {
            let bits = if low != 0 {
                low.trailing_zeros()
            } else {
                64 + high.trailing_zeros()
            };
            return Some(at + bits as usize / 8);
        }
        at += 16;
    }
    if let Some(eight) = haystack.get(at..at + 8) {
        let low = flags(eight);
        if low != 0 {
            return Some(at + low.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    haystack[at..]
        .iter()
        .position(|&byte| byte == needle)
        .map(|position| at + position)
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
            keyword_classes(sql.as_bytes(), lexeme.start, lexeme.end)
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
/// forced parse writes). Inlined, with the numbers past the first ten out of line.
#[inline]
fn push_system_bind(text: &mut String, number: usize) {
    match FIRST_SYSTEM_BINDS.get(number) {
        Some(bind) => text.push_str(bind),
        None => push_numbered_system_bind(text, number),
    }
}

/// `push_system_bind` past the first ten.
#[inline(never)]
fn push_numbered_system_bind(text: &mut String, number: usize) {
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

/// The system binds most statements stop at, written out: one copy each, where digits and
/// quote go one push at a time.
const FIRST_SYSTEM_BINDS: [&str; 10] = [
    ":\"SYS_B_0\"",
    ":\"SYS_B_1\"",
    ":\"SYS_B_2\"",
    ":\"SYS_B_3\"",
    ":\"SYS_B_4\"",
    ":\"SYS_B_5\"",
    ":\"SYS_B_6\"",
    ":\"SYS_B_7\"",
    ":\"SYS_B_8\"",
    ":\"SYS_B_9\"",
];

/// The value of a literal written as `text`: a number is read as written; a string is
/// lexed again alone, which unescapes it exactly as the statement's own lexing would.
/// Inlined into the passes, with the rare cases out of line: most literals are plain
/// integers and plain strings, made in fewer instructions than a call takes.
#[inline(always)]
fn literal_value(text: &str, kind: Kind) -> Result<Value> {
    match kind {
        Kind::Number => match plain_integer(text) {
            Some(integer) => Ok(Value::Number(Decimal::from(integer))),
            None => Value::parse_number(text),
        },
        // The common case, 'text' with no quote inside: the value is what the quotes hold.
        _ if text.len() >= 2
            && text.starts_with('\'')
            && find_byte(&text.as_bytes()[1..text.len() - 1], b'\'').is_none() =>
        {
            Ok(Value::text(&text[1..text.len() - 1]))
        }
        _ => unescaped_string_value(text),
    }
}

/// The value of the string literal `text` (prefixed, quoted with `q'`, or holding doubled
/// quotes), lexed again alone.
#[inline(never)]
fn unescaped_string_value(text: &str) -> Result<Value> {
    match tokenize(text)?.into_iter().next().map(|token| token.kind) {
        Some(TokenKind::String(value) | TokenKind::NationalString(value)) => {
            Ok(Value::text(&value))
        }
        _ => unreachable!("a literal's text lexes as that literal"),
    }
}

/// The value of a number written as at most 19 digits and nothing else (`12`, `0412345`),
/// which is what most numbers in SQL texts are: `Value::parse_number` makes the same NUMBER
/// of it (scale 0), through a vector of its digits.
fn plain_integer(text: &str) -> Option<u64> {
    // 19 nines fit in a u64.
    if text.is_empty() || text.len() > 19 {
        return None;
    }
    text.bytes().try_fold(0u64, |value, byte| {
        byte.is_ascii_digit()
            .then(|| value * 10 + u64::from(byte - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pass before `force_quickly`, kept as the reference it is checked against: the
    /// lexemes of the texts most literal SQL is made of, all made before `force_with` reads
    /// them: ASCII words, numbers, plain quoted strings, plain quoted names, plain comments,
    /// whitespace and operators. Anything else (a hint, a `--` comment, a bind, a prefixed
    /// string, `(+)`, a non-ASCII byte, an unterminated string or comment) returns false, and
    /// the lexer decides.
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
                    if word.len() > crate::syntax::lexer::IDENTIFIER_BYTES_MAX
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
                        || length > crate::syntax::lexer::IDENTIFIER_BYTES_MAX
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
                b'<' | b'>' | b'=' | b'!' | b'^' | b'|' | b'+' | b'-' | b'*' | b'/' | b'%'
                | b'.' => {
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

    fn forced(sql: &str) -> Option<String> {
        force_literals(sql).map(|forced| forced.text)
    }

    /// The pass as it was before `force_quickly`: the reference scan's lexemes, or the
    /// lexer's, read by `force_with`.
    fn forced_by_the_reference(sql: &str) -> Option<ForcedText> {
        let (mut text, mut binds) = (String::new(), Vec::new());
        let mut lexemes = Vec::new();
        let forced = if quick_scan(sql, &mut lexemes) {
            force_with(sql, &lexemes, &mut text, &mut binds)
        } else {
            lexer_lexemes(sql)
                .is_some_and(|lexemes| force_with(sql, &lexemes, &mut text, &mut binds))
        };
        forced.then_some(ForcedText { text, binds })
    }

    /// The same text and the same binds, down to a NUMBER's scale (which `Value`'s equality
    /// does not see, and its Debug form does).
    fn assert_same(found: &Option<ForcedText>, expected: &Option<ForcedText>, sql: &str) {
        let written = |forced: &Option<ForcedText>| {
            forced
                .as_ref()
                .map(|forced| (forced.text.clone(), format!("{:?}", forced.binds)))
        };
        assert_eq!(written(found), written(expected), "{sql:?}");
    }

    /// What the pass gives, checked against the reference, into buffers that held another
    /// statement's forced text (as a session's do).
    fn forced_as_before(sql: &str) -> Option<ForcedText> {
        let mut text = "SELECT :\"SYS_B_0\" FROM dual".to_string();
        let mut binds = vec![Value::text("stale")];
        let forced =
            force_literals_into(sql, &mut text, &mut binds).then_some(ForcedText { text, binds });
        assert_same(&forced, &forced_by_the_reference(sql), sql);
        forced
    }

    /// What the lexer's tokens give, checked against the reference scan's and the fused
    /// pass's where they take the text, and against the pass as it was.
    fn forced_by_the_lexer(sql: &str) -> Option<ForcedText> {
        // A text the lexer rejects is kept as written: the quick scan must not force it.
        let forced = |lexemes: &[Lexeme]| {
            let (mut text, mut binds) = (String::new(), Vec::new());
            force_with(sql, lexemes, &mut text, &mut binds).then_some(ForcedText { text, binds })
        };
        let by_the_lexer = lexer_lexemes(sql).and_then(|lexemes| forced(&lexemes));
        let mut lexemes = Vec::new();
        if quick_scan(sql, &mut lexemes) {
            assert_same(&forced(&lexemes), &by_the_lexer, sql);
        }
        let (mut text, mut binds) = (String::new(), Vec::new());
        if let Ok(fused) = force_quickly(sql, &mut text, &mut binds) {
            assert_same(
                &fused.then_some(ForcedText { text, binds }),
                &by_the_lexer,
                sql,
            );
        }
        forced_as_before(sql);
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

    /// Picks from `unusual` once in `one_in` times, from `usual` otherwise: a text with one of
    /// the `unusual` goes to the lexer, and most generated texts should not.
    fn mostly<T: Clone + std::fmt::Debug + 'static>(
        usual: Vec<T>,
        unusual: Vec<T>,
        one_in: u32,
    ) -> impl proptest::strategy::Strategy<Value = T> {
        proptest::prop_oneof![
            one_in - 1 => proptest::sample::select(usual),
            1 => proptest::sample::select(unusual),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]
        /// Random characters, after an opening that makes a statement of the text most of the
        /// time.
        #[test]
        fn the_fused_pass_agrees_with_the_reference_on_random_texts(
            head in "(SELECT |select |\\(select |insert into |update |with |call |create |)",
            characters in proptest::collection::vec(mostly(
                "aeioSsELlTtCRrODdBYyGgNnMmXx_0123456789012345      ''(()),,.=<>+-*/;\n\t"
                    .chars()
                    .collect(),
                ":@é€\x0b\x0c!^%$#?[]&~{\r\"|".chars().collect(),
                200,
            ), 0..80),
        ) {
            let body: String = characters.into_iter().collect();
            let _ = forced_by_the_lexer(&format!("{head}{body}"));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]
        /// Tokens the rules look at, glued together or spaced: sort lists and the clauses that
        /// close them, type sizes, typed literals, nesting, and what the fused pass leaves to
        /// the lexer.
        #[test]
        fn the_fused_pass_agrees_with_the_reference_on_keywords(
            head in proptest::sample::select(vec![
                "select", "SELECT", "(select", "((select", "( select", "insert into", "update",
                "delete from", "with", "merge", "call", "Call", "begin", "(", "", "selects",
            ]),
            words in proptest::collection::vec((mostly(vec![
                "from", "t", "where", "x", "=", "'a'", "'it''s'", "''", "1", "2.5", "007",
                "1e5", "1E-3", "1e", "1..2", ".5", ".", "0", "1234567890123456789",
                "12345678901234567890", "99999999999999999999999999999999", "1e400", ",", "(",
                ")", "order by", "ORDER", "BY", "group BY", "group", "by", "cast",
                "as", "number", "Varchar2", "char", "raw", "float", "dec", "date", "timestamp",
                "interval", "day", "year", "month", "to", "second", "having", "union", "minus",
                "intersect", "except", "offset", "for", "fetch", "rows", "only", "/* c */",
                "/* 'x' */", "/**/", "-", "+", "*", "/", "%", "values", ";", "\"DUMMY\"",
                "x$y#", "_x", "!=", "^=", "||", "<>", "<=", "\t", "\n",
            ], vec![
                "'", "(+)", "( +", "n'x'", "N'", "q'[y]'", "nq'", "/*", "*/", "--c\n", ":b",
                ":\"SYS_B_0\"", "?", "@", "/*+ cursor_sharing_exact */", "/*+ full(t) */",
                "\"a\"\"b\"", "\"\"", "\"open", "\"é\"", "é", "!", "^", "|",
            ], 40), proptest::sample::select(vec![" ", " ", " ", "", "  ", "\n"])), 1..32)
        ) {
            let body: String = words
                .iter()
                .map(|(word, separator)| format!("{word}{separator}"))
                .collect();
            let _ = forced_by_the_lexer(&format!("{head} {body}"));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]
        /// Few words, many parentheses: what opens and closes with a depth (a sort list, a
        /// type's size) against what a later parenthesis holds.
        #[test]
        fn the_fused_pass_agrees_with_the_reference_on_nesting(
            words in proptest::collection::vec(proptest::sample::select(vec![
                "(", "(", "(", ")", ")", ")", ",", ",", "1", "2", "'a'", "x", "order by",
                "group by", "number", "timestamp", "date", "from", "union",
            ]), 1..28)
        ) {
            let _ = forced_by_the_lexer(&format!("select {}", words.join(" ")));
        }
    }

    #[test]
    fn a_literal_without_a_value_is_left_to_the_lexer() {
        // The fused pass read `1e400` as replaced (the lexeme after it, `é`, is not one it
        // takes, so it was not seen to be a word), found no NUMBER for it and kept the
        // statement as written; the lexer sees `1e400` as a whole GROUP BY item, keeps it,
        // and forces `2.5`.
        for sql in [
            "select 2.5 + x group BY rows x\n.1e400 é",
            "select 2.5 from t group by 1e400 é",
            "select 1e400 from t",
        ] {
            let _ = forced_by_the_lexer(sql);
        }
        assert_eq!(
            forced("select 2.5 from t group by 1e400 é").unwrap(),
            "select :\"SYS_B_0\" from t group by 1e400 é"
        );
        assert_eq!(forced("select 1e400 from t"), None);
    }

    #[test]
    fn texts_nested_deeper_than_the_fused_pass_follows_go_to_the_lexer() {
        for depth in [
            FUSED_DEPTH_MAX - 1,
            FUSED_DEPTH_MAX,
            FUSED_DEPTH_MAX + 1,
            100,
        ] {
            let (open, close) = ("(".repeat(depth), ")".repeat(depth));
            for sql in [
                format!("select {open}1{close} from t order by 1"),
                format!("select {open}select a from t order by 1, 2{close} from t where a = 3"),
                format!("{open}select 1 from t{close}"),
                format!("select cast({open}1{close} as number(5, 2)) from t"),
                format!("select {open}x order by 2 group by 3, 4{close} where b = 5"),
            ] {
                let _ = forced_by_the_lexer(&sql);
            }
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

    /// The keyword classes of `word` alone, at the end of a text and before more text (the
    /// three ways `word_in_capitals` reads it), which must agree.
    fn classes_anywhere(word: &[u8]) -> u8 {
        let alone = keyword_classes(word, 0, word.len());
        let after = [b"x ".as_slice(), word].concat();
        let before = [word, b" x, ybyz12345678".as_slice()].concat();
        assert_eq!(keyword_classes(&after, 2, after.len()), alone, "{word:?}");
        assert_eq!(keyword_classes(&before, 0, word.len()), alone, "{word:?}");
        alone
    }

    /// Each keyword class and its keywords.
    const KEYWORDS_BY_CLASS: [(u8, &str); 6] = [
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

    #[test]
    fn every_keyword_is_classified_in_any_case() {
        for (class, words) in KEYWORDS_BY_CLASS {
            for word in words.split_whitespace() {
                let mixed: String = word
                    .chars()
                    .enumerate()
                    .map(|(at, c)| {
                        if at % 2 == 0 {
                            c.to_ascii_lowercase()
                        } else {
                            c
                        }
                    })
                    .collect();
                for written in [word.to_string(), word.to_lowercase(), mixed] {
                    assert_ne!(classes_anywhere(written.as_bytes()) & class, 0, "{written}");
                }
                // A byte that differs from the keyword's in its high bit.
                for at in 0..word.len() {
                    let mut high = word.as_bytes().to_vec();
                    high[at] |= 0x80;
                    assert_eq!(classes_anywhere(&high), 0, "{high:?}");
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
            assert_eq!(classes_anywhere(name.as_bytes()), 0, "{name}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]
        #[test]
        fn a_plain_integer_is_the_number_parse_number_makes(
            digits in "[0-9]{1,21}|0{0,20}[0-9]{1,3}|[1-9]0{0,20}",
        ) {
            let parsed = Value::parse_number(&digits).unwrap();
            let found = literal_value(&digits, Kind::Number).unwrap();
            // The same NUMBER down to its scale and bytes, not only an equal one.
            let serialized = |value: &Value| match value {
                Value::Number(number) => number.serialize(),
                _ => panic!("{value:?}"),
            };
            proptest::prop_assert_eq!(serialized(&found), serialized(&parsed), "{}", digits);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]
        /// Keywords changed a byte at a time (case, the bits that case and ASCII are made of,
        /// the next byte) and cut or lengthened, against a plain case-insensitive comparison.
        #[test]
        fn keyword_classes_compare_without_case_and_nothing_else(
            keyword in proptest::sample::select(
                KEYWORDS_BY_CLASS
                    .iter()
                    .flat_map(|(_, words)| words.split_whitespace())
                    .collect::<Vec<_>>(),
            ),
            changes in proptest::collection::vec(0u8..8, 9),
            cut in 0usize..11,
            tail in proptest::sample::select(vec!["", "S", "_", "2", "\u{e9}"]),
        ) {
            let mut word: Vec<u8> = keyword
                .bytes()
                .zip(&changes)
                .map(|(byte, change)| match change {
                    0 => byte.to_ascii_lowercase(),
                    1 => byte ^ 0x20,
                    2 => byte ^ 0x80,
                    3 => byte.wrapping_add(1),
                    4 => byte ^ 0x40,
                    _ => byte,
                })
                .collect();
            word.truncate(cut.max(1));
            word.extend_from_slice(tail.as_bytes());
            let expected = KEYWORDS_BY_CLASS
                .iter()
                .filter(|(_, words)| {
                    words
                        .split_whitespace()
                        .any(|keyword| word.eq_ignore_ascii_case(keyword.as_bytes()))
                })
                .fold(0, |classes, (class, _)| classes | class);
            proptest::prop_assert_eq!(classes_anywhere(&word), expected, "{:?}", word);
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
            crate::syntax::parser::parse(&forced.text)
                .unwrap_or_else(|error| panic!("{}: {error}", forced.text));
        }
    }
}
