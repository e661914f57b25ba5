package dev.onceonly.bench;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One system under measurement on one fresh {@link WorkerBenchStore}: how it queues a job, how its
 * workers are started and stopped, and how many jobs wait in its own storage.
 *
 * <p>Each job is the same: one row in {@code done} named by the job's key. The workers report every
 * job to a {@link Sink} once its row has committed (OnceOnly: with the acknowledgement).
 */
interface WorkerBenchTarget extends AutoCloseable {

  /** Opens a system on a store with a number of worker threads. */
  @FunctionalInterface
  interface Factory {
    WorkerBenchTarget open(WorkerBenchStore store, int workers) throws Exception;
  }

  /** Queues jobs {@code j0} to {@code j<n-1>} before the clock starts, in bulk if it can. */
  void prefill(int n) throws Exception;

  /** Queues one job, in a call of its own (as an application would for each request). */
  void send(String key) throws Exception;

  /** Starts the workers, which report to {@code sink}. */
  void start(Sink sink) throws Exception;

  /** Stops the workers, waiting for the jobs in flight. */
  void stop() throws Exception;

  /** Counts the jobs still waiting (or in flight) in the system's own tables. */
  long queued() throws Exception;

  /** Stops the workers if they run, and lets go of the system. */
  @Override
  default void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the workers", e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot stop the workers", e);
    }
  }

  /** What the workers report, counted by the harness. */
  final class Sink {
    final LongAdder done = new LongAdder();
    final LongAdder failed = new LongAdder();
    final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    volatile long firstDoneNanos;

    /** Handler start times by key, kept only for the latency case. */
    final ConcurrentHashMap<String, Long> starts;

    Sink(boolean recordStarts) {
      this.starts = recordStarts ? new ConcurrentHashMap<>() : null;
    }

    void started(String key) {
      if (starts != null) {
        starts.putIfAbsent(key, System.nanoTime());
      }
    }

    private final Object doneSignal = new Object();
    private volatile long awaited = Long.MAX_VALUE;

    void done() {
      if (firstDoneNanos == 0) {
        firstDoneNanos = System.nanoTime();
      }
      done.increment();
      if (done.sum() >= awaited) {
        synchronized (doneSignal) {
          doneSignal.notifyAll();
        }
      }
    }

    /**
     * Waits until {@code target} jobs are done or the deadline ({@link System#nanoTime()}) passes,
     * woken by the {@link #done()} that reaches it rather than polling.
     */
    void awaitDone(long target, long deadlineNanos) throws InterruptedException {
      synchronized (doneSignal) {
        awaited = target;
        try {
          long left;
          while (done.sum() < target && (left = deadlineNanos - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.timedWait(doneSignal, left);
          }
        } finally {
          awaited = Long.MAX_VALUE;
        }
      }
    }

    void failed(Throwable t) {
      failed.increment();
      firstFailure.compareAndSet(null, t);
    }
  }
}
