//! The row and index writes of INSERT, UPDATE and DELETE (and of DDL that rewrites rows or
//! builds an index), with the checks a table's own definition makes: types and lengths
//! (ORA-01438, ORA-12899), NOT NULL (ORA-01400), unique keys (ORA-00001). CHECK constraints
//! and foreign keys, which need expressions and other tables, are the SQL layer's
//! (`sql/constraints.rs`).
//!
//! Every change goes through the transaction layer: the row first (undo, then the heap
//! block), then each index entry (undo, then the B-tree). Rows are locked by the change
//! itself: `change_row` waits on 'enq: TX - row lock contention' for a row another active
//! transaction changed, and re-reads it when that transaction ends. UPDATE and DELETE find
//! their rows with the statement's snapshot, then re-check the WHERE clause on the row's
//! current version before changing it (a row changed meanwhile by a committed transaction is
//! judged on what it is now; Oracle restarts the statement instead, a known difference).
//!
//! Unique keys. Index entries carry no inserting xid, so a unique check looks at the rows
//! the key's entries point to: a live entry whose row is committed and not deleted is a
//! violation; one whose row is being changed by another active transaction makes us wait
//! for that transaction and look again (Oracle waits the same way, on the TX enqueue); a
//! delete-marked entry of an active transaction also makes us wait, since a rollback would
//! bring the key back. The check and the insertion of our entry happen under a latch
//! chosen by hashing (index, key), so two sessions inserting the same new key cannot both
//! pass the check: the second one finds the first one's entry. Keys with a NULL column are
//! never checked (Oracle: such keys are never equal).

use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use crate::access::heap::RowId;
use crate::access::scan::FullScan;
use crate::access::segment;
use crate::catalog::{IndexDef, Storage, TableDef, OWNER};
use crate::error::{Error, Result};
use crate::instrumentation::{Latch, LatchName};
use crate::syntax::ast::LockWait;
use crate::transaction::{RowChange, RowOutcome, Transaction, TransactionStatus};
use crate::types::{coerce_to_named_column, decode_row, encode_key, encode_row, Value};

/// Latches serializing unique checks on the same (index, key) hash.
const UNIQUE_CHECK_LATCHES: usize = 64;

fn unique_latches() -> &'static [Latch<()>] {
    static LATCHES: OnceLock<Vec<Latch<()>>> = OnceLock::new();
    LATCHES.get_or_init(|| {
        (0..UNIQUE_CHECK_LATCHES)
            .map(|_| Latch::new(LatchName::EnqueueHashChains, ()))
            .collect()
    })
}

/// Oracle's way of naming a column in ORA-12899 and ORA-01400.
fn qualified_column(table: &TableDef, column: usize) -> String {
    format!(
        "\"{OWNER}\".\"{}\".\"{}\"",
        table.name, table.columns[column].name
    )
}

/// Converts a full row to the table's column types and checks NOT NULL.
pub fn check_row(table: &TableDef, values: Vec<Value>) -> Result<Vec<Value>> {
    values
        .into_iter()
        .enumerate()
        .map(|(position, value)| {
            let column = &table.columns[position];
            let value = coerce_to_named_column(value, &column.data_type, || {
                qualified_column(table, position)
            })?;
            if value.is_null() && !column.nullable {
                return Err(Error::null_into_not_null(OWNER, &table.name, &column.name));
            }
            Ok(value)
        })
        .collect()
}

/// The key bytes of `index` for a row, and whether any key column is NULL.
pub fn index_key(index: &IndexDef, row: &[Value]) -> (Vec<u8>, bool) {
    let values: Vec<Value> = index
        .columns
        .iter()
        .map(|&column| row[column].clone())
        .collect();
    let has_null = values.iter().any(Value::is_null);
    let mut key = Vec::new();
    encode_key(&values, &index.descending, &mut key);
    (key, has_null)
}

/// Inserts one checked row and its index entries. Returns its rowid.
pub fn insert_row(
    storage: &Storage,
    transaction: &mut Transaction,
    table: &TableDef,
    row: &[Value],
) -> Result<RowId> {
    let mut data = Vec::new();
    encode_row(row, &mut data);
    let rowid = storage.transactions.insert_row(
        transaction,
        table.segment,
        table.object_id,
        table.buffer_pool,
        &table.insert_points,
        &data,
    )?;
    for index in &table.indexes {
        let (key, has_null) = index_key(index, row);
        add_entry(storage, transaction, table, index, &key, has_null, rowid)?;
    }
    Ok(rowid)
}

/// Adds an index entry of `table`, checking uniqueness first for a unique index (reading the
/// rows of the key's other entries into the table's pool).
fn add_entry(
    storage: &Storage,
    transaction: &mut Transaction,
    table: &TableDef,
    index: &IndexDef,
    key: &[u8],
    has_null: bool,
    rowid: RowId,
) -> Result<()> {
    let transactions = &storage.transactions;
    if !index.unique || has_null {
        return transactions.index_insert(transaction, &index.tree, index.object_id, key, rowid);
    }
    let latch = {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        index.object_id.hash(&mut hasher);
        key.hash(&mut hasher);
        &unique_latches()[hasher.finish() as usize % UNIQUE_CHECK_LATCHES]
    };
    loop {
        let guard = latch.lock();
        let mut holder = None;
        for entry in index.tree.lookup(&storage.cache, key)? {
            if entry.rowid == rowid.to_u64() {
                continue;
            }
            if entry.deleted {
                if entry.xid != transaction.xid
                    && transactions.status(entry.xid) == TransactionStatus::Active
                {
                    holder = Some(entry.xid);
                    break;
                }
                continue;
            }
            let other_row = RowId::from_u64(entry.rowid);
            let Some(piece) = transactions.current_piece(other_row, table.buffer_pool)? else {
                continue;
            };
            if piece.xid != transaction.xid
                && piece.xid != 0
                && transactions.status(piece.xid) == TransactionStatus::Active
            {
                holder = Some(piece.xid);
                break;
            }
            if !piece.is_deleted() {
                let name = index.constraint.as_deref().unwrap_or(&index.name);
                return Err(Error::unique_violated(&format!("{OWNER}.{name}")));
            }
        }
        match holder {
            None => {
                let result = transactions.index_insert(
                    transaction,
                    &index.tree,
                    index.object_id,
                    key,
                    rowid,
                );
                drop(guard);
                return result;
            }
            Some(holder) => {
                drop(guard);
                transactions.wait_for(transaction.xid, holder)?;
            }
        }
    }
}

/// Moves the row at `rowid` in `index` when its key changed from `old_row` to `new_row`:
/// delete-marks the old key (as `before`, the index's definition the old row was indexed
/// under, computes it: ALTER TABLE may renumber its columns) and adds the new one with the
/// unique check (ORA-00001). `index` is one of `table`'s indexes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn move_index_entry(
    storage: &Storage,
    transaction: &mut Transaction,
    table: &TableDef,
    before: &IndexDef,
    index: &IndexDef,
    old_row: &[Value],
    new_row: &[Value],
    rowid: RowId,
) -> Result<()> {
    // Most updates leave an index's columns alone: equal values have equal keys (the key
    // encoding is canonical), so there is nothing to encode or compare.
    if before.columns == index.columns
        && index
            .columns
            .iter()
            .all(|&column| old_row[column] == new_row[column])
    {
        return Ok(());
    }
    let (old_key, _) = index_key(before, old_row);
    let (new_key, has_null) = index_key(index, new_row);
    if old_key == new_key {
        return Ok(());
    }
    storage.transactions.index_delete(
        transaction,
        &index.tree,
        index.object_id,
        &old_key,
        rowid,
    )?;
    add_entry(
        storage,
        transaction,
        table,
        index,
        &new_key,
        has_null,
        rowid,
    )
}

/// Computes a row's new values from its current ones (None: leave the row alone).
pub type RowComputation<'a> = dyn FnMut(&[Value]) -> Result<Option<Vec<Value>>> + 'a;

/// Updates one row: `compute` gets the row's current values and returns the new ones, or
/// None to leave it (it no longer qualifies). Returns whether the row was updated.
/// Locks the row at `rowid` for `transaction`, as `SELECT ... FOR UPDATE` does: the row is
/// written again unchanged, so that its head carries the transaction (undo and redo as
/// Oracle's lock byte costs) and another writer waits for it. A row another active
/// transaction holds is waited for as `wait` says: ORA-00054 at once (NOWAIT), ORA-30006
/// after n seconds (WAIT n), or left out (SKIP LOCKED, false). False too for a row deleted
/// since the query read it.
pub fn lock_row(
    storage: &Storage,
    transaction: &mut Transaction,
    table: &TableDef,
    rowid: RowId,
    wait: LockWait,
) -> Result<bool> {
    if let Some(holder) =
        storage
            .transactions
            .row_holder(transaction.xid, table.buffer_pool, rowid)?
    {
        match wait {
            LockWait::NoWait => {
                return Err(Error::new(
                    54,
                    "resource busy and acquire with NOWAIT specified or timeout expired",
                ))
            }
            LockWait::SkipLocked => return Ok(false),
            LockWait::WaitSeconds(seconds) => storage.transactions.wait_for_at_most(
                transaction.xid,
                holder,
                Some(std::time::Duration::from_secs(seconds as u64)),
            )?,
            LockWait::Wait => {}
        }
    }
    update_row(storage, transaction, table, rowid, &mut |current| {
        Ok(Some(current.to_vec()))
    })
}

pub fn update_row(
    storage: &Storage,
    transaction: &mut Transaction,
    table: &TableDef,
    rowid: RowId,
    compute: &mut RowComputation,
) -> Result<bool> {
    let mut new_row: Option<Vec<Value>> = None;
    let outcome = storage.transactions.change_row(
        transaction,
        table.object_id,
        table.buffer_pool,
        rowid,
        &mut |current| {
            let Some(current) = current else {
                return Ok(RowChange::Keep);
            };
            let current = table_row(table, current)?;
            match compute(&current)? {
                None => Ok(RowChange::Keep),
                Some(values) => {
                    let values = check_row(table, values)?;
                    let mut data = Vec::new();
                    encode_row(&values, &mut data);
                    new_row = Some(values);
                    Ok(RowChange::Update(data))
                }
            }
        },
    )?;
    let RowOutcome::Updated(old_data) = outcome else {
        return Ok(false);
    };
    let old_row = table_row(table, &old_data)?;
    let new_row = new_row.expect("an update computed its row");
    for index in &table.indexes {
        move_index_entry(
            storage,
            transaction,
            table,
            index,
            index,
            &old_row,
            &new_row,
            rowid,
        )?;
    }
    Ok(true)
}

/// Deletes one row if `still_matches` its current values. Returns whether it was deleted.
pub fn delete_row(
    storage: &Storage,
    transaction: &mut Transaction,
    table: &TableDef,
    rowid: RowId,
    still_matches: &mut dyn FnMut(&[Value]) -> Result<bool>,
) -> Result<bool> {
    let outcome = storage.transactions.change_row(
        transaction,
        table.object_id,
        table.buffer_pool,
        rowid,
        &mut |current| {
            let Some(current) = current else {
                return Ok(RowChange::Keep);
            };
            if still_matches(&table_row(table, current)?)? {
                Ok(RowChange::Delete)
            } else {
                Ok(RowChange::Keep)
            }
        },
    )?;
    let RowOutcome::Deleted(old_data) = outcome else {
        return Ok(false);
    };
    let old_row = table_row(table, &old_data)?;
    for index in &table.indexes {
        let (key, _) = index_key(index, &old_row);
        storage.transactions.index_delete(
            transaction,
            &index.tree,
            index.object_id,
            &key,
            rowid,
        )?;
    }
    Ok(true)
}

/// The current version of every row of `table`, each padded to the table's columns (a
/// row written before an ADD COLUMN reads NULL there), for DDL that reads or rewrites them
/// all. Rows changed by transactions still active make it fail with ORA-00054, as Oracle's
/// DDL without a DDL lock timeout does: their changes could not be undone with them.
pub fn current_rows(
    storage: &Storage,
    transaction: &Transaction,
    table: &TableDef,
) -> Result<Vec<(RowId, Vec<Value>)>> {
    let transactions = &storage.transactions;
    let mut rows = Vec::new();
    let cache = &storage.cache;
    let extents = segment::used_extents(cache, table.segment, table.buffer_pool)?;
    let access = cache.scan_access(FullScan::blocks(&extents), table.buffer_pool, table.cache);
    // DDL runs outside a session's statement settings: the instance's read count.
    let mut scan = FullScan::new(cache, extents, access, cache.multiblock_read_count());
    while let Some(block) = scan.next_block()? {
        let pieces = {
            let data = storage.cache.read(block, access)?;
            crate::access::heap::pieces(&data)?
        };
        for (slot, piece) in pieces {
            if piece.xid != 0
                && piece.xid != transaction.xid
                && transactions.status(piece.xid) == TransactionStatus::Active
            {
                return Err(Error::new(
                    54,
                    "resource busy and acquire with NOWAIT specified or timeout expired",
                ));
            }
            // The current version (no other transaction is active on the table): through
            // the forwarding head when the row has migrated. Read at the current SCN without
            // registering it: entries pruned meanwhile are of transactions committed before
            // it, which a current read sees anyway.
            let current = transactions.consistent_version(
                piece,
                transactions.current_scn(),
                transaction.xid,
            )?;
            if let Some(data) = current {
                rows.push((
                    RowId {
                        block: block.block,
                        slot,
                    },
                    table_row(table, &data)?,
                ));
            }
        }
    }
    Ok(rows)
}

/// A stored row decoded with one value per column of the table: columns added after the
/// row was written read NULL.
pub fn table_row(table: &TableDef, data: &[u8]) -> Result<Vec<Value>> {
    let mut row = decode_row(data)?;
    if row.len() < table.columns.len() {
        row.resize(table.columns.len(), Value::Null);
    }
    Ok(row)
}

/// Fills a new index from the table's rows (CREATE INDEX). Rows changed by transactions
/// still active make it fail with ORA-00054, as Oracle's CREATE INDEX without a DDL lock
/// timeout does: their index entries could not be undone with them.
pub fn build_index(
    storage: &Storage,
    transaction: &mut Transaction,
    table: &TableDef,
    index: &IndexDef,
) -> Result<()> {
    let rows = current_rows(storage, transaction, table)?;
    for (rowid, row) in rows {
        let (key, has_null) = index_key(index, &row);
        match add_entry(storage, transaction, table, index, &key, has_null, rowid) {
            Err(error) if error.code() == 1 => {
                return Err(Error::new(
                    1452,
                    "cannot CREATE UNIQUE INDEX; duplicate keys found",
                ))
            }
            other => other?,
        }
    }
    Ok(())
}
