//! `pythia lab`: named, repeatable experiments on an embedded database.
//!
//! Every experiment is a row of [`EXPERIMENTS`]: its name, its chapter (the folder under
//! `lab/` its code is in, and the doc that tells its design and results), a line on what it
//! runs, the `-p name=value` settings it takes, whether `pythia lab` with no name runs it, and
//! its entry point. `pythia lab NAME` runs one; `pythia lab` runs every one marked for it at
//! quick scale, in the table's order (`pgbench` and `plsql` are not: they need PostgreSQL 15 installed,
//! `scripts/install_pg_clients.sh`). The dispatch, the note that an experiment ignores `-p`,
//! `pythia lab --help`'s list and the error for an unknown name all read the table, so an
//! experiment is added by writing its module and its row.
//!
//! ```text
//!   lab/library_cache/   parse, slammer, hotcursor        docs/lab-library-cache.md
//!   lab/buffer_pools/    stuffer, midpoint, scan,         docs/lab-buffer-pools.md
//!                        hitpath, advice
//!   lab/redo/            commit, crash                    docs/lab-commit.md,
//!                                                         docs/architecture/redo.md
//!   lab/engines/         sqlite, pgbench, plsql, oltp     docs/benchmarks.md
//!   lab/common.rs        what they share: a seeded generator, progress bars, deltas of
//!                        statistics, wait events and latches, the lab's error (900)
//! ```
//!
//! Each experiment builds its own instances, in `DIR/lab-NAME`.

pub mod buffer_pools;
pub mod common;
pub mod engines;
pub mod library_cache;
pub mod redo;

use std::path::{Path, PathBuf};

use common::lab_error;

/// A chapter of the lab: a folder under `lab/` and the doc its experiments are told in.
#[derive(Debug)]
pub struct Group {
    pub name: &'static str,
    /// The doc (or docs) with the experiments' design and results.
    pub chapter: &'static str,
}

/// An experiment's entry point: quick scale or full, its own directory (`DIR/lab-NAME`, which
/// it may empty), and the `-p` settings (an experiment without [`Experiment::settings`] gets
/// them too, and ignores them).
pub type Run = fn(quick: bool, dir: &Path, parameters: &[(String, String)]) -> pythia::Result<()>;

/// One row of the lab's registry.
#[derive(Debug)]
pub struct Experiment {
    /// `pythia lab NAME`, and the directory `lab-NAME`.
    pub name: &'static str,
    pub group: &'static Group,
    /// One line: what it runs and the seed or issue it reproduces.
    pub summary: &'static str,
    /// The `-p` settings it takes; none: it ignores them, with a note.
    pub settings: &'static [&'static str],
    /// Whether `pythia lab` with no name runs it.
    pub in_lab_all: bool,
    pub run: Run,
}

impl Experiment {
    /// Its directory under the lab's `dir`.
    pub fn dir(&self, dir: &Path) -> PathBuf {
        dir.join(format!("lab-{}", self.name))
    }
}

/// The lab's experiments, in the order `pythia lab` runs them.
pub static EXPERIMENTS: &[Experiment] = &[
    Experiment {
        name: "commit",
        group: &redo::GROUP,
        summary: "seed 002: what a commit costs a task (three commit frequencies), and group \
                  commit from 1 to 32 sessions",
        settings: redo::commit::SETTINGS,
        in_lab_all: true,
        run: redo::commit::run,
    },
    Experiment {
        name: "oltp",
        group: &engines::GROUP,
        summary: "sessions on a seeded OLTP mix: throughput by kind, statistics, waits, and a \
                  check of what was committed",
        settings: &[],
        in_lab_all: true,
        run: engines::oltp::run,
    },
    Experiment {
        name: "sqlite",
        group: &engines::GROUP,
        summary: "the same operations on Pythia and on SQLite (WAL, synchronous=FULL), and the \
                  disk's fdatasync for scale",
        settings: engines::sqlite::SETTINGS,
        in_lab_all: true,
        run: engines::sqlite::run,
    },
    Experiment {
        name: "parse",
        group: &library_cache::GROUP,
        summary: "what a hard parse, a soft parse and a session cursor cache hit cost",
        settings: &[],
        in_lab_all: true,
        run: library_cache::parse::run,
    },
    Experiment {
        name: "slammer",
        group: &library_cache::GROUP,
        summary: "seed 000's SQLSlammer: literal SQL against binds and CURSOR_SHARING = FORCE \
                  (Table 3, Figure 1)",
        settings: library_cache::slammer::SETTINGS,
        in_lab_all: true,
        run: library_cache::slammer::run,
    },
    Experiment {
        name: "hotcursor",
        group: &library_cache::GROUP,
        summary: "seed 003's hot cursors: 'library cache: mutex X', then \
                  DBMS_SHARED_POOL.MARKHOT's copies",
        settings: &[],
        in_lab_all: true,
        run: library_cache::hotcursor::run,
    },
    Experiment {
        name: "stuffer",
        group: &buffer_pools::GROUP,
        summary: "seed 001's BUFFER_STUFFER in four pool configurations (Tables 4-6), classic \
                  LRU and touch count",
        settings: &[],
        in_lab_all: true,
        run: buffer_pools::stuffer::run,
    },
    Experiment {
        name: "midpoint",
        group: &buffer_pools::GROUP,
        summary: "seed 001's Table 9: midpoint insertion by _db_percent_hot_default",
        settings: &[],
        in_lab_all: true,
        run: buffer_pools::midpoint::run,
    },
    Experiment {
        name: "scan",
        group: &buffer_pools::GROUP,
        summary: "a hot set against full scans of 7.5 times the pool",
        settings: &[],
        in_lab_all: true,
        run: buffer_pools::scan::run,
    },
    Experiment {
        name: "hitpath",
        group: &buffer_pools::GROUP,
        summary: "the buffer cache's hit path: cached gets, one thread against two",
        settings: &[],
        in_lab_all: true,
        run: buffer_pools::hitpath::run,
    },
    Experiment {
        name: "advice",
        group: &buffer_pools::GROUP,
        summary: "v$db_cache_advice's predictions against reruns at other cache sizes",
        settings: &[],
        in_lab_all: true,
        run: buffer_pools::advice::run,
    },
    Experiment {
        name: "crash",
        group: &redo::GROUP,
        summary: "issue 6: acknowledged commits survive kill -9, whole, round after round",
        settings: redo::crash::SETTINGS,
        in_lab_all: true,
        run: redo::crash::run,
    },
    Experiment {
        name: "pgbench",
        group: &engines::GROUP,
        summary: "issue 7: the same pgbench commands against pythia serve and PostgreSQL 15 \
                  (installed: scripts/install_pg_clients.sh)",
        settings: engines::pgbench::SETTINGS,
        in_lab_all: false,
        run: engines::pgbench::run,
    },
    Experiment {
        name: "plsql",
        group: &engines::GROUP,
        summary: "issue 26: PL/SQL loops, static SQL and functions in SQL against PL/pgSQL \
                  on PostgreSQL 15 (installed: scripts/install_pg_clients.sh)",
        settings: engines::plsql::SETTINGS,
        in_lab_all: false,
        run: engines::plsql::run,
    },
];

/// The experiment called `name`, or the lab's error naming them all.
pub fn find(name: &str) -> pythia::Result<&'static Experiment> {
    EXPERIMENTS
        .iter()
        .find(|experiment| experiment.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = EXPERIMENTS
                .iter()
                .map(|experiment| experiment.name)
                .collect();
            lab_error(format!(
                "unknown experiment '{name}'; experiments: {}",
                names.join(", ")
            ))
        })
}

/// `pythia lab [NAME]`: the experiment `name`, or with none every one `pythia lab` runs, at
/// quick scale and without the `-p` settings.
pub fn run_lab(
    name: Option<&str>,
    quick: bool,
    dir: &Path,
    parameters: &[(String, String)],
) -> pythia::Result<()> {
    let Some(name) = name else {
        if !parameters.is_empty() {
            eprintln!("{}", ignored_note());
        }
        let started = std::time::Instant::now();
        for (number, experiment) in lab_all().enumerate() {
            if number > 0 {
                println!();
            }
            (experiment.run)(true, &experiment.dir(dir), &[])?;
        }
        println!(
            "\nall experiments (quick scale) in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        return Ok(());
    };
    let experiment = find(name)?;
    if !parameters.is_empty() && experiment.settings.is_empty() {
        eprintln!("{}", ignored_note());
    }
    (experiment.run)(quick, &experiment.dir(dir), parameters)
}

/// The experiments `pythia lab` with no name runs, in order.
fn lab_all() -> impl Iterator<Item = &'static Experiment> {
    EXPERIMENTS
        .iter()
        .filter(|experiment| experiment.in_lab_all)
}

/// What `-p` given to an experiment without settings (or to `pythia lab`) prints.
fn ignored_note() -> String {
    let names: Vec<&str> = EXPERIMENTS
        .iter()
        .filter(|experiment| !experiment.settings.is_empty())
        .map(|experiment| experiment.name)
        .collect();
    format!(
        "note: only the {} experiments apply -p settings; they are ignored",
        in_words(&names)
    )
}

/// `a`, `a and b`, `a, b and c`.
fn in_words(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [only] => only.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The list `pythia lab --help` ends with: the experiments by chapter (in the order of their
/// first experiment in the table), each with its settings, then what `pythia lab` runs.
pub fn help() -> String {
    let mut groups: Vec<&Group> = Vec::new();
    for experiment in EXPERIMENTS {
        if !groups
            .iter()
            .any(|group| group.name == experiment.group.name)
        {
            groups.push(experiment.group);
        }
    }
    let width = EXPERIMENTS
        .iter()
        .map(|experiment| experiment.name.len())
        .max()
        .unwrap_or(0);
    let mut text = String::from("Experiments, by chapter:\n");
    for group in groups {
        text.push_str(&format!("  {} ({}):\n", group.name, group.chapter));
        for experiment in EXPERIMENTS
            .iter()
            .filter(|experiment| experiment.group.name == group.name)
        {
            text.push_str(&format!(
                "    {:width$}  {}{}\n",
                experiment.name,
                experiment.summary,
                if experiment.in_lab_all {
                    ""
                } else {
                    "; by name only"
                }
            ));
            if !experiment.settings.is_empty() {
                text.push_str(&format!(
                    "    {:width$}  -p {}\n",
                    "",
                    experiment.settings.join(", ")
                ));
            }
        }
    }
    let all: Vec<&str> = lab_all().map(|experiment| experiment.name).collect();
    text.push_str(&format!(
        "\nWith no NAME: {}, at quick scale and without -p settings.",
        in_words(&all)
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_experiment_has_its_own_name() {
        let mut names = std::collections::HashSet::new();
        for experiment in EXPERIMENTS {
            assert!(names.insert(experiment.name), "{} twice", experiment.name);
            // The name is also a directory's (lab-NAME) and a word on the command line.
            assert!(
                !experiment.name.is_empty()
                    && experiment
                        .name
                        .bytes()
                        .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit()),
                "{}",
                experiment.name
            );
            let mut settings = std::collections::HashSet::new();
            assert!(
                experiment.settings.iter().all(|name| settings.insert(name)),
                "{}: a setting twice",
                experiment.name
            );
        }
    }

    #[test]
    fn every_name_dispatches_and_an_unknown_one_lists_them_all() {
        for experiment in EXPERIMENTS {
            let found = find(experiment.name).unwrap();
            assert!(std::ptr::eq(found, experiment));
            assert_eq!(
                found.dir(Path::new("/data")),
                Path::new("/data").join(format!("lab-{}", experiment.name))
            );
        }
        let error = find("nosuch").unwrap_err();
        assert_eq!(error.code(), 900);
        assert_eq!(
            error.message(),
            "unknown experiment 'nosuch'; experiments: commit, oltp, sqlite, parse, slammer, \
             hotcursor, stuffer, midpoint, scan, hitpath, advice, crash, pgbench, plsql"
        );
        let error = run_lab(Some("nosuch"), true, Path::new("/nonexistent"), &[]).unwrap_err();
        assert_eq!(error.code(), 900);
    }

    #[test]
    fn pythia_lab_runs_all_but_pgbench_and_plsql() {
        let all: Vec<&str> = lab_all().map(|experiment| experiment.name).collect();
        assert_eq!(all.len(), EXPERIMENTS.len() - 2);
        assert!(!all.contains(&"pgbench"));
        assert!(!all.contains(&"plsql"));
    }

    #[test]
    fn the_note_and_the_help_come_from_the_table() {
        assert_eq!(
            ignored_note(),
            "note: only the commit, sqlite, slammer, crash, pgbench and plsql experiments apply \
             -p settings; they are ignored"
        );
        let help = help();
        for experiment in EXPERIMENTS {
            assert!(
                help.lines()
                    .any(|line| line.trim_start().starts_with(experiment.name)
                        && line.contains(experiment.summary)),
                "{}",
                experiment.name
            );
            if !experiment.settings.is_empty() {
                assert!(help.contains(&format!("-p {}\n", experiment.settings.join(", "))));
            }
        }
        assert!(help.contains("pgbench"));
        assert!(help.ends_with(
            "With no NAME: commit, oltp, sqlite, parse, slammer, hotcursor, stuffer, midpoint, \
             scan, hitpath, advice and crash, at quick scale and without -p settings."
        ));
        assert_eq!(in_words(&["a"]), "a");
        assert_eq!(in_words(&["a", "b", "c"]), "a, b and c");
    }

    /// An experiment that takes settings refuses one it does not know before it does anything:
    /// the settings the table lists are the ones it checks.
    #[test]
    fn an_unknown_setting_fails_before_any_work() {
        let dir = std::env::temp_dir().join(format!("pythia-lab-settings-{}", std::process::id()));
        for experiment in EXPERIMENTS.iter().filter(|e| !e.settings.is_empty()) {
            let unknown = [("nosuch".to_string(), "1".to_string())];
            let error = (experiment.run)(true, &experiment.dir(&dir), &unknown).unwrap_err();
            assert_eq!(error.code(), 900, "{}", experiment.name);
            assert!(!dir.exists(), "{} made its directory", experiment.name);
        }
    }
}
