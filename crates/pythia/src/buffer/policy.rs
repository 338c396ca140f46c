//! Replacement policies: which buffer gives up its block when a new one must be read.
//!
//! The cache calls a policy at three moments: a block was loaded into a frame (`inserted`,
//! with the kind of access that loaded it, so that a policy can treat scans differently), a
//! cached block was used again (`touched`), and a frame is needed (`next_victim`). The hit path
//! calls only `touched`, which must not take a latch: the policies here count touches with an
//! atomic and settle them when the replacement scan reaches the buffer, the way Oracle8i's
//! touch count does ([`super::touch_count`]); Oracle 8.0's classic LRU, which moves a buffer at
//! every hit, is here to reproduce that version's figures.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::instrumentation::{Latch, LatchName};

/// Index of a frame in the cache's frame array.
pub type FrameId = usize;

/// Why a block is being read: lets a policy keep scans from flushing the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A single block fetched by address (rowid, undo, segment header).
    Lookup,
    /// Part of a full scan of a segment.
    Scan,
    /// A block of an index, read on a descent or a range scan.
    Index,
}

pub trait ReplacementPolicy: Send + Sync {
    /// A block was just loaded into `frame`.
    fn inserted(&self, frame: FrameId, access: AccessKind);
    /// A cached block in `frame` was used again. Must not block.
    fn touched(&self, frame: FrameId);
    /// The frame no longer holds a block (evicted or invalidated).
    fn removed(&self, frame: FrameId);
    /// The next frame to try to reuse, from the cold end. The cache may refuse it (pinned or
    /// dirty) and ask again; `attempt` counts the asks for one free-buffer request.
    fn next_victim(&self, attempt: usize) -> Option<FrameId>;
    /// Position of each frame in its list, hottest first, for x$bh: (frame, position).
    fn positions(&self) -> Vec<(FrameId, usize)>;
    fn name(&self) -> &'static str;
    /// The frame's touch count (x$bh.tch), for the policies that keep one.
    fn touch_count(&self, _frame: FrameId) -> u32 {
        0
    }
    /// When the frame's last counted touch happened (x$bh.tim), for the policies that keep
    /// one.
    fn touch_time(&self, _frame: FrameId) -> u32 {
        0
    }
    /// Whether the frame is in the hot region (x$bh.lru_flag), for the policies that have one.
    fn is_hot(&self, _frame: FrameId) -> bool {
        false
    }
    /// Buffers in the hot region (x$kcbwds.cnum_hot).
    fn hot_buffers(&self) -> usize {
        0
    }
}

/// "No frame": the end of a list, or a frame in none.
pub(crate) const NONE: usize = usize::MAX;

/// Doubly linked lists over frame ids, sharing one set of links: each frame is in at most one
/// of `count` lists (a policy's regions or queues). Every operation is O(1).
pub(crate) struct FrameLists {
    previous: Vec<usize>,
    next: Vec<usize>,
    /// The list a frame is in, or `u8::MAX`.
    member: Vec<u8>,
    /// Per list: most recently inserted end.
    heads: Vec<usize>,
    /// Per list: the other end, where replacement scans start.
    tails: Vec<usize>,
    lengths: Vec<usize>,
}

const NO_LIST: u8 = u8::MAX;

impl FrameLists {
    pub(crate) fn new(frames: usize, count: usize) -> FrameLists {
        assert!(count < usize::from(NO_LIST), "too many lists");
        FrameLists {
            previous: vec![NONE; frames],
            next: vec![NONE; frames],
            member: vec![NO_LIST; frames],
            heads: vec![NONE; count],
            tails: vec![NONE; count],
            lengths: vec![0; count],
        }
    }

    pub(crate) fn frames(&self) -> usize {
        self.member.len()
    }

    /// The list `frame` is in.
    pub(crate) fn list_of(&self, frame: usize) -> Option<usize> {
        (self.member[frame] != NO_LIST).then_some(usize::from(self.member[frame]))
    }

    pub(crate) fn head(&self, list: usize) -> Option<usize> {
        (self.heads[list] != NONE).then_some(self.heads[list])
    }

    pub(crate) fn tail(&self, list: usize) -> Option<usize> {
        (self.tails[list] != NONE).then_some(self.tails[list])
    }

    pub(crate) fn len(&self, list: usize) -> usize {
        self.lengths[list]
    }

    /// Takes `frame` out of its list, if it is in one.
    pub(crate) fn unlink(&mut self, frame: usize) {
        let Some(list) = self.list_of(frame) else {
            return;
        };
        let (previous, next) = (self.previous[frame], self.next[frame]);
        if previous != NONE {
            self.next[previous] = next;
        } else {
            self.heads[list] = next;
        }
        if next != NONE {
            self.previous[next] = previous;
        } else {
            self.tails[list] = previous;
        }
        self.member[frame] = NO_LIST;
        self.lengths[list] -= 1;
    }

    /// Moves `frame` (from wherever it is) to the head of `list`.
    pub(crate) fn push_head(&mut self, list: usize, frame: usize) {
        self.unlink(frame);
        let head = self.heads[list];
        self.previous[frame] = NONE;
        self.next[frame] = head;
        if head != NONE {
            self.previous[head] = frame;
        } else {
            self.tails[list] = frame;
        }
        self.heads[list] = frame;
        self.member[frame] = list as u8;
        self.lengths[list] += 1;
    }

    /// Moves `frame` (from wherever it is) to the tail of `list`.
    pub(crate) fn push_tail(&mut self, list: usize, frame: usize) {
        self.unlink(frame);
        let tail = self.tails[list];
        self.next[frame] = NONE;
        self.previous[frame] = tail;
        if tail != NONE {
            self.next[tail] = frame;
        } else {
            self.heads[list] = frame;
        }
        self.tails[list] = frame;
        self.member[frame] = list as u8;
        self.lengths[list] += 1;
    }

    /// The frames of `list`, head to tail.
    pub(crate) fn iter(&self, list: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.head(list), |&frame| {
            (self.next[frame] != NONE).then_some(self.next[frame])
        })
    }

    /// (frame, position) for every frame of `lists` read one after another, head to tail.
    pub(crate) fn positions(&self, lists: &[usize]) -> Vec<(FrameId, usize)> {
        lists
            .iter()
            .flat_map(|&list| self.iter(list))
            .enumerate()
            .map(|(position, frame)| (frame, position))
            .collect()
    }
}

/// CLOCK (second chance) over a list: a hit sets the buffer's touch count without a latch;
/// when the replacement scan finds a touched buffer at the cold end it moves it to the hot end
/// instead of evicting it. Scanned blocks enter at the cold end.
///
/// One 'cache buffers lru chain' latch guards the list.
pub struct ClockPolicy {
    list: Latch<FrameLists>,
    touches: Box<[AtomicU32]>,
}

impl ClockPolicy {
    pub fn new(frames: usize) -> ClockPolicy {
        ClockPolicy {
            list: Latch::new(LatchName::CacheBuffersLruChain, FrameLists::new(frames, 1)),
            touches: (0..frames).map(|_| AtomicU32::new(0)).collect(),
        }
    }
}

impl ReplacementPolicy for ClockPolicy {
    fn inserted(&self, frame: FrameId, access: AccessKind) {
        self.touches[frame].store(0, Ordering::Relaxed);
        let mut list = self.list.lock();
        match access {
            AccessKind::Scan => list.push_tail(0, frame),
            AccessKind::Lookup | AccessKind::Index => list.push_head(0, frame),
        }
    }

    fn touched(&self, frame: FrameId) {
        let touches = &self.touches[frame];
        if touches.load(Ordering::Relaxed) < u32::MAX {
            touches.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn removed(&self, frame: FrameId) {
        self.list.lock().unlink(frame);
        self.touches[frame].store(0, Ordering::Relaxed);
    }

    fn next_victim(&self, attempt: usize) -> Option<FrameId> {
        let mut list = self.list.lock();
        if attempt > 0 {
            // The last candidate, at the cold end, was refused (pinned or dirty): it moves
            // aside so that it is not offered again.
            let refused = list.tail(0)?;
            list.push_head(0, refused);
        }
        // Settle touches: a touched buffer at the cold end earns a move to the hot end. Bounded
        // by the list length so that a cache where everything is touched still yields a victim.
        for _ in 0..list.frames() {
            let frame = list.tail(0)?;
            if self.touches[frame].swap(0, Ordering::Relaxed) > 0 {
                list.push_head(0, frame);
                continue;
            }
            return Some(frame);
        }
        list.tail(0)
    }

    fn positions(&self) -> Vec<(FrameId, usize)> {
        self.list.lock().positions(&[0])
    }

    fn name(&self) -> &'static str {
        "CLOCK"
    }
}

/// Oracle 8.0's LRU list: every hit moves the buffer to the MRU end under the list's latch;
/// new blocks enter at the MRU end, scanned ones at the LRU end; the replacement scan takes the
/// LRU end. Kept to reproduce the seed's Oracle 8.0 figures (`_db_lru_algorithm = LRU`).
pub struct ClassicLruPolicy {
    list: Latch<FrameLists>,
}

impl ClassicLruPolicy {
    pub fn new(frames: usize) -> ClassicLruPolicy {
        ClassicLruPolicy {
            list: Latch::new(LatchName::CacheBuffersLruChain, FrameLists::new(frames, 1)),
        }
    }
}

impl ReplacementPolicy for ClassicLruPolicy {
    fn inserted(&self, frame: FrameId, access: AccessKind) {
        let mut list = self.list.lock();
        match access {
            AccessKind::Scan => list.push_tail(0, frame),
            AccessKind::Lookup | AccessKind::Index => list.push_head(0, frame),
        }
    }

    fn touched(&self, frame: FrameId) {
        let mut list = self.list.lock();
        if list.list_of(frame).is_some() {
            list.push_head(0, frame);
        }
    }

    fn removed(&self, frame: FrameId) {
        self.list.lock().unlink(frame);
    }

    fn next_victim(&self, attempt: usize) -> Option<FrameId> {
        let mut list = self.list.lock();
        let frame = list.tail(0)?;
        if attempt > 0 {
            // The last candidate was refused (pinned or dirty): it moves aside.
            list.push_head(0, frame);
            return list.tail(0);
        }
        Some(frame)
    }

    fn positions(&self) -> Vec<(FrameId, usize)> {
        self.list.lock().positions(&[0])
    }

    fn name(&self) -> &'static str {
        "LRU"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_cold_buffer_is_the_victim_and_touched_ones_get_a_second_chance() {
        let policy = ClockPolicy::new(3);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        policy.inserted(2, AccessKind::Lookup);
        // List hot..cold: 2 1 0. Frame 0 is coldest, but it was touched.
        policy.touched(0);
        assert_eq!(policy.next_victim(0), Some(1));
    }

    #[test]
    fn scanned_blocks_enter_at_the_cold_end() {
        let policy = ClockPolicy::new(3);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        policy.inserted(2, AccessKind::Scan);
        assert_eq!(policy.next_victim(0), Some(2));
        let positions = policy.positions();
        assert_eq!(positions.last().unwrap().0, 2);
    }

    #[test]
    fn removed_frame_leaves_the_list() {
        let policy = ClockPolicy::new(2);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        policy.removed(0);
        assert_eq!(policy.positions(), vec![(1, 0)]);
    }
}
