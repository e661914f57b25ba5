package dev.onceonly.external;

/**
 * What a worker holding a claim should do now, as answered by {@link ExternalEffects#check}: ask
 * before starting the effect, and again after any long preparation returns.
 */
public enum ClaimCheck {
  /** The claim is current, its lease is live and nobody asked to cancel: start the effect. */
  ACTIVE,
  /**
   * Cancellation was requested: do not start; call {@link ExternalEffects#abandon} so the intent
   * becomes {@link ClaimState#CANCELLED}. If the effect was already sent, report what happened
   * instead ({@link ExternalEffects#complete} or {@link ExternalEffects#fail}).
   */
  CANCEL_REQUESTED,
  /**
   * This claim no longer holds the intent: its lease ran out, another claim took over (the fence
   * moved on), or the intent was settled. Do not start the effect.
   */
  LEASE_LOST
}
