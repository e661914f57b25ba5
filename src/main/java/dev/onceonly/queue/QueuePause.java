package dev.onceonly.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * A paused queue, as {@link JobQueue#pause} recorded it: a row of the store, so every instance sees
 * it and it outlives restarts, until {@link JobQueue#resume}.
 *
 * @param queue the queue's name
 * @param pausedBy who paused it (an operator's name, a tool, a deployment), as given
 * @param pausedAt when, by the store's clock
 * @param reason why, as given; null for none
 */
public record QueuePause(String queue, String pausedBy, Instant pausedAt, String reason) {
  /**
   * Refuses nulls but the reason.
   *
   * @param queue see the record
   * @param pausedBy see the record
   * @param pausedAt see the record
   * @param reason see the record
   */
  public QueuePause {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(pausedBy, "pausedBy");
    Objects.requireNonNull(pausedAt, "pausedAt");
  }
}
