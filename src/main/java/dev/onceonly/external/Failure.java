package dev.onceonly.external;

import dev.onceonly.Bounds;
import java.time.Duration;
import java.util.Objects;

/**
 * A failed attempt, as the worker reports it to {@link ExternalEffects#fail}: its class, the error
 * text kept as evidence (bounded when stored), and the wait the provider demands before the next
 * attempt, if any. Every {@link FailureClass} has a factory named after it: {@link
 * #invalidArguments}, {@link #permissionDenied}, {@link #rateLimited}, {@link #versionConflict},
 * {@link #unknownAfterSend}, {@link #programmingError} and {@link #transientFailure}.
 *
 * @param failureClass what kind of failure this is; decides the reaction
 * @param error what happened, for a person (the provider's message, an exception's text)
 * @param requiredWait the provider's required wait ({@code Retry-After}); zero unless {@link
 *     FailureClass#RATE_LIMITED}
 */
public record Failure(FailureClass failureClass, String error, Duration requiredWait) {
  /**
   * Refuses nulls, a negative wait, and a wait on a class other than a rate limit.
   *
   * @param failureClass what kind of failure this is; decides the reaction
   * @param error what happened, for a person (the provider's message, an exception's text)
   * @param requiredWait the provider's required wait ({@code Retry-After}); zero unless {@link
   *     FailureClass#RATE_LIMITED}; at most 100 years
   * @throws IllegalArgumentException if {@code requiredWait} is negative or longer than 100 years
   */
  public Failure {
    Objects.requireNonNull(failureClass, "failureClass");
    Objects.requireNonNull(error, "error");
    Bounds.nonNegative(requiredWait, "requiredWait"); // at most 100 years
    if (!requiredWait.isZero() && failureClass != FailureClass.RATE_LIMITED) {
      throw new IllegalArgumentException("only RATE_LIMITED carries a required wait");
    }
  }

  /**
   * Returns a failure of the given class with no required wait.
   *
   * @param failureClass the class
   * @param error what happened
   * @return the failure
   */
  public static Failure of(FailureClass failureClass, String error) {
    return new Failure(failureClass, error, Duration.ZERO);
  }

  /**
   * Returns a refusal of the request as malformed (HTTP 400, a schema error): the claim fails at
   * once, without a retry, and the caller must correct the arguments under a new intent.
   *
   * @param error what happened
   * @return the failure
   */
  public static Failure invalidArguments(String error) {
    return of(FailureClass.INVALID_ARGUMENTS, error);
  }

  /**
   * Returns a refusal for want of authority (HTTP 401, 403): the claim fails at once, without a
   * retry.
   *
   * @param error what happened
   * @return the failure
   */
  public static Failure permissionDenied(String error) {
    return of(FailureClass.PERMISSION_DENIED, error);
  }

  /**
   * Returns a rate limit that demands a wait before the next attempt.
   *
   * @param error what happened
   * @param requiredWait the provider's required wait, zero or positive
   * @return the failure
   */
  public static Failure rateLimited(String error, Duration requiredWait) {
    return new Failure(FailureClass.RATE_LIMITED, error, requiredWait);
  }

  /**
   * Returns a refusal because the resource changed since the arguments were computed (HTTP 409,
   * 412, a stale ETag): the claim fails without a retry; re-read the resource and submit a new
   * intent.
   *
   * @param error what happened
   * @return the failure
   */
  public static Failure versionConflict(String error) {
    return of(FailureClass.VERSION_CONFLICT, error);
  }

  /**
   * Returns an unavailability that certainly did not apply the effect and demands no wait
   * (connection refused before sending, a gateway's HTTP 503 that did not forward the request):
   * retried with backoff within the retry policy's budget. Named so because {@code transient} is a
   * Java keyword.
   *
   * @param error what happened
   * @return the failure
   */
  public static Failure transientFailure(String error) {
    return of(FailureClass.TRANSIENT, error);
  }

  /**
   * Returns a failure whose outcome is unknown: the request may have been sent.
   *
   * @param error what happened
   * @return the failure
   */
  public static Failure unknownAfterSend(String error) {
    return of(FailureClass.UNKNOWN_AFTER_SEND, error);
  }

  /**
   * Returns a programming error on this side, recorded with the exception's class and message. Use
   * it only if the request was certainly not sent.
   *
   * @param bug the exception
   * @return the failure
   */
  public static Failure programmingError(Throwable bug) {
    Objects.requireNonNull(bug, "bug");
    return of(FailureClass.PROGRAMMING_ERROR, bug.getClass().getName() + ": " + bug.getMessage());
  }
}
