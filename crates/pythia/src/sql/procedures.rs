//! The procedures a CALL statement or an anonymous block of calls (`BEGIN p(...); END;`)
//! may name: the DBMS_STATS package (GATHER_TABLE_STATS, GATHER_SCHEMA_STATS,
//! GATHER_INDEX_STATS, DELETE_TABLE_STATS, DELETE_INDEX_STATS, DELETE_SCHEMA_STATS), and
//! DBMS_SHARED_POOL, which `shared_pool_procedures` resolves and runs with the same binding
//! rules (this file's [`bind`]).
//!
//! ```text
//!   ProcedureCall { name, positional args, named args }
//!     resolve(name) ── unknown: ORA-06550 PLS-00201 (PLS-00302 for a package's member)
//!     arguments evaluated (constants, binds, DBMS_STATS.AUTO_SAMPLE_SIZE, ...)
//!     bind: positional in the declared order, then `name => value`; PLS-00306 for too
//!           many, unknown, repeated or missing required parameters
//!     StatisticsCall ── the session runs it (Session::statistics_call)
//! ```
//!
//! Each procedure declares its parameters in Oracle's order, so that positional calls
//! written for Oracle bind the same way; parameters Pythia has no use for (DEGREE,
//! METHOD_OPT, NO_INVALIDATE, ...) are accepted and ignored. Names given as arguments
//! (OWNNAME, TABNAME, INDNAME) are uppercased unless written in double quotes, as
//! DBMS_STATS does. Errors a package raises itself are its own: ORA-20000 for an object
//! that does not exist, ORA-20001 for a bad argument value.

use crate::catalog::OWNER;
use crate::error::{Error, Result};
use crate::sql::gather::SampleSize;
use crate::syntax::ast;
use crate::types::Value;

/// One procedure: its name and its parameters in declared order, the first `required` of
/// them without a default.
pub(super) struct Procedure {
    pub(super) name: &'static str,
    pub(super) parameters: &'static [&'static str],
    pub(super) required: usize,
}

const PACKAGE: &str = "DBMS_STATS";

const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "GATHER_TABLE_STATS",
        parameters: &[
            "OWNNAME",
            "TABNAME",
            "PARTNAME",
            "ESTIMATE_PERCENT",
            "BLOCK_SAMPLE",
            "METHOD_OPT",
            "DEGREE",
            "GRANULARITY",
            "CASCADE",
            "STATTAB",
            "STATID",
            "STATOWN",
            "NO_INVALIDATE",
            "STATTYPE",
            "FORCE",
        ],
        required: 2,
    },
    Procedure {
        name: "GATHER_SCHEMA_STATS",
        parameters: &[
            "OWNNAME",
            "ESTIMATE_PERCENT",
            "BLOCK_SAMPLE",
            "METHOD_OPT",
            "DEGREE",
            "GRANULARITY",
            "CASCADE",
            "STATTAB",
            "STATID",
            "OPTIONS",
            "STATOWN",
            "NO_INVALIDATE",
            "FORCE",
        ],
        required: 1,
    },
    Procedure {
        name: "GATHER_INDEX_STATS",
        parameters: &[
            "OWNNAME",
            "INDNAME",
            "PARTNAME",
            "ESTIMATE_PERCENT",
            "STATTAB",
            "STATID",
            "STATOWN",
            "DEGREE",
            "GRANULARITY",
            "NO_INVALIDATE",
            "FORCE",
        ],
        required: 2,
    },
    Procedure {
        name: "DELETE_TABLE_STATS",
        parameters: &[
            "OWNNAME",
            "TABNAME",
            "PARTNAME",
            "STATTAB",
            "STATID",
            "CASCADE_PARTS",
            "CASCADE_COLUMNS",
            "CASCADE_INDEXES",
            "STATOWN",
            "NO_INVALIDATE",
            "FORCE",
        ],
        required: 2,
    },
    Procedure {
        name: "DELETE_INDEX_STATS",
        parameters: &[
            "OWNNAME",
            "INDNAME",
            "PARTNAME",
            "STATTAB",
            "STATID",
            "CASCADE_PARTS",
            "STATOWN",
            "NO_INVALIDATE",
            "STATTYPE",
            "FORCE",
        ],
        required: 2,
    },
    Procedure {
        name: "DELETE_SCHEMA_STATS",
        parameters: &[
            "OWNNAME",
            "STATTAB",
            "STATID",
            "STATOWN",
            "NO_INVALIDATE",
            "FORCE",
        ],
        required: 1,
    },
];

/// The package's constants an argument may name (`DBMS_STATS.AUTO_SAMPLE_SIZE` is 0 in
/// Oracle too).
fn package_constant(name: &str) -> Option<Value> {
    match name {
        "AUTO_SAMPLE_SIZE" => Some(Value::integer(0)),
        "AUTO_CASCADE" => Some(Value::Boolean(true)),
        "AUTO_DEGREE" | "AUTO_INVALIDATE" | "DEFAULT_DEGREE" => Some(Value::Null),
        _ => None,
    }
}

/// What a resolved DBMS_STATS call asks of the session.
#[derive(Clone, Debug, PartialEq)]
pub enum StatisticsCall {
    GatherTable {
        table: String,
        sample: SampleSize,
        cascade: bool,
    },
    GatherSchema {
        sample: SampleSize,
        cascade: bool,
    },
    GatherIndex {
        index: String,
        sample: SampleSize,
    },
    DeleteTable {
        table: String,
    },
    DeleteIndex {
        index: String,
    },
    DeleteSchema,
}

/// ORA-06550 with a PLS- error, as Oracle reports a block that does not compile.
pub(super) fn pls(message: String) -> Error {
    Error::new(6550, format!("line 1, column 7:\n{message}"))
}

/// The procedure `name` names; ORA-06550 (PLS-00201 / PLS-00302) when there is none.
fn resolve(name: &str) -> Result<&'static Procedure> {
    let Some((package, member)) = name.split_once('.') else {
        return Err(pls(format!(
            "PLS-00201: identifier '{name}' must be declared"
        )));
    };
    let package = package.strip_prefix("SYS.").unwrap_or(package);
    let (package, member) = match member.split_once('.') {
        // SYS.DBMS_STATS.GATHER_TABLE_STATS
        Some((inner, last)) if package == "SYS" => (inner, last),
        _ => (package, member),
    };
    if package != PACKAGE {
        return Err(pls(format!(
            "PLS-00201: identifier '{package}.{member}' must be declared"
        )));
    }
    PROCEDURES
        .iter()
        .find(|procedure| procedure.name == member)
        .ok_or_else(|| pls(format!("PLS-00302: component '{member}' must be declared")))
}

/// Checks that `name` is a known procedure (before its arguments are evaluated).
pub fn check_procedure(name: &str) -> Result<()> {
    if super::shared_pool_procedures::names_package(name) {
        return super::shared_pool_procedures::check_procedure(name);
    }
    resolve(name).map(|_| ())
}

/// The value of an argument that names a package constant (`DBMS_STATS.AUTO_SAMPLE_SIZE`),
/// None for any other expression (the caller evaluates it).
pub fn constant_argument(expr: &ast::Expr) -> Option<Result<Value>> {
    let ast::Expr::Column {
        schema: None,
        table: Some(package),
        name,
    } = expr
    else {
        return None;
    };
    if package != PACKAGE {
        return None;
    }
    Some(
        package_constant(name)
            .ok_or_else(|| pls(format!("PLS-00302: component '{name}' must be declared"))),
    )
}

/// Binds evaluated arguments to the procedure's parameters and says what to do.
pub fn statistics_call(
    name: &str,
    positional: Vec<Value>,
    named: Vec<(String, Value)>,
) -> Result<StatisticsCall> {
    let procedure = resolve(name)?;
    let arguments = bind(procedure, positional, named)?;
    let argument = |parameter: &str| -> &Value {
        let position = procedure
            .parameters
            .iter()
            .position(|declared| *declared == parameter)
            .expect("a declared parameter");
        &arguments[position]
    };
    let owner = object_name(argument("OWNNAME"), "OWNNAME")?.unwrap_or_else(|| OWNER.into());
    let object = |parameter: &str, kind: &str| -> Result<String> {
        let name = object_name(argument(parameter), parameter)?.ok_or_else(|| {
            Error::new(
                20000,
                format!("Unable to analyze {kind}: {parameter} is NULL"),
            )
        })?;
        if owner != OWNER {
            return Err(not_found(kind, &owner, &name));
        }
        Ok(name)
    };
    Ok(match procedure.name {
        "GATHER_TABLE_STATS" => StatisticsCall::GatherTable {
            table: object("TABNAME", "TABLE")?,
            sample: sample_size(argument("ESTIMATE_PERCENT"))?,
            cascade: flag(argument("CASCADE"), "CASCADE")?.unwrap_or(true),
        },
        "GATHER_SCHEMA_STATS" | "DELETE_SCHEMA_STATS" => {
            if owner != OWNER {
                return Err(Error::new(
                    20000,
                    format!("Schema \"{owner}\" does not exist or insufficient privileges"),
                ));
            }
            if procedure.name == "DELETE_SCHEMA_STATS" {
                return Ok(StatisticsCall::DeleteSchema);
            }
            StatisticsCall::GatherSchema {
                sample: sample_size(argument("ESTIMATE_PERCENT"))?,
                cascade: flag(argument("CASCADE"), "CASCADE")?.unwrap_or(true),
            }
        }
        "GATHER_INDEX_STATS" => StatisticsCall::GatherIndex {
            index: object("INDNAME", "INDEX")?,
            sample: sample_size(argument("ESTIMATE_PERCENT"))?,
        },
        "DELETE_TABLE_STATS" => StatisticsCall::DeleteTable {
            table: object("TABNAME", "TABLE")?,
        },
        "DELETE_INDEX_STATS" => StatisticsCall::DeleteIndex {
            index: object("INDNAME", "INDEX")?,
        },
        other => return Err(Error::internal(format!("procedure {other} has no body"))),
    })
}

/// ORA-20000 as DBMS_STATS reports an object it cannot find.
pub fn not_found(kind: &str, owner: &str, name: &str) -> Error {
    Error::new(
        20000,
        format!("Unable to analyze {kind} \"{owner}\".\"{name}\", insufficient privileges or does not exist"),
    )
}

/// Arguments in declared order (NULL where not given). PLS-00306 for too many positional
/// arguments, an unknown or repeated name, or a required parameter left out.
pub(super) fn bind(
    procedure: &Procedure,
    positional: Vec<Value>,
    named: Vec<(String, Value)>,
) -> Result<Vec<Value>> {
    let wrong = || {
        pls(format!(
            "PLS-00306: wrong number or types of arguments in call to '{}'",
            procedure.name
        ))
    };
    if positional.len() > procedure.parameters.len() {
        return Err(wrong());
    }
    let mut given = vec![false; procedure.parameters.len()];
    let mut arguments = vec![Value::Null; procedure.parameters.len()];
    for (position, value) in positional.into_iter().enumerate() {
        given[position] = true;
        arguments[position] = value;
    }
    for (name, value) in named {
        let position = procedure
            .parameters
            .iter()
            .position(|parameter| *parameter == name)
            .ok_or_else(wrong)?;
        if given[position] {
            return Err(wrong());
        }
        given[position] = true;
        arguments[position] = value;
    }
    if given[..procedure.required].iter().any(|given| !given) {
        return Err(wrong());
    }
    Ok(arguments)
}

/// A name argument: uppercased unless in double quotes; None for NULL.
pub(super) fn object_name(value: &Value, parameter: &str) -> Result<Option<String>> {
    match value {
        Value::Null => Ok(None),
        Value::Text(text) => {
            let text = text.trim();
            Ok(Some(
                match text
                    .strip_prefix('"')
                    .and_then(|rest| rest.strip_suffix('"'))
                {
                    Some(quoted) => quoted.to_string(),
                    None => text.to_uppercase(),
                },
            ))
        }
        other => Err(Error::new(
            20001,
            format!("Invalid {parameter}: {other} is not a name"),
        )),
    }
}

/// ESTIMATE_PERCENT: NULL, 0 (AUTO_SAMPLE_SIZE) and 100 read everything; otherwise a
/// percent above 0 and at most 100 (ORA-20001 beyond).
fn sample_size(value: &Value) -> Result<SampleSize> {
    let percent = match value {
        Value::Null => return Ok(SampleSize::All),
        Value::Number(number) => number.to_string().parse::<f64>().unwrap_or(-1.0),
        Value::Float(float) => *float,
        other => {
            return Err(Error::new(
                20001,
                format!("Invalid Estimate Percent: {other}"),
            ))
        }
    };
    if percent == 0.0 || percent == 100.0 {
        return Ok(SampleSize::All);
    }
    if !(0.000001..=100.0).contains(&percent) {
        return Err(Error::new(
            20001,
            format!("Invalid Estimate Percent: {value} (it must be between 0.000001 and 100)"),
        ));
    }
    Ok(SampleSize::Percent(percent))
}

/// A BOOLEAN argument (CASCADE); None for NULL.
pub(super) fn flag(value: &Value, parameter: &str) -> Result<Option<bool>> {
    match value {
        Value::Null => Ok(None),
        Value::Boolean(flag) => Ok(Some(*flag)),
        other => Err(Error::new(
            20001,
            format!("Invalid {parameter}: {other} is not TRUE or FALSE"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_bind_by_position_then_by_name() {
        let call = statistics_call(
            "DBMS_STATS.GATHER_TABLE_STATS",
            vec![Value::text("system")],
            vec![
                ("TABNAME".into(), Value::text("t")),
                ("ESTIMATE_PERCENT".into(), Value::integer(10)),
                ("CASCADE".into(), Value::Boolean(false)),
            ],
        )
        .unwrap();
        assert_eq!(
            call,
            StatisticsCall::GatherTable {
                table: "T".into(),
                sample: SampleSize::Percent(10.0),
                cascade: false
            }
        );
        let quoted = statistics_call(
            "SYS.DBMS_STATS.DELETE_TABLE_STATS",
            vec![Value::Null, Value::text("\"Mixed\"")],
            vec![],
        )
        .unwrap();
        assert_eq!(
            quoted,
            StatisticsCall::DeleteTable {
                table: "Mixed".into()
            }
        );
    }

    #[test]
    fn bad_calls_are_pls_errors_and_bad_values_ora_20001() {
        let code = |name: &str, positional: Vec<Value>, named: Vec<(&str, Value)>| {
            statistics_call(
                name,
                positional,
                named
                    .into_iter()
                    .map(|(name, value)| (name.to_string(), value))
                    .collect(),
            )
            .unwrap_err()
        };
        let error = code("NO_SUCH_PROC", vec![], vec![]);
        assert_eq!(error.code(), 6550);
        assert!(error.message().contains("PLS-00201"), "{error}");
        let error = code("DBMS_STATS.GATHER_NOTHING", vec![], vec![]);
        assert!(error.message().contains("PLS-00302"), "{error}");
        let error = code(
            "DBMS_STATS.GATHER_TABLE_STATS",
            vec![Value::text("SYSTEM")],
            vec![],
        );
        assert!(error.message().contains("PLS-00306"), "{error}");
        let error = code(
            "DBMS_STATS.GATHER_TABLE_STATS",
            vec![Value::text("SYSTEM"), Value::text("T")],
            vec![("TABNAME", Value::text("U"))],
        );
        assert!(error.message().contains("PLS-00306"), "{error}");
        let error = code(
            "DBMS_STATS.GATHER_TABLE_STATS",
            vec![Value::text("SYSTEM"), Value::text("T")],
            vec![("ESTIMATE_PERCENT", Value::integer(101))],
        );
        assert_eq!(error.code(), 20001);
        let error = code(
            "DBMS_STATS.GATHER_TABLE_STATS",
            vec![Value::text("SCOTT"), Value::text("T")],
            vec![],
        );
        assert_eq!(error.code(), 20000);
    }
}
