//! Stored PL/SQL units in the session: their DDL (CREATE, DROP, ALTER ... COMPILE), the
//! compiled units run from the library cache (compiled on first use, and again when the
//! dictionary's unit changed or was marked INVALID), the signatures callers compile
//! against, and the calls themselves.
//!
//! A unit that does not compile is stored all the same, INVALID, with its errors (Oracle's
//! "created with compilation errors"); a call of an INVALID unit compiles it again first,
//! and records what that gave, so that a unit made invalid by a DDL on a table it names
//! comes back by itself once the table does.

use std::sync::Arc;

use super::plsql::CallContext;
use super::{Session, StatementResult};
use crate::catalog::{CompileError, Compiled, ProgramDef, OWNER};
use crate::error::{Error, Result};
use crate::instrumentation::{self, TimeModelStatistic};
use crate::library_cache::cursor::Namespace;
use crate::library_cache::objects::{CachedObject, Shared};
use crate::plsql::ast::Program;
use crate::plsql::host::Signature;
use crate::plsql::{self, errors, Unit};
use crate::sql::eval::RoutineCall;
use crate::syntax::ast::{ObjectName, ProgramKind};

/// The most nested calls of stored subprograms (ORA-06500 beyond): each level takes stack,
/// which `stacker` grows on the heap as needed, so that the bound is this, not the thread's
/// stack.
pub const PLSQL_CALL_DEPTH_MAX: usize = 1000;
/// Stack left below which a call continues on a new segment, and that segment's size.
const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

impl Session {
    /// CREATE [OR REPLACE] PROCEDURE / FUNCTION / PACKAGE [BODY]: compiled now, stored
    /// VALID, or INVALID with its errors and the SQL*Plus warning.
    pub(super) fn create_program(
        &mut self,
        kind: ProgramKind,
        name: &ObjectName,
        or_replace: bool,
        source: &str,
    ) -> Result<StatementResult> {
        self.check_owner(name)?;
        let (compiled, _) = self.compile_source(&name.name, kind, source);
        let valid = compiled.valid;
        self.instance
            .catalog()
            .create_program(&name.name, kind, or_replace, source, compiled)?;
        Ok(StatementResult::done(if valid {
            format!("{} created.", kind.feedback_name())
        } else {
            format!(
                "Warning: {} created with compilation errors.",
                kind.feedback_name()
            )
        }))
    }

    /// DROP PROCEDURE / FUNCTION / PACKAGE [BODY].
    pub(super) fn drop_program(
        &mut self,
        kind: ProgramKind,
        name: &ObjectName,
    ) -> Result<StatementResult> {
        self.check_owner(name)?;
        self.instance.catalog().drop_program(&name.name, kind)?;
        let cache = self.instance.library_cache();
        cache.drop_object(namespace(kind), OWNER, &name.name);
        if kind == ProgramKind::Package {
            cache.drop_object(Namespace::Body, OWNER, &name.name);
        }
        Ok(StatementResult::done(format!(
            "{} dropped.",
            kind.feedback_name()
        )))
    }

    /// ALTER PROCEDURE / FUNCTION / PACKAGE ... COMPILE: compiled again and its status and
    /// errors recorded.
    pub(super) fn alter_compile(
        &mut self,
        kind: ProgramKind,
        name: &ObjectName,
    ) -> Result<StatementResult> {
        self.check_owner(name)?;
        let dictionary = self.instance.catalog().current();
        let program = dictionary
            .program(&name.name, kind)
            .cloned()
            .ok_or_else(|| crate::catalog::programs::object_not_found(&name.name))?;
        let (compiled, _) = self.compile_source(&name.name, kind, &program.source);
        let valid = compiled.valid;
        self.instance
            .catalog()
            .set_program_status(&name.name, kind, compiled)?;
        Ok(StatementResult::done(if valid {
            format!("{} altered.", kind.feedback_name())
        } else {
            format!(
                "Warning: {} altered with compilation errors.",
                kind.feedback_name()
            )
        }))
    }

    fn check_owner(&self, name: &ObjectName) -> Result<()> {
        match &name.schema {
            Some(schema) if schema != OWNER => Err(Error::new(
                1031,
                format!("insufficient privileges: stored units belong to {OWNER}"),
            )),
            _ => Ok(()),
        }
    }

    /// Compiles a unit's source for its DDL (CREATE, ALTER ... COMPILE): what it gave, and
    /// a subprogram's compiled unit with the bytes its compilation allocated.
    fn compile_source(
        &self,
        name: &str,
        kind: ProgramKind,
        source: &str,
    ) -> (Compiled, Option<(Unit, u64)>) {
        match kind {
            ProgramKind::Procedure | ProgramKind::Function => {
                self.compile_timed(source.len(), || self.compile_unit(name, kind, source))
            }
            ProgramKind::Package => {
                let (compiled, _) =
                    self.compile_timed(source.len(), || self.compile_package(name, source, None));
                (compiled, None)
            }
            ProgramKind::PackageBody => {
                let (compiled, _) = self.compile_timed(source.len(), || {
                    let dictionary = self.instance.catalog().current();
                    let Some(spec) = dictionary.program(name, ProgramKind::Package) else {
                        return Err(errors::statement_ignored(
                            source,
                            0,
                            0,
                            &format!(
                                "PLS-00201: identifier '{name}' must be declared\nORA-06550: line 1, column 1:\nPLS-00304: cannot compile body of '{name}' without its specification"
                            ),
                        ));
                    };
                    self.compile_package(name, &spec.source, Some(source))
                });
                (compiled, None)
            }
        }
    }

    /// Compiles something ('PL/SQL compilation elapsed time'): what it gave, and what it
    /// made with the bytes its compilation allocated (an estimate from the source's length
    /// when the allocator did not count).
    pub(super) fn compile_timed<T>(
        &self,
        source_bytes: usize,
        make: impl FnOnce() -> Result<T>,
    ) -> (Compiled, Option<(T, u64)>) {
        let _timed = instrumentation::timed(TimeModelStatistic::PlsqlCompilationElapsedTime);
        let (made, bytes) = super::select::make_plan(true, make);
        match made {
            Ok(made) => (
                Compiled {
                    valid: true,
                    errors: Vec::new(),
                },
                Some((made, bytes.unwrap_or(source_bytes as u64 * 16))),
            ),
            Err(error) => (
                Compiled {
                    valid: false,
                    errors: errors::compilation_parts(&error)
                        .into_iter()
                        .map(|(line, position, text)| CompileError {
                            line,
                            position,
                            text,
                        })
                        .collect(),
                },
                None,
            ),
        }
    }

    fn compile_unit(&self, name: &str, kind: ProgramKind, source: &str) -> Result<Unit> {
        let program = plsql::parse_program(source)?;
        let qualified = format!("{OWNER}.{name}");
        match program {
            Program::Subprogram { subprogram, .. } => {
                let is_function = subprogram.returns.is_some();
                if is_function != (kind == ProgramKind::Function) || subprogram.name != name {
                    return Err(Error::internal("a stored unit's source names another unit"));
                }
                plsql::compile_subprogram(source, &subprogram, &qualified, self)
            }
            Program::Package { .. } | Program::PackageBody { .. } => Err(Error::internal(
                "a package's source where a subprogram's is",
            )),
        }
    }

    /// The compiled unit of the stored subprogram `name` of `kind`, pinned for a call: the
    /// library cache's when it was compiled from the dictionary's unit as it is, else
    /// compiled now (a reload when it had been loaded before) and its status recorded.
    fn program_unit(&self, name: &str, kind: ProgramKind) -> Result<Arc<CachedObject>> {
        let catalog = self.instance.catalog();
        let cache = self.instance.library_cache();
        let find = || -> Result<Arc<ProgramDef>> {
            catalog
                .current()
                .program(name, kind)
                .cloned()
                .ok_or_else(|| not_found(name))
        };
        let mut program = find()?;
        let current = |definition: &Shared| {
            definition
                .clone()
                .downcast::<ProgramDef>()
                .is_ok_and(|definition| Arc::ptr_eq(&definition, &program))
        };
        if let Some(object) = cache.object(namespace(kind), OWNER, name, &current) {
            return Ok(object);
        }
        let (compiled, unit) = self.compile_source(name, kind, &program.source);
        if compiled.valid != program.valid || compiled.errors != program.errors {
            catalog.set_program_status(name, kind, compiled)?;
            program = find()?;
        }
        let Some((mut unit, bytes)) = unit else {
            return Err(invalid(name));
        };
        unit.object_id = program.object_id;
        Ok(cache.put_object(
            namespace(kind),
            OWNER,
            name,
            kind.name(),
            program,
            Arc::new(unit),
            bytes,
        ))
    }

    /// The row a top-level CALL returns (`StatementResult::out_parameters`): its procedure's
    /// OUT and IN OUT parameters, by name; their types are known only once it runs. The
    /// first procedure of the name whose parameters the arguments can fill; None without
    /// OUT parameters.
    pub(super) fn call_columns(
        &self,
        call: &crate::syntax::ast::ProcedureCall,
    ) -> Result<Option<Vec<crate::types::Column>>> {
        let parts: Vec<String> = call.name.split('.').map(str::to_string).collect();
        let given = call.args.len() + call.named.len();
        let signatures = self.routine_signatures(&parts)?;
        let Some(signature) = signatures
            .iter()
            .find(|signature| !signature.function && signature.parameters.len() >= given)
        else {
            return Ok(None);
        };
        let columns: Vec<crate::types::Column> = signature
            .parameters
            .iter()
            .filter(|parameter| parameter.mode != crate::plsql::ast::Mode::In)
            .map(|parameter| crate::types::Column {
                name: parameter.name.to_lowercase(),
                data_type: None,
            })
            .collect();
        Ok((!columns.is_empty()).then_some(columns))
    }

    /// The stored procedures and functions `parts` names, as their callers see them: a
    /// standalone one from its source's specification (it need not compile for its callers
    /// to compile), a package's from the compiled package.
    pub(super) fn routine_signatures(&self, parts: &[String]) -> Result<Vec<Signature>> {
        let (package, name) = match parts {
            [name] => (None, name),
            [schema, name] if schema == OWNER && !self.is_package(schema) => (None, name),
            [package, name] => (Some(package), name),
            [schema, package, name] if schema == OWNER => (Some(package), name),
            _ => return Ok(Vec::new()),
        };
        if let Some(package) = package {
            if !self.is_package(package) {
                return Ok(Vec::new());
            }
            let unit = self.package_unit(package).map_err(|_| invalid(package))?;
            return Ok(unit
                .subprograms
                .iter()
                .filter(|member| {
                    member.public && member.signature.name.rsplit('.').next() == Some(name)
                })
                .map(|member| member.signature.clone())
                .collect());
        }
        let dictionary = self.instance.catalog().current();
        let Some(program) = dictionary.programs.get(name) else {
            return Ok(Vec::new());
        };
        if !matches!(program.kind, ProgramKind::Procedure | ProgramKind::Function) {
            return Ok(Vec::new());
        }
        if !program.valid && !self.compiling.borrow().contains(name) {
            // An INVALID unit is compiled again before its caller compiles against it
            // (its callee's callers, in a cycle, against its specification alone).
            self.compiling.borrow_mut().push(name.clone());
            let compiled = self.program_unit(name, program.kind);
            self.compiling.borrow_mut().pop();
            if compiled.is_err() {
                return Err(invalid(name));
            }
        }
        match plsql::parse_program(&program.source) {
            Ok(Program::Subprogram { subprogram, .. }) => Ok(vec![Signature::of(
                &subprogram,
                &format!("{OWNER}.{name}"),
                program.object_id,
            )]),
            _ => Err(invalid(name)),
        }
    }

    /// Whether `name` is a package in the dictionary.
    pub(super) fn is_package(&self, name: &str) -> bool {
        self.instance
            .catalog()
            .current()
            .programs
            .get(name)
            .is_some_and(|program| program.kind == ProgramKind::Package)
    }

    /// Whether a top-level CALL names a stored subprogram.
    /// A standalone one is found in the dictionary alone: nothing of its source is parsed
    /// or compiled for the question (the CALL's own compilation does that).
    pub(super) fn calls_stored(&self, name: &str) -> bool {
        let parts: Vec<String> = name.split('.').map(str::to_string).collect();
        let standalone = match parts.as_slice() {
            [name] => Some(name),
            [schema, name] if schema == OWNER && !self.is_package(schema) => Some(name),
            _ => None,
        };
        if let Some(name) = standalone {
            return self
                .instance
                .catalog()
                .current()
                .programs
                .get(name)
                .is_some_and(|program| {
                    matches!(program.kind, ProgramKind::Procedure | ProgramKind::Function)
                });
        }
        match self.routine_signatures(&parts) {
            Ok(found) => !found.is_empty(),
            Err(_) => true,
        }
    }
}

/// Runs the stored subprogram `routine` (`SYSTEM.P`, or a package's) with its arguments,
/// one call deeper, through `context` (with every right, or read-only for a query).
pub(super) fn call_stored(
    context: &mut dyn CallContext,
    routine: &RoutineCall,
    arguments: Vec<Option<crate::types::Value>>,
    state: &mut plsql::SessionState,
) -> Result<plsql::host::Called> {
    if let Some(member) = routine.member {
        return super::packages::call_member(context, routine, member, arguments, state);
    }
    let session = context.session();
    let name = routine.name.as_str();
    let bare = name.rsplit('.').next().unwrap_or(name);
    let kind = session
        .instance
        .catalog()
        .current()
        .programs
        .get(bare)
        .map(|program| program.kind)
        .ok_or_else(|| not_found(bare))?;
    let object = session.program_unit(bare, kind)?;
    let unit = object
        .unit
        .clone()
        .downcast::<Unit>()
        .map_err(|_| Error::internal("a library cache object that is not a unit"))?;
    session.instance.library_cache().pin_object(&object);
    run_call(context, &unit, arguments, state)
}

/// Runs a subprogram's unit one call deeper (ORA-06500 beyond [`PLSQL_CALL_DEPTH_MAX`]), on
/// a stack grown as needed.
pub(super) fn run_call(
    context: &mut dyn CallContext,
    unit: &Unit,
    arguments: Vec<Option<crate::types::Value>>,
    state: &mut plsql::SessionState,
) -> Result<plsql::host::Called> {
    let depth = &context.session().plsql_depth;
    if depth.get() >= PLSQL_CALL_DEPTH_MAX {
        return Err(Error::new(
            6500,
            format!("PL/SQL: storage error (more than {PLSQL_CALL_DEPTH_MAX} nested calls)"),
        ));
    }
    depth.set(depth.get() + 1);
    // v$session's PL/SQL objects: the first stored unit the call entered, and this one.
    let (entry, current) = context.session().instrumentation.plsql_objects();
    if unit.object_id != 0 {
        let first = if entry == 0 { unit.object_id } else { entry };
        context
            .session()
            .instrumentation
            .set_plsql_objects(first, unit.object_id);
    }
    let section = context.session().plsql_section_begin();
    let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
        let _timed = instrumentation::timed(TimeModelStatistic::PlsqlExecutionElapsedTime);
        context.call(unit, arguments, state)
    });
    let session = context.session();
    session.plsql_section_end(section);
    session.instrumentation.set_plsql_objects(entry, current);
    session.plsql_depth.set(session.plsql_depth.get() - 1);
    result
}

/// The library cache namespace a unit of `kind` lives in.
pub(super) fn namespace(kind: ProgramKind) -> Namespace {
    match kind {
        ProgramKind::PackageBody => Namespace::Body,
        _ => Namespace::TableProcedure,
    }
}

/// ORA-06508: a unit called that is no longer there.
pub(super) fn not_found(name: &str) -> Error {
    Error::new(
        6508,
        format!("PL/SQL: could not find program unit being called: \"{OWNER}.{name}\""),
    )
}

/// A unit called that does not compile.
pub(super) fn invalid(name: &str) -> Error {
    errors::compilation(
        "",
        0,
        &format!("PLS-00905: object {OWNER}.{name} is invalid"),
    )
}
