package dev.onceonly.queue;

/**
 * Handles one delivered message for a {@link Worker}. May be called again for the same message
 * (delivery is at least once): make its effects idempotent through the {@link
 * dev.onceonly.ReceiptStore}, ideally inside {@link Job#completeWith}.
 */
@FunctionalInterface
public interface Handler {
  /**
   * Handles the job.
   *
   * @param job the delivery and what may be asked of it
   * @throws Exception to have the message retried with backoff
   */
  void handle(Job job) throws Exception;
}
