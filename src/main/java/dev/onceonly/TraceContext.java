package dev.onceonly;

/**
 * Where the sending side's trace context comes from: its W3C {@code traceparent} is stored with
 * each message sent and each intent registered, so that the handler of the message, in another
 * thread, process or hour, can link its work to the request that caused it ({@link
 * dev.onceonly.queue.Delivery#traceparent()}).
 *
 * <p>The core knows no tracing library; {@code dev.onceonly.otel.OnceOnlyTracing} implements this
 * for OpenTelemetry. Called on the sending thread, before the send's transaction; it must be fast
 * and must not throw (a failure is logged and the message sent without a trace context).
 */
@FunctionalInterface
public interface TraceContext {
  /** The longest traceparent stored; longer values (not W3C version 00) are not stored. */
  int MAX_CHARS = 128;

  /**
   * Returns the calling thread's current trace context.
   *
   * @return a W3C {@code traceparent} such as {@code
   *     00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01}, or null when there is none
   */
  String traceparent();

  /** {@return a trace context that never has a traceparent} */
  static TraceContext none() {
    return () -> null;
  }
}
