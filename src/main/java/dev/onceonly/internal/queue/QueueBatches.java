package dev.onceonly.internal.queue;

import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.db.EffectConnection;
import dev.onceonly.queue.BatchHandler;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A batch handler's transaction ({@link dev.onceonly.queue.JobQueue#completeBatch}): the fenced
 * acknowledgements of the batch, then the handler on the deliveries still held, then one commit.
 */
final class QueueBatches {
  /** The most deliveries of one batch, as of one claim. */
  static final int MAX = 1000;

  /** Acknowledges leases inside an open transaction, one result per lease, in order. */
  @FunctionalInterface
  interface Acks {
    List<QueueResult> ack(Connection c, List<Lease> leases) throws SQLException;
  }

  private final Database database;
  private final Acks acks;
  private final QueueEvents published;

  QueueBatches(Database database, Acks acks, QueueEvents published) {
    this.database = database;
    this.acks = acks;
    this.published = published;
  }

  List<QueueResult> complete(List<Delivery> deliveries, BatchHandler handler) {
    Objects.requireNonNull(handler, "handler");
    List<Delivery> copy = List.copyOf(deliveries);
    if (copy.size() > MAX) {
      throw new IllegalArgumentException("a batch holds at most " + MAX + " deliveries");
    }
    if (copy.isEmpty()) {
      return List.of();
    }
    List<Lease> leases = copy.stream().map(Delivery::lease).toList();
    QueueResult[] acked = new QueueResult[copy.size()];
    try {
      return published.settledAll(
          leases, published.started(), database.write(c -> run(c, copy, handler, acked)));
    } catch (HandlerFailed f) {
      // Rolled back: the deliveries that were held are held still, none is acknowledged.
      List<QueueResult> out = new ArrayList<>(copy.size());
      for (int i = 0; i < acked.length; i++) {
        out.add(
            acked[i] instanceof QueueResult.Completed
                ? new QueueResult.WorkFailed(leases.get(i).key(), f.failure)
                : acked[i]);
      }
      return out;
    }
  }

  /**
   * Acknowledges first, then runs the handler on the deliveries whose acknowledgement succeeded, so
   * that no effect of a delivery whose lease was lost can commit (the fencing of {@code complete},
   * for a batch). The acknowledged rows stay locked until the transaction ends.
   */
  private List<QueueResult> run(
      Connection c, List<Delivery> deliveries, BatchHandler handler, QueueResult[] acked)
      throws SQLException {
    List<QueueResult> results = acks.ack(c, deliveries.stream().map(Delivery::lease).toList());
    List<Delivery> held = new ArrayList<>(deliveries.size());
    for (int i = 0; i < deliveries.size(); i++) {
      acked[i] = results.get(i);
      if (results.get(i) instanceof QueueResult.Completed) {
        held.add(deliveries.get(i));
      }
    }
    if (!held.isEmpty()) {
      EffectConnection lent = EffectConnection.lend(c);
      try {
        handler.handle(lent, List.copyOf(held));
        lent.check();
      } catch (Exception e) {
        throw new HandlerFailed(e);
      }
    }
    return results;
  }

  /**
   * Aborts the batch's transaction for the handler's failure. Its cause is that failure, so a
   * serialization failure or deadlock inside the handler still makes the transaction run again.
   */
  private static final class HandlerFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final Exception failure;

    HandlerFailed(Exception failure) {
      super(failure.getMessage(), failure, true, false);
      this.failure = failure;
    }
  }
}
