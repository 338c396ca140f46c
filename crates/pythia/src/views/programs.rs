//! The views of stored PL/SQL units: dba_source (the source, a row per line),
//! dba_errors (a unit's compilation errors, as `SHOW ERRORS` lists them) and
//! dba_dependencies (the objects each unit's source names), with their `user_` and `all_`
//! twins; dba_objects lists the units themselves (`dictionary.rs`).

use super::dictionary::rowset;
use super::registry::{Build, View, ViewKind};
use super::ViewContext;
use crate::catalog::{ProgramDef, OWNER};
use crate::error::Result;
use crate::types::{DataType, RowSet, Value};

/// The views of this file.
pub(super) const VIEWS: &[View] = &[
    View {
        name: "DBA_SOURCE",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_source),
    },
    View {
        name: "DBA_ERRORS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_errors),
    },
    View {
        name: "DBA_DEPENDENCIES",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_dependencies),
    },
];

fn text(length: u32) -> Option<DataType> {
    Some(DataType::varchar2(length))
}

fn number() -> Option<DataType> {
    Some(DataType::number())
}

/// Every unit: procedures, functions, packages, then package bodies, by name.
fn units<'a>(context: &ViewContext<'a>) -> impl Iterator<Item = &'a ProgramDef> {
    let dictionary = context.dictionary;
    dictionary
        .programs
        .values()
        .chain(dictionary.bodies.values())
        .map(|program| program.as_ref())
}

/// DBA_SOURCE: each line of each unit's source with its newline, as Oracle keeps them.
fn dba_source(context: &ViewContext) -> Result<RowSet> {
    let mut rows = Vec::new();
    for program in units(context) {
        for (number, line) in program.source.split_inclusive('\n').enumerate() {
            rows.push(vec![
                Value::text(OWNER),
                Value::text(&program.name),
                Value::text(program.kind.name()),
                Value::integer(number as i64 + 1),
                Value::text(line),
            ]);
        }
    }
    Ok(rowset(
        &[
            ("OWNER", text(128)),
            ("NAME", text(128)),
            ("TYPE", text(12)),
            ("LINE", number()),
            ("TEXT", text(4000)),
        ],
        rows,
    ))
}

/// DBA_ERRORS: each INVALID unit's errors, in order.
fn dba_errors(context: &ViewContext) -> Result<RowSet> {
    let mut rows = Vec::new();
    for program in units(context) {
        for (sequence, error) in program.errors.iter().enumerate() {
            let message_number = error
                .text
                .strip_prefix("PLS-")
                .or_else(|| error.text.strip_prefix("PL/SQL: ORA-"))
                .and_then(|rest| rest.get(..5))
                .and_then(|digits| digits.parse::<i64>().ok())
                .unwrap_or(0);
            rows.push(vec![
                Value::text(OWNER),
                Value::text(&program.name),
                Value::text(program.kind.name()),
                Value::integer(sequence as i64 + 1),
                Value::integer(error.line as i64),
                Value::integer(error.position as i64),
                Value::text(&error.text),
                Value::text("ERROR"),
                Value::integer(message_number),
            ]);
        }
    }
    Ok(rowset(
        &[
            ("OWNER", text(128)),
            ("NAME", text(128)),
            ("TYPE", text(12)),
            ("SEQUENCE", number()),
            ("LINE", number()),
            ("POSITION", number()),
            ("TEXT", text(4000)),
            ("ATTRIBUTE", text(9)),
            ("MESSAGE_NUMBER", number()),
        ],
        rows,
    ))
}

/// DBA_DEPENDENCIES: for each unit, the objects its source names (`ProgramDef::
/// dependencies`), all HARD dependencies.
fn dba_dependencies(context: &ViewContext) -> Result<RowSet> {
    let mut rows = Vec::new();
    for program in units(context) {
        for (name, kind) in program.dependencies(context.dictionary) {
            rows.push(vec![
                Value::text(OWNER),
                Value::text(&program.name),
                Value::text(program.kind.name()),
                Value::text(OWNER),
                Value::text(name),
                Value::text(kind),
                Value::text("HARD"),
            ]);
        }
    }
    Ok(rowset(
        &[
            ("OWNER", text(128)),
            ("NAME", text(128)),
            ("TYPE", text(18)),
            ("REFERENCED_OWNER", text(128)),
            ("REFERENCED_NAME", text(128)),
            ("REFERENCED_TYPE", text(18)),
            ("DEPENDENCY_TYPE", text(4)),
        ],
        rows,
    ))
}
