// pgjdbc against `pythia serve`: what a Java application does with PostgreSQL's JDBC driver,
// each step checked. Run by crates/pythia-server/tests/clients.rs as a single-file source
// program (`java -cp postgresql.jar JdbcCheck.java HOST PORT`); exits non-zero with the
// failed check at the first one that fails.

import java.math.BigDecimal;
import java.sql.*;

public class JdbcCheck {
    static void check(boolean condition, String what) {
        if (!condition) throw new AssertionError(what);
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/pythia?user=system&connectTimeout=10";
        try (Connection connection = DriverManager.getConnection(url)) {
            DatabaseMetaData meta = connection.getMetaData();
            check(meta.getDatabaseMajorVersion() >= 15, "server version " + meta.getDatabaseProductVersion());
            try (Statement statement = connection.createStatement()) {
                statement.execute("create table accounts (id int primary key, name varchar2(30), balance number(12,2), opened timestamp, active boolean)");
            }
            try (PreparedStatement insert = connection.prepareStatement("insert into accounts values (?, ?, ?, ?, ?)")) {
                for (int i = 1; i <= 20; i++) {
                    insert.setInt(1, i);
                    insert.setString(2, "account " + i);
                    insert.setBigDecimal(3, new BigDecimal(i).movePointLeft(2));
                    insert.setTimestamp(4, Timestamp.valueOf("2026-11-27 10:00:0" + (i % 10)));
                    insert.setBoolean(5, i % 2 == 0);
                    insert.addBatch();
                }
                int[] counts = insert.executeBatch();
                check(counts.length == 20, "batch counts " + counts.length);
            }
            // Past pgjdbc's prepareThreshold the statement becomes a named server-side one.
            try (PreparedStatement select = connection.prepareStatement("select name, balance, opened, active from accounts where id = ?")) {
                for (int i = 1; i <= 20; i++) {
                    select.setInt(1, i);
                    try (ResultSet rows = select.executeQuery()) {
                        check(rows.next(), "row " + i);
                        check(rows.getString(1).equals("account " + i), "name " + rows.getString(1));
                        check(rows.getBigDecimal(2).compareTo(new BigDecimal(i).movePointLeft(2)) == 0, "balance " + rows.getBigDecimal(2));
                        check(rows.getTimestamp(3).equals(Timestamp.valueOf("2026-11-27 10:00:0" + (i % 10))), "opened " + rows.getTimestamp(3));
                        check(rows.getBoolean(4) == (i % 2 == 0), "active");
                        check(!rows.next(), "one row");
                    }
                }
            }
            // A transaction, rolled back then committed.
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("update accounts set balance = 0");
                connection.rollback();
                statement.executeUpdate("update accounts set balance = balance + 1 where id = 1");
                connection.commit();
                try (ResultSet rows = statement.executeQuery("select sum(balance) from accounts")) {
                    rows.next();
                    check(rows.getBigDecimal(1).compareTo(new BigDecimal("3.10")) == 0, "sum " + rows.getBigDecimal(1));
                }
            }
            connection.setAutoCommit(true);
            // An error: SQLSTATE and the ORA- text; the connection goes on.
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("insert into accounts (id) values (1)");
                check(false, "a duplicate key was accepted");
            } catch (SQLException error) {
                check("23505".equals(error.getSQLState()), "SQLSTATE " + error.getSQLState());
                check(error.getMessage().contains("ORA-00001"), error.getMessage());
            }
            try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery("select count(*) from accounts")) {
                rows.next();
                check(rows.getInt(1) == 20, "count " + rows.getInt(1));
            }
        }
        System.out.println("JdbcCheck: all checks passed");
    }
}
