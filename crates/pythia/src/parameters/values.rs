//! The text of a value: parsing it by its definition's kind (sizes with K/M/G suffixes,
//! ranges, enumerations), formatting sizes, and the errors of a bad name or value
//! (ORA-00096, ORA-01078, ORA-02065, ORA-02248).

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::parameters::definitions::{bare_name, GIGABYTE, KILOBYTE, MEGABYTE, TERABYTE};
use crate::parameters::file::file_text;
use crate::parameters::{DefaultValue, Definition, Kind, SetScope, Value, VALUE_BYTES_MAX};

/// A definition's default as a value (for a derived default, a placeholder replaced on read).
pub(super) fn fixed_default(definition: &Definition) -> Value {
    match definition.default {
        DefaultValue::Text(text) => parse_value(definition, text).unwrap_or_else(|error| {
            // The registry tests parse every default; this is unreachable from a tested build.
            if cfg!(debug_assertions) {
                panic!("default of {} does not parse: {error}", definition.name);
            }
            Value::Text(Arc::from(text))
        }),
        DefaultValue::Unset => Value::Text(Arc::from("")),
        DefaultValue::Derived(_) => Value::Integer(0),
    }
}
pub(super) fn parse_value(definition: &Definition, text: &str) -> Result<Value> {
    let invalid = || invalid_value(definition, text);
    if text.len() > VALUE_BYTES_MAX {
        return Err(invalid());
    }
    match definition.kind {
        Kind::Boolean if text.eq_ignore_ascii_case("TRUE") => Ok(Value::Boolean(true)),
        Kind::Boolean if text.eq_ignore_ascii_case("FALSE") => Ok(Value::Boolean(false)),
        Kind::Boolean => Err(invalid()),
        Kind::Integer {
            min,
            max,
            power_of_two,
        } => {
            let number: i64 = text.parse().map_err(|_| invalid())?;
            let shape_ok = !power_of_two || (number > 0 && number & (number - 1) == 0);
            if (min..=max).contains(&number) && shape_ok {
                Ok(Value::Integer(number))
            } else {
                Err(invalid())
            }
        }
        Kind::Size {
            min_bytes,
            max_bytes,
        } => match parse_size(text) {
            Some(bytes) if (min_bytes..=max_bytes).contains(&bytes) => Ok(Value::Bytes(bytes)),
            _ => Err(invalid()),
        },
        Kind::String => {
            if text.chars().any(char::is_control) || file_text(text).is_none() {
                return Err(invalid());
            }
            Ok(Value::Text(Arc::from(text)))
        }
        Kind::Enumeration(values) => values
            .iter()
            .find(|value| value.eq_ignore_ascii_case(text))
            .map(|value| Value::Text(Arc::from(*value)))
            .ok_or_else(invalid),
    }
}

/// `67108864`, `512K`, `64M`, `1G` (K, M, G, T, P, E: powers of 1024, either case).
pub(super) fn parse_size(text: &str) -> Option<u64> {
    let shift = match text.as_bytes().last()?.to_ascii_uppercase() {
        b'K' => 10,
        b'M' => 20,
        b'G' => 30,
        b'T' => 40,
        b'P' => 50,
        b'E' => 60,
        _ => 0,
    };
    // The suffix, when there is one, is a single ASCII byte: slicing it off is safe.
    let digits = if shift == 0 {
        text
    } else {
        &text[..text.len() - 1]
    };
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Bytes with the largest suffix that divides them exactly: `67108864` is `64M`.
pub(super) fn format_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0".to_string();
    }
    for (unit, suffix) in [
        (TERABYTE, 'T'),
        (GIGABYTE, 'G'),
        (MEGABYTE, 'M'),
        (KILOBYTE, 'K'),
    ] {
        if bytes.is_multiple_of(unit) {
            return format!("{}{suffix}", bytes / unit);
        }
    }
    bytes.to_string()
}

fn invalid_value(definition: &Definition, text: &str) -> Error {
    let rule = match definition.kind {
        Kind::Boolean => ", must be from among TRUE, FALSE".to_string(),
        Kind::Integer {
            min,
            max,
            power_of_two,
        } => {
            let shape = if power_of_two { "a power of two " } else { "" };
            format!(", must be {shape}between {min} and {max}")
        }
        Kind::Size {
            min_bytes,
            max_bytes,
        } => {
            format!(
                ", must be between {} and {}",
                format_size(min_bytes),
                format_size(max_bytes)
            )
        }
        Kind::String => format!(
            ", must be at most {VALUE_BYTES_MAX} bytes, without control characters, \
             and quotable with ' or \""
        ),
        Kind::Enumeration(values) => format!(", must be from among {}", values.join(", ")),
    };
    Error::new(
        96,
        format!(
            "invalid value {} for parameter {}{rule}",
            shown(text),
            definition.name
        ),
    )
}

/// The error for a name no parameter has, as the statement of `scope` reports it.
pub fn unknown_parameter(name: &str, scope: SetScope) -> Error {
    let headline = match scope {
        SetScope::InitFile | SetScope::CommandLine => {
            (1078, "failure in processing system parameters")
        }
        SetScope::AlterSystem { .. } => (2065, "illegal option for ALTER SYSTEM"),
        SetScope::AlterSession => (2248, "invalid option for ALTER SESSION"),
    };
    Error::new(
        headline.0,
        format!(
            "{}\nLRM-00101: unknown parameter name '{}'",
            headline.1,
            shown(bare_name(name))
        ),
    )
}

pub(super) fn syntax_error(found: &str, following: &str) -> Error {
    Error::new(
        1078,
        format!(
            "failure in processing system parameters\n\
             LRM-00116: syntax error at '{}' following '{}'",
            shown(found),
            shown(following)
        ),
    )
}

/// Text from the user, for an error message: control characters escaped, long text cut.
fn shown(text: &str) -> String {
    const SHOWN_CHARACTERS_MAX: usize = 80;
    let mut shown = String::new();
    for (count, character) in text.chars().enumerate() {
        if count == SHOWN_CHARACTERS_MAX {
            shown.push_str("...");
            break;
        }
        if character.is_control() {
            shown.extend(character.escape_default());
        } else {
            shown.push(character);
        }
    }
    shown
}
