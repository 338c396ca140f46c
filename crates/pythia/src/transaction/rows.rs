//! Row changes: insert, update and delete of a row, in place or migrating it (the rules in the
//! module's essay), and their inverses for rollback.

use std::sync::atomic::Ordering;

use crate::access::heap::{self, RowId, RowPiece, ROW_DELETED};
use crate::access::segment;
use crate::buffer::{AccessKind, BlockAccess, BufferPool};
use crate::error::{Error, Result};
use crate::io::block::{self, BlockId};
use crate::io::datafile::SYSTEM_FILE;
use crate::redo::mtr::{Held, Mtr};

use super::undo::{UndoKind, UndoRecord};
use super::{InsertPoints, Transaction, TransactionManager, TransactionStatus};

impl TransactionManager {
    /// Inserts a row into a heap segment whose blocks go to `pool` (the table's: the insert
    /// block, the segment header and a block formatted for the row), at the transaction's
    /// insertion point of `points` (see [`InsertPoints`]).
    pub fn insert_row(
        &self,
        transaction: &mut Transaction,
        segment_header: BlockId,
        object_id: u32,
        pool: BufferPool,
        points: &InsertPoints,
        data: &[u8],
    ) -> Result<RowId> {
        let hint = points.of(transaction);
        let block_size = self.cache.block_size();
        if data.len() > heap::row_bytes_max(block_size) {
            return Err(Error::new(
                1467,
                format!(
                    "row of {} bytes exceeds the {} bytes a {block_size}-byte block can hold",
                    data.len(),
                    heap::row_bytes_max(block_size)
                ),
            ));
        }
        let reserve = heap::pctfree_bytes(block_size);
        for attempt in 0..3 {
            let mut mtr = Mtr::new(&self.cache);
            let candidate = hint.load(Ordering::Acquire) as u32;
            let held = if candidate != 0 && attempt < 2 {
                let held = mtr.get(
                    crate::io::block::BlockId::new(crate::io::datafile::SYSTEM_FILE, candidate),
                    row_access(pool),
                )?;
                if !heap::fits(mtr.block_ref(held), data.len(), reserve) {
                    // Reclaim tombstones nobody can see any more, then retry here once.
                    if attempt == 0
                        && self.purge_block(mtr.block(held)) > 0
                        && heap::fits(mtr.block_ref(held), data.len(), reserve)
                    {
                        held
                    } else {
                        drop(mtr);
                        hint.store(0, Ordering::Release);
                        continue;
                    }
                } else {
                    held
                }
            } else {
                let id = segment::allocate_block(&mut mtr, &self.space, segment_header, pool)?;
                let held = mtr.new_block(id, pool)?;
                heap::format(mtr.block(held), id, object_id, segment_header.block);
                held
            };
            let block_number = mtr.id(held).block;
            let piece = RowPiece {
                flags: 0,
                xid: transaction.xid,
                uba: 0,
                data: data.to_vec(),
            };
            let Some(slot) = heap::insert(mtr.block(held), &piece, 0) else {
                return Err(Error::internal(
                    "heap insert into a block that had room failed",
                ));
            };
            let rowid = RowId {
                block: block_number,
                slot,
            };
            let pending = self.write_undo(
                transaction,
                &mut mtr,
                UndoRecord {
                    kind: UndoKind::HeapInsert,
                    object_id,
                    previous_uba: 0,
                    target: rowid.to_u64(),
                    payload: Vec::new(),
                },
            )?;
            let piece = RowPiece {
                uba: pending.uba,
                ..piece
            };
            heap::replace(mtr.block(held), slot, &piece)?;
            let end = mtr.commit(&self.log, self.current_scn(), 0)?;
            transaction.confirm(pending, end);
            hint.store(block_number as u64, Ordering::Release);
            return Ok(rowid);
        }
        Err(Error::internal("heap insert found no block with room"))
    }

    /// Removes tombstones and orphaned migrated pieces that no running statement can reach
    /// from a heap block held for change. Returns the number removed.
    fn purge_block(&self, block: &mut [u8]) -> usize {
        let Ok(pieces) = heap::all_pieces(block) else {
            return 0;
        };
        let mut removed = 0;
        for (slot, piece) in pieces {
            if piece.flags & ROW_DELETED != 0 && self.is_purgeable(piece.xid) {
                heap::remove(block, slot);
                removed += 1;
            }
        }
        removed
    }

    /// Changes a row, locking it. `change` gets the current row data (None when the row no
    /// longer exists) and returns the new data, `RowChange::Keep` to leave the row alone, or
    /// `RowChange::Delete`. Waits for another active transaction holding the row; computes
    /// again if the row changed meanwhile. A row that outgrows its block migrates (the
    /// essay's "Row migration"): its ROWID stays. The blocks it reads (the row's, its
    /// migrated piece's, a block to migrate into, the segment header, a new block) go to
    /// `pool`, its table's.
    /// The active transaction other than `xid` whose change the row at `rowid` carries: the
    /// one a change of the row would wait for (None: none, or no row).
    pub fn row_holder(&self, xid: u64, pool: BufferPool, rowid: RowId) -> Result<Option<u64>> {
        let Some(head) = self.current_piece(rowid, pool)? else {
            return Ok(None);
        };
        let held =
            head.xid != xid && head.xid != 0 && self.status(head.xid) == TransactionStatus::Active;
        Ok(held.then_some(head.xid))
    }

    pub fn change_row(
        &self,
        transaction: &mut Transaction,
        object_id: u32,
        pool: BufferPool,
        rowid: RowId,
        change: &mut dyn FnMut(Option<&[u8]>) -> Result<RowChange>,
    ) -> Result<RowOutcome> {
        // None: no candidate block looked for yet; Some(0): none has room.
        let mut candidate: Option<u32> = None;
        let mut attempts = 0;
        loop {
            let Some(head) = self.current_piece(rowid, pool)? else {
                return Ok(RowOutcome::Missing);
            };
            if head.xid != transaction.xid
                && head.xid != 0
                && self.status(head.xid) == TransactionStatus::Active
            {
                self.wait_for(transaction.xid, head.xid)?;
                continue;
            }
            attempts += 1;
            if attempts > ROW_CHANGE_ATTEMPTS_MAX {
                return Err(Error::internal(format!(
                    "row {} changed under {ROW_CHANGE_ATTEMPTS_MAX} attempts to change it",
                    rowid.to_u64()
                )));
            }
            let current = if head.is_deleted() {
                None
            } else {
                match self.current_data(&head, pool)? {
                    Some(data) => Some(data),
                    None => continue, // the migrated piece changed after the head was read
                }
            };
            let outcome = change(current.as_deref())?;
            let (new_flags, new_data, kind) = match outcome {
                RowChange::Keep => {
                    return Ok(if current.is_some() {
                        RowOutcome::Unchanged
                    } else {
                        RowOutcome::Missing
                    })
                }
                RowChange::Update(data) => (0u8, data, UndoKind::HeapUpdate),
                RowChange::Delete => (ROW_DELETED, Vec::new(), UndoKind::HeapDelete),
            };
            let Some(current) = current else {
                return Ok(RowOutcome::Missing);
            };
            if new_data.len() > heap::row_bytes_max(self.cache.block_size()) {
                return Err(Error::new(
                    1467,
                    format!(
                        "row of {} bytes exceeds what one block can hold",
                        new_data.len()
                    ),
                ));
            }
            let mut mtr = Mtr::new(&self.cache);
            let blocks =
                self.hold_row_blocks(&mut mtr, rowid, &head, candidate.unwrap_or(0), pool)?;
            if !self.row_unchanged(&mtr, rowid, &blocks, &head)? {
                continue; // changed since we looked: look again
            }
            let mut version = RowPiece {
                flags: new_flags,
                xid: transaction.xid,
                uba: 0,
                data: new_data,
            };
            let placement = match self.placement(&mtr, rowid, &blocks, &version) {
                Some(placement) => placement,
                None if candidate.is_none() => {
                    drop(mtr);
                    candidate =
                        Some(self.migration_candidate(rowid, &head, version.data.len(), pool)?);
                    continue;
                }
                None => Placement::Move(self.new_migration_block(&mut mtr, blocks.head, pool)?),
            };
            let before = RowPiece {
                flags: 0,
                xid: head.xid,
                uba: head.uba,
                data: current,
            };
            let pending = self.write_undo(
                transaction,
                &mut mtr,
                UndoRecord {
                    kind,
                    object_id,
                    previous_uba: 0,
                    target: rowid.to_u64(),
                    payload: encode_row_image(&before),
                },
            )?;
            version.uba = pending.uba;
            let orphan_tag = (version.xid, version.uba);
            self.write_version(&mut mtr, rowid, &blocks, placement, &version, orphan_tag)?;
            let end = mtr.commit(&self.log, self.current_scn(), 0)?;
            transaction.confirm(pending, end);
            return Ok(if version.is_deleted() {
                RowOutcome::Deleted(before.data)
            } else {
                RowOutcome::Updated(before.data)
            });
        }
    }

    /// Applies the inverse of a heap undo record made by `xid` at `uba`: the row gets back
    /// the version before the change (rule 6 of the essay), or loses its head and migrated
    /// piece when the change was its insert. Does nothing when the head no longer holds the
    /// change (already undone, or never made before a crash).
    pub(super) fn undo_row_change(&self, xid: u64, uba: u64, record: &UndoRecord) -> Result<()> {
        let rowid = RowId::from_u64(record.target);
        let before = match record.kind {
            UndoKind::HeapInsert => None,
            _ => Some(decode_row_image(&record.payload)?),
        };
        if let Some(before) = &before {
            if before.is_migrated() || before.forward_address().is_some() {
                return Err(Error::internal("undo row image holds a piece, not a row"));
            }
        }
        // An undo record names its object, not its table's pool: the blocks rollback reads
        // that are not cached (the change it undoes usually left them cached) go to DEFAULT.
        let pool = BufferPool::Default;
        let mut candidate: Option<u32> = None;
        for _ in 0..ROW_CHANGE_ATTEMPTS_MAX {
            let Some(head) = self.current_piece(rowid, pool)? else {
                return Ok(());
            };
            if (head.xid, head.uba) != (xid, uba) {
                return Ok(());
            }
            let mut mtr = Mtr::new(&self.cache);
            let blocks =
                self.hold_row_blocks(&mut mtr, rowid, &head, candidate.unwrap_or(0), pool)?;
            if !self.row_unchanged(&mtr, rowid, &blocks, &head)? {
                continue;
            }
            match &before {
                None => {
                    heap::remove(mtr.block(blocks.head), rowid.slot);
                    if let Some((held, target)) = blocks.migrated {
                        heap::remove(mtr.block(held), target.slot);
                    }
                }
                Some(before) => {
                    let placement = match self.placement(&mtr, rowid, &blocks, before) {
                        Some(placement) => placement,
                        None if candidate.is_none() => {
                            drop(mtr);
                            candidate = Some(self.migration_candidate(
                                rowid,
                                &head,
                                before.data.len(),
                                pool,
                            )?);
                            continue;
                        }
                        None => Placement::Move(self.new_migration_block(
                            &mut mtr,
                            blocks.head,
                            pool,
                        )?),
                    };
                    self.write_version(&mut mtr, rowid, &blocks, placement, before, (xid, uba))?;
                }
            }
            mtr.commit(&self.log, self.current_scn(), 0)?;
            return Ok(());
        }
        Err(Error::internal(format!(
            "rollback of row {} found it changing under {ROW_CHANGE_ATTEMPTS_MAX} attempts",
            rowid.to_u64()
        )))
    }

    /// Takes, in block-number order (rule 7), the blocks a change of the row whose head
    /// `head` was read at `rowid` may write: the head's, its migrated piece's, and
    /// `candidate` (0: none) to migrate into.
    fn hold_row_blocks(
        &self,
        mtr: &mut Mtr,
        rowid: RowId,
        head: &RowPiece,
        candidate: u32,
        pool: BufferPool,
    ) -> Result<RowBlocks> {
        let access = row_access(pool);
        let forward = head.forward_address();
        let candidate = (candidate != 0
            && candidate != rowid.block
            && Some(candidate) != forward.map(|target| target.block))
        .then_some(candidate);
        let mut numbers: Vec<u32> = [Some(rowid.block), forward.map(|target| target.block)]
            .into_iter()
            .chain([candidate])
            .flatten()
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        for number in numbers {
            mtr.get(BlockId::new(SYSTEM_FILE, number), access)?;
        }
        // Every block is held now: these find them.
        Ok(RowBlocks {
            head: mtr.get(rowid.block_id(), access)?,
            migrated: match forward {
                Some(target) => Some((mtr.get(target.block_id(), access)?, target)),
                None => None,
            },
            candidate: match candidate {
                Some(number) => Some(mtr.get(BlockId::new(SYSTEM_FILE, number), access)?),
                None => None,
            },
        })
    }

    /// Whether the row's head, now latched, is still `head` (the copy the caller decided
    /// on). A forwarding head whose migrated piece does not carry its tag breaks rule 3.
    fn row_unchanged(
        &self,
        mtr: &Mtr,
        rowid: RowId,
        blocks: &RowBlocks,
        head: &RowPiece,
    ) -> Result<bool> {
        if heap::read(mtr.block_ref(blocks.head), rowid.slot)?.as_ref() != Some(head) {
            return Ok(false);
        }
        if let Some((held, target)) = blocks.migrated {
            let piece = heap::read(mtr.block_ref(held), target.slot)?;
            let tagged = matches!(&piece, Some(piece) if piece.is_migrated()
                && !piece.is_deleted()
                && (piece.xid, piece.uba) == (head.xid, head.uba));
            if !tagged {
                return Err(Error::internal(format!(
                    "row {} forwards to {}, which does not hold its data",
                    rowid.to_u64(),
                    target.to_u64()
                )));
            }
        }
        Ok(true)
    }

    /// Where `version` of the row goes among the held blocks (rule 4), or None when none
    /// has room.
    fn placement(
        &self,
        mtr: &Mtr,
        rowid: RowId,
        blocks: &RowBlocks,
        version: &RowPiece,
    ) -> Option<Placement> {
        let data_bytes = version.data.len();
        if version.is_deleted()
            || heap::fits_replacement(mtr.block_ref(blocks.head), rowid.slot, data_bytes)
        {
            return Some(Placement::Home);
        }
        if let Some((held, target)) = blocks.migrated {
            if heap::fits_replacement(mtr.block_ref(held), target.slot, data_bytes) {
                return Some(Placement::InPlace);
            }
        }
        let held = blocks.candidate?;
        let candidate = mtr.block_ref(held);
        let head_block = mtr.block_ref(blocks.head);
        let same_segment = block::block_type(candidate) == block::BlockType::HeapData
            && block::object_id(candidate) == block::object_id(head_block)
            && heap::segment_header(candidate) == heap::segment_header(head_block);
        let reserve = heap::pctfree_bytes(self.cache.block_size());
        (same_segment && heap::fits(candidate, data_bytes, reserve))
            .then_some(Placement::Move(held))
    }

    /// A block of the row's segment, other than the row's own blocks, that had room for
    /// `data_bytes` when looked at without latches: the block the head's block last migrated
    /// into, else the segment's last block. 0 when neither has room.
    fn migration_candidate(
        &self,
        rowid: RowId,
        head: &RowPiece,
        data_bytes: usize,
        pool: BufferPool,
    ) -> Result<u32> {
        let (hint, segment_header) = {
            let data = self.cache.read(rowid.block_id(), row_access(pool))?;
            (heap::migration_target(&data), heap::segment_header(&data))
        };
        let forward_block = head.forward_address().map(|target| target.block);
        let reserve = heap::pctfree_bytes(self.cache.block_size());
        let has_room = |number: u32| -> Result<bool> {
            if number == 0 || number == rowid.block || Some(number) == forward_block {
                return Ok(false);
            }
            let data = self
                .cache
                .read(BlockId::new(SYSTEM_FILE, number), row_access(pool))?;
            Ok(block::block_type(&data) == block::BlockType::HeapData
                && heap::fits(&data, data_bytes, reserve))
        };
        if has_room(hint)? {
            return Ok(hint);
        }
        if segment_header != 0 {
            let header = BlockId::new(SYSTEM_FILE, segment_header);
            let extents = segment::used_extents(&self.cache, header, pool)?;
            if let Some(&(first, count)) = extents.last() {
                let last = first.block + count - 1;
                if has_room(last)? {
                    return Ok(last);
                }
            }
        }
        Ok(0)
    }

    /// Allocates and formats a new block of the segment of the held head block, for a row to
    /// migrate into.
    fn new_migration_block(&self, mtr: &mut Mtr, head: Held, pool: BufferPool) -> Result<Held> {
        let (segment_header, object_id) = {
            let data = mtr.block_ref(head);
            (heap::segment_header(data), block::object_id(data))
        };
        if segment_header == 0 {
            return Err(Error::internal(format!(
                "heap block {} does not name its segment",
                mtr.id(head).block
            )));
        }
        let header = BlockId::new(SYSTEM_FILE, segment_header);
        let id = segment::allocate_block(mtr, &self.space, header, pool)?;
        let held = mtr.new_block(id, pool)?;
        heap::format(mtr.block(held), id, object_id, segment_header);
        Ok(held)
    }

    /// Writes `version` (a row or a tombstone: never a piece) as the row at `rowid` where
    /// `placement` says, re-pointing the head as needed. A migrated piece the row leaves is
    /// orphaned with `orphan_tag`.
    fn write_version(
        &self,
        mtr: &mut Mtr,
        rowid: RowId,
        blocks: &RowBlocks,
        placement: Placement,
        version: &RowPiece,
        orphan_tag: (u64, u64),
    ) -> Result<()> {
        let orphan = RowPiece::orphan(orphan_tag.0, orphan_tag.1);
        match placement {
            Placement::Home => {
                replace_piece(mtr, blocks.head, rowid.slot, version)?;
                if let Some((held, target)) = blocks.migrated {
                    replace_piece(mtr, held, target.slot, &orphan)?;
                }
            }
            Placement::InPlace => {
                let Some((held, target)) = blocks.migrated else {
                    return Err(Error::internal("in-place placement of a row that is home"));
                };
                let migrated = RowPiece::migrated(version.xid, version.uba, version.data.clone());
                replace_piece(mtr, held, target.slot, &migrated)?;
                let head = RowPiece::forwarding(version.xid, version.uba, target);
                replace_piece(mtr, blocks.head, rowid.slot, &head)?;
            }
            Placement::Move(held) => {
                let migrated = RowPiece::migrated(version.xid, version.uba, version.data.clone());
                let Some(slot) = heap::insert(mtr.block(held), &migrated, 0) else {
                    return Err(Error::internal(
                        "migration into a block that had room failed",
                    ));
                };
                let target = RowId {
                    block: mtr.id(held).block,
                    slot,
                };
                let head = RowPiece::forwarding(version.xid, version.uba, target);
                replace_piece(mtr, blocks.head, rowid.slot, &head)?;
                heap::set_migration_target(mtr.block(blocks.head), target.block);
                if let Some((held, old_target)) = blocks.migrated {
                    replace_piece(mtr, held, old_target.slot, &orphan)?;
                }
            }
        }
        Ok(())
    }
}

/// How many times a row change (or its rollback) looks at a row again because it changed
/// between a read and the latch, before it gives up with ORA-00600.
const ROW_CHANGE_ATTEMPTS_MAX: u32 = 1000;

/// The blocks of one row a mini-transaction holds for a change.
struct RowBlocks {
    head: Held,
    /// The block and address of a forwarding head's migrated piece.
    migrated: Option<(Held, RowId)>,
    /// A block with room the row may migrate into.
    candidate: Option<Held>,
}

/// Where a new version of a row goes.
#[derive(Clone, Copy)]
enum Placement {
    /// Into the head: the row stays, or comes home.
    Home,
    /// Into its migrated piece, where it is.
    InPlace,
    /// Into a new migrated piece in this block; the head is re-pointed.
    Move(Held),
}

/// How a row change gets a block of its table, whose blocks go to `pool`.
pub(super) fn row_access(pool: BufferPool) -> BlockAccess {
    AccessKind::Lookup.in_pool(pool)
}

/// Replaces the piece in `slot` of a held heap block. Where it fits the old piece's bytes,
/// only those and the block's reclaimable count are asked of the mini-transaction, which
/// then diffs only them; else the whole block (the piece moves, maybe after a compaction).
fn replace_piece(mtr: &mut Mtr, held: Held, slot: u16, piece: &RowPiece) -> Result<()> {
    if let Some(span) = heap::in_place_span(mtr.block_ref(held), slot, piece) {
        let freed = heap::replace_in_place(mtr.range_mut(held, span), piece);
        if freed > 0 {
            heap::add_reclaimable(mtr.range_mut(held, heap::RECLAIMABLE), freed);
        }
        return Ok(());
    }
    if heap::replace(mtr.block(held), slot, piece)? {
        Ok(())
    } else {
        Err(Error::internal(format!(
            "row piece of {} bytes no longer fits slot {slot}",
            piece.data.len()
        )))
    }
}

/// What `change_row`'s closure decides.
pub enum RowChange {
    Keep,
    Update(Vec<u8>),
    Delete,
}

/// What `change_row` did. Updated and Deleted carry the row's data before the change.
#[derive(Debug, PartialEq, Eq)]
pub enum RowOutcome {
    Missing,
    Unchanged,
    Updated(Vec<u8>),
    Deleted(Vec<u8>),
}

/// The head of the row in `slot` of a heap block (None for a migrated piece: its ROWID is
/// elsewhere).
pub(super) fn head_piece(block: &[u8], slot: u16) -> Result<Option<RowPiece>> {
    Ok(heap::read(block, slot)?.filter(|piece| !piece.is_migrated()))
}

fn encode_row_image(piece: &RowPiece) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(17 + piece.data.len());
    bytes.push(piece.flags);
    bytes.extend_from_slice(&piece.xid.to_le_bytes());
    bytes.extend_from_slice(&piece.uba.to_le_bytes());
    bytes.extend_from_slice(&piece.data);
    bytes
}

pub(super) fn decode_row_image(bytes: &[u8]) -> Result<RowPiece> {
    if bytes.len() < 17 {
        return Err(Error::internal("undo row image too short"));
    }
    Ok(RowPiece {
        flags: bytes[0],
        xid: block::read_u64(bytes, 1),
        uba: block::read_u64(bytes, 9),
        data: bytes[17..].to_vec(),
    })
}
