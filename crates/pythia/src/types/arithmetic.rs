//! Arithmetic operators with Oracle's rules.
//!
//! ```text
//!   operands                       result          notes
//!   NULL op anything               NULL            (|| is the exception: NULL is '')
//!   NUMBER op NUMBER               NUMBER          exact decimal; ORA-01426 on overflow,
//!                                                  ORA-01476 on division by zero
//!   NUMBER op BINARY_DOUBLE        BINARY_DOUBLE   IEEE: x / 0 is ±Inf, overflow is ±Inf
//!   text op number                 as if text were the number it spells (ORA-01722 if not)
//!   DATE ± number                  DATE            number of days, fractions allowed, rounded
//!                                                  to the second; ORA-01841 out of range
//!   number + DATE                  DATE
//!   DATE - DATE                    NUMBER          days, fractional
//!   TIMESTAMP ± number             TIMESTAMP       rounded to the microsecond (*)
//!   TIMESTAMP - DATE/TIMESTAMP     NUMBER          days, fractional (*)
//!   DATE + DATE                    ORA-00975
//!   BOOLEAN, or DATE in * / MOD    ORA-00932
//! ```
//!
//! (*) Deviations: Oracle returns a DATE for TIMESTAMP ± number, and an INTERVAL DAY TO
//! SECOND for a difference involving a TIMESTAMP; this engine has no INTERVAL type and keeps
//! the microseconds.
//!
//! MOD(m, n) is Oracle's: the sign of m, and m itself when n is 0.
//!
//! POWER and SQRT keep NUMBER exact where the answer can be:
//!
//! ```text
//!   POWER(m, n), n an integer      exact (repeated squaring); ORA-01426 beyond NUMBER here;
//!                                  a negative n divides 1 by m^-n (28 decimals); 0^-n is
//!                                  ORA-01428
//!   POWER(m, n), n a fraction      through a double (no exact answer exists in general);
//!                                  m < 0 is ORA-01428
//!   SQRT(n)                        Newton's method in decimal from the double's estimate:
//!                                  exact for exact squares (SQRT(2.25) = 1.5), 28 digits
//!                                  otherwise; n < 0 is ORA-01428
//!   BINARY_DOUBLE operand          IEEE: SQRT(-1d) and POWER(-8d, 0.5) are NaN, as in Oracle
//! ```

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, MathematicalOps, RoundingStrategy};

use super::conversion::{decimal_from_float, format_number};
use super::data_type::VARCHAR2_BYTES_MAX;
use super::datetime::{self, MICROSECONDS_PER_DAY, SECONDS_PER_DAY};
use super::errors;
use super::numeric;
use super::value::Value;
use crate::error::Result;

/// An operand of a numeric operator after implicit conversion.
#[derive(Clone, Copy)]
enum Numeric {
    Decimal(Decimal),
    Float(f64),
}

impl Numeric {
    fn from_value(value: &Value) -> Result<Numeric> {
        match value {
            Value::Number(number) => Ok(Numeric::Decimal(*number)),
            Value::Float(float) => Ok(Numeric::Float(*float)),
            Value::Text(_) => Ok(Numeric::Decimal(value.to_decimal()?)),
            other => Err(errors::inconsistent_datatypes("NUMBER", other.type_name())),
        }
    }

    fn to_float(self) -> f64 {
        match self {
            Numeric::Decimal(number) => numeric::float_from_decimal(&number),
            Numeric::Float(float) => float,
        }
    }
}

/// Applies a numeric operator: exact when both sides are NUMBER, BINARY_DOUBLE otherwise.
fn numeric_operation(
    left: &Value,
    right: &Value,
    on_decimals: impl FnOnce(Decimal, Decimal) -> Result<Decimal>,
    on_floats: impl FnOnce(f64, f64) -> f64,
) -> Result<Value> {
    match (Numeric::from_value(left)?, Numeric::from_value(right)?) {
        (Numeric::Decimal(left), Numeric::Decimal(right)) => {
            on_decimals(left, right).map(Value::Number)
        }
        (left, right) => Ok(Value::Float(on_floats(left.to_float(), right.to_float()))),
    }
}

/// The running total of SUM and AVG. NUMBERs of one scale (a column's values nearly always
/// are) add as integers into a 128-bit mantissa while it stays within Decimal's 96 bits;
/// anything else goes through `add`, with its conversions, rounding and ORA- errors.
#[derive(Clone, Debug, Default)]
pub enum RunningSum {
    /// Nothing added yet: the sum of no rows is NULL.
    #[default]
    Empty,
    Exact {
        mantissa: i128,
        scale: u32,
    },
    Other(Value),
}

impl RunningSum {
    /// Adds a value that is not NULL.
    pub fn add(&mut self, value: &Value) -> Result<()> {
        if let Value::Number(number) = value {
            match self {
                RunningSum::Exact { mantissa, scale } if *scale == number.scale() => {
                    let next = *mantissa + number.mantissa();
                    if next.unsigned_abs() < 1 << 96 {
                        *mantissa = next;
                        return Ok(());
                    }
                }
                RunningSum::Empty => {
                    *self = RunningSum::Exact {
                        mantissa: number.mantissa(),
                        scale: number.scale(),
                    };
                    return Ok(());
                }
                _ => {}
            }
        }
        let total = std::mem::take(self).total();
        let sum = if total.is_null() {
            value.add(&Value::integer(0))?
        } else {
            total.add(value)?
        };
        *self = match sum {
            Value::Number(number) => RunningSum::Exact {
                mantissa: number.mantissa(),
                scale: number.scale(),
            },
            other => RunningSum::Other(other),
        };
        Ok(())
    }

    /// The sum so far (NULL when nothing was added).
    pub fn total(self) -> Value {
        match self {
            RunningSum::Empty => Value::Null,
            // Within 96 bits by construction.
            RunningSum::Exact { mantissa, scale } => {
                Value::Number(Decimal::from_i128_with_scale(mantissa, scale))
            }
            RunningSum::Other(value) => value,
        }
    }
}

/// `left + right`. Operands of one scale (SUM over a column, a counter plus one) add their
/// 96-bit mantissas as integers; the general case aligns scales and may round.
fn add_decimals(left: Decimal, right: Decimal) -> Result<Decimal> {
    if left.scale() == right.scale() {
        // Both mantissas are below 2^96, so their sum cannot overflow an i128.
        let sum = left.mantissa() + right.mantissa();
        if let Ok(sum) = Decimal::try_from_i128_with_scale(sum, left.scale()) {
            return Ok(sum);
        }
    }
    overflow_checked(left.checked_add(right))
}

fn overflow_checked(result: Option<Decimal>) -> Result<Decimal> {
    result.ok_or_else(errors::numeric_overflow)
}

/// A number of days as a whole number of `unit`s (seconds or microseconds per day given),
/// rounded half away from zero. ORA-01841 if it cannot be a date offset.
fn days_to_units(days: &Value, units_per_day: i64) -> Result<i64> {
    match Numeric::from_value(days)? {
        Numeric::Decimal(days) => days
            .checked_mul(Decimal::from(units_per_day))
            .map(|units| units.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero))
            .and_then(|units| i64::try_from(units).ok())
            .ok_or_else(errors::year_out_of_range),
        Numeric::Float(days) => {
            let units = (days * units_per_day as f64).round();
            // The bounds are far beyond any date, so the cast below is exact enough.
            if !units.is_finite() || units.abs() > 9.0e18 {
                return Err(errors::year_out_of_range());
            }
            Ok(units as i64)
        }
    }
}

fn add_days_to_date(seconds: i64, days: &Value, negate: bool) -> Result<Value> {
    let offset = days_to_units(days, SECONDS_PER_DAY)?;
    let offset = if negate { -offset } else { offset };
    let result = seconds
        .checked_add(offset)
        .ok_or_else(errors::year_out_of_range)?;
    Ok(Value::Date(datetime::check_date_range(result)?))
}

fn add_days_to_timestamp(microseconds: i64, days: &Value, negate: bool) -> Result<Value> {
    let offset = days_to_units(days, MICROSECONDS_PER_DAY)?;
    let offset = if negate { -offset } else { offset };
    let result = microseconds
        .checked_add(offset)
        .ok_or_else(errors::year_out_of_range)?;
    Ok(Value::Timestamp(datetime::check_timestamp_range(result)?))
}

/// POWER on NUMBERs; see the module documentation.
fn power_decimals(base: Decimal, exponent: Decimal) -> Result<Decimal> {
    if base.is_zero() && exponent.is_sign_negative() && !exponent.is_zero() {
        // 0^-n divides by zero.
        return Err(errors::argument_out_of_range(&format_number(&base)));
    }
    if exponent.fract().is_zero() {
        if let Some(exponent) = exponent.to_i64() {
            return integer_power(base, exponent);
        }
    } else if base.is_sign_negative() && !base.is_zero() {
        // A negative number has no real power with a fractional exponent.
        return Err(errors::argument_out_of_range(&format_number(&base)));
    }
    // A fractional exponent, or an integer one too large for i64 (whose result is 0, 1, -1
    // or an overflow anyway): the double's answer is the best there is.
    let result = numeric::float_from_decimal(&base).powf(numeric::float_from_decimal(&exponent));
    Ok(decimal_from_float(result)?.normalize())
}

/// `base^exponent` by repeated squaring, exact while the digits fit.
fn integer_power(base: Decimal, exponent: i64) -> Result<Decimal> {
    let power = base.checked_powu(exponent.unsigned_abs());
    if exponent >= 0 {
        return power
            .map(|power| power.normalize())
            .ok_or_else(errors::numeric_overflow);
    }
    match power {
        // |base| > 1 and a power beyond NUMBER here: its reciprocal rounds to 0 at 28
        // decimals.
        None => Ok(Decimal::ZERO),
        // |base| < 1 and a power that rounded to 0: its reciprocal is beyond NUMBER here.
        Some(power) if power.is_zero() => Err(errors::numeric_overflow()),
        Some(power) => {
            overflow_checked(Decimal::ONE.checked_div(power)).map(|power| power.normalize())
        }
    }
}

/// The most Newton steps SQRT takes; each doubles the correct digits, so a few reach
/// Decimal's 28 from the double's 16. The limit stops an alternation between two
/// neighbours that rounding can cause.
const SQUARE_ROOT_STEPS_MAX: usize = 16;

/// The square root of a positive NUMBER; see the module documentation.
fn square_root_decimal(number: Decimal) -> Decimal {
    if number.is_zero() {
        return Decimal::ZERO;
    }
    let estimate = numeric::float_from_decimal(&number).sqrt();
    let mut root = decimal_from_float(estimate)
        .ok()
        .filter(|root| !root.is_zero())
        .unwrap_or(Decimal::ONE);
    for _ in 0..SQUARE_ROOT_STEPS_MAX {
        let next = number
            .checked_div(root)
            .and_then(|quotient| quotient.checked_add(root))
            .and_then(|sum| sum.checked_div(Decimal::TWO));
        match next {
            Some(next) if next != root && !next.is_zero() => root = next,
            _ => break,
        }
    }
    root.normalize()
}

/// The difference of two instants in days, as an exact-as-possible NUMBER.
fn difference_in_days(left: &Value, right: &Value) -> Result<Value> {
    let microseconds = |value: &Value| -> i128 {
        let (seconds, fraction) = value.instant().unwrap_or_default();
        seconds as i128 * 1_000_000 + fraction as i128
    };
    let difference = microseconds(left) - microseconds(right);
    let (numerator, units_per_day) = match (left, right) {
        // DATE - DATE in seconds keeps the division small and exact where it can be.
        (Value::Date(left_seconds), Value::Date(right_seconds)) => (
            *left_seconds as i128 - *right_seconds as i128,
            SECONDS_PER_DAY,
        ),
        _ => (difference, MICROSECONDS_PER_DAY),
    };
    let numerator =
        Decimal::try_from_i128_with_scale(numerator, 0).map_err(|_| errors::numeric_overflow())?;
    let days = overflow_checked(numerator.checked_div(Decimal::from(units_per_day)))?;
    Ok(Value::Number(days.normalize()))
}

impl Value {
    /// `self + other`; see the module documentation.
    pub fn add(&self, other: &Value) -> Result<Value> {
        if let (Value::Number(left), Value::Number(right)) = (self, other) {
            return add_decimals(*left, *right).map(Value::Number);
        }
        if self.is_null() || other.is_null() {
            return Ok(Value::Null);
        }
        match (self, other) {
            (Value::Date(_) | Value::Timestamp(_), Value::Date(_) | Value::Timestamp(_)) => {
                Err(errors::date_plus_date())
            }
            (Value::Date(seconds), days) | (days, Value::Date(seconds)) => {
                add_days_to_date(*seconds, days, false)
            }
            (Value::Timestamp(microseconds), days) | (days, Value::Timestamp(microseconds)) => {
                add_days_to_timestamp(*microseconds, days, false)
            }
            _ => numeric_operation(self, other, add_decimals, |left, right| left + right),
        }
    }

    /// `self - other`; see the module documentation.
    pub fn sub(&self, other: &Value) -> Result<Value> {
        if self.is_null() || other.is_null() {
            return Ok(Value::Null);
        }
        match (self, other) {
            (Value::Date(_) | Value::Timestamp(_), Value::Date(_) | Value::Timestamp(_)) => {
                difference_in_days(self, other)
            }
            (Value::Date(seconds), days) => add_days_to_date(*seconds, days, true),
            (Value::Timestamp(microseconds), days) => {
                add_days_to_timestamp(*microseconds, days, true)
            }
            _ => numeric_operation(
                self,
                other,
                |left, right| overflow_checked(left.checked_sub(right)),
                |left, right| left - right,
            ),
        }
    }

    /// `self * other`.
    pub fn mul(&self, other: &Value) -> Result<Value> {
        if self.is_null() || other.is_null() {
            return Ok(Value::Null);
        }
        numeric_operation(
            self,
            other,
            |left, right| overflow_checked(left.checked_mul(right)),
            |left, right| left * right,
        )
    }

    /// `self / other`: ORA-01476 when a NUMBER divisor is zero; a BINARY_DOUBLE division by
    /// zero gives ±Inf (or NaN for 0/0), as in Oracle.
    pub fn div(&self, other: &Value) -> Result<Value> {
        if self.is_null() || other.is_null() {
            return Ok(Value::Null);
        }
        numeric_operation(
            self,
            other,
            |left, right| {
                if right.is_zero() {
                    return Err(errors::divisor_is_zero());
                }
                overflow_checked(left.checked_div(right))
            },
            |left, right| left / right,
        )
    }

    /// MOD(self, other): the sign of `self`; `self` when `other` is 0.
    pub fn modulo(&self, other: &Value) -> Result<Value> {
        if self.is_null() || other.is_null() {
            return Ok(Value::Null);
        }
        numeric_operation(
            self,
            other,
            |left, right| {
                if right.is_zero() {
                    return Ok(left);
                }
                overflow_checked(left.checked_rem(right))
            },
            |left, right| if right == 0.0 { left } else { left % right },
        )
    }

    /// `-self`.
    pub fn neg(&self) -> Result<Value> {
        if self.is_null() {
            return Ok(Value::Null);
        }
        match Numeric::from_value(self)? {
            Numeric::Decimal(number) => Ok(Value::Number(-number)),
            Numeric::Float(float) => Ok(Value::Float(-float)),
        }
    }

    /// POWER(self, exponent); see the module documentation. NULL if either is NULL.
    pub fn power(&self, exponent: &Value) -> Result<Value> {
        if self.is_null() || exponent.is_null() {
            return Ok(Value::Null);
        }
        numeric_operation(self, exponent, power_decimals, f64::powf)
    }

    /// SQRT(self); see the module documentation. NULL for NULL.
    pub fn square_root(&self) -> Result<Value> {
        if self.is_null() {
            return Ok(Value::Null);
        }
        match Numeric::from_value(self)? {
            Numeric::Decimal(number) if number.is_sign_negative() && !number.is_zero() => {
                Err(errors::argument_out_of_range(&format_number(&number)))
            }
            Numeric::Decimal(number) => Ok(Value::Number(square_root_decimal(number))),
            Numeric::Float(float) => Ok(Value::Float(float.sqrt())),
        }
    }

    /// `self || other`: NULL counts as the empty string, other types as their text (TO_CHAR
    /// form); an empty result is NULL. ORA-01489 beyond [`VARCHAR2_BYTES_MAX`] bytes.
    pub fn concat(&self, other: &Value) -> Result<Value> {
        let left = self.to_text().unwrap_or_default();
        let right = other.to_text().unwrap_or_default();
        if left.len() + right.len() > VARCHAR2_BYTES_MAX as usize {
            return Err(errors::concatenation_too_long());
        }
        Ok(Value::text(left + &right))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn number(text: &str) -> Value {
        Value::Number(Decimal::from_str(text).unwrap())
    }

    fn power(base: &str, exponent: &str) -> Result<Value> {
        number(base).power(&number(exponent))
    }

    /// POWER stays exact for integer exponents and reports Oracle's errors.
    #[test]
    fn power_is_exact_for_integer_exponents() {
        assert_eq!(power("2", "10").unwrap(), number("1024"));
        assert_eq!(power("1.1", "2").unwrap(), number("1.21"));
        assert_eq!(power("-2", "3").unwrap(), number("-8"));
        assert_eq!(power("2", "-3").unwrap(), number("0.125"));
        assert_eq!(power("0.5", "-2").unwrap(), number("4"));
        assert_eq!(power("3", "2.0").unwrap(), number("9"), "2.0 is an integer");
        assert_eq!(power("0", "0").unwrap(), number("1"));
        assert_eq!(power("0", "5").unwrap(), number("0"));
        assert_eq!(
            power("1.000000001", "3").unwrap(),
            number("1.000000003000000003000000001"),
            "exact, no double rounding"
        );
        assert_eq!(power("4", "0.5").unwrap(), number("2"));
        assert_eq!(
            power("10", "-40").unwrap(),
            number("0"),
            "below 28 decimals"
        );
        assert_eq!(power("10", "29").unwrap_err().code(), 1426);
        assert_eq!(power("0.1", "-40").unwrap_err().code(), 1426);
        assert_eq!(power("2", "1e20").unwrap_err().code(), 1426);
        assert_eq!(power("1", "1e20").unwrap(), number("1"));
        assert_eq!(power("-8", "2.5").unwrap_err().code(), 1428);
        assert_eq!(power("0", "-1").unwrap_err().code(), 1428);
        assert_eq!(
            Value::text("abc").power(&number("2")).unwrap_err().code(),
            1722
        );
        assert!(Value::Float(-8.0)
            .power(&number("0.5"))
            .map(|value| matches!(value, Value::Float(float) if float.is_nan()))
            .unwrap());
        assert_eq!(Value::Null.power(&number("2")).unwrap(), Value::Null);
    }

    #[test]
    fn square_root_is_exact_for_exact_squares() {
        assert_eq!(number("2.25").square_root().unwrap(), number("1.5"));
        assert_eq!(number("144").square_root().unwrap(), number("12"));
        assert_eq!(number("0").square_root().unwrap(), number("0"));
        assert_eq!(number("1e-28").square_root().unwrap(), number("1e-14"));
        assert_eq!(
            number("2").square_root().unwrap(),
            number("1.4142135623730950488016887242")
        );
        let large = number("79228162514264337593543950335")
            .square_root()
            .unwrap();
        assert!(
            matches!(large, Value::Number(root) if root > Decimal::from(281_474_976_710_655i64))
        );
        assert_eq!(number("-1").square_root().unwrap_err().code(), 1428);
        assert_eq!(
            number("-4").square_root().unwrap_err().message(),
            "argument '-4' is out of range"
        );
        assert!(
            matches!(Value::Float(-1.0).square_root().unwrap(), Value::Float(float) if float.is_nan())
        );
        assert_eq!(Value::Date(0).square_root().unwrap_err().code(), 932);
    }

    /// `RunningSum` adds as integers when it can and agrees with `add` everywhere: one
    /// scale, mixed scales, signs crossing zero, a total past 96 bits, text operands.
    #[test]
    fn running_sums_agree_with_add() {
        let cases: &[&[&str]] = &[
            &["1", "2", "3", "-10"],
            &["1.50", "2.25", "-0.75"],
            &["1.5", "2", "0.001", "-7"],
            &[
                "79228162514264337593543950335",
                "-1",
                "-79228162514264337593543950334",
            ],
            &["-5", "5", "0"],
        ];
        for case in cases {
            let mut sum = RunningSum::default();
            let mut expected = Value::Null;
            for text in case.iter() {
                let value = number(text);
                sum.add(&value).unwrap();
                expected = if expected.is_null() {
                    value.add(&Value::integer(0)).unwrap()
                } else {
                    expected.add(&value).unwrap()
                };
                let total = sum.clone().total();
                assert_eq!(format!("{total:?}"), format!("{expected:?}"), "{case:?}");
            }
        }
        // Past 96 bits: the same overflow error as `add`.
        let mut sum = RunningSum::default();
        sum.add(&number("79228162514264337593543950335")).unwrap();
        let error = sum.add(&number("1")).unwrap_err();
        assert_eq!(
            error.code(),
            number("79228162514264337593543950335")
                .add(&number("1"))
                .unwrap_err()
                .code()
        );
        // Text converts as in `add`.
        let mut sum = RunningSum::default();
        sum.add(&number("1")).unwrap();
        sum.add(&Value::text("2")).unwrap();
        assert_eq!(format!("{:?}", sum.total()), format!("{:?}", number("3")));
    }

    fn date(text: &str) -> Value {
        Value::Date(datetime::parse_date_in_year(text, 2026).unwrap())
    }

    fn timestamp(text: &str) -> Value {
        Value::Timestamp(datetime::parse_timestamp_in_year(text, 2026).unwrap())
    }

    #[test]
    fn number_arithmetic_is_exact() {
        assert_eq!(number("0.1").add(&number("0.2")).unwrap(), number("0.3"));
        assert_eq!(number("1.5").mul(&number("-2")).unwrap(), number("-3"));
        assert_eq!(number("1").div(&number("4")).unwrap(), number("0.25"));
        assert_eq!(number("10").sub(&number("0.01")).unwrap(), number("9.99"));
        assert_eq!(number("2.5").neg().unwrap(), number("-2.5"));
    }

    #[test]
    fn oracle_errors_for_bad_arithmetic() {
        assert_eq!(number("1").div(&number("0")).unwrap_err().code(), 1476);
        assert_eq!(
            number("1").div(&number("0")).unwrap_err().message(),
            "divisor is equal to zero"
        );
        assert_eq!(
            Value::Number(Decimal::MAX)
                .add(&number("1"))
                .unwrap_err()
                .code(),
            1426
        );
        assert_eq!(
            Value::Number(Decimal::MAX)
                .mul(&number("2"))
                .unwrap_err()
                .code(),
            1426
        );
        assert_eq!(
            Value::text("abc").add(&number("1")).unwrap_err().code(),
            1722
        );
        assert_eq!(
            number("1").add(&Value::text("abc")).unwrap_err().code(),
            1722
        );
        assert_eq!(
            date("2026-01-01")
                .add(&date("2026-01-01"))
                .unwrap_err()
                .code(),
            975
        );
        assert_eq!(
            date("2026-01-01").mul(&number("2")).unwrap_err().code(),
            932
        );
        assert_eq!(
            number("1").sub(&date("2026-01-01")).unwrap_err().code(),
            932
        );
        assert_eq!(
            Value::Boolean(true).add(&number("1")).unwrap_err().code(),
            932
        );
    }

    #[test]
    fn text_converts_to_number_in_arithmetic() {
        assert_eq!(
            Value::text("12.5").add(&number("1")).unwrap(),
            number("13.5")
        );
        assert_eq!(
            Value::text("2").mul(&Value::text("3")).unwrap(),
            number("6")
        );
        assert_eq!(Value::text(" 4 ").neg().unwrap(), number("-4"));
    }

    #[test]
    fn null_propagates() {
        assert_eq!(Value::Null.add(&number("1")).unwrap(), Value::Null);
        assert_eq!(number("1").div(&Value::Null).unwrap(), Value::Null);
        assert_eq!(Value::Null.neg().unwrap(), Value::Null);
        assert_eq!(Value::Null.sub(&date("2026-01-01")).unwrap(), Value::Null);
        assert_eq!(Value::Null.modulo(&number("0")).unwrap(), Value::Null);
    }

    #[test]
    fn mixing_with_binary_double_gives_binary_double() {
        assert_eq!(
            number("1.5").add(&Value::Float(1.0)).unwrap(),
            Value::Float(2.5)
        );
        assert_eq!(
            Value::Float(1.0).div(&number("0")).unwrap(),
            Value::Float(f64::INFINITY)
        );
        assert_eq!(
            Value::text("0.5").mul(&Value::Float(2.0)).unwrap(),
            Value::Float(1.0)
        );
    }

    #[test]
    fn modulo_follows_oracle_mod() {
        assert_eq!(number("11").modulo(&number("4")).unwrap(), number("3"));
        assert_eq!(number("-11").modulo(&number("4")).unwrap(), number("-3"));
        assert_eq!(number("11").modulo(&number("-4")).unwrap(), number("3"));
        assert_eq!(number("11").modulo(&number("0")).unwrap(), number("11"));
        assert_eq!(number("5.5").modulo(&number("2")).unwrap(), number("1.5"));
        assert_eq!(
            Value::Float(-7.0).modulo(&Value::Float(2.0)).unwrap(),
            Value::Float(-1.0)
        );
    }

    #[test]
    fn date_arithmetic_counts_days() {
        assert_eq!(
            date("2026-01-31").add(&number("1")).unwrap(),
            date("2026-02-01")
        );
        assert_eq!(
            number("1").add(&date("2026-01-31")).unwrap(),
            date("2026-02-01")
        );
        assert_eq!(
            date("2026-03-01").sub(&number("1")).unwrap(),
            date("2026-02-28")
        );
        assert_eq!(
            date("2026-01-01").add(&number("0.5")).unwrap(),
            date("2026-01-01 12:00:00")
        );
        assert_eq!(
            date("2026-01-01")
                .add(&number("1").div(&number("24")).unwrap())
                .unwrap(),
            date("2026-01-01 01:00:00")
        );
        assert_eq!(
            date("2026-01-01").add(&Value::text("2")).unwrap(),
            date("2026-01-03")
        );
        assert_eq!(
            date("2026-01-01").add(&Value::Float(0.25)).unwrap(),
            date("2026-01-01 06:00:00")
        );
        assert_eq!(
            date("2026-03-01").sub(&date("2026-02-01")).unwrap(),
            number("28")
        );
        assert_eq!(
            date("2026-01-01 12:00:00")
                .sub(&date("2026-01-01"))
                .unwrap(),
            number("0.5")
        );
        assert_eq!(
            date("2026-01-01").sub(&date("2026-01-02")).unwrap(),
            number("-1")
        );
        assert_eq!(
            date("9999-12-31").add(&number("1")).unwrap_err().code(),
            1841
        );
        assert_eq!(
            date("2026-01-01").add(&number("1e20")).unwrap_err().code(),
            1841
        );
    }

    #[test]
    fn timestamp_arithmetic_keeps_microseconds() {
        let start = timestamp("2026-01-01 00:00:00.5");
        assert_eq!(
            start.add(&number("1")).unwrap(),
            timestamp("2026-01-02 00:00:00.5")
        );
        assert_eq!(
            start.sub(&number("0.5")).unwrap(),
            timestamp("2025-12-31 12:00:00.5")
        );
        let almost_a_day = number("86399.5").div(&number("86400")).unwrap();
        assert_eq!(
            timestamp("2026-01-02 00:00:00").sub(&start).unwrap(),
            almost_a_day
        );
        assert_eq!(
            timestamp("2026-01-02 12:00:00")
                .sub(&date("2026-01-01"))
                .unwrap(),
            number("1.5")
        );
        assert_eq!(
            start
                .add(&timestamp("2026-01-01 00:00:00"))
                .unwrap_err()
                .code(),
            975
        );
    }

    #[test]
    fn concatenation_treats_null_as_empty() {
        assert_eq!(
            Value::text("a").concat(&Value::Null).unwrap(),
            Value::text("a")
        );
        assert_eq!(
            Value::Null.concat(&Value::text("b")).unwrap(),
            Value::text("b")
        );
        assert_eq!(Value::Null.concat(&Value::Null).unwrap(), Value::Null);
        assert_eq!(
            Value::text("x = ").concat(&number("0.5")).unwrap(),
            Value::text("x = .5")
        );
        let long = Value::text("a".repeat(4000));
        assert_eq!(long.concat(&Value::text("b")).unwrap_err().code(), 1489);
        assert_eq!(long.concat(&Value::Null).unwrap(), long);
    }
}
