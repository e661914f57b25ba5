package dev.onceonly.events;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One thing the library did, published after it happened. Each kind is a record of low-cardinality
 * facts; the {@code outcome}, {@code status} and {@code result} strings take the fixed lower-case
 * values listed on each record, fit for a metric tag as they are.
 */
public sealed interface OnceOnlyEvent {

  /**
   * A receipt step ({@code ReceiptStore.execute}) returned: after its transaction committed, or,
   * for a step inside the caller's transaction, when the step returned (the caller may still roll
   * it back).
   *
   * @param operation the step's operation
   * @param outcome {@code created} (the effect ran and its receipt was stored), {@code repeated}
   *     (answered from the receipt, the effect not run again), {@code conflict}, {@code expired},
   *     or {@code failed} (the effect or the store threw; nothing was committed)
   * @param scope the key's scope when the builder publishes scopes ({@code
   *     OnceOnlyBuilder#listenerSeesScopes}), else null
   * @param duration from the call to its answer, waiting for the writer included
   */
  record StepFinished(String operation, String outcome, String scope, Duration duration)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls but the scope.
     *
     * @param operation see the record
     * @param outcome see the record
     * @param scope see the record
     * @param duration see the record
     */
    public StepFinished {
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(outcome, "outcome");
      Objects.requireNonNull(duration, "duration");
    }
  }

  /**
   * A send to the job queue returned (inside the caller's transaction, the message is queued only
   * once that commits).
   *
   * @param queue the queue
   * @param status {@code sent}, {@code repeated} (the same message already waits) or {@code
   *     conflict} (another payload waits under the key)
   */
  record MessageSent(String queue, String status) implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param queue see the record
     * @param status see the record
     */
    public MessageSent {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(status, "status");
    }
  }

  /**
   * A receive claimed due messages under a lease (published only when it claimed some).
   *
   * @param queue the queue
   * @param count how many messages the one transaction claimed
   * @param duration how long the claim took
   * @param at when it ended, by the system clock (not the store's clock: this is for traces, whose
   *     spans a tracer times the same way), so that a listener can place it in time although it
   *     runs later
   */
  record MessagesClaimed(String queue, int count, Duration duration, Instant at)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param queue see the record
     * @param count see the record
     * @param duration see the record
     * @param at see the record
     */
    public MessagesClaimed {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(at, "at");
    }

    /**
     * A claim that ended now.
     *
     * @param queue see the record
     * @param count see the record
     * @param duration see the record
     */
    public MessagesClaimed(String queue, int count, Duration duration) {
      this(queue, count, duration, Instant.now());
    }
  }

  /**
   * A claim of a queue with a rate limit committed: how much of the window it found used. Published
   * for every claim of such a queue, whether it took anything or found the window full.
   *
   * @param queue the queue
   * @param scope {@code queue} for the queue's own limit, {@code partition} for its limit per
   *     partition
   * @param used the claims recorded in the window after this claim's (for {@code partition}, in the
   *     fullest partition the claim counted)
   * @param limit the most claims of the window
   * @param waitFor how long until the window has room again when the claim found it full (and, for
   *     {@code partition}, took nothing); zero otherwise
   */
  record RateLimitUsed(String queue, String scope, int used, int limit, Duration waitFor)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param queue see the record
     * @param scope see the record
     * @param used see the record
     * @param limit see the record
     * @param waitFor see the record
     */
    public RateLimitUsed {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(scope, "scope");
      Objects.requireNonNull(waitFor, "waitFor");
    }
  }

  /**
   * A schedule's slot came due and its run was sent to the queue, after the transaction that sent
   * it committed (a receive of the queue, or {@code Schedules.fireDue}). A slot whose run another
   * instance sent first is not published again.
   *
   * @param schedule the schedule's name
   * @param queue the queue its run was sent to
   * @param slot the slot the run is for
   */
  record ScheduleFired(String schedule, String queue, Instant slot) implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param schedule see the record
     * @param queue see the record
     * @param slot see the record
     */
    public ScheduleFired {
      Objects.requireNonNull(schedule, "schedule");
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(slot, "slot");
    }
  }

  /**
   * A claimed message was settled: acknowledged, retried, dead-lettered, rescheduled, or its holder
   * found the lease lost.
   *
   * @param queue the queue
   * @param result {@code completed}, {@code retrying}, {@code dead_lettered}, {@code rescheduled},
   *     {@code lease_lost} (another receiver holds the message now; nothing was changed) or {@code
   *     work_failed} (the work of a completion threw; the message stays claimed)
   * @param attempts the attempts counted so far, for {@code retrying} and {@code dead_lettered};
   *     else 0
   * @param duration how long the settling call took (for a batch, the whole batch; for a message
   *     dead-lettered by a claim, the claim)
   * @param at when it ended, by the system clock, as {@link MessagesClaimed#at()}
   */
  record MessageSettled(String queue, String result, int attempts, Duration duration, Instant at)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param queue see the record
     * @param result see the record
     * @param attempts see the record
     * @param duration see the record
     * @param at see the record
     */
    public MessageSettled {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(result, "result");
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(at, "at");
    }

    /**
     * A settlement that ended now, its duration unknown (zero).
     *
     * @param queue see the record
     * @param result see the record
     * @param attempts see the record
     */
    public MessageSettled(String queue, String result, int attempts) {
      this(queue, result, attempts, Duration.ZERO, Instant.now());
    }
  }

  /**
   * A worker's handler returned or threw for one delivery.
   *
   * @param queue the queue (for the Redis worker, the stream)
   * @param attempt which delivery of the message this was, from 1
   * @param duration how long the handler ran
   * @param failed whether it threw
   * @param traceparent the W3C {@code traceparent} recorded when the message was sent, or null
   */
  record JobHandled(
      String queue, int attempt, Duration duration, boolean failed, String traceparent)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls but the traceparent.
     *
     * @param queue see the record
     * @param attempt see the record
     * @param duration see the record
     * @param failed see the record
     * @param traceparent see the record
     */
    public JobHandled {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(duration, "duration");
    }
  }

  /**
   * A claim of an external effect ({@code ExternalEffects.claim} or {@code compensate}) answered.
   *
   * @param operation the claim's operation
   * @param outcome {@code claimed}, {@code in_progress}, {@code repeated}, {@code conflict}, {@code
   *     unknown} (an earlier attempt may have applied the effect: reconcile it), {@code
   *     retry_later}, {@code failed} or {@code cancelled}
   */
  record ClaimAnswered(String operation, String outcome) implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param operation see the record
     * @param outcome see the record
     */
    public ClaimAnswered {
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  /**
   * The holder of an external claim reported how it ended.
   *
   * @param operation the claim's operation
   * @param outcome {@code completed}, {@code retry_scheduled}, {@code failed}, {@code unknown},
   *     {@code cancelled} or {@code fenced} (the report came too late: another holder or a
   *     resolution got there first)
   */
  record ClaimSettled(String operation, String outcome) implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param operation see the record
     * @param outcome see the record
     */
    public ClaimSettled {
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  /**
   * A status probe of an unknown external claim answered, or failed to, and its answer was applied
   * (after the transaction that recorded it).
   *
   * @param operation the claim's operation
   * @param answer {@code applied}, {@code not_applied}, {@code still_unknown}, {@code failed} (the
   *     probe threw or answered null; the claim stays unknown) or {@code timed_out} (it did not
   *     answer in time; the claim stays unknown)
   * @param settled whether this answer settled the claim; false for an answer that leaves it
   *     unknown, and for one that found it settled meanwhile (by an operator, a late completion or
   *     another instance), which changed nothing
   * @param reason why, for people and logs (not a metric tag): the probe's reason, the exception it
   *     threw, or the timeout; null for {@code applied}
   * @param duration how long the probe ran
   */
  record ClaimProbed(
      String operation, String answer, boolean settled, String reason, Duration duration)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls but the reason.
     *
     * @param operation see the record
     * @param answer see the record
     * @param settled see the record
     * @param reason see the record
     * @param duration see the record
     */
    public ClaimProbed {
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(answer, "answer");
      Objects.requireNonNull(duration, "duration");
    }
  }

  /**
   * SQLite's single writer committed one transaction for the steps waiting together (a group
   * commit; 1 for a step alone).
   *
   * @param steps how many steps shared the transaction
   * @param duration from the start of the transaction to its commit
   */
  record GroupCommitted(int steps, Duration duration) implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param steps see the record
     * @param duration see the record
     */
    public GroupCommitted {
      Objects.requireNonNull(duration, "duration");
    }
  }

  /**
   * A reconciliation pass ended.
   *
   * @param examined intents without a receipt looked at
   * @param published intents handed to the publisher anew
   * @param alreadyQueued intents whose message still waited
   * @param conflicts intents whose key holds other content in the transport
   * @param deadLettered intents whose message waits in the dead letters
   * @param duration how long the pass took
   */
  record Reconciled(
      int examined,
      int published,
      int alreadyQueued,
      int conflicts,
      int deadLettered,
      Duration duration)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param examined see the record
     * @param published see the record
     * @param alreadyQueued see the record
     * @param conflicts see the record
     * @param deadLettered see the record
     * @param duration see the record
     */
    public Reconciled {
      Objects.requireNonNull(duration, "duration");
    }
  }

  /**
   * A step of a workflow run (or its compensation) settled, in the transaction that settled it.
   *
   * @param workflow the workflow's name (from the definition in code: fit for a tag)
   * @param step the step's name
   * @param result {@code completed}, {@code failed} (for good: its message became a dead letter),
   *     {@code cancelled} (the run stopped before it ran), {@code compensated} or {@code
   *     compensation_failed}
   * @param attempts the deliveries it took (0 for {@code cancelled})
   * @param duration how long its handler ran, for {@code completed} and {@code compensated}; else
   *     zero
   * @param traceparent the W3C {@code traceparent} of the run's start, or null
   */
  record WorkflowStepSettled(
      String workflow,
      String step,
      String result,
      int attempts,
      Duration duration,
      String traceparent)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls but the traceparent.
     *
     * @param workflow see the record
     * @param step see the record
     * @param result see the record
     * @param attempts see the record
     * @param duration see the record
     * @param traceparent see the record
     */
    public WorkflowStepSettled {
      Objects.requireNonNull(workflow, "workflow");
      Objects.requireNonNull(step, "step");
      Objects.requireNonNull(result, "result");
      Objects.requireNonNull(duration, "duration");
    }
  }

  /**
   * A workflow run changed state: it started, began to compensate, or ended.
   *
   * @param workflow the workflow's name
   * @param state {@code running} (started), {@code compensating}, {@code completed}, {@code failed}
   *     or {@code cancelled}
   * @param traceparent the W3C {@code traceparent} of the run's start, or null
   */
  record WorkflowRunChanged(String workflow, String state, String traceparent)
      implements OnceOnlyEvent {
    /**
     * Refuses nulls but the traceparent.
     *
     * @param workflow see the record
     * @param state see the record
     * @param traceparent see the record
     */
    public WorkflowRunChanged {
      Objects.requireNonNull(workflow, "workflow");
      Objects.requireNonNull(state, "state");
    }
  }

  /**
   * A queue was paused or resumed through this instance ({@code JobQueue.pause}, {@code resume}),
   * published after the commit, only when the call changed something: pausing a paused queue or
   * resuming a running one publishes nothing. The pause holds for every instance; the event is
   * published by the one that made it.
   *
   * @param queue the queue
   * @param change {@code paused} or {@code resumed}
   */
  record QueuePauseChanged(String queue, String change) implements OnceOnlyEvent {
    /**
     * Refuses nulls.
     *
     * @param queue see the record
     * @param change see the record
     */
    public QueuePauseChanged {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(change, "change");
    }
  }
}
