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
//! - Commit takes the next SCN and publishes it under the 'commit' latch, in this order:
//!   state first, then the SCN, so that a snapshot that sees SCN s also sees every
//!   transaction committed at s. The commit record is logged in the same mini-transaction
//!   that marks the transaction table slot COMMITTED; `COMMIT` returns once it is on disk.
//! - Rollback walks the transaction's undo chain backwards applying each record's inverse;
//!   every inverse checks that the row still holds the version the record made, so applying
//!   it twice (recovery after a crash during rollback) is harmless.
//! - The in-memory transaction table remembers active transactions and recently ended
//!   ones (committed or rolled back). A transaction absent from it committed before every
//!   running snapshot began: this holds because entries leave only when they ended before
//!   the oldest snapshot (a rolled-back entry too: a statement may hold a block copy taken
//!   before the rollback restored the row, still carrying the rolled-back xid), and because
//!   recovery rolls back every transaction that was active at a crash before the database
//!   opens.
//!
//! Deadlocks: before waiting, a transaction records whom it waits for and follows that chain
//! under the 'enqueue hash chains' latch; a cycle back to itself is ORA-00060 for the
//! statement that would close it.

pub mod undo;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::buffer::{AccessKind, BufferCache};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Latch, LatchName, Statistic, WaitEvent};
use crate::redo::log::RedoLog;
use crate::redo::mtr::Mtr;
use crate::redo::record::RECORD_COMMIT;
use crate::storage::block::{self, BlockId};
use crate::storage::btree::BTree;
use crate::storage::heap::{self, RowId, RowPiece, ROW_DELETED};
use crate::storage::segment;
use crate::storage::space::SpaceManager;
use undo::{SlotState, UndoKind, UndoLayout, UndoRecord};

/// How many shards the in-memory transaction table has (each its own latch).
const TABLE_SHARDS: usize = 16;
/// Transaction ids are reserved in the control file this many at a time.
pub const XID_RESERVATION: u64 = 100_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransactionStatus {
    /// Not in the table: committed before every running snapshot.
    Old,
    Active,
    Committed(u64),
    /// Rolled back; the SCN is the current one when the rollback ended. The entry stays
    /// until every snapshot is newer, because a reader may hold a copy of a block taken
    /// before the rollback restored it: the copy's rows still carry this xid, and an xid
    /// missing from the table would read as committed long ago.
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
    undo_block: Option<(u32, u32)>,
    /// The newest undo record (0 before the first change).
    pub last_uba: u64,
    /// The end of the newest redo this transaction made.
    pub redo_end: u64,
    pub savepoints: Vec<(String, u64)>,
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
    registry: Arc<Latch<BTreeMap<u64, usize>>>,
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        let mut registry = self.registry.lock();
        if let Some(count) = registry.get_mut(&self.scn) {
            *count -= 1;
            if *count == 0 {
                registry.remove(&self.scn);
            }
        }
    }
}

/// Part of the transaction table in memory: xid to its state.
type TransactionShard = HashMap<u64, Arc<Entry>>;

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
    free_slots: Latch<Vec<usize>>,
    commit_latch: Latch<()>,
    snapshots: Arc<Latch<BTreeMap<u64, usize>>>,
    waits_for: Latch<HashMap<u64, u64>>,
    ring: Latch<()>,
    ended_since_prune: AtomicU64,
}

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
                .map(|_| Latch::new(LatchName::TransactionAllocation, HashMap::new()))
                .collect(),
            free_slots: Latch::new(
                LatchName::TransactionAllocation,
                (0..layout.slot_count()).rev().collect(),
            ),
            commit_latch: Latch::new(LatchName::MostlyLatchFreeScn, ()),
            snapshots: Arc::new(Latch::new(LatchName::MostlyLatchFreeScn, BTreeMap::new())),
            waits_for: Latch::new(LatchName::EnqueueHashChains, HashMap::new()),
            ring: Latch::new(LatchName::UndoGlobalData, ()),
            ended_since_prune: AtomicU64::new(0),
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

    fn shard(&self, xid: u64) -> &Latch<HashMap<u64, Arc<Entry>>> {
        &self.shards[(xid as usize) % TABLE_SHARDS]
    }

    /// Takes a snapshot for a statement (statement-level read consistency).
    pub fn snapshot(&self) -> Snapshot {
        let mut registry = self.snapshots.lock();
        let scn = self.current_scn();
        *registry.entry(scn).or_insert(0) += 1;
        Snapshot {
            scn,
            registry: self.snapshots.clone(),
        }
    }

    /// The oldest SCN some running statement still reads as of.
    pub fn oldest_snapshot(&self) -> u64 {
        let registry = self.snapshots.lock();
        registry
            .keys()
            .next()
            .copied()
            .unwrap_or_else(|| self.current_scn())
    }

    pub fn status(&self, xid: u64) -> TransactionStatus {
        if xid == 0 {
            return TransactionStatus::Old;
        }
        let entry = self.shard(xid).lock().get(&xid).cloned();
        match entry {
            Some(entry) => *entry.status.lock(),
            None => TransactionStatus::Old,
        }
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
            TransactionStatus::Committed(scn) => scn < self.oldest_snapshot(),
            TransactionStatus::Active | TransactionStatus::RolledBack(_) => false,
        }
    }

    /// Begins a transaction: an xid and a slot in the transaction table.
    pub fn begin(&self) -> Result<Transaction> {
        let xid = self.next_xid.fetch_add(1, Ordering::AcqRel);
        if xid >= self.xid_limit.load(Ordering::Acquire) {
            let _latch = self.commit_latch.lock();
            let limit = self.xid_limit.load(Ordering::Acquire);
            if xid >= limit {
                let new_limit = xid + XID_RESERVATION;
                (self.reserve_xids)(new_limit)?;
                self.xid_limit.store(new_limit, Ordering::Release);
            }
        }
        let slot = self.free_slots.lock().pop().ok_or_else(|| {
            Error::new(
                1554,
                format!(
                    "transaction concurrency limit reached: all {} slots in use",
                    self.layout.slot_count()
                ),
            )
        })?;
        let address = self.layout.slot_address(slot);
        let mut mtr = Mtr::new(&self.cache);
        let written = undo::write_slot(
            &mut mtr,
            address,
            SlotState {
                xid,
                state: undo::SLOT_ACTIVE,
                current_block: 0,
                commit_scn: 0,
            },
        )
        .and_then(|()| mtr.commit(&self.log, self.current_scn(), 0));
        let redo_end = match written {
            Ok(end) => end,
            Err(error) => {
                self.free_slots.lock().push(slot);
                return Err(error);
            }
        };
        let entry = Arc::new(Entry {
            status: Mutex::new(TransactionStatus::Active),
            finished: Condvar::new(),
        });
        self.shard(xid).lock().insert(xid, entry.clone());
        Ok(Transaction {
            xid,
            slot,
            entry,
            undo_block: None,
            last_uba: 0,
            redo_end,
            savepoints: Vec::new(),
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
        let (block_number, wrap) = {
            let _ring = self.ring.lock();
            let is_active = |owner: u64| self.status(owner) == TransactionStatus::Active;
            undo::allocate_block(mtr, &self.layout, transaction.xid, &is_active)?
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

    /// Commits: logs the commit record, publishes the SCN, and (when `wait`) waits on 'log
    /// file sync' until the commit is durable. Returns the commit SCN.
    pub fn commit(&self, transaction: Transaction, wait: bool) -> Result<u64> {
        let address = self.layout.slot_address(transaction.slot);
        let mut mtr = Mtr::new(&self.cache);
        mtr.get(
            BlockId::new(crate::storage::datafile::UNDO_FILE, address.block),
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
        self.free_slots.lock().push(transaction.slot);
        instrumentation::add(Statistic::UserCommits, 1);
        self.count_ended();
        if wait {
            self.log.sync_commit(end)?;
        }
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
    pub fn rollback(&self, mut transaction: Transaction) -> Result<()> {
        self.rollback_to(&mut transaction, 0)?;
        let mut mtr = Mtr::new(&self.cache);
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
        mtr.commit(&self.log, self.current_scn(), 0)?;
        self.finish(
            &transaction,
            TransactionStatus::RolledBack(self.current_scn()),
        );
        self.free_slots.lock().push(transaction.slot);
        instrumentation::add(Statistic::UserRollbacks, 1);
        instrumentation::add(Statistic::TransactionRollbacks, 1);
        self.count_ended();
        Ok(())
    }

    /// Undoes every change newer than `stop_uba` (a savepoint, or 0 for all).
    pub fn rollback_to(&self, transaction: &mut Transaction, stop_uba: u64) -> Result<()> {
        let mut uba = transaction.last_uba;
        while uba != 0 && uba != stop_uba {
            let record = undo::read(&self.cache, uba)?;
            self.apply_inverse(transaction.xid, uba, &record)?;
            instrumentation::add(Statistic::RollbackChangesUndoRecordsApplied, 1);
            uba = record.previous_uba;
            transaction.last_uba = uba;
        }
        Ok(())
    }

    /// Applies the inverse of one undo record, if the change it undoes is still there.
    fn apply_inverse(&self, xid: u64, uba: u64, record: &UndoRecord) -> Result<()> {
        let scn = self.current_scn();
        match record.kind {
            UndoKind::HeapInsert | UndoKind::HeapUpdate | UndoKind::HeapDelete => {
                let rowid = RowId::from_u64(record.target);
                let mut mtr = Mtr::new(&self.cache);
                let held = mtr.get(rowid.block_id(), AccessKind::Lookup)?;
                let current = heap::read(mtr.block_ref(held), rowid.slot)?;
                let made_by_record =
                    matches!(&current, Some(piece) if piece.xid == xid && piece.uba == uba);
                if !made_by_record {
                    return Ok(()); // already undone (or never made before a crash)
                }
                if record.kind == UndoKind::HeapInsert {
                    heap::remove(mtr.block(held), rowid.slot);
                } else {
                    let before = decode_row_image(&record.payload)?;
                    if !heap::replace(mtr.block(held), rowid.slot, &before)? {
                        return Err(Error::internal(
                            "rollback: the previous row version no longer fits its block",
                        ));
                    }
                }
                mtr.commit(&self.log, scn, 0)?;
            }
            UndoKind::IndexInsert | UndoKind::IndexDeleteMark => {
                let header = BlockId::from_u64(record.target);
                let (rowid, key) = decode_index_image(&record.payload)?;
                let tree = BTree::open(&self.cache, header, false)?;
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
        {
            let _wait = instrumentation::wait(
                WaitEvent::EnqueueTxRowLockContention,
                0x5458_0006,
                holder >> 16,
                holder & 0xFFFF,
            );
            let mut status = entry.status.lock();
            while *status == TransactionStatus::Active {
                entry
                    .finished
                    .wait_for(&mut status, Duration::from_millis(100));
            }
        }
        self.waits_for.lock().remove(&waiter);
        Ok(())
    }

    /// Drops the entries of transactions that ended before every running snapshot began:
    /// no statement can hold a row version of theirs it would judge differently.
    pub fn prune(&self) {
        let oldest = self.oldest_snapshot();
        for shard in self.shards.iter() {
            shard.lock().retain(|_, entry| match *entry.status.lock() {
                TransactionStatus::Committed(scn) | TransactionStatus::RolledBack(scn) => {
                    scn >= oldest
                }
                TransactionStatus::Active => true,
                TransactionStatus::Old => false,
            });
        }
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
            while uba != 0 {
                let record = undo::read(&self.cache, uba)?;
                self.apply_inverse(state.xid, uba, &record)?;
                applied += 1;
                uba = record.previous_uba;
            }
            let mut mtr = Mtr::new(&self.cache);
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

    /// The version of a row piece visible at `snapshot_scn` to `reader_xid`: walks undo back
    /// from the current piece. None when no version is visible (inserted later, or deleted).
    pub fn consistent_version(
        &self,
        mut piece: RowPiece,
        snapshot_scn: u64,
        reader_xid: u64,
    ) -> Result<Option<Vec<u8>>> {
        loop {
            if self.visible(piece.xid, snapshot_scn, reader_xid) {
                return Ok((!piece.is_deleted()).then_some(piece.data));
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
                UndoKind::IndexInsert | UndoKind::IndexDeleteMark => {
                    return Err(Error::internal("row undo chain leads to an index record"))
                }
            }
        }
    }

    /// Reads the current piece of a row (latest version, whoever made it).
    pub fn current_piece(&self, rowid: RowId) -> Result<Option<RowPiece>> {
        let data = self.cache.read(rowid.block_id(), AccessKind::Lookup)?;
        heap::read(&data, rowid.slot)
    }

    /// Inserts a row into a heap segment. `hint` is the segment's current insert block (0:
    /// none); it is updated when the row goes elsewhere.
    pub fn insert_row(
        &self,
        transaction: &mut Transaction,
        segment_header: BlockId,
        object_id: u32,
        hint: &AtomicU64,
        data: &[u8],
    ) -> Result<RowId> {
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
                    crate::storage::block::BlockId::new(
                        crate::storage::datafile::SYSTEM_FILE,
                        candidate,
                    ),
                    AccessKind::Lookup,
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
                let id = segment::allocate_block(&mut mtr, &self.space, segment_header)?;
                let held = mtr.new_block(id)?;
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

    /// Removes tombstones that no running statement can see from a heap block held for
    /// change. Returns the number removed.
    fn purge_block(&self, block: &mut [u8]) -> usize {
        let Ok(pieces) = heap::pieces(block) else {
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

    /// Changes a row in place, locking it. `change` gets the current row data (None when the
    /// row no longer exists) and returns the new data, None to leave the row alone, or
    /// `Some(None)`-style deletion via `RowChange::Delete`. Waits for another active
    /// transaction holding the row; computes again if the row changed meanwhile.
    pub fn change_row(
        &self,
        transaction: &mut Transaction,
        object_id: u32,
        rowid: RowId,
        change: &mut dyn FnMut(Option<&[u8]>) -> Result<RowChange>,
    ) -> Result<RowOutcome> {
        loop {
            let Some(piece) = self.current_piece(rowid)? else {
                return Ok(RowOutcome::Missing);
            };
            if piece.xid != transaction.xid
                && piece.xid != 0
                && self.status(piece.xid) == TransactionStatus::Active
            {
                self.wait_for(transaction.xid, piece.xid)?;
                continue;
            }
            let current = (!piece.is_deleted()).then_some(&piece.data[..]);
            let outcome = change(current)?;
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
            if current.is_none() {
                return Ok(RowOutcome::Missing);
            }
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
            let held = mtr.get(rowid.block_id(), AccessKind::Lookup)?;
            let now = heap::read(mtr.block_ref(held), rowid.slot)?;
            if now.as_ref().map(|now| (now.xid, now.uba)) != Some((piece.xid, piece.uba)) {
                continue; // changed since we looked: look again
            }
            let pending = self.write_undo(
                transaction,
                &mut mtr,
                UndoRecord {
                    kind,
                    object_id,
                    previous_uba: 0,
                    target: rowid.to_u64(),
                    payload: encode_row_image(&piece),
                },
            )?;
            let new_piece = RowPiece {
                flags: new_flags,
                xid: transaction.xid,
                uba: pending.uba,
                data: new_data,
            };
            if !heap::replace(mtr.block(held), rowid.slot, &new_piece)? {
                return Err(Error::new(
                    1467,
                    format!("row {} grew beyond the free space of its block (row migration is not implemented)", rowid.to_u64()),
                ));
            }
            let end = mtr.commit(&self.log, self.current_scn(), 0)?;
            transaction.confirm(pending, end);
            return Ok(if new_flags & ROW_DELETED != 0 {
                RowOutcome::Deleted(piece.data)
            } else {
                RowOutcome::Updated(piece.data)
            });
        }
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
