package dev.onceonly.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean implementing {@link dev.onceonly.queue.Handler} (or, with {@link #batch()}, {@link
 * dev.onceonly.queue.BatchHandler}) as the handler of one queue: a {@link
 * dev.onceonly.queue.Worker} runs it, started once the context is refreshed and closed gracefully
 * when it closes ({@link OnceOnlyWorkers}).
 *
 * <p>The handler may be {@code @Transactional}: then whatever it writes through Spring (a {@code
 * JdbcTemplate}, a repository) is in one transaction with what it does through OnceOnly, and {@link
 * dev.onceonly.queue.Job#completeWith} inside it acknowledges the message in that same transaction:
 * the handler's writes and the acknowledgement commit together, or neither does and the message is
 * delivered again. Without {@code completeWith} the worker acknowledges after the handler returned,
 * in a transaction of its own, so a crash in between delivers the message again after the handler's
 * writes committed: make them idempotent with a receipts step.
 *
 * <p>A bean implementing {@link dev.onceonly.workflow.StepHandler} runs the steps (and
 * compensations) of workflows: one worker per queue named in {@link #queues()} (or {@link
 * #queue()}), each running {@code once.workflows().handler(bean)}. With one transaction manager in
 * the context, each delivery runs in a Spring transaction ({@code REQUIRED}) that the step's
 * completion joins, so what the step writes through Spring (a {@code JdbcTemplate}, a repository)
 * commits with the step's stored result and its acknowledgement, or not at all.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface OnceOnlyHandler {
  /**
   * The queue to handle.
   *
   * @return the queue's name
   */
  String queue() default "";

  /**
   * The queues to handle, a worker each with the same settings: for a {@link
   * dev.onceonly.workflow.StepHandler} that serves several queues of a workflow. Give either this
   * or {@link #queue()}.
   *
   * @return the queues' names, or empty for {@link #queue()}
   */
  String[] queues() default {};

  /**
   * The number of handler threads.
   *
   * @return at least 1; default 1
   */
  int threads() default 1;

  /**
   * The lease of each claim, as a Spring Boot duration ({@code 30s}, {@code PT1M}); empty for
   * {@code onceonly.workers.lease}.
   *
   * @return the lease, or empty
   */
  String lease() default "";

  /**
   * How long closing the context waits for handlers in flight before cancelling them and releasing
   * their messages, as a duration; empty for {@code onceonly.workers.shutdown-timeout}.
   *
   * @return the timeout, or empty
   */
  String shutdownTimeout() default "";

  /**
   * How many claimed jobs may wait for a handler thread beyond one per thread ({@link
   * dev.onceonly.queue.Worker.Builder#prefetch}); {@code -1}, the default, for the adaptive
   * prefetch that follows the worker's rate, {@code 0} to claim only for idle threads.
   *
   * @return -1, or between 0 and 1,000
   */
  int prefetch() default -1;

  /**
   * The longest a handler may run on one job, as a duration ({@link
   * dev.onceonly.queue.Worker.Builder#executionTimeout}); empty, the default, for none.
   *
   * @return the timeout, or empty
   */
  String executionTimeout() default "";

  /**
   * The most jobs given at once to a bean implementing {@link dev.onceonly.queue.BatchHandler}
   * ({@link dev.onceonly.queue.Worker#batchBuilder}); {@code 0}, the default, for a bean
   * implementing {@link dev.onceonly.queue.Handler}. A batch handler writes through the connection
   * it is given, in the transaction that acknowledges its jobs; the {@link
   * OnceOnlyHandlerDecorator}s wrap only {@code Handler} beans, and {@link #executionTimeout()}
   * does not apply to batches.
   *
   * @return 0, or between 1 and 1,000
   */
  int batch() default 0;

  /**
   * The most messages of the queue (each of {@link #queues()}) leased at once, over every instance
   * on the database ({@code OnceOnlyBuilder.concurrencyLimit}); {@code 0}, the default, for none
   * declared here. Like every limit below it is the queue's, declared on the auto-configured store
   * before it is built, and may instead be declared as {@code
   * onceonly.queues.<name>.concurrency-limit}; declared in both places with different values, the
   * start is refused.
   *
   * @return 0, or between 1 and 100,000
   */
  int concurrencyLimit() default 0;

  /**
   * The most messages of one partition of the queue leased at once ({@code
   * OnceOnlyBuilder.concurrencyLimitPerPartition}); {@code 0}, the default, for none declared here.
   *
   * @return 0, or between 1 and 100,000
   */
  int concurrencyLimitPerPartition() default 0;

  /**
   * The most messages of the queue claimed per sliding window, over every instance on the database
   * ({@code OnceOnlyBuilder.rateLimit}), spelled {@code claims/window} with the window a Spring
   * Boot duration: {@code "100/1m"}, {@code "5/500ms"}; empty, the default, for none declared here.
   * Or {@code onceonly.queues.<name>.rate-limit}.
   *
   * @return the limit, or empty
   */
  String rateLimit() default "";

  /**
   * The most messages of one partition of the queue claimed per sliding window ({@code
   * OnceOnlyBuilder.rateLimitPerPartition}), spelled as {@link #rateLimit()}; empty, the default,
   * for none declared here.
   *
   * @return the limit, or empty
   */
  String rateLimitPerPartition() default "";
}
