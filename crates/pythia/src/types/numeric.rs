//! Exact numbers: the one place where NUMBER (`Decimal`) and BINARY_DOUBLE (`f64`) meet.
//!
//! Sorting, grouping and index keys must agree on one total order over both kinds of
//! number, and that order must be *exact*: if `0.1` (a NUMBER) and `0.1d` (a BINARY_DOUBLE,
//! really 0.1000000000000000055511151231257827...) compared equal after a conversion, then
//! `0.1 = 0.1d` and `0.1d = 0.10000000000000000000000001` while `0.1 < 0.10000000000000000000000001`,
//! and a sort with such a comparator is not a sort. So every finite number has one exact
//! decimal form, [`ExactNumber`]:
//!
//! ```text
//!   value = sign × 0.d1 d2 d3 ... dn × 10^exponent     d1 != 0, dn != 0
//!
//!   12.5     -> Positive { exponent: 2,  digits: [1, 2, 5] }
//!   0.00125  -> Positive { exponent: -2, digits: [1, 2, 5] }
//!   -100     -> Negative { exponent: 3,  digits: [1] }
//!   1.0d     -> Positive { exponent: 1,  digits: [1] }      (same as NUMBER 1 and 1.00)
//! ```
//!
//! A double is a dyadic rational `m × 2^e`; its decimal expansion is finite (at most 767
//! significant digits, for subnormals) and is computed with a small unsigned big integer.
//! This costs microseconds only for doubles that have no exact NUMBER equivalent; the
//! common cases take the fast paths in [`decimal_from_float_exact`].
//!
//! Invariants:
//! 1. `ExactNumber::cmp` is the numeric order; NaN is greater than +Infinity (as in Oracle,
//!    where NaN sorts above every other BINARY_DOUBLE), and all NaNs are equal.
//! 2. Numerically equal inputs produce equal `ExactNumber`s (-0.0 and 0 are `Zero`).

use std::cmp::Ordering;

use rust_decimal::Decimal;

/// The largest mantissa a `Decimal` holds: 2^96 - 1.
pub(crate) const DECIMAL_MANTISSA_MAX: u128 = (1u128 << 96) - 1;

/// The largest scale (digits after the decimal point) a `Decimal` holds.
pub(crate) const DECIMAL_SCALE_MAX: u32 = 28;

/// A number written exactly in decimal; see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ExactNumber {
    NegativeInfinity,
    /// Magnitude `0.digits × 10^exponent`.
    Negative {
        exponent: i32,
        digits: Vec<u8>,
    },
    Zero,
    /// Magnitude `0.digits × 10^exponent`.
    Positive {
        exponent: i32,
        digits: Vec<u8>,
    },
    PositiveInfinity,
    NotANumber,
}

impl ExactNumber {
    fn rank(&self) -> u8 {
        match self {
            ExactNumber::NegativeInfinity => 0,
            ExactNumber::Negative { .. } => 1,
            ExactNumber::Zero => 2,
            ExactNumber::Positive { .. } => 3,
            ExactNumber::PositiveInfinity => 4,
            ExactNumber::NotANumber => 5,
        }
    }

    pub(crate) fn from_decimal(value: &Decimal) -> ExactNumber {
        if value.is_zero() {
            return ExactNumber::Zero;
        }
        let mut digits = decimal_digits(value.mantissa().unsigned_abs());
        let exponent = digits.len() as i32 - value.scale() as i32;
        strip_trailing_zeros(&mut digits);
        if value.is_sign_negative() {
            ExactNumber::Negative { exponent, digits }
        } else {
            ExactNumber::Positive { exponent, digits }
        }
    }

    pub(crate) fn from_float(value: f64) -> ExactNumber {
        if value.is_nan() {
            return ExactNumber::NotANumber;
        }
        if value.is_infinite() {
            return if value > 0.0 {
                ExactNumber::PositiveInfinity
            } else {
                ExactNumber::NegativeInfinity
            };
        }
        if value == 0.0 {
            return ExactNumber::Zero;
        }
        let (mantissa, binary_exponent) = decompose_float(value);
        let mut big = BigUnsigned::from_u64(mantissa);
        let (mut digits, exponent) = if binary_exponent >= 0 {
            big.multiply_by_power_of_two(binary_exponent as u32);
            let digits = big.decimal_digits();
            let exponent = digits.len() as i32;
            (digits, exponent)
        } else {
            // m × 2^-k = m × 5^k × 10^-k
            let k = binary_exponent.unsigned_abs();
            big.multiply_by_power_of_five(k);
            let digits = big.decimal_digits();
            let exponent = digits.len() as i32 - k as i32;
            (digits, exponent)
        };
        strip_trailing_zeros(&mut digits);
        if value < 0.0 {
            ExactNumber::Negative { exponent, digits }
        } else {
            ExactNumber::Positive { exponent, digits }
        }
    }
}

impl Ord for ExactNumber {
    fn cmp(&self, other: &ExactNumber) -> Ordering {
        match (self, other) {
            (
                ExactNumber::Positive {
                    exponent: left_exponent,
                    digits: left_digits,
                },
                ExactNumber::Positive {
                    exponent: right_exponent,
                    digits: right_digits,
                },
            ) => left_exponent
                .cmp(right_exponent)
                .then_with(|| left_digits.cmp(right_digits)),
            (
                ExactNumber::Negative {
                    exponent: left_exponent,
                    digits: left_digits,
                },
                ExactNumber::Negative {
                    exponent: right_exponent,
                    digits: right_digits,
                },
            ) => right_exponent
                .cmp(left_exponent)
                .then_with(|| right_digits.cmp(left_digits)),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for ExactNumber {
    fn partial_cmp(&self, other: &ExactNumber) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The decimal digits of `magnitude` (> 0), most significant first, without the text of
/// `to_string` (a key of a NUMBER column is encoded from these at every index lookup).
fn decimal_digits(mut magnitude: u128) -> Vec<u8> {
    // 2^96 (a Decimal's mantissa) has 29 digits; a u128 at most 39.
    let mut reversed = [0u8; 39];
    let mut count = 0;
    while magnitude > u128::from(u64::MAX) {
        reversed[count] = (magnitude % 10) as u8;
        magnitude /= 10;
        count += 1;
    }
    // The rest in 64-bit arithmetic (a u128 division is a library call).
    let mut low = magnitude as u64;
    while low > 0 {
        reversed[count] = (low % 10) as u8;
        low /= 10;
        count += 1;
    }
    reversed[..count].iter().rev().copied().collect()
}

fn strip_trailing_zeros(digits: &mut Vec<u8>) {
    while digits.last() == Some(&0) {
        digits.pop();
    }
}

/// Splits a finite non-zero double into an odd mantissa and a binary exponent:
/// `|value| = mantissa × 2^exponent`.
fn decompose_float(value: f64) -> (u64, i32) {
    let bits = value.to_bits();
    let biased_exponent = ((bits >> 52) & 0x7FF) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mut mantissa, mut exponent) = if biased_exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased_exponent - 1075)
    };
    debug_assert!(mantissa != 0, "decompose_float called with zero");
    let trailing = mantissa.trailing_zeros();
    mantissa >>= trailing;
    exponent += trailing as i32;
    (mantissa, exponent)
}

/// The `Decimal` exactly equal to `value`, if there is one (finite, at most 28 fractional
/// digits, magnitude below 2^96). `-0.0` gives zero.
pub(crate) fn decimal_from_float_exact(value: f64) -> Option<Decimal> {
    if !value.is_finite() {
        return None;
    }
    if value == 0.0 {
        return Some(Decimal::ZERO);
    }
    let (mantissa, exponent) = decompose_float(value);
    let magnitude: u128 = if exponent >= 0 {
        let bits = 64 - mantissa.leading_zeros() + exponent as u32;
        if bits > 96 {
            return None;
        }
        (mantissa as u128) << exponent
    } else {
        // An odd m × 2^-k needs exactly k fractional decimal digits.
        let k = exponent.unsigned_abs();
        if k > DECIMAL_SCALE_MAX {
            return None;
        }
        let magnitude = (mantissa as u128).checked_mul(5u128.pow(k))?;
        if magnitude > DECIMAL_MANTISSA_MAX {
            return None;
        }
        return decimal_from_parts(value < 0.0, magnitude, k);
    };
    decimal_from_parts(value < 0.0, magnitude, 0)
}

fn decimal_from_parts(negative: bool, magnitude: u128, scale: u32) -> Option<Decimal> {
    if magnitude > DECIMAL_MANTISSA_MAX || scale > DECIMAL_SCALE_MAX {
        return None;
    }
    let signed = if negative {
        -(magnitude as i128)
    } else {
        magnitude as i128
    };
    Decimal::try_from_i128_with_scale(signed, scale).ok()
}

/// The double nearest to `value` (correctly rounded, unlike `Decimal::to_f64`).
pub(crate) fn float_from_decimal(value: &Decimal) -> f64 {
    let magnitude = value.mantissa().unsigned_abs();
    // Fast path: both the mantissa and the power of ten are exact doubles, so one IEEE
    // division rounds correctly.
    if magnitude < (1u128 << 53) && value.scale() <= 22 {
        let result = magnitude as f64 / 10f64.powi(value.scale() as i32);
        return if value.is_sign_negative() {
            -result
        } else {
            result
        };
    }
    // Rust's float parser rounds correctly; Decimal's Display is plain decimal notation.
    value.to_string().parse::<f64>().unwrap_or(0.0)
}

/// Numeric order of a NUMBER and a BINARY_DOUBLE, exact.
pub(crate) fn compare_decimal_float(left: &Decimal, right: f64) -> Ordering {
    if right.is_nan() || right == f64::INFINITY {
        return Ordering::Less;
    }
    if right == f64::NEG_INFINITY {
        return Ordering::Greater;
    }
    if let Some(right_decimal) = decimal_from_float_exact(right) {
        return left.cmp(&right_decimal);
    }
    ExactNumber::from_decimal(left).cmp(&ExactNumber::from_float(right))
}

/// Order of two doubles: -0.0 equals 0.0, NaN equals NaN and is above +Infinity.
pub(crate) fn compare_floats(left: f64, right: f64) -> Ordering {
    match (left.is_nan(), right.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => left.partial_cmp(&right).unwrap_or(Ordering::Equal),
    }
}

/// Just enough of an unsigned big integer to expand a double in decimal: little-endian
/// 32-bit limbs, multiplication by a small factor, conversion to decimal digits.
struct BigUnsigned {
    limbs: Vec<u32>,
}

impl BigUnsigned {
    fn from_u64(value: u64) -> BigUnsigned {
        BigUnsigned {
            limbs: vec![value as u32, (value >> 32) as u32],
        }
    }

    fn multiply_small(&mut self, factor: u32) {
        let mut carry: u64 = 0;
        for limb in &mut self.limbs {
            let product = *limb as u64 * factor as u64 + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn multiply_by_power_of_two(&mut self, mut exponent: u32) {
        while exponent >= 31 {
            self.multiply_small(1 << 31);
            exponent -= 31;
        }
        self.multiply_small(1 << exponent);
    }

    fn multiply_by_power_of_five(&mut self, mut exponent: u32) {
        const FIVE_TO_THE_THIRTEENTH: u32 = 1_220_703_125;
        while exponent >= 13 {
            self.multiply_small(FIVE_TO_THE_THIRTEENTH);
            exponent -= 13;
        }
        self.multiply_small(5u32.pow(exponent));
    }

    /// Decimal digits, most significant first, without leading zeros (empty for zero).
    fn decimal_digits(mut self) -> Vec<u8> {
        const BILLION: u64 = 1_000_000_000;
        let mut chunks: Vec<u32> = Vec::new(); // base 10^9, least significant first
        loop {
            while self.limbs.last() == Some(&0) {
                self.limbs.pop();
            }
            if self.limbs.is_empty() {
                break;
            }
            let mut remainder: u64 = 0;
            for limb in self.limbs.iter_mut().rev() {
                let current = (remainder << 32) | *limb as u64;
                *limb = (current / BILLION) as u32;
                remainder = current % BILLION;
            }
            chunks.push(remainder as u32);
        }
        let mut text = String::new();
        for (index, chunk) in chunks.iter().rev().enumerate() {
            if index == 0 {
                text.push_str(&chunk.to_string());
            } else {
                text.push_str(&format!("{chunk:09}"));
            }
        }
        text.bytes().map(|byte| byte - b'0').collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn decimal(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    proptest::proptest! {
        /// The digits are the decimal text's, on both sides of 2^64.
        #[test]
        fn decimal_digits_are_the_texts(high in 0u64..(1 << 32), low: u64) {
            let magnitude = (u128::from(high) << 64 | u128::from(low)).max(1);
            let text: Vec<u8> = magnitude.to_string().bytes().map(|byte| byte - b'0').collect();
            proptest::prop_assert_eq!(decimal_digits(magnitude), text);
        }
    }

    #[test]
    fn decimal_digits_at_the_edges() {
        for magnitude in [
            1,
            9,
            10,
            u128::from(u64::MAX),
            u128::from(u64::MAX) + 1,
            u128::MAX,
        ] {
            let text: Vec<u8> = magnitude
                .to_string()
                .bytes()
                .map(|byte| byte - b'0')
                .collect();
            assert_eq!(decimal_digits(magnitude), text, "{magnitude}");
        }
    }

    #[test]
    fn exact_form_of_a_tenth_as_double_has_55_digits() {
        let ExactNumber::Positive { exponent, digits } = ExactNumber::from_float(0.1) else {
            panic!()
        };
        assert_eq!(exponent, 0);
        let text: String = digits
            .iter()
            .map(|digit| char::from(b'0' + digit))
            .collect();
        assert_eq!(
            text,
            "1000000000000000055511151231257827021181583404541015625"
        );
    }

    #[test]
    fn equal_numbers_have_equal_exact_forms() {
        assert_eq!(
            ExactNumber::from_decimal(&decimal("1.00")),
            ExactNumber::from_float(1.0)
        );
        assert_eq!(
            ExactNumber::from_decimal(&decimal("-0.00")),
            ExactNumber::from_float(-0.0)
        );
        assert_eq!(
            ExactNumber::from_decimal(&decimal("1024")),
            ExactNumber::from_float(1024.0)
        );
        assert_eq!(
            ExactNumber::from_decimal(&decimal("-0.375")),
            ExactNumber::from_float(-0.375)
        );
    }

    #[test]
    fn double_and_decimal_compare_exactly() {
        assert_eq!(compare_decimal_float(&decimal("0.1"), 0.1), Ordering::Less);
        assert_eq!(
            compare_decimal_float(&decimal("0.1000000000000000055511151232"), 0.1),
            Ordering::Greater
        );
        assert_eq!(compare_decimal_float(&decimal("2.5"), 2.5), Ordering::Equal);
        assert_eq!(compare_decimal_float(&Decimal::MAX, 1e300), Ordering::Less);
        assert_eq!(
            compare_decimal_float(&Decimal::MIN, -1e300),
            Ordering::Greater
        );
        assert_eq!(
            compare_decimal_float(&decimal("0.0000000000000000000000000001"), 5e-324),
            Ordering::Greater
        );
        assert_eq!(
            compare_decimal_float(&Decimal::ZERO, 5e-324),
            Ordering::Less
        );
    }

    #[test]
    fn exact_decimal_from_float() {
        assert_eq!(decimal_from_float_exact(0.5), Some(decimal("0.5")));
        assert_eq!(decimal_from_float_exact(-3.0), Some(decimal("-3")));
        assert_eq!(decimal_from_float_exact(0.1), None);
        assert_eq!(decimal_from_float_exact(1e30), None);
        assert_eq!(decimal_from_float_exact(f64::NAN), None);
    }

    #[test]
    fn float_from_decimal_rounds_correctly() {
        assert_eq!(float_from_decimal(&decimal("0.1")), 0.1);
        assert_eq!(
            float_from_decimal(&decimal("-123456789012345678901234.5678")),
            -123456789012345678901234.5678
        );
        assert_eq!(
            float_from_decimal(&decimal("0.3000000000000000000000000001")),
            0.3
        );
    }
}
