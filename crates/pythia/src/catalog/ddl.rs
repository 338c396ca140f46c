//! DDL: each statement's changes to the dictionary, made on its own copy in one transaction
//! (`Catalog::statement`, `DdlStatement`) through a `DdlContext`, and the catalog's DDL of
//! tables, indexes, comments, statistics and views.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::access::btree::{BTree, PurgePredicate};
use crate::access::heap::RowId;
use crate::access::segment::{self, SegmentKind};
use crate::buffer::BufferPool;
use crate::error::{Error, Result};
use crate::io::block::BlockId;
use crate::syntax::ast;
use crate::transaction::RowChange;
use crate::types::{encode_row, Value};

use super::table_text::table_ddl;
use super::{
    clone_table, now_seconds, rows, statistics, users, Catalog, CheckConstraint, ColumnDef,
    Comments, Definition, Dictionary, ForeignKey, IndexDef, Storage, TableDef, ViewDef,
    DICTIONARY_OBJECT, INDEX_COLUMNS_MAX, OBJECT_NAME_BYTES_MAX, TABLE_COLUMNS_MAX,
};

/// What ALTER TABLE makes of a table: its new name and shape, and what happens to its rows.
/// `Catalog::alter_table` applies it in the DDL's transaction.
pub struct Alteration<'a> {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub checks: Vec<CheckConstraint>,
    pub foreign_keys: Vec<ForeignKey>,
    /// Checks each existing row (in the old shape) first; an error fails the DDL.
    pub validate: Option<Box<RowCheck<'a>>>,
    /// Makes each existing row's new values from its old ones; None: rows stay as they are.
    pub rewrite: Option<Box<RowRewrite<'a>>>,
    /// Checks each existing row's new values (rewritten, or read with NULL in added
    /// columns); an error fails the DDL.
    pub validate_new: Option<Box<RowCheck<'a>>>,
    /// A column removed (DROP COLUMN): the indexes on it go, the others are renumbered.
    pub dropped_column: Option<usize>,
    /// `STORAGE (BUFFER_POOL ...)`: the pool of the table's blocks read from now on.
    pub buffer_pool: BufferPool,
    /// `CACHE` / `NOCACHE`.
    pub cache: bool,
}

pub type RowCheck<'a> = dyn Fn(&[Value]) -> Result<()> + 'a;
pub type RowRewrite<'a> = dyn Fn(Vec<Value>) -> Result<Vec<Value>> + 'a;

impl Alteration<'_> {
    /// The same table, unchanged: the caller changes what it needs.
    pub fn of<'a>(table: &TableDef) -> Alteration<'a> {
        Alteration {
            name: table.name.clone(),
            columns: table.columns.clone(),
            checks: table.checks.clone(),
            foreign_keys: table.foreign_keys.clone(),
            validate: None,
            rewrite: None,
            validate_new: None,
            dropped_column: None,
            buffer_pool: table.buffer_pool,
            cache: table.cache,
        }
    }
}

impl Catalog {
    /// Runs one DDL statement: serialized with other DDL (the 'library cache lock' below),
    /// `work` makes every change of the statement through a [`DdlStatement`], each seeing
    /// the ones before it, in one transaction committed durably before the new dictionary
    /// is published. An error rolls all of it back; a crash leaves all of it or none of it
    /// (the segments it made and dropped included: see the module documentation).
    pub fn statement<T>(&self, work: impl FnOnce(&mut DdlStatement) -> Result<T>) -> Result<T> {
        let _ddl = self.ddl.lock();
        let transactions = &self.storage.transactions;
        let mut statement = DdlStatement {
            dictionary: (*self.current()).clone(),
            context: DdlContext {
                catalog: self,
                transaction: Some(transactions.begin()?),
            },
        };
        let before = self.current();
        let result = work(&mut statement).and_then(|value| {
            let changed = super::changed_objects(&before, &statement.dictionary);
            statement.invalidate_dependents(&changed)?;
            Ok(value)
        });
        match result {
            Ok(value) => {
                let DdlStatement {
                    dictionary,
                    mut context,
                } = statement;
                let transaction = context.transaction.take().expect("transaction");
                transactions.commit(transaction, true)?;
                let mut current = self.current.write();
                let before = std::mem::replace(&mut *current, Arc::new(dictionary));
                if let Some(hook) = self.change_hook.get() {
                    hook(&before, &current);
                }
                Ok(value)
            }
            Err(error) => {
                if let Some(transaction) = statement.context.transaction.take() {
                    transactions.rollback(transaction)?;
                }
                Err(error)
            }
        }
    }

    /// A statement of one change, made on the dictionary and in the transaction directly.
    pub(super) fn change(
        &self,
        work: impl FnOnce(&mut Dictionary, &mut DdlContext) -> Result<()>,
    ) -> Result<()> {
        self.statement(|statement| work(&mut statement.dictionary, &mut statement.context))
    }

    /// CREATE INDEX: [`DdlStatement::create_index`] as a statement of its own.
    pub fn create_index(
        &self,
        name: &str,
        table_name: &str,
        columns: &[(String, bool)],
        unique: bool,
        constraint: Option<(&str, bool)>,
        buffer_pool: BufferPool,
    ) -> Result<()> {
        self.statement(|statement| {
            statement.create_index(name, table_name, columns, unique, constraint, buffer_pool)
        })
    }

    /// ALTER TABLE (and RENAME): [`DdlStatement::alter_table`] as a statement of its own.
    pub fn alter_table<'a>(
        &self,
        name: &str,
        work: impl FnOnce(&TableDef) -> Result<Alteration<'a>>,
    ) -> Result<()> {
        self.statement(|statement| statement.alter_table(name, work))
    }

    /// COMMENT ON TABLE (`column` None) or COLUMN; an empty text removes the comment.
    pub fn comment(&self, name: &str, column: Option<&str>, text: &str) -> Result<()> {
        self.change(|dictionary, context| {
            let old = dictionary.table(name)?.clone();
            let mut table = clone_table(&old);
            let text = (!text.is_empty()).then(|| text.to_string());
            match column {
                None => table.comments.table = text,
                Some(column) => {
                    if table.column(column).is_none() {
                        return Err(Error::invalid_identifier(column));
                    }
                    match text {
                        Some(text) => table.comments.columns.insert(column.to_string(), text),
                        None => table.comments.columns.remove(column),
                    };
                }
            }
            if !(table.comments.is_empty() && old.comments.is_empty()) {
                table.comments.write(context, table.object_id)?;
            }
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
            Ok(())
        })
    }

    /// Publishes new optimizer statistics of table `name` (ANALYZE, DBMS_STATS): `work` sees
    /// the table's current definition and returns its statistics (None: delete them). The
    /// STATS rows of DICT$ are rewritten in the DDL's transaction and a new dictionary
    /// version is swapped in, so plans made against the old one are made again. ORA-00942
    /// when the table is gone or is no longer object `object_id` (dropped and made again
    /// while its statistics were gathered). Statistics of columns and indexes the table no
    /// longer has are left out.
    pub fn set_statistics(
        &self,
        name: &str,
        object_id: u32,
        work: impl FnOnce(&TableDef) -> Result<Option<statistics::TableStatistics>>,
    ) -> Result<()> {
        self.change(|dictionary, context| {
            let old = dictionary.table(name)?.clone();
            if old.object_id != object_id {
                return Err(Error::table_not_found());
            }
            let mut table = clone_table(&old);
            table.statistics = work(&old)?.map(|mut gathered| {
                gathered
                    .columns
                    .retain(|column, _| old.column(column).is_some());
                gathered
                    .indexes
                    .retain(|index, _| old.indexes.iter().any(|other| other.name == *index));
                Arc::new(gathered)
            });
            if table.statistics.is_none() && old.statistics.is_none() {
                return Ok(());
            }
            table.write_statistics(context)?;
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
            Ok(())
        })
    }

    pub fn drop_index(&self, name: &str) -> Result<()> {
        self.drop_index_of(name, false)
    }

    /// ALTER TABLE ... DROP CONSTRAINT of a primary or unique key: its index goes with it.
    pub fn drop_constraint_index(&self, name: &str) -> Result<()> {
        self.drop_index_of(name, true)
    }

    fn drop_index_of(&self, name: &str, constraint: bool) -> Result<()> {
        self.statement(|statement| statement.drop_index_of(name, constraint))
    }

    /// ALTER INDEX ... STORAGE: [`DdlStatement::alter_index`] as a statement of its own.
    pub fn alter_index(&self, name: &str, buffer_pool: BufferPool) -> Result<()> {
        self.statement(|statement| statement.alter_index(name, buffer_pool))
    }

    /// Creates (or, with `or_replace`, replaces) a view. `ddl` is the CREATE VIEW statement,
    /// which DICT$ keeps and the next open parses again; the caller has checked that its
    /// query plans.
    pub fn create_view(
        &self,
        name: &str,
        or_replace: bool,
        columns: &[String],
        query: &ast::Query,
        ddl: &str,
    ) -> Result<()> {
        check_name(name)?;
        self.change(|dictionary, context| {
            let replaced = match dictionary.views.get(name) {
                Some(view) if or_replace => Some(view.clone()),
                _ if dictionary.name_in_use(name) => return Err(Error::name_in_use()),
                _ => None,
            };
            let object_id = match &replaced {
                Some(view) => {
                    context.delete(view.dictionary_row)?;
                    view.object_id
                }
                None => self.next_object_id(),
            };
            let created = now_seconds();
            let row = vec![
                Value::text("VIEW"),
                Value::integer(object_id as i64),
                Value::text(name),
                Value::Null,
                Value::text(ddl),
                Value::integer(created),
            ];
            let dictionary_row = context.insert(&row)?;
            let view = ViewDef {
                object_id,
                name: name.to_string(),
                columns: columns.to_vec(),
                query: Arc::new(query.clone()),
                ddl: ddl.to_string(),
                created,
                dictionary_row,
            };
            dictionary.views.insert(name.to_string(), Arc::new(view));
            Ok(())
        })
    }

    pub fn drop_view(&self, name: &str) -> Result<()> {
        self.change(|dictionary, context| {
            let view = dictionary
                .views
                .remove(name)
                .ok_or_else(Error::table_not_found)?;
            users::drop_table_privileges(dictionary, context, view.object_id)?;
            context.delete(view.dictionary_row)
        })
    }
}

/// One DDL statement in the making ([`Catalog::statement`]): its own copy of the dictionary,
/// which each change updates, and its transaction. A statement of several changes (CREATE
/// TABLE and its keys' indexes, ALTER TABLE ... ADD PRIMARY KEY, DROP TABLE of a list) makes
/// them all here, so that they commit together or not at all.
pub struct DdlStatement<'a> {
    pub(super) dictionary: Dictionary,
    pub(super) context: DdlContext<'a>,
}

impl DdlStatement<'_> {
    /// The dictionary as the statement has changed it so far.
    pub fn dictionary(&self) -> &Dictionary {
        &self.dictionary
    }

    /// Creates a table whose blocks go to `buffer_pool`, scanned at the midpoint when
    /// `cache`; `rows` (CREATE TABLE AS SELECT) are inserted in the same transaction. DICT$
    /// keeps the CREATE TABLE text made from the definition.
    pub fn create_table(
        &mut self,
        name: &str,
        definition: Definition,
        buffer_pool: BufferPool,
        cache: bool,
        rows: Vec<Vec<Value>>,
    ) -> Result<()> {
        let catalog = self.context.catalog;
        check_name(name)?;
        let ddl = table_ddl(name, &definition)?;
        let Definition {
            columns,
            checks,
            foreign_keys,
        } = definition;
        let ddl = ddl.as_str();
        if columns.is_empty() || columns.len() > TABLE_COLUMNS_MAX {
            return Err(Error::new(
                1792,
                format!("maximum number of columns in a table or view is {TABLE_COLUMNS_MAX}"),
            ));
        }
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        if dictionary.name_in_use(name) {
            return Err(Error::name_in_use());
        }
        let object_id = catalog.next_object_id();
        let segment = context.create_segment(object_id, SegmentKind::Heap, buffer_pool)?;
        let mut table = TableDef {
            object_id,
            name: name.to_string(),
            columns,
            segment,
            insert_points: Arc::default(),
            indexes: Vec::new(),
            checks,
            foreign_keys,
            comments: Comments::default(),
            statistics: None,
            buffer_pool,
            cache,
            created: now_seconds(),
            ddl: ddl.to_string(),
            dictionary_row: RowId { block: 0, slot: 0 },
            statistics_rows: Vec::new(),
        };
        table.dictionary_row = context.insert(&table.dictionary_values())?;
        for row in rows {
            let row = rows::check_row(&table, row)?;
            rows::insert_row(&catalog.storage, context.transaction(), &table, &row)?;
        }
        dictionary.tables.insert(name.to_string(), Arc::new(table));
        Ok(())
    }

    /// Creates an index on `columns`, each (column name, kept in descending order), and
    /// fills it from the table's rows (committed ones, and the statement's own: CREATE TABLE
    /// AS SELECT). `constraint` names the PRIMARY KEY or UNIQUE constraint it enforces; the
    /// index's blocks go to `buffer_pool`.
    pub fn create_index(
        &mut self,
        name: &str,
        table_name: &str,
        columns: &[(String, bool)],
        unique: bool,
        constraint: Option<(&str, bool)>,
        buffer_pool: BufferPool,
    ) -> Result<()> {
        let catalog = self.context.catalog;
        check_name(name)?;
        if columns.is_empty() || columns.len() > INDEX_COLUMNS_MAX {
            return Err(Error::new(
                1793,
                format!("maximum number of index columns is {INDEX_COLUMNS_MAX}"),
            ));
        }
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        if dictionary.name_in_use(name) {
            return Err(Error::name_in_use());
        }
        let table = dictionary.table(table_name)?.clone();
        let mut positions = Vec::with_capacity(columns.len());
        for (column, _) in columns {
            let position = table
                .column(column)
                .ok_or_else(|| Error::invalid_identifier(column))?;
            if positions.contains(&position) {
                return Err(Error::new(957, "duplicate column name"));
            }
            positions.push(position);
        }
        if let Some(existing) = table
            .indexes
            .iter()
            .find(|index| index.columns == positions)
        {
            if constraint.is_none() || existing.unique {
                return Err(Error::new(1408, "such column list already indexed"));
            }
        }
        let object_id = catalog.next_object_id();
        let tree = context.create_tree(object_id, unique, buffer_pool)?;
        let mut index = IndexDef {
            object_id,
            name: name.to_string(),
            table_id: table.object_id,
            table_name: table.name.clone(),
            descending: columns.iter().map(|(_, descending)| *descending).collect(),
            columns: positions,
            unique,
            constraint: constraint.map(|(name, _)| name.to_string()),
            primary: constraint.is_some_and(|(_, primary)| primary),
            buffer_pool,
            tree,
            dictionary_row: RowId { block: 0, slot: 0 },
        };
        index.dictionary_row = context.insert(&index.dictionary_values())?;
        let index = Arc::new(index);
        rows::build_index(&catalog.storage, context.transaction(), &table, &index)?;
        dictionary.indexes.insert(name.to_string(), index.clone());
        let mut changed = clone_table(&table);
        changed.indexes.push(index.clone());
        // Oracle computes an index's statistics when it creates it. Here they hang off
        // the table's, so only an analyzed table gets them (its figures are kept).
        if let Some(gathered) = &table.statistics {
            let mut with_index = (**gathered).clone();
            with_index.indexes.insert(
                index.name.clone(),
                statistics::IndexStatistics::measure(
                    &catalog.storage.cache,
                    &index,
                    now_seconds(),
                )?,
            );
            changed.statistics = Some(Arc::new(with_index));
            changed.write_statistics(context)?;
        }
        dictionary
            .tables
            .insert(changed.name.clone(), Arc::new(changed));
        Ok(())
    }

    /// ALTER TABLE (and RENAME): `work` sees the table's current definition and says what
    /// it becomes. In the DDL's transaction: existing rows are validated and rewritten (each
    /// rewrite logged and undone on failure like any change), indexes on a dropped column
    /// are dropped (ORA-12991 for a multi-column key) and the others renumbered, and the
    /// table's DICT$ row gets its new name and CREATE TABLE text.
    pub fn alter_table<'a>(
        &mut self,
        name: &str,
        work: impl FnOnce(&TableDef) -> Result<Alteration<'a>>,
    ) -> Result<()> {
        let catalog = self.context.catalog;
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let old = dictionary.table(name)?.clone();
        let alteration = work(&old)?;
        check_name(&alteration.name)?;
        if alteration.name != old.name && dictionary.name_in_use(&alteration.name) {
            return Err(Error::name_in_use());
        }
        if alteration.columns.is_empty() {
            return Err(Error::new(12983, "cannot drop all columns in a table"));
        }
        if alteration.columns.len() > TABLE_COLUMNS_MAX {
            return Err(Error::new(
                1792,
                format!("maximum number of columns in a table or view is {TABLE_COLUMNS_MAX}"),
            ));
        }
        let definition = Definition {
            columns: alteration.columns,
            checks: alteration.checks,
            foreign_keys: alteration.foreign_keys,
        };
        let ddl = table_ddl(&alteration.name, &definition)?;
        let mut table = clone_table(&old);
        table.name = alteration.name.clone();
        // Tables whose foreign keys reference this one follow its new names.
        let renamed_columns: Vec<(String, String)> = if alteration.dropped_column.is_none()
            && definition.columns.len() == old.columns.len()
        {
            old.columns
                .iter()
                .zip(&definition.columns)
                .filter(|(before, after)| before.name != after.name)
                .map(|(before, after)| (before.name.clone(), after.name.clone()))
                .collect()
        } else {
            Vec::new()
        };
        if table.name != old.name || !renamed_columns.is_empty() {
            let children: Vec<Arc<TableDef>> = dictionary
                .tables
                .values()
                .filter(|other| {
                    other.object_id != old.object_id
                        && other.foreign_keys.iter().any(|key| key.parent == old.name)
                })
                .cloned()
                .collect();
            for child in children {
                let mut changed = clone_table(&child);
                for key in &mut changed.foreign_keys {
                    if key.parent != old.name {
                        continue;
                    }
                    key.parent = table.name.clone();
                    for column in &mut key.parent_columns {
                        if let Some((_, to)) =
                            renamed_columns.iter().find(|(from, _)| from == column)
                        {
                            *column = to.clone();
                        }
                    }
                }
                changed.ddl = table_ddl(&changed.name, &changed.definition())?;
                context.update(changed.dictionary_row, &changed.dictionary_values())?;
                dictionary
                    .tables
                    .insert(changed.name.clone(), Arc::new(changed));
            }
        }
        if !table.comments.columns.is_empty() {
            let dropped = alteration
                .dropped_column
                .map(|position| old.columns[position].name.clone());
            let mut columns = BTreeMap::new();
            for (column, text) in std::mem::take(&mut table.comments.columns) {
                if Some(&column) == dropped.as_ref() {
                    continue;
                }
                let column = renamed_columns
                    .iter()
                    .find(|(from, _)| *from == column)
                    .map_or(column, |(_, to)| to.clone());
                columns.insert(column, text);
            }
            let changed = columns != old.comments.columns;
            table.comments.columns = columns;
            if changed {
                table.comments.write(context, table.object_id)?;
            }
        }
        table.columns = definition.columns;
        table.checks = definition.checks;
        table.foreign_keys = definition.foreign_keys;
        table.buffer_pool = alteration.buffer_pool;
        table.cache = alteration.cache;
        table.ddl = ddl.clone();
        table.indexes.clear();
        // Indexes: renumbered past a dropped column, renamed with the table.
        for index in &old.indexes {
            let mut columns = index.columns.clone();
            if let Some(dropped) = alteration.dropped_column {
                if columns.contains(&dropped) {
                    if index.constraint.is_some() && columns.len() > 1 {
                        return Err(Error::new(
                            12991,
                            "column is referenced in a multi-column constraint",
                        ));
                    }
                    context.delete(index.dictionary_row)?;
                    dictionary.indexes.remove(&index.name);
                    context.drop_segment(index.object_id, index.tree.header())?;
                    continue;
                }
                for column in &mut columns {
                    if *column > dropped {
                        *column -= 1;
                    }
                }
            }
            let changed = Arc::new(IndexDef {
                table_name: table.name.clone(),
                columns,
                ..(**index).clone()
            });
            if changed.columns != index.columns {
                context.update(changed.dictionary_row, &changed.dictionary_values())?;
            }
            dictionary
                .indexes
                .insert(changed.name.clone(), changed.clone());
            table.indexes.push(changed);
        }
        if alteration.validate.is_some()
            || alteration.rewrite.is_some()
            || alteration.validate_new.is_some()
        {
            let storage = &catalog.storage;
            let rows = rows::current_rows(storage, context.transaction(), &old)?;
            for (rowid, row) in rows {
                if let Some(validate) = &alteration.validate {
                    validate(&row)?;
                }
                let Some(rewrite) = &alteration.rewrite else {
                    if let Some(validate_new) = &alteration.validate_new {
                        let mut padded = row.clone();
                        padded.resize(table.columns.len(), Value::Null);
                        validate_new(&padded)?;
                    }
                    continue;
                };
                let new_row = rows::check_row(&table, rewrite(row.clone())?)?;
                if let Some(validate_new) = &alteration.validate_new {
                    validate_new(&new_row)?;
                }
                let mut data = Vec::new();
                encode_row(&new_row, &mut data);
                let transaction = context.transaction();
                storage.transactions.change_row(
                    transaction,
                    old.object_id,
                    old.buffer_pool,
                    rowid,
                    &mut |_| Ok(RowChange::Update(data.clone())),
                )?;
                // An index whose key changed with the row (a type change that pads
                // or converts a key column): move its entry.
                for index in &table.indexes {
                    let Some(before) = old
                        .indexes
                        .iter()
                        .find(|other| other.object_id == index.object_id)
                    else {
                        continue;
                    };
                    rows::move_index_entry(
                        storage,
                        transaction,
                        &table,
                        before,
                        index,
                        &row,
                        &new_row,
                        rowid,
                    )?;
                }
            }
        }
        if let Some(gathered) = &old.statistics {
            // A renamed column keeps its statistics, a dropped one (and the indexes that
            // went with it) loses them; a type change keeps them, as in Oracle.
            let mut kept = match alteration.dropped_column {
                Some(position) => gathered.with_column_renamed(&old.columns[position].name, None),
                None => (**gathered).clone(),
            };
            for (from, to) in &renamed_columns {
                kept = kept.with_column_renamed(from, Some(to));
            }
            kept.indexes
                .retain(|name, _| table.indexes.iter().any(|index| index.name == *name));
            if kept != **gathered {
                table.statistics = Some(Arc::new(kept));
                table.write_statistics(context)?;
            }
        }
        context.update(table.dictionary_row, &table.dictionary_values())?;
        dictionary.tables.remove(&old.name);
        dictionary
            .tables
            .insert(table.name.clone(), Arc::new(table));
        Ok(())
    }

    /// DROP TABLE: the table's DICT$ rows (its indexes', comments' and statistics' too) are
    /// deleted, and its segments are freed by the commit.
    pub fn drop_table(&mut self, name: &str) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let table = dictionary.table(name)?.clone();
        for index in &table.indexes {
            context.delete(index.dictionary_row)?;
            dictionary.indexes.remove(&index.name);
            context.drop_segment(index.object_id, index.tree.header())?;
        }
        for row in table.comments.rows.iter().chain(&table.statistics_rows) {
            context.delete(*row)?;
        }
        users::drop_table_privileges(dictionary, context, table.object_id)?;
        context.delete(table.dictionary_row)?;
        dictionary.tables.remove(name);
        context.drop_segment(table.object_id, table.segment)?;
        Ok(())
    }

    fn drop_index_of(&mut self, name: &str, constraint: bool) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let index = dictionary.index(name)?.clone();
        if index.constraint.is_some() && !constraint {
            return Err(Error::new(
                2429,
                "cannot drop index used for enforcement of unique/primary key",
            ));
        }
        context.delete(index.dictionary_row)?;
        dictionary.indexes.remove(name);
        if let Some(table) = dictionary.table_by_id(index.table_id) {
            let mut changed = clone_table(&table);
            changed
                .indexes
                .retain(|other| other.object_id != index.object_id);
            if let Some(gathered) = &table.statistics {
                if gathered.indexes.contains_key(&index.name) {
                    let mut kept = (**gathered).clone();
                    kept.indexes.remove(&index.name);
                    changed.statistics = Some(Arc::new(kept));
                    changed.write_statistics(context)?;
                }
            }
            dictionary
                .tables
                .insert(changed.name.clone(), Arc::new(changed));
        }
        context.drop_segment(index.object_id, index.tree.header())?;
        Ok(())
    }

    /// ALTER INDEX ... STORAGE (BUFFER_POOL ...): the index's blocks read from now on go to
    /// `buffer_pool`; those cached stay in their pool until aged out (seed 001). Its DICT$
    /// row is rewritten in the DDL's transaction, and its table gets a new definition too,
    /// so the cursors that depend on the table are invalidated as by any DDL.
    pub fn alter_index(&mut self, name: &str, buffer_pool: BufferPool) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let old = dictionary.index(name)?.clone();
        let index = Arc::new(IndexDef {
            buffer_pool,
            tree: old.tree.clone().with_pool(buffer_pool),
            ..(*old).clone()
        });
        context.update(index.dictionary_row, &index.dictionary_values())?;
        dictionary.indexes.insert(name.to_string(), index.clone());
        if let Some(table) = dictionary.table_by_id(index.table_id) {
            let mut changed = clone_table(&table);
            for entry in &mut changed.indexes {
                if entry.object_id == index.object_id {
                    *entry = index.clone();
                }
            }
            dictionary
                .tables
                .insert(changed.name.clone(), Arc::new(changed));
        }
        Ok(())
    }

    /// TRUNCATE: the table and each of its indexes get a new, empty segment, and the old
    /// ones are freed by the commit, so that a crash leaves the rows and their index
    /// entries, or none of either. (Oracle keeps the segment and bumps its data object
    /// number; a segment of our own does for that, and the space is the same: one extent.)
    /// The table's statistics stay, as in Oracle.
    pub fn truncate_table(&mut self, name: &str) -> Result<()> {
        let (dictionary, context) = (&mut self.dictionary, &mut self.context);
        let table = dictionary.table(name)?.clone();
        let mut changed = clone_table(&table);
        changed.segment =
            context.create_segment(table.object_id, SegmentKind::Heap, table.buffer_pool)?;
        changed.insert_points = Arc::default();
        context.drop_segment(table.object_id, table.segment)?;
        context.update(changed.dictionary_row, &changed.dictionary_values())?;
        changed.indexes.clear();
        for old in &table.indexes {
            let index = Arc::new(IndexDef {
                tree: context.create_tree(old.object_id, old.unique, old.buffer_pool)?,
                ..(**old).clone()
            });
            context.drop_segment(old.object_id, old.tree.header())?;
            context.update(index.dictionary_row, &index.dictionary_values())?;
            dictionary.indexes.insert(index.name.clone(), index.clone());
            changed.indexes.push(index);
        }
        dictionary
            .tables
            .insert(changed.name.clone(), Arc::new(changed));
        Ok(())
    }
}

/// What a DDL change works with: the catalog and the statement's transaction.
pub(super) struct DdlContext<'a> {
    catalog: &'a Catalog,
    transaction: Option<crate::transaction::Transaction>,
}

impl DdlContext<'_> {
    fn transaction(&mut self) -> &mut crate::transaction::Transaction {
        self.transaction.as_mut().expect("DDL transaction")
    }

    /// Creates a segment whose blocks go to `pool`, in the statement's transaction: its
    /// rollback frees it.
    fn create_segment(
        &mut self,
        object_id: u32,
        kind: SegmentKind,
        pool: BufferPool,
    ) -> Result<BlockId> {
        let storage = &self.catalog.storage;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        storage
            .transactions
            .create_segment(transaction, object_id, |mtr| {
                let header = segment::create(mtr, &storage.space, object_id, kind, pool)?;
                Ok((header, header))
            })
    }

    /// Creates an index segment whose blocks go to `pool`, in the statement's transaction.
    fn create_tree(&mut self, object_id: u32, unique: bool, pool: BufferPool) -> Result<BTree> {
        let storage = &self.catalog.storage;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        let tree = storage
            .transactions
            .create_segment(transaction, object_id, |mtr| {
                let tree = BTree::create(mtr, &storage.space, object_id, unique, pool)?;
                Ok((tree.header(), tree))
            })?;
        Ok(tree.with_purge(purge_predicate(storage)))
    }

    /// Frees the segment at `header` (of object `object_id`) when the statement commits.
    fn drop_segment(&mut self, object_id: u32, header: BlockId) -> Result<()> {
        let storage = &self.catalog.storage;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        storage
            .transactions
            .drop_segment_at_commit(transaction, object_id, header)
    }

    pub(super) fn insert(&mut self, row: &[Value]) -> Result<RowId> {
        let mut data = Vec::new();
        encode_row(row, &mut data);
        let catalog = self.catalog;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        catalog.storage.transactions.insert_row(
            transaction,
            catalog.dictionary_segment,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            &catalog.dictionary_points,
            &data,
        )
    }

    pub(super) fn update(&mut self, rowid: RowId, row: &[Value]) -> Result<()> {
        let mut data = Vec::new();
        encode_row(row, &mut data);
        let catalog = self.catalog;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        catalog.storage.transactions.change_row(
            transaction,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Update(data.clone())),
        )?;
        Ok(())
    }

    pub(super) fn delete(&mut self, rowid: RowId) -> Result<()> {
        let catalog = self.catalog;
        let transaction = self.transaction.as_mut().expect("DDL transaction");
        catalog.storage.transactions.change_row(
            transaction,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Delete),
        )?;
        Ok(())
    }
}

/// Lets an index insert that finds its leaf full first remove the delete-marked entries no
/// running statement can need any more (their deleting transaction committed before the
/// oldest snapshot), instead of splitting.
pub(super) fn purge_predicate(storage: &Storage) -> PurgePredicate {
    let transactions = storage.transactions.clone();
    Arc::new(move |xid| transactions.is_purgeable(xid))
}

pub(super) fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > OBJECT_NAME_BYTES_MAX {
        return Err(Error::new(
            972,
            format!("identifier is too long (at most {OBJECT_NAME_BYTES_MAX} bytes)"),
        ));
    }
    Ok(())
}
