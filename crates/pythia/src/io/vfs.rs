//! The virtual file system: every byte of database file I/O passes through [`Vfs`] and
//! [`VfsFile`].
//!
//! # Why one trait
//!
//! Datafiles, online redo logs and the control file are all opened through a [`Vfs`]. In
//! production that is [`os()`], a thin layer over `std::fs` with positional I/O. In tests it is
//! [`SimVfs`], an in-memory file system that can lose power at an exact `sync_data`, fail I/O on
//! a countdown, and hand back the disk image a power loss would leave behind. Because no engine
//! code reads or writes database files through `std::fs` directly, a crash test runs exactly
//! the code paths that run in production: the idea is SQLite's fault-injecting OS layer and
//! TigerBeetle's simulator. (The text files around the database, `init.ora` and `alert.log`,
//! are written with `std::fs` and are outside fault injection.)
//!
//! # The contract (both implementations)
//!
//! 1. `read_at` fills the whole buffer or fails: there are no short reads. Bytes past the end of
//!    the file read as zeros.
//! 2. `write_at` writes the whole buffer or fails. After a failed write the contents of the
//!    range it covered are unspecified.
//! 3. Nothing written is durable until `sync_data` on that same file returns `Ok`; after that,
//!    every write that completed before the call survives power loss. Durability is per file:
//!    syncing the redo log says nothing about a datafile. The one exception: a `write_direct`
//!    that returns `Written::Durable` (`O_DIRECT | O_DSYNC`) is durable on return. What it
//!    says of the file's earlier cached writes is not promised (the simulation syncs them
//!    with it), so a file is written one way, as the redo log is.
//! 4. After `sync_data` fails, the caller may assume nothing about the writes since the last
//!    successful sync, not even after a later sync succeeds (Linux may already have dropped the
//!    dirty pages: PostgreSQL's "fsyncgate"). The only safe reaction is to stop and recover from
//!    what was durable.
//! 5. Creating a file (`open` with `create`), `remove` and `create_dir_all` are durable when
//!    they return: the OS implementation syncs the parent directory.
//! 6. A write never damages bytes outside its own range, even when torn by a power loss
//!    (SQLite's "powersafe overwrite"). Checksums catch what tears inside a block.
//!
//! # What the simulation models
//!
//! ```text
//!                 write_at / set_len                 sync_data (per file)
//!   engine ──────────────────────────▶ pending ─────────────────────────▶ durable image
//!                                      (in order)
//!
//!   read_at, len      see  durable image + every pending change, in order ("current")
//!
//!   crash()           new SimVfs with, per file: durable image + each pending change in
//!                     order, independently
//!                        dropped   │ applied │ torn: only a prefix of its 512-byte sectors,
//!                                  │         │       and maybe the next sector garbled
//!                     (set_len is dropped or applied, never torn); lengths follow
//!   crash_keep_all()  new SimVfs with, per file: durable image + every pending change
//!                     (kill -9: the process dies, the OS page cache survives)
//! ```
//!
//! Sectors are aligned to absolute file offsets, as on a disk. A write that covers part of a
//! sector tears and garbles only its own bytes (contract item 6).
//!
//! Faults, settable at any time, counted from the moment they are set:
//!
//! - [`SimVfs::crash_after_syncs`]`(n)`: the n-th `sync_data` call (on any file) is the moment
//!   of power loss. That sync and every later operation on this file system fail with
//!   `ErrorKind::Other`, "simulated crash"; `exists` answers `false`. The test then calls
//!   [`SimVfs::crash`] to see what the disk held.
//! - [`SimVfs::fail_io_after`]`(n)`: the n-th I/O operation (`read_at`, `write_at`, `set_len`
//!   or `sync_data`) and every later one fail with `ErrorKind::Other`, "injected I/O fault",
//!   until [`SimVfs::clear_faults`]. A failed operation has no effect. Metadata operations
//!   (`open`, `exists`, `remove`, `len`, ...) keep working, as in redb's countdown backend.
//! - [`SimVfs::fail_reads_after`]`(n)`: the same for `read_at` alone, counting only reads:
//!   a disk that cannot be read while the log and the datafiles are still written (a scan's
//!   read fails while LGWR and DBWR go on), until `clear_faults`.
//!
//! What it does not model:
//!
//! - Reordering within a sync interval only as independent per-write outcomes: a later write may
//!   survive while an earlier one is lost, but inside one write the sectors persist in order
//!   (a prefix), whereas a real disk may persist sector 3 and lose sector 2.
//! - Lost file creations and removals: the namespace (files, directories) is durable at once,
//!   which the OS implementation makes true by syncing directories (contract item 5).
//! - Damage to synced data: bit rot, lost or misdirected writes. Block checksums own those.
//! - Linux's fsyncgate (contract item 4): after a failed sync the simulation keeps the writes
//!   pending, so a later successful sync makes them durable. The engine must not rely on it.
//! - Latency, a full disk (beyond [`SIM_FILE_BYTES_MAX`]), and concurrency: one mutex
//!   serializes every operation, which is also what makes runs reproducible.
//!
//! # Invariants of the simulation
//!
//! 1. For every file, `current` equals `durable` with the pending changes applied in order; a
//!    successful `sync_data` applies them to `durable` and empties the queue.
//! 2. `crash()` never changes a byte that was durable and not covered by a later pending write.
//! 3. Deterministic: the only randomness is a splitmix64 generator seeded by
//!    [`SimVfs::new`], drawn only by `crash()`, which visits files in path order. The same seed
//!    and the same operation sequence give the same images; the file system returned by a crash
//!    is seeded from its parent's generator, so chains of crashes are reproducible too.
//! 4. A file system whose process has died (power lost, or superseded by `crash()` /
//!    `crash_keep_all()`) never succeeds at anything again, and neither do its open files.
//!    Directory locks die with it.
//!
//! Lock order: the file-system state, then a file's data. Nothing is held across calls.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

/// A file system: the only way the engine reaches files.
pub trait Vfs: Send + Sync + std::fmt::Debug {
    /// Opens a file, creating it (empty) when `create` is true and it does not exist.
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>>;
    fn exists(&self, path: &Path) -> bool;
    fn remove(&self, path: &Path) -> io::Result<()>;
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Takes an exclusive lock on the data directory for this process's lifetime (the guard
    /// releases it). A second holder, in this or another process, gets an error of kind
    /// `WouldBlock`. The OS implementation uses a `lock` file in the directory and
    /// `std::fs::File::try_lock` (stable since Rust 1.89).
    fn lock_directory(&self, dir: &Path) -> io::Result<Box<dyn std::any::Any + Send + Sync>>;
}

/// An open file. Positional I/O only: there is no cursor, so one handle can be shared by
/// threads.
// The interface is fixed and a file's emptiness is never the question the engine asks.
#[allow(clippy::len_without_is_empty)]
pub trait VfsFile: Send + Sync + std::fmt::Debug {
    /// Reads exactly buf.len() bytes at offset; bytes past the end of the file read as zeros.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of buf at offset, extending the file if needed (not durable until sync).
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every completed write durable (fdatasync).
    fn sync_data(&self) -> io::Result<()>;
    fn len(&self) -> io::Result<u64>;
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// `write_at`, bypassing the operating system's cache and durable on return where the
    /// file system allows it (`O_DIRECT | O_DSYNC`): for a write that must be durable at once
    /// and is not read back soon, a redo write. Says which it was: a [`Written::NeedsSync`]
    /// write has `write_at`'s contract (not durable until `sync_data`). The default, and the
    /// fallback where direct I/O is refused, is `write_at` itself.
    fn write_direct(&self, buf: &[u8], offset: u64) -> io::Result<Written> {
        self.write_at(buf, offset).map(|()| Written::NeedsSync)
    }
}

/// What a [`VfsFile::write_direct`] left to do for its durability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// Durable already: written with `O_DIRECT | O_DSYNC`.
    Durable,
    /// Durable after the file's next `sync_data` (written through the cache).
    NeedsSync,
}

/// The unit in which the simulation tears writes: a disk sector.
pub const SIM_SECTOR_BYTES: u64 = 512;

/// The largest file the simulation holds; a write or `set_len` beyond it fails with
/// `ErrorKind::FileTooLarge` instead of exhausting the test's memory.
pub const SIM_FILE_BYTES_MAX: u64 = 1 << 30;

/// The file inside a data directory that `lock_directory` locks.
const LOCK_FILE_NAME: &str = "lock";

fn offset_end(offset: u64, length: usize) -> io::Result<u64> {
    offset.checked_add(length as u64).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("offset {offset} + length {length} overflows u64"),
        )
    })
}

// ------------------------------------------------------------------------------------------
// The operating system's file system.
// ------------------------------------------------------------------------------------------

/// The real file system.
pub fn os() -> Arc<dyn Vfs> {
    Arc::new(OsVfs)
}

/// The real file system: `std::fs`, positional I/O, `sync_data` = fdatasync.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsVfs;

/// A file of the real file system.
#[derive(Debug)]
struct OsFile {
    file: File,
    path: PathBuf,
    /// A second descriptor of the file opened with `O_DIRECT | O_DSYNC`, for `write_direct`:
    /// opened at its first use, `None` where the file system refuses it (tmpfs).
    direct: std::sync::OnceLock<Option<File>>,
    /// A direct write was refused (a device whose blocks are larger than the write's
    /// alignment): cached writes from then on.
    direct_refused: std::sync::atomic::AtomicBool,
}

/// What `O_DIRECT` asks of a write's offset and length: a multiple of the device's logical
/// block (512 bytes on most disks; a write to a 4 KiB-sector disk is refused, and the file
/// falls back to cached writes).
const DIRECT_IO_ALIGNMENT: u64 = 512;

/// The alignment of the memory a direct write is made from (a page: enough for any device's
/// memory alignment). A write from memory aligned otherwise is copied first.
pub const DIRECT_IO_MEMORY_ALIGNMENT: usize = 4096;

/// Zeroed bytes in memory aligned for direct I/O ([`DIRECT_IO_MEMORY_ALIGNMENT`]): what a
/// caller of [`VfsFile::write_direct`] builds its write in, so that the write needs no copy.
pub struct AlignedBuffer {
    pointer: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
    /// The bytes it holds (the layout is at least one byte).
    length: usize,
}

// SAFETY: an `AlignedBuffer` owns its allocation, as a `Vec<u8>` does.
unsafe impl Send for AlignedBuffer {}
// SAFETY: shared references only read.
unsafe impl Sync for AlignedBuffer {}

impl AlignedBuffer {
    pub fn zeroed(length: usize) -> io::Result<AlignedBuffer> {
        let layout = std::alloc::Layout::from_size_align(length.max(1), DIRECT_IO_MEMORY_ALIGNMENT)
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
        // SAFETY: the layout's size is non-zero.
        let pointer = std::ptr::NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
            .ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
        Ok(AlignedBuffer {
            pointer,
            layout,
            length,
        })
    }

    fn copy_of(bytes: &[u8]) -> io::Result<AlignedBuffer> {
        let mut buffer = AlignedBuffer::zeroed(bytes.len())?;
        buffer.copy_from_slice(bytes);
        Ok(buffer)
    }
}

impl std::ops::Deref for AlignedBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `zeroed` initialized the first `length` (<= size) bytes.
        unsafe { std::slice::from_raw_parts(self.pointer.as_ptr(), self.length) }
    }
}

impl std::ops::DerefMut for AlignedBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `deref`, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.pointer.as_ptr(), self.length) }
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.pointer.as_ptr(), self.layout) }
    }
}

impl OsFile {
    /// The direct descriptor, opened at the first call; `None` when direct I/O is refused.
    fn direct_file(&self) -> Option<&File> {
        if self
            .direct_refused
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return None;
        }
        self.direct
            .get_or_init(|| open_direct(&self.path).ok())
            .as_ref()
    }
}

#[cfg(target_os = "linux")]
fn open_direct(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_DIRECT | libc::O_DSYNC)
        .open(path)
}

#[cfg(not(target_os = "linux"))]
fn open_direct(_path: &Path) -> io::Result<File> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Holds the `lock` file of a data directory locked; dropping it (or the process dying)
/// releases the lock.
#[derive(Debug)]
struct OsDirectoryLock {
    file: File,
}

impl Drop for OsDirectoryLock {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock anyway; unlocking first says why we hold it.
        let _ = self.file.unlock();
    }
}

/// The directory holding `path`'s entry: its parent, or `.` for a bare file name.
fn parent_directory(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Makes the directory entries inside `directory` durable (a new or removed name).
fn sync_directory(directory: &Path) -> io::Result<()> {
    File::open(directory)?.sync_all()
}

impl Vfs for OsVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let mut options = OpenOptions::new();
        options.read(true).write(true);
        let file = if create {
            match options.clone().create_new(true).open(path) {
                Ok(file) => {
                    // The new name must survive power loss like the data synced into it.
                    sync_directory(parent_directory(path))?;
                    file
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => options.open(path)?,
                Err(error) => return Err(error),
            }
        } else {
            options.open(path)?
        };
        Ok(Arc::new(OsFile {
            file,
            path: path.to_path_buf(),
            direct: std::sync::OnceLock::new(),
            direct_refused: std::sync::atomic::AtomicBool::new(false),
        }))
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)?;
        sync_directory(parent_directory(path))
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let created: Vec<&Path> = path
            .ancestors()
            .filter(|ancestor| !ancestor.as_os_str().is_empty() && !ancestor.exists())
            .collect();
        std::fs::create_dir_all(path)?;
        for directory in created {
            sync_directory(parent_directory(directory))?;
        }
        Ok(())
    }

    fn lock_directory(&self, dir: &Path) -> io::Result<Box<dyn Any + Send + Sync>> {
        let path = dir.join(LOCK_FILE_NAME);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {
                // The holder's process id, for whoever finds the directory locked.
                let holder = format!("{}\n", std::process::id());
                file.set_len(0)?;
                file.write_all_at(holder.as_bytes(), 0)?;
                Ok(Box::new(OsDirectoryLock { file }))
            }
            Err(TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&path).unwrap_or_default();
                Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "data directory {} is locked (holder process {})",
                        dir.display(),
                        holder.trim()
                    ),
                ))
            }
            Err(TryLockError::Error(error)) => Err(error),
        }
    }
}

impl VfsFile for OsFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        offset_end(offset, buf.len())?;
        let mut filled = 0;
        while filled < buf.len() {
            match self
                .file
                .read_at(&mut buf[filled..], offset + filled as u64)
            {
                Ok(0) => {
                    buf[filled..].fill(0);
                    break;
                }
                Ok(read) => filled += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    return Err(io::Error::new(
                        error.kind(),
                        format!("read of {} at {offset}: {error}", self.path.display()),
                    ))
                }
            }
        }
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        offset_end(offset, buf.len())?;
        self.file.write_all_at(buf, offset)
    }

    fn sync_data(&self) -> io::Result<()> {
        // std's sync_data is fdatasync on Linux (F_FULLFSYNC on macOS).
        self.file.sync_data()
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.file.set_len(len)
    }

    /// Why: on the lab's disk (ext4 on a virtio disk with a volatile write cache, no FUA), a
    /// 1 KiB redo write and its fdatasync took 122-148 us written directly against 139-165
    /// us through the page cache, over the same seconds: no page to dirty, and nothing for
    /// fdatasync to find and write back before the flush; with `O_DSYNC` the kernel flushes
    /// the device's cache at the end of the write itself, 3-4 us less than a separate
    /// fdatasync (`crates/pythia/examples/redo_write.rs`). The linux kernel keeps the page
    /// cache coherent with direct writes (it writes back and drops the cached pages of the
    /// range first), so the file's cached reads and writes stay correct.
    fn write_direct(&self, buf: &[u8], offset: u64) -> io::Result<Written> {
        let aligned = offset.is_multiple_of(DIRECT_IO_ALIGNMENT)
            && (buf.len() as u64).is_multiple_of(DIRECT_IO_ALIGNMENT)
            && !buf.is_empty();
        let Some(direct) = aligned.then(|| self.direct_file()).flatten() else {
            return self.write_at(buf, offset).map(|()| Written::NeedsSync);
        };
        offset_end(offset, buf.len())?;
        let copy;
        let source = if (buf.as_ptr() as usize).is_multiple_of(DIRECT_IO_MEMORY_ALIGNMENT) {
            buf
        } else {
            copy = AlignedBuffer::copy_of(buf)?;
            &copy[..]
        };
        match direct.write_all_at(source, offset) {
            Ok(()) => Ok(Written::Durable),
            Err(error) if error.raw_os_error() == Some(libc::EINVAL) => {
                // Refused before any byte moved (the device's blocks are larger than this
                // alignment): cached writes from now on.
                self.direct_refused
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                self.write_at(buf, offset).map(|()| Written::NeedsSync)
            }
            Err(error) => Err(io::Error::new(
                error.kind(),
                format!("write of {} at {offset}: {error}", self.path.display()),
            )),
        }
    }
}

// ------------------------------------------------------------------------------------------
// The simulated file system.
// ------------------------------------------------------------------------------------------

/// splitmix64: small, fast, and good enough to pick crash outcomes reproducibly.
#[derive(Debug, Clone)]
struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut mixed = self.state;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        mixed ^ (mixed >> 31)
    }

    /// A number in `0..bound`.
    fn below(&mut self, bound: u64) -> u64 {
        assert!(bound > 0, "empty range");
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }

    fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let random = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&random[..chunk.len()]);
        }
    }
}

/// A change made since the file's last successful `sync_data`.
#[derive(Debug, Clone)]
enum PendingChange {
    Write { offset: u64, bytes: Vec<u8> },
    SetLength { length: u64 },
}

/// One simulated file (an inode: open handles keep it alive after `remove`).
#[derive(Debug, Default)]
struct SimFileData {
    /// What the disk holds for certain.
    durable: Vec<u8>,
    /// `durable` with every pending change applied: what reads see.
    current: Vec<u8>,
    /// Changes since the last successful sync, oldest first.
    pending: Vec<PendingChange>,
}

fn to_index(offset: u64) -> usize {
    usize::try_from(offset).expect("simulated offsets are bounded by SIM_FILE_BYTES_MAX")
}

fn apply_write(image: &mut Vec<u8>, offset: u64, bytes: &[u8]) {
    let start = to_index(offset);
    let end = start + bytes.len();
    if image.len() < end {
        image.resize(end, 0);
    }
    image[start..end].copy_from_slice(bytes);
}

fn apply_change(image: &mut Vec<u8>, change: &PendingChange) {
    match change {
        PendingChange::Write { offset, bytes } => apply_write(image, *offset, bytes),
        PendingChange::SetLength { length } => image.resize(to_index(*length), 0),
    }
}

/// Where each sector a write touches begins, relative to the start of the write.
fn sector_starts(offset: u64, length: usize) -> Vec<usize> {
    let mut starts = vec![0];
    let first_end = (SIM_SECTOR_BYTES - offset % SIM_SECTOR_BYTES) as usize;
    let mut start = first_end;
    while start < length {
        starts.push(start);
        start += SIM_SECTOR_BYTES as usize;
    }
    starts
}

/// Applies a write as a power loss in the middle of it would: the sectors before a random
/// one reach the disk, and the sector being written at that moment is garbled half the time.
fn apply_torn_write(image: &mut Vec<u8>, offset: u64, bytes: &[u8], random: &mut SplitMix64) {
    let starts = sector_starts(offset, bytes.len());
    let torn_sector = to_index(random.below(starts.len() as u64));
    let prefix_bytes = starts[torn_sector];
    if prefix_bytes > 0 {
        apply_write(image, offset, &bytes[..prefix_bytes]);
    }
    if random.below(2) == 0 {
        let sector_end = starts.get(torn_sector + 1).copied().unwrap_or(bytes.len());
        let mut garbage = vec![0; sector_end - prefix_bytes];
        random.fill(&mut garbage);
        apply_write(image, offset + prefix_bytes as u64, &garbage);
    }
}

/// What a disk holds for this file after power loss.
fn image_after_power_loss(data: &SimFileData, random: &mut SplitMix64) -> Vec<u8> {
    let mut image = data.durable.clone();
    for change in &data.pending {
        match change {
            PendingChange::SetLength { .. } => {
                if random.below(2) == 0 {
                    apply_change(&mut image, change);
                }
            }
            PendingChange::Write { offset, bytes } => match random.below(3) {
                0 => {}
                1 => apply_write(&mut image, *offset, bytes),
                _ => apply_torn_write(&mut image, *offset, bytes, random),
            },
        }
    }
    image
}

/// The I/O operations that `fail_io_after` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IoKind {
    Read,
    Write,
    Sync,
}

#[derive(Debug)]
struct SimState {
    seed: u64,
    random: SplitMix64,
    files: BTreeMap<PathBuf, Arc<Mutex<SimFileData>>>,
    directories: BTreeSet<PathBuf>,
    locked_directories: BTreeSet<PathBuf>,
    /// `Some(n)`: the n-th sync from now loses power.
    syncs_until_crash: Option<u64>,
    /// `Some(n)`: the n-th I/O operation from now starts failing.
    operations_until_io_failure: Option<u64>,
    io_failing: bool,
    /// `Some(n)`: the n-th read from now starts failing (reads only).
    reads_until_failure: Option<u64>,
    reads_failing: bool,
    /// The `crash_after_syncs` moment has come.
    power_lost: bool,
    /// `crash()` or `crash_keep_all()` was called: another file system holds the disk now.
    superseded: bool,
    syncs: u64,
    writes: u64,
    bytes_written: u64,
}

fn crash_error() -> io::Error {
    io::Error::other("simulated crash")
}

fn injected_error() -> io::Error {
    io::Error::other("injected I/O fault")
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{}: no such file", path.display()),
    )
}

fn check_file_size(end: u64) -> io::Result<()> {
    if end > SIM_FILE_BYTES_MAX {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("simulated file would grow to {end} bytes, limit {SIM_FILE_BYTES_MAX}"),
        ));
    }
    Ok(())
}

impl SimState {
    fn new(seed: u64) -> SimState {
        SimState {
            seed,
            random: SplitMix64::new(seed),
            files: BTreeMap::new(),
            directories: BTreeSet::new(),
            locked_directories: BTreeSet::new(),
            syncs_until_crash: None,
            operations_until_io_failure: None,
            io_failing: false,
            reads_until_failure: None,
            reads_failing: false,
            power_lost: false,
            superseded: false,
            syncs: 0,
            writes: 0,
            bytes_written: 0,
        }
    }

    fn dead(&self) -> bool {
        self.power_lost || self.superseded
    }

    fn check_alive(&self) -> io::Result<()> {
        if self.dead() {
            return Err(crash_error());
        }
        Ok(())
    }

    /// Admits one I/O operation or fails it, advancing the fault countdowns.
    fn begin_io(&mut self, kind: IoKind) -> io::Result<()> {
        self.check_alive()?;
        if kind == IoKind::Sync {
            if let Some(remaining) = self.syncs_until_crash {
                if remaining == 1 {
                    self.syncs_until_crash = None;
                    self.power_lost = true;
                    return Err(crash_error());
                }
                self.syncs_until_crash = Some(remaining - 1);
            }
        }
        if self.io_failing {
            return Err(injected_error());
        }
        if kind == IoKind::Read {
            if self.reads_failing {
                return Err(injected_error());
            }
            if let Some(remaining) = self.reads_until_failure {
                if remaining == 1 {
                    self.reads_until_failure = None;
                    self.reads_failing = true;
                    return Err(injected_error());
                }
                self.reads_until_failure = Some(remaining - 1);
            }
        }
        if let Some(remaining) = self.operations_until_io_failure {
            if remaining == 1 {
                self.operations_until_io_failure = None;
                self.io_failing = true;
                return Err(injected_error());
            }
            self.operations_until_io_failure = Some(remaining - 1);
        }
        Ok(())
    }

    /// Whether `path` names a directory; the root and the empty path always do.
    fn is_directory(&self, path: &Path) -> bool {
        path.parent().is_none() || path.as_os_str().is_empty() || self.directories.contains(path)
    }

    fn parent_exists(&self, path: &Path) -> bool {
        match path.parent() {
            Some(parent) => self.is_directory(parent),
            None => true,
        }
    }

    /// A file system holding `images` (path order), seeded from this one's generator.
    fn successor(&mut self, images: Vec<(PathBuf, Vec<u8>)>) -> SimState {
        let mut next = SimState::new(self.random.next_u64());
        next.directories = self.directories.clone();
        for (path, image) in images {
            let data = SimFileData {
                durable: image.clone(),
                current: image,
                pending: Vec::new(),
            };
            next.files.insert(path, Arc::new(Mutex::new(data)));
        }
        next
    }
}

/// An in-memory file system that loses power on command. Clones share one file system.
#[derive(Clone)]
pub struct SimVfs {
    state: Arc<Mutex<SimState>>,
}

impl fmt::Debug for SimVfs {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // try_lock: Debug may be called by a thread that holds the state.
        match self.state.try_lock() {
            Some(state) => formatter
                .debug_struct("SimVfs")
                .field("seed", &state.seed)
                .field("files", &state.files.len())
                .field("power_lost", &state.power_lost)
                .field("superseded", &state.superseded)
                .finish(),
            None => formatter.debug_struct("SimVfs").finish_non_exhaustive(),
        }
    }
}

impl SimVfs {
    /// An empty file system whose crashes are drawn from `seed`.
    pub fn new(seed: u64) -> SimVfs {
        SimVfs {
            state: Arc::new(Mutex::new(SimState::new(seed))),
        }
    }

    /// The `n`-th `sync_data` call from now, on any file, is the moment of power loss: it and
    /// everything after it fail with "simulated crash". `n` counts from 1.
    pub fn crash_after_syncs(&self, n: u64) {
        assert!(
            n >= 1,
            "crash_after_syncs counts from 1 (the next sync), got 0"
        );
        self.state.lock().syncs_until_crash = Some(n);
    }

    /// The `n`-th I/O operation from now (`read_at`, `write_at`, `set_len`, `sync_data`) and
    /// every later one fail with "injected I/O fault", until `clear_faults`. `n` counts from 1.
    pub fn fail_io_after(&self, n: u64) {
        assert!(
            n >= 1,
            "fail_io_after counts from 1 (the next operation), got 0"
        );
        let mut state = self.state.lock();
        state.operations_until_io_failure = Some(n);
        state.io_failing = false;
    }

    /// The `n`-th `read_at` from now and every later one fail with "injected I/O fault", until
    /// `clear_faults`; writes and syncs go on. `n` counts reads only, from 1.
    pub fn fail_reads_after(&self, n: u64) {
        assert!(
            n >= 1,
            "fail_reads_after counts from 1 (the next read), got 0"
        );
        let mut state = self.state.lock();
        state.reads_until_failure = Some(n);
        state.reads_failing = false;
    }

    /// Cancels pending fault plans and stops injected I/O failures. A power loss that already
    /// happened is not undone.
    pub fn clear_faults(&self) {
        let mut state = self.state.lock();
        state.syncs_until_crash = None;
        state.operations_until_io_failure = None;
        state.io_failing = false;
        state.reads_until_failure = None;
        state.reads_failing = false;
    }

    /// Power loss: a new file system holding each file's durable image plus, for each unsynced
    /// change in order, a seeded choice of dropped, applied or torn. This handle, and every file
    /// opened through it, fails from now on.
    ///
    /// # Panics
    ///
    /// When this handle was already superseded by an earlier crash: crash the handle it returned.
    pub fn crash(&self) -> SimVfs {
        self.supersede(image_after_power_loss)
    }

    /// Process kill (`kill -9`) with the operating system surviving: a new file system that keeps
    /// every completed write, synced or not. This handle fails from now on.
    ///
    /// # Panics
    ///
    /// When this handle was already superseded by an earlier crash.
    pub fn crash_keep_all(&self) -> SimVfs {
        self.supersede(|data, _| data.current.clone())
    }

    fn supersede(&self, image_of: impl Fn(&SimFileData, &mut SplitMix64) -> Vec<u8>) -> SimVfs {
        let mut state = self.state.lock();
        assert!(
            !state.superseded,
            "this SimVfs was already crashed; crash the SimVfs that crash returned"
        );
        state.superseded = true;
        let SimState { files, random, .. } = &mut *state;
        let images: Vec<(PathBuf, Vec<u8>)> = files
            .iter()
            .map(|(path, data)| (path.clone(), image_of(&data.lock(), random)))
            .collect();
        SimVfs {
            state: Arc::new(Mutex::new(state.successor(images))),
        }
    }

    /// Successful `sync_data` calls on this file system.
    pub fn syncs(&self) -> u64 {
        self.state.lock().syncs
    }

    /// Successful `write_at` calls on this file system.
    pub fn writes(&self) -> u64 {
        self.state.lock().writes
    }

    /// Bytes written by successful `write_at` calls on this file system.
    pub fn bytes_written(&self) -> u64 {
        self.state.lock().bytes_written
    }
}

/// A file of a [`SimVfs`].
struct SimFile {
    state: Arc<Mutex<SimState>>,
    data: Arc<Mutex<SimFileData>>,
    path: PathBuf,
}

impl fmt::Debug for SimFile {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SimFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// A data directory locked in a [`SimVfs`]; dropping it releases the lock.
struct SimDirectoryLock {
    state: Arc<Mutex<SimState>>,
    directory: PathBuf,
}

impl fmt::Debug for SimDirectoryLock {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SimDirectoryLock")
            .field("directory", &self.directory)
            .finish_non_exhaustive()
    }
}

impl Drop for SimDirectoryLock {
    fn drop(&mut self) {
        self.state.lock().locked_directories.remove(&self.directory);
    }
}

impl Vfs for SimVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let mut state = self.state.lock();
        state.check_alive()?;
        if state.is_directory(path) {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!("{}: is a directory", path.display()),
            ));
        }
        let data = match state.files.get(path) {
            Some(data) => Arc::clone(data),
            None if create && state.parent_exists(path) => {
                let data = Arc::new(Mutex::new(SimFileData::default()));
                state.files.insert(path.to_path_buf(), Arc::clone(&data));
                data
            }
            None => return Err(not_found(path)),
        };
        Ok(Arc::new(SimFile {
            state: Arc::clone(&self.state),
            data,
            path: path.to_path_buf(),
        }))
    }

    fn exists(&self, path: &Path) -> bool {
        let state = self.state.lock();
        !state.dead() && (state.files.contains_key(path) || state.is_directory(path))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut state = self.state.lock();
        state.check_alive()?;
        if state.is_directory(path) {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!("{}: is a directory", path.display()),
            ));
        }
        // Open handles keep the data, as an unlinked inode on Unix.
        state
            .files
            .remove(path)
            .map(drop)
            .ok_or_else(|| not_found(path))
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let mut state = self.state.lock();
        state.check_alive()?;
        let missing: Vec<PathBuf> = path
            .ancestors()
            .filter(|ancestor| !state.is_directory(ancestor))
            .map(Path::to_path_buf)
            .collect();
        if let Some(file) = missing
            .iter()
            .find(|ancestor| state.files.contains_key(*ancestor))
        {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{}: is a file", file.display()),
            ));
        }
        state.directories.extend(missing);
        Ok(())
    }

    fn lock_directory(&self, dir: &Path) -> io::Result<Box<dyn Any + Send + Sync>> {
        let mut state = self.state.lock();
        state.check_alive()?;
        if !state.is_directory(dir) {
            return Err(not_found(dir));
        }
        if state.locked_directories.contains(dir) {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!("data directory {} is locked", dir.display()),
            ));
        }
        state.locked_directories.insert(dir.to_path_buf());
        // The same `lock` file the OS implementation leaves, so `exists` answers alike.
        state.files.entry(dir.join(LOCK_FILE_NAME)).or_default();
        Ok(Box::new(SimDirectoryLock {
            state: Arc::clone(&self.state),
            directory: dir.to_path_buf(),
        }))
    }
}

impl VfsFile for SimFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let end = offset_end(offset, buf.len())?;
        let mut state = self.state.lock();
        state.begin_io(IoKind::Read)?;
        let data = self.data.lock();
        let file_bytes = data.current.len() as u64;
        let available = file_bytes.clamp(offset, end) - offset;
        let (inside, past_end) = buf.split_at_mut(to_index(available));
        if !inside.is_empty() {
            let start = to_index(offset);
            inside.copy_from_slice(&data.current[start..start + inside.len()]);
        }
        past_end.fill(0);
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let end = offset_end(offset, buf.len())?;
        let mut state = self.state.lock();
        state.begin_io(IoKind::Write)?;
        check_file_size(end)?;
        if !buf.is_empty() {
            let mut data = self.data.lock();
            apply_write(&mut data.current, offset, buf);
            data.pending.push(PendingChange::Write {
                offset,
                bytes: buf.to_vec(),
            });
        }
        state.writes += 1;
        state.bytes_written += buf.len() as u64;
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        let mut state = self.state.lock();
        state.begin_io(IoKind::Sync)?;
        let mut data = self.data.lock();
        let SimFileData {
            durable,
            current,
            pending,
        } = &mut *data;
        for change in pending.drain(..) {
            apply_change(durable, &change);
        }
        debug_assert_eq!(
            durable, current,
            "durable + pending changes must equal current"
        );
        state.syncs += 1;
        Ok(())
    }

    /// An `O_DIRECT | O_DSYNC` write as the simulation sees it: a `write_at`, then a
    /// `sync_data` of the file (two I/O operations for `fail_io_after`, and a sync for
    /// `crash_after_syncs`: a power loss there leaves the write pending, to be dropped,
    /// applied or torn like any other).
    fn write_direct(&self, buf: &[u8], offset: u64) -> io::Result<Written> {
        self.write_at(buf, offset)?;
        self.sync_data()?;
        Ok(Written::Durable)
    }

    fn len(&self) -> io::Result<u64> {
        self.state.lock().check_alive()?;
        Ok(self.data.lock().current.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.state.lock();
        state.begin_io(IoKind::Write)?;
        check_file_size(len)?;
        let mut data = self.data.lock();
        let change = PendingChange::SetLength { length: len };
        apply_change(&mut data.current, &change);
        data.pending.push(change);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A fresh directory under the system temp directory, removed on drop.
    struct TestDirectory {
        path: PathBuf,
    }

    impl TestDirectory {
        fn new(name: &str) -> TestDirectory {
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let unique = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir()
                .join(format!("pythia-vfs-{name}-{}-{unique}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            TestDirectory { path }
        }
    }

    impl Drop for TestDirectory {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }

    fn read_all(file: &dyn VfsFile) -> Vec<u8> {
        let mut bytes = vec![0; file.len().unwrap() as usize];
        file.read_at(&mut bytes, 0).unwrap();
        bytes
    }

    /// A file system with `/db` created and `/db/file` holding `synced` durably.
    fn sim_with_synced_file(seed: u64, synced: &[u8]) -> (SimVfs, Arc<dyn VfsFile>) {
        let vfs = SimVfs::new(seed);
        vfs.create_dir_all(Path::new("/db")).unwrap();
        let file = vfs.open(Path::new("/db/file"), true).unwrap();
        file.write_at(synced, 0).unwrap();
        file.sync_data().unwrap();
        (vfs, file)
    }

    fn assert_simulated_crash(result: io::Result<impl fmt::Debug>) {
        let error = result.expect_err("operation after the crash must fail");
        assert_eq!(error.kind(), io::ErrorKind::Other);
        assert_eq!(error.to_string(), "simulated crash");
    }

    #[test]
    fn os_round_trip_and_read_past_end_returns_zeros() {
        let directory = TestDirectory::new("round-trip");
        let vfs = os();
        let data_directory = directory.path.join("data/nested");
        vfs.create_dir_all(&data_directory).unwrap();
        let path = data_directory.join("system01.dbf");
        assert!(!vfs.exists(&path));
        assert_eq!(
            vfs.open(&path, false).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );

        let file = vfs.open(&path, true).unwrap();
        assert!(vfs.exists(&path));
        assert_eq!(file.len().unwrap(), 0);
        file.write_at(b"hello", 10).unwrap();
        file.sync_data().unwrap();
        assert_eq!(file.len().unwrap(), 15);

        let mut straddling = [0xAA; 20];
        file.read_at(&mut straddling, 5).unwrap();
        assert_eq!(&straddling[..5], &[0; 5]);
        assert_eq!(&straddling[5..10], b"hello");
        assert_eq!(&straddling[10..], &[0; 10]);
        let mut beyond = [0xAA; 8];
        file.read_at(&mut beyond, 1000).unwrap();
        assert_eq!(beyond, [0; 8]);

        // Opening with `create` keeps existing contents.
        let reopened = vfs.open(&path, true).unwrap();
        assert_eq!(&read_all(&*reopened)[10..], b"hello");
        reopened.set_len(12).unwrap();
        assert_eq!(file.len().unwrap(), 12);

        drop((file, reopened));
        vfs.remove(&path).unwrap();
        assert!(!vfs.exists(&path));
        assert_eq!(
            vfs.remove(&path).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    /// Direct writes, cached writes and reads of one file, interleaved over overlapping
    /// ranges, read back as one sequence of writes would: the direct descriptor and the page
    /// cache stay coherent. Unaligned direct writes fall back to cached ones.
    #[test]
    fn os_direct_and_cached_writes_of_one_file_read_back_in_order() {
        let directory = TestDirectory::new("direct");
        let path = directory.path.join("redo01.log");
        let file = OsFile {
            file: OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .unwrap(),
            path: path.clone(),
            direct: std::sync::OnceLock::new(),
            direct_refused: std::sync::atomic::AtomicBool::new(false),
        };
        let direct_allowed = open_direct(&path).is_ok();
        let mut model = vec![0u8; 64 << 10];
        let mut random = SplitMix64::new(7);
        for step in 0..400u64 {
            let value = (step % 251) as u8 + 1;
            let (offset, length) = if random.below(4) == 0 {
                (random.below(60 << 10), 1 + random.below(3000) as usize)
            } else {
                (
                    random.below(120) * DIRECT_IO_ALIGNMENT,
                    (1 + random.below(8) as usize) * DIRECT_IO_ALIGNMENT as usize,
                )
            };
            let bytes = vec![value; length];
            if random.below(3) == 0 {
                file.write_at(&bytes, offset).unwrap();
            } else {
                // Aligned direct writes are durable on return; the others fall back to the
                // cache and wait for a sync.
                let aligned = offset.is_multiple_of(DIRECT_IO_ALIGNMENT)
                    && (length as u64).is_multiple_of(DIRECT_IO_ALIGNMENT);
                let expected = if aligned && direct_allowed {
                    Written::Durable
                } else {
                    Written::NeedsSync
                };
                assert_eq!(file.write_direct(&bytes, offset).unwrap(), expected);
            }
            model[offset as usize..offset as usize + length].copy_from_slice(&bytes);
            if step % 7 == 0 {
                file.sync_data().unwrap();
            }
            let mut read = vec![0u8; model.len()];
            file.read_at(&mut read, 0).unwrap();
            assert_eq!(read, model, "after step {step}");
        }
        // Where the file system allows O_DIRECT, the aligned writes went through it.
        if direct_allowed {
            assert!(matches!(file.direct.get(), Some(Some(_))));
            assert!(!file
                .direct_refused
                .load(std::sync::atomic::Ordering::Relaxed));
        }
    }

    #[test]
    fn os_lock_directory_is_exclusive_until_the_guard_is_dropped() {
        let directory = TestDirectory::new("lock");
        let vfs = os();
        let guard = vfs.lock_directory(&directory.path).unwrap();
        let second = vfs.lock_directory(&directory.path).unwrap_err();
        assert_eq!(second.kind(), io::ErrorKind::WouldBlock);
        assert!(
            second.to_string().contains(&std::process::id().to_string()),
            "{second}"
        );
        drop(guard);
        let again = vfs.lock_directory(&directory.path).unwrap();
        drop(again);
    }

    const CHILD_LOCK_DIRECTORY_VARIABLE: &str = "PYTHIA_VFS_TEST_LOCKED_DIRECTORY";

    /// Run by `os_lock_directory_excludes_another_process` in a child process; does nothing
    /// when run on its own.
    #[test]
    fn os_lock_directory_child_process_helper() {
        let Some(directory) = std::env::var_os(CHILD_LOCK_DIRECTORY_VARIABLE) else {
            return;
        };
        let directory = PathBuf::from(directory);
        let error = os().lock_directory(&directory).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        // Proof that this helper ran, not a filter that matched no test.
        std::fs::write(directory.join("child-saw-wouldblock"), b"").unwrap();
    }

    #[test]
    fn os_lock_directory_excludes_another_process() {
        let directory = TestDirectory::new("lock-child");
        let guard = os().lock_directory(&directory.path).unwrap();
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "io::vfs::tests::os_lock_directory_child_process_helper",
            ])
            .args(["--test-threads", "1"])
            .env(CHILD_LOCK_DIRECTORY_VARIABLE, &directory.path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "child test failed: {status}");
        assert!(
            directory.path.join("child-saw-wouldblock").exists(),
            "child helper did not run"
        );
        drop(guard);
    }

    #[test]
    fn sim_round_trip_read_past_end_and_namespace() {
        let vfs = SimVfs::new(1);
        let path = Path::new("/db/redo01.log");
        // No directory yet: creating a file in it fails, as on a real file system.
        assert_eq!(
            vfs.open(path, true).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        vfs.create_dir_all(Path::new("/db")).unwrap();
        assert!(vfs.exists(Path::new("/db")));
        assert_eq!(
            vfs.open(path, false).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        let file = vfs.open(path, true).unwrap();
        file.write_at(b"hello", 10).unwrap();
        let mut straddling = [0xAA; 20];
        file.read_at(&mut straddling, 5).unwrap();
        assert_eq!(&straddling[..5], &[0; 5]);
        assert_eq!(&straddling[5..10], b"hello");
        assert_eq!(&straddling[10..], &[0; 10]);
        assert_eq!(file.len().unwrap(), 15);
        file.set_len(12).unwrap();
        assert_eq!(
            read_all(&*vfs.open(path, false).unwrap()),
            b"\0\0\0\0\0\0\0\0\0\0he"
        );
        assert_eq!(
            file.set_len(SIM_FILE_BYTES_MAX + 1).unwrap_err().kind(),
            io::ErrorKind::FileTooLarge
        );

        vfs.remove(path).unwrap();
        assert!(!vfs.exists(path));
        // An open handle keeps the unlinked data, as on Unix.
        assert_eq!(file.len().unwrap(), 12);
        assert_eq!(
            vfs.remove(path).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn sim_synced_data_survives_crash() {
        for seed in 0..32 {
            let (vfs, file) = sim_with_synced_file(seed, &[7; 3000]);
            file.write_at(&[9; 1000], 5000).unwrap();
            let after = vfs.crash();
            let image = read_all(&*after.open(Path::new("/db/file"), false).unwrap());
            assert!(image.len() >= 3000, "seed {seed}: synced length lost");
            assert!(
                image[..3000].iter().all(|&byte| byte == 7),
                "seed {seed}: synced bytes changed"
            );
            assert!(image[3000..image.len().min(5000)]
                .iter()
                .all(|&byte| byte == 0));
        }
    }

    #[test]
    fn sim_unsynced_write_is_dropped_applied_or_torn_across_seeds() {
        let (mut dropped, mut applied, mut torn_clean, mut torn_garbled) = (0, 0, 0, 0);
        for seed in 0..200 {
            let (vfs, file) = sim_with_synced_file(seed, &[b'A'; 2048]);
            // Four whole sectors, overwriting the synced ones.
            file.write_at(&[b'B'; 2048], 0).unwrap();
            let image = read_all(&*vfs.crash().open(Path::new("/db/file"), false).unwrap());
            assert_eq!(image.len(), 2048);
            if image.iter().all(|&byte| byte == b'A') {
                dropped += 1;
            } else if image.iter().all(|&byte| byte == b'B') {
                applied += 1;
            } else {
                // A prefix of whole sectors is new, the rest old, except maybe the torn sector.
                let sectors: Vec<&[u8]> = image.chunks(SIM_SECTOR_BYTES as usize).collect();
                let new_prefix = sectors
                    .iter()
                    .take_while(|sector| sector.iter().all(|&b| b == b'B'));
                let torn_sector = new_prefix.count();
                assert!(torn_sector < 4, "seed {seed}");
                let old_after = &sectors[torn_sector + 1..];
                assert!(
                    old_after
                        .iter()
                        .all(|sector| sector.iter().all(|&b| b == b'A')),
                    "seed {seed}"
                );
                if sectors[torn_sector].iter().all(|&byte| byte == b'A') {
                    torn_clean += 1;
                } else {
                    torn_garbled += 1;
                }
            }
        }
        assert!(
            dropped > 0 && applied > 0 && torn_clean > 0 && torn_garbled > 0,
            "dropped {dropped}, applied {applied}, torn {torn_clean}, garbled {torn_garbled}"
        );
    }

    #[test]
    fn sim_tear_respects_absolute_sector_boundaries_and_the_write_range() {
        for seed in 0..200 {
            let (vfs, file) = sim_with_synced_file(seed, &[b'A'; 2048]);
            // Unaligned: 100..1400 covers the tails and heads of sectors 0, 1 and 2.
            file.write_at(&[b'B'; 1300], 100).unwrap();
            let image = read_all(&*vfs.crash().open(Path::new("/db/file"), false).unwrap());
            assert!(image[..100].iter().all(|&byte| byte == b'A'), "seed {seed}");
            assert!(
                image[1400..].iter().all(|&byte| byte == b'A'),
                "seed {seed}"
            );
            // The write's pieces, cut at absolute sector boundaries: some new, then at most one
            // garbled, then old ones.
            let pieces = [&image[100..512], &image[512..1024], &image[1024..1400]];
            let all = |piece: &[u8], value: u8| piece.iter().all(|&byte| byte == value);
            let new_pieces = pieces.iter().take_while(|piece| all(piece, b'B')).count();
            let rest = &pieces[new_pieces..];
            assert!(
                rest.iter().skip(1).all(|piece| all(piece, b'A')),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn sim_crash_keep_all_keeps_unsynced_writes() {
        let (vfs, file) = sim_with_synced_file(3, b"synced");
        file.write_at(b"UNSYNCED", 6).unwrap();
        file.set_len(10).unwrap();
        let after = vfs.crash_keep_all();
        let reopened = after.open(Path::new("/db/file"), false).unwrap();
        assert_eq!(read_all(&*reopened), b"syncedUNSY");
        // The kept writes are durable on the new file system: a power loss keeps them.
        let image = read_all(&*after.crash().open(Path::new("/db/file"), false).unwrap());
        assert_eq!(image, b"syncedUNSY");
        assert_simulated_crash(file.read_at(&mut [0; 1], 0));
    }

    #[test]
    fn sim_crash_after_syncs_fails_that_sync_and_everything_after() {
        let vfs = SimVfs::new(4);
        vfs.create_dir_all(Path::new("/db")).unwrap();
        let log = vfs.open(Path::new("/db/redo01.log"), true).unwrap();
        let datafile = vfs.open(Path::new("/db/users01.dbf"), true).unwrap();
        vfs.crash_after_syncs(3);
        log.write_at(b"first", 0).unwrap();
        log.sync_data().unwrap();
        datafile.write_at(b"second", 0).unwrap();
        datafile.sync_data().unwrap();
        log.write_at(b"third", 5).unwrap();
        assert_simulated_crash(log.sync_data());
        assert_eq!(vfs.syncs(), 2);

        assert_simulated_crash(log.write_at(b"x", 0));
        assert_simulated_crash(datafile.read_at(&mut [0; 1], 0));
        assert_simulated_crash(datafile.sync_data());
        assert_simulated_crash(datafile.len());
        assert_simulated_crash(vfs.open(Path::new("/db/redo01.log"), false));
        assert_simulated_crash(vfs.create_dir_all(Path::new("/other")));
        assert!(!vfs.exists(Path::new("/db/redo01.log")));
        vfs.clear_faults();
        assert_simulated_crash(log.write_at(b"x", 0));

        let after = vfs.crash();
        let log_image = read_all(&*after.open(Path::new("/db/redo01.log"), false).unwrap());
        assert_eq!(&log_image[..5], b"first");
        let data_image = read_all(&*after.open(Path::new("/db/users01.dbf"), false).unwrap());
        assert_eq!(data_image, b"second");
    }

    #[test]
    fn sim_fail_reads_after_fails_reads_only() {
        let (vfs, file) = sim_with_synced_file(6, b"abc");
        vfs.fail_reads_after(2);
        file.write_at(b"X", 0).unwrap(); // not counted
        file.read_at(&mut [0; 3], 0).unwrap(); // read 1
        let error = file.read_at(&mut [0; 1], 0).unwrap_err(); // read 2: fails
        assert_eq!(error.to_string(), "injected I/O fault");
        assert!(
            file.read_at(&mut [0; 1], 0).is_err(),
            "and every later read"
        );
        file.write_at(b"Y", 1).unwrap();
        file.sync_data().unwrap();
        vfs.clear_faults();
        assert_eq!(read_all(&*file), b"XYc");
    }

    #[test]
    fn sim_fail_io_after_counts_reads_writes_and_syncs() {
        let (vfs, file) = sim_with_synced_file(5, b"abc");
        vfs.fail_io_after(4);
        file.read_at(&mut [0; 3], 0).unwrap(); // 1
        file.write_at(b"X", 0).unwrap(); // 2
        file.sync_data().unwrap(); // 3
                                   // Metadata operations are not counted and keep working.
        assert_eq!(file.len().unwrap(), 3);
        assert!(vfs.exists(Path::new("/db/file")));
        let error = file.write_at(b"Y", 1).unwrap_err(); // 4: fails, and has no effect
        assert_eq!(error.kind(), io::ErrorKind::Other);
        assert_eq!(error.to_string(), "injected I/O fault");
        assert!(file.read_at(&mut [0; 1], 0).is_err());
        assert!(file.sync_data().is_err());
        assert!(file.set_len(0).is_err());
        assert_eq!((vfs.writes(), vfs.syncs(), vfs.bytes_written()), (2, 2, 4));

        vfs.clear_faults();
        assert_eq!(read_all(&*file), b"Xbc");
        file.write_at(b"Y", 1).unwrap();
        file.sync_data().unwrap();
        assert_eq!(read_all(&*file), b"XYc");
        assert_eq!((vfs.writes(), vfs.syncs(), vfs.bytes_written()), (3, 3, 5));

        // Counting from 1: the very next operation.
        vfs.fail_io_after(1);
        assert!(file.read_at(&mut [0; 1], 0).is_err());
    }

    #[test]
    fn sim_old_handle_dies_and_directory_locks_do_not_survive_a_crash() {
        let vfs = SimVfs::new(6);
        let directory = Path::new("/db");
        assert_eq!(
            vfs.lock_directory(directory).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        vfs.create_dir_all(directory).unwrap();
        let guard = vfs.lock_directory(directory).unwrap();
        assert!(vfs.exists(&directory.join("lock")));
        assert_eq!(
            vfs.lock_directory(directory).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        let clone = vfs.clone();
        assert_eq!(
            clone.lock_directory(directory).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );

        let after = vfs.crash();
        let new_guard = after.lock_directory(directory).unwrap();
        assert_simulated_crash(vfs.lock_directory(directory));
        assert_simulated_crash(clone.open(Path::new("/db/lock"), false));
        drop(guard);
        assert_eq!(
            after.lock_directory(directory).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        drop(new_guard);
        drop(after.lock_directory(directory).unwrap());
    }

    #[test]
    #[should_panic(expected = "already crashed")]
    fn sim_crashing_a_dead_handle_twice_panics() {
        let vfs = SimVfs::new(7);
        let _after = vfs.crash();
        let _ = vfs.crash();
    }

    /// The image after a crash of a fixed workload, for a seed.
    fn crash_image(seed: u64) -> Vec<u8> {
        let (vfs, file) = sim_with_synced_file(seed, &[1; 1024]);
        for round in 0..8u8 {
            file.write_at(&[round + 10; 700], u64::from(round) * 300)
                .unwrap();
        }
        let after = vfs.crash();
        let file = after.open(Path::new("/db/file"), false).unwrap();
        file.write_at(&[99; 600], 100).unwrap();
        read_all(&*after.crash().open(Path::new("/db/file"), false).unwrap())
    }

    #[test]
    fn sim_is_deterministic_for_a_seed() {
        for seed in 0..8 {
            assert_eq!(crash_image(seed), crash_image(seed));
        }
        assert!((0..8).any(|seed| crash_image(seed) != crash_image(seed + 8)));
    }

    #[derive(Debug, Clone)]
    enum Step {
        Write {
            file: usize,
            offset: u64,
            length: usize,
            byte: u8,
        },
        Sync {
            file: usize,
        },
    }

    fn step_strategy() -> impl Strategy<Value = Step> {
        prop_oneof![
            3 => (0..2usize, 0..4096u64, 1..1500usize, any::<u8>())
                .prop_map(|(file, offset, length, byte)| {
                    Step::Write { file, offset, length, byte }
                }),
            1 => (0..2usize).prop_map(|file| Step::Sync { file }),
        ]
    }

    /// What a test knows about one file: its durable and current contents, and which bytes
    /// unsynced writes covered (those, and only those, a crash may change).
    #[derive(Debug, Clone, Default)]
    struct FileModel {
        durable: Vec<u8>,
        current: Vec<u8>,
        covered_since_sync: Vec<bool>,
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn sim_crash_leaves_every_synced_byte_intact(
            seed in any::<u64>(),
            steps in prop::collection::vec(step_strategy(), 1..40),
            crash_at_sync in prop::option::of(1..8u64),
        ) {
            let vfs = SimVfs::new(seed);
            vfs.create_dir_all(Path::new("/db")).unwrap();
            let paths = [Path::new("/db/users01.dbf"), Path::new("/db/redo01.log")];
            let files: Vec<Arc<dyn VfsFile>> =
                paths.iter().map(|path| vfs.open(path, true).unwrap()).collect();
            let mut models = vec![FileModel::default(); 2];
            if let Some(n) = crash_at_sync {
                vfs.crash_after_syncs(n);
            }
            let mut power_lost = false;
            for step in &steps {
                match *step {
                    Step::Write { file, offset, length, byte } => {
                        let result = files[file].write_at(&vec![byte; length], offset);
                        prop_assert_eq!(result.is_err(), power_lost);
                        if result.is_ok() {
                            let model = &mut models[file];
                            apply_write(&mut model.current, offset, &vec![byte; length]);
                            let end = offset as usize + length;
                            if model.covered_since_sync.len() < end {
                                model.covered_since_sync.resize(end, false);
                            }
                            model.covered_since_sync[offset as usize..end].fill(true);
                        }
                    }
                    Step::Sync { file } => match files[file].sync_data() {
                        Ok(()) => {
                            prop_assert!(!power_lost);
                            let model = &mut models[file];
                            model.durable = model.current.clone();
                            model.covered_since_sync.clear();
                        }
                        Err(error) => {
                            prop_assert!(crash_at_sync.is_some());
                            prop_assert_eq!(error.to_string(), "simulated crash");
                            power_lost = true;
                        }
                    },
                }
                if !power_lost {
                    for (file, model) in files.iter().zip(&models) {
                        prop_assert_eq!(&read_all(&**file), &model.current);
                    }
                }
            }

            let after = vfs.crash();
            prop_assert!(files[0].len().is_err());
            for (path, model) in paths.iter().zip(&models) {
                let image = read_all(&*after.open(path, false).unwrap());
                prop_assert!(image.len() >= model.durable.len());
                prop_assert!(image.len() <= model.current.len());
                let covered = |index: usize| model.covered_since_sync.get(index) == Some(&true);
                for (index, &byte) in image.iter().enumerate() {
                    if covered(index) {
                        continue;
                    }
                    let expected = model.durable.get(index).copied().unwrap_or(0);
                    prop_assert_eq!(byte, expected, "byte {} of {}", index, path.display());
                }
            }
        }
    }
}
