package dev.onceonly.queue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.Bounds;
import dev.onceonly.Effect;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A delivery being handled by a {@link Worker}, with what the handler may ask of it.
 *
 * <p>When the handler returns normally the message is acknowledged, unless the handler already
 * completed it with {@link #completeWith} or asked for {@link #retryAt}. When it throws, the
 * message is retried with backoff (or dead-lettered at once for input no retry can fix).
 * Thread-safe: the worker renews the lease from another thread while the handler runs.
 */
public final class Job {
  private final Delivery delivery;
  private final JobQueue queue;
  private final AtomicReference<Lease> lease;
  private volatile boolean cancelled;
  private volatile String cancelReason;
  private volatile QueueResult result;
  private volatile Instant retryAt;
  private volatile boolean completing;
  private volatile Effect<?, ?> later;
  private volatile boolean handedOver;

  /** When the lease was taken or last renewed, on this JVM's monotonic clock. */
  private volatile long leasedAt = System.nanoTime();

  Job(Delivery delivery, JobQueue queue) {
    this.delivery = Objects.requireNonNull(delivery, "delivery");
    this.queue = queue;
    this.lease = new AtomicReference<>(delivery.lease());
  }

  /** {@return the delivery} */
  public Delivery delivery() {
    return delivery;
  }

  /** {@return the message's payload} */
  public JsonNode payload() {
    return delivery.payload();
  }

  /** {@return the current lease (renewed by the worker while the handler runs)} */
  public Lease lease() {
    return lease.get();
  }

  void renewed(Lease l) {
    lease.set(l);
    leasedAt = System.nanoTime();
  }

  /** {@return when the lease was taken or last renewed, in {@link System#nanoTime()} units} */
  long leasedAt() {
    return leasedAt;
  }

  /**
   * Returns whether the handler should stop: the worker is shutting down past its deadline, or the
   * lease was lost to another worker. Check it before each effect and after a long call.
   *
   * @return whether the handler should stop
   */
  public boolean isCancelled() {
    return cancelled;
  }

  /**
   * Throws if the job is cancelled; the message is then left to be delivered again.
   *
   * @throws CancellationException if {@link #isCancelled()}
   */
  public void throwIfCancelled() {
    if (cancelled) {
      throw new CancellationException(cancelReason);
    }
  }

  void cancel(String reason) {
    cancelReason = reason;
    cancelled = true;
  }

  /**
   * Acknowledges the message and runs database work in one transaction (see {@link
   * JobQueue#complete}): the work runs, and commits, only if the fenced acknowledgement succeeded.
   * Use it for effects that must commit with the acknowledgement, such as a joined {@link
   * dev.onceonly.ReceiptStore} step, or a checkpoint and the send of the next step under the same
   * key. A send inside the work answers for itself: call {@link SendResult#orThrow()} on it to have
   * a {@link SendResult.Status#CONFLICT} roll the step back and the message retried.
   *
   * @param work the work; it receives the transaction's connection
   * @param <X> the work's exception type
   * @return {@link QueueResult.Completed}, or {@link QueueResult.LeaseLost} (the work did not run)
   * @throws X what the work threw; nothing was committed, and the worker retries the message
   */
  public <X extends Exception> QueueResult completeWith(Effect<?, X> work) throws X {
    completing = true; // the transaction holds the message: renewing it would only wait
    try {
      QueueResult r = queue.complete(lease(), work);
      result = r;
      if (r instanceof QueueResult.LeaseLost) {
        cancel("lease lost");
      }
      return r;
    } finally {
      completing = false;
    }
  }

  /**
   * Acknowledges the message and sends {@code next} in one transaction (see {@link
   * JobQueue#ackAndSend}), and records the answer, so the worker does not acknowledge again when
   * the handler returns: the next step of a periodic job or a chain.
   *
   * @param next the messages to send; they may reuse this message's key
   * @return {@link QueueResult.Completed}, or {@link QueueResult.LeaseLost} (nothing was sent)
   * @throws SendConflictException if a message's key is queued with other content: nothing was
   *     acknowledged or sent, and the worker retries the message like any failure
   */
  public QueueResult ackAndSend(java.util.List<Message> next) {
    QueueResult r = queue.ackAndSend(lease(), next);
    result = r;
    if (r instanceof QueueResult.LeaseLost) {
      cancel("lease lost");
    }
    return r;
  }

  /**
   * Has the worker acknowledge the message together with database work once the handler returns, in
   * one transaction shared with the completions of other jobs, and returns at once: the handler
   * thread goes on to the next job while the commit is batched. Same guarantee as {@link
   * #completeWith}: the work commits only with a fenced acknowledgement that succeeded, or not at
   * all. What it does not give is the answer: a lost lease or a work that throws is seen by the
   * worker, after the handler returned (a throwing work is retried or dead-lettered like a failed
   * handler). If the handler throws after calling this, the work is dropped and the failure handled
   * as usual. The work runs later on the worker's completing thread, inside the batch's
   * transaction: it must use only the connection it is given, not the handler thread's state. Use
   * {@link #completeWith} when the handler needs the result before it returns.
   *
   * @param work the work; it receives the transaction's connection
   * @throws IllegalStateException if the job was already completed or given work to complete with
   */
  public void completeLater(Effect<?, ?> work) {
    Objects.requireNonNull(work, "work");
    if (result != null || later != null) {
      throw new IllegalStateException("job " + delivery.key() + " is already completed");
    }
    later = work;
  }

  /** {@return the work {@link #completeLater} left for the worker, or null} */
  Effect<?, ?> later() {
    return later;
  }

  boolean isCompleting() {
    return completing;
  }

  /**
   * Marks the job as handed to the worker's batched completion, which holds it from here: it is not
   * renewed (the transaction will hold the message) nor released at close.
   */
  void handOver() {
    handedOver = true;
  }

  boolean isHandedOver() {
    return handedOver;
  }

  /**
   * Asks for the message to be delivered again at {@code at}, without counting a failure (for
   * example a join whose other half has not arrived yet).
   *
   * @param at when to deliver it again, in years 1 to 9999
   * @throws IllegalArgumentException if {@code at} lies outside years 1 to 9999
   */
  public void retryAt(Instant at) {
    this.retryAt = Bounds.instant(at, "at");
  }

  QueueResult result() {
    return result;
  }

  Instant requestedRetry() {
    return retryAt;
  }
}
