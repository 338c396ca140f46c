//! Golden tests: scripts in `tests/golden/` run against an embedded instance, and everything
//! they print is compared with the expected output checked in beside each command
//! ([goldenscript], as toyDB's tests are written). Regenerate the expected output with
//!
//! ```sh
//! UPDATE_GOLDENFILES=1 cargo test -p pythia --test golden
//! ```
//!
//! and review it as a diff before committing it.
//!
//! Each script opens its own instance in a fresh directory (the parameters of
//! `common::SMALL`). A script is blocks of commands, each block followed by `---` and the
//! output of its commands. Commands:
//!
//! - `> statement` (a literal line: the whole rest of the line, quotes and all; end a line
//!   with `\` to continue it) runs one SQL statement and prints what it returned: a query's
//!   rows, one a line, values separated by `, ` and NULL as `NULL` (`no rows selected` for
//!   none); any other statement's SQL*Plus feedback (`1 row created.`); an error as its
//!   `ORA-nnnnn: message` text, after which the session goes on. A bare word that is not one
//!   of the commands below (`commit`, `rollback`) is run as SQL too. Tags before the `>`:
//!   - `[header]`: the column names first.
//!   - `[plan]`: the statement's EXPLAIN PLAN first, as DBMS_XPLAN.DISPLAY shows it (run in
//!     the same session, before the statement; its own parses are not in `stats`), blank
//!     lines left out.
//! - `stats "name" ...` prints how much each named statistic (v$statname's names: `"session
//!   logical reads"`, `"consistent gets"`, `"parse count (hard)"`, ...) of the session's
//!   v$mystat grew over its last statement, and nothing else (not the commands between).
//! - `redo` prints the redo records the session's last statement generated, in LSN order:
//!   each record's change vectors, by block (datafile, block number, block class, and the
//!   object whose block it is), and how many byte ranges and bytes each changed. LSNs and
//!   SCNs vary from run to run and are not shown.
//! - `cursors "pattern"` prints the v$sql rows whose SQL_TEXT is LIKE the pattern, by text
//!   and child number: SQL_ID, CHILD_NUMBER, EXECUTIONS, PARSE_CALLS, LOADS, INVALIDATIONS
//!   and SQL_TEXT.
//! - `restart` shuts the instance down cleanly (closing every session) and opens it again;
//!   `restart abort` abandons it as SHUTDOWN ABORT or a crash of the process would (no
//!   checkpoint, the sessions' transactions left in flight) and opens it again, printing
//!   what crash recovery rolled back.
//!
//! A prefix names the session a command runs in (`s2: > select ...`, `s2: stats ...`);
//! commands without one run in the default session. Sessions connect on first use and are
//! closed by `restart`. The output of a prefixed command carries its prefix. A statement
//! that would wait for another session's lock waits for ever: a script must not do that.
//!
//! Only what is the same from run to run is printed: no times, SCNs, LSNs or addresses, and
//! statistics only as they grow over one statement.

use std::collections::{BTreeSet, HashMap};
use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use pythia::instrumentation::{self, Statistic};
use pythia::io::block::BlockId;
use pythia::redo::log::RedoLog;
use pythia::redo::record::{self, RECORD_COMMIT};
use pythia::{Instance, Session, StatementResult, Value};

mod common;
use common::{temp_dir, SMALL};

/// The commands of a golden script (see the module documentation).
#[derive(goldenscript::Command)]
enum Command {
    /// `stats "name" ...`: statistics' growth over the session's last statement.
    Stats(Vec<String>),
    /// `redo`: the redo records of the session's last statement.
    Redo,
    /// `cursors "pattern"`: v$sql's children whose text is LIKE the pattern.
    Cursors(String),
    /// `restart [abort]`: shut down (or abandon) the instance and open it again.
    Restart(Option<String>),
    /// Anything else: one SQL statement.
    #[command(other)]
    Sql(goldenscript::Command),
}

/// What the runner measured of a session's last statement.
#[derive(Default)]
struct LastStatement {
    /// Each statistic's growth, by statistic index.
    statistics: Vec<u64>,
    /// The redo it generated: [start, end) LSNs.
    redo: (u64, u64),
}

struct Runner {
    dir: PathBuf,
    instance: Option<Arc<Instance>>,
    /// The sessions by prefix ("" for the default one), connected on first use.
    sessions: HashMap<String, Session>,
    /// The session the runner reads dictionary and v$ views through, so that its queries
    /// count in no script session's statistics.
    observer: Option<Session>,
    last: HashMap<String, LastStatement>,
}

impl Runner {
    fn new(name: &str) -> Runner {
        let dir = temp_dir(&format!("golden-{name}"));
        let instance = Instance::open(&dir, SMALL).expect("open the instance");
        Runner {
            dir,
            instance: Some(instance),
            sessions: HashMap::new(),
            observer: None,
            last: HashMap::new(),
        }
    }

    fn instance(&self) -> &Arc<Instance> {
        self.instance.as_ref().expect("the instance is open")
    }

    fn session(&mut self, name: &str) -> Result<&mut Session, Box<dyn Error>> {
        if !self.sessions.contains_key(name) {
            let session = self.instance().connect()?;
            self.sessions.insert(name.to_string(), session);
        }
        Ok(self.sessions.get_mut(name).expect("connected"))
    }

    fn observer(&mut self) -> Result<&mut Session, Box<dyn Error>> {
        if self.observer.is_none() {
            self.observer = Some(self.instance().connect()?);
        }
        Ok(self.observer.as_mut().expect("connected"))
    }

    /// Runs one SQL statement in session `name`, measuring it, and prints its result.
    fn sql(
        &mut self,
        name: &str,
        text: &str,
        tags: &BTreeSet<String>,
    ) -> Result<String, Box<dyn Error>> {
        for tag in tags {
            if tag != "plan" && tag != "header" {
                return Err(format!("unknown tag [{tag}]").into());
            }
        }
        let mut output = String::new();
        if tags.contains("plan") {
            let session = self.session(name)?;
            match session.execute(&format!("explain plan for {text}")) {
                Ok(_) => {
                    let plan = session
                        .execute("select plan_table_output from table(dbms_xplan.display)")?;
                    // Without its blank lines, which would break the block's output.
                    for line in plan.rows.iter().map(|row| row[0].to_string()) {
                        if !line.trim().is_empty() {
                            writeln!(output, "{line}")?;
                        }
                    }
                }
                Err(error) => writeln!(output, "{error}")?,
            }
        }
        let log = self.instance().log().clone();
        let session = self.session(name)?;
        let sid = session.sid();
        let before = statistics(sid);
        let redo_start = log.current_lsn();
        let result = session.execute(text);
        let redo_end = log.current_lsn();
        let after = statistics(sid);
        self.last.insert(
            name.to_string(),
            LastStatement {
                statistics: after
                    .iter()
                    .zip(&before)
                    .map(|(after, before)| after.wrapping_sub(*before))
                    .collect(),
                redo: (redo_start, redo_end),
            },
        );
        match result {
            Ok(result) => print_result(&mut output, &result, tags.contains("header"))?,
            Err(error) => writeln!(output, "{error}")?,
        }
        Ok(output)
    }

    fn stats(&self, name: &str, names: &[String]) -> Result<String, Box<dyn Error>> {
        let last = self.last(name)?;
        let mut output = String::new();
        for statistic in names {
            let found = Statistic::from_name(statistic)
                .ok_or_else(|| format!("no statistic {statistic:?} in v$statname"))?;
            writeln!(output, "{statistic}: {}", last.statistics[found.index()])?;
        }
        Ok(output)
    }

    fn last(&self, name: &str) -> Result<&LastStatement, Box<dyn Error>> {
        self.last
            .get(name)
            .ok_or_else(|| "the session has run no statement yet".into())
    }

    fn redo(&mut self, name: &str) -> Result<String, Box<dyn Error>> {
        let (start, end) = self.last(name)?.redo;
        let instance = self.instance().clone();
        let log = instance.log();
        log.flush_to(end)?;
        let records = redo_records(log, start, end)?;
        // What each block is: its class and object, as the buffer cache (v$bh) has them.
        let headers: HashMap<BlockId, (&'static str, u32)> = instance
            .cache()
            .buffer_headers()
            .into_iter()
            .filter_map(|header| Some((header.block?, (header.class, header.object_id))))
            .collect();
        let objects: HashMap<u32, String> = self
            .observer()?
            .execute("select data_object_id, object_name from dba_objects where data_object_id is not null")?
            .rows
            .iter()
            .filter_map(|row| Some((row[0].to_string().parse().ok()?, row[1].to_string())))
            .collect();
        let mut output = String::new();
        if records.is_empty() {
            writeln!(output, "no redo")?;
        }
        for (number, bytes) in records.iter().enumerate() {
            let record = record::decode(bytes)?;
            let commit = if record.flags & RECORD_COMMIT != 0 {
                ", commit"
            } else {
                ""
            };
            writeln!(
                output,
                "record {}: {} change{}{commit}",
                number + 1,
                record.vectors.len(),
                plural(record.vectors.len()),
            )?;
            for vector in &record.vectors {
                let file = pythia::io::datafile::DATAFILES
                    .iter()
                    .find(|(file, _)| *file == vector.block.file)
                    .map_or("?", |(_, name)| *name);
                let (class, object) = headers
                    .get(&vector.block)
                    .copied()
                    .unwrap_or(("not cached", 0));
                let object = match objects.get(&object) {
                    Some(name) => format!(" of {name}"),
                    None => String::new(),
                };
                let bytes: usize = vector.ranges.iter().map(|(_, bytes)| bytes.len()).sum();
                writeln!(
                    output,
                    "  {file} block {}: {class}{object}{}, {} range{}, {bytes} byte{}",
                    vector.block.block,
                    if vector.init { ", formatted" } else { "" },
                    vector.ranges.len(),
                    plural(vector.ranges.len()),
                    plural(bytes),
                )?;
            }
        }
        Ok(output)
    }

    fn cursors(&mut self, pattern: &str) -> Result<String, Box<dyn Error>> {
        const QUERY: &str = "select sql_id, child_number, executions, parse_calls, loads, \
            invalidations, sql_text from v$sql where sql_text like :1 \
            order by sql_text, child_number";
        let rows = self
            .observer()?
            .execute_with(QUERY, &[Value::text(pattern)])?
            .rows;
        let mut output = String::new();
        writeln!(
            output,
            "sql_id, child_number, executions, parse_calls, loads, invalidations, sql_text"
        )?;
        for row in rows.iter().filter(|row| row[6].to_string() != QUERY) {
            writeln!(output, "{}", values(row))?;
        }
        Ok(output)
    }

    fn restart(&mut self, mode: Option<&str>) -> Result<String, Box<dyn Error>> {
        let abort = match mode {
            None => false,
            Some("abort") => true,
            Some(other) => {
                return Err(format!("restart takes `abort` or nothing, not {other}").into())
            }
        };
        let instance = self.instance.take().expect("the instance is open");
        if abort {
            // Before the sessions end: a session that ends rolls its transaction back.
            instance.abandon();
        }
        self.sessions.clear();
        self.observer = None;
        self.last.clear();
        if !abort {
            instance.shutdown()?;
        }
        drop(instance);
        let instance = Instance::open(&self.dir, SMALL)?;
        let report = instance.open_report().clone();
        self.instance = Some(instance);
        let mut output = String::new();
        if abort {
            writeln!(
                output,
                "crash recovery: {} transaction{} rolled back, {} undo record{} applied",
                report.transactions_rolled_back,
                plural(report.transactions_rolled_back),
                report.undo_records_applied,
                plural(report.undo_records_applied),
            )?;
        } else {
            writeln!(output, "restarted")?;
        }
        Ok(output)
    }
}

impl goldenscript::Runner for Runner {
    type Command = Command;

    fn run(
        &mut self,
        command: &Command,
        context: &goldenscript::Context,
    ) -> Result<String, Box<dyn Error>> {
        let session = context.prefix.clone().unwrap_or_default();
        if !context.tags.is_empty() && !matches!(command, Command::Sql(_)) {
            return Err("only SQL statements take tags".into());
        }
        match command {
            Command::Sql(sql) => {
                if !sql.args.is_empty() {
                    return Err(format!(
                        "{:?} has arguments: write a SQL statement as `> statement`",
                        sql.name
                    )
                    .into());
                }
                self.sql(&session, &sql.name, &context.tags)
            }
            Command::Stats(names) => self.stats(&session, names),
            Command::Redo => self.redo(&session),
            Command::Cursors(pattern) => self.cursors(pattern),
            Command::Restart(mode) => {
                if context.prefix.is_some() {
                    return Err("restart is for the instance, not a session".into());
                }
                self.restart(mode.as_deref())
            }
        }
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.sessions.clear();
        self.observer = None;
        if let Some(instance) = self.instance.take() {
            let _ = instance.shutdown();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Every statistic of session `sid`, by statistic index.
fn statistics(sid: u32) -> Vec<u64> {
    let mut values = vec![0; Statistic::ALL.len()];
    for row in instrumentation::session_statistics(sid) {
        values[row.statistic.index()] = row.value;
    }
    values
}

/// The records in the redo stream from LSN `start` to `end`, each as its bytes. The redo
/// must be on disk (`RedoLog::flush_to`).
fn redo_records(log: &RedoLog, start: u64, end: u64) -> Result<Vec<Vec<u8>>, Box<dyn Error>> {
    let mut records = Vec::new();
    let mut position = start;
    while position < end {
        let (sequence, sequence_start) = log
            .sequence_of(position)
            .ok_or_else(|| format!("no log holds LSN {position} any more"))?;
        let read = log.read_sequence(sequence, sequence_start, position, &mut 0)?;
        let mut next = position;
        for (stream_start, stream) in &read.segments {
            let (found, stream_end) = RedoLog::split_records(stream, *stream_start, sequence_start);
            for (lsn, bytes) in found {
                if lsn >= start && lsn < end {
                    records.push(bytes.to_vec());
                }
            }
            next = next.max(stream_end);
        }
        if next <= position {
            // The rest of this sequence is unused: the stream goes on in the next one.
            let following = log.sequence_of(sequence_start + log.capacity());
            match following {
                Some((_, start)) if start > position => next = start,
                _ => return Err(format!("the redo stream ends at LSN {position}").into()),
            }
        }
        position = next;
    }
    Ok(records)
}

fn print_result(
    output: &mut String,
    result: &StatementResult,
    header: bool,
) -> Result<(), Box<dyn Error>> {
    if let Some(notice) = &result.notice {
        writeln!(output, "NOTICE: {notice}")?;
    }
    if !result.is_query {
        writeln!(output, "{}", result.feedback)?;
        return Ok(());
    }
    if header {
        let names: Vec<&str> = result
            .columns
            .iter()
            .map(|column| column.name.as_str())
            .collect();
        writeln!(output, "{}", names.join(", "))?;
    }
    if result.rows.is_empty() {
        writeln!(output, "no rows selected")?;
    }
    for row in &result.rows {
        writeln!(output, "{}", values(row))?;
    }
    Ok(())
}

/// A row's values as the scripts print them.
fn values(row: &[Value]) -> String {
    row.iter()
        .map(|value| match value {
            Value::Null => "NULL".to_string(),
            value => value.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// One test per script in `tests/golden/`.
macro_rules! golden_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() -> std::io::Result<()> {
                let mut runner = Runner::new(stringify!($name));
                goldenscript::run(&mut runner, script(stringify!($name)))
            }
        )*

        /// Every script has its test.
        #[test]
        fn every_script_is_run() {
            let listed: BTreeSet<String> =
                [$(stringify!($name)),*].iter().map(|name| format!("{name}.txt")).collect();
            let found: BTreeSet<String> = std::fs::read_dir(script_dir())
                .unwrap()
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(listed, found, "golden_tests! must list every script in tests/golden");
        }
    };
}

fn script_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn script(name: &str) -> PathBuf {
    script_dir().join(format!("{name}.txt"))
}

golden_tests!(
    sql,
    library_cache,
    buffer,
    redo,
    optimizer,
    rowid,
    for_update
);
