package dev.onceonly.internal.dialect;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * How a dialect stores instants: epoch milliseconds in an integer column on SQLite, {@code
 * timestamptz} on PostgreSQL. The stores work in epoch milliseconds and bind and read through this.
 *
 * <p>On PostgreSQL an instant is bound as an {@link OffsetDateTime} at UTC, so the driver sends an
 * explicit offset and the session's {@code TimeZone} never changes the stored moment; reads ask for
 * an {@link OffsetDateTime} for the same reason (a {@code java.sql.Timestamp} would be converted
 * through the JVM's default zone).
 */
public final class InstantColumns {
  private final boolean timestamptz;

  private InstantColumns(boolean timestamptz) {
    this.timestamptz = timestamptz;
  }

  static final InstantColumns MILLIS = new InstantColumns(false);
  static final InstantColumns TIMESTAMPTZ = new InstantColumns(true);

  /** Binds the instant {@code millis} (epoch milliseconds). */
  public void set(PreparedStatement ps, int i, long millis) throws SQLException {
    if (timestamptz) {
      ps.setObject(i, OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC));
    } else {
      ps.setLong(i, millis);
    }
  }

  /** Binds an instant that may be absent. */
  public void setNullable(PreparedStatement ps, int i, Long millis) throws SQLException {
    if (millis != null) {
      set(ps, i, millis);
    } else {
      ps.setNull(i, timestamptz ? Types.TIMESTAMP_WITH_TIMEZONE : Types.BIGINT);
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
    if (timestamptz) {
      OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
      return t == null ? null : t.toInstant().toEpochMilli();
    }
    long v = rs.getLong(i);
    return rs.wasNull() ? null : v;
  }

  /** Reads a non-null instant. */
  public Instant instant(ResultSet rs, int i) throws SQLException {
    return Instant.ofEpochMilli(get(rs, i));
  }
}
