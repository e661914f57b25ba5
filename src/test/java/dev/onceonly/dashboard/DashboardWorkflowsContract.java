package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.contract.ContractSupport;
import dev.onceonly.queue.Delivery;
import dev.onceonly.workflow.StepState;
import dev.onceonly.workflow.Workflow;
import dev.onceonly.workflow.WorkflowState;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Workflows pages on a real Jetty over each database: the count of each state and the runs of
 * one, a run's steps as server-side SVG with a legend in text, a hostile error shown as text, and
 * cancel and retry taken only with the page's CSRF value, checked in the rows after reopening.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DashboardWorkflowsContract extends ContractSupport {
  static final Workflow ORDER =
      Workflow.named("order")
          .step("reserve", "wq")
          .step("charge", "wq")
          .after("reserve")
          .step("ship", "wq")
          .after("charge")
          .step("mail", "wq")
          .after("reserve")
          .build();

  static final String HOSTILE = "<script>alert(1)</script>\" onmouseover=\"x";

  private DashboardServer server;

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aRunIsDrawnAndListedAndCancelledOrRetriedOnlyWithTheCsrfValue() throws Exception {
    start();
    once.workflows().start(ORDER, "o-1", Map.of());
    once.workflows().start(ORDER, "o-2", Map.of());
    // o-2's first step fails for good, with a hostile error.
    for (Delivery d : once.queue().receive("wq", 10, Duration.ofSeconds(30))) {
      if (d.key().contains("o-2")) {
        once.queue().deadLetter(d.lease(), HOSTILE);
      } else {
        once.queue().nack(d.lease(), "later", Duration.ZERO);
      }
    }
    assertThat(once.workflows().find("o-2").orElseThrow().state()).isEqualTo(WorkflowState.FAILED);
    server = new DashboardServer(DashboardServlet.builder(once).build());

    String running = server.get("/workflows").body();
    assertThat(running).contains("o-1").doesNotContain("/workflow?id=o-2");
    assertThat(running).containsPattern("running</a> 1").containsPattern("failed</a> 1");
    assertThat(server.get("/workflows?state=FAILED").body()).contains("/workflow?id=o-2");
    assertThat(server.get("/workflows?state=DONE").statusCode()).isEqualTo(400);

    String failed = server.get("/workflow?id=o-2").body();
    assertThat(failed).contains("<svg id=\"graph\"").contains("<p id=\"legend\">Legend: ");
    assertThat(failed)
        .contains("fill=\"" + WorkflowsPage.FILLS.get(StepState.FAILED) + "\"")
        .contains("fill=\"" + WorkflowsPage.FILLS.get(StepState.CANCELLED) + "\"");
    assertThat(failed.split("<g class=\"step\">", -1)).hasSize(ORDER.steps().size() + 1);
    assertThat(failed.split("<line ", -1)).as("one edge per dependency").hasSize(3 + 1);
    assertThat(failed).doesNotContain("<script>").contains("&lt;script&gt;alert(1)");
    assertThat(failed).doesNotContain("/workflows/cancel").contains("/workflows/retry");
    assertThat(server.get("/workflow?id=o-9").statusCode()).isEqualTo(404);

    // Without the CSRF value: refused, nothing changed.
    HttpResponse<String> forged = server.post("/workflows/cancel", Map.of("id", "o-1"));
    assertThat(forged.statusCode()).isEqualTo(403);
    reopen();
    assertThat(once.workflows().find("o-1").orElseThrow().state()).isEqualTo(WorkflowState.RUNNING);
    server.close();
    server = new DashboardServer(DashboardServlet.builder(once).build());

    String page = server.get("/workflow?id=o-1").body();
    Map<String, String> cancel =
        new LinkedHashMap<>(DashboardServer.formOf(page, "/workflows/cancel"));
    cancel.put("compensate", "no");
    HttpResponse<String> cancelled = server.post("/workflows/cancel", cancel);
    assertThat(cancelled.statusCode()).isEqualTo(200);
    assertThat(cancelled.body()).contains("Cancelled: workflow run o-1");
    Map<String, String> retry =
        DashboardServer.formOf(server.get("/workflow?id=o-2").body(), "/workflows/retry");
    assertThat(server.post("/workflows/retry", retry).body()).contains("Retried: workflow run o-2");
    // The same form again: the run is running now, so nothing changes.
    assertThat(server.post("/workflows/retry", retry).body()).contains("Not retried");

    reopen();
    assertThat(once.workflows().find("o-1").orElseThrow().state())
        .isEqualTo(WorkflowState.CANCELLED);
    assertThat(once.workflows().find("o-2").orElseThrow().state()).isEqualTo(WorkflowState.RUNNING);
    assertThat(once.workflows().find("o-2").orElseThrow().step("reserve").state())
        .isEqualTo(StepState.QUEUED);
  }
}
