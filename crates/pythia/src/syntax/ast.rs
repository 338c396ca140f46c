//! The abstract syntax tree: what the parser produces and the planner consumes.
//!
//! A statement's text becomes one [`Statement`]. Queries nest through [`Query`] (WITH list,
//! body, ORDER BY, row limits, FOR UPDATE), whose body is a [`SetExpr`]: a [`Select`] block, a
//! set operation over two bodies, or a parenthesized query. Expressions ([`Expr`]) hold
//! subqueries, and table references hold inline views, so the tree is recursive:
//!
//! ```text
//!   Statement ──► Query ──► SetExpr ──► Select ──► projection, WHERE, GROUP BY, HAVING: Expr
//!                   ▲                      │
//!                   │                      └──► FROM: TableReference ──► Query (inline view)
//!                   └──────────── Expr::{ScalarSubquery, Exists, InSubquery, ...}
//! ```
//!
//! Invariants of every tree made by [`crate::syntax::parser::parse`]:
//!
//! 1. Names are normalized: unquoted identifiers are uppercased, quoted identifiers are kept
//!    exactly as written (without the quotes). Qualified names of functions and procedures
//!    (`DBMS_RANDOM.VALUE`) are their parts joined with `.`.
//! 2. Literals keep their text: numbers as written (`1.5E-3`), strings without quotes and with
//!    `''` already unescaped. Nothing here converts a value; the planner does.
//! 3. Bind variables are numbered by occurrence: the n-th bind in the text has `position`
//!    n - 1, and [`Statement::bind_count`] is the number of binds.
//! 4. The tree is at most [`crate::syntax::parser::NODE_HEIGHT_MAX`] [`Node`]s high, so code that
//!    walks it recursively (including the derived `Drop`, `Clone` and `PartialEq`) needs a
//!    bounded stack. Long AND/OR chains are built as balanced trees for that reason: the
//!    operands of `a OR b OR c OR d` read left to right in the tree, but it is
//!    `(a OR b) OR (c OR d)`, not `((a OR b) OR c) OR d`.
//!
//! Nothing here fails: building and walking trees cannot go wrong. [`Node`] gives one generic
//! way to walk a tree (children, pre-order walk, height) so that every consumer sees the same
//! children in the same order.

use std::fmt;

/// `STORAGE (BUFFER_POOL ...)` names the buffer cache's own pool type: one enum from the
/// parser through the dictionary to the cache.
pub use crate::buffer::BufferPool;

/// A possibly schema-qualified name of a table, view, index or sequence: `SYS.DUAL`, `EMP`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectName {
    pub schema: Option<String>,
    pub name: String,
}

impl ObjectName {
    /// A name without a schema.
    pub fn new(name: impl Into<String>) -> ObjectName {
        ObjectName {
            schema: None,
            name: name.into(),
        }
    }

    /// A schema-qualified name.
    pub fn qualified(schema: impl Into<String>, name: impl Into<String>) -> ObjectName {
        ObjectName {
            schema: Some(schema.into()),
            name: name.into(),
        }
    }
}

impl fmt::Display for ObjectName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.schema {
            Some(schema) => write!(f, "{schema}.{}", self.name),
            None => write!(f, "{}", self.name),
        }
    }
}

/// One SQL statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// A query: `SELECT ...`, `WITH ... SELECT ...`, `(SELECT ...) UNION ...`.
    Select(Box<Query>),
    /// `INSERT INTO table [(columns)] VALUES (...)[, (...)]`, or
    /// `INSERT INTO table [(columns)] query`.
    Insert {
        hint: Option<String>,
        table: ObjectName,
        columns: Option<Vec<String>>,
        source: InsertSource,
        /// `RETURNING expr, ...` (PL/SQL's INTO taken off by the PL/SQL parser): values of
        /// each row the statement changed, over its new values (DELETE's: its old).
        returning: Vec<Expr>,
    },
    /// `UPDATE table [alias] SET column = value, ... [WHERE ...]`. A column written qualified
    /// (`alias.column`) was checked against the table or alias and is stored unqualified.
    Update {
        hint: Option<String>,
        table: ObjectName,
        alias: Option<String>,
        assignments: Vec<(String, Expr)>,
        where_clause: Option<Expr>,
        returning: Vec<Expr>,
    },
    /// `DELETE [FROM] table [alias] [WHERE ...]`.
    Delete {
        hint: Option<String>,
        table: ObjectName,
        alias: Option<String>,
        where_clause: Option<Expr>,
        returning: Vec<Expr>,
    },
    /// `CREATE TABLE name (columns and constraints) [physical attributes] [AS query]`, or
    /// `CREATE TABLE name [physical attributes] AS query` (then `columns` is empty).
    CreateTable {
        name: ObjectName,
        /// PostgreSQL `CREATE TABLE IF NOT EXISTS`.
        if_not_exists: bool,
        columns: Vec<ColumnDef>,
        constraints: Vec<TableConstraint>,
        /// `CREATE TABLE t (a, b) AS query`: names for the query's columns (then `columns`
        /// and `constraints` are empty).
        column_names: Vec<String>,
        as_query: Option<Box<Query>>,
        storage: StorageClause,
        /// `CACHE` (Some(true)), `NOCACHE` (Some(false)), or not said (None).
        cache: Option<bool>,
    },
    /// `DROP TABLE [IF EXISTS] name [CASCADE CONSTRAINTS] [PURGE]`; PostgreSQL's bare `CASCADE`
    /// also sets `cascade_constraints`, and PostgreSQL's list `DROP TABLE a, b` gives
    /// several names (Oracle's form has one).
    DropTable {
        names: Vec<ObjectName>,
        if_exists: bool,
        purge: bool,
        cascade_constraints: bool,
    },
    /// `TRUNCATE TABLE name` (Oracle) or `TRUNCATE [TABLE] a, b` (PostgreSQL). Storage and
    /// identity options (`DROP STORAGE`, `RESTART IDENTITY`, ...) are accepted and not kept.
    Truncate {
        tables: Vec<ObjectName>,
    },
    /// `CREATE [UNIQUE] INDEX name ON table (column [ASC|DESC], ...) [physical attributes]`.
    /// `columns` holds (column name, descending).
    CreateIndex {
        name: ObjectName,
        unique: bool,
        table: ObjectName,
        columns: Vec<(String, bool)>,
        storage: StorageClause,
    },
    DropIndex {
        name: ObjectName,
    },
    AlterIndex {
        name: ObjectName,
        action: AlterIndexAction,
    },
    AlterTable {
        name: ObjectName,
        action: AlterTableAction,
    },
    /// `COMMENT ON TABLE t IS 'text'` (column None) or `COMMENT ON COLUMN t.c IS 'text'`.
    Comment {
        table: ObjectName,
        column: Option<String>,
        text: String,
    },
    /// `RENAME old TO new` (a table).
    Rename {
        from: ObjectName,
        to: ObjectName,
    },
    /// `CREATE SEQUENCE name [options]`, options in the order written.
    CreateSequence {
        name: ObjectName,
        options: Vec<SequenceOption>,
    },
    /// `ALTER SEQUENCE name options`, at least one option.
    AlterSequence {
        name: ObjectName,
        options: Vec<SequenceOption>,
    },
    DropSequence {
        name: ObjectName,
    },
    /// `CREATE [OR REPLACE] [[NO]FORCE] VIEW name [(columns)] AS query`.
    CreateView {
        or_replace: bool,
        name: ObjectName,
        columns: Vec<String>,
        query: Box<Query>,
    },
    DropView {
        name: ObjectName,
    },
    /// `CREATE [OR REPLACE] [EDITIONABLE | NONEDITIONABLE] PROCEDURE | FUNCTION | PACKAGE
    /// [BODY] name ...`: the unit's source is the text from `source_start` (its kind's
    /// keyword) to the end, which the PL/SQL layer parses and compiles.
    CreateProgram {
        kind: ProgramKind,
        name: ObjectName,
        or_replace: bool,
        source_start: usize,
    },
    /// `DROP PROCEDURE | FUNCTION | PACKAGE [BODY] name`.
    DropProgram {
        kind: ProgramKind,
        name: ObjectName,
    },
    /// `ALTER PROCEDURE | FUNCTION | PACKAGE name COMPILE [PACKAGE | SPECIFICATION | BODY]
    /// [REUSE SETTINGS]`: `kind` is the unit compiled (PACKAGE BODY for `COMPILE BODY`).
    AlterCompile {
        kind: ProgramKind,
        name: ObjectName,
    },
    /// `CREATE USER name {IDENTIFIED BY password | NO AUTHENTICATION} [ACCOUNT LOCK|UNLOCK]`
    /// (Oracle's DEFAULT TABLESPACE, TEMPORARY TABLESPACE and QUOTA clauses are read and not
    /// kept: there are no tablespaces here).
    CreateUser {
        name: String,
        /// None: NO AUTHENTICATION (a user without a password, who logs on only in trust
        /// mode).
        password: Option<Password>,
        lock: Option<bool>,
    },
    /// `ALTER USER name [IDENTIFIED BY password] [ACCOUNT LOCK|UNLOCK]`, at least one.
    AlterUser {
        name: String,
        password: Option<Password>,
        lock: Option<bool>,
    },
    /// `DROP USER name [CASCADE]`.
    DropUser {
        name: String,
    },
    /// `GRANT privileges TO users` (`revoke`: false) or `REVOKE privileges FROM users`.
    Grant {
        revoke: bool,
        privileges: Privileges,
        users: Vec<String>,
    },
    /// `COMMIT [WORK] [WRITE [WAIT|NOWAIT] [IMMEDIATE|BATCH]]`, and PostgreSQL `END`.
    Commit {
        write: Option<CommitWrite>,
    },
    /// `ROLLBACK [WORK] [TO [SAVEPOINT] name]`.
    Rollback {
        to_savepoint: Option<String>,
    },
    /// `SAVEPOINT name`.
    Savepoint(String),
    /// PostgreSQL `BEGIN [WORK|TRANSACTION]` or `START TRANSACTION`. Transaction modes
    /// (`ISOLATION LEVEL ...`, `READ ONLY`, ...) are accepted and not kept.
    Begin,
    AlterSystem(AlterSystemAction),
    /// `ALTER SESSION SET name = value [name = value ...]`.
    AlterSession(Vec<SessionSetting>),
    /// `EXPLAIN PLAN [SET STATEMENT_ID = 'id'] FOR statement`. The statement is a query, DML,
    /// CREATE TABLE or CREATE INDEX.
    Explain {
        statement_id: Option<String>,
        statement: Box<Statement>,
    },
    /// `ANALYZE TABLE name {COMPUTE | ESTIMATE | DELETE} STATISTICS [SAMPLE n ROWS|PERCENT]`.
    Analyze {
        table: ObjectName,
        action: AnalyzeAction,
    },
    /// `CALL name(arguments)`.
    Call(ProcedureCall),
    /// An anonymous PL/SQL block, `[DECLARE ...] BEGIN ... END;`: the statement's text is the
    /// block, which the PL/SQL layer (`plsql/`) parses and compiles (SQL*Plus's `EXEC p(...)`
    /// sends one).
    Block,
    /// PostgreSQL `SET [SESSION|LOCAL] name {TO|=} value[, value ...]`; `SET TIME ZONE x` has the
    /// name `TIMEZONE`. A list of several values is one [`ParameterValue::List`].
    Set {
        name: String,
        value: ParameterValue,
    },
    /// PostgreSQL `SHOW name` (`SHOW ALL` has the name `ALL`; `SHOW TIME ZONE` is `TIMEZONE`,
    /// `SHOW TRANSACTION ISOLATION LEVEL` is `TRANSACTION_ISOLATION`).
    Show(String),
    /// PostgreSQL `VACUUM [FULL] [FREEZE] [VERBOSE] [ANALYZE] [table [(columns)], ...]` or
    /// `VACUUM (option [value], ...) [table, ...]`: `analyze` when ANALYZE is one of the
    /// options (not turned off), `tables` empty for every table. Column lists and the
    /// other options are accepted and not kept.
    Vacuum {
        analyze: bool,
        tables: Vec<ObjectName>,
    },
}

/// A password in `IDENTIFIED BY`: as written (case kept, quoted or not), or a bind's
/// number: the session hides a written password behind the bind `:password` before the
/// text reaches the library cache (`sql::users::hide_password`), so that no cursor keeps it.
#[derive(Debug, Clone, PartialEq)]
pub enum Password {
    Text(String),
    Bind(usize),
}

/// The privileges a GRANT or REVOKE names.
#[derive(Debug, Clone, PartialEq)]
pub enum Privileges {
    /// System privileges (`CREATE SESSION`), by Oracle's name.
    System(Vec<String>),
    /// Object privileges on a table: `SELECT`, `INSERT`, `UPDATE`, `DELETE` (`ALL
    /// [PRIVILEGES]` is the four).
    Table {
        privileges: Vec<String>,
        table: ObjectName,
    },
}

/// What ANALYZE TABLE does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnalyzeAction {
    /// `COMPUTE STATISTICS`: read every row.
    Compute,
    /// `ESTIMATE STATISTICS [SAMPLE n ROWS | n PERCENT]`; None: no SAMPLE clause.
    Estimate(Option<Sample>),
    /// `DELETE STATISTICS`.
    Delete,
}

/// `SAMPLE n ROWS` or `SAMPLE n PERCENT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    Rows(u32),
    Percent(u32),
}

/// A procedure call: `name(positional, ..., parameter => value, ...)`. `name` may be
/// qualified (`PACKAGE.PROCEDURE`), its parts joined by `.`; named arguments (PL/SQL's
/// `=>` notation) follow the positional ones, their names uppercased like identifiers.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcedureCall {
    pub name: String,
    pub args: Vec<Expr>,
    pub named: Vec<(String, Expr)>,
}

/// The kinds of stored PL/SQL unit (`dba_objects.object_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProgramKind {
    Procedure,
    Function,
    Package,
    PackageBody,
}

impl ProgramKind {
    /// The name `dba_objects.object_type` and `dba_source.type` give it.
    pub const fn name(self) -> &'static str {
        match self {
            ProgramKind::Procedure => "PROCEDURE",
            ProgramKind::Function => "FUNCTION",
            ProgramKind::Package => "PACKAGE",
            ProgramKind::PackageBody => "PACKAGE BODY",
        }
    }

    /// SQL*Plus's word for it in feedback ("Procedure created.", "Package body created.").
    pub const fn feedback_name(self) -> &'static str {
        match self {
            ProgramKind::Procedure => "Procedure",
            ProgramKind::Function => "Function",
            ProgramKind::Package => "Package",
            ProgramKind::PackageBody => "Package body",
        }
    }

    pub fn from_name(name: &str) -> Option<ProgramKind> {
        Some(match name {
            "PROCEDURE" => ProgramKind::Procedure,
            "FUNCTION" => ProgramKind::Function,
            "PACKAGE" => ProgramKind::Package,
            "PACKAGE BODY" => ProgramKind::PackageBody,
            _ => return None,
        })
    }
}

/// Where an INSERT's rows come from.
#[derive(Debug, Clone, PartialEq)]
pub enum InsertSource {
    /// One or more rows of `VALUES (...), (...)`.
    Values(Vec<Vec<Expr>>),
    Query(Box<Query>),
}

/// A query: `[WITH ...] body [ORDER BY ...] [OFFSET ...] [FETCH ...] [FOR UPDATE ...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub with: Vec<CommonTableExpression>,
    pub body: SetExpr,
    pub order_by: Vec<OrderByItem>,
    /// `OFFSET n ROWS`, or PostgreSQL `OFFSET n`.
    pub offset: Option<Expr>,
    /// `FETCH FIRST|NEXT n ROWS ONLY` (`FETCH FIRST ROW ONLY` is 1), or PostgreSQL `LIMIT n`
    /// (`LIMIT ALL` is None).
    pub fetch_first: Option<Expr>,
    pub for_update: Option<ForUpdate>,
}

impl Query {
    /// A query that is just `body`, with no WITH, ORDER BY, limits or locking.
    pub fn from_body(body: SetExpr) -> Query {
        Query {
            with: Vec::new(),
            body,
            order_by: Vec::new(),
            offset: None,
            fetch_first: None,
            for_update: None,
        }
    }

    /// Whether the query is nothing but its body.
    pub fn is_bare(&self) -> bool {
        self.with.is_empty()
            && self.order_by.is_empty()
            && self.offset.is_none()
            && self.fetch_first.is_none()
            && self.for_update.is_none()
    }
}

/// `name [(columns)] AS (query)` in a WITH list.
#[derive(Debug, Clone, PartialEq)]
pub struct CommonTableExpression {
    pub name: String,
    pub columns: Vec<String>,
    pub query: Box<Query>,
}

/// The body of a query. A parenthesized query with nothing but a body is replaced by its
/// body, so [`SetExpr::Query`] only holds queries with their own WITH, ORDER BY, limits or
/// FOR UPDATE.
#[derive(Debug, Clone, PartialEq)]
pub enum SetExpr {
    Select(Box<Select>),
    /// All set operators have the same precedence and associate to the left, as in Oracle.
    SetOperation {
        op: SetOperator,
        left: Box<SetExpr>,
        right: Box<SetExpr>,
    },
    Query(Box<Query>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOperator {
    Union,
    UnionAll,
    Intersect,
    /// `MINUS`, and PostgreSQL's `EXCEPT`.
    Minus,
}

/// One `SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ...` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    /// The text of the `/*+ ... */` hint that directly follows SELECT, without the comment marks.
    pub hint: Option<String>,
    /// DISTINCT or UNIQUE (ALL and nothing are false).
    pub distinct: bool,
    pub projection: Vec<SelectItem>,
    /// Empty when FROM was left out, which PostgreSQL allows (`SELECT 1`) and Oracle does not
    /// (ORA-00923): the caller that knows the dialect decides.
    pub from: Vec<TableReference>,
    pub where_clause: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SelectItem {
    /// `*`
    Wildcard,
    /// `t.*` or `schema.t.*`
    QualifiedWildcard(ObjectName),
    /// `expr [[AS] alias]`
    Expression { expr: Expr, alias: Option<String> },
}

/// An item of a FROM list. Comma-separated items are separate entries of [`Select::from`];
/// ANSI joins nest to the left.
#[derive(Debug, Clone, PartialEq)]
pub enum TableReference {
    Table {
        name: ObjectName,
        alias: Option<String>,
    },
    /// An inline view: `(query) [alias]`.
    Subquery {
        query: Box<Query>,
        alias: Option<String>,
    },
    /// `TABLE(name[(args)]) [alias]`: rows from a table function (`DBMS_XPLAN.DISPLAY`),
    /// or PostgreSQL's `name(args) [[AS] alias [(columns)]]` (`generate_series(1, 10) AS x`);
    /// `name` is qualified with `.` where written so. `columns` names the function's
    /// columns (empty when not written).
    TableFunction {
        name: String,
        args: Vec<Expr>,
        alias: Option<String>,
        columns: Vec<String>,
    },
    Join {
        left: Box<TableReference>,
        right: Box<TableReference>,
        kind: JoinKind,
        condition: JoinCondition,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    Cross,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JoinCondition {
    On(Expr),
    Using(Vec<String>),
    /// `NATURAL [kind] JOIN`: the columns the two sides have in common.
    Natural,
    /// CROSS JOIN has no condition.
    None,
}

/// One ORDER BY item.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderByItem {
    pub key: SortKey,
    pub descending: bool,
    /// `NULLS FIRST` (Some(true)), `NULLS LAST` (Some(false)), or the default (None).
    pub nulls_first: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SortKey {
    /// `ORDER BY 2`: a select-list position, 1-based as written (0 is kept: the planner
    /// rejects it).
    Position(usize),
    Expression(Expr),
}

/// `FOR UPDATE [OF columns] [NOWAIT | WAIT n | SKIP LOCKED]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForUpdate {
    pub columns: Vec<Expr>,
    pub wait: LockWait,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockWait {
    /// No option: wait for as long as it takes.
    Wait,
    NoWait,
    WaitSeconds(u32),
    SkipLocked,
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Literal(Literal),
    /// A column reference, `name`, `table.name` or `schema.table.name`. Pseudo-columns that
    /// follow a name are column references too: `seq.NEXTVAL` and `seq.CURRVAL` are
    /// `Column { table: Some("SEQ"), name: "NEXTVAL" }`, and `ROWID` / `t.ROWID` are columns
    /// named `ROWID`; the planner tells them apart by name.
    Column {
        schema: Option<String>,
        table: Option<String>,
        name: String,
    },
    /// A bind variable: `:name`, `:1`, `:"SYS_B_0"`, `$1`. `name` is `NAME`, `1`, `SYS_B_0`, `1`;
    /// `position` is the 0-based occurrence in the statement's text.
    Bind {
        name: String,
        position: usize,
    },
    /// The ROWNUM pseudo-column.
    Rownum,
    /// Oracle's outer-join marker on a column: `t.c (+)`.
    OuterJoin(Box<Expr>),
    Unary {
        op: UnaryOperator,
        expr: Box<Expr>,
    },
    Binary {
        left: Box<Expr>,
        op: BinaryOperator,
        right: Box<Expr>,
    },
    /// `expr IS [NOT] NULL`
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `expr [NOT] BETWEEN low AND high`
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    /// `expr [NOT] IN (list)`; `expr` may be a [`Expr::Tuple`].
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    /// `expr [NOT] IN (query)`; `expr` may be a [`Expr::Tuple`].
    InSubquery {
        expr: Box<Expr>,
        query: Box<Query>,
        negated: bool,
    },
    /// `expr [NOT] LIKE pattern [ESCAPE escape]`
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
    },
    /// `[NOT] EXISTS (query)`
    Exists {
        query: Box<Query>,
        negated: bool,
    },
    /// `left op ANY|SOME|ALL (query or list)`; `op` is a comparison.
    QuantifiedComparison {
        left: Box<Expr>,
        op: BinaryOperator,
        quantifier: Quantifier,
        right: QuantifiedOperand,
    },
    /// `(query)` used as a value.
    ScalarSubquery(Box<Query>),
    /// `CASE [operand] WHEN ... THEN ... [ELSE ...] END`; with an operand, each WHEN holds the
    /// value compared with it, without one each WHEN holds a condition.
    Case {
        operand: Option<Box<Expr>>,
        when_then: Vec<(Expr, Expr)>,
        else_result: Option<Box<Expr>>,
    },
    /// A function call. `name` is qualified with `.` where written so (`DBMS_RANDOM.VALUE`).
    /// `COUNT(*)` has `star` and no arguments; `COUNT(DISTINCT x)` has `distinct`. Niladic
    /// functions written without parentheses (SYSDATE, SYSTIMESTAMP, CURRENT_DATE,
    /// CURRENT_TIMESTAMP, LOCALTIMESTAMP, USER, UID, CURRENT_USER, SESSION_USER) have no
    /// arguments.
    Function {
        name: String,
        args: Vec<Expr>,
        distinct: bool,
        star: bool,
    },
    /// `CAST(expr AS type)`, and PostgreSQL's `expr::type`.
    Cast {
        expr: Box<Expr>,
        data_type: DataType,
    },
    /// `(a, b)`, as in `(a, b) IN (SELECT x, y FROM t)`.
    Tuple(Vec<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// The number as written: `12`, `12.5`, `.5`, `1e10`.
    Number(String),
    /// The string's value: quotes removed, `''` unescaped. National strings (`N'...'`) too.
    String(String),
    Null,
    /// PostgreSQL TRUE and FALSE.
    Boolean(bool),
    /// `DATE 'yyyy-mm-dd'`: the string's value.
    Date(String),
    /// `TIMESTAMP 'yyyy-mm-dd hh24:mi:ss[.ff]'`: the string's value.
    Timestamp(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOperator {
    Plus,
    Minus,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOperator {
    Add,
    Subtract,
    Multiply,
    Divide,
    Concat,
    Equal,
    /// `<>`, `!=` and `^=`.
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    And,
    Or,
}

impl BinaryOperator {
    /// The comparison that holds with its operands swapped: `a < b` is `b > a`; other
    /// operators are their own.
    pub fn mirrored(self) -> BinaryOperator {
        match self {
            BinaryOperator::Less => BinaryOperator::Greater,
            BinaryOperator::LessOrEqual => BinaryOperator::GreaterOrEqual,
            BinaryOperator::Greater => BinaryOperator::Less,
            BinaryOperator::GreaterOrEqual => BinaryOperator::LessOrEqual,
            other => other,
        }
    }

    /// Whether this is one of `= <> < <= > >=`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOperator::Equal
                | BinaryOperator::NotEqual
                | BinaryOperator::Less
                | BinaryOperator::LessOrEqual
                | BinaryOperator::Greater
                | BinaryOperator::GreaterOrEqual
        )
    }
}

/// ANY (also written SOME) or ALL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    Any,
    All,
}

#[derive(Debug, Clone, PartialEq)]
pub enum QuantifiedOperand {
    Subquery(Box<Query>),
    List(Vec<Expr>),
}

/// A column's or a cast's data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    /// `NUMBER[(p[, s])]`, `NUMBER(*, s)`, NUMERIC, DECIMAL.
    Number {
        precision: Option<u32>,
        scale: Option<i32>,
    },
    /// INTEGER, INT, SMALLINT, and PostgreSQL BIGINT, INT2, INT4, INT8.
    Integer,
    /// FLOAT[(p)], BINARY_DOUBLE, BINARY_FLOAT, DOUBLE PRECISION, REAL, FLOAT4, FLOAT8.
    Float,
    /// `VARCHAR2(n [BYTE|CHAR])`, `NVARCHAR2(n)`, `VARCHAR(n)`, `CHARACTER VARYING(n)`; PostgreSQL
    /// TEXT and VARCHAR without a length are 4000. The BYTE/CHAR qualifier is not kept.
    Varchar2 {
        length: u32,
    },
    /// `CHAR[(n [BYTE|CHAR])]`, `NCHAR[(n)]`, `CHARACTER[(n)]`; no length is 1.
    Char {
        length: u32,
    },
    Date,
    /// `TIMESTAMP[(p)]`: fractional seconds precision 0 to 9 when given.
    Timestamp {
        precision: Option<u32>,
    },
    /// PostgreSQL BOOLEAN and BOOL.
    Boolean,
}

/// A column in CREATE TABLE or ALTER TABLE ADD.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub data_type: DataType,
    pub default: Option<Expr>,
    pub not_null: bool,
    pub primary_key: bool,
    pub unique: bool,
    /// The name given by `CONSTRAINT name NOT NULL`.
    pub not_null_constraint_name: Option<String>,
    /// The name given by `CONSTRAINT name PRIMARY KEY`.
    pub primary_key_constraint_name: Option<String>,
    /// The name given by `CONSTRAINT name UNIQUE`.
    pub unique_constraint_name: Option<String>,
    /// CHECK and REFERENCES constraints written on the column, as the table constraints they
    /// are equivalent to (a REFERENCES constraint's column list is this column).
    pub constraints: Vec<TableConstraint>,
}

impl ColumnDef {
    /// A nullable column without default or constraints.
    pub fn new(name: impl Into<String>, data_type: DataType) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            data_type,
            default: None,
            not_null: false,
            primary_key: false,
            unique: false,
            not_null_constraint_name: None,
            primary_key_constraint_name: None,
            unique_constraint_name: None,
            constraints: Vec::new(),
        }
    }
}

/// `[CONSTRAINT name] PRIMARY KEY (...) | UNIQUE (...) | CHECK (...)
/// | FOREIGN KEY (...) REFERENCES ...`
#[derive(Debug, Clone, PartialEq)]
pub struct TableConstraint {
    pub name: Option<String>,
    pub kind: TableConstraintKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TableConstraintKind {
    PrimaryKey {
        columns: Vec<String>,
    },
    Unique {
        columns: Vec<String>,
    },
    Check(Expr),
    ForeignKey {
        columns: Vec<String>,
        references: ForeignKeyReference,
    },
}

/// `REFERENCES table [(columns)] [ON DELETE CASCADE | ON DELETE SET NULL]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignKeyReference {
    pub table: ObjectName,
    /// Empty when not written: the referenced table's primary key.
    pub columns: Vec<String>,
    pub on_delete: Option<ReferentialAction>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferentialAction {
    Cascade,
    SetNull,
}

/// The physical attributes the engine uses. Others (TABLESPACE, PCTUSED, INITRANS, LOGGING,
/// PARALLEL, the STORAGE options INITIAL, NEXT, MINEXTENTS, MAXEXTENTS, PCTINCREASE,
/// FREELISTS and FREELIST GROUPS, PostgreSQL `WITH (fillfactor=...)`, ...) are accepted and
/// not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StorageClause {
    /// `STORAGE (BUFFER_POOL KEEP|RECYCLE|DEFAULT)`.
    pub buffer_pool: Option<BufferPool>,
    /// `PCTFREE n`, 0 to 99.
    pub pctfree: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AlterTableAction {
    /// `ADD [COLUMN] c type ...` or `ADD (c type ..., d type ...)`.
    AddColumns(Vec<ColumnDef>),
    DropColumn(String),
    /// `MODIFY c ...` or `MODIFY (c ..., d ...)`.
    ModifyColumns(Vec<ColumnModification>),
    /// `ADD [CONSTRAINT n] PRIMARY KEY|UNIQUE|CHECK|FOREIGN KEY ...`.
    AddConstraint(TableConstraint),
    DropConstraint(String),
    /// `DROP PRIMARY KEY`.
    DropPrimaryKey,
    /// `DROP UNIQUE (columns)`.
    DropUnique(Vec<String>),
    RenameTo(String),
    RenameColumn {
        from: String,
        to: String,
    },
    /// `STORAGE (...)`, `PCTFREE n`, the other physical attributes and `CACHE` / `NOCACHE`,
    /// in any order: `cache` is Some(true) for CACHE, Some(false) for NOCACHE, None when
    /// neither is said.
    Attributes {
        storage: StorageClause,
        cache: Option<bool>,
    },
}

/// One column of `ALTER TABLE ... MODIFY`: only what was written is Some.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnModification {
    pub name: String,
    pub data_type: Option<DataType>,
    pub default: Option<Expr>,
    /// `NOT NULL` (Some(true)) or `NULL` (Some(false)).
    pub not_null: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlterIndexAction {
    /// `REBUILD [ONLINE] [physical attributes]`.
    Rebuild { storage: StorageClause },
    /// `STORAGE (...)` and the other physical attributes.
    Storage(StorageClause),
}

/// A CREATE or ALTER SEQUENCE option. Numbers may be negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SequenceOption {
    StartWith(i128),
    IncrementBy(i128),
    MinValue(i128),
    NoMinValue,
    MaxValue(i128),
    NoMaxValue,
    Cache(i128),
    NoCache,
    Cycle,
    NoCycle,
    Order,
    NoOrder,
}

/// `WRITE [WAIT|NOWAIT] [IMMEDIATE|BATCH]` of a COMMIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitWrite {
    /// WAIT (Some(true)), NOWAIT (Some(false)), or the default (None).
    pub wait: Option<bool>,
    /// IMMEDIATE (Some(true)), BATCH (Some(false)), or the default (None).
    pub immediate: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AlterSystemAction {
    /// `SET name = value [, value ...] [SCOPE = ...] [SID = '...']`. A COMMENT or DEFERRED
    /// clause is accepted and not kept.
    Set {
        name: String,
        values: Vec<ParameterValue>,
        scope: Option<ParameterScope>,
        sid: Option<String>,
    },
    /// `CHECKPOINT [GLOBAL|LOCAL]`.
    Checkpoint {
        local: bool,
    },
    SwitchLogfile,
    FlushBufferCache,
    FlushSharedPool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterScope {
    Memory,
    Spfile,
    Both,
}

/// `name = value` of ALTER SESSION SET. Names follow the identifier rule (unquoted are
/// uppercased), and may be hidden parameters (`_KGL_BUCKET_COUNT`) or `EVENTS`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSetting {
    pub name: String,
    pub value: ParameterValue,
}

/// A value given to an initialization or session parameter, kept as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParameterValue {
    /// A number as written, with its sign: `200`, `-1`, `0.5`.
    Number(String),
    /// A string literal's value: `'10046 trace name context forever, level 12'`.
    String(String),
    /// A word, uppercased unless quoted: `TRUE`, `FORCE`, `EXACT`, `DEFAULT`.
    Identifier(String),
    /// A size with its unit as written: `64M`, `1G`, `512k`.
    Size(String),
    /// A parenthesized list, or several comma-separated values of PostgreSQL SET, as written:
    /// `(buffers:200, lru_latches:1)`.
    List(String),
}

/// A reference to any node of a tree that holds expressions or queries: the unit of
/// [`Node::walk`] and [`Node::height`].
#[derive(Debug, Clone, Copy)]
pub enum Node<'a> {
    Statement(&'a Statement),
    Query(&'a Query),
    SetExpr(&'a SetExpr),
    Select(&'a Select),
    TableReference(&'a TableReference),
    Expr(&'a Expr),
}

impl<'a> Node<'a> {
    /// Calls `visit` on each child of this node, in the order the children are written. For
    /// a node built from a left operand (a binary operator, IS NULL, a set operation, a join,
    /// ...) the left operand is always the first child.
    pub fn for_each_child(self, visit: &mut dyn FnMut(Node<'a>)) {
        match self {
            Node::Statement(statement) => statement_children(statement, visit),
            Node::Query(query) => {
                for common in &query.with {
                    visit(Node::Query(&common.query));
                }
                visit(Node::SetExpr(&query.body));
                for item in &query.order_by {
                    if let SortKey::Expression(expr) = &item.key {
                        visit(Node::Expr(expr));
                    }
                }
                if let Some(offset) = &query.offset {
                    visit(Node::Expr(offset));
                }
                if let Some(fetch_first) = &query.fetch_first {
                    visit(Node::Expr(fetch_first));
                }
                if let Some(for_update) = &query.for_update {
                    for column in &for_update.columns {
                        visit(Node::Expr(column));
                    }
                }
            }
            Node::SetExpr(set) => match set {
                SetExpr::Select(select) => visit(Node::Select(select)),
                SetExpr::SetOperation { left, right, .. } => {
                    visit(Node::SetExpr(left));
                    visit(Node::SetExpr(right));
                }
                SetExpr::Query(query) => visit(Node::Query(query)),
            },
            Node::Select(select) => {
                for item in &select.projection {
                    if let SelectItem::Expression { expr, .. } = item {
                        visit(Node::Expr(expr));
                    }
                }
                for table in &select.from {
                    visit(Node::TableReference(table));
                }
                if let Some(condition) = &select.where_clause {
                    visit(Node::Expr(condition));
                }
                for expr in &select.group_by {
                    visit(Node::Expr(expr));
                }
                if let Some(condition) = &select.having {
                    visit(Node::Expr(condition));
                }
            }
            Node::TableReference(table) => match table {
                TableReference::Table { .. } => {}
                TableReference::Subquery { query, .. } => visit(Node::Query(query)),
                TableReference::TableFunction { args, .. } => {
                    for arg in args {
                        visit(Node::Expr(arg));
                    }
                }
                TableReference::Join {
                    left,
                    right,
                    condition,
                    ..
                } => {
                    visit(Node::TableReference(left));
                    visit(Node::TableReference(right));
                    if let JoinCondition::On(expr) = condition {
                        visit(Node::Expr(expr));
                    }
                }
            },
            Node::Expr(expr) => expression_children(expr, visit),
        }
    }

    /// Calls `visit` on this node and then on every node below it, depth first, in the order
    /// of [`Node::for_each_child`]. Subqueries are walked too.
    pub fn walk(self, visit: &mut dyn FnMut(Node<'a>)) {
        visit(self);
        self.for_each_child(&mut |child| child.walk(visit));
    }

    /// The number of nodes on the longest path from this node down to a leaf (a leaf is 1).
    pub fn height(self) -> usize {
        let mut tallest = 0;
        self.for_each_child(&mut |child| tallest = tallest.max(child.height()));
        tallest + 1
    }
}

impl Expr {
    /// Calls `visit` on this expression and on every expression below it, depth first, in
    /// the order of [`Node::for_each_child`], but not inside subqueries (their expressions
    /// belong to another query block).
    pub fn walk_within_query(&self, visit: &mut dyn FnMut(&Expr)) {
        visit(self);
        expression_children(self, &mut |child| {
            if let Node::Expr(child) = child {
                child.walk_within_query(visit);
            }
        });
    }
}

impl Expr {
    /// Calls `visit` on each expression directly below this one, mutably, in the order of
    /// [`Node::for_each_child`], not inside subqueries: [`expression_children`]'s twin for
    /// rewriting a tree in place (keep the two in step).
    pub fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(&mut Expr)) {
        match self {
            Expr::Literal(_)
            | Expr::Column { .. }
            | Expr::Bind { .. }
            | Expr::Rownum
            | Expr::Exists { .. }
            | Expr::ScalarSubquery(_) => {}
            Expr::OuterJoin(inner) => visit(inner),
            Expr::Unary { expr, .. }
            | Expr::IsNull { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::InSubquery { expr, .. } => visit(expr),
            Expr::Binary { left, right, .. } => {
                visit(left);
                visit(right);
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                visit(expr);
                visit(low);
                visit(high);
            }
            Expr::InList { expr, list, .. } => {
                visit(expr);
                list.iter_mut().for_each(visit);
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                ..
            } => {
                visit(expr);
                visit(pattern);
                if let Some(escape) = escape {
                    visit(escape);
                }
            }
            Expr::QuantifiedComparison { left, right, .. } => {
                visit(left);
                if let QuantifiedOperand::List(list) = right {
                    list.iter_mut().for_each(visit);
                }
            }
            Expr::Case {
                operand,
                when_then,
                else_result,
            } => {
                if let Some(operand) = operand {
                    visit(operand);
                }
                for (when, then) in when_then {
                    visit(when);
                    visit(then);
                }
                if let Some(else_result) = else_result {
                    visit(else_result);
                }
            }
            Expr::Function { args, .. } | Expr::Tuple(args) => args.iter_mut().for_each(visit),
        }
    }
}

impl Statement {
    /// The number of bind variables in the statement (occurrences, not distinct names).
    pub fn bind_count(&self) -> usize {
        let mut count = 0;
        Node::Statement(self).walk(&mut |node| {
            if let Node::Expr(Expr::Bind { .. }) = node {
                count += 1;
            }
        });
        // A password given by a bind (`IDENTIFIED BY :password`) is a bind too.
        if let Statement::CreateUser {
            password: Some(Password::Bind(_)),
            ..
        }
        | Statement::AlterUser {
            password: Some(Password::Bind(_)),
            ..
        } = self
        {
            count += 1;
        }
        count
    }
}

fn statement_children<'a>(statement: &'a Statement, visit: &mut dyn FnMut(Node<'a>)) {
    match statement {
        Statement::Select(query) => visit(Node::Query(query)),
        Statement::Insert {
            source, returning, ..
        } => {
            match source {
                InsertSource::Values(rows) => rows
                    .iter()
                    .flatten()
                    .for_each(|value| visit(Node::Expr(value))),
                InsertSource::Query(query) => visit(Node::Query(query)),
            }
            returning.iter().for_each(|value| visit(Node::Expr(value)));
        }
        Statement::Update {
            assignments,
            where_clause,
            returning,
            ..
        } => {
            for (_, value) in assignments {
                visit(Node::Expr(value));
            }
            if let Some(condition) = where_clause {
                visit(Node::Expr(condition));
            }
            returning.iter().for_each(|value| visit(Node::Expr(value)));
        }
        Statement::Delete {
            where_clause,
            returning,
            ..
        } => {
            if let Some(condition) = where_clause {
                visit(Node::Expr(condition));
            }
            returning.iter().for_each(|value| visit(Node::Expr(value)));
        }
        Statement::CreateTable {
            columns,
            constraints,
            as_query,
            ..
        } => {
            for column in columns {
                column_children(column, visit);
            }
            for constraint in constraints {
                constraint_children(constraint, visit);
            }
            if let Some(query) = as_query {
                visit(Node::Query(query));
            }
        }
        Statement::AlterTable { action, .. } => match action {
            AlterTableAction::AddColumns(columns) => columns
                .iter()
                .for_each(|column| column_children(column, visit)),
            AlterTableAction::ModifyColumns(columns) => columns
                .iter()
                .filter_map(|column| column.default.as_ref())
                .for_each(|value| visit(Node::Expr(value))),
            AlterTableAction::AddConstraint(constraint) => constraint_children(constraint, visit),
            AlterTableAction::DropColumn(_)
            | AlterTableAction::DropConstraint(_)
            | AlterTableAction::DropPrimaryKey
            | AlterTableAction::DropUnique(_)
            | AlterTableAction::RenameTo(_)
            | AlterTableAction::RenameColumn { .. }
            | AlterTableAction::Attributes { .. } => {}
        },
        Statement::CreateView { query, .. } => visit(Node::Query(query)),
        Statement::Explain { statement, .. } => visit(Node::Statement(statement)),
        Statement::Call(call) => call_children(call, visit),
        Statement::DropTable { .. }
        | Statement::Block
        | Statement::CreateUser { .. }
        | Statement::AlterUser { .. }
        | Statement::DropUser { .. }
        | Statement::Grant { .. }
        | Statement::Truncate { .. }
        | Statement::CreateIndex { .. }
        | Statement::DropIndex { .. }
        | Statement::AlterIndex { .. }
        | Statement::CreateSequence { .. }
        | Statement::AlterSequence { .. }
        | Statement::DropSequence { .. }
        | Statement::DropView { .. }
        | Statement::CreateProgram { .. }
        | Statement::DropProgram { .. }
        | Statement::AlterCompile { .. }
        | Statement::Rename { .. }
        | Statement::Comment { .. }
        | Statement::Commit { .. }
        | Statement::Rollback { .. }
        | Statement::Savepoint(_)
        | Statement::Begin
        | Statement::AlterSystem(_)
        | Statement::AlterSession(_)
        | Statement::Analyze { .. }
        | Statement::Set { .. }
        | Statement::Show(_)
        | Statement::Vacuum { .. } => {}
    }
}

fn call_children<'a>(call: &'a ProcedureCall, visit: &mut dyn FnMut(Node<'a>)) {
    call.args
        .iter()
        .chain(call.named.iter().map(|(_, value)| value))
        .for_each(|arg| visit(Node::Expr(arg)));
}

fn column_children<'a>(column: &'a ColumnDef, visit: &mut dyn FnMut(Node<'a>)) {
    if let Some(default) = &column.default {
        visit(Node::Expr(default));
    }
    for constraint in &column.constraints {
        constraint_children(constraint, visit);
    }
}

fn constraint_children<'a>(constraint: &'a TableConstraint, visit: &mut dyn FnMut(Node<'a>)) {
    if let TableConstraintKind::Check(condition) = &constraint.kind {
        visit(Node::Expr(condition));
    }
}

fn expression_children<'a>(expr: &'a Expr, visit: &mut dyn FnMut(Node<'a>)) {
    match expr {
        Expr::Literal(_) | Expr::Column { .. } | Expr::Bind { .. } | Expr::Rownum => {}
        Expr::OuterJoin(inner) => visit(Node::Expr(inner)),
        Expr::Unary { expr, .. } | Expr::IsNull { expr, .. } | Expr::Cast { expr, .. } => {
            visit(Node::Expr(expr))
        }
        Expr::Binary { left, right, .. } => {
            visit(Node::Expr(left));
            visit(Node::Expr(right));
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            visit(Node::Expr(expr));
            visit(Node::Expr(low));
            visit(Node::Expr(high));
        }
        Expr::InList { expr, list, .. } => {
            visit(Node::Expr(expr));
            list.iter().for_each(|item| visit(Node::Expr(item)));
        }
        Expr::InSubquery { expr, query, .. } => {
            visit(Node::Expr(expr));
            visit(Node::Query(query));
        }
        Expr::Like {
            expr,
            pattern,
            escape,
            ..
        } => {
            visit(Node::Expr(expr));
            visit(Node::Expr(pattern));
            if let Some(escape) = escape {
                visit(Node::Expr(escape));
            }
        }
        Expr::Exists { query, .. } | Expr::ScalarSubquery(query) => visit(Node::Query(query)),
        Expr::QuantifiedComparison { left, right, .. } => {
            visit(Node::Expr(left));
            match right {
                QuantifiedOperand::Subquery(query) => visit(Node::Query(query)),
                QuantifiedOperand::List(list) => {
                    list.iter().for_each(|item| visit(Node::Expr(item)))
                }
            }
        }
        Expr::Case {
            operand,
            when_then,
            else_result,
        } => {
            if let Some(operand) = operand {
                visit(Node::Expr(operand));
            }
            for (when, then) in when_then {
                visit(Node::Expr(when));
                visit(Node::Expr(then));
            }
            if let Some(else_result) = else_result {
                visit(Node::Expr(else_result));
            }
        }
        Expr::Function { args, .. } | Expr::Tuple(args) => {
            args.iter().for_each(|arg| visit(Node::Expr(arg)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str) -> Expr {
        Expr::Column {
            schema: None,
            table: None,
            name: name.to_string(),
        }
    }

    fn bind(position: usize) -> Expr {
        Expr::Bind {
            name: (position + 1).to_string(),
            position,
        }
    }

    fn select_with_where(condition: Expr) -> Statement {
        Statement::Select(Box::new(Query::from_body(SetExpr::Select(Box::new(
            Select {
                hint: None,
                distinct: false,
                projection: vec![SelectItem::Wildcard],
                from: vec![TableReference::Table {
                    name: ObjectName::new("T"),
                    alias: None,
                }],
                where_clause: Some(condition),
                group_by: Vec::new(),
                having: None,
            },
        )))))
    }

    #[test]
    fn leaves_are_one_high_and_each_level_adds_one() {
        assert_eq!(Node::Expr(&column("A")).height(), 1);
        let sum = Expr::Binary {
            left: Box::new(column("A")),
            op: BinaryOperator::Add,
            right: Box::new(bind(0)),
        };
        assert_eq!(Node::Expr(&sum).height(), 2);
        // Statement -> Query -> SetExpr -> Select -> Binary -> Column.
        assert_eq!(Node::Statement(&select_with_where(sum)).height(), 6);
    }

    #[test]
    fn walk_visits_every_node_in_written_order_including_subqueries() {
        let inner = select_with_where(bind(1));
        let Statement::Select(inner_query) = inner else {
            unreachable!()
        };
        let condition = Expr::Binary {
            left: Box::new(bind(0)),
            op: BinaryOperator::And,
            right: Box::new(Expr::Exists {
                query: inner_query,
                negated: false,
            }),
        };
        let statement = select_with_where(condition);
        let mut positions = Vec::new();
        Node::Statement(&statement).walk(&mut |node| {
            if let Node::Expr(Expr::Bind { position, .. }) = node {
                positions.push(*position);
            }
        });
        assert_eq!(positions, vec![0, 1]);
        assert_eq!(statement.bind_count(), 2);
    }

    #[test]
    fn left_operand_is_the_first_child() {
        let between = Expr::Between {
            expr: Box::new(column("A")),
            low: Box::new(column("B")),
            high: Box::new(column("C")),
            negated: false,
        };
        let mut names = Vec::new();
        Node::Expr(&between).for_each_child(&mut |child| {
            if let Node::Expr(Expr::Column { name, .. }) = child {
                names.push(name.clone());
            }
        });
        assert_eq!(names, vec!["A", "B", "C"]);
    }

    #[test]
    fn object_names_display_with_their_schema() {
        assert_eq!(ObjectName::qualified("SYS", "DUAL").to_string(), "SYS.DUAL");
        assert_eq!(ObjectName::new("EMP").to_string(), "EMP");
    }
}
