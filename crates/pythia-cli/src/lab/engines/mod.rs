use super::Group;

pub mod oltp;
pub mod pgbench;
pub mod sqlite;

pub const GROUP: Group = Group {
    name: "engines",
    chapter: "docs/benchmarks.md",
};
