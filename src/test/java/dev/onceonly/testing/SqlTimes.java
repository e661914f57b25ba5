package dev.onceonly.testing;

import dev.onceonly.sql.Dialect;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * How a test reads and writes the library's timestamp columns in each dialect: epoch millis on
 * SQLite, {@code timestamptz} on PostgreSQL, {@code DATETIME(6)} holding UTC on MariaDB. Reading
 * converts to epoch millis in SQL, so a test compares numbers whatever the session's time zone.
 */
public final class SqlTimes {
  private SqlTimes() {}

  private static final DateTimeFormatter MARIADB =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT);

  /** Returns an SQL expression for {@code column} as epoch milliseconds. */
  public static String millis(Dialect dialect, String column) {
    return switch (dialect) {
      case POSTGRESQL -> "CAST(ROUND(EXTRACT(EPOCH FROM " + column + ") * 1000) AS BIGINT)";
      case MARIADB ->
          "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + column + ") DIV 1000)";
      case SQLITE -> column;
    };
  }

  /** Returns a value to bind for the instant {@code millis}. */
  public static Object at(Dialect dialect, long millis) {
    Instant at = Instant.ofEpochMilli(millis);
    return switch (dialect) {
      case POSTGRESQL -> OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
      case MARIADB -> LocalDateTime.ofInstant(at, ZoneOffset.UTC);
      case SQLITE -> millis;
    };
  }

  /** Returns an SQL literal for the instant {@code millis}. */
  public static String literal(Dialect dialect, long millis) {
    return switch (dialect) {
      case POSTGRESQL -> "to_timestamp(" + millis + " / 1000.0)";
      case MARIADB ->
          "TIMESTAMP'"
              + MARIADB.format(
                  LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC))
              + "'";
      case SQLITE -> Long.toString(millis);
    };
  }
}
