//! A session's settings: its copy of the parameters (ALTER SESSION), ALTER SYSTEM, the
//! PostgreSQL clients' SET and SHOW, and `StatementSettings`, what every statement reads of
//! the parameters, derived again only when they change.

use super::client_settings::{self, ClientSettings};
use super::{Column, Session, StatementResult};
use crate::error::Result;
use crate::instance::Instance;
use crate::parameters::{AlterSystemScope, Parameters, SetScope};
use crate::sql::optimizer::OptimizerEnvironment;
use crate::syntax::ast;
use crate::transaction::commit::CommitSetting;
use crate::types::{DataType, Value};

/// The parameters every statement reads, as values.
#[derive(Clone, Copy, Debug)]
pub(super) struct StatementSettings {
    /// `pga_aggregate_limit`: a statement's work areas (`query::WorkArea`).
    pub(super) pga_aggregate_limit: u64,
    pub(super) optimizer: OptimizerEnvironment,
    /// A digest of `optimizer`: sessions share a child cursor only with the same one.
    pub(super) environment: u64,
    /// `cursor_sharing = FORCE`.
    pub(super) force_literals: bool,
    /// `session_cached_cursors`.
    pub(super) session_cached_cursors: usize,
    /// `db_file_multiblock_read_count`: blocks per I/O of a full scan.
    pub(super) multiblock_read_count: usize,
    /// `statement_timeout`: the longest a query or DML statement may run.
    pub(super) statement_timeout: Option<std::time::Duration>,
    /// `commit_wait` and `commit_logging` as the session set them itself (unset otherwise)...
    pub(super) commit_session: CommitSetting,
    /// ... and as the system did: a COMMIT's options are decided from both.
    pub(super) commit_system: CommitSetting,
}

impl StatementSettings {
    pub(super) fn of(parameters: &Parameters, instance: &Instance) -> StatementSettings {
        use crate::parameters::names;
        let optimizer = OptimizerEnvironment::from_parameters(
            parameters,
            instance.catalog().storage().cache.block_size(),
        );
        let commit_setting = |parameters: &Parameters, own_only: bool| {
            let value = |name| {
                if own_only && !parameters.is_set_by_session(name) {
                    String::new()
                } else {
                    parameters.get_string(name)
                }
            };
            CommitSetting::from_parameters(
                &value(names::COMMIT_WAIT),
                &value(names::COMMIT_LOGGING),
            )
        };
        StatementSettings {
            pga_aggregate_limit: parameters.get_bytes(names::PGA_AGGREGATE_LIMIT),
            environment: optimizer.digest(),
            optimizer,
            force_literals: parameters.get_string(names::CURSOR_SHARING) == "FORCE",
            session_cached_cursors: parameters.get_integer(names::SESSION_CACHED_CURSORS) as usize,
            multiblock_read_count: parameters.get_integer(names::DB_FILE_MULTIBLOCK_READ_COUNT)
                as usize,
            statement_timeout: match parameters.get_integer(names::STATEMENT_TIMEOUT) {
                0 => None,
                milliseconds => Some(std::time::Duration::from_millis(milliseconds as u64)),
            },
            commit_session: commit_setting(parameters, true),
            commit_system: commit_setting(&instance.parameters(), false),
        }
    }
}

/// A parameter value as the parameter registry reads it.
pub(super) fn parameter_text(value: &ast::ParameterValue) -> String {
    match value {
        ast::ParameterValue::Number(text)
        | ast::ParameterValue::String(text)
        | ast::ParameterValue::Identifier(text)
        | ast::ParameterValue::Size(text)
        | ast::ParameterValue::List(text) => text.clone(),
    }
}

impl Session {
    /// Catches up with ALTER SYSTEM changes other sessions made (immediate parameters this
    /// session did not set itself), as Oracle's sessions do.
    pub(super) fn inherit_system_changes(&mut self) {
        let generation = self.instance.parameters_generation();
        if generation != self.parameters_generation {
            self.parameters
                .inherit_system_changes(&self.instance.parameters());
            self.parameters_generation = generation;
            self.parameters_changed();
        }
    }

    /// After a change of the session's parameters: kept plans are made again, and the
    /// settings statements read are derived again.
    pub(super) fn parameters_changed(&mut self) {
        self.settings = StatementSettings::of(&self.parameters, &self.instance);
        if self.settings.session_cached_cursors != self.cursor_cache.capacity() {
            let change = self
                .cursor_cache
                .resize(self.settings.session_cached_cursors);
            self.cursor_cache_changed(change);
        }
    }

    /// PostgreSQL's `SET name = value`: a Pythia parameter for the session (as ALTER
    /// SESSION; `statement_timeout` also in PostgreSQL's units, `'5s'`), else one of
    /// PostgreSQL's client settings, kept for SHOW (`sql::client_settings`).
    pub(super) fn set_setting(
        &mut self,
        name: &str,
        value: &ast::ParameterValue,
    ) -> Result<StatementResult> {
        use crate::parameters::{definition, names};
        let name = name.to_lowercase();
        let text = parameter_text(value);
        if definition(&name).is_none() && ClientSettings::takes(&name) {
            // PostgreSQL folds an unquoted word to lower case, as it does names.
            let text = match value {
                ast::ParameterValue::Identifier(word) => word.to_lowercase(),
                _ => text,
            };
            self.client_settings.set(&name, &text)?;
        } else {
            let text = match client_settings::milliseconds(&text) {
                Some(milliseconds) if name == names::STATEMENT_TIMEOUT => milliseconds.to_string(),
                _ => text,
            };
            let set = self.parameters.set(&name, &text, SetScope::AlterSession);
            self.parameters_changed();
            set?;
        }
        Ok(StatementResult::done("SET"))
    }

    /// PostgreSQL's `SHOW name`: one row, one column named after the setting (a Pythia
    /// parameter's value as v$parameter shows it, or a client setting's); `SHOW ALL`: every
    /// one, as rows of (name, setting). An unknown name is ALTER SESSION's error for it.
    pub(super) fn show_setting(&self, name: &str) -> Result<StatementResult> {
        use crate::parameters::{definition, unknown_parameter, DEFINITIONS};
        let name = name.to_lowercase();
        let parameter = |name: &str| {
            self.parameters
                .value(name)
                .map_or_else(String::new, |value| value.display_value())
        };
        let text = Some(DataType::varchar2(4000));
        let (columns, rows) = if name == "all" {
            let mut rows: Vec<(String, String)> = DEFINITIONS
                .iter()
                .filter(|definition| !definition.is_hidden())
                .map(|definition| (definition.name.to_string(), parameter(definition.name)))
                .collect();
            rows.extend(self.client_settings.all());
            rows.sort();
            let rows = rows
                .into_iter()
                .map(|(name, value)| vec![Value::text(name), Value::text(value)])
                .collect();
            (vec![("NAME", text), ("SETTING", text)], rows)
        } else {
            let value = match definition(&name) {
                Some(_) => parameter(&name),
                None => self
                    .client_settings
                    .get(&name)
                    .ok_or_else(|| unknown_parameter(&name, SetScope::AlterSession))?,
            };
            (vec![(name.as_str(), text)], vec![vec![Value::text(value)]])
        };
        let columns = columns
            .into_iter()
            .map(|(name, data_type)| Column {
                name: name.to_string(),
                data_type,
            })
            .collect();
        Ok(StatementResult::query(columns, rows))
    }

    pub(super) fn alter_system(
        &mut self,
        action: &ast::AlterSystemAction,
    ) -> Result<StatementResult> {
        match action {
            ast::AlterSystemAction::Set {
                name,
                values,
                scope,
                ..
            } => {
                let value = values
                    .iter()
                    .map(parameter_text)
                    .collect::<Vec<_>>()
                    .join(",");
                let scope = match scope {
                    None | Some(ast::ParameterScope::Both) => AlterSystemScope::Both,
                    Some(ast::ParameterScope::Memory) => AlterSystemScope::Memory,
                    Some(ast::ParameterScope::Spfile) => AlterSystemScope::Spfile,
                };
                let name = name.to_lowercase();
                self.instance.alter_system_set(&name, &value, scope)?;
                self.parameters
                    .inherit_system_change(&self.instance.parameters(), &name);
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::Checkpoint { .. } => {
                self.instance.checkpoint()?;
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::SwitchLogfile => {
                self.instance.switch_logfile()?;
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::FlushBufferCache => {
                self.instance.cache().flush()?;
                Ok(StatementResult::done("System altered."))
            }
            ast::AlterSystemAction::FlushSharedPool => {
                self.instance.library_cache().flush();
                Ok(StatementResult::done("System altered."))
            }
        }
    }
}
