package dev.onceonly;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link ReceiptStore} remembers of a step that ran: its fingerprint, its result as JSON
 * (absent once only a tombstone remains), and its retention times.
 *
 * @param key the intent
 * @param operation the operation's name
 * @param fingerprint the fingerprint of the request that ran
 * @param resultJson the stored result as JSON text, or {@code null} for a tombstone
 * @param createdAt when the step committed
 * @param expiresAt when the result stops being returned
 * @param forgetAt when the tombstone is dropped and the key may run again
 */
public record Receipt(
    IntentKey key,
    String operation,
    Fingerprint fingerprint,
    String resultJson,
    Instant createdAt,
    Instant expiresAt,
    Instant forgetAt) {
  /**
   * Refuses nulls other than the result.
   *
   * @param key the intent
   * @param operation the operation's name
   * @param fingerprint the fingerprint of the request that ran
   * @param resultJson the stored result as JSON text, or {@code null} for a tombstone
   * @param createdAt when the step committed
   * @param expiresAt when the result stops being returned
   * @param forgetAt when the tombstone is dropped and the key may run again
   */
  public Receipt {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
    Objects.requireNonNull(forgetAt, "forgetAt");
  }

  /** {@return the stored result, or empty for a tombstone} */
  public Optional<String> result() {
    return Optional.ofNullable(resultJson);
  }
}
