package dev.onceonly.maintenance;

import java.util.List;
import java.util.Objects;

/**
 * One page of queues as {@link Maintenance#queues} lists them, the deepest first, with how many
 * queues match in all. Immutable.
 *
 * @param total the queues that match the search, over every page
 * @param offset how many of them come before this page
 * @param queues this page's queues, the deepest first
 */
public record QueuePage(long total, long offset, List<Queue> queues) {
  /**
   * Checks the counts and copies the list.
   *
   * @param total the queues that match the search, over every page
   * @param offset how many of them come before this page
   * @param queues this page's queues, the deepest first
   */
  public QueuePage {
    if (total < 0 || offset < 0) {
      throw new IllegalArgumentException("total and offset must be >= 0");
    }
    queues = List.copyOf(queues);
  }

  /**
   * One queue's counts: its messages by state and its dead letters.
   *
   * @param name the queue's name
   * @param counts its messages due, leased and delayed
   * @param deadLetters its dead letters
   */
  public record Queue(String name, StoreStatus.QueueCounts counts, long deadLetters) {
    /**
     * Refuses nulls.
     *
     * @param name the queue's name
     * @param counts its messages due, leased and delayed
     * @param deadLetters its dead letters
     */
    public Queue {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(counts, "counts");
    }

    /** {@return its messages in every state: due, leased and delayed} */
    public long depth() {
      return counts.due() + counts.later();
    }
  }
}
