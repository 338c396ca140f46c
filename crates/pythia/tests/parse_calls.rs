//! Parse calls through the library cache, seen from outside: what a session cursor cache
//! hit does not touch, and how soft and hard parses count. Alone in its test binary (one
//! test function) because latch statistics are process-wide.

mod common;

use pythia::instrumentation::{self, LatchName, Statistic};
use pythia::{Instance, Value};

fn latch_gets(name: LatchName) -> u64 {
    instrumentation::latches()
        .into_iter()
        .find(|row| row.name == name)
        .map_or(0, |row| row.statistics.gets)
}

#[test]
fn parse_calls_count_hard_soft_and_cached_and_cached_ones_take_no_shared_pool_latch() {
    let dir = common::temp_dir("parse-calls");
    let instance = Instance::open(&dir, common::SMALL).unwrap();
    let mut first = instance.connect().unwrap();
    let mut second = instance.connect().unwrap();
    let text = "select dummy from dual where dummy = :1";
    let bind = [Value::text("X")];

    // The first execution anywhere builds the cursor: one hard parse.
    let hard_before = instrumentation::system_statistic(Statistic::ParseCountHard);
    first.execute_with(text, &bind).unwrap();
    assert_eq!(
        instrumentation::system_statistic(Statistic::ParseCountHard) - hard_before,
        1
    );

    // Another session finds it: soft parses, no hard parse.
    for _ in 0..3 {
        let rows = second.execute_with(text, &bind).unwrap();
        assert_eq!(rows.rows, vec![vec![Value::text("X")]]);
    }
    assert_eq!(
        instrumentation::system_statistic(Statistic::ParseCountHard) - hard_before,
        1,
        "another session's parses of the same text are soft"
    );

    // Parsed three times, the text is in the second session's cursor cache: its parse calls
    // now hit there, and take neither the 'library cache' nor the 'shared pool' latch.
    let hits_before = instrumentation::system_statistic(Statistic::SessionCursorCacheHits);
    let library_before = latch_gets(LatchName::LibraryCache);
    let pool_before = latch_gets(LatchName::SharedPool);
    for _ in 0..100 {
        second.execute_with(text, &bind).unwrap();
    }
    assert_eq!(
        instrumentation::system_statistic(Statistic::SessionCursorCacheHits) - hits_before,
        100
    );
    assert_eq!(latch_gets(LatchName::LibraryCache), library_before);
    assert_eq!(latch_gets(LatchName::SharedPool), pool_before);

    // A text new to the library cache takes both: the bucket search and the allocation.
    second
        .execute("select dummy from dual where dummy = 'new'")
        .unwrap();
    assert!(latch_gets(LatchName::LibraryCache) > library_before);
    assert!(latch_gets(LatchName::SharedPool) > pool_before);

    // DDL on the table a cursor names invalidates it: its next execution builds it again.
    first.execute("create table parse_t (id number)").unwrap();
    first.execute("select count(*) from parse_t").unwrap();
    let hard_before = instrumentation::system_statistic(Statistic::ParseCountHard);
    first.execute("select count(*) from parse_t").unwrap();
    assert_eq!(
        instrumentation::system_statistic(Statistic::ParseCountHard),
        hard_before,
        "the second execution reuses the child"
    );
    first
        .execute("create index parse_i on parse_t (id)")
        .unwrap();
    let hard_before = instrumentation::system_statistic(Statistic::ParseCountHard);
    first.execute("select count(*) from parse_t").unwrap();
    assert_eq!(
        instrumentation::system_statistic(Statistic::ParseCountHard) - hard_before,
        1,
        "CREATE INDEX invalidated the cursor"
    );
    // A cursor on dual was not invalidated by DDL on parse_t.
    let hard_before = instrumentation::system_statistic(Statistic::ParseCountHard);
    second.execute_with(text, &bind).unwrap();
    assert_eq!(
        instrumentation::system_statistic(Statistic::ParseCountHard),
        hard_before
    );

    // A dropped table's cursor fails cleanly, then works again once it exists.
    first.execute("drop table parse_t").unwrap();
    let error = first.execute("select count(*) from parse_t").unwrap_err();
    assert_eq!(error.code(), 942);
    first.execute("create table parse_t (id number)").unwrap();
    first.execute("insert into parse_t values (1)").unwrap();
    let rows = first.execute("select count(*) from parse_t").unwrap();
    assert_eq!(rows.rows, vec![vec![Value::integer(1)]]);
    drop((first, second));
    instance.shutdown().unwrap();
}
