//! The PL/SQL parser's tests: the shapes it builds, its errors, and fuzzing (random tokens
//! and mutated units never panic, and every error is a clean ORA-06550).

use super::*;
use crate::syntax::lexer::tokenize;
use crate::syntax::parser::tests::fuzzing::{mutate, Random};

fn parsed(text: &str) -> Block {
    parse_block(text).unwrap_or_else(|error| panic!("{text}: {error:?}"))
}

fn error(text: &str) -> Error {
    parse_block(text).expect_err(text)
}

#[test]
fn a_block_has_declarations_body_and_handlers() {
    let block = parsed(
        "<<outer>> DECLARE n NUMBER := 1; c CONSTANT VARCHAR2(10) DEFAULT 'x'; e EXCEPTION;
         PRAGMA EXCEPTION_INIT(e, -20001); TYPE r IS RECORD (a NUMBER, b t.c%TYPE);
         SUBTYPE s IS PLS_INTEGER NOT NULL; CURSOR k(p NUMBER) IS SELECT a FROM t WHERE b = p;
         BEGIN NULL; EXCEPTION WHEN e OR no_data_found THEN NULL; WHEN OTHERS THEN RAISE; END outer;",
    );
    assert_eq!(block.label.as_deref(), Some("OUTER"));
    assert_eq!(block.declarations.len(), 7);
    assert!(matches!(
        &block.declarations[1],
        Declaration::Variable {
            constant: true,
            default: Some(_),
            ..
        }
    ));
    assert!(matches!(
        &block.declarations[3],
        Declaration::ExceptionInit { code: -20001, .. }
    ));
    assert_eq!(block.handlers.len(), 2);
    assert_eq!(block.handlers[0].exceptions.len(), 2);
}

#[test]
fn statements_of_every_kind_parse() {
    let block = parsed(
        "BEGIN
           x := 1; :b := x + 1; r.f := 'a';
           IF x > 1 THEN NULL; ELSIF x IS NULL THEN NULL; ELSE NULL; END IF;
           CASE x WHEN 1 THEN NULL; ELSE NULL; END CASE;
           <<l>> LOOP EXIT l WHEN x > 3; CONTINUE WHEN x = 2; END LOOP l;
           WHILE x < 10 LOOP x := x + 1; END LOOP;
           FOR i IN REVERSE 1..x LOOP NULL; END LOOP;
           FOR r IN (SELECT a FROM t) LOOP NULL; END LOOP;
           FOR r IN k(1) LOOP NULL; END LOOP;
           SELECT a, b INTO x, y FROM t WHERE c = x;
           UPDATE t SET a = x WHERE b = y; COMMIT; ROLLBACK; SAVEPOINT s;
           OPEN k(2); FETCH k INTO x; CLOSE k;
           dbms_output.put_line('x' || x); p; q(1, b => 2);
           GOTO l2; <<l2>> NULL; RETURN;
           BEGIN NULL; END;
         END;",
    );
    let kinds: Vec<&StatementKind> = block.body.iter().map(|s| &s.kind).collect();
    assert_eq!(kinds.len(), 25);
    assert!(
        matches!(kinds[2], StatementKind::Assign { target: Target::Name(name, _), .. } if name.len() == 2)
    );
    assert!(matches!(
        kinds[7],
        StatementKind::ForRange { reverse: true, .. }
    ));
    assert!(matches!(
        kinds[8],
        StatementKind::ForCursor {
            source: CursorSource::Query(_),
            ..
        }
    ));
    assert!(matches!(
        kinds[9],
        StatementKind::ForCursor {
            source: CursorSource::Named { .. },
            ..
        }
    ));
    let StatementKind::Sql(select) = kinds[10] else {
        panic!("{:?}", kinds[10]);
    };
    assert_eq!(select.into.len(), 2);
    assert!(
        !select.text.contains("INTO"),
        "INTO is blanked: {}",
        select.text
    );
    assert_eq!(
        select.text.len(),
        "SELECT a, b INTO x, y FROM t WHERE c = x".len()
    );
    let StatementKind::Call { arguments, .. } = kinds[20] else {
        panic!("{:?}", kinds[20]);
    };
    assert_eq!(arguments[1].name.as_deref(), Some("B"));
}

#[test]
fn syntax_errors_are_pls_00103_with_line_and_column() {
    let failure = error("BEGIN\n  x := ;\nEND;");
    assert_eq!(failure.code(), 6550);
    assert!(
        failure
            .message()
            .starts_with("line 2, column 8:\nPLS-00103: Encountered the symbol \";\""),
        "{failure:?}"
    );
    let failure = error("BEGIN NULL; END");
    assert_eq!(failure.code(), 6550, "{failure:?}");
    let failure = error("BEGIN NULL END;");
    assert!(failure.message().contains("\"END\""), "{failure:?}");
    let failure = error("BEGIN END;");
    assert!(
        failure.message().contains("PLS-00103"),
        "an empty body: {failure:?}"
    );
    let failure = error("BEGIN SELECT a INTO x FROM; END;");
    assert!(
        failure.message().contains("PL/SQL: ORA-")
            && failure.message().contains("SQL Statement ignored"),
        "{failure:?}"
    );
    let failure = error("BEGIN\n  SELECT a FROM t;\nEND;");
    assert!(failure.message().contains("PLS-00428"), "{failure:?}");
    let failure = error("<<a>> BEGIN NULL; END b;");
    assert!(failure.message().contains("PLS-00113"), "{failure:?}");
}

#[test]
fn nesting_is_bounded() {
    let deep = format!(
        "{}NULL;{}",
        "BEGIN ".repeat(NESTING_MAX + 1),
        " END;".repeat(NESTING_MAX + 1)
    );
    let failure = error(&deep);
    assert!(failure.message().contains("PLS-00123"), "{failure:?}");
    let loops = format!(
        "BEGIN {}NULL;{} END;",
        "LOOP ".repeat(NESTING_MAX + 1),
        " END LOOP;".repeat(NESTING_MAX + 1)
    );
    assert!(error(&loops).message().contains("PLS-00123"));
    // A block's statements are one level below it.
    let fine = format!(
        "{}NULL;{}",
        "BEGIN ".repeat(NESTING_MAX - 1),
        " END;".repeat(NESTING_MAX - 1)
    );
    parsed(&fine);
}

const VOCABULARY: &[&str] = &[
    "DECLARE",
    "BEGIN",
    "END",
    "EXCEPTION",
    "WHEN",
    "OTHERS",
    "THEN",
    "IF",
    "ELSIF",
    "ELSE",
    "CASE",
    "LOOP",
    "WHILE",
    "FOR",
    "IN",
    "REVERSE",
    "EXIT",
    "CONTINUE",
    "NULL",
    "RETURN",
    "GOTO",
    "RAISE",
    "OPEN",
    "FETCH",
    "CLOSE",
    "INTO",
    "CURSOR",
    "IS",
    "TYPE",
    "RECORD",
    "SUBTYPE",
    "PRAGMA",
    "EXCEPTION_INIT",
    "CONSTANT",
    "NOT",
    "DEFAULT",
    "NUMBER",
    "VARCHAR2(10)",
    "PLS_INTEGER",
    "BOOLEAN",
    "%TYPE",
    "%ROWTYPE",
    "%FOUND",
    "SELECT",
    "FROM",
    "WHERE",
    "UPDATE",
    "SET",
    "INSERT",
    "VALUES",
    "DELETE",
    "COMMIT",
    "X",
    "Y",
    "T",
    "K",
    ":B",
    ":=",
    "=>",
    "..",
    "1",
    "'s'",
    "(",
    ")",
    ",",
    ";",
    ".",
    "+",
    "||",
    "=",
    "<",
    ">",
    "<<",
    ">>",
    "SQL",
    "AND",
    "OR",
    "TABLE",
    "OF",
    "INDEX",
    "BY",
    "ROWID",
    "PRIOR",
];

const CORPUS: &[&str] = &[
    "DECLARE n NUMBER := 0; BEGIN FOR i IN 1..10 LOOP n := n + i; END LOOP; END;",
    "DECLARE CURSOR c IS SELECT a FROM t; r c%ROWTYPE; BEGIN OPEN c; LOOP FETCH c INTO r; EXIT WHEN c%NOTFOUND; END LOOP; CLOSE c; END;",
    "BEGIN SELECT a INTO :x FROM t WHERE b = 1; EXCEPTION WHEN NO_DATA_FOUND THEN NULL; END;",
    "<<o>> DECLARE e EXCEPTION; BEGIN IF 1 = 1 THEN RAISE e; ELSIF 2 > 1 THEN NULL; ELSE GOTO x; END IF; <<x>> NULL; EXCEPTION WHEN e THEN RAISE; END o;",
    "BEGIN CASE WHEN 1 = 1 THEN dbms_output.put_line('a'); END CASE; UPDATE t SET a = 1; COMMIT; END;",
    "DECLARE CURSOR c IS SELECT a FROM t FOR UPDATE NOWAIT; BEGIN FOR r IN c LOOP UPDATE t SET a = 2 WHERE CURRENT OF c; DELETE FROM t WHERE CURRENT OF c; END LOOP; END;",
    "DECLARE TYPE a IS TABLE OF ROWID INDEX BY BINARY_INTEGER; x a; k PLS_INTEGER; BEGIN x(1) := 'r'; k := x.PRIOR(x.LAST); x.DELETE(1, 2); UPDATE t SET b = 1 WHERE ROWID = x(k); END;",
];

/// Parses `text`, which must not panic; a failure must be a compilation error.
fn parse_without_panic(text: &str) {
    if let Err(failure) = parse_block(text) {
        assert_eq!(failure.code(), 6550, "{text}: {failure:?}");
    }
}

#[test]
fn corpus_parses() {
    for text in CORPUS {
        parsed(text);
    }
}

#[test]
fn random_token_sequences_never_panic() {
    let mut random = Random(0xA076_1D64_78BD_642F);
    for _ in 0..5_000 {
        let length = 1 + random.below(40);
        let mut tokens: Vec<&str> = vec!["BEGIN"];
        tokens.extend((0..length).map(|_| random.pick(VOCABULARY)));
        parse_without_panic(&tokens.join(" "));
    }
}

#[test]
fn mutated_units_never_panic() {
    let mut random = Random(0xE703_7ED1_A0B4_28DB);
    for _ in 0..5_000 {
        let text = random.pick(CORPUS);
        let mut tokens: Vec<String> = tokenize(text)
            .unwrap()
            .iter()
            .map(|token| token.text(text).to_string())
            .collect();
        mutate(&mut random, &mut tokens, VOCABULARY);
        parse_without_panic(&tokens.join(" "));
    }
}

#[test]
fn truncated_units_never_panic() {
    for text in CORPUS {
        for (end, _) in text.char_indices() {
            parse_without_panic(&text[..end]);
        }
    }
}

const PROGRAMS: &[&str] = &[
    "PROCEDURE p(a IN NUMBER, b OUT VARCHAR2, c IN OUT NOCOPY NUMBER, d NUMBER DEFAULT 1) IS n NUMBER; BEGIN b := a; END p;",
    "FUNCTION f(x PLS_INTEGER := 2) RETURN NUMBER DETERMINISTIC AUTHID CURRENT_USER AS BEGIN RETURN x * 2; END;",
    "PACKAGE k AUTHID DEFINER IS g NUMBER := 0; PROCEDURE p(a NUMBER); FUNCTION f RETURN VARCHAR2; END k;",
    "PACKAGE BODY k IS PROCEDURE p(a NUMBER) IS BEGIN g := a; END; FUNCTION f RETURN VARCHAR2 IS BEGIN RETURN 'x'; END; BEGIN g := 1; END k;",
];

/// Parses a stored unit's source, which must not panic; a failure must be a compilation
/// error.
fn parse_program_without_panic(text: &str) {
    if let Err(failure) = parse_program(text) {
        assert_eq!(failure.code(), 6550, "{text}: {failure:?}");
    }
}

#[test]
fn stored_units_parse_with_their_parameters_and_options() {
    let Program::Subprogram { subprogram, .. } = parse_program(PROGRAMS[0]).unwrap() else {
        panic!("a procedure");
    };
    let modes: Vec<Mode> = subprogram.parameters.iter().map(|p| p.mode).collect();
    assert_eq!(modes, [Mode::In, Mode::Out, Mode::InOut, Mode::In]);
    assert!(subprogram.parameters[3].default.is_some());
    assert!(subprogram.returns.is_none() && subprogram.body.is_some());
    let Program::Subprogram { subprogram, .. } = parse_program(PROGRAMS[1]).unwrap() else {
        panic!("a function");
    };
    assert!(subprogram.deterministic && subprogram.current_user);
    assert!(subprogram.returns.is_some());
    let Program::Package { declarations, .. } = parse_program(PROGRAMS[2]).unwrap() else {
        panic!("a package");
    };
    assert_eq!(declarations.len(), 3);
    assert!(matches!(&declarations[1], Declaration::Subprogram(p) if p.body.is_none()));
    let Program::PackageBody {
        initialisation,
        declarations,
        ..
    } = parse_program(PROGRAMS[3]).unwrap()
    else {
        panic!("a package body");
    };
    assert!(initialisation.is_some());
    assert!(declarations
        .iter()
        .all(|d| matches!(d, Declaration::Subprogram(p) if p.body.is_some())));
}

#[test]
fn stored_unit_errors_are_pls_errors() {
    // A default on an OUT parameter, a function without RETURN, a mismatched END label,
    // a procedure without a body.
    assert!(
        parse_program("PROCEDURE p(a OUT NUMBER := 1) IS BEGIN NULL; END;")
            .unwrap_err()
            .to_string()
            .contains("PLS-00230")
    );
    assert!(parse_program("FUNCTION f IS BEGIN NULL; END;")
        .unwrap_err()
        .to_string()
        .contains("PLS-00103"));
    assert!(parse_program("PROCEDURE p IS BEGIN NULL; END q;")
        .unwrap_err()
        .to_string()
        .contains("PLS-00113"));
    assert!(parse_program("PROCEDURE p;")
        .unwrap_err()
        .to_string()
        .contains("PLS-00103"));
}

#[test]
fn mutated_and_truncated_stored_units_never_panic() {
    let mut random = Random(0x94D0_49BB_1331_11EB);
    let mut vocabulary: Vec<&str> = VOCABULARY.to_vec();
    vocabulary.extend([
        "PROCEDURE",
        "FUNCTION",
        "PACKAGE",
        "BODY",
        "RETURN",
        "IS",
        "AS",
        "IN",
        "OUT",
        "NOCOPY",
        "DEFAULT",
        "AUTHID",
        "DETERMINISTIC",
        "=>",
    ]);
    for _ in 0..5_000 {
        let text = random.pick(PROGRAMS);
        let mut tokens: Vec<String> = tokenize(text)
            .unwrap()
            .iter()
            .map(|token| token.text(text).to_string())
            .collect();
        mutate(&mut random, &mut tokens, &vocabulary);
        parse_program_without_panic(&tokens.join(" "));
    }
    for text in PROGRAMS {
        for (end, _) in text.char_indices() {
            parse_program_without_panic(&text[..end]);
        }
    }
}
