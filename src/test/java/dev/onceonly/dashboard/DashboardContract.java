package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.Reconciler;
import dev.onceonly.contract.ContractSupport;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Failure;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.ScheduleSpec;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The dashboard on a real Jetty over each database: every page renders what the store holds, every
 * action changes the rows it names (read back through a connection of the test's own), and every
 * refused request (no CSRF value, a wrong one, read-only, no right to act, bad input) changes
 * nothing.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DashboardContract extends ContractSupport {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private DashboardServer server;

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private DashboardServer serve(UnaryOperator<DashboardServlet.Builder> settings) throws Exception {
    server = new DashboardServer(settings.apply(DashboardServlet.builder(once)).build());
    return server;
  }

  /** Dead-letters {@code n} messages of {@code queue}, with error {@code error}. */
  private void deadLetters(String queue, int n, String error) {
    for (int i = 0; i < n; i++) {
      once.queue().send(queue, error + "-" + i, Map.of("n", i));
    }
    for (Delivery d : once.queue().receive(queue, n, LEASE)) {
      once.queue().deadLetter(d.lease(), error);
    }
  }

  private IntentKey unknownClaim(String key) {
    IntentKey k = IntentKey.of("u-1", key);
    Claim c =
        ((ClaimOutcome.Claimed)
                once.externalEffects().claim(k, "charge", Map.of("cents", 5), LEASE))
            .claim();
    once.externalEffects().fail(c, Failure.unknownAfterSend("timeout after send"));
    return k;
  }

  @Test
  void everyPageShowsWhatTheStoreHolds() throws Exception {
    start();
    once.queue().send("mail", "m-1", Map.of("to", "ana"));
    deadLetters("reports", 2, "disk-full");
    unknownClaim("charge-7");
    once.schedules().register("nightly", "reports", ScheduleSpec.cron("0 6 * * *"), Map.of());
    once.intents().register(IntentKey.of("u-2", "op-9"), "ship", Map.of("box", 1));
    once.receipts()
        .execute(IntentKey.of("u-3", "op-1"), "pay", Map.of("a", 1), String.class, c -> "paid-ok");
    serve(b -> b);

    Map<String, List<String>> expected =
        Map.of(
            "/", List.of("Overview", "pending (no receipt)", "u-2 / op-9", "no history yet"),
            "/queues", List.of("mail", "reports"),
            "/dead-letters", List.of("disk-full-0", "disk-full-1", "2 dead letters"),
            "/dead-letter?queue=reports&key=disk-full-1", List.of("&quot;n&quot;:1", "disk-full"),
            "/unknown", List.of("charge-7", "timeout after send", "oo1-"),
            "/schedules", List.of("nightly", "0 6 * * *", "running"),
            "/receipts?scope=u-3&key=op-1", List.of("paid-ok", "jcs-sha256:", "op-9"),
            "/audit", List.of("Audit", "STALE_LEASE"));
    for (Map.Entry<String, List<String>> page : expected.entrySet()) {
      HttpResponse<String> r = server.get(page.getKey());
      assertThat(r.statusCode()).as(page.getKey()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Security-Policy"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("default-src 'self'"));
      assertThat(r.body()).as(page.getKey()).contains(page.getValue()).doesNotContain("<script");
    }
    assertThat(server.get("/no-such-page").statusCode()).isEqualTo(404);
    // A second visit a while later is real history: the chart draws two samples.
    clock.advance(Duration.ofMinutes(1));
    assertThat(server.get("/").body()).contains("<svg", "2 samples").doesNotContain("no history");
  }

  @Test
  void requeueAndDeleteOneDeadLetter() throws Exception {
    start();
    deadLetters("reports", 2, "boom");
    serve(b -> b);
    assertThat(
            server
                .act(
                    "/dead-letters",
                    "/dead-letters/requeue",
                    Map.of("queue", "reports", "key", "boom-0"))
                .body())
        .contains("Requeued");
    assertThat(
            server
                .act(
                    "/dead-letters",
                    "/dead-letters/delete",
                    Map.of("queue", "reports", "key", "boom-1"))
                .body())
        .contains("Deleted");
    assertThat(strings("SELECT message_key FROM onceonly_messages")).containsExactly("boom-0");
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    // the requeued message runs: a receiver gets it, with its attempts reset
    assertThat(once.queue().receive("reports", 5, LEASE))
        .singleElement()
        .satisfies(d -> assertThat(d.attempt()).isEqualTo(1));
  }

  @Test
  void aBulkActionIsBoundedAndWaitsForItsConfirmation() throws Exception {
    start();
    deadLetters("reports", 12, "boom");
    deadLetters("reports", 3, "other");
    serve(b -> b);
    Map<String, String> ask =
        Map.of("queue", "reports", "error", "boom", "max", "10", "action", "requeue");
    HttpResponse<String> review = server.act("/dead-letters", "/dead-letters/bulk", ask);
    assertThat(review.body()).contains("This will requeue", "10 dead letters");
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(15);

    Map<String, String> confirmed = new java.util.HashMap<>(ask);
    confirmed.put("confirm", "yes");
    confirmed.put("csrf", DashboardServer.csrfOf(review.body()));
    assertThat(server.post("/dead-letters/bulk", confirmed).body()).contains("Requeued 10 of 10");
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isEqualTo(10);
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters WHERE last_error = 'boom'"))
        .isEqualTo(2);
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters WHERE last_error = 'other'"))
        .isEqualTo(3);
    Map<String, String> tooMany = new java.util.HashMap<>(confirmed);
    tooMany.put("max", "1001");
    assertThat(server.post("/dead-letters/bulk", tooMany).statusCode()).isEqualTo(400);
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(5);
  }

  @Test
  void unknownOutcomesAreSettledWithTheirReasonStored() throws Exception {
    start();
    unknownClaim("done-1");
    unknownClaim("not-done-1");
    serve(b -> b);
    Map<String, String> done =
        Map.of("scope", "u-1", "key", "done-1", "outcome", "done", "reason", "seen at the bank");
    assertThat(server.act("/unknown", "/unknown/resolve", done).body()).contains("COMPLETED");
    Map<String, String> notDone =
        Map.of("scope", "u-1", "key", "not-done-1", "outcome", "not-done", "reason", "no charge");
    assertThat(server.act("/unknown", "/unknown/resolve", notDone).body()).contains("RETRY_WAIT");

    assertThat(strings("SELECT state FROM onceonly_claims ORDER BY intent_key"))
        .containsExactly("COMPLETED", "RETRY_WAIT");
    assertThat(strings("SELECT result FROM onceonly_claims WHERE intent_key = 'done-1'"))
        .singleElement()
        .asString()
        .contains("seen at the bank", "anonymous");
    assertThat(strings("SELECT last_error FROM onceonly_claims WHERE intent_key = 'not-done-1'"))
        .containsExactly("resolved as not done: anonymous: no charge");
  }

  @Test
  void schedulesPauseAndResumeAndMessagesAreWithdrawn() throws Exception {
    start();
    once.schedules().register("nightly", "reports", ScheduleSpec.cron("0 6 * * *"), Map.of());
    once.queue().send("mail", "m-1", Map.of());
    serve(b -> b);
    server.act("/schedules", "/schedules/pause", Map.of("name", "nightly"));
    assertThat(strings("SELECT paused FROM onceonly_schedules")).containsExactly("1");
    server.act("/schedules", "/schedules/resume", Map.of("name", "nightly"));
    assertThat(strings("SELECT paused FROM onceonly_schedules")).containsExactly("0");
    server.act("/queues", "/queues/withdraw", Map.of("queue", "mail", "key", "m-1"));
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void theReconcilerRunsOnceFromTheReceiptsPage() throws Exception {
    start();
    once.intents().register(IntentKey.of("u-2", "op-9"), "ship", Map.of("box", 1));
    Reconciler reconciler =
        Reconciler.of(once.intents(), IntentMessage.publisher(once.queue(), "ship"));
    serve(b -> b.reconciler(reconciler));
    assertThat(server.act("/receipts", "/receipts/reconcile", Map.of()).body())
        .contains("published 1");
    assertThat(strings("SELECT queue FROM onceonly_messages")).containsExactly("ship");
  }

  @Test
  void refusedRequestsChangeNothing() throws Exception {
    start();
    deadLetters("reports", 1, "boom");
    unknownClaim("c-1");
    Map<String, String> requeue = Map.of("queue", "reports", "key", "boom-0");
    serve(b -> b);
    assertThat(server.post("/dead-letters/requeue", requeue).statusCode()).isEqualTo(403);
    server.get("/dead-letters"); // the browser has its cookie now; the value is still missing
    Map<String, String> forged = new java.util.HashMap<>(requeue);
    forged.put("csrf", "A".repeat(43));
    assertThat(server.post("/dead-letters/requeue", forged).statusCode()).isEqualTo(403);
    assertThat(server.post("/dead-letters/requeue", requeue).body()).contains("CSRF");
    Map<String, String> noReason =
        Map.of("scope", "u-1", "key", "c-1", "outcome", "done", "reason", "  ");
    assertThat(server.act("/unknown", "/unknown/resolve", noReason).statusCode()).isEqualTo(400);
    server.close();

    serve(b -> b.readOnly(true));
    assertThat(server.get("/dead-letters").body()).doesNotContain("<form method=\"post\"");
    assertThat(server.post("/dead-letters/requeue", requeue).statusCode()).isEqualTo(405);
    server.close();

    serve(b -> b.mayAct(req -> false));
    assertThat(server.get("/dead-letters").body()).doesNotContain("csrf");
    assertThat(server.post("/dead-letters/requeue", requeue).statusCode()).isEqualTo(403);

    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(strings("SELECT state FROM onceonly_claims")).containsExactly("UNKNOWN");
  }

  @Test
  void theAccessTokenIsAskedForThenKeptInACookie() throws Exception {
    start();
    String token = DashboardServlet.newAccessToken();
    serve(b -> b.accessToken(token));
    assertThat(server.get("/").statusCode()).isEqualTo(401);
    assertThat(server.get("/?token=" + "x".repeat(43)).statusCode()).isEqualTo(401);
    HttpResponse<String> admitted = server.get("/?token=" + token);
    assertThat(admitted.statusCode()).isEqualTo(303);
    assertThat(admitted.headers().firstValue("Location")).hasValue(DashboardServer.PATH + "/");
    assertThat(server.get("/").body()).contains("Overview");
  }
}
