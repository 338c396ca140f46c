//! Running the PostgreSQL programs that drive the server from outside (pgbench, psql,
//! initdb, a JDBC or psycopg script): the lab's `pgbench` experiment and the client tests
//! run each to its end within a time limit and keep what it printed.
//!
//! The child's stdout and stderr are read while it runs, each by a thread of its own: a
//! pipe holds 64 KiB, and a child that prints more than that into a pipe nobody reads
//! blocks on its write and never exits (it then looked like a child past its time limit).

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a program run by [`run_to_end`] ended, with everything it printed.
#[derive(Debug)]
pub enum Ended {
    /// It exited (with any status) within the limit.
    Exited(Output),
    /// It ran past the limit and was killed.
    TimedOut(Output),
}

/// How often [`run_to_end`] looks whether the child has exited.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Runs `command` with no stdin until it exits, or kills it once it has run `limit`.
/// Errors: it could not be started or waited for.
pub fn run_to_end(command: &mut Command, limit: Duration) -> std::io::Result<Ended> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let started = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait()? {
            break (status, false);
        }
        if started.elapsed() > limit {
            break (kill(&mut child)?, true);
        }
        std::thread::sleep(POLL_INTERVAL);
    };
    let output = Output {
        status,
        stdout: collected(stdout),
        stderr: collected(stderr),
    };
    Ok(if timed_out {
        Ended::TimedOut(output)
    } else {
        Ended::Exited(output)
    })
}

fn kill(child: &mut Child) -> std::io::Result<ExitStatus> {
    // It may have exited since the last look: then there is nothing to kill.
    let _ = child.kill();
    child.wait()
}

/// Reads `pipe` to its end on a thread of its own.
fn drain(pipe: Option<impl Read + Send + 'static>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut pipe| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            // What could be read is kept even if the pipe fails part way.
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    })
}

fn collected(reader: Option<JoinHandle<Vec<u8>>>) -> Vec<u8> {
    reader
        .map(|reader| reader.join().unwrap_or_default())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bug this pins: the child's pipes were read only once it had exited, so a child
    /// printing more than a pipe holds (64 KiB) blocked on its write and was killed at the
    /// time limit, as if it had hung.
    #[test]
    fn a_child_printing_more_than_a_pipe_holds_runs_to_its_end() {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg("head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2; exit 3");
        match run_to_end(&mut command, Duration::from_secs(120)).unwrap() {
            Ended::Exited(output) => {
                assert_eq!(output.status.code(), Some(3));
                assert_eq!(output.stdout.len(), 300_000);
                assert_eq!(output.stderr.len(), 200_000);
            }
            Ended::TimedOut(output) => {
                panic!("blocked: {} bytes of stdout read", output.stdout.len())
            }
        }
    }

    #[test]
    fn a_child_past_its_limit_is_killed_and_what_it_printed_is_kept() {
        let mut command = Command::new("sh");
        command.arg("-c").arg("echo started; exec sleep 600");
        // A few seconds, not a few hundred milliseconds: on a loaded machine the shell may
        // not have started, let alone printed, within a tight limit. Still far below 600 s.
        match run_to_end(&mut command, Duration::from_secs(5)).unwrap() {
            Ended::TimedOut(output) => {
                assert!(!output.status.success());
                assert_eq!(String::from_utf8_lossy(&output.stdout), "started\n");
            }
            Ended::Exited(output) => panic!("exited on its own: {output:?}"),
        }
    }

    #[test]
    fn a_program_that_does_not_exist_is_an_error() {
        let mut command = Command::new("/nonexistent/pythia-no-such-program");
        assert!(run_to_end(&mut command, Duration::from_secs(5)).is_err());
    }
}
