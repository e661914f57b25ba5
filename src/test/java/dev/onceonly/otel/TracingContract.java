package dev.onceonly.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.contract.ContractSupport;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Traces across a queue: a message sent inside a request's span records the send's traceparent in
 * its row; a first receiver abandons it (its lease runs out); a worker of another store on the same
 * database handles the redelivery in a span linked to the sender's trace.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#sqliteAndPostgresql")
class TracingContract extends ContractSupport {
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final Tracer tracer = provider.get("test");
  private final OnceOnlyTracing tracing = OnceOnlyTracing.of(tracer);

  @AfterEach
  void closeTracing() {
    provider.close();
  }

  @Test
  void theRedeliveredMessagesHandlerSpanLinksToTheSendersTrace() {
    OnceOnly sender = start(b -> b.traceContext(tracing));
    Span request = tracer.spanBuilder("POST /orders").startSpan();
    try (Scope unused = request.makeCurrent()) {
      assertThat(tracing.send(sender.queue(), Message.of("mail", "welcome-1", Map.of("n", 1))))
          .extracting(SendResult::status)
          .isEqualTo(SendResult.Status.SENT);
    } finally {
      request.end();
    }
    SpanData send = only("mail send");
    assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(send.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
    assertThat(strings("SELECT traceparent FROM onceonly_messages"))
        .containsExactly("00-" + send.getTraceId() + "-" + send.getSpanId() + "-01");

    // A first receiver, in a store of its own, takes the message and dies without a word.
    OnceOnly first = track(open(clock, b -> {}));
    List<Delivery> abandoned = first.queue().receive("mail", 1, Duration.ofSeconds(30));
    assertThat(abandoned).hasSize(1);
    first.close();
    clock.advance(Duration.ofSeconds(31));

    OnceOnly worker = track(open(clock, b -> {}));
    try (Worker w =
        Worker.builder(
                worker.queue(),
                "mail",
                tracing.handler(
                    job ->
                        tracing.execute(
                            worker.receipts(),
                            IntentKey.of("mail", job.delivery().key()),
                            "send_mail",
                            job.delivery().payload(),
                            String.class,
                            tx -> "sent")))
            .build()
            .start()) {
      Eventually.await(
          Duration.ofSeconds(20), () -> count("SELECT COUNT(*) FROM onceonly_messages") == 0);
    }
    Eventually.await(Duration.ofSeconds(10), () -> spans("onceonly execute send_mail").size() == 1);

    SpanData handled = only("mail process");
    assertThat(handled.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(handled.getAttributes().get(AttributeKey.longKey("onceonly.attempt"))).isEqualTo(2L);
    assertThat(handled.getTraceId()).isNotEqualTo(send.getTraceId()); // a trace of its own...
    assertThat(handled.getLinks()) // ...linked to the request that caused it
        .singleElement()
        .satisfies(
            link -> {
              assertThat(link.getSpanContext().getTraceId()).isEqualTo(send.getTraceId());
              assertThat(link.getSpanContext().getSpanId()).isEqualTo(send.getSpanId());
            });
    SpanData step = only("onceonly execute send_mail");
    assertThat(step.getParentSpanId()).isEqualTo(handled.getSpanId());
    assertThat(step.getAttributes().get(AttributeKey.stringKey("onceonly.outcome")))
        .isEqualTo("created");

    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts WHERE operation = 'send_mail'"))
        .isEqualTo(1);
  }

  @Test
  void withoutACurrentSpanNothingIsStoredAndTheHandlersSpanHasNoLink() throws Exception {
    start(b -> b.traceContext(tracing));
    once.queue().send("mail", "untraced", Map.of());
    assertThat(strings("SELECT traceparent FROM onceonly_messages")).containsExactly((String) null);
    Delivery d = once.queue().receive("mail", 1, Duration.ofMinutes(1)).get(0);
    assertThat(d.traceparent()).isNull();
    assertThat(OnceOnlyTracing.spanContext(null).isValid()).isFalse();
    assertThat(OnceOnlyTracing.spanContext("00-bad").isValid()).isFalse();
    Outcome<String> o =
        tracing.execute(
            once.receipts(), IntentKey.of("s", "k"), "op", Map.of(), String.class, tx -> "r");
    assertThat(o).isInstanceOf(Outcome.Created.class);
    assertThat(only("onceonly execute op").getParentSpanId())
        .isEqualTo(io.opentelemetry.api.trace.SpanId.getInvalid());
  }

  private List<SpanData> spans(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
  }

  private SpanData only(String name) {
    List<SpanData> found = spans(name);
    assertThat(found).as(name).hasSize(1);
    return found.get(0);
  }
}
