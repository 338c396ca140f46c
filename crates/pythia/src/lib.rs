//! Pythia: an embeddable SQL engine built on Oracle's instance architecture.
pub mod buffer;
pub mod error;
pub mod instance;
pub mod instrumentation;
pub mod redo;
pub mod sql;
pub mod storage;
pub mod transaction;
pub mod types;
pub use error::{Error, Result};
