package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example of README.md's "The queue", compiled and run against a SQLite file, so that the
 * README cannot drift away from the API. When one of the two changes, change the other the same
 * way.
 */
class ReadmeQueueExampleTest {
  @TempDir Path dir;

  // ---- README.md, The queue ----

  record Shipment(long id, String order) {}

  static IntentKey shipment(String order) {
    return IntentKey.of("shop", "ship-" + order);
  }

  /** In your transaction: the order row and its message commit together, or neither does. */
  static void placeOrder(OnceOnly once, Connection tx, String order) throws SQLException {
    Orders.insert(tx, order); // your own JDBC code, on your connection
    once.queue().send(tx, Message.of("shipping", "ship-" + order, Map.of("order", order)));
  }

  /** Or in one of the store's own transactions: no connection of yours, no BEGIN IMMEDIATE. */
  static void placeOrder(OnceOnly once, String order) throws SQLException {
    once.useTransaction(tx -> placeOrder(once, tx, order));
  }

  /** By hand: receive under a lease, do the work, acknowledge. */
  static void shipWaitingOrders(OnceOnly once) throws SQLException {
    JobQueue queue = once.queue();
    for (Delivery d : queue.receive("shipping", 10, Duration.ofSeconds(30))) {
      String order = d.payload().get("order").asText();
      once.receipts()
          .execute(
              shipment(order),
              "ship_order",
              Map.of("order", order),
              Shipment.class,
              tx -> Shipments.insert(tx, order)); // once per order, even if delivered again
      queue.ack(d.lease()); // Completed, or LeaseLost if another worker took the message over
    }
  }

  /** With a Worker: the shipment, its receipt and the acknowledgement commit together. */
  static Worker startShippingWorker(OnceOnly once) {
    Handler handler =
        job -> {
          String order = job.payload().get("order").asText();
          job.completeWith(
              tx ->
                  once.receipts()
                      .execute(
                          tx, // joins the transaction that acknowledges the message
                          shipment(order),
                          "ship_order",
                          Map.of("order", order),
                          Shipment.class,
                          c -> Shipments.insert(c, order)));
        };
    return Worker.builder(once.queue(), "shipping", handler).threads(2).build().start();
  }

  // ---- end of the README example ----

  /** The application's own tables and JDBC code. */
  static final class Orders {
    static final String TABLE = "CREATE TABLE orders (order_id TEXT PRIMARY KEY)";

    static void insert(Connection tx, String order) throws SQLException {
      try (PreparedStatement ps = tx.prepareStatement("INSERT INTO orders (order_id) VALUES (?)")) {
        ps.setString(1, order);
        ps.executeUpdate();
      }
    }
  }

  static final class Shipments {
    static final String TABLE =
        "CREATE TABLE shipments (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL)";

    static Shipment insert(Connection tx, String order) throws SQLException {
      try (PreparedStatement ps =
          tx.prepareStatement("INSERT INTO shipments (order_id) VALUES (?) RETURNING id")) {
        ps.setString(1, order);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return new Shipment(rs.getLong(1), order);
        }
      }
    }
  }

  /** Runs one statement on the caller's connection: BEGIN IMMEDIATE, COMMIT, ROLLBACK. */
  static void run(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** README.md shows the example above as it is here, less two spaces of indentation. */
  @Test
  void theReadmeShowsThisExampleVerbatim() throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/onceonly/ReadmeQueueExampleTest.java"),
            StandardCharsets.UTF_8);
    String start = "  // ---- README.md, The queue ----\n";
    String end = "  // ---- end of the README example ----";
    String example =
        source
            .substring(source.indexOf(start) + start.length(), source.indexOf(end))
            .strip()
            .lines()
            .map(line -> line.startsWith("  ") ? line.substring(2) : line)
            .collect(Collectors.joining("\n"));
    String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
    assertThat(readme).contains("```java\n" + example + "\n```");
  }

  @Test
  void ordersAreShippedOnceByHandAndByAWorkerAndTheRowsSayIt() throws Exception {
    Path file = dir.resolve("shop.db");
    Db.exec(file, Orders.TABLE);
    Db.exec(file, Shipments.TABLE);

    try (OnceOnly once = OnceOnly.openSqlite(file);
        Connection tx = Db.open(file)) {
      run(tx, "PRAGMA busy_timeout = 10000");

      // Outbox: two orders commit with their messages; a third is rolled back with its message.
      run(tx, "BEGIN IMMEDIATE");
      placeOrder(once, tx, "o-1");
      placeOrder(once, tx, "o-2");
      run(tx, "COMMIT");
      run(tx, "BEGIN IMMEDIATE");
      placeOrder(once, tx, "o-3");
      run(tx, "ROLLBACK");
      assertThat(once.queue().depth("shipping")).isEqualTo(2);

      // By hand.
      shipWaitingOrders(once);
      assertThat(once.queue().depth("shipping")).isZero();
      assertThat(Db.count(file, "SELECT COUNT(*) FROM shipments")).isEqualTo(2);

      // Three more orders, and a producer that publishes o-1 again after it was acknowledged.
      run(tx, "BEGIN IMMEDIATE");
      for (String order : new String[] {"o-3", "o-4", "o-5"}) {
        placeOrder(once, tx, order);
      }
      run(tx, "COMMIT");
      assertThat(once.queue().send("shipping", "ship-o-1", Map.of("order", "o-1")).status())
          .isEqualTo(SendResult.Status.SENT);

      // In the store's own transaction: o-6 commits with its message; o-2 again fails on the
      // orders table's key, and its message is rolled back with it.
      placeOrder(once, "o-6");
      assertThatThrownBy(() -> placeOrder(once, "o-2")).isInstanceOf(SQLException.class);
      assertThat(once.queue().depth("shipping")).isEqualTo(5);

      // With a Worker.
      Worker worker = startShippingWorker(once);
      try {
        Eventually.await(
            Duration.ofSeconds(30),
            "shipping queue drained",
            () -> once.queue().depth("shipping") == 0);
      } finally {
        worker.close();
      }
      assertThat(worker.completed()).isEqualTo(5);
    }

    // After reopening: every order once, one shipment and one receipt each, nothing queued.
    assertThat(Db.strings(file, "SELECT order_id FROM orders ORDER BY order_id"))
        .containsExactly("o-1", "o-2", "o-3", "o-4", "o-5", "o-6");
    assertThat(Db.strings(file, "SELECT order_id FROM shipments ORDER BY order_id"))
        .containsExactly("o-1", "o-2", "o-3", "o-4", "o-5", "o-6");
    assertThat(
            Db.strings(
                file, "SELECT intent_key FROM onceonly_receipts WHERE scope = 'shop' ORDER BY 1"))
        .containsExactly("ship-o-1", "ship-o-2", "ship-o-3", "ship-o-4", "ship-o-5", "ship-o-6");
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      assertThat(once.queue().depth("shipping")).isZero();
      assertThat(once.receipts().find(shipment("o-1")).orElseThrow().resultJson())
          .isEqualTo("{\"id\":1,\"order\":\"o-1\"}");
    }
  }
}
