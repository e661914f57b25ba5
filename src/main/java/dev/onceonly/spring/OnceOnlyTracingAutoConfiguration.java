package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.otel.OnceOnlyTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Registers OnceOnly's OpenTelemetry spans when the OpenTelemetry API is on the class path and the
 * application has an {@link OpenTelemetry} bean: {@link OnceOnlyTracing} as a bean and as the
 * auto-configured store's trace context (through an {@link OnceOnlyBuilderCustomizer}, so each
 * message sent and intent registered records the current span), and as an {@link
 * OnceOnlyHandlerDecorator}, so every {@link OnceOnlyHandler} bean's deliveries run in spans linked
 * to their senders. {@code onceonly.tracing.enabled=false} turns it off. An {@code OnceOnly} bean
 * of the application's own gets neither the trace context nor the spans of its own workers: give
 * its builder {@code traceContext(tracing)}. The claim and settle spans ({@link
 * OnceOnlyTracing#listener()}) are not registered: add them with a customizer if wanted. See
 * docs/observability.md.
 */
// Spring's and OpenTelemetry's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration(
    after = OnceOnlyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
      "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration"
    })
@ConditionalOnClass(name = "io.opentelemetry.api.OpenTelemetry")
@ConditionalOnBean({OpenTelemetry.class, OnceOnly.class})
@ConditionalOnProperty(
    prefix = "onceonly.tracing",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class OnceOnlyTracingAutoConfiguration {
  /** Creates the configuration; Spring calls it. */
  public OnceOnlyTracingAutoConfiguration() {}

  /**
   * The tracing of the application's OpenTelemetry.
   *
   * @param openTelemetry the application's OpenTelemetry
   * @return the tracing
   */
  @Bean
  @ConditionalOnMissingBean
  public OnceOnlyTracing onceOnlyTracing(OpenTelemetry openTelemetry) {
    return OnceOnlyTracing.of(openTelemetry);
  }

  /**
   * Makes the tracing the store's trace context.
   *
   * @param tracing the tracing
   * @return the customizer
   */
  @Bean
  public OnceOnlyBuilderCustomizer onceOnlyTracingCustomizer(OnceOnlyTracing tracing) {
    return builder -> builder.traceContext(tracing);
  }

  /**
   * Opens a span around each delivery of the {@link OnceOnlyHandler} beans' workers.
   *
   * @param tracing the tracing
   * @return the decorator
   */
  @Bean
  public OnceOnlyHandlerDecorator onceOnlyTracingHandlers(OnceOnlyTracing tracing) {
    return (queue, handler) -> tracing.handler(handler);
  }
}
