//! The compiler: a unit's tree to its [`Unit`] (`plsql::code`).
//!
//! One pass over the tree. Declarations allocate slots in the unit's one frame (a record
//! takes a slot per field, flattened); names resolve through a stack of scopes
//! (`scope.rs`), innermost first, a block's label qualifying its names; expressions become
//! SQL's compiled expressions over the frame (`expression.rs`); statements become
//! instructions with jumps, patched when their targets are known (`statements.rs`); and
//! static SQL is normalised into the text every session shares in the library cache, its
//! PL/SQL variables replaced by binds (`static_sql.rs`).
//!
//! Errors are Oracle's compilation errors (ORA-06550 with the line and column): PLS-00201
//! for a name not declared, PLS-00363 for an assignment to a constant or a loop counter,
//! PLS-00375 for a GOTO to a label it cannot reach, `PL/SQL: ORA-00942` for static SQL on a
//! table that is not there, and so on. The first error stops the compilation.

use crate::error::{Error, Result};
use crate::plsql::ast::Block;
use crate::plsql::code::*;
use crate::plsql::errors;
use crate::plsql::host::{ColumnType, Names};

mod expression;
mod packages;
mod scope;
mod statements;
mod static_sql;
mod subprograms;

pub use packages::{compile_package, PackageSource};
use scope::Scopes;
pub use subprograms::compile_subprogram;

/// The most slots a unit's frame has (variables, record fields, cursor attributes).
pub const SLOTS_MAX: usize = 65_536;

/// Compiles an anonymous block. `text` is the block as sent (its line numbers are the
/// unit's); `names` answers what its SQL and declarations name.
pub fn compile_block(text: &str, block: &Block, names: &dyn Names) -> Result<Unit> {
    let mut compiler = Compiler::new(text, names);
    compiler.block(block)?;
    compiler.emit(Instruction::Return, block.position);
    compiler.finish(None)
}

/// Compiles a top-level `CALL p(...)`, given as the block `BEGIN p(...); END;`: as
/// `compile_block`, and the procedure's OUT and IN OUT parameters are the call's results
/// (`Unit::call_results`), as PostgreSQL returns them as a row. An OUT argument that is not
/// a variable or a bind (PostgreSQL's clients pass NULL there) gets a slot of its own.
pub fn compile_call(text: &str, block: &Block, names: &dyn Names) -> Result<Unit> {
    let mut compiler = Compiler::new(text, names);
    compiler.call_results = Some(Vec::new());
    compiler.block(block)?;
    compiler.emit(Instruction::Return, block.position);
    compiler.finish(None)
}

/// A loop being compiled: where EXIT and CONTINUE go.
struct Loop {
    label: Option<String>,
    /// CONTINUE's target when known at the loop's start; else patched with `continues`.
    continue_at: Option<usize>,
    exits: Vec<usize>,
    continues: Vec<usize>,
    handler_depth: usize,
    exception_depth: usize,
    /// A cursor FOR loop's cursor, closed by EXIT.
    cursor: Option<usize>,
}

/// A `<<label>>` on a statement: where it is and how deep, for GOTO.
struct Label {
    name: String,
    at: usize,
    handler_depth: usize,
    exception_depth: usize,
    /// The statement lists enclosing it (their ids), innermost last.
    lists: Vec<usize>,
}

/// A GOTO waiting for its label.
struct Goto {
    label: String,
    instruction: usize,
    handler_depth: usize,
    exception_depth: usize,
    lists: Vec<usize>,
    position: usize,
}

pub(super) struct Compiler<'a> {
    text: &'a str,
    names: &'a dyn Names,
    code: Vec<Instruction>,
    lines: Vec<u32>,
    slots: Vec<Slot>,
    bind_slots: Vec<(String, usize)>,
    statements: Vec<StaticSql>,
    /// The result columns of each query among `statements`, described once when compiled
    /// (None for other statements).
    described: Vec<Option<Vec<ColumnType>>>,
    cursors: Vec<Cursor>,
    handlers: Vec<HandlerTable>,
    exceptions: Vec<UserException>,
    scopes: Scopes,
    loops: Vec<Loop>,
    labels: Vec<Label>,
    gotos: Vec<Goto>,
    /// Handler tables pushed where the code now is.
    handler_depth: usize,
    /// Handlers whose code encloses where the code now is.
    exception_depth: usize,
    /// Statement lists enclosing where the code now is, and the next list's id.
    lists: Vec<usize>,
    next_list: usize,
    sql_cursor: CursorSlots,
    sqlcode_slot: usize,
    sqlerrm_slot: usize,
    error_stack_slot: usize,
    backtrace_slot: usize,
    parameters: Vec<UnitParameter>,
    return_slot: Option<usize>,
    /// The subprogram being compiled, which its own body may call.
    own: Option<std::sync::Arc<crate::plsql::host::Signature>>,
    /// The package whose unit this is: its variables and subprograms, in scope.
    package: Option<std::sync::Arc<packages::PackageContext>>,
    /// The package variables the unit names, each mirrored by a slot.
    globals: Vec<GlobalMirror>,
    /// The unit's collection variables, by number.
    collections: Vec<CollectionDef>,
    /// A top-level CALL's OUT and IN OUT parameters (`compile_call`): their names and slots.
    call_results: Option<Vec<(String, usize)>>,
}

impl<'a> Compiler<'a> {
    fn new(text: &'a str, names: &'a dyn Names) -> Compiler<'a> {
        let mut compiler = Compiler {
            text,
            names,
            code: Vec::new(),
            lines: Vec::new(),
            slots: Vec::new(),
            bind_slots: Vec::new(),
            statements: Vec::new(),
            described: Vec::new(),
            cursors: Vec::new(),
            handlers: Vec::new(),
            exceptions: Vec::new(),
            scopes: Scopes::default(),
            loops: Vec::new(),
            labels: Vec::new(),
            gotos: Vec::new(),
            handler_depth: 0,
            exception_depth: 0,
            lists: Vec::new(),
            next_list: 0,
            sql_cursor: CursorSlots {
                found: 0,
                notfound: 0,
                isopen: 0,
                rowcount: 0,
            },
            sqlcode_slot: 0,
            sqlerrm_slot: 0,
            error_stack_slot: 0,
            backtrace_slot: 0,
            parameters: Vec::new(),
            return_slot: None,
            own: None,
            package: None,
            globals: Vec::new(),
            collections: Vec::new(),
            call_results: None,
        };
        compiler.sql_cursor = compiler.cursor_slots("SQL");
        compiler.sqlcode_slot = compiler.hidden_slot("SQLCODE");
        compiler.sqlerrm_slot = compiler.hidden_slot("SQLERRM");
        compiler.error_stack_slot = compiler.hidden_slot("DBMS_UTILITY.FORMAT_ERROR_STACK");
        compiler.backtrace_slot = compiler.hidden_slot("DBMS_UTILITY.FORMAT_ERROR_BACKTRACE");
        compiler
    }

    fn finish(mut self, name: Option<String>) -> Result<Unit> {
        self.patch_gotos()?;
        debug_assert_eq!(self.code.len(), self.lines.len(), "a line per instruction");
        debug_assert_eq!(
            self.handler_depth, 0,
            "every handler table pushed is popped"
        );
        Ok(Unit {
            name,
            object_id: 0,
            code: self.code,
            lines: self.lines,
            slots: self.slots,
            bind_slots: self.bind_slots.into_iter().map(|(_, slot)| slot).collect(),
            statements: self.statements,
            cursors: self.cursors,
            handlers: self.handlers,
            exceptions: self.exceptions,
            sql_cursor: self.sql_cursor,
            sqlcode_slot: self.sqlcode_slot,
            sqlerrm_slot: self.sqlerrm_slot,
            error_stack_slot: self.error_stack_slot,
            backtrace_slot: self.backtrace_slot,
            parameters: self.parameters,
            return_slot: self.return_slot,
            globals: self.globals,
            collections: self.collections,
            call_results: self.call_results.unwrap_or_default(),
        })
    }

    // ---- Emitting ------------------------------------------------------------------------

    /// Appends an instruction for the source at `position`; returns its index.
    fn emit(&mut self, instruction: Instruction, position: usize) -> usize {
        let line = errors::line_column(self.text, position).0 as u32;
        self.code.push(instruction);
        self.lines.push(line);
        self.code.len() - 1
    }

    /// The index the next instruction will have.
    fn here(&self) -> usize {
        self.code.len()
    }

    /// Points the jump at `at` to `to`.
    fn patch(&mut self, at: usize, to: usize) {
        match &mut self.code[at] {
            Instruction::Jump(target)
            | Instruction::JumpUnless { to: target, .. }
            | Instruction::Leave { to: target, .. }
            | Instruction::ForStart { exit: target, .. } => *target = to,
            Instruction::Fetch { exit, .. } => *exit = Some(to),
            other => debug_assert!(false, "patching {other:?}"),
        }
    }

    // ---- Slots ---------------------------------------------------------------------------

    fn slot(&mut self, name: &str, kind: SlotKind, not_null: bool) -> Result<usize> {
        if self.slots.len() >= SLOTS_MAX {
            return Err(Error::new(
                6550,
                format!("PLS-00123: program too large (more than {SLOTS_MAX} variables)"),
            ));
        }
        self.slots.push(Slot {
            name: name.to_string(),
            kind,
            not_null,
        });
        Ok(self.slots.len() - 1)
    }

    fn hidden_slot(&mut self, name: &str) -> usize {
        self.slots.push(Slot {
            name: name.to_string(),
            kind: SlotKind::Any,
            not_null: false,
        });
        self.slots.len() - 1
    }

    fn cursor_slots(&mut self, cursor: &str) -> CursorSlots {
        CursorSlots {
            found: self.hidden_slot(&format!("{cursor}%FOUND")),
            notfound: self.hidden_slot(&format!("{cursor}%NOTFOUND")),
            isopen: self.hidden_slot(&format!("{cursor}%ISOPEN")),
            rowcount: self.hidden_slot(&format!("{cursor}%ROWCOUNT")),
        }
    }

    /// The slot of host bind `:name`, made at its first use.
    fn bind_slot(&mut self, name: &str) -> usize {
        if let Some((_, slot)) = self.bind_slots.iter().find(|(bind, _)| bind == name) {
            return *slot;
        }
        let slot = self.hidden_slot(&format!(":{name}"));
        self.bind_slots.push((name.to_string(), slot));
        slot
    }

    // ---- Names ---------------------------------------------------------------------------

    /// A dotted name as a variable, record or field: declared in a block of the unit, else
    /// a variable of the unit's own package (`g`, `pkg.g`), else a public variable of
    /// another package (`other.g`), mirrored by a slot of the unit's frame.
    fn resolve(&mut self, parts: &[String]) -> Result<Option<scope::Resolved>> {
        if let Some(resolved) = self.scopes.resolve(parts) {
            return Ok(Some(resolved));
        }
        if let Some(package) = self.package.clone() {
            let global = match parts {
                [name] => package.global(name),
                [qualifier, name] if *qualifier == package.name => package.global(name),
                _ => None,
            };
            if let Some((global, kind, constant)) = global {
                let slot = self.mirror(&package.name, global, kind)?;
                return Ok(Some(scope::Resolved::Scalar {
                    slot,
                    kind,
                    constant,
                }));
            }
        }
        let (package, name) = match parts {
            [package, name] => (package, name),
            [schema, package, name] if schema == crate::catalog::OWNER => (package, name),
            _ => return Ok(None),
        };
        let Some(variable) = self.names.package_variable(package, name)? else {
            return Ok(None);
        };
        let slot = self.mirror(package, variable.global, variable.kind)?;
        Ok(Some(scope::Resolved::Scalar {
            slot,
            kind: variable.kind,
            constant: variable.constant,
        }))
    }

    /// The unit's slot mirroring variable `global` of `package`, made at its first use.
    fn mirror(&mut self, package: &str, global: usize, kind: SlotKind) -> Result<usize> {
        if let Some(mirror) = self
            .globals
            .iter()
            .find(|mirror| &*mirror.package == package && mirror.global == global)
        {
            return Ok(mirror.slot);
        }
        let slot = self.slot(&format!("{package}.{global}"), kind, false)?;
        self.globals.push(GlobalMirror {
            package: package.into(),
            global,
            slot,
        });
        Ok(slot)
    }

    // ---- Errors --------------------------------------------------------------------------

    fn error(&self, position: usize, message: &str) -> Error {
        errors::compilation(self.text, position, message)
    }

    fn undeclared(&self, position: usize, name: &[String]) -> Error {
        self.error(
            position,
            &format!(
                "PLS-00201: identifier '{}' must be declared",
                name.join(".")
            ),
        )
    }

    // ---- Blocks --------------------------------------------------------------------------

    fn block(&mut self, block: &Block) -> Result<()> {
        self.scopes.push(block.label.clone());
        for declaration in &block.declarations {
            self.declaration(declaration)?;
        }
        let with_handlers = !block.handlers.is_empty();
        let table = self.handlers.len();
        if with_handlers {
            self.handlers.push(HandlerTable::default());
            self.emit(Instruction::PushHandlers(table), block.position);
            self.handler_depth += 1;
        }
        self.statement_list(&block.body)?;
        if with_handlers {
            let end_position = block
                .handlers
                .first()
                .map_or(block.position, |handler| handler.position);
            self.emit(Instruction::PopHandlers, end_position);
            self.handler_depth -= 1;
            let skip = self.emit(Instruction::Jump(0), end_position);
            let mut ends = vec![skip];
            for handler in &block.handlers {
                let catches = handler
                    .exceptions
                    .iter()
                    .map(|name| self.catch(name, handler.position))
                    .collect::<Result<Vec<Catch>>>()?;
                let start = self.here();
                self.handlers[table].entries.push((catches, start));
                self.exception_depth += 1;
                self.statement_list(&handler.body)?;
                self.exception_depth -= 1;
                self.emit(Instruction::HandlerDone, handler.position);
                ends.push(self.emit(Instruction::Jump(0), handler.position));
            }
            let end = self.here();
            for at in ends {
                self.patch(at, end);
            }
        }
        self.scopes.pop();
        Ok(())
    }

    /// What a handler's `WHEN name` catches.
    fn catch(&self, name: &[String], position: usize) -> Result<Catch> {
        if name.len() == 1 && name[0] == "OTHERS" {
            return Ok(Catch::Others);
        }
        match self.exception(name, position)? {
            Raise::Code(code) => Ok(Catch::Code(code)),
            Raise::User(id) => Ok(Catch::User(id)),
        }
    }

    /// The exception a name denotes: a user-declared one in scope, else one of the unit's
    /// own package (`e`, `pkg.e`) or of another package's specification (`other.e`), else
    /// a predefined one.
    fn exception(&self, name: &[String], position: usize) -> Result<Raise> {
        if let Some(id) = self.scopes.exception(name) {
            return Ok(match self.exceptions[id].code {
                Some(code) => Raise::Code(code),
                None => Raise::User(id),
            });
        }
        if let Some(package) = &self.package {
            let own = match name {
                [exception] => package.exception(exception),
                [qualifier, exception] if *qualifier == package.name => {
                    package.exception(exception)
                }
                _ => None,
            };
            if let Some(code) = own {
                return Ok(Raise::Code(code));
            }
        }
        let other = match name {
            [package, exception] => Some((package, exception)),
            [schema, package, exception] if schema == crate::catalog::OWNER => {
                Some((package, exception))
            }
            _ => None,
        };
        if let Some((package, exception)) = other {
            if let Some(code) = self.names.package_exception(package, exception)? {
                return Ok(Raise::Code(code));
            }
        }
        let bare = match name {
            [name] => name.as_str(),
            [standard, name] if standard == "STANDARD" => name.as_str(),
            _ => return Err(self.undeclared(position, name)),
        };
        errors::predefined(bare)
            .map(Raise::Code)
            .ok_or_else(|| self.undeclared(position, name))
    }

    fn patch_gotos(&mut self) -> Result<()> {
        for goto in std::mem::take(&mut self.gotos) {
            let label = self
                .labels
                .iter()
                .filter(|label| label.name == goto.label)
                .find(|label| {
                    // A label is reachable from the statement lists that enclose it.
                    label.lists.len() <= goto.lists.len()
                        && goto.lists[..label.lists.len()] == label.lists[..]
                        && label.exception_depth <= goto.exception_depth
                });
            let Some(label) = label else {
                return Err(self.error(
                    goto.position,
                    &format!(
                        "PLS-00375: illegal GOTO statement; this GOTO cannot branch to label '{}'",
                        goto.label
                    ),
                ));
            };
            self.code[goto.instruction] = leave(
                goto.handler_depth - label.handler_depth.min(goto.handler_depth),
                goto.exception_depth - label.exception_depth,
                Vec::new(),
                label.at,
            );
        }
        Ok(())
    }
}

/// A column reference's name as its parts: `[schema.][table.]name`.
fn name_parts(schema: &Option<String>, table: &Option<String>, name: &str) -> Vec<String> {
    [schema, table]
        .into_iter()
        .flatten()
        .cloned()
        .chain(std::iter::once(name.to_string()))
        .collect()
}

/// The instructions that leave nested handler scopes and loops to jump to `to`: as one
/// jump when nothing is left behind.
fn leave(pop_handlers: usize, handlers_done: usize, close: Vec<usize>, to: usize) -> Instruction {
    if pop_handlers == 0 && handlers_done == 0 && close.is_empty() {
        Instruction::Jump(to)
    } else {
        Instruction::Leave {
            pop_handlers,
            handlers_done,
            close,
            to,
        }
    }
}
