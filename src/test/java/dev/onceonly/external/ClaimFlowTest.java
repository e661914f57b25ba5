package dev.onceonly.external;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.FakeProvider;
import dev.onceonly.testing.ProviderWorker;
import dev.onceonly.testing.ProviderWorker.Charge;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Claim, complete, repeat; lost responses, timeouts, takeovers and reconciliation. */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class ClaimFlowTest extends ExternalTestSupport {
  private final FakeProvider provider = FakeProvider.notDeduplicating();

  @Test
  void claimCompleteThenRepeatedAfterReopening() {
    IntentKey key = IntentKey.of("u-1", "pay-1");
    String downstream;
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      downstream = claim.downstreamKey();
      assertThat(claim.fence()).isEqualTo(1);
      assertThat(claim.attempt()).isEqualTo(1);
      assertThat(claim.leaseUntil()).isEqualTo(START.plus(LEASE));
      assertThat(downstream)
          .isEqualTo(ExternalEffects.downstreamKey(key))
          .startsWith(ExternalEffects.DOWNSTREAM_KEY_PREFIX)
          .hasSize(44);

      ClaimOutcome second = effects.claim(key, CHARGE, ARGS, LEASE);
      assertThat(second).isEqualTo(new ClaimOutcome.InProgress(key, START.plus(LEASE), false));

      assertThat(ProviderWorker.run(effects, provider, claim, BODY))
          .isInstanceOf(Settlement.Completed.class);
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("COMPLETED");
    assertThat(row.get("downstream_key")).isEqualTo(downstream);
    assertThat(row.get("result")).isEqualTo("{\"resource\":\"res-1\"}");
    assertThat(num(row, "attempts")).isEqualTo(1);

    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      ClaimOutcome again =
          effects.claim(key, CHARGE, Map.of("currency", "EUR", "amount", 1200), LEASE);
      assertThat(again).isInstanceOf(ClaimOutcome.Repeated.class);
      assertThat(
              again.<String>fold(
                  c -> "claimed",
                  p -> "in progress",
                  r -> "repeated " + r.resultTree().get("resource").asText(),
                  c -> "conflict",
                  u -> "unknown",
                  r -> "retry later",
                  f -> "failed",
                  c -> "cancelled"))
          .isEqualTo("repeated res-1");
      assertThat(again.claimed()).isEmpty();
      assertThat(((ClaimOutcome.Repeated) again).result(Charge.class))
          .isEqualTo(new Charge("res-1"));
      assertThat(effects.claim(key, CHARGE, Map.of("amount", 99), LEASE))
          .isInstanceOf(ClaimOutcome.Conflict.class);
      assertThat(effects.claim(IntentKey.of("u-2", "pay-1"), CHARGE, ARGS, LEASE))
          .as("the same key in another scope is another intent")
          .isInstanceOf(ClaimOutcome.Claimed.class);
    }
    assertThat(provider.effects(downstream)).isEqualTo(1);
    assertThat(provider.received(downstream)).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void lostResponseIsUnknownUntilReconciledByDownstreamKey() {
    IntentKey key = IntentKey.of("u-1", "pay-lost");
    String downstream;
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      downstream = claim.downstreamKey();
      provider.failNext(FakeProvider.Fault.LOSE_RESPONSE);
      Settlement s = ProviderWorker.run(effects, provider, claim, BODY);
      assertThat(s).isInstanceOf(Settlement.Unknown.class);
      clock.advance(Duration.ofMinutes(5));
      ClaimOutcome retry = effects.claim(key, CHARGE, ARGS, LEASE);
      assertThat(retry).isInstanceOf(ClaimOutcome.Unknown.class);
      ClaimOutcome.Unknown u = (ClaimOutcome.Unknown) retry;
      assertThat(u.attempts()).isEqualTo(1);
      assertThat(u.downstreamKey()).isEqualTo(downstream);
      assertThat(u.lastError()).contains("connection reset");
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("UNKNOWN");
    assertThat(row.get("failure_class")).isEqualTo("UNKNOWN_AFTER_SEND");
    assertThat(num(row, "maybe_applied")).isEqualTo(1);

    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      List<ClaimRecord> unknown = effects.unknown(10);
      assertThat(unknown).extracting(ClaimRecord::key).containsExactly(key);
      ClaimRecord evidence = unknown.get(0);
      assertThat(evidence.downstreamKey()).isEqualTo(downstream);
      assertThat(evidence.argumentsJson()).isEqualTo(BODY);
      // The reconciler asks the provider about the downstream key: it did apply it.
      String resource = provider.lookup(evidence.downstreamKey()).orElseThrow();
      assertThat(effects.resolveDone(key, new Charge(resource))).contains(ClaimState.COMPLETED);
      assertThat(effects.resolveDone(key, new Charge(resource))).isEmpty();
      assertThat(effects.unknown(10)).isEmpty();
    }
    try (OnceOnly once = open()) {
      ClaimOutcome later = once.externalEffects().claim(key, CHARGE, ARGS, LEASE);
      assertThat(((ClaimOutcome.Repeated) later).result(Charge.class))
          .isEqualTo(new Charge("res-1"));
    }
    assertThat(row(key).get("state")).isEqualTo("COMPLETED");
    assertThat(provider.effects(downstream)).isEqualTo(1);
    assertThat(provider.received(downstream)).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void timeoutAfterSendThatAppliedIsResolvedDone() {
    IntentKey key = IntentKey.of("u-1", "pay-slow");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      provider.failNext(FakeProvider.Fault.TIMEOUT_AFTER_APPLY);
      assertThat(ProviderWorker.run(effects, provider, claim, BODY))
          .isInstanceOf(Settlement.Unknown.class);
      ClaimRecord evidence = effects.unknown(10).get(0);
      assertThat(evidence.lastError()).contains("timed out");
      effects.resolveDone(key, new Charge(provider.lookup(evidence.downstreamKey()).orElseThrow()));
    }
    try (OnceOnly once = open()) {
      assertThat(once.externalEffects().claim(key, CHARGE, ARGS, LEASE))
          .isInstanceOf(ClaimOutcome.Repeated.class);
    }
    assertThat(provider.effects(ExternalEffects.downstreamKey(key))).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void timeoutAfterSendThatDidNotApplyIsResolvedNotDoneAndRetriedWithTheSameKey() {
    IntentKey key = IntentKey.of("u-1", "pay-timeout");
    String downstream = ExternalEffects.downstreamKey(key);
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim first = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      provider.failNext(FakeProvider.Fault.TIMEOUT_BEFORE_APPLY);
      assertThat(ProviderWorker.run(effects, provider, first, BODY))
          .isInstanceOf(Settlement.Unknown.class);
      assertThat(provider.lookup(downstream)).isEmpty();
      assertThat(effects.resolveNotDone(key)).contains(ClaimState.RETRY_WAIT);
    }
    assertThat(num(row(key), "maybe_applied")).isZero();
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim second = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      assertThat(second.downstreamKey()).isEqualTo(downstream);
      assertThat(second.fence()).isEqualTo(2);
      assertThat(second.attempt()).isEqualTo(2);
      assertThat(ProviderWorker.run(effects, provider, second, BODY))
          .isInstanceOf(Settlement.Completed.class);
    }
    assertThat(row(key).get("state")).isEqualTo("COMPLETED");
    assertThat(provider.received(downstream)).isEqualTo(2);
    assertThat(provider.effects(downstream)).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void takeoverOfASafeOperationFencesTheStaleCompleter() {
    FakeProvider deduplicating = FakeProvider.deduplicating();
    IntentKey key = IntentKey.of("u-1", "pay-takeover");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Claim stale = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      clock.advance(LEASE.plusSeconds(1)); // the first holder stalls past its lease
      assertThat(effects.check(stale)).isEqualTo(ClaimCheck.LEASE_LOST);
      Claim winner = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      assertThat(winner.fence()).isEqualTo(stale.fence() + 1);
      assertThat(winner.attempt()).isEqualTo(2);
      assertThat(winner.downstreamKey()).isEqualTo(stale.downstreamKey());

      assertThat(ProviderWorker.run(effects, deduplicating, winner, BODY))
          .isEqualTo(new Settlement.Completed(key, 2, "{\"resource\":\"res-1\"}"));
      // The stale holder wakes up, sends anyway (the provider deduplicates) and reports.
      assertThat(effects.check(stale)).isEqualTo(ClaimCheck.LEASE_LOST);
      Settlement late = effects.complete(stale, new Charge("res-from-stale"));
      assertThat(late).isEqualTo(new Settlement.Fenced(key, 1, ClaimState.COMPLETED));
      assertThat(effects.fail(stale, Failure.unknownAfterSend("late")))
          .isInstanceOf(Settlement.Fenced.class);
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("result")).isEqualTo("{\"resource\":\"res-1\"}");
    assertThat(num(row, "fence")).isEqualTo(2);
    assertThat(num(row, "attempts")).isEqualTo(2);
    assertThat(deduplicating.effects(ExternalEffects.downstreamKey(key))).isEqualTo(1);
    assertNoEffectTwice(deduplicating);
  }

  @Test
  void expiredLeaseOfAnUnsafeOperationIsUnknownButItsOwnLateCompletionIsKept() {
    IntentKey key = IntentKey.of("u-1", "pay-late");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim slow = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      clock.advance(LEASE);
      ClaimOutcome other = effects.claim(key, CHARGE, ARGS, LEASE);
      assertThat(other).isInstanceOf(ClaimOutcome.Unknown.class);
      assertThat(((ClaimOutcome.Unknown) other).lastError()).contains("ran out");
      // Nobody else claimed (the fence did not move): the slow holder's success is the truth.
      assertThat(effects.complete(slow, new Charge("res-1")))
          .isInstanceOf(Settlement.Completed.class);
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE)).isInstanceOf(ClaimOutcome.Repeated.class);
    }
    assertThat(row(key).get("state")).isEqualTo("COMPLETED");
  }

  @Test
  void unknownSweepsExpiredLeasesAndPagesInStableOrder() {
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      for (String k : List.of("d", "b", "e", "a", "c")) {
        claimed(effects.claim(IntentKey.of("u-1", k), CHARGE, ARGS, LEASE));
      }
      claimed(effects.claim(IntentKey.of("u-1", "safe"), CHARGE_SAFE, ARGS, LEASE));
      assertThat(effects.unknown(10)).isEmpty();
      clock.advance(LEASE);
      List<ClaimRecord> first = effects.unknown(2);
      assertThat(first).extracting(r -> r.key().key()).containsExactly("a", "b");
      assertThat(first).allSatisfy(r -> assertThat(r.maybeApplied()).isTrue());
      List<ClaimRecord> next = effects.unknownAfter(first.get(1).key(), 10);
      assertThat(next).extracting(r -> r.key().key()).containsExactly("c", "d", "e");
      assertThat(effects.find(IntentKey.of("u-1", "safe")).orElseThrow().state())
          .as("a safe operation with budget left becomes claimable again, not unknown")
          .isEqualTo(ClaimState.RETRY_WAIT);
    }
    assertThat(row(IntentKey.of("u-1", "e")).get("state")).isEqualTo("UNKNOWN");
    assertThat(row(IntentKey.of("u-1", "safe")).get("state")).isEqualTo("RETRY_WAIT");
  }
}
