//! Tests of `ddl.rs` and `data_types.rs`: tables, constraints, storage clauses, indexes,
//! ALTER TABLE, sequences, views, DROP and TRUNCATE.

use super::*;

#[test]
fn create_table_with_columns_constraints_and_storage() {
    let statement = parse_ok(
        "CREATE TABLE scott.t (
               id NUMBER(10) CONSTRAINT t_pk PRIMARY KEY,
               name VARCHAR2(30 CHAR) NOT NULL,
               code CHAR UNIQUE,
               price NUMBER(*, -2) DEFAULT 0 CONSTRAINT price_ck CHECK (price >= 0),
               dept_id INTEGER REFERENCES dept (id) ON DELETE CASCADE,
               created DATE DEFAULT SYSDATE NOT NULL,
               ts TIMESTAMP(3), f FLOAT(10), d DOUBLE PRECISION, b BOOLEAN, txt TEXT, v VARCHAR(10), n NUMBER,
               CONSTRAINT t_uk UNIQUE (name, code),
               CHECK (id > 0),
               FOREIGN KEY (dept_id) REFERENCES dept ON DELETE SET NULL
             ) PCTFREE 20 TABLESPACE users STORAGE (INITIAL 64K NEXT 1M BUFFER_POOL KEEP) NOLOGGING CACHE",
    );
    let Statement::CreateTable {
        name,
        if_not_exists,
        columns,
        constraints,
        as_query,
        storage,
        cache,
        ..
    } = statement
    else {
        panic!("not CREATE TABLE");
    };
    assert_eq!(name, ObjectName::qualified("SCOTT", "T"));
    assert!(!if_not_exists && as_query.is_none());
    assert_eq!(
        storage,
        StorageClause {
            buffer_pool: Some(BufferPool::Keep),
            pctfree: Some(20)
        }
    );
    assert_eq!(cache, Some(true));

    let mut id = ColumnDef::new(
        "ID",
        DataType::Number {
            precision: Some(10),
            scale: None,
        },
    );
    id.primary_key = true;
    id.primary_key_constraint_name = Some("T_PK".into());
    let mut name = ColumnDef::new("NAME", DataType::Varchar2 { length: 30 });
    name.not_null = true;
    let mut code = ColumnDef::new("CODE", DataType::Char { length: 1 });
    code.unique = true;
    let mut price = ColumnDef::new(
        "PRICE",
        DataType::Number {
            precision: None,
            scale: Some(-2),
        },
    );
    price.default = Some(number("0"));
    price.constraints.push(TableConstraint {
        name: Some("PRICE_CK".into()),
        kind: TableConstraintKind::Check(binary(
            column("PRICE"),
            BinaryOperator::GreaterOrEqual,
            number("0"),
        )),
    });
    let mut dept_id = ColumnDef::new("DEPT_ID", DataType::Integer);
    dept_id.constraints.push(TableConstraint {
        name: None,
        kind: TableConstraintKind::ForeignKey {
            columns: vec!["DEPT_ID".into()],
            references: ForeignKeyReference {
                table: ObjectName::new("DEPT"),
                columns: vec!["ID".into()],
                on_delete: Some(ReferentialAction::Cascade),
            },
        },
    });
    let mut created = ColumnDef::new("CREATED", DataType::Date);
    created.default = Some(function("SYSDATE", vec![]));
    created.not_null = true;
    let expected_columns = vec![
        id,
        name,
        code,
        price,
        dept_id,
        created,
        ColumnDef::new("TS", DataType::Timestamp { precision: Some(3) }),
        ColumnDef::new("F", DataType::Float),
        ColumnDef::new("D", DataType::Float),
        ColumnDef::new("B", DataType::Boolean),
        ColumnDef::new("TXT", DataType::Varchar2 { length: 4000 }),
        ColumnDef::new("V", DataType::Varchar2 { length: 10 }),
        ColumnDef::new(
            "N",
            DataType::Number {
                precision: None,
                scale: None,
            },
        ),
    ];
    assert_eq!(columns, expected_columns);
    assert_eq!(
        constraints,
        vec![
            TableConstraint {
                name: Some("T_UK".into()),
                kind: TableConstraintKind::Unique {
                    columns: vec!["NAME".into(), "CODE".into()]
                }
            },
            TableConstraint {
                name: None,
                kind: TableConstraintKind::Check(binary(
                    column("ID"),
                    BinaryOperator::Greater,
                    number("0")
                ))
            },
            TableConstraint {
                name: None,
                kind: TableConstraintKind::ForeignKey {
                    columns: vec!["DEPT_ID".into()],
                    references: ForeignKeyReference {
                        table: ObjectName::new("DEPT"),
                        columns: vec![],
                        on_delete: Some(ReferentialAction::SetNull)
                    },
                }
            },
        ]
    );
}

#[test]
fn create_table_as_select_and_postgresql_forms() {
    let Statement::CreateTable {
        columns,
        as_query,
        cache,
        storage,
        ..
    } = parse_ok("CREATE TABLE t2 NOCACHE STORAGE (BUFFER_POOL RECYCLE) AS SELECT * FROM t")
    else {
        panic!("not CREATE TABLE");
    };
    assert!(columns.is_empty());
    let Statement::CreateTable {
        column_names,
        as_query: named_query,
        ..
    } = parse_ok("CREATE TABLE t3 (a, \"b\") AS SELECT 1, 2 FROM dual")
    else {
        panic!("not CREATE TABLE");
    };
    assert_eq!(column_names, vec!["A".to_string(), "b".to_string()]);
    assert!(named_query.is_some());
    assert_eq!(parse("CREATE TABLE t4 (a, b)").unwrap_err().code(), 902);
    assert_eq!(cache, Some(false));
    assert_eq!(storage.buffer_pool, Some(BufferPool::Recycle));
    assert_eq!(
        *as_query.expect("AS query"),
        Query::from_body(SetExpr::Select(Box::new(plain_select(
            vec![SelectItem::Wildcard],
            vec![table("T")]
        ))))
    );
    let Statement::CreateTable { if_not_exists, columns, storage, .. } =
        parse_ok("CREATE TABLE IF NOT EXISTS pgbench_branches (bid int not null, bbalance int, filler char(88)) WITH (fillfactor=100)")
    else {
        panic!("not CREATE TABLE");
    };
    assert!(if_not_exists);
    assert_eq!(columns.len(), 3);
    assert_eq!(columns[2].data_type, DataType::Char { length: 88 });
    assert_eq!(storage, StorageClause::default());
}

#[test]
fn data_type_errors() {
    assert_error("CREATE TABLE T (A FOO)", 902, "FOO");
    assert_error("CREATE TABLE T (A DOUBLE)", 902, "DOUBLE");
    assert_error("CREATE TABLE T (A NUMBER(39))", 1727, "39");
    assert_error("CREATE TABLE T (A NUMBER(0))", 1727, "0");
    assert_error("CREATE TABLE T (A NUMBER(5, 128))", 1728, "128");
    assert_error("CREATE TABLE T (A NUMBER(5, -85))", 1728, "-85");
    assert_error("CREATE TABLE T (A VARCHAR2)", 906, ")");
    assert_error("CREATE TABLE T (A VARCHAR2(99999999999))", 910, "999");
    assert_error("CREATE TABLE T (A TIMESTAMP(10))", 30088, "10");
    assert_error("CREATE TABLE T (A TIMESTAMP WITH TIME ZONE)", 3001, "WITH");
    assert_error("CREATE TABLE T (A NUMBER) PCTFREE 100", 2211, "100");
}

#[test]
fn drop_and_truncate() {
    assert_eq!(
        parse_ok("DROP TABLE scott.t CASCADE CONSTRAINTS PURGE"),
        Statement::DropTable {
            names: vec![ObjectName::qualified("SCOTT", "T")],
            if_exists: false,
            purge: true,
            cascade_constraints: true
        }
    );
    assert_eq!(
        parse_ok("DROP TABLE IF EXISTS t"),
        Statement::DropTable {
            names: vec![ObjectName::new("T")],
            if_exists: true,
            purge: false,
            cascade_constraints: false
        }
    );
    // pgbench's first statement: PostgreSQL drops a list of tables.
    assert_eq!(
        parse_ok("drop table if exists pgbench_accounts, pgbench_branches, s.pgbench_history"),
        Statement::DropTable {
            names: vec![
                ObjectName::new("PGBENCH_ACCOUNTS"),
                ObjectName::new("PGBENCH_BRANCHES"),
                ObjectName::qualified("S", "PGBENCH_HISTORY")
            ],
            if_exists: true,
            purge: false,
            cascade_constraints: false
        }
    );
    assert_error("DROP TABLE a, ", 903, "");
    assert_eq!(
        parse_ok("TRUNCATE TABLE t DROP STORAGE"),
        Statement::Truncate {
            tables: vec![ObjectName::new("T")]
        }
    );
    assert_eq!(
        parse_ok("TRUNCATE a, s.b RESTART IDENTITY CASCADE"),
        Statement::Truncate {
            tables: vec![ObjectName::new("A"), ObjectName::qualified("S", "B")]
        }
    );
    assert_eq!(
        parse_ok("DROP INDEX s.i"),
        Statement::DropIndex {
            name: ObjectName::qualified("S", "I")
        }
    );
    assert_eq!(
        parse_ok("DROP VIEW v"),
        Statement::DropView {
            name: ObjectName::new("V")
        }
    );
    assert_eq!(
        parse_ok("DROP SEQUENCE q"),
        Statement::DropSequence {
            name: ObjectName::new("Q")
        }
    );
}

#[test]
fn indexes() {
    assert_eq!(
        parse_ok(
            "CREATE UNIQUE INDEX scott.i ON scott.t (a, b DESC, c ASC) TABLESPACE x \
             STORAGE (BUFFER_POOL RECYCLE) PCTFREE 5 ONLINE COMPUTE STATISTICS"
        ),
        Statement::CreateIndex {
            name: ObjectName::qualified("SCOTT", "I"),
            unique: true,
            table: ObjectName::qualified("SCOTT", "T"),
            columns: vec![("A".into(), false), ("B".into(), true), ("C".into(), false)],
            storage: StorageClause {
                buffer_pool: Some(BufferPool::Recycle),
                pctfree: Some(5)
            },
        }
    );
    assert!(matches!(
        parse_ok("CREATE INDEX pgbench_i ON pgbench_accounts (aid) WITH (fillfactor = 90)"),
        Statement::CreateIndex { unique: false, .. }
    ));
    assert_eq!(
        parse_ok("ALTER INDEX i REBUILD ONLINE STORAGE (BUFFER_POOL KEEP)"),
        Statement::AlterIndex {
            name: ObjectName::new("I"),
            action: AlterIndexAction::Rebuild {
                storage: StorageClause {
                    buffer_pool: Some(BufferPool::Keep),
                    pctfree: None
                }
            }
        }
    );
    assert_eq!(
        parse_ok("ALTER INDEX i STORAGE (BUFFER_POOL DEFAULT)"),
        Statement::AlterIndex {
            name: ObjectName::new("I"),
            action: AlterIndexAction::Storage(StorageClause {
                buffer_pool: Some(BufferPool::Default),
                pctfree: None
            })
        }
    );
    assert_error("ALTER INDEX i UNUSABLE", 2243, "UNUSABLE");
    assert_error("CREATE INDEX i t (a)", 969, "t (a)");
    assert_error("CREATE INDEX i ON t (a) REVERSE", 2158, "REVERSE");
}

/// Seed 001's example and every option of Oracle's STORAGE clause parse; only
/// BUFFER_POOL is kept. Bad clauses are ORA-02143 (a word that is no option), ORA-00922
/// (an option without its value, a pool that does not exist) or ORA-00907, at the
/// offending token.
#[test]
fn storage_clauses() {
    let pool = |sql: &str| match parse_ok(sql) {
        Statement::CreateTable { storage, .. } | Statement::CreateIndex { storage, .. } => {
            storage.buffer_pool
        }
        Statement::AlterTable {
            action: AlterTableAction::Attributes { storage, .. },
            ..
        }
        | Statement::AlterIndex {
            action: AlterIndexAction::Storage(storage),
            ..
        } => storage.buffer_pool,
        other => panic!("{sql}: {other:?}"),
    };
    assert_eq!(
        pool(
            "CREATE TABLE new_table (col1 NUMBER, col2 VARCHAR2(100)) TABLESPACE users \
             STORAGE (INITIAL 64K NEXT 128K BUFFER_POOL KEEP)"
        ),
        Some(BufferPool::Keep)
    );
    assert_eq!(
        pool(
            "CREATE TABLE t (a NUMBER) STORAGE (INITIAL 1M NEXT 10 MINEXTENTS 1 \
             MAXEXTENTS UNLIMITED PCTINCREASE 0 FREELISTS 4 FREELIST GROUPS 2 \
             buffer_pool recycle)"
        ),
        Some(BufferPool::Recycle)
    );
    assert_eq!(
        pool("CREATE TABLE t (a NUMBER) STORAGE (MAXEXTENTS 505 INITIAL 2G NEXT 1T)"),
        None
    );
    // The last BUFFER_POOL said counts, as the last of any option.
    assert_eq!(
        pool("CREATE INDEX i ON t (a) STORAGE (BUFFER_POOL KEEP BUFFER_POOL DEFAULT)"),
        Some(BufferPool::Default)
    );
    assert_eq!(
        pool("ALTER INDEX i STORAGE (NEXT 64K BUFFER_POOL RECYCLE)"),
        Some(BufferPool::Recycle)
    );
    assert_eq!(
        pool("ALTER TABLE t STORAGE (BUFFER_POOL KEEP) CACHE"),
        Some(BufferPool::Keep)
    );
    let Statement::CreateTable { cache, .. } =
        parse_ok("CREATE TABLE t (a NUMBER) CACHE STORAGE (BUFFER_POOL KEEP) NOCACHE")
    else {
        panic!("not CREATE TABLE");
    };
    assert_eq!(cache, Some(false));

    let errors: &[(&str, u32, &str)] = &[
        ("CREATE TABLE t (a NUMBER) STORAGE (SIZE 10)", 2143, "SIZE"),
        ("ALTER TABLE t STORAGE ()", 2143, ")"),
        ("ALTER TABLE t STORAGE (INITIAL 64K, NEXT 1)", 2143, ","),
        ("ALTER TABLE t STORAGE (BUFFER_POOL HOT)", 922, "HOT"),
        ("ALTER TABLE t STORAGE (BUFFER_POOL)", 922, ")"),
        ("ALTER TABLE t STORAGE (INITIAL)", 922, ")"),
        ("ALTER TABLE t STORAGE (MAXEXTENTS LOTS)", 922, "LOTS"),
        ("ALTER TABLE t STORAGE (FREELIST 2)", 2143, "2"),
        ("ALTER TABLE t STORAGE (NEXT 99999999999)", 1722, "999"),
        ("ALTER TABLE t STORAGE (BUFFER_POOL KEEP", 907, ""),
        ("ALTER TABLE t STORAGE BUFFER_POOL KEEP", 906, "BUFFER_POOL"),
        (
            "CREATE INDEX i ON t (a) STORAGE (PCTFREE 5)",
            2143,
            "PCTFREE",
        ),
        ("ALTER TABLE t STORAGE (KEEP)", 2143, "KEEP"),
        ("ALTER INDEX i STORAGE (BUFFER_POOL KEPT)", 922, "KEPT"),
        ("ALTER TABLE t CACHE NOW", 933, "NOW"),
    ];
    for (sql, code, at) in errors {
        assert_error(sql, *code, at);
    }
}

#[test]
fn alter_table_actions() {
    let action = |sql: &str| match parse_ok(sql) {
        Statement::AlterTable { action, .. } => action,
        other => panic!("{sql}: {other:?}"),
    };
    assert_eq!(
        action("ALTER TABLE t ADD c NUMBER"),
        AlterTableAction::AddColumns(vec![ColumnDef::new(
            "C",
            DataType::Number {
                precision: None,
                scale: None
            }
        )])
    );
    assert_eq!(
        action("ALTER TABLE t ADD COLUMN c int"),
        AlterTableAction::AddColumns(vec![ColumnDef::new("C", DataType::Integer)])
    );
    let AlterTableAction::AddColumns(columns) =
        action("ALTER TABLE t ADD (c DATE, d VARCHAR2(5) DEFAULT 'x' NOT NULL)")
    else {
        panic!("not ADD");
    };
    assert_eq!(columns.len(), 2);
    assert_eq!(
        (columns[1].default.clone(), columns[1].not_null),
        (Some(string("x")), true)
    );
    assert_eq!(
        action("ALTER TABLE t ADD CONSTRAINT t_pk PRIMARY KEY (a, b)"),
        AlterTableAction::AddConstraint(TableConstraint {
            name: Some("T_PK".into()),
            kind: TableConstraintKind::PrimaryKey {
                columns: vec!["A".into(), "B".into()]
            }
        })
    );
    assert!(matches!(
        action("ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES u (b)"),
        AlterTableAction::AddConstraint(TableConstraint {
            name: None,
            kind: TableConstraintKind::ForeignKey { .. }
        })
    ));
    assert!(matches!(
        action("ALTER TABLE t ADD UNIQUE (a)"),
        AlterTableAction::AddConstraint(_)
    ));
    assert!(matches!(
        action("ALTER TABLE t ADD CHECK (a > 0)"),
        AlterTableAction::AddConstraint(_)
    ));
    assert_eq!(
        action("ALTER TABLE t DROP COLUMN c"),
        AlterTableAction::DropColumn("C".into())
    );
    assert_eq!(
        action("ALTER TABLE t DROP CONSTRAINT t_pk"),
        AlterTableAction::DropConstraint("T_PK".into())
    );
    assert_eq!(
        action("ALTER TABLE t MODIFY (c VARCHAR2(20) NOT NULL, d DEFAULT 1)"),
        AlterTableAction::ModifyColumns(vec![
            ColumnModification {
                name: "C".into(),
                data_type: Some(DataType::Varchar2 { length: 20 }),
                default: None,
                not_null: Some(true)
            },
            ColumnModification {
                name: "D".into(),
                data_type: None,
                default: Some(number("1")),
                not_null: None
            },
        ])
    );
    assert_eq!(
        action("ALTER TABLE t MODIFY c NULL"),
        AlterTableAction::ModifyColumns(vec![ColumnModification {
            name: "C".into(),
            data_type: None,
            default: None,
            not_null: Some(false)
        }])
    );
    assert_eq!(
        action("ALTER TABLE t RENAME TO u"),
        AlterTableAction::RenameTo("U".into())
    );
    assert_eq!(
        parse_ok("COMMENT ON COLUMN s.t.c IS 'it''s'"),
        Statement::Comment {
            table: ObjectName::qualified("S", "T"),
            column: Some("C".into()),
            text: "it's".into()
        }
    );
    assert_eq!(
        parse_ok("COMMENT ON TABLE t IS ''"),
        Statement::Comment {
            table: ObjectName::new("T"),
            column: None,
            text: String::new()
        }
    );
    assert_eq!(
        action("ALTER TABLE t DROP PRIMARY KEY"),
        AlterTableAction::DropPrimaryKey
    );
    assert_eq!(
        action("ALTER TABLE t DROP UNIQUE (a, b)"),
        AlterTableAction::DropUnique(vec!["A".into(), "B".into()])
    );
    assert_eq!(
        parse_ok("RENAME t TO u"),
        Statement::Rename {
            from: ObjectName::new("T"),
            to: ObjectName::new("U")
        }
    );
    assert_eq!(
        action("ALTER TABLE t RENAME COLUMN a TO b"),
        AlterTableAction::RenameColumn {
            from: "A".into(),
            to: "B".into()
        }
    );
    assert_eq!(
        action("ALTER TABLE t STORAGE (BUFFER_POOL KEEP) PCTFREE 10"),
        AlterTableAction::Attributes {
            storage: StorageClause {
                buffer_pool: Some(BufferPool::Keep),
                pctfree: Some(10)
            },
            cache: None
        }
    );
    let cache_only = |cache| AlterTableAction::Attributes {
        storage: StorageClause::default(),
        cache: Some(cache),
    };
    assert_eq!(action("ALTER TABLE t CACHE"), cache_only(true));
    assert_eq!(action("ALTER TABLE t NOCACHE"), cache_only(false));
    assert_eq!(
        action("ALTER TABLE t NOCACHE STORAGE (BUFFER_POOL RECYCLE)"),
        AlterTableAction::Attributes {
            storage: StorageClause {
                buffer_pool: Some(BufferPool::Recycle),
                pctfree: None
            },
            cache: Some(false)
        }
    );
    assert_error("ALTER TABLE t SHRINK SPACE", 1735, "SHRINK");
    assert_error("ALTER TABLE t DROP c", 905, "c");
}

#[test]
fn sequences() {
    use SequenceOption::*;
    assert_eq!(
        parse_ok("CREATE SEQUENCE s START WITH -5 INCREMENT BY -1 MINVALUE -100 MAXVALUE 0 CACHE 20 CYCLE ORDER"),
        Statement::CreateSequence {
            name: ObjectName::new("S"),
            options: vec![StartWith(-5), IncrementBy(-1), MinValue(-100), MaxValue(0), Cache(20), Cycle, Order]
        }
    );
    assert_eq!(
        parse_ok("CREATE SEQUENCE s NOMINVALUE NOMAXVALUE NOCACHE NOCYCLE NOORDER MAXVALUE 9999999999999999999999999999"),
        Statement::CreateSequence {
            name: ObjectName::new("S"),
            options: vec![NoMinValue, NoMaxValue, NoCache, NoCycle, NoOrder, MaxValue(9_999_999_999_999_999_999_999_999_999)]
        }
    );
    assert_eq!(
        parse_ok("CREATE SEQUENCE s START 1 INCREMENT 2 NO MAXVALUE NO CYCLE"),
        Statement::CreateSequence {
            name: ObjectName::new("S"),
            options: vec![StartWith(1), IncrementBy(2), NoMaxValue, NoCycle]
        }
    );
    assert_eq!(
        parse_ok("CREATE SEQUENCE s"),
        Statement::CreateSequence {
            name: ObjectName::new("S"),
            options: vec![]
        }
    );
    assert_eq!(
        parse_ok("ALTER SEQUENCE s INCREMENT BY 10"),
        Statement::AlterSequence {
            name: ObjectName::new("S"),
            options: vec![IncrementBy(10)]
        }
    );
    assert_error("ALTER SEQUENCE s", 2286, "");
    assert_error("CREATE SEQUENCE s START WITH 1.5", 1722, "1.5");
    assert_error("CREATE SEQUENCE s CYCLES", 933, "CYCLES");
}

#[test]
fn views() {
    assert_eq!(
        parse_ok("CREATE OR REPLACE FORCE VIEW v (a) AS SELECT 1 FROM DUAL"),
        Statement::CreateView {
            or_replace: true,
            name: ObjectName::new("V"),
            columns: vec!["A".into()],
            query: Box::new(Query::from_body(select_one_from_dual("1")))
        }
    );
    assert!(matches!(
        parse_ok("CREATE VIEW s.v AS SELECT 1 FROM DUAL"),
        Statement::CreateView {
            or_replace: false,
            ..
        }
    ));
    assert_error("CREATE OR REPLACE TABLE t (a int)", 922, "TABLE");
    assert_error("CREATE VIEW v SELECT 1 FROM DUAL", 905, "SELECT");
}
