//! The statements of a simple query: the protocol sends `a; b; c` in one message, and a
//! session runs one statement a call.

use pythia::sql::lexer::{tokenize, Token, TokenKind};

/// The statements of `text`, each without its `;`, in order; empty ones are left out. The
/// engine's lexer finds the semicolons, so quotes, quoted identifiers and comments are
/// respected. A PL/SQL block (`DECLARE`, `BEGIN` not followed by `;`, `WORK` or
/// `TRANSACTION`, `CREATE [OR REPLACE] PROCEDURE | FUNCTION | PACKAGE | TRIGGER | TYPE`)
/// holds semicolons of its own: it runs to the end of the text, as one statement, its last
/// `END;` included (PL/SQL's own). A text
/// the lexer rejects (an unterminated quote) is its error.
pub fn split_statements(text: &str) -> pythia::Result<Vec<String>> {
    let tokens = tokenize(text)?;
    let mut statements = Vec::new();
    let mut rest: &[Token] = &tokens;
    while let Some(first) = rest.first() {
        if first.kind == TokenKind::Semicolon {
            rest = &rest[1..];
            continue;
        }
        let end = if is_block(rest) {
            rest.len()
        } else {
            rest.iter()
                .position(|token| token.kind == TokenKind::Semicolon)
                .unwrap_or(rest.len())
        };
        let last = &rest[end - 1];
        statements.push(text[first.start..last.end].to_string());
        rest = &rest[end..];
    }
    Ok(statements)
}

fn word(token: Option<&Token>) -> &str {
    match token.map(|token| &token.kind) {
        Some(TokenKind::Word(word)) => word,
        _ => "",
    }
}

fn is_block(tokens: &[Token]) -> bool {
    match word(tokens.first()) {
        "DECLARE" => true,
        "BEGIN" => {
            !matches!(
                tokens.get(1).map(|token| &token.kind),
                None | Some(TokenKind::Semicolon)
            ) && !matches!(word(tokens.get(1)), "WORK" | "TRANSACTION")
        }
        "CREATE" => {
            let kind = if word(tokens.get(1)) == "OR" && word(tokens.get(2)) == "REPLACE" {
                word(tokens.get(3))
            } else {
                word(tokens.get(1))
            };
            matches!(
                kind,
                "PROCEDURE" | "FUNCTION" | "PACKAGE" | "TRIGGER" | "TYPE"
            )
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::split_statements;

    fn split(text: &str) -> Vec<String> {
        split_statements(text).unwrap()
    }

    #[test]
    fn semicolons_split_outside_quotes_and_comments() {
        assert_eq!(
            split("select ';' from dual; /* ; */ insert into t values ('a;b') ; ;"),
            vec!["select ';' from dual", "insert into t values ('a;b')"]
        );
        assert_eq!(split("select 1 from dual"), vec!["select 1 from dual"]);
        assert!(split(" ; -- nothing\n").is_empty());
    }

    #[test]
    fn transaction_words_split_and_blocks_run_to_the_end() {
        assert_eq!(
            split("begin; insert into t values (1); commit"),
            vec!["begin", "insert into t values (1)", "commit"]
        );
        assert_eq!(
            split("BEGIN TRANSACTION; end"),
            vec!["BEGIN TRANSACTION", "end"]
        );
        assert_eq!(
            split("begin insert into t values (1); commit; end;"),
            vec!["begin insert into t values (1); commit; end;"]
        );
        assert_eq!(
            split("create or replace procedure p as begin null; end;"),
            vec!["create or replace procedure p as begin null; end;"]
        );
        assert_eq!(
            split("create table t (a number); drop table t"),
            vec!["create table t (a number)", "drop table t"]
        );
    }

    #[test]
    fn an_unterminated_quote_is_the_lexers_error() {
        let error = split_statements("select 'abc from dual; select 1 from dual").unwrap_err();
        assert_eq!(error.code(), 1756);
    }
}
