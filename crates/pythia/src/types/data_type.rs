//! Column data types, as declared in CREATE TABLE and shown by DESCRIBE.
//!
//! ```text
//!   SQL spelling                 DataType
//!   NUMBER                       Number { precision: None, scale: None }      any number, kept as is
//!   NUMBER(p) / NUMBER(p,s)      Number { precision: Some(p), scale: Some(s) } (NUMBER(p) has s = 0)
//!   NUMBER(*,s)                  Number { precision: None, scale: Some(s) }   precision 38
//!   INTEGER / INT / SMALLINT     Number { precision: Some(38), scale: Some(0) }
//!   BINARY_DOUBLE / FLOAT        Float
//!   VARCHAR2(n) / VARCHAR(n)     Varchar2 { length: n }    n bytes, 1..=4000
//!   CHAR(n)                      Char { length: n }        blank-padded to n bytes, 1..=2000
//!   DATE                         Date                      to the second
//!   TIMESTAMP                    Timestamp                 to the microsecond (TIMESTAMP(6))
//!   BOOLEAN                      Boolean                   Oracle 23ai
//! ```
//!
//! [`DataType::validate`] raises the errors Oracle raises for impossible declarations.

use std::fmt;

use super::errors;
use crate::error::Result;

/// The most bytes a VARCHAR2 holds (Oracle's MAX_STRING_SIZE = STANDARD); also the most a
/// `||` concatenation may produce (ORA-01489 beyond).
pub const VARCHAR2_BYTES_MAX: u32 = 4000;

/// The most bytes a CHAR holds.
pub const CHAR_BYTES_MAX: u32 = 2000;

/// The most significant digits a NUMBER precision may declare.
pub const NUMBER_PRECISION_MAX: u8 = 38;

/// The type of a column or of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// NUMBER(precision, scale): decimal, exact. `precision` None means 38 (or unlimited
    /// when `scale` is None too); `scale` None with a precision means 0.
    Number {
        precision: Option<u8>,
        scale: Option<i8>,
    },
    /// BINARY_DOUBLE: IEEE 754 double.
    Float,
    /// VARCHAR2(length), length in bytes.
    Varchar2 { length: u32 },
    /// CHAR(length), length in bytes, blank-padded.
    Char { length: u32 },
    /// DATE: to the second, no time zone.
    Date,
    /// TIMESTAMP(6): to the microsecond, no time zone.
    Timestamp,
    /// BOOLEAN (Oracle 23ai).
    Boolean,
}

impl DataType {
    /// The family of the values of this type, as set operations match their columns.
    pub(crate) fn family(&self) -> super::value::Family {
        use super::value::Family;
        match self {
            DataType::Number { .. } | DataType::Float => Family::Numeric,
            DataType::Varchar2 { .. } | DataType::Char { .. } => Family::Text,
            DataType::Date | DataType::Timestamp => Family::Datetime,
            DataType::Boolean => Family::Boolean,
        }
    }

    /// INTEGER: NUMBER(38,0).
    pub const fn integer() -> DataType {
        DataType::Number {
            precision: Some(38),
            scale: Some(0),
        }
    }

    /// NUMBER with no precision or scale: holds any number as is.
    pub const fn number() -> DataType {
        DataType::Number {
            precision: None,
            scale: None,
        }
    }

    /// NUMBER(precision, scale).
    pub const fn number_with(precision: u8, scale: i8) -> DataType {
        DataType::Number {
            precision: Some(precision),
            scale: Some(scale),
        }
    }

    pub const fn varchar2(length: u32) -> DataType {
        DataType::Varchar2 { length }
    }

    pub const fn char(length: u32) -> DataType {
        DataType::Char { length }
    }

    /// Checks a declaration: ORA-01727 (precision not in 1..=38), ORA-01728 (scale not in
    /// -84..=127), ORA-01723 (zero length), ORA-00910 (length above the type's maximum).
    pub fn validate(&self) -> Result<()> {
        match *self {
            DataType::Number { precision, scale } => {
                if let Some(precision) = precision {
                    if !(1..=NUMBER_PRECISION_MAX).contains(&precision) {
                        return Err(errors::precision_specifier_out_of_range());
                    }
                }
                if let Some(scale) = scale {
                    if scale < -84 {
                        return Err(errors::scale_specifier_out_of_range());
                    }
                }
                Ok(())
            }
            DataType::Varchar2 { length } => check_length(length, VARCHAR2_BYTES_MAX),
            DataType::Char { length } => check_length(length, CHAR_BYTES_MAX),
            DataType::Float | DataType::Date | DataType::Timestamp | DataType::Boolean => Ok(()),
        }
    }

    /// The name in DBA_TAB_COLUMNS.DATA_TYPE: `NUMBER`, `BINARY_DOUBLE`, `VARCHAR2`,
    /// `CHAR`, `DATE`, `TIMESTAMP(6)`, `BOOLEAN`.
    pub fn name(&self) -> &'static str {
        match self {
            DataType::Number { .. } => "NUMBER",
            DataType::Float => "BINARY_DOUBLE",
            DataType::Varchar2 { .. } => "VARCHAR2",
            DataType::Char { .. } => "CHAR",
            DataType::Date => "DATE",
            DataType::Timestamp => "TIMESTAMP(6)",
            DataType::Boolean => "BOOLEAN",
        }
    }

    /// True for NUMBER and BINARY_DOUBLE.
    pub fn is_numeric(&self) -> bool {
        matches!(self, DataType::Number { .. } | DataType::Float)
    }

    /// True for VARCHAR2 and CHAR.
    pub fn is_text(&self) -> bool {
        matches!(self, DataType::Varchar2 { .. } | DataType::Char { .. })
    }

    /// True for DATE and TIMESTAMP.
    pub fn is_datetime(&self) -> bool {
        matches!(self, DataType::Date | DataType::Timestamp)
    }
}

fn check_length(length: u32, maximum: u32) -> Result<()> {
    if length == 0 {
        return Err(errors::zero_length_column());
    }
    if length > maximum {
        return Err(errors::length_too_long());
    }
    Ok(())
}

/// As SQL*Plus DESCRIBE shows it: `NUMBER(5,2)`, `NUMBER(38)`, `NUMBER(*,2)`, `VARCHAR2(20)`.
impl fmt::Display for DataType {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DataType::Number {
                precision: None,
                scale: None,
            } => write!(formatter, "NUMBER"),
            DataType::Number {
                precision: Some(precision),
                scale: None | Some(0),
            } => {
                write!(formatter, "NUMBER({precision})")
            }
            DataType::Number {
                precision: Some(precision),
                scale: Some(scale),
            } => {
                write!(formatter, "NUMBER({precision},{scale})")
            }
            DataType::Number {
                precision: None,
                scale: Some(scale),
            } => write!(formatter, "NUMBER(*,{scale})"),
            DataType::Varchar2 { length } => write!(formatter, "VARCHAR2({length})"),
            DataType::Char { length } => write!(formatter, "CHAR({length})"),
            other => write!(formatter, "{}", other.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_follows_describe() {
        assert_eq!(DataType::number_with(5, 2).to_string(), "NUMBER(5,2)");
        assert_eq!(DataType::integer().to_string(), "NUMBER(38)");
        assert_eq!(DataType::number().to_string(), "NUMBER");
        assert_eq!(
            DataType::Number {
                precision: None,
                scale: Some(2)
            }
            .to_string(),
            "NUMBER(*,2)"
        );
        assert_eq!(DataType::varchar2(20).to_string(), "VARCHAR2(20)");
        assert_eq!(DataType::Float.to_string(), "BINARY_DOUBLE");
        assert_eq!(DataType::Timestamp.to_string(), "TIMESTAMP(6)");
    }

    #[test]
    fn validate_rejects_impossible_declarations() {
        assert_eq!(
            DataType::number_with(0, 0).validate().unwrap_err().code(),
            1727
        );
        assert_eq!(
            DataType::number_with(39, 0).validate().unwrap_err().code(),
            1727
        );
        assert_eq!(
            DataType::number_with(5, -85).validate().unwrap_err().code(),
            1728
        );
        assert_eq!(DataType::varchar2(0).validate().unwrap_err().code(), 1723);
        assert_eq!(DataType::varchar2(4001).validate().unwrap_err().code(), 910);
        assert_eq!(DataType::char(2001).validate().unwrap_err().code(), 910);
        assert!(DataType::number_with(38, 127).validate().is_ok());
        assert!(DataType::varchar2(4000).validate().is_ok());
    }
}
