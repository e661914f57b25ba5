package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint pattern across SIGKILLs: a job of {@value #STEPS} steps, each one {@code
 * completeWith} that writes its effect, saves the checkpoint and sends the next step under the same
 * key (see {@link CheckpointWorkerMain}). A first worker process is killed inside the work of step
 * 3 (its rows written, nothing committed), a second one right after step 4 committed, and a third
 * resumes from the last checkpoint and finishes. Read from the file afterwards: every step's effect
 * exists exactly once, the checkpoint holds the last step and the total of all of them, and nothing
 * is left queued or dead.
 */
class CheckpointCrashTest {
  private static final int STEPS = 6;
  private static final Duration STARTUP = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void aCheckpointedJobKilledTwiceResumesFromItsLastCheckpointAndFinishes() {
    Path file = dir.resolve("checkpoint.db");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      Db.exec(file, "CREATE TABLE step_effects (job_id TEXT NOT NULL, step INTEGER, worker TEXT)");
      Db.exec(
          file, "CREATE TABLE checkpoints (job_id TEXT PRIMARY KEY, step INTEGER, total INTEGER)");
      Db.exec(file, "INSERT INTO checkpoints VALUES ('job-1', 0, 0)");
      SendResult first =
          once.queue()
              .send(
                  Message.of(
                      CheckpointWorkerMain.QUEUE,
                      CheckpointWorkerMain.JOB,
                      Map.of("step", 1, "total", 0)));
      assertThat(first.status()).isEqualTo(SendResult.Status.SENT);
    }

    // The first worker commits steps 1 and 2 and dies inside step 3.
    try (ChildJvm a = start(file, "a", true)) {
      for (int step = 1; step <= 2; step++) {
        awaitEffect(a, step);
        a.send("next");
        awaitCommitted(a, step);
      }
      awaitEffect(a, 3);
      kill(a);
    }
    assertThat(checkpoint(file)).isEqualTo("2 3");
    assertThat(stepsDone(file)).containsExactly("1", "2");

    // The second one takes step 3 over once the dead worker's lease ran out, commits it and step 4,
    // and dies right after that commit.
    try (ChildJvm b = start(file, "b", true)) {
      for (int step = 3; step <= 4; step++) {
        awaitEffect(b, step);
        b.send("next");
        awaitCommitted(b, step);
      }
      kill(b);
    }
    assertThat(checkpoint(file)).isEqualTo("4 10");
    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");

    // The third one resumes from the last checkpoint and finishes.
    try (ChildJvm c = start(file, "c", false)) {
      c.awaitLine("finished", STARTUP);
      c.awaitSuccess(STARTUP);
    }

    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
    assertThat(stepsDone(file))
        .as("every step's effect exactly once")
        .containsExactlyElementsOf(
            IntStream.rangeClosed(1, STEPS).mapToObj(String::valueOf).toList());
    assertThat(Db.strings(file, "SELECT step || ' ' || worker FROM step_effects ORDER BY step"))
        .containsExactly("1 a", "2 a", "3 b", "4 b", "5 c", "6 c");
    assertThat(checkpoint(file)).isEqualTo(STEPS + " " + (STEPS * (STEPS + 1) / 2));
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  private ChildJvm start(Path file, String worker, boolean stepped) {
    ChildJvm child =
        ChildJvm.start(
            "checkpoint-" + worker,
            dir,
            CheckpointWorkerMain.class,
            "file=" + file,
            "worker=" + worker,
            "steps=" + STEPS,
            "leaseMs=1000",
            "stepped=" + stepped);
    child.awaitLine("ready", STARTUP);
    return child;
  }

  private static void awaitEffect(ChildJvm child, int step) {
    child.awaitLine(
        "effect of step " + step,
        l -> l.startsWith("effect ") && l.contains(" step=" + step + " "),
        STARTUP);
  }

  private static void awaitCommitted(ChildJvm child, int step) {
    String line =
        child.awaitLine(
            "commit of step " + step,
            l -> l.startsWith("committed ") && l.contains(" step=" + step + " "),
            STARTUP);
    assertThat(line).contains("result=Completed", "next=" + SendResult.Status.SENT);
  }

  private static void kill(ChildJvm child) {
    int status = child.kill();
    if (System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
      assertThat(status).as("exit status after SIGKILL").isEqualTo(128 + 9);
    }
    assertThat(child.lines()).noneMatch(l -> l.startsWith("finished"));
  }

  private static String checkpoint(Path file) {
    return Db.strings(file, "SELECT step || ' ' || total FROM checkpoints").get(0);
  }

  private static List<String> stepsDone(Path file) {
    return Db.strings(file, "SELECT step FROM step_effects ORDER BY step");
  }
}
