//! Undo: the transaction table and the undo records of the undo file, `undotbs01.dbf`.
//!
//! ```text
//! undotbs01.dbf
//!   block 0                        file header ("PYTHUNDO")
//!   blocks 1 ..= TX_TABLE_BLOCKS   transaction table (block 1 also holds the ring state)
//!   the rest                       undo blocks, used as a ring
//! ```
//!
//! Transaction table block body (block type 7):
//! ```text
//!  32  4 ring: next undo block to hand out   (block 1 only)
//!  36  4 ring: wrap count                    (block 1 only)
//!  48    slots of 32 bytes: xid u64 | state u8 | 7 reserved | current undo block u64 | commit SCN u64
//! ```
//! A slot's state is FREE, ACTIVE or COMMITTED. The current undo block is `block << 32 |
//! wrap`: the block the transaction writes its undo into now; recovery finds the transaction's
//! newest undo record there and walks the chain backwards.
//!
//! Undo block body (block type 8):
//! ```text
//!  32  8 owner xid         the newest transaction to write in the block
//!  40  4 wrap              the ring's wrap count when the block was handed out
//!  44  2 record count
//!  46  2 free offset       where the next record goes
//!  48    records
//! ```
//! Undo record:
//! ```text
//!   0  2 length            bytes of the whole record
//!   2  1 kind              UndoKind
//!   3  1 reserved
//!   4  4 object id         data object id of the table or index changed
//!   8  8 previous uba      the transaction's previous record (0: first)
//!  16  8 target            heap: ROWID; index, segment: segment header block
//!  24    payload           heap update/delete: flags u8, xid u64, uba u64, row bytes
//!                          index: rowid u64, key bytes
//!                          segment create, segment drop: none
//! ```
//! An undo block holds the undo of one transaction, or of consecutive transactions of one
//! transaction table slot: a slot's next transaction goes on writing in the block its last
//! one ended in (`adopt`), as Oracle's transactions go on in their undo segment's current
//! block, and becomes its owner. The records of the transactions before it stay, out of its
//! chain (each chain ends at its first record, previous uba 0). So a one-row transaction
//! costs a few hundred bytes of undo, not a block of its own: no block to take from the
//! ring, read back and write out for each commit.
//!
//! An undo block address (UBA) is `block << 32 | (wrap & 0xffff) << 16 | offset`. A reader
//! that finds a different wrap in the block knows the record was overwritten: ORA-01555.
//!
//! All changes to these blocks are mini-transactions, so undo is protected by redo exactly
//! like table data: after a crash, roll forward restores the undo that rollback then uses.

use crate::buffer::{AccessKind, BufferCache, BufferPool};
use crate::error::{Error, Result};
use crate::io::block::{self, BlockId, BlockType};
use crate::io::datafile::UNDO_FILE;
use crate::redo::mtr::Mtr;

pub const TX_TABLE_BLOCKS: u32 = 8;
pub const UNDO_MAGIC: &[u8; 8] = b"PYTHUNDO";
const SLOT_BYTES: usize = 32;
const SLOTS_START: usize = 48;
const OFFSET_RING_NEXT: usize = 32;
const OFFSET_RING_WRAP: usize = 36;

/// The ring's wrap count on its first pass through the undo file.
const FIRST_WRAP: u32 = 1;
const OFFSET_OWNER: usize = 32;
const OFFSET_WRAP: usize = 40;
const OFFSET_RECORD_COUNT: usize = 44;
const OFFSET_FREE: usize = 46;
const RECORDS_START: usize = 48;
pub const RECORD_HEADER_BYTES: usize = 24;

pub const SLOT_FREE: u8 = 0;
pub const SLOT_ACTIVE: u8 = 1;
pub const SLOT_COMMITTED: u8 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum UndoKind {
    HeapInsert = 1,
    HeapUpdate = 2,
    HeapDelete = 3,
    IndexInsert = 4,
    IndexDeleteMark = 5,
    /// A segment made by the transaction (DDL): its rollback frees it.
    SegmentCreate = 6,
    /// A segment the transaction frees when it commits (DDL): its rollback keeps it.
    SegmentDrop = 7,
}

impl UndoKind {
    fn from_u8(value: u8) -> Option<UndoKind> {
        Some(match value {
            1 => UndoKind::HeapInsert,
            2 => UndoKind::HeapUpdate,
            3 => UndoKind::HeapDelete,
            4 => UndoKind::IndexInsert,
            5 => UndoKind::IndexDeleteMark,
            6 => UndoKind::SegmentCreate,
            7 => UndoKind::SegmentDrop,
            _ => return None,
        })
    }
}

/// A decoded undo record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoRecord {
    pub kind: UndoKind,
    pub object_id: u32,
    pub previous_uba: u64,
    pub target: u64,
    pub payload: Vec<u8>,
}

impl UndoRecord {
    pub fn encode(&self) -> Vec<u8> {
        let length = RECORD_HEADER_BYTES + self.payload.len();
        let mut bytes = Vec::with_capacity(length);
        bytes.extend_from_slice(&(length as u16).to_le_bytes());
        bytes.push(self.kind as u8);
        bytes.push(0);
        bytes.extend_from_slice(&self.object_id.to_le_bytes());
        bytes.extend_from_slice(&self.previous_uba.to_le_bytes());
        bytes.extend_from_slice(&self.target.to_le_bytes());
        bytes.extend_from_slice(&self.payload);
        bytes
    }

    fn decode(bytes: &[u8]) -> Result<UndoRecord> {
        let corrupt = || Error::internal("corrupt undo record");
        if bytes.len() < RECORD_HEADER_BYTES {
            return Err(corrupt());
        }
        let length = block::read_u16(bytes, 0) as usize;
        if length < RECORD_HEADER_BYTES || length > bytes.len() {
            return Err(corrupt());
        }
        Ok(UndoRecord {
            kind: UndoKind::from_u8(bytes[2]).ok_or_else(corrupt)?,
            object_id: block::read_u32(bytes, 4),
            previous_uba: block::read_u64(bytes, 8),
            target: block::read_u64(bytes, 16),
            payload: bytes[RECORD_HEADER_BYTES..length].to_vec(),
        })
    }
}

pub fn make_uba(block: u32, wrap: u32, offset: usize) -> u64 {
    (block as u64) << 32 | ((wrap & 0xFFFF) as u64) << 16 | offset as u64
}

fn split_uba(uba: u64) -> (u32, u32, usize) {
    (
        (uba >> 32) as u32,
        ((uba >> 16) & 0xFFFF) as u32,
        (uba & 0xFFFF) as usize,
    )
}

/// Where a transaction's slot lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotAddress {
    pub block: u32,
    pub index: usize,
}

/// The layout of the undo file, computed from the block size and the file size.
#[derive(Clone, Copy, Debug)]
pub struct UndoLayout {
    pub block_size: usize,
    pub total_blocks: u32,
}

impl UndoLayout {
    pub fn slots_per_block(&self) -> usize {
        (self.block_size - SLOTS_START) / SLOT_BYTES
    }

    pub fn slot_count(&self) -> usize {
        self.slots_per_block() * TX_TABLE_BLOCKS as usize
    }

    pub fn slot_address(&self, slot: usize) -> SlotAddress {
        // Spread consecutive slots over the table blocks so that concurrent transactions
        // change different blocks.
        let blocks = TX_TABLE_BLOCKS as usize;
        SlotAddress {
            block: 1 + (slot % blocks) as u32,
            index: slot / blocks,
        }
    }

    pub fn first_ring_block(&self) -> u32 {
        1 + TX_TABLE_BLOCKS
    }

    /// Blocks in the ring.
    pub fn ring_blocks(&self) -> u32 {
        self.total_blocks.saturating_sub(self.first_ring_block())
    }

    /// Largest undo record a block can hold.
    pub fn record_bytes_max(&self) -> usize {
        self.block_size - RECORDS_START
    }
}

/// Formats a new undo file: header, empty transaction table, ring at its start.
pub fn format(mtr: &mut Mtr, layout: &UndoLayout) -> Result<()> {
    let id = BlockId::new(UNDO_FILE, 0);
    let held = mtr.new_block(id, BufferPool::Default)?;
    let data = mtr.block(held);
    block::format(data, id, BlockType::FileHeader, 0);
    data[32..40].copy_from_slice(UNDO_MAGIC);
    block::write_u32(data, 40, layout.total_blocks);
    for number in 1..=TX_TABLE_BLOCKS {
        let id = BlockId::new(UNDO_FILE, number);
        let held = mtr.new_block(id, BufferPool::Default)?;
        let data = mtr.block(held);
        block::format(data, id, BlockType::UndoHeader, 0);
        if number == 1 {
            block::write_u32(data, OFFSET_RING_NEXT, layout.first_ring_block());
            block::write_u32(data, OFFSET_RING_WRAP, FIRST_WRAP);
        }
    }
    Ok(())
}

/// A slot as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotState {
    pub xid: u64,
    pub state: u8,
    pub current_block: u64,
    pub commit_scn: u64,
}

impl SlotState {
    /// A slot no transaction holds: what a transaction's end, or recovery's rollback of it,
    /// writes.
    pub const FREE: SlotState = SlotState {
        xid: 0,
        state: SLOT_FREE,
        current_block: 0,
        commit_scn: 0,
    };
}

fn slot_offset(address: SlotAddress) -> usize {
    SLOTS_START + address.index * SLOT_BYTES
}

pub fn write_slot(mtr: &mut Mtr, address: SlotAddress, slot: SlotState) -> Result<()> {
    let held = mtr.get(BlockId::new(UNDO_FILE, address.block), AccessKind::Lookup)?;
    let offset = slot_offset(address);
    let data = mtr.range_mut(held, offset..offset + SLOT_BYTES);
    block::write_u64(data, 0, slot.xid);
    data[8] = slot.state;
    block::write_u64(data, 16, slot.current_block);
    block::write_u64(data, 24, slot.commit_scn);
    Ok(())
}

/// Reads every slot of the transaction table (recovery).
pub fn read_slots(cache: &BufferCache, layout: &UndoLayout) -> Result<Vec<(usize, SlotState)>> {
    let mut slots = Vec::new();
    for slot in 0..layout.slot_count() {
        let address = layout.slot_address(slot);
        let data = cache.read(BlockId::new(UNDO_FILE, address.block), AccessKind::Lookup)?;
        let offset = slot_offset(address);
        slots.push((
            slot,
            SlotState {
                xid: block::read_u64(&data, offset),
                state: data[offset + 8],
                current_block: block::read_u64(&data, offset + 16),
                commit_scn: block::read_u64(&data, offset + 24),
            },
        ));
    }
    Ok(slots)
}

/// Checks the undo file header of an existing database.
pub fn verify_header(cache: &BufferCache) -> Result<u32> {
    let data = cache.read(BlockId::new(UNDO_FILE, 0), AccessKind::Lookup)?;
    if &data[32..40] != UNDO_MAGIC {
        return Err(Error::new(
            1122,
            "database file 2 failed verification check: not a Pythia undo file",
        ));
    }
    Ok(block::read_u32(&data, 40))
}

/// Hands out the next undo block of the ring that `claim(block)` grants to `xid`, formatting
/// it, inside `mtr`. A block `claim` refuses (one an active transaction still writes in or
/// needs for its rollback) is skipped; when it refuses every block of the ring, ORA-30036
/// (the undo file is full of active undo).
///
/// Nothing of a refused or granted block is read: who needs a block is known in memory
/// (`TransactionManager`'s claims), so taking one costs no physical read and waits for no
/// block latch but the ring's.
pub fn allocate_block(
    mtr: &mut Mtr,
    layout: &UndoLayout,
    xid: u64,
    claim: &dyn Fn(u32) -> bool,
) -> Result<(u32, u32)> {
    let ring = mtr.get(BlockId::new(UNDO_FILE, 1), AccessKind::Lookup)?;
    let mut next = block::read_u32(mtr.block_ref(ring), OFFSET_RING_NEXT);
    let mut wrap = block::read_u32(mtr.block_ref(ring), OFFSET_RING_WRAP);
    let advance = |next: u32, wrap: u32| {
        if next + 1 >= layout.total_blocks {
            (layout.first_ring_block(), wrap + 1)
        } else {
            (next + 1, wrap)
        }
    };
    let mut tried = 0;
    while !claim(next) {
        tried += 1;
        if tried >= layout.ring_blocks() {
            return Err(Error::new(
                30036,
                format!(
                    "unable to extend segment by 1 in undo tablespace 'UNDOTBS1' ({} blocks)",
                    layout.total_blocks
                ),
            ));
        }
        (next, wrap) = advance(next, wrap);
    }
    let (following, following_wrap) = advance(next, wrap);
    let next_field = OFFSET_RING_NEXT..OFFSET_RING_NEXT + 4;
    block::write_u32(mtr.range_mut(ring, next_field), 0, following);
    let wrap_field = OFFSET_RING_WRAP..OFFSET_RING_WRAP + 4;
    block::write_u32(mtr.range_mut(ring, wrap_field), 0, following_wrap);
    let id = BlockId::new(UNDO_FILE, next);
    let held = mtr.new_block(id, BufferPool::Default)?;
    let data = mtr.block(held);
    block::format(data, id, BlockType::UndoData, 0);
    block::write_u64(data, OFFSET_OWNER, xid);
    block::write_u32(data, OFFSET_WRAP, wrap);
    block::write_u16(data, OFFSET_FREE, RECORDS_START as u16);
    Ok((next, wrap))
}

/// Makes `xid` the owner of undo block `block_number` (handed out at `wrap`, owned by
/// `previous` until now: the last transaction of the same slot), inside `mtr`, if a record
/// of `record_bytes` still fits in it. The caller holds the block's claim. Returns whether
/// it did; when not, the block is left as it was.
pub fn adopt(
    mtr: &mut Mtr,
    block_number: u32,
    wrap: u32,
    previous: u64,
    xid: u64,
    record_bytes: usize,
) -> Result<bool> {
    let held = mtr.get(BlockId::new(UNDO_FILE, block_number), AccessKind::Lookup)?;
    let data = mtr.block_ref(held);
    let fits = block::block_type(data) == BlockType::UndoData
        && block::read_u64(data, OFFSET_OWNER) == previous
        && block::read_u32(data, OFFSET_WRAP) == wrap
        && block::read_u16(data, OFFSET_FREE) as usize + record_bytes <= data.len();
    if fits {
        block::write_u64(mtr.range_mut(held, OFFSET_OWNER..OFFSET_OWNER + 8), 0, xid);
    }
    Ok(fits)
}

/// Appends a record to an undo block held in `mtr`. Returns its UBA, or None if it does not
/// fit (the caller allocates a new block).
pub fn append(mtr: &mut Mtr, block_number: u32, record: &[u8]) -> Result<Option<u64>> {
    let held = mtr.get(BlockId::new(UNDO_FILE, block_number), AccessKind::Lookup)?;
    let data = mtr.block_ref(held);
    let free = block::read_u16(data, OFFSET_FREE) as usize;
    if free + record.len() > data.len() {
        return Ok(None);
    }
    let count = block::read_u16(data, OFFSET_RECORD_COUNT);
    let wrap = block::read_u32(data, OFFSET_WRAP);
    mtr.range_mut(held, free..free + record.len())
        .copy_from_slice(record);
    let end = (free + record.len()) as u16;
    block::write_u16(mtr.range_mut(held, OFFSET_FREE..OFFSET_FREE + 2), 0, end);
    let counter = OFFSET_RECORD_COUNT..OFFSET_RECORD_COUNT + 2;
    block::write_u16(mtr.range_mut(held, counter), 0, count + 1);
    Ok(Some(make_uba(block_number, wrap, free)))
}

/// Reads the record at `uba`: ORA-01555 when its block has been reused since.
pub fn read(cache: &BufferCache, uba: u64) -> Result<UndoRecord> {
    let (block_number, wrap, offset) = split_uba(uba);
    let data = cache.read(BlockId::new(UNDO_FILE, block_number), AccessKind::Lookup)?;
    if block::block_type(&data) != BlockType::UndoData
        || block::read_u32(&data, OFFSET_WRAP) & 0xFFFF != wrap
    {
        return Err(Error::snapshot_too_old());
    }
    if offset < RECORDS_START || offset >= data.len() {
        return Err(Error::internal(format!(
            "undo address {uba:#x} outside its block"
        )));
    }
    UndoRecord::decode(&data[offset..])
}

/// The newest record in an undo block owned by `xid` (recovery's entry into the chain).
pub fn last_record_in_block(
    cache: &BufferCache,
    current_block: u64,
    xid: u64,
) -> Result<Option<u64>> {
    let (block_number, wrap) = ((current_block >> 32) as u32, current_block as u32);
    if block_number == 0 {
        return Ok(None);
    }
    let data = cache.read(BlockId::new(UNDO_FILE, block_number), AccessKind::Lookup)?;
    if block::block_type(&data) != BlockType::UndoData
        || block::read_u64(&data, OFFSET_OWNER) != xid
        || block::read_u32(&data, OFFSET_WRAP) != wrap
    {
        return Ok(None);
    }
    let count = block::read_u16(&data, OFFSET_RECORD_COUNT);
    let mut offset = RECORDS_START;
    let mut last = None;
    for _ in 0..count {
        last = Some(make_uba(block_number, wrap, offset));
        offset += block::read_u16(&data, offset) as usize;
    }
    Ok(last)
}

/// The owner and wrap of an undo block as `block << 32 | wrap` for the slot's current block.
pub fn current_block_tag(block_number: u32, wrap: u32) -> u64 {
    (block_number as u64) << 32 | wrap as u64
}
