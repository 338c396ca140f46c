//! PL/SQL's errors as Oracle words them: compilation errors (ORA-06550 with the line and
//! column, then the PLS- error), run-time errors with their `ORA-06512: at line n` stack,
//! and the predefined exceptions' numbers.

use crate::error::Error;

/// ORA-06550: a unit that does not compile. `message` is the PLS- (or `PL/SQL: ORA-`) line.
pub fn compilation(text: &str, position: usize, message: &str) -> Error {
    let (line, column) = line_column(text, position);
    Error::new(6550, format!("line {line}, column {column}:\n{message}")).at(position)
}

/// A static SQL statement the SQL layer refused: `PL/SQL: ORA-nnnnn: ...` at the error's
/// place, then `PL/SQL: SQL Statement ignored` at the statement's start, as Oracle reports
/// it.
pub fn sql_statement_ignored(
    text: &str,
    position: usize,
    statement: usize,
    error: &Error,
) -> Error {
    statement_ignored(text, position, statement, &format!("PL/SQL: {error}"))
}

/// A statement that does not compile: `message` at `position`, then `PL/SQL: Statement
/// ignored` at the statement's start (`SQL Statement ignored` for static SQL).
pub fn statement_ignored(text: &str, position: usize, statement: usize, message: &str) -> Error {
    let (line, column) = line_column(text, statement);
    let first = compilation(text, position, message);
    let ignored = if message.starts_with("PL/SQL: ORA-") {
        "PL/SQL: SQL Statement ignored"
    } else {
        "PL/SQL: Statement ignored"
    };
    Error::new(
        6550,
        format!(
            "{}\nORA-06550: line {line}, column {column}:\n{ignored}",
            first.message()
        ),
    )
    .at(position)
}

/// The 1-based line and column (in characters) of byte `position` in `text`.
pub fn line_column(text: &str, position: usize) -> (usize, usize) {
    let position = position.min(text.len());
    let mut boundary = position;
    while !text.is_char_boundary(boundary) {
        boundary -= 1;
    }
    let before = &text[..boundary];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |offset| offset + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// The predefined exceptions: name, the Oracle error they stand for, and SQLCODE's value
/// (+100 for NO_DATA_FOUND, the negated error for the others).
pub const PREDEFINED: &[(&str, u32)] = &[
    ("NO_DATA_FOUND", 1403),
    ("TOO_MANY_ROWS", 1422),
    ("ZERO_DIVIDE", 1476),
    ("VALUE_ERROR", 6502),
    ("DUP_VAL_ON_INDEX", 1),
    ("INVALID_NUMBER", 1722),
    ("INVALID_CURSOR", 1001),
    ("CURSOR_ALREADY_OPEN", 6511),
    ("CASE_NOT_FOUND", 6592),
    ("LOGIN_DENIED", 1017),
    ("NOT_LOGGED_ON", 1012),
    ("PROGRAM_ERROR", 6501),
    ("STORAGE_ERROR", 6500),
    ("TIMEOUT_ON_RESOURCE", 51),
    ("ROWTYPE_MISMATCH", 6504),
    ("SELF_IS_NULL", 30625),
    ("ACCESS_INTO_NULL", 6530),
    ("COLLECTION_IS_NULL", 6531),
    ("SUBSCRIPT_OUTSIDE_LIMIT", 6532),
    ("SUBSCRIPT_BEYOND_COUNT", 6533),
    ("SYS_INVALID_ROWID", 1410),
];

/// The Oracle error a predefined exception's name stands for.
pub fn predefined(name: &str) -> Option<u32> {
    PREDEFINED
        .iter()
        .find(|(predefined, _)| *predefined == name)
        .map(|(_, code)| *code)
}

/// SQLCODE for an error: +100 for ORA-01403 (NO_DATA_FOUND, as ANSI's "no data"), the negated
/// number otherwise.
pub fn sqlcode(code: u32) -> i64 {
    if code == 1403 {
        100
    } else {
        -(code as i64)
    }
}

pub use crate::error::standard_message;

/// ORA-06502, VALUE_ERROR, with Oracle's detail.
pub fn value_error(detail: &str) -> Error {
    if detail.is_empty() {
        Error::new(6502, "PL/SQL: numeric or value error")
    } else {
        Error::new(6502, format!("PL/SQL: numeric or value error: {detail}"))
    }
}

/// A compilation error's parts: each `line L, column C:` and the text after it, as
/// `user_errors` lists them (a static SQL error is two: its ORA- and `SQL Statement
/// ignored`). An error that is not ORA-06550 is one entry at line 1, column 1.
pub fn compilation_parts(error: &Error) -> Vec<(u32, u32, String)> {
    if error.code() != 6550 {
        return vec![(1, 1, error.to_string())];
    }
    error
        .message()
        .split("\nORA-06550: ")
        .map(|part| {
            let parsed = part.strip_prefix("line ").and_then(|rest| {
                let (line, rest) = rest.split_once(", column ")?;
                let (column, text) = rest.split_once(":\n")?;
                Some((line.parse().ok()?, column.parse().ok()?, text.to_string()))
            });
            parsed.unwrap_or_else(|| (1, 1, part.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_from_one_in_characters() {
        let text = "BEGIN\n  x := 'é';\nEND;";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 8), (2, 3));
        assert_eq!(line_column(text, text.find("END").unwrap()), (3, 1));
        assert_eq!(line_column(text, 10_000), (3, 5));
        let accented = text.find('é').unwrap();
        assert_eq!(
            line_column(text, accented + 1),
            (2, 9),
            "inside a character"
        );
    }

    #[test]
    fn sqlcode_is_100_for_no_data_found() {
        assert_eq!(sqlcode(1403), 100);
        assert_eq!(sqlcode(1476), -1476);
        assert_eq!(predefined("ZERO_DIVIDE"), Some(1476));
        assert_eq!(predefined("NOPE"), None);
    }

    #[test]
    fn compilation_parts_are_each_line_and_column() {
        let text = "begin\n  select x into y from nowhere;\nend;";
        let error = sql_statement_ignored(
            text,
            22,
            8,
            &Error::new(942, "table or view does not exist"),
        );
        assert_eq!(
            compilation_parts(&error),
            vec![
                (
                    2,
                    17,
                    "PL/SQL: ORA-00942: table or view does not exist".to_string()
                ),
                (2, 3, "PL/SQL: SQL Statement ignored".to_string()),
            ]
        );
        assert_eq!(
            compilation_parts(&Error::new(1403, "no data found")),
            vec![(1, 1, "ORA-01403: no data found".to_string())]
        );
    }
}
