//! The parse call: a statement's text to its parent cursor.
//!
//! ```text
//!   parse(text, may_force)
//!     CURSOR_SHARING=FORCE ── literals replaced by system binds (syntax::lexer::force_text)
//!     session cursor cache ── hit: no library cache latch ('session cursor cache hits')
//!     library cache        ── found: a soft parse; else the parser builds the tree and a new
//!                             parent cursor is loaded (the hard parse itself is the child's
//!                             first execution, `Session::run`)
//! ```
//!
//! The dependencies a cursor records (the objects its text names, at most
//! `DEPENDENCIES_MAX`) are what DDL invalidates it by.

use super::users;
use super::ParsedCursor;
use super::Session;
use crate::catalog::Dictionary;
use crate::error::Result;
use crate::instrumentation::{self, Statistic, TimeModelStatistic};
use crate::library_cache::cursor_sharing;
use crate::syntax::parser;
use crate::types::Value;

/// The most object names a cursor records as its dependencies.
pub const DEPENDENCIES_MAX: usize = 1024;

impl Session {
    /// A parse call: the parent cursor of `sql` (after CURSOR_SHARING=FORCE replaced its
    /// literals, when `may_force`: not for a statement executed with binds of its own),
    /// from the session cursor cache, the library cache, or the parser.
    pub(super) fn parse(&mut self, sql: &str, may_force: bool) -> Result<ParsedCursor> {
        if let Some((text, passwords)) = users::hide_password(sql) {
            // The password travels as the statement's own bind: no cursor keeps it.
            return self.parse_text(&text, passwords.into_iter().map(Value::text).collect());
        }
        if !(self.settings.force_literals && may_force) {
            return self.parse_text(sql, Vec::new());
        }
        let mut text = std::mem::take(&mut self.forced_text);
        let mut binds = std::mem::take(&mut self.forced_binds);
        let parsed = if cursor_sharing::force_literals_into(sql, &mut text, &mut binds) {
            match self.parse_text(&text, binds) {
                // What FORCE made of the text does not parse (a literal where the grammar
                // wants one): the statement is parsed as written, which reports its own
                // errors.
                Err(_) => self.parse_text(sql, Vec::new()),
                parsed => parsed,
            }
        } else {
            self.parse_text(sql, Vec::new())
        };
        self.forced_text = text;
        parsed
    }

    /// The parse call for `text` as it will be hashed (`forced_binds`: the values of the
    /// literals FORCE replaced in it).
    pub(super) fn parse_text(
        &mut self,
        text: &str,
        forced_binds: Vec<Value>,
    ) -> Result<ParsedCursor> {
        instrumentation::add(Statistic::ParseCountTotal, 1);
        let library_cache = self.instance.library_cache();
        if let Some((handle, statement)) = self.cursor_cache.lookup(text) {
            instrumentation::add(Statistic::SessionCursorCacheHits, 1);
            library_cache.count_cached_get(&handle);
            return Ok(ParsedCursor {
                handle,
                statement,
                forced_binds,
            });
        }
        // Only loads are timed: a soft parse costs less than two reads of the thread's CPU
        // clock would.
        let parsed = library_cache.get(text, self.sid(), || {
            let _timed = instrumentation::timed(TimeModelStatistic::ParseTimeElapsed);
            let _hard = instrumentation::timed(TimeModelStatistic::HardParseElapsedTime);
            let (statement, bytes) = instrumentation::heap::measure(|| parser::parse(text));
            match statement {
                Ok(statement) => Ok((statement, bytes.unwrap_or(text.len() as u64 * 8))),
                Err(error) => {
                    instrumentation::add(Statistic::ParseCountFailures, 1);
                    Err(error)
                }
            }
        })?;
        let change = self
            .cursor_cache
            .note(text, &parsed.handle, &parsed.statement);
        self.cursor_cache_changed(change);
        Ok(ParsedCursor {
            handle: parsed.handle,
            statement: parsed.statement,
            forced_binds,
        })
    }

    /// After cursors entered or left the session cursor cache: its statistic and
    /// v$open_cursor.
    pub(super) fn cursor_cache_changed(&self, change: i64) {
        if change == 0 {
            return;
        }
        if change > 0 {
            instrumentation::add(Statistic::SessionCursorCacheCount, change as u64);
        } else {
            instrumentation::subtract(Statistic::SessionCursorCacheCount, change.unsigned_abs());
        }
        self.instance
            .library_cache()
            .set_open_cursors(self.sid(), self.cursor_cache.open_cursors());
    }

    /// The objects a statement depends on: the names its text uses, and through each view
    /// among them, the names of the view's query (so DDL on a view's table invalidates the
    /// statement). Past `DEPENDENCIES_MAX` names the list ends with
    /// `library_cache::ANY_OBJECT`: any DDL then invalidates the statement.
    pub(super) fn dependencies(&self, text: &str, dictionary: &Dictionary) -> Vec<String> {
        let mut names = crate::library_cache::referenced_names(text);
        let mut views: Vec<String> = names
            .iter()
            .filter(|name| dictionary.views.contains_key(*name))
            .cloned()
            .collect();
        let mut expanded = std::collections::BTreeSet::new();
        let mut capped = false;
        while let Some(view) = views.pop() {
            if names.len() >= DEPENDENCIES_MAX {
                capped = true;
                break;
            }
            if !expanded.insert(view.clone()) {
                continue;
            }
            if let Some(definition) = dictionary.views.get(&view) {
                for name in crate::library_cache::referenced_names(&definition.ddl) {
                    if dictionary.views.contains_key(&name) {
                        views.push(name.clone());
                    }
                    names.insert(name);
                }
            }
        }
        let mut names: Vec<String> = names.into_iter().collect();
        if capped || names.len() > DEPENDENCIES_MAX {
            names.truncate(DEPENDENCIES_MAX);
            names.push(crate::library_cache::ANY_OBJECT.to_string());
        }
        names
    }
}
