//! The control file: what the instance must know before it can read anything else.
//!
//! `control01.ctl` holds two slots of 512 bytes. A write goes to the slot that does not hold
//! the newest version and is synced; a torn write damages only that slot, and the other still
//! holds the previous version. Reading takes the valid slot with the highest version.
//!
//! ```text
//! slot layout (little endian)
//!   0  8 magic "PYTHCTL1"
//!   8  4 CRC-32C of bytes 12..512
//!  12  8 version               incremented by every write
//!  20  8 database id
//!  28  4 db_block_size
//!  32  4 log group count
//!  36  8 log file size in bytes
//!  44  8 checkpoint LSN        recovery starts here
//!  52  8 checkpoint sequence   the log sequence holding the checkpoint LSN
//!  60  8 checkpoint sequence start LSN
//!  68  8 checkpoint SCN
//!  76  8 reserved xid limit    transaction ids below this may have been used
//!  84  8 creation time         seconds since 1970
//!  92  4 undo blocks           size of the undo file in blocks
//!  96  1 clean shutdown        1 when the instance closed cleanly
//!  97  1 creating              1 from the first write of a new database until its first open
//!                              has made it whole (see `Instance::open`); 0 afterwards
//! 100  4 epoch                 incremented at every open; stamped in redo blocks
//! 104  8 archived sequence     every log sequence up to it is archived, or needs no archiving
//!                              (see `redo/archive.rs`); 0 in control files from before it
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::instrumentation::{self, WaitEvent};
use crate::io::block::{read_u32, read_u64, write_u32, write_u64};
use crate::io::vfs::{Vfs, VfsFile};

const SLOT_BYTES: usize = 512;
const MAGIC: &[u8; 8] = b"PYTHCTL1";

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ControlData {
    pub version: u64,
    pub database_id: u64,
    pub block_size: u32,
    pub log_groups: u32,
    pub log_file_size: u64,
    pub checkpoint_lsn: u64,
    pub checkpoint_sequence: u64,
    pub checkpoint_sequence_start: u64,
    pub checkpoint_scn: u64,
    pub xid_limit: u64,
    pub created: u64,
    pub undo_blocks: u32,
    pub clean_shutdown: bool,
    /// The database's creation has not finished: an open finding this creates it anew.
    pub creating: bool,
    pub epoch: u32,
    pub archived_sequence: u64,
}

pub struct ControlFile {
    path: PathBuf,
    file: Arc<dyn VfsFile>,
}

impl ControlFile {
    pub const NAME: &'static str = "control01.ctl";

    pub fn exists(vfs: &dyn Vfs, dir: &Path) -> bool {
        vfs.exists(&dir.join(Self::NAME))
    }

    pub fn open(vfs: &dyn Vfs, dir: &Path) -> Result<ControlFile> {
        let path = dir.join(Self::NAME);
        let file = vfs
            .open(&path, true)
            .map_err(|error| Error::io(&path, error))?;
        Ok(ControlFile { path, file })
    }

    /// The newest valid version, or None when neither slot is valid (a new database).
    pub fn read(&self) -> Result<Option<ControlData>> {
        let _wait = instrumentation::wait(WaitEvent::ControlFileSequentialRead, 0, 0, 0);
        let mut bytes = vec![0u8; SLOT_BYTES * 2];
        self.file
            .read_at(&mut bytes, 0)
            .map_err(|error| Error::io(&self.path, error))?;
        let newest = bytes
            .chunks_exact(SLOT_BYTES)
            .filter_map(decode)
            .max_by_key(|data| data.version);
        Ok(newest)
    }

    /// Writes a new version into the older slot and syncs it.
    pub fn write(&self, data: &mut ControlData) -> Result<()> {
        data.version += 1;
        let slot = data.version % 2;
        let bytes = encode(data);
        let _wait = instrumentation::wait(WaitEvent::ControlFileParallelWrite, 1, 0, 1);
        let io = |error| Error::io(&self.path, error);
        self.file
            .write_at(&bytes, slot * SLOT_BYTES as u64)
            .map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

fn encode(data: &ControlData) -> Vec<u8> {
    let mut slot = vec![0u8; SLOT_BYTES];
    slot[0..8].copy_from_slice(MAGIC);
    write_u64(&mut slot, 12, data.version);
    write_u64(&mut slot, 20, data.database_id);
    write_u32(&mut slot, 28, data.block_size);
    write_u32(&mut slot, 32, data.log_groups);
    write_u64(&mut slot, 36, data.log_file_size);
    write_u64(&mut slot, 44, data.checkpoint_lsn);
    write_u64(&mut slot, 52, data.checkpoint_sequence);
    write_u64(&mut slot, 60, data.checkpoint_sequence_start);
    write_u64(&mut slot, 68, data.checkpoint_scn);
    write_u64(&mut slot, 76, data.xid_limit);
    write_u64(&mut slot, 84, data.created);
    write_u32(&mut slot, 92, data.undo_blocks);
    slot[96] = data.clean_shutdown as u8;
    slot[97] = data.creating as u8;
    write_u32(&mut slot, 100, data.epoch);
    write_u64(&mut slot, 104, data.archived_sequence);
    let checksum = crc32c::crc32c(&slot[12..]);
    write_u32(&mut slot, 8, checksum);
    slot
}

fn decode(slot: &[u8]) -> Option<ControlData> {
    if &slot[0..8] != MAGIC || read_u32(slot, 8) != crc32c::crc32c(&slot[12..]) {
        return None;
    }
    Some(ControlData {
        version: read_u64(slot, 12),
        database_id: read_u64(slot, 20),
        block_size: read_u32(slot, 28),
        log_groups: read_u32(slot, 32),
        log_file_size: read_u64(slot, 36),
        checkpoint_lsn: read_u64(slot, 44),
        checkpoint_sequence: read_u64(slot, 52),
        checkpoint_sequence_start: read_u64(slot, 60),
        checkpoint_scn: read_u64(slot, 68),
        xid_limit: read_u64(slot, 76),
        created: read_u64(slot, 84),
        undo_blocks: read_u32(slot, 92),
        clean_shutdown: slot[96] != 0,
        creating: slot[97] != 0,
        epoch: read_u32(slot, 100),
        archived_sequence: read_u64(slot, 104),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::vfs::SimVfs;

    #[test]
    fn newest_valid_slot_wins_and_a_torn_write_leaves_the_previous_version() {
        let vfs = SimVfs::new(7);
        let dir = Path::new("/db");
        vfs.create_dir_all(dir).unwrap();
        let control = ControlFile::open(&vfs, dir).unwrap();
        assert_eq!(control.read().unwrap(), None);
        let mut data = ControlData {
            block_size: 8192,
            checkpoint_lsn: 10,
            ..Default::default()
        };
        control.write(&mut data).unwrap();
        data.checkpoint_lsn = 20;
        control.write(&mut data).unwrap();
        assert_eq!(control.read().unwrap().unwrap().checkpoint_lsn, 20);
        // Damage the newest slot: the previous version is read.
        let raw = vfs.open(&dir.join(ControlFile::NAME), false).unwrap();
        raw.write_at(&[0xFF; 16], (data.version % 2) * SLOT_BYTES as u64 + 40)
            .unwrap();
        assert_eq!(control.read().unwrap().unwrap().checkpoint_lsn, 10);
    }
}
