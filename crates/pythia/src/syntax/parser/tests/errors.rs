//! Tests of `errors.rs`: Oracle's codes, wording and positions.

use super::*;

#[test]
fn errors_name_the_oracle_code_and_the_offending_token() {
    assert_error("", 900, "");
    assert_error("SELEC 1 FROM DUAL", 900, "SELEC");
    assert_error("SELECT FROM DUAL", 936, "FROM");
    assert_error("SELECT 1 FROM", 903, "");
    assert_error("SELECT 1 FROM WHERE", 903, "WHERE");
    assert_error("SELECT 1 FROM DUAL WHERE", 936, "");
    assert_error("SELECT * FROM T WHERE (A = 1", 907, "");
    assert_error("SELECT * FROM T WHERE A IN (1 2)", 907, "2");
    assert_error("SELECT F(1 2) FROM DUAL", 907, "2");
    assert_error("INSERT INTO T VALUES (1 2)", 917, "2");
    assert_error("INSERT INTO T (A B) VALUES (1)", 917, "B)");
    assert_error("INSERT INTO T VALUES 1", 906, "1");
    assert_error("INSERT INTO T (A) 1", 926, "1");
    assert_error("INSERT T VALUES (1)", 925, "T VALUES");
    assert_error("UPDATE T A = 1", 971, "=");
    assert_error("UPDATE T SET A 1", 927, "1");
    assert_error("SELECT * FROM T GROUP A", 924, "A");
    assert_error("SELECT * FROM T ORDER A", 924, "A");
    assert_error("SELECT * FROM T WHERE A IS 1", 908, "1");
    assert_error("CREATE TABLE T (A NUMBER B NUMBER)", 907, "B NUMBER");
    assert_error("CREATE TABLE T (A NUMBER) FOO", 922, "FOO");
    assert_error("CREATE TABLE T", 906, "");
    assert_error("CREATE TABL T", 901, "TABL");
    assert_error("DROP TABL T", 950, "TABL");
    assert_error("ALTER TABL T", 940, "TABL");
    assert_error("SELECT * FROM T JOIN U", 905, "");
    assert_error("SELECT * FROM T NATURAL X", 905, "X");
    assert_error("SELECT CASE WHEN 1 = 1 THEN 2 FROM DUAL", 905, "FROM");
    assert_error("SELECT CASE END FROM DUAL", 905, "FROM");
    assert_error("SELECT * FROM T WHERE A BETWEEN 1 2", 905, "2");
    assert_error("SELECT CAST(1 NUMBER) FROM DUAL", 905, "NUMBER");
    assert_error("SELECT * FROM T WHERE EXISTS 1", 906, "1");
    assert_error("SELECT * FROM T WHERE EXISTS (1)", 928, "1");
    assert_error("SELECT 1 FROM DUAL; SELECT 2 FROM DUAL", 933, "SELECT 2");
    assert_error("SELECT 1 UNION 2", 928, "2");
    assert_error("SELECT _X FROM DUAL", 911, "_X");
    assert_error("SELECT ROW_NUMBER() OVER (ORDER BY A) FROM T", 3001, "OVER");
    assert_error("SELECT * FROM T CONNECT BY PRIOR A = B", 3001, "CONNECT");
    assert_error("SELECT 'abc FROM DUAL", 1756, "'abc");
    assert_error("SELECT \"abc FROM DUAL", 1740, "\"abc");
    assert_error(&format!("SELECT {} FROM DUAL", "A".repeat(129)), 972, "AAA");
    assert_error("SELECT * FROM T WHERE A = 1 (+)", 933, "(+)");
}

#[test]
fn invalid_identifier_messages_are_oracles() {
    let error = parse("CREATE TABLE T (SELECT NUMBER)").unwrap_err();
    assert_eq!(error.to_string(), "ORA-00904: : invalid identifier");
    assert_eq!(error.position(), Some(16));
    let error = parse("SELECT A.B.C.D FROM T").unwrap_err();
    assert_eq!(
        error.to_string(),
        "ORA-00904: \"A\".\"B\".\"C\".\"D\": invalid identifier"
    );
    assert_eq!(error.position(), Some(7));
    assert_eq!(
        parse("SELECT 1 FROM DUAL X Y").unwrap_err().to_string(),
        "ORA-00933: SQL command not properly ended"
    );
}
