//! The file layer: everything below the buffer cache and the redo log that touches a disk.
//!
//! ```text
//!   buffer/ (block gets, DBWR)      redo/ (LGWR, recovery, control file)
//!        \                               /
//!         datafile: open datafiles, block reads and writes, the double-write file
//!         block:    the header every block starts with, its checksum, ORA-01578
//!         vfs:      the one trait all file I/O goes through (the OS, or a simulation
//!                   that loses unsynced writes at a crash)
//! ```
//!
//! Nothing here knows what a block holds beyond its header: the formats of heap, B-tree,
//! segment and space blocks are `access/`'s, undo's are `transaction/`'s.
pub mod block;
pub mod datafile;
pub mod vfs;
