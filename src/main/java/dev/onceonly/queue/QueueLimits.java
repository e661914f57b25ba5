package dev.onceonly.queue;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * The limits this instance declared for one queue, as {@link JobQueue#limits} reads them. They are
 * settings of each instance ({@code OnceOnlyBuilder.concurrencyLimit}, {@code
 * concurrencyLimitPerPartition}, {@code rateLimit} and {@code rateLimitPerPartition}), not rows:
 * every instance serving the queue should declare the same.
 *
 * @param maxLeased the most messages of the queue leased at once, or empty for no limit
 * @param maxLeasedPerPartition the most messages of one partition leased at once, or empty for no
 *     limit
 * @param rate the most messages of the queue claimed per sliding window, or empty for no limit
 * @param ratePerPartition the most messages of one partition claimed per sliding window, or empty
 *     for no limit
 */
public record QueueLimits(
    OptionalInt maxLeased,
    OptionalInt maxLeasedPerPartition,
    Optional<RateLimit> rate,
    Optional<RateLimit> ratePerPartition) {
  /**
   * Refuses nulls.
   *
   * @param maxLeased the most messages of the queue leased at once, or empty
   * @param maxLeasedPerPartition the most messages of one partition leased at once, or empty
   * @param rate the most claims of the queue per window, or empty
   * @param ratePerPartition the most claims of one partition per window, or empty
   */
  public QueueLimits {
    java.util.Objects.requireNonNull(maxLeased, "maxLeased");
    java.util.Objects.requireNonNull(maxLeasedPerPartition, "maxLeasedPerPartition");
    java.util.Objects.requireNonNull(rate, "rate");
    java.util.Objects.requireNonNull(ratePerPartition, "ratePerPartition");
  }

  /**
   * Concurrency limits only, no rate limit.
   *
   * @param maxLeased the most messages of the queue leased at once, or empty
   * @param maxLeasedPerPartition the most messages of one partition leased at once, or empty
   */
  public QueueLimits(OptionalInt maxLeased, OptionalInt maxLeasedPerPartition) {
    this(maxLeased, maxLeasedPerPartition, Optional.empty(), Optional.empty());
  }

  /** {@return whether no limit is declared} */
  public boolean none() {
    return maxLeased.isEmpty()
        && maxLeasedPerPartition.isEmpty()
        && rate.isEmpty()
        && ratePerPartition.isEmpty();
  }
}
