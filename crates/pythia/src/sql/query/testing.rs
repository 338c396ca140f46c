//! What the unit tests of `sql/query/` share: an evaluation context with no statement
//! around it, and scopes, sources and plans built by hand.

use std::sync::Arc;

use super::plan::{QueryPlan, Source, SourceKind};
use super::resolve::{Scope, ScopeColumn};
use crate::sql::eval::Context;
use crate::types::{Column, DataType};

/// A context with no binds, sequences, outer row, subqueries or dictionary.
pub(super) fn context() -> Context<'static> {
    Context::standalone()
}

/// A scope of `(qualifier, name, type)` columns, in order.
pub(super) fn scope(columns: &[(&str, &str, DataType)]) -> Scope {
    Scope {
        columns: columns
            .iter()
            .map(|(qualifier, name, data_type)| ScopeColumn {
                qualifier: qualifier.to_string(),
                name: name.to_string(),
                data_type: Some(*data_type),
                merged: false,
                hidden: false,
            })
            .collect(),
        merged: Vec::new(),
    }
}

/// A source of `width` columns at `offset` whose rows were read at planning time.
pub(super) fn rows_source(offset: usize, width: usize, name: &str) -> Source {
    Source::new(
        SourceKind::Rows(Arc::new(Vec::new()), true),
        offset,
        width,
        name.to_string(),
        false,
    )
}

/// A plan of `columns` NUMBER columns with no source and nothing above its join.
pub(super) fn plan(columns: usize) -> QueryPlan {
    QueryPlan {
        sources: Vec::new(),
        width: 0,
        rownum_filters: Vec::new(),
        grouped: None,
        projection: Vec::new(),
        order_by: Vec::new(),
        distinct: false,
        offset: None,
        fetch: None,
        columns: (0..columns)
            .map(|position| Column {
                name: format!("C{position}"),
                data_type: Some(DataType::number()),
            })
            .collect(),
        reusable: true,
        rows_touch_no_block: false,
        costed: false,
        estimate: None,
        above_estimates: Vec::new(),
        for_update: None,
    }
}
