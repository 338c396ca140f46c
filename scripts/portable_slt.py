#!/usr/bin/env python3
"""Writes tests/slt/portable.slt: seeded random queries in portable SQL (the style of
SQLite's select1-select5 corpus, our own generator: single-table queries with CASE and
correlated subqueries, set operations, joins of two or three tables, chains of four to six,
then ranges through indexes over columns with NULLs), with the expected results computed by
SQLite (Python's sqlite3 module). Every query's answer is the same in any engine that
follows the standard: integer arithmetic only, no integer division, NULLs compared the
standard way. Pythia must agree with SQLite on all of them.

    python3 scripts/portable_slt.py > tests/slt/portable.slt
"""

import hashlib
import random
import sqlite3
import sys

SEED = 20261121
QUERIES = 240
COMPOUND_QUERIES = 60
JOIN_QUERIES = 60
CHAIN_QUERIES = 30
INDEXED_QUERIES = 60
HASH_THRESHOLD = 8

random.seed(SEED)

# Rows of five distinct integers, some NULLs, as the corpus's t1.
rows = []
for row in range(30):
    values = list(range(100 + row * 5, 105 + row * 5))
    random.shuffle(values)
    if row % 7 == 3:
        values[random.randrange(5)] = None
    rows.append(values)

COLUMNS = "abcde"


def column():
    return random.choice(COLUMNS)


def scalar():
    kind = random.randrange(10)
    if kind == 0:
        return f"abs({column()}-{column()})"
    if kind == 1:
        return f"{column()}+{column()}*2"
    if kind == 2:
        return f"{column()}-{column()}"
    if kind == 3:
        return (f"CASE WHEN {column()}<{column()}-3 THEN 111 WHEN {column()}<={column()} "
                f"THEN 222 ELSE 333 END")
    if kind == 4:
        return (f"CASE {column()}+1 WHEN {column()} THEN 111 WHEN {column()} THEN 222 "
                f"ELSE 555 END")
    if kind == 5:
        return f"(SELECT count(*) FROM t1 AS x WHERE x.{column()}<t1.{column()})"
    if kind == 6:
        return f"(SELECT max(x.{column()}) FROM t1 AS x WHERE x.{column()}<=t1.{column()})"
    if kind == 7:
        return f"coalesce({column()},{column()},0)"
    return column()


def condition():
    kind = random.randrange(9)
    if kind == 0:
        return f"{column()}>{column()}"
    if kind == 1:
        return f"{column()} BETWEEN {column()}-2 AND {column()}+2"
    if kind == 2:
        return f"{column()} NOT BETWEEN 110 AND 150"
    if kind == 3:
        return f"EXISTS(SELECT 1 FROM t1 AS x WHERE x.{column()}<t1.{column()})"
    if kind == 4:
        return f"({column()}>{column()} OR {column()}<{column()})"
    if kind == 5:
        return f"{column()} IS NULL"
    if kind == 6:
        return f"{column()} IN (SELECT x.{column()}+1 FROM t1 AS x)"
    if kind == 7:
        return f"{column()} NOT IN ({random.randrange(100, 250)},{random.randrange(100, 250)})"
    return f"{column()}<{random.randrange(100, 250)}"


def query():
    width = random.randrange(1, 5)
    expressions = [scalar() for _ in range(width)]
    sql = "SELECT " + ",\n       ".join(expressions) + "\n  FROM t1"
    conditions = [condition() for _ in range(random.randrange(0, 3))]
    if conditions:
        joiner = random.choice(["\n   AND ", "\n    OR "])
        sql += "\n WHERE " + joiner.join(conditions)
    order = list(range(1, width + 1))
    random.shuffle(order)
    sql += "\n ORDER BY " + ",".join(str(position) for position in order)
    return sql, width


def compound():
    """Two or three single-column SELECTs joined by set operators (the select4 style)."""
    def branch():
        sql = f"SELECT {random.choice([column(), column() + '+1', 'abs(' + column() + '-' + column() + ')'])} FROM t1"
        conditions = [condition() for _ in range(random.randrange(0, 2))]
        if conditions:
            sql += " WHERE " + " AND ".join(conditions)
        return sql
    operators = ["UNION", "UNION ALL", "INTERSECT", "EXCEPT"]
    sql = branch()
    for _ in range(random.randrange(1, 3)):
        sql += f"\n{random.choice(operators)}\n{branch()}"
    return sql + "\n ORDER BY 1", 1


def join():
    """Two or three copies of t1 joined through equalities and ranges (the select5 style)."""
    count = random.randrange(2, 4)
    aliases = [f"x{index}" for index in range(count)]
    expressions = [f"{random.choice(aliases)}.{column()}" for _ in range(random.randrange(1, 4))]
    conditions = [f"{aliases[index]}.{column()}={aliases[index - 1]}.{column()}+{random.randrange(-3, 4)}"
                  for index in range(1, count)]
    if random.randrange(2):
        conditions.append(f"{random.choice(aliases)}.{column()}<{random.randrange(120, 250)}")
    sql = ("SELECT " + ", ".join(expressions) + "\n  FROM "
           + ", ".join(f"t1 AS {alias}" for alias in aliases)
           + "\n WHERE " + "\n   AND ".join(conditions)
           + "\n ORDER BY " + ",".join(str(position) for position in range(1, len(expressions) + 1)))
    return sql, len(expressions)


def chain():
    """Four to six copies of t1 in a shuffled FROM list, joined by a chain of equalities
    written in another shuffled order (the select5 style): only a join order that follows
    the chain avoids multiplying the tables out."""
    count = random.randrange(4, 7)
    aliases = [f"y{index}" for index in range(count)]
    links = [f"{aliases[index]}.{column()}={aliases[index - 1]}.{column()}"
             for index in range(1, count)]
    random.shuffle(links)
    listed = aliases[:]
    random.shuffle(listed)
    expressions = [f"{random.choice(aliases)}.{column()}" for _ in range(random.randrange(1, 3))]
    sql = ("SELECT " + ", ".join(expressions) + "\n  FROM "
           + ", ".join(f"t1 AS {alias}" for alias in listed)
           + "\n WHERE " + "\n   AND ".join(links)
           + "\n ORDER BY " + ",".join(str(position) for position in range(1, len(expressions) + 1)))
    return sql, len(expressions)


# Indexes the last queries go through: one column, and an equality prefix then a range. Their
# columns hold NULLs, which sort last in an index (SQLite: first): a range with one bound
# must leave them out (select4 and evidence/slt_lang_createview.test found that it did not).
INDEXES = ["CREATE INDEX t1b ON t1(b)", "CREATE INDEX t1cd ON t1(c, d)"]


def indexed():
    """Ranges and equality prefixes on indexed columns, one- and two-sided; the select
    list replaces NULLs so that the ORDER BY never meets one."""
    low = random.randrange(95, 255)
    high = low + random.randrange(0, 60)
    row = random.randrange(30)
    c_value = 100 + row * 5 + random.randrange(5)
    condition = random.choice([
        f"b>{low}", f"b>={low}", f"b<{high}", f"b<={high}", f"b>{low} AND b<{high}",
        f"b BETWEEN {low} AND {high}", f"b>={low} AND a IS NULL", f"c>{low}", f"c>={low}",
        f"c={c_value} AND d>{low - 60}", f"c={c_value} AND d<{high}", f"c={c_value}",
        f"c>{low} AND d>{low}",
    ])
    expressions = [f"coalesce({column()},-1)" for _ in range(random.randrange(1, 4))]
    sql = ("SELECT " + ", ".join(expressions) + "\n  FROM t1\n WHERE " + condition
           + "\n ORDER BY " + ",".join(str(position) for position in range(1, len(expressions) + 1)))
    return sql, len(expressions)


def render(value):
    return "NULL" if value is None else str(value)


def main(out):
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t1(a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER)")
    out.write("# Generated by scripts/portable_slt.py (seed %d): portable queries, expected\n"
              "# results computed by SQLite. Do not edit; run the script again.\n\n" % SEED)
    out.write("hash-threshold %d\n\n" % HASH_THRESHOLD)
    out.write("statement ok\nCREATE TABLE t1(a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER)\n\n")
    for values in rows:
        columns = list(COLUMNS)
        random.shuffle(columns)
        by_name = dict(zip(COLUMNS, values))
        literals = ",".join(render(by_name[name]) for name in columns)
        statement = f"INSERT INTO t1({','.join(columns)}) VALUES({literals})"
        connection.execute(statement)
        out.write(f"statement ok\n{statement}\n\n")
    written = 0
    indexes_made = False
    total = QUERIES + COMPOUND_QUERIES + JOIN_QUERIES + CHAIN_QUERIES + INDEXED_QUERIES
    while written < total:
        if written < QUERIES:
            sql, width = query()
        elif written < QUERIES + COMPOUND_QUERIES:
            sql, width = compound()
        elif written < QUERIES + COMPOUND_QUERIES + JOIN_QUERIES:
            sql, width = join()
        elif written < QUERIES + COMPOUND_QUERIES + JOIN_QUERIES + CHAIN_QUERIES:
            sql, width = chain()
        else:
            if not indexes_made:
                for statement in INDEXES:
                    connection.execute(statement)
                    out.write(f"statement ok\n{statement}\n\n")
                indexes_made = True
            sql, width = indexed()
        # NULLs sort first in SQLite and last in Oracle: order them the same way by
        # leaving out queries whose ORDER BY meets a NULL.
        result = connection.execute(sql).fetchall()
        if any(value is None for row in result for value in row):
            continue
        values = [render(value) for row in result for value in row]
        out.write(f"query {'I' * width} nosort\n{sql}\n----\n")
        if len(values) > HASH_THRESHOLD:
            digest = hashlib.md5("".join(value + "\n" for value in values).encode()).hexdigest()
            out.write(f"{len(values)} values hashing to {digest}\n\n")
        else:
            out.write("".join(value + "\n" for value in values) + "\n")
        written += 1


if __name__ == "__main__":
    main(sys.stdout)
