package dev.onceonly.queue;

import dev.onceonly.Bounds;
import java.time.Instant;
import java.util.Objects;

/**
 * A message to send: its queue, its key (unique in the queue while the message waits or is in
 * flight), its JSON payload and when to deliver it.
 *
 * @param queue the queue's name
 * @param key the message's key
 * @param payload a Jackson tree or any value Jackson turns into one
 * @param deliverAt when it becomes due, or {@code null} for now
 */
public record Message(String queue, String key, Object payload, Instant deliverAt) {
  /**
   * Refuses a null queue, key or payload.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload a Jackson tree or any value Jackson turns into one
   * @param deliverAt when it becomes due, or {@code null} for now; in years 1 to 9999
   * @throws IllegalArgumentException if {@code deliverAt} lies outside years 1 to 9999
   */
  public Message {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(payload, "payload");
    if (deliverAt != null) {
      Bounds.instant(deliverAt, "deliverAt");
    }
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
    return new Message(queue, key, payload, Objects.requireNonNull(at, "at"));
  }
}
