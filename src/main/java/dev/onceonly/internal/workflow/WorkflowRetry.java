package dev.onceonly.internal.workflow;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a failed or cancelled run again from where its effects stand ({@link
 * dev.onceonly.workflow.Workflows#retry}), in one transaction after the run's row lock: the steps
 * whose effect stands stay completed with their results; the failed, the cancelled and the
 * compensated ones wait again, with a new generation ({@link StepKeys}), and those whose
 * dependencies are met are sent.
 */
final class WorkflowRetry {
  private final WorkflowRows rows;
  private final WorkflowTransitions moves;
  private final String resetStep;
  private final String clearCompensation;

  WorkflowRetry(String prefix, WorkflowRows rows, WorkflowTransitions moves) {
    this.rows = rows;
    this.moves = moves;
    String s = prefix + "workflow_steps";
    resetStep =
        "UPDATE "
            + s
            + " SET state = 'WAITING', attempts = 0, result = NULL, error = NULL,"
            + " completed_seq = NULL, open_deps = ?, comp_state = NULL, comp_error = NULL,"
            + " comp_attempts = ?, updated_at = ? WHERE workflow_id = ? AND step = ?"
            + " AND (state IN ('FAILED', 'CANCELLED') OR comp_state = 'COMPLETED')";
    clearCompensation =
        "UPDATE "
            + s
            + " SET comp_state = NULL, comp_error = NULL, comp_attempts = ?, updated_at = ?"
            + " WHERE workflow_id = ? AND step = ? AND state = 'COMPLETED'"
            + " AND comp_state = 'FAILED'";
  }

  /** Retries a run on a connection inside the store's open transaction; false if not finished. */
  boolean retry(Connection c, String id, AtomicReference<RunRow> touched) throws SQLException {
    touched.set(null);
    if (!rows.lock(c, id)) {
      return false;
    }
    RunRow run = rows.load(c, id);
    if (!"FAILED".equals(run.state) && !"CANCELLED".equals(run.state)) {
      return false;
    }
    // The generation: the run's counter of completions, moved on by this retry, so that it is
    // new for the run (the counter only grows) and never 0, the generation of a first run.
    touched.set(run);
    rows.lockCounting(c, id);
    int generation = run.completions + 1;
    run.completions = generation;
    long now = rows.now();
    for (StepRow s : run.steps) {
      boolean undone = "COMPLETED".equals(s.state) && "COMPLETED".equals(s.compState);
      if ("FAILED".equals(s.state) || "CANCELLED".equals(s.state) || undone) {
        setWaiting(c, run, s, generation, now);
      } else if ("COMPLETED".equals(s.state) && "FAILED".equals(s.compState)) {
        // Its compensation failed for good: nothing was undone, so its effect stands; it is due
        // again if the run fails again.
        rows.updateStep(c, clearCompensation, run, s, generation, now);
        s.compState = null;
        s.compError = null;
        s.compAttempts = generation;
      }
    }
    rows.setState(c, run, "RUNNING", null, null);
    moves.advance(c, run, null);
    return true;
  }

  private void setWaiting(Connection c, RunRow run, StepRow s, int generation, long now)
      throws SQLException {
    rows.updateStep(c, resetStep, run, s, s.deps.size(), generation, now);
    s.state = "WAITING";
    s.attempts = 0;
    s.result = null;
    s.error = null;
    s.completedSeq = null;
    s.openDeps = s.deps.size();
    s.compState = null;
    s.compError = null;
    s.compAttempts = generation;
  }
}
