//! The statements of a simple query: the protocol sends `a; b; c` in one message, and a
//! session runs one statement a call.

use pythia::syntax::lexer::{begins_with_none_of, tokenize, Token, TokenKind};

/// The statements of `text`, each without its `;`, with the byte offset it starts at, in
/// order; empty ones are left out. The engine's lexer finds the semicolons, so quotes,
/// quoted identifiers and comments are respected. A PL/SQL block (`DECLARE`, `BEGIN` that
/// does not begin a transaction (see [`begins_transaction`]), `CREATE [OR REPLACE]
/// PROCEDURE | FUNCTION | PACKAGE | TRIGGER | TYPE`)
/// holds semicolons of its own: it runs to the end of the text, as one statement, its last
/// `END;` included (PL/SQL's own). A text
/// the lexer rejects (an unterminated quote) is its error.
pub fn split_statements(text: &str) -> pythia::Result<Vec<(usize, String)>> {
    if let Some((offset, statement)) = one_plain_statement(text) {
        return Ok(vec![(offset, statement.to_string())]);
    }
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
        statements.push((first.start, text[first.start..last.end].to_string()));
        rest = &rest[end..];
    }
    Ok(statements)
}

/// The one statement of `text`, and its offset, when that can be told without the lexer: no
/// semicolon but one at the end, no quote, no character that can start a comment (`-`, `/`),
/// and a plain first word that does not start a PL/SQL block. Most messages are such (a
/// client's one statement, with or without its `;`), and the answer is what the lexer's
/// split gives: the text between the spaces around it, without the `;`.
fn one_plain_statement(text: &str) -> Option<(usize, &str)> {
    let body = text.trim_ascii_end();
    let body = body.strip_suffix(';').unwrap_or(body).trim_ascii_end();
    let statement = body.trim_ascii_start();
    let plain = !statement
        .bytes()
        .any(|byte| matches!(byte, b';' | b'\'' | b'"' | b'-' | b'/'));
    (plain && begins_with_none_of(statement, &["DECLARE", "BEGIN", "CREATE"]))
        .then(|| (body.len() - statement.len(), statement))
}

pub(crate) fn word(token: Option<&Token>) -> &str {
    match token.map(|token| &token.kind) {
        Some(TokenKind::Word(word)) => word,
        _ => "",
    }
}

/// Whether a statement whose tokens start `tokens` is PostgreSQL's `BEGIN` (`BEGIN` alone, or
/// followed by `WORK`, `TRANSACTION` or a transaction mode: `ISOLATION`, `READ`, `NOT`,
/// `DEFERRABLE`) or `START TRANSACTION`, rather than a PL/SQL block. The engine's parser
/// reads the same `BEGIN` forms as a transaction's start.
pub(crate) fn begins_transaction(tokens: &[Token]) -> bool {
    match word(tokens.first()) {
        "BEGIN" => {
            matches!(
                tokens.get(1).map(|token| &token.kind),
                None | Some(TokenKind::Semicolon)
            ) || matches!(
                word(tokens.get(1)),
                "WORK" | "TRANSACTION" | "ISOLATION" | "READ" | "NOT" | "DEFERRABLE"
            )
        }
        "START" => word(tokens.get(1)) == "TRANSACTION",
        _ => false,
    }
}

fn is_block(tokens: &[Token]) -> bool {
    match word(tokens.first()) {
        "DECLARE" => true,
        "BEGIN" => !begins_transaction(tokens),
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
    use super::{split_statements, TokenKind};

    fn split(text: &str) -> Vec<String> {
        let statements = split_statements(text).unwrap();
        for (offset, statement) in &statements {
            assert!(text[*offset..].starts_with(statement.as_str()));
        }
        statements
            .into_iter()
            .map(|(_, statement)| statement)
            .collect()
    }

    /// A message of one plain statement is split without the lexer, as the lexer splits it.
    #[test]
    fn one_plain_statement_is_split_as_the_lexer_splits_it() {
        use super::one_plain_statement;
        for text in [
            "SELECT abalance FROM pgbench_accounts WHERE aid = 42;",
            "  select 1 from dual ;  \n",
            "\tupdate t set v = v + 1 where id = 3",
            "commit",
        ] {
            let fast = one_plain_statement(text).expect(text);
            let tokens = pythia::syntax::lexer::tokenize(text).unwrap();
            let (first, last) = (
                &tokens[0],
                tokens
                    .iter()
                    .rev()
                    .find(|t| t.kind != TokenKind::Semicolon)
                    .unwrap(),
            );
            assert_eq!(fast, (first.start, &text[first.start..last.end]), "{text}");
        }
        for text in [
            "select 1 from dual; select 2 from dual",
            "select ';' from dual",
            "select 1 from dual -- why",
            "select 1 /* why */ from dual",
            "select \"A\" from t",
            "begin null; end;",
            "begin",
            "create procedure p is begin null; end;",
            "declare x number; begin null; end;",
            " ; ",
            "",
        ] {
            assert_eq!(one_plain_statement(text), None, "{text}");
        }
        assert_eq!(split("select 1 from dual"), vec!["select 1 from dual"]);
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
            split("begin isolation level serializable; insert into t values (1)"),
            vec![
                "begin isolation level serializable",
                "insert into t values (1)"
            ]
        );
        assert_eq!(
            split("BEGIN READ ONLY; select 1 from dual"),
            vec!["BEGIN READ ONLY", "select 1 from dual"]
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
