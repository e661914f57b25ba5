package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.Db;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash harness on one SQLite file: 100 workload processes killed with SIGKILL in a row (see
 * {@link CrashHarness} for what is checked after each). {@code -Donceonly.crash.iterations} and
 * {@code -Donceonly.crash.seed} change the run; {@link CrashHarnessMain} runs it on a file of your
 * choice.
 */
class CrashHarnessTest {
  private static final int ITERATIONS = Integer.getInteger("onceonly.crash.iterations", 100);
  private static final long SEED = Long.getLong("onceonly.crash.seed", 20_261_130L);

  @TempDir Path dir;

  @Test
  void aHundredKilledWorkloadsLoseNothingAndDuplicateNothing() throws Exception {
    Path file = dir.resolve("crash.db");
    CrashHarness.Report report =
        new CrashHarness(
                new CrashTarget.Sqlite(file), new CrashHarness.Settings(ITERATIONS, SEED, 4, dir))
            .run();
    System.out.println(report);

    assertThat(report.kills()).hasSize(ITERATIONS);
    if (ITERATIONS >= 20) { // both kinds of kill, and some inside an open effect
      assertThat(report.parked()).isBetween(1, ITERATIONS - 1);
      assertThat(report.kills()).anyMatch(k -> k.contains(" effect "));
    }
    long intents = report.intents();
    assertThat(intents).isGreaterThanOrEqualTo(4L + ITERATIONS);
    // Each child registers keys in order from the count it finds: c-0 .. c-(intents-1), no gap.
    assertThat(Db.count(file, "SELECT MAX(n) + 1 FROM crash_effects")).isEqualTo(intents);
    // Through a fresh connection: one receipt and one effect row per intent, nothing queued.
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(intents);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM crash_effects")).isEqualTo(intents);
    assertThat(
            Db.count(file, "SELECT COUNT(DISTINCT scope || '/' || intent_key) FROM crash_effects"))
        .isEqualTo(intents);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
  }
}
