package dev.onceonly.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;

/**
 * A clock that stands still until a test moves it, for a store built with {@link
 * dev.onceonly.OnceOnlyBuilder#clock}: retries, leases, retention and pending ages then happen when
 * the test says, not after real waits. {@link OnceOnlyExtension} gives every test one.
 *
 * <p>Thread-safe: a worker's threads may read it while the test moves it.
 */
public final class MutableClock implements InstantSource {
  private volatile Instant now;

  /**
   * Creates a clock standing at {@code start}.
   *
   * @param start the first instant it tells
   */
  public MutableClock(Instant start) {
    this.now = Objects.requireNonNull(start, "start");
  }

  /**
   * Creates a clock standing at an instant written as {@link Instant#parse} reads it.
   *
   * @param instant such as {@code 2026-01-01T00:00:00Z}
   * @return the clock
   */
  public static MutableClock at(String instant) {
    return new MutableClock(Instant.parse(instant));
  }

  @Override
  public Instant instant() {
    return now;
  }

  /**
   * Moves the clock forward (or back, for a negative duration).
   *
   * @param d how far
   */
  public synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  /**
   * Sets the clock to an instant.
   *
   * @param instant the new now
   */
  public void set(Instant instant) {
    now = Objects.requireNonNull(instant, "instant");
  }
}
