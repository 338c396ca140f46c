//! Splitting input into statements and commands, SQL*Plus style.
//!
//! Input arrives a line at a time (from the line editor, from stdin, from an `@` script), and
//! [`Splitter::feed`] says after each line whether something is ready: a SQL*Plus command, a
//! statement to run, or nothing yet.
//!
//! ```text
//!   buffer empty ──line──> blank / only a -- comment ............ ignored
//!                          `/` ................................... RunBuffer (the last statement again)
//!                          first word not a SQL word, or `@` ..... Command(line)
//!                          anything else ........................ starts the buffer
//!   buffer open ──line──> `/` alone (outside quotes, comments) ... Run(buffer)
//!                          `.` alone ............................. Store(buffer): ended, not run
//!                          blank, with `set sqlblanklines off` .. Store(buffer), SQL only
//!                          ends in `;` outside quotes, comments .. Run(buffer up to the `;`), SQL only
//!                          anything else ........................ appended
//! ```
//!
//! Invariants and rules:
//! 1. A line is scanned with the lexical state the previous line left: inside `'...'` (with
//!    `''` for a quote), `"..."`, Oracle's `q'[...]'` (any delimiter; `[ { < (` close with
//!    their mirror), a `/* */` comment, or code. `--` ends the line's code. Nothing inside a
//!    quote or a comment ends a statement.
//! 2. A statement is PL/SQL when its first words are `BEGIN`, `DECLARE`, `<<label>>`, or
//!    `CREATE [OR REPLACE] [EDITIONABLE|NONEDITIONABLE] PROCEDURE|FUNCTION|PACKAGE|TRIGGER|
//!    TYPE|LIBRARY`. PL/SQL ends only at `/` (or `.`), since its own lines end in `;`; blank
//!    lines inside it are always kept. Until the words decide, a statement is SQL.
//! 3. SQL*Plus commands are recognised only when the buffer is empty (or holds only
//!    comments): inside a statement, `prompt` or `set` is SQL text like any other.
//! 4. The buffer never holds more than [`STATEMENT_BYTES_MAX`] bytes. A statement that would
//!    grow past it is reported once ([`Event::TooLong`]) and then skipped, still scanned, up
//!    to its terminator, so that what follows it is split correctly.
//! 5. At the end of input, [`Splitter::finish`] hands back a statement still open (the shell
//!    runs it) or says that the input ended inside a quote or a comment.

/// The longest statement the shell accepts, in bytes. Longer ones are reported and skipped.
pub const STATEMENT_BYTES_MAX: usize = 1 << 20;

/// The longest line read from a script, in bytes: a longer one could not fit a statement.
pub const LINE_BYTES_MAX: usize = STATEMENT_BYTES_MAX;

/// How many leading words are kept to decide whether a statement is PL/SQL.
const LEADING_WORDS_MAX: usize = 6;

/// SQL or PL/SQL: they end differently (rule 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatementKind {
    Sql,
    PlSql,
}

/// A statement ready to send to the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The text without its terminating `;` (SQL) or `/` line; PL/SQL keeps its `END;`.
    pub text: String,
    pub kind: StatementKind,
}

impl Statement {
    pub fn new(text: impl Into<String>, kind: StatementKind) -> Statement {
        Statement {
            text: text.into(),
            kind,
        }
    }
}

/// What a line completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A SQL*Plus command line, trimmed (leading comments removed).
    Command(String),
    /// A complete statement to run.
    Run(Statement),
    /// A `/` with nothing in the buffer: run the last statement again.
    RunBuffer,
    /// The statement ended without being run (`.`, or a blank line with `sqlblanklines off`);
    /// `/`, `run` and `list` see it.
    Store(Statement),
    /// The statement grew past [`STATEMENT_BYTES_MAX`]; the rest of it will be skipped.
    TooLong,
}

/// The input ended inside something that must be closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unterminated {
    /// `quoted string`, `quoted identifier`, `q'...' literal` or `/* comment`.
    pub what: &'static str,
    /// The line (1-based, counted over everything fed) where it opened.
    pub line: usize,
}

impl std::fmt::Display for Unterminated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "end of input inside a {} opened at line {}; the statement was not run",
            self.what, self.line
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lexical {
    Code,
    SingleQuote,
    DoubleQuote,
    /// Inside `q'x...x'`: the character that, followed by `'`, closes it.
    QQuote(char),
    BlockComment,
}

impl Lexical {
    fn name(self) -> &'static str {
        match self {
            Lexical::Code => "statement",
            Lexical::SingleQuote => "quoted string",
            Lexical::DoubleQuote => "quoted identifier",
            Lexical::QQuote(_) => "q'...' literal",
            Lexical::BlockComment => "/* comment",
        }
    }
}

/// The statement splitter: feed it lines, act on the events it returns.
#[derive(Debug)]
pub struct Splitter {
    buffer: String,
    /// Lines in the buffer.
    buffer_lines: usize,
    lexical: Lexical,
    /// Line (over everything fed) where the current quote or comment opened.
    lexical_opened_line: usize,
    /// The statement's first words, upper case, and `<` for a label (rule 2).
    leading_words: Vec<String>,
    /// The buffer holds something besides white space and comments.
    significant: bool,
    /// Skipping the rest of an over-long statement of this kind (rule 4).
    skipping: Option<StatementKind>,
    /// Lines fed so far.
    lines_fed: usize,
}

/// What scanning one line found.
struct LineScan {
    /// Byte offset of a `;` that is the line's last code character, if the line ends in code.
    terminator: Option<usize>,
}

impl Default for Splitter {
    fn default() -> Self {
        Splitter::new()
    }
}

impl Splitter {
    pub fn new() -> Splitter {
        Splitter {
            buffer: String::new(),
            buffer_lines: 0,
            lexical: Lexical::Code,
            lexical_opened_line: 0,
            leading_words: Vec::new(),
            significant: false,
            skipping: None,
            lines_fed: 0,
        }
    }

    /// Forgets the statement being entered (Ctrl-C at the prompt, or an over-long line).
    pub fn clear(&mut self) {
        self.buffer.clear();
        self.buffer_lines = 0;
        self.lexical = Lexical::Code;
        self.leading_words.clear();
        self.significant = false;
        self.skipping = None;
    }

    /// A line too long to read was dropped (see [`read_line_bounded`]). At the start of the
    /// buffer it was a statement of its own, now gone; inside a statement, the rest of that
    /// statement is skipped as an over-long one is (rule 4), on the guess that the dropped
    /// line closed whatever it opened.
    pub fn skip_line(&mut self) {
        self.lines_fed += 1;
        if self.significant && self.skipping.is_none() {
            let kind = self.kind();
            self.buffer = String::new();
            self.buffer_lines = 0;
            self.skipping = Some(kind);
        } else if !self.significant {
            self.clear();
        }
    }

    /// Whether a statement is being entered (or skipped).
    pub fn in_statement(&self) -> bool {
        self.buffer_lines > 0 || self.skipping.is_some()
    }

    /// The prompt SQL*Plus shows before the next line: `SQL> `, or the line number.
    pub fn prompt(&self) -> String {
        if self.in_statement() {
            format!("{:>3}  ", self.buffer_lines + 1)
        } else {
            "SQL> ".to_string()
        }
    }

    /// Takes one line (without its line ending; a trailing `\r` is dropped too).
    /// `sqlblanklines` is the SQL*Plus setting: when false, a blank line ends a SQL statement
    /// without running it.
    pub fn feed(&mut self, line: &str, sqlblanklines: bool) -> Option<Event> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        self.lines_fed += 1;
        let trimmed = line.trim();

        if let Some(kind) = self.skipping {
            let at_line_start = self.lexical;
            let scan = self.scan(line);
            let ends = at_line_start == Lexical::Code && (trimmed == "/" || trimmed == ".");
            if ends || (scan.terminator.is_some() && kind == StatementKind::Sql) {
                self.clear();
            }
            return None;
        }

        // Rule 3: at the start of the buffer (or after comments only), lines may be commands.
        if !self.significant && self.lexical == Lexical::Code {
            self.clear();
            if trimmed.is_empty() {
                return None;
            }
            if trimmed == "/" {
                return Some(Event::RunBuffer);
            }
            if trimmed == "." {
                return None;
            }
            match first_token(line) {
                FirstToken::Empty => return None,
                FirstToken::Word { word, start } => {
                    if !is_sql_start(&word, &line[start..]) {
                        return Some(Event::Command(line[start..].trim().to_string()));
                    }
                }
                // `(select ...)` and `<<label>>` start SQL; `@file` and anything else is a
                // command (unknown ones get SP2-0734).
                FirstToken::Symbol {
                    symbol: '(' | '<', ..
                }
                | FirstToken::OpenComment => {}
                FirstToken::Symbol { start, .. } => {
                    return Some(Event::Command(line[start..].trim().to_string()));
                }
            }
        }

        if self.lexical == Lexical::Code && self.significant {
            if trimmed == "/" {
                return Some(Event::Run(self.take()));
            }
            if trimmed == "." {
                return Some(Event::Store(self.take()));
            }
            if trimmed.is_empty() && !sqlblanklines && self.kind() == StatementKind::Sql {
                return Some(Event::Store(self.take()));
            }
        }

        let scan = self.scan(line);
        if self.buffer.len() + line.len() + 1 > STATEMENT_BYTES_MAX {
            let kind = self.kind();
            if scan.terminator.is_some() && kind == StatementKind::Sql {
                self.clear();
            } else {
                // Keep the lexical state and the kind: they find the statement's end.
                self.buffer = String::new();
                self.buffer_lines = 0;
                self.skipping = Some(kind);
            }
            return Some(Event::TooLong);
        }
        match scan.terminator {
            Some(at) if self.kind() == StatementKind::Sql => {
                self.buffer.push_str(&line[..at]);
                self.buffer_lines += 1;
                Some(Event::Run(self.take()))
            }
            _ => {
                self.buffer.push_str(line);
                self.buffer.push('\n');
                self.buffer_lines += 1;
                None
            }
        }
    }

    /// The end of input: a statement still open (to run), or what was left unclosed.
    pub fn finish(&mut self) -> Option<Result<Statement, Unterminated>> {
        if self.skipping.is_some() {
            self.clear();
            return None;
        }
        if self.lexical != Lexical::Code {
            let unterminated = Unterminated {
                what: self.lexical.name(),
                line: self.lexical_opened_line,
            };
            self.clear();
            return Some(Err(unterminated));
        }
        if !self.significant {
            self.clear();
            return None;
        }
        Some(Ok(self.take()))
    }

    /// The buffered statement so far (for tests and `list` of a statement being typed).
    #[cfg(test)]
    fn buffered(&self) -> &str {
        &self.buffer
    }

    fn kind(&self) -> StatementKind {
        statement_kind(&self.leading_words)
    }

    fn take(&mut self) -> Statement {
        let kind = self.kind();
        let text = self.buffer.trim_end().to_string();
        self.clear();
        Statement { text, kind }
    }

    /// Scans one line from the lexical state the last one left (rule 1), collecting leading
    /// words and noting a final `;`.
    fn scan(&mut self, line: &str) -> LineScan {
        let mut last_code: Option<(usize, char)> = None;
        let mut word = String::new();
        let mut characters = line.char_indices().peekable();
        while let Some((at, character)) = characters.next() {
            let next = characters.peek().map(|&(_, next)| next);
            match self.lexical {
                Lexical::Code => {
                    if is_word_character(character) {
                        word.push(character);
                        self.significant = true;
                        last_code = Some((at, character));
                        continue;
                    }
                    // A word just ended: `q` or `nq` right before a quote opens a q-quote.
                    let ended = std::mem::take(&mut word);
                    let q_prefix = character == '\''
                        && (ended.eq_ignore_ascii_case("q") || ended.eq_ignore_ascii_case("nq"));
                    if !ended.is_empty() && !q_prefix {
                        self.note_word(&ended);
                    }
                    match character {
                        '-' if next == Some('-') => break,
                        '/' if next == Some('*') => {
                            characters.next();
                            self.open(Lexical::BlockComment);
                        }
                        '\'' => {
                            self.significant = true;
                            last_code = Some((at, character));
                            match next {
                                Some(open) if q_prefix && !open.is_whitespace() => {
                                    characters.next();
                                    let close = match open {
                                        '[' => ']',
                                        '{' => '}',
                                        '<' => '>',
                                        '(' => ')',
                                        other => other,
                                    };
                                    self.open(Lexical::QQuote(close));
                                }
                                _ => self.open(Lexical::SingleQuote),
                            }
                        }
                        '"' => {
                            self.significant = true;
                            last_code = Some((at, character));
                            self.open(Lexical::DoubleQuote);
                        }
                        other if other.is_whitespace() => {}
                        other => {
                            self.significant = true;
                            last_code = Some((at, other));
                            self.note_symbol(other);
                        }
                    }
                }
                Lexical::SingleQuote => {
                    if character == '\'' {
                        if next == Some('\'') {
                            characters.next();
                        } else {
                            self.lexical = Lexical::Code;
                            last_code = Some((at, character));
                        }
                    }
                }
                Lexical::DoubleQuote => {
                    if character == '"' {
                        self.lexical = Lexical::Code;
                        last_code = Some((at, character));
                    }
                }
                Lexical::QQuote(close) => {
                    if character == close && next == Some('\'') {
                        let (quote_at, quote) = characters.next().expect("peeked");
                        self.lexical = Lexical::Code;
                        last_code = Some((quote_at, quote));
                    }
                }
                Lexical::BlockComment => {
                    if character == '*' && next == Some('/') {
                        characters.next();
                        self.lexical = Lexical::Code;
                    }
                }
            }
        }
        if !word.is_empty() {
            self.note_word(&word);
        }
        let terminator = match (self.lexical, last_code) {
            (Lexical::Code, Some((at, ';'))) => Some(at),
            _ => None,
        };
        LineScan { terminator }
    }

    fn open(&mut self, lexical: Lexical) {
        self.lexical = lexical;
        self.lexical_opened_line = self.lines_fed;
    }

    fn note_word(&mut self, word: &str) {
        self.significant = true;
        if self.leading_words.len() < LEADING_WORDS_MAX {
            self.leading_words.push(word.to_uppercase());
        }
    }

    fn note_symbol(&mut self, symbol: char) {
        if self.leading_words.len() < LEADING_WORDS_MAX {
            self.leading_words.push(symbol.to_string());
        }
    }
}

/// Rule 2: PL/SQL or SQL, from the statement's first words.
fn is_word_character(character: char) -> bool {
    character.is_alphanumeric() || matches!(character, '_' | '$' | '#')
}

fn statement_kind(words: &[String]) -> StatementKind {
    let mut words = words.iter().map(String::as_str);
    match words.next() {
        Some("BEGIN" | "DECLARE") => StatementKind::PlSql,
        Some("<") if words.next() == Some("<") => StatementKind::PlSql,
        Some("CREATE") => {
            let mut word = words.next();
            if word == Some("OR") {
                if words.next() != Some("REPLACE") {
                    return StatementKind::Sql;
                }
                word = words.next();
            }
            if matches!(word, Some("EDITIONABLE" | "NONEDITIONABLE")) {
                word = words.next();
            }
            match word {
                Some("PROCEDURE" | "FUNCTION" | "PACKAGE" | "TRIGGER" | "TYPE" | "LIBRARY") => {
                    StatementKind::PlSql
                }
                _ => StatementKind::Sql,
            }
        }
        _ => StatementKind::Sql,
    }
}

/// The words that begin a SQL statement; any other first word is a SQL*Plus command.
const SQL_START_WORDS: &[&str] = &[
    "ALTER",
    "ANALYZE",
    "AUDIT",
    "BEGIN",
    "CALL",
    "COMMENT",
    "COMMIT",
    "CREATE",
    "DECLARE",
    "DELETE",
    "DROP",
    "EXPLAIN",
    "FLASHBACK",
    "GRANT",
    "INSERT",
    "LOCK",
    "MERGE",
    "NOAUDIT",
    "PURGE",
    "RENAME",
    "REVOKE",
    "ROLLBACK",
    "SAVEPOINT",
    "SELECT",
    "TRUNCATE",
    "UPDATE",
    "VACUUM",
    "VALUES",
    "WITH",
];

/// Whether a line whose first word is `word` (upper case) starts SQL rather than a command.
/// `SET` is both: `SET TRANSACTION`, `SET ROLE` and `SET CONSTRAINT(S)` are SQL.
pub fn is_sql_start(word: &str, line: &str) -> bool {
    if word == "SET" {
        let second = line
            .split_whitespace()
            .nth(1)
            .map(|word| word.trim_end_matches(';').to_uppercase());
        return matches!(
            second.as_deref(),
            Some("TRANSACTION" | "ROLE" | "CONSTRAINT" | "CONSTRAINTS")
        );
    }
    SQL_START_WORDS.contains(&word)
}

/// The first thing on a line once white space and complete `/* */` comments are skipped.
#[derive(Debug, PartialEq, Eq)]
enum FirstToken {
    /// Nothing, or only comments.
    Empty,
    /// A `/*` comment that does not close on this line.
    OpenComment,
    /// A word (upper case) starting at byte `start`.
    Word { word: String, start: usize },
    /// Any other character, at byte `start`.
    Symbol { symbol: char, start: usize },
}

fn first_token(line: &str) -> FirstToken {
    let mut at = 0;
    loop {
        let rest = &line[at..];
        let skipped = rest.len() - rest.trim_start().len();
        at += skipped;
        let rest = &line[at..];
        if rest.is_empty() || rest.starts_with("--") {
            return FirstToken::Empty;
        }
        if let Some(comment) = rest.strip_prefix("/*") {
            match comment.find("*/") {
                Some(end) => {
                    at += 2 + end + 2;
                    continue;
                }
                None => return FirstToken::OpenComment,
            }
        }
        let first = rest.chars().next().expect("not empty");
        if first.is_alphabetic() || first == '_' {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '#'))
                .collect();
            return FirstToken::Word {
                word: word.to_uppercase(),
                start: at,
            };
        }
        return FirstToken::Symbol {
            symbol: first,
            start: at,
        };
    }
}

/// One line read by [`read_line_bounded`].
#[derive(Debug, PartialEq, Eq)]
pub struct Line {
    /// The line without its ending; invalid UTF-8 replaced by U+FFFD.
    pub text: String,
    /// The line was longer than the bound: `text` is empty and the line was skipped.
    pub too_long: bool,
}

/// Reads one line of at most `bytes_max` bytes, so that a script without line breaks cannot
/// make the shell hold more than that. A longer line is consumed and reported as too long.
pub fn read_line_bounded(
    reader: &mut dyn std::io::BufRead,
    bytes_max: usize,
) -> std::io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            break;
        }
        read_any = true;
        let (chunk, found_end) = match available.iter().position(|&byte| byte == b'\n') {
            Some(end) => (&available[..end], true),
            None => (available, false),
        };
        if !too_long {
            if bytes.len() + chunk.len() > bytes_max {
                too_long = true;
                bytes = Vec::new();
            } else {
                bytes.extend_from_slice(chunk);
            }
        }
        let consumed = chunk.len() + usize::from(found_end);
        reader.consume(consumed);
        if found_end {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    Ok(Some(Line {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        too_long,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds a script (sqlblanklines on) and collects every event, then what `finish` says.
    fn split(script: &str) -> Vec<Event> {
        split_with(script, true)
    }

    fn split_with(script: &str, sqlblanklines: bool) -> Vec<Event> {
        let mut splitter = Splitter::new();
        let mut events: Vec<Event> = script
            .lines()
            .filter_map(|line| splitter.feed(line, sqlblanklines))
            .collect();
        match splitter.finish() {
            Some(Ok(statement)) => events.push(Event::Run(statement)),
            Some(Err(unterminated)) => events.push(Event::Command(format!("!{unterminated}"))),
            None => {}
        }
        events
    }

    fn sql(text: &str) -> Event {
        Event::Run(Statement::new(text, StatementKind::Sql))
    }

    fn plsql(text: &str) -> Event {
        Event::Run(Statement::new(text, StatementKind::PlSql))
    }

    fn command(text: &str) -> Event {
        Event::Command(text.to_string())
    }

    #[test]
    fn a_semicolon_at_the_end_of_a_line_ends_a_statement() {
        assert_eq!(
            split("select 1 from dual;\nselect 2\n  from dual ;  \n"),
            vec![sql("select 1 from dual"), sql("select 2\n  from dual")]
        );
    }

    #[test]
    fn a_semicolon_inside_a_line_does_not_end_a_statement() {
        assert_eq!(
            split("select 1 from dual; select 2 from dual\n/"),
            vec![sql("select 1 from dual; select 2 from dual")]
        );
    }

    #[test]
    fn semicolons_inside_string_literals_do_not_end_a_statement() {
        assert_eq!(
            split("insert into t values ('a;\nb;', 'it''s;');\n"),
            vec![sql("insert into t values ('a;\nb;', 'it''s;')")]
        );
        assert_eq!(
            split("select 'x'';'\nfrom dual;"),
            vec![sql("select 'x'';'\nfrom dual")]
        );
    }

    #[test]
    fn q_quotes_and_quoted_identifiers_hide_semicolons() {
        assert_eq!(
            split("select q'[it's;]' from dual;"),
            vec![sql("select q'[it's;]' from dual")]
        );
        assert_eq!(
            split("select nq'{a;\n'};}' from dual;"),
            vec![sql("select nq'{a;\n'};}' from dual")]
        );
        assert_eq!(
            split("select Q'!x;!' from dual;"),
            vec![sql("select Q'!x;!' from dual")]
        );
        assert_eq!(
            split("select 1 \"a;\nb;\" from dual;"),
            vec![sql("select 1 \"a;\nb;\" from dual")]
        );
    }

    #[test]
    fn a_word_ending_in_q_before_a_quote_is_not_a_q_quote() {
        // `seq'` is not `q'`: the quote that follows is an ordinary one.
        assert_eq!(
            split("select seq'[;' from dual;"),
            vec![sql("select seq'[;' from dual")]
        );
    }

    #[test]
    fn comments_hide_semicolons_and_a_trailing_comment_does_not() {
        assert_eq!(
            split("select 1 -- one;\nfrom dual;"),
            vec![sql("select 1 -- one;\nfrom dual")]
        );
        assert_eq!(
            split("select 1 /* ;\n ; */\nfrom dual;"),
            vec![sql("select 1 /* ;\n ; */\nfrom dual")]
        );
        assert_eq!(
            split("select 1 from dual; -- done\nselect 2 from dual; /* done */"),
            vec![sql("select 1 from dual"), sql("select 2 from dual")]
        );
    }

    #[test]
    fn comment_lines_between_statements_are_dropped() {
        assert_eq!(
            split("-- header\n/* a\n   block */\n\nprompt hi\n-- x\nselect 1 from dual;"),
            vec![command("prompt hi"), sql("select 1 from dual")]
        );
    }

    #[test]
    fn a_slash_line_runs_the_buffer_and_reruns_the_last_statement_when_empty() {
        assert_eq!(
            split("select 1\nfrom dual\n  /  \n/"),
            vec![sql("select 1\nfrom dual"), Event::RunBuffer]
        );
        // As in SQL*Plus, `;` then `/` runs a statement twice.
        assert_eq!(split("commit;\n/"), vec![sql("commit"), Event::RunBuffer]);
    }

    #[test]
    fn a_slash_inside_a_quote_or_comment_is_text() {
        assert_eq!(
            split("select 'a\n/\nb' from dual;"),
            vec![sql("select 'a\n/\nb' from dual")]
        );
        assert_eq!(
            split("select 1 /*\n/\n*/ from dual;"),
            vec![sql("select 1 /*\n/\n*/ from dual")]
        );
    }

    #[test]
    fn plsql_blocks_end_only_at_a_slash() {
        assert_eq!(
            split("begin\n  null;\n\n  commit;\nend;\n/\nselect 1 from dual;"),
            vec![
                plsql("begin\n  null;\n\n  commit;\nend;"),
                sql("select 1 from dual")
            ]
        );
        assert_eq!(
            split("DECLARE\n  x number := 1;\nBEGIN\n  x := x + 1;\nEND;\n/"),
            vec![plsql(
                "DECLARE\n  x number := 1;\nBEGIN\n  x := x + 1;\nEND;"
            )]
        );
        assert_eq!(
            split("<<outer>>\nbegin null; end;\n/"),
            vec![plsql("<<outer>>\nbegin null; end;")]
        );
    }

    #[test]
    fn stored_code_is_plsql_and_other_create_statements_are_sql() {
        for text in [
            "create procedure p is begin null; end;",
            "CREATE OR REPLACE FUNCTION f return number is begin return 1; end;",
            "create or replace editionable package pk is x number; end;",
            "create or replace package body pk is end;",
            "create trigger t before insert on t for each row begin null; end;",
            "create type point as object (x number, y number);",
        ] {
            assert_eq!(split(&format!("{text}\n/")), vec![plsql(text)], "{text}");
        }
        assert_eq!(
            split("create or replace view v as select 1 x from dual;"),
            vec![sql("create or replace view v as select 1 x from dual")]
        );
        assert_eq!(
            split("create table t (id number);"),
            vec![sql("create table t (id number)")]
        );
    }

    #[test]
    fn the_words_that_decide_plsql_may_span_lines() {
        assert_eq!(
            split("create or replace\n  procedure p is\nbegin\n  null;\nend;\n/"),
            vec![plsql(
                "create or replace\n  procedure p is\nbegin\n  null;\nend;"
            )]
        );
    }

    #[test]
    fn commands_are_recognised_only_at_the_start_of_the_buffer() {
        assert_eq!(
            split("prompt hello; world\nset echo on\n@setup\n@@ sub/x.sql\ndesc t"),
            vec![
                command("prompt hello; world"),
                command("set echo on"),
                command("@setup"),
                command("@@ sub/x.sql"),
                command("desc t"),
            ]
        );
        assert_eq!(
            split("select\nprompt\nfrom t;"),
            vec![sql("select\nprompt\nfrom t")]
        );
        assert_eq!(split("/* c */ prompt x"), vec![command("prompt x")]);
    }

    #[test]
    fn set_transaction_is_sql() {
        assert_eq!(
            split("set transaction read only;\nSET constraints all deferred;"),
            vec![
                sql("set transaction read only"),
                sql("SET constraints all deferred")
            ]
        );
    }

    #[test]
    fn blank_lines_stay_in_a_statement_unless_sqlblanklines_is_off() {
        assert_eq!(
            split("select 1\n\nfrom dual;"),
            vec![sql("select 1\n\nfrom dual")]
        );
        assert_eq!(
            split_with("select 1\n\nfrom dual;", false),
            vec![
                Event::Store(Statement::new("select 1", StatementKind::Sql)),
                command("from dual;")
            ]
        );
        assert_eq!(
            split_with("begin\n\nnull;\nend;\n/", false),
            vec![plsql("begin\n\nnull;\nend;")]
        );
    }

    #[test]
    fn a_dot_line_ends_the_buffer_without_running_it() {
        assert_eq!(
            split("select 1 from dual\n.\n/"),
            vec![
                Event::Store(Statement::new("select 1 from dual", StatementKind::Sql)),
                Event::RunBuffer
            ]
        );
    }

    #[test]
    fn the_end_of_input_runs_an_open_statement() {
        assert_eq!(split("select 1 from dual"), vec![sql("select 1 from dual")]);
        assert_eq!(split("begin null; end;"), vec![plsql("begin null; end;")]);
        assert_eq!(split("-- only a comment\n"), vec![]);
    }

    #[test]
    fn the_end_of_input_inside_a_quote_or_comment_is_reported_with_its_line() {
        assert_eq!(
            split("prompt a\nselect 'abc from dual;\nselect 1 from dual;"),
            vec![
                command("prompt a"),
                command(
                    "!end of input inside a quoted string opened at line 2; \
                     the statement was not run"
                )
            ]
        );
        assert_eq!(
            split("select 1 from dual;\n/* never closed\n"),
            vec![
                sql("select 1 from dual"),
                command(
                    "!end of input inside a /* comment opened at line 2; \
                     the statement was not run"
                )
            ]
        );
        assert_eq!(
            split("select \"abc from dual;"),
            vec![command(
                "!end of input inside a quoted identifier opened at line 1; \
                 the statement was not run"
            )]
        );
    }

    #[test]
    fn an_over_long_statement_is_reported_once_and_skipped_to_its_end() {
        let mut splitter = Splitter::new();
        let filler = format!("'{}',", "x".repeat(1000));
        assert_eq!(splitter.feed("select", true), None);
        let mut events = Vec::new();
        for _ in 0..(STATEMENT_BYTES_MAX / filler.len() + 10) {
            events.extend(splitter.feed(&filler, true));
        }
        assert_eq!(events, vec![Event::TooLong]);
        assert!(splitter.in_statement());
        // A `;` inside a string does not end the skipped statement; the real end does.
        assert_eq!(splitter.feed("'a;", true), None);
        assert_eq!(splitter.feed("b' from dual;", true), None);
        assert!(!splitter.in_statement());
        assert_eq!(
            splitter.feed("select 1 from dual;", true),
            Some(sql("select 1 from dual"))
        );
        assert!(splitter.buffered().is_empty());
    }

    #[test]
    fn a_dropped_line_inside_a_statement_skips_the_rest_of_it() {
        let mut splitter = Splitter::new();
        splitter.skip_line();
        assert!(!splitter.in_statement());
        assert_eq!(splitter.feed("prompt a", true), Some(command("prompt a")));
        assert_eq!(splitter.feed("insert into t values (", true), None);
        splitter.skip_line();
        assert_eq!(splitter.feed("  'b');", true), None);
        assert!(!splitter.in_statement());
        assert_eq!(splitter.feed("begin", true), None);
        splitter.skip_line();
        assert_eq!(splitter.feed("end;", true), None);
        assert_eq!(splitter.feed("/", true), None);
        assert_eq!(splitter.finish(), None);
    }

    #[test]
    fn the_prompt_numbers_continuation_lines() {
        let mut splitter = Splitter::new();
        assert_eq!(splitter.prompt(), "SQL> ");
        splitter.feed("select 1", true);
        assert_eq!(splitter.prompt(), "  2  ");
        splitter.feed("from dual", true);
        assert_eq!(splitter.prompt(), "  3  ");
        splitter.feed(";", true);
        assert_eq!(splitter.prompt(), "SQL> ");
        splitter.feed("select", true);
        splitter.clear();
        assert_eq!(splitter.prompt(), "SQL> ");
    }

    #[test]
    fn carriage_returns_are_dropped() {
        assert_eq!(
            split("select 1\r\nfrom dual;\r\n/\r\n"),
            vec![sql("select 1\nfrom dual"), Event::RunBuffer]
        );
    }

    #[test]
    fn lines_are_read_with_a_bound() {
        let input = format!("short\n{}\nafter\r\nlast", "y".repeat(100));
        let mut reader = std::io::BufReader::with_capacity(16, input.as_bytes());
        let mut lines = Vec::new();
        while let Some(line) = read_line_bounded(&mut reader, 50).unwrap() {
            lines.push(line);
        }
        let line = |text: &str, too_long| Line {
            text: text.to_string(),
            too_long,
        };
        assert_eq!(
            lines,
            vec![
                line("short", false),
                line("", true),
                line("after", false),
                line("last", false)
            ]
        );
    }

    #[test]
    fn invalid_utf8_does_not_stop_reading() {
        let input: &[u8] = b"prompt \xff\xfe\n";
        let mut reader = std::io::BufReader::new(input);
        let line = read_line_bounded(&mut reader, 100).unwrap().unwrap();
        assert_eq!(line.text, "prompt \u{fffd}\u{fffd}");
    }
}
