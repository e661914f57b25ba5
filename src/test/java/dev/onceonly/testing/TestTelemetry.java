package dev.onceonly.testing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;

/** An application's {@link OpenTelemetry} for tests: a tracer provider, no propagators. */
public final class TestTelemetry {
  private TestTelemetry() {}

  /** Returns an {@link OpenTelemetry} whose tracers come from {@code provider}. */
  public static OpenTelemetry of(TracerProvider provider) {
    return new OpenTelemetry() {
      @Override
      public TracerProvider getTracerProvider() {
        return provider;
      }

      @Override
      public ContextPropagators getPropagators() {
        return ContextPropagators.noop();
      }
    };
  }
}
