//! Crash recovery, first half: roll forward.
//!
//! Starting at the checkpoint recorded in the control file, every redo record is read in
//! order and each change vector is applied to its block unless the block already holds it
//! (its LSN is at or past the record's). Reading stops at the first redo block that is torn,
//! damaged, of another sequence, or older than what was read before (see the epoch in
//! `log.rs`): that is the end of the redo that reached disk. Everything before it is applied,
//! nothing after it is, and no record is applied in part (records carry checksums).
//!
//! The second half, rolling back the transactions that were active at the crash, needs the
//! undo that roll forward has just restored: `TransactionManager::recover` does it.
//! Blocks torn by the crash are first restored from the double-write file.

use std::time::Instant;

use crate::buffer::{AccessKind, BufferCache, BufferPool};
use crate::error::Result;
use crate::redo::controlfile::ControlData;
use crate::redo::log::{RedoLog, StreamPosition, REDO_PAYLOAD_BYTES};
use crate::redo::record;
use crate::storage::block;

/// What roll forward did, for the alert log.
#[derive(Clone, Debug, Default)]
pub struct RollForward {
    pub start_lsn: u64,
    pub end_lsn: u64,
    pub records: u64,
    pub vectors_applied: u64,
    pub vectors_skipped: u64,
    pub redo_bytes: u64,
    pub highest_scn: u64,
    pub sequences_read: u64,
    pub elapsed_micros: u64,
    /// Where new redo must go.
    pub position: StreamPosition,
}

/// Applies the redo from the control file's checkpoint to the end of what is on disk.
pub fn roll_forward(
    cache: &BufferCache,
    log: &RedoLog,
    control: &ControlData,
) -> Result<RollForward> {
    let started = Instant::now();
    let mut headers = Vec::new();
    for group in log.groups() {
        headers.push(log.read_file_header(group)?);
    }
    let mut report = RollForward {
        start_lsn: control.checkpoint_lsn,
        highest_scn: control.checkpoint_scn,
        ..Default::default()
    };
    let mut sequence = control.checkpoint_sequence;
    let mut sequence_start = control.checkpoint_sequence_start;
    let mut position = control.checkpoint_lsn;
    let mut epoch_seen = 0u32;
    loop {
        let held = log.group_of(sequence);
        let header = headers[held.group as usize - 1];
        if header != Some((sequence, sequence_start)) {
            break; // this sequence was never started: the stream ends where it is
        }
        report.sequences_read += 1;
        let segments = log.read_sequence(sequence, sequence_start, position, &mut epoch_seen)?;
        let mut records = Vec::new();
        for (start, stream) in &segments {
            // A segment's unreadable tail is a record a crash cut short; the next segment
            // starts where the following incarnation began writing.
            let (found, end) = RedoLog::split_records(stream, *start, sequence_start);
            records.extend(found);
            position = end;
        }
        for (lsn, bytes) in records {
            let redo = record::decode(bytes)?;
            report.records += 1;
            report.redo_bytes += bytes.len() as u64;
            report.highest_scn = report.highest_scn.max(redo.scn);
            for vector in &redo.vectors {
                let mut guard = if vector.init {
                    // Redo does not name the segment's pool: recovery reads into DEFAULT.
                    cache.new_block(vector.block, BufferPool::Default)?
                } else {
                    cache.write(vector.block, AccessKind::Lookup)?
                };
                if !vector.init && block::lsn(&guard) >= lsn {
                    report.vectors_skipped += 1;
                    continue;
                }
                record::apply(vector, &mut guard, lsn)?;
                guard.mark_changed(lsn);
                report.vectors_applied += 1;
            }
        }
        // LGWR syncs a sequence completely before it writes anything of the next one, so a
        // valid header of the next sequence means this one is complete: continue there.
        let sequence_end = sequence_start + log.capacity();
        let next = sequence + 1;
        if headers[log.group_of(next).group as usize - 1] == Some((next, sequence_end)) {
            sequence = next;
            sequence_start = sequence_end;
            position = sequence_end;
            continue;
        }
        break;
    }
    // New redo starts in a fresh block after the last good record.
    let offset = position - sequence_start;
    let block_offset = offset.div_ceil(REDO_PAYLOAD_BYTES as u64) * REDO_PAYLOAD_BYTES as u64;
    let mut next_lsn = sequence_start + block_offset;
    if next_lsn >= sequence_start + log.capacity() {
        next_lsn = sequence_start + log.capacity();
    }
    // Sequences beyond the end of the stream hold nothing that may ever be read again.
    for (index, header) in headers.iter().enumerate() {
        if let Some((held_sequence, _)) = header {
            if *held_sequence > sequence {
                log.invalidate_group(&log.groups()[index])?;
            }
        }
    }
    report.end_lsn = position;
    report.position = StreamPosition {
        sequence,
        sequence_start_lsn: sequence_start,
        next_lsn,
    };
    report.elapsed_micros = started.elapsed().as_micros() as u64;
    Ok(report)
}
