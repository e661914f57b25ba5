package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.PostgresContractDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash harness on the durable embedded PostgreSQL server ({@code fsync} and {@code
 * synchronous_commit} on, {@link PostgresContractDatabase#durable()}), in a schema of its own: 30
 * workload processes, each with a HikariCP pool of its own, killed with SIGKILL in a row (see
 * {@link CrashHarness} for what is checked after each, {@link PostgresCrashTarget} for the
 * integrity check and the clock). Fewer kills than on SQLite, to keep it near half a minute; {@code
 * -Donceonly.crash.pg.iterations} and {@code -Donceonly.crash.seed} change the run. Only the
 * clients are killed: the server keeps running, as it would when an application instance dies.
 */
class PostgresCrashHarnessTest {
  private static final int ITERATIONS = Integer.getInteger("onceonly.crash.pg.iterations", 30);

  @TempDir Path dir;

  @Test
  void killedWorkloadsOnPostgresLoseNothingAndDuplicateNothing() throws Exception {
    String url = PostgresContractDatabase.durable().url();
    try (CrashTarget target = new PostgresCrashTarget(url, EmbeddedPg.SESSION_TIME_ZONE)) {
      CrashHarness.Report report =
          new CrashHarness(
                  target, new CrashHarness.Settings(ITERATIONS, CrashHarnessTest.SEED, 4, dir))
              .run();
      System.out.println(report);

      CrashHarnessTest.assertSoundAfterRun(target, report, ITERATIONS);
      try (Connection c = target.connect();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT current_setting('fsync')," + " current_setting('synchronous_commit')")) {
        rs.next();
        assertThat(rs.getString(1) + "/" + rs.getString(2))
            .as("fsync/synchronous_commit")
            .isEqualTo("on/on");
      }
      // The embedded server ships amcheck: the stronger integrity check ran, not the fallback.
      assertThat(report.target()).contains("amcheck verify_heapam");
    }
  }
}
