//! Helpers for the tests that work below SQL, on the transaction layer and heap blocks
//! directly (`crash_recovery.rs`, `migration.rs`).

use pythia::buffer::AccessKind;
use pythia::instance::{Instance, InstanceConfig};
use pythia::storage::block::BlockId;
use pythia::storage::heap::{self, RowId};
use pythia::storage::segment;

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
