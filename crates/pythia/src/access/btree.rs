//! B-tree indexes: sorted (key, rowid) entries in slotted blocks, changed only through
//! mini-transactions, read with one shared block at a time.
//!
//! # What an index holds
//!
//! An entry is a key (opaque bytes, compared with memcmp: the key codec makes SQL order equal
//! byte order) and the rowid of the row it points to. Entries are ordered by (key, rowid), so
//! every entry is unique, even in a non-unique index, and a unique index may briefly hold the
//! same key for several rowids (one live, the others delete-marked by transactions whose
//! snapshots still need them).
//!
//! Deleting a key does not remove its entry: the deleting transaction sets the entry's delete
//! mark and its own xid, so that readers with older snapshots still reach the row through the
//! index (they re-check the row version they see). Rollback clears the mark. Entries are
//! physically removed only by [`BTree::purge`] (dead entries whose xid the caller's predicate
//! declares purgeable) and by [`BTree::remove`] (rollback of an insert).
//!
//! ```text
//!                         root (block number fixed in the segment header)
//!                      [ c0 | k1,r1 c1 | k2,r2 c2 ]              level 2
//!                     /           |             \
//!      [ c0 | k,r c ]      [ c0 | k,r c ]      [ c0 | k,r c ]   level 1 (branches)
//!       /        \            /        \          /       \
//!   leaf <-> leaf <-> leaf <-> leaf <-> leaf <-> leaf <-> leaf    level 0 (leaves, linked)
//! ```
//!
//! # Block layout
//!
//! Leaves and branches share one slotted layout. After the common 32-byte block header
//! (see `block.rs`), little endian:
//!
//! ```text
//! offset size field
//!     32    2 entry count
//!     34    2 free-space end: offset of the lowest entry body (block_size when empty)
//!     36    4 next block at the same level, to the right (leaves; 0 = none, 0 in branches)
//!     40    4 previous block at the same level (leaves; 0 = none, 0 in branches)
//!     44    1 level: 0 = leaf, parent = child + 1
//!     45    1 reserved, 0
//!     46    2 garbage bytes: bytes of entry bodies that no slot points to any more
//!     48    4 leftmost child block (branches; 0 in leaves)
//!     52      slot array: entry count x u16 offset of the entry body, in (key, rowid) order
//!    ...      free space
//! free end    entry bodies, in no particular order, up to the end of the block
//! ```
//!
//! Leaf entry body (19 bytes + key):
//! ```text
//!      0    1 flags        bit 0 = delete-marked
//!      1    8 xid          transaction that delete-marked the entry, 0 when not marked
//!      9    2 key length
//!     11    n key bytes
//!   11+n    8 rowid
//! ```
//! Branch entry body (14 bytes + key): a separator and the child to its right.
//! ```text
//!      0    2 key length
//!      2    n key bytes
//!    2+n    8 rowid        the separator's tie-breaker: separators are (key, rowid) pairs
//!   10+n    4 child block
//! ```
//! A branch with entries (s1, c1) .. (sn, cn) and leftmost child c0 routes (key, rowid) to
//! c0 when it is below s1, else to the ci of the last si <= (key, rowid). Block numbers are
//! within the segment header's file (block 0 is the file header, so 0 can mean "none").
//!
//! Inserting writes the body at the free-space end and shifts only the slots after it, so a
//! change's redo (the mini-transaction diffs the block) is the new body, the shifted slots
//! and the header fields. Removing a slot leaves its body as garbage; when an insert finds
//! the contiguous free space too small but the total (contiguous + garbage) large enough, the
//! block is compacted (bodies rewritten contiguously).
//!
//! Key size: a key may hold at most [`max_key_bytes`]`(block_size)` bytes, that is a quarter
//! of the space after the node header, less a leaf entry's fixed bytes and its slot
//! (`(block_size - 52) / 4 - 21`: 478 bytes in 2048-byte blocks, 2014 in 8192-byte blocks).
//! So at least four entries fit in every leaf and every branch, which is what makes any split
//! produce two halves that fit. Longer keys fail with ORA-01450.
//!
//! # Invariants (checked by [`BTree::check`])
//!
//! 1. Within a block, slots are in strictly increasing (key, rowid) order; bodies lie within
//!    [free end, block_size) without overlapping, and live bodies + garbage = block_size -
//!    free end.
//! 2. Every entry of a subtree lies within the bounds its ancestors' separators give it:
//!    low <= entry < high.
//! 3. A child's level is its parent's level minus one; leaves are level 0, so every leaf is
//!    at the same depth.
//! 4. The leaves, left to right, form a doubly linked list: the first has no previous, the
//!    last has no next.
//! 5. The root block never changes: a root split copies the root's content into two new
//!    blocks and turns the root into a branch one level higher.
//! 6. Blocks never leave the tree: there are no merges; a leaf emptied by purge stays linked
//!    and is refilled by later inserts. So a block number, once seen in a sibling link, stays
//!    a block of the same level of the same tree.
//! 7. Entries only move to the right: a split keeps the lower part in the block and moves the
//!    upper part to a new block linked as its right sibling, in the same mini-transaction.
//!
//! # Concurrency
//!
//! Readers (range scans, lookups, statistics) use shared gets, one block at a time, with
//! latch coupling on the way down: the child is taken before the parent is released. A
//! leaf's content is copied out before the leaf is released, and no guard is held between
//! calls of the iterator. To continue, the iterator follows the copied leaf's next link and
//! skips entries at or before the last one it returned.
//!
//! Writers descend optimistically: shared gets on branches (coupled), and the leaf taken in
//! exclusive mode through the mini-transaction while its parent is still held shared. If the
//! change fits in the leaf (after purging dead entries, for an insert), it is made and
//! committed. Otherwise everything is released and the descent is redone pessimistically:
//! every block from the root down taken in exclusive mode in one mini-transaction, so that
//! the split (of the leaf, of branches up to the root if they overflow, the new blocks, the
//! right sibling's back link, the segment header and the space bitmap) is one redo record.
//! When the root is a leaf, writers take it exclusively at once.
//!
//! Why no reader misses an entry that existed when its scan began, and why no deadlock:
//!
//! - Every split holds the split block's parent (all its ancestors in fact) exclusively. A
//!   descending reader or writer holds the parent shared while it takes the child, so the
//!   child it lands on is the one whose key range holds its target, and that range cannot
//!   change while it holds the child.
//! - Between two leaves of a scan, only splits can change things (6). A split of a leaf the
//!   scan already copied moves entries it already returned, or entries newer than the scan.
//!   A split of a leaf not yet read moves entries right (7) into a new block linked after it
//!   before the split's latches are released, so the next-link walk reaches them. Entries
//!   are never moved left, so nothing can slip behind the scan.
//! - Latch order is top-down and, within a level, left to right: descents go root to leaf;
//!   a split holds the path from the root, then takes the right sibling of the split leaf,
//!   then the segment header and space bitmap (which nobody holds while waiting for an index
//!   block), then the new blocks (which nobody else can reach yet). Readers hold at most a
//!   parent and its child, and never hold a leaf while waiting for its sibling (they copy,
//!   release, then follow the link). Only one pessimistic writer at a time can hold the
//!   root, so splits are serialized; optimistic writers hold a single leaf when they change
//!   it.
//!
//! The simple route costs concurrency on splits (the whole path stays exclusive until the
//! split commits, and `Mtr` cannot release a block before commit), but splits are rare.
//!
//! # Failure
//!
//! An error half way through a change (no space: ORA-01653, too many extents: ORA-01631, an
//! I/O error) drops the mini-transaction, which puts every block back as it was. A block
//! that is not an index block of the expected kind is ORA-00600 (internal error), as is any
//! invariant violation found by `check`.

use std::collections::VecDeque;
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;

use crate::access::segment::{self, SegmentKind};
use crate::access::space::SpaceManager;
use crate::buffer::{AccessKind, BlockAccess, BlockRead, BufferCache, BufferPool};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic};
use crate::io::block::{self, BlockId, BlockType, BLOCK_HEADER_BYTES};
use crate::redo::log::RedoLog;
use crate::redo::mtr::{Held, Mtr};

// ---------------------------------------------------------------------------------------
// Block layout.
// ---------------------------------------------------------------------------------------

const OFFSET_ENTRY_COUNT: usize = BLOCK_HEADER_BYTES;
const OFFSET_FREE_END: usize = 34;
const OFFSET_NEXT: usize = 36;
const OFFSET_PREVIOUS: usize = 40;
const OFFSET_LEVEL: usize = 44;
const OFFSET_GARBAGE: usize = 46;
const OFFSET_LEFTMOST_CHILD: usize = 48;
/// Where the slot array starts: the end of the node header.
const NODE_HEADER_END: usize = 52;
const SLOT_BYTES: usize = 2;
/// flags (1) + xid (8) + key length (2) + rowid (8).
const LEAF_ENTRY_FIXED_BYTES: usize = 19;
/// key length (2) + rowid (8) + child (4).
const BRANCH_ENTRY_FIXED_BYTES: usize = 14;
const FLAG_DELETED: u8 = 1;
/// A tree taller than this is corrupt (a chain of self-references, say); with at least four
/// entries per block, 2048-byte blocks and 2^32 blocks, a real tree stays below 17.
const HEIGHT_MAX: usize = 24;

/// The longest key an index with this block size accepts (ORA-01450 beyond).
pub fn max_key_bytes(block_size: usize) -> usize {
    (block_size - NODE_HEADER_END) / 4 - LEAF_ENTRY_FIXED_BYTES - SLOT_BYTES
}

fn entry_count(node: &[u8]) -> usize {
    block::read_u16(node, OFFSET_ENTRY_COUNT) as usize
}

fn free_end(node: &[u8]) -> usize {
    block::read_u16(node, OFFSET_FREE_END) as usize
}

fn next_block(node: &[u8]) -> u32 {
    block::read_u32(node, OFFSET_NEXT)
}

fn previous_block(node: &[u8]) -> u32 {
    block::read_u32(node, OFFSET_PREVIOUS)
}

fn level(node: &[u8]) -> u8 {
    node[OFFSET_LEVEL]
}

fn garbage_bytes(node: &[u8]) -> usize {
    block::read_u16(node, OFFSET_GARBAGE) as usize
}

fn leftmost_child(node: &[u8]) -> u32 {
    block::read_u32(node, OFFSET_LEFTMOST_CHILD)
}

fn is_leaf(node: &[u8]) -> bool {
    level(node) == 0
}

fn slot_position(index: usize) -> usize {
    NODE_HEADER_END + index * SLOT_BYTES
}

fn entry_offset(node: &[u8], index: usize) -> usize {
    block::read_u16(node, slot_position(index)) as usize
}

/// Size of the entry body at `offset` in a node of this kind.
fn body_size_at(node: &[u8], offset: usize) -> usize {
    if is_leaf(node) {
        LEAF_ENTRY_FIXED_BYTES + block::read_u16(node, offset + 9) as usize
    } else {
        BRANCH_ENTRY_FIXED_BYTES + block::read_u16(node, offset) as usize
    }
}

fn entry_body(node: &[u8], index: usize) -> &[u8] {
    let offset = entry_offset(node, index);
    &node[offset..offset + body_size_at(node, offset)]
}

/// The key and rowid of an entry body (leaf or branch).
fn body_key(body: &[u8], leaf: bool) -> (&[u8], u64) {
    let (length_at, key_at) = if leaf { (9, 11) } else { (0, 2) };
    let length = block::read_u16(body, length_at) as usize;
    (
        &body[key_at..key_at + length],
        block::read_u64(body, key_at + length),
    )
}

fn entry_key(node: &[u8], index: usize) -> (&[u8], u64) {
    body_key(entry_body(node, index), is_leaf(node))
}

fn branch_body_child(body: &[u8]) -> u32 {
    let length = block::read_u16(body, 0) as usize;
    block::read_u32(body, 2 + length + 8)
}

fn branch_child(node: &[u8], index: usize) -> u32 {
    branch_body_child(entry_body(node, index))
}

/// The child reached through `slot`: 0 is the leftmost child, i + 1 the child of entry i.
fn child_at_slot(node: &[u8], slot: usize) -> u32 {
    if slot == 0 {
        leftmost_child(node)
    } else {
        branch_child(node, slot - 1)
    }
}

fn leaf_entry(node: &[u8], index: usize) -> IndexEntry {
    let body = entry_body(node, index);
    let (key, rowid) = body_key(body, true);
    IndexEntry {
        key: key.to_vec(),
        rowid,
        deleted: body[0] & FLAG_DELETED != 0,
        xid: block::read_u64(body, 1),
    }
}

fn compare(key: &[u8], rowid: u64, other_key: &[u8], other_rowid: u64) -> std::cmp::Ordering {
    key.cmp(other_key).then(rowid.cmp(&other_rowid))
}

/// The first index in 0..count for which `is_before` is false (entries are sorted, so
/// `is_before` holds for a prefix).
fn partition_point(node: &[u8], is_before: impl Fn(&[u8], u64) -> bool) -> usize {
    partition_point_within(node, 0, entry_count(node), is_before)
}

/// `partition_point` for a partition point known to lie at or after `from`, found by
/// galloping from there (1, 2, 4, ... entries on) and then a binary search: the end of a
/// short range, a unique key's one entry above all, costs two or three comparisons rather
/// than a search of the whole leaf.
fn partition_point_from(node: &[u8], from: usize, is_before: impl Fn(&[u8], u64) -> bool) -> usize {
    let count = entry_count(node);
    let (mut low, mut step) = (from, 1);
    loop {
        let probe = low + step - 1;
        if probe >= count {
            return partition_point_within(node, low, count, is_before);
        }
        let (key, rowid) = entry_key(node, probe);
        if !is_before(key, rowid) {
            return partition_point_within(node, low, probe, is_before);
        }
        low = probe + 1;
        step *= 2;
    }
}

/// The partition point within entries `[low, high)`, all before `low` being before it and
/// none from `high` on.
fn partition_point_within(
    node: &[u8],
    mut low: usize,
    mut high: usize,
    is_before: impl Fn(&[u8], u64) -> bool,
) -> usize {
    while low < high {
        let middle = (low + high) / 2;
        let (key, rowid) = entry_key(node, middle);
        if is_before(key, rowid) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// Ok(index) of the entry equal to (key, rowid), or Err(index where it would go).
fn search(node: &[u8], key: &[u8], rowid: u64) -> std::result::Result<usize, usize> {
    let position = partition_point(node, |entry, entry_rowid| {
        compare(entry, entry_rowid, key, rowid).is_lt()
    });
    if position < entry_count(node) {
        let (entry, entry_rowid) = entry_key(node, position);
        if compare(entry, entry_rowid, key, rowid).is_eq() {
            return Ok(position);
        }
    }
    Err(position)
}

/// The slot of the child whose range holds (key, rowid): the number of separators <= it.
fn child_slot_for(node: &[u8], key: &[u8], rowid: u64) -> usize {
    partition_point(node, |entry, entry_rowid| {
        compare(entry, entry_rowid, key, rowid).is_le()
    })
}

fn leaf_body(key: &[u8], rowid: u64, flags: u8, xid: u64) -> Vec<u8> {
    let mut body = Vec::with_capacity(LEAF_ENTRY_FIXED_BYTES + key.len());
    body.push(flags);
    body.extend_from_slice(&xid.to_le_bytes());
    body.extend_from_slice(&(key.len() as u16).to_le_bytes());
    body.extend_from_slice(key);
    body.extend_from_slice(&rowid.to_le_bytes());
    body
}

fn branch_body(key: &[u8], rowid: u64, child: u32) -> Vec<u8> {
    let mut body = Vec::with_capacity(BRANCH_ENTRY_FIXED_BYTES + key.len());
    body.extend_from_slice(&(key.len() as u16).to_le_bytes());
    body.extend_from_slice(key);
    body.extend_from_slice(&rowid.to_le_bytes());
    body.extend_from_slice(&child.to_le_bytes());
    body
}

/// Turns a block into an empty node of `level` (its common header stays, except the type).
fn initialize_node(node: &mut [u8], level: u8) {
    node[block::OFFSET_BLOCK_TYPE] = if level == 0 {
        BlockType::BtreeLeaf
    } else {
        BlockType::BtreeBranch
    } as u8;
    node[BLOCK_HEADER_BYTES..].fill(0);
    let block_size = node.len();
    block::write_u16(node, OFFSET_FREE_END, block_size as u16);
    node[OFFSET_LEVEL] = level;
}

fn set_next(node: &mut [u8], next: u32) {
    block::write_u32(node, OFFSET_NEXT, next)
}

fn set_previous(node: &mut [u8], previous: u32) {
    block::write_u32(node, OFFSET_PREVIOUS, previous)
}

fn set_leftmost_child(node: &mut [u8], child: u32) {
    block::write_u32(node, OFFSET_LEFTMOST_CHILD, child)
}

fn contiguous_free(node: &[u8]) -> usize {
    free_end(node) - slot_position(entry_count(node))
}

fn total_free(node: &[u8]) -> usize {
    contiguous_free(node) + garbage_bytes(node)
}

/// Space a node offers to entries and slots.
fn node_capacity(block_size: usize) -> usize {
    block_size - NODE_HEADER_END
}

fn fits(node: &[u8], body_bytes: usize) -> bool {
    total_free(node) >= body_bytes + SLOT_BYTES
}

/// Inserts a body as entry `index`: the body goes at the free-space end, only the slots after
/// `index` move. Compacts first when the free space is fragmented. False (block untouched)
/// when it does not fit.
fn insert_body(node: &mut [u8], index: usize, body: &[u8]) -> bool {
    let count = entry_count(node);
    debug_assert!(index <= count);
    if !fits(node, body.len()) {
        return false;
    }
    if contiguous_free(node) < body.len() + SLOT_BYTES {
        compact(node);
    }
    let offset = free_end(node) - body.len();
    node[offset..offset + body.len()].copy_from_slice(body);
    node.copy_within(
        slot_position(index)..slot_position(count),
        slot_position(index + 1),
    );
    block::write_u16(node, slot_position(index), offset as u16);
    block::write_u16(node, OFFSET_ENTRY_COUNT, count as u16 + 1);
    block::write_u16(node, OFFSET_FREE_END, offset as u16);
    true
}

/// Removes entry `index`; its body becomes garbage (or free space, if it is the lowest).
fn remove_entry(node: &mut [u8], index: usize) {
    let count = entry_count(node);
    debug_assert!(index < count);
    let offset = entry_offset(node, index);
    let size = body_size_at(node, offset);
    if offset == free_end(node) {
        block::write_u16(node, OFFSET_FREE_END, (offset + size) as u16);
    } else {
        let garbage = garbage_bytes(node) + size;
        block::write_u16(node, OFFSET_GARBAGE, garbage as u16);
    }
    node.copy_within(
        slot_position(index + 1)..slot_position(count),
        slot_position(index),
    );
    block::write_u16(node, OFFSET_ENTRY_COUNT, count as u16 - 1);
}

/// Keeps the first `keep` entries (a split moved the others away).
fn truncate_entries(node: &mut [u8], keep: usize) {
    while entry_count(node) > keep {
        remove_entry(node, entry_count(node) - 1);
    }
}

/// Rewrites the bodies contiguously at the end of the block, in slot order.
fn compact(node: &mut [u8]) {
    let count = entry_count(node);
    let bodies: Vec<Vec<u8>> = (0..count)
        .map(|index| entry_body(node, index).to_vec())
        .collect();
    let mut offset = node.len();
    for (index, body) in bodies.iter().enumerate() {
        offset -= body.len();
        node[offset..offset + body.len()].copy_from_slice(body);
        block::write_u16(node, slot_position(index), offset as u16);
    }
    block::write_u16(node, OFFSET_FREE_END, offset as u16);
    block::write_u16(node, OFFSET_GARBAGE, 0);
}

fn set_leaf_mark(node: &mut [u8], index: usize, deleted: bool, xid: u64) {
    let offset = entry_offset(node, index);
    node[offset] = if deleted { FLAG_DELETED } else { 0 };
    block::write_u64(node, offset + 1, xid);
}

/// Removes the delete-marked entries of a leaf whose xid is purgeable. Returns how many.
fn purge_leaf(node: &mut [u8], purgeable: &dyn Fn(u64) -> bool) -> usize {
    let count = entry_count(node);
    let mut kept = 0;
    let mut garbage = garbage_bytes(node);
    for index in 0..count {
        let offset = entry_offset(node, index);
        let dead = node[offset] & FLAG_DELETED != 0 && purgeable(block::read_u64(node, offset + 1));
        if dead {
            garbage += body_size_at(node, offset);
        } else {
            block::write_u16(node, slot_position(kept), offset as u16);
            kept += 1;
        }
    }
    if kept != count {
        block::write_u16(node, OFFSET_ENTRY_COUNT, kept as u16);
        block::write_u16(node, OFFSET_GARBAGE, garbage as u16);
    }
    count - kept
}

/// Verifies that a block reached through the tree is an index node; returns ORA-00600
/// otherwise (the tree points at something else: corruption or a bug).
fn expect_node(node: &[u8], id: BlockId) -> Result<()> {
    let expected = if is_leaf(node) {
        BlockType::BtreeLeaf
    } else {
        BlockType::BtreeBranch
    };
    if block::block_type(node) != expected {
        return Err(Error::internal(format!(
            "kdi: block {id} is a {:?} block with level {}, not an index block",
            block::block_type(node),
            level(node)
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The public handle.
// ---------------------------------------------------------------------------------------

/// A predicate saying whether a delete-marked entry's xid is dead to every snapshot.
pub type PurgePredicate = Arc<dyn Fn(u64) -> bool + Send + Sync>;

/// A handle on one index: where its segment header and root are. Cheap to clone.
#[derive(Clone)]
pub struct BTree {
    header: BlockId,
    root: BlockId,
    unique: bool,
    /// The buffer pool its blocks are read into (`STORAGE (BUFFER_POOL ...)`).
    pool: BufferPool,
    /// Used by `insert` to remove dead entries from a full leaf before splitting it.
    purgeable: Option<PurgePredicate>,
}

impl fmt::Debug for BTree {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("BTree")
            .field("header", &self.header)
            .field("root", &self.root)
            .field("unique", &self.unique)
            .field("pool", &self.pool)
            .field("purge_before_split", &self.purgeable.is_some())
            .finish()
    }
}

/// One entry as readers see it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IndexEntry {
    pub key: Vec<u8>,
    pub rowid: u64,
    /// Delete-marked: some transaction (`xid`) deleted the key; older snapshots still see it.
    pub deleted: bool,
    pub xid: u64,
}

/// What ANALYZE and dba_indexes / index_stats report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BTreeStatistics {
    /// Height - 1: the number of branch levels (dba_indexes.blevel).
    pub blevel: u32,
    pub branch_blocks: u64,
    pub leaf_blocks: u64,
    /// Distinct keys among entries that are not delete-marked.
    pub distinct_keys: u64,
    /// Every entry, delete-marked ones included (index_stats.lf_rows).
    pub entries: u64,
    /// Delete-marked entries (index_stats.del_lf_rows).
    pub deleted_entries: u64,
}

/// Outcome of trying an insert within one leaf.
enum LeafInsert {
    Done,
    NoRoom { position: usize },
}

impl BTree {
    /// Creates the index segment and its empty root leaf inside `mtr`, their blocks in
    /// `pool` (the index's, which the returned tree reads into).
    pub fn create(
        mtr: &mut Mtr,
        space: &SpaceManager,
        object_id: u32,
        unique: bool,
        pool: BufferPool,
    ) -> Result<BTree> {
        let header = segment::create(mtr, space, object_id, SegmentKind::Btree, pool)?;
        let root = segment::allocate_block(mtr, space, header, pool)?;
        let held = mtr.new_block(root, pool)?;
        let node = mtr.block(held);
        block::format(node, root, BlockType::BtreeLeaf, object_id);
        initialize_node(node, 0);
        segment::set_root(mtr, header, root.block)?;
        Ok(BTree {
            header,
            root,
            unique,
            pool,
            purgeable: None,
        })
    }

    /// Opens an existing index from its segment header.
    /// The index whose segment header is `header`, its header and root read into `pool`
    /// (the index's pool: reading them into DEFAULT at the dictionary's load would leave the
    /// index's hottest blocks outside its pool).
    pub fn open(
        cache: &BufferCache,
        header: BlockId,
        unique: bool,
        pool: BufferPool,
    ) -> Result<BTree> {
        let root_number = segment::root(cache, header, pool)?;
        if root_number == 0 {
            return Err(Error::internal(format!(
                "kdi: segment at {header} has no index root"
            )));
        }
        let root = BlockId::new(header.file, root_number);
        expect_node(&cache.read(root, AccessKind::Index.in_pool(pool))?, root)?;
        Ok(BTree {
            header,
            root,
            unique,
            pool,
            purgeable: None,
        })
    }

    /// The same index, with a predicate that lets `insert` purge dead entries from a full
    /// leaf before splitting it. The predicate runs while index blocks are held exclusively:
    /// it must not touch this index.
    pub fn with_purge(mut self, purgeable: PurgePredicate) -> BTree {
        self.purgeable = Some(purgeable);
        self
    }

    /// The same index, its blocks read into `pool` from now on.
    pub fn with_pool(mut self, pool: BufferPool) -> BTree {
        self.pool = pool;
        self
    }

    pub fn pool(&self) -> BufferPool {
        self.pool
    }

    /// How this index's blocks are asked of the cache.
    fn access(&self) -> BlockAccess {
        AccessKind::Index.in_pool(self.pool)
    }

    pub fn header(&self) -> BlockId {
        self.header
    }

    pub fn root(&self) -> BlockId {
        self.root
    }

    pub fn unique(&self) -> bool {
        self.unique
    }

    fn block_id(&self, number: u32) -> BlockId {
        BlockId::new(self.header.file, number)
    }

    /// Inserts (key, rowid); if an identical entry exists delete-marked, unmarks it instead.
    /// An identical live entry is ORA-00600 (the caller inserted the same row twice).
    /// Each call is its own mini-transaction committed with `log` and `scn`.
    pub fn insert(
        &self,
        cache: &BufferCache,
        log: &RedoLog,
        space: &SpaceManager,
        scn: u64,
        key: &[u8],
        rowid: u64,
    ) -> Result<()> {
        let key_bytes_max = max_key_bytes(cache.block_size());
        if key.len() > key_bytes_max {
            return Err(Error::new(
                1450,
                format!("maximum key length ({key_bytes_max}) exceeded"),
            ));
        }
        // Optimistic: only the leaf in exclusive mode.
        {
            let mut mtr = Mtr::new(cache);
            let leaf = self.leaf_for_change(cache, &mut mtr, key, rowid)?;
            if let LeafInsert::Done = self.insert_in_leaf(&mut mtr, leaf, key, rowid)? {
                mtr.commit(log, scn, 0)?;
                return Ok(());
            }
            // Dropping the mini-transaction undoes a purge it may have done; the pessimistic
            // pass below purges again.
        }
        // Pessimistic: the whole path in exclusive mode, split as far up as needed.
        let mut mtr = Mtr::new(cache);
        let (path, leaf) = self.exclusive_path(&mut mtr, self.root, key, rowid)?;
        if let LeafInsert::NoRoom { position } = self.insert_in_leaf(&mut mtr, leaf, key, rowid)? {
            let body = leaf_body(key, rowid, 0, 0);
            self.split_and_insert(&mut mtr, space, &path, leaf, position, body)?;
        }
        mtr.commit(log, scn, 0)?;
        Ok(())
    }

    /// Sets the delete mark of an existing entry (xid = marking transaction). Returns whether
    /// the entry was found.
    pub fn mark_deleted(
        &self,
        cache: &BufferCache,
        log: &RedoLog,
        scn: u64,
        key: &[u8],
        rowid: u64,
        xid: u64,
    ) -> Result<bool> {
        self.change_entry(cache, log, scn, key, rowid, |node, index| {
            set_leaf_mark(node, index, true, xid)
        })
    }

    /// Clears the delete mark of an existing entry (rollback of a delete). Returns whether the
    /// entry was found.
    pub fn unmark_deleted(
        &self,
        cache: &BufferCache,
        log: &RedoLog,
        scn: u64,
        key: &[u8],
        rowid: u64,
    ) -> Result<bool> {
        self.change_entry(cache, log, scn, key, rowid, |node, index| {
            set_leaf_mark(node, index, false, 0)
        })
    }

    /// Physically removes an entry (rollback of an insert). Returns whether it was there.
    pub fn remove(
        &self,
        cache: &BufferCache,
        log: &RedoLog,
        scn: u64,
        key: &[u8],
        rowid: u64,
    ) -> Result<bool> {
        self.change_entry(cache, log, scn, key, rowid, remove_entry)
    }

    /// Finds (key, rowid) in its leaf, held exclusively, and applies `change` to it.
    fn change_entry(
        &self,
        cache: &BufferCache,
        log: &RedoLog,
        scn: u64,
        key: &[u8],
        rowid: u64,
        change: impl FnOnce(&mut [u8], usize),
    ) -> Result<bool> {
        let mut mtr = Mtr::new(cache);
        let leaf = self.leaf_for_change(cache, &mut mtr, key, rowid)?;
        match search(mtr.block_ref(leaf), key, rowid) {
            Ok(index) => {
                change(mtr.block(leaf), index);
                mtr.commit(log, scn, 0)?;
                Ok(true)
            }
            // Nothing changed: dropping the mini-transaction just releases the leaf.
            Err(_) => Ok(false),
        }
    }

    /// Entries with lower <= key < upper (bounds on the key bytes only; None = unbounded), in
    /// order, delete-marked ones included (the caller decides visibility).
    pub fn range<'a>(
        &self,
        cache: &'a BufferCache,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
    ) -> RangeIter<'a> {
        let lower = lower.map_or(Bound::Unbounded, Bound::Included);
        let upper = upper.map_or(Bound::Unbounded, Bound::Excluded);
        self.range_bounds(cache, lower, upper)
    }

    /// Entries whose key lies within the bounds, in (key, rowid) order.
    pub fn range_bounds<'a>(
        &self,
        cache: &'a BufferCache,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
    ) -> RangeIter<'a> {
        instrumentation::add(Statistic::IndexScansKdiixs1, 1);
        RangeIter::new(cache, self.root, self.access(), lower, upper)
    }

    /// The rowids of the entries `range_bounds` would return, each with whether its entry
    /// is delete-marked, passed to `visit` straight from the leaf under its latch (`visit`
    /// must not read blocks): for an index range scan, which needs no keys.
    pub fn range_bounds_rowids(
        &self,
        cache: &BufferCache,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        visit: &mut dyn FnMut(u64, bool),
    ) -> Result<()> {
        let mut iter = self.range_bounds(cache, lower, upper);
        while !matches!(iter.state, ScanState::Finished) {
            iter.fill(&mut |node, index| {
                let body = entry_body(node, index);
                visit(body_key(body, true).1, body[0] & FLAG_DELETED != 0)
            })?;
        }
        Ok(())
    }

    /// All entries whose key equals `key` exactly (unique checks), delete-marked included.
    pub fn lookup(&self, cache: &BufferCache, key: &[u8]) -> Result<Vec<IndexEntry>> {
        instrumentation::add(Statistic::IndexFetchByKey, 1);
        RangeIter::new(
            cache,
            self.root,
            self.access(),
            Bound::Included(key),
            Bound::Included(key),
        )
        .collect()
    }

    /// Removes delete-marked entries for which `purgeable(xid)` is true, leaf by leaf (one
    /// mini-transaction per leaf). Returns entries removed.
    pub fn purge(
        &self,
        cache: &BufferCache,
        log: &RedoLog,
        scn: u64,
        purgeable: &dyn Fn(u64) -> bool,
    ) -> Result<usize> {
        let mut removed = 0;
        'restart: loop {
            let mut number =
                descend_shared(cache, self.root, self.access(), &[], 0, |_, id, _| {
                    Ok(id.block)
                })?;
            while number != 0 {
                let id = self.block_id(number);
                let mut mtr = Mtr::new(cache);
                let held = mtr.get(id, self.access())?;
                let node = mtr.block_ref(held);
                expect_node(node, id)?;
                if !is_leaf(node) {
                    // The root split since we found it as the first leaf: start again.
                    continue 'restart;
                }
                number = next_block(node);
                let count = purge_leaf(mtr.block(held), purgeable);
                if count > 0 {
                    mtr.commit(log, scn, 0)?;
                    removed += count;
                }
            }
            return Ok(removed);
        }
    }

    /// Statistics for dba_indexes / ANALYZE. Reads every block in shared mode, one at a time;
    /// under concurrent changes the counts are approximate, as Oracle's ESTIMATE.
    pub fn statistics(&self, cache: &BufferCache) -> Result<BTreeStatistics> {
        let mut statistics = BTreeStatistics::default();
        let mut previous_live_key: Option<Vec<u8>> = None;
        let mut stack = vec![self.root];
        let mut first = true;
        while let Some(id) = stack.pop() {
            let node = cache.read(id, self.access())?;
            expect_node(&node, id)?;
            if first {
                statistics.blevel = level(&node) as u32;
                first = false;
            }
            if !is_leaf(&node) {
                statistics.branch_blocks += 1;
                // Push right to left so that the leftmost child is visited first.
                for slot in (0..=entry_count(&node)).rev() {
                    stack.push(self.block_id(child_at_slot(&node, slot)));
                }
                continue;
            }
            statistics.leaf_blocks += 1;
            for index in 0..entry_count(&node) {
                statistics.entries += 1;
                let body = entry_body(&node, index);
                if body[0] & FLAG_DELETED != 0 {
                    statistics.deleted_entries += 1;
                    continue;
                }
                let (key, _) = body_key(body, true);
                if previous_live_key.as_deref() != Some(key) {
                    statistics.distinct_keys += 1;
                    previous_live_key = Some(key.to_vec());
                }
            }
        }
        Ok(statistics)
    }

    /// dba_indexes.clustering_factor: walks the entries that are not delete-marked in key
    /// order and counts how often the table block of an entry's rowid differs from the
    /// previous entry's (the first entry counts as one), `table_block` telling a rowid's
    /// block. Rows stored in key order give about the table's blocks; scattered rows about
    /// the number of entries; an empty index 0. Shared gets, one leaf at a time, like a
    /// range scan (approximate under concurrent changes, as `statistics`).
    pub fn clustering_factor(
        &self,
        cache: &BufferCache,
        table_block: &dyn Fn(u64) -> u64,
    ) -> Result<u64> {
        let mut changes = 0;
        let mut previous_block = None;
        self.range_bounds_rowids(
            cache,
            Bound::Unbounded,
            Bound::Unbounded,
            &mut |rowid, deleted| {
                if deleted {
                    return;
                }
                let block = table_block(rowid);
                if previous_block != Some(block) {
                    changes += 1;
                    previous_block = Some(block);
                }
            },
        )?;
        Ok(changes)
    }

    /// Checks every invariant of the module documentation; returns ORA-00600 describing the
    /// first violation. Meant for a quiescent index (concurrent splits can make a correct
    /// tree look inconsistent between two block reads).
    pub fn check(&self, cache: &BufferCache) -> Result<()> {
        let root_number = segment::root(cache, self.header, self.pool)?;
        if root_number != self.root.block {
            return Err(self.violation(
                self.header,
                format!(
                    "segment header names root {root_number}, handle {}",
                    self.root
                ),
            ));
        }
        let object_id = block::object_id(&cache.read(self.header, AccessKind::Lookup)?);
        let mut walk = CheckWalk {
            object_id,
            leaves: Vec::new(),
            last_entry: None,
        };
        let root_level = level(&cache.read(self.root, self.access())?);
        self.check_subtree(cache, self.root, root_level, None, None, &mut walk, 0)?;
        let leaves = &walk.leaves;
        for (position, leaf) in leaves.iter().enumerate() {
            let expected_previous = if position == 0 {
                0
            } else {
                leaves[position - 1].0
            };
            let expected_next = leaves.get(position + 1).map_or(0, |next| next.0);
            if leaf.1 != expected_previous {
                let message = format!(
                    "previous link {} but the leaf to its left is {expected_previous}",
                    leaf.1
                );
                return Err(self.violation(self.block_id(leaf.0), message));
            }
            if leaf.2 != expected_next {
                let message = format!(
                    "next link {} but the leaf to its right is {expected_next}",
                    leaf.2
                );
                return Err(self.violation(self.block_id(leaf.0), message));
            }
        }
        Ok(())
    }

    fn violation(&self, id: BlockId, what: String) -> Error {
        Error::internal(format!(
            "kdi: index at {}: block {}: {what}",
            self.header, id.block
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn check_subtree(
        &self,
        cache: &BufferCache,
        id: BlockId,
        expected_level: u8,
        low: Option<&(Vec<u8>, u64)>,
        high: Option<&(Vec<u8>, u64)>,
        walk: &mut CheckWalk,
        depth: usize,
    ) -> Result<()> {
        if depth > HEIGHT_MAX {
            return Err(self.violation(id, format!("deeper than {HEIGHT_MAX} levels")));
        }
        // A copy: no guard is held while the children are checked.
        let node: Vec<u8> = cache.read(id, self.access())?.to_vec();
        let fail = |what: String| self.violation(id, what);
        let expected_type = if expected_level == 0 {
            BlockType::BtreeLeaf
        } else {
            BlockType::BtreeBranch
        };
        if block::block_type(&node) != expected_type || level(&node) != expected_level {
            return Err(fail(format!(
                "{:?} of level {}, expected {expected_type:?} of level {expected_level}",
                block::block_type(&node),
                level(&node)
            )));
        }
        if block::object_id(&node) != walk.object_id {
            return Err(fail(format!(
                "object id {}, the segment's is {}",
                block::object_id(&node),
                walk.object_id
            )));
        }
        check_layout(&node).map_err(fail)?;
        let leaf = expected_level == 0;
        let key_bytes_max = max_key_bytes(node.len());
        let count = entry_count(&node);
        for index in 0..count {
            let (key, rowid) = entry_key(&node, index);
            if key.len() > key_bytes_max {
                return Err(fail(format!(
                    "entry {index} has a key of {} bytes",
                    key.len()
                )));
            }
            if index > 0 {
                let (previous, previous_rowid) = entry_key(&node, index - 1);
                if !compare(previous, previous_rowid, key, rowid).is_lt() {
                    return Err(fail(format!(
                        "entry {index} is not above entry {}",
                        index - 1
                    )));
                }
            }
            if let Some((low_key, low_rowid)) = low {
                if compare(key, rowid, low_key, *low_rowid).is_lt() {
                    return Err(fail(format!(
                        "entry {index} is below the separator that leads here"
                    )));
                }
            }
            if let Some((high_key, high_rowid)) = high {
                if !compare(key, rowid, high_key, *high_rowid).is_lt() {
                    return Err(fail(format!(
                        "entry {index} is not below the next separator above"
                    )));
                }
            }
            if leaf {
                let entry = leaf_entry(&node, index);
                if let Some((last_key, last_rowid)) = &walk.last_entry {
                    if !compare(last_key, *last_rowid, &entry.key, entry.rowid).is_lt() {
                        return Err(fail(format!(
                            "entry {index} is not above the last entry of the previous leaf"
                        )));
                    }
                }
                let flags = entry_body(&node, index)[0];
                if flags & !FLAG_DELETED != 0 || (!entry.deleted && entry.xid != 0) {
                    return Err(fail(format!(
                        "entry {index} has flags {flags:#x} and xid {}",
                        entry.xid
                    )));
                }
                walk.last_entry = Some((entry.key, entry.rowid));
            }
        }
        if leaf {
            if leftmost_child(&node) != 0 {
                return Err(fail("a leaf with a leftmost child".to_string()));
            }
            walk.leaves
                .push((id.block, previous_block(&node), next_block(&node)));
            return Ok(());
        }
        if next_block(&node) != 0 || previous_block(&node) != 0 {
            return Err(fail("a branch with sibling links".to_string()));
        }
        for slot in 0..=count {
            let child = child_at_slot(&node, slot);
            if child == 0 || child == id.block {
                return Err(fail(format!("child slot {slot} points at block {child}")));
            }
            let child_low = if slot == 0 {
                low.cloned()
            } else {
                Some(owned_key(entry_key(&node, slot - 1)))
            };
            let child_high = if slot < count {
                Some(owned_key(entry_key(&node, slot)))
            } else {
                high.cloned()
            };
            self.check_subtree(
                cache,
                self.block_id(child),
                expected_level - 1,
                child_low.as_ref(),
                child_high.as_ref(),
                walk,
                depth + 1,
            )?;
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------
    // Write paths.
    // -----------------------------------------------------------------------------------

    /// The leaf whose range holds (key, rowid), in exclusive mode in `mtr`: shared gets on
    /// branches, coupled, the leaf taken while its parent is still held shared.
    fn leaf_for_change(
        &self,
        cache: &BufferCache,
        mtr: &mut Mtr,
        key: &[u8],
        rowid: u64,
    ) -> Result<Held> {
        let mut id = self.root;
        let mut node = cache.read(id, self.access())?;
        expect_node(&node, id)?;
        if is_leaf(&node) {
            // A single-block tree: take the root exclusively. Should it have split in the
            // meantime, the exclusive descent simply continues from it.
            drop(node);
            let (_, leaf) = self.exclusive_path(mtr, self.root, key, rowid)?;
            return Ok(leaf);
        }
        for _ in 0..HEIGHT_MAX {
            if level(&node) == 1 {
                // Non-root blocks never change level: the child is a leaf, taken exclusively.
                let (_, child) = child_for(&node, self.header.file, key, rowid);
                let held = mtr.get(child, self.access())?;
                drop(node);
                expect_node(mtr.block_ref(held), child)?;
                if !is_leaf(mtr.block_ref(held)) {
                    return Err(Error::internal(format!(
                        "kdi: block {child} below a level-1 branch is not a leaf"
                    )));
                }
                return Ok(held);
            }
            let (_, child, child_node) =
                read_child(cache, self.access(), &node, self.header.file, key, rowid)?;
            node = child_node;
            id = child;
        }
        Err(Error::internal(format!(
            "kdi: index descent from {} passed {HEIGHT_MAX} levels at {id}",
            self.root
        )))
    }

    /// Every block from `from` down to the leaf for (key, rowid), in exclusive mode. Returns
    /// the branches with the child slot taken in each, and the leaf.
    fn exclusive_path(
        &self,
        mtr: &mut Mtr,
        from: BlockId,
        key: &[u8],
        rowid: u64,
    ) -> Result<(Vec<(Held, usize)>, Held)> {
        let mut path = Vec::new();
        let mut id = from;
        for _ in 0..HEIGHT_MAX {
            let held = mtr.get(id, self.access())?;
            let node = mtr.block_ref(held);
            expect_node(node, id)?;
            if let Some(&(parent, slot)) = path.last() {
                debug_check_child(mtr.block_ref(parent), slot, node);
            }
            if is_leaf(node) {
                return Ok((path, held));
            }
            let slot;
            (slot, id) = child_for(node, self.header.file, key, rowid);
            path.push((held, slot));
        }
        Err(Error::internal(format!(
            "kdi: index descent from {from} passed {HEIGHT_MAX} levels"
        )))
    }

    /// Inserts into a held leaf if there is room, purging dead entries first when there is
    /// not. An identical delete-marked entry is unmarked instead.
    fn insert_in_leaf(
        &self,
        mtr: &mut Mtr,
        leaf: Held,
        key: &[u8],
        rowid: u64,
    ) -> Result<LeafInsert> {
        let body = leaf_body(key, rowid, 0, 0);
        let mut position = match search(mtr.block_ref(leaf), key, rowid) {
            Ok(index) => {
                let node = mtr.block_ref(leaf);
                if entry_body(node, index)[0] & FLAG_DELETED == 0 {
                    return Err(Error::internal(format!(
                        "kdi: index at {}: entry for rowid {rowid} is already present",
                        self.header
                    )));
                }
                set_leaf_mark(mtr.block(leaf), index, false, 0);
                return Ok(LeafInsert::Done);
            }
            Err(position) => position,
        };
        if !fits(mtr.block_ref(leaf), body.len()) {
            let Some(purgeable) = self.purgeable.as_deref() else {
                return Ok(LeafInsert::NoRoom { position });
            };
            if purge_leaf(mtr.block(leaf), purgeable) == 0 || !fits(mtr.block_ref(leaf), body.len())
            {
                return Ok(LeafInsert::NoRoom {
                    position: search(mtr.block_ref(leaf), key, rowid).unwrap_err(),
                });
            }
            position = search(mtr.block_ref(leaf), key, rowid).unwrap_err();
        }
        let inserted = insert_body(mtr.block(leaf), position, &body);
        debug_assert!(inserted);
        Ok(LeafInsert::Done)
    }

    /// Splits the full `node` (a leaf at first) to insert `body` at `position`, then inserts
    /// the new separator into the parent, splitting upwards while parents are full. `path`
    /// holds the ancestors of the leaf, root first.
    fn split_and_insert(
        &self,
        mtr: &mut Mtr,
        space: &SpaceManager,
        path: &[(Held, usize)],
        leaf: Held,
        position: usize,
        body: Vec<u8>,
    ) -> Result<()> {
        let (mut node, mut position, mut body) = (leaf, position, body);
        let mut depth = path.len();
        loop {
            if depth == 0 {
                return self.split_root(mtr, space, node, position, body);
            }
            let separator = self.split_node(mtr, space, node, position, body)?;
            depth -= 1;
            let (parent, slot) = path[depth];
            if insert_body(mtr.block(parent), slot, &separator) {
                return Ok(());
            }
            (node, position, body) = (parent, slot, separator);
        }
    }

    /// Splits a non-root node to insert `body` at `position`: the upper part moves to a new
    /// block linked to its right. Returns the branch entry the parent must receive.
    fn split_node(
        &self,
        mtr: &mut Mtr,
        space: &SpaceManager,
        held: Held,
        position: usize,
        body: Vec<u8>,
    ) -> Result<Vec<u8>> {
        let left_id = mtr.id(held);
        let (node_level, next, object_id, bodies) = {
            let node = mtr.block_ref(held);
            (
                level(node),
                next_block(node),
                block::object_id(node),
                logical_bodies(node, position, body),
            )
        };
        let original_count = bodies.len() - 1;
        // Latch order: the right sibling (same level, to the right) before the segment header.
        let next_held = match (node_level, next) {
            (0, next) if next != 0 => Some(mtr.get(self.block_id(next), self.access())?),
            _ => None,
        };
        let right_id = segment::allocate_block(mtr, space, self.header, self.pool)?;
        let right = mtr.new_block(right_id, self.pool)?;
        if node_level == 0 {
            let split = self.leaf_split_point(&bodies, position, next == 0);
            let (separator_key, separator_rowid) = body_key(&bodies[split], true);
            let separator = branch_body(separator_key, separator_rowid, right_id.block);
            let right_node = mtr.block(right);
            block::format(right_node, right_id, BlockType::BtreeLeaf, object_id);
            initialize_node(right_node, 0);
            fill_node(right_node, &bodies[split..], right_id)?;
            set_next(right_node, next);
            set_previous(right_node, left_id.block);
            let left_node = mtr.block(held);
            keep_left(left_node, &bodies, position, split, left_id)?;
            set_next(left_node, right_id.block);
            if let Some(next_held) = next_held {
                set_previous(mtr.block(next_held), right_id.block);
            }
            instrumentation::add(Statistic::LeafNodeSplits, 1);
            Ok(separator)
        } else {
            let middle = branch_split_point(&bodies);
            let (up_key, up_rowid) = body_key(&bodies[middle], false);
            let separator = branch_body(up_key, up_rowid, right_id.block);
            let right_node = mtr.block(right);
            block::format(right_node, right_id, BlockType::BtreeBranch, object_id);
            initialize_node(right_node, node_level);
            set_leftmost_child(right_node, branch_body_child(&bodies[middle]));
            fill_node(right_node, &bodies[middle + 1..], right_id)?;
            keep_left(mtr.block(held), &bodies, position, middle, left_id)?;
            debug_assert!(original_count >= 2);
            instrumentation::add(Statistic::BranchNodeSplits, 1);
            Ok(separator)
        }
    }

    /// Splits the root to insert `body` at `position`: its content, with the new entry, is
    /// copied into two new blocks and the root becomes a branch one level higher over them.
    fn split_root(
        &self,
        mtr: &mut Mtr,
        space: &SpaceManager,
        root: Held,
        position: usize,
        body: Vec<u8>,
    ) -> Result<()> {
        let (root_level, leftmost, object_id, bodies) = {
            let node = mtr.block_ref(root);
            (
                level(node),
                leftmost_child(node),
                block::object_id(node),
                logical_bodies(node, position, body),
            )
        };
        if root_level as usize + 1 >= HEIGHT_MAX {
            return Err(Error::internal(format!(
                "kdi: index at {} would grow past {HEIGHT_MAX} levels",
                self.header
            )));
        }
        let left_id = segment::allocate_block(mtr, space, self.header, self.pool)?;
        let right_id = segment::allocate_block(mtr, space, self.header, self.pool)?;
        let left = mtr.new_block(left_id, self.pool)?;
        let right = mtr.new_block(right_id, self.pool)?;
        let block_type = if root_level == 0 {
            BlockType::BtreeLeaf
        } else {
            BlockType::BtreeBranch
        };
        let separator = {
            let (left_node, right_node) = mtr.two_blocks(left, right);
            block::format(left_node, left_id, block_type, object_id);
            block::format(right_node, right_id, block_type, object_id);
            initialize_node(left_node, root_level);
            initialize_node(right_node, root_level);
            if root_level == 0 {
                let split = self.leaf_split_point(&bodies, position, true);
                fill_node(left_node, &bodies[..split], left_id)?;
                fill_node(right_node, &bodies[split..], right_id)?;
                set_next(left_node, right_id.block);
                set_previous(right_node, left_id.block);
                instrumentation::add(Statistic::LeafNodeSplits, 1);
                let (key, rowid) = body_key(&bodies[split], true);
                branch_body(key, rowid, right_id.block)
            } else {
                let middle = branch_split_point(&bodies);
                set_leftmost_child(left_node, leftmost);
                fill_node(left_node, &bodies[..middle], left_id)?;
                set_leftmost_child(right_node, branch_body_child(&bodies[middle]));
                fill_node(right_node, &bodies[middle + 1..], right_id)?;
                instrumentation::add(Statistic::BranchNodeSplits, 1);
                let (key, rowid) = body_key(&bodies[middle], false);
                branch_body(key, rowid, right_id.block)
            }
        };
        let root_id = mtr.id(root);
        let root_node = mtr.block(root);
        initialize_node(root_node, root_level + 1);
        set_leftmost_child(root_node, left_id.block);
        fill_node(root_node, &[separator], root_id)?;
        instrumentation::add(Statistic::RootNodeSplits, 1);
        Ok(())
    }

    /// Where a leaf's entries (with the new one at `position`) divide: entries [..split] stay
    /// left. Appending past the end of the rightmost leaf moves only the new entry (Oracle's
    /// 90-10 split: ascending keys leave full blocks behind); otherwise the bytes are halved.
    fn leaf_split_point(&self, bodies: &[Vec<u8>], position: usize, rightmost: bool) -> usize {
        if rightmost && position == bodies.len() - 1 {
            instrumentation::add(Statistic::LeafNode9010Splits, 1);
            return position;
        }
        let sizes: Vec<usize> = bodies.iter().map(|body| body.len() + SLOT_BYTES).collect();
        let total: usize = sizes.iter().sum();
        let mut best = (usize::MAX, 1);
        let mut left = 0;
        for split in 1..bodies.len() {
            left += sizes[split - 1];
            let larger = left.max(total - left);
            if larger < best.0 {
                best = (larger, split);
            }
        }
        best.1
    }
}

/// A node's entry bodies with `body` inserted at `position`.
fn logical_bodies(node: &[u8], position: usize, body: Vec<u8>) -> Vec<Vec<u8>> {
    let count = entry_count(node);
    let mut bodies: Vec<Vec<u8>> = Vec::with_capacity(count + 1);
    bodies.extend((0..position).map(|index| entry_body(node, index).to_vec()));
    bodies.push(body);
    bodies.extend((position..count).map(|index| entry_body(node, index).to_vec()));
    bodies
}

/// The entry of a full branch (with the new one) that moves up: [..middle] stay, middle goes
/// to the parent, its child becoming the new block's leftmost, [middle + 1..] move right.
fn branch_split_point(bodies: &[Vec<u8>]) -> usize {
    let sizes: Vec<usize> = bodies.iter().map(|body| body.len() + SLOT_BYTES).collect();
    let total: usize = sizes.iter().sum();
    let mut best = (usize::MAX, 1);
    let mut left = 0;
    for middle in 1..bodies.len().saturating_sub(1) {
        left += sizes[middle - 1];
        let larger = left.max(total - left - sizes[middle]);
        if larger < best.0 {
            best = (larger, middle);
        }
    }
    best.1
}

/// Appends bodies, in order, to an empty node.
fn fill_node(node: &mut [u8], bodies: &[Vec<u8>], id: BlockId) -> Result<()> {
    for (index, body) in bodies.iter().enumerate() {
        if !insert_body(node, index, body) {
            return Err(Error::internal(format!(
                "kdi: split left {} entries that do not fit in block {id}",
                bodies.len()
            )));
        }
    }
    Ok(())
}

/// Shrinks the left half of a split to the logical entries [..keep] (the original block's
/// entries with the new one at `position`): slots beyond are cut (their bodies become
/// garbage, no body moves), then the new entry is inserted if it belongs to the left half.
fn keep_left(
    node: &mut [u8],
    bodies: &[Vec<u8>],
    position: usize,
    keep: usize,
    id: BlockId,
) -> Result<()> {
    if position < keep {
        truncate_entries(node, keep - 1);
        if !insert_body(node, position, &bodies[position]) {
            return Err(Error::internal(format!(
                "kdi: the left half of a split of block {id} does not fit"
            )));
        }
    } else {
        truncate_entries(node, keep);
    }
    Ok(())
}

fn owned_key((key, rowid): (&[u8], u64)) -> (Vec<u8>, u64) {
    (key.to_vec(), rowid)
}

/// What `check` gathers on its walk.
struct CheckWalk {
    object_id: u32,
    /// (block, previous link, next link) of every leaf, left to right.
    leaves: Vec<(u32, u32, u32)>,
    last_entry: Option<(Vec<u8>, u64)>,
}

/// Invariant 1 for one node: slots, bodies and the space accounting agree.
fn check_layout(node: &[u8]) -> std::result::Result<(), String> {
    let block_size = node.len();
    let count = entry_count(node);
    let end = free_end(node);
    if slot_position(count) > end || end > block_size {
        return Err(format!(
            "{count} slots and free-space end {end} overlap or overflow"
        ));
    }
    let leaf = is_leaf(node);
    let mut extents: Vec<(usize, usize)> = Vec::with_capacity(count);
    for index in 0..count {
        let offset = entry_offset(node, index);
        let fixed = if leaf {
            LEAF_ENTRY_FIXED_BYTES
        } else {
            BRANCH_ENTRY_FIXED_BYTES
        };
        if offset < end || offset + fixed > block_size {
            return Err(format!(
                "slot {index} points at {offset}, outside the entry area [{end}, {block_size})"
            ));
        }
        let size = body_size_at(node, offset);
        if offset + size > block_size {
            return Err(format!(
                "entry {index} at {offset} of {size} bytes runs past the block"
            ));
        }
        extents.push((offset, size));
    }
    extents.sort_unstable();
    for pair in extents.windows(2) {
        if pair[0].0 + pair[0].1 > pair[1].0 {
            return Err(format!(
                "entry bodies at {} and {} overlap",
                pair[0].0, pair[1].0
            ));
        }
    }
    let live: usize = extents.iter().map(|(_, size)| size).sum();
    if live + garbage_bytes(node) != block_size - end {
        return Err(format!(
            "live bodies {live} + garbage {} != entry area {}",
            garbage_bytes(node),
            block_size - end
        ));
    }
    debug_assert!(total_free(node) <= node_capacity(block_size));
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The descent step.
// ---------------------------------------------------------------------------------------

/// The child of the branch `node` whose range holds (key, rowid): its slot in `node` (as
/// `child_at_slot` numbers them) and its id in `file`. Every descent, shared or exclusive,
/// takes this step at every branch.
fn child_for(node: &[u8], file: u32, key: &[u8], rowid: u64) -> (usize, BlockId) {
    debug_assert!(!is_leaf(node), "kdi: a descent step from a leaf");
    let slot = child_slot_for(node, key, rowid);
    debug_assert!(
        slot == 0 || {
            let (low, low_rowid) = entry_key(node, slot - 1);
            compare(low, low_rowid, key, rowid).is_le()
        },
        "kdi: the target is below the separator that leads to its child"
    );
    debug_assert!(
        slot == entry_count(node) || {
            let (high, high_rowid) = entry_key(node, slot);
            compare(key, rowid, high, high_rowid).is_lt()
        },
        "kdi: the target is not below the separator after its child"
    );
    (slot, BlockId::new(file, child_at_slot(node, slot)))
}

/// The step of the shared descents (`descend_shared`, `BTree::leaf_for_change` above its
/// last branch): finds the child of the held branch `parent` for (key, rowid), reads it
/// with a shared get while `parent` stays held (latch coupling), and checks that it is an
/// index block one level below `parent` (invariant 3). Returns the child's slot in
/// `parent`, its id and the held child.
fn read_child<'a>(
    cache: &'a BufferCache,
    access: BlockAccess,
    parent: &[u8],
    file: u32,
    key: &[u8],
    rowid: u64,
) -> Result<(usize, BlockId, BlockRead<'a>)> {
    let (slot, child) = child_for(parent, file, key, rowid);
    let child_node = cache.read(child, access)?;
    expect_node(&child_node, child)?;
    if level(&child_node) + 1 != level(parent) {
        return Err(Error::internal(format!(
            "kdi: block {child} has level {} below level {}",
            level(&child_node),
            level(parent)
        )));
    }
    debug_check_child(parent, slot, &child_node);
    Ok((slot, child, child_node))
}

/// Asserts, in debug builds, what a step from the held branch `parent` through `slot` to
/// its held `child` (an index block) relies on: the child is one level below (invariant
/// 3), and its entries lie within the separators on either side of the slot (2).
fn debug_check_child(parent: &[u8], slot: usize, child: &[u8]) {
    if !cfg!(debug_assertions) {
        return;
    }
    debug_assert_eq!(level(child) + 1, level(parent), "kdi: a step skips a level");
    let count = entry_count(child);
    if count == 0 {
        return;
    }
    if slot > 0 {
        let (low, low_rowid) = entry_key(parent, slot - 1);
        let (first, first_rowid) = entry_key(child, 0);
        debug_assert!(
            compare(first, first_rowid, low, low_rowid).is_ge(),
            "kdi: a child's first entry is below the separator that leads to it"
        );
    }
    if slot < entry_count(parent) {
        let (high, high_rowid) = entry_key(parent, slot);
        let (last, last_rowid) = entry_key(child, count - 1);
        debug_assert!(
            compare(last, last_rowid, high, high_rowid).is_lt(),
            "kdi: a child's last entry is not below the separator after it"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Read paths.
// ---------------------------------------------------------------------------------------

/// Descends from the root to the leaf whose range holds (key, rowid) with shared gets,
/// holding each parent until its child is held, and calls `visit` with the leaf, its id and
/// its upper bound as known from the separators above (None: the rightmost leaf). The bound
/// holds for as long as the leaf is held.
fn descend_shared<T>(
    cache: &BufferCache,
    root: BlockId,
    access: BlockAccess,
    key: &[u8],
    rowid: u64,
    visit: impl FnOnce(&[u8], BlockId, Option<&(Vec<u8>, u64)>) -> Result<T>,
) -> Result<T> {
    let mut id = root;
    let mut node = cache.read(id, access)?;
    expect_node(&node, id)?;
    let mut high: Option<(Vec<u8>, u64)> = None;
    for _ in 0..HEIGHT_MAX {
        if is_leaf(&node) {
            return visit(&node, id, high.as_ref());
        }
        let (slot, child, child_node) = read_child(cache, access, &node, root.file, key, rowid)?;
        if slot < entry_count(&node) {
            high = Some(owned_key(entry_key(&node, slot)));
        }
        node = child_node;
        id = child;
    }
    Err(Error::internal(format!(
        "kdi: index descent from {root} passed {HEIGHT_MAX} levels at {id}"
    )))
}

/// Where a scan resumes within a leaf.
#[derive(Clone, Debug)]
enum Resume {
    /// At the scan's lower bound (nothing returned yet).
    Lower(Bound<Vec<u8>>),
    /// After the last entry returned.
    After(Vec<u8>, u64),
}

#[derive(Debug)]
enum ScanState {
    /// Not started: descend from the root.
    Descend(Resume),
    /// Read this leaf next (a sibling link copied from the previous leaf).
    Follow {
        leaf: u32,
        resume: Resume,
    },
    Finished,
}

/// A range scan. Copies one leaf's matching entries at a time; holds no block between calls.
pub struct RangeIter<'a> {
    cache: &'a BufferCache,
    root: BlockId,
    access: BlockAccess,
    upper: Bound<Vec<u8>>,
    state: ScanState,
    buffered: VecDeque<IndexEntry>,
}

impl fmt::Debug for RangeIter<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("RangeIter")
            .field("root", &self.root)
            .field("upper", &self.upper)
            .field("state", &self.state)
            .field("buffered", &self.buffered.len())
            .finish()
    }
}

impl<'a> RangeIter<'a> {
    fn new(
        cache: &'a BufferCache,
        root: BlockId,
        access: BlockAccess,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
    ) -> RangeIter<'a> {
        RangeIter {
            cache,
            root,
            access,
            upper: upper.map(<[u8]>::to_vec),
            state: ScanState::Descend(Resume::Lower(lower.map(<[u8]>::to_vec))),
            buffered: VecDeque::new(),
        }
    }

    /// Reads the next leaf, passing each entry in range to `sink` (the leaf and the entry's
    /// index in it), and decides where to go after it.
    fn fill(&mut self, sink: &mut dyn FnMut(&[u8], usize)) -> Result<()> {
        let state = std::mem::replace(&mut self.state, ScanState::Finished);
        let upper = &self.upper;
        self.state = match state {
            ScanState::Finished => ScanState::Finished,
            ScanState::Descend(resume) => {
                let (key, rowid): (&[u8], u64) = match &resume {
                    Resume::Lower(Bound::Unbounded) => (&[], 0),
                    Resume::Lower(Bound::Included(key)) => (key, 0),
                    Resume::Lower(Bound::Excluded(key)) => (key, u64::MAX),
                    Resume::After(key, rowid) => (key, *rowid),
                };
                descend_shared(
                    self.cache,
                    self.root,
                    self.access,
                    key,
                    rowid,
                    |node, _, high| Ok(collect_leaf(node, &resume, upper, high, sink)),
                )?
            }
            ScanState::Follow { leaf, resume } => {
                let id = BlockId::new(self.root.file, leaf);
                let node = self.cache.read(id, self.access)?;
                expect_node(&node, id)?;
                if !is_leaf(&node) {
                    return Err(Error::internal(format!(
                        "kdi: the sibling link to block {id} leads to a branch"
                    )));
                }
                collect_leaf(&node, &resume, upper, None, sink)
            }
        };
        Ok(())
    }
}

/// Passes the leaf's entries after `resume` and within `upper` to `sink`; returns the scan
/// state that follows.
fn collect_leaf(
    node: &[u8],
    resume: &Resume,
    upper: &Bound<Vec<u8>>,
    high: Option<&(Vec<u8>, u64)>,
    sink: &mut dyn FnMut(&[u8], usize),
) -> ScanState {
    let first = partition_point(node, |key, rowid| match resume {
        Resume::Lower(Bound::Unbounded) => false,
        Resume::Lower(Bound::Included(lower)) => key < lower.as_slice(),
        Resume::Lower(Bound::Excluded(lower)) => key <= lower.as_slice(),
        Resume::After(last, last_rowid) => compare(key, rowid, last, *last_rowid).is_le(),
    });
    // Entries are sorted: those within `upper` are a prefix, found by one binary search.
    let count = entry_count(node);
    // The end is at or after `first` unless the bounds cross (then nothing is in range).
    let end = match upper {
        Bound::Unbounded => count,
        Bound::Included(upper) => {
            partition_point_from(node, first, |key, _| key <= upper.as_slice())
        }
        Bound::Excluded(upper) => {
            partition_point_from(node, first, |key, _| key < upper.as_slice())
        }
    };
    for index in first..end {
        sink(node, index);
    }
    if end < count {
        return ScanState::Finished;
    }
    let last = (end > first).then(|| end - 1);
    // Every entry right of this leaf is at or above `high`.
    let high_passes_upper = match (high, upper) {
        (None, _) | (_, Bound::Unbounded) => false,
        (Some((high_key, _)), Bound::Excluded(upper)) => high_key >= upper,
        (Some((high_key, _)), Bound::Included(upper)) => high_key > upper,
    };
    let next = next_block(node);
    if next == 0 || high_passes_upper {
        return ScanState::Finished;
    }
    let resume = match last {
        Some(index) => {
            let (key, rowid) = entry_key(node, index);
            Resume::After(key.to_vec(), rowid)
        }
        None => resume.clone(),
    };
    ScanState::Follow { leaf: next, resume }
}

impl Iterator for RangeIter<'_> {
    type Item = Result<IndexEntry>;

    fn next(&mut self) -> Option<Result<IndexEntry>> {
        loop {
            if let Some(entry) = self.buffered.pop_front() {
                return Some(Ok(entry));
            }
            if let ScanState::Finished = self.state {
                return None;
            }
            let mut buffered = std::mem::take(&mut self.buffered);
            let filled = self.fill(&mut |node, index| buffered.push_back(leaf_entry(node, index)));
            self.buffered = buffered;
            if let Err(error) = filled {
                self.state = ScanState::Finished;
                return Some(Err(error));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::ops::RangeBounds;
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread::JoinHandle;

    use proptest::prelude::*;

    use super::*;
    use crate::buffer::{CacheLayout, LruAlgorithm, RedoFlusher, VirtualClock};
    use crate::io::datafile::FileSet;
    use crate::io::vfs::{SimVfs, Vfs};
    use crate::redo::log::StreamPosition;

    /// The write-ahead rule in tests: a block is written only after its redo.
    struct LogFlusher(Arc<RedoLog>);

    impl RedoFlusher for LogFlusher {
        fn flush_record(&self, lsn: u64) -> Result<()> {
            self.0.flush_record(lsn)
        }
    }

    /// A buffer cache over simulated files, a redo log with LGWR running, formatted space.
    struct TestEnv {
        cache: BufferCache,
        log: Arc<RedoLog>,
        space: SpaceManager,
        lgwr: Option<JoinHandle<()>>,
        scn: AtomicUsize,
        _vfs: SimVfs,
    }

    impl Drop for TestEnv {
        fn drop(&mut self) {
            self.log.shutdown();
            if let Some(lgwr) = self.lgwr.take() {
                lgwr.join().unwrap();
            }
        }
    }

    /// Redo log files large enough that no test wraps around them (a wrap would wait for a
    /// checkpoint, and these tests run no checkpoint).
    const TEST_LOG_FILE_BYTES: u64 = 1 << 27;

    fn test_env(block_size: usize, frames: usize) -> TestEnv {
        let vfs = SimVfs::new(11);
        let dir = Path::new("/db");
        vfs.create_dir_all(dir).unwrap();
        let files = FileSet::open(&vfs, dir, block_size).unwrap();
        let log = Arc::new(RedoLog::open(&vfs, dir, 2, TEST_LOG_FILE_BYTES, 1 << 20).unwrap());
        log.start_at(
            StreamPosition {
                sequence: 1,
                sequence_start_lsn: 0,
                next_lsn: 0,
            },
            0,
            1,
        )
        .unwrap();
        let lgwr = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || log.run_lgwr())
        };
        let files = Arc::new(files);
        let flusher = Arc::new(LogFlusher(Arc::clone(&log)));
        let space = SpaceManager::new(block_size);
        // Formatting holds the file header and every bitmap block in one mini-transaction
        // (34 blocks at 2048 bytes a block): do it through a cache large enough for that, and
        // write it out, so that the cache under test may be smaller.
        {
            let formatting_frames = 128;
            let formatting = BufferCache::new(
                block_size,
                &CacheLayout::single(formatting_frames).with_algorithm(LruAlgorithm::Clock),
                Arc::new(VirtualClock::default()),
                Arc::clone(&files),
                flusher.clone(),
            );
            let mut mtr = Mtr::new(&formatting);
            space.format(&mut mtr, 1).unwrap();
            mtr.commit(&log, 1, 0).unwrap();
            formatting.flush().unwrap();
        }
        let cache = BufferCache::new(
            block_size,
            &CacheLayout::single(frames).with_algorithm(LruAlgorithm::Clock),
            Arc::new(VirtualClock::default()),
            files,
            flusher,
        );
        TestEnv {
            cache,
            log,
            space,
            lgwr: Some(lgwr),
            scn: AtomicUsize::new(2),
            _vfs: vfs,
        }
    }

    impl TestEnv {
        fn scn(&self) -> u64 {
            self.scn.fetch_add(1, Ordering::Relaxed) as u64
        }

        fn create(&self, unique: bool) -> BTree {
            let mut mtr = Mtr::new(&self.cache);
            let tree =
                BTree::create(&mut mtr, &self.space, 77, unique, BufferPool::Default).unwrap();
            mtr.commit(&self.log, self.scn(), 0).unwrap();
            tree
        }

        fn insert(&self, tree: &BTree, key: &[u8], rowid: u64) -> Result<()> {
            tree.insert(&self.cache, &self.log, &self.space, self.scn(), key, rowid)
        }

        fn scan_unchecked(
            &self,
            tree: &BTree,
            lower: Bound<&[u8]>,
            upper: Bound<&[u8]>,
        ) -> Vec<IndexEntry> {
            tree.range_bounds(&self.cache, lower, upper)
                .collect::<Result<Vec<_>>>()
                .unwrap()
        }

        /// A range scan, checked against the same scan without keys (single-threaded tests:
        /// a concurrent change between the two scans would make them differ).
        fn scan(&self, tree: &BTree, lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> Vec<IndexEntry> {
            let entries = self.scan_unchecked(tree, lower, upper);
            let mut found = Vec::new();
            tree.range_bounds_rowids(&self.cache, lower, upper, &mut |rowid, deleted| {
                found.push((rowid, deleted))
            })
            .unwrap();
            let expected: Vec<_> = entries
                .iter()
                .map(|entry| (entry.rowid, entry.deleted))
                .collect();
            assert_eq!(found, expected);
            entries
        }
    }

    fn numbered_key(number: u64) -> Vec<u8> {
        format!("key{number:010}").into_bytes()
    }

    #[test]
    fn empty_index_scans_nothing_and_checks() {
        let env = test_env(2048, 64);
        let tree = env.create(false);
        assert!(env
            .scan(&tree, Bound::Unbounded, Bound::Unbounded)
            .is_empty());
        assert!(tree.lookup(&env.cache, b"x").unwrap().is_empty());
        tree.check(&env.cache).unwrap();
        let statistics = tree.statistics(&env.cache).unwrap();
        assert_eq!(
            statistics,
            BTreeStatistics {
                leaf_blocks: 1,
                ..BTreeStatistics::default()
            }
        );
        let reopened = BTree::open(&env.cache, tree.header(), false, BufferPool::Default).unwrap();
        assert_eq!(reopened.root(), tree.root());
    }

    /// The clustering factor counts table-block changes along the index: keys whose rows
    /// lie in key order, ten to a block, change block once per ten entries; the same keys
    /// with their rows dealt round-robin over the blocks change at every entry. Delete-marked
    /// entries are not walked.
    #[test]
    fn clustering_factor_counts_table_block_changes_in_key_order() {
        let env = test_env(2048, 64);
        let ordered = env.create(false);
        let scattered = env.create(false);
        let block_of = |rowid: u64| rowid >> 16;
        assert_eq!(ordered.clustering_factor(&env.cache, &block_of).unwrap(), 0);
        for number in 0..200u64 {
            let key = numbered_key(number);
            env.insert(&ordered, &key, ((number / 10) << 16) | (number % 10))
                .unwrap();
            env.insert(&scattered, &key, ((number % 20) << 16) | (number / 20))
                .unwrap();
        }
        assert_eq!(
            ordered.clustering_factor(&env.cache, &block_of).unwrap(),
            20
        );
        assert_eq!(
            scattered.clustering_factor(&env.cache, &block_of).unwrap(),
            200
        );
        // Delete-marking the ten entries of block 3 joins blocks 2 and 4: still one change
        // each, block 3's is gone.
        for number in 30..40u64 {
            let marked = ordered
                .mark_deleted(
                    &env.cache,
                    &env.log,
                    env.scn(),
                    &numbered_key(number),
                    (3 << 16) | (number % 10),
                    7,
                )
                .unwrap();
            assert!(marked);
        }
        assert_eq!(
            ordered.clustering_factor(&env.cache, &block_of).unwrap(),
            19
        );
    }

    #[test]
    fn oversized_key_is_ora_01450() {
        let env = test_env(2048, 64);
        let tree = env.create(true);
        let limit = max_key_bytes(2048);
        assert_eq!(limit, (2048 - 52) / 4 - 21);
        env.insert(&tree, &vec![7u8; limit], 1).unwrap();
        let error = env.insert(&tree, &vec![7u8; limit + 1], 2).unwrap_err();
        assert_eq!(error.code(), 1450);
        assert_eq!(
            error.message(),
            format!("maximum key length ({limit}) exceeded")
        );
        tree.check(&env.cache).unwrap();
    }

    #[test]
    fn keys_of_the_maximum_length_split_down_to_four_per_block() {
        let env = test_env(2048, 64);
        let tree = env.create(false);
        let limit = max_key_bytes(2048);
        for number in 0..200u64 {
            // Shared prefixes, the distinguishing bytes at the very end.
            let mut key = vec![b'p'; limit];
            key[limit - 8..].copy_from_slice(&(number * 7919 % 200).to_be_bytes());
            env.insert(&tree, &key, number).unwrap();
        }
        tree.check(&env.cache).unwrap();
        let entries = env.scan(&tree, Bound::Unbounded, Bound::Unbounded);
        assert_eq!(entries.len(), 200);
        let statistics = tree.statistics(&env.cache).unwrap();
        assert!(statistics.blevel >= 2, "{statistics:?}");
        assert!(statistics.leaf_blocks >= 200 / 4, "{statistics:?}");
    }

    #[test]
    fn delete_marks_are_kept_until_purge_and_rollback_unmarks() {
        let env = test_env(2048, 64);
        let tree = env.create(true);
        for number in 0..500 {
            env.insert(&tree, &numbered_key(number), number).unwrap();
        }
        let (cache, log) = (&env.cache, &*env.log);
        assert!(tree
            .mark_deleted(cache, log, env.scn(), &numbered_key(10), 10, 900)
            .unwrap());
        assert!(!tree
            .mark_deleted(cache, log, env.scn(), &numbered_key(10), 11, 900)
            .unwrap());
        // Still there for older snapshots, with the marking transaction.
        let found = tree.lookup(cache, &numbered_key(10)).unwrap();
        assert_eq!(
            found,
            vec![IndexEntry {
                key: numbered_key(10),
                rowid: 10,
                deleted: true,
                xid: 900
            }]
        );
        // A unique index may hold the same key for another rowid while the old one is marked.
        env.insert(&tree, &numbered_key(10), 5000).unwrap();
        assert_eq!(tree.lookup(cache, &numbered_key(10)).unwrap().len(), 2);
        // Rollback of the delete.
        assert!(tree
            .unmark_deleted(cache, log, env.scn(), &numbered_key(10), 10)
            .unwrap());
        assert!(!tree.lookup(cache, &numbered_key(10)).unwrap()[0].deleted);
        // Rollback of the insert.
        assert!(tree
            .remove(cache, log, env.scn(), &numbered_key(10), 5000)
            .unwrap());
        assert!(!tree
            .remove(cache, log, env.scn(), &numbered_key(10), 5000)
            .unwrap());
        // Inserting an entry that is delete-marked unmarks it; a live one is an internal error.
        tree.mark_deleted(cache, log, env.scn(), &numbered_key(20), 20, 901)
            .unwrap();
        env.insert(&tree, &numbered_key(20), 20).unwrap();
        assert!(!tree.lookup(cache, &numbered_key(20)).unwrap()[0].deleted);
        assert_eq!(
            env.insert(&tree, &numbered_key(20), 20).unwrap_err().code(),
            600
        );
        // Purge removes only marked entries whose transaction is purgeable.
        for number in 100..200 {
            tree.mark_deleted(cache, log, env.scn(), &numbered_key(number), number, number)
                .unwrap();
        }
        let statistics = tree.statistics(cache).unwrap();
        assert_eq!(
            (
                statistics.entries,
                statistics.deleted_entries,
                statistics.distinct_keys
            ),
            (500, 100, 400)
        );
        assert_eq!(
            tree.purge(cache, log, env.scn(), &|xid| xid % 2 == 0)
                .unwrap(),
            50
        );
        assert_eq!(tree.statistics(cache).unwrap().entries, 450);
        tree.check(cache).unwrap();
    }

    #[test]
    fn insert_purges_a_full_leaf_before_splitting_it() {
        let env = test_env(2048, 64);
        let tree = env.create(false).with_purge(Arc::new(|xid| xid < 1000));
        let (cache, log) = (&env.cache, &*env.log);
        // Fill the root leaf, then delete everything in it.
        let mut count = 0;
        while tree.statistics(cache).unwrap().leaf_blocks == 1 {
            env.insert(&tree, &numbered_key(count), count).unwrap();
            count += 1;
        }
        // One leaf split; now mark every entry deleted by a purgeable transaction.
        let entries = env.scan(&tree, Bound::Unbounded, Bound::Unbounded);
        for entry in &entries {
            tree.mark_deleted(cache, log, env.scn(), &entry.key, entry.rowid, 5)
                .unwrap();
        }
        let leaves_before = tree.statistics(cache).unwrap().leaf_blocks;
        // Refill with keys below everything: without purge these would split the left leaf.
        for number in 0..count {
            env.insert(&tree, format!("a{number:08}").as_bytes(), number)
                .unwrap();
        }
        let statistics = tree.statistics(cache).unwrap();
        assert_eq!(statistics.leaf_blocks, leaves_before, "{statistics:?}");
        assert!(
            statistics.deleted_entries < entries.len() as u64,
            "{statistics:?}"
        );
        tree.check(cache).unwrap();
    }

    #[test]
    fn bounds_are_honoured_across_leaves() {
        let env = test_env(2048, 64);
        let tree = env.create(false);
        for number in 0..2000u64 {
            // Three rowids per key, inserted out of order.
            let key = numbered_key(number * 37 % 2000 / 3);
            env.insert(&tree, &key, number).unwrap();
        }
        tree.check(&env.cache).unwrap();
        let (low, high) = (numbered_key(100), numbered_key(200));
        let all = env.scan(&tree, Bound::Unbounded, Bound::Unbounded);
        assert!(all
            .windows(2)
            .all(|pair| (&pair[0].key, pair[0].rowid) < (&pair[1].key, pair[1].rowid)));
        let expect = |lower: Bound<&[u8]>, upper: Bound<&[u8]>| -> Vec<IndexEntry> {
            all.iter()
                .filter(|entry| in_range(lower, upper, &entry.key))
                .cloned()
                .collect()
        };
        for (lower, upper) in [
            (Bound::Included(&low[..]), Bound::Excluded(&high[..])),
            (Bound::Excluded(&low[..]), Bound::Included(&high[..])),
            (Bound::Unbounded, Bound::Included(&low[..])),
            (Bound::Included(&high[..]), Bound::Unbounded),
            (Bound::Included(&high[..]), Bound::Excluded(&low[..])),
        ] {
            assert_eq!(
                env.scan(&tree, lower, upper),
                expect(lower, upper),
                "{lower:?}..{upper:?}"
            );
        }
        let half_open: Vec<IndexEntry> = tree
            .range(&env.cache, Some(&low), Some(&high))
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(
            half_open,
            expect(Bound::Included(&low), Bound::Excluded(&high))
        );
        assert_eq!(
            tree.lookup(&env.cache, &numbered_key(150)).unwrap().len(),
            3
        );
    }

    /// A descent takes one get a level: a shared descent a consistent get for each block from
    /// the root to the leaf; a change's descent a consistent get for each branch and a
    /// current-mode get for the leaf, the same leaf.
    #[test]
    fn a_descent_takes_one_get_a_level() {
        let env = test_env(2048, 512);
        let tree = env.create(false);
        let count = 20_000u64;
        for number in 0..count {
            env.insert(&tree, &numbered_key(number * 7_919 % count), number)
                .unwrap();
        }
        let height = tree.statistics(&env.cache).unwrap().blevel as u64 + 1;
        assert!(height >= 3, "a tree of {height} levels");
        let gets = || {
            env.cache
                .pool_statistics()
                .iter()
                .fold((0, 0), |(consistent, current), pool| {
                    (
                        consistent + pool.consistent_gets,
                        current + pool.db_block_gets,
                    )
                })
        };
        for number in (0..count).step_by(1_009) {
            let key = numbered_key(number);
            let before = gets();
            let leaf = descend_shared(&env.cache, tree.root, tree.access(), &key, 7, |_, id, _| {
                Ok(id)
            })
            .unwrap();
            let read = gets();
            assert_eq!((read.0 - before.0, read.1 - before.1), (height, 0));
            let mut mtr = Mtr::new(&env.cache);
            let held = tree.leaf_for_change(&env.cache, &mut mtr, &key, 7).unwrap();
            let changed = gets();
            assert_eq!((changed.0 - read.0, changed.1 - read.1), (height - 1, 1));
            let node = mtr.block_ref(held);
            assert_eq!(
                block::read_u32(node, block::OFFSET_BLOCK_NUMBER),
                leaf.block
            );
        }
    }

    /// Many more blocks than buffers: every operation evicts dirty blocks (written through
    /// the cache after their redo) and reads others back from the files.
    #[test]
    fn tiny_cache_fifty_thousand_keys() {
        let env = test_env(2048, 32);
        let tree = env.create(false);
        let count = 50_000u64;
        for number in 0..count {
            // A permutation of 0..count: inserts land all over the tree.
            let key = numbered_key(number * 7_919 % count);
            env.insert(&tree, &key, number).unwrap();
        }
        tree.check(&env.cache).unwrap();
        let statistics = tree.statistics(&env.cache).unwrap();
        assert_eq!(statistics.entries, count);
        assert_eq!(statistics.distinct_keys, count);
        assert!(
            statistics.leaf_blocks as usize > env.cache.frame_count() * 10,
            "{statistics:?}"
        );
        let entries = env.scan(&tree, Bound::Unbounded, Bound::Unbounded);
        assert_eq!(entries.len() as u64, count);
        for (number, entry) in entries.iter().enumerate() {
            assert_eq!(entry.key, numbered_key(number as u64));
        }
        for number in (0..count).step_by(997) {
            assert_eq!(
                tree.lookup(&env.cache, &numbered_key(number))
                    .unwrap()
                    .len(),
                1
            );
        }
        // Everything also survives a flush of the cache: the files hold the index.
        env.cache.flush().unwrap();
        tree.check(&env.cache).unwrap();
    }

    /// Four writers insert disjoint keys (in scattered order, so splits happen everywhere)
    /// while two readers scan. A scan must return entries in strictly increasing order, and
    /// every entry whose insert completed before the scan began.
    ///
    /// The 256 buffers are fewer than the index's blocks, so sessions evict dirty blocks
    /// concurrently. This test found a lost write in `BufferCache::write_frames`: two sessions
    /// writing the same dirty frame could each copy an image, the newer write land first and
    /// mark the frame clean, then the older image overwrite it on disk; the clean frame was
    /// later evicted and the older block read back, losing committed entries.
    #[test]
    fn concurrent_inserts_and_scans() {
        const WRITERS: u64 = 4;
        const PER_WRITER: u64 = 4_000;
        let env = test_env(2048, 256);
        let tree = env.create(false);
        let completed: Vec<AtomicUsize> = (0..WRITERS).map(|_| AtomicUsize::new(0)).collect();
        let writers_done = AtomicUsize::new(0);
        let key_order = |writer: u64| -> Vec<Vec<u8>> {
            (0..PER_WRITER)
                .map(|index| numbered_key((index * 7_919 % PER_WRITER) * WRITERS + writer))
                .collect()
        };
        std::thread::scope(|scope| {
            for writer in 0..WRITERS {
                let (env, tree, completed, writers_done) = (&env, &tree, &completed, &writers_done);
                scope.spawn(move || {
                    for (index, key) in key_order(writer).iter().enumerate() {
                        env.insert(tree, key, writer).unwrap();
                        completed[writer as usize].store(index + 1, Ordering::Release);
                    }
                    writers_done.fetch_add(1, Ordering::Release);
                });
            }
            for reader in 0..2u64 {
                let (env, tree, completed, writers_done) = (&env, &tree, &completed, &writers_done);
                let key_order = &key_order;
                scope.spawn(move || {
                    let mut scans = 0;
                    while writers_done.load(Ordering::Acquire) < WRITERS as usize || scans < 3 {
                        let before: Vec<usize> = completed
                            .iter()
                            .map(|count| count.load(Ordering::Acquire))
                            .collect();
                        // Reader 1 scans a bounded range, reader 0 the whole index.
                        let (low, high) = (
                            numbered_key(WRITERS * PER_WRITER / 4),
                            numbered_key(WRITERS * PER_WRITER / 2),
                        );
                        let (lower, upper) = if reader == 0 {
                            (Bound::Unbounded, Bound::Unbounded)
                        } else {
                            (Bound::Included(&low[..]), Bound::Excluded(&high[..]))
                        };
                        let entries = env.scan_unchecked(tree, lower, upper);
                        assert!(
                            entries.windows(2).all(|pair| (&pair[0].key, pair[0].rowid)
                                < (&pair[1].key, pair[1].rowid)),
                            "a scan returned entries out of order"
                        );
                        let seen: BTreeSet<&[u8]> =
                            entries.iter().map(|entry| entry.key.as_slice()).collect();
                        for writer in 0..WRITERS {
                            for key in &key_order(writer)[..before[writer as usize]] {
                                if in_range(lower, upper, key) {
                                    assert!(
                                        seen.contains(key.as_slice()),
                                        "scan missed {:?}",
                                        String::from_utf8_lossy(key)
                                    );
                                }
                            }
                        }
                        scans += 1;
                    }
                });
            }
        });
        tree.check(&env.cache).unwrap();
        let entries = env.scan(&tree, Bound::Unbounded, Bound::Unbounded);
        assert_eq!(entries.len() as u64, WRITERS * PER_WRITER);
        for (number, entry) in entries.iter().enumerate() {
            assert_eq!(
                entry.key,
                numbered_key(number as u64),
                "every key exactly once"
            );
            assert_eq!(entry.rowid, number as u64 % WRITERS);
        }
    }

    // -----------------------------------------------------------------------------------
    // Model-based test: the index against a BTreeMap.
    // -----------------------------------------------------------------------------------

    type Model = BTreeMap<(Vec<u8>, u64), (bool, u64)>;

    #[derive(Clone, Debug)]
    enum Operation {
        Insert {
            key: Vec<u8>,
            rowid: u64,
        },
        /// Re-inserts an existing entry: unmarks it, or fails if it is live.
        InsertExisting {
            pick: usize,
        },
        MarkDeleted {
            pick: usize,
            xid: u64,
        },
        UnmarkDeleted {
            pick: usize,
        },
        Remove {
            pick: usize,
        },
        RemoveMissing {
            key: Vec<u8>,
            rowid: u64,
        },
        Range {
            lower: Bound<Vec<u8>>,
            upper: Bound<Vec<u8>>,
        },
        RangeAroundExisting {
            pick: usize,
            span: usize,
        },
        Lookup {
            key: Vec<u8>,
        },
        LookupExisting {
            pick: usize,
        },
        Purge {
            modulus: u64,
        },
    }

    fn key_strategy() -> impl Strategy<Value = Vec<u8>> {
        let limit = max_key_bytes(2048);
        let prefix = prop::sample::select(vec![
            &b""[..],
            b"a",
            b"ab",
            b"abc",
            b"abcabcabcabc",
            b"\xff\xff",
        ]);
        let suffix = prop_oneof![
            5 => prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', b'b', 0xfe, 0xff]),
                0..6),
            2 => prop::collection::vec(any::<u8>(), 0..40),
            3 => prop::collection::vec(any::<u8>(), 100..limit - 12),
            1 => Just(vec![b'z'; limit - 12]),
        ];
        (prefix, suffix).prop_map(|(prefix, suffix)| [prefix, &suffix[..]].concat())
    }

    fn rowid_strategy() -> impl Strategy<Value = u64> {
        prop_oneof![8 => 0u64..4, 1 => Just(u64::MAX), 1 => any::<u64>()]
    }

    fn bound_strategy() -> impl Strategy<Value = Bound<Vec<u8>>> {
        prop_oneof![
            1 => Just(Bound::Unbounded),
            2 => key_strategy().prop_map(Bound::Included),
            2 => key_strategy().prop_map(Bound::Excluded),
        ]
    }

    fn operation_strategy() -> impl Strategy<Value = Operation> {
        prop_oneof![
            12 => (key_strategy(), rowid_strategy())
                .prop_map(|(key, rowid)| Operation::Insert { key, rowid }),
            1 => any::<usize>().prop_map(|pick| Operation::InsertExisting { pick }),
            3 => (any::<usize>(), 1u64..20)
                .prop_map(|(pick, xid)| Operation::MarkDeleted { pick, xid }),
            1 => any::<usize>().prop_map(|pick| Operation::UnmarkDeleted { pick }),
            2 => any::<usize>().prop_map(|pick| Operation::Remove { pick }),
            1 => (key_strategy(), rowid_strategy())
                .prop_map(|(key, rowid)| Operation::RemoveMissing { key, rowid }),
            1 => (bound_strategy(), bound_strategy())
                .prop_map(|(lower, upper)| Operation::Range { lower, upper }),
            1 => (any::<usize>(), 0usize..40)
                .prop_map(|(pick, span)| Operation::RangeAroundExisting { pick, span }),
            1 => key_strategy().prop_map(|key| Operation::Lookup { key }),
            1 => any::<usize>().prop_map(|pick| Operation::LookupExisting { pick }),
            1 => (2u64..5).prop_map(|modulus| Operation::Purge { modulus }),
        ]
    }

    fn pick(model: &Model, pick: usize) -> Option<(Vec<u8>, u64)> {
        (!model.is_empty()).then(|| model.keys().nth(pick % model.len()).unwrap().clone())
    }

    /// Whether `key` lies between the bounds (the tuple's `contains`, with its types named:
    /// byte slices compare with other crates' buffer types too).
    fn in_range(lower: Bound<&[u8]>, upper: Bound<&[u8]>, key: &[u8]) -> bool {
        RangeBounds::<[u8]>::contains(&(lower, upper), key)
    }

    fn model_range(model: &Model, lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> Vec<IndexEntry> {
        model
            .iter()
            .filter(|((key, _), _)| in_range(lower, upper, key))
            .map(|((key, rowid), (deleted, xid))| IndexEntry {
                key: key.clone(),
                rowid: *rowid,
                deleted: *deleted,
                xid: *xid,
            })
            .collect()
    }

    fn apply(env: &TestEnv, tree: &BTree, model: &mut Model, operation: &Operation) {
        let (cache, log) = (&env.cache, &*env.log);
        match operation {
            Operation::Insert { key, rowid } => {
                let result = env.insert(tree, key, *rowid);
                match model.get_mut(&(key.clone(), *rowid)) {
                    Some((deleted, xid)) if *deleted => {
                        result.unwrap();
                        (*deleted, *xid) = (false, 0);
                    }
                    Some(_) => assert_eq!(result.unwrap_err().code(), 600),
                    None => {
                        result.unwrap();
                        model.insert((key.clone(), *rowid), (false, 0));
                    }
                }
            }
            Operation::InsertExisting { pick: choice } => {
                if let Some((key, rowid)) = pick(model, *choice) {
                    apply(env, tree, model, &Operation::Insert { key, rowid });
                }
            }
            Operation::MarkDeleted { pick: choice, xid } => {
                if let Some((key, rowid)) = pick(model, *choice) {
                    assert!(tree
                        .mark_deleted(cache, log, env.scn(), &key, rowid, *xid)
                        .unwrap());
                    model.insert((key, rowid), (true, *xid));
                }
            }
            Operation::UnmarkDeleted { pick: choice } => {
                if let Some((key, rowid)) = pick(model, *choice) {
                    assert!(tree
                        .unmark_deleted(cache, log, env.scn(), &key, rowid)
                        .unwrap());
                    model.insert((key, rowid), (false, 0));
                }
            }
            Operation::Remove { pick: choice } => {
                if let Some((key, rowid)) = pick(model, *choice) {
                    assert!(tree.remove(cache, log, env.scn(), &key, rowid).unwrap());
                    model.remove(&(key, rowid));
                }
            }
            Operation::RemoveMissing { key, rowid } => {
                let present = model.remove(&(key.clone(), *rowid)).is_some();
                assert_eq!(
                    tree.remove(cache, log, env.scn(), key, *rowid).unwrap(),
                    present
                );
            }
            Operation::Range { lower, upper } => {
                let (lower, upper) = (
                    lower.as_ref().map(Vec::as_slice),
                    upper.as_ref().map(Vec::as_slice),
                );
                assert_eq!(
                    env.scan(tree, lower, upper),
                    model_range(model, lower, upper),
                    "range {lower:?}..{upper:?}"
                );
            }
            Operation::RangeAroundExisting { pick: choice, span } => {
                if let (Some((low, _)), Some((high, _))) = (
                    pick(model, *choice),
                    pick(model, choice.wrapping_add(*span)),
                ) {
                    for (lower, upper) in [
                        (Bound::Included(&low[..]), Bound::Excluded(&high[..])),
                        (Bound::Excluded(&low[..]), Bound::Included(&high[..])),
                    ] {
                        assert_eq!(
                            env.scan(tree, lower, upper),
                            model_range(model, lower, upper)
                        );
                    }
                }
            }
            Operation::Lookup { key } => {
                let bounds = (Bound::Included(&key[..]), Bound::Included(&key[..]));
                assert_eq!(
                    tree.lookup(cache, key).unwrap(),
                    model_range(model, bounds.0, bounds.1)
                );
            }
            Operation::LookupExisting { pick: choice } => {
                if let Some((key, _)) = pick(model, *choice) {
                    apply(env, tree, model, &Operation::Lookup { key });
                }
            }
            Operation::Purge { modulus } => {
                let purgeable = |xid: u64| xid.is_multiple_of(*modulus);
                let before = model.len();
                model.retain(|_, (deleted, xid)| !(*deleted && purgeable(*xid)));
                assert_eq!(
                    tree.purge(cache, log, env.scn(), &purgeable).unwrap(),
                    before - model.len()
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn index_matches_a_btreemap(
            operations in prop::collection::vec(operation_strategy(), 1..400)
        ) {
            let env = test_env(2048, 64);
            let tree = env.create(false);
            let mut model = Model::new();
            for operation in &operations {
                apply(&env, &tree, &mut model, operation);
                if let Err(error) = tree.check(&env.cache) {
                    panic!("after {operation:?}: {error}");
                }
            }
            let everything = env.scan(&tree, Bound::Unbounded, Bound::Unbounded);
            prop_assert_eq!(everything, model_range(&model, Bound::Unbounded, Bound::Unbounded));
            let statistics = tree.statistics(&env.cache).unwrap();
            prop_assert_eq!(statistics.entries, model.len() as u64);
            let deleted = model.values().filter(|(deleted, _)| *deleted).count() as u64;
            prop_assert_eq!(statistics.deleted_entries, deleted);
        }
    }
}
