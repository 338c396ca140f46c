//! A compiled unit: what the compiler makes of a block and the interpreter runs, kept in the
//! library cache and shared by every session that runs the unit (Oracle's M-code), charged to
//! the shared pool by the bytes its compilation allocated (the hard parse's own measure).
//!
//! The code is a flat list of [`Instruction`]s with jumps, as MariaDB's `sp_instr` list:
//! loops and IFs are jumps, a block with handlers pushes its handler table on entry and pops
//! it on every way out. Expressions are SQL's compiled expressions (`sql::eval::Expr`) over
//! the frame: a variable is `Expr::Column(slot)` in the row of the frame's slots, so an
//! expression without tables is evaluated with no executor at all, as PL/pgSQL's simple
//! expressions are.

use std::sync::Arc;

use crate::plsql::ast::{CollectionKeyType, Mode};
use crate::sql::eval::{Expr, RoutineCall};
use crate::types::DataType;

/// A compiled unit.
#[derive(Debug)]
pub struct Unit {
    /// The unit's name in `ORA-06512: at ...` lines: None for an anonymous block (`at line
    /// n`), `"SYSTEM.P"` for a stored one.
    pub name: Option<String>,
    /// The stored unit's object id (0 for an anonymous block): v$sql.program_id of its
    /// static SQL.
    pub object_id: u32,
    pub code: Vec<Instruction>,
    /// The source line of each instruction.
    pub lines: Vec<u32>,
    /// The frame's slots: variables, record fields, cursor attributes, loop limits.
    pub slots: Vec<Slot>,
    /// The host binds (`:x` in an anonymous block), in order of first appearance: bind `i`
    /// lives in slot `bind_slots[i]`.
    pub bind_slots: Vec<usize>,
    pub statements: Vec<StaticSql>,
    pub cursors: Vec<Cursor>,
    pub handlers: Vec<HandlerTable>,
    /// User-declared exceptions: their name and the Oracle error EXCEPTION_INIT gave them.
    pub exceptions: Vec<UserException>,
    /// The implicit cursor's attribute slots (`SQL%FOUND`, ...).
    pub sql_cursor: CursorSlots,
    /// SQLCODE's and SQLERRM's slots, and DBMS_UTILITY.FORMAT_ERROR_STACK's and
    /// FORMAT_ERROR_BACKTRACE's: the exception being handled, kept current.
    pub sqlcode_slot: usize,
    pub sqlerrm_slot: usize,
    pub error_stack_slot: usize,
    pub backtrace_slot: usize,
    /// A subprogram's parameters, in order (none for an anonymous block).
    pub parameters: Vec<UnitParameter>,
    /// A function's result: the slot RETURN assigns.
    pub return_slot: Option<usize>,
    /// The package variables the unit reads or writes, each through a slot of its own
    /// frame (its mirror): loaded from the session's package state when the unit starts and
    /// after each call out of it, stored back before each call out and when it ends.
    pub globals: Vec<GlobalMirror>,
    /// The associative arrays the unit declares, by number (`Expr::Collection`'s): each
    /// run holds their elements beside its frame.
    pub collections: Vec<CollectionDef>,
    /// A top-level CALL's OUT and IN OUT parameters: each one's name and the slot that
    /// holds its value when the call returns (empty for other units).
    pub call_results: Vec<(String, usize)>,
}

/// An associative array (`TYPE t IS TABLE OF element INDEX BY key`) a unit declares: how
/// an element converts on assignment (a slot's rules) and what indexes it.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionDef {
    pub element: Slot,
    pub key: CollectionKeyType,
}

/// A package variable as a unit sees it: the package, the variable's place in the
/// package's state, and the unit's slot that mirrors it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalMirror {
    /// The package's name (upper case).
    pub package: Arc<str>,
    pub global: usize,
    pub slot: usize,
}

/// A compiled package: its variables (the state each session has of its own), the unit
/// that initialises them and runs the body's initialisation section, and its subprograms.
#[derive(Debug)]
pub struct PackageUnit {
    /// `SYSTEM.PKG`.
    pub name: String,
    pub globals: Vec<Slot>,
    /// The variables the specification declares: what other units may name (`pkg.x`).
    pub public: Vec<PublicVariable>,
    /// The exceptions the specification declares, each with the Oracle error its PRAGMA
    /// EXCEPTION_INIT names: what other units raise and catch as `pkg.e`.
    pub exceptions: Vec<(String, u32)>,
    /// Assigns each variable its default, in declaration order, then runs the
    /// initialisation section: once per session, at the package's first use.
    pub init: Unit,
    pub subprograms: Vec<PackageSubprogram>,
    /// Whether the package has a body (its subprograms' units).
    pub has_body: bool,
}

#[derive(Debug, Clone)]
pub struct PublicVariable {
    pub name: String,
    pub global: usize,
    pub kind: SlotKind,
    pub constant: bool,
}

/// One of a package's subprograms: how callers see it, whether the specification declares
/// it (else it is the body's own), and its unit (None until the body is there).
#[derive(Debug)]
pub struct PackageSubprogram {
    pub signature: crate::plsql::host::Signature,
    pub public: bool,
    pub unit: Option<Unit>,
}

/// A subprogram's parameter: its slot, how it passes, and its default (evaluated in the
/// subprogram's frame when the call leaves it out).
#[derive(Debug, Clone)]
pub struct UnitParameter {
    pub name: String,
    pub slot: usize,
    pub mode: Mode,
    pub default: Option<Expr>,
}

/// What a slot holds and how an assignment converts into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub name: String,
    pub kind: SlotKind,
    pub not_null: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SlotKind {
    Sql(DataType),
    /// PLS_INTEGER: a whole number in -2^31 .. 2^31-1 (ORA-01426 outside).
    PlsInteger,
    /// Whatever is assigned, unconverted (cursor attributes, SQLERRM, loop limits).
    Any,
}

/// A static SQL statement: its normalised text (what the library cache keys it by) and the
/// slots whose values are its binds `:B1, :B2, ...` in order of first appearance.
#[derive(Debug, Clone)]
pub struct StaticSql {
    pub text: String,
    pub binds: Vec<usize>,
    pub kind: SqlKind,
    /// `SELECT ... INTO`'s targets.
    pub into: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlKind {
    /// A query with INTO: exactly one row.
    SelectInto,
    /// A query opened by a cursor.
    Query,
    /// INSERT, UPDATE, DELETE, MERGE: sets SQL%ROWCOUNT.
    Dml,
    /// COMMIT, ROLLBACK, SAVEPOINT, LOCK TABLE.
    Control,
}

/// A cursor: declared, or the implicit one of a cursor FOR loop over a query.
#[derive(Debug, Clone)]
pub struct Cursor {
    pub name: String,
    /// Its query, an index into `statements`.
    pub statement: usize,
    /// Its parameters' slots, assigned before OPEN, and their defaults.
    pub parameters: Vec<usize>,
    pub defaults: Vec<Option<Expr>>,
    pub attributes: CursorSlots,
    /// A cursor declared FOR UPDATE: the slot of the last fetched row's ROWID (its query
    /// fetches it after its own columns), which WHERE CURRENT OF reads.
    pub rowid: Option<usize>,
}

/// The slots of a cursor's `%FOUND`, `%NOTFOUND`, `%ISOPEN` and `%ROWCOUNT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CursorSlots {
    pub found: usize,
    pub notfound: usize,
    pub isopen: usize,
    pub rowcount: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserException {
    pub name: String,
    /// The Oracle error PRAGMA EXCEPTION_INIT associated (20001 for -20001).
    pub code: Option<u32>,
}

/// What a handler catches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Catch {
    /// An Oracle error by number (a predefined exception, or one EXCEPTION_INIT named).
    Code(u32),
    /// A user-declared exception without EXCEPTION_INIT.
    User(usize),
    Others,
}

/// A block's handlers: for each, what it catches and where its code starts.
#[derive(Debug, Clone, Default)]
pub struct HandlerTable {
    pub entries: Vec<(Vec<Catch>, usize)>,
}

/// What an exception being raised is: an Oracle error, or a user exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raise {
    Code(u32),
    User(usize),
}

/// DBMS_OUTPUT's procedures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputCall {
    Enable,
    Disable,
    Put,
    PutLine,
    NewLine,
    /// `GET_LINE(line, status)`: the two OUT slots.
    GetLine,
}

#[derive(Debug, Clone)]
pub enum Instruction {
    /// `slot := expr`, converted to the slot's type.
    Assign {
        slot: usize,
        expr: Expr,
    },
    /// A record assigned from another: `count` slots copied.
    Copy {
        from: usize,
        to: usize,
        count: usize,
    },
    Jump(usize),
    /// Leaves nested scopes to jump to `to` (EXIT, CONTINUE or GOTO out of blocks with
    /// handlers, handlers, or cursor FOR loops): pops handler tables, ends the exceptions
    /// being handled, closes cursors.
    Leave {
        pop_handlers: usize,
        handlers_done: usize,
        close: Vec<usize>,
        to: usize,
    },
    /// Jumps unless the condition is TRUE (FALSE and NULL jump).
    JumpUnless {
        condition: Expr,
        to: usize,
    },
    /// A numeric FOR loop's start: evaluates the bounds once; an empty range jumps to
    /// `exit`, else the counter starts at the low bound (the high one for REVERSE) and the
    /// other is kept in `limit`.
    ForStart {
        counter: usize,
        limit: usize,
        low: Expr,
        high: Expr,
        reverse: bool,
        exit: usize,
    },
    /// A numeric FOR loop's step: at the limit falls through, else steps the counter and
    /// jumps back to `body`.
    ForStep {
        counter: usize,
        limit: usize,
        reverse: bool,
        body: usize,
    },
    /// Runs a static SQL statement.
    Sql(usize),
    /// Opens a cursor (its parameters assigned just before).
    Open(usize),
    /// Fetches a cursor's next row into `into` (record fields or variables); with `exit`, a
    /// cursor FOR loop's fetch: no row closes the cursor and jumps there.
    Fetch {
        cursor: usize,
        into: Vec<usize>,
        exit: Option<usize>,
    },
    Close(usize),
    /// Raises an exception.
    Raise(Raise),
    /// `RAISE_APPLICATION_ERROR(code, message)`.
    RaiseApplicationError {
        code: Expr,
        message: Expr,
    },
    /// `RAISE;` in a handler: the exception being handled, again.
    Reraise,
    /// CASE without ELSE and no branch taken: ORA-06592.
    CaseNotFound,
    /// A block with handlers begins: its table is pushed.
    PushHandlers(usize),
    /// The block ends (or is left by EXIT, GOTO, RETURN): its table is popped.
    PopHandlers,
    /// A handler's code ends: the exception it handled is done.
    HandlerDone,
    /// DBMS_OUTPUT.
    Output {
        call: OutputCall,
        arguments: Vec<Expr>,
        targets: Vec<usize>,
    },
    /// `DBMS_LOCK.SLEEP(seconds)` / `DBMS_SESSION.SLEEP`: waits on 'PL/SQL lock timer'.
    Sleep(Expr),
    /// A procedure the session runs (DBMS_STATS, DBMS_SHARED_POOL, ...).
    HostCall {
        name: String,
        arguments: Vec<Expr>,
        named: Vec<(String, Expr)>,
    },
    /// A stored subprogram called as a procedure: each argument's value (None: the
    /// parameter's default, or an OUT parameter), then each OUT and IN OUT parameter's
    /// value assigned to its slot here (`outs`: parameter index, slot).
    Call {
        routine: Arc<RoutineCall>,
        arguments: Vec<Option<Expr>>,
        outs: Vec<(usize, usize)>,
    },
    /// `collection(key) := value`: the element made or replaced.
    SetElement {
        collection: u32,
        key: Expr,
        value: Expr,
    },
    /// `collection.DELETE` (every element; also where its declaration is met),
    /// `DELETE(key)`, `DELETE(low, high)`: the arguments' values.
    DeleteElements {
        collection: u32,
        keys: Vec<Expr>,
    },
    /// `to := from`: every element copied.
    CopyCollection {
        from: u32,
        to: u32,
    },
    Return,
}
