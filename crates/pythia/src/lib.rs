//! Pythia: an embeddable SQL engine built on Oracle's instance architecture.
//!
//! ```no_run
//! let instance = pythia::Instance::open("./pythia-data", &[("db_cache_size", "64M")])?;
//! let mut session = instance.connect()?;
//! session.execute("create table t (id number primary key, name varchar2(20))")?;
//! session.execute_with("insert into t values (:1, :2)", &[1.into(), "one".into()])?;
//! session.execute("commit")?;
//! # Ok::<(), pythia::Error>(())
//! ```
//!
//! A statement's walk through the layers (`docs/architecture.md` draws them; each imports
//! only those below it), naming the function at each step:
//!
//! 1. `Session::execute_with` (`session/mod.rs`) opens the user call ('user calls', DB time)
//!    in `executing_call` and hands the text to `parse_and_run`.
//! 2. `Session::parse` (`session/parse.rs`): under CURSOR_SHARING=FORCE,
//!    `library_cache::cursor_sharing::force_literals_into` replaces the literals by system
//!    binds; the session cursor cache, else `LibraryCache::get`, finds the parent cursor (a
//!    soft parse); else `syntax::parser::parse` builds the tree and a new parent is loaded.
//! 3. `Session::run_cursor` pins the child cursor (`LibraryCache::pin`); its first
//!    execution is the hard parse: `Session::run` counts it and the plan is built and
//!    published in the child (`Session::publish`, `session/select.rs`).
//! 4. A query: `Session::select` plans it with `sql::query::plan_query` (the optimizer's
//!    costs in `sql::query::costing`) and runs it with `sql::query::execute` through a
//!    `Reader` (its snapshot for read consistency); views come from `views::resolve`.
//! 5. Rows are read through `access::heap` and `access::btree`, whose blocks come from
//!    `BufferCache::read` (`buffer/cache.rs`: a hit, or a victim from `evict_one` and a
//!    read from `io::datafile`), each get under its 'cache buffers chains' latch.
//! 6. A change: `Session::insert` / `update` / `delete` (`session/dml.rs`) inside
//!    `Session::dml` (statement-level atomicity, `session/transaction.rs`) write the row and
//!    its index entries with `catalog::rows::insert_row` / `update_row`, whose undo and redo
//!    go through `transaction::Transaction` and a mini-transaction (`redo::mtr`).
//! 7. COMMIT: `Session::commit` calls `TransactionManager::commit_with`, which waits in
//!    `RedoLog::sync_commit` ('log file sync') until LGWR (`RedoLog::run_lgwr`) has written
//!    its redo; DBWR writes the dirty buffers later, after their redo.
pub mod access;
pub mod buffer;
pub mod catalog;
pub mod error;
pub mod instance;
pub mod instrumentation;
pub mod io;
pub mod library_cache;
pub mod parameters;
pub mod plsql;
pub mod redo;
pub mod scram;
pub mod session;
pub mod sql;
pub mod syntax;
pub mod transaction;
pub mod types;
pub mod views;
pub use error::{Error, Result};
pub use instance::Instance;
pub use session::{Column, DescribeColumn, Description, Prepared, Session, StatementResult};
pub use types::Value;
