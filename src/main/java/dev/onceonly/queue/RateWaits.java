package dev.onceonly.queue;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * How a {@link Worker}'s claiming thread waits out a full rate limit: after a claim that took
 * nothing because the queue's window (or every due message's partition window) was full, it sleeps
 * until the window has room ({@link JobQueue#rateLimitWait}), at most the idle backoff's longest
 * wait, instead of polling at its idle backoff. Sends do not cut the sleep short (they would make
 * the claims follow the send rate while the window is full); closing the worker does.
 */
final class RateWaits {
  private final JobQueue queue;
  private final String queueName;
  private final long longestMillis;

  RateWaits(JobQueue queue, String queueName, Duration longest) {
    this.queue = queue;
    this.queueName = queueName;
    this.longestMillis = longest.toMillis();
  }

  /**
   * After a claim that took nothing: sleeps out the rate limit's wait, if the claim found one, on
   * {@code stop} (released when the worker closes) while {@code running}. Returns whether it slept,
   * so the caller claims again at once instead of waiting its idle backoff; an interrupt ends the
   * sleep with the thread's flag set and answers false, so the caller's idle wait sees it.
   */
  boolean sleptOut(Semaphore stop, BooleanSupplier running) {
    long millis = Math.min(queue.rateLimitWait(queueName).toMillis(), longestMillis);
    if (millis <= 0) {
      return false;
    }
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    try {
      for (long left = millis; left > 0 && running.getAsBoolean(); ) {
        stop.tryAcquire(left, TimeUnit.MILLISECONDS); // a settled job: the window is still full
        left = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime());
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
