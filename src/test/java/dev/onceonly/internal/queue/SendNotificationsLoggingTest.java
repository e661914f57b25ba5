package dev.onceonly.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.LogCapture;
import dev.onceonly.testing.SwitchingDataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL wake-up's listener, whose failures cost only latency, still says when it stops
 * listening: once per run of failures at WARNING, and at INFO when it listens again. Before, every
 * failure was swallowed without a word. The listener meets a real refused connection (a port nobody
 * listens on), then the real embedded server.
 */
class SendNotificationsLoggingTest {
  @RegisterExtension final LogCapture log = LogCapture.of(SendNotifications.class);

  @Test
  void aRunOfFailuresIsLoggedOnceAndTheRecoveryOnce() throws Exception {
    SwitchingDataSource direct = new SwitchingDataSource(SwitchingDataSource.refusedPostgres());
    String channel = SendNotifications.channel("logtest_");

    try (SendNotifications n =
        SendNotifications.start("logtest_", direct.dataSource(), new QueueSignals())) {
      Eventually.await(
          Duration.ofSeconds(30), "three refused attempts", () -> direct.connects() >= 3);
      assertThat(log.at(Level.WARNING)).hasSize(1);
      assertThat(log.at(Level.WARNING).get(0).getThrown()).isInstanceOf(SQLException.class);
      assertThat(log.at(Level.WARNING).get(0).getMessage()).contains(channel).contains("next poll");
      assertThat(log.at(Level.INFO)).isEmpty();

      direct.pointAt(EmbeddedPg.server().getPostgresDatabase());
      Eventually.await(
          Duration.ofSeconds(30), "listening again", () -> !log.at(Level.INFO).isEmpty());
      assertThat(log.at(Level.INFO)).hasSize(1);
      assertThat(log.at(Level.INFO).get(0).getParameters()).containsExactly(channel);
      assertThat(log.at(Level.WARNING)).hasSize(1);
    }
  }
}
