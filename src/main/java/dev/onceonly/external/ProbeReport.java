package dev.onceonly.external;

/**
 * What one run of the status probes did ({@link ExternalEffects#resolveUnknown()}).
 *
 * @param probed probes run (each on a claim taken while it was unknown and due)
 * @param applied claims settled as applied ({@link ClaimState#COMPLETED})
 * @param notApplied claims settled as not applied (a new attempt allowed, or cancelled)
 * @param stillUnknown probes that answered {@link ProbeAnswer.StillUnknown}
 * @param failed probes that threw or answered null
 * @param timedOut probes that did not answer within {@link ProbePolicy#timeout()}
 * @param settledElsewhere answers that found the claim settled meanwhile (by an operator, a late
 *     completion or another instance) and changed nothing
 */
public record ProbeReport(
    int probed,
    int applied,
    int notApplied,
    int stillUnknown,
    int failed,
    int timedOut,
    int settledElsewhere) {
  /** A run that probed nothing. */
  public static final ProbeReport NONE = new ProbeReport(0, 0, 0, 0, 0, 0, 0);

  /** {@return the claims this run settled} */
  public int settled() {
    return applied + notApplied;
  }

  /**
   * Adds two reports.
   *
   * @param other the other report
   * @return the sums
   */
  public ProbeReport plus(ProbeReport other) {
    return new ProbeReport(
        probed + other.probed,
        applied + other.applied,
        notApplied + other.notApplied,
        stillUnknown + other.stillUnknown,
        failed + other.failed,
        timedOut + other.timedOut,
        settledElsewhere + other.settledElsewhere);
  }
}
