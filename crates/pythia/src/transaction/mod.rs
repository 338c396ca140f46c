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

pub mod commit;
pub mod undo;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
use rustc_hash::FxHashMap;

use crate::access::btree::BTree;
use crate::access::heap::{self, RowId, RowPiece, ROW_DELETED};
use crate::access::segment;
use crate::access::space::SpaceManager;
use crate::buffer::{AccessKind, BlockAccess, BufferCache, BufferPool};
use crate::error::{Error, Result};
use crate::instrumentation::{self, striped, Latch, LatchName, Statistic, WaitEvent};
use crate::io::block::{self, BlockId};
use crate::io::datafile::SYSTEM_FILE;
use crate::redo::log::RedoLog;
use crate::redo::mtr::{Held, Mtr};
use crate::redo::record::RECORD_COMMIT;
use commit::CommitOptions;
use undo::{SlotState, UndoKind, UndoLayout, UndoRecord};

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
struct SnapshotShard(Latch<Vec<(u64, u32)>>);

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

    /// Begins a transaction: an xid and a slot in the transaction table.
    ///
    /// The entry goes into the table right after the xid is taken, so that the window
    /// `prune` must not raise the floor across (`beginning`) holds no I/O; an error later
    /// takes it out again (no row can carry an xid whose `begin` failed).
    pub fn begin(&self) -> Result<Transaction> {
        let entry = Arc::new(Entry {
            status: Mutex::new(TransactionStatus::Active),
            finished: Condvar::new(),
        });
        let xid = {
            let _beginning = Beginning::new(&self.beginning);
            let xid = self.next_xid.fetch_add(1, Ordering::SeqCst);
            self.shard(xid).lock().insert(xid, entry.clone());
            xid
        };
        let started = self.start(xid);
        if started.is_err() {
            self.shard(xid).lock().remove(&xid);
        }
        let (slot, carried) = started?;
        Ok(Transaction {
            xid,
            slot,
            entry,
            undo_block: None,
            carried,
            last_uba: 0,
            redo_end: 0,
            savepoints: Vec::new(),
            segments_undone: Vec::new(),
            segments_dropped: Vec::new(),
        })
    }

    /// `begin`'s work after the xid is in the table: the xid reserved in the control file
    /// when it passes the reservation, and a free slot. Returns the slot and the undo block
    /// it carries.
    ///
    /// Nothing is written to the slot yet: it goes ACTIVE in the mini-transaction of the
    /// transaction's first undo record (`write_undo`), which every change of the transaction
    /// follows or is part of. So a transaction costs no mini-transaction of its own before
    /// its first change, and one that changes nothing none at all; and the slot is ACTIVE on
    /// disk (in redo) before anything recovery would have to roll back.
    fn start(&self, xid: u64) -> Result<(usize, Option<CarriedBlock>)> {
        if xid >= self.xid_limit.load(Ordering::Acquire) {
            let _latch = self.commit_latch.lock();
            let limit = self.xid_limit.load(Ordering::Acquire);
            if xid >= limit {
                let new_limit = xid + XID_RESERVATION;
                (self.reserve_xids)(new_limit)?;
                self.xid_limit.store(new_limit, Ordering::Release);
            }
        }
        self.free_slots.lock().pop().ok_or_else(|| {
            Error::new(
                1554,
                format!(
                    "transaction concurrency limit reached: all {} slots in use",
                    self.layout.slot_count()
                ),
            )
        })
    }

    /// Writes an undo record for `transaction` inside `mtr` (allocating an undo block when
    /// the current one is full). Confirm with `Transaction::confirm` after `mtr` commits.
    pub fn write_undo(
        &self,
        transaction: &Transaction,
        mtr: &mut Mtr,
        mut record: UndoRecord,
    ) -> Result<PendingUndo> {
        record.previous_uba = transaction.last_uba;
        let bytes = record.encode();
        if bytes.len() > self.layout.record_bytes_max() {
            return Err(Error::internal(format!(
                "undo record of {} bytes exceeds an undo block",
                bytes.len()
            )));
        }
        instrumentation::add(Statistic::UndoChangeVectorSize, bytes.len() as u64);
        if let Some((block_number, _)) = transaction.undo_block {
            if let Some(uba) = undo::append(mtr, block_number, &bytes)? {
                return Ok(PendingUndo {
                    uba,
                    new_block: None,
                });
            }
        }
        let (block_number, wrap) = match self.adopt_carried(transaction, mtr, bytes.len())? {
            Some(carried) => carried,
            None => {
                let _ring = self.ring.lock();
                let claim = |block: u32| self.claim(block, transaction.xid);
                undo::allocate_block(mtr, &self.layout, transaction.xid, &claim)?
            }
        };
        undo::write_slot(
            mtr,
            self.layout.slot_address(transaction.slot),
            SlotState {
                xid: transaction.xid,
                state: undo::SLOT_ACTIVE,
                current_block: undo::current_block_tag(block_number, wrap),
                commit_scn: 0,
            },
        )?;
        let uba = undo::append(mtr, block_number, &bytes)?
            .ok_or_else(|| Error::internal("undo record does not fit an empty undo block"))?;
        Ok(PendingUndo {
            uba,
            new_block: Some((block_number, wrap)),
        })
    }

    /// A transaction's first undo record goes into the block its slot carries, if nobody
    /// took it since and the record fits: returns that block, owned by the transaction now.
    fn adopt_carried(
        &self,
        transaction: &Transaction,
        mtr: &mut Mtr,
        record_bytes: usize,
    ) -> Result<Option<(u32, u32)>> {
        let Some(carried) = transaction
            .carried
            .filter(|_| transaction.undo_block.is_none())
        else {
            return Ok(None);
        };
        let Some(claim) = self.claim_of(carried.block) else {
            return Ok(None);
        };
        // The claim first: from then on the ring hands the block to nobody else. Should the
        // record not fit after all, the claim lapses when this transaction ends. The claim
        // may be this transaction's already: a first record whose mini-transaction failed.
        let claimed = claim.compare_exchange(
            carried.owner,
            transaction.xid,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        if claimed.is_err_and(|holder| holder != transaction.xid) {
            return Ok(None);
        }
        let adopted = undo::adopt(
            mtr,
            carried.block,
            carried.wrap,
            carried.owner,
            transaction.xid,
            record_bytes,
        )?;
        Ok(adopted.then_some((carried.block, carried.wrap)))
    }

    fn claim_of(&self, block: u32) -> Option<&AtomicU64> {
        let index = block.checked_sub(self.layout.first_ring_block())?;
        self.claims.get(index as usize)
    }

    /// The ring's test for undo block `block`: takes it for `xid` unless the transaction that
    /// took it last is still active.
    fn claim(&self, block: u32, xid: u64) -> bool {
        let Some(claim) = self.claim_of(block) else {
            return false;
        };
        let holder = claim.load(Ordering::Acquire);
        (holder == 0 || self.status(holder) != TransactionStatus::Active)
            && claim
                .compare_exchange(holder, xid, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
    }

    /// A slot back on the free list, with the undo block its next transaction goes on in.
    fn free_slot(&self, transaction: &Transaction) {
        let carried = match transaction.undo_block {
            Some((block, wrap)) => Some(CarriedBlock {
                block,
                wrap,
                owner: transaction.xid,
            }),
            None => transaction.carried,
        };
        self.free_slots.lock().push((transaction.slot, carried));
    }

    /// Commits: logs the commit record, publishes the SCN, and (when `wait`) waits on 'log
    /// file sync' until the commit is durable (`COMMIT WRITE [NO]WAIT IMMEDIATE`). Returns
    /// the commit SCN.
    pub fn commit(&self, transaction: Transaction, wait: bool) -> Result<u64> {
        self.commit_with(
            transaction,
            CommitOptions {
                wait,
                immediate: true,
            },
        )
    }

    /// `commit` with the `COMMIT WRITE` options decided for it (the [`commit`](self::commit)
    /// module). Whatever they are, the commit is visible to other sessions before its redo is
    /// written.
    pub fn commit_with(&self, transaction: Transaction, options: CommitOptions) -> Result<u64> {
        let address = self.layout.slot_address(transaction.slot);
        let mut mtr = Mtr::new(&self.cache);
        // The segments it dropped, and those it made and undid, are freed by the commit
        // record itself. The space bitmap's blocks before the slot's: a mini-transaction
        // that extends a segment takes the bitmap and then undo.
        let freed: Vec<BlockId> = transaction
            .segments_dropped
            .iter()
            .map(|(_, header)| *header)
            .chain(transaction.segments_undone.iter().copied())
            .collect();
        self.free_segments(&mut mtr, &freed)?;
        mtr.get(
            BlockId::new(crate::io::datafile::UNDO_FILE, address.block),
            AccessKind::Lookup,
        )?;
        let (scn, end) = {
            let _latch = self.commit_latch.lock();
            let scn = self.current_scn() + 1;
            undo::write_slot(
                &mut mtr,
                address,
                SlotState {
                    xid: transaction.xid,
                    state: undo::SLOT_COMMITTED,
                    current_block: 0,
                    commit_scn: scn,
                },
            )?;
            let end = mtr.commit(&self.log, scn, RECORD_COMMIT)?;
            self.finish(&transaction, TransactionStatus::Committed(scn));
            self.scn.store(scn, Ordering::Release);
            (scn, end)
        };
        self.free_slot(&transaction);
        instrumentation::add(Statistic::UserCommits, 1);
        self.count_ended();
        self.log.commit_redo(end, options.wait, options.immediate)?;
        Ok(scn)
    }

    /// Prunes the transaction table every 256 ended transactions.
    fn count_ended(&self) {
        if self.ended_since_prune.fetch_add(1, Ordering::Relaxed) % 256 == 255 {
            self.prune();
        }
    }

    fn finish(&self, transaction: &Transaction, status: TransactionStatus) {
        *transaction.entry.status.lock() = status;
        transaction.entry.finished.notify_all();
    }

    /// Rolls the whole transaction back and ends it.
    pub fn rollback(&self, transaction: Transaction) -> Result<()> {
        self.end_without_commit(transaction)?;
        instrumentation::add(Statistic::UserRollbacks, 1);
        instrumentation::add(Statistic::TransactionRollbacks, 1);
        Ok(())
    }

    /// Ends a transaction that changed nothing, for a COMMIT: no commit record is needed
    /// (Oracle writes none either), and it counts as a commit, not a rollback.
    pub fn commit_unchanged(&self, transaction: Transaction) -> Result<()> {
        debug_assert_eq!(transaction.last_uba, 0);
        self.end_without_commit(transaction)?;
        instrumentation::add(Statistic::UserCommits, 1);
        Ok(())
    }

    /// Ends a transaction with its changes undone. One that changed rows takes the next
    /// SCN, as a commit does, and ends RolledBack at it: a snapshot at that SCN or later
    /// began after the rows were restored, so once every running snapshot is (`prune`) no
    /// reader can hold a copy of a block with its changes, and the entry can go even when
    /// nothing commits after it. One that changed nothing ends at the current SCN.
    fn end_without_commit(&self, mut transaction: Transaction) -> Result<()> {
        let changed = transaction.last_uba != 0;
        self.rollback_to(&mut transaction, 0)?;
        debug_assert!(
            transaction.segments_dropped.is_empty(),
            "a whole rollback takes every drop back"
        );
        let mut mtr = Mtr::new(&self.cache);
        // The segments it made go in the mini-transaction that frees its slot: until that is
        // durable, recovery rolls the transaction back again, and its undo may still read
        // them (an index's entries are removed from its tree before the tree goes).
        self.free_segments(&mut mtr, &transaction.segments_undone)?;
        // A slot goes ACTIVE with its transaction's first undo record: with none written there
        // is nothing to free, and the mini-transaction below logs nothing.
        if transaction.undo_block.is_some() {
            undo::write_slot(
                &mut mtr,
                self.layout.slot_address(transaction.slot),
                SlotState {
                    xid: 0,
                    state: undo::SLOT_FREE,
                    current_block: 0,
                    commit_scn: 0,
                },
            )?;
        }
        if changed {
            let _latch = self.commit_latch.lock();
            let scn = self.current_scn() + 1;
            mtr.commit(&self.log, scn, 0)?;
            self.finish(&transaction, TransactionStatus::RolledBack(scn));
            self.scn.store(scn, Ordering::Release);
        } else {
            let scn = self.current_scn();
            mtr.commit(&self.log, scn, 0)?;
            self.finish(&transaction, TransactionStatus::RolledBack(scn));
        }
        self.free_slot(&transaction);
        self.count_ended();
        Ok(())
    }

    /// Undoes every change newer than `stop_uba` (a savepoint, or 0 for all). Shielded: a
    /// cancel or a time limit never stops an undo halfway (`instrumentation::interrupt`).
    pub fn rollback_to(&self, transaction: &mut Transaction, stop_uba: u64) -> Result<()> {
        instrumentation::interrupt::shielded(|| {
            let mut uba = transaction.last_uba;
            while uba != 0 && uba != stop_uba {
                let record = undo::read(&self.cache, uba)?;
                match record.kind {
                    UndoKind::SegmentCreate => {
                        transaction
                            .segments_undone
                            .push(self.created_segment(&record)?);
                    }
                    UndoKind::SegmentDrop => transaction
                        .segments_dropped
                        .retain(|(dropped_at, _)| *dropped_at != uba),
                    _ => self.apply_inverse(transaction.xid, uba, &record)?,
                }
                instrumentation::add(Statistic::RollbackChangesUndoRecordsApplied, 1);
                uba = record.previous_uba;
                transaction.last_uba = uba;
            }
            Ok(())
        })
    }

    /// Applies the inverse of one undo record of a row or an index entry, if the change it
    /// undoes is still there. (A segment's records are the caller's: they free nothing until
    /// the transaction ends.)
    fn apply_inverse(&self, xid: u64, uba: u64, record: &UndoRecord) -> Result<()> {
        let scn = self.current_scn();
        match record.kind {
            UndoKind::SegmentCreate | UndoKind::SegmentDrop => {
                return Err(Error::internal(
                    "a segment's undo record applied as a row's",
                ))
            }
            UndoKind::HeapInsert | UndoKind::HeapUpdate | UndoKind::HeapDelete => {
                self.undo_row_change(xid, uba, record)?
            }
            UndoKind::IndexInsert | UndoKind::IndexDeleteMark => {
                let header = BlockId::from_u64(record.target);
                let (rowid, key) = decode_index_image(&record.payload)?;
                // An undo record names the index, not its pool (docs/buffer-pools.md).
                let tree = BTree::open(&self.cache, header, false, BufferPool::Default)?;
                if record.kind == UndoKind::IndexInsert {
                    tree.remove(&self.cache, &self.log, scn, key, rowid)?;
                } else {
                    tree.unmark_deleted(&self.cache, &self.log, scn, key, rowid)?;
                }
            }
        }
        Ok(())
    }

    /// Waits until `holder` ends, as transaction `waiter` ('enq: TX - row lock contention').
    /// ORA-00060 when the wait would close a cycle.
    pub fn wait_for(&self, waiter: u64, holder: u64) -> Result<()> {
        let entry = match self.shard(holder).lock().get(&holder).cloned() {
            Some(entry) => entry,
            None => return Ok(()),
        };
        {
            let mut waits = self.waits_for.lock();
            let mut current = holder;
            let mut steps = 0;
            while let Some(&next) = waits.get(&current) {
                if next == waiter || steps > 10_000 {
                    instrumentation::add(Statistic::EnqueueDeadlocks, 1);
                    return Err(Error::deadlock());
                }
                current = next;
                steps += 1;
            }
            if holder == waiter {
                return Err(Error::deadlock());
            }
            waits.insert(waiter, holder);
        }
        instrumentation::add(Statistic::EnqueueRequests, 1);
        instrumentation::add(Statistic::EnqueueWaits, 1);
        let waited = {
            let _wait = instrumentation::wait(
                WaitEvent::EnqueueTxRowLockContention,
                0x5458_0006,
                holder >> 16,
                holder & 0xFFFF,
            );
            let mut status = entry.status.lock();
            let mut waited = Ok(());
            while *status == TransactionStatus::Active && waited.is_ok() {
                entry
                    .finished
                    .wait_for(&mut status, Duration::from_millis(100));
                // A cancel or the statement's time limit ends the wait (the statement
                // fails; the holder goes on).
                waited = instrumentation::interrupt::check_waiting();
            }
            waited
        };
        self.waits_for.lock().remove(&waiter);
        waited
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

    /// Crash recovery's second half: rolls back every transaction the table shows ACTIVE.
    /// Returns (transactions rolled back, undo records applied). Also raises the next xid
    /// past every xid in the table.
    pub fn recover(&self) -> Result<(usize, usize)> {
        let slots = undo::read_slots(&self.cache, &self.layout)?;
        let mut transactions = 0;
        let mut applied = 0;
        let highest = slots.iter().map(|(_, slot)| slot.xid).max().unwrap_or(0);
        self.next_xid.fetch_max(highest + 1, Ordering::AcqRel);
        for (slot, state) in slots {
            if state.state != undo::SLOT_ACTIVE {
                continue;
            }
            let mut uba = undo::last_record_in_block(&self.cache, state.current_block, state.xid)?
                .unwrap_or(0);
            // Segments it made: freed with its slot, as a live rollback frees them. The
            // drops it asked for never happened (they wait for a commit).
            let mut made = Vec::new();
            while uba != 0 {
                let record = undo::read(&self.cache, uba)?;
                match record.kind {
                    UndoKind::SegmentCreate => made.push(self.created_segment(&record)?),
                    UndoKind::SegmentDrop => {}
                    _ => self.apply_inverse(state.xid, uba, &record)?,
                }
                applied += 1;
                uba = record.previous_uba;
            }
            let mut mtr = Mtr::new(&self.cache);
            self.free_segments(&mut mtr, &made)?;
            undo::write_slot(
                &mut mtr,
                self.layout.slot_address(slot),
                SlotState {
                    xid: 0,
                    state: undo::SLOT_FREE,
                    current_block: 0,
                    commit_scn: 0,
                },
            )?;
            mtr.commit(&self.log, self.current_scn(), 0)?;
            transactions += 1;
        }
        Ok((transactions, applied))
    }

    // ----- row operations ---------------------------------------------------------------

    /// The version of a row visible at `snapshot_scn` to `reader_xid`, from its head: walks
    /// undo back from the current version, and follows a forwarding head to its migrated
    /// piece. None when no version is visible (inserted later, or deleted), or when `piece`
    /// is a migrated piece (not a row: its row is met at its head).
    pub fn consistent_version(
        &self,
        mut piece: RowPiece,
        snapshot_scn: u64,
        reader_xid: u64,
    ) -> Result<Option<Vec<u8>>> {
        if piece.is_migrated() {
            return Ok(None);
        }
        loop {
            if self.visible(piece.xid, snapshot_scn, reader_xid) {
                if piece.is_deleted() {
                    return Ok(None);
                }
                return match piece.forward_address() {
                    Some(target) => self.migrated_version(&piece, target).map(Some),
                    None => Ok(Some(piece.data)),
                };
            }
            if piece.uba == 0 {
                return Ok(None);
            }
            let record = undo::read(&self.cache, piece.uba)?;
            instrumentation::add(Statistic::DataBlocksConsistentReadsUndoRecordsApplied, 1);
            match record.kind {
                UndoKind::HeapInsert => return Ok(None),
                UndoKind::HeapUpdate | UndoKind::HeapDelete => {
                    piece = decode_row_image(&record.payload)?
                }
                UndoKind::IndexInsert
                | UndoKind::IndexDeleteMark
                | UndoKind::SegmentCreate
                | UndoKind::SegmentDrop => {
                    return Err(Error::internal(
                        "row undo chain leads to an index or segment record",
                    ))
                }
            }
        }
    }

    /// The data of the version a forwarding `head` (a copy, perhaps stale) names, from the
    /// migrated piece at `target` or, when that has changed since the copy, from undo (the
    /// essay's rule 5).
    fn migrated_version(&self, head: &RowPiece, target: RowId) -> Result<Vec<u8>> {
        instrumentation::add(Statistic::TableFetchContinuedRow, 1);
        let piece = {
            let data = self.cache.read(target.block_id(), AccessKind::Lookup)?;
            heap::read(&data, target.slot)?
        };
        let Some(piece) = piece.filter(RowPiece::is_migrated) else {
            return Err(Error::internal(format!(
                "forwarding address {} leads to no migrated row piece",
                target.to_u64()
            )));
        };
        if !piece.is_deleted() && (piece.xid, piece.uba) == (head.xid, head.uba) {
            return Ok(piece.data);
        }
        let mut uba = piece.uba;
        while uba != 0 {
            let record = undo::read(&self.cache, uba)?;
            instrumentation::add(Statistic::DataBlocksConsistentReadsUndoRecordsApplied, 1);
            if !matches!(record.kind, UndoKind::HeapUpdate | UndoKind::HeapDelete) {
                break;
            }
            let image = decode_row_image(&record.payload)?;
            if (image.xid, image.uba) == (head.xid, head.uba) {
                return Ok(image.data);
            }
            uba = image.uba;
        }
        Err(Error::internal(format!(
            "the migrated piece at {} does not lead to the version its head names",
            target.to_u64()
        )))
    }

    /// Reads the head of the row at `rowid` (its latest version, whoever made it), its block
    /// read into `pool` (its table's) when not cached. None when the slot holds no row:
    /// unused, or a migrated piece of a row whose ROWID is elsewhere. A forwarding head's
    /// data is an address; `consistent_version` follows it.
    pub fn current_piece(&self, rowid: RowId, pool: BufferPool) -> Result<Option<RowPiece>> {
        let data = self.cache.read(rowid.block_id(), row_access(pool))?;
        head_piece(&data, rowid.slot)
    }

    /// `current_piece` for several slots of one block, with one get of the block.
    pub fn current_pieces(&self, block: BlockId, slots: &[u16]) -> Result<Vec<Option<RowPiece>>> {
        let data = self.cache.read(block, AccessKind::Lookup)?;
        slots.iter().map(|&slot| head_piece(&data, slot)).collect()
    }

    /// Inserts a row into a heap segment whose blocks go to `pool` (the table's: the insert
    /// block, the segment header and a block formatted for the row), at the transaction's
    /// insertion point of `points` (see [`InsertPoints`]).
    pub fn insert_row(
        &self,
        transaction: &mut Transaction,
        segment_header: BlockId,
        object_id: u32,
        pool: BufferPool,
        points: &InsertPoints,
        data: &[u8],
    ) -> Result<RowId> {
        let hint = points.of(transaction);
        let block_size = self.cache.block_size();
        if data.len() > heap::row_bytes_max(block_size) {
            return Err(Error::new(
                1467,
                format!(
                    "row of {} bytes exceeds the {} bytes a {block_size}-byte block can hold",
                    data.len(),
                    heap::row_bytes_max(block_size)
                ),
            ));
        }
        let reserve = heap::pctfree_bytes(block_size);
        for attempt in 0..3 {
            let mut mtr = Mtr::new(&self.cache);
            let candidate = hint.load(Ordering::Acquire) as u32;
            let held = if candidate != 0 && attempt < 2 {
                let held = mtr.get(
                    crate::io::block::BlockId::new(crate::io::datafile::SYSTEM_FILE, candidate),
                    row_access(pool),
                )?;
                if !heap::fits(mtr.block_ref(held), data.len(), reserve) {
                    // Reclaim tombstones nobody can see any more, then retry here once.
                    if attempt == 0
                        && self.purge_block(mtr.block(held)) > 0
                        && heap::fits(mtr.block_ref(held), data.len(), reserve)
                    {
                        held
                    } else {
                        drop(mtr);
                        hint.store(0, Ordering::Release);
                        continue;
                    }
                } else {
                    held
                }
            } else {
                let id = segment::allocate_block(&mut mtr, &self.space, segment_header, pool)?;
                let held = mtr.new_block(id, pool)?;
                heap::format(mtr.block(held), id, object_id, segment_header.block);
                held
            };
            let block_number = mtr.id(held).block;
            let piece = RowPiece {
                flags: 0,
                xid: transaction.xid,
                uba: 0,
                data: data.to_vec(),
            };
            let Some(slot) = heap::insert(mtr.block(held), &piece, 0) else {
                return Err(Error::internal(
                    "heap insert into a block that had room failed",
                ));
            };
            let rowid = RowId {
                block: block_number,
                slot,
            };
            let pending = self.write_undo(
                transaction,
                &mut mtr,
                UndoRecord {
                    kind: UndoKind::HeapInsert,
                    object_id,
                    previous_uba: 0,
                    target: rowid.to_u64(),
                    payload: Vec::new(),
                },
            )?;
            let piece = RowPiece {
                uba: pending.uba,
                ..piece
            };
            heap::replace(mtr.block(held), slot, &piece)?;
            let end = mtr.commit(&self.log, self.current_scn(), 0)?;
            transaction.confirm(pending, end);
            hint.store(block_number as u64, Ordering::Release);
            return Ok(rowid);
        }
        Err(Error::internal("heap insert found no block with room"))
    }

    /// Removes tombstones and orphaned migrated pieces that no running statement can reach
    /// from a heap block held for change. Returns the number removed.
    fn purge_block(&self, block: &mut [u8]) -> usize {
        let Ok(pieces) = heap::all_pieces(block) else {
            return 0;
        };
        let mut removed = 0;
        for (slot, piece) in pieces {
            if piece.flags & ROW_DELETED != 0 && self.is_purgeable(piece.xid) {
                heap::remove(block, slot);
                removed += 1;
            }
        }
        removed
    }

    /// Changes a row, locking it. `change` gets the current row data (None when the row no
    /// longer exists) and returns the new data, `RowChange::Keep` to leave the row alone, or
    /// `RowChange::Delete`. Waits for another active transaction holding the row; computes
    /// again if the row changed meanwhile. A row that outgrows its block migrates (the
    /// essay's "Row migration"): its ROWID stays. The blocks it reads (the row's, its
    /// migrated piece's, a block to migrate into, the segment header, a new block) go to
    /// `pool`, its table's.
    pub fn change_row(
        &self,
        transaction: &mut Transaction,
        object_id: u32,
        pool: BufferPool,
        rowid: RowId,
        change: &mut dyn FnMut(Option<&[u8]>) -> Result<RowChange>,
    ) -> Result<RowOutcome> {
        // None: no candidate block looked for yet; Some(0): none has room.
        let mut candidate: Option<u32> = None;
        let mut attempts = 0;
        loop {
            let Some(head) = self.current_piece(rowid, pool)? else {
                return Ok(RowOutcome::Missing);
            };
            if head.xid != transaction.xid
                && head.xid != 0
                && self.status(head.xid) == TransactionStatus::Active
            {
                self.wait_for(transaction.xid, head.xid)?;
                continue;
            }
            attempts += 1;
            if attempts > ROW_CHANGE_ATTEMPTS_MAX {
                return Err(Error::internal(format!(
                    "row {} changed under {ROW_CHANGE_ATTEMPTS_MAX} attempts to change it",
                    rowid.to_u64()
                )));
            }
            let current = if head.is_deleted() {
                None
            } else {
                match self.current_data(&head, pool)? {
                    Some(data) => Some(data),
                    None => continue, // the migrated piece changed after the head was read
                }
            };
            let outcome = change(current.as_deref())?;
            let (new_flags, new_data, kind) = match outcome {
                RowChange::Keep => {
                    return Ok(if current.is_some() {
                        RowOutcome::Unchanged
                    } else {
                        RowOutcome::Missing
                    })
                }
                RowChange::Update(data) => (0u8, data, UndoKind::HeapUpdate),
                RowChange::Delete => (ROW_DELETED, Vec::new(), UndoKind::HeapDelete),
            };
            let Some(current) = current else {
                return Ok(RowOutcome::Missing);
            };
            if new_data.len() > heap::row_bytes_max(self.cache.block_size()) {
                return Err(Error::new(
                    1467,
                    format!(
                        "row of {} bytes exceeds what one block can hold",
                        new_data.len()
                    ),
                ));
            }
            let mut mtr = Mtr::new(&self.cache);
            let blocks =
                self.hold_row_blocks(&mut mtr, rowid, &head, candidate.unwrap_or(0), pool)?;
            if !self.row_unchanged(&mtr, rowid, &blocks, &head)? {
                continue; // changed since we looked: look again
            }
            let mut version = RowPiece {
                flags: new_flags,
                xid: transaction.xid,
                uba: 0,
                data: new_data,
            };
            let placement = match self.placement(&mtr, rowid, &blocks, &version) {
                Some(placement) => placement,
                None if candidate.is_none() => {
                    drop(mtr);
                    candidate =
                        Some(self.migration_candidate(rowid, &head, version.data.len(), pool)?);
                    continue;
                }
                None => Placement::Move(self.new_migration_block(&mut mtr, blocks.head, pool)?),
            };
            let before = RowPiece {
                flags: 0,
                xid: head.xid,
                uba: head.uba,
                data: current,
            };
            let pending = self.write_undo(
                transaction,
                &mut mtr,
                UndoRecord {
                    kind,
                    object_id,
                    previous_uba: 0,
                    target: rowid.to_u64(),
                    payload: encode_row_image(&before),
                },
            )?;
            version.uba = pending.uba;
            let orphan_tag = (version.xid, version.uba);
            self.write_version(&mut mtr, rowid, &blocks, placement, &version, orphan_tag)?;
            let end = mtr.commit(&self.log, self.current_scn(), 0)?;
            transaction.confirm(pending, end);
            return Ok(if version.is_deleted() {
                RowOutcome::Deleted(before.data)
            } else {
                RowOutcome::Updated(before.data)
            });
        }
    }

    /// Applies the inverse of a heap undo record made by `xid` at `uba`: the row gets back
    /// the version before the change (rule 6 of the essay), or loses its head and migrated
    /// piece when the change was its insert. Does nothing when the head no longer holds the
    /// change (already undone, or never made before a crash).
    fn undo_row_change(&self, xid: u64, uba: u64, record: &UndoRecord) -> Result<()> {
        let rowid = RowId::from_u64(record.target);
        let before = match record.kind {
            UndoKind::HeapInsert => None,
            _ => Some(decode_row_image(&record.payload)?),
        };
        if let Some(before) = &before {
            if before.is_migrated() || before.forward_address().is_some() {
                return Err(Error::internal("undo row image holds a piece, not a row"));
            }
        }
        // An undo record names its object, not its table's pool: the blocks rollback reads
        // that are not cached (the change it undoes usually left them cached) go to DEFAULT.
        let pool = BufferPool::Default;
        let mut candidate: Option<u32> = None;
        for _ in 0..ROW_CHANGE_ATTEMPTS_MAX {
            let Some(head) = self.current_piece(rowid, pool)? else {
                return Ok(());
            };
            if (head.xid, head.uba) != (xid, uba) {
                return Ok(());
            }
            let mut mtr = Mtr::new(&self.cache);
            let blocks =
                self.hold_row_blocks(&mut mtr, rowid, &head, candidate.unwrap_or(0), pool)?;
            if !self.row_unchanged(&mtr, rowid, &blocks, &head)? {
                continue;
            }
            match &before {
                None => {
                    heap::remove(mtr.block(blocks.head), rowid.slot);
                    if let Some((held, target)) = blocks.migrated {
                        heap::remove(mtr.block(held), target.slot);
                    }
                }
                Some(before) => {
                    let placement = match self.placement(&mtr, rowid, &blocks, before) {
                        Some(placement) => placement,
                        None if candidate.is_none() => {
                            drop(mtr);
                            candidate = Some(self.migration_candidate(
                                rowid,
                                &head,
                                before.data.len(),
                                pool,
                            )?);
                            continue;
                        }
                        None => Placement::Move(self.new_migration_block(
                            &mut mtr,
                            blocks.head,
                            pool,
                        )?),
                    };
                    self.write_version(&mut mtr, rowid, &blocks, placement, before, (xid, uba))?;
                }
            }
            mtr.commit(&self.log, self.current_scn(), 0)?;
            return Ok(());
        }
        Err(Error::internal(format!(
            "rollback of row {} found it changing under {ROW_CHANGE_ATTEMPTS_MAX} attempts",
            rowid.to_u64()
        )))
    }

    /// The current data of a row from its head (a copy read without latches): the head's
    /// own, or its migrated piece's. None when the migrated piece no longer matches the head
    /// (a change came between the two reads).
    fn current_data(&self, head: &RowPiece, pool: BufferPool) -> Result<Option<Vec<u8>>> {
        let Some(target) = head.forward_address() else {
            return Ok(Some(head.data.clone()));
        };
        let data = self.cache.read(target.block_id(), row_access(pool))?;
        Ok(heap::read(&data, target.slot)?
            .filter(|piece| {
                piece.is_migrated()
                    && !piece.is_deleted()
                    && (piece.xid, piece.uba) == (head.xid, head.uba)
            })
            .map(|piece| piece.data))
    }

    /// Takes, in block-number order (rule 7), the blocks a change of the row whose head
    /// `head` was read at `rowid` may write: the head's, its migrated piece's, and
    /// `candidate` (0: none) to migrate into.
    fn hold_row_blocks(
        &self,
        mtr: &mut Mtr,
        rowid: RowId,
        head: &RowPiece,
        candidate: u32,
        pool: BufferPool,
    ) -> Result<RowBlocks> {
        let access = row_access(pool);
        let forward = head.forward_address();
        let candidate = (candidate != 0
            && candidate != rowid.block
            && Some(candidate) != forward.map(|target| target.block))
        .then_some(candidate);
        let mut numbers: Vec<u32> = [Some(rowid.block), forward.map(|target| target.block)]
            .into_iter()
            .chain([candidate])
            .flatten()
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        for number in numbers {
            mtr.get(BlockId::new(SYSTEM_FILE, number), access)?;
        }
        // Every block is held now: these find them.
        Ok(RowBlocks {
            head: mtr.get(rowid.block_id(), access)?,
            migrated: match forward {
                Some(target) => Some((mtr.get(target.block_id(), access)?, target)),
                None => None,
            },
            candidate: match candidate {
                Some(number) => Some(mtr.get(BlockId::new(SYSTEM_FILE, number), access)?),
                None => None,
            },
        })
    }

    /// Whether the row's head, now latched, is still `head` (the copy the caller decided
    /// on). A forwarding head whose migrated piece does not carry its tag breaks rule 3.
    fn row_unchanged(
        &self,
        mtr: &Mtr,
        rowid: RowId,
        blocks: &RowBlocks,
        head: &RowPiece,
    ) -> Result<bool> {
        if heap::read(mtr.block_ref(blocks.head), rowid.slot)?.as_ref() != Some(head) {
            return Ok(false);
        }
        if let Some((held, target)) = blocks.migrated {
            let piece = heap::read(mtr.block_ref(held), target.slot)?;
            let tagged = matches!(&piece, Some(piece) if piece.is_migrated()
                && !piece.is_deleted()
                && (piece.xid, piece.uba) == (head.xid, head.uba));
            if !tagged {
                return Err(Error::internal(format!(
                    "row {} forwards to {}, which does not hold its data",
                    rowid.to_u64(),
                    target.to_u64()
                )));
            }
        }
        Ok(true)
    }

    /// Where `version` of the row goes among the held blocks (rule 4), or None when none
    /// has room.
    fn placement(
        &self,
        mtr: &Mtr,
        rowid: RowId,
        blocks: &RowBlocks,
        version: &RowPiece,
    ) -> Option<Placement> {
        let data_bytes = version.data.len();
        if version.is_deleted()
            || heap::fits_replacement(mtr.block_ref(blocks.head), rowid.slot, data_bytes)
        {
            return Some(Placement::Home);
        }
        if let Some((held, target)) = blocks.migrated {
            if heap::fits_replacement(mtr.block_ref(held), target.slot, data_bytes) {
                return Some(Placement::InPlace);
            }
        }
        let held = blocks.candidate?;
        let candidate = mtr.block_ref(held);
        let head_block = mtr.block_ref(blocks.head);
        let same_segment = block::block_type(candidate) == block::BlockType::HeapData
            && block::object_id(candidate) == block::object_id(head_block)
            && heap::segment_header(candidate) == heap::segment_header(head_block);
        let reserve = heap::pctfree_bytes(self.cache.block_size());
        (same_segment && heap::fits(candidate, data_bytes, reserve))
            .then_some(Placement::Move(held))
    }

    /// A block of the row's segment, other than the row's own blocks, that had room for
    /// `data_bytes` when looked at without latches: the block the head's block last migrated
    /// into, else the segment's last block. 0 when neither has room.
    fn migration_candidate(
        &self,
        rowid: RowId,
        head: &RowPiece,
        data_bytes: usize,
        pool: BufferPool,
    ) -> Result<u32> {
        let (hint, segment_header) = {
            let data = self.cache.read(rowid.block_id(), row_access(pool))?;
            (heap::migration_target(&data), heap::segment_header(&data))
        };
        let forward_block = head.forward_address().map(|target| target.block);
        let reserve = heap::pctfree_bytes(self.cache.block_size());
        let has_room = |number: u32| -> Result<bool> {
            if number == 0 || number == rowid.block || Some(number) == forward_block {
                return Ok(false);
            }
            let data = self
                .cache
                .read(BlockId::new(SYSTEM_FILE, number), row_access(pool))?;
            Ok(block::block_type(&data) == block::BlockType::HeapData
                && heap::fits(&data, data_bytes, reserve))
        };
        if has_room(hint)? {
            return Ok(hint);
        }
        if segment_header != 0 {
            let header = BlockId::new(SYSTEM_FILE, segment_header);
            let extents = segment::used_extents(&self.cache, header, pool)?;
            if let Some(&(first, count)) = extents.last() {
                let last = first.block + count - 1;
                if has_room(last)? {
                    return Ok(last);
                }
            }
        }
        Ok(0)
    }

    /// Allocates and formats a new block of the segment of the held head block, for a row to
    /// migrate into.
    fn new_migration_block(&self, mtr: &mut Mtr, head: Held, pool: BufferPool) -> Result<Held> {
        let (segment_header, object_id) = {
            let data = mtr.block_ref(head);
            (heap::segment_header(data), block::object_id(data))
        };
        if segment_header == 0 {
            return Err(Error::internal(format!(
                "heap block {} does not name its segment",
                mtr.id(head).block
            )));
        }
        let header = BlockId::new(SYSTEM_FILE, segment_header);
        let id = segment::allocate_block(mtr, &self.space, header, pool)?;
        let held = mtr.new_block(id, pool)?;
        heap::format(mtr.block(held), id, object_id, segment_header);
        Ok(held)
    }

    /// Writes `version` (a row or a tombstone: never a piece) as the row at `rowid` where
    /// `placement` says, re-pointing the head as needed. A migrated piece the row leaves is
    /// orphaned with `orphan_tag`.
    fn write_version(
        &self,
        mtr: &mut Mtr,
        rowid: RowId,
        blocks: &RowBlocks,
        placement: Placement,
        version: &RowPiece,
        orphan_tag: (u64, u64),
    ) -> Result<()> {
        let orphan = RowPiece::orphan(orphan_tag.0, orphan_tag.1);
        match placement {
            Placement::Home => {
                replace_piece(mtr, blocks.head, rowid.slot, version)?;
                if let Some((held, target)) = blocks.migrated {
                    replace_piece(mtr, held, target.slot, &orphan)?;
                }
            }
            Placement::InPlace => {
                let Some((held, target)) = blocks.migrated else {
                    return Err(Error::internal("in-place placement of a row that is home"));
                };
                let migrated = RowPiece::migrated(version.xid, version.uba, version.data.clone());
                replace_piece(mtr, held, target.slot, &migrated)?;
                let head = RowPiece::forwarding(version.xid, version.uba, target);
                replace_piece(mtr, blocks.head, rowid.slot, &head)?;
            }
            Placement::Move(held) => {
                let migrated = RowPiece::migrated(version.xid, version.uba, version.data.clone());
                let Some(slot) = heap::insert(mtr.block(held), &migrated, 0) else {
                    return Err(Error::internal(
                        "migration into a block that had room failed",
                    ));
                };
                let target = RowId {
                    block: mtr.id(held).block,
                    slot,
                };
                let head = RowPiece::forwarding(version.xid, version.uba, target);
                replace_piece(mtr, blocks.head, rowid.slot, &head)?;
                heap::set_migration_target(mtr.block(blocks.head), target.block);
                if let Some((held, old_target)) = blocks.migrated {
                    replace_piece(mtr, held, old_target.slot, &orphan)?;
                }
            }
        }
        Ok(())
    }

    /// Adds an index entry for a change of `transaction` (undo first, then the entry).
    pub fn index_insert(
        &self,
        transaction: &mut Transaction,
        tree: &BTree,
        object_id: u32,
        key: &[u8],
        rowid: RowId,
    ) -> Result<()> {
        self.index_undo(
            transaction,
            tree,
            object_id,
            key,
            rowid,
            UndoKind::IndexInsert,
        )?;
        tree.insert(
            &self.cache,
            &self.log,
            &self.space,
            self.current_scn(),
            key,
            rowid.to_u64(),
        )
    }

    /// Delete-marks an index entry for a change of `transaction`.
    pub fn index_delete(
        &self,
        transaction: &mut Transaction,
        tree: &BTree,
        object_id: u32,
        key: &[u8],
        rowid: RowId,
    ) -> Result<()> {
        self.index_undo(
            transaction,
            tree,
            object_id,
            key,
            rowid,
            UndoKind::IndexDeleteMark,
        )?;
        tree.mark_deleted(
            &self.cache,
            &self.log,
            self.current_scn(),
            key,
            rowid.to_u64(),
            transaction.xid,
        )?;
        Ok(())
    }

    fn index_undo(
        &self,
        transaction: &mut Transaction,
        tree: &BTree,
        object_id: u32,
        key: &[u8],
        rowid: RowId,
        kind: UndoKind,
    ) -> Result<()> {
        let mut payload = Vec::with_capacity(8 + key.len());
        payload.extend_from_slice(&rowid.to_u64().to_le_bytes());
        payload.extend_from_slice(key);
        let mut mtr = Mtr::new(&self.cache);
        let pending = self.write_undo(
            transaction,
            &mut mtr,
            UndoRecord {
                kind,
                object_id,
                previous_uba: 0,
                target: tree.header().to_u64(),
                payload,
            },
        )?;
        let end = mtr.commit(&self.log, self.current_scn(), 0)?;
        transaction.confirm(pending, end);
        Ok(())
    }

    // ----- segments (DDL) ---------------------------------------------------------------
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

    /// Makes a segment for `transaction`: `make` formats it in `mtr` and returns its header
    /// and whatever the caller needs (a B-tree). Nothing is made when `make` or the undo
    /// record fails.
    pub fn create_segment<T>(
        &self,
        transaction: &mut Transaction,
        object_id: u32,
        make: impl FnOnce(&mut Mtr) -> Result<(BlockId, T)>,
    ) -> Result<T> {
        let mut mtr = Mtr::new(&self.cache);
        let (header, made) = make(&mut mtr)?;
        self.commit_segment_undo(transaction, mtr, UndoKind::SegmentCreate, object_id, header)?;
        Ok(made)
    }

    /// Frees the segment at `header` (of object `object_id`) when `transaction` commits.
    pub fn drop_segment_at_commit(
        &self,
        transaction: &mut Transaction,
        object_id: u32,
        header: BlockId,
    ) -> Result<()> {
        let mtr = Mtr::new(&self.cache);
        let uba =
            self.commit_segment_undo(transaction, mtr, UndoKind::SegmentDrop, object_id, header)?;
        transaction.segments_dropped.push((uba, header));
        Ok(())
    }

    /// Writes the undo record `kind` of the segment at `header` in `mtr`, commits `mtr` and
    /// returns the record's UBA.
    fn commit_segment_undo(
        &self,
        transaction: &mut Transaction,
        mut mtr: Mtr,
        kind: UndoKind,
        object_id: u32,
        header: BlockId,
    ) -> Result<u64> {
        let record = UndoRecord {
            kind,
            object_id,
            previous_uba: 0,
            target: header.to_u64(),
            payload: Vec::new(),
        };
        let pending = self.write_undo(transaction, &mut mtr, record)?;
        let end = mtr.commit(&self.log, self.current_scn(), 0)?;
        let uba = pending.uba;
        transaction.confirm(pending, end);
        Ok(uba)
    }

    /// The segment a SegmentCreate record names, checked: its header must still be the
    /// segment header of the record's object (nothing frees it before its transaction ends).
    fn created_segment(&self, record: &UndoRecord) -> Result<BlockId> {
        let header = BlockId::from_u64(record.target);
        let data = self.cache.read(header, AccessKind::Lookup)?;
        if block::block_type(&data) != block::BlockType::SegmentHeader
            || block::object_id(&data) != record.object_id
        {
            return Err(Error::internal(format!(
                "undo names a segment of object {} at {header}, which holds none",
                record.object_id
            )));
        }
        Ok(header)
    }

    /// Frees every extent of the segments at `headers` in `mtr`.
    fn free_segments(&self, mtr: &mut Mtr, headers: &[BlockId]) -> Result<()> {
        for &header in headers {
            for (first, blocks) in segment::extents(&self.cache, header, BufferPool::Default)? {
                self.space.release(mtr, first, blocks)?;
            }
        }
        Ok(())
    }
}

/// How many times a row change (or its rollback) looks at a row again because it changed
/// between a read and the latch, before it gives up with ORA-00600.
const ROW_CHANGE_ATTEMPTS_MAX: u32 = 1000;

/// The blocks of one row a mini-transaction holds for a change.
struct RowBlocks {
    head: Held,
    /// The block and address of a forwarding head's migrated piece.
    migrated: Option<(Held, RowId)>,
    /// A block with room the row may migrate into.
    candidate: Option<Held>,
}

/// Where a new version of a row goes.
#[derive(Clone, Copy)]
enum Placement {
    /// Into the head: the row stays, or comes home.
    Home,
    /// Into its migrated piece, where it is.
    InPlace,
    /// Into a new migrated piece in this block; the head is re-pointed.
    Move(Held),
}

/// `heap::replace` where the caller has checked that the piece fits.
/// How a row change gets a block of its table, whose blocks go to `pool`.
fn row_access(pool: BufferPool) -> BlockAccess {
    AccessKind::Lookup.in_pool(pool)
}

/// Replaces the piece in `slot` of a held heap block. Where it fits the old piece's bytes,
/// only those and the block's reclaimable count are asked of the mini-transaction, which
/// then diffs only them; else the whole block (the piece moves, maybe after a compaction).
fn replace_piece(mtr: &mut Mtr, held: Held, slot: u16, piece: &RowPiece) -> Result<()> {
    if let Some(span) = heap::in_place_span(mtr.block_ref(held), slot, piece) {
        let freed = heap::replace_in_place(mtr.range_mut(held, span), piece);
        if freed > 0 {
            heap::add_reclaimable(mtr.range_mut(held, heap::RECLAIMABLE), freed);
        }
        return Ok(());
    }
    if heap::replace(mtr.block(held), slot, piece)? {
        Ok(())
    } else {
        Err(Error::internal(format!(
            "row piece of {} bytes no longer fits slot {slot}",
            piece.data.len()
        )))
    }
}

/// What `change_row`'s closure decides.
pub enum RowChange {
    Keep,
    Update(Vec<u8>),
    Delete,
}

/// What `change_row` did. Updated and Deleted carry the row's data before the change.
#[derive(Debug, PartialEq, Eq)]
pub enum RowOutcome {
    Missing,
    Unchanged,
    Updated(Vec<u8>),
    Deleted(Vec<u8>),
}

/// The head of the row in `slot` of a heap block (None for a migrated piece: its ROWID is
/// elsewhere).
fn head_piece(block: &[u8], slot: u16) -> Result<Option<RowPiece>> {
    Ok(heap::read(block, slot)?.filter(|piece| !piece.is_migrated()))
}

fn encode_row_image(piece: &RowPiece) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(17 + piece.data.len());
    bytes.push(piece.flags);
    bytes.extend_from_slice(&piece.xid.to_le_bytes());
    bytes.extend_from_slice(&piece.uba.to_le_bytes());
    bytes.extend_from_slice(&piece.data);
    bytes
}

fn decode_row_image(bytes: &[u8]) -> Result<RowPiece> {
    if bytes.len() < 17 {
        return Err(Error::internal("undo row image too short"));
    }
    Ok(RowPiece {
        flags: bytes[0],
        xid: block::read_u64(bytes, 1),
        uba: block::read_u64(bytes, 9),
        data: bytes[17..].to_vec(),
    })
}

fn decode_index_image(bytes: &[u8]) -> Result<(u64, &[u8])> {
    if bytes.len() < 8 {
        return Err(Error::internal("undo index image too short"));
    }
    Ok((block::read_u64(bytes, 0), &bytes[8..]))
}
