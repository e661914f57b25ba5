package dev.onceonly.events;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands published events to listeners on a thread of its own, so that a listener never runs on a
 * step's thread or inside its transaction.
 *
 * <p>{@link #publish} puts the event into a bounded buffer and returns at once: it never blocks and
 * never throws. One daemon thread takes the events in order and calls every listener. A listener
 * that throws has its first failure logged at {@code WARNING} and the later ones at {@code DEBUG};
 * the event still reaches the other listeners. A listener that blocks holds up the other listeners,
 * never a step: once the buffer is full, further events are dropped and counted ({@link
 * #dropped()}), the first drop logged at {@code WARNING} and then every drop whose count is a power
 * of two. So what a listener sees is exact unless {@link #dropped()} is above zero.
 *
 * <p>{@link #none()} publishes nowhere at no cost; the parts of the library check {@link
 * #enabled()} before they take a time or build an event. Thread-safe.
 */
public final class Events implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Events.class.getName());
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final Events NONE = new Events();

  /** The default number of events the buffer holds: about a second of a busy store. */
  public static final int DEFAULT_CAPACITY = 16_384;

  private final List<OnceOnlyListener> listeners;
  private final List<AtomicBoolean> failedOnce;
  private final boolean scopes;
  private final BlockingQueue<OnceOnlyEvent> buffer;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong handled = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final Object drainedSignal = new Object();
  private final Thread thread;
  private volatile boolean closed;

  private Events() {
    this.listeners = List.of();
    this.failedOnce = List.of();
    this.scopes = false;
    this.buffer = null;
    this.thread = null;
  }

  private Events(List<OnceOnlyListener> listeners, boolean scopes, int capacity) {
    this.listeners = List.copyOf(listeners);
    List<AtomicBoolean> flags = new ArrayList<>();
    this.listeners.forEach(l -> flags.add(new AtomicBoolean()));
    this.failedOnce = List.copyOf(flags);
    this.scopes = scopes;
    this.buffer = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::deliverLoop, "onceonly-events-" + THREADS.incrementAndGet());
    thread.setDaemon(true);
    thread.start();
  }

  /** {@return events that go nowhere} */
  public static Events none() {
    return NONE;
  }

  /**
   * Starts delivering to listeners, with a buffer of {@link #DEFAULT_CAPACITY} events.
   *
   * @param listeners who receives every event, in this order; empty gives {@link #none()}
   * @param scopes whether {@link OnceOnlyEvent.StepFinished#scope()} carries the key's scope
   * @return the events; {@link #close()} stops its thread
   */
  public static Events to(List<OnceOnlyListener> listeners, boolean scopes) {
    return to(listeners, scopes, DEFAULT_CAPACITY);
  }

  /**
   * Starts delivering to listeners.
   *
   * @param listeners who receives every event, in this order; empty gives {@link #none()}
   * @param scopes whether {@link OnceOnlyEvent.StepFinished#scope()} carries the key's scope
   * @param capacity how many events may wait for the listeners, 1 to 1,048,576
   * @return the events; {@link #close()} stops its thread
   * @throws IllegalArgumentException if {@code capacity} is out of bounds
   */
  public static Events to(List<OnceOnlyListener> listeners, boolean scopes, int capacity) {
    Objects.requireNonNull(listeners, "listeners");
    listeners.forEach(l -> Objects.requireNonNull(l, "listener"));
    if (capacity <= 0 || capacity > (1 << 20)) {
      throw new IllegalArgumentException("capacity must be between 1 and 1048576");
    }
    return listeners.isEmpty() ? NONE : new Events(listeners, scopes, capacity);
  }

  /** {@return whether anyone listens: when false, publishing is pointless} */
  public boolean enabled() {
    return buffer != null;
  }

  /**
   * Returns the scope to publish with a step: the scope itself when scopes were asked for, else
   * null (a scope is often a user or a tenant, too many values for a metric tag).
   *
   * @param scope the key's scope
   * @return the scope or null
   */
  public String scope(String scope) {
    return scopes ? scope : null;
  }

  /**
   * Hands an event to the listeners without waiting for them; drops it (counted) when the buffer is
   * full or the events are closed.
   *
   * @param event what happened
   */
  public void publish(OnceOnlyEvent event) {
    if (buffer == null || event == null || closed) {
      return;
    }
    published.incrementAndGet();
    if (!buffer.offer(event)) {
      published.decrementAndGet();
      long n = dropped.incrementAndGet();
      if ((n & (n - 1)) == 0) {
        LOG.log(
            System.Logger.Level.WARNING,
            n
                + " event(s) dropped so far: a listener is slower than the events arrive (buffer"
                + " of "
                + (buffer.size() + buffer.remainingCapacity())
                + ")");
      }
    }
  }

  /** {@return how many events were dropped because the buffer was full} */
  public long dropped() {
    return dropped.get();
  }

  /**
   * Waits until every event published before this call has reached the listeners.
   *
   * @param timeout the longest wait
   * @return whether they all arrived in time
   */
  public boolean drain(Duration timeout) {
    if (buffer == null) {
      return true;
    }
    long target = published.get();
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (drainedSignal) {
      while (handled.get() < target) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !thread.isAlive()) {
          return handled.get() >= target;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(drainedSignal, Math.min(left, 10_000_000L));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return true;
  }

  private void deliverLoop() {
    List<OnceOnlyEvent> batch = new ArrayList<>();
    while (true) {
      try {
        batch.add(buffer.take());
      } catch (InterruptedException e) {
        return;
      }
      buffer.drainTo(batch, 255);
      for (OnceOnlyEvent e : batch) {
        if (e == STOP) {
          return;
        }
        deliver(e);
        handled.incrementAndGet();
      }
      batch.clear();
      synchronized (drainedSignal) {
        drainedSignal.notifyAll();
      }
    }
  }

  private void deliver(OnceOnlyEvent event) {
    for (int i = 0; i < listeners.size(); i++) {
      try {
        listeners.get(i).onEvent(event);
      } catch (RuntimeException | LinkageError | AssertionError e) {
        boolean first = failedOnce.get(i).compareAndSet(false, true);
        LOG.log(
            first ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
            "listener "
                + listeners.get(i).getClass().getName()
                + " threw on "
                + event.getClass().getSimpleName()
                + (first ? "; its later failures are logged at DEBUG" : ""),
            e);
      }
    }
  }

  /** The end of the events, put into the buffer by {@link #close()}. */
  private static final OnceOnlyEvent STOP = new OnceOnlyEvent.GroupCommitted(0, Duration.ZERO);

  /**
   * Stops taking events, delivers those already buffered (waiting at most a second for the
   * listeners) and ends the thread.
   */
  @Override
  public void close() {
    if (buffer == null || closed) {
      return;
    }
    closed = true;
    drain(Duration.ofSeconds(1));
    if (!buffer.offer(STOP)) {
      thread.interrupt();
    }
    try {
      thread.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt(); // a listener still blocked: it is a daemon thread, let it go
    }
  }
}
