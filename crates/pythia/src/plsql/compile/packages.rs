//! Packages: a specification's variables and subprograms, a body's own variables, the
//! bodies of the subprograms and the initialisation section, compiled into one
//! [`PackageUnit`].
//!
//! A package variable is a place in the package's state, which each session has of its
//! own; a unit that names one mirrors it in a slot of its frame (`Compiler::resolve`), so
//! that every instruction works on slots as it does for a local. The package's `init`
//! unit gives every variable its default, in the order they are declared (the
//! specification's first), then runs the initialisation section; the session runs it once,
//! at the package's first use. Subprograms are found by name among the package's own first
//! (overloads: the first whose parameters the arguments fit), then the dictionary's.

use std::sync::Arc;

use super::scope::Member;
use super::subprograms::compile_subprogram_in;
use super::Compiler;
use crate::error::Result;
use crate::plsql::ast::{Block, Declaration, Subprogram};
use crate::plsql::code::*;
use crate::plsql::host::{Names, Signature};
use crate::sql::eval::Expr;
use crate::types::Value;

/// A package's text and declarations: its specification's, or its body's.
pub struct PackageSource<'a> {
    pub text: &'a str,
    pub declarations: &'a [Declaration],
}

/// What a package's units see of it: its variables and its subprograms.
#[derive(Debug, Clone)]
pub(crate) struct PackageContext {
    pub(super) name: String,
    /// Each variable: name, kind, constant.
    globals: Vec<(String, SlotKind, bool)>,
    subprograms: Vec<Arc<Signature>>,
    /// Each exception of the specification and the body: name, EXCEPTION_INIT's error.
    exceptions: Vec<(String, Option<u32>)>,
}

impl PackageContext {
    pub(super) fn global(&self, name: &str) -> Option<(usize, SlotKind, bool)> {
        self.globals
            .iter()
            .position(|(global, _, _)| global == name)
            .map(|index| (index, self.globals[index].1, self.globals[index].2))
    }

    /// The Oracle error of the package's exception `name`.
    pub(super) fn exception(&self, name: &str) -> Option<u32> {
        self.exceptions
            .iter()
            .find(|(exception, _)| exception == name)
            .and_then(|(_, code)| *code)
    }

    pub(super) fn subprograms(&self, name: &str) -> Vec<Arc<Signature>> {
        self.subprograms
            .iter()
            .filter(|signature| signature.name.rsplit('.').next() == Some(name))
            .cloned()
            .collect()
    }
}

/// Compiles a package: its specification, and its body when `body` is given (the body's
/// declarations and initialisation section). `qualified` is `SYSTEM.PKG`, how errors name
/// it; `object_id` the specification's.
pub fn compile_package(
    name: &str,
    qualified: &str,
    object_id: u32,
    spec: PackageSource,
    body: Option<(PackageSource, Option<&Block>)>,
    names: &dyn Names,
) -> Result<PackageUnit> {
    let mut context = PackageContext {
        name: name.to_string(),
        globals: Vec::new(),
        subprograms: Vec::new(),
        exceptions: Vec::new(),
    };
    let mut public_exceptions: Vec<String> = Vec::new();
    let mut declared_exceptions: Vec<(String, usize, &str)> = Vec::new();
    let mut slots = Vec::new();
    let mut public = Vec::new();
    // Each subprogram: its declaration (the body's, once found) and whether it is public.
    let mut members: Vec<(&Subprogram, bool, &str)> = Vec::new();
    let mut init = Compiler::new(spec.text, names);
    init.scopes.push(Some(name.to_string()));
    let mut defaults: Vec<(usize, Option<Expr>, usize, &str)> = Vec::new();
    let parts = std::iter::once((spec.text, spec.declarations, true)).chain(
        body.iter()
            .map(|(source, _)| (source.text, source.declarations, false)),
    );
    for (text, declarations, in_spec) in parts {
        init.text = text;
        for declaration in declarations {
            match declaration {
                Declaration::Variable {
                    name: variable,
                    type_name,
                    constant,
                    not_null,
                    default,
                    position,
                } => {
                    let kind = match init.resolve_type(type_name, *position)? {
                        Member::Scalar { kind, .. } => kind,
                        Member::Record(_) => {
                            return Err(not_yet(&init, *position, "record variables"))
                        }
                        Member::Collection(_) => {
                            return Err(not_yet(&init, *position, "collection variables"))
                        }
                    };
                    if context.global(variable).is_some() {
                        return Err(init.error(
                            *position,
                            &format!(
                                "PLS-00371: at most one declaration for '{variable}' is permitted"
                            ),
                        ));
                    }
                    let global = context.globals.len();
                    context.globals.push((variable.clone(), kind, *constant));
                    slots.push(Slot {
                        name: variable.clone(),
                        kind,
                        not_null: *not_null,
                    });
                    if in_spec {
                        public.push(PublicVariable {
                            name: variable.clone(),
                            global,
                            kind,
                            constant: *constant,
                        });
                    }
                    init.package = Some(Arc::new(context.clone()));
                    let default = match default {
                        Some(default) => Some(init.expression(default, *position)?),
                        None => None,
                    };
                    defaults.push((global, default, *position, text));
                }
                Declaration::Subprogram(subprogram) => {
                    let existing = members.iter().position(|(declared, _, _)| {
                        declared.body.is_none() && same_specification(declared, subprogram)
                    });
                    match existing {
                        Some(index) if !in_spec => members[index] = (subprogram, true, text),
                        _ => members.push((subprogram, in_spec, text)),
                    }
                }
                Declaration::Exception {
                    name: exception,
                    position,
                } => {
                    if context.exceptions.iter().any(|(name, _)| name == exception) {
                        return Err(init.error(
                            *position,
                            &format!(
                                "PLS-00371: at most one declaration for '{exception}' is permitted"
                            ),
                        ));
                    }
                    context.exceptions.push((exception.clone(), None));
                    declared_exceptions.push((exception.clone(), *position, text));
                    if in_spec {
                        public_exceptions.push(exception.clone());
                    }
                }
                Declaration::ExceptionInit {
                    name: exception,
                    code,
                    position,
                } => {
                    let code = init.exception_init_code(*code, *position)?;
                    let Some(entry) = context
                        .exceptions
                        .iter_mut()
                        .find(|(name, _)| name == exception)
                    else {
                        return Err(init.undeclared(*position, std::slice::from_ref(exception)));
                    };
                    entry.1 = Some(code);
                    init.package = Some(Arc::new(context.clone()));
                }
                Declaration::Record { position, .. }
                | Declaration::Collection { position, .. }
                | Declaration::Subtype { position, .. }
                | Declaration::Cursor { position, .. }
                | Declaration::Autonomous { position } => {
                    return Err(not_yet(&init, *position, "a package's types and cursors"))
                }
            }
        }
    }
    // A package's exception is another unit's too: it goes by the error EXCEPTION_INIT gives
    // it (one without is an identity of its own, not built yet).
    for (exception, position, text) in &declared_exceptions {
        if context.exception(exception).is_none() {
            init.text = text;
            return Err(not_yet(
                &init,
                *position,
                "package exceptions without PRAGMA EXCEPTION_INIT",
            ));
        }
    }
    for (index, (subprogram, _, _)) in members.iter().enumerate() {
        let mut signature = Signature::of(
            subprogram,
            &format!("{qualified}.{}", subprogram.name),
            object_id,
        );
        signature.member = Some(index as u32);
        context.subprograms.push(Arc::new(signature));
    }
    let context = Arc::new(context);
    // The init unit: the defaults, then the initialisation section.
    init.package = Some(context.clone());
    let mut ends = Vec::new();
    for (global, default, position, text) in defaults {
        init.text = text;
        let slot = init.mirror(name, global, slots[global].kind)?;
        let expr = default.unwrap_or(Expr::Constant(Value::Null));
        ends.push(init.emit(Instruction::Assign { slot, expr }, position));
    }
    let has_body = body.is_some();
    if let Some((source, Some(block))) = &body {
        init.text = source.text;
        init.block(block)?;
    }
    init.emit(Instruction::Return, 0);
    init.scopes.pop();
    let mut init = init.finish(Some(qualified.to_string()))?;
    init.object_id = object_id;
    let mut subprograms = Vec::new();
    for ((subprogram, public, text), signature) in members.iter().zip(&context.subprograms) {
        let unit = match (&subprogram.body, has_body) {
            (Some(_), _) => {
                let mut unit = compile_subprogram_in(
                    text,
                    subprogram,
                    qualified,
                    names,
                    Some(context.clone()),
                )?;
                unit.object_id = object_id;
                Some(unit)
            }
            (None, true) => {
                let mut compiler = Compiler::new(text, names);
                compiler.scopes.push(None);
                return Err(compiler.error(
                    subprogram.position,
                    &format!(
                        "PLS-00323: subprogram or cursor '{}' is declared in a package specification and must be defined in the package body",
                        subprogram.name
                    ),
                ));
            }
            (None, false) => None,
        };
        subprograms.push(PackageSubprogram {
            signature: (**signature).clone(),
            public: *public,
            unit,
        });
    }
    let exceptions = public_exceptions
        .into_iter()
        .filter_map(|name| context.exception(&name).map(|code| (name, code)))
        .collect();
    Ok(PackageUnit {
        name: qualified.to_string(),
        globals: slots,
        public,
        exceptions,
        init,
        subprograms,
        has_body,
    })
}

/// Whether a body's subprogram is the one a specification declared: the same name, and
/// the same parameters by name and mode, and both functions or both procedures.
fn same_specification(declared: &Subprogram, defined: &Subprogram) -> bool {
    declared.name == defined.name
        && declared.returns.is_some() == defined.returns.is_some()
        && declared.parameters.len() == defined.parameters.len()
        && declared
            .parameters
            .iter()
            .zip(&defined.parameters)
            .all(|(a, b)| a.name == b.name && a.mode == b.mode)
}

fn not_yet(compiler: &Compiler, position: usize, what: &str) -> crate::error::Error {
    compiler.error(
        position,
        &format!(
            "PLS-00999: implementation restriction (may be temporary) {what} are not supported yet"
        ),
    )
}
