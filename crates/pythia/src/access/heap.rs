//! Heap tables: rows in slotted blocks, addressed by ROWID.
//!
//! A heap block (block type 4) after the common 32-byte header:
//!
//! ```text
//!  32  2 slot count            entries in the row directory
//!  34  2 data start            lowest byte used by row data (rows grow down from the end)
//!  36  2 reclaimable bytes     bytes of dead row pieces a compaction would give back
//!  38  2 reserved
//!  40  4 segment header        block number of the segment's header: where a row that must
//!                              migrate gets a new block when no block it knows has room
//!  44  4 migration target      the block rows of this block last migrated into (0: none)
//!  48    row directory         u16 offset per slot, 0 = slot unused
//!   ...  free space
//!        row pieces            each:  0 flags u8 | 1 xid u64 | 9 uba u64 | 17 length u16 | 19 data
//!                              occupying 19 + max(length, 8) bytes (zero padding after data)
//! ```
//!
//! A ROWID is (block number, slot) in the system datafile, packed as `block << 16 | slot`.
//! `xid` is the transaction that made this version (0: committed before anything still
//! running began) and `uba` the undo record holding the previous version. The transaction
//! layer interprets them; this module only stores pieces. Row piece flags, and the kinds of
//! piece they make (Oracle's flag letters in brackets):
//!
//! ```text
//!  flags                        piece                       data
//!  0                            a row (H F L)               the row (types/codec.rs)
//!  ROW_DELETED    1             tombstone (H D F L)         empty: deleted by `xid`; older
//!                                                           snapshots reach the row via undo
//!  ROW_FORWARDED  2             head of a migrated row (H)  8 bytes: the ROWID (u64, little
//!                                                           endian) of its migrated piece
//!  ROW_MIGRATED   4             migrated piece (F L)        the row; xid and uba are a copy
//!                                                           of its head's
//!  ROW_MIGRATED | ROW_DELETED   orphaned migrated piece     empty: the row moved on or was
//!                                                           deleted by the change (xid, uba)
//! ```
//!
//! Row migration: when an update makes a row too long for its block, the row's data moves
//! to a migrated piece in another block of the segment and the piece at the ROWID becomes a
//! forwarding head. The ROWID, and every index entry holding it, stay valid; the head keeps
//! the row's version history (xid, uba, the delete mark) and the migrated piece only data.
//! A migrated piece is not a row of its own block: `pieces` (what scans read) leaves it
//! out, so a full scan meets each row once, at its head. A head never forwards to another
//! head: a row that moves again is re-pointed. The transaction layer keeps these pieces in
//! step (`transaction`'s essay, "Row migration").
//!
//! Invariants:
//! 1. Slot offsets point inside the block past the directory; a slot, once used, keeps its
//!    number for the row's life (ROWIDs are stable); `data start` is never below the end of
//!    the directory.
//! 2. Every piece occupies at least 19 + 8 bytes, so any row can become a forwarding head in
//!    place (Oracle's minimum row size exists for the same reason).
//! 3. A row piece must fit in one block: rows larger than an empty block are refused with
//!    ORA-01467 until row chaining exists.
//! 4. `migration target`, when not 0, names a block of this block's segment handed out
//!    since the segment was made (TRUNCATE gives a table a new one): a block holding live
//!    rows was formatted (target 0) since then, and only ever sets its target to such
//!    blocks. So the target needs no check against the segment's high water mark.

use crate::error::{Error, Result};
use crate::io::block::{self, BlockId, BlockType, BLOCK_HEADER_BYTES};
use crate::io::datafile::SYSTEM_FILE;

const OFFSET_SLOT_COUNT: usize = 32;
const OFFSET_DATA_START: usize = 34;
const OFFSET_RECLAIMABLE: usize = 36;
const OFFSET_SEGMENT_HEADER: usize = 40;
const OFFSET_MIGRATION_TARGET: usize = 44;
const DIRECTORY: usize = 48;
pub const ROW_HEADER_BYTES: usize = 19;
/// Bytes of a forwarding address: every piece has at least this much room for data.
pub const FORWARD_BYTES: usize = 8;
pub const ROW_DELETED: u8 = 1;
pub const ROW_FORWARDED: u8 = 2;
pub const ROW_MIGRATED: u8 = 4;
/// Most slots in one block (the directory must leave room for rows).
pub const SLOTS_MAX: usize = 2048;

/// A row's address: block and slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowId {
    pub block: u32,
    pub slot: u16,
}

impl RowId {
    pub fn to_u64(self) -> u64 {
        (self.block as u64) << 16 | self.slot as u64
    }

    pub fn from_u64(value: u64) -> RowId {
        RowId {
            block: (value >> 16) as u32,
            slot: value as u16,
        }
    }

    pub fn block_id(self) -> BlockId {
        BlockId::new(SYSTEM_FILE, self.block)
    }

    /// Oracle's extended ROWID text: OOOOOOFFFBBBBBBRRR in base 64.
    pub fn to_oracle_string(self, object_id: u32) -> String {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut text = String::with_capacity(18);
        let mut push = |value: u64, digits: u32| {
            for position in (0..digits).rev() {
                text.push(ALPHABET[((value >> (6 * position)) & 63) as usize] as char);
            }
        };
        push(object_id as u64, 6);
        push(SYSTEM_FILE as u64, 3);
        push(self.block as u64, 6);
        push(self.slot as u64, 3);
        text
    }

    /// The (object id, rowid) an extended ROWID text names; None when it is not 18
    /// characters of the base-64 alphabet, or names a datafile or slot this database cannot
    /// have (ORA-01410 for the caller).
    pub fn from_oracle_string(text: &str) -> Option<(u32, RowId)> {
        let bytes = text.as_bytes();
        if bytes.len() != 18 {
            return None;
        }
        let digit = |byte: u8| -> Option<u64> {
            Some(match byte {
                b'A'..=b'Z' => byte - b'A',
                b'a'..=b'z' => byte - b'a' + 26,
                b'0'..=b'9' => byte - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return None,
            } as u64)
        };
        let number = |digits: &[u8]| -> Option<u64> {
            digits
                .iter()
                .try_fold(0u64, |value, &byte| Some(value << 6 | digit(byte)?))
        };
        let object = u32::try_from(number(&bytes[0..6])?).ok()?;
        let file = number(&bytes[6..9])?;
        let block = u32::try_from(number(&bytes[9..15])?).ok()?;
        let slot = u16::try_from(number(&bytes[15..18])?).ok()?;
        if file != SYSTEM_FILE as u64 || slot as usize >= SLOTS_MAX {
            return None;
        }
        Some((object, RowId { block, slot }))
    }
}

/// A row piece as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowPiece {
    pub flags: u8,
    pub xid: u64,
    pub uba: u64,
    pub data: Vec<u8>,
}

impl RowPiece {
    /// The head of a migrated row: versioning here, data at `target`.
    pub fn forwarding(xid: u64, uba: u64, target: RowId) -> RowPiece {
        RowPiece {
            flags: ROW_FORWARDED,
            xid,
            uba,
            data: target.to_u64().to_le_bytes().to_vec(),
        }
    }

    /// The data of a migrated row, tagged with its head's xid and uba.
    pub fn migrated(xid: u64, uba: u64, data: Vec<u8>) -> RowPiece {
        RowPiece {
            flags: ROW_MIGRATED,
            xid,
            uba,
            data,
        }
    }

    /// A migrated piece left behind by the change (xid, uba): kept until no reader can
    /// still hold a copy of the head that leads here.
    pub fn orphan(xid: u64, uba: u64) -> RowPiece {
        RowPiece {
            flags: ROW_MIGRATED | ROW_DELETED,
            xid,
            uba,
            data: Vec::new(),
        }
    }

    pub fn is_deleted(&self) -> bool {
        self.flags & ROW_DELETED != 0
    }

    /// Whether this is the data of a row whose head is elsewhere (not a row of its block).
    pub fn is_migrated(&self) -> bool {
        self.flags & ROW_MIGRATED != 0
    }

    /// Where the data of a migrated row is, when this is its head.
    pub fn forward_address(&self) -> Option<RowId> {
        if self.flags & ROW_FORWARDED == 0 || self.is_migrated() {
            return None;
        }
        let bytes: [u8; FORWARD_BYTES] = self.data.get(..FORWARD_BYTES)?.try_into().ok()?;
        Some(RowId::from_u64(u64::from_le_bytes(bytes)))
    }

    fn stored_bytes(&self) -> usize {
        piece_bytes(self.data.len())
    }
}

/// Bytes a piece with `data_bytes` of data occupies in a block (invariant 2).
fn piece_bytes(data_bytes: usize) -> usize {
    ROW_HEADER_BYTES + data_bytes.max(FORWARD_BYTES)
}

/// Largest row data that fits in an empty block of this size.
pub fn row_bytes_max(block_size: usize) -> usize {
    block_size - DIRECTORY - 2 - ROW_HEADER_BYTES
}

/// Formats a heap block of the segment whose header is block `segment_header`.
pub fn format(block: &mut [u8], id: BlockId, object_id: u32, segment_header: u32) {
    block::format(block, id, BlockType::HeapData, object_id);
    set_data_start(block, block.len());
    block::write_u32(block, OFFSET_SEGMENT_HEADER, segment_header);
}

/// The block number of the header of the segment this block belongs to.
pub fn segment_header(block: &[u8]) -> u32 {
    block::read_u32(block, OFFSET_SEGMENT_HEADER)
}

/// The block rows of this block last migrated into (0: none).
pub fn migration_target(block: &[u8]) -> u32 {
    block::read_u32(block, OFFSET_MIGRATION_TARGET)
}

pub fn set_migration_target(block: &mut [u8], target: u32) {
    block::write_u32(block, OFFSET_MIGRATION_TARGET, target);
}

fn data_start(block: &[u8]) -> usize {
    match block::read_u16(block, OFFSET_DATA_START) as usize {
        // A 32 KiB block stores its end as 0 (it does not fit in u16).
        0 => block.len(),
        start => start,
    }
}

fn set_data_start(block: &mut [u8], start: usize) {
    block::write_u16(
        block,
        OFFSET_DATA_START,
        if start == block.len() {
            0
        } else {
            start as u16
        },
    );
}

pub fn slot_count(block: &[u8]) -> usize {
    block::read_u16(block, OFFSET_SLOT_COUNT) as usize
}

fn slot_offset(block: &[u8], slot: usize) -> usize {
    block::read_u16(block, DIRECTORY + slot * 2) as usize
}

fn directory_end(block: &[u8]) -> usize {
    DIRECTORY + slot_count(block) * 2
}

/// Contiguous free bytes between the directory and the row data.
fn contiguous_free(block: &[u8]) -> usize {
    data_start(block).saturating_sub(directory_end(block))
}

/// Free bytes after a compaction.
pub fn free_bytes(block: &[u8]) -> usize {
    contiguous_free(block) + block::read_u16(block, OFFSET_RECLAIMABLE) as usize
}

fn stored_length(block: &[u8], offset: usize) -> usize {
    piece_bytes(block::read_u16(block, offset + 17) as usize)
}

/// Reads the piece in `slot` whatever its kind, or None for an unused slot.
pub fn read(block: &[u8], slot: u16) -> Result<Option<RowPiece>> {
    Ok(read_ref(block, slot)?.map(PieceRef::to_owned))
}

/// A row piece read in place: its data borrowed from the block, for readers that decode
/// what they need under the buffer's latch instead of copying the row out.
#[derive(Clone, Copy, Debug)]
pub struct PieceRef<'a> {
    pub flags: u8,
    pub xid: u64,
    pub uba: u64,
    pub data: &'a [u8],
}

impl PieceRef<'_> {
    /// A plain row: not deleted, not forwarded, not a migrated piece.
    pub fn is_plain(&self) -> bool {
        self.flags & (ROW_DELETED | ROW_FORWARDED | ROW_MIGRATED) == 0
    }

    pub fn is_migrated(&self) -> bool {
        self.flags & ROW_MIGRATED != 0
    }

    pub fn to_owned(self) -> RowPiece {
        RowPiece {
            flags: self.flags,
            xid: self.xid,
            uba: self.uba,
            data: self.data.to_vec(),
        }
    }
}

/// `read` without the copy: the piece in `slot`, borrowed from the block.
pub fn read_ref(block: &[u8], slot: u16) -> Result<Option<PieceRef<'_>>> {
    let slot = slot as usize;
    if block::block_type(block) != BlockType::HeapData || slot >= slot_count(block) {
        return Ok(None);
    }
    let offset = slot_offset(block, slot);
    if offset == 0 {
        return Ok(None);
    }
    if offset < directory_end(block) || offset + ROW_HEADER_BYTES > block.len() {
        return Err(Error::internal(format!(
            "heap slot {slot} points outside its block"
        )));
    }
    let length = block::read_u16(block, offset + 17) as usize;
    if offset + piece_bytes(length) > block.len() {
        return Err(Error::internal(format!(
            "heap row in slot {slot} runs past its block"
        )));
    }
    let data_offset = offset + ROW_HEADER_BYTES;
    Ok(Some(PieceRef {
        flags: block[offset],
        xid: block::read_u64(block, offset + 1),
        uba: block::read_u64(block, offset + 9),
        data: &block[data_offset..data_offset + length],
    }))
}

/// Rewrites the rows contiguously at the end of the block (slots keep their numbers).
fn compact(block: &mut [u8]) {
    let count = slot_count(block);
    let mut rows: Vec<(usize, Vec<u8>)> = Vec::with_capacity(count);
    for slot in 0..count {
        let offset = slot_offset(block, slot);
        if offset != 0 {
            let length = stored_length(block, offset);
            rows.push((slot, block[offset..offset + length].to_vec()));
        }
    }
    let mut end = block.len();
    for (slot, bytes) in rows {
        end -= bytes.len();
        block[end..end + bytes.len()].copy_from_slice(&bytes);
        block::write_u16(block, DIRECTORY + slot * 2, end as u16);
    }
    let directory = directory_end(block);
    block[directory..end].fill(0);
    set_data_start(block, end);
    block::write_u16(block, OFFSET_RECLAIMABLE, 0);
}

fn write_piece(block: &mut [u8], offset: usize, piece: &RowPiece) {
    block[offset] = piece.flags;
    block::write_u64(block, offset + 1, piece.xid);
    block::write_u64(block, offset + 9, piece.uba);
    block::write_u16(block, offset + 17, piece.data.len() as u16);
    let data_offset = offset + ROW_HEADER_BYTES;
    block[data_offset..data_offset + piece.data.len()].copy_from_slice(&piece.data);
    block[data_offset + piece.data.len()..offset + piece.stored_bytes()].fill(0);
}

/// Room to reserve per block for rows to grow by updates (Oracle's PCTFREE 10).
pub fn pctfree_bytes(block_size: usize) -> usize {
    block_size / 10
}

/// Whether an insert of `piece` fits, keeping `reserve` bytes free.
pub fn fits(block: &[u8], data_bytes: usize, reserve: usize) -> bool {
    let reuses_slot = (0..slot_count(block)).any(|slot| slot_offset(block, slot) == 0);
    let directory_growth = if reuses_slot { 0 } else { 2 };
    free_bytes(block) >= piece_bytes(data_bytes) + directory_growth + reserve
        && (reuses_slot || slot_count(block) < SLOTS_MAX)
}

/// Whether `replace` of the piece in `slot` by one with `data_bytes` of data would succeed.
pub fn fits_replacement(block: &[u8], slot: u16, data_bytes: usize) -> bool {
    let slot = slot as usize;
    if slot >= slot_count(block) || slot_offset(block, slot) == 0 {
        return false;
    }
    let old_length = stored_length(block, slot_offset(block, slot));
    let new_length = piece_bytes(data_bytes);
    new_length <= old_length || free_bytes(block) + old_length >= new_length
}

/// Inserts a row piece into a new slot. Returns the slot, or None when it does not fit.
pub fn insert(block: &mut [u8], piece: &RowPiece, reserve: usize) -> Option<u16> {
    if !fits(block, piece.data.len(), reserve) {
        return None;
    }
    let count = slot_count(block);
    let slot = (0..count)
        .find(|&slot| slot_offset(block, slot) == 0)
        .unwrap_or(count);
    let directory_growth = if slot == count { 2 } else { 0 };
    // Compact first: a new directory entry may only take bytes that are free.
    if contiguous_free(block) < piece.stored_bytes() + directory_growth {
        compact(block);
    }
    if slot == count {
        block::write_u16(block, OFFSET_SLOT_COUNT, (count + 1) as u16);
        block::write_u16(block, DIRECTORY + slot * 2, 0);
    }
    let offset = data_start(block) - piece.stored_bytes();
    write_piece(block, offset, piece);
    set_data_start(block, offset);
    block::write_u16(block, DIRECTORY + slot * 2, offset as u16);
    Some(slot as u16)
}

/// Replaces the piece in `slot` (any size). Returns false when the new piece does not fit in
/// this block even after compaction; the block is then unchanged.
pub fn replace(block: &mut [u8], slot: u16, piece: &RowPiece) -> Result<bool> {
    let slot = slot as usize;
    let offset = slot_offset(block, slot);
    if slot >= slot_count(block) || offset == 0 {
        return Err(Error::internal(format!(
            "heap replace of unused slot {slot}"
        )));
    }
    if let Some(span) = in_place_span(block, slot as u16, piece) {
        let freed = replace_in_place(&mut block[span], piece);
        add_reclaimable(&mut block[RECLAIMABLE], freed);
        return Ok(true);
    }
    let old_length = stored_length(block, offset);
    let new_length = piece.stored_bytes();
    if free_bytes(block) + old_length < new_length {
        return Ok(false);
    }
    // Release the old piece, then place the new one.
    add_reclaimable(&mut block[RECLAIMABLE], old_length);
    block::write_u16(block, DIRECTORY + slot * 2, 0);
    block[offset..offset + old_length].fill(0);
    if contiguous_free(block) < new_length {
        compact(block);
    }
    let new_offset = data_start(block) - new_length;
    write_piece(block, new_offset, piece);
    set_data_start(block, new_offset);
    block::write_u16(block, DIRECTORY + slot * 2, new_offset as u16);
    Ok(true)
}

/// The block's count of reclaimable bytes (dead space until the next compaction).
pub const RECLAIMABLE: std::ops::Range<usize> = OFFSET_RECLAIMABLE..OFFSET_RECLAIMABLE + 2;

/// Where `replace` writes `piece` over the piece in `slot` without moving anything: the old
/// piece's bytes, when the new one fits in them. None when it must move, or when the slot is
/// unused (`replace` says so).
pub fn in_place_span(block: &[u8], slot: u16, piece: &RowPiece) -> Option<std::ops::Range<usize>> {
    let slot = slot as usize;
    if slot >= slot_count(block) {
        return None;
    }
    let offset = slot_offset(block, slot);
    if offset == 0 {
        return None;
    }
    let old_length = stored_length(block, offset);
    (piece.stored_bytes() <= old_length).then_some(offset..offset + old_length)
}

/// Writes `piece` over `old`, an old piece's bytes (`in_place_span`), zeroing the tail it no
/// longer uses. Returns the bytes freed, for [`add_reclaimable`].
pub fn replace_in_place(old: &mut [u8], piece: &RowPiece) -> usize {
    write_piece(old, 0, piece);
    let new_length = piece.stored_bytes();
    old[new_length..].fill(0);
    old.len() - new_length
}

/// Adds `freed` bytes to a block's reclaimable count (`counter`: the block's
/// [`RECLAIMABLE`] bytes).
pub fn add_reclaimable(counter: &mut [u8], freed: usize) {
    if freed > 0 {
        let reclaimable = block::read_u16(counter, 0) as usize + freed;
        block::write_u16(counter, 0, reclaimable as u16);
    }
}

/// Frees a slot entirely (rollback of an insert, purge of a dead tombstone).
pub fn remove(block: &mut [u8], slot: u16) {
    let slot = slot as usize;
    if slot >= slot_count(block) {
        return;
    }
    let offset = slot_offset(block, slot);
    if offset == 0 {
        return;
    }
    let length = stored_length(block, offset);
    block[offset..offset + length].fill(0);
    block::write_u16(block, DIRECTORY + slot * 2, 0);
    let reclaimable = block::read_u16(block, OFFSET_RECLAIMABLE) as usize + length;
    block::write_u16(block, OFFSET_RECLAIMABLE, reclaimable as u16);
}

/// The rows of a block: every used slot whose piece is a row head (plain, tombstone or
/// forwarding), with its piece. Migrated pieces are left out: they belong to rows whose
/// ROWID is in another slot, and a scan meets those rows there.
pub fn pieces(block: &[u8]) -> Result<Vec<(u16, RowPiece)>> {
    let mut result = all_pieces(block)?;
    result.retain(|(_, piece)| !piece.is_migrated());
    Ok(result)
}

/// Every used slot of a block with its piece, migrated pieces included.
pub fn all_pieces(block: &[u8]) -> Result<Vec<(u16, RowPiece)>> {
    if block::block_type(block) != BlockType::HeapData {
        return Ok(Vec::new());
    }
    let mut result = Vec::with_capacity(slot_count(block));
    for slot in 0..slot_count(block) as u16 {
        if let Some(piece) = read(block, slot)? {
            result.push((slot, piece));
        }
    }
    Ok(result)
}

/// Bytes the header and directory take: for tests and space accounting.
pub fn overhead_bytes(block: &[u8]) -> usize {
    directory_end(block) - BLOCK_HEADER_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn piece(data: &[u8], xid: u64) -> RowPiece {
        RowPiece {
            flags: 0,
            xid,
            uba: xid * 10,
            data: data.to_vec(),
        }
    }

    #[test]
    fn insert_read_replace_remove() {
        let mut block = vec![0u8; 2048];
        format(&mut block, BlockId::new(1, 9), 5, 8);
        let first = insert(&mut block, &piece(b"hello", 1), 0).unwrap();
        let second = insert(&mut block, &piece(b"world!", 2), 0).unwrap();
        assert_eq!((first, second), (0, 1));
        assert_eq!(read(&block, 1).unwrap().unwrap(), piece(b"world!", 2));
        assert!(replace(&mut block, 0, &piece(&[7u8; 300], 3)).unwrap());
        assert_eq!(read(&block, 0).unwrap().unwrap().data, vec![7u8; 300]);
        remove(&mut block, 0);
        assert_eq!(read(&block, 0).unwrap(), None);
        // A freed slot is reused: ROWIDs of live rows never move.
        assert_eq!(insert(&mut block, &piece(b"again", 4), 0), Some(0));
        assert_eq!(read(&block, 1).unwrap().unwrap(), piece(b"world!", 2));
    }

    #[test]
    fn full_block_refuses_and_compaction_recovers_dead_space() {
        let mut block = vec![0u8; 2048];
        format(&mut block, BlockId::new(1, 9), 5, 8);
        let mut slots = Vec::new();
        while let Some(slot) = insert(&mut block, &piece(&[1u8; 100], 1), 0) {
            slots.push(slot);
        }
        assert!(slots.len() >= 15);
        for slot in slots.iter().step_by(2) {
            remove(&mut block, *slot);
        }
        // Fragmented, but enough in total: the insert compacts.
        assert!(insert(&mut block, &piece(&[2u8; 200], 2), 0).is_some());
        for slot in slots.iter().skip(1).step_by(2) {
            assert_eq!(read(&block, *slot).unwrap().unwrap().data, vec![1u8; 100]);
        }
    }

    /// The bug: `insert` extended the row directory before compacting, so when fewer than
    /// two contiguous bytes were free (the rest of the free space being dead pieces), the
    /// new directory entry overwrote the flags and the xid's low byte of the lowest piece.
    /// A row shrunk to a forwarding head lost its forward flag and was read as its address.
    #[test]
    fn a_new_directory_entry_never_overwrites_the_lowest_piece() {
        let mut block = vec![0u8; 2048];
        format(&mut block, BlockId::new(1, 9), 5, 8);
        let big = insert(&mut block, &piece(&[1u8; 1000], 1), 0).unwrap();
        // Fill the contiguous space exactly, directory entry included.
        let filler_bytes = contiguous_free(&block) - 2 - ROW_HEADER_BYTES;
        let filler = insert(&mut block, &piece(&vec![2u8; filler_bytes], 2), 0).unwrap();
        assert_eq!(contiguous_free(&block), 0);
        // Dead space elsewhere: plenty of room, none of it contiguous.
        assert!(replace(&mut block, big, &piece(b"small", 3)).unwrap());
        let added = insert(&mut block, &piece(&[4u8; 100], 4), 0).unwrap();
        assert_eq!(added, 2);
        let kept = read(&block, filler).unwrap().unwrap();
        assert_eq!((kept.flags, kept.xid, kept.uba), (0, 2, 20));
        assert_eq!(kept.data, vec![2u8; filler_bytes]);
        assert_eq!(read(&block, big).unwrap().unwrap(), piece(b"small", 3));
        assert_eq!(read(&block, added).unwrap().unwrap(), piece(&[4u8; 100], 4));
    }

    #[test]
    fn format_names_the_segment_and_starts_without_a_migration_target() {
        let mut block = vec![0u8; 2048];
        format(&mut block, BlockId::new(1, 9), 5, 8);
        assert_eq!((segment_header(&block), migration_target(&block)), (8, 0));
        set_migration_target(&mut block, 12);
        assert_eq!(migration_target(&block), 12);
        assert_eq!(row_bytes_max(2048), 2048 - 48 - 2 - ROW_HEADER_BYTES);
        // The largest row fits an empty block, as a row and as a migrated piece.
        let largest = vec![3u8; row_bytes_max(2048)];
        assert!(insert(&mut block, &RowPiece::migrated(1, 2, largest), 0).is_some());
        assert_eq!(free_bytes(&block), 0);
    }

    #[test]
    fn scans_see_heads_and_tombstones_but_not_migrated_pieces() {
        let mut block = vec![0u8; 2048];
        format(&mut block, BlockId::new(1, 9), 5, 8);
        let target = RowId { block: 11, slot: 3 };
        let row = insert(&mut block, &piece(b"plain", 1), 0).unwrap();
        let head = insert(&mut block, &RowPiece::forwarding(2, 20, target), 0).unwrap();
        let migrated = insert(&mut block, &RowPiece::migrated(3, 30, b"data".to_vec()), 0).unwrap();
        let orphan = insert(&mut block, &RowPiece::orphan(4, 40), 0).unwrap();
        let heads: Vec<u16> = pieces(&block)
            .unwrap()
            .into_iter()
            .map(|(slot, _)| slot)
            .collect();
        assert_eq!(heads, vec![row, head]);
        assert_eq!(all_pieces(&block).unwrap().len(), 4);
        let read_head = read(&block, head).unwrap().unwrap();
        assert_eq!(read_head.forward_address(), Some(target));
        assert_eq!((read_head.xid, read_head.uba), (2, 20));
        assert!(!read_head.is_migrated() && !read_head.is_deleted());
        let read_migrated = read(&block, migrated).unwrap().unwrap();
        assert!(read_migrated.is_migrated() && !read_migrated.is_deleted());
        assert_eq!(read_migrated.forward_address(), None);
        assert_eq!(read_migrated.data, b"data");
        let read_orphan = read(&block, orphan).unwrap().unwrap();
        assert!(read_orphan.is_migrated() && read_orphan.is_deleted());
        assert_eq!(read(&block, row).unwrap().unwrap().forward_address(), None);
    }

    #[test]
    fn any_row_can_become_a_forwarding_head_in_place() {
        // Rows shorter than a forwarding address, packed until the block is full: each must
        // still turn into a head without needing a byte of free space.
        let mut block = vec![0u8; 2048];
        format(&mut block, BlockId::new(1, 9), 5, 8);
        let mut slots = Vec::new();
        while let Some(slot) = insert(&mut block, &piece(&[9], 1), 0) {
            slots.push(slot);
        }
        assert!(!fits(&block, 1, 0));
        for (index, slot) in slots.iter().enumerate() {
            assert!(fits_replacement(&block, *slot, FORWARD_BYTES));
            let target = RowId {
                block: 20,
                slot: index as u16,
            };
            assert!(replace(&mut block, *slot, &RowPiece::forwarding(2, 3, target)).unwrap());
            assert_eq!(
                read(&block, *slot).unwrap().unwrap().forward_address(),
                Some(target)
            );
        }
    }

    #[test]
    fn rowid_text_is_oracle_base64() {
        let rowid = RowId {
            block: 130,
            slot: 0,
        };
        assert_eq!(rowid.to_oracle_string(73), "AAAABJAABAAAACCAAA");
        assert_eq!(RowId::from_u64(rowid.to_u64()), rowid);
    }

    #[test]
    fn rowid_text_reads_back_and_malformed_text_is_refused() {
        let rowid = RowId {
            block: 70_000,
            slot: 41,
        };
        let text = rowid.to_oracle_string(1234);
        assert_eq!(RowId::from_oracle_string(&text), Some((1234, rowid)));
        assert_eq!(RowId::from_oracle_string("AAAABJAABAAAACCAA"), None);
        assert_eq!(RowId::from_oracle_string("AAAABJAABAAAACCAA*"), None);
        // Another datafile than the one this database has.
        assert_eq!(RowId::from_oracle_string("AAAABJAACAAAACCAAA"), None);
    }

    proptest! {
        /// The heap block against a vector of live rows, under random operations.
        #[test]
        fn block_matches_model(operations in prop::collection::vec((0u8..3, 0usize..40, 1usize..300), 1..200)) {
            let mut block = vec![0u8; 4096];
            format(&mut block, BlockId::new(1, 3), 1, 2);
            let mut model: Vec<Option<Vec<u8>>> = Vec::new();
            for (index, (operation, target, length)) in operations.into_iter().enumerate() {
                let data = vec![(index % 251) as u8; length];
                match operation {
                    0 => {
                        if let Some(slot) = insert(&mut block, &piece(&data, 1), 0) {
                            let slot = slot as usize;
                            if slot >= model.len() { model.resize(slot + 1, None); }
                            prop_assert!(model[slot].is_none());
                            model[slot] = Some(data);
                        }
                    }
                    1 if target < model.len() && model[target].is_some() => {
                        let fits = fits_replacement(&block, target as u16, data.len());
                        let replaced = replace(&mut block, target as u16, &piece(&data, 2)).unwrap();
                        prop_assert_eq!(fits, replaced);
                        if replaced {
                            model[target] = Some(data);
                        }
                    }
                    2 if target < model.len() => {
                        remove(&mut block, target as u16);
                        model[target] = None;
                    }
                    _ => {}
                }
                for (slot, expected) in model.iter().enumerate() {
                    let actual = read(&block, slot as u16).unwrap().map(|piece| piece.data);
                    prop_assert_eq!(&actual, expected);
                }
            }
        }
    }
}
