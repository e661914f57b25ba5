package dev.onceonly.internal.queue;

import dev.onceonly.internal.receipts.StoreContext;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Optional;

/** The reads of one queue's backlog a worker or an operator asks for: its depth, its next due. */
final class QueueReads {
  private final StoreContext core;
  private final QueueStatements sql;

  QueueReads(StoreContext core, QueueStatements sql) {
    this.core = core;
    this.sql = sql;
  }

  /** {@return the messages of {@code queue} that wait or are in flight} */
  long depth(String queue) {
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.depth)) {
                ps.setString(1, queue);
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  return rs.getLong(1);
                }
              }
            });
  }

  /** {@return when the next message of {@code queue} is due, if it has one} */
  Optional<Instant> nextDue(String queue) {
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.nextDue)) {
                ps.setString(1, queue);
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  return Optional.ofNullable(core.times().getNullable(rs, 1))
                      .map(Instant::ofEpochMilli);
                }
              }
            });
  }
}
