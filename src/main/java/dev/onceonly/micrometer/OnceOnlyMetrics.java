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
 * {@code OnceOnlyBuilder#listener}. It runs on the events' thread, off every step.
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
 * {@code onceonly.queue.ratelimit.use} and {@code onceonly.queue.ratelimit.wait} ({@code queue},
 * {@code scope}); {@code onceonly.queue.pauses} ({@code queue}, {@code change}); {@code
 * onceonly.workflow.runs} ({@code workflow}, {@code state}); {@code onceonly.workflow.steps} and
 * {@code onceonly.workflow.step.duration} ({@code workflow}, {@code step}, {@code result}); {@code
 * onceonly.events.dropped}. Tags hold operation and queue names and fixed outcome words only: a
 * scope or key is never a tag. Thread-safe.
 */
// Micrometer's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
public final class OnceOnlyMetrics implements OnceOnlyListener {
  private final MeterRegistry registry;
  private final Tags common;
  private final Family<StepMeters> steps;
  private final Family<Counter> sends;
  private final Family<DistributionSummary> claimBatch;
  private final Family<Counter> schedulesFired;
  private final Family<Counter> settlements;
  private final Family<Timer> handlerDuration;
  private final Family<Counter> redeliveries;
  private final Family<Counter> externalClaims;
  private final Family<Counter> externalSettlements;
  private final Family<DistributionSummary> groupCommitBatch;
  private final Family<Counter> reconciled;
  private final Family<Timer> reconcilerPass;
  private final Family<Counter> workflowRuns;
  private final Family<DistributionSummary> rateLimitUse;
  private final Family<Timer> rateLimitWaits;
  private final Family<Counter> pauses;
  private final Family<Timer> probes;
  private final ConcurrentMap<String, Family<Counter>> workflowSteps = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Family<Timer>> workflowStepDuration =
      new ConcurrentHashMap<>();

  private OnceOnlyMetrics(MeterRegistry registry, Tags common) {
    this.registry = registry;
    this.common = common;
    this.steps =
        new Family<>(
            "operation",
            "outcome",
            t ->
                new StepMeters(
                    counter("onceonly.receipts.outcomes", t),
                    timer("onceonly.receipts.step.duration", t)));
    this.sends = new Family<>("queue", "status", t -> counter("onceonly.queue.sends", t));
    this.claimBatch = new Family<>("queue", null, t -> summary("onceonly.queue.claim.batch", t));
    this.schedulesFired =
        new Family<>("schedule", "queue", t -> counter("onceonly.schedules.fired", t));
    this.settlements =
        new Family<>("queue", "result", t -> counter("onceonly.queue.settlements", t));
    this.handlerDuration =
        new Family<>("queue", "outcome", t -> timer("onceonly.queue.handler.duration", t));
    this.redeliveries = new Family<>("queue", null, t -> counter("onceonly.queue.redeliveries", t));
    this.externalClaims =
        new Family<>("operation", "outcome", t -> counter("onceonly.external.claims", t));
    this.externalSettlements =
        new Family<>("operation", "outcome", t -> counter("onceonly.external.settlements", t));
    this.groupCommitBatch =
        new Family<>(null, null, t -> summary("onceonly.groupcommit.batch.size", t));
    this.reconciled = new Family<>("result", null, t -> counter("onceonly.reconciler.intents", t));
    this.reconcilerPass =
        new Family<>(null, null, t -> timer("onceonly.reconciler.pass.duration", t));
    this.rateLimitUse =
        new Family<>("queue", "scope", t -> summary("onceonly.queue.ratelimit.use", t));
    this.rateLimitWaits =
        new Family<>("queue", "scope", t -> timer("onceonly.queue.ratelimit.wait", t));
    this.workflowRuns =
        new Family<>("workflow", "state", t -> counter("onceonly.workflow.runs", t));
    this.pauses = new Family<>("queue", "change", t -> counter("onceonly.queue.pauses", t));
    this.probes = new Family<>("operation", "answer", t -> timer("onceonly.external.probes", t));
  }

  /** A step's two meters, found together by operation and outcome. */
  private record StepMeters(Counter outcomes, Timer duration) {}

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
      StepMeters m = steps.get(e.operation(), e.outcome());
      m.outcomes().increment();
      m.duration().record(e.duration());
    } else if (event instanceof OnceOnlyEvent.MessageSent e) {
      sends.get(e.queue(), e.status()).increment();
    } else if (event instanceof OnceOnlyEvent.MessagesClaimed e) {
      claimBatch.get(e.queue(), "").record(e.count());
    } else if (event instanceof OnceOnlyEvent.ScheduleFired e) {
      schedulesFired.get(e.schedule(), e.queue()).increment();
    } else if (event instanceof OnceOnlyEvent.MessageSettled e) {
      settlements.get(e.queue(), e.result()).increment();
    } else if (event instanceof OnceOnlyEvent.JobHandled e) {
      handlerDuration.get(e.queue(), e.failed() ? "failure" : "success").record(e.duration());
      if (e.attempt() > 1) {
        redeliveries.get(e.queue(), "").increment();
      }
    } else if (event instanceof OnceOnlyEvent.ClaimAnswered e) {
      externalClaims.get(e.operation(), e.outcome()).increment();
    } else if (event instanceof OnceOnlyEvent.ClaimSettled e) {
      externalSettlements.get(e.operation(), e.outcome()).increment();
    } else if (event instanceof OnceOnlyEvent.GroupCommitted e) {
      groupCommitBatch.get("", "").record(e.steps());
    } else if (event instanceof OnceOnlyEvent.Reconciled e) {
      reconciled.get("published", "").increment(e.published());
      reconciled.get("already_queued", "").increment(e.alreadyQueued());
      reconciled.get("conflict", "").increment(e.conflicts());
      reconciled.get("dead_lettered", "").increment(e.deadLettered());
      reconcilerPass.get("", "").record(e.duration());
    } else if (event instanceof OnceOnlyEvent.RateLimitUsed e) {
      rateLimitUse.get(e.queue(), e.scope()).record((double) e.used() / e.limit());
      if (!e.waitFor().isZero()) {
        rateLimitWaits.get(e.queue(), e.scope()).record(e.waitFor());
      }
    } else if (event instanceof OnceOnlyEvent.ClaimProbed e) {
      probes.get(e.operation(), e.answer()).record(e.duration());
    } else if (event instanceof OnceOnlyEvent.QueuePauseChanged e) {
      pauses.get(e.queue(), e.change()).increment();
    } else if (event instanceof OnceOnlyEvent.WorkflowRunChanged e) {
      workflowRuns.get(e.workflow(), e.state()).increment();
    } else if (event instanceof OnceOnlyEvent.WorkflowStepSettled e) {
      byWorkflow(workflowSteps, e.workflow(), "onceonly.workflow.steps", this::counter)
          .get(e.step(), e.result())
          .increment();
      if (e.result().equals("completed") || e.result().equals("compensated")) {
        byWorkflow(
                workflowStepDuration, e.workflow(), "onceonly.workflow.step.duration", this::timer)
            .get(e.step(), e.result())
            .record(e.duration());
      }
    }
  }

  /**
   * The meters of a workflow's steps, a family per workflow: three tags ({@code workflow}, {@code
   * step}, {@code result}), still found without building anything per event.
   */
  private <M> Family<M> byWorkflow(
      ConcurrentMap<String, Family<M>> families,
      String workflow,
      String name,
      java.util.function.BiFunction<String, Tags, M> create) {
    Family<M> family = families.get(workflow);
    return family != null
        ? family
        : families.computeIfAbsent(
            workflow,
            w -> new Family<>("step", "result", t -> create.apply(name, t.and("workflow", w))));
  }

  private Counter counter(String name, Tags tags) {
    return Counter.builder(name).tags(tags).register(registry);
  }

  private Timer timer(String name, Tags tags) {
    return Timer.builder(name).tags(tags).register(registry);
  }

  private DistributionSummary summary(String name, Tags tags) {
    return DistributionSummary.builder(name).tags(tags).register(registry);
  }

  /**
   * The meters of one name, found by their one or two tag values: registered with the registry the
   * first time a pair of values is seen, then looked up in two maps, with nothing built per event
   * (neither a key nor the meter's tags, which Micrometer's own lookup would build).
   */
  private final class Family<M> {
    private final String first;
    private final String second;
    private final Function<Tags, M> create;
    private final ConcurrentMap<String, ConcurrentMap<String, M>> byFirst =
        new ConcurrentHashMap<>();

    /** The tag keys; null for none (looked up with "" as the value). */
    Family(String first, String second, Function<Tags, M> create) {
      this.first = first;
      this.second = second;
      this.create = create;
    }

    M get(String a, String b) {
      ConcurrentMap<String, M> bySecond = byFirst.get(a);
      if (bySecond == null) {
        bySecond = byFirst.computeIfAbsent(a, unused -> new ConcurrentHashMap<>());
      }
      M meter = bySecond.get(b);
      return meter != null ? meter : bySecond.computeIfAbsent(b, unused -> register(a, b));
    }

    private M register(String a, String b) {
      Tags tags =
          first == null
              ? Tags.empty()
              : second == null ? Tags.of(first, a) : Tags.of(first, a, second, b);
      return create.apply(common.and(tags));
    }
  }
}
