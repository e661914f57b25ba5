package dev.onceonly.queue;

import dev.onceonly.CanonicalizationException;
import dev.onceonly.ConflictException;
import dev.onceonly.InvalidRequestException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link Worker} records when a job ends otherwise than as its handler asked (it threw, was
 * cancelled, or its outcome could not be stored), and the counts of the outcomes recorded.
 * Thread-safe.
 */
final class JobOutcomes {
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  private final JobQueue queue;
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong leasesLost = new AtomicLong();

  JobOutcomes(JobQueue queue) {
    this.queue = queue;
  }

  /** Runs a handler on one delivery on the calling thread: {@link Worker#handleOnce}. */
  static QueueResult handleOnce(JobQueue queue, Delivery delivery, Handler handler) {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(handler, "handler");
    Job job = new Job(delivery, queue);
    try {
      handler.handle(job);
    } catch (Throwable t) {
      if (job.result() == null) {
        return JobOutcomes.failed(queue, job, t);
      }
      QueueResult r = JobOutcomes.failed(queue, job, t); // a completion rolled back keeps its lease
      return r instanceof QueueResult.LeaseLost ? job.result() : r;
    }
    if (job.result() != null) {
      return job.result();
    }
    Instant at = job.requestedRetry();
    if (at != null && job.later() == null) {
      return queue.reschedule(job.lease(), at);
    }
    QueueResult r = queue.completeAll(List.of(new Completion(job.lease(), job.later()))).get(0);
    return r instanceof QueueResult.WorkFailed f ? JobOutcomes.failed(queue, job, f.failure()) : r;
  }

  /**
   * Records a failed attempt: a dead letter for input no retry can fix, else a retry with the
   * queue's policy (or a dead letter once it is exhausted). Fenced by the job's lease: a message
   * that is no longer ours answers {@link QueueResult.LeaseLost} and nothing changes.
   */
  static QueueResult failed(JobQueue queue, Job job, Throwable t) {
    return permanent(t) ? queue.deadLetter(job.lease(), t) : queue.nack(job.lease(), t);
  }

  /**
   * Records that the handler threw. A job it completed before throwing is settled by the fenced
   * failure as well: when the completion committed (in a transaction of its own), the message is
   * gone and the failure finds no lease (the completion stands); when it joined the handler's
   * transaction (a {@code @Transactional} handler whose commit then failed, or which the exception
   * rolled back), the message is still leased to this worker, and the failure is recorded, with its
   * error, and retried at once by the queue's policy instead of waiting for the lease to end.
   */
  void fail(Job job, Throwable t) {
    QueueResult done = job.result();
    QueueResult r;
    try {
      r = failed(queue, job, t);
    } catch (RuntimeException e) {
      e.addSuppressed(t);
      warnUnrecorded("failure", job, e);
      return;
    }
    if (done != null && r instanceof QueueResult.LeaseLost) {
      count(done);
      if (!(done instanceof QueueResult.Completed)) {
        return;
      }
      LOG.log(
          System.Logger.Level.WARNING,
          "the handler of "
              + job.delivery().key()
              + " threw after completing it; it stays completed",
          t);
      return;
    }
    if (done instanceof QueueResult.Completed) {
      LOG.log(
          System.Logger.Level.WARNING,
          "the completion of "
              + job.delivery().key()
              + " was rolled back with the handler's transaction; recorded as a failed attempt",
          t);
    }
    count(r);
  }

  private static boolean permanent(Throwable t) {
    return t instanceof InvalidRequestException
        || t instanceof CanonicalizationException
        || t instanceof ConflictException;
  }

  /**
   * Makes a cancelled job's message due at once. A store failure here loses nothing (the lease runs
   * out and the message is delivered again), so it is logged and never ends the calling thread: a
   * polling thread, or {@link Worker#close()} releasing the others.
   */
  void release(Job job) {
    if (job.result() != null) {
      return;
    }
    try {
      count(queue.reschedule(job.lease(), Instant.EPOCH)); // due at once, attempt not counted
    } catch (RuntimeException e) {
      warnUnrecorded("release", job, e);
    }
  }

  /** Logs that the outcome of a job could not be stored; the lease expiring will redeliver it. */
  static void warnUnrecorded(String what, Job job, RuntimeException e) {
    LOG.log(
        System.Logger.Level.WARNING,
        "cannot record "
            + what
            + " of "
            + job.delivery().key()
            + "; delivered again after its lease",
        e);
  }

  void count(QueueResult r) {
    if (r instanceof QueueResult.Completed) {
      completed.incrementAndGet();
    } else if (r instanceof QueueResult.Retrying) {
      retried.incrementAndGet();
    } else if (r instanceof QueueResult.DeadLettered) {
      deadLettered.incrementAndGet();
    } else if (r instanceof QueueResult.LeaseLost) {
      leasesLost.incrementAndGet();
    }
  }

  long completed() {
    return completed.get();
  }

  long retried() {
    return retried.get();
  }

  long deadLettered() {
    return deadLettered.get();
  }

  long leasesLost() {
    return leasesLost.get();
  }
}
