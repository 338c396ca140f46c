//! Tests of `query.rs`: SELECT blocks, hints, set operators, ORDER BY and row limits, FOR
//! UPDATE, WITH, joins and FROM items.

use super::*;

#[test]
fn select_block_with_every_clause() {
    let select = select(
        "SELECT /*+ FULL(e) */ DISTINCT e.*, e.name AS n, sal s, \"Mixed\" \"Alias\", scott.emp.* \
         FROM scott.emp e, dept d WHERE e.deptno = d.deptno GROUP BY e.name, sal HAVING COUNT(*) > 1",
    );
    assert_eq!(select.hint.as_deref(), Some("FULL(e)"));
    assert!(select.distinct);
    assert_eq!(
        select.projection,
        vec![
            SelectItem::QualifiedWildcard(ObjectName::new("E")),
            SelectItem::Expression {
                expr: qualified_column("E", "NAME"),
                alias: Some("N".into())
            },
            SelectItem::Expression {
                expr: column("SAL"),
                alias: Some("S".into())
            },
            SelectItem::Expression {
                expr: column("Mixed"),
                alias: Some("Alias".into())
            },
            SelectItem::QualifiedWildcard(ObjectName::qualified("SCOTT", "EMP")),
        ]
    );
    assert_eq!(
        select.from,
        vec![
            TableReference::Table {
                name: ObjectName::qualified("SCOTT", "EMP"),
                alias: Some("E".into())
            },
            aliased_table("DEPT", "D"),
        ]
    );
    assert_eq!(
        select.where_clause,
        Some(binary(
            qualified_column("E", "DEPTNO"),
            BinaryOperator::Equal,
            qualified_column("D", "DEPTNO")
        ))
    );
    assert_eq!(
        select.group_by,
        vec![qualified_column("E", "NAME"), column("SAL")]
    );
    assert_eq!(
        select.having,
        Some(binary(
            Expr::Function {
                name: "COUNT".into(),
                args: vec![],
                distinct: false,
                star: true
            },
            BinaryOperator::Greater,
            number("1")
        ))
    );
    assert!(!select_block_is_distinct("SELECT ALL 1 FROM DUAL"));
    assert!(select_block_is_distinct("SELECT UNIQUE 1 FROM DUAL"));
}

fn select_block_is_distinct(sql: &str) -> bool {
    select(sql).distinct
}

#[test]
fn hints_count_only_right_after_the_keyword() {
    assert_eq!(select("SELECT 1 /*+ FULL(t) */ FROM DUAL").hint, None);
    assert_eq!(
        select("SELECT /*+ A */ /*+ B */ 1 FROM DUAL")
            .hint
            .as_deref(),
        Some("A")
    );
    assert_eq!(
        select("SELECT --+ INDEX(t i)\n 1 FROM DUAL")
            .hint
            .as_deref(),
        Some("INDEX(t i)")
    );
    assert_eq!(select("SELECT /* a comment */ 1 FROM DUAL").hint, None);
}

#[test]
fn set_operators_share_one_precedence_and_associate_left() {
    let body = query(
        "SELECT 1 FROM DUAL UNION SELECT 2 FROM DUAL UNION ALL SELECT 3 FROM DUAL \
         MINUS SELECT 4 FROM DUAL INTERSECT SELECT 5 FROM DUAL EXCEPT SELECT 6 FROM DUAL",
    )
    .body;
    let operation = |op, left, right: &str| SetExpr::SetOperation {
        op,
        left: Box::new(left),
        right: Box::new(select_one_from_dual(right)),
    };
    let expected = operation(
        SetOperator::Minus,
        operation(
            SetOperator::Intersect,
            operation(
                SetOperator::Minus,
                operation(
                    SetOperator::UnionAll,
                    operation(SetOperator::Union, select_one_from_dual("1"), "2"),
                    "3",
                ),
                "4",
            ),
            "5",
        ),
        "6",
    );
    assert_eq!(body, expected);
}

#[test]
fn parenthesized_queries_keep_only_what_they_need() {
    let query = query("(SELECT 1 FROM DUAL) UNION (SELECT 2 FROM DUAL ORDER BY 1) ORDER BY 1");
    let SetExpr::SetOperation { left, right, .. } = query.body else {
        panic!("not a set operation")
    };
    assert_eq!(*left, select_one_from_dual("1"));
    let SetExpr::Query(right) = *right else {
        panic!("the ordered operand keeps its query")
    };
    assert_eq!(right.order_by.len(), 1);
    assert_eq!(query.order_by.len(), 1);
}

#[test]
fn order_by_and_row_limits() {
    let query = query("SELECT A FROM T ORDER BY 1 DESC NULLS LAST, A ASC NULLS FIRST, B OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY");
    assert_eq!(
        query.order_by,
        vec![
            OrderByItem {
                key: SortKey::Position(1),
                descending: true,
                nulls_first: Some(false)
            },
            OrderByItem {
                key: SortKey::Expression(column("A")),
                descending: false,
                nulls_first: Some(true)
            },
            OrderByItem {
                key: SortKey::Expression(column("B")),
                descending: false,
                nulls_first: None
            },
        ]
    );
    assert_eq!(query.offset, Some(number("5")));
    assert_eq!(query.fetch_first, Some(number("10")));
    assert_eq!(
        self::query("SELECT A FROM T FETCH FIRST ROW ONLY").fetch_first,
        Some(number("1"))
    );
    assert_eq!(
        self::query("SELECT A FROM T FETCH FIRST :n ROWS ONLY").fetch_first,
        Some(bind("N", 0))
    );
    let postgresql = self::query("SELECT A FROM T ORDER BY A LIMIT 10 OFFSET 20");
    assert_eq!(
        (postgresql.fetch_first, postgresql.offset),
        (Some(number("10")), Some(number("20")))
    );
    let unlimited = self::query("SELECT A FROM T LIMIT ALL");
    assert_eq!(unlimited.fetch_first, None);
    assert_error(
        "SELECT A FROM T FETCH FIRST 5 PERCENT ROWS ONLY",
        3001,
        "PERCENT",
    );
}

#[test]
fn for_update_variants() {
    let lock = |sql: &str| query(sql).for_update.expect("FOR UPDATE");
    assert_eq!(
        lock("SELECT * FROM T FOR UPDATE"),
        ForUpdate {
            columns: vec![],
            wait: LockWait::Wait
        }
    );
    assert_eq!(
        lock("SELECT * FROM T FOR UPDATE NOWAIT").wait,
        LockWait::NoWait
    );
    assert_eq!(
        lock("SELECT * FROM T FOR UPDATE WAIT 5").wait,
        LockWait::WaitSeconds(5)
    );
    assert_eq!(
        lock("SELECT * FROM T FOR UPDATE OF T.A, B SKIP LOCKED"),
        ForUpdate {
            columns: vec![qualified_column("T", "A"), column("B")],
            wait: LockWait::SkipLocked
        }
    );
}

#[test]
fn with_clause() {
    let query = query("WITH x (a) AS (SELECT 1 FROM DUAL), y AS (SELECT * FROM x) SELECT * FROM y");
    assert_eq!(query.with.len(), 2);
    assert_eq!(query.with[0].name, "X");
    assert_eq!(query.with[0].columns, vec!["A"]);
    assert_eq!(
        *query.with[0].query,
        Query::from_body(select_one_from_dual("1"))
    );
    assert_eq!(query.with[1].name, "Y");
    assert!(query.with[1].columns.is_empty());
    assert_eq!(
        query.body,
        SetExpr::Select(Box::new(plain_select(
            vec![SelectItem::Wildcard],
            vec![table("Y")]
        )))
    );
}

#[test]
fn ansi_joins_nest_to_the_left() {
    let from = select("SELECT * FROM A JOIN B ON A.ID = B.ID LEFT OUTER JOIN C USING (ID, X)").from;
    assert_eq!(
        from,
        vec![TableReference::Join {
            left: Box::new(TableReference::Join {
                left: Box::new(table("A")),
                right: Box::new(table("B")),
                kind: JoinKind::Inner,
                condition: JoinCondition::On(binary(
                    qualified_column("A", "ID"),
                    BinaryOperator::Equal,
                    qualified_column("B", "ID")
                )),
            }),
            right: Box::new(table("C")),
            kind: JoinKind::Left,
            condition: JoinCondition::Using(vec!["ID".into(), "X".into()]),
        }]
    );
    let from = select(
        "SELECT * FROM A INNER JOIN B ON 1 = 1 CROSS JOIN C NATURAL JOIN D RIGHT JOIN E ON 1 = 1 \
         FULL OUTER JOIN F ON 1 = 1 NATURAL LEFT JOIN G, H",
    )
    .from;
    let mut kinds = Vec::new();
    let mut reference = &from[0];
    while let TableReference::Join {
        left,
        kind,
        condition,
        ..
    } = reference
    {
        kinds.push((*kind, matches!(condition, JoinCondition::Natural)));
        reference = left;
    }
    use JoinKind::*;
    assert_eq!(
        kinds,
        vec![
            (Left, true),
            (Full, false),
            (Right, false),
            (Inner, true),
            (Cross, false),
            (Inner, false)
        ]
    );
    assert_eq!(from[1], table("H"));
}

#[test]
fn inline_views_and_parenthesized_joins() {
    let from = select(
        "SELECT * FROM (SELECT 1 FROM DUAL) v, ((SELECT 1 FROM DUAL)) AS w, (A JOIN B USING (X))",
    )
    .from;
    let view = |alias: &str| TableReference::Subquery {
        query: Box::new(Query::from_body(select_one_from_dual("1"))),
        alias: Some(alias.into()),
    };
    assert_eq!(from[0], view("V"));
    assert_eq!(from[1], view("W"));
    assert_eq!(
        from[2],
        TableReference::Join {
            left: Box::new(table("A")),
            right: Box::new(table("B")),
            kind: JoinKind::Inner,
            condition: JoinCondition::Using(vec!["X".into()])
        }
    );
}

#[test]
fn aliases_are_never_reserved_words() {
    assert_eq!(
        select("SELECT A text FROM T").projection,
        vec![SelectItem::Expression {
            expr: column("A"),
            alias: Some("TEXT".into())
        }]
    );
    assert_eq!(select("SELECT A FROM T LEFT JOIN U ON 1 = 1").from.len(), 1);
    assert_error("SELECT 1 AS FROM DUAL", 923, "FROM");
    assert_error("SELECT A B C FROM T", 923, "C FROM");
    assert_error("SELECT 1 FROM DUAL X Y", 933, "Y");
    assert_error("SELECT 1 FROM DUAL WHERE 1 = 1 2", 933, "2");
}

#[test]
fn from_may_be_left_out_as_in_postgresql() {
    assert_eq!(select("SELECT 1").from, vec![]);
    assert_eq!(select("SELECT 1;").from, vec![]);
    assert!(matches!(
        query("SELECT 1 UNION SELECT 2").body,
        SetExpr::SetOperation { .. }
    ));
    assert_eq!(
        expression("(SELECT 1)"),
        Expr::ScalarSubquery(Box::new(Query::from_body(SetExpr::Select(Box::new(
            plain_select(vec![item(number("1"))], vec![])
        )))))
    );
    assert_error("SELECT 1 2 FROM DUAL", 923, "2");
}

#[test]
fn postgresql_table_functions_in_from() {
    // pgbench's generator: the alias names the table and, PostgreSQL's rule for a
    // function of one column, the column.
    let from =
        select("select aid, (aid - 1) / 100000 + 1 from generate_series(1, 100000) as aid").from;
    assert_eq!(
        from,
        vec![TableReference::TableFunction {
            name: "GENERATE_SERIES".into(),
            args: vec![number("1"), number("100000")],
            alias: Some("AID".into()),
            columns: Vec::new(),
        }]
    );
    let from = select("select * from pg_catalog.generate_series(0, 9, 3) g(x), t").from;
    assert_eq!(
        from[0],
        TableReference::TableFunction {
            name: "PG_CATALOG.GENERATE_SERIES".into(),
            args: vec![number("0"), number("9"), number("3")],
            alias: Some("G".into()),
            columns: vec!["X".into()],
        }
    );
    assert!(matches!(&from[1], TableReference::Table { name, .. } if name.name == "T"));
    // No alias, and Oracle's TABLE(...) form unchanged.
    assert!(matches!(
        &select("select * from generate_series(1, 2)").from[0],
        TableReference::TableFunction { alias: None, columns, .. } if columns.is_empty()
    ));
    assert!(matches!(
        &select("select * from table(dbms_xplan.display)").from[0],
        TableReference::TableFunction { name, .. } if name == "DBMS_XPLAN.DISPLAY"
    ));
    assert_error("select * from generate_series(1, 2) as g(x", 907, "");
    assert_error("select * from f(distinct a)", 903, "f(");
}
