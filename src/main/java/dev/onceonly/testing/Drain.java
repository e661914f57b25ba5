package dev.onceonly.testing;

import dev.onceonly.IntentKey;
import dev.onceonly.IntentPublisher;
import dev.onceonly.IntentStore;
import dev.onceonly.Reconciler;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs the due messages of one queue through a handler on the calling thread, one at a time, until
 * none is due, and returns what happened to each: a test's replacement for a {@link Worker}, with
 * the same outcome rules ({@link Worker#handleOnce}) and no threads, so the test's assertions run
 * after every effect has been recorded.
 *
 * <pre>{@code
 * List<DrainStep> steps = Drain.of(once.queue(), "emails", new EmailHandler(once))
 *     .movingClock(clock)   // jump to each retry's due time until the queue is empty
 *     .run();
 * assertThat(steps).extracting(DrainStep::result).last().isInstanceOf(QueueResult.Completed.class);
 * }</pre>
 *
 * <p>Not thread-safe; build one per drain. Messages that a receive moves to the dead letters (past
 * their last attempt) appear in {@link JobQueue#deadLetters}, not in the steps.
 */
public final class Drain {
  /** The most deliveries one {@link #run()} handles unless {@link #maxSteps} says otherwise. */
  public static final int DEFAULT_MAX_STEPS = 10_000;

  private final JobQueue queue;
  private final String queueName;
  private final Handler handler;
  private Duration lease = Duration.ofMinutes(1);
  private MutableClock clock;
  private int maxSteps = DEFAULT_MAX_STEPS;

  private Drain(JobQueue queue, String queueName, Handler handler) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.queueName = Objects.requireNonNull(queueName, "queueName");
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /**
   * Returns a drain of one queue.
   *
   * @param queue the job queue, with the retry policy the application uses
   * @param queueName the queue's name
   * @param handler the application's handler
   * @return the drain
   */
  public static Drain of(JobQueue queue, String queueName, Handler handler) {
    return new Drain(queue, queueName, handler);
  }

  /**
   * Sets the lease of each delivery. Default one minute.
   *
   * @param lease positive
   * @return this drain
   */
  public Drain lease(Duration lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be > 0");
    }
    this.lease = lease;
    return this;
  }

  /**
   * Moves {@code clock} (the store's) to the next due time whenever nothing is due, so that the
   * drain runs until the queue is empty: retries after their backoff, messages sent for later.
   * Without it the drain stops when nothing is due now.
   *
   * @param clock the store's clock
   * @return this drain
   */
  public Drain movingClock(MutableClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * Sets the most deliveries one run handles, against a handler that reschedules itself forever.
   * Default {@value #DEFAULT_MAX_STEPS}.
   *
   * @param steps at least 1
   * @return this drain
   */
  public Drain maxSteps(int steps) {
    if (steps <= 0) {
      throw new IllegalArgumentException("maxSteps must be > 0");
    }
    this.maxSteps = steps;
    return this;
  }

  /**
   * Handles due messages until none is due (or, with {@link #movingClock}, until the queue is
   * empty).
   *
   * @return one step per delivery, in order
   * @throws AssertionError if messages are still due after {@link #maxSteps} deliveries
   */
  public List<DrainStep> run() {
    List<DrainStep> steps = new ArrayList<>();
    while (true) {
      List<Delivery> due = queue.receive(queueName, 1, lease);
      if (due.isEmpty()) {
        if (clock == null || !moveClock()) {
          return steps;
        }
        continue;
      }
      if (steps.size() >= maxSteps) {
        throw new AssertionError(
            "queue " + queueName + " still has due messages after " + maxSteps + " deliveries");
      }
      steps.add(handle(due.get(0)));
    }
  }

  /** Moves the clock to the next due time; false if the queue is empty. */
  private boolean moveClock() {
    Optional<Instant> next = queue.nextDue(queueName);
    if (next.isEmpty()) {
      return false;
    }
    if (next.get().isAfter(clock.instant())) {
      clock.set(next.get());
    }
    return true;
  }

  private DrainStep handle(Delivery d) {
    Throwable[] thrown = new Throwable[1];
    Handler watched =
        job -> {
          try {
            handler.handle(job);
          } catch (Exception | Error e) {
            thrown[0] = e;
            throw e;
          }
        };
    QueueResult r = Worker.handleOnce(queue, d, watched);
    return new DrainStep(
        d.queue(), d.key(), d.lease().messageId(), d.attempt(), r, Optional.ofNullable(thrown[0]));
  }

  /**
   * Runs one reconciler pass on the calling thread: every registered intent without a receipt is
   * handed to {@code publisher}, and what it answered is returned per intent.
   *
   * @param intents the store's intents
   * @param publisher the application's publisher
   * @return one entry per intent published, in the reconciler's order
   */
  public static List<Republished> reconcile(IntentStore intents, IntentPublisher publisher) {
    Objects.requireNonNull(publisher, "publisher");
    List<Republished> out = new ArrayList<>();
    Reconciler.of(
            intents,
            intent -> {
              IntentPublisher.Publication p = publisher.publish(intent);
              out.add(new Republished(intent.key(), intent.operation(), p));
              return p;
            })
        .reconcile();
    return out;
  }

  /**
   * What {@link #reconcile} did with one intent.
   *
   * @param key the intent's key
   * @param operation its operation
   * @param publication what the publisher answered
   */
  public record Republished(
      IntentKey key, String operation, IntentPublisher.Publication publication) {
    /**
     * Checks the fields.
     *
     * @param key the intent's key
     * @param operation its operation
     * @param publication what the publisher answered
     */
    public Republished {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(publication, "publication");
    }
  }
}
