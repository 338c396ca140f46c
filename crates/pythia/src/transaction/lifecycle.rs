//! A transaction's life: begin (an xid and a slot of the on-disk transaction table), its undo
//! records, commit, rollback (whole or to a savepoint), and crash recovery's rollback of the
//! transactions a crash left active.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use crate::access::btree::BTree;
use crate::buffer::{AccessKind, BufferPool};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic};
use crate::io::block::BlockId;
use crate::redo::mtr::Mtr;
use crate::redo::record::RECORD_COMMIT;

use super::commit::CommitOptions;
use super::index::decode_index_image;
use super::undo::{SlotState, UndoKind, UndoRecord};
use super::{
    undo, Beginning, CarriedBlock, Entry, PendingUndo, Transaction, TransactionManager,
    TransactionStatus, XID_RESERVATION,
};

impl TransactionManager {
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
                SlotState::FREE,
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
            undo::write_slot(&mut mtr, self.layout.slot_address(slot), SlotState::FREE)?;
            mtr.commit(&self.log, self.current_scn(), 0)?;
            transactions += 1;
        }
        Ok((transactions, applied))
    }
}
