package dev.onceonly.queue;

import java.util.concurrent.TimeUnit;

/**
 * How many claimed jobs a {@link Worker} may hold waiting for a thread beyond one per thread. Fixed
 * when the builder set it; else it follows the worker's rate: the jobs its threads settle in {@link
 * #HORIZON_NANOS} at the rate measured over the last windows of {@link #WINDOW_NANOS}, between
 * {@code min} and {@code max}. So a fast backlog is claimed (and, with {@link Job#completeLater},
 * acknowledged) in large batches, while a claimed job waits for a thread about that long at most,
 * and slow jobs are claimed a few at a time, leaving the rest of a backlog to other workers. Read
 * and written by the claiming thread only.
 */
final class Prefetch {
  /** The most jobs an adaptive prefetch holds ahead, unless twice the threads is more. */
  static final int ADAPTIVE = 100;

  /** The most a prefetch may be set to. */
  static final int MAX = 1000;

  private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final int min;
  private final int max;
  private int current;
  private long windowStart = System.nanoTime();
  private long settledAtStart;
  private double perNano;

  /** {@return a prefetch following the rate from {@code floor} up} */
  static Prefetch adaptive(int floor) {
    return new Prefetch(floor, Math.max(floor, ADAPTIVE));
  }

  Prefetch(int min, int max) {
    this.min = min;
    this.max = max;
    this.current = min;
  }

  /** {@return the prefetch now, given the jobs settled so far and the time} */
  int at(long settled, long now) {
    long elapsed = now - windowStart;
    if (min == max || elapsed < WINDOW_NANOS) {
      return current;
    }
    double rate = (double) (settled - settledAtStart) / elapsed;
    perNano = perNano == 0 ? rate : (perNano + rate) / 2;
    windowStart = now;
    settledAtStart = settled;
    current = (int) Math.max(min, Math.min(max, Math.round(perNano * HORIZON_NANOS)));
    return current;
  }
}
