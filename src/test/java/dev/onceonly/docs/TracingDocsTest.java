package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.otel.OnceOnlyTracing;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import dev.onceonly.redis.EmbeddedRedis;
import dev.onceonly.redis.RedisStream;
import dev.onceonly.redis.RedisWorker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.TestTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * docs/observability.md's tracing block, as it is written there, on a SQLite file and an
 * OpenTelemetry tracer that keeps its spans: each call makes the span the block's comment names,
 * and the rows are there.
 */
class TracingDocsTest extends SqliteDocsTest {
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();

  /** The application's OpenTelemetry: the tracer above, no propagators. */
  private final OpenTelemetry openTelemetry = TestTelemetry.of(provider);

  record Receipt(String charged) {}

  record Report(String intent) {}

  @AfterEach
  void closeTracing() {
    provider.close();
  }

  private long spans(SpanKind kind) {
    return exporter.getFinishedSpanItems().stream()
        .map(SpanData::getKind)
        .filter(kind::equals)
        .count();
  }

  @Test
  void everyCallOfTheBlockMakesItsSpan() throws Exception {
    Path file = file();
    Map<String, String> payload = Map.of("to", "ada");
    Handler mailer = job -> job.completeWith(tx -> null);
    IntentKey key = IntentKey.of("u-1", "op-1");
    Map<String, Integer> args = Map.of("cents", 1250);
    Effect<Receipt, RuntimeException> effect = tx -> new Receipt("1250");
    Duration lease = Duration.ofSeconds(30);
    // ---- docs/observability.md, traces ----
    OnceOnlyTracing tracing = OnceOnlyTracing.of(openTelemetry);
    OnceOnly once = OnceOnly.builder().sqlite(file).traceContext(tracing).build();

    tracing.send(once.queue(), Message.of("mail", "welcome-42", payload)); // PRODUCER span
    Worker worker =
        Worker.builder(once.queue(), "mail", tracing.handler(mailer))
            .build()
            .start(); // CONSUMER spans
    tracing.execute(once.receipts(), key, "charge", args, Receipt.class, effect); // INTERNAL span
    tracing.claim(once.externalEffects(), key, "pay", args, lease); // INTERNAL span
    // ---- end ----
    try (once;
        worker) {
      Eventually.await(
          Duration.ofSeconds(20), "the mail handled", () -> spans(SpanKind.CONSUMER) == 1);
    }
    assertThat(spans(SpanKind.PRODUCER)).isEqualTo(1);
    assertThat(spans(SpanKind.INTERNAL)).isGreaterThanOrEqualTo(2);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'op-1'"))
        .isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void theListenerThePublisherAndTheStreamEffectAreWired() throws Exception {
    Path file = file();
    OnceOnlyTracing tracing = OnceOnlyTracing.of(openTelemetry);
    RedisWorker.StreamEffect<Report> effect = (tx, message) -> new Report(message.key().key());
    try (EmbeddedRedis redis = EmbeddedRedis.start(Files.createDirectories(dir.resolve("redis")));
        RedisClient client = RedisClient.create("localhost", redis.port())) {
      RedisStream stream = RedisStream.builder(client, "reports").build();
      // ---- docs/observability.md, traces, the rest ----
      // The claim and settle transactions as spans (from the events, off the write path):
      OnceOnly once =
          OnceOnly.builder()
              .sqlite(file)
              .traceContext(tracing)
              .listener(tracing.listener())
              .build();
      // Intents: the reconciler's publications, linked to the request that registered each intent.
      Reconciler.of(
          once.intents(), tracing.publisher(IntentMessage.publisher(once.queue(), "jobs")));
      // Redis: the worker's effect in a CONSUMER span linked to the producing request.
      RedisWorker.builder(stream, once, Report.class, tracing.streamEffect(stream, effect));
      // ---- end ----
      try (once) {
        once.intents().register(IntentKey.of("u-1", "r-1"), "make_report", Map.of("n", 1));
        assertThat(
                Reconciler.of(
                        once.intents(),
                        tracing.publisher(IntentMessage.publisher(once.queue(), "jobs")))
                    .reconcile()
                    .published())
            .isEqualTo(1);
      }
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'jobs'")).isEqualTo(1);
    assertThat(spans(SpanKind.PRODUCER)).isEqualTo(1);
  }
}
