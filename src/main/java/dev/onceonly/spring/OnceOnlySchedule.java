package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.queue.IntentMessage;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Runs the reconciler and retention on a schedule, each when enabled ({@code
 * onceonly.reconciler.enabled}, {@code onceonly.purge.enabled}; both off by default), on one daemon
 * thread of its own, with a fixed delay between the end of a pass and the start of the next. Safe
 * with many instances running it at once: the reconciler publishes an intent's message under the
 * intent's own key, so a message already waiting is not sent twice, and each purge batch is a short
 * transaction whose rows another instance may delete too without harm (see {@link Maintenance}). A
 * failed pass is logged and the next one runs as planned. Started with the context, stopped
 * (waiting for a pass in progress) when it closes.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
public final class OnceOnlySchedule implements org.springframework.context.SmartLifecycle {
  private static final System.Logger LOG = System.getLogger(OnceOnlySchedule.class.getName());
  private static final LongConsumer QUIET = n -> {};

  private final OnceOnly once;
  private final OnceOnlyProperties properties;
  private ScheduledExecutorService timer;

  /**
   * Creates the schedule; nothing runs before {@link #start()}.
   *
   * @param once the store
   * @param properties {@code onceonly.reconciler} and {@code onceonly.purge}
   */
  public OnceOnlySchedule(OnceOnly once, OnceOnlyProperties properties) {
    this.once = Objects.requireNonNull(once, "once");
    this.properties = Objects.requireNonNull(properties, "properties");
  }

  @Override
  public synchronized void start() {
    OnceOnlyProperties.Reconciler r = properties.reconciler();
    OnceOnlyProperties.Purge p = properties.purge();
    if (timer != null || !(r.enabled() || p.enabled())) {
      return;
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread t = new Thread(task, "onceonly-schedule");
              t.setDaemon(true);
              return t;
            });
    if (r.enabled()) {
      Reconciler reconciler =
          Reconciler.builder(once.intents(), IntentMessage.publisher(once.queue(), r.queue()))
              .batchSize(r.batchSize())
              .maxBatches(r.maxBatches())
              .build();
      every(r.interval().toMillis(), "reconcile", reconciler::reconcile);
    }
    if (p.enabled()) {
      every(p.interval().toMillis(), "purge", this::purge);
    }
  }

  private void every(long millis, String what, Runnable pass) {
    timer.scheduleWithFixedDelay(
        () -> {
          try {
            pass.run();
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "OnceOnly " + what + " pass failed", e);
          }
        },
        0,
        millis,
        TimeUnit.MILLISECONDS);
  }

  private void purge() {
    OnceOnlyProperties.Purge p = properties.purge();
    Maintenance m = once.maintenance();
    m.purgeReceipts(p.batchSize(), QUIET);
    m.purgeRejections(p.rejectionRetention(), p.batchSize(), QUIET);
    m.purgeDeadLetters(p.deadLetterRetention(), p.batchSize(), QUIET);
    m.purgeWorkflows(p.workflowRetention(), p.batchSize(), QUIET);
  }

  /** Stops scheduling and waits up to 30 seconds for a pass in progress. */
  @Override
  public synchronized void stop() {
    if (timer == null) {
      return;
    }
    timer.shutdown();
    try {
      if (!timer.awaitTermination(30, TimeUnit.SECONDS)) {
        timer.shutdownNow();
      }
    } catch (InterruptedException e) {
      timer.shutdownNow();
      Thread.currentThread().interrupt();
    }
    timer = null;
  }

  @Override
  public synchronized boolean isRunning() {
    return timer != null;
  }
}
