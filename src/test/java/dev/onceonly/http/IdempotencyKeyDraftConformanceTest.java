package dev.onceonly.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.OnceOnly;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The request and response examples of draft-ietf-httpapi-idempotency-key-header-06 as a table:
 * each row sends the draft's request (after the requests that set the scene) and checks the status,
 * the media type and the problem members the draft shows. The draft's examples use RFC 7807 / 9457
 * problem details in the body (the {@code Link} header alternative is not used here).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotencyKeyDraftConformanceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BODY = "{\"amount\": 10, \"currency\": \"USD\"}";

  @TempDir static Path dir;
  private OnceOnly once;
  private HttpTestApp app;

  /** One example: a name naming the draft's section, the scene, the request, what it expects. */
  record Example(
      String name,
      Scene scene,
      String key,
      String body,
      int status,
      String mediaType,
      String title) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** What happens before the example's request; it may leave a request in flight. */
  @FunctionalInterface
  interface Scene {
    void play(IdempotencyKeyDraftConformanceTest test, String key) throws Exception;
  }

  static final Scene NOTHING = (t, key) -> {};
  static final Scene SAME_KEY_SENT = (t, key) -> t.send(key, BODY);
  static final Scene SAME_KEY_IN_FLIGHT =
      (t, key) -> {
        CompletableFuture.runAsync(
            () -> {
              try {
                t.app.send(t.app.post("/charges", key, "client-1", BODY).header("X-Gate", key));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
        t.app.awaitEntered(key);
      };

  static Stream<Example> examples() {
    return Stream.of(
        new Example(
            "2.1 the key as an sf-string, first request",
            NOTHING,
            "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"",
            BODY,
            201,
            "application/json",
            null),
        new Example(
            "2.6 a retry with the same key and payload gets the first response",
            SAME_KEY_SENT,
            "\"8e03978e-40d5-43e8-bc93-6894a57f9325\"",
            BODY,
            201,
            "application/json",
            null),
        new Example(
            "2.7 the key missing on an operation that documents it: 400",
            NOTHING,
            null,
            BODY,
            400,
            "application/problem+json",
            "Idempotency-Key missing"),
        new Example(
            "2.7 the key reused with another payload: 422",
            SAME_KEY_SENT,
            "\"8e03978e-40d5-43e8-bc93-6894a57f9326\"",
            "{\"amount\": 11, \"currency\": \"USD\"}",
            422,
            "application/problem+json",
            "Idempotency-Key reused for another request"),
        new Example(
            "2.7 a request while one with the same key is outstanding: 409",
            SAME_KEY_IN_FLIGHT,
            "\"8e03978e-40d5-43e8-bc93-6894a57f9327\"",
            BODY,
            409,
            "application/problem+json",
            "A request with this Idempotency-Key is in progress"));
  }

  @BeforeAll
  void start() throws Exception {
    Path file = dir.resolve("draft.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      c.createStatement().execute(HttpTestApp.CREATE_TABLE);
    }
    once = OnceOnly.builder().sqlite(file).build();
    IdempotencyFilter filter =
        IdempotencyFilter.builder(once)
            .route(Route.builder("charges").path("/charges").keyRequired(true).build())
            .build();
    app =
        new HttpTestApp(
            filter,
            (id, amount, path) -> {
              try (Connection c =
                      DriverManager.getConnection("jdbc:sqlite:" + file + "?busy_timeout=10000");
                  PreparedStatement ps =
                      c.prepareStatement(
                          "INSERT INTO " + HttpTestApp.TABLE + " VALUES (?, ?, ?)")) {
                ps.setString(1, id);
                ps.setLong(2, amount);
                ps.setString(3, path);
                ps.executeUpdate();
              }
            });
  }

  @AfterAll
  void stop() throws Exception {
    app.close();
    once.close();
  }

  HttpResponse<byte[]> send(String key, String body) throws Exception {
    return app.send(app.post("/charges", key, "client-1", body));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void theDraftsExample(Example example) throws Exception {
    example.scene().play(this, example.key());
    HttpResponse<byte[]> first = null;
    if (example.scene() == SAME_KEY_SENT && example.status() == 201) {
      first = send(example.key(), example.body());
    }
    HttpResponse<byte[]> r = send(example.key(), example.body());

    assertThat(r.statusCode()).isEqualTo(example.status());
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith(example.mediaType());
    if (first != null) {
      assertThat(r.body()).isEqualTo(first.body());
      assertThat(r.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
    }
    if (example.title() != null) {
      JsonNode problem = JSON.readTree(r.body());
      assertThat(URI.create(problem.get("type").asText()).isAbsolute()).isTrue();
      assertThat(problem.get("type").asText())
          .startsWith(IdempotencyFilter.DEFAULT_PROBLEM_TYPE_BASE);
      assertThat(problem.get("title").asText()).isEqualTo(example.title());
      assertThat(problem.get("status").asInt()).isEqualTo(example.status());
      assertThat(problem.get("detail").asText()).isNotBlank();
    }
    if (example.scene() == SAME_KEY_IN_FLIGHT) {
      app.open(example.key());
    }
  }

  /** The header's syntax (section 2.1): an sf-string; the bare token most clients send too. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("syntax")
  void theKeysSyntax(String header, String key) {
    assertThat(KeyHeader.parse(header, 255)).isEqualTo(key);
  }

  static List<Object[]> syntax() {
    return List.of(
        new Object[] {
          "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", "8e03978e-40d5-43e8-bc93-6894a57f9324"
        },
        new Object[] {
          "8e03978e-40d5-43e8-bc93-6894a57f9324", "8e03978e-40d5-43e8-bc93-6894a57f9324"
        },
        new Object[] {" \"a \\\"b\\\" \\\\c\" ", "a \"b\" \\c"},
        new Object[] {"\"\"", null},
        new Object[] {"", null},
        new Object[] {"\"unterminated", null},
        new Object[] {"\"bad \\n escape\"", null},
        new Object[] {"\"caf\u00e9\"", null},
        new Object[] {"two words", null},
        new Object[] {"a/b:c", "a/b:c"});
  }
}
