//! The type system: SQL values, their types, Oracle's rules for them, and their bytes.
//!
//! ```text
//!   value.rs       Value (NULL, NUMBER, BINARY_DOUBLE, text, DATE, TIMESTAMP, BOOLEAN),
//!                  comparisons (three-valued sql_cmp, converting sql_compare, total_cmp),
//!                  GroupKey for GROUP BY / DISTINCT / hash joins, Display as SQL*Plus shows it
//!   data_type.rs   DataType: NUMBER(p,s), BINARY_DOUBLE, VARCHAR2(n), CHAR(n), DATE, ...
//!   arithmetic.rs  + - * / MOD unary minus ||, POWER, SQRT, with Oracle's type rules and
//!                  ORA- errors
//!   conversion.rs  CAST, number text in and out (TO_CHAR default form), coerce_to_column
//!   datetime.rs    the calendar, DD-MON-RR text, parsing of date and timestamp text,
//!                  ADD_MONTHS
//!   date_format.rs TO_DATE's format models (YYYY-MM-DD HH24:MI:SS, DD-MON-YYYY, ...)
//!   number_format.rs TO_CHAR's and TO_NUMBER's number format models (9,999.99, FM0.00,
//!                  S9.9EEEE, XXXX, RN, TM, ...)
//!   numeric.rs     exact comparison of NUMBER with BINARY_DOUBLE (private)
//!   codec.rs       row bytes: count, then per column a length byte and a tagged payload
//!   key.rs         index key bytes whose memcmp order is the total order
//!   row_set.rs     RowSet: rows of values under named, typed columns (results, views)
//! ```
//!
//! Oracle's rules that shape everything here:
//! 1. The empty string is NULL: [`Value::text`] turns `""` into [`Value::Null`].
//! 2. NULL compares as unknown ([`Value::sql_cmp`] is None), sorts last ascending
//!    ([`Value::total_cmp`]), groups with other NULLs ([`GroupKey`]), and vanishes in `||`.
//! 3. NUMBER arithmetic is exact decimal (`rust_decimal`, 28-29 digits where Oracle has 38;
//!    beyond is ORA-01426, not silent rounding, except where text or doubles are converted
//!    and the loss is documented); a BINARY_DOUBLE operand makes the result BINARY_DOUBLE.
//! 4. Implicit conversion runs from text to the other side's type, and its failures are
//!    Oracle's: ORA-01722 for a number, ORA-01861 and friends for a date.
//!
//! Everything that can fail returns `crate::error::Result` with Oracle's error; nothing here
//! panics on user data or on corrupt bytes (the codecs report ORA-00600).

mod arithmetic;
pub mod codec;
mod conversion;
mod data_type;
pub mod date_format;
pub mod datetime;
pub mod errors;
pub mod key;
pub mod number_format;
mod numeric;
mod row_set;
mod value;

pub use arithmetic::RunningSum;
pub use codec::{
    decode_column, decode_row, decode_row_columns, decode_row_into, encode_row, row_column_count,
    ROW_COLUMNS_MAX,
};
pub use conversion::{
    coerce_to_column, coerce_to_named_column, format_float, format_number, round_to_number_type,
};
pub use data_type::{DataType, CHAR_BYTES_MAX, NUMBER_PRECISION_MAX, VARCHAR2_BYTES_MAX};
pub use key::{compare_tuples, encode_key, encode_key_column, key_prefix_successor};
pub use row_set::{Column, RowSet};
pub(crate) use value::Family;
pub use value::{GroupKey, Value};
