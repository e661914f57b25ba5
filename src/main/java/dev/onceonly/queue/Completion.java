package dev.onceonly.queue;

import dev.onceonly.Effect;
import java.util.Objects;

/**
 * One job's part of {@link JobQueue#completeAll}: its lease, and the database work that commits
 * with its acknowledgement, if any.
 *
 * @param lease the lease of the message to acknowledge
 * @param work the work to run after the acknowledgement, in the same transaction; {@code null} to
 *     acknowledge only
 */
public record Completion(Lease lease, Effect<?, ?> work) {
  /**
   * Refuses a missing lease.
   *
   * @param lease the lease of the message to acknowledge
   * @param work the work, or {@code null} to acknowledge only
   */
  public Completion {
    Objects.requireNonNull(lease, "lease");
  }

  /**
   * {@return a completion that only acknowledges}
   *
   * @param lease the lease of the message to acknowledge
   */
  public static Completion ack(Lease lease) {
    return new Completion(lease, null);
  }
}
