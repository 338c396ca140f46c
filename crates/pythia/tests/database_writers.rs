//! Database writers through the views: with `db_writer_processes = 2`, DBW0 and DBW1 share
//! the cache's working sets and do the writing for the sessions.
//!
//! Alone in its test binary (one test function) because it reads v$session and v$sesstat,
//! which list every session of the process: beside the tests of `buffer_pools.rs`, another
//! test's open instance added its own DBW0 row.

mod common;
use common::{number, open_small_blocks as open, text_rows};

/// With `db_writer_processes = 2` two writers, DBW0 and DBW1, share the working sets: a
/// change that dirties more blocks than the cache holds gets its free buffers from their
/// writes (each writes some; the changing session's replacement scans put dirty buffers on
/// the write lists and wait on 'free buffer waits' instead of writing, unless a writer is
/// too slow for a second), and the data read back afterwards is the data written.
#[test]
fn two_database_writers_clean_their_working_sets_for_the_sessions() {
    let instance = open(
        "pools-writers",
        &[
            ("db_block_buffers", "400"),
            ("db_block_lru_latches", "4"),
            ("db_writer_processes", "2"),
        ],
    )
    .unwrap();
    let mut session = instance.connect().unwrap();
    text_rows(
        &mut session,
        "CREATE TABLE written (id NUMBER, pad VARCHAR2(1500))",
    );
    for id in 0..1500 {
        text_rows(
            &mut session,
            &format!("INSERT INTO written VALUES ({id}, rpad('x', 1400, 'x'))"),
        );
    }
    text_rows(&mut session, "COMMIT");
    text_rows(
        &mut session,
        "UPDATE written SET pad = rpad('y', 1400, 'y')",
    );
    text_rows(&mut session, "COMMIT");
    let writes = text_rows(
        &mut session,
        "SELECT s.program, st.value FROM v$session s, v$sesstat st, v$statname n \
         WHERE s.sid = st.sid AND st.statistic# = n.statistic# \
         AND n.name = 'physical writes' AND s.program LIKE 'DBW%' ORDER BY s.program",
    );
    let programs: Vec<&str> = writes.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(programs, ["DBW0", "DBW1"], "{writes:?}");
    for row in &writes {
        assert!(number(&row[1]) > 0, "{} wrote nothing: {writes:?}", row[0]);
    }
    let mine = text_rows(
        &mut session,
        "SELECT m.value FROM v$mystat m, v$statname n \
         WHERE m.statistic# = n.statistic# AND n.name = 'physical writes'",
    );
    let theirs: u64 = writes.iter().map(|row| number(&row[1])).sum();
    assert!(
        number(&mine[0][0]) * 10 < theirs,
        "the session wrote {} buffers itself, the writers {theirs}",
        mine[0][0]
    );
    assert_eq!(
        text_rows(
            &mut session,
            "SELECT count(*) FROM written WHERE pad = rpad('y', 1400, 'y')"
        ),
        vec![vec!["1500".to_string()]]
    );
    drop(session);
    instance.shutdown().unwrap();
}
