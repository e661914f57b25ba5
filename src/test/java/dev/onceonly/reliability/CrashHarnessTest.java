package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash harness on one SQLite file: workload processes killed with SIGKILL in a row (see {@link
 * CrashHarness} for what is checked after each), 50 in {@code mvn verify} to keep the build's time
 * bounded; the full run is {@code -Donceonly.crash.iterations=100} or more. {@code
 * -Donceonly.crash.seed} changes the points; {@link CrashHarnessMain} runs it on a file of your
 * choice.
 */
class CrashHarnessTest {
  private static final int ITERATIONS = Integer.getInteger("onceonly.crash.iterations", 50);
  static final long SEED = Long.getLong("onceonly.crash.seed", 20_261_130L);

  @TempDir Path dir;

  @Test
  void killedWorkloadsLoseNothingAndDuplicateNothing() throws Exception {
    CrashTarget target = new CrashTarget.Sqlite(dir.resolve("crash.db"));
    CrashHarness.Report report =
        new CrashHarness(target, new CrashHarness.Settings(ITERATIONS, SEED, 4, dir)).run();
    System.out.println(report);

    assertSoundAfterRun(target, report, ITERATIONS);
  }

  /**
   * Asserts what a run of {@code iterations} kills with 4 intents per child must leave behind, read
   * again through a fresh connection.
   */
  static void assertSoundAfterRun(CrashTarget target, CrashHarness.Report report, int iterations)
      throws SQLException {
    assertThat(report.kills()).hasSize(iterations);
    if (iterations >= 20) { // both kinds of kill, and some inside an open effect
      assertThat(report.parked()).isBetween(1, iterations - 1);
      assertThat(report.kills()).anyMatch(k -> k.contains(" effect "));
    }
    long intents = report.intents();
    assertThat(intents).isGreaterThanOrEqualTo(4L + iterations);
    try (Connection c = target.connect()) {
      // Each child registers keys in order from the count it finds: c-0 .. c-(intents-1), no gap.
      assertThat(count(c, "SELECT MAX(n) + 1 FROM crash_effects")).isEqualTo(intents);
      // One receipt and one effect row per intent, nothing queued.
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(intents);
      assertThat(count(c, "SELECT COUNT(*) FROM crash_effects")).isEqualTo(intents);
      assertThat(count(c, "SELECT COUNT(DISTINCT scope || '/' || intent_key) FROM crash_effects"))
          .isEqualTo(intents);
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
      assertThat(target.integrityProblems(c)).isEmpty();
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
