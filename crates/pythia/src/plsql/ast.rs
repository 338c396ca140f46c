//! The tree the PL/SQL parser builds: a unit's blocks, declarations and statements, with
//! SQL's own trees (`syntax::ast::Expr`, `syntax::ast::Statement`) for expressions and static
//! SQL. Every statement and declaration keeps the byte offset it starts at, from which the
//! compiler reports `line, column` and the runtime its `ORA-06512: at line n`.

use crate::syntax::ast::{self, Expr};
use crate::syntax::parser::ColumnSpan;

/// `[<<label>>] [DECLARE declarations] BEGIN statements [EXCEPTION handlers] END [label];`
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub label: Option<String>,
    pub declarations: Vec<Declaration>,
    pub body: Vec<Statement>,
    pub handlers: Vec<Handler>,
    pub position: usize,
}

/// A type as a declaration names it.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeName {
    /// An SQL type: `NUMBER(10,2)`, `VARCHAR2(30)`, `DATE`, `BOOLEAN`, ...
    Sql(ast::DataType),
    /// `PLS_INTEGER`, `BINARY_INTEGER` (and their subtypes NATURAL, POSITIVE, SIMPLE_INTEGER
    /// read as the same): a signed 32-bit integer.
    PlsInteger,
    /// A name: a record type or a subtype declared before, or a built-in one.
    Named(Vec<String>),
    /// `name%TYPE`: a variable's, a record field's, or a table column's (`t.c%TYPE`) type.
    TypeOf(Vec<String>),
    /// `name%ROWTYPE`: a table's row or a cursor's.
    RowTypeOf(Vec<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Declaration {
    /// `name [CONSTANT] type [NOT NULL] [:= | DEFAULT expr];`
    Variable {
        name: String,
        type_name: TypeName,
        constant: bool,
        not_null: bool,
        default: Option<Expr>,
        position: usize,
    },
    /// `name EXCEPTION;`
    Exception { name: String, position: usize },
    /// `PRAGMA EXCEPTION_INIT(name, -code);`
    ExceptionInit {
        name: String,
        code: i64,
        position: usize,
    },
    /// `TYPE name IS RECORD (field type [NOT NULL] [:= default], ...);`
    Record {
        name: String,
        fields: Vec<Field>,
        position: usize,
    },
    /// `TYPE name IS TABLE OF element [NOT NULL] INDEX BY key;`: an associative array.
    Collection {
        name: String,
        element: TypeName,
        not_null: bool,
        key: CollectionKeyType,
        position: usize,
    },
    /// `SUBTYPE name IS type [NOT NULL];`
    Subtype {
        name: String,
        base: TypeName,
        not_null: bool,
        position: usize,
    },
    /// A local subprogram, or a package's: `PROCEDURE p ...;` (a specification) or with
    /// `IS ... END;`.
    Subprogram(Box<Subprogram>),
    /// `PRAGMA AUTONOMOUS_TRANSACTION;`
    Autonomous { position: usize },
    /// `CURSOR name [(parameters)] IS query;`
    Cursor {
        name: String,
        parameters: Vec<Parameter>,
        query: Box<Sql>,
        position: usize,
    },
}

/// What an associative array is indexed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectionKeyType {
    /// `PLS_INTEGER`, `BINARY_INTEGER` (and their subtypes).
    Integer,
    /// `VARCHAR2(n)`, `STRING(n)`, `LONG`: keys of at most `n` bytes.
    Text(u32),
}

/// A record type's field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub type_name: TypeName,
    pub not_null: bool,
    pub default: Option<Expr>,
}

/// A cursor's or a subprogram's parameter: `name [IN | OUT | IN OUT] [NOCOPY] type
/// [:= | DEFAULT default]` (a cursor's are IN).
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub mode: Mode,
    pub type_name: TypeName,
    pub default: Option<Expr>,
}

/// How a parameter passes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    In,
    Out,
    InOut,
}

impl Mode {
    /// `dba_arguments.in_out`'s spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Mode::In => "IN",
            Mode::Out => "OUT",
            Mode::InOut => "IN/OUT",
        }
    }
}

/// A procedure or function: stored on its own, in a package, or local to a block.
#[derive(Debug, Clone, PartialEq)]
pub struct Subprogram {
    pub name: String,
    pub parameters: Vec<Parameter>,
    /// A function's RETURN type; None for a procedure.
    pub returns: Option<TypeName>,
    pub deterministic: bool,
    /// `AUTHID CURRENT_USER` (else DEFINER).
    pub current_user: bool,
    /// Its declarations and body; None for a specification (a package's, a forward one).
    pub body: Option<Block>,
    pub position: usize,
}

/// A stored unit's source, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Program {
    /// `PROCEDURE [schema.]name ... IS ... END;`, `FUNCTION ... RETURN type IS ... END;`.
    Subprogram {
        schema: Option<String>,
        subprogram: Subprogram,
    },
    /// `PACKAGE [schema.]name [AUTHID ...] IS declarations END [name];`
    Package {
        schema: Option<String>,
        name: String,
        current_user: bool,
        declarations: Vec<Declaration>,
    },
    /// `PACKAGE BODY [schema.]name IS declarations [BEGIN statements [EXCEPTION ...]] END;`
    PackageBody {
        schema: Option<String>,
        name: String,
        declarations: Vec<Declaration>,
        /// The initialisation section, run once per session at first use.
        initialisation: Option<Block>,
    },
}

/// `WHEN e1 [OR e2 ...] THEN statements`; `OTHERS` is the name `OTHERS`.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    pub exceptions: Vec<Vec<String>>,
    pub body: Vec<Statement>,
    pub position: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// `<<label>>` written before it (a loop's name, or a GOTO's target).
    pub labels: Vec<String>,
    pub kind: StatementKind,
    pub position: usize,
}

/// An argument of a call: positional (`name` None) or named (`name => value`).
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    pub name: Option<String>,
    pub value: Expr,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StatementKind {
    /// `target := value;` (`target` a variable, `record.field`, or a host bind `:x`).
    Assign {
        target: Target,
        value: Expr,
    },
    /// `IF c THEN ... [ELSIF c THEN ...] [ELSE ...] END IF;`
    If {
        branches: Vec<(Expr, Vec<Statement>)>,
        otherwise: Option<Vec<Statement>>,
    },
    /// `CASE [operand] WHEN x THEN ... [ELSE ...] END CASE;` (no ELSE and no match:
    /// CASE_NOT_FOUND, ORA-06592).
    Case {
        operand: Option<Expr>,
        branches: Vec<(Expr, Vec<Statement>)>,
        otherwise: Option<Vec<Statement>>,
    },
    /// `LOOP ... END LOOP;`
    Loop {
        body: Vec<Statement>,
    },
    /// `WHILE c LOOP ... END LOOP;`
    While {
        condition: Expr,
        body: Vec<Statement>,
    },
    /// `FOR i IN [REVERSE] low..high LOOP ... END LOOP;`
    ForRange {
        variable: String,
        reverse: bool,
        low: Expr,
        high: Expr,
        body: Vec<Statement>,
    },
    /// `FOR r IN cursor[(arguments)] LOOP ...` or `FOR r IN (query) LOOP ...`
    ForCursor {
        record: String,
        source: CursorSource,
        body: Vec<Statement>,
    },
    /// `EXIT [label] [WHEN c];`
    Exit {
        label: Option<String>,
        condition: Option<Expr>,
    },
    /// `CONTINUE [label] [WHEN c];`
    Continue {
        label: Option<String>,
        condition: Option<Expr>,
    },
    Null,
    /// `RETURN;` (a function's `RETURN expr;`).
    Return(Option<Expr>),
    Goto(String),
    /// `RAISE name;`, or `RAISE;` in a handler.
    Raise(Option<Vec<String>>),
    /// `name[(arguments)];`: a procedure call.
    Call {
        name: Vec<String>,
        arguments: Vec<Argument>,
    },
    /// A static SQL statement.
    Sql(Box<Sql>),
    /// `OPEN cursor[(arguments)];`
    Open {
        cursor: String,
        arguments: Vec<Argument>,
    },
    /// `FETCH cursor INTO targets;`
    Fetch {
        cursor: String,
        into: Vec<Target>,
    },
    /// `CLOSE cursor;`
    Close {
        cursor: String,
    },
    /// A nested block.
    Block(Box<Block>),
}

/// What a statement assigns to or fetches into.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A variable, `record.field`, or a record as a whole: the name's parts.
    Name(Vec<String>, usize),
    /// A host bind, `:x`.
    Bind(String, usize),
    /// An element of a collection: `name(index)`.
    Element {
        name: Vec<String>,
        index: Expr,
        position: usize,
    },
}

/// Where a cursor FOR loop's rows come from.
#[derive(Debug, Clone, PartialEq)]
pub enum CursorSource {
    Named {
        cursor: String,
        arguments: Vec<Argument>,
    },
    Query(Box<Sql>),
}

/// A static SQL statement as written in the unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Sql {
    /// The statement's text, from its first token to the last before `;`, with `INTO
    /// targets` blanked out (so offsets are the unit's minus `start`).
    pub text: String,
    /// Where `text` starts in the unit.
    pub start: usize,
    pub statement: ast::Statement,
    /// Its column references, as offsets in `text`: the compiler decides which are PL/SQL
    /// variables.
    pub columns: Vec<ColumnSpan>,
    /// `SELECT ... INTO targets`.
    pub into: Vec<Target>,
    /// A query's first FROM outside parentheses: its offset in `text` (where a cursor
    /// declared FOR UPDATE fetches its rowid too).
    pub from_at: Option<usize>,
    /// `UPDATE / DELETE ... WHERE CURRENT OF cursor`: the cursor, and the offset in `text`
    /// where the clause was (blanked out of `text`, and of `statement`).
    pub current_of: Option<(String, usize)>,
}
