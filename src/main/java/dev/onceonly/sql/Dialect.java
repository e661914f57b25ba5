package dev.onceonly.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;

/**
 * The SQL dialects OnceOnly speaks. Detected from a connection's metadata, or chosen explicitly.
 *
 * <p>The set is closed on purpose: each dialect is a handful of capabilities (how a write
 * transaction starts, how time is stored, which errors are worth a retry), tested against a real
 * server by the same contract suite.
 */
public enum Dialect {
  /**
   * SQLite 3.24 or later: {@code BEGIN IMMEDIATE} for every write step, epoch milliseconds for
   * timestamps, WAL journal.
   */
  SQLITE("sqlite"),
  /** PostgreSQL 12 or later: row locks, {@code timestamptz}, {@code FOR UPDATE SKIP LOCKED}. */
  POSTGRESQL("postgresql"),
  /**
   * MariaDB 10.6 or later (tested on 10.11), through {@code mariadb-java-client}: InnoDB row locks
   * at {@code READ COMMITTED}, {@code DATETIME(6)} in UTC, {@code FOR UPDATE SKIP LOCKED}, key
   * columns in a binary no-pad collation. Also detected for a server that calls itself MySQL; see
   * {@code docs/mariadb.md} for where MySQL 8 differs.
   */
  MARIADB("mariadb");

  private final String id;

  Dialect(String id) {
    this.id = id;
  }

  /** {@return the short lowercase name, also the folder of this dialect's migration scripts} */
  public String id() {
    return id;
  }

  /**
   * Detects the dialect of an open connection from its metadata.
   *
   * @param connection an open connection; it is not closed
   * @return the dialect
   * @throws SQLException if the metadata cannot be read
   * @throws IllegalArgumentException if the database is not one of these
   */
  public static Dialect detect(Connection connection) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    String product = connection.getMetaData().getDatabaseProductName();
    String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (name.contains("sqlite")) {
      return SQLITE;
    }
    if (name.contains("postgres")) {
      return POSTGRESQL;
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      return MARIADB;
    }
    throw new IllegalArgumentException("unsupported database: " + product);
  }
}
