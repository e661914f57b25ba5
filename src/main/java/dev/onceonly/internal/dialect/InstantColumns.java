package dev.onceonly.internal.dialect;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * How a dialect stores instants: epoch milliseconds in an integer column on SQLite, {@code
 * timestamptz} on PostgreSQL, {@code DATETIME(6)} holding UTC on MariaDB. The stores work in epoch
 * milliseconds and bind and read through this.
 *
 * <p>On PostgreSQL an instant is bound as an {@link OffsetDateTime} at UTC, so the driver sends an
 * explicit offset and the session's {@code TimeZone} never changes the stored moment; reads ask for
 * an {@link OffsetDateTime} for the same reason (a {@code java.sql.Timestamp} would be converted
 * through the JVM's default zone).
 *
 * <p>On MariaDB a {@code DATETIME} has no zone at all: an instant is bound and read as a {@link
 * LocalDateTime} at UTC, which the driver sends and reads as written, so neither the session's
 * {@code time_zone} nor the JVM's zone moves it. ({@code TIMESTAMP} would convert through the
 * session's zone and ends in 2038.)
 */
public final class InstantColumns {
  private enum Kind {
    MILLIS,
    TIMESTAMPTZ,
    UTC_DATETIME
  }

  private final Kind kind;

  private InstantColumns(Kind kind) {
    this.kind = kind;
  }

  static final InstantColumns MILLIS = new InstantColumns(Kind.MILLIS);
  static final InstantColumns TIMESTAMPTZ = new InstantColumns(Kind.TIMESTAMPTZ);
  static final InstantColumns UTC_DATETIME = new InstantColumns(Kind.UTC_DATETIME);

  /** Binds the instant {@code millis} (epoch milliseconds). */
  public void set(PreparedStatement ps, int i, long millis) throws SQLException {
    Instant at = Instant.ofEpochMilli(millis);
    switch (kind) {
      case TIMESTAMPTZ -> ps.setObject(i, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
      case UTC_DATETIME -> ps.setObject(i, LocalDateTime.ofInstant(at, ZoneOffset.UTC));
      case MILLIS -> ps.setLong(i, millis);
    }
  }

  /** Binds an instant that may be absent. */
  public void setNullable(PreparedStatement ps, int i, Long millis) throws SQLException {
    if (millis != null) {
      set(ps, i, millis);
    } else {
      ps.setNull(
          i,
          switch (kind) {
            case TIMESTAMPTZ -> Types.TIMESTAMP_WITH_TIMEZONE;
            case UTC_DATETIME -> Types.TIMESTAMP;
            case MILLIS -> Types.BIGINT;
          });
    }
  }

  /** Reads a non-null instant as epoch milliseconds. */
  public long get(ResultSet rs, int i) throws SQLException {
    Long v = getNullable(rs, i);
    if (v == null) {
      throw new SQLException("unexpected NULL timestamp in column " + i);
    }
    return v;
  }

  /** Reads an instant that may be NULL, as epoch milliseconds. */
  public Long getNullable(ResultSet rs, int i) throws SQLException {
    if (kind == Kind.TIMESTAMPTZ) {
      OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
      return t == null ? null : t.toInstant().toEpochMilli();
    }
    if (kind == Kind.UTC_DATETIME) {
      LocalDateTime t = rs.getObject(i, LocalDateTime.class);
      return t == null ? null : t.toInstant(ZoneOffset.UTC).toEpochMilli();
    }
    long v = rs.getLong(i);
    return rs.wasNull() ? null : v;
  }

  /** Reads a non-null instant. */
  public Instant instant(ResultSet rs, int i) throws SQLException {
    return Instant.ofEpochMilli(get(rs, i));
  }
}
