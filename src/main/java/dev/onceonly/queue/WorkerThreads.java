package dev.onceonly.queue;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of one {@link Worker}: the claiming thread, the handler threads, the completing
 * threads and the renewing timer, started together and shut down in the order that loses nothing
 * (claims stop first, then handlers finish or are cancelled, then the last acknowledgements are
 * committed, then renewals stop).
 *
 * <p>The handler threads come from the application's {@link ThreadFactory} when it gave one (on
 * Java 21, {@code Thread.ofVirtual().factory()} for virtual threads), else they are daemon platform
 * threads named for the worker. The claiming, completing and renewing threads are always the
 * worker's own few platform threads: they are long-lived loops, not per-job work.
 */
final class WorkerThreads {
  private final String name;
  private final ThreadFactory handlerThreads;
  private ExecutorService claimer;
  private ExecutorService completer;
  private ExecutorService handlers;
  private ScheduledExecutorService renewer;

  WorkerThreads(String name, ThreadFactory handlerThreads) {
    this.name = name;
    this.handlerThreads = handlerThreads == null ? daemon(name) : handlerThreads;
  }

  /** {@return whether the threads were started} */
  boolean started() {
    return handlers != null;
  }

  /** Starts the renewing timer, the handler and completing loops, then the claiming loop. */
  void start(
      long renewEveryMillis,
      Runnable renew,
      int handlerCount,
      Runnable handle,
      int completerCount,
      Runnable complete,
      Runnable claim) {
    renewer = Executors.newSingleThreadScheduledExecutor(daemon(name + "-renew"));
    renewer.scheduleAtFixedRate(renew, renewEveryMillis, renewEveryMillis, TimeUnit.MILLISECONDS);
    handlers = Executors.newFixedThreadPool(handlerCount, handlerThreads);
    for (int i = 0; i < handlerCount; i++) {
      handlers.execute(handle);
    }
    completer = Executors.newFixedThreadPool(completerCount, daemon(name + "-complete"));
    for (int i = 0; i < completerCount; i++) {
      completer.execute(complete);
    }
    claimer = Executors.newSingleThreadExecutor(daemon(name + "-claim"));
    claimer.execute(claim);
  }

  /** The timer the handlers' execution deadlines are scheduled on. */
  ScheduledExecutorService timers() {
    return renewer;
  }

  /**
   * Shuts the threads down in order, each step waiting up to {@code timeout}: {@code claimsStopped}
   * runs once the claims stopped (it releases the jobs no handler started and stops the handlers),
   * {@code handlersLate} when handlers still run at the timeout (it cancels and releases their
   * jobs), {@code handlersEnded} once they ended (it tells the completing threads to stop after
   * what is queued).
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  void shutdown(
      Duration timeout, Runnable claimsStopped, Runnable handlersLate, Runnable handlersEnded)
      throws InterruptedException {
    long millis = timeout.toMillis();
    try {
      claimer.shutdown();
      if (!claimer.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
        claimer.shutdownNow(); // interrupts a claim waiting for the store
        claimer.awaitTermination(millis, TimeUnit.MILLISECONDS);
      }
      claimsStopped.run();
      handlers.shutdown();
      if (!handlers.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
        handlersLate.run();
        handlers.shutdownNow();
        handlers.awaitTermination(millis, TimeUnit.MILLISECONDS);
      }
      handlersEnded.run();
      completer.shutdown();
      if (!completer.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
        completer.shutdownNow(); // the store does not answer: the leases run out, then redelivery
      }
    } finally {
      renewer.shutdownNow();
    }
  }

  /** Daemon platform threads named {@code name-1}, {@code name-2}, ... */
  static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
