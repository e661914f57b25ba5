package dev.onceonly.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * Caller threads of {@link GrowthBenchMain} behind one start gate, run until a deadline or until
 * they have done {@code max} operations between them. The clock starts when the gate opens and
 * stops when the last thread has returned from the call it was in, and every operation that
 * returned in between is counted (the overshoot of the last calls is counted and timed, not
 * dropped).
 */
final class GrowthRun {
  private GrowthRun() {}

  /** One thread's operation: does one call and returns how many operations it did. */
  interface Step {
    int step() throws Exception;
  }

  /** What a run did: operations, seconds from the gate to the last return, failed threads. */
  record Measured(long count, double seconds, long failed) {
    double rate() {
      return count / seconds;
    }

    Measured plus(Measured o) {
      return new Measured(count + o.count, seconds + o.seconds, failed + o.failed);
    }
  }

  static final Measured NONE = new Measured(0, 0, 0);

  /** Runs {@code threads} threads, thread {@code t} calling {@code steps.apply(t)} repeatedly. */
  static Measured run(int threads, double seconds, long max, IntFunction<Step> steps)
      throws InterruptedException {
    LongAdder done = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicReference<Throwable> first = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch gate = new CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Step step = steps.apply(t);
      Thread thread =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  gate.await();
                  while (!stop.get()) {
                    done.add(step.step());
                  }
                } catch (Throwable e) {
                  failed.increment();
                  first.compareAndSet(null, e);
                }
              },
              "growth-caller-" + t);
      callers.add(thread);
      thread.start();
    }
    ready.await();
    long start = System.nanoTime();
    gate.countDown();
    long deadline = start + (long) (seconds * 1e9);
    while (System.nanoTime() < deadline && done.sum() < max && failed.sum() < threads) {
      Thread.sleep(2);
    }
    stop.set(true);
    for (Thread t : callers) {
      t.join();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    if (first.get() != null) {
      System.out.println("first failure: " + first.get());
      first.get().printStackTrace(System.out);
    }
    return new Measured(done.sum(), elapsed, failed.sum());
  }
}
