//! What dba_procedures and dba_arguments show of a stored unit, read from its source: its
//! subprograms (a standalone unit is one; a package is itself, then each subprogram its
//! specification declares, overloads numbered), and each one's parameters and result with
//! the types written (a `table.column%TYPE` resolved through the dictionary). A unit whose
//! source does not parse has no rows, as an INVALID unit that never compiled has none in
//! Oracle.

use crate::catalog::{data_type_from_ast, Dictionary, ProgramDef};
use crate::plsql::ast::{Declaration, Mode, Parameter, Program, Subprogram, TypeName};
use crate::plsql::parse_program;
use crate::views::{ArgumentInfo, SubprogramInfo};

/// The rows of `program` (a procedure, function or package specification).
pub fn describe_program(program: &ProgramDef, dictionary: &Dictionary) -> Vec<SubprogramInfo> {
    let Ok(parsed) = parse_program(&program.source) else {
        return Vec::new();
    };
    match parsed {
        Program::Subprogram { subprogram, .. } => {
            vec![subprogram_info(&subprogram, None, 1, None, dictionary)]
        }
        Program::Package {
            current_user,
            declarations,
            ..
        } => {
            let subprograms: Vec<&Subprogram> = declarations
                .iter()
                .filter_map(|declaration| match declaration {
                    Declaration::Subprogram(subprogram) => Some(subprogram.as_ref()),
                    _ => None,
                })
                .collect();
            let mut rows = vec![SubprogramInfo {
                name: None,
                id: 0,
                overload: None,
                object_type: "PACKAGE",
                deterministic: false,
                current_user,
                arguments: Vec::new(),
            }];
            for (index, subprogram) in subprograms.iter().enumerate() {
                let same_name = |other: &&&Subprogram| other.name == subprogram.name;
                let overload = (subprograms.iter().filter(same_name).count() > 1)
                    .then(|| subprograms[..=index].iter().filter(same_name).count() as u32);
                rows.push(subprogram_info(
                    subprogram,
                    Some(subprogram.name.clone()),
                    index as u32 + 1,
                    overload,
                    dictionary,
                ));
            }
            rows
        }
        Program::PackageBody { .. } => Vec::new(),
    }
}

fn subprogram_info(
    subprogram: &Subprogram,
    name: Option<String>,
    id: u32,
    overload: Option<u32>,
    dictionary: &Dictionary,
) -> SubprogramInfo {
    let mut arguments = Vec::new();
    if let Some(returns) = &subprogram.returns {
        let (data_type, pls_type) = type_names(returns, dictionary);
        arguments.push(ArgumentInfo {
            name: None,
            position: 0,
            data_type,
            pls_type,
            in_out: "OUT",
            defaulted: false,
        });
    }
    for (index, parameter) in subprogram.parameters.iter().enumerate() {
        arguments.push(argument(parameter, index as u32 + 1, dictionary));
    }
    SubprogramInfo {
        name,
        id,
        overload,
        object_type: if subprogram.returns.is_some() {
            "FUNCTION"
        } else {
            "PROCEDURE"
        },
        deterministic: subprogram.deterministic,
        current_user: subprogram.current_user,
        arguments,
    }
}

fn argument(parameter: &Parameter, position: u32, dictionary: &Dictionary) -> ArgumentInfo {
    let (data_type, pls_type) = type_names(&parameter.type_name, dictionary);
    ArgumentInfo {
        name: Some(parameter.name.clone()),
        position,
        data_type,
        pls_type,
        in_out: parameter.mode.name(),
        defaulted: parameter.default.is_some() && parameter.mode == Mode::In,
    }
}

/// DATA_TYPE and PLS_TYPE of a type as written.
fn type_names(type_name: &TypeName, dictionary: &Dictionary) -> (Option<String>, Option<String>) {
    let both = |name: &str| (Some(name.to_string()), Some(name.to_string()));
    match type_name {
        TypeName::Sql(crate::syntax::ast::DataType::Boolean) => (
            Some("PL/SQL BOOLEAN".to_string()),
            Some("BOOLEAN".to_string()),
        ),
        TypeName::Sql(crate::syntax::ast::DataType::Integer) => {
            (Some("NUMBER".to_string()), Some("INTEGER".to_string()))
        }
        TypeName::Sql(data_type) => match data_type_from_ast(data_type) {
            Ok(data_type) => both(data_type.name()),
            Err(_) => (None, None),
        },
        TypeName::PlsInteger => (
            Some("PL/SQL PLS INTEGER".to_string()),
            Some("PLS_INTEGER".to_string()),
        ),
        TypeName::TypeOf(parts) => {
            let column = match parts.as_slice() {
                [table, column] => dictionary
                    .tables
                    .get(table)
                    .and_then(|table| table.column(column).map(|at| table.columns[at].data_type)),
                _ => None,
            };
            column.map_or((None, None), |data_type| both(data_type.name()))
        }
        TypeName::RowTypeOf(_) => (Some("PL/SQL RECORD".to_string()), None),
        TypeName::Named(_) => (None, None),
    }
}
