//! Assignment: a value converted to the type of the slot it goes into, with PL/SQL's errors
//! (ORA-06502 VALUE_ERROR for what does not fit, ORA-01426 for a PLS_INTEGER overflow).

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::RoundingStrategy;

use crate::error::{Error, Result};
use crate::plsql::code::{Slot, SlotKind};
use crate::plsql::errors::value_error;
use crate::types::{DataType, Value};

/// PLS_INTEGER's range.
const PLS_INTEGER_MIN: i64 = i32::MIN as i64;
const PLS_INTEGER_MAX: i64 = i32::MAX as i64;

/// `value` as `slot` holds it.
pub fn assign(value: Value, slot: &Slot) -> Result<Value> {
    if value.is_null() {
        if slot.not_null {
            return Err(value_error(""));
        }
        return Ok(Value::Null);
    }
    match slot.kind {
        SlotKind::Any => Ok(value),
        SlotKind::PlsInteger => match &value {
            // A whole number in range is kept as it is.
            Value::Number(number)
                if number.scale() == 0
                    && (PLS_INTEGER_MIN as i128..=PLS_INTEGER_MAX as i128)
                        .contains(&number.mantissa()) =>
            {
                Ok(value)
            }
            _ => pls_integer(&value).map(Value::integer),
        },
        SlotKind::Sql(data_type) => match (&data_type, &value) {
            // What needs no conversion (the common case in a loop).
            (
                DataType::Number {
                    precision: None,
                    scale: None,
                },
                Value::Number(_),
            )
            | (DataType::Boolean, Value::Boolean(_))
            | (DataType::Date, Value::Date(_))
            | (DataType::Timestamp, Value::Timestamp(_))
            | (DataType::Float, Value::Float(_)) => Ok(value),
            (DataType::Varchar2 { length }, Value::Text(text))
                if text.len() <= *length as usize =>
            {
                Ok(value)
            }
            (DataType::Varchar2 { length } | DataType::Char { length }, _) => {
                let text = value.to_text().unwrap_or_default();
                if text.len() > *length as usize {
                    return Err(value_error("character string buffer too small"));
                }
                value.cast(&data_type).map_err(conversion_error)
            }
            _ => value.cast(&data_type).map_err(conversion_error),
        },
    }
}

/// A value as a PLS_INTEGER: rounded to a whole number, ORA-01426 outside its range.
pub fn pls_integer(value: &Value) -> Result<i64> {
    let number = match value {
        Value::Number(number) => *number,
        other => other
            .cast(&DataType::number())
            .map_err(conversion_error)?
            .to_decimal()?,
    };
    // A whole number (every PLS_INTEGER, a loop's counter) is its mantissa: no rounding.
    if number.scale() == 0 {
        let whole = number.mantissa();
        return if (PLS_INTEGER_MIN as i128..=PLS_INTEGER_MAX as i128).contains(&whole) {
            Ok(whole as i64)
        } else {
            Err(Error::new(1426, "numeric overflow"))
        };
    }
    let whole = number.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero);
    match whole.to_i64() {
        Some(whole) if (PLS_INTEGER_MIN..=PLS_INTEGER_MAX).contains(&whole) => Ok(whole),
        _ => Err(Error::new(1426, "numeric overflow")),
    }
}

/// A bound of a FOR loop or an argument that must be a number: NULL is VALUE_ERROR.
pub fn required_integer(value: &Value) -> Result<i64> {
    if value.is_null() {
        return Err(value_error(""));
    }
    pls_integer(value)
}

/// A conversion's error as PL/SQL reports it.
fn conversion_error(error: Error) -> Error {
    match error.code() {
        1722 => value_error("character to number conversion error"),
        1438 => value_error("number precision too large"),
        25137 | 12899 => value_error("character string buffer too small"),
        _ if error.code() >= 1800 && error.code() < 1900 => error,
        _ => value_error(""),
    }
}

/// A decimal's value as an exact whole number of the slot's kind, for tests.
#[cfg(test)]
fn integer_value(value: &Value) -> Option<i64> {
    match value {
        Value::Number(number) if number.fract().is_zero() => number.to_i64(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(kind: SlotKind, not_null: bool) -> Slot {
        Slot {
            name: "X".into(),
            kind,
            not_null,
        }
    }

    #[test]
    fn pls_integer_rounds_and_overflows() {
        let integer = slot(SlotKind::PlsInteger, false);
        let value = assign(Value::parse_number("2.5").unwrap(), &integer).unwrap();
        assert_eq!(integer_value(&value), Some(3));
        let value = assign(Value::parse_number("-2.5").unwrap(), &integer).unwrap();
        assert_eq!(integer_value(&value), Some(-3));
        let error = assign(Value::integer(1 << 31), &integer).unwrap_err();
        assert_eq!(error.code(), 1426);
        assert_eq!(
            assign(Value::text("x"), &integer).unwrap_err().code(),
            6502,
            "text that is no number"
        );
    }

    #[test]
    fn too_long_text_and_null_into_not_null_are_value_errors() {
        let short = slot(SlotKind::Sql(DataType::varchar2(3)), false);
        assert_eq!(
            assign(Value::text("abc"), &short).unwrap(),
            Value::text("abc")
        );
        let error = assign(Value::text("abcd"), &short).unwrap_err();
        assert_eq!(error.code(), 6502);
        assert!(error
            .message()
            .ends_with("character string buffer too small"));
        let required = slot(SlotKind::Sql(DataType::number()), true);
        assert_eq!(assign(Value::Null, &required).unwrap_err().code(), 6502);
        let number = slot(SlotKind::Sql(DataType::number()), false);
        assert_eq!(
            assign(Value::text("12"), &number).unwrap(),
            Value::integer(12)
        );
    }
}
