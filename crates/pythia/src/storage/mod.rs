//! Storage: the files an instance keeps on disk, reached only through [`vfs`].
//!
//! - [`block`]: the header every block starts with, checksums, ORA-01578;
//! - [`datafile`]: the open datafiles, block I/O, and the double-write file;
//! - [`space`]: the space bitmap of the system datafile (extents);
//! - [`segment`]: segment headers and their extent maps;
//! - [`scan`]: full scans of a segment and their multiblock reads;
//! - [`heap`]: heap table blocks, rows and ROWIDs;
//! - [`btree`]: B-tree indexes.
pub mod block;
pub mod btree;
pub mod datafile;
pub mod heap;
pub mod scan;
pub mod segment;
pub mod space;
pub mod vfs;
