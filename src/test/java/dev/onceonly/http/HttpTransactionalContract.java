package dev.onceonly.http;

import static dev.onceonly.http.HttpFilterContract.JSON;
import static dev.onceonly.http.HttpFilterContract.assertProblem;
import static dev.onceonly.http.HttpFilterContract.assertReplayOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.spring.IdempotencyFilterCustomizer;
import dev.onceonly.spring.OnceOnlyBuilderCustomizer;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.MariaDbContractDatabase;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.Race;
import dev.onceonly.testing.SqliteContractDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The transactional mode of {@link IdempotencyFilter}, as the Spring support auto-configures it
 * from {@code onceonly.http.*}: a real Spring Boot context on SQLite or PostgreSQL, its filter in
 * front of a real Jetty server, and a {@code @Transactional} service that writes the handler's
 * rows. The handler's rows and the stored response commit together; a rollback leaves neither. One
 * context per database; each test on a path (and so rows) of its own.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class HttpTransactionalContract {
  static final MutableClock CLOCK = MutableClock.at("2030-01-15T10:00:00Z");

  static Path dir;
  static ContractDatabase db;
  static ConfigurableApplicationContext context;
  static HttpTestApp app;

  /** The application: Boot's data source and transactions, OnceOnly's auto-configuration. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(PaymentRows.class)
  static class PaymentsApplication {
    @Bean
    OnceOnlyBuilderCustomizer testClock() {
      return b -> b.clock(CLOCK);
    }

    @Bean
    SimpleMeterRegistry meters() {
      return new SimpleMeterRegistry();
    }

    @Bean
    IdempotencyFilterCustomizer filterClock() {
      return b -> b.clock(CLOCK);
    }
  }

  /** The handler's writes: an ordinary {@code @Transactional} service on Spring's JDBC. */
  static class PaymentRows {
    private final JdbcTemplate jdbc;

    PaymentRows(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Transactional
    public void insert(String id, long amount, String path) {
      jdbc.update(
          "INSERT INTO " + HttpTestApp.TABLE + " (payment_id, amount, path) VALUES (?, ?, ?)",
          id,
          amount,
          path);
    }
  }

  @Parameter ContractDatabases.Factory database;

  @BeforeEach
  void startOnce() throws Exception {
    if (context == null) {
      start(database);
    }
  }

  static void start(ContractDatabases.Factory factory) throws Exception {
    dir = Files.createTempDirectory("onceonly-http");
    db = factory.create(dir);
    db.exec(HttpTestApp.CREATE_TABLE);
    Map<String, Object> p = new HashMap<>();
    if (db instanceof SqliteContractDatabase sqlite) {
      p.put(
          "spring.datasource.url",
          "jdbc:sqlite:" + sqlite.file() + "?transaction_mode=IMMEDIATE&busy_timeout=30000");
      p.put("spring.datasource.hikari.connection-init-sql", "PRAGMA journal_mode=WAL");
    } else if (db instanceof MariaDbContractDatabase mariadb) {
      p.put("spring.datasource.url", mariadb.url());
    } else {
      PostgresContractDatabase pg = (PostgresContractDatabase) db;
      p.put("spring.datasource.url", pg.url());
      p.put("spring.datasource.username", "postgres");
      p.put("spring.datasource.hikari.connection-init-sql", EmbeddedPg.SET_TIME_ZONE);
    }
    p.put("spring.datasource.hikari.maximum-pool-size", "12");
    p.put("onceonly.http.routes[0].name", "payments");
    p.put("onceonly.http.routes[0].paths", "/payments/*");
    p.put("onceonly.http.routes[0].key-required", "true");
    p.put("onceonly.http.scope-header", "X-Tenant");
    p.put("onceonly.http.max-response-bytes", "4096");
    context =
        new SpringApplicationBuilder(PaymentsApplication.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .properties(p)
            .run();
    PaymentRows rows = context.getBean(PaymentRows.class);
    app = new HttpTestApp(context.getBean(IdempotencyFilter.class), rows::insert);
  }

  @AfterParameterizedClassInvocation
  static void stop() throws Exception {
    if (app != null) {
      app.close();
    }
    if (context != null) {
      context.close();
    }
    if (db instanceof AutoCloseable closeable) {
      closeable.close();
    }
    app = null;
    context = null;
    db = null;
  }

  static java.net.http.HttpRequest.Builder post(String path, String key, String json) {
    return app.post(path, key, null, json).header("X-Tenant", "acme");
  }

  static HttpResponse<byte[]> pay(String path, String key, String json) throws Exception {
    return app.send(post(path, key, json));
  }

  static long rows(String path) throws SQLException {
    return count("SELECT COUNT(*) FROM " + HttpTestApp.TABLE + " WHERE path = ?", path);
  }

  static long receipts(String key) throws SQLException {
    return count("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = ?", key);
  }

  static long count(String sql, String arg) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void theAutoConfiguredFilterIsTransactional() {
    assertThat(context.getBean(IdempotencyFilter.class).transactional()).isTrue();
    assertThat(context.getBean(IdempotencyFilter.class).routes())
        .extracting(Route::operation)
        .containsExactly("http.payments");
  }

  @Test
  void theHandlersRowAndTheStoredResponseCommitTogetherAndTheRetryIsReplayed() throws Exception {
    HttpResponse<byte[]> first = pay("/payments/commit", "t-commit", JSON);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(rows("/payments/commit")).isEqualTo(1);
    assertThat(receipts("t-commit")).isEqualTo(1);

    HttpResponse<byte[]> retry =
        pay("/payments/commit", "t-commit", "{\"currency\":\"EUR\",\"amount\":1250}");
    assertReplayOf(retry, first);
    assertThat(rows("/payments/commit")).isEqualTo(1);
  }

  @Test
  void theSameKeyWithAnotherBodyIs422() throws Exception {
    pay("/payments/reuse", "t-reuse", JSON);

    assertProblem(pay("/payments/reuse", "t-reuse", "{\"amount\":1}"), 422, "key-reused");
    assertThat(rows("/payments/reuse")).isEqualTo(1);
  }

  @Test
  void a5xxAfterTheHandlerWroteRollsItsRowBackAndTheRetryRunsCleanly() throws Exception {
    HttpResponse<byte[]> failed =
        app.send(post("/payments/rollback", "t-rollback", JSON).header("X-Then", "503"));

    assertThat(failed.statusCode()).isEqualTo(503);
    assertThat(rows("/payments/rollback")).isZero();
    assertThat(receipts("t-rollback")).isZero();

    assertThat(pay("/payments/rollback", "t-rollback", JSON).statusCode()).isEqualTo(201);
    assertThat(rows("/payments/rollback")).isEqualTo(1);
    assertThat(receipts("t-rollback")).isEqualTo(1);
  }

  @Test
  void aHandlerThatThrowsAfterWritingLeavesNothing() throws Exception {
    HttpResponse<byte[]> failed =
        app.send(post("/payments/throw", "t-throw", JSON).header("X-Then-Throw", "yes"));

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(rows("/payments/throw")).isZero();
    assertThat(receipts("t-throw")).isZero();
    assertThat(pay("/payments/throw", "t-throw", JSON).statusCode()).isEqualTo(201);
    assertThat(rows("/payments/throw")).isEqualTo(1);
  }

  @Test
  void a4xxAfterWritingIsStoredWithTheRow() throws Exception {
    HttpResponse<byte[]> refused =
        app.send(post("/payments/refused", "t-refused", JSON).header("X-Then", "402"));

    assertThat(refused.statusCode()).isEqualTo(402);
    assertThat(rows("/payments/refused")).isEqualTo(1);
    assertReplayOf(pay("/payments/refused", "t-refused", JSON), refused);
    assertThat(rows("/payments/refused")).isEqualTo(1);
  }

  @Test
  void aResponseTooLargeToStoreIsRolledBackAnd500() throws Exception {
    HttpResponse<byte[]> big =
        app.send(post("/payments/big", "t-big", JSON).header("X-Big", "5000"));

    assertProblem(big, 500, "response-not-stored");
    assertThat(rows("/payments/big")).isZero();
    assertThat(receipts("t-big")).isZero();
  }

  /**
   * The handler goes asynchronous on the response it was given, as a framework's async support
   * does. (One that writes to the container's own response from another thread races the filter's
   * 500; its rows are rolled back all the same.)
   */
  @Test
  void anAsynchronousHandlerIsRolledBackAnd500() throws Exception {
    HttpResponse<byte[]> async =
        app.send(post("/payments/async", "t-async", JSON).header("X-Async-Wrapped", "yes"));

    assertProblem(async, 500, "response-not-stored");
    assertThat(rows("/payments/async")).isZero();
    assertThat(receipts("t-async")).isZero();
  }

  @Test
  void aKeyPastItsRetentionIs422Expired() throws Exception {
    pay("/payments/expired", "t-expired", JSON);
    CLOCK.advance(Duration.ofHours(25));

    assertProblem(pay("/payments/expired", "t-expired", JSON), 422, "key-expired");
    assertThat(rows("/payments/expired")).isEqualTo(1);
  }

  @Test
  void aMissingKeyAndAMissingScopeAreRefused() throws Exception {
    assertProblem(pay("/payments/missing", null, JSON), 400, "key-missing");
    HttpResponse<byte[]> noTenant = app.send(app.post("/payments/missing", "t-m", null, JSON));
    assertProblem(noTenant, 401, "scope-missing");
    // onceonly.http.scope-header is set: the answer names the header, not a principal
    assertThat(HttpTestApp.text(noTenant)).contains("X-Tenant").doesNotContain("principal");
    assertThat(rows("/payments/missing")).isZero();
  }

  @Test
  void aReplayCountsAsRepeatedInTheReceiptsOutcomes() throws Exception {
    OnceOnly once = context.getBean(OnceOnly.class);
    SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
    assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();
    double created = HttpMetricsTest.outcomes(registry, "created");
    double repeated = HttpMetricsTest.outcomes(registry, "repeated");

    pay("/payments/metrics", "t-metrics", JSON);
    HttpResponse<byte[]> replay = pay("/payments/metrics", "t-metrics", JSON);

    assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
    // The filter counts a replay once it has written it, which the client may read first: wait
    // for both steps, then check that no more came.
    Eventually.await(
        Duration.ofSeconds(30),
        "the first run and the replay counted",
        () ->
            HttpMetricsTest.outcomes(registry, "created") >= created + 1
                && HttpMetricsTest.outcomes(registry, "repeated") >= repeated + 1);
    assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();
    assertThat(HttpMetricsTest.outcomes(registry, "created")).isEqualTo(created + 1);
    assertThat(HttpMetricsTest.outcomes(registry, "repeated")).isEqualTo(repeated + 1);
  }

  @Test
  void thirtyTwoConcurrentRequestsWithOneKeyRunTheHandlerOnce() throws Exception {
    List<HttpResponse<byte[]>> answers =
        Race.run(32, i -> () -> pay("/payments/race", "t-race", JSON));

    List<HttpResponse<byte[]>> ran =
        answers.stream()
            .filter(r -> r.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).isEmpty())
            .toList();
    assertThat(ran).hasSize(1);
    assertThat(ran.get(0).statusCode()).isEqualTo(201);
    for (HttpResponse<byte[]> r : answers) {
      if (r != ran.get(0)) {
        assertReplayOf(r, ran.get(0)); // the duplicates waited for the first to commit
      }
    }
    assertThat(rows("/payments/race")).isEqualTo(1);
    assertThat(receipts("t-race")).isEqualTo(1);
  }
}
