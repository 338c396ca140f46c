//! The set of open datafiles, addressed by file number, and block-sized I/O on them.
//!
//! File numbers are Oracle's: 1 is `system01.dbf` (dictionary and user segments), 2 is
//! `undotbs01.dbf` (undo). Every read checks the block (checksum, self-address) and every
//! write seals it; a read past the end of a file gives a never-written (zero) block.
//!
//! The double-write file `dblwr.dat` makes block writes safe against torn writes: a batch of
//! blocks is first written and synced there, then written in place. After a crash, a block in
//! the datafile that fails its checksum is restored from the double-write file before redo is
//! applied. Layout of `dblwr.dat`: a sequence of slots, each `block_size + 16` bytes:
//!
//! ```text
//! offset size field
//!      0    4 file number
//!      4    4 block number
//!      8    4 CRC-32C of the block image (the image is also sealed by its own checksum)
//!     12    4 magic 0x44424C57 ("DBLW")
//!     16    n the block image (n = db_block_size)
//! ```
//!
//! DBVERIFY (`instance/dbverify.rs`, `pythia dbv DIR`) reads every block of both datafiles
//! with the checks of a read, on a closed database, and says for each failing block whether
//! `dblwr.dat` holds a whole image of it (the next open would restore it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic, WaitEvent};
use crate::io::block::{self, BlockId};
use crate::io::vfs::{Vfs, VfsFile};

pub const SYSTEM_FILE: u32 = 1;
pub const UNDO_FILE: u32 = 2;
/// The double-write file of a database directory.
pub const DOUBLE_WRITE_FILE: &str = "dblwr.dat";
/// The datafiles of a database directory, by number.
pub const DATAFILES: [(u32, &str); 2] =
    [(SYSTEM_FILE, "system01.dbf"), (UNDO_FILE, "undotbs01.dbf")];
pub const DOUBLE_WRITE_MAGIC: u32 = 0x44424C57;
const DOUBLE_WRITE_SLOT_HEADER: usize = 16;
/// Most blocks one double-write batch holds.
pub const DOUBLE_WRITE_BATCH_BLOCKS_MAX: usize = 128;

pub struct FileSet {
    block_size: usize,
    files: Vec<(u32, PathBuf, Arc<dyn VfsFile>)>,
    double_write: Mutex<Arc<dyn VfsFile>>,
    double_write_path: PathBuf,
}

impl FileSet {
    /// Opens (creating when absent) the datafiles and the double-write file in `dir`.
    pub fn open(vfs: &dyn Vfs, dir: &Path, block_size: usize) -> Result<FileSet> {
        let mut files = Vec::new();
        for (number, name) in DATAFILES {
            let path = dir.join(name);
            let file = vfs
                .open(&path, true)
                .map_err(|error| Error::io(&path, error))?;
            files.push((number, path, file));
        }
        let double_write_path = dir.join(DOUBLE_WRITE_FILE);
        let double_write = vfs
            .open(&double_write_path, true)
            .map_err(|error| Error::io(&double_write_path, error))?;
        Ok(FileSet {
            block_size,
            files,
            double_write: Mutex::new(double_write),
            double_write_path,
        })
    }

    pub fn block_size(&self) -> usize {
        self.block_size
    }

    fn file(&self, number: u32) -> Result<&(u32, PathBuf, Arc<dyn VfsFile>)> {
        self.files
            .iter()
            .find(|(file_number, _, _)| *file_number == number)
            .ok_or_else(|| Error::new(1116, format!("error in opening database file {number}")))
    }

    pub fn files(&self) -> impl Iterator<Item = (u32, &Path)> {
        self.files
            .iter()
            .map(|(number, path, _)| (*number, path.as_path()))
    }

    /// Size of a file in blocks.
    pub fn blocks(&self, number: u32) -> Result<u64> {
        let (_, path, file) = self.file(number)?;
        Ok(file.len().map_err(|error| Error::io(path, error))? / self.block_size as u64)
    }

    /// Reads one block and verifies it: 'db file sequential read'.
    pub fn read_block(&self, id: BlockId, buffer: &mut [u8]) -> Result<()> {
        debug_assert_eq!(buffer.len(), self.block_size);
        let (_, path, file) = self.file(id.file)?;
        {
            let _wait = instrumentation::wait(
                WaitEvent::DbFileSequentialRead,
                id.file as u64,
                id.block as u64,
                1,
            );
            file.read_at(buffer, id.block as u64 * self.block_size as u64)
                .map_err(|error| Error::io(path, error))?;
        }
        instrumentation::add(Statistic::PhysicalReads, 1);
        instrumentation::add(Statistic::PhysicalReadsCache, 1);
        instrumentation::add(Statistic::PhysicalReadIoRequests, 1);
        instrumentation::add(Statistic::PhysicalReadTotalIoRequests, 1);
        block::verify(buffer, id)
    }

    /// Reads `buffers.len()` consecutive blocks of one file, from `first` on, with one I/O, and
    /// verifies each as `read_block` does: a full scan's multiblock read, 'db file scattered
    /// read' (p1 file#, p2 first block#, p3 blocks). One block is read as `read_block` reads it,
    /// 'db file sequential read': Oracle reports a one-block read as a single-block read.
    ///
    /// Err: the I/O failed and nothing was read. Ok: one verdict per block, in order (an Err
    /// for a block that fails its checks: ORA-01578), so that the caller keeps the good ones.
    ///
    /// Counted: `physical reads` and `physical reads cache` per block, `physical read IO
    /// requests` and `physical read total IO requests` per I/O; `physical read total multi
    /// block requests` per I/O of two blocks or more, and `physical reads cache prefetch` for
    /// every block of it after the first (the first is the one the scan asked for; the others
    /// are read ahead of their gets).
    pub fn read_blocks(
        &self,
        first: BlockId,
        buffers: &mut [&mut [u8]],
    ) -> Result<Vec<Result<()>>> {
        let count = buffers.len();
        assert!(count > 0, "a multiblock read of no blocks");
        if count == 1 {
            return Ok(vec![self.read_block(first, buffers[0])]);
        }
        debug_assert!(buffers.iter().all(|buffer| buffer.len() == self.block_size));
        let (_, path, file) = self.file(first.file)?;
        // Positional I/O has no scatter form in the file trait: read into one run of bytes
        // and copy each block out (a memory copy beside a disk read).
        let mut run = vec![0u8; count * self.block_size];
        {
            let _wait = instrumentation::wait(
                WaitEvent::DbFileScatteredRead,
                first.file as u64,
                first.block as u64,
                count as u64,
            );
            file.read_at(&mut run, first.block as u64 * self.block_size as u64)
                .map_err(|error| Error::io(path, error))?;
        }
        instrumentation::add(Statistic::PhysicalReads, count as u64);
        instrumentation::add(Statistic::PhysicalReadsCache, count as u64);
        instrumentation::add(Statistic::PhysicalReadsCachePrefetch, count as u64 - 1);
        instrumentation::add(Statistic::PhysicalReadIoRequests, 1);
        instrumentation::add(Statistic::PhysicalReadTotalIoRequests, 1);
        instrumentation::add(Statistic::PhysicalReadTotalMultiBlockRequests, 1);
        Ok(buffers
            .iter_mut()
            .zip(run.chunks_exact(self.block_size))
            .enumerate()
            .map(|(offset, (buffer, image))| {
                buffer.copy_from_slice(image);
                block::verify(
                    buffer,
                    BlockId::new(first.file, first.block + offset as u32),
                )
            })
            .collect())
    }

    /// Reads one block without verifying it (recovery inspects torn blocks itself).
    pub fn read_block_unchecked(&self, id: BlockId, buffer: &mut [u8]) -> Result<()> {
        let (_, path, file) = self.file(id.file)?;
        file.read_at(buffer, id.block as u64 * self.block_size as u64)
            .map_err(|error| Error::io(path, error))
    }

    /// Writes a batch of sealed block images durably and torn-write safely: double-write file
    /// first (synced), then in place (synced). 'db file parallel write'.
    pub fn write_blocks(&self, batch: &[(BlockId, &[u8])]) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let double_write = self.double_write.lock();
        let slot_bytes = self.block_size + DOUBLE_WRITE_SLOT_HEADER;
        let _wait = instrumentation::wait(WaitEvent::DbFileParallelWrite, batch.len() as u64, 0, 0);
        for chunk_start in (0..batch.len()).step_by(DOUBLE_WRITE_BATCH_BLOCKS_MAX) {
            let chunk =
                &batch[chunk_start..(chunk_start + DOUBLE_WRITE_BATCH_BLOCKS_MAX).min(batch.len())];
            let mut image = Vec::with_capacity(chunk.len() * slot_bytes);
            for (id, data) in chunk {
                debug_assert!(
                    block::verify(data, *id).is_ok(),
                    "writing an unsealed block {id}"
                );
                image.extend_from_slice(&id.file.to_le_bytes());
                image.extend_from_slice(&id.block.to_le_bytes());
                image.extend_from_slice(&crc32c::crc32c(data).to_le_bytes());
                image.extend_from_slice(&DOUBLE_WRITE_MAGIC.to_le_bytes());
                image.extend_from_slice(data);
            }
            let io = |error| Error::io(&self.double_write_path, error);
            double_write.write_at(&image, 0).map_err(io)?;
            double_write.sync_data().map_err(io)?;
            let mut touched: Vec<u32> = Vec::new();
            for (id, data) in chunk {
                let (_, path, file) = self.file(id.file)?;
                file.write_at(data, id.block as u64 * self.block_size as u64)
                    .map_err(|error| Error::io(path, error))?;
                if !touched.contains(&id.file) {
                    touched.push(id.file);
                }
            }
            for number in touched {
                let (_, path, file) = self.file(number)?;
                file.sync_data().map_err(|error| Error::io(path, error))?;
            }
            instrumentation::add(Statistic::PhysicalWrites, chunk.len() as u64);
            instrumentation::add(Statistic::PhysicalWritesFromCache, chunk.len() as u64);
            instrumentation::add(Statistic::PhysicalWriteIoRequests, 1);
        }
        Ok(())
    }

    /// The whole double-write file.
    fn read_double_write(&self, double_write: &dyn VfsFile) -> Result<Vec<u8>> {
        let io = |error| Error::io(&self.double_write_path, error);
        let mut image = vec![0u8; double_write.len().map_err(io)? as usize];
        double_write.read_at(&mut image, 0).map_err(io)?;
        Ok(image)
    }

    /// The slots of a double-write file's `image` that hold a whole block image (magic, CRC
    /// and the block's own checks good, a file of this set), in order. A torn slot is skipped:
    /// its block's datafile copy was not touched yet.
    fn double_write_slots<'a>(
        &'a self,
        image: &'a [u8],
    ) -> impl Iterator<Item = (BlockId, &'a [u8])> + 'a {
        image
            .chunks_exact(self.block_size + DOUBLE_WRITE_SLOT_HEADER)
            .filter_map(|slot| {
                let id = BlockId::new(block::read_u32(slot, 0), block::read_u32(slot, 4));
                let data = &slot[DOUBLE_WRITE_SLOT_HEADER..];
                let whole = block::read_u32(slot, 12) == DOUBLE_WRITE_MAGIC
                    && block::read_u32(slot, 8) == crc32c::crc32c(data)
                    && block::verify(data, id).is_ok()
                    && self.file(id.file).is_ok();
                whole.then_some((id, data))
            })
    }

    /// The blocks the double-write file holds a whole image of: the ones
    /// [`FileSet::repair_from_double_write`] can restore (DBVERIFY asks).
    pub fn double_write_blocks(&self) -> Result<Vec<BlockId>> {
        let double_write = self.double_write.lock();
        let image = self.read_double_write(&**double_write)?;
        Ok(self.double_write_slots(&image).map(|(id, _)| id).collect())
    }

    /// Restores from the double-write file every block whose datafile copy is torn or older.
    /// Returns the number of blocks restored. Run at startup before redo is applied.
    pub fn repair_from_double_write(&self) -> Result<usize> {
        let double_write = self.double_write.lock();
        let image = self.read_double_write(&**double_write)?;
        let mut restored = 0;
        let mut current = vec![0u8; self.block_size];
        for (id, data) in self.double_write_slots(&image) {
            self.read_block_unchecked(id, &mut current)?;
            let damaged = block::verify(&current, id).is_err();
            if damaged || block::lsn(&current) < block::lsn(data) {
                let (_, path, file) = self.file(id.file)?;
                file.write_at(data, id.block as u64 * self.block_size as u64)
                    .map_err(|error| Error::io(path, error))?;
                restored += 1;
            }
        }
        if restored > 0 {
            self.sync_all()?;
        }
        Ok(restored)
    }

    pub fn sync_all(&self) -> Result<()> {
        for (_, path, file) in &self.files {
            file.sync_data().map_err(|error| Error::io(path, error))?;
        }
        Ok(())
    }
}
