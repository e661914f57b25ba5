package dev.onceonly.http;

import static dev.onceonly.http.HttpTestApp.TABLE;
import static dev.onceonly.http.HttpTestApp.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.contract.ContractSupport;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.external.ClaimState;
import dev.onceonly.testing.LogCapture;
import dev.onceonly.testing.Race;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The plain mode of {@link IdempotencyFilter}, row by row of the table in docs/http.md: a real
 * Jetty server, a real HTTP client, the handler's rows and the stored claim read back from the
 * database, on SQLite and PostgreSQL.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class HttpFilterContract extends ContractSupport {
  static final String JSON = "{\"amount\": 1250, \"currency\": \"EUR\"}";

  @RegisterExtension final LogCapture log = LogCapture.of(IdempotencyFilter.class);

  HttpTestApp app;

  @BeforeEach
  void startServer() throws Exception {
    start();
    try (Connection c = connect()) {
      c.createStatement().execute(HttpTestApp.CREATE_TABLE);
    }
    app = new HttpTestApp(filter().build(), this::insert);
  }

  IdempotencyFilter.Builder filter() {
    return IdempotencyFilter.builder(once)
        .route(Route.builder("payments").path("/payments").keyRequired(true).build())
        .route(Route.builder("notes").path("/notes/*").build())
        .route(
            Route.builder("upserts")
                .path("/upserts")
                .afterCrash(Route.AfterCrash.RUN_AGAIN)
                .build())
        .route(
            Route.builder("versioned")
                .path("/versioned")
                .fingerprintHeaders("X-Api-Version")
                .build())
        .clock(clock)
        .maxResponseBytes(4096);
  }

  void insert(String id, long amount, String path) throws java.sql.SQLException {
    try (Connection c = connect()) {
      HttpTestApp.insert(c, id, amount, path);
    }
  }

  @AfterEach
  void stopServer() throws Exception {
    app.close();
  }

  long rows() {
    return count("SELECT COUNT(*) FROM " + TABLE);
  }

  HttpResponse<byte[]> pay(String key, String json) throws Exception {
    return app.send(app.post("/payments", key, "alice", json));
  }

  ClaimRecord claim(String user, String key) {
    return once.externalEffects().find(IntentKey.of(user, key)).orElseThrow();
  }

  static void assertProblem(HttpResponse<byte[]> r, int status, String type) {
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(text(r))
        .contains("\"type\":\"" + IdempotencyFilter.DEFAULT_PROBLEM_TYPE_BASE + type + "\"")
        .contains("\"title\":")
        .contains("\"status\":" + status)
        .contains("\"detail\":");
  }

  static void assertReplayOf(HttpResponse<byte[]> replay, HttpResponse<byte[]> first) {
    assertThat(replay.statusCode()).isEqualTo(first.statusCode());
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(replay.headers().firstValue("Content-Type"))
        .isEqualTo(first.headers().firstValue("Content-Type"));
    assertThat(replay.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
    assertThat(replay.headers().firstValue("X-Not-Replayed")).isEmpty();
  }

  @Test
  void aFirstRequestRunsTheHandlerAndStoresItsResponse() throws Exception {
    HttpResponse<byte[]> r = pay("order-1", JSON);

    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(r.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
    assertThat(text(r)).contains("\"amount\":1250").contains("\u00e9t\u00e9");
    reopen();
    assertThat(rows()).isEqualTo(1);
    ClaimRecord stored = claim("alice", "order-1");
    assertThat(stored.state()).isEqualTo(ClaimState.COMPLETED);
    assertThat(stored.resultJson()).contains("\"status\":201").contains("Location");
  }

  @Test
  void aRetryGetsTheStoredResponseByteForByteWithoutRunningTheHandler() throws Exception {
    HttpResponse<byte[]> first = pay("order-1", JSON);
    reopen(); // the replay comes from the database, not from memory
    app.close();
    app = new HttpTestApp(filter().build(), this::insert);

    HttpResponse<byte[]> retry = pay("order-1", "{\"currency\":\"EUR\",\n  \"amount\":1250}");

    assertReplayOf(retry, first);
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void theSameKeyWithAnotherRequestIs422AndTheHandlerDoesNotRun() throws Exception {
    pay("order-1", JSON);

    assertProblem(pay("order-1", "{\"amount\": 99}"), 422, "key-reused");
    assertProblem(
        app.send(app.post("/payments?dry=1", "order-1", "alice", JSON)), 422, "key-reused");
    assertProblem(app.send(app.post("/notes/1", "order-1", "alice", JSON)), 422, "key-reused");
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void aMissingKeyIs400OnARouteThatRequiresOneAndPassesThroughOtherwise() throws Exception {
    assertProblem(pay(null, JSON), 400, "key-missing");
    assertThat(rows()).isZero();

    HttpResponse<byte[]> unguarded = app.send(app.post("/notes/7", null, "alice", JSON));
    HttpResponse<byte[]> again = app.send(app.post("/notes/7", null, "alice", JSON));

    assertThat(unguarded.statusCode()).isEqualTo(201);
    assertThat(again.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
    assertThat(rows()).isEqualTo(2);
  }

  @Test
  void requestsNoRouteMatchesPassThrough() throws Exception {
    app.send(app.post("/other", "k-1", "alice", JSON));
    app.send(app.post("/other", "k-1", "alice", JSON));
    app.send(
        app.request("/payments")
            .header("X-User", "alice")
            .header("Idempotency-Key", "k-1")
            .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(JSON)));
    assertThat(rows()).isEqualTo(3);
    assertThat(once.externalEffects().find(IntentKey.of("alice", "k-1"))).isEmpty();
  }

  @Test
  void aMalformedKeyIs400() throws Exception {
    for (String bad :
        List.of("\"\"", "\"abc", "abc\"", "a b", "\"a\\nb\"", "(x)", "x".repeat(256))) {
      assertProblem(pay(bad, JSON), 400, "key-malformed");
    }
    HttpResponse<byte[]> twice =
        app.send(app.post("/payments", "k-1", "alice", JSON).header("Idempotency-Key", "k-2"));
    assertProblem(twice, 400, "key-malformed");
    // Answered before its body was read: the server may drop the connection, so it says so, and
    // the client does not send its next request on it (seen once: "header parser received no
    // bytes" on the request after a 400).
    assertThat(twice.headers().firstValue("Connection")).hasValue("close");
    assertThat(rows()).isZero();
  }

  @Test
  void theStructuredStringAndTheBareTokenAreTheSameKey() throws Exception {
    HttpResponse<byte[]> quoted = pay("\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", JSON);
    HttpResponse<byte[]> bare = pay("8e03978e-40d5-43e8-bc93-6894a57f9324", JSON);

    assertReplayOf(bare, quoted);
    assertThat(claim("alice", "8e03978e-40d5-43e8-bc93-6894a57f9324").state())
        .isEqualTo(ClaimState.COMPLETED);
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void aKeyOutsideTheStorePatternIsStoredAsItsDigest() throws Exception {
    String key = "\"order 42/\\\"eu\\\"\""; // order 42/"eu"
    HttpResponse<byte[]> first = pay(key, JSON);
    HttpResponse<byte[]> retry = pay(key, JSON);

    assertReplayOf(retry, first);
    assertThat(claim("alice", KeyHeader.digest("order 42/\"eu\"")).state())
        .isEqualTo(ClaimState.COMPLETED);
    // A client key that looks like a digest is digested too, so it cannot meet another's.
    HttpResponse<byte[]> lookalike = pay(KeyHeader.digest("order 42/\"eu\""), JSON);
    assertThat(lookalike.statusCode()).isEqualTo(201);
    assertThat(lookalike.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
    assertThat(rows()).isEqualTo(2);
  }

  @Test
  void aRequestWithoutScopeIs401AndScopesSeparateKeys() throws Exception {
    assertProblem(app.send(app.post("/payments", "k-1", null, JSON)), 401, "scope-missing");
    assertThat(rows()).isZero();

    HttpResponse<byte[]> alice = app.send(app.post("/payments", "k-1", "alice", JSON));
    HttpResponse<byte[]> bob = app.send(app.post("/payments", "k-1", "bob@example.com", JSON));

    assertThat(alice.statusCode()).isEqualTo(201);
    assertThat(bob.statusCode()).isEqualTo(201);
    assertThat(bob.body()).isNotEqualTo(alice.body());
    assertThat(rows()).isEqualTo(2);
  }

  @Test
  void aTenantHeaderIsAnOptInScopeAndA400CanBeChosen() throws Exception {
    app.close();
    app =
        new HttpTestApp(
            filter().scope(ScopeResolver.header("X-Tenant")).missingScopeStatus(400).build(),
            this::insert);
    assertProblem(pay("k-1", JSON), 400, "scope-missing");

    HttpResponse<byte[]> first =
        app.send(app.post("/payments", "k-1", null, JSON).header("X-Tenant", "acme"));
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(claim("acme", "k-1").state()).isEqualTo(ClaimState.COMPLETED);
  }

  @Test
  void a4xxIsStoredAndReplayed() throws Exception {
    HttpResponse<byte[]> refused =
        app.send(app.post("/payments", "k-1", "alice", JSON).header("X-Status", "400"));
    HttpResponse<byte[]> retry = pay("k-1", JSON);

    assertThat(refused.statusCode()).isEqualTo(400);
    assertReplayOf(retry, refused);
    assertThat(rows()).isZero();
  }

  @Test
  void a5xxA409AndA429ReleaseTheKeySoThatTheRetryRuns() throws Exception {
    for (String status : List.of("503", "409", "429")) {
      HttpResponse<byte[]> failed =
          app.send(app.post("/payments", "k-1", "alice", JSON).header("X-Status", status));
      assertThat(failed.statusCode()).isEqualTo(Integer.parseInt(status));
      assertThat(failed.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
    }
    HttpResponse<byte[]> retry = pay("k-1", JSON);

    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void aHandlerThatThrowsReleasesTheKey() throws Exception {
    HttpResponse<byte[]> failed =
        app.send(app.post("/payments", "k-1", "alice", JSON).header("X-Throw", "yes"));
    assertThat(failed.statusCode()).isEqualTo(500);

    assertThat(pay("k-1", JSON).statusCode()).isEqualTo(201);
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void aResponseLargerThanTheBoundIsSentButNotStoredAndTheKeyIsReleased() throws Exception {
    HttpResponse<byte[]> big =
        app.send(app.post("/payments", "k-1", "alice", JSON).header("X-Big", "5000"));

    assertThat(big.statusCode()).isEqualTo(201);
    assertThat(big.body()).hasSize(5000);
    assertThat(claim("alice", "k-1").state()).isNotEqualTo(ClaimState.COMPLETED);
    assertThat(log.records())
        .anySatisfy(r -> assertThat(r.getParameters()[1].toString()).contains("maxResponseBytes"));
    // released: the retry runs the handler again (documented)
    assertThat(pay("k-1", JSON).headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
    assertThat(rows()).isEqualTo(2);
  }

  @Test
  void aStreamedResponseIsNotStored() throws Exception {
    HttpResponse<byte[]> streamed =
        app.send(app.post("/payments", "k-1", "alice", JSON).header("X-Stream", "yes"));

    assertThat(streamed.statusCode()).isEqualTo(201);
    assertThat(text(streamed)).contains("\"amount\":1250");
    assertThat(claim("alice", "k-1").state()).isNotEqualTo(ClaimState.COMPLETED);
  }

  @Test
  void anAsynchronousResponseIsSentButNotStored() throws Exception {
    HttpResponse<byte[]> async =
        app.send(app.post("/payments", "k-1", "alice", JSON).header("X-Async", "yes"));

    assertThat(async.statusCode()).isEqualTo(201);
    assertThat(text(async)).isEqualTo("{\"async\":true}");
    assertThat(claim("alice", "k-1").state()).isNotEqualTo(ClaimState.COMPLETED);
    assertThat(log.records())
        .anySatisfy(r -> assertThat(r.getParameters()[1].toString()).contains("asynchronous"));
  }

  @Test
  void aFingerprintHeaderIsPartOfTheRequest() throws Exception {
    HttpResponse<byte[]> v1 =
        app.send(app.post("/versioned", "k-1", "alice", JSON).header("X-Api-Version", "2024-06"));
    HttpResponse<byte[]> again =
        app.send(app.post("/versioned", "k-1", "alice", JSON).header("X-Api-Version", "2024-06"));
    HttpResponse<byte[]> v2 =
        app.send(app.post("/versioned", "k-1", "alice", JSON).header("X-Api-Version", "2025-01"));

    assertReplayOf(again, v1);
    assertProblem(v2, 422, "key-reused");
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void aDuplicateWhileTheFirstRunsIs409WithRetryAfter() throws Exception {
    CompletableFuture<HttpResponse<byte[]>> first =
        CompletableFuture.supplyAsync(
            () -> call(app.post("/payments", "k-1", "alice", JSON).header("X-Gate", "g")));
    app.awaitEntered("g");

    HttpResponse<byte[]> duplicate = pay("k-1", JSON);
    assertProblem(duplicate, 409, "in-progress");
    assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("1");

    app.open("g");
    HttpResponse<byte[]> done = first.get();
    assertThat(done.statusCode()).isEqualTo(201);
    assertReplayOf(pay("k-1", JSON), done);
    assertThat(rows()).isEqualTo(1);
  }

  HttpResponse<byte[]> call(java.net.http.HttpRequest.Builder request) {
    try {
      return app.send(request);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aKeyPastItsRetentionIs422Expired() throws Exception {
    pay("k-1", JSON);
    clock.advance(Duration.ofHours(25));

    assertProblem(pay("k-1", JSON), 422, "key-expired");
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void afterALeaseRanOutTheOutcomeIsUnknownUntilAnOperatorSettlesIt() throws Exception {
    CompletableFuture<HttpResponse<byte[]>> stalled =
        CompletableFuture.supplyAsync(
            () -> call(app.post("/payments", "k-1", "alice", JSON).header("X-Gate", "g")));
    app.awaitEntered("g");
    clock.advance(Duration.ofSeconds(31)); // as if the process had died: the lease runs out

    assertProblem(pay("k-1", JSON), 409, "outcome-unknown");
    assertProblem(pay("k-1", JSON), 409, "outcome-unknown");
    assertThat(rows()).isEqualTo(1);

    // The operator finds the payment was not made and settles it: the next retry runs.
    app.open("g");
    stalled.get(); // (this stalled handler's late completion is the truth, and kept)
    HttpResponse<byte[]> replay = pay("k-1", JSON);
    assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void anOperatorsNotDoneLetsTheNextRetryRun() throws Exception {
    CompletableFuture<HttpResponse<byte[]>> stalled =
        CompletableFuture.supplyAsync(
            () -> call(app.post("/payments", "k-1", "alice", JSON).header("X-Gate", "g")));
    app.awaitEntered("g");
    clock.advance(Duration.ofSeconds(31));
    assertProblem(pay("k-1", JSON), 409, "outcome-unknown");

    // The operator's decision (onceonly unknown resolve --not-done): the next retry runs.
    assertThat(once.externalEffects().resolveNotDone(IntentKey.of("alice", "k-1")))
        .hasValue(ClaimState.RETRY_WAIT);
    HttpResponse<byte[]> retry = pay("k-1", JSON);
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();

    app.open("g");
    stalled.get(); // fenced: its response is sent to its client but not stored
    assertReplayOf(pay("k-1", JSON), retry);
    assertThat(log.records())
        .anySatisfy(r -> assertThat(r.getMessage()).contains("outlived its lease"));
  }

  @Test
  void aRouteThatDeclaresItsHandlerIdempotentRunsItAgainAfterACrash() throws Exception {
    CompletableFuture<HttpResponse<byte[]>> stalled =
        CompletableFuture.supplyAsync(
            () -> call(app.post("/upserts", "k-1", "alice", JSON).header("X-Gate", "g")));
    app.awaitEntered("g");
    clock.advance(Duration.ofSeconds(31));

    HttpResponse<byte[]> again = app.send(app.post("/upserts", "k-1", "alice", JSON));

    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
    app.open("g");
    stalled.get(); // fenced: the second run's response is the one stored
    assertReplayOf(app.send(app.post("/upserts", "k-1", "alice", JSON)), again);
  }

  @Test
  void thirtyTwoConcurrentRequestsWithOneKeyRunTheHandlerOnce() throws Exception {
    List<HttpResponse<byte[]>> answers = Race.run(32, i -> () -> pay("k-race", JSON));

    List<HttpResponse<byte[]>> ran =
        answers.stream()
            .filter(r -> r.statusCode() == 201)
            .filter(r -> r.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).isEmpty())
            .toList();
    assertThat(ran).hasSize(1);
    for (HttpResponse<byte[]> r : answers) {
      if (r != ran.get(0)) {
        if (r.statusCode() == 409) {
          assertProblem(r, 409, "in-progress");
        } else {
          assertReplayOf(r, ran.get(0));
        }
      }
    }
    reopen();
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void handlersWritingThroughTheStoresQueueRaceOnOneKeyAndOnTheirOwnKeys() throws Exception {
    // The handler writes with once.useTransaction: its write queues with the claims and
    // completions on the store's writer (docs/http.md, the plain mode).
    HttpTestApp.Rows queued =
        (id, amount, path) -> once.useTransaction(c -> HttpTestApp.insert(c, id, amount, path));
    try (HttpTestApp shared = new HttpTestApp(filter().build(), queued)) {
      List<HttpResponse<byte[]>> answers =
          Race.run(
              16,
              i ->
                  () ->
                      shared.send(
                          shared.post(
                              "/payments", i % 2 == 0 ? "k-one" : "k-" + i, "alice", JSON)));

      List<HttpResponse<byte[]>> ranOnOneKey = new java.util.ArrayList<>();
      for (int i = 0; i < answers.size(); i++) {
        HttpResponse<byte[]> r = answers.get(i);
        boolean replayed = r.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).isPresent();
        if (i % 2 == 1) {
          assertThat(r.statusCode()).isEqualTo(201);
          assertThat(replayed).isFalse();
        } else if (r.statusCode() == 201 && !replayed) {
          ranOnOneKey.add(r);
        } else if (r.statusCode() == 409) {
          assertProblem(r, 409, "in-progress");
        }
      }
      assertThat(ranOnOneKey).hasSize(1);
    }
    reopen();
    assertThat(rows()).isEqualTo(1 + 8);
    assertThat(claim("alice", "k-one").state()).isEqualTo(ClaimState.COMPLETED);
    for (int i = 1; i < 16; i += 2) {
      assertThat(claim("alice", "k-" + i).state()).isEqualTo(ClaimState.COMPLETED);
    }
  }
}
