//! GROUP BY and aggregates: the aggregate functions, their compilation against the group
//! row, and their accumulation over a group's rows.

use std::collections::HashSet;

use super::planner::Planner;
use crate::error::{Error, Result};
use crate::sql::eval::{self, Context, Expr};
use crate::syntax::ast;
use crate::types::{GroupKey, RunningSum, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AggregateFunction {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    /// PostgreSQL's `string_agg(text, separator)`: the non-NULL values in the order the
    /// rows come, each after the separator evaluated on its row (not before the first).
    StringAgg,
}

#[derive(Clone, Debug)]
pub(super) struct Aggregate {
    pub(super) function: AggregateFunction,
    pub(super) argument: Option<Expr>,
    /// STRING_AGG's separator, evaluated on the row.
    pub(super) separator: Option<Expr>,
    pub(super) distinct: bool,
}

/// GROUP BY keys (ASTs, to recognize them in the select list) and aggregates found.
#[derive(Default)]
pub(super) struct Grouping {
    pub(super) keys: Vec<ast::Expr>,
    pub(super) key_exprs: Vec<Expr>,
    pub(super) aggregates: Vec<Aggregate>,
    /// ASTs of aggregates already registered (reused when written twice).
    pub(super) aggregate_asts: Vec<ast::Expr>,
}

pub(super) fn contains_aggregate(expr: &ast::Expr) -> bool {
    let mut found = false;
    expr.walk_within_query(&mut |node| {
        if let ast::Expr::Function { name, .. } = node {
            found |= aggregate_function(name).is_some();
        }
    });
    found
}

pub(super) fn aggregate_function(name: &str) -> Option<AggregateFunction> {
    Some(match name {
        "COUNT" => AggregateFunction::Count,
        "SUM" => AggregateFunction::Sum,
        "AVG" => AggregateFunction::Avg,
        "MIN" => AggregateFunction::Min,
        "MAX" => AggregateFunction::Max,
        "STRING_AGG" | "PG_CATALOG.STRING_AGG" => AggregateFunction::StringAgg,
        _ => return None,
    })
}

/// The longest text STRING_AGG makes (VARCHAR2's limit): ORA-01489 beyond.
const STRING_AGG_BYTES_MAX: usize = 4000;

impl Planner<'_, '_> {
    pub(super) fn compile_aggregate(
        &mut self,
        expr: &ast::Expr,
        function: AggregateFunction,
        args: &[ast::Expr],
        distinct: bool,
        star: bool,
    ) -> Result<Expr> {
        let Some(grouping) = &self.grouping else {
            return Err(Error::new(934, "group function is not allowed here"));
        };
        if let Some(position) = grouping
            .aggregate_asts
            .iter()
            .position(|known| known == expr)
        {
            return Ok(Expr::Column(grouping.keys.len() + position));
        }
        let arguments_wanted = if function == AggregateFunction::StringAgg {
            2
        } else {
            1
        };
        if !(star || args.len() == arguments_wanted) || (star && arguments_wanted == 2) {
            return Err(Error::new(909, "invalid number of arguments"));
        }
        // The argument is computed from the row, not the group.
        let saved = self.grouping.take();
        let argument = if star {
            None
        } else {
            if contains_aggregate(&args[0]) {
                self.grouping = saved;
                return Err(Error::new(935, "group function is nested too deeply"));
            }
            match self.compile(&args[0]) {
                Ok(argument) => Some(argument),
                Err(error) => {
                    self.grouping = saved;
                    return Err(error);
                }
            }
        };
        let separator = match args.get(1) {
            Some(separator) if arguments_wanted == 2 => match self.compile(separator) {
                Ok(separator) => Some(separator),
                Err(error) => {
                    self.grouping = saved;
                    return Err(error);
                }
            },
            _ => None,
        };
        let mut grouping = saved.expect("grouping");
        grouping.aggregates.push(Aggregate {
            function,
            argument,
            separator,
            distinct,
        });
        grouping.aggregate_asts.push(expr.clone());
        let position = grouping.keys.len() + grouping.aggregates.len() - 1;
        self.grouping = Some(grouping);
        Ok(Expr::Column(position))
    }
}

/// Aggregate state for one group.
#[derive(Clone)]
pub(super) enum Accumulator {
    Count(u64),
    Sum(RunningSum),
    Avg(RunningSum, u64),
    Extreme(Value),
    /// STRING_AGG's text so far; None before the first value.
    Text(Option<String>),
}

pub(super) struct GroupState {
    pub(super) keys: Vec<Value>,
    pub(super) accumulators: Vec<Accumulator>,
    pub(super) distinct_seen: Vec<HashSet<GroupKey>>,
}

pub(super) fn new_group(keys: Vec<Value>, aggregates: &[Aggregate]) -> GroupState {
    GroupState {
        keys,
        accumulators: aggregates
            .iter()
            .map(|aggregate| match aggregate.function {
                AggregateFunction::Count => Accumulator::Count(0),
                AggregateFunction::Sum => Accumulator::Sum(RunningSum::Empty),
                AggregateFunction::Avg => Accumulator::Avg(RunningSum::Empty, 0),
                AggregateFunction::Min | AggregateFunction::Max => {
                    Accumulator::Extreme(Value::Null)
                }
                AggregateFunction::StringAgg => Accumulator::Text(None),
            })
            .collect(),
        distinct_seen: aggregates.iter().map(|_| HashSet::new()).collect(),
    }
}

pub(super) fn accumulate(
    group: &mut GroupState,
    aggregates: &[Aggregate],
    row: &[Value],
    context: &Context,
) -> Result<()> {
    debug_assert_eq!(group.accumulators.len(), aggregates.len());
    debug_assert_eq!(group.distinct_seen.len(), aggregates.len());
    for (index, aggregate) in aggregates.iter().enumerate() {
        let value = match &aggregate.argument {
            None => {
                if let Accumulator::Count(count) = &mut group.accumulators[index] {
                    *count += 1;
                }
                continue;
            }
            Some(argument) => argument.operand(row, context)?,
        };
        if value.is_null() {
            continue;
        }
        if aggregate.distinct
            && !group.distinct_seen[index].insert(GroupKey(value.clone().into_owned()))
        {
            continue;
        }
        let accumulator = &mut group.accumulators[index];
        match accumulator {
            Accumulator::Count(count) => *count += 1,
            Accumulator::Sum(sum) => sum.add(&value)?,
            Accumulator::Avg(sum, count) => {
                sum.add(&value)?;
                *count += 1;
            }
            Accumulator::Extreme(best) => {
                let replace = best.is_null() || {
                    let order = eval::compare(&value, best)?;
                    match aggregate.function {
                        AggregateFunction::Min => order == Some(std::cmp::Ordering::Less),
                        _ => order == Some(std::cmp::Ordering::Greater),
                    }
                };
                if replace {
                    *best = value.into_owned();
                }
            }
            Accumulator::Text(text) => {
                let value = value.to_text().unwrap_or_default();
                match text {
                    None => *text = Some(value),
                    Some(text) => {
                        if let Some(separator) = &aggregate.separator {
                            let separator = separator.evaluate(row, context)?;
                            text.push_str(&separator.to_text().unwrap_or_default());
                        }
                        text.push_str(&value);
                    }
                }
                // VARCHAR2's bound, as Oracle's LISTAGG has it.
                if text
                    .as_ref()
                    .is_some_and(|text| text.len() > STRING_AGG_BYTES_MAX)
                {
                    return Err(Error::new(
                        1489,
                        "result of string concatenation is too long",
                    ));
                }
            }
        }
    }
    Ok(())
}

pub(super) fn finish(accumulator: Accumulator) -> Result<Value> {
    Ok(match accumulator {
        Accumulator::Count(count) => Value::integer(count as i64),
        Accumulator::Sum(sum) => sum.total(),
        Accumulator::Avg(sum, count) => {
            if count == 0 {
                Value::Null
            } else {
                sum.total().div(&Value::integer(count as i64))?
            }
        }
        Accumulator::Extreme(value) => value,
        Accumulator::Text(text) => text.map_or(Value::Null, Value::text),
    })
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::super::testing;
    use super::*;

    fn aggregate(function: AggregateFunction, argument: Option<usize>) -> Aggregate {
        Aggregate {
            function,
            argument: argument.map(Expr::Column),
            separator: None,
            distinct: false,
        }
    }

    fn distinct(aggregate: Aggregate) -> Aggregate {
        Aggregate {
            distinct: true,
            ..aggregate
        }
    }

    /// The aggregates' values over `rows`, as one group.
    fn run(aggregates: &[Aggregate], rows: &[Vec<Value>]) -> Result<Vec<Value>> {
        let context = testing::context();
        let mut group = new_group(Vec::new(), aggregates);
        for row in rows {
            accumulate(&mut group, aggregates, row, &context)?;
        }
        group.accumulators.into_iter().map(finish).collect()
    }

    fn numbers(values: &[Option<i64>]) -> Vec<Vec<Value>> {
        values
            .iter()
            .map(|value| vec![value.map_or(Value::Null, Value::integer)])
            .collect()
    }

    #[test]
    fn aggregates_skip_nulls_and_count_star_counts_rows() {
        use AggregateFunction::*;
        let aggregates = [
            aggregate(Count, None),
            aggregate(Count, Some(0)),
            distinct(aggregate(Count, Some(0))),
            aggregate(Sum, Some(0)),
            distinct(aggregate(Sum, Some(0))),
            aggregate(Avg, Some(0)),
            aggregate(Min, Some(0)),
            aggregate(Max, Some(0)),
        ];
        let values = run(&aggregates, &numbers(&[Some(3), None, Some(3), Some(0)])).unwrap();
        let expected: Vec<Value> = [4, 3, 2, 6, 3, 2, 0, 3]
            .into_iter()
            .map(Value::integer)
            .collect();
        assert_eq!(values, expected);
    }

    #[test]
    fn avg_divides_the_sum_by_the_values_counted() {
        let values = run(
            &[aggregate(AggregateFunction::Avg, Some(0))],
            &numbers(&[Some(1), None, Some(2)]),
        )
        .unwrap();
        assert_eq!(values, vec![Value::Number(Decimal::new(15, 1))]);
    }

    #[test]
    fn over_no_rows_count_is_zero_and_the_others_null() {
        use AggregateFunction::*;
        let aggregates = [
            aggregate(Count, None),
            aggregate(Count, Some(0)),
            aggregate(Sum, Some(0)),
            aggregate(Avg, Some(0)),
            aggregate(Min, Some(0)),
            aggregate(Max, Some(0)),
            aggregate(StringAgg, Some(0)),
        ];
        let values = run(&aggregates, &[]).unwrap();
        let mut expected = vec![Value::integer(0), Value::integer(0)];
        expected.resize(aggregates.len(), Value::Null);
        assert_eq!(values, expected);
    }

    #[test]
    fn min_and_max_compare_text_as_text() {
        let rows: Vec<Vec<Value>> = ["b", "a", "c"]
            .into_iter()
            .map(|text| vec![Value::text(text)])
            .collect();
        let values = run(
            &[
                aggregate(AggregateFunction::Min, Some(0)),
                aggregate(AggregateFunction::Max, Some(0)),
            ],
            &rows,
        )
        .unwrap();
        assert_eq!(values, vec![Value::text("a"), Value::text("c")]);
    }

    #[test]
    fn string_agg_puts_each_rows_separator_before_its_value_but_the_first() {
        let text = |value: Option<&str>| value.map_or(Value::Null, Value::text);
        let rows: Vec<Vec<Value>> = [
            (Some("a"), "-"),
            (None, "?"),
            (Some("b"), "+"),
            (Some("c"), "*"),
        ]
        .into_iter()
        .map(|(value, separator)| vec![text(value), Value::text(separator)])
        .collect();
        let by_row = Aggregate {
            separator: Some(Expr::Column(1)),
            ..aggregate(AggregateFunction::StringAgg, Some(0))
        };
        let constant = Aggregate {
            separator: Some(Expr::Constant(Value::text(", "))),
            ..aggregate(AggregateFunction::StringAgg, Some(0))
        };
        let values = run(&[by_row, constant], &rows).unwrap();
        assert_eq!(values, vec![Value::text("a+b*c"), Value::text("a, b, c")]);
    }

    #[test]
    fn string_agg_beyond_varchar2s_bound_is_ora_01489() {
        let aggregates = [aggregate(AggregateFunction::StringAgg, Some(0))];
        let piece = vec![Value::text("x".repeat(STRING_AGG_BYTES_MAX / 4))];
        let values = run(&aggregates, &vec![piece.clone(); 4]).unwrap();
        assert_eq!(values, vec![Value::text("x".repeat(STRING_AGG_BYTES_MAX))]);
        let error = run(&aggregates, &vec![piece; 5]).unwrap_err();
        assert_eq!(error.code(), 1489);
    }
}
