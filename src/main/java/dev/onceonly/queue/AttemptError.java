package dev.onceonly.queue;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One failed attempt of a message, as {@link JobQueue#attemptErrors} keeps it: written in the
 * transaction that records the failure (the retry, or the move to the dead letters), and kept for
 * the newest attempts of the message only ({@code OnceOnlyBuilder.attemptErrorsKept}, default
 * {@value #DEFAULT_KEPT}). Its texts are bounded when stored: the message to {@value
 * #MAX_MESSAGE_CHARS} characters, the trace to its first {@value #MAX_TRACE_LINES} lines (and the
 * {@code Caused by:} lines after them) and {@value #MAX_TRACE_CHARS} characters; a text cut ends
 * with {@code …}.
 *
 * @param attempt which delivery of the message failed, from 1 (counted again from 1 after a
 *     requeue)
 * @param leaseNumber the number of the lease that failed ({@link Lease#fence()})
 * @param at when the failure was recorded, at the store's clock
 * @param errorClass the exception's class name, or empty when the failure was given as text ({@link
 *     JobQueue#nack(Lease, String)})
 * @param message the exception's message, or the text the failure was given with
 * @param trace the first lines of the exception's stack trace, or empty when there was no exception
 */
public record AttemptError(
    int attempt,
    long leaseNumber,
    Instant at,
    Optional<String> errorClass,
    String message,
    Optional<String> trace) {
  /** How many attempts of one message are kept by default: the newest ten. */
  public static final int DEFAULT_KEPT = 10;

  /** The most characters of an error's message kept. */
  public static final int MAX_MESSAGE_CHARS = 2_000;

  /** The most lines of a stack trace kept, not counting its {@code Caused by:} lines. */
  public static final int MAX_TRACE_LINES = 10;

  /** The most characters of a stack trace kept. */
  public static final int MAX_TRACE_CHARS = 4_096;

  /**
   * Refuses nulls.
   *
   * @param attempt which delivery failed, from 1
   * @param leaseNumber the number of the lease that failed
   * @param at when the failure was recorded
   * @param errorClass the exception's class name, or empty
   * @param message the exception's message, or the failure's text
   * @param trace the first lines of the stack trace, or empty
   */
  public AttemptError {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(trace, "trace");
  }
}
