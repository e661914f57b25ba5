package dev.onceonly.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Workflows, when things go wrong: a step that fails for good stops the run and the completed
 * steps' compensations run once each, in reverse order of completion; a dependency declared {@code
 * afterEvenIfFailed} lets its dependent run; cancel stops the run (compensating if asked); signals
 * are delivered once. Rows are checked after reopening the database.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class WorkflowFailureContract extends WorkflowContractSupport {
  static final Workflow FIVE =
      Workflow.named("five")
          .step("a", "steps")
          .compensatedBy("undo")
          .step("b", "steps")
          .after("a")
          .compensatedBy("undo")
          .step("c", "steps")
          .after("b")
          .compensatedBy("undo")
          .step("d", "steps")
          .after("c")
          .compensatedBy("undo")
          .step("e", "steps")
          .after("d")
          .build();

  /** {@link #EFFECT}, except that step {@code d} fails for good. */
  static final StepHandler D_FAILS =
      (step, tx) -> {
        if (!step.compensation() && step.step().equals("d")) {
          throw new InvalidRequestException("d", "cannot be done");
        }
        return EFFECT.run(step, tx);
      };

  @Test
  void aFailingStepAfterThreeCompletedOnesCompensatesThemInReverseOrderOnce() {
    once.workflows().start(FIVE, "f-1", Map.of());
    drain(D_FAILS, "steps", "undo");

    reopen();
    WorkflowRun run = once.workflows().find("f-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.FAILED);
    assertThat(run.error()).contains("step d failed").contains("cannot be done");
    assertThat(run.step("d").state()).isEqualTo(StepState.FAILED);
    assertThat(run.step("d").compensation()).as("never completed: nothing to undo").isEmpty();
    assertThat(run.step("e").state()).isEqualTo(StepState.CANCELLED);
    for (String s : List.of("a", "b", "c")) {
      assertThat(run.step(s).state()).isEqualTo(StepState.COMPLETED);
      assertThat(run.step(s).compensation()).contains(CompensationState.COMPLETED);
      assertThat(effects("f-1:" + s)).isOne();
      assertThat(effects("f-1:" + s + ":undo")).isOne();
    }
    assertThat(undoOrder()).containsExactly("f-1:c:undo", "f-1:b:undo", "f-1:a:undo");
    assertThat(effects("f-1:d") + effects("f-1:e")).isZero();
    assertThat(messages("steps") + messages("undo")).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isOne();

    // A stray copy of a compensation that ran, and of the failed step: nothing changes.
    once.queue()
        .send(
            Message.of(
                "undo", "wfc:f-1:b", Map.of("workflow", "f-1", "step", "b", "compensation", true)));
    drain(EFFECT, "steps", "undo");
    assertThat(effects("f-1:b:undo")).isOne();
    assertThat(effects()).isEqualTo(6);
  }

  @Test
  void aStepWhoseRetriesRunOutFailsTheRunWithItsAttempts() {
    JobQueue twice =
        once.queue(RetryPolicy.builder().maxAttempts(2).baseDelay(Duration.ofSeconds(1)).build());
    Workflow two =
        Workflow.named("two")
            .step("a", "steps")
            .compensatedBy("undo")
            .step("b", "steps")
            .after("a")
            .build();
    once.workflows().start(two, "r-1", Map.of());
    StepHandler bFails =
        (step, tx) -> {
          if (step.step().equals("b") && !step.compensation()) {
            throw new IllegalStateException("provider down");
          }
          return EFFECT.run(step, tx);
        };
    drain(twice, once.workflows().handler(bFails), "steps");
    clock.advance(Duration.ofMinutes(5));
    drain(twice, once.workflows().handler(bFails), "steps", "undo");
    reopen();
    WorkflowRun run = once.workflows().find("r-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.FAILED);
    assertThat(run.step("b").state()).isEqualTo(StepState.FAILED);
    assertThat(run.step("b").attempts()).isEqualTo(2);
    assertThat(run.step("b").error()).contains("provider down");
    assertThat(effects("r-1:a:undo")).isOne();
  }

  @Test
  void aDependentDeclaredEvenIfFailedRunsAndTheRunCompletes() {
    Workflow tolerant =
        Workflow.named("tolerant")
            .step("a", "steps")
            .step("b", "steps")
            .step("c", "steps")
            .after("a")
            .afterEvenIfFailed("b")
            .build();
    StepHandler bFails =
        (step, tx) -> {
          if (step.step().equals("b")) {
            throw new InvalidRequestException("b", "optional and broken");
          }
          return EFFECT.run(step, tx);
        };
    once.workflows().start(tolerant, "t-1", Map.of());
    drain(bFails, "steps");
    reopen();
    WorkflowRun run = once.workflows().find("t-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.COMPLETED);
    assertThat(run.step("b").state()).isEqualTo(StepState.FAILED);
    assertThat(run.step("c").state()).isEqualTo(StepState.COMPLETED);
    assertThat(run.step("c").result().get("read").has("a")).isTrue();
    assertThat(run.step("c").result().get("read").has("b")).as("b has no result").isFalse();

    // The default: the same failure without the option stops the run.
    Workflow strict =
        Workflow.named("strict")
            .step("a", "steps")
            .step("b", "steps")
            .step("c", "steps")
            .after("a", "b")
            .build();
    once.workflows().start(strict, "s-1", Map.of());
    drain(bFails, "steps");
    assertThat(once.workflows().find("s-1").orElseThrow().state()).isEqualTo(WorkflowState.FAILED);
    assertThat(effects("s-1:c")).isZero();
  }

  @Test
  void cancelWithdrawsQueuedStepsFencesARunningOneAndCompensatesIfAsked() {
    once.workflows().start(FIVE, "c-1", Map.of());
    drain(EFFECT, "steps"); // runs every step: start another to cancel midway
    once.workflows().start(FIVE, "c-2", Map.of());
    Delivery a = only(once.queue().receive("steps", 1, LEASE));
    assertThat(Worker.handleOnce(once.queue(), a, once.workflows().handler(EFFECT)))
        .isInstanceOf(QueueResult.Completed.class);
    Delivery running = only(once.queue().receive("steps", 1, LEASE)); // b, being handled
    assertThat(once.workflows().cancel("c-2", true)).isTrue();
    assertThat(once.workflows().cancel("c-2", true)).as("once").isFalse();
    assertThat(once.workflows().cancel("c-1", true)).as("finished").isFalse();
    assertThat(Worker.handleOnce(once.queue(), running, once.workflows().handler(EFFECT)))
        .as("withdrawn under its holder")
        .isInstanceOf(QueueResult.LeaseLost.class);
    drain(EFFECT, "steps", "undo");

    reopen();
    WorkflowRun run = once.workflows().find("c-2").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.CANCELLED);
    assertThat(run.step("a").compensation()).contains(CompensationState.COMPLETED);
    assertThat(run.step("b").state()).isEqualTo(StepState.CANCELLED);
    assertThat(effects("c-2:a")).isOne();
    assertThat(effects("c-2:a:undo")).isOne();
    assertThat(effects("c-2:b")).isZero();
    assertThat(messages("steps") + messages("undo")).isZero();

    once.workflows().start(FIVE, "c-3", Map.of());
    assertThat(once.workflows().cancel("c-3", false)).isTrue();
    drain(EFFECT, "steps", "undo");
    assertThat(once.workflows().find("c-3").orElseThrow().state())
        .isEqualTo(WorkflowState.CANCELLED);
    assertThat(effects("c-3:a")).isZero();
    assertThat(once.workflows().list(WorkflowState.CANCELLED, 10))
        .extracting(WorkflowRun::id)
        .containsExactly("c-2", "c-3");
  }

  @Test
  void aSignalIsDeliveredOnceAndMakesItsStepDue() {
    Workflow approval =
        Workflow.named("approval")
            .step("a", "steps")
            .step("b", "steps")
            .after("a")
            .awaitSignal("approved")
            .build();
    once.workflows().start(approval, "s-1", Map.of());
    drain(EFFECT, "steps");
    assertThat(once.workflows().find("s-1").orElseThrow().step("b").state())
        .isEqualTo(StepState.WAITING);
    assertThat(messages("steps")).isZero();
    assertThat(once.workflows().signal("s-1", "other", Map.of()))
        .isEqualTo(SignalResult.NOT_AWAITED);
    assertThat(once.workflows().signal("nope", "approved", Map.of()))
        .isEqualTo(SignalResult.NOT_AWAITED);
    assertThat(once.workflows().signal("s-1", "approved", Map.of("by", "ana")))
        .isEqualTo(SignalResult.DELIVERED);
    assertThat(once.workflows().signal("s-1", "approved", Map.of("by", "bob")))
        .isEqualTo(SignalResult.REPEATED);
    assertThat(messages("steps")).isOne();
    StepHandler readsSignal =
        (step, tx) -> {
          EFFECT.run(step, tx);
          return step.signal();
        };
    drain(readsSignal, "steps");

    // A signal that arrives before the step's dependencies completed is kept for it.
    once.workflows().start(approval, "s-2", Map.of());
    assertThat(once.workflows().signal("s-2", "approved", Map.of("by", "eve")))
        .isEqualTo(SignalResult.DELIVERED);
    drain(readsSignal, "steps");

    reopen();
    WorkflowRun first = once.workflows().find("s-1").orElseThrow();
    assertThat(first.state()).isEqualTo(WorkflowState.COMPLETED);
    assertThat(first.step("b").result().get("by").asText()).isEqualTo("ana");
    assertThat(once.workflows().find("s-2").orElseThrow().step("b").result().get("by").asText())
        .isEqualTo("eve");
    assertThat(effects("s-1:b") + effects("s-2:b")).isEqualTo(2);
  }
}
