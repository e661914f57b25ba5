package dev.onceonly.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.micrometer.OnceOnlyMetrics;
import dev.onceonly.testing.Eventually;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An HTTP replay counts in {@code onceonly.receipts.outcomes} as {@code repeated}, so that the
 * share answered from receipts (docs/observability.md) covers an HTTP API: a real Jetty server, the
 * metrics wired as docs/observability.md shows.
 */
class HttpMetricsTest {
  @TempDir Path dir;

  @Test
  void aReplayCountsAsRepeatedAndTheFirstRunAsCreated() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OnceOnlyMetrics metrics = OnceOnlyMetrics.of(registry);
    try (OnceOnly once =
            OnceOnly.builder().sqlite(dir.resolve("api.db")).listener(metrics).build();
        HttpTestApp app =
            new HttpTestApp(HttpTestApp.paymentsRoute(once).build(), (id, amount, path) -> {})) {
      metrics.bindDropped(once.events());
      HttpResponse<byte[]> first = app.send(app.post("/payments", "k-1", "alice", "{\"a\":1}"));
      HttpResponse<byte[]> replay = app.send(app.post("/payments", "k-1", "alice", "{\"a\":1}"));
      assertThat(first.statusCode()).isEqualTo(201);
      assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
      // The first run's step is published once its response is stored, which the server may do
      // after the client has read the response: wait for both, then check that no more came.
      Eventually.await(
          Duration.ofSeconds(30),
          "the first run and the replay counted",
          () -> outcomes(registry, "created") >= 1 && outcomes(registry, "repeated") >= 1);
      assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();

      assertThat(outcomes(registry, "created")).isEqualTo(1.0);
      assertThat(outcomes(registry, "repeated")).isEqualTo(1.0);
      assertThat(registry.get("onceonly.events.dropped").functionCounter().count()).isZero();
    }
  }

  static double outcomes(SimpleMeterRegistry registry, String outcome) {
    Counter c =
        registry
            .find("onceonly.receipts.outcomes")
            .tags("operation", "http.payments", "outcome", outcome)
            .counter();
    return c == null ? 0 : c.count();
  }
}
