//! The row codec: a row of values as bytes, for table blocks, undo and redo.
//!
//! Modelled on Oracle's row piece: a column count, then each column as a length and the
//! bytes. Every value carries a one-byte type tag, so a row decodes without the table's
//! definition, and one column can be read by skipping the lengths before it.
//!
//! ```text
//!   row      := count column*                  at most `count` columns; the ones missing at
//!                                              the end are NULL (trailing NULLs are omitted)
//!   count    := length                         (not 0xFF)
//!   column   := 0xFF                           NULL
//!             | length payload                 payload of `length` bytes, length >= 1
//!
//!   length   := 0x00..=0xFA                    the length itself (0..250)
//!             | 0xFE  u16 big-endian           251..=65535
//!             | 0xFD  u32 big-endian           65536..=4294967295
//!             (0xFB and 0xFC are invalid)
//!
//!   payload  := 0x01 sign_scale magnitude      NUMBER: sign_scale = 0x80 if negative, plus the
//!                                              scale 0..=28; magnitude = the Decimal mantissa's
//!                                              absolute value, little-endian, 0..=12 bytes,
//!                                              no high zero bytes (zero is no bytes)
//!             | 0x02 f64 little-endian         BINARY_DOUBLE, 8 bytes, bits as is
//!             | 0x03 utf8                      text, the UTF-8 bytes
//!             | 0x04 integer                   DATE: seconds since the epoch
//!             | 0x05 integer                   TIMESTAMP: microseconds since the epoch
//!             | 0x06                           FALSE
//!             | 0x07                           TRUE
//!   integer  := 0..=8 bytes, two's complement little-endian, the fewest that hold the value
//!               (zero is no bytes; the decoder sign-extends)
//! ```
//!
//! Example: `(12.5, NULL, 'ab', NULL, NULL)` encodes as
//!
//! ```text
//!   05  03 01 01 7D  FF  03 03 61 62
//!   |   |  |  |  |   |   |  |  '--'--- "ab"
//!   |   |  |  |  |   |   |  '--------- tag: text
//!   |   |  |  |  |   |   '------------ length 3
//!   |   |  |  |  |   '---------------- NULL
//!   |   |  |  |  '-------------------- mantissa 125
//!   |   |  |  '----------------------- positive, scale 1
//!   |   |  '-------------------------- tag: NUMBER
//!   |   '----------------------------- length 3
//!   '--------------------------------- 5 columns; the last two NULLs take no bytes
//! ```
//!
//! A NUMBER keeps its scale (`1.50` decodes as `1.50`), a double its exact bits (-0.0 too).
//!
//! A row has at most [`ROW_COLUMNS_MAX`] columns. Decoding checks everything it reads and reports a malformed row as ORA-00600 (it means a
//! corrupt block or a bug), never a panic: lengths past the end, unknown tags, bad UTF-8,
//! scales above 28, oversized integers, bytes left over.

use rust_decimal::Decimal;

use super::numeric::DECIMAL_SCALE_MAX;
use super::value::Value;
use crate::error::{Error, Result};

/// The most columns a row may have: Oracle's limit with MAX_COLUMNS = EXTENDED. Decoding
/// rejects larger counts, which can only come from corruption, before allocating for them.
pub const ROW_COLUMNS_MAX: usize = 4096;

const NULL_MARKER: u8 = 0xFF;
const LENGTH_U16_MARKER: u8 = 0xFE;
const LENGTH_U32_MARKER: u8 = 0xFD;
const LENGTH_SHORT_MAX: usize = 0xFA;

const TAG_NUMBER: u8 = 0x01;
const TAG_FLOAT: u8 = 0x02;
const TAG_TEXT: u8 = 0x03;
const TAG_DATE: u8 = 0x04;
const TAG_TIMESTAMP: u8 = 0x05;
const TAG_FALSE: u8 = 0x06;
const TAG_TRUE: u8 = 0x07;

const NUMBER_NEGATIVE_FLAG: u8 = 0x80;
const NUMBER_MAGNITUDE_BYTES_MAX: usize = 12;

/// Appends the encoding of `values` to `out`; see the module documentation.
///
/// Panics if `values` has more than [`ROW_COLUMNS_MAX`] columns: no table has that many.
pub fn encode_row(values: &[Value], out: &mut Vec<u8>) {
    assert!(
        values.len() <= ROW_COLUMNS_MAX,
        "a row of {} columns exceeds {ROW_COLUMNS_MAX}",
        values.len()
    );
    write_length(values.len(), out);
    let stored = values
        .iter()
        .rposition(|value| !value.is_null())
        .map_or(0, |last| last + 1);
    for value in &values[..stored] {
        encode_value(value, out);
    }
}

/// Decodes a whole row: exactly as many values as were encoded, NULLs included.
pub fn decode_row(bytes: &[u8]) -> Result<Vec<Value>> {
    decode_row_columns(bytes, None)
}

/// Decodes a row, but only the columns `needed` marks (columns past its end are decoded):
/// the others are skipped and read as NULL. A query decodes only the columns it reads.
pub fn decode_row_columns(bytes: &[u8], needed: Option<&[bool]>) -> Result<Vec<Value>> {
    let mut values = vec![Value::Null; row_column_count(bytes)?];
    decode_row_into(bytes, needed, &mut values)?;
    Ok(values)
}

/// `decode_row_columns` into `out`, one value per column of the table: columns the row does
/// not have (added after it was written) and columns `needed` leaves out read as NULL.
/// Reuses `out`'s storage: a scan decodes every row into the same slots. Reading stops after
/// the last column wanted; only a row read to its end is checked for bytes left over.
pub fn decode_row_into(bytes: &[u8], needed: Option<&[bool]>, out: &mut [Value]) -> Result<()> {
    let mut reader = Reader { bytes, position: 0 };
    let count = reader.count()?;
    // Columns past the mask are wanted; past the last wanted one, nothing is.
    let wanted_end = match needed {
        Some(needed) if needed.len() >= count.min(out.len()) => needed
            .iter()
            .rposition(|&wanted| wanted)
            .map_or(0, |last| last + 1),
        _ => count,
    };
    let end = count.min(out.len()).min(wanted_end);
    let mut index = 0;
    while index < end && !reader.at_end() {
        let slot = &mut out[index];
        if needed.is_none_or(|needed| needed.get(index).copied().unwrap_or(true)) {
            *slot = reader.value()?;
        } else {
            reader.skip_value()?;
            *slot = Value::Null;
        }
        index += 1;
    }
    if end == count && !reader.at_end() {
        return Err(corrupt("bytes after the last column"));
    }
    for slot in out.iter_mut().skip(index) {
        *slot = Value::Null;
    }
    Ok(())
}

/// Decodes column `index` (from 0) only, skipping the columns before it. An index at or
/// beyond the row's column count reads as NULL: a column added to the table after the row
/// was written.
pub fn decode_column(bytes: &[u8], index: usize) -> Result<Value> {
    let mut reader = Reader { bytes, position: 0 };
    let count = reader.count()?;
    if index >= count {
        return Ok(Value::Null);
    }
    for _ in 0..index {
        if reader.at_end() {
            return Ok(Value::Null);
        }
        reader.skip_value()?;
    }
    if reader.at_end() {
        return Ok(Value::Null);
    }
    reader.value()
}

/// The number of columns a row was encoded with.
pub fn row_column_count(bytes: &[u8]) -> Result<usize> {
    Reader { bytes, position: 0 }.count()
}

fn corrupt(what: &str) -> Error {
    Error::internal(format!("row codec: {what}"))
}

fn write_length(length: usize, out: &mut Vec<u8>) {
    if length <= LENGTH_SHORT_MAX {
        out.push(length as u8);
    } else if let Ok(length) = u16::try_from(length) {
        out.push(LENGTH_U16_MARKER);
        out.extend_from_slice(&length.to_be_bytes());
    } else {
        let length = u32::try_from(length).expect("a row column is at most 4 GiB");
        out.push(LENGTH_U32_MARKER);
        out.extend_from_slice(&length.to_be_bytes());
    }
}

/// The bytes of `value` two's complement little-endian, without the high bytes that sign
/// extension restores.
fn minimal_signed_bytes(value: i64) -> ([u8; 8], usize) {
    let bytes = value.to_le_bytes();
    let mut length = 8;
    while length > 0 {
        let top = bytes[length - 1];
        let below_is_negative = length >= 2 && bytes[length - 2] & 0x80 != 0;
        let redundant = match top {
            0x00 => length == 1 || !below_is_negative,
            0xFF => length >= 2 && below_is_negative,
            _ => false,
        };
        // A lone 0x00 is zero (no bytes); a lone 0xFF is -1 and must stay.
        if !redundant {
            break;
        }
        length -= 1;
    }
    (bytes, length)
}

fn encode_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(NULL_MARKER),
        Value::Number(number) => {
            let magnitude = number.mantissa().unsigned_abs().to_le_bytes();
            let magnitude_length = magnitude
                .iter()
                .rposition(|byte| *byte != 0)
                .map_or(0, |last| last + 1);
            debug_assert!(magnitude_length <= NUMBER_MAGNITUDE_BYTES_MAX);
            let negative = number.is_sign_negative() && !number.is_zero();
            let sign_scale = number.scale() as u8 | if negative { NUMBER_NEGATIVE_FLAG } else { 0 };
            write_length(2 + magnitude_length, out);
            out.push(TAG_NUMBER);
            out.push(sign_scale);
            out.extend_from_slice(&magnitude[..magnitude_length]);
        }
        Value::Float(float) => {
            write_length(9, out);
            out.push(TAG_FLOAT);
            out.extend_from_slice(&float.to_le_bytes());
        }
        Value::Text(text) => {
            write_length(1 + text.len(), out);
            out.push(TAG_TEXT);
            out.extend_from_slice(text.as_bytes());
        }
        Value::Date(integer) | Value::Timestamp(integer) => {
            let tag = if matches!(value, Value::Date(_)) {
                TAG_DATE
            } else {
                TAG_TIMESTAMP
            };
            let (bytes, length) = minimal_signed_bytes(*integer);
            write_length(1 + length, out);
            out.push(tag);
            out.extend_from_slice(&bytes[..length]);
        }
        Value::Boolean(flag) => {
            write_length(1, out);
            out.push(if *flag { TAG_TRUE } else { TAG_FALSE });
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn at_end(&self) -> bool {
        self.position >= self.bytes.len()
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        let byte = *self
            .bytes
            .get(self.position)
            .ok_or_else(|| corrupt("row ends inside a length"))?;
        self.position += 1;
        Ok(byte)
    }

    #[inline]
    fn take(&mut self, length: usize) -> Result<&'a [u8]> {
        let end = self
            .position
            .checked_add(length)
            .filter(|end| *end <= self.bytes.len());
        let end = end.ok_or_else(|| corrupt("column runs past the end of the row"))?;
        let slice = &self.bytes[self.position..end];
        self.position = end;
        Ok(slice)
    }

    /// A length, or None for the NULL marker. Short lengths, nearly all of them, inline.
    #[inline]
    fn length(&mut self) -> Result<Option<usize>> {
        match self.byte()? {
            short if short as usize <= LENGTH_SHORT_MAX => Ok(Some(short as usize)),
            marker => self.marked_length(marker),
        }
    }

    /// The rest of a length that begins with `marker` (NULL, or a wide length).
    #[inline(never)]
    fn marked_length(&mut self, marker: u8) -> Result<Option<usize>> {
        match marker {
            NULL_MARKER => Ok(None),
            LENGTH_U16_MARKER => {
                let bytes = self.take(2)?;
                Ok(Some(u16::from_be_bytes([bytes[0], bytes[1]]) as usize))
            }
            LENGTH_U32_MARKER => {
                let bytes = self.take(4)?;
                Ok(Some(
                    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize,
                ))
            }
            other => Err(corrupt(&format!("invalid length byte {other:#04x}"))),
        }
    }

    fn count(&mut self) -> Result<usize> {
        let count = self
            .length()?
            .ok_or_else(|| corrupt("NULL marker in place of the column count"))?;
        if count > ROW_COLUMNS_MAX {
            return Err(corrupt(&format!(
                "column count {count} above {ROW_COLUMNS_MAX}"
            )));
        }
        Ok(count)
    }

    #[inline(always)]
    fn skip_value(&mut self) -> Result<()> {
        if let Some(length) = self.length()? {
            self.take(length)?;
        }
        Ok(())
    }

    #[inline]
    fn value(&mut self) -> Result<Value> {
        let Some(length) = self.length()? else {
            return Ok(Value::Null);
        };
        decode_payload(self.take(length)?)
    }
}

fn decode_payload(payload: &[u8]) -> Result<Value> {
    let (&tag, body) = payload
        .split_first()
        .ok_or_else(|| corrupt("empty column"))?;
    match tag {
        TAG_NUMBER => {
            let (&sign_scale, magnitude) = body
                .split_first()
                .ok_or_else(|| corrupt("NUMBER without a scale byte"))?;
            let scale = (sign_scale & !NUMBER_NEGATIVE_FLAG) as u32;
            if scale > DECIMAL_SCALE_MAX {
                return Err(corrupt(&format!("NUMBER scale {scale}")));
            }
            if magnitude.len() > NUMBER_MAGNITUDE_BYTES_MAX {
                return Err(corrupt("NUMBER mantissa longer than 12 bytes"));
            }
            // The mantissa's 96 bits, little-endian, as Decimal keeps them: three words.
            let mut words = [0u32; 3];
            for (index, byte) in magnitude.iter().enumerate() {
                words[index / 4] |= (*byte as u32) << (8 * (index % 4));
            }
            let negative = sign_scale & NUMBER_NEGATIVE_FLAG != 0;
            Ok(Value::Number(Decimal::from_parts(
                words[0], words[1], words[2], negative, scale,
            )))
        }
        TAG_FLOAT => {
            let bytes: [u8; 8] = body
                .try_into()
                .map_err(|_| corrupt("BINARY_DOUBLE not 8 bytes"))?;
            Ok(Value::Float(f64::from_le_bytes(bytes)))
        }
        TAG_TEXT => std::str::from_utf8(body)
            .map(|text| Value::Text(text.to_string()))
            .map_err(|_| corrupt("text is not UTF-8")),
        TAG_DATE | TAG_TIMESTAMP => {
            if body.len() > 8 {
                return Err(corrupt("DATE or TIMESTAMP longer than 8 bytes"));
            }
            let fill = if body.last().is_some_and(|byte| byte & 0x80 != 0) {
                0xFF
            } else {
                0x00
            };
            let mut bytes = [fill; 8];
            bytes[..body.len()].copy_from_slice(body);
            let integer = i64::from_le_bytes(bytes);
            Ok(if tag == TAG_DATE {
                Value::Date(integer)
            } else {
                Value::Timestamp(integer)
            })
        }
        TAG_FALSE | TAG_TRUE if body.is_empty() => Ok(Value::Boolean(tag == TAG_TRUE)),
        other => Err(corrupt(&format!("unknown type tag {other:#04x}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::str::FromStr;

    fn encoded(values: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_row(values, &mut out);
        out
    }

    /// Equal and of the same representation: NUMBER scale and double bits included.
    fn identical(left: &Value, right: &Value) -> bool {
        match (left, right) {
            (Value::Number(left), Value::Number(right)) => {
                left.mantissa() == right.mantissa() && left.scale() == right.scale()
            }
            (Value::Float(left), Value::Float(right)) => left.to_bits() == right.to_bits(),
            _ => left == right,
        }
    }

    #[test]
    fn documented_example_encodes_as_shown() {
        let row = [
            Value::Number(Decimal::from_str("12.5").unwrap()),
            Value::Null,
            Value::text("ab"),
            Value::Null,
            Value::Null,
        ];
        let bytes = encoded(&row);
        assert_eq!(
            bytes,
            [0x05, 0x03, 0x01, 0x01, 0x7D, 0xFF, 0x03, 0x03, 0x61, 0x62]
        );
        assert_eq!(decode_row(&bytes).unwrap(), row);
        assert_eq!(decode_column(&bytes, 2).unwrap(), Value::text("ab"));
        assert_eq!(decode_column(&bytes, 4).unwrap(), Value::Null);
        assert_eq!(
            decode_column(&bytes, 9).unwrap(),
            Value::Null,
            "a column added later"
        );
        assert_eq!(row_column_count(&bytes).unwrap(), 5);
    }

    #[test]
    fn integers_take_the_fewest_bytes() {
        for (value, length) in [
            (0i64, 0),
            (1, 1),
            (-1, 1),
            (127, 1),
            (128, 2),
            (-128, 1),
            (-129, 2),
            (i64::MIN, 8),
        ] {
            assert_eq!(minimal_signed_bytes(value).1, length, "{value}");
            let row = [Value::Date(value)];
            assert_eq!(decode_row(&encoded(&row)).unwrap(), row);
        }
    }

    #[test]
    fn long_values_use_the_wide_lengths() {
        for length in [250, 251, 65_535, 65_536, 100_000] {
            let row = [Value::text("x".repeat(length)), Value::integer(7)];
            let bytes = encoded(&row);
            assert_eq!(decode_row(&bytes).unwrap(), row);
            assert_eq!(decode_column(&bytes, 1).unwrap(), Value::integer(7));
        }
        let wide: Vec<Value> = (0..300).map(Value::integer).collect();
        assert_eq!(decode_row(&encoded(&wide)).unwrap(), wide);
    }

    #[test]
    fn malformed_rows_are_ora_00600() {
        for bytes in [
            &[][..],
            &[0xFF],
            &[0xFB],
            &[0x01, 0x05, 0x01],
            &[0x01, 0x02, 0x09, 0x00],
            &[0x01, 0x02, 0x01, 0x1D],
            &[0x01, 0x03, 0x03, 0xC3, 0x28],
            &[0x01, 0x01, 0x06, 0xFF],
            &[0x01, 0xFF, 0x00],
            &[0x01, 0x00],
            &[0xFD, 0xFF, 0xFF, 0xFF, 0xFF],
        ] {
            let error = decode_row(bytes).unwrap_err();
            assert_eq!(error.code(), 600, "{bytes:?}");
        }
    }

    fn value_strategy() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            (any::<i128>(), 0u32..=28).prop_map(|(mantissa, scale)| {
                Value::Number(Decimal::from_i128_with_scale(
                    mantissa % (1i128 << 96),
                    scale,
                ))
            }),
            any::<f64>().prop_map(Value::Float),
            ".{0,40}".prop_map(Value::Text),
            any::<i64>().prop_map(Value::Date),
            any::<i64>().prop_map(Value::Timestamp),
            any::<bool>().prop_map(Value::Boolean),
        ]
    }

    proptest! {
        #[test]
        fn rows_round_trip(row in proptest::collection::vec(value_strategy(), 0..12)) {
            let bytes = encoded(&row);
            let decoded = decode_row(&bytes).unwrap();
            prop_assert_eq!(decoded.len(), row.len());
            for (index, (original, decoded)) in row.iter().zip(&decoded).enumerate() {
                prop_assert!(identical(original, decoded), "{:?} became {:?}", original, decoded);
                let single = decode_column(&bytes, index).unwrap();
                prop_assert!(identical(original, &single), "column {}: {:?}", index, single);
            }
        }

        #[test]
        fn masked_rows_decode_only_the_needed_columns(
            row in proptest::collection::vec(value_strategy(), 0..12),
            needed in proptest::collection::vec(any::<bool>(), 0..14),
        ) {
            let bytes = encoded(&row);
            let decoded = decode_row_columns(&bytes, Some(&needed)).unwrap();
            prop_assert_eq!(decoded.len(), row.len());
            for (index, (original, decoded)) in row.iter().zip(&decoded).enumerate() {
                if needed.get(index).copied().unwrap_or(true) {
                    prop_assert!(identical(original, decoded), "{:?} became {:?}", original, decoded);
                } else {
                    prop_assert!(decoded.is_null(), "column {} was not skipped", index);
                }
            }
        }

        /// Decoding into a table-wide buffer that held another row: every slot is
        /// overwritten, columns beyond the row read as NULL, columns beyond the buffer are
        /// skipped.
        #[test]
        fn rows_decode_into_a_reused_buffer_of_any_width(
            row in proptest::collection::vec(value_strategy(), 0..12),
            width in 0usize..14,
        ) {
            let bytes = encoded(&row);
            let mut out = vec![Value::text("stale"); width];
            decode_row_into(&bytes, None, &mut out).unwrap();
            for (index, decoded) in out.iter().enumerate() {
                match row.get(index) {
                    Some(original) => prop_assert!(identical(original, decoded)),
                    None => prop_assert!(decoded.is_null(), "column {} kept a stale value", index),
                }
            }
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64), index in 0usize..8) {
            let _ = decode_row(&bytes);
            let _ = decode_column(&bytes, index);
            let _ = row_column_count(&bytes);
        }

        #[test]
        fn truncated_rows_never_panic(row in proptest::collection::vec(value_strategy(), 1..8), cut in any::<prop::sample::Index>()) {
            let bytes = encoded(&row);
            let cut = cut.index(bytes.len());
            let _ = decode_row(&bytes[..cut]);
            for index in 0..row.len() {
                let _ = decode_column(&bytes[..cut], index);
            }
        }
    }
}
