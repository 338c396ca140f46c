//! Joins: nested loops over the sources in join order, with outer and FULL joins, and the
//! hash, sort-merge and cartesian joins whose inner rows are read once per execution.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::index_scan::access_rowids;
use super::plan::{Access, Join, MergeKey, QueryPlan, Source, SourceKind};
use super::reader::{ReadOptions, Reader, Vouching};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic};
use crate::syntax::ast::BinaryOperator;
use crate::types::{GroupKey, Value};

/// Nested loops: binds source `level` for each of its rows that match, then goes deeper.
/// `full_matches` collects the rows of a FULL join's second source that met their ON
/// conditions, so that the first level can add the others afterwards.
pub(super) fn join_level(
    reader: &Reader,
    plan: &QueryPlan,
    level: usize,
    row: &mut Vec<Value>,
    emit: &mut dyn FnMut(&[Value]) -> Result<bool>,
    full_matches: Option<&RefCell<FxHashSet<u64>>>,
    tables: &JoinTables,
) -> Result<bool> {
    if level == plan.sources.len() {
        debug_assert_eq!(row.len(), plan.width, "a joined row has its scope's width");
        return emit(row);
    }
    let source = &plan.sources[level];
    let context = reader.context(0);
    let mut matched = false;
    // A FULL join of the first two sources: the second's matches are collected here.
    let full = (level == 0 && plan.sources.get(1).is_some_and(|next| next.full))
        .then(|| RefCell::new(FxHashSet::default()));
    let deeper_matches = full.as_ref().or(full_matches);
    // A query of one source has rows that are its rows: the candidate is checked and
    // emitted where it lies, not copied into `row` first.
    let alone = plan.sources.len() == 1;
    // `vouched`: the row is known to satisfy `index_filters` (IndexScan::exact).
    let mut visit = |candidate: &mut [Value],
                     vouched: bool,
                     identity: u64,
                     row: &mut Vec<Value>|
     -> Result<bool> {
        // Each candidate row is a point where a cancel or the time limit stops a statement
        // whose rows come from memory (a hash join's probes) as well as from blocks.
        crate::instrumentation::interrupt::check()?;
        debug_assert_eq!(
            candidate.len(),
            source.width,
            "a source's row has its width"
        );
        let current: &[Value] = if alone {
            candidate
        } else {
            for (slot, value) in row[source.offset..source.offset + source.width]
                .iter_mut()
                .zip(candidate.iter_mut())
            {
                std::mem::swap(slot, value);
            }
            row
        };
        if !vouched {
            for filter in &source.index_filters {
                if !filter.is_true(current, &context)? {
                    return Ok(true);
                }
            }
        }
        for condition in &source.on {
            if !condition.is_true(current, &context)? {
                return Ok(true);
            }
        }
        matched = true;
        if source.full {
            if let Some(matches) = full_matches {
                matches.borrow_mut().insert(identity);
            }
        }
        for filter in &source.filters {
            if !filter.is_true(current, &context)? {
                return Ok(true);
            }
        }
        if alone {
            emit(candidate)
        } else {
            join_level(reader, plan, level + 1, row, emit, deeper_matches, tables)
        }
    };
    if !source_rows(reader, plan, source, row, false, tables, &mut visit)? {
        return Ok(false);
    }
    if source.outer && !matched {
        for value in &mut row[source.offset..source.offset + source.width] {
            *value = Value::Null;
        }
        for filter in &source.filters {
            if !filter.is_true(row, &context)? {
                return Ok(true);
            }
        }
        return join_level(reader, plan, level + 1, row, emit, full_matches, tables);
    }
    if let Some(matches) = full {
        // The second source's rows that matched no row of the first, the first's columns
        // NULL, through the WHERE conjuncts (all at the second level: see `plan_subquery`).
        let matches = matches.into_inner();
        for value in &mut row[source.offset..source.offset + source.width] {
            *value = Value::Null;
        }
        let second = &plan.sources[1];
        let mut unmatched = |candidate: &mut [Value],
                             _: bool,
                             identity: u64,
                             row: &mut Vec<Value>|
         -> Result<bool> {
            if matches.contains(&identity) {
                return Ok(true);
            }
            for (slot, value) in row[second.offset..second.offset + second.width]
                .iter_mut()
                .zip(candidate.iter_mut())
            {
                std::mem::swap(slot, value);
            }
            for filter in &second.filters {
                if !filter.is_true(row, &context)? {
                    return Ok(true);
                }
            }
            join_level(reader, plan, 2, row, emit, None, tables)
        };
        return source_rows(reader, plan, second, row, true, tables, &mut unmatched);
    }
    Ok(true)
}

/// The tables of a plan's HASH JOINs and MERGE JOINs, built at their first probe in an
/// execution, by the source's offset.
#[derive(Default)]
pub(super) struct JoinTables {
    hashed: RefCell<HashMap<usize, Rc<HashTable>>>,
    sorted: RefCell<HashMap<usize, Rc<SortedTable>>>,
}

/// A HASH JOIN's rows by their join key, with their identities.
type HashTable = FxHashMap<Vec<GroupKey>, Vec<(u64, Vec<Value>)>>;

/// A MERGE JOIN's rows sorted on their key, with their identities.
type SortedTable = Vec<(Value, u64, Vec<Value>)>;

/// A join source's rows read once (by its access, which reads no earlier source), each
/// with its identity, through `keep` (false: leave the row out); they count against the
/// statement's work area, as one work area that fit in memory (there is no other kind yet).
/// The filters the access's key range implies are checked here on the rows the index does
/// not vouch for (their other columns may not even be decoded for those it does), so the
/// rows kept are all vouched for when probed.
fn build_rows(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    row: &mut Vec<Value>,
    keep: &mut dyn FnMut(&[Value], u64) -> Result<bool>,
) -> Result<()> {
    let context = reader.context(0);
    let mut add = |candidate: &mut [Value], vouched: bool, identity: u64, row: &mut Vec<Value>| {
        if !vouched && !source.index_filters.is_empty() {
            let slots = &mut row[source.offset..source.offset + source.width];
            slots.swap_with_slice(candidate);
            let passes = source
                .index_filters
                .iter()
                .try_fold(true, |passes, filter| {
                    Ok::<_, Error>(passes && filter.is_true(row, &context)?)
                });
            row[source.offset..source.offset + source.width].swap_with_slice(candidate);
            if !passes? {
                return Ok(true);
            }
        }
        if keep(candidate, identity)? {
            reader.work_area.charge(candidate)?;
        }
        Ok(true)
    };
    read_source(reader, plan, source, row, false, &mut add)?;
    instrumentation::add(Statistic::WorkareaExecutionsOptimal, 1);
    Ok(())
}

/// The hash table of a HASH JOIN source, keyed on its join columns; rows with a NULL key
/// are left out, since NULL equals nothing.
fn hash_table(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    keys: &[(usize, usize)],
    row: &mut Vec<Value>,
    tables: &JoinTables,
) -> Result<Rc<HashTable>> {
    if let Some(table) = tables.hashed.borrow().get(&source.offset) {
        return Ok(table.clone());
    }
    debug_assert!(!keys.is_empty(), "a hash join has a key");
    debug_assert!(
        keys.iter().all(|(inner, outer)| {
            let own = source.offset..source.offset + source.width;
            own.contains(inner) && !own.contains(outer)
        }),
        "a hash join's keys pair a column of its source with one of an earlier source"
    );
    let mut table = HashTable::default();
    build_rows(reader, plan, source, row, &mut |candidate, identity| {
        let mut key = Vec::with_capacity(keys.len());
        for (inner, _) in keys {
            let value = &candidate[inner - source.offset];
            if value.is_null() {
                return Ok(false);
            }
            key.push(GroupKey(value.clone()));
        }
        debug_assert_eq!(
            key.len(),
            keys.len(),
            "a built row's key has every key column"
        );
        table
            .entry(key)
            .or_default()
            .push((identity, candidate.to_vec()));
        Ok(true)
    })?;
    let table = Rc::new(table);
    tables
        .hashed
        .borrow_mut()
        .insert(source.offset, table.clone());
    Ok(table)
}

/// The rows of a MERGE JOIN source sorted on its key (SORT JOIN; rows with a NULL key are
/// left out, since NULL compares with nothing), or with no key those of a MERGE JOIN
/// CARTESIAN's source as read (BUFFER SORT, which in Oracle sorts nothing either).
fn sorted_table(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    key: Option<MergeKey>,
    row: &mut Vec<Value>,
    tables: &JoinTables,
) -> Result<Rc<SortedTable>> {
    if let Some(table) = tables.sorted.borrow().get(&source.offset) {
        return Ok(table.clone());
    }
    let mut table: SortedTable = Vec::new();
    build_rows(reader, plan, source, row, &mut |candidate, identity| {
        let value = match key {
            Some(key) => candidate[key.inner - source.offset].clone(),
            None => Value::Null,
        };
        if key.is_some() && value.is_null() {
            return Ok(false);
        }
        table.push((value, identity, candidate.to_vec()));
        Ok(true)
    })?;
    if key.is_some() {
        table.sort_by(|a, b| a.0.total_cmp(&b.0));
        debug_assert!(table.is_sorted_by(|a, b| a.0.total_cmp(&b.0).is_le()));
    }
    instrumentation::add(Statistic::SortsMemory, 1);
    instrumentation::add(Statistic::SortsRows, table.len() as u64);
    let table = Rc::new(table);
    tables
        .sorted
        .borrow_mut()
        .insert(source.offset, table.clone());
    Ok(table)
}

/// The rows of a sorted MERGE JOIN table whose key compares with `value` by `op`
/// (`key op value`): one binary search for each bound.
fn merge_range(table: &SortedTable, op: BinaryOperator, value: &Value) -> std::ops::Range<usize> {
    let first_not_below = table.partition_point(|(key, _, _)| key.total_cmp(value).is_lt());
    let first_above = table.partition_point(|(key, _, _)| key.total_cmp(value).is_le());
    debug_assert!(first_not_below <= first_above && first_above <= table.len());
    match op {
        BinaryOperator::Equal => first_not_below..first_above,
        BinaryOperator::Less => 0..first_not_below,
        BinaryOperator::LessOrEqual => 0..first_above,
        BinaryOperator::Greater => first_above..table.len(),
        BinaryOperator::GreaterOrEqual => first_not_below..table.len(),
        _ => 0..table.len(),
    }
}

/// What `source_rows` calls for each row: (candidate, vouched, identity, row) -> go on.
type SourceVisit<'v> = dyn FnMut(&mut [Value], bool, u64, &mut Vec<Value>) -> Result<bool> + 'v;

/// A source's rows for a join level: `visit(candidate, vouched, identity, row)` for each, until
/// it returns false. The identity tells rows apart (a rowid, or the row's position);
/// `full_scan` reads a table whole whatever its access path.
fn source_rows(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    row: &mut Vec<Value>,
    full_scan: bool,
    tables: &JoinTables,
    visit: &mut SourceVisit,
) -> Result<bool> {
    if full_scan {
        return read_source(reader, plan, source, row, true, visit);
    }
    let (table, range) = match &source.join {
        Join::NestedLoops => return read_source(reader, plan, source, row, false, visit),
        Join::Hash(keys) => {
            let table = hash_table(reader, plan, source, keys, row, tables)?;
            let mut key = Vec::with_capacity(keys.len());
            for (_, outer) in keys {
                if row[*outer].is_null() {
                    return Ok(true); // NULL equals nothing
                }
                key.push(GroupKey(row[*outer].clone()));
            }
            debug_assert_eq!(key.len(), keys.len(), "a probe's key has every key column");
            let mut scratch = Vec::with_capacity(source.width);
            for (identity, candidate) in table.get(&key).into_iter().flatten() {
                scratch.clone_from(candidate);
                if !visit(&mut scratch, true, *identity, row)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        Join::Merge(key) => {
            let table = sorted_table(reader, plan, source, Some(*key), row, tables)?;
            let value = row[key.outer].clone();
            if value.is_null() {
                return Ok(true); // NULL compares with nothing
            }
            let range = merge_range(&table, key.op, &value);
            (table, range)
        }
        Join::Cartesian => {
            let table = sorted_table(reader, plan, source, None, row, tables)?;
            let range = 0..table.len();
            (table, range)
        }
    };
    // Each kept row is copied into one scratch row (the visit swaps its values out).
    let mut scratch = Vec::with_capacity(source.width);
    for (_, identity, candidate) in &table[range] {
        scratch.clone_from(candidate);
        if !visit(&mut scratch, true, *identity, row)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A source's rows by its access path (`full_scan`: a table read whole whatever its
/// access), with the arguments of `source_rows`.
fn read_source(
    reader: &Reader,
    plan: &QueryPlan,
    source: &Source,
    row: &mut Vec<Value>,
    full_scan: bool,
    visit: &mut SourceVisit,
) -> Result<bool> {
    match &source.kind {
        SourceKind::Rows(rows, _) => {
            for (position, candidate) in rows.iter().enumerate() {
                if !visit(&mut candidate.clone(), false, position as u64, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        SourceKind::Series(series) => {
            let context = reader.context(0);
            series.for_each(&context, &mut |position, value| {
                let mut candidate = vec![Value::Number(value)];
                visit(&mut candidate, false, position, row)
            })
        }
        SourceKind::Planned(planned) => {
            // The rows are held for this visit only: what they took of the work area is
            // given back when they are dropped (nested loops run them once per row before).
            let used = reader.work_area.used_bytes();
            let rows = planned.rows(reader)?;
            let held = reader.work_area.used_bytes().saturating_sub(used);
            let mut going = true;
            for (position, mut candidate) in rows.into_iter().enumerate() {
                if !visit(&mut candidate, false, position as u64, row)? {
                    going = false;
                    break;
                }
            }
            reader.work_area.release(held);
            Ok(going)
        }
        SourceKind::Table {
            table,
            access,
            cache,
        } => {
            let scan = match access {
                Access::Index { .. } | Access::Rowid(_) if !full_scan => {
                    access_rowids(reader, table, access, row)?
                }
                _ => None,
            };
            let segment = matches!(access, Access::Rowid(_)).then_some(table.segment.block);
            if let Some(scan) = scan {
                debug_assert_eq!(
                    scan.live.len(),
                    scan.rowids.len(),
                    "one entry state a rowid"
                );
                let vouching = scan.exact.then(|| Vouching {
                    live: &scan.live,
                    needed: source.needed_vouched.as_deref(),
                });
                let options = ReadOptions {
                    needed: source.needed.as_deref(),
                    vouching,
                    visit_under_latch: plan.rows_touch_no_block,
                    cache: None,
                    rowid: source.rowid,
                    segment,
                };
                return reader.fetch_rows(table, &scan.rowids, options, &mut |found, candidate| {
                    let identity = scan.rowids[found.position].to_u64();
                    visit(candidate, found.vouched, identity, row)
                });
            }
            // A full scan, or an index access whose values cannot probe it this time.
            let mut outer_row = std::mem::take(row);
            let options = ReadOptions {
                needed: source.needed.as_deref(),
                vouching: None,
                visit_under_latch: plan.rows_touch_no_block,
                cache: *cache,
                rowid: source.rowid,
                segment: None,
            };
            let result = reader.scan_table_columns(table, options, &mut |rowid, candidate| {
                visit(candidate, false, rowid.to_u64(), &mut outer_row)
            });
            *row = outer_row;
            result
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A MERGE JOIN table of keys 1, 2, 2, 3, 5, sorted.
    fn table() -> SortedTable {
        [1, 2, 2, 3, 5]
            .into_iter()
            .enumerate()
            .map(|(identity, key)| {
                (
                    Value::integer(key),
                    identity as u64,
                    vec![Value::integer(key)],
                )
            })
            .collect()
    }

    fn range(op: BinaryOperator, value: i64) -> std::ops::Range<usize> {
        merge_range(&table(), op, &Value::integer(value))
    }

    #[test]
    fn merge_range_is_the_rows_whose_key_compares_with_the_value() {
        assert_eq!(range(BinaryOperator::Equal, 2), 1..3);
        assert_eq!(range(BinaryOperator::Less, 2), 0..1);
        assert_eq!(range(BinaryOperator::LessOrEqual, 2), 0..3);
        assert_eq!(range(BinaryOperator::Greater, 2), 3..5);
        assert_eq!(range(BinaryOperator::GreaterOrEqual, 2), 1..5);
    }

    #[test]
    fn merge_range_of_a_value_no_key_has_is_where_that_key_would_be() {
        assert_eq!(range(BinaryOperator::Equal, 4), 4..4);
        assert_eq!(range(BinaryOperator::Equal, 0), 0..0);
        assert_eq!(range(BinaryOperator::Equal, 9), 5..5);
        assert_eq!(range(BinaryOperator::Less, 1), 0..0);
        assert_eq!(range(BinaryOperator::Greater, 5), 5..5);
        assert_eq!(range(BinaryOperator::GreaterOrEqual, 0), 0..5);
        assert_eq!(range(BinaryOperator::LessOrEqual, 9), 0..5);
        assert_eq!(range(BinaryOperator::Less, 4), 0..4);
    }

    #[test]
    fn merge_range_of_another_operator_leaves_every_row_to_the_conditions() {
        assert_eq!(range(BinaryOperator::NotEqual, 2), 0..5);
    }
}
