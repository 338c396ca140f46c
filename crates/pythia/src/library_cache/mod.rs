//! The library cache (issue 4): statements parsed once and shared by every session. What is
//! here so far are the pieces that decide *which* cursor a statement text names, before any
//! cursor exists:
//!
//! - [`sql_id`]: Oracle's `sql_id` and `hash_value` of a text, so that Pythia's ids match
//!   Oracle's for the same text (`docs/architecture/shared-pool.md`).
//! - [`cursor_sharing`]: the lexical pass of `CURSOR_SHARING = FORCE`, which replaces a
//!   statement's literals by system binds `:"SYS_B_0"`, `:"SYS_B_1"`, ... so that texts
//!   differing only in literals hash to one cursor.

pub mod cursor_sharing;
pub mod sql_id;
