//! `RowSet`: a table of values with named columns, as a query's result, a view, DUAL or an
//! inline view hands it on. Columns carry their type when it is known (NULL literals and
//! some expressions have none until a value says).

use super::{DataType, Value};

/// A column of a statement's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The column's heading: its alias, or the expression as written, in upper case.
    pub name: String,
    /// None when every value is NULL and no type could be inferred.
    pub data_type: Option<DataType>,
}

/// A table of values with named columns: views, DUAL, inline views.
#[derive(Clone, Debug, Default)]
pub struct RowSet {
    pub columns: Vec<(String, Option<DataType>)>,
    pub rows: Vec<Vec<Value>>,
}
