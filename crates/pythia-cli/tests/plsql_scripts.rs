//! PL/SQL golden scripts: each `tests/plsql/NAME.sql` runs through `pythia shell` on a fresh
//! database (SQL*Plus's rules: a block ends at `/`, `SET SERVEROUTPUT ON` prints DBMS_OUTPUT's
//! lines), and what it prints must be `tests/plsql/NAME.out`. Regenerate the expected output
//! with `UPDATE_GOLDENFILES=1 cargo test -p pythia-cli --test plsql_scripts` and review it as
//! a diff before committing it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn scripts() -> Vec<PathBuf> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plsql");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("tests/plsql")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "sql"))
        .collect();
    scripts.sort();
    scripts
}

fn run(script: &Path) -> String {
    let database = std::env::temp_dir().join(format!(
        "pythia-plsql-{}-{}",
        script.file_stem().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&database);
    let output = Command::new(env!("CARGO_BIN_EXE_pythia"))
        .arg("shell")
        .arg(&database)
        .args(["-p", "db_cache_size=8M"])
        .stdin(std::fs::File::open(script).expect("open the script"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run pythia shell");
    let _ = std::fs::remove_dir_all(&database);
    assert!(output.status.success(), "{}: {output:?}", script.display());
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn plsql_scripts_print_what_they_expect() {
    let update = std::env::var_os("UPDATE_GOLDENFILES").is_some();
    let scripts = scripts();
    assert!(!scripts.is_empty(), "no scripts in tests/plsql");
    let mut failures = Vec::new();
    for script in scripts {
        let printed = run(&script);
        let expected_path = script.with_extension("out");
        if update {
            std::fs::write(&expected_path, &printed).expect("write the expected output");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if printed != expected {
            failures.push(format!(
                "{}: printed\n{printed}\nexpected\n{expected}",
                script.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
