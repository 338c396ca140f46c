//! The SQL layer: lexer -> parser -> planner -> executor.
pub mod constraints;
pub(crate) mod describe;
pub mod eval;
pub mod gather;
pub mod hints;
pub mod optimizer;
pub mod postgresql;
pub mod procedures;
pub mod query;
pub mod shared_pool_procedures;
