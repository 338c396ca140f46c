//! The lexer: statement text to tokens.
//!
//! [`tokenize`] reads the text once, left to right, and returns every token with the byte
//! range it came from. Whitespace and comments produce no token; an optimizer hint
//! (`/*+ ... */` or `--+ ...`) is a [`TokenKind::Hint`], because hints change plans. The
//! parser decides whether a hint is in a place where it counts.
//!
//! ```text
//!   SELECT /*+ FULL(t) */ c FROM t WHERE c = 'it''s'
//!   └Word┘ └────Hint────┘ W └Wo┘ W └Word┘ W = └String┘   String value: it's
//! ```
//!
//! Invariants:
//!
//! 1. Tokens are in text order and do not overlap, and `&sql[token.start..token.end]` is
//!    exactly the token as written (quotes, prefixes and `''` escapes included). CURSOR_SHARING
//!    =FORCE replaces literal tokens by binds using these offsets, so they must be exact, and
//!    they are always on `char` boundaries.
//! 2. Unquoted words are uppercased ([`TokenKind::Word`]); whether a word is a keyword is the
//!    parser's business. Quoted identifiers keep their case.
//! 3. String values are unescaped; numbers keep their text. No value is converted here.
//!
//! Failures stop at the first error, with the byte offset where the offending token starts:
//! ORA-01756 (string not terminated), ORA-01740 (quoted identifier not terminated), ORA-01741
//! (empty quoted identifier), ORA-01742 (comment not terminated), ORA-00911 (invalid
//! character), ORA-00972 (identifier longer than [`IDENTIFIER_BYTES_MAX`]).

use crate::error::{Error, Result};

/// Oracle's limit on the length of an identifier, in bytes (12.2 and later).
pub const IDENTIFIER_BYTES_MAX: usize = 128;

/// A token and the byte range of the text it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    /// Offset of the token's first byte.
    pub start: usize,
    /// Offset just past the token's last byte.
    pub end: usize,
}

impl Token {
    /// The token as written in `sql`, the text it was read from.
    pub fn text<'a>(&self, sql: &'a str) -> &'a str {
        &sql[self.start..self.end]
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// An unquoted identifier or keyword, uppercased: letters, digits, `_`, `$`, `#`.
    Word(String),
    /// `"Name"`: the name as written, `""` unescaped.
    QuotedIdentifier(String),
    /// `'...'` or `q'[...]'`: the string's value.
    String(String),
    /// `N'...'` or `nq'[...]'`: the string's value.
    NationalString(String),
    /// A number as written: `12`, `12.5`, `.5`, `1e10`, `1.5E-3`.
    Number(String),
    /// A bind variable's name: `:name` is `NAME`, `:1` and `$1` are `1`, `:"SYS_B_0"` is `SYS_B_0`.
    Bind(String),
    /// The text between `/*+` and `*/` (or after `--+` to the end of the line), trimmed.
    Hint(String),
    Equal,
    /// `<>`, `!=` and `^=`.
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    /// `||`
    Concat,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    LeftParen,
    RightParen,
    Comma,
    Period,
    Semicolon,
    Colon,
    /// PostgreSQL's cast operator `::`.
    DoubleColon,
    /// Oracle's outer-join marker `(+)`, also written with spaces inside: `( + )`.
    OuterJoin,
    /// PostgreSQL's regular expression match operators: `~`, `~*` (case-insensitive), and
    /// their negations `!~`, `!~*`.
    RegularExpressionMatch {
        negated: bool,
        case_insensitive: bool,
    },
    /// `[` and `]`: PostgreSQL's array subscripts and array types (`int2[]`).
    LeftBracket,
    RightBracket,
}

impl TokenKind {
    /// Whether this token is a literal that CURSOR_SHARING=FORCE replaces by a bind.
    pub fn is_literal(&self) -> bool {
        matches!(
            self,
            TokenKind::String(_) | TokenKind::NationalString(_) | TokenKind::Number(_)
        )
    }
}

/// Splits `sql` into tokens. See the module documentation for the rules and the errors.
pub fn tokenize(sql: &str) -> Result<Vec<Token>> {
    lex(sql, true)
}

/// `tokenize` without the values: the same kinds, spans and errors, with every string in a
/// kind left empty, so that nothing but the token vector is allocated. For passes that read
/// the text itself through the spans (CURSOR_SHARING = FORCE's).
pub fn tokenize_spans(sql: &str) -> Result<Vec<Token>> {
    lex(sql, false)
}

fn lex(sql: &str, values: bool) -> Result<Vec<Token>> {
    let mut lexer = Lexer {
        sql,
        position: 0,
        // About one token per six bytes of SQL: one allocation for most statements.
        tokens: Vec::with_capacity(sql.len() / 6 + 4),
        values,
    };
    while lexer.position < sql.len() {
        lexer.next_token()?;
    }
    Ok(lexer.tokens)
}

/// Whether `sql` begins with a word that is none of `words` (upper case), told without
/// lexing it: true only when the text starts, after ASCII spaces, with a plain word (ASCII
/// letters, digits and `_`) followed by a space or the end. Anything else (a comment or a
/// quote first, another character after the word) is false, for the lexer to read. Checks
/// that only care for statements of a few kinds (COPY, transaction words, CREATE or ALTER
/// USER) skip a tokenization of every other statement this way.
pub fn begins_with_none_of(sql: &str, words: &[&str]) -> bool {
    let bytes = sql.trim_ascii_start().as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let end = bytes
        .iter()
        .position(|byte| !(byte.is_ascii_alphanumeric() || *byte == b'_'))
        .unwrap_or(bytes.len());
    if !bytes.get(end).is_none_or(u8::is_ascii_whitespace) {
        return false;
    }
    let first = &bytes[..end];
    !words
        .iter()
        .any(|word| word.as_bytes().eq_ignore_ascii_case(first))
}

/// Whether `word` (uppercase) is one of Oracle's reserved words, which cannot be used as an
/// unquoted identifier.
pub fn is_reserved_word(word: &str) -> bool {
    RESERVED_WORDS.binary_search(&word).is_ok()
}

/// Oracle's reserved words (V$RESERVED_WORDS with RESERVED = 'Y'), sorted for binary search.
const RESERVED_WORDS: &[&str] = &[
    "ACCESS",
    "ADD",
    "ALL",
    "ALTER",
    "AND",
    "ANY",
    "AS",
    "ASC",
    "AUDIT",
    "BETWEEN",
    "BY",
    "CHAR",
    "CHECK",
    "CLUSTER",
    "COLUMN",
    "COMMENT",
    "COMPRESS",
    "CONNECT",
    "CREATE",
    "CURRENT",
    "DATE",
    "DECIMAL",
    "DEFAULT",
    "DELETE",
    "DESC",
    "DISTINCT",
    "DROP",
    "ELSE",
    "EXCLUSIVE",
    "EXISTS",
    "FILE",
    "FLOAT",
    "FOR",
    "FROM",
    "GRANT",
    "GROUP",
    "HAVING",
    "IDENTIFIED",
    "IMMEDIATE",
    "IN",
    "INCREMENT",
    "INDEX",
    "INITIAL",
    "INSERT",
    "INTEGER",
    "INTERSECT",
    "INTO",
    "IS",
    "LEVEL",
    "LIKE",
    "LOCK",
    "LONG",
    "MAXEXTENTS",
    "MINUS",
    "MLSLABEL",
    "MODE",
    "MODIFY",
    "NOAUDIT",
    "NOCOMPRESS",
    "NOT",
    "NOWAIT",
    "NULL",
    "NUMBER",
    "OF",
    "OFFLINE",
    "ON",
    "ONLINE",
    "OPTION",
    "OR",
    "ORDER",
    "PCTFREE",
    "PRIOR",
    "PRIVILEGES",
    "PUBLIC",
    "RAW",
    "RENAME",
    "RESOURCE",
    "REVOKE",
    "ROW",
    "ROWID",
    "ROWNUM",
    "ROWS",
    "SELECT",
    "SESSION",
    "SET",
    "SHARE",
    "SIZE",
    "SMALLINT",
    "START",
    "SUCCESSFUL",
    "SYNONYM",
    "SYSDATE",
    "TABLE",
    "THEN",
    "TO",
    "TRIGGER",
    "UID",
    "UNION",
    "UNIQUE",
    "UPDATE",
    "USER",
    "VALIDATE",
    "VALUES",
    "VARCHAR",
    "VARCHAR2",
    "VIEW",
    "WHENEVER",
    "WHERE",
    "WITH",
];

struct Lexer<'a> {
    sql: &'a str,
    /// Offset of the next byte to read; always on a `char` boundary.
    position: usize,
    tokens: Vec<Token>,
    /// Whether tokens carry their values (`tokenize`) or only kinds and spans, their
    /// strings left empty (`tokenize_spans`).
    values: bool,
}

impl Lexer<'_> {
    /// `make()` when values are asked for, else an empty string (which allocates nothing).
    fn value(&self, make: impl FnOnce() -> String) -> String {
        if self.values {
            make()
        } else {
            String::new()
        }
    }
}

fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

fn is_word_character(character: char) -> bool {
    character.is_alphanumeric() || matches!(character, '_' | '$' | '#')
}

fn unterminated_string(position: usize) -> Error {
    Error::syntax(1756, "quoted string not properly terminated", position)
}

fn invalid_character(position: usize) -> Error {
    Error::syntax(911, "invalid character", position)
}

fn identifier_too_long(position: usize) -> Error {
    Error::syntax(972, "identifier is too long", position)
}

impl Lexer<'_> {
    fn byte_at(&self, index: usize) -> Option<u8> {
        self.sql.as_bytes().get(index).copied()
    }

    fn char_at(&self, index: usize) -> Option<char> {
        self.sql.get(index..)?.chars().next()
    }

    /// The offset of the first byte at or after `index` that does not satisfy `accept`.
    fn skip_bytes(&self, mut index: usize, accept: impl Fn(u8) -> bool) -> usize {
        while self.byte_at(index).is_some_and(&accept) {
            index += 1;
        }
        index
    }

    fn push(&mut self, kind: TokenKind, start: usize, end: usize) {
        debug_assert!(start < end && end <= self.sql.len() && self.sql.is_char_boundary(end));
        self.tokens.push(Token { kind, start, end });
        self.position = end;
    }

    fn next_token(&mut self) -> Result<()> {
        let start = self.position;
        let next = self.byte_at(start + 1);
        match self.sql.as_bytes()[start] {
            byte if is_whitespace(byte) => self.position = self.skip_bytes(start, is_whitespace),
            b'-' if next == Some(b'-') => self.line_comment(start),
            b'/' if next == Some(b'*') => self.block_comment(start)?,
            b'\'' => self.string_literal(start, start, false)?,
            b'"' => self.quoted_identifier(start)?,
            b'0'..=b'9' => self.number(start),
            b'.' if next.is_some_and(|byte| byte.is_ascii_digit()) => self.number(start),
            b':' => self.colon(start)?,
            b'$' if next.is_some_and(|byte| byte.is_ascii_digit()) => {
                let end = self.skip_bytes(start + 1, |byte| byte.is_ascii_digit());
                let name = self.value(|| self.sql[start + 1..end].to_string());
                self.push(TokenKind::Bind(name), start, end);
            }
            b'(' => self.left_parenthesis(start),
            _ => self.word_or_operator(start)?,
        }
        Ok(())
    }

    /// `-- ...` to the end of the line, or a `--+ ...` hint.
    fn line_comment(&mut self, start: usize) {
        let end = self.sql[start..]
            .find('\n')
            .map_or(self.sql.len(), |offset| start + offset);
        if self.byte_at(start + 2) == Some(b'+') {
            let hint = self.value(|| self.sql[start + 3..end].trim().to_string());
            self.push(TokenKind::Hint(hint), start, end);
        } else {
            self.position = end;
        }
    }

    /// `/* ... */`, or a `/*+ ... */` hint.
    fn block_comment(&mut self, start: usize) -> Result<()> {
        let Some(offset) = self.sql[start + 2..].find("*/") else {
            return Err(Error::syntax(
                1742,
                "comment not properly terminated",
                start,
            ));
        };
        let close = start + 2 + offset;
        if self.byte_at(start + 2) == Some(b'+') {
            let hint = self.value(|| self.sql[start + 3..close].trim().to_string());
            self.push(TokenKind::Hint(hint), start, close + 2);
        } else {
            self.position = close + 2;
        }
        Ok(())
    }

    /// `'...'` with `''` for a quote; `quote` is the offset of the opening quote, `start` the
    /// token's (before an `N` prefix).
    fn string_literal(&mut self, start: usize, quote: usize, national: bool) -> Result<()> {
        let mut value = String::new();
        let mut segment = quote + 1;
        let mut index = quote + 1;
        loop {
            match self.byte_at(index) {
                None => return Err(unterminated_string(start)),
                Some(b'\'') if self.byte_at(index + 1) == Some(b'\'') => {
                    if self.values {
                        value.push_str(&self.sql[segment..=index]);
                    }
                    index += 2;
                    segment = index;
                }
                Some(b'\'') => break,
                // A quote byte never occurs inside a multibyte UTF-8 sequence, so scanning
                // bytes finds the same quotes as scanning chars.
                Some(_) => index += 1,
            }
        }
        if self.values {
            value.push_str(&self.sql[segment..index]);
        }
        let kind = if national {
            TokenKind::NationalString(value)
        } else {
            TokenKind::String(value)
        };
        self.push(kind, start, index + 1);
        Ok(())
    }

    /// Oracle's alternative quoting `q'<delimiter>...<closing delimiter>'`, where the
    /// delimiters are `[]`, `{}`, `()`, `<>`, or twice the same character.
    fn q_quoted_string(&mut self, start: usize, quote: usize, national: bool) -> Result<()> {
        let Some(open) = self
            .char_at(quote + 1)
            .filter(|character| !character.is_whitespace())
        else {
            return Err(unterminated_string(start));
        };
        let close = match open {
            '[' => ']',
            '{' => '}',
            '(' => ')',
            '<' => '>',
            other => other,
        };
        let content = quote + 1 + open.len_utf8();
        let terminator: String = [close, '\''].iter().collect();
        let Some(length) = self.sql[content..].find(&terminator) else {
            return Err(unterminated_string(start));
        };
        let value = self.value(|| self.sql[content..content + length].to_string());
        let kind = if national {
            TokenKind::NationalString(value)
        } else {
            TokenKind::String(value)
        };
        self.push(kind, start, content + length + terminator.len());
        Ok(())
    }

    /// `"..."` with `""` for a double quote.
    fn quoted_identifier(&mut self, start: usize) -> Result<()> {
        let mut name = String::new();
        let mut segment = start + 1;
        let mut index = start + 1;
        loop {
            match self.byte_at(index) {
                None => {
                    return Err(Error::syntax(
                        1740,
                        "missing double quote in identifier",
                        start,
                    ))
                }
                Some(b'"') if self.byte_at(index + 1) == Some(b'"') => {
                    name.push_str(&self.sql[segment..=index]);
                    index += 2;
                    segment = index;
                }
                Some(b'"') => break,
                Some(_) => index += 1,
            }
        }
        name.push_str(&self.sql[segment..index]);
        if name.is_empty() {
            return Err(Error::syntax(1741, "illegal zero-length identifier", start));
        }
        if name.len() > IDENTIFIER_BYTES_MAX {
            return Err(identifier_too_long(start));
        }
        self.push(TokenKind::QuotedIdentifier(name), start, index + 1);
        Ok(())
    }

    /// Digits, an optional fraction, and an optional exponent that has at least one digit
    /// (`1e` is the number 1 followed by the word E).
    fn number(&mut self, start: usize) {
        let digit = |byte: u8| byte.is_ascii_digit();
        let mut end = self.skip_bytes(start, digit);
        if self.byte_at(end) == Some(b'.') && self.byte_at(end + 1) != Some(b'.') {
            end = self.skip_bytes(end + 1, digit);
        }
        if matches!(self.byte_at(end), Some(b'e' | b'E')) {
            let mut exponent = end + 1;
            if matches!(self.byte_at(exponent), Some(b'+' | b'-')) {
                exponent += 1;
            }
            if self.byte_at(exponent).is_some_and(digit) {
                end = self.skip_bytes(exponent, digit);
            }
        }
        let number = self.value(|| self.sql[start..end].to_string());
        self.push(TokenKind::Number(number), start, end);
    }

    /// `::`, a bind (`:name`, `:1`, `:"name"`), or a lone `:`.
    fn colon(&mut self, start: usize) -> Result<()> {
        let after = start + 1;
        match self.byte_at(after) {
            Some(b':') => self.push(TokenKind::DoubleColon, start, start + 2),
            Some(b'"') => {
                let Some(length) = self.sql[after + 1..].find('"') else {
                    return Err(Error::syntax(
                        1740,
                        "missing double quote in identifier",
                        start,
                    ));
                };
                let name = &self.sql[after + 1..after + 1 + length];
                if name.is_empty() {
                    return Err(Error::syntax(1741, "illegal zero-length identifier", start));
                }
                if name.len() > IDENTIFIER_BYTES_MAX {
                    return Err(identifier_too_long(start));
                }
                let name = self.value(|| name.to_string());
                self.push(TokenKind::Bind(name), start, after + length + 2);
            }
            Some(byte) if byte.is_ascii_digit() => {
                let end = self.skip_bytes(after, |byte| byte.is_ascii_digit());
                let name = self.value(|| self.sql[after..end].to_string());
                self.push(TokenKind::Bind(name), start, end);
            }
            _ if self
                .char_at(after)
                .is_some_and(|character| character.is_alphabetic() || character == '_') =>
            {
                let end = self.word_end(after);
                if end - after > IDENTIFIER_BYTES_MAX {
                    return Err(identifier_too_long(start));
                }
                let name = self.value(|| self.sql[after..end].to_uppercase());
                self.push(TokenKind::Bind(name), start, end);
            }
            _ => self.push(TokenKind::Colon, start, after),
        }
        Ok(())
    }

    /// `(`, or the outer-join marker `(+)` with optional whitespace inside.
    fn left_parenthesis(&mut self, start: usize) {
        let plus = self.skip_bytes(start + 1, is_whitespace);
        if self.byte_at(plus) == Some(b'+') {
            let close = self.skip_bytes(plus + 1, is_whitespace);
            if self.byte_at(close) == Some(b')') {
                self.push(TokenKind::OuterJoin, start, close + 1);
                return;
            }
        }
        self.push(TokenKind::LeftParen, start, start + 1);
    }

    /// The offset just past the word characters starting at `start`.
    fn word_end(&self, start: usize) -> usize {
        // ASCII bytes first (most words); a non-ASCII byte hands over to the char scan.
        let bytes = self.sql.as_bytes();
        let mut end = start;
        while let Some(&byte) = bytes.get(end) {
            if !byte.is_ascii() {
                return self.sql[end..]
                    .char_indices()
                    .find(|&(_, character)| !is_word_character(character))
                    .map_or(self.sql.len(), |(offset, _)| end + offset);
            }
            if !(byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'#')) {
                break;
            }
            end += 1;
        }
        end
    }

    fn word_or_operator(&mut self, start: usize) -> Result<()> {
        let Some(character) = self.char_at(start) else {
            return Err(Error::internal(format!(
                "lexer position {start} is not on a character boundary"
            )));
        };
        if character.is_alphabetic() || character == '_' {
            return self.word(start);
        }
        let next = self.byte_at(start + 1);
        let (kind, length) = match character {
            '=' => (TokenKind::Equal, 1),
            '<' if next == Some(b'=') => (TokenKind::LessOrEqual, 2),
            '<' if next == Some(b'>') => (TokenKind::NotEqual, 2),
            '<' => (TokenKind::Less, 1),
            '>' if next == Some(b'=') => (TokenKind::GreaterOrEqual, 2),
            '>' => (TokenKind::Greater, 1),
            '!' | '^' if next == Some(b'=') => (TokenKind::NotEqual, 2),
            '~' | '!' if character == '~' || next == Some(b'~') => {
                let negated = character == '!';
                let tilde_end = start + negated as usize + 1;
                let case_insensitive = self.byte_at(tilde_end) == Some(b'*');
                (
                    TokenKind::RegularExpressionMatch {
                        negated,
                        case_insensitive,
                    },
                    tilde_end - start + case_insensitive as usize,
                )
            }
            '[' => (TokenKind::LeftBracket, 1),
            ']' => (TokenKind::RightBracket, 1),
            '|' if next == Some(b'|') => (TokenKind::Concat, 2),
            '+' => (TokenKind::Plus, 1),
            '-' => (TokenKind::Minus, 1),
            '*' => (TokenKind::Star, 1),
            '/' => (TokenKind::Slash, 1),
            '%' => (TokenKind::Percent, 1),
            ')' => (TokenKind::RightParen, 1),
            ',' => (TokenKind::Comma, 1),
            '.' => (TokenKind::Period, 1),
            ';' => (TokenKind::Semicolon, 1),
            _ => return Err(invalid_character(start)),
        };
        self.push(kind, start, start + length);
        Ok(())
    }

    /// A word, or a string with an `N`, `Q` or `NQ` prefix.
    fn word(&mut self, start: usize) -> Result<()> {
        let end = self.word_end(start);
        let text = &self.sql[start..end];
        if self.byte_at(end) == Some(b'\'') {
            if text.eq_ignore_ascii_case("n") {
                return self.string_literal(start, end, true);
            }
            if text.eq_ignore_ascii_case("q") {
                return self.q_quoted_string(start, end, false);
            }
            if text.eq_ignore_ascii_case("nq") {
                return self.q_quoted_string(start, end, true);
            }
        }
        if text.len() > IDENTIFIER_BYTES_MAX {
            return Err(identifier_too_long(start));
        }
        // Most words are ASCII, whose uppercasing is a byte map (to_uppercase walks chars).
        let word = self.value(|| {
            if text.is_ascii() {
                text.to_ascii_uppercase()
            } else {
                text.to_uppercase()
            }
        });
        self.push(TokenKind::Word(word), start, end);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_word_is_told_without_the_lexer_only_when_it_is_plain() {
        let words = ["COPY", "COMMIT"];
        assert!(begins_with_none_of("select 1 from dual", &words));
        assert!(begins_with_none_of("SELECT", &words));
        assert!(begins_with_none_of(" \n select 1 from dual", &words));
        assert!(begins_with_none_of("committed_rows\tx", &words));
        for text in [
            "copy t from stdin",
            "Commit",
            "commit;",
            "commit/* why */",
            "/* c */ select 1 from dual",
            "\"SELECT\" x",
            "",
        ] {
            assert!(!begins_with_none_of(text, &words), "{text}");
        }
    }

    /// `tokenize_spans` must find exactly `tokenize`'s tokens (kinds and spans) and errors:
    /// CURSOR_SHARING = FORCE replaces literals at the spans it finds.
    fn same_spans(sql: &str) {
        let full = tokenize(sql);
        let spans = tokenize_spans(sql);
        match (full, spans) {
            (Ok(full), Ok(spans)) => {
                assert_eq!(full.len(), spans.len(), "{sql:?}");
                for (a, b) in full.iter().zip(&spans) {
                    assert_eq!((a.start, a.end), (b.start, b.end), "{sql:?}");
                    assert_eq!(
                        std::mem::discriminant(&a.kind),
                        std::mem::discriminant(&b.kind),
                        "{sql:?}"
                    );
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{sql:?}"),
            (a, b) => panic!("{sql:?}: {a:?} against {b:?}"),
        }
    }

    #[test]
    fn spans_alone_are_the_tokens_spans() {
        for sql in [
            "SELECT /*+ FULL(t) */ c FROM t WHERE c = 'it''s' -- done",
            "select q'[a]b]' , nq'{x}', N'n', 1.5e-3, .5, 1e, 2..3 from dual",
            "select :name, :1, :\"SYS_B_0\", $2, a::int, x(+) from t --+ hint",
            "select \"Quoted \"\"x\"\"\" from t where ünïcode = 'é'",
            "select 'unterminated",
            "select /* unterminated",
            "select \"\" from t",
            "select a ~ b",
        ] {
            same_spans(sql);
        }
    }

    proptest::proptest! {
        #[test]
        fn spans_alone_agree_on_any_text(sql in "[a-zA-Z0-9 '\"qQnN:$._,()+*/=<>|-]{0,40}") {
            same_spans(&sql);
        }
    }

    /// (kind, text as written) of every token of `sql`.
    fn lex(sql: &str) -> Vec<(TokenKind, &str)> {
        tokenize(sql)
            .unwrap()
            .into_iter()
            .map(|token| (token.kind.clone(), token.text(sql)))
            .collect()
    }

    fn error(sql: &str) -> (u32, String, Option<usize>) {
        let error = tokenize(sql).unwrap_err();
        (error.code(), error.message().to_string(), error.position())
    }

    fn word(text: &str) -> TokenKind {
        TokenKind::Word(text.to_string())
    }

    #[test]
    fn every_token_kind_has_exact_offsets() {
        let sql = r#"select "Mixed""Case" , 'it''s' N'x' 12 12.5 .5 1e10 1.5E-3 :name :1 :"SYS_B_0" $1 a.b_$# <> != ^= < > <= >= || + - * / ( ) ; :: % : ="#;
        let expected = vec![
            (word("SELECT"), "select"),
            (
                TokenKind::QuotedIdentifier("Mixed\"Case".into()),
                r#""Mixed""Case""#,
            ),
            (TokenKind::Comma, ","),
            (TokenKind::String("it's".into()), "'it''s'"),
            (TokenKind::NationalString("x".into()), "N'x'"),
            (TokenKind::Number("12".into()), "12"),
            (TokenKind::Number("12.5".into()), "12.5"),
            (TokenKind::Number(".5".into()), ".5"),
            (TokenKind::Number("1e10".into()), "1e10"),
            (TokenKind::Number("1.5E-3".into()), "1.5E-3"),
            (TokenKind::Bind("NAME".into()), ":name"),
            (TokenKind::Bind("1".into()), ":1"),
            (TokenKind::Bind("SYS_B_0".into()), r#":"SYS_B_0""#),
            (TokenKind::Bind("1".into()), "$1"),
            (word("A"), "a"),
            (TokenKind::Period, "."),
            (word("B_$#"), "b_$#"),
            (TokenKind::NotEqual, "<>"),
            (TokenKind::NotEqual, "!="),
            (TokenKind::NotEqual, "^="),
            (TokenKind::Less, "<"),
            (TokenKind::Greater, ">"),
            (TokenKind::LessOrEqual, "<="),
            (TokenKind::GreaterOrEqual, ">="),
            (TokenKind::Concat, "||"),
            (TokenKind::Plus, "+"),
            (TokenKind::Minus, "-"),
            (TokenKind::Star, "*"),
            (TokenKind::Slash, "/"),
            (TokenKind::LeftParen, "("),
            (TokenKind::RightParen, ")"),
            (TokenKind::Semicolon, ";"),
            (TokenKind::DoubleColon, "::"),
            (TokenKind::Percent, "%"),
            (TokenKind::Colon, ":"),
            (TokenKind::Equal, "="),
        ];
        assert_eq!(lex(sql), expected);
    }

    #[test]
    fn postgresql_regular_expression_operators_and_brackets() {
        let matching = |negated, case_insensitive| TokenKind::RegularExpressionMatch {
            negated,
            case_insensitive,
        };
        assert_eq!(
            lex("a ~ b !~ c ~* d !~* e != f x[1] int2[]"),
            vec![
                (word("A"), "a"),
                (matching(false, false), "~"),
                (word("B"), "b"),
                (matching(true, false), "!~"),
                (word("C"), "c"),
                (matching(false, true), "~*"),
                (word("D"), "d"),
                (matching(true, true), "!~*"),
                (word("E"), "e"),
                (TokenKind::NotEqual, "!="),
                (word("F"), "f"),
                (word("X"), "x"),
                (TokenKind::LeftBracket, "["),
                (TokenKind::Number("1".into()), "1"),
                (TokenKind::RightBracket, "]"),
                (word("INT2"), "int2"),
                (TokenKind::LeftBracket, "["),
                (TokenKind::RightBracket, "]"),
            ]
        );
        assert_eq!(error("a ! b").0, 911);
    }

    #[test]
    fn offsets_count_bytes_of_multibyte_text() {
        let sql = "SELECT 'héllo wörld' || ü FROM \"Tâble\"";
        let tokens = tokenize(sql).unwrap();
        assert_eq!(tokens[1].kind, TokenKind::String("héllo wörld".into()));
        assert_eq!((tokens[1].start, tokens[1].end), (7, 22));
        assert_eq!(tokens[3].kind, word("Ü"));
        assert_eq!(tokens[3].text(sql), "ü");
        assert_eq!(tokens[5].kind, TokenKind::QuotedIdentifier("Tâble".into()));
        assert_eq!(tokens[5].end, sql.len());
        // Replacing each literal by its text reproduces the statement: offsets are exact.
        let mut rebuilt = String::new();
        let mut previous_end = 0;
        for token in &tokens {
            rebuilt.push_str(&sql[previous_end..token.start]);
            rebuilt.push_str(token.text(sql));
            previous_end = token.end;
        }
        assert_eq!(rebuilt, sql);
    }

    #[test]
    fn literal_offsets_allow_replacing_literals_by_binds() {
        let sql = "SELECT * FROM t WHERE a = 'x''y' AND b = 42";
        let mut shared = String::new();
        let mut previous_end = 0;
        let tokens = tokenize(sql).unwrap();
        let literals = tokens.iter().filter(|token| token.kind.is_literal());
        for (count, token) in literals.enumerate() {
            shared.push_str(&sql[previous_end..token.start]);
            shared.push_str(&format!(":\"SYS_B_{count}\""));
            previous_end = token.end;
        }
        shared.push_str(&sql[previous_end..]);
        assert_eq!(
            shared,
            "SELECT * FROM t WHERE a = :\"SYS_B_0\" AND b = :\"SYS_B_1\""
        );
    }

    #[test]
    fn hints_are_tokens_and_comments_are_not() {
        let sql = "SELECT /*+ FULL(t) PARALLEL(4) */ 1 -- trailing\n/* block\ncomment */ FROM t --+ INDEX(t i)\n";
        assert_eq!(
            lex(sql),
            vec![
                (word("SELECT"), "SELECT"),
                (
                    TokenKind::Hint("FULL(t) PARALLEL(4)".into()),
                    "/*+ FULL(t) PARALLEL(4) */"
                ),
                (TokenKind::Number("1".into()), "1"),
                (word("FROM"), "FROM"),
                (word("T"), "t"),
                (TokenKind::Hint("INDEX(t i)".into()), "--+ INDEX(t i)"),
            ]
        );
        assert_eq!(lex("a--comment at the end"), vec![(word("A"), "a")]);
        assert_eq!(lex("/**/"), vec![]);
    }

    #[test]
    fn q_quotes_take_any_delimiter() {
        for (sql, value) in [
            ("q'[it's]'", "it's"),
            ("Q'{a]b}'", "a]b"),
            ("q'(x)'", "x"),
            ("q'<'quoted'>'", "'quoted'"),
            ("q'!a'b!'", "a'b"),
            ("q'ééé'", "é"),
        ] {
            let tokens = tokenize(sql).unwrap();
            assert_eq!(
                tokens,
                vec![Token {
                    kind: TokenKind::String(value.into()),
                    start: 0,
                    end: sql.len()
                }],
                "{sql}"
            );
        }
        assert_eq!(
            lex("nq'[ü]'"),
            vec![(TokenKind::NationalString("ü".into()), "nq'[ü]'")]
        );
        assert_eq!(
            error("SELECT q'[abc]"),
            (
                1756,
                "quoted string not properly terminated".into(),
                Some(7)
            )
        );
        assert_eq!(error("q' x '").0, 1756);
    }

    #[test]
    fn outer_join_marker_is_one_token_with_or_without_spaces() {
        assert_eq!(
            lex("a.b(+) = c ( + ) (+1)"),
            vec![
                (word("A"), "a"),
                (TokenKind::Period, "."),
                (word("B"), "b"),
                (TokenKind::OuterJoin, "(+)"),
                (TokenKind::Equal, "="),
                (word("C"), "c"),
                (TokenKind::OuterJoin, "( + )"),
                (TokenKind::LeftParen, "("),
                (TokenKind::Plus, "+"),
                (TokenKind::Number("1".into()), "1"),
                (TokenKind::RightParen, ")"),
            ]
        );
    }

    #[test]
    fn numbers_stop_where_the_number_stops() {
        assert_eq!(
            lex("64M 1e 1e+ 5."),
            vec![
                (TokenKind::Number("64".into()), "64"),
                (word("M"), "M"),
                (TokenKind::Number("1".into()), "1"),
                (word("E"), "e"),
                (TokenKind::Number("1".into()), "1"),
                (word("E"), "e"),
                (TokenKind::Plus, "+"),
                (TokenKind::Number("5.".into()), "5."),
            ]
        );
    }

    #[test]
    fn words_may_start_with_an_underscore_for_hidden_parameters() {
        assert_eq!(
            lex("_kgl_bucket_count"),
            vec![(word("_KGL_BUCKET_COUNT"), "_kgl_bucket_count")]
        );
    }

    #[test]
    fn errors_carry_code_and_position() {
        assert_eq!(
            error("SELECT 'abc"),
            (
                1756,
                "quoted string not properly terminated".into(),
                Some(7)
            )
        );
        assert_eq!(
            error("SELECT N'abc"),
            (
                1756,
                "quoted string not properly terminated".into(),
                Some(7)
            )
        );
        assert_eq!(
            error("SELECT \"abc"),
            (1740, "missing double quote in identifier".into(), Some(7))
        );
        assert_eq!(
            error("SELECT \"\" FROM t"),
            (1741, "illegal zero-length identifier".into(), Some(7))
        );
        assert_eq!(
            error("SELECT 1 FROM t@link"),
            (911, "invalid character".into(), Some(15))
        );
        assert_eq!(
            error("SELECT ?"),
            (911, "invalid character".into(), Some(7))
        );
        assert_eq!(error("a ! b"), (911, "invalid character".into(), Some(2)));
        assert_eq!(error("a | b"), (911, "invalid character".into(), Some(2)));
        assert_eq!(
            error("a\u{a0}b"),
            (911, "invalid character".into(), Some(1))
        );
        assert_eq!(
            error("SELECT 1 /* open"),
            (1742, "comment not properly terminated".into(), Some(9))
        );
        assert_eq!(
            error("SELECT :\"abc"),
            (1740, "missing double quote in identifier".into(), Some(7))
        );
    }

    #[test]
    fn identifiers_are_limited_to_128_bytes() {
        let longest = "A".repeat(IDENTIFIER_BYTES_MAX);
        assert_eq!(lex(&longest), vec![(word(&longest), longest.as_str())]);
        let sql = format!("SELECT {longest}B FROM t");
        assert_eq!(error(&sql), (972, "identifier is too long".into(), Some(7)));
        let quoted = format!("SELECT \"{longest}b\"");
        assert_eq!(error(&quoted).0, 972);
        // 64 two-byte letters are 128 bytes: the limit is in bytes, not characters.
        assert_eq!(error(&"é".repeat(65)).0, 972);
        assert!(tokenize(&"é".repeat(64)).is_ok());
    }

    #[test]
    fn reserved_words_are_sorted_and_found() {
        assert!(RESERVED_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(is_reserved_word("SELECT"));
        assert!(is_reserved_word("DATE"));
        assert!(!is_reserved_word("TEXT"));
        assert!(!is_reserved_word("select"));
    }
}
