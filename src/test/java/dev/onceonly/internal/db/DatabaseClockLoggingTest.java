package dev.onceonly.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.LogCapture;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL clock's refresh, whose failure leaves a growing stale offset in use, says so: once
 * per run of failures at WARNING, and at INFO when it reads the clock again. Before, every failure
 * was swallowed without a word. It meets the real embedded server, then a refused connection (a
 * port nobody listens on), then the server again.
 */
class DatabaseClockLoggingTest {
  @RegisterExtension final LogCapture log = LogCapture.of(DatabaseClock.class);
  private final List<LogRecord> records = log.records();

  @Test
  void aRunOfFailedRefreshesIsLoggedOnceAndTheRecoveryOnce() throws Exception {
    DataSource server = EmbeddedPg.server().getPostgresDatabase();
    PGSimpleDataSource refused = new PGSimpleDataSource();
    refused.setServerNames(new String[] {"127.0.0.1"});
    refused.setPortNumbers(new int[] {freePort()});
    refused.setUser("postgres");
    refused.setConnectTimeout(2);
    AtomicReference<DataSource> target = new AtomicReference<>(server);
    AtomicInteger tries = new AtomicInteger();
    DataSource switching = switching(target, tries);

    try (DatabaseClock clock = DatabaseClock.start(switching, 20)) {
      target.set(refused);
      int from = tries.get();
      Eventually.await(
          Duration.ofSeconds(30), "three refused refreshes", () -> tries.get() >= from + 3);
      assertThat(warnings()).hasSize(1);
      assertThat(warnings().get(0).getThrown()).isInstanceOf(SQLException.class);
      assertThat(warnings().get(0).getMessage()).contains("last offset stays in use");
      assertThat(infos()).isEmpty();
      assertThat(clock.instant())
          .as("the last offset")
          .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));

      target.set(server);
      Eventually.await(Duration.ofSeconds(30), "reading the clock again", () -> !infos().isEmpty());
      assertThat(infos()).hasSize(1);
      assertThat(warnings()).hasSize(1);
    }
  }

  private List<LogRecord> warnings() {
    return records.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
  }

  private List<LogRecord> infos() {
    return records.stream().filter(r -> r.getLevel() == Level.INFO).toList();
  }

  /** Hands every call to whichever real data source the test points it at, counting connects. */
  private static DataSource switching(AtomicReference<DataSource> target, AtomicInteger tries) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                tries.incrementAndGet();
              }
              try {
                return method.invoke(target.get(), args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort(); // closed again: a connection to it is refused
    }
  }
}
