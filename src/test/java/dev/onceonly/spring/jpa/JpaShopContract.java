package dev.onceonly.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import dev.onceonly.ReadOnlyTransactionException;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Spring Data JPA shop ({@link JpaShopApplication}) on a real database: every check counts rows
 * through a fresh JDBC connection of the test's own, after Spring's transaction ended. One context
 * per database, shared by the tests, each test on keys of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JpaShopContract {
  private ConfigurableApplicationContext context;
  private JpaShop shop;

  /** The {@code spring.datasource.*} and other properties of the application. */
  abstract Map<String, Object> properties();

  /** Opens a fresh connection of the test's own to the application's database. */
  abstract Connection connect() throws SQLException;

  /** The dialect's text column type. */
  abstract String textType();

  /** Whether a {@code REQUIRES_NEW} transaction can write while its caller's is open. */
  boolean secondWriterOnOneThread() {
    return true;
  }

  @BeforeAll
  void start() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String ddl : JpaShopApplication.schema(textType())) {
        s.execute(ddl);
      }
    }
    context = start(properties());
    shop = context.getBean(JpaShop.class);
  }

  static ConfigurableApplicationContext start(Map<String, Object> properties) {
    return new SpringApplicationBuilder(JpaShopApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(properties)
        .properties(
            Map.of("spring.jpa.hibernate.ddl-auto", "none", "spring.jpa.open-in-view", "false"))
        .run();
  }

  @AfterAll
  void stop() {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void anEffectsEntityIsNotCommittedWhenTheEffectFailedAndTheCallerCommitted() throws SQLException {
    assertThat(shop.shipThenCarrierFails("fail-1")).isEqualTo("carrier down, try later");

    assertThat(count("shipments", "order_key", "fail-1")).isZero(); // was 1: flushed at commit
    assertThat(count("onceonly_receipts", "intent_key", "fail-1")).isZero();
  }

  @Test
  void anEntitySavedBeforeAFailingStepIsCommitted() throws SQLException {
    assertThat(shop.orderThenFailingStep("before-1")).isPositive(); // the effect saw it

    assertThat(count("shop_orders", "request_key", "before-1")).isEqualTo(1); // was 0
    assertThat(count("onceonly_receipts", "intent_key", "before-1")).isZero();
  }

  @Test
  void aReadOnlyTransactionIsRefusedAndNothingIsWritten() throws SQLException {
    assertThatThrownBy(() -> shop.shipReadOnly("read-only-1"))
        .isInstanceOf(ReadOnlyTransactionException.class)
        .hasMessageContaining("read-only");

    assertThat(count("onceonly_receipts", "intent_key", "read-only-1")).isZero();
    assertThat(count("shipments", "order_key", "read-only-1")).isZero();
  }

  @Test
  void aRequiresNewTransactionInsideAStepWritesOnItsOwnOrIsRefusedAtOnce() throws SQLException {
    if (secondWriterOnOneThread()) {
      assertThatThrownBy(() -> shop.shipWithAuditThenFail("audit-1"))
          .isInstanceOf(JpaShop.CarrierDown.class);
      // the audit message committed in its own transaction; the rest rolled back
      assertThat(count("onceonly_messages", "message_key", "audit-1")).isEqualTo(1);
    } else {
      assertThatThrownBy(() -> shop.shipWithAuditThenFail("audit-1"))
          .satisfies(e -> assertThat(sqlStates(e)).contains("25000"))
          .hasStackTraceContaining("SQLite admits one writer per file");
      assertThat(count("onceonly_messages", "message_key", "audit-1")).isZero();
    }
    assertThat(count("shipments", "order_key", "audit-1")).isZero();
    assertThat(count("onceonly_receipts", "intent_key", "audit-1")).isZero();
  }

  @Test
  void aFlushRefusedAtCommitRollsBackTheReceiptToo() throws SQLException {
    assertThatThrownBy(() -> shop.shipThenFailAtCommit("commit-1"))
        .isInstanceOf(
            org.springframework.core.NestedRuntimeException.class); // as Spring translates it

    assertThat(count("shipments", "order_key", "commit-1")).isZero();
    assertThat(count("onceonly_receipts", "intent_key", "commit-1")).isZero();
    // the key is free again: the same request runs as new
    assertThat(shop.placeOrder("commit-1", "lamp")).isEqualTo("201 commit-1");
  }

  @Test
  void requestsRacingOnOneKeyPlaceOneOrder() throws Exception {
    int threads = 16;
    List<String> answers = Race.run(threads, i -> () -> shop.placeOrder("race-1", "mug"));

    assertThat(answers).containsOnlyOnce("201 race-1");
    assertThat(answers).filteredOn("200 race-1"::equals).hasSize(threads - 1);
    assertThat(count("shop_orders", "request_key", "race-1")).isEqualTo(1);
    assertThat(count("onceonly_receipts", "intent_key", "race-1")).isEqualTo(1);
    assertThat(count("onceonly_messages", "message_key", "race-1")).isEqualTo(1);
  }

  @Test
  void aCompletionRolledBackWithTheHandlersCommitIsRecordedAndRetried() throws SQLException {
    OnceOnly once = context.getBean(OnceOnly.class);
    ShippingJobs jobs = context.getBean(ShippingJobs.class);
    once.queue().send("shipping-jobs", "job-1", Map.of());
    Delivery d = once.queue().receive("shipping-jobs", 1, Duration.ofMinutes(10)).get(0);

    QueueResult r = Worker.handleOnce(once.queue(), d, jobs::handle);

    assertThat(r).isInstanceOf(QueueResult.Retrying.class); // was Completed, with nothing committed
    assertThat(((QueueResult.Retrying) r).nextAttemptAt())
        .isBefore(Instant.now().plus(Duration.ofMinutes(5))); // not at the lease's end
    assertThat(count("shipments", "order_key", "job-1")).isZero();
    try (Connection c = connect();
        var ps =
            c.prepareStatement(
                "SELECT attempts, last_error FROM onceonly_messages WHERE message_key = ?")) {
      ps.setString(1, "job-1");
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(1);
        assertThat(rs.getString(2)).isNotBlank(); // was null
      }
    }
  }

  @Test
  void aWorkerRecordsTheErrorOfACompletionItsHandlersCommitRolledBack() throws Exception {
    OnceOnly once = context.getBean(OnceOnly.class);
    ShippingJobs jobs = context.getBean(ShippingJobs.class);
    once.queue().send("shipping-worker", "job-2", Map.of());
    try (Worker w =
        Worker.builder(once.queue(), "shipping-worker", jobs::handle)
            .lease(Duration.ofMinutes(10))
            .build()
            .start()) {
      Eventually.await(
          Duration.ofMinutes(2), "the failure recorded", () -> lastError("job-2") != null);
      assertThat(w.completed()).isZero();
    }
    assertThat(count("shipments", "order_key", "job-2")).isZero();
  }

  private String lastError(String key) {
    try (Connection c = connect();
        var ps =
            c.prepareStatement("SELECT last_error FROM onceonly_messages WHERE message_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> sqlStates(Throwable e) {
    List<String> states = new java.util.ArrayList<>();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        states.add(s.getSQLState());
      }
    }
    return states;
  }

  long count(String table, String column, String value) throws SQLException {
    try (Connection c = connect();
        var ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE " + column + " = ?")) {
      ps.setString(1, value);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
