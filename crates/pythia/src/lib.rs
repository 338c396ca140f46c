//! Pythia: an embeddable SQL engine built on Oracle's instance architecture.
pub mod buffer;
pub mod catalog;
pub mod error;
pub mod instance;
pub mod instrumentation;
pub mod library_cache;
pub mod redo;
pub mod session;
pub mod sql;
pub mod storage;
pub mod transaction;
pub mod types;
pub mod views;
pub use error::{Error, Result};
pub use instance::Instance;
pub use session::{Column, DescribeColumn, Description, Session, StatementResult};
pub use sql::engine::Prepared;
pub use types::Value;
