//! PL/SQL: the procedural language, above the SQL layer and below the session.
//!
//! # The life of a call
//!
//! ```text
//!   client: BEGIN ... END;                     (or DECLARE ...; SQL*Plus's EXEC p(...))
//!   session: parse call ── the library cache: the block is a cursor like any statement,
//!            found by its text (soft parse) or loaded (the SQL parser sees only "a block")
//!          execute ── pin the child cursor; first execution: a hard parse
//!              plsql::parse_block ── the unit's tree (parser/)
//!              plsql::compile_block ── the Unit: flat code, slots, static SQL normalised
//!                                    (compile/), kept in the child for every session
//!          run ── plsql::run: a frame per call, one instruction after another (runtime/)
//!              expressions ── SQL's evaluator, the frame as the row (no executor)
//!              static SQL ── Host::execute: recursive SQL at depth 1, its text shared by
//!                            every session (SELECT C FROM T WHERE ID = :B1), a cursor of
//!                            its own in the library cache
//!              DBMS_OUTPUT ── the session's buffer (output.rs)
//!              an unhandled exception ── the call's work undone to its start; the client
//!                            gets ORA-nnnnn and the `ORA-06512: at line n` stack
//! ```
//!
//! # What we take from whom
//!
//! - **PostgreSQL's PL/pgSQL** compiles a function once into a tree of statements and
//!   prepares each SQL statement on first use with the variables as parameters; an
//!   expression that reads no table is evaluated without the executor ("simple
//!   expressions", about 16 times faster). We take both: static SQL is prepared through the
//!   library cache with the variables as binds, and a PL/SQL expression is SQL's compiled
//!   expression evaluated directly over the frame's slots.
//! - **MariaDB's `sp_instr`** compiles a stored program into a flat list of instructions with
//!   jumps, handlers pushed and popped (`sp_instr_hpush_jump`, `sp_instr_hpop`). We take the
//!   flat list: loops and IFs are jumps, a block with handlers pushes its table, and EXIT,
//!   GOTO and RETURN leave exactly the scopes they cross. A flat list runs without recursion
//!   in the interpreter, so no unit's shape can overflow its stack.
//! - **Oracle** compiles a unit into M-code kept in the shared pool and shared by every
//!   session; static SQL is recursive SQL with normalised text, so every session shares its
//!   cursors; package state is per session. We take the model: a compiled [`code::Unit`] is
//!   immutable, kept in the library cache (an anonymous block in its cursor's child), and run
//!   by any session with a frame of its own.
//!
//! # Layout
//!
//! `ast.rs` the tree; `parser/` the grammar, over the SQL lexer (`syntax::parser::Embedded`);
//! `compile/` the compiler; `code.rs` the compiled unit; `runtime/` the interpreter;
//! `host.rs` the one interface to the session (`Names` for the compiler, `Host` for the
//! interpreter); `output.rs` DBMS_OUTPUT's buffer;
//! `errors.rs` PL/SQL's errors.

pub mod ast;
pub mod code;
pub mod compile;
mod describe;
pub mod errors;
pub mod host;
pub mod output;
pub mod parser;
pub mod runtime;

pub use code::Unit;
pub use compile::{
    compile_block, compile_call, compile_package, compile_subprogram, PackageSource,
};
pub use describe::describe_program;
pub use host::{Host, Names, SqlOutcome};
pub use parser::{parse_block, parse_program};
pub use runtime::{run, SessionState};
