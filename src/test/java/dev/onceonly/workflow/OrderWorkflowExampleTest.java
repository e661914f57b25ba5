package dev.onceonly.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worked example of docs/workflows.md, as it stands there: an order reserved, charged and
 * shipped, with the reservation released and the charge refunded if shipping fails for good. The
 * ledger rows are read from the file after the instance is closed.
 */
class OrderWorkflowExampleTest {
  @TempDir Path dir;

  static final Workflow ORDER = definition();

  static Workflow definition() {
    Workflow order =
        Workflow.named("order")
            .step("reserve", "stock")
            .compensatedBy("stock-release")
            .step("charge", "payments")
            .after("reserve")
            .compensatedBy("payments-refund")
            .step("ship", "shipping")
            .after("charge")
            .build();
    return order;
  }

  static StepHandler steps() {
    StepHandler steps =
        (step, tx) -> {
          String orderId = step.input().get("order").asText();
          switch (step.step() + (step.compensation() ? ":undo" : "")) {
            case "reserve":
              return ledger(tx, orderId, "reserved");
            case "reserve:undo":
              return ledger(tx, orderId, "released");
            case "charge":
              return ledger(tx, orderId, "charged " + step.input().get("amount").asInt());
            case "charge:undo": // the refund reads what the charge stored
              return ledger(tx, orderId, "refunded " + step.result("charge").get("entry").asText());
            case "ship":
              if (step.input().path("undeliverable").asBoolean()) {
                throw new InvalidRequestException("address", "no carrier delivers there");
              }
              return ledger(tx, orderId, "shipped");
            default:
              throw new IllegalStateException("no step " + step.step());
          }
        };
    return steps;
  }

  /** Writes a ledger row in the step's transaction and returns it as the step's result. */
  static Map<String, Object> ledger(Connection tx, String orderId, String entry)
      throws SQLException {
    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO ledger VALUES (?, ?)")) {
      ps.setString(1, orderId);
      ps.setString(2, entry);
      ps.executeUpdate();
    }
    return Map.of("entry", entry);
  }

  static void insertOrder(Connection tx, String orderId) throws SQLException {
    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO orders VALUES (?)")) {
      ps.setString(1, orderId);
      ps.executeUpdate();
    }
  }

  @Test
  void anOrderIsReservedChargedAndShippedOnceOrUndoneInReverse() throws Exception {
    Path file = dir.resolve("shop.db");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      Db.exec(file, "CREATE TABLE orders (order_id TEXT PRIMARY KEY)");
      Db.exec(file, "CREATE TABLE ledger (order_id TEXT NOT NULL, entry TEXT NOT NULL)");
      Workflow order = ORDER;
      StepHandler steps = steps();

      List<Worker> workers =
          Stream.of("stock", "stock-release", "payments", "payments-refund", "shipping")
              .map(q -> Worker.builder(once.queue(), q, once.workflows().handler(steps)).build())
              .map(Worker::start)
              .toList();

      once.inTransaction(
          tx -> {
            insertOrder(tx, "o-42");
            return once.workflows()
                .start(tx, order, "order-o-42", Map.of("order", "o-42", "amount", 30));
          });
      once.inTransaction(
          tx -> {
            insertOrder(tx, "o-43");
            return once.workflows()
                .start(
                    tx,
                    order,
                    "order-o-43",
                    Map.of("order", "o-43", "amount", 12, "undeliverable", true));
          });

      Eventually.await(
          Duration.ofSeconds(30),
          "both orders settled",
          () ->
              once.workflows().find("order-o-42").orElseThrow().state().finished()
                  && once.workflows().find("order-o-43").orElseThrow().state().finished());
      WorkflowRun run = once.workflows().find("order-o-43").orElseThrow();
      assertThat(run.state()).isEqualTo(WorkflowState.FAILED);
      assertThat(run.step("ship").error()).contains("no carrier delivers there");
      workers.forEach(Worker::close);
    }
    assertThat(Db.strings(file, "SELECT entry FROM ledger WHERE order_id = 'o-42' ORDER BY rowid"))
        .containsExactly("reserved", "charged 30", "shipped");
    assertThat(Db.strings(file, "SELECT entry FROM ledger WHERE order_id = 'o-43' ORDER BY rowid"))
        .containsExactly("reserved", "charged 12", "refunded charged 12", "released");
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }
}
