package dev.onceonly.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.MariaDbContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.SqliteContractDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five-step workflows across SIGKILLs: a worker process ({@link WorkflowWorkerMain}) is killed at a
 * random point (after a random number of further effect rows, so inside a step's transaction,
 * between a commit and the next claim, or while idle) twice per run, then a last one finishes the
 * runs. Read from the database afterwards, through a fresh instance: every run is over, every
 * step's effect exists exactly once, the runs whose step {@code e} fails were compensated once per
 * completed step, and nothing is queued.
 *
 * <p>On SQLite, PostgreSQL and MariaDB. {@value #DEFAULT_RUNS} runs per database in {@code mvn
 * verify}; {@code -Donceonly.workflow.crash.runs=20} for the full set, {@code
 * -Donceonly.workflow.crash.seed} for other kill points.
 */
@Tag("slow")
class WorkflowCrashTest {
  static final int DEFAULT_RUNS = 3;
  static final int RUNS = Integer.getInteger("onceonly.workflow.crash.runs", DEFAULT_RUNS);
  static final long SEED = Long.getLong("onceonly.workflow.crash.seed", 17L);
  static final int WORKFLOWS = 6;
  static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;

  @Test
  void sqliteWorkersKilledAtRandomPointsLeaveEachStepAndCompensationDoneOnce() {
    Assumptions.assumeTrue(ContractDatabases.isChosen("sqlite"));
    Random random = new Random(SEED);
    for (int run = 0; run < RUNS; run++) {
      Path runDir = dir.resolve("run-" + run);
      runDir.toFile().mkdirs();
      SqliteContractDatabase db = SqliteContractDatabase.in(runDir);
      crashAndCheck(db, runDir, random, "file=" + db.file());
    }
  }

  @Test
  void postgresWorkersKilledAtRandomPointsLeaveEachStepAndCompensationDoneOnce() throws Exception {
    Assumptions.assumeTrue(ContractDatabases.isChosen("postgresql"));
    Random random = new Random(SEED + 1);
    for (int run = 0; run < RUNS; run++) {
      try (PostgresContractDatabase db = PostgresContractDatabase.create()) {
        crashAndCheck(db, dir, random, "url=" + db.url());
      }
    }
  }

  @Test
  void mariadbWorkersKilledAtRandomPointsLeaveEachStepAndCompensationDoneOnce() throws Exception {
    Assumptions.assumeTrue(ContractDatabases.isChosen("mariadb"));
    Random random = new Random(SEED + 2);
    for (int run = 0; run < RUNS; run++) {
      try (MariaDbContractDatabase db = MariaDbContractDatabase.create()) {
        crashAndCheck(db, dir, random, "url=" + db.url());
      }
    }
  }

  private void crashAndCheck(ContractDatabase db, Path logs, Random random, String target) {
    try (OnceOnly once = db.open(java.time.Clock.systemUTC())) {
      db.exec("CREATE TABLE effects (message_key VARCHAR(300) NOT NULL, holder VARCHAR(100))");
      for (int i = 0; i < WORKFLOWS; i++) {
        String id = "w" + i + (i % 2 == 0 ? "-fail" : "-ok");
        once.workflows().start(WorkflowWorkerMain.FIVE, id, Map.of("n", i));
      }
      for (int kill = 0; kill < 2; kill++) {
        ChildJvm child = start(logs, target, "killed-" + kill);
        try {
          // the kill lands after a random number of further effects (or once every run is over)
          long killAt = db.count("SELECT COUNT(*) FROM effects") + 1 + random.nextInt(12);
          dev.onceonly.testing.Eventually.await(
              WAIT,
              "the child's progress to " + killAt + " effects",
              () -> db.count("SELECT COUNT(*) FROM effects") >= killAt || allOver(once));
        } finally {
          child.kill();
          child.close();
        }
      }
      ChildJvm last = start(logs, target, "last");
      try {
        dev.onceonly.testing.Eventually.await(WAIT, "every run over", () -> allOver(once));
      } finally {
        last.close();
      }
    }
    try (OnceOnly reopened = db.open(java.time.Clock.systemUTC())) {
      for (int i = 0; i < WORKFLOWS; i++) {
        boolean fails = i % 2 == 0;
        String id = "w" + i + (fails ? "-fail" : "-ok");
        WorkflowRun run = reopened.workflows().find(id).orElseThrow();
        assertThat(run.state())
            .as(id)
            .isEqualTo(fails ? WorkflowState.FAILED : WorkflowState.COMPLETED);
        for (String s : new String[] {"a", "b", "c", "d"}) {
          assertThat(effects(db, id + ":" + s)).as(id + ":" + s).isOne();
          assertThat(effects(db, id + ":" + s + ":undo"))
              .as(id + ":" + s + ":undo")
              .isEqualTo(fails ? 1 : 0);
        }
        assertThat(effects(db, id + ":e")).as(id + ":e").isEqualTo(fails ? 0 : 1);
      }
      assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
      assertThat(
              db.count(
                  "SELECT COUNT(*) FROM (SELECT message_key FROM effects GROUP BY message_key"
                      + " HAVING COUNT(*) > 1) d"))
          .isZero();
    }
  }

  private static long effects(ContractDatabase db, String key) {
    return db.count("SELECT COUNT(*) FROM effects WHERE message_key = ?", key);
  }

  private static boolean allOver(OnceOnly once) {
    long over = 0;
    for (WorkflowState s : new WorkflowState[] {WorkflowState.COMPLETED, WorkflowState.FAILED}) {
      over += once.workflows().list(s, 1000).size();
    }
    return over == WORKFLOWS;
  }

  private static ChildJvm start(Path logs, String target, String name) {
    ChildJvm child =
        ChildJvm.start(
            "workflow-" + name, logs, WorkflowWorkerMain.class, target, "leaseMs=500", "threads=2");
    child.awaitLine("ready", Duration.ofSeconds(60));
    return child;
  }
}
