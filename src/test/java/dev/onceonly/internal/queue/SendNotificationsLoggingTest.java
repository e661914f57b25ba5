package dev.onceonly.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.LogCapture;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL wake-up's listener, whose failures cost only latency, still says when it stops
 * listening: once per run of failures at WARNING, and at INFO when it listens again. Before, every
 * failure was swallowed without a word. The listener meets a real refused connection (a port nobody
 * listens on), then the real embedded server.
 */
class SendNotificationsLoggingTest {
  @RegisterExtension final LogCapture log = LogCapture.of(SendNotifications.class);
  private final List<LogRecord> records = log.records();

  @Test
  void aRunOfFailuresIsLoggedOnceAndTheRecoveryOnce() throws Exception {
    PGSimpleDataSource refused = new PGSimpleDataSource();
    refused.setServerNames(new String[] {"127.0.0.1"});
    refused.setPortNumbers(new int[] {freePort()});
    refused.setUser("postgres");
    refused.setConnectTimeout(2);
    Switching direct = new Switching(refused);
    String channel = SendNotifications.channel("logtest_");

    try (SendNotifications n = SendNotifications.start("logtest_", direct, new QueueSignals())) {
      Eventually.await(Duration.ofSeconds(30), "three refused attempts", () -> direct.tries() >= 3);
      assertThat(warnings()).hasSize(1);
      assertThat(warnings().get(0).getThrown()).isInstanceOf(SQLException.class);
      assertThat(warnings().get(0).getMessage()).contains(channel).contains("next poll");
      assertThat(infos()).isEmpty();

      direct.target = EmbeddedPg.server().getPostgresDatabase();
      Eventually.await(Duration.ofSeconds(30), "listening again", () -> !infos().isEmpty());
      assertThat(infos()).hasSize(1);
      assertThat(infos().get(0).getParameters()).containsExactly(channel);
      assertThat(warnings()).hasSize(1);
    }
  }

  private List<LogRecord> warnings() {
    return records.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
  }

  private List<LogRecord> infos() {
    return records.stream().filter(r -> r.getLevel() == Level.INFO).toList();
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort(); // closed again: a connection to it is refused
    }
  }

  /** Hands out real connections from whichever data source the test points it at. */
  private static final class Switching implements DataSource {
    volatile DataSource target;
    private final AtomicInteger tries = new AtomicInteger();

    Switching(DataSource first) {
      this.target = first;
    }

    int tries() {
      return tries.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
      tries.incrementAndGet();
      return target.getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
