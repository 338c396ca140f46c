//! Number format models: TO_CHAR(number, 'fmt') and TO_NUMBER(text, 'fmt').
//!
//! A model is read into elements first, as `date_format.rs` reads a date model (a table of
//! keywords, longest first: `TME` and `TM9` before `TM`; case matters only for the case
//! RN, X and their output take), so that a model this engine does not accept fails before
//! any value is looked at: ORA-01481. The elements then make one of four shapes:
//!
//! ```text
//!   shape        elements                                   TO_CHAR(1234.5, ...)
//!   picture      [FM] [B] [S] [$|L] 9 0 , G . D V [EEEE]     '9,999.99'  ' 1,234.50'
//!                [$|L] [S|MI|PR]                             '9.9EEEE'   '  1.2E+03'
//!   hexadecimal  [FM] 0... X...                              'XXXX'      '  4D3' (1235)
//!   roman        [FM] RN | rn                                'RN'        '        MCCXXXV'
//!   text minimum TM | TM9 | TME                              'TM'        '1234.5'
//! ```
//!
//! Printing a picture (TO_CHAR):
//! 1. The value is multiplied by 10^n for V followed by n digits, then rounded half away from
//!    zero to the picture's decimals, on the exact decimal digits (a BINARY_DOUBLE first
//!    becomes its shortest round-trip decimal, as `conversion.rs` converts it).
//! 2. More integer digits than the picture has positions: the picture's width of `#`.
//! 3. Digits are printed from the first significant one, or from the first `0` element,
//!    whichever is further left; a group separator only when a digit is printed before it.
//!    A zero integer part prints as `0` only when the picture has no decimals (`'9999'`
//!    gives `'    0'`, `'99.99'` gives `'   .00'`); B blanks a zero integer part.
//! 4. FM drops the trailing zeros of 9 positions after the last 0 of the decimals; if no
//!    digit is left at all, a `0` is printed (`TO_CHAR(0, 'FM99.99')` is `'0.'`).
//! 5. The currency symbol goes right before the digits ($ and a leading L) or after them
//!    (a trailing L); the sign goes before the currency symbol (`'-$1'`), or where S, MI or
//!    PR put it.
//! 6. Without FM the text is padded on the left with blanks to the picture's width: one
//!    position per digit, separator and decimal point, one for `$`, ten for L (Oracle's
//!    room for NLS_CURRENCY), one for the sign (a blank for a positive number unless S
//!    gives it a `+`), two for PR; MI and PR keep a trailing blank for a positive number.
//!
//! With EEEE the mantissa has one digit before the point and the picture's decimals after
//! it, the exponent at least two digits with its sign; without FM a positive number gets
//! two leading blanks (`'9.9EEEE'` prints `'  1.2E+02'`, as Oracle does).
//!
//! The other shapes: X prints a non-negative integer (rounded) in hexadecimal, lower case
//! for `x`, in one more character than it has X and 0 elements (a leading blank, as a
//! positive number has), or zero-filled to exactly that many when it begins with 0; a
//! negative value or one too wide is `#` in the width plus one. RN prints 1 to 3999 in
//! Roman numerals, right-aligned in 15 characters (anything else is 15 `#`). TM and TM9
//! print the number as TO_CHAR without a format does (scientific when that is longer than
//! 64 characters), TME always in scientific form with the fewest digits (`1.2345E+03`). A
//! BINARY_DOUBLE infinity or NaN prints as `#` in the model's width, as Oracle prints it.
//!
//! Reading a model (TO_NUMBER): leading and trailing blanks are dropped; the text must show
//! the sign as the model places it (an optional `-` or `+` in front without S, MI or PR),
//! the currency symbol where the model has one, group separators exactly where the model
//! has them (digits are aligned at the decimal point), no more digits than it has
//! positions (9 and 0 read alike; FM and B change nothing); V's digits are decimals of the
//! value read; X reads hexadecimal digits, EEEE a mantissa and exponent, TM any number
//! text. Anything else is ORA-01722. RN cannot be read (ORA-01481, as in Oracle).
//!
//! NLS: D, G and L print the session's defaults `.`, `,` and `$` unless the optional third
//! argument names others (`'NLS_NUMERIC_CHARACTERS = '',.'' NLS_CURRENCY = ''EUR'''`);
//! NLS_ISO_CURRENCY is accepted and ignored, anything else is ORA-12702. `.` and `,` are
//! always themselves; a model may not mix them with D and G.
//!
//! Not done: C and U (ISO and dual currency) are ORA-01481 here; `~` for numbers beyond
//! the model's range never happens (NUMBER stops at 7.9e28 here, well inside Oracle's).

use rust_decimal::Decimal;

use super::conversion::parse_decimal;
use super::errors;
use super::numeric::ExactNumber;
use super::value::Value;
use crate::error::{Error, Result};

/// Oracle's default for NLS_CURRENCY, and what `$` always prints.
const DOLLAR: &str = "$";

/// The room an L element takes without FM: NLS_CURRENCY holds up to ten characters.
const CURRENCY_CHARACTERS_MAX: usize = 10;

/// The width RN prints in without FM: the longest numeral (MMMDCCCLXXXVIII) is 15.
const ROMAN_CHARACTERS: usize = 15;

/// TM's fixed notation turns scientific beyond this many characters.
const TEXT_MINIMUM_CHARACTERS_MAX: usize = 64;

/// The characters D, G and L print: the session's NLS defaults, or the third argument's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumericCharacters {
    pub decimal: char,
    pub group: char,
    pub currency: String,
}

impl Default for NumericCharacters {
    fn default() -> NumericCharacters {
        NumericCharacters {
            decimal: '.',
            group: ',',
            currency: DOLLAR.to_string(),
        }
    }
}

impl NumericCharacters {
    /// The NLS argument's characters, or the defaults without one.
    fn from_optional_nls_parameters(nls: Option<&str>) -> Result<NumericCharacters> {
        nls.map_or_else(
            || Ok(NumericCharacters::default()),
            Self::from_nls_parameters,
        )
    }

    /// Reads TO_CHAR's and TO_NUMBER's third argument: `NAME = 'value'` pairs separated by
    /// blanks, of NLS_NUMERIC_CHARACTERS (two different characters, decimal then group,
    /// neither a digit nor `+ - < >`), NLS_CURRENCY (one to ten characters) and
    /// NLS_ISO_CURRENCY (accepted, unused). Anything else is ORA-12702.
    pub fn from_nls_parameters(text: &str) -> Result<NumericCharacters> {
        let mut characters = NumericCharacters::default();
        let mut rest = text.trim_start();
        while !rest.is_empty() {
            let name_length = rest
                .find(|character: char| !(character.is_ascii_alphabetic() || character == '_'))
                .unwrap_or(rest.len());
            let name = rest[..name_length].to_ascii_uppercase();
            rest = rest[name_length..].trim_start();
            rest = rest
                .strip_prefix('=')
                .ok_or_else(errors::invalid_nls_parameter)?
                .trim_start();
            let value = if let Some(quoted) = rest.strip_prefix('\'') {
                let end = quoted
                    .find('\'')
                    .ok_or_else(errors::invalid_nls_parameter)?;
                rest = &quoted[end + 1..];
                &quoted[..end]
            } else {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                let value = &rest[..end];
                rest = &rest[end..];
                value
            };
            match name.as_str() {
                "NLS_NUMERIC_CHARACTERS" => {
                    let mut pair = value.chars();
                    let (Some(decimal), Some(group), None) =
                        (pair.next(), pair.next(), pair.next())
                    else {
                        return Err(errors::invalid_nls_parameter());
                    };
                    let forbidden =
                        |character: char| character.is_ascii_digit() || "+-<>".contains(character);
                    if decimal == group || forbidden(decimal) || forbidden(group) {
                        return Err(errors::invalid_nls_parameter());
                    }
                    characters.decimal = decimal;
                    characters.group = group;
                }
                "NLS_CURRENCY" => {
                    let length = value.chars().count();
                    if length == 0 || length > CURRENCY_CHARACTERS_MAX {
                        return Err(errors::invalid_nls_parameter());
                    }
                    characters.currency = value.to_string();
                }
                "NLS_ISO_CURRENCY" if !value.is_empty() => {}
                _ => return Err(errors::invalid_nls_parameter()),
            }
            rest = rest.trim_start();
        }
        Ok(characters)
    }
}

/// TO_CHAR(value, format [, nls]) of a NUMBER, a BINARY_DOUBLE or text (read as a NUMBER
/// first, ORA-01722 if it is not one), with D, G and L from the NLS argument. FM and B on
/// zero print nothing, which is NULL.
pub fn to_char(value: &Value, format: &str, nls: Option<&str>) -> Result<Value> {
    let characters = NumericCharacters::from_optional_nls_parameters(nls)?;
    let text = match value {
        Value::Float(float) => format_float_with_model(*float, format, &characters)?,
        other => format_decimal_with_model(&other.to_decimal()?, format, &characters)?,
    };
    Ok(Value::text(text))
}

/// TO_NUMBER(text, format [, nls]); see [`parse_number_with_model`].
pub fn to_number(text: &str, format: &str, nls: Option<&str>) -> Result<Value> {
    let characters = NumericCharacters::from_optional_nls_parameters(nls)?;
    parse_number_with_model(text, format, &characters).map(Value::Number)
}

/// TO_CHAR of a NUMBER by the model `format`; see the module documentation.
pub fn format_decimal_with_model(
    number: &Decimal,
    format: &str,
    characters: &NumericCharacters,
) -> Result<String> {
    let model = Model::read(format)?;
    Ok(model.print(Digits::from_decimal(number), characters))
}

/// TO_CHAR of a BINARY_DOUBLE by the model `format`: its shortest round-trip decimal is
/// printed as a NUMBER would be; an infinity or NaN is the model's width of `#`.
pub fn format_float_with_model(
    float: f64,
    format: &str,
    characters: &NumericCharacters,
) -> Result<String> {
    let model = Model::read(format)?;
    Ok(match Digits::from_float(float) {
        Some(digits) => model.print(digits, characters),
        None => model.overflow(characters),
    })
}

/// TO_NUMBER(text, format): `text` read against the model; ORA-01481 for a model that
/// is not one, ORA-01722 for text that does not match it. See the module documentation.
pub fn parse_number_with_model(
    text: &str,
    format: &str,
    characters: &NumericCharacters,
) -> Result<Decimal> {
    let model = Model::read(format)?;
    let text = text.trim_matches(|character: char| character == ' ' || character == '\t');
    match &model {
        Model::Picture(picture) => picture.parse(text, characters),
        Model::Hexadecimal { positions, .. } => parse_hexadecimal(text, *positions),
        Model::TextMinimum { .. } => parse_decimal(text),
        Model::Roman { .. } => Err(errors::invalid_number_format_model()),
    }
}

// ---------------------------------------------------------------------------------------
// Digits: the exact decimal form every model prints from.

/// A number as `±0.d1 d2 ... dn × 10^point`, d1 and dn not zero; zero has no digits.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Digits {
    negative: bool,
    digits: Vec<u8>,
    point: i64,
}

impl Digits {
    fn zero() -> Digits {
        Digits {
            negative: false,
            digits: Vec::new(),
            point: 0,
        }
    }

    fn from_decimal(number: &Decimal) -> Digits {
        match ExactNumber::from_decimal(number) {
            ExactNumber::Positive { exponent, digits } => Digits {
                negative: false,
                digits,
                point: exponent as i64,
            },
            ExactNumber::Negative { exponent, digits } => Digits {
                negative: true,
                digits,
                point: exponent as i64,
            },
            _ => Digits::zero(),
        }
    }

    /// The shortest decimal that reads back as `float`; None for an infinity or NaN.
    fn from_float(float: f64) -> Option<Digits> {
        if !float.is_finite() {
            return None;
        }
        if float == 0.0 {
            return Some(Digits::zero());
        }
        // `{:e}` writes the shortest round-trip digits: 1.2345e-7, 1e2.
        let scientific = format!("{:e}", float.abs());
        let (mantissa, exponent) = scientific.split_once('e')?;
        let exponent: i64 = exponent.parse().ok()?;
        let mut digits: Vec<u8> = mantissa
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|byte| byte - b'0')
            .collect();
        while digits.last() == Some(&0) {
            digits.pop();
        }
        Some(Digits {
            negative: float < 0.0,
            digits,
            point: exponent + 1,
        })
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// The digit at `index` of `digits`, zero outside them.
    fn digit(&self, index: i64) -> u8 {
        if index < 0 {
            return 0;
        }
        self.digits.get(index as usize).copied().unwrap_or(0)
    }

    /// Keeps the first `kept` digits, rounding half away from zero on the next one.
    fn round_to_digits(&mut self, kept: i64) {
        if kept >= self.digits.len() as i64 {
            return;
        }
        if kept < 0 {
            self.digits.clear();
            self.point = 0;
            return;
        }
        let round_up = self.digits[kept as usize] >= 5;
        self.digits.truncate(kept as usize);
        if round_up {
            let mut carry = true;
            for digit in self.digits.iter_mut().rev() {
                if *digit == 9 {
                    *digit = 0;
                } else {
                    *digit += 1;
                    carry = false;
                    break;
                }
            }
            if carry {
                self.digits.insert(0, 1);
                self.point += 1;
            }
        }
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        if self.digits.is_empty() {
            self.point = 0;
        }
    }

    /// Rounds half away from zero to `decimals` digits after the point.
    fn round_to_decimals(&mut self, decimals: i64) {
        self.round_to_digits(self.point + decimals);
    }

    /// The integer part's digits, without leading zeros (empty for zero).
    fn integer_digits(&self) -> Vec<u8> {
        if self.is_zero() {
            return Vec::new();
        }
        (0..self.point.max(0))
            .map(|index| self.digit(index))
            .collect()
    }

    /// The first `count` digits after the point.
    fn decimal_digits(&self, count: usize) -> Vec<u8> {
        (0..count as i64)
            .map(|index| self.digit(self.point + index))
            .collect()
    }

    /// The integer value, if it fits a u128 (the number must be rounded to an integer).
    fn to_u128(&self) -> Option<u128> {
        let mut value: u128 = 0;
        for digit in self.integer_digits() {
            value = value.checked_mul(10)?.checked_add(digit as u128)?;
        }
        Some(value)
    }

    /// Fixed notation with the fewest characters, as TO_CHAR without a format writes a
    /// NUMBER: `.5`, `-12.25`, `100`.
    fn plain_text(&self) -> String {
        if self.is_zero() {
            return "0".to_string();
        }
        let mut text = String::new();
        if self.negative {
            text.push('-');
        }
        let length = self.digits.len() as i64;
        if self.point <= 0 {
            text.push('.');
            text.extend(std::iter::repeat_n('0', (-self.point) as usize));
            text.extend(self.digits.iter().map(|digit| (b'0' + digit) as char));
        } else {
            text.extend((0..self.point).map(|index| (b'0' + self.digit(index)) as char));
            if length > self.point {
                text.push('.');
                text.extend(
                    self.digits[self.point as usize..]
                        .iter()
                        .map(|digit| (b'0' + digit) as char),
                );
            }
        }
        text
    }
}

fn digit_character(digit: u8) -> char {
    (b'0' + digit) as char
}

/// `E+02`, `E-123`: the exponent with its sign and at least two digits.
fn exponent_text(exponent: i64) -> String {
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("E{sign}{:02}", exponent.unsigned_abs())
}

// ---------------------------------------------------------------------------------------
// Elements and models.

/// One element of a number format model as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    FillMode,
    BlankZero,
    Dollar,
    LocalCurrency,
    IsoCurrency,
    DualCurrency,
    Sign,
    TrailingMinus,
    AngleBrackets,
    Multiply,
    Nine,
    Zero,
    Comma,
    Period,
    Group,
    Decimal,
    Scientific,
    /// X or x: a hexadecimal digit, lower case for x.
    Hex {
        lowercase: bool,
    },
    /// RN or rn.
    Roman {
        lowercase: bool,
    },
    /// TM or TM9 (fixed unless too long), TME (scientific).
    TextMinimum {
        scientific: bool,
    },
}

/// The keywords, longest first where one begins another.
const KEYWORDS: [(&str, Element); 21] = [
    ("EEEE", Element::Scientific),
    ("TME", Element::TextMinimum { scientific: true }),
    ("TM9", Element::TextMinimum { scientific: false }),
    ("TM", Element::TextMinimum { scientific: false }),
    ("FM", Element::FillMode),
    ("MI", Element::TrailingMinus),
    ("PR", Element::AngleBrackets),
    ("RN", Element::Roman { lowercase: false }),
    ("B", Element::BlankZero),
    ("$", Element::Dollar),
    ("L", Element::LocalCurrency),
    ("C", Element::IsoCurrency),
    ("U", Element::DualCurrency),
    ("S", Element::Sign),
    ("V", Element::Multiply),
    ("9", Element::Nine),
    ("0", Element::Zero),
    (",", Element::Comma),
    (".", Element::Period),
    ("G", Element::Group),
    ("D", Element::Decimal),
];

/// The elements of `format`, left to right; ORA-01481 for anything that is not one.
fn elements(format: &str) -> Result<Vec<Element>> {
    let bytes = format.as_bytes();
    let mut elements = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        let rest = &bytes[position..];
        let lowercase = rest[0].is_ascii_lowercase();
        if rest[0].eq_ignore_ascii_case(&b'X') {
            elements.push(Element::Hex { lowercase });
            position += 1;
            continue;
        }
        let (keyword, element) = KEYWORDS
            .iter()
            .find(|(keyword, _)| {
                rest.len() >= keyword.len()
                    && rest[..keyword.len()].eq_ignore_ascii_case(keyword.as_bytes())
            })
            .ok_or_else(errors::invalid_number_format_model)?;
        elements.push(match element {
            Element::Roman { .. } => Element::Roman { lowercase },
            other => *other,
        });
        position += keyword.len();
    }
    Ok(elements)
}

/// Where a picture shows the sign.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum SignPlace {
    /// `-` before a negative number, a blank position before a positive one.
    #[default]
    Default,
    /// S first: `+` or `-` before the number.
    Leading,
    /// S last: `+` or `-` after the number.
    Trailing,
    /// MI: `-` after a negative number, a blank after a positive one.
    Minus,
    /// PR: `<` and `>` around a negative number, blanks around a positive one.
    Brackets,
}

/// The currency element of a picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Currency {
    /// `$`, printed before the digits wherever it is written.
    Dollar,
    /// L first: NLS_CURRENCY before the digits.
    LocalLeading,
    /// L last: NLS_CURRENCY after the digits.
    LocalTrailing,
}

/// A digit position or a group separator of a picture's integer part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A digit: 9, or 0 for zeros from here on.
    Digit {
        zero: bool,
    },
    Group,
}

/// The digits, separators, sign and currency of a picture model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Picture {
    fill_mode: bool,
    blank_zero: bool,
    sign: SignPlace,
    currency: Option<Currency>,
    /// The integer part, left to right, including the digits after V (which V turns into
    /// integer digits: the value is multiplied by 10 for each).
    integer: Vec<Slot>,
    /// How many of `integer`'s digits came after V.
    multiplier_digits: usize,
    /// Whether the picture has a decimal point (`.` or D).
    decimal_point: bool,
    /// The digits after the decimal point: true for 0.
    decimals: Vec<bool>,
    scientific: bool,
    /// Whether separators are D and G (NLS) rather than `.` and `,`.
    nls_separators: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Model {
    Picture(Picture),
    Hexadecimal {
        fill_mode: bool,
        lowercase: bool,
        /// X and 0 elements.
        positions: usize,
        /// Whether the model begins with 0: every position prints, zeros in front.
        zero_filled: bool,
    },
    Roman {
        fill_mode: bool,
        lowercase: bool,
    },
    TextMinimum {
        scientific: bool,
    },
}

impl Model {
    /// Reads and checks a model; ORA-01481 when it is not one this engine prints.
    fn read(format: &str) -> Result<Model> {
        let elements = elements(format)?;
        let invalid = errors::invalid_number_format_model;
        match elements.as_slice() {
            [Element::TextMinimum { scientific }] => {
                return Ok(Model::TextMinimum {
                    scientific: *scientific,
                })
            }
            [Element::Roman { lowercase }] => {
                return Ok(Model::Roman {
                    fill_mode: false,
                    lowercase: *lowercase,
                })
            }
            [Element::FillMode, Element::Roman { lowercase }] => {
                return Ok(Model::Roman {
                    fill_mode: true,
                    lowercase: *lowercase,
                })
            }
            _ => {}
        }
        if elements
            .iter()
            .any(|element| matches!(element, Element::Hex { .. }))
        {
            return Model::read_hexadecimal(&elements);
        }
        let mut picture = Picture::default();
        let mut rest = elements.as_slice();
        // Prefixes: FM and B in either order, then S, then $ or L.
        while let [first, tail @ ..] = rest {
            match first {
                Element::FillMode if !picture.fill_mode => picture.fill_mode = true,
                Element::BlankZero if !picture.blank_zero => picture.blank_zero = true,
                _ => break,
            }
            rest = tail;
        }
        if let [Element::Sign, tail @ ..] = rest {
            picture.sign = SignPlace::Leading;
            rest = tail;
        }
        match rest {
            [Element::Dollar, tail @ ..] => {
                picture.currency = Some(Currency::Dollar);
                rest = tail;
            }
            [Element::LocalCurrency, tail @ ..] => {
                picture.currency = Some(Currency::LocalLeading);
                rest = tail;
            }
            _ => {}
        }
        // Suffixes, from the end: S, MI or PR, then $ or L, then EEEE.
        match rest {
            [head @ .., Element::Sign] if picture.sign == SignPlace::Default => {
                picture.sign = SignPlace::Trailing;
                rest = head;
            }
            [head @ .., Element::TrailingMinus] if picture.sign == SignPlace::Default => {
                picture.sign = SignPlace::Minus;
                rest = head;
            }
            [head @ .., Element::AngleBrackets] if picture.sign == SignPlace::Default => {
                picture.sign = SignPlace::Brackets;
                rest = head;
            }
            _ => {}
        }
        match rest {
            [head @ .., Element::LocalCurrency] if picture.currency.is_none() => {
                picture.currency = Some(Currency::LocalTrailing);
                rest = head;
            }
            [head @ .., Element::Dollar] if picture.currency.is_none() => {
                picture.currency = Some(Currency::Dollar);
                rest = head;
            }
            _ => {}
        }
        if let [head @ .., Element::Scientific] = rest {
            picture.scientific = true;
            rest = head;
        }
        // The digits.
        let mut literal_separators = false;
        let mut after_multiplier = false;
        for element in rest {
            match element {
                Element::Nine | Element::Zero => {
                    let zero = *element == Element::Zero;
                    if picture.decimal_point {
                        picture.decimals.push(zero);
                    } else {
                        picture.integer.push(Slot::Digit { zero });
                        if after_multiplier {
                            picture.multiplier_digits += 1;
                        }
                    }
                }
                Element::Comma | Element::Group => {
                    // Not first, not among the decimals, not after V, not with EEEE.
                    if picture.integer.is_empty()
                        || picture.decimal_point
                        || after_multiplier
                        || picture.scientific
                    {
                        return Err(invalid());
                    }
                    picture.integer.push(Slot::Group);
                    if *element == Element::Group {
                        picture.nls_separators = true;
                    } else {
                        literal_separators = true;
                    }
                }
                Element::Period | Element::Decimal => {
                    if picture.decimal_point || after_multiplier {
                        return Err(invalid());
                    }
                    picture.decimal_point = true;
                    if *element == Element::Decimal {
                        picture.nls_separators = true;
                    } else {
                        literal_separators = true;
                    }
                }
                Element::Multiply => {
                    if after_multiplier || picture.decimal_point || picture.scientific {
                        return Err(invalid());
                    }
                    after_multiplier = true;
                }
                // `$` may stand among the digits; it prints before them all the same.
                Element::Dollar if picture.currency.is_none() => {
                    picture.currency = Some(Currency::Dollar)
                }
                _ => return Err(invalid()),
            }
        }
        let digit_count = picture.integer.len() + picture.decimals.len();
        if digit_count == 0 || (literal_separators && picture.nls_separators) {
            return Err(invalid());
        }
        if picture.blank_zero && picture.scientific {
            return Err(invalid());
        }
        Ok(Model::Picture(picture))
    }

    /// `[FM] 0... X...`: zeros only before the first X, nothing else.
    fn read_hexadecimal(elements: &[Element]) -> Result<Model> {
        let (fill_mode, rest) = match elements {
            [Element::FillMode, rest @ ..] => (true, rest),
            rest => (false, rest),
        };
        let zeros = rest
            .iter()
            .take_while(|element| **element == Element::Zero)
            .count();
        let hex = &rest[zeros..];
        let Some(Element::Hex { lowercase }) = hex.first() else {
            return Err(errors::invalid_number_format_model());
        };
        if !hex
            .iter()
            .all(|element| matches!(element, Element::Hex { .. }))
        {
            return Err(errors::invalid_number_format_model());
        }
        Ok(Model::Hexadecimal {
            fill_mode,
            lowercase: *lowercase,
            positions: rest.len(),
            zero_filled: zeros > 0,
        })
    }

    fn print(&self, number: Digits, characters: &NumericCharacters) -> String {
        match self {
            Model::Picture(picture) if picture.scientific => {
                picture.print_scientific(number, characters)
            }
            Model::Picture(picture) => picture
                .print_fixed(number, characters)
                .unwrap_or_else(|| self.overflow(characters)),
            Model::Hexadecimal {
                fill_mode,
                lowercase,
                positions,
                zero_filled,
            } => print_hexadecimal(number, *lowercase, *positions, *zero_filled)
                .map(|text| pad(text, positions + 1, *fill_mode || *zero_filled))
                .unwrap_or_else(|| self.overflow(characters)),
            Model::Roman {
                fill_mode,
                lowercase,
            } => print_roman(number, *lowercase)
                .map(|text| pad(text, ROMAN_CHARACTERS, *fill_mode))
                .unwrap_or_else(|| self.overflow(characters)),
            Model::TextMinimum { scientific: false } => {
                let text = number.plain_text();
                if text.len() > TEXT_MINIMUM_CHARACTERS_MAX {
                    print_text_minimum_scientific(number)
                } else {
                    text
                }
            }
            Model::TextMinimum { scientific: true } => print_text_minimum_scientific(number),
        }
    }

    /// What a value that does not fit prints: `#` in the model's width.
    fn overflow(&self, characters: &NumericCharacters) -> String {
        let width = match self {
            Model::Picture(picture) => picture.width(characters, 4),
            Model::Hexadecimal { positions, .. } => positions + 1,
            Model::Roman { .. } => ROMAN_CHARACTERS,
            Model::TextMinimum { .. } => 1,
        };
        "#".repeat(width)
    }
}

/// Left-pads `text` with blanks to `width` characters, unless FM.
fn pad(text: String, width: usize, fill_mode: bool) -> String {
    let length = text.chars().count();
    if fill_mode || length >= width {
        return text;
    }
    let mut padded = " ".repeat(width - length);
    padded.push_str(&text);
    padded
}

impl Picture {
    fn integer_positions(&self) -> usize {
        self.integer
            .iter()
            .filter(|slot| matches!(slot, Slot::Digit { .. }))
            .count()
    }

    /// The width without FM; `exponent_characters` is the room EEEE takes (`E+02` is 4).
    fn width(&self, characters: &NumericCharacters, exponent_characters: usize) -> usize {
        let sign = match self.sign {
            SignPlace::Brackets => 2,
            _ => 1,
        };
        let currency = match self.currency {
            None => 0,
            Some(Currency::Dollar) => 1,
            Some(_) => CURRENCY_CHARACTERS_MAX.max(characters.currency.chars().count()),
        };
        let point = usize::from(self.decimal_point);
        let body = if self.scientific {
            // Oracle keeps a blank before the mantissa's one digit besides the sign's.
            self.integer_positions().max(1) + 1 + point + self.decimals.len() + exponent_characters
        } else {
            self.integer.len() + point + self.decimals.len()
        };
        sign + currency + body
    }

    fn decimal_character(&self, characters: &NumericCharacters) -> char {
        if self.nls_separators {
            characters.decimal
        } else {
            '.'
        }
    }

    fn group_character(&self, characters: &NumericCharacters) -> char {
        if self.nls_separators {
            characters.group
        } else {
            ','
        }
    }

    /// The fixed-point text; None when the integer part has too many digits.
    fn print_fixed(&self, mut number: Digits, characters: &NumericCharacters) -> Option<String> {
        let negative = number.negative && !number.is_zero();
        number.point += self.multiplier_digits as i64;
        number.round_to_decimals(self.decimals.len() as i64);
        let integer = number.integer_digits();
        let positions = self.integer_positions();
        if integer.len() > positions {
            return None;
        }
        // How many integer digits print: the significant ones, or from the first 0 element.
        let first_zero = self
            .integer
            .iter()
            .filter(|slot| matches!(slot, Slot::Digit { .. }))
            .position(|slot| *slot == Slot::Digit { zero: true });
        let mut printed = integer
            .len()
            .max(first_zero.map_or(0, |first| positions - first));
        let mut decimals = number.decimal_digits(self.decimals.len());
        if self.fill_mode {
            let kept = self
                .decimals
                .iter()
                .rposition(|zero| *zero)
                .map_or(0, |last| last + 1);
            while decimals.len() > kept && decimals.last() == Some(&0) {
                decimals.pop();
            }
        }
        if integer.is_empty() {
            if self.blank_zero {
                printed = 0;
            } else if positions > 0
                && (self.decimals.is_empty() || (self.fill_mode && decimals.is_empty()))
            {
                printed = printed.max(1);
            }
        }
        let mut body = String::new();
        let mut digit_index = 0;
        let first_printed = positions - printed;
        for slot in &self.integer {
            match slot {
                Slot::Digit { .. } => {
                    if digit_index >= first_printed {
                        let from_right = positions - digit_index;
                        let digit = if from_right <= integer.len() {
                            integer[integer.len() - from_right]
                        } else {
                            0
                        };
                        body.push(digit_character(digit));
                    }
                    digit_index += 1;
                }
                Slot::Group if digit_index > first_printed => {
                    body.push(self.group_character(characters))
                }
                Slot::Group => {}
            }
        }
        if self.decimal_point {
            body.push(self.decimal_character(characters));
        }
        body.extend(decimals.into_iter().map(digit_character));
        Some(self.finish(body, negative, characters, 4))
    }

    /// The scientific text: one digit before the point, the picture's decimals after it.
    fn print_scientific(&self, mut number: Digits, characters: &NumericCharacters) -> String {
        let negative = number.negative && !number.is_zero();
        number.round_to_digits(1 + self.decimals.len() as i64);
        let exponent = if number.is_zero() {
            0
        } else {
            number.point - 1
        };
        let mut body = String::new();
        body.push(digit_character(number.digit(0)));
        if self.decimal_point {
            body.push(self.decimal_character(characters));
        }
        for index in 0..self.decimals.len() {
            body.push(digit_character(number.digit(1 + index as i64)));
        }
        let exponent = exponent_text(exponent);
        body.push_str(&exponent);
        self.finish(body, negative, characters, exponent.len())
    }

    /// Adds the currency symbol and the sign to the digits, then pads to the width.
    fn finish(
        &self,
        digits: String,
        negative: bool,
        characters: &NumericCharacters,
        exponent_characters: usize,
    ) -> String {
        let mut text = match self.currency {
            None => digits,
            Some(Currency::Dollar) => format!("{DOLLAR}{digits}"),
            Some(Currency::LocalLeading) => format!("{}{digits}", characters.currency),
            Some(Currency::LocalTrailing) => format!("{digits}{}", characters.currency),
        };
        let trailing_blank = if self.fill_mode { "" } else { " " };
        text = match (self.sign, negative) {
            (SignPlace::Default, true) => format!("-{text}"),
            (SignPlace::Default, false) => text,
            (SignPlace::Leading, true) => format!("-{text}"),
            (SignPlace::Leading, false) => format!("+{text}"),
            (SignPlace::Trailing, true) => format!("{text}-"),
            (SignPlace::Trailing, false) => format!("{text}+"),
            (SignPlace::Minus, true) => format!("{text}-"),
            (SignPlace::Minus, false) => format!("{text}{trailing_blank}"),
            (SignPlace::Brackets, true) => format!("<{text}>"),
            (SignPlace::Brackets, false) => format!("{text}{trailing_blank}"),
        };
        pad(
            text,
            self.width(characters, exponent_characters),
            self.fill_mode,
        )
    }

    /// TO_NUMBER's reading of `text` (trimmed) against the picture.
    fn parse(&self, text: &str, characters: &NumericCharacters) -> Result<Decimal> {
        let invalid = Error::invalid_number;
        let (negative, mut rest) = match self.sign {
            SignPlace::Default => match text.as_bytes().first() {
                Some(b'-') => (true, &text[1..]),
                Some(b'+') => (false, &text[1..]),
                _ => (false, text),
            },
            SignPlace::Leading => match text.as_bytes().first() {
                Some(b'-') => (true, &text[1..]),
                Some(b'+') => (false, &text[1..]),
                _ => return Err(invalid()),
            },
            SignPlace::Trailing => match text.as_bytes().last() {
                Some(b'-') => (true, &text[..text.len() - 1]),
                Some(b'+') => (false, &text[..text.len() - 1]),
                _ => return Err(invalid()),
            },
            SignPlace::Minus => match text.strip_suffix('-') {
                Some(rest) => (true, rest),
                None => (false, text),
            },
            SignPlace::Brackets => match text.strip_prefix('<') {
                Some(inner) => (true, inner.strip_suffix('>').ok_or_else(invalid)?),
                None => (false, text),
            },
        };
        rest = match self.currency {
            None => rest,
            Some(Currency::Dollar) => rest.strip_prefix(DOLLAR).ok_or_else(invalid)?,
            Some(Currency::LocalLeading) => rest
                .strip_prefix(characters.currency.as_str())
                .ok_or_else(invalid)?,
            Some(Currency::LocalTrailing) => rest
                .strip_suffix(characters.currency.as_str())
                .ok_or_else(invalid)?,
        };
        let decimal = self.decimal_character(characters);
        let mut plain = String::from(if negative { "-" } else { "" });
        if self.scientific {
            let (mantissa, exponent) = rest.split_once(['E', 'e']).ok_or_else(invalid)?;
            let (integer, decimals) = split_decimals(mantissa, self.decimal_point, decimal)?;
            if integer.len() > 1 || decimals.len() > self.decimals.len() {
                return Err(invalid());
            }
            let exponent_digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            if !all_digits(integer)
                || !all_digits(decimals)
                || exponent_digits.is_empty()
                || !all_digits(exponent_digits)
            {
                return Err(invalid());
            }
            plain.push_str(&format!("{integer}.{decimals}E{exponent}"));
            return parse_decimal(&plain);
        }
        let (integer, decimals) = split_decimals(rest, self.decimal_point, decimal)?;
        if decimals.len() > self.decimals.len() || !all_digits(decimals) {
            return Err(invalid());
        }
        // The integer part, aligned on the right with the picture's integer slots.
        let group = self.group_character(characters);
        let mut slots = self.integer.iter().rev();
        let mut integer_digits: Vec<char> = Vec::new();
        for character in integer.chars().rev() {
            match slots.next() {
                Some(Slot::Digit { .. }) if character.is_ascii_digit() => {
                    integer_digits.push(character)
                }
                Some(Slot::Group) if character == group => {}
                _ => return Err(invalid()),
            }
        }
        if integer_digits.is_empty() && decimals.is_empty() {
            return Err(invalid());
        }
        integer_digits.reverse();
        // V's digits are decimals of the value read.
        let split = integer_digits.len().saturating_sub(self.multiplier_digits);
        let zeros = self.multiplier_digits.saturating_sub(integer_digits.len());
        plain.extend(&integer_digits[..split]);
        plain.push('.');
        plain.extend(std::iter::repeat_n('0', zeros));
        plain.extend(&integer_digits[split..]);
        plain.push_str(decimals);
        if plain.ends_with('.') || plain == "-." {
            plain.push('0');
        }
        parse_decimal(&plain)
    }
}

/// `text` split at the decimal character, when the picture has one.
fn split_decimals(text: &str, decimal_point: bool, decimal: char) -> Result<(&str, &str)> {
    match text.split_once(decimal) {
        Some(_) if !decimal_point => Err(Error::invalid_number()),
        Some(parts) => Ok(parts),
        None => Ok((text, "")),
    }
}

fn all_digits(text: &str) -> bool {
    text.bytes().all(|byte| byte.is_ascii_digit())
}

/// Hexadecimal digits of the rounded value, zero-filled to `positions` if `zero_filled`;
/// None for a negative value or one that needs more than `positions` digits.
fn print_hexadecimal(
    mut number: Digits,
    lowercase: bool,
    positions: usize,
    zero_filled: bool,
) -> Option<String> {
    number.round_to_decimals(0);
    if number.negative && !number.is_zero() {
        return None;
    }
    let value = number.to_u128()?;
    let zero_filled = if zero_filled { positions } else { 0 };
    let text = if lowercase {
        format!("{value:0zero_filled$x}")
    } else {
        format!("{value:0zero_filled$X}")
    };
    (text.len() <= positions).then_some(text)
}

/// TO_NUMBER with X: hexadecimal digits, at most `positions` of them.
fn parse_hexadecimal(text: &str, positions: usize) -> Result<Decimal> {
    if text.is_empty()
        || text.len() > positions
        || !text.bytes().all(|byte| byte.is_ascii_hexdigit())
    {
        return Err(Error::invalid_number());
    }
    let value = u128::from_str_radix(text, 16).map_err(|_| errors::numeric_overflow())?;
    let value = i128::try_from(value).map_err(|_| errors::numeric_overflow())?;
    Decimal::try_from_i128_with_scale(value, 0).map_err(|_| errors::numeric_overflow())
}

/// The rounded value in Roman numerals, None outside 1 to 3999.
fn print_roman(mut number: Digits, lowercase: bool) -> Option<String> {
    const NUMERALS: [(u128, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    number.round_to_decimals(0);
    if number.negative {
        return None;
    }
    let mut value = number
        .to_u128()
        .filter(|value| (1..=3999).contains(value))?;
    let mut text = String::new();
    for (amount, numeral) in NUMERALS {
        while value >= amount {
            text.push_str(numeral);
            value -= amount;
        }
    }
    Some(if lowercase {
        text.to_ascii_lowercase()
    } else {
        text
    })
}

/// TME: the fewest mantissa digits, `1.2345E+03`, `-5E-01`, `0E+00`.
fn print_text_minimum_scientific(number: Digits) -> String {
    let mut text = String::new();
    if number.negative && !number.is_zero() {
        text.push('-');
    }
    text.push(digit_character(number.digit(0)));
    if number.digits.len() > 1 {
        text.push('.');
        text.extend(number.digits[1..].iter().copied().map(digit_character));
    }
    let exponent = if number.is_zero() {
        0
    } else {
        number.point - 1
    };
    text.push_str(&exponent_text(exponent));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    /// TO_CHAR of the NUMBER `number` (as text) by `format`, with the NLS defaults.
    fn printed(number: &str, format: &str) -> Result<String> {
        let number = Decimal::from_str(number).unwrap();
        format_decimal_with_model(&number, format, &NumericCharacters::default())
    }

    fn print(number: &str, format: &str) -> String {
        printed(number, format).unwrap()
    }

    fn print_code(number: &str, format: &str) -> u32 {
        printed(number, format).unwrap_err().code()
    }

    fn read(text: &str, format: &str) -> String {
        parse_number_with_model(text, format, &NumericCharacters::default())
            .unwrap()
            .normalize()
            .to_string()
    }

    fn read_code(text: &str, format: &str) -> u32 {
        parse_number_with_model(text, format, &NumericCharacters::default())
            .unwrap_err()
            .code()
    }

    /// The table at the top of the module documentation.
    #[test]
    fn module_documentation_examples() {
        assert_eq!(print("1234.5", "9,999.99"), " 1,234.50");
        assert_eq!(print("1234.5", "9.9EEEE"), "  1.2E+03");
        assert_eq!(print("1234.5", "XXXX"), "  4D3");
        assert_eq!(print("1234.5", "RN"), "        MCCXXXV");
        assert_eq!(print("1234.5", "TM"), "1234.5");
    }

    /// The examples of the "Format Models" chapter of Oracle's SQL Language Reference.
    #[test]
    fn oracle_documented_examples() {
        assert_eq!(print("-1234567890", "9999999999S"), "1234567890-");
        assert_eq!(print("0", "99.99"), "   .00");
        assert_eq!(print("0.1", "90.99"), "  0.10");
        assert_eq!(print("-0.2", "90.99"), " -0.20");
        assert_eq!(print("0", "90.99"), "  0.00");
        assert_eq!(print("0", "9999"), "    0");
        assert_eq!(print("1", "9999"), "    1");
        assert_eq!(print("0", "B9999"), "     ");
        assert_eq!(print("1", "B9999"), "    1");
        assert_eq!(print("0", "B90.99"), "   .00");
        assert_eq!(print("123.456", "999.999"), " 123.456");
        assert_eq!(print("-123.456", "999.999"), "-123.456");
        assert_eq!(print("123.456", "FM999.009"), "123.456");
        assert_eq!(print("123.456", "9.9EEEE"), "  1.2E+02");
        assert_eq!(print("123.456", "FM9.9EEEE"), "1.2E+02");
        assert_eq!(print("123.45", "FM999.009"), "123.45");
        assert_eq!(print("123.0", "FM999.009"), "123.00");
        assert_eq!(print("123.45", "L999.99"), "          $123.45");
        assert_eq!(print("123.45", "FML999.99"), "$123.45");
        assert_eq!(print("1234567890", "9999999999S"), "1234567890+");
        assert_eq!(print("-10000", "L99G999D99MI"), "         $10,000.00-");
    }

    /// 1E+123 is beyond NUMBER here, so the documented example goes through a double.
    #[test]
    fn scientific_beyond_number_range() {
        let characters = NumericCharacters::default();
        assert_eq!(
            format_float_with_model(1e123, "9.9EEEE", &characters).unwrap(),
            "  1.0E+123"
        );
        assert_eq!(
            format_float_with_model(-1.5e-200, "FM9.99EEEE", &characters).unwrap(),
            "-1.50E-200"
        );
    }

    #[test]
    fn padding_sign_and_leading_zeros() {
        assert_eq!(print("123", "999"), " 123");
        assert_eq!(print("-123", "999"), "-123");
        // Oracle's "Format Models" chapter prints 0 by '99.99' as '   .00': the zero integer
        // part leaves its position blank, so '9.99' is five characters wide here too.
        assert_eq!(print("0.5", "9.99"), "  .50");
        assert_eq!(print("0.5", "0.99"), " 0.50");
        assert_eq!(print("-0.5", "9.99"), " -.50");
        assert_eq!(print("12", "0999"), " 0012");
        assert_eq!(print("12", "9099"), "  012", "zeros from the first 0 on");
        assert_eq!(print("12", "9909"), "   12");
        assert_eq!(print("1", "9990"), "    1");
        assert_eq!(print("0", "9990"), "    0");
        assert_eq!(print("12", "999."), "  12.");
        assert_eq!(print("0.4", "9999"), "    0");
        assert_eq!(
            print("-0.4", "9999"),
            "   -0",
            "Oracle keeps the sign of what rounded away"
        );
        assert_eq!(print("0.5", ".99"), " .50");
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(print("2.345", "9.99"), " 2.35");
        assert_eq!(print("-2.345", "9.99"), "-2.35");
        assert_eq!(print("2.344999", "9.99"), " 2.34");
        assert_eq!(print("9.995", "9.99"), "#####");
        assert_eq!(print("9.995", "99.99"), " 10.00");
        assert_eq!(print("0.005", "9.99"), "  .01");
        assert_eq!(print("0.0049", "9.99"), "  .00");
        assert_eq!(print("1.5", "9"), " 2");
        assert_eq!(print("2.5", "9"), " 3");
        assert_eq!(print("-2.5", "9"), "-3");
    }

    #[test]
    fn overflow_prints_the_width_of_pound_signs() {
        assert_eq!(print("1234", "999"), "####");
        assert_eq!(print("-1234", "999"), "####");
        assert_eq!(print("1234", "9,999.99"), " 1,234.00");
        assert_eq!(print("12345", "9,999.99"), "#########");
        assert_eq!(print("1.5", ".99"), "####");
        assert_eq!(print("100", "S99"), "###");
        assert_eq!(print("100", "99PR"), "####");
        assert_eq!(print("100", "FM99"), "###");
    }

    #[test]
    fn separators_and_nls_characters() {
        assert_eq!(print("1234567.891", "9,999,999.99"), " 1,234,567.89");
        assert_eq!(print("1234.5", "9G999D99"), " 1,234.50");
        assert_eq!(print("123", "9,999"), "   123");
        assert_eq!(print("123", "0,999"), " 0,123");
        assert_eq!(print("-1234", "FM9,999"), "-1,234");
        let german =
            NumericCharacters::from_nls_parameters("NLS_NUMERIC_CHARACTERS = ',.'").unwrap();
        assert_eq!(
            format_decimal_with_model(&Decimal::from(1234), "9G999D99", &german).unwrap(),
            " 1.234,00"
        );
        assert_eq!(
            format_decimal_with_model(&Decimal::from(1234), "9,999.99", &german).unwrap(),
            " 1,234.00",
            "`,` and `.` are always themselves"
        );
        let euro =
            NumericCharacters::from_nls_parameters("nls_currency='EUR' NLS_ISO_CURRENCY=FRANCE")
                .unwrap();
        assert_eq!(
            format_decimal_with_model(&Decimal::from(5), "FML9", &euro).unwrap(),
            "EUR5"
        );
        for bad in [
            "NLS_NUMERIC_CHARACTERS = ','",
            "NLS_NUMERIC_CHARACTERS = ',,'",
            "NLS_NUMERIC_CHARACTERS = '1.'",
            "NLS_NUMERIC_CHARACTERS ',.'",
            "NLS_DATE_LANGUAGE = 'FRENCH'",
            "NLS_CURRENCY = 'ELEVENCHARS'",
            "NLS_CURRENCY = 'unclosed",
        ] {
            assert_eq!(
                NumericCharacters::from_nls_parameters(bad)
                    .unwrap_err()
                    .code(),
                12702,
                "{bad}"
            );
        }
    }

    #[test]
    fn currency_and_sign_elements() {
        assert_eq!(print("12", "$999"), "  $12");
        assert_eq!(print("-1", "$9"), "-$1");
        assert_eq!(print("12", "99$"), " $12");
        assert_eq!(print("12", "9$9"), " $12");
        assert_eq!(print("12", "999L"), "           12$");
        assert_eq!(print("12", "FM999L"), "12$");
        assert_eq!(print("12", "S99"), "+12");
        assert_eq!(print("1", "S99"), " +1");
        assert_eq!(print("-1", "S99"), " -1");
        assert_eq!(print("0", "S9"), "+0");
        assert_eq!(print("12", "99S"), "12+");
        assert_eq!(print("-12", "99S"), "12-");
        assert_eq!(print("-12", "99MI"), "12-");
        assert_eq!(print("12", "99MI"), "12 ");
        assert_eq!(print("12", "FM99MI"), "12");
        assert_eq!(print("-12", "99PR"), "<12>");
        assert_eq!(print("12", "99PR"), " 12 ");
        assert_eq!(print("-1", "99PR"), " <1>");
        assert_eq!(print("12", "FM99PR"), "12");
        assert_eq!(print("-12", "FM$999PR"), "<$12>");
    }

    #[test]
    fn fill_mode() {
        assert_eq!(print("0", "FM99.99"), "0.");
        assert_eq!(print("10", "FM99.99"), "10.");
        assert_eq!(print("0.5", "FM99.99"), ".5");
        assert_eq!(print("0.5", "FM90.99"), "0.5");
        assert_eq!(print("12", "FM9999"), "12");
        assert_eq!(print("0", "FM9999"), "0");
        assert_eq!(print("0", "FMB9999"), "");
        assert_eq!(print("1.5", "fm9.90"), "1.50");
    }

    #[test]
    fn multiply_by_ten_to_the_v_digits() {
        assert_eq!(print("12.34", "99V99"), " 1234");
        assert_eq!(print("1.2", "99V99"), "  120");
        assert_eq!(print("0.01", "9V99"), "   1");
        assert_eq!(print("0", "99V99"), "    0");
        assert_eq!(print("12.345", "99V99"), " 1235");
        assert_eq!(print("123", "99V99"), "#####");
    }

    #[test]
    fn scientific() {
        assert_eq!(print("-123.456", "9.9EEEE"), " -1.2E+02");
        assert_eq!(print("0", "9.9EEEE"), "  0.0E+00");
        assert_eq!(print("0.000123", "9.99EEEE"), "  1.23E-04");
        assert_eq!(print("9.96", "9.9EEEE"), "  1.0E+01");
        assert_eq!(print("123", "9EEEE"), "  1E+02");
        assert_eq!(print("-123", "9.9EEEEMI"), " 1.2E+02-");
        assert_eq!(print("123", "S9.9EEEE"), " +1.2E+02");
    }

    #[test]
    fn hexadecimal() {
        assert_eq!(print("255", "XX"), " FF");
        assert_eq!(print("255", "xx"), " ff");
        assert_eq!(print("15", "X"), " F", "one leading blank without 0 or FM");
        assert_eq!(print("15", "0X"), "0F");
        assert_eq!(print("15", "FM0X"), "0F");
        assert_eq!(print("15345", "FM0xxxx"), "03bf1");
        assert_eq!(print("12.49", "FM0xxxx"), "0000c");
        assert_eq!(print("12.5", "FM0xxxx"), "0000d");
        assert_eq!(print("10", "XXXX"), "    A");
        assert_eq!(print("10", "FMXXXX"), "A");
        assert_eq!(print("10", "0XXX"), "000A");
        assert_eq!(print("10.5", "XX"), "  B");
        assert_eq!(print("0", "XX"), "  0");
        assert_eq!(print("256", "XX"), "###");
        assert_eq!(print("-1", "XX"), "###");
        assert_eq!(
            print(
                "79228162514264337593543950335",
                "FMXXXXXXXXXXXXXXXXXXXXXXXX"
            ),
            "FFFFFFFFFFFFFFFFFFFFFFFF"
        );
    }

    #[test]
    fn roman_numerals() {
        assert_eq!(print("1999", "RN"), "        MCMXCIX");
        assert_eq!(print("1999", "FMRN"), "MCMXCIX");
        assert_eq!(print("14", "rn"), "            xiv");
        assert_eq!(print("3888", "FMRN"), "MMMDCCCLXXXVIII");
        assert_eq!(print("1.5", "FMRN"), "II");
        assert_eq!(print("4000", "RN"), "###############");
        assert_eq!(print("0", "RN"), "###############");
        assert_eq!(print("-5", "RN"), "###############");
    }

    #[test]
    fn text_minimum() {
        assert_eq!(print("0.5", "TM"), ".5");
        assert_eq!(print("-1234.5", "TM9"), "-1234.5");
        assert_eq!(print("100", "tm"), "100");
        assert_eq!(print("0", "TM"), "0");
        assert_eq!(print("1234.5", "TME"), "1.2345E+03");
        assert_eq!(print("-0.05", "TME"), "-5E-02");
        assert_eq!(print("0", "TME"), "0E+00");
        let characters = NumericCharacters::default();
        assert_eq!(
            format_float_with_model(1e100, "TM", &characters).unwrap(),
            "1E+100",
            "fixed notation would be longer than 64 characters"
        );
        assert_eq!(
            format_float_with_model(0.1, "TM", &characters).unwrap(),
            ".1"
        );
    }

    #[test]
    fn doubles_and_their_pound_signs() {
        let characters = NumericCharacters::default();
        let float =
            |value: f64, format: &str| format_float_with_model(value, format, &characters).unwrap();
        assert_eq!(float(1.5, "99.99"), "  1.50");
        assert_eq!(float(-0.1, "90.9"), " -0.1");
        assert_eq!(
            float(2.675, "9.99"),
            " 2.68",
            "from the shortest decimal, 2.675"
        );
        assert_eq!(float(f64::INFINITY, "99.99"), "######");
        assert_eq!(float(f64::NAN, "XX"), "###");
    }

    #[test]
    fn invalid_models_are_ora_01481() {
        for format in [
            "", " ", "9A", ",999", "9.9.9", "9D9.9", "9G999.99", "99.9,9", "99.9V9", "9V9V9",
            "S99S", "99MIS", "MI99", "PR99", "9S9", "$$99", "L99L", "C999", "U999", "999C",
            "9,9EEEE", "EEEE", "9EEEE9", "BFM", "FMFM99", "X9", "0X0", "XXS", "FMTM", "TM99",
            "RN9", "9RN", "FM", "$", "B", "9V9EEEE", "B9EEEE", "\"9\"",
        ] {
            assert_eq!(print_code("1", format), 1481, "{format:?}");
        }
    }

    #[test]
    fn to_number_reads_the_model() {
        assert_eq!(read("1,234.56", "9,999.99"), "1234.56");
        assert_eq!(read(" 1,234.56 ", "9G999D99"), "1234.56");
        assert_eq!(read("-1,234", "9,999"), "-1234");
        assert_eq!(read("$1,234.50", "$9,999.99"), "1234.5");
        assert_eq!(read("-$12", "$99"), "-12");
        assert_eq!(read("$12", "L99"), "12");
        assert_eq!(read("12$", "99L"), "12");
        assert_eq!(read("+12", "S99"), "12");
        assert_eq!(read("-12", "S99"), "-12");
        assert_eq!(read("12-", "99S"), "-12");
        assert_eq!(read("12-", "99MI"), "-12");
        assert_eq!(read("12", "99MI"), "12");
        assert_eq!(read("<12>", "99PR"), "-12");
        assert_eq!(read("12", "99PR"), "12");
        assert_eq!(read("1A", "XX"), "26");
        assert_eq!(read("ff", "XXX"), "255");
        assert_eq!(read("1.2E+02", "9.9EEEE"), "120");
        assert_eq!(read("1.5e-1", "9.9EEEE"), "0.15");
        assert_eq!(read("12.5", "TM"), "12.5");
        assert_eq!(read(".5", "9.99"), "0.5");
        assert_eq!(read("5.", "9.99"), "5");
        assert_eq!(read("1234", "99V99"), "12.34");
        assert_eq!(read("5", "99V99"), "0.05");
        assert_eq!(read("0012", "0999"), "12");
        assert_eq!(read("12", "FM9999"), "12");
        let german =
            NumericCharacters::from_nls_parameters("NLS_NUMERIC_CHARACTERS = ',.'").unwrap();
        assert_eq!(
            parse_number_with_model("1.234,5", "9G999D99", &german).unwrap(),
            Decimal::from_str("1234.5").unwrap()
        );
    }

    #[test]
    fn to_number_mismatches_are_ora_01722() {
        for (text, format) in [
            ("1234", "9,999"),
            ("12,34", "9,999"),
            ("12345", "9999"),
            ("1.234", "9.99"),
            ("1.5", "99"),
            ("12", "$99"),
            ("12", "S99"),
            ("12+", "S99"),
            ("<12", "99PR"),
            ("abc", "999"),
            ("1 2", "999"),
            ("-", "999"),
            ("", "999"),
            ("$", "$999"),
            ("GG", "XX"),
            ("100", "XX"),
            ("1.2", "9.9EEEE"),
            ("12.5E+02", "9.9EEEE"),
            ("1.2E", "9.9EEEE"),
            ("1-2", "99MI"),
            ("é", "999"),
        ] {
            assert_eq!(read_code(text, format), 1722, "{text:?} against {format:?}");
        }
        assert_eq!(read_code("XIV", "RN"), 1481);
        assert_eq!(read_code("1", "9A"), 1481);
    }

    /// A model-based check: for seeded random values and models that TO_NUMBER can read,
    /// TO_NUMBER(TO_CHAR(x, fmt), fmt) is x rounded half away from zero as the model rounds
    /// it (`Decimal`'s own rounding is the model), unless TO_CHAR printed `#`.
    #[test]
    fn to_number_reads_back_what_to_char_printed() {
        use rust_decimal::RoundingStrategy::MidpointAwayFromZero;
        let characters = NumericCharacters::default();
        // (model, decimals it rounds to, or None for three significant digits)
        let models: [(&str, Option<u32>); 11] = [
            ("9999.99", Some(2)),
            ("FM9,999.00", Some(2)),
            ("S9999.99", Some(2)),
            ("9999.99S", Some(2)),
            ("9999.99MI", Some(2)),
            ("9999.99PR", Some(2)),
            ("L9G999D99", Some(2)),
            ("$0,000.0", Some(1)),
            ("99V999", Some(3)),
            ("B9999", Some(0)),
            ("9.99EEEE", None),
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        let mut checked = 0;
        for _ in 0..2000 {
            let magnitude = (next() % 100_000_000) as i64;
            let scale = (next() % 7) as u32;
            let sign = if next() % 2 == 0 { 1 } else { -1 };
            let value = Decimal::new(sign * magnitude, scale);
            for (model, decimals) in models {
                let printed = format_decimal_with_model(&value, model, &characters).unwrap();
                if printed.contains('#') || printed.trim().is_empty() {
                    continue;
                }
                let expected = match decimals {
                    Some(decimals) => value.round_dp_with_strategy(decimals, MidpointAwayFromZero),
                    None => value
                        .round_sf_with_strategy(3, MidpointAwayFromZero)
                        .unwrap_or(value),
                };
                let read = parse_number_with_model(&printed, model, &characters)
                    .unwrap_or_else(|error| panic!("{value} by {model} is {printed:?}: {error}"));
                assert_eq!(read, expected, "{value} by {model} is {printed:?}");
                checked += 1;
            }
        }
        assert!(checked > 10_000, "only {checked} values fit their models");
    }

    /// Models and values at the edges fail with an error or print, and never panic.
    #[test]
    fn odd_input_never_panics() {
        let characters = NumericCharacters::default();
        let long = "9".repeat(200);
        for format in [
            "é",
            "9é",
            "FMé",
            long.as_str(),
            "0000000000000000000000000000000000000000XXXX",
        ] {
            let _ = format_decimal_with_model(&Decimal::MAX, format, &characters);
            let _ = format_decimal_with_model(&Decimal::MIN, format, &characters);
            let _ = format_float_with_model(f64::MAX, format, &characters);
            let _ = format_float_with_model(f64::MIN_POSITIVE, format, &characters);
            let _ =
                parse_number_with_model("99999999999999999999999999999999", format, &characters);
        }
        assert_eq!(
            format_decimal_with_model(&Decimal::MAX, &long, &characters)
                .unwrap()
                .trim_start(),
            "79228162514264337593543950335"
        );
        assert_eq!(
            parse_number_with_model(&"9".repeat(40), &long, &characters)
                .unwrap_err()
                .code(),
            1426
        );
    }
}
