//! What-if replays of a block-access trace: through a pool aged by any [`ReplacementPolicy`]
//! (the cache's own code, driven by a virtual clock), and through Belady's optimum, the fewest
//! misses any replacement could have for the same trace and number of buffers.
//!
//! ```text
//!   trace: (block, kind, second) ... --> replay(policy, buffers) --> gets, misses
//!                                    --> s3_fifo, two_q(buffers) --> the same, for policies
//!                                                                   the cache does not run
//!                                    --> belady(buffers)         --> the least misses possible
//! ```
//!
//! A replay keeps no data: a block is a number, a buffer a slot. Nothing is ever pinned or
//! dirty, so every victim a policy offers is taken.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use crate::buffer::policy::{AccessKind, FrameId, ReplacementPolicy};
use crate::buffer::touch_count::VirtualClock;

/// One block get of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The block's address (any number that identifies it).
    pub block: u64,
    pub kind: AccessKind,
    /// When it happened, in seconds (what touch-count aging reads).
    pub second: u32,
}

/// What a replay counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub gets: u64,
    pub misses: u64,
}

impl Outcome {
    /// Oracle's hit ratio: 1 - physical reads / logical reads.
    pub fn hit_ratio(&self) -> f64 {
        if self.gets == 0 {
            return 0.0;
        }
        1.0 - self.misses as f64 / self.gets as f64
    }
}

/// Replays `trace` through a pool of `buffers` buffers aged by `policy`, which must be new and
/// made for that many frames. `clock`, if the policy reads one, is set to each access's time.
pub fn replay(
    policy: &dyn ReplacementPolicy,
    buffers: usize,
    trace: &[Access],
    clock: Option<&VirtualClock>,
) -> Outcome {
    assert!(buffers > 0, "a pool has at least one buffer");
    let mut frame_of: FxHashMap<u64, FrameId> = FxHashMap::default();
    let mut block_in: Vec<Option<u64>> = vec![None; buffers];
    let mut free: Vec<FrameId> = (0..buffers).rev().collect();
    let mut outcome = Outcome::default();
    for access in trace {
        if let Some(clock) = clock {
            clock.set(access.second);
        }
        outcome.gets += 1;
        if let Some(&frame) = frame_of.get(&access.block) {
            policy.touched(frame);
            continue;
        }
        outcome.misses += 1;
        let frame = match free.pop() {
            Some(frame) => frame,
            None => {
                let frame = policy
                    .next_victim(0)
                    .expect("a full pool has a buffer to reuse");
                policy.removed(frame);
                if let Some(old) = block_in[frame].take() {
                    frame_of.remove(&old);
                }
                frame
            }
        };
        frame_of.insert(access.block, frame);
        block_in[frame] = Some(access.block);
        policy.inserted(frame, access.kind);
    }
    outcome
}

/// Belady's optimum: on a miss in a full pool, the block whose next use is farthest away (or
/// that is never used again) makes room. No replacement can miss less on this trace.
pub fn belady(buffers: usize, trace: &[Access]) -> Outcome {
    assert!(buffers > 0, "a pool has at least one buffer");
    // next_use[i]: where the block of access i is used next (usize::MAX: never).
    let mut next_use = vec![usize::MAX; trace.len()];
    let mut seen: FxHashMap<u64, usize> = FxHashMap::default();
    for (index, access) in trace.iter().enumerate().rev() {
        if let Some(later) = seen.insert(access.block, index) {
            next_use[index] = later;
        }
    }
    // Cached blocks with their next use; the heap holds (next use, block), farthest first,
    // with stale entries skipped when they surface.
    let mut cached: FxHashMap<u64, usize> = FxHashMap::default();
    let mut farthest: BinaryHeap<(usize, Reverse<u64>)> = BinaryHeap::new();
    let mut outcome = Outcome::default();
    for (index, access) in trace.iter().enumerate() {
        outcome.gets += 1;
        let next = next_use[index];
        if cached.insert(access.block, next).is_none() {
            outcome.misses += 1;
            if cached.len() > buffers {
                loop {
                    let (use_at, Reverse(block)) = farthest
                        .pop()
                        .expect("every cached block has an entry in the heap");
                    if block != access.block && cached.get(&block) == Some(&use_at) {
                        cached.remove(&block);
                        break;
                    }
                }
            }
        }
        farthest.push((next, Reverse(access.block)));
    }
    outcome
}

/// FIFO: a hit changes nothing; the block read longest ago makes room. The lab compares
/// Oracle 8.0's figures with it (`pythia lab stuffer`).
pub fn fifo(buffers: usize, trace: &[Access]) -> Outcome {
    assert!(buffers > 0, "a pool has at least one buffer");
    let mut queue: std::collections::VecDeque<u64> = std::collections::VecDeque::new();
    let mut cached: rustc_hash::FxHashSet<u64> = rustc_hash::FxHashSet::default();
    let mut outcome = Outcome::default();
    for access in trace {
        outcome.gets += 1;
        if cached.contains(&access.block) {
            continue;
        }
        outcome.misses += 1;
        if queue.len() == buffers {
            let oldest = queue.pop_front().expect("a full queue has a first block");
            cached.remove(&oldest);
        }
        queue.push_back(access.block);
        cached.insert(access.block);
    }
    outcome
}

/// S3-FIFO (Yang et al., SOSP 2023): new blocks enter a small FIFO (10% of the buffers); one
/// hit there (a frequency of at least 1, capped at 3) earns the main FIFO at eviction time,
/// otherwise the block leaves and its address goes to a ghost FIFO as long as the main one;
/// a miss on a ghost enters the main FIFO directly. The main FIFO reinserts a block with a
/// frequency above 0 (one less) instead of evicting it.
pub fn s3_fifo(buffers: usize, trace: &[Access]) -> Outcome {
    use std::collections::VecDeque;
    assert!(buffers > 0, "a pool has at least one buffer");
    let small_target = (buffers / 10).max(1);
    let main_target = buffers.saturating_sub(small_target).max(1);
    // Cached blocks: frequency, and whether in the small FIFO.
    let mut cached: FxHashMap<u64, (u8, bool)> = FxHashMap::default();
    let (mut small, mut main, mut ghost) = (VecDeque::new(), VecDeque::new(), VecDeque::new());
    let mut ghosts: FxHashMap<u64, u64> = FxHashMap::default();
    let mut ghost_clock = 0u64;
    let mut outcome = Outcome::default();
    for access in trace {
        outcome.gets += 1;
        if let Some((frequency, _)) = cached.get_mut(&access.block) {
            *frequency = (*frequency + 1).min(3);
            continue;
        }
        outcome.misses += 1;
        while cached.len() >= buffers {
            if small.len() >= small_target || main.is_empty() {
                let Some(block) = small.pop_front() else {
                    break;
                };
                let (frequency, _) = cached[&block];
                if frequency > 0 {
                    cached.insert(block, (0, false));
                    main.push_back(block);
                } else {
                    cached.remove(&block);
                    ghost_clock += 1;
                    ghosts.insert(block, ghost_clock);
                    ghost.push_back((block, ghost_clock));
                    while ghost.len() > main_target {
                        if let Some((old, stamp)) = ghost.pop_front() {
                            if ghosts.get(&old) == Some(&stamp) {
                                ghosts.remove(&old);
                            }
                        }
                    }
                }
            } else {
                let Some(block) = main.pop_front() else { break };
                let entry = cached.get_mut(&block).expect("main blocks are cached");
                if entry.0 > 0 {
                    entry.0 -= 1;
                    main.push_back(block);
                } else {
                    cached.remove(&block);
                }
            }
        }
        if ghosts.remove(&access.block).is_some() {
            cached.insert(access.block, (0, false));
            main.push_back(access.block);
        } else {
            cached.insert(access.block, (0, true));
            small.push_back(access.block);
        }
    }
    outcome
}

/// 2Q (Johnson and Shasha, VLDB 1994), the full version: new blocks enter a FIFO (A1in, 25%
/// of the buffers) whose hits do nothing; a block leaving it puts its address on a ghost FIFO
/// (A1out, half the buffers); a miss on a ghost enters the LRU list (Am), where hits move a
/// block to the MRU end. Room is taken from A1in while it is over its share, else from Am.
pub fn two_q(buffers: usize, trace: &[Access]) -> Outcome {
    use std::collections::VecDeque;
    assert!(buffers > 0, "a pool has at least one buffer");
    let in_target = (buffers / 4).max(1);
    let out_target = (buffers / 2).max(1);
    // Am as an LRU by stamps: block -> last use; an ordered set gives the least recent.
    let mut am: FxHashMap<u64, u64> = FxHashMap::default();
    let mut am_order: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    let mut a1in: VecDeque<u64> = VecDeque::new();
    let mut in_a1in: FxHashMap<u64, ()> = FxHashMap::default();
    let mut a1out: VecDeque<(u64, u64)> = VecDeque::new();
    let mut ghosts: FxHashMap<u64, u64> = FxHashMap::default();
    let mut clock = 0u64;
    let mut outcome = Outcome::default();
    for access in trace {
        clock += 1;
        outcome.gets += 1;
        let block = access.block;
        if let Some(stamp) = am.get_mut(&block) {
            am_order.remove(stamp);
            *stamp = clock;
            am_order.insert(clock, block);
            continue;
        }
        if in_a1in.contains_key(&block) {
            continue;
        }
        outcome.misses += 1;
        // Whether the block is a ghost is decided before room is made, which may push the
        // oldest ghost off A1out.
        let was_ghost = ghosts.remove(&block).is_some();
        if am.len() + a1in.len() >= buffers {
            if a1in.len() > in_target || am.is_empty() {
                if let Some(old) = a1in.pop_front() {
                    in_a1in.remove(&old);
                    ghosts.insert(old, clock);
                    a1out.push_back((old, clock));
                    while a1out.len() > out_target {
                        if let Some((gone, stamp)) = a1out.pop_front() {
                            if ghosts.get(&gone) == Some(&stamp) {
                                ghosts.remove(&gone);
                            }
                        }
                    }
                }
            } else if let Some((_, old)) = am_order.pop_first() {
                am.remove(&old);
            }
        }
        if was_ghost {
            am.insert(block, clock);
            am_order.insert(clock, block);
        } else {
            a1in.push_back(block);
            in_a1in.insert(block, ());
        }
    }
    outcome
}

/// Lookups of `blocks` in order, all at second 0: a trace for tests.
#[cfg(test)]
pub(crate) fn lookups(blocks: &[u64]) -> Vec<Access> {
    blocks
        .iter()
        .map(|&block| Access {
            block,
            kind: AccessKind::Lookup,
            second: 0,
        })
        .collect()
}

/// Deterministic pseudo-random draws for tests' traces (a 64-bit LCG): per step, a category
/// from 0 to 9 and a draw of 31 bits, from different bits of the state.
#[cfg(test)]
pub(crate) fn draws(seed: u64) -> impl Iterator<Item = (u64, u64)> {
    let mut state = seed;
    std::iter::repeat_with(move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 60) % 10, state >> 33)
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use crate::buffer::policy::{ClassicLruPolicy, ClockPolicy};
    use crate::buffer::touch_count::{AgingParameters, TouchCountPolicy};

    /// The textbook reference string (Silberschatz et al., *Operating System Concepts*): with
    /// 3 frames, 12 faults under LRU and 9 under the optimal replacement.
    const TEXTBOOK: [u64; 20] = [7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1];

    #[test]
    fn the_textbook_string_gives_lru_twelve_faults_and_the_optimum_nine() {
        let trace = lookups(&TEXTBOOK);
        let lru = replay(&ClassicLruPolicy::new(3), 3, &trace, None);
        assert_eq!(
            lru,
            Outcome {
                gets: 20,
                misses: 12
            }
        );
        assert_eq!(belady(3, &trace).misses, 9);
    }

    /// Belady's anomaly (Belady, Nelson and Shedler, 1969): under FIFO this string faults 9
    /// times with 3 frames and 10 times with 4; LRU, a stack algorithm, cannot do worse with
    /// more frames.
    #[test]
    fn fifo_shows_beladys_anomaly_and_lru_does_not() {
        let trace = lookups(&[1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]);
        assert_eq!(fifo(3, &trace).misses, 9);
        assert_eq!(fifo(4, &trace).misses, 10);
        let lru = |buffers| replay(&ClassicLruPolicy::new(buffers), buffers, &trace, None).misses;
        assert!(lru(4) <= lru(3));
    }

    #[test]
    fn a_trace_that_fits_misses_once_per_block() {
        let trace = lookups(&[1, 2, 3, 1, 2, 3, 3, 2, 1]);
        assert_eq!(belady(3, &trace).misses, 3);
        assert_eq!(replay(&ClockPolicy::new(3), 3, &trace, None).misses, 3);
    }

    /// A hot set read every second for 20 seconds, then 1,000 blocks read once (a flood ten
    /// times the pool), then the hot set again: the touch count has kept the hot set in its
    /// hot region, as the optimum would; the classic LRU read it all again.
    #[test]
    fn the_touch_count_keeps_a_hot_set_through_a_flood_that_the_classic_lru_does_not() {
        let buffers = 100;
        let hot = 40u64;
        let flood = 1_000u64;
        let at = |block, second| Access {
            block,
            kind: AccessKind::Lookup,
            second,
        };
        let mut trace: Vec<Access> = (0..20u32)
            .flat_map(|second| (0..hot).map(move |block| at(block, second)))
            .collect();
        trace.extend((0..flood).map(|number| at(1_000_000 + number, 20)));
        trace.extend((0..hot).map(|block| at(block, 21)));

        let clock = Arc::new(VirtualClock::new(0));
        let touch_count =
            TouchCountPolicy::new(buffers, AgingParameters::DEFAULT_POOL, clock.clone());
        let aged = replay(&touch_count, buffers, &trace, Some(&clock));
        let classic = replay(&ClassicLruPolicy::new(buffers), buffers, &trace, None);
        let best = belady(buffers, &trace);
        assert_eq!(best.misses, hot + flood);
        assert_eq!(aged.misses, hot + flood, "touch count");
        assert_eq!(classic.misses, hot + flood + hot, "classic LRU");
        assert_eq!(touch_count.hot_buffers(), hot as usize);
        // S3-FIFO keeps it too: its hits earned the main queue. (2Q does not: every read of
        // the warm-up hit its A1in FIFO, where hits count for nothing, and the flood pushed the
        // hot set out of A1in and then off the ghost list.)
        assert_eq!(s3_fifo(buffers, &trace).misses, hot + flood, "S3-FIFO");
        assert_eq!(two_q(buffers, &trace).misses, hot + flood + hot, "2Q");
    }

    /// Block 1 is read once and pushed out by a stream of new blocks; read again while its
    /// address is on the ghost list, it enters the protected queue (2Q's Am, S3-FIFO's main)
    /// and survives a second, longer stream, where the classic LRU loses it.
    #[test]
    fn a_block_read_again_from_the_ghost_list_is_protected() {
        let trace_for = |first_stream: u64| {
            let mut blocks = vec![1];
            blocks.extend(100..100 + first_stream);
            blocks.push(1);
            blocks.extend(200..230);
            blocks.push(1);
            lookups(&blocks)
        };
        // 8 buffers: the ninth new block pushes 1 out of A1in onto A1out.
        let trace = trace_for(8);
        assert_eq!(two_q(8, &trace).misses, trace.len() as u64 - 1);
        assert_eq!(
            replay(&ClassicLruPolicy::new(8), 8, &trace, None).misses,
            trace.len() as u64
        );
        // 10 buffers: the eleventh new block pushes 1, never hit, from the small FIFO to the
        // ghost FIFO.
        let trace = trace_for(10);
        assert_eq!(s3_fifo(10, &trace).misses, trace.len() as u64 - 1);
        assert_eq!(
            replay(&ClassicLruPolicy::new(10), 10, &trace, None).misses,
            trace.len() as u64
        );
    }

    fn trace_strategy() -> impl Strategy<Value = Vec<Access>> {
        prop::collection::vec((0u64..24, 0u32..3), 1..300).prop_map(|accesses| {
            let mut second = 0;
            accesses
                .into_iter()
                .map(|(block, step)| {
                    second += step;
                    Access {
                        block,
                        kind: if block % 5 == 0 {
                            AccessKind::Scan
                        } else {
                            AccessKind::Lookup
                        },
                        second,
                    }
                })
                .collect()
        })
    }

    proptest! {
        /// No policy beats the optimum, and every policy misses at least once per distinct
        /// block and at most once per get.
        #[test]
        fn no_policy_misses_less_than_belady(trace in trace_strategy(), buffers in 1usize..12) {
            let distinct = trace.iter().map(|access| access.block).collect::<std::collections::HashSet<_>>().len() as u64;
            let best = belady(buffers, &trace);
            prop_assert!(best.misses >= distinct);
            let clock = Arc::new(VirtualClock::new(0));
            let policies: Vec<(Box<dyn ReplacementPolicy>, bool)> = vec![
                (Box::new(ClassicLruPolicy::new(buffers)), false),
                (Box::new(ClockPolicy::new(buffers)), false),
                (Box::new(TouchCountPolicy::new(buffers, AgingParameters::DEFAULT_POOL, clock.clone())), true),
                (Box::new(TouchCountPolicy::new(buffers, AgingParameters::DEFAULT_POOL.with_percent_hot(0), clock.clone())), true),
            ];
            for (name, outcome) in [("S3-FIFO", s3_fifo(buffers, &trace)), ("2Q", two_q(buffers, &trace)), ("FIFO", fifo(buffers, &trace))] {
                prop_assert!(outcome.misses >= best.misses, "{}: {} < {}", name, outcome.misses, best.misses);
                prop_assert!(outcome.misses >= distinct, "{}", name);
                prop_assert_eq!(outcome.gets, trace.len() as u64);
            }
            for (policy, timed) in &policies {
                let outcome = replay(policy.as_ref(), buffers, &trace, timed.then_some(&*clock));
                prop_assert!(outcome.misses >= best.misses, "{}: {} < {}", policy.name(), outcome.misses, best.misses);
                prop_assert!(outcome.misses <= outcome.gets);
                prop_assert_eq!(outcome.gets, trace.len() as u64);
            }
        }
    }
}
