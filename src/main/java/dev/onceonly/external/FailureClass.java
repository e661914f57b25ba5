package dev.onceonly.external;

/**
 * Why an attempt at an external effect failed, as the worker classified the provider's answer. Each
 * class has one defined reaction; none is disguised as another.
 *
 * <p>Every class except {@link #UNKNOWN_AFTER_SEND} asserts that the provider did <em>not</em>
 * apply the effect (it refused, or the request never left). If the request may have been sent and
 * no answer proves otherwise (a timeout, a reset connection, an HTTP 500, a crash of the client
 * after sending), the class is {@link #UNKNOWN_AFTER_SEND}: an HTTP 500 does not prove the effect
 * did not happen.
 *
 * <p>Whenever an earlier attempt of the same intent may have applied the effect, a claim is never
 * reported {@link ClaimState#FAILED}: it becomes {@link ClaimState#UNKNOWN} instead, so that a
 * person or a reconciler looks before anyone says "it did not happen".
 */
public enum FailureClass {
  /**
   * The request was malformed (HTTP 400, a schema error). Reaction: {@link ClaimState#FAILED} at
   * once, no retry; return the error to the caller, who must correct the arguments and submit a new
   * intent (the same request would fail the same way).
   */
  INVALID_ARGUMENTS(false),

  /**
   * There is no authority to act (HTTP 401, 403). Reaction: {@link ClaimState#FAILED} at once, no
   * retry; stop this action and explain the block.
   */
  PERMISSION_DENIED(false),

  /**
   * The provider lacks capacity now and says how long to wait (HTTP 429 with {@code Retry-After}).
   * Reaction: {@link ClaimState#RETRY_WAIT} with the next attempt not before the required wait (nor
   * before the backoff drawn by the retry policy); the attempt counts against the policy's budget
   * of attempts and time, and when the budget is spent the claim gives up into {@link
   * ClaimState#FAILED} with the last error. The next attempt time is stored; nothing sleeps.
   */
  RATE_LIMITED(true),

  /**
   * The resource changed since the arguments were computed (HTTP 409, 412, a stale ETag). Reaction:
   * {@link ClaimState#FAILED}, no retry of the same intent: re-read the resource and submit a new
   * intent with its own key.
   */
  VERSION_CONFLICT(false),

  /**
   * The request may have reached the provider, and no answer says whether it acted (a timeout after
   * sending, a lost response, an HTTP 500 or 502 after sending). Reaction: {@link
   * ClaimState#UNKNOWN}, with the attempt count, the error and the downstream key kept as evidence,
   * until reconciliation checks the provider ({@link ExternalEffects#resolveDone}, {@link
   * ExternalEffects#resolveNotDone}). For an operation declared safe to repeat (the provider
   * deduplicates by the downstream key) it is retried like {@link #TRANSIENT} with the same key,
   * and gives up into {@link ClaimState#UNKNOWN}, never {@link ClaimState#FAILED}.
   */
  UNKNOWN_AFTER_SEND(true),

  /**
   * A bug on this side (a null where none may be, a response that cannot be parsed before anything
   * was sent). Reaction: {@link ClaimState#FAILED} and recorded with its error, no retry: fix the
   * code; never pass it off as the provider's answer. If the bug struck after the request was sent,
   * report {@link #UNKNOWN_AFTER_SEND} instead.
   */
  PROGRAMMING_ERROR(false),

  /**
   * The provider was unavailable and did not act, without demanding a wait (connection refused
   * before sending, HTTP 503 from a gateway that did not forward the request). Reaction: like
   * {@link #RATE_LIMITED} with no required wait: backoff with full jitter within the budget, then
   * {@link ClaimState#FAILED}. It is a class of its own, not a rate limit with zero wait, so that
   * the stored evidence says which of the two happened.
   */
  TRANSIENT(true);

  private final boolean retried;

  FailureClass(boolean retried) {
    this.retried = retried;
  }

  /**
   * Returns whether this class can lead to another attempt of the same intent under the retry
   * policy ({@link #RATE_LIMITED}, {@link #TRANSIENT}, and {@link #UNKNOWN_AFTER_SEND} for
   * operations safe to repeat).
   *
   * @return whether a retry may follow a failure of this class
   */
  public boolean retried() {
    return retried;
  }
}
