package dev.onceonly.otel;

import dev.onceonly.Effect;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentPublisher;
import dev.onceonly.Outcome;
import dev.onceonly.ReceiptStore;
import dev.onceonly.Reconciler;
import dev.onceonly.TraceContext;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.events.OnceOnlyListener;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.redis.RedisStream;
import dev.onceonly.redis.RedisWorker;
import dev.onceonly.redis.StreamMessage;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * OpenTelemetry spans for OnceOnly, and the trace context its messages carry.
 *
 * <pre>{@code
 * OnceOnlyTracing tracing = OnceOnlyTracing.of(openTelemetry);
 * OnceOnly once = OnceOnly.builder().sqlite(file).traceContext(tracing).build();
 * tracing.send(once.queue(), Message.of("mail", "welcome-42", payload));   // a PRODUCER span
 * Worker.builder(once.queue(), "mail", tracing.handler(mailer)).build().start(); // CONSUMER spans
 * }</pre>
 *
 * <p>As a {@link TraceContext} it gives the current span's W3C {@code traceparent}, stored with
 * each message sent. {@link #handler} opens a {@code CONSUMER} span around each delivery, a new
 * trace linked to the span that sent the message (a link rather than a parent: the delivery may be
 * the second of several, hours later, and belongs to its own trace); the handler's own spans are
 * its children. {@link #send}, {@link #execute} and {@link #claim} open spans around those calls
 * with their outcome as an attribute. {@link #publisher} traces a reconciler's publications, linked
 * to the requests that registered the intents; {@link #streamEffect} a Redis worker's effects,
 * linked to the producing requests; {@link #listener()} turns the queue's claim and settle events
 * into spans. Attributes: {@code messaging.system} ({@code onceonly}), {@code
 * messaging.destination.name}, {@code messaging.operation.type}, {@code onceonly.attempt}, {@code
 * onceonly.operation}, {@code onceonly.outcome}; never a key, a scope or a payload. Thread-safe.
 */
// OpenTelemetry's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
public final class OnceOnlyTracing implements TraceContext {
  /** The instrumentation scope's name. */
  public static final String INSTRUMENTATION = "dev.onceonly";

  private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  private static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  private static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("onceonly.attempt");
  private static final AttributeKey<String> OPERATION =
      AttributeKey.stringKey("onceonly.operation");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("onceonly.outcome");
  private static final AttributeKey<Long> BATCH_COUNT =
      AttributeKey.longKey("messaging.batch.message_count");

  private static final TextMapGetter<String> TRACEPARENT =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
          return List.of("traceparent");
        }

        @Override
        public String get(String carrier, String key) {
          return "traceparent".equals(key) ? carrier : null;
        }
      };

  private final Tracer tracer;

  private OnceOnlyTracing(Tracer tracer) {
    this.tracer = tracer;
  }

  /**
   * Returns the tracing of an OpenTelemetry instance, under the scope {@link #INSTRUMENTATION}.
   *
   * @param openTelemetry the application's OpenTelemetry
   * @return the tracing
   */
  public static OnceOnlyTracing of(OpenTelemetry openTelemetry) {
    return of(openTelemetry.getTracer(INSTRUMENTATION));
  }

  /**
   * Returns the tracing that opens its spans with {@code tracer}.
   *
   * @param tracer the tracer
   * @return the tracing
   */
  public static OnceOnlyTracing of(Tracer tracer) {
    return new OnceOnlyTracing(Objects.requireNonNull(tracer, "tracer"));
  }

  /**
   * Returns the W3C {@code traceparent} of the calling thread's current span.
   *
   * @return {@code 00-<trace id>-<span id>-<flags>}, or null when no valid span is current
   */
  @Override
  public String traceparent() {
    SpanContext sc = Span.current().getSpanContext();
    if (!sc.isValid()) {
      return null;
    }
    return "00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-" + sc.getTraceFlags().asHex();
  }

  /**
   * Reads a stored {@code traceparent} back as the remote span context it names.
   *
   * @param traceparent a W3C traceparent, or null
   * @return the span context; {@link SpanContext#isValid()} is false for null or a malformed value
   */
  public static SpanContext spanContext(String traceparent) {
    if (traceparent == null) {
      return SpanContext.getInvalid();
    }
    Context extracted =
        W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, TRACEPARENT);
    return Span.fromContext(extracted).getSpanContext();
  }

  /**
   * Wraps a handler so that each delivery runs in a {@code CONSUMER} span named {@code "<queue>
   * process"}, linked to the span that sent the message when its traceparent was recorded. A
   * handler that throws marks the span as an error; the exception goes on to the worker unchanged.
   *
   * @param handler the handler
   * @return the traced handler
   */
  public Handler handler(Handler handler) {
    Objects.requireNonNull(handler, "handler");
    return job -> {
      Delivery d = job.delivery();
      Span span =
          process(d.queue(), d.traceparent()).setAttribute(ATTEMPT, (long) d.attempt()).startSpan();
      within(
          span,
          s -> {
            handler.handle(job);
            return null;
          });
    };
  }

  /**
   * Sends a message in a {@code PRODUCER} span named {@code "<queue> send"}, a child of the current
   * span; the message records this span's traceparent (when the store's trace context is this
   * tracing), so the handler's span links to it.
   *
   * @param queue the job queue
   * @param message the message
   * @return the queue's answer
   */
  public SendResult send(JobQueue queue, Message message) {
    Span span =
        tracer
            .spanBuilder(message.queue() + " send")
            .setSpanKind(SpanKind.PRODUCER)
            .setAttribute(SYSTEM, "onceonly")
            .setAttribute(DESTINATION, message.queue())
            .setAttribute(OPERATION_TYPE, "send")
            .startSpan();
    return within(
        span,
        s -> {
          SendResult result = queue.send(message);
          s.setAttribute(OUTCOME, result.status().name().toLowerCase(Locale.ROOT));
          return result;
        });
  }

  /**
   * Runs a receipt step in an {@code INTERNAL} span named {@code "onceonly execute <operation>"};
   * its outcome ({@code created}, {@code repeated}, {@code conflict}, {@code expired}) is the
   * attribute {@code onceonly.outcome}. See {@link ReceiptStore#execute(IntentKey, String, Object,
   * Class, Effect)}.
   *
   * @param store the receipt store
   * @param key the intent's key
   * @param operation the operation
   * @param arguments the arguments
   * @param resultType the result's type
   * @param effect the effect
   * @param <T> the result's type
   * @param <X> the effect's exception type
   * @return the step's outcome
   * @throws X what the effect threw
   */
  public <T, X extends Exception> Outcome<T> execute(
      ReceiptStore store,
      IntentKey key,
      String operation,
      Object arguments,
      Class<T> resultType,
      Effect<T, X> effect)
      throws X {
    return within(
        internal("onceonly execute " + operation, operation),
        s -> {
          Outcome<T> outcome = store.execute(key, operation, arguments, resultType, effect);
          s.setAttribute(OUTCOME, kind(outcome));
          return outcome;
        });
  }

  /**
   * Claims an external effect in an {@code INTERNAL} span named {@code "onceonly claim
   * <operation>"}; the answer ({@code claimed}, {@code unknown}, ...) is {@code onceonly.outcome}.
   *
   * @param effects the external effects
   * @param key the intent's key
   * @param operation the operation
   * @param arguments the arguments
   * @param lease how long the claim holds
   * @return the claim's answer
   */
  public ClaimOutcome claim(
      ExternalEffects effects, IntentKey key, String operation, Object arguments, Duration lease) {
    return within(
        internal("onceonly claim " + operation, operation),
        s -> {
          ClaimOutcome outcome = effects.claim(key, operation, arguments, lease);
          s.setAttribute(OUTCOME, kind(outcome));
          return outcome;
        });
  }

  /**
   * Wraps an intent publisher (the {@link Reconciler}'s) so that each intent is published in a
   * {@code PRODUCER} span named {@code "onceonly publish <operation>"}, a child of the current span
   * and linked to the request that registered the intent when its traceparent was recorded ({@link
   * Intent#traceparent()}); what the publisher answered ({@code published}, {@code already_queued},
   * {@code conflict}, {@code dead_lettered}) is {@code onceonly.outcome}. A message the publisher
   * sends on the SQL queue records this span's traceparent, so its handler's span links here.
   *
   * @param publisher the publisher
   * @return the traced publisher
   */
  public IntentPublisher publisher(IntentPublisher publisher) {
    Objects.requireNonNull(publisher, "publisher");
    return intent -> {
      SpanBuilder b =
          tracer
              .spanBuilder("onceonly publish " + intent.operation())
              .setSpanKind(SpanKind.PRODUCER)
              .setAttribute(SYSTEM, "onceonly")
              .setAttribute(OPERATION_TYPE, "send")
              .setAttribute(OPERATION, intent.operation());
      linkTo(b, intent.traceparent());
      return within(
          b.startSpan(),
          s -> {
            IntentPublisher.Publication publication = publisher.publish(intent);
            s.setAttribute(OUTCOME, publication.name().toLowerCase(Locale.ROOT));
            return publication;
          });
    };
  }

  /**
   * Wraps the effect of a {@link RedisWorker} so that it runs in a {@code CONSUMER} span named
   * {@code "<stream> process"}, linked to the request that registered the entry's intent when the
   * entry carries its traceparent ({@link StreamMessage#traceparent()}: the {@link
   * dev.onceonly.redis.RedisProducer} of a store whose trace context is this tracing writes it).
   * The effect runs only for an entry whose receipt is new, inside the receipt step's transaction;
   * an entry answered from its receipt opens no span. An effect that throws marks the span as an
   * error.
   *
   * @param stream the stream the worker reads
   * @param effect the effect
   * @param <T> the effect's result type
   * @return the traced effect
   */
  public <T> RedisWorker.StreamEffect<T> streamEffect(
      RedisStream stream, RedisWorker.StreamEffect<T> effect) {
    String name = Objects.requireNonNull(stream, "stream").name();
    Objects.requireNonNull(effect, "effect");
    return (transaction, message) ->
        within(
            process(name, message.traceparent())
                .setAttribute(OPERATION, message.operation())
                .startSpan(),
            s -> effect.apply(transaction, message));
  }

  /**
   * Returns a listener that records the SQL queue's claims and settlements as spans: each {@link
   * OnceOnlyEvent.MessagesClaimed} as a {@code CLIENT} span named {@code "<queue> receive"} ({@code
   * messaging.operation.type=receive}, {@code messaging.batch.message_count}), each {@link
   * OnceOnlyEvent.MessageSettled} as a {@code CLIENT} span named {@code "<queue> settle"} ({@code
   * messaging.operation.type=settle}, {@code onceonly.outcome} the result, {@code onceonly.attempt}
   * for a retry or a dead letter). Register it with {@code OnceOnlyBuilder#listener}.
   *
   * <p>Listeners run on the events thread after the work: each span is given the start and end the
   * event measured ({@code at - duration} to {@code at}), so it sits where the transaction ran, not
   * where the listener got to it; it has no parent (the worker's poll has no trace of its own). A
   * settlement that found the lease lost or whose work failed has an error status.
   *
   * @return the listener
   */
  public OnceOnlyListener listener() {
    return event -> {
      if (event instanceof OnceOnlyEvent.MessagesClaimed c) {
        timed(c.queue() + " receive", c.queue(), "receive", c.at(), c.duration())
            .setAttribute(BATCH_COUNT, (long) c.count())
            .startSpan()
            .end(c.at());
      } else if (event instanceof OnceOnlyEvent.MessageSettled m) {
        SpanBuilder b =
            timed(m.queue() + " settle", m.queue(), "settle", m.at(), m.duration())
                .setAttribute(OUTCOME, m.result());
        if (m.attempts() > 0) {
          b.setAttribute(ATTEMPT, (long) m.attempts());
        }
        Span span = b.startSpan();
        if (m.result().equals("lease_lost") || m.result().equals("work_failed")) {
          span.setStatus(StatusCode.ERROR, m.result());
        }
        span.end(m.at());
      }
    };
  }

  private SpanBuilder timed(
      String name, String queue, String operationType, Instant at, Duration duration) {
    return tracer
        .spanBuilder(name)
        .setSpanKind(SpanKind.CLIENT)
        .setNoParent()
        .setStartTimestamp(at.minus(duration))
        .setAttribute(SYSTEM, "onceonly")
        .setAttribute(DESTINATION, queue)
        .setAttribute(OPERATION_TYPE, operationType);
  }

  private Span internal(String name, String operation) {
    return tracer
        .spanBuilder(name)
        .setSpanKind(SpanKind.INTERNAL)
        .setAttribute(OPERATION, operation)
        .startSpan();
  }

  private static final Map<String, String> KINDS = new java.util.concurrent.ConcurrentHashMap<>();

  /** The lower-case, underscored name of a result record: {@code RetryLater} is retry_later. */
  private static String kind(Object result) {
    return KINDS.computeIfAbsent(
        result.getClass().getSimpleName(),
        n -> n.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT));
  }

  /**
   * A {@code CONSUMER} span named {@code "<destination> process"} with no parent (a job is not a
   * child of whatever ran before it on this thread), linked to the sender's span when {@code
   * traceparent} names one.
   */
  private SpanBuilder process(String destination, String traceparent) {
    SpanBuilder b =
        tracer
            .spanBuilder(destination + " process")
            .setSpanKind(SpanKind.CONSUMER)
            .setNoParent()
            .setAttribute(SYSTEM, "onceonly")
            .setAttribute(DESTINATION, destination)
            .setAttribute(OPERATION_TYPE, "process");
    linkTo(b, traceparent);
    return b;
  }

  /** Links the span being built to the span {@code traceparent} names, if it is valid. */
  private static void linkTo(SpanBuilder b, String traceparent) {
    SpanContext origin = spanContext(traceparent);
    if (origin.isValid()) {
      b.addLink(origin);
    }
  }

  /** What runs while a span is current; it may add attributes to the span. */
  @FunctionalInterface
  private interface InSpan<T, X extends Exception> {
    T run(Span span) throws X;
  }

  /**
   * Runs {@code body} with {@code span} current, then ends the span. What the body throws marks the
   * span as an error (the exception recorded) and goes on to the caller unchanged.
   */
  private static <T, X extends Exception> T within(Span span, InSpan<T, X> body) throws X {
    Scope scope = span.makeCurrent();
    try {
      return body.run(span);
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      scope.close();
      span.end();
    }
  }
}
