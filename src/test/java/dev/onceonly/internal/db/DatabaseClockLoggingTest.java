package dev.onceonly.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.internal.dialect.SqlDialect;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.LogCapture;
import dev.onceonly.testing.SwitchingDataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL clock's refresh, whose failure leaves a growing stale offset in use, says so: once
 * per run of failures at WARNING, and at INFO when it reads the clock again. Before, every failure
 * was swallowed without a word. It meets the real embedded server, then a refused connection (a
 * port nobody listens on), then the server again.
 */
class DatabaseClockLoggingTest {
  @RegisterExtension final LogCapture log = LogCapture.of(DatabaseClock.class);

  @Test
  void aRunOfFailedRefreshesIsLoggedOnceAndTheRecoveryOnce() throws Exception {
    DataSource server = EmbeddedPg.server().getPostgresDatabase();
    SwitchingDataSource switching = new SwitchingDataSource(server);

    try (DatabaseClock clock =
        DatabaseClock.start(
            switching.dataSource(),
            SqlDialect.of(Dialect.POSTGRESQL).serverClock().orElseThrow(),
            20)) {
      switching.pointAt(SwitchingDataSource.refusedPostgres());
      int from = switching.connects();
      Eventually.await(
          Duration.ofSeconds(30),
          "three refused refreshes",
          () -> switching.connects() >= from + 3);
      assertThat(log.at(Level.WARNING)).hasSize(1);
      assertThat(log.at(Level.WARNING).get(0).getThrown()).isInstanceOf(SQLException.class);
      assertThat(log.at(Level.WARNING).get(0).getMessage()).contains("last offset stays in use");
      assertThat(log.at(Level.INFO)).isEmpty();
      assertThat(clock.instant())
          .as("the last offset")
          .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));

      switching.pointAt(server);
      Eventually.await(
          Duration.ofSeconds(30), "reading the clock again", () -> !log.at(Level.INFO).isEmpty());
      assertThat(log.at(Level.INFO)).hasSize(1);
      assertThat(log.at(Level.WARNING)).hasSize(1);
    }
  }
}
