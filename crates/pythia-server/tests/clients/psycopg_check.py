"""psycopg 3 against `pythia serve`: what a Python application does with a PostgreSQL
driver, each step checked. Run by crates/pythia-server/tests/clients.rs with the server's
address; exits non-zero (with a traceback) at the first check that fails.

    python psycopg_check.py HOST PORT
"""
import datetime
import decimal
import sys

import psycopg
from psycopg import errors

host, port = sys.argv[1], int(sys.argv[2])
conninfo = f"host={host} port={port} user=system dbname=pythia connect_timeout=10"

with psycopg.connect(conninfo, autocommit=True) as connection:
    # What the server says it is.
    assert connection.info.server_version >= 150000, connection.info.server_version
    assert connection.info.parameter_status("server_encoding") == "UTF8"

    connection.execute(
        "create table items (id int primary key, name varchar2(30), price number(10,2), "
        "weight binary_double, added timestamp, in_stock boolean)"
    )
    added = datetime.datetime(2026, 11, 27, 9, 15, 30)
    rows = [
        (i, f"item {i}", decimal.Decimal(i) / 4, i * 1.5, added, i % 2 == 0)
        for i in range(1, 21)
    ]
    # Parameters in psycopg's default text format, then in binary.
    with connection.cursor() as cursor:
        cursor.executemany(
            "insert into items values (%s, %s, %s, %s, %s, %s)", rows[:10]
        )
    with connection.cursor(binary=True) as cursor:
        cursor.executemany(
            "insert into items values (%s, %s, %s, %s, %s, %s)", rows[10:]
        )

    for binary in (False, True):
        with connection.cursor(binary=binary) as cursor:
            cursor.execute(
                "select id, name, price, weight, added, in_stock from items "
                "where id between %s and %s order by id",
                (3, 5),
            )
            fetched = cursor.fetchall()
            assert [column.name for column in cursor.description] == [
                "id", "name", "price", "weight", "added", "in_stock"
            ], cursor.description
            assert fetched == [rows[2], rows[3], rows[4]], (binary, fetched)

    # Values come back as the Python types their columns say.
    id_, name, price, weight, when, stock = connection.execute(
        "select id, name, price, weight, added, in_stock from items where id = %s", (8,)
    ).fetchone()
    assert (type(id_), type(name), type(price), type(weight), type(when), type(stock)) == (
        int, str, decimal.Decimal, float, datetime.datetime, bool
    )
    assert connection.execute("select name from items where id = %s", (99,)).fetchone() is None
    assert connection.execute(
        "select count(*) from items where name is null"
    ).fetchone()[0] == 0

    # An error: the SQLSTATE's exception class, the ORA- text, and the connection goes on.
    try:
        connection.execute("insert into items (id, name) values (%s, %s)", (1, "again"))
        raise AssertionError("a duplicate key was accepted")
    except errors.UniqueViolation as error:
        assert error.sqlstate == "23505", error.sqlstate
        assert "ORA-00001" in str(error), str(error)
    try:
        connection.execute("select * from missing_table")
        raise AssertionError("a missing table was found")
    except errors.UndefinedTable as error:
        assert "ORA-00942" in str(error), str(error)
    assert connection.execute("select count(*) from items").fetchone()[0] == 20

# COPY both ways, as psycopg streams it.
with psycopg.connect(conninfo, autocommit=True) as connection:
    connection.execute("create table copied (id int, name varchar2(20), price number(8,2))")
    with connection.cursor() as cursor:
        with cursor.copy("copy copied (id, name, price) from stdin") as copy:
            for i in range(1, 1001):
                copy.write_row((i, f"row {i}", decimal.Decimal(i) / 100))
    counted = connection.execute("select count(*), sum(price) from copied").fetchone()
    assert counted == (1000, decimal.Decimal("5005")), counted
    with connection.cursor() as cursor:
        with cursor.copy("copy (select id, name from copied where id <= 3 order by id) to stdout") as copy:
            out = [row for row in copy.rows()]
    assert out == [("1", "row 1"), ("2", "row 2"), ("3", "row 3")], out

# Transactions: psycopg's default is an explicit transaction per connection block.
with psycopg.connect(conninfo) as writer, psycopg.connect(conninfo, autocommit=True) as reader:
    writer.execute("update items set price = price + 1 where id = %s", (1,))
    assert reader.execute("select price from items where id = 1").fetchone()[0] == decimal.Decimal("0.25")
    writer.rollback()
    writer.execute("update items set price = price + 1 where id = %s", (1,))
    writer.commit()
    assert reader.execute("select price from items where id = 1").fetchone()[0] == decimal.Decimal("1.25")
    # A failed statement undoes only itself in Pythia (as in Oracle): the transaction goes on.
    with writer.transaction():
        writer.execute("update items set price = 0 where id = %s", (2,))
        try:
            with writer.transaction():  # a savepoint
                writer.execute("insert into items (id) values (%s)", (2,))
        except errors.UniqueViolation:
            pass
    assert reader.execute("select price from items where id = 2").fetchone()[0] == 0

    # A named (server-side) prepared statement, executed many times.
    with writer.cursor() as cursor:
        for i in range(1, 21):
            cursor.execute("select name from items where id = %s", (i,), prepare=True)
            assert cursor.fetchone()[0] == f"item {i}"
    writer.commit()

# PL/SQL over the wire: a procedure's OUT and IN OUT parameters come back as CALL's row
# (the client passes NULL for an OUT one, as for PostgreSQL), DBMS_OUTPUT's lines as notices,
# and a block takes $n parameters.
with psycopg.connect(conninfo, autocommit=True) as connection:
    notices = []
    connection.add_notice_handler(lambda notice: notices.append(notice.message_primary))
    connection.execute(
        "create or replace procedure split_price(p_id number, p_whole out number, "
        "p_note in out varchar2) is "
        "begin "
        "  select trunc(price) into p_whole from items where id = p_id; "
        "  p_note := p_note || ' #' || p_id; "
        "  dbms_output.put_line('split ' || p_id); "
        "end;"
    )
    for prepare in (False, True):
        with connection.cursor() as cursor:
            cursor.execute("call split_price(%s, null, %s)", (8, "item"), prepare=prepare)
            assert [column.name for column in cursor.description] == ["p_whole", "p_note"], cursor.description
            whole, note = cursor.fetchone()
            assert int(whole) == 2 and note == "item #8", (whole, note)
    assert notices == ["split 8", "split 8"], notices
    notices.clear()
    connection.execute(
        "begin for i in 1 .. %s loop dbms_output.put_line('line ' || i); end loop; end;", (3,)
    )
    assert notices == ["line 1", "line 2", "line 3"], notices
    try:
        connection.execute("call split_price(%s, null, %s)", (999, "none"))
        raise AssertionError("a missing row was found")
    except psycopg.Error as error:
        assert "ORA-01403" in str(error) and "ORA-06512" in str(error), str(error)

print("psycopg_check: all checks passed")
