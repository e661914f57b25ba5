package dev.onceonly.external;

import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import java.time.Instant;
import java.util.Objects;

/**
 * A worker's hold on one intent's external effect, handed out by {@link ExternalEffects#claim}.
 *
 * <p>Every claim of an intent increments its fencing number; {@link ExternalEffects#complete} and
 * {@link ExternalEffects#fail} succeed only while {@code fence} is still the intent's current one,
 * so a holder whose lease was taken over cannot overwrite the winner's result. Send {@code
 * downstreamKey} to the provider as its idempotency key (for example the {@code Idempotency-Key}
 * header): it is the same for every attempt and every takeover of the intent.
 *
 * @param key the intent
 * @param operation the operation's name
 * @param fingerprint the fingerprint of operation and arguments
 * @param fence the fencing number of this claim
 * @param attempt which attempt this is, from 1
 * @param downstreamKey the provider's idempotency key for this intent
 * @param leaseUntil when the lease runs out; after it, the effect must not be started
 */
public record Claim(
    IntentKey key,
    String operation,
    Fingerprint fingerprint,
    long fence,
    int attempt,
    String downstreamKey,
    Instant leaseUntil) {
  /**
   * Refuses nulls and non-positive numbers.
   *
   * @param key the intent
   * @param operation the operation's name
   * @param fingerprint the fingerprint of operation and arguments
   * @param fence the fencing number of this claim
   * @param attempt which attempt this is, from 1
   * @param downstreamKey the provider's idempotency key for this intent
   * @param leaseUntil when the lease runs out; after it, the effect must not be started
   */
  public Claim {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(downstreamKey, "downstreamKey");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    if (fence <= 0) {
      throw new IllegalArgumentException("fence must be > 0");
    }
    if (attempt <= 0) {
      throw new IllegalArgumentException("attempt must be > 0");
    }
  }
}
