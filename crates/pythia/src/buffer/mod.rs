//! The buffer cache: every block the instance reads or changes passes through it.
//!
//! Blocks are found through hash chains, each group of chains guarded by a 'cache buffers
//! chains' latch; a replacement policy behind a trait ([`policy`]) decides which buffer gives
//! up its block ('cache buffers lru chain'); DBWR ([`dbwr`]) writes dirty buffers in the
//! background, in checkpoint order, after the redo that describes them (the write-ahead
//! rule). Access is through guards: dropping a guard releases the pin and the content lock.
pub mod advice;
mod cache;
pub mod dbwr;
mod miniature;
pub mod policy;
pub mod pools;
pub mod simulate;
pub mod touch_count;
pub mod trace;

pub use advice::{AdviceMode, AdviceRow};
pub use cache::{
    BlockAccess, BlockRead, BlockWrite, BufferCache, BufferHeader, HolderImage, PoolStatistics,
    RedoFlusher, WorkingSetRow,
};
pub use policy::{AccessKind, ClassicLruPolicy, ClockPolicy, FrameId, ReplacementPolicy};
pub use pools::{BufferPool, CacheLayout, LruAlgorithm, PoolSize};
pub use touch_count::{AgingClock, AgingParameters, CoarseClock, TouchCountPolicy, VirtualClock};
pub use trace::{BlockTrace, TracedAccess};
