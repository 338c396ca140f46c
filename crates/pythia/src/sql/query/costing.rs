//! Cost-based planning of a query block: the join order, each source's access path and
//! each join's method, by the estimates of `sql::optimizer`. The rule-based planner
//! (`rule.rs`) is what runs under `optimizer_mode = RULE` (and CHOOSE without
//! statistics); this one replaces its ordering, access and hash-join rules otherwise.

use std::ops::Range;
use std::sync::Arc;

use super::plan::{Access, Join, MergeKey, PlannedRows, QueryPlan, Source, SourceKind};
use super::planner::{level_of, split_implied};
use super::reader::Reader;
use super::resolve::Scope;
use super::rule::access_candidates;
use crate::access::segment;
use crate::catalog::TableDef;
use crate::sql::eval::Expr;
use crate::sql::optimizer::{
    self, Estimate, OptimizerEnvironment, ScopeFacts, SourceFacts, DEFAULT_BOUNDED_RANGE,
    DEFAULT_COLLECTION_ROWS, DEFAULT_EQUALITY, DEFAULT_RANGE, DEFAULT_VIEW_ROWS, ROW_CPU,
};
use crate::syntax::ast::BinaryOperator;
use crate::types::DataType;

/// What a source's access is estimated to yield and cost: the table step (per execution of
/// the access: per outer row under nested loops) and the index step under it.
#[derive(Clone, Copy, Debug)]
pub(super) struct AccessEstimate {
    pub table: Estimate,
    pub index: Option<Estimate>,
}

/// A level's plan, and what it is estimated to cost (cumulative) and yield.
struct LevelChoice {
    access: Access,
    /// Positions in the level's conditions that the access's key range implies.
    implied: Vec<usize>,
    access_estimate: AccessEstimate,
    join: Join,
    estimate: Estimate,
}

/// What costing a query block reads: its scope (column types), the facts of its sources
/// and the session's optimizer parameters.
pub(super) struct Costing<'c> {
    pub scope: &'c Scope,
    pub facts: &'c ScopeFacts,
    pub environment: &'c OptimizerEnvironment,
}

/// What the plan so far yields before the first level: one empty row, at no cost.
const NOTHING_YET: Estimate = Estimate {
    cost: 0.0,
    rows: 1.0,
    bytes: 0.0,
};

/// Whether a FROM list's plan is costed: by the session's optimizer mode and, for CHOOSE,
/// whether one of its tables has statistics.
pub(super) fn costed(environment: &OptimizerEnvironment, sources: &[Source]) -> bool {
    environment.costs(sources.iter().any(|source| {
        matches!(&source.kind, SourceKind::Table { table, .. } if table.statistics.is_some())
    }))
}

/// The facts of every source of a query block, found by column position.
pub(super) fn scope_facts(reader: &Reader, sources: &[Source]) -> ScopeFacts {
    ScopeFacts {
        sources: sources
            .iter()
            .map(|source| (source.offset, source_facts(reader, source)))
            .collect(),
    }
}

fn source_facts(reader: &Reader, source: &Source) -> SourceFacts {
    match &source.kind {
        SourceKind::Table { table, .. } => {
            let mut facts = optimizer::table_facts(
                table,
                || {
                    segment::allocated_blocks(
                        &reader.storage.cache,
                        table.segment,
                        table.buffer_pool,
                    )
                    .ok()
                },
                &reader.optimizer,
            );
            if source.rowid.is_some() {
                // The ROWID pseudo-column: a distinct value per row, never NULL.
                facts.columns.push(optimizer::ColumnFacts {
                    distinct: Some(facts.rows.max(1.0)),
                    len: 18.0,
                    ..optimizer::ColumnFacts::default()
                });
            }
            facts
        }
        SourceKind::Rows(rows, _) => optimizer::row_facts(rows.len() as f64, source.width),
        SourceKind::Series(series) => optimizer::row_facts(
            series.constant_rows().unwrap_or(DEFAULT_COLLECTION_ROWS),
            source.width,
        ),
        SourceKind::Planned(planned) => {
            optimizer::row_facts(planned_estimate(planned).rows, source.width)
        }
    }
}

/// What one execution of a planned source (inline view, set operation) costs and yields.
pub(super) fn planned_estimate(planned: &PlannedRows) -> Estimate {
    match planned {
        PlannedRows::Query(plan) => plan.estimate.unwrap_or(Estimate {
            cost: 0.0,
            rows: DEFAULT_VIEW_ROWS,
            bytes: DEFAULT_VIEW_ROWS * 20.0 * plan.columns.len() as f64,
        }),
        PlannedRows::SetOperation { left, right, .. } => {
            let (left, right) = (planned_estimate(left), planned_estimate(right));
            Estimate {
                cost: left.cost + right.cost,
                rows: left.rows + right.rows,
                bytes: left.bytes + right.bytes,
            }
        }
    }
}

fn own_range(source: &Source) -> Range<usize> {
    source.offset..source.offset + source.width
}

fn facts_of<'f>(facts: &'f ScopeFacts, source: &Source) -> &'f SourceFacts {
    &facts
        .sources
        .iter()
        .find(|(offset, _)| *offset == source.offset)
        .expect("every source has facts")
        .1
}

/// Whether `expr` reads a column outside `own`.
fn reads_outside(expr: &Expr, own: &Range<usize>) -> bool {
    expr.reads_columns_in(0..own.start) || expr.reads_columns_in(own.end..usize::MAX)
}

/// The fraction of the source's rows one execution of its access keeps for `condition`:
/// a value from an earlier source (a join predicate used for lookup) is one unknown value,
/// not the join's selectivity over all pairs.
fn probe_selectivity(facts: &ScopeFacts, condition: &Expr, own: &Range<usize>) -> f64 {
    if !reads_outside(condition, own) {
        return facts.selectivity(condition);
    }
    match condition {
        Expr::Binary(left, op, right) if op.is_comparison() => {
            let column = match (&**left, &**right) {
                (Expr::Column(c), value) | (value, Expr::Column(c))
                    if own.contains(c) && !value.reads_columns_in(own.clone()) =>
                {
                    Some(*c)
                }
                _ => None,
            };
            let equality = |column: usize| {
                facts
                    .column(column)
                    .map_or(DEFAULT_EQUALITY, |facts| facts.equality())
            };
            match (column, op) {
                (Some(column), BinaryOperator::Equal) => equality(column),
                (Some(column), BinaryOperator::NotEqual) => 1.0 - equality(column),
                (Some(_), _) => DEFAULT_RANGE,
                (None, _) => facts.selectivity(condition),
            }
        }
        Expr::Between { expr, .. } if matches!(**expr, Expr::Column(c) if own.contains(&c)) => {
            DEFAULT_BOUNDED_RANGE
        }
        _ => facts.selectivity(condition),
    }
}

/// A scan of the whole source (no index), keeping `selectivity` of its rows.
fn scan_estimate(
    source: &Source,
    own: &SourceFacts,
    selectivity: f64,
    environment: &OptimizerEnvironment,
) -> Estimate {
    let rows = own.rows * selectivity;
    let bytes = rows * own.row_len;
    match &source.kind {
        SourceKind::Table { .. } => optimizer::full_scan(own, selectivity, environment),
        SourceKind::Rows(..) | SourceKind::Series(_) => Estimate {
            cost: own.rows * ROW_CPU,
            rows,
            bytes,
        },
        SourceKind::Planned(planned) => Estimate {
            cost: planned_estimate(planned).cost + own.rows * ROW_CPU,
            rows,
            bytes,
        },
    }
}

/// The cheapest way to read a source given `conditions`, the conjuncts evaluable when it is
/// read: a full scan, or one of its indexes with a key range from them.
fn cheapest_access(
    source: &Source,
    conditions: &[&Expr],
    facts: &ScopeFacts,
    environment: &OptimizerEnvironment,
) -> (Access, Vec<usize>, AccessEstimate) {
    let own = facts_of(facts, source);
    let range = own_range(source);
    let selectivities: Vec<f64> = conditions
        .iter()
        .map(|condition| probe_selectivity(facts, condition, &range))
        .collect();
    let selectivity: f64 = selectivities.iter().product();
    let scan = scan_estimate(source, own, selectivity, environment);
    let mut best = (
        Access::Full,
        Vec::new(),
        AccessEstimate {
            table: scan,
            index: None,
        },
    );
    let SourceKind::Table { table, .. } = &source.kind else {
        return best;
    };
    for candidate in access_candidates(table, source.offset, source.rowid.is_some(), conditions) {
        if let Access::Rowid(_) = candidate.access {
            // One block, one row: cheaper than any index.
            let row_bytes = best.2.table.bytes / best.2.table.rows.max(1.0);
            return (
                candidate.access,
                candidate.implied,
                AccessEstimate {
                    table: Estimate {
                        cost: 1.0,
                        rows: 1.0,
                        bytes: row_bytes,
                    },
                    index: None,
                },
            );
        }
        let mut used = candidate.used.clone();
        used.sort_unstable();
        used.dedup();
        let key_selectivity: f64 = used
            .iter()
            .map(|position| selectivities[*position])
            .product();
        let Access::Index { index, in_list, .. } = &candidate.access else {
            continue;
        };
        let statistics = optimizer::index_statistics(table, index, own);
        let (index_step, table_step) = optimizer::index_access(
            &statistics,
            own,
            key_selectivity,
            selectivity,
            candidate.unique,
            in_list.len().max(1) as f64,
            environment,
        );
        if table_step.cost < best.2.table.cost {
            best = (
                candidate.access,
                candidate.implied,
                AccessEstimate {
                    table: table_step,
                    index: Some(index_step),
                },
            );
        }
    }
    best
}

/// The join keys a level's conditions offer: column equalities with earlier sources (for a
/// hash join), and one comparison of a column with an earlier one (for a merge join, an
/// equality first), each between columns of one type kind.
pub(super) fn join_keys(
    source: &Source,
    conditions: &[&Expr],
    scope: &Scope,
) -> (Vec<(usize, usize)>, Option<MergeKey>) {
    let own = own_range(source);
    let same_kind =
        |a: usize, b: usize| match (scope.columns[a].data_type, scope.columns[b].data_type) {
            (Some(a), Some(b)) => {
                a.family() == b.family()
                    && !matches!(a, DataType::Char { .. })
                    && !matches!(b, DataType::Char { .. })
            }
            _ => false,
        };
    let mut hash = Vec::new();
    let mut merge: Option<MergeKey> = None;
    for condition in conditions {
        let Expr::Binary(left, op, right) = condition else {
            continue;
        };
        let (Expr::Column(a), Expr::Column(b)) = (&**left, &**right) else {
            continue;
        };
        let (inner, outer, op) = if own.contains(a) && !own.contains(b) {
            (*a, *b, *op)
        } else if own.contains(b) && !own.contains(a) {
            (*b, *a, op.mirrored())
        } else {
            continue;
        };
        if !same_kind(inner, outer) {
            continue;
        }
        match op {
            BinaryOperator::Equal => {
                hash.push((inner, outer));
                if merge.is_none_or(|key| key.op != BinaryOperator::Equal) {
                    merge = Some(MergeKey { inner, outer, op });
                }
            }
            BinaryOperator::Less
            | BinaryOperator::LessOrEqual
            | BinaryOperator::Greater
            | BinaryOperator::GreaterOrEqual => {
                merge.get_or_insert(MergeKey { inner, outer, op });
            }
            _ => {}
        }
    }
    (hash, merge)
}

/// The best plan for joining `source` to the rows before it (`before`), given `conditions`
/// (its WHERE conjuncts at this level, or an outer join's ON conditions) and `after` (an
/// outer join's WHERE conjuncts, applied after padding).
fn level_choice(
    costing: &Costing,
    source: &Source,
    conditions: &[&Expr],
    after: &[&Expr],
    before: Estimate,
) -> LevelChoice {
    let Costing {
        scope,
        facts,
        environment,
    } = *costing;
    let first = before == NOTHING_YET;
    let (access, implied, access_estimate) =
        cheapest_access(source, conditions, facts, environment);
    let mut best = LevelChoice {
        access,
        implied,
        access_estimate,
        join: Join::NestedLoops,
        estimate: Estimate {
            cost: optimizer::nested_loops(before, access_estimate.table),
            ..Estimate::default()
        },
    };
    if !first {
        // The source read once, by its own conditions alone, for a hash, a merge or a
        // cartesian join.
        let range = own_range(source);
        let alone: Vec<usize> = (0..conditions.len())
            .filter(|position| !reads_outside(conditions[*position], &range))
            .collect();
        // With no condition on earlier sources, that is the access already costed.
        let (access, implied, access_estimate) = if alone.len() == conditions.len() {
            (
                best.access.clone(),
                best.implied.clone(),
                best.access_estimate,
            )
        } else {
            let alone_conditions: Vec<&Expr> =
                alone.iter().map(|position| conditions[*position]).collect();
            let (access, implied, estimate) =
                cheapest_access(source, &alone_conditions, facts, environment);
            let implied = implied.iter().map(|position| alone[*position]).collect();
            (access, implied, estimate)
        };
        let build = access_estimate.table;
        let (hash_keys, merge_key) = join_keys(source, conditions, scope);
        let mut methods = vec![(Join::Cartesian, optimizer::cartesian_join(before, build))];
        if !hash_keys.is_empty() {
            methods.push((Join::Hash(hash_keys), optimizer::hash_join(before, build)));
        }
        if let Some(key) = merge_key {
            methods.push((Join::Merge(key), optimizer::merge_join(before, build)));
        }
        for (join, cost) in methods {
            if cost < best.estimate.cost {
                best = LevelChoice {
                    access: access.clone(),
                    implied: implied.clone(),
                    access_estimate,
                    join,
                    estimate: Estimate {
                        cost,
                        ..Estimate::default()
                    },
                };
            }
        }
    }
    // Rows out: the pairs that pass every condition (join predicates at their join
    // selectivity); an outer join keeps at least every row before it.
    let own = facts_of(facts, source);
    let selectivity: f64 = conditions
        .iter()
        .map(|condition| facts.selectivity(condition))
        .product();
    let mut rows = before.rows * own.rows * selectivity;
    if source.outer {
        rows = rows.max(before.rows);
    }
    rows *= after
        .iter()
        .map(|condition| facts.selectivity(condition))
        .product::<f64>();
    let row_bytes = if before.rows > 0.0 {
        before.bytes / before.rows
    } else {
        0.0
    } + own.row_len;
    // Never fewer than one row, as Oracle estimates: a plan made for none would be
    // nested loops over whatever follows.
    let rows = rows.max(1.0);
    best.estimate.rows = rows;
    best.estimate.bytes = rows * row_bytes;
    best
}

/// Orders the sources of an inner join by cost: the cheapest left-deep order, found over
/// subsets of sources (each subset's cheapest plan extended by one more source), with each
/// level's cheapest access and join method. The WHERE conjuncts then move to the level
/// where their columns are bound in the new order.
pub(super) fn order_by_cost(sources: &mut Vec<Source>, costing: &Costing) {
    let count = sources.len();
    debug_assert!(count <= optimizer::JOIN_SEARCH_SOURCES_MAX);
    let mut filters = Vec::new();
    for source in sources.iter_mut() {
        filters.append(&mut source.filters);
    }
    let masks: Vec<u32> = filters
        .iter()
        .map(|filter| {
            sources
                .iter()
                .enumerate()
                .filter(|(_, source)| filter.reads_columns_in(own_range(source)))
                .fold(0u32, |mask, (position, _)| mask | 1 << position)
        })
        .collect();
    // best[subset]: the cheapest plan of that subset's sources, and its last source.
    let mut best: Vec<Option<(Estimate, usize)>> = vec![None; 1 << count];
    for subset in 1u32..(1 << count) {
        for (last, source) in sources.iter().enumerate() {
            if subset & (1 << last) == 0 {
                continue;
            }
            let rest = subset & !(1 << last);
            let before = if rest == 0 {
                NOTHING_YET
            } else {
                match best[rest as usize] {
                    Some((estimate, _)) => estimate,
                    None => continue,
                }
            };
            let conditions: Vec<&Expr> = filters
                .iter()
                .zip(&masks)
                .filter(|(_, mask)| {
                    *mask & !subset == 0 && (*mask & (1 << last) != 0 || (rest == 0 && **mask == 0))
                })
                .map(|(filter, _)| filter)
                .collect();
            let choice = level_choice(costing, source, &conditions, &[], before);
            if best[subset as usize].is_none_or(|(kept, _)| choice.estimate.cost < kept.cost) {
                best[subset as usize] = Some((choice.estimate, last));
            }
        }
    }
    let mut order = Vec::with_capacity(count);
    let mut subset = (1u32 << count) - 1;
    while subset != 0 {
        let (_, last) = best[subset as usize].expect("every subset has a plan");
        order.push(last);
        subset &= !(1 << last);
    }
    order.reverse();
    let mut taken: Vec<Option<Source>> = std::mem::take(sources).into_iter().map(Some).collect();
    *sources = order
        .into_iter()
        .map(|position| taken[position].take().expect("each source once"))
        .collect();
    for filter in filters {
        let level = level_of(sources, &filter);
        sources[level].filters.push(filter);
    }
}

/// Chooses each level's access path and join method by cost, in the sources' order, and
/// records the estimates EXPLAIN PLAN shows. Returns the estimate of the joined rows.
pub(super) fn choose_methods_by_cost(sources: &mut [Source], costing: &Costing) -> Estimate {
    let mut before = NOTHING_YET;
    for source in sources.iter_mut() {
        let choice = {
            let (conditions, after): (Vec<&Expr>, Vec<&Expr>) = if source.outer {
                (source.on.iter().collect(), source.filters.iter().collect())
            } else {
                (source.filters.iter().collect(), Vec::new())
            };
            level_choice(costing, source, &conditions, &after, before)
        };
        let outer = source.outer;
        if let SourceKind::Table { access, .. } = &mut source.kind {
            *access = choice.access;
            if !outer {
                split_implied(source, &choice.implied);
            }
        }
        source.join = choice.join;
        source.access_estimate = Some(choice.access_estimate);
        source.estimate = Some(choice.estimate);
        debug_assert!(choice.estimate.rows >= 1.0, "a level yields a row at least");
        before = choice.estimate;
    }
    before
}

/// What the steps above a query block's join yield: grouping, DISTINCT, ORDER BY, in the
/// order `query_node` adds them.
pub(super) fn estimates_above_join(
    plan: &QueryPlan,
    joined: Estimate,
    facts: &ScopeFacts,
) -> Vec<Estimate> {
    let mut steps = Vec::new();
    let mut current = joined;
    if let Some(grouped) = &plan.grouped {
        let groups = if grouped.keys.is_empty() {
            1.0
        } else {
            let distinct: Option<f64> = grouped
                .keys
                .iter()
                .map(|key| match key {
                    Expr::Column(column) => facts.column(*column).and_then(|facts| facts.distinct),
                    _ => None,
                })
                .product();
            distinct
                .unwrap_or(current.rows / 10.0)
                .min(current.rows)
                .max(1.0)
        };
        let width = plan.columns.len() as f64 * 20.0;
        current = Estimate {
            cost: current.cost + current.rows * optimizer::HASH_ROW_CPU,
            rows: groups,
            bytes: groups * width,
        };
        steps.push(current);
    }
    if plan.distinct {
        current.cost += current.rows * optimizer::HASH_ROW_CPU;
        steps.push(current);
    }
    if !plan.order_by.is_empty() {
        current.cost += optimizer::sort_cost(current.rows);
        steps.push(current);
    }
    if !plan.rownum_filters.is_empty() {
        steps.push(current);
    }
    steps
}

/// The access of an UPDATE or DELETE by cost; None when its table is planned by rule.
pub(super) fn table_access(
    reader: &Reader,
    table: &Arc<TableDef>,
    rowid: bool,
    conditions: &[&Expr],
) -> Option<(Access, AccessEstimate)> {
    let mut source = Source::new(
        SourceKind::Table {
            table: table.clone(),
            access: Access::Full,
            cache: None,
        },
        0,
        table.columns.len(),
        table.name.clone(),
        false,
    );
    if rowid {
        source.carry_rowid(table.object_id);
    }
    let sources = std::slice::from_ref(&source);
    if !costed(&reader.optimizer, sources) {
        return None;
    }
    let facts = scope_facts(reader, sources);
    let (access, _, estimate) = cheapest_access(&source, conditions, &facts, &reader.optimizer);
    Some((access, estimate))
}

#[cfg(test)]
mod tests {
    use super::super::plan::GroupedPlan;
    use super::super::testing;
    use super::*;
    use crate::sql::optimizer::{OptimizerMode, HASH_ROW_CPU};

    fn compare(left: usize, op: BinaryOperator, right: usize) -> Expr {
        Expr::Binary(
            Box::new(Expr::Column(left)),
            op,
            Box::new(Expr::Column(right)),
        )
    }

    /// Hash keys, and the merge key as (inner, outer, op).
    type Keys = (Vec<(usize, usize)>, Option<(usize, usize, BinaryOperator)>);

    /// The keys `conditions` offer for joining T2 (X NUMBER, Y VARCHAR2, Z CHAR: columns 2,
    /// 3, 4) to T1 (A NUMBER, B VARCHAR2: columns 0, 1).
    fn keys(conditions: &[Expr]) -> Keys {
        let scope = testing::scope(&[
            ("T1", "A", DataType::number()),
            ("T1", "B", DataType::varchar2(10)),
            ("T2", "X", DataType::number()),
            ("T2", "Y", DataType::varchar2(10)),
            ("T2", "Z", DataType::Char { length: 1 }),
        ]);
        let source = testing::rows_source(2, 3, "T2");
        let conditions: Vec<&Expr> = conditions.iter().collect();
        let (hash, merge) = join_keys(&source, &conditions, &scope);
        (hash, merge.map(|key| (key.inner, key.outer, key.op)))
    }

    #[test]
    fn an_equality_with_an_earlier_column_of_the_same_kind_is_a_hash_and_a_merge_key() {
        use BinaryOperator::Equal;
        assert_eq!(
            keys(&[compare(2, Equal, 0)]),
            (vec![(2, 0)], Some((2, 0, Equal)))
        );
        assert_eq!(
            keys(&[compare(0, Equal, 2)]),
            (vec![(2, 0)], Some((2, 0, Equal)))
        );
        assert_eq!(
            keys(&[compare(2, Equal, 0), compare(3, Equal, 1)]),
            (vec![(2, 0), (3, 1)], Some((2, 0, Equal)))
        );
    }

    #[test]
    fn columns_of_other_kinds_char_columns_and_non_joins_are_no_keys() {
        use BinaryOperator::{Equal, NotEqual};
        let none = (Vec::new(), None);
        assert_eq!(keys(&[compare(3, Equal, 0)]), none); // VARCHAR2 = NUMBER
        assert_eq!(keys(&[compare(4, Equal, 1)]), none); // CHAR
        assert_eq!(keys(&[compare(2, Equal, 3)]), none); // both of T2
        assert_eq!(keys(&[compare(0, Equal, 1)]), none); // both of T1
        assert_eq!(keys(&[compare(2, NotEqual, 0)]), none);
    }

    #[test]
    fn an_inequality_is_a_merge_key_only_and_an_equality_takes_its_place() {
        use BinaryOperator::{Equal, Greater, Less};
        // `a < x` is `x > a` from T2's side.
        assert_eq!(
            keys(&[compare(0, Less, 2)]),
            (Vec::new(), Some((2, 0, Greater)))
        );
        assert_eq!(
            keys(&[compare(2, Less, 0), compare(3, Equal, 1)]),
            (vec![(3, 1)], Some((3, 1, Equal)))
        );
    }

    /// T1 (A: column 0) of 1000 rows joined to `second` (X: column 1) of `second_rows` rows,
    /// with `condition` at the second level: the sources as costed, and the joined estimate.
    fn cost_join(
        second: Source,
        second_rows: f64,
        condition: Option<Expr>,
    ) -> (Vec<Source>, Estimate) {
        let scope = testing::scope(&[
            ("T1", "A", DataType::number()),
            ("T2", "X", DataType::number()),
        ]);
        let mut sources = vec![testing::rows_source(0, 1, "T1"), second];
        sources[1].filters.extend(condition);
        let facts = ScopeFacts {
            sources: vec![
                (0, optimizer::row_facts(1000.0, 1)),
                (1, optimizer::row_facts(second_rows, 1)),
            ],
        };
        let environment = OptimizerEnvironment::default();
        let costing = Costing {
            scope: &scope,
            facts: &facts,
            environment: &environment,
        };
        let joined = choose_methods_by_cost(&mut sources, &costing);
        (sources, joined)
    }

    #[test]
    fn an_equijoin_of_two_large_inputs_is_hashed() {
        let condition = compare(1, BinaryOperator::Equal, 0);
        let (sources, joined) =
            cost_join(testing::rows_source(1, 1, "T2"), 1000.0, Some(condition));
        assert!(matches!(sources[0].join, Join::NestedLoops));
        assert!(matches!(&sources[1].join, Join::Hash(keys) if keys == &[(1, 0)]));
        let first = sources[0].estimate.unwrap();
        let build = sources[1].access_estimate.unwrap().table;
        // Each side read once, 1000 rows at ROW_CPU: the hash join's cost, far below the
        // 1000 scans of nested loops.
        assert_eq!(first.cost, 1000.0 * ROW_CPU);
        assert_eq!(joined.cost, optimizer::hash_join(first, build));
        assert!(joined.cost < optimizer::nested_loops(first, build));
        assert_eq!(sources[1].estimate, Some(joined));
    }

    #[test]
    fn an_inequality_join_of_two_large_inputs_is_merged() {
        let condition = compare(1, BinaryOperator::Greater, 0);
        let (sources, joined) =
            cost_join(testing::rows_source(1, 1, "T2"), 1000.0, Some(condition));
        assert!(matches!(
            sources[1].join,
            Join::Merge(MergeKey {
                inner: 1,
                outer: 0,
                op: BinaryOperator::Greater
            })
        ));
        let first = sources[0].estimate.unwrap();
        let build = sources[1].access_estimate.unwrap().table;
        assert_eq!(joined.cost, optimizer::merge_join(first, build));
    }

    #[test]
    fn with_no_join_condition_rows_are_looped_over_and_a_costly_view_is_buffered() {
        // Rows read at planning time cost only their CPU: nested loops repeat it, where a
        // buffer would add its own reading to the same pairs.
        let (sources, _) = cost_join(testing::rows_source(1, 1, "T2"), 1000.0, None);
        assert!(matches!(sources[1].join, Join::NestedLoops));
        // An inline view of cost 5 would run for each of the 1000 rows: it is read once.
        let mut view = testing::plan(1);
        view.estimate = Some(Estimate {
            cost: 5.0,
            rows: 10.0,
            bytes: 200.0,
        });
        let planned = Source::new(
            SourceKind::Planned(Arc::new(PlannedRows::Query(Box::new(view)))),
            1,
            1,
            "V".to_string(),
            false,
        );
        let (sources, joined) = cost_join(planned, 10.0, None);
        assert!(matches!(sources[1].join, Join::Cartesian));
        let first = sources[0].estimate.unwrap();
        let build = sources[1].access_estimate.unwrap().table;
        assert_eq!(build.cost, 5.0 + 10.0 * ROW_CPU);
        assert_eq!(joined.cost, optimizer::cartesian_join(first, build));
    }

    #[test]
    fn a_view_without_an_estimate_has_the_default_rows_and_a_set_operation_adds_its_branches() {
        let plan = testing::plan(3);
        let estimate = planned_estimate(&PlannedRows::Query(Box::new(plan)));
        assert_eq!(
            estimate,
            Estimate {
                cost: 0.0,
                rows: DEFAULT_VIEW_ROWS,
                bytes: DEFAULT_VIEW_ROWS * 20.0 * 3.0,
            }
        );
        let branch = |cost, rows, bytes| {
            let mut plan = testing::plan(1);
            plan.estimate = Some(Estimate { cost, rows, bytes });
            Box::new(PlannedRows::Query(Box::new(plan)))
        };
        let union = PlannedRows::SetOperation {
            op: crate::syntax::ast::SetOperator::Union,
            left: branch(1.0, 10.0, 100.0),
            right: branch(2.0, 20.0, 300.0),
        };
        assert_eq!(
            planned_estimate(&union),
            Estimate {
                cost: 3.0,
                rows: 30.0,
                bytes: 400.0,
            }
        );
    }

    const JOINED: Estimate = Estimate {
        cost: 1.0,
        rows: 1000.0,
        bytes: 20_000.0,
    };

    fn grouped_by(keys: Vec<Expr>) -> QueryPlan {
        let mut plan = testing::plan(1);
        plan.grouped = Some(GroupedPlan {
            keys,
            aggregates: Vec::new(),
            having: None,
        });
        plan
    }

    /// Facts of one source whose column 0 has `distinct` values.
    fn facts_with_distinct(distinct: Option<f64>) -> ScopeFacts {
        let mut facts = optimizer::row_facts(JOINED.rows, 1);
        facts.columns[0].distinct = distinct;
        ScopeFacts {
            sources: vec![(0, facts)],
        }
    }

    #[test]
    fn an_aggregate_without_keys_yields_one_row_after_hashing_every_row() {
        let steps = estimates_above_join(&grouped_by(Vec::new()), JOINED, &ScopeFacts::default());
        assert_eq!(
            steps,
            [Estimate {
                cost: JOINED.cost + JOINED.rows * HASH_ROW_CPU,
                rows: 1.0,
                bytes: 20.0,
            }]
        );
    }

    #[test]
    fn groups_are_the_keys_distinct_values_else_a_tenth_of_the_rows_never_more_than_the_rows() {
        let groups = |keys: Vec<Expr>, distinct| {
            estimates_above_join(&grouped_by(keys), JOINED, &facts_with_distinct(distinct))[0].rows
        };
        assert_eq!(groups(vec![Expr::Column(0)], Some(50.0)), 50.0);
        assert_eq!(groups(vec![Expr::Column(0)], Some(5000.0)), 1000.0);
        assert_eq!(groups(vec![Expr::Column(0)], None), 100.0);
        let computed = Expr::Binary(
            Box::new(Expr::Column(0)),
            BinaryOperator::Add,
            Box::new(Expr::Column(0)),
        );
        assert_eq!(groups(vec![computed], Some(50.0)), 100.0);
    }

    #[test]
    fn distinct_hashes_order_by_sorts_and_rownum_adds_nothing() {
        let mut plan = testing::plan(1);
        plan.distinct = true;
        plan.order_by = vec![(Expr::Column(0), false, false)];
        plan.rownum_filters = vec![Expr::Column(0)];
        let steps = estimates_above_join(&plan, JOINED, &ScopeFacts::default());
        let distinct = Estimate {
            cost: JOINED.cost + JOINED.rows * HASH_ROW_CPU,
            ..JOINED
        };
        let sorted = Estimate {
            cost: distinct.cost + optimizer::sort_cost(JOINED.rows),
            ..JOINED
        };
        assert_eq!(steps, [distinct, sorted, sorted]);
    }

    #[test]
    fn the_optimizer_mode_decides_whether_a_block_is_costed() {
        let sources = [testing::rows_source(0, 1, "V$SESSION")];
        let costed_in = |mode| {
            let environment = OptimizerEnvironment {
                mode,
                ..OptimizerEnvironment::default()
            };
            costed(&environment, &sources)
        };
        assert!(!costed_in(OptimizerMode::Rule));
        // CHOOSE costs only a block one of whose tables has statistics.
        assert!(!costed_in(OptimizerMode::Choose));
        assert!(costed_in(OptimizerMode::AllRows));
        assert!(costed_in(OptimizerMode::FirstRows));
    }
}
