package dev.onceonly.internal.workflow;

import dev.onceonly.internal.dialect.SqlDialect;

/** The workflows' statements for one table prefix and dialect, built once. */
final class WorkflowStatements {
  final String insertRun;
  final String lockRun;
  final String lockRunCounting;
  final String selectRunAndSteps;
  final String listRuns;
  final String countRuns;
  final String setRunState;
  final String insertStep;
  final String queuedSteps;
  final String queueStep;
  final String setOpenDeps;
  final String completeStep;
  final String failStep;
  final String cancelSteps;
  final String pendCompensations;
  final String queueCompensation;
  final String completeCompensation;
  final String failCompensation;
  final String storeSignal;
  final String finishedBefore;
  final String deleteSteps;
  final String deleteRun;

  WorkflowStatements(String p, SqlDialect dialect) {
    String w = p + "workflows";
    String s = p + "workflow_steps";
    finishedBefore =
        "SELECT workflow_id FROM "
            + w
            + " WHERE state IN ('COMPLETED', 'FAILED', 'CANCELLED') AND updated_at < ?"
            + " ORDER BY updated_at, workflow_id LIMIT ?";
    deleteSteps = "DELETE FROM " + s + " WHERE workflow_id = ?";
    deleteRun =
        "DELETE FROM "
            + w
            + " WHERE workflow_id = ? AND state IN ('COMPLETED', 'FAILED', 'CANCELLED')";
    insertRun =
        dialect.insertOrNothing(
            "INSERT INTO "
                + w
                + " (workflow_id, name, fingerprint, input, state, created_at, updated_at,"
                + " traceparent) VALUES (?, ?, ?, ?, 'RUNNING', ?, ?, ?)",
            "workflow_id");
    // An update that changes nothing still takes the row's write lock (PostgreSQL, InnoDB); on
    // SQLite the transaction holds the write lock already.
    lockRun = "UPDATE " + w + " SET completions = completions WHERE workflow_id = ?";
    // A completion's lock also counts it: its place in the order of completions, read back with
    // the run (a delivery that turns out to have nothing to do leaves a gap, which orders nothing).
    lockRunCounting = "UPDATE " + w + " SET completions = completions + 1 WHERE workflow_id = ?";
    selectRunAndSteps =
        "SELECT w.name, w.fingerprint, w.input, w.state, w.final_state, w.completions, w.error,"
            + " w.created_at, w.updated_at, s.step, s.queue, s.depends_on, s.open_deps, s.state,"
            + " s.attempts, s.result, s.error, s.completed_seq, s.signal_name, s.signal_payload,"
            + " s.comp_queue, s.comp_state, s.comp_attempts, s.comp_error, w.traceparent FROM "
            + w
            + " w JOIN "
            + s
            + " s ON s.workflow_id = w.workflow_id WHERE w.workflow_id = ? ORDER BY s.position";
    listRuns =
        "SELECT workflow_id FROM "
            + w
            + " WHERE state = ? ORDER BY created_at, workflow_id LIMIT ?";
    countRuns = "SELECT COUNT(*) FROM " + w + " WHERE state = ?";
    setRunState =
        "UPDATE "
            + w
            + " SET state = ?, final_state = ?, error = ?, updated_at = ?"
            + " WHERE workflow_id = ?";
    insertStep =
        "INSERT INTO "
            + s
            + " (workflow_id, step, position, queue, depends_on, open_deps, state, signal_name,"
            + " comp_queue, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    queuedSteps =
        "SELECT step, queue, comp_attempts FROM "
            + s
            + " WHERE workflow_id = ? AND state = 'QUEUED'";
    queueStep =
        "UPDATE "
            + s
            + " SET state = 'QUEUED', open_deps = 0, updated_at = ?"
            + " WHERE workflow_id = ? AND step = ? AND state = 'WAITING'";
    setOpenDeps =
        "UPDATE "
            + s
            + " SET open_deps = ? WHERE workflow_id = ? AND step = ? AND state = 'WAITING'";
    completeStep =
        "UPDATE "
            + s
            + " SET state = 'COMPLETED', result = ?, attempts = ?, completed_seq = ?, updated_at = ?"
            + " WHERE workflow_id = ? AND step = ? AND state = 'QUEUED'";
    failStep =
        "UPDATE "
            + s
            + " SET state = 'FAILED', error = ?, attempts = ?, updated_at = ?"
            + " WHERE workflow_id = ? AND step = ? AND state = 'QUEUED'";
    cancelSteps =
        "UPDATE "
            + s
            + " SET state = 'CANCELLED', updated_at = ?"
            + " WHERE workflow_id = ? AND state IN ('WAITING', 'QUEUED')";
    pendCompensations =
        "UPDATE "
            + s
            + " SET comp_state = 'PENDING', updated_at = ? WHERE workflow_id = ?"
            + " AND state = 'COMPLETED' AND comp_queue IS NOT NULL AND comp_state IS NULL";
    queueCompensation =
        "UPDATE "
            + s
            + " SET comp_state = 'QUEUED', updated_at = ?"
            + " WHERE workflow_id = ? AND step = ? AND comp_state = 'PENDING'";
    completeCompensation =
        "UPDATE "
            + s
            + " SET comp_state = 'COMPLETED', comp_attempts = ?, updated_at = ?"
            + " WHERE workflow_id = ? AND step = ? AND comp_state = 'QUEUED'";
    failCompensation =
        "UPDATE "
            + s
            + " SET comp_state = 'FAILED', comp_error = ?, comp_attempts = ?, updated_at = ?"
            + " WHERE workflow_id = ? AND step = ? AND comp_state = 'QUEUED'";
    storeSignal =
        "UPDATE "
            + s
            + " SET signal_payload = ?, updated_at = ?"
            + " WHERE signal_name = ? AND signal_payload IS NULL AND workflow_id = ?";
  }
}
