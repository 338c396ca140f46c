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

/// A working set's lists, under its latch.
struct WorkingSet {
    lists: FrameLists,
    /// The last frame offered as a victim: if the cache refuses it (pinned, dirty), the next
    /// attempt moves it out of the way.
    offered: Option<FrameId>,
}

/// One working set aged by touch counts. Frames are numbered from 0 within the set.
pub struct TouchCountPolicy {
    set: Latch<WorkingSet>,
    /// x$bh.tch.
    touch_counts: Box<[AtomicU32]>,
    /// x$bh.tim: when the last counted touch happened.
    touch_times: Box<[AtomicU32]>,
    parameters: AgingParameters,
    /// Buffers the hot region holds at most.
    hot_target: usize,
    clock: Arc<dyn AgingClock>,
}

impl TouchCountPolicy {
    pub fn new(
        frames: usize,
        parameters: AgingParameters,
        clock: Arc<dyn AgingClock>,
    ) -> TouchCountPolicy {
        let percent = parameters.percent_hot.min(100) as usize;
        TouchCountPolicy {
            set: Latch::new(
                LatchName::CacheBuffersLruChain,
                WorkingSet {
                    lists: FrameLists::new(frames, 2),
                    offered: None,
                },
            ),
            touch_counts: (0..frames).map(|_| AtomicU32::new(0)).collect(),
            touch_times: (0..frames).map(|_| AtomicU32::new(0)).collect(),
            parameters,
            hot_target: frames * percent / 100,
            clock,
        }
    }

    /// Moves the hot region's last buffers into the cold one until it fits its share.
    fn cool_excess(&self, lists: &mut FrameLists) {
        while lists.len(HOT) > self.hot_target {
            if self.cool_one(lists).is_none() {
                return;
            }
        }
    }

    /// Pushes the hot region's last buffer across the midpoint with the cool count.
    fn cool_one(&self, lists: &mut FrameLists) -> Option<FrameId> {
        let frame = lists.tail(HOT)?;
        lists.push_head(COLD, frame);
        self.touch_counts[frame].store(self.parameters.cool_count, Relaxed);
        Some(frame)
    }
}

impl ReplacementPolicy for TouchCountPolicy {
    fn inserted(&self, frame: FrameId, access: AccessKind) {
        // The read that brought the block in is its first touch.
        self.touch_counts[frame].store(1, Relaxed);
        self.touch_times[frame].store(self.clock.seconds(), Relaxed);
        let mut set = self.set.lock();
        match access {
            AccessKind::Scan => set.lists.push_tail(COLD, frame),
            AccessKind::Lookup | AccessKind::Index => set.lists.push_head(COLD, frame),
        }
    }

    fn touched(&self, frame: FrameId) {
        let now = self.clock.seconds();
        let last = self.touch_times[frame].load(Relaxed);
        if now.wrapping_sub(last) < self.parameters.touch_time {
            return;
        }
        // No latch: two sessions touching at once may both count, as in Oracle.
        self.touch_times[frame].store(now, Relaxed);
        let count = self.touch_counts[frame].load(Relaxed);
        self.touch_counts[frame].store(count.saturating_add(1), Relaxed);
    }

    fn removed(&self, frame: FrameId) {
        let mut set = self.set.lock();
        set.lists.unlink(frame);
        if set.offered == Some(frame) {
            set.offered = None;
        }
        self.touch_counts[frame].store(0, Relaxed);
    }

    fn next_victim(&self, attempt: usize) -> Option<FrameId> {
        let mut guard = self.set.lock();
        let set = &mut *guard;
        if attempt > 0 {
            if let Some(refused) = set.offered.take() {
                if set.lists.list_of(refused) == Some(COLD) {
                    set.lists.push_head(COLD, refused);
                }
            }
        }
        // Each promotion moves one buffer out of the cold region for good (until it cools
        // back in), so the loop ends within twice the set's size.
        for _ in 0..2 * set.lists.frames() + 1 {
            let Some(frame) = set.lists.tail(COLD) else {
                // Everything is hot: the hot region's coldest buffer crosses the midpoint.
                self.cool_one(&mut set.lists)?;
                continue;
            };
            if self.touch_counts[frame].load(Relaxed) >= self.parameters.hot_criteria {
                set.lists.push_head(HOT, frame);
                self.touch_counts[frame].store(self.parameters.stay_count, Relaxed);
                self.cool_excess(&mut set.lists);
                continue;
            }
            set.offered = Some(frame);
            return Some(frame);
        }
        // Every buffer met kept earning promotion (a cool count at the hot criteria would do
        // that; the instance refuses such settings): take the cold end as it is.
        let frame = match set.lists.tail(COLD) {
            Some(frame) => frame,
            None => self.cool_one(&mut set.lists)?,
        };
        set.offered = Some(frame);
        Some(frame)
    }

    fn positions(&self) -> Vec<(FrameId, usize)> {
        self.set.lock().lists.positions(&[HOT, COLD])
    }

    fn name(&self) -> &'static str {
        "TOUCH COUNT"
    }

    fn touch_count(&self, frame: FrameId) -> u32 {
        self.touch_counts[frame].load(Relaxed)
    }

    fn touch_time(&self, frame: FrameId) -> u32 {
        self.touch_times[frame].load(Relaxed)
    }

    fn is_hot(&self, frame: FrameId) -> bool {
        self.set.lock().lists.list_of(frame) == Some(HOT)
    }

    fn hot_buffers(&self) -> usize {
        self.set.lock().lists.len(HOT)
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
