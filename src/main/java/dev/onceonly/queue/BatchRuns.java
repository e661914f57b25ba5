package dev.onceonly.queue;

import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import java.time.Duration;
import java.util.List;

/** How a {@link Worker} built with {@link Worker#batchBuilder} completes one batch of jobs. */
final class BatchRuns {
  private BatchRuns() {}

  /**
   * Completes jobs with the batch handler in one transaction and publishes each job's handling. A
   * store failure is logged, and the jobs are delivered again after their leases: no job is
   * acknowledged.
   */
  static List<QueueResult> complete(
      JobQueue queue, String queueName, BatchHandler handler, List<Job> jobs) {
    Events events = queue.events();
    long started = events.enabled() ? System.nanoTime() : 0;
    List<QueueResult> results;
    try {
      results = queue.completeBatch(jobs.stream().map(Job::delivery).toList(), handler);
    } catch (RuntimeException e) {
      jobs.forEach(job -> JobOutcomes.warnUnrecorded("batch", job, e));
      return List.of();
    }
    if (started != 0) {
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      for (int i = 0; i < jobs.size(); i++) {
        Delivery d = jobs.get(i).delivery();
        boolean failed = results.get(i) instanceof QueueResult.WorkFailed;
        events.publish(
            new OnceOnlyEvent.JobHandled(queueName, d.attempt(), took, failed, d.traceparent()));
      }
    }
    return results;
  }
}
