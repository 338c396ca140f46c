//! Running a plan: the row pipeline above the join (ROWNUM, grouping, projection,
//! DISTINCT, ORDER BY, OFFSET / FETCH).

use std::collections::{HashMap, HashSet};

use super::aggregate::{accumulate, finish, new_group, GroupState};
use super::join::{join_level, JoinTables};
use super::plan::QueryPlan;
use super::reader::Reader;
use crate::error::Result;
use crate::instrumentation::{self, Statistic};
use crate::types::{GroupKey, Value};

/// Runs a planned query.
pub fn execute(reader: &Reader, plan: &QueryPlan) -> Result<Vec<Vec<Value>>> {
    let mut outputs: Vec<Vec<Value>> = Vec::new();
    let mut groups: Vec<GroupState> = Vec::new();
    let mut group_index: HashMap<Vec<GroupKey>, usize> = HashMap::new();
    let mut rownum = 0u64;
    // FOR UPDATE's rowids follow the visible columns and stay (the session drops them).
    let visible = plan.columns.len() + plan.for_update.as_ref().map_or(0, |lock| lock.tables.len());
    debug_assert!(
        visible <= plan.projection.len(),
        "every column is projected"
    );
    // DISTINCT without grouping keeps each row once as it comes (HASH UNIQUE): only
    // distinct rows take work-area memory.
    let mut distinct_seen: HashSet<Vec<GroupKey>> = HashSet::new();
    let mut row = vec![Value::Null; plan.width];
    {
        let mut emit = |row: &[Value]| -> Result<bool> {
            // ROWNUM conditions: a row that fails them does not take the number; once such a
            // condition that reads no column fails, no later row can pass it either.
            let candidate = rownum + 1;
            let context = reader.context(candidate);
            for filter in &plan.rownum_filters {
                if !filter.is_true(row, &context)? {
                    return Ok(filter.max_column().is_some());
                }
            }
            rownum = candidate;
            match &plan.grouped {
                None => {
                    let values = plan
                        .projection
                        .iter()
                        .map(|expr| expr.evaluate(row, &context))
                        .collect::<Result<Vec<_>>>()?;
                    if plan.distinct {
                        let key: Vec<GroupKey> =
                            values[..visible].iter().cloned().map(GroupKey).collect();
                        if distinct_seen.contains(&key) {
                            return Ok(true);
                        }
                        reader.work_area.charge(&values[..visible])?;
                        distinct_seen.insert(key);
                    }
                    reader.work_area.charge(&values)?;
                    outputs.push(values);
                }
                Some(grouped) => {
                    let position = if grouped.keys.is_empty() {
                        // One group for the whole input: no key to evaluate or hash.
                        if groups.is_empty() {
                            groups.push(new_group(Vec::new(), &grouped.aggregates));
                        }
                        0
                    } else {
                        let keys = grouped
                            .keys
                            .iter()
                            .map(|expr| expr.evaluate(row, &context))
                            .collect::<Result<Vec<_>>>()?;
                        let hashed: Vec<GroupKey> = keys.iter().cloned().map(GroupKey).collect();
                        match group_index.get(&hashed) {
                            Some(position) => *position,
                            None => {
                                // The key, in the group and in the index.
                                reader.work_area.charge(&keys)?;
                                reader.work_area.charge(&keys)?;
                                groups.push(new_group(keys, &grouped.aggregates));
                                group_index.insert(hashed, groups.len() - 1);
                                groups.len() - 1
                            }
                        }
                    };
                    accumulate(&mut groups[position], &grouped.aggregates, row, &context)?;
                }
            }
            Ok(true)
        };
        let tables = JoinTables::default();
        join_level(reader, plan, 0, &mut row, &mut emit, None, &tables)?;
    }
    if let Some(grouped) = &plan.grouped {
        if groups.is_empty() && grouped.keys.is_empty() {
            // Aggregates over no rows: one row (COUNT 0, others NULL).
            groups.push(new_group(Vec::new(), &grouped.aggregates));
        }
        let context = reader.context(0);
        for group in groups {
            let mut group_row = group.keys;
            for accumulator in group.accumulators {
                group_row.push(finish(accumulator)?);
            }
            debug_assert_eq!(
                group_row.len(),
                grouped.keys.len() + grouped.aggregates.len(),
                "a group row is its keys, then its aggregates"
            );
            if let Some(having) = &grouped.having {
                if !having.is_true(&group_row, &context)? {
                    continue;
                }
            }
            outputs.push(
                plan.projection
                    .iter()
                    .map(|expr| expr.evaluate(&group_row, &context))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
    }
    if plan.distinct && plan.grouped.is_some() {
        let mut seen = HashSet::new();
        let mut kept = Vec::with_capacity(outputs.len());
        for row in outputs {
            let key: Vec<GroupKey> = row[..visible].iter().cloned().map(GroupKey).collect();
            if seen.contains(&key) {
                continue;
            }
            reader.work_area.charge(&row[..visible])?;
            seen.insert(key);
            kept.push(row);
        }
        outputs = kept;
    }
    // Hash group-by and hash unique work areas, all of them in memory.
    let hash_work_areas = plan
        .grouped
        .as_ref()
        .is_some_and(|grouped| !grouped.keys.is_empty()) as u64
        + plan.distinct as u64;
    instrumentation::add(Statistic::WorkareaExecutionsOptimal, hash_work_areas);
    if !plan.order_by.is_empty() {
        instrumentation::add(Statistic::WorkareaExecutionsOptimal, 1);
        instrumentation::add(Statistic::SortsMemory, 1);
        instrumentation::add(Statistic::SortsRows, outputs.len() as u64);
        let context = reader.context(0);
        let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = outputs
            .into_iter()
            .map(|row| {
                let keys = plan
                    .order_by
                    .iter()
                    .map(|(expr, _, _)| expr.evaluate(&row, &context))
                    .collect::<Result<Vec<_>>>()?;
                reader.work_area.charge(&keys)?;
                Ok((keys, row))
            })
            .collect::<Result<_>>()?;
        keyed.sort_by(|(left, _), (right, _)| {
            for (index, (_, descending, nulls_first)) in plan.order_by.iter().enumerate() {
                let (a, b) = (&left[index], &right[index]);
                let order = match (a.is_null(), b.is_null()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => {
                        if *nulls_first {
                            std::cmp::Ordering::Less
                        } else {
                            std::cmp::Ordering::Greater
                        }
                    }
                    (false, true) => {
                        if *nulls_first {
                            std::cmp::Ordering::Greater
                        } else {
                            std::cmp::Ordering::Less
                        }
                    }
                    (false, false) => {
                        let order = a.total_cmp(b);
                        if *descending {
                            order.reverse()
                        } else {
                            order
                        }
                    }
                };
                if order != std::cmp::Ordering::Equal {
                    return order;
                }
            }
            std::cmp::Ordering::Equal
        });
        outputs = keyed.into_iter().map(|(_, row)| row).collect();
    }
    let context = reader.context(0);
    let offset = match &plan.offset {
        Some(expr) => row_count(&expr.evaluate(&[], &context)?)?,
        None => 0,
    };
    let fetch = match &plan.fetch {
        Some(expr) => Some(row_count(&expr.evaluate(&[], &context)?)?),
        None => None,
    };
    let mut result: Vec<Vec<Value>> = outputs
        .into_iter()
        .skip(offset)
        .take(fetch.unwrap_or(usize::MAX))
        .collect();
    for row in &mut result {
        row.truncate(visible);
    }
    Ok(result)
}

fn row_count(value: &Value) -> Result<usize> {
    Ok(value
        .to_decimal()
        .map(|number| number.floor())
        .ok()
        .and_then(|number| u64::try_from(number).ok())
        .unwrap_or(0) as usize)
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;

    #[test]
    fn a_row_count_is_the_whole_part_of_a_number_none_for_anything_else() {
        assert_eq!(row_count(&Value::integer(3)).unwrap(), 3);
        assert_eq!(row_count(&Value::Number(Decimal::new(27, 1))).unwrap(), 2);
        assert_eq!(row_count(&Value::integer(-1)).unwrap(), 0);
        assert_eq!(row_count(&Value::Null).unwrap(), 0);
        assert_eq!(row_count(&Value::text("many")).unwrap(), 0);
    }
}
