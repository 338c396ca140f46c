//! Stored PL/SQL units in the dictionary: procedures, functions, packages and package
//! bodies, their source, whether they compiled, and their errors; and the invalidation of
//! the units that depend on an object a DDL changes, in the DDL's own transaction.
//!
//! ```text
//!   ['PROGRAM', obj#, name, kind, created, last DDL, valid 0/1, errors]
//!   ['SOURCE',  obj#, piece#, text]      the source in pieces of at most 2000 bytes
//! ```
//!
//! Column by column, with the row codec's type of each:
//!
//! | kind | 1 | 2 | 3 | 4 | 5 | 6 | 7 |
//! |---|---|---|---|---|---|---|---|
//! | `PROGRAM` | obj# NUMBER | name TEXT | kind TEXT (`PROCEDURE`, `FUNCTION`, `PACKAGE`, `PACKAGE BODY`) | created NUMBER (seconds since the epoch) | last DDL NUMBER (seconds since the epoch) | valid NUMBER 1 (VALID) or 0 (INVALID) | errors TEXT (empty when none) |
//! | `SOURCE` | obj# NUMBER | piece# NUMBER (from 0) | text TEXT (at most 2000 bytes) | | | | |
//!
//! The source is the text of CREATE from the kind's keyword (`PROCEDURE p ...`), as
//! `dba_source` shows it, cut into pieces on character boundaries because a unit may be
//! larger than a block holds. The errors are the compiler's, each `line`, a tab,
//! `position`, a tab and the text, separated by U+001E. A unit depends on the objects its
//! source names: every word of it that names a table, view, sequence or stored unit
//! (`referenced`), so that nothing is kept that the source does not already say. A DDL
//! that creates, drops or changes an object marks the valid units naming it INVALID, and so
//! on through the units naming those, before it commits; the next call compiles them again.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::access::heap::RowId;
use crate::error::{Error, Result};
use crate::syntax::ast::ProgramKind;
use crate::types::Value;

use super::ddl::{check_name, DdlContext, DdlStatement};
use super::dict_rows::{integer, optional_integer, text};
use super::{now_seconds, Catalog, Dictionary};

/// The largest source a stored unit may have.
pub const PROGRAM_SOURCE_BYTES_MAX: usize = 1 << 20;
/// The bytes of source a SOURCE row holds.
const SOURCE_PIECE_BYTES: usize = 2000;
/// The bytes of a unit's error text kept.
const ERROR_TEXT_BYTES_MAX: usize = 2000;

/// A compilation error, as `user_errors` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub line: u32,
    pub position: u32,
    pub text: String,
}

/// A stored unit.
#[derive(Debug)]
pub struct ProgramDef {
    pub object_id: u32,
    pub name: String,
    pub kind: ProgramKind,
    /// From the kind's keyword to the end, as written.
    pub source: String,
    pub valid: bool,
    pub errors: Vec<CompileError>,
    pub created: i64,
    pub last_ddl: i64,
    /// The words of the source (upper case): the objects among them are its dependencies.
    pub referenced: BTreeSet<String>,
    pub(super) dictionary_row: RowId,
    pub(super) source_rows: Vec<RowId>,
}

impl ProgramDef {
    /// The objects of `dictionary` the unit depends on, with their kind
    /// (`dba_dependencies`): tables, views, sequences and stored units its source names.
    pub fn dependencies(&self, dictionary: &Dictionary) -> Vec<(String, &'static str)> {
        self.referenced
            .iter()
            .filter(|name| **name != self.name || self.kind == ProgramKind::PackageBody)
            .filter_map(|name| {
                let kind = if dictionary.tables.contains_key(name) {
                    "TABLE"
                } else if dictionary.views.contains_key(name) {
                    "VIEW"
                } else if dictionary.sequences.contains_key(name) {
                    "SEQUENCE"
                } else if let Some(program) = dictionary.programs.get(name) {
                    program.kind.name()
                } else {
                    return None;
                };
                Some((name.clone(), kind))
            })
            .collect()
    }
}

/// What a unit's compilation gave: whether it compiled and its errors.
#[derive(Clone, Debug, Default)]
pub struct Compiled {
    pub valid: bool,
    pub errors: Vec<CompileError>,
}

impl Dictionary {
    /// The stored unit `name` of `kind` (a package body by its package's name).
    pub fn program(&self, name: &str, kind: ProgramKind) -> Option<&Arc<ProgramDef>> {
        let program = match kind {
            ProgramKind::PackageBody => self.bodies.get(name),
            _ => self.programs.get(name),
        }?;
        (program.kind == kind).then_some(program)
    }
}

impl Catalog {
    /// CREATE [OR REPLACE] of a stored unit, stored with what its compilation gave. A
    /// replaced unit keeps its object number and creation time.
    pub fn create_program(
        &self,
        name: &str,
        kind: ProgramKind,
        or_replace: bool,
        source: &str,
        compiled: Compiled,
    ) -> Result<()> {
        check_name(name)?;
        if source.len() > PROGRAM_SOURCE_BYTES_MAX {
            return Err(Error::new(
                6550,
                format!(
                    "line 1, column 1:\nPLS-00123: program too large (more than {PROGRAM_SOURCE_BYTES_MAX} bytes of source)"
                ),
            ));
        }
        self.statement(|statement| {
            let existing = statement.dictionary.program(name, kind).cloned();
            let replaced = match existing {
                Some(program) if or_replace => Some(program),
                Some(_) => return Err(Error::name_in_use()),
                None if kind != ProgramKind::PackageBody
                    && statement.dictionary.name_in_use(name) =>
                {
                    return Err(Error::name_in_use())
                }
                None => None,
            };
            let now = now_seconds();
            let (object_id, created) = match &replaced {
                Some(program) => {
                    statement.delete_program_rows(program)?;
                    (program.object_id, program.created)
                }
                None => (self.next_object_id(), now),
            };
            statement.put_program(ProgramParts {
                object_id,
                name,
                kind,
                source,
                compiled,
                created,
                last_ddl: now,
            })
        })
    }

    /// What ALTER ... COMPILE and a call of an invalid unit found compiling it again.
    pub fn set_program_status(
        &self,
        name: &str,
        kind: ProgramKind,
        compiled: Compiled,
    ) -> Result<()> {
        self.statement(|statement| {
            let program = statement.existing_program(name, kind)?;
            statement.rewrite_program(&program, compiled, now_seconds())
        })
    }

    /// DROP PROCEDURE / FUNCTION / PACKAGE (with its body) / PACKAGE BODY.
    pub fn drop_program(&self, name: &str, kind: ProgramKind) -> Result<()> {
        self.statement(|statement| {
            let program = statement.existing_program(name, kind)?;
            statement.delete_program_rows(&program)?;
            match kind {
                ProgramKind::PackageBody => {
                    statement.dictionary.bodies.remove(name);
                }
                _ => {
                    statement.dictionary.programs.remove(name);
                    if let Some(body) = statement.dictionary.bodies.remove(name) {
                        statement.delete_program_rows(&body)?;
                    }
                }
            }
            Ok(())
        })
    }
}

/// ORA-04043.
pub fn object_not_found(name: &str) -> Error {
    Error::new(4043, format!("object {name} does not exist"))
}

struct ProgramParts<'a> {
    object_id: u32,
    name: &'a str,
    kind: ProgramKind,
    source: &'a str,
    compiled: Compiled,
    created: i64,
    last_ddl: i64,
}

impl DdlStatement<'_> {
    /// The unit `name` of `kind` as the statement sees the dictionary, or ORA-04043.
    fn existing_program(&self, name: &str, kind: ProgramKind) -> Result<Arc<ProgramDef>> {
        self.dictionary
            .program(name, kind)
            .cloned()
            .ok_or_else(|| object_not_found(name))
    }

    /// A unit's rows written again with what a compilation gave: the same source, object
    /// number and creation time.
    fn rewrite_program(
        &mut self,
        program: &ProgramDef,
        compiled: Compiled,
        last_ddl: i64,
    ) -> Result<()> {
        self.delete_program_rows(program)?;
        self.put_program(ProgramParts {
            object_id: program.object_id,
            name: &program.name,
            kind: program.kind,
            source: &program.source,
            compiled,
            created: program.created,
            last_ddl,
        })
    }

    fn delete_program_rows(&mut self, program: &ProgramDef) -> Result<()> {
        self.context.delete(program.dictionary_row)?;
        for row in &program.source_rows {
            self.context.delete(*row)?;
        }
        Ok(())
    }

    fn put_program(&mut self, parts: ProgramParts) -> Result<()> {
        let program = write_program(&mut self.context, parts)?;
        let map = match program.kind {
            ProgramKind::PackageBody => &mut self.dictionary.bodies,
            _ => &mut self.dictionary.programs,
        };
        map.insert(program.name.clone(), Arc::new(program));
        Ok(())
    }

    /// Marks INVALID the valid units that name an object in `changed`, and those naming
    /// them, in the statement's transaction (see the module documentation).
    pub(super) fn invalidate_dependents(&mut self, changed: &BTreeSet<String>) -> Result<()> {
        let mut changed: Vec<String> = changed.iter().cloned().collect();
        let mut done = BTreeSet::new();
        while let Some(name) = changed.pop() {
            if !done.insert(name.clone()) {
                continue;
            }
            let dependents: Vec<Arc<ProgramDef>> = self
                .dictionary
                .programs
                .values()
                .chain(self.dictionary.bodies.values())
                .filter(|program| program.valid && program.referenced.contains(&name))
                .filter(|program| program.name != name || program.kind == ProgramKind::PackageBody)
                .cloned()
                .collect();
            for program in dependents {
                let invalid = Compiled {
                    valid: false,
                    errors: Vec::new(),
                };
                self.rewrite_program(&program, invalid, program.last_ddl)?;
                changed.push(program.name.clone());
            }
        }
        Ok(())
    }
}

/// Writes a unit's PROGRAM and SOURCE rows; returns its definition.
fn write_program(context: &mut DdlContext, parts: ProgramParts) -> Result<ProgramDef> {
    let errors = parts
        .compiled
        .errors
        .iter()
        .map(|error| format!("{}\t{}\t{}", error.line, error.position, error.text))
        .collect::<Vec<_>>()
        .join("\u{1e}");
    let mut errors_text = errors;
    if errors_text.len() > ERROR_TEXT_BYTES_MAX {
        let mut end = ERROR_TEXT_BYTES_MAX;
        while !errors_text.is_char_boundary(end) {
            end -= 1;
        }
        errors_text.truncate(end);
    }
    let row = vec![
        Value::text("PROGRAM"),
        Value::integer(parts.object_id as i64),
        Value::text(parts.name),
        Value::text(parts.kind.name()),
        Value::integer(parts.created),
        Value::integer(parts.last_ddl),
        Value::integer(parts.compiled.valid as i64),
        Value::text(&errors_text),
    ];
    let dictionary_row = context.insert(&row)?;
    let mut source_rows = Vec::new();
    for (piece, text) in pieces(parts.source).enumerate() {
        source_rows.push(context.insert(&[
            Value::text("SOURCE"),
            Value::integer(parts.object_id as i64),
            Value::integer(piece as i64),
            Value::text(text),
        ])?);
    }
    Ok(ProgramDef {
        object_id: parts.object_id,
        name: parts.name.to_string(),
        kind: parts.kind,
        source: parts.source.to_string(),
        valid: parts.compiled.valid,
        errors: parse_errors(&errors_text),
        created: parts.created,
        last_ddl: parts.last_ddl,
        referenced: crate::library_cache::referenced_names(parts.source),
        dictionary_row,
        source_rows,
    })
}

/// The source cut into pieces of at most [`SOURCE_PIECE_BYTES`], on character boundaries.
fn pieces(source: &str) -> impl Iterator<Item = &str> {
    let mut rest = source;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = rest.len().min(SOURCE_PIECE_BYTES);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

fn parse_errors(text: &str) -> Vec<CompileError> {
    text.split('\u{1e}')
        .filter(|entry| !entry.is_empty())
        .filter_map(|entry| {
            let mut fields = entry.splitn(3, '\t');
            Some(CompileError {
                line: fields.next()?.parse().ok()?,
                position: fields.next()?.parse().ok()?,
                text: fields.next()?.to_string(),
            })
        })
        .collect()
}

/// The PROGRAM and SOURCE rows read at open, made into the dictionary's units.
#[derive(Default)]
pub(super) struct ProgramRows {
    programs: Vec<(RowId, Vec<Value>)>,
    sources: std::collections::BTreeMap<u32, Vec<(i128, RowId, String)>>,
}

impl ProgramRows {
    /// Takes the row when it is a PROGRAM or SOURCE row; gives it back otherwise.
    pub(super) fn take(
        &mut self,
        kind: &str,
        rowid: RowId,
        values: Vec<Value>,
    ) -> Result<Option<Vec<Value>>> {
        match kind {
            "PROGRAM" => self.programs.push((rowid, values)),
            "SOURCE" => {
                let object_id = integer(&values, 1)? as u32;
                let piece = integer(&values, 2)?;
                self.sources
                    .entry(object_id)
                    .or_default()
                    .push((piece, rowid, text(&values, 3)?));
            }
            _ => return Ok(Some(values)),
        }
        Ok(None)
    }

    pub(super) fn finish(mut self, dictionary: &mut Dictionary) -> Result<()> {
        for (rowid, values) in self.programs {
            let object_id = integer(&values, 1)? as u32;
            let kind_name = text(&values, 3)?;
            let kind = ProgramKind::from_name(&kind_name)
                .ok_or_else(|| Error::internal(format!("a PROGRAM row of kind {kind_name}")))?;
            let mut pieces = self.sources.remove(&object_id).unwrap_or_default();
            pieces.sort_by_key(|(piece, _, _)| *piece);
            let source: String = pieces.iter().map(|(_, _, text)| text.as_str()).collect();
            let errors_text = values
                .get(7)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let program = ProgramDef {
                object_id,
                name: text(&values, 2)?,
                kind,
                referenced: crate::library_cache::referenced_names(&source),
                source,
                valid: optional_integer(&values, 6)? == Some(1),
                errors: parse_errors(&errors_text),
                created: integer(&values, 4)? as i64,
                last_ddl: integer(&values, 5)? as i64,
                dictionary_row: rowid,
                source_rows: pieces.into_iter().map(|(_, rowid, _)| rowid).collect(),
            };
            let map = match kind {
                ProgramKind::PackageBody => &mut dictionary.bodies,
                _ => &mut dictionary.programs,
            };
            map.insert(program.name.clone(), Arc::new(program));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_pieces_join_back_on_character_boundaries() {
        let source = "é".repeat(SOURCE_PIECE_BYTES) + "end;";
        let cut: Vec<&str> = pieces(&source).collect();
        assert!(cut.len() > 1);
        assert!(cut.iter().all(|piece| piece.len() <= SOURCE_PIECE_BYTES));
        assert_eq!(cut.concat(), source);
        assert_eq!(pieces("").count(), 0);
    }

    #[test]
    fn errors_survive_their_encoding() {
        let errors = vec![
            CompileError {
                line: 3,
                position: 7,
                text: "PLS-00103: Encountered the symbol \"X\" when expecting one of the following:\n\n   ;".to_string(),
            },
            CompileError {
                line: 1,
                position: 1,
                text: "PL/SQL: Statement ignored".to_string(),
            },
        ];
        let encoded = errors
            .iter()
            .map(|error| format!("{}\t{}\t{}", error.line, error.position, error.text))
            .collect::<Vec<_>>()
            .join("\u{1e}");
        assert_eq!(parse_errors(&encoded), errors);
        assert!(parse_errors("").is_empty());
    }
}
