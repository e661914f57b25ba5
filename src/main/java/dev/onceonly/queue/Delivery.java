package dev.onceonly.queue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Objects;

/**
 * One delivery of a message to a worker. The same message may be delivered more than once (a worker
 * crashed, a lease expired): the delivery is identified by its lease, never used to deduplicate;
 * the message's key and the receipt store do that.
 *
 * @param lease the hold on the message; needed to acknowledge it
 * @param payload the message's JSON payload
 * @param attempt which delivery this is, from 1
 * @param largePayload whether a large payload is stored by reference (read it with {@link
 *     JobQueue#largePayload})
 * @param enqueuedAt when the message was sent
 * @param traceparent the W3C {@code traceparent} of the sending thread, recorded at the send by the
 *     store's {@link dev.onceonly.TraceContext}; null when there was none
 */
public record Delivery(
    Lease lease,
    JsonNode payload,
    int attempt,
    boolean largePayload,
    Instant enqueuedAt,
    String traceparent) {
  /**
   * A delivery without a recorded trace context.
   *
   * @param lease the hold on the message; needed to acknowledge it
   * @param payload the message's JSON payload
   * @param attempt which delivery this is, from 1
   * @param largePayload whether a large payload is stored by reference
   * @param enqueuedAt when the message was sent
   */
  public Delivery(
      Lease lease, JsonNode payload, int attempt, boolean largePayload, Instant enqueuedAt) {
    this(lease, payload, attempt, largePayload, enqueuedAt, null);
  }

  /**
   * Refuses nulls but the traceparent.
   *
   * @param lease the hold on the message; needed to acknowledge it
   * @param payload the message's JSON payload
   * @param attempt which delivery this is, from 1
   * @param largePayload whether a large payload is stored by reference (read it with {@link
   *     JobQueue#largePayload})
   * @param enqueuedAt when the message was sent
   * @param traceparent the sending thread's W3C {@code traceparent}, or null
   */
  public Delivery {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(enqueuedAt, "enqueuedAt");
  }

  /** {@return the queue} */
  public String queue() {
    return lease.queue();
  }

  /** {@return the message's key} */
  public String key() {
    return lease.key();
  }
}
