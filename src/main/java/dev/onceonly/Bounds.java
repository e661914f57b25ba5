package dev.onceonly;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The bounds on every duration and instant the library accepts, and the checks that enforce them:
 * builders, stores and queues all refuse what lies outside, with the same message.
 *
 * <p>Why bounds: every duration is added to a clock reading and stored as epoch milliseconds (or a
 * PostgreSQL {@code timestamptz}), so a duration of {@code Long.MAX_VALUE} milliseconds wraps to a
 * past date (a lease that is already over) and {@code Duration.ofSeconds(Long.MAX_VALUE)} makes the
 * arithmetic throw at every later step. Every duration the library accepts is therefore at most
 * {@link #MAX_DURATION} (100 years, far beyond any sensible lease or retention), and every instant
 * lies in years 1 to 9999 ({@link #MIN_INSTANT} to {@link #MAX_INSTANT}), which both dialects store
 * and which stay within range after adding such a duration.
 */
public final class Bounds {
  private Bounds() {}

  /** The longest duration accepted anywhere: 36,525 days (100 years). */
  public static final Duration MAX_DURATION = Duration.ofDays(36_525);

  /** The earliest instant accepted: 0001-01-01T00:00:00Z. */
  public static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");

  /** The latest instant accepted: 9999-12-31T23:59:59.999Z. */
  public static final Instant MAX_INSTANT = Instant.parse("9999-12-31T23:59:59.999Z");

  /**
   * Returns {@code d} if it is positive and at most {@link #MAX_DURATION}.
   *
   * @param d the duration
   * @param name the argument's name, for the message
   * @return {@code d}
   * @throws NullPointerException if {@code d} is null
   * @throws IllegalArgumentException ({@code "<name> must be > 0"}, {@code "<name> must be <= 100
   *     years (P36525D)"}) otherwise
   */
  public static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0");
    }
    return bounded(d, name);
  }

  /**
   * Returns {@code d} if it is zero or positive and at most {@link #MAX_DURATION}.
   *
   * @param d the duration
   * @param name the argument's name, for the message
   * @return {@code d}
   * @throws NullPointerException if {@code d} is null
   * @throws IllegalArgumentException ({@code "<name> must be >= 0"}, {@code "<name> must be <= 100
   *     years (P36525D)"}) otherwise
   */
  public static Duration nonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must be >= 0");
    }
    return bounded(d, name);
  }

  private static Duration bounded(Duration d, String name) {
    if (d.compareTo(MAX_DURATION) > 0) {
      throw new IllegalArgumentException(
          name + " must be <= 100 years (" + MAX_DURATION + "), got " + d);
    }
    return d;
  }

  /**
   * Returns {@code at} if it lies in years 1 to 9999.
   *
   * @param at the instant
   * @param name the argument's name, for the message
   * @return {@code at}
   * @throws NullPointerException if {@code at} is null
   * @throws IllegalArgumentException ({@code "<name> must be between 0001-01-01T00:00:00Z and
   *     9999-12-31T23:59:59.999Z"}) otherwise
   */
  public static Instant instant(Instant at, String name) {
    Objects.requireNonNull(at, name);
    if (at.isBefore(MIN_INSTANT) || at.isAfter(MAX_INSTANT)) {
      throw new IllegalArgumentException(
          name + " must be between " + MIN_INSTANT + " and " + MAX_INSTANT + ", got " + at);
    }
    return at;
  }
}
