//! Transactions: row locks, undo, read consistency, commit and rollback.
//!
//! Oracle's design is the model, at row granularity (as InnoDB does it) instead of block
//! clones:
//!
//! - Every row piece carries the xid of the transaction that made it and the undo address
//!   (UBA) of the version before. A transaction locks a row by writing a version of it: the
//!   row's xid *is* the lock. A writer that finds the xid of another active transaction waits
//!   on that transaction ('enq: TX - row lock contention') until it commits or rolls back.
//! - Readers never wait. A query takes a snapshot SCN when it starts; for each row it walks
//!   back through undo until it reaches a version made by a transaction that committed at or
//!   before the snapshot (statement-level read consistency). Undo overwritten by the ring
//!   makes that impossible: ORA-01555.
//! - Commit takes the next SCN and publishes it under the 'mostly latch-free SCN' latch, in this order:
//!   state first, then the SCN, so that a snapshot that sees SCN s also sees every
//!   transaction committed at s. The commit record is logged in the same mini-transaction
//!   that marks the transaction table slot COMMITTED; `COMMIT` returns once it is on disk
//!   (unless `COMMIT WRITE NOWAIT` or the parameters say otherwise: [`commit`](self::commit)).
//! - Rollback walks the transaction's undo chain backwards applying each record's inverse;
//!   every inverse checks that the row still holds the version the record made, so applying
//!   it twice (recovery after a crash during rollback) is harmless.
//! - The in-memory transaction table remembers active transactions and recently ended
//!   ones (committed or rolled back). A transaction absent from it committed at or before
//!   every running snapshot: this holds because entries leave only when they ended at or
//!   before the oldest snapshot (a rolled-back entry too, ending at an SCN of its own taken
//!   after it restored its rows: a statement may hold a block copy taken before the
//!   rollback restored the row, still carrying the rolled-back xid), and because
//!   recovery rolls back every transaction that was active at a crash before the database
//!   opens.
//!
//! Deadlocks: before waiting, a transaction records whom it waits for and follows that chain
//! under the 'enqueue hash chains' latch; a cycle back to itself is ORA-00060 for the
//! statement that would close it.
//!
//! Row migration (the pieces and their bytes: `access/heap.rs`). An update that makes a row
//! too long for its block moves the row's data to a migrated piece in another block of the
//! segment and turns the piece at the ROWID into a forwarding head:
//!
//! ```text
//!   block 7, slot 2 (the ROWID)                    block 12, slot 5
//!   head:  FORWARDED xid uba  -> 12.5  ----------> migrated: MIGRATED xid uba  row data
//!          the lock and the version chain                    tag = the head's xid, uba
//! ```
//!
//! 1. The head keeps the versioning (xid, uba, the delete mark); the migrated piece holds
//!    only data. The ROWID, the row lock and the start of the undo chain stay where index
//!    entries point, so lock waits, unique checks and undo walks work on heads unchanged.
//! 2. Undo holds logical versions: the full row, never a forwarding address. Readers that
//!    walk undo never follow a forward, and rollback may put a version anywhere it fits.
//! 3. One mini-transaction writes the head and every piece a change touches, so after each:
//!    a live migrated piece's tag is its head's (xid, uba).
//! 4. Where a version goes: into the head's own block if it fits there (a migrated row comes
//!    home), else into its migrated piece in place, else into a new migrated piece in a block
//!    with room (the block the head's block last migrated into, the segment's last block, or
//!    a new block of the segment), re-pointing the head: a forward never leads to another
//!    forward. A migrated piece left behind is orphaned, not freed: flagged deleted, its data
//!    dropped, tagged with the change (xid, uba) that left it, and purged like a tombstone
//!    once that change is purgeable. A deleted migrated row leaves a plain tombstone head.
//! 5. Readers copy a head, let its block go, then read the migrated piece; a change may come
//!    between. A live piece whose tag is the copy's (xid, uba) holds that version's data.
//!    Otherwise the copy is stale and the piece carries a newer (xid, uba), from which the
//!    undo chain reaches the image of the version the copy names. The piece is still there:
//!    only a statement whose snapshot is older than the change that orphaned it can hold
//!    such a copy, and by 4 the orphan stays until no such snapshot runs.
//! 6. Rollback restores the logical version by the same rule as a change (4), orphaning what
//!    it leaves with the undone change's (xid, uba), from which 5 reaches the restored
//!    version. Undo of an insert frees the head and its migrated piece at once: only the
//!    inserting transaction ever saw them. Every inverse is one mini-transaction that first
//!    checks the head still holds the change it undoes, so recovery may apply it twice.
//! 7. Latch order: a change takes the head's block, the migrated piece's block and a
//!    candidate block in block-number order, then the segment header (for a new block), then
//!    undo. A candidate found needed only under the latches means letting go, choosing one,
//!    and starting again.
//!
//! Reads that follow a forward count 'table fetch continued row'. Oracle's full scans read a
//! migrated piece where they meet it; ours meet rows at their heads, where the versioning is,
//! so scans count continued rows too.
//!
//! The files, by job: `mod.rs` the transaction table in memory (`status`, `visible`, `prune`);
//! `snapshot.rs` statements' snapshots; `lifecycle.rs` begin, undo, commit, rollback and
//! recovery's rollback; `commit.rs` when a commit waits for its redo; `locks.rs` row lock waits
//! and deadlocks; `consistency.rs` the version a snapshot reads; `rows.rs` row changes and
//! migration; `index.rs` index entries; `segments.rs` segments made and dropped by DDL;
//! `undo.rs` the undo ring and the on-disk transaction table.

pub mod commit;
mod consistency;
mod index;
mod lifecycle;
mod locks;
mod rows;
mod segments;
mod snapshot;
pub mod undo;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use rustc_hash::FxHashMap;

use crate::access::space::SpaceManager;
use crate::buffer::BufferCache;
use crate::error::Result;
use crate::instrumentation::{striped, Latch, LatchName};
use crate::io::block::BlockId;
use crate::redo::log::RedoLog;

use snapshot::SnapshotShard;
use undo::UndoLayout;

pub use rows::{RowChange, RowOutcome};
pub use snapshot::Snapshot;

/// How many shards the in-memory transaction table has (each its own latch).
const TABLE_SHARDS: usize = 16;
/// Transaction ids are reserved in the control file this many at a time.
pub const XID_RESERVATION: u64 = 100_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransactionStatus {
    /// Not in the table: committed at or before every running snapshot.
    Old,
    Active,
    Committed(u64),
    /// Rolled back; the SCN is one the rollback took after restoring its rows (the current
    /// one, for a transaction that changed nothing). The entry stays until every snapshot
    /// is at that SCN or later, because a reader may hold a copy of a block taken before
    /// the rollback restored it: the copy's rows still carry this xid, and an xid missing
    /// from the table would read as committed long ago.
    RolledBack(u64),
}

struct Entry {
    status: Mutex<TransactionStatus>,
    finished: Condvar,
}

/// A session's transaction, begun at its first change.
pub struct Transaction {
    pub xid: u64,
    slot: usize,
    entry: Arc<Entry>,
    /// The undo block it writes in now: (block, wrap).
    undo_block: Option<(u32, u32)>,
    /// The undo block its slot's last transaction ended in, which this one goes on in.
    carried: Option<CarriedBlock>,
    /// The newest undo record (0 before the first change).
    pub last_uba: u64,
    /// The end of the newest redo this transaction made.
    pub redo_end: u64,
    pub savepoints: Vec<(String, u64)>,
    /// Segments it made and a rollback (to a savepoint, or whole) has undone: freed when it
    /// ends, by the mini-transaction that ends it (see "Segments" on `create_segment`).
    segments_undone: Vec<BlockId>,
    /// Segments it frees if it commits, each with the UBA of the undo record that says so
    /// (`drop_segment_at_commit`); a rollback past that record takes the drop back.
    segments_dropped: Vec<(u64, BlockId)>,
}

/// Insertion points of a heap segment: this many blocks take its inserts at once.
pub const INSERT_POINTS: usize = 16;

/// The blocks a heap segment's inserts go to (0: none yet), one per insertion point. A
/// transaction inserts at the point of its transaction table slot, so concurrent
/// transactions insert into different blocks instead of queueing on one ('buffer busy
/// waits' on the segment's last block), as Oracle's automatic segment space management
/// spreads inserts over blocks by process. At low concurrency a session's transactions tend
/// to get the same slot back (the free slots are a stack), so its rows stay together. Each
/// point fills its block and takes a new one from the segment: a segment has up to
/// `INSERT_POINTS` blocks partly filled. Shared by every version of a table's definition.
#[derive(Debug, Default)]
pub struct InsertPoints([AtomicU64; INSERT_POINTS]);

impl InsertPoints {
    fn of_slot(&self, slot: usize) -> &AtomicU64 {
        &self.0[slot % INSERT_POINTS]
    }

    /// The block `transaction`'s inserts go to (0: a new one).
    pub fn of(&self, transaction: &Transaction) -> &AtomicU64 {
        self.of_slot(transaction.slot)
    }

    /// Forgets every point's block (the segment was truncated).
    pub fn reset(&self) {
        for point in &self.0 {
            point.store(0, Ordering::Release);
        }
    }
}

/// The undo block a slot's last transaction wrote in last: the slot's next transaction goes
/// on writing in it while it has room and nobody else took it (`undo::adopt`).
#[derive(Clone, Copy, Debug)]
struct CarriedBlock {
    block: u32,
    wrap: u32,
    /// The transaction that wrote in it last (the block's owner).
    owner: u64,
}

/// An undo record written but not yet confirmed (the mini-transaction may still fail).
pub struct PendingUndo {
    pub uba: u64,
    new_block: Option<(u32, u32)>,
}

impl Transaction {
    /// Call after the mini-transaction that wrote `pending` committed.
    pub fn confirm(&mut self, pending: PendingUndo, redo_end: u64) {
        self.last_uba = pending.uba;
        if let Some(block) = pending.new_block {
            self.undo_block = Some(block);
        }
        self.redo_end = self.redo_end.max(redo_end);
    }
}

/// Part of the transaction table in memory: xid to its state. Every row a statement reads
/// looks its xid up here, so the hash is Fx (one multiply), not SipHash.
type TransactionShard = FxHashMap<u64, Arc<Entry>>;

pub struct TransactionManager {
    cache: Arc<BufferCache>,
    log: Arc<RedoLog>,
    space: Arc<SpaceManager>,
    layout: UndoLayout,
    scn: AtomicU64,
    next_xid: AtomicU64,
    xid_limit: AtomicU64,
    reserve_xids: Box<dyn Fn(u64) -> Result<()> + Send + Sync>,
    shards: Box<[Latch<TransactionShard>]>,
    /// Free slots of the on-disk table, each with the undo block it carries.
    free_slots: Latch<Vec<(usize, Option<CarriedBlock>)>>,
    commit_latch: Latch<()>,
    snapshots: Box<[Arc<SnapshotShard>]>,
    waits_for: Latch<HashMap<u64, u64>>,
    ring: Latch<()>,
    /// Per block of the undo ring (from `UndoLayout::first_ring_block`), the xid of the
    /// transaction that took it last, by the ring or from its slot (0: none since open). The
    /// ring hands out no block whose transaction is still active: those hold its undo. A
    /// compare-and-swap takes a block, so the ring and a slot's next transaction never both
    /// get one.
    claims: Box<[AtomicU64]>,
    ended_since_prune: AtomicU64,
    /// Every xid below this is out of the transaction table for good (`Old`): `status`
    /// answers without a latch. Raised by `prune`; see there.
    table_floor: AtomicU64,
    /// `begin`s between taking their xid and entering it in the table.
    beginning: AtomicU64,
    /// A thread is in `prune`.
    pruning: AtomicBool,
    /// The oldest snapshot the last settled `prune` used.
    pruned_at: AtomicU64,
}

/// Counts a `begin` in `TransactionManager::beginning` until dropped (every exit of `begin`).
struct Beginning<'a>(&'a AtomicU64);

impl<'a> Beginning<'a> {
    fn new(beginning: &'a AtomicU64) -> Beginning<'a> {
        beginning.fetch_add(1, Ordering::SeqCst);
        Beginning(beginning)
    }
}

impl Drop for Beginning<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A thread prunes the transaction table after this many lookups that found a committed
/// entry: a read-only workload on rows an ended transaction wrote would otherwise take the
/// table's latch for every row, for good (no transaction ends to prune it).
const COMMITTED_LOOKUPS_PER_PRUNE: u32 = 1024;

impl TransactionManager {
    #[allow(clippy::too_many_arguments)]
    /// `reserve_xids(limit)` must make `limit` durable (the control file) before returning.
    pub fn new(
        cache: Arc<BufferCache>,
        log: Arc<RedoLog>,
        space: Arc<SpaceManager>,
        layout: UndoLayout,
        scn: u64,
        next_xid: u64,
        xid_limit: u64,
        reserve_xids: Box<dyn Fn(u64) -> Result<()> + Send + Sync>,
    ) -> TransactionManager {
        TransactionManager {
            cache,
            log,
            space,
            layout,
            scn: AtomicU64::new(scn),
            next_xid: AtomicU64::new(next_xid.max(1)),
            xid_limit: AtomicU64::new(xid_limit),
            reserve_xids,
            shards: (0..TABLE_SHARDS)
                .map(|_| Latch::new(LatchName::TransactionAllocation, FxHashMap::default()))
                .collect(),
            free_slots: Latch::new(
                LatchName::TransactionAllocation,
                (0..layout.slot_count())
                    .rev()
                    .map(|slot| (slot, None))
                    .collect(),
            ),
            commit_latch: Latch::new(LatchName::MostlyLatchFreeScn, ()),
            snapshots: {
                (0..striped::stripe_count())
                    .map(|_| {
                        Arc::new(SnapshotShard(Latch::new(
                            LatchName::MostlyLatchFreeScn,
                            Vec::new(),
                        )))
                    })
                    .collect()
            },
            waits_for: Latch::new(LatchName::EnqueueHashChains, HashMap::new()),
            ring: Latch::new(LatchName::UndoGlobalData, ()),
            claims: (0..layout.ring_blocks())
                .map(|_| AtomicU64::new(0))
                .collect(),
            ended_since_prune: AtomicU64::new(0),
            table_floor: AtomicU64::new(0),
            beginning: AtomicU64::new(0),
            pruning: AtomicBool::new(false),
            pruned_at: AtomicU64::new(u64::MAX),
        }
    }

    pub fn layout(&self) -> &UndoLayout {
        &self.layout
    }

    /// The current SCN: every transaction committed at or before it is published.
    pub fn current_scn(&self) -> u64 {
        self.scn.load(Ordering::Acquire)
    }

    /// Raises the SCN (recovery: to the highest SCN seen in redo).
    pub fn advance_scn(&self, scn: u64) {
        self.scn.fetch_max(scn, Ordering::AcqRel);
    }

    pub fn next_xid(&self) -> u64 {
        self.next_xid.load(Ordering::Acquire)
    }

    fn shard(&self, xid: u64) -> &Latch<TransactionShard> {
        &self.shards[(xid as usize) % TABLE_SHARDS]
    }

    pub fn status(&self, xid: u64) -> TransactionStatus {
        if xid < self.table_floor.load(Ordering::Acquire) || xid == 0 {
            return TransactionStatus::Old;
        }
        let entry = self.shard(xid).lock().get(&xid).cloned();
        let status = match entry {
            Some(entry) => *entry.status.lock(),
            None => TransactionStatus::Old,
        };
        if matches!(status, TransactionStatus::Committed(_)) {
            thread_local! {
                static COMMITTED_LOOKUPS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
            }
            let due = COMMITTED_LOOKUPS.with(|count| {
                let next = (count.get() + 1) % COMMITTED_LOOKUPS_PER_PRUNE;
                count.set(next);
                next == 0
            });
            if due && self.oldest_snapshot() != self.pruned_at.load(Ordering::Relaxed) {
                self.prune();
            }
        }
        status
    }

    /// Whether a version made by `xid` is visible to a reader at `snapshot_scn` running in
    /// transaction `reader_xid` (0 when the reader has none).
    pub fn visible(&self, xid: u64, snapshot_scn: u64, reader_xid: u64) -> bool {
        if xid == 0 || xid == reader_xid {
            return true;
        }
        match self.status(xid) {
            TransactionStatus::Old => true,
            TransactionStatus::Committed(scn) => scn <= snapshot_scn,
            TransactionStatus::Active | TransactionStatus::RolledBack(_) => false,
        }
    }

    /// Whether nothing running can still need to see what `xid` replaced: its delete marks
    /// and tombstones may be removed.
    pub fn is_purgeable(&self, xid: u64) -> bool {
        match self.status(xid) {
            TransactionStatus::Old => true,
            TransactionStatus::Committed(scn) => scn <= self.oldest_snapshot(),
            TransactionStatus::Active | TransactionStatus::RolledBack(_) => false,
        }
    }

    /// Drops the entries of transactions that ended before every running snapshot began:
    /// no statement can hold a row version of theirs it would judge differently.
    ///
    /// A committed entry goes once every running snapshot sees it (committed at or before the
    /// oldest); a rolled-back one once every running snapshot is at or after the SCN it
    /// ended at, so began after it restored its rows (see `end_without_commit`: a reader
    /// may hold a copy of a block taken before the rollback restored the row).
    ///
    /// One thread prunes at a time (another that finds it pruning goes on: the pruner does
    /// the work). A settled prune records the oldest snapshot it used in `pruned_at`:
    /// readers that come to prune (`status`) skip it while the oldest snapshot has not
    /// moved, since every entry left then ended after it and none can go.
    ///
    /// Then the floor (`status` answers Old below it without a latch) rises to the lowest
    /// xid left in the table, or to `next_xid` read before the scan when none is left. That
    /// is safe only if every xid below the `next_xid` read is in the table or gone from it
    /// for good: so it is read first, and the floor is raised only when no `begin` was
    /// between taking its xid and entering it (one that took its xid before the read had
    /// entered it, under the shard latch the scan then takes; one after has a higher xid).
    pub fn prune(&self) {
        if self.pruning.swap(true, Ordering::Acquire) {
            return;
        }
        let next_xid = self.next_xid.load(Ordering::SeqCst);
        let settled = self.beginning.load(Ordering::SeqCst) == 0;
        let oldest = self.oldest_snapshot();
        let mut floor = next_xid;
        for shard in self.shards.iter() {
            let mut entries = shard.lock();
            entries.retain(|xid, entry| {
                let keep = match *entry.status.lock() {
                    TransactionStatus::Committed(scn) | TransactionStatus::RolledBack(scn) => {
                        scn > oldest
                    }
                    TransactionStatus::Active => true,
                    TransactionStatus::Old => false,
                };
                if keep {
                    floor = floor.min(*xid);
                }
                keep
            });
        }
        if settled {
            self.table_floor.fetch_max(floor, Ordering::SeqCst);
            self.pruned_at.store(oldest, Ordering::Relaxed);
        }
        self.pruning.store(false, Ordering::Release);
    }

    /// Transactions in the in-memory table (v$transaction).
    pub fn active_transactions(&self) -> Vec<u64> {
        let mut xids: Vec<u64> = self
            .shards
            .iter()
            .flat_map(|shard| {
                shard
                    .lock()
                    .iter()
                    .filter(|(_, entry)| *entry.status.lock() == TransactionStatus::Active)
                    .map(|(xid, _)| *xid)
                    .collect::<Vec<_>>()
            })
            .collect();
        xids.sort_unstable();
        xids
    }

    //
    // A DDL statement is one transaction, and the segments it makes and drops are part of
    // it, so that after a crash its whole effect is there or none of it, space included:
    //
    // - `create_segment` formats a segment in the mini-transaction that writes its undo
    //   record (SegmentCreate): the segment exists exactly when the record does. A rollback
    //   meets the record after undoing every later change (an index's entries are removed
    //   from its tree before the tree goes) and frees the segment with the transaction's
    //   slot, in one mini-transaction: were it freed before, a crash before the slot is FREE
    //   would make recovery undo the changes again, in blocks that another segment may have
    //   taken meanwhile. Recovery frees the segments of each transaction it rolls back the
    //   same way.
    // - `drop_segment_at_commit` writes an undo record (SegmentDrop) and remembers the
    //   segment; the commit record's mini-transaction frees its extents. Before that commit
    //   nothing is freed (a rollback, or a crash, keeps the segment); after it nothing is
    //   left to free. A rollback past the record forgets the drop.
    //
    // Freeing reads each segment's header for its extents and changes only the space
    // bitmap: the ending mini-transaction holds the bitmap blocks (at most the bitmap's
    // size) and the slot's block, however many segments go.
}
