//! Commits and the redo log: what a commit costs, and that a commit once acknowledged
//! survives (`docs/lab-commit.md`; the crash test in `docs/architecture/redo.md`).
//!
//! ```text
//!   commit   commit.rs   seed 002 (Oracle 19.23): one loop of sequence, insert, select,
//!                        update, delete, committed after each change, once an iteration or
//!                        once at the end; then group commit from 1 to 32 sessions and
//!                        COMMIT WRITE NOWAIT; -p sessions, seconds
//!   crash    crash.rs    issue 6: a worker (this binary, `pythia crash-worker`) commits in
//!                        4 sessions until SIGKILL at a seeded moment; every round DBVERIFYs,
//!                        recovers and checks that every acknowledged commit is there, whole,
//!                        with its indexes; -p seed, kills
//! ```
//!
//! `commit` measures 'log file sync' from the waiting side; `crash` holds the log writer to
//! its promise. `crates/pythia-cli/tests/crash.rs` runs `lab crash --quick` in CI.

use super::Group;

pub mod commit;
pub mod crash;

pub const GROUP: Group = Group {
    name: "redo",
    chapter: "docs/lab-commit.md, docs/architecture/redo.md",
};
