package dev.onceonly.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * The answer of an operation on a leased message. {@link LeaseLost} is a normal answer: the worker
 * stalled past its lease and another worker claimed the message, so this holder must not act on it
 * any more.
 */
public sealed interface QueueResult
    permits QueueResult.Completed,
        QueueResult.Retrying,
        QueueResult.DeadLettered,
        QueueResult.Rescheduled,
        QueueResult.Renewed,
        QueueResult.LeaseLost,
        QueueResult.WorkFailed {

  /** {@return the message's key} */
  String key();

  /**
   * The message was acknowledged and removed.
   *
   * @param key the message's key
   */
  record Completed(String key) implements QueueResult {
    /**
     * Refuses nulls.
     *
     * @param key the message's key
     */
    public Completed {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * The message failed and will be delivered again at {@code nextAttemptAt}; nothing sleeps until
   * then.
   *
   * @param key the message's key
   * @param nextAttemptAt when it becomes due again
   * @param attempts how many deliveries it has had
   */
  record Retrying(String key, Instant nextAttemptAt, int attempts) implements QueueResult {
    /**
     * Refuses nulls.
     *
     * @param key the message's key
     * @param nextAttemptAt when it becomes due again
     * @param attempts how many deliveries it has had
     */
    public Retrying {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    }
  }

  /**
   * The message failed for the last allowed time, or its retry budget ran out, and was moved to the
   * dead letters with its last error.
   *
   * @param key the message's key
   * @param attempts how many deliveries it had
   * @param lastError the last failure, bounded
   */
  record DeadLettered(String key, int attempts, String lastError) implements QueueResult {
    /**
     * Refuses a null key.
     *
     * @param key the message's key
     * @param attempts how many deliveries it had
     * @param lastError the last failure, bounded
     */
    public DeadLettered {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * The message was put back to be delivered at {@code deliverAt}, without counting a failure.
   *
   * @param key the message's key
   * @param deliverAt when it becomes due again
   */
  record Rescheduled(String key, Instant deliverAt) implements QueueResult {
    /**
     * Refuses nulls.
     *
     * @param key the message's key
     * @param deliverAt when it becomes due again
     */
    public Rescheduled {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(deliverAt, "deliverAt");
    }
  }

  /**
   * The lease was extended.
   *
   * @param lease the extended lease (same fencing number, later expiry)
   */
  record Renewed(Lease lease) implements QueueResult {
    /**
     * Refuses nulls.
     *
     * @param lease the extended lease (same fencing number, later expiry)
     */
    public Renewed {
      Objects.requireNonNull(lease, "lease");
    }

    @Override
    public String key() {
      return lease.key();
    }
  }

  /**
   * The lease is no longer held: the message was claimed again (its fencing number moved on),
   * acknowledged or dead-lettered, or its holder already gave it back (a retry or a reschedule ends
   * the lease). Nothing was changed.
   *
   * @param key the message's key
   * @param fence the stale fencing number
   */
  record LeaseLost(String key, long fence) implements QueueResult {
    /**
     * Refuses nulls.
     *
     * @param key the message's key
     * @param fence the stale fencing number
     */
    public LeaseLost {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * The work of one completion in {@link JobQueue#completeAll} threw: its savepoint was rolled
   * back, so neither the work nor the acknowledgement committed, and the message stays leased to
   * this holder, to be retried or dead-lettered like a failed handler.
   *
   * @param key the message's key
   * @param failure what the work threw
   */
  record WorkFailed(String key, Exception failure) implements QueueResult {
    /**
     * Refuses nulls.
     *
     * @param key the message's key
     * @param failure what the work threw
     */
    public WorkFailed {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(failure, "failure");
    }
  }

  /**
   * Returns this result unless the lease was lost.
   *
   * @return this result
   * @throws LeaseLostException if this is {@link LeaseLost}
   */
  default QueueResult orThrow() {
    if (this instanceof LeaseLost lost) {
      throw new LeaseLostException(lost.key(), lost.fence());
    }
    return this;
  }
}
