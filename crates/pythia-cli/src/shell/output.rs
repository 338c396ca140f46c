//! What the shell prints: results, errors, DESCRIBE and SHOW PARAMETER, as SQL*Plus lays them
//! out.
//!
//! Every function returns the text to print, so the layouts are tested without a database.
//! Scripts get SQL*Plus's plain text; an interactive terminal gets query results as drawn
//! tables ([`table_result`]). A query in plain text:
//!
//! ```text
//!   (blank line)
//!           ID NAME            headings: numbers right-aligned, text left-aligned
//!   ---------- ----------      one dash per character of the column's width
//!            1 one
//!   (blank line)
//!   1 row selected.            the feedback line, when FEEDBACK allows it
//!   (blank line)
//! ```
//!
//! Column widths: a number column is at least 10 wide (SQL*Plus's NUMWIDTH); a text column's
//! heading is cut to the column's declared length when that is shorter (SQL*Plus shows DUAL's
//! `DUMMY` as `D`). Otherwise a column is as wide as its heading or longest value, not its
//! declared length, so that a VARCHAR2(4000) column does not push the next one off the screen.

use std::time::Duration;

use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
use pythia::types::DataType;
use pythia::{DescribeColumn, StatementResult, Value};

/// SQL*Plus's NUMWIDTH: the least width of a number column.
const NUMBER_WIDTH_MIN: usize = 10;

/// The feedback line for a result, as FEEDBACK `threshold` allows (0 is OFF).
pub fn feedback_line(result: &StatementResult, threshold: u64) -> Option<String> {
    if threshold == 0 {
        return None;
    }
    if result.is_query {
        let rows = result.rows.len() as u64;
        if rows > 0 && rows < threshold {
            return None;
        }
        if !result.feedback.is_empty() {
            return Some(result.feedback.clone());
        }
        return Some(match rows {
            0 => "no rows selected".to_string(),
            1 => "1 row selected.".to_string(),
            rows => format!("{rows} rows selected."),
        });
    }
    (!result.feedback.is_empty()).then(|| result.feedback.clone())
}

fn is_numeric_column(result: &StatementResult, column: usize) -> bool {
    match result.columns[column].data_type {
        Some(DataType::Number { .. } | DataType::Float) => true,
        Some(_) => false,
        None => result
            .rows
            .iter()
            .any(|row| matches!(row.get(column), Some(Value::Number(_) | Value::Float(_)))),
    }
}

fn declared_length(data_type: &Option<DataType>) -> Option<usize> {
    match data_type {
        Some(DataType::Varchar2 { length } | DataType::Char { length }) => Some(*length as usize),
        _ => None,
    }
}

fn cell_text(value: Option<&Value>) -> String {
    value.and_then(Value::to_text).unwrap_or_default()
}

fn width_of(text: &str) -> usize {
    text.chars().count()
}

fn pad(text: &str, width: usize, right_aligned: bool) -> String {
    if right_aligned {
        format!("{text:>width$}")
    } else {
        format!("{text:<width$}")
    }
}

/// A statement's result in SQL*Plus's plain text.
pub fn plain_result(result: &StatementResult, feedback_threshold: u64) -> String {
    let mut out = String::from("\n");
    if result.is_query && !result.rows.is_empty() {
        let count = result.columns.len();
        let numeric: Vec<bool> = (0..count)
            .map(|column| is_numeric_column(result, column))
            .collect();
        let cells: Vec<Vec<String>> = result
            .rows
            .iter()
            .map(|row| {
                (0..count)
                    .map(|column| cell_text(row.get(column)))
                    .collect()
            })
            .collect();
        let mut headings = Vec::with_capacity(count);
        let mut widths = Vec::with_capacity(count);
        for (column, definition) in result.columns.iter().enumerate() {
            let longest = cells
                .iter()
                .map(|row| width_of(&row[column]))
                .max()
                .unwrap_or(0);
            let mut heading = definition.name.clone();
            if !numeric[column] {
                if let Some(length) = declared_length(&definition.data_type) {
                    if length > 0 && width_of(&heading) > length {
                        heading = heading.chars().take(length).collect();
                    }
                }
            }
            let mut width = longest.max(width_of(&heading));
            if numeric[column] {
                width = width.max(NUMBER_WIDTH_MIN);
            }
            headings.push(heading);
            widths.push(width);
        }
        let line = |texts: &mut dyn Iterator<Item = String>| -> String {
            let joined: Vec<String> = texts.collect();
            let mut line = joined.join(" ");
            line.truncate(line.trim_end().len());
            line.push('\n');
            line
        };
        out.push_str(&line(&mut (0..count).map(|column| {
            pad(&headings[column], widths[column], numeric[column])
        })));
        out.push_str(&line(&mut widths.iter().map(|&width| "-".repeat(width))));
        for row in &cells {
            out.push_str(&line(
                &mut (0..count).map(|column| pad(&row[column], widths[column], numeric[column])),
            ));
        }
        out.push('\n');
    }
    match feedback_line(result, feedback_threshold) {
        Some(feedback) => {
            out.push_str(&feedback);
            out.push_str("\n\n");
        }
        // A non-query with its feedback off prints nothing at all.
        None if !result.is_query || result.rows.is_empty() => out.clear(),
        None => {}
    }
    out
}

/// A statement's result for an interactive terminal: a drawn table, then the feedback line.
pub fn table_result(result: &StatementResult, feedback_threshold: u64) -> String {
    let mut out = String::new();
    if result.is_query && !result.rows.is_empty() {
        let mut table = Table::new();
        table
            .load_preset(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_header(result.columns.iter().map(|column| column.name.clone()));
        for row in &result.rows {
            table.add_row((0..result.columns.len()).map(|column| cell_text(row.get(column))));
        }
        for column in 0..result.columns.len() {
            if is_numeric_column(result, column) {
                if let Some(table_column) = table.column_mut(column) {
                    table_column.set_cell_alignment(CellAlignment::Right);
                }
            }
        }
        out.push_str(&table.to_string());
        out.push('\n');
    }
    if let Some(feedback) = feedback_line(result, feedback_threshold) {
        out.push_str(&feedback);
        out.push_str("\n\n");
    } else if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// An error from a statement, as SQL*Plus shows it: with a known position, the statement's
/// line, a `*` under the column and `ERROR at line N:`; otherwise `ERROR:`. Then the
/// `ORA-nnnnn: message` line.
pub fn error_text(statement: &str, error: &pythia::Error) -> String {
    let Some(position) = error.position() else {
        return format!("ERROR:\n{error}\n\n");
    };
    let mut position = position.min(statement.len());
    while !statement.is_char_boundary(position) {
        position -= 1;
    }
    let line_start = statement[..position].rfind('\n').map_or(0, |at| at + 1);
    let line_end = statement[position..]
        .find('\n')
        .map_or(statement.len(), |at| position + at);
    let line_number = statement[..position].matches('\n').count() + 1;
    // Tabs stay tabs so that the `*` lands under the character on any tab width.
    let indent: String = statement[line_start..position]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!(
        "{}\n{indent}*\nERROR at line {line_number}:\n{error}\n\n",
        &statement[line_start..line_end]
    )
}

/// DESCRIBE's layout: ` Name`, `Null?`, `Type`, dashed, one line per column.
pub fn describe_text(columns: &[DescribeColumn]) -> String {
    let name_width = columns
        .iter()
        .map(|column| width_of(&column.name))
        .max()
        .unwrap_or(0)
        .max(41);
    let type_width = columns
        .iter()
        .map(|column| width_of(&column.type_text))
        .max()
        .unwrap_or(0)
        .max(28);
    let mut out = format!(" {:<name_width$} {:<8} Type\n", "Name", "Null?");
    out.push_str(&format!(
        " {} {} {}\n",
        "-".repeat(name_width),
        "-".repeat(8),
        "-".repeat(type_width)
    ));
    for column in columns {
        let null = if column.nullable { "" } else { "NOT NULL" };
        out.push_str(&format!(
            " {:<name_width$} {null:<8} {}\n",
            column.name, column.type_text
        ));
    }
    out.push('\n');
    out
}

/// The query SHOW PARAMETER runs, for a filter (lower-cased; quotes doubled).
pub fn show_parameter_query(filter: Option<&str>) -> String {
    let filter = filter.unwrap_or("").to_lowercase().replace('\'', "''");
    format!(
        "select name, type, display_value from v$parameter where name like '%{filter}%' \
         order by name"
    )
}

/// `v$parameter.type` as SHOW PARAMETER words it.
pub fn parameter_type_word(value: &Value) -> String {
    let code = match value {
        Value::Number(number) => number.to_string(),
        other => return other.to_text().unwrap_or_default().to_lowercase(),
    };
    match code.as_str() {
        "1" => "boolean",
        "2" => "string",
        "3" => "integer",
        "4" => "file",
        "5" => "number",
        "6" => "big integer",
        _ => "unknown",
    }
    .to_string()
}

/// Splits `text` into pieces of at most `width` characters (at least one piece).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let characters: Vec<char> = text.chars().collect();
    if characters.is_empty() {
        return vec![String::new()];
    }
    characters
        .chunks(width)
        .map(|chunk| chunk.iter().collect())
        .collect()
}

/// SHOW PARAMETER's layout: NAME (36), TYPE (11), VALUE (30), long values wrapped in their
/// column. Rows are `name, type, display_value`; no rows print nothing.
/// SHOW ERRORS' report: `Errors for KIND NAME:` then each error's `LINE/COL` and text
/// (wrapped at 65 characters, its continuation lines under the text), or `No errors.`.
pub fn errors_text(kind: &str, name: &str, rows: &[Vec<Value>]) -> String {
    const TEXT_WIDTH: usize = 65;
    if rows.is_empty() {
        return "No errors.\n".to_string();
    }
    let mut out = format!(
        "Errors for {kind} {name}:\n\nLINE/COL ERROR\n{} {}\n",
        "-".repeat(8),
        "-".repeat(TEXT_WIDTH)
    );
    for row in rows {
        let line = cell_text(row.first());
        let position = cell_text(row.get(1));
        let text = cell_text(row.get(2));
        let mut lines = text
            .lines()
            .flat_map(|line| word_wrap(line, TEXT_WIDTH))
            .collect::<Vec<_>>()
            .into_iter();
        let place = format!("{line}/{position}");
        out.push_str(&format!(
            "{place:<8} {}\n",
            lines.next().unwrap_or_default()
        ));
        for rest in lines {
            let line = format!("{:<8} {}", "", rest);
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}

/// `text` cut into lines of at most `width` characters at spaces (SQL*Plus's WORD_WRAPPED),
/// a word longer than a line cut where it must be.
fn word_wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if needed > width && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let cut: String = line.chars().take(width).collect();
            line = line.chars().skip(width).collect();
            lines.push(cut);
        }
    }
    lines.push(line);
    lines
}

pub fn parameters_text(rows: &[Vec<Value>]) -> String {
    const NAME_WIDTH: usize = 36;
    const TYPE_WIDTH: usize = 11;
    const VALUE_WIDTH: usize = 30;
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{:<NAME_WIDTH$} {:<TYPE_WIDTH$} VALUE\n{} {} {}\n",
        "NAME",
        "TYPE",
        "-".repeat(NAME_WIDTH),
        "-".repeat(TYPE_WIDTH),
        "-".repeat(VALUE_WIDTH)
    );
    for row in rows {
        let name = wrap(&cell_text(row.first()), NAME_WIDTH);
        let kind = wrap(
            &row.get(1).map(parameter_type_word).unwrap_or_default(),
            TYPE_WIDTH,
        );
        let value = wrap(&cell_text(row.get(2)), VALUE_WIDTH);
        let lines = name.len().max(kind.len()).max(value.len());
        for line in 0..lines {
            let piece = |pieces: &[String]| pieces.get(line).cloned().unwrap_or_default();
            let text = format!(
                "{:<NAME_WIDTH$} {:<TYPE_WIDTH$} {}",
                piece(&name),
                piece(&kind),
                piece(&value)
            );
            out.push_str(text.trim_end());
            out.push('\n');
        }
    }
    out
}

/// SET TIMING's line: `Elapsed: 00:00:00.01` (hours, minutes, seconds, hundredths).
pub fn elapsed_text(elapsed: Duration) -> String {
    let hundredths = (elapsed.as_micros() + 5_000) / 10_000;
    let seconds = hundredths / 100;
    format!(
        "Elapsed: {:02}:{:02}:{:02}.{:02}\n",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60,
        hundredths % 100
    )
}

/// LIST's layout: numbered lines, the last one marked with `*` as the current line.
pub fn list_text(statement: &str) -> String {
    let lines: Vec<&str> = statement.lines().collect();
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        let marker = if index + 1 == lines.len() { '*' } else { ' ' };
        out.push_str(&format!("{:>3}{marker} {line}\n", index + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pythia::Column;

    fn column(name: &str, data_type: Option<DataType>) -> Column {
        Column {
            name: name.to_string(),
            data_type,
        }
    }

    fn query(columns: Vec<Column>, rows: Vec<Vec<Value>>) -> StatementResult {
        let count = rows.len();
        StatementResult {
            is_query: true,
            columns,
            rows,
            rows_affected: count as u64,
            feedback: match count {
                0 => "no rows selected".into(),
                1 => "1 row selected.".into(),
                n => format!("{n} rows selected."),
            },
            ..Default::default()
        }
    }

    fn id_name() -> StatementResult {
        query(
            vec![
                column(
                    "ID",
                    Some(DataType::Number {
                        precision: None,
                        scale: None,
                    }),
                ),
                column("NAME", Some(DataType::Varchar2 { length: 20 })),
                column("D", Some(DataType::Varchar2 { length: 1 })),
            ],
            vec![
                vec![Value::integer(1), Value::text("one"), Value::text("X")],
                vec![Value::integer(22), Value::Null, Value::Null],
                vec![Value::integer(-3), Value::text("three"), Value::text("Y")],
            ],
        )
    }

    #[test]
    fn a_query_prints_headings_dashes_rows_and_feedback() {
        assert_eq!(
            plain_result(&id_name(), 1),
            "\n        ID NAME  D\n---------- ----- -\n         1 one   X\n        22\n        -3 three Y\n\n3 rows selected.\n\n"
        );
    }

    #[test]
    fn a_text_heading_is_cut_to_the_declared_length() {
        let result = query(
            vec![column("DUMMY", Some(DataType::Varchar2 { length: 1 }))],
            vec![vec![Value::text("X")]],
        );
        assert_eq!(plain_result(&result, 1), "\nD\n-\nX\n\n1 row selected.\n\n");
    }

    #[test]
    fn feedback_follows_the_threshold() {
        // SQL*Plus's default of 6: three rows show no feedback line.
        assert_eq!(
            plain_result(&id_name(), 6),
            "\n        ID NAME  D\n---------- ----- -\n         1 one   X\n        22\n        -3 three Y\n\n"
        );
        let empty = query(vec![column("X", None)], vec![]);
        assert_eq!(plain_result(&empty, 6), "\nno rows selected\n\n");
        assert_eq!(plain_result(&empty, 0), "");
        let created = StatementResult {
            feedback: "Table created.".into(),
            ..Default::default()
        };
        assert_eq!(plain_result(&created, 1), "\nTable created.\n\n");
        assert_eq!(plain_result(&created, 0), "");
    }

    #[test]
    fn an_untyped_column_of_numbers_is_right_aligned() {
        let result = query(
            vec![column("COUNT(*)", None)],
            vec![vec![Value::integer(7)]],
        );
        assert_eq!(
            plain_result(&result, 1),
            "\n  COUNT(*)\n----------\n         7\n\n1 row selected.\n\n"
        );
    }

    #[test]
    fn interactive_results_are_tables() {
        let text = table_result(&id_name(), 1);
        assert!(text.contains("│ ID ┆ NAME  ┆ D │"), "{text}");
        assert!(text.contains("│ -3 ┆ three ┆ Y │"), "{text}");
        assert!(text.ends_with("3 rows selected.\n\n"), "{text}");
    }

    #[test]
    fn an_error_with_a_position_points_at_it() {
        let statement = "select *\n  from nosuch\n where 1 = 1";
        let error = pythia::Error::table_not_found().at(statement.find("nosuch").unwrap());
        assert_eq!(
            error_text(statement, &error),
            "  from nosuch\n       *\nERROR at line 2:\nORA-00942: table or view does not exist\n\n"
        );
        let error = pythia::Error::new(3001, "unimplemented feature");
        assert_eq!(
            error_text(statement, &error),
            "ERROR:\nORA-03001: unimplemented feature\n\n"
        );
    }

    #[test]
    fn an_error_position_past_the_end_or_inside_a_character_is_clamped() {
        let statement = "select 'é' from";
        let error = pythia::Error::syntax(936, "missing expression", 999);
        assert!(error_text(statement, &error).starts_with("select 'é' from\n               *\n"));
        let inside = statement.find('é').unwrap() + 1;
        let error = pythia::Error::syntax(936, "missing expression", inside);
        assert!(error_text(statement, &error).starts_with("select 'é' from\n        *\n"));
    }

    #[test]
    fn describe_uses_the_sql_plus_layout() {
        let columns = vec![
            DescribeColumn {
                name: "ID".into(),
                nullable: false,
                type_text: "NUMBER(10)".into(),
            },
            DescribeColumn {
                name: "NAME".into(),
                nullable: true,
                type_text: "VARCHAR2(20)".into(),
            },
        ];
        let expected = format!(
            " Name{}Null?    Type\n {} -------- {}\n ID{}NOT NULL NUMBER(10)\n NAME{}VARCHAR2(20)\n\n",
            " ".repeat(38),
            "-".repeat(41),
            "-".repeat(28),
            " ".repeat(40),
            " ".repeat(47),
        );
        assert_eq!(describe_text(&columns), expected);
    }

    #[test]
    fn show_parameter_words_the_type_and_wraps_long_values() {
        assert_eq!(
            show_parameter_query(Some("DB_Cache")),
            "select name, type, display_value from v$parameter where name like '%db_cache%' order by name"
        );
        assert!(show_parameter_query(Some("x' or '1")).contains("'%x'' or ''1%'"));
        let rows = vec![
            vec![
                Value::text("db_cache_size"),
                Value::integer(6),
                Value::text("64M"),
            ],
            vec![
                Value::text("timed_statistics"),
                Value::integer(1),
                Value::text("TRUE"),
            ],
            vec![
                Value::text("user_dump_dest"),
                Value::integer(2),
                Value::text(format!("/{}", "d".repeat(40))),
            ],
        ];
        let text = parameters_text(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(
            lines[1],
            "NAME                                 TYPE        VALUE"
        );
        assert_eq!(
            lines[2],
            format!("{} {} {}", "-".repeat(36), "-".repeat(11), "-".repeat(30))
        );
        assert_eq!(
            lines[3],
            "db_cache_size                        big integer 64M"
        );
        assert_eq!(
            lines[4],
            "timed_statistics                     boolean     TRUE"
        );
        assert_eq!(
            lines[5],
            format!(
                "user_dump_dest                       string      /{}",
                "d".repeat(29)
            )
        );
        assert_eq!(lines[6], format!("{}{}", " ".repeat(49), "d".repeat(11)));
        assert_eq!(parameters_text(&[]), "");
        assert_eq!(
            parameter_type_word(&Value::text("Big Integer")),
            "big integer"
        );
    }

    #[test]
    fn elapsed_time_is_hours_minutes_seconds_and_hundredths() {
        assert_eq!(
            elapsed_text(Duration::from_millis(12)),
            "Elapsed: 00:00:00.01\n"
        );
        assert_eq!(
            elapsed_text(Duration::from_millis(3_723_456)),
            "Elapsed: 01:02:03.46\n"
        );
        assert_eq!(elapsed_text(Duration::ZERO), "Elapsed: 00:00:00.00\n");
    }

    #[test]
    fn list_marks_the_last_line() {
        assert_eq!(
            list_text("select *\nfrom t"),
            "  1  select *\n  2* from t\n"
        );
    }
}
