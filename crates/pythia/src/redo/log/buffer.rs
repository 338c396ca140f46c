//! The log buffer: a ring that sessions copy their records into in parallel (`append`), each
//! under a 'redo copy' latch, into the range the 'redo allocation' latch gave it.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};
use crate::instrumentation::{self, LatchGuard, Statistic, WaitEvent};

use super::{block_bytes_left, RedoLog, LGWR_WRITE_THRESHOLD_BYTES, RECORD_LENGTH_BYTES};

impl RedoLog {
    /// Copies a record into the log buffer. Returns (start LSN, end LSN).
    pub fn append(&self, record: &[u8]) -> Result<(u64, u64)> {
        self.append_with(record, &mut |_| Ok(()))
    }

    /// `append`, calling `before_switch_wait(target)` (with no latch of the log held) each
    /// time it must wait for a checkpoint up to `target` before a log group can be reused:
    /// a caller that holds blocks makes them stop holding that checkpoint back first.
    pub fn append_with(
        &self,
        record: &[u8],
        before_switch_wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<(u64, u64)> {
        let length = record.len() as u64;
        if length > self.capacity || length > self.buffer_bytes_max as u64 {
            return Err(Error::internal(format!(
                "redo record of {length} bytes exceeds the log buffer or a log file"
            )));
        }
        loop {
            self.check_failed()?;
            // The copy latch first: a writer that takes this record's range waits for it.
            let copying = self.copy_latch();
            let mut state = self.state.lock();
            // A record never starts in the last bytes of a redo block, where its length word
            // would straddle the boundary: the reader could not tell it from padding.
            let left_in_block = block_bytes_left(state.next_lsn - state.sequence_start_lsn);
            let mut padding = if left_in_block < RECORD_LENGTH_BYTES as u64 {
                left_in_block
            } else {
                0
            };
            let sequence_end = state.sequence_start_lsn + self.capacity;
            let switching =
                state.switch_requested || state.next_lsn + padding + length > sequence_end;
            if switching {
                padding = 0; // the record starts the next sequence, on a block boundary
            }
            let released = self.released_position.load(Ordering::Acquire);
            if state.next_position + padding + length - released > self.buffer_bytes_max as u64 {
                drop(state);
                drop(copying);
                instrumentation::add(Statistic::RedoBufferAllocationRetries, 1);
                let _wait = instrumentation::wait(WaitEvent::LogBufferSpace, 0, 0, 0);
                let target = self.current_lsn();
                self.wait_written(target)?;
                continue;
            }
            if switching {
                // The record does not fit: the stream jumps to the next sequence, if its group
                // may be reused.
                let next_sequence = state.sequence + 1;
                if let Some(blocker) = self.reuse_blocker(next_sequence, sequence_end) {
                    drop(state);
                    drop(copying);
                    self.wait_for_reuse(blocker, next_sequence, before_switch_wait)?;
                    continue;
                }
                state.sequence = next_sequence;
                state.sequence_start_lsn = sequence_end;
                state.switch_requested = false;
                state.next_lsn = sequence_end;
                // The log switch checkpoint: everything before the new sequence may go to disk.
                self.request_checkpoint(sequence_end);
            }
            let run_start = state.next_lsn;
            let position = state.next_position;
            let bytes = padding + length;
            let sequence = state.sequence;
            match state.runs.last_mut() {
                Some(run) if run.sequence == sequence && run.end_lsn() == run_start => {
                    run.bytes += bytes;
                }
                _ => {
                    let sequence_start_lsn = state.sequence_start_lsn;
                    state.runs.push(Run {
                        sequence,
                        sequence_start_lsn,
                        start_lsn: run_start,
                        position,
                        bytes,
                    })
                }
            }
            state.next_lsn += bytes;
            state.next_position += bytes;
            let buffered = state.next_position - released;
            drop(state);
            #[cfg(test)]
            if self.slow_copies.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
            // SAFETY: `[position, position + bytes)` was allocated to this session above, and
            // it holds its copy latch until the copy is done (see `Ring`).
            unsafe {
                self.ring
                    .write(position, &[0u8; RECORD_LENGTH_BYTES][..padding as usize]);
                self.ring.write(position + padding, record);
            }
            drop(copying);
            if switching {
                self.post_archiver();
            }
            if padding > 0 {
                instrumentation::add(Statistic::RedoWastage, padding);
            }
            instrumentation::add(Statistic::RedoEntries, 1);
            instrumentation::add(Statistic::RedoSize, length);
            if buffered >= (self.buffer_bytes_max as u64 / 3).min(LGWR_WRITE_THRESHOLD_BYTES as u64)
            {
                self.wake_lgwr();
            }
            let start = run_start + padding;
            if self.sync_every_record.load(Ordering::Relaxed) {
                self.flush_to(start + length)?;
            }
            return Ok((start, start + length));
        }
    }

    /// One of the 'redo copy' latches: the first free one from this thread's own, else (all
    /// busy) a wait for its own.
    fn copy_latch(&self) -> LatchGuard<'_, ()> {
        thread_local! {
            static HOME: usize = {
                static NEXT: AtomicUsize = AtomicUsize::new(0);
                NEXT.fetch_add(1, Ordering::Relaxed)
            };
        }
        let count = self.copy_latches.len();
        let home = HOME.with(|home| *home) % count;
        (0..count)
            .find_map(|offset| self.copy_latches[(home + offset) % count].try_lock())
            .unwrap_or_else(|| self.copy_latches[home].lock())
    }

    /// Waits until every copy into the buffer that had allocated its range by now is done
    /// (a writer, after taking its runs).
    pub(super) fn wait_for_copies(&self) {
        for latch in &self.copy_latches {
            if latch.try_lock().is_none() {
                let _wait = instrumentation::wait(WaitEvent::LgwrWaitForRedoCopy, 0, 0, 0);
                drop(latch.lock());
            }
        }
    }
}

/// A run of the stream in the log buffer: the LSNs `[start_lsn, start_lsn + bytes)` of one
/// sequence, stored at the buffer positions `[position, position + bytes)`. A new run starts
/// wherever the stream jumps: at a log switch, and after each write's padding.
pub(super) struct Run {
    pub(super) sequence: u64,
    pub(super) sequence_start_lsn: u64,
    pub(super) start_lsn: u64,
    pub(super) position: u64,
    pub(super) bytes: u64,
}

impl Run {
    fn end_lsn(&self) -> u64 {
        self.start_lsn + self.bytes
    }
}

pub(super) struct BufferState {
    /// What is allocated and not yet taken by a write, oldest first.
    pub(super) runs: Vec<Run>,
    pub(super) next_lsn: u64,
    /// The buffer position of the next byte allocated: it only grows, and the byte at
    /// position p lives at `p % size` of the ring.
    pub(super) next_position: u64,
    pub(super) sequence: u64,
    pub(super) sequence_start_lsn: u64,
    /// `ALTER SYSTEM SWITCH LOGFILE`: the next record starts the next sequence.
    pub(super) switch_requested: bool,
}

/// The log buffer's bytes: a ring that sessions copy their records into in parallel, each into
/// the range the 'redo allocation' latch gave it, and that a writer reads once every copy into
/// the range it writes has finished.
///
/// Ownership of a range, which is what makes the unsynchronized accesses sound:
/// 1. A range is allocated to one session under the allocation latch, while that session
///    holds a 'redo copy' latch; only that session writes it, before releasing the copy latch.
/// 2. A writer takes ranges under the allocation latch, then takes and releases every copy
///    latch: each copy into its ranges has then finished (and happens before its reads).
/// 3. A range is allocated again only after the write that took it has read it: the writer
///    raises `released` (Release) after its reads, and the allocator reads it (Acquire).
pub(super) struct Ring {
    bytes: Box<[std::cell::UnsafeCell<u8>]>,
}

// SAFETY: concurrent accesses are to disjoint ranges, ordered by the latches (see `Ring`).
unsafe impl Sync for Ring {}

impl Ring {
    pub(super) fn new(size: usize) -> Ring {
        Ring {
            bytes: (0..size).map(|_| std::cell::UnsafeCell::new(0)).collect(),
        }
    }

    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The two slices of ring offsets that `length` bytes from `position` occupy.
    fn spans(&self, position: u64, length: usize) -> [(usize, usize); 2] {
        let start = (position % self.size()) as usize;
        let first = length.min(self.bytes.len() - start);
        [(start, first), (0, length - first)]
    }

    /// Copies `data` to `position`.
    ///
    /// SAFETY: the caller owns `[position, position + data.len())` (see `Ring`), which is at
    /// most the ring's size.
    unsafe fn write(&self, position: u64, data: &[u8]) {
        let base = std::cell::UnsafeCell::raw_get(self.bytes.as_ptr());
        let mut done = 0;
        for (offset, length) in self.spans(position, data.len()) {
            std::ptr::copy_nonoverlapping(data[done..].as_ptr(), base.add(offset), length);
            done += length;
        }
    }

    /// Copies the bytes at `position` into `out`.
    ///
    /// SAFETY: every copy into `[position, position + out.len())` has finished and nothing
    /// writes it until the caller releases it (see `Ring`).
    pub(super) unsafe fn read(&self, position: u64, out: &mut [u8]) {
        let base = std::cell::UnsafeCell::raw_get(self.bytes.as_ptr()).cast_const();
        let mut done = 0;
        for (offset, length) in self.spans(position, out.len()) {
            std::ptr::copy_nonoverlapping(base.add(offset), out[done..].as_mut_ptr(), length);
            done += length;
        }
    }
}
