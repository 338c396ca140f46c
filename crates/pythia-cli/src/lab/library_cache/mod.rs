//! The library cache and the shared pool under load (`docs/lab-library-cache.md`; the parse
//! figures in `docs/benchmarks.md`).
//!
//! ```text
//!   parse       parse.rs      a hard parse, a soft parse and a session cursor cache hit, on
//!                             the same statement shapes, against the open cursor's execution
//!   slammer     slammer.rs    seed 000, SQLSlammer (Oracle 8.1.6): literal SQL against binds
//!                             and CURSOR_SHARING = FORCE, its Table 3 and Figure 1's sweep
//!                             of the shared pool's size; -p the SQLSlammer parameters
//!   hotcursor   hotcursor.rs  seed 003: 'library cache: mutex X' on a few hot cursors, then
//!                             DBMS_SHARED_POOL.MARKHOT spreading the sessions over copies
//! ```
//!
//! The seeds' question is what sharing a cursor saves and what sharing one too widely
//! costs: `parse` prices each kind of parse call, `slammer` shows the hard parses (and the
//! latches and pool they take) that literal SQL makes and FORCE removes, and `hotcursor` the
//! contention a handle's mutex meets when every session executes the same statement, which
//! hot copies divide.

use super::Group;

pub mod hotcursor;
pub mod parse;
pub mod slammer;

pub const GROUP: Group = Group {
    name: "library cache",
    chapter: "docs/lab-library-cache.md",
};
