package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.otel.OnceOnlyTracing;
import dev.onceonly.queue.Handler;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.TestTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * The OpenTelemetry registration in a real context on a SQLite file: with an {@link OpenTelemetry}
 * bean, a message sent inside a request span records it, and the {@link OnceOnlyHandler} bean's
 * delivery runs in a span linked to it; {@code onceonly.tracing.enabled=false} declares nothing.
 */
class OnceOnlyTracingAutoConfigurationTest {
  @TempDir Path dir;

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();

  @AfterEach
  void closeTracing() {
    provider.close();
  }

  @OnceOnlyHandler(queue = "mail")
  static class Mailer implements Handler {
    @Override
    public void handle(dev.onceonly.queue.Job job) {}
  }

  private ApplicationContextRunner runner() {
    OpenTelemetry openTelemetry = TestTelemetry.of(provider);
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                OnceOnlyAutoConfiguration.class, OnceOnlyTracingAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(
                    dir.resolve("app.db"), SQLiteConfig.TransactionMode.IMMEDIATE))
        .withBean(OpenTelemetry.class, () -> openTelemetry)
        .withBean("mailer", Mailer.class);
  }

  @Test
  void withAnOpenTelemetryBeanSendsRecordTheSpanAndHandlerBeansRunInLinkedSpans() {
    runner()
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(OnceOnlyTracing.class);
              OnceOnly once = context.getBean(OnceOnly.class);
              Span request = provider.get("test").spanBuilder("POST /signup").startSpan();
              try (Scope unused = request.makeCurrent()) {
                once.queue().send("mail", "welcome-1", Map.of("n", 1));
              } finally {
                request.end();
              }
              Eventually.await(Duration.ofSeconds(20), () -> processed().size() == 1);
              assertThat(processed().get(0).getLinks())
                  .singleElement()
                  .satisfies(
                      link ->
                          assertThat(link.getSpanContext().getSpanId())
                              .isEqualTo(request.getSpanContext().getSpanId()));
            });
    assertThat(Db.count(dir.resolve("app.db"), "SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void turnedOffByThePropertyNothingIsRecordedOrSpanned() {
    runner()
        .withPropertyValues("onceonly.tracing.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(OnceOnlyTracing.class);
              assertThat(context).doesNotHaveBean(OnceOnlyHandlerDecorator.class);
              OnceOnly once = context.getBean(OnceOnly.class);
              Span request = provider.get("test").spanBuilder("POST /signup").startSpan();
              try (Scope unused = request.makeCurrent()) {
                once.queue().send("mail", "welcome-2", Map.of("n", 2));
              } finally {
                request.end();
              }
              Eventually.await(
                  Duration.ofSeconds(20),
                  () ->
                      Db.count(dir.resolve("app.db"), "SELECT COUNT(*) FROM onceonly_messages")
                          == 0);
            });
    assertThat(processed()).isEmpty();
  }

  private List<SpanData> processed() {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals("mail process"))
        .toList();
  }
}
