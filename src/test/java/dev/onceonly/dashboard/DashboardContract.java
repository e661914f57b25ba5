package dev.onceonly.dashboard;

import static java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.Reconciler;
import dev.onceonly.contract.ContractSupport;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Failure;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.testing.Race;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
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

  /** Sends {@code n} messages of {@code queue}, then handles {@code handled} of them. */
  private void sendAndHandle(String queue, String prefix, int n, int handled) {
    for (int i = 0; i < n; i++) {
      once.queue().send(queue, prefix + "-" + i, Map.of("n", i));
    }
    for (Delivery d : once.queue().receive(queue, handled, LEASE)) {
      once.queue().ack(d.lease());
    }
  }

  /** The row of the throughput table for one minute: sent, handled, dead-lettered. */
  private static String minute(String hhmm, String sent, String handled, String dead) {
    return "<tr><td>"
        + hhmm
        + "</td><td class=\"n\">"
        + sent
        + "</td><td class=\"n\">"
        + handled
        + "</td><td class=\"n\">"
        + dead
        + "</td></tr>";
  }

  @Test
  void theThroughputChartShowsSentHandledAndDeadLetteredPerMinute() throws Exception {
    Throughput throughput = Throughput.of(clock);
    start(b -> b.listener(throughput));
    clock.advance(Duration.ofSeconds(10)); // 10:00:10
    sendAndHandle("mail", "a", 3, 2);
    deadLetters("reports", 1, "boom");
    assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();
    clock.advance(Duration.ofMinutes(2)); // 10:02:10
    sendAndHandle("mail", "b", 1, 1);
    deadLetters("reports", 2, "late");
    assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();
    clock.advance(Duration.ofSeconds(55)); // 10:03:05
    serve(b -> b.throughput(throughput));

    String page = server.get("/").body();
    assertThat(page)
        .contains("<svg class=\"chart\" id=\"throughput-chart\"", "<table id=\"throughput\">")
        .contains(
            minute("09:59", "no data", "no data", "0"),
            // the "reports" sends count too: 3 + 1 in the first minute, 1 + 2 in the third
            minute("10:00", "4", "2", "1"),
            minute("10:01", "0", "0", "0"),
            minute("10:02", "3", "1", "2"),
            minute("10:03", "0", "0", "0"))
        .contains("counted from this instance's events since 2030-01-15T10:00:00Z")
        .doesNotContain("10:04", "throughput-none");
    // The SVG says the same, each bar titled: a minute before the listener is a grey band.
    assertThat(page).contains("<title>10:02 sent: 3</title>", "<title>09:59 sent: no data</title>");

    // After a restart, and on a dashboard without the listener, the rows still give the
    // dead-lettered per minute; sent and handled are no data, not zero.
    server.close();
    reopen();
    serve(b -> b);
    assertThat(server.get("/").body())
        .contains(
            minute("10:00", "no data", "no data", "1"),
            minute("10:01", "no data", "no data", "0"),
            minute("10:02", "no data", "no data", "2"))
        .contains("Sent and handled: no data.");
  }

  @Test
  void aFreshStoreSaysItHasNoHistoryYet() throws Exception {
    start(b -> b.listener(Throughput.of(clock)));
    serve(b -> b);
    String page = server.get("/").body();
    assertThat(page)
        .contains("id=\"throughput-none\">no history yet", "id=\"depth-none\">no history yet")
        .doesNotContain("<svg", "<table id=\"throughput\">");
  }

  @Test
  void aReadOnlyDashboardChangesNoByteOfTheStore() throws Exception {
    start();
    once.queue().send("mail", "m-1", Map.of("to", "ana"));
    once.queue().receive("mail", 1, LEASE);
    deadLetters("reports", 2, "disk-full");
    unknownClaim("charge-7");
    // a claim whose lease runs out without a report: a sweep would make it UNKNOWN
    once.externalEffects().claim(IntentKey.of("u-1", "charge-8"), "charge", Map.of(), LEASE);
    once.schedules().register("nightly", "reports", ScheduleSpec.cron("0 6 * * *"), Map.of());
    once.intents().register(IntentKey.of("u-2", "op-9"), "ship", Map.of("box", 1));
    once.receipts()
        .execute(IntentKey.of("u-3", "op-1"), "pay", Map.of("a", 1), String.class, c -> "paid-ok");
    clock.advance(Duration.ofHours(2));
    serve(b -> b.readOnly(true));
    Map<String, List<String>> rows = snapshot();
    String bytes = sqliteBytes();

    for (String page :
        List.of(
            "/",
            "/queues",
            "/queues?queue=mail",
            "/dead-letters",
            "/dead-letters?queue=reports&page=0",
            "/dead-letter?queue=reports&key=disk-full-1",
            "/unknown",
            "/schedules",
            "/receipts",
            "/receipts?scope=u-3&key=op-1",
            "/audit",
            "/")) {
      assertThat(server.get(page).statusCode()).as(page).isEqualTo(200);
      assertThat(sqliteBytes()).as(page).isEqualTo(bytes);
      assertThat(snapshot()).as(page).isEqualTo(rows);
    }
    assertThat(strings("SELECT state FROM onceonly_claims ORDER BY intent_key"))
        .containsExactly("UNKNOWN", "IN_PROGRESS");
  }

  /**
   * On SQLite, the SHA-256 of the database file after its write-ahead log is checkpointed into it
   * (a checkpoint with nothing new to copy changes no byte); elsewhere an empty string.
   */
  private String sqliteBytes() throws Exception {
    java.nio.file.Path file = dir.resolve("contract.db");
    if (once.dialect() != dev.onceonly.sql.Dialect.SQLITE || !java.nio.file.Files.exists(file)) {
      return "";
    }
    // A checkpoint that a reader holds back copies part of the log: wait for a complete one, so
    // that what is hashed is every committed byte.
    dev.onceonly.testing.Eventually.await(
        Duration.ofSeconds(30), "a complete WAL checkpoint", this::checkpointed);
    return java.util.HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(java.nio.file.Files.readAllBytes(file)));
  }

  /** Runs a full checkpoint; true when no reader held it back and it copied the whole log. */
  private boolean checkpointed() {
    try (java.sql.Connection c = connect();
        java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("PRAGMA wal_checkpoint(FULL)")) {
      rs.next();
      return rs.getInt(1) == 0 && rs.getInt(2) == rs.getInt(3);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void theUnknownPageShowsEachClaimWithItsEvidenceAndAge() throws Exception {
    start();
    unknownClaim("charge-7");
    clock.advance(Duration.ofMinutes(5).plusSeconds(3));
    serve(b -> b);
    String page = server.get("/unknown").body();
    assertThat(page)
        .contains("<td>u-1</td><td>charge-7</td><td>charge</td><td>1</td>")
        .contains(
            "<td>downstream key "
                + dev.onceonly.external.ExternalEffects.downstreamKey(
                    IntentKey.of("u-1", "charge-7")))
        .contains("maybe applied: true; last error: timeout after send; arguments: ")
        .contains("{&quot;cents&quot;:5}")
        .contains("<td>5m 03s</td>")
        .contains("name=\"reason\" placeholder=\"reason (stored)\" required");
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

  /** The fields of a bulk action's confirmation: what the review page's form posts. */
  private static Map<String, String> confirmation(HttpResponse<String> review) {
    return DashboardServer.formOf(review.body(), "/dead-letters/bulk");
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

    Map<String, String> confirmed = confirmation(review);
    assertThat(server.post("/dead-letters/bulk", confirmed).body())
        .contains("Requeued 10 of the 10 dead letters reviewed.");
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isEqualTo(10);
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters WHERE last_error = 'boom'"))
        .isEqualTo(2);
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters WHERE last_error = 'other'"))
        .isEqualTo(3);
    Map<String, String> tooMany = new java.util.HashMap<>(ask);
    tooMany.put("max", "1001");
    assertThat(server.act("/dead-letters", "/dead-letters/bulk", tooMany).statusCode())
        .isEqualTo(400);
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(5);
  }

  @Test
  void aBulkDeleteTakesOnlyTheFilteredSetAfterItsConfirmation() throws Exception {
    start();
    deadLetters("reports", 4, "timeout");
    deadLetters("mail", 3, "timeout");
    deadLetters("reports", 2, "bad-json");
    serve(b -> b);
    String list = server.get("/dead-letters").body();
    assertThat(list).contains("At most 1,000 dead letters per action");
    Map<String, String> ask =
        Map.of("queue", "reports", "error", "timeout", "max", "1000", "action", "delete");
    HttpResponse<String> review = server.act("/dead-letters", "/dead-letters/bulk", ask);
    assertThat(review.body()).contains("This will delete", "4 dead letters");
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(9);
    assertThat(server.post("/dead-letters/bulk", confirmation(review)).body())
        .contains("Deleted 4 of the 4 dead letters reviewed.");
    assertThat(strings("SELECT queue FROM onceonly_dead_letters WHERE last_error = 'timeout'"))
        .containsExactly("mail", "mail", "mail");
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters WHERE queue = 'reports'"))
        .isEqualTo(2);
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
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
    server.act(
        "/message?queue=mail&key=m-1", "/queues/withdraw", Map.of("queue", "mail", "key", "m-1"));
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void aQueueShowsItsPrioritiesPartitionsLimitsAndMessages() throws Exception {
    start(b -> b.concurrencyLimit("jobs", 4).concurrencyLimitPerPartition("jobs", 2));
    once.queue().send(Message.of("jobs", "j-1", Map.of()).priority(5).partition("tenant-a"));
    once.queue().send(Message.of("jobs", "j-2", Map.of()).priority(5).partition("tenant-a"));
    once.queue().send(Message.of("jobs", "j-3", Map.of()).priority(-2));
    once.queue()
        .send(Message.of("jobs", "j-4", Map.of()).deliverAt(clock.instant().plusSeconds(60)));
    assertThat(once.queue().receive("jobs", 1, LEASE)).hasSize(1);
    serve(b -> b);
    String page = server.get("/queues?queue=jobs").body();
    assertThat(page)
        .contains("at most 4 leased at once; at most 2 per partition")
        .contains("<tr><td>5</td><td>1</td><td>1</td><td>0</td><td>2</td></tr>")
        .contains("<tr><td>-2</td><td>1</td><td>0</td><td>0</td><td>1</td></tr>")
        .contains("<tr><td>0</td><td>0</td><td>0</td><td>1</td><td>1</td></tr>")
        .contains("<tr><td>(none)</td><td>1</td><td>0</td><td>1</td><td>2</td></tr>")
        .contains("<tr><td>tenant-a</td><td>1</td><td>1</td><td>0</td><td>2</td></tr>")
        .contains("key=j-4\">j-4</a>");
    assertThat(server.get("/queues?queue=free").body()).contains("none declared");
    assertThat(server.get("/queues?queue=jobs&after=-1").statusCode()).isEqualTo(400);
  }

  @Test
  void aMessageIsFoundByKeyAndWithdrawn() throws Exception {
    start();
    once.queue().send(Message.of("mail", "m-1", Map.of("to", "ana")).partition("t-9"));
    once.queue().send("mail", "m-2", Map.of("to", "ben"));
    Delivery d = once.queue().receive("mail", 1, LEASE).get(0);
    serve(b -> b);
    String page = server.get("/message?queue=mail&key=m-1").body();
    assertThat(page)
        .contains("LEASED", "&quot;to&quot;:&quot;ana&quot;", "t-9")
        .contains("lease number " + d.lease().fence())
        .contains(d.lease().expiresAt().toString());
    HttpResponse<String> done =
        server.act(
            "/message?queue=mail&key=m-1",
            "/queues/withdraw",
            Map.of("queue", "mail", "key", "m-1"));
    assertThat(done.body()).contains("Withdrew");
    assertThat(strings("SELECT message_key FROM onceonly_messages")).containsExactly("m-2");
    assertThat(once.queue().ack(d.lease())).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(server.get("/message?queue=mail&key=m-1").statusCode()).isEqualTo(404);
    assertThat(server.get("/message?queue=mail").statusCode()).isEqualTo(400);
  }

  @Test
  void theSchedulesPageShowsTheNextSlotsAndRunsOneNowOnce() throws Exception {
    start();
    ZoneId madrid = ZoneId.of("Europe/Madrid");
    once.schedules().register("nightly", "reports", ScheduleSpec.cron("0 6 * * *", madrid), 1);
    List<Instant> slots = once.schedules().upcoming("nightly", SchedulesPage.SLOTS);
    serve(b -> b);
    String page = server.get("/schedules").body();
    for (Instant slot : slots) {
      assertThat(page).contains(ISO_OFFSET_DATE_TIME.format(slot.atZone(madrid)));
    }
    assertThat(page).contains("Europe/Madrid", "none yet");
    String csrf = DashboardServer.csrfOf(page);
    Map<String, String> press =
        Map.of("name", "nightly", "slot", slots.get(0).toString(), "csrf", csrf);
    List<String> answers = Race.run(8, t -> () -> server.post("/schedules/run", press).body());
    assertThat(answers.stream().filter(a -> a.contains("Sent now"))).hasSize(1);
    assertThat(answers.stream().filter(a -> a.contains("no longer the next"))).hasSize(7);
    assertThat(strings("SELECT message_key FROM onceonly_messages"))
        .containsExactly(Schedule.runKey("nightly", slots.get(0)));
    assertThat(strings("SELECT " + millis("next_run") + " FROM onceonly_schedules"))
        .containsExactly(String.valueOf(slots.get(1).toEpochMilli()));
    assertThat(server.get("/schedules").body()).contains("its message: DUE");
    Map<String, String> bad = Map.of("name", "nightly", "slot", "tomorrow", "csrf", csrf);
    assertThat(server.post("/schedules/run", bad).statusCode()).isEqualTo(400);
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isOne();
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
