//! `pythia shell`: a SQL*Plus-style shell on an embedded instance.
//!
//! ```text
//!   terminal ── rustyline ──┐                       ┌── Command ── commands::parse ── run_command
//!   stdin (a script) ───────┼── lines ── Splitter ──┼── Run(statement) ── Session::execute ── output
//!   @file, @@file ──────────┘   (script.rs)         └── RunBuffer / Store: the SQL buffer (`/`, LIST)
//! ```
//!
//! One session runs everything, on this thread. Each input (the terminal, stdin, every `@`
//! script) has its own [`Splitter`]; settings (`SET ...`, `WHENEVER ...`), the SQL buffer and
//! the session are the shell's and carry across scripts, as in SQL*Plus.
//!
//! How it ends, and the exit status:
//! - End of input, `EXIT` or `QUIT`: commit if a transaction is open (SQL*Plus's default,
//!   `EXIT ROLLBACK` to roll back), then exit with status 0 (or the status `EXIT` names).
//! - Errors do not stop a script by default: it runs to the end and exits 0.
//! - `--bail`: the first error of any kind (a failing statement, an unknown command, a
//!   script that cannot be opened, an unterminated quote, an over-long statement) rolls back
//!   and exits 1. For SQL and file errors it acts as an initial `WHENEVER SQLERROR EXIT
//!   FAILURE ROLLBACK` and `WHENEVER OSERROR EXIT FAILURE ROLLBACK`, so a script's own
//!   `WHENEVER ... CONTINUE` overrides it for the statements that follow (the usual `drop
//!   table` before `create table`).
//! - A failed final COMMIT or ROLLBACK makes the status at least 1.
//!
//! Bounds: statements of at most [`script::STATEMENT_BYTES_MAX`] bytes, `@` scripts nested at
//! most [`SCRIPT_DEPTH_MAX`] deep. Bad input gives a message, never a panic.

mod commands;
mod output;
mod script;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use commands::{
    Command, Condition, EndTransaction, ErrorAction, ExitAction, ExitStatus, Setting, Show,
};
use script::{Event, Splitter, Statement, StatementKind};

/// How deep `@` scripts may nest (SQL*Plus's limit too).
pub const SCRIPT_DEPTH_MAX: usize = 20;

/// What the command line asked for.
pub struct Options {
    pub dir: PathBuf,
    /// `-p name=value`, applied after `init.ora`.
    pub parameters: Vec<(String, String)>,
    pub bail: bool,
}

/// Runs the shell; returns the process exit status.
pub fn run(options: &Options) -> i32 {
    let overrides: Vec<(&str, &str)> = options
        .parameters
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let instance = match pythia::Instance::open(&options.dir, &overrides) {
        Ok(instance) => instance,
        Err(error) => {
            eprintln!("{error}");
            return 1;
        }
    };
    let session = match instance.connect() {
        Ok(session) => session,
        Err(error) => {
            eprintln!("{error}");
            let _ = instance.shutdown();
            return 1;
        }
    };
    let interactive = std::io::stdin().is_terminal();
    let mut shell = Shell::new(session, std::io::stdout(), interactive, options.bail);
    let flow = if interactive {
        println!(
            "Pythia {} shell on {}. Statements end with ; or /, EXIT leaves.\n",
            env!("CARGO_PKG_VERSION"),
            options.dir.display()
        );
        shell.run_interactive()
    } else {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        shell.run_input(&mut input, None)
    };
    let mut status = shell.finish(flow);
    drop(shell);
    if let Err(error) = instance.shutdown() {
        eprintln!("{error}");
        status = status.max(1);
    }
    status
}

/// How messages name an input.
fn input_name(path: Option<&Path>) -> String {
    path.map_or("standard input".to_string(), |path| {
        path.display().to_string()
    })
}

/// Whether to go on after a line, or leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Exit(ExitAction),
}

/// The SQL*Plus settings the shell honours.
#[derive(Clone, Copy, Debug)]
struct Settings {
    timing: bool,
    echo: bool,
    /// FEEDBACK: 0 is OFF; ON is 1 (SQL*Plus starts at 6, see docs/shell.md).
    feedback: u64,
    /// SQLBLANKLINES: ON here by default (SQL*Plus starts OFF, see docs/shell.md).
    sqlblanklines: bool,
}

/// The shell: one session, its settings, its SQL buffer, and where output goes.
pub struct Shell<W: Write> {
    session: pythia::Session,
    out: W,
    interactive: bool,
    /// `--bail`: any error leaves (see the module comment).
    bail: bool,
    settings: Settings,
    on_sql_error: ErrorAction,
    on_os_error: ErrorAction,
    /// The SQL buffer: the last statement entered, for `/`, RUN and LIST.
    buffer: Option<Statement>,
    /// The ORA number of the last failed statement, for `EXIT SQL.SQLCODE`.
    last_error_code: u32,
    /// The last stored unit a statement created (type and name): SHOW ERRORS' default.
    last_unit: Option<(String, String)>,
    /// VARIABLE's bind variables: name (upper case), type as shown, value.
    variables: Vec<(String, String, pythia::Value)>,
    /// Directories of the `@` scripts running, innermost last (`@@` is relative to it).
    script_dirs: Vec<PathBuf>,
}

const BAIL: ErrorAction = ErrorAction::Exit(ExitAction {
    status: ExitStatus::Failure,
    transaction: EndTransaction::Rollback,
});

impl<W: Write> Shell<W> {
    pub fn new(session: pythia::Session, out: W, interactive: bool, bail: bool) -> Shell<W> {
        let initial = if bail {
            BAIL
        } else {
            ErrorAction::Continue(None)
        };
        Shell {
            session,
            out,
            interactive,
            bail,
            settings: Settings {
                timing: false,
                echo: false,
                feedback: 1,
                sqlblanklines: true,
            },
            on_sql_error: initial,
            on_os_error: initial,
            buffer: None,
            last_error_code: 0,
            last_unit: None,
            variables: Vec::new(),
            script_dirs: Vec::new(),
        }
    }

    /// Writes text; a closed output (a pipe whose reader left) is not the script's error.
    fn print(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
    }

    /// Reads lines from the terminal until EXIT or Ctrl-D.
    fn run_interactive(&mut self) -> Flow {
        let mut editor = match rustyline::DefaultEditor::new() {
            Ok(editor) => editor,
            Err(error) => {
                eprintln!("cannot start the line editor: {error}");
                let stdin = std::io::stdin();
                let mut input = stdin.lock();
                return self.run_input(&mut input, None);
            }
        };
        let mut splitter = Splitter::new();
        loop {
            let _ = self.out.flush();
            match editor.readline(&splitter.prompt()) {
                Ok(line) => {
                    if !line.trim().is_empty() {
                        let _ = editor.add_history_entry(line.as_str());
                    }
                    let event = splitter.feed(&line, self.settings.sqlblanklines);
                    if let Flow::Exit(action) = self.handle(event) {
                        return Flow::Exit(action);
                    }
                }
                Err(rustyline::error::ReadlineError::Interrupted) => splitter.clear(),
                Err(rustyline::error::ReadlineError::Eof) => return Flow::Continue,
                Err(error) => {
                    eprintln!("{error}");
                    return Flow::Continue;
                }
            }
        }
    }

    /// Runs a script: stdin, or the `@` file at `path`.
    fn run_input(&mut self, input: &mut dyn BufRead, path: Option<&Path>) -> Flow {
        let mut splitter = Splitter::new();
        loop {
            let line = match script::read_line_bounded(input, script::LINE_BYTES_MAX) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(error) => {
                    let name = input_name(path);
                    self.print(&format!("ERROR: cannot read {name}: {error}\n"));
                    return self.os_error();
                }
            };
            if line.too_long {
                if self.settings.echo {
                    let echoed = format!(
                        "{}<line of more than {} bytes>\n",
                        splitter.prompt(),
                        script::LINE_BYTES_MAX
                    );
                    self.print(&echoed);
                }
                splitter.skip_line();
                if let Flow::Exit(action) = self.handle(Some(Event::TooLong)) {
                    return Flow::Exit(action);
                }
                continue;
            }
            if self.settings.echo {
                let echoed = format!("{}{}\n", splitter.prompt(), line.text);
                self.print(&echoed);
            }
            let event = splitter.feed(&line.text, self.settings.sqlblanklines);
            if let Flow::Exit(action) = self.handle(event) {
                return Flow::Exit(action);
            }
        }
        match splitter.finish() {
            None => Flow::Continue,
            Some(Ok(statement)) => self.run_statement(statement),
            Some(Err(unterminated)) => {
                let name = input_name(path);
                self.print(&format!("ERROR in {name}: {unterminated}.\n"));
                self.shell_error()
            }
        }
    }

    fn handle(&mut self, event: Option<Event>) -> Flow {
        match event {
            None => Flow::Continue,
            Some(Event::Command(line)) => match commands::parse(&line) {
                Ok(command) => self.run_command(command),
                Err(message) => {
                    self.print(&format!("{message}\n"));
                    self.shell_error()
                }
            },
            Some(Event::Run(statement)) => self.run_statement(statement),
            Some(Event::RunBuffer) => self.run_buffer(false),
            Some(Event::Store(statement)) => {
                self.buffer = Some(statement);
                Flow::Continue
            }
            Some(Event::TooLong) => {
                self.print(&format!(
                    "SP2-0027: Input is too long (> {} bytes) - statement ignored.\n",
                    script::STATEMENT_BYTES_MAX
                ));
                self.shell_error()
            }
        }
    }

    /// An SP2 error (the shell's, not the database's): only `--bail` leaves for it.
    fn shell_error(&mut self) -> Flow {
        if self.bail {
            self.apply(BAIL)
        } else {
            Flow::Continue
        }
    }

    fn sql_error(&mut self) -> Flow {
        self.apply(self.on_sql_error)
    }

    fn os_error(&mut self) -> Flow {
        self.apply(self.on_os_error)
    }

    fn apply(&mut self, action: ErrorAction) -> Flow {
        match action {
            ErrorAction::Exit(action) => Flow::Exit(action),
            ErrorAction::Continue(None) => Flow::Continue,
            ErrorAction::Continue(Some(ending)) => {
                if self.session.in_transaction() {
                    let text = match ending {
                        EndTransaction::Commit => "commit",
                        EndTransaction::Rollback => "rollback",
                    };
                    if let Err(error) = self.session.execute(text) {
                        self.print(&output::error_text(text, &error));
                    }
                }
                Flow::Continue
            }
        }
    }

    fn run_buffer(&mut self, list: bool) -> Flow {
        match self.buffer.clone() {
            Some(statement) => {
                if list {
                    self.print(&output::list_text(&statement.text));
                }
                self.run_statement(statement)
            }
            None => {
                self.print("SP2-0103: Nothing in SQL buffer to run.\n");
                self.shell_error()
            }
        }
    }

    fn run_statement(&mut self, statement: Statement) -> Flow {
        // The statement's binds are the shell's variables, in order of first appearance;
        // CREATE's text (a trigger's :NEW) is the unit's own.
        let names = if commands::created_unit(&statement.text).is_some() {
            Vec::new()
        } else {
            bind_names(&statement.text)
        };
        let mut binds = Vec::with_capacity(names.len());
        for name in &names {
            match self
                .variables
                .iter()
                .find(|(declared, _, _)| declared == name)
            {
                Some((_, _, value)) => binds.push(value.clone()),
                None => {
                    self.print(&format!(
                        "SP2-0552: Bind variable \"{name}\" not declared.\n"
                    ));
                    return self.shell_error();
                }
            }
        }
        let started = Instant::now();
        let result = if binds.is_empty() {
            self.session.execute(&statement.text)
        } else {
            self.session.execute_with(&statement.text, &binds)
        };
        let elapsed = started.elapsed();
        // A block's OUT values go back into the variables.
        if let Ok(result) = &result {
            for (name, value) in names.iter().zip(&result.out_binds) {
                if let Some(variable) = self
                    .variables
                    .iter_mut()
                    .find(|(declared, _, _)| declared == name)
                {
                    variable.2 = value.clone();
                }
            }
        }
        if let Some(unit) = commands::created_unit(&statement.text) {
            self.last_unit = Some(unit);
        }
        // DBMS_OUTPUT's lines come first, as SQL*Plus fetches them right after the call.
        let lines = self.session.take_output();
        if !lines.is_empty() {
            self.print(
                &lines
                    .iter()
                    .map(|line| format!("{line}\n"))
                    .collect::<String>(),
            );
        }
        let failed = match &result {
            Ok(result) => {
                let text = if self.interactive {
                    output::table_result(result, self.settings.feedback)
                } else {
                    output::plain_result(result, self.settings.feedback)
                };
                self.print(&text);
                false
            }
            Err(error) => {
                self.last_error_code = error.code();
                self.print(&output::error_text(&statement.text, error));
                true
            }
        };
        if self.settings.timing {
            self.print(&output::elapsed_text(elapsed));
        }
        self.buffer = Some(statement);
        if failed {
            self.sql_error()
        } else {
            Flow::Continue
        }
    }

    fn run_command(&mut self, command: Command) -> Flow {
        match command {
            Command::Prompt(text) => {
                self.print(&format!("{text}\n"));
                Flow::Continue
            }
            Command::Remark => Flow::Continue,
            Command::Set(setting) => {
                match setting {
                    Setting::Timing(on) => self.settings.timing = on,
                    Setting::Echo(on) => self.settings.echo = on,
                    Setting::Feedback(rows) => self.settings.feedback = rows,
                    Setting::SqlBlankLines(on) => self.settings.sqlblanklines = on,
                    Setting::ServerOutput(size) => self.session.set_server_output(size),
                }
                Flow::Continue
            }
            Command::Show(Show::Parameter(filter)) => self.show_parameter(filter.as_deref()),
            Command::Show(Show::Errors(unit)) => self.show_errors(unit),
            Command::Show(show) => {
                let text = self.show_settings(&show);
                self.print(&text);
                Flow::Continue
            }
            Command::Describe(name) => match self.session.describe(&name) {
                Ok(columns) => {
                    self.print(&output::describe_text(&columns));
                    Flow::Continue
                }
                Err(error) => {
                    self.last_error_code = error.code();
                    self.print(&format!("ERROR:\n{error}\n\n"));
                    self.sql_error()
                }
            },
            Command::Start { path, nested } => self.start(&path, nested),
            Command::Execute(call) => self.run_statement(Statement::new(
                format!("BEGIN {call}; END;"),
                StatementKind::PlSql,
            )),
            Command::Exit(action) => Flow::Exit(action),
            Command::Whenever { condition, action } => {
                match condition {
                    Condition::SqlError => self.on_sql_error = action,
                    Condition::OsError => self.on_os_error = action,
                }
                Flow::Continue
            }
            Command::List => match &self.buffer {
                Some(statement) => {
                    let text = output::list_text(&statement.text);
                    self.print(&text);
                    Flow::Continue
                }
                None => {
                    self.print("SP2-0223: No lines in SQL Buffer.\n");
                    self.shell_error()
                }
            },
            Command::Run => self.run_buffer(true),
            Command::Variable(declared) => self.variable(declared),
            Command::Print(names) => self.print_variables(&names),
        }
    }

    /// VARIABLE: declares (a new type resets the value to NULL), or lists, as SQL*Plus.
    fn variable(&mut self, declared: Option<(String, Option<String>)>) -> Flow {
        match declared {
            Some((name, Some(type_text))) => {
                self.variables.retain(|(existing, _, _)| *existing != name);
                self.variables.push((name, type_text, pythia::Value::Null));
            }
            Some((name, None)) => {
                match self
                    .variables
                    .iter()
                    .find(|(existing, _, _)| *existing == name)
                {
                    Some((name, type_text, _)) => {
                        let text = format!("variable   {name}\ndatatype   {type_text}\n");
                        self.print(&text);
                    }
                    None => {
                        self.print(&format!("SP2-0553: Illegal variable name \"{name}\".\n"));
                        return self.shell_error();
                    }
                }
            }
            None => {
                let text: String = self
                    .variables
                    .iter()
                    .map(|(name, type_text, _)| {
                        format!("\nvariable   {name}\ndatatype   {type_text}\n")
                    })
                    .collect();
                self.print(&text);
            }
        }
        Flow::Continue
    }

    /// PRINT: each variable's value as a one-column query result.
    fn print_variables(&mut self, names: &[String]) -> Flow {
        let chosen: Vec<(String, String, pythia::Value)> = if names.is_empty() {
            self.variables.clone()
        } else {
            let mut chosen = Vec::new();
            for name in names {
                match self
                    .variables
                    .iter()
                    .find(|(existing, _, _)| existing == name)
                {
                    Some(variable) => chosen.push(variable.clone()),
                    None => {
                        self.print(&format!(
                            "SP2-0552: Bind variable \"{name}\" not declared.\n"
                        ));
                        return self.shell_error();
                    }
                }
            }
            chosen
        };
        for (name, type_text, value) in chosen {
            let data_type = if type_text.starts_with("NUMBER") || type_text.starts_with("BINARY") {
                Some(pythia::types::DataType::number())
            } else {
                None
            };
            let result = pythia::StatementResult {
                is_query: true,
                columns: vec![pythia::types::Column { name, data_type }],
                rows: vec![vec![value]],
                rows_affected: 1,
                ..Default::default()
            };
            self.print(&output::plain_result(&result, 0));
        }
        Flow::Continue
    }

    fn show_settings(&self, show: &Show) -> String {
        let on_off = |on: bool| if on { "ON" } else { "OFF" };
        let echo = format!("echo {}\n", on_off(self.settings.echo));
        let timing = format!("timing {}\n", on_off(self.settings.timing));
        let feedback = match self.settings.feedback {
            0 => "feedback OFF\n".to_string(),
            rows => format!("FEEDBACK ON for {rows} or more rows\n"),
        };
        let sqlblanklines = format!("sqlblanklines {}\n", on_off(self.settings.sqlblanklines));
        match show {
            Show::Echo => echo,
            Show::Timing => timing,
            Show::Feedback => feedback,
            Show::SqlBlankLines => sqlblanklines,
            Show::All => format!("{echo}{feedback}{sqlblanklines}{timing}"),
            // SHOW PARAMETER and SHOW ERRORS run queries: see show_parameter, show_errors.
            Show::Parameter(_) | Show::Errors(_) => String::new(),
        }
    }

    /// SHOW ERRORS: the errors of the unit named, or of the last one this shell created,
    /// from user_errors, laid out as SQL*Plus does.
    fn show_errors(&mut self, unit: Option<(String, String)>) -> Flow {
        let Some((kind, name)) = unit.or_else(|| self.last_unit.clone()) else {
            self.print("No errors.\n");
            return Flow::Continue;
        };
        let quote = |text: &str| text.replace('\'', "''");
        let query = format!(
            "select line, position, text from user_errors where name = '{}' and type = '{}' \
             order by line, position, sequence",
            quote(&name),
            quote(&kind)
        );
        match self.session.execute(&query) {
            Ok(result) => {
                self.print(&output::errors_text(&kind, &name, &result.rows));
                Flow::Continue
            }
            Err(error) => {
                self.last_error_code = error.code();
                self.print(&format!("ERROR:\n{error}\n\n"));
                self.sql_error()
            }
        }
    }

    /// SHOW PARAMETER: a query on v$parameter through the session, laid out as SQL*Plus does.
    fn show_parameter(&mut self, filter: Option<&str>) -> Flow {
        let query = output::show_parameter_query(filter);
        match self.session.execute(&query) {
            Ok(result) => {
                self.print(&output::parameters_text(&result.rows));
                Flow::Continue
            }
            Err(error) => {
                self.last_error_code = error.code();
                self.print(&format!("ERROR:\n{error}\n\n"));
                self.sql_error()
            }
        }
    }

    /// `@path` (relative to the working directory) or `@@path` (to the running script's).
    fn start(&mut self, path: &str, nested: bool) -> Flow {
        if self.script_dirs.len() >= SCRIPT_DEPTH_MAX {
            self.print(&format!(
                "SP2-0309: SQL*Plus command procedures may only be nested to a depth of \
                 {SCRIPT_DEPTH_MAX}.\n"
            ));
            return self.shell_error();
        }
        let mut file_path = PathBuf::from(path);
        if nested && file_path.is_relative() {
            if let Some(dir) = self.script_dirs.last() {
                file_path = dir.join(file_path);
            }
        }
        // SQL*Plus adds `.sql` to a name without an extension; a file by the bare name is
        // taken when there is no such `.sql` file.
        if file_path.extension().is_none() {
            let with_extension = file_path.with_extension("sql");
            if with_extension.exists() || !file_path.is_file() {
                file_path = with_extension;
            }
        }
        let file = match std::fs::File::open(&file_path) {
            Ok(file) => file,
            Err(error) => {
                self.print(&format!(
                    "SP2-0310: unable to open file \"{}\": {error}\n",
                    file_path.display()
                ));
                return self.os_error();
            }
        };
        let dir = file_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        self.script_dirs.push(dir);
        let mut input = std::io::BufReader::new(file);
        let flow = self.run_input(&mut input, Some(&file_path));
        self.script_dirs.pop();
        flow
    }

    /// Ends the session's work: commits (or rolls back, as the exit asked) an open
    /// transaction, and returns the exit status.
    fn finish(&mut self, flow: Flow) -> i32 {
        let action = match flow {
            Flow::Continue => ExitAction::CLEAN,
            Flow::Exit(action) => action,
        };
        let mut status = action.status.code(self.last_error_code);
        if self.session.in_transaction() {
            // The exit's commit waits until it is durable whatever commit_wait and
            // commit_logging say: the process may end right after it.
            let text = match action.transaction {
                EndTransaction::Commit => "commit write wait immediate",
                EndTransaction::Rollback => "rollback",
            };
            if let Err(error) = self.session.execute(text) {
                self.print(&output::error_text(text, &error));
                status = status.max(1);
            }
        }
        let _ = self.out.flush();
        status
    }
}

/// The bind names of a statement's text (`:x`, upper case unless quoted), each once, in
/// the order they first appear: the order a block's host binds are given in.
fn bind_names(text: &str) -> Vec<String> {
    let Ok(tokens) = pythia::syntax::lexer::tokenize(text) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for token in tokens {
        if let pythia::syntax::lexer::TokenKind::Bind(name) = token.kind {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}
