//! The buffer cache's pools and replacement (`docs/lab-buffer-pools.md`, the design in
//! `docs/buffer-pools.md`).
//!
//! ```text
//!   stuffer    stuffer.rs    seed 001, BUFFER_STUFFER (Tables 4-6): 10,000 LCG-chosen joins
//!                            under four pool configurations (DEFAULT, RECYCLE, KEEP), with
//!                            the classic LRU (Oracle 8.0) and the touch count (8i), beside
//!                            Belady's optimum and other policies replayed on the same gets
//!   midpoint   midpoint.rs   seed 001, Table 9: the same run in one DEFAULT pool by
//!                            _db_percent_hot_default (Oracle8i's midpoint insertion)
//!   advice     advice.rs     v$db_cache_advice (Oracle9i) after the same run, checked by
//!                            rerunning at 0.5x to 2x the buffers
//!   scan       scan.rs       a hot set against full scans of 7.5x the pool: NOCACHE, CACHE,
//!                            a RECYCLE pool, by algorithm
//!   hitpath    hitpath.rs    the hit path's scaling: cached gets, one thread against two
//! ```
//!
//! `stuffer.rs` holds what the first three share: seed 001's objects, its access schedule in
//! virtual time (so that blocks age as on the seed's machine), a run that records its block
//! gets, and the replays of the seed's own objects. Those three are deterministic; `scan` and
//! `hitpath` are timed.

use super::Group;

pub mod advice;
pub mod hitpath;
pub mod midpoint;
pub mod scan;
pub mod stuffer;

pub const GROUP: Group = Group {
    name: "buffer pools",
    chapter: "docs/lab-buffer-pools.md",
};
