//! The session cursor cache (`session_cached_cursors`): a session's own map from statement
//! text to the parent cursor it parsed, so that a statement parsed again finds its cursor
//! without the 'library cache' latch or a bucket mutex.
//!
//! As in Oracle, a text is cached once the session has parsed it three times
//! ([`PARSES_BEFORE_CACHING`]); until then it is a candidate. At most
//! `session_cached_cursors` texts are cached, the least recently used going first; the
//! candidates are at most [`CANDIDATES_MAX`], forgotten all at once when full. A cached
//! cursor whose handle was aged out or freed is not a hit: the parse goes to the library
//! cache, which reloads it.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::cursor::Handle;
use super::OpenCursor;
use crate::syntax::ast::Statement;

/// Parse calls of a text before the session caches its cursor.
pub const PARSES_BEFORE_CACHING: u32 = 3;

/// Texts a session counts parses of before they are cached.
pub const CANDIDATES_MAX: usize = 256;

struct Entry {
    handle: Arc<Handle>,
    statement: Arc<Statement>,
    parses: u32,
    last_use: u64,
}

#[derive(Default)]
pub struct SessionCursorCache {
    cached: HashMap<Arc<str>, Entry>,
    candidates: HashMap<Arc<str>, Entry>,
    capacity: usize,
    clock: u64,
}

impl SessionCursorCache {
    pub fn new(capacity: usize) -> SessionCursorCache {
        SessionCursorCache {
            capacity,
            ..Default::default()
        }
    }

    /// `session_cached_cursors`.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Cached cursors now (`session cursor cache count`).
    pub fn len(&self) -> usize {
        self.cached.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cached.is_empty()
    }

    /// The cached cursor of `text`, if it is still loaded.
    pub fn lookup(&mut self, text: &str) -> Option<(Arc<Handle>, Arc<Statement>)> {
        let entry = self.cached.get_mut(text)?;
        if !entry.handle.is_loaded() {
            return None;
        }
        self.clock += 1;
        entry.last_use = self.clock;
        entry.parses = entry.parses.saturating_add(1);
        Some((entry.handle.clone(), entry.statement.clone()))
    }

    /// Counts a parse of `text` that went to the library cache; caches it at the third.
    /// Returns how many cursors entered (+) or left (-) the cache.
    pub fn note(&mut self, text: &str, handle: &Arc<Handle>, statement: &Arc<Statement>) -> i64 {
        self.clock += 1;
        if self.capacity == 0 {
            return 0;
        }
        if let Some(entry) = self.cached.get_mut(text) {
            // Reloaded or freed and loaded again: keep the current handle.
            entry.handle = handle.clone();
            entry.statement = statement.clone();
            entry.last_use = self.clock;
            return 0;
        }
        let parses = match self.candidates.get_mut(text) {
            Some(entry) if Arc::ptr_eq(&entry.handle, handle) => {
                entry.parses += 1;
                entry.parses
            }
            _ => {
                if self.candidates.len() >= CANDIDATES_MAX {
                    self.candidates.clear();
                }
                self.candidates.insert(
                    Arc::from(text),
                    Entry {
                        handle: handle.clone(),
                        statement: statement.clone(),
                        parses: 1,
                        last_use: self.clock,
                    },
                );
                1
            }
        };
        if parses < PARSES_BEFORE_CACHING {
            return 0;
        }
        let (key, mut entry) = self.candidates.remove_entry(text).expect("candidate");
        entry.last_use = self.clock;
        let mut change = 1;
        if self.cached.len() >= self.capacity {
            let oldest = self
                .cached
                .iter()
                .min_by_key(|(_, entry)| entry.last_use)
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                self.cached.remove(&oldest);
                change -= 1;
            }
        }
        self.cached.insert(key, entry);
        change
    }

    /// A new capacity (ALTER SESSION SET session_cached_cursors): the least recently used
    /// cursors beyond it go. Returns how many left.
    pub fn resize(&mut self, capacity: usize) -> i64 {
        self.capacity = capacity;
        let mut removed = 0;
        while self.cached.len() > capacity {
            let oldest = self
                .cached
                .iter()
                .min_by_key(|(_, entry)| entry.last_use)
                .map(|(key, _)| key.clone())
                .expect("not empty");
            self.cached.remove(&oldest);
            removed += 1;
        }
        if capacity == 0 {
            self.candidates.clear();
        }
        -removed
    }

    /// Forgets everything (the session ends). Returns how many cursors left.
    pub fn clear(&mut self) -> i64 {
        let count = self.cached.len() as i64;
        self.cached.clear();
        self.candidates.clear();
        -count
    }

    /// The cached cursors, for v$open_cursor.
    pub fn open_cursors(&self) -> Vec<OpenCursor> {
        self.cached
            .values()
            .map(|entry| OpenCursor {
                handle: entry.handle.clone(),
                cursor_type: "SESSION CURSOR CACHED",
            })
            .collect()
    }
}
