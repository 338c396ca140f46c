//! The views of stored PL/SQL units: dba_source (the source, a row per line),
//! dba_errors (a unit's compilation errors, as `SHOW ERRORS` lists them),
//! dba_dependencies (the objects each unit's source names), dba_procedures and
//! dba_arguments (its subprograms and their parameters, as PL/SQL reads them from the
//! source: `ViewContext::programs`), with their `user_` and `all_` twins; dba_objects lists
//! the units themselves (`dictionary.rs`).

use super::dictionary::rowset;
use super::registry::{Build, View, ViewKind};
use super::{SubprogramInfo, ViewContext};
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
    View {
        name: "DBA_PROCEDURES",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_procedures),
    },
    View {
        name: "DBA_ARGUMENTS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_arguments),
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

/// Each procedure, function and package specification with what PL/SQL reads of its
/// subprograms (none without a describer).
fn described<'a>(
    context: &ViewContext<'a>,
) -> impl Iterator<Item = (&'a ProgramDef, SubprogramInfo)> + 'a {
    let (describer, dictionary) = (context.programs, context.dictionary);
    dictionary.programs.values().flat_map(move |program| {
        describer
            .map(|describer| describer.subprograms(program, dictionary))
            .unwrap_or_default()
            .into_iter()
            .map(move |subprogram| (program.as_ref(), subprogram))
    })
}

/// OVERLOAD: the n-th of a package's subprograms of one name, as text; NULL for one alone.
fn overload(subprogram: &SubprogramInfo) -> Value {
    subprogram
        .overload
        .map_or(Value::Null, |overload| Value::Text(overload.to_string()))
}

fn yes_no(yes: bool) -> Value {
    Value::text(if yes { "YES" } else { "NO" })
}

/// DBA_PROCEDURES: each standalone procedure and function, each package, and each
/// subprogram its specification declares.
fn dba_procedures(context: &ViewContext) -> Result<RowSet> {
    let rows = described(context)
        .map(|(program, subprogram)| {
            vec![
                Value::text(OWNER),
                Value::text(&program.name),
                subprogram.name.as_deref().map_or(Value::Null, Value::text),
                Value::integer(program.object_id as i64),
                Value::integer(subprogram.id as i64),
                overload(&subprogram),
                Value::text(subprogram.object_type),
                yes_no(false),
                yes_no(false),
                yes_no(false),
                yes_no(subprogram.deterministic),
                Value::text(if subprogram.current_user {
                    "CURRENT_USER"
                } else {
                    "DEFINER"
                }),
            ]
        })
        .collect();
    Ok(rowset(
        &[
            ("OWNER", text(128)),
            ("OBJECT_NAME", text(128)),
            ("PROCEDURE_NAME", text(128)),
            ("OBJECT_ID", number()),
            ("SUBPROGRAM_ID", number()),
            ("OVERLOAD", text(40)),
            ("OBJECT_TYPE", text(13)),
            ("AGGREGATE", text(3)),
            ("PIPELINED", text(3)),
            ("PARALLEL", text(3)),
            ("DETERMINISTIC", text(3)),
            ("AUTHID", text(12)),
        ],
        rows,
    ))
}

/// DBA_ARGUMENTS: each parameter of each subprogram, and each function's result (position
/// 0, no name, listed first), in order.
fn dba_arguments(context: &ViewContext) -> Result<RowSet> {
    let mut rows = Vec::new();
    for (program, subprogram) in described(context) {
        let (object_name, package_name) = match &subprogram.name {
            Some(name) => (name.as_str(), Value::text(&program.name)),
            None => (program.name.as_str(), Value::Null),
        };
        for (sequence, argument) in subprogram.arguments.iter().enumerate() {
            rows.push(vec![
                Value::text(OWNER),
                Value::text(object_name),
                package_name.clone(),
                Value::integer(program.object_id as i64),
                overload(&subprogram),
                Value::integer(subprogram.id as i64),
                argument.name.as_deref().map_or(Value::Null, Value::text),
                Value::integer(argument.position as i64),
                Value::integer(sequence as i64 + 1),
                Value::integer(0),
                argument
                    .data_type
                    .as_deref()
                    .map_or(Value::Null, Value::text),
                Value::text(if argument.defaulted { "Y" } else { "N" }),
                Value::text(argument.in_out),
                argument
                    .pls_type
                    .as_deref()
                    .map_or(Value::Null, Value::text),
            ]);
        }
    }
    Ok(rowset(
        &[
            ("OWNER", text(128)),
            ("OBJECT_NAME", text(128)),
            ("PACKAGE_NAME", text(128)),
            ("OBJECT_ID", number()),
            ("OVERLOAD", text(40)),
            ("SUBPROGRAM_ID", number()),
            ("ARGUMENT_NAME", text(128)),
            ("POSITION", number()),
            ("SEQUENCE", number()),
            ("DATA_LEVEL", number()),
            ("DATA_TYPE", text(30)),
            ("DEFAULTED", text(1)),
            ("IN_OUT", text(9)),
            ("PLS_TYPE", text(128)),
        ],
        rows,
    ))
}
