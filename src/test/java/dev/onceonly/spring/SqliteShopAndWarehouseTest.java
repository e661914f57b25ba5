package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.spring.app.OrderService;
import dev.onceonly.spring.app.ShopApplication;
import dev.onceonly.spring.app.WarehouseApplication;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * docs/spring.md's two examples run together, as written, on one SQLite file: the shop's
 * {@code @Transactional} {@code OrderService} places orders and sends their outbox message, the
 * warehouse's {@code ShippingHandler} worker bean ships them. However often an order is retried
 * (after its message was consumed, when the queue's key is free again) and however often its
 * message arrives again (a producer's retry, a reconciler), the file holds one shipment per order.
 * Every count is read through a fresh JDBC connection of the test's own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqliteShopAndWarehouseTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final long SEED = Long.getLong("onceonly.shop.seed", 0x5409L);

  @TempDir static Path dir;

  private ConfigurableApplicationContext shop;
  private ConfigurableApplicationContext warehouse;
  private OrderService orders;

  private Path file() {
    return dir.resolve("shop.db");
  }

  private ConfigurableApplicationContext start(Class<?> application) {
    return new SpringApplicationBuilder(application)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(
            Map.of(
                "spring.datasource.url",
                SqliteSpringTransactionTest.url(file()),
                "spring.datasource.hikari.connection-init-sql",
                "PRAGMA journal_mode=WAL"))
        .run();
  }

  @BeforeAll
  void start() throws SQLException {
    try (Connection c = connect()) {
      SpringTransactionJoinContract.createTables(c, ShopApplication.SCHEMA);
      SpringTransactionJoinContract.createTables(c, WarehouseApplication.SCHEMA);
    }
    shop = start(ShopApplication.class);
    warehouse = start(WarehouseApplication.class);
    orders = shop.getBean(OrderService.class);
  }

  @AfterAll
  void stop() {
    if (warehouse != null) {
      warehouse.close();
    }
    if (shop != null) {
      shop.close();
    }
  }

  @Test
  void aLateRetryAfterTheMessageWasConsumedShipsTheOrderOnce() throws SQLException {
    assertThat(orders.placeOrder("u-1", "late-1", "tea")).isEqualTo("201 order late-1");
    awaitShipped("late-1");

    // The client never saw the answer and retries, after the warehouse consumed the message.
    assertThat(orders.placeOrder("u-1", "late-1", "tea")).isEqualTo("200 order late-1");
    awaitDrained();

    assertThat(count("orders", "late-1")).isEqualTo(1);
    assertThat(count("shipments", "late-1")).isEqualTo(1);
  }

  @Test
  void aMessageDeliveredAgainAfterItWasShippedShipsNothingMore() throws SQLException {
    assertThat(orders.placeOrder("u-2", "again-1", "cake")).isEqualTo("201 order again-1");
    awaitShipped("again-1");

    redeliver("again-1", "cake");
    awaitDrained();

    assertThat(count("shipments", "again-1")).isEqualTo(1);
  }

  /**
   * A generated history: orders placed, retried and delivered again in a random order, the worker
   * sometimes let drain the queue between two steps (which frees the message keys), sometimes not.
   * The reference is the set of orders placed: each has one order row and one shipment row.
   */
  @Test
  void generatedRetriesAndRedeliveriesShipEveryOrderOnce() throws SQLException {
    Random random = new Random(SEED);
    Set<String> placed = new LinkedHashSet<>();
    List<String> history = new ArrayList<>();
    for (int step = 0; step < 40; step++) {
      String key = "gen-" + random.nextInt(6);
      String item = "item-" + key;
      if (placed.contains(key) && random.nextBoolean()) {
        redeliver(key, item);
        history.add("redeliver " + key);
      } else {
        orders.placeOrder("u-3", key, item);
        placed.add(key);
        history.add("place " + key);
      }
      if (random.nextInt(3) > 0) {
        awaitDrained();
        history.add("drained");
      }
    }
    awaitDrained();

    for (String key : placed) {
      assertThat(count("orders", key)).as("orders of %s after %s", key, history).isEqualTo(1);
      assertThat(count("shipments", key)).as("shipments of %s after %s", key, history).isEqualTo(1);
    }
    assertThat(countLike("shipments", "gen-%")).as("seed %s", SEED).isEqualTo(placed.size());
  }

  /** The same message again, as a producer's retry or a reconciler would send it. */
  private void redeliver(String key, String item) {
    warehouse
        .getBean(OnceOnly.class)
        .queue()
        .send(Message.of("shipping", key, Map.of("item", item)));
  }

  private void awaitShipped(String key) {
    Eventually.await(
        PATIENCE, key + " shipped", () -> unchecked(() -> count("shipments", key)) == 1);
    awaitDrained();
  }

  /** Waits until the warehouse consumed every shipping message (its acknowledgement committed). */
  private void awaitDrained() {
    Eventually.await(
        PATIENCE,
        "the shipping queue drained",
        () -> unchecked(() -> countMatching("onceonly_messages", "queue = ?", "shipping")) == 0);
  }

  interface Count {
    long get() throws SQLException;
  }

  private static long unchecked(Count count) {
    try {
      return count.get();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long count(String table, String key) throws SQLException {
    String column = table.equals("orders") ? "request_key" : "message_key";
    return countMatching(table, column + " = ?", key);
  }

  private long countLike(String table, String pattern) throws SQLException {
    return countMatching(table, "message_key LIKE ?", pattern);
  }

  private long countMatching(String table, String where, String value) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE " + where)) {
      ps.setString(1, value);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }
}
