package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import dev.onceonly.spring.app.WarehouseApplication;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A {@code @Transactional} handler bean ({@code ShippingHandler}) run by the auto-configured
 * workers of a real Spring Boot application on the embedded PostgreSQL: the workers start with the
 * context, every message is shipped once, and closing the context either lets a handler in flight
 * finish or releases its message to the next start, which ships it once. Counted through a JDBC
 * connection of the test's own.
 */
class PostgresWorkerBeansTest {
  private static String database;

  @BeforeAll
  static void createTables() throws SQLException {
    database = EmbeddedPg.newDatabase("spring_workers");
    try (Connection c = EmbeddedPg.connect(database);
        Statement s = c.createStatement()) {
      s.execute(WarehouseApplication.SCHEMA);
    }
  }

  static ConfigurableApplicationContext start(String... properties) {
    Map<String, Object> p = new HashMap<>();
    p.put("spring.datasource.url", EmbeddedPg.url(database));
    p.put("spring.datasource.username", "postgres");
    p.put("spring.datasource.hikari.connection-init-sql", EmbeddedPg.SET_TIME_ZONE);
    for (String kv : properties) {
      int eq = kv.indexOf('=');
      p.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return new SpringApplicationBuilder(WarehouseApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(p)
        .run();
  }

  @Test
  void workersStartWithTheContextAndShipEveryMessageOnce() throws SQLException {
    try (var pool = EmbeddedPg.pool(database, 2);
        OnceOnly once = OnceOnly.builder().dataSource(pool).build()) {
      for (int i = 0; i < 20; i++) {
        once.queue().send(Message.of("shipping", "early-" + i, Map.of("item", "box-" + i)));
      }
    }
    try (ConfigurableApplicationContext context = start()) {
      assertThat(context.getBean(OnceOnlyWorkers.class).workers())
          .containsOnlyKeys(
              "dev.onceonly.spring.app.ShippingHandler", "dev.onceonly.spring.app.LabelHandler");
      Eventually.await(
          Duration.ofSeconds(20), "20 shipments", () -> count("message_key LIKE 'early-%'") == 20);
      Eventually.await(Duration.ofSeconds(20), "queue drained", () -> queued("early-%") == 0);
    }
    assertThat(distinct("early-%")).isEqualTo(20);
    assertThat(count("message_key LIKE 'early-%'")).isEqualTo(20);
  }

  @Test
  void closingTheContextReleasesAHandlerPastItsTimeoutAndTheNextStartShipsItOnce()
      throws Exception {
    CountDownLatch entered = WarehouseApplication.holdSlow();
    try (ConfigurableApplicationContext context =
        start("onceonly.workers.shutdown-timeout=200ms")) {
      context
          .getBean(OnceOnly.class)
          .queue()
          .send(Message.of("shipping", "late-1", Map.of("item", "slow")));
      assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
    } // closes: waits 200 ms, cancels the handler, releases its message, interrupts it
    WarehouseApplication.releaseSlow();
    assertThat(count("message_key = 'late-1'")).isZero();
    assertThat(queued("late-1")).isEqualTo(1);
    assertThat(leased("late-1")).isZero(); // released: due at once, not waiting out its lease

    try (ConfigurableApplicationContext again = start()) {
      Eventually.await(
          Duration.ofSeconds(20), "late-1 shipped", () -> count("message_key = 'late-1'") == 1);
      Eventually.await(Duration.ofSeconds(20), "late-1 acked", () -> queued("late-1") == 0);
    }
    assertThat(count("message_key = 'late-1'")).isEqualTo(1);
  }

  @Test
  void closingTheContextWaitsForAHandlerThatFinishesInTime() throws Exception {
    CountDownLatch entered = WarehouseApplication.holdSlow();
    ConfigurableApplicationContext context = start("onceonly.workers.shutdown-timeout=30s");
    context
        .getBean(OnceOnly.class)
        .queue()
        .send(Message.of("shipping", "drain-1", Map.of("item", "slow")));
    assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
    Thread closer = new Thread(context::close, "test-close");
    closer.start();
    Eventually.await(
        Duration.ofSeconds(20),
        "close waiting for the handler",
        () -> workerClosingWaits() && closer.isAlive());
    assertThat(count("message_key = 'drain-1'")).isZero(); // still in flight
    WarehouseApplication.releaseSlow();
    closer.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(closer.isAlive()).isFalse();

    assertThat(count("message_key = 'drain-1'")).isEqualTo(1);
    assertThat(queued("drain-1")).isZero();
  }

  @Test
  void aHandlerThrowingAfterCompleteWithRollsTheAcknowledgementBackWithItsWrites() {
    try (ConfigurableApplicationContext context = start()) {
      context
          .getBean(OnceOnly.class)
          .queue()
          .send(Message.of("labels", "label-1", Map.of("item", "label")));
      Worker labels =
          context
              .getBean(OnceOnlyWorkers.class)
              .workers()
              .get("dev.onceonly.spring.app.LabelHandler");
      // counted after the handler's transaction ended (it threw out of Spring's proxy)
      Eventually.await(Duration.ofSeconds(20), "the failure recorded", () -> labels.retried() >= 1);
      assertThat(count("message_key = 'label-1'")).isZero(); // the label rolled back
      assertThat(queued("label-1")).isEqualTo(1); // and the acknowledgement with it
      // recorded as a failed attempt, its error kept, retried by the policy (not at lease end)
      assertThat(labels.completed()).isZero();
      assertThat(
              query(
                  "SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'label-1'"
                      + " AND last_error IS NOT NULL AND attempts >= 1"))
          .isEqualTo(1);
    }
  }

  /** Whether a worker's close is waiting for its handlers (in its shutdown timeout). */
  static boolean workerClosingWaits() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(
            t ->
                t.getName().startsWith("onceonly-close-")
                    && t.getState() == Thread.State.TIMED_WAITING);
  }

  static long count(String where) {
    return query("SELECT COUNT(*) FROM shipments WHERE " + where);
  }

  static long distinct(String like) {
    return query(
        "SELECT COUNT(DISTINCT message_key) FROM shipments WHERE message_key LIKE '" + like + "'");
  }

  static long queued(String like) {
    return query("SELECT COUNT(*) FROM onceonly_messages WHERE message_key LIKE '" + like + "'");
  }

  static long leased(String key) {
    return query(
        "SELECT COUNT(*) FROM onceonly_messages WHERE message_key = '"
            + key
            + "' AND deliver_at > now()");
  }

  static long query(String sql) {
    try (Connection c = EmbeddedPg.connect(database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
