package dev.onceonly.internal.queue;

import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.SendResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * What the job queue publishes: its sends, claims and settlements as events, and the wake-ups of
 * this instance's workers when a settlement freed room on a limited queue.
 */
final class QueueEvents {
  private final Events events;
  private final QueueSignals signals;
  private final QueueClaims claims;

  QueueEvents(Events events, QueueSignals signals, QueueClaims claims) {
    this.events = events;
    this.signals = signals;
    this.claims = claims;
  }

  /** When a settlement started, for its event's duration; 0 when no one listens. */
  long started() {
    return events.enabled() ? System.nanoTime() : 0;
  }

  /** Publishes a send's answer. */
  SendResult sent(SendResult result) {
    if (events.enabled()) {
      events.publish(
          new OnceOnlyEvent.MessageSent(
              result.queue(), result.status().name().toLowerCase(Locale.ROOT)));
    }
    return result;
  }

  /**
   * Publishes how a claimed message was settled, and returns the result. Callers pass {@link
   * #started()} before the expression that settles (arguments are evaluated left to right). A
   * settlement that ended a lease of a limited queue also wakes this instance's workers of the
   * queue: their claims may have found the limit full, and they would otherwise wait out their idle
   * backoff.
   */
  QueueResult settled(String queue, long started, QueueResult result) {
    if (!(result instanceof QueueResult.LeaseLost || result instanceof QueueResult.WorkFailed)
        && claims.limited(queue)) {
      signals.fire(queue);
    }
    if (!events.enabled()) {
      return result;
    }
    String kind;
    int attempts = 0;
    if (result instanceof QueueResult.Completed) {
      kind = "completed";
    } else if (result instanceof QueueResult.Retrying r) {
      kind = "retrying";
      attempts = r.attempts();
    } else if (result instanceof QueueResult.DeadLettered d) {
      kind = "dead_lettered";
      attempts = d.attempts();
    } else if (result instanceof QueueResult.Rescheduled) {
      kind = "rescheduled";
    } else if (result instanceof QueueResult.LeaseLost) {
      kind = "lease_lost";
    } else if (result instanceof QueueResult.WorkFailed) {
      kind = "work_failed";
    } else {
      return result; // renewed: not a settlement
    }
    settlement(queue, kind, attempts, started);
    return result;
  }

  private void settlement(String queue, String kind, int attempts, long started) {
    events.publish(
        new OnceOnlyEvent.MessageSettled(
            queue,
            kind,
            attempts,
            Duration.ofNanos(started == 0 ? 0 : System.nanoTime() - started),
            Instant.now()));
  }

  List<QueueResult> settledAll(List<Lease> leases, long started, List<QueueResult> results) {
    for (int i = 0; i < results.size(); i++) {
      settled(leases.get(i).queue(), started, results.get(i));
    }
    return results;
  }

  /**
   * Publishes a committed claim: the messages it dead-lettered for want of attempts (their
   * attempts), then how many it claimed. What a rolled-back (or retried) claim did is never
   * published.
   */
  void claimed(String queue, long started, List<Integer> deadLettered, int claimed) {
    if (started == 0) {
      return;
    }
    deadLettered.forEach(attempts -> settlement(queue, "dead_lettered", attempts, started));
    if (claimed > 0) {
      events.publish(
          new OnceOnlyEvent.MessagesClaimed(
              queue, claimed, Duration.ofNanos(System.nanoTime() - started), Instant.now()));
    }
  }
}
