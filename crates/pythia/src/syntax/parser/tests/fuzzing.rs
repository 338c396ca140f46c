//! Fuzzing: a corpus, random bytes, random tokens and mutated statements never panic.

use super::*;

/// xorshift64*: a small deterministic generator, so that failures reproduce (the PL/SQL
/// parser's fuzzing uses it too).
pub(crate) struct Random(pub(crate) u64);

impl Random {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const VOCABULARY: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "UNION",
    "ALL",
    "MINUS",
    "INTERSECT",
    "JOIN",
    "LEFT",
    "OUTER",
    "ON",
    "USING",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "LIKE",
    "ESCAPE",
    "BETWEEN",
    "EXISTS",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "CAST",
    "AS",
    "DISTINCT",
    "INSERT",
    "INTO",
    "VALUES",
    "UPDATE",
    "SET",
    "DELETE",
    "CREATE",
    "TABLE",
    "INDEX",
    "UNIQUE",
    "PRIMARY",
    "KEY",
    "CONSTRAINT",
    "CHECK",
    "REFERENCES",
    "DROP",
    "ALTER",
    "ADD",
    "MODIFY",
    "SEQUENCE",
    "START",
    "WITH",
    "VIEW",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "BEGIN",
    "SYSTEM",
    "SESSION",
    "EXPLAIN",
    "PLAN",
    "FOR",
    "FETCH",
    "FIRST",
    "ROWS",
    "ONLY",
    "OFFSET",
    "LIMIT",
    "NUMBER",
    "VARCHAR2",
    "DATE",
    "TIMESTAMP",
    "STORAGE",
    "BUFFER_POOL",
    "KEEP",
    "DUAL",
    "T",
    "A",
    "B",
    "\"Q\"",
    "ROWNUM",
    "SYSDATE",
    "COUNT",
    "1",
    "2.5",
    "'s'",
    "N'n'",
    ":1",
    ":b",
    "$1",
    "(",
    ")",
    ",",
    ".",
    "*",
    "+",
    "-",
    "/",
    "||",
    "=",
    "<>",
    "<",
    ">=",
    "::",
    "(+)",
    ";",
    "/*+ FULL(T) */",
    "ANY",
    "ALL",
    "TRUNCATE",
    "CALL",
    "SHOW",
    "VACUUM",
    "NEXTVAL",
    "64M",
    "ANALYZE",
    "CASCADE",
];

const CORPUS: &[&str] = &[
    "SELECT /*+ FULL(E) */ E.*, COUNT(*) C FROM SCOTT.EMP E JOIN DEPT D ON E.DEPTNO = D.DEPTNO WHERE E.SAL > :1 GROUP BY E.ENAME HAVING COUNT(*) > 1 ORDER BY 2 DESC",
    "SELECT A FROM T WHERE B IN (SELECT C FROM U WHERE D = T.D) AND NOT EXISTS (SELECT 1 FROM V) OR X BETWEEN 1 AND 2",
    "WITH X AS (SELECT 1 A FROM DUAL) SELECT CASE WHEN A = 1 THEN 'a' ELSE 'b' END FROM X UNION ALL SELECT 'c' FROM DUAL",
    "INSERT INTO T (A, B) VALUES (1, 'x'), (:a, SYSDATE)",
    "UPDATE T X SET X.A = A + 1, B = NULL WHERE C LIKE 'a%' ESCAPE '!'",
    "DELETE FROM T WHERE ROWNUM <= 10 AND A.B(+) = C.D",
    "CREATE TABLE T (A NUMBER(5, 2) DEFAULT 0 NOT NULL PRIMARY KEY, B VARCHAR2(10) CHECK (B <> 'x'), CONSTRAINT U1 UNIQUE (B)) STORAGE (BUFFER_POOL KEEP) CACHE",
    "CREATE UNIQUE INDEX I ON T (A DESC, B) PCTFREE 10",
    "ALTER TABLE T ADD (C DATE, D TIMESTAMP(6))",
    "CREATE SEQUENCE S START WITH 1 INCREMENT BY 1 NOCACHE",
    "ALTER SYSTEM SET DB_CACHE_SIZE = 64M SCOPE = BOTH",
    "ALTER SESSION SET EVENTS '10046 trace name context forever, level 12'",
    "EXPLAIN PLAN SET STATEMENT_ID = 'x' FOR SELECT * FROM T FETCH FIRST 5 ROWS ONLY",
    "SELECT A::TEXT, CAST(B AS INT) FROM T LIMIT 10 OFFSET 5 FOR UPDATE NOWAIT",
    "COMMIT WRITE BATCH NOWAIT",
];

/// Parses `sql`, which must not panic, and checks what a successful parse promises.
fn parse_without_panic(sql: &str) {
    if let Ok(statement) = parse(sql) {
        let mut positions = Vec::new();
        Node::Statement(&statement).walk(&mut |node| {
            if let Node::Expr(Expr::Bind { position, .. }) = node {
                positions.push(*position);
            }
        });
        positions.sort_unstable();
        assert!(
            positions.iter().copied().eq(0..positions.len()),
            "{sql}: bind positions {positions:?}"
        );
    }
    let _ = parse_many(sql);
}

#[test]
fn corpus_parses() {
    for sql in CORPUS {
        parse_ok(sql);
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    let alphabet: Vec<u8> = b"SELECT FROM WHERE abcxyz_$#0123456789'\"`:;.,()+-*/|=<>!^%?@ \n\t"
        .iter()
        .copied()
        .chain([0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF])
        .collect();
    for _ in 0..10_000 {
        let length = random.below(48);
        let bytes: Vec<u8> = (0..length)
            .map(|_| alphabet[random.below(alphabet.len())])
            .collect();
        let sql = String::from_utf8_lossy(&bytes);
        let _ = tokenize(&sql);
        parse_without_panic(&sql);
    }
}

#[test]
fn random_token_sequences_never_panic() {
    let mut random = Random(0xD1B5_4A32_D192_ED03);
    for _ in 0..10_000 {
        let length = 1 + random.below(30);
        let tokens: Vec<&str> = (0..length).map(|_| random.pick(VOCABULARY)).collect();
        parse_without_panic(&tokens.join(" "));
    }
}

#[test]
fn mutated_statements_never_panic() {
    let mut random = Random(0x2545_F491_4F6C_DD1D);
    for _ in 0..10_000 {
        let sql = random.pick(CORPUS);
        let mut tokens: Vec<String> = tokenize(sql)
            .unwrap()
            .iter()
            .map(|token| token.text(sql).to_string())
            .collect();
        mutate(&mut random, &mut tokens, VOCABULARY);
        parse_without_panic(&tokens.join(" "));
    }
}

/// One to three random edits of a token list: a token removed, inserted, swapped or replaced
/// (the PL/SQL parser's fuzzing uses it too).
pub(crate) fn mutate(random: &mut Random, tokens: &mut Vec<String>, vocabulary: &[&str]) {
    for _ in 0..1 + random.below(3) {
        if tokens.is_empty() {
            return;
        }
        let at = random.below(tokens.len());
        match random.below(4) {
            0 => {
                tokens.remove(at);
            }
            1 => tokens.insert(at, random.pick(vocabulary).to_string()),
            2 => {
                let other = random.below(tokens.len());
                tokens.swap(at, other);
            }
            _ => tokens[at] = random.pick(vocabulary).to_string(),
        }
    }
}
