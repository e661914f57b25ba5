package dev.onceonly.queue;

import dev.onceonly.OnceOnlyException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A message could not be sent: its key is queued (waiting or in flight) with other content, {@link
 * SendResult.Status#CONFLICT}. Thrown by {@link JobQueue#ackAndSend}, which then acknowledged
 * nothing and sent nothing (the lease still holds), and by {@link SendResult#orThrow()}, which
 * inside {@link JobQueue#complete} rolls the whole step back. A step whose next message cannot be
 * queued must not be acknowledged as done, or the next step would be lost without a trace.
 *
 * <p>A {@link Worker} whose handler throws it retries the message with backoff, like any other
 * failure, and dead-letters it when the retry policy says so: the key may be freed meanwhile (the
 * other message acknowledged), and if it is not, the dead letter keeps the step for an operator.
 */
public final class SendConflictException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** The refused sends. */
  private final transient List<SendResult> conflicts;

  /**
   * Creates the exception.
   *
   * @param conflicts the refused sends, at least one, each {@link SendResult.Status#CONFLICT}
   * @throws IllegalArgumentException if {@code conflicts} is empty or holds another status
   */
  public SendConflictException(List<SendResult> conflicts) {
    super(describe(conflicts), null);
    this.conflicts = List.copyOf(conflicts);
  }

  private static String describe(List<SendResult> conflicts) {
    if (conflicts.isEmpty()) {
      throw new IllegalArgumentException("conflicts must not be empty");
    }
    if (conflicts.stream().anyMatch(r -> r.status() != SendResult.Status.CONFLICT)) {
      throw new IllegalArgumentException("conflicts must all be CONFLICT");
    }
    return conflicts.stream()
            .map(r -> r.queue() + "/" + r.key())
            .collect(
                Collectors.joining(", ", "message key already queued with other content: ", ""))
        + "; nothing of the step was written";
  }

  /** {@return the refused sends, each {@link SendResult.Status#CONFLICT}} */
  public List<SendResult> conflicts() {
    return conflicts;
  }
}
