package dev.onceonly.external;

import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything stored about one intent's external effect: the evidence a reconciler or a person needs
 * to decide what happened. Returned by {@link ExternalEffects#find} and {@link
 * ExternalEffects#unknown}.
 *
 * @param key the intent
 * @param operation the operation's name, or null if the intent was cancelled before any claim
 * @param fingerprint the fingerprint, or null if the intent was cancelled before any claim
 * @param argumentsJson the canonical arguments, or null if cancelled before any claim
 * @param state where it stands
 * @param fence the current fencing number (0 before any claim)
 * @param attempts how many attempts were claimed
 * @param downstreamKey the idempotency key sent to the provider
 * @param maybeApplied whether some attempt may have reached the provider without a known outcome
 * @param failureClass the class of the last failure, or null
 * @param lastError the last recorded error, or null
 * @param resultJson the result once completed, or null
 * @param leaseUntil when the current lease runs out, or null if none is held
 * @param nextAttemptAt the earliest next attempt while waiting for a retry, or null
 * @param firstAttemptAt when the first attempt was claimed, or null
 * @param cancelReason the reason of a requested cancellation, or null
 * @param cancelRequestedAt when cancellation was requested, or null
 * @param compensates the intent this one compensates, or null
 * @param createdAt when the row was created
 * @param updatedAt when it last changed
 * @param completedAt when the result was recorded, or null
 * @param probes how many status probes were taken for the current unknown outcome (every new claim
 *     starts again from 0)
 * @param lastProbeAnswer what the last status probe answered, for people ({@code applied}, {@code
 *     not applied: }reason, {@code still unknown: }reason, {@code failed: }error, {@code timed out
 *     after }timeout), bounded; null if none ran
 * @param lastProbeAt when the last status probe answered, or null
 * @param nextProbeAt the earliest next status probe, or null if none is scheduled
 */
public record ClaimRecord(
    IntentKey key,
    String operation,
    Fingerprint fingerprint,
    String argumentsJson,
    ClaimState state,
    long fence,
    int attempts,
    String downstreamKey,
    boolean maybeApplied,
    FailureClass failureClass,
    String lastError,
    String resultJson,
    Instant leaseUntil,
    Instant nextAttemptAt,
    Instant firstAttemptAt,
    String cancelReason,
    Instant cancelRequestedAt,
    IntentKey compensates,
    Instant createdAt,
    Instant updatedAt,
    Instant completedAt,
    int probes,
    String lastProbeAnswer,
    Instant lastProbeAt,
    Instant nextProbeAt) {
  /**
   * Refuses nulls where the row always has a value.
   *
   * @param key the intent
   * @param operation the operation's name, or null if the intent was cancelled before any claim
   * @param fingerprint the fingerprint, or null if the intent was cancelled before any claim
   * @param argumentsJson the canonical arguments, or null if cancelled before any claim
   * @param state where it stands
   * @param fence the current fencing number (0 before any claim)
   * @param attempts how many attempts were claimed
   * @param downstreamKey the idempotency key sent to the provider
   * @param maybeApplied whether some attempt may have reached the provider without a known outcome
   * @param failureClass the class of the last failure, or null
   * @param lastError the last recorded error, or null
   * @param resultJson the result once completed, or null
   * @param leaseUntil when the current lease runs out, or null if none is held
   * @param nextAttemptAt the earliest next attempt while waiting for a retry, or null
   * @param firstAttemptAt when the first attempt was claimed, or null
   * @param cancelReason the reason of a requested cancellation, or null
   * @param cancelRequestedAt when cancellation was requested, or null
   * @param compensates the intent this one compensates, or null
   * @param createdAt when the row was created
   * @param updatedAt when it last changed
   * @param completedAt when the result was recorded, or null
   * @param probes how many status probes were taken for the current unknown outcome
   * @param lastProbeAnswer what the last status probe answered, or null
   * @param lastProbeAt when the last status probe answered, or null
   * @param nextProbeAt the earliest next status probe, or null
   */
  public ClaimRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(downstreamKey, "downstreamKey");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if (probes < 0) {
      throw new IllegalArgumentException("probes must be >= 0");
    }
  }

  /**
   * A record of a claim never probed, as stored before status probes existed.
   *
   * @param key the intent
   * @param operation the operation's name, or null if the intent was cancelled before any claim
   * @param fingerprint the fingerprint, or null if the intent was cancelled before any claim
   * @param argumentsJson the canonical arguments, or null if cancelled before any claim
   * @param state where it stands
   * @param fence the current fencing number (0 before any claim)
   * @param attempts how many attempts were claimed
   * @param downstreamKey the idempotency key sent to the provider
   * @param maybeApplied whether some attempt may have reached the provider without a known outcome
   * @param failureClass the class of the last failure, or null
   * @param lastError the last recorded error, or null
   * @param resultJson the result once completed, or null
   * @param leaseUntil when the current lease runs out, or null if none is held
   * @param nextAttemptAt the earliest next attempt while waiting for a retry, or null
   * @param firstAttemptAt when the first attempt was claimed, or null
   * @param cancelReason the reason of a requested cancellation, or null
   * @param cancelRequestedAt when cancellation was requested, or null
   * @param compensates the intent this one compensates, or null
   * @param createdAt when the row was created
   * @param updatedAt when it last changed
   * @param completedAt when the result was recorded, or null
   */
  public ClaimRecord(
      IntentKey key,
      String operation,
      Fingerprint fingerprint,
      String argumentsJson,
      ClaimState state,
      long fence,
      int attempts,
      String downstreamKey,
      boolean maybeApplied,
      FailureClass failureClass,
      String lastError,
      String resultJson,
      Instant leaseUntil,
      Instant nextAttemptAt,
      Instant firstAttemptAt,
      String cancelReason,
      Instant cancelRequestedAt,
      IntentKey compensates,
      Instant createdAt,
      Instant updatedAt,
      Instant completedAt) {
    this(
        key,
        operation,
        fingerprint,
        argumentsJson,
        state,
        fence,
        attempts,
        downstreamKey,
        maybeApplied,
        failureClass,
        lastError,
        resultJson,
        leaseUntil,
        nextAttemptAt,
        firstAttemptAt,
        cancelReason,
        cancelRequestedAt,
        compensates,
        createdAt,
        updatedAt,
        completedAt,
        0,
        null,
        null,
        null);
  }

  /** {@return the stored result, or empty unless completed} */
  public Optional<String> result() {
    return Optional.ofNullable(resultJson);
  }
}
