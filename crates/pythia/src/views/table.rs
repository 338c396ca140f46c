//! The pieces every view is built from: column types, the conversions from instrumentation
//! units to the values Oracle shows, and the assembly of a [`FixedTable`] that checks each
//! row against its columns.

use std::time::SystemTime;

use rust_decimal::{Decimal, RoundingStrategy};

use super::FixedTable;
use crate::types::{DataType, Value};

/// A view's columns: Oracle's names, upper case, with their types.
pub(super) type Columns = &'static [(&'static str, DataType)];

/// NUMBER without precision: every count, time and identifier.
pub(super) const NUMBER: DataType = DataType::number();

/// Microseconds in a centisecond, the unit of TIME_WAITED, AVERAGE_WAIT and MAX_WAIT.
const MICROS_PER_CENTISECOND: u64 = 10_000;

/// Hexadecimal digits of an address shown as Oracle shows a RAW(8).
pub(super) const RAW_ADDRESS_DIGITS: u32 = 16;

pub(super) const fn varchar2(length_bytes: u32) -> DataType {
    DataType::varchar2(length_bytes)
}

/// A count or a time: a NUMBER.
pub(super) fn number(value: u64) -> Value {
    Value::from(value)
}

/// A signed NUMBER (WAIT_TIME's -1, a current statistic read below zero).
pub(super) fn signed(value: i64) -> Value {
    Value::integer(value)
}

/// Text; the empty string is NULL, as in Oracle.
pub(super) fn text(value: &str) -> Value {
    Value::text(value)
}

/// Microseconds as whole centiseconds, rounded half up (Oracle's `round(time / 10000)`).
pub(super) fn centiseconds(micros: u64) -> Value {
    number(micros / MICROS_PER_CENTISECOND + u64::from(micros % MICROS_PER_CENTISECOND >= 5_000))
}

/// AVERAGE_WAIT: the mean wait in centiseconds, rounded to two decimals; 0 without waits.
pub(super) fn average_centiseconds(total_micros: u64, count: u64) -> Value {
    if count == 0 {
        return number(0);
    }
    let divisor = Decimal::from(count) * Decimal::from(MICROS_PER_CENTISECOND);
    quotient(Decimal::from(total_micros), divisor, 2)
}

/// `numerator / divisor` (not zero) rounded to `places` decimals, halves away from zero, as
/// Oracle's ROUND.
pub(super) fn quotient(numerator: Decimal, divisor: Decimal, places: u32) -> Value {
    Value::Number(
        (numerator / divisor)
            .round_dp_with_strategy(places, RoundingStrategy::MidpointAwayFromZero)
            .normalize(),
    )
}

/// An address or a mutex value as the hexadecimal text of a RAW(8): 16 upper-case digits.
pub(super) fn raw(value: u64) -> Value {
    Value::Text(format!(
        "{value:0width$X}",
        width = RAW_ADDRESS_DIGITS as usize
    ))
}

/// The server's local time at `time`, as naive seconds and microseconds since 1970 (the form
/// of DATE and TIMESTAMP values, which carry no time zone; SYSDATE is local time too).
fn local_micros(time: SystemTime) -> i64 {
    chrono::DateTime::<chrono::Local>::from(time)
        .naive_local()
        .and_utc()
        .timestamp_micros()
}

/// A DATE: `time` in local time, to the second.
pub(super) fn date(time: SystemTime) -> Value {
    Value::Date(local_micros(time).div_euclid(1_000_000))
}

/// Unix seconds as a DATE; 0 (never, or not recorded) is NULL.
pub(super) fn unix_date(unix_seconds: u64) -> Value {
    if unix_seconds == 0 {
        return Value::Null;
    }
    date(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(unix_seconds))
}

/// A TIMESTAMP: `time` in local time, to the microsecond.
pub(super) fn timestamp(time: SystemTime) -> Value {
    Value::Timestamp(local_micros(time))
}

/// Assembles a view's table. Text longer than its column is cut at the column's length (at a
/// character boundary), as Oracle's fixed-width columns cut it; anything else that does not
/// match the column's type is a bug in the view and panics.
pub(super) fn build(columns: Columns, rows: Vec<Vec<Value>>) -> FixedTable {
    let mut rows = rows;
    for row in &mut rows {
        assert_eq!(
            row.len(),
            columns.len(),
            "row width differs from the columns"
        );
        for (value, (name, data_type)) in row.iter_mut().zip(columns) {
            fit(value, name, data_type);
        }
    }
    FixedTable {
        columns: columns
            .iter()
            .map(|(name, data_type)| (name.to_string(), *data_type))
            .collect(),
        rows,
    }
}

/// Checks that `value` belongs in a column of `data_type`, cutting text to the column's length.
fn fit(value: &mut Value, name: &str, data_type: &DataType) {
    let fits = match (data_type, &mut *value) {
        (_, Value::Null) => true,
        (DataType::Number { .. }, Value::Number(_)) => true,
        (DataType::Date, Value::Date(_)) => true,
        (DataType::Timestamp, Value::Timestamp(_)) => true,
        (DataType::Varchar2 { length }, Value::Text(text)) => {
            truncate_to_bytes(text, *length as usize);
            true
        }
        _ => false,
    };
    assert!(fits, "column {name} of type {data_type:?} given {value:?}");
}

/// Cuts `text` to at most `length_bytes` bytes without splitting a character.
fn truncate_to_bytes(text: &mut String, length_bytes: usize) {
    if text.len() <= length_bytes {
        return;
    }
    let mut end = length_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn decimal(text: &str) -> Value {
        Value::Number(Decimal::from_str(text).unwrap())
    }

    #[test]
    fn centiseconds_round_half_up() {
        assert_eq!(centiseconds(0), number(0));
        assert_eq!(centiseconds(4_999), number(0));
        assert_eq!(centiseconds(5_000), number(1));
        assert_eq!(centiseconds(14_999), number(1));
        assert_eq!(centiseconds(15_000), number(2));
        // 18446744073709551615 µs ends in 1615: rounds down, and nothing overflows.
        assert_eq!(centiseconds(u64::MAX), number(u64::MAX / 10_000));
    }

    #[test]
    fn average_wait_has_two_decimals() {
        assert_eq!(average_centiseconds(0, 0), number(0));
        assert_eq!(average_centiseconds(3_000, 1), decimal("0.3"));
        // 1234 µs over 3 waits = 0.04113... cs.
        assert_eq!(average_centiseconds(1_234, 3), decimal("0.04"));
        // 125 µs = 0.0125 cs: the half rounds away from zero.
        assert_eq!(average_centiseconds(125, 1), decimal("0.01"));
        assert_eq!(average_centiseconds(150, 1), decimal("0.02"));
        assert_eq!(average_centiseconds(u64::MAX, u64::MAX), number(0));
    }

    #[test]
    fn raw_is_sixteen_hex_digits() {
        assert_eq!(raw(0xAB), Value::Text("00000000000000AB".into()));
        assert_eq!(raw(u64::MAX), Value::Text("FFFFFFFFFFFFFFFF".into()));
    }

    #[test]
    fn build_cuts_long_text_at_a_character_boundary() {
        const COLUMNS: Columns = &[("NAME", varchar2(4)), ("VALUE", NUMBER)];
        let table = build(
            COLUMNS,
            vec![
                vec![text("abcdef"), number(1)],
                vec![text("aé€"), Value::Null],
            ],
        );
        assert_eq!(table.columns[0], ("NAME".to_string(), varchar2(4)));
        assert_eq!(table.rows[0][0], text("abcd"));
        // "aé€" is 1 + 2 + 3 bytes: the euro sign does not fit in 4.
        assert_eq!(table.rows[1][0], text("aé"));
    }

    #[test]
    #[should_panic(expected = "column VALUE")]
    fn build_rejects_a_value_of_the_wrong_type() {
        const COLUMNS: Columns = &[("VALUE", NUMBER)];
        build(COLUMNS, vec![vec![text("1")]]);
    }

    #[test]
    fn dates_are_local_time_to_the_second() {
        let now = SystemTime::now();
        let (Value::Date(seconds), Value::Timestamp(micros)) = (date(now), timestamp(now)) else {
            panic!("date and timestamp values expected");
        };
        assert_eq!(seconds, micros.div_euclid(1_000_000));
        let offset_seconds = chrono::Local::now().offset().local_minus_utc() as i64;
        let utc_seconds = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        assert_eq!(seconds, utc_seconds + offset_seconds);
    }
}
