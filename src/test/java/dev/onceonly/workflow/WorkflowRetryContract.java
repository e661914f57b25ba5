package dev.onceonly.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Uniqueness;
import dev.onceonly.queue.Worker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Workflows#retry}: a failed or cancelled run runs again from where its effects stand (the
 * steps whose effect stands are not run again, the failed, cancelled and compensated ones are), the
 * re-sent messages never meet the earlier ones' keys, a late delivery or dead-lettering of an
 * earlier message changes nothing, a retry of a run that is not over changes no row, and of two
 * retries at once one does it. Effect rows are counted after reopening the database.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class WorkflowRetryContract extends WorkflowContractSupport {
  static final Workflow FIVE = WorkflowFailureContract.FIVE;

  /** {@link #EFFECT}, with step {@code d} failing for good while {@link #broken} is set. */
  final AtomicBoolean broken = new AtomicBoolean(true);

  final StepHandler dFailsWhileBroken =
      (step, tx) -> {
        if (broken.get() && !step.compensation() && step.step().equals("d")) {
          throw new InvalidRequestException("d", "cannot be done");
        }
        return EFFECT.run(step, tx);
      };

  /** The effect rows a failed-then-retried run of {@link #FIVE} leaves, per key. */
  static Map<String, Long> afterFailAndRetry(String id) {
    Map<String, Long> rows = new LinkedHashMap<>();
    for (String s : List.of("a", "b", "c")) {
      rows.put(id + ":" + s, 2L); // done, undone, done again
      rows.put(id + ":" + s + ":undo", 1L);
    }
    rows.put(id + ":d", 1L);
    rows.put(id + ":d:undo", 0L);
    rows.put(id + ":e", 1L);
    return rows;
  }

  Map<String, Long> effectRows(Map<String, Long> reference) {
    Map<String, Long> found = new LinkedHashMap<>();
    for (String key : reference.keySet()) {
      found.put(key, effects(key));
    }
    return found;
  }

  @Test
  void aFailedRunWithCompensationsRetriedCompletesWithEachEffectAsTheReferenceSays() {
    once.workflows().start(FIVE, "f-1", Map.of());
    drain(dFailsWhileBroken, "steps", "undo");
    assertThat(once.workflows().find("f-1").orElseThrow().state()).isEqualTo(WorkflowState.FAILED);

    broken.set(false);
    assertThat(once.workflows().retry("f-1")).isTrue();
    WorkflowRun retried = once.workflows().find("f-1").orElseThrow();
    assertThat(retried.state()).isEqualTo(WorkflowState.RUNNING);
    assertThat(retried.error()).isNull();
    assertThat(retried.step("a").state()).isEqualTo(StepState.QUEUED);
    for (String s : List.of("b", "c", "d", "e")) {
      assertThat(retried.step(s).state()).as(s).isEqualTo(StepState.WAITING);
      assertThat(retried.step(s).attempts()).as(s).isZero();
      assertThat(retried.step(s).compensation()).as(s).isEmpty();
      assertThat(retried.step(s).error()).as(s).isNull();
    }
    assertThat(messages("steps")).isOne();
    drain(dFailsWhileBroken, "steps", "undo");

    reopen();
    WorkflowRun run = once.workflows().find("f-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.COMPLETED);
    for (String s : List.of("a", "b", "c", "d", "e")) {
      assertThat(run.step(s).state()).as(s).isEqualTo(StepState.COMPLETED);
      assertThat(run.step(s).attempts()).as(s).isOne();
    }
    assertThat(run.step("e").result().get("read").get("d").get("step").asText()).isEqualTo("d");
    assertThat(effectRows(afterFailAndRetry("f-1"))).isEqualTo(afterFailAndRetry("f-1"));
    assertThat(effects()).as("3 x (do, undo, do), d and e").isEqualTo(11);
    assertThat(messages("steps") + messages("undo")).isZero();
    assertThat(once.workflows().retry("f-1")).as("completed: nothing to retry").isFalse();
  }

  @Test
  void aCancelledRunRetriedRunsOnlyTheStepsThatDidNotCompleteAndKeepsTheResults() {
    once.workflows().start(FIVE, "c-1", Map.of());
    Delivery a = only(once.queue().receive("steps", 1, LEASE));
    Worker.handleOnce(once.queue(), a, once.workflows().handler(EFFECT));
    assertThat(once.workflows().cancel("c-1", false)).isTrue();
    WorkflowRun cancelled = once.workflows().find("c-1").orElseThrow();
    assertThat(cancelled.step("b").state()).isEqualTo(StepState.CANCELLED);

    assertThat(once.workflows().retry("c-1")).isTrue();
    WorkflowRun retried = once.workflows().find("c-1").orElseThrow();
    assertThat(retried.step("a").state()).isEqualTo(StepState.COMPLETED);
    assertThat(retried.step("a").result()).isEqualTo(cancelled.step("a").result());
    assertThat(retried.step("b").state())
        .as("its dependency stands: sent")
        .isEqualTo(StepState.QUEUED);
    drain(EFFECT, "steps", "undo");

    reopen();
    assertThat(once.workflows().find("c-1").orElseThrow().state())
        .isEqualTo(WorkflowState.COMPLETED);
    for (String s : List.of("a", "b", "c", "d", "e")) {
      assertThat(effects("c-1:" + s)).as(s).isOne();
      assertThat(effects("c-1:" + s + ":undo")).as(s).isZero();
    }
  }

  @Test
  void theResentStepsDoNotMeetTheKeysOfTheirDeadLetters() {
    once.close();
    once =
        db.builder()
            .clock(clock)
            .uniqueness("steps", Uniqueness.whileQueued().includingDeadLetters())
            .uniqueness("undo", Uniqueness.whileQueued().includingDeadLetters())
            .build();
    once.workflows().start(FIVE, "k-1", Map.of());
    drain(dFailsWhileBroken, "steps", "undo");
    broken.set(false);
    assertThat(once.workflows().retry("k-1")).isTrue();
    drain(dFailsWhileBroken, "steps", "undo");
    assertThat(once.workflows().find("k-1").orElseThrow().state())
        .isEqualTo(WorkflowState.COMPLETED);

    // It fails again (e now) and is compensated a second time: new compensation keys too.
    Workflow two =
        Workflow.named("two")
            .step("a", "steps")
            .compensatedBy("undo")
            .step("b", "steps")
            .after("a")
            .build();
    StepHandler bFails =
        (step, tx) -> {
          if (!step.compensation() && step.step().equals("b")) {
            throw new InvalidRequestException("b", "cannot be done");
          }
          return EFFECT.run(step, tx);
        };
    once.workflows().start(two, "k-2", Map.of());
    drain(bFails, "steps", "undo");
    assertThat(once.workflows().retry("k-2")).isTrue();
    drain(bFails, "steps", "undo");
    assertThat(once.workflows().find("k-2").orElseThrow().state()).isEqualTo(WorkflowState.FAILED);
    reopen();
    assertThat(effects("k-2:a")).isEqualTo(2);
    assertThat(effects("k-2:a:undo")).isEqualTo(2);
    assertThat(effects("k-1:d")).isOne();
  }

  @Test
  void aLateDeliveryOrDeadLetteringOfAnEarlierMessageChangesNothing() {
    Workflow one = Workflow.named("one").step("x", "steps").build();
    StepHandler byKey =
        (step, tx) -> {
          if (broken.get()) {
            throw new InvalidRequestException("x", "cannot be done");
          }
          insert(tx, step.workflowId() + ":" + step.step(), step.job().delivery().key());
          return null;
        };
    once.workflows().start(one, "l-1", Map.of());
    drain(byKey, "steps");
    broken.set(false);
    assertThat(once.workflows().retry("l-1")).isTrue();
    assertThat(once.queue().requeue("steps", "wf:l-1:x")).as("the earlier message, again").isTrue();

    List<Delivery> both = once.queue().receive("steps", 10, LEASE);
    assertThat(both).hasSize(2);
    Delivery old = both.stream().filter(d -> d.key().equals("wf:l-1:x")).findFirst().orElseThrow();
    Delivery current = both.stream().filter(d -> d != old).findFirst().orElseThrow();
    assertThat(current.key()).startsWith("wf:l-1:x.");
    assertThat(Worker.handleOnce(once.queue(), old, once.workflows().handler(byKey)))
        .isInstanceOf(QueueResult.Completed.class);
    assertThat(effects("l-1:x")).as("the earlier message ran nothing").isZero();
    assertThat(once.workflows().find("l-1").orElseThrow().step("x").state())
        .isEqualTo(StepState.QUEUED);

    // The earlier message dead-lettered again (its retries spent) fails nothing either.
    assertThat(once.queue().requeue("steps", "wf:l-1:x")).isFalse(); // acknowledged, not dead
    JobQueue once1 = once.queue(RetryPolicy.builder().maxAttempts(1).build());
    once.queue().send(dev.onceonly.queue.Message.of("steps", "wf:l-1:x", old.payload()));
    Delivery again = only(once.queue().receive("steps", 1, LEASE));
    assertThat(once1.nack(again.lease(), "late and broken"))
        .isInstanceOf(QueueResult.DeadLettered.class);
    assertThat(once.workflows().find("l-1").orElseThrow().state()).isEqualTo(WorkflowState.RUNNING);

    assertThat(Worker.handleOnce(once.queue(), current, once.workflows().handler(byKey)))
        .isInstanceOf(QueueResult.Completed.class);
    reopen();
    WorkflowRun run = once.workflows().find("l-1").orElseThrow();
    assertThat(run.state()).isEqualTo(WorkflowState.COMPLETED);
    assertThat(db.strings("SELECT holder FROM effects WHERE message_key = 'l-1:x'"))
        .containsExactly(current.key());
  }

  @Test
  void aRetryOfARunThatIsNotOverOrUnknownChangesNoRow() throws Exception {
    once.workflows().start(FIVE, "done", Map.of());
    drain(EFFECT, "steps");
    once.workflows().start(FIVE, "running", Map.of());
    Workflow two =
        Workflow.named("two")
            .step("a", "steps")
            .compensatedBy("undo")
            .step("b", "steps")
            .after("a")
            .build();
    once.workflows().start(two, "compensating", Map.of());
    Delivery a =
        only(
            once.queue().receive("steps", 10, LEASE).stream()
                .filter(d -> d.key().startsWith("wf:compensating:"))
                .toList());
    Worker.handleOnce(once.queue(), a, once.workflows().handler(EFFECT));
    Delivery b =
        only(
            once.queue().receive("steps", 10, LEASE).stream()
                .filter(d -> d.key().startsWith("wf:compensating:"))
                .toList());
    Worker.handleOnce(
        once.queue(),
        b,
        once.workflows()
            .handler(
                (step, tx) -> {
                  throw new InvalidRequestException("b", "cannot be done");
                }));
    assertThat(once.workflows().find("done").orElseThrow().state())
        .isEqualTo(WorkflowState.COMPLETED);
    assertThat(once.workflows().find("running").orElseThrow().state())
        .isEqualTo(WorkflowState.RUNNING);
    assertThat(once.workflows().find("compensating").orElseThrow().state())
        .isEqualTo(WorkflowState.COMPENSATING);

    List<String> before = snapshot();
    for (String id : List.of("running", "compensating", "done", "nobody")) {
      assertThat(once.workflows().retry(id)).as(id).isFalse();
    }
    assertThat(snapshot()).isEqualTo(before);
  }

  /** Every column of every run and step row, and the messages' keys, read on a fresh connection. */
  List<String> snapshot() throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = db.connect()) {
      for (String sql :
          List.of(
              "SELECT * FROM onceonly_workflows ORDER BY workflow_id",
              "SELECT * FROM onceonly_workflow_steps ORDER BY workflow_id, step",
              "SELECT queue, message_key, fingerprint FROM onceonly_messages ORDER BY message_key")) {
        try (PreparedStatement ps = c.prepareStatement(sql);
            ResultSet rs = ps.executeQuery()) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= columns; i++) {
              row.append(rs.getString(i)).append('|');
            }
            rows.add(row.toString());
          }
        }
      }
    }
    return rows;
  }

  @Test
  void ofTwoRetriesAtOnceOneSendsEachStepOnce() throws Exception {
    OnceOnly other = db.open(clock);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      int runs = 10;
      for (int i = 0; i < runs; i++) {
        once.workflows().start(FIVE, "race-" + i, Map.of());
      }
      drain(dFailsWhileBroken, "steps", "undo");
      broken.set(false);
      for (int i = 0; i < runs; i++) {
        String id = "race-" + i;
        CyclicBarrier gate = new CyclicBarrier(2);
        List<Future<Boolean>> answers = new ArrayList<>();
        for (OnceOnly instance : List.of(once, other)) {
          answers.add(
              pool.submit(
                  () -> {
                    gate.await();
                    return instance.workflows().retry(id);
                  }));
        }
        int yes = 0;
        for (Future<Boolean> f : answers) {
          yes += f.get() ? 1 : 0;
        }
        assertThat(yes).as(id).isOne();
        assertThat(
                db.count(
                    "SELECT COUNT(*) FROM onceonly_messages WHERE message_key LIKE ?",
                    "wf:" + id + ":%"))
            .as("a sent once")
            .isOne();
      }
      drain(dFailsWhileBroken, "steps", "undo");
    } finally {
      pool.shutdownNow();
      other.close();
    }
    reopen();
    for (int i = 0; i < 10; i++) {
      String id = "race-" + i;
      assertThat(once.workflows().find(id).orElseThrow().state())
          .isEqualTo(WorkflowState.COMPLETED);
      assertThat(effectRows(afterFailAndRetry(id))).isEqualTo(afterFailAndRetry(id));
    }
    assertThat(effects()).isEqualTo(110);
  }
}
