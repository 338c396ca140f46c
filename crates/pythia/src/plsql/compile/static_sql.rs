//! Static SQL: a statement written in a unit becomes recursive SQL with a normalised text,
//! so that every session running the unit shares one cursor in the library cache.
//!
//! As Oracle does: a name that is a column of a table the statement reads (or an alias it
//! declares) is SQL's; any other name that is a PL/SQL variable in scope, and every host
//! bind, becomes a bind `:Bn`, the same variable the same bind, numbered from the last
//! variable to appear (`VALUES (:B3 , :B2 , :B1 )`). Then the text is normalised token by
//! token: unquoted words upper case, literals and quoted names as written, comments dropped,
//! and between two tokens one space where the text had any. `INTO targets` were blanked out
//! by the parser and leave no trace.
//!
//! ```text
//!   select count(*) into n from t where owner = p_owner   -- counts t's rows
//!   SELECT COUNT(*) FROM T WHERE OWNER = :B1
//! ```

use std::collections::BTreeSet;

use super::scope::Resolved;
use super::Compiler;
use crate::error::Result;
use crate::plsql::ast::{Sql, Target};
use crate::plsql::code::{SqlKind, StaticSql};
use crate::plsql::errors;
use crate::syntax::ast::{Node, SelectItem, Statement, TableReference};
use crate::syntax::lexer::{tokenize, TokenKind};

/// What a statement's text declares as SQL's own names: tables (to read their columns) and
/// the aliases and names that qualify columns.
#[derive(Default)]
struct SqlNames {
    tables: BTreeSet<String>,
    qualifiers: BTreeSet<String>,
    columns: BTreeSet<String>,
}

impl Compiler<'_> {
    /// Compiles a static SQL statement; returns its index in the unit's statements.
    pub(super) fn static_sql(&mut self, sql: &Sql) -> Result<usize> {
        self.static_sql_fetching(sql, false)
    }

    /// `static_sql`; with `rowid`, a query that also fetches ROWID after its own columns
    /// (a cursor declared FOR UPDATE, for WHERE CURRENT OF).
    pub(super) fn static_sql_fetching(&mut self, sql: &Sql, rowid: bool) -> Result<usize> {
        let kind = match &sql.statement {
            Statement::Select(_) if sql.into.is_empty() => SqlKind::Query,
            Statement::Select(_) => SqlKind::SelectInto,
            Statement::Insert { .. } | Statement::Update { .. } | Statement::Delete { .. } => {
                SqlKind::Dml
            }
            Statement::Commit { .. } | Statement::Rollback { .. } | Statement::Savepoint(_) => {
                SqlKind::Control
            }
            _ => {
                return Err(self.error(
                    sql.start,
                    "PLS-00103: Encountered a statement that static SQL in PL/SQL cannot hold",
                ))
            }
        };
        let names = self.sql_names(sql)?;
        // What the text becomes: (start, end, text written first, the bind then), in text
        // order: PL/SQL's names and host binds become binds; a cursor's rowid and CURRENT
        // OF are written in.
        let mut replacements: Vec<(usize, usize, &str, Option<usize>)> = Vec::new();
        for span in &sql.columns {
            if let Some(slot) = self.variable_in_sql(&span.parts, &names) {
                replacements.push((span.start, span.end, "", Some(slot)));
            }
        }
        if let (true, Some(from)) = (rowid, sql.from_at) {
            replacements.push((from, from, ", ROWID ", None));
        }
        if let Some((cursor, at)) = &sql.current_of {
            let id = self
                .scopes
                .cursor(cursor)
                .ok_or_else(|| self.undeclared(sql.start, std::slice::from_ref(cursor)))?;
            let Some(slot) = self.cursors[id].rowid else {
                return Err(self.error(
                    sql.start,
                    &format!("PLS-00404: cursor '{cursor}' must be declared with FOR UPDATE to use with CURRENT OF"),
                ));
            };
            replacements.push((*at, *at, "WHERE ROWID = ", Some(slot)));
        }
        let tokens = tokenize(&sql.text).map_err(|error| {
            errors::sql_statement_ignored(self.text, sql.start, sql.start, &error)
        })?;
        for token in &tokens {
            if let TokenKind::Bind(name) = &token.kind {
                let slot = self.bind_slot(name);
                replacements.push((token.start, token.end, "", Some(slot)));
            }
        }
        replacements.sort_unstable();
        let mut binds: Vec<usize> = Vec::new();
        for slot in replacements.iter().filter_map(|(_, _, _, slot)| *slot) {
            if !binds.contains(&slot) {
                binds.push(slot);
            }
        }
        let mut rewritten = String::with_capacity(sql.text.len() + 8 * replacements.len());
        let mut copied = 0;
        for (start, end, written, slot) in &replacements {
            rewritten.push_str(&sql.text[copied..*start]);
            rewritten.push_str(written);
            if let Some(slot) = slot {
                let number = binds.len() - binds.iter().position(|bind| bind == slot).unwrap_or(0);
                rewritten.push_str(&format!(":B{number} "));
            }
            copied = *end;
        }
        rewritten.push_str(&sql.text[copied..]);
        let text = normalise(&rewritten).map_err(|error| {
            errors::sql_statement_ignored(self.text, sql.start, sql.start, &error)
        })?;
        let into = self.target_slots(&sql.into, "SELECT")?;
        if let Statement::Insert { returning, .. }
        | Statement::Update { returning, .. }
        | Statement::Delete { returning, .. } = &sql.statement
        {
            if !returning.is_empty() && returning.len() != into.len() {
                let error = if returning.len() > into.len() {
                    crate::error::Error::new(913, "too many values")
                } else {
                    crate::error::Error::new(947, "not enough values")
                };
                return Err(errors::sql_statement_ignored(
                    self.text, sql.start, sql.start, &error,
                ));
            }
            if returning.is_empty() != into.is_empty() {
                let error = crate::error::Error::new(925, "missing INTO keyword");
                return Err(errors::sql_statement_ignored(
                    self.text, sql.start, sql.start, &error,
                ));
            }
        }
        if let Statement::Insert { table, .. }
        | Statement::Update { table, .. }
        | Statement::Delete { table, .. } = &sql.statement
        {
            // DML is not planned here, but the table it changes must be there now, as
            // Oracle's compiler checks it.
            if self.names.columns_of(&table.name).is_none() {
                let error = crate::error::Error::table_not_found();
                return Err(errors::sql_statement_ignored(
                    self.text, sql.start, sql.start, &error,
                ));
            }
        }
        let mut described = None;
        if kind == SqlKind::SelectInto || kind == SqlKind::Query {
            let columns = self.names.describe(&text, binds.len()).map_err(|error| {
                errors::sql_statement_ignored(self.text, sql.start, sql.start, &error)
            })?;
            if kind == SqlKind::SelectInto && columns.len() != into.len() {
                let error = if columns.len() > into.len() {
                    crate::error::Error::new(913, "too many values")
                } else {
                    crate::error::Error::new(947, "not enough values")
                };
                return Err(errors::sql_statement_ignored(
                    self.text, sql.start, sql.start, &error,
                ));
            }
            described = Some(columns);
        }
        self.statements.push(StaticSql {
            text,
            binds,
            kind,
            into,
        });
        self.described.push(described);
        Ok(self.statements.len() - 1)
    }

    /// The slots INTO (or FETCH INTO) fills: each target's, a record's every field.
    pub(super) fn target_slots(&mut self, targets: &[Target], what: &str) -> Result<Vec<usize>> {
        let mut slots = Vec::new();
        for target in targets {
            match target {
                Target::Bind(name, _) => slots.push(self.bind_slot(name)),
                Target::Name(parts, position) => match self.resolve(parts)? {
                    Some(Resolved::Scalar {
                        constant: true, ..
                    }) => {
                        return Err(self.error(
                            *position,
                            &format!(
                                "PLS-00403: expression '{}' cannot be used as an INTO-target of a {what} statement",
                                parts.join(".")
                            ),
                        ))
                    }
                    Some(Resolved::Scalar { slot, .. }) => slots.push(slot),
                    Some(Resolved::Record { first, record }) => {
                        slots.extend(first..first + record.width())
                    }
                    Some(Resolved::Collection { .. }) => {
                        return Err(self.error(*position, "PLS-00597: expression in the INTO list is of wrong type"))
                    }
                    None => return Err(self.undeclared(*position, parts)),
                },
                Target::Element { position, .. } => {
                    return Err(self.error(
                        *position,
                        "PLS-00999: implementation restriction (may be temporary) a collection element as an INTO target",
                    ))
                }
            }
        }
        Ok(slots)
    }

    /// The slot a column reference of static SQL stands for, when it is PL/SQL's.
    fn variable_in_sql(&mut self, parts: &[String], names: &SqlNames) -> Option<usize> {
        match parts {
            [name] if names.columns.contains(name) => None,
            [qualifier, ..] if parts.len() > 1 && names.qualifiers.contains(qualifier) => None,
            _ => match self.resolve(parts).ok()?? {
                Resolved::Scalar { slot, .. } => Some(slot),
                Resolved::Record { .. } | Resolved::Collection { .. } => None,
            },
        }
    }

    /// The tables, aliases and column names of SQL's own in a statement.
    fn sql_names(&mut self, sql: &Sql) -> Result<SqlNames> {
        let mut names = SqlNames::default();
        let statement = &sql.statement;
        match statement {
            // An INSERT's own columns are not in scope in its VALUES (nothing of the
            // table is): a name there is a variable, as Oracle resolves it.
            Statement::Insert { .. } => {}
            Statement::Update { table, alias, .. } | Statement::Delete { table, alias, .. } => {
                names.tables.insert(table.name.clone());
                names.qualifiers.insert(table.name.clone());
                names.qualifiers.extend(alias.clone());
            }
            _ => {}
        }
        Node::Statement(statement).walk(&mut |node| match node {
            Node::TableReference(TableReference::Table { name, alias }) => {
                names.tables.insert(name.name.clone());
                names.qualifiers.insert(name.name.clone());
                names.qualifiers.extend(name.schema.clone());
                names.qualifiers.extend(alias.clone());
            }
            Node::TableReference(
                TableReference::Subquery { alias, .. }
                | TableReference::TableFunction { alias, .. },
            ) => names.qualifiers.extend(alias.clone()),
            Node::Query(query) => {
                for common in &query.with {
                    names.qualifiers.insert(common.name.clone());
                    names.columns.extend(common.columns.iter().cloned());
                }
            }
            Node::Select(select) => {
                for item in &select.projection {
                    if let SelectItem::Expression {
                        alias: Some(alias), ..
                    } = item
                    {
                        names.columns.insert(alias.clone());
                    }
                }
            }
            _ => {}
        });
        for table in names.tables.clone() {
            if let Some(columns) = self.names.columns_of(&table) {
                names
                    .columns
                    .extend(columns.into_iter().map(|(name, _)| name));
            }
        }
        // Pseudo-columns are SQL's.
        names
            .columns
            .extend(["ROWID", "ROWNUM", "LEVEL", "NEXTVAL", "CURRVAL"].map(String::from));
        Ok(names)
    }
}

/// The normalised text of a statement: unquoted words upper case, everything else as
/// written, comments dropped, one space between tokens where the text had any.
pub(super) fn normalise(text: &str) -> Result<String> {
    let tokens = tokenize(text)?;
    let mut normalised = String::with_capacity(text.len());
    let mut previous_end = None;
    for token in &tokens {
        if let Some(end) = previous_end {
            if token.start > end {
                normalised.push(' ');
            }
        }
        match &token.kind {
            TokenKind::Word(word) => normalised.push_str(word),
            _ => normalised.push_str(token.text(text)),
        }
        previous_end = Some(token.end);
    }
    Ok(normalised)
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn normalising_uppercases_words_and_collapses_space() {
        assert_eq!(
            normalise("select  count(*)\n  from t -- why\n where c = 'a b' and \"q\" = :B1 ")
                .unwrap(),
            "SELECT COUNT(*) FROM T WHERE C = 'a b' AND \"q\" = :B1"
        );
        assert_eq!(
            normalise("insert into t values(:B2 ,:B1 )").unwrap(),
            "INSERT INTO T VALUES(:B2 ,:B1 )"
        );
    }
}
