//! The library cache and the shared pool: v$librarycache, v$sql, v$sqlarea, v$sqltext,
//! v$sql_shared_cursor, v$open_cursor, v$sgastat, v$db_object_cache and x$kghlu.
//!
//! Every number is read from the instance's [`LibraryCache`] (`ViewContext::library_cache`;
//! without one, as in the views' unit tests, these views have no rows). Nothing is cached:
//! each query of a view lists the handles (`LibraryCache::handles`, a copy of the shared
//! pool's LRU list, taken under the 'shared pool' latch) and reads each handle under its own
//! mutex, shared, at
//! location `kglhdgc1 102`. Like the instrumentation views, a read is not one instant: a
//! cursor parsed or aged out while the view walks may be missing, and the counters are
//! atomics read one after the other.
//!
//! ```text
//!   LibraryCache::handles()   every parent, hot copies included (a copy is a parent too)
//!     Handle                  text, sql_id, hash values, address, signatures, command type
//!       state (mutex, S)      heap 0 bytes, loads, pins, kept, copies
//!         children            ChildCursor: key, mismatch, plan summary, statistics
//!   LibraryCache::namespace   v$librarycache         (per-namespace atomics)
//!   LibraryCache::memory      v$sgastat               (bytes charged by category)
//!   LibraryCache::lru_counters x$kghlu                (the ager's counters)
//!   LibraryCache::open_cursors v$open_cursor          (each session's cached cursors)
//! ```
//!
//! The views:
//! - **v$librarycache**: one row per namespace (`Namespace::ALL`). GETHITRATIO and
//!   PINHITRATIO are hits / requests; with no request at all they are 1, as Oracle 10g and
//!   later show an idle namespace (a ratio of 0 would read as a cache that always misses).
//!   Only SQL AREA counts: Pythia has no PL/SQL or object handles, so the other namespaces
//!   stay at zero.
//! - **v$sql**: one row per child cursor of every parent (hot copies included: they are
//!   parents with their own children and addresses). Times (ELAPSED_TIME, CPU_TIME) are in
//!   microseconds, as in Oracle. SHARABLE_MEM is the bytes charged to the shared pool for the
//!   child (its fixed part and its plan). CHILD_ADDRESS is the child's address in memory.
//!   FIRST_LOAD_TIME is text 'YYYY-MM-DD/HH24:MI:SS' (local time), as Oracle shows it;
//!   LAST_ACTIVE_TIME a DATE (NULL before the first execution). OBJECT_STATUS is VALID, or
//!   INVALID once DDL invalidated the child (its next execution builds it again).
//!   PERSISTENT_MEM and RUNTIME_MEM are not shown: Pythia does not measure them apart.
//! - **v$sqlarea**: one row per loaded parent (heap 0 in the pool), its figures summed over
//!   its children, as Oracle's view is; SHARABLE_MEM adds the handle and heap 0. PARSE_CALLS
//!   is the parse calls that found or loaded the parent; LOADS the children's loads.
//!   KEPT_VERSIONS is the number of children of a kept parent (DBMS_SHARED_POOL.KEEP keeps a
//!   parent with its children). USERS_OPENING counts the sessions holding it in their cursor
//!   cache.
//! - **v$sqltext**: each loaded parent's text in 64-byte pieces (never splitting a
//!   character), PIECE from 0.
//! - **v$sql_shared_cursor**: one row per child; OPTIMIZER_MISMATCH, BIND_MISMATCH and
//!   ROLL_INVALID_MISMATCH (a child built again after an invalidation) are
//!   `ChildCursor::mismatch`; the other reasons Oracle lists never happen here and are 'N'.
//!   REASON names the reasons that are 'Y', NULL when none is.
//! - **v$open_cursor**: the cursors in each session's cursor cache (CURSOR_TYPE 'SESSION
//!   CURSOR CACHED'); USER_NAME from the session registry.
//! - **v$sgastat**: the shared pool by category (KGLHD handles, KGLH0 heap 0, SQLA child
//!   cursors and plans) and its 'free memory' (size - used); and the buffer cache and log
//!   buffer as the querying session's parameters size them (POOL NULL, as Oracle shows them).
//! - **v$db_object_cache**: one row per parent, loaded or not (an aged-out parent keeps its
//!   handle until the ager frees it: LOADS then counts the reload), NAMESPACE 'SQL AREA',
//!   TYPE 'CURSOR', OWNER NULL; LOCKS the sessions caching it, PINS the executions in
//!   progress, CHILD_LATCH the bucket number; PROPERTY 'HOT' for a parent marked hot and
//!   'HOTCOPY<n>' for its copy n. Objects marked hot by name (MARKHOT(schema, objname,
//!   namespace)) have a row too, PROPERTY 'HOT', with no memory: Pythia has no object
//!   handles, so TYPE is the namespace's usual type (TABLE, PACKAGE BODY, TRIGGER, ...).
//! - **x$kghlu**: one row of the shared pool LRU's counters (`LruCounters`).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rust_decimal::Decimal;

use super::registry::View;
use super::table::{number, raw, text, unix_date, varchar2, Columns, NUMBER, RAW_ADDRESS_DIGITS};
use super::ViewContext;
use crate::catalog::OWNER;
use crate::instrumentation;
use crate::library_cache::cursor::location;
use crate::library_cache::pool::Category;
use crate::library_cache::{ChildCursor, Handle, LibraryCache, Namespace};
use crate::types::{DataType, Value};

pub(super) const VIEWS: &[View] = &[
    View::fixed("V$LIBRARYCACHE", LIBRARYCACHE_COLUMNS, librarycache_rows),
    View::fixed("V$SQL", SQL_COLUMNS, sql_rows),
    View::fixed("V$SQLAREA", SQLAREA_COLUMNS, sqlarea_rows),
    View::fixed("V$SQLTEXT", SQLTEXT_COLUMNS, sqltext_rows),
    View::fixed(
        "V$SQL_SHARED_CURSOR",
        SQL_SHARED_CURSOR_COLUMNS,
        sql_shared_cursor_rows,
    ),
    View::fixed("V$OPEN_CURSOR", OPEN_CURSOR_COLUMNS, open_cursor_rows),
    View::fixed("V$SGASTAT", SGASTAT_COLUMNS, sgastat_rows),
    View::fixed(
        "V$DB_OBJECT_CACHE",
        DB_OBJECT_CACHE_COLUMNS,
        db_object_cache_rows,
    ),
    View::fixed("X$KGHLU", KGHLU_COLUMNS, kghlu_rows),
];

/// Bytes of SQL_TEXT in v$sql and v$sqlarea (the whole text is SQL_FULLTEXT).
const SQL_TEXT_BYTES: u32 = 1000;
/// Bytes of a v$sqltext piece.
const SQLTEXT_PIECE_BYTES: usize = 64;
/// Bytes of v$open_cursor.sql_text.
const OPEN_CURSOR_TEXT_BYTES: u32 = 60;
/// SQL_FULLTEXT: Oracle's is a CLOB; here the longest VARCHAR2.
const FULLTEXT_BYTES: u32 = 32767;

const LIBRARYCACHE_COLUMNS: Columns = &[
    ("NAMESPACE", varchar2(64)),
    ("GETS", NUMBER),
    ("GETHITS", NUMBER),
    ("GETHITRATIO", NUMBER),
    ("PINS", NUMBER),
    ("PINHITS", NUMBER),
    ("PINHITRATIO", NUMBER),
    ("RELOADS", NUMBER),
    ("INVALIDATIONS", NUMBER),
];

const SQL_COLUMNS: Columns = &[
    ("SQL_TEXT", varchar2(SQL_TEXT_BYTES)),
    ("SQL_FULLTEXT", varchar2(FULLTEXT_BYTES)),
    ("SQL_ID", varchar2(13)),
    ("HASH_VALUE", NUMBER),
    ("ADDRESS", varchar2(RAW_ADDRESS_DIGITS)),
    ("CHILD_NUMBER", NUMBER),
    ("CHILD_ADDRESS", varchar2(RAW_ADDRESS_DIGITS)),
    ("PLAN_HASH_VALUE", NUMBER),
    ("OPTIMIZER_MODE", varchar2(10)),
    ("OPTIMIZER_COST", NUMBER),
    ("EXECUTIONS", NUMBER),
    ("PARSE_CALLS", NUMBER),
    ("LOADS", NUMBER),
    ("INVALIDATIONS", NUMBER),
    ("BUFFER_GETS", NUMBER),
    ("DISK_READS", NUMBER),
    ("ROWS_PROCESSED", NUMBER),
    ("ELAPSED_TIME", NUMBER),
    ("CPU_TIME", NUMBER),
    ("USERS_EXECUTING", NUMBER),
    ("SHARABLE_MEM", NUMBER),
    ("COMMAND_TYPE", NUMBER),
    ("PARSING_SCHEMA_NAME", varchar2(128)),
    ("FIRST_LOAD_TIME", varchar2(19)),
    ("LAST_ACTIVE_TIME", DataType::Date),
    ("IS_OBSOLETE", varchar2(1)),
    ("IS_SHAREABLE", varchar2(1)),
    ("EXACT_MATCHING_SIGNATURE", NUMBER),
    ("FORCE_MATCHING_SIGNATURE", NUMBER),
    ("OBJECT_STATUS", varchar2(19)),
    ("PROGRAM_ID", NUMBER),
    ("PROGRAM_LINE#", NUMBER),
    ("PLSQL_EXEC_TIME", NUMBER),
];

const SQLAREA_COLUMNS: Columns = &[
    ("SQL_TEXT", varchar2(SQL_TEXT_BYTES)),
    ("SQL_FULLTEXT", varchar2(FULLTEXT_BYTES)),
    ("SQL_ID", varchar2(13)),
    ("HASH_VALUE", NUMBER),
    ("ADDRESS", varchar2(RAW_ADDRESS_DIGITS)),
    ("VERSION_COUNT", NUMBER),
    ("LOADED_VERSIONS", NUMBER),
    ("OPEN_VERSIONS", NUMBER),
    ("USERS_OPENING", NUMBER),
    ("USERS_EXECUTING", NUMBER),
    ("EXECUTIONS", NUMBER),
    ("PARSE_CALLS", NUMBER),
    ("LOADS", NUMBER),
    ("INVALIDATIONS", NUMBER),
    ("BUFFER_GETS", NUMBER),
    ("DISK_READS", NUMBER),
    ("ROWS_PROCESSED", NUMBER),
    ("ELAPSED_TIME", NUMBER),
    ("CPU_TIME", NUMBER),
    ("SHARABLE_MEM", NUMBER),
    ("KEPT_VERSIONS", NUMBER),
    ("COMMAND_TYPE", NUMBER),
    ("PARSING_SCHEMA_NAME", varchar2(128)),
    ("FIRST_LOAD_TIME", varchar2(19)),
    ("LAST_ACTIVE_TIME", DataType::Date),
    ("IS_OBSOLETE", varchar2(1)),
    ("EXACT_MATCHING_SIGNATURE", NUMBER),
    ("FORCE_MATCHING_SIGNATURE", NUMBER),
];

const SQLTEXT_COLUMNS: Columns = &[
    ("ADDRESS", varchar2(RAW_ADDRESS_DIGITS)),
    ("HASH_VALUE", NUMBER),
    ("SQL_ID", varchar2(13)),
    ("COMMAND_TYPE", NUMBER),
    ("PIECE", NUMBER),
    ("SQL_TEXT", varchar2(SQLTEXT_PIECE_BYTES as u32)),
];

/// v$sql_shared_cursor's reasons that Pythia never has: always 'N'.
const NEVER_MISMATCHED: &[&str] = &[
    "UNBOUND_CURSOR",
    "SQL_TYPE_MISMATCH",
    "AUTH_CHECK_MISMATCH",
    "TRANSLATION_MISMATCH",
    "LANGUAGE_MISMATCH",
    "STATS_ROW_MISMATCH",
    "LITERAL_MISMATCH",
];

const SQL_SHARED_CURSOR_COLUMNS: Columns = &[
    ("SQL_ID", varchar2(13)),
    ("ADDRESS", varchar2(RAW_ADDRESS_DIGITS)),
    ("CHILD_ADDRESS", varchar2(RAW_ADDRESS_DIGITS)),
    ("CHILD_NUMBER", NUMBER),
    ("UNBOUND_CURSOR", varchar2(1)),
    ("SQL_TYPE_MISMATCH", varchar2(1)),
    ("OPTIMIZER_MISMATCH", varchar2(1)),
    ("AUTH_CHECK_MISMATCH", varchar2(1)),
    ("TRANSLATION_MISMATCH", varchar2(1)),
    ("BIND_MISMATCH", varchar2(1)),
    ("LANGUAGE_MISMATCH", varchar2(1)),
    ("STATS_ROW_MISMATCH", varchar2(1)),
    ("LITERAL_MISMATCH", varchar2(1)),
    ("ROLL_INVALID_MISMATCH", varchar2(1)),
    ("REASON", varchar2(4000)),
];

const OPEN_CURSOR_COLUMNS: Columns = &[
    ("SID", NUMBER),
    ("USER_NAME", varchar2(128)),
    ("ADDRESS", varchar2(RAW_ADDRESS_DIGITS)),
    ("HASH_VALUE", NUMBER),
    ("SQL_ID", varchar2(13)),
    ("SQL_TEXT", varchar2(OPEN_CURSOR_TEXT_BYTES)),
    ("CURSOR_TYPE", varchar2(64)),
];

const SGASTAT_COLUMNS: Columns = &[
    ("POOL", varchar2(26)),
    ("NAME", varchar2(26)),
    ("BYTES", NUMBER),
];

const DB_OBJECT_CACHE_COLUMNS: Columns = &[
    ("OWNER", varchar2(128)),
    ("NAME", varchar2(SQL_TEXT_BYTES)),
    ("DB_LINK", varchar2(64)),
    ("NAMESPACE", varchar2(28)),
    ("TYPE", varchar2(28)),
    ("SHARABLE_MEM", NUMBER),
    ("LOADS", NUMBER),
    ("EXECUTIONS", NUMBER),
    ("LOCKS", NUMBER),
    ("PINS", NUMBER),
    ("KEPT", varchar2(3)),
    ("CHILD_LATCH", NUMBER),
    ("INVALIDATIONS", NUMBER),
    ("HASH_VALUE", NUMBER),
    ("FULL_HASH_VALUE", varchar2(32)),
    ("PROPERTY", varchar2(10)),
    ("STATUS", varchar2(19)),
];

const KGHLU_COLUMNS: Columns = &[
    ("INDX", NUMBER),
    ("INST_ID", NUMBER),
    ("KGHLURCR", NUMBER),
    ("KGHLUTRN", NUMBER),
    ("KGHLUFSH", NUMBER),
    ("KGHLUOPS", NUMBER),
    ("KGHLUNFU", NUMBER),
    ("KGHLUNFS", NUMBER),
];

/// What the views read of one parent, taken under its mutex (shared) and released at once.
struct Parent {
    handle: Arc<Handle>,
    children: Vec<Arc<ChildCursor>>,
    /// Heap 0 and the children's bytes: what aging the parent out would give back.
    loaded_bytes: u64,
    loads: u64,
    pins: u32,
    kept: bool,
}

/// Every parent of the library cache (hot copies included), or none without one.
fn parents(context: &ViewContext) -> Vec<Parent> {
    let Some(library_cache) = &context.library_cache else {
        return Vec::new();
    };
    library_cache
        .handles()
        .into_iter()
        .map(|handle| {
            let state = handle.state.shared(location::INSPECT);
            let parent = Parent {
                children: state.children.clone(),
                loaded_bytes: state.loaded_bytes(),
                loads: state.loads,
                pins: state.pins,
                kept: state.kept,
                handle: handle.clone(),
            };
            drop(state);
            parent
        })
        .collect()
}

/// Sessions holding each parent open (by address) in their cursor cache.
fn openers(library_cache: Option<&Arc<LibraryCache>>) -> HashMap<u64, u64> {
    let mut openers = HashMap::new();
    for (_, cursor) in library_cache.map_or_else(Vec::new, |cache| cache.open_cursors()) {
        *openers.entry(cursor.handle.address).or_insert(0) += 1;
    }
    openers
}

/// A hit ratio as Oracle shows it: hits / requests, 1 with no request.
fn ratio(hits: u64, requests: u64) -> Value {
    if requests == 0 {
        return number(1);
    }
    Value::Number((Decimal::from(hits) / Decimal::from(requests)).normalize())
}

fn yes_no(flag: bool) -> Value {
    text(if flag { "Y" } else { "N" })
}

/// Unix seconds as Oracle's FIRST_LOAD_TIME text, in local time.
fn load_time_text(unix_seconds: i64) -> Value {
    match chrono::DateTime::from_timestamp(unix_seconds, 0) {
        Some(time) => Value::Text(
            time.with_timezone(&chrono::Local)
                .format("%Y-%m-%d/%H:%M:%S")
                .to_string(),
        ),
        None => Value::Null,
    }
}

/// A child's address: where it lives in memory, unique while it does.
fn child_address(child: &Arc<ChildCursor>) -> Value {
    raw(Arc::as_ptr(child) as usize as u64)
}

fn counter(value: &std::sync::atomic::AtomicU64) -> u64 {
    value.load(Ordering::Relaxed)
}

fn librarycache_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(library_cache) = &context.library_cache else {
        return Vec::new();
    };
    Namespace::ALL
        .iter()
        .map(|&namespace| {
            let counters = library_cache.namespace(namespace);
            let gets = counters.gets.load();
            let gethits = counters.gethits.load();
            let pins = counters.pins.load();
            let pinhits = counters.pinhits.load();
            vec![
                text(namespace.name()),
                number(gets),
                number(gethits),
                ratio(gethits, gets),
                number(pins),
                number(pinhits),
                ratio(pinhits, pins),
                number(counter(&counters.reloads)),
                number(counter(&counters.invalidations)),
            ]
        })
        .collect()
}

/// SQL_TEXT, SQL_FULLTEXT, SQL_ID, HASH_VALUE, ADDRESS.
fn identity(handle: &Handle) -> [Value; 5] {
    [
        text(&handle.text),
        text(&handle.text),
        text(&handle.id.to_string()),
        number(handle.id.hash_value().into()),
        raw(handle.address),
    ]
}

fn sql_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for parent in parents(context) {
        let handle = &parent.handle;
        let obsolete = handle.obsolete.load(Ordering::Acquire);
        for child in &parent.children {
            let statistics = &child.statistics;
            let summary = child.summary();
            let mut row = identity(handle).to_vec();
            row.extend([
                number(child.number.into()),
                child_address(child),
                summary.map_or(Value::Null, |summary| {
                    number(summary.plan_hash_value.into())
                }),
                text(summary.map_or(child.key.optimizer_mode, |summary| summary.optimizer_mode)),
                summary
                    .and_then(|summary| summary.cost)
                    .map_or(Value::Null, |cost| number(cost.max(0.0).round() as u64)),
                number(counter(&statistics.executions)),
                number(counter(&statistics.parse_calls)),
                number(child.loads),
                number(counter(&child.invalidations)),
                number(counter(&statistics.buffer_gets)),
                number(counter(&statistics.disk_reads)),
                number(counter(&statistics.rows_processed)),
                number(counter(&statistics.elapsed_micros)),
                number(counter(&statistics.cpu_micros)),
                number(counter(&statistics.users_executing)),
                number(child.sharable_bytes()),
                number(handle.command_type.load(Ordering::Relaxed)),
                text(OWNER),
                load_time_text(child.first_load),
                unix_date(counter(&statistics.last_active)),
                yes_no(obsolete),
                yes_no(child.is_valid()),
                number(handle.signatures().0),
                number(handle.signatures().1),
                text(if child.is_valid() { "VALID" } else { "INVALID" }),
                // The PL/SQL unit whose static SQL built the child, and its line; 0 for
                // a client's statement, as Oracle shows it.
                number(child.program().map_or(0, |(id, _)| id.into())),
                number(child.program().map_or(0, |(_, line)| line.into())),
                number(counter(&statistics.plsql_exec_micros)),
            ]);
            rows.push(row);
        }
    }
    rows
}

fn sqlarea_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let openers = openers(context.library_cache.as_ref());
    parents(context)
        .into_iter()
        .filter(|parent| parent.handle.is_loaded())
        .map(|parent| {
            let handle = &parent.handle;
            let children = &parent.children;
            let sum = |read: &dyn Fn(&ChildCursor) -> u64| -> u64 {
                children.iter().map(|child| read(child)).sum()
            };
            let loaded = children
                .iter()
                .filter(|child| child.is_valid() && child.is_built())
                .count() as u64;
            let executing = sum(&|child| counter(&child.statistics.users_executing));
            let last_active = children
                .iter()
                .map(|child| counter(&child.statistics.last_active))
                .max()
                .unwrap_or(0);
            let sharable = handle.handle_bytes() + parent.loaded_bytes;
            let mut row = identity(handle).to_vec();
            row.extend([
                number(children.len() as u64),
                number(loaded),
                number(children.iter().filter(|child| child.is_valid()).count() as u64),
                number(openers.get(&handle.address).copied().unwrap_or(0)),
                number(executing),
                number(sum(&|child| counter(&child.statistics.executions))),
                number(counter(&handle.parse_calls)),
                number(sum(&|child| child.loads)),
                number(sum(&|child| counter(&child.invalidations))),
                number(sum(&|child| counter(&child.statistics.buffer_gets))),
                number(sum(&|child| counter(&child.statistics.disk_reads))),
                number(sum(&|child| counter(&child.statistics.rows_processed))),
                number(sum(&|child| counter(&child.statistics.elapsed_micros))),
                number(sum(&|child| counter(&child.statistics.cpu_micros))),
                number(sharable),
                number(if parent.kept {
                    children.len() as u64
                } else {
                    0
                }),
                number(handle.command_type.load(Ordering::Relaxed)),
                text(OWNER),
                load_time_text(handle.first_load),
                unix_date(last_active),
                yes_no(handle.obsolete.load(Ordering::Acquire)),
                number(handle.signatures().0),
                number(handle.signatures().1),
            ]);
            row
        })
        .collect()
}

/// `text` in pieces of at most `piece_bytes` bytes, never splitting a character.
fn pieces(text: &str, piece_bytes: usize) -> Vec<&str> {
    assert!(piece_bytes >= 4, "a piece holds any character");
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = piece_bytes.min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, after) = rest.split_at(end);
        pieces.push(piece);
        rest = after;
    }
    pieces
}

fn sqltext_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for parent in parents(context) {
        let handle = &parent.handle;
        if !handle.is_loaded() {
            continue;
        }
        for (piece, part) in pieces(&handle.text, SQLTEXT_PIECE_BYTES)
            .into_iter()
            .enumerate()
        {
            rows.push(vec![
                raw(handle.address),
                number(handle.id.hash_value().into()),
                text(&handle.id.to_string()),
                number(handle.command_type.load(Ordering::Relaxed)),
                number(piece as u64),
                // A piece of spaces only is still text (Oracle keeps it); never empty.
                Value::Text(part.to_string()),
            ]);
        }
    }
    rows
}

fn sql_shared_cursor_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for parent in parents(context) {
        let handle = &parent.handle;
        for child in &parent.children {
            let mismatch = child.mismatch;
            let reasons: Vec<&str> = [
                (mismatch.optimizer, "Optimizer mismatch"),
                (mismatch.bind, "Bind mismatch"),
                (mismatch.invalidated, "Rolling Invalidate Window Exceeded"),
            ]
            .iter()
            .filter(|(flag, _)| *flag)
            .map(|(_, reason)| *reason)
            .collect();
            let never = || text("N");
            rows.push(vec![
                text(&handle.id.to_string()),
                raw(handle.address),
                child_address(child),
                number(child.number.into()),
                never(),
                never(),
                yes_no(mismatch.optimizer),
                never(),
                never(),
                yes_no(mismatch.bind),
                never(),
                never(),
                never(),
                yes_no(mismatch.invalidated),
                text(&reasons.join(", ")),
            ]);
        }
    }
    debug_assert_eq!(
        SQL_SHARED_CURSOR_COLUMNS.len(),
        4 + NEVER_MISMATCHED.len() + 4
    );
    rows
}

fn open_cursor_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(library_cache) = &context.library_cache else {
        return Vec::new();
    };
    let users: HashMap<u32, String> = instrumentation::sessions()
        .into_iter()
        .map(|session| (session.sid, session.username))
        .collect();
    library_cache
        .open_cursors()
        .into_iter()
        .map(|(sid, cursor)| {
            let handle = &cursor.handle;
            vec![
                number(sid.into()),
                users
                    .get(&sid)
                    .map_or(Value::Null, |username| text(username)),
                raw(handle.address),
                number(handle.id.hash_value().into()),
                text(&handle.id.to_string()),
                text(&handle.text),
                text(cursor.cursor_type),
            ]
        })
        .collect()
}

/// A size parameter's value in bytes, from the querying session's v$parameter rows.
fn parameter_bytes(context: &ViewContext, name: &str) -> Option<u64> {
    context
        .parameters
        .visible_rows()
        .into_iter()
        .find(|row| row.name == name)
        .and_then(|row| row.value.trim().parse().ok())
}

fn sgastat_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    if let Some(library_cache) = &context.library_cache {
        let (used, categories, size) = library_cache.memory();
        for category in Category::ALL {
            rows.push(vec![
                text("shared pool"),
                text(category.name()),
                number(categories[category as usize]),
            ]);
        }
        rows.push(vec![
            text("shared pool"),
            text("free memory"),
            number(size.saturating_sub(used)),
        ]);
    }
    for (name, parameter) in [
        ("buffer_cache", "db_cache_size"),
        ("log_buffer", "log_buffer"),
    ] {
        if let Some(bytes) = parameter_bytes(context, parameter) {
            rows.push(vec![Value::Null, text(name), number(bytes)]);
        }
    }
    rows
}

/// TYPE of an object marked hot by name: its namespace's usual type (no object handles).
fn namespace_type(namespace: u32) -> &'static str {
    match namespace {
        0 => "CURSOR",
        1 => "TABLE",
        2 => "PACKAGE BODY",
        3 => "TRIGGER",
        4 => "INDEX",
        5 => "CLUSTER",
        _ => "NOT LOADED",
    }
}

fn db_object_cache_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(library_cache) = &context.library_cache else {
        return Vec::new();
    };
    let openers = openers(Some(library_cache));
    let buckets = library_cache.bucket_count().max(1) as u64;
    let mut rows = Vec::new();
    for parent in parents(context) {
        let handle = &parent.handle;
        let children = &parent.children;
        let sharable = handle.handle_bytes() + parent.loaded_bytes;
        let property = if handle.copy > 0 {
            text(&format!("HOTCOPY{}", handle.copy))
        } else if handle.is_hot() {
            text("HOT")
        } else {
            Value::Null
        };
        let hash_value = handle.id.hash_value();
        rows.push(vec![
            Value::Null,
            text(&handle.text),
            Value::Null,
            text(Namespace::SqlArea.name()),
            text("CURSOR"),
            number(sharable),
            number(parent.loads),
            number(
                children
                    .iter()
                    .map(|child| counter(&child.statistics.executions))
                    .sum(),
            ),
            number(openers.get(&handle.address).copied().unwrap_or(0)),
            number(parent.pins.into()),
            text(if parent.kept { "YES" } else { "NO" }),
            number(handle.bucket_hash % buckets),
            number(
                children
                    .iter()
                    .map(|child| counter(&child.invalidations))
                    .sum(),
            ),
            number(hash_value.into()),
            text(&handle.id.full_hash_value()),
            property,
            text("VALID"),
        ]);
    }
    let hot = library_cache.hot_objects();
    let is_hot = |owner: &str, name: &str, namespace: Namespace| {
        hot.iter().any(|(schema, object, space)| {
            schema == owner && object == name && *space as usize == namespace.index()
        })
    };
    // Compiled stored units (`library_cache::objects`).
    for object in library_cache.cached_objects() {
        rows.push(vec![
            text(&object.owner),
            text(&object.name),
            Value::Null,
            text(object.namespace.name()),
            text(object.object_type),
            number(object.sharable_bytes),
            number(object.loads),
            number(counter(&object.executions)),
            number(0),
            number(0),
            text(
                if library_cache.is_object_kept(&object.owner, &object.name) {
                    "YES"
                } else {
                    "NO"
                },
            ),
            Value::Null,
            number(0),
            Value::Null,
            Value::Null,
            if is_hot(&object.owner, &object.name, object.namespace) {
                text("HOT")
            } else {
                Value::Null
            },
            text("VALID"),
        ]);
    }
    let cached = library_cache.cached_objects();
    for (schema, name, namespace) in hot {
        if cached.iter().any(|object| {
            object.owner == schema
                && object.name == name
                && object.namespace.index() == namespace as usize
        }) {
            continue;
        }
        let namespace_name = Namespace::ALL
            .get(namespace as usize)
            .map_or("TABLE/PROCEDURE", |namespace| namespace.name());
        rows.push(vec![
            text(&schema),
            text(&name),
            Value::Null,
            text(namespace_name),
            text(namespace_type(namespace)),
            number(0),
            number(0),
            number(0),
            number(0),
            number(0),
            text("NO"),
            Value::Null,
            number(0),
            Value::Null,
            Value::Null,
            text("HOT"),
            text("VALID"),
        ]);
    }
    rows
}

fn kghlu_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(library_cache) = &context.library_cache else {
        return Vec::new();
    };
    let counters = library_cache.lru_counters();
    let (recurrent, transient) = library_cache.lru_parts();
    vec![vec![
        number(0),
        number(1),
        number(recurrent),
        number(transient),
        number(counter(&counters.flushed)),
        number(counters.operations.load()),
        number(counter(&counters.failures)),
        number(counter(&counters.last_failure_bytes)),
    ]]
}

/// A library cache holding one executed cursor (and a hot one with its copies), for the
/// registry's test of every view's types.
#[cfg(test)]
pub(super) fn sample_library_cache() -> Arc<LibraryCache> {
    let library_cache = tests::cache_with("select dummy from dual where 1 = 1");
    let hot = "select 3 from dual";
    library_cache
        .mark_hot(
            &crate::library_cache::sql_id::SqlId::of(hot).full_hash_value(),
            true,
        )
        .unwrap();
    let parsed = library_cache
        .get(hot, 1, || Ok((crate::syntax::parser::parse(hot)?, 100)))
        .unwrap();
    library_cache.set_open_cursors(
        1,
        vec![crate::library_cache::OpenCursor {
            handle: parsed.handle,
            cursor_type: "SESSION CURSOR CACHED",
        }],
    );
    library_cache.mark_object_hot("SYSTEM", "T", 1, true);
    library_cache
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library_cache::{ChildKey, PlanSummary};

    use crate::syntax::parser;
    use crate::views::{fixed_table, FixedTable};

    fn context(library_cache: &Arc<LibraryCache>) -> ViewContext<'_> {
        ViewContext {
            library_cache: Some(library_cache.clone()),
            ..ViewContext::detached(1)
        }
    }

    fn column(table: &FixedTable, name: &str) -> usize {
        table
            .columns
            .iter()
            .position(|(column, _)| column == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    fn values(table: &FixedTable, name: &str) -> Vec<Value> {
        let index = column(table, name);
        table.rows.iter().map(|row| row[index].clone()).collect()
    }

    /// A library cache with `text` parsed and executed once.
    pub(super) fn cache_with(text: &str) -> Arc<LibraryCache> {
        let library_cache = Arc::new(LibraryCache::new(509, 64 << 20, 2));
        let parsed = library_cache
            .get(text, 1, || Ok((parser::parse(text)?, 1000)))
            .unwrap();
        let mut pin = library_cache.pin(&parsed.handle, &ChildKey::new(7, "ALL_ROWS", &[]));
        assert!(pin.is_building());
        pin.publish(
            None,
            PlanSummary {
                optimizer_mode: "ALL_ROWS",
                cost: Some(2.4),
                plan_hash_value: 1234,
            },
            vec!["DUAL".into()],
            0,
            None,
        )
        .unwrap();
        pin.child().statistics.record(3, 0, 1, 10, 5);
        drop(pin);
        library_cache
    }

    #[test]
    fn no_library_cache_means_no_rows() {
        // A detached context has the default parameters: v$sgastat shows the buffer cache
        // and log buffer they size, and nothing of a shared pool.
        let context = ViewContext::detached(1);
        for name in VIEWS.iter().map(|view| view.name) {
            let rows = fixed_table(name, &context).unwrap().rows;
            if name == "V$SGASTAT" {
                assert_eq!(rows.len(), 2, "{rows:?}");
                assert!(rows.iter().all(|row| row[0] == Value::Null), "{rows:?}");
            } else {
                assert!(rows.is_empty(), "{name}");
            }
        }
    }

    #[test]
    fn sql_and_sqlarea_show_a_cursor_and_its_child() {
        let sql = "select dummy from dual";
        let library_cache = cache_with(sql);
        let context = context(&library_cache);
        let table = fixed_table("V$SQL", &context).unwrap();
        assert_eq!(table.rows.len(), 1);
        assert_eq!(values(&table, "SQL_TEXT"), vec![text(sql)]);
        assert_eq!(
            values(&table, "SQL_ID"),
            vec![text(
                &crate::library_cache::sql_id::SqlId::of(sql).to_string()
            )]
        );
        assert_eq!(values(&table, "CHILD_NUMBER"), vec![number(0)]);
        assert_eq!(values(&table, "EXECUTIONS"), vec![number(1)]);
        assert_eq!(values(&table, "BUFFER_GETS"), vec![number(3)]);
        assert_eq!(values(&table, "PLAN_HASH_VALUE"), vec![number(1234)]);
        assert_eq!(values(&table, "OPTIMIZER_COST"), vec![number(2)]);
        assert_eq!(values(&table, "COMMAND_TYPE"), vec![number(3)]);
        assert_eq!(values(&table, "OBJECT_STATUS"), vec![text("VALID")]);
        assert!(matches!(
            values(&table, "LAST_ACTIVE_TIME")[0],
            Value::Date(_)
        ));
        let Value::Text(loaded) = &values(&table, "FIRST_LOAD_TIME")[0] else {
            panic!("FIRST_LOAD_TIME is text");
        };
        assert_eq!(loaded.len(), 19);
        assert_eq!(&loaded[10..11], "/");

        let area = fixed_table("V$SQLAREA", &context).unwrap();
        assert_eq!(area.rows.len(), 1);
        assert_eq!(values(&area, "VERSION_COUNT"), vec![number(1)]);
        assert_eq!(values(&area, "EXECUTIONS"), vec![number(1)]);
        assert_eq!(values(&area, "PARSE_CALLS"), vec![number(1)]);
        assert_eq!(values(&area, "ADDRESS"), values(&table, "ADDRESS"));

        let shared = fixed_table("V$SQL_SHARED_CURSOR", &context).unwrap();
        assert_eq!(
            values(&shared, "CHILD_ADDRESS"),
            values(&table, "CHILD_ADDRESS")
        );
        assert_eq!(values(&shared, "OPTIMIZER_MISMATCH"), vec![text("N")]);
        assert_eq!(values(&shared, "REASON"), vec![Value::Null]);

        let library = fixed_table("V$LIBRARYCACHE", &context).unwrap();
        assert_eq!(library.rows.len(), Namespace::ALL.len());
        let sql_area = &library.rows[0];
        assert_eq!(sql_area[column(&library, "NAMESPACE")], text("SQL AREA"));
        assert_eq!(sql_area[column(&library, "GETS")], number(1));
        assert_eq!(sql_area[column(&library, "GETHITS")], number(0));
        assert_eq!(sql_area[column(&library, "GETHITRATIO")], number(0));
        // An idle namespace's ratio is 1.
        assert_eq!(library.rows[1][column(&library, "PINHITRATIO")], number(1));
    }

    #[test]
    fn sqltext_pieces_are_64_bytes_and_keep_characters_whole() {
        assert_eq!(pieces("", 64), Vec::<&str>::new());
        let long = "é".repeat(40); // 80 bytes
        let parts = pieces(&long, 64);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].len(), 64);
        assert_eq!(parts.concat(), long);
        let odd = format!("a{}", "é".repeat(40)); // 81 bytes: the 64th byte splits an é
        let parts = pieces(&odd, 64);
        assert_eq!(parts[0].len(), 63);
        assert_eq!(parts.concat(), odd);

        let sql = format!("select '{}' from dual", "x".repeat(100));
        let library_cache = cache_with(&sql);
        let table = fixed_table("V$SQLTEXT", &context(&library_cache)).unwrap();
        assert_eq!(
            values(&table, "PIECE"),
            vec![number(0), number(1)],
            "{} bytes",
            sql.len()
        );
        let joined: String = values(&table, "SQL_TEXT")
            .iter()
            .map(|value| value.to_text().unwrap())
            .collect();
        assert_eq!(joined, sql);
    }

    #[test]
    fn sgastat_accounts_for_the_whole_pool() {
        let library_cache = cache_with("select 1 from dual");
        let table = fixed_table("V$SGASTAT", &context(&library_cache)).unwrap();
        let shared: u64 = table
            .rows
            .iter()
            .filter(|row| row[0] == text("shared pool"))
            .map(|row| row[2].to_text().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(shared, 64 << 20);
        let names = values(&table, "NAME");
        for name in [
            "KGLHD",
            "KGLH0",
            "SQLA",
            "free memory",
            "buffer_cache",
            "log_buffer",
        ] {
            assert!(names.contains(&text(name)), "{name} missing: {names:?}");
        }
    }

    #[test]
    fn db_object_cache_shows_hot_cursors_their_copies_and_hot_objects() {
        let sql = "select 2 from dual";
        let library_cache = cache_with(sql);
        let full_hash = crate::library_cache::sql_id::SqlId::of(sql).full_hash_value();
        library_cache.mark_hot(&full_hash, true).unwrap();
        // Sessions 1 and 2 get copies 1 and 2 (sid modulo 2 copies, numbered from 1).
        for sid in [1, 2] {
            library_cache
                .get(sql, sid, || Ok((parser::parse(sql)?, 1000)))
                .unwrap();
        }
        library_cache.mark_object_hot("system", "t", 1, true);
        let table = fixed_table("V$DB_OBJECT_CACHE", &context(&library_cache)).unwrap();
        let mut properties: Vec<String> = values(&table, "PROPERTY")
            .iter()
            .filter_map(|value| value.to_text())
            .collect();
        properties.sort();
        assert_eq!(properties, ["HOT", "HOT", "HOTCOPY1", "HOTCOPY2"]);
        let hashes = values(&table, "FULL_HASH_VALUE");
        assert_eq!(
            hashes
                .iter()
                .filter(|hash| **hash == text(&full_hash))
                .count(),
            3
        );
        let owners = values(&table, "OWNER");
        assert!(owners.contains(&text("SYSTEM")));
        let kghlu = fixed_table("X$KGHLU", &context(&library_cache)).unwrap();
        assert_eq!(kghlu.rows.len(), 1);
        assert!(kghlu.rows[0][column(&kghlu, "KGHLUTRN")] != number(0));
    }
}
