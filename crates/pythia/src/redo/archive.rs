//! ARC0: archiving full log sequences to `log_archive_dest`.
//!
//! With `log_archive_dest` empty the database runs in NOARCHIVELOG mode: a log group is
//! reused once the checkpoint has passed its sequence, and its redo is gone. Set to a
//! directory, every sequence that a log switch completes is copied there by the ARC0 thread,
//! and its group is not reused until the copy is complete (the rule is in `redo/log/switch.rs`):
//!
//! ```text
//!   log switch (s -> s+1) --post--> ARC0: wait until s is whole on disk (LGWR wrote into s+1)
//!                                         copy s's valid redo blocks, group -> <dest>/arch_<s>.arc
//!                                         read the copy back: every block's CRC-32C, sequence
//!                                           and block number
//!                                         sync; write the header (block 0); sync
//!                                         control file: archived sequence = s
//!                                         RedoLog::archived_through(s): the group may be reused
//! ```
//!
//! The archived log is named `arch_<sequence>.arc` (Oracle's `%s`, the sequence number, in a
//! fixed `log_archive_format`). It is a log file: the same header and the same 512-byte redo
//! blocks, copied unchanged (so their checksums, sequence, block numbers and epochs are the
//! online log's), in the format `redo/log/mod.rs` describes, with the header's archive fields filled:
//!
//! ```text
//! archive header (block 0): the log file header, and
//!  44  8 next LSN: where the next sequence starts (the sequence's start + its capacity)
//!  52  8 next time: when the next sequence began, seconds since 1970 (0: not recorded)
//!  60  8 completion time: when the archive was completed, seconds since 1970
//!  68  4 redo blocks: how many redo blocks follow the header
//! ```
//!
//! What is copied: the sequence's redo blocks from block 1 on, as long as each is valid
//! (`RedoLog::check_block`): the sequence ends at the first block never written, or left by
//! an earlier use of the group or an earlier incarnation. A torn or corrupt block there is an
//! error (ORA-00354), not an end: a switched-out sequence was synced whole before the next
//! one began, and recovery overwrites a block torn by a crash, so a damaged block in it is
//! corruption, and the archive would silently lack the redo after it.
//!
//! Invariants:
//! 1. The header is written last, after the blocks are synced, and synced itself: a file
//!    with a valid header is complete. A file without one is rewritten from the start.
//! 2. Sequences are archived in order. The control file's archived sequence says every
//!    sequence up to it is archived, or needs no archiving: sequences that were overwritten
//!    while archiving was off are skipped (and the alert log says so) when it is turned on.
//! 3. No group is reused before its sequence is archived while archiving is on: redo is never
//!    lost for want of archiving. Sessions wait instead (`redo/log/switch.rs`).
//! 4. At open the archived sequence is lowered below the current sequence (recovery may have
//!    ended in an earlier sequence than the control file recorded): a sequence number used
//!    again is archived again, over the old file.
//!
//! v$archived_log shows a list kept in memory, at most [`ARCHIVED_LOG_ROWS_MAX`] rows:
//! rebuilt at open (and when the destination changes) from the headers of the destination's
//! files, from the control file's archived sequence downwards until a file is missing or not a
//! valid archive, then extended by each log archived.
//!
//! Failure: an archive that cannot be written (the destination is missing or unwritable, a
//! write or sync fails, the copy does not check) leaves the group unarchived; ARC0 tells the
//! alert log, Oracle style (ORA-16038 with ORA-19504, ORA-19502 or ORA-00354, then "ARCH:
//! Archival stopped, error occurred. Will continue retrying"), once per
//! distinct error, and tries again every [`ARCHIVE_RETRY_INTERVAL`] and at every log switch.
//! The database keeps working until every other group waits for archiving; then an appender
//! that needs a group waits on 'log file switch (archiving needed)', in waits of at most
//! 100 ms each, until ARC0 succeeds (the directory fixed, or `ALTER SYSTEM SET
//! log_archive_dest` to another), archiving is turned off (`log_archive_dest` set empty), or
//! the instance shuts down (ORA-01089). There is no time limit after which redo is given up.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::instrumentation::{self, WaitEvent};
use crate::io::vfs::{Vfs, VfsFile};
use crate::redo::log::{now_seconds, BlockFault, FileHeader, RedoLog, REDO_BLOCK_BYTES};

/// ARC0 tries a failed archive again after this long (Oracle's `REOPEN` attribute of a
/// destination, 300 seconds by default), and at every log switch.
pub const ARCHIVE_RETRY_INTERVAL: Duration = Duration::from_secs(5);
/// v$archived_log keeps at most this many rows, the newest.
pub const ARCHIVED_LOG_ROWS_MAX: usize = 1024;
/// ARC0 copies this many redo blocks (64 KiB) per read and write.
const COPY_CHUNK_BLOCKS: usize = 128;

/// The name of sequence `sequence`'s archived log in the destination.
pub fn archive_name(sequence: u64) -> String {
    format!("arch_{sequence}.arc")
}

/// Records in the control file that every sequence up to the argument is archived.
pub type ArchivedRecorder = Box<dyn Fn(u64) -> Result<()> + Send + Sync>;

/// One archived log, as v$archived_log shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchivedLog {
    pub path: PathBuf,
    /// The archive's header: sequence, first and next LSN and time, blocks, completion time.
    pub header: FileHeader,
}

/// ARC0's state; the instance runs [`Archiver::run`] on the thread ARC0.
pub struct Archiver {
    log: Arc<RedoLog>,
    vfs: Arc<dyn Vfs>,
    destination: Mutex<Option<PathBuf>>,
    archived: Mutex<VecDeque<ArchivedLog>>,
    record: ArchivedRecorder,
    posted: Mutex<bool>,
    posted_ready: Condvar,
    shutdown: AtomicBool,
    /// Whether the instance has started the ARC0 thread.
    thread_started: AtomicBool,
    /// The failure last told to the alert log: a retry failing the same way stays quiet.
    failure_reported: Mutex<Option<String>>,
}

/// `log_archive_dest` as a directory, or None (empty: no archiving).
fn destination_of(text: &str) -> Option<PathBuf> {
    let text = text.trim();
    (!text.is_empty()).then(|| PathBuf::from(text))
}

impl Archiver {
    /// The archiver of `log`, archiving to `destination` (`log_archive_dest`; empty: off).
    /// The log's archived sequence must already be set (from the control file).
    pub fn new(
        log: Arc<RedoLog>,
        vfs: Arc<dyn Vfs>,
        destination: &str,
        record: ArchivedRecorder,
    ) -> Arc<Archiver> {
        let archiver = Arc::new(Archiver {
            log: log.clone(),
            vfs,
            destination: Mutex::new(None),
            archived: Mutex::new(VecDeque::new()),
            record,
            posted: Mutex::new(false),
            posted_ready: Condvar::new(),
            shutdown: AtomicBool::new(false),
            thread_started: AtomicBool::new(false),
            failure_reported: Mutex::new(None),
        });
        let weak = Arc::downgrade(&archiver);
        log.set_archiver_post(Arc::new(move || {
            if let Some(archiver) = weak.upgrade() {
                archiver.post();
            }
        }));
        archiver.set_destination(destination);
        archiver
    }

    /// `ALTER SYSTEM SET log_archive_dest`: the next log is archived to `destination`;
    /// empty turns archiving off (and releases the sessions waiting for it).
    pub fn set_destination(&self, destination: &str) {
        let destination = destination_of(destination);
        let listed = match &destination {
            Some(directory) => self.read_archived_logs(directory),
            None => VecDeque::new(),
        };
        let on = destination.is_some();
        *self.destination.lock() = destination;
        *self.archived.lock() = listed;
        *self.failure_reported.lock() = None;
        self.log.set_archive_required(on);
        self.post();
    }

    pub fn destination(&self) -> Option<PathBuf> {
        self.destination.lock().clone()
    }

    /// True once, when archiving is on and ARC0 is not running yet: the caller starts it.
    pub fn claim_thread(&self) -> bool {
        self.destination.lock().is_some() && !self.thread_started.swap(true, Ordering::AcqRel)
    }

    /// v$archived_log's rows, oldest first.
    pub fn archived_logs(&self) -> Vec<ArchivedLog> {
        self.archived.lock().iter().cloned().collect()
    }

    pub fn log(&self) -> &Arc<RedoLog> {
        &self.log
    }

    /// Wakes ARC0 (a log switch, or a session waiting for archiving).
    pub fn post(&self) {
        let mut posted = self.posted.lock();
        *posted = true;
        self.posted_ready.notify_one();
    }

    /// Asks ARC0 to stop (an archive in progress is abandoned; its file has no header).
    pub fn shutdown(&self) {
        self.shutdown.store(true, Ordering::Release);
        self.post();
    }

    /// ARC0's main loop: archives what may be archived each time it is posted, and every
    /// [`ARCHIVE_RETRY_INTERVAL`]. Returns at shutdown.
    pub fn run(&self) {
        while !self.shutdown.load(Ordering::Acquire) {
            match self.archive_pending() {
                Ok(()) => {}
                Err(error) if self.shutdown.load(Ordering::Acquire) => drop(error),
                Err(error) => self.report_failure(&error),
            }
            let mut posted = self.posted.lock();
            if !*posted && !self.shutdown.load(Ordering::Acquire) {
                let timeout_centiseconds = ARCHIVE_RETRY_INTERVAL.as_millis() as u64 / 10;
                let _idle =
                    instrumentation::wait(WaitEvent::RdbmsIpcMessage, timeout_centiseconds, 0, 0);
                self.posted_ready
                    .wait_for(&mut posted, ARCHIVE_RETRY_INTERVAL);
            }
            *posted = false;
        }
    }

    /// Archives, in order, every sequence before the current one that is not archived yet.
    pub fn archive_pending(&self) -> Result<()> {
        let log = &self.log;
        let groups = log.group_count() as u64;
        // Each pass archives or skips at least one sequence, and at most `groups - 1`
        // sequences are online and switched out.
        for _ in 0..=groups {
            let Some(directory) = self.destination() else {
                return Ok(());
            };
            let next = log.archived_sequence() + 1;
            let (current, current_start) = log.current_position();
            if next >= current {
                return Ok(());
            }
            let oldest_online = current.saturating_sub(groups - 1).max(1);
            if next < oldest_online {
                // Overwritten while archiving was off: nothing left to archive.
                let skipped = oldest_online - 1;
                (self.record)(skipped)?;
                log.archived_through(skipped);
                log.alert(&format!(
                    "ARC0: log sequences {next} to {skipped} were not archived: they were \
                     overwritten while archiving was off"
                ));
                continue;
            }
            let start = current_start - (current - next) * log.capacity();
            // Whole on disk first: LGWR has written into the next sequence.
            log.flush_to(start + log.capacity())?;
            let group = log.group_of(next);
            let held = log.held_sequence(group);
            if (held.sequence, held.start_lsn) != (next, start) {
                return Err(Error::internal(format!(
                    "log group {} holds sequence {} from LSN {}, not sequence {next} from LSN {start}",
                    group.group, held.sequence, held.start_lsn
                )));
            }
            let archived = self.archive_sequence(&directory, held).map_err(|error| {
                Error::new(
                    16038,
                    format!(
                        "log {} sequence# {next} cannot be archived\n{error}",
                        group.group
                    ),
                )
            })?;
            (self.record)(next)?;
            log.archived_through(next);
            self.report_success(&archived);
            let mut listed = self.archived.lock();
            listed.retain(|known| known.header.sequence < next);
            listed.push_back(archived);
            while listed.len() > ARCHIVED_LOG_ROWS_MAX {
                listed.pop_front();
            }
        }
        Ok(())
    }

    /// Copies the sequence `held` describes from its group to `directory`, checks the copy,
    /// and writes its header last.
    fn archive_sequence(&self, directory: &Path, held: FileHeader) -> Result<ArchivedLog> {
        let log = &self.log;
        let sequence = held.sequence;
        let group = log.group_of(sequence);
        let path = directory.join(archive_name(sequence));
        let created = |error: std::io::Error| {
            Error::new(
                19504,
                format!("failed to create file \"{}\": {error}", path.display()),
            )
        };
        let archive = self.vfs.open(&path, true).map_err(created)?;
        archive.set_len(0).map_err(created)?;
        let write_error = |block: u64, error: std::io::Error| {
            Error::new(
                19502,
                format!(
                    "write error on file \"{}\", block number {block} (block size={REDO_BLOCK_BYTES}): {error}",
                    path.display()
                ),
            )
        };
        let total_blocks = log.file_size() / REDO_BLOCK_BYTES as u64 - 1;
        let mut buffer = vec![0u8; COPY_CHUNK_BLOCKS * REDO_BLOCK_BYTES];
        let mut blocks = 0u64;
        let mut epoch = 0u32;
        'copy: while blocks < total_blocks {
            if self.shutdown.load(Ordering::Acquire) {
                return Err(Error::shutdown_in_progress());
            }
            let count = (total_blocks - blocks).min(COPY_CHUNK_BLOCKS as u64) as usize;
            let bytes = &mut buffer[..count * REDO_BLOCK_BYTES];
            let position = (blocks + 1) * REDO_BLOCK_BYTES as u64;
            {
                let _wait = instrumentation::wait(
                    WaitEvent::LogFileSequentialRead,
                    group.group as u64,
                    blocks + 1,
                    count as u64,
                );
                group
                    .file
                    .read_at(bytes, position)
                    .map_err(|error| Error::io(&group.path, error))?;
            }
            let mut valid = 0usize;
            let mut ended = None;
            for index in 0..count {
                let block = &bytes[index * REDO_BLOCK_BYTES..(index + 1) * REDO_BLOCK_BYTES];
                let number = blocks + 1 + index as u64;
                match RedoLog::check_block(block, sequence, number, epoch) {
                    Ok(block_epoch) => {
                        epoch = block_epoch;
                        valid += 1;
                    }
                    Err(fault) => {
                        ended = Some((number, fault));
                        break;
                    }
                }
            }
            if valid > 0 {
                let _wait = instrumentation::wait(WaitEvent::LogArchiveIo, 1, 0, 0);
                archive
                    .write_at(&bytes[..valid * REDO_BLOCK_BYTES], position)
                    .map_err(|error| write_error(blocks + 1, error))?;
            }
            blocks += valid as u64;
            if let Some((number, fault)) = ended {
                if fault.is_damage() {
                    return Err(corrupt(&group.path, sequence, number, fault));
                }
                break 'copy;
            }
        }
        {
            let _wait = instrumentation::wait(WaitEvent::LogArchiveIo, 1, 0, 0);
            archive
                .sync_data()
                .map_err(|error| write_error(blocks, error))?;
        }
        verify_blocks(archive.as_ref(), &path, sequence, blocks)?;
        let next = log.held_sequence(log.group_of(sequence + 1));
        let header = FileHeader {
            next_lsn: held.start_lsn + log.capacity(),
            next_time: if next.sequence == sequence + 1 {
                next.first_time
            } else {
                0
            },
            completion_time: now_seconds(),
            blocks: blocks as u32,
            ..held
        };
        {
            let _wait = instrumentation::wait(WaitEvent::LogArchiveIo, 1, 0, 0);
            archive
                .write_at(&header.encode(), 0)
                .map_err(|error| write_error(0, error))?;
            archive.sync_data().map_err(|error| write_error(0, error))?;
        }
        Ok(ArchivedLog { path, header })
    }

    /// The archived logs in `directory` for v$archived_log: from the archived sequence
    /// downwards, while each file holds a valid archive of its sequence.
    fn read_archived_logs(&self, directory: &Path) -> VecDeque<ArchivedLog> {
        let mut listed = VecDeque::new();
        let mut sequence = self.log.archived_sequence();
        while sequence > 0 && listed.len() < ARCHIVED_LOG_ROWS_MAX {
            match read_archive_header(self.vfs.as_ref(), &directory.join(archive_name(sequence))) {
                Some(archived) if archived.header.sequence == sequence => {
                    listed.push_front(archived)
                }
                _ => break,
            }
            sequence -= 1;
        }
        listed
    }

    fn report_failure(&self, error: &Error) {
        let text = error.to_string();
        let mut reported = self.failure_reported.lock();
        if reported.as_deref() == Some(text.as_str()) {
            return;
        }
        *reported = Some(text.clone());
        drop(reported);
        self.log.alert(&format!(
            "{text}\nARCH: Archival stopped, error occurred. Will continue retrying every {} seconds and at each log switch; once every online log needs archiving, sessions wait on 'log file switch (archiving needed)'",
            ARCHIVE_RETRY_INTERVAL.as_secs()
        ));
    }

    fn report_success(&self, archived: &ArchivedLog) {
        let resumed = self.failure_reported.lock().take().is_some();
        let header = &archived.header;
        self.log.alert(&format!(
            "{}ARC0: Archived log {} sequence# {} to '{}' ({} redo blocks)",
            if resumed {
                "ARC0: Archival resumed\n"
            } else {
                ""
            },
            header.group,
            header.sequence,
            archived.path.display(),
            header.blocks
        ));
    }
}

/// ORA-00354 for a damaged block in a switched-out sequence.
fn corrupt(path: &Path, sequence: u64, block: u64, fault: BlockFault) -> Error {
    Error::new(
        354,
        format!(
            "corrupt redo log block header\nORA-00353: log corruption near block {block} of sequence {sequence} ({fault:?}) in {}",
            path.display()
        ),
    )
}

/// Reads back the `blocks` redo blocks of an archive just written: each must pass its
/// CRC-32C and carry its sequence and block number (the check paired with the copy's).
fn verify_blocks(archive: &dyn VfsFile, path: &Path, sequence: u64, blocks: u64) -> Result<()> {
    let mut buffer = vec![0u8; COPY_CHUNK_BLOCKS * REDO_BLOCK_BYTES];
    let mut checked = 0u64;
    while checked < blocks {
        let count = (blocks - checked).min(COPY_CHUNK_BLOCKS as u64) as usize;
        let bytes = &mut buffer[..count * REDO_BLOCK_BYTES];
        archive
            .read_at(bytes, (checked + 1) * REDO_BLOCK_BYTES as u64)
            .map_err(|error| Error::io(path, error))?;
        for index in 0..count {
            let block = &bytes[index * REDO_BLOCK_BYTES..(index + 1) * REDO_BLOCK_BYTES];
            let number = checked + 1 + index as u64;
            if let Err(fault) = RedoLog::check_block(block, sequence, number, 0) {
                return Err(corrupt(path, sequence, number, fault));
            }
        }
        checked += count as u64;
    }
    Ok(())
}

/// The archive at `path`, if it is one (a valid header; the blocks are not read).
pub fn read_archive_header(vfs: &dyn Vfs, path: &Path) -> Option<ArchivedLog> {
    if !vfs.exists(path) {
        return None;
    }
    let file = vfs.open(path, false).ok()?;
    let mut block = vec![0u8; REDO_BLOCK_BYTES];
    file.read_at(&mut block, 0).ok()?;
    let header = FileHeader::decode(&block)?;
    Some(ArchivedLog {
        path: path.to_path_buf(),
        header,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::block::BlockId;
    use crate::io::vfs::SimVfs;
    use crate::redo::log::{StreamPosition, LOG_BUFFER_BYTES_MIN};
    use crate::redo::record::{self, RecordBuilder};

    /// A valid redo record of 1000 bytes.
    fn record() -> Vec<u8> {
        let before = vec![0u8; 2048];
        let mut after = before.clone();
        let changed = 1000 - record::RECORD_HEADER_BYTES - record::VECTOR_HEADER_BYTES - 4;
        after[100..100 + changed].fill(0xAB);
        let mut builder = RecordBuilder::new(1, 0);
        assert!(builder.push_vector(BlockId::new(1, 1), &before, &after, false));
        builder.finish()
    }

    /// A log of `groups` groups of 8 KiB on `vfs`, at the start of sequence 1, whose
    /// checkpoints never hold a switch back; the alert log's messages go to the vector.
    fn started_log(vfs: &SimVfs, groups: u32) -> (Arc<RedoLog>, Arc<Mutex<Vec<String>>>) {
        let dir = Path::new("/db");
        vfs.create_dir_all(dir).unwrap();
        let log = RedoLog::open(vfs, dir, groups, 8 << 10, LOG_BUFFER_BYTES_MIN).unwrap();
        let start = StreamPosition {
            sequence: 1,
            sequence_start_lsn: 0,
            next_lsn: 0,
        };
        log.start_at(start, 0, 1).unwrap();
        log.checkpoint_completed(u64::MAX);
        let alerts = Arc::new(Mutex::new(Vec::new()));
        let kept = alerts.clone();
        log.set_alert(Arc::new(move |message: &str| {
            kept.lock().push(message.to_string())
        }));
        (Arc::new(log), alerts)
    }

    /// An archiver to `destination` that records the archived sequences in the vector.
    fn archiver_of(
        log: &Arc<RedoLog>,
        vfs: &SimVfs,
        destination: &str,
    ) -> (Arc<Archiver>, Arc<Mutex<Vec<u64>>>) {
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let kept = recorded.clone();
        let archiver = Archiver::new(
            log.clone(),
            Arc::new(vfs.clone()),
            destination,
            Box::new(move |sequence| {
                kept.lock().push(sequence);
                Ok(())
            }),
        );
        (archiver, recorded)
    }

    /// Appends records until the log is in `sequence`; returns their LSNs. Bounded by the
    /// records that many sequences hold.
    fn append_until_sequence(log: &RedoLog, sequence: u64) -> Vec<u64> {
        let mut lsns = Vec::new();
        for _ in 0..sequence * (log.capacity() / 1000 + 1) {
            if log.current_sequence() >= sequence {
                return lsns;
            }
            lsns.push(log.append(&record()).unwrap().0);
        }
        panic!("sequence {sequence} never reached");
    }

    /// The LSNs of the records in the archive at `path`, checking every block on the way.
    fn records_in_archive(vfs: &SimVfs, path: &Path) -> Vec<u64> {
        let archived = read_archive_header(vfs, path).expect("a valid archive header");
        let header = archived.header;
        let file = vfs.open(path, false).unwrap();
        assert_eq!(
            file.len().unwrap(),
            (header.blocks as u64 + 1) * REDO_BLOCK_BYTES as u64
        );
        let mut stream = Vec::new();
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        for number in 1..=header.blocks as u64 {
            file.read_at(&mut block, number * REDO_BLOCK_BYTES as u64)
                .unwrap();
            RedoLog::check_block(&block, header.sequence, number, 0).unwrap();
            stream.extend_from_slice(&block[crate::redo::log::REDO_BLOCK_HEADER_BYTES..]);
        }
        RedoLog::split_records(&stream, header.start_lsn, header.start_lsn)
            .0
            .into_iter()
            .map(|(lsn, _)| lsn)
            .collect()
    }

    /// Archives hold every record of their sequence, whole and checked, and a group is
    /// reused once its sequence is archived; the list v$archived_log shows is rebuilt from
    /// the files by a new archiver (an open), up to the first file missing.
    #[test]
    fn each_switched_out_sequence_is_archived_whole_in_order() {
        let vfs = SimVfs::new(41);
        vfs.create_dir_all(Path::new("/arch")).unwrap();
        let (log, _alerts) = started_log(&vfs, 3);
        let (archiver, recorded) = archiver_of(&log, &vfs, "/arch");
        assert!(log.archive_required());
        let appended = std::thread::scope(|scope| {
            let lgwr = scope.spawn(|| log.run_lgwr());
            let mut appended = append_until_sequence(&log, 3);
            archiver.archive_pending().unwrap();
            // Sequence 4 reuses group 1: only because sequence 1 is archived.
            appended.extend(append_until_sequence(&log, 5));
            archiver.archive_pending().unwrap();
            log.shutdown();
            lgwr.join().unwrap();
            appended
        });
        assert_eq!(*recorded.lock(), [1, 2, 3, 4]);
        assert_eq!(log.archived_sequence(), 4);
        let listed = archiver.archived_logs();
        let sequences: Vec<u64> = listed
            .iter()
            .map(|archived| archived.header.sequence)
            .collect();
        assert_eq!(sequences, [1, 2, 3, 4]);
        let mut found = Vec::new();
        for archived in &listed {
            let header = archived.header;
            assert_eq!(
                archived.path,
                Path::new("/arch").join(archive_name(header.sequence))
            );
            assert_eq!(header.next_lsn, header.start_lsn + log.capacity());
            assert!(header.completion_time > 0 && header.first_time > 0);
            found.extend(records_in_archive(&vfs, &archived.path));
        }
        let in_archived_sequences: Vec<u64> = appended
            .into_iter()
            .filter(|lsn| *lsn < 4 * log.capacity())
            .collect();
        assert_eq!(found, in_archived_sequences);

        let (reopened, _) = archiver_of(&log, &vfs, "/arch");
        assert_eq!(reopened.archived_logs(), listed);
        vfs.remove(&Path::new("/arch").join(archive_name(2)))
            .unwrap();
        let (reopened, _) = archiver_of(&log, &vfs, "/arch");
        assert_eq!(reopened.archived_logs(), listed[2..]);
    }

    /// Sequences whose groups were reused while archiving was off cannot be archived when it
    /// is turned on: they are skipped, and the alert log says which.
    #[test]
    fn sequences_overwritten_while_archiving_was_off_are_skipped() {
        let vfs = SimVfs::new(43);
        vfs.create_dir_all(Path::new("/arch")).unwrap();
        let (log, alerts) = started_log(&vfs, 2);
        let (archiver, recorded) = archiver_of(&log, &vfs, "");
        assert!(!log.archive_required());
        std::thread::scope(|scope| {
            let lgwr = scope.spawn(|| log.run_lgwr());
            append_until_sequence(&log, 5);
            archiver.archive_pending().unwrap();
            assert!(recorded.lock().is_empty(), "archiving off archives nothing");
            archiver.set_destination("/arch");
            archiver.archive_pending().unwrap();
            log.shutdown();
            lgwr.join().unwrap();
        });
        assert_eq!(*recorded.lock(), [3, 4]);
        assert!(!vfs.exists(&Path::new("/arch").join(archive_name(3))));
        assert!(read_archive_header(&vfs, &Path::new("/arch").join(archive_name(4))).is_some());
        assert!(alerts.lock().iter().any(|message| message
            == "ARC0: log sequences 1 to 3 were not archived: they were overwritten while archiving was off"));
    }

    /// An archive destination that cannot be written must not stop the database at once, nor
    /// ever lose redo: ARC0 tells the alert log (once), the database works on until every
    /// group waits for archiving, then the session that needs a group waits until the
    /// destination works.
    #[test]
    fn a_failing_destination_is_reported_and_sessions_wait_until_it_works() {
        let vfs = SimVfs::new(47);
        let (log, alerts) = started_log(&vfs, 2);
        let (archiver, _) = archiver_of(&log, &vfs, "/arch"); // does not exist
        let has = |text: &str| alerts.lock().iter().any(|message| message.contains(text));
        std::thread::scope(|scope| {
            let lgwr = scope.spawn(|| log.run_lgwr());
            let arc0 = scope.spawn(|| archiver.run());
            let appender = scope.spawn(|| append_until_sequence(&log, 3));
            for _ in 0..3000 {
                if has("All online logs needed archiving") && has("ORA-16038") {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            assert!(has("All online logs needed archiving"));
            assert!(has("ORA-19504: failed to create file \"/arch/arch_1.arc\""));
            assert!(has("ORA-16038: log 1 sequence# 1 cannot be archived"));
            assert_eq!(log.current_sequence(), 2, "sequence 2 went on; 3 waits");
            vfs.create_dir_all(Path::new("/arch")).unwrap();
            archiver.post();
            appender.join().unwrap();
            assert!(log.archived_sequence() >= 1);
            archiver.shutdown();
            arc0.join().unwrap();
            log.shutdown();
            lgwr.join().unwrap();
        });
        assert!(has("ARC0: Archival resumed"));
        let failures = alerts
            .lock()
            .iter()
            .filter(|message| message.contains("Archival stopped"))
            .count();
        assert_eq!(
            failures, 1,
            "a retry failing the same way is not reported again"
        );
    }
}
