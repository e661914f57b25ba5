package dev.onceonly.queue;

import dev.onceonly.Bounds;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a {@link Handler} on the messages of one queue with a fixed number of threads.
 *
 * <p>One claiming thread takes due messages under a lease, several in one transaction when there is
 * a backlog (up to the handler threads plus {@link Builder#prefetch}), and hands them to the
 * handler threads; each runs the handler and hands the job's acknowledgement (with the work of
 * {@link Job#completeLater}, if any) to a completing thread (one per four handler threads), which
 * commits all that are waiting in one transaction ({@link JobQueue#completeAll}). A lone message on
 * an idle queue is claimed, handled and acknowledged at once. A handler exception becomes a retry
 * with backoff ({@link JobQueue#nack}), or a dead letter at once for input no retry can fix ({@link
 * dev.onceonly.InvalidRequestException}, {@link dev.onceonly.CanonicalizationException}, {@link
 * dev.onceonly.ConflictException}). While a job is held (waiting for a thread or being handled) its
 * lease is renewed every third of the lease time; if renewal finds the lease lost, the job is
 * cancelled. An idle worker polls with exponential backoff and wakes at once when a message is sent
 * through the same {@code OnceOnly} instance (a hint: a send inside a caller's transaction is found
 * by the next poll after it commits). A worker whose queue is paused ({@link JobQueue#pause})
 * claims nothing and reads the pause again every {@link Builder#pauseCheck} until it is resumed.
 *
 * <p>A worker built with {@link #batchBuilder} gives the claimed jobs to a {@link BatchHandler}
 * instead, many at once in one transaction with their acknowledgements ({@link
 * JobQueue#completeBatch}); a batch that fails commits nothing and its jobs are run again alone.
 *
 * <p>{@link #close()} shuts down gracefully: no new claims, claimed jobs no thread has started are
 * released for immediate redelivery, in-flight handlers get the shutdown deadline to finish; after
 * it they are cancelled and their messages released for immediate redelivery. A store failure while
 * recording a job's outcome never ends a worker thread: what could not be recorded is logged at
 * {@code WARNING} with the message's key, and the message is delivered again once its lease runs
 * out. Thread-safe.
 */
public final class Worker implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());
  private static final AtomicInteger WORKERS = new AtomicInteger();

  private final JobQueue queue;
  private final String queueName;
  private final Handler handler;
  private final BatchHandler batchHandler;
  private final int maxBatch;
  private final int threads;

  /** The jobs the threads can take at once: one each, or a batch each. */
  private final int slots;

  private final PollLog polls;
  private final Duration lease;
  private final Duration idleMin;
  private final Duration idleMax;
  private final Duration shutdownTimeout;
  private final Prefetch prefetch;
  private final Duration executionTimeout;

  /** Every job claimed and not yet settled: waiting in {@link #ready} or being handled. */
  private final Set<Job> inFlight = ConcurrentHashMap.newKeySet();

  /** Claimed jobs waiting for a handler thread, then one {@link #STOP} per thread at close. */
  private final BlockingQueue<Slot> ready = new LinkedBlockingQueue<>();

  /** Handled jobs waiting for their batched acknowledgement, then one {@link #STOP} at close. */
  private final BlockingQueue<Slot> finishing = new LinkedBlockingQueue<>();

  private final Semaphore wakeups = new Semaphore(0);
  private final Semaphore settled = new Semaphore(0);
  private final AtomicInteger handling = new AtomicInteger();

  /** Jobs settled so far, whatever the outcome: the rate the adaptive prefetch follows. */
  private final AtomicLong settledJobs = new AtomicLong();

  private final JobOutcomes outcomes;
  private final RateWaits rateWaits;
  private final PauseWaits pauseWaits;
  private volatile boolean running;
  private final java.util.concurrent.locks.ReentrantLock lifecycle =
      new java.util.concurrent.locks.ReentrantLock(); // not a monitor: close() waits, unpinned
  private final ThreadFactory threadFactory;
  private WorkerThreads workerThreads;
  private AutoCloseable subscription;

  private Worker(Builder b) {
    this.queue = b.queue;
    this.outcomes = new JobOutcomes(b.queue);
    this.queueName = b.queueName;
    this.handler = b.handler;
    this.batchHandler = b.batchHandler;
    this.maxBatch = b.maxBatch;
    this.threads = b.threads;
    this.slots = b.threads * b.maxBatch;
    this.polls = new PollLog(b.queueName);
    this.lease = b.lease;
    this.idleMin = b.idleMin;
    this.idleMax = b.idleMax;
    this.shutdownTimeout = b.shutdownTimeout;
    this.prefetch =
        b.prefetch >= 0
            ? new Prefetch(b.prefetch, b.prefetch)
            : Prefetch.adaptive(Math.min(Prefetch.MAX, 2 * slots));
    this.executionTimeout = b.executionTimeout;
    this.rateWaits = new RateWaits(b.queue, b.queueName, b.idleMax);
    this.threadFactory = b.threadFactory;
    this.pauseWaits = new PauseWaits(b.queue, b.queueName, b.pauseCheck);
  }

  /** A claimed job for a handler thread, or the signal to stop. */
  private record Slot(Job job) {}

  private static final Slot STOP = new Slot(null);

  /**
   * Returns a builder for a worker on one queue.
   *
   * @param queue the job queue
   * @param queueName the queue's name
   * @param handler what to do with each message
   * @return the builder
   */
  public static Builder builder(JobQueue queue, String queueName, Handler handler) {
    return new Builder(queue, queueName, Objects.requireNonNull(handler, "handler"), null, 1);
  }

  /**
   * Returns a builder for a worker that gives the jobs of one queue to a {@link BatchHandler}, up
   * to {@code maxBatch} at once: each handler thread takes the claimed jobs waiting (at least one,
   * at most {@code maxBatch}) and completes them with {@link JobQueue#completeBatch}, so that their
   * acknowledgements and the handler's writes share one commit. If the handler throws, nothing of
   * the batch commits and each of its jobs is run again alone, a batch of one in a transaction of
   * its own, at once: those that succeed alone are acknowledged once, and a job that fails alone is
   * retried with backoff or dead-lettered as a {@link Handler}'s would be, without the others. The
   * worker claims up to {@code threads * maxBatch} jobs plus the prefetch. {@link
   * Builder#executionTimeout} does not apply to batches.
   *
   * @param queue the job queue
   * @param queueName the queue's name
   * @param maxBatch the most jobs given to the handler at once, from 1 to 1,000
   * @param handler what writes the effects of each batch
   * @return the builder
   * @throws IllegalArgumentException if {@code maxBatch} is out of range
   */
  public static Builder batchBuilder(
      JobQueue queue, String queueName, int maxBatch, BatchHandler handler) {
    if (maxBatch < 1 || maxBatch > MAX_BATCH) {
      throw new IllegalArgumentException("maxBatch must be between 1 and 1000");
    }
    return new Builder(
        queue, queueName, null, Objects.requireNonNull(handler, "handler"), maxBatch);
  }

  /** The most jobs of one batch. */
  private static final int MAX_BATCH = 1000;

  /**
   * Runs {@code handler} on one delivery on the calling thread and records its outcome as a worker
   * thread would: the handler's own completion if it made one, a reschedule it asked for, else the
   * acknowledgement (with its {@link Job#completeLater} work) in one transaction; a handler failure
   * becomes a retry with backoff, or a dead letter at once for input no retry can fix. For tests
   * and tools that step through a queue without threads (see {@code dev.onceonly.testing.Drain});
   * no lease is renewed meanwhile.
   *
   * @param queue the job queue the delivery came from
   * @param delivery a delivery just received from it
   * @param handler what to do with the message
   * @return what was recorded: {@link QueueResult.Completed}, {@link QueueResult.Retrying}, {@link
   *     QueueResult.DeadLettered}, {@link QueueResult.Rescheduled} or {@link QueueResult.LeaseLost}
   * @throws dev.onceonly.StoreException if the outcome cannot be recorded; the message is delivered
   *     again once its lease runs out
   */
  public static QueueResult handleOnce(JobQueue queue, Delivery delivery, Handler handler) {
    return JobOutcomes.handleOnce(queue, delivery, handler);
  }

  /**
   * Starts the threads. A worker starts once.
   *
   * @return this worker
   * @throws IllegalStateException if already started
   */
  public Worker start() {
    lifecycle.lock();
    try {
      if (workerThreads != null) {
        throw new IllegalStateException("worker already started");
      }
      running = true;
      String name = "onceonly-worker-" + WORKERS.incrementAndGet() + "-" + queueName;
      subscription = queue.onSend(this::wake);
      long every = Math.max(1, lease.toMillis() / 3);
      renewYoungerThan = TimeUnit.MILLISECONDS.toNanos(every) / 2;
      workerThreads = new WorkerThreads(name, threadFactory);
      workerThreads.start(
          every, this::renewAll, threads, this::run, completers(), this::complete, this::claim);
      return this;
    } finally {
      lifecycle.unlock();
    }
  }

  private void wake(String queue) {
    if (queueName.equals(queue) && wakeups.availablePermits() < threads) {
      wakeups.release();
    }
  }

  /**
   * The claiming loop. It claims when there is room for at least half a prefetch, or when a handler
   * thread has nothing to do and no batch of acknowledgements is about to free more room, so that a
   * backlog is claimed in batches rather than one job per commit while a lone message is claimed at
   * once; and waits for jobs to settle while the worker holds all it may.
   */
  private void claim() {
    long idle = idleMin.toMillis();
    while (running) {
      int ahead = prefetch.at(settledJobs.get(), System.nanoTime());
      int capacity = slots + ahead;
      int batch = Math.max(1, ahead / 2);
      int room = capacity - inFlight.size();
      boolean starving = ready.isEmpty() && finishing.isEmpty() && handling.get() < threads;
      if (room <= 0 || (room < batch && !starving)) {
        if (!await(settled, idleMax.toMillis())) {
          return;
        }
        continue;
      }
      List<Delivery> deliveries;
      try {
        deliveries = queue.receive(queueName, Math.min(room, MAX_CLAIM), lease);
        polls.works();
      } catch (RuntimeException e) {
        polls.failed(e);
        deliveries = List.of();
      }
      if (deliveries.isEmpty()) {
        if (rateWaits.sleptOut(settled, () -> running)
            || pauseWaits.sleptOut(settled, () -> running)) {
          continue; // slept until the rate limit's window has room, or the queue was resumed
        }
        if (!await(wakeups, idle)) {
          return;
        }
        idle = Math.min(idle * 2, idleMax.toMillis());
        continue;
      }
      idle = idleMin.toMillis();
      for (Delivery d : deliveries) {
        Job job = new Job(d, queue);
        inFlight.add(job);
        ready.add(new Slot(job));
      }
    }
  }

  /**
   * How many threads commit acknowledgements: one per four handler threads. On PostgreSQL their
   * transactions run side by side; on SQLite's single writer group commit merges them into one.
   */
  private int completers() {
    return Math.max(1, (threads + 3) / 4);
  }

  /**
   * The most messages one claim takes: as many as {@link JobQueue#receive} allows, so that a batch
   * worker with room for several batches fills them in one statement. Each claim costs a walk of
   * the queue's index past the entries earlier claims left dead (on PostgreSQL until vacuum), so a
   * larger claim pays that walk for more jobs. A worker of single jobs has room for its threads and
   * prefetch only, up to about a hundred with the adaptive prefetch.
   */
  private static final int MAX_CLAIM = 1000;

  /** The most handled jobs one batched completion acknowledges. */
  private static final int MAX_COMPLETE = 100;

  /**
   * The completing loop: acknowledges the handled jobs (with the work {@link Job#completeLater}
   * left) in batches, one transaction for all that are waiting, so that many jobs share a commit
   * while the handler threads go on. Runs until the {@link #STOP} that close sends after the last
   * handler finished.
   */
  private void complete() {
    List<Slot> batch = new ArrayList<>();
    boolean stop = false;
    while (!stop) {
      try {
        batch.add(finishing.take());
      } catch (InterruptedException e) {
        return; // shut down past the deadline: the jobs' leases run out, then redelivery
      }
      finishing.drainTo(batch, MAX_COMPLETE - 1);
      long stops = batch.stream().filter(slot -> slot == STOP).count();
      batch.removeIf(slot -> slot == STOP);
      for (long i = 1; i < stops; i++) {
        finishing.add(STOP); // another completing thread's
      }
      stop = stops > 0;
      if (!batch.isEmpty()) {
        completeAll(batch.stream().map(Slot::job).toList());
      }
      batch.clear();
    }
  }

  private void completeAll(List<Job> jobs) {
    List<QueueResult> results;
    try {
      results =
          queue.completeAll(jobs.stream().map(j -> new Completion(j.lease(), j.later())).toList());
    } catch (RuntimeException e) {
      jobs.forEach(job -> JobOutcomes.warnUnrecorded("acknowledgement", job, e));
      jobs.forEach(inFlight::remove);
      settledJobs.addAndGet(jobs.size());
      settled.release();
      return;
    }
    for (int i = 0; i < jobs.size(); i++) {
      Job job = jobs.get(i);
      if (results.get(i) instanceof QueueResult.WorkFailed failed) {
        outcomes.fail(job, failed.failure());
      } else {
        outcomes.count(results.get(i));
      }
      inFlight.remove(job);
    }
    settledJobs.addAndGet(jobs.size());
    settled.release(); // once for the batch: the claimer takes the room it freed in one claim
  }

  /** Forgets a settled job: its lease is no longer renewed, and its place is free for a claim. */
  private void done(Job job) {
    inFlight.remove(job);
    settledJobs.incrementAndGet();
    settled.release();
  }

  /** A handler thread: takes claimed jobs until told to stop. */
  private void run() {
    while (true) {
      Slot slot;
      try {
        slot = ready.take();
      } catch (InterruptedException e) {
        return; // shut down past the deadline
      }
      if (slot == STOP) {
        return;
      }
      if (batchHandler == null) {
        handle(slot.job());
      } else if (!handleBatch(slot.job())) {
        return;
      }
    }
  }

  /**
   * Gives {@code first} and the claimed jobs waiting after it, up to the batch size, to the batch
   * handler in one transaction; runs each job of a batch that failed again alone. Returns false if
   * it took the {@link #STOP} of this thread while gathering the batch.
   */
  private boolean handleBatch(Job first) {
    List<Job> jobs = new ArrayList<>(maxBatch);
    jobs.add(first);
    boolean stop = false;
    while (jobs.size() < maxBatch) {
      Slot next = ready.poll();
      if (next == null || next == STOP) {
        stop = next == STOP;
        break;
      }
      jobs.add(next.job());
    }
    handling.incrementAndGet();
    try {
      // The transaction holds the messages from its acknowledgements on: no renewal, no release.
      jobs.forEach(Job::handOver);
      List<QueueResult> results = BatchRuns.complete(queue, queueName, batchHandler, jobs);
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) instanceof QueueResult.WorkFailed failed) {
          settleAlone(jobs.get(i), jobs.size() == 1 ? failed : null);
        } else {
          outcomes.count(results.get(i));
        }
      }
    } finally {
      handling.decrementAndGet();
      jobs.forEach(this::done);
    }
    return !stop;
  }

  /**
   * Settles a job of a failed batch: runs it alone unless it already failed alone ({@code failed}),
   * then records a failure alone as a {@link Handler}'s: a retry with backoff, or a dead letter.
   */
  private void settleAlone(Job job, QueueResult.WorkFailed failed) {
    QueueResult alone = failed;
    if (alone == null) {
      List<QueueResult> r = BatchRuns.complete(queue, queueName, batchHandler, List.of(job));
      if (r.isEmpty()) {
        return; // not recorded, logged: delivered again after its lease
      }
      alone = r.get(0);
    }
    if (alone instanceof QueueResult.WorkFailed f) {
      outcomes.fail(job, f.failure());
    } else {
      outcomes.count(alone);
    }
  }

  /** Waits for a permit of {@code signal} or the time; returns false if interrupted. */
  private static boolean await(Semaphore signal, long millis) {
    try {
      if (signal.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
        signal.drainPermits();
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void handle(Job job) {
    boolean handedOver = false;
    handling.incrementAndGet();
    Deadline deadline = Deadline.start(executionTimeout, workerThreads.timers(), job);
    Events events = queue.events();
    long started = events.enabled() ? System.nanoTime() : 0;
    boolean failed = true;
    try {
      try {
        handler.handle(job);
        failed = false;
      } finally {
        if (started != 0) {
          Delivery d = job.delivery();
          events.publish(
              new OnceOnlyEvent.JobHandled(
                  queueName,
                  d.attempt(),
                  Duration.ofNanos(System.nanoTime() - started),
                  failed,
                  d.traceparent()));
        }
      }
      handedOver = settle(job);
    } catch (Throwable t) {
      if (deadline.passed()) {
        // Interrupted or cancelled at its deadline, whatever it threw then: a failed attempt.
        outcomes.fail(job, new TimeoutException("the handler ran longer than " + executionTimeout));
      } else if (t instanceof CancellationException && job.isCancelled()) {
        outcomes.release(
            job); // the worker cancelled it (shutdown, lost lease): not the handler's failure
      } else {
        outcomes.fail(job, t);
      }
    } finally {
      deadline.end();
      handling.decrementAndGet();
      if (!handedOver) {
        done(job);
      }
      if (running) {
        // A handler may leave its interrupt flag set; that is not a stop, and the next idle wait
        // would take it for one. close() clears running before it interrupts, so its interrupt
        // is never cleared here.
        Thread.interrupted();
      }
    }
  }

  /**
   * Records what the handler asked for once it returned: its answer if it completed the job itself,
   * a reschedule, or else an acknowledgement (with the work it left) handed to the batched
   * completion. Returns whether the job was handed over.
   */
  private boolean settle(Job job) {
    QueueResult r = job.result();
    if (r != null) {
      outcomes.count(r);
      return false;
    }
    Instant at = job.requestedRetry();
    if (at != null && job.later() == null) {
      outcomes.count(queue.reschedule(job.lease(), at));
      return false;
    }
    job.handOver();
    finishing.add(new Slot(job));
    return true;
  }

  /**
   * A lease taken or renewed less than this long ago (half the renewal period) is left to the next
   * renewal: it is then renewed at most one and a half periods into its three, and the jobs a claim
   * took just before a renewal (up to a hundred, with the adaptive prefetch) cost no statement.
   */
  private long renewYoungerThan;

  private void renewAll() {
    long now = System.nanoTime();
    for (Job job : inFlight) {
      if (now - job.leasedAt() < renewYoungerThan) {
        continue;
      }
      if (job.isCompleting() || job.isHandedOver() || job.result() != null) {
        // Its completion holds the message (SQLite: the write lock; PostgreSQL: the row lock)
        // until it commits or rolls back, inside a caller's transaction until that one ends; a
        // renewal would wait for it, and every other job's renewal behind it. A job already
        // completed has no lease left to renew.
        continue;
      }
      try {
        QueueResult r = queue.renew(job.lease(), lease);
        if (r instanceof QueueResult.Renewed renewed) {
          job.renewed(renewed.lease());
        } else {
          job.cancel("lease lost");
        }
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING, "cannot renew the lease of " + job.delivery().key(), e);
      }
    }
  }

  /** {@return how many messages this worker acknowledged} */
  public long completed() {
    return outcomes.completed();
  }

  /** {@return how many failed attempts were scheduled for retry} */
  public long retried() {
    return outcomes.retried();
  }

  /** {@return how many messages were dead-lettered} */
  public long deadLettered() {
    return outcomes.deadLettered();
  }

  /** {@return how many acknowledgements found the lease taken over} */
  public long leasesLost() {
    return outcomes.leasesLost();
  }

  /**
   * Stops claiming, waits up to the shutdown timeout for in-flight handlers, then cancels the rest
   * and releases their messages for redelivery.
   */
  @Override
  public void close() {
    lifecycle.lock();
    try {
      if (workerThreads == null || !running) {
        return;
      }
      running = false;
      wakeups.release();
      settled.release();
      workerThreads.shutdown(
          shutdownTimeout,
          this::releaseUnstarted,
          () -> {
            List<Job> handling = inFlight.stream().filter(j -> !j.isHandedOver()).toList();
            handling.forEach(job -> job.cancel("worker shutting down"));
            handling.forEach(outcomes::release);
          },
          () -> {
            for (int i = 0; i < completers(); i++) {
              finishing.add(STOP); // after every handler: the last acknowledgements first
            }
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(subscription);
      lifecycle.unlock();
    }
  }

  /**
   * Releases the claimed jobs no thread has started, for immediate redelivery, and tells every
   * handler thread to stop after its current job.
   */
  private void releaseUnstarted() {
    List<Slot> unstarted = new ArrayList<>();
    ready.drainTo(unstarted);
    for (Slot slot : unstarted) {
      if (slot != STOP) {
        outcomes.release(slot.job());
        inFlight.remove(slot.job());
      }
    }
    for (int i = 0; i < threads; i++) {
      ready.add(STOP);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.DEBUG, "closing subscription", e);
    }
  }

  /** Configures a {@link Worker}. Not thread-safe. */
  public static final class Builder {
    private final JobQueue queue;
    private final String queueName;
    private final Handler handler;
    private final BatchHandler batchHandler;
    private final int maxBatch;
    private int threads = 1;
    private Duration lease = Duration.ofSeconds(30);
    private Duration idleMin = Duration.ofMillis(10);
    private Duration idleMax = Duration.ofSeconds(1);
    private Duration shutdownTimeout = Duration.ofSeconds(10);
    private Duration pauseCheck = Duration.ofSeconds(1);
    private int prefetch = -1;
    private Duration executionTimeout;
    private ThreadFactory threadFactory;

    private Builder(
        JobQueue queue, String queueName, Handler handler, BatchHandler batch, int maxBatch) {
      this.queue = Objects.requireNonNull(queue, "queue");
      this.queueName = Objects.requireNonNull(queueName, "queueName");
      this.handler = handler;
      this.batchHandler = batch;
      this.maxBatch = maxBatch;
    }

    /**
     * Sets the number of handler threads. Default 1.
     *
     * @param threads at least 1
     * @return this builder
     */
    public Builder threads(int threads) {
      if (threads <= 0) {
        throw new IllegalArgumentException("threads must be > 0");
      }
      this.threads = threads;
      return this;
    }

    /**
     * Sets where the handler threads come from: {@code Thread.ofVirtual().name("sms-",
     * 0).factory()} on Java 21 runs each handler on a virtual thread, an application's factory
     * gives them its names and settings. The worker asks it for {@link #threads} threads at the
     * start and keeps them to the close (each loops over the claimed jobs), so {@code threads} is
     * still how many handlers run at once; with virtual threads it can be large (a thousand
     * handlers waiting on a slow provider cost a thousand small stacks, not a thousand platform
     * threads). A factory, not an executor: the worker must own its threads' lifetime, to interrupt
     * a handler past its execution timeout, to cancel the late ones at close and to know none is
     * left after it. The claiming, completing and renewing threads remain the worker's own daemon
     * threads. Default: daemon platform threads named {@code onceonly-worker-<n>-<queue>-<i>}.
     *
     * @param threadFactory gives each handler thread; not null
     * @return this builder
     */
    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /**
     * Sets the lease of each claim, renewed every third of it while the handler runs. Default 30
     * seconds.
     *
     * @param lease positive, at most 100 years
     * @return this builder
     */
    public Builder lease(Duration lease) {
      this.lease = Bounds.positive(lease, "lease");
      return this;
    }

    /**
     * Sets the shortest and longest wait between polls of an empty queue. Default 10 ms to 1 s.
     *
     * @param min positive, at most 100 years
     * @param max at least {@code min}
     * @return this builder
     */
    public Builder idleBackoff(Duration min, Duration max) {
      Bounds.positive(min, "min");
      Bounds.positive(max, "max");
      if (max.compareTo(min) < 0) {
        throw new IllegalArgumentException("max must be >= min");
      }
      this.idleMin = min;
      this.idleMax = max;
      return this;
    }

    /**
     * Sets how often a worker whose queue is paused ({@link JobQueue#pause}) reads whether it was
     * resumed, claiming nothing meanwhile; a resume is noticed within this time. Default 1 second.
     *
     * @param interval positive, at most 100 years
     * @return this builder
     */
    public Builder pauseCheck(Duration interval) {
      this.pauseCheck = Bounds.positive(interval, "pauseCheck");
      return this;
    }

    /**
     * Sets how long {@link Worker#close()} waits for in-flight handlers. Default 10 seconds.
     *
     * @param timeout positive, at most 100 years
     * @return this builder
     */
    public Builder shutdownTimeout(Duration timeout) {
      this.shutdownTimeout = Bounds.positive(timeout, "shutdownTimeout");
      return this;
    }

    /**
     * Sets how many claimed jobs may wait for a handler thread, beyond one per thread. With a
     * backlog the worker claims up to {@code threads + prefetch} jobs in one transaction instead of
     * one per commit; jobs waiting hold their leases (renewed like running ones) and are released
     * at {@link Worker#close()}. {@code 0} claims only for idle threads, leaving the rest of a
     * backlog to other workers. Default: adaptive, from twice the number of threads up to 100 (or
     * twice the threads if that is more): the jobs the worker's threads settle in 50 ms at the rate
     * it measured over the last tenths of a second. Fast jobs are then claimed, and with {@link
     * Job#completeLater} acknowledged, many to a transaction, while a claimed job waits for a
     * thread about 50 ms at most; slow jobs are claimed a few at a time, the rest of a backlog left
     * to other workers. Setting a prefetch fixes it. Every claimed job's payload is in memory until
     * it is settled: with inline payloads near the canonicalizer's limit (1 MiB by default), set a
     * prefetch, or send the bodies with {@link JobQueue#sendLarge}, which are read only when the
     * handler asks.
     *
     * @param prefetch between 0 and 1,000
     * @return this builder
     */
    public Builder prefetch(int prefetch) {
      if (prefetch < 0 || prefetch > Prefetch.MAX) {
        throw new IllegalArgumentException("prefetch must be between 0 and 1000");
      }
      this.prefetch = prefetch;
      return this;
    }

    /**
     * Sets the longest a handler may run on one job. At the deadline the job is cancelled ({@link
     * Job#isCancelled()}) and the handler's thread interrupted; whatever the handler then throws,
     * the attempt counts as failed and the message is retried with the queue's {@link RetryPolicy}
     * (dead-lettered once its attempts are spent), its error a {@link
     * java.util.concurrent.TimeoutException}. A handler that ignores both and returns is settled as
     * it asked; a completion already committing is never interrupted. Measured on the JVM's clock,
     * not the store's. Default: none.
     *
     * @param timeout positive, at most 100 years
     * @return this builder
     */
    public Builder executionTimeout(Duration timeout) {
      this.executionTimeout = Bounds.positive(timeout, "executionTimeout");
      return this;
    }

    /**
     * {@return the worker, not yet started}
     *
     * @throws IllegalStateException if an execution timeout was set for a batch handler
     */
    public Worker build() {
      if (batchHandler != null && executionTimeout != null) {
        throw new IllegalStateException("executionTimeout does not apply to a batch handler");
      }
      return new Worker(this);
    }
  }
}
