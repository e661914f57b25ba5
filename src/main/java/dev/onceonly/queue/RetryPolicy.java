package dev.onceonly.queue;

import dev.onceonly.Bounds;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When to try a failed message again: exponential backoff with full jitter, capped, with a limit on
 * attempts and on total time.
 *
 * <p>After {@code n} failed attempts, the delay before the next one is drawn uniformly from {@code
 * [0, min(maxDelay, baseDelay * 2^(n-1)))} (full jitter, so that many failing clients do not wake
 * together). A wait the provider demands (for example a rate limit's {@code Retry-After}) replaces
 * a shorter draw and counts against the total budget like any other wait. The next attempt time is
 * stored with the message; no thread sleeps until then.
 *
 * <p>Who owns the retry: if a client library also retries, its attempts multiply with these (3
 * there times 3 here is 9 requests). Let one layer retry; turn the other off.
 *
 * <p>Immutable and thread-safe. Defaults: 5 attempts, 1 s base, 5 min cap, 1 h total.
 */
public final class RetryPolicy {
  private static final RetryPolicy DEFAULTS = builder().build();

  private final int maxAttempts;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private final Duration maxElapsed;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.baseDelay = b.baseDelay;
    this.maxDelay = b.maxDelay;
    this.maxElapsed = b.maxElapsed;
  }

  /** {@return the default policy} */
  public static RetryPolicy defaults() {
    return DEFAULTS;
  }

  /** {@return a builder starting from the defaults} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the most deliveries a message gets, counting the first} */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** {@return the base of the exponential backoff} */
  public Duration baseDelay() {
    return baseDelay;
  }

  /** {@return the cap on one backoff delay} */
  public Duration maxDelay() {
    return maxDelay;
  }

  /** {@return the budget of total time from the first delivery to the last retry} */
  public Duration maxElapsed() {
    return maxElapsed;
  }

  /**
   * Draws the full-jitter backoff after {@code attempts} failed attempts.
   *
   * @param attempts failed attempts so far, from 1
   * @param random the source of jitter
   * @return a delay in {@code [0, min(maxDelay, baseDelay * 2^(attempts-1)))}
   */
  public Duration backoff(int attempts, RandomGenerator random) {
    long ceiling = ceilingMillis(attempts);
    return Duration.ofMillis(ceiling <= 0 ? 0 : random.nextLong(ceiling));
  }

  /** Returns {@code min(maxDelay, baseDelay * 2^(attempts-1))} in millis, without overflow. */
  long ceilingMillis(int attempts) {
    int shift = Math.max(0, Math.min(62, attempts - 1));
    long base = baseDelay.toMillis();
    long cap = maxDelay.toMillis();
    if (base == 0) {
      return 0;
    }
    return base > (cap >> shift) ? cap : Math.min(cap, base << shift);
  }

  /**
   * Returns when to try again, or empty if the attempts or the time budget are used up.
   *
   * @param attempts deliveries so far, counting the one that just failed
   * @param firstAttemptAt when the first delivery started
   * @param now the current time
   * @param requiredWait a wait the provider demands, or {@link Duration#ZERO}
   * @param random the source of jitter
   * @return the next attempt time, or empty to give up
   */
  public Optional<Instant> nextAttempt(
      int attempts,
      Instant firstAttemptAt,
      Instant now,
      Duration requiredWait,
      RandomGenerator random) {
    Objects.requireNonNull(firstAttemptAt, "firstAttemptAt");
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(requiredWait, "requiredWait");
    if (attempts >= maxAttempts) {
      return Optional.empty();
    }
    Duration draw = backoff(attempts, random);
    Instant next = now.plus(draw.compareTo(requiredWait) >= 0 ? draw : requiredWait);
    if (next.isAfter(firstAttemptAt.plus(maxElapsed))) {
      return Optional.empty();
    }
    return Optional.of(next);
  }

  /** Builds a {@link RetryPolicy}. Not thread-safe. */
  public static final class Builder {
    private int maxAttempts = 5;
    private Duration baseDelay = Duration.ofSeconds(1);
    private Duration maxDelay = Duration.ofMinutes(5);
    private Duration maxElapsed = Duration.ofHours(1);

    private Builder() {}

    /**
     * Sets the most deliveries a message gets, counting the first. Default 5.
     *
     * @param attempts at least 1
     * @return this builder
     */
    public Builder maxAttempts(int attempts) {
      if (attempts <= 0) {
        throw new IllegalArgumentException("maxAttempts must be > 0");
      }
      this.maxAttempts = attempts;
      return this;
    }

    /**
     * Sets the base of the exponential backoff. Default 1 second.
     *
     * @param delay zero or positive, at most 100 years
     * @return this builder
     */
    public Builder baseDelay(Duration delay) {
      this.baseDelay = notNegative(delay, "baseDelay");
      return this;
    }

    /**
     * Sets the cap on one backoff delay. Default 5 minutes.
     *
     * @param delay zero or positive, at most 100 years
     * @return this builder
     */
    public Builder maxDelay(Duration delay) {
      this.maxDelay = notNegative(delay, "maxDelay");
      return this;
    }

    /**
     * Sets the budget of total time from the first delivery. Default 1 hour.
     *
     * @param budget positive, at most 100 years
     * @return this builder
     */
    public Builder maxElapsed(Duration budget) {
      this.maxElapsed = Bounds.positive(budget, "maxElapsed");
      return this;
    }

    /** {@return the policy} */
    public RetryPolicy build() {
      return new RetryPolicy(this);
    }

    private static Duration notNegative(Duration d, String name) {
      return Bounds.nonNegative(d, name); // at most 100 years
    }
  }
}
