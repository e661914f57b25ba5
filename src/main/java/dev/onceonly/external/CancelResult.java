package dev.onceonly.external;

import dev.onceonly.IntentKey;
import java.util.Objects;

/**
 * The answer of {@link ExternalEffects#cancel}. Cancelling is a transition, not a trip back in
 * time: it stops what has not started, asks the holder of what is in flight to stop, and refuses
 * what already happened.
 */
public sealed interface CancelResult
    permits CancelResult.Cancelled,
        CancelResult.Requested,
        CancelResult.AlreadyCompleted,
        CancelResult.AlreadyFailed {

  /** {@return the intent this answer is about} */
  IntentKey key();

  /**
   * Nothing had started (no claim yet, or waiting for a retry with no attempt that may have applied
   * the effect): the intent is {@link ClaimState#CANCELLED}, and every later claim gets {@link
   * ClaimOutcome.Cancelled}. Cancelling again answers this again with the first reason.
   *
   * @param key the intent
   * @param reason the recorded reason
   */
  record Cancelled(IntentKey key, String reason) implements CancelResult {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param reason the recorded reason
     */
    public Cancelled {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * An effect may be in flight or may have happened, so the intent cannot be declared cancelled
   * yet. {@code state} says which boundary was reached: {@link ClaimState#CANCEL_REQUESTED} (a
   * holder has the claim; it becomes {@link ClaimState#CANCELLED} when the holder abandons or
   * reports a failure that applied nothing, {@link ClaimState#COMPLETED} if it reports success, and
   * {@link ClaimState#UNKNOWN} if its lease runs out) or {@link ClaimState#UNKNOWN} (waiting for
   * reconciliation; {@link ExternalEffects#resolveNotDone} then cancels it).
   *
   * @param key the intent
   * @param state {@link ClaimState#CANCEL_REQUESTED} or {@link ClaimState#UNKNOWN}
   */
  record Requested(IntentKey key, ClaimState state) implements CancelResult {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param state {@link ClaimState#CANCEL_REQUESTED} or {@link ClaimState#UNKNOWN}
     */
    public Requested {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(state, "state");
    }
  }

  /**
   * Refused: the effect already happened. Undo it with a compensation ({@link
   * ExternalEffects#compensate}), a new intent of its own. Nothing changed.
   *
   * @param key the intent
   * @param resultJson the stored result
   */
  record AlreadyCompleted(IntentKey key, String resultJson) implements CancelResult {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param resultJson the stored result
     */
    public AlreadyCompleted {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(resultJson, "resultJson");
    }
  }

  /**
   * Nothing to cancel: the effect did not happen and will not be attempted again. The intent stays
   * {@link ClaimState#FAILED} with its evidence; nothing changed.
   *
   * @param key the intent
   * @param failureClass the class of the final failure
   */
  record AlreadyFailed(IntentKey key, FailureClass failureClass) implements CancelResult {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param failureClass the class of the final failure
     */
    public AlreadyFailed {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(failureClass, "failureClass");
    }
  }
}
