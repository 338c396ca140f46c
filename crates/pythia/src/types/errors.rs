//! The ORA- errors raised by the type system that `crate::error` has no constructor for.
//!
//! They are built here, with Oracle's numbers and messages, so that the type system needs no
//! change to the shared error module; they can move there when it grows them.

use crate::error::Error;

/// ORA-00932: inconsistent datatypes: expected X got Y.
pub fn inconsistent_datatypes(expected: &str, got: &str) -> Error {
    Error::new(
        932,
        format!("inconsistent datatypes: expected {expected} got {got}"),
    )
}

/// ORA-00975: date + date not allowed.
pub fn date_plus_date() -> Error {
    Error::new(975, "date + date not allowed")
}

/// ORA-01426: numeric overflow.
pub fn numeric_overflow() -> Error {
    Error::new(1426, "numeric overflow")
}

/// ORA-01476: divisor is equal to zero.
pub fn divisor_is_zero() -> Error {
    Error::new(1476, "divisor is equal to zero")
}

/// ORA-01489: result of string concatenation is too long.
pub fn concatenation_too_long() -> Error {
    Error::new(1489, "result of string concatenation is too long")
}

/// ORA-25137: Data value out of range (CAST to a type too narrow for the value).
pub fn data_value_out_of_range() -> Error {
    Error::new(25137, "Data value out of range")
}

/// ORA-01841: (full) year must be between -4713 and +9999, and not be 0.
pub fn year_out_of_range() -> Error {
    Error::new(
        1841,
        "(full) year must be between -4713 and +9999, and not be 0",
    )
}

/// ORA-01843: not a valid month.
pub fn not_a_valid_month() -> Error {
    Error::new(1843, "not a valid month")
}

/// ORA-01847: day of month must be between 1 and last day of month.
pub fn day_of_month_out_of_range() -> Error {
    Error::new(1847, "day of month must be between 1 and last day of month")
}

/// ORA-01849: hour must be between 1 and 12.
pub fn hour_out_of_range_12() -> Error {
    Error::new(1849, "hour must be between 1 and 12")
}

/// ORA-01850: hour must be between 0 and 23.
pub fn hour_out_of_range_24() -> Error {
    Error::new(1850, "hour must be between 0 and 23")
}

/// ORA-01851: minutes must be between 0 and 59.
pub fn minute_out_of_range() -> Error {
    Error::new(1851, "minutes must be between 0 and 59")
}

/// ORA-01852: seconds must be between 0 and 59.
pub fn second_out_of_range() -> Error {
    Error::new(1852, "seconds must be between 0 and 59")
}

/// ORA-01861: literal does not match format string.
pub fn literal_does_not_match_format() -> Error {
    Error::new(1861, "literal does not match format string")
}

/// ORA-01830: date format picture ends before converting entire input string.
pub fn format_ends_before_input() -> Error {
    Error::new(
        1830,
        "date format picture ends before converting entire input string",
    )
}

/// ORA-61800: invalid boolean value (Oracle 23ai's error for TO_BOOLEAN of bad text).
pub fn invalid_boolean() -> Error {
    Error::new(61800, "invalid boolean value")
}

/// ORA-01727: numeric precision specifier is out of range (1 to 38).
pub fn precision_specifier_out_of_range() -> Error {
    Error::new(
        1727,
        "numeric precision specifier is out of range (1 to 38)",
    )
}

/// ORA-01728: numeric scale specifier is out of range (-84 to 127).
pub fn scale_specifier_out_of_range() -> Error {
    Error::new(1728, "numeric scale specifier is out of range (-84 to 127)")
}

/// ORA-00910: specified length too long for its datatype.
pub fn length_too_long() -> Error {
    Error::new(910, "specified length too long for its datatype")
}

/// ORA-01723: zero-length columns are not allowed.
pub fn zero_length_column() -> Error {
    Error::new(1723, "zero-length columns are not allowed")
}

/// ORA-01428: argument 'x' is out of range (SQRT of a negative NUMBER, POWER of a negative
/// base to a fraction, INSTR's occurrence below 1).
pub fn argument_out_of_range(argument: &str) -> Error {
    Error::new(1428, format!("argument '{argument}' is out of range"))
}

/// ORA-01821: date format not recognized (an element TO_DATE does not know).
pub fn date_format_not_recognized() -> Error {
    Error::new(1821, "date format not recognized")
}

/// ORA-01810: format code appears twice.
pub fn format_code_twice() -> Error {
    Error::new(1810, "format code appears twice")
}

/// ORA-01818: 'HH24' precludes use of meridian indicator.
pub fn hour24_precludes_meridian() -> Error {
    Error::new(1818, "'HH24' precludes use of meridian indicator")
}

/// ORA-01855: AM/A.M. or PM/P.M. required.
pub fn meridian_required() -> Error {
    Error::new(1855, "AM/A.M. or PM/P.M. required")
}

/// ORA-01858: a non-numeric character was found where a numeric was expected.
pub fn non_numeric_character() -> Error {
    Error::new(
        1858,
        "a non-numeric character was found where a numeric was expected",
    )
}

/// ORA-01839: date not valid for month specified (February 30th).
pub fn date_not_valid_for_month() -> Error {
    Error::new(1839, "date not valid for month specified")
}

/// ORA-01481: invalid number format model (TO_CHAR and TO_NUMBER).
pub fn invalid_number_format_model() -> Error {
    Error::new(1481, "invalid number format model")
}

/// ORA-12702: invalid NLS parameter string used in SQL function (TO_CHAR's and
/// TO_NUMBER's third argument).
pub fn invalid_nls_parameter() -> Error {
    Error::new(12702, "invalid NLS parameter string used in SQL function")
}
