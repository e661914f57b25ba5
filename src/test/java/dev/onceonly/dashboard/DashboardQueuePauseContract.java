package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.contract.ContractSupport;
import dev.onceonly.queue.QueuePause;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pausing and resuming a queue from the Queues pages, on a real Jetty over each database: the pause
 * and resume forms are taken only with the page's CSRF value, the pause is recorded as the
 * dashboard's actor with the typed reason (shown as text, however hostile), and every state is
 * checked in the rows after reopening.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DashboardQueuePauseContract extends ContractSupport {
  static final String HOSTILE = "<script>alert(1)</script>\" onmouseover=\"x";

  private DashboardServer server;

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private void serve() throws Exception {
    if (server != null) {
      server.close();
    }
    server = new DashboardServer(DashboardServlet.builder(once).build());
  }

  private long pauses() {
    return count("SELECT COUNT(*) FROM onceonly_queue_pauses");
  }

  @Test
  void aQueueIsPausedAndResumedOnlyWithTheCsrfValueAndThePauseIsShown() throws Exception {
    start();
    once.queue().send("mail", "m-1", 1).orThrow();
    serve();

    String running = server.get("/queues?queue=mail").body();
    assertThat(running).contains("Running: every instance claims").contains("/queues/pause");
    assertThat(running).doesNotContain("/queues/resume");

    // Without the CSRF value: refused, nothing written.
    HttpResponse<String> forged =
        server.post("/queues/pause", Map.of("queue", "mail", "reason", "forged"));
    assertThat(forged.statusCode()).isEqualTo(403);
    reopen();
    assertThat(pauses()).isZero();
    serve();

    Map<String, String> pause =
        new LinkedHashMap<>(
            DashboardServer.formOf(server.get("/queues?queue=mail").body(), "/queues/pause"));
    pause.put("reason", HOSTILE);
    HttpResponse<String> paused = server.post("/queues/pause", pause);
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(paused.body()).contains("Paused: queue / mail");
    assertThat(server.post("/queues/pause", pause).body())
        .as("the same form again")
        .contains("Unchanged (it was paused already)");

    reopen();
    QueuePause row = once.queue().paused("mail").orElseThrow();
    assertThat(row.reason()).isEqualTo(HOSTILE);
    assertThat(row.pausedBy()).isEqualTo("anonymous");
    assertThat(once.queue().receive("mail", 10, Duration.ofMinutes(1))).isEmpty();
    serve();

    String shown = server.get("/queues?queue=mail").body();
    assertThat(shown).contains("<strong>Paused</strong> by <span id=\"paused-by\">anonymous");
    assertThat(shown).contains(row.pausedAt().toString()).contains("/queues/resume");
    assertThat(shown).doesNotContain("<script>").contains("&lt;script&gt;alert(1)");
    String list = server.get("/queues").body();
    assertThat(list).contains("<table id=\"paused-queues\">").contains("/queues?queue=mail");
    assertThat(list).doesNotContain("<script>");

    HttpResponse<String> forgedResume = server.post("/queues/resume", Map.of("queue", "mail"));
    assertThat(forgedResume.statusCode()).isEqualTo(403);
    reopen();
    assertThat(pauses()).isOne();
    serve();

    Map<String, String> resume =
        DashboardServer.formOf(server.get("/queues?queue=mail").body(), "/queues/resume");
    assertThat(server.post("/queues/resume", resume).body()).contains("Resumed: queue / mail");
    assertThat(server.post("/queues/resume", resume).body())
        .contains("Unchanged (it was not paused)");
    reopen();
    assertThat(pauses()).isZero();
    assertThat(once.queue().receive("mail", 10, Duration.ofMinutes(1))).hasSize(1);
  }

  @Test
  void aBadPauseIsRefusedAndWritesNothing() throws Exception {
    start();
    serve();
    Map<String, String> pause =
        new LinkedHashMap<>(
            DashboardServer.formOf(server.get("/queues?queue=mail").body(), "/queues/pause"));
    pause.put("reason", "r".repeat(1001));
    assertThat(server.post("/queues/pause", pause).statusCode()).isEqualTo(400);
    assertThat(pauses()).isZero();
  }
}
