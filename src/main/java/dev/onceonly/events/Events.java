package dev.onceonly.events;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands published events to listeners on a thread of its own, so that a listener never runs on a
 * step's thread or inside its transaction.
 *
 * <p>{@link #publish} puts the event into a bounded buffer and returns at once: it never blocks and
 * never throws. One daemon thread takes the events in order and calls every listener; while events
 * keep coming it takes them about once a millisecond, many at a time, so a busy store does not wake
 * it for each event ({@link #drain} does not wait for that millisecond). A listener that throws has
 * its first failure logged at {@code WARNING} and the later ones at {@code DEBUG}; the event still
 * reaches the other listeners. A listener that blocks holds up the other listeners, never a step:
 * once the buffer is full, further events are dropped and counted ({@link #dropped()}), the first
 * drop logged at {@code WARNING} and then every drop whose count is a power of two. So what a
 * listener sees is exact unless {@link #dropped()} is above zero.
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

  /**
   * How long the events' thread lets events gather after a busy round before it takes them again,
   * so that a busy store hands them over in batches instead of waking the thread for each one.
   */
  private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final List<OnceOnlyListener> listeners;
  private final List<AtomicBoolean> failedOnce;
  private final boolean scopes;
  private final int capacity;

  /*
   * The hand-off: many publishing threads, one taking thread. The JDK's lock-free queue rather than
   * a bounded blocking queue: offering is one compare-and-set, with no lock shared with the taking
   * thread and no signal per event. Its bound is kept by the counters below. A ring buffer without
   * the queue's one node per event (JCTools) would be a dependency of the core jar, which carries
   * none beyond the driver and Jackson; the node is small and dies young.
   */
  private final ConcurrentLinkedQueue<OnceOnlyEvent> buffer;

  /** Events accepted so far (dropped ones not counted). */
  private final AtomicLong published = new AtomicLong();

  /** Events that have reached every listener, written by the events' thread alone. */
  private final AtomicLong handled = new AtomicLong();

  private final AtomicLong dropped = new AtomicLong();
  private final AtomicInteger drainers = new AtomicInteger();
  private final Object drainedSignal = new Object();
  private final Thread thread;

  /** Whether the events' thread is parked with nothing to do: a publisher then wakes it. */
  private volatile boolean sleeping;

  private volatile boolean closed;

  private Events() {
    this.listeners = List.of();
    this.failedOnce = List.of();
    this.scopes = false;
    this.capacity = 0;
    this.buffer = null;
    this.thread = null;
  }

  private Events(List<OnceOnlyListener> listeners, boolean scopes, int capacity) {
    this.listeners = List.copyOf(listeners);
    List<AtomicBoolean> flags = new ArrayList<>();
    this.listeners.forEach(l -> flags.add(new AtomicBoolean()));
    this.failedOnce = List.copyOf(flags);
    this.scopes = scopes;
    this.capacity = capacity;
    this.buffer = new ConcurrentLinkedQueue<>();
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
    long p;
    do {
      p = published.get();
      if (p - handled.get() >= capacity) {
        drop();
        return;
      }
    } while (!published.compareAndSet(p, p + 1));
    buffer.offer(event);
    if (sleeping) {
      LockSupport.unpark(thread);
    }
  }

  private void drop() {
    long n = dropped.incrementAndGet();
    if ((n & (n - 1)) == 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          n
              + " event(s) dropped so far: a listener is slower than the events arrive (buffer"
              + " of "
              + capacity
              + ")");
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
    drainers.incrementAndGet();
    try {
      LockSupport.unpark(thread); // no need to let events gather: someone waits for them
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
    } finally {
      drainers.decrementAndGet();
    }
  }

  /**
   * Takes what was published and delivers it, then sleeps: a millisecond after a round that found
   * events (more gather meanwhile and go in one round), until the next publish after a round that
   * found none. So a busy store wakes this thread about a thousand times a second at most, and an
   * idle one never.
   */
  private void deliverLoop() {
    long delivered = 0;
    while (true) {
      int round = 0;
      for (OnceOnlyEvent e = buffer.poll(); e != null; e = buffer.poll()) {
        if (e == STOP) {
          return;
        }
        deliver(e);
        handled.lazySet(++delivered); // this thread alone writes it
        round++;
      }
      if (drainers.get() > 0) {
        synchronized (drainedSignal) {
          drainedSignal.notifyAll();
        }
      }
      if (Thread.interrupted()) {
        return;
      }
      if (round > 0) {
        LockSupport.parkNanos(this, GATHER_NANOS);
      } else {
        sleeping = true;
        if (buffer.isEmpty()) {
          LockSupport.park(this);
        }
        sleeping = false;
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
    buffer.offer(STOP);
    LockSupport.unpark(thread);
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
