package dev.onceonly.micrometer;

import dev.onceonly.maintenance.Backlog;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.StoreStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * Gauges of the rows that say whether anything is stuck: pending intents, messages due, leased and
 * delayed per queue, the age of the oldest due message, dead letters per queue and claims whose
 * outcome is unknown. They are read from {@link Maintenance#backlog()} on an interval by one daemon
 * thread, never per step, and a gauge shows the last sample (a scrape never touches the database).
 * A sample reads the outstanding work only, never the receipts kept, so its cost does not grow as
 * receipts accumulate.
 *
 * <p>Gauges: {@code onceonly.intents.pending}, {@code onceonly.intents.oldest.pending.age}, {@code
 * onceonly.queue.messages} (tags {@code queue}, {@code state}: due, leased, delayed), {@code
 * onceonly.queue.oldest.due.age}, {@code onceonly.queue.dead.letters} ({@code queue}), {@code
 * onceonly.external.unknown}; and the counter {@code onceonly.status.failures}, samples that failed
 * (the gauges then keep the sample before). A failing sample is logged at {@code WARNING} once,
 * then at {@code DEBUG} until a sample succeeds again. Thread-safe.
 */
// Micrometer's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
public final class StoreGauges implements MeterBinder, AutoCloseable {
  // A lock, not a monitor: sample() waits for the database, and may run on a virtual thread.
  private final java.util.concurrent.locks.ReentrantLock lock =
      new java.util.concurrent.locks.ReentrantLock();

  private static final System.Logger LOG = System.getLogger(StoreGauges.class.getName());

  private final Maintenance maintenance;
  private final Duration every;
  private final Tags common;
  private final Set<String> queuesSeen = ConcurrentHashMap.newKeySet();
  private final AtomicLong failures = new AtomicLong();
  private volatile Backlog last;
  private volatile MeterRegistry registry;
  private ScheduledExecutorService sampler;
  private boolean failing;

  private StoreGauges(Maintenance maintenance, Duration every, Tags common) {
    this.maintenance = maintenance;
    this.every = every;
    this.common = common;
  }

  /**
   * Returns gauges sampled from {@code maintenance} every {@code every}, once bound.
   *
   * @param maintenance the store's maintenance ({@code OnceOnly.maintenance()})
   * @param every how often to read the counts, at least one second (each sample counts the pending
   *     intents, messages, dead letters and claims)
   * @return the gauges, not yet bound
   * @throws IllegalArgumentException if {@code every} is shorter than one second
   */
  public static StoreGauges of(Maintenance maintenance, Duration every) {
    return of(maintenance, every, Tags.empty());
  }

  /**
   * Returns gauges sampled from {@code maintenance} every {@code every}, with tags of their own.
   *
   * @param maintenance the store's maintenance ({@code OnceOnly.maintenance()})
   * @param every how often to read the counts, at least one second
   * @param common tags added to every gauge
   * @return the gauges, not yet bound
   * @throws IllegalArgumentException if {@code every} is shorter than one second
   */
  public static StoreGauges of(Maintenance maintenance, Duration every, Tags common) {
    Objects.requireNonNull(maintenance, "maintenance");
    Objects.requireNonNull(every, "every");
    Objects.requireNonNull(common, "common");
    if (every.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("every must be >= 1 second");
    }
    return new StoreGauges(maintenance, every, common);
  }

  /**
   * Registers the gauges, takes a first sample now and starts sampling on the interval. Binding
   * again to the same registry does nothing: Spring Boot's Actuator binds every {@link MeterBinder}
   * bean to the application's registry, which OnceOnly's auto-configuration has bound already.
   *
   * @param registry where the gauges go
   * @throws IllegalStateException if already bound to another registry
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    lock.lock();
    try {
      if (this.registry == registry) {
        return;
      }
      if (this.registry != null) {
        throw new IllegalStateException("the gauges are bound already, to another registry");
      }
      this.registry = Objects.requireNonNull(registry, "registry");
      gauge("onceonly.intents.pending", Tags.empty(), s -> s.pendingIntents());
      TimeGauge.builder(
              "onceonly.intents.oldest.pending.age",
              this,
              TimeUnit.SECONDS,
              g -> g.seconds(s -> s.oldestPending().map(p -> p.age()).orElse(Duration.ZERO)))
          .tags(common)
          .register(registry);
      TimeGauge.builder(
              "onceonly.queue.oldest.due.age",
              this,
              TimeUnit.SECONDS,
              g -> g.seconds(s -> s.oldestDueAge().orElse(Duration.ZERO)))
          .tags(common)
          .register(registry);
      gauge("onceonly.external.unknown", Tags.empty(), s -> s.claims().getOrDefault("UNKNOWN", 0L));
      FunctionCounter.builder("onceonly.status.failures", failures, AtomicLong::get)
          .tags(common)
          .register(registry);
      sample();
      sampler =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "onceonly-gauges");
                t.setDaemon(true);
                return t;
              });
      long millis = every.toMillis();
      sampler.scheduleWithFixedDelay(this::sample, millis, millis, TimeUnit.MILLISECONDS);

    } finally {
      lock.unlock();
    }
  }

  /**
   * Reads the counts now and updates the gauges (the interval does this on its own). A failure is
   * counted and logged, never thrown.
   */
  public void sample() {
    lock.lock();
    try {
      MeterRegistry r = registry;
      if (r == null) {
        return;
      }
      Backlog status;
      try {
        status = maintenance.backlog();
      } catch (RuntimeException e) {
        failures.incrementAndGet();
        LOG.log(
            failing ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
            "cannot read the store's status for the gauges; they keep the last sample"
                + (failing ? "" : " (further failures at DEBUG until a sample succeeds)"),
            e);
        failing = true;
        return;
      }
      failing = false;
      last = status;
      for (String queue : status.messages().keySet()) {
        addQueue(queue);
      }
      for (String queue : status.deadLetters().keySet()) {
        addQueue(queue);
      }

    } finally {
      lock.unlock();
    }
  }

  private void addQueue(String queue) {
    if (!queuesSeen.add(queue)) {
      return;
    }
    Tags q = Tags.of("queue", queue);
    gauge("onceonly.queue.messages", q.and("state", "due"), s -> counts(s, queue).due());
    gauge("onceonly.queue.messages", q.and("state", "leased"), s -> counts(s, queue).leased());
    gauge("onceonly.queue.messages", q.and("state", "delayed"), s -> counts(s, queue).delayed());
    gauge("onceonly.queue.dead.letters", q, s -> s.deadLetters().getOrDefault(queue, 0L));
  }

  private static StoreStatus.QueueCounts counts(Backlog s, String queue) {
    return s.messages().getOrDefault(queue, NONE);
  }

  private static final StoreStatus.QueueCounts NONE = new StoreStatus.QueueCounts(0, 0, 0);

  private void gauge(String name, Tags tags, ToDoubleFunction<Backlog> value) {
    Gauge.builder(name, this, g -> g.value(value))
        .tags(common.and(tags))
        .strongReference(true)
        .register(registry);
  }

  private double value(ToDoubleFunction<Backlog> value) {
    Backlog s = last;
    return s == null ? Double.NaN : value.applyAsDouble(s);
  }

  private double seconds(java.util.function.Function<Backlog, Duration> age) {
    Backlog s = last;
    return s == null ? Double.NaN : age.apply(s).toNanos() / 1e9;
  }

  /** Stops sampling; the gauges keep showing the last sample. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (sampler != null) {
        sampler.shutdownNow();
      }

    } finally {
      lock.unlock();
    }
  }
}
