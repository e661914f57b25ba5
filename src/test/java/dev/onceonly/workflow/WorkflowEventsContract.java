package dev.onceonly.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.micrometer.OnceOnlyMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Workflows, observed: each step's settlement and each change of a run's state is an event and a
 * meter, and every step and compensation carries the trace context of the run's start, whatever the
 * trace of the thread that happens to send it.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class WorkflowEventsContract extends WorkflowContractSupport {
  static final String START = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  static final String WORKER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void everyStepAndCompensationIsCountedAndCarriesTheTraceOfTheRunsStart() {
    // Each instance publishes on a thread of its own: each one's events are in order.
    List<OnceOnlyEvent> started = new CopyOnWriteArrayList<>();
    List<OnceOnlyEvent> seen = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OnceOnlyMetrics metrics = OnceOnlyMetrics.of(registry);
    once.close();
    OnceOnly starter =
        db.builder().clock(clock).traceContext(() -> START).listener(started::add).build();
    // The worker's instance has a trace of its own: the steps it sends must not take it.
    OnceOnly worker =
        db.builder()
            .clock(clock)
            .traceContext(() -> WORKER)
            .listener(seen::add)
            .listener(metrics)
            .build();
    once = worker;
    try {
      starter.workflows().start(WorkflowFailureContract.FIVE, "t-1", Map.of());
      Map<String, String> traces = new ConcurrentHashMap<>();
      StepHandler tracing =
          (step, tx) -> {
            traces.put(
                step.step() + (step.compensation() ? ":undo" : ""),
                String.valueOf(step.job().delivery().traceparent()));
            return WorkflowFailureContract.D_FAILS.run(step, tx);
          };
      drain(tracing, "steps", "undo");
      assertThat(starter.events().drain(Duration.ofSeconds(30))).isTrue();
      assertThat(worker.events().drain(Duration.ofSeconds(30))).isTrue();

      assertThat(traces)
          .containsOnlyKeys("a", "b", "c", "d", "c:undo", "b:undo", "a:undo")
          .allSatisfy((step, trace) -> assertThat(trace).as(step).isEqualTo(START));

      List<String> steps =
          seen.stream()
              .filter(OnceOnlyEvent.WorkflowStepSettled.class::isInstance)
              .map(OnceOnlyEvent.WorkflowStepSettled.class::cast)
              .peek(e -> assertThat(e.traceparent()).isEqualTo(START))
              .map(e -> e.step() + "=" + e.result())
              .toList();
      assertThat(steps)
          .containsExactly(
              "a=completed",
              "b=completed",
              "c=completed",
              "d=failed",
              "e=cancelled",
              "c=compensated",
              "b=compensated",
              "a=compensated");
      List<String> states =
          seen.stream()
              .filter(OnceOnlyEvent.WorkflowRunChanged.class::isInstance)
              .map(OnceOnlyEvent.WorkflowRunChanged.class::cast)
              .map(e -> e.workflow() + "=" + e.state())
              .toList();
      assertThat(states).containsExactly("five=compensating", "five=failed");
      assertThat(started)
          .filteredOn(OnceOnlyEvent.WorkflowRunChanged.class::isInstance)
          .containsExactly(new OnceOnlyEvent.WorkflowRunChanged("five", "running", START));

      assertThat(count(registry, "onceonly.workflow.steps", "a", "completed")).isEqualTo(1);
      assertThat(count(registry, "onceonly.workflow.steps", "a", "compensated")).isEqualTo(1);
      assertThat(count(registry, "onceonly.workflow.steps", "d", "failed")).isEqualTo(1);
      assertThat(count(registry, "onceonly.workflow.steps", "e", "cancelled")).isEqualTo(1);
      assertThat(
              registry
                  .get("onceonly.workflow.step.duration")
                  .tags("workflow", "five", "step", "c", "result", "compensated")
                  .timer()
                  .count())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("onceonly.workflow.runs")
                  .tags("workflow", "five", "state", "failed")
                  .counter()
                  .count())
          .isEqualTo(1);
      // The start was counted by the starter's listener only: the worker's registry has the rest.
      assertThat(registry.find("onceonly.workflow.runs").tag("state", "running").counter())
          .isNull();
    } finally {
      starter.close();
    }
    reopen();
    WorkflowRun run = once.workflows().find("t-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.FAILED);
    assertThat(undoOrder()).containsExactly("t-1:c:undo", "t-1:b:undo", "t-1:a:undo");
  }

  private static double count(
      SimpleMeterRegistry registry, String name, String step, String result) {
    return registry
        .get(name)
        .tags("workflow", "five", "step", step, "result", result)
        .counter()
        .count();
  }

  @Test
  void aRunStartedWithoutATraceSendsItsStepsWithoutOne() {
    once.workflows().start(WorkflowContract.CHAIN, "plain", Map.of());
    Map<String, String> traces = new ConcurrentHashMap<>();
    drain(
        (step, tx) -> {
          traces.put(step.step(), String.valueOf(step.job().delivery().traceparent()));
          return EFFECT.run(step, tx);
        },
        "q1",
        "q2");
    assertThat(traces).containsOnlyKeys("a", "b", "c").containsValues("null");
    assertThat(traces.values()).containsOnly("null");
  }
}
