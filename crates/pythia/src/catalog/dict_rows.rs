//! DICT$ rows: each definition's row made from it and read back from it, and the whole
//! dictionary read from DICT$ at open (`Catalog::open`). The rows' layout is in the module
//! documentation.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::access::btree::BTree;
use crate::access::heap::{self, RowId};
use crate::access::segment;
use crate::buffer::{AccessKind, BufferPool};
use crate::error::{Error, Result};
use crate::io::block::BlockId;
use crate::io::datafile::SYSTEM_FILE;
use crate::syntax::ast;
use crate::types::{decode_row, Value};

use super::ddl::{purge_predicate, DdlContext};
use super::sequences::sequence_from_row;
use super::table_text::{definition_from_ddl, written_primary_key};
use super::{
    clone_table, statistics, users, Catalog, Comments, Definition, Dictionary, IndexDef, Storage,
    TableDef, ViewDef, FIRST_USER_OBJECT,
};

impl Comments {
    /// Replaces the table's COMMENT rows in DICT$ with rows for what `self` holds now.
    pub(super) fn write(&mut self, context: &mut DdlContext, table_id: u32) -> Result<()> {
        for row in self.rows.drain(..) {
            context.delete(row)?;
        }
        let mut written = Vec::new();
        let entries = self.table.iter().map(|text| (None, text)).chain(
            self.columns
                .iter()
                .map(|(column, text)| (Some(column), text)),
        );
        for (column, text) in entries {
            written.push(context.insert(&[
                Value::text("COMMENT"),
                Value::integer(table_id as i64),
                column.map_or(Value::Null, Value::text),
                Value::text(text),
            ])?);
        }
        self.rows = written;
        Ok(())
    }
}

impl TableDef {
    /// The table's DICT$ row.
    pub(super) fn dictionary_values(&self) -> Vec<Value> {
        vec![
            Value::text("TABLE"),
            Value::integer(self.object_id as i64),
            Value::text(&self.name),
            Value::integer(self.segment.block as i64),
            Value::text(&self.ddl),
            Value::integer(self.created),
            Value::integer(self.buffer_pool.code() as i64),
            Value::integer(self.cache as i64),
        ]
    }

    /// Replaces the table's STATS rows in DICT$ with rows for `self.statistics` (none when
    /// it is None). Index statistics are kept by index object number.
    pub(super) fn write_statistics(&mut self, context: &mut DdlContext) -> Result<()> {
        for row in self.statistics_rows.drain(..) {
            context.delete(row)?;
        }
        let Some(gathered) = &self.statistics else {
            return Ok(());
        };
        let indexes = &self.indexes;
        let index_id = |name: &str| {
            indexes
                .iter()
                .find(|index| index.name == name)
                .map(|index| index.object_id)
        };
        for row in statistics::dictionary_rows(self.object_id, gathered, &index_id) {
            self.statistics_rows.push(context.insert(&row)?);
        }
        Ok(())
    }
}

impl IndexDef {
    /// The index's DICT$ row.
    pub(super) fn dictionary_values(&self) -> Vec<Value> {
        let positions: Vec<String> = self
            .columns
            .iter()
            .zip(&self.descending)
            .map(|(position, descending)| {
                format!("{position}{}", if *descending { "D" } else { "" })
            })
            .collect();
        vec![
            Value::text("INDEX"),
            Value::integer(self.object_id as i64),
            Value::text(&self.name),
            Value::integer(self.table_id as i64),
            Value::integer(self.unique as i64),
            Value::text(positions.join(",")),
            Value::integer(self.tree.header().block as i64),
            self.constraint.as_deref().map_or(Value::Null, Value::text),
            match (&self.constraint, self.primary) {
                (None, _) => Value::Null,
                (Some(_), true) => Value::text("P"),
                (Some(_), false) => Value::text("U"),
            },
            Value::integer(self.buffer_pool.code() as i64),
        ]
    }
}

impl Catalog {
    /// Reads DICT$ of an existing database (after recovery).
    pub fn open(storage: Storage) -> Result<Catalog> {
        let header = storage.space.bootstrap(&storage.cache)?;
        if header == 0 {
            return Err(Error::new(
                704,
                "bootstrap process failure: the datafile has no dictionary",
            ));
        }
        let header = BlockId::new(SYSTEM_FILE, header);
        let mut dictionary = Dictionary::default();
        let mut highest = FIRST_USER_OBJECT - 1;
        let mut index_rows = Vec::new();
        let mut comment_rows = Vec::new();
        let mut user_rows = users::UserRows::default();
        let mut program_rows = super::programs::ProgramRows::default();
        let mut statistics_rows: BTreeMap<u32, (Vec<RowId>, statistics::StatisticsRows)> =
            BTreeMap::new();
        for (rowid, values) in scan_dictionary(&storage, header)? {
            let object_id = integer(&values, 1)? as u32;
            highest = highest.max(object_id);
            let kind = text(&values, 0)?;
            let Some(values) = user_rows.take(&kind, rowid, values) else {
                continue;
            };
            let Some(values) = program_rows.take(&kind, rowid, values)? else {
                continue;
            };
            match kind.as_str() {
                "TABLE" => {
                    let table = table_from_row(rowid, &values)?;
                    dictionary
                        .tables
                        .insert(table.name.clone(), Arc::new(table));
                }
                "INDEX" => index_rows.push((rowid, values)),
                "COMMENT" => comment_rows.push((rowid, values)),
                "STATS" => {
                    let (rows, read) = statistics_rows.entry(object_id).or_default();
                    rows.push(rowid);
                    read.add(&values)?;
                }
                "SEQUENCE" => {
                    let sequence = sequence_from_row(rowid, &values)?;
                    dictionary
                        .sequences
                        .insert(sequence.name.clone(), Arc::new(sequence));
                }
                "VIEW" => {
                    let view = view_from_row(rowid, &values)?;
                    dictionary.views.insert(view.name.clone(), Arc::new(view));
                }
                other => {
                    return Err(Error::internal(format!(
                        "unknown dictionary row kind {other}"
                    )))
                }
            }
        }
        for (rowid, values) in index_rows {
            let table_id = integer(&values, 3)? as u32;
            let Some(table) = dictionary.table_by_id(table_id) else {
                continue; // its table was dropped in the same transaction's aftermath
            };
            let index = index_from_row(&storage, rowid, &values, &table)?;
            let index = Arc::new(index);
            dictionary.indexes.insert(index.name.clone(), index.clone());
            let mut table = clone_table(&table);
            table.indexes.push(index);
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
        }
        for (rowid, values) in comment_rows {
            let table_id = integer(&values, 1)? as u32;
            let Some(table) = dictionary.table_by_id(table_id) else {
                continue;
            };
            let mut table = clone_table(&table);
            let comment = text(&values, 3)?;
            match values.get(2).and_then(Value::as_str) {
                None => table.comments.table = Some(comment),
                Some(column) => {
                    table.comments.columns.insert(column.to_string(), comment);
                }
            }
            table.comments.rows.push(rowid);
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
        }
        for (table_id, (rows, read)) in statistics_rows {
            let Some(table) = dictionary.table_by_id(table_id) else {
                continue;
            };
            let mut table = clone_table(&table);
            let indexes = &table.indexes;
            let index_name = |id: u32| {
                indexes
                    .iter()
                    .find(|index| index.object_id == id)
                    .map(|index| index.name.clone())
            };
            table.statistics = read.finish(&index_name).map(Arc::new);
            table.statistics_rows = rows;
            dictionary
                .tables
                .insert(table.name.clone(), Arc::new(table));
        }
        user_rows.apply(&mut dictionary)?;
        program_rows.finish(&mut dictionary)?;
        let catalog = Catalog::with(storage, header, dictionary, highest + 1);
        // A database made before users: SYSTEM arrives now, without a password.
        catalog.create_system_user(None)?;
        Ok(catalog)
    }
}

/// Every committed DICT$ row with its rowid.
fn scan_dictionary(storage: &Storage, header: BlockId) -> Result<Vec<(RowId, Vec<Value>)>> {
    let transactions = &storage.transactions;
    let snapshot = transactions.snapshot();
    let mut rows = Vec::new();
    for block in segment::used_blocks(&storage.cache, header)? {
        let pieces = {
            let data = storage.cache.read(block, AccessKind::Lookup)?;
            heap::pieces(&data)?
        };
        for (slot, piece) in pieces {
            if let Some(data) = transactions.consistent_version(piece, snapshot.scn, 0)? {
                rows.push((
                    RowId {
                        block: block.block,
                        slot,
                    },
                    decode_row(&data)?,
                ));
            }
        }
    }
    Ok(rows)
}

pub(super) fn integer(values: &[Value], index: usize) -> Result<i128> {
    values
        .get(index)
        .and_then(Value::as_decimal)
        .and_then(|number| i128::try_from(number).ok())
        .ok_or_else(|| Error::internal(format!("dictionary row: column {index} is not a number")))
}

pub(super) fn text(values: &[Value], index: usize) -> Result<String> {
    values
        .get(index)
        .and_then(|value| value.as_str().map(str::to_string))
        .ok_or_else(|| Error::internal(format!("dictionary row: column {index} is not text")))
}

/// The number in column `index`, or None when the row has no such column (written by a
/// build that did not keep it) or NULL there.
pub(super) fn optional_integer(values: &[Value], index: usize) -> Result<Option<i128>> {
    match values.get(index) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => integer(values, index).map(Some),
    }
}

/// The buffer pool code in column `index` of a TABLE or INDEX row; DEFAULT when absent.
fn buffer_pool(values: &[Value], index: usize) -> Result<BufferPool> {
    let Some(code) = optional_integer(values, index)? else {
        return Ok(BufferPool::Default);
    };
    u8::try_from(code)
        .ok()
        .and_then(BufferPool::from_code)
        .ok_or_else(|| Error::internal(format!("dictionary row: buffer pool code {code}")))
}

fn table_from_row(rowid: RowId, values: &[Value]) -> Result<TableDef> {
    let ddl = text(values, 4)?;
    let Definition {
        columns,
        checks,
        foreign_keys,
    } = definition_from_ddl(&ddl)?;
    Ok(TableDef {
        object_id: integer(values, 1)? as u32,
        name: text(values, 2)?,
        columns,
        foreign_keys,
        comments: Comments::default(),
        statistics: None,
        segment: BlockId::new(SYSTEM_FILE, integer(values, 3)? as u32),
        insert_points: Arc::default(),
        indexes: Vec::new(),
        checks,
        buffer_pool: buffer_pool(values, 6)?,
        cache: optional_integer(values, 7)?.is_some_and(|flag| flag != 0),
        created: integer(values, 5)? as i64,
        ddl,
        dictionary_row: rowid,
        statistics_rows: Vec::new(),
    })
}

fn index_from_row(
    storage: &Storage,
    rowid: RowId,
    values: &[Value],
    table: &TableDef,
) -> Result<IndexDef> {
    let unique = integer(values, 4)? != 0;
    let (columns, descending): (Vec<usize>, Vec<bool>) = text(values, 5)?
        .split(',')
        .map(|position| {
            let (position, descending) = match position.strip_suffix('D') {
                Some(position) => (position, true),
                None => (position, false),
            };
            position
                .parse::<usize>()
                .map(|position| (position, descending))
                .map_err(|_| Error::internal("dictionary row: bad index column list"))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let header = BlockId::new(SYSTEM_FILE, integer(values, 6)? as u32);
    let primary = match values.get(8) {
        Some(kind) => kind.as_str() == Some("P"),
        None => {
            values.get(7).is_some_and(|name| !name.is_null())
                && written_primary_key(&table.ddl).is_some_and(|key| {
                    key.iter()
                        .map(|name| table.column(name))
                        .collect::<Option<Vec<_>>>()
                        .is_some_and(|positions| positions == columns)
                })
        }
    };
    Ok(IndexDef {
        object_id: integer(values, 1)? as u32,
        name: text(values, 2)?,
        table_id: table.object_id,
        table_name: table.name.clone(),
        columns,
        descending,
        unique,
        constraint: values
            .get(7)
            .and_then(|value| value.as_str().map(str::to_string)),
        // Rows written before the kind was kept have no column 8: their table's text is
        // still the user's own CREATE TABLE, whose PRIMARY KEY clause tells.
        primary,
        buffer_pool: buffer_pool(values, 9)?,
        tree: BTree::open(&storage.cache, header, unique, buffer_pool(values, 9)?)?
            .with_purge(purge_predicate(storage)),
        dictionary_row: rowid,
    })
}

/// A VIEW row of DICT$: kind, object id, name, (no segment), the CREATE VIEW text, created.
fn view_from_row(rowid: RowId, values: &[Value]) -> Result<ViewDef> {
    let ddl = text(values, 4)?;
    let statement = crate::syntax::parser::parse(&ddl)
        .map_err(|error| Error::internal(format!("stored view text does not parse: {error}")))?;
    let ast::Statement::CreateView {
        name,
        columns,
        query,
        ..
    } = statement
    else {
        return Err(Error::internal("a VIEW row whose text is not CREATE VIEW"));
    };
    Ok(ViewDef {
        object_id: integer(values, 1)? as u32,
        name: name.name,
        columns,
        query: Arc::new(*query),
        ddl,
        created: integer(values, 5)? as i64,
        dictionary_row: rowid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database made by the build before buffer pools were kept has TABLE rows of six
    /// columns and INDEX rows of nine. It must still open, its tables and indexes in
    /// DEFAULT and its tables NOCACHE; and the first DDL on them writes rows of the new
    /// shape that read back the same.
    #[test]
    fn rows_written_before_buffer_pools_read_as_default_and_nocache() {
        let dir = std::env::temp_dir().join(format!("pythia-old-pools-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let small = [
            ("db_cache_size", "8M"),
            ("log_file_size", "4M"),
            ("undo_tablespace_size", "16M"),
        ];
        let open = || crate::Instance::open(&dir, &small).unwrap();
        {
            let instance = open();
            let mut session = instance.connect().unwrap();
            for sql in [
                "create table t (id number primary key, v varchar2(5)) \
                 storage (buffer_pool keep) cache",
                "create index t_v on t (v) storage (buffer_pool recycle)",
                "insert into t values (1, 'one')",
                "commit",
            ] {
                session.execute(sql).unwrap();
            }
            let catalog = instance.catalog();
            catalog
                .change(|dictionary, context| {
                    for table in dictionary.tables.values() {
                        let values = table.dictionary_values();
                        assert_eq!(values.len(), 8);
                        context.update(table.dictionary_row, &values[..6])?;
                    }
                    for index in dictionary.indexes.values() {
                        let values = index.dictionary_values();
                        assert_eq!(values.len(), 10);
                        context.update(index.dictionary_row, &values[..9])?;
                    }
                    Ok(())
                })
                .unwrap();
            drop(session);
            instance.shutdown().unwrap();
        }
        let instance = open();
        let dictionary = instance.catalog().current();
        let table = dictionary.table("T").unwrap();
        assert_eq!(
            (table.buffer_pool, table.cache),
            (BufferPool::Default, false)
        );
        assert_eq!(table.indexes.len(), 2);
        for index in dictionary.indexes.values() {
            assert_eq!(index.buffer_pool, BufferPool::Default, "{}", index.name);
        }
        let mut session = instance.connect().unwrap();
        let found = session
            .execute("select v from t where id = 1")
            .unwrap()
            .rows;
        assert_eq!(found, vec![vec![Value::text("one")]]);
        session
            .execute("alter table t storage (buffer_pool recycle)")
            .unwrap();
        drop(session);
        instance.shutdown().unwrap();
        drop(instance);
        let instance = open();
        let dictionary = instance.catalog().current();
        let table = dictionary.table("T").unwrap();
        assert_eq!(
            (table.buffer_pool, table.cache),
            (BufferPool::Recycle, false)
        );
        drop(instance);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
