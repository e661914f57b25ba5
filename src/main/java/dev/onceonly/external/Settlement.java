package dev.onceonly.external;

import dev.onceonly.IntentKey;
import java.time.Instant;
import java.util.Objects;

/**
 * The answer of a holder's report on its claim ({@link ExternalEffects#complete}, {@link
 * ExternalEffects#fail}, {@link ExternalEffects#abandon}): the state the intent moved to, or {@link
 * Fenced} when the report came from a claim that no longer holds the intent and changed nothing.
 */
public sealed interface Settlement
    permits Settlement.Completed,
        Settlement.RetryScheduled,
        Settlement.Failed,
        Settlement.Unknown,
        Settlement.Cancelled,
        Settlement.Fenced {

  /** {@return the intent this answer is about} */
  IntentKey key();

  /**
   * The result was recorded; every later claim of the intent gets it as {@link
   * ClaimOutcome.Repeated}.
   *
   * @param key the intent
   * @param fence the fencing number of the claim that completed
   * @param resultJson the stored result as JSON text
   */
  record Completed(IntentKey key, long fence, String resultJson) implements Settlement {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param fence the fencing number of the claim that completed
     * @param resultJson the stored result as JSON text
     */
    public Completed {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(resultJson, "resultJson");
    }
  }

  /**
   * The attempt failed without applying the effect and another one is allowed from {@code
   * nextAttemptAt}; nothing sleeps until then.
   *
   * @param key the intent
   * @param nextAttemptAt the earliest time of the next attempt
   * @param attempts how many attempts were claimed so far
   * @param failureClass the class of the failure, or null if the holder abandoned without failing
   */
  record RetryScheduled(
      IntentKey key, Instant nextAttemptAt, int attempts, FailureClass failureClass)
      implements Settlement {
    /**
     * Refuses a null key or time.
     *
     * @param key the intent
     * @param nextAttemptAt the earliest time of the next attempt
     * @param attempts how many attempts were claimed so far
     * @param failureClass the class of the failure, or null if the holder abandoned without failing
     */
    public RetryScheduled {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    }
  }

  /**
   * The effect did not happen and will not be attempted again under this key.
   *
   * @param key the intent
   * @param failureClass the class of the final failure
   * @param error the recorded error
   * @param attempts how many attempts were claimed
   */
  record Failed(IntentKey key, FailureClass failureClass, String error, int attempts)
      implements Settlement {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param failureClass the class of the final failure
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
   * Whether the effect happened is not known; the intent waits for reconciliation with its evidence
   * kept.
   *
   * @param key the intent
   * @param attempts how many attempts were claimed
   * @param error the recorded error
   */
  record Unknown(IntentKey key, int attempts, String error) implements Settlement {
    /**
     * Refuses a null key.
     *
     * @param key the intent
     * @param attempts how many attempts were claimed
     * @param error the recorded error
     */
    public Unknown {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * Cancellation had been requested and the holder reported that the effect was not applied: the
   * intent is cancelled.
   *
   * @param key the intent
   * @param reason the cancellation's reason
   */
  record Cancelled(IntentKey key, String reason) implements Settlement {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param reason the cancellation's reason
     */
    public Cancelled {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The claim no longer holds the intent: another claim took over (the fence moved on), or the
   * intent was settled or reconciled meanwhile. Nothing was changed.
   *
   * @param key the intent
   * @param fence the stale fencing number
   * @param current the intent's state now, or null if it has no claim row
   */
  record Fenced(IntentKey key, long fence, ClaimState current) implements Settlement {
    /**
     * Refuses a null key.
     *
     * @param key the intent
     * @param fence the stale fencing number
     * @param current the intent's state now, or null if it has no claim row
     */
    public Fenced {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * Returns this answer unless the claim was fenced off.
   *
   * @return this settlement
   * @throws FencedException if this is {@link Fenced}
   */
  default Settlement orThrow() {
    if (this instanceof Fenced f) {
      throw new FencedException(f.key(), f.fence(), f.current());
    }
    return this;
  }
}
