package dev.onceonly.queue;

import java.util.OptionalInt;

/**
 * The concurrency limits this instance declared for one queue, as {@link JobQueue#limits} reads
 * them. They are settings of each instance ({@code OnceOnlyBuilder.concurrencyLimit} and {@code
 * concurrencyLimitPerPartition}), not rows: every instance serving the queue should declare the
 * same.
 *
 * @param maxLeased the most messages of the queue leased at once, or empty for no limit
 * @param maxLeasedPerPartition the most messages of one partition leased at once, or empty for no
 *     limit
 */
public record QueueLimits(OptionalInt maxLeased, OptionalInt maxLeasedPerPartition) {
  /**
   * Refuses nulls.
   *
   * @param maxLeased the most messages of the queue leased at once, or empty
   * @param maxLeasedPerPartition the most messages of one partition leased at once, or empty
   */
  public QueueLimits {
    java.util.Objects.requireNonNull(maxLeased, "maxLeased");
    java.util.Objects.requireNonNull(maxLeasedPerPartition, "maxLeasedPerPartition");
  }

  /** {@return whether no limit is declared} */
  public boolean none() {
    return maxLeased.isEmpty() && maxLeasedPerPartition.isEmpty();
  }
}
