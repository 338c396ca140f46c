//! The rule-based planner: index access paths ranked by rule, join order by connection,
//! hash joins by rule; and the index accesses a table's conjuncts allow, which costing
//! weighs too.

use std::collections::HashMap;
use std::sync::Arc;

use super::costing;
use super::index_scan::IN_LIST_PROBES_MAX;
use super::plan::{Access, Join, Source, SourceKind};
use super::planner::level_of;
use super::resolve::Scope;
use crate::catalog::TableDef;
use crate::sql::eval::Expr;
use crate::syntax::ast::BinaryOperator;
use crate::types::{DataType, Value};

/// Join methods by rule: a table read by a full scan and joined to earlier sources by column
/// equalities of one type kind is a HASH JOIN; a planned source (inline view, join group)
/// after the first is run once per execution, not once per row before it: hashed when such
/// equalities join it, else buffered (MERGE JOIN CARTESIAN).
pub(super) fn choose_joins_by_rule(sources: &mut [Source], scope: &Scope) {
    for source in sources.iter_mut().skip(1) {
        let planned = match source.kind {
            SourceKind::Table {
                access: Access::Full,
                ..
            } => false,
            SourceKind::Planned(_) => true,
            _ => continue,
        };
        let conditions: Vec<&Expr> = if source.outer {
            source.on.iter().collect()
        } else {
            source.filters.iter().collect()
        };
        let keys = costing::join_keys(source, &conditions, scope).0;
        if !keys.is_empty() {
            source.join = Join::Hash(keys);
        } else if planned {
            source.join = Join::Cartesian;
        }
    }
}

/// Orders the sources of an inner join so that each one after the first is joined to those
/// before it by some conjunct, when one can be: FROM order otherwise (the first source
/// stays first). A FROM list written `t1, t3, t2 WHERE t1.a = t2.a AND t2.b = t3.b` would
/// otherwise pair every row of t1 with every row of t3 before t2 could filter them. The
/// conjuncts then move to the level where their columns are bound in the new order.
pub(super) fn order_connected(sources: &mut Vec<Source>) {
    let mut filters = Vec::new();
    for source in sources.iter_mut() {
        filters.append(&mut source.filters);
    }
    let range = |source: &Source| source.offset..source.offset + source.width;
    let mut remaining: Vec<Source> = std::mem::take(sources);
    let mut ordered = vec![remaining.remove(0)];
    while !remaining.is_empty() {
        let next = remaining
            .iter()
            .position(|candidate| {
                filters.iter().any(|filter| {
                    filter.reads_columns_in(range(candidate))
                        && ordered
                            .iter()
                            .any(|chosen| filter.reads_columns_in(range(chosen)))
                        && remaining.iter().all(|other| {
                            std::ptr::eq(other, candidate) || !filter.reads_columns_in(range(other))
                        })
                })
            })
            .unwrap_or(0);
        ordered.push(remaining.remove(next));
    }
    *sources = ordered;
    for filter in filters {
        let level = level_of(sources, &filter);
        sources[level].filters.push(filter);
    }
}

/// The access path for a table at `offset` given conjuncts that may be evaluated when it is
/// read (columns at `offset..` are the table's, earlier ones come from outer sources), and
/// the positions of the conjuncts the index's key range implies (see `IndexScan::exact`).
pub(super) fn choose_access(
    table: &Arc<TableDef>,
    offset: usize,
    rowid: bool,
    conjuncts: &[&Expr],
) -> (Access, Vec<usize>) {
    let mut best: Option<AccessCandidate> = None;
    for candidate in access_candidates(table, offset, rowid, conjuncts) {
        if best
            .as_ref()
            .is_none_or(|best| candidate.score > best.score)
        {
            best = Some(candidate);
        }
    }
    best.map_or((Access::Full, Vec::new()), |best| {
        (best.access, best.implied)
    })
}

/// An index access a table's conjuncts allow.
pub(super) struct AccessCandidate {
    pub(super) access: Access,
    /// Positions of the conjuncts the key range implies (see `IndexScan::exact`).
    pub(super) implied: Vec<usize>,
    /// Positions of the conjuncts whose facts make up the key range.
    pub(super) used: Vec<usize>,
    /// An equality on every column of a unique index.
    pub(super) unique: bool,
    /// The rule-based rank: unique full equality best, then the longest equality prefix,
    /// then a range on the next column.
    pub(super) score: u32,
}

/// The accesses possible for a table at `offset` given conjuncts that may be evaluated
/// when it is read (columns at `offset..` are the table's, earlier ones come from outer
/// sources): for each index, the longest equality prefix and a range on the next column;
/// and with `rowid` (the table's ROWID pseudo-column follows its columns), an equality on
/// it: TABLE ACCESS BY USER ROWID, which beats them all.
pub(super) fn access_candidates(
    table: &Arc<TableDef>,
    offset: usize,
    rowid: bool,
    conjuncts: &[&Expr],
) -> Vec<AccessCandidate> {
    let width = table.columns.len();
    let own = offset..offset + width + usize::from(rowid);
    let is_outer_value = |expr: &Expr| {
        !expr.reads_columns_in(own.clone()) && !matches!(expr, Expr::NextValue(_) | Expr::Rownum)
    };
    let mut candidates = Vec::new();
    if rowid {
        let rowid_column = offset + width;
        let by_rowid = conjuncts
            .iter()
            .enumerate()
            .find_map(|(position, conjunct)| {
                let Expr::Binary(left, BinaryOperator::Equal, right) = *conjunct else {
                    return None;
                };
                match (&**left, &**right) {
                    (Expr::Column(c), value) | (value, Expr::Column(c))
                        if *c == rowid_column && is_outer_value(value) =>
                    {
                        Some((value.clone(), position))
                    }
                    _ => None,
                }
            });
        if let Some((value, position)) = by_rowid {
            // The conjunct stays a filter: a rowid that names no row of this table finds
            // nothing, and one that does holds it by definition.
            candidates.push(AccessCandidate {
                access: Access::Rowid(value),
                implied: Vec::new(),
                used: vec![position],
                unique: true,
                score: 2000,
            });
        }
    }
    // A constant that is not text cannot probe a text column's index: the comparison
    // converts the column (see `Probe::Unusable`, which catches binds at execution).
    let probes = |column: usize, value: &Expr| match value {
        Expr::Constant(constant) => {
            constant.is_null()
                || matches!(constant, Value::Text(_))
                || !matches!(
                    table.columns[column].data_type,
                    DataType::Varchar2 { .. } | DataType::Char { .. }
                )
        }
        _ => true,
    };
    // (column, op, value) facts from the conjuncts, each with the position of the conjunct
    // that states it; the first fact of a kind on a column wins.
    let mut equal: HashMap<usize, (Expr, usize)> = HashMap::new();
    let mut lower: HashMap<usize, ((Expr, bool), usize)> = HashMap::new();
    let mut upper: HashMap<usize, ((Expr, bool), usize)> = HashMap::new();
    let mut in_lists: HashMap<usize, (Vec<Expr>, usize)> = HashMap::new();
    // Facts each conjunct states (a BETWEEN states two).
    let mut stated = vec![0usize; conjuncts.len()];
    for (position, conjunct) in conjuncts.iter().enumerate() {
        match *conjunct {
            Expr::Binary(left, op, right) => {
                let (column, op, value) = match (&**left, &**right) {
                    (Expr::Column(c), value)
                        if (offset..offset + width).contains(c) && is_outer_value(value) =>
                    {
                        (c - offset, *op, value.clone())
                    }
                    (value, Expr::Column(c))
                        if (offset..offset + width).contains(c) && is_outer_value(value) =>
                    {
                        (c - offset, op.mirrored(), value.clone())
                    }
                    _ => continue,
                };
                if !probes(column, &value) {
                    continue;
                }
                stated[position] = 1;
                match op {
                    BinaryOperator::Equal => {
                        equal.entry(column).or_insert((value, position));
                    }
                    BinaryOperator::Greater => {
                        lower.entry(column).or_insert(((value, false), position));
                    }
                    BinaryOperator::GreaterOrEqual => {
                        lower.entry(column).or_insert(((value, true), position));
                    }
                    BinaryOperator::Less => {
                        upper.entry(column).or_insert(((value, false), position));
                    }
                    BinaryOperator::LessOrEqual => {
                        upper.entry(column).or_insert(((value, true), position));
                    }
                    _ => stated[position] = 0,
                }
            }
            Expr::Between {
                expr,
                low,
                high,
                negated: false,
            } => {
                if let Expr::Column(c) = **expr {
                    if (offset..offset + width).contains(&c)
                        && is_outer_value(low)
                        && is_outer_value(high)
                        && probes(c - offset, low)
                        && probes(c - offset, high)
                    {
                        stated[position] = 2;
                        lower
                            .entry(c - offset)
                            .or_insert((((**low).clone(), true), position));
                        upper
                            .entry(c - offset)
                            .or_insert((((**high).clone(), true), position));
                    }
                }
            }
            Expr::InList {
                expr,
                list,
                negated: false,
                ..
            } => {
                if let Expr::Column(c) = **expr {
                    if (offset..offset + width).contains(&c)
                        && list.len() <= IN_LIST_PROBES_MAX
                        && list
                            .iter()
                            .all(|item| is_outer_value(item) && probes(c - offset, item))
                    {
                        stated[position] = 1;
                        in_lists
                            .entry(c - offset)
                            .or_insert((list.clone(), position));
                    }
                }
            }
            _ => {}
        }
    }
    for index in &table.indexes {
        let mut prefix = Vec::new();
        let mut used = Vec::new();
        for column in &index.columns {
            match equal.get(column) {
                Some((value, position)) => {
                    prefix.push(value.clone());
                    used.push(*position);
                }
                None => break,
            }
        }
        // A range on the next column, if it is kept ascending (a descending column's range
        // would run backwards through the keys: only its equalities are used).
        let next = index
            .columns
            .get(prefix.len())
            .copied()
            .filter(|_| !index.descending[prefix.len()]);
        let mut range_lower = next.and_then(|column| lower.get(&column).cloned());
        let mut range_upper = next.and_then(|column| upper.get(&column).cloned());
        // An IN list on the next column instead of a range: one probe per value.
        let in_list = match index
            .columns
            .get(prefix.len())
            .and_then(|c| in_lists.get(c))
        {
            Some((values, position)) if range_lower.is_none() && range_upper.is_none() => {
                used.push(*position);
                values.clone()
            }
            _ => Vec::new(),
        };
        if !in_list.is_empty() {
            range_lower = None;
            range_upper = None;
        }
        if prefix.is_empty() && range_lower.is_none() && range_upper.is_none() && in_list.is_empty()
        {
            continue;
        }
        let probed = prefix.len() + !in_list.is_empty() as usize;
        let full_unique = index.unique && probed == index.columns.len();
        let score = if full_unique {
            1000
        } else {
            (prefix.len() as u32) * 10
                + !in_list.is_empty() as u32 * 6
                + range_lower.is_some() as u32 * 3
                + range_upper.is_some() as u32 * 3
                + index.unique as u32
        };
        let (lower, upper) = if full_unique {
            (None, None)
        } else {
            (range_lower, range_upper)
        };
        used.extend(
            lower
                .iter()
                .chain(upper.iter())
                .map(|(_, position)| *position),
        );
        // A conjunct is implied when every fact it states is part of the key range.
        let mut implied: Vec<usize> = used
            .iter()
            .copied()
            .filter(|position| {
                used.iter().filter(|used| *used == position).count() == stated[*position]
            })
            .collect();
        implied.sort_unstable();
        implied.dedup();
        candidates.push(AccessCandidate {
            access: Access::Index {
                index: index.clone(),
                equal: prefix,
                in_list,
                lower: lower.map(|(bound, _)| bound),
                upper: upper.map(|(bound, _)| bound),
            },
            implied,
            used,
            unique: full_unique,
            score,
        });
    }
    candidates
}

#[cfg(test)]
mod tests {
    use super::super::plan::PlannedRows;
    use super::super::testing;
    use super::*;

    fn planned(offset: usize, name: &str) -> Source {
        let plan = testing::plan(1);
        Source::new(
            SourceKind::Planned(Arc::new(PlannedRows::Query(Box::new(plan)))),
            offset,
            1,
            name.to_string(),
            false,
        )
    }

    fn equal(left: usize, right: usize) -> Expr {
        Expr::Binary(
            Box::new(Expr::Column(left)),
            BinaryOperator::Equal,
            Box::new(Expr::Column(right)),
        )
    }

    fn numbers(count: usize) -> Scope {
        let names = ["A", "B", "C", "D"];
        let columns: Vec<(&str, &str, DataType)> = names[..count]
            .iter()
            .map(|name| (*name, *name, DataType::number()))
            .collect();
        testing::scope(&columns)
    }

    #[test]
    fn by_rule_a_planned_source_after_the_first_is_hashed_when_joined_else_buffered() {
        let mut joined = vec![testing::rows_source(0, 1, "A"), planned(1, "B")];
        joined[1].filters.push(equal(1, 0));
        choose_joins_by_rule(&mut joined, &numbers(2));
        assert!(matches!(&joined[1].join, Join::Hash(keys) if keys == &[(1, 0)]));
        let mut apart = vec![testing::rows_source(0, 1, "A"), planned(1, "B")];
        choose_joins_by_rule(&mut apart, &numbers(2));
        assert!(matches!(apart[1].join, Join::Cartesian));
    }

    #[test]
    fn by_rule_rows_and_the_first_source_are_nested_loops() {
        let mut sources = vec![planned(0, "A"), testing::rows_source(1, 1, "B")];
        sources[1].filters.push(equal(1, 0));
        choose_joins_by_rule(&mut sources, &numbers(2));
        assert!(matches!(sources[0].join, Join::NestedLoops));
        assert!(matches!(sources[1].join, Join::NestedLoops));
    }

    #[test]
    fn each_source_after_the_first_is_one_a_conjunct_connects_to_those_before() {
        // FROM a, c, b WHERE a = b AND b = c: b goes before c.
        let mut sources = vec![
            testing::rows_source(0, 1, "A"),
            testing::rows_source(1, 1, "C"),
            testing::rows_source(2, 1, "B"),
        ];
        sources[2].filters.push(equal(0, 2));
        sources[1].filters.push(equal(2, 1));
        order_connected(&mut sources);
        let order: Vec<&str> = sources.iter().map(|source| source.name.as_str()).collect();
        assert_eq!(order, ["A", "B", "C"]);
        // Each conjunct is at the level where its columns are bound.
        assert!(sources[0].filters.is_empty());
        assert!(matches!(sources[1].filters.as_slice(), [filter] if filter.reads_columns_in(0..1)));
        assert!(matches!(sources[2].filters.as_slice(), [filter] if filter.reads_columns_in(1..2)));
    }

    #[test]
    fn sources_no_conjunct_connects_keep_from_order() {
        let mut sources = vec![
            testing::rows_source(0, 1, "A"),
            testing::rows_source(1, 1, "C"),
            testing::rows_source(2, 1, "B"),
        ];
        order_connected(&mut sources);
        let order: Vec<&str> = sources.iter().map(|source| source.name.as_str()).collect();
        assert_eq!(order, ["A", "C", "B"]);
    }
}
