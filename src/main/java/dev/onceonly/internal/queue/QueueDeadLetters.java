package dev.onceonly.internal.queue;

import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.SqlRejectionStore;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.DeadLetter;
import dev.onceonly.queue.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The dead letters of the job queue: the move of a message, their listing and their requeue. */
final class QueueDeadLetters {
  private static final int MAX_ERROR_CHARS = 2000;

  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;

  QueueDeadLetters(StoreContext core, QueueStatements sql) {
    this.core = core;
    this.sql = sql;
    this.times = core.times();
  }

  /** Moves the message of {@code lease} to the dead letters, replacing an older one of its key. */
  void move(Connection c, Lease lease, int attempts, String error, Instant now)
      throws SQLException {
    update(times, c, sql.dropReplacedDeadPayload, null, lease); // an older one's body goes
    try (PreparedStatement ps = c.prepareStatement(sql.deadLetter)) {
      ps.setInt(1, attempts);
      ps.setString(2, bound(error));
      times.set(ps, 3, now.toEpochMilli());
      ps.setLong(4, lease.messageId());
      ps.setLong(5, lease.fence());
      ps.executeUpdate();
    }
    update(times, c, sql.deleteMessage, null, lease);
  }

  /**
   * Runs a fenced statement on the message of {@code lease}: its parameters are {@code first} (a
   * time, if not null), the message's id and the lease's fence.
   */
  static int update(InstantColumns times, Connection c, String statement, Long first, Lease lease)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      int i = 1;
      if (first != null) {
        times.set(ps, i++, first);
      }
      ps.setLong(i++, lease.messageId());
      ps.setLong(i, lease.fence());
      return ps.executeUpdate();
    }
  }

  /** An error text as stored: storable, and cut to {@value #MAX_ERROR_CHARS} characters. */
  static String bound(String error) {
    String e = SqlRejectionStore.storable(error == null ? "(no error text)" : error);
    return e.length() <= MAX_ERROR_CHARS ? e : e.substring(0, MAX_ERROR_CHARS - 1) + "\u2026";
  }

  List<DeadLetter> list(String queue, int limit) {
    return select(sql.listDeadLetters, queue, ps -> ps.setInt(2, limit));
  }

  Optional<DeadLetter> find(String queue, String key) {
    return select(sql.findDeadLetter, queue, ps -> ps.setString(2, key)).stream().findFirst();
  }

  /** Binds a query's parameters after the queue. */
  private interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  private List<DeadLetter> select(String query, String queue, Binder rest) {
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(query)) {
                ps.setString(1, queue);
                rest.bind(ps);
                List<DeadLetter> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(deadLetter(queue, rs));
                  }
                }
                return out;
              }
            });
  }

  private DeadLetter deadLetter(String queue, ResultSet rs) throws SQLException {
    return new DeadLetter(
        queue,
        rs.getString(1),
        core.readTree(rs.getString(2)),
        rs.getInt(3),
        rs.getString(4),
        times.instant(rs, 5));
  }

  /**
   * Moves the dead letter of {@code key} back to the queue, due now; false if there is none, or
   * with {@code deadAt} not null, none dead-lettered at that instant.
   */
  boolean requeue(String queue, String key, Instant deadAt) {
    return core.database()
        .write(
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(deadAt == null ? sql.requeue : sql.requeueListed)) {
                times.set(ps, 1, core.clock().millis());
                ps.setString(2, queue);
                ps.setString(3, key);
                if (deadAt != null) {
                  times.set(ps, 4, deadAt.toEpochMilli());
                }
                if (ps.executeUpdate() != 1) {
                  return false;
                }
              }
              try (PreparedStatement ps = c.prepareStatement(sql.deleteDeadLetter)) {
                ps.setString(1, queue);
                ps.setString(2, key);
                ps.executeUpdate();
              }
              return true;
            });
  }
}
