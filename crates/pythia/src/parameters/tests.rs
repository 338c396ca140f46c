//! The parameters' tests: the registry, values, scopes and the parameter file.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use proptest::prelude::*;

use crate::error::{Error, Result};
use crate::parameters::definitions::index_of;
use crate::parameters::values::{format_size, parse_size, parse_value};

use super::*;

const MEMORY: SetScope = SetScope::AlterSystem {
    scope: AlterSystemScope::Memory,
};
const SPFILE: SetScope = SetScope::AlterSystem {
    scope: AlterSystemScope::Spfile,
};
const BOTH: SetScope = SetScope::AlterSystem {
    scope: AlterSystemScope::Both,
};

/// A file under the system's temporary directory, removed when dropped.
struct TemporaryFile(std::path::PathBuf);

impl TemporaryFile {
    fn new(contents: &[u8]) -> TemporaryFile {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "pythia-parameters-{}-{}.ora",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::write(&path, contents).unwrap();
        TemporaryFile(path)
    }
}

impl Drop for TemporaryFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn row(parameters: &Parameters, name: &str) -> ParameterRow {
    parameters
        .rows()
        .into_iter()
        .find(|row| row.name == name)
        .unwrap()
}

fn error_of<T: fmt::Debug>(result: Result<T>) -> Error {
    result.expect_err("expected an error")
}

// The registry.

#[test]
fn registry_names_are_unique_lowercase_and_described() {
    for (index, definition) in DEFINITIONS.iter().enumerate() {
        assert_eq!(definition.name, definition.name.to_lowercase());
        assert!(!definition.description.is_empty(), "{}", definition.name);
        assert_eq!(
            index_of(definition.name),
            Some(index),
            "{} is listed twice",
            definition.name
        );
    }
}

#[test]
fn registry_defaults_obey_their_own_kinds() {
    for definition in DEFINITIONS {
        match definition.default {
            DefaultValue::Text(text) => {
                let parsed = parse_value(definition, text);
                assert!(parsed.is_ok(), "{}: {:?}", definition.name, parsed);
            }
            DefaultValue::Unset => {
                assert!(
                    matches!(definition.kind, Kind::String | Kind::Enumeration(_)),
                    "{}",
                    definition.name
                )
            }
            DefaultValue::Derived(derive) => {
                let value = derive(&Parameters::defaults());
                assert!(
                    parse_value(definition, &value.to_string()).is_ok(),
                    "{}",
                    definition.name
                );
            }
        }
        if let Kind::Enumeration(values) = definition.kind {
            assert!(
                values.iter().all(|value| *value == value.to_uppercase()),
                "{}",
                definition.name
            );
        }
    }
}

#[test]
fn defaults_are_the_documented_ones() {
    let parameters = Parameters::defaults();
    assert_eq!(parameters.get_string(names::DB_NAME), "PYTHIA");
    assert_eq!(parameters.get_integer(names::DB_BLOCK_SIZE), 8192);
    assert_eq!(parameters.get_bytes(names::DB_BLOCK_SIZE), 8192);
    assert_eq!(parameters.get_bytes(names::DB_CACHE_SIZE), 64 << 20);
    assert_eq!(parameters.get_bytes(names::SHARED_POOL_SIZE), 64 << 20);
    assert_eq!(parameters.get_bytes(names::LOG_BUFFER), 8 << 20);
    assert_eq!(parameters.get_bytes(names::LOG_FILE_SIZE), 64 << 20);
    assert_eq!(parameters.get_integer(names::LOG_GROUPS), 3);
    assert_eq!(parameters.get_bytes(names::UNDO_TABLESPACE_SIZE), 256 << 20);
    assert_eq!(parameters.get_integer(names::PROCESSES), 100);
    assert_eq!(parameters.get_integer(names::SESSIONS), 172);
    assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 300);
    assert_eq!(parameters.get_integer(names::SESSION_CACHED_CURSORS), 50);
    assert_eq!(parameters.get_string(names::CURSOR_SHARING), "EXACT");
    assert_eq!(parameters.get_string(names::COMMIT_LOGGING), "");
    assert_eq!(parameters.get_string(names::COMMIT_WAIT), "");
    assert_eq!(
        parameters.get_integer(names::DB_FILE_MULTIBLOCK_READ_COUNT),
        128
    );
    assert_eq!(parameters.get_integer(names::DB_WRITER_PROCESSES), 1);
    assert_eq!(parameters.get_string(names::OPTIMIZER_MODE), "ALL_ROWS");
    assert_eq!(parameters.get_string(names::NLS_DATE_FORMAT), "DD-MON-RR");
    assert_eq!(parameters.get_string(names::STATISTICS_LEVEL), "TYPICAL");
    assert!(parameters.get_bool(names::TIMED_STATISTICS));
    assert!(!parameters.get_bool(names::SQL_TRACE));
    assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "");
    assert_eq!(parameters.get_bytes(names::DB_KEEP_CACHE_SIZE), 0);
    assert_eq!(parameters.get_bytes(names::DB_RECYCLE_CACHE_SIZE), 0);
    assert_eq!(parameters.get_string(names::DB_CACHE_ADVICE), "ON");
    assert_eq!(parameters.get_integer(names::KGL_BUCKET_COUNT), 9);
    assert_eq!(parameters.kgl_bucket_count(), 262139);
    assert_eq!(parameters.get_integer(names::KGL_HOT_OBJECT_COPIES), 0);
    assert_eq!(
        parameters.get_integer(names::KGHLU_TRANSIENT_PERCENT) as u64,
        crate::library_cache::pool::TRANSIENT_PERCENT_DEFAULT
    );
    assert_eq!(parameters.get_integer(names::DB_BLOCK_HASH_LATCHES), 0);
    assert!(parameters.get_bool(names::USE_ADAPTIVE_LOG_FILE_SYNC));
    assert_eq!(parameters.get_integer(names::SMALL_TABLE_THRESHOLD), 0);
    assert_eq!(parameters.get_integer(names::SPIN_COUNT), 2000);
    assert!(DEFINITIONS
        .iter()
        .all(|definition| parameters.is_default(definition.name)));
    assert_eq!(parameters, Parameters::default());
}

#[test]
fn kgl_bucket_counts_are_the_largest_primes_below_powers_of_two() {
    let is_prime = |number: u64| {
        number > 1
            && (2..)
                .take_while(|d| d * d <= number)
                .all(|d| !number.is_multiple_of(d))
    };
    for (index, count) in KGL_BUCKET_COUNTS.iter().enumerate() {
        let power = 1u64 << (9 + index);
        let largest = (0..power).rev().find(|&number| is_prime(number)).unwrap();
        assert_eq!(*count, largest, "index {index}");
    }
    let mut parameters = Parameters::defaults();
    parameters
        .set(names::KGL_BUCKET_COUNT, "0", SetScope::InitFile)
        .unwrap();
    assert_eq!(parameters.kgl_bucket_count(), 509);
    assert_eq!(
        error_of(parameters.set(names::KGL_BUCKET_COUNT, "13", SetScope::InitFile)).code(),
        96
    );
}

#[test]
fn lookups_are_case_insensitive_and_accept_quoted_hidden_names() {
    assert_eq!(
        definition("DB_Block_Size").map(|d| d.name),
        Some("db_block_size")
    );
    assert_eq!(
        definition(" \"_SPIN_COUNT\" ").map(|d| d.name),
        Some("_spin_count")
    );
    assert!(definition("work_mem").is_none());
    let parameters = Parameters::defaults();
    assert_eq!(parameters.get_integer("PROCESSES"), 100);
    assert_eq!(parameters.value("nope"), None);
    assert_eq!(parameters.source("nope"), None);
}

// Sessions derived from processes.

#[test]
fn sessions_follow_processes_until_set() {
    let mut parameters = Parameters::defaults();
    parameters
        .set(names::PROCESSES, "200", SetScope::InitFile)
        .unwrap();
    assert_eq!(parameters.get_integer(names::SESSIONS), 322);
    assert_eq!(row(&parameters, names::SESSIONS).value, "322");
    assert_eq!(row(&parameters, names::SESSIONS).isdefault, "TRUE");
    parameters
        .set(names::SESSIONS, "50", SetScope::InitFile)
        .unwrap();
    parameters
        .set(names::PROCESSES, "1000", SetScope::CommandLine)
        .unwrap();
    assert_eq!(parameters.get_integer(names::SESSIONS), 50);
    parameters
        .set(names::PROCESSES, "10000", SetScope::InitFile)
        .unwrap();
    parameters
        .reset(names::SESSIONS, AlterSystemScope::Spfile)
        .unwrap();
    assert_eq!(
        parameters.get_integer(names::SESSIONS),
        50,
        "SCOPE=SPFILE leaves memory alone"
    );
}

// Values: sizes, integers, enumerations, booleans, strings.

#[test]
fn sizes_take_suffixes_in_either_case_or_plain_bytes() {
    assert_eq!(parse_size("67108864"), Some(64 << 20));
    assert_eq!(parse_size("512K"), Some(512 << 10));
    assert_eq!(parse_size("512k"), Some(512 << 10));
    assert_eq!(parse_size("64M"), Some(64 << 20));
    assert_eq!(parse_size("1G"), Some(1 << 30));
    assert_eq!(parse_size("2t"), Some(2 << 40));
    assert_eq!(parse_size("15E"), Some(15 << 60));
    for bad in [
        "",
        "M",
        "-1M",
        "1.5G",
        "1 G",
        "1MB",
        "0x10",
        "+5",
        "16E",
        "99999999999999999999",
        "１M",
    ] {
        assert_eq!(parse_size(bad), None, "{bad:?}");
    }
    let mut parameters = Parameters::defaults();
    parameters
        .set(names::DB_CACHE_SIZE, "128m", MEMORY)
        .unwrap();
    assert_eq!(parameters.get_bytes(names::DB_CACHE_SIZE), 128 << 20);
    parameters
        .set(names::LOG_BUFFER, "262144", SetScope::InitFile)
        .unwrap();
    assert_eq!(parameters.get_bytes(names::LOG_BUFFER), 256 << 10);
}

#[test]
fn sizes_display_with_the_largest_exact_suffix() {
    assert_eq!(format_size(0), "0");
    assert_eq!(format_size(1000), "1000");
    assert_eq!(format_size(1536 << 10), "1536K");
    assert_eq!(format_size(64 << 20), "64M");
    assert_eq!(format_size(2 << 30), "2G");
    assert_eq!(format_size(1 << 40), "1T");
}

#[test]
fn sizes_out_of_range_name_the_range() {
    let mut parameters = Parameters::defaults();
    let error = error_of(parameters.set(names::LOG_BUFFER, "128K", SetScope::InitFile));
    assert_eq!(error.code(), 96);
    assert_eq!(
        error.message(),
        "invalid value 128K for parameter log_buffer, must be between 256K and 1G"
    );
    let error = error_of(parameters.set(names::DB_CACHE_SIZE, "1M", MEMORY));
    assert_eq!(
        error.message(),
        "invalid value 1M for parameter db_cache_size, must be between 4M and 1T"
    );
    assert_eq!(
        error_of(parameters.set(names::LOG_FILE_SIZE, "lots", SetScope::InitFile)).code(),
        96
    );
    assert_eq!(
        parameters,
        Parameters::defaults(),
        "failed sets change nothing"
    );
}

#[test]
fn integers_check_their_range() {
    let mut parameters = Parameters::defaults();
    let error = error_of(parameters.set(names::PROCESSES, "0", SetScope::InitFile));
    assert_eq!(
        error.to_string(),
        "ORA-00096: invalid value 0 for parameter processes, must be between 1 and 10000"
    );
    assert_eq!(
        error_of(parameters.set(names::PROCESSES, "10001", SetScope::InitFile)).code(),
        96
    );
    assert_eq!(
        error_of(parameters.set(names::PROCESSES, "ten", SetScope::InitFile)).code(),
        96
    );
    assert_eq!(
        error_of(parameters.set(names::LOG_GROUPS, "1", SetScope::InitFile)).code(),
        96
    );
    assert_eq!(
        error_of(parameters.set(names::LOG_GROUPS, "17", SetScope::InitFile)).code(),
        96
    );
    parameters
        .set(names::LOG_GROUPS, "16", SetScope::InitFile)
        .unwrap();
    parameters
        .set(names::PROCESSES, " 10000 ", SetScope::CommandLine)
        .unwrap();
    assert_eq!(parameters.get_integer(names::PROCESSES), 10000);
}

#[test]
fn db_block_size_is_a_power_of_two_in_range() {
    let mut parameters = Parameters::defaults();
    for good in ["2048", "4096", "16384", "32768"] {
        parameters
            .set(names::DB_BLOCK_SIZE, good, SetScope::InitFile)
            .unwrap();
    }
    for bad in ["1024", "3000", "65536", "0", "-8192"] {
        let error = error_of(parameters.set(names::DB_BLOCK_SIZE, bad, SetScope::InitFile));
        assert_eq!(
            error.message(),
            format!("invalid value {bad} for parameter db_block_size, must be a power of two between 2048 and 32768")
        );
    }
}

#[test]
fn enumerations_are_case_insensitive_and_stored_uppercase() {
    let mut parameters = Parameters::defaults();
    parameters
        .set(names::CURSOR_SHARING, "force", MEMORY)
        .unwrap();
    assert_eq!(parameters.get_string(names::CURSOR_SHARING), "FORCE");
    parameters
        .set(names::OPTIMIZER_MODE, "First_Rows", SetScope::AlterSession)
        .unwrap();
    assert_eq!(parameters.get_string(names::OPTIMIZER_MODE), "FIRST_ROWS");
    parameters
        .set(names::COMMIT_WAIT, "'nowait'", SetScope::AlterSession)
        .unwrap();
    assert_eq!(parameters.get_string(names::COMMIT_WAIT), "NOWAIT");
    let error = error_of(parameters.set(names::CURSOR_SHARING, "similar", MEMORY));
    assert_eq!(
        error.to_string(),
        "ORA-00096: invalid value similar for parameter cursor_sharing, must be from among EXACT, FORCE"
    );
    assert_eq!(
        error_of(parameters.set(names::CURSOR_SHARING, "EXACT, FORCE", MEMORY)).code(),
        96
    );
    assert_eq!(
        error_of(parameters.set(names::COMMIT_LOGGING, "", MEMORY)).code(),
        96
    );
}

#[test]
fn booleans_are_true_or_false() {
    let mut parameters = Parameters::defaults();
    parameters
        .set(names::SQL_TRACE, "true", SetScope::AlterSession)
        .unwrap();
    assert!(parameters.get_bool(names::SQL_TRACE));
    parameters
        .set(names::TIMED_STATISTICS, "False", MEMORY)
        .unwrap();
    assert!(!parameters.get_bool(names::TIMED_STATISTICS));
    let error = error_of(parameters.set(names::SQL_TRACE, "yes", SetScope::AlterSession));
    assert_eq!(
        error.message(),
        "invalid value yes for parameter sql_trace, must be from among TRUE, FALSE"
    );
}

#[test]
fn strings_are_kept_as_written_without_control_characters() {
    let mut parameters = Parameters::defaults();
    parameters
        .set(
            names::NLS_DATE_FORMAT,
            "'YYYY-MM-DD HH24:MI:SS'",
            SetScope::AlterSession,
        )
        .unwrap();
    assert_eq!(
        parameters.get_string(names::NLS_DATE_FORMAT),
        "YYYY-MM-DD HH24:MI:SS"
    );
    parameters.set(names::DIAGNOSTIC_DEST, "", MEMORY).unwrap();
    assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "");
    let error = error_of(parameters.set(names::DIAGNOSTIC_DEST, "/tmp\nLRM-00101: forged", MEMORY));
    assert_eq!(error.code(), 96);
    assert!(error
        .message()
        .starts_with("invalid value /tmp\\nLRM-00101: forged for parameter diagnostic_dest"));
    assert_eq!(
        error_of(parameters.set(names::DIAGNOSTIC_DEST, "x".repeat(4001).as_str(), MEMORY)).code(),
        96
    );
    assert_eq!(
        error_of(parameters.set(names::DIAGNOSTIC_DEST, "a\"b'c", MEMORY)).code(),
        96
    );
    parameters
        .set(names::DIAGNOSTIC_DEST, "it's", MEMORY)
        .unwrap();
    assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "it's");
}

#[test]
fn rows_show_values_as_oracle_does() {
    let mut parameters = Parameters::defaults();
    let cache = row(&parameters, names::DB_CACHE_SIZE);
    assert_eq!(
        cache,
        ParameterRow {
            num: cache.num,
            name: "db_cache_size",
            type_code: 6,
            value: "67108864".to_string(),
            display_value: "64M".to_string(),
            isdefault: "TRUE",
            isses_modifiable: "FALSE",
            issys_modifiable: "IMMEDIATE",
            ismodified: "FALSE",
            description: "Size of DEFAULT buffer pool for standard block size buffers",
            hidden: false,
        }
    );
    assert_eq!(row(&parameters, names::TIMED_STATISTICS).type_code, 1);
    assert_eq!(row(&parameters, names::TIMED_STATISTICS).value, "TRUE");
    assert_eq!(row(&parameters, names::CURSOR_SHARING).type_code, 2);
    assert_eq!(row(&parameters, names::DB_BLOCK_SIZE).type_code, 3);
    assert_eq!(row(&parameters, names::DB_BLOCK_SIZE).display_value, "8192");
    assert_eq!(
        row(&parameters, names::SESSION_CACHED_CURSORS).issys_modifiable,
        "DEFERRED"
    );
    assert_eq!(
        row(&parameters, names::SESSION_CACHED_CURSORS).isses_modifiable,
        "TRUE"
    );
    assert_eq!(row(&parameters, names::PROCESSES).issys_modifiable, "FALSE");
    let numbers: Vec<u32> = parameters.rows().iter().map(|row| row.num).collect();
    assert_eq!(numbers, (1..=DEFINITIONS.len() as u32).collect::<Vec<_>>());

    parameters.set(names::DB_CACHE_SIZE, "1G", MEMORY).unwrap();
    parameters
        .set(names::OPTIMIZER_MODE, "rule", SetScope::AlterSession)
        .unwrap();
    parameters
        .set(names::OPEN_CURSORS, "1000", SetScope::InitFile)
        .unwrap();
    let cache = row(&parameters, names::DB_CACHE_SIZE);
    assert_eq!(
        (cache.value.as_str(), cache.display_value.as_str()),
        ("1073741824", "1G")
    );
    assert_eq!((cache.isdefault, cache.ismodified), ("FALSE", "SYSTEM_MOD"));
    let mode = row(&parameters, names::OPTIMIZER_MODE);
    assert_eq!(
        (mode.value.as_str(), mode.isdefault, mode.ismodified),
        ("RULE", "FALSE", "MODIFIED")
    );
    let cursors = row(&parameters, names::OPEN_CURSORS);
    assert_eq!((cursors.isdefault, cursors.ismodified), ("FALSE", "FALSE"));
    assert_eq!(
        parameters.source(names::OPEN_CURSORS),
        Some(Source::InitFile)
    );
    assert!(!parameters.is_modified(names::OPEN_CURSORS));
    assert!(parameters.is_modified(names::OPTIMIZER_MODE));
}

#[test]
fn visible_rows_hide_underscore_parameters_until_set() {
    let mut parameters = Parameters::defaults();
    let visible = |parameters: &Parameters| -> Vec<&'static str> {
        parameters
            .visible_rows()
            .iter()
            .map(|row| row.name)
            .collect()
    };
    assert!(visible(&parameters)
        .iter()
        .all(|name| !name.starts_with('_')));
    assert!(visible(&parameters).contains(&"db_block_size"));
    assert!(parameters
        .rows()
        .iter()
        .any(|row| row.name == "_spin_count" && row.hidden));
    parameters.set("\"_spin_count\"", "4000", MEMORY).unwrap();
    parameters
        .set("_kgl_bucket_count", "3", SetScope::InitFile)
        .unwrap();
    let shown = visible(&parameters);
    assert!(shown.contains(&"_spin_count") && shown.contains(&"_kgl_bucket_count"));
    assert!(!shown.contains(&"_db_block_hash_latches"));
}

// Who may change what.

#[test]
fn static_parameters_change_only_in_the_file() {
    let mut parameters = Parameters::defaults();
    for scope in [MEMORY, BOTH] {
        let error = error_of(parameters.set(names::DB_BLOCK_SIZE, "4096", scope));
        assert_eq!(
            error.to_string(),
            "ORA-02095: specified initialization parameter cannot be modified"
        );
        assert_eq!(
            error_of(parameters.reset(names::LOG_GROUPS, AlterSystemScope::Both)).code(),
            2095
        );
    }
    // ORA-02095 comes before the value is looked at, as in Oracle.
    assert_eq!(
        error_of(parameters.set(names::PROCESSES, "junk", MEMORY)).code(),
        2095
    );
    parameters
        .set(names::DB_BLOCK_SIZE, "4096", SPFILE)
        .unwrap();
    assert_eq!(
        parameters.get_integer(names::DB_BLOCK_SIZE),
        8192,
        "memory keeps the running value"
    );
    assert!(parameters
        .to_file_text()
        .contains("\ndb_block_size = 4096\n"));
    assert_eq!(
        error_of(parameters.set(names::DB_BLOCK_SIZE, "4000", SPFILE)).code(),
        96
    );
    for name in [
        names::DB_WRITER_PROCESSES,
        names::LOG_FILE_SIZE,
        names::LOG_GROUPS,
        names::UNDO_TABLESPACE_SIZE,
        names::KGL_BUCKET_COUNT,
        names::KGL_HOT_OBJECT_COPIES,
        names::KGHLU_TRANSIENT_PERCENT,
        names::DB_BLOCK_HASH_LATCHES,
        names::SMALL_TABLE_THRESHOLD,
        names::LOG_BUFFER,
        names::PROCESSES,
        names::SESSIONS,
    ] {
        assert_eq!(
            definition(name).unwrap().issys_modifiable,
            SystemModifiable::False,
            "{name}"
        );
    }
}

#[test]
fn dynamic_parameters_change_in_memory_and_file_by_scope() {
    let mut parameters = Parameters::defaults();
    parameters.set(names::OPEN_CURSORS, "500", MEMORY).unwrap();
    assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 500);
    assert!(!parameters.to_file_text().contains("open_cursors"));
    parameters.set(names::OPEN_CURSORS, "600", SPFILE).unwrap();
    assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 500);
    assert!(parameters.to_file_text().contains("open_cursors = 600"));
    parameters.set(names::SPIN_COUNT, "10", BOTH).unwrap();
    assert_eq!(parameters.get_integer(names::SPIN_COUNT), 10);
    assert!(parameters.to_file_text().contains("_spin_count = 10"));
    parameters
        .set(names::SESSION_CACHED_CURSORS, "20", MEMORY)
        .unwrap();
    assert_eq!(
        parameters.get_integer(names::SESSION_CACHED_CURSORS),
        20,
        "DEFERRED needs no keyword"
    );

    parameters
        .reset(names::SPIN_COUNT, AlterSystemScope::Both)
        .unwrap();
    assert_eq!(parameters.get_integer(names::SPIN_COUNT), 2000);
    assert!(parameters.is_default(names::SPIN_COUNT));
    assert!(!parameters.to_file_text().contains("_spin_count"));
    parameters
        .reset(names::OPEN_CURSORS, AlterSystemScope::Spfile)
        .unwrap();
    assert_eq!(parameters.get_integer(names::OPEN_CURSORS), 500);
    assert!(!parameters.to_file_text().contains("open_cursors"));
}

#[test]
fn alter_session_needs_a_session_modifiable_parameter() {
    let mut parameters = Parameters::defaults();
    let error = error_of(parameters.set(names::OPEN_CURSORS, "10", SetScope::AlterSession));
    assert_eq!(
        error.to_string(),
        "ORA-02096: specified initialization parameter is not modifiable with this option"
    );
    assert_eq!(
        error_of(parameters.set(names::DB_BLOCK_SIZE, "4096", SetScope::AlterSession)).code(),
        2096
    );
    parameters
        .set(names::NLS_DATE_FORMAT, "DD.MM.YYYY", SetScope::AlterSession)
        .unwrap();
    assert_eq!(
        parameters.source(names::NLS_DATE_FORMAT),
        Some(Source::AlterSession)
    );
    // nls_date_format is session-only: ALTER SYSTEM may only write it to the file.
    assert_eq!(
        error_of(parameters.set(names::NLS_DATE_FORMAT, "DD.MM.YYYY", MEMORY)).code(),
        2095
    );
    assert!(
        !parameters.to_file_text().contains("nls_date_format"),
        "ALTER SESSION is never written"
    );
}

#[test]
fn unknown_names_are_reported_per_statement() {
    let mut parameters = Parameters::defaults();
    let error = error_of(parameters.set("work_mem", "5", SetScope::CommandLine));
    assert_eq!(
        error.to_string(),
        "ORA-01078: failure in processing system parameters\nLRM-00101: unknown parameter name 'work_mem'"
    );
    let error = error_of(parameters.set("bogus", "5", MEMORY));
    assert_eq!(error.code(), 2065);
    assert_eq!(
        error.message(),
        "illegal option for ALTER SYSTEM\nLRM-00101: unknown parameter name 'bogus'"
    );
    let error = error_of(parameters.set("bogus", "5", SetScope::AlterSession));
    assert_eq!(error.code(), 2248);
    assert_eq!(
        error.message(),
        "invalid option for ALTER SESSION\nLRM-00101: unknown parameter name 'bogus'"
    );
    assert_eq!(
        error_of(parameters.reset("bogus", AlterSystemScope::Spfile)).code(),
        2065
    );
}

#[test]
fn clones_share_until_one_changes() {
    let system = Parameters::defaults();
    let mut session = system.clone();
    assert!(Arc::ptr_eq(&system.settings, &session.settings));
    session
        .set(names::CURSOR_SHARING, "FORCE", SetScope::AlterSession)
        .unwrap();
    assert!(!Arc::ptr_eq(&system.settings, &session.settings));
    assert_eq!(system.get_string(names::CURSOR_SHARING), "EXACT");
    assert_eq!(session.get_string(names::CURSOR_SHARING), "FORCE");
}

#[test]
fn sessions_inherit_immediate_system_changes_they_did_not_override() {
    let mut system = Parameters::defaults();
    let mut session = system.clone();
    session
        .set(names::OPTIMIZER_MODE, "RULE", SetScope::AlterSession)
        .unwrap();
    system
        .set(names::OPTIMIZER_MODE, "FIRST_ROWS", MEMORY)
        .unwrap();
    system.set(names::STATISTICS_LEVEL, "ALL", MEMORY).unwrap();
    system
        .set(names::SESSION_CACHED_CURSORS, "10", MEMORY)
        .unwrap();
    assert!(!session.inherit_system_change(&system, names::OPTIMIZER_MODE));
    assert_eq!(session.get_string(names::OPTIMIZER_MODE), "RULE");
    assert!(session.inherit_system_change(&system, names::STATISTICS_LEVEL));
    assert_eq!(session.get_string(names::STATISTICS_LEVEL), "ALL");
    assert_eq!(
        row(&session, names::STATISTICS_LEVEL).ismodified,
        "SYSTEM_MOD"
    );
    assert!(
        !session.inherit_system_change(&system, names::STATISTICS_LEVEL),
        "already current"
    );
    assert!(
        !session.inherit_system_change(&system, names::SESSION_CACHED_CURSORS),
        "DEFERRED"
    );
    assert_eq!(session.get_integer(names::SESSION_CACHED_CURSORS), 50);
    assert!(!session.inherit_system_change(&system, "bogus"));
}

// The parameter file.

#[test]
fn file_parsing_skips_comments_and_blank_lines_and_unquotes_values() {
    let text = "\u{feff}# Pythia test instance\n\
                \n\
                *.DB_NAME = 'ORCL'   # the name\n\
                \tdb_cache_size=128M\r\n\
                nls_date_format = \"DD-MON-YYYY # not a comment\"\n\
                \"_spin_count\" = 500\n\
                cursor_sharing = force\n\
                buffer_pool_keep = (buffers:200, lru_latches:1)\n\
                buffer_pool_recycle = 'a', 'b'   # lists stay text\n\
                diagnostic_dest = v1, v2\n\
                processes = 50\n\
                processes = 60\n";
    let parameters = Parameters::parse(text).unwrap();
    assert_eq!(parameters.get_string(names::DB_NAME), "ORCL");
    assert_eq!(parameters.get_bytes(names::DB_CACHE_SIZE), 128 << 20);
    assert_eq!(
        parameters.get_string(names::NLS_DATE_FORMAT),
        "DD-MON-YYYY # not a comment"
    );
    assert_eq!(parameters.get_integer(names::SPIN_COUNT), 500);
    assert_eq!(parameters.get_string(names::CURSOR_SHARING), "FORCE");
    assert_eq!(
        parameters.get_string(names::BUFFER_POOL_KEEP),
        "(buffers:200, lru_latches:1)"
    );
    assert_eq!(
        parameters.get_string(names::BUFFER_POOL_RECYCLE),
        "'a', 'b'"
    );
    assert_eq!(parameters.get_string(names::DIAGNOSTIC_DEST), "v1, v2");
    assert_eq!(
        parameters.get_integer(names::PROCESSES),
        60,
        "the last line wins"
    );
    assert_eq!(parameters.source(names::DB_NAME), Some(Source::InitFile));
    assert!(parameters.is_default(names::LOG_BUFFER));
    assert!(!parameters.is_modified(names::DB_NAME));
}

#[test]
fn file_errors_name_the_line() {
    let cases = [
        (
            "db_name = X\nbogus = 1\n",
            1078,
            "LRM-00101: unknown parameter name 'bogus' (line 2)",
        ),
        (
            "# c\n\nprocesses = 0\n",
            96,
            "must be between 1 and 10000 (line 3)",
        ),
        (
            "cursor_sharing = similar",
            96,
            "must be from among EXACT, FORCE (line 1)",
        ),
        (
            "db_name\n",
            1078,
            "LRM-00116: syntax error at 'end of line' following 'db_name' (line 1)",
        ),
        (
            "\n = 5\n",
            1078,
            "LRM-00116: syntax error at '=' following 'start of line' (line 2)",
        ),
        (
            "db_name =   # nothing\n",
            1078,
            "LRM-00116: syntax error at 'end of line' following '=' (line 1)",
        ),
        (
            "db_name = 'PYTHIA\n",
            1078,
            "following 'unterminated '' (line 1)",
        ),
        (
            "db block size = 8192\n",
            1078,
            "unknown parameter name 'db block size' (line 1)",
        ),
    ];
    for (text, code, ending) in cases {
        let error = error_of(Parameters::parse(text));
        assert_eq!(error.code(), code, "{text:?}: {error}");
        assert!(error.message().ends_with(ending), "{text:?}: {error}");
    }
}

#[test]
fn load_file_reads_and_reports_the_path() {
    let file = TemporaryFile::new(b"db_name = FILEDB\nlog_groups = 4\n");
    let parameters = Parameters::load_file(&file.0).unwrap();
    assert_eq!(parameters.get_string(names::DB_NAME), "FILEDB");
    assert_eq!(parameters.get_integer(names::LOG_GROUPS), 4);

    let file = TemporaryFile::new(b"db_name = FILEDB\nlog_groups = 40\n");
    let error = error_of(Parameters::load_file(&file.0));
    assert_eq!(error.code(), 96);
    assert!(
        error
            .message()
            .ends_with(&format!("(line 2 of {})", file.0.display())),
        "{error}"
    );

    let file = TemporaryFile::new(b"db_name = ok\ndb_name = \xff\n");
    let error = error_of(Parameters::load_file(&file.0));
    assert!(
        error.message().contains("LRM-00123") && error.message().contains("(line 2 of"),
        "{error}"
    );

    let missing = std::env::temp_dir().join("pythia-parameters-missing/init.ora");
    let error = error_of(Parameters::load_file(&missing));
    assert_eq!(error.code(), 1078);
    assert!(
        error
            .message()
            .contains("LRM-00109: could not open parameter file"),
        "{error}"
    );

    let file = TemporaryFile::new("#".repeat(INIT_FILE_BYTES_MAX as usize + 1).as_bytes());
    assert!(error_of(Parameters::load_file(&file.0))
        .message()
        .contains("larger than"));
}

#[test]
fn write_file_keeps_what_the_file_holds_and_reads_back() {
    let file = TemporaryFile::new(b"# old comment\ndb_name = FILEDB\nprocesses = 50\n");
    let mut parameters = Parameters::load_file(&file.0).unwrap();
    parameters.set(names::DB_CACHE_SIZE, "1G", BOTH).unwrap();
    parameters
        .set(names::LOG_FILE_SIZE, "128M", SPFILE)
        .unwrap();
    parameters
        .set(names::NLS_DATE_FORMAT, "YYYY # MM", SPFILE)
        .unwrap();
    parameters
        .set(names::DIAGNOSTIC_DEST, "/var/tmp", MEMORY)
        .unwrap();
    parameters
        .set(names::SPIN_COUNT, "1", SetScope::CommandLine)
        .unwrap();
    parameters.write_file(&file.0).unwrap();
    let written = std::fs::read_to_string(&file.0).unwrap();
    let lines: Vec<&str> = written
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert_eq!(
        lines,
        [
            "db_name = FILEDB",
            "db_cache_size = 1073741824",
            "log_file_size = 134217728",
            "processes = 50",
            "nls_date_format = \"YYYY # MM\"",
        ]
    );
    let reread = Parameters::load_file(&file.0).unwrap();
    assert_eq!(reread.get_bytes(names::LOG_FILE_SIZE), 128 << 20);
    assert_eq!(reread.get_string(names::NLS_DATE_FORMAT), "YYYY # MM");
    assert!(reread.is_default(names::DIAGNOSTIC_DEST) && reread.is_default(names::SPIN_COUNT));

    let directory = std::env::temp_dir().join("pythia-parameters-no-such-directory/init.ora");
    assert_eq!(error_of(parameters.write_file(&directory)).code(), 1115);
}

// Never panic, whatever the input.

fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(
            DEFINITIONS
                .iter()
                .map(|definition| definition.name)
                .collect::<Vec<_>>()
        )
        .prop_map(String::from),
        any::<String>(),
        "[ \"_A-Za-z]{0,24}",
    ]
}

fn any_value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[-+0-9KMGTkmgt]{0,12}",
        "[ '\"#,()a-zA-Z0-9_]{0,16}",
        proptest::sample::select(vec![
            "TRUE", "false", "64M", "8192", "EXACT", "''", "\"\"", "'", ""
        ])
        .prop_map(String::from),
    ]
}

fn any_scope() -> impl Strategy<Value = SetScope> {
    proptest::sample::select(vec![
        SetScope::InitFile,
        SetScope::CommandLine,
        MEMORY,
        SPFILE,
        BOTH,
        SetScope::AlterSession,
    ])
}

proptest! {
    #[test]
    fn set_never_panics_and_fails_without_changes(
        name in any_name(),
        text in any_value_text(),
        scope in any_scope(),
    ) {
        let mut parameters = Parameters::defaults();
        let before = parameters.clone();
        match parameters.set(&name, &text, scope) {
            Ok(()) => {
                // Whatever was accepted reads back from the file it is written to.
                let reread = Parameters::parse(&parameters.to_file_text()).unwrap();
                let expected = match scope {
                    SetScope::InitFile | SPFILE | BOTH => {
                        let mut file = before.clone();
                        file.set(&name, &text, SetScope::InitFile).unwrap();
                        file.get_string(&name)
                    }
                    _ => before.get_string(&name),
                };
                prop_assert_eq!(reread.get_string(&name), expected);
                let _ = parameters.rows();
            }
            Err(error) => {
                let codes = [96, 1078, 2065, 2095, 2096, 2248];
                prop_assert!(codes.contains(&error.code()), "{}", error);
                prop_assert_eq!(parameters, before);
            }
        }
    }

    #[test]
    fn parse_never_panics(
        lines in proptest::collection::vec(
            (any_name(), "[ \t]{0,2}=?[ \t]{0,2}", any_value_text()),
            0..8,
        ),
        noise in any::<String>(),
    ) {
        let mut text: String = lines
            .iter()
            .map(|(name, equals, value)| format!("{name}{equals}{value}\n"))
            .collect();
        let _ = Parameters::parse(&text);
        text.push_str(&noise);
        let _ = Parameters::parse(&text);
    }

    #[test]
    fn what_parse_reads_writes_back(
        lines in proptest::collection::vec((any_name(), any_value_text()), 0..24),
    ) {
        // Keep the lines that parse, so that the file is rich in accepted values.
        let mut text = String::new();
        for (name, value) in lines {
            let line = format!("{name} = {value}\n");
            if Parameters::parse(&format!("{text}{line}")).is_ok() {
                text.push_str(&line);
            }
        }
        let parameters = Parameters::parse(&text).unwrap();
        let reread = Parameters::parse(&parameters.to_file_text()).unwrap();
        prop_assert_eq!(reread, parameters);
    }

    #[test]
    fn load_file_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let file = TemporaryFile::new(&bytes);
        let _ = Parameters::load_file(&file.0);
    }
}
