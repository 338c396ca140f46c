//! A query's execution and the plans a child cursor keeps: the reader a query reads
//! through (its snapshot, its dictionary), the views and table functions a FROM item may
//! name, and `publish`, which puts a built child's plan in the library cache for every
//! session that shares it.

use std::sync::Arc;

use super::dml::SessionSequences;
use super::{Column, Session, StatementResult};
use crate::access::heap::RowId;
use crate::catalog::{rows, Dictionary};
use crate::error::{Error, Result};
use crate::instrumentation::{self, interrupt, TimeModelStatistic};
use crate::library_cache::{CursorPin, Executable, PlanSummary};
use crate::sql::query::{self, BindValues, Reader};
use crate::syntax::ast;
use crate::types::RowSet;
use crate::types::{DataType, Value};
use crate::views::{self, ViewContext};

/// Makes a statement's plan; on its child's first execution (`building`) the work is timed
/// as a hard parse and its heap bytes counted for the shared pool. Returns the plan and
/// those bytes (None when not building or when the allocator could not count them).
pub(super) fn make_plan<T>(
    building: bool,
    make: impl FnOnce() -> Result<T>,
) -> (Result<T>, Option<u64>) {
    if !building {
        return (make(), None);
    }
    let _timed = instrumentation::timed(TimeModelStatistic::ParseTimeElapsed);
    let _hard = instrumentation::timed(TimeModelStatistic::HardParseElapsedTime);
    instrumentation::heap::measure(make)
}

/// v$sql.plan_hash_value: a digest of the plan's steps (operation, options, object), so that
/// two children with the same steps have the same value.
pub(super) fn plan_hash_value(lines: &[query::PlanLine]) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    for line in lines {
        (
            line.depth,
            &line.operation,
            &line.options,
            &line.object_name,
        )
            .hash(&mut hasher);
    }
    hasher.finish() as u32
}

impl Session {
    pub(super) fn reader_parts(&self) -> (Arc<Dictionary>, u64) {
        let xid = self
            .transaction
            .as_ref()
            .map_or(0, |transaction| transaction.xid);
        (self.instance.catalog().current(), xid)
    }

    /// `TABLE(name(args))` in a FROM list: DBMS_XPLAN.DISPLAY([table, statement_id,
    /// format]) shows the last plan in PLAN_TABLE (of that statement id, when given) as
    /// Oracle's DISPLAY does, one line per row in PLAN_TABLE_OUTPUT.
    pub(super) fn table_function(&self, name: &str, args: &[Value]) -> Result<Option<RowSet>> {
        if name != "DBMS_XPLAN.DISPLAY" {
            return Ok(None);
        }
        if let Some(table) = args.first().filter(|table| !table.is_null()) {
            if !table.to_string().eq_ignore_ascii_case("PLAN_TABLE") {
                return Err(Error::table_not_found());
            }
        }
        let statement_id = args.get(1).filter(|id| !id.is_null()).map(Value::to_string);
        let chosen = self
            .plan_table
            .iter()
            .filter(|row| statement_id.is_none() || row.statement_id == statement_id)
            .map(|row| row.plan_id)
            .max();
        let lines: Vec<&query::PlanLine> = self
            .plan_table
            .iter()
            .filter(|row| Some(row.plan_id) == chosen)
            .map(|row| &row.line)
            .collect();
        let output = if lines.is_empty() {
            vec!["Error: cannot fetch last explain plan from PLAN_TABLE".to_string()]
        } else {
            query::format_plan(&lines)
        };
        Ok(Some(RowSet {
            columns: vec![(
                "PLAN_TABLE_OUTPUT".to_string(),
                Some(DataType::varchar2(300)),
            )],
            rows: output
                .into_iter()
                .map(|line| vec![Value::text(line)])
                .collect(),
        }))
    }

    pub(super) fn view(&self, dictionary: &Dictionary, name: &str) -> Result<Option<RowSet>> {
        if name == "PLAN_TABLE" {
            return Ok(Some(self.plan_table_rows()));
        }
        let mut context = ViewContext::of(&self.instance, self.sid(), &self.parameters, dictionary);
        context.programs = Some(&PlsqlDescriber);
        views::resolve(name, &context)
    }

    /// Runs `work` with a reader for the current moment (statement-level consistency).
    pub(super) fn with_reader<T>(
        &self,
        binds: &BindValues,
        work: impl FnOnce(&Reader) -> Result<T>,
    ) -> Result<T> {
        let (dictionary, xid) = self.reader_parts();
        self.with_reader_in(&dictionary, xid, binds, work)
    }

    /// `with_reader` on a dictionary version the caller holds.
    pub(super) fn with_reader_in<T>(
        &self,
        dictionary: &Arc<Dictionary>,
        xid: u64,
        binds: &BindValues,
        work: impl FnOnce(&Reader) -> Result<T>,
    ) -> Result<T> {
        let snapshot = self.instance.transactions().snapshot();
        let views = |name: &str| self.view(dictionary, name).ok().flatten();
        let table_functions = |name: &str, args: &[Value]| self.table_function(name, args);
        let work_area = query::WorkArea::new(self.settings.pga_aggregate_limit);
        let sequences = SessionSequences { session: self };
        let functions = super::plsql::SqlRoutines { session: self };
        let reader = Reader {
            storage: self.instance.catalog().storage(),
            dictionary,
            snapshot_scn: snapshot.scn,
            xid,
            binds,
            sequences: &sequences,
            views: &views,
            outer: &[],
            table_functions: &table_functions,
            work_area: &work_area,
            optimizer: self.settings.optimizer,
            multiblock_read_count: self.settings.multiblock_read_count,
            functions: Some(&functions),
        };
        work(&reader)
    }

    /// A query's result columns, from a plan made with `binds` and not kept or run (what
    /// describing a prepared statement or compiling PL/SQL needs).
    pub(super) fn query_columns(
        &self,
        dictionary: &Arc<Dictionary>,
        xid: u64,
        query: &ast::Query,
        binds: Vec<Value>,
    ) -> Result<Vec<(String, Option<DataType>)>> {
        let mut bind_values = BindValues::new(binds);
        let plan_binds = bind_values.clone();
        let plan = self.with_reader_in(dictionary, xid, &plan_binds, |reader| {
            query::plan_query(reader, &mut bind_values, query)
        })?;
        Ok(plan.row_set_columns())
    }

    pub(super) fn select(
        &mut self,
        query: &ast::Query,
        text: &str,
        binds: &[Value],
        pin: &mut CursorPin,
    ) -> Result<StatementResult> {
        // The child's validity is read under the latch the dictionary is read under, so a
        // plan never runs against a dictionary changed since it was made.
        let (dictionary, valid) = self
            .instance
            .catalog()
            .current_checked(|| pin.child().is_valid());
        let xid = self
            .transaction
            .as_ref()
            .map_or(0, |transaction| transaction.xid);
        let mut bind_values = BindValues::new(binds.to_vec());
        let plan_binds = bind_values.clone();
        let limit = self.settings.statement_timeout;
        let (plan, rows) = self.with_reader_in(&dictionary, xid, &plan_binds, |reader| {
            let plan = self.plan_of(
                pin,
                (text, &dictionary, valid),
                || query::plan_query(reader, &mut bind_values, query),
                |plan| {
                    let summary = self.plan_summary(
                        plan.costed,
                        plan.estimate.as_ref().map(|estimate| estimate.cost),
                        &query::explain_query(plan),
                    );
                    (plan.reusable, summary)
                },
            )?;
            let rows = interrupt::interruptible(limit, || query::execute(reader, &plan))?;
            Ok((plan, rows))
        })?;
        let rows = match &plan.for_update {
            Some(lock) => self.lock_rows(lock, plan.columns.len(), rows)?,
            None => rows,
        };
        let rows = RowSet {
            columns: plan.row_set_columns(),
            rows,
        };
        let columns = rows
            .columns
            .into_iter()
            .map(|(name, data_type)| Column { name, data_type })
            .collect();
        Ok(StatementResult::query(columns, rows.rows))
    }

    /// `SELECT ... FOR UPDATE`: locks each row's rows of the locked tables, in the
    /// session's transaction (begun if none is), as one statement (an error undoes the
    /// locks it took); returns the rows without their rowids, less those SKIP LOCKED left
    /// out. `visible`: the rows' own columns, before the rowids.
    fn lock_rows(
        &mut self,
        lock: &query::ForUpdatePlan,
        visible: usize,
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>> {
        let storage = self.instance.catalog().storage().clone();
        self.dml(|_, transaction| {
            let mut locked = Vec::with_capacity(rows.len());
            for mut row in rows {
                let mut keep = true;
                for (table, rowid) in lock.tables.iter().zip(&row[visible..]) {
                    // NULL: an outer join's missing row, nothing to lock.
                    let Value::Text(rowid) = rowid else {
                        continue;
                    };
                    let Some((_, rowid)) = RowId::from_oracle_string(rowid) else {
                        return Err(Error::internal("a FOR UPDATE rowid that is no rowid"));
                    };
                    keep &= rows::lock_row(&storage, transaction, table, rowid, lock.wait)?;
                }
                if keep {
                    row.truncate(visible);
                    locked.push(row);
                }
            }
            Ok(locked)
        })
    }

    /// The summary of a child that has no plan (or no optimizer's choice in it).
    pub(super) fn unplanned(&self) -> PlanSummary {
        PlanSummary {
            optimizer_mode: self.settings.optimizer.mode.name(),
            cost: None,
            plan_hash_value: 0,
        }
    }

    /// What the optimizer decided for a child being built, from its plan's EXPLAIN lines.
    pub(super) fn plan_summary(
        &self,
        costed: bool,
        cost: Option<f64>,
        explained: &[query::PlanLine],
    ) -> PlanSummary {
        PlanSummary {
            optimizer_mode: if costed {
                self.settings.optimizer.mode.name()
            } else {
                "RULE"
            },
            cost,
            plan_hash_value: plan_hash_value(explained),
        }
    }

    /// The plan a statement runs: the one its child keeps (`kept` finds it there), when the
    /// child is still valid (`child`: the text, the dictionary version it runs against, and
    /// the child's validity read with it), else one `make` makes now. On the child's first
    /// execution the new plan is published with what `describe` says of it: the plan to
    /// keep, if it can run again, and the optimizer's summary.
    pub(super) fn plan_of<P: std::any::Any + Send + Sync>(
        &self,
        pin: &mut CursorPin,
        child: (&str, &Dictionary, bool),
        make: impl FnOnce() -> Result<P>,
        describe: impl FnOnce(&Arc<P>) -> (bool, PlanSummary),
    ) -> Result<Arc<P>> {
        let (text, dictionary, valid) = child;
        if valid {
            if let Some(plan) = pin.child().plan::<P>() {
                return Ok(plan);
            }
        }
        let (planned, bytes) = make_plan(pin.is_building(), make);
        let plan = Arc::new(planned?);
        if pin.is_building() {
            let (reusable, summary) = describe(&plan);
            let kept = reusable.then(|| plan.clone() as Executable);
            self.publish(pin, text, dictionary, kept, summary, bytes)?;
        }
        Ok(plan)
    }

    /// Finishes building `pin`'s child with its plan (`kept` when it can run again) and
    /// the objects `text` depends on in `dictionary`. `bytes`: the plan's, when the
    /// allocator counted them; else an estimate from the text's length.
    pub(super) fn publish(
        &self,
        pin: &mut CursorPin,
        text: &str,
        dictionary: &Dictionary,
        kept: Option<Executable>,
        summary: PlanSummary,
        bytes: Option<u64>,
    ) -> Result<()> {
        let bytes = bytes.unwrap_or(text.len() as u64 * 16);
        let dependencies = self.dependencies(text, dictionary);
        pin.publish(kept, summary, dependencies, bytes, self.sql_origin)
    }
}

/// dba_procedures' and dba_arguments' reading of a unit's source: PL/SQL's, which lies
/// above the views.
struct PlsqlDescriber;

impl views::ProgramDescriber for PlsqlDescriber {
    fn subprograms(
        &self,
        program: &crate::catalog::ProgramDef,
        dictionary: &Dictionary,
    ) -> Vec<views::SubprogramInfo> {
        crate::plsql::describe_program(program, dictionary)
    }
}
