package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Drain;
import dev.onceonly.testing.DrainStep;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.OnceOnlyTest;
import dev.onceonly.testing.Reopen;
import dev.onceonly.workflow.StepHandler;
import dev.onceonly.workflow.StepState;
import dev.onceonly.workflow.Workflow;
import dev.onceonly.workflow.WorkflowRun;
import dev.onceonly.workflow.WorkflowState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The testing kit's drain of a workflow, as docs/testing.md shows it: a run goes to its end on the
 * test's thread, a transient failure retried after its backoff by moving the clock, a final one
 * compensated, and the ledger read after reopening the store.
 */
@OnceOnlyTest
class OrderWorkflowDrainTest {
  static final Workflow ORDER =
      Workflow.named("order")
          .step("reserve", "stock")
          .compensatedBy("stock-release")
          .step("charge", "payments")
          .after("reserve")
          .compensatedBy("payments-refund")
          .step("ship", "shipping")
          .after("charge")
          .build();

  /** The provider refuses the first charge of each order for a moment; shipping may be refused. */
  static StepHandler steps(AtomicInteger providerHiccups) {
    return (step, tx) -> {
      String orderId = step.input().get("order").asText();
      switch (step.step() + (step.compensation() ? ":undo" : "")) {
        case "reserve":
          return ledger(tx, orderId, "reserved");
        case "reserve:undo":
          return ledger(tx, orderId, "released");
        case "charge":
          if (providerHiccups.getAndDecrement() > 0) {
            throw new IllegalStateException("the provider is busy"); // retried after backoff
          }
          return ledger(tx, orderId, "charged");
        case "charge:undo":
          return ledger(tx, orderId, "refunded");
        case "ship":
          if (step.input().path("undeliverable").asBoolean()) {
            throw new InvalidRequestException("address", "no carrier delivers there"); // final
          }
          return ledger(tx, orderId, "shipped");
        default:
          throw new IllegalStateException("no step " + step.step());
      }
    };
  }

  static Map<String, Object> ledger(Connection tx, String orderId, String entry)
      throws SQLException {
    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO ledger VALUES (?, ?)")) {
      ps.setString(1, orderId);
      ps.setString(2, entry);
      ps.executeUpdate();
    }
    return Map.of("entry", entry);
  }

  @Test
  void aDrainRunsEachOrderToItsEndRetriesIncluded(OnceOnly once, MutableClock clock, Reopen reopen)
      throws Exception {
    once.inTransaction(
        tx -> {
          try (PreparedStatement ps =
              tx.prepareStatement("CREATE TABLE ledger (order_id TEXT, entry TEXT)")) {
            ps.executeUpdate();
          }
          return null;
        });
    Workflow order = ORDER;
    StepHandler steps = steps(new AtomicInteger(1));
    once.workflows().start(order, "order-o-42", Map.of("order", "o-42"));
    once.workflows().start(order, "order-o-43", Map.of("order", "o-43", "undeliverable", true));

    List<DrainStep> handled =
        Drain.workflow(once.queue(), once.workflows(), order, steps).movingClock(clock).run();
    assertThat(handled).filteredOn(DrainStep::retried).hasSize(1); // the busy provider
    assertThat(once.workflows().find("order-o-42").orElseThrow().state())
        .isEqualTo(WorkflowState.COMPLETED);
    assertThat(once.workflows().find("order-o-43").orElseThrow().state())
        .isEqualTo(WorkflowState.FAILED);

    OnceOnly restarted = reopen.reopen();
    WorkflowRun failed = restarted.workflows().find("order-o-43").orElseThrow();
    assertThat(failed.step("ship").state()).isEqualTo(StepState.FAILED);
    assertThat(ledger(restarted, "o-42")).containsExactly("reserved", "charged", "shipped");
    assertThat(ledger(restarted, "o-43"))
        .containsExactly("reserved", "charged", "refunded", "released");
    assertThat(restarted.maintenance().status().messages()).isEmpty();
    assertThat(restarted.maintenance().status().deadLetterTotal()).isOne(); // the shipment
  }

  private static List<String> ledger(OnceOnly once, String orderId) throws Exception {
    return once.inTransaction(
        tx -> {
          List<String> out = new ArrayList<>();
          try (PreparedStatement ps =
              tx.prepareStatement("SELECT entry FROM ledger WHERE order_id = ? ORDER BY rowid")) {
            ps.setString(1, orderId);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(rs.getString(1));
              }
            }
          }
          return out;
        });
  }
}
