//! Crash consistency below SQL: transactions write heap rows and index entries through the
//! transaction layer, the simulated disk loses power at a random sync (unsynced writes
//! dropped, applied, or torn), and the reopened database must hold exactly the
//! acknowledged commits: none lost, no uncommitted row visible, every index entry matching
//! its row, every block passing its checksum.
//!
//! The bugs this pins: a commit acknowledged before its redo was durable; a torn datafile
//! block that recovery cannot repair; redo applied past a torn redo block; an uncommitted
//! transaction's changes left behind because its undo was not recoverable; redo read only up
//! to a padding gap too short for a length word, losing every commit after it (seed 9).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use common::{config, visible_rows};
use pythia::access::btree::BTree;
use pythia::access::segment::{self, SegmentKind};
use pythia::buffer::BufferPool;
use pythia::instance::Instance;
use pythia::io::block::BlockId;
use pythia::io::vfs::{SimVfs, Vfs};
use pythia::redo::mtr::Mtr;
use pythia::transaction::{InsertPoints, RowChange};

/// A tiny deterministic generator (the test must replay from its seed).
struct Generator(u64);
impl Generator {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

struct Objects {
    table: BlockId,
    index: BlockId,
}

const TABLE_OBJECT: u32 = 100;
const INDEX_OBJECT: u32 = 101;

fn create_objects(instance: &Instance) -> Objects {
    let mut mtr = Mtr::new(instance.cache());
    let table = segment::create(
        &mut mtr,
        instance.space(),
        TABLE_OBJECT,
        SegmentKind::Heap,
        BufferPool::Default,
    )
    .unwrap();
    let index = BTree::create(
        &mut mtr,
        instance.space(),
        INDEX_OBJECT,
        true,
        BufferPool::Default,
    )
    .unwrap();
    let end = mtr
        .commit(instance.log(), instance.transactions().current_scn(), 0)
        .unwrap();
    instance.log().flush_to(end).unwrap();
    Objects {
        table,
        index: index.header(),
    }
}

fn row(transaction: u64, number: u64) -> Vec<u8> {
    let mut bytes = transaction.to_le_bytes().to_vec();
    bytes.extend_from_slice(&number.to_le_bytes());
    bytes.extend_from_slice(&[b'x'; 40]);
    bytes
}

fn key_of(data: &[u8]) -> Vec<u8> {
    data[..16].to_vec()
}

/// Row `data` grown to `length` bytes, its key kept.
fn grown(data: &[u8], length: usize) -> Vec<u8> {
    let mut bytes = data.to_vec();
    bytes.resize(length, b'g');
    bytes
}

/// Runs transactions until an operation fails (the simulated power loss). Returns the rows
/// of acknowledged commits, and the rows of the commit in flight when the crash hit (which
/// may or may not have reached disk). With `migrate`, a third of the transactions also grow
/// one of their rows past what its block can hold (it migrates), and half of those change it
/// again (in place, moved on, or home).
fn workload(
    instance: &Instance,
    objects: &Objects,
    generator: &mut Generator,
    migrate: bool,
) -> (BTreeSet<Vec<u8>>, BTreeSet<Vec<u8>>) {
    let transactions = instance.transactions();
    let tree = BTree::open(instance.cache(), objects.index, true, BufferPool::Default).unwrap();
    let hint = InsertPoints::default();
    let mut committed = BTreeSet::new();
    for number in 0..10_000u64 {
        let Ok(mut transaction) = transactions.begin() else {
            break;
        };
        let rows: Vec<Vec<u8>> = (0..1 + generator.below(6))
            .map(|row_number| row(number, row_number))
            .collect();
        let mut failed = false;
        let mut rowids = Vec::with_capacity(rows.len());
        for data in &rows {
            let inserted = transactions
                .insert_row(
                    &mut transaction,
                    objects.table,
                    TABLE_OBJECT,
                    BufferPool::Default,
                    &hint,
                    data,
                )
                .and_then(|rowid| {
                    rowids.push(rowid);
                    transactions.index_insert(
                        &mut transaction,
                        &tree,
                        INDEX_OBJECT,
                        &key_of(data),
                        rowid,
                    )
                });
            if inserted.is_err() {
                failed = true;
                break;
            }
        }
        if failed {
            break;
        }
        let mut rows = rows;
        if migrate && generator.below(3) == 0 {
            let index = generator.below(rows.len() as u64) as usize;
            let mut lengths = vec![400 + generator.below(1200) as usize];
            if generator.below(2) == 0 {
                lengths.push([20, 900, 1900][generator.below(3) as usize]);
            }
            let rowid = rowids[index];
            for length in lengths {
                let data = grown(&rows[index][..56], length.max(56));
                let changed = transactions.change_row(
                    &mut transaction,
                    TABLE_OBJECT,
                    BufferPool::Default,
                    rowid,
                    &mut |_| Ok(RowChange::Update(data.clone())),
                );
                if changed.is_err() {
                    failed = true;
                    break;
                }
                rows[index] = data;
            }
        }
        if failed {
            break;
        }
        match generator.below(10) {
            0 => {
                if transactions.rollback(transaction).is_err() {
                    break;
                }
            }
            _ => {
                let in_flight: BTreeSet<Vec<u8>> = rows.iter().cloned().collect();
                match transactions.commit(transaction, true) {
                    Ok(_) => committed.extend(in_flight),
                    Err(_) => return (committed, in_flight),
                }
            }
        }
    }
    (committed, BTreeSet::new())
}

fn check_after_recovery(
    instance: &Instance,
    objects: &Objects,
    committed: &BTreeSet<Vec<u8>>,
    in_flight: &BTreeSet<Vec<u8>>,
    seed: u64,
) {
    let rows = visible_rows(instance, objects.table);
    let found: BTreeSet<Vec<u8>> = rows.iter().map(|(_, data)| data.clone()).collect();
    assert_eq!(found.len(), rows.len(), "seed {seed}: a row appears twice");
    let lost: Vec<_> = committed.difference(&found).collect();
    assert!(
        lost.is_empty(),
        "seed {seed}: {} acknowledged rows lost",
        lost.len()
    );
    let extra: BTreeSet<Vec<u8>> = found.difference(committed).cloned().collect();
    // Rows beyond the acknowledged ones may only be the whole in-flight commit.
    assert!(
        extra.is_empty() || extra == *in_flight,
        "seed {seed}: {} rows of uncommitted transactions survived",
        extra.len()
    );
    // The index holds a live entry for exactly the visible rows.
    let tree = BTree::open(instance.cache(), objects.index, true, BufferPool::Default).unwrap();
    tree.check(instance.cache()).unwrap();
    let mut entries = BTreeSet::new();
    for entry in tree.range(instance.cache(), None, None) {
        let entry = entry.unwrap();
        if !entry.deleted {
            entries.insert((entry.key, entry.rowid));
        }
    }
    let expected: BTreeSet<(Vec<u8>, u64)> = rows
        .iter()
        .map(|(rowid, data)| (key_of(data), rowid.to_u64()))
        .collect();
    assert_eq!(entries, expected, "seed {seed}: index and table disagree");
}

#[test]
fn power_loss_at_random_syncs_loses_no_acknowledged_commit() {
    for seed in 1..=40u64 {
        power_loss_run(seed, false);
    }
}

/// The same with rows migrating: recovery rolls back forwarding heads and migrated pieces of
/// the transactions in flight, and every committed migrated row keeps its ROWID (the index
/// check below) and reads whole.
#[test]
fn power_loss_during_row_migrations_loses_no_acknowledged_commit() {
    for seed in 1..=20u64 {
        power_loss_run(seed, true);
    }
}

fn power_loss_run(seed: u64, migrate: bool) {
    let dir = Path::new("/db");
    {
        let vfs = SimVfs::new(seed);
        vfs.create_dir_all(dir).unwrap();
        let mut generator = Generator(seed * 0x9E37_79B9 + 1);
        let instance = Instance::open_with(Arc::new(vfs.clone()), dir, config()).unwrap();
        let objects = create_objects(&instance);
        instance.checkpoint().unwrap();
        vfs.crash_after_syncs(20 + generator.below(400));
        let (committed, in_flight) = workload(&instance, &objects, &mut generator, migrate);
        instance.abandon();
        drop(instance);
        let after = vfs.crash();
        let reopened = Instance::open_with(Arc::new(after.clone()), dir, config()).unwrap();
        check_after_recovery(&reopened, &objects, &committed, &in_flight, seed);
        // A second crash right after recovery, with nothing new: recovery is repeatable.
        reopened.abandon();
        drop(reopened);
        let again = Instance::open_with(Arc::new(after.crash_keep_all()), dir, config()).unwrap();
        check_after_recovery(&again, &objects, &committed, &in_flight, seed);
    }
}

#[test]
fn clean_shutdown_and_reopen_keeps_everything_and_needs_no_recovery_work() {
    let dir = Path::new("/db");
    let vfs = SimVfs::new(99);
    vfs.create_dir_all(dir).unwrap();
    let instance = Instance::open_with(Arc::new(vfs.clone()), dir, config()).unwrap();
    let objects = create_objects(&instance);
    let mut generator = Generator(5);
    let (committed, _) = {
        // Bounded: stop after a fixed number of transactions by crashing nothing.
        let transactions = instance.transactions();
        let tree = BTree::open(instance.cache(), objects.index, true, BufferPool::Default).unwrap();
        let hint = InsertPoints::default();
        let mut committed = BTreeSet::new();
        for number in 0..300u64 {
            let mut transaction = transactions.begin().unwrap();
            for row_number in 0..1 + generator.below(4) {
                let data = row(number, row_number);
                let rowid = transactions
                    .insert_row(
                        &mut transaction,
                        objects.table,
                        TABLE_OBJECT,
                        BufferPool::Default,
                        &hint,
                        &data,
                    )
                    .unwrap();
                transactions
                    .index_insert(&mut transaction, &tree, INDEX_OBJECT, &key_of(&data), rowid)
                    .unwrap();
                committed.insert(data);
            }
            transactions.commit(transaction, true).unwrap();
        }
        (committed, ())
    };
    assert!(instance.is_open());
    instance.shutdown().unwrap();
    assert!(!instance.is_open());
    drop(instance);
    let reopened = Instance::open_with(Arc::new(vfs.clone()), dir, config()).unwrap();
    assert!(reopened.is_open());
    assert_eq!(reopened.open_report().transactions_rolled_back, 0);
    check_after_recovery(&reopened, &objects, &committed, &BTreeSet::new(), 99);
}

#[test]
fn second_instance_on_the_same_directory_gets_ora_01102() {
    let dir = Path::new("/db");
    let vfs = SimVfs::new(3);
    vfs.create_dir_all(dir).unwrap();
    let _first = Instance::open_with(Arc::new(vfs.clone()), dir, config()).unwrap();
    let second = Instance::open_with(Arc::new(vfs.clone()), dir, config());
    assert_eq!(second.err().map(|error| error.code()), Some(1102));
}

/// The bug this pins: a process killed during the very first open, after the control file was
/// written but before the redo of the new database's formatting (space bitmap, undo header)
/// reached the log, left a database that no open could ever open again: recovery found no
/// redo, and the undo file failed its check (ORA-01122 "not a Pythia undo file"). Found by
/// killing `lab crash`'s worker 16 ms after it started on an empty directory.
///
/// Every sync of the creation is, in turn, the moment of a crash, kept as `kill -9` keeps it
/// (every completed write) and as a power loss keeps it (unsynced writes dropped, applied or
/// torn); the next open must succeed and the database must work.
#[test]
fn a_crash_at_any_sync_of_the_first_open_leaves_a_database_that_opens() {
    let dir = Path::new("/db");
    for kill in [true, false] {
        for crash_at in 1..=200u64 {
            let vfs = SimVfs::new(crash_at);
            vfs.create_dir_all(dir).unwrap();
            vfs.crash_after_syncs(crash_at);
            let first = Instance::open_with(Arc::new(vfs.clone()), dir, config());
            if let Ok(instance) = first {
                // The crash point lies past the creation: every earlier one was tried.
                instance.abandon();
                assert!(crash_at > 3, "the creation took {crash_at} syncs");
                break;
            }
            let after = if kill {
                vfs.crash_keep_all()
            } else {
                vfs.crash()
            };
            let reopened = Instance::open_with(Arc::new(after.clone()), dir, config())
                .unwrap_or_else(|error| {
                    panic!("crash at sync {crash_at} (kill -9: {kill}): reopen: {error}")
                });
            let mut session = reopened.connect().unwrap();
            session
                .execute("create table t (id number primary key)")
                .unwrap();
            session.execute("insert into t values (1)").unwrap();
            session.execute("commit").unwrap();
            drop(session);
            reopened.shutdown().unwrap();
            drop(reopened);
            // Opened again, it is the same database: recovered, not created once more.
            let again = Instance::open_with(Arc::new(after), dir, config()).unwrap();
            assert!(!again.open_report().created, "crash at sync {crash_at}");
            let mut session = again.connect().unwrap();
            let count = session.execute("select count(*) from t").unwrap().rows[0][0].to_string();
            assert_eq!(count, "1", "crash at sync {crash_at} (kill -9: {kill})");
        }
    }
}

/// A new block of heap segment `table` (data object 100), formatted, then given `fill`
/// before its mini-transaction commits.
fn new_heap_block(instance: &Instance, table: BlockId, fill: impl FnOnce(&mut [u8])) -> BlockId {
    let mut mtr = Mtr::new(instance.cache());
    let id =
        segment::allocate_block(&mut mtr, instance.space(), table, BufferPool::Default).unwrap();
    let held = mtr.new_block(id, BufferPool::Default).unwrap();
    pythia::access::heap::format(mtr.block(held), id, 100, table.block);
    fill(mtr.block(held));
    mtr.commit(instance.log(), instance.transactions().current_scn(), 0)
        .unwrap();
    id
}

/// The bytes of `block` as the cache holds it now.
fn block_bytes(instance: &Instance, block: BlockId) -> Vec<u8> {
    instance
        .cache()
        .read(block, pythia::buffer::AccessKind::Lookup)
        .unwrap()
        .to_vec()
}

/// A block clean when a mini-transaction takes it is not copied whole: the ranges handed out
/// of it keep their old bytes instead. Abandoned, the change is put back (overlapping
/// ranges: the oldest bytes win); committed through ranges, and through ranges then the
/// whole block, it replays from redo alone after a power loss.
#[test]
fn ranges_of_a_clean_block_roll_back_and_replay() {
    let vfs = SimVfs::new(16);
    let (instance, table) = common::instance_with_heap(&vfs, config(), 100);
    let scn = || instance.transactions().current_scn();
    // A heap block of the segment, its free space (the middle of an empty block) free to
    // scribble on.
    let block = new_heap_block(&instance, table, |_| {});
    instance.checkpoint().unwrap();
    let clean = block_bytes(&instance, block);
    {
        let mut mtr = Mtr::new(instance.cache());
        let held = mtr.get(block, pythia::buffer::AccessKind::Lookup).unwrap();
        mtr.range_mut(held, 200..210).fill(7);
        mtr.range_mut(held, 205..220).fill(9);
        mtr.range_mut(held, 198..202).fill(3);
    }
    assert_eq!(block_bytes(&instance, block), clean, "abandoned: put back");

    // Through ranges only, then through ranges and the whole block, each from clean.
    let mut expected = clean.clone();
    for whole in [false, true] {
        instance.checkpoint().unwrap();
        let mut mtr = Mtr::new(instance.cache());
        let held = mtr.get(block, pythia::buffer::AccessKind::Lookup).unwrap();
        let base = if whole { 400 } else { 300 };
        mtr.range_mut(held, base..base + 8).fill(0xAB);
        mtr.range_mut(held, base + 4..base + 12).fill(0xCD);
        if whole {
            mtr.block(held)[base + 40] = 0x5A;
            mtr.range_mut(held, base + 10..base + 14).fill(0x11);
        }
        let end = mtr.commit(instance.log(), scn(), 0).unwrap();
        instance.log().flush_to(end).unwrap();
        expected[base..base + 4].fill(0xAB);
        expected[base + 4..base + 12].fill(0xCD);
        if whole {
            expected[base + 40] = 0x5A;
            expected[base + 10..base + 14].fill(0x11);
        }
    }
    // More separate ranges than a block keeps apart: the block is then diffed whole.
    instance.checkpoint().unwrap();
    {
        let mut mtr = Mtr::new(instance.cache());
        let held = mtr.get(block, pythia::buffer::AccessKind::Lookup).unwrap();
        for part in 0..6 {
            let start = 500 + part * 10;
            mtr.range_mut(held, start..start + 3)
                .fill(0x60 + part as u8);
            expected[start..start + 3].fill(0x60 + part as u8);
        }
        let end = mtr.commit(instance.log(), scn(), 0).unwrap();
        instance.log().flush_to(end).unwrap();
    }
    let held = block_bytes(&instance, block);
    assert_eq!(held[200..600], expected[200..600]);

    // Power lost: the datafile has the block as of the last checkpoint, redo the rest.
    let after = vfs.crash();
    let dir = Path::new("/db");
    let reopened = Instance::open_with(Arc::new(after), dir, config()).unwrap();
    let replayed = block_bytes(&reopened, block);
    assert_eq!(replayed[200..600], expected[200..600]);
}

/// A block held by a mini-transaction and then formatted anew in it (`new_block` on a block
/// it holds) replays from redo as formatted: recovery zeroes an init block before applying
/// its ranges, so bytes the new content shares with the old must be logged too.
#[test]
fn a_held_block_formatted_anew_replays_whole() {
    let vfs = SimVfs::new(17);
    let (instance, table) = common::instance_with_heap(&vfs, config(), 100);
    let scn = || instance.transactions().current_scn();
    let block = new_heap_block(&instance, table, |data| data[300..340].fill(0x42));
    instance.checkpoint().unwrap();
    let expected = {
        let mut mtr = Mtr::new(instance.cache());
        let held = mtr.get(block, pythia::buffer::AccessKind::Lookup).unwrap();
        mtr.block(held)[500] = 1;
        let again = mtr.new_block(block, BufferPool::Default).unwrap();
        assert_eq!(again, held);
        // The same format and some of the same bytes as before, and some new ones.
        pythia::access::heap::format(mtr.block(held), block, 100, table.block);
        mtr.block(held)[300..320].fill(0x42);
        mtr.block(held)[320..330].fill(0x17);
        let end = mtr.commit(instance.log(), scn(), 0).unwrap();
        instance.log().flush_to(end).unwrap();
        block_bytes(&instance, block)
    };
    // Reopened on a thread of its own: with the bytes lost, recovery's checkpoint waited
    // forever on a database writer that had stopped on the damaged block.
    let crashed = vfs.crash();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let reopened = Instance::open_with(Arc::new(crashed), Path::new("/db"), config());
        let _ = sender.send(reopened.map(|instance| block_bytes(&instance, block)));
    });
    let replayed = receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the reopen did not finish")
        .unwrap();
    assert_eq!(replayed[24..], expected[24..]);
}
