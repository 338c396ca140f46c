//! Row migration below SQL: forwarding heads and migrated pieces as the transaction layer
//! writes and reads them (the SQL-level test is `sql.rs`'s `migration` module).
//!
//! The behaviour pinned: an update that made a row too long for its block failed with
//! ORA-01467. Now the row migrates, keeping its ROWID. These tests also pin rule 5 of the
//! transaction essay: a reader holding a copy of a forwarding head taken before a later
//! change (an update in place, a move, a homecoming, a delete, a rollback) still reads the
//! version it copied; and that under concurrent writers every scan sees each row once and
//! whole.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{config, instance_with_heap, visible_rows};
use pythia::access::heap::{self, RowId, RowPiece};
use pythia::access::segment;
use pythia::buffer::{AccessKind, BufferPool};
use pythia::instance::{Instance, InstanceConfig};
use pythia::io::block::BlockId;
use pythia::io::vfs::SimVfs;
use pythia::transaction::{
    InsertPoints, RowChange, RowOutcome, Snapshot, Transaction, TransactionManager,
    TransactionStatus,
};

const TABLE_OBJECT: u32 = 100;

/// An instance on a simulated disk with a heap segment of `rows` committed rows, row `n`
/// being 60 bytes of `n`: the first 2 KiB block fills after about 22. Returns the segment
/// header, the rowids and the insert hint.
fn heap_with_rows(
    config: InstanceConfig,
    rows: u8,
) -> (Arc<Instance>, BlockId, Vec<RowId>, InsertPoints) {
    let (instance, table) = instance_with_heap(&SimVfs::new(7), config, TABLE_OBJECT);
    let transactions = instance.transactions();
    let hint = InsertPoints::default();
    let mut transaction = transactions.begin().unwrap();
    let rowids = (0..rows)
        .map(|number| {
            transactions
                .insert_row(
                    &mut transaction,
                    table,
                    TABLE_OBJECT,
                    BufferPool::Default,
                    &hint,
                    &[number; 60],
                )
                .unwrap()
        })
        .collect();
    transactions.commit(transaction, true).unwrap();
    (instance, table, rowids, hint)
}

fn change(
    transactions: &TransactionManager,
    transaction: &mut Transaction,
    rowid: RowId,
    data: &[u8],
) {
    let outcome = transactions
        .change_row(
            transaction,
            TABLE_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Update(data.to_vec())),
        )
        .unwrap();
    assert!(matches!(outcome, RowOutcome::Updated(_)));
}

fn update(transactions: &TransactionManager, rowid: RowId, data: &[u8]) {
    let mut transaction = transactions.begin().unwrap();
    change(transactions, &mut transaction, rowid, data);
    transactions.commit(transaction, true).unwrap();
}

/// The version of the row whose head copy is `head` a reader at `snapshot` sees.
fn read(
    transactions: &TransactionManager,
    head: &RowPiece,
    snapshot: &Snapshot,
) -> Option<Vec<u8>> {
    transactions
        .consistent_version(head.clone(), snapshot.scn, 0)
        .unwrap()
}

fn migrated_pieces(instance: &Instance, table: BlockId) -> (usize, usize) {
    let mut live = 0;
    let mut orphaned = 0;
    for block in segment::used_blocks(instance.cache(), table).unwrap() {
        let data = instance.cache().read(block, AccessKind::Scan).unwrap();
        for (_, piece) in heap::all_pieces(&data).unwrap() {
            match (piece.is_migrated(), piece.is_deleted()) {
                (true, false) => live += 1,
                (true, true) => orphaned += 1,
                _ => {}
            }
        }
    }
    (live, orphaned)
}

#[test]
fn stale_head_copies_read_their_version_across_moves_homecomings_and_deletes() {
    let (instance, table, rowids, hint) = heap_with_rows(config(), 40);
    let transactions = instance.transactions();
    let rowid = rowids[0];
    let head_block = instance
        .cache()
        .read(rowid.block_id(), AccessKind::Lookup)
        .unwrap();
    assert!(!heap::fits(&head_block, 600, 0));
    drop(head_block);

    // Each step: a copy of the head and a snapshot taken before the change, and what they
    // must read. The snapshots stay open, so nothing they may reach is purged.
    let mut copies: Vec<(RowPiece, Snapshot, Vec<u8>)> = Vec::new();
    let mut current = vec![0u8; 60];
    let mut targets: Vec<Option<RowId>> = Vec::new();
    let mut row_count = rowids.len();
    for (letter, length) in [(1u8, 600), (2, 650), (3, 1900), (4, 10), (5, 1000)] {
        if letter == 3 {
            // Other rows fill the block the row migrated into: the next growth must move.
            let target = targets[1].unwrap().block as u64;
            let mut transaction = transactions.begin().unwrap();
            hint.of(&transaction).store(target, Ordering::Release);
            while hint.of(&transaction).load(Ordering::Acquire) == target {
                transactions
                    .insert_row(
                        &mut transaction,
                        table,
                        TABLE_OBJECT,
                        BufferPool::Default,
                        &hint,
                        &[99; 60],
                    )
                    .unwrap();
                row_count += 1;
            }
            transactions.commit(transaction, true).unwrap();
        }
        let head = transactions
            .current_piece(rowid, BufferPool::Default)
            .unwrap()
            .unwrap();
        copies.push((head, transactions.snapshot(), current.clone()));
        current = vec![letter; length];
        update(transactions, rowid, &current);
        let head = transactions
            .current_piece(rowid, BufferPool::Default)
            .unwrap()
            .unwrap();
        targets.push(head.forward_address());
        assert_eq!(
            read(transactions, &head, &transactions.snapshot()),
            Some(current.clone())
        );
    }
    // 600: migrated; 650: in place; 1900: moved (its block filled up); 10: home; 1000: out.
    assert!(targets[0].is_some_and(|target| target.block != rowid.block));
    assert_eq!(targets[1], targets[0]);
    assert!(targets[2].is_some() && targets[2] != targets[1]);
    assert_eq!(targets[3], None);
    assert!(targets[4].is_some());
    for (copy, snapshot, expected) in &copies {
        assert_eq!(read(transactions, copy, snapshot).as_ref(), Some(expected));
    }
    // Orphans wait for the snapshots that might reach them.
    assert_eq!(migrated_pieces(&instance, table), (1, 2));

    // A scan meets each row once, at its ROWID.
    let rows = visible_rows(&instance, table);
    assert_eq!(rows.len(), row_count);
    assert_eq!(rows.iter().find(|(id, _)| *id == rowid).unwrap().1, current);

    // Delete the migrated row with a copy outstanding; the copy still reads its version.
    let copy = transactions
        .current_piece(rowid, BufferPool::Default)
        .unwrap()
        .unwrap();
    let snapshot = transactions.snapshot();
    let mut transaction = transactions.begin().unwrap();
    let outcome = transactions
        .change_row(
            &mut transaction,
            TABLE_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Delete),
        )
        .unwrap();
    assert_eq!(outcome, RowOutcome::Deleted(current.clone()));
    let tombstone = transactions
        .current_piece(rowid, BufferPool::Default)
        .unwrap()
        .unwrap();
    assert!(tombstone.is_deleted() && tombstone.forward_address().is_none());
    assert_eq!(read(transactions, &copy, &snapshot), Some(current.clone()));
    // Rolled back: the row is whole again, wherever it now lives.
    transactions.rollback(transaction).unwrap();
    assert_eq!(visible_rows(&instance, table).len(), row_count);
    let head = transactions
        .current_piece(rowid, BufferPool::Default)
        .unwrap()
        .unwrap();
    assert_eq!(
        read(transactions, &head, &transactions.snapshot()),
        Some(current.clone())
    );
    assert_eq!(read(transactions, &copy, &snapshot), Some(current.clone()));

    // Rollback to a savepoint across a migration and a homecoming.
    let mut transaction = transactions.begin().unwrap();
    change(transactions, &mut transaction, rowids[1], &[7; 30]);
    let savepoint = transaction.last_uba;
    change(transactions, &mut transaction, rowids[1], &[8; 1500]);
    change(transactions, &mut transaction, rowids[1], &[9; 20]);
    change(transactions, &mut transaction, rowids[1], &[6; 1200]);
    transactions
        .rollback_to(&mut transaction, savepoint)
        .unwrap();
    transactions.commit(transaction, true).unwrap();
    let rows = visible_rows(&instance, table);
    assert_eq!(rows.len(), row_count);
    assert_eq!(
        rows.iter().find(|(id, _)| *id == rowids[1]).unwrap().1,
        vec![7; 30]
    );
    drop((copies, snapshot));
}

/// Writers move rows between home, in place, new blocks and back, committing or rolling
/// back, while readers scan and fetch: every read sees each row exactly once and whole (a
/// row's bytes all equal its number), and writers taking two data blocks never deadlock.
#[test]
fn concurrent_migrations_never_show_a_torn_missing_or_doubled_row() {
    // Redo and buffers enough for the whole run: no log switch waits for a checkpoint and no
    // session evicts a dirty buffer itself.
    let config = InstanceConfig {
        log_file_size: 16 << 20,
        log_buffer_bytes: 1 << 20,
        cache_bytes: 8192 * 2048,
        ..config()
    };
    concurrent_migrations(config, 2000);
}

/// The same on 256 KiB logs and 128 buffers: log switches wait for checkpoints while
/// mini-transactions hold blocks, and sessions evict dirty buffers themselves. Both once
/// deadlocked: DBWR's checkpoint waited for a block latched by a mini-transaction that
/// waited for that checkpoint; a session evicting a dirty buffer re-took its latch after
/// writing it, while the latch's new holder waited for the undo latch the evictor held.
#[test]
fn concurrent_migrations_on_a_small_log_and_cache_do_not_deadlock() {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            for _ in 0..1200 {
                if done.load(Ordering::Acquire) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            eprintln!("WATCHDOG: concurrent migrations on a small log and cache hung");
            std::process::abort();
        })
    };
    let config = InstanceConfig {
        log_groups: 2,
        cache_bytes: 64 * 2048,
        ..config()
    };
    concurrent_migrations(config, 1500);
    done.store(true, Ordering::Release);
    watchdog.join().unwrap();
}

fn concurrent_migrations(config: InstanceConfig, writes_per_writer: u32) {
    const ROWS: u8 = 60;
    let (instance, table, rowids, _) = heap_with_rows(config, ROWS);
    let transactions = instance.transactions();
    let writers_done = AtomicUsize::new(0);
    let check = |rows: &[(RowId, Vec<u8>)]| {
        assert_eq!(rows.len(), ROWS as usize, "a row missing or doubled");
        for (rowid, data) in rows {
            let number = rowids.iter().position(|id| id == rowid).unwrap() as u8;
            assert!(data.iter().all(|byte| *byte == number), "row {number} torn");
        }
    };
    std::thread::scope(|scope| {
        for writer in 0..2u64 {
            let (rowids, writers_done) = (&rowids, &writers_done);
            scope.spawn(move || {
                // Counted even when the writer panics, so that the readers stop.
                struct Done<'a>(&'a AtomicUsize);
                impl Drop for Done<'_> {
                    fn drop(&mut self) {
                        self.0.fetch_add(1, Ordering::AcqRel);
                    }
                }
                let _done = Done(writers_done);
                let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (writer + 1);
                let mut next = move || {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state
                };
                for _ in 0..writes_per_writer {
                    let number = (next() % ROWS as u64) as u8;
                    // 1900: undo cannot hold a before image near the 1979-byte row limit.
                    let length = [8, 60, 300, 900, 1500, 1900][(next() % 6) as usize];
                    let mut transaction = transactions.begin().unwrap();
                    let data = vec![number; length];
                    change(
                        transactions,
                        &mut transaction,
                        rowids[number as usize],
                        &data,
                    );
                    if next() % 4 == 0 {
                        transactions.rollback(transaction).unwrap();
                    } else {
                        transactions.commit(transaction, false).unwrap();
                    }
                }
            });
        }
        for _ in 0..2 {
            let (rowids, writers_done, instance) = (&rowids, &writers_done, &instance);
            scope.spawn(move || {
                while writers_done.load(Ordering::Acquire) < 2 {
                    check(&visible_rows(instance, table));
                    let snapshot = transactions.snapshot();
                    for (number, rowid) in rowids.iter().enumerate() {
                        let head = transactions
                            .current_piece(*rowid, BufferPool::Default)
                            .unwrap()
                            .unwrap();
                        let data = read(transactions, &head, &snapshot).unwrap();
                        assert!(data.iter().all(|byte| *byte == number as u8));
                    }
                }
            });
        }
    });
    check(&visible_rows(&instance, table));
}

/// Snapshots are registered by CPU: the oldest is the oldest any thread holds, wherever it
/// was taken, and the current SCN when none is held.
#[test]
fn the_oldest_snapshot_is_the_oldest_any_thread_holds() {
    let (instance, _, _, _) = heap_with_rows(config(), 1);
    let transactions = instance.transactions();
    let first = transactions.snapshot();
    let start = first.scn;
    transactions.advance_scn(start + 10);
    let taken = std::sync::Barrier::new(5);
    let checked = std::sync::Barrier::new(5);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                let held: Vec<_> = (0..3).map(|_| transactions.snapshot()).collect();
                assert!(held.iter().all(|snapshot| snapshot.scn == start + 10));
                taken.wait();
                checked.wait();
            });
        }
        taken.wait();
        assert_eq!(transactions.oldest_snapshot(), start);
        drop(first);
        assert_eq!(transactions.oldest_snapshot(), start + 10);
        transactions.advance_scn(start + 20);
        assert_eq!(transactions.oldest_snapshot(), start + 10);
        checked.wait();
    });
    assert_eq!(transactions.oldest_snapshot(), start + 20);
}

/// A transaction begun on `instance` that inserted one row into `table`.
fn inserting_one_row(instance: &Instance, table: BlockId, hint: &InsertPoints) -> Transaction {
    let transactions = instance.transactions();
    let mut transaction = transactions.begin().unwrap();
    transactions
        .insert_row(
            &mut transaction,
            table,
            TABLE_OBJECT,
            BufferPool::Default,
            hint,
            &[1; 10],
        )
        .unwrap();
    transaction
}

/// Reads of rows an ended transaction wrote prune it from the transaction table (no other
/// transaction ends to do it): its xid becomes Old, read without the table's latch, and a
/// snapshot older than its commit keeps it until it ends.
#[test]
fn reading_an_ended_transactions_rows_prunes_it_once_every_snapshot_sees_it() {
    let (instance, table, _, hint) = heap_with_rows(config(), 1);
    let transactions = instance.transactions();
    let held = transactions.snapshot();
    let transaction = inserting_one_row(&instance, table, &hint);
    let xid = transaction.xid;
    let scn = transactions.commit(transaction, true).unwrap();
    // The held snapshot predates the commit: the entry stays, whatever the lookups.
    for _ in 0..3_000 {
        assert_eq!(transactions.status(xid), TransactionStatus::Committed(scn));
    }
    drop(held);
    let mut lookups = 0;
    while transactions.status(xid) != TransactionStatus::Old {
        lookups += 1;
        assert!(lookups <= 3_000, "never pruned");
    }
    // A transaction begun since is above the floor: it is looked up, and Active.
    let later = transactions.begin().unwrap();
    assert_eq!(transactions.status(later.xid), TransactionStatus::Active);
    transactions.rollback(later).unwrap();
}

/// A rollback that undid changes ends at an SCN of its own, taken after it restored its
/// rows: a snapshot from before keeps its entry (the snapshot may hold a block copy with
/// the rolled-back row), and once none is left a prune drops it although nothing committed
/// since, so later reads find its xid below the floor.
#[test]
fn a_rolled_back_transaction_leaves_the_table_once_every_snapshot_began_after_it() {
    let (instance, table, _, hint) = heap_with_rows(config(), 1);
    let transactions = instance.transactions();
    let held = transactions.snapshot();
    let transaction = inserting_one_row(&instance, table, &hint);
    let xid = transaction.xid;
    let before = transactions.current_scn();
    transactions.rollback(transaction).unwrap();
    assert_eq!(transactions.current_scn(), before + 1);
    assert_eq!(
        transactions.status(xid),
        TransactionStatus::RolledBack(before + 1)
    );
    transactions.prune();
    assert_eq!(
        transactions.status(xid),
        TransactionStatus::RolledBack(before + 1),
        "a snapshot from before the rollback keeps the entry"
    );
    drop(held);
    transactions.prune();
    assert_eq!(transactions.status(xid), TransactionStatus::Old);
    // A transaction that changed nothing takes no SCN.
    let unchanged = transactions.begin().unwrap();
    transactions.rollback(unchanged).unwrap();
    assert_eq!(transactions.current_scn(), before + 1);
}
