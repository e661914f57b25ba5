package dev.onceonly.queue;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * How a {@link Worker}'s claiming thread waits out a paused queue ({@link JobQueue#pause}): after a
 * claim that took nothing, it reads whether the queue is paused (at most once an interval while the
 * queue runs, so an idle queue costs one read an interval), and while it is, sleeps the interval
 * and reads again instead of claiming, so a paused queue costs one read an interval and no claim. A
 * resume is noticed by the next read, within the interval. Sends do not cut the sleep short (the
 * claims would follow the send rate); closing the worker does. A read that fails counts as not
 * paused: the claims, and their failure log, go on as before.
 */
final class PauseWaits {
  private final JobQueue queue;
  private final String queueName;
  private final long intervalNanos;

  /** When a read last found the queue running, by {@link System#nanoTime()}; none yet if null. */
  private Long runningAt;

  PauseWaits(JobQueue queue, String queueName, Duration interval) {
    this.queue = queue;
    this.queueName = queueName;
    this.intervalNanos = interval.toNanos();
  }

  /**
   * After a claim that took nothing: if the queue is paused, sleeps on {@code stop} (released when
   * the worker closes) while {@code running}, an interval at a time, until a read finds it resumed.
   * Returns whether it slept, so the caller claims again at once; an interrupt ends the sleep with
   * the thread's flag set and answers false, so the caller's idle wait sees it.
   */
  boolean sleptOut(Semaphore stop, BooleanSupplier running) {
    if (runningAt != null && System.nanoTime() - runningAt < intervalNanos) {
      return false;
    }
    if (!paused()) {
      return false;
    }
    try {
      do {
        long until = System.nanoTime() + intervalNanos;
        for (long left = intervalNanos; left > 0 && running.getAsBoolean(); ) {
          stop.tryAcquire(left, TimeUnit.NANOSECONDS); // a settled job: the queue is still paused
          left = until - System.nanoTime();
        }
      } while (running.getAsBoolean() && paused());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private boolean paused() {
    boolean paused;
    try {
      paused = queue.paused(queueName).isPresent();
    } catch (RuntimeException e) {
      paused = false;
    }
    runningAt = paused ? null : System.nanoTime();
    return paused;
  }
}
