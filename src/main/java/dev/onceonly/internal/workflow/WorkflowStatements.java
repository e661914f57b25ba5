package dev.onceonly.internal.workflow;

import dev.onceonly.internal.dialect.SqlDialect;

/** The workflows' statements for one table prefix and dialect, built once. */
final class WorkflowStatements {
  final String insertRun;
  final String selectRun;
  final String lockRun;
  final String listRuns;
  final String setRunState;
  final String countCompletion;
  final String insertStep;
  final String selectSteps;
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

  WorkflowStatements(String p, SqlDialect dialect) {
    String w = p + "workflows";
    String s = p + "workflow_steps";
    insertRun =
        dialect.insertOrNothing(
            "INSERT INTO "
                + w
                + " (workflow_id, name, fingerprint, input, state, created_at, updated_at)"
                + " VALUES (?, ?, ?, ?, 'RUNNING', ?, ?)",
            "workflow_id");
    String runColumns =
        "workflow_id, name, fingerprint, input, state, final_state, completions, error, created_at,"
            + " updated_at";
    selectRun = "SELECT " + runColumns + " FROM " + w + " WHERE workflow_id = ?";
    // An update that changes nothing still takes the row's write lock (PostgreSQL, InnoDB); on
    // SQLite the transaction holds the write lock already.
    lockRun = "UPDATE " + w + " SET completions = completions WHERE workflow_id = ?";
    listRuns =
        "SELECT workflow_id FROM "
            + w
            + " WHERE state = ? ORDER BY created_at, workflow_id LIMIT ?";
    setRunState =
        "UPDATE "
            + w
            + " SET state = ?, final_state = ?, error = ?, updated_at = ?"
            + " WHERE workflow_id = ?";
    countCompletion = "UPDATE " + w + " SET completions = ?, updated_at = ? WHERE workflow_id = ?";
    insertStep =
        "INSERT INTO "
            + s
            + " (workflow_id, step, position, queue, depends_on, open_deps, state, signal_name,"
            + " comp_queue, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    selectSteps =
        "SELECT step, queue, depends_on, open_deps, state, attempts, result, error, completed_seq,"
            + " signal_name, signal_payload, comp_queue, comp_state, comp_attempts, comp_error"
            + " FROM "
            + s
            + " WHERE workflow_id = ? ORDER BY position";
    queuedSteps = "SELECT step, queue FROM " + s + " WHERE workflow_id = ? AND state = 'QUEUED'";
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
