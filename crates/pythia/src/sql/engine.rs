//! The session and statement execution (stub while the executor lands).

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::instance::Instance;
use crate::session::{DescribeColumn, StatementResult};
use crate::types::Value;

/// A parsed statement a session may execute many times with different binds.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub(crate) text: String,
}

pub struct Session {
    instance: Arc<Instance>,
}

impl Session {
    pub(crate) fn new(instance: Arc<Instance>) -> Result<Session> {
        Ok(Session { instance })
    }

    pub fn instance(&self) -> &Arc<Instance> {
        &self.instance
    }

    /// The session's id, as `v$session.sid` shows it.
    pub fn sid(&self) -> u32 {
        0
    }

    /// Parses and executes one statement.
    pub fn execute(&mut self, sql: &str) -> Result<StatementResult> {
        self.execute_with(sql, &[])
    }

    /// Executes one statement with bind values (`:1`, `:name`, `$1` in order of position).
    pub fn execute_with(&mut self, sql: &str, binds: &[Value]) -> Result<StatementResult> {
        let _ = (sql, binds);
        Err(Error::new(3001, "unimplemented feature"))
    }

    /// Parses once for repeated execution.
    pub fn prepare(&mut self, sql: &str) -> Result<Prepared> {
        Ok(Prepared {
            text: sql.to_string(),
        })
    }

    pub fn execute_prepared(
        &mut self,
        prepared: &Prepared,
        binds: &[Value],
    ) -> Result<StatementResult> {
        let text = prepared.text.clone();
        self.execute_with(&text, binds)
    }

    /// The columns of a table or view, for `DESCRIBE`. ORA-04043 when there is no such object.
    pub fn describe(&mut self, name: &str) -> Result<Vec<DescribeColumn>> {
        Err(Error::new(4043, format!("object {name} does not exist")))
    }

    /// Whether a transaction is open (changes not yet committed or rolled back).
    pub fn in_transaction(&self) -> bool {
        false
    }
}
