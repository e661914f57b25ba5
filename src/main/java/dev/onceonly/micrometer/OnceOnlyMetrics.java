package dev.onceonly.micrometer;

import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.events.OnceOnlyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * Counts and times what a {@code OnceOnly} instance does, as Micrometer meters: register it with
 * {@code OnceOnly.Builder#listener}. It runs on the events' thread, off every step.
 *
 * <pre>{@code
 * OnceOnlyMetrics metrics = OnceOnlyMetrics.of(registry);
 * OnceOnly once = OnceOnly.builder().sqlite(file).listener(metrics).build();
 * metrics.bindDropped(once.events());
 * StoreGauges gauges = StoreGauges.of(once.maintenance(), Duration.ofSeconds(30));
 * gauges.bindTo(registry);
 * }</pre>
 *
 * <p>The meters (see docs/observability.md): {@code onceonly.receipts.outcomes} and {@code
 * onceonly.receipts.step.duration} (tags {@code operation}, {@code outcome}); {@code
 * onceonly.queue.sends} ({@code queue}, {@code status}); {@code onceonly.queue.claim.batch} ({@code
 * queue}); {@code onceonly.queue.settlements} ({@code queue}, {@code result}); {@code
 * onceonly.queue.handler.duration} ({@code queue}, {@code outcome}); {@code
 * onceonly.queue.redeliveries} ({@code queue}); {@code onceonly.schedules.fired} ({@code schedule},
 * {@code queue}); {@code onceonly.external.claims} and {@code onceonly.external.settlements}
 * ({@code operation}, {@code outcome}); {@code onceonly.groupcommit.batch.size}; {@code
 * onceonly.reconciler.intents} ({@code result}) and {@code onceonly.reconciler.pass.duration};
 * {@code onceonly.events.dropped}. Tags hold operation and queue names and fixed outcome words
 * only: a scope or key is never a tag. Thread-safe.
 */
// Micrometer's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
public final class OnceOnlyMetrics implements OnceOnlyListener {
  private final MeterRegistry registry;
  private final Tags common;
  private final ConcurrentMap<Object, Counter> counters = new ConcurrentHashMap<>();
  private final ConcurrentMap<Object, Timer> timers = new ConcurrentHashMap<>();
  private final ConcurrentMap<Object, DistributionSummary> summaries = new ConcurrentHashMap<>();

  private OnceOnlyMetrics(MeterRegistry registry, Tags common) {
    this.registry = registry;
    this.common = common;
  }

  /**
   * Returns a listener that records into {@code registry}.
   *
   * @param registry where the meters go
   * @return the listener
   */
  public static OnceOnlyMetrics of(MeterRegistry registry) {
    return of(registry, Tags.empty());
  }

  /**
   * Returns a listener that records into {@code registry}, with tags of its own on every meter (for
   * example which store, when an application opens several).
   *
   * @param registry where the meters go
   * @param common tags added to every meter
   * @return the listener
   */
  public static OnceOnlyMetrics of(MeterRegistry registry, Tags common) {
    return new OnceOnlyMetrics(
        Objects.requireNonNull(registry, "registry"), Objects.requireNonNull(common, "common"));
  }

  /**
   * Registers {@code onceonly.events.dropped}: the events the listeners never saw because their
   * buffer was full. Above zero, the other meters count less than happened.
   *
   * @param events the instance's events ({@code OnceOnly.events()})
   * @return this listener
   */
  public OnceOnlyMetrics bindDropped(Events events) {
    FunctionCounter.builder("onceonly.events.dropped", events, Events::dropped)
        .description("events dropped because the listeners fell behind")
        .tags(common)
        .register(registry);
    return this;
  }

  @Override
  public void onEvent(OnceOnlyEvent event) {
    if (event instanceof OnceOnlyEvent.StepFinished e) {
      counter("onceonly.receipts.outcomes", "operation", e.operation(), "outcome", e.outcome())
          .increment();
      timer("onceonly.receipts.step.duration", "operation", e.operation(), "outcome", e.outcome())
          .record(e.duration());
    } else if (event instanceof OnceOnlyEvent.MessageSent e) {
      counter("onceonly.queue.sends", "queue", e.queue(), "status", e.status()).increment();
    } else if (event instanceof OnceOnlyEvent.MessagesClaimed e) {
      summary("onceonly.queue.claim.batch", "queue", e.queue()).record(e.count());
    } else if (event instanceof OnceOnlyEvent.ScheduleFired e) {
      counter("onceonly.schedules.fired", "schedule", e.schedule(), "queue", e.queue()).increment();
    } else if (event instanceof OnceOnlyEvent.MessageSettled e) {
      counter("onceonly.queue.settlements", "queue", e.queue(), "result", e.result()).increment();
    } else if (event instanceof OnceOnlyEvent.JobHandled e) {
      String outcome = e.failed() ? "failure" : "success";
      timer("onceonly.queue.handler.duration", "queue", e.queue(), "outcome", outcome)
          .record(e.duration());
      if (e.attempt() > 1) {
        counter("onceonly.queue.redeliveries", "queue", e.queue()).increment();
      }
    } else if (event instanceof OnceOnlyEvent.ClaimAnswered e) {
      counter("onceonly.external.claims", "operation", e.operation(), "outcome", e.outcome())
          .increment();
    } else if (event instanceof OnceOnlyEvent.ClaimSettled e) {
      counter("onceonly.external.settlements", "operation", e.operation(), "outcome", e.outcome())
          .increment();
    } else if (event instanceof OnceOnlyEvent.GroupCommitted e) {
      summary("onceonly.groupcommit.batch.size").record(e.steps());
    } else if (event instanceof OnceOnlyEvent.Reconciled e) {
      counter("onceonly.reconciler.intents", "result", "published").increment(e.published());
      counter("onceonly.reconciler.intents", "result", "already_queued")
          .increment(e.alreadyQueued());
      counter("onceonly.reconciler.intents", "result", "conflict").increment(e.conflicts());
      counter("onceonly.reconciler.intents", "result", "dead_lettered").increment(e.deadLettered());
      timer("onceonly.reconciler.pass.duration").record(e.duration());
    }
  }

  private Counter counter(String name, String... tags) {
    return find(counters, name, tags, t -> Counter.builder(name).tags(t).register(registry));
  }

  private Timer timer(String name, String... tags) {
    return find(timers, name, tags, t -> Timer.builder(name).tags(t).register(registry));
  }

  private DistributionSummary summary(String name, String... tags) {
    return find(
        summaries, name, tags, t -> DistributionSummary.builder(name).tags(t).register(registry));
  }

  /** Looks a meter up by name and tag values, registering it the first time. */
  private <M> M find(
      ConcurrentMap<Object, M> meters, String name, String[] tags, Function<Tags, M> create) {
    Object id = java.util.List.of(name, java.util.List.of(tags));
    M meter = meters.get(id);
    return meter != null
        ? meter
        : meters.computeIfAbsent(id, unused -> create.apply(common.and(Tags.of(tags))));
  }
}
