//! DBVERIFY: checks every block of a closed database's files, as Oracle's `dbv` checks a
//! datafile, and every block of its online redo logs.
//!
//! ```text
//! verify(vfs, dir)
//!   take the directory lock (an open instance holds it: ORA-01102)
//!   read control01.ctl (the newest valid slot; none: ORA-00205)
//!   per datafile, every block:  all zeros ................ empty
//!                               checksum and address good  data / index / other, by type
//!                               anything else ............ failing (ORA-01578 on a read),
//!                                 and whether dblwr.dat holds a whole image of it
//!   per online log file:        RedoLog::verify_file (redo/log/verify.rs): the blocks recovery would
//!                               read, the records in them, then each later block as
//!                               unwritten, stale, unreachable or damaged
//! ```
//!
//! It only reads. Invariants it checks, and what breaks them:
//!
//! 1. A datafile block is all zeros or passes `block::verify` (its CRC-32C, its own file and
//!    block number, the format version). A failing block is corruption, unless the
//!    double-write file holds a whole image of it: then it is a write torn by a crash, which
//!    the next open restores before applying redo ([`FileAudit::unrepairable`] is empty).
//!    After an open has recovered the database, no block may fail at all.
//! 2. A redo block past the valid run of its file is zeros, or a whole block of an older
//!    sequence or epoch (stale). A damaged block there is a torn write: expected after a
//!    power loss, never after `kill -9` (the page cache keeps every completed write, and the
//!    kernel stops a killed process's write on a page boundary, which no 512-byte redo block
//!    straddles). An unreachable block is whole redo that recovery would not read: a hole
//!    in the log, always a bug.
//!
//! The directory lock means the files are quiet while they are read: no DBWR or LGWR can tear
//! a block under the reader, so a failing block is never a false alarm (Oracle's `dbv` on an
//! online file reports those as "influx" and rereads them).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::io::block::{self, BlockId, BlockType};
use crate::io::datafile::{FileSet, DATAFILES};
use crate::io::vfs::Vfs;
use crate::redo::controlfile::ControlFile;
use crate::redo::log::{LogFileVerification, RedoLog};

/// What DBVERIFY found in one datafile: Oracle's `dbv` summary ("Total Pages Examined",
/// "Processed (Data)", "Processed (Index)", "Empty", "Failing").
#[derive(Clone, Debug, Default)]
pub struct FileAudit {
    pub file: u32,
    pub path: PathBuf,
    pub examined: u64,
    /// Heap table blocks.
    pub data: u64,
    /// B-tree branch and leaf blocks.
    pub index: u64,
    /// Every other formatted block: file header, space bitmap, segment headers, undo.
    pub other: u64,
    /// Never written (all zeros).
    pub empty: u64,
    /// Blocks that fail their checks, each with whether the double-write file holds a whole
    /// image of it (the next open restores those).
    pub failing: Vec<(BlockId, bool)>,
}

impl FileAudit {
    /// Failing blocks that no open can restore.
    pub fn unrepairable(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.failing
            .iter()
            .filter(|(_, restorable)| !restorable)
            .map(|(id, _)| *id)
    }
}

/// What DBVERIFY found in a database directory.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// From the control file: where recovery would start, and whether the last instance
    /// closed cleanly.
    pub checkpoint_lsn: u64,
    pub clean_shutdown: bool,
    /// The database's creation did not finish: the next open removes these files and creates
    /// it anew, whatever they hold.
    pub creating: bool,
    pub datafiles: Vec<FileAudit>,
    pub log_files: Vec<LogFileVerification>,
}

impl Report {
    /// Datafile and redo blocks read.
    pub fn blocks_examined(&self) -> u64 {
        self.datafiles.iter().map(|file| file.examined).sum::<u64>()
            + self.log_files.iter().map(|log| log.blocks).sum::<u64>()
    }

    /// Datafile blocks that fail their checks (restorable or not).
    pub fn datafile_blocks_failing(&self) -> usize {
        self.datafiles.iter().map(|file| file.failing.len()).sum()
    }

    /// The breaches of the invariants above that no open repairs, in words; empty when
    /// there are none. With `after_recovery`, any failing datafile block counts (an open has
    /// already restored what it could).
    pub fn problems(&self, after_recovery: bool) -> Vec<String> {
        let mut problems = Vec::new();
        for file in &self.datafiles {
            for (id, restorable) in &file.failing {
                if after_recovery || !restorable {
                    problems.push(format!("{}: {id} fails its checks", file.path.display()));
                }
            }
        }
        for log in &self.log_files {
            for number in &log.damaged {
                problems.push(format!(
                    "{}: redo block {number} is damaged",
                    log.path.display()
                ));
            }
            for number in &log.unreachable {
                problems.push(format!(
                    "{}: redo block {number} is whole redo past a hole",
                    log.path.display()
                ));
            }
        }
        problems
    }
}

/// Runs DBVERIFY on the closed database in `dir` (see the module documentation).
pub fn verify(vfs: &dyn Vfs, dir: &Path) -> Result<Report> {
    if !ControlFile::exists(vfs, dir) {
        return Err(Error::new(
            205,
            format!(
                "error in identifying control file: no {} in {}",
                ControlFile::NAME,
                dir.display()
            ),
        ));
    }
    let _lock = super::lock_directory(vfs, dir)?;
    let control = ControlFile::open(vfs, dir)?.read()?.ok_or_else(|| {
        Error::new(
            205,
            format!(
                "error in identifying control file: {} holds no valid version",
                dir.join(ControlFile::NAME).display()
            ),
        )
    })?;
    // FileSet::open and RedoLog::open create missing files: a database always has them all,
    // and DBVERIFY must not make one up.
    let log_names = RedoLog::file_names(control.log_groups);
    let names = DATAFILES
        .iter()
        .map(|(_, name)| *name)
        .chain(log_names.iter().map(String::as_str));
    if let Some(missing) = names
        .map(|name| dir.join(name))
        .find(|path| !vfs.exists(path))
    {
        return Err(Error::new(
            1157,
            format!(
                "cannot identify/lock data file {} - see DBWR trace file",
                missing.display()
            ),
        ));
    }
    let block_size = control.block_size as usize;
    let files = FileSet::open(vfs, dir, block_size)?;
    let restorable = files.double_write_blocks()?;
    let mut report = Report {
        checkpoint_lsn: control.checkpoint_lsn,
        clean_shutdown: control.clean_shutdown,
        creating: control.creating,
        ..Default::default()
    };
    let mut image = vec![0u8; block_size];
    for (number, path) in files.files() {
        let mut audit = FileAudit {
            file: number,
            path: path.to_path_buf(),
            ..Default::default()
        };
        for block_number in 0..files.blocks(number)? {
            let id = BlockId::new(number, block_number as u32);
            files.read_block_unchecked(id, &mut image)?;
            audit.examined += 1;
            if image.iter().all(|&byte| byte == 0) {
                audit.empty += 1;
            } else if block::verify(&image, id).is_err() {
                audit.failing.push((id, restorable.contains(&id)));
            } else {
                match block::block_type(&image) {
                    BlockType::HeapData => audit.data += 1,
                    BlockType::BtreeLeaf | BlockType::BtreeBranch => audit.index += 1,
                    _ => audit.other += 1,
                }
            }
        }
        report.datafiles.push(audit);
    }
    let log = RedoLog::open(vfs, dir, control.log_groups, control.log_file_size, 0)?;
    for group in log.groups() {
        report.log_files.push(log.verify_file(group)?);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Instance, InstanceConfig};
    use crate::io::vfs::SimVfs;
    use std::sync::Arc;

    const DIR: &str = "/db";

    /// A database in `DIR` on a simulated disk after `statements` and a clean shutdown; before
    /// the shutdown, `while_open` runs with the instance open.
    fn closed_database(
        seed: u64,
        statements: &[String],
        while_open: impl FnOnce(&SimVfs),
    ) -> SimVfs {
        let vfs = SimVfs::new(seed);
        let config = InstanceConfig {
            cache_bytes: 2 << 20,
            log_file_size: 1 << 20,
            undo_bytes: 2 << 20,
            ..Default::default()
        };
        let instance = Instance::open_with(Arc::new(vfs.clone()), Path::new(DIR), config).unwrap();
        let mut session = instance.connect().unwrap();
        for statement in statements {
            session.execute(statement).unwrap();
        }
        while_open(&vfs);
        drop(session);
        instance.shutdown().unwrap();
        vfs
    }

    #[test]
    fn a_clean_database_verifies_and_an_open_one_is_refused() {
        let dir = Path::new(DIR);
        let statements: Vec<String> =
            std::iter::once("create table t (id number primary key, v varchar2(100))".into())
                .chain(
                    (0..200).map(|id| format!("insert into t values ({id}, rpad('x', 90, 'y'))")),
                )
                .chain(std::iter::once("commit".into()))
                .collect();
        let vfs = closed_database(1, &statements, |vfs| {
            assert_eq!(verify(vfs, dir).unwrap_err().code(), 1102);
        });

        let report = verify(&vfs, dir).unwrap();
        assert!(report.clean_shutdown);
        assert_eq!(report.problems(true), Vec::<String>::new());
        let system = &report.datafiles[0];
        assert!(system.data > 0 && system.index > 0 && system.other > 0);
        assert_eq!(
            system.examined,
            system.data + system.index + system.other + system.empty
        );
        let log = &report.log_files[0];
        assert_eq!(log.sequence, Some(1));
        assert!(log.valid > 0 && log.records > 0);
        assert_eq!(log.cut_bytes, 0);
        assert_eq!(log.valid + log.unwritten + log.stale, log.blocks);
    }

    /// A flipped byte in a datafile block and in a written redo block: both are found.
    #[test]
    fn a_flipped_byte_is_found_in_a_datafile_and_in_the_redo() {
        let dir = Path::new(DIR);
        let statements = [
            "create table t (id number)",
            "insert into t values (1)",
            "commit",
        ];
        let statements: Vec<String> = statements.map(String::from).to_vec();
        let vfs = closed_database(2, &statements, |_| {});
        let before = verify(&vfs, dir).unwrap();
        let log = &before.log_files[0];
        let flip = |name: &str, offset: u64| {
            let file = vfs.open(&dir.join(name), false).unwrap();
            let mut byte = [0u8];
            file.read_at(&mut byte, offset).unwrap();
            byte[0] ^= 0x40;
            file.write_at(&byte, offset).unwrap();
        };
        // Block 1 of the system file (the space bitmap), and the last valid redo block: the
        // blocks after it are unwritten, so it is not part of the valid run any more.
        flip("system01.dbf", 8192 + 100);
        flip("redo01.log", log.valid * 512 + 100);
        let after = verify(&vfs, dir).unwrap();
        let failing: Vec<BlockId> = after.datafiles[0]
            .failing
            .iter()
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(failing, vec![BlockId::new(1, 1)]);
        assert_eq!(after.log_files[0].valid, log.valid - 1);
        assert_eq!(after.log_files[0].damaged, vec![log.valid]);
        assert_eq!(after.problems(true).len(), 2);
    }
}
