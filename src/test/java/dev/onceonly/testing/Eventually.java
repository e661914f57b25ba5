package dev.onceonly.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits, boundedly, for a condition another thread brings about (a worker draining a queue). Polls
 * with a short growing pause instead of sleeping a guessed time; fails with the condition's name
 * when the bound passes.
 */
public final class Eventually {
  private static final long MAX_PAUSE_NANOS = Duration.ofMillis(20).toNanos();

  private Eventually() {}

  /** Waits until {@code condition} holds, failing after {@code timeout}. */
  public static void await(Duration timeout, BooleanSupplier condition) {
    await(timeout, "condition", condition);
  }

  /** Waits until {@code condition} (described by {@code what}) holds, failing after timeout. */
  public static void await(Duration timeout, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = Duration.ofMillis(1).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      LockSupport.parkNanos(pause);
      pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
    }
  }
}
