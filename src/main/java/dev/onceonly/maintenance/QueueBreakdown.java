package dev.onceonly.maintenance;

import dev.onceonly.maintenance.StoreStatus.QueueCounts;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One queue's messages counted by priority and by partition, as {@link Maintenance#queueBreakdown}
 * reads them: each group's due, leased and delayed messages, counted as {@link
 * StoreStatus#messages()} counts a whole queue.
 *
 * @param queue the queue's name
 * @param at the instant the counts were taken at, by the store's clock
 * @param byPriority one group per priority that has messages, the highest priority first
 * @param byPartition one group per partition that has messages (the messages of no partition under
 *     a {@code null} name), the deepest first, at most the limit asked for
 * @param partitions how many partitions have messages, also those the limit left out
 */
public record QueueBreakdown(
    String queue,
    Instant at,
    List<PriorityGroup> byPriority,
    List<PartitionGroup> byPartition,
    long partitions) {
  /**
   * Copies the lists and refuses nulls.
   *
   * @param queue the queue's name
   * @param at the instant the counts were taken at
   * @param byPriority the groups by priority, highest first
   * @param byPartition the groups by partition, deepest first
   * @param partitions how many partitions have messages
   */
  public QueueBreakdown {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(at, "at");
    byPriority = List.copyOf(byPriority);
    byPartition = List.copyOf(byPartition);
  }

  /**
   * The messages of one priority.
   *
   * @param priority the priority
   * @param counts its due, leased and delayed messages
   */
  public record PriorityGroup(int priority, QueueCounts counts) {
    /**
     * Refuses null counts.
     *
     * @param priority the priority
     * @param counts its due, leased and delayed messages
     */
    public PriorityGroup {
      Objects.requireNonNull(counts, "counts");
    }
  }

  /**
   * The messages of one partition.
   *
   * @param partition the partition's name, or {@code null} for the messages of no partition
   * @param counts its due, leased and delayed messages
   */
  public record PartitionGroup(String partition, QueueCounts counts) {
    /**
     * Refuses null counts.
     *
     * @param partition the partition's name, or {@code null} for the messages of no partition
     * @param counts its due, leased and delayed messages
     */
    public PartitionGroup {
      Objects.requireNonNull(counts, "counts");
    }
  }
}
