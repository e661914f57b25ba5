package dev.onceonly.internal.queue;

import static dev.onceonly.internal.queue.QueueNames.QUEUE;
import static dev.onceonly.internal.queue.QueueNames.check;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.db.StatementCache;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.QueuePause;
import java.lang.invoke.MethodHandles;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pauses of queues, rows of {@code <prefix>queue_pauses}: written and deleted here, and read by
 * every claim in its own statement ({@code SqlDialect.unpaused}), so a pause holds for every
 * instance from its commit on and costs a claim no statement of its own.
 */
final class QueuePauses {
  /** The longest {@code pausedBy}, in characters. */
  static final int MAX_BY = 255;

  /** The longest reason, in characters. */
  static final int MAX_REASON = 1000;

  private final StoreContext core;
  private final InstantColumns times;
  private final Events events;
  private final QueueSignals signals;
  private final String insert;
  private final String delete;
  private final String one;
  private final String all;

  QueuePauses(StoreContext core, String prefix, QueueSignals signals) {
    this.core = core;
    this.times = core.times();
    this.events = core.events();
    this.signals = signals;
    String t = prefix + "queue_pauses";
    insert =
        core.database()
            .sql()
            .insertOrNothing(
                "INSERT INTO " + t + " (queue, paused_by, paused_at, reason) VALUES (?, ?, ?, ?)",
                "queue");
    delete = "DELETE FROM " + t + " WHERE queue = ?";
    String columns = "SELECT queue, paused_by, paused_at, reason FROM " + t;
    one = columns + " WHERE queue = ?";
    all = columns + " ORDER BY queue";
    StatementCache.registerFields(this, MethodHandles.lookup());
  }

  /**
   * Pauses {@code queue}; a queue paused already keeps its first pause's row. Returns whether this
   * call paused it.
   */
  boolean pause(String queue, String pausedBy, String reason) {
    check("queue", queue, QUEUE);
    if (pausedBy == null || pausedBy.isBlank() || pausedBy.length() > MAX_BY) {
      throw new InvalidRequestException("pausedBy", "must be 1 to " + MAX_BY + " characters");
    }
    if (reason != null && reason.length() > MAX_REASON) {
      throw new InvalidRequestException("reason", "must be at most " + MAX_REASON + " characters");
    }
    boolean paused =
        changedOne(
            insert,
            ps -> {
              ps.setString(2, pausedBy);
              times.set(ps, 3, core.clock().millis());
              ps.setString(4, reason);
            },
            queue);
    return changed(queue, paused, "paused");
  }

  /** Resumes {@code queue}; returns false if it was not paused. */
  boolean resume(String queue) {
    check("queue", queue, QUEUE);
    boolean resumed = changedOne(delete, ps -> {}, queue);
    if (resumed) {
      signals.fire(queue); // this instance's idle workers claim at once
    }
    return changed(queue, resumed, "resumed");
  }

  /** The rest of a statement's parameters, after the queue's. */
  private interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  /** Runs {@code statement} on the queue's row in a transaction; returns whether it changed one. */
  private boolean changedOne(String statement, Binder rest, String queue) {
    return core.database()
        .write(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(statement)) {
                ps.setString(1, queue);
                rest.bind(ps);
                return ps.executeUpdate() == 1;
              }
            });
  }

  private boolean changed(String queue, boolean changed, String change) {
    if (changed && events.enabled()) {
      events.publish(new OnceOnlyEvent.QueuePauseChanged(queue, change));
    }
    return changed;
  }

  /** {@return the pause of {@code queue}, if it is paused} */
  Optional<QueuePause> find(String queue) {
    check("queue", queue, QUEUE);
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(one)) {
                ps.setString(1, queue);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() ? Optional.of(row(rs)) : Optional.<QueuePause>empty();
                }
              }
            });
  }

  /** {@return every paused queue, by name} */
  List<QueuePause> list() {
    return core.database()
        .read(
            c -> {
              List<QueuePause> out = new ArrayList<>();
              try (PreparedStatement ps = c.prepareStatement(all);
                  ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  out.add(row(rs));
                }
              }
              return out;
            });
  }

  private QueuePause row(ResultSet rs) throws SQLException {
    return new QueuePause(
        rs.getString(1), rs.getString(2), Instant.ofEpochMilli(times.get(rs, 3)), rs.getString(4));
  }
}
