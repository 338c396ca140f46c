//! DBMS_SHARED_POOL: KEEP, UNKEEP, PURGE, MARKHOT and UNMARKHOT, with Oracle's parameter
//! names, order and defaults, bound by the rules of DBMS_STATS's calls
//! (`procedures::bind`: positional first, then `name => value`; PLS-00306 when they do not
//! fit).
//!
//! ```text
//!   KEEP(name, flag => 'P')          UNKEEP(name, flag => 'P')
//!   PURGE(name, flag => 'P', heaps => 1)
//!   MARKHOT(schema, objname, namespace => 1, global => TRUE)     the object overload
//!   MARKHOT(hash, namespace => 1, global => TRUE)                the hash overload
//!   UNMARKHOT: the same two overloads
//! ```
//!
//! What a call does:
//! - A cursor is named, as Oracle names it, by `'address,hash_value'` (v$sqlarea's ADDRESS
//!   and HASH_VALUE; spaces around the comma are allowed, as Oracle's examples write
//!   `'0034CDFF, 20348871'`), by its sql_id, or by its full hash value. FLAG says it is a
//!   cursor: Oracle takes any flag but P, T, R, Q and the Java flags (JS, JC, JR, JD) for a
//!   cursor, 'C' by custom. KEEP and UNKEEP go to `LibraryCache::keep`, PURGE to
//!   `LibraryCache::purge` (every heap: HEAPS is accepted and not needed, Pythia frees a
//!   cursor whole); a cursor that is not in the library cache is the library cache's
//!   ORA-06502.
//! - FLAG 'P' (the default) names a package, procedure or function: Pythia has only its
//!   built-in packages (DBMS_STATS, DBMS_SHARED_POOL, STANDARD), part of the engine and never
//!   aged out, so keeping or purging one is accepted and changes nothing. 'Q' names a
//!   sequence: accepted when the dictionary has it (Pythia's sequences live in the
//!   dictionary, not in the library cache, so there is nothing to keep). Any other object,
//!   and 'T', 'R' and the Java flags (Pythia has no types, triggers or Java), is ORA-06564.
//! - MARKHOT with a hash marks the cursor of that full hash value (32 hexadecimal digits,
//!   else the library cache's ORA-06502), loaded or not yet: sessions then use its
//!   `_kgl_hot_object_copies` copies. NAMESPACE is accepted for any namespace (0 is SQL AREA,
//!   as Oracle's scripts pass for a cursor; an object's hash never equals a cursor's).
//!   MARKHOT with a schema and a name records the object as hot (v$db_object_cache shows
//!   it): Pythia has no object handles to copy. GLOBAL is accepted: there is one instance.
//!
//! Which MARKHOT: a call naming HASH is the hash overload, one naming SCHEMA or OBJNAME the
//! object one; positionally, a second argument that is text is OBJNAME (the object
//! overload), anything else (a NAMESPACE number, or no second argument) the hash overload.

use super::procedures::{bind, object_name, pls, Procedure};
use crate::catalog::OWNER;
use crate::error::{Error, Result};
use crate::instance::Instance;
use crate::library_cache::LibraryCache;
use crate::types::Value;

const PACKAGE: &str = "DBMS_SHARED_POOL";

const KEEP: Procedure = Procedure {
    name: "KEEP",
    parameters: &["NAME", "FLAG"],
    required: 1,
};

const UNKEEP: Procedure = Procedure {
    name: "UNKEEP",
    parameters: &["NAME", "FLAG"],
    required: 1,
};

const PURGE: Procedure = Procedure {
    name: "PURGE",
    parameters: &["NAME", "FLAG", "HEAPS"],
    required: 1,
};

const MARKHOT_OBJECT: Procedure = Procedure {
    name: "MARKHOT",
    parameters: &["SCHEMA", "OBJNAME", "NAMESPACE", "GLOBAL"],
    required: 2,
};

const MARKHOT_HASH: Procedure = Procedure {
    name: "MARKHOT",
    parameters: &["HASH", "NAMESPACE", "GLOBAL"],
    required: 1,
};

const UNMARKHOT_OBJECT: Procedure = Procedure {
    name: "UNMARKHOT",
    ..MARKHOT_OBJECT
};

const UNMARKHOT_HASH: Procedure = Procedure {
    name: "UNMARKHOT",
    ..MARKHOT_HASH
};

/// Oracle's default NAMESPACE of MARKHOT: 1, TABLE/PROCEDURE.
const DEFAULT_NAMESPACE: u32 = 1;

/// The built-in packages FLAG 'P' may name.
const BUILT_IN_PACKAGES: &[&str] = &["DBMS_STATS", "DBMS_SHARED_POOL", "STANDARD"];

/// What an object name given to KEEP, UNKEEP or PURGE is, by its FLAG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A cursor: `address,hash_value`, a sql_id or a full hash value.
    Cursor(String),
    /// A package, procedure or function (FLAG 'P').
    Program(String),
    /// A sequence (FLAG 'Q').
    Sequence(String),
    /// A type, trigger or Java object (FLAG 'T', 'R', 'J?'): Pythia has none.
    Unsupported { name: String, flag: String },
}

/// A resolved DBMS_SHARED_POOL call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SharedPoolCall {
    Keep {
        target: Target,
        keep: bool,
    },
    Purge {
        target: Target,
    },
    MarkHotCursor {
        hash: String,
        hot: bool,
    },
    MarkHotObject {
        schema: String,
        name: String,
        namespace: u32,
        hot: bool,
    },
}

/// The package and member of `name` (`DBMS_SHARED_POOL.KEEP`, `SYS.DBMS_SHARED_POOL.KEEP`).
fn split(name: &str) -> Option<&str> {
    let name = name.strip_prefix("SYS.").unwrap_or(name);
    let (package, member) = name.split_once('.')?;
    (package == PACKAGE).then_some(member)
}

/// Whether `name` is a member of DBMS_SHARED_POOL (known or not).
pub fn names_package(name: &str) -> bool {
    split(name).is_some()
}

const MEMBERS: &[&str] = &["KEEP", "UNKEEP", "PURGE", "MARKHOT", "UNMARKHOT"];

/// Checks that `name` is a procedure of the package: PLS-00302 otherwise.
pub fn check_procedure(name: &str) -> Result<()> {
    let member = split(name)
        .ok_or_else(|| pls(format!("PLS-00201: identifier '{name}' must be declared")))?;
    if MEMBERS.contains(&member) {
        Ok(())
    } else {
        Err(pls(format!(
            "PLS-00302: component '{member}' must be declared"
        )))
    }
}

/// Binds the evaluated arguments of a call to `name` and says what to do.
pub fn shared_pool_call(
    name: &str,
    positional: Vec<Value>,
    named: Vec<(String, Value)>,
) -> Result<SharedPoolCall> {
    check_procedure(name)?;
    let member = split(name).expect("checked");
    match member {
        "KEEP" | "UNKEEP" | "PURGE" => {
            let procedure = match member {
                "KEEP" => &KEEP,
                "UNKEEP" => &UNKEEP,
                _ => &PURGE,
            };
            let arguments = bind(procedure, positional, named)?;
            let target = target(&arguments[0], &arguments[1])?;
            if member == "PURGE" {
                heaps(&arguments[2])?;
                Ok(SharedPoolCall::Purge { target })
            } else {
                Ok(SharedPoolCall::Keep {
                    target,
                    keep: member == "KEEP",
                })
            }
        }
        _ => {
            let hot = member == "MARKHOT";
            let by_hash = if named.iter().any(|(name, _)| name == "HASH") {
                true
            } else if named
                .iter()
                .any(|(name, _)| name == "SCHEMA" || name == "OBJNAME")
            {
                false
            } else {
                !matches!(positional.get(1), Some(Value::Text(_)))
            };
            let procedure = match (by_hash, hot) {
                (true, true) => &MARKHOT_HASH,
                (true, false) => &UNMARKHOT_HASH,
                (false, true) => &MARKHOT_OBJECT,
                (false, false) => &UNMARKHOT_OBJECT,
            };
            let arguments = bind(procedure, positional, named)?;
            if by_hash {
                namespace(&arguments[1])?;
                boolean(&arguments[2], "GLOBAL")?;
                let hash = match &arguments[0] {
                    Value::Text(hash) => hash.trim().to_string(),
                    other => return Err(value_error(&format!("HASH {other} is not text"))),
                };
                return Ok(SharedPoolCall::MarkHotCursor { hash, hot });
            }
            boolean(&arguments[3], "GLOBAL")?;
            let schema = object_name(&arguments[0], "SCHEMA")?
                .ok_or_else(|| value_error("SCHEMA is NULL"))?;
            let name = object_name(&arguments[1], "OBJNAME")?
                .ok_or_else(|| value_error("OBJNAME is NULL"))?;
            Ok(SharedPoolCall::MarkHotObject {
                schema,
                name,
                namespace: namespace(&arguments[2])?,
                hot,
            })
        }
    }
}

/// ORA-06502, as the package reports a bad argument.
fn value_error(detail: &str) -> Error {
    Error::new(6502, format!("PL/SQL: numeric or value error: {detail}"))
}

/// ORA-06564, as the package reports an object it cannot find.
fn no_such_object(name: &str) -> Error {
    Error::new(6564, format!("object {name} does not exist"))
}

/// NAME and FLAG of KEEP, UNKEEP and PURGE.
fn target(name: &Value, flag: &Value) -> Result<Target> {
    let name = match name {
        Value::Text(name) => name.trim().to_string(),
        Value::Null => return Err(value_error("NAME is NULL")),
        other => other.to_string(),
    };
    let flag = match flag {
        Value::Null => "P".to_string(),
        Value::Text(flag) => flag.trim().to_uppercase(),
        other => other.to_string(),
    };
    Ok(match flag.as_str() {
        "P" => Target::Program(object_name(&Value::Text(name), "NAME")?.unwrap_or_default()),
        "Q" => Target::Sequence(object_name(&Value::Text(name), "NAME")?.unwrap_or_default()),
        "T" | "R" | "JS" | "JC" | "JR" | "JD" => Target::Unsupported { name, flag },
        // Any other flag: a cursor. Oracle writes 'address, hash_value' with a space.
        _ => Target::Cursor(name.split_whitespace().collect()),
    })
}

/// MARKHOT's NAMESPACE: a whole number, 1 when NULL.
fn namespace(value: &Value) -> Result<u32> {
    match value {
        Value::Null => Ok(DEFAULT_NAMESPACE),
        Value::Number(_) | Value::Float(_) => value
            .to_string()
            .parse::<u32>()
            .map_err(|_| value_error(&format!("NAMESPACE {value} is not a namespace number"))),
        other => Err(value_error(&format!(
            "NAMESPACE {other} is not a namespace number"
        ))),
    }
}

/// PURGE's HEAPS: a number (a mask of heaps; every heap goes anyway).
fn heaps(value: &Value) -> Result<()> {
    match value {
        Value::Null | Value::Number(_) | Value::Float(_) => Ok(()),
        other => Err(value_error(&format!("HEAPS {other} is not a number"))),
    }
}

/// A BOOLEAN argument (GLOBAL).
fn boolean(value: &Value, parameter: &str) -> Result<()> {
    match value {
        Value::Null | Value::Boolean(_) => Ok(()),
        other => Err(value_error(&format!(
            "{parameter} {other} is not TRUE or FALSE"
        ))),
    }
}

/// A name without its schema, when the schema is one Pythia has (SYS for the built-in
/// packages, the owner of everything else); None for another schema.
fn unqualified<'a>(name: &'a str, schemas: &[&str]) -> Option<&'a str> {
    match name.split_once('.') {
        Some((schema, rest)) => schemas.contains(&schema).then_some(rest),
        None => Some(name),
    }
}

/// What KEEP, UNKEEP and PURGE act on once the name is checked.
enum Checked {
    Cursor(String),
    /// A stored unit of the owner's, by name.
    Unit(String),
    /// A built-in package or a sequence: always there, nothing to age.
    Nothing,
}

/// Runs a resolved call against the library cache; `sequence_exists` answers for FLAG 'Q',
/// `unit_exists` for a stored procedure, function or package (FLAG 'P').
pub fn run_call(
    library_cache: &LibraryCache,
    call: SharedPoolCall,
    sequence_exists: impl Fn(&str) -> bool,
    unit_exists: impl Fn(&str) -> bool,
) -> Result<()> {
    let check_object = |target: &Target| -> Result<Checked> {
        match target {
            Target::Cursor(name) => Ok(Checked::Cursor(name.clone())),
            Target::Program(name) => match unqualified(name, &["SYS", OWNER]) {
                Some(package) if BUILT_IN_PACKAGES.contains(&package) => Ok(Checked::Nothing),
                Some(unit) if unit_exists(unit) => Ok(Checked::Unit(unit.to_string())),
                _ => Err(no_such_object(name)),
            },
            Target::Sequence(name) => match unqualified(name, &[OWNER]) {
                Some(sequence) if sequence_exists(sequence) => Ok(Checked::Nothing),
                _ => Err(no_such_object(name)),
            },
            Target::Unsupported { name, .. } => Err(no_such_object(name)),
        }
    };
    match call {
        SharedPoolCall::Keep { target, keep } => match check_object(&target)? {
            Checked::Cursor(cursor) => library_cache.keep(&cursor, keep),
            Checked::Unit(unit) => {
                library_cache.keep_object(OWNER, &unit, keep);
                Ok(())
            }
            Checked::Nothing => Ok(()),
        },
        SharedPoolCall::Purge { target } => match check_object(&target)? {
            Checked::Cursor(cursor) => library_cache.purge(&cursor),
            Checked::Unit(unit) => {
                library_cache.purge_object(OWNER, &unit);
                Ok(())
            }
            Checked::Nothing => Ok(()),
        },
        SharedPoolCall::MarkHotCursor { hash, hot } => library_cache.mark_hot(&hash, hot),
        SharedPoolCall::MarkHotObject {
            schema,
            name,
            namespace,
            hot,
        } => {
            library_cache.mark_object_hot(&schema, &name, namespace, hot);
            Ok(())
        }
    }
}

/// A call of the package as the session runs it: bound, then run against the instance's
/// library cache and dictionary.
pub fn run(
    instance: &Instance,
    name: &str,
    positional: Vec<Value>,
    named: Vec<(String, Value)>,
) -> Result<()> {
    let call = shared_pool_call(name, positional, named)?;
    let dictionary = instance.catalog().current();
    run_call(
        instance.library_cache(),
        call,
        |sequence| dictionary.sequences.contains_key(sequence),
        |unit| dictionary.programs.contains_key(unit),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parser;

    fn call(
        name: &str,
        positional: Vec<Value>,
        named: Vec<(&str, Value)>,
    ) -> Result<SharedPoolCall> {
        shared_pool_call(
            name,
            positional,
            named
                .into_iter()
                .map(|(name, value)| (name.to_string(), value))
                .collect(),
        )
    }

    #[test]
    fn keep_defaults_to_a_program_and_any_other_flag_is_a_cursor() {
        assert_eq!(
            call(
                "DBMS_SHARED_POOL.KEEP",
                vec![Value::text("sys.standard")],
                vec![]
            )
            .unwrap(),
            SharedPoolCall::Keep {
                target: Target::Program("SYS.STANDARD".into()),
                keep: true
            }
        );
        assert_eq!(
            call(
                "SYS.DBMS_SHARED_POOL.UNKEEP",
                vec![Value::text("0034CDFF, 20348871"), Value::text("c")],
                vec![]
            )
            .unwrap(),
            SharedPoolCall::Keep {
                target: Target::Cursor("0034CDFF,20348871".into()),
                keep: false
            }
        );
        assert_eq!(
            call(
                "DBMS_SHARED_POOL.PURGE",
                vec![Value::text("s1")],
                vec![("FLAG", Value::text("Q")), ("HEAPS", Value::integer(1))]
            )
            .unwrap(),
            SharedPoolCall::Purge {
                target: Target::Sequence("S1".into())
            }
        );
    }

    #[test]
    fn markhot_overloads_follow_named_arguments_then_the_second_argument() {
        let hash = "0123456789abcdef0123456789abcdef";
        let by_hash = SharedPoolCall::MarkHotCursor {
            hash: hash.into(),
            hot: true,
        };
        assert_eq!(
            call(
                "DBMS_SHARED_POOL.MARKHOT",
                vec![],
                vec![
                    ("HASH", Value::text(hash)),
                    ("NAMESPACE", Value::integer(0))
                ]
            )
            .unwrap(),
            by_hash
        );
        assert_eq!(
            call(
                "DBMS_SHARED_POOL.MARKHOT",
                vec![Value::text(hash), Value::integer(0)],
                vec![]
            )
            .unwrap(),
            by_hash
        );
        assert_eq!(
            call("DBMS_SHARED_POOL.MARKHOT", vec![Value::text(hash)], vec![]).unwrap(),
            by_hash
        );
        assert_eq!(
            call(
                "DBMS_SHARED_POOL.UNMARKHOT",
                vec![Value::text("system"), Value::text("t")],
                vec![]
            )
            .unwrap(),
            SharedPoolCall::MarkHotObject {
                schema: "SYSTEM".into(),
                name: "T".into(),
                namespace: 1,
                hot: false
            }
        );
        assert_eq!(
            call(
                "DBMS_SHARED_POOL.MARKHOT",
                vec![],
                vec![
                    ("OBJNAME", Value::text("p")),
                    ("SCHEMA", Value::text("x")),
                    ("NAMESPACE", Value::integer(2))
                ]
            )
            .unwrap(),
            SharedPoolCall::MarkHotObject {
                schema: "X".into(),
                name: "P".into(),
                namespace: 2,
                hot: true
            }
        );
        // The hash overload has no OBJNAME.
        let error = call(
            "DBMS_SHARED_POOL.MARKHOT",
            vec![],
            vec![("HASH", Value::text(hash)), ("OBJNAME", Value::text("t"))],
        )
        .unwrap_err();
        assert!(error.message().contains("PLS-00306"), "{error}");
        let error = call("DBMS_SHARED_POOL.SIZES", vec![Value::integer(1)], vec![]).unwrap_err();
        assert!(error.message().contains("PLS-00302"), "{error}");
    }

    #[test]
    fn calls_reach_the_library_cache() {
        let library_cache = LibraryCache::new(509, 64 << 20, 2);
        let sql = "select 1 from dual";
        let parsed = library_cache
            .get(sql, 1, || Ok((parser::parse(sql)?, 100)))
            .unwrap();
        let handle = parsed.handle;
        let address_hash = format!("{:X}, {}", handle.address, handle.id.hash_value());
        let keep = |name: &str, flag: &str| {
            call(
                "DBMS_SHARED_POOL.KEEP",
                vec![Value::text(name), Value::text(flag)],
                vec![],
            )
            .and_then(|call| run_call(&library_cache, call, |_| false, |_| false))
        };
        keep(&address_hash, "C").unwrap();
        keep(&handle.id.to_string(), "C").unwrap();
        assert_eq!(keep("ffffffff,1", "C").unwrap_err().code(), 6502);
        keep("DBMS_STATS", "P").unwrap();
        assert_eq!(keep("MY_PACKAGE", "P").unwrap_err().code(), 6564);
        // A stored unit the dictionary has is kept by name, and let go by UNKEEP.
        let keep_unit = |member: &str| {
            call(member, vec![Value::text("LIBC"), Value::text("P")], vec![])
                .and_then(|call| run_call(&library_cache, call, |_| false, |unit| unit == "LIBC"))
        };
        keep_unit("DBMS_SHARED_POOL.KEEP").unwrap();
        assert!(library_cache.is_object_kept(OWNER, "LIBC"));
        keep_unit("DBMS_SHARED_POOL.UNKEEP").unwrap();
        assert!(!library_cache.is_object_kept(OWNER, "LIBC"));
        assert_eq!(keep("S1", "Q").unwrap_err().code(), 6564);
        assert_eq!(keep("TRG", "R").unwrap_err().code(), 6564);
        let mark = |hash: &str| {
            call(
                "DBMS_SHARED_POOL.MARKHOT",
                vec![Value::text(hash), Value::integer(0)],
                vec![],
            )
            .and_then(|call| run_call(&library_cache, call, |_| false, |_| false))
        };
        mark(&handle.id.full_hash_value()).unwrap();
        assert!(handle.is_hot());
        assert_eq!(mark("not a hash").unwrap_err().code(), 6502);
    }
}
