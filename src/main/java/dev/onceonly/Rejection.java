package dev.onceonly;

import java.time.Instant;
import java.util.Objects;

/**
 * A delivery that could not be processed, as kept by the {@link RejectionStore}.
 *
 * @param deliveryId the delivery's id
 * @param reason why it was rejected, cut to the configured bound
 * @param bodyExcerpt the start of the body, cut to the configured number of UTF-8 bytes
 * @param bodyBytes the size of the whole body in UTF-8 bytes
 * @param rejectedAt when it was recorded
 */
public record Rejection(
    String deliveryId, String reason, String bodyExcerpt, long bodyBytes, Instant rejectedAt) {
  /**
   * Refuses nulls.
   *
   * @param deliveryId the delivery's id
   * @param reason why it was rejected, cut to the configured bound
   * @param bodyExcerpt the start of the body, cut to the configured number of UTF-8 bytes
   * @param bodyBytes the size of the whole body in UTF-8 bytes
   * @param rejectedAt when it was recorded
   */
  public Rejection {
    Objects.requireNonNull(deliveryId, "deliveryId");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(bodyExcerpt, "bodyExcerpt");
    Objects.requireNonNull(rejectedAt, "rejectedAt");
  }

  /** {@return whether the excerpt is shorter than the body} */
  public boolean truncated() {
    return bodyExcerpt.getBytes(java.nio.charset.StandardCharsets.UTF_8).length < bodyBytes;
  }
}
