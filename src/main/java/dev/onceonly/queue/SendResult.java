package dev.onceonly.queue;

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
    /** A message with this key and the same payload is already waiting or in flight. */
    REPEATED,
    /** A message with this key but another payload is waiting or in flight; nothing written. */
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
}
