//! Stored subprograms and calls of them: a procedure's or function's parameters become the
//! first slots of its frame (IN ones constants, as Oracle has them), a function's RETURN
//! assigns its result slot, and a call binds its arguments to the callee's parameters by
//! position and by name (`=>`), leaving the ones with defaults to the callee.

use std::sync::Arc;

use super::scope::{Member, Symbol};
use super::Compiler;
use crate::error::{Error, Result};
use crate::plsql::ast::{self, Mode, Subprogram, Target};
use crate::plsql::code::*;
use crate::plsql::errors;
use crate::plsql::host::{Names, Signature};
use crate::sql::eval::Expr;

/// Compiles a stored procedure or function; `name` is how `ORA-06512` lines name it
/// (`SYSTEM.P`).
pub fn compile_subprogram(
    text: &str,
    subprogram: &Subprogram,
    name: &str,
    names: &dyn Names,
) -> Result<Unit> {
    compile_subprogram_in(text, subprogram, name, names, None)
}

/// Compiles a subprogram, stored on its own or (with `package`) one of a package's, which
/// sees the package's variables and subprograms.
pub(super) fn compile_subprogram_in(
    text: &str,
    subprogram: &Subprogram,
    name: &str,
    names: &dyn Names,
    package: Option<Arc<super::packages::PackageContext>>,
) -> Result<Unit> {
    let Some(body) = &subprogram.body else {
        return Err(Error::internal("a subprogram without a body compiled"));
    };
    let mut compiler = Compiler::new(text, names);
    if package.is_none() {
        compiler.own = Some(Arc::new(Signature::of(subprogram, name, 0)));
    }
    compiler.package = package;
    compiler.scopes.push(Some(subprogram.name.clone()));
    for parameter in &subprogram.parameters {
        compiler.parameter(parameter, subprogram.position)?;
    }
    if let Some(returns) = &subprogram.returns {
        let kind = match compiler.resolve_type(returns, subprogram.position)? {
            Member::Scalar { kind, .. } => kind,
            Member::Record(_) | Member::Collection(_) => {
                return Err(compiler.error(
                    subprogram.position,
                    "PLS-00999: implementation restriction (may be temporary) a function returning a record or a collection",
                ))
            }
        };
        compiler.return_slot = Some(compiler.slot("RETURN", kind, false)?);
    }
    compiler.block(body)?;
    let end = body.position;
    if compiler.return_slot.is_some() {
        compiler.emit(Instruction::Raise(Raise::Code(6503)), end);
    } else {
        compiler.emit(Instruction::Return, end);
    }
    compiler.scopes.pop();
    compiler.finish(Some(name.to_string()))
}

impl Compiler<'_> {
    fn parameter(&mut self, parameter: &ast::Parameter, position: usize) -> Result<()> {
        let kind =
            match self.resolve_type(&parameter.type_name, position)? {
                Member::Scalar { kind, .. } => kind,
                Member::Record(_) | Member::Collection(_) => return Err(self.error(
                    position,
                    "PLS-00999: implementation restriction (may be temporary) a record or collection parameter",
                )),
            };
        let slot = self.slot(&parameter.name, kind, false)?;
        let default = match &parameter.default {
            Some(default) => Some(self.expression(default, position)?),
            None => None,
        };
        self.parameters.push(UnitParameter {
            name: parameter.name.clone(),
            slot,
            mode: parameter.mode,
            default,
        });
        let symbol = Symbol::Scalar {
            slot,
            kind,
            constant: parameter.mode == Mode::In,
        };
        if !self.scopes.declare(&parameter.name, symbol) {
            return Err(self.error(
                position,
                &format!(
                    "PLS-00410: duplicate fields in RECORD,TABLE or argument list are not permitted ('{}')",
                    parameter.name
                ),
            ));
        }
        Ok(())
    }

    /// The stored subprograms `name` names (several when overloaded): the unit itself, its
    /// package's, or those the dictionary has; none when it names none.
    pub(super) fn stored_routines(
        &self,
        name: &[String],
        position: usize,
    ) -> Result<Vec<Arc<Signature>>> {
        if let Some(own) = &self.own {
            let qualified = name.join(".");
            if own.name == qualified || own.name.rsplit('.').next() == Some(qualified.as_str()) {
                return Ok(vec![own.clone()]);
            }
        }
        if let Some(package) = &self.package {
            let member = match name {
                [member] => Some(member),
                [qualifier, member] if *qualifier == package.name => Some(member),
                _ => None,
            };
            if let Some(member) = member {
                let found = package.subprograms(member);
                if !found.is_empty() {
                    return Ok(found);
                }
            }
        }
        match self.names.routines(name) {
            Ok(found) => Ok(found.into_iter().map(Arc::new).collect()),
            Err(error) if error.message().contains("PLS-00905") => {
                let detail = error.message();
                let detail = detail.split_once('\n').map_or(detail, |(_, detail)| detail);
                Err(errors::statement_ignored(
                    self.text, position, position, detail,
                ))
            }
            Err(error) => Err(self.relocate(error, position)),
        }
    }

    /// A call of a stored procedure as a statement: the first of `candidates` (overloads)
    /// the arguments fit.
    pub(super) fn routine_call(
        &mut self,
        candidates: &[Arc<Signature>],
        arguments: &[ast::Argument],
        position: usize,
    ) -> Result<Instruction> {
        let procedures: Vec<&Arc<Signature>> = candidates
            .iter()
            .filter(|routine| !routine.function)
            .collect();
        if procedures.is_empty() {
            return Err(self.error(
                position,
                &format!(
                    "PLS-00221: '{}' is not a procedure or is undefined",
                    short_name(&candidates[0].name)
                ),
            ));
        }
        let (routine, bound) = self.choose(&procedures, arguments, position)?;
        let mut values = Vec::new();
        let mut outs = Vec::new();
        for (index, (argument, parameter)) in bound.iter().zip(&routine.parameters).enumerate() {
            let Some(argument) = argument else {
                values.push(None);
                continue;
            };
            if parameter.mode == Mode::In {
                values.push(Some(self.expression(argument, position)?));
                continue;
            }
            let target = self.assignment_target(argument, position, &routine, parameter);
            let (slot, value) = match (target, self.call_results.is_some()) {
                (Ok(target), _) => {
                    let slot =
                        self.target_slots(std::slice::from_ref(&target), "procedure call")?[0];
                    (slot, Expr::Column(slot))
                }
                // A top-level CALL's OUT argument may be any value (NULL, as PostgreSQL's
                // clients write it): the result is the parameter's own slot.
                (Err(_), true) => {
                    let slot = self.hidden_slot(&parameter.name);
                    (slot, self.expression(argument, position)?)
                }
                (Err(error), false) => return Err(error),
            };
            values.push(match parameter.mode {
                Mode::InOut => Some(value),
                _ => None,
            });
            outs.push((index, slot));
            if let Some(results) = &mut self.call_results {
                results.push((parameter.name.clone(), slot));
            }
        }
        Ok(Instruction::Call {
            routine: Arc::new(routine.routine_call()),
            arguments: values,
            outs,
        })
    }

    /// A stored function in an expression: its IN arguments by position; the first of
    /// `candidates` (overloads) they fit.
    pub(super) fn function_call(
        &mut self,
        candidates: &[Arc<Signature>],
        arguments: &[crate::syntax::ast::Expr],
        position: usize,
    ) -> Result<Expr> {
        let functions: Vec<&Arc<Signature>> = candidates
            .iter()
            .filter(|routine| routine.function)
            .collect();
        if functions.is_empty() {
            return Err(self.error(
                position,
                &format!(
                    "PLS-00222: no function with name '{}' exists in this scope",
                    short_name(&candidates[0].name)
                ),
            ));
        }
        let positional: Vec<ast::Argument> = arguments
            .iter()
            .map(|value| ast::Argument {
                name: None,
                value: value.clone(),
            })
            .collect();
        let (routine, bound) = self.choose(&functions, &positional, position)?;
        if routine
            .parameters
            .iter()
            .any(|parameter| parameter.mode != Mode::In)
        {
            return Err(self.error(
                position,
                &format!(
                    "PLS-00999: implementation restriction (may be temporary) function '{}' with OUT parameters in an expression",
                    short_name(&routine.name)
                ),
            ));
        }
        // The arguments given are the leading parameters; the rest take their defaults.
        let given = bound
            .iter()
            .take_while(|argument| argument.is_some())
            .count();
        let values = bound[..given]
            .iter()
            .flatten()
            .map(|argument| self.expression(argument, position))
            .collect::<Result<Vec<_>>>()?;
        Ok(Expr::Routine(Arc::new(routine.routine_call()), values))
    }

    /// The first candidate the arguments fit, with each parameter's argument; the first
    /// candidate's error when none fits.
    fn choose<'e>(
        &self,
        candidates: &[&Arc<Signature>],
        arguments: &'e [ast::Argument],
        position: usize,
    ) -> Result<(Arc<Signature>, Vec<Option<&'e crate::syntax::ast::Expr>>)> {
        let mut first_error = None;
        for routine in candidates {
            match self.bind_arguments(routine, arguments, position) {
                Ok(bound) => return Ok(((*routine).clone(), bound)),
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        Err(first_error.unwrap_or_else(|| Error::internal("no candidate subprogram")))
    }

    /// Each parameter's argument, by position then by name; PLS-00306 for a missing one
    /// without default, too many, or a name the subprogram does not have.
    fn bind_arguments<'e>(
        &self,
        routine: &Signature,
        arguments: &'e [ast::Argument],
        position: usize,
    ) -> Result<Vec<Option<&'e crate::syntax::ast::Expr>>> {
        let wrong = || {
            self.error(
                position,
                &format!(
                    "PLS-00306: wrong number or types of arguments in call to '{}'",
                    short_name(&routine.name)
                ),
            )
        };
        let mut bound: Vec<Option<&crate::syntax::ast::Expr>> =
            vec![None; routine.parameters.len()];
        let mut named = false;
        for (index, argument) in arguments.iter().enumerate() {
            let at = match &argument.name {
                None if named => {
                    return Err(self.error(
                        position,
                        "PLS-00312: a positional parameter association may not follow a named association",
                    ))
                }
                None => index,
                Some(name) => {
                    named = true;
                    routine
                        .parameters
                        .iter()
                        .position(|parameter| &parameter.name == name)
                        .ok_or_else(wrong)?
                }
            };
            match bound.get_mut(at) {
                Some(slot @ None) => *slot = Some(&argument.value),
                _ => return Err(wrong()),
            }
        }
        for (argument, parameter) in bound.iter().zip(&routine.parameters) {
            if argument.is_none() && !parameter.has_default && parameter.mode != Mode::Out {
                return Err(wrong());
            }
            if argument.is_none() && parameter.mode == Mode::Out {
                return Err(wrong());
            }
        }
        Ok(bound)
    }

    /// An OUT or IN OUT argument: a variable, a record's field or a host bind.
    fn assignment_target(
        &self,
        argument: &crate::syntax::ast::Expr,
        position: usize,
        routine: &Signature,
        parameter: &crate::plsql::host::ParameterSignature,
    ) -> Result<Target> {
        use crate::syntax::ast::Expr as E;
        match argument {
            E::Column {
                schema,
                table,
                name,
            } => Ok(Target::Name(
                super::name_parts(schema, table, name),
                position,
            )),
            E::Bind { name, .. } => Ok(Target::Bind(name.clone(), position)),
            _ => Err(self.error(
                position,
                &format!(
                    "PLS-00363: expression '{}' cannot be used as an assignment target (the {} parameter {} of {})",
                    crate::syntax::print::expression(argument).unwrap_or_default(),
                    parameter.mode.name(),
                    parameter.name,
                    short_name(&routine.name)
                ),
            )),
        }
    }
}

/// A qualified name without its schema, as PLS- messages show it.
fn short_name(name: &str) -> &str {
    name.split_once('.').map_or(name, |(_, rest)| rest)
}
