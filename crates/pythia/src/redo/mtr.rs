//! The mini-transaction: the unit of atomic change to blocks, and of redo.
//!
//! Every change to a block is made inside a mini-transaction (mtr, InnoDB's name for Oracle's
//! "redo record with its change vectors"):
//!
//! 1. `get` / `new_block` take each block in exclusive mode (a db block get) and keep a copy
//!    of its content as it was (a block clean when taken is copied only if handed out whole;
//!    `range_mut` saves the old bytes of the ranges it hands out instead);
//! 2. the caller edits the blocks freely (heap rows, B-tree entries, undo records, ...):
//!    a whole block through `block`, or parts of it through `range_mut`;
//! 3. `commit` compares each block with its copy (only inside the ranges `range_mut` handed
//!    out, for a block changed only through it), writes the changed byte ranges as one redo
//!    record into the log buffer, stamps each block with the record's LSN, marks it dirty and
//!    only then releases the blocks.
//!
//! So redo never depends on what kind of block was changed: the B-tree, the heap and undo
//! need no redo code of their own, and recovery replays exactly the bytes that changed.
//! Atomicity: a mini-transaction dropped without `commit` (an error half way through) puts
//! every block back as it was, so a block is never left changed without redo.
//! Latch order: blocks are taken in the order the caller asks; callers take data blocks before
//! undo blocks, and B-tree blocks top-down, so two mini-transactions never wait on each other
//! in a cycle.

use std::ops::Range;
use std::sync::Arc;

use crate::buffer::{BlockAccess, BlockWrite, BufferCache, BufferPool, HolderImage};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic};
use crate::io::block::{BlockId, BLOCK_SIZE_MAX};
use crate::redo::log::RedoLog;
use crate::redo::record::{RecordBuilder, Window};

/// Most blocks one mini-transaction may hold (a B-tree split up the whole tree stays far
/// below this).
pub const MTR_BLOCKS_MAX: usize = 64;

/// What a block formatted anew is diffed against (recovery zeroes it before applying its
/// ranges).
static ZEROS: [u8; BLOCK_SIZE_MAX] = [0; BLOCK_SIZE_MAX];

/// Most separate ranges of one block [`Mtr::range_mut`] keeps apart; past them the block is
/// diffed whole.
pub const MTR_BLOCK_RANGES_MAX: usize = 4;

/// Where a mini-transaction's caller may have changed a held block.
enum Changed {
    /// Only inside these ranges (sorted, apart), handed out by `range_mut`.
    Ranges {
        ranges: [Range<usize>; MTR_BLOCK_RANGES_MAX],
        count: usize,
    },
    /// Anywhere: `block` or `two_blocks` handed the block out whole, or it is new.
    Whole,
}

impl Changed {
    const NOTHING: Changed = Changed::Ranges {
        ranges: [0..0, 0..0, 0..0, 0..0],
        count: 0,
    };

    /// Adds `range`, merged with the ranges it overlaps or touches; whole once more than
    /// [`MTR_BLOCK_RANGES_MAX`] stay apart.
    fn add(&mut self, range: Range<usize>) {
        let Changed::Ranges { ranges, count } = self else {
            return;
        };
        let mut merged = range;
        let mut kept: [Range<usize>; MTR_BLOCK_RANGES_MAX] = [0..0, 0..0, 0..0, 0..0];
        let mut kept_count = 0;
        for existing in &ranges[..*count] {
            if existing.end < merged.start || merged.end < existing.start {
                kept[kept_count] = existing.clone();
                kept_count += 1;
            } else {
                merged = merged.start.min(existing.start)..merged.end.max(existing.end);
            }
        }
        if kept_count == MTR_BLOCK_RANGES_MAX {
            *self = Changed::Whole;
            return;
        }
        kept[kept_count] = merged;
        kept_count += 1;
        kept[..kept_count].sort_by_key(|range| range.start);
        *ranges = kept;
        *count = kept_count;
    }
}

struct HeldBlock<'a> {
    guard: BlockWrite<'a>,
    /// The whole block as of its last logged change. Taken by `get` when the buffer is dirty
    /// (DBWR may want to write it while it is held: it is published as the holder image, see
    /// `BlockWrite::set_holder_image`), else only when `block` or `two_blocks` hands the
    /// block out whole. None while a block that was clean is changed only through
    /// `range_mut`, which saves the old bytes of each range instead (`Mtr::saved`).
    before: Option<Arc<[u8]>>,
    /// Clean when taken: its datafile image is the block as of its last logged change.
    clean: bool,
    init: bool,
    /// Where the caller may have changed it: `commit` diffs only there.
    changed: Changed,
}

impl HeldBlock<'_> {
    /// Withdraws what `get` or `new_block` published for DBWR: only a block with a copy can
    /// have published one (a copy `block` took later was never published; withdrawing
    /// nothing is harmless).
    fn withdraw_holder_image(&self) {
        if self.before.is_some() {
            self.guard.set_holder_image(None);
        }
    }

    /// The whole copy, taken now if it was not: the content is still as of the last logged
    /// change wherever `range_mut` did not hand bytes out, and `saved` holds those.
    fn take_copy(&mut self, index: usize, saved: &Saved) {
        if self.before.is_none() {
            let mut copy: Vec<u8> = self.guard[..].to_vec();
            saved.restore(index, &mut copy);
            self.before = Some(copy.into());
        }
    }
}

/// The old bytes of the ranges `range_mut` handed out of blocks with no whole copy, in the
/// order it handed them out.
#[derive(Default)]
struct Saved {
    /// (block index, offset in the block, start in `bytes`, length)
    ranges: Vec<(usize, usize, usize, usize)>,
    bytes: Vec<u8>,
}

impl Saved {
    fn save(&mut self, index: usize, offset: usize, old: &[u8]) {
        self.ranges
            .push((index, offset, self.bytes.len(), old.len()));
        self.bytes.extend_from_slice(old);
    }

    /// Puts block `index`'s saved bytes back into `content` (the block's bytes from offset
    /// `base` on), the latest first, so that the oldest, the bytes as of the last logged
    /// change, win.
    fn restore_within(&self, index: usize, base: usize, content: &mut [u8]) {
        for &(block, offset, start, length) in self.ranges.iter().rev() {
            if block != index {
                continue;
            }
            let from = offset.max(base);
            let to = (offset + length).min(base + content.len());
            if from < to {
                let old = &self.bytes[start + (from - offset)..start + (to - offset)];
                content[from - base..to - base].copy_from_slice(old);
            }
        }
    }

    fn restore(&self, index: usize, content: &mut [u8]) {
        self.restore_within(index, 0, content);
    }
}

pub struct Mtr<'a> {
    cache: &'a BufferCache,
    blocks: Vec<HeldBlock<'a>>,
    saved: Saved,
    committed: bool,
}

/// A handle on a block held by a mini-transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held(usize);

impl<'a> Mtr<'a> {
    pub fn new(cache: &'a BufferCache) -> Mtr<'a> {
        Mtr {
            cache,
            blocks: Vec::new(),
            saved: Saved::default(),
            committed: false,
        }
    }

    pub fn cache(&self) -> &'a BufferCache {
        self.cache
    }

    fn find(&self, id: BlockId) -> Option<Held> {
        self.blocks
            .iter()
            .position(|held| held.guard.id() == id)
            .map(Held)
    }

    /// Takes a block in exclusive mode for change (once per mini-transaction).
    pub fn get(&mut self, id: BlockId, access: impl Into<BlockAccess>) -> Result<Held> {
        if let Some(held) = self.find(id) {
            return Ok(held);
        }
        self.check_capacity()?;
        let guard = self.cache.write(id, access)?;
        // A dirty buffer is copied now and the copy published for DBWR, which may have to
        // write it while it is held. A clean one needs no image: DBWR does not write it, and
        // its datafile image is the block as of its last logged change.
        let clean = !guard.is_dirty();
        let before = (!clean).then(|| {
            let before: Arc<[u8]> = guard[..].into();
            guard.set_holder_image(Some(HolderImage::Before(before.clone())));
            before
        });
        self.blocks.push(HeldBlock {
            guard,
            before,
            clean,
            init: false,
            changed: Changed::NOTHING,
        });
        Ok(Held(self.blocks.len() - 1))
    }

    /// Takes a block that is being formatted anew: its old content is irrelevant, and redo
    /// says so (recovery zeroes the block before applying the change). A block not cached
    /// gets a buffer of `pool`, its segment's (DEFAULT for undo and space blocks).
    pub fn new_block(&mut self, id: BlockId, pool: BufferPool) -> Result<Held> {
        if let Some(held) = self.find(id) {
            let index = held.0;
            let block = &mut self.blocks[index];
            // The old content stays the copy: an abandoned mini-transaction puts it back.
            block.take_copy(index, &self.saved);
            block.init = true;
            block.changed = Changed::Whole;
            block.guard.fill(0);
            block.guard.set_holder_image(Some(HolderImage::Dead));
            return Ok(held);
        }
        self.check_capacity()?;
        let guard = self.cache.new_block(id, pool)?;
        guard.set_holder_image(Some(HolderImage::Dead));
        let before: Arc<[u8]> = vec![0u8; guard.len()].into();
        self.blocks.push(HeldBlock {
            guard,
            before: Some(before),
            clean: false,
            init: true,
            changed: Changed::Whole,
        });
        Ok(Held(self.blocks.len() - 1))
    }

    fn check_capacity(&self) -> Result<()> {
        if self.blocks.len() >= MTR_BLOCKS_MAX {
            return Err(Error::internal(format!(
                "mini-transaction holds more than {MTR_BLOCKS_MAX} blocks"
            )));
        }
        Ok(())
    }

    /// The whole block for change: `commit` then diffs all of it against its copy.
    pub fn block(&mut self, held: Held) -> &mut [u8] {
        let block = &mut self.blocks[held.0];
        block.take_copy(held.0, &self.saved);
        block.changed = Changed::Whole;
        &mut block.guard
    }

    /// `range` of the block for change. A block changed only through `range_mut` is diffed
    /// only inside the ranges it handed out (a slot of the transaction table, an undo record
    /// and its block's counters, a row updated in place), and a block that was clean is not
    /// copied whole: the old bytes of each range are saved instead.
    pub fn range_mut(&mut self, held: Held, range: Range<usize>) -> &mut [u8] {
        let block = &mut self.blocks[held.0];
        if block.before.is_none() {
            self.saved
                .save(held.0, range.start, &block.guard[range.clone()]);
        }
        block.changed.add(range.clone());
        if matches!(block.changed, Changed::Whole) {
            // Past MTR_BLOCK_RANGES_MAX apart: diffed whole, so copied whole (the range just
            // saved is put back in the copy).
            block.take_copy(held.0, &self.saved);
        }
        &mut block.guard[range]
    }

    pub fn block_ref(&self, held: Held) -> &[u8] {
        &self.blocks[held.0].guard
    }

    pub fn id(&self, held: Held) -> BlockId {
        self.blocks[held.0].guard.id()
    }

    /// Two distinct held blocks at once (a split moves entries from one to the other).
    pub fn two_blocks(&mut self, first: Held, second: Held) -> (&mut [u8], &mut [u8]) {
        assert_ne!(first.0, second.0, "two_blocks needs two different blocks");
        for index in [first.0, second.0] {
            self.blocks[index].take_copy(index, &self.saved);
            self.blocks[index].changed = Changed::Whole;
        }
        if first.0 < second.0 {
            let (low, high) = self.blocks.split_at_mut(second.0);
            (&mut low[first.0].guard, &mut high[0].guard)
        } else {
            let (low, high) = self.blocks.split_at_mut(first.0);
            (&mut high[0].guard, &mut low[second.0].guard)
        }
    }

    /// Logs every change as one redo record, stamps the blocks and releases them. Returns the
    /// LSN just past the record (what a commit waits for), or the current end of redo when
    /// nothing changed.
    pub fn commit(mut self, log: &RedoLog, scn: u64, flags: u16) -> Result<u64> {
        // From here on the latched content is what counts: DBWR may no longer write the
        // before images (the append-wait callback below covers the rest).
        for held in &self.blocks {
            held.withdraw_holder_image();
        }
        let mut builder = RecordBuilder::new(scn, flags);
        // Per block: whether it changed (a vector was pushed), so that it is compared once.
        let mut changed = [false; MTR_BLOCKS_MAX];
        for (index, (held, changed)) in self.blocks.iter().zip(changed.iter_mut()).enumerate() {
            let (id, after) = (held.guard.id(), &held.guard[..]);
            *changed = match (&held.changed, &held.before) {
                (Changed::Whole, Some(before)) => {
                    // An init block is replayed onto zeros, so it is diffed against zeros:
                    // its copy is what it held before (for an abandon), which for a block
                    // held and then formatted anew here is not zeros.
                    let before = if held.init {
                        &ZEROS[..after.len()]
                    } else {
                        &before[..]
                    };
                    builder.push_vector(id, before, after, held.init)
                }
                (Changed::Ranges { ranges, count }, Some(before)) => {
                    builder.push_vector_within(id, before, after, held.init, &ranges[..*count])
                }
                (Changed::Ranges { ranges, count }, None) => {
                    // The ranges' bytes before: what they hold now, with the saved bytes put
                    // back.
                    let olds: Vec<Vec<u8>> = ranges[..*count]
                        .iter()
                        .map(|range| {
                            let mut old = after[range.clone()].to_vec();
                            self.saved.restore_within(index, range.start, &mut old);
                            old
                        })
                        .collect();
                    let windows = ranges[..*count]
                        .iter()
                        .zip(&olds)
                        .map(|(range, old)| Window {
                            base: range.start,
                            before: old,
                            after: &after[range.clone()],
                        });
                    builder.push_vector_of(id, held.init, windows)
                }
                (Changed::Whole, None) => unreachable!("a block handed out whole has its copy"),
            };
        }
        if builder.vector_count() == 0 {
            self.committed = true;
            return Ok(log.current_lsn());
        }
        instrumentation::add(Statistic::DbBlockChanges, builder.vector_count() as u64);
        let record = builder.finish();
        let floor = log.current_lsn();
        for (held, _) in self
            .blocks
            .iter_mut()
            .zip(changed)
            .filter(|(_, changed)| *changed)
        {
            held.guard.mark_dirty_from(floor);
        }
        let blocks = &mut self.blocks;
        let (lsn, end) = log.append_with(&record, &mut |target| {
            // About to wait for a log-switch checkpoint while holding these blocks: DBWR
            // cannot write them, so write what the checkpoint needs of them here. A block
            // new here, or clean when taken (its datafile image is as of its last logged
            // change already), needs nothing written.
            let floor = log.current_lsn().max(target + 1);
            for held in blocks.iter_mut() {
                let before = match &held.before {
                    Some(before) if !held.init && !held.clean => Some(&before[..]),
                    _ => None,
                };
                held.guard.write_before_image(before, floor)?;
            }
            Ok(())
        })?;
        for (held, _) in self
            .blocks
            .iter_mut()
            .zip(changed)
            .filter(|(_, changed)| *changed)
        {
            held.guard.mark_changed(lsn);
        }
        self.committed = true;
        Ok(end)
    }
}

impl Drop for Mtr<'_> {
    fn drop(&mut self) {
        for held in &self.blocks {
            held.withdraw_holder_image();
        }
        if !self.committed {
            // Abandoned half way: no redo describes the edits, so undo them in memory.
            for (index, held) in self.blocks.iter_mut().enumerate() {
                match &held.before {
                    Some(before) => held.guard.copy_from_slice(before),
                    None => self.saved.restore(index, &mut held.guard),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(changed: &Changed) -> Option<Vec<Range<usize>>> {
        match changed {
            Changed::Ranges { ranges, count } => Some(ranges[..*count].to_vec()),
            Changed::Whole => None,
        }
    }

    #[test]
    fn changed_ranges_merge_when_they_touch_and_turn_whole_past_the_limit() {
        let mut changed = Changed::NOTHING;
        changed.add(100..132);
        changed.add(44..46);
        changed.add(46..48); // touches 44..46
        changed.add(120..140); // overlaps 100..132
        assert_eq!(ranges(&changed), Some(vec![44..48, 100..140]));
        changed.add(200..210);
        changed.add(0..8);
        assert_eq!(
            ranges(&changed),
            Some(vec![0..8, 44..48, 100..140, 200..210])
        );
        changed.add(40..50); // merges into 44..48: still four
        assert_eq!(
            ranges(&changed),
            Some(vec![0..8, 40..50, 100..140, 200..210])
        );
        changed.add(300..301); // a fifth apart
        assert_eq!(ranges(&changed), None);
        changed.add(0..1);
        assert_eq!(ranges(&changed), None, "whole stays whole");
    }
}
