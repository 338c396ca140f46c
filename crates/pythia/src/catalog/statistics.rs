//! Optimizer statistics: what `ANALYZE TABLE ... COMPUTE STATISTICS` and
//! `DBMS_STATS.GATHER_TABLE_STATS` measure of a table, its columns and its indexes, and what
//! the cost-based optimizer (`sql::optimizer`) estimates from.
//!
//! A table's statistics hang off its definition (`TableDef::statistics`), so that they are
//! versioned with the dictionary: gathering them makes a new dictionary version, which
//! plans kept by sessions notice (a plan is reused only against the version it was made
//! with), as Oracle invalidates the cursors of an analyzed table.

use std::collections::BTreeMap;

use crate::types::Value;

/// Statistics of one table (dba_tables, dba_tab_statistics).
#[derive(Clone, Debug, PartialEq)]
pub struct TableStatistics {
    /// Rows (dba_tables.num_rows).
    pub num_rows: u64,
    /// Blocks below the high-water mark that hold or held rows (dba_tables.blocks).
    pub blocks: u64,
    /// Average row length in bytes, as stored (dba_tables.avg_row_len).
    pub avg_row_len: u64,
    /// Rows the figures were computed from (all of them for COMPUTE).
    pub sample_size: u64,
    /// When they were gathered, seconds since the Unix epoch (dba_tables.last_analyzed).
    pub last_analyzed: i64,
    /// By column name (dba_tab_col_statistics).
    pub columns: BTreeMap<String, ColumnStatistics>,
    /// By index name (dba_indexes' statistics columns).
    pub indexes: BTreeMap<String, IndexStatistics>,
}

/// Statistics of one column.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnStatistics {
    pub num_distinct: u64,
    pub num_nulls: u64,
    /// The lowest and highest non-null values (NULL when every value is NULL).
    pub low_value: Value,
    pub high_value: Value,
    /// Average stored length of the column's values, in bytes.
    pub avg_col_len: u64,
}

impl ColumnStatistics {
    /// dba_tab_col_statistics.density: the selectivity of an equality, 1 / num_distinct
    /// (no histograms), 0 for a column with no values.
    pub fn density(&self) -> f64 {
        if self.num_distinct == 0 {
            0.0
        } else {
            1.0 / self.num_distinct as f64
        }
    }
}

/// Statistics of one index.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexStatistics {
    /// Branch levels above the leaves (0: the root is a leaf).
    pub blevel: u32,
    pub leaf_blocks: u64,
    pub distinct_keys: u64,
    /// Entries (not delete-marked) the index holds.
    pub num_rows: u64,
    /// How many times a scan of the whole index in key order would move to a different table
    /// block: near the table's blocks when rows are stored in key order, near its rows
    /// when they are scattered.
    pub clustering_factor: u64,
    pub last_analyzed: i64,
}
