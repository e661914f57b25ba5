package dev.onceonly.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two instances on one database, each with two workers (two threads each) on the steps' queue and
 * the compensations' queue, race on 200 five-step workflows started from both sides behind a gate,
 * half of them failing at their last step. Afterwards, through a fresh instance: every run is over,
 * each step's effect exists once and each compensation once.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class WorkflowRaceContract extends WorkflowContractSupport {
  static final int RUNS = 200;

  @Test
  void twoInstancesWithTwoWorkersEachRunEveryStepOfTwoHundredWorkflowsOnce() throws Exception {
    OnceOnly other = db.open(clock);
    List<Worker> workers = new ArrayList<>();
    try {
      for (OnceOnly instance : List.of(once, other)) {
        for (String q : List.of(WorkflowWorkerMain.STEPS, WorkflowWorkerMain.UNDO)) {
          workers.add(
              Worker.builder(
                      instance.queue(), q, instance.workflows().handler(WorkflowWorkerMain.STEP))
                  .threads(2)
                  .lease(LEASE)
                  .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
                  .build()
                  .start());
        }
      }
      CyclicBarrier gate = new CyclicBarrier(2);
      List<Thread> starters = new ArrayList<>();
      for (OnceOnly instance : List.of(once, other)) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    gate.await();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  for (int i = 0;
                      i < RUNS;
                      i++) { // both start every run: one Created, one Repeated
                    instance.workflows().start(WorkflowWorkerMain.FIVE, id(i), Map.of("n", i));
                  }
                });
        t.start();
        starters.add(t);
      }
      for (Thread t : starters) {
        t.join();
      }
      Eventually.await(
          Duration.ofSeconds(120),
          "every run over",
          () ->
              once.workflows().list(WorkflowState.COMPLETED, 1000).size()
                      + once.workflows().list(WorkflowState.FAILED, 1000).size()
                  == RUNS);
    } finally {
      workers.forEach(Worker::close);
      other.close();
    }
    reopen();
    assertThat(duplicatedEffects()).isZero();
    assertThat(effects())
        .as("5 steps for each ok run, 4 and 4 undone for each failing one")
        .isEqualTo(RUNS / 2 * 5 + RUNS / 2 * 8);
    assertThat(once.workflows().list(WorkflowState.FAILED, 1000)).hasSize(RUNS / 2);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_workflows")).isEqualTo(RUNS);
  }

  static String id(int i) {
    return "r" + i + (i % 2 == 0 ? "-fail" : "-ok");
  }
}
