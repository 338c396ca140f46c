//! `Value`: one SQL value, and the orders and equalities defined on values.
//!
//! Three comparisons, for three jobs:
//!
//! ```text
//!   sql_cmp      WHERE a < b on values of one family   None if either side is NULL (unknown)
//!   sql_compare  WHERE a < b with implicit conversion  Err(ORA-01722 ...) if the conversion fails
//!   total_cmp    ORDER BY, indexes, merge joins        total: NULL last, never fails
//! ```
//!
//! The total order ranks families, then values within a family:
//!
//! ```text
//!   BOOLEAN (FALSE < TRUE)  <  numbers  <  text  <  DATE/TIMESTAMP  <  NULL
//!                              |           |        |
//!                              |           |        by instant: DATE '2026-01-01' equals
//!                              |           |        TIMESTAMP '2026-01-01 00:00:00.000000'
//!                              |           by bytes (Oracle's BINARY collation)
//!                              NUMBER and BINARY_DOUBLE together, exactly (see numeric.rs):
//!                              -Inf < ... < -0.0 = 0 < ... < +Inf < NaN
//! ```
//!
//! Mixing families happens only in expressions the planner did not type (a column has one
//! type); the ranks only make the order total. [`GroupKey`] gives GROUP BY, DISTINCT and hash
//! joins the equality of `total_cmp`: `1`, `1.00` and `1.0d` are one group, NULLs are one
//! group.
//!
//! Deviation from Oracle, on purpose: Oracle compares a NUMBER with a BINARY_DOUBLE by first
//! converting the NUMBER to BINARY_DOUBLE, so `0.1 = 0.1d` is true there. Here the comparison
//! is exact (`0.1 < 0.1d`), because a rounding comparison is not transitive and sorting,
//! grouping and index keys must agree with predicates.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use rust_decimal::Decimal;

use super::conversion;
use super::data_type::DataType;
use super::datetime::{self, MICROSECONDS_PER_SECOND};
use super::errors;
use super::numeric;
use crate::error::Result;

/// One SQL value. Oracle has no empty string: build text with [`Value::text`], which turns
/// `""` into `Null`.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    /// NUMBER: exact decimal, at most 28-29 significant digits (Oracle has 38).
    Number(Decimal),
    /// BINARY_DOUBLE.
    Float(f64),
    /// VARCHAR2 or CHAR text, never empty when built through [`Value::text`].
    Text(String),
    /// DATE: seconds since 1970-01-01 00:00:00, no time zone.
    Date(i64),
    /// TIMESTAMP: microseconds since 1970-01-01 00:00:00, no time zone.
    Timestamp(i64),
    /// BOOLEAN.
    Boolean(bool),
}

/// The family a value belongs to, in total-order rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Family {
    Boolean,
    Numeric,
    Text,
    Datetime,
    Null,
}

impl Value {
    /// Text with Oracle's rule: the empty string is NULL.
    pub fn text(text: impl Into<String>) -> Value {
        let text = text.into();
        if text.is_empty() {
            Value::Null
        } else {
            Value::Text(text)
        }
    }

    /// [`Value::text`] from a borrowed string.
    pub fn from_text(text: &str) -> Value {
        Value::text(text)
    }

    /// A NUMBER holding an integer.
    pub fn integer(value: i64) -> Value {
        Value::Number(Decimal::from(value))
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The text a user sees, None for NULL. Numbers, dates and timestamps are written as
    /// TO_CHAR writes them without a format (see [`conversion::format_number`]).
    pub fn to_text(&self) -> Option<String> {
        match self {
            Value::Null => None,
            Value::Text(text) => Some(text.clone()),
            other => Some(other.to_string()),
        }
    }

    pub fn as_decimal(&self) -> Option<Decimal> {
        match self {
            Value::Number(number) => Some(*number),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_boolean(&self) -> Option<bool> {
        match self {
            Value::Boolean(value) => Some(*value),
            _ => None,
        }
    }

    /// The type an expression producing this value has, for CREATE TABLE AS SELECT and
    /// DESCRIBE of a query: NUMBER, BINARY_DOUBLE, VARCHAR2(bytes), DATE, TIMESTAMP, BOOLEAN.
    /// None for NULL, whose type comes from context.
    pub fn data_type(&self) -> Option<DataType> {
        match self {
            Value::Null => None,
            Value::Number(_) => Some(DataType::number()),
            Value::Float(_) => Some(DataType::Float),
            Value::Text(text) => Some(DataType::varchar2(text.len().max(1) as u32)),
            Value::Date(_) => Some(DataType::Date),
            Value::Timestamp(_) => Some(DataType::Timestamp),
            Value::Boolean(_) => Some(DataType::Boolean),
        }
    }

    /// Oracle's name for the value's type, as ORA-00932 prints it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Number(_) => "NUMBER",
            Value::Float(_) => "BINARY_DOUBLE",
            Value::Text(_) => "CHAR",
            Value::Date(_) => "DATE",
            Value::Timestamp(_) => "TIMESTAMP",
            Value::Boolean(_) => "BOOLEAN",
        }
    }

    pub(crate) fn family(&self) -> Family {
        match self {
            Value::Null => Family::Null,
            Value::Number(_) | Value::Float(_) => Family::Numeric,
            Value::Text(_) => Family::Text,
            Value::Date(_) | Value::Timestamp(_) => Family::Datetime,
            Value::Boolean(_) => Family::Boolean,
        }
    }

    /// A DATE or TIMESTAMP as (seconds, microseconds within the second): the instant both
    /// compare by.
    pub(crate) fn instant(&self) -> Option<(i64, u32)> {
        match self {
            Value::Date(seconds) => Some((*seconds, 0)),
            Value::Timestamp(microseconds) => Some((
                microseconds.div_euclid(MICROSECONDS_PER_SECOND),
                microseconds.rem_euclid(MICROSECONDS_PER_SECOND) as u32,
            )),
            _ => None,
        }
    }

    /// SQL comparison without conversion: None (unknown) if either side is NULL, otherwise
    /// the [`Value::total_cmp`] order. Use [`Value::sql_compare`] when the two sides may be of
    /// different families (text against a number or a date).
    pub fn sql_cmp(&self, other: &Value) -> Option<Ordering> {
        if self.is_null() || other.is_null() {
            return None;
        }
        Some(self.total_cmp(other))
    }

    /// SQL comparison with Oracle's implicit conversion: text compared with a number is
    /// converted to a number (ORA-01722 if it is not one), text compared with a DATE or
    /// TIMESTAMP to a timestamp, text compared with a BOOLEAN to a boolean. Other mixes of
    /// families are ORA-00932. Ok(None) if either side is NULL.
    pub fn sql_compare(&self, other: &Value) -> Result<Option<Ordering>> {
        if self.is_null() || other.is_null() {
            return Ok(None);
        }
        if self.family() == other.family() {
            return Ok(Some(self.total_cmp(other)));
        }
        match (self, other) {
            (Value::Text(text), typed) => Ok(Some(
                conversion::convert_text_like(text, typed)?.total_cmp(typed),
            )),
            (typed, Value::Text(text)) => Ok(Some(
                typed.total_cmp(&conversion::convert_text_like(text, typed)?),
            )),
            _ => Err(errors::inconsistent_datatypes(
                self.type_name(),
                other.type_name(),
            )),
        }
    }

    /// The total order for sorting and index keys; see the module documentation. NULL sorts
    /// last (Oracle's ascending default); reverse the result for DESC, which puts NULL first.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Number(left), Value::Number(right)) => left.cmp(right),
            (Value::Float(left), Value::Float(right)) => numeric::compare_floats(*left, *right),
            (Value::Number(left), Value::Float(right)) => {
                numeric::compare_decimal_float(left, *right)
            }
            (Value::Float(left), Value::Number(right)) => {
                numeric::compare_decimal_float(right, *left).reverse()
            }
            (Value::Text(left), Value::Text(right)) => left.as_bytes().cmp(right.as_bytes()),
            (Value::Boolean(left), Value::Boolean(right)) => left.cmp(right),
            (Value::Null, Value::Null) => Ordering::Equal,
            _ => match (self.instant(), other.instant()) {
                (Some(left), Some(right)) => left.cmp(&right),
                _ => self.family().cmp(&other.family()),
            },
        }
    }
}

impl From<Decimal> for Value {
    fn from(value: Decimal) -> Value {
        Value::Number(value)
    }
}

impl From<i64> for Value {
    fn from(value: i64) -> Value {
        Value::Number(Decimal::from(value))
    }
}

impl From<i32> for Value {
    fn from(value: i32) -> Value {
        Value::Number(Decimal::from(value))
    }
}

impl From<u64> for Value {
    fn from(value: u64) -> Value {
        Value::Number(Decimal::from(value))
    }
}

impl From<usize> for Value {
    fn from(value: usize) -> Value {
        Value::Number(Decimal::from(value as u64))
    }
}

impl From<f64> for Value {
    fn from(value: f64) -> Value {
        Value::Float(value)
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Value {
        Value::Boolean(value)
    }
}

/// Through [`Value::text`]: `""` becomes NULL.
impl From<&str> for Value {
    fn from(value: &str) -> Value {
        Value::text(value)
    }
}

/// Through [`Value::text`]: `""` becomes NULL.
impl From<String> for Value {
    fn from(value: String) -> Value {
        Value::text(value)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Value {
        value.map_or(Value::Null, Into::into)
    }
}

/// What SQL*Plus shows: NULL as nothing, numbers as TO_CHAR without a format (`.5`, `-.5`,
/// `100`, `1.25`), BINARY_DOUBLE as `1.5E+000`, DATE as `DD-MON-RR`, TIMESTAMP as
/// `DD-MON-RR HH.MI.SSXFF AM`, BOOLEAN as `TRUE`/`FALSE`.
impl fmt::Display for Value {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Number(number) => formatter.write_str(&conversion::format_number(number)),
            Value::Float(float) => formatter.write_str(&conversion::format_float(*float)),
            Value::Text(text) => formatter.write_str(text),
            Value::Date(seconds) => formatter.write_str(&datetime::format_date(*seconds)),
            Value::Timestamp(microseconds) => {
                formatter.write_str(&datetime::format_timestamp(*microseconds))
            }
            Value::Boolean(true) => formatter.write_str("TRUE"),
            Value::Boolean(false) => formatter.write_str("FALSE"),
        }
    }
}

/// A value as a GROUP BY / DISTINCT / hash-join key: equal when [`Value::total_cmp`] says
/// Equal (so `1`, `1.00` and `1.0d` are one key, DATE and TIMESTAMP at the same instant are
/// one key, and NULL equals NULL), and hashing consistently with that equality.
#[derive(Clone, Debug)]
pub struct GroupKey(pub Value);

impl PartialEq for GroupKey {
    fn eq(&self, other: &GroupKey) -> bool {
        self.0.total_cmp(&other.0) == Ordering::Equal
    }
}

impl Eq for GroupKey {}

impl PartialOrd for GroupKey {
    fn partial_cmp(&self, other: &GroupKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for GroupKey {
    fn cmp(&self, other: &GroupKey) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl Hash for GroupKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash_key(state);
    }
}

impl Value {
    /// Feeds `state` so that values [`Value::total_cmp`] calls equal hash equally: what
    /// [`GroupKey`]'s `Hash` uses, for hash tables keyed by value without the wrapper.
    pub fn hash_key<H: Hasher>(&self, state: &mut H) {
        fn hash_decimal<H: Hasher>(number: &Decimal, state: &mut H) {
            let normalized = number.normalize();
            state.write_u8(1);
            state.write_i128(normalized.mantissa());
            state.write_u32(normalized.scale());
        }
        match self {
            Value::Null => state.write_u8(0),
            Value::Number(number) => hash_decimal(number, state),
            // A double equal to some NUMBER hashes as that NUMBER; any other double equals
            // only doubles with the same bits (NaNs all equal, so they share one hash).
            Value::Float(float) => match numeric::decimal_from_float_exact(*float) {
                Some(number) => hash_decimal(&number, state),
                None if float.is_nan() => state.write_u8(2),
                None => {
                    state.write_u8(3);
                    state.write_u64(float.to_bits());
                }
            },
            Value::Text(text) => {
                state.write_u8(4);
                state.write(text.as_bytes());
                state.write_u8(0xFF);
            }
            Value::Date(_) | Value::Timestamp(_) => {
                let (seconds, microseconds) = self.instant().unwrap_or_default();
                state.write_u8(5);
                state.write_i64(seconds);
                state.write_u32(microseconds);
            }
            Value::Boolean(value) => {
                state.write_u8(6);
                state.write_u8(*value as u8);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;
    use std::collections::HashSet;
    use std::str::FromStr;

    fn number(text: &str) -> Value {
        Value::Number(Decimal::from_str(text).unwrap())
    }

    fn hash_of(value: &Value) -> u64 {
        let mut hasher = DefaultHasher::new();
        GroupKey(value.clone()).hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn empty_string_is_null() {
        assert_eq!(Value::text(""), Value::Null);
        assert_eq!(Value::from_text(""), Value::Null);
        assert_eq!(Value::from(""), Value::Null);
        assert_eq!(Value::text("a"), Value::Text("a".into()));
        assert_eq!(Value::Null.to_text(), None);
        assert_eq!(Value::Null.to_string(), "");
    }

    #[test]
    fn null_comparisons_are_unknown() {
        assert_eq!(Value::Null.sql_cmp(&Value::integer(1)), None);
        assert_eq!(Value::integer(1).sql_cmp(&Value::Null), None);
        assert_eq!(Value::Null.sql_cmp(&Value::Null), None);
        assert_eq!(Value::Null.sql_compare(&Value::Null).unwrap(), None);
        assert_eq!(
            Value::integer(1).sql_cmp(&number("1.0")),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn total_order_puts_null_last_and_compares_numbers_across_kinds() {
        assert_eq!(Value::Null.total_cmp(&Value::integer(1)), Ordering::Greater);
        assert_eq!(Value::text("zzz").total_cmp(&Value::Null), Ordering::Less);
        assert_eq!(Value::Null.total_cmp(&Value::Null), Ordering::Equal);
        assert_eq!(number("1.5").total_cmp(&Value::Float(1.5)), Ordering::Equal);
        assert_eq!(number("2").total_cmp(&Value::Float(1.5)), Ordering::Greater);
        assert_eq!(
            Value::Float(-0.0).total_cmp(&Value::Float(0.0)),
            Ordering::Equal
        );
        assert_eq!(
            Value::Float(f64::NAN).total_cmp(&Value::Float(f64::INFINITY)),
            Ordering::Greater
        );
        assert_eq!(
            Value::text("B").total_cmp(&Value::text("a")),
            Ordering::Less,
            "BINARY collation"
        );
    }

    #[test]
    fn dates_and_timestamps_compare_by_instant() {
        let date = Value::Date(1_000);
        assert_eq!(
            date.total_cmp(&Value::Timestamp(1_000_000_000)),
            Ordering::Equal
        );
        assert_eq!(
            date.total_cmp(&Value::Timestamp(1_000_000_001)),
            Ordering::Less
        );
        assert_eq!(
            Value::Date(-1).total_cmp(&Value::Timestamp(-999_999)),
            Ordering::Less
        );
    }

    #[test]
    fn sql_compare_converts_text_like_oracle() {
        assert_eq!(
            Value::integer(10).sql_compare(&Value::text("9")).unwrap(),
            Some(Ordering::Greater)
        );
        assert_eq!(
            Value::text("10").sql_compare(&Value::text("9")).unwrap(),
            Some(Ordering::Less)
        );
        assert_eq!(
            Value::text("abc")
                .sql_compare(&Value::integer(1))
                .unwrap_err()
                .code(),
            1722
        );
        let date = Value::Date(datetime::parse_date("2026-11-21").unwrap());
        assert_eq!(
            date.sql_compare(&Value::text("2026-11-21")).unwrap(),
            Some(Ordering::Equal)
        );
        assert_eq!(
            Value::integer(1).sql_compare(&date).unwrap_err().code(),
            932
        );
    }

    fn small_value_strategy() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        prop_oneof![
            Just(Value::Null),
            (-40i64..40, 0u32..4)
                .prop_map(|(mantissa, scale)| Value::Number(Decimal::new(mantissa, scale))),
            (-40i32..40, 0i32..3).prop_map(|(numerator, shift)| Value::Float(
                numerator as f64 / (1 << shift) as f64
            )),
            prop_oneof![Just(0.1), Just(-0.0), Just(f64::NAN), Just(f64::INFINITY)]
                .prop_map(Value::Float),
            "[ab]{0,2}".prop_map(Value::Text),
            (-2i64..2).prop_map(Value::Date),
            (-2i64..2, prop_oneof![Just(0i64), Just(1)])
                .prop_map(|(second, micro)| Value::Timestamp(second * 1_000_000 + micro)),
            any::<bool>().prop_map(Value::Boolean),
        ]
    }

    proptest::proptest! {
        #[test]
        fn group_key_hash_agrees_with_equality(left in small_value_strategy(), right in small_value_strategy()) {
            let equal = GroupKey(left.clone()) == GroupKey(right.clone());
            proptest::prop_assert_eq!(equal, left.total_cmp(&right) == Ordering::Equal);
            if equal {
                proptest::prop_assert_eq!(hash_of(&left), hash_of(&right), "{:?} {:?}", left, right);
            }
            proptest::prop_assert_eq!(left.total_cmp(&right), right.total_cmp(&left).reverse());
        }
    }

    #[test]
    fn group_keys_merge_numerically_equal_values() {
        let values = [
            number("1"),
            number("1.00"),
            Value::Float(1.0),
            Value::integer(1),
        ];
        for value in &values {
            assert_eq!(GroupKey(value.clone()), GroupKey(values[0].clone()));
            assert_eq!(hash_of(value), hash_of(&values[0]));
        }
        assert_eq!(hash_of(&Value::Float(-0.0)), hash_of(&Value::integer(0)));
        assert_eq!(
            hash_of(&Value::Date(5)),
            hash_of(&Value::Timestamp(5_000_000))
        );
        let set: HashSet<GroupKey> = [
            Value::Null,
            Value::Null,
            number("0.5"),
            Value::Float(0.5),
            Value::Float(0.1),
            number("0.1"),
        ]
        .into_iter()
        .map(GroupKey)
        .collect();
        assert_eq!(
            set.len(),
            4,
            "NULL, 0.5, 0.1d and 0.1 (0.1d is not exactly 0.1)"
        );
    }
}
