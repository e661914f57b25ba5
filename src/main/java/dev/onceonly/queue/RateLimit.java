package dev.onceonly.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * A rate limit of a queue: at most {@code claims} messages claimed in any {@code window}, counted
 * over every instance on the database ({@code OnceOnlyBuilder.rateLimit} for the whole queue,
 * {@code OnceOnlyBuilder.rateLimitPerPartition} for each partition). Immutable and thread-safe.
 *
 * <p>The window <b>slides</b>: each claim is recorded with its time in the claim's own transaction,
 * and a claim takes a message only while fewer than {@code claims} were recorded in the {@code
 * window} before it. So every stretch of time of the window's length, wherever it starts, holds at
 * most {@code claims} claims, and a backlog is claimed at the full rate without a burst at a
 * window's edge: a fixed window would let {@code 2 * claims} through across the edge of two
 * windows, which is what a downstream service's own limit usually refuses. The price is one row per
 * claimed message for the length of a window, which later claims delete.
 *
 * @param claims the most messages claimed in a window, 1 to 100,000
 * @param window the length of the sliding window, at least 1 millisecond, at most 1 day
 */
public record RateLimit(int claims, Duration window) {
  /** The longest window. */
  public static final Duration MAX_WINDOW = Duration.ofDays(1);

  /**
   * Checks the bounds.
   *
   * @param claims the most messages claimed in a window, 1 to 100,000
   * @param window the length of the window, 1 ms to 1 day
   * @throws IllegalArgumentException if either is out of range
   */
  public RateLimit {
    if (claims < 1 || claims > 100_000) {
      throw new IllegalArgumentException("claims must be between 1 and 100000");
    }
    Objects.requireNonNull(window, "window");
    if (window.compareTo(Duration.ofMillis(1)) < 0 || window.compareTo(MAX_WINDOW) > 0) {
      throw new IllegalArgumentException("window must be between 1 ms and 1 day");
    }
  }

  /**
   * Returns a limit of {@code claims} per {@code window}.
   *
   * @param claims the most messages claimed in a window, 1 to 100,000
   * @param window the length of the window, 1 ms to 1 day
   * @return the limit
   * @throws IllegalArgumentException if either is out of range
   */
  public static RateLimit of(int claims, Duration window) {
    return new RateLimit(claims, window);
  }
}
