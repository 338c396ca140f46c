//! Tests of the nesting limits: deep input is ORA-00939, never a stack overflow, and every
//! accepted tree stays under NODE_HEIGHT_MAX.

use super::*;

/// Runs `check` on a thread with a 2 MiB stack, Rust's default for spawned threads.
fn on_small_stack(check: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(check)
        .expect("spawn")
        .join()
        .expect("no stack overflow");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    on_small_stack(|| {
        let depth = 100_000;
        let cases = [
            format!(
                "SELECT {}1{} FROM DUAL",
                "(".repeat(depth),
                ")".repeat(depth)
            ),
            format!("SELECT {}1 FROM DUAL", "- ".repeat(depth)),
            format!("SELECT * FROM DUAL WHERE {} 1 = 1", "NOT ".repeat(depth)),
            format!(
                "SELECT * FROM {}DUAL{}",
                "(SELECT * FROM ".repeat(depth),
                ")".repeat(depth)
            ),
            format!(
                "SELECT {}1{} FROM DUAL",
                "(SELECT ".repeat(depth),
                " FROM DUAL)".repeat(depth)
            ),
            format!(
                "SELECT {}1{} FROM DUAL",
                "F(".repeat(depth),
                ")".repeat(depth)
            ),
            format!(
                "SELECT {}1{} FROM DUAL",
                "CASE WHEN 1 = 1 THEN ".repeat(depth),
                " END".repeat(depth)
            ),
            format!("SELECT 1{} FROM DUAL", " + 1".repeat(depth)),
            format!("SELECT 1{} FROM DUAL", "::INT".repeat(depth)),
            format!(
                "SELECT 1 FROM DUAL{}",
                " UNION SELECT 1 FROM DUAL".repeat(depth)
            ),
            format!("SELECT 1 FROM T{}", " JOIN T ON 1 = 1".repeat(depth)),
            format!("SELECT 1 FROM {}T{}", "(".repeat(depth), ")".repeat(depth)),
            format!(
                "SELECT * FROM T WHERE A IN {}1{}",
                "(".repeat(depth),
                ")".repeat(depth)
            ),
            format!(
                "EXPLAIN PLAN FOR SELECT {}1{} FROM DUAL",
                "(".repeat(depth),
                ")".repeat(depth)
            ),
        ];
        for sql in &cases {
            let error = parse(sql).expect_err(&sql[..60]);
            assert_eq!(error.code(), 939, "{}: {error:?}", &sql[..60]);
            assert_eq!(
                error.message(),
                "statement nesting exceeds the limit of 200 levels"
            );
        }
    });
}

#[test]
fn nesting_just_inside_the_limit_parses() {
    on_small_stack(|| {
        let depth = PARSE_DEPTH_MAX / 2;
        let sql = format!(
            "SELECT {}1{} FROM DUAL",
            "(".repeat(depth),
            ")".repeat(depth)
        );
        assert_eq!(select(&sql).projection, vec![item(number("1"))]);
        let sql = format!(
            "SELECT 1 FROM DUAL{}",
            " UNION SELECT 1 FROM DUAL".repeat(300)
        );
        assert!(parse(&sql).is_ok());
        let sql = format!(
            "SELECT * FROM T WHERE A IN ({})",
            vec!["1"; 100_000].join(", ")
        );
        assert!(parse(&sql).is_ok());
    });
}

/// Mixes of nesting and left-operand chains, which together could build a tree taller than
/// either limit alone: every accepted tree stays under NODE_HEIGHT_MAX.
#[test]
fn every_accepted_tree_stays_under_the_height_limit() {
    on_small_stack(|| {
        // Each level of a shape is `open inner middle chain... close`, where the chain is an
        // operator repeated to grow a left-operand chain at that level.
        let shapes = [
            ("(", "", " + 1", ")"),
            ("(SELECT ", "", " FROM DUAL UNION SELECT 1", " FROM DUAL)"),
            ("(SELECT 1 FROM T WHERE A = ", "", " || 2", " ORDER BY 1)"),
            ("-(", "", "::INT", ")"),
            ("(SELECT 1 FROM T WHERE A = ", "", " AND B = 1", ")"),
            ("(SELECT ", " FROM T", " JOIN T ON 1 = 1", ")"),
        ];
        let mut tallest = 0;
        for nesting in [1, 10, 50, 100, 150, 199, 250] {
            for chain in [1, 3, 10, 100, 400] {
                for (open, middle, operator, close) in shapes {
                    let level_end = format!("{middle}{}{close}", operator.repeat(chain));
                    let sql = format!(
                        "SELECT {}1{} FROM DUAL",
                        open.repeat(nesting),
                        level_end.repeat(nesting)
                    );
                    match parse(&sql) {
                        Ok(statement) => {
                            let height = Node::Statement(&statement).height();
                            assert!(height <= NODE_HEIGHT_MAX, "{height} > {NODE_HEIGHT_MAX}");
                            tallest = tallest.max(height);
                        }
                        Err(error) => assert_eq!(
                            error.code(),
                            939,
                            "{error:?}: {}",
                            &sql[..sql.len().min(200)]
                        ),
                    }
                }
            }
        }
        eprintln!("tallest accepted tree: {tallest} of {NODE_HEIGHT_MAX}");
        assert!(
            tallest > NODE_HEIGHT_MAX / 2,
            "the shapes come near the limit: {tallest}"
        );
    });
}
