package dev.onceonly.events;

/**
 * Receives the events of a {@code OnceOnly} instance, its workers and its reconciler.
 *
 * <p>Called on one daemon thread of the instance's {@link Events}, never on the thread of a step
 * and never inside a transaction: a listener cannot slow a step, hold a lock or change an outcome.
 * Events arrive in the order they were published. A listener that throws has the exception logged
 * once (later ones at {@code DEBUG}) and goes on receiving events; a listener slower than the
 * events arrive makes the bounded buffer overflow, and the events that do not fit are dropped and
 * counted ({@link Events#dropped()}), never waited for.
 */
@FunctionalInterface
public interface OnceOnlyListener {
  /**
   * Receives one event.
   *
   * @param event what happened
   */
  void onEvent(OnceOnlyEvent event);
}
