package dev.onceonly.workflow;

/** Where the compensation of a completed step is. */
public enum CompensationState {
  /** To run once the compensations of the steps completed after it have run. */
  PENDING,
  /** Its message is queued or being handled. */
  QUEUED,
  /** Done. */
  COMPLETED,
  /** Failed for good (dead-lettered); the compensations before it still run. */
  FAILED
}
