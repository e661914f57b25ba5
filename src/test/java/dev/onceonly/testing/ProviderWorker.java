package dev.onceonly.testing;

import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimCheck;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.external.Failure;
import dev.onceonly.external.FailureClass;
import dev.onceonly.external.Settlement;

/**
 * The worker side of an external effect against a {@link FakeProvider}: check the claim, call the
 * provider with the claim's downstream key, and report what happened, classifying each failure as
 * the provider's contract says.
 */
public final class ProviderWorker {
  /** The result kept for a completed effect: the provider's resource id. */
  public record Charge(String resource) {}

  private ProviderWorker() {}

  /** Runs one attempt under {@code claim} and returns the report's answer. */
  public static Settlement run(
      ExternalEffects effects, FakeProvider provider, Claim claim, String body) {
    if (effects.check(claim) != ClaimCheck.ACTIVE) {
      return effects.abandon(claim);
    }
    try {
      String id = provider.call(claim.downstreamKey(), claim.operation(), body);
      return effects.complete(claim, new Charge(id));
    } catch (FakeProvider.NoResponse e) {
      return effects.fail(claim, Failure.unknownAfterSend(e.getMessage()));
    } catch (FakeProvider.RateLimited e) {
      return effects.fail(claim, Failure.rateLimited(e.getMessage(), e.retryAfter()));
    } catch (FakeProvider.Refused e) {
      return effects.fail(claim, Failure.of(classify(e.status()), e.getMessage()));
    }
  }

  /** The provider's contract: which status means which failure class. */
  public static FailureClass classify(int status) {
    switch (status) {
      case 400:
        return FailureClass.INVALID_ARGUMENTS;
      case 401:
      case 403:
        return FailureClass.PERMISSION_DENIED;
      case 409:
        return FailureClass.VERSION_CONFLICT;
      case 503:
        return FailureClass.TRANSIENT;
      default:
        return FailureClass.UNKNOWN_AFTER_SEND; // a 500 does not prove nothing happened
    }
  }
}
