package dev.onceonly.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * A worker's temporary hold on one delivered message. Every claim of a message increments its
 * fencing number, so a holder whose lease was taken over (it stalled past {@code expiresAt} and
 * another worker claimed the message) can no longer acknowledge, renew or retry it. Giving the
 * message back ({@link JobQueue#nack}, {@link JobQueue#reschedule}) also ends the lease, so that a
 * late renewal cannot move the retry time and a holder cannot act on what it gave back.
 *
 * <p>Elsewhere a lease that ran out still holds until another claim takes the message. On a queue
 * with a concurrency limit (per queue or per partition) it does not: its room went back to the
 * limit when it ran out and another claim may hold it now, so past {@code expiresAt} (on the
 * store's clock) {@link JobQueue#renew}, {@link JobQueue#ack} and the completions answer {@link
 * QueueResult.LeaseLost}, and the message waits to be claimed again.
 *
 * @param queue the queue
 * @param key the message's key
 * @param messageId the message's row id
 * @param fence the fencing number of this claim
 * @param expiresAt when the message becomes due again unless acknowledged or renewed
 */
public record Lease(String queue, String key, long messageId, long fence, Instant expiresAt) {
  /**
   * Refuses nulls.
   *
   * @param queue the queue
   * @param key the message's key
   * @param messageId the message's row id
   * @param fence the fencing number of this claim
   * @param expiresAt when the message becomes due again unless acknowledged or renewed
   */
  public Lease {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }
}
