package dev.onceonly.spring;

import dev.onceonly.queue.Handler;

/**
 * Wraps the handler of every {@link OnceOnlyHandler} bean before its worker is built: for what runs
 * around each delivery (a span, a log context). Declare one or more as beans; they apply in {@link
 * org.springframework.core.annotation.Order} order, the first one innermost. The tracing
 * auto-configuration declares one that opens each delivery's span.
 */
@FunctionalInterface
public interface OnceOnlyHandlerDecorator {
  /**
   * Wraps a handler.
   *
   * @param queue the queue the handler's worker claims from
   * @param handler the handler (the bean, or what an earlier decorator made of it)
   * @return the handler the worker runs
   */
  Handler decorate(String queue, Handler handler);
}
