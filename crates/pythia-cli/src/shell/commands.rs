//! Parsing SQL*Plus commands: the lines the splitter hands over as [`Event::Command`].
//!
//! Command words are case-insensitive and may be abbreviated where SQL*Plus allows it
//! (`DESC[RIBE]`, `PRO[MPT]`, `SHO[W]`, `TIMI[NG]`, `FEED[BACK]`, ...: the part in brackets may
//! be left off, from the right). All commands but `PROMPT` and `REMARK` take a trailing `;`
//! as SQL*Plus does. Parsing never fails silently: an unknown or malformed command gives the
//! message SQL*Plus would (`SP2-0734: unknown command beginning "..." - rest of line
//! ignored.`), and a SQL*Plus command this shell does not implement says so.
//!
//! [`Event::Command`]: super::script::Event::Command

/// A SQL*Plus command, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `PROMPT [text]`: prints the text (an empty line without it).
    Prompt(String),
    /// `REM[ARK] ...`: a comment line.
    Remark,
    Set(Setting),
    Show(Show),
    /// `DESC[RIBE] name`.
    Describe(String),
    /// `@file`, `@@file`, `STA[RT] file`. `nested` is `@@`: relative to the running script.
    Start {
        path: String,
        nested: bool,
    },
    /// `EXEC[UTE] call`: runs `BEGIN call; END;`.
    Execute(String),
    /// `EXIT` / `QUIT`.
    Exit(ExitAction),
    Whenever {
        condition: Condition,
        action: ErrorAction,
    },
    /// `L[IST]`: shows the SQL buffer.
    List,
    /// `R[UN]`: shows the SQL buffer and runs it.
    Run,
    /// `VAR[IABLE] [name [type]]`: declares a bind variable (`:name` in statements), or
    /// shows one, or all. The type as SQL*Plus shows it (`NUMBER`, `VARCHAR2(30)`).
    Variable(Option<(String, Option<String>)>),
    /// `PRI[NT] [name ...]`: the variables' values, or all of them.
    Print(Vec<String>),
}

/// `SET` options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Timing(bool),
    Echo(bool),
    /// The row count from which a query's feedback line shows; 0 is OFF, ON is 1.
    Feedback(u64),
    SqlBlankLines(bool),
    /// `SET SERVEROUT[PUT] ON [SIZE {n | UNLIMITED}] | OFF`: DBMS_OUTPUT's lines printed
    /// after each call. `Some(None)` is unlimited.
    ServerOutput(Option<Option<usize>>),
}

/// `SHOW` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Show {
    /// `SHO[W] PARAM[ETER[S]] [filter]`.
    Parameter(Option<String>),
    Timing,
    Echo,
    Feedback,
    SqlBlankLines,
    All,
    /// `SHO[W] ERR[ORS] [{PROCEDURE | FUNCTION | PACKAGE | PACKAGE BODY} [schema.]name]`:
    /// the errors of the unit named, or of the last one created. The unit: its type and
    /// name, upper case.
    Errors(Option<(String, String)>),
}

/// What `EXIT` (and `WHENEVER ... EXIT`) returns to the operating system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    Failure,
    Warning,
    Code(i32),
    /// `SQL.SQLCODE`: the ORA number of the last error (0 when there was none).
    SqlCode,
}

impl ExitStatus {
    /// The process exit status, given the last error's ORA number.
    pub fn code(self, last_error_code: u32) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Warning => 2,
            ExitStatus::Code(code) => code,
            ExitStatus::SqlCode => i32::try_from(last_error_code).unwrap_or(i32::MAX),
        }
    }
}

/// How an exit ends an open transaction. SQL*Plus commits unless told otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndTransaction {
    Commit,
    Rollback,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitAction {
    pub status: ExitStatus,
    pub transaction: EndTransaction,
}

impl ExitAction {
    /// A plain `EXIT`: status 0, commit.
    pub const CLEAN: ExitAction = ExitAction {
        status: ExitStatus::Success,
        transaction: EndTransaction::Commit,
    };
}

/// `WHENEVER SQLERROR` (a statement failed) or `WHENEVER OSERROR` (a script could not be read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    SqlError,
    OsError,
}

/// What to do when the condition happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorAction {
    /// Go on; optionally commit or roll back first (`CONTINUE NONE` does neither).
    Continue(Option<EndTransaction>),
    Exit(ExitAction),
}

const EXIT_USAGE: &str =
    "Usage: { EXIT | QUIT } [ SUCCESS | FAILURE | WARNING | n | SQL.SQLCODE ] [ COMMIT | ROLLBACK ]";
const WHENEVER_USAGE: &str = "Usage: WHENEVER { SQLERROR | OSERROR } { CONTINUE [ COMMIT | ROLLBACK | NONE ] | EXIT [ SUCCESS | FAILURE | WARNING | n | SQL.SQLCODE ] [ COMMIT | ROLLBACK ] }";

/// SQL*Plus commands this shell knows but does not implement, with their shortest forms.
const UNSUPPORTED: &[(&str, usize)] = &[
    ("accept", 3),
    ("append", 1),
    ("archive", 7),
    ("attribute", 4),
    ("break", 3),
    ("btitle", 3),
    ("change", 1),
    ("clear", 2),
    ("column", 3),
    ("compute", 4),
    ("connect", 4),
    ("copy", 4),
    ("define", 3),
    ("del", 3),
    ("disconnect", 4),
    ("edit", 2),
    ("get", 3),
    ("help", 4),
    ("host", 2),
    ("input", 1),
    ("password", 4),
    ("pause", 3),
    ("recover", 7),
    ("repfooter", 4),
    ("repheader", 4),
    ("save", 3),
    ("shutdown", 8),
    ("spool", 3),
    ("startup", 7),
    ("store", 5),
    ("timing", 4),
    ("ttitle", 3),
    ("undefine", 5),
];

/// Whether `word` (lower case) is `full` or an abbreviation of it at least `shortest` long.
fn abbreviates(word: &str, full: &str, shortest: usize) -> bool {
    word.len() >= shortest && full.starts_with(word)
}

/// SQL*Plus's message for a line it cannot make sense of: the first ten characters.
pub fn unknown_command(line: &str) -> String {
    let beginning: String = line.chars().take(10).collect();
    format!("SP2-0734: unknown command beginning \"{beginning}...\" - rest of line ignored.")
}

/// Parses one command line; the error is the message to print.
pub fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("@@") {
        return start(rest, true);
    }
    if let Some(rest) = line.strip_prefix('@') {
        return start(rest, false);
    }
    let (word, rest) = split_word(line);
    let keyword = word.to_lowercase();
    let keyword = keyword.as_str();
    // PROMPT and REMARK take the rest of the line as it is, `;` included.
    if abbreviates(keyword, "prompt", 3) {
        return Ok(Command::Prompt(rest.to_string()));
    }
    if abbreviates(keyword, "remark", 3) {
        return Ok(Command::Remark);
    }
    let rest = strip_semicolon(rest);
    let keyword = keyword.strip_suffix(';').unwrap_or(keyword);
    if keyword == "set" {
        return set(rest);
    }
    if abbreviates(keyword, "show", 3) {
        return show(rest);
    }
    if abbreviates(keyword, "describe", 4) {
        if rest.is_empty() {
            return Err("Usage: DESCRIBE [schema.]object".to_string());
        }
        return Ok(Command::Describe(rest.to_string()));
    }
    if abbreviates(keyword, "start", 3) {
        return start(rest, false);
    }
    if abbreviates(keyword, "execute", 4) {
        let call = rest.trim_end_matches(|c: char| c == ';' || c.is_whitespace());
        if call.is_empty() {
            return Err("Usage: EXECUTE statement".to_string());
        }
        return Ok(Command::Execute(call.to_string()));
    }
    if keyword == "exit" || keyword == "quit" {
        return exit_action(rest).map(Command::Exit);
    }
    if keyword == "whenever" {
        return whenever(rest);
    }
    if abbreviates(keyword, "list", 1) && rest.is_empty() {
        return Ok(Command::List);
    }
    if abbreviates(keyword, "run", 1) && rest.is_empty() {
        return Ok(Command::Run);
    }
    if abbreviates(keyword, "variable", 3) {
        return variable(rest);
    }
    if abbreviates(keyword, "print", 3) {
        return Ok(Command::Print(
            rest.split_whitespace()
                .map(|name| name.trim_start_matches(':').to_uppercase())
                .collect(),
        ));
    }
    if let Some((name, _)) = UNSUPPORTED
        .iter()
        .find(|(name, shortest)| abbreviates(keyword, name, *shortest))
    {
        return Err(format!(
            "{} is a SQL*Plus command that pythia shell does not support - rest of line ignored.",
            name.to_uppercase()
        ));
    }
    Err(unknown_command(line))
}

/// The first white-space separated word, and the rest trimmed.
fn split_word(line: &str) -> (&str, &str) {
    match line.find(char::is_whitespace) {
        Some(end) => (&line[..end], line[end..].trim()),
        None => (line, ""),
    }
}

fn strip_semicolon(text: &str) -> &str {
    text.strip_suffix(';').unwrap_or(text).trim_end()
}

fn start(rest: &str, nested: bool) -> Result<Command, String> {
    let rest = strip_semicolon(rest.trim());
    let (path, _arguments) = split_word(rest);
    if path.is_empty() {
        return Err("SP2-1506: START, @ or @@ command has no arguments".to_string());
    }
    Ok(Command::Start {
        path: path.to_string(),
        nested,
    })
}

fn on_off(value: &str, name: &str) -> Result<bool, String> {
    match value.to_lowercase().as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("SP2-0265: {name} must be set ON or OFF")),
    }
}

fn set(rest: &str) -> Result<Command, String> {
    let (option, value) = split_word(rest);
    let option_lower = option.to_lowercase();
    let option_lower = option_lower.as_str();
    if option.is_empty() {
        return Err("SP2-0267: SET requires an option".to_string());
    }
    let setting = if abbreviates(option_lower, "timing", 4) {
        Setting::Timing(on_off(value, "timing")?)
    } else if option_lower == "echo" {
        Setting::Echo(on_off(value, "echo")?)
    } else if abbreviates(option_lower, "feedback", 4) {
        let value_lower = value.to_lowercase();
        Setting::Feedback(match value_lower.as_str() {
            "on" => 1,
            "off" => 0,
            number => number
                .parse::<u64>()
                .ok()
                .filter(|&rows| rows <= 50_000)
                .ok_or(
                    "SP2-0268: feedback option not a valid number (0 through 50000, ON or OFF)"
                        .to_string(),
                )?,
        })
    } else if abbreviates(option_lower, "sqlblanklines", 5) {
        Setting::SqlBlankLines(on_off(value, "sqlblanklines")?)
    } else if abbreviates(option_lower, "serveroutput", 9) {
        server_output(value)?
    } else {
        let beginning: String = option.chars().take(10).collect();
        return Err(format!(
            "SP2-0158: unknown SET option beginning \"{beginning}...\""
        ));
    };
    Ok(Command::Set(setting))
}

/// `ON [SIZE {n | UNLIMITED}] [FORMAT ...]` or `OFF`. SQL*Plus's default size is unlimited;
/// FORMAT (WRAPPED, WORD_WRAPPED, TRUNCATED) is accepted and lines print as written.
fn server_output(value: &str) -> Result<Setting, String> {
    let usage = "SP2-0265: serveroutput must be set to ON or OFF";
    let words: Vec<String> = value.split_whitespace().map(str::to_lowercase).collect();
    match words.first().map(String::as_str) {
        Some("off") if words.len() == 1 => Ok(Setting::ServerOutput(None)),
        Some("on") => {
            let mut size = None;
            let mut rest = words[1..].iter();
            while let Some(word) = rest.next() {
                if abbreviates(word, "size", 3) {
                    let value = rest.next().ok_or(usage)?;
                    size = match value.as_str() {
                        "unlimited" | "unl" => None,
                        number => Some(
                            number
                                .parse::<usize>()
                                .ok()
                                .filter(|size| (2_000..=1_000_000).contains(size))
                                .ok_or(
                                    "SP2-0547: size option 0 out of range (2000 through 1000000)",
                                )?,
                        ),
                    };
                } else if abbreviates(word, "format", 3) {
                    rest.next();
                } else {
                    return Err(usage.to_string());
                }
            }
            Ok(Setting::ServerOutput(Some(size)))
        }
        _ => Err(usage.to_string()),
    }
}

fn show(rest: &str) -> Result<Command, String> {
    let (option, value) = split_word(rest);
    let option_lower = option.to_lowercase();
    let option_lower = option_lower.as_str();
    let show = if abbreviates(option_lower, "parameters", 4) {
        Show::Parameter((!value.is_empty()).then(|| value.to_string()))
    } else if abbreviates(option_lower, "timing", 4) && value.is_empty() {
        Show::Timing
    } else if option_lower == "echo" && value.is_empty() {
        Show::Echo
    } else if abbreviates(option_lower, "feedback", 4) && value.is_empty() {
        Show::Feedback
    } else if abbreviates(option_lower, "sqlblanklines", 5) && value.is_empty() {
        Show::SqlBlankLines
    } else if option_lower == "all" && value.is_empty() {
        Show::All
    } else if abbreviates(option_lower, "errors", 3) {
        Show::Errors(unit_named(value)?)
    } else {
        let beginning: String = rest.chars().take(10).collect();
        return Err(format!(
            "SP2-0158: unknown SHOW option beginning \"{beginning}...\""
        ));
    };
    Ok(Command::Show(show))
}

/// `VARIABLE [name [type]]`: the types SQL*Plus takes, their lengths checked.
fn variable(rest: &str) -> Result<Command, String> {
    let usage = "Usage: VAR[IABLE] [ <variable> [ NUMBER | CHAR | CHAR (n [CHAR|BYTE]) | VARCHAR2 (n [CHAR|BYTE]) | BINARY_FLOAT | BINARY_DOUBLE ] ]";
    let (name, type_text) = split_word(rest);
    if name.is_empty() {
        return Ok(Command::Variable(None));
    }
    let name = name.trim_start_matches(':').to_uppercase();
    if !name
        .chars()
        .all(|character| character.is_alphanumeric() || "_$#".contains(character))
        || name.starts_with(|character: char| character.is_ascii_digit())
    {
        return Err(format!("SP2-0553: Illegal variable name \"{name}\"."));
    }
    if type_text.is_empty() {
        return Ok(Command::Variable(Some((name, None))));
    }
    let compact: String = type_text
        .to_uppercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("");
    let shown = match compact.as_str() {
        "NUMBER" | "BINARY_FLOAT" | "BINARY_DOUBLE" => compact.clone(),
        "CHAR" => "CHAR(1)".to_string(),
        "VARCHAR2" => return Err("Bind variable length cannot exceed 32767.\n".to_string() + usage),
        other => {
            let (kind, length) = other
                .split_once('(')
                .and_then(|(kind, rest)| Some((kind, rest.strip_suffix(')')?)))
                .ok_or_else(|| usage.to_string())?;
            let length = length
                .trim_end_matches("CHAR")
                .trim_end_matches("BYTE")
                .parse::<u32>()
                .map_err(|_| usage.to_string())?;
            if !matches!(kind, "VARCHAR2" | "CHAR" | "NVARCHAR2" | "NCHAR") {
                return Err(usage.to_string());
            }
            if length == 0 || length > 32767 {
                return Err("Bind variable length cannot exceed 32767.".to_string());
            }
            format!("{kind}({length})")
        }
    };
    Ok(Command::Variable(Some((name, Some(shown)))))
}

/// SHOW ERRORS' unit: `{PROCEDURE | FUNCTION | PACKAGE [BODY] | TRIGGER | TYPE [BODY]}
/// [schema.]name`, or nothing.
fn unit_named(text: &str) -> Result<Option<(String, String)>, String> {
    let text = strip_semicolon(text.trim());
    if text.is_empty() {
        return Ok(None);
    }
    let usage = "Usage: SHOW ERRORS [{ FUNCTION | PROCEDURE | PACKAGE | PACKAGE BODY | TRIGGER | VIEW | TYPE | TYPE BODY } [schema.]name]";
    let upper = text.to_uppercase();
    let mut words = upper.split_whitespace().peekable();
    let mut kind = words.next().unwrap_or_default().to_string();
    if matches!(kind.as_str(), "PACKAGE" | "TYPE") && words.peek() == Some(&"BODY") {
        words.next();
        kind.push_str(" BODY");
    }
    if !matches!(
        kind.as_str(),
        "PROCEDURE"
            | "FUNCTION"
            | "PACKAGE"
            | "PACKAGE BODY"
            | "TRIGGER"
            | "VIEW"
            | "TYPE"
            | "TYPE BODY"
    ) {
        return Err(usage.to_string());
    }
    let (Some(name), None) = (words.next(), words.next()) else {
        return Err(usage.to_string());
    };
    let name = name.rsplit('.').next().unwrap_or(name).trim_matches('"');
    Ok(Some((kind, name.to_string())))
}

/// The unit a statement creates, as SQL*Plus notes it for SHOW ERRORS: its type and name
/// (upper case), or None when it creates none.
pub fn created_unit(text: &str) -> Option<(String, String)> {
    let upper = text.to_uppercase();
    let mut words = upper
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .filter(|word| !word.is_empty());
    if words.next()? != "CREATE" {
        return None;
    }
    let mut word = words.next()?;
    if word == "OR" {
        words.next().filter(|next| *next == "REPLACE")?;
        word = words.next()?;
    }
    if matches!(word, "EDITIONABLE" | "NONEDITIONABLE") {
        word = words.next()?;
    }
    let mut kind = word.to_string();
    if !matches!(
        word,
        "PROCEDURE" | "FUNCTION" | "PACKAGE" | "TRIGGER" | "TYPE"
    ) {
        return None;
    }
    let mut name = words.next()?;
    if matches!(word, "PACKAGE" | "TYPE") && name == "BODY" {
        kind.push_str(" BODY");
        name = words.next()?;
    }
    let name = name.rsplit('.').next().unwrap_or(name).trim_matches('"');
    Some((kind, name.to_string()))
}

/// `[SUCCESS | FAILURE | WARNING | n | SQL.SQLCODE] [COMMIT | ROLLBACK]`.
fn exit_action(rest: &str) -> Result<ExitAction, String> {
    let mut action = ExitAction::CLEAN;
    let words: Vec<String> = rest.split_whitespace().map(str::to_lowercase).collect();
    let mut words = words.iter().map(String::as_str).peekable();
    if let Some(&word) = words.peek() {
        let status = match word {
            "success" => Some(ExitStatus::Success),
            "failure" => Some(ExitStatus::Failure),
            "warning" => Some(ExitStatus::Warning),
            "sql.sqlcode" => Some(ExitStatus::SqlCode),
            number => number.parse::<i32>().ok().map(ExitStatus::Code),
        };
        if let Some(status) = status {
            action.status = status;
            words.next();
        }
    }
    match words.next() {
        None => {}
        Some("commit") => action.transaction = EndTransaction::Commit,
        Some("rollback") => action.transaction = EndTransaction::Rollback,
        Some(_) => return Err(EXIT_USAGE.to_string()),
    }
    if words.next().is_some() {
        return Err(EXIT_USAGE.to_string());
    }
    Ok(action)
}

fn whenever(rest: &str) -> Result<Command, String> {
    let (condition, rest) = split_word(rest);
    let condition = match condition.to_lowercase().as_str() {
        "sqlerror" => Condition::SqlError,
        "oserror" => Condition::OsError,
        _ => return Err(WHENEVER_USAGE.to_string()),
    };
    let (verb, rest) = split_word(rest);
    let action = match verb.to_lowercase().as_str() {
        "exit" => ErrorAction::Exit(exit_action(rest).map_err(|_| WHENEVER_USAGE.to_string())?),
        "continue" => ErrorAction::Continue(match rest.to_lowercase().as_str() {
            "" | "none" => None,
            "commit" => Some(EndTransaction::Commit),
            "rollback" => Some(EndTransaction::Rollback),
            _ => return Err(WHENEVER_USAGE.to_string()),
        }),
        _ => return Err(WHENEVER_USAGE.to_string()),
    };
    Ok(Command::Whenever { condition, action })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_keeps_the_rest_of_the_line() {
        assert_eq!(
            parse("prompt hello;  world"),
            Ok(Command::Prompt("hello;  world".into()))
        );
        assert_eq!(parse("PRO"), Ok(Command::Prompt(String::new())));
        assert_eq!(parse("pro Done."), Ok(Command::Prompt("Done.".into())));
        assert_eq!(parse("rem set echo on"), Ok(Command::Remark));
    }

    #[test]
    fn set_options_may_be_abbreviated_and_end_in_a_semicolon() {
        assert_eq!(
            parse("SET TIMING ON"),
            Ok(Command::Set(Setting::Timing(true)))
        );
        assert_eq!(
            parse("set timi off;"),
            Ok(Command::Set(Setting::Timing(false)))
        );
        assert_eq!(parse("set echo on"), Ok(Command::Set(Setting::Echo(true))));
        assert_eq!(
            parse("set feed off"),
            Ok(Command::Set(Setting::Feedback(0)))
        );
        assert_eq!(
            parse("set feedback on"),
            Ok(Command::Set(Setting::Feedback(1)))
        );
        assert_eq!(
            parse("set feedback 6"),
            Ok(Command::Set(Setting::Feedback(6)))
        );
        assert_eq!(
            parse("set sqlbl off"),
            Ok(Command::Set(Setting::SqlBlankLines(false)))
        );
    }

    #[test]
    fn bad_set_commands_say_what_is_wrong() {
        assert_eq!(
            parse("set timing maybe"),
            Err("SP2-0265: timing must be set ON or OFF".into())
        );
        assert_eq!(
            parse("set linesize 200"),
            Err("SP2-0158: unknown SET option beginning \"linesize...\"".into())
        );
        assert!(parse("set feedback lots")
            .unwrap_err()
            .starts_with("SP2-0268"));
        assert!(parse("set").unwrap_err().starts_with("SP2-0267"));
    }

    #[test]
    fn show_parameter_takes_an_optional_filter() {
        assert_eq!(
            parse("show parameter"),
            Ok(Command::Show(Show::Parameter(None)))
        );
        assert_eq!(
            parse("sho param db_cache"),
            Ok(Command::Show(Show::Parameter(Some("db_cache".into()))))
        );
        assert_eq!(
            parse("SHOW PARAMETERS cursor_sharing;"),
            Ok(Command::Show(Show::Parameter(Some(
                "cursor_sharing".into()
            ))))
        );
        assert_eq!(parse("show echo"), Ok(Command::Show(Show::Echo)));
        assert_eq!(parse("show all"), Ok(Command::Show(Show::All)));
        assert_eq!(parse("show errors"), Ok(Command::Show(Show::Errors(None))));
        assert_eq!(
            parse("sho err package body system.Pkg;"),
            Ok(Command::Show(Show::Errors(Some((
                "PACKAGE BODY".into(),
                "PKG".into()
            )))))
        );
        assert!(parse("show errors table t").is_err());
        assert_eq!(
            parse("var n number"),
            Ok(Command::Variable(Some(("N".into(), Some("NUMBER".into())))))
        );
        assert_eq!(
            parse("variable msg varchar2 ( 30 )"),
            Ok(Command::Variable(Some((
                "MSG".into(),
                Some("VARCHAR2(30)".into())
            ))))
        );
        assert_eq!(parse("var"), Ok(Command::Variable(None)));
        assert!(parse("var x date").is_err());
        assert!(parse("var 1x number").is_err());
        assert_eq!(
            parse("print :n msg"),
            Ok(Command::Print(vec!["N".into(), "MSG".into()]))
        );
        assert_eq!(
            created_unit("create or replace package body pkg is"),
            Some(("PACKAGE BODY".into(), "PKG".into()))
        );
        assert_eq!(
            created_unit("CREATE PROCEDURE system.p(a number) IS"),
            Some(("PROCEDURE".into(), "P".into()))
        );
        assert_eq!(created_unit("create table t (a number)"), None);
        assert!(parse("show sga").unwrap_err().starts_with("SP2-0158"));
    }

    #[test]
    fn describe_needs_a_name() {
        assert_eq!(parse("desc t"), Ok(Command::Describe("t".into())));
        assert_eq!(
            parse("DESCRIBE scott.emp;"),
            Ok(Command::Describe("scott.emp".into()))
        );
        assert!(parse("desc").unwrap_err().starts_with("Usage: DESCRIBE"));
    }

    #[test]
    fn scripts_are_started_with_at_signs_or_start() {
        let start = |path: &str, nested| Command::Start {
            path: path.into(),
            nested,
        };
        assert_eq!(parse("@setup"), Ok(start("setup", false)));
        assert_eq!(parse("@ setup.sql;"), Ok(start("setup.sql", false)));
        assert_eq!(parse("@@sub/load.sql"), Ok(start("sub/load.sql", true)));
        assert_eq!(parse("sta x arg1 arg2"), Ok(start("x", false)));
        assert_eq!(
            parse("@"),
            Err("SP2-1506: START, @ or @@ command has no arguments".into())
        );
    }

    #[test]
    fn exit_takes_a_status_and_a_transaction_ending() {
        let exit = |status, transaction| {
            Ok(Command::Exit(ExitAction {
                status,
                transaction,
            }))
        };
        assert_eq!(
            parse("exit"),
            exit(ExitStatus::Success, EndTransaction::Commit)
        );
        assert_eq!(
            parse("QUIT;"),
            exit(ExitStatus::Success, EndTransaction::Commit)
        );
        assert_eq!(
            parse("exit 3"),
            exit(ExitStatus::Code(3), EndTransaction::Commit)
        );
        assert_eq!(
            parse("exit failure rollback"),
            exit(ExitStatus::Failure, EndTransaction::Rollback)
        );
        assert_eq!(
            parse("exit rollback"),
            exit(ExitStatus::Success, EndTransaction::Rollback)
        );
        assert_eq!(
            parse("exit sql.sqlcode"),
            exit(ExitStatus::SqlCode, EndTransaction::Commit)
        );
        assert_eq!(parse("exit later"), Err(EXIT_USAGE.into()));
        assert_eq!(ExitStatus::SqlCode.code(942), 942);
        assert_eq!(ExitStatus::Warning.code(0), 2);
    }

    #[test]
    fn whenever_sets_an_action_for_errors() {
        assert_eq!(
            parse("whenever sqlerror exit failure"),
            Ok(Command::Whenever {
                condition: Condition::SqlError,
                action: ErrorAction::Exit(ExitAction {
                    status: ExitStatus::Failure,
                    transaction: EndTransaction::Commit
                })
            })
        );
        assert_eq!(
            parse("WHENEVER OSERROR CONTINUE NONE"),
            Ok(Command::Whenever {
                condition: Condition::OsError,
                action: ErrorAction::Continue(None)
            })
        );
        assert_eq!(
            parse("whenever sqlerror continue rollback;"),
            Ok(Command::Whenever {
                condition: Condition::SqlError,
                action: ErrorAction::Continue(Some(EndTransaction::Rollback))
            })
        );
        assert_eq!(parse("whenever sqlerror panic"), Err(WHENEVER_USAGE.into()));
    }

    #[test]
    fn execute_wraps_nothing_yet_but_drops_the_semicolon() {
        assert_eq!(
            parse("exec p(1, 'a');"),
            Ok(Command::Execute("p(1, 'a')".into()))
        );
        assert!(parse("exec").is_err());
    }

    #[test]
    fn list_and_run() {
        assert_eq!(parse("l"), Ok(Command::List));
        assert_eq!(parse("LIST"), Ok(Command::List));
        assert_eq!(parse("r"), Ok(Command::Run));
    }

    #[test]
    fn unknown_and_unsupported_commands_are_reported() {
        assert_eq!(
            parse("hello world, how are you"),
            Err(
                "SP2-0734: unknown command beginning \"hello worl...\" - rest of line ignored."
                    .into()
            )
        );
        assert_eq!(
            parse("foo"),
            Err("SP2-0734: unknown command beginning \"foo...\" - rest of line ignored.".into())
        );
        assert_eq!(
            parse("spool out.txt"),
            Err(
                "SPOOL is a SQL*Plus command that pythia shell does not support - rest of line \
                 ignored."
                    .into()
            )
        );
        assert!(parse("col name format a20")
            .unwrap_err()
            .starts_with("COLUMN"));
    }
}
