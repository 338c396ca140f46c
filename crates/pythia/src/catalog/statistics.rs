//! Optimizer statistics: what `ANALYZE TABLE ... COMPUTE STATISTICS` and
//! `DBMS_STATS.GATHER_TABLE_STATS` measure of a table, its columns and its indexes, and what
//! the cost-based optimizer (`sql::optimizer`) estimates from.
//!
//! A table's statistics hang off its definition (`TableDef::statistics`), so that they are
//! versioned with the dictionary: gathering them makes a new dictionary version, which
//! plans kept by sessions notice (a plan is reused only against the version it was made
//! with), as Oracle invalidates the cursors of an analyzed table.
//!
//! Stored as STATS rows of DICT$ (the layout is in the catalog module's documentation):
//! `dictionary_rows` makes them, `StatisticsRows` reads them back at open. Gathering is
//! `sql::gather`; publishing `Catalog::set_statistics`.

use std::collections::BTreeMap;

use crate::access::heap::RowId;
use crate::buffer::BufferCache;
use crate::catalog::IndexDef;
use crate::error::{Error, Result};
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
    /// The lowest and highest non-null values by `Value::total_cmp` (NULL when every
    /// value is NULL).
    pub low_value: Value,
    pub high_value: Value,
    /// Average stored length of the column's values, in bytes (a NULL counts 0), over the
    /// rows measured.
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

impl IndexStatistics {
    /// Statistics of one index, read whole through the buffer cache (shared gets, one block
    /// at a time): what ANALYZE and DBMS_STATS gather of it, and CREATE INDEX of the index it
    /// just built on an analyzed table.
    pub fn measure(
        cache: &BufferCache,
        index: &IndexDef,
        last_analyzed: i64,
    ) -> Result<IndexStatistics> {
        let tree = index.tree.statistics(cache)?;
        let table_block = |rowid: u64| RowId::from_u64(rowid).block as u64;
        let statistics = IndexStatistics {
            blevel: tree.blevel,
            leaf_blocks: tree.leaf_blocks,
            distinct_keys: tree.distinct_keys,
            num_rows: tree.entries - tree.deleted_entries,
            clustering_factor: index.tree.clustering_factor(cache, &table_block)?,
            last_analyzed,
        };
        debug_assert!(tree.deleted_entries <= tree.entries && tree.distinct_keys <= tree.entries);
        Ok(statistics)
    }
}

/// The third column of a STATS row of DICT$: what the row describes.
const ROW_TABLE: &str = "TABLE";
const ROW_COLUMN: &str = "COLUMN";
const ROW_INDEX: &str = "INDEX";

/// The DICT$ rows that keep `statistics` of table `table_id` (see the catalog module doc for
/// the layout): one TABLE row, one COLUMN row per column, one INDEX row per index, each
/// index named by its object number (`index_id`), so that the rows need no rewrite when a
/// name changes. An index `index_id` does not know is left out.
pub(super) fn dictionary_rows(
    table_id: u32,
    statistics: &TableStatistics,
    index_id: &dyn Fn(&str) -> Option<u32>,
) -> Vec<Vec<Value>> {
    let head = |kind: &str, what: Value| {
        vec![
            Value::text("STATS"),
            Value::integer(table_id as i64),
            Value::text(kind),
            what,
        ]
    };
    let mut rows = Vec::with_capacity(1 + statistics.columns.len() + statistics.indexes.len());
    let mut row = head(ROW_TABLE, Value::Null);
    row.extend([
        count(statistics.num_rows),
        count(statistics.blocks),
        count(statistics.avg_row_len),
        count(statistics.sample_size),
        Value::integer(statistics.last_analyzed),
    ]);
    rows.push(row);
    for (name, column) in &statistics.columns {
        let mut row = head(ROW_COLUMN, Value::text(name));
        row.extend([
            count(column.num_distinct),
            count(column.num_nulls),
            column.low_value.clone(),
            column.high_value.clone(),
            count(column.avg_col_len),
        ]);
        rows.push(row);
    }
    for (name, index) in &statistics.indexes {
        let Some(id) = index_id(name) else {
            continue;
        };
        let mut row = head(ROW_INDEX, Value::integer(id as i64));
        row.extend([
            count(index.blevel as u64),
            count(index.leaf_blocks),
            count(index.distinct_keys),
            count(index.num_rows),
            count(index.clustering_factor),
            Value::integer(index.last_analyzed),
        ]);
        rows.push(row);
    }
    rows
}

fn count(value: u64) -> Value {
    Value::Number(rust_decimal::Decimal::from(value))
}

/// STATS rows of one table read back at open, in whatever order DICT$ holds them.
#[derive(Debug, Default)]
pub(super) struct StatisticsRows {
    table: Option<TableStatistics>,
    columns: BTreeMap<String, ColumnStatistics>,
    /// By index object number.
    indexes: BTreeMap<u32, IndexStatistics>,
}

impl StatisticsRows {
    /// Takes one STATS row (`values[0]` is 'STATS', `values[1]` the table's object number).
    pub(super) fn add(&mut self, values: &[Value]) -> Result<()> {
        let number = |index: usize| -> Result<u64> {
            values
                .get(index)
                .and_then(Value::as_decimal)
                .and_then(|number| u64::try_from(number).ok())
                .ok_or_else(|| {
                    Error::internal(format!(
                        "dictionary STATS row: column {index} is not a count"
                    ))
                })
        };
        let value = |index: usize| values.get(index).cloned().unwrap_or(Value::Null);
        match values.get(2).and_then(Value::as_str) {
            Some(ROW_TABLE) => {
                self.table = Some(TableStatistics {
                    num_rows: number(4)?,
                    blocks: number(5)?,
                    avg_row_len: number(6)?,
                    sample_size: number(7)?,
                    last_analyzed: number(8)? as i64,
                    columns: BTreeMap::new(),
                    indexes: BTreeMap::new(),
                })
            }
            Some(ROW_COLUMN) => {
                let name = value(3)
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| Error::internal("dictionary STATS row: no column name"))?;
                self.columns.insert(
                    name,
                    ColumnStatistics {
                        num_distinct: number(4)?,
                        num_nulls: number(5)?,
                        low_value: value(6),
                        high_value: value(7),
                        avg_col_len: number(8)?,
                    },
                );
            }
            Some(ROW_INDEX) => {
                self.indexes.insert(
                    number(3)? as u32,
                    IndexStatistics {
                        blevel: number(4)? as u32,
                        leaf_blocks: number(5)?,
                        distinct_keys: number(6)?,
                        num_rows: number(7)?,
                        clustering_factor: number(8)?,
                        last_analyzed: number(9)? as i64,
                    },
                );
            }
            _ => return Err(Error::internal("dictionary STATS row of an unknown kind")),
        }
        Ok(())
    }

    /// The statistics the rows describe (None without a TABLE row), with the indexes named
    /// by `index_name` (an index it does not know, since dropped, is left out).
    pub(super) fn finish(
        self,
        index_name: &dyn Fn(u32) -> Option<String>,
    ) -> Option<TableStatistics> {
        let mut table = self.table?;
        table.columns = self.columns;
        table.indexes = self
            .indexes
            .into_iter()
            .filter_map(|(id, index)| Some((index_name(id)?, index)))
            .collect();
        Some(table)
    }
}

impl TableStatistics {
    /// The statistics after a column is renamed (`to` Some) or dropped (`to` None).
    pub fn with_column_renamed(&self, from: &str, to: Option<&str>) -> TableStatistics {
        let mut changed = self.clone();
        if let Some(column) = changed.columns.remove(from) {
            if let Some(to) = to {
                changed.columns.insert(to.to_string(), column);
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The STATS rows read back to the statistics they were made from, whatever order DICT$
    /// returns them in; an index whose number is no longer known is left out.
    #[test]
    fn dictionary_rows_read_back_to_the_same_statistics() {
        let column = |num_distinct, low: Value, high: Value| ColumnStatistics {
            num_distinct,
            num_nulls: 3,
            low_value: low,
            high_value: high,
            avg_col_len: 5,
        };
        let index = |distinct_keys| IndexStatistics {
            blevel: 1,
            leaf_blocks: 7,
            distinct_keys,
            num_rows: 100,
            clustering_factor: 12,
            last_analyzed: 1_700_000_000,
        };
        let original = TableStatistics {
            num_rows: 100,
            blocks: 12,
            avg_row_len: 31,
            sample_size: 100,
            last_analyzed: 1_700_000_000,
            columns: BTreeMap::from([
                (
                    "A".to_string(),
                    column(97, Value::integer(-4), Value::integer(99)),
                ),
                (
                    "B".to_string(),
                    column(2, Value::text("x"), Value::text("y z")),
                ),
                (
                    "C".to_string(),
                    column(1, Value::Date(86_400), Value::Date(86_400)),
                ),
                ("D".to_string(), column(0, Value::Null, Value::Null)),
            ]),
            indexes: BTreeMap::from([
                ("I_A".to_string(), index(97)),
                ("I_B".to_string(), index(2)),
            ]),
        };
        let ids = |name: &str| match name {
            "I_A" => Some(201),
            "I_B" => Some(202),
            _ => None,
        };
        let mut rows = dictionary_rows(150, &original, &ids);
        assert_eq!(rows.len(), 1 + 4 + 2);
        for row in &rows {
            assert_eq!(row[0], Value::text("STATS"));
            assert_eq!(row[1], Value::integer(150));
        }
        rows.reverse();
        let mut read = StatisticsRows::default();
        for row in &rows {
            read.add(row).unwrap();
        }
        let names = |id: u32| match id {
            201 => Some("I_A".to_string()),
            202 => Some("I_B".to_string()),
            _ => None,
        };
        assert_eq!(read.finish(&names), Some(original.clone()));

        let mut read = StatisticsRows::default();
        for row in &rows {
            read.add(row).unwrap();
        }
        let only_a = |id: u32| (id == 201).then(|| "I_A".to_string());
        let without_b = read.finish(&only_a).unwrap();
        assert_eq!(without_b.indexes.keys().collect::<Vec<_>>(), ["I_A"]);

        // No TABLE row: no statistics.
        let mut read = StatisticsRows::default();
        read.add(&rows[0]).unwrap();
        assert_eq!(read.finish(&names), None);
        // A malformed row is ORA-00600, not a panic.
        let error = StatisticsRows::default()
            .add(&[Value::text("STATS"), Value::integer(150), Value::text("??")])
            .unwrap_err();
        assert_eq!(error.code(), 600);
    }
}
