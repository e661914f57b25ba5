package dev.onceonly.external;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The answer of {@link ExternalEffects#claim}: the caller now holds the intent and may run the
 * effect ({@link Claimed}), or one of the reasons it must not.
 *
 * <p>These are normal answers, so they are values. Use {@link #fold} or {@code instanceof} to
 * handle each case, or {@link #claimed()} when only a claim matters.
 */
public sealed interface ClaimOutcome
    permits ClaimOutcome.Claimed,
        ClaimOutcome.InProgress,
        ClaimOutcome.Repeated,
        ClaimOutcome.Conflict,
        ClaimOutcome.Unknown,
        ClaimOutcome.RetryLater,
        ClaimOutcome.Failed,
        ClaimOutcome.Cancelled {

  /** {@return the intent this answer is about} */
  IntentKey key();

  /**
   * The caller holds the intent: run the effect with {@link Claim#downstreamKey()}, then report
   * with {@link ExternalEffects#complete} or {@link ExternalEffects#fail}.
   *
   * @param claim the claim
   */
  record Claimed(Claim claim) implements ClaimOutcome {
    /**
     * Refuses nulls.
     *
     * @param claim the claim
     */
    public Claimed {
      Objects.requireNonNull(claim, "claim");
    }

    @Override
    public IntentKey key() {
      return claim.key();
    }
  }

  /**
   * Another holder has a live lease on the intent; it may be running the effect now. Nothing
   * changed. Ask again after {@code retryAfter}.
   *
   * @param key the intent
   * @param retryAfter when the current lease runs out
   * @param cancelRequested whether cancellation has been requested for the intent
   */
  record InProgress(IntentKey key, Instant retryAfter, boolean cancelRequested)
      implements ClaimOutcome {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param retryAfter when the current lease runs out
     * @param cancelRequested whether cancellation has been requested for the intent
     */
    public InProgress {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(retryAfter, "retryAfter");
    }
  }

  /**
   * The effect already happened for the same content; this is its stored result. Do not run it
   * again.
   *
   * @param key the intent
   * @param fingerprint the fingerprint shared by the request and the stored claim
   * @param resultJson the stored result as JSON text
   * @param completedAt when the result was recorded
   */
  record Repeated(IntentKey key, Fingerprint fingerprint, String resultJson, Instant completedAt)
      implements ClaimOutcome {
    private static final ObjectMapper PLAIN = new ObjectMapper();

    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param fingerprint the fingerprint shared by the request and the stored claim
     * @param resultJson the stored result as JSON text
     * @param completedAt when the result was recorded
     */
    public Repeated {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(fingerprint, "fingerprint");
      Objects.requireNonNull(resultJson, "resultJson");
      Objects.requireNonNull(completedAt, "completedAt");
    }

    /**
     * Reads the stored result with a plain {@link ObjectMapper}.
     *
     * @param type the result's type
     * @param <T> the result's type
     * @return the result
     * @throws IllegalArgumentException if the stored JSON cannot be read as {@code type}
     */
    public <T> T result(Class<T> type) {
      return result(PLAIN, type);
    }

    /**
     * Reads the stored result with the given mapper (use the one given to {@link
     * dev.onceonly.OnceOnlyBuilder#objectMapper} if it has modules the result needs).
     *
     * @param mapper the mapper
     * @param type the result's type
     * @param <T> the result's type
     * @return the result
     * @throws IllegalArgumentException if the stored JSON cannot be read as {@code type}
     */
    public <T> T result(ObjectMapper mapper, Class<T> type) {
      Objects.requireNonNull(mapper, "mapper");
      Objects.requireNonNull(type, "type");
      try {
        return mapper.readValue(resultJson, type);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(
            "the stored result cannot be read as " + type.getName() + ": " + e.getOriginalMessage(),
            e);
      }
    }

    /** {@return the stored result as a JSON tree} */
    public JsonNode resultTree() {
      return result(JsonNode.class);
    }
  }

  /**
   * The key already belongs to other content. Nothing ran and nothing was written.
   *
   * @param key the intent
   * @param stored the fingerprint stored for the key
   * @param requested the fingerprint of this request
   */
  record Conflict(IntentKey key, Fingerprint stored, Fingerprint requested)
      implements ClaimOutcome {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param stored the fingerprint stored for the key
     * @param requested the fingerprint of this request
     */
    public Conflict {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(stored, "stored");
      Objects.requireNonNull(requested, "requested");
    }
  }

  /**
   * An attempt may have applied the effect and nothing says whether it did: a lease ran out without
   * completion, or a worker reported {@link FailureClass#UNKNOWN_AFTER_SEND}. It is not run again;
   * reconcile it by asking the provider about {@code downstreamKey}, then {@link
   * ExternalEffects#resolveDone} or {@link ExternalEffects#resolveNotDone}.
   *
   * @param key the intent
   * @param attempts how many attempts were claimed
   * @param lastError the last recorded error (for an expired lease, when it ran out), or null
   * @param downstreamKey the idempotency key the attempts sent to the provider
   * @param cancelRequested whether cancellation was requested (then "not done" means cancelled)
   */
  record Unknown(
      IntentKey key, int attempts, String lastError, String downstreamKey, boolean cancelRequested)
      implements ClaimOutcome {
    /**
     * Refuses a null key or downstream key.
     *
     * @param key the intent
     * @param attempts how many attempts were claimed
     * @param lastError the last recorded error (for an expired lease, when it ran out), or null
     * @param downstreamKey the idempotency key the attempts sent to the provider
     * @param cancelRequested whether cancellation was requested (then "not done" means cancelled)
     */
    public Unknown {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(downstreamKey, "downstreamKey");
    }
  }

  /**
   * An earlier attempt failed without applying the effect and the next one is not allowed before
   * {@code nextAttemptAt} (a provider's required wait, or backoff). Nothing changed.
   *
   * @param key the intent
   * @param nextAttemptAt the earliest time of the next attempt
   * @param attempts how many attempts were claimed
   * @param failureClass the class of the last failure, or null if no failure caused the wait
   * @param lastError the last failure's error, or null
   */
  record RetryLater(
      IntentKey key,
      Instant nextAttemptAt,
      int attempts,
      FailureClass failureClass,
      String lastError)
      implements ClaimOutcome {
    /**
     * Refuses a null key or time.
     *
     * @param key the intent
     * @param nextAttemptAt the earliest time of the next attempt
     * @param attempts how many attempts were claimed
     * @param failureClass the class of the last failure, or null if no failure caused the wait
     * @param lastError the last failure's error, or null
     */
    public RetryLater {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    }
  }

  /**
   * The effect did not happen and will not be attempted again under this key: the failure was final
   * (see {@link FailureClass}) or the retry budget ran out.
   *
   * @param key the intent
   * @param failureClass the class of the failure that ended it
   * @param error the recorded error
   * @param attempts how many attempts were claimed
   */
  record Failed(IntentKey key, FailureClass failureClass, String error, int attempts)
      implements ClaimOutcome {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param failureClass the class of the failure that ended it
     * @param error the recorded error
     * @param attempts how many attempts were claimed
     */
    public Failed {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(failureClass, "failureClass");
      Objects.requireNonNull(error, "error");
    }
  }

  /**
   * The intent was cancelled; no effect starts under this key.
   *
   * @param key the intent
   * @param reason the reason given to {@link ExternalEffects#cancel}
   */
  record Cancelled(IntentKey key, String reason) implements ClaimOutcome {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param reason the reason given to {@link ExternalEffects#cancel}
     */
    public Cancelled {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** {@return the claim if this is {@link Claimed}, or empty} */
  default Optional<Claim> claimed() {
    return this instanceof Claimed c ? Optional.of(c.claim()) : Optional.empty();
  }

  /**
   * Applies the function that matches this answer and returns its value.
   *
   * @param claimed called for {@link Claimed}
   * @param inProgress called for {@link InProgress}
   * @param repeated called for {@link Repeated}
   * @param conflict called for {@link Conflict}
   * @param unknown called for {@link Unknown}
   * @param retryLater called for {@link RetryLater}
   * @param failed called for {@link Failed}
   * @param cancelled called for {@link Cancelled}
   * @param <R> the common return type
   * @return what the matching function returned
   */
  default <R> R fold(
      Function<? super Claimed, ? extends R> claimed,
      Function<? super InProgress, ? extends R> inProgress,
      Function<? super Repeated, ? extends R> repeated,
      Function<? super Conflict, ? extends R> conflict,
      Function<? super Unknown, ? extends R> unknown,
      Function<? super RetryLater, ? extends R> retryLater,
      Function<? super Failed, ? extends R> failed,
      Function<? super Cancelled, ? extends R> cancelled) {
    if (this instanceof Claimed c) {
      return claimed.apply(c);
    }
    if (this instanceof InProgress p) {
      return inProgress.apply(p);
    }
    if (this instanceof Repeated r) {
      return repeated.apply(r);
    }
    if (this instanceof Conflict c) {
      return conflict.apply(c);
    }
    if (this instanceof Unknown u) {
      return unknown.apply(u);
    }
    if (this instanceof RetryLater r) {
      return retryLater.apply(r);
    }
    if (this instanceof Failed f) {
      return failed.apply(f);
    }
    return cancelled.apply((Cancelled) this);
  }
}
