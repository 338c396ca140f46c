//! The optimizer statistics a session gathers: ANALYZE's and DBMS_STATS's gathering
//! (`sql::gather` measures, the dictionary keeps), VACUUM [ANALYZE], and the CALL of a
//! built-in procedure (DBMS_STATS, DBMS_SHARED_POOL) that `sql::procedures` resolves.

use std::sync::Arc;

use super::{Session, StatementResult};
use crate::catalog::statistics::IndexStatistics;
use crate::catalog::{self, TableDef};
use crate::error::Result;
use crate::sql::gather::{self, SampleSize};
use crate::sql::procedures::{self, StatisticsCall};
use crate::sql::query::{self, BindValues};
use crate::syntax::ast;
use crate::types::Value;

impl Session {
    /// PostgreSQL's VACUUM: nothing to reclaim (old row versions are in undo and space
    /// freed by DELETE is reused, as in Oracle), so plain VACUUM only checks its tables'
    /// names. VACUUM ANALYZE gathers optimizer statistics of its tables (every table when
    /// none is named), each as `ANALYZE TABLE t COMPUTE STATISTICS` would, in its own
    /// transaction after committing what the session has open.
    pub(super) fn vacuum(
        &mut self,
        analyze: bool,
        names: &[ast::ObjectName],
    ) -> Result<StatementResult> {
        let tables: Vec<Arc<TableDef>> = if names.is_empty() {
            self.instance
                .catalog()
                .current()
                .tables
                .values()
                .cloned()
                .collect()
        } else {
            names
                .iter()
                .map(|name| self.table(name))
                .collect::<Result<_>>()?
        };
        const NOTHING: &str =
            "VACUUM did nothing: old row versions are kept in undo, as in Oracle, so there is nothing to reclaim";
        let said = if analyze {
            self.commit(None)?;
            for table in &tables {
                self.gather(table, SampleSize::All, true)?;
            }
            format!(
                "{NOTHING}; ANALYZE gathered the optimizer statistics of {} table{}.",
                tables.len(),
                if tables.len() == 1 { "" } else { "s" }
            )
        } else {
            format!("{NOTHING}.")
        };
        Ok(StatementResult {
            notice: Some(said.clone()),
            ..StatementResult::done(said)
        })
    }

    /// Gathers statistics of `table` (and of its indexes with `cascade`; without, the
    /// indexes keep the statistics they had) under a snapshot of now, then publishes them
    /// in a DDL transaction of the catalog: a new dictionary version.
    pub(super) fn gather(&self, table: &TableDef, sample: SampleSize, cascade: bool) -> Result<()> {
        let now = catalog::now_seconds();
        let gathered = self.with_reader(&BindValues::default(), |reader| {
            gather::table_statistics(reader, table, sample, cascade, now)
        })?;
        self.instance
            .catalog()
            .set_statistics(&table.name, table.object_id, |current| {
                let mut gathered = gathered;
                if let (false, Some(old)) = (cascade, &current.statistics) {
                    gathered.indexes = old.indexes.clone();
                }
                Ok(Some(gathered))
            })
    }

    /// DBMS_STATS.GATHER_INDEX_STATS: the index's statistics, merged into its table's. A
    /// table never analyzed has its own statistics gathered too (they hold the index's).
    pub(super) fn gather_index(&self, name: &str, sample: SampleSize) -> Result<()> {
        let dictionary = self.instance.catalog().current();
        let index = dictionary
            .indexes
            .get(name)
            .ok_or_else(|| procedures::not_found("INDEX", catalog::OWNER, name))?
            .clone();
        let table = dictionary.table(&index.table_name)?.clone();
        let now = catalog::now_seconds();
        let (table_statistics, index_statistics) =
            self.with_reader(&BindValues::default(), |reader| {
                let table_statistics = match table.statistics {
                    Some(_) => None,
                    None => Some(gather::table_statistics(
                        reader, &table, sample, false, now,
                    )?),
                };
                Ok((
                    table_statistics,
                    IndexStatistics::measure(&reader.storage.cache, &index, now)?,
                ))
            })?;
        self.instance
            .catalog()
            .set_statistics(&table.name, table.object_id, |current| {
                let mut statistics = match (table_statistics, &current.statistics) {
                    (Some(gathered), _) => gathered,
                    (None, Some(old)) => (**old).clone(),
                    // Deleted meanwhile: nothing to hang the index's figures on.
                    (None, None) => return Ok(None),
                };
                statistics
                    .indexes
                    .insert(index.name.clone(), index_statistics);
                Ok(Some(statistics))
            })
    }

    /// Runs one procedure call of a CALL statement or a block: the arguments are evaluated
    /// (constants, binds, expressions of them), bound to the procedure's parameters, and
    /// the procedure runs. Each gathering commits on its own, as DBMS_STATS does.
    pub(super) fn procedure_call(
        &mut self,
        call: &ast::ProcedureCall,
        binds: &[Value],
    ) -> Result<()> {
        procedures::check_procedure(&call.name)?;
        let mut bind_values = BindValues::new(binds.to_vec());
        let reader_binds = bind_values.clone();
        let (positional, named) = self.with_reader(&reader_binds, |reader| {
            let mut evaluate = |expr: &ast::Expr| -> Result<Value> {
                if let Some(constant) = procedures::constant_argument(expr) {
                    return constant;
                }
                query::compile_row_free(reader, &mut bind_values, expr)?
                    .evaluate(&[], &reader.row_context())
            };
            let positional = call
                .args
                .iter()
                .map(&mut evaluate)
                .collect::<Result<Vec<_>>>()?;
            let named = call
                .named
                .iter()
                .map(|(name, expr)| Ok((name.clone(), evaluate(expr)?)))
                .collect::<Result<Vec<_>>>()?;
            Ok((positional, named))
        })?;
        self.run_procedure(&call.name, positional, named)
    }

    /// Runs procedure `name` with its arguments' values (a CALL's or a PL/SQL call's).
    pub(super) fn run_procedure(
        &mut self,
        name: &str,
        positional: Vec<Value>,
        named: Vec<(String, Value)>,
    ) -> Result<()> {
        if crate::sql::shared_pool_procedures::names_package(name) {
            return crate::sql::shared_pool_procedures::run(
                &self.instance,
                name,
                positional,
                named,
            );
        }
        let catalog = self.instance.catalog();
        let table = |name: &str| {
            catalog
                .current()
                .tables
                .get(name)
                .cloned()
                .ok_or_else(|| procedures::not_found("TABLE", catalog::OWNER, name))
        };
        match procedures::statistics_call(name, positional, named)? {
            StatisticsCall::GatherTable {
                table: name,
                sample,
                cascade,
            } => self.gather(&*table(&name)?, sample, cascade),
            StatisticsCall::GatherSchema { sample, cascade } => {
                let tables: Vec<Arc<TableDef>> =
                    catalog.current().tables.values().cloned().collect();
                for each in tables {
                    match self.gather(&each, sample, cascade) {
                        // Dropped since the list was taken: nothing to gather.
                        Err(error) if error.code() == 942 => continue,
                        other => other?,
                    }
                }
                Ok(())
            }
            StatisticsCall::GatherIndex { index, sample } => self.gather_index(&index, sample),
            StatisticsCall::DeleteTable { table: name } => {
                let found = table(&name)?;
                catalog.set_statistics(&found.name, found.object_id, |_| Ok(None))
            }
            StatisticsCall::DeleteIndex { index: name } => {
                let dictionary = catalog.current();
                let index = dictionary
                    .indexes
                    .get(&name)
                    .ok_or_else(|| procedures::not_found("INDEX", catalog::OWNER, &name))?;
                let found = dictionary.table(&index.table_name)?;
                catalog.set_statistics(&found.name, found.object_id, |current| {
                    Ok(current.statistics.as_deref().map(|gathered| {
                        let mut kept = gathered.clone();
                        kept.indexes.remove(&name);
                        kept
                    }))
                })
            }
            StatisticsCall::DeleteSchema => {
                for each in catalog.current().tables.values() {
                    match catalog.set_statistics(&each.name, each.object_id, |_| Ok(None)) {
                        Err(error) if error.code() == 942 => continue,
                        other => other?,
                    }
                }
                Ok(())
            }
        }
    }
}
