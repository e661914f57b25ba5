package dev.onceonly.testing;

import dev.onceonly.IntentKey;
import dev.onceonly.IntentPublisher;
import dev.onceonly.IntentStore;
import dev.onceonly.Reconciler;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.workflow.StepHandler;
import dev.onceonly.workflow.Workflow;
import dev.onceonly.workflow.Workflows;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

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
 * <p>{@link #workflow} drains every queue of a workflow's steps and compensations in turn, so a
 * test runs a workflow to its end, compensations included, and then reads {@code
 * once.workflows().find(id)}.
 *
 * <p>Not thread-safe; build one per drain. Messages that a receive moves to the dead letters (past
 * their last attempt) appear in {@link JobQueue#deadLetters}, not in the steps.
 */
public final class Drain {
  /** The most deliveries one {@link #run()} handles unless {@link #maxSteps} says otherwise. */
  public static final int DEFAULT_MAX_STEPS = 10_000;

  private final JobQueue queue;
  private final List<String> queueNames;
  private final Handler handler;
  private Duration lease = Duration.ofMinutes(1);
  private MutableClock clock;
  private Maintenance store;
  private int maxSteps = DEFAULT_MAX_STEPS;

  private Drain(JobQueue queue, List<String> queueNames, Handler handler) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.queueNames = List.copyOf(queueNames);
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
    return new Drain(queue, List.of(Objects.requireNonNull(queueName, "queueName")), handler);
  }

  /**
   * Returns a drain of every queue a workflow's steps and compensations run on, taken in turn, each
   * delivery handled by {@code workflows.handler(steps)}: what the workers of those queues would
   * do, on the calling thread. With {@link #movingClock} it runs every run of the workflow to its
   * end (completed, failed or cancelled after its compensations), retries included; without it,
   * until nothing is due now (a step that awaits a signal waits for it).
   *
   * <pre>{@code
   * Drain.workflow(once.queue(), once.workflows(), order, steps).movingClock(clock).run();
   * assertThat(once.workflows().find("order-o-42").orElseThrow().state())
   *     .isEqualTo(WorkflowState.COMPLETED);
   * }</pre>
   *
   * @param queue the job queue, with the retry policy the application's workers use
   * @param workflows the store's workflows ({@code once.workflows()})
   * @param workflow the definition, for its queues
   * @param steps the application's step handler
   * @return the drain
   */
  public static Drain workflow(
      JobQueue queue, Workflows workflows, Workflow workflow, StepHandler steps) {
    Objects.requireNonNull(workflows, "workflows");
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(steps, "steps");
    Set<String> queues = new LinkedHashSet<>();
    for (Workflow.Step s : workflow.steps()) {
      queues.add(s.queue());
      if (s.compensationQueue() != null) {
        queues.add(s.compensationQueue());
      }
    }
    return new Drain(queue, List.copyOf(queues), workflows.handler(steps));
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
   * <p>This form cannot see leases held elsewhere: when a message is due but the claim takes none
   * (a concurrency limit full of a crashed worker's leases), {@link #run} fails with an {@link
   * AssertionError} instead of waiting. {@link #movingClock(MutableClock, Maintenance)} waits them
   * out.
   *
   * @param clock the store's clock
   * @return this drain
   */
  public Drain movingClock(MutableClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.store = null;
    return this;
  }

  /**
   * Moves {@code clock} as {@link #movingClock(MutableClock)} does, and also, when a message is due
   * but the claim takes none because the queue's concurrency limit is full of leases held elsewhere
   * (a worker that died holding them), to the end of the first of those leases, when its room is
   * free again and its message due.
   *
   * @param clock the store's clock
   * @param store the same store's maintenance ({@code once.maintenance()}), read for its leases
   * @return this drain
   */
  public Drain movingClock(MutableClock clock, Maintenance store) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.store = Objects.requireNonNull(store, "store");
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
   * empty). Between deliveries it checks the thread's interrupt.
   *
   * @return one step per delivery, in order
   * @throws AssertionError if messages are still due after {@link #maxSteps} deliveries, if the
   *     clock was moved {@link #maxSteps} times in a row without a delivery, or if a message is due
   *     and the claim takes none and the clock cannot change that; the message names the queue and
   *     what blocks it
   * @throws IllegalStateException if the thread is interrupted; its interrupt stays set
   */
  public List<DrainStep> run() {
    List<DrainStep> steps = new ArrayList<>();
    int idle = 0;
    while (true) {
      boolean handled = false;
      for (String queueName : queueNames) {
        if (Thread.currentThread().isInterrupted()) {
          throw new IllegalStateException(
              "drain of " + names() + " interrupted after " + steps.size() + " deliveries");
        }
        List<Delivery> due = queue.receive(queueName, 1, lease);
        if (!due.isEmpty()) {
          if (steps.size() >= maxSteps) {
            throw new AssertionError(
                names() + " still has due messages after " + maxSteps + " deliveries");
          }
          steps.add(handle(due.get(0)));
          handled = true;
        }
      }
      if (handled) {
        idle = 0;
      } else if (clock == null || !moveClock()) {
        return steps;
      } else if (++idle > maxSteps) {
        throw new AssertionError(
            names()
                + ": the clock was moved "
                + maxSteps
                + " times without a delivery, now at "
                + clock.instant());
      }
    }
  }

  /**
   * Moves the clock to when something can be claimed: the next due time, or, when a message is due
   * already, the end of the first lease that blocks it. False if the queue is empty.
   */
  private boolean moveClock() {
    Instant now = clock.instant();
    Instant soonest = null;
    for (String queueName : queueNames) {
      Optional<Instant> next = queue.nextDue(queueName);
      if (next.isEmpty()) {
        continue;
      }
      if (!next.get().isAfter(now)) {
        // Due, yet not claimed: only the end of a lease held elsewhere can change that.
        List<Maintenance.LiveLease> held =
            store == null ? List.of() : store.liveLeases(queueName, 1);
        if (held.isEmpty()) {
          throw new AssertionError(blocked(queueName, next.get(), now));
        }
        next = Optional.of(held.get(0).until());
      }
      if (soonest == null || next.get().isBefore(soonest)) {
        soonest = next.get();
      }
    }
    if (soonest == null) {
      return false;
    }
    clock.set(soonest);
    return true;
  }

  /** The drained queues, for messages: {@code queue a} or {@code queues [a, b]}. */
  private String names() {
    return queueNames.size() == 1 ? "queue " + queueNames.get(0) : "queues " + queueNames;
  }

  private String blocked(String queueName, Instant due, Instant now) {
    String head =
        "queue "
            + queueName
            + ": a message due since "
            + due
            + " (now "
            + now
            + ") was not claimed: a concurrency limit of the queue or its partition is full of";
    if (store == null) {
      return head
          + " leases held elsewhere, which this drain cannot see; use movingClock(clock,"
          + " once.maintenance()) to wait them out";
    }
    return head
        + " leases, yet the store shows none live on the queue: nothing the clock can change"
        + " makes the message claimable";
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
