package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.otel.OnceOnlyTracing;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Traces across a Redis stream: the producer's entry carries the traceparent its intent recorded,
 * and the worker's traced effect runs in a span linked to the request that produced it.
 */
class RedisTracingTest {
  @TempDir static Path redisDir;
  private static EmbeddedRedis redis;

  @TempDir Path dir;
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final Tracer tracer = provider.get("test");
  private final OnceOnlyTracing tracing = OnceOnlyTracing.of(tracer);

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start(redisDir);
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @AfterEach
  void closeTracing() {
    provider.close();
  }

  @Test
  void anEntryCarriesTheProducersTraceparentAndItsEffectsSpanLinksToIt() throws Exception {
    Path file = dir.resolve("stream.db");
    try (RedisClient client = redis.client();
        OnceOnly once = OnceOnly.builder().sqlite(file).traceContext(tracing).build()) {
      RedisStream stream = RedisStream.builder(client, "traced").maxLength(0).build();
      RedisProducer producer = RedisProducer.of(once.intents(), stream);
      Span request = tracer.spanBuilder("POST /reports").startSpan();
      try (Scope unused = request.makeCurrent()) {
        assertThat(producer.publish(IntentKey.of("u-1", "r-1"), "report", Map.of("n", 1)))
            .matches(RedisProducer.Publication::published);
      } finally {
        request.end();
      }
      producer.publish(IntentKey.of("u-1", "r-2"), "report", Map.of("n", 2)); // no current span
      String traceparent =
          "00-"
              + request.getSpanContext().getTraceId()
              + "-"
              + request.getSpanContext().getSpanId()
              + "-01";
      assertThat(traceparentFields(client)).containsExactly(traceparent, null);

      try (RedisWorker<String> worker =
          RedisWorker.builder(
                  stream,
                  once,
                  String.class,
                  tracing.streamEffect(stream, (c, m) -> "done " + m.key().key()))
              .consumer("c1")
              .block(Duration.ofMillis(50))
              .build()) {
        worker.start();
        Eventually.await(
            Duration.ofSeconds(20),
            "both entries handled",
            () -> once.intents().pending(10).isEmpty() && stream.pendingCount() == 0);
      }
    }
    List<SpanData> processed =
        exporter.getFinishedSpanItems().stream()
            .filter(s -> s.getName().equals("traced process"))
            .toList();
    assertThat(processed).hasSize(2).allMatch(s -> s.getKind() == SpanKind.CONSUMER);
    assertThat(processed)
        .filteredOn(s -> !s.getLinks().isEmpty())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getTraceId()).isNotEqualTo(requestSpan().getTraceId());
              assertThat(s.getLinks().get(0).getSpanContext().getSpanId())
                  .isEqualTo(requestSpan().getSpanId());
            });
    // The effects committed with their receipts, in the reopened file.
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(2);
  }

  private io.opentelemetry.api.trace.SpanContext requestSpan() {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals("POST /reports"))
        .findFirst()
        .orElseThrow()
        .getSpanContext();
  }

  /** The traceparent field of each entry of the stream, in order (null when it has none). */
  private static List<String> traceparentFields(RedisClient client) {
    List<Object> entries =
        Replies.list(client.sendCommand(Protocol.Command.XRANGE, "traced", "-", "+"));
    List<String> out = new ArrayList<>();
    for (Object entry : entries) {
      List<Object> fields = Replies.list(Replies.list(entry).get(1));
      String value = null;
      for (int i = 0; i < fields.size(); i += 2) {
        if (new String((byte[]) fields.get(i), StandardCharsets.UTF_8).equals("traceparent")) {
          value = new String((byte[]) fields.get(i + 1), StandardCharsets.UTF_8);
        }
      }
      out.add(value);
    }
    return out;
  }
}
