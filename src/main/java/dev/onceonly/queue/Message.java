package dev.onceonly.queue;

import dev.onceonly.Bounds;
import java.time.Instant;
import java.util.Objects;

/**
 * A message to send: its queue, its key (unique in the queue while the message waits or is in
 * flight), its JSON payload, when to deliver it and its priority.
 *
 * <p>Among the due messages of a queue, a claim takes the highest priority first and the oldest
 * first within one priority; every fourth claim of a queue that takes messages takes the oldest due
 * messages whatever their priority (counted per queue name by each instance, whatever else it
 * claims), so a low-priority message is not held back for ever by a steady stream of higher ones.
 *
 * <p>A message may name a partition inside its queue (a tenant, an account, a device): a queue
 * declared with {@code OnceOnlyBuilder.concurrencyLimitPerPartition} leases at most that many
 * messages of one partition at once, over every instance. Neither the partition nor the priority is
 * part of the message's fingerprint: a second send of the same key and payload answers {@code
 * REPEATED} and keeps the first one's.
 *
 * @param queue the queue's name
 * @param key the message's key
 * @param payload a Jackson tree or any value Jackson turns into one
 * @param deliverAt when it becomes due, or {@code null} for now
 * @param priority higher first, {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}; 0 by default
 * @param partition the partition inside the queue, or {@code null} for none (the default)
 */
public record Message(
    String queue, String key, Object payload, Instant deliverAt, int priority, String partition) {
  /** The lowest priority. */
  public static final int MIN_PRIORITY = -1000;

  /** The highest priority. */
  public static final int MAX_PRIORITY = 1000;

  /** The longest partition name, in characters. */
  public static final int MAX_PARTITION = 200;

  /**
   * Refuses a null queue, key or payload, a priority out of range and a partition that is empty,
   * longer than {@value #MAX_PARTITION} characters or holds a control character.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload a Jackson tree or any value Jackson turns into one
   * @param deliverAt when it becomes due, or {@code null} for now; in years 1 to 9999
   * @param priority higher first, {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}
   * @param partition the partition inside the queue, or {@code null} for none
   * @throws IllegalArgumentException if {@code deliverAt} lies outside years 1 to 9999, the
   *     priority out of its range, or the partition is not a valid name
   */
  public Message {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(payload, "payload");
    if (deliverAt != null) {
      Bounds.instant(deliverAt, "deliverAt");
    }
    if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
      throw new IllegalArgumentException(
          "priority must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY);
    }
    if (partition != null) {
      checkPartition(partition);
    }
  }

  private static void checkPartition(String partition) {
    if (partition.isEmpty() || partition.length() > MAX_PARTITION) {
      throw new IllegalArgumentException(
          "partition must be 1 to " + MAX_PARTITION + " characters, or null for none");
    }
    for (int i = 0; i < partition.length(); i++) {
      if (Character.isISOControl(partition.charAt(i))) {
        throw new IllegalArgumentException("partition must not hold a control character");
      }
    }
  }

  /**
   * A message of no partition.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload a Jackson tree or any value Jackson turns into one
   * @param deliverAt when it becomes due, or {@code null} for now; in years 1 to 9999
   * @param priority higher first, {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}
   */
  public Message(String queue, String key, Object payload, Instant deliverAt, int priority) {
    this(queue, key, payload, deliverAt, priority, null);
  }

  /**
   * A message of priority 0 and no partition.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload a Jackson tree or any value Jackson turns into one
   * @param deliverAt when it becomes due, or {@code null} for now; in years 1 to 9999
   */
  public Message(String queue, String key, Object payload, Instant deliverAt) {
    this(queue, key, payload, deliverAt, 0, null);
  }

  /**
   * Returns a message due now.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload the payload
   * @return the message
   */
  public static Message of(String queue, String key, Object payload) {
    return new Message(queue, key, payload, null);
  }

  /**
   * Returns a copy due at {@code at}.
   *
   * @param at when it becomes due
   * @return the copy
   */
  public Message deliverAt(Instant at) {
    return new Message(queue, key, payload, Objects.requireNonNull(at, "at"), priority, partition);
  }

  /**
   * Returns a copy with another priority.
   *
   * @param priority higher first, {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}
   * @return the copy
   */
  public Message priority(int priority) {
    return new Message(queue, key, payload, deliverAt, priority, partition);
  }

  /**
   * Returns a copy in a partition of its queue (see {@code
   * OnceOnlyBuilder.concurrencyLimitPerPartition}).
   *
   * @param partition 1 to {@value #MAX_PARTITION} characters, no control character; or {@code null}
   *     for none
   * @return the copy
   */
  public Message partition(String partition) {
    return new Message(queue, key, payload, deliverAt, priority, partition);
  }
}
