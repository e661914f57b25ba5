package dev.onceonly.internal.queue;

import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.SqlRejectionStore;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.DeadLetter;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The dead letters of the job queue: a failed attempt's retry or move, their listing and their
 * requeue.
 */
final class QueueDeadLetters {
  private static final int MAX_ERROR_CHARS = dev.onceonly.queue.AttemptError.MAX_MESSAGE_CHARS;

  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;
  private final AtomicReference<DeadLetterHook> hook;
  private final AttemptErrorLog errors;

  QueueDeadLetters(
      StoreContext core,
      QueueStatements sql,
      AtomicReference<DeadLetterHook> hook,
      AttemptErrorLog errors) {
    this.core = core;
    this.sql = sql;
    this.times = core.times();
    this.hook = hook;
    this.errors = errors;
  }

  /**
   * Records a failed attempt of a held message: a retry at the policy's next attempt, or the move
   * to the dead letters when there is none; either way with the attempt's entry in its history.
   */
  QueueResult fail(
      Connection c, Lease lease, AttemptErrorLog.Failure f, Duration wait, RetryPolicy policy)
      throws SQLException {
    String error = f.text();
    Attempts held = attempts(c, lease);
    if (held == null) {
      return lost(lease);
    }
    int attempts = held.count();
    Instant first = held.firstClaimedAt();
    Instant now = core.clock().instant();
    Optional<Instant> next =
        policy.nextAttempt(attempts, first, now, wait, ThreadLocalRandom.current());
    if (next.isEmpty()) {
      move(c, lease, attempts, error, now);
      errors.record(c, lease, attempts, f, now.toEpochMilli());
      return new QueueResult.DeadLettered(lease.key(), attempts, error);
    }
    try (PreparedStatement ps = c.prepareStatement(sql.retry)) {
      times.set(ps, 1, next.get().toEpochMilli());
      ps.setString(2, error);
      ps.setLong(3, lease.messageId());
      ps.setLong(4, lease.fence());
      if (ps.executeUpdate() == 1) { // holding the row: no other writer numbers this key's entry
        errors.record(c, lease, attempts, f, now.toEpochMilli());
      }
    }
    return new QueueResult.Retrying(lease.key(), next.get(), attempts);
  }

  /** Moves a held message straight to the dead letters, if the lease still holds. */
  QueueResult deadLetter(Connection c, Lease lease, AttemptErrorLog.Failure f) throws SQLException {
    Attempts held = attempts(c, lease);
    if (held == null) {
      return lost(lease);
    }
    Instant now = core.clock().instant();
    move(c, lease, held.count(), f.text(), now);
    errors.record(c, lease, held.count(), f, now.toEpochMilli());
    return new QueueResult.DeadLettered(lease.key(), held.count(), f.text());
  }

  /** A held message's deliveries so far and its first claim. */
  private record Attempts(int count, Instant firstClaimedAt) {}

  /** Reads the attempts of the message {@code lease} holds, or null if the lease is lost. */
  private Attempts attempts(Connection c, Lease lease) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.attempts)) {
      ps.setLong(1, lease.messageId());
      ps.setLong(2, lease.fence());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Attempts(rs.getInt(1), times.instant(rs, 2)) : null;
      }
    }
  }

  private static QueueResult lost(Lease lease) {
    return new QueueResult.LeaseLost(lease.key(), lease.fence());
  }

  /**
   * Moves the message of {@code lease} to the dead letters, replacing an older one of its key, and
   * tells the {@link DeadLetterHook} in the same transaction.
   */
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
    DeadLetterHook h = hook.get();
    if (h != null) {
      h.deadLettered(c, lease, attempts, bound(error));
    }
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
    return SqlRejectionStore.cut(error == null ? "(no error text)" : error, MAX_ERROR_CHARS);
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
