package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * One empty database a contract suite runs against, and the caller's-eye view of it: new {@link
 * OnceOnly} instances on it, fresh JDBC connections of the caller's own, and row counts read
 * through such a connection (never through the instance under test).
 *
 * <p>Implementations: {@link SqliteContractDatabase} (a file per test) and {@link
 * PostgresContractDatabase} (a schema per test on the JVM's embedded server). Business tables in
 * the suites use portable SQL (text keys, {@code BIGINT}, no auto-increment).
 */
public interface ContractDatabase {

  /** Returns the dialect of this database. */
  Dialect dialect();

  /** Returns an SQL expression for the timestamp {@code column} as epoch milliseconds. */
  default String millis(String column) {
    return SqlTimes.millis(dialect(), column);
  }

  /** Returns a value to bind for a timestamp column holding the instant {@code millis}. */
  default Object at(long millis) {
    return SqlTimes.at(dialect(), millis);
  }

  /** Returns a builder for a new instance on this database, not yet built. */
  OnceOnlyBuilder builder();

  /** Opens a new instance on this database with {@code clock}. */
  default OnceOnly open(InstantSource clock) {
    return builder().clock(clock).build();
  }

  /** Opens a fresh connection of the caller's own, in auto-commit mode. */
  Connection connect() throws SQLException;

  /**
   * Begins a write transaction on a caller's connection: auto-commit off, by default (SQLite:
   * {@code BEGIN IMMEDIATE}).
   */
  default void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
  }

  /** Commits a transaction begun with {@link #begin}. */
  default void commit(Connection c) throws SQLException {
    c.commit();
    c.setAutoCommit(true);
  }

  /** Rolls back a transaction begun with {@link #begin}. */
  default void rollback(Connection c) throws SQLException {
    c.rollback();
    c.setAutoCommit(true);
  }

  /** A caller's unit of work on its own connection. */
  @FunctionalInterface
  interface Transaction<T> {
    /** Runs inside the caller's open transaction. */
    T run(Connection c) throws Exception;
  }

  /** Runs {@code work} in a transaction on a fresh connection of the caller's and commits it. */
  default <T> T inTransaction(Transaction<T> work) {
    try (Connection c = connect()) {
      begin(c);
      try {
        T result = work.run(c);
        commit(c);
        return result;
      } catch (Exception | Error e) {
        try {
          rollback(c);
        } catch (SQLException r) {
          e.addSuppressed(r);
        }
        throw e;
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("caller's transaction failed", e);
    }
  }

  /** Runs statements (DDL, test fixtures) in auto-commit on a fresh connection. */
  default void exec(String... sql) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String each : sql) {
        s.execute(each);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(String.join("; ", sql), e);
    }
  }

  /** Returns the first column of the first row, as a long, read on a fresh connection. */
  default long count(String sql, Object... args) {
    List<String> rows = strings(sql, args);
    return rows.isEmpty() || rows.get(0) == null ? 0 : Long.parseLong(rows.get(0));
  }

  /** Returns the first column of every row, read on a fresh connection. */
  default List<String> strings(String sql, Object... args) {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
          out.add(rs.getString(1));
        }
        return out;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
