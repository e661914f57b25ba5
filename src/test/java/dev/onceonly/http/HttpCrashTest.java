package dev.onceonly.http;

import static dev.onceonly.http.HttpFilterContract.JSON;
import static dev.onceonly.http.HttpFilterContract.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.cli.Main;
import dev.onceonly.external.ClaimState;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Eventually;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server process is killed with SIGKILL while its handler runs (its row written, its response not
 * yet stored), then started again on the same SQLite file; the client retries with the same key.
 * The retry is never a silent second run: 409 while the dead process's lease lasts, then 409 {@code
 * outcome-unknown}, until an operator settles the key with the command-line tool; then the
 * operator's answer is replayed. The rows are read from the file.
 */
class HttpCrashTest {
  @TempDir Path dir;

  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  HttpRequest payment(int port) {
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/payments"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .header("X-User", "alice")
        .header(IdempotencyFilter.KEY_HEADER, "\"order-7\"")
        .POST(HttpRequest.BodyPublishers.ofString(JSON))
        .build();
  }

  HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
    return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  long rows(Path file) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM app_payments")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static int port(ChildJvm child) {
    return Integer.parseInt(child.awaitLine("PORT ", Duration.ofSeconds(60)).substring(5).trim());
  }

  @Test
  void aRetryAfterTheServerDiedInTheHandlerIsNeverASilentSecondRun() throws Exception {
    Path file = dir.resolve("api.db");
    String lease = "1500";
    CompletableFuture<HttpResponse<byte[]>> lost;
    try (ChildJvm first =
        ChildJvm.start("server-1", dir, HttpServerMain.class, file.toString(), lease)) {
      int port = port(first);
      HttpRequest hanging =
          HttpRequest.newBuilder(payment(port), (n, v) -> true).header("X-Gate", "hang").build();
      lost = client.sendAsync(hanging, HttpResponse.BodyHandlers.ofByteArray());
      first.awaitLine("IN_HANDLER", Duration.ofSeconds(30));
      assertThat(first.kill()).isEqualTo(137);
    }
    assertThat(lost)
        .failsWithin(Duration.ofSeconds(30))
        .withThrowableOfType(ExecutionException.class);
    assertThat(rows(file)).isEqualTo(1);

    try (ChildJvm second =
        ChildJvm.start("server-2", dir, HttpServerMain.class, file.toString(), lease)) {
      int port = port(second);
      // While the dead process's lease lasts the key is in progress; then its outcome is unknown.
      Eventually.await(
          Duration.ofSeconds(30),
          "the retry answers outcome-unknown",
          () -> {
            HttpResponse<byte[]> r = call(payment(port));
            assertThat(r.statusCode()).isEqualTo(409);
            return HttpTestApp.text(r).contains("outcome-unknown");
          });
      assertProblem(send(payment(port)), 409, "outcome-unknown");
      assertThat(rows(file)).isEqualTo(1);

      // The operator finds the payment row and settles the key as done, with the response to give.
      String stored =
          "{\"status\":201,\"headers\":[{\"name\":\"Content-Type\",\"value\":\"application/json\"}],"
              + "\"body\":\"eyJzZXR0bGVkIjp0cnVlfQ==\"}";
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int status =
          Main.run(
              new String[] {
                "unknown",
                "resolve",
                "--db",
                file.toString(),
                "--done",
                "--result",
                stored,
                "alice",
                "order-7"
              },
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(out, true, StandardCharsets.UTF_8));
      assertThat(status).as(out.toString(StandardCharsets.UTF_8)).isZero();

      HttpResponse<byte[]> replay = send(payment(port));
      assertThat(replay.statusCode()).isEqualTo(201);
      assertThat(HttpTestApp.text(replay)).isEqualTo("{\"settled\":true}");
      assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
    }
    assertThat(rows(file)).isEqualTo(1);
    try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
      assertThat(
              once.externalEffects().find(IntentKey.of("alice", "order-7")).orElseThrow().state())
          .isEqualTo(ClaimState.COMPLETED);
    }
  }

  HttpResponse<byte[]> call(HttpRequest request) {
    try {
      return send(request);
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
