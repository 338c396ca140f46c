//! Statements' snapshots: the SCN a statement reads as of, registered while it runs so that
//! purging and pruning keep what it may still need (`oldest_snapshot`).

use std::sync::Arc;

use crate::instrumentation::{striped, Latch};

use super::TransactionManager;

impl TransactionManager {
    /// Takes a snapshot for a statement (statement-level read consistency).
    pub fn snapshot(&self) -> Snapshot {
        let shard = &self.snapshots[striped::current_stripe(self.snapshots.len())];
        let mut registered = shard.0.lock();
        // Read under the shard's latch: see `oldest_snapshot`.
        let scn = self.current_scn();
        match registered.iter_mut().find(|(at, _)| *at == scn) {
            Some((_, count)) => *count += 1,
            None => registered.push((scn, 1)),
        }
        drop(registered);
        Snapshot {
            scn,
            shard: shard.clone(),
        }
    }

    /// The oldest SCN some running statement still reads as of. The current SCN is read
    /// first: a snapshot registered in a shard after this has read it reads the SCN under
    /// that shard's latch, after this released it, so no earlier than this current SCN.
    pub fn oldest_snapshot(&self) -> u64 {
        let current = self.current_scn();
        self.snapshots
            .iter()
            .filter_map(|shard| shard.0.lock().iter().map(|(scn, _)| *scn).min())
            .fold(current, u64::min)
    }
}

/// A registered snapshot: its SCN is kept from being purged while the guard lives.
pub struct Snapshot {
    pub scn: u64,
    shard: Arc<SnapshotShard>,
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        let mut registered = self.shard.0.lock();
        let at = registered.iter().position(|(scn, _)| *scn == self.scn);
        debug_assert!(at.is_some(), "a snapshot not in the shard it registered in");
        if let Some(at) = at {
            registered[at].1 -= 1;
            if registered[at].1 == 0 {
                registered.swap_remove(at);
            }
        }
    }
}

/// Statements' snapshots, registered in the shard of the CPU the statement starts on
/// (`instrumentation::striped`, one per CPU up to `STRIPES_MAX`): every
/// query takes one and drops it, and a single registry was a cache line (and a latch) all
/// CPUs wrote to for every statement. The oldest snapshot, asked for by purging and
/// pruning, reads every shard. A shard is a `mostly latch-free SCN` child latch over
/// (SCN, statements at it), padded to its own cache lines.
#[repr(align(128))]
pub(super) struct SnapshotShard(pub(super) Latch<Vec<(u64, u32)>>);
