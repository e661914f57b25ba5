package dev.onceonly.testing;

import java.util.List;

/** Counts of sorted claim times (epoch milliseconds) per window, for the rate limit's tests. */
public final class RateWindows {
  private RateWindows() {}

  /** The most claims in a window of {@code window} ms starting at any claim. */
  public static int mostInAnyWindow(List<Long> times, long window) {
    int most = 0;
    int end = 0;
    for (int start = 0; start < times.size(); start++) {
      while (end < times.size() && times.get(end) < times.get(start) + window) {
        end++;
      }
      most = Math.max(most, end - start);
    }
    return most;
  }

  /** The fewest claims in the whole windows from the first claim up to the window of the last. */
  public static int leastInAWholeWindow(List<Long> times, long window) {
    long first = times.get(0);
    int whole = (int) ((times.get(times.size() - 1) - first) / window);
    int[] counts = new int[whole + 1];
    for (long t : times) {
      counts[(int) ((t - first) / window)]++;
    }
    int least = Integer.MAX_VALUE;
    for (int k = 0; k < whole; k++) {
      least = Math.min(least, counts[k]);
    }
    return least;
  }
}
