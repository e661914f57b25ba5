package dev.onceonly.testing;

import dev.onceonly.sql.Dialect;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * How a test reads and writes the library's timestamp columns in either dialect: epoch millis on
 * SQLite, {@code timestamptz} on PostgreSQL. Reading converts to epoch millis in SQL, so a test
 * compares numbers whatever the session's time zone.
 */
public final class SqlTimes {
  private SqlTimes() {}

  /** Returns an SQL expression for {@code column} as epoch milliseconds. */
  public static String millis(Dialect dialect, String column) {
    return dialect == Dialect.POSTGRESQL
        ? "CAST(ROUND(EXTRACT(EPOCH FROM " + column + ") * 1000) AS BIGINT)"
        : column;
  }

  /** Returns a value to bind for the instant {@code millis}. */
  public static Object at(Dialect dialect, long millis) {
    return dialect == Dialect.POSTGRESQL
        ? OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC)
        : (Object) millis;
  }

  /** Returns an SQL literal for the instant {@code millis}. */
  public static String literal(Dialect dialect, long millis) {
    return dialect == Dialect.POSTGRESQL
        ? "to_timestamp(" + millis + " / 1000.0)"
        : Long.toString(millis);
  }
}
