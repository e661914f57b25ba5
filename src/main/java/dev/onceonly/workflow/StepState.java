package dev.onceonly.workflow;

/** Where one step of a run is. */
public enum StepState {
  /** Waiting for its dependencies or its signal. */
  WAITING,
  /** Its message is queued or being handled. */
  QUEUED,
  /** Done; its result is stored. */
  COMPLETED,
  /** Failed for good: dead-lettered. */
  FAILED,
  /** Stopped before it completed: the run failed or was cancelled. */
  CANCELLED
}
