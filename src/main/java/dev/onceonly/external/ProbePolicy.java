package dev.onceonly.external;

import dev.onceonly.Bounds;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How status probes run: how long one may take, and how long to wait before probing the same claim
 * again. The wait before probe <i>n + 1</i> of a claim is drawn from {@code [d/2, d]}, where {@code
 * d = min(maxDelay, baseDelay * 2^(n-1))}, and is never shorter than the timeout. It is stored with
 * the claim when the probe is taken, before it runs, so that neither another instance nor a
 * restarted one probes the claim again sooner, however the probe ends.
 *
 * @param timeout the longest a probe may run before it is interrupted and the claim left unknown
 * @param baseDelay the wait after a claim's first probe
 * @param maxDelay the longest wait between two probes of a claim
 */
public record ProbePolicy(Duration timeout, Duration baseDelay, Duration maxDelay) {
  /**
   * Refuses nulls, non-positive durations and a base delay above the longest.
   *
   * @param timeout see the record
   * @param baseDelay see the record
   * @param maxDelay see the record
   */
  public ProbePolicy {
    Bounds.positive(Objects.requireNonNull(timeout, "timeout"), "timeout");
    Bounds.positive(Objects.requireNonNull(baseDelay, "baseDelay"), "baseDelay");
    Bounds.positive(Objects.requireNonNull(maxDelay, "maxDelay"), "maxDelay");
    if (baseDelay.compareTo(maxDelay) > 0) {
      throw new IllegalArgumentException("baseDelay must be <= maxDelay");
    }
  }

  /** {@return a timeout of 10 seconds, a first wait of 30 seconds, at most one hour} */
  public static ProbePolicy defaults() {
    return new ProbePolicy(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofHours(1));
  }

  /**
   * Returns the wait before the next probe of a claim probed {@code probes} times.
   *
   * @param probes the probes taken so far, at least 1
   * @param random the source of the jitter
   * @return the wait, at least the timeout
   */
  public Duration delayAfter(int probes, RandomGenerator random) {
    if (probes < 1) {
      throw new IllegalArgumentException("probes must be >= 1");
    }
    long base = baseDelay.toMillis();
    long max = maxDelay.toMillis();
    long d = base;
    for (int i = 1; i < probes && d < max; i++) {
      d = d > max / 2 ? max : d * 2;
    }
    d = Math.min(d, max);
    long drawn = d / 2 + random.nextLong(d - d / 2 + 1);
    return Duration.ofMillis(Math.max(drawn, timeout.toMillis()));
  }
}
