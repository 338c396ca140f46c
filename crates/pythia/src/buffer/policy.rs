//! Replacement policies: which buffer gives up its block when a new one must be read.
//!
//! The cache calls a policy at three moments: a block was loaded into a frame (`inserted`,
//! with the kind of access that loaded it, so that a policy can treat scans differently), a
//! cached block was used again (`touched`), and a frame is needed (`next_victim`). The hit path
//! calls only `touched`, which must not take a latch: the policies here count touches with an
//! atomic and settle them when the replacement scan reaches the buffer, the way Oracle8i's
//! touch count does. The buffer-pools issue adds the touch-count midpoint policy beside these.

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
}

/// The classic LRU list with second chance: a hit sets the buffer's touch count without a
/// latch; when the replacement scan finds a touched buffer at the cold end it moves it to the
/// hot end instead of evicting it. Scanned blocks enter at the cold end.
///
/// The list is a doubly linked list over frame ids, guarded by one 'cache buffers lru chain'
/// latch (one working set; the buffer-pools issue splits the cache into several).
pub struct LruPolicy {
    list: Latch<LinkedList>,
    touches: Box<[AtomicU32]>,
}

const NONE: usize = usize::MAX;

struct LinkedList {
    previous: Vec<usize>,
    next: Vec<usize>,
    in_list: Vec<bool>,
    /// Most recently used end.
    head: usize,
    /// Least recently used end: the replacement scan starts here.
    tail: usize,
}

impl LinkedList {
    fn unlink(&mut self, frame: usize) {
        if !self.in_list[frame] {
            return;
        }
        let (previous, next) = (self.previous[frame], self.next[frame]);
        if previous != NONE {
            self.next[previous] = next;
        } else {
            self.head = next;
        }
        if next != NONE {
            self.previous[next] = previous;
        } else {
            self.tail = previous;
        }
        self.in_list[frame] = false;
    }

    fn push_head(&mut self, frame: usize) {
        self.unlink(frame);
        self.previous[frame] = NONE;
        self.next[frame] = self.head;
        if self.head != NONE {
            self.previous[self.head] = frame;
        } else {
            self.tail = frame;
        }
        self.head = frame;
        self.in_list[frame] = true;
    }

    fn push_tail(&mut self, frame: usize) {
        self.unlink(frame);
        self.next[frame] = NONE;
        self.previous[frame] = self.tail;
        if self.tail != NONE {
            self.next[self.tail] = frame;
        } else {
            self.head = frame;
        }
        self.tail = frame;
        self.in_list[frame] = true;
    }
}

impl LruPolicy {
    pub fn new(frames: usize) -> LruPolicy {
        LruPolicy {
            list: Latch::new(
                LatchName::CacheBuffersLruChain,
                LinkedList {
                    previous: vec![NONE; frames],
                    next: vec![NONE; frames],
                    in_list: vec![false; frames],
                    head: NONE,
                    tail: NONE,
                },
            ),
            touches: (0..frames).map(|_| AtomicU32::new(0)).collect(),
        }
    }
}

impl ReplacementPolicy for LruPolicy {
    fn inserted(&self, frame: FrameId, access: AccessKind) {
        self.touches[frame].store(0, Ordering::Relaxed);
        let mut list = self.list.lock();
        match access {
            AccessKind::Scan => list.push_tail(frame),
            AccessKind::Lookup | AccessKind::Index => list.push_head(frame),
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
        let length = list.in_list.len();
        // Settle touches: a touched buffer at the cold end earns a move to the hot end. Bounded
        // by the list length so that a cache where everything is touched still yields a victim.
        for _ in 0..length {
            let frame = list.tail;
            if frame == NONE {
                return None;
            }
            if self.touches[frame].swap(0, Ordering::Relaxed) > 0 {
                list.push_head(frame);
                continue;
            }
            // Rotate the candidate to the head so that a refused candidate (pinned or dirty)
            // is not offered again on the next attempt.
            if attempt > 0 {
                list.push_head(frame);
            }
            return Some(frame);
        }
        Some(list.tail)
    }

    fn positions(&self) -> Vec<(FrameId, usize)> {
        let list = self.list.lock();
        let mut result = Vec::new();
        let mut frame = list.head;
        while frame != NONE {
            result.push((frame, result.len()));
            frame = list.next[frame];
        }
        result
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
        let policy = LruPolicy::new(3);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        policy.inserted(2, AccessKind::Lookup);
        // List hot..cold: 2 1 0. Frame 0 is coldest, but it was touched.
        policy.touched(0);
        assert_eq!(policy.next_victim(0), Some(1));
    }

    #[test]
    fn scanned_blocks_enter_at_the_cold_end() {
        let policy = LruPolicy::new(3);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        policy.inserted(2, AccessKind::Scan);
        assert_eq!(policy.next_victim(0), Some(2));
        let positions = policy.positions();
        assert_eq!(positions.last().unwrap().0, 2);
    }

    #[test]
    fn removed_frame_leaves_the_list() {
        let policy = LruPolicy::new(2);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        policy.removed(0);
        assert_eq!(policy.positions(), vec![(1, 0)]);
    }
}
