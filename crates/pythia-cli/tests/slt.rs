//! The SQL logic test suites under `tests/slt/` (repository root), and the files of SQLite's
//! corpus kept in `tests/slt/evidence/`, run through `pythia slt` as a user runs them: every
//! record must pass.

use std::path::PathBuf;
use std::process::Command;

/// The files of `folder` (below the repository root) whose names end in `.extension`, sorted.
fn files_in(folder: &str, extension: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|found| found == extension))
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
    let files = files_in("tests/slt", "slt");
    assert!(files.len() >= 5, "suites found: {files:?}");
    let arguments: Vec<&std::ffi::OsStr> = files.iter().map(|path| path.as_os_str()).collect();
    let (success, stdout) = slt(&arguments);
    let last = stdout.lines().last().unwrap_or_default().to_string();
    assert!(success && last.ends_with(" 0 failed"), "{stdout}");
    let passed: u64 = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed >= 100, "{last}");
}

/// Three files of SQLite's corpus, kept as they are in `tests/slt/evidence/`.
#[test]
fn the_vendored_corpus_files_pass() {
    let files = files_in("tests/slt/evidence", "test");
    assert_eq!(files.len(), 3, "{files:?}");
    let arguments: Vec<&std::ffi::OsStr> = files.iter().map(|path| path.as_os_str()).collect();
    let (success, stdout) = slt(&arguments);
    assert!(success, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("55 passed, 0 failed"),
        "{stdout}"
    );
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
