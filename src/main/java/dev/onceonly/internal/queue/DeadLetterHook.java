package dev.onceonly.internal.queue;

import dev.onceonly.queue.Lease;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Told, inside the transaction that moves a message to the dead letters, that it did: the seam the
 * workflows use to fail a step in the same commit. Whatever it throws rolls the move back.
 */
@FunctionalInterface
public interface DeadLetterHook {
  /**
   * Called after the message of {@code lease} was moved, before the transaction commits.
   *
   * @param c the transaction's connection
   * @param lease the dead message's lease (its queue and key)
   * @param attempts the deliveries it got
   * @param error why, as stored
   */
  void deadLettered(Connection c, Lease lease, int attempts, String error) throws SQLException;
}
