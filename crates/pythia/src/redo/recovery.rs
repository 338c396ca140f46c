//! Crash recovery, first half: roll forward.
//!
//! Starting at the checkpoint recorded in the control file, every redo record is read in
//! order and each change vector is applied to its block unless the block already holds it
//! (its LSN is at or past the record's). Reading stops at the first redo block that is torn,
//! damaged, of another sequence, or older than what was read before (see the epoch in
//! `redo/log/mod.rs`): that is the end of the redo that reached disk. Everything before it is applied,
//! nothing after it is, and no record is applied in part (records carry checksums).
//!
//! The second half, rolling back the transactions that were active at the crash, needs the
//! undo that roll forward has just restored: `TransactionManager::recover` does it.
//! Blocks torn by the crash are first restored from the double-write file.
//!
//! The report ([`RollForward`], written to the alert log by the instance) says what was
//! applied, from which sequence and LSN to which, and why it ended ([`RecoveryStop`]): the end
//! of the redo written (a block never written, or left by an earlier use of the group or an
//! earlier incarnation), or a torn or corrupt block, named by sequence and block number. In
//! every case nothing after the last whole, valid record is applied.

use std::time::Instant;

use crate::buffer::{AccessKind, BufferCache, BufferPool};
use crate::error::Result;
use crate::io::block;
use crate::redo::controlfile::ControlData;
use crate::redo::log::{RedoLog, SequenceEnd, StreamPosition, REDO_PAYLOAD_BYTES};
use crate::redo::record;

/// Why roll forward ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RecoveryStop {
    /// Not read yet (a report's default).
    #[default]
    NotRead,
    /// The group that should hold the checkpoint's sequence does not (its header names
    /// another sequence, or none): there was no redo to read.
    SequenceMissing { sequence: u64, group: u32 },
    /// Reading the last sequence stopped at a block: see [`SequenceEnd`].
    Block(SequenceEnd),
}

impl RecoveryStop {
    /// A torn or corrupt redo block ended recovery.
    pub fn is_damage(&self) -> bool {
        matches!(self, RecoveryStop::Block(end) if end.fault.is_some_and(|fault| fault.is_damage()))
    }
}

impl std::fmt::Display for RecoveryStop {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecoveryStop::NotRead => write!(formatter, "redo not read"),
            RecoveryStop::SequenceMissing { sequence, group } => write!(
                formatter,
                "end of redo: group {group} does not hold sequence {sequence}"
            ),
            RecoveryStop::Block(end) => write!(formatter, "{end}"),
        }
    }
}

/// What roll forward did, for the alert log.
#[derive(Clone, Debug, Default)]
pub struct RollForward {
    pub start_sequence: u64,
    pub start_sequence_start: u64,
    pub start_lsn: u64,
    /// The sequence holding `end_lsn`.
    pub end_sequence: u64,
    /// Just past the last record applied (or `start_lsn`).
    pub end_lsn: u64,
    pub records: u64,
    pub vectors_applied: u64,
    pub vectors_skipped: u64,
    pub redo_bytes: u64,
    pub highest_scn: u64,
    pub sequences_read: u64,
    /// The groups read, in order: (group, sequence).
    pub groups_read: Vec<(u32, u64)>,
    pub elapsed_micros: u64,
    /// The control file said the instance had closed cleanly.
    pub clean_shutdown: bool,
    pub stop: RecoveryStop,
    /// The LSN of a record whose head was read but whose tail was not (cut short by the
    /// block that ended recovery): not applied.
    pub incomplete_record_lsn: Option<u64>,
    /// Where new redo must go.
    pub position: StreamPosition,
}

/// An LSN as Oracle writes a redo byte address: the sequence, the redo block (1 is the first
/// after the file header) and the byte offset in it.
fn redo_address(sequence: u64, sequence_start: u64, lsn: u64) -> String {
    let offset = lsn - sequence_start;
    let payload = REDO_PAYLOAD_BYTES as u64;
    format!(
        "logseq {sequence}, block {}, offset {} (LSN {lsn})",
        offset / payload + 1,
        offset % payload + crate::redo::log::REDO_BLOCK_HEADER_BYTES as u64
    )
}

impl RollForward {
    /// The alert log's account of the roll forward, Oracle style.
    pub fn alert_text(&self, log: &RedoLog) -> String {
        let start = redo_address(
            self.start_sequence,
            self.start_sequence_start,
            self.start_lsn,
        );
        if self.clean_shutdown && self.records == 0 {
            return format!(
                "No crash recovery needed: the database was closed cleanly\n Thread 1: {start}; {}",
                self.stop
            );
        }
        let mut lines = vec![
            "Beginning crash recovery of 1 threads".to_string(),
            "Started redo application at".to_string(),
            format!(" Thread 1: {start}"),
        ];
        for (group, sequence) in &self.groups_read {
            let path = log.groups()[*group as usize - 1].path.display();
            lines.push(format!(
                "Recovery of Online Redo Log: Thread 1 Group {group} Seq {sequence} Reading mem 0\n  Mem# 0: {path}"
            ));
        }
        if self.stop.is_damage() {
            lines.push(format!(
                "{}; recovery stops at the last good record",
                self.stop
            ));
        } else {
            lines.push(self.stop.to_string());
        }
        if let Some(lsn) = self.incomplete_record_lsn {
            lines.push(format!(
                "The record at LSN {lsn} is incomplete (its tail is past that point): not applied"
            ));
        }
        lines.push(format!(
            "Completed redo application of {} records ({} bytes, {} change vectors applied, {} already in their blocks)",
            self.records, self.redo_bytes, self.vectors_applied, self.vectors_skipped
        ));
        lines.push("Completed crash recovery at".to_string());
        lines.push(format!(
            " Thread 1: {}, scn {}, in {} us",
            redo_address(
                self.end_sequence,
                self.position.sequence_start_lsn,
                self.end_lsn
            ),
            self.highest_scn,
            self.elapsed_micros
        ));
        lines.join("\n")
    }
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
        start_sequence: control.checkpoint_sequence,
        start_sequence_start: control.checkpoint_sequence_start,
        start_lsn: control.checkpoint_lsn,
        highest_scn: control.checkpoint_scn,
        clean_shutdown: control.clean_shutdown,
        ..Default::default()
    };
    let mut sequence = control.checkpoint_sequence;
    let mut sequence_start = control.checkpoint_sequence_start;
    let mut position = control.checkpoint_lsn;
    let mut epoch_seen = 0u32;
    let holds = |header: Option<crate::redo::log::FileHeader>, sequence: u64, start: u64| {
        header.is_some_and(|header| (header.sequence, header.start_lsn) == (sequence, start))
    };
    loop {
        let held = log.group_of(sequence);
        let header = headers[held.group as usize - 1];
        if !holds(header, sequence, sequence_start) {
            // This sequence was never started: the stream ends where it is.
            report.stop = RecoveryStop::SequenceMissing {
                sequence,
                group: held.group,
            };
            break;
        }
        report.sequences_read += 1;
        report.groups_read.push((held.group, sequence));
        let read = log.read_sequence(sequence, sequence_start, position, &mut epoch_seen)?;
        report.stop = RecoveryStop::Block(read.end);
        report.incomplete_record_lsn = None;
        let mut records = Vec::new();
        for (start, stream) in &read.segments {
            // A segment's unreadable tail is a record a crash cut short; the next segment
            // starts where the following incarnation began writing.
            let (found, end) = RedoLog::split_records(stream, *start, sequence_start);
            records.extend(found);
            position = end;
            let tail = &stream[(end - start) as usize..];
            report.incomplete_record_lsn = tail.iter().any(|&byte| byte != 0).then_some(end);
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
        if holds(
            headers[log.group_of(next).group as usize - 1],
            next,
            sequence_end,
        ) {
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
        if header.is_some_and(|header| header.sequence > sequence) {
            log.invalidate_group(&log.groups()[index])?;
        }
    }
    report.end_sequence = sequence;
    report.end_lsn = position;
    report.position = StreamPosition {
        sequence,
        sequence_start_lsn: sequence_start,
        next_lsn,
    };
    report.elapsed_micros = started.elapsed().as_micros() as u64;
    Ok(report)
}
