//! PostgreSQL's `SET` and `SHOW`, which the clients of `pythia serve` send: a session's
//! client settings (`application_name`, `DateStyle`, `extra_float_digits`, ...), kept for
//! `SHOW` to answer, and Pythia's own parameters under their names (`SET statement_timeout
//! = '5s'` is `ALTER SESSION SET statement_timeout = 5000`).
//!
//! A name is one of three things, in this order:
//! 1. a Pythia parameter (`v$parameter`): set for the session, as ALTER SESSION sets it;
//! 2. a setting PostgreSQL 15 has and clients use ([`POSTGRESQL_SETTINGS`]) or a custom
//!    one (`myapp.tenant`, with a dot, as PostgreSQL allows): kept in the session, at most
//!    [`CLIENT_SETTINGS_MAX`] of them, and answered by SHOW; nothing in the engine reads
//!    them, and the answers to the fixed ones (`server_encoding`, `integer_datetimes`)
//!    say what Pythia does whatever was set;
//! 3. anything else: the error ALTER SESSION gives for an unknown parameter.

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// The most client settings a session keeps.
pub const CLIENT_SETTINGS_MAX: usize = 256;

/// PostgreSQL 15's settings that clients read or set, with the value Pythia starts with,
/// under PostgreSQL's names (lower case).
pub const POSTGRESQL_SETTINGS: &[(&str, &str)] = &[
    ("application_name", ""),
    ("bytea_output", "hex"),
    ("client_encoding", "UTF8"),
    ("client_min_messages", "notice"),
    ("datestyle", "ISO, MDY"),
    ("default_transaction_isolation", "read committed"),
    ("default_transaction_read_only", "off"),
    ("extra_float_digits", "1"),
    ("idle_in_transaction_session_timeout", "0"),
    ("integer_datetimes", "on"),
    ("intervalstyle", "postgres"),
    ("is_superuser", "on"),
    ("lc_messages", "C"),
    ("lc_monetary", "C"),
    ("lc_numeric", "C"),
    ("lc_time", "C"),
    ("lock_timeout", "0"),
    ("max_identifier_length", "128"),
    ("search_path", "\"$user\", public"),
    ("server_encoding", "UTF8"),
    ("server_version", "15.0"),
    ("server_version_num", "150000"),
    ("standard_conforming_strings", "on"),
    ("synchronous_commit", "on"),
    ("timezone", "UTC"),
    ("transaction_isolation", "read committed"),
    ("transaction_read_only", "off"),
];

/// A session's client settings: what it SET of PostgreSQL's settings.
#[derive(Debug, Default)]
pub(crate) struct ClientSettings {
    values: BTreeMap<String, String>,
}

impl ClientSettings {
    /// Whether `name` (lower case) is kept here rather than a Pythia parameter's.
    pub(crate) fn takes(name: &str) -> bool {
        name.contains('.') || POSTGRESQL_SETTINGS.iter().any(|(known, _)| *known == name)
    }

    /// Keeps `value` for `name` (lower case). ORA-02097 past [`CLIENT_SETTINGS_MAX`].
    pub(crate) fn set(&mut self, name: &str, value: &str) -> Result<()> {
        if !self.values.contains_key(name) && self.values.len() >= CLIENT_SETTINGS_MAX {
            return Err(Error::new(
                2097,
                format!(
                    "parameter cannot be modified because specified value is invalid: more \
                     than {CLIENT_SETTINGS_MAX} client settings in one session"
                ),
            ));
        }
        self.values.insert(name.to_string(), value.to_string());
        Ok(())
    }

    /// The value SHOW gives for `name` (lower case): what was set, else PostgreSQL's
    /// starting value; None for a name never set and not PostgreSQL's.
    pub(crate) fn get(&self, name: &str) -> Option<String> {
        self.values.get(name).cloned().or_else(|| {
            POSTGRESQL_SETTINGS
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, value)| value.to_string())
        })
    }

    /// Every setting with its value, set ones over the starting values, by name.
    pub(crate) fn all(&self) -> Vec<(String, String)> {
        let mut all: BTreeMap<String, String> = POSTGRESQL_SETTINGS
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        all.extend(self.values.clone());
        all.into_iter().collect()
    }
}

/// A duration as PostgreSQL writes one for a setting in milliseconds (`statement_timeout =
/// '5s'`): a number with an optional unit `ms`, `s`, `min`, `h` or `d` (no unit:
/// milliseconds), as whole milliseconds; None if it is not one.
pub(crate) fn milliseconds(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|character: char| !(character.is_ascii_digit() || character == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "ms" => 1.0,
        "s" => 1_000.0,
        "min" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    let milliseconds = (number * scale).round();
    (milliseconds >= 0.0 && milliseconds <= u64::MAX as f64).then_some(milliseconds as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_postgresql_writes_them() {
        assert_eq!(milliseconds("5000"), Some(5000));
        assert_eq!(milliseconds("5s"), Some(5000));
        assert_eq!(milliseconds(" 1.5 min"), Some(90_000));
        assert_eq!(milliseconds("250ms"), Some(250));
        assert_eq!(milliseconds("2h"), Some(7_200_000));
        assert_eq!(milliseconds("5 fortnights"), None);
        assert_eq!(milliseconds("soon"), None);
    }

    #[test]
    fn settings_are_kept_bounded_and_answered() {
        let mut settings = ClientSettings::default();
        assert!(ClientSettings::takes("application_name"));
        assert!(ClientSettings::takes("myapp.tenant"));
        assert!(!ClientSettings::takes("optimizer_mode"));
        assert_eq!(settings.get("datestyle").as_deref(), Some("ISO, MDY"));
        settings.set("application_name", "psql").unwrap();
        assert_eq!(settings.get("application_name").as_deref(), Some("psql"));
        assert_eq!(settings.get("myapp.tenant"), None);
        for number in 0..CLIENT_SETTINGS_MAX - 1 {
            settings.set(&format!("custom.s{number}"), "x").unwrap();
        }
        assert_eq!(
            settings.set("custom.one_too_many", "x").unwrap_err().code(),
            2097
        );
        // Setting one again is not one more.
        settings.set("custom.s0", "y").unwrap();
        assert!(settings.all().len() >= CLIENT_SETTINGS_MAX);
    }
}
