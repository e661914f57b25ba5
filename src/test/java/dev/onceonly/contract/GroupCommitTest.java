package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.Race;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit under contention: 16 threads behind a start gate on one instance, so that steps
 * share transactions; every fifth effect fails after writing its row. A failing step must roll back
 * alone (its savepoint), its caller gets its own exception, and every other step of the same
 * transaction commits with its receipt.
 */
class GroupCommitTest {
  static final int THREADS = 16;
  static final int STEPS = 40;

  @TempDir Path dir;

  /** The exception a failing effect throws, so the caller can tell it is its own. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String key) {
      super("refused " + key);
    }
  }

  @Test
  void aFailingStepRollsBackAloneAndTheOthersCommit() throws Exception {
    Path file = SqliteFiles.file(dir);
    Db.exec(file, "CREATE TABLE effects (k TEXT NOT NULL)");
    MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    List<List<String>> refusedPerThread;
    try (OnceOnly once = SqliteFiles.open(dir, clock, b -> b.groupCommit(64, Duration.ZERO))) {
      refusedPerThread =
          Race.run(
              THREADS,
              t ->
                  () -> {
                    List<String> refused = new ArrayList<>();
                    for (int i = 0; i < STEPS; i++) {
                      String key = "t" + t + "-" + i;
                      boolean fails = (t * STEPS + i) % 5 == 0;
                      try {
                        Outcome<String> o =
                            once.receipts()
                                .execute(
                                    IntentKey.of("s", key),
                                    "touch",
                                    Map.of("i", i),
                                    String.class,
                                    c -> effect(c, key, fails));
                        assertThat(o).isInstanceOf(Outcome.Created.class);
                        assertThat(fails)
                            .as("a failing effect must not be answered Created")
                            .isFalse();
                      } catch (Refused e) {
                        assertThat(e).hasMessage("refused " + key);
                        refused.add(key);
                      }
                    }
                    return refused;
                  });
    }
    List<String> refused = refusedPerThread.stream().flatMap(List::stream).toList();
    int total = THREADS * STEPS;
    assertThat(refused).hasSize(total / 5);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects")).isEqualTo(total - refused.size());
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts"))
        .isEqualTo(total - refused.size());
    assertThat(Db.count(file, "SELECT COUNT(DISTINCT k) FROM effects"))
        .isEqualTo(total - refused.size());
    for (String key : refused) {
      assertThat(Db.count(file, "SELECT COUNT(*) FROM effects WHERE k = '" + key + "'")).isZero();
      assertThat(
              Db.count(
                  file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = '" + key + "'"))
          .isZero();
    }
    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
  }

  /**
   * A lone caller with a positive {@code maxWait} commits at once: nobody else is queued, so its
   * leader has no batch to wait for. The thread's CPU time proves it does not spin for the wait
   * either (before, it spun on the CPU for the whole two seconds).
   */
  @Test
  void aLoneCallerWithMaxWaitCommitsAtOnceWithoutSpinning() throws Exception {
    Path file = SqliteFiles.file(dir);
    Db.exec(file, "CREATE TABLE effects (k TEXT NOT NULL)");
    MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    Duration maxWait = Duration.ofSeconds(2);
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    try (OnceOnly once = SqliteFiles.open(dir, clock, b -> b.groupCommit(64, maxWait))) {
      once.receipts() // warm-up: opens the connection and compiles the statements
          .execute(IntentKey.of("s", "warm"), "touch", Map.of(), String.class, c -> "warm");
      long cpuBefore = threads.getCurrentThreadCpuTime();
      long started = System.nanoTime();
      Outcome<String> o =
          once.receipts()
              .execute(
                  IntentKey.of("s", "lone"),
                  "touch",
                  Map.of("i", 1),
                  String.class,
                  c -> effect(c, "lone", false));
      long elapsed = System.nanoTime() - started;
      long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
      assertThat(o).isInstanceOf(Outcome.Created.class);
      assertThat(Duration.ofNanos(elapsed)).isLessThan(maxWait.dividedBy(2));
      assertThat(Duration.ofNanos(cpu)).isLessThan(maxWait.dividedBy(5));
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects WHERE k = 'lone'")).isEqualTo(1);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'lone'"))
        .isEqualTo(1);
  }

  private static String effect(java.sql.Connection c, String key, boolean fails)
      throws SQLException, Refused {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects VALUES (?)")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
    if (fails) {
      throw new Refused(key); // after its write: the savepoint must undo it
    }
    return key;
  }
}
