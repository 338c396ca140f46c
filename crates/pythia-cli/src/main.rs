//! The `pythia` command: the SQL*Plus-style shell and the lab (named, repeatable experiments
//! on an embedded database). This file is the command tree and its dispatch; each command's
//! work is in its module.
//!
//! ```text
//!   pythia shell [DIR] [-p name=value]... [--bail]    shell/: statements and SQL*Plus commands
//!   pythia lab [NAME] [--quick] [--dir DIR] [-p ..]   lab/: the experiments, their registry in
//!                                                    lab/mod.rs
//!   pythia slt FILE... [--sqlite] [--compare]         slt.rs: sqllogictest files
//!   pythia dbv DIR                                    dbv.rs: DBVERIFY of a closed database
//!   pythia serve [DIR] [--listen ADDR] [--trust] [--password P] [-p ..]
//!                                                    serve.rs: the PostgreSQL-protocol server
//!   pythia crash-worker DIR     (hidden)              lab/redo/crash.rs: the child `lab crash`
//!                                                    kills
//! ```

mod dbv;
mod lab;
mod serve;
mod shell;
mod slt;

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "pythia",
    about = "An embeddable SQL engine on Oracle's instance architecture, instrumented throughout"
)]
struct Command {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// A SQL*Plus-style shell: interactive on a terminal, a script runner on piped input.
    Shell {
        /// The database directory (created if absent).
        #[arg(default_value = "pythia-data")]
        dir: PathBuf,
        /// An initialization parameter for this run, applied after DIR/init.ora (repeatable).
        #[arg(short = 'p', value_name = "NAME=VALUE", value_parser = parse_parameter)]
        parameters: Vec<(String, String)>,
        /// Stop at the first error, roll back and exit with status 1.
        #[arg(long)]
        bail: bool,
    },
    /// Serves the database over PostgreSQL's wire protocol (psql and other PostgreSQL
    /// clients connect unchanged); stops on Ctrl-C. Clients prove their user's password with
    /// SCRAM-SHA-256, or with --trust give none (docs/architecture/server.md).
    Serve {
        /// The database directory (created if absent).
        #[arg(default_value = "pythia-data")]
        dir: PathBuf,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:5432")]
        listen: std::net::SocketAddr,
        /// Logs clients on without a password: allowed on a loopback address only.
        #[arg(long)]
        trust: bool,
        /// SYSTEM's password when the database is created now (default: the environment
        /// variable PYTHIA_PASSWORD; neither: SYSTEM has no password).
        #[arg(long, value_name = "PASSWORD")]
        password: Option<String>,
        /// Also serve Prometheus metrics (GET /metrics) on this loopback address, e.g.
        /// 127.0.0.1:9187.
        #[arg(long, value_name = "ADDR")]
        metrics: Option<std::net::SocketAddr>,
        /// The server's certificate chain (PEM) for clients that ask for TLS; with
        /// --tls-key. Needs a pythia built with `--features tls`.
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The private key (PEM) of --tls-cert's certificate.
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// An initialization parameter for this run, applied after DIR/init.ora (repeatable).
        #[arg(short = 'p', value_name = "NAME=VALUE", value_parser = parse_parameter)]
        parameters: Vec<(String, String)>,
    },
    /// Runs one of the lab's experiments, or with no name all but those run by name only, at
    /// a quick scale.
    Lab {
        /// The experiment to run (the list below).
        name: Option<String>,
        /// A short run.
        #[arg(long)]
        quick: bool,
        /// The data directory (created if absent).
        #[arg(long, default_value = "pythia-data")]
        dir: PathBuf,
        /// A setting of the experiment (repeatable): those the list below gives it; the
        /// experiments with none ignore them.
        #[arg(short = 'p', value_name = "NAME=VALUE", value_parser = parse_parameter)]
        parameters: Vec<(String, String)>,
    },
    /// Runs sqllogictest files, each against a fresh embedded database; ends with one line
    /// `N passed, N failed` and exits non-zero if anything failed.
    Slt {
        /// The files to run.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Run them on SQLite (bundled, in memory) instead.
        #[arg(long)]
        sqlite: bool,
        /// Also run each file on SQLite and print both times.
        #[arg(long)]
        compare: bool,
    },
    /// DBVERIFY: checks every block of a closed database's datafiles and online redo logs;
    /// exits non-zero if a block fails that no open would repair.
    Dbv {
        /// The database directory.
        dir: PathBuf,
    },
    /// The worker `pythia lab crash` starts and kills: commits in 4 sessions until killed.
    #[command(hide = true)]
    CrashWorker { dir: PathBuf },
}

/// `name=value`, as `-p` takes it.
fn parse_parameter(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(format!("expected NAME=VALUE, got '{text}'")),
    }
}

/// The command tree, `lab --help` ending with the lab's experiments (from its registry).
fn cli() -> clap::Command {
    Command::command().mut_subcommand("lab", |subcommand| subcommand.after_help(lab::help()))
}

fn main() {
    let command =
        Command::from_arg_matches(&cli().get_matches()).unwrap_or_else(|error| error.exit());
    match command.action {
        Action::Shell {
            dir,
            parameters,
            bail,
        } => {
            let status = shell::run(&shell::Options {
                dir,
                parameters,
                bail,
            });
            std::process::exit(status);
        }
        Action::Lab {
            name,
            quick,
            dir,
            parameters,
        } => {
            if let Err(error) = lab::run_lab(name.as_deref(), quick, &dir, &parameters) {
                eprintln!("{error}");
                std::process::exit(1);
            }
        }
        Action::Slt {
            files,
            sqlite,
            compare,
        } => {
            let engine = if sqlite {
                slt::Engine::Sqlite
            } else {
                slt::Engine::Pythia
            };
            std::process::exit(slt::run(&files, engine, compare));
        }
        Action::Serve {
            dir,
            listen,
            trust,
            password,
            metrics,
            tls_cert,
            tls_key,
            parameters,
        } => {
            let options = serve::ServeOptions {
                listen,
                trust,
                password,
                metrics,
                tls: tls_cert
                    .zip(tls_key)
                    .map(|(certificate_chain, private_key)| pythia_server::TlsFiles {
                        certificate_chain,
                        private_key,
                    }),
            };
            std::process::exit(serve::run(&dir, &options, &parameters))
        }
        Action::Dbv { dir } => std::process::exit(dbv::run(&dir)),
        Action::CrashWorker { dir } => {
            if let Err(error) = lab::redo::crash::worker(&dir) {
                eprintln!("crash worker: {error}");
                std::process::exit(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_name_equals_value() {
        assert_eq!(
            parse_parameter("db_cache_size=64M"),
            Ok(("db_cache_size".into(), "64M".into()))
        );
        assert_eq!(
            parse_parameter("db_name = a=b"),
            Ok(("db_name".into(), "a=b".into()))
        );
        assert!(parse_parameter("db_cache_size").is_err());
        assert!(parse_parameter("=1").is_err());
    }

    #[test]
    fn the_command_line_parses() {
        let command = Command::try_parse_from([
            "pythia", "shell", "/tmp/x", "-p", "a=1", "-p", "b=2", "--bail",
        ])
        .unwrap();
        match command.action {
            Action::Shell {
                dir,
                parameters,
                bail,
            } => {
                assert_eq!(dir, PathBuf::from("/tmp/x"));
                assert_eq!(parameters.len(), 2);
                assert!(bail);
            }
            _ => panic!("not parsed as shell"),
        }
        let command = Command::try_parse_from(["pythia", "shell"]).unwrap();
        assert!(
            matches!(command.action, Action::Shell { dir, .. } if dir.as_os_str() == "pythia-data")
        );
        let command =
            Command::try_parse_from(["pythia", "lab", "commit", "--quick", "-p", "a=1"]).unwrap();
        assert!(matches!(command.action, Action::Lab { parameters, .. } if parameters.len() == 1));
        let command =
            Command::try_parse_from(["pythia", "slt", "a.slt", "b.slt", "--compare"]).unwrap();
        assert!(
            matches!(command.action, Action::Slt { files, sqlite: false, compare: true } if files.len() == 2)
        );
        assert!(Command::try_parse_from(["pythia", "slt"]).is_err());
        let command = Command::try_parse_from(["pythia", "dbv", "/tmp/x"]).unwrap();
        assert!(matches!(command.action, Action::Dbv { dir } if dir.as_os_str() == "/tmp/x"));
        let command = Command::try_parse_from(["pythia", "crash-worker", "/tmp/x"]).unwrap();
        assert!(matches!(command.action, Action::CrashWorker { .. }));
    }

    #[test]
    fn lab_help_lists_the_registry() {
        cli().debug_assert();
        let mut command = cli();
        let help = command
            .find_subcommand_mut("lab")
            .unwrap()
            .render_help()
            .to_string();
        for experiment in lab::EXPERIMENTS {
            assert!(help.contains(experiment.summary), "{}", experiment.name);
        }
        // Unknown names reach the lab, whose error (900) lists the experiments.
        let command = Command::try_parse_from(["pythia", "lab", "nosuch"]).unwrap();
        assert!(matches!(command.action, Action::Lab { name: Some(name), .. } if name == "nosuch"));
    }
}
