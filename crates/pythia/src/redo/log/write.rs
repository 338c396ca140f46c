//! A write of the log buffer to the online log files: whole redo blocks, padded to a block
//! boundary, each sequence's header before its first block, then a sync of every group touched
//! ('log file parallel write').

use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::instrumentation::{self, Statistic, WaitEvent};
use crate::io::block::write_u32;
use crate::io::vfs::{AlignedBuffer, Written};

use super::buffer::Run;
use super::{
    add_centiseconds, now_seconds, FileHeader, LogGroup, RedoLog, LOG_FILE_FORMAT_STEP_BYTES,
    REDO_BLOCK_BYTES, REDO_BLOCK_HEADER_BYTES, REDO_PAYLOAD_BYTES,
};

impl RedoLog {
    /// Takes everything buffered, pads to a block boundary, writes and syncs it.
    pub(super) fn write_and_sync(&self, image: &mut WriteImage) -> Result<()> {
        let (runs, end_lsn, end_position) = {
            let mut state = self.state.lock();
            if state.runs.is_empty() {
                return Ok(());
            }
            let runs = std::mem::take(&mut state.runs);
            // Pad the stream to the next block boundary of its sequence.
            let offset = state.next_lsn - state.sequence_start_lsn;
            let rest = (REDO_PAYLOAD_BYTES as u64 - offset % REDO_PAYLOAD_BYTES as u64)
                % REDO_PAYLOAD_BYTES as u64;
            state.next_lsn += rest;
            instrumentation::add(Statistic::RedoWastage, rest);
            (runs, state.next_lsn, state.next_position)
        };
        self.wait_for_copies();
        let started = Instant::now();
        let mut blocks_written = 0u64;
        let mut touched: Vec<u32> = Vec::new();
        {
            let _wait = instrumentation::wait(WaitEvent::LogFileParallelWrite, 1, 0, 1);
            let mut previous_sequence = None;
            for run in &runs {
                if previous_sequence.is_some_and(|previous| previous != run.sequence) {
                    // A sequence is durable before anything of the next one is written: recovery
                    // relies on it to continue from one sequence into the next.
                    self.sync_groups(&mut touched)?;
                }
                previous_sequence = Some(run.sequence);
                blocks_written += self.write_run(run, &mut touched, image)?;
            }
            self.sync_groups(&mut touched)?;
        }
        let write_micros = started.elapsed().as_micros() as u64;
        instrumentation::add(Statistic::RedoWrites, 1);
        instrumentation::add(Statistic::RedoBlocksWritten, blocks_written);
        add_centiseconds(
            &self.write_micros_total,
            write_micros,
            Statistic::RedoWriteTime,
        );
        self.adaptive.record_write(write_micros);
        // The space first: a session waiting for it waits for `written_lsn`.
        self.released_position
            .fetch_max(end_position, Ordering::AcqRel);
        self.written_lsn.fetch_max(end_lsn, Ordering::AcqRel);
        self.unpark_writes(end_lsn);
        Ok(())
    }

    fn sync_groups(&self, touched: &mut Vec<u32>) -> Result<()> {
        for group in touched.drain(..) {
            let log = &self.groups[group as usize - 1];
            log.file
                .sync_data()
                .map_err(|error| Error::io(&log.path, error))?;
        }
        Ok(())
    }

    /// Writes one run (within one sequence) as whole redo blocks. Returns blocks written.
    fn write_run(&self, run: &Run, touched: &mut Vec<u32>, image: &mut WriteImage) -> Result<u64> {
        let group = self.group_of(run.sequence);
        let sequence_start = run.sequence_start_lsn;
        let held = self.group_sequences.lock()[group.group as usize - 1].sequence;
        if held != run.sequence {
            self.write_file_header(run.sequence, sequence_start, now_seconds())?;
            self.alert(&format!(
                "Thread 1 advanced to log sequence {} (LGWR switch)\n  Current log# {} seq# {} mem# 0: {}",
                run.sequence,
                group.group,
                run.sequence,
                group.path.display()
            ));
        }
        let offset = run.start_lsn - sequence_start;
        let first_block = offset / REDO_PAYLOAD_BYTES as u64;
        debug_assert_eq!(
            offset % REDO_PAYLOAD_BYTES as u64,
            0,
            "runs start on block boundaries"
        );
        let block_count = (run.bytes as usize).div_ceil(REDO_PAYLOAD_BYTES);
        let image = image
            .blocks(block_count)
            .map_err(|error| Error::io(&group.path, error))?;
        for index in 0..block_count {
            let block = &mut image[index * REDO_BLOCK_BYTES..(index + 1) * REDO_BLOCK_BYTES];
            let block_number = first_block + 1 + index as u64;
            write_u32(block, 4, run.sequence as u32);
            write_u32(block, 8, block_number as u32);
            write_u32(block, 12, self.epoch.load(Ordering::Acquire));
            let from = (index * REDO_PAYLOAD_BYTES) as u64;
            let payload = (run.bytes - from).min(REDO_PAYLOAD_BYTES as u64) as usize;
            // SAFETY: the run was taken from the buffer by this writer, every copy into it has
            // finished (`wait_for_copies`), and it is released only after this write.
            unsafe {
                self.ring.read(
                    run.position + from,
                    &mut block[REDO_BLOCK_HEADER_BYTES..REDO_BLOCK_HEADER_BYTES + payload],
                );
            }
            // A block the run ends in is padded with zeros (the image holds an earlier write's).
            block[REDO_BLOCK_HEADER_BYTES + payload..].fill(0);
            let checksum = crc32c::crc32c(&block[4..]);
            write_u32(block, 0, checksum);
        }
        let position = (first_block + 1) * REDO_BLOCK_BYTES as u64;
        let written = self.write_in_place(group, image, position)?;
        if written == Written::NeedsSync && !touched.contains(&group.group) {
            touched.push(group.group);
        }
        Ok(block_count as u64)
    }

    /// Writes (and syncs) the header that makes a group hold `sequence`.
    pub(super) fn write_file_header(
        &self,
        sequence: u64,
        start_lsn: u64,
        first_time: u64,
    ) -> Result<()> {
        let group = self.group_of(sequence);
        let header = FileHeader {
            group: group.group,
            sequence,
            start_lsn,
            file_size: self.file_size,
            first_time,
            ..FileHeader::default()
        };
        self.write_durably(group, &header.encode(), 0)?;
        self.group_sequences.lock()[group.group as usize - 1] = header;
        Ok(())
    }

    /// Writes `bytes` at `position` of a group's file. If they would reach past what is
    /// formatted, it first formats the file with zeros up to the next multiple of
    /// [`LOG_FILE_FORMAT_STEP_BYTES`] after their end (at most to the file's size). Every write
    /// to a log file goes through here.
    ///
    /// Why: a commit costs LGWR's write and fdatasync. A write past the end of a file, or into
    /// a hole or a fallocate'd range, changes the file's size or its block map, and fdatasync
    /// must then also write that metadata (the inode, or a journal commit). On the lab's ext4
    /// disk, against a 100 us fdatasync: a 512-byte write past the end added about 45 us, and
    /// each first write into a 4 KiB of a hole or a fallocate'd range about 50 us. Into
    /// formatted space, a redo write is an overwrite in place and fdatasync flushes data only.
    /// Oracle formats a whole log file at creation; formatting in steps instead keeps opening
    /// a database with large log files fast, at the cost of one slower write (the zeros and
    /// the new size) per step, and after the first pass through a file there is nothing left
    /// to format.
    ///
    /// The zeros are not synced on their own: the redo write's own sync covers them. They are
    /// what a never-written redo block reads as anyway (past the end of a file too), so they
    /// change nothing recovery finds; and they only cover bytes past `formatted_bytes`, which
    /// no write since the file was opened has reached, and which were past its end then.
    ///
    /// Returns [`Written::Durable`] when the bytes and the zeros before them were all
    /// written direct with `O_DSYNC`, so that no `sync_data` is needed for them.
    pub(super) fn write_in_place(
        &self,
        group: &LogGroup,
        bytes: &[u8],
        position: u64,
    ) -> Result<Written> {
        let io = |error| Error::io(&group.path, error);
        // Direct or not, one way for the zeros and the redo after them: a direct write into
        // a range whose cached pages are dirty would first wait for the kernel to write
        // them back.
        let direct = self.direct_writes.load(Ordering::Relaxed);
        let mut all = Written::Durable;
        let mut write = |bytes: &[u8], position: u64| {
            let written = if direct {
                group.file.write_direct(bytes, position)
            } else {
                group
                    .file
                    .write_at(bytes, position)
                    .map(|()| Written::NeedsSync)
            }
            .map_err(io)?;
            if written == Written::NeedsSync {
                all = Written::NeedsSync;
            }
            Ok::<(), Error>(())
        };
        let end = position + bytes.len() as u64;
        {
            let mut formatted = group.formatted_bytes.lock();
            if end > *formatted {
                let target = end
                    .next_multiple_of(LOG_FILE_FORMAT_STEP_BYTES)
                    .min(self.file_size)
                    .max(end);
                let zeros = AlignedBuffer::zeroed(
                    (target - *formatted).min(LOG_FILE_FORMAT_STEP_BYTES) as usize,
                )
                .map_err(io)?;
                while *formatted < target {
                    let length = (target - *formatted).min(zeros.len() as u64) as usize;
                    write(&zeros[..length], *formatted)?;
                    *formatted += length as u64;
                }
            }
        }
        write(bytes, position)?;
        Ok(all)
    }

    /// Writes `bytes` at `position` of a group's file and makes them durable: a sync unless
    /// the write was durable already.
    fn write_durably(&self, group: &LogGroup, bytes: &[u8], position: u64) -> Result<()> {
        if self.write_in_place(group, bytes, position)? == Written::NeedsSync {
            group
                .file
                .sync_data()
                .map_err(|error| Error::io(&group.path, error))?;
        }
        Ok(())
    }

    /// Forgets a group's contents (its header is zeroed): used by recovery for sequences past
    /// the point where the stream ended, so that they are never read as a continuation.
    pub fn invalidate_group(&self, group: &LogGroup) -> Result<()> {
        self.write_durably(group, &[0u8; REDO_BLOCK_BYTES], 0)?;
        self.group_sequences.lock()[group.group as usize - 1] = FileHeader::default();
        Ok(())
    }
}

/// The writer's image of the redo blocks it writes, built where a direct write takes it
/// without a copy, and kept from one write to the next: a commit's write then allocates and
/// zeroes nothing. It grows to the largest write so far, which is bounded by the log buffer
/// (a write takes at most what the buffer holds).
#[derive(Default)]
pub(super) struct WriteImage {
    buffer: Option<AlignedBuffer>,
}

impl WriteImage {
    /// `count` whole redo blocks of the image, their bytes left from an earlier write.
    fn blocks(&mut self, count: usize) -> std::io::Result<&mut [u8]> {
        let bytes = count * REDO_BLOCK_BYTES;
        if self
            .buffer
            .as_ref()
            .is_none_or(|buffer| buffer.len() < bytes)
        {
            self.buffer = Some(AlignedBuffer::zeroed(bytes)?);
        }
        let buffer = self.buffer.as_mut().expect("allocated above");
        Ok(&mut buffer[..bytes])
    }
}
