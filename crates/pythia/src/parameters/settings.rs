//! `Parameters`: one value per registry entry, where it came from, whether ALTER SESSION or
//! ALTER SYSTEM modified it, and what the parameter file holds; cloned by pointer, copied on
//! the first change.

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::parameters::definitions::index_of;
use crate::parameters::file::unquote_whole;
use crate::parameters::values::{fixed_default, format_size, parse_value};
use crate::parameters::{
    names, unknown_parameter, DefaultValue, Definition, SystemModifiable, DEFINITIONS,
    KGL_BUCKET_COUNTS,
};

/// A parameter's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Boolean(bool),
    Integer(i64),
    Bytes(u64),
    /// Strings as written; enumerations in the registry's uppercase.
    Text(Arc<str>),
}

/// The text `v$parameter.value` shows: sizes in plain bytes, booleans `TRUE`/`FALSE`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Boolean(true) => f.write_str("TRUE"),
            Value::Boolean(false) => f.write_str("FALSE"),
            Value::Integer(number) => write!(f, "{number}"),
            Value::Bytes(bytes) => write!(f, "{bytes}"),
            Value::Text(text) => f.write_str(text),
        }
    }
}

impl Value {
    /// The text `v$parameter.display_value` shows: sizes with the largest exact suffix (`64M`).
    pub fn display_value(&self) -> String {
        match self {
            Value::Bytes(bytes) => format_size(*bytes),
            other => other.to_string(),
        }
    }
}

/// Where a parameter's current value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Default,
    InitFile,
    CommandLine,
    AlterSystem,
    AlterSession,
}

/// Who is setting a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetScope {
    /// A line of the parameter file, at startup.
    InitFile,
    /// A `-p name=value` override, at startup; not written to the parameter file.
    CommandLine,
    /// `ALTER SYSTEM SET name = value SCOPE = ...`.
    AlterSystem { scope: AlterSystemScope },
    /// `ALTER SESSION SET name = value`, on the session's copy.
    AlterSession,
}

/// `ALTER SYSTEM ... SCOPE=`: the running instance, the parameter file, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlterSystemScope {
    Memory,
    Spfile,
    Both,
}

/// `v$parameter.ismodified`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modification {
    No,
    Session,
    System,
}

impl Modification {
    const fn as_str(self) -> &'static str {
        match self {
            Modification::No => "FALSE",
            Modification::Session => "MODIFIED",
            Modification::System => "SYSTEM_MOD",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Setting {
    /// For a derived default, what `defaults()` computed; the live value is derived on read.
    value: Value,
    source: Source,
    modification: Modification,
    /// What the parameter file holds; `None` when the file does not name the parameter.
    pub(super) file_value: Option<Value>,
}

/// A row of `v$parameter`, with Oracle's columns as Oracle shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterRow {
    pub num: u32,
    pub name: &'static str,
    /// TYPE: 1 Boolean, 2 String, 3 Integer, 6 Big integer.
    pub type_code: u8,
    pub value: String,
    pub display_value: String,
    /// `TRUE` or `FALSE`.
    pub isdefault: &'static str,
    /// `TRUE` or `FALSE`.
    pub isses_modifiable: &'static str,
    /// `IMMEDIATE`, `DEFERRED` or `FALSE`.
    pub issys_modifiable: &'static str,
    /// `FALSE`, `MODIFIED` (ALTER SESSION) or `SYSTEM_MOD` (ALTER SYSTEM).
    pub ismodified: &'static str,
    pub description: &'static str,
    /// An underscore parameter: `v$parameter` shows it only once set.
    pub hidden: bool,
}

/// The current value of every parameter. Cloning copies a pointer; the first change to a
/// clone copies the settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameters {
    /// One per `DEFINITIONS` entry, in the same order.
    pub(super) settings: Arc<Vec<Setting>>,
}

impl Default for Parameters {
    fn default() -> Self {
        Parameters::defaults()
    }
}

impl Parameters {
    /// Every parameter at its default.
    pub fn defaults() -> Parameters {
        let settings = DEFINITIONS
            .iter()
            .map(|definition| Setting {
                value: fixed_default(definition),
                source: Source::Default,
                modification: Modification::No,
                file_value: None,
            })
            .collect();
        let mut parameters = Parameters {
            settings: Arc::new(settings),
        };
        // Derived defaults read the fixed ones, which are all in place now.
        for (index, definition) in DEFINITIONS.iter().enumerate() {
            if let DefaultValue::Derived(derive) = definition.default {
                let value = derive(&parameters);
                Arc::make_mut(&mut parameters.settings)[index].value = value;
            }
        }
        parameters
    }

    /// Sets a parameter from text, as a parameter file line, a `-p` override, `ALTER SYSTEM`
    /// or `ALTER SESSION` would. The text is trimmed and one pair of quotes enclosing all of it
    /// is removed. Nothing changes when it fails.
    pub fn set(&mut self, name: &str, value_text: &str, scope: SetScope) -> Result<()> {
        let index = index_of(name).ok_or_else(|| unknown_parameter(name, scope))?;
        self.assign(index, unquote_whole(value_text.trim()), scope)
    }

    /// `ALTER SYSTEM RESET name SCOPE=...`: back to the default in memory, and/or out of the
    /// parameter file.
    pub fn reset(&mut self, name: &str, scope: AlterSystemScope) -> Result<()> {
        let set_scope = SetScope::AlterSystem { scope };
        let index = index_of(name).ok_or_else(|| unknown_parameter(name, set_scope))?;
        let definition = &DEFINITIONS[index];
        check_modifiable(definition, set_scope)?;
        let default = fixed_default(definition);
        let setting = &mut Arc::make_mut(&mut self.settings)[index];
        if scope != AlterSystemScope::Spfile {
            setting.value = default;
            setting.source = Source::Default;
            setting.modification = Modification::System;
        }
        if scope != AlterSystemScope::Memory {
            setting.file_value = None;
        }
        Ok(())
    }

    /// After `ALTER SYSTEM` changed `name` in `system` (the instance's parameters), brings
    /// this session's copy up to date: only for IMMEDIATE parameters, and not when the
    /// session set its own value with `ALTER SESSION`. Returns whether the value changed.
    pub fn inherit_system_change(&mut self, system: &Parameters, name: &str) -> bool {
        let Some(index) = index_of(name) else {
            return false;
        };
        if DEFINITIONS[index].issys_modifiable != SystemModifiable::Immediate {
            return false;
        }
        let ours = &self.settings[index];
        let theirs = &system.settings[index];
        if ours.modification == Modification::Session
            || (ours.value == theirs.value && ours.source == theirs.source)
        {
            return false;
        }
        let (value, source) = (theirs.value.clone(), theirs.source);
        let setting = &mut Arc::make_mut(&mut self.settings)[index];
        setting.value = value;
        setting.source = source;
        setting.modification = Modification::System;
        true
    }

    /// `inherit_system_change` for every parameter: a session catching up with the ALTER
    /// SYSTEM changes other sessions made since it last looked.
    pub fn inherit_system_changes(&mut self, system: &Parameters) {
        for definition in DEFINITIONS.iter() {
            self.inherit_system_change(system, definition.name);
        }
    }

    /// An Integer parameter's value (a Big integer's too, capped at `i64::MAX`).
    pub fn get_integer(&self, name: &str) -> i64 {
        match self.value_of(name) {
            Some(Value::Integer(number)) => number,
            Some(Value::Bytes(bytes)) => i64::try_from(bytes).unwrap_or(i64::MAX),
            _ => misused_getter(name, "get_integer"),
        }
    }

    /// A Big integer parameter's value in bytes (an Integer's too, as sizes like
    /// `db_block_size` are Oracle Integers).
    pub fn get_bytes(&self, name: &str) -> u64 {
        match self.value_of(name) {
            Some(Value::Bytes(bytes)) => bytes,
            Some(Value::Integer(number)) => u64::try_from(number).unwrap_or(0),
            _ => misused_getter(name, "get_bytes"),
        }
    }

    pub fn get_bool(&self, name: &str) -> bool {
        match self.value_of(name) {
            Some(Value::Boolean(value)) => value,
            _ => misused_getter(name, "get_bool"),
        }
    }

    /// Any parameter's value as `v$parameter.value` shows it (an unset one is empty).
    pub fn get_string(&self, name: &str) -> String {
        match self.value_of(name) {
            Some(value) => value.to_string(),
            None => misused_getter(name, "get_string"),
        }
    }

    /// The current value, `None` for an unknown name.
    pub fn value(&self, name: &str) -> Option<Value> {
        self.value_of(name)
    }

    /// Where the current value came from, `None` for an unknown name.
    pub fn source(&self, name: &str) -> Option<Source> {
        index_of(name).map(|index| self.settings[index].source)
    }

    /// Whether the parameter is at its default (`v$parameter.isdefault`).
    pub fn is_default(&self, name: &str) -> bool {
        self.source(name) == Some(Source::Default)
    }

    /// Whether `ALTER SYSTEM` or `ALTER SESSION` changed it since startup.
    pub fn is_modified(&self, name: &str) -> bool {
        index_of(name).is_some_and(|index| self.settings[index].modification != Modification::No)
    }

    /// Whether `ALTER SESSION` set it in this (a session's) copy: its value is then the
    /// session's own, not the system's it inherits otherwise.
    pub fn is_set_by_session(&self, name: &str) -> bool {
        index_of(name)
            .is_some_and(|index| self.settings[index].modification == Modification::Session)
    }

    /// The number of library cache hash buckets that `_kgl_bucket_count` selects.
    pub fn kgl_bucket_count(&self) -> u64 {
        let index = usize::try_from(self.get_integer(names::KGL_BUCKET_COUNT)).unwrap_or(0);
        KGL_BUCKET_COUNTS[index.min(KGL_BUCKET_COUNTS.len() - 1)]
    }

    /// Every parameter, as `v$parameter` would show it if it showed hidden ones.
    pub fn rows(&self) -> Vec<ParameterRow> {
        DEFINITIONS
            .iter()
            .enumerate()
            .map(|(index, definition)| {
                let setting = &self.settings[index];
                let value = self.current(index);
                ParameterRow {
                    num: index as u32 + 1,
                    name: definition.name,
                    type_code: definition.kind.type_code(),
                    value: value.to_string(),
                    display_value: value.display_value(),
                    isdefault: oracle_bool(setting.source == Source::Default),
                    isses_modifiable: oracle_bool(definition.isses_modifiable),
                    issys_modifiable: definition.issys_modifiable.as_str(),
                    ismodified: setting.modification.as_str(),
                    description: definition.description,
                    hidden: definition.is_hidden(),
                }
            })
            .collect()
    }

    /// The rows `v$parameter` shows: hidden parameters only when set or modified.
    pub fn visible_rows(&self) -> Vec<ParameterRow> {
        self.rows()
            .into_iter()
            .filter(|row| !row.hidden || row.isdefault == "FALSE" || row.ismodified != "FALSE")
            .collect()
    }

    fn value_of(&self, name: &str) -> Option<Value> {
        index_of(name).map(|index| self.current(index))
    }

    fn current(&self, index: usize) -> Value {
        let setting = &self.settings[index];
        match (setting.source, DEFINITIONS[index].default) {
            (Source::Default, DefaultValue::Derived(derive)) => derive(self),
            _ => setting.value.clone(),
        }
    }

    /// Validates `text` (already trimmed and unquoted) for parameter `index` and assigns it.
    pub(super) fn assign(&mut self, index: usize, text: &str, scope: SetScope) -> Result<()> {
        let definition = &DEFINITIONS[index];
        check_modifiable(definition, scope)?;
        let value = parse_value(definition, text)?;
        let setting = &mut Arc::make_mut(&mut self.settings)[index];
        let (in_memory, in_file) = match scope {
            SetScope::InitFile => (Some((Source::InitFile, setting.modification)), true),
            SetScope::CommandLine => (Some((Source::CommandLine, setting.modification)), false),
            SetScope::AlterSystem {
                scope: AlterSystemScope::Memory,
            } => (Some((Source::AlterSystem, Modification::System)), false),
            SetScope::AlterSystem {
                scope: AlterSystemScope::Spfile,
            } => (None, true),
            SetScope::AlterSystem {
                scope: AlterSystemScope::Both,
            } => (Some((Source::AlterSystem, Modification::System)), true),
            SetScope::AlterSession => (Some((Source::AlterSession, Modification::Session)), false),
        };
        if in_file {
            setting.file_value = Some(value.clone());
        }
        if let Some((source, modification)) = in_memory {
            setting.value = value;
            setting.source = source;
            setting.modification = modification;
        }
        Ok(())
    }
}

fn oracle_bool(value: bool) -> &'static str {
    if value {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// A getter called with a name not in the registry, or of another kind: a bug in the caller,
/// which names parameters with the constants in [`names`]. Loud in debug builds; in release
/// the getter returns the zero of its type rather than take the instance down.
fn misused_getter<T: Default>(name: &str, getter: &str) -> T {
    if cfg!(debug_assertions) {
        panic!("{getter}({name:?}): no such parameter of that kind");
    }
    T::default()
}
fn check_modifiable(definition: &Definition, scope: SetScope) -> Result<()> {
    match scope {
        SetScope::AlterSystem {
            scope: AlterSystemScope::Memory | AlterSystemScope::Both,
        } if definition.issys_modifiable == SystemModifiable::False => Err(Error::new(
            2095,
            "specified initialization parameter cannot be modified",
        )),
        SetScope::AlterSession if !definition.isses_modifiable => Err(Error::new(
            2096,
            "specified initialization parameter is not modifiable with this option",
        )),
        _ => Ok(()),
    }
}
