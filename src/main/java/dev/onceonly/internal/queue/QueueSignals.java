package dev.onceonly.internal.queue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** In-process wake-ups: who wants to know that a queue received a message. Thread-safe. */
public final class QueueSignals {
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

  /** Adds a listener; closing the handle removes it. */
  public AutoCloseable add(Consumer<String> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Tells every listener that {@code queue} received a message. */
  public void fire(String queue) {
    for (Consumer<String> l : listeners) {
      l.accept(queue);
    }
  }
}
