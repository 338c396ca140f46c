//! The session's transaction: begun at its first change, ended by COMMIT (with the
//! commit's WRITE options decided against COMMIT_WRITE / COMMIT_LOGGING), ROLLBACK (to a
//! savepoint or whole) or DDL; and `dml`, which runs one statement with statement-level
//! atomicity (on error the transaction goes back to the statement's start).

use super::Session;
use crate::error::{Error, Result};
use crate::instrumentation::{self, interrupt, Statistic};
use crate::transaction::commit::{CommitDecision, CommitOptions};
use crate::transaction::Transaction;

impl Session {
    /// The open transaction, begun if there is none.
    pub(super) fn begin(&mut self) -> Result<&mut Transaction> {
        if self.transaction.is_none() {
            self.transaction = Some(self.instance.transactions().begin()?);
        }
        Ok(self.transaction.as_mut().expect("transaction"))
    }

    /// Runs a DML statement in the session's transaction; on error its changes are undone
    /// and the transaction goes on (statement-level atomicity).
    pub(super) fn dml<T>(
        &mut self,
        work: impl FnOnce(&Session, &mut Transaction) -> Result<T>,
    ) -> Result<T> {
        let mut transaction = match self.transaction.take() {
            Some(transaction) => transaction,
            None => self.instance.transactions().begin()?,
        };
        let start = transaction.last_uba;
        // The statement's work stops at a cancel or its time limit; the rollback below
        // always runs to its end (`rollback_to` is shielded).
        let result = interrupt::interruptible(self.settings.statement_timeout, || {
            work(self, &mut transaction)
        });
        if result.is_err() {
            let undone = self
                .instance
                .transactions()
                .rollback_to(&mut transaction, start);
            self.transaction = Some(transaction);
            undone?;
            return result;
        }
        self.transaction = Some(transaction);
        result
    }

    /// Ends the open transaction with a commit. A COMMIT statement passes the options decided
    /// for it, counted when there is something to commit (`transaction::commit`); an implicit
    /// commit passes none and is WAIT IMMEDIATE.
    pub(super) fn commit(&mut self, decision: Option<&CommitDecision>) -> Result<()> {
        match self.transaction.take() {
            Some(transaction) if transaction.last_uba == 0 => {
                self.instance.transactions().commit_unchanged(transaction)
            }
            Some(transaction) => {
                if let Some(decision) = decision {
                    decision.count();
                }
                let options =
                    decision.map_or(CommitOptions::WAIT_IMMEDIATE, |decision| decision.performed);
                self.instance
                    .transactions()
                    .commit_with(transaction, options)
                    .map(|_| ())
            }
            // Oracle counts every COMMIT call, even with nothing to commit.
            None => {
                instrumentation::add(Statistic::UserCommits, 1);
                Ok(())
            }
        }
    }

    pub(super) fn rollback(&mut self, to_savepoint: Option<&str>) -> Result<()> {
        let transactions = self.instance.transactions().clone();
        match to_savepoint {
            None => {
                if let Some(transaction) = self.transaction.take() {
                    transactions.rollback(transaction)?;
                }
                Ok(())
            }
            Some(name) => {
                let Some(transaction) = self.transaction.as_mut() else {
                    return Err(Error::new(
                        1086,
                        format!(
                            "savepoint '{name}' never established in this session or is invalid"
                        ),
                    ));
                };
                let Some(position) = transaction
                    .savepoints
                    .iter()
                    .position(|(saved, _)| saved == name)
                else {
                    return Err(Error::new(
                        1086,
                        format!(
                            "savepoint '{name}' never established in this session or is invalid"
                        ),
                    ));
                };
                let uba = transaction.savepoints[position].1;
                transaction.savepoints.truncate(position + 1);
                transactions.rollback_to(transaction, uba)
            }
        }
    }
}
