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

  /**
   * The claims per whole window, on average, from the first claim up to the window of the last: how
   * much of the limit the claims used while work waited. A whole window of the machine's own stall
   * (a collection, a starved process on a loaded machine) lowers the fewest to nothing but the mean
   * by one window's share, while a limiter that leaves part of every window unused lowers the mean
   * as much as the fewest.
   */
  public static double meanInWholeWindows(List<Long> times, long window) {
    long first = times.get(0);
    int whole = (int) ((times.get(times.size() - 1) - first) / window);
    long in = times.stream().filter(t -> (t - first) / window < whole).count();
    return whole == 0 ? 0 : (double) in / whole;
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
