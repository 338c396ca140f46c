//! Index range and unique scans: the rowids an index access proposes for a probe's values
//! (with IN-list iteration), and whether the scan vouches for its rows.

use std::collections::HashSet;
use std::ops::Bound;

use rustc_hash::FxHashSet;

use super::plan::Access;
use super::reader::Reader;
use crate::access::heap::RowId;
use crate::catalog::{IndexDef, TableDef};
use crate::error::{Error, Result};
use crate::sql::eval::Expr;
use crate::types::{encode_key, key_prefix_successor, DataType, GroupKey, Value};

/// The most values of an IN list an index access probes one by one (INLIST ITERATOR); a
/// longer list is a filter.
pub const IN_LIST_PROBES_MAX: usize = 1000;

/// The rowids an index access proposes: one index scan, or for an IN list one per distinct
/// value (INLIST ITERATOR), each row once. None when a value cannot probe the index (see
/// `index_rowids`).
pub(super) fn access_rowids(
    reader: &Reader,
    table: &TableDef,
    access: &Access,
    row: &[Value],
) -> Result<Option<IndexScan>> {
    if let Access::Rowid(value) = access {
        return user_rowid(reader, table, value, row).map(Some);
    }
    let Access::Index {
        index,
        equal,
        in_list,
        lower,
        upper,
    } = access
    else {
        unreachable!("an index access");
    };
    if in_list.is_empty() {
        return index_rowids(
            reader,
            table,
            index,
            equal,
            lower.as_ref(),
            upper.as_ref(),
            row,
        );
    }
    let context = reader.context(0);
    let mut probe = equal.clone();
    probe.push(Expr::Constant(Value::Null));
    let mut combined = IndexScan {
        rowids: Vec::new(),
        live: Vec::new(),
        exact: true,
    };
    let mut values_seen = HashSet::new();
    let mut rows_seen = FxHashSet::default();
    for item in in_list {
        let value = item.evaluate(row, &context)?;
        if !values_seen.insert(GroupKey(value.clone())) {
            continue;
        }
        *probe.last_mut().expect("the probed value") = Expr::Constant(value);
        let Some(scan) = index_rowids(reader, table, index, &probe, None, None, row)? else {
            return Ok(None);
        };
        combined.exact &= scan.exact;
        for (rowid, live) in scan.rowids.into_iter().zip(scan.live) {
            // A row whose key changed between two listed values has an entry under each.
            if rows_seen.insert(rowid.to_u64()) {
                combined.rowids.push(rowid);
                combined.live.push(live);
            }
        }
    }
    Ok(Some(combined))
}

/// TABLE ACCESS BY USER ROWID: the rowid `value` names, when it names one of `table`'s
/// (its object id; the block is checked at the read, `ReadOptions::segment`). Text that is
/// not a ROWID is ORA-01410.
fn user_rowid(reader: &Reader, table: &TableDef, value: &Expr, row: &[Value]) -> Result<IndexScan> {
    let mut scan = IndexScan {
        rowids: Vec::new(),
        live: Vec::new(),
        exact: false,
    };
    let text = match value.evaluate(row, &reader.context(0))? {
        Value::Null => return Ok(scan),
        Value::Text(text) => text,
        _ => return Err(invalid_rowid()),
    };
    let (object_id, rowid) = RowId::from_oracle_string(&text).ok_or_else(invalid_rowid)?;
    if object_id == table.object_id {
        scan.rowids.push(rowid);
        scan.live.push(true);
    }
    Ok(scan)
}

pub(super) fn invalid_rowid() -> Error {
    Error::new(1410, "invalid ROWID")
}

/// What an index scan proposes: rowids, each once, in index order.
pub struct IndexScan {
    pub rowids: Vec<RowId>,
    /// Per rowid: its entry is live (not delete-marked).
    pub live: Vec<bool>,
    /// Every probe value already had its key column's type, NUMBER (no conversion): key
    /// order and equality are then exactly SQL's, and the range decides the conjuncts it
    /// came from for the rows `Vouching` describes.
    pub(super) exact: bool,
}

/// The rowids an index scan proposes, each once, in index order.
pub fn index_rowids(
    reader: &Reader,
    table: &TableDef,
    index: &IndexDef,
    equal: &[Expr],
    lower: Option<&(Expr, bool)>,
    upper: Option<&(Expr, bool)>,
    row: &[Value],
) -> Result<Option<IndexScan>> {
    let context = reader.context(0);
    let column_type = |position: usize| table.columns[index.columns[position]].data_type;
    let nothing = IndexScan {
        rowids: Vec::new(),
        live: Vec::new(),
        exact: false,
    };
    let mut exact = true;
    let mut is_exact = |value: &Value, data_type: &DataType| {
        exact &= matches!(
            (data_type, value),
            (DataType::Number { .. }, Value::Number(_))
        );
    };
    let mut prefix_values = Vec::with_capacity(equal.len());
    for (position, expr) in equal.iter().enumerate() {
        let value = expr.evaluate(row, &context)?;
        is_exact(&value, &column_type(position));
        match key_value(value, &column_type(position))? {
            Probe::Key(value) => prefix_values.push(value),
            Probe::Nothing => return Ok(Some(nothing)),
            Probe::Unusable => return Ok(None),
        }
    }
    let descending = &index.descending[..(prefix_values.len() + 1).min(index.descending.len())];
    let mut prefix = Vec::new();
    encode_key(
        &prefix_values,
        &index.descending[..prefix_values.len()],
        &mut prefix,
    );
    // Err(Probe::Nothing): the bound can match nothing (NULL); Ok(None): no bound.
    type BoundKey = std::result::Result<Option<(Vec<u8>, bool)>, Probe>;
    let mut bound_key = |bound: Option<&(Expr, bool)>| -> Result<BoundKey> {
        let Some((expr, inclusive)) = bound else {
            return Ok(Ok(None));
        };
        let value = expr.evaluate(row, &context)?;
        is_exact(&value, &column_type(prefix_values.len()));
        let value = match key_value(value, &column_type(prefix_values.len()))? {
            Probe::Key(value) => value,
            other => return Ok(Err(other)),
        };
        let mut values = prefix_values.clone();
        values.push(value);
        let mut key = Vec::new();
        encode_key(&values, descending, &mut key);
        Ok(Ok(Some((key, *inclusive))))
    };
    let (lower_key, upper_key) = match (bound_key(lower)?, bound_key(upper)?) {
        (Ok(lower), Ok(upper)) => (lower, upper),
        (Err(Probe::Unusable), _) | (_, Err(Probe::Unusable)) => return Ok(None),
        _ => return Ok(Some(nothing)),
    };
    // Keys of longer tuples extend their prefix's bytes, so "every key with this prefix" is
    // [prefix, successor(prefix)).
    let lower_bound: Bound<Vec<u8>> = match lower_key {
        Some((key, true)) => Bound::Included(key),
        Some((key, false)) => match key_prefix_successor(&key) {
            Some(successor) => Bound::Included(successor),
            None => return Ok(Some(nothing)),
        },
        None if prefix.is_empty() => Bound::Unbounded,
        None => Bound::Included(prefix.clone()),
    };
    let upper_bound: Bound<Vec<u8>> = match upper_key {
        Some((key, true)) => key_prefix_successor(&key).map_or(Bound::Unbounded, Bound::Excluded),
        Some((key, false)) => Bound::Excluded(key),
        // `col > v` alone: up to the NULLs, which sort last and compare with nothing.
        None if lower.is_some() => {
            let mut values = prefix_values.clone();
            values.push(Value::Null);
            let mut key = Vec::new();
            encode_key(&values, descending, &mut key);
            Bound::Excluded(key)
        }
        None if prefix.is_empty() => Bound::Unbounded,
        None => key_prefix_successor(&prefix).map_or(Bound::Unbounded, Bound::Excluded),
    };
    let mut entries = Vec::new();
    index.tree.range_bounds_rowids(
        &reader.storage.cache,
        lower_bound.as_ref().map(Vec::as_slice),
        upper_bound.as_ref().map(Vec::as_slice),
        &mut |rowid, deleted| entries.push((rowid, !deleted)),
    )?;
    // A row appears twice when a key change left a delete-marked entry for its old key in
    // the range too. Sorting a copy finds whether any did; only then is each kept once (the
    // first, in index order).
    let mut sorted: Vec<u64> = entries.iter().map(|(rowid, _)| *rowid).collect();
    sorted.sort_unstable();
    if sorted.windows(2).any(|pair| pair[0] == pair[1]) {
        let mut seen = FxHashSet::default();
        entries.retain(|(rowid, _)| seen.insert(*rowid));
    }
    Ok(Some(IndexScan {
        rowids: entries
            .iter()
            .map(|(rowid, _)| RowId::from_u64(*rowid))
            .collect(),
        live: entries.iter().map(|(_, live)| *live).collect(),
        exact,
    }))
}

/// A value as an index key column's probe.
enum Probe {
    Key(Value),
    /// NULL, or a value no key can equal: the probe matches nothing.
    Nothing,
    /// A value the column would have to be converted to compare with (a number or a date
    /// against text: Oracle converts the text), so the index's order does not serve.
    Unusable,
}

/// A value converted to a key column's type for probing. Conversion errors are the
/// comparison's errors (ORA-01722 ...).
fn key_value(value: Value, data_type: &DataType) -> Result<Probe> {
    if value.is_null() {
        return Ok(Probe::Nothing);
    }
    let converted = match (data_type, &value) {
        (DataType::Number { .. } | DataType::Float, Value::Number(_) | Value::Float(_)) => value,
        (DataType::Number { .. }, _) => Value::Number(value.to_decimal()?),
        (DataType::Float, _) => Value::Float(value.to_float()?),
        (DataType::Varchar2 { .. } | DataType::Char { .. }, Value::Text(_)) => value,
        (DataType::Varchar2 { .. } | DataType::Char { .. }, _) => return Ok(Probe::Unusable),
        (DataType::Date | DataType::Timestamp, Value::Date(_) | Value::Timestamp(_)) => value,
        (other, _) => value.cast(other)?,
    };
    Ok(Probe::Key(converted))
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;

    fn key(value: Value, data_type: DataType) -> Option<Value> {
        match key_value(value, &data_type).unwrap() {
            Probe::Key(key) => Some(key),
            Probe::Nothing | Probe::Unusable => None,
        }
    }

    #[test]
    fn a_null_probe_matches_nothing_whatever_the_column() {
        for data_type in [DataType::number(), DataType::varchar2(10), DataType::Date] {
            assert!(matches!(
                key_value(Value::Null, &data_type).unwrap(),
                Probe::Nothing
            ));
        }
    }

    #[test]
    fn text_probing_a_number_column_is_converted_as_the_comparison_would() {
        assert_eq!(
            key(Value::text("42"), DataType::number()),
            Some(Value::Number(Decimal::from(42)))
        );
        assert_eq!(
            key(Value::integer(7), DataType::number()),
            Some(Value::integer(7))
        );
        let Err(error) = key_value(Value::text("forty-two"), &DataType::number()) else {
            panic!("text that is no number cannot probe a NUMBER column");
        };
        assert_eq!(error.code(), 1722);
    }

    #[test]
    fn a_number_cannot_probe_a_text_column_whose_values_it_would_convert() {
        assert!(matches!(
            key_value(Value::integer(42), &DataType::varchar2(10)).unwrap(),
            Probe::Unusable
        ));
        assert_eq!(
            key(Value::text("42"), DataType::varchar2(10)),
            Some(Value::text("42"))
        );
    }
}
