//! The cost model of the cost-based optimizer: how many rows a step yields and what it
//! costs, from the statistics ANALYZE and DBMS_STATS gather (`catalog::statistics`) or,
//! for an object without them, Oracle's default statistics. `sql::query` enumerates the
//! plans (access paths, join orders, join methods) and keeps the cheapest;
//! docs/architecture/optimizer.md describes the model and its choices.
//!
//! Costs are in Oracle's unit, the time of one single-block read: a full scan costs its
//! blocks divided by an effective multiblock read count, an index access its branch levels
//! plus the leaf blocks and table blocks its key range covers, and CPU work (rows
//! filtered, hashed, compared) is converted into the same unit.

use crate::catalog::statistics::IndexStatistics;
use crate::catalog::{IndexDef, TableDef};
use crate::parameters::{names, Parameters};
use crate::sql::eval::Expr;
use crate::syntax::ast::{BinaryOperator, UnaryOperator};
use crate::types::Value;

/// Sources of one FROM list whose join order is searched exhaustively (over subsets, as
/// Selinger's System R optimizer): beyond it, FROM order joined by connecting conjuncts.
pub const JOIN_SEARCH_SOURCES_MAX: usize = 10;

/// Oracle's selectivities for predicates it has no statistics for.
pub const DEFAULT_EQUALITY: f64 = 0.01;
pub const DEFAULT_RANGE: f64 = 0.05;
/// `col BETWEEN :a AND :b`: two open ranges (5% of 5%).
pub const DEFAULT_BOUNDED_RANGE: f64 = 0.0025;
pub const DEFAULT_IS_NULL: f64 = 0.01;
/// LIKE and any other predicate the model does not read.
pub const DEFAULT_OTHER: f64 = 0.05;
/// Blocks assumed at least for a table without statistics (Oracle's default is 100 when it
/// cannot read the extent map).
pub const DEFAULT_BLOCKS: u64 = 100;
/// Average row length assumed for a table without statistics, in bytes.
pub const DEFAULT_ROW_LEN: f64 = 100.0;
/// Index statistics assumed for an index without them (Oracle's defaults).
pub const DEFAULT_INDEX: IndexStatistics = IndexStatistics {
    blevel: 1,
    leaf_blocks: 25,
    distinct_keys: 100,
    num_rows: 0,
    clustering_factor: 800,
    last_analyzed: 0,
};
/// Rows a view or table function is assumed to return when nothing better is known.
pub const DEFAULT_VIEW_ROWS: f64 = 100.0;

/// Rows assumed of a table function whose arguments are not known at planning time
/// (Oracle's default cardinality of a collection: 8168 rows).
pub const DEFAULT_COLLECTION_ROWS: f64 = 8168.0;

/// CPU cost of reading and filtering one row, in single-block reads (about 50,000 rows take
/// as long as one random read).
pub const ROW_CPU: f64 = 1.0 / 50_000.0;
/// CPU cost of putting a row into a hash table or probing it.
pub const HASH_ROW_CPU: f64 = 2.0 * ROW_CPU;
/// CPU cost of one comparison in a sort or a binary search.
pub const COMPARE_CPU: f64 = ROW_CPU / 2.0;

/// `optimizer_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerMode {
    /// Costs, for the best throughput (the default).
    AllRows,
    /// Costs, as ALL_ROWS (no first-rows goal is modelled).
    FirstRows,
    /// Costs when a table of the statement has statistics, rules otherwise (Oracle 8i/9i).
    Choose,
    /// Rules only: access paths ranked by kind, FROM order joined by connecting conjuncts.
    Rule,
}

impl OptimizerMode {
    pub fn name(self) -> &'static str {
        match self {
            OptimizerMode::AllRows => "ALL_ROWS",
            OptimizerMode::FirstRows => "FIRST_ROWS",
            OptimizerMode::Choose => "CHOOSE",
            OptimizerMode::Rule => "RULE",
        }
    }
}

/// The parameters plans are costed with (a session's, when it plans).
#[derive(Clone, Copy, Debug)]
pub struct OptimizerEnvironment {
    pub mode: OptimizerMode,
    /// `_db_file_optimizer_read_count`: blocks per multiblock read, for costing.
    pub read_count: u32,
    /// `optimizer_index_cost_adj`: index access costs are scaled by this percentage.
    pub index_cost_adj: u32,
    pub block_size: usize,
}

impl OptimizerEnvironment {
    /// A digest of everything here: child cursors are shared by equal digests.
    pub fn digest(&self) -> u64 {
        (self.mode as u64) << 56
            ^ (u64::from(self.read_count) << 40)
            ^ (u64::from(self.index_cost_adj) << 24)
            ^ self.block_size as u64
    }

    pub fn from_parameters(parameters: &Parameters, block_size: usize) -> OptimizerEnvironment {
        let mode = match parameters.get_string(names::OPTIMIZER_MODE).as_str() {
            "RULE" => OptimizerMode::Rule,
            "CHOOSE" => OptimizerMode::Choose,
            "FIRST_ROWS" => OptimizerMode::FirstRows,
            _ => OptimizerMode::AllRows,
        };
        OptimizerEnvironment {
            mode,
            read_count: parameters.get_integer(names::DB_FILE_OPTIMIZER_READ_COUNT) as u32,
            index_cost_adj: parameters.get_integer(names::OPTIMIZER_INDEX_COST_ADJ) as u32,
            block_size,
        }
    }

    /// Whether a statement is costed, given whether one of its tables has statistics.
    pub fn costs(&self, any_statistics: bool) -> bool {
        match self.mode {
            OptimizerMode::Rule => false,
            OptimizerMode::Choose => any_statistics,
            OptimizerMode::AllRows | OptimizerMode::FirstRows => true,
        }
    }

    /// The blocks one multiblock read is worth in cost: Oracle's I/O cost model divides a
    /// scan's blocks not by the read count itself but by this smaller figure (6.59 for 8,
    /// 10.40 for 16: the fit Jonathan Lewis gives in "Cost-Based Oracle Fundamentals").
    pub fn multiblock_divisor(&self) -> f64 {
        1.6765 * f64::from(self.read_count.max(1)).powf(0.6581)
    }
}

impl Default for OptimizerEnvironment {
    fn default() -> OptimizerEnvironment {
        OptimizerEnvironment {
            mode: OptimizerMode::AllRows,
            read_count: 8,
            index_cost_adj: 100,
            block_size: 8192,
        }
    }
}

/// What a plan step is estimated to yield and cost (PLAN_TABLE's CARDINALITY, BYTES, COST).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    pub cost: f64,
    pub rows: f64,
    pub bytes: f64,
}

impl Estimate {
    /// The cost as Oracle shows it: rounded to a whole number of reads.
    pub fn shown_cost(&self) -> u64 {
        self.cost.round().max(0.0) as u64
    }

    /// Rows as shown: at least 1, as Oracle never estimates an empty result.
    pub fn shown_rows(&self) -> u64 {
        self.rows.round().max(1.0) as u64
    }

    pub fn shown_bytes(&self) -> u64 {
        (self.rows.round().max(1.0) * self.bytes_per_row()).round() as u64
    }

    fn bytes_per_row(&self) -> f64 {
        if self.rows > 0.0 {
            self.bytes / self.rows
        } else {
            self.bytes
        }
    }
}

/// What the optimizer knows of one column.
#[derive(Clone, Debug, Default)]
pub struct ColumnFacts {
    /// Distinct non-null values; None: unknown (default selectivities apply).
    pub distinct: Option<f64>,
    /// Fraction of rows where the column is NULL.
    pub nulls: f64,
    /// Lowest and highest values, for numbers and dates (`numeric`).
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Average length in bytes.
    pub len: f64,
}

impl ColumnFacts {
    pub fn equality(&self) -> f64 {
        match self.distinct {
            Some(distinct) if distinct >= 1.0 => (1.0 - self.nulls) / distinct,
            Some(_) => 0.0,
            None => DEFAULT_EQUALITY,
        }
    }
}

/// What the optimizer knows of a source's rows.
#[derive(Clone, Debug)]
pub struct SourceFacts {
    pub rows: f64,
    pub blocks: f64,
    pub row_len: f64,
    /// By position in the source.
    pub columns: Vec<ColumnFacts>,
    /// From gathered statistics (not defaults).
    pub analyzed: bool,
}

/// The facts of a table: its statistics, or Oracle's defaults with its segment's
/// `allocated_blocks` (read only when there are no statistics).
pub fn table_facts(
    table: &TableDef,
    allocated_blocks: impl FnOnce() -> Option<u64>,
    environment: &OptimizerEnvironment,
) -> SourceFacts {
    match &table.statistics {
        Some(statistics) => {
            let rows = statistics.num_rows as f64;
            let columns = table
                .columns
                .iter()
                .map(|column| match statistics.columns.get(&column.name) {
                    Some(gathered) => ColumnFacts {
                        distinct: Some(gathered.num_distinct as f64),
                        nulls: if rows > 0.0 {
                            gathered.num_nulls as f64 / rows
                        } else {
                            0.0
                        },
                        low: numeric(&gathered.low_value),
                        high: numeric(&gathered.high_value),
                        len: gathered.avg_col_len as f64,
                    },
                    None => ColumnFacts {
                        len: DEFAULT_ROW_LEN / table.columns.len().max(1) as f64,
                        ..ColumnFacts::default()
                    },
                })
                .collect();
            SourceFacts {
                rows,
                blocks: statistics.blocks.max(1) as f64,
                row_len: statistics.avg_row_len.max(1) as f64,
                columns,
                analyzed: true,
            }
        }
        None => {
            // At least DEFAULT_BLOCKS: a session keeps its plans while the dictionary is
            // unchanged, and a plan made for a table that was still empty must not scan it
            // whole once it has grown (gathered statistics give the real size).
            let blocks = allocated_blocks()
                .unwrap_or(DEFAULT_BLOCKS)
                .max(DEFAULT_BLOCKS) as f64;
            // Oracle's default: blocks full of 100-byte rows.
            let rows = (blocks * (environment.block_size as f64 - 100.0) / DEFAULT_ROW_LEN)
                .max(1.0)
                .floor();
            let len = DEFAULT_ROW_LEN / table.columns.len().max(1) as f64;
            let mut columns = vec![
                ColumnFacts {
                    len,
                    ..ColumnFacts::default()
                };
                table.columns.len()
            ];
            // A column that is a unique key alone has as many values as rows.
            for index in &table.indexes {
                if index.unique && index.columns.len() == 1 {
                    columns[index.columns[0]].distinct = Some(rows);
                }
            }
            SourceFacts {
                rows,
                blocks,
                row_len: DEFAULT_ROW_LEN,
                columns,
                analyzed: false,
            }
        }
    }
}

/// The facts of rows known in advance (a v$ view, DUAL) or estimated (an inline view).
pub fn row_facts(rows: f64, width: usize) -> SourceFacts {
    SourceFacts {
        rows,
        blocks: 0.0,
        row_len: 20.0 * width as f64,
        columns: vec![
            ColumnFacts {
                len: 20.0,
                ..ColumnFacts::default()
            };
            width
        ],
        analyzed: false,
    }
}

/// A value on the numeric line the model interpolates ranges on: numbers, and dates as
/// seconds.
pub fn numeric(value: &Value) -> Option<f64> {
    match value {
        Value::Number(_) | Value::Float(_) => value.to_float().ok(),
        Value::Date(seconds) => Some(*seconds as f64),
        Value::Timestamp(micros) => Some(*micros as f64 / 1e6),
        _ => None,
    }
}

/// The sources of a query's scope, for finding a column's facts by its position.
#[derive(Default)]
pub struct ScopeFacts {
    /// (offset of the source's first column, its facts).
    pub sources: Vec<(usize, SourceFacts)>,
}

impl ScopeFacts {
    pub fn column(&self, column: usize) -> Option<&ColumnFacts> {
        self.sources.iter().find_map(|(offset, facts)| {
            column
                .checked_sub(*offset)
                .and_then(|position| facts.columns.get(position))
        })
    }

    /// The fraction of rows (or of row combinations, for a join predicate) for which
    /// `expr` is TRUE.
    pub fn selectivity(&self, expr: &Expr) -> f64 {
        let selectivity = match expr {
            Expr::Binary(left, BinaryOperator::And, right) => {
                self.selectivity(left) * self.selectivity(right)
            }
            Expr::Binary(left, BinaryOperator::Or, right) => {
                let (a, b) = (self.selectivity(left), self.selectivity(right));
                a + b - a * b
            }
            Expr::Unary(UnaryOperator::Not, inner) => 1.0 - self.selectivity(inner),
            Expr::Binary(left, op, right) if op.is_comparison() => {
                self.comparison(left, *op, right)
            }
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => {
                let inside = self.between(expr, low, high);
                if *negated {
                    1.0 - inside
                } else {
                    inside
                }
            }
            Expr::IsNull(inner, negated) => {
                let null = match &**inner {
                    Expr::Column(column) => self
                        .column(*column)
                        .filter(|facts| facts.distinct.is_some())
                        .map_or(DEFAULT_IS_NULL, |facts| facts.nulls),
                    _ => DEFAULT_IS_NULL,
                };
                if *negated {
                    1.0 - null
                } else {
                    null
                }
            }
            Expr::InList {
                expr,
                list,
                negated,
                ..
            } => {
                let one = self.equality_with_value(expr);
                let any = (one * list.len() as f64).min(1.0);
                if *negated {
                    1.0 - any
                } else {
                    any
                }
            }
            Expr::Constant(Value::Boolean(true)) => 1.0,
            Expr::Constant(Value::Boolean(false) | Value::Null) => 0.0,
            _ => DEFAULT_OTHER,
        };
        selectivity.clamp(0.0, 1.0)
    }

    /// Selectivity of `expr = value` for a value not known at planning time.
    fn equality_with_value(&self, expr: &Expr) -> f64 {
        match expr {
            Expr::Column(column) => self
                .column(*column)
                .map_or(DEFAULT_EQUALITY, ColumnFacts::equality),
            _ => DEFAULT_EQUALITY,
        }
    }

    fn comparison(&self, left: &Expr, op: BinaryOperator, right: &Expr) -> f64 {
        let (column, op, value) = match (left, right) {
            (Expr::Column(a), Expr::Column(b)) => {
                // A join predicate (or two columns of one row): the non-null share of each
                // side over the larger distinct count.
                let (a, b) = (self.column(*a), self.column(*b));
                let distinct = |facts: Option<&ColumnFacts>| facts.and_then(|facts| facts.distinct);
                let non_null =
                    |facts: Option<&ColumnFacts>| facts.map_or(1.0, |facts| 1.0 - facts.nulls);
                let equality = match (distinct(a), distinct(b)) {
                    (None, None) => DEFAULT_EQUALITY,
                    (x, y) => {
                        non_null(a) * non_null(b) / x.unwrap_or(0.0).max(y.unwrap_or(0.0)).max(1.0)
                    }
                };
                return match op {
                    BinaryOperator::Equal => equality,
                    BinaryOperator::NotEqual => 1.0 - equality,
                    _ => DEFAULT_RANGE,
                };
            }
            (Expr::Column(column), value) => (*column, op, value),
            (value, Expr::Column(column)) => (*column, op.mirrored(), value),
            _ => {
                return if op == BinaryOperator::Equal {
                    DEFAULT_EQUALITY
                } else {
                    DEFAULT_RANGE
                }
            }
        };
        let Some(facts) = self.column(column) else {
            return if op == BinaryOperator::Equal {
                DEFAULT_EQUALITY
            } else {
                DEFAULT_RANGE
            };
        };
        match op {
            BinaryOperator::Equal => facts.equality(),
            BinaryOperator::NotEqual => 1.0 - facts.equality() - facts.nulls,
            _ => {
                let constant = match value {
                    Expr::Constant(constant) => numeric(constant),
                    _ => None,
                };
                match (constant, facts.low, facts.high) {
                    (Some(value), Some(low), Some(high)) => {
                        let non_null = 1.0 - facts.nulls;
                        let span = high - low;
                        let point = facts.equality();
                        let fraction = if span <= 0.0 {
                            let holds = match op {
                                BinaryOperator::Less => low < value,
                                BinaryOperator::LessOrEqual => low <= value,
                                BinaryOperator::Greater => low > value,
                                _ => low >= value,
                            };
                            if holds {
                                1.0
                            } else {
                                0.0
                            }
                        } else {
                            match op {
                                BinaryOperator::Less => (value - low) / span,
                                BinaryOperator::LessOrEqual => (value - low) / span + point,
                                BinaryOperator::Greater => (high - value) / span,
                                _ => (high - value) / span + point,
                            }
                        };
                        // Beyond the low and high values the statistics may be stale:
                        // half a value's share rather than nothing.
                        fraction.clamp(point / 2.0, 1.0) * non_null
                    }
                    _ => DEFAULT_RANGE,
                }
            }
        }
    }

    fn between(&self, expr: &Expr, low: &Expr, high: &Expr) -> f64 {
        let Expr::Column(column) = expr else {
            return DEFAULT_BOUNDED_RANGE;
        };
        let Some(facts) = self.column(*column) else {
            return DEFAULT_BOUNDED_RANGE;
        };
        let bound = |expr: &Expr| match expr {
            Expr::Constant(value) => numeric(value),
            _ => None,
        };
        match (bound(low), bound(high), facts.low, facts.high) {
            (Some(from), Some(to), Some(min), Some(max)) => {
                if to < from {
                    return 0.0;
                }
                let span = max - min;
                let point = facts.equality();
                let fraction = if span <= 0.0 {
                    if from <= min && min <= to {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    (to.min(max) - from.max(min)) / span + 2.0 * point
                };
                fraction.clamp(point / 2.0, 1.0) * (1.0 - facts.nulls)
            }
            _ => DEFAULT_BOUNDED_RANGE,
        }
    }
}

/// A full scan of a source with `facts`, keeping `selectivity` of its rows.
pub fn full_scan(
    facts: &SourceFacts,
    selectivity: f64,
    environment: &OptimizerEnvironment,
) -> Estimate {
    let io = if facts.blocks > 0.0 {
        // Oracle adds one to every full scan (_table_scan_cost_plus_one).
        (facts.blocks / environment.multiblock_divisor()).ceil() + 1.0
    } else {
        0.0
    };
    let rows = facts.rows * selectivity;
    Estimate {
        cost: io + facts.rows * ROW_CPU,
        rows,
        bytes: rows * facts.row_len,
    }
}

/// The statistics of an index, or the defaults for one without: Oracle's, but never more
/// leaf blocks than the table has blocks, nor more distinct keys or clustering factor than
/// it has rows (Oracle's 800 would make every index of a small table look scattered).
pub fn index_statistics(
    table: &TableDef,
    index: &IndexDef,
    facts: &SourceFacts,
) -> IndexStatistics {
    if let Some(gathered) = table
        .statistics
        .as_ref()
        .and_then(|statistics| statistics.indexes.get(&index.name))
    {
        return gathered.clone();
    }
    let rows = facts.rows.max(1.0) as u64;
    IndexStatistics {
        leaf_blocks: DEFAULT_INDEX.leaf_blocks.min(facts.blocks.max(1.0) as u64),
        distinct_keys: DEFAULT_INDEX.distinct_keys.min(rows),
        clustering_factor: DEFAULT_INDEX.clustering_factor.min(rows),
        ..DEFAULT_INDEX
    }
}

/// An index access: the index steps and the table access by rowid. `key_selectivity` is
/// the fraction of the index's entries the key range covers, `selectivity` that of the
/// table's rows that pass every conjunct the access evaluates; `unique` an equality on all
/// the columns of a unique index; `probes` the descents from the root (the values of an IN
/// list, 1 otherwise).
pub fn index_access(
    index: &IndexStatistics,
    table: &SourceFacts,
    key_selectivity: f64,
    selectivity: f64,
    unique: bool,
    probes: f64,
    environment: &OptimizerEnvironment,
) -> (Estimate, Estimate) {
    let adjust = f64::from(environment.index_cost_adj) / 100.0;
    let blevel = f64::from(index.blevel) * probes;
    let entries = table.rows * key_selectivity;
    let (index_io, table_io, entries) = if unique {
        (blevel, probes, entries.min(probes))
    } else {
        (
            blevel + (index.leaf_blocks as f64 * key_selectivity).ceil(),
            (index.clustering_factor as f64 * key_selectivity).ceil(),
            entries,
        )
    };
    let index_step = Estimate {
        cost: index_io * adjust + entries * ROW_CPU,
        rows: entries,
        bytes: entries * 10.0,
    };
    let rows = if unique {
        entries
    } else {
        table.rows * selectivity
    };
    let table_step = Estimate {
        cost: index_step.cost + table_io * adjust + entries * ROW_CPU,
        rows,
        bytes: rows * table.row_len,
    };
    (index_step, table_step)
}

/// A cartesian join (MERGE JOIN CARTESIAN): the inner source read once into a buffer
/// (`build`), and every buffered row tried for each outer row.
pub fn cartesian_join(outer: Estimate, build: Estimate) -> f64 {
    outer.cost + build.cost + outer.rows.max(1.0) * build.rows * ROW_CPU
}

/// CPU cost of sorting `rows`.
pub fn sort_cost(rows: f64) -> f64 {
    let rows = rows.max(1.0);
    rows * (rows + 1.0).log2() * COMPARE_CPU
}

/// Nested loops: the inner access (`inner`, per outer row) repeated for each outer row.
pub fn nested_loops(outer: Estimate, inner: Estimate) -> f64 {
    outer.cost + outer.rows.max(1.0) * inner.cost
}

/// A hash join: the inner source read once into a hash table (`build`), probed by each
/// outer row.
pub fn hash_join(outer: Estimate, build: Estimate) -> f64 {
    outer.cost + build.cost + (outer.rows + build.rows) * HASH_ROW_CPU
}

/// A sort-merge join: the inner source read once and sorted (`build`); each outer row
/// finds its range in it by binary search.
pub fn merge_join(outer: Estimate, build: Estimate) -> f64 {
    outer.cost
        + build.cost
        + sort_cost(build.rows)
        + outer.rows.max(1.0) * (build.rows + 2.0).log2() * COMPARE_CPU
}

/// A count as DBMS_XPLAN shows it, in at most five characters: 99999, then 100K, 9999K,
/// 10M, ...
pub fn scaled(value: u64) -> String {
    if value < 100_000 {
        return value.to_string();
    }
    let mut value = value;
    for suffix in ["K", "M", "G", "T"] {
        value /= 1000;
        if value < 10_000 {
            return format!("{value}{suffix}");
        }
    }
    format!("{}P", value / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::statistics::ColumnStatistics;

    fn facts(rows: f64, distinct: f64, low: f64, high: f64) -> ScopeFacts {
        let column = ColumnStatistics {
            num_distinct: distinct as u64,
            num_nulls: 0,
            low_value: Value::integer(low as i64),
            high_value: Value::integer(high as i64),
            avg_col_len: 4,
        };
        ScopeFacts {
            sources: vec![(
                0,
                SourceFacts {
                    rows,
                    blocks: rows / 100.0,
                    row_len: 40.0,
                    columns: vec![ColumnFacts {
                        distinct: Some(column.num_distinct as f64),
                        nulls: 0.0,
                        low: numeric(&column.low_value),
                        high: numeric(&column.high_value),
                        len: 4.0,
                    }],
                    analyzed: true,
                },
            )],
        }
    }

    fn compare(op: BinaryOperator, value: i64) -> Expr {
        Expr::Binary(
            Box::new(Expr::Column(0)),
            op,
            Box::new(Expr::Constant(Value::integer(value))),
        )
    }

    #[test]
    fn equality_is_one_over_the_distinct_values_and_ranges_interpolate() {
        let scope = facts(10_000.0, 100.0, 1.0, 1001.0);
        let equal = scope.selectivity(&compare(BinaryOperator::Equal, 5));
        assert!((equal - 0.01).abs() < 1e-9);
        let below = scope.selectivity(&compare(BinaryOperator::Less, 251));
        assert!((below - 0.25).abs() < 1e-9, "{below}");
        // Beyond the high value: half a value's share, not nothing (statistics go stale).
        let above = scope.selectivity(&compare(BinaryOperator::Greater, 2000));
        assert!((above - 0.005).abs() < 1e-9, "{above}");
        let both = Expr::Binary(
            Box::new(compare(BinaryOperator::Equal, 5)),
            BinaryOperator::Or,
            Box::new(compare(BinaryOperator::Equal, 6)),
        );
        assert!((scope.selectivity(&both) - 0.0199).abs() < 1e-9);
    }

    #[test]
    fn unknown_columns_take_oracles_default_selectivities() {
        let scope = ScopeFacts::default();
        assert_eq!(
            scope.selectivity(&compare(BinaryOperator::Equal, 1)),
            DEFAULT_EQUALITY
        );
        assert_eq!(
            scope.selectivity(&compare(BinaryOperator::GreaterOrEqual, 1)),
            DEFAULT_RANGE
        );
    }

    #[test]
    fn a_selective_index_beats_a_full_scan_and_an_unselective_one_does_not() {
        let environment = OptimizerEnvironment::default();
        let table = facts(100_000.0, 100_000.0, 1.0, 100_000.0)
            .sources
            .remove(0)
            .1;
        let full = full_scan(&table, 0.001, &environment);
        let index = IndexStatistics {
            blevel: 1,
            leaf_blocks: 200,
            distinct_keys: 100_000,
            num_rows: 100_000,
            clustering_factor: 90_000,
            last_analyzed: 0,
        };
        let (_, narrow) = index_access(&index, &table, 0.001, 0.001, false, 1.0, &environment);
        let (_, wide) = index_access(&index, &table, 0.5, 0.5, false, 1.0, &environment);
        assert!(narrow.cost < full.cost, "{narrow:?} {full:?}");
        assert!(wide.cost > full.cost, "{wide:?} {full:?}");
    }

    #[test]
    fn rows_are_scaled_as_dbms_xplan_shows_them() {
        assert_eq!(scaled(99_999), "99999");
        assert_eq!(scaled(100_000), "100K");
        assert_eq!(scaled(12_345_678), "12M");
    }
}
