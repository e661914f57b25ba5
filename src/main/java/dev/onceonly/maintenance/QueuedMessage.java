package dev.onceonly.maintenance;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A message waiting in its queue or in flight, as {@link Maintenance#findMessage} reads it.
 *
 * @param queue its queue
 * @param key its key
 * @param id its id in the queue table
 * @param state due, leased or delayed, at the store's clock when it was read
 * @param payload its JSON payload as stored, whole (a page cuts it for display)
 * @param largePayloadRef the reference of its large body ({@code JobQueue.sendLarge}), or empty
 * @param attempts how many deliveries it had
 * @param fence the number of its latest lease: a lease of another number is no longer its holder
 * @param nextAttemptAt when it is due: the end of its lease while leased, else when it may be
 *     delivered (again)
 * @param priority its priority
 * @param partition its partition, or empty
 * @param lastError its last failure, or empty
 * @param createdAt when it was sent
 */
public record QueuedMessage(
    String queue,
    String key,
    long id,
    State state,
    String payload,
    Optional<String> largePayloadRef,
    int attempts,
    long fence,
    Instant nextAttemptAt,
    int priority,
    Optional<String> partition,
    Optional<String> lastError,
    Instant createdAt) {
  /**
   * Refuses nulls.
   *
   * @param queue its queue
   * @param key its key
   * @param id its id in the queue table
   * @param state due, leased or delayed
   * @param payload its JSON payload as stored
   * @param largePayloadRef the reference of its large body, or empty
   * @param attempts how many deliveries it had
   * @param fence the number of its latest lease
   * @param nextAttemptAt when it is due
   * @param priority its priority
   * @param partition its partition, or empty
   * @param lastError its last failure, or empty
   * @param createdAt when it was sent
   */
  public QueuedMessage {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(largePayloadRef, "largePayloadRef");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(lastError, "lastError");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** Where a message stands, as {@link StoreStatus#messages()} counts it. */
  public enum State {
    /** Deliverable now: never claimed, retry time reached, or its lease ran out. */
    DUE,
    /** Claimed by a receiver whose lease has not run out. */
    LEASED,
    /** Waiting for its delivery time or its next retry. */
    DELAYED
  }
}
