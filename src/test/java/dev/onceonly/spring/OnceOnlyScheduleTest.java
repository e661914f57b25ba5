package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * The scheduled reconciler and retention in real contexts on a SQLite file: off by default; when
 * on, a registered intent without a message gets one, also with two instances reconciling at once
 * (one message, not two), and old rejections are purged. Counted through the test's own JDBC.
 */
class OnceOnlyScheduleTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner(Path file) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  @Test
  void offByDefault() {
    runner(dir.resolve("off.db"))
        .run(context -> assertThat(context.getBean(OnceOnlySchedule.class).isRunning()).isFalse());
  }

  @Test
  void twoInstancesReconcilingAtOncePublishEachForgottenIntentOnce() {
    Path file = dir.resolve("reconcile.db");
    ApplicationContextRunner instance =
        runner(file)
            .withPropertyValues(
                "onceonly.reconciler.enabled=true",
                "onceonly.reconciler.queue=intents",
                "onceonly.reconciler.interval=50ms");
    instance.run(
        first ->
            instance.run(
                second -> {
                  for (int i = 0; i < 20; i++) {
                    first
                        .getBean(OnceOnly.class)
                        .intents()
                        .register(IntentKey.of("u-1", "k-" + i), "make_report", Map.of("n", i));
                  }
                  Eventually.await(
                      Duration.ofSeconds(20),
                      "a message for every intent",
                      () -> messages(file) == 20);
                }));
    assertThat(messages(file)).isEqualTo(20); // both instances kept passing: none twice
    assertThat(rows(file, "SELECT COUNT(DISTINCT message_key) FROM onceonly_messages"))
        .isEqualTo(20);
  }

  @Test
  void retentionPurgesOldRejections() throws SQLException {
    Path file = dir.resolve("purge.db");
    runner(file)
        .withPropertyValues(
            "onceonly.purge.enabled=true",
            "onceonly.purge.interval=50ms",
            "onceonly.purge.rejection-retention=0s")
        .run(
            context -> {
              context.getBean(OnceOnly.class).rejections().record("d-1", "{oops", "not JSON");
              Eventually.await(
                  Duration.ofSeconds(20),
                  "the rejection purged",
                  () -> rows(file, "SELECT COUNT(*) FROM onceonly_rejections") == 0);
            });
    assertThat(rows(file, "SELECT COUNT(*) FROM onceonly_rejections")).isZero();
  }

  static long messages(Path file) {
    return rows(file, "SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'intents'");
  }

  static long rows(Path file, String sql) {
    try {
      return OnceOnlyAutoConfigurationTest.rows(file, sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
