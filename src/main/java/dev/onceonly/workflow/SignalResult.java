package dev.onceonly.workflow;

/** The answer of {@link Workflows#signal}. */
public enum SignalResult {
  /** Stored for the steps that await it; each becomes due once its dependencies completed. */
  DELIVERED,
  /** A signal of that name was already delivered to this run; this one changed nothing. */
  REPEATED,
  /** No step of the run awaits a signal of that name, or the run is over or unknown. */
  NOT_AWAITED
}
