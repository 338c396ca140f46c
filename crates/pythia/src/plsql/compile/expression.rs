//! PL/SQL expressions to SQL's compiled expressions over the frame: a variable or record
//! field is `Expr::Column(slot)`, a host bind `:x` its slot, a cursor attribute and SQLCODE /
//! SQLERRM the hidden slots the interpreter keeps current, and SQL's built-in functions are
//! SQL's own. What only SQL may hold is refused: a subquery (PLS-00405), an aggregate or
//! ROWNUM (PLS-00204).

use super::scope::Resolved;
use super::Compiler;
use crate::catalog::data_type_from_ast;
use crate::error::Result;
use crate::sql::eval::{CollectionMethod, Expr, Function};
use crate::sql::query::literal_value;
use crate::syntax::ast;

/// Functions SQL has and PL/SQL expressions may not use.
const SQL_ONLY: &[&str] = &[
    "COUNT", "SUM", "AVG", "MIN", "MAX", "STDDEV", "VARIANCE", "LISTAGG", "DECODE",
];

impl Compiler<'_> {
    /// Compiles `expr`, written in the statement at `position` (where its errors point).
    pub(super) fn expression(&mut self, expr: &ast::Expr, position: usize) -> Result<Expr> {
        use ast::Expr as E;
        let boxed = |compiler: &mut Self, expr: &ast::Expr| -> Result<Box<Expr>> {
            Ok(Box::new(compiler.expression(expr, position)?))
        };
        Ok(match expr {
            E::Literal(literal) => Expr::Constant(literal_value(literal)?),
            E::Column {
                schema,
                table,
                name,
            } => {
                let parts = super::name_parts(schema, table, name);
                self.name_expression(&parts, position)?
            }
            E::Bind { name, .. } => Expr::Column(self.bind_slot(name)),
            E::Unary { op, expr } => Expr::Unary(*op, boxed(self, expr)?),
            E::Binary { left, op, right } => {
                Expr::Binary(boxed(self, left)?, *op, boxed(self, right)?)
            }
            E::IsNull { expr, negated } => Expr::IsNull(boxed(self, expr)?, *negated),
            E::Between {
                expr,
                low,
                high,
                negated,
            } => Expr::Between {
                expr: boxed(self, expr)?,
                low: boxed(self, low)?,
                high: boxed(self, high)?,
                negated: *negated,
            },
            E::InList {
                expr,
                list,
                negated,
            } => {
                let expr = self.expression(expr, position)?;
                let list = list
                    .iter()
                    .map(|item| self.expression(item, position))
                    .collect::<Result<Vec<_>>>()?;
                Expr::in_list(expr, list, *negated)
            }
            E::Like {
                expr,
                pattern,
                escape,
                negated,
            } => Expr::Like {
                expr: boxed(self, expr)?,
                pattern: boxed(self, pattern)?,
                escape: match escape {
                    Some(escape) => Some(boxed(self, escape)?),
                    None => None,
                },
                negated: *negated,
            },
            E::Case {
                operand,
                when_then,
                else_result,
            } => Expr::Case {
                operand: match operand {
                    Some(operand) => Some(boxed(self, operand)?),
                    None => None,
                },
                when_then: when_then
                    .iter()
                    .map(|(when, then)| {
                        Ok((
                            self.expression(when, position)?,
                            self.expression(then, position)?,
                        ))
                    })
                    .collect::<Result<Vec<_>>>()?,
                else_result: match else_result {
                    Some(result) => Some(boxed(self, result)?),
                    None => None,
                },
            },
            E::Function { name, args, .. } => self.function(name, args, position)?,
            E::Cast { expr, data_type } => Expr::Cast(
                boxed(self, expr)?,
                data_type_from_ast(data_type)
                    .map_err(|error| self.error(position, &format!("PL/SQL: {error}")))?,
            ),
            E::ScalarSubquery(_) | E::InSubquery { .. } | E::Exists { .. } => {
                return Err(self.error(position, "PLS-00405: subquery not allowed in this context"))
            }
            E::Rownum => return Err(self.sql_only(position, "ROWNUM")),
            E::OuterJoin(_) | E::Tuple(_) | E::QuantifiedComparison { .. } => {
                return Err(self.error(
                    position,
                    "PLS-00103: Encountered a symbol that is not allowed in a PL/SQL expression",
                ))
            }
        })
    }

    /// A name in an expression: a variable, a record field, SQLCODE or SQLERRM.
    fn name_expression(&mut self, parts: &[String], position: usize) -> Result<Expr> {
        let resolved = self.resolve(parts)?;
        if resolved.is_none() {
            if let Some((id, method)) = self.method_after_name(parts, 0, position)? {
                return Ok(Expr::Collection(id, method, Vec::new()));
            }
        }
        match resolved {
            Some(Resolved::Scalar { slot, .. }) => Ok(Expr::Column(slot)),
            Some(Resolved::Collection { .. }) => Err(self.error(
                position,
                &format!(
                    "PLS-00382: expression is of wrong type (the collection '{}' where a value is expected)",
                    parts.join(".")
                ),
            )),
            Some(Resolved::Record { .. }) => Err(self.error(
                position,
                &format!(
                    "PLS-00382: expression is of wrong type (the record '{}' where a value is expected)",
                    parts.join(".")
                ),
            )),
            None => match parts {
                [name] if name == "SQLCODE" => Ok(Expr::Column(self.sqlcode_slot)),
                [name] if name == "SQLERRM" => Ok(Expr::Column(self.sqlerrm_slot)),
                [package, name] if package == "DBMS_UTILITY" => match name.as_str() {
                    "FORMAT_ERROR_STACK" => Ok(Expr::Column(self.error_stack_slot)),
                    "FORMAT_ERROR_BACKTRACE" => Ok(Expr::Column(self.backtrace_slot)),
                    _ => match Function::resolve(&parts.join("."), 0) {
                        Ok(function) => Ok(Expr::Function(function, Vec::new())),
                        Err(_) => Err(self.undeclared(position, parts)),
                    },
                },
                _ => {
                    let candidates = self.stored_routines(parts, position)?;
                    if candidates.is_empty() {
                        return Err(self.undeclared(position, parts));
                    }
                    self.function_call(&candidates, &[], position)
                }
            },
        }
    }

    fn function(&mut self, name: &str, args: &[ast::Expr], position: usize) -> Result<Expr> {
        if let Some((cursor, attribute)) = name.split_once('%') {
            return self.cursor_attribute(cursor, attribute, position);
        }
        match (name, args.len()) {
            ("SQLERRM", 1) => {
                let code = self.expression(&args[0], position)?;
                return Ok(Expr::Function(Function::Sqlerrm, vec![code]));
            }
            ("DBMS_UTILITY.FORMAT_ERROR_STACK", 0) => {
                return Ok(Expr::Column(self.error_stack_slot))
            }
            ("DBMS_UTILITY.FORMAT_ERROR_BACKTRACE", 0) => {
                return Ok(Expr::Column(self.backtrace_slot))
            }
            _ => {}
        }
        let parts: Vec<String> = name.split('.').map(str::to_string).collect();
        if let Some(read) = self.collection_method(&parts, args, position)? {
            return Ok(read);
        }
        if SQL_ONLY.contains(&name) {
            return Err(self.sql_only(position, name));
        }
        if Function::resolve(name, args.len()).is_err() {
            let parts: Vec<String> = name.split('.').map(str::to_string).collect();
            let candidates = self.stored_routines(&parts, position)?;
            if !candidates.is_empty() {
                return self.function_call(&candidates, args, position);
            }
        }
        let function = Function::resolve(name, args.len()).map_err(|error| match error.code() {
            938 | 939 => self.error(
                position,
                &format!("PLS-00306: wrong number or types of arguments in call to '{name}'"),
            ),
            _ => self.error(
                position,
                &format!("PLS-00201: identifier '{name}' must be declared"),
            ),
        })?;
        let args = args
            .iter()
            .map(|arg| self.expression(arg, position))
            .collect::<Result<Vec<_>>>()?;
        Ok(Expr::Function(function, args))
    }

    /// A read of a collection: `a(key)` (the whole name a collection), or a method after its
    /// name (`a.COUNT`, `a.FIRST`, `a.LAST`, `a.EXISTS(k)`, `a.NEXT(k)`, `a.PRIOR(k)`); None
    /// when the name is not a collection's.
    fn collection_method(
        &mut self,
        parts: &[String],
        args: &[ast::Expr],
        position: usize,
    ) -> Result<Option<Expr>> {
        let (id, method) = match self.resolve(parts)? {
            Some(Resolved::Collection { id, .. }) if args.len() == 1 => {
                (id, CollectionMethod::Element)
            }
            Some(Resolved::Collection { .. }) if !args.is_empty() => {
                return Err(self.error(
                    position,
                    &format!(
                        "PLS-00306: wrong number or types of arguments in call to '{}'",
                        parts.join(".")
                    ),
                ))
            }
            Some(_) => return Ok(None),
            None => match self.method_after_name(parts, args.len(), position)? {
                Some(found) => found,
                None => return Ok(None),
            },
        };
        let args = args
            .iter()
            .map(|arg| self.expression(arg, position))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Expr::Collection(id, method, args)))
    }

    /// A collection's method after its name (`a.COUNT`, `a.NEXT` with `arity` arguments):
    /// the collection and the method; None when what comes before the last part is not a
    /// collection.
    fn method_after_name(
        &self,
        parts: &[String],
        arity: usize,
        position: usize,
    ) -> Result<Option<(u32, CollectionMethod)>> {
        let Some((method_name, collection)) = parts.split_last() else {
            return Ok(None);
        };
        let Some(Resolved::Collection { id, .. }) = (!collection.is_empty())
            .then(|| self.scopes.resolve(collection))
            .flatten()
        else {
            return Ok(None);
        };
        let (method, expected) = match method_name.as_str() {
            "COUNT" => (CollectionMethod::Count, 0),
            "FIRST" => (CollectionMethod::First, 0),
            "LAST" => (CollectionMethod::Last, 0),
            "EXISTS" => (CollectionMethod::Exists, 1),
            "NEXT" => (CollectionMethod::Next, 1),
            "PRIOR" => (CollectionMethod::Prior, 1),
            _ => {
                return Err(self.error(
                    position,
                    &format!("PLS-00302: component '{method_name}' must be declared"),
                ))
            }
        };
        if arity != expected {
            return Err(self.error(
                position,
                &format!(
                    "PLS-00306: wrong number or types of arguments in call to '{method_name}'"
                ),
            ));
        }
        Ok(Some((id, method)))
    }

    fn cursor_attribute(&mut self, cursor: &str, attribute: &str, position: usize) -> Result<Expr> {
        let slots = if cursor == "SQL" {
            self.sql_cursor
        } else {
            match self.scopes.cursor(cursor) {
                Some(id) => self.cursors[id].attributes,
                None => {
                    return Err(self.undeclared(position, &[cursor.to_string()]));
                }
            }
        };
        let slot = match attribute {
            "FOUND" => slots.found,
            "NOTFOUND" => slots.notfound,
            "ISOPEN" => slots.isopen,
            "ROWCOUNT" => slots.rowcount,
            _ => {
                return Err(self.error(
                    position,
                    &format!(
                        "PLS-00999: implementation restriction (may be temporary) %{attribute}"
                    ),
                ))
            }
        };
        Ok(Expr::Column(slot))
    }

    fn sql_only(&self, position: usize, name: &str) -> crate::error::Error {
        self.error(
            position,
            &format!(
                "PLS-00204: function or pseudo-column '{name}' may be used inside a SQL statement only"
            ),
        )
    }
}
