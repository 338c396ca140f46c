//! Helpers shared by the integration tests: a fresh directory and small parameters for an
//! instance opened through SQL (`sql.rs`, `concurrency.rs`, `optimizer.rs`), and for the
//! tests that work below SQL, on the transaction layer and heap blocks directly
//! (`crash_recovery.rs`, `migration.rs`). Each test crate uses some of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pythia::access::heap::{self, RowId};
use pythia::access::segment::{self, SegmentKind};
use pythia::buffer::{AccessKind, BufferPool};
use pythia::instance::{Instance, InstanceConfig};
use pythia::io::block::BlockId;
use pythia::io::vfs::{SimVfs, Vfs};
use pythia::redo::mtr::Mtr;
use pythia::{Session, Value};

/// An empty directory for a test's database, unique to this test process.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pythia-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Opens the database in `dir` with [`SMALL`], runs `work` with the instance and a session
/// of it (the session ends when `work` returns), then shuts the instance down cleanly.
pub fn with_database<T>(dir: &Path, work: impl FnOnce(&Arc<Instance>, Session) -> T) -> T {
    let instance = Instance::open(dir, SMALL).unwrap();
    let session = instance.connect().unwrap();
    let kept = work(&instance, session);
    instance.shutdown().unwrap();
    kept
}

/// The restart skeleton: in a fresh directory `name`, runs `before` on a new database (see
/// [`with_database`]), shuts it down, opens it again and runs `after` with what `before`
/// returned; then shuts down again and removes the directory.
pub fn across_a_restart<T>(
    name: &str,
    before: impl FnOnce(&Arc<Instance>, Session) -> T,
    after: impl FnOnce(&Arc<Instance>, Session, T),
) {
    let dir = temp_dir(name);
    let kept = with_database(&dir, before);
    with_database(&dir, |instance, session| after(instance, session, kept));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Parameters for a small instance opened by `Instance::open`.
pub const SMALL: &[(&str, &str)] = &[
    ("db_cache_size", "8M"),
    ("log_file_size", "4M"),
    ("undo_tablespace_size", "16M"),
    ("log_buffer", "1M"),
];

/// Small redo and undo, and 2 KiB blocks as in seed 001 (the buffer pool tests).
pub const SMALL_BLOCKS: &[(&str, &str)] = &[
    ("db_block_size", "2048"),
    ("log_file_size", "4M"),
    ("undo_tablespace_size", "16M"),
    ("log_buffer", "1M"),
];

/// Opens an instance in a fresh directory with [`SMALL_BLOCKS`] and `extra`.
pub fn open_small_blocks(name: &str, extra: &[(&str, &str)]) -> pythia::Result<Arc<Instance>> {
    let mut parameters: Vec<(&str, &str)> = SMALL_BLOCKS.to_vec();
    parameters.extend_from_slice(extra);
    Instance::open(temp_dir(name), &parameters)
}

/// `text` (a value a view printed) as a number; anything else fails the test.
pub fn number(text: &str) -> u64 {
    text.parse()
        .unwrap_or_else(|_| panic!("{text:?} is not a number"))
}

/// The rows `sql` returns, each value as text; a failing statement fails the test.
pub fn text_rows(session: &mut Session, sql: &str) -> Vec<Vec<String>> {
    session
        .execute(sql)
        .unwrap_or_else(|error| panic!("{sql}: {error}"))
        .rows
        .iter()
        .map(|row| row.iter().map(Value::to_string).collect())
        .collect()
}

/// Runs `sql`; a failing statement fails the test.
pub fn run(session: &mut Session, sql: &str) {
    session
        .execute(sql)
        .unwrap_or_else(|error| panic!("{sql}: {error}"));
}

/// The error code `sql` fails with; success fails the test.
pub fn error_code(session: &mut Session, sql: &str) -> u32 {
    match session.execute(sql) {
        Ok(_) => panic!("{sql}: expected an error"),
        Err(error) => error.code(),
    }
}

/// A small instance: 2 KiB blocks, so that a few rows fill a block.
pub fn config() -> InstanceConfig {
    InstanceConfig {
        block_size: 2048,
        cache_bytes: 128 * 2048,
        log_buffer_bytes: 256 << 10,
        log_file_size: 256 << 10,
        log_groups: 3,
        undo_bytes: 4 << 20,
    }
}

/// Every row of the heap segment `table` visible to a new snapshot, by full scan, with its
/// rowid.
pub fn visible_rows(instance: &Instance, table: BlockId) -> Vec<(RowId, Vec<u8>)> {
    let transactions = instance.transactions();
    let snapshot = transactions.snapshot();
    let mut rows = Vec::new();
    for block in segment::used_blocks(instance.cache(), table).unwrap() {
        let pieces = {
            let data = instance.cache().read(block, AccessKind::Scan).unwrap();
            heap::pieces(&data).unwrap()
        };
        for (slot, piece) in pieces {
            if let Some(data) = transactions
                .consistent_version(piece, snapshot.scn, 0)
                .unwrap()
            {
                rows.push((
                    RowId {
                        block: block.block,
                        slot,
                    },
                    data,
                ));
            }
        }
    }
    rows
}

/// An instance on the simulated disk `vfs`, in `/db`, with an empty heap segment of data
/// object `object`; returns the instance and the segment's header.
pub fn instance_with_heap(
    vfs: &SimVfs,
    config: InstanceConfig,
    object: u32,
) -> (Arc<Instance>, BlockId) {
    let dir = Path::new("/db");
    vfs.create_dir_all(dir).unwrap();
    let instance = Instance::open_with(Arc::new(vfs.clone()), dir, config).unwrap();
    let table = {
        let mut mtr = Mtr::new(instance.cache());
        let table = segment::create(
            &mut mtr,
            instance.space(),
            object,
            SegmentKind::Heap,
            BufferPool::Default,
        )
        .unwrap();
        mtr.commit(instance.log(), instance.transactions().current_scn(), 0)
            .unwrap();
        table
    };
    (instance, table)
}
