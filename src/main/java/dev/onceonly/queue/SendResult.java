package dev.onceonly.queue;

import java.util.List;
import java.util.Objects;

/**
 * What {@link JobQueue#send} did.
 *
 * @param status sent now, already queued with the same payload, or queued with another payload
 * @param queue the queue
 * @param key the message's key
 */
public record SendResult(Status status, String queue, String key) {
  /** The three answers of a send. */
  public enum Status {
    /** The message was queued by this call. */
    SENT,
    /**
     * A message with this key and the same payload is already waiting or in flight (or, under the
     * queue's {@link Uniqueness}, was sent within its period or is a dead letter); nothing written.
     */
    REPEATED,
    /**
     * A message with this key but another payload is waiting or in flight (or holds the key under
     * the queue's {@link Uniqueness}); nothing written.
     */
    CONFLICT
  }

  /**
   * Refuses nulls.
   *
   * @param status sent now, already queued with the same payload, or queued with another payload
   * @param queue the queue
   * @param key the message's key
   */
  public SendResult {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
  }

  /**
   * Returns this result unless the message could not be sent. Inside {@link JobQueue#complete}'s
   * work, {@code queue.send(tx, next).orThrow()} turns a {@link Status#CONFLICT} into a rollback of
   * the whole step: the current message is not acknowledged and stays leased, instead of being
   * acknowledged with its next step dropped.
   *
   * @return this result, {@link Status#SENT} or {@link Status#REPEATED}
   * @throws SendConflictException if the status is {@link Status#CONFLICT}
   */
  public SendResult orThrow() {
    if (status == Status.CONFLICT) {
      throw new SendConflictException(List.of(this));
    }
    return this;
  }
}
