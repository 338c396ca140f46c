//! Full scans of a segment: the order a scan gets its blocks in, and the multiblock reads
//! that bring the uncached ones into the cache ahead of those gets.
//!
//! ```text
//!   extents   [h 1 2 3 4 5 6 7] [8 9 10 ... 15] [16 ............ 143] ...
//!              h: the segment header, not scanned
//!   windows     |1 ...... 7|     |8 ...... 15|   |16 .. 23|24 .. 31| ...
//!              at most db_file_multiblock_read_count blocks, never across an extent's end
//!   runs       a window's uncached blocks, split at cached ones: one I/O each
//!              window 16..23 with 19 cached:  [16 17 18] (19) [20 21 22 23]
//!                                              one read        one read
//! ```
//!
//! When the scan reaches the first block of a window, [`BufferCache::prefetch`] reads the
//! window's uncached blocks (a run of two or more is 'db file scattered read', p3 its blocks;
//! a run of one 'db file sequential read'); then the scan gets each block of the window with
//! an ordinary consistent get, which finds it cached. The blocks enter the cache as the scan's
//! [`BlockAccess`] places them (`BufferCache::scan_access`: the cold end for a large table
//! that is not CACHE, the midpoint otherwise), in the pool of the segment.
//!
//! Windows follow Oracle's: a multiblock read starts at the scan's position in an extent and
//! never crosses the extent's end, even when the next extent follows on disk. A window is
//! further capped by the cache ([`BufferCache::read_run_blocks_max`]: a quarter of the pool's
//! smallest working set), so that one read never pins a small pool whole.
//!
//! A block prefetched and aged out again before the scan gets it (other sessions' reads
//! filled its working set meanwhile) is read again by that get, alone: correct, only slower.

use crate::buffer::{BlockAccess, BufferCache};
use crate::error::Result;
use crate::instrumentation::{self, Statistic};
use crate::io::block::BlockId;

/// A full scan's walk through a segment's used blocks (`segment::used_extents`), reading
/// ahead `db_file_multiblock_read_count` blocks at a time.
pub struct FullScan<'c> {
    cache: &'c BufferCache,
    access: BlockAccess,
    /// Blocks per window: `db_file_multiblock_read_count`, capped by the pool.
    window_blocks_max: u32,
    extents: Vec<(BlockId, u32)>,
    /// The next block: its extent (an index of `extents`) and its offset in it.
    extent: usize,
    offset: u32,
    /// Offsets of the current extent below this one have been read ahead.
    read_ahead_to: u32,
    /// The current window's blocks (kept to reuse its allocation).
    window: Vec<BlockId>,
}

impl<'c> FullScan<'c> {
    /// A scan of `extents` (as `segment::used_extents` gives them) reading its blocks with
    /// `access`, `multiblock_read_count` blocks per read at most (1: every block alone).
    pub fn new(
        cache: &'c BufferCache,
        extents: Vec<(BlockId, u32)>,
        access: BlockAccess,
        multiblock_read_count: usize,
    ) -> FullScan<'c> {
        let window_blocks_max = multiblock_read_count
            .min(cache.read_run_blocks_max(access.pool))
            .max(1);
        FullScan {
            cache,
            access,
            window_blocks_max: u32::try_from(window_blocks_max).unwrap_or(u32::MAX),
            extents,
            extent: 0,
            offset: 0,
            read_ahead_to: 0,
            window: Vec::with_capacity(window_blocks_max),
        }
    }

    /// Blocks in the whole scan.
    pub fn blocks(extents: &[(BlockId, u32)]) -> usize {
        extents.iter().map(|(_, count)| *count as usize).sum()
    }

    /// How the scan reads its blocks.
    pub fn access(&self) -> BlockAccess {
        self.access
    }

    /// The next block to get (counted in `table scan blocks gotten`), after reading its window
    /// into the cache when it begins one; None at the end of the segment.
    pub fn next_block(&mut self) -> Result<Option<BlockId>> {
        loop {
            let Some(&(first, count)) = self.extents.get(self.extent) else {
                return Ok(None);
            };
            if self.offset >= count {
                self.extent += 1;
                self.offset = 0;
                self.read_ahead_to = 0;
                continue;
            }
            if self.offset >= self.read_ahead_to {
                let end = count.min(self.offset.saturating_add(self.window_blocks_max));
                self.window.clear();
                self.window.extend(
                    (first.block + self.offset..first.block + end)
                        .map(|number| BlockId::new(first.file, number)),
                );
                self.cache.prefetch(&self.window, self.access)?;
                self.read_ahead_to = end;
            }
            let block = BlockId::new(first.file, first.block + self.offset);
            self.offset += 1;
            instrumentation::add(Statistic::TableScanBlocksGotten, 1);
            return Ok(Some(block));
        }
    }
}
