//! A bounded recording of the cache's block gets, for the what-if advisor: the lab records a
//! real run's gets and replays them through other policies and Belady's optimum
//! (`buffer/simulate.rs`).
//!
//! Off, it costs one relaxed load per block get. On, every get appends under a mutex until
//! `limit` gets are held; the rest are counted as dropped, never recorded, so that a
//! forgotten recording cannot grow without bound.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use parking_lot::Mutex;

use crate::buffer::pools::BufferPool;
use crate::buffer::simulate::Access;

/// Most gets one recording holds: 24 bytes each, 384 MiB at most.
pub const TRACE_ACCESSES_MAX: usize = 16 << 20;

/// One recorded block get: the pool of the buffer that served it and what the replay needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracedAccess {
    pub pool: BufferPool,
    pub access: Access,
}

/// What a finished recording holds.
#[derive(Clone, Debug, Default)]
pub struct BlockTrace {
    pub accesses: Vec<TracedAccess>,
    /// Gets that came after the limit and were not recorded.
    pub dropped: u64,
}

impl BlockTrace {
    /// The gets of one pool, in order, as a replay takes them.
    pub fn of_pool(&self, pool: BufferPool) -> Vec<Access> {
        self.accesses
            .iter()
            .filter(|traced| traced.pool == pool)
            .map(|traced| traced.access)
            .collect()
    }

    /// Every get, pools ignored: the trace of a cache with one pool.
    pub fn all(&self) -> Vec<Access> {
        self.accesses.iter().map(|traced| traced.access).collect()
    }
}

#[derive(Default)]
pub(crate) struct TraceRecorder {
    on: AtomicBool,
    limit: std::sync::atomic::AtomicUsize,
    dropped: AtomicU64,
    accesses: Mutex<Vec<TracedAccess>>,
}

impl TraceRecorder {
    /// Starts a new recording of at most `limit` gets (capped at [`TRACE_ACCESSES_MAX`]),
    /// discarding one in progress.
    pub(crate) fn start(&self, limit: usize) {
        let limit = limit.min(TRACE_ACCESSES_MAX);
        let mut accesses = self.accesses.lock();
        accesses.clear();
        accesses.reserve(limit.min(1 << 20));
        self.limit.store(limit, Relaxed);
        self.dropped.store(0, Relaxed);
        self.on.store(true, Relaxed);
    }

    /// Ends the recording and hands it over (empty if none was started).
    pub(crate) fn stop(&self) -> BlockTrace {
        let mut accesses = self.accesses.lock();
        self.on.store(false, Relaxed);
        BlockTrace {
            accesses: std::mem::take(&mut *accesses),
            dropped: self.dropped.swap(0, Relaxed),
        }
    }

    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.on.load(Relaxed)
    }

    pub(crate) fn record(&self, traced: TracedAccess) {
        let mut accesses = self.accesses.lock();
        if !self.on.load(Relaxed) {
            return;
        }
        if accesses.len() < self.limit.load(Relaxed) {
            accesses.push(traced);
        } else {
            self.dropped.fetch_add(1, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::policy::AccessKind;

    fn get(block: u64) -> TracedAccess {
        TracedAccess {
            pool: if block.is_multiple_of(2) {
                BufferPool::Default
            } else {
                BufferPool::Recycle
            },
            access: Access {
                block,
                kind: AccessKind::Lookup,
                second: 0,
            },
        }
    }

    #[test]
    fn a_recording_is_bounded_and_only_while_on() {
        let recorder = TraceRecorder::default();
        recorder.record(get(1));
        assert!(recorder.stop().accesses.is_empty(), "nothing before start");
        recorder.start(3);
        for block in 0..5 {
            recorder.record(get(block));
        }
        let trace = recorder.stop();
        assert_eq!(trace.accesses.len(), 3);
        assert_eq!(trace.dropped, 2);
        assert_eq!(
            trace
                .of_pool(BufferPool::Default)
                .iter()
                .map(|access| access.block)
                .collect::<Vec<_>>(),
            vec![0, 2]
        );
        recorder.record(get(7));
        assert!(recorder.stop().accesses.is_empty(), "nothing after stop");
    }
}
