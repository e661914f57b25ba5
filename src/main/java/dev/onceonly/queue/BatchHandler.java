package dev.onceonly.queue;

import java.sql.Connection;
import java.util.List;

/**
 * Writes the effects of several delivered messages of one queue in one transaction, for a {@link
 * Worker} built with {@link Worker#batchBuilder}, or for {@link JobQueue#completeBatch}.
 *
 * <p>It is called inside the transaction that acknowledges the deliveries, after their fenced
 * acknowledgements: it is given only the deliveries whose lease still holds, and its writes commit
 * with their acknowledgements or not at all. A delivery whose lease was taken over is never given
 * to it, so its effect is never written by this holder. If it throws, nothing commits (neither its
 * writes nor any acknowledgement), and the worker runs each delivery of the batch again alone, a
 * batch of one in a transaction of its own: the deliveries that succeed alone commit once, the one
 * that fails alone is retried with backoff or dead-lettered on its own.
 *
 * <p>It may therefore be called more than once for the same message (a failed batch, a retried
 * transaction, a crash before the commit): it must write only through the connection it is given,
 * and may not commit, roll back or close it. It runs while the transaction holds the queue (on
 * SQLite, the database's write lock): keep it to database work, a JDBC batch of statements, and
 * make no network call in it.
 */
@FunctionalInterface
public interface BatchHandler {
  /**
   * Writes the effects of {@code deliveries}.
   *
   * @param transaction the transaction's connection, in which the deliveries are acknowledged
   * @param deliveries the deliveries still held, in the order they were claimed; never empty
   * @throws Exception to have nothing committed and each delivery run again alone
   */
  void handle(Connection transaction, List<Delivery> deliveries) throws Exception;
}
