package dev.onceonly.queue;

import dev.onceonly.Bounds;
import java.time.Duration;
import java.util.Optional;

/**
 * How long a message key stays taken in a queue, declared per queue with {@code
 * OnceOnlyBuilder.uniqueness}. A send of a taken key answers {@link SendResult.Status#REPEATED}
 * (same payload) or {@link SendResult.Status#CONFLICT} (another) and writes nothing.
 *
 * <p>Always taken while a message with the key waits or is in flight ({@link #whileQueued()}, the
 * default). {@link #forPeriod} keeps it taken for a period after the send that took it, whatever
 * became of that message since: a report requested twice within the hour runs once. {@link
 * #includingDeadLetters()} keeps it taken while a dead letter with the key is kept, until it is
 * requeued or purged: a poison message is not sent again behind the operator's back.
 *
 * @param period how long after a send its key stays taken, if declared
 * @param deadLetters whether a dead letter keeps its key taken
 */
public record Uniqueness(Optional<Duration> period, boolean deadLetters) {
  /**
   * Checks the period.
   *
   * @param period how long after a send its key stays taken, positive if present
   * @param deadLetters whether a dead letter keeps its key taken
   */
  public Uniqueness {
    period.ifPresent(p -> Bounds.positive(p, "period"));
  }

  /** {@return the default: a key is taken while its message waits or is in flight} */
  public static Uniqueness whileQueued() {
    return new Uniqueness(Optional.empty(), false);
  }

  /**
   * Keeps a key taken for {@code period} after the send that took it, and while its message waits
   * or is in flight.
   *
   * @param period positive
   * @return the uniqueness
   */
  public static Uniqueness forPeriod(Duration period) {
    return new Uniqueness(Optional.of(period), false);
  }

  /** {@return this uniqueness, also keeping a key taken while a dead letter with it is kept} */
  public Uniqueness includingDeadLetters() {
    return new Uniqueness(period, true);
  }
}
