//! Values on the wire: the PostgreSQL type each Pythia type is announced as, a result's
//! rows encoded in the text or binary format the client asked for, and a Bind message's
//! parameters decoded into the engine's values.
//!
//! | Pythia | PostgreSQL | why |
//! |---|---|---|
//! | NUMBER(p, 0), p <= 9 | int4 | fits |
//! | NUMBER(p, 0) otherwise, INTEGER | int8 | what clients read integers as; a value beyond it in binary is ORA-01455 |
//! | other NUMBER | numeric | exact |
//! | BINARY_DOUBLE | float8 | |
//! | VARCHAR2, CHAR | varchar, bpchar | |
//! | DATE, TIMESTAMP | timestamp | no time zone in either; text as `YYYY-MM-DD HH24:MI:SS[.FF6]` |
//! | BOOLEAN | bool | text `t` / `f` |
//! | unknown (an expression whose type the planner does not know) | text | |
//!
//! Parameters are decoded by the type the client gave (its OID), else by the type Pythia
//! announced for them at Describe, else as text, which Oracle's implicit conversions take
//! wherever a value goes. A value that does not decode is SQLSTATE 22P02, as PostgreSQL
//! answers; a binary parameter of a type Pythia does not decode is 0A000.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use pgwire::api::portal::{Format, Portal};
use pgwire::api::results::{DataRowEncoder, FieldFormat, FieldInfo};
use pgwire::api::Type;
use pgwire::error::{ErrorInfo, PgWireError};
use pgwire::messages::data::DataRow;
use pgwire::types::format::FormatOptions;
use pgwire::types::FromSqlText;
use pythia::types::DataType;
use pythia::{Column, Value};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

/// The type a column or parameter of `data_type` is announced as.
pub(crate) fn wire_type(data_type: Option<&DataType>) -> Type {
    match data_type {
        // NUMBER(p) has scale 0, as NUMBER(p, 0); NUMBER(*, 0) and INTEGER are NUMBER(38, 0).
        Some(DataType::Number {
            precision: Some(precision),
            scale: None | Some(0),
        }) if *precision <= 9 => Type::INT4,
        Some(DataType::Number {
            precision: Some(_),
            scale: None | Some(0),
        }) => Type::INT8,
        Some(DataType::Number { .. }) => Type::NUMERIC,
        Some(DataType::Float) => Type::FLOAT8,
        Some(DataType::Varchar2 { .. }) => Type::VARCHAR,
        Some(DataType::Char { .. }) => Type::BPCHAR,
        Some(DataType::Boolean) => Type::BOOL,
        Some(DataType::Date | DataType::Timestamp) => Type::TIMESTAMP,
        None => Type::TEXT,
    }
}

/// A column's name as a PostgreSQL client expects it: Oracle folds unquoted names to upper
/// case where PostgreSQL folds them to lower case, so a name with no lower-case letter is
/// sent in lower case (`AID` as `aid`); a quoted mixed-case name is kept.
pub(crate) fn column_name(name: &str) -> String {
    if name.chars().any(char::is_lowercase) {
        name.to_string()
    } else {
        name.to_lowercase()
    }
}

/// The row description of `columns`, each in the format `formats` gives its position.
pub(crate) fn fields(columns: &[(String, Type)], formats: &Format) -> Arc<Vec<FieldInfo>> {
    Arc::new(
        columns
            .iter()
            .enumerate()
            .map(|(index, (name, data_type))| {
                FieldInfo::new(
                    name.clone(),
                    None,
                    None,
                    data_type.clone(),
                    formats.format_for(index),
                )
            })
            .collect(),
    )
}

/// A result's columns as announced: names for the wire and their types.
pub(crate) fn described(columns: &[Column]) -> Vec<(String, Type)> {
    columns
        .iter()
        .map(|column| {
            (
                column_name(&column.name),
                wire_type(column.data_type.as_ref()),
            )
        })
        .collect()
}

/// ORA-01455: a value that does not fit the integer type its column was announced as.
fn overflow() -> pythia::Error {
    pythia::Error::new(1455, "converting column overflows integer datatype")
}

/// Encodes `rows` as DataRows of `fields` (their types and formats).
pub(crate) fn encode_rows(
    fields: &Arc<Vec<FieldInfo>>,
    rows: &[Vec<Value>],
) -> pythia::Result<Vec<DataRow>> {
    let mut encoder = DataRowEncoder::new(fields.clone());
    let mut encoded = Vec::with_capacity(rows.len());
    for row in rows {
        for (value, field) in row.iter().zip(fields.iter()) {
            encode_value(&mut encoder, value, field)?;
        }
        encoded.push(encoder.take_row());
    }
    Ok(encoded)
}

fn encode_value(
    encoder: &mut DataRowEncoder,
    value: &Value,
    field: &FieldInfo,
) -> pythia::Result<()> {
    if field.format() == FieldFormat::Text {
        return encode(encoder.encode_field(&text(value)));
    }
    let encoded = match (value, field.datatype()) {
        (Value::Null, _) => encoder.encode_field(&None::<i32>),
        (Value::Number(number), &Type::INT4) => {
            encoder.encode_field(&number.to_i32().ok_or_else(overflow)?)
        }
        (Value::Number(number), &Type::INT8) => {
            encoder.encode_field(&number.to_i64().ok_or_else(overflow)?)
        }
        (Value::Number(number), &Type::NUMERIC) => encoder.encode_field(number),
        (Value::Number(number), &Type::FLOAT8) => {
            encoder.encode_field(&number.to_f64().unwrap_or(f64::NAN))
        }
        (Value::Float(float), &Type::FLOAT8) => encoder.encode_field(float),
        (Value::Float(float), &Type::NUMERIC) => match Decimal::from_f64_retain(*float) {
            Some(number) => encoder.encode_field(&number),
            None => encoder.encode_field(&text(value)),
        },
        (Value::Boolean(boolean), &Type::BOOL) => encoder.encode_field(boolean),
        (Value::Date(_) | Value::Timestamp(_), &Type::TIMESTAMP) => {
            encoder.encode_field(&timestamp(value))
        }
        // Text for everything announced as text, and for what its column's type does not
        // hold (a column whose type the planner guessed).
        _ => encoder.encode_field(&text(value)),
    };
    encode(encoded)
}

fn encode(encoded: Result<(), PgWireError>) -> pythia::Result<()> {
    encoded.map_err(|error| pythia::Error::new(3001, format!("unimplemented feature: {error}")))
}

/// A value as text, as PostgreSQL writes it (the text format of results, COPY): numbers
/// without trailing zeros past the point, booleans `t` / `f`, dates and timestamps
/// `YYYY-MM-DD HH24:MI:SS[.FF]`.
pub(crate) fn text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Number(number) => Some(number.normalize().to_string()),
        Value::Float(float) => Some(float.to_string()),
        Value::Boolean(true) => Some("t".to_string()),
        Value::Boolean(false) => Some("f".to_string()),
        Value::Date(_) | Value::Timestamp(_) => {
            timestamp(value).map(|timestamp| timestamp.to_string())
        }
        other => other.to_text(),
    }
}

fn timestamp(value: &Value) -> Option<NaiveDateTime> {
    let microseconds = match value {
        Value::Date(seconds) => seconds.checked_mul(1_000_000)?,
        Value::Timestamp(microseconds) => *microseconds,
        _ => return None,
    };
    DateTime::from_timestamp_micros(microseconds).map(|moment| moment.naive_utc())
}

/// The engine's values for a portal's parameters: each decoded by `types` (the client's
/// type where it gave one, else the announced one; None: text), in the format the Bind gave
/// it.
pub(crate) fn parameters<S: Clone>(
    portal: &Portal<S>,
    types: &[Option<Type>],
) -> Result<Vec<Value>, PgWireError> {
    portal
        .parameters
        .iter()
        .enumerate()
        .map(|(index, bytes)| {
            let data_type = types.get(index).cloned().flatten().unwrap_or(Type::TEXT);
            let binary = portal.parameter_format.is_binary(index);
            decode(bytes.as_deref(), &data_type, binary).map_err(|error| {
                let (code, message) = match error {
                    Undecodable::Format => (
                        "0A000",
                        format!(
                            "ORA-03001: unimplemented feature: parameter ${} in the binary \
                             format of {}",
                            index + 1,
                            data_type.name()
                        ),
                    ),
                    Undecodable::Value(error) => (
                        "22P02",
                        format!(
                            "ORA-01722: invalid number or value: parameter ${} as {}: {error}",
                            index + 1,
                            data_type.name()
                        ),
                    ),
                };
                PgWireError::UserError(Box::new(ErrorInfo::new(
                    "ERROR".into(),
                    code.into(),
                    message,
                )))
            })
        })
        .collect()
}

/// Why a value did not decode.
pub(crate) enum Undecodable {
    /// A binary value of a type Pythia does not read in binary.
    Format,
    /// Bytes that are not a value of the type.
    Value(Box<dyn std::error::Error + Send + Sync>),
}

/// A value sent as `data_type` in text (`binary` false) or binary, as the engine's value:
/// a Bind's parameter, a COPY's field. None bytes are NULL.
pub(crate) fn decode(
    bytes: Option<&[u8]>,
    data_type: &Type,
    binary: bool,
) -> Result<Value, Undecodable> {
    let Some(bytes) = bytes else {
        return Ok(Value::Null);
    };
    // One decoding per type: the value as postgres-types (binary) or pgwire (text) reads
    // it, then as ours.
    fn read<T>(
        bytes: &[u8],
        data_type: &Type,
        binary: bool,
        into: impl Fn(T) -> Value,
    ) -> Result<Value, Undecodable>
    where
        T: postgres_types::FromSqlOwned + for<'a> FromSqlText<'a>,
    {
        let value = if binary {
            T::from_sql(data_type, bytes)
        } else {
            T::from_sql_text(data_type, bytes, &FormatOptions::default())
        };
        value.map(into).map_err(Undecodable::Value)
    }
    match *data_type {
        Type::INT2 => read(bytes, data_type, binary, |value: i16| {
            Value::integer(value.into())
        }),
        Type::INT4 => read(bytes, data_type, binary, |value: i32| {
            Value::integer(value.into())
        }),
        Type::INT8 => read(bytes, data_type, binary, Value::integer),
        Type::NUMERIC => read(bytes, data_type, binary, Value::Number),
        Type::FLOAT4 => read(bytes, data_type, binary, |value: f32| {
            Value::Float(value.into())
        }),
        Type::FLOAT8 => read(bytes, data_type, binary, Value::Float),
        Type::BOOL => read(bytes, data_type, binary, Value::Boolean),
        Type::TIMESTAMP => read(bytes, data_type, binary, |value: NaiveDateTime| {
            Value::Timestamp(value.and_utc().timestamp_micros())
        }),
        Type::DATE => read(bytes, data_type, binary, |value: NaiveDate| {
            Value::Date(value.and_time(chrono::NaiveTime::MIN).and_utc().timestamp())
        }),
        // Text types, and in text every other type: the engine converts text where it goes.
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => utf8(bytes),
        _ if binary => Err(Undecodable::Format),
        _ => utf8(bytes),
    }
}

fn utf8(bytes: &[u8]) -> Result<Value, Undecodable> {
    std::str::from_utf8(bytes)
        .map(Value::text)
        .map_err(|error| Undecodable::Value(Box::new(error)))
}
