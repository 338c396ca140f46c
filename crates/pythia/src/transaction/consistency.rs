//! Read consistency: the version of a row a snapshot sees, walked back through undo, and the
//! current version of a row, following a forwarding head to its migrated piece.

use crate::access::heap::{self, RowId, RowPiece};
use crate::buffer::{AccessKind, BufferPool};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic};
use crate::io::block::BlockId;

use super::rows::{decode_row_image, head_piece, row_access};
use super::undo::UndoKind;
use super::{undo, TransactionManager};

impl TransactionManager {
    /// The version of a row visible at `snapshot_scn` to `reader_xid`, from its head: walks
    /// undo back from the current version, and follows a forwarding head to its migrated
    /// piece. None when no version is visible (inserted later, or deleted), or when `piece`
    /// is a migrated piece (not a row: its row is met at its head).
    pub fn consistent_version(
        &self,
        mut piece: RowPiece,
        snapshot_scn: u64,
        reader_xid: u64,
    ) -> Result<Option<Vec<u8>>> {
        if piece.is_migrated() {
            return Ok(None);
        }
        loop {
            if self.visible(piece.xid, snapshot_scn, reader_xid) {
                if piece.is_deleted() {
                    return Ok(None);
                }
                return match piece.forward_address() {
                    Some(target) => self.migrated_version(&piece, target).map(Some),
                    None => Ok(Some(piece.data)),
                };
            }
            if piece.uba == 0 {
                return Ok(None);
            }
            let record = undo::read(&self.cache, piece.uba)?;
            instrumentation::add(Statistic::DataBlocksConsistentReadsUndoRecordsApplied, 1);
            match record.kind {
                UndoKind::HeapInsert => return Ok(None),
                UndoKind::HeapUpdate | UndoKind::HeapDelete => {
                    piece = decode_row_image(&record.payload)?
                }
                UndoKind::IndexInsert
                | UndoKind::IndexDeleteMark
                | UndoKind::SegmentCreate
                | UndoKind::SegmentDrop => {
                    return Err(Error::internal(
                        "row undo chain leads to an index or segment record",
                    ))
                }
            }
        }
    }

    /// The data of the version a forwarding `head` (a copy, perhaps stale) names, from the
    /// migrated piece at `target` or, when that has changed since the copy, from undo (the
    /// essay's rule 5).
    fn migrated_version(&self, head: &RowPiece, target: RowId) -> Result<Vec<u8>> {
        instrumentation::add(Statistic::TableFetchContinuedRow, 1);
        let piece = {
            let data = self.cache.read(target.block_id(), AccessKind::Lookup)?;
            heap::read(&data, target.slot)?
        };
        let Some(piece) = piece.filter(RowPiece::is_migrated) else {
            return Err(Error::internal(format!(
                "forwarding address {} leads to no migrated row piece",
                target.to_u64()
            )));
        };
        if !piece.is_deleted() && (piece.xid, piece.uba) == (head.xid, head.uba) {
            return Ok(piece.data);
        }
        let mut uba = piece.uba;
        while uba != 0 {
            let record = undo::read(&self.cache, uba)?;
            instrumentation::add(Statistic::DataBlocksConsistentReadsUndoRecordsApplied, 1);
            if !matches!(record.kind, UndoKind::HeapUpdate | UndoKind::HeapDelete) {
                break;
            }
            let image = decode_row_image(&record.payload)?;
            if (image.xid, image.uba) == (head.xid, head.uba) {
                return Ok(image.data);
            }
            uba = image.uba;
        }
        Err(Error::internal(format!(
            "the migrated piece at {} does not lead to the version its head names",
            target.to_u64()
        )))
    }

    /// Reads the head of the row at `rowid` (its latest version, whoever made it), its block
    /// read into `pool` (its table's) when not cached. None when the slot holds no row:
    /// unused, or a migrated piece of a row whose ROWID is elsewhere. A forwarding head's
    /// data is an address; `consistent_version` follows it.
    pub fn current_piece(&self, rowid: RowId, pool: BufferPool) -> Result<Option<RowPiece>> {
        let data = self.cache.read(rowid.block_id(), row_access(pool))?;
        head_piece(&data, rowid.slot)
    }

    /// `current_piece` for several slots of one block, with one get of the block.
    pub fn current_pieces(&self, block: BlockId, slots: &[u16]) -> Result<Vec<Option<RowPiece>>> {
        let data = self.cache.read(block, AccessKind::Lookup)?;
        slots.iter().map(|&slot| head_piece(&data, slot)).collect()
    }

    /// The current data of a row from its head (a copy read without latches): the head's
    /// own, or its migrated piece's. None when the migrated piece no longer matches the head
    /// (a change came between the two reads).
    pub(super) fn current_data(
        &self,
        head: &RowPiece,
        pool: BufferPool,
    ) -> Result<Option<Vec<u8>>> {
        let Some(target) = head.forward_address() else {
            return Ok(Some(head.data.clone()));
        };
        let data = self.cache.read(target.block_id(), row_access(pool))?;
        Ok(heap::read(&data, target.slot)?
            .filter(|piece| {
                piece.is_migrated()
                    && !piece.is_deleted()
                    && (piece.xid, piece.uba) == (head.xid, head.uba)
            })
            .map(|piece| piece.data))
    }
}
