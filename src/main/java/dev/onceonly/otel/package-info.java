/**
 * OpenTelemetry traces for OnceOnly: {@link dev.onceonly.otel.OnceOnlyTracing} records the sending
 * thread's trace context with each message and intent ({@link dev.onceonly.TraceContext}) and opens
 * spans for sends, steps, claims, handlers, reconciled intents, Redis effects and the queue's claim
 * and settle transactions, the consumer's span linked to the trace that caused its work. Needs
 * {@code io.opentelemetry:opentelemetry-api}; nothing else of the library loads this package.
 */
package dev.onceonly.otel;
