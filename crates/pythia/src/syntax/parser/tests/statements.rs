//! Tests of `statements.rs` and `parameters.rs`: DML, transactions, the session and the
//! system, EXPLAIN, CALL and blocks, PostgreSQL's SET / SHOW / VACUUM, and `parse_many`.

use super::*;

#[test]
fn insert_values_and_queries() {
    assert_eq!(
        parse_ok("INSERT /*+ APPEND */ INTO scott.t (a, \"b\") VALUES (1, 'x'), (:v, NULL)"),
        Statement::Insert {
            hint: Some("APPEND".into()),
            table: ObjectName::qualified("SCOTT", "T"),
            columns: Some(vec!["A".into(), "b".into()]),
            source: InsertSource::Values(vec![
                vec![number("1"), string("x")],
                vec![bind("V", 0), Expr::Literal(Literal::Null)]
            ]),
            returning: vec![],
        }
    );
    let from_query = |sql: &str| match parse_ok(sql) {
        Statement::Insert {
            columns,
            source: InsertSource::Query(query),
            ..
        } => (columns, *query),
        other => panic!("{sql}: {other:?}"),
    };
    let one = Query::from_body(select_one_from_dual("1"));
    assert_eq!(
        from_query("INSERT INTO T SELECT 1 FROM DUAL"),
        (None, one.clone())
    );
    assert_eq!(
        from_query("INSERT INTO T (A) (SELECT 1 FROM DUAL)"),
        (Some(vec!["A".into()]), one)
    );
    assert_eq!(
        from_query("INSERT INTO T WITH X AS (SELECT 1 FROM DUAL) SELECT * FROM X")
            .1
            .with
            .len(),
        1
    );
}

#[test]
fn update_with_alias_and_qualified_columns() {
    assert_eq!(
        parse_ok(
            "UPDATE /*+ INDEX(e) */ emp e SET e.sal = sal * 1.1, comm = NULL WHERE empno = :1"
        ),
        Statement::Update {
            hint: Some("INDEX(e)".into()),
            table: ObjectName::new("EMP"),
            alias: Some("E".into()),
            assignments: vec![
                (
                    "SAL".into(),
                    binary(column("SAL"), BinaryOperator::Multiply, number("1.1"))
                ),
                ("COMM".into(), Expr::Literal(Literal::Null)),
            ],
            where_clause: Some(binary(column("EMPNO"), BinaryOperator::Equal, bind("1", 0))),
            returning: vec![],
        }
    );
    assert!(parse("UPDATE scott.emp SET scott.emp.sal = 1").is_ok());
    assert!(parse("UPDATE emp SET emp.sal = 1").is_ok());
    let error = parse("UPDATE emp e SET x.sal = 1").unwrap_err();
    assert_eq!(
        (error.code(), error.message(), error.position()),
        (904, "\"X\".\"SAL\": invalid identifier", Some(17))
    );
    assert_error(
        "UPDATE emp SET (a, b) = (SELECT 1, 2 FROM DUAL)",
        3001,
        "(a",
    );
}

#[test]
fn delete_with_and_without_from() {
    let expected = Statement::Delete {
        hint: None,
        table: ObjectName::new("T"),
        alias: None,
        where_clause: Some(binary(column("A"), BinaryOperator::Equal, number("1"))),
        returning: vec![],
    };
    assert_eq!(parse_ok("DELETE T WHERE A = 1"), expected);
    assert_eq!(parse_ok("DELETE FROM T WHERE A = 1"), expected);
    assert_eq!(
        parse_ok("DELETE /*+ FULL(x) */ FROM T x"),
        Statement::Delete {
            hint: Some("FULL(x)".into()),
            table: ObjectName::new("T"),
            alias: Some("X".into()),
            where_clause: None,
            returning: vec![],
        }
    );
    // RETURNING's values; its INTO is PL/SQL's, which the PL/SQL parser takes off first.
    assert!(matches!(
        parse_ok("DELETE FROM T RETURNING A, B + 1"),
        Statement::Delete { returning, .. } if returning.len() == 2
    ));
    assert_error("DELETE FROM T RETURNING A INTO :X", 3001, "INTO");
    assert_error("DELETE FROM T LOG ERRORS", 3001, "LOG");
}

#[test]
fn transaction_control() {
    assert_eq!(parse_ok("COMMIT"), Statement::Commit { write: None });
    assert_eq!(parse_ok("commit work;"), Statement::Commit { write: None });
    assert_eq!(parse_ok("END"), Statement::Commit { write: None });
    assert_eq!(
        parse_ok("COMMIT WRITE NOWAIT BATCH"),
        Statement::Commit {
            write: Some(CommitWrite {
                wait: Some(false),
                immediate: Some(false)
            })
        }
    );
    assert_eq!(
        parse_ok("COMMIT WORK WRITE IMMEDIATE WAIT"),
        Statement::Commit {
            write: Some(CommitWrite {
                wait: Some(true),
                immediate: Some(true)
            })
        }
    );
    assert_eq!(
        parse_ok("COMMIT WRITE"),
        Statement::Commit {
            write: Some(CommitWrite {
                wait: None,
                immediate: None
            })
        }
    );
    assert_eq!(
        parse_ok("ROLLBACK"),
        Statement::Rollback { to_savepoint: None }
    );
    assert_eq!(
        parse_ok("ROLLBACK WORK TO SAVEPOINT sp1"),
        Statement::Rollback {
            to_savepoint: Some("SP1".into())
        }
    );
    assert_eq!(
        parse_ok("ROLLBACK TO sp1"),
        Statement::Rollback {
            to_savepoint: Some("SP1".into())
        }
    );
    assert_eq!(
        parse_ok("SAVEPOINT sp1"),
        Statement::Savepoint("SP1".into())
    );
    for sql in [
        "BEGIN",
        "BEGIN;",
        "BEGIN WORK",
        "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE",
        "BEGIN ISOLATION LEVEL READ COMMITTED",
        "START TRANSACTION",
        "START TRANSACTION ISOLATION LEVEL SERIALIZABLE READ ONLY NOT DEFERRABLE",
    ] {
        assert_eq!(parse_ok(sql), Statement::Begin, "{sql}");
    }
    assert_eq!(parse_ok("BEGIN NULL; END;"), Statement::Block);
    assert_eq!(
        parse_ok("DECLARE x NUMBER; BEGIN NULL; END;"),
        Statement::Block
    );
    assert_error("COMMIT FORCE", 933, "FORCE");
}

#[test]
fn alter_system() {
    let system = |sql: &str| match parse_ok(sql) {
        Statement::AlterSystem(action) => action,
        other => panic!("{sql}: {other:?}"),
    };
    assert_eq!(
        system("ALTER SYSTEM SET db_cache_size = 64M SCOPE = MEMORY"),
        AlterSystemAction::Set {
            name: "DB_CACHE_SIZE".into(),
            values: vec![ParameterValue::Size("64M".into())],
            scope: Some(ParameterScope::Memory),
            sid: None
        }
    );
    assert_eq!(
        system("ALTER SYSTEM SET \"_kgl_bucket_count\" = 4 COMMENT = 'why' SCOPE=SPFILE SID='*'"),
        AlterSystemAction::Set {
            name: "_kgl_bucket_count".into(),
            values: vec![ParameterValue::Number("4".into())],
            scope: Some(ParameterScope::Spfile),
            sid: Some("*".into())
        }
    );
    assert!(
        matches!(system("ALTER SYSTEM SET _kgl_bucket_count = -1"), AlterSystemAction::Set { name, values, .. }
        if name == "_KGL_BUCKET_COUNT" && values == vec![ParameterValue::Number("-1".into())])
    );
    assert_eq!(
        system("ALTER SYSTEM SET db_block_lru_latches = (buffers:200, lru_latches:1), 'a', force, 1g DEFERRED"),
        AlterSystemAction::Set {
            name: "DB_BLOCK_LRU_LATCHES".into(),
            values: vec![
                ParameterValue::List("(buffers:200, lru_latches:1)".into()),
                ParameterValue::String("a".into()),
                ParameterValue::Identifier("FORCE".into()),
                ParameterValue::Size("1g".into()),
            ],
            scope: None,
            sid: None
        }
    );
    assert_eq!(
        system("ALTER SYSTEM CHECKPOINT"),
        AlterSystemAction::Checkpoint { local: false }
    );
    assert_eq!(
        system("ALTER SYSTEM CHECKPOINT GLOBAL"),
        AlterSystemAction::Checkpoint { local: false }
    );
    assert_eq!(
        system("ALTER SYSTEM CHECKPOINT LOCAL"),
        AlterSystemAction::Checkpoint { local: true }
    );
    assert_eq!(
        system("ALTER SYSTEM SWITCH LOGFILE"),
        AlterSystemAction::SwitchLogfile
    );
    assert_eq!(
        system("ALTER SYSTEM FLUSH BUFFER_CACHE"),
        AlterSystemAction::FlushBufferCache
    );
    assert_eq!(
        system("ALTER SYSTEM FLUSH SHARED_POOL"),
        AlterSystemAction::FlushSharedPool
    );
    assert_error("ALTER SYSTEM KILL SESSION '1,2'", 2065, "KILL");
    assert_error("ALTER SYSTEM SET x 1", 927, "1");
    assert_error("ALTER SYSTEM SET x = 1 SCOPE = NOWHERE", 922, "NOWHERE");
}

#[test]
fn alter_session() {
    assert_eq!(
        parse_ok("ALTER SESSION SET EVENTS '10046 trace name context forever, level 12'"),
        Statement::AlterSession(vec![SessionSetting {
            name: "EVENTS".into(),
            value: ParameterValue::String("10046 trace name context forever, level 12".into())
        }])
    );
    assert_eq!(
        parse_ok("ALTER SESSION SET optimizer_mode = ALL_ROWS cursor_sharing = \"EXACT\""),
        Statement::AlterSession(vec![
            SessionSetting {
                name: "OPTIMIZER_MODE".into(),
                value: ParameterValue::Identifier("ALL_ROWS".into())
            },
            SessionSetting {
                name: "CURSOR_SHARING".into(),
                value: ParameterValue::Identifier("EXACT".into())
            },
        ])
    );
    assert_error("ALTER SESSION ENABLE PARALLEL DML", 2248, "ENABLE");
    assert_error("ALTER SESSION SET", 922, "");
}

#[test]
fn explain_analyze_and_call() {
    assert_eq!(
        parse_ok("EXPLAIN PLAN SET STATEMENT_ID = 'q1' FOR SELECT 1 FROM DUAL"),
        Statement::Explain {
            statement_id: Some("q1".into()),
            statement: Box::new(Statement::Select(Box::new(Query::from_body(
                select_one_from_dual("1")
            ))))
        }
    );
    assert!(matches!(
        parse_ok("EXPLAIN PLAN FOR DELETE FROM T"),
        Statement::Explain { statement_id: None, statement } if matches!(*statement, Statement::Delete { .. })
    ));
    assert_error("EXPLAIN PLAN FOR COMMIT", 900, "COMMIT");
    assert_error("EXPLAIN SELECT 1 FROM DUAL", 905, "SELECT");
    assert_error(
        "EXPLAIN PLAN SET STATEMENT_ID = q1 FOR SELECT 1 FROM DUAL",
        1780,
        "q1",
    );
    assert_eq!(
        parse_ok("ANALYZE TABLE scott.t COMPUTE STATISTICS"),
        Statement::Analyze {
            table: ObjectName::qualified("SCOTT", "T"),
            action: AnalyzeAction::Compute
        }
    );
    assert_eq!(
        parse_ok("ANALYZE TABLE t ESTIMATE STATISTICS SAMPLE 10 PERCENT"),
        Statement::Analyze {
            table: ObjectName::new("T"),
            action: AnalyzeAction::Estimate(Some(Sample::Percent(10)))
        }
    );
    assert_eq!(
        parse_ok("analyze table t estimate statistics sample 500 rows"),
        Statement::Analyze {
            table: ObjectName::new("T"),
            action: AnalyzeAction::Estimate(Some(Sample::Rows(500)))
        }
    );
    assert_eq!(
        parse_ok("ANALYZE TABLE t ESTIMATE STATISTICS"),
        Statement::Analyze {
            table: ObjectName::new("T"),
            action: AnalyzeAction::Estimate(None)
        }
    );
    assert_eq!(
        parse_ok("ANALYZE TABLE t DELETE STATISTICS"),
        Statement::Analyze {
            table: ObjectName::new("T"),
            action: AnalyzeAction::Delete
        }
    );
    assert_error("ANALYZE INDEX i COMPUTE STATISTICS", 1490, "INDEX");
    assert_error(
        "ANALYZE TABLE t COMPUTE STATISTICS SAMPLE 5 ROWS",
        933,
        "SAMPLE",
    );
    assert_error("ANALYZE TABLE t ESTIMATE STATISTICS SAMPLE 5", 905, "");
    assert_eq!(
        parse_ok("ANALYZE TABLE t COMPUTE STATISTICS FOR TABLE FOR ALL INDEXES FOR ALL INDEXED COLUMNS SIZE 254"),
        Statement::Analyze {
            table: ObjectName::new("T"),
            action: AnalyzeAction::Compute
        }
    );
    assert_error(
        "ANALYZE TABLE t COMPUTE STATISTICS FOR EVERYTHING",
        1490,
        "EVERYTHING",
    );
    let call = |name: &str, args: Vec<Expr>, named: Vec<(&str, Expr)>| ProcedureCall {
        name: name.into(),
        args,
        named: named
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect(),
    };
    assert_eq!(
        parse_ok("CALL p()"),
        Statement::Call(call("P", vec![], vec![]))
    );
    assert_eq!(
        parse_ok("CALL pkg.proc(1, 'x')"),
        Statement::Call(call("PKG.PROC", vec![number("1"), string("x")], vec![]))
    );
    assert_eq!(
        parse_ok("call dbms_stats.gather_table_stats('SYSTEM', tabname => 'T', cascade => TRUE)"),
        Statement::Call(call(
            "DBMS_STATS.GATHER_TABLE_STATS",
            vec![string("SYSTEM")],
            vec![
                ("TABNAME", string("T")),
                ("CASCADE", Expr::Literal(Literal::Boolean(true)))
            ]
        ))
    );
    assert_error("CALL p", 906, "");
    assert_error("CALL p(a => 1, 2)", 6550, "2");
}

/// `BEGIN ... END;` and `DECLARE ...` are PL/SQL blocks, whose text the PL/SQL layer reads;
/// BEGIN alone (or with WORK, TRANSACTION, ISOLATION) stays PostgreSQL's transaction start.
#[test]
fn blocks_are_left_to_plsql() {
    for sql in [
        "BEGIN dbms_stats.gather_schema_stats('SYSTEM'); END;",
        "begin x := 1; end",
        "DECLARE n NUMBER; BEGIN NULL; END;",
    ] {
        assert_eq!(parse_ok(sql), Statement::Block, "{sql}");
    }
    // A block is the rest of the text it is in.
    assert_eq!(
        parse_many("SELECT 1 FROM dual; BEGIN p; END; SELECT 1 FROM dual").unwrap(),
        vec![parse_ok("SELECT 1 FROM dual"), Statement::Block]
    );
    assert_eq!(parse_ok("BEGIN"), Statement::Begin);
    assert_eq!(parse_ok("BEGIN WORK"), Statement::Begin);
}

#[test]
fn postgresql_set_show_and_vacuum() {
    assert_eq!(
        parse_ok("SET search_path TO public, pg_catalog"),
        Statement::Set {
            name: "SEARCH_PATH".into(),
            value: ParameterValue::List("public, pg_catalog".into())
        }
    );
    assert_eq!(
        parse_ok("SET client_encoding = 'UTF8'"),
        Statement::Set {
            name: "CLIENT_ENCODING".into(),
            value: ParameterValue::String("UTF8".into())
        }
    );
    assert_eq!(
        parse_ok("SET SESSION statement_timeout = 0"),
        Statement::Set {
            name: "STATEMENT_TIMEOUT".into(),
            value: ParameterValue::Number("0".into())
        }
    );
    assert_eq!(
        parse_ok("SET TIME ZONE 'UTC'"),
        Statement::Set {
            name: "TIMEZONE".into(),
            value: ParameterValue::String("UTC".into())
        }
    );
    assert_eq!(
        parse_ok("SET myapp.mode TO DEFAULT"),
        Statement::Set {
            name: "MYAPP.MODE".into(),
            value: ParameterValue::Identifier("DEFAULT".into())
        }
    );
    assert_error("SET x 1", 922, "1");
    assert_eq!(
        parse_ok("SHOW server_version"),
        Statement::Show("SERVER_VERSION".into())
    );
    assert_eq!(parse_ok("SHOW ALL"), Statement::Show("ALL".into()));
    assert_eq!(
        parse_ok("SHOW TRANSACTION ISOLATION LEVEL"),
        Statement::Show("TRANSACTION_ISOLATION".into())
    );
    let vacuum = |analyze: bool, tables: &[&str]| Statement::Vacuum {
        analyze,
        tables: tables.iter().map(|name| ObjectName::new(*name)).collect(),
    };
    assert_eq!(
        parse_ok("VACUUM ANALYZE pgbench_accounts"),
        vacuum(true, &["PGBENCH_ACCOUNTS"])
    );
    assert_eq!(parse_ok("VACUUM"), vacuum(false, &[]));
    // What pgbench -i sends: a list of tables.
    assert_eq!(
        parse_ok("vacuum analyze pgbench_branches, pgbench_tellers"),
        vacuum(true, &["PGBENCH_BRANCHES", "PGBENCH_TELLERS"])
    );
    assert_eq!(
        parse_ok("VACUUM FULL FREEZE VERBOSE t (a, b), u"),
        vacuum(false, &["T", "U"])
    );
    assert_eq!(
        parse_ok("VACUUM (VERBOSE, ANALYZE) t"),
        vacuum(true, &["T"])
    );
    assert_eq!(
        parse_ok("VACUUM (ANALYZE off, PARALLEL 2, INDEX_CLEANUP 'auto')"),
        vacuum(false, &[])
    );
    assert_error("VACUUM (ANALYZE", 907, "");
    assert_error("VACUUM t u", 933, "u");
}

#[test]
fn parse_many_splits_on_top_level_semicolons() {
    let statements =
        parse_many("SELECT :a FROM DUAL; COMMIT;; SELECT ';' FROM DUAL WHERE B = :b;").unwrap();
    assert_eq!(statements.len(), 3);
    assert_eq!(statements[1], Statement::Commit { write: None });
    assert_eq!(statements[0].bind_count(), 1);
    let Statement::Select(last) = &statements[2] else {
        panic!("not a query")
    };
    let SetExpr::Select(block) = &last.body else {
        panic!("not a block")
    };
    assert_eq!(
        block.where_clause,
        Some(binary(column("B"), BinaryOperator::Equal, bind("B", 0)))
    );
    assert_eq!(parse_many("").unwrap(), vec![]);
    assert_eq!(parse_many(" ; -- nothing\n").unwrap(), vec![]);
    let error = parse_many("COMMIT; SELEC 1").unwrap_err();
    assert_eq!((error.code(), error.position()), (900, Some(8)));
    let error = parse_many("COMMIT ROLLBACK").unwrap_err();
    assert_eq!((error.code(), error.position()), (933, Some(7)));
}
