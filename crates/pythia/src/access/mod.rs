//! Access methods: the block formats of tables and indexes, and how space is found for them,
//! all read and changed through the buffer cache and, for changes, mini-transactions.
//!
//! ```text
//!   transaction/, catalog/, sql/
//!        |
//!   scan:    full scans of a segment, with multiblock reads
//!   btree:   B-tree indexes (search, insert, split, delete-marking)
//!   heap:    heap table blocks, row pieces, ROWIDs, row migration
//!   segment: segment headers and their extent maps
//!   space:   the space bitmap of the system datafile (extents)
//!        |
//!   buffer/ (blocks)   redo/ (mini-transactions)   io/ (block addresses)
//! ```
pub mod btree;
pub mod heap;
pub mod scan;
pub mod segment;
pub mod space;
