package dev.onceonly.internal.queue;

import dev.onceonly.queue.RateLimit;
import java.util.Map;

/**
 * The rate limits an instance declared, by queue name: the queue's own and each partition's.
 *
 * @param perQueue the most claims of a queue's window
 * @param perPartition the most claims of a window in each partition of a queue
 */
public record RateLimits(Map<String, RateLimit> perQueue, Map<String, RateLimit> perPartition) {
  /**
   * Copies the maps.
   *
   * @param perQueue the queues' own limits
   * @param perPartition the limits of each partition
   */
  public RateLimits {
    perQueue = Map.copyOf(perQueue);
    perPartition = Map.copyOf(perPartition);
  }

  /** {@return no rate limit at all} */
  public static RateLimits none() {
    return new RateLimits(Map.of(), Map.of());
  }

  /** {@return whether {@code queue} has a rate limit, its own or per partition} */
  boolean limited(String queue) {
    return perQueue.containsKey(queue) || perPartition.containsKey(queue);
  }
}
