//! The optimizer hints the engine acts on, read from a query block's hint text (the
//! `/*+ ... */` right after SELECT, UPDATE or DELETE: `ast::Select::hint`,
//! `ast::Statement::Update::hint`, `Delete::hint`).
//!
//! Read so far: `CACHE(tablespec)` and `NOCACHE(tablespec)`, which override a table's CACHE /
//! NOCACHE attribute for this query block's full scans of it (docs/buffer-pools.md, "Scans").
//! As in Oracle:
//!
//! - the table is named by its alias when the FROM clause gives it one, else by its name; a
//!   hint naming the table of an aliased reference is ignored;
//! - a hint applies to the query block it follows: a subquery's tables take their own;
//! - a query block name (`CACHE(@sel$1 t)`) is skipped, and a tablespec that reaches into a
//!   view (`CACHE(v.t)`) is ignored: global hints are not read;
//! - unknown hints and malformed ones are ignored, never an error;
//! - when several hints name one table, the last wins.
//!
//! Unquoted names are compared in upper case, quoted ones as written. The hint text is part
//! of the statement's text, so a hinted statement is a cursor of its own.

/// The hints of one query block that the engine acts on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// (table alias or name, true for CACHE and false for NOCACHE), in the text's order.
    cache: Vec<(String, bool)>,
}

/// Most hints read from one text: hint text is bounded by the statement's length, and a
/// query block names few tables.
const HINTS_MAX: usize = 256;

impl Hints {
    /// The hints in `text` (a hint comment's content, without its marks).
    pub fn parse(text: Option<&str>) -> Hints {
        let mut hints = Hints::default();
        let Some(text) = text else {
            return hints;
        };
        let mut tokens = tokenize(text).into_iter().peekable();
        while let Some(token) = tokens.next() {
            let Token::Word(name) = token else {
                continue;
            };
            if tokens.peek() != Some(&Token::Open) {
                continue; // a hint without arguments (ALL_ROWS, APPEND, ...)
            }
            tokens.next();
            // The arguments at the first level; those of nested lists (INDEX(t (a b))) are
            // not table specs.
            let mut arguments = Vec::new();
            let mut depth = 1;
            for token in tokens.by_ref() {
                match token {
                    Token::Open => depth += 1,
                    Token::Close => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Token::Word(word) if depth == 1 => arguments.push(word),
                    Token::Word(_) => {}
                }
            }
            let cache = match name.as_str() {
                _ if depth > 0 => continue, // the list is not closed
                "CACHE" => true,
                "NOCACHE" => false,
                _ => continue,
            };
            for table in arguments {
                if table.starts_with('@') || table.contains('.') {
                    continue; // a query block name, or a table inside a view
                }
                if hints.cache.len() < HINTS_MAX {
                    hints.cache.push((table, cache));
                }
            }
        }
        hints
    }

    /// The CACHE (true) or NOCACHE (false) hint naming `qualifier`: the alias of a table in
    /// the FROM clause, or its name when it has no alias. None: no such hint.
    pub fn cache(&self, qualifier: &str) -> Option<bool> {
        self.cache
            .iter()
            .rev()
            .find(|(table, _)| table == qualifier)
            .map(|(_, cache)| *cache)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// A name: unquoted in upper case, quoted as written (without its quotes); `@` and `.`
    /// stay part of it (`@SEL$1`, `V.T`).
    Word(String),
    Open,
    Close,
}

fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&next) = chars.peek() {
        match next {
            '(' => {
                chars.next();
                tokens.push(Token::Open);
            }
            ')' => {
                chars.next();
                tokens.push(Token::Close);
            }
            _ if next.is_whitespace() || next == ',' => {
                chars.next();
            }
            _ => {
                let mut word = String::new();
                while let Some(&next) = chars.peek() {
                    if next == '"' {
                        chars.next();
                        for quoted in chars.by_ref() {
                            if quoted == '"' {
                                break;
                            }
                            word.push(quoted);
                        }
                        continue;
                    }
                    if next.is_whitespace() || matches!(next, '(' | ')' | ',') {
                        break;
                    }
                    word.extend(next.to_uppercase());
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_and_nocache_name_tables_by_alias_or_name() {
        let hints = Hints::parse(Some("full(e) CACHE(e) nocache(dept) index(x x_i)"));
        assert_eq!(hints.cache("E"), Some(true));
        assert_eq!(hints.cache("DEPT"), Some(false));
        assert_eq!(hints.cache("X"), None);
        assert_eq!(hints.cache("EMP"), None);
        assert_eq!(Hints::parse(None), Hints::default());
    }

    #[test]
    fn the_last_hint_on_a_table_wins() {
        let hints = Hints::parse(Some("CACHE(t) NOCACHE(t)"));
        assert_eq!(hints.cache("T"), Some(false));
    }

    #[test]
    fn query_block_names_views_and_nested_lists_are_not_tables() {
        let hints = Hints::parse(Some(
            "CACHE(@sel$1 t) NOCACHE(v.u) INDEX(w (a b)) CACHE((z)) CACHE(\"Mixed\")",
        ));
        assert_eq!(hints.cache("T"), Some(true));
        assert_eq!(hints.cache("@SEL$1"), None);
        assert_eq!(hints.cache("U"), None);
        assert_eq!(hints.cache("V.U"), None);
        assert_eq!(hints.cache("A"), None);
        assert_eq!(hints.cache("Z"), None);
        assert_eq!(hints.cache("Mixed"), Some(true));
    }

    #[test]
    fn malformed_hints_are_ignored() {
        for text in [
            "CACHE(",
            "CACHE t",
            ")(",
            "NOCACHE()",
            "CACHE(t",
            "CACHE((t)",
            "",
        ] {
            assert_eq!(Hints::parse(Some(text)).cache("T"), None, "{text}");
        }
        assert_eq!(Hints::parse(Some("CACHE(t) junk(")).cache("T"), Some(true));
    }
}
