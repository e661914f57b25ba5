package dev.onceonly.external;

/** Where a claim on an external effect stands, as stored in its row. */
public enum ClaimState {
  /** A worker holds the claim under a live or expired lease and may be running the effect. */
  IN_PROGRESS,
  /** The effect happened; its result is stored and returned to every later claim. */
  COMPLETED,
  /** An attempt failed without applying the effect; the next attempt is allowed from a time. */
  RETRY_WAIT,
  /** The effect did not happen and will not be attempted again under this intent. */
  FAILED,
  /**
   * An attempt may have applied the effect and nothing says whether it did (a lost response, a
   * lease that ran out without completion). Waits for reconciliation with its evidence kept; never
   * re-run silently.
   */
  UNKNOWN,
  /**
   * Cancellation was requested while a worker held the claim; no new attempt starts, and the
   * holder's own report decides between {@link #CANCELLED}, {@link #COMPLETED} and {@link
   * #UNKNOWN}.
   */
  CANCEL_REQUESTED,
  /** The effect did not happen and will not start under this intent: it was cancelled. */
  CANCELLED
}
