package dev.onceonly.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.ConflictException;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Worker;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Workflows, core: a run starts in one transaction (joining the caller's), its steps run once and
 * in order, a fan-in is sent once when its last dependency completes, and a late or repeated
 * delivery changes nothing. Rows are checked after reopening the database.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class WorkflowContract extends WorkflowContractSupport {
  static final Workflow CHAIN =
      Workflow.named("chain")
          .step("a", "q1")
          .step("b", "q2")
          .after("a")
          .step("c", "q1")
          .after("b")
          .build();

  static final Workflow DIAMOND =
      Workflow.named("diamond")
          .step("a", "q1")
          .step("b", "q2")
          .after("a")
          .step("c", "q3")
          .after("a")
          .step("d", "q2")
          .after("b", "c")
          .build();

  @Test
  void aChainRunsEachStepOnceInOrderAndReadsTheStoredResults() {
    Outcome<WorkflowRun> started = once.workflows().start(CHAIN, "run-1", Map.of("order", 7));
    assertThat(started).isInstanceOf(Outcome.Created.class);
    assertThat(messages("q1")).isOne();
    assertThat(messages("q2")).isZero();
    assertThat(drain(EFFECT, "q1", "q2")).isEqualTo(3);

    reopen();
    WorkflowRun run = once.workflows().find("run-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.COMPLETED);
    assertThat(run.input().get("order").asInt()).isEqualTo(7);
    assertThat(run.steps())
        .extracting(WorkflowRun.StepRun::state)
        .containsOnly(StepState.COMPLETED);
    assertThat(run.step("c").result().get("read").get("b").get("step").asText()).isEqualTo("b");
    assertThat(run.step("b").attempts()).isOne();
    for (String s : List.of("a", "b", "c")) {
      assertThat(effects("run-1:" + s)).as(s).isOne();
    }
    assertThat(effects()).isEqualTo(3);
    assertThat(messages("q1") + messages("q2")).isZero();
    assertThat(once.workflows().list(WorkflowState.COMPLETED, 10))
        .extracting(WorkflowRun::id)
        .containsExactly("run-1");
  }

  @Test
  void startingAgainIsRepeatedWithTheSameInputAndAConflictWithAnother() {
    once.workflows().start(CHAIN, "run-1", Map.of("order", 7));
    Outcome<WorkflowRun> again = once.workflows().start(CHAIN, "run-1", Map.of("order", 7));
    assertThat(again).isInstanceOf(Outcome.Repeated.class);
    assertThat(again.resultOrThrow().step("a").state()).isEqualTo(StepState.QUEUED);
    Outcome<WorkflowRun> other = once.workflows().start(CHAIN, "run-1", Map.of("order", 8));
    assertThat(other).isInstanceOf(Outcome.Conflict.class);
    assertThatThrownBy(other::resultOrThrow).isInstanceOf(ConflictException.class);
    Outcome<WorkflowRun> otherWorkflow =
        once.workflows().start(DIAMOND, "run-1", Map.of("order", 7));
    assertThat(otherWorkflow).isInstanceOf(Outcome.Conflict.class);
    reopen();
    assertThat(messages("q1")).as("one first step, sent once").isOne();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_workflow_steps")).isEqualTo(3);
  }

  @Test
  void aStartInsideACallersTransactionCommitsWithItOrNotAtAll() throws Exception {
    db.exec("CREATE TABLE orders (order_id VARCHAR(20) PRIMARY KEY)");
    assertThatThrownBy(
            () ->
                once.inTransaction(
                    tx -> {
                      try (PreparedStatement ps =
                          tx.prepareStatement("INSERT INTO orders VALUES ('o-1')")) {
                        ps.executeUpdate();
                      }
                      once.workflows().start(tx, CHAIN, "o-1", Map.of("order", 1));
                      throw new IllegalStateException("the caller changes its mind");
                    }))
        .hasMessageContaining("changes its mind");
    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM orders")).isZero();
    assertThat(once.workflows().find("o-1")).isEmpty();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_workflows")).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_workflow_steps")).isZero();
    assertThat(messages("q1")).isZero();

    once.inTransaction(
        tx -> {
          try (PreparedStatement ps = tx.prepareStatement("INSERT INTO orders VALUES ('o-1')")) {
            ps.executeUpdate();
          }
          return once.workflows().start(tx, CHAIN, "o-1", Map.of("order", 1));
        });
    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM orders")).isOne();
    assertThat(once.workflows().find("o-1")).isPresent();
    assertThat(messages("q1")).isOne();
  }

  @Test
  void aFanOutRunsBothBranchesAndTheFanInOnceWithBothResults() {
    once.workflows().start(DIAMOND, "d-1", Map.of());
    drain(EFFECT, "q1");
    assertThat(messages("q3")).as("c queued after a").isOne();
    assertThat(messages("q2")).as("b queued after a").isOne();
    drain(EFFECT, "q1", "q2", "q3");
    reopen();
    WorkflowRun run = once.workflows().find("d-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.COMPLETED);
    assertThat(run.step("d").result().get("read").has("b")).isTrue();
    assertThat(run.step("d").result().get("read").has("c")).isTrue();
    assertThat(effects("d-1:d")).isOne();
    assertThat(effects()).isEqualTo(4);
  }

  /**
   * The last two dependencies of a fan-in complete at once on two threads, twenty times: the fan-in
   * is sent exactly once each time (the completions take the run's row lock in turn, and the step
   * moves from waiting to queued by a conditional update).
   */
  @Test
  void twoRacingCompletionsOfTheLastDependenciesSendTheFanInOnce() throws Exception {
    Handler handler = once.workflows().handler(EFFECT);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int i = 0; i < 20; i++) {
        String id = "race-" + i;
        once.workflows().start(DIAMOND, id, Map.of());
        drain(EFFECT, "q1"); // a, which sends b (q2) and c (q3)
        Delivery c = only(once.queue().receive("q3", 10, LEASE));
        Delivery b = only(once.queue().receive("q2", 10, LEASE));
        CyclicBarrier gate = new CyclicBarrier(2);
        List<Future<QueueResult>> both = new ArrayList<>();
        for (Delivery d : List.of(b, c)) {
          both.add(
              pool.submit(
                  () -> {
                    gate.await();
                    return Worker.handleOnce(once.queue(), d, handler);
                  }));
        }
        for (Future<QueueResult> f : both) {
          assertThat(f.get()).isInstanceOf(QueueResult.Completed.class);
        }
        assertThat(messages("q2")).as("the fan-in d of " + id).isOne();
        drain(EFFECT, "q2");
      }
    } finally {
      pool.shutdownNow();
    }
    reopen();
    assertThat(duplicatedEffects()).isZero();
    assertThat(effects()).isEqualTo(80);
    assertThat(once.workflows().list(WorkflowState.COMPLETED, 100)).hasSize(20);
  }

  /**
   * A step delivered twice: its first holder stalls past its lease and a second one takes it over;
   * both run the handler, one commits. Then a stray copy of a completed step's message arrives: it
   * is acknowledged and changes nothing.
   */
  @Test
  void aStepDeliveredTwiceHasItsEffectOnce() {
    once.workflows().start(CHAIN, "dup-1", Map.of());
    Handler handler = once.workflows().handler(EFFECT);
    Delivery first = only(once.queue().receive("q1", 1, LEASE));
    clock.advance(LEASE.multipliedBy(2));
    Delivery second = only(once.queue().receive("q1", 1, LEASE));
    assertThat(Worker.handleOnce(once.queue(), second, handler))
        .isInstanceOf(QueueResult.Completed.class);
    assertThat(Worker.handleOnce(once.queue(), first, handler))
        .isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(messages("q2")).as("b sent once").isOne();

    Message stray = Message.of("q1", "wf:dup-1:a", Map.of("workflow", "dup-1", "step", "a"));
    assertThat(once.queue().send(stray).status())
        .isEqualTo(dev.onceonly.queue.SendResult.Status.SENT);
    drain(EFFECT, "q1");
    drain(EFFECT, "q1", "q2");
    reopen();
    assertThat(effects("dup-1:a")).isOne();
    assertThat(effects()).isEqualTo(3);
    assertThat(once.workflows().find("dup-1").orElseThrow().state())
        .isEqualTo(WorkflowState.COMPLETED);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  @Test
  void purgingDeletesFinishedRunsOlderThanTheCutInBoundedBatchesAndNothingElse() {
    for (int i = 0; i < 3; i++) {
      once.workflows().start(CHAIN, "old-" + i, Map.of());
    }
    drain(EFFECT, "q1", "q2");
    once.workflows().start(CHAIN, "running", Map.of()); // started before the cut, not finished
    clock.advance(java.time.Duration.ofDays(2));
    java.time.Instant cut = clock.instant().minus(java.time.Duration.ofDays(1));
    once.workflows().start(CHAIN, "new", Map.of());
    drain(EFFECT, "q2"); // nothing of "new" or "running" finishes: their first steps are on q1

    assertThat(once.workflows().purgeFinished(cut, 2)).isEqualTo(2);
    assertThat(once.workflows().purgeFinished(cut, 2)).isEqualTo(1);
    assertThat(once.workflows().purgeFinished(cut, 2)).isZero();
    reopen();
    assertThat(db.strings("SELECT workflow_id FROM onceonly_workflows ORDER BY workflow_id"))
        .containsExactly("new", "running");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_workflow_steps")).isEqualTo(6);
    assertThat(once.workflows().start(CHAIN, "old-0", Map.of("again", true)))
        .as("a purged id may start again")
        .isInstanceOf(Outcome.Created.class);
  }

  @Test
  void badDefinitionsAndIdsAreRefusedWithNothingWritten() {
    assertThatThrownBy(() -> Workflow.named("w").step("a", "q").after("b").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not declared before it");
    assertThatThrownBy(() -> Workflow.named("w").step("a", "q").step("a", "q").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("declared twice");
    assertThatThrownBy(() -> Workflow.named("bad name"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> once.workflows().start(CHAIN, "bad id!", Map.of()))
        .isInstanceOf(dev.onceonly.InvalidRequestException.class);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_workflows")).isZero();
  }
}
