//! The cache advice's miniature touch-count caches: the misses of 20 cache sizes for a working
//! set aged by the touch count, simulated at once (Waldspurger et al., "Cache Modeling and
//! Optimization using Miniature Simulations", USENIX ATC 2017).
//!
//! The touch count is not a stack algorithm: a cache of c + 1 buffers does not always hold
//! what one of c holds (which blocks are hot depends on the hot region's size), so Mattson's
//! one list cannot answer every size as it does for LRU (`buffer/advice.rs`). A miniature
//! simulation runs one small cache per size instead, fed the same spatially sampled gets
//! (blocks whose hash falls in 1/sample_factor of the hash space), each of
//! size/sample_factor buffers: a sampled block sees its own gets, at their own seconds, so its
//! touches count as they would in the full cache, and the miniature's misses scaled by the
//! sample factor estimate the full cache's.
//!
//! ```text
//!   sampled get (block, kind, second)
//!     |  one hash operation: the block's slot, created if new
//!     v
//!   slot: block | frame in size 0.1 | 0.2 | ... | 2.0 | held (bit per size) | touch times
//!     held at every size, and every touch within _db_aging_touch_time of its last counted
//!     one? --yes--> a hit at every size that changes nothing (most gets of a hot block)
//!     | no: for each of the 20 miniature caches (AgingLists + TouchCounts, the cache's own)
//!     v
//!   held: a touch (counted or not, as the cache counts it)
//!   not held: a miss at that size; a free frame, or the replacement scan's victim (whose
//!             slot forgets that size, and goes when no size holds its block); the block
//!             enters at the midpoint (the cold end for a scan) with its first touch
//! ```
//!
//! The caches run the cache's own touch count: the hot and cold lists, the replacement scan
//! and the counting of touches are `buffer/touch_count.rs`'s, with the pool's aging
//! parameters and the gets' clock seconds, so a miniature at sample factor 1 misses exactly as
//! a replay of the same gets through the cache's policy does (a test checks it).
//!
//! **One hash table for the 20 sizes.** Each block held by any size has one slot naming its
//! frame in each; a frame names its slot, so an eviction clears the victim's slot without a
//! second hash operation. A get costs one hash operation, then either the shortcut above or a
//! pass over the 20 caches: a touch check where held, a replacement scan where not.
//!
//! **Memory**, bounded by the sizes: a working set of B buffers sampled 1 in f has miniatures
//! of 0.1 B/f, 0.2 B/f, ... 2.0 B/f buffers, 21 B/f in all, each frame 29 bytes (list links
//! 17, touch count and time 8, its slot 4): 21 x 29 / f bytes per buffer of the set, 152 at
//! f = 4. A slot (104 bytes, and 20-40 in the hash table) lives only while some size holds
//! its block, so there are at most 21 B/f of them (656 bytes per buffer at f = 4, at the very
//! worst), and in practice a little more than the largest size's 2 B/f, the sizes mostly
//! holding the same blocks (1.03-1.13 times on the tests' trace): about 2 x 125 / f bytes per
//! buffer, 65 at f = 4. Allocated while the advice is READY or ON.
//!
//! Invariants:
//! 1. A slot's bit for a size is set exactly when that size's cache holds the block in the
//!    frame the slot names, and that frame names the slot.
//! 2. A slot exists exactly while some size holds its block.
//! 3. A cache holds at most its size of blocks.

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use crate::buffer::advice::ADVICE_SIZES;
use crate::buffer::policy::{AccessKind, FrameId};
use crate::buffer::touch_count::{touch_counts, AgingLists, AgingParameters, TouchCounts};

/// No frame: the slot's block is not held at that size.
const NOWHERE: u32 = u32::MAX;

/// A block held by at least one miniature cache.
struct Slot {
    block: u64,
    /// Its frame in each size's cache, or NOWHERE.
    frames: [u32; ADVICE_SIZES],
    /// Bit i: size i holds it.
    held: u32,
    /// The earliest and latest of its frames' touch times (the last counted touch, or the
    /// load): while every one is within the touch time of now, a get changes nothing.
    oldest_touch: u32,
    newest_touch: u32,
}

/// One size's cache: the cache's own touch-count lists over `buffers` frames.
struct Miniature {
    buffers: usize,
    lists: AgingLists,
    counts: TouchCounts,
    /// The slot of the block each frame holds.
    slot_of_frame: Vec<u32>,
    /// Frames handed out so far; the others have never held a block.
    used: usize,
}

impl Miniature {
    fn new(buffers: usize, parameters: AgingParameters) -> Miniature {
        Miniature {
            buffers,
            lists: AgingLists::new(buffers, parameters),
            counts: TouchCounts::new(buffers, parameters.touch_time),
            slot_of_frame: vec![NOWHERE; buffers],
            used: 0,
        }
    }
}

/// The miniatures of one working set and the slots they share.
struct Caches {
    /// Per size, smallest first.
    sizes: Vec<Miniature>,
    slot_of: FxHashMap<u64, u32>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    /// The bits of the sizes that have a buffer: a slot with all of them is held everywhere.
    every_size: u32,
    /// Sizes of no buffer (the smallest of a working set of a few buffers), which miss every
    /// get: the first ones, sizes never decreasing.
    empty_sizes: usize,
    touch_time: u32,
}

impl Caches {
    fn new(sizes: &[usize; ADVICE_SIZES], parameters: AgingParameters) -> Caches {
        let largest = sizes[ADVICE_SIZES - 1];
        Caches {
            sizes: sizes
                .iter()
                .map(|&buffers| Miniature::new(buffers, parameters))
                .collect(),
            slot_of: FxHashMap::with_capacity_and_hasher(largest + 1, Default::default()),
            slots: Vec::with_capacity(largest + 1),
            free_slots: Vec::new(),
            every_size: sizes
                .iter()
                .enumerate()
                .filter(|(_, &buffers)| buffers > 0)
                .fold(0, |bits, (size, _)| bits | 1 << size),
            empty_sizes: sizes.iter().take_while(|&&buffers| buffers == 0).count(),
            touch_time: parameters.touch_time,
        }
    }

    /// The block's slot, created (held nowhere) if it has none.
    fn slot(&mut self, block: u64) -> usize {
        match self.slot_of.entry(block) {
            Entry::Occupied(held) => *held.get() as usize,
            Entry::Vacant(vacant) => {
                let slot = Slot {
                    block,
                    frames: [NOWHERE; ADVICE_SIZES],
                    held: 0,
                    oldest_touch: 0,
                    newest_touch: 0,
                };
                let index = match self.free_slots.pop() {
                    Some(index) => {
                        self.slots[index as usize] = slot;
                        index
                    }
                    None => {
                        self.slots.push(slot);
                        u32::try_from(self.slots.len() - 1).expect("slots fit in 32 bits")
                    }
                };
                vacant.insert(index);
                index as usize
            }
        }
    }

    /// One get at `now`; adds each size's miss to `misses` when `counted`.
    fn access(
        &mut self,
        block: u64,
        access: AccessKind,
        now: u32,
        counted: bool,
        misses: &mut [u64; ADVICE_SIZES],
    ) {
        let slot = self.slot(block);
        let entry = &self.slots[slot];
        if entry.held == self.every_size
            && entry.held != 0
            && entry.newest_touch <= now
            && !touch_counts(self.touch_time, entry.oldest_touch, now)
        {
            // Held everywhere, and no touch would count: a hit at every size that changes
            // nothing (the same test `TouchCounts::touched` makes for each frame).
            for misses in &mut misses[..self.empty_sizes] {
                *misses += u64::from(counted);
            }
            return;
        }
        let (mut oldest, mut newest) = (u32::MAX, 0);
        let Caches {
            sizes,
            slot_of,
            slots,
            free_slots,
            ..
        } = self;
        for (size, cache) in sizes.iter_mut().enumerate() {
            if cache.buffers == 0 {
                misses[size] += u64::from(counted);
                continue;
            }
            let mut frame = slots[slot].frames[size];
            if frame != NOWHERE {
                cache.counts.touched(frame as FrameId, now);
            } else {
                misses[size] += u64::from(counted);
                let free = if cache.used < cache.buffers {
                    cache.used += 1;
                    cache.used - 1
                } else {
                    let victim = cache
                        .lists
                        .next_victim(0, &cache.counts)
                        .expect("a full miniature cache has a victim");
                    cache.lists.remove(victim, &cache.counts);
                    let evicted = cache.slot_of_frame[victim] as usize;
                    debug_assert_ne!(evicted, slot, "the block got is not held here");
                    let gone = &mut slots[evicted];
                    gone.frames[size] = NOWHERE;
                    gone.held &= !(1 << size);
                    if gone.held == 0 {
                        slot_of.remove(&gone.block);
                        free_slots.push(evicted as u32);
                    }
                    victim
                };
                cache.counts.loaded(free, now);
                cache.lists.insert(free, access);
                cache.slot_of_frame[free] = slot as u32;
                frame = free as u32;
                slots[slot].frames[size] = frame;
                slots[slot].held |= 1 << size;
            }
            let touched = cache.counts.time(frame as FrameId);
            oldest = oldest.min(touched);
            newest = newest.max(touched);
        }
        let entry = &mut slots[slot];
        (entry.oldest_touch, entry.newest_touch) = (oldest, newest);
        if entry.held == 0 {
            // No size has a buffer (a working set of a few buffers).
            slot_of.remove(&block);
            free_slots.push(slot as u32);
        }
    }
}

/// A working set's 20 miniature touch-count caches with their misses.
pub(crate) struct MiniatureSimulation {
    /// Buffers of each size's cache, non-decreasing.
    sizes: [usize; ADVICE_SIZES],
    parameters: AgingParameters,
    /// None while released (OFF): the counts stay, the memory goes.
    caches: Option<Caches>,
    misses: [u64; ADVICE_SIZES],
    gets: u64,
}

impl MiniatureSimulation {
    /// Caches of `sizes` buffers, aged with `parameters` (the pool's).
    pub(crate) fn new(
        sizes: [usize; ADVICE_SIZES],
        parameters: AgingParameters,
    ) -> MiniatureSimulation {
        MiniatureSimulation {
            sizes,
            parameters,
            caches: Some(Caches::new(&sizes, parameters)),
            misses: [0; ADVICE_SIZES],
            gets: 0,
        }
    }

    /// One block get at `second`; `counted` false for a block formatted anew (it enters the
    /// caches, but no size would have read it).
    pub(crate) fn access(&mut self, block: u64, access: AccessKind, second: u32, counted: bool) {
        let Some(caches) = &mut self.caches else {
            return;
        };
        caches.access(block, access, second, counted, &mut self.misses);
        self.gets += u64::from(counted);
    }

    #[cfg(test)]
    pub(crate) fn gets(&self) -> u64 {
        self.gets
    }

    /// Misses at each size factor 0.1 .. 2.0.
    pub(crate) fn misses(&self) -> [u64; ADVICE_SIZES] {
        self.misses
    }

    /// Empties the caches (a flush of the cache); the counts stay.
    pub(crate) fn flush(&mut self) {
        if self.caches.is_some() {
            self.caches = Some(Caches::new(&self.sizes, self.parameters));
        }
    }

    /// Frees the caches' memory; the counts stay.
    pub(crate) fn release(&mut self) {
        self.caches = None;
    }

    /// Allocates the caches again if released.
    pub(crate) fn allocate(&mut self) {
        if self.caches.is_none() {
            self.caches = Some(Caches::new(&self.sizes, self.parameters));
        }
    }

    /// A new period: empty caches and no counts.
    pub(crate) fn restart(&mut self) {
        self.caches = Some(Caches::new(&self.sizes, self.parameters));
        self.misses = [0; ADVICE_SIZES];
        self.gets = 0;
    }

    /// Blocks held by some size (slots in use), for the tests' check of the bound.
    #[cfg(test)]
    fn slots_in_use(&self) -> usize {
        self.caches
            .as_ref()
            .map_or(0, |caches| caches.slot_of.len())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::buffer::simulate::{draws, replay, Access};
    use crate::buffer::touch_count::{TouchCountPolicy, VirtualClock};

    /// A deterministic trace whose blocks have different reuse: 30 hot blocks, 300 warm ones,
    /// a long tail read about once, some of it by scans; one second per 50 gets.
    fn mixed_trace(length: usize, seed: u64) -> Vec<Access> {
        draws(seed)
            .take(length)
            .enumerate()
            .map(|(index, (category, draw))| {
                let (block, kind) = match category {
                    0..=3 => (draw % 30, AccessKind::Lookup),
                    4..=6 => (1_000 + draw % 300, AccessKind::Index),
                    7 => (100_000 + index as u64, AccessKind::Scan),
                    _ => (10_000 + draw % 5_000, AccessKind::Lookup),
                };
                Access {
                    block,
                    kind,
                    second: (index / 50) as u32,
                }
            })
            .collect()
    }

    fn replayed(buffers: usize, parameters: AgingParameters, trace: &[Access]) -> u64 {
        let clock = Arc::new(VirtualClock::new(0));
        let policy = TouchCountPolicy::new(buffers, parameters, clock.clone());
        replay(&policy, buffers, trace, Some(&clock)).misses
    }

    /// One implementation serves both: fed every get (no sampling), each size's miniature
    /// misses exactly as the cache's own touch-count policy does when the trace is replayed
    /// through a pool of that size.
    #[test]
    fn unsampled_miniatures_miss_exactly_as_the_caches_touch_count() {
        let sizes: [usize; ADVICE_SIZES] = std::array::from_fn(|size| 15 * (size + 1));
        for parameters in [
            AgingParameters::DEFAULT_POOL,
            AgingParameters::DEFAULT_POOL.with_percent_hot(0),
            AgingParameters {
                touch_time: 0,
                ..AgingParameters::DEFAULT_POOL.with_percent_hot(75)
            },
        ] {
            let trace = mixed_trace(40_000, 3);
            let mut simulation = MiniatureSimulation::new(sizes, parameters);
            for access in &trace {
                simulation.access(access.block, access.kind, access.second, true);
            }
            assert_eq!(simulation.gets(), trace.len() as u64);
            for (size, misses) in sizes.iter().zip(simulation.misses()) {
                assert_eq!(
                    misses,
                    replayed(*size, parameters, &trace),
                    "{size} buffers, {parameters:?}"
                );
            }
            // Slots: one per block some size holds, at least the largest size's (full) and at
            // most every size's buffers (1.03-1.13 times the largest on this trace).
            let slots = simulation.slots_in_use();
            assert!(slots >= sizes[ADVICE_SIZES - 1] && slots <= sizes.iter().sum());
        }
    }

    #[test]
    fn a_flush_empties_every_size_and_keeps_the_counts() {
        let sizes: [usize; ADVICE_SIZES] = std::array::from_fn(|size| size + 1);
        let mut simulation = MiniatureSimulation::new(sizes, AgingParameters::DEFAULT_POOL);
        simulation.access(1, AccessKind::Lookup, 0, true);
        simulation.access(1, AccessKind::Lookup, 0, true);
        assert_eq!(simulation.misses(), [1; ADVICE_SIZES]);
        simulation.flush();
        assert_eq!(simulation.slots_in_use(), 0);
        simulation.access(1, AccessKind::Lookup, 0, true);
        assert_eq!(simulation.gets(), 3);
        assert_eq!(simulation.misses(), [2; ADVICE_SIZES]);
    }

    /// A size of no buffers (a tiny working set's 0.1) misses every get and holds nothing.
    #[test]
    fn a_size_of_no_buffers_misses_every_get() {
        let mut sizes = [1; ADVICE_SIZES];
        sizes[..2].fill(0);
        let mut simulation = MiniatureSimulation::new(sizes, AgingParameters::DEFAULT_POOL);
        for _ in 0..3 {
            simulation.access(9, AccessKind::Lookup, 0, true);
        }
        assert_eq!(simulation.misses()[..3], [3, 3, 1]);
        let mut none = MiniatureSimulation::new([0; ADVICE_SIZES], AgingParameters::DEFAULT_POOL);
        none.access(9, AccessKind::Lookup, 0, true);
        assert_eq!(none.slots_in_use(), 0, "a slot held nowhere goes");
    }
}
