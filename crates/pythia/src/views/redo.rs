//! The redo log's views (`docs/architecture/redo.md`), read from the querying session's
//! instance (`ViewContext::redo_log` and `ViewContext::archiver`; without them they have no
//! rows):
//!
//! - **v$log**: one row per online log group: the sequence it holds, its size, whether that
//!   sequence is archived, and its STATUS: UNUSED (never held a sequence), CURRENT (the one
//!   redo goes to), ACTIVE (switched out, still needed by crash recovery: the checkpoint has
//!   not passed its end), INACTIVE (switched out, not needed). FIRST_CHANGE# and
//!   NEXT_CHANGE# are LSNs (byte positions in the redo stream), not SCNs: Pythia addresses
//!   redo by LSN, and a sequence's range is known exactly in LSNs. NEXT_CHANGE# and
//!   NEXT_TIME are NULL for the CURRENT group. FIRST_TIME is when the sequence began (from
//!   its header; NULL for a header written before Pythia recorded it). ARCHIVED is YES only
//!   with archiving on, for a switched-out sequence ARC0 has archived.
//! - **v$logfile**: one row per member (one per group): its full path, TYPE ONLINE, STATUS
//!   NULL (in use, as Oracle shows it).
//! - **v$archived_log**: one row per archived log ARC0 knows of in the destination, oldest
//!   first (`redo/archive.rs` says which): its path, sequence, LSN range, redo blocks and
//!   completion time. STATUS is A (available) and DELETED NO: Pythia never deletes archives.

use std::path::Path;

use super::registry::View;
use super::table::{number, text, unix_date, varchar2, Columns, NUMBER};
use super::ViewContext;
use crate::redo::log::REDO_BLOCK_BYTES;
use crate::types::{DataType, Value};

pub(super) const VIEWS: &[View] = &[
    View::fixed("V$LOG", LOG_COLUMNS, log_rows),
    View::fixed("V$LOGFILE", LOGFILE_COLUMNS, logfile_rows),
    View::fixed("V$ARCHIVED_LOG", ARCHIVED_LOG_COLUMNS, archived_log_rows),
];

/// Oracle's VARCHAR2(513) for file names.
const FILE_NAME: DataType = varchar2(513);

/// A file's full path (without touching the file system: the path may be a simulated one).
fn full_path(path: &Path) -> Value {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    text(&absolute.display().to_string())
}

fn yes_no(flag: bool) -> Value {
    text(if flag { "YES" } else { "NO" })
}

const LOG_COLUMNS: Columns = &[
    ("GROUP#", NUMBER),
    ("THREAD#", NUMBER),
    ("SEQUENCE#", NUMBER),
    ("BYTES", NUMBER),
    ("BLOCKSIZE", NUMBER),
    ("MEMBERS", NUMBER),
    ("ARCHIVED", varchar2(3)),
    ("STATUS", varchar2(16)),
    ("FIRST_CHANGE#", NUMBER),
    ("FIRST_TIME", DataType::Date),
    ("NEXT_CHANGE#", NUMBER),
    ("NEXT_TIME", DataType::Date),
    ("CON_ID", NUMBER),
];

fn log_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(log) = &context.redo_log else {
        return Vec::new();
    };
    log.status()
        .into_iter()
        .map(|group| {
            vec![
                number(group.group as u64),
                number(1),
                number(group.sequence),
                number(group.bytes),
                number(REDO_BLOCK_BYTES as u64),
                number(1),
                yes_no(group.archived),
                text(group.status),
                number(group.first_lsn),
                unix_date(group.first_time),
                group.next_lsn.map_or(Value::Null, number),
                unix_date(group.next_time),
                number(0),
            ]
        })
        .collect()
}

const LOGFILE_COLUMNS: Columns = &[
    ("GROUP#", NUMBER),
    ("STATUS", varchar2(7)),
    ("TYPE", varchar2(7)),
    ("MEMBER", FILE_NAME),
    ("IS_RECOVERY_DEST_FILE", varchar2(3)),
    ("CON_ID", NUMBER),
];

fn logfile_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(log) = &context.redo_log else {
        return Vec::new();
    };
    log.groups()
        .iter()
        .map(|group| {
            vec![
                number(group.group as u64),
                Value::Null,
                text("ONLINE"),
                full_path(&group.path),
                yes_no(false),
                number(0),
            ]
        })
        .collect()
}

const ARCHIVED_LOG_COLUMNS: Columns = &[
    ("NAME", FILE_NAME),
    ("DEST_ID", NUMBER),
    ("THREAD#", NUMBER),
    ("SEQUENCE#", NUMBER),
    ("FIRST_CHANGE#", NUMBER),
    ("FIRST_TIME", DataType::Date),
    ("NEXT_CHANGE#", NUMBER),
    ("NEXT_TIME", DataType::Date),
    ("BLOCKS", NUMBER),
    ("BLOCK_SIZE", NUMBER),
    ("CREATOR", varchar2(7)),
    ("ARCHIVED", varchar2(3)),
    ("DELETED", varchar2(3)),
    ("STATUS", varchar2(1)),
    ("COMPLETION_TIME", DataType::Date),
];

fn archived_log_rows(context: &ViewContext) -> Vec<Vec<Value>> {
    let Some(archiver) = &context.archiver else {
        return Vec::new();
    };
    archiver
        .archived_logs()
        .into_iter()
        .map(|archived| {
            let header = archived.header;
            vec![
                full_path(&archived.path),
                number(1),
                number(1),
                number(header.sequence),
                number(header.start_lsn),
                unix_date(header.first_time),
                number(header.next_lsn),
                unix_date(header.next_time),
                number(header.blocks as u64),
                number(REDO_BLOCK_BYTES as u64),
                text("ARCH"),
                yes_no(true),
                yes_no(false),
                text("A"),
                unix_date(header.completion_time),
            ]
        })
        .collect()
}
