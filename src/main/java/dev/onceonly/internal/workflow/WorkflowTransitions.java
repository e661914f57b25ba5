package dev.onceonly.internal.workflow;

import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.queue.SqlJobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendConflictException;
import dev.onceonly.queue.SendResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * What moves a run on, each inside the transaction that causes it and after the run's row lock
 * ({@link WorkflowRows#lock}), so that the transitions of one run take turns: a step completes and
 * sends the steps it made due; a step fails and stops the run; compensations are sent one at a
 * time, in reverse order of completion. Every change of a step is a conditional update from the
 * state it was read in, and a message is sent only when that update changed the row.
 */
final class WorkflowTransitions {
  static final String STEP_PREFIX = "wf:";
  static final String COMPENSATION_PREFIX = "wfc:";

  private final WorkflowRows rows;
  private final SqlJobQueue queue;

  WorkflowTransitions(WorkflowRows rows, SqlJobQueue queue) {
    this.rows = rows;
    this.queue = queue;
  }

  /** Records a step done with its result, then sends what it made due. */
  void completed(Connection c, RunRow run, StepRow step, String result, int attempts, Duration ran)
      throws SQLException {
    int seq = run.completions; // counted by the lock (WorkflowRows#lockCounting)
    int n = rows.updateStep(c, rows.sql.completeStep, run, step, result, attempts, seq, rows.now());
    if (n != 1) {
      throw new IllegalStateException("step " + step.name + " of " + run.id + " is not queued");
    }
    step.state = "COMPLETED";
    step.result = result;
    step.attempts = attempts;
    step.completedSeq = seq;
    settled(run, step, "completed", attempts, ran);
    advance(c, run, step.name);
  }

  /** Records a step failed for good; stops the run unless every dependent runs anyway. */
  void failed(Connection c, RunRow run, StepRow step, String error, int attempts)
      throws SQLException {
    if (rows.updateStep(c, rows.sql.failStep, run, step, error, attempts, rows.now()) != 1) {
      return;
    }
    step.state = "FAILED";
    step.error = error;
    step.attempts = attempts;
    settled(run, step, "failed", attempts, Duration.ZERO);
    if (!"RUNNING".equals(run.state)) {
      return;
    }
    List<StepRow> dependents = run.steps.stream().filter(s -> s.dependsOn(step.name)).toList();
    boolean tolerated =
        !dependents.isEmpty()
            && dependents.stream()
                .allMatch(
                    d ->
                        d.deps.stream()
                            .filter(x -> x.step().equals(step.name))
                            .allMatch(StepRow.Dep::evenIfFailed));
    if (tolerated) {
      advance(c, run, step.name);
    } else {
      stop(c, run, "FAILED", "step " + step.name + " failed: " + error);
    }
  }

  /**
   * Sends the waiting steps that {@code settled} (completed, failed or signalled) made due, counts
   * down the others, and completes the run when every step is settled.
   */
  void advance(Connection c, RunRow run, String settled) throws SQLException {
    for (StepRow s : run.steps) {
      if (!"WAITING".equals(s.state) || (settled != null && !s.dependsOn(settled))) {
        continue;
      }
      int open = 0;
      for (StepRow.Dep d : s.deps) {
        StepRow dep = run.step(d.step());
        boolean done =
            "COMPLETED".equals(dep.state) || ("FAILED".equals(dep.state) && d.evenIfFailed());
        open += done ? 0 : 1;
      }
      if (open == 0 && (s.signalName == null || s.signalPayload != null)) {
        queueStep(c, run, s);
      } else if (open != s.openDeps) {
        rows.updateStep(c, rows.sql.setOpenDeps, run, s, open);
        s.openDeps = open;
      }
    }
    boolean allSettled =
        run.steps.stream().allMatch(s -> "COMPLETED".equals(s.state) || "FAILED".equals(s.state));
    if (allSettled) {
      rows.setState(c, run, "COMPLETED", null, null);
    }
  }

  /** Sends a waiting step's message, once: only if this transaction moved it to queued. */
  void queueStep(Connection c, RunRow run, StepRow s) throws SQLException {
    if (rows.updateStep(c, rows.sql.queueStep, run, s, rows.now()) != 1) {
      return;
    }
    s.state = "QUEUED";
    s.openDeps = 0;
    send(c, run, StepKeys.step(run.id, s));
  }

  /**
   * Stops a run: its waiting and queued steps are cancelled (a queued one's message, when handled,
   * finds its step cancelled and changes nothing), and the compensations of its completed steps
   * start; the run ends in {@code end} once they ran, at once if there are none.
   */
  void stop(Connection c, RunRow run, String end, String error) throws SQLException {
    cancelWaiting(c, run);
    boolean compensate = false;
    for (StepRow s : run.steps) {
      if ("COMPLETED".equals(s.state) && s.compQueue != null && s.compState == null) {
        s.compState = "PENDING";
        compensate = true;
      }
    }
    if (!compensate) {
      rows.setState(c, run, end, null, error);
      return;
    }
    rows.updateRun(c, rows.sql.pendCompensations, run.id, rows.now());
    rows.setState(c, run, "COMPENSATING", end, error);
    nextCompensation(c, run);
  }

  /**
   * Sends the compensation of the latest completed step still pending, or ends the run when none is
   * left.
   */
  void nextCompensation(Connection c, RunRow run) throws SQLException {
    StepRow next = null;
    for (StepRow s : run.steps) {
      if ("PENDING".equals(s.compState) && (next == null || s.completedSeq > next.completedSeq)) {
        next = s;
      }
    }
    if (next == null) {
      rows.setState(c, run, run.finalState, null, run.error);
      return;
    }
    if (rows.updateStep(c, rows.sql.queueCompensation, run, next, rows.now()) != 1) {
      return;
    }
    next.compState = "QUEUED";
    send(c, run, StepKeys.compensation(run.id, next));
  }

  void compensated(Connection c, RunRow run, StepRow step, int attempts, Duration ran)
      throws SQLException {
    if (rows.updateStep(c, rows.sql.completeCompensation, run, step, attempts, rows.now()) != 1) {
      throw new IllegalStateException("compensation of " + step.name + " is not queued");
    }
    step.compState = "COMPLETED";
    step.compAttempts = attempts;
    settled(run, step, "compensated", attempts, ran);
    nextCompensation(c, run);
  }

  void compensationFailed(Connection c, RunRow run, StepRow step, String error, int attempts)
      throws SQLException {
    if (rows.updateStep(c, rows.sql.failCompensation, run, step, error, attempts, rows.now())
        != 1) {
      return;
    }
    step.compState = "FAILED";
    step.compError = error;
    settled(run, step, "compensation_failed", attempts, Duration.ZERO);
    nextCompensation(c, run);
  }

  /**
   * Cancels the run's waiting and queued steps (a queued one's message, when handled, finds its
   * step cancelled and changes nothing).
   */
  void cancelWaiting(Connection c, RunRow run) throws SQLException {
    rows.updateRun(c, rows.sql.cancelSteps, run.id, rows.now());
    for (StepRow s : run.steps) {
      if ("WAITING".equals(s.state) || "QUEUED".equals(s.state)) {
        s.state = "CANCELLED";
        settled(run, s, "cancelled", 0, Duration.ZERO);
      }
    }
  }

  private static void settled(RunRow run, StepRow step, String result, int attempts, Duration ran) {
    run.happened.add(
        new OnceOnlyEvent.WorkflowStepSettled(
            run.name, step.name, result, attempts, ran, run.traceparent));
  }

  /** Sends a step's or compensation's message, with the trace context of the run's start. */
  private void send(Connection c, RunRow run, Message m) throws SQLException {
    SendResult r = queue.sendIn(c, m, run.traceparent);
    if (r.status() == SendResult.Status.CONFLICT) {
      throw new SendConflictException(List.of(r));
    }
  }
}
