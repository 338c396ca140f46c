//! Pythia beside other engines, and under a mixed load of its own (the figures and how to
//! reproduce them in `docs/benchmarks.md`).
//!
//! ```text
//!   sqlite    sqlite.rs    the same operations on Pythia and on SQLite (WAL,
//!                          synchronous=FULL), the engines taking turns: bulk insert, point
//!                          selects, range scans, update + commit beside the disk's own
//!                          fdatasync, and 1 against 32 committing sessions;
//!                          -p filesystemio_options
//!   pgbench   pgbench.rs   issue 7: the same pgbench commands against `pythia serve` and
//!                          PostgreSQL 15, point by point in turns; not in `pythia lab`, as it
//!                          needs PostgreSQL installed (scripts/install_pg_clients.sh);
//!                          -p scale, seconds, rounds
//!   plsql     plsql.rs     issue 26: PL/SQL on Pythia against PL/pgSQL on PostgreSQL 15,
//!                          the same loops, static SQL and functions in SQL, in turns; not in
//!                          `pythia lab` (it needs PostgreSQL); -p rounds
//!   oltp      oltp.rs      sessions on a seeded mix of selects, aggregates, updates and
//!                          inserts: throughput, statistics, waits, and a check that the table
//!                          holds what was committed
//! ```
//!
//! The comparisons run both engines in one process and one run, in rounds, because this
//! shared machine's disk and CPUs drift by a third from one minute to the next.

use super::Group;

pub mod oltp;
pub mod pgbench;
pub mod plsql;
pub mod sqlite;

pub const GROUP: Group = Group {
    name: "engines",
    chapter: "docs/benchmarks.md",
};
