package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.spring.app.OrderService;
import dev.onceonly.spring.app.ShopApplication;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * A {@code @Transactional} service of a real Spring Boot application ({@link ShopApplication})
 * writes its own rows, runs a receipts step and sends an outbox message, with no connection in its
 * code: all of it commits with Spring's transaction or none of it does. Every count is read through
 * a fresh JDBC connection of the test's own, never through the application. One context per
 * database, shared by the tests, each test on keys of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SpringTransactionJoinContract {
  private ConfigurableApplicationContext context;
  private OrderService orders;

  /** The {@code spring.datasource.*} and other properties of the application. */
  abstract Map<String, Object> properties();

  /** Opens a fresh connection of the test's own to the application's database. */
  abstract Connection connect() throws SQLException;

  @BeforeAll
  void start() throws SQLException {
    try (Connection c = connect()) {
      createTables(c, ShopApplication.SCHEMA);
    }
    context = start(properties());
    orders = context.getBean(OrderService.class);
  }

  /** Runs the application's {@code ddl} on {@code c}. */
  static void createTables(Connection c, String... ddl) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String statement : ddl) {
        s.execute(statement);
      }
    }
  }

  static ConfigurableApplicationContext start(Map<String, Object> properties) {
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(properties)
        .run();
  }

  @AfterAll
  void stop() {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void aCommittedTransactionHoldsTheOrderTheReceiptAndTheMessage() throws SQLException {
    assertThat(orders.placeOrder("u-1", "commit-1", "tea")).isEqualTo("201 order commit-1");

    assertThat(count("orders", "request_key", "commit-1")).isEqualTo(1);
    assertThat(count("audit_log", "entry", "u-1 asked for tea")).isEqualTo(1);
    assertThat(count("onceonly_receipts", "intent_key", "commit-1")).isEqualTo(1);
    assertThat(count("onceonly_messages", "message_key", "commit-1")).isEqualTo(1);
  }

  @Test
  void aRollbackAfterTheStepLeavesNoOrderNoReceiptAndNoMessage() throws SQLException {
    assertThatThrownBy(() -> orders.placeOrderThenFail("u-2", "rollback-1", "coffee"))
        .isInstanceOf(OrderService.PaymentDeclined.class);

    assertThat(count("audit_log", "entry", "u-2 asked for coffee")).isZero(); // Spring rolled back
    assertThat(count("orders", "request_key", "rollback-1")).isZero();
    assertThat(count("onceonly_receipts", "intent_key", "rollback-1")).isZero();
    assertThat(count("onceonly_messages", "message_key", "rollback-1")).isZero();

    // Nothing was left behind: the same key runs as new.
    assertThat(orders.placeOrder("u-2", "rollback-1", "coffee")).isEqualTo("201 order rollback-1");
    assertThat(count("orders", "request_key", "rollback-1")).isEqualTo(1);
  }

  @Test
  void aRetryInANewContextIsRepeatedWithNoSecondOrder() throws SQLException {
    assertThat(orders.placeOrder("u-3", "retry-1", "cake")).isEqualTo("201 order retry-1");
    try (ConfigurableApplicationContext restarted = start(properties())) {
      OrderService again = restarted.getBean(OrderService.class);
      assertThat(again.placeOrder("u-3", "retry-1", "cake")).isEqualTo("200 order retry-1");
      assertThat(again.placeOrder("u-3", "retry-1", "pie"))
          .isEqualTo("422 key already used for another order");
    }
    assertThat(count("orders", "request_key", "retry-1")).isEqualTo(1);
    assertThat(count("onceonly_receipts", "intent_key", "retry-1")).isEqualTo(1);
    assertThat(count("onceonly_messages", "message_key", "retry-1")).isEqualTo(1);
  }

  @Test
  void threadsRacingOnOneKeyInsideSpringTransactionsWriteOneOrder() throws Exception {
    int threads = 8;
    List<String> answers = Race.run(threads, i -> () -> orders.placeOrder("u-4", "race-1", "jam"));

    assertThat(answers).containsOnlyOnce("201 order race-1");
    assertThat(answers).filteredOn("200 order race-1"::equals).hasSize(threads - 1);
    assertThat(count("orders", "request_key", "race-1")).isEqualTo(1);
    assertThat(count("onceonly_receipts", "intent_key", "race-1")).isEqualTo(1);
    assertThat(count("onceonly_messages", "message_key", "race-1")).isEqualTo(1);
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
