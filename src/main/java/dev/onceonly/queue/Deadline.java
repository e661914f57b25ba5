package dev.onceonly.queue;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The execution timeout of one {@link Worker} handler call: at the deadline the job is cancelled
 * and its thread interrupted, unless the call has ended or the job's completion is committing.
 * Ended under the same lock, so an interrupt never reaches the thread's next job.
 */
final class Deadline {
  private static final Deadline NONE = new Deadline(null, null);

  private final Job job;
  private final Thread thread;
  private ScheduledFuture<?> timer;
  private boolean ended;
  private boolean passed;

  private Deadline(Job job, Thread thread) {
    this.job = job;
    this.thread = thread;
  }

  /**
   * Starts the deadline of {@code job} on the calling thread.
   *
   * @param timeout the execution timeout, or null for none
   * @param timers where the deadline is scheduled
   * @param job the job being handled
   */
  static Deadline start(Duration timeout, ScheduledExecutorService timers, Job job) {
    if (timeout == null) {
      return NONE;
    }
    Deadline d = new Deadline(job, Thread.currentThread());
    synchronized (d) {
      try {
        d.timer = timers.schedule(d::pass, timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        return NONE; // closing past its deadline: the shutdown cancels this job instead
      }
    }
    return d;
  }

  private synchronized void pass() {
    if (ended || job.isCompleting() || job.isHandedOver() || job.result() != null) {
      return;
    }
    passed = true;
    job.cancel("execution timeout");
    thread.interrupt();
  }

  synchronized boolean passed() {
    return passed;
  }

  synchronized void end() {
    ended = true;
    if (timer != null) {
      timer.cancel(false);
    }
  }
}
