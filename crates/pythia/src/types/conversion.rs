//! Conversions between types: number text in and out, CAST, and what a column accepts.
//!
//! Number text out is TO_CHAR without a format, as SQL*Plus shows a NUMBER: no trailing
//! zeros, no decimal point for integers, no zero before the point:
//!
//! ```text
//!   0.5 -> .5     -0.5 -> -.5     100 -> 100     1.250 -> 1.25     -0 -> 0
//! ```
//!
//! BINARY_DOUBLE text out is Oracle's: the shortest digits that read back to the same double,
//! in scientific form with a three-digit exponent: `1.5E+000`, `1.0E+002`, `1.0E-001`; `0`,
//! `Inf`, `-Inf`, `Nan`.
//!
//! Number text in ([`Value::parse_number`]): optional blanks, sign, digits with an optional
//! decimal point, optional exponent (`1e10`, `-.5E-3`). The result is exact when it fits a
//! NUMBER here (28 digits after the point, mantissa below 2^96, about 7.9e28). Otherwise,
//! documented precision loss, never a panic: digits beyond what fits are rounded half away
//! from zero (`0.1234567890123456789012345678901` keeps 28 decimals; `1e-40` becomes 0), and
//! only a magnitude at or above 2^96 is ORA-01426 (Oracle's NUMBER reaches 1e126).
//!
//! Storing into a column ([`coerce_to_column`]) follows INSERT/UPDATE:
//!
//! ```text
//!   NUMBER(p,s)   convert, round half away from zero to s decimals (s < 0 rounds to 10^-s),
//!                 ORA-01438 if the result has more than p - s digits before the point
//!   BINARY_DOUBLE convert
//!   VARCHAR2(n)   convert to text, ORA-12899 if longer than n bytes
//!   CHAR(n)       convert to text, ORA-12899 if longer than n bytes, pad with blanks to n
//!   DATE          text is parsed (datetime.rs); TIMESTAMP loses its fraction (truncated)
//!   TIMESTAMP     text is parsed; DATE gains a zero fraction
//! ```
//!
//! Conversions no implicit rule allows (a DATE into a NUMBER column) are ORA-00932.

use rust_decimal::{Decimal, RoundingStrategy};

use super::data_type::DataType;
use super::datetime::{self, MICROSECONDS_PER_SECOND};
use super::errors;
use super::numeric::{self, DECIMAL_MANTISSA_MAX, DECIMAL_SCALE_MAX};
use super::value::Value;
use crate::error::{Error, Result};

/// Exponents beyond this are clamped while parsing; any such number overflows or rounds to
/// zero anyway, and the clamp keeps the arithmetic in range.
const PARSE_EXPONENT_LIMIT: i64 = 1_000_000;

/// A NUMBER as TO_CHAR writes it without a format; see the module documentation.
pub fn format_number(number: &Decimal) -> String {
    if number.is_zero() {
        return "0".to_string();
    }
    let text = number.normalize().to_string();
    if let Some(rest) = text.strip_prefix("0.") {
        format!(".{rest}")
    } else if let Some(rest) = text.strip_prefix("-0.") {
        format!("-.{rest}")
    } else {
        text
    }
}

/// A BINARY_DOUBLE as Oracle writes it; see the module documentation.
pub fn format_float(float: f64) -> String {
    if float.is_nan() {
        return "Nan".to_string();
    }
    if float.is_infinite() {
        return if float > 0.0 { "Inf" } else { "-Inf" }.to_string();
    }
    if float == 0.0 {
        return "0".to_string();
    }
    // `{:e}` writes the shortest round-trip digits: 1.5e0, 1e2, -1.2345e-7.
    let scientific = format!("{float:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}E{sign}{:03}", exponent.unsigned_abs())
}

impl Value {
    /// Parses number text into a NUMBER exactly (or with the documented rounding); `""` is
    /// NULL, anything else that is not a number is ORA-01722, a magnitude too large is
    /// ORA-01426. See the module documentation.
    pub fn parse_number(text: &str) -> Result<Value> {
        if text.is_empty() {
            return Ok(Value::Null);
        }
        parse_decimal(text).map(Value::Number)
    }

    /// Parses BINARY_DOUBLE text (`1.5`, `1.5E+000`, `Inf`, `-Inf`, `Nan`); ORA-01722 if it is
    /// not one. `""` is NULL.
    pub fn parse_float(text: &str) -> Result<Value> {
        if text.is_empty() {
            return Ok(Value::Null);
        }
        parse_float(text).map(Value::Float)
    }

    /// CAST(value AS type), with Oracle's conversion rules: text to number (ORA-01722), number
    /// to text in TO_CHAR form, text to DATE/TIMESTAMP (datetime.rs), NUMBER(p,s) rounding and
    /// ORA-01438, text too long for VARCHAR2(n)/CHAR(n) is ORA-25137. NULL casts to NULL.
    pub fn cast(&self, to: &DataType) -> Result<Value> {
        if self.is_null() {
            return Ok(Value::Null);
        }
        match *to {
            DataType::Number { precision, scale } => Ok(Value::Number(round_to_number_type(
                self.to_decimal()?,
                precision,
                scale,
            )?)),
            DataType::Float => Ok(Value::Float(self.to_float()?)),
            DataType::Varchar2 { length } => {
                let text = self.to_text().unwrap_or_default();
                if text.len() > length as usize {
                    return Err(errors::data_value_out_of_range());
                }
                Ok(Value::Text(text))
            }
            DataType::Char { length } => {
                let text = self.to_text().unwrap_or_default();
                if text.len() > length as usize {
                    return Err(errors::data_value_out_of_range());
                }
                Ok(Value::Text(pad_with_blanks(text, length)))
            }
            DataType::Date => Ok(Value::Date(self.to_date_seconds()?)),
            DataType::Timestamp => Ok(Value::Timestamp(self.to_timestamp_microseconds()?)),
            DataType::Boolean => Ok(Value::Boolean(self.to_boolean()?)),
        }
    }

    /// The value as a NUMBER: text is parsed, a double converted through its shortest
    /// decimal form (so `0.1d` becomes `0.1`), a boolean is 1 or 0.
    pub(crate) fn to_decimal(&self) -> Result<Decimal> {
        match self {
            Value::Number(number) => Ok(*number),
            Value::Float(float) => decimal_from_float(*float),
            Value::Text(text) => parse_decimal(text),
            Value::Boolean(value) => Ok(if *value { Decimal::ONE } else { Decimal::ZERO }),
            other => Err(errors::inconsistent_datatypes("NUMBER", other.type_name())),
        }
    }

    /// The value as a BINARY_DOUBLE.
    pub(crate) fn to_float(&self) -> Result<f64> {
        match self {
            Value::Number(number) => Ok(numeric::float_from_decimal(number)),
            Value::Float(float) => Ok(*float),
            Value::Text(text) => parse_float(text),
            Value::Boolean(value) => Ok(if *value { 1.0 } else { 0.0 }),
            other => Err(errors::inconsistent_datatypes(
                "BINARY_DOUBLE",
                other.type_name(),
            )),
        }
    }

    fn to_date_seconds(&self) -> Result<i64> {
        match self {
            Value::Date(seconds) => Ok(*seconds),
            Value::Timestamp(microseconds) => Ok(microseconds.div_euclid(MICROSECONDS_PER_SECOND)),
            Value::Text(text) => datetime::parse_date(text),
            other => Err(errors::inconsistent_datatypes("DATE", other.type_name())),
        }
    }

    fn to_timestamp_microseconds(&self) -> Result<i64> {
        match self {
            Value::Date(seconds) => seconds
                .checked_mul(MICROSECONDS_PER_SECOND)
                .ok_or_else(errors::year_out_of_range),
            Value::Timestamp(microseconds) => Ok(*microseconds),
            Value::Text(text) => datetime::parse_timestamp(text),
            other => Err(errors::inconsistent_datatypes(
                "TIMESTAMP",
                other.type_name(),
            )),
        }
    }

    fn to_boolean(&self) -> Result<bool> {
        match self {
            Value::Boolean(value) => Ok(*value),
            Value::Number(number) => Ok(!number.is_zero()),
            Value::Float(float) => Ok(*float != 0.0),
            Value::Text(text) => parse_boolean(text),
            other => Err(errors::inconsistent_datatypes("BOOLEAN", other.type_name())),
        }
    }
}

/// Converts `value` for storing into a column of type `data_type`; see the module
/// documentation. `column_name` goes verbatim into ORA-12899, so pass it as Oracle prints
/// it: `"SCOTT"."EMP"."ENAME"`. NULL stays NULL (NOT NULL is the caller's check).
pub fn coerce_to_column(value: Value, data_type: &DataType, column_name: &str) -> Result<Value> {
    coerce_to_named_column(value, data_type, || column_name.to_owned())
}

/// [`coerce_to_column`], with the column's name made only for an error: a row's checks
/// name every column, and nearly every value passes.
pub fn coerce_to_named_column(
    value: Value,
    data_type: &DataType,
    column_name: impl FnOnce() -> String,
) -> Result<Value> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    match *data_type {
        DataType::Number { precision, scale } => Ok(Value::Number(round_to_number_type(
            value.to_decimal()?,
            precision,
            scale,
        )?)),
        DataType::Float => Ok(Value::Float(value.to_float()?)),
        DataType::Varchar2 { length } => {
            let text = into_text(value);
            check_column_length(&text, length, column_name)?;
            Ok(Value::Text(text))
        }
        DataType::Char { length } => {
            let text = into_text(value);
            check_column_length(&text, length, column_name)?;
            Ok(Value::Text(pad_with_blanks(text, length)))
        }
        DataType::Date | DataType::Timestamp | DataType::Boolean => value.cast(data_type),
    }
}

fn into_text(value: Value) -> String {
    match value {
        Value::Text(text) => text,
        other => other.to_text().unwrap_or_default(),
    }
}

fn check_column_length(
    text: &str,
    length: u32,
    column_name: impl FnOnce() -> String,
) -> Result<()> {
    if text.len() > length as usize {
        return Err(Error::value_too_large(
            &column_name(),
            text.len(),
            length as usize,
        ));
    }
    Ok(())
}

fn pad_with_blanks(mut text: String, length: u32) -> String {
    while text.len() < length as usize {
        text.push(' ');
    }
    text
}

/// Rounds to NUMBER(precision, scale) and checks the precision; see the module
/// documentation. The result is normalized (no trailing zeros), as Oracle stores it.
pub fn round_to_number_type(
    number: Decimal,
    precision: Option<u8>,
    scale: Option<i8>,
) -> Result<Decimal> {
    let scale: i32 = match (precision, scale) {
        (None, None) => return Ok(number.normalize()),
        (_, Some(scale)) => scale as i32,
        (Some(_), None) => 0,
    };
    let precision = precision.unwrap_or(38) as i32;
    let rounded = if scale >= 0 {
        number.round_dp_with_strategy(scale as u32, RoundingStrategy::MidpointAwayFromZero)
    } else {
        round_to_power_of_ten(&number, scale.unsigned_abs())?
    };
    if !rounded.is_zero() {
        // The value lies in [10^e, 10^(e+1)); NUMBER(p,s) holds magnitudes below 10^(p-s).
        let magnitude = rounded.mantissa().unsigned_abs();
        let digit_count = magnitude.to_string().len() as i32;
        let leading_exponent = digit_count - 1 - rounded.scale() as i32;
        if leading_exponent + 1 > precision - scale {
            return Err(Error::precision_exceeded());
        }
    }
    Ok(rounded.normalize())
}

/// Rounds half away from zero to a multiple of 10^power (a negative NUMBER scale).
fn round_to_power_of_ten(number: &Decimal, power: u32) -> Result<Decimal> {
    let magnitude = number.mantissa().unsigned_abs();
    let divisor_exponent = number.scale() + power;
    if divisor_exponent > 38 {
        // The magnitude is below 2^96 < 10^29, so it rounds to zero.
        return Ok(Decimal::ZERO);
    }
    let divisor = 10u128.pow(divisor_exponent);
    let mut quotient = magnitude / divisor;
    if (magnitude % divisor) * 2 >= divisor {
        quotient += 1;
    }
    let scaled = quotient
        .checked_mul(10u128.pow(power.min(38)))
        .filter(|value| *value <= DECIMAL_MANTISSA_MAX);
    let Some(scaled) = scaled else {
        return Err(Error::precision_exceeded());
    };
    let signed = if number.is_sign_negative() {
        -(scaled as i128)
    } else {
        scaled as i128
    };
    Decimal::try_from_i128_with_scale(signed, 0).map_err(|_| errors::numeric_overflow())
}

/// Number text to a `Decimal`; see the module documentation for the rounding.
pub(crate) fn parse_decimal(text: &str) -> Result<Decimal> {
    let bytes = text.trim().as_bytes();
    let mut position = 0;
    let negative = match bytes.first() {
        Some(b'-') => {
            position += 1;
            true
        }
        Some(b'+') => {
            position += 1;
            false
        }
        _ => false,
    };
    // value = digits × 10^exponent, digits without leading zeros
    let mut digits: Vec<u8> = Vec::new();
    let mut exponent: i64 = 0;
    let mut saw_digit = false;
    while let Some(&byte) = bytes.get(position).filter(|byte| byte.is_ascii_digit()) {
        saw_digit = true;
        if !(digits.is_empty() && byte == b'0') {
            digits.push(byte - b'0');
        }
        position += 1;
    }
    if bytes.get(position) == Some(&b'.') {
        position += 1;
        while let Some(&byte) = bytes.get(position).filter(|byte| byte.is_ascii_digit()) {
            saw_digit = true;
            if !(digits.is_empty() && byte == b'0') {
                digits.push(byte - b'0');
            }
            exponent -= 1;
            position += 1;
        }
    }
    if !saw_digit {
        return Err(Error::invalid_number());
    }
    if matches!(bytes.get(position), Some(b'e' | b'E')) {
        position += 1;
        let exponent_negative = match bytes.get(position) {
            Some(b'-') => {
                position += 1;
                true
            }
            Some(b'+') => {
                position += 1;
                false
            }
            _ => false,
        };
        let start = position;
        let mut written: i64 = 0;
        while let Some(&byte) = bytes.get(position).filter(|byte| byte.is_ascii_digit()) {
            written = (written * 10 + (byte - b'0') as i64).min(PARSE_EXPONENT_LIMIT);
            position += 1;
        }
        if position == start {
            return Err(Error::invalid_number());
        }
        exponent += if exponent_negative { -written } else { written };
    }
    if position != bytes.len() {
        return Err(Error::invalid_number());
    }
    decimal_from_digits(
        negative,
        digits,
        exponent.clamp(-PARSE_EXPONENT_LIMIT * 2, PARSE_EXPONENT_LIMIT * 2),
    )
}

/// `±digits × 10^exponent` as the nearest `Decimal` with the most fractional digits that fit.
fn decimal_from_digits(negative: bool, mut digits: Vec<u8>, mut exponent: i64) -> Result<Decimal> {
    while digits.last() == Some(&0) {
        digits.pop();
        exponent += 1;
    }
    if digits.is_empty() {
        return Ok(Decimal::ZERO);
    }
    let digit_count = digits.len() as i64;
    let integer_digits = digit_count + exponent;
    // Decimal holds at most 29 integer digits (2^96 - 1 = 79228162514264337593543950335).
    if integer_digits > 29 {
        return Err(errors::numeric_overflow());
    }
    let mut scale = (-exponent).clamp(0, DECIMAL_SCALE_MAX as i64);
    // At most 29 significant digits fit; fewer fractional digits if there are more.
    let kept = integer_digits + scale;
    if kept > 29 {
        scale -= kept - 29;
    }
    loop {
        let kept = integer_digits + scale;
        let magnitude = rounded_prefix(&digits, kept);
        if magnitude <= DECIMAL_MANTISSA_MAX {
            if magnitude == 0 {
                return Ok(Decimal::ZERO);
            }
            let signed = if negative {
                -(magnitude as i128)
            } else {
                magnitude as i128
            };
            return Decimal::try_from_i128_with_scale(signed, scale as u32)
                .map_err(|_| errors::numeric_overflow());
        }
        if scale == 0 {
            return Err(errors::numeric_overflow());
        }
        scale -= 1;
    }
}

/// The first `kept` digits as an integer (zero-extended when `kept` exceeds the digits),
/// rounded half away from zero on the next digit. `kept` is at most 29, so this fits.
fn rounded_prefix(digits: &[u8], kept: i64) -> u128 {
    if kept < 0 {
        return 0;
    }
    let kept = kept as usize;
    let mut magnitude: u128 = 0;
    for index in 0..kept {
        magnitude = magnitude * 10 + digits.get(index).copied().unwrap_or(0) as u128;
    }
    if digits.get(kept).is_some_and(|digit| *digit >= 5) {
        magnitude += 1;
    }
    magnitude
}

/// BINARY_DOUBLE text to `f64`: decimal or scientific text, or Oracle's `Inf`, `-Inf`, `Nan`.
pub(crate) fn parse_float(text: &str) -> Result<f64> {
    let trimmed = text.trim();
    // Rust's parser also accepts "infinity" and "nan" in any case, which is what Oracle's
    // TO_BINARY_DOUBLE accepts too; it rejects empty text, blanks inside and hex.
    trimmed.parse::<f64>().map_err(|_| Error::invalid_number())
}

/// A double as a `Decimal` through its shortest round-trip text, so that `0.1d` becomes 0.1
/// rather than 0.1000000000000000055511151231. ORA-01426 for infinities and magnitudes
/// beyond NUMBER here; ORA-01722 for NaN.
pub(crate) fn decimal_from_float(float: f64) -> Result<Decimal> {
    if float.is_nan() {
        return Err(Error::invalid_number());
    }
    if float.is_infinite() {
        return Err(errors::numeric_overflow());
    }
    if let Some(exact) = numeric::decimal_from_float_exact(float) {
        return Ok(exact.normalize());
    }
    parse_decimal(&format!("{float:e}"))
}

/// Text to BOOLEAN as Oracle 23ai's TO_BOOLEAN: TRUE/FALSE, T/F, YES/NO, Y/N, ON/OFF, 1/0,
/// case-insensitive; anything else is ORA-61800.
pub(crate) fn parse_boolean(text: &str) -> Result<bool> {
    match text.trim().to_ascii_uppercase().as_str() {
        "TRUE" | "T" | "YES" | "Y" | "ON" | "1" => Ok(true),
        "FALSE" | "F" | "NO" | "N" | "OFF" | "0" => Ok(false),
        _ => Err(errors::invalid_boolean()),
    }
}

/// Converts text to the family of `typed`, for a comparison between them (Oracle's implicit
/// conversion: the text side yields).
pub(crate) fn convert_text_like(text: &str, typed: &Value) -> Result<Value> {
    match typed {
        Value::Number(_) => parse_decimal(text).map(Value::Number),
        Value::Float(_) => parse_float(text).map(Value::Float),
        Value::Date(_) => datetime::parse_date(text).map(Value::Date),
        Value::Timestamp(_) => datetime::parse_timestamp(text).map(Value::Timestamp),
        Value::Boolean(_) => parse_boolean(text).map(Value::Boolean),
        Value::Text(_) | Value::Null => Ok(Value::text(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn decimal(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    fn parsed(text: &str) -> String {
        match Value::parse_number(text).unwrap() {
            Value::Number(number) => number.to_string(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn number_text_follows_to_char_default() {
        assert_eq!(format_number(&decimal("0.5")), ".5");
        assert_eq!(format_number(&decimal("-0.5")), "-.5");
        assert_eq!(format_number(&decimal("100")), "100");
        assert_eq!(format_number(&decimal("1.25")), "1.25");
        assert_eq!(format_number(&decimal("1.2500")), "1.25");
        assert_eq!(format_number(&decimal("100.000")), "100");
        assert_eq!(format_number(&decimal("-0.000")), "0");
        assert_eq!(format_number(&decimal("-12.5")), "-12.5");
        assert_eq!(Value::Number(decimal("0.05")).to_string(), ".05");
    }

    #[test]
    fn float_text_follows_binary_double() {
        assert_eq!(format_float(1.5), "1.5E+000");
        assert_eq!(format_float(100.0), "1.0E+002");
        assert_eq!(format_float(0.1), "1.0E-001");
        assert_eq!(format_float(-1.2345e-7), "-1.2345E-007");
        assert_eq!(format_float(1e300), "1.0E+300");
        assert_eq!(format_float(0.0), "0");
        assert_eq!(format_float(f64::INFINITY), "Inf");
        assert_eq!(format_float(f64::NEG_INFINITY), "-Inf");
        assert_eq!(format_float(f64::NAN), "Nan");
        for float in [0.1, 1.0 / 3.0, 5e-324, f64::MAX, -123.456] {
            assert_eq!(
                parse_float(&format_float(float)).unwrap(),
                float,
                "round trip"
            );
        }
        assert!(parse_float("Nan").unwrap().is_nan());
        assert_eq!(parse_float("-Inf").unwrap(), f64::NEG_INFINITY);
    }

    #[test]
    fn parse_number_accepts_oracle_number_text() {
        assert_eq!(parsed("12.5"), "12.5");
        assert_eq!(
            parsed("  -12.50 "),
            "-12.5",
            "trailing zeros carry no meaning in a NUMBER"
        );
        assert_eq!(parsed(".5"), "0.5");
        assert_eq!(parsed("5."), "5");
        assert_eq!(parsed("+7"), "7");
        assert_eq!(parsed("1e10"), "10000000000");
        assert_eq!(parsed("-1.5E-3"), "-0.0015");
        assert_eq!(parsed("0000.000"), "0");
        assert_eq!(
            parsed("79228162514264337593543950335"),
            "79228162514264337593543950335"
        );
        assert_eq!(Value::parse_number("").unwrap(), Value::Null);
        for bad in ["abc", "1.2.3", "e5", ".", "-", "1e", "1 2", "0x10", " "] {
            assert_eq!(
                Value::parse_number(bad).unwrap_err().code(),
                1722,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn parse_number_rounds_what_does_not_fit_and_never_panics() {
        assert_eq!(
            parsed("0.12345678901234567890123456789"),
            "0.1234567890123456789012345679"
        );
        assert_eq!(
            parsed("1.99999999999999999999999999999"),
            "2.0000000000000000000000000000"
        );
        assert_eq!(
            parsed("123456789012345678901234567.891"),
            "123456789012345678901234567.89"
        );
        assert_eq!(parsed("1e-40"), "0");
        assert_eq!(parsed("5e-29"), "0.0000000000000000000000000001");
        assert_eq!(parsed("-1e-999999999999"), "0");
        assert_eq!(Value::parse_number("1e29").unwrap_err().code(), 1426);
        assert_eq!(
            Value::parse_number("79228162514264337593543950336")
                .unwrap_err()
                .code(),
            1426
        );
        assert_eq!(
            Value::parse_number("1e999999999999999999999")
                .unwrap_err()
                .code(),
            1426
        );
    }

    #[test]
    fn number_columns_round_and_check_precision() {
        let column = DataType::number_with(5, 2);
        let store =
            |text: &str| coerce_to_column(Value::Number(decimal(text)), &column, "\"T\".\"N\"");
        assert_eq!(store("123.456").unwrap(), Value::Number(decimal("123.46")));
        assert_eq!(
            store("1.005").unwrap(),
            Value::Number(decimal("1.01")),
            "half away from zero"
        );
        assert_eq!(store("-1.005").unwrap(), Value::Number(decimal("-1.01")));
        assert_eq!(store("999.994").unwrap(), Value::Number(decimal("999.99")));
        assert_eq!(
            store("999.995").unwrap_err().code(),
            1438,
            "rounds up to 1000.00"
        );
        assert_eq!(store("1000").unwrap_err().code(), 1438);
        assert_eq!(store("0.001").unwrap(), Value::Number(Decimal::ZERO));
        let text = coerce_to_column(Value::text("12.345"), &column, "\"T\".\"N\"").unwrap();
        assert_eq!(text, Value::Number(decimal("12.35")));
        assert_eq!(
            coerce_to_column(Value::text("abc"), &column, "C")
                .unwrap_err()
                .code(),
            1722
        );
    }

    #[test]
    fn number_columns_with_unusual_scales() {
        let round = |text: &str, precision: Option<u8>, scale: Option<i8>| {
            round_to_number_type(decimal(text), precision, scale).map(|number| number.to_string())
        };
        assert_eq!(round("12345", Some(5), Some(-2)).unwrap(), "12300");
        assert_eq!(round("12350", Some(5), Some(-2)).unwrap(), "12400");
        assert_eq!(round("-12350", Some(5), Some(-2)).unwrap(), "-12400");
        assert_eq!(round("9999949", Some(5), Some(-2)).unwrap(), "9999900");
        assert_eq!(
            round("9999950", Some(5), Some(-2)).unwrap_err().code(),
            1438,
            "rounds to 10^7"
        );
        assert_eq!(round("0.00987", Some(2), Some(4)).unwrap(), "0.0099");
        assert_eq!(round("0.0123", Some(2), Some(4)).unwrap_err().code(), 1438);
        assert_eq!(round("12.7", Some(3), None).unwrap(), "13");
        assert_eq!(round("1234.5", Some(3), None).unwrap_err().code(), 1438);
        assert_eq!(round("1.23456", None, Some(2)).unwrap(), "1.23");
        assert_eq!(round("1.50", None, None).unwrap(), "1.5");
        assert_eq!(round("123.4", Some(38), Some(0)).unwrap(), "123");
        assert_eq!(round("5", Some(1), Some(-30)).unwrap(), "0");
    }

    /// The table "Storage of Scale and Precision" in Oracle's SQL Language Reference.
    #[test]
    fn number_storage_matches_the_oracle_documentation_table() {
        /// Input, precision, scale, and what is stored (None: ORA-01438).
        type Case = (&'static str, Option<u8>, Option<i8>, Option<&'static str>);
        let cases: [Case; 14] = [
            ("123.89", None, None, Some("123.89")),
            ("123.89", Some(3), None, Some("124")),
            ("123.89", Some(3), Some(2), None),
            ("123.89", Some(4), Some(2), None),
            ("123.89", Some(5), Some(2), Some("123.89")),
            ("123.89", Some(6), Some(1), Some("123.9")),
            ("123.89", Some(6), Some(-2), Some("100")),
            (".01234", Some(4), Some(5), Some("0.01234")),
            (".00012", Some(4), Some(5), Some("0.00012")),
            (".000127", Some(4), Some(5), Some("0.00013")),
            (".0000012", Some(2), Some(7), Some("0.0000012")),
            (".00000123", Some(2), Some(7), Some("0.0000012")),
            ("1.2e-4", Some(2), Some(5), Some("0.00012")),
            ("1.2e-5", Some(2), Some(5), Some("0.00001")),
        ];
        for (input, precision, scale, expected) in cases {
            let result = round_to_number_type(parse_decimal(input).unwrap(), precision, scale);
            match expected {
                Some(expected) => assert_eq!(
                    result.unwrap().to_string(),
                    expected,
                    "{input} {precision:?},{scale:?}"
                ),
                None => assert_eq!(
                    result.unwrap_err().code(),
                    1438,
                    "{input} {precision:?},{scale:?}"
                ),
            }
        }
    }

    #[test]
    fn varchar2_and_char_columns_check_bytes() {
        let error = coerce_to_column(
            Value::text("abcdef"),
            &DataType::varchar2(5),
            "\"SCOTT\".\"T\".\"NAME\"",
        )
        .unwrap_err();
        assert_eq!(error.code(), 12899);
        assert_eq!(
            error.message(),
            "value too large for column \"SCOTT\".\"T\".\"NAME\" (actual: 6, maximum: 5)"
        );
        let multibyte =
            coerce_to_column(Value::text("ééé"), &DataType::varchar2(5), "C").unwrap_err();
        assert_eq!(
            multibyte.message(),
            "value too large for column C (actual: 6, maximum: 5)",
            "bytes, not characters"
        );
        assert_eq!(
            coerce_to_column(Value::text("ab"), &DataType::char(4), "C").unwrap(),
            Value::text("ab  ")
        );
        assert_eq!(
            coerce_to_column(Value::integer(42), &DataType::varchar2(5), "C").unwrap(),
            Value::text("42")
        );
        assert_eq!(
            coerce_to_column(Value::Null, &DataType::char(4), "C").unwrap(),
            Value::Null
        );
    }

    #[test]
    fn casts_follow_oracle() {
        assert_eq!(
            Value::text("12.5").cast(&DataType::number()).unwrap(),
            Value::Number(decimal("12.5"))
        );
        assert_eq!(
            Value::text("abc")
                .cast(&DataType::number())
                .unwrap_err()
                .code(),
            1722
        );
        assert_eq!(
            Value::Number(decimal("0.5"))
                .cast(&DataType::varchar2(10))
                .unwrap(),
            Value::text(".5")
        );
        assert_eq!(
            Value::integer(12345)
                .cast(&DataType::varchar2(3))
                .unwrap_err()
                .code(),
            25137
        );
        assert_eq!(
            Value::Float(0.1).cast(&DataType::number()).unwrap(),
            Value::Number(decimal("0.1"))
        );
        assert_eq!(
            Value::Float(f64::INFINITY)
                .cast(&DataType::number())
                .unwrap_err()
                .code(),
            1426
        );
        assert_eq!(
            Value::Number(decimal("0.1"))
                .cast(&DataType::Float)
                .unwrap(),
            Value::Float(0.1)
        );
        assert_eq!(
            Value::Date(0).cast(&DataType::number()).unwrap_err().code(),
            932
        );
        assert_eq!(
            Value::Date(1).cast(&DataType::Timestamp).unwrap(),
            Value::Timestamp(1_000_000)
        );
        assert_eq!(
            Value::Timestamp(1_999_999).cast(&DataType::Date).unwrap(),
            Value::Date(1)
        );
        assert_eq!(
            Value::Timestamp(-1).cast(&DataType::Date).unwrap(),
            Value::Date(-1)
        );
        assert_eq!(
            Value::text("yes").cast(&DataType::Boolean).unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(
            Value::text("maybe")
                .cast(&DataType::Boolean)
                .unwrap_err()
                .code(),
            61800
        );
        assert_eq!(Value::Null.cast(&DataType::Date).unwrap(), Value::Null);
        let date = Value::text("2026-11-21 07:38:09")
            .cast(&DataType::Date)
            .unwrap();
        assert_eq!(date.to_string(), "21-NOV-26");
        assert_eq!(
            date.cast(&DataType::Timestamp).unwrap().to_string(),
            "21-NOV-26 07.38.09.000000 AM"
        );
        assert_eq!(
            date.cast(&DataType::varchar2(20)).unwrap(),
            Value::text("21-NOV-26")
        );
    }
}
