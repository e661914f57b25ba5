package dev.onceonly.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace survives a SIGKILL: a message sent inside a request span by one JVM is taken by a
 * second JVM, killed inside its handler; when the lease runs out, a worker in this JVM handles the
 * redelivery in a span linked to the first JVM's send.
 */
class TracingCrashTest {
  private static final Duration STARTUP = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void aRedeliveryAfterAKilledReceiverLinksToTheSenderInAnotherProcess() {
    Path file = dir.resolve("traced.db");
    String traceId;
    try (ChildJvm sender =
        ChildJvm.start("sender", dir, TracingProcessMain.class, "send", file.toString())) {
      traceId = sender.awaitLine("sent trace=", STARTUP).substring("sent trace=".length());
      sender.awaitSuccess(STARTUP);
    }
    List<String> stored = Db.strings(file, "SELECT traceparent FROM onceonly_messages");
    assertThat(stored).singleElement().asString().startsWith("00-" + traceId + "-");
    String sendSpanId = stored.get(0).split("-")[2];

    try (ChildJvm receiver =
        ChildJvm.start("receiver", dir, TracingProcessMain.class, "receive", file.toString())) {
      receiver.awaitLine("handling attempt=1", STARTUP);
      assertThat(receiver.kill()).as("exit status after SIGKILL").isEqualTo(128 + 9);
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages WHERE leased = 1")).isOne();

    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    SpanData handled;
    try (SdkTracerProvider provider =
            SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build();
        OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
      OnceOnlyTracing tracing = OnceOnlyTracing.of(provider.get("test"));
      try (Worker w =
          Worker.builder(
                  once.queue(),
                  "mail",
                  tracing.handler(
                      job ->
                          job.completeWith(
                              tx ->
                                  once.receipts()
                                      .execute(
                                          tx,
                                          IntentKey.of("mail", job.delivery().key()),
                                          "send_mail",
                                          job.delivery().payload(),
                                          String.class,
                                          c -> "sent"))))
              .idleBackoff(Duration.ofMillis(10), Duration.ofMillis(100))
              .build()
              .start()) {
        // The killed receiver's lease runs out after TracingProcessMain.LEASE.
        Eventually.await(
            Duration.ofSeconds(20),
            () -> Db.count(file, "SELECT COUNT(*) FROM onceonly_messages") == 0);
      }
      Eventually.await(
          Duration.ofSeconds(10),
          () ->
              exporter.getFinishedSpanItems().stream()
                  .anyMatch(s -> s.getName().equals("mail process")));
      // Read before the provider closes: closing the in-memory exporter forgets its spans.
      handled =
          exporter.getFinishedSpanItems().stream()
              .filter(s -> s.getName().equals("mail process"))
              .findFirst()
              .orElseThrow();
    }
    assertThat(handled.getAttributes().get(AttributeKey.longKey("onceonly.attempt"))).isEqualTo(2L);
    assertThat(handled.getTraceId()).isNotEqualTo(traceId);
    assertThat(handled.getLinks())
        .singleElement()
        .satisfies(
            link -> {
              assertThat(link.getSpanContext().getTraceId()).isEqualTo(traceId);
              assertThat(link.getSpanContext().getSpanId()).isEqualTo(sendSpanId);
            });
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(
            Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts WHERE operation = 'send_mail'"))
        .isOne();
  }
}
