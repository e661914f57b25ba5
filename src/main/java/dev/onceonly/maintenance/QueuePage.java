package dev.onceonly.maintenance;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

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
   * The order {@link Maintenance#queues} lists queues in: the deepest first, then the most dead
   * letters, then the name bytewise (its UTF-8 bytes, unsigned).
   */
  public static final Comparator<Queue> DEEPEST_FIRST =
      Comparator.comparingLong((Queue q) -> -q.depth())
          .thenComparingLong(q -> -q.deadLetters())
          .thenComparing(q -> q.name().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned);

  /**
   * {@return the first page of queues from a status already read}: the same page as {@code
   * queues("", 0, limit)} at the status's instant, without reading the store again (the status
   * counts every queue's messages and dead letters already).
   *
   * @param status a status from {@link Maintenance#status()}
   * @param limit the most queues to list, at least 1
   * @throws IllegalArgumentException if {@code limit} is below 1
   */
  public static QueuePage deepestOf(StoreStatus status, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1: " + limit);
    }
    Set<String> names = new TreeSet<>(status.messages().keySet());
    names.addAll(status.deadLetters().keySet());
    StoreStatus.QueueCounts none = new StoreStatus.QueueCounts(0, 0, 0);
    List<Queue> all = new ArrayList<>(names.size());
    for (String name : names) {
      all.add(
          new Queue(
              name,
              status.messages().getOrDefault(name, none),
              status.deadLetters().getOrDefault(name, 0L)));
    }
    all.sort(DEEPEST_FIRST);
    return new QueuePage(all.size(), 0, all.subList(0, Math.min(limit, all.size())));
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
