//! Reading the log back: a block's checks (checksum, sequence, epoch), a sequence's redo for
//! recovery (`read_sequence`), and DBVERIFY of a whole file (`verify_file`).

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::instrumentation::{self, WaitEvent};
use crate::io::block::read_u32;
use crate::redo::record::RECORD_HEADER_BYTES;

use super::{
    block_bytes_left, FileHeader, LogGroup, RedoLog, RECORD_LENGTH_BYTES, REDO_BLOCK_BYTES,
    REDO_BLOCK_HEADER_BYTES, REDO_PAYLOAD_BYTES,
};

impl RedoLog {
    /// Reads a group's header, or None if it never held redo or is damaged.
    pub fn read_file_header(&self, group: &LogGroup) -> Result<Option<FileHeader>> {
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        group
            .file
            .read_at(&mut block, 0)
            .map_err(|error| Error::io(&group.path, error))?;
        let header = FileHeader::decode(&block);
        if let Some(header) = header {
            self.group_sequences.lock()[group.group as usize - 1] = header;
        }
        Ok(header)
    }

    /// The header of the sequence a group holds, as last written or read.
    pub fn held_sequence(&self, group: &LogGroup) -> FileHeader {
        self.group_sequences.lock()[group.group as usize - 1]
    }

    /// Checks redo block `block_number` of `sequence` (its bytes in `block`): its epoch if it
    /// is valid and no older than `epoch_before`, else why not.
    pub fn check_block(
        block: &[u8],
        sequence: u64,
        block_number: u64,
        epoch_before: u32,
    ) -> std::result::Result<u32, BlockFault> {
        if read_u32(block, 0) != crc32c::crc32c(&block[4..REDO_BLOCK_BYTES]) {
            if block.iter().all(|&byte| byte == 0) {
                return Err(BlockFault::Unwritten);
            }
            return Err(BlockFault::ChecksumMismatch);
        }
        let found_sequence = read_u32(block, 4) as u64;
        if found_sequence < sequence {
            return Err(BlockFault::EarlierSequence(found_sequence));
        }
        if found_sequence > sequence {
            return Err(BlockFault::LaterSequence(found_sequence));
        }
        let found_block = read_u32(block, 8) as u64;
        if found_block != block_number {
            return Err(BlockFault::WrongBlockNumber(found_block));
        }
        let epoch = read_u32(block, 12);
        if epoch < epoch_before {
            return Err(BlockFault::EarlierEpoch {
                found: epoch,
                before: epoch_before,
            });
        }
        Ok(epoch)
    }

    /// Reads the stream of `sequence` from `from_lsn` for recovery, stopping at the first block
    /// that is torn, damaged or from an older use of the file (`check_block`), and says which
    /// and why. Returns the stream as segments (the LSN where each starts, and its payload
    /// bytes): a new segment starts wherever a block's epoch is higher than the one before
    /// it. That block is where a later incarnation began writing after recovery, at a record
    /// boundary, while the block before it may end with the head of a record whose tail the
    /// crash lost; the two must not be read as one.
    pub fn read_sequence(
        &self,
        sequence: u64,
        sequence_start: u64,
        from_lsn: u64,
        epoch_seen: &mut u32,
    ) -> Result<SequenceRead> {
        let group = self.group_of(sequence);
        let offset = from_lsn - sequence_start;
        let first_block = offset / REDO_PAYLOAD_BYTES as u64;
        let skip = (offset % REDO_PAYLOAD_BYTES as u64) as usize;
        let total_blocks = self.file_size / REDO_BLOCK_BYTES as u64 - 1;
        let mut segments: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        let _wait = instrumentation::wait(WaitEvent::LogFileSequentialRead, 0, 0, 0);
        let mut end = SequenceEnd {
            sequence,
            block: total_blocks + 1,
            fault: None,
        };
        for index in first_block..total_blocks {
            let position = (index + 1) * REDO_BLOCK_BYTES as u64;
            group
                .file
                .read_at(&mut block, position)
                .map_err(|error| Error::io(&group.path, error))?;
            let epoch = match Self::check_block(&block, sequence, index + 1, *epoch_seen) {
                Ok(epoch) => epoch,
                Err(fault) => {
                    end.block = index + 1;
                    end.fault = Some(fault);
                    break;
                }
            };
            let payload = &block[REDO_BLOCK_HEADER_BYTES..];
            if index == first_block {
                segments.push((from_lsn, payload[skip..].to_vec()));
            } else if epoch > *epoch_seen {
                let lsn = sequence_start + index * REDO_PAYLOAD_BYTES as u64;
                segments.push((lsn, payload.to_vec()));
            } else if let Some((_, bytes)) = segments.last_mut() {
                bytes.extend_from_slice(payload);
            }
            *epoch_seen = epoch;
        }
        Ok(SequenceRead { segments, end })
    }

    /// Reads a whole log file for DBVERIFY: see [`LogFileVerification`] for what each count
    /// means. Only reads.
    pub fn verify_file(&self, group: &LogGroup) -> Result<LogFileVerification> {
        // A header naming a sequence that another group holds is not this file's to read.
        let header = self
            .read_file_header(group)?
            .map(|header| (header.sequence, header.start_lsn))
            .filter(|(sequence, _)| *sequence > 0 && self.group_of(*sequence).group == group.group);
        let blocks = self.file_size / REDO_BLOCK_BYTES as u64 - 1;
        let mut report = LogFileVerification {
            group: group.group,
            path: group.path.clone(),
            sequence: header.map(|(sequence, _)| sequence),
            blocks,
            ..Default::default()
        };
        let mut last_epoch = 0u32;
        if let Some((sequence, start)) = header {
            for (segment_start, stream) in self
                .read_sequence(sequence, start, start, &mut last_epoch)?
                .segments
            {
                let (records, end) = RedoLog::split_records(&stream, segment_start, start);
                report.records += records.len() as u64;
                report.cut_bytes += segment_start + stream.len() as u64 - end;
                report.valid += (stream.len() / REDO_PAYLOAD_BYTES) as u64;
            }
        }
        let mut block = vec![0u8; REDO_BLOCK_BYTES];
        for number in report.valid + 1..=blocks {
            group
                .file
                .read_at(&mut block, number * REDO_BLOCK_BYTES as u64)
                .map_err(|error| Error::io(&group.path, error))?;
            if block.iter().all(|&byte| byte == 0) {
                report.unwritten += 1;
            } else if read_u32(&block, 0) != crc32c::crc32c(&block[4..])
                || read_u32(&block, 8) as u64 != number
            {
                report.damaged.push(number);
            } else {
                let block_sequence = read_u32(&block, 4) as u64;
                let epoch = read_u32(&block, 12);
                match header {
                    Some((sequence, _))
                        if block_sequence > sequence
                            || (block_sequence == sequence && epoch >= last_epoch) =>
                    {
                        report.unreachable.push(number)
                    }
                    _ => report.stale += 1,
                }
            }
        }
        Ok(report)
    }

    /// Splits a stream read by `read_sequence` into records. Returns (lsn, record bytes) and
    /// the LSN just past the last whole, valid record.
    pub fn split_records(
        stream: &[u8],
        stream_start_lsn: u64,
        sequence_start: u64,
    ) -> (Vec<(u64, &[u8])>, u64) {
        let mut records = Vec::new();
        let mut position = 0usize;
        loop {
            let lsn = stream_start_lsn + position as u64;
            if position + 4 > stream.len() {
                return (records, lsn);
            }
            let left_in_block = block_bytes_left(lsn - sequence_start) as usize;
            if left_in_block < RECORD_LENGTH_BYTES {
                // Too little room for a length word: padding (see `append`).
                position += left_in_block;
                continue;
            }
            let length = read_u32(stream, position) as usize;
            if length == 0 {
                // Padding: the rest of this redo block is unused.
                let next = position + left_in_block;
                if next > stream.len() || stream[position..next].iter().any(|&byte| byte != 0) {
                    return (records, lsn);
                }
                position = next;
                continue;
            }
            if length < RECORD_HEADER_BYTES || position + length > stream.len() {
                return (records, lsn);
            }
            let record = &stream[position..position + length];
            if crate::redo::record::decode(record).is_err() {
                return (records, lsn);
            }
            records.push((lsn, record));
            position += length;
        }
    }
}

/// Why reading a sequence's redo blocks stopped at a block (`RedoLog::check_block`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockFault {
    /// All zeros: never written. The end of the redo written.
    Unwritten,
    /// A valid block of an earlier sequence this group held: the group's current use
    /// ends before it. The end of the redo written.
    EarlierSequence(u64),
    /// A valid block of this sequence, from an earlier incarnation (a lower epoch than the
    /// blocks before it): left past the point where redo restarted after a crash. The end
    /// of the redo written.
    EarlierEpoch { found: u32, before: u32 },
    /// The checksum does not match: a torn write, or a corrupt block.
    ChecksumMismatch,
    /// A valid checksum on a block that says it is another block of the file: corrupt.
    WrongBlockNumber(u64),
    /// A valid checksum on a block of a later sequence than the file's header: corrupt.
    LaterSequence(u64),
}

impl BlockFault {
    /// A torn or corrupt block, as opposed to the ordinary end of what was written.
    pub fn is_damage(self) -> bool {
        matches!(
            self,
            BlockFault::ChecksumMismatch
                | BlockFault::WrongBlockNumber(_)
                | BlockFault::LaterSequence(_)
        )
    }
}

/// Where and why reading a sequence stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceEnd {
    pub sequence: u64,
    /// The first block not read (1 is the first redo block of the file).
    pub block: u64,
    /// None: every block up to the end of the file was read.
    pub fault: Option<BlockFault>,
}

impl std::fmt::Display for SequenceEnd {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (sequence, block) = (self.sequence, self.block);
        match self.fault {
            None => write!(
                formatter,
                "end of redo: sequence {sequence} is full (block {} is its last)",
                block - 1
            ),
            Some(BlockFault::Unwritten) => write!(
                formatter,
                "end of redo: block {block} of sequence {sequence} was never written"
            ),
            Some(BlockFault::EarlierSequence(found)) => write!(
                formatter,
                "end of redo: block {block} of sequence {sequence} still holds sequence {found}, \
                 the group's earlier use"
            ),
            Some(BlockFault::EarlierEpoch { found, before }) => write!(
                formatter,
                "end of redo: block {block} of sequence {sequence} is from an earlier \
                 incarnation (epoch {found} after epoch {before})"
            ),
            Some(BlockFault::ChecksumMismatch) => write!(
                formatter,
                "torn or corrupt redo block: sequence {sequence} block {block} fails its checksum"
            ),
            Some(BlockFault::WrongBlockNumber(found)) => write!(
                formatter,
                "corrupt redo block: sequence {sequence} block {block} says it is block {found}"
            ),
            Some(BlockFault::LaterSequence(found)) => write!(
                formatter,
                "corrupt redo block: sequence {sequence} block {block} says it is of sequence \
                 {found}"
            ),
        }
    }
}

/// A sequence's redo read back for recovery (`RedoLog::read_sequence`).
#[derive(Clone, Debug)]
pub struct SequenceRead {
    /// The LSN where each segment starts, and its payload bytes: a new segment starts
    /// wherever a block's epoch is higher than the one before it.
    pub segments: Vec<(u64, Vec<u8>)>,
    pub end: SequenceEnd,
}

/// What DBVERIFY (`instance/dbverify.rs`) found in one online log file. The file's blocks
/// are read in order from block 1: first the run that recovery would read of the sequence its
/// header names (`valid`), then every block after it, each in exactly one class.
#[derive(Clone, Debug, Default)]
pub struct LogFileVerification {
    pub group: u32,
    pub path: PathBuf,
    /// The sequence the file header names; None when the header is not valid (a group never
    /// used, or invalidated by recovery because it held a sequence past the end of the stream).
    pub sequence: Option<u64>,
    /// Redo blocks in the file (the header block not counted).
    pub blocks: u64,
    /// Blocks from block 1 on as recovery reads them: each passes its CRC-32C, names the
    /// header's sequence and its own block number, and has an epoch no lower than the block
    /// before it.
    pub valid: u64,
    /// Whole records in the valid blocks (each passed its own length and checksum checks).
    pub records: u64,
    /// Bytes at the end of one incarnation's run of valid blocks that hold no whole record:
    /// the head of a record whose tail a crash kept from disk. Recovery skips them.
    pub cut_bytes: u64,
    /// After the valid blocks: all zeros (never written, or formatted ahead of the redo).
    pub unwritten: u64,
    /// After the valid blocks: a good checksum and its own block number, of an older
    /// sequence (an earlier use of the file) or of this sequence with an older epoch (an
    /// incarnation that crashed, whose tail the next one did not overwrite), or any such block
    /// when the header is not valid. Recovery never reads them.
    pub stale: u64,
    /// After the valid blocks: a good checksum and its own block number, of this sequence
    /// (or a later one) with an epoch no lower than the last valid block's: redo past a hole,
    /// which recovery would not reach. Block numbers.
    pub unreachable: Vec<u64>,
    /// After the valid blocks: neither zeros nor a good checksum naming its own block number
    /// (torn or corrupt). Block numbers.
    pub damaged: Vec<u64>,
}
