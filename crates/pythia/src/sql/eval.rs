//! Compiled expressions and their evaluation.
//!
//! The planner turns each `ast::Expr` into an [`Expr`] whose column references are positions
//! in the row being evaluated (the concatenated columns of the FROM sources, or a group's
//! keys and aggregates), whose binds are positions in the bind array, and whose functions are
//! resolved. Evaluation is then a walk with no name lookups.
//!
//! Conditions use three-valued logic: TRUE, FALSE and unknown (NULL). A WHERE clause keeps
//! a row only when its condition is TRUE. Conditions evaluate to `Value::Boolean` or
//! `Value::Null`.
//!
//! A correlated subquery is an [`Expr::Subquery`]: a plan made once, run for each row with
//! the values of the outer columns it reads (its `arguments`), which the inner plan reads as
//! [`Expr::Outer`] positions. The context's [`SubqueryRunner`] (the statement's reader)
//! runs it.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use rustc_hash::FxHashSet;

use crate::catalog::SequenceDef;
use crate::error::{Error, Result};
use crate::sql::postgresql::{self, CatalogFunction};
use crate::syntax::ast::{BinaryOperator, UnaryOperator};
use crate::types::{date_format, datetime, number_format, DataType, Family, GroupKey, Value};

#[derive(Clone, Debug)]
pub enum Expr {
    Constant(Value),
    Column(usize),
    Bind(usize),
    Unary(UnaryOperator, Box<Expr>),
    Binary(Box<Expr>, BinaryOperator, Box<Expr>),
    IsNull(Box<Expr>, bool),
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        /// A list of constants of one type family, hashed ([`Expr::in_list`]).
        set: Option<Arc<ValueSet>>,
    },
    /// `expr op ANY|ALL (list)`; `op` is a comparison.
    Quantified {
        expr: Box<Expr>,
        op: BinaryOperator,
        all: bool,
        list: Vec<Expr>,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
    },
    Case {
        operand: Option<Box<Expr>>,
        when_then: Vec<(Expr, Expr)>,
        else_result: Option<Box<Expr>>,
    },
    Function(Function, Vec<Expr>),
    Cast(Box<Expr>, DataType),
    NextValue(Arc<SequenceDef>),
    CurrentValue(Arc<SequenceDef>),
    Rownum,
    /// In a correlated subquery's plan: the value of the outer row's column given to it
    /// as argument `k` (`Context::outer[k]`).
    Outer(usize),
    Subquery(Box<Subquery>),
    /// A stored PL/SQL function, run by the context's [`RoutineRunner`] with its arguments'
    /// values (the ones left out take the function's defaults).
    Routine(Arc<RoutineCall>, Vec<Expr>),
    /// A PL/SQL collection's element or method (`a(i)`, `a.COUNT`, `a.NEXT(i)`): the
    /// collection by its number in the unit, read through the context's
    /// [`RoutineRunner`], which holds the running unit's collections.
    Collection(u32, CollectionMethod, Vec<Expr>),
}

/// What an expression reads of a PL/SQL collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectionMethod {
    /// `a(key)`: NO_DATA_FOUND when the element does not exist.
    Element,
    Count,
    First,
    Last,
    /// `a.NEXT(key)`, `a.PRIOR(key)`: the next or previous key that exists, or NULL.
    Next,
    Prior,
    /// `a.EXISTS(key)`.
    Exists,
}

/// A stored function as an expression calls it: its name as the dictionary knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineCall {
    /// `SYSTEM.F`, or `SYSTEM.PKG.F` for a package's.
    pub name: String,
    pub object_id: u32,
    /// A package's subprogram: its place among the package's subprograms.
    pub member: Option<u32>,
}

/// Runs the stored functions an expression calls (the session, through PL/SQL).
pub trait RoutineRunner {
    fn call_function(&self, routine: &RoutineCall, arguments: Vec<Value>) -> Result<Value>;

    /// Reads collection `collection` of the running PL/SQL unit; only a unit's own
    /// expressions name collections.
    fn collection(
        &self,
        collection: u32,
        method: CollectionMethod,
        arguments: &[Value],
    ) -> Result<Value> {
        let _ = (collection, method, arguments);
        Err(Error::internal("a collection read outside PL/SQL"))
    }
}

/// A correlated subquery: its plan, the outer row's values it reads, and how its rows
/// become a value.
#[derive(Clone)]
pub struct Subquery {
    pub plan: Arc<crate::sql::query::QueryPlan>,
    /// Expressions of the outer row (its columns), evaluated for each row and given to the
    /// plan as its `Outer` values.
    pub arguments: Vec<Expr>,
    pub kind: SubqueryKind,
}

impl std::fmt::Debug for Subquery {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Subquery")
            .field("arguments", &self.arguments)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Debug)]
pub enum SubqueryKind {
    /// `(SELECT ...)`: its one row's one column, NULL for no row, ORA-01427 for more.
    Scalar,
    /// `[NOT] EXISTS (SELECT ...)`.
    Exists { negated: bool },
    /// `expr [NOT] IN (SELECT ...)`, with IN's NULL rules.
    In { expr: Box<Expr>, negated: bool },
    /// `(a, b, ...) [NOT] IN (SELECT x, y, ...)`: a row matches when every pair is equal,
    /// is unknown when none differs but one is NULL.
    RowIn { exprs: Vec<Expr>, negated: bool },
    /// `expr op ANY|ALL (SELECT ...)`.
    Quantified {
        expr: Box<Expr>,
        op: BinaryOperator,
        all: bool,
    },
    /// PostgreSQL's `ARRAY(SELECT ...)`: its rows' one column as an array's text form.
    Array,
}

/// Runs a correlated subquery's plan with the outer values it reads.
pub trait SubqueryRunner {
    fn rows(&self, plan: &crate::sql::query::QueryPlan, outer: &[Value])
        -> Result<Vec<Vec<Value>>>;
}

/// Built-in scalar functions, with Oracle's semantics: a NULL argument gives NULL, except
/// where a function says otherwise (NVL, NVL2, COALESCE, DECODE, CONCAT, REPLACE). Lengths
/// and positions count characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    Nvl,
    Nvl2,
    Coalesce,
    Upper,
    Lower,
    Length,
    Substr,
    Abs,
    Round,
    Trunc,
    Mod,
    Sysdate,
    Systimestamp,
    ToChar,
    ToNumber,
    Concat,
    Greatest,
    Least,
    Decode,
    Nullif,
    User,
    Ceil,
    Floor,
    Power,
    Sqrt,
    Sign,
    Instr,
    Initcap,
    Lpad,
    Rpad,
    Trim,
    Ltrim,
    Rtrim,
    Replace,
    ToDate,
    AddMonths,
    /// `DBMS_UTILITY.GET_TIME`: hundredths of a second on a clock that wraps at 2^31.
    GetTime,
    /// PL/SQL's `SQLERRM(code)`: the message of an Oracle error by its SQLCODE (PL/SQL
    /// compiles it; SQL has no such function).
    Sqlerrm,
    /// `DBMS_UTILITY.GET_CPU_TIME`: hundredths of a second of the session's CPU.
    GetCpuTime,
    /// `REGEXP_LIKE(source, pattern[, match_parameter])`, and PostgreSQL's `~` operators.
    RegexpLike,
    /// PostgreSQL's arrays in their text form (`sql::postgresql`): `array_to_string`,
    /// `array_upper`, and `ARRAY_ELEMENT(array, index)`, which `array[index]` is.
    ArrayToString,
    ArrayUpper,
    ArrayElement,
    /// A function over PostgreSQL's catalogs (`format_type`, `pg_get_indexdef`, ...).
    Catalog(CatalogFunction),
}

impl Function {
    /// The function named `name` (upper case) with `arguments` arguments, or the error.
    pub fn resolve(name: &str, arguments: usize) -> Result<Function> {
        use Function as F;
        // PostgreSQL's clients qualify built-in functions with their schema.
        let name = name
            .strip_prefix(crate::views::pg_catalog::SCHEMA)
            .and_then(|rest| rest.strip_prefix('.'))
            .unwrap_or(name);
        let (function, min, max) = match name {
            "NVL" => (F::Nvl, 2, 2),
            "COALESCE" => (F::Coalesce, 1, usize::MAX),
            "UPPER" => (F::Upper, 1, 1),
            "LOWER" => (F::Lower, 1, 1),
            "LENGTH" => (F::Length, 1, 1),
            "SUBSTR" => (F::Substr, 2, 3),
            "ABS" => (F::Abs, 1, 1),
            "ROUND" => (F::Round, 1, 2),
            "TRUNC" => (F::Trunc, 1, 2),
            "MOD" => (F::Mod, 2, 2),
            "SYSDATE" | "CURRENT_DATE" => (F::Sysdate, 0, 0),
            "SYSTIMESTAMP" | "CURRENT_TIMESTAMP" | "LOCALTIMESTAMP" => (F::Systimestamp, 0, 1),
            "TO_CHAR" => (F::ToChar, 1, 3),
            "TO_NUMBER" => (F::ToNumber, 1, 3),
            "CONCAT" => (F::Concat, 2, 2),
            "GREATEST" => (F::Greatest, 1, usize::MAX),
            "LEAST" => (F::Least, 1, usize::MAX),
            "DECODE" => (F::Decode, 3, usize::MAX),
            "NULLIF" => (F::Nullif, 2, 2),
            "USER" | "CURRENT_USER" | "SESSION_USER" => (F::User, 0, 0),
            "NVL2" => (F::Nvl2, 3, 3),
            "CEIL" => (F::Ceil, 1, 1),
            "FLOOR" => (F::Floor, 1, 1),
            "POWER" => (F::Power, 2, 2),
            "SQRT" => (F::Sqrt, 1, 1),
            "SIGN" => (F::Sign, 1, 1),
            "INSTR" => (F::Instr, 2, 4),
            "INITCAP" => (F::Initcap, 1, 1),
            "LPAD" => (F::Lpad, 2, 3),
            "RPAD" => (F::Rpad, 2, 3),
            "TRIM" => (F::Trim, 1, 1),
            "LTRIM" => (F::Ltrim, 1, 2),
            "RTRIM" => (F::Rtrim, 1, 2),
            "REPLACE" => (F::Replace, 2, 3),
            "TO_DATE" => (F::ToDate, 1, 2),
            "ADD_MONTHS" => (F::AddMonths, 2, 2),
            "DBMS_UTILITY.GET_TIME" | "SYS.DBMS_UTILITY.GET_TIME" => (F::GetTime, 0, 0),
            "DBMS_UTILITY.GET_CPU_TIME" | "SYS.DBMS_UTILITY.GET_CPU_TIME" => (F::GetCpuTime, 0, 0),
            "REGEXP_LIKE" => (F::RegexpLike, 2, 3),
            "ARRAY_TO_STRING" => (F::ArrayToString, 2, 3),
            "ARRAY_UPPER" => (F::ArrayUpper, 2, 2),
            crate::syntax::parser::ARRAY_ELEMENT => (F::ArrayElement, 2, 2),
            _ => match CatalogFunction::resolve(name) {
                Some((function, min, max)) => (F::Catalog(function), min, max),
                None => return Err(Error::new(904, format!("\"{name}\": invalid identifier"))),
            },
        };
        if arguments < min {
            return Err(Error::new(938, "not enough arguments for function"));
        }
        if arguments > max {
            return Err(Error::new(939, "too many arguments for function"));
        }
        Ok(function)
    }
}

/// What evaluation needs besides the row.
pub struct Context<'a> {
    pub binds: &'a [Value],
    pub rownum: u64,
    pub sequences: &'a dyn SequenceAccess,
    /// The outer row's values a correlated subquery's plan reads (`Expr::Outer`).
    pub outer: &'a [Value],
    /// Runs correlated subqueries; None where there is no statement to run them in.
    pub subqueries: Option<&'a dyn SubqueryRunner>,
    /// The dictionary version the statement reads, for the catalog functions; None where
    /// there is no statement (they are NULL there).
    pub dictionary: Option<&'a crate::catalog::Dictionary>,
    /// Runs stored functions; None where none can run (ORA-06571).
    pub routines: Option<&'a dyn RoutineRunner>,
}

/// Sequences where no statement is around to read them: an expression compiled there holds
/// none, so reading one is an internal error.
struct NoSequences;

impl SequenceAccess for NoSequences {
    fn next_value(&self, _: &SequenceDef) -> Result<Value> {
        Err(Error::internal("a sequence read outside a statement"))
    }

    fn current_value(&self, _: &SequenceDef) -> Result<Value> {
        Err(Error::internal("a sequence read outside a statement"))
    }
}

static NO_SEQUENCES: NoSequences = NoSequences;

impl Context<'static> {
    /// A context with no statement around it: no binds, sequences, outer row, subqueries or
    /// dictionary (a PL/SQL expression over its frame, the unit tests).
    pub fn standalone() -> Context<'static> {
        Context {
            binds: &[],
            rownum: 0,
            sequences: &NO_SEQUENCES,
            outer: &[],
            subqueries: None,
            dictionary: None,
            routines: None,
        }
    }
}

impl Subquery {
    fn evaluate(&self, row: &[Value], context: &Context) -> Result<Value> {
        let runner = context
            .subqueries
            .ok_or_else(|| Error::internal("a correlated subquery outside a statement"))?;
        let outer = self
            .arguments
            .iter()
            .map(|argument| argument.evaluate(row, context))
            .collect::<Result<Vec<_>>>()?;
        let rows = runner.rows(&self.plan, &outer)?;
        match &self.kind {
            SubqueryKind::Scalar => match rows.len() {
                0 => Ok(Value::Null),
                1 => Ok(rows[0].first().cloned().unwrap_or(Value::Null)),
                _ => Err(Error::new(
                    1427,
                    "single-row subquery returns more than one row",
                )),
            },
            SubqueryKind::Exists { negated } => Ok(Value::Boolean(rows.is_empty() == *negated)),
            SubqueryKind::In { expr, negated } => {
                let value = expr.evaluate(row, context)?;
                in_list(&value, first_column(rows), *negated)
            }
            SubqueryKind::RowIn { exprs, negated } => {
                let values = exprs
                    .iter()
                    .map(|expr| expr.evaluate(row, context))
                    .collect::<Result<Vec<_>>>()?;
                let mut found = Some(false);
                for candidate in &rows {
                    let mut equal = Some(true);
                    for (value, item) in values.iter().zip(candidate) {
                        equal = and(equal, comparison(BinaryOperator::Equal, value, item)?);
                        if equal == Some(false) {
                            break;
                        }
                    }
                    found = or(found, equal);
                    if found == Some(true) {
                        break;
                    }
                }
                Ok(boolean(found.map(|found| found != *negated)))
            }
            SubqueryKind::Quantified { expr, op, all } => {
                let value = expr.evaluate(row, context)?;
                quantified(&value, *op, *all, first_column(rows))
            }
            SubqueryKind::Array => {
                let values = first_column(rows).collect::<Result<Vec<_>>>()?;
                Ok(postgresql::array_text(&values))
            }
        }
    }
}

fn first_column(rows: Vec<Vec<Value>>) -> impl Iterator<Item = Result<Value>> {
    rows.into_iter()
        .map(|row| Ok(row.into_iter().next().unwrap_or(Value::Null)))
}

/// `value [NOT] IN (items)`: `value = ANY (items)`, negated for NOT IN, so that a NULL among
/// the items makes NOT IN unknown when no item equals the value.
fn in_list(
    value: &Value,
    items: impl Iterator<Item = Result<Value>>,
    negated: bool,
) -> Result<Value> {
    let found = truth(&quantified(value, BinaryOperator::Equal, false, items)?);
    Ok(boolean(found.map(|found| found != negated)))
}

/// `value op ANY|ALL (items)`: ANY is TRUE as soon as a comparison is TRUE, ALL is FALSE as
/// soon as one is FALSE; otherwise the result is NULL if some comparison was unknown, else
/// ALL is TRUE and ANY FALSE. Over no items ANY is FALSE and ALL TRUE.
fn quantified(
    value: &Value,
    op: BinaryOperator,
    all: bool,
    items: impl Iterator<Item = Result<Value>>,
) -> Result<Value> {
    let decisive = !all;
    let mut unknown = false;
    for item in items {
        match comparison(op, value, &item?)? {
            Some(holds) if holds == decisive => return Ok(Value::Boolean(decisive)),
            Some(_) => {}
            None => unknown = true,
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Boolean(all)
    })
}

/// `left op right` for a comparison operator: None when unknown (a NULL).
fn comparison(op: BinaryOperator, left: &Value, right: &Value) -> Result<Option<bool>> {
    use BinaryOperator as B;
    let holds: fn(Ordering) -> bool = match op {
        B::Equal => Ordering::is_eq,
        B::NotEqual => Ordering::is_ne,
        B::Less => Ordering::is_lt,
        B::LessOrEqual => Ordering::is_le,
        B::Greater => Ordering::is_gt,
        B::GreaterOrEqual => Ordering::is_ge,
        other => return Err(Error::internal(format!("{other:?} is not a comparison"))),
    };
    Ok(compare(left, right)?.map(holds))
}

/// The constants of an IN list, hashed: a row's value of the same type family is found in
/// one probe instead of a comparison with each item.
#[derive(Debug)]
pub struct ValueSet {
    pub values: FxHashSet<GroupKey>,
    /// Whether the list holds a NULL (then a value not found makes IN unknown, not FALSE).
    pub has_null: bool,
    pub(crate) family: Family,
}

/// Lists shorter than this are compared item by item.
const IN_LIST_HASHED_MIN: usize = 4;

impl Expr {
    /// `expr [NOT] IN (list)`, with a hash of the list when it is at least
    /// `IN_LIST_HASHED_MIN` constants whose non-null values are of one type family.
    pub fn in_list(expr: Expr, list: Vec<Expr>, negated: bool) -> Expr {
        let mut set = None;
        if list.len() >= IN_LIST_HASHED_MIN {
            let mut values = FxHashSet::default();
            let mut has_null = false;
            let mut family = None;
            let mut hashable = true;
            for item in &list {
                match item {
                    Expr::Constant(Value::Null) => has_null = true,
                    Expr::Constant(value) if family.is_none_or(|f| f == value.family()) => {
                        family = Some(value.family());
                        values.insert(GroupKey(value.clone()));
                    }
                    _ => {
                        hashable = false;
                        break;
                    }
                }
            }
            if let (true, Some(family)) = (hashable, family) {
                set = Some(Arc::new(ValueSet {
                    values,
                    has_null,
                    family,
                }));
            }
        }
        Expr::InList {
            expr: Box::new(expr),
            list,
            negated,
            set,
        }
    }
}

/// NEXTVAL and CURRVAL go through the session (CURRVAL is per session).
pub trait SequenceAccess {
    fn next_value(&self, sequence: &SequenceDef) -> Result<Value>;
    fn current_value(&self, sequence: &SequenceDef) -> Result<Value>;
}

impl Expr {
    pub fn evaluate(&self, row: &[Value], context: &Context) -> Result<Value> {
        match self {
            Expr::Constant(value) => Ok(value.clone()),
            Expr::Column(index) => Ok(row[*index].clone()),
            Expr::Bind(index) => context
                .binds
                .get(*index)
                .cloned()
                .ok_or_else(|| Error::new(1008, "not all variables bound")),
            Expr::Unary(op, expr) => {
                let value = expr.evaluate(row, context)?;
                match op {
                    UnaryOperator::Plus => Ok(value),
                    UnaryOperator::Minus => value.neg(),
                    UnaryOperator::Not => Ok(match truth(&value) {
                        Some(truth) => Value::Boolean(!truth),
                        None => Value::Null,
                    }),
                }
            }
            Expr::Binary(left, op, right) => binary(left, *op, right, row, context),
            Expr::IsNull(expr, negated) => {
                let is_null = expr.evaluate(row, context)?.is_null();
                Ok(Value::Boolean(is_null != *negated))
            }
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => {
                let value = expr.operand(row, context)?;
                let low = compare(&value, &*low.operand(row, context)?)?;
                let high = compare(&value, &*high.operand(row, context)?)?;
                let inside = and(
                    low.map(|order| order != Ordering::Less),
                    high.map(|order| order != Ordering::Greater),
                );
                Ok(boolean(inside.map(|inside| inside != *negated)))
            }
            Expr::InList {
                expr,
                list,
                negated,
                set,
            } => {
                let value = expr.evaluate(row, context)?;
                if let Some(set) = set
                    .as_deref()
                    .filter(|set| !value.is_null() && value.family() == set.family)
                {
                    // Within one family SQL's equality is the total order's, which the
                    // set hashes by: the same answer as comparing with each item.
                    let found = if set.values.contains(&GroupKey(value)) {
                        Some(true)
                    } else if set.has_null {
                        None
                    } else {
                        Some(false)
                    };
                    return Ok(boolean(found.map(|found| found != *negated)));
                }
                let items = list.iter().map(|item| item.evaluate(row, context));
                in_list(&value, items, *negated)
            }
            Expr::Quantified {
                expr,
                op,
                all,
                list,
            } => {
                let value = expr.evaluate(row, context)?;
                let items = list.iter().map(|item| item.evaluate(row, context));
                quantified(&value, *op, *all, items)
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                negated,
            } => {
                let value = expr.evaluate(row, context)?;
                let pattern = pattern.evaluate(row, context)?;
                let escape = match escape {
                    Some(escape) => escape.evaluate(row, context)?.to_text(),
                    None => None,
                };
                let (Some(value), Some(pattern)) = (value.to_text(), pattern.to_text()) else {
                    return Ok(Value::Null);
                };
                let escape = match escape {
                    Some(text) if text.chars().count() == 1 => text.chars().next(),
                    Some(_) => {
                        return Err(Error::new(
                            1425,
                            "escape character must be character string of length 1",
                        ))
                    }
                    None => None,
                };
                let matched = like(&value, &pattern, escape);
                Ok(Value::Boolean(matched != *negated))
            }
            Expr::Case {
                operand,
                when_then,
                else_result,
            } => {
                let operand = match operand {
                    Some(operand) => Some(operand.evaluate(row, context)?),
                    None => None,
                };
                for (when, then) in when_then {
                    let when = when.evaluate(row, context)?;
                    let hit = match &operand {
                        Some(operand) => compare(operand, &when)? == Some(Ordering::Equal),
                        None => truth(&when) == Some(true),
                    };
                    if hit {
                        return then.evaluate(row, context);
                    }
                }
                match else_result {
                    Some(result) => result.evaluate(row, context),
                    None => Ok(Value::Null),
                }
            }
            Expr::Function(function, arguments) => call(*function, arguments, row, context),
            Expr::Cast(expr, data_type) => expr.evaluate(row, context)?.cast(data_type),
            Expr::NextValue(sequence) => context.sequences.next_value(sequence),
            Expr::CurrentValue(sequence) => context.sequences.current_value(sequence),
            Expr::Rownum => Ok(Value::integer(context.rownum as i64)),
            Expr::Outer(index) => context
                .outer
                .get(*index)
                .cloned()
                .ok_or_else(|| Error::internal("an outer reference with no outer row")),
            Expr::Subquery(subquery) => subquery.evaluate(row, context),
            Expr::Routine(routine, arguments) => {
                let runner = context.routines.ok_or_else(|| {
                    Error::new(
                        6571,
                        format!(
                            "Function {} does not guarantee not to update database",
                            routine.name
                        ),
                    )
                })?;
                let values = arguments
                    .iter()
                    .map(|argument| argument.evaluate(row, context))
                    .collect::<Result<Vec<_>>>()?;
                runner.call_function(routine, values)
            }
            Expr::Collection(collection, method, arguments) => {
                let runner = context
                    .routines
                    .ok_or_else(|| Error::internal("a collection read outside PL/SQL"))?;
                let values = arguments
                    .iter()
                    .map(|argument| argument.evaluate(row, context))
                    .collect::<Result<Vec<_>>>()?;
                runner.collection(*collection, *method, &values)
            }
        }
    }

    /// A condition's truth: Some(true) only when TRUE.
    /// The value of an operand, borrowed when it is a constant, a column or a bind: a
    /// comparison need not copy the text it compares.
    pub(crate) fn operand<'a>(
        &'a self,
        row: &'a [Value],
        context: &'a Context,
    ) -> Result<Cow<'a, Value>> {
        match self {
            Expr::Constant(value) => Ok(Cow::Borrowed(value)),
            Expr::Column(index) => Ok(Cow::Borrowed(&row[*index])),
            Expr::Bind(index) => context
                .binds
                .get(*index)
                .map(Cow::Borrowed)
                .ok_or_else(|| Error::new(1008, "not all variables bound")),
            _ => self.evaluate(row, context).map(Cow::Owned),
        }
    }

    pub fn is_true(&self, row: &[Value], context: &Context) -> Result<bool> {
        Ok(truth(&self.evaluate(row, context)?) == Some(true))
    }

    /// Whether the expression reads no column, bind, sequence or ROWNUM (foldable at plan time).
    pub fn is_constant(&self) -> bool {
        match self {
            Expr::Constant(_) => true,
            Expr::Column(_)
            | Expr::Bind(_)
            | Expr::NextValue(_)
            | Expr::CurrentValue(_)
            | Expr::Rownum
            | Expr::Outer(_)
            | Expr::Subquery(_)
            | Expr::Routine(..)
            | Expr::Collection(..) => false,
            Expr::Function(function, arguments) => {
                !matches!(
                    function,
                    Function::Sysdate
                        | Function::Systimestamp
                        | Function::GetTime
                        | Function::GetCpuTime
                ) && arguments.iter().all(Expr::is_constant)
            }
            _ => {
                let mut constant = true;
                self.visit_children(&mut |child| constant &= child.is_constant());
                constant
            }
        }
    }

    /// The highest column position read, if any (which sources an expression needs).
    pub fn max_column(&self) -> Option<usize> {
        match self {
            Expr::Column(index) => Some(*index),
            _ => {
                let mut highest: Option<usize> = None;
                self.visit_children(&mut |child| {
                    if let Some(column) = child.max_column() {
                        highest = Some(highest.map_or(column, |highest| highest.max(column)));
                    }
                });
                highest
            }
        }
    }

    /// Marks in `used` every column position this expression reads (positions beyond
    /// `used` are ignored).
    pub fn mark_columns(&self, used: &mut [bool]) {
        match self {
            Expr::Column(index) => {
                if let Some(slot) = used.get_mut(*index) {
                    *slot = true;
                }
            }
            _ => self.visit_children(&mut |child| child.mark_columns(used)),
        }
    }

    /// Whether evaluating may read blocks: a sequence (NEXTVAL may update the dictionary)
    /// or a correlated subquery.
    pub fn touches_blocks(&self) -> bool {
        match self {
            Expr::NextValue(_) | Expr::CurrentValue(_) | Expr::Subquery(_) | Expr::Routine(..) => {
                true
            }
            _ => {
                let mut touches = false;
                self.visit_children(&mut |child| touches |= child.touches_blocks());
                touches
            }
        }
    }

    /// Whether evaluating calls a stored function (which may run anything).
    pub fn calls_routines(&self) -> bool {
        match self {
            Expr::Routine(..) => true,
            _ => {
                let mut calls = false;
                self.visit_children(&mut |child| calls |= child.calls_routines());
                calls
            }
        }
    }

    /// Whether any column below `limit` is read.
    pub fn reads_columns_in(&self, range: std::ops::Range<usize>) -> bool {
        match self {
            Expr::Column(index) => range.contains(index),
            _ => {
                let mut reads = false;
                self.visit_children(&mut |child| reads |= child.reads_columns_in(range.clone()));
                reads
            }
        }
    }

    fn visit_children(&self, visit: &mut dyn FnMut(&Expr)) {
        match self {
            Expr::Constant(_)
            | Expr::Column(_)
            | Expr::Bind(_)
            | Expr::NextValue(_)
            | Expr::CurrentValue(_)
            | Expr::Rownum
            | Expr::Outer(_) => {}
            Expr::Subquery(subquery) => {
                subquery.arguments.iter().for_each(&mut *visit);
                match &subquery.kind {
                    SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } => {
                        visit(expr)
                    }
                    SubqueryKind::RowIn { exprs, .. } => exprs.iter().for_each(&mut *visit),
                    SubqueryKind::Scalar | SubqueryKind::Exists { .. } | SubqueryKind::Array => {}
                }
            }
            Expr::Unary(_, expr) | Expr::IsNull(expr, _) | Expr::Cast(expr, _) => visit(expr),
            Expr::Binary(left, _, right) => {
                visit(left);
                visit(right);
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                visit(expr);
                visit(low);
                visit(high);
            }
            Expr::InList { expr, list, .. } | Expr::Quantified { expr, list, .. } => {
                visit(expr);
                list.iter().for_each(&mut *visit);
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                ..
            } => {
                visit(expr);
                visit(pattern);
                if let Some(escape) = escape {
                    visit(escape);
                }
            }
            Expr::Case {
                operand,
                when_then,
                else_result,
            } => {
                if let Some(operand) = operand {
                    visit(operand);
                }
                for (when, then) in when_then {
                    visit(when);
                    visit(then);
                }
                if let Some(result) = else_result {
                    visit(result);
                }
            }
            Expr::Function(_, arguments)
            | Expr::Routine(_, arguments)
            | Expr::Collection(_, _, arguments) => arguments.iter().for_each(visit),
        }
    }
}

/// TRUE, FALSE or unknown.
pub fn truth(value: &Value) -> Option<bool> {
    match value {
        Value::Boolean(truth) => Some(*truth),
        Value::Null => None,
        // A number used as a condition (PostgreSQL clients do this): non-zero is true.
        other => other.as_decimal().map(|number| !number.is_zero()),
    }
}

fn boolean(truth: Option<bool>) -> Value {
    truth.map_or(Value::Null, Value::Boolean)
}

fn and(left: Option<bool>, right: Option<bool>) -> Option<bool> {
    match (left, right) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or(left: Option<bool>, right: Option<bool>) -> Option<bool> {
    match (left, right) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// SQL comparison with Oracle's implicit conversions; None when either side is NULL.
pub fn compare(left: &Value, right: &Value) -> Result<Option<Ordering>> {
    left.sql_compare(right)
}

fn binary(
    left: &Expr,
    op: BinaryOperator,
    right: &Expr,
    row: &[Value],
    context: &Context,
) -> Result<Value> {
    use BinaryOperator as B;
    match op {
        B::And => {
            let left = truth(&left.evaluate(row, context)?);
            if left == Some(false) {
                return Ok(Value::Boolean(false));
            }
            Ok(boolean(and(left, truth(&right.evaluate(row, context)?))))
        }
        B::Or => {
            let left = truth(&left.evaluate(row, context)?);
            if left == Some(true) {
                return Ok(Value::Boolean(true));
            }
            Ok(boolean(or(left, truth(&right.evaluate(row, context)?))))
        }
        _ => {
            let left = left.operand(row, context)?;
            let right = right.operand(row, context)?;
            match op {
                B::Add => left.add(&right),
                B::Subtract => left.sub(&right),
                B::Multiply => left.mul(&right),
                B::Divide => left.div(&right),
                B::Concat => left.concat(&right),
                comparison_operator => Ok(boolean(comparison(comparison_operator, &left, &right)?)),
            }
        }
    }
}

/// LIKE with `%` and `_` (and an optional escape character), on characters.
pub fn like(value: &str, pattern: &str, escape: Option<char>) -> bool {
    let value: Vec<char> = value.chars().collect();
    let mut tokens = Vec::new(); // (char, is_wildcard)
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            if let Some(next) = chars.next() {
                tokens.push((next, false));
            }
        } else {
            tokens.push((c, c == '%' || c == '_'));
        }
    }
    // Iterative matching with backtracking to the last '%'.
    let (mut v, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while v < value.len() {
        if p < tokens.len() && tokens[p] == ('_', true) {
            v += 1;
            p += 1;
        } else if p < tokens.len() && tokens[p] == ('%', true) {
            star = Some((p, v));
            p += 1;
        } else if p < tokens.len() && !tokens[p].1 && tokens[p].0 == value[v] {
            v += 1;
            p += 1;
        } else if let Some((star_p, star_v)) = star {
            p = star_p + 1;
            v = star_v + 1;
            star = Some((star_p, star_v + 1));
        } else {
            return false;
        }
    }
    while p < tokens.len() && tokens[p] == ('%', true) {
        p += 1;
    }
    p == tokens.len()
}

fn call(function: Function, arguments: &[Expr], row: &[Value], context: &Context) -> Result<Value> {
    use Function as F;
    // Functions that do not evaluate every argument first.
    match function {
        F::Coalesce | F::Nvl => {
            for argument in arguments {
                let value = argument.evaluate(row, context)?;
                if !value.is_null() {
                    return Ok(value);
                }
            }
            return Ok(Value::Null);
        }
        F::Nvl2 => {
            let chosen = if arguments[0].evaluate(row, context)?.is_null() {
                &arguments[2]
            } else {
                &arguments[1]
            };
            return chosen.evaluate(row, context);
        }
        F::Decode => {
            let subject = arguments[0].evaluate(row, context)?;
            let mut pairs = arguments[1..].chunks(2);
            for pair in pairs.by_ref() {
                if pair.len() == 1 {
                    return pair[0].evaluate(row, context);
                }
                let search = pair[0].evaluate(row, context)?;
                // DECODE treats two NULLs as equal.
                let equal = (subject.is_null() && search.is_null())
                    || compare(&subject, &search)? == Some(Ordering::Equal);
                if equal {
                    return pair[1].evaluate(row, context);
                }
            }
            return Ok(Value::Null);
        }
        _ => {}
    }
    let values = arguments
        .iter()
        .map(|argument| argument.evaluate(row, context))
        .collect::<Result<Vec<_>>>()?;
    let null_in = values.iter().any(Value::is_null);
    match function {
        F::Catalog(catalog) => postgresql::catalog_function(catalog, &values, context.dictionary),
        F::ArrayToString | F::RegexpLike if values[0].is_null() || values[1].is_null() => {
            Ok(Value::Null)
        }
        F::ArrayToString => {
            let null_text = values.get(2).and_then(Value::to_text);
            postgresql::array_to_string(
                &text_of(&values[0]),
                &text_of(&values[1]),
                null_text.as_deref(),
            )
        }
        F::RegexpLike => {
            let parameter = values.get(2).and_then(Value::to_text).unwrap_or_default();
            postgresql::regexp_like(&text_of(&values[0]), &text_of(&values[1]), &parameter)
                .map(Value::Boolean)
        }
        F::Sysdate => Ok(Value::Date(now_micros() / 1_000_000)),
        F::Sqlerrm => {
            let code = match values.first() {
                None | Some(Value::Null) => return Ok(Value::Null),
                Some(value) => value.to_decimal()?,
            };
            let code = i64::try_from(code.trunc()).unwrap_or(i64::MIN);
            let message = match code {
                0 => "ORA-0000: normal, successful completion".to_string(),
                100 => "ORA-01403: no data found".to_string(),
                1 => "User-Defined Exception".to_string(),
                // RAISE_APPLICATION_ERROR's numbers have no message of their own.
                code if (-20999..=-20000).contains(&code) => format!("ORA-{:05}: ", -code),
                code if code < 0 && code > -1_000_000 => {
                    let number = (-code) as u32;
                    match crate::error::standard_message(number) {
                        message if message.is_empty() => format!(
                            "ORA-{number:05}: Message {number} not found;  product=RDBMS; facility=ORA"
                        ),
                        message => format!("ORA-{number:05}: {message}"),
                    }
                }
                code => format!("{code}: non-ORACLE exception "),
            };
            Ok(Value::text(message))
        }
        F::GetTime => Ok(Value::integer((now_micros() / 10_000).rem_euclid(1 << 31))),
        F::GetCpuTime => Ok(Value::integer(
            (crate::instrumentation::thread_cpu_micros() / 10_000) as i64,
        )),
        F::Systimestamp => Ok(Value::Timestamp(now_micros())),
        // The session's user; SYSTEM on a thread that entered no session.
        F::User => Ok(Value::text(crate::instrumentation::current().map_or_else(
            || crate::catalog::users::SYSTEM_USER.to_string(),
            |session| session.username(),
        ))),
        F::Greatest | F::Least => {
            if null_in {
                return Ok(Value::Null);
            }
            let mut best = values[0].clone();
            for value in &values[1..] {
                let order = compare(value, &best)?;
                let better = match function {
                    F::Greatest => order == Some(Ordering::Greater),
                    _ => order == Some(Ordering::Less),
                };
                if better {
                    best = value.clone();
                }
            }
            Ok(best)
        }
        F::Nullif => Ok(
            if compare(&values[0], &values[1])? == Some(Ordering::Equal) {
                Value::Null
            } else {
                values[0].clone()
            },
        ),
        F::Concat => values[0].concat(&values[1]),
        F::Replace => replace(&values),
        _ if null_in => Ok(Value::Null),
        F::Upper => Ok(Value::text(text_of(&values[0]).to_uppercase())),
        F::Lower => Ok(Value::text(text_of(&values[0]).to_lowercase())),
        F::ArrayUpper => postgresql::array_upper(&text_of(&values[0]), integer_of(&values[1])?),
        F::ArrayElement => postgresql::array_element(&text_of(&values[0]), integer_of(&values[1])?),
        F::Length => Ok(Value::integer(text_of(&values[0]).chars().count() as i64)),
        F::Substr => {
            let text: Vec<char> = text_of(&values[0]).chars().collect();
            let start = integer_of(&values[1])?;
            let length = match values.get(2) {
                Some(length) => Some(integer_of(length)?),
                None => None,
            };
            let count = text.len() as i64;
            let begin = match start {
                0 => 0,
                start if start > 0 => start - 1,
                start => count + start,
            };
            if begin < 0 || begin >= count || length.is_some_and(|length| length < 1) {
                return Ok(Value::Null);
            }
            let end = length.map_or(count, |length| (begin + length).min(count));
            Ok(Value::text(
                text[begin as usize..end as usize]
                    .iter()
                    .collect::<String>(),
            ))
        }
        F::Abs => Ok(match &values[0] {
            Value::Float(float) => Value::Float(float.abs()),
            other => Value::Number(other.to_decimal()?.abs()),
        }),
        F::Round | F::Trunc => {
            if let Value::Date(seconds) = values[0] {
                // ROUND/TRUNC(date): to the day (the only format before the SQL issue).
                let day = seconds.div_euclid(86_400) * 86_400;
                let rounded = if function == F::Round && seconds - day >= 43_200 {
                    day + 86_400
                } else {
                    day
                };
                return Ok(Value::Date(rounded));
            }
            let places = match values.get(1) {
                Some(places) => integer_of(places)?,
                None => 0,
            };
            let number = values[0].to_decimal()?;
            Ok(Value::Number(round_decimal(
                number,
                places,
                function == F::Round,
            )))
        }
        F::Mod => values[0].modulo(&values[1]),
        F::ToChar => to_char(&values),
        F::ToNumber => to_number(&values),
        F::Ceil | F::Floor => Ok(match &values[0] {
            Value::Float(float) if function == F::Ceil => Value::Float(float.ceil()),
            Value::Float(float) => Value::Float(float.floor()),
            other if function == F::Ceil => Value::Number(other.to_decimal()?.ceil()),
            other => Value::Number(other.to_decimal()?.floor()),
        }),
        F::Power => values[0].power(&values[1]),
        F::Sqrt => values[0].square_root(),
        F::Sign => Ok(Value::integer(match &values[0] {
            // Oracle's SIGN of a BINARY_DOUBLE is -1 below zero and 1 otherwise: 0, -0 and
            // NaN give 1.
            Value::Float(float) if *float < 0.0 => -1,
            Value::Float(_) => 1,
            other => {
                let number = other.to_decimal()?;
                if number.is_zero() {
                    0
                } else if number.is_sign_negative() {
                    -1
                } else {
                    1
                }
            }
        })),
        F::Instr => {
            let position = match values.get(2) {
                Some(position) => integer_of(position)?,
                None => 1,
            };
            let occurrence = match values.get(3) {
                Some(occurrence) => integer_of(occurrence)?,
                None => 1,
            };
            let found = instr(
                &text_of(&values[0]),
                &text_of(&values[1]),
                position,
                occurrence,
            )?;
            Ok(Value::integer(found))
        }
        F::Initcap => Ok(Value::text(initial_capitals(&text_of(&values[0])))),
        F::Lpad | F::Rpad => {
            let padding = match values.get(2) {
                Some(padding) => text_of(padding),
                None => " ".to_string(),
            };
            let side = if function == F::Lpad {
                Side::Left
            } else {
                Side::Right
            };
            Ok(Value::text(pad(
                &text_of(&values[0]),
                pad_length(&values[1])?,
                &padding,
                side,
            )))
        }
        F::Trim => Ok(Value::text(text_of(&values[0]).trim_matches(' '))),
        F::Ltrim | F::Rtrim => {
            let text = text_of(&values[0]);
            let set: Vec<char> = match values.get(1) {
                Some(set) => text_of(set).chars().collect(),
                None => vec![' '],
            };
            let trimmed = if function == F::Ltrim {
                text.trim_start_matches(set.as_slice())
            } else {
                text.trim_end_matches(set.as_slice())
            };
            Ok(Value::text(trimmed))
        }
        F::ToDate => to_date(&values),
        F::AddMonths => {
            let Value::Date(seconds) = values[0].cast(&DataType::Date)? else {
                return Err(Error::internal("CAST AS DATE gave no DATE"));
            };
            let months = integer_of(&values[1])?;
            Ok(Value::Date(datetime::add_months(seconds, months)?))
        }
        F::Nvl | F::Nvl2 | F::Coalesce | F::Decode => unreachable!("handled above"),
    }
}

/// INSTR(text, pattern, position, occurrence): the 1-based character position where the
/// `occurrence`th match starts, 0 for none. A negative `position` counts from the end and
/// searches backwards from there (matches may still run past it to the end of the text);
/// position 0 finds nothing. Matches may overlap (`INSTR('aaa', 'aa', 1, 2)` is 2).
/// ORA-01428 for an occurrence below 1.
fn instr(text: &str, pattern: &str, position: i64, occurrence: i64) -> Result<i64> {
    if occurrence < 1 {
        return Err(crate::types::errors::argument_out_of_range(
            &occurrence.to_string(),
        ));
    }
    let text: Vec<char> = text.chars().collect();
    let pattern: Vec<char> = pattern.chars().collect();
    let text_length = text.len() as i64;
    let last_start = text_length - pattern.len() as i64;
    let matches_at = |start: i64| text[start as usize..].starts_with(&pattern);
    let mut seen = 0;
    let mut check = |start: i64| {
        if matches_at(start) {
            seen += 1;
        }
        seen == occurrence
    };
    if position > 0 {
        let mut start = position - 1;
        while start <= last_start {
            if check(start) {
                return Ok(start + 1);
            }
            start += 1;
        }
    } else if position < 0 {
        let mut start = (text_length + position).min(last_start);
        while start >= 0 {
            if check(start) {
                return Ok(start + 1);
            }
            start -= 1;
        }
    }
    Ok(0)
}

/// INITCAP: the first letter of each word in upper case, the others in lower case. Words
/// are runs of letters and digits (Oracle's rule: anything else separates them, so
/// `o'neil` becomes `O'Neil`).
fn initial_capitals(text: &str) -> String {
    let mut result = String::with_capacity(text.len());
    let mut in_word = false;
    for character in text.chars() {
        if character.is_alphanumeric() {
            if in_word {
                result.extend(character.to_lowercase());
            } else {
                result.extend(character.to_uppercase());
            }
            in_word = true;
        } else {
            result.push(character);
            in_word = false;
        }
    }
    result
}

/// The longest result LPAD and RPAD give, in characters: Oracle cuts longer ones to the
/// VARCHAR2 limit silently (`LENGTH(RPAD('x', 5000))` is 4000), and the limit keeps an
/// absurd length from allocating gigabytes.
const PAD_RESULT_CHARACTERS_MAX: i64 = crate::types::VARCHAR2_BYTES_MAX as i64;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

/// LPAD's and RPAD's length: truncated to an integer and held to
/// [`PAD_RESULT_CHARACTERS_MAX`], so that no length overflows; below 1 gives NULL.
fn pad_length(value: &Value) -> Result<i64> {
    let length = value
        .to_decimal()?
        .trunc()
        .clamp(Decimal::ZERO, Decimal::from(PAD_RESULT_CHARACTERS_MAX));
    Ok(length.to_i64().unwrap_or(0))
}

/// LPAD/RPAD: `text` filled on `side` with repeats of `padding` to `length` characters, or
/// cut to its first `length` characters when longer. Empty (NULL) for a length below 1.
fn pad(text: &str, length: i64, padding: &str, side: Side) -> String {
    let length = length.clamp(0, PAD_RESULT_CHARACTERS_MAX) as usize;
    let text_length = text.chars().count();
    if text_length >= length {
        return text.chars().take(length).collect();
    }
    let fill: String = padding.chars().cycle().take(length - text_length).collect();
    match side {
        Side::Left => fill + text,
        Side::Right => text.to_string() + &fill,
    }
}

/// REPLACE(text, search [, replacement]) with Oracle's NULLs: NULL text gives NULL, a NULL
/// search gives the text unchanged, a NULL or missing replacement removes what is found.
/// ORA-01489 when the result passes the VARCHAR2 limit (repeated REPLACEs could otherwise
/// grow text without bound).
fn replace(values: &[Value]) -> Result<Value> {
    let Some(text) = values[0].to_text() else {
        return Ok(Value::Null);
    };
    let Some(search) = values[1].to_text() else {
        return Ok(Value::text(text));
    };
    let replacement = values.get(2).and_then(Value::to_text).unwrap_or_default();
    let replaced = text.replace(&search, &replacement);
    if replaced.len() > crate::types::VARCHAR2_BYTES_MAX as usize && replaced.len() > text.len() {
        return Err(crate::types::errors::concatenation_too_long());
    }
    Ok(Value::text(replaced))
}

/// TO_DATE(value [, format]). Without a format, text is read as the default NLS forms are
/// (see `types/datetime.rs`); with one, by the format model (`types/date_format.rs`). A
/// DATE or TIMESTAMP is returned as a DATE, format or not (Oracle would first turn it into
/// text in the session's format, and lose the century on the way).
fn to_date(values: &[Value]) -> Result<Value> {
    let date = match (&values[0], values.get(1)) {
        (Value::Date(_) | Value::Timestamp(_), _) => return values[0].cast(&DataType::Date),
        (value, None) => datetime::parse_date(&text_of(value))?,
        (value, Some(format)) => {
            date_format::parse_date_with_format(&text_of(value), &text_of(format))?
        }
    };
    Ok(Value::Date(date))
}

fn round_decimal(number: Decimal, places: i64, round: bool) -> Decimal {
    let strategy = if round {
        rust_decimal::RoundingStrategy::MidpointAwayFromZero
    } else {
        rust_decimal::RoundingStrategy::ToZero
    };
    if places >= 0 {
        number.round_dp_with_strategy(places.min(28) as u32, strategy)
    } else {
        let factor = Decimal::from_i128_with_scale(10i128.pow((-places).min(28) as u32), 0);
        (number / factor).round_dp_with_strategy(0, strategy) * factor
    }
}

/// TO_CHAR(value [, format [, nls]]): a DATE or TIMESTAMP by its date format model
/// (`types::date_format`; the NLS argument is not read, only the default language exists),
/// a NUMBER, BINARY_DOUBLE or number text by its number format model
/// (`types::number_format`). Without a format, the value as text.
fn to_char(values: &[Value]) -> Result<Value> {
    let Some(format) = values.get(1) else {
        return Ok(Value::text(text_of(&values[0])));
    };
    let format = text_of(format);
    let civil = match &values[0] {
        Value::Date(seconds) => datetime::civil_from_date(*seconds),
        Value::Timestamp(microseconds) => datetime::civil_from_timestamp(*microseconds),
        Value::Number(_) | Value::Float(_) | Value::Text(_) => {
            let nls = values.get(2).map(text_of);
            return number_format::to_char(&values[0], &format, nls.as_deref());
        }
        other => return Ok(Value::text(text_of(other))),
    };
    date_format::format_date_with_format(&civil, &format).map(Value::text)
}

/// TO_NUMBER(text [, format [, nls]]): number text as `Value::parse_number` reads it, or
/// read against a number format model (`types::number_format`).
fn to_number(values: &[Value]) -> Result<Value> {
    let text = text_of(&values[0]);
    match values.get(1) {
        None => Value::parse_number(&text),
        Some(format) => {
            let nls = values.get(2).map(text_of);
            number_format::to_number(&text, &text_of(format), nls.as_deref())
        }
    }
}

fn text_of(value: &Value) -> String {
    value.to_text().unwrap_or_default()
}

fn integer_of(value: &Value) -> Result<i64> {
    value
        .to_decimal()?
        .trunc()
        .to_i64()
        .ok_or_else(crate::types::errors::numeric_overflow)
}

fn now_micros() -> i64 {
    chrono::Local::now()
        .naive_local()
        .and_utc()
        .timestamp_micros()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hashed IN list answers as the item-by-item comparison does, for values of the
    /// list's family, of another one (converted or refused alike), and NULL, with and
    /// without a NULL in the list.
    #[test]
    fn a_hashed_in_list_answers_as_comparing_each_item() {
        let items = |with_null: bool| {
            let mut items: Vec<Expr> = (0..10)
                .map(|n| Expr::Constant(Value::integer(n * 3)))
                .collect();
            if with_null {
                items.push(Expr::Constant(Value::Null));
            }
            items
        };
        let probes = [
            Value::integer(6),
            Value::integer(7),
            Value::Float(9.0),
            Value::Float(9.5),
            Value::text("12"),
            Value::text("13"),
            Value::text("x"),
            Value::Null,
        ];
        for with_null in [false, true] {
            for negated in [false, true] {
                let hashed = Expr::in_list(Expr::Column(0), items(with_null), negated);
                assert!(matches!(&hashed, Expr::InList { set: Some(_), .. }));
                let linear = Expr::InList {
                    expr: Box::new(Expr::Column(0)),
                    list: items(with_null),
                    negated,
                    set: None,
                };
                let context = Context::standalone();
                for probe in &probes {
                    let row = [probe.clone()];
                    let a = hashed.evaluate(&row, &context).map_err(|e| e.code());
                    let b = linear.evaluate(&row, &context).map_err(|e| e.code());
                    assert_eq!(
                        format!("{a:?}"),
                        format!("{b:?}"),
                        "{probe:?} IN, NULL listed: {with_null}, NOT: {negated}"
                    );
                }
            }
        }
        // Mixed families and expressions stay item by item.
        let mut mixed = items(false);
        mixed.push(Expr::Constant(Value::text("a")));
        assert!(matches!(
            Expr::in_list(Expr::Column(0), mixed, false),
            Expr::InList { set: None, .. }
        ));
    }

    /// INSTR with a negative position searches backwards from that many characters before
    /// the end, and a match may run past the starting point to the end of the text.
    #[test]
    fn instr_negative_positions_search_backwards() {
        assert_eq!(instr("abcabc", "bc", -1, 1).unwrap(), 5);
        assert_eq!(
            instr("abcabc", "bc", -2, 1).unwrap(),
            5,
            "starts at 5, ends at 6"
        );
        assert_eq!(instr("abcabc", "bc", -3, 1).unwrap(), 2);
        assert_eq!(instr("abcabc", "bc", -1, 2).unwrap(), 2);
        assert_eq!(instr("abcabc", "bc", -1, 3).unwrap(), 0);
        assert_eq!(instr("CORPORATE FLOOR", "OR", -3, 2).unwrap(), 2);
        assert_eq!(instr("abc", "abc", -1, 1).unwrap(), 1);
        assert_eq!(instr("abc", "a", -3, 1).unwrap(), 1);
        assert_eq!(instr("abc", "a", -4, 1).unwrap(), 0, "before the start");
        assert_eq!(
            instr("abc", "abcd", -1, 1).unwrap(),
            0,
            "longer than the text"
        );
        assert_eq!(instr("abc", "a", i64::MIN, 1).unwrap(), 0, "no overflow");
    }

    #[test]
    fn instr_positive_positions_and_occurrences() {
        assert_eq!(instr("CORPORATE FLOOR", "OR", 1, 1).unwrap(), 2);
        assert_eq!(instr("CORPORATE FLOOR", "OR", 3, 2).unwrap(), 14);
        assert_eq!(instr("aaaa", "aa", 1, 2).unwrap(), 2, "matches overlap");
        assert_eq!(instr("aaaa", "aa", 1, 4).unwrap(), 0);
        assert_eq!(instr("abc", "c", 3, 1).unwrap(), 3);
        assert_eq!(instr("abc", "c", 4, 1).unwrap(), 0, "beyond the end");
        assert_eq!(
            instr("abc", "a", 0, 1).unwrap(),
            0,
            "position 0 finds nothing"
        );
        assert_eq!(instr("abc", "a", i64::MAX, 1).unwrap(), 0);
        assert_eq!(instr("éaé", "é", 2, 1).unwrap(), 3, "characters, not bytes");
        assert_eq!(instr("abc", "a", 1, 0).unwrap_err().code(), 1428);
        assert_eq!(instr("abc", "a", 1, -1).unwrap_err().code(), 1428);
    }

    /// LPAD and RPAD cut a longer text to its first characters on either side, and hold
    /// the length to the VARCHAR2 limit.
    #[test]
    fn pad_truncates_and_fills() {
        assert_eq!(pad("abcdef", 3, " ", Side::Left), "abc");
        assert_eq!(pad("abcdef", 3, " ", Side::Right), "abc");
        assert_eq!(pad("abc", 3, "*", Side::Left), "abc");
        assert_eq!(pad("abc", 7, "xy", Side::Left), "xyxyabc");
        assert_eq!(pad("abc", 6, "xy", Side::Right), "abcxyx");
        assert_eq!(pad("abc", 0, "x", Side::Left), "");
        assert_eq!(
            pad("ééé", 2, "x", Side::Left),
            "éé",
            "characters, not bytes"
        );
        assert_eq!(pad("é", 3, "ü", Side::Left), "üüé");
        assert_eq!(
            pad("x", i64::MAX, "y", Side::Right).chars().count(),
            PAD_RESULT_CHARACTERS_MAX as usize
        );
        assert_eq!(pad_length(&Value::integer(-5)).unwrap(), 0);
        assert_eq!(
            pad_length(&Value::text("4.9")).unwrap(),
            4,
            "truncated, text converted"
        );
        assert_eq!(
            pad_length(&Value::Number(Decimal::MAX)).unwrap(),
            PAD_RESULT_CHARACTERS_MAX
        );
        assert_eq!(pad_length(&Value::text("ten")).unwrap_err().code(), 1722);
    }

    #[test]
    fn initcap_splits_words_on_anything_not_alphanumeric() {
        assert_eq!(initial_capitals("hello wORLD"), "Hello World");
        assert_eq!(initial_capitals("o'neil-smith"), "O'Neil-Smith");
        assert_eq!(initial_capitals("2nd place"), "2nd Place");
        assert_eq!(initial_capitals("élan ÉTÉ"), "Élan Été");
    }

    #[test]
    fn replace_follows_oracle_nulls_and_limits() {
        let replace_all = |values: &[Value]| replace(values).unwrap();
        assert_eq!(
            replace_all(&[Value::text("banana"), Value::text("an")]),
            Value::text("ba")
        );
        assert_eq!(
            replace_all(&[Value::text("banana"), Value::Null, Value::text("x")]),
            Value::text("banana")
        );
        assert_eq!(
            replace_all(&[Value::Null, Value::text("a"), Value::text("b")]),
            Value::Null
        );
        assert_eq!(
            replace_all(&[Value::text("aa"), Value::text("a"), Value::Null]),
            Value::Null,
            "empty is NULL"
        );
        let long = Value::text("a".repeat(100));
        let error = replace(&[long, Value::text("a"), Value::text("b".repeat(100))]).unwrap_err();
        assert_eq!(error.code(), 1489);
    }
}
