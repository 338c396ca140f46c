//! The SQL logic test suites under `tests/slt/` (repository root), run through
//! `pythia slt` as a user runs them: every record must pass.

use std::path::PathBuf;
use std::process::Command;

fn suites() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/slt");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "slt"))
        .collect();
    files.sort();
    files
}

fn slt(arguments: &[&std::ffi::OsStr]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_pythia"))
        .arg("slt")
        .args(arguments)
        .output()
        .expect("run pythia slt");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn every_suite_passes() {
    let files = suites();
    assert!(files.len() >= 5, "suites found: {files:?}");
    let arguments: Vec<&std::ffi::OsStr> = files.iter().map(|path| path.as_os_str()).collect();
    let (success, stdout) = slt(&arguments);
    let last = stdout.lines().last().unwrap_or_default().to_string();
    assert!(success && last.ends_with(" 0 failed"), "{stdout}");
    let passed: u64 = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed >= 100, "{last}");
}

/// A wrong expectation is reported with its location, counted, and makes the exit status
/// non-zero; the records after it still run.
#[test]
fn a_failing_record_is_reported_and_counted() {
    let path = std::env::temp_dir().join(format!("pythia-slt-failing-{}.slt", std::process::id()));
    std::fs::write(
        &path,
        "statement ok\nCREATE TABLE t(a NUMBER)\n\nstatement ok\nINSERT INTO t VALUES(1)\n\n\
         query I nosort\nSELECT a + 1 FROM t\n----\n3\n\n\
         statement error ORA-00942\nSELECT * FROM nosuch\n\n\
         onlyif mysql\nquery I nosort\nSELECT no such syntax\n----\n1\n",
    )
    .unwrap();
    let (success, stdout) = slt(&[path.as_os_str()]);
    let _ = std::fs::remove_file(&path);
    assert!(!success, "{stdout}");
    assert!(stdout.contains("query result mismatch"), "{stdout}");
    assert!(stdout.contains(":7"), "the failing record's line: {stdout}");
    assert!(stdout.contains("3 passed, 1 failed, 1 skipped"), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("3 passed, 1 failed"));
}

/// SQLite's corpus ends a file early for some engines with `onlyif <label>` or
/// `skipif <label>` before `halt`. The runner halted every engine at the first `halt`, so a
/// file opening with `onlyif mssql` / `halt` ran nothing and passed; now a halt stops only
/// the engines its conditions select, and its conditions do not move on to the next record.
#[test]
fn a_halt_stops_only_the_engines_its_conditions_select() {
    let path = std::env::temp_dir().join(format!("pythia-slt-halt-{}.slt", std::process::id()));
    std::fs::write(
        &path,
        "onlyif mssql\nhalt\n\nskipif oracle\nhalt\n\n\
         statement ok\nCREATE TABLE t(a NUMBER)\n\n\
         skipif mysql # a comment\nstatement ok\nINSERT INTO t VALUES(1)\n\n\
         onlyif oracle\nhalt\n\n\
         statement ok\nSELEC nothing\n",
    )
    .unwrap();
    let (success, stdout) = slt(&[path.as_os_str()]);
    let (sqlite_success, sqlite_stdout) = slt(&[path.as_os_str(), "--sqlite".as_ref()]);
    let _ = std::fs::remove_file(&path);
    assert!(success, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("2 passed, 0 failed"),
        "{stdout}"
    );
    // SQLite is not oracle: `skipif oracle` / `halt` stops it before the first record.
    assert!(sqlite_success, "{sqlite_stdout}");
    assert_eq!(sqlite_stdout.lines().last(), Some("0 passed, 0 failed"));
}
