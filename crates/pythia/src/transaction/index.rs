//! Index entries under a transaction: an insert or delete of a B-tree entry with the undo
//! record that takes it back.

use crate::access::btree::BTree;
use crate::access::heap::RowId;
use crate::error::{Error, Result};
use crate::io::block;
use crate::redo::mtr::Mtr;

use super::undo::{UndoKind, UndoRecord};
use super::{Transaction, TransactionManager};

impl TransactionManager {
    /// Adds an index entry for a change of `transaction` (undo first, then the entry).
    pub fn index_insert(
        &self,
        transaction: &mut Transaction,
        tree: &BTree,
        object_id: u32,
        key: &[u8],
        rowid: RowId,
    ) -> Result<()> {
        self.index_undo(
            transaction,
            tree,
            object_id,
            key,
            rowid,
            UndoKind::IndexInsert,
        )?;
        tree.insert(
            &self.cache,
            &self.log,
            &self.space,
            self.current_scn(),
            key,
            rowid.to_u64(),
        )
    }

    /// Delete-marks an index entry for a change of `transaction`.
    pub fn index_delete(
        &self,
        transaction: &mut Transaction,
        tree: &BTree,
        object_id: u32,
        key: &[u8],
        rowid: RowId,
    ) -> Result<()> {
        self.index_undo(
            transaction,
            tree,
            object_id,
            key,
            rowid,
            UndoKind::IndexDeleteMark,
        )?;
        tree.mark_deleted(
            &self.cache,
            &self.log,
            self.current_scn(),
            key,
            rowid.to_u64(),
            transaction.xid,
        )?;
        Ok(())
    }

    fn index_undo(
        &self,
        transaction: &mut Transaction,
        tree: &BTree,
        object_id: u32,
        key: &[u8],
        rowid: RowId,
        kind: UndoKind,
    ) -> Result<()> {
        let mut payload = Vec::with_capacity(8 + key.len());
        payload.extend_from_slice(&rowid.to_u64().to_le_bytes());
        payload.extend_from_slice(key);
        let mut mtr = Mtr::new(&self.cache);
        let pending = self.write_undo(
            transaction,
            &mut mtr,
            UndoRecord {
                kind,
                object_id,
                previous_uba: 0,
                target: tree.header().to_u64(),
                payload,
            },
        )?;
        let end = mtr.commit(&self.log, self.current_scn(), 0)?;
        transaction.confirm(pending, end);
        Ok(())
    }
}

pub(super) fn decode_index_image(bytes: &[u8]) -> Result<(u64, &[u8])> {
    if bytes.len() < 8 {
        return Err(Error::internal("undo index image too short"));
    }
    Ok((block::read_u64(bytes, 0), &bytes[8..]))
}
