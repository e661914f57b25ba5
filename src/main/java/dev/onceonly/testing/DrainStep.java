package dev.onceonly.testing;

import dev.onceonly.queue.QueueResult;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link Drain} did with one delivery.
 *
 * @param queue the queue's name
 * @param key the message's key
 * @param messageId the message's id in the queue table
 * @param attempt which delivery of the message this was, from 1
 * @param result what was recorded: {@link QueueResult.Completed}, {@link QueueResult.Retrying}
 *     (with the next due time), {@link QueueResult.DeadLettered}, {@link QueueResult.Rescheduled}
 *     or {@link QueueResult.LeaseLost}
 * @param failure what the handler threw, if it threw
 */
public record DrainStep(
    String queue,
    String key,
    long messageId,
    int attempt,
    QueueResult result,
    Optional<Throwable> failure) {
  /**
   * Checks the fields.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param messageId the message's id in the queue table
   * @param attempt which delivery of the message this was, from 1
   * @param result what was recorded: {@link QueueResult.Completed}, {@link QueueResult.Retrying}
   *     (with the next due time), {@link QueueResult.DeadLettered}, {@link QueueResult.Rescheduled}
   *     or {@link QueueResult.LeaseLost}
   * @param failure what the handler threw, if it threw
   */
  public DrainStep {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(failure, "failure");
  }

  /** {@return whether the message was acknowledged} */
  public boolean completed() {
    return result instanceof QueueResult.Completed;
  }

  /** {@return whether the message was scheduled for another attempt after a failure} */
  public boolean retried() {
    return result instanceof QueueResult.Retrying;
  }

  /** {@return whether the message was moved to the dead letters} */
  public boolean deadLettered() {
    return result instanceof QueueResult.DeadLettered;
  }

  /** {@return whether the lease was found taken over when the outcome was recorded} */
  public boolean leaseLost() {
    return result instanceof QueueResult.LeaseLost;
  }
}
