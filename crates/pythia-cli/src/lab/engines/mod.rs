pub mod oltp;
pub mod pgbench;
pub mod sqlite;
