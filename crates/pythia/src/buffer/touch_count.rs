//! Oracle8i's touch-count aging with midpoint insertion, for one working set (see
//! `docs/buffer-pools.md` for the choices where public descriptions differ).
//!
//! ```text
//!        hot region (percent_hot of the set)      cold region
//!   MRU [h h h h h h h] --cooled--> midpoint [c c c c c c c c c] LRU end
//!        ^ promoted by the scan               ^ blocks read     ^ scanned blocks; the
//!          (tch >= hot_criteria)                                  replacement scan starts here
//! ```
//!
//! A hit never moves a buffer and takes no latch: it counts a touch (touch count + 1) only if
//! `touch_time` seconds passed since the last counted one. The replacement scan, under the
//! working set's 'cache buffers lru chain' latch, reads the cold region from its LRU end: a
//! buffer with at least `hot_criteria` touches goes to the hot end with `stay_count`, which
//! pushes the hot region's last buffer across the midpoint with `cool_count`; the first other
//! buffer is the victim.
//!
//! Three parts, so that the cache advice's miniature caches (`buffer/miniature.rs`) run the
//! same rules as the cache: `TouchCounts`, each frame's touch count and time and the rule
//! that counts a touch; `AgingLists`, the two regions and the replacement scan, which read
//! no clock and take no latch (their owner holds one); and [`TouchCountPolicy`], which puts
//! them behind the working set's latch and the instance's clock.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

use crate::buffer::policy::{AccessKind, FrameId, FrameLists, ReplacementPolicy};
use crate::instrumentation::{Latch, LatchName};

/// Where aging reads the time, in whole seconds (Oracle's `tim` column of x$bh).
pub trait AgingClock: Send + Sync {
    fn seconds(&self) -> u32;
}

/// A clock that moves only when told to: the simulator's and the tests'.
#[derive(Default)]
pub struct VirtualClock(AtomicU32);

impl VirtualClock {
    pub fn new(seconds: u32) -> VirtualClock {
        VirtualClock(AtomicU32::new(seconds))
    }

    pub fn set(&self, seconds: u32) {
        self.0.store(seconds, Relaxed);
    }

    pub fn advance(&self, seconds: u32) {
        self.0.fetch_add(seconds, Relaxed);
    }
}

impl AgingClock for VirtualClock {
    fn seconds(&self) -> u32 {
        self.0.load(Relaxed)
    }
}

/// The instance's aging clock: whole seconds since it was made. Read at every buffer hit, so
/// it uses the kernel's coarse monotonic clock where there is one (a few nanoseconds; its
/// resolution of a few milliseconds is plenty for seconds).
pub struct CoarseClock {
    origin: u64,
}

impl CoarseClock {
    pub fn new() -> CoarseClock {
        CoarseClock {
            origin: coarse_seconds(),
        }
    }
}

impl Default for CoarseClock {
    fn default() -> CoarseClock {
        CoarseClock::new()
    }
}

impl AgingClock for CoarseClock {
    fn seconds(&self) -> u32 {
        coarse_seconds().saturating_sub(self.origin) as u32
    }
}

fn coarse_seconds() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid timespec for the call to fill.
        if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut now) } == 0 {
            return now.tv_sec as u64;
        }
    }
    static ORIGIN: std::sync::LazyLock<std::time::Instant> =
        std::sync::LazyLock::new(std::time::Instant::now);
    ORIGIN.elapsed().as_secs()
}

/// The `_db_aging_*` parameters and the pool's `_db_percent_hot_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgingParameters {
    /// `_db_aging_touch_time`: seconds between two touches that both count.
    pub touch_time: u32,
    /// `_db_aging_hot_criteria`: touches that send a buffer to the hot end.
    pub hot_criteria: u32,
    /// `_db_aging_stay_count`: touch count of a buffer just sent to the hot end.
    pub stay_count: u32,
    /// `_db_aging_cool_count`: touch count of a buffer pushed into the cold region.
    pub cool_count: u32,
    /// `_db_percent_hot_default` (or `_keep`, `_recycle`): the hot region's share, in percent.
    pub percent_hot: u32,
}

impl AgingParameters {
    /// Oracle8i's defaults for the DEFAULT pool (seed 001, Table 7).
    pub const DEFAULT_POOL: AgingParameters = AgingParameters {
        touch_time: 3,
        hot_criteria: 2,
        stay_count: 0,
        cool_count: 1,
        percent_hot: 50,
    };

    pub fn with_percent_hot(self, percent_hot: u32) -> AgingParameters {
        AgingParameters {
            percent_hot,
            ..self
        }
    }
}

const HOT: usize = 0;
const COLD: usize = 1;

/// Whether a touch at `now` counts, the last counted one having been at `last`: at least
/// `touch_time` seconds later.
#[inline]
pub(crate) fn touch_counts(touch_time: u32, last: u32, now: u32) -> bool {
    now.wrapping_sub(last) >= touch_time
}

/// The touch counts and times of a working set's frames (x$bh.tch, x$bh.tim). Atomics, so
/// that the cache's hit path counts a touch without a latch; where one thread owns them (the
/// advice's miniature caches), a relaxed load or store costs what a plain one does.
pub(crate) struct TouchCounts {
    counts: Box<[AtomicU32]>,
    times: Box<[AtomicU32]>,
    touch_time: u32,
}

impl TouchCounts {
    pub(crate) fn new(frames: usize, touch_time: u32) -> TouchCounts {
        TouchCounts {
            counts: (0..frames).map(|_| AtomicU32::new(0)).collect(),
            times: (0..frames).map(|_| AtomicU32::new(0)).collect(),
            touch_time,
        }
    }

    /// The read that brought a block into `frame`, at `now`, is its first touch.
    #[inline]
    pub(crate) fn loaded(&self, frame: FrameId, now: u32) {
        self.counts[frame].store(1, Relaxed);
        self.times[frame].store(now, Relaxed);
    }

    /// A hit at `now`: counts a touch if `touch_time` seconds passed since the last counted
    /// one. No latch: two sessions touching at once may both count, as in Oracle.
    #[inline]
    pub(crate) fn touched(&self, frame: FrameId, now: u32) {
        let last = self.times[frame].load(Relaxed);
        if !touch_counts(self.touch_time, last, now) {
            return;
        }
        self.times[frame].store(now, Relaxed);
        let count = self.counts[frame].load(Relaxed);
        self.counts[frame].store(count.saturating_add(1), Relaxed);
    }

    #[inline]
    pub(crate) fn count(&self, frame: FrameId) -> u32 {
        self.counts[frame].load(Relaxed)
    }

    #[inline]
    fn set_count(&self, frame: FrameId, count: u32) {
        self.counts[frame].store(count, Relaxed);
    }

    /// When the frame's last counted touch (or its load) happened.
    #[inline]
    pub(crate) fn time(&self, frame: FrameId) -> u32 {
        self.times[frame].load(Relaxed)
    }
}

/// A working set's hot and cold regions and the replacement scan over them, for frames whose
/// touches `TouchCounts` keeps. Its caller holds the set's latch: the cache's 'cache buffers
/// lru chain', or a miniature cache's 'simulator lru latch' (`buffer/miniature.rs`).
pub(crate) struct AgingLists {
    lists: FrameLists,
    /// The last frame offered as a victim: if the cache refuses it (pinned, dirty), the next
    /// attempt moves it out of the way.
    offered: Option<FrameId>,
    parameters: AgingParameters,
    /// Buffers the hot region holds at most.
    hot_target: usize,
}

impl AgingLists {
    pub(crate) fn new(frames: usize, parameters: AgingParameters) -> AgingLists {
        let percent = parameters.percent_hot.min(100) as usize;
        AgingLists {
            lists: FrameLists::new(frames, 2),
            offered: None,
            parameters,
            hot_target: frames * percent / 100,
        }
    }

    /// A block was loaded into `frame`: at the midpoint, or at the cold end for a scan.
    #[inline]
    pub(crate) fn insert(&mut self, frame: FrameId, access: AccessKind) {
        match access {
            AccessKind::Scan => self.lists.push_tail(COLD, frame),
            AccessKind::Lookup | AccessKind::Index => self.lists.push_head(COLD, frame),
        }
    }

    /// The frame no longer holds a block.
    #[inline]
    pub(crate) fn remove(&mut self, frame: FrameId, counts: &TouchCounts) {
        self.lists.unlink(frame);
        if self.offered == Some(frame) {
            self.offered = None;
        }
        counts.set_count(frame, 0);
    }

    /// The replacement scan: see [`ReplacementPolicy::next_victim`].
    pub(crate) fn next_victim(&mut self, attempt: usize, counts: &TouchCounts) -> Option<FrameId> {
        if attempt > 0 {
            if let Some(refused) = self.offered.take() {
                if self.lists.list_of(refused) == Some(COLD) {
                    self.lists.push_head(COLD, refused);
                }
            }
        }
        // Each promotion moves one buffer out of the cold region for good (until it cools
        // back in), so the loop ends within twice the set's size.
        for _ in 0..2 * self.lists.frames() + 1 {
            let Some(frame) = self.lists.tail(COLD) else {
                // Everything is hot: the hot region's coldest buffer crosses the midpoint.
                self.cool_one(counts)?;
                continue;
            };
            if counts.count(frame) >= self.parameters.hot_criteria {
                self.lists.push_head(HOT, frame);
                counts.set_count(frame, self.parameters.stay_count);
                self.cool_excess(counts);
                continue;
            }
            self.offered = Some(frame);
            return Some(frame);
        }
        // Every buffer met kept earning promotion (a cool count at the hot criteria would do
        // that; the instance refuses such settings): take the cold end as it is.
        let frame = match self.lists.tail(COLD) {
            Some(frame) => frame,
            None => self.cool_one(counts)?,
        };
        self.offered = Some(frame);
        Some(frame)
    }

    /// Moves the hot region's last buffers into the cold one until it fits its share.
    fn cool_excess(&mut self, counts: &TouchCounts) {
        while self.lists.len(HOT) > self.hot_target {
            if self.cool_one(counts).is_none() {
                return;
            }
        }
    }

    /// Pushes the hot region's last buffer across the midpoint with the cool count.
    fn cool_one(&mut self, counts: &TouchCounts) -> Option<FrameId> {
        let frame = self.lists.tail(HOT)?;
        self.lists.push_head(COLD, frame);
        counts.set_count(frame, self.parameters.cool_count);
        Some(frame)
    }

    fn positions(&self) -> Vec<(FrameId, usize)> {
        self.lists.positions(&[HOT, COLD])
    }

    fn is_hot(&self, frame: FrameId) -> bool {
        self.lists.list_of(frame) == Some(HOT)
    }

    fn hot_buffers(&self) -> usize {
        self.lists.len(HOT)
    }
}

/// One working set aged by touch counts. Frames are numbered from 0 within the set.
pub struct TouchCountPolicy {
    set: Latch<AgingLists>,
    /// x$bh.tch and x$bh.tim, counted by hits without the latch.
    counts: TouchCounts,
    clock: Arc<dyn AgingClock>,
}

impl TouchCountPolicy {
    pub fn new(
        frames: usize,
        parameters: AgingParameters,
        clock: Arc<dyn AgingClock>,
    ) -> TouchCountPolicy {
        TouchCountPolicy {
            set: Latch::new(
                LatchName::CacheBuffersLruChain,
                AgingLists::new(frames, parameters),
            ),
            counts: TouchCounts::new(frames, parameters.touch_time),
            clock,
        }
    }
}

impl ReplacementPolicy for TouchCountPolicy {
    fn inserted(&self, frame: FrameId, access: AccessKind) {
        self.counts.loaded(frame, self.clock.seconds());
        self.set.lock().insert(frame, access);
    }

    fn touched(&self, frame: FrameId) {
        self.counts.touched(frame, self.clock.seconds());
    }

    fn removed(&self, frame: FrameId) {
        self.set.lock().remove(frame, &self.counts);
    }

    fn next_victim(&self, attempt: usize) -> Option<FrameId> {
        self.set.lock().next_victim(attempt, &self.counts)
    }

    fn positions(&self) -> Vec<(FrameId, usize)> {
        self.set.lock().positions()
    }

    fn name(&self) -> &'static str {
        "TOUCH COUNT"
    }

    fn touch_count(&self, frame: FrameId) -> u32 {
        self.counts.count(frame)
    }

    fn touch_time(&self, frame: FrameId) -> u32 {
        self.counts.time(frame)
    }

    fn is_hot(&self, frame: FrameId) -> bool {
        self.set.lock().is_hot(frame)
    }

    fn hot_buffers(&self) -> usize {
        self.set.lock().hot_buffers()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(frames: usize, percent_hot: u32) -> (TouchCountPolicy, Arc<VirtualClock>) {
        let clock = Arc::new(VirtualClock::new(100));
        let parameters = AgingParameters::DEFAULT_POOL.with_percent_hot(percent_hot);
        (
            TouchCountPolicy::new(frames, parameters, clock.clone()),
            clock,
        )
    }

    fn order(policy: &TouchCountPolicy) -> Vec<FrameId> {
        let mut positions = policy.positions();
        positions.sort_by_key(|&(_, position)| position);
        positions.into_iter().map(|(frame, _)| frame).collect()
    }

    #[test]
    fn new_blocks_enter_at_the_midpoint_and_scanned_ones_at_the_cold_end() {
        let (policy, _) = policy(4, 50);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Index);
        policy.inserted(2, AccessKind::Scan);
        assert_eq!(order(&policy), vec![1, 0, 2]);
        assert!(!policy.is_hot(0) && !policy.is_hot(1));
        assert_eq!(policy.next_victim(0), Some(2));
    }

    #[test]
    fn touches_count_only_when_the_touch_time_has_passed() {
        let (policy, clock) = policy(2, 50);
        policy.inserted(0, AccessKind::Lookup);
        assert_eq!(policy.touch_count(0), 1);
        policy.touched(0);
        clock.advance(2);
        policy.touched(0);
        assert_eq!(policy.touch_count(0), 1, "within 3 s of the read");
        clock.advance(1);
        policy.touched(0);
        assert_eq!(policy.touch_count(0), 2);
        policy.touched(0);
        assert_eq!(
            policy.touch_count(0),
            2,
            "within 3 s of the last counted touch"
        );
    }

    #[test]
    fn the_scan_promotes_a_hot_buffer_with_the_stay_count_and_takes_the_next() {
        let (policy, clock) = policy(4, 50);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        clock.advance(3);
        policy.touched(0);
        // Cold region, MRU to LRU: 1 0. Frame 0 has 2 touches: it goes hot, 1 is the victim.
        assert_eq!(policy.next_victim(0), Some(1));
        assert!(policy.is_hot(0));
        assert_eq!(policy.touch_count(0), 0, "_db_aging_stay_count");
        assert_eq!(policy.hot_buffers(), 1);
    }

    #[test]
    fn a_promotion_beyond_the_hot_share_cools_the_hot_regions_last_buffer() {
        let (policy, clock) = policy(4, 50);
        for frame in 0..4 {
            policy.inserted(frame, AccessKind::Lookup);
        }
        clock.advance(3);
        for frame in 0..3 {
            policy.touched(frame);
        }
        // Cold: 3 2 1 0; 0, 1 and 2 have 2 touches. Hot share: 2 buffers. The scan promotes
        // 0, then 1, then 2, which pushes 0 back across the midpoint with the cool count; 3,
        // untouched, is the victim.
        assert_eq!(policy.next_victim(0), Some(3));
        assert_eq!(policy.hot_buffers(), 2);
        assert!(!policy.is_hot(0), "cooled");
        assert_eq!(policy.touch_count(0), 1, "_db_aging_cool_count");
        assert_eq!(order(&policy), vec![2, 1, 0, 3]);
    }

    #[test]
    fn with_no_hot_share_promoted_buffers_go_to_the_head_of_one_list() {
        let (policy, clock) = policy(3, 0);
        for frame in 0..3 {
            policy.inserted(frame, AccessKind::Lookup);
        }
        clock.advance(3);
        policy.touched(0);
        assert_eq!(policy.next_victim(0), Some(1));
        assert_eq!(policy.hot_buffers(), 0);
        assert_eq!(order(&policy), vec![0, 2, 1]);
        // Promoted and at once pushed across the midpoint: the cool count, not the stay count.
        assert_eq!(policy.touch_count(0), 1);
    }

    #[test]
    fn a_refused_victim_is_moved_aside_for_the_next_attempt() {
        let (policy, _) = policy(3, 50);
        for frame in 0..3 {
            policy.inserted(frame, AccessKind::Lookup);
        }
        assert_eq!(policy.next_victim(0), Some(0));
        assert_eq!(policy.next_victim(1), Some(1));
        assert_eq!(policy.next_victim(2), Some(2));
    }

    #[test]
    fn an_all_hot_set_still_yields_a_victim() {
        let (policy, clock) = policy(2, 100);
        policy.inserted(0, AccessKind::Lookup);
        policy.inserted(1, AccessKind::Lookup);
        clock.advance(3);
        policy.touched(0);
        policy.touched(1);
        let victim = policy.next_victim(0);
        assert!(victim.is_some());
        policy.removed(victim.unwrap());
        assert_eq!(policy.positions().len(), 1);
    }
}
