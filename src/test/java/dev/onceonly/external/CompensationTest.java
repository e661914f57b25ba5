package dev.onceonly.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.FakeProvider;
import dev.onceonly.testing.FakeProvider.Fault;
import dev.onceonly.testing.ProviderWorker;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** A compensation is a new intent with its own key, linked to the completed one it reverses. */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class CompensationTest extends ExternalTestSupport {
  private static final String REFUND = "refund";
  private static final Map<String, Object> REFUND_ARGS = Map.of("charge", "res-1");
  private static final String REFUND_BODY = "{\"charge\":\"res-1\"}";

  private final FakeProvider provider = FakeProvider.notDeduplicating();
  private final IntentKey charge = IntentKey.of("u-1", "pay-1");
  private final IntentKey refund = IntentKey.of("u-1", "pay-1-refund");

  private void completeCharge(ExternalEffects effects) {
    Claim claim = claimed(effects.claim(charge, CHARGE, ARGS, LEASE));
    assertThat(ProviderWorker.run(effects, provider, claim, BODY))
        .isInstanceOf(Settlement.Completed.class);
  }

  @Test
  void compensatesACompletedEffectUnderItsOwnKey() {
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      completeCharge(effects);
      assertThat(effects.cancel(charge, "customer asked"))
          .as("what happened cannot be cancelled, only compensated")
          .isInstanceOf(CancelResult.AlreadyCompleted.class);
      Claim claim = claimed(effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE));
      assertThat(claim.downstreamKey())
          .isEqualTo(ExternalEffects.downstreamKey(refund))
          .isNotEqualTo(ExternalEffects.downstreamKey(charge));
      assertThat(ProviderWorker.run(effects, provider, claim, REFUND_BODY))
          .isInstanceOf(Settlement.Completed.class);
      assertThat(effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE))
          .isInstanceOf(ClaimOutcome.Repeated.class);
    }
    try (OnceOnly once = open()) {
      ClaimRecord record = once.externalEffects().find(refund).orElseThrow();
      assertThat(record.compensates()).isEqualTo(charge);
      assertThat(record.state()).isEqualTo(ClaimState.COMPLETED);
    }
    assertThat(row(charge).get("state")).isEqualTo("COMPLETED");
    assertThat(row(refund).get("compensates_key")).isEqualTo("pay-1");
    assertThat(row(refund).get("result")).isEqualTo("{\"resource\":\"res-2\"}");
    assertThat(provider.effects(ExternalEffects.downstreamKey(charge))).isEqualTo(1);
    assertThat(provider.effects(ExternalEffects.downstreamKey(refund))).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void aCompensationThatFailsIsRetriedLikeAnyOtherEffect() {
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      completeCharge(effects);
      Claim first = claimed(effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE));
      provider.failNext(Fault.UNAVAILABLE);
      Settlement failed = ProviderWorker.run(effects, provider, first, REFUND_BODY);
      assertThat(failed).isInstanceOf(Settlement.RetryScheduled.class);
    }
    assertThat(row(refund).get("state")).isEqualTo("RETRY_WAIT");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      ClaimOutcome early = effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE);
      if (early instanceof ClaimOutcome.RetryLater later) {
        clock.set(later.nextAttemptAt());
      } else {
        assertThat(early).isInstanceOf(ClaimOutcome.Claimed.class); // a zero backoff was drawn
        effects.abandon(claimed(early));
      }
      Claim second = claimed(effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE));
      assertThat(second.attempt()).isEqualTo(2);
      assertThat(second.downstreamKey()).isEqualTo(ExternalEffects.downstreamKey(refund));
      assertThat(ProviderWorker.run(effects, provider, second, REFUND_BODY))
          .isInstanceOf(Settlement.Completed.class);
    }
    assertThat(row(refund).get("state")).isEqualTo("COMPLETED");
    assertThat(num(row(refund), "attempts")).isEqualTo(2);
    assertThat(provider.received(ExternalEffects.downstreamKey(refund))).isEqualTo(2);
    assertThat(provider.effects(ExternalEffects.downstreamKey(refund))).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void onlyACompletedEffectIsCompensatedAndNothingIsWrittenOtherwise() {
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      assertThatThrownBy(() -> effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("not claimed");
      claimed(effects.claim(charge, CHARGE, ARGS, LEASE));
      assertThatThrownBy(() -> effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("IN_PROGRESS, not COMPLETED");
      assertThatThrownBy(
              () ->
                  effects.compensate(charge, IntentKey.of("u-2", "x"), REFUND, REFUND_ARGS, LEASE))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("scope");
      assertThatThrownBy(() -> effects.compensate(charge, charge, REFUND, REFUND_ARGS, LEASE))
          .isInstanceOf(InvalidRequestException.class);
    }
    assertThat(claimRows()).isEqualTo(1);
  }

  @Test
  void aKeyUsedForSomethingElseIsNotACompensation() {
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      completeCharge(effects);
      claimed(effects.claim(refund, REFUND, REFUND_ARGS, LEASE));
      assertThatThrownBy(() -> effects.compensate(charge, refund, REFUND, REFUND_ARGS, LEASE))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("does not compensate pay-1");
    }
    assertThat(row(refund).get("compensates_key")).isNull();
  }
}
