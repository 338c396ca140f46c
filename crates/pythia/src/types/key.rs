//! The key codec: index keys as bytes whose memcmp order is the `total_cmp` order.
//!
//! A B-tree compares keys as plain bytes (memcmp, a shorter key before a longer one it
//! prefixes). [`encode_key`] writes a tuple of values so that this byte order is exactly
//! [`compare_tuples`]: column by column [`Value::total_cmp`], reversed for descending
//! columns, so NULL is last in an ascending column and first in a descending one.
//!
//! Invariants:
//! 1. Order: `memcmp(encode(a), encode(b)) == compare_tuples(a, b)`.
//! 2. Equality: values that `total_cmp` calls equal encode identically (`1`, `1.00`, `1.0d`;
//!    `-0.0d` and `0`; a DATE and a TIMESTAMP at the same instant). So the key does not say
//!    which of them was stored, and is not decoded back (the row holds the value).
//! 3. Prefix-free columns: no column encoding is a proper prefix of another, so the encoding
//!    of `(a)` is a prefix of the encoding of `(a, b)` and of nothing that starts differently.
//!    This is what makes descending columns (every byte inverted) and prefix scans work.
//!
//! One column, ascending (descending: the same bytes, each XOR 0xFF):
//!
//! ```text
//!   BOOLEAN          10 00 | 10 01                       FALSE | TRUE
//!   NUMBER/DOUBLE    21                                  -Infinity
//!                    22 ~exponent ~pair... FF            negative: complement of the positive form
//!                    23                                  zero (and -0.0)
//!                    24 exponent pair... 00              positive
//!                    25                                  +Infinity
//!                    26                                  NaN
//!   text             30 bytes... 00 01                   each 00 byte written as 00 FF
//!   DATE/TIMESTAMP   40 seconds(8) microseconds(3)       seconds big-endian with the sign bit
//!                                                        flipped; microseconds 0..999999 big-endian
//!   NULL             FF
//! ```
//!
//! A finite non-zero number is `0.d1 d2 d3 ... × 10^exponent` exactly (numeric.rs): the
//! exponent is written as a big-endian u16 biased by 0x8000, then the digits two at a time as
//! one byte `10×d1 + d2 + 1` (1..=100; a last odd digit is paired with 0), then 00. A larger
//! exponent is a larger magnitude; with equal exponents the digits compare lexicographically,
//! and the 00 terminator sorts a shorter digit string first (its missing digits are zeros,
//! and the last written digit is not zero). Negative numbers complement the whole form, so a
//! larger magnitude sorts first and the terminator becomes FF.
//!
//! ```text
//!   12.5   -> 24 80 02 0D 33 00        exponent 2, pairs 12 and 50
//!   -12.5  -> 22 7F FD F2 CC FF
//!   0.001  -> 24 7F FE 0B 00           exponent -2, pair 10
//! ```
//!
//! Range scans. For a leading-column condition on a (possibly composite, possibly
//! descending) index, with `key(v)` = `encode_key(&[v], &[descending])`:
//!
//! ```text
//!   col = v     [ key(v), key_prefix_successor(key(v)) )
//!   col >= v    [ key(v), key(NULL) )                 ascending; key(NULL) = [FF] excludes NULLs
//!   col > v     [ key_prefix_successor(key(v)), key(NULL) )
//!   col < v     [ start, key(v) )
//!   col <= v    [ start, key_prefix_successor(key(v)) )
//!   a = x AND b = y on (a, b): [ key(x, y), key_prefix_successor(key(x, y)) )
//!   a = x AND b > y on (a, b): [ key_prefix_successor(key(x, y)), key_prefix_successor(key(x)) )
//! ```
//!
//! On a descending column the inequalities swap ends (`col > v` scans from the start to
//! `key(v)`), and NULLs are at the start, before `key_prefix_successor(key(NULL))`.
//! `key_prefix_successor` is None when every key with the prefix runs to the end of the index
//! (the prefix is all FF bytes): scan to the end.

use std::cmp::Ordering;

use super::numeric::ExactNumber;
use super::value::Value;

const TAG_BOOLEAN: u8 = 0x10;
const TAG_NEGATIVE_INFINITY: u8 = 0x21;
const TAG_NEGATIVE: u8 = 0x22;
const TAG_ZERO: u8 = 0x23;
const TAG_POSITIVE: u8 = 0x24;
const TAG_POSITIVE_INFINITY: u8 = 0x25;
const TAG_NOT_A_NUMBER: u8 = 0x26;
const TAG_TEXT: u8 = 0x30;
const TAG_DATETIME: u8 = 0x40;
const TAG_NULL: u8 = 0xFF;

const EXPONENT_BIAS: i32 = 0x8000;

/// Appends the key encoding of `values` to `out`. Column `i` is descending when
/// `descending[i]` is true; columns beyond `descending` are ascending.
pub fn encode_key(values: &[Value], descending: &[bool], out: &mut Vec<u8>) {
    for (index, value) in values.iter().enumerate() {
        encode_key_column(value, descending.get(index).copied().unwrap_or(false), out);
    }
}

/// Appends the key encoding of one column: `encode_key` is these, concatenated.
pub fn encode_key_column(value: &Value, descending: bool, out: &mut Vec<u8>) {
    let start = out.len();
    match value {
        Value::Null => out.push(TAG_NULL),
        Value::Boolean(flag) => {
            out.push(TAG_BOOLEAN);
            out.push(*flag as u8);
        }
        Value::Number(number) => encode_number(&ExactNumber::from_decimal(number), out),
        Value::Float(float) => encode_number(&ExactNumber::from_float(*float), out),
        Value::Text(text) => {
            out.push(TAG_TEXT);
            for &byte in text.as_bytes() {
                out.push(byte);
                if byte == 0x00 {
                    out.push(0xFF);
                }
            }
            out.extend_from_slice(&[0x00, 0x01]);
        }
        Value::Date(_) | Value::Timestamp(_) => {
            let (seconds, microseconds) = value.instant().unwrap_or_default();
            out.push(TAG_DATETIME);
            out.extend_from_slice(&((seconds as u64) ^ (1 << 63)).to_be_bytes());
            out.extend_from_slice(&microseconds.to_be_bytes()[1..]);
        }
    }
    if descending {
        for byte in &mut out[start..] {
            *byte = !*byte;
        }
    }
}

fn encode_number(number: &ExactNumber, out: &mut Vec<u8>) {
    let (tag, exponent, digits, complement) = match number {
        ExactNumber::NegativeInfinity => return out.push(TAG_NEGATIVE_INFINITY),
        ExactNumber::Zero => return out.push(TAG_ZERO),
        ExactNumber::PositiveInfinity => return out.push(TAG_POSITIVE_INFINITY),
        ExactNumber::NotANumber => return out.push(TAG_NOT_A_NUMBER),
        ExactNumber::Negative { exponent, digits } => (TAG_NEGATIVE, *exponent, digits, 0xFF),
        ExactNumber::Positive { exponent, digits } => (TAG_POSITIVE, *exponent, digits, 0x00),
    };
    out.push(tag);
    let biased = (exponent + EXPONENT_BIAS) as u16; // |exponent| < 400
    for byte in biased.to_be_bytes() {
        out.push(byte ^ complement);
    }
    for pair in digits.chunks(2) {
        let value = pair[0] * 10 + pair.get(1).copied().unwrap_or(0) + 1;
        out.push(value ^ complement);
    }
    out.push(complement);
}

/// The smallest byte string greater than every string that starts with `prefix`: the
/// exclusive upper bound of a prefix scan. None when no such bound exists (the prefix is
/// empty or all 0xFF), meaning scan to the end.
pub fn key_prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut successor = prefix.to_vec();
    while let Some(last) = successor.pop() {
        if last != 0xFF {
            successor.push(last + 1);
            return Some(successor);
        }
    }
    None
}

/// The order key encodings have: column by column [`Value::total_cmp`], reversed where
/// `descending[i]` is true (columns beyond `descending` ascending), and a tuple before any
/// longer tuple it is a prefix of. Also the ORDER BY order with Oracle's default NULL
/// placement (NULLS LAST for ASC, NULLS FIRST for DESC).
pub fn compare_tuples(left: &[Value], right: &[Value], descending: &[bool]) -> Ordering {
    for (index, (left_value, right_value)) in left.iter().zip(right).enumerate() {
        let ordering = left_value.total_cmp(right_value);
        let ordering = if descending.get(index).copied().unwrap_or(false) {
            ordering.reverse()
        } else {
            ordering
        };
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    left.len().cmp(&right.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    fn key(values: &[Value], descending: &[bool]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_key(values, descending, &mut out);
        out
    }

    fn number(text: &str) -> Value {
        Value::Number(Decimal::from_str(text).unwrap())
    }

    #[test]
    fn documented_examples_encode_as_shown() {
        assert_eq!(
            key(&[number("12.5")], &[]),
            [0x24, 0x80, 0x02, 0x0D, 0x33, 0x00]
        );
        assert_eq!(
            key(&[number("-12.5")], &[]),
            [0x22, 0x7F, 0xFD, 0xF2, 0xCC, 0xFF]
        );
        assert_eq!(key(&[number("0.001")], &[]), [0x24, 0x7F, 0xFE, 0x0B, 0x00]);
        assert_eq!(key(&[Value::Null], &[]), [0xFF]);
        assert_eq!(key(&[Value::Null], &[true]), [0x00]);
    }

    #[test]
    fn equal_values_encode_identically() {
        let one = key(&[number("1")], &[]);
        assert_eq!(key(&[number("1.000")], &[]), one);
        assert_eq!(key(&[Value::Float(1.0)], &[]), one);
        assert_eq!(key(&[Value::Float(-0.0)], &[]), key(&[number("0")], &[]));
        assert_eq!(
            key(&[Value::Date(7)], &[]),
            key(&[Value::Timestamp(7_000_000)], &[])
        );
    }

    #[test]
    fn composite_key_prefixes_bound_an_equality_scan() {
        let prefix = key(&[number("5")], &[false]);
        let upper = key_prefix_successor(&prefix).unwrap();
        let inside = [
            key(&[number("5"), Value::Null], &[false, false]),
            key(&[number("5"), Value::text("")], &[false, true]),
            key(&[number("5.0"), Value::text("\u{10FFFF}")], &[false, false]),
            key(&[number("5"), Value::Null], &[false, true]),
        ];
        let outside = [
            key(
                &[number("5.0000000000000000000000000001"), Value::Null],
                &[],
            ),
            key(
                &[number("4.9999999999999999999999999999"), Value::Null],
                &[],
            ),
            key(&[number("50")], &[]),
            key(&[number("-5")], &[]),
            key(&[Value::Null], &[]),
        ];
        for candidate in &inside {
            assert!(candidate.starts_with(&prefix));
            assert!(
                prefix.as_slice() <= candidate.as_slice()
                    && candidate.as_slice() < upper.as_slice()
            );
        }
        for candidate in &outside {
            assert!(
                !(prefix.as_slice() <= candidate.as_slice()
                    && candidate.as_slice() < upper.as_slice())
            );
        }
    }

    #[test]
    fn prefix_successor() {
        assert_eq!(key_prefix_successor(&[0x24, 0x80]), Some(vec![0x24, 0x81]));
        assert_eq!(key_prefix_successor(&[0x24, 0xFF, 0xFF]), Some(vec![0x25]));
        assert_eq!(key_prefix_successor(&[0xFF]), None);
        assert_eq!(key_prefix_successor(&[]), None);
    }

    /// Numbers drawn so that equal values with different representations are common.
    fn number_strategy() -> impl Strategy<Value = Value> {
        prop_oneof![
            (-2000i64..2000, 0u32..6)
                .prop_map(|(mantissa, scale)| Value::Number(Decimal::new(mantissa, scale))),
            (any::<i128>(), 0u32..=28).prop_map(|(mantissa, scale)| {
                Value::Number(Decimal::from_i128_with_scale(
                    mantissa % (1i128 << 96),
                    scale,
                ))
            }),
            (-800i32..800, 0i32..4).prop_map(|(numerator, shift)| Value::Float(
                numerator as f64 / (1 << shift) as f64
            )),
            any::<f64>()
                .prop_filter("NaN is tested on its own", |float| !float.is_nan())
                .prop_map(Value::Float),
            prop_oneof![
                Just(0.0),
                Just(-0.0),
                Just(f64::INFINITY),
                Just(f64::NEG_INFINITY),
                Just(5e-324),
                Just(0.1)
            ]
            .prop_map(Value::Float),
        ]
    }

    fn value_strategy() -> impl Strategy<Value = Value> {
        prop_oneof![
            2 => Just(Value::Null),
            6 => number_strategy(),
            3 => "[a\u{0}b\u{e9}\u{4e2d}\u{1F600}]{0,4}".prop_map(Value::Text),
            1 => ".{0,8}".prop_map(Value::Text),
            2 => (-3i64..3).prop_map(|day| Value::Date(day * 86_400)),
            1 => any::<i64>().prop_map(Value::Date),
            2 => (-3i64..3, prop_oneof![Just(0i64), Just(1), Just(999_999)])
                .prop_map(|(day, micro)| Value::Timestamp(day * 86_400_000_000 + micro)),
            1 => any::<i64>().prop_map(Value::Timestamp),
            1 => any::<bool>().prop_map(Value::Boolean),
        ]
    }

    fn tuple_strategy() -> impl Strategy<Value = Vec<Value>> {
        proptest::collection::vec(value_strategy(), 0..4)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn key_order_is_total_order(
            left in tuple_strategy(),
            right in tuple_strategy(),
            descending in proptest::collection::vec(any::<bool>(), 4),
        ) {
            let expected = compare_tuples(&left, &right, &descending);
            let left_key = key(&left, &descending);
            let right_key = key(&right, &descending);
            prop_assert_eq!(left_key.cmp(&right_key), expected, "{:?} vs {:?}", left, right);
        }

        #[test]
        fn single_values_order_like_total_cmp(left in value_strategy(), right in value_strategy(), descending in any::<bool>()) {
            let expected = left.total_cmp(&right);
            let expected = if descending { expected.reverse() } else { expected };
            let left_key = key(std::slice::from_ref(&left), &[descending]);
            let right_key = key(std::slice::from_ref(&right), &[descending]);
            prop_assert_eq!(left_key.cmp(&right_key), expected);
        }

        #[test]
        fn a_tuple_key_extends_its_prefix_key(tuple in tuple_strategy(), descending in proptest::collection::vec(any::<bool>(), 4)) {
            let full = key(&tuple, &descending);
            for length in 0..tuple.len() {
                let prefix = key(&tuple[..length], &descending);
                prop_assert!(full.starts_with(&prefix));
                if let Some(upper) = key_prefix_successor(&prefix) {
                    prop_assert!(full < upper);
                }
            }
        }
    }

    #[test]
    fn nan_sorts_above_infinity_and_below_null() {
        let nan = key(&[Value::Float(f64::NAN)], &[]);
        assert!(key(&[Value::Float(f64::INFINITY)], &[]) < nan);
        assert!(nan < key(&[Value::text("a")], &[]));
        assert_eq!(nan, key(&[Value::Float(-f64::NAN)], &[]));
    }
}
