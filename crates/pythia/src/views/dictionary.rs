//! The dictionary views (`dba_tables`, `user_tables`, `dba_indexes`, `dba_segments`,
//! `dba_sequences`, `dba_tab_columns`, `dba_objects`, `dba_views`, `dba_constraints`,
//! `dba_tab_statistics`, `dba_tab_col_statistics`, their `user_` and `all_` twins) and
//! DUAL, built from one version of the dictionary. Every object belongs to SYSTEM for now,
//! so the `user_` views are the `dba_` views without the OWNER column, and the `all_`
//! views are the `dba_` views.
//!
//! Optimizer statistics columns (NUM_ROWS, BLOCKS, AVG_ROW_LEN, NUM_DISTINCT, BLEVEL,
//! CLUSTERING_FACTOR, LAST_ANALYZED, ...) show what ANALYZE or DBMS_STATS gathered last
//! (`TableDef::statistics`), NULL for an object never analyzed, as in Oracle: they are not
//! measured when the view is read. LOW_VALUE and HIGH_VALUE are VARCHAR2: the value's text
//! as a query shows it (a DATE as `DD-MON-RR`, a BINARY_DOUBLE in scientific notation, a
//! CHAR padded), not Oracle's RAW of the internal format, which needs UTL_RAW to read.

use rust_decimal::Decimal;

use super::registry::{Build, View, ViewKind};
use super::ViewContext;
use crate::access::segment;
use crate::buffer::{BufferCache, BufferPool};
use crate::catalog::statistics::{ColumnStatistics, TableStatistics};
use crate::catalog::{Dictionary, TableDef, OWNER};
use crate::error::Result;
use crate::types::RowSet;
use crate::types::{DataType, Value};

/// The views of this file: each `dba_` view but DUAL has its `user_` and `all_` twins.
pub(super) const VIEWS: &[View] = &[
    View {
        name: "DUAL",
        kind: ViewKind::Dictionary { twins: false },
        build: Build::Rows(dual),
    },
    View {
        name: "DBA_CONSTRAINTS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_constraints),
    },
    View {
        name: "DBA_TAB_COMMENTS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_tab_comments),
    },
    View {
        name: "DBA_COL_COMMENTS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_col_comments),
    },
    View {
        name: "DBA_TABLES",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_tables),
    },
    View {
        name: "DBA_TAB_STATISTICS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_tab_statistics),
    },
    View {
        name: "DBA_TAB_COL_STATISTICS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_tab_col_statistics),
    },
    View {
        name: "DBA_INDEXES",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_indexes),
    },
    View {
        name: "DBA_IND_COLUMNS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_ind_columns),
    },
    View {
        name: "DBA_SEGMENTS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_segments),
    },
    View {
        name: "DBA_SEQUENCES",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_sequences),
    },
    View {
        name: "DBA_TAB_COLUMNS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_tab_columns),
    },
    View {
        name: "DBA_VIEWS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_views),
    },
    View {
        name: "DBA_OBJECTS",
        kind: ViewKind::Dictionary { twins: true },
        build: Build::Rows(dba_objects),
    },
];

/// A count of the statistics, or NULL when there are none.
fn gathered(value: Option<u64>) -> Value {
    value.map_or(Value::Null, |value| Value::Number(Decimal::from(value)))
}

/// A view of one row per table (dba_tables, dba_tab_statistics): OWNER, TABLE_NAME, a
/// third column of one value for every table, NUM_ROWS, BLOCKS, AVG_ROW_LEN, SAMPLE_SIZE,
/// LAST_ANALYZED (NULLs when never analyzed), then the `tail` columns with the values
/// `tail_values` gives for each table.
fn table_statistics_view(
    dictionary: &Dictionary,
    third: (&str, &str),
    tail: &[(&str, Option<DataType>)],
    tail_values: impl Fn(&TableDef) -> Vec<Value>,
) -> RowSet {
    let mut columns = vec![
        ("OWNER", text()),
        ("TABLE_NAME", text()),
        (third.0, text()),
        ("NUM_ROWS", number()),
        ("BLOCKS", number()),
        ("AVG_ROW_LEN", number()),
        ("SAMPLE_SIZE", number()),
        ("LAST_ANALYZED", Some(DataType::Date)),
    ];
    columns.extend_from_slice(tail);
    let rows = dictionary
        .tables
        .values()
        .map(|table| {
            let statistics: Option<&TableStatistics> = table.statistics.as_deref();
            let mut row = vec![
                Value::text(OWNER),
                Value::text(&table.name),
                Value::text(third.1),
                gathered(statistics.map(|gathered| gathered.num_rows)),
                gathered(statistics.map(|gathered| gathered.blocks)),
                gathered(statistics.map(|gathered| gathered.avg_row_len)),
                gathered(statistics.map(|gathered| gathered.sample_size)),
                analyzed(statistics.map(|gathered| gathered.last_analyzed)),
            ];
            row.extend(tail_values(table));
            row
        })
        .collect();
    rowset(&columns, rows)
}

/// LAST_ANALYZED: a DATE, or NULL when never analyzed.
fn analyzed(seconds: Option<i64>) -> Value {
    seconds.map_or(Value::Null, Value::Date)
}

/// DENSITY as a NUMBER (1 / NUM_DISTINCT), rounded to 10 significant places.
fn density(column: &ColumnStatistics) -> Value {
    Decimal::from_f64_retain(column.density()).map_or(Value::Null, |density| {
        Value::Number(density.round_sf(10).unwrap_or(density).normalize())
    })
}

/// LOW_VALUE / HIGH_VALUE as shown (see the module documentation).
fn shown_value(value: &Value) -> Value {
    match value {
        Value::Null => Value::Null,
        other => Value::text(other.to_string()),
    }
}

fn text() -> Option<DataType> {
    Some(DataType::varchar2(128))
}

fn number() -> Option<DataType> {
    Some(DataType::number())
}

pub(super) fn rowset(columns: &[(&str, Option<DataType>)], rows: Vec<Vec<Value>>) -> RowSet {
    RowSet {
        columns: columns
            .iter()
            .map(|(name, data_type)| (name.to_string(), *data_type))
            .collect(),
        rows,
    }
}

/// DBA_CONSTRAINTS: one row per constraint, P (primary key) and U (unique) from the indexes
/// that enforce them, C (check) with its condition as SEARCH_CONDITION, R (foreign key)
/// with the parent key's name as R_CONSTRAINT_NAME and its ON DELETE rule. NOT NULL
/// columns are not listed as C constraints (Oracle lists them; ours have no names).
fn constraints(dictionary: &Dictionary) -> Result<RowSet> {
    let mut rows = Vec::new();
    for table in dictionary.tables.values() {
        let row =
            |name: &str, kind: &str, condition: Value, parent: Value, rule: Value, index: Value| {
                vec![
                    Value::text(OWNER),
                    Value::text(name),
                    Value::text(kind),
                    Value::text(&table.name),
                    condition,
                    if parent.is_null() {
                        Value::Null
                    } else {
                        Value::text(OWNER)
                    },
                    parent,
                    rule,
                    Value::text("ENABLED"),
                    Value::text("VALIDATED"),
                    index,
                ]
            };
        for index in &table.indexes {
            if let Some(name) = &index.constraint {
                rows.push(row(
                    name,
                    if index.primary { "P" } else { "U" },
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::text(&index.name),
                ));
            }
        }
        for check in &table.checks {
            rows.push(row(
                &check.name,
                "C",
                Value::text(crate::syntax::print::expression(&check.condition)?),
                Value::Null,
                Value::Null,
                Value::Null,
            ));
        }
        for key in &table.foreign_keys {
            // The parent's key constraint over exactly the referenced columns.
            let parent_key = dictionary.tables.get(&key.parent).and_then(|parent| {
                parent.indexes.iter().find_map(|index| {
                    let names: Vec<&str> = index
                        .columns
                        .iter()
                        .map(|&position| parent.columns[position].name.as_str())
                        .collect();
                    (names == key.parent_columns).then(|| index.constraint.clone())?
                })
            });
            rows.push(row(
                &key.name,
                "R",
                Value::Null,
                parent_key.map_or(Value::Null, Value::text),
                Value::text(match key.on_delete {
                    None => "NO ACTION",
                    Some(crate::syntax::ast::ReferentialAction::Cascade) => "CASCADE",
                    Some(crate::syntax::ast::ReferentialAction::SetNull) => "SET NULL",
                }),
                Value::Null,
            ));
        }
    }
    Ok(rowset(
        &[
            ("OWNER", text()),
            ("CONSTRAINT_NAME", text()),
            ("CONSTRAINT_TYPE", Some(DataType::varchar2(1))),
            ("TABLE_NAME", text()),
            ("SEARCH_CONDITION", Some(DataType::varchar2(4000))),
            ("R_OWNER", text()),
            ("R_CONSTRAINT_NAME", text()),
            ("DELETE_RULE", text()),
            ("STATUS", text()),
            ("VALIDATED", text()),
            ("INDEX_NAME", text()),
        ],
        rows,
    ))
}

/// DUAL.
fn dual(_context: &ViewContext) -> Result<RowSet> {
    Ok(rowset(
        &[("DUMMY", Some(DataType::varchar2(1)))],
        vec![vec![Value::text("X")]],
    ))
}

/// DBA_CONSTRAINTS.
fn dba_constraints(context: &ViewContext) -> Result<RowSet> {
    constraints(context.dictionary)
}

/// DBA_TAB_COMMENTS.
fn dba_tab_comments(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok(rowset(
        &[
            ("OWNER", text()),
            ("TABLE_NAME", text()),
            ("TABLE_TYPE", text()),
            ("COMMENTS", Some(DataType::varchar2(4000))),
        ],
        dictionary
            .tables
            .values()
            .map(|table| {
                vec![
                    Value::text(OWNER),
                    Value::text(&table.name),
                    Value::text("TABLE"),
                    table
                        .comments
                        .table
                        .as_deref()
                        .map_or(Value::Null, Value::text),
                ]
            })
            .chain(dictionary.views.values().map(|view| {
                vec![
                    Value::text(OWNER),
                    Value::text(&view.name),
                    Value::text("VIEW"),
                    Value::Null,
                ]
            }))
            .collect(),
    ))
}

/// DBA_COL_COMMENTS.
fn dba_col_comments(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok(rowset(
        &[
            ("OWNER", text()),
            ("TABLE_NAME", text()),
            ("COLUMN_NAME", text()),
            ("COMMENTS", Some(DataType::varchar2(4000))),
        ],
        dictionary
            .tables
            .values()
            .flat_map(|table| {
                table.columns.iter().map(|column| {
                    vec![
                        Value::text(OWNER),
                        Value::text(&table.name),
                        Value::text(&column.name),
                        table
                            .comments
                            .columns
                            .get(&column.name)
                            .map_or(Value::Null, Value::text),
                    ]
                })
            })
            .collect(),
    ))
}

/// DBA_TABLES.
fn dba_tables(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok(table_statistics_view(
        dictionary,
        ("TABLESPACE_NAME", "SYSTEM"),
        &[("CACHE", text()), ("BUFFER_POOL", text())],
        |table| {
            vec![
                // Oracle's CACHE is 'Y' or 'N' right-aligned in five characters.
                Value::text(if table.cache { "    Y" } else { "    N" }),
                Value::text(table.buffer_pool.name()),
            ]
        },
    ))
}

/// DBA_TAB_STATISTICS.
fn dba_tab_statistics(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok(table_statistics_view(
        dictionary,
        ("OBJECT_TYPE", "TABLE"),
        // STALE_STATS needs DML monitoring (dba_tab_modifications): not kept.
        &[("STALE_STATS", text())],
        |_| vec![Value::Null],
    ))
}

/// DBA_TAB_COL_STATISTICS.
fn dba_tab_col_statistics(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok({
        let mut rows = Vec::new();
        for table in dictionary.tables.values() {
            let Some(statistics) = table.statistics.as_deref() else {
                continue;
            };
            for column in &table.columns {
                let Some(measured) = statistics.columns.get(&column.name) else {
                    continue;
                };
                rows.push(vec![
                    Value::text(OWNER),
                    Value::text(&table.name),
                    Value::text(&column.name),
                    gathered(Some(measured.num_distinct)),
                    shown_value(&measured.low_value),
                    shown_value(&measured.high_value),
                    density(measured),
                    gathered(Some(measured.num_nulls)),
                    gathered(Some(1)),
                    analyzed(Some(statistics.last_analyzed)),
                    gathered(Some(statistics.sample_size)),
                    gathered(Some(measured.avg_col_len)),
                    Value::text("NONE"),
                ]);
            }
        }
        rowset(
            &[
                ("OWNER", text()),
                ("TABLE_NAME", text()),
                ("COLUMN_NAME", text()),
                ("NUM_DISTINCT", number()),
                ("LOW_VALUE", Some(DataType::varchar2(4000))),
                ("HIGH_VALUE", Some(DataType::varchar2(4000))),
                ("DENSITY", number()),
                ("NUM_NULLS", number()),
                ("NUM_BUCKETS", number()),
                ("LAST_ANALYZED", Some(DataType::Date)),
                ("SAMPLE_SIZE", number()),
                ("AVG_COL_LEN", number()),
                ("HISTOGRAM", text()),
            ],
            rows,
        )
    })
}

/// DBA_INDEXES.
fn dba_indexes(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok(rowset(
        &[
            ("OWNER", text()),
            ("INDEX_NAME", text()),
            ("INDEX_TYPE", text()),
            ("TABLE_OWNER", text()),
            ("TABLE_NAME", text()),
            ("UNIQUENESS", text()),
            ("TABLESPACE_NAME", text()),
            ("BLEVEL", number()),
            ("LEAF_BLOCKS", number()),
            ("DISTINCT_KEYS", number()),
            ("CLUSTERING_FACTOR", number()),
            ("NUM_ROWS", number()),
            ("SAMPLE_SIZE", number()),
            ("LAST_ANALYZED", Some(DataType::Date)),
            ("BUFFER_POOL", text()),
        ],
        dictionary
            .indexes
            .values()
            .map(|index| {
                let statistics = dictionary
                    .tables
                    .get(&index.table_name)
                    .and_then(|table| table.statistics.as_deref())
                    .and_then(|gathered| gathered.indexes.get(&index.name));
                vec![
                    Value::text(OWNER),
                    Value::text(&index.name),
                    Value::text("NORMAL"),
                    Value::text(OWNER),
                    Value::text(&index.table_name),
                    Value::text(if index.unique { "UNIQUE" } else { "NONUNIQUE" }),
                    Value::text("SYSTEM"),
                    gathered(statistics.map(|gathered| gathered.blevel as u64)),
                    gathered(statistics.map(|gathered| gathered.leaf_blocks)),
                    gathered(statistics.map(|gathered| gathered.distinct_keys)),
                    gathered(statistics.map(|gathered| gathered.clustering_factor)),
                    gathered(statistics.map(|gathered| gathered.num_rows)),
                    // Indexes are always read whole: every entry is the sample.
                    gathered(statistics.map(|gathered| gathered.num_rows)),
                    analyzed(statistics.map(|gathered| gathered.last_analyzed)),
                    Value::text(index.buffer_pool.name()),
                ]
            })
            .collect(),
    ))
}

/// DBA_IND_COLUMNS.
fn dba_ind_columns(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok({
        let mut rows = Vec::new();
        for index in dictionary.indexes.values() {
            let Some(table) = dictionary.tables.get(&index.table_name) else {
                continue;
            };
            for (position, &column) in index.columns.iter().enumerate() {
                rows.push(vec![
                    Value::text(OWNER),
                    Value::text(&index.name),
                    Value::text(OWNER),
                    Value::text(&index.table_name),
                    Value::text(&table.columns[column].name),
                    Value::integer(position as i64 + 1),
                    Value::text(if index.descending[position] {
                        "DESC"
                    } else {
                        "ASC"
                    }),
                ]);
            }
        }
        rowset(
            &[
                ("INDEX_OWNER", text()),
                ("INDEX_NAME", text()),
                ("TABLE_OWNER", text()),
                ("TABLE_NAME", text()),
                ("COLUMN_NAME", text()),
                ("COLUMN_POSITION", number()),
                ("DESCEND", text()),
            ],
            rows,
        )
    })
}

/// DBA_SEGMENTS.
fn dba_segments(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let cache = context.cache()?;
    Ok({
        let block_size = cache.block_size() as i64;
        let mut rows = Vec::new();
        for table in dictionary.tables.values() {
            rows.push(segment_row(
                cache,
                &table.name,
                "TABLE",
                table.segment,
                table.buffer_pool,
                block_size,
            )?);
        }
        for index in dictionary.indexes.values() {
            rows.push(segment_row(
                cache,
                &index.name,
                "INDEX",
                index.tree.header(),
                index.buffer_pool,
                block_size,
            )?);
        }
        rowset(
            &[
                ("OWNER", text()),
                ("SEGMENT_NAME", text()),
                ("SEGMENT_TYPE", text()),
                ("TABLESPACE_NAME", text()),
                ("HEADER_FILE", number()),
                ("HEADER_BLOCK", number()),
                ("BYTES", number()),
                ("BLOCKS", number()),
                ("EXTENTS", number()),
                ("BUFFER_POOL", text()),
            ],
            rows,
        )
    })
}

/// DBA_SEQUENCES.
fn dba_sequences(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok(rowset(
        &[
            ("SEQUENCE_OWNER", text()),
            ("SEQUENCE_NAME", text()),
            ("MIN_VALUE", number()),
            ("MAX_VALUE", number()),
            ("INCREMENT_BY", number()),
            ("CYCLE_FLAG", text()),
            ("ORDER_FLAG", text()),
            ("CACHE_SIZE", number()),
            ("LAST_NUMBER", number()),
        ],
        dictionary
            .sequences
            .values()
            .map(|sequence| {
                vec![
                    Value::text(OWNER),
                    Value::text(&sequence.name),
                    big(sequence.min),
                    big(sequence.max),
                    big(sequence.increment),
                    Value::text(if sequence.cycle { "Y" } else { "N" }),
                    Value::text("N"),
                    big(if sequence.cache <= 1 {
                        0
                    } else {
                        sequence.cache
                    }),
                    big(sequence.last_number()),
                ]
            })
            .collect(),
    ))
}

/// DBA_TAB_COLUMNS.
fn dba_tab_columns(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok({
        let mut rows = Vec::new();
        for table in dictionary.tables.values() {
            for (position, column) in table.columns.iter().enumerate() {
                let measured = table
                    .statistics
                    .as_deref()
                    .and_then(|gathered| gathered.columns.get(&column.name));
                let (length, precision, scale) = match column.data_type {
                    DataType::Number { precision, scale } => {
                        (22, precision.map(i64::from), scale.map(i64::from))
                    }
                    DataType::Varchar2 { length } | DataType::Char { length } => {
                        (length as i64, None, None)
                    }
                    DataType::Date => (7, None, None),
                    DataType::Timestamp => (11, None, None),
                    DataType::Float => (8, None, None),
                    DataType::Boolean => (1, None, None),
                };
                rows.push(vec![
                    Value::text(OWNER),
                    Value::text(&table.name),
                    Value::text(&column.name),
                    Value::text(column.data_type.name()),
                    Value::integer(length),
                    precision.map_or(Value::Null, Value::integer),
                    scale.map_or(Value::Null, Value::integer),
                    Value::text(if column.nullable { "Y" } else { "N" }),
                    Value::integer(position as i64 + 1),
                    gathered(measured.map(|measured| measured.num_distinct)),
                    measured.map_or(Value::Null, density),
                    gathered(measured.map(|measured| measured.num_nulls)),
                    analyzed(
                        measured
                            .and(table.statistics.as_deref())
                            .map(|gathered| gathered.last_analyzed),
                    ),
                ]);
            }
        }
        rowset(
            &[
                ("OWNER", text()),
                ("TABLE_NAME", text()),
                ("COLUMN_NAME", text()),
                ("DATA_TYPE", text()),
                ("DATA_LENGTH", number()),
                ("DATA_PRECISION", number()),
                ("DATA_SCALE", number()),
                ("NULLABLE", Some(DataType::varchar2(1))),
                ("COLUMN_ID", number()),
                ("NUM_DISTINCT", number()),
                ("DENSITY", number()),
                ("NUM_NULLS", number()),
                ("LAST_ANALYZED", Some(DataType::Date)),
            ],
            rows,
        )
    })
}

/// DBA_VIEWS.
fn dba_views(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    Ok(rowset(
        &[
            ("OWNER", text()),
            ("VIEW_NAME", text()),
            ("TEXT_LENGTH", number()),
            ("TEXT", text()),
        ],
        dictionary
            .views
            .values()
            .map(|view| {
                let query_text = view_query_text(&view.ddl);
                vec![
                    Value::text(OWNER),
                    Value::text(&view.name),
                    Value::integer(query_text.len() as i64),
                    Value::text(query_text),
                ]
            })
            .collect(),
    ))
}

/// DBA_OBJECTS: tables, indexes, sequences, views and stored PL/SQL units, with their
/// STATUS (a unit that did not compile, or was invalidated by a DDL on what it names, is
/// INVALID) and, where the dictionary keeps them, CREATED and LAST_DDL_TIME.
fn dba_objects(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let mut rows = Vec::new();
    let object = |name: &str, id: u32, kind: &str, times: Option<(i64, i64)>, valid: bool| {
        vec![
            Value::text(OWNER),
            Value::text(name),
            Value::integer(id as i64),
            if matches!(kind, "TABLE" | "INDEX") {
                Value::integer(id as i64)
            } else {
                Value::Null
            },
            Value::text(kind),
            times.map_or(Value::Null, |(created, _)| Value::Date(created)),
            times.map_or(Value::Null, |(_, last_ddl)| Value::Date(last_ddl)),
            Value::text(if valid { "VALID" } else { "INVALID" }),
        ]
    };
    for table in dictionary.tables.values() {
        let times = Some((table.created, table.created));
        rows.push(object(&table.name, table.object_id, "TABLE", times, true));
    }
    for index in dictionary.indexes.values() {
        rows.push(object(&index.name, index.object_id, "INDEX", None, true));
    }
    for sequence in dictionary.sequences.values() {
        rows.push(object(
            &sequence.name,
            sequence.object_id,
            "SEQUENCE",
            None,
            true,
        ));
    }
    for view in dictionary.views.values() {
        let times = Some((view.created, view.created));
        rows.push(object(&view.name, view.object_id, "VIEW", times, true));
    }
    for program in dictionary
        .programs
        .values()
        .chain(dictionary.bodies.values())
    {
        let times = Some((program.created, program.last_ddl));
        let kind = program.kind.name();
        rows.push(object(
            &program.name,
            program.object_id,
            kind,
            times,
            program.valid,
        ));
    }
    rows.sort_by_key(|row| row[2].as_decimal().unwrap_or_default());
    Ok(rowset(
        &[
            ("OWNER", text()),
            ("OBJECT_NAME", text()),
            ("OBJECT_ID", number()),
            ("DATA_OBJECT_ID", number()),
            ("OBJECT_TYPE", text()),
            ("CREATED", Some(DataType::Date)),
            ("LAST_DDL_TIME", Some(DataType::Date)),
            ("STATUS", text()),
        ],
        rows,
    ))
}

fn big(value: i128) -> Value {
    Value::Number(Decimal::from_i128_with_scale(value, 0))
}

/// A dba_segments row: the segment with header block `header`, read into `buffer_pool`.
fn segment_row(
    cache: &BufferCache,
    name: &str,
    kind: &str,
    header: crate::io::block::BlockId,
    buffer_pool: BufferPool,
    block_size: i64,
) -> Result<Vec<Value>> {
    let extents = segment::extents(cache, header, buffer_pool)?;
    let blocks: i64 = extents.iter().map(|(_, count)| *count as i64).sum();
    Ok(vec![
        Value::text(OWNER),
        Value::text(name),
        Value::text(kind),
        Value::text("SYSTEM"),
        Value::integer(header.file as i64),
        Value::integer(header.block as i64),
        Value::integer(blocks * block_size),
        Value::integer(blocks),
        Value::integer(extents.len() as i64),
        Value::text(buffer_pool.name()),
    ])
}

/// The query of a CREATE VIEW statement, as `dba_views.text` shows it: what follows the
/// first `AS` keyword that stands alone.
fn view_query_text(ddl: &str) -> &str {
    let upper = ddl.to_ascii_uppercase();
    let bytes = upper.as_bytes();
    let mut from = 0;
    while let Some(found) = upper[from..].find("AS") {
        let at = from + found;
        let before = at.checked_sub(1).map(|index| bytes[index]);
        let after = bytes.get(at + 2).copied();
        let separated =
            |byte: Option<u8>| byte.is_none_or(|byte| byte.is_ascii_whitespace() || byte == b')');
        if separated(before) && after.is_none_or(|byte| byte.is_ascii_whitespace() || byte == b'(')
        {
            return ddl[at + 2..].trim();
        }
        from = at + 2;
    }
    ddl
}
