package dev.onceonly.cli.demo;

import dev.onceonly.IntentPublisher;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * How the demo's report jobs travel from the producer to the workers: the seam where another
 * transport (Redis Streams) replaces the SQL job queue. The receipts, intents and rejections stay
 * in the store whatever the transport.
 */
public interface Transport {
  /**
   * Describes the transport for the demo's output.
   *
   * @return for example "the SQL job queue"
   */
  String describe();

  /**
   * Publishes a job's intent message.
   *
   * @param job the job
   * @return {@code SENT}, or {@code REPEATED} when the transport already holds its message
   */
  SendResult publish(ReportJob job);

  /**
   * Publishes messages as they are, hostile ones included, each under its own key.
   *
   * @param messages the messages
   */
  void inject(List<Message> messages);

  /**
   * Takes one delivery and runs {@code step} on it, the receipts step of a worker that crashes
   * inside its effect: the step throws, its transaction rolls back, and the delivery is never
   * acknowledged, so it comes back to another worker after {@code lease}.
   *
   * @param lease how long until the abandoned delivery comes back
   * @param step the receipts step; the exception it throws propagates
   * @return what the step answered when it did not crash (the job was already done), or an empty
   *     string when there was nothing to take
   * @throws SQLException if the store fails
   */
  String crashOne(Duration lease, Step step) throws SQLException;

  /** A worker's receipts step for one message. */
  @FunctionalInterface
  interface Step {
    /**
     * Runs the step.
     *
     * @param transaction the transport's open transaction to join (the acknowledgement commits with
     *     it), or null for a transport whose acknowledgement is not in the database: the step then
     *     runs in a transaction of its own
     * @param message the delivered intent
     * @return what happened, for the demo's output
     * @throws SQLException if the store fails
     */
    String run(Connection transaction, IntentMessage message) throws SQLException;
  }

  /**
   * Starts workers that process every message with the report workshop's receiver.
   *
   * @param count how many workers
   * @param lease how long a delivery may stay unacknowledged before it is taken over
   * @param progress the progress listener of each worker, by worker name
   * @return what stops them
   */
  Workers startWorkers(int count, Duration lease, Function<String, Progress> progress);

  /** Told about each delivery a worker settled, on the worker's thread. */
  @FunctionalInterface
  interface Progress {
    /**
     * A delivery was settled.
     *
     * @param message what was delivered, for example {@code workshop/batch-000}
     * @param attempt how often it was delivered, 1 for the first time
     * @param result what became of it
     */
    void finished(String message, int attempt, ReportHandler.Result result);
  }

  /** Running workers; closing stops them gracefully. */
  @FunctionalInterface
  interface Workers extends AutoCloseable {
    /** Stops the workers, letting the deliveries in flight finish. */
    @Override
    void close();
  }

  /**
   * Counts the messages not yet settled: waiting, delivered or abandoned.
   *
   * @return how many
   */
  long unsettled();

  /**
   * Counts what the transport keeps outside the store's tables and the summary must count as
   * pending: messages not settled and dead letters. The SQL job queue keeps both in the store,
   * where the summary counts their rows, so it answers 0.
   *
   * @return how many
   */
  long pendingOutsideStore();

  /**
   * Returns the publisher the reconciler hands pending intents to.
   *
   * @return the publisher
   */
  IntentPublisher publisher();
}
