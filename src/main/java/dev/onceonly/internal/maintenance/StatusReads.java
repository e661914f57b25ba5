package dev.onceonly.internal.maintenance;

import dev.onceonly.IntentKey;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.maintenance.Backlog;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.maintenance.StoreStatus.PendingIntent;
import dev.onceonly.maintenance.StoreStatus.QueueCounts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The counts of {@link dev.onceonly.maintenance.Maintenance#status()} and its backlog, on one
 * connection, and the small reading helpers every maintenance read shares. The backlog reads the
 * intents without a receipt, the messages (from two indexes), the dead letters and the claims; the
 * status adds the totals of receipts, intents and rejections, which read every row kept.
 */
final class StatusReads {
  private final MaintenanceStatements sql;
  private final InstantColumns times;

  StatusReads(MaintenanceStatements sql, InstantColumns times) {
    this.sql = sql;
    this.times = times;
  }

  StoreStatus status(Connection c, String description, Instant now, int version)
      throws SQLException {
    long[] r = longs(c, times, sql.countReceipts, 3, now, now);
    Backlog b = backlog(c, now);
    return new StoreStatus(
        description,
        version,
        now,
        longs(c, times, sql.countIntents, 1)[0],
        b.pendingIntents(),
        r[0],
        r[1],
        r[2],
        b.messages(),
        b.deadLetters(),
        longs(c, times, sql.countRejections, 1)[0],
        b.claims(),
        b.oldestPending(),
        b.oldestDueAge());
  }

  Backlog backlog(Connection c, Instant now) throws SQLException {
    Map<String, QueueCounts> messages = messages(c, now);
    return new Backlog(
        now,
        longs(c, times, sql.countPending, 1)[0],
        oldestPending(c, now),
        messages,
        oldestDueAge(c, now, messages),
        grouped(c, sql.countDeadLetters),
        grouped(c, sql.countClaims));
  }

  /** Counts each queue's messages from two indexes, never reading a message's row. */
  private Map<String, QueueCounts> messages(Connection c, Instant now) throws SQLException {
    Map<String, long[]> dueAndAll = new LinkedHashMap<>();
    try (PreparedStatement ps = prepare(c, times, sql.countMessages, now);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        dueAndAll.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3)});
      }
    }
    Map<String, Long> leased = new HashMap<>();
    try (PreparedStatement ps = prepare(c, times, sql.countLeased, now);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        leased.put(rs.getString(1), rs.getLong(2));
      }
    }
    Map<String, QueueCounts> out = new LinkedHashMap<>();
    for (Map.Entry<String, long[]> q : dueAndAll.entrySet()) {
      long due = q.getValue()[0];
      long held = leased.getOrDefault(q.getKey(), 0L);
      out.put(q.getKey(), new QueueCounts(due, held, q.getValue()[1] - due - held));
    }
    return out;
  }

  /** The oldest due message over the queues that have one: one index seek per queue. */
  private Optional<Duration> oldestDueAge(
      Connection c, Instant now, Map<String, QueueCounts> messages) throws SQLException {
    Instant oldest = null;
    try (PreparedStatement ps = c.prepareStatement(sql.oldestDueOfQueue)) {
      for (Map.Entry<String, QueueCounts> q : messages.entrySet()) {
        if (q.getValue().due() == 0) {
          continue;
        }
        ps.setString(1, q.getKey());
        times.set(ps, 2, now.toEpochMilli());
        try (ResultSet rs = ps.executeQuery()) {
          Instant at = rs.next() ? instant(rs, times, 1) : null;
          oldest = at != null && (oldest == null || at.isBefore(oldest)) ? at : oldest;
        }
      }
    }
    return oldest == null ? Optional.empty() : Optional.of(Duration.between(oldest, now));
  }

  Optional<PendingIntent> oldestPending(Connection c, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.oldestPending);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      Instant at = instant(rs, times, 3);
      return Optional.of(
          new PendingIntent(
              IntentKey.of(rs.getString(1), rs.getString(2)), at, Duration.between(at, now)));
    }
  }

  Optional<Duration> oldestDueAge(Connection c, Instant now) throws SQLException {
    try (PreparedStatement ps = prepare(c, times, sql.oldestDue, now);
        ResultSet rs = ps.executeQuery()) {
      Instant at = rs.next() ? instant(rs, times, 1) : null;
      return at == null ? Optional.empty() : Optional.of(Duration.between(at, now));
    }
  }

  /** Prepares {@code statement} with the instants bound as its first parameters. */
  static PreparedStatement prepare(
      Connection c, InstantColumns times, String statement, Instant... at) throws SQLException {
    PreparedStatement ps = c.prepareStatement(statement);
    try {
      for (int i = 0; i < at.length; i++) {
        times.set(ps, i + 1, at[i].toEpochMilli());
      }
      return ps;
    } catch (SQLException e) {
      ps.close();
      throw e;
    }
  }

  /** Reads the one row of {@code statement}: its first {@code columns} columns as numbers. */
  static long[] longs(
      Connection c, InstantColumns times, String statement, int columns, Instant... at)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, times, statement, at);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      long[] out = new long[columns];
      for (int i = 0; i < columns; i++) {
        out[i] = rs.getLong(i + 1);
      }
      return out;
    }
  }

  /** Reads name and count pairs, in the statement's order. */
  static Map<String, Long> grouped(Connection c, String statement) throws SQLException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(statement);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    }
    return out;
  }

  static Instant instant(ResultSet rs, InstantColumns times, int i) throws SQLException {
    Long millis = times.getNullable(rs, i);
    return millis == null ? null : Instant.ofEpochMilli(millis);
  }
}
