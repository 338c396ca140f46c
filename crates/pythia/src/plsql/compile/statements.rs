//! Declarations and statements to instructions: slots allocated and initialised where a
//! block is entered, control flow as jumps patched when their targets are known, EXIT,
//! CONTINUE and GOTO leaving the scopes they cross (handler tables, handlers, cursor FOR
//! loops' cursors), and the calls PL/SQL knows itself (DBMS_OUTPUT, RAISE_APPLICATION_ERROR,
//! DBMS_LOCK.SLEEP) apart from those the session runs.

use std::sync::Arc;

use super::scope::{CollectionType, Member, RecordType, Resolved, Symbol};
use super::SLOTS_MAX;
use super::{leave, Compiler, Goto, Label, Loop};
use crate::catalog::data_type_from_ast;
use crate::error::Result;
use crate::plsql::ast::{self, CursorSource, Declaration, StatementKind, Target, TypeName};
use crate::plsql::code::*;
use crate::sql::eval::Expr;
use crate::syntax::ast::{BinaryOperator, Expr as SqlExpr};
use crate::types::Value;

impl Compiler<'_> {
    // ---- Declarations --------------------------------------------------------------------

    pub(super) fn declaration(&mut self, declaration: &Declaration) -> Result<()> {
        match declaration {
            Declaration::Variable {
                name,
                type_name,
                constant,
                not_null,
                default,
                position,
            } => {
                let member = self.resolve_type(type_name, *position)?;
                let default = match default {
                    Some(default) => Some(self.expression(default, *position)?),
                    None => None,
                };
                match member {
                    Member::Scalar {
                        kind,
                        not_null: subtype_not_null,
                    } => {
                        let slot = self.slot(name, kind, *not_null || subtype_not_null)?;
                        let expr = default.unwrap_or(Expr::Constant(Value::Null));
                        self.emit(Instruction::Assign { slot, expr }, *position);
                        self.declare(
                            name,
                            Symbol::Scalar {
                                slot,
                                kind,
                                constant: *constant,
                            },
                            *position,
                        )
                    }
                    Member::Record(record) => {
                        if default.is_some() {
                            return Err(self.error(
                                *position,
                                "PLS-00999: implementation restriction (may be temporary) a record's default",
                            ));
                        }
                        let first = self.record_slots(name, &record, *position)?;
                        self.declare(name, Symbol::Record { first, record }, *position)
                    }
                    Member::Collection(collection) => {
                        if default.is_some() {
                            return Err(self.error(
                                *position,
                                "PLS-00999: implementation restriction (may be temporary) a collection's default",
                            ));
                        }
                        let id = self.collection(name, &collection)?;
                        // Empty wherever the declaration is met (a block entered again).
                        self.emit(
                            Instruction::DeleteElements {
                                collection: id,
                                keys: Vec::new(),
                            },
                            *position,
                        );
                        self.declare(name, Symbol::Collection { id, collection }, *position)
                    }
                }
            }
            Declaration::Collection {
                name,
                element,
                not_null,
                key,
                position,
            } => {
                let Member::Scalar {
                    kind,
                    not_null: element_not_null,
                } = self.resolve_type(element, *position)?
                else {
                    return Err(self.error(
                        *position,
                        "PLS-00999: implementation restriction (may be temporary) a collection of records or of collections",
                    ));
                };
                let collection = Arc::new(CollectionType {
                    element: kind,
                    not_null: *not_null || element_not_null,
                    key: *key,
                });
                self.declare(name, Symbol::Type(Member::Collection(collection)), *position)
            }
            Declaration::Exception { name, position } => {
                self.exceptions.push(UserException {
                    name: name.clone(),
                    code: None,
                });
                let id = self.exceptions.len() - 1;
                self.declare(name, Symbol::Exception(id), *position)
            }
            Declaration::ExceptionInit {
                name,
                code,
                position,
            } => {
                let Some(id) = self.scopes.exception(std::slice::from_ref(name)) else {
                    return Err(self.undeclared(*position, std::slice::from_ref(name)));
                };
                self.exceptions[id].code = Some(self.exception_init_code(*code, *position)?);
                Ok(())
            }
            Declaration::Record {
                name,
                fields,
                position,
            } => {
                let mut members = Vec::new();
                for field in fields {
                    let member = match self.resolve_type(&field.type_name, *position)? {
                        Member::Scalar { kind, not_null } => Member::Scalar {
                            kind,
                            not_null: not_null || field.not_null,
                        },
                        record => record,
                    };
                    members.push((field.name.clone(), member));
                }
                let record = Arc::new(RecordType { fields: members });
                self.declare(name, Symbol::Type(Member::Record(record)), *position)
            }
            Declaration::Subtype {
                name,
                base,
                not_null,
                position,
            } => {
                let member = match self.resolve_type(base, *position)? {
                    Member::Scalar {
                        kind,
                        not_null: base_not_null,
                    } => Member::Scalar {
                        kind,
                        not_null: *not_null || base_not_null,
                    },
                    record => record,
                };
                self.declare(name, Symbol::Type(member), *position)
            }
            Declaration::Subprogram(subprogram) => Err(self.error(
                subprogram.position,
                "PLS-00999: implementation restriction (may be temporary) local subprograms are not supported yet",
            )),
            Declaration::Autonomous { position } => Err(self.error(
                *position,
                "PLS-00999: implementation restriction (may be temporary) PRAGMA AUTONOMOUS_TRANSACTION is not supported yet",
            )),
            Declaration::Cursor {
                name,
                parameters,
                query,
                position,
            } => {
                let id = self.cursor(name, parameters, query, *position)?;
                self.declare(name, Symbol::Cursor(id), *position)
            }
        }
    }

    /// The Oracle error PRAGMA EXCEPTION_INIT's number names (100 is NO_DATA_FOUND's 1403);
    /// PLS-00701 outside -1,000,000 .. -1.
    pub(super) fn exception_init_code(&self, code: i64, position: usize) -> Result<u32> {
        match code {
            100 => Ok(1403),
            code if (-1_000_000..0).contains(&code) => Ok((-code) as u32),
            _ => Err(self.error(
                position,
                &format!("PLS-00701: illegal ORACLE error number {code} for PRAGMA EXCEPTION_INIT"),
            )),
        }
    }

    fn declare(&mut self, name: &str, symbol: Symbol, position: usize) -> Result<()> {
        if self.scopes.declare(name, symbol) {
            Ok(())
        } else {
            Err(self.error(
                position,
                &format!("PLS-00371: at most one declaration for '{name}' is permitted"),
            ))
        }
    }

    /// A collection variable's number in the unit.
    fn collection(&mut self, name: &str, collection: &CollectionType) -> Result<u32> {
        if self.collections.len() >= SLOTS_MAX {
            return Err(self.error(
                0,
                &format!("PLS-00123: program too large (more than {SLOTS_MAX} collections)"),
            ));
        }
        self.collections.push(CollectionDef {
            element: Slot {
                name: name.to_string(),
                kind: collection.element,
                not_null: collection.not_null,
            },
            key: collection.key,
        });
        Ok(self.collections.len() as u32 - 1)
    }

    /// Slots for a record's fields, each initialised to NULL; returns the first.
    fn record_slots(&mut self, name: &str, record: &RecordType, position: usize) -> Result<usize> {
        let mut scalars = Vec::new();
        record.scalars(&mut scalars);
        let first = self.slots.len();
        for (index, (kind, not_null)) in scalars.into_iter().enumerate() {
            let slot = self.slot(&format!("{name}.{index}"), kind, not_null)?;
            self.emit(
                Instruction::Assign {
                    slot,
                    expr: Expr::Constant(Value::Null),
                },
                position,
            );
        }
        Ok(first)
    }

    /// A declaration's type, resolved.
    pub(super) fn resolve_type(&mut self, type_name: &TypeName, position: usize) -> Result<Member> {
        let scalar = |kind| Member::Scalar {
            kind,
            not_null: false,
        };
        match type_name {
            TypeName::Sql(data_type) => {
                let data_type = data_type_from_ast(data_type)
                    .map_err(|error| self.error(position, &format!("PL/SQL: {error}")))?;
                Ok(scalar(SlotKind::Sql(data_type)))
            }
            TypeName::PlsInteger => Ok(scalar(SlotKind::PlsInteger)),
            TypeName::Named(parts) => match self.scopes.type_named(parts) {
                Some(member) => Ok(member),
                None if matches!(parts.as_slice(), [name] if name == "SYS_REFCURSOR") => {
                    Err(self.error(
                        position,
                        "PLS-00999: implementation restriction (may be temporary) SYS_REFCURSOR is not supported yet",
                    ))
                }
                None => Err(self.undeclared(position, parts)),
            },
            TypeName::TypeOf(parts) => {
                if let Some(resolved) = self.resolve(parts)? {
                    return Ok(match resolved {
                        Resolved::Scalar { kind, .. } => scalar(kind),
                        Resolved::Record { record, .. } => Member::Record(record),
                        Resolved::Collection { collection, .. } => Member::Collection(collection),
                    });
                }
                let [table, column] = parts.as_slice() else {
                    return Err(self.undeclared(position, parts));
                };
                let columns = self
                    .names
                    .columns_of(table)
                    .ok_or_else(|| self.undeclared(position, parts))?;
                let (_, data_type) = columns
                    .into_iter()
                    .find(|(name, _)| name == column)
                    .ok_or_else(|| self.undeclared(position, parts))?;
                Ok(scalar(data_type.map_or(SlotKind::Any, SlotKind::Sql)))
            }
            TypeName::RowTypeOf(parts) => {
                let columns = match parts.as_slice() {
                    [name] if self.scopes.cursor(name).is_some() => {
                        let id = self.scopes.cursor(name).unwrap_or_default();
                        self.cursor_columns(id)
                    }
                    [table] => self
                        .names
                        .columns_of(table)
                        .ok_or_else(|| self.undeclared(position, parts))?,
                    _ => return Err(self.undeclared(position, parts)),
                };
                Ok(Member::Record(row_type(columns)))
            }
        }
    }

    /// A cursor: its parameters' slots (visible only in its query), its query, its
    /// attribute slots.
    fn cursor(
        &mut self,
        name: &str,
        parameters: &[ast::Parameter],
        query: &ast::Sql,
        position: usize,
    ) -> Result<usize> {
        self.scopes.push(None);
        let mut slots = Vec::new();
        let mut defaults = Vec::new();
        for parameter in parameters {
            let Member::Scalar { kind, .. } = self.resolve_type(&parameter.type_name, position)?
            else {
                self.scopes.pop();
                return Err(self.error(position, "PLS-00999: implementation restriction (may be temporary) a record as a cursor parameter"));
            };
            let slot = self.slot(&parameter.name, kind, false)?;
            let default = match &parameter.default {
                Some(default) => Some(self.expression(default, position)?),
                None => None,
            };
            defaults.push(default);
            self.declare(
                &parameter.name,
                Symbol::Scalar {
                    slot,
                    kind,
                    constant: true,
                },
                position,
            )?;
            slots.push(slot);
        }
        // A cursor FOR UPDATE fetches each row's rowid too, for WHERE CURRENT OF.
        let for_update = query.from_at.is_some()
            && matches!(&query.statement, crate::syntax::ast::Statement::Select(select) if select.for_update.is_some());
        let statement = self.static_sql_fetching(query, for_update);
        self.scopes.pop();
        let statement = statement?;
        let rowid = if for_update {
            if let Some(Some(columns)) = self.described.get_mut(statement) {
                columns.pop();
            }
            Some(self.hidden_slot(&format!("{name}%ROWID")))
        } else {
            None
        };
        let attributes = self.cursor_slots(name);
        self.cursors.push(Cursor {
            name: name.to_string(),
            statement,
            parameters: slots,
            defaults,
            attributes,
            rowid,
        });
        Ok(self.cursors.len() - 1)
    }

    // ---- Statements ----------------------------------------------------------------------

    pub(super) fn statement_list(&mut self, statements: &[ast::Statement]) -> Result<()> {
        let list = self.next_list;
        self.next_list += 1;
        self.lists.push(list);
        for statement in statements {
            self.statement(statement)?;
        }
        self.lists.pop();
        Ok(())
    }

    fn statement(&mut self, statement: &ast::Statement) -> Result<()> {
        let position = statement.position;
        for label in &statement.labels {
            self.labels.push(Label {
                name: label.clone(),
                at: self.here(),
                handler_depth: self.handler_depth,
                exception_depth: self.exception_depth,
                lists: self.lists.clone(),
            });
        }
        let label = statement.labels.last().cloned();
        match &statement.kind {
            StatementKind::Assign { target, value } => self.assignment(target, value, position),
            StatementKind::If {
                branches,
                otherwise,
            } => {
                let mut ends = Vec::new();
                for (condition, body) in branches {
                    let condition = self.expression(condition, position)?;
                    let skip = self.emit(Instruction::JumpUnless { condition, to: 0 }, position);
                    self.statement_list(body)?;
                    ends.push(self.emit(Instruction::Jump(0), position));
                    let next = self.here();
                    self.patch(skip, next);
                }
                if let Some(body) = otherwise {
                    self.statement_list(body)?;
                }
                let end = self.here();
                for at in ends {
                    self.patch(at, end);
                }
                Ok(())
            }
            StatementKind::Case {
                operand,
                branches,
                otherwise,
            } => {
                let operand = match operand {
                    Some(operand) => {
                        let slot = self.hidden_slot("CASE");
                        let expr = self.expression(operand, position)?;
                        self.emit(Instruction::Assign { slot, expr }, position);
                        Some(slot)
                    }
                    None => None,
                };
                let mut ends = Vec::new();
                for (value, body) in branches {
                    let value = self.expression(value, position)?;
                    let condition = match operand {
                        Some(slot) => Expr::Binary(
                            Box::new(Expr::Column(slot)),
                            BinaryOperator::Equal,
                            Box::new(value),
                        ),
                        None => value,
                    };
                    let skip = self.emit(Instruction::JumpUnless { condition, to: 0 }, position);
                    self.statement_list(body)?;
                    ends.push(self.emit(Instruction::Jump(0), position));
                    let next = self.here();
                    self.patch(skip, next);
                }
                match otherwise {
                    Some(body) => self.statement_list(body)?,
                    None => {
                        self.emit(Instruction::CaseNotFound, position);
                    }
                }
                let end = self.here();
                for at in ends {
                    self.patch(at, end);
                }
                Ok(())
            }
            StatementKind::Loop { body } => {
                let start = self.here();
                self.push_loop(label, Some(start), None);
                self.statement_list(body)?;
                self.emit(Instruction::Jump(start), position);
                self.pop_loop(start);
                Ok(())
            }
            StatementKind::While { condition, body } => {
                let start = self.here();
                let condition = self.expression(condition, position)?;
                let exit = self.emit(Instruction::JumpUnless { condition, to: 0 }, position);
                self.push_loop(label, Some(start), None);
                if let Some(looping) = self.loops.last_mut() {
                    looping.exits.push(exit);
                }
                self.statement_list(body)?;
                self.emit(Instruction::Jump(start), position);
                self.pop_loop(start);
                Ok(())
            }
            StatementKind::ForRange {
                variable,
                reverse,
                low,
                high,
                body,
            } => {
                let low = self.expression(low, position)?;
                let high = self.expression(high, position)?;
                self.scopes.push(label.clone());
                let counter = self.slot(variable, SlotKind::PlsInteger, false)?;
                let limit = self.hidden_slot("FOR limit");
                self.declare(
                    variable,
                    Symbol::Scalar {
                        slot: counter,
                        kind: SlotKind::PlsInteger,
                        constant: true,
                    },
                    position,
                )?;
                let start = self.emit(
                    Instruction::ForStart {
                        counter,
                        limit,
                        low,
                        high,
                        reverse: *reverse,
                        exit: 0,
                    },
                    position,
                );
                let body_start = self.here();
                self.push_loop(label, None, None);
                if let Some(looping) = self.loops.last_mut() {
                    looping.exits.push(start);
                }
                let result = self.statement_list(body);
                let step = self.emit(
                    Instruction::ForStep {
                        counter,
                        limit,
                        reverse: *reverse,
                        body: body_start,
                    },
                    position,
                );
                self.pop_loop(step);
                self.scopes.pop();
                result
            }
            StatementKind::ForCursor {
                record,
                source,
                body,
            } => self.cursor_loop(record, source, body, label, position),
            StatementKind::Exit { label, condition } => {
                self.exit_or_continue(true, label.as_deref(), condition.as_ref(), position)
            }
            StatementKind::Continue { label, condition } => {
                self.exit_or_continue(false, label.as_deref(), condition.as_ref(), position)
            }
            StatementKind::Null => Ok(()),
            StatementKind::Return(value) => {
                match (value, self.return_slot) {
                    (Some(_), None) => {
                        return Err(self.error(
                            position,
                            "PLS-00372: In a procedure, RETURN statement cannot contain an expression",
                        ))
                    }
                    (None, Some(_)) => {
                        return Err(self.error(
                            position,
                            "PLS-00503: RETURN <value> statement required for this return from function",
                        ))
                    }
                    (Some(value), Some(slot)) => {
                        let expr = self.expression(value, position)?;
                        self.emit(Instruction::Assign { slot, expr }, position);
                    }
                    (None, None) => {}
                }
                self.emit(Instruction::Return, position);
                Ok(())
            }
            StatementKind::Goto(label) => {
                let instruction = self.emit(Instruction::Jump(0), position);
                self.gotos.push(Goto {
                    label: label.clone(),
                    instruction,
                    handler_depth: self.handler_depth,
                    exception_depth: self.exception_depth,
                    lists: self.lists.clone(),
                    position,
                });
                Ok(())
            }
            StatementKind::Raise(None) => {
                if self.exception_depth == 0 {
                    return Err(self.error(
                        position,
                        "PLS-00367: a RAISE statement with no exception name must be inside an exception handler",
                    ));
                }
                self.emit(Instruction::Reraise, position);
                Ok(())
            }
            StatementKind::Raise(Some(name)) => {
                let exception = self.exception(name, position)?;
                self.emit(Instruction::Raise(exception), position);
                Ok(())
            }
            StatementKind::Call { name, arguments } => self.call(name, arguments, position),
            StatementKind::Sql(sql) => {
                let statement = self.static_sql(sql)?;
                self.emit(Instruction::Sql(statement), position);
                Ok(())
            }
            StatementKind::Open { cursor, arguments } => {
                let id = self.declared_cursor(cursor, position)?;
                self.open(id, arguments, position)
            }
            StatementKind::Fetch { cursor, into } => {
                let id = self.declared_cursor(cursor, position)?;
                let into = self.target_slots(into, "FETCH")?;
                self.emit(
                    Instruction::Fetch {
                        cursor: id,
                        into,
                        exit: None,
                    },
                    position,
                );
                Ok(())
            }
            StatementKind::Close { cursor } => {
                let id = self.declared_cursor(cursor, position)?;
                self.emit(Instruction::Close(id), position);
                Ok(())
            }
            StatementKind::Block(block) => self.block(block),
        }
    }

    /// What an assignment's value names when it is a bare name (a whole record or collection
    /// assigned from another); None for any other expression.
    fn resolve_value(&mut self, value: &SqlExpr) -> Result<Option<Resolved>> {
        match value {
            SqlExpr::Column {
                schema,
                table,
                name,
            } => self.resolve(&super::name_parts(schema, table, name)),
            _ => Ok(None),
        }
    }

    fn assignment(&mut self, target: &Target, value: &SqlExpr, position: usize) -> Result<()> {
        let (parts, target_position) = match target {
            Target::Bind(name, _) => {
                let slot = self.bind_slot(name);
                let expr = self.expression(value, position)?;
                self.emit(Instruction::Assign { slot, expr }, position);
                return Ok(());
            }
            Target::Name(parts, position) => (parts, *position),
            Target::Element {
                name,
                index,
                position: target_position,
            } => {
                let Some(Resolved::Collection { id, .. }) = self.resolve(name)? else {
                    return Err(self.error(
                        *target_position,
                        &format!(
                            "PLS-00308: this construct is not allowed as the origin of an assignment: '{}' is not a collection",
                            name.join(".")
                        ),
                    ));
                };
                let key = self.expression(index, position)?;
                let value = self.expression(value, position)?;
                self.emit(
                    Instruction::SetElement {
                        collection: id,
                        key,
                        value,
                    },
                    position,
                );
                return Ok(());
            }
        };
        match self.resolve(parts)? {
            Some(Resolved::Scalar { constant: true, .. }) => Err(self.error(
                target_position,
                &format!(
                    "PLS-00363: expression '{}' cannot be used as an assignment target",
                    parts.join(".")
                ),
            )),
            Some(Resolved::Scalar { slot, .. }) => {
                let expr = self.expression(value, position)?;
                self.emit(Instruction::Assign { slot, expr }, position);
                Ok(())
            }
            Some(Resolved::Record { first, record }) => {
                // A record from a record of the same type.
                let source = self.resolve_value(value)?;
                match source {
                    Some(Resolved::Record {
                        first: from,
                        record: source,
                    }) if source.width() == record.width() => {
                        self.emit(
                            Instruction::Copy {
                                from,
                                to: first,
                                count: record.width(),
                            },
                            position,
                        );
                        Ok(())
                    }
                    _ => Err(self.error(position, "PLS-00382: expression is of wrong type")),
                }
            }
            Some(Resolved::Collection { id, collection }) => {
                // A collection from a collection of the same type.
                let source = self.resolve_value(value)?;
                match source {
                    Some(Resolved::Collection {
                        id: from,
                        collection: source,
                    }) if Arc::ptr_eq(&source, &collection) => {
                        self.emit(Instruction::CopyCollection { from, to: id }, position);
                        Ok(())
                    }
                    _ => Err(self.error(position, "PLS-00382: expression is of wrong type")),
                }
            }
            None => Err(self.undeclared(target_position, parts)),
        }
    }

    /// A cursor's result columns, as its query was described when compiled.
    fn cursor_columns(&self, cursor: usize) -> Vec<crate::plsql::host::ColumnType> {
        let statement = self.cursors[cursor].statement;
        self.described[statement].clone().unwrap_or_default()
    }

    fn declared_cursor(&self, name: &str, position: usize) -> Result<usize> {
        self.scopes
            .cursor(name)
            .ok_or_else(|| self.undeclared(position, &[name.to_string()]))
    }

    /// A cursor's arguments into its parameters' slots, then OPEN.
    fn open(&mut self, cursor: usize, arguments: &[ast::Argument], position: usize) -> Result<()> {
        let parameters = self.cursors[cursor].parameters.clone();
        let defaults = self.cursors[cursor].defaults.clone();
        if arguments.len() > parameters.len() {
            return Err(self.wrong_arguments(&self.cursors[cursor].name.clone(), position));
        }
        for (index, slot) in parameters.iter().enumerate() {
            let expr = match arguments.get(index) {
                Some(argument) => self.expression(&argument.value, position)?,
                None => match &defaults[index] {
                    Some(default) => default.clone(),
                    None => {
                        return Err(
                            self.wrong_arguments(&self.cursors[cursor].name.clone(), position)
                        )
                    }
                },
            };
            self.emit(Instruction::Assign { slot: *slot, expr }, position);
        }
        self.emit(Instruction::Open(cursor), position);
        Ok(())
    }

    fn wrong_arguments(&self, name: &str, position: usize) -> crate::error::Error {
        self.error(
            position,
            &format!("PLS-00306: wrong number or types of arguments in call to '{name}'"),
        )
    }

    /// `FOR r IN cursor LOOP` / `FOR r IN (query) LOOP`: open, fetch into the record until
    /// no row is left (which closes the cursor), the record visible only in the loop.
    fn cursor_loop(
        &mut self,
        record_name: &str,
        source: &CursorSource,
        body: &[ast::Statement],
        label: Option<String>,
        position: usize,
    ) -> Result<()> {
        let (cursor, arguments) = match source {
            CursorSource::Named { cursor, arguments } => (
                self.declared_cursor(cursor, position)?,
                arguments.as_slice(),
            ),
            CursorSource::Query(query) => (self.cursor("SQL", &[], query, position)?, &[][..]),
        };
        let record = row_type(self.cursor_columns(cursor));
        self.open(cursor, arguments, position)?;
        self.scopes.push(label.clone());
        let first = self.record_slots(record_name, &record, position)?;
        let width = record.width();
        self.declare(record_name, Symbol::Record { first, record }, position)?;
        let top = self.emit(
            Instruction::Fetch {
                cursor,
                into: (first..first + width).collect(),
                exit: None,
            },
            position,
        );
        self.push_loop(label, Some(top), Some(cursor));
        if let Some(looping) = self.loops.last_mut() {
            looping.exits.push(top);
        }
        let result = self.statement_list(body);
        self.emit(Instruction::Jump(top), position);
        self.pop_loop(top);
        self.scopes.pop();
        result
    }

    fn push_loop(
        &mut self,
        label: Option<String>,
        continue_at: Option<usize>,
        cursor: Option<usize>,
    ) {
        self.loops.push(Loop {
            label,
            continue_at,
            exits: Vec::new(),
            continues: Vec::new(),
            handler_depth: self.handler_depth,
            exception_depth: self.exception_depth,
            cursor,
        });
    }

    /// Ends a loop: its exits jump to here, its CONTINUEs to `continue_at`.
    fn pop_loop(&mut self, continue_at: usize) {
        let Some(looping) = self.loops.pop() else {
            return;
        };
        let end = self.here();
        for at in looping.exits {
            self.patch(at, end);
        }
        for at in looping.continues {
            self.patch(at, looping.continue_at.unwrap_or(continue_at));
        }
    }

    fn exit_or_continue(
        &mut self,
        exit: bool,
        label: Option<&str>,
        condition: Option<&SqlExpr>,
        position: usize,
    ) -> Result<()> {
        let word = if exit { "EXIT" } else { "CONTINUE" };
        let target = match label {
            None => self.loops.len().checked_sub(1),
            Some(label) => self
                .loops
                .iter()
                .rposition(|looping| looping.label.as_deref() == Some(label)),
        };
        let Some(target) = target else {
            return Err(match label {
                None => self.error(
                    position,
                    &format!("PLS-00376: illegal {word} statement; it must appear inside a loop"),
                ),
                Some(label) => self.error(
                    position,
                    &format!("PLS-00373: {word} label '{label}' must label a LOOP statement"),
                ),
            });
        };
        let skip = match condition {
            Some(condition) => {
                let condition = self.expression(condition, position)?;
                Some(self.emit(Instruction::JumpUnless { condition, to: 0 }, position))
            }
            None => None,
        };
        // The cursors of the cursor FOR loops left behind: the inner ones, and the target's
        // own when leaving it.
        let close: Vec<usize> = self.loops[target..]
            .iter()
            .enumerate()
            .filter(|(index, _)| exit || *index > 0)
            .filter_map(|(_, looping)| looping.cursor)
            .collect();
        let looping = &self.loops[target];
        let instruction = leave(
            self.handler_depth - looping.handler_depth,
            self.exception_depth - looping.exception_depth,
            close,
            0,
        );
        let at = self.emit(instruction, position);
        if exit {
            self.loops[target].exits.push(at);
        } else {
            self.loops[target].continues.push(at);
        }
        if let Some(skip) = skip {
            let next = self.here();
            self.patch(skip, next);
        }
        Ok(())
    }

    /// A procedure call: one PL/SQL knows, or one the session runs.
    fn call(
        &mut self,
        name: &[String],
        arguments: &[ast::Argument],
        position: usize,
    ) -> Result<()> {
        if let Some((method, collection)) = name.split_last() {
            if let Some(Resolved::Collection { id, .. }) = self.scopes.resolve(collection) {
                if method != "DELETE" || arguments.len() > 2 {
                    return Err(self.wrong_arguments(method, position));
                }
                let keys = arguments
                    .iter()
                    .map(|argument| self.expression(&argument.value, position))
                    .collect::<Result<Vec<_>>>()?;
                self.emit(
                    Instruction::DeleteElements {
                        collection: id,
                        keys,
                    },
                    position,
                );
                return Ok(());
            }
        }
        let joined = name.join(".");
        let bare = joined
            .strip_prefix("SYS.")
            .or_else(|| joined.strip_prefix("DBMS_STANDARD."))
            .unwrap_or(&joined);
        let values = |compiler: &mut Self| -> Result<Vec<Expr>> {
            arguments
                .iter()
                .map(|argument| compiler.expression(&argument.value, position))
                .collect()
        };
        let count = |compiler: &Self, min: usize, max: usize| -> Result<()> {
            if arguments.len() < min || arguments.len() > max {
                return Err(compiler.wrong_arguments(bare, position));
            }
            Ok(())
        };
        let instruction = match bare {
            "RAISE_APPLICATION_ERROR" => {
                count(self, 2, 3)?;
                let mut values = values(self)?.into_iter();
                let (Some(code), Some(message)) = (values.next(), values.next()) else {
                    return Err(self.wrong_arguments(bare, position));
                };
                Instruction::RaiseApplicationError { code, message }
            }
            "DBMS_OUTPUT.PUT_LINE" | "DBMS_OUTPUT.PUT" => {
                count(self, 1, 1)?;
                let call = if bare.ends_with("PUT") {
                    OutputCall::Put
                } else {
                    OutputCall::PutLine
                };
                Instruction::Output {
                    call,
                    arguments: values(self)?,
                    targets: Vec::new(),
                }
            }
            "DBMS_OUTPUT.NEW_LINE" | "DBMS_OUTPUT.DISABLE" => {
                count(self, 0, 0)?;
                Instruction::Output {
                    call: if bare.ends_with("NEW_LINE") {
                        OutputCall::NewLine
                    } else {
                        OutputCall::Disable
                    },
                    arguments: Vec::new(),
                    targets: Vec::new(),
                }
            }
            "DBMS_OUTPUT.ENABLE" => {
                count(self, 0, 1)?;
                Instruction::Output {
                    call: OutputCall::Enable,
                    arguments: values(self)?,
                    targets: Vec::new(),
                }
            }
            "DBMS_OUTPUT.GET_LINE" => {
                count(self, 2, 2)?;
                let targets: Vec<Target> = arguments
                    .iter()
                    .map(|argument| match &argument.value {
                        crate::syntax::ast::Expr::Column { table, name, .. } => Ok(Target::Name(
                            table.iter().cloned().chain([name.clone()]).collect(),
                            position,
                        )),
                        crate::syntax::ast::Expr::Bind { name, .. } => {
                            Ok(Target::Bind(name.clone(), position))
                        }
                        _ => Err(self.error(
                            position,
                            "PLS-00363: expression cannot be used as an assignment target",
                        )),
                    })
                    .collect::<Result<_>>()?;
                let targets = self.target_slots(&targets, "GET_LINE")?;
                Instruction::Output {
                    call: OutputCall::GetLine,
                    arguments: Vec::new(),
                    targets,
                }
            }
            "DBMS_LOCK.SLEEP" | "DBMS_SESSION.SLEEP" => {
                count(self, 1, 1)?;
                let mut values = values(self)?;
                Instruction::Sleep(values.remove(0))
            }
            _ => {
                let candidates = self.stored_routines(name, position)?;
                if !candidates.is_empty() {
                    let instruction = self.routine_call(&candidates, arguments, position)?;
                    self.emit(instruction, position);
                    return Ok(());
                }
                self.names
                    .resolve_procedure(&joined)
                    .map_err(|error| self.relocate(error, position))?;
                let mut positional = Vec::new();
                let mut named = Vec::new();
                for argument in arguments {
                    let value = self.expression(&argument.value, position)?;
                    match &argument.name {
                        Some(name) => named.push((name.clone(), value)),
                        None => positional.push(value),
                    }
                }
                Instruction::HostCall {
                    name: joined.clone(),
                    arguments: positional,
                    named,
                }
            }
        };
        self.emit(instruction, position);
        Ok(())
    }

    /// A compilation error the session reported at line 1, column 7 (its own idea of where a
    /// call is), moved to the call's place in the unit.
    pub(super) fn relocate(
        &self,
        error: crate::error::Error,
        position: usize,
    ) -> crate::error::Error {
        if error.code() != 6550 {
            return error;
        }
        let message = error.message();
        let detail = message
            .split_once('\n')
            .map_or(message, |(_, detail)| detail);
        self.error(position, detail)
    }
}

/// A record type of result columns, each field of its column's type (any where unknown).
fn row_type(columns: Vec<crate::plsql::host::ColumnType>) -> Arc<RecordType> {
    Arc::new(RecordType {
        fields: columns
            .into_iter()
            .map(|(name, data_type)| {
                (
                    name,
                    Member::Scalar {
                        kind: data_type.map_or(SlotKind::Any, SlotKind::Sql),
                        not_null: false,
                    },
                )
            })
            .collect(),
    })
}
