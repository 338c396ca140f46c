//! The buffer cache's views (`docs/buffer-pools.md`), read from the querying session's
//! instance's cache (`ViewContext::buffer_cache`; without one they have no rows):
//!
//! - **v$buffer_pool**: one row per configured pool: its buffers, size, buffer range
//!   (LO_BNUM..HI_BNUM) and working sets (LO_SETID..HI_SETID, SET_COUNT).
//! - **v$buffer_pool_statistics**: seed 001's Table 3, one row per configured pool, its working
//!   sets' counters summed.
//! - **x$kcbwds**: one row per working set: its buffer range, how many buffers are on its
//!   replacement list, in its hot region and on its free list, and its aging algorithm.
//! - **x$bh**: one row per buffer: the block it holds (FILE#, DBABLK, OBJ, CLASS), STATE (0
//!   free, 1 current, 4 being read), FLAG (1: dirty, 524288: read by a full scan), TCH and
//!   TIM (the last counted touch, seconds on the aging clock), LRU_FLAG (hot or cold), its
//!   working set and pool, its neighbours in the set's replacement list (NXT_REPL towards
//!   the LRU end, PRV_REPL towards the MRU end) and Pythia's POSITION there (0: MRU end).
//!   **v$bh** shows the buffers that hold a block, with Oracle's v$bh columns.
//! - **v$db_cache_advice**: 20 rows per pool (SIZE_FACTOR 0.1 to 2.0), the physical reads it
//!   would have made at each size (`buffer/advice.rs`), once `db_cache_advice` has been ON;
//!   ADVICE_STATUS is ON while it collects and OFF otherwise (Oracle's VARCHAR2(3): READY,
//!   which does not collect, shows OFF), the estimates then those of the last period.

use rust_decimal::Decimal;

use super::registry::View;
use super::table::{number, quotient, raw, text, varchar2, Columns, NUMBER, RAW_ADDRESS_DIGITS};
use super::ViewContext;
use crate::buffer::{BufferHeader, BufferPool};
use crate::types::Value;

pub(super) const VIEWS: &[View] = &[
    View::fixed("V$BUFFER_POOL", BUFFER_POOL_COLUMNS, buffer_pool_rows),
    View::fixed(
        "V$BUFFER_POOL_STATISTICS",
        BUFFER_POOL_STATISTICS_COLUMNS,
        buffer_pool_statistics_rows,
    ),
    View::fixed("X$KCBWDS", KCBWDS_COLUMNS, kcbwds_rows),
    View::fixed("X$BH", BH_COLUMNS, bh_rows),
    View::fixed("V$BH", V_BH_COLUMNS, v_bh_rows),
    View::fixed(
        "V$DB_CACHE_ADVICE",
        DB_CACHE_ADVICE_COLUMNS,
        db_cache_advice_rows,
    ),
];

/// Where the SGA's buffer headers and working set descriptors seem to be (ADDR columns).
const BUFFER_HEADER_BASE: u64 = 0x6000_0000;
const BUFFER_HEADER_BYTES: u64 = 0x100;
const WORKING_SET_BASE: u64 = 0x5F00_0000;
const WORKING_SET_BYTES: u64 = 0x400;

const BUFFER_POOL_COLUMNS: Columns = &[
    ("ID", NUMBER),
    ("NAME", varchar2(20)),
    ("BLOCK_SIZE", NUMBER),
    ("RESIZE_STATE", varchar2(10)),
    ("CURRENT_SIZE", NUMBER),
    ("BUFFERS", NUMBER),
    ("TARGET_SIZE", NUMBER),
    ("TARGET_BUFFERS", NUMBER),
    ("PREV_SIZE", NUMBER),
    ("PREV_BUFFERS", NUMBER),
    ("LO_BNUM", NUMBER),
    ("HI_BNUM", NUMBER),
    ("LO_SETID", NUMBER),
    ("HI_SETID", NUMBER),
    ("SET_COUNT", NUMBER),
];

fn buffer_pool_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(cache) = &context.buffer_cache else {
        return Vec::new();
    };
    let sets = cache.working_set_rows();
    let block_size = cache.block_size() as u64;
    BufferPool::ALL
        .into_iter()
        .filter_map(|pool| {
            let of_pool: Vec<_> = sets.iter().filter(|set| set.pool == pool).collect();
            let (first, last) = (of_pool.first()?, of_pool.last()?);
            let buffers: usize = of_pool.iter().map(|set| set.buffers).sum();
            let megabytes = number((buffers as u64 * block_size) >> 20);
            Some(vec![
                number(pool.index() as u64 + 1),
                text(pool.name()),
                number(block_size),
                text("STATIC"),
                megabytes.clone(),
                number(buffers as u64),
                megabytes.clone(),
                number(buffers as u64),
                megabytes,
                number(buffers as u64),
                number(first.first_buffer as u64),
                number(last.last_buffer as u64),
                number(first.set_id as u64 + 1),
                number(last.set_id as u64 + 1),
                number(of_pool.len() as u64),
            ])
        })
        .collect()
}

const BUFFER_POOL_STATISTICS_COLUMNS: Columns = &[
    ("ID", NUMBER),
    ("NAME", varchar2(20)),
    ("BLOCK_SIZE", NUMBER),
    ("SET_MSIZE", NUMBER),
    ("CNUM_REPL", NUMBER),
    ("CNUM_WRITE", NUMBER),
    ("CNUM_SET", NUMBER),
    ("BUF_GOT", NUMBER),
    ("SUM_WRITE", NUMBER),
    ("SUM_SCAN", NUMBER),
    ("FREE_BUFFER_WAIT", NUMBER),
    ("WRITE_COMPLETE_WAIT", NUMBER),
    ("BUFFER_BUSY_WAIT", NUMBER),
    ("FREE_BUFFER_INSPECTED", NUMBER),
    ("DIRTY_BUFFERS_INSPECTED", NUMBER),
    ("DB_BLOCK_CHANGE", NUMBER),
    ("DB_BLOCK_GETS", NUMBER),
    ("CONSISTENT_GETS", NUMBER),
    ("PHYSICAL_READS", NUMBER),
    ("PHYSICAL_WRITES", NUMBER),
];

fn buffer_pool_statistics_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(cache) = &context.buffer_cache else {
        return Vec::new();
    };
    let block_size = cache.block_size() as u64;
    cache
        .pool_statistics()
        .into_iter()
        .map(|row| {
            vec![
                number(row.pool.index() as u64 + 1),
                text(row.pool.name()),
                number(block_size),
                number(row.largest_set as u64),
                number(row.on_lists as u64),
                number(row.on_write_lists as u64),
                number(row.buffers as u64),
                number(row.buffers_got),
                number(row.buffers_written),
                number(row.buffers_inspected),
                number(row.free_buffer_waits),
                number(row.write_complete_waits),
                number(row.buffer_busy_waits),
                number(row.buffers_inspected),
                number(row.dirty_buffers_inspected),
                number(row.db_block_changes),
                number(row.db_block_gets),
                number(row.consistent_gets),
                number(row.physical_reads),
                number(row.physical_writes),
            ]
        })
        .collect()
}

const KCBWDS_COLUMNS: Columns = &[
    ("ADDR", varchar2(RAW_ADDRESS_DIGITS)),
    ("SET_ID", NUMBER),
    ("POOL_NAME", varchar2(20)),
    ("START_BUF#", NUMBER),
    ("END_BUF#", NUMBER),
    ("CNUM_SET", NUMBER),
    ("CNUM_REPL", NUMBER),
    ("CNUM_HOT", NUMBER),
    ("CNUM_FREE", NUMBER),
    ("ALGORITHM", varchar2(20)),
];

fn kcbwds_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(cache) = &context.buffer_cache else {
        return Vec::new();
    };
    cache
        .working_set_rows()
        .into_iter()
        .map(|set| {
            vec![
                raw(working_set_address(set.set_id)),
                number(set.set_id as u64 + 1),
                text(set.pool.name()),
                number(set.first_buffer as u64),
                number(set.last_buffer as u64),
                number(set.buffers as u64),
                number(set.on_list as u64),
                number(set.hot as u64),
                number(set.free as u64),
                text(set.algorithm),
            ]
        })
        .collect()
}

fn working_set_address(set_id: usize) -> u64 {
    WORKING_SET_BASE + set_id as u64 * WORKING_SET_BYTES
}

const BH_COLUMNS: Columns = &[
    ("ADDR", varchar2(RAW_ADDRESS_DIGITS)),
    ("BUF#", NUMBER),
    ("SET_DS", varchar2(RAW_ADDRESS_DIGITS)),
    ("POOL", varchar2(20)),
    ("OBJ", NUMBER),
    ("TS#", NUMBER),
    ("FILE#", NUMBER),
    ("DBARFIL", NUMBER),
    ("DBABLK", NUMBER),
    ("CLASS", NUMBER),
    ("STATE", NUMBER),
    ("FLAG", NUMBER),
    ("TCH", NUMBER),
    ("TIM", NUMBER),
    ("LRU_FLAG", NUMBER),
    ("NXT_REPL", varchar2(RAW_ADDRESS_DIGITS)),
    ("PRV_REPL", varchar2(RAW_ADDRESS_DIGITS)),
    ("POSITION", NUMBER),
];

/// x$bh.lru_flag: Oracle sets 8 for a buffer in the hot region (0: cold).
const LRU_FLAG_HOT: u64 = 8;
/// x$bh.state: free, holding the current version of its block, being read into.
const STATE_FREE: u64 = 0;
const STATE_CURRENT: u64 = 1;
const STATE_READING: u64 = 4;
/// x$bh.flag bits: changed since written; read by a full scan.
const FLAG_DIRTY: u64 = 1;
const FLAG_SCANNED: u64 = 524_288;

fn buffer_address(frame: usize) -> u64 {
    BUFFER_HEADER_BASE + frame as u64 * BUFFER_HEADER_BYTES
}

fn bh_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(cache) = &context.buffer_cache else {
        return Vec::new();
    };
    cache
        .buffer_headers()
        .into_iter()
        .map(|header| {
            let (file, block) = header.block.map_or((Value::Null, Value::Null), |block| {
                (
                    number(u64::from(block.file)),
                    number(u64::from(block.block)),
                )
            });
            let state = match (header.block, header.reading) {
                (None, _) => STATE_FREE,
                (Some(_), true) => STATE_READING,
                (Some(_), false) => STATE_CURRENT,
            };
            let flag = if header.dirty { FLAG_DIRTY } else { 0 }
                | if header.scanned { FLAG_SCANNED } else { 0 };
            // Oracle shows a list's ends as the list head's address; no neighbour is 00 here.
            let neighbour = |frame: Option<usize>| raw(frame.map_or(0, buffer_address));
            vec![
                raw(buffer_address(header.frame)),
                number(header.frame as u64),
                raw(working_set_address(header.working_set)),
                text(header.pool.name()),
                number(u64::from(header.object_id)),
                number(0),
                file.clone(),
                file,
                block,
                number(class_number(&header)),
                number(state),
                number(flag),
                number(u64::from(header.touch_count)),
                number(u64::from(header.touch_time)),
                number(if header.hot { LRU_FLAG_HOT } else { 0 }),
                neighbour(header.next_in_list),
                neighbour(header.previous_in_list),
                header
                    .lru_position
                    .map_or(Value::Null, |position| number(position as u64)),
            ]
        })
        .collect()
}

/// Oracle's block class numbers (x$bh.class, v$bh.class#; v$waitstat's order).
fn class_number(header: &BufferHeader) -> u64 {
    match header.class {
        "data block" => 1,
        "segment header" => 4,
        "bitmap block" => 11,
        "file header block" => 13,
        "undo header" => 17,
        "undo block" => 18,
        _ => 0,
    }
}

const V_BH_COLUMNS: Columns = &[
    ("FILE#", NUMBER),
    ("BLOCK#", NUMBER),
    ("CLASS#", NUMBER),
    ("STATUS", varchar2(10)),
    ("DIRTY", varchar2(1)),
    ("OBJD", NUMBER),
    ("POOL", varchar2(20)),
    ("TCH", NUMBER),
];

fn v_bh_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(cache) = &context.buffer_cache else {
        return Vec::new();
    };
    cache
        .buffer_headers()
        .into_iter()
        .filter_map(|header| {
            let block = header.block?;
            Some(vec![
                number(u64::from(block.file)),
                number(u64::from(block.block)),
                number(class_number(&header)),
                text(if header.reading { "read" } else { "xcur" }),
                text(if header.dirty { "Y" } else { "N" }),
                number(u64::from(header.object_id)),
                text(header.pool.name()),
                number(u64::from(header.touch_count)),
            ])
        })
        .collect()
}

const DB_CACHE_ADVICE_COLUMNS: Columns = &[
    ("ID", NUMBER),
    ("NAME", varchar2(20)),
    ("BLOCK_SIZE", NUMBER),
    ("ADVICE_STATUS", varchar2(3)),
    ("SIZE_FOR_ESTIMATE", NUMBER),
    ("SIZE_FACTOR", NUMBER),
    ("BUFFERS_FOR_ESTIMATE", NUMBER),
    ("ESTD_PHYSICAL_READ_FACTOR", NUMBER),
    ("ESTD_PHYSICAL_READS", NUMBER),
];

/// `numerator / divisor` rounded to `places` decimals.
fn decimal(numerator: u64, divisor: u64, places: u32) -> Value {
    quotient(Decimal::from(numerator), Decimal::from(divisor), places)
}

fn db_cache_advice_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(cache) = &context.buffer_cache else {
        return Vec::new();
    };
    let block_size = cache.block_size() as u64;
    cache
        .cache_advice()
        .into_iter()
        .map(|row| {
            // NULL where the pool read nothing at its size (Oracle's rule).
            let read_factor = if row.measured_reads == 0 {
                Value::Null
            } else {
                decimal(row.estimated_reads, row.measured_reads, 4)
            };
            vec![
                number(row.pool.index() as u64 + 1),
                text(row.pool.name()),
                number(block_size),
                text(if row.collecting { "ON" } else { "OFF" }),
                decimal(row.buffers as u64 * block_size, 1 << 20, 2),
                decimal(row.size_factor_tenths as u64, 10, 1),
                number(row.buffers as u64),
                read_factor,
                number(row.estimated_reads),
            ]
        })
        .collect()
}
