package dev.onceonly.external;

import java.util.Objects;

/**
 * What a {@link StatusProbe} found at the provider about an unknown claim: {@link Applied} with the
 * provider's result, {@link NotApplied}, or {@link StillUnknown}.
 */
public sealed interface ProbeAnswer {
  /**
   * The effect was applied: the claim becomes {@link ClaimState#COMPLETED} with the result, as by
   * {@link ExternalEffects#resolveDone}.
   *
   * @param result the provider's answer to keep (serialized with Jackson); may be null
   */
  record Applied(Object result) implements ProbeAnswer {}

  /**
   * The effect was not applied: a new attempt is allowed at once with the same downstream key, or
   * the claim is cancelled if cancellation was requested, as by {@link
   * ExternalEffects#resolveNotDone(dev.onceonly.IntentKey, String)}.
   *
   * @param reason what the provider said, for people (stored, bounded)
   */
  record NotApplied(String reason) implements ProbeAnswer {
    /**
     * Refuses a null reason.
     *
     * @param reason see the record
     */
    public NotApplied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The provider cannot tell yet: the claim stays {@link ClaimState#UNKNOWN} and is probed again
   * after the backoff.
   *
   * @param reason why, for people (stored, bounded)
   */
  record StillUnknown(String reason) implements ProbeAnswer {
    /**
     * Refuses a null reason.
     *
     * @param reason see the record
     */
    public StillUnknown {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The effect was applied, with this result.
   *
   * @param result the provider's answer to keep; may be null
   * @return the answer
   */
  static ProbeAnswer applied(Object result) {
    return new Applied(result);
  }

  /**
   * The effect was not applied.
   *
   * @param reason what the provider said
   * @return the answer
   */
  static ProbeAnswer notApplied(String reason) {
    return new NotApplied(reason);
  }

  /**
   * The provider cannot tell yet.
   *
   * @param reason why
   * @return the answer
   */
  static ProbeAnswer stillUnknown(String reason) {
    return new StillUnknown(reason);
  }
}
