//! `pythia slt FILE...`: runs sqllogictest files, each against a fresh embedded database.
//!
//! The files are in the sqllogictest format of SQLite's corpus: `statement ok|error`,
//! `query <types> [nosort|rowsort|valuesort]` with results one value a line or one row a
//! line, `hash-threshold`, `onlyif` / `skipif` labels. The `sqllogictest` crate parses the
//! records, sorts and hashes results, and compares; this module supplies the engines and
//! formats each value by the type letter its record declares, as the original runner does:
//!
//! | letter | value shown as |
//! |---|---|
//! | `I` | an integer, truncated toward zero (text that is not a number: 0) |
//! | `R` | a number with three decimals |
//! | `T` | the text; `(empty)` for an empty string, control characters as `@` |
//! | any | `NULL` for a null |
//!
//! A result may also be given as `N values hashing to <md5>`, as the corpus gives every result
//! of more than 8 values; and the corpus's conditional halts (`onlyif mssql` then `halt`) are
//! settled per engine before the crate parses the file (`settle_conditions`).
//!
//! Engines: Pythia (labels `pythia` and `oracle`: records guarded by `onlyif oracle` run,
//! those under `skipif oracle` do not) and, for comparison, SQLite (bundled, in memory;
//! label `sqlite`). Each file gets its own database, created in a temporary directory and
//! removed afterwards. Every statement and query that is not skipped counts as passed or
//! failed; the run ends with one line `N passed, N failed`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pythia::{Instance, Session, Value};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use sqllogictest::{DBOutput, DefaultColumnType, QueryExpect, Record, Runner, DB};

/// The engine a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Pythia,
    Sqlite,
}

impl Engine {
    /// The labels `onlyif` and `skipif` test.
    fn labels(self) -> &'static [&'static str] {
        match self {
            Engine::Pythia => &["pythia", "oracle"],
            Engine::Sqlite => &["sqlite"],
        }
    }
}

/// What a run of one file came to.
#[derive(Debug, Default)]
pub struct FileOutcome {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub elapsed: Duration,
    /// One message per failed record (its location, the SQL, what differed).
    pub failures: Vec<String>,
}

/// A value as the formatter sees it, from either engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Integer(i64),
    Real(f64),
    Decimal(Decimal),
    Text(String),
}

impl Cell {
    fn from_pythia(value: &Value) -> Cell {
        match value {
            Value::Null => Cell::Null,
            Value::Number(number) => Cell::Decimal(*number),
            Value::Float(float) => Cell::Real(*float),
            Value::Text(text) => Cell::Text(text.clone()),
            Value::Boolean(flag) => Cell::Integer(*flag as i64),
            other => Cell::Text(other.to_string()),
        }
    }

    /// The value as the original sqllogictest runner prints it for `letter`.
    pub fn format(&self, column_type: &DefaultColumnType) -> String {
        match (self, column_type) {
            (Cell::Null, _) => "NULL".to_string(),
            (_, DefaultColumnType::Integer) => self.integer().to_string(),
            (_, DefaultColumnType::FloatingPoint) => format!("{:.3}", self.real()),
            (Cell::Text(text), _) if text.is_empty() => "(empty)".to_string(),
            (Cell::Text(text), _) => text
                .chars()
                .map(|c| {
                    if (' '..='~').contains(&c) || !c.is_ascii() {
                        c
                    } else {
                        '@'
                    }
                })
                .collect(),
            (Cell::Integer(integer), _) => integer.to_string(),
            (Cell::Real(real), _) => real.to_string(),
            (Cell::Decimal(number), _) => number.normalize().to_string(),
        }
    }

    fn integer(&self) -> i64 {
        match self {
            Cell::Null => 0,
            Cell::Integer(integer) => *integer,
            Cell::Real(real) => real.trunc() as i64,
            Cell::Decimal(number) => number.trunc().to_i64().unwrap_or(0),
            Cell::Text(text) => numeric_prefix(text).trunc() as i64,
        }
    }

    fn real(&self) -> f64 {
        match self {
            Cell::Null => 0.0,
            Cell::Integer(integer) => *integer as f64,
            Cell::Real(real) => *real,
            Cell::Decimal(number) => number.to_f64().unwrap_or(0.0),
            Cell::Text(text) => numeric_prefix(text),
        }
    }
}

/// The number text starts with, as SQLite converts text to a number (0 when none).
fn numeric_prefix(text: &str) -> f64 {
    let text = text.trim_start();
    let mut end = 0;
    for (index, _) in text.char_indices() {
        if text[..=index].parse::<f64>().is_ok() {
            end = index + 1;
        }
    }
    text[..end].parse().unwrap_or(0.0)
}

/// The type letters of the query record about to run, so that the engine formats its
/// values by them (`DB::run` sees only the SQL).
type Letters = Arc<Mutex<Vec<DefaultColumnType>>>;

/// An error from either engine, as the runner reports it.
#[derive(Debug)]
pub struct EngineError(String);

impl std::fmt::Display for EngineError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for EngineError {}

fn rows_output(letters: &Letters, rows: Vec<Vec<Cell>>) -> DBOutput<DefaultColumnType> {
    let letters = letters.lock().expect("letters").clone();
    let width = rows.first().map_or(letters.len(), Vec::len);
    let types: Vec<DefaultColumnType> = (0..width)
        .map(|index| {
            letters
                .get(index)
                .cloned()
                .unwrap_or(DefaultColumnType::Text)
        })
        .collect();
    let rows = rows
        .iter()
        .map(|row| {
            row.iter()
                .zip(&types)
                .map(|(cell, column_type)| cell.format(column_type))
                .collect()
        })
        .collect();
    DBOutput::Rows { types, rows }
}

/// A fresh Pythia database in a directory of its own, removed when dropped.
struct PythiaDatabase {
    session: Option<Session>,
    instance: Arc<Instance>,
    dir: PathBuf,
    letters: Letters,
}

impl PythiaDatabase {
    fn open(letters: Letters) -> Result<PythiaDatabase, EngineError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pythia-slt-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let parameters = [
            ("db_cache_size", "16M"),
            ("log_file_size", "8M"),
            ("undo_tablespace_size", "32M"),
        ];
        let instance =
            Instance::open(&dir, &parameters).map_err(|error| EngineError(error.to_string()))?;
        let session = instance
            .connect()
            .map_err(|error| EngineError(error.to_string()))?;
        Ok(PythiaDatabase {
            session: Some(session),
            instance,
            dir,
            letters,
        })
    }
}

impl Drop for PythiaDatabase {
    fn drop(&mut self) {
        self.session.take();
        let _ = self.instance.shutdown();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl DB for PythiaDatabase {
    type Error = EngineError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, EngineError> {
        let session = self.session.as_mut().expect("an open session");
        let result = session
            .execute(sql)
            .map_err(|error| EngineError(error.to_string()))?;
        if !result.is_query {
            return Ok(DBOutput::StatementComplete(result.rows_affected));
        }
        let rows = result
            .rows
            .iter()
            .map(|row| row.iter().map(Cell::from_pythia).collect())
            .collect();
        Ok(rows_output(&self.letters, rows))
    }

    fn engine_name(&self) -> &str {
        "pythia"
    }
}

/// SQLite in memory, the same way.
struct SqliteDatabase {
    connection: rusqlite::Connection,
    letters: Letters,
}

impl DB for SqliteDatabase {
    type Error = EngineError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, EngineError> {
        let error = |error: rusqlite::Error| EngineError(error.to_string());
        let mut statement = self.connection.prepare(sql).map_err(error)?;
        let width = statement.column_count();
        if width == 0 {
            return Ok(DBOutput::StatementComplete(
                statement.execute([]).map_err(error)? as u64,
            ));
        }
        let mut rows = Vec::new();
        let mut cursor = statement.query([]).map_err(error)?;
        while let Some(row) = cursor.next().map_err(error)? {
            let mut cells = Vec::with_capacity(width);
            for index in 0..width {
                use rusqlite::types::ValueRef;
                cells.push(match row.get_ref(index).map_err(error)? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(integer) => Cell::Integer(integer),
                    ValueRef::Real(real) => Cell::Real(real),
                    ValueRef::Text(text) | ValueRef::Blob(text) => {
                        Cell::Text(String::from_utf8_lossy(text).into_owned())
                    }
                });
            }
            rows.push(cells);
        }
        Ok(rows_output(&self.letters, rows))
    }

    fn engine_name(&self) -> &str {
        "sqlite"
    }
}

/// Accepts results listed a row a line or, as SQLite's corpus lists them, a value a line,
/// or as the one line `N values hashing to <md5>` the corpus gives for a result of more
/// values than its hash threshold (the corpus's files were generated with a threshold of 8
/// set on the command line, so most of them do not say so themselves).
fn either_layout(
    normalizer: sqllogictest::Normalizer,
    actual: &[Vec<String>],
    expected: &[String],
) -> bool {
    if sqllogictest::default_validator(normalizer, actual, expected) {
        return true;
    }
    if let [line] = expected {
        if let Some(hashed) = HashedResult::parse(line) {
            return hashed == HashedResult::of(actual);
        }
    }
    let values: Vec<Vec<String>> = actual
        .iter()
        .flatten()
        .map(|value| vec![value.clone()])
        .collect();
    sqllogictest::default_validator(normalizer, &values, expected)
}

/// A result given as its number of values and the MD5 of the values, each followed by a
/// newline, in the order the record's sort mode leaves them.
#[derive(Debug, PartialEq, Eq)]
struct HashedResult {
    values: usize,
    md5_hex: String,
}

impl HashedResult {
    fn parse(line: &str) -> Option<HashedResult> {
        let (values, md5_hex) = line.trim().split_once(" values hashing to ")?;
        Some(HashedResult {
            values: values.parse().ok()?,
            md5_hex: md5_hex.to_ascii_lowercase(),
        })
    }

    fn of(rows: &[Vec<String>]) -> HashedResult {
        use md5::Digest;
        let mut md5 = md5::Md5::new();
        let mut values = 0;
        for value in rows.iter().flatten() {
            md5.update(value.as_bytes());
            md5.update(b"\n");
            values += 1;
        }
        let md5_hex = md5
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        HashedResult { values, md5_hex }
    }
}

/// The script with the corpus's conditional halts settled for `engine`, which the
/// `sqllogictest` crate does not do: it halts at every `halt` and carries the conditions
/// before one over to the next record. A halt whose `onlyif` / `skipif` lines let `engine`
/// run stays, without them; one they skip becomes comments with them. A comment after a
/// condition's label (`skipif mssql # empty RHS`), which the crate does not parse, goes too.
/// Lines keep their numbers, so that failures point into the file as it is.
fn settle_conditions(script: &str, engine: Engine) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut conditions_from = None;
    for line in script.lines() {
        let words: Vec<&str> = line
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        match words.as_slice() {
            [keyword @ ("onlyif" | "skipif"), label] => {
                conditions_from.get_or_insert(lines.len());
                lines.push(format!("{keyword} {label}"));
            }
            ["halt"] => {
                let from = conditions_from.take().unwrap_or(lines.len());
                let runs = lines[from..].iter().all(|condition| {
                    let (keyword, label) = condition.split_once(' ').expect("a condition");
                    engine.labels().contains(&label) == (keyword == "onlyif")
                });
                for condition in &mut lines[from..] {
                    condition.insert_str(0, "# ");
                }
                lines.push(if runs { "halt" } else { "# halt" }.to_string());
            }
            _ => {
                conditions_from = None;
                lines.push(line.to_string());
            }
        }
    }
    let mut settled = lines.join("\n");
    settled.push('\n');
    settled
}

/// Runs one file against a fresh database of `engine`.
pub fn run_file(path: &Path, engine: Engine) -> FileOutcome {
    let mut outcome = FileOutcome::default();
    let started = Instant::now();
    let parsed = std::fs::read_to_string(path)
        .map_err(|error| error.to_string())
        .and_then(|script| {
            sqllogictest::parse_with_name::<DefaultColumnType>(
                &settle_conditions(&script, engine),
                path.display().to_string(),
            )
            .map_err(|error| error.to_string())
        });
    let records = match parsed {
        Ok(records) => records,
        Err(error) => {
            outcome.failed += 1;
            outcome
                .failures
                .push(format!("{}: cannot be parsed: {error}", path.display()));
            return outcome;
        }
    };
    let letters: Letters = Arc::default();
    match engine {
        Engine::Pythia => {
            let letters_for_db = letters.clone();
            let mut runner = Runner::new(move || {
                let letters = letters_for_db.clone();
                async move { PythiaDatabase::open(letters) }
            });
            run_records(&mut runner, engine, records, &letters, &mut outcome);
            runner.shutdown();
        }
        Engine::Sqlite => {
            let letters_for_db = letters.clone();
            let mut runner = Runner::new(move || {
                let letters = letters_for_db.clone();
                async move {
                    let connection = rusqlite::Connection::open_in_memory()
                        .map_err(|error| EngineError(error.to_string()))?;
                    Ok(SqliteDatabase {
                        connection,
                        letters,
                    })
                }
            });
            run_records(&mut runner, engine, records, &letters, &mut outcome);
            runner.shutdown();
        }
    }
    outcome.elapsed = started.elapsed();
    outcome
}

fn run_records<D, M>(
    runner: &mut Runner<D, M>,
    engine: Engine,
    records: Vec<Record<DefaultColumnType>>,
    letters: &Letters,
    outcome: &mut FileOutcome,
) where
    D: sqllogictest::AsyncDB<ColumnType = DefaultColumnType>,
    M: sqllogictest::MakeConnection<Conn = D>,
{
    for label in engine.labels() {
        runner.add_label(label);
    }
    runner.with_validator(either_layout);
    for record in records {
        let counted = matches!(record, Record::Statement { .. } | Record::Query { .. });
        if let Record::Halt { .. } = record {
            break;
        }
        if let Record::Query {
            expected: QueryExpect::Results { types, .. },
            ..
        } = &record
        {
            *letters.lock().expect("letters") = types.clone();
        }
        match runner.run(record) {
            Ok(sqllogictest::RecordOutput::Nothing) if counted => outcome.skipped += 1,
            Ok(_) if counted => outcome.passed += 1,
            Ok(_) => {}
            Err(error) => {
                outcome.failed += 1;
                outcome.failures.push(error.display(false).to_string());
            }
        }
    }
}

/// `pythia slt`: runs every file on `engine`, prints failures and a line per file, then the
/// totals. With `compare`, each file also runs on SQLite, whose time (and failures, which
/// do not count) is printed beside. Returns the process status: 0 when nothing failed.
pub fn run(files: &[PathBuf], engine: Engine, compare: bool) -> i32 {
    let (mut passed, mut failed) = (0, 0);
    let (mut own_time, mut sqlite_time) = (Duration::ZERO, Duration::ZERO);
    for path in files {
        let outcome = run_file(path, engine);
        for failure in &outcome.failures {
            println!("{failure}\n");
        }
        print!(
            "{}: {} passed, {} failed, {} skipped in {:.3} s",
            path.display(),
            outcome.passed,
            outcome.failed,
            outcome.skipped,
            outcome.elapsed.as_secs_f64()
        );
        if compare {
            let sqlite = run_file(path, Engine::Sqlite);
            print!(
                "; sqlite: {} passed, {} failed in {:.3} s",
                sqlite.passed,
                sqlite.failed,
                sqlite.elapsed.as_secs_f64()
            );
            sqlite_time += sqlite.elapsed;
        }
        println!();
        own_time += outcome.elapsed;
        passed += outcome.passed;
        failed += outcome.failed;
    }
    if compare {
        println!(
            "time: {:.3} s, sqlite {:.3} s ({:.1}x)",
            own_time.as_secs_f64(),
            sqlite_time.as_secs_f64(),
            own_time.as_secs_f64() / sqlite_time.as_secs_f64().max(1e-9)
        );
    }
    println!("{passed} passed, {failed} failed");
    i32::from(failed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_formatted_by_the_letter_their_record_declares() {
        let integer = DefaultColumnType::Integer;
        let real = DefaultColumnType::FloatingPoint;
        let text = DefaultColumnType::Text;
        let number = |text: &str| Cell::Decimal(text.parse().unwrap());
        assert_eq!(number("-7.9").format(&integer), "-7");
        assert_eq!(number("102.4").format(&integer), "102");
        assert_eq!(number("102.4").format(&real), "102.400");
        assert_eq!(number("2.5").format(&text), "2.5");
        assert_eq!(number("2.50").format(&text), "2.5");
        assert_eq!(Cell::Real(-0.5).format(&integer), "0");
        assert_eq!(Cell::Integer(3).format(&real), "3.000");
        assert_eq!(Cell::Text("12abc".into()).format(&integer), "12");
        assert_eq!(Cell::Text("abc".into()).format(&integer), "0");
        assert_eq!(Cell::Text(String::new()).format(&text), "(empty)");
        assert_eq!(Cell::Text("a\tb".into()).format(&text), "a@b");
        assert_eq!(Cell::Null.format(&integer), "NULL");
        assert_eq!(Cell::Null.format(&text), "NULL");
    }

    #[test]
    fn a_halt_stops_only_the_engines_its_conditions_select() {
        // The bug: every `halt` stopped the run, so a file that opens with `onlyif mssql`
        // and `halt` ran nothing, and the conditions moved on to the next record.
        let script = "onlyif mssql\nhalt\n\nskipif mysql # a note\nstatement ok\nSELECT 1\n\nonlyif oracle\nhalt\n";
        assert_eq!(
            settle_conditions(script, Engine::Pythia),
            "# onlyif mssql\n# halt\n\nskipif mysql\nstatement ok\nSELECT 1\n\n# onlyif oracle\nhalt\n"
        );
        assert_eq!(
            settle_conditions(script, Engine::Sqlite).lines().last(),
            Some("# halt")
        );
        assert_eq!(settle_conditions("halt\n", Engine::Sqlite), "halt\n");
    }

    #[test]
    fn a_result_may_be_given_as_the_md5_of_its_values() {
        // The corpus lists results of more than 8 values as a count and an MD5; they were
        // compared as text, so every such query of select1.test failed on both engines.
        let rows = vec![vec!["1".to_string(), "NULL".to_string()]];
        let hashed = HashedResult::of(&rows);
        assert_eq!(hashed.values, 2);
        // printf '1\nNULL\n' | md5sum
        assert_eq!(hashed.md5_hex, "2be67997a5f720286a651cc52b0cb9dd");
        let line = format!("2 values hashing to {}", hashed.md5_hex);
        assert!(either_layout(
            sqllogictest::default_normalizer,
            &rows,
            std::slice::from_ref(&line)
        ));
        let other = vec![vec!["1".to_string(), "2".to_string()]];
        assert!(!either_layout(
            sqllogictest::default_normalizer,
            &other,
            &[line]
        ));
    }
}
