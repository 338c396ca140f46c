//! Gathering optimizer statistics: what ANALYZE TABLE and DBMS_STATS measure of a table, its
//! columns and its indexes ([`TableStatistics`]).
//!
//! ```text
//!   table ── Reader::scan_table (the statement's snapshot, buffer gets, undo for
//!            │                    rows changed since: the path every query takes)
//!            ├─ every row:   num_rows
//!            └─ rows in the sample (all of them for COMPUTE):
//!                 row bytes ─────────────────────────────── avg_row_len
//!                 per column: NULL? ─────────────────────── num_nulls
//!                             lowest / highest (total_cmp) ─ low_value, high_value
//!                             stored bytes ──────────────── avg_col_len
//!                             hash of the key encoding ──── Synopsis ── num_distinct
//!   segment header ── blocks below the high-water mark ──── blocks
//!   each index ── BTree::statistics, BTree::clustering_factor ── IndexStatistics
//! ```
//!
//! Invariants and bounds:
//!
//! 1. The table is read once (twice for `SAMPLE n ROWS`, see below) through the query
//!    layer's reader, so the figures are those of one consistent snapshot, and the block
//!    gets, physical reads and 'table scan' statistics are counted as for any full scan.
//! 2. Memory is bounded whatever the table's size: the only state that grows with the data
//!    is one `Synopsis` per column, which holds at most `synopsis_entries(columns)` hash
//!    values (16384 per column, fewer for tables of more than 64 columns, at most
//!    [`SYNOPSIS_ENTRIES_TOTAL_MAX`] for the whole table). Distinct values are counted
//!    exactly below that many, and estimated beyond (Oracle's approximate NDV: adaptive
//!    sampling of hash values), within a few percent. The work area
//!    (`pga_aggregate_limit`) is therefore not charged: the bound is fixed and small.
//! 3. Sampling (ESTIMATE, `estimate_percent`) is by row: a row is in the sample when a hash
//!    of its rowid falls in the sampled fraction, so the same table gives the same sample
//!    (repeatable figures). Every block is still read, as in Oracle's row sampling (SAMPLE
//!    without BLOCK); what the sample saves is the measuring, not the I/O (BLOCK_SAMPLE =>
//!    TRUE is accepted and samples rows all the same: the reader has no block-sample scan).
//!    `num_rows` is exact (every row is counted), `num_nulls` is scaled from the sample,
//!    lengths are the sample's averages, and `num_distinct` is scaled by the Duj1 estimator
//!    of Haas and Stokes: `n·d / (n − f1 + f1·n / N)`, with n sampled values, d distinct
//!    among them, f1 of them seen once, N values in the table. `SAMPLE n ROWS` first counts
//!    the rows (a scan that decodes no column), then samples `n / rows`; a sample of the
//!    whole table or more is a COMPUTE, and so is a sample that came out empty while the
//!    table has rows (a small table: one more scan).
//! 4. Indexes are always read whole (their statistics are exact); `clustering_factor` walks
//!    the live entries in key order.
//!
//! Failure: whatever the reader raises (ORA-01555 under a long gathering, a corrupt block);
//! nothing has been written then. Publishing is the catalog's (`Catalog::set_statistics`).

use std::collections::hash_map::{DefaultHasher, Entry};
use std::collections::{BTreeMap, HashMap};
use std::hash::Hasher;

use crate::access::heap::{RowId, ROW_HEADER_BYTES};
use crate::access::segment;
use crate::catalog::statistics::{ColumnStatistics, IndexStatistics, TableStatistics};
use crate::catalog::TableDef;
use crate::error::Result;
use crate::sql::query::{ReadOptions, Reader};
use crate::types::{encode_key_column, encode_row, Value};

/// Bytes of a text column's low and high values kept in its statistics: Oracle keeps the
/// first 32 bytes (dba_tab_col_statistics.low_value is a RAW(32)), so that the dictionary row
/// holding a table's statistics fits a block however long its values are.
pub const COLUMN_BOUND_BYTES_MAX: usize = 32;

/// A low or high value as statistics keep it: text cut to its first
/// [`COLUMN_BOUND_BYTES_MAX`] bytes (at a character boundary), anything else whole.
fn bound(value: Value) -> Value {
    match value {
        Value::Text(text) if text.len() > COLUMN_BOUND_BYTES_MAX => {
            let mut end = COLUMN_BOUND_BYTES_MAX;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            Value::text(&text[..end])
        }
        other => other,
    }
}

/// Hash values one column's synopsis keeps at most (Oracle's approximate NDV keeps 16384).
pub const SYNOPSIS_ENTRIES_MAX: usize = 16_384;
/// Hash values all the synopses of one gathering keep at most (about 24 MiB).
pub const SYNOPSIS_ENTRIES_TOTAL_MAX: usize = 1 << 20;
/// The least a column's synopsis keeps, however many columns the table has.
pub const SYNOPSIS_ENTRIES_MIN: usize = 256;
/// Rows ANALYZE ... ESTIMATE STATISTICS samples without a SAMPLE clause (Oracle's 1064).
pub const ESTIMATE_ROWS_DEFAULT: u64 = 1064;

/// How much of the table to measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SampleSize {
    /// Every row (COMPUTE, `estimate_percent => NULL` or 100).
    All,
    /// About this percent of the rows, above 0 and below 100.
    Percent(f64),
    /// About this many rows.
    Rows(u64),
}

/// The synopsis entries one column may keep when the table has `columns` columns.
fn synopsis_entries(columns: usize) -> usize {
    (SYNOPSIS_ENTRIES_TOTAL_MAX / columns.max(1)).clamp(SYNOPSIS_ENTRIES_MIN, SYNOPSIS_ENTRIES_MAX)
}

/// A bounded distinct-value counter (Wegman's adaptive sampling, as in Oracle's approximate
/// NDV): it keeps the hash values whose lowest `level` bits are zero, each with whether it
/// was seen more than once; when more than `capacity` are kept, `level` goes up by one and
/// half of them (in expectation) go. Each kept value stands for 2^level values.
#[derive(Debug)]
struct Synopsis {
    hashes: HashMap<u64, bool>,
    level: u32,
    capacity: usize,
}

impl Synopsis {
    fn new(capacity: usize) -> Synopsis {
        Synopsis {
            hashes: HashMap::new(),
            level: 0,
            capacity,
        }
    }

    fn mask(&self) -> u64 {
        (1u64 << self.level) - 1
    }

    fn add(&mut self, hash: u64) {
        if hash & self.mask() != 0 {
            return;
        }
        match self.hashes.entry(hash) {
            Entry::Occupied(mut seen) => {
                seen.insert(true);
            }
            Entry::Vacant(new) => {
                new.insert(false);
            }
        }
        while self.hashes.len() > self.capacity && self.level < 63 {
            self.level += 1;
            let mask = self.mask();
            self.hashes.retain(|hash, _| hash & mask == 0);
        }
    }

    /// (distinct values, values seen exactly once), estimated.
    fn estimate(&self) -> (u64, u64) {
        let once = self.hashes.values().filter(|repeated| !**repeated).count() as u64;
        ((self.hashes.len() as u64) << self.level, once << self.level)
    }
}

/// What is measured of one column over the sampled rows.
#[derive(Debug)]
struct ColumnMeasure {
    nulls: u64,
    low: Value,
    high: Value,
    bytes: u64,
    distinct: Synopsis,
}

/// A stable 64-bit hash of `bytes` (SipHash with fixed keys: the same on every run).
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// Whether the row at `rowid` is in a sample of `fraction` of the rows.
fn sampled(rowid: RowId, fraction: f64) -> bool {
    fraction >= 1.0
        || (hash_bytes(&rowid.to_u64().to_le_bytes()) as f64) < fraction * u64::MAX as f64
}

/// Statistics of `table` (and, with `indexes`, of each of its indexes) as `reader` sees it.
/// `last_analyzed` is the time to record, seconds since the epoch.
pub fn table_statistics(
    reader: &Reader,
    table: &TableDef,
    sample: SampleSize,
    indexes: bool,
    last_analyzed: i64,
) -> Result<TableStatistics> {
    let extents = segment::used_extents(&reader.storage.cache, table.segment, table.buffer_pool)?;
    let blocks = crate::access::scan::FullScan::blocks(&extents) as u64;
    let fraction = match sample {
        SampleSize::All => 1.0,
        SampleSize::Percent(percent) => percent / 100.0,
        SampleSize::Rows(rows) => {
            let total = count_rows(reader, table)?;
            if total == 0 {
                1.0
            } else {
                rows as f64 / total as f64
            }
        }
    };
    let mut measured = measure(reader, table, fraction)?;
    if measured.sample_size == 0 && measured.num_rows > 0 {
        // A sample of a small table can come out empty: measure it all instead.
        measured = measure(reader, table, 1.0)?;
    }
    let Measured {
        num_rows,
        sample_size,
        row_bytes,
        columns,
    } = measured;
    let scale = if sample_size == 0 {
        1.0
    } else {
        num_rows as f64 / sample_size as f64
    };
    let average = |bytes: u64| bytes.div_ceil(sample_size.max(1));
    let mut statistics = TableStatistics {
        num_rows,
        blocks,
        avg_row_len: average(row_bytes),
        sample_size,
        last_analyzed,
        columns: BTreeMap::new(),
        indexes: BTreeMap::new(),
    };
    for (column, measure) in table.columns.iter().zip(columns) {
        let num_nulls = ((measure.nulls as f64 * scale).round() as u64).min(num_rows);
        let (distinct, once) = measure.distinct.estimate();
        let values_sampled = sample_size - measure.nulls;
        let num_distinct = if sample_size == num_rows {
            distinct
        } else {
            scaled_distinct(values_sampled, distinct, once, num_rows - num_nulls)
        };
        statistics.columns.insert(
            column.name.clone(),
            ColumnStatistics {
                num_distinct,
                num_nulls,
                low_value: bound(measure.low),
                high_value: bound(measure.high),
                avg_col_len: average(measure.bytes),
            },
        );
    }
    if indexes {
        for index in &table.indexes {
            statistics.indexes.insert(
                index.name.clone(),
                IndexStatistics::measure(&reader.storage.cache, index, last_analyzed)?,
            );
        }
    }
    Ok(statistics)
}

/// What one scan measured: every row counted, the sampled ones measured.
struct Measured {
    num_rows: u64,
    sample_size: u64,
    row_bytes: u64,
    columns: Vec<ColumnMeasure>,
}

/// Scans `table` once, measuring the rows in a sample of `fraction` of them.
fn measure(reader: &Reader, table: &TableDef, fraction: f64) -> Result<Measured> {
    let capacity = synopsis_entries(table.columns.len());
    let mut columns: Vec<ColumnMeasure> = table
        .columns
        .iter()
        .map(|_| ColumnMeasure {
            nulls: 0,
            low: Value::Null,
            high: Value::Null,
            bytes: 0,
            distinct: Synopsis::new(capacity),
        })
        .collect();
    let mut num_rows = 0u64;
    let mut sample_size = 0u64;
    let mut row_bytes = 0u64;
    let mut encoded = Vec::new();
    reader.scan_table(table, &mut |rowid, row| {
        num_rows += 1;
        if !sampled(rowid, fraction) {
            return Ok(true);
        }
        sample_size += 1;
        encoded.clear();
        encode_row(row, &mut encoded);
        row_bytes += (ROW_HEADER_BYTES + encoded.len()) as u64;
        for (value, measure) in row.iter().zip(&mut columns) {
            if value.is_null() {
                measure.nulls += 1;
                continue;
            }
            encoded.clear();
            encode_row(std::slice::from_ref(value), &mut encoded);
            measure.bytes += encoded.len() as u64 - 1; // less the row's column count
            encoded.clear();
            encode_key_column(value, false, &mut encoded);
            measure.distinct.add(hash_bytes(&encoded));
            if measure.low.is_null() || value.total_cmp(&measure.low).is_lt() {
                measure.low = value.clone();
            }
            if measure.high.is_null() || value.total_cmp(&measure.high).is_gt() {
                measure.high = value.clone();
            }
        }
        Ok(true)
    })?;
    Ok(Measured {
        num_rows,
        sample_size,
        row_bytes,
        columns,
    })
}

/// The Duj1 estimate of the distinct values among `values_total` values, from a sample of
/// `values_sampled` of them holding `distinct` distinct values, `once` of them seen once.
/// Never below what the sample saw nor above the values there are.
fn scaled_distinct(values_sampled: u64, distinct: u64, once: u64, values_total: u64) -> u64 {
    if values_sampled == 0 || values_total == 0 {
        return distinct.min(values_total);
    }
    let n = values_sampled as f64;
    let d = distinct as f64;
    let f1 = once.min(values_sampled) as f64;
    let total = values_total as f64;
    let denominator = n - f1 + f1 * n / total;
    let estimate = if denominator <= 0.0 {
        total
    } else {
        n * d / denominator
    };
    (estimate.round() as u64).clamp(distinct.min(values_total), values_total)
}

/// Rows of `table` the reader sees, decoding no column.
fn count_rows(reader: &Reader, table: &TableDef) -> Result<u64> {
    let none = vec![false; table.columns.len()];
    let mut rows = 0u64;
    reader.scan_table_columns(
        table,
        ReadOptions {
            needed: Some(&none),
            visit_under_latch: true,
            ..ReadOptions::default()
        },
        &mut |_, _| {
            rows += 1;
            Ok(true)
        },
    )?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Below its capacity a synopsis counts exactly; beyond, it estimates within a few
    /// percent while keeping at most `capacity` hashes.
    #[test]
    fn synopsis_is_exact_when_small_and_bounded_when_large() {
        let mut small = Synopsis::new(1000);
        for value in 0..500u64 {
            small.add(hash_bytes(&value.to_le_bytes()));
            small.add(hash_bytes(&(value % 100).to_le_bytes()));
        }
        assert_eq!(small.estimate(), (500, 400));
        let mut large = Synopsis::new(1024);
        for value in 0..200_000u64 {
            large.add(hash_bytes(&value.to_le_bytes()));
            assert!(large.hashes.len() <= 1024);
        }
        let (distinct, _) = large.estimate();
        let error = (distinct as f64 - 200_000.0).abs() / 200_000.0;
        assert!(error < 0.1, "{distinct}");
    }

    /// Duj1: a sample of all-distinct values scales up to the table; a sample where every
    /// value repeats stays what it saw.
    #[test]
    fn scaled_distinct_follows_duj1() {
        assert_eq!(scaled_distinct(100, 100, 100, 1000), 1000);
        assert_eq!(scaled_distinct(100, 10, 0, 1000), 10);
        let middle = scaled_distinct(100, 60, 40, 1000);
        assert!(middle > 60 && middle < 1000, "{middle}");
        assert_eq!(scaled_distinct(0, 0, 0, 1000), 0);
    }
}
