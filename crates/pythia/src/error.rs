//! Errors are Oracle's: every error carries its ORA- number, its message, the SQLSTATE a
//! PostgreSQL client expects, and, for errors found in a statement's text, the byte offset
//! where it was found.
//!
//! An error never takes down more than the call that raised it: the session, the instance
//! and committed data survive. Internal invariant violations are ORA-00600, never a panic
//! that reaches the caller.

use std::fmt;

/// The result of every fallible engine call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An Oracle error: `ORA-<code>: <message>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    code: u32,
    message: String,
    /// Byte offset into the statement text, for errors found while parsing or binding.
    position: Option<usize>,
}

impl Error {
    /// An error with an explicit code and message (the message without the `ORA-nnnnn: `).
    pub fn new(code: u32, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            position: None,
        }
    }

    /// Attaches the byte offset in the statement text where the error was found.
    pub fn at(mut self, position: usize) -> Error {
        self.position = Some(position);
        self
    }

    pub fn code(&self) -> u32 {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn position(&self) -> Option<usize> {
        self.position
    }

    /// The SQLSTATE a PostgreSQL client expects for this error.
    pub fn sqlstate(&self) -> &'static str {
        sqlstate_for(self.code)
    }

    /// A background process that panicked, as Oracle reports one that died: ORA-00470 for
    /// LGWR, ORA-00471 for a database writer, with the process and the panic's message.
    pub fn background_terminated(
        code: u32,
        process: &str,
        panic: &(dyn std::any::Any + Send),
    ) -> Error {
        let why = panic
            .downcast_ref::<&str>()
            .map(|text| text.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let kind = if code == 470 { "LGWR" } else { "DBWR" };
        Error::new(
            code,
            format!("{kind} process terminated with error: {process}: {why}"),
        )
    }

    /// ORA-00600: an internal invariant did not hold. The arguments say which.
    pub fn internal(what: impl fmt::Display) -> Error {
        Error::new(600, format!("internal error code, arguments: [{what}]"))
    }

    /// ORA-00900..ORA-00999 family: syntax errors found by the parser.
    pub fn syntax(code: u32, message: impl Into<String>, position: usize) -> Error {
        Error::new(code, message).at(position)
    }

    /// ORA-00942: table or view does not exist.
    pub fn table_not_found() -> Error {
        Error::new(942, "table or view does not exist")
    }

    /// ORA-00904: "NAME": invalid identifier.
    pub fn invalid_identifier(name: &str) -> Error {
        Error::new(
            904,
            format!("\"{}\": invalid identifier", name.to_uppercase()),
        )
    }

    /// ORA-00955: name is already used by an existing object.
    pub fn name_in_use() -> Error {
        Error::new(955, "name is already used by an existing object")
    }

    /// ORA-00001: unique constraint (OWNER.NAME) violated.
    pub fn unique_violated(constraint: &str) -> Error {
        Error::new(1, format!("unique constraint ({constraint}) violated"))
    }

    /// ORA-01400: cannot insert NULL into ("OWNER"."TABLE"."COLUMN").
    pub fn null_into_not_null(owner: &str, table: &str, column: &str) -> Error {
        Error::new(
            1400,
            format!("cannot insert NULL into (\"{owner}\".\"{table}\".\"{column}\")"),
        )
    }

    /// ORA-01017: invalid username/password; logon denied. The same error for an unknown
    /// user and a wrong password, so that no one can probe for names.
    pub fn invalid_logon() -> Error {
        Error::new(1017, "invalid username/password; logon denied")
    }

    /// ORA-01031: insufficient privileges.
    pub fn insufficient_privileges() -> Error {
        Error::new(1031, "insufficient privileges")
    }

    /// ORA-01918: user 'NAME' does not exist.
    pub fn user_not_found(name: &str) -> Error {
        Error::new(1918, format!("user '{name}' does not exist"))
    }

    /// ORA-01722: invalid number.
    pub fn invalid_number() -> Error {
        Error::new(1722, "invalid number")
    }

    /// ORA-01438: value larger than specified precision allowed for this column.
    pub fn precision_exceeded() -> Error {
        Error::new(
            1438,
            "value larger than specified precision allowed for this column",
        )
    }

    /// ORA-12899: value too large for column "OWNER"."TABLE"."COLUMN" (actual: n, maximum: m).
    pub fn value_too_large(column: &str, actual: usize, maximum: usize) -> Error {
        Error::new(
            12899,
            format!("value too large for column {column} (actual: {actual}, maximum: {maximum})"),
        )
    }

    /// ORA-01578: ORACLE data block corrupted (file # f, block # b).
    pub fn block_corrupted(file: u32, block: u32) -> Error {
        Error::new(
            1578,
            format!("ORACLE data block corrupted (file # {file}, block # {block})"),
        )
    }

    /// ORA-00060: deadlock detected while waiting for resource.
    pub fn deadlock() -> Error {
        Error::new(60, "deadlock detected while waiting for resource")
    }

    /// ORA-01555: snapshot too old.
    pub fn snapshot_too_old() -> Error {
        Error::new(
            1555,
            "snapshot too old: rollback segment number 1 with name \"_SYSSMU1$\" too small",
        )
    }

    /// ORA-01102: cannot mount database in EXCLUSIVE mode.
    pub fn database_locked(dir: &str) -> Error {
        Error::new(
            1102,
            format!("cannot mount database in EXCLUSIVE mode: {dir} is open in another instance"),
        )
    }

    /// ORA-01110 style wrapper for an I/O error on a named file.
    pub fn io(path: &std::path::Path, error: std::io::Error) -> Error {
        Error::new(
            1115,
            format!(
                "IO error reading or writing file {}: {error}",
                path.display()
            ),
        )
    }

    /// ORA-01089: immediate shutdown or close in progress: a wait of a background process's
    /// work (a log write, a checkpoint, archiving) ended by the instance closing.
    pub fn shutdown_in_progress() -> Error {
        Error::new(1089, "immediate shutdown or close in progress")
    }

    /// ORA-01013: user requested cancel of current operation.
    pub fn cancelled() -> Error {
        Error::new(1013, "user requested cancel of current operation")
    }

    /// ORA-03113: end-of-file on communication channel: the statement's client went away
    /// while it ran.
    pub fn client_gone() -> Error {
        Error::new(3113, "end-of-file on communication channel")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ORA-{:05}: {}", self.code, self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(position) => write!(f, "{self} (at byte {position})"),
            None => write!(f, "{self}"),
        }
    }
}

impl std::error::Error for Error {}

/// SQLSTATE by ORA- number, following what PostgreSQL reports for the same condition.
fn sqlstate_for(code: u32) -> &'static str {
    match code {
        1 => "23505",                                 // unique_violation
        1400 | 1407 => "23502",                       // not_null_violation
        2290 => "23514",                              // check_violation
        2291 | 2292 => "23503",                       // foreign_key_violation
        942 => "42P01",                               // undefined_table
        904 => "42703",                               // undefined_column
        955 => "42P07",                               // duplicate_table
        900..=999 | 1756 | 1789 => "42601",           // syntax_error
        1722 | 1858 | 1861 => "22P02",                // invalid_text_representation
        1438 | 12899 | 1426 | 1455 => "22003",        // numeric_value_out_of_range
        1476 => "22012",                              // division_by_zero
        60 => "40P01",                                // deadlock_detected
        8177 => "40001",                              // serialization_failure
        1555 => "72000",                              // snapshot_too_old
        1013 | 40 => "57014",                         // query_canceled (ORA-00040: a time limit)
        3001 => "0A000",                              // feature_not_supported
        1008 => "08P01",                              // protocol_violation: binds missing
        3113 => "08006",                              // connection_failure
        1578 => "XX001",                              // data_corrupted
        600 => "XX000",                               // internal_error
        1017 => "28P01",                              // invalid_password
        28000 | 1045 => "28000",                      // invalid_authorization_specification
        1031 | 1749 | 1927 | 1952 | 28014 => "42501", // insufficient_privilege
        1917..=1919 => "42704",                       // undefined_object
        1920 => "42710",                              // duplicate_object
        1940 => "55006",                              // object_in_use
        1102 => "55006",                              // object_in_use
        2065 | 96 | 2096 | 2095 | 2097 => "22023",    // invalid_parameter_value
        4031 => "53200",                              // out_of_memory
        18 | 20 => "53300",                           // too_many_connections
        1115 | 1110 => "58030",                       // io_error
        _ => "XX000",
    }
}

/// The message Oracle gives an error raised by its exception's name (`RAISE NO_DATA_FOUND`)
/// or by a number EXCEPTION_INIT gave a user exception.
pub fn standard_message(code: u32) -> String {
    match code {
        1 => "unique constraint (.) violated",
        51 => "timeout occurred while waiting for a resource",
        1001 => "invalid cursor",
        1012 => "not logged on",
        1017 => "invalid username/password; logon denied",
        1403 => "no data found",
        1410 => "invalid ROWID",
        1422 => "exact fetch returns more than requested number of rows",
        1476 => "divisor is equal to zero",
        1722 => "invalid number",
        6500 => "PL/SQL: storage error",
        6501 => "PL/SQL: program error",
        6502 => "PL/SQL: numeric or value error",
        6503 => "PL/SQL: Function returned without value",
        6504 => "PL/SQL: Return types of Result Set variables or query do not match",
        6511 => "PL/SQL: cursor already open",
        6530 => "Reference to uninitialized composite",
        6531 => "Reference to uninitialized collection",
        6532 => "Subscript outside of limit",
        6533 => "Subscript beyond count",
        6592 => "CASE not found while executing CASE statement",
        30625 => "method dispatch on NULL SELF argument is disallowed",
        _ => "",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_pads_the_number_to_five_digits() {
        assert_eq!(
            Error::table_not_found().to_string(),
            "ORA-00942: table or view does not exist"
        );
        assert_eq!(
            Error::unique_violated("SYSTEM.T_PK").to_string(),
            "ORA-00001: unique constraint (SYSTEM.T_PK) violated"
        );
    }

    #[test]
    fn sqlstate_follows_postgresql() {
        assert_eq!(Error::unique_violated("X").sqlstate(), "23505");
        assert_eq!(Error::table_not_found().sqlstate(), "42P01");
        assert_eq!(Error::deadlock().sqlstate(), "40P01");
        assert_eq!(Error::invalid_logon().sqlstate(), "28P01");
        assert_eq!(
            Error::invalid_logon().to_string(),
            "ORA-01017: invalid username/password; logon denied"
        );
        assert_eq!(
            Error::new(28000, "the account is locked").sqlstate(),
            "28000"
        );
        assert_eq!(
            Error::new(1045, "user X lacks CREATE SESSION").sqlstate(),
            "28000"
        );
        assert_eq!(Error::insufficient_privileges().sqlstate(), "42501");
        assert_eq!(Error::user_not_found("X").sqlstate(), "42704");
        assert_eq!(
            Error::syntax(900, "invalid SQL statement", 3).sqlstate(),
            "42601"
        );
        assert_eq!(
            Error::new(3001, "unimplemented feature").sqlstate(),
            "0A000"
        );
        assert_eq!(
            Error::new(1008, "not all variables bound").sqlstate(),
            "08P01"
        );
        assert_eq!(
            Error::new(1455, "converting column overflows integer datatype").sqlstate(),
            "22003"
        );
    }
}
