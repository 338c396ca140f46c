//! Segments under a transaction (DDL): a segment made is freed if the transaction rolls back,
//! a segment dropped is freed only when it commits.

use crate::access::segment;
use crate::buffer::{AccessKind, BufferPool};
use crate::error::{Error, Result};
use crate::io::block::{self, BlockId};
use crate::redo::mtr::Mtr;

use super::undo::{UndoKind, UndoRecord};
use super::{Transaction, TransactionManager};

impl TransactionManager {
    /// Makes a segment for `transaction`: `make` formats it in `mtr` and returns its header
    /// and whatever the caller needs (a B-tree). Nothing is made when `make` or the undo
    /// record fails.
    pub fn create_segment<T>(
        &self,
        transaction: &mut Transaction,
        object_id: u32,
        make: impl FnOnce(&mut Mtr) -> Result<(BlockId, T)>,
    ) -> Result<T> {
        let mut mtr = Mtr::new(&self.cache);
        let (header, made) = make(&mut mtr)?;
        self.commit_segment_undo(transaction, mtr, UndoKind::SegmentCreate, object_id, header)?;
        Ok(made)
    }

    /// Frees the segment at `header` (of object `object_id`) when `transaction` commits.
    pub fn drop_segment_at_commit(
        &self,
        transaction: &mut Transaction,
        object_id: u32,
        header: BlockId,
    ) -> Result<()> {
        let mtr = Mtr::new(&self.cache);
        let uba =
            self.commit_segment_undo(transaction, mtr, UndoKind::SegmentDrop, object_id, header)?;
        transaction.segments_dropped.push((uba, header));
        Ok(())
    }

    /// Writes the undo record `kind` of the segment at `header` in `mtr`, commits `mtr` and
    /// returns the record's UBA.
    fn commit_segment_undo(
        &self,
        transaction: &mut Transaction,
        mut mtr: Mtr,
        kind: UndoKind,
        object_id: u32,
        header: BlockId,
    ) -> Result<u64> {
        let record = UndoRecord {
            kind,
            object_id,
            previous_uba: 0,
            target: header.to_u64(),
            payload: Vec::new(),
        };
        let pending = self.write_undo(transaction, &mut mtr, record)?;
        let end = mtr.commit(&self.log, self.current_scn(), 0)?;
        let uba = pending.uba;
        transaction.confirm(pending, end);
        Ok(uba)
    }

    /// The segment a SegmentCreate record names, checked: its header must still be the
    /// segment header of the record's object (nothing frees it before its transaction ends).
    pub(super) fn created_segment(&self, record: &UndoRecord) -> Result<BlockId> {
        let header = BlockId::from_u64(record.target);
        let data = self.cache.read(header, AccessKind::Lookup)?;
        if block::block_type(&data) != block::BlockType::SegmentHeader
            || block::object_id(&data) != record.object_id
        {
            return Err(Error::internal(format!(
                "undo names a segment of object {} at {header}, which holds none",
                record.object_id
            )));
        }
        Ok(header)
    }

    /// Frees every extent of the segments at `headers` in `mtr`.
    pub(super) fn free_segments(&self, mtr: &mut Mtr, headers: &[BlockId]) -> Result<()> {
        for &header in headers {
            for (first, blocks) in segment::extents(&self.cache, header, BufferPool::Default)? {
                self.space.release(mtr, first, blocks)?;
            }
        }
        Ok(())
    }
}
