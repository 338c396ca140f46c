//! The SQL text layer: statement text to syntax trees and back, with no knowledge of what the
//! names in it mean. PL/SQL shares it.
//!
//! ```text
//!   text ──lexer──> tokens with exact byte spans (CURSOR_SHARING = FORCE replaces literals
//!                   by their spans; the library cache hashes normalized text)
//!        ──parser─> ast::Statement (recursive descent; bounded depth, Oracle's errors)
//!   ast  ──print──> text the parser reads back to the same tree (the dictionary's DDL)
//! ```
//!
//! Nothing here reads the dictionary or any instance state: name resolution is the SQL
//! layer's (`sql/`), the dictionary's definitions are `catalog/`'s.
pub mod ast;
pub mod lexer;
pub mod parser;
pub mod print;
