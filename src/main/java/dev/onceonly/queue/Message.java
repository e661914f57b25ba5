package dev.onceonly.queue;

import dev.onceonly.Bounds;
import java.time.Instant;
import java.util.Objects;

/**
 * A message to send: its queue, its key (unique in the queue while the message waits or is in
 * flight), its JSON payload, when to deliver it and its priority.
 *
 * <p>Among the due messages of a queue, a claim takes the highest priority first and the oldest
 * first within one priority; one claim in four a queue makes takes the oldest due messages whatever
 * their priority, so a low-priority message is not held back for ever by a steady stream of higher
 * ones.
 *
 * @param queue the queue's name
 * @param key the message's key
 * @param payload a Jackson tree or any value Jackson turns into one
 * @param deliverAt when it becomes due, or {@code null} for now
 * @param priority higher first, {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}; 0 by default
 */
public record Message(String queue, String key, Object payload, Instant deliverAt, int priority) {
  /** The lowest priority. */
  public static final int MIN_PRIORITY = -1000;

  /** The highest priority. */
  public static final int MAX_PRIORITY = 1000;

  /**
   * Refuses a null queue, key or payload, and a priority out of range.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload a Jackson tree or any value Jackson turns into one
   * @param deliverAt when it becomes due, or {@code null} for now; in years 1 to 9999
   * @param priority higher first, {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}
   * @throws IllegalArgumentException if {@code deliverAt} lies outside years 1 to 9999, or the
   *     priority out of its range
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
  }

  /**
   * A message of priority 0.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload a Jackson tree or any value Jackson turns into one
   * @param deliverAt when it becomes due, or {@code null} for now; in years 1 to 9999
   */
  public Message(String queue, String key, Object payload, Instant deliverAt) {
    this(queue, key, payload, deliverAt, 0);
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
    return new Message(queue, key, payload, Objects.requireNonNull(at, "at"), priority);
  }

  /**
   * Returns a copy with another priority.
   *
   * @param priority higher first, {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}
   * @return the copy
   */
  public Message priority(int priority) {
    return new Message(queue, key, payload, deliverAt, priority);
  }
}
