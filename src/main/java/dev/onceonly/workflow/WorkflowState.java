package dev.onceonly.workflow;

/** Where a run of a workflow is. */
public enum WorkflowState {
  /** Steps are waiting or running. */
  RUNNING,
  /** A step failed for good, or the run was cancelled with compensations: they are running. */
  COMPENSATING,
  /** Every step completed (or failed with every dependent running anyway). */
  COMPLETED,
  /** A step failed for good; its completed steps' compensations, if any, have run. */
  FAILED,
  /** Cancelled; its compensations, if asked for, have run. */
  CANCELLED;

  /** {@return whether the run is over} */
  public boolean finished() {
    return this == COMPLETED || this == FAILED || this == CANCELLED;
  }
}
