//! Tests of `expression.rs`: precedence, predicates, literals, binds, calls, casts and
//! PostgreSQL's operators.

use super::*;

#[test]
fn operator_precedence_follows_oracle() {
    use BinaryOperator::*;
    assert_eq!(
        expression("1 + 2 * 3"),
        binary(number("1"), Add, binary(number("2"), Multiply, number("3")))
    );
    assert_eq!(
        expression("1 - 2 - 3"),
        binary(
            binary(number("1"), Subtract, number("2")),
            Subtract,
            number("3")
        )
    );
    assert_eq!(
        expression("A || B + C"),
        binary(binary(column("A"), Concat, column("B")), Add, column("C"))
    );
    assert_eq!(
        expression("- A * B"),
        binary(
            unary(UnaryOperator::Minus, column("A")),
            Multiply,
            column("B")
        )
    );
    assert_eq!(
        expression("(1 + 2) * 3"),
        binary(binary(number("1"), Add, number("2")), Multiply, number("3"))
    );
    assert_eq!(
        condition("A = 1 OR B = 2 AND NOT C = 3"),
        binary(
            binary(column("A"), Equal, number("1")),
            Or,
            binary(
                binary(column("B"), Equal, number("2")),
                And,
                unary(UnaryOperator::Not, binary(column("C"), Equal, number("3")))
            )
        )
    );
    // `::` binds tighter than unary minus, and comparisons are looser than arithmetic.
    assert_eq!(
        condition("-X::INT + 1 >= Y"),
        binary(
            binary(
                unary(
                    UnaryOperator::Minus,
                    Expr::Cast {
                        expr: Box::new(column("X")),
                        data_type: DataType::Integer
                    }
                ),
                Add,
                number("1")
            ),
            GreaterOrEqual,
            column("Y")
        )
    );
    assert_eq!(
        condition("A != 1"),
        binary(column("A"), NotEqual, number("1"))
    );
    assert_eq!(
        condition("A ^= 1"),
        binary(column("A"), NotEqual, number("1"))
    );
    assert_eq!(
        condition("A <> 1"),
        binary(column("A"), NotEqual, number("1"))
    );
}

#[test]
fn comparisons_do_not_chain() {
    assert_error("SELECT * FROM T WHERE A = B = C", 933, "= C");
}

#[test]
fn long_and_or_chains_are_balanced_in_text_order() {
    use BinaryOperator::*;
    let term = |value: &str| binary(column("A"), Equal, number(value));
    assert_eq!(
        condition("A = 1 OR A = 2 OR A = 3"),
        binary(binary(term("1"), Or, term("2")), Or, term("3"))
    );
    assert_eq!(
        condition("A = 1 AND A = 2 AND A = 3 AND A = 4"),
        binary(
            binary(term("1"), And, term("2")),
            And,
            binary(term("3"), And, term("4"))
        )
    );
    let many: Vec<String> = (0..10_000).map(|value| format!("A = {value}")).collect();
    let statement = parse_ok(&format!("SELECT * FROM T WHERE {}", many.join(" OR ")));
    assert!(Node::Statement(&statement).height() < 25);
}

#[test]
fn null_between_in_like_and_their_negations() {
    let a = || Box::new(column("A"));
    assert_eq!(
        condition("A IS NULL"),
        Expr::IsNull {
            expr: a(),
            negated: false
        }
    );
    assert_eq!(
        condition("A IS NOT NULL"),
        Expr::IsNull {
            expr: a(),
            negated: true
        }
    );
    assert_eq!(
        condition("A NOT BETWEEN 1 AND 2 + 3"),
        Expr::Between {
            expr: a(),
            low: Box::new(number("1")),
            high: Box::new(binary(number("2"), BinaryOperator::Add, number("3"))),
            negated: true
        }
    );
    assert_eq!(
        condition("A IN (1, 'x')"),
        Expr::InList {
            expr: a(),
            list: vec![number("1"), string("x")],
            negated: false
        }
    );
    assert_eq!(
        condition("A NOT IN (1)"),
        Expr::InList {
            expr: a(),
            list: vec![number("1")],
            negated: true
        }
    );
    assert_eq!(
        condition("A LIKE 'a\\_%' ESCAPE '\\'"),
        Expr::Like {
            expr: a(),
            pattern: Box::new(string("a\\_%")),
            escape: Some(Box::new(string("\\"))),
            negated: false
        }
    );
    assert_eq!(
        condition("A NOT LIKE 'x%'"),
        Expr::Like {
            expr: a(),
            pattern: Box::new(string("x%")),
            escape: None,
            negated: true
        }
    );
}

#[test]
fn subquery_predicates() {
    let subquery = || Box::new(Query::from_body(select_one_from_dual("1")));
    assert_eq!(
        condition("A IN (SELECT 1 FROM DUAL)"),
        Expr::InSubquery {
            expr: Box::new(column("A")),
            query: subquery(),
            negated: false
        }
    );
    assert_eq!(
        condition("(A, B) NOT IN (SELECT 1 FROM DUAL)"),
        Expr::InSubquery {
            expr: Box::new(Expr::Tuple(vec![column("A"), column("B")])),
            query: subquery(),
            negated: true
        }
    );
    assert_eq!(
        condition("(A, B) IN ((1, 2), (3, 4))"),
        Expr::InList {
            expr: Box::new(Expr::Tuple(vec![column("A"), column("B")])),
            list: vec![
                Expr::Tuple(vec![number("1"), number("2")]),
                Expr::Tuple(vec![number("3"), number("4")])
            ],
            negated: false
        }
    );
    assert_eq!(
        condition("EXISTS (SELECT 1 FROM DUAL)"),
        Expr::Exists {
            query: subquery(),
            negated: false
        }
    );
    assert_eq!(
        condition("NOT EXISTS (SELECT 1 FROM DUAL)"),
        Expr::Exists {
            query: subquery(),
            negated: true
        }
    );
    assert_eq!(
        condition("A > ALL (SELECT 1 FROM DUAL)"),
        Expr::QuantifiedComparison {
            left: Box::new(column("A")),
            op: BinaryOperator::Greater,
            quantifier: Quantifier::All,
            right: QuantifiedOperand::Subquery(subquery())
        }
    );
    assert_eq!(
        condition("A = SOME (1, 2)"),
        Expr::QuantifiedComparison {
            left: Box::new(column("A")),
            op: BinaryOperator::Equal,
            quantifier: Quantifier::Any,
            right: QuantifiedOperand::List(vec![number("1"), number("2")])
        }
    );
    assert_eq!(
        expression("(SELECT 1 FROM DUAL)"),
        Expr::ScalarSubquery(subquery())
    );
    assert_eq!(
        expression("((SELECT 1 FROM DUAL))"),
        Expr::ScalarSubquery(subquery())
    );
}

#[test]
fn a_parenthesized_subquery_may_start_a_set_operation() {
    let Expr::ScalarSubquery(query) =
        expression("((SELECT 1 FROM DUAL) UNION (SELECT 2 FROM DUAL) ORDER BY 1)")
    else {
        panic!("not a scalar subquery");
    };
    assert_eq!(
        query.body,
        SetExpr::SetOperation {
            op: SetOperator::Union,
            left: Box::new(select_one_from_dual("1")),
            right: Box::new(select_one_from_dual("2"))
        }
    );
    assert_eq!(query.order_by.len(), 1);
}

#[test]
fn case_cast_and_postgresql_casts() {
    assert_eq!(
        expression("CASE WHEN A = 1 THEN 'one' WHEN A = 2 THEN 'two' ELSE 'many' END"),
        Expr::Case {
            operand: None,
            when_then: vec![
                (
                    binary(column("A"), BinaryOperator::Equal, number("1")),
                    string("one")
                ),
                (
                    binary(column("A"), BinaryOperator::Equal, number("2")),
                    string("two")
                ),
            ],
            else_result: Some(Box::new(string("many")))
        }
    );
    assert_eq!(
        expression("CASE A WHEN 1 THEN 'one' END"),
        Expr::Case {
            operand: Some(Box::new(column("A"))),
            when_then: vec![(number("1"), string("one"))],
            else_result: None
        }
    );
    assert_eq!(
        expression("CAST(A AS NUMBER(10, 2))"),
        Expr::Cast {
            expr: Box::new(column("A")),
            data_type: DataType::Number {
                precision: Some(10),
                scale: Some(2)
            }
        }
    );
    assert_eq!(
        expression("'1'::varchar(10)"),
        Expr::Cast {
            expr: Box::new(string("1")),
            data_type: DataType::Varchar2 { length: 10 }
        }
    );
    assert_eq!(
        expression("A::text::int"),
        Expr::Cast {
            expr: Box::new(Expr::Cast {
                expr: Box::new(column("A")),
                data_type: DataType::Varchar2 { length: 4000 }
            }),
            data_type: DataType::Integer
        }
    );
}

#[test]
fn function_calls() {
    assert_eq!(
        expression("COUNT(*)"),
        Expr::Function {
            name: "COUNT".into(),
            args: vec![],
            distinct: false,
            star: true
        }
    );
    assert_eq!(
        expression("count(DISTINCT a)"),
        Expr::Function {
            name: "COUNT".into(),
            args: vec![column("A")],
            distinct: true,
            star: false
        }
    );
    assert_eq!(
        expression("DBMS_RANDOM.VALUE"),
        qualified_column("DBMS_RANDOM", "VALUE")
    );
    assert_eq!(
        expression("dbms_random.value(1, 10)"),
        function("DBMS_RANDOM.VALUE", vec![number("1"), number("10")])
    );
    assert_eq!(expression("sys.pkg.f()"), function("SYS.PKG.F", vec![]));
    assert_eq!(
        expression("NVL(A, 0)"),
        function("NVL", vec![column("A"), number("0")])
    );
    for name in [
        "SYSDATE",
        "SYSTIMESTAMP",
        "CURRENT_TIMESTAMP",
        "CURRENT_DATE",
        "USER",
        "UID",
        "LOCALTIMESTAMP",
    ] {
        assert_eq!(expression(name), function(name, vec![]), "{name}");
    }
    assert_eq!(
        expression("CURRENT_TIMESTAMP(3)"),
        function("CURRENT_TIMESTAMP", vec![number("3")])
    );
}

#[test]
fn pseudo_columns_and_qualified_names() {
    assert_eq!(expression("ROWNUM"), Expr::Rownum);
    assert_eq!(expression("ROWID"), column("ROWID"));
    assert_eq!(expression("e.rowid"), qualified_column("E", "ROWID"));
    assert_eq!(
        expression("seq.NEXTVAL"),
        qualified_column("SEQ", "NEXTVAL")
    );
    assert_eq!(
        expression("scott.seq.currval"),
        Expr::Column {
            schema: Some("SCOTT".into()),
            table: Some("SEQ".into()),
            name: "CURRVAL".into()
        }
    );
    assert_eq!(
        expression("\"Mixed\".\"Case\""),
        qualified_column("Mixed", "Case")
    );
    assert_eq!(expression("text"), column("TEXT"));
    assert_eq!(expression("\"DATE\""), column("DATE"));
}

#[test]
fn literals_keep_their_text() {
    assert_eq!(expression("1.5E-3"), number("1.5E-3"));
    assert_eq!(expression("'it''s'"), string("it's"));
    assert_eq!(expression("q'[it's]'"), string("it's"));
    assert_eq!(expression("N'ünï'"), string("ünï"));
    assert_eq!(expression("NULL"), Expr::Literal(Literal::Null));
    assert_eq!(expression("TRUE"), Expr::Literal(Literal::Boolean(true)));
    assert_eq!(expression("false"), Expr::Literal(Literal::Boolean(false)));
    assert_eq!(
        expression("DATE '2024-01-31'"),
        Expr::Literal(Literal::Date("2024-01-31".into()))
    );
    assert_eq!(
        expression("TIMESTAMP '2024-01-31 12:00:00.5'"),
        Expr::Literal(Literal::Timestamp("2024-01-31 12:00:00.5".into()))
    );
    assert_eq!(expression("-1"), unary(UnaryOperator::Minus, number("1")));
}

#[test]
fn binds_are_numbered_in_text_order() {
    assert_eq!(
        expression(r#":a + :1 + :"SYS_B_0" + $1"#),
        binary(
            binary(
                binary(bind("A", 0), BinaryOperator::Add, bind("1", 1)),
                BinaryOperator::Add,
                bind("SYS_B_0", 2)
            ),
            BinaryOperator::Add,
            bind("1", 3)
        )
    );
    let statement = parse_ok(
        "SELECT :a FROM T WHERE X IN (SELECT :b FROM U WHERE Y = :c) AND Z = :a ORDER BY :d",
    );
    let mut binds = Vec::new();
    Node::Statement(&statement).walk(&mut |node| {
        if let Node::Expr(Expr::Bind { name, position }) = node {
            binds.push((name.clone(), *position));
        }
    });
    binds.sort_by_key(|(_, position)| *position);
    let expected = [("A", 0), ("B", 1), ("C", 2), ("A", 3), ("D", 4)]
        .map(|(name, position)| (name.to_string(), position));
    assert_eq!(binds, expected);
    assert_eq!(statement.bind_count(), 5);
    assert_eq!(parse_ok("COMMIT").bind_count(), 0);
    assert_eq!(
        parse_ok("INSERT INTO T VALUES (:1, :2), (:3, :4)").bind_count(),
        4
    );
}

#[test]
fn outer_join_marker_wraps_the_column() {
    let expected = binary(
        Expr::OuterJoin(Box::new(qualified_column("A", "X"))),
        BinaryOperator::Equal,
        qualified_column("B", "Y"),
    );
    assert_eq!(condition("A.X(+) = B.Y"), expected);
    assert_eq!(condition("A.X ( + ) = B.Y"), expected);
    assert_eq!(
        condition("A.X = B.Y(+)"),
        binary(
            qualified_column("A", "X"),
            BinaryOperator::Equal,
            Expr::OuterJoin(Box::new(qualified_column("B", "Y")))
        )
    );
}

#[test]
fn postgresql_operators_casts_and_arrays() {
    let regexp = |args: Vec<Expr>| call("REGEXP_LIKE", args);
    let not = |expr: Expr| Expr::Unary {
        op: UnaryOperator::Not,
        expr: Box::new(expr),
    };
    assert_eq!(condition("a ~ '^x'"), regexp(vec![column("A"), text("^x")]));
    assert_eq!(
        condition("a ~* 'x'"),
        regexp(vec![column("A"), text("x"), text("i")])
    );
    assert_eq!(
        condition("a !~ 'x'"),
        not(regexp(vec![column("A"), text("x")]))
    );
    assert_eq!(
        condition("a !~* 'x'"),
        not(regexp(vec![column("A"), text("x"), text("i")]))
    );
    // psql's \d pattern match: OPERATOR(schema.op) is the operator, COLLATE is read and
    // not kept, and binds tighter than the comparison.
    assert_eq!(
        condition("c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default AND b"),
        Expr::Binary {
            left: Box::new(regexp(vec![
                qualified_column("C", "RELNAME"),
                text("^(t)$")
            ])),
            op: BinaryOperator::And,
            right: Box::new(column("B")),
        }
    );
    assert_eq!(condition("a OPERATOR(=) 1"), condition("a = 1"));
    assert_eq!(
        condition("a operator(pg_catalog.+) 1 = 2"),
        condition("a + 1 = 2")
    );
    assert_eq!(condition("a COLLATE \"C\" < b"), condition("a < b"));
    assert_error("SELECT * FROM T WHERE a OPERATOR(pg_catalog.,) 1", 936, ",");
    assert_error("SELECT * FROM T WHERE a OPERATOR(~ 1", 907, "1");
    // Casts: the object identifier types are functions, an array type is its text.
    assert_eq!(
        expression("c.oid::pg_catalog.regclass::pg_catalog.text"),
        Expr::Cast {
            expr: Box::new(call("REGCLASS", vec![qualified_column("C", "OID")])),
            data_type: DataType::Varchar2 { length: 4000 },
        }
    );
    assert_eq!(
        expression("CAST(x AS regtype)"),
        call("REGTYPE", vec![column("X")])
    );
    assert_eq!(
        expression("p::pg_catalog.int2[]"),
        Expr::Cast {
            expr: Box::new(column("P")),
            data_type: DataType::Varchar2 { length: 4000 },
        }
    );
    assert_eq!(
        expression("x::oid"),
        Expr::Cast {
            expr: Box::new(column("X")),
            data_type: DataType::Integer,
        }
    );
    // Subscripts and ARRAY(query).
    assert_eq!(
        expression("prattrs[s + 1]"),
        call(
            ARRAY_ELEMENT,
            vec![
                column("PRATTRS"),
                binary(column("S"), BinaryOperator::Add, number("1"))
            ]
        )
    );
    assert_error("SELECT a[1 FROM DUAL", 907, "FROM");
    let Expr::Function { name, args, .. } = expression("array(select rolname from r order by 1)")
    else {
        panic!("ARRAY(query) is a function");
    };
    assert_eq!(name, "ARRAY");
    assert!(matches!(args.as_slice(), [Expr::ScalarSubquery(_)]));
    // ARRAY of something else is a call of a function ARRAY (unknown to the planner).
    assert_eq!(expression("array(1)"), call("ARRAY", vec![number("1")]));
}
