//! The interpreter: runs a compiled [`Unit`] in a frame of its own for one call.
//!
//! ```text
//!   run(unit, host, state, binds)
//!     frame: a Value per slot, host binds copied in
//!     loop: the instruction at pc ── Next / Jump / Return
//!           an error ── unwind: pop handler tables until one catches it
//!                       (its code runs with the exception as SQLCODE / SQLERRM)
//!                    ── none: the error leaves the unit with `ORA-06512: at line n`
//!     host binds copied out
//! ```
//!
//! Expressions are evaluated by SQL's evaluator with the frame as the row. Static SQL and the
//! procedures the session runs go through the [`Host`]. Between instructions the interpreter
//! checks for an interrupt (a cancel, `statement_timeout`, the client gone); those errors are
//! not caught by any handler, so that no loop outlives them.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::instrumentation::{self, interrupt, WaitEvent};
use crate::plsql::ast::Mode;
use crate::plsql::code::*;
use crate::plsql::errors::{self, sqlcode};
use crate::plsql::host::{Called, Host};
use crate::plsql::output::Output;
use crate::sql::eval::{self, CollectionMethod, Context, Expr, RoutineCall, RoutineRunner};
use crate::types::Value;

mod collections;
mod convert;

use collections::Collection;
pub use collections::SESSION_PLSQL_MEMORY_MAX;
pub use convert::pls_integer;

/// Instructions between two interrupt checks.
const INTERRUPT_CHECK_INSTRUCTIONS: u32 = 64;

/// The most handlers being handled at once (a handler's block raising inside a handler...).
const EXCEPTIONS_MAX: usize = 256;

/// What a session keeps of PL/SQL between calls: DBMS_OUTPUT's buffer and the state of
/// each package it has used.
#[derive(Debug, Default)]
pub struct SessionState {
    pub output: Output,
    pub packages: std::collections::HashMap<String, PackageInstance>,
    /// The bytes the session's running units hold in collections, bounded by
    /// [`SESSION_PLSQL_MEMORY_MAX`].
    pub memory: u64,
}

/// A session's state of a package: its variables' values, for the compiled package they
/// were made by.
#[derive(Debug)]
pub struct PackageInstance {
    pub unit: std::sync::Arc<PackageUnit>,
    pub slots: Vec<Value>,
}

/// Runs `unit` with `binds` for its host binds (in the order `unit.bind_slots` lists them),
/// which come back with the values the unit left in them; returns the values of its
/// `call_results` (a top-level CALL's OUT parameters).
pub fn run(
    unit: &Unit,
    host: &mut dyn Host,
    state: &mut SessionState,
    binds: &mut [Value],
) -> Result<Vec<Value>> {
    let mut machine = Machine::new(unit, host, state);
    for (index, slot) in unit.bind_slots.iter().enumerate() {
        machine.slots[*slot] = binds.get(index).cloned().unwrap_or(Value::Null);
    }
    let result = machine.run();
    let results = unit
        .call_results
        .iter()
        .map(|(_, slot)| machine.slots[*slot].clone())
        .collect();
    for (index, slot) in unit.bind_slots.iter().enumerate() {
        if let Some(bind) = binds.get_mut(index) {
            *bind = std::mem::replace(&mut machine.slots[*slot], Value::Null);
        }
    }
    result.map(|()| results)
}

/// Calls a stored subprogram: `arguments` holds a value for each parameter the caller gave
/// (IN and IN OUT ones) and None for the others (OUT ones, and IN ones left to their
/// defaults, which are evaluated here in order). The parameters' values at the end come
/// back for the caller's OUT and IN OUT arguments, with a function's result; an unhandled
/// exception comes back as the error, the OUT arguments untouched.
pub fn call(
    unit: &Unit,
    host: &mut dyn Host,
    state: &mut SessionState,
    arguments: Vec<Option<Value>>,
) -> Result<Called> {
    if arguments.len() > unit.parameters.len() {
        let name = unit.name.as_deref().unwrap_or("");
        return Err(Error::new(
            6550,
            format!("line 1, column 7:\nPLS-00306: wrong number or types of arguments in call to '{name}'"),
        ));
    }
    let mut machine = Machine::new(unit, host, state);
    machine.enter_packages()?;
    let mut arguments = arguments.into_iter();
    for parameter in &unit.parameters {
        match arguments.next().flatten() {
            Some(value) => machine.assign(parameter.slot, value)?,
            None => {
                if let (Mode::In, Some(default)) = (parameter.mode, &parameter.default) {
                    let value = machine.evaluate(default)?;
                    machine.assign(parameter.slot, value)?;
                }
            }
        }
    }
    let result = machine.execute();
    machine.store_globals();
    result?;
    let parameters = unit
        .parameters
        .iter()
        .map(|parameter| std::mem::replace(&mut machine.slots[parameter.slot], Value::Null))
        .collect();
    let value = unit
        .return_slot
        .map(|slot| std::mem::replace(&mut machine.slots[slot], Value::Null));
    Ok(Called { parameters, value })
}

/// Runs the stored functions a unit's expressions call, through its host, and reads the
/// unit's collections.
struct Runner<'r> {
    host: RefCell<&'r mut dyn Host>,
    state: RefCell<&'r mut SessionState>,
    unit: &'r Unit,
    collections: &'r [Collection],
}

impl RoutineRunner for Runner<'_> {
    fn call_function(&self, routine: &RoutineCall, arguments: Vec<Value>) -> Result<Value> {
        let mut host = self.host.borrow_mut();
        let mut state = self.state.borrow_mut();
        let arguments = arguments.into_iter().map(Some).collect();
        let called = host.call_routine(routine, arguments, &mut state)?;
        called
            .value
            .ok_or_else(|| Error::internal("a function returned no value"))
    }

    fn collection(
        &self,
        collection: u32,
        method: CollectionMethod,
        arguments: &[Value],
    ) -> Result<Value> {
        let index = collection as usize;
        match (
            self.collections.get(index),
            self.unit.collections.get(index),
        ) {
            (Some(collection), Some(definition)) => collection.read(definition, method, arguments),
            _ => Err(Error::internal("a collection the unit does not declare")),
        }
    }
}

/// An exception in flight or being handled.
#[derive(Debug, Clone)]
struct Exception {
    code: u32,
    message: String,
    /// A user-declared exception without EXCEPTION_INIT.
    user: Option<usize>,
    /// The unit's line that raised it.
    line: u32,
}

impl Exception {
    fn sqlcode(&self) -> i64 {
        if self.user.is_some() {
            1
        } else {
            sqlcode(self.code)
        }
    }

    /// SQLERRM: the error's own line, without the `ORA-06512` stack a subprogram's error
    /// carries.
    fn sqlerrm(&self) -> String {
        if self.user.is_some() {
            "User-Defined Exception".to_string()
        } else {
            let message = self
                .message
                .split_once("\nORA-06512: ")
                .map_or(self.message.as_str(), |(first, _)| first);
            Error::new(self.code, message.to_string()).to_string()
        }
    }

    /// DBMS_UTILITY.FORMAT_ERROR_BACKTRACE: the `ORA-06512` lines the exception brought
    /// from the subprograms it crossed, then where this unit raised it.
    fn backtrace(&self, unit: &Unit) -> String {
        let mut lines = String::new();
        if self.user.is_none() {
            for line in self.message.lines().skip(1) {
                if line.starts_with("ORA-06512: ") {
                    lines.push_str(line);
                    lines.push('\n');
                }
            }
        }
        let at = match &unit.name {
            Some(name) => format!("at \"{name}\", line {}", self.line),
            None => format!("at line {}", self.line),
        };
        // Innermost first, as Oracle lists them: the unit's own line is the last.
        format!("{lines}ORA-06512: {at}\n")
    }

    /// The error the caller sees: Oracle's, then where the unit raised it.
    fn into_error(self, unit: &Unit) -> Error {
        let (code, message) = match self.user {
            Some(_) => (6510, "PL/SQL: unhandled user-defined exception".to_string()),
            None => (self.code, self.message),
        };
        let at = match &unit.name {
            Some(name) => format!("at \"{name}\", line {}", self.line),
            None => format!("at line {}", self.line),
        };
        Error::new(code, format!("{message}\nORA-06512: {at}"))
    }
}

/// An open cursor: the rows its OPEN read (as of the OPEN, as Oracle's read consistency
/// has it) and how many were fetched.
#[derive(Debug, Clone)]
struct OpenCursor {
    rows: std::collections::VecDeque<Vec<Value>>,
    fetched: u64,
    /// The handler tables pushed when it was opened: unwinding below them closes it.
    handler_depth: usize,
}

/// A handler table pushed, and how many exceptions were being handled then.
struct ActiveHandlers {
    table: usize,
    exception_depth: usize,
}

enum Flow {
    Next,
    Jump(usize),
    Return,
    /// An exception the unit raises itself (RAISE, RAISE;).
    Raise(Exception),
}

struct Machine<'a> {
    unit: &'a Unit,
    host: &'a mut dyn Host,
    state: &'a mut SessionState,
    slots: Vec<Value>,
    handlers: Vec<ActiveHandlers>,
    exceptions: Vec<Exception>,
    cursors: Vec<Option<OpenCursor>>,
    /// The unit's collections' elements (`Unit::collections`).
    collections: Vec<Collection>,
    /// The instruction running now.
    pc: usize,
}

impl Drop for Machine<'_> {
    /// The collections' elements go with the run: the session's PL/SQL memory is given back.
    fn drop(&mut self) {
        let held: u64 = self.collections.iter().map(Collection::bytes).sum();
        self.state.memory = self.state.memory.saturating_sub(held);
    }
}

impl<'a> Machine<'a> {
    fn new(unit: &'a Unit, host: &'a mut dyn Host, state: &'a mut SessionState) -> Machine<'a> {
        let mut machine = Machine {
            unit,
            host,
            state,
            slots: vec![Value::Null; unit.slots.len()],
            handlers: Vec::new(),
            exceptions: Vec::new(),
            cursors: vec![None; unit.cursors.len()],
            collections: vec![Collection::default(); unit.collections.len()],
            pc: 0,
        };
        machine.reset_sql_attributes();
        machine.set_exception_slots();
        machine
    }

    /// Runs the unit from its start, its package variables loaded first and stored back
    /// however it ends.
    fn run(&mut self) -> Result<()> {
        self.enter_packages()?;
        let result = self.execute();
        self.store_globals();
        result
    }

    /// Where the statement running now is: the unit's object id and the line.
    fn origin(&self) -> (u32, u32) {
        let line = self.unit.lines.get(self.pc).copied().unwrap_or(0);
        (self.unit.object_id, line)
    }

    /// Makes sure the session has the state of every package the unit names, and loads
    /// the unit's mirrors of their variables.
    fn enter_packages(&mut self) -> Result<()> {
        if self.unit.globals.is_empty() {
            return Ok(());
        }
        let mut done: Vec<&str> = Vec::new();
        for mirror in &self.unit.globals {
            if !done.contains(&&*mirror.package) {
                self.host.package_state(&mirror.package, self.state)?;
                done.push(&mirror.package);
            }
        }
        self.load_globals();
        Ok(())
    }

    /// The mirrors from the session's package state.
    fn load_globals(&mut self) {
        for mirror in &self.unit.globals {
            if let Some(instance) = self.state.packages.get(&*mirror.package) {
                if let Some(value) = instance.slots.get(mirror.global) {
                    self.slots[mirror.slot] = value.clone();
                }
            }
        }
    }

    /// The mirrors to the session's package state.
    fn store_globals(&mut self) {
        for mirror in &self.unit.globals {
            if let Some(instance) = self.state.packages.get_mut(&*mirror.package) {
                if let Some(value) = instance.slots.get_mut(mirror.global) {
                    *value = self.slots[mirror.slot].clone();
                }
            }
        }
    }

    fn execute(&mut self) -> Result<()> {
        let mut pc = 0;
        let mut countdown = INTERRUPT_CHECK_INSTRUCTIONS;
        loop {
            countdown -= 1;
            if countdown == 0 {
                countdown = INTERRUPT_CHECK_INSTRUCTIONS;
                interrupt::check_waiting()?;
            }
            let Some(instruction) = self.unit.code.get(pc) else {
                return Err(Error::internal("PL/SQL code ends without RETURN"));
            };
            self.pc = pc;
            match self.step(instruction) {
                Ok(Flow::Next) => pc += 1,
                Ok(Flow::Jump(to)) => pc = to,
                Ok(Flow::Return) => return Ok(()),
                Ok(Flow::Raise(mut exception)) => {
                    exception.line = self.unit.lines[pc];
                    pc = self.unwind(exception)?;
                }
                Err(error) if interrupt::is_interrupt(&error) => return Err(error),
                Err(error) => {
                    let exception = Exception {
                        code: error.code(),
                        message: error.message().to_string(),
                        user: None,
                        line: self.unit.lines[pc],
                    };
                    pc = self.unwind(exception)?;
                }
            }
        }
    }

    /// Evaluates an expression over the frame; the stored functions it calls run through
    /// the host.
    fn evaluate(&mut self, expr: &Expr) -> Result<Value> {
        if !self.unit.globals.is_empty() && expr.calls_routines() {
            // The functions called may read and change the package variables.
            self.store_globals();
            let value = self.evaluate_over_frame(expr);
            self.load_globals();
            return value;
        }
        self.evaluate_over_frame(expr)
    }

    fn evaluate_over_frame(&mut self, expr: &Expr) -> Result<Value> {
        let runner = Runner {
            host: RefCell::new(&mut *self.host),
            state: RefCell::new(&mut *self.state),
            unit: self.unit,
            collections: &self.collections,
        };
        let context = Context {
            routines: Some(&runner),
            ..Context::standalone()
        };
        expr.evaluate(&self.slots, &context)
    }

    fn assign(&mut self, slot: usize, value: Value) -> Result<()> {
        let value = convert::assign(value, &self.unit.slots[slot])?;
        self.slots[slot] = value;
        Ok(())
    }

    fn step(&mut self, instruction: &Instruction) -> Result<Flow> {
        match instruction {
            Instruction::Assign { slot, expr } => {
                let value = self.evaluate(expr)?;
                self.assign(*slot, value)?;
            }
            Instruction::Copy { from, to, count } => {
                for offset in 0..*count {
                    let value = self.slots[from + offset].clone();
                    self.assign(to + offset, value)?;
                }
            }
            Instruction::Jump(to) => return Ok(Flow::Jump(*to)),
            Instruction::Leave {
                pop_handlers,
                handlers_done,
                close,
                to,
            } => {
                for _ in 0..*pop_handlers {
                    self.handlers.pop();
                }
                for _ in 0..*handlers_done {
                    self.exceptions.pop();
                }
                if *handlers_done > 0 {
                    self.set_exception_slots();
                }
                for cursor in close {
                    self.close(*cursor);
                }
                return Ok(Flow::Jump(*to));
            }
            Instruction::JumpUnless { condition, to } => {
                if eval::truth(&self.evaluate(condition)?) != Some(true) {
                    return Ok(Flow::Jump(*to));
                }
            }
            Instruction::ForStart {
                counter,
                limit,
                low,
                high,
                reverse,
                exit,
            } => {
                let low = convert::required_integer(&self.evaluate(low)?)?;
                let high = convert::required_integer(&self.evaluate(high)?)?;
                if low > high {
                    return Ok(Flow::Jump(*exit));
                }
                let (start, end) = if *reverse { (high, low) } else { (low, high) };
                self.slots[*counter] = Value::integer(start);
                self.slots[*limit] = Value::integer(end);
            }
            Instruction::ForStep {
                counter,
                limit,
                reverse,
                body,
            } => {
                let current = convert::pls_integer(&self.slots[*counter])?;
                let end = convert::pls_integer(&self.slots[*limit])?;
                if current != end {
                    let next = if *reverse { current - 1 } else { current + 1 };
                    self.slots[*counter] = Value::integer(next);
                    return Ok(Flow::Jump(*body));
                }
            }
            Instruction::Sql(statement) => self.static_sql(*statement)?,
            Instruction::Open(cursor) => self.open(*cursor)?,
            Instruction::Fetch { cursor, into, exit } => {
                let attributes = self.unit.cursors[*cursor].attributes;
                let Some(open) = self.cursors[*cursor].as_mut() else {
                    return Err(Error::new(1001, "invalid cursor"));
                };
                match open.rows.pop_front() {
                    Some(mut row) => {
                        open.fetched += 1;
                        let fetched = open.fetched;
                        // A cursor FOR UPDATE: the row's rowid, for WHERE CURRENT OF.
                        if let Some(slot) = self.unit.cursors[*cursor].rowid {
                            self.slots[slot] = row.pop().unwrap_or(Value::Null);
                        }
                        if row.len() != into.len() {
                            return Err(Error::new(
                                6504,
                                "PL/SQL: Return types of Result Set variables or query do not match",
                            ));
                        }
                        for (slot, value) in into.iter().zip(row) {
                            self.assign(*slot, value)?;
                        }
                        self.set_cursor_attributes(attributes, Some(true), fetched);
                    }
                    None => {
                        let fetched = open.fetched;
                        self.set_cursor_attributes(attributes, Some(false), fetched);
                        if let Some(exit) = exit {
                            self.close(*cursor);
                            return Ok(Flow::Jump(*exit));
                        }
                    }
                }
            }
            Instruction::Close(cursor) => {
                if self.cursors[*cursor].is_none() {
                    return Err(Error::new(1001, "invalid cursor"));
                }
                self.close(*cursor);
            }
            Instruction::Raise(raise) => {
                let line = 0; // set where it is caught: the instruction's line
                let exception = match *raise {
                    Raise::Code(code) => Exception {
                        code,
                        message: errors::standard_message(code),
                        user: None,
                        line,
                    },
                    Raise::User(id) => Exception {
                        code: 6510,
                        message: self.unit.exceptions[id].name.clone(),
                        user: Some(id),
                        line,
                    },
                };
                return Ok(Flow::Raise(exception));
            }
            Instruction::RaiseApplicationError { code, message } => {
                let number = convert::required_integer(&self.evaluate(code)?)?;
                if !(-20999..=-20000).contains(&number) {
                    return Err(Error::new(
                        21000,
                        format!(
                            "error number argument to raise_application_error of {number} is out of range"
                        ),
                    ));
                }
                let mut message = self.evaluate(message)?.to_text().unwrap_or_default();
                truncate_to(&mut message, 2048);
                return Err(Error::new((-number) as u32, message));
            }
            Instruction::Reraise => {
                let Some(exception) = self.exceptions.last().cloned() else {
                    return Err(Error::internal("RAISE; outside a handler"));
                };
                return Ok(Flow::Raise(exception));
            }
            Instruction::CaseNotFound => {
                return Err(Error::new(
                    6592,
                    "CASE not found while executing CASE statement",
                ))
            }
            Instruction::PushHandlers(table) => self.handlers.push(ActiveHandlers {
                table: *table,
                exception_depth: self.exceptions.len(),
            }),
            Instruction::PopHandlers => {
                self.handlers.pop();
            }
            Instruction::HandlerDone => {
                self.exceptions.pop();
                self.set_exception_slots();
            }
            Instruction::Output {
                call,
                arguments,
                targets,
            } => self.output(*call, arguments, targets)?,
            Instruction::Sleep(seconds) => self.sleep(seconds)?,
            Instruction::HostCall {
                name,
                arguments,
                named,
            } => {
                let values = arguments
                    .iter()
                    .map(|argument| self.evaluate(argument))
                    .collect::<Result<Vec<_>>>()?;
                let named = named
                    .iter()
                    .map(|(name, argument)| Ok((name.clone(), self.evaluate(argument)?)))
                    .collect::<Result<Vec<_>>>()?;
                self.store_globals();
                let called = self.host.call_procedure(name, &values, &named);
                self.load_globals();
                called?;
            }
            Instruction::Call {
                routine,
                arguments,
                outs,
            } => {
                let mut values = Vec::with_capacity(arguments.len());
                for argument in arguments {
                    values.push(match argument {
                        Some(argument) => Some(self.evaluate(argument)?),
                        None => None,
                    });
                }
                self.store_globals();
                let called = self.host.call_routine(routine, values, self.state);
                self.load_globals();
                let mut parameters = called?.parameters;
                for (index, slot) in outs {
                    let value = parameters
                        .get_mut(*index)
                        .map_or(Value::Null, |value| std::mem::replace(value, Value::Null));
                    self.assign(*slot, value)?;
                }
            }
            Instruction::SetElement {
                collection,
                key,
                value,
            } => {
                let key = self.evaluate(key)?;
                let value = self.evaluate(value)?;
                let index = *collection as usize;
                self.collections[index].set(
                    &self.unit.collections[index],
                    key,
                    value,
                    &mut self.state.memory,
                )?;
            }
            Instruction::DeleteElements { collection, keys } => {
                let keys = keys
                    .iter()
                    .map(|key| self.evaluate(key))
                    .collect::<Result<Vec<_>>>()?;
                let index = *collection as usize;
                self.collections[index].delete(
                    &self.unit.collections[index],
                    keys,
                    &mut self.state.memory,
                )?;
            }
            Instruction::CopyCollection { from, to } => {
                let copy = self.collections[*from as usize].copy(&mut self.state.memory)?;
                let old = std::mem::replace(&mut self.collections[*to as usize], copy);
                self.state.memory = self.state.memory.saturating_sub(old.bytes());
            }
            Instruction::Return => return Ok(Flow::Return),
        }
        Ok(Flow::Next)
    }

    /// Finds the handler for `exception`: pops handler tables until one catches it, and
    /// returns where its code starts; none catches it: the error for the caller.
    fn unwind(&mut self, exception: Exception) -> Result<usize> {
        while let Some(active) = self.handlers.pop() {
            self.exceptions.truncate(active.exception_depth);
            let table = &self.unit.handlers[active.table];
            let caught = table.entries.iter().find(|(catches, _)| {
                catches.iter().any(|catch| match *catch {
                    Catch::Others => true,
                    Catch::Code(code) => exception.user.is_none() && exception.code == code,
                    Catch::User(id) => exception.user == Some(id),
                })
            });
            if let Some((_, start)) = caught {
                if self.exceptions.len() >= EXCEPTIONS_MAX {
                    return Err(Error::new(6500, "PL/SQL: storage error"));
                }
                let start = *start;
                let depth = self.handlers.len();
                for cursor in 0..self.cursors.len() {
                    if self.cursors[cursor]
                        .as_ref()
                        .is_some_and(|open| open.handler_depth > depth)
                    {
                        self.close(cursor);
                    }
                }
                self.exceptions.push(exception);
                self.set_exception_slots();
                return Ok(start);
            }
        }
        Err(exception.into_error(self.unit))
    }

    /// SQLCODE and SQLERRM: the exception being handled, or 0 and "normal, successful
    /// completion" outside handlers.
    fn set_exception_slots(&mut self) {
        let (code, message, stack, backtrace) = match self.exceptions.last() {
            Some(exception) => {
                let message = exception.sqlerrm();
                let stack = format!("{message}\n");
                (
                    exception.sqlcode(),
                    message,
                    Value::text(stack),
                    Value::text(exception.backtrace(self.unit)),
                )
            }
            None => (
                0,
                "ORA-0000: normal, successful completion".to_string(),
                Value::Null,
                Value::Null,
            ),
        };
        self.slots[self.unit.sqlcode_slot] = Value::integer(code);
        self.slots[self.unit.sqlerrm_slot] = Value::text(message);
        self.slots[self.unit.error_stack_slot] = stack;
        self.slots[self.unit.backtrace_slot] = backtrace;
    }

    fn reset_sql_attributes(&mut self) {
        let sql = self.unit.sql_cursor;
        self.slots[sql.isopen] = Value::Boolean(false);
    }

    fn set_cursor_attributes(&mut self, slots: CursorSlots, found: Option<bool>, rowcount: u64) {
        let boolean = |value: Option<bool>| value.map_or(Value::Null, Value::Boolean);
        self.slots[slots.found] = boolean(found);
        self.slots[slots.notfound] = boolean(found.map(|found| !found));
        self.slots[slots.rowcount] = Value::integer(rowcount as i64);
    }

    fn binds(&self, statement: &StaticSql) -> Vec<Value> {
        statement
            .binds
            .iter()
            .map(|slot| self.slots[*slot].clone())
            .collect()
    }

    fn static_sql(&mut self, index: usize) -> Result<()> {
        let statement = &self.unit.statements[index];
        let binds = self.binds(statement);
        let limit = match statement.kind {
            SqlKind::SelectInto => 2,
            _ => usize::MAX,
        };
        self.store_globals();
        let outcome = self
            .host
            .execute(&statement.text, &binds, limit, self.state, self.origin());
        self.load_globals();
        let sql = self.unit.sql_cursor;
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(error) => {
                if statement.kind == SqlKind::Dml {
                    self.set_cursor_attributes(sql, Some(false), 0);
                }
                return Err(error);
            }
        };
        match statement.kind {
            SqlKind::SelectInto => match outcome.rows.len() {
                0 => {
                    self.set_cursor_attributes(sql, Some(false), 0);
                    return Err(Error::new(1403, "no data found"));
                }
                1 => {
                    self.set_cursor_attributes(sql, Some(true), 1);
                    let row = outcome.rows.into_iter().next().unwrap_or_default();
                    for (slot, value) in statement.into.iter().zip(row) {
                        self.assign(*slot, value)?;
                    }
                }
                _ => {
                    self.set_cursor_attributes(sql, Some(true), 1);
                    return Err(Error::new(
                        1422,
                        "exact fetch returns more than requested number of rows",
                    ));
                }
            },
            SqlKind::Dml => {
                let rows = outcome.rows_affected;
                self.set_cursor_attributes(sql, Some(rows > 0), rows);
                // RETURNING ... INTO: one row's values; none leaves the targets NULL.
                if !statement.into.is_empty() {
                    if outcome.rows.len() > 1 {
                        return Err(Error::new(
                            1422,
                            "exact fetch returns more than requested number of rows",
                        ));
                    }
                    let row = outcome.rows.into_iter().next();
                    for (index, slot) in statement.into.iter().enumerate() {
                        let value = row
                            .as_ref()
                            .and_then(|row| row.get(index).cloned())
                            .unwrap_or(Value::Null);
                        self.assign(*slot, value)?;
                    }
                }
            }
            SqlKind::Query | SqlKind::Control => {}
        }
        Ok(())
    }

    fn open(&mut self, cursor: usize) -> Result<()> {
        if self.cursors[cursor].is_some() {
            return Err(Error::new(6511, "PL/SQL: cursor already open"));
        }
        let definition = &self.unit.cursors[cursor];
        let statement = &self.unit.statements[definition.statement];
        let binds = self.binds(statement);
        self.store_globals();
        let outcome = self.host.execute(
            &statement.text,
            &binds,
            usize::MAX,
            self.state,
            self.origin(),
        );
        self.load_globals();
        let outcome = outcome?;
        self.cursors[cursor] = Some(OpenCursor {
            rows: outcome.rows.into(),
            fetched: 0,
            handler_depth: self.handlers.len(),
        });
        let attributes = definition.attributes;
        self.set_cursor_attributes(attributes, None, 0);
        self.slots[attributes.isopen] = Value::Boolean(true);
        Ok(())
    }

    fn close(&mut self, cursor: usize) {
        self.cursors[cursor] = None;
        let attributes = self.unit.cursors[cursor].attributes;
        self.slots[attributes.isopen] = Value::Boolean(false);
    }

    fn output(&mut self, call: OutputCall, arguments: &[Expr], targets: &[usize]) -> Result<()> {
        let argument = match arguments.first() {
            Some(argument) => Some(self.evaluate(argument)?),
            None => None,
        };
        let text = || {
            argument
                .as_ref()
                .and_then(Value::to_text)
                .unwrap_or_default()
        };
        let output = &mut self.state.output;
        match call {
            OutputCall::Enable => output.enable(match &argument {
                None => None,
                Some(Value::Null) => Some(None),
                Some(size) => Some(Some(convert::pls_integer(size)?.max(0) as usize)),
            }),
            OutputCall::Disable => output.disable(),
            OutputCall::Put => output.put(&text())?,
            OutputCall::PutLine => output.put_line(&text())?,
            OutputCall::NewLine => output.new_line(),
            OutputCall::GetLine => {
                let (line, status) = match output.get_line() {
                    Some(line) => (Value::text(line), 0),
                    None => (Value::Null, 1),
                };
                if let [line_slot, status_slot] = targets {
                    self.assign(*line_slot, line)?;
                    self.assign(*status_slot, Value::integer(status))?;
                }
            }
        }
        Ok(())
    }

    /// DBMS_LOCK.SLEEP: waits on 'PL/SQL lock timer' (idle), in slices that a cancel or a
    /// time limit interrupts.
    fn sleep(&mut self, seconds: &Expr) -> Result<()> {
        let seconds = self.evaluate(seconds)?;
        let seconds = match &seconds {
            Value::Null => return Err(errors::value_error("")),
            value => value
                .to_text()
                .and_then(|text| text.parse::<f64>().ok())
                .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
                .ok_or_else(|| errors::value_error(""))?,
        };
        // Oracle's limit: 3,153,600 seconds (about 36 days).
        if seconds > 3_153_600.0 {
            return Err(Error::new(
                20000,
                "ORU-10024: there are no alerts: the sleep is longer than 3153600 seconds",
            ));
        }
        let duration = Duration::from_secs_f64(seconds);
        let hundredths = (seconds * 100.0).round() as u64;
        let _wait = instrumentation::wait(WaitEvent::PlsqlLockTimer, hundredths, 0, 0);
        let deadline = Instant::now() + duration;
        loop {
            interrupt::check_waiting()?;
            let now = Instant::now();
            if now >= deadline {
                return Ok(());
            }
            std::thread::sleep((deadline - now).min(Duration::from_millis(100)));
        }
    }
}

/// Cuts `text` to at most `bytes` bytes, on a character boundary.
fn truncate_to(text: &mut String, bytes: usize) {
    if text.len() > bytes {
        let mut end = bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}
