package dev.onceonly.queue;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A durable queue of JSON messages on the same database as the receipts.
 *
 * <p>Delivery is at least once: a message stays until it is acknowledged, and comes back when a
 * lease expires. Acknowledgement is fenced: every claim increments the message's fencing number,
 * and a holder whose lease was taken over gets {@link QueueResult.LeaseLost} instead of removing
 * someone else's delivery. Effects that must happen once go through the {@link
 * dev.onceonly.ReceiptStore}, in the same transaction as the acknowledgement where possible (see
 * {@link #ack(Connection, Lease)} and {@link Worker}).
 *
 * <p>A message's key is unique in its queue while the message waits or is in flight: sending the
 * same key again with the same payload is {@link SendResult.Status#REPEATED}, with another payload
 * {@link SendResult.Status#CONFLICT}. Once acknowledged, the key is free again.
 *
 * <p>Thread-safe. Methods without a {@link Connection} run in a transaction of their own.
 */
public interface JobQueue {

  /**
   * Sends a message due now, in a transaction of its own.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param payload the payload (a Jackson tree or any value Jackson converts)
   * @return what happened
   */
  SendResult send(String queue, String key, Object payload);

  /**
   * Sends a message in a transaction of its own.
   *
   * @param message the message
   * @return what happened
   */
  SendResult send(Message message);

  /**
   * Sends several messages in one transaction of its own: all are queued or none.
   *
   * @param messages the messages
   * @return one result per message, in order
   */
  List<SendResult> sendAll(List<Message> messages);

  /**
   * Sends a message inside the caller's open transaction (outbox): the message exists if and only
   * if the caller's transaction commits.
   *
   * <p>A {@link SendResult.Status#CONFLICT} writes nothing and leaves the caller's transaction as
   * it was; whether that is an error is the caller's to decide. Inside {@link #complete}'s work,
   * where it usually means the next step cannot be queued, {@link SendResult#orThrow()} rolls the
   * whole step back.
   *
   * @param transaction the caller's connection, inside a transaction
   * @param message the message
   * @return what happened (durable once the caller commits)
   */
  SendResult send(Connection transaction, Message message);

  /**
   * Sends a message whose large body is stored out of band, in a payload table; the handler reads
   * it with {@link #largePayload(Delivery)}, and it is deleted with the message.
   *
   * @param transaction the caller's connection inside a transaction, or {@code null} for a
   *     transaction of its own
   * @param message the message; its payload should be small (a description, a checksum)
   * @param body the large body
   * @return what happened
   */
  SendResult sendLarge(Connection transaction, Message message, byte[] body);

  /**
   * Claims up to {@code max} due messages of a queue, oldest due first, each under a new lease.
   * Messages past their last allowed attempt are moved to the dead letters instead.
   *
   * @param queue the queue's name
   * @param max the most messages to claim, from 1 to 1,000
   * @param lease how long each lease lasts: positive, at most 100 years
   * @return the deliveries, possibly none
   */
  List<Delivery> receive(String queue, int max, Duration lease);

  /**
   * Extends a lease, for work that takes longer than planned. On a queue with a concurrency limit,
   * a lease that ran out cannot be renewed (see {@link Lease}).
   *
   * @param lease the current lease
   * @param extension how long from now the lease should last: positive, at most 100 years
   * @return {@link QueueResult.Renewed} with the new lease, or {@link QueueResult.LeaseLost}
   */
  QueueResult renew(Lease lease, Duration extension);

  /**
   * Acknowledges (removes) a message if the lease still holds.
   *
   * @param lease the lease
   * @return {@link QueueResult.Completed} or {@link QueueResult.LeaseLost}
   */
  QueueResult ack(Lease lease);

  /**
   * Acknowledges a message inside the caller's transaction, so that the acknowledgement commits
   * together with the caller's effect and receipt.
   *
   * @param transaction the caller's connection inside a transaction
   * @param lease the lease
   * @return {@link QueueResult.Completed} or {@link QueueResult.LeaseLost}
   */
  QueueResult ack(Connection transaction, Lease lease);

  /**
   * Acknowledges the message and runs {@code work} in one transaction, so that the work's writes
   * (typically a {@link dev.onceonly.ReceiptStore} step joined with {@code execute(tx, ...)}) and
   * the acknowledgement commit together or not at all.
   *
   * <p>The fenced acknowledgement comes first, and the work runs only if it succeeded: the work of
   * a holder whose lease was taken over never runs, let alone commits. While the work runs, no one
   * can claim the message, even if its lease runs out meanwhile (SQLite holds the write lock; on
   * PostgreSQL the acknowledgement holds the message's row lock, which claims skip). Since the
   * message is already removed when the work runs, the work may send a message under the same key,
   * such as the next step of a checkpointed job.
   *
   * <p>The work's sends answer for themselves: a {@code send(tx, ...)} that is {@link
   * SendResult.Status#CONFLICT} writes nothing and does not stop the step from committing. Call
   * {@link SendResult#orThrow()} on it to roll the step back instead.
   *
   * @param lease the lease
   * @param work the database work; it receives the transaction's connection
   * @param <X> the work's exception type
   * @return {@link QueueResult.Completed}, or {@link QueueResult.LeaseLost} (the work did not run,
   *     nothing was changed)
   * @throws X what the work threw; nothing was committed (not the acknowledgement either) and the
   *     message stays leased
   */
  <X extends Exception> QueueResult complete(Lease lease, dev.onceonly.Effect<?, X> work) throws X;

  /**
   * Completes many jobs in one transaction, so that their acknowledgements and their work share one
   * commit. Each completion runs as {@link #complete} would: its fenced acknowledgement first, then
   * its work only if that succeeded. The acknowledgements of the batch come first, together (on
   * PostgreSQL in one statement, so that a batch costs one round trip for them all), then the works
   * in order; each acknowledged message stays locked until the commit, so a work runs with every
   * acknowledgement of the batch held and every acknowledged message gone (its key free for the
   * work's sends, as with {@link #complete}). A completion whose lease was lost changes nothing
   * ({@link QueueResult.LeaseLost}); one whose work throws is left out ({@link
   * QueueResult.WorkFailed}: neither its work nor its acknowledgement commits, and the message
   * stays leased) and the others commit together: the transaction is rolled back and run again
   * without it, so the other works may run more than once, and must use only the connection they
   * are given. Nothing is committed if the transaction itself fails, which is thrown.
   *
   * @param completions the jobs, at most one per message
   * @return one result per completion, in order: {@link QueueResult.Completed}, {@link
   *     QueueResult.LeaseLost} or {@link QueueResult.WorkFailed}
   * @throws dev.onceonly.StoreException if the transaction fails; nothing was committed
   */
  List<QueueResult> completeAll(List<Completion> completions);

  /**
   * Acknowledges many messages and runs one {@link BatchHandler} for them in one transaction, so
   * that the handler's writes (a JDBC batch) and the acknowledgements share one commit. The fenced
   * acknowledgements come first, together (on PostgreSQL in one statement), and the handler is then
   * given the deliveries whose acknowledgement succeeded, as {@link #complete} runs its work only
   * after its own: a delivery whose lease was taken over is {@link QueueResult.LeaseLost}, changes
   * nothing and is not given to the handler. While the handler runs no one can claim the
   * acknowledged messages. If the handler throws, nothing is committed: every delivery still held
   * is {@link QueueResult.WorkFailed} with that failure and stays leased. If no lease holds, the
   * handler is not called.
   *
   * @param deliveries the deliveries, at most one per message, at most 1,000
   * @param handler the batch's database work
   * @return one result per delivery, in order: {@link QueueResult.Completed}, {@link
   *     QueueResult.LeaseLost} or {@link QueueResult.WorkFailed}
   * @throws IllegalArgumentException if there are more than 1,000 deliveries
   * @throws dev.onceonly.StoreException if the transaction fails; nothing was committed
   */
  List<QueueResult> completeBatch(List<Delivery> deliveries, BatchHandler handler);

  /**
   * Acknowledges a batch of messages in one transaction (on PostgreSQL in one statement).
   *
   * @param leases the leases
   * @return one result per lease, in order
   */
  List<QueueResult> ackAll(List<Lease> leases);

  /**
   * Acknowledges a message and sends others in one transaction: the next run of a periodic job, a
   * checkpoint of long work, or (acknowledging first and sending a future message) the at-most-once
   * pattern. The next messages may use the acknowledged message's key. All of it commits, or none:
   * if the lease is lost, nothing is sent; if a next message's key is queued with other content
   * ({@link SendResult.Status#CONFLICT}), nothing is acknowledged and nothing is sent. A next
   * message already queued with the same payload ({@link SendResult.Status#REPEATED}) is fine.
   *
   * @param lease the lease
   * @param next the messages to send
   * @return {@link QueueResult.Completed} (acknowledged, every message queued) or {@link
   *     QueueResult.LeaseLost} (nothing changed)
   * @throws SendConflictException if a next message conflicts; the lease still holds
   */
  QueueResult ackAndSend(Lease lease, List<Message> next);

  /**
   * Removes a message by key, whether it waits or is in flight; a holder of its lease then gets
   * {@link QueueResult.LeaseLost}. This finishes the queue's at-most-once pattern: acknowledge the
   * delivery on arrival with {@link #ackAndSend} that also sends a watchdog message due after the
   * work should be done, do the work, then withdraw the watchdog. If the worker dies, the watchdog
   * is delivered and tells that the work may not have finished; it is never done twice.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @return {@code true} if a message was removed
   */
  boolean withdraw(String queue, String key);

  /**
   * Removes a message by key inside the caller's open transaction.
   *
   * @param transaction the caller's connection inside a transaction
   * @param queue the queue's name
   * @param key the message's key
   * @return {@code true} if a message was removed (once the caller commits)
   */
  boolean withdraw(Connection transaction, String queue, String key);

  /**
   * Puts a leased message back to be delivered at {@code at}, without counting a failure (snooze);
   * the retry time budget starts again from its next delivery.
   *
   * @param lease the lease
   * @param at when it becomes due again, in years 1 to 9999
   * @return {@link QueueResult.Rescheduled} or {@link QueueResult.LeaseLost}
   */
  QueueResult reschedule(Lease lease, Instant at);

  /**
   * Records a failed attempt: the message is retried after the policy's backoff, or dead-lettered
   * when its attempts or time budget are used up.
   *
   * <p>The failure is also kept in the message's history ({@link #attemptErrors}), with its text as
   * the entry's message and no class or trace.
   *
   * @param lease the lease
   * @param error what went wrong (bounded when stored)
   * @return {@link QueueResult.Retrying}, {@link QueueResult.DeadLettered} or {@link
   *     QueueResult.LeaseLost}
   */
  QueueResult nack(Lease lease, String error);

  /**
   * Records a failed attempt whose provider demanded a wait (a rate limit): the next attempt is not
   * before {@code requiredWait}, which counts against the time budget.
   *
   * @param lease the lease
   * @param error what went wrong
   * @param requiredWait the wait demanded: zero or positive, at most 100 years
   * @return as {@link #nack(Lease, String)}
   */
  QueueResult nack(Lease lease, String error, Duration requiredWait);

  /**
   * Moves a leased message straight to the dead letters (a failure no retry can fix).
   *
   * @param lease the lease
   * @param error why
   * @return {@link QueueResult.DeadLettered} or {@link QueueResult.LeaseLost}
   */
  QueueResult deadLetter(Lease lease, String error);

  /**
   * Records a failed attempt as {@link #nack(Lease, String)} does, from the exception that caused
   * it: the message's last error is {@code class: message}, and the attempt's entry in {@link
   * #attemptErrors} keeps the class, the message and the first lines of the stack trace apart. A
   * {@link Worker} records its handlers' failures so.
   *
   * @param lease the lease
   * @param error what the attempt threw
   * @return as {@link #nack(Lease, String)}
   */
  default QueueResult nack(Lease lease, Throwable error) {
    return nack(lease, describe(error));
  }

  /**
   * Moves a leased message straight to the dead letters, as {@link #deadLetter(Lease, String)}
   * does, from the exception that caused it, kept as {@link #nack(Lease, Throwable)} keeps it.
   *
   * @param lease the lease
   * @param error what the attempt threw
   * @return {@link QueueResult.DeadLettered} or {@link QueueResult.LeaseLost}
   */
  default QueueResult deadLetter(Lease lease, Throwable error) {
    return deadLetter(lease, describe(error));
  }

  /**
   * Returns the errors of a message's newest failed attempts, oldest first: the history an operator
   * reads before requeuing or deleting a dead letter. A message is named by its queue and key, so
   * the history follows it into the dead letters and back through a {@link #requeue}; it is deleted
   * when the message completes or is withdrawn, and when its dead letter is deleted or purged. Each
   * failure recorded by {@link #nack} or {@link #deadLetter} adds one entry, in the same
   * transaction; a lease that ran out adds none. Only the newest {@code
   * OnceOnlyBuilder.attemptErrorsKept} entries are kept (default {@value
   * AttemptError#DEFAULT_KEPT}).
   *
   * <p>A key sent again while a dead letter of it is kept shares that dead letter's history: the
   * new message's failures are added to it, and its completion leaves the entries to the dead
   * letter.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @return the entries, oldest first, immutable; empty when none is kept (this default keeps none)
   */
  default List<AttemptError> attemptErrors(String queue, String key) {
    return List.of();
  }

  /** The text a failure given as an exception is recorded with: {@code class: message}. */
  private static String describe(Throwable error) {
    return error.getClass().getName() + ": " + error.getMessage();
  }

  /**
   * Reads the large body of a delivery sent with {@link #sendLarge}.
   *
   * @param delivery the delivery
   * @return the body, or empty if it has none
   */
  Optional<byte[]> largePayload(Delivery delivery);

  /**
   * Lists dead letters of a queue, oldest first.
   *
   * @param queue the queue's name
   * @param limit the most to return, from 1 to 10,000
   * @return the dead letters
   */
  List<DeadLetter> deadLetters(String queue, int limit);

  /**
   * Returns the dead letter of one key, if its message was dead-lettered and not requeued.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @return the dead letter, or empty
   */
  Optional<DeadLetter> findDeadLetter(String queue, String key);

  /**
   * Moves a dead letter back into its queue, due now, with its attempts reset.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @return {@code true} if it was requeued, {@code false} if there was no such dead letter or the
   *     key is in use in the queue again
   */
  boolean requeue(String queue, String key);

  /**
   * Moves a dead letter back into its queue, as {@link #requeue(String, String)} does, only if it
   * is still the dead letter that was listed: the one of that key dead-lettered at {@code deadAt}
   * ({@link DeadLetter#deadAt()}, or {@code Maintenance.DeadLetterSummary#deadAt()}). An action
   * confirmed on a list thus never reaches a dead letter the list did not show: not one of that key
   * that was requeued, failed and was dead-lettered again since.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @param deadAt when the listed dead letter was dead-lettered, as the list gave it
   * @return {@code true} if it was requeued; {@code false} if that dead letter is gone (deleted,
   *     requeued, or replaced by a later one of the key), or the key is in use in the queue again
   */
  boolean requeue(String queue, String key, Instant deadAt);

  /**
   * Returns the concurrency limits this instance declared for a queue.
   *
   * @param queue the queue's name
   * @return the limits, empty where none is declared
   */
  QueueLimits limits(String queue);

  /**
   * How long the last claim of a queue by this instance found that the queue's rate limit leaves no
   * room ({@code OnceOnlyBuilder.rateLimit}, {@code rateLimitPerPartition}): until the oldest claim
   * of the full window leaves it, counted over every instance. A {@link Worker} sleeps that long
   * instead of polling. Zero when that claim had room, or the queue has no rate limit.
   *
   * @param queue the queue's name
   * @return the wait, or zero
   */
  default Duration rateLimitWait(String queue) {
    return Duration.ZERO;
  }

  /**
   * Pauses a queue for every instance: from the commit on, no claim of any instance leases a
   * message of it (the claims check the pause in their own statement), while the messages already
   * leased are settled as usual (acknowledged, failed, renewed). Sends still queue messages. The
   * pause is a row of the store, so it outlives restarts until {@link #resume}. A {@link Worker} of
   * a paused queue stops claiming and checks the pause again at its {@code pauseCheck} interval. A
   * claim that began before the pause committed may still lease.
   *
   * @param queue the queue's name
   * @param pausedBy who pauses it, 1 to 255 characters, shown with the pause
   * @param reason why, at most 1,000 characters; null for none
   * @return {@code true} if this call paused it; {@code false} if it was paused already, in which
   *     case the first pause (its author, time and reason) is kept unchanged
   * @throws dev.onceonly.InvalidRequestException for a bad queue name, author or reason; nothing is
   *     written
   */
  boolean pause(String queue, String pausedBy, String reason);

  /**
   * Resumes a paused queue: the next claims of every instance lease its due messages again.
   *
   * @param queue the queue's name
   * @return {@code true} if it was paused; {@code false} (changing nothing) if it was not
   */
  boolean resume(String queue);

  /**
   * Reads the pause of a queue.
   *
   * @param queue the queue's name
   * @return who paused it, when and why; empty if it is not paused
   */
  Optional<QueuePause> paused(String queue);

  /**
   * Lists every paused queue.
   *
   * @return the pauses, by queue name
   */
  List<QueuePause> pausedQueues();

  /**
   * Counts the messages of a queue that wait or are in flight.
   *
   * @param queue the queue's name
   * @return the count
   */
  long depth(String queue);

  /**
   * Returns when the next message of a queue becomes due, for a worker deciding how long to sleep.
   *
   * @param queue the queue's name
   * @return the earliest due time, or empty if the queue is empty
   */
  Optional<Instant> nextDue(String queue);

  /**
   * Registers a callback run after a send from this process, so that a worker can wake at once. The
   * callback must be quick and must not call the queue.
   *
   * @param listener receives the queue's name
   * @return a handle whose {@code close()} removes the callback
   */
  AutoCloseable onSend(java.util.function.Consumer<String> listener);

  /**
   * Returns where the store of this queue publishes its events; a {@link Worker} publishes its
   * handlers' timings there too.
   *
   * @return the events, {@link dev.onceonly.events.Events#none()} unless overridden
   */
  default dev.onceonly.events.Events events() {
    return dev.onceonly.events.Events.none();
  }
}
