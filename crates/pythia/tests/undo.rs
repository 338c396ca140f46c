//! The undo ring and a slot's undo block: consecutive transactions of one slot go on in one
//! undo block, the ring passes over the blocks of active transactions, and ORA-30036 comes
//! only when every block of the ring holds active undo. Also the insertion points of a heap
//! segment.

mod common;

use std::sync::Arc;

use common::{config, instance_with_heap, visible_rows};
use pythia::access::heap::RowId;
use pythia::buffer::BufferPool;
use pythia::instance::{Instance, InstanceConfig};
use pythia::io::block::BlockId;
use pythia::io::vfs::SimVfs;
use pythia::transaction::{InsertPoints, RowChange, RowOutcome, Transaction, TransactionManager};

const TABLE_OBJECT: u32 = 100;

/// 2 KiB blocks and an undo file of 64 of them: a ring of 55 blocks (8 transaction table
/// blocks and the header before it).
fn small_undo() -> InstanceConfig {
    InstanceConfig {
        undo_bytes: 64 * 2048,
        ..config()
    }
}

fn instance_with_table(config: InstanceConfig) -> (Arc<Instance>, BlockId) {
    instance_with_heap(&SimVfs::new(11), config, TABLE_OBJECT)
}

fn insert(
    transactions: &TransactionManager,
    transaction: &mut Transaction,
    table: BlockId,
    points: &InsertPoints,
    data: &[u8],
) -> RowId {
    transactions
        .insert_row(
            transaction,
            table,
            TABLE_OBJECT,
            BufferPool::Default,
            points,
            data,
        )
        .unwrap()
}

fn update(
    transactions: &TransactionManager,
    transaction: &mut Transaction,
    rowid: RowId,
    data: &[u8],
) -> pythia::Result<()> {
    let outcome = transactions.change_row(
        transaction,
        TABLE_OBJECT,
        BufferPool::Default,
        rowid,
        &mut |_| Ok(RowChange::Update(data.to_vec())),
    )?;
    assert!(matches!(outcome, RowOutcome::Updated(_)));
    Ok(())
}

/// A ring of 55 blocks, and a table with one committed 1000-byte row (its rowid). Each
/// update of the row writes a record no other fits beside in a 2 KiB undo block.
fn small_undo_with_a_big_row() -> (Arc<Instance>, BlockId, InsertPoints, RowId) {
    let (instance, table) = instance_with_table(small_undo());
    let transactions = instance.transactions();
    let points = InsertPoints::default();
    let mut setup = transactions.begin().unwrap();
    let big = insert(transactions, &mut setup, table, &points, &[1; 1000]);
    transactions.commit(setup, true).unwrap();
    (instance, table, points, big)
}

/// The undo block of a transaction's newest undo record.
fn undo_block(transaction: &Transaction) -> u32 {
    (transaction.last_uba >> 32) as u32
}

#[test]
fn a_slots_next_transactions_go_on_in_the_undo_block_its_last_one_ended_in() {
    let (instance, table) = instance_with_table(config());
    let transactions = instance.transactions();
    let points = InsertPoints::default();
    let mut blocks = Vec::new();
    for number in 0..10u8 {
        let mut transaction = transactions.begin().unwrap();
        insert(
            transactions,
            &mut transaction,
            table,
            &points,
            &[number; 40],
        );
        blocks.push(undo_block(&transaction));
        transactions.commit(transaction, true).unwrap();
    }
    // Ten insert records (24 bytes each) fit one 2 KiB undo block.
    assert!(
        blocks.iter().all(|&block| block == blocks[0]),
        "one block for the slot's transactions, got {blocks:?}"
    );

    // A transaction in that block rolls back its own change, and only that.
    let mut transaction = transactions.begin().unwrap();
    insert(transactions, &mut transaction, table, &points, &[99; 40]);
    assert_eq!(undo_block(&transaction), blocks[0]);
    transactions.rollback(transaction).unwrap();
    let rows = visible_rows(&instance, table);
    assert_eq!(rows.len(), 10);
    assert!(rows.iter().all(|(_, data)| data[0] < 10));

    // And the block goes on after the rollback too.
    let mut transaction = transactions.begin().unwrap();
    insert(transactions, &mut transaction, table, &points, &[10; 40]);
    assert_eq!(undo_block(&transaction), blocks[0]);
    transactions.commit(transaction, true).unwrap();
    assert_eq!(visible_rows(&instance, table).len(), 11);
}

#[test]
fn the_ring_passes_over_the_undo_block_of_an_active_transaction() {
    let (instance, table, points, big) = small_undo_with_a_big_row();
    let transactions = instance.transactions();

    // A stays active, holding its undo block.
    let mut active = transactions.begin().unwrap();
    let small = insert(transactions, &mut active, table, &points, &[7; 40]);
    let held = undo_block(&active);

    // Each update of the 1000-byte row writes a record no other fits beside in a 2 KiB
    // block: a block of the ring per transaction. Three passes of the ring.
    let mut previous = 0;
    let mut wraps = 0;
    for round in 0..165u32 {
        let mut transaction = transactions.begin().unwrap();
        update(
            transactions,
            &mut transaction,
            big,
            &[(round % 200) as u8 + 2; 1000],
        )
        .unwrap_or_else(|error| panic!("round {round}: {error}"));
        let block = undo_block(&transaction);
        assert_ne!(block, held, "round {round}: the ring took an active block");
        if block < previous {
            wraps += 1;
        }
        previous = block;
        transactions.commit(transaction, true).unwrap();
    }
    assert!(wraps >= 2, "the ring wrapped {wraps} times");

    // A's undo is whole: its rollback takes its row out again.
    assert!(transactions
        .current_piece(small, BufferPool::Default)
        .unwrap()
        .is_some());
    transactions.rollback(active).unwrap();
    let rows = visible_rows(&instance, table);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, big);
}

#[test]
fn undo_full_of_active_undo_is_ora_30036_and_the_transaction_can_still_roll_back() {
    let (instance, table, _, big) = small_undo_with_a_big_row();
    let transactions = instance.transactions();

    let mut transaction = transactions.begin().unwrap();
    let mut updates = 0;
    let error = loop {
        match update(
            transactions,
            &mut transaction,
            big,
            &[(updates % 200) as u8 + 2; 1000],
        ) {
            Ok(()) => updates += 1,
            Err(error) => break error,
        }
        assert!(updates < 1000, "the undo file never filled");
    };
    assert_eq!(error.code(), 30036, "{error}");
    // Every block of the ring but none holds one update's undo.
    assert!((50..=55).contains(&updates), "{updates} updates");

    // The failed change left nothing; the rest rolls back, and the ring serves again.
    transactions.rollback(transaction).unwrap();
    let rows = visible_rows(&instance, table);
    assert_eq!(rows, vec![(big, vec![1; 1000])]);
    for round in 0..60u8 {
        let mut transaction = transactions.begin().unwrap();
        update(transactions, &mut transaction, big, &[round + 2; 1000]).unwrap();
        transactions.commit(transaction, true).unwrap();
    }
}

#[test]
fn concurrent_transactions_insert_into_different_blocks_and_one_transactions_rows_stay_together() {
    let (instance, table) = instance_with_table(config());
    let transactions = instance.transactions();
    let points = InsertPoints::default();
    let mut open: Vec<Transaction> = (0..4).map(|_| transactions.begin().unwrap()).collect();
    let mut blocks = Vec::new();
    for (number, transaction) in open.iter_mut().enumerate() {
        let rowids: Vec<RowId> = (0..3)
            .map(|_| {
                insert(
                    transactions,
                    transaction,
                    table,
                    &points,
                    &[number as u8; 40],
                )
            })
            .collect();
        assert!(rowids.iter().all(|rowid| rowid.block == rowids[0].block));
        blocks.push(rowids[0].block);
    }
    let mut distinct = blocks.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "four transactions, blocks {blocks:?}");
    for transaction in open {
        transactions.commit(transaction, true).unwrap();
    }
    assert_eq!(visible_rows(&instance, table).len(), 12);
}

/// Recovery rolls back a transaction that went on in the undo block its slot's last
/// transaction wrote in: it finds its newest record there (the block's owner is its xid) and
/// stops at its first, leaving the committed transaction's row alone.
#[test]
fn a_crash_rolls_back_a_transaction_that_went_on_in_its_slots_undo_block() {
    let vfs = SimVfs::new(5);
    let (instance, table) = instance_with_heap(&vfs, config(), TABLE_OBJECT);
    let transactions = instance.transactions();
    let points = InsertPoints::default();
    let mut first = transactions.begin().unwrap();
    insert(transactions, &mut first, table, &points, &[1; 40]);
    let block = undo_block(&first);
    transactions.commit(first, true).unwrap();
    let mut second = transactions.begin().unwrap();
    insert(transactions, &mut second, table, &points, &[2; 40]);
    insert(transactions, &mut second, table, &points, &[3; 40]);
    assert_eq!(
        undo_block(&second),
        block,
        "the second went on in the first's block"
    );
    // Its changes reach the disk, its commit never does.
    instance
        .log()
        .flush_to(instance.log().current_lsn())
        .unwrap();
    instance.abandon();
    drop(second);
    drop(instance);
    let after = vfs.crash();
    let reopened =
        Instance::open_with(Arc::new(after), std::path::Path::new("/db"), config()).unwrap();
    let rows = visible_rows(&reopened, table);
    assert_eq!(
        rows.iter()
            .map(|(_, data)| data.clone())
            .collect::<Vec<_>>(),
        vec![vec![1; 40]]
    );
}
