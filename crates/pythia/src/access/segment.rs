//! Segments: the space of one table or index, a list of extents under a header block.
//!
//! The first block of a segment's first extent is its header. Body layout (after the common
//! 32-byte header, little endian):
//!
//! ```text
//!  32  4 extent count
//!  36  4 high water mark: blocks of the segment handed out so far (the header included)
//!  40  4 kind            1 heap table, 2 B-tree index
//!  44  4 root            B-tree: the root block (never moves); heap: 0
//!  48  8 reserved
//!  56    extents: (first block u32, block count u32) repeated
//! ```
//!
//! Blocks are handed out in extent order below the high water mark. Extent sizes grow like
//! Oracle's AUTOALLOCATE: 16 extents of 8 blocks, then 63 of 128, then 1024-block extents.
//! A segment holds at most as many extents as fit in its header (ORA-01631 beyond).

use crate::access::space::SpaceManager;
use crate::buffer::{AccessKind, BufferCache, BufferPool};
use crate::error::{Error, Result};
use crate::io::block::{self, BlockId, BlockType};
use crate::io::datafile::SYSTEM_FILE;
use crate::redo::mtr::Mtr;

const OFFSET_EXTENT_COUNT: usize = 32;
const OFFSET_HIGH_WATER_MARK: usize = 36;
const OFFSET_KIND: usize = 40;
pub const OFFSET_ROOT: usize = 44;
const OFFSET_EXTENTS: usize = 56;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum SegmentKind {
    Heap = 1,
    Btree = 2,
}

/// Blocks in the n-th extent (0-based).
pub fn extent_blocks(index: u32) -> u32 {
    match index {
        0..=15 => 8,
        16..=78 => 128,
        _ => 1024,
    }
}

fn extents_max(block_size: usize) -> u32 {
    ((block_size - OFFSET_EXTENTS) / 8) as u32
}

/// Creates a segment: allocates its first extent, formats the header (in a buffer of
/// `pool`, the segment's). Returns the header.
pub fn create(
    mtr: &mut Mtr,
    space: &SpaceManager,
    object_id: u32,
    kind: SegmentKind,
    pool: BufferPool,
) -> Result<BlockId> {
    let first = space.allocate(mtr, extent_blocks(0))?;
    let id = BlockId::new(SYSTEM_FILE, first);
    let held = mtr.new_block(id, pool)?;
    let data = mtr.block(held);
    block::format(data, id, BlockType::SegmentHeader, object_id);
    block::write_u32(data, OFFSET_EXTENT_COUNT, 1);
    block::write_u32(data, OFFSET_HIGH_WATER_MARK, 1);
    block::write_u32(data, OFFSET_KIND, kind as u32);
    block::write_u32(data, OFFSET_EXTENTS, first);
    block::write_u32(data, OFFSET_EXTENTS + 4, extent_blocks(0));
    Ok(id)
}

/// Hands out the next block of the segment (allocating an extent when the current ones are
/// used up), reading its header into `pool`, the segment's. The caller formats the block with
/// `mtr.new_block` in the same pool.
pub fn allocate_block(
    mtr: &mut Mtr,
    space: &SpaceManager,
    header: BlockId,
    pool: BufferPool,
) -> Result<BlockId> {
    let held = mtr.get(header, AccessKind::Lookup.in_pool(pool))?;
    let data = mtr.block_ref(held);
    let extent_count = block::read_u32(data, OFFSET_EXTENT_COUNT);
    let high_water_mark = block::read_u32(data, OFFSET_HIGH_WATER_MARK);
    // Find the extent holding block number `high_water_mark` of the segment.
    let mut seen = 0;
    for index in 0..extent_count {
        let offset = OFFSET_EXTENTS + index as usize * 8;
        let first = block::read_u32(data, offset);
        let count = block::read_u32(data, offset + 4);
        if high_water_mark < seen + count {
            let block_number = first + (high_water_mark - seen);
            block::write_u32(mtr.block(held), OFFSET_HIGH_WATER_MARK, high_water_mark + 1);
            return Ok(BlockId::new(SYSTEM_FILE, block_number));
        }
        seen += count;
    }
    if extent_count >= extents_max(data.len()) {
        return Err(Error::new(
            1631,
            format!("max # extents ({extent_count}) reached in segment at {header}"),
        ));
    }
    let blocks = extent_blocks(extent_count);
    let first = space.allocate(mtr, blocks)?;
    let data = mtr.block(held);
    let offset = OFFSET_EXTENTS + extent_count as usize * 8;
    block::write_u32(data, offset, first);
    block::write_u32(data, offset + 4, blocks);
    block::write_u32(data, OFFSET_EXTENT_COUNT, extent_count + 1);
    block::write_u32(data, OFFSET_HIGH_WATER_MARK, high_water_mark + 1);
    Ok(BlockId::new(SYSTEM_FILE, first))
}

/// The segment's extents, as (first block, block count), its header read into `pool`.
pub fn extents(cache: &BufferCache, header: BlockId, pool: BufferPool) -> Result<Vec<(u32, u32)>> {
    let data = cache.read(header, AccessKind::Lookup.in_pool(pool))?;
    Ok(read_extents(&data))
}

fn read_extents(data: &[u8]) -> Vec<(u32, u32)> {
    let count = block::read_u32(data, OFFSET_EXTENT_COUNT);
    (0..count)
        .map(|index| {
            let offset = OFFSET_EXTENTS + index as usize * 8;
            (
                block::read_u32(data, offset),
                block::read_u32(data, offset + 4),
            )
        })
        .collect()
}

/// Every block handed out so far, header excluded, in extent order (a full scan's path), the
/// header read into DEFAULT (DICT$'s pool; a segment of another pool: `used_extents`).
pub fn used_blocks(cache: &BufferCache, header: BlockId) -> Result<Vec<BlockId>> {
    Ok(used_extents(cache, header, BufferPool::Default)?
        .into_iter()
        .flat_map(|(first, count)| {
            (first.block..first.block + count).map(move |number| BlockId::new(first.file, number))
        })
        .collect())
}

/// The blocks handed out so far of each extent, header excluded, in extent order, as (first
/// block, blocks): a full scan's path, which its multiblock reads follow (a read never
/// crosses an extent's end, as in Oracle). The header is read into `pool`, its segment's.
pub fn used_extents(
    cache: &BufferCache,
    header: BlockId,
    pool: BufferPool,
) -> Result<Vec<(BlockId, u32)>> {
    let data = cache.read(header, AccessKind::Lookup.in_pool(pool))?;
    let high_water_mark = block::read_u32(&data, OFFSET_HIGH_WATER_MARK);
    let mut used = Vec::new();
    let mut remaining = high_water_mark;
    for (first, count) in read_extents(&data) {
        if remaining == 0 {
            break;
        }
        let take = remaining.min(count);
        remaining -= take;
        // The header is the first block of the first extent.
        let (first, take) = if first == header.block && header.file == SYSTEM_FILE {
            (first + 1, take - 1)
        } else {
            (first, take)
        };
        if take > 0 {
            used.push((BlockId::new(SYSTEM_FILE, first), take));
        }
    }
    Ok(used)
}

/// Total blocks in the segment's extents (dba_segments.blocks), its header read into `pool`.
pub fn allocated_blocks(cache: &BufferCache, header: BlockId, pool: BufferPool) -> Result<u64> {
    Ok(extents(cache, header, pool)?
        .iter()
        .map(|(_, count)| *count as u64)
        .sum())
}

/// The index root's block number, from the header read into `pool`.
pub fn root(cache: &BufferCache, header: BlockId, pool: BufferPool) -> Result<u32> {
    Ok(block::read_u32(
        &cache.read(header, AccessKind::Lookup.in_pool(pool))?,
        OFFSET_ROOT,
    ))
}

pub fn set_root(mtr: &mut Mtr, header: BlockId, root: u32) -> Result<()> {
    let held = mtr.get(header, AccessKind::Lookup)?;
    block::write_u32(mtr.block(held), OFFSET_ROOT, root);
    Ok(())
}

/// Frees every extent of the segment (DROP). The header goes with the first extent.
pub fn drop_segment(mtr: &mut Mtr, space: &SpaceManager, header: BlockId) -> Result<()> {
    let held = mtr.get(header, AccessKind::Lookup)?;
    let extents = read_extents(mtr.block_ref(held));
    for (first, count) in extents {
        space.release(mtr, first, count)?;
    }
    Ok(())
}

/// Keeps only the first extent and resets the high water mark (TRUNCATE), reading the header
/// into `pool`, the segment's. Returns the blocks released.
pub fn truncate(
    mtr: &mut Mtr,
    space: &SpaceManager,
    header: BlockId,
    pool: BufferPool,
) -> Result<u64> {
    let held = mtr.get(header, AccessKind::Lookup.in_pool(pool))?;
    let extents = read_extents(mtr.block_ref(held));
    let mut released = 0;
    for &(first, count) in extents.iter().skip(1) {
        space.release(mtr, first, count)?;
        released += count as u64;
    }
    let data = mtr.block(held);
    block::write_u32(data, OFFSET_EXTENT_COUNT, 1);
    block::write_u32(data, OFFSET_HIGH_WATER_MARK, 1);
    Ok(released)
}
