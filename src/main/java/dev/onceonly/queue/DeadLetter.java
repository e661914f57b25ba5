package dev.onceonly.queue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Objects;

/**
 * A message that exhausted its attempts, kept with its last error until it is requeued.
 *
 * @param queue the queue
 * @param key the message's key
 * @param payload the payload
 * @param attempts how many deliveries it had
 * @param lastError the last failure, bounded
 * @param deadAt when it was dead-lettered
 */
public record DeadLetter(
    String queue, String key, JsonNode payload, int attempts, String lastError, Instant deadAt) {
  /**
   * Refuses nulls other than the error.
   *
   * @param queue the queue
   * @param key the message's key
   * @param payload the payload
   * @param attempts how many deliveries it had
   * @param lastError the last failure, bounded
   * @param deadAt when it was dead-lettered
   */
  public DeadLetter {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(deadAt, "deadAt");
  }
}
