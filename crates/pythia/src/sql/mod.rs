//! The SQL layer: lexer -> parser -> planner -> executor.
pub mod ast;
pub mod engine;
pub mod lexer;
pub mod parser;
