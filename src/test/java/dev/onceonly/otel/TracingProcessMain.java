package dev.onceonly.otel;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A process of {@link TracingCrashTest}. Arguments: the role and the SQLite file.
 *
 * <ul>
 *   <li>{@code send}: sends the message {@code mail/welcome-1} inside a request span with the
 *       OpenTelemetry SDK, prints {@code sent trace=<trace id>} and exits;
 *   <li>{@code receive}: runs a worker with a lease of {@link #LEASE} whose handler prints {@code
 *       handling attempt=<n>} and then waits to be killed.
 * </ul>
 */
public final class TracingProcessMain {
  static final Duration LEASE = Duration.ofSeconds(2);

  private TracingProcessMain() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[1]);
    try (SdkTracerProvider provider = SdkTracerProvider.builder().build()) {
      Tracer tracer = provider.get("child");
      OnceOnlyTracing tracing = OnceOnlyTracing.of(tracer);
      try (OnceOnly once = OnceOnly.builder().sqlite(file).traceContext(tracing).build()) {
        if (args[0].equals("send")) {
          Span request = tracer.spanBuilder("POST /orders").startSpan();
          try (Scope unused = request.makeCurrent()) {
            tracing.send(once.queue(), Message.of("mail", "welcome-1", Map.of("n", 1)));
          } finally {
            request.end();
          }
          System.out.println("sent trace=" + request.getSpanContext().getTraceId());
          return;
        }
        CountDownLatch never = new CountDownLatch(1);
        try (Worker w =
            Worker.builder(
                    once.queue(),
                    "mail",
                    tracing.handler(
                        job -> {
                          System.out.println("handling attempt=" + job.delivery().attempt());
                          never.await();
                        }))
                .lease(LEASE)
                .idleBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
                .build()
                .start()) {
          never.await();
        }
      }
    }
  }
}
