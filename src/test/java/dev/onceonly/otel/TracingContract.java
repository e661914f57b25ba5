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
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
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

  @Test
  void aMessageRequeuedFromTheDeadLettersKeepsItsSendersTraceparent() {
    OnceOnly sender = start(b -> b.traceContext(tracing));
    Span request = tracer.spanBuilder("POST /orders").startSpan();
    try (Scope unused = request.makeCurrent()) {
      tracing.send(sender.queue(), Message.of("mail", "poison-1", Map.of("n", 1)));
    } finally {
      request.end();
    }
    SpanData send = only("mail send");
    String traceparent = "00-" + send.getTraceId() + "-" + send.getSpanId() + "-01";
    Delivery d = sender.queue().receive("mail", 1, Duration.ofMinutes(1)).get(0);
    sender.queue().deadLetter(d.lease(), "poisoned");

    reopen();
    assertThat(strings("SELECT traceparent FROM onceonly_dead_letters"))
        .containsExactly(traceparent);
    assertThat(once.queue().requeue("mail", "poison-1")).isTrue();
    assertThat(strings("SELECT traceparent FROM onceonly_messages")).containsExactly(traceparent);

    try (Worker w = Worker.builder(once.queue(), "mail", tracing.handler(job -> {})).build()) {
      w.start();
      Eventually.await(
          Duration.ofSeconds(20), () -> count("SELECT COUNT(*) FROM onceonly_messages") == 0);
    }
    Eventually.await(Duration.ofSeconds(10), () -> spans("mail process").size() == 1);
    assertThat(only("mail process").getLinks())
        .singleElement()
        .satisfies(
            link -> {
              assertThat(link.getSpanContext().getTraceId()).isEqualTo(send.getTraceId());
              assertThat(link.getSpanContext().getSpanId()).isEqualTo(send.getSpanId());
            });
  }

  @Test
  void anIntentRecordsTheRegisteringRequestAndItsReconciliationLinksToIt() {
    start(b -> b.traceContext(tracing));
    Span request = tracer.spanBuilder("POST /reports").startSpan();
    try (Scope unused = request.makeCurrent()) {
      once.intents().register(IntentKey.of("u-1", "report-7"), "build_report", Map.of("n", 7));
    } finally {
      request.end();
    }
    once.intents().register(IntentKey.of("u-1", "report-8"), "build_report", Map.of("n", 8));
    String traceparent =
        "00-"
            + request.getSpanContext().getTraceId()
            + "-"
            + request.getSpanContext().getSpanId()
            + "-01";

    reopen();
    assertThat(strings("SELECT traceparent FROM onceonly_intents ORDER BY intent_key"))
        .containsExactly(traceparent, null);
    assertThat(once.intents().find(IntentKey.of("u-1", "report-7")))
        .get()
        .extracting(dev.onceonly.Intent::traceparent)
        .isEqualTo(traceparent);
    assertThat(once.intents().pending(10))
        .extracting(dev.onceonly.Intent::traceparent)
        .containsExactly(traceparent, null);

    dev.onceonly.Reconciler.Report report =
        dev.onceonly.Reconciler.of(
                once.intents(),
                tracing.publisher(dev.onceonly.queue.IntentMessage.publisher(once.queue(), "jobs")))
            .reconcile();
    assertThat(report.published()).isEqualTo(2);
    List<SpanData> published = spans("onceonly publish build_report");
    assertThat(published).hasSize(2);
    assertThat(published)
        .allSatisfy(s -> assertThat(s.getKind()).isEqualTo(SpanKind.PRODUCER))
        .allSatisfy(
            s ->
                assertThat(s.getAttributes().get(AttributeKey.stringKey("onceonly.outcome")))
                    .isEqualTo("published"))
        .filteredOn(s -> !s.getLinks().isEmpty())
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.getLinks().get(0).getSpanContext().getSpanId())
                    .isEqualTo(request.getSpanContext().getSpanId()));
    // The messages the reconciler sent record its spans, so their handlers link there in turn.
    assertThat(strings("SELECT traceparent FROM onceonly_messages ORDER BY message_key"))
        .containsExactlyInAnyOrderElementsOf(
            published.stream()
                .map(s -> "00-" + s.getTraceId() + "-" + s.getSpanId() + "-01")
                .toList());
  }

  @Test
  void theListenerTurnsClaimsAndSettlementsIntoSpansTimedWhenTheyRan() throws Exception {
    java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
    // A listener ahead of the tracing's holds the events thread until the calls have returned:
    // the spans must still sit where the transactions ran, not where the listener got to them.
    start(
        b ->
            b.listener(
                    e -> {
                      try {
                        released.await();
                      } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                      }
                    })
                .listener(tracing.listener()));
    once.queue().send("mail", "a", Map.of());
    once.queue().send("mail", "b", Map.of());
    java.time.Instant beforeReceive = java.time.Instant.now();
    List<Delivery> claimed = once.queue().receive("mail", 2, Duration.ofMinutes(1));
    java.time.Instant afterReceive = java.time.Instant.now();
    once.queue().ack(claimed.get(0).lease());
    once.queue().nack(claimed.get(1).lease(), "later");
    java.time.Instant afterSettle = java.time.Instant.now();
    released.countDown();
    Eventually.await(Duration.ofSeconds(10), () -> spans("mail settle").size() == 2);

    SpanData receive = only("mail receive");
    assertThat(receive.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(receive.getParentSpanId()).isEqualTo(io.opentelemetry.api.trace.SpanId.getInvalid());
    assertThat(receive.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")))
        .isEqualTo("receive");
    assertThat(receive.getAttributes().get(AttributeKey.longKey("messaging.batch.message_count")))
        .isEqualTo(2L);
    assertThat(receive.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
        .isEqualTo("mail");
    assertThat(nanos(beforeReceive)).isLessThanOrEqualTo(receive.getStartEpochNanos());
    assertThat(receive.getStartEpochNanos()).isLessThanOrEqualTo(receive.getEndEpochNanos());
    assertThat(receive.getEndEpochNanos()).isLessThanOrEqualTo(nanos(afterReceive));

    List<SpanData> settled = spans("mail settle");
    assertThat(settled)
        .extracting(s -> s.getAttributes().get(AttributeKey.stringKey("onceonly.outcome")))
        .containsExactly("completed", "retrying");
    assertThat(settled)
        .allSatisfy(
            s -> {
              assertThat(s.getKind()).isEqualTo(SpanKind.CLIENT);
              assertThat(s.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")))
                  .isEqualTo("settle");
              assertThat(s.getStartEpochNanos()).isGreaterThanOrEqualTo(receive.getEndEpochNanos());
              assertThat(s.getEndEpochNanos()).isLessThanOrEqualTo(nanos(afterSettle));
            });
    assertThat(settled.get(1).getAttributes().get(AttributeKey.longKey("onceonly.attempt")))
        .isEqualTo(1L);
    // Never a key, a scope or a payload.
    assertThat(exporter.getFinishedSpanItems())
        .flatMap(s -> s.getAttributes().asMap().values())
        .doesNotContain("a", "b");
  }

  private static long nanos(java.time.Instant at) {
    return at.getEpochSecond() * 1_000_000_000L + at.getNano();
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
