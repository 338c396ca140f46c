//! Packages in the session: the compiled package (its specification and body compiled
//! together, kept in the library cache with the two dictionary versions it was made
//! from), the session's state of it (made and initialised at its first use, discarded with
//! ORA-04068 when the package was compiled again since), and calls of its subprograms.

use std::sync::Arc;

use super::plsql::CallContext;
use super::programs::{invalid, not_found, run_call};
use super::Session;
use crate::catalog::{ProgramDef, OWNER};
use crate::error::{Error, Result};
use crate::library_cache::cursor::Namespace;
use crate::library_cache::objects::{CachedObject, Shared};
use crate::plsql::ast::Program;
use crate::plsql::code::PackageUnit;
use crate::plsql::host::{Called, PackageVariable};
use crate::plsql::runtime::PackageInstance;
use crate::plsql::{self, PackageSource, SessionState};
use crate::sql::eval::RoutineCall;
use crate::syntax::ast::ProgramKind;
use crate::types::Value;

/// The compiled package a library cache object holds.
fn package_of(object: &CachedObject) -> Result<Arc<PackageUnit>> {
    object
        .unit
        .clone()
        .downcast::<PackageUnit>()
        .map_err(|_| Error::internal("a library cache object that is not a package"))
}

/// The dictionary versions a compiled package was made from: its specification and body.
type PackageDefinitions = (Arc<ProgramDef>, Option<Arc<ProgramDef>>);

impl Session {
    /// Compiles a package from its specification's source and, when given, its body's.
    pub(super) fn compile_package(
        &self,
        name: &str,
        spec_source: &str,
        body_source: Option<&str>,
    ) -> Result<PackageUnit> {
        let Program::Package { declarations, .. } = plsql::parse_program(spec_source)? else {
            return Err(Error::internal("a package's source that is not a package"));
        };
        let body = match body_source {
            Some(source) => match plsql::parse_program(source)? {
                Program::PackageBody {
                    declarations,
                    initialisation,
                    ..
                } => Some((source, declarations, initialisation)),
                _ => return Err(Error::internal("a package body's source that is not one")),
            },
            None => None,
        };
        let object_id = self
            .instance
            .catalog()
            .current()
            .program(name, ProgramKind::Package)
            .map_or(0, |spec| spec.object_id);
        plsql::compile_package(
            name,
            &format!("{OWNER}.{name}"),
            object_id,
            PackageSource {
                text: spec_source,
                declarations: &declarations,
            },
            body.as_ref().map(|(text, declarations, initialisation)| {
                (
                    PackageSource { text, declarations },
                    initialisation.as_ref(),
                )
            }),
            self,
        )
    }

    /// The compiled package `name` (see [`Session::package_object`]).
    pub(super) fn package_unit(&self, name: &str) -> Result<Arc<PackageUnit>> {
        package_of(&*self.package_object(name)?)
    }

    /// The library cache's object of package `name`: kept when it was compiled from the
    /// dictionary's specification and body as they are, else compiled now, each one's
    /// status recorded.
    fn package_object(&self, name: &str) -> Result<Arc<CachedObject>> {
        let catalog = self.instance.catalog();
        let cache = self.instance.library_cache();
        let definitions = || -> Result<PackageDefinitions> {
            let dictionary = catalog.current();
            let spec = dictionary
                .program(name, ProgramKind::Package)
                .cloned()
                .ok_or_else(|| not_found(name))?;
            Ok((
                spec,
                dictionary.program(name, ProgramKind::PackageBody).cloned(),
            ))
        };
        let (spec, body) = definitions()?;
        let current = |definition: &Shared| {
            definition
                .clone()
                .downcast::<PackageDefinitions>()
                .is_ok_and(|kept| {
                    Arc::ptr_eq(&kept.0, &spec)
                        && match (&kept.1, &body) {
                            (Some(kept), Some(body)) => Arc::ptr_eq(kept, body),
                            (None, None) => true,
                            _ => false,
                        }
                })
        };
        if let Some(object) = cache.object(Namespace::TableProcedure, OWNER, name, &current) {
            return Ok(object);
        }
        let record = |program: &ProgramDef, compiled: &crate::catalog::Compiled| {
            if compiled.valid != program.valid || compiled.errors != program.errors {
                catalog.set_program_status(name, program.kind, compiled.clone())
            } else {
                Ok(())
            }
        };
        let (compiled, spec_unit) = self.compile_timed(spec.source.len(), || {
            self.compile_package(name, &spec.source, None)
        });
        record(&spec, &compiled)?;
        let Some((mut unit, mut bytes)) = spec_unit else {
            return Err(invalid(name));
        };
        if let Some(body) = &body {
            let (compiled, full) = self.compile_timed(body.source.len(), || {
                self.compile_package(name, &spec.source, Some(&body.source))
            });
            record(body, &compiled)?;
            let Some((full, full_bytes)) = full else {
                return Err(Error::new(
                    4063,
                    format!("package body \"{OWNER}.{name}\" has errors"),
                ));
            };
            unit = full;
            bytes = full_bytes;
        }
        let kept: PackageDefinitions = definitions()?;
        Ok(cache.put_object(
            Namespace::TableProcedure,
            OWNER,
            name,
            ProgramKind::Package.name(),
            Arc::new(kept),
            Arc::new(unit),
            bytes,
        ))
    }

    /// The public variable `package.name`, for the units that name it.
    pub(super) fn package_variable_of(
        &self,
        package: &str,
        name: &str,
    ) -> Result<Option<PackageVariable>> {
        if !self.is_package(package) {
            return Ok(None);
        }
        let unit = self.package_unit(package).map_err(|_| invalid(package))?;
        Ok(unit
            .public
            .iter()
            .find(|variable| variable.name == name)
            .map(|variable| PackageVariable {
                global: variable.global,
                kind: variable.kind,
                constant: variable.constant,
            }))
    }
}

/// The session's state of package `name`, current: made and initialised now at the
/// package's first use; discarded with ORA-04068 when the package was compiled again since
/// it was made (the next use makes it anew).
pub(super) fn package_state(
    context: &mut dyn CallContext,
    name: &str,
    state: &mut SessionState,
) -> Result<()> {
    let unit = context.session().package_unit(name)?;
    match state.packages.get(name) {
        Some(instance) if Arc::ptr_eq(&instance.unit, &unit) => return Ok(()),
        Some(_) => {
            state.packages.remove(name);
            let kind = if unit.has_body {
                "package body"
            } else {
                "package"
            };
            return Err(Error::new(
                4068,
                format!(
                    "existing state of packages has been discarded\nORA-04061: existing state of {kind} \"{OWNER}.{name}\" has been invalidated"
                ),
            ));
        }
        None => {}
    }
    state.packages.insert(
        name.to_string(),
        PackageInstance {
            unit: unit.clone(),
            slots: vec![Value::Null; unit.globals.len()],
        },
    );
    if let Err(error) = run_call(context, &unit.init, Vec::new(), state) {
        // A package whose initialisation fails has no state: the next use runs it again.
        state.packages.remove(name);
        return Err(error);
    }
    Ok(())
}

/// Runs subprogram `member` of a package.
pub(super) fn call_member(
    context: &mut dyn CallContext,
    routine: &RoutineCall,
    member: u32,
    arguments: Vec<Option<Value>>,
    state: &mut SessionState,
) -> Result<Called> {
    let mut parts = routine.name.rsplit('.');
    let (_, package) = (parts.next(), parts.next().unwrap_or_default().to_string());
    let object = context.session().package_object(&package)?;
    let unit = package_of(&object)?;
    package_state(context, &package, state)?;
    let Some(subprogram) = unit.subprograms.get(member as usize) else {
        return Err(not_found(&routine.name));
    };
    let Some(code) = &subprogram.unit else {
        return Err(Error::new(
            4067,
            format!("not executed, package body \"{OWNER}.{package}\" does not exist"),
        ));
    };
    context
        .session()
        .instance
        .library_cache()
        .pin_object(&object);
    run_call(context, code, arguments, state)
}
