/**
 * OpenTelemetry traces for OnceOnly: {@link dev.onceonly.otel.OnceOnlyTracing} records the sending
 * thread's trace context with each message ({@link dev.onceonly.TraceContext}) and opens spans for
 * sends, steps, claims and handlers, the handler's span linked to the trace that sent its message.
 * Needs {@code io.opentelemetry:opentelemetry-api}; nothing else of the library loads this package.
 */
package dev.onceonly.otel;
