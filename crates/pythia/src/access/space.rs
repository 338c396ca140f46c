//! Space management of the system datafile: a locally managed tablespace with a bitmap.
//!
//! ```text
//! system01.dbf
//!   block 0                      file header
//!   blocks 1 ..= bitmap_blocks   space bitmap: one bit per allocation unit of 8 blocks
//!   the rest                     extents of segments
//! ```
//!
//! File header body (after the common 32-byte header):
//! ```text
//!  32  8 magic "PYTHDATA"
//!  40  8 database id
//!  48  4 db_block_size
//!  52  4 bitmap blocks
//!  56  4 bootstrap segment header: the block of the first dictionary segment (DICT$)
//! ```
//! Bitmap block body: from byte 40, one bit per unit (bit set = allocated), unit `u` of block
//! `k` covers `(k - 1) * bits_per_block + u`.
//!
//! Extents are runs of whole units. The file may hold at most `DATAFILE_BLOCKS_MAX` blocks
//! (Oracle's limit for a smallfile tablespace): allocation beyond it fails with ORA-01653.
//! Allocation and release are mini-transactions on the bitmap blocks, so they are logged and
//! recovered like any other change; the 'list of block allocation' latch keeps two sessions from
//! picking the same free run.

use crate::buffer::{AccessKind, BufferPool};
use crate::error::{Error, Result};
use crate::instrumentation::{Latch, LatchName};
use crate::io::block::{self, BlockId, BlockType};
use crate::io::datafile::SYSTEM_FILE;
use crate::redo::mtr::Mtr;

/// Blocks per allocation unit (one bit of the bitmap).
pub const UNIT_BLOCKS: u32 = 8;
/// Most blocks in one datafile (Oracle: 4194303 for a smallfile tablespace).
pub const DATAFILE_BLOCKS_MAX: u32 = 4 * 1024 * 1024;
const BITMAP_BODY: usize = 40;
pub const FILE_MAGIC: &[u8; 8] = b"PYTHDATA";
pub const OFFSET_BOOTSTRAP: usize = 56;

pub struct SpaceManager {
    block_size: usize,
    bitmap_blocks: u32,
    /// Guards the search for free runs; holds the unit where the last search ended.
    allocation: Latch<u32>,
}

impl SpaceManager {
    pub fn new(block_size: usize) -> SpaceManager {
        let bits_per_block = ((block_size - BITMAP_BODY) * 8) as u32;
        let units = DATAFILE_BLOCKS_MAX / UNIT_BLOCKS;
        let bitmap_blocks = units.div_ceil(bits_per_block);
        SpaceManager {
            block_size,
            bitmap_blocks,
            allocation: Latch::new(LatchName::ListOfBlockAllocation, 0),
        }
    }

    fn bits_per_block(&self) -> u32 {
        ((self.block_size - BITMAP_BODY) * 8) as u32
    }

    /// The first block that extents may use: after the header and the bitmap, rounded up to
    /// a unit boundary.
    pub fn first_data_block(&self) -> u32 {
        (1 + self.bitmap_blocks).div_ceil(UNIT_BLOCKS) * UNIT_BLOCKS
    }

    /// Formats the file header and bitmap of a new database, marking the units that hold the
    /// header and bitmap as used.
    pub fn format(&self, mtr: &mut Mtr, database_id: u64) -> Result<()> {
        let header = mtr.new_block(BlockId::new(SYSTEM_FILE, 0), BufferPool::Default)?;
        let data = mtr.block(header);
        block::format(data, BlockId::new(SYSTEM_FILE, 0), BlockType::FileHeader, 0);
        data[32..40].copy_from_slice(FILE_MAGIC);
        block::write_u64(data, 40, database_id);
        block::write_u32(data, 48, self.block_size as u32);
        block::write_u32(data, 52, self.bitmap_blocks);
        for number in 1..=self.bitmap_blocks {
            let held = mtr.new_block(BlockId::new(SYSTEM_FILE, number), BufferPool::Default)?;
            block::format(
                mtr.block(held),
                BlockId::new(SYSTEM_FILE, number),
                BlockType::SpaceBitmap,
                0,
            );
        }
        let reserved_units = self.first_data_block() / UNIT_BLOCKS;
        for unit in 0..reserved_units {
            self.set_unit(mtr, unit, true)?;
        }
        Ok(())
    }

    fn unit_position(&self, unit: u32) -> (BlockId, usize, u8) {
        let bits = self.bits_per_block();
        let block = 1 + unit / bits;
        let bit = unit % bits;
        (
            BlockId::new(SYSTEM_FILE, block),
            BITMAP_BODY + (bit / 8) as usize,
            1 << (bit % 8),
        )
    }

    fn set_unit(&self, mtr: &mut Mtr, unit: u32, used: bool) -> Result<()> {
        let (id, byte, mask) = self.unit_position(unit);
        let held = mtr.get(id, AccessKind::Lookup)?;
        let data = mtr.block(held);
        if used {
            data[byte] |= mask;
        } else {
            data[byte] &= !mask;
        }
        Ok(())
    }

    fn unit_used(&self, mtr: &mut Mtr, unit: u32) -> Result<bool> {
        let (id, byte, mask) = self.unit_position(unit);
        let held = mtr.get(id, AccessKind::Lookup)?;
        Ok(mtr.block_ref(held)[byte] & mask != 0)
    }

    /// Allocates a run of `blocks` blocks (a multiple of the unit) and returns its first
    /// block. ORA-01653 when the file has no such run left.
    pub fn allocate(&self, mtr: &mut Mtr, blocks: u32) -> Result<u32> {
        assert!(
            blocks > 0 && blocks.is_multiple_of(UNIT_BLOCKS),
            "extents are whole units"
        );
        let needed = blocks / UNIT_BLOCKS;
        let total_units = DATAFILE_BLOCKS_MAX / UNIT_BLOCKS;
        let mut hint = self.allocation.lock();
        let first_unit = self.first_data_block() / UNIT_BLOCKS;
        // Two passes: from the hint to the end, then from the start (freed space).
        for (from, to) in [
            ((*hint).max(first_unit), total_units),
            (first_unit, total_units),
        ] {
            let mut run_start = from;
            let mut run_length = 0;
            let mut unit = from;
            while unit < to {
                if self.unit_used(mtr, unit)? {
                    run_length = 0;
                    run_start = unit + 1;
                } else {
                    run_length += 1;
                    if run_length == needed {
                        for used in run_start..run_start + needed {
                            self.set_unit(mtr, used, true)?;
                        }
                        *hint = run_start + needed;
                        return Ok(run_start * UNIT_BLOCKS);
                    }
                }
                unit += 1;
            }
        }
        Err(Error::new(
            1653,
            format!("unable to extend segment by {blocks} in tablespace SYSTEM"),
        ))
    }

    /// Returns a run of blocks to the free space.
    pub fn release(&self, mtr: &mut Mtr, first_block: u32, blocks: u32) -> Result<()> {
        let _hint = self.allocation.lock();
        for unit in first_block / UNIT_BLOCKS..(first_block + blocks) / UNIT_BLOCKS {
            self.set_unit(mtr, unit, false)?;
        }
        Ok(())
    }

    /// Blocks the bitmap marks allocated: the file header and bitmap, and every extent of
    /// every segment. Reads each bitmap block once, outside any mini-transaction (a snapshot
    /// of a moving figure while sessions allocate).
    pub fn allocated_blocks(&self, cache: &crate::buffer::BufferCache) -> Result<u64> {
        let mut units = 0u64;
        for number in 1..=self.bitmap_blocks {
            let data = cache.read(BlockId::new(SYSTEM_FILE, number), AccessKind::Lookup)?;
            let body = &data[BITMAP_BODY..self.block_size];
            units += body
                .iter()
                .map(|byte| byte.count_ones() as u64)
                .sum::<u64>();
        }
        Ok(units * UNIT_BLOCKS as u64)
    }

    /// The bootstrap pointer stored in the file header.
    pub fn set_bootstrap(&self, mtr: &mut Mtr, segment_header: u32) -> Result<()> {
        let held = mtr.get(BlockId::new(SYSTEM_FILE, 0), AccessKind::Lookup)?;
        block::write_u32(mtr.block(held), OFFSET_BOOTSTRAP, segment_header);
        Ok(())
    }

    pub fn bootstrap(&self, cache: &crate::buffer::BufferCache) -> Result<u32> {
        let header = cache.read(BlockId::new(SYSTEM_FILE, 0), AccessKind::Lookup)?;
        if &header[32..40] != FILE_MAGIC {
            return Err(Error::new(
                1122,
                "database file 1 failed verification check: not a Pythia datafile",
            ));
        }
        if block::read_u32(&header, 48) as usize != self.block_size {
            return Err(Error::new(
                209,
                format!(
                    "control file blocksize mismatch: datafile has db_block_size {}, instance uses {}",
                    block::read_u32(&header, 48),
                    self.block_size
                ),
            ));
        }
        Ok(block::read_u32(&header, OFFSET_BOOTSTRAP))
    }
}
