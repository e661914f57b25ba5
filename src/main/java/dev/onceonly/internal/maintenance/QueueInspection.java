package dev.onceonly.internal.maintenance;

import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.maintenance.Maintenance.MessageSummary;
import dev.onceonly.maintenance.QueueBreakdown;
import dev.onceonly.maintenance.QueueBreakdown.PartitionGroup;
import dev.onceonly.maintenance.QueueBreakdown.PriorityGroup;
import dev.onceonly.maintenance.QueuedMessage;
import dev.onceonly.maintenance.StoreStatus.QueueCounts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The reads of one queue for people: its messages counted by priority and partition, and one
 * message found by key. The same SQL in both dialects; keys and partitions are bound, never matched
 * against a pattern, so a row of any key is found.
 */
final class QueueInspection {
  private static final String COUNTS =
      " SUM(CASE WHEN deliver_at <= ? THEN 1 ELSE 0 END),"
          + " SUM(CASE WHEN deliver_at > ? AND leased = 1 THEN 1 ELSE 0 END),"
          + " SUM(CASE WHEN deliver_at > ? AND leased = 0 THEN 1 ELSE 0 END)";

  private final Database database;
  private final InstantColumns times;
  private final String byPriority;
  private final String byPartition;
  private final String countPartitions;
  private final String findMessage;
  private final String page;

  QueueInspection(Database database, String p) {
    this.database = database;
    this.times = database.times();
    String of = " FROM " + p + "messages WHERE queue = ?";
    // parameters: now, now, now, queue (, limit)
    byPriority = "SELECT priority," + COUNTS + of + " GROUP BY priority ORDER BY priority DESC";
    // the deepest first; the group of no partition before named ones of its depth, in both
    // dialects (they sort NULL differently)
    byPartition =
        "SELECT partition_key,"
            + COUNTS
            + of
            + " GROUP BY partition_key ORDER BY COUNT(*) DESC,"
            + " CASE WHEN partition_key IS NULL THEN 0 ELSE 1 END, partition_key LIMIT ?";
    countPartitions =
        "SELECT COUNT(DISTINCT partition_key),"
            + " COALESCE(MAX(CASE WHEN partition_key IS NULL THEN 1 ELSE 0 END), 0)"
            + of;
    findMessage =
        "SELECT id, payload, payload_ref, attempts, fence, deliver_at, priority, partition_key,"
            + " last_error, created_at, leased"
            + of
            + " AND message_key = ?";
    // parameters: queue, after id, limit
    page =
        "SELECT message_key, id, attempts, deliver_at, priority, partition_key, leased"
            + of
            + " AND id > ? ORDER BY id LIMIT ?";
  }

  List<MessageSummary> page(String queue, long afterId, int limit, Instant now) {
    return database.read(
        c -> {
          List<MessageSummary> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(page)) {
            ps.setString(1, queue);
            ps.setLong(2, afterId);
            ps.setInt(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                Instant due = times.instant(rs, 4);
                out.add(
                    new MessageSummary(
                        queue,
                        rs.getString(1),
                        rs.getLong(2),
                        state(due, rs.getInt(7), now),
                        rs.getInt(3),
                        due,
                        rs.getInt(5),
                        rs.getString(6)));
              }
            }
          }
          return out;
        });
  }

  private static QueuedMessage.State state(Instant due, int leased, Instant now) {
    if (!due.isAfter(now)) {
      return QueuedMessage.State.DUE;
    }
    return leased == 1 ? QueuedMessage.State.LEASED : QueuedMessage.State.DELAYED;
  }

  QueueBreakdown breakdown(String queue, Instant now, int partitions) {
    return database.read(
        c -> {
          List<PriorityGroup> priorities = new ArrayList<>();
          try (PreparedStatement ps = counts(c, byPriority, now, queue);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              priorities.add(new PriorityGroup(rs.getInt(1), counts(rs)));
            }
          }
          List<PartitionGroup> groups = new ArrayList<>();
          try (PreparedStatement ps = counts(c, byPartition, now, queue)) {
            ps.setInt(5, partitions);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                groups.add(new PartitionGroup(rs.getString(1), counts(rs)));
              }
            }
          }
          return new QueueBreakdown(queue, now, priorities, groups, partitions(c, queue));
        });
  }

  private long partitions(Connection c, String queue) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(countPartitions)) {
      ps.setString(1, queue);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) + rs.getLong(2);
      }
    }
  }

  private PreparedStatement counts(Connection c, String statement, Instant now, String queue)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(statement);
    try {
      for (int i = 1; i <= 3; i++) {
        times.set(ps, i, now.toEpochMilli());
      }
      ps.setString(4, queue);
      return ps;
    } catch (SQLException e) {
      ps.close();
      throw e;
    }
  }

  private static QueueCounts counts(ResultSet rs) throws SQLException {
    return new QueueCounts(rs.getLong(2), rs.getLong(3), rs.getLong(4));
  }

  Optional<QueuedMessage> find(String queue, String key, Instant now) {
    return database.read(
        c -> {
          try (PreparedStatement ps = c.prepareStatement(findMessage)) {
            ps.setString(1, queue);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? Optional.of(message(rs, queue, key, now)) : Optional.empty();
            }
          }
        });
  }

  private QueuedMessage message(ResultSet rs, String queue, String key, Instant now)
      throws SQLException {
    Instant due = times.instant(rs, 6);
    return new QueuedMessage(
        queue,
        key,
        rs.getLong(1),
        state(due, rs.getInt(11), now),
        rs.getString(2),
        Optional.ofNullable(rs.getString(3)),
        rs.getInt(4),
        rs.getLong(5),
        due,
        rs.getInt(7),
        Optional.ofNullable(rs.getString(8)),
        Optional.ofNullable(rs.getString(9)),
        times.instant(rs, 10));
  }
}
