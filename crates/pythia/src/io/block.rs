//! The common block header shared by every block of every datafile.
//!
//! Every block starts with the same 32-byte header; the block type says how the rest is laid
//! out (heap, B-tree, segment header, undo, ...). The layout, byte by byte (little endian):
//!
//! ```text
//! offset size field
//!      0    4 checksum      CRC-32C of bytes 4..block_size, computed when the block is written
//!      4    1 block_type    BlockType as u8 (0 = never formatted)
//!      5    1 format        FORMAT_VERSION
//!      6    2 flags         reserved, 0
//!      8    4 block_number  the block's own number: catches misdirected reads and writes
//!     12    4 file_number   the file's number (1 = system01.dbf, 2 = undotbs01.dbf)
//!     16    8 lsn           redo address (log sequence number) of the last change applied
//!     24    4 object_id     data object id of the owning segment, 0 when none
//!     28    4 reserved      0
//! ```
//!
//! Invariants:
//! 1. A block on disk either is all zeros (never written) or passes its checksum and names
//!    itself (file, block). Anything else is corruption and is reported as ORA-01578.
//! 2. The checksum and the LSN fields are owned by the I/O path and the mini-transaction:
//!    code that edits a block's body never writes them (redo diffs exclude them).

use crate::error::{Error, Result};

/// Size of the common header at the start of every block.
pub const BLOCK_HEADER_BYTES: usize = 32;
pub const FORMAT_VERSION: u8 = 2;
/// Smallest and largest db_block_size, as Oracle.
pub const BLOCK_SIZE_MIN: usize = 2048;
pub const BLOCK_SIZE_MAX: usize = 32768;

pub const OFFSET_CHECKSUM: usize = 0;
pub const OFFSET_BLOCK_TYPE: usize = 4;
pub const OFFSET_FORMAT: usize = 5;
pub const OFFSET_BLOCK_NUMBER: usize = 8;
pub const OFFSET_FILE_NUMBER: usize = 12;
pub const OFFSET_LSN: usize = 16;
pub const OFFSET_OBJECT_ID: usize = 24;

/// Byte ranges of the header that are not part of redo diffs (the I/O path owns them).
pub fn is_io_owned(offset: usize) -> bool {
    (OFFSET_CHECKSUM..OFFSET_CHECKSUM + 4).contains(&offset)
        || (OFFSET_LSN..OFFSET_LSN + 8).contains(&offset)
}

/// The address of a block: file number and block number within the file (Oracle's DBA).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId {
    pub file: u32,
    pub block: u32,
}

impl BlockId {
    pub const fn new(file: u32, block: u32) -> BlockId {
        BlockId { file, block }
    }

    /// Packs the address into one u64 (file in the high half).
    pub fn to_u64(self) -> u64 {
        (self.file as u64) << 32 | self.block as u64
    }

    pub fn from_u64(value: u64) -> BlockId {
        BlockId {
            file: (value >> 32) as u32,
            block: value as u32,
        }
    }
}

impl std::fmt::Display for BlockId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "file# {} block# {}", self.file, self.block)
    }
}

/// What a block holds. The numbers are stored on disk: never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockType {
    Unformatted = 0,
    FileHeader = 1,
    SpaceBitmap = 2,
    SegmentHeader = 3,
    HeapData = 4,
    BtreeLeaf = 5,
    BtreeBranch = 6,
    UndoHeader = 7,
    UndoData = 8,
}

impl BlockType {
    pub fn from_u8(value: u8) -> Option<BlockType> {
        Some(match value {
            0 => BlockType::Unformatted,
            1 => BlockType::FileHeader,
            2 => BlockType::SpaceBitmap,
            3 => BlockType::SegmentHeader,
            4 => BlockType::HeapData,
            5 => BlockType::BtreeLeaf,
            6 => BlockType::BtreeBranch,
            7 => BlockType::UndoHeader,
            8 => BlockType::UndoData,
            _ => return None,
        })
    }

    /// Oracle's block class names, as v$bh and v$waitstat show them.
    pub fn class_name(self) -> &'static str {
        match self {
            BlockType::Unformatted => "free",
            BlockType::FileHeader => "file header block",
            BlockType::SpaceBitmap => "bitmap block",
            BlockType::SegmentHeader => "segment header",
            BlockType::HeapData | BlockType::BtreeLeaf | BlockType::BtreeBranch => "data block",
            BlockType::UndoHeader => "undo header",
            BlockType::UndoData => "undo block",
        }
    }
}

pub fn read_u16(block: &[u8], offset: usize) -> u16 {
    u16::from_le_bytes(block[offset..offset + 2].try_into().unwrap())
}
pub fn read_u32(block: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(block[offset..offset + 4].try_into().unwrap())
}
pub fn read_u64(block: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(block[offset..offset + 8].try_into().unwrap())
}
pub fn write_u16(block: &mut [u8], offset: usize, value: u16) {
    block[offset..offset + 2].copy_from_slice(&value.to_le_bytes());
}
pub fn write_u32(block: &mut [u8], offset: usize, value: u32) {
    block[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}
pub fn write_u64(block: &mut [u8], offset: usize, value: u64) {
    block[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
}

pub fn block_type(block: &[u8]) -> BlockType {
    BlockType::from_u8(block[OFFSET_BLOCK_TYPE]).unwrap_or(BlockType::Unformatted)
}

pub fn lsn(block: &[u8]) -> u64 {
    read_u64(block, OFFSET_LSN)
}

pub fn set_lsn(block: &mut [u8], lsn: u64) {
    write_u64(block, OFFSET_LSN, lsn)
}

pub fn object_id(block: &[u8]) -> u32 {
    read_u32(block, OFFSET_OBJECT_ID)
}

/// Clears a block and writes a fresh header. The LSN is left 0: the mini-transaction that
/// formats the block sets it when it commits.
pub fn format(block: &mut [u8], id: BlockId, block_type: BlockType, object_id: u32) {
    block.fill(0);
    block[OFFSET_BLOCK_TYPE] = block_type as u8;
    block[OFFSET_FORMAT] = FORMAT_VERSION;
    write_u32(block, OFFSET_BLOCK_NUMBER, id.block);
    write_u32(block, OFFSET_FILE_NUMBER, id.file);
    write_u32(block, OFFSET_OBJECT_ID, object_id);
}

/// Stamps the checksum before a write. Pairs with [`verify`] on read.
pub fn seal(block: &mut [u8]) {
    let checksum = crc32c::crc32c(&block[4..]);
    write_u32(block, OFFSET_CHECKSUM, checksum);
}

/// Checks a block read from disk: all zeros (never written) is fine; otherwise the checksum
/// must match and the block must name itself. Returns ORA-01578 for anything else.
pub fn verify(block: &[u8], id: BlockId) -> Result<()> {
    let stored = read_u32(block, OFFSET_CHECKSUM);
    if stored == 0 && block.iter().all(|&byte| byte == 0) {
        return Ok(());
    }
    let computed = crc32c::crc32c(&block[4..]);
    if stored != computed
        || read_u32(block, OFFSET_BLOCK_NUMBER) != id.block
        || read_u32(block, OFFSET_FILE_NUMBER) != id.file
        || block[OFFSET_FORMAT] != FORMAT_VERSION
    {
        return Err(Error::block_corrupted(id.file, id.block));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_block_verifies_and_any_flipped_bit_is_caught() {
        let id = BlockId::new(1, 7);
        let mut block = vec![0u8; 2048];
        format(&mut block, id, BlockType::HeapData, 42);
        block[100] = 9;
        seal(&mut block);
        verify(&block, id).unwrap();
        for position in [4usize, 9, 100, 2047] {
            let mut damaged = block.clone();
            damaged[position] ^= 1;
            assert_eq!(
                verify(&damaged, id).unwrap_err().code(),
                1578,
                "flip at {position}"
            );
        }
        // A correct block read at the wrong address is also corruption (misdirected I/O).
        assert_eq!(verify(&block, BlockId::new(1, 8)).unwrap_err().code(), 1578);
    }

    #[test]
    fn all_zero_block_is_a_never_written_block() {
        verify(&vec![0u8; 4096], BlockId::new(1, 3)).unwrap();
    }
}
