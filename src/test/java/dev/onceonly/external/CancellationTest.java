package dev.onceonly.external;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.FakeProvider;
import dev.onceonly.testing.FakeProvider.Fault;
import dev.onceonly.testing.ProviderWorker;
import dev.onceonly.testing.ProviderWorker.Charge;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Cancelling before, during and after an effect, and the race between a cancel and a claim. */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class CancellationTest extends ExternalTestSupport {
  private final FakeProvider provider = FakeProvider.notDeduplicating();

  @Test
  void cancelBeforeAnyClaimRecordsARowSoThatALateClaimCannotStart() {
    IntentKey key = IntentKey.of("u-1", "never");
    try (OnceOnly once = open()) {
      assertThat(once.externalEffects().cancel(key, "user changed their mind"))
          .isEqualTo(new CancelResult.Cancelled(key, "user changed their mind"));
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("CANCELLED");
    assertThat(row.get("operation")).isNull();
    assertThat(num(row, "fence")).isZero();
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE))
          .isEqualTo(new ClaimOutcome.Cancelled(key, "user changed their mind"));
      assertThat(effects.cancel(key, "again"))
          .isEqualTo(new CancelResult.Cancelled(key, "user changed their mind"));
    }
    assertThat(row(key).get("state")).isEqualTo("CANCELLED");
    assertThat(provider.requests()).isEmpty();
  }

  @Test
  void cancelWhileClaimedStopsTheWorkerBeforeItStarts() {
    IntentKey key = IntentKey.of("u-1", "in-flight");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      assertThat(effects.cancel(key, "stop"))
          .isEqualTo(new CancelResult.Requested(key, ClaimState.CANCEL_REQUESTED));
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE))
          .isEqualTo(new ClaimOutcome.InProgress(key, START.plus(LEASE), true));
      assertThat(effects.isCancelRequested(claim)).isTrue();
      assertThat(effects.check(claim)).isEqualTo(ClaimCheck.CANCEL_REQUESTED);
      // The worker checks before starting, sees the request and abandons.
      assertThat(ProviderWorker.run(effects, provider, claim, BODY))
          .isEqualTo(new Settlement.Cancelled(key, "stop"));
    }
    try (OnceOnly once = open()) {
      assertThat(once.externalEffects().claim(key, CHARGE, ARGS, LEASE))
          .isEqualTo(new ClaimOutcome.Cancelled(key, "stop"));
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("CANCELLED");
    assertThat(row.get("cancel_reason")).isEqualTo("stop");
    assertThat(num(row, "cancel_requested_at")).isEqualTo(START.toEpochMilli());
    assertThat(provider.requests()).isEmpty();
  }

  @Test
  void aFailureThatAppliedNothingAfterACancelRequestCancels() {
    IntentKey refused = IntentKey.of("u-1", "cancel-refused");
    IntentKey lost = IntentKey.of("u-1", "cancel-lost");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Claim a = claimed(effects.claim(refused, CHARGE, ARGS, LEASE));
      Claim b = claimed(effects.claim(lost, CHARGE, ARGS, LEASE));
      // Both workers already passed their check and are sending when the cancellations arrive.
      effects.cancel(refused, "stop");
      effects.cancel(lost, "stop");
      assertThat(effects.fail(a, Failure.of(FailureClass.TRANSIENT, "HTTP 503")))
          .as("no retry after a cancel request")
          .isEqualTo(new Settlement.Cancelled(refused, "stop"));
      assertThat(effects.fail(b, Failure.unknownAfterSend("read timed out")))
          .as("it may have happened: waiting for reconciliation, not cancelled")
          .isInstanceOf(Settlement.Unknown.class);
    }
    assertThat(row(refused).get("state")).isEqualTo("CANCELLED");
    assertThat(row(refused).get("failure_class")).isEqualTo("TRANSIENT");
    assertThat(row(lost).get("state")).isEqualTo("UNKNOWN");
    assertThat(row(lost).get("cancel_reason")).isEqualTo("stop");
  }

  @Test
  void cancelAfterTheEffectWasSentEndsCompletedAndIsThenRefused() throws Exception {
    IntentKey key = IntentKey.of("u-1", "too-late");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      assertThat(effects.check(claim)).isEqualTo(ClaimCheck.ACTIVE);
      String id = provider.call(claim.downstreamKey(), CHARGE, BODY);
      assertThat(effects.cancel(key, "stop"))
          .isEqualTo(new CancelResult.Requested(key, ClaimState.CANCEL_REQUESTED));
      assertThat(effects.complete(claim, new Charge(id)))
          .as("the effect happened; the cancellation came too late")
          .isInstanceOf(Settlement.Completed.class);
      assertThat(effects.cancel(key, "stop again"))
          .isEqualTo(new CancelResult.AlreadyCompleted(key, "{\"resource\":\"res-1\"}"));
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("COMPLETED");
    assertThat(row.get("cancel_reason")).isEqualTo("stop");
    assertThat(provider.effects(ExternalEffects.downstreamKey(key))).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void cancelAfterCompletionIsRefusedAndChangesNothing() {
    IntentKey key = IntentKey.of("u-1", "done");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      ProviderWorker.run(effects, provider, claim, BODY);
    }
    Map<String, Object> before = row(key);
    clock.advance(LEASE);
    try (OnceOnly once = open()) {
      assertThat(once.externalEffects().cancel(key, "refund instead"))
          .isInstanceOf(CancelResult.AlreadyCompleted.class);
    }
    assertThat(row(key)).isEqualTo(before);
    assertNoEffectTwice(provider);
  }

  @Test
  void cancelInFlightWhoseLeaseRunsOutWaitsForReconciliation() {
    IntentKey key = IntentKey.of("u-1", "vanished");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      claimed(effects.claim(key, CHARGE, ARGS, LEASE)); // the worker then vanishes
      effects.cancel(key, "stop");
      clock.advance(LEASE);
      ClaimOutcome later = effects.claim(key, CHARGE, ARGS, LEASE);
      assertThat(later).isInstanceOf(ClaimOutcome.Unknown.class);
      assertThat(((ClaimOutcome.Unknown) later).cancelRequested()).isTrue();
    }
    assertThat(row(key).get("state")).isEqualTo("UNKNOWN");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      ClaimRecord evidence = effects.unknown(10).get(0);
      assertThat(evidence.cancelReason()).isEqualTo("stop");
      assertThat(provider.lookup(evidence.downstreamKey())).isEmpty();
      assertThat(effects.resolveNotDone(key)).contains(ClaimState.CANCELLED);
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE))
          .isEqualTo(new ClaimOutcome.Cancelled(key, "stop"));
    }
    assertThat(row(key).get("state")).isEqualTo("CANCELLED");
  }

  @Test
  void cancelWhileWaitingForARetryCancelsAndAfterAFailureIsRefused() {
    IntentKey waiting = IntentKey.of("u-1", "waiting");
    IntentKey failed = IntentKey.of("u-1", "failed");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Claim a = claimed(effects.claim(waiting, CHARGE, ARGS, LEASE));
      provider.rateLimitNext(java.time.Duration.ofMinutes(1));
      assertThat(ProviderWorker.run(effects, provider, a, BODY))
          .isInstanceOf(Settlement.RetryScheduled.class);
      assertThat(effects.cancel(waiting, "stop"))
          .isEqualTo(new CancelResult.Cancelled(waiting, "stop"));

      Claim b = claimed(effects.claim(failed, CHARGE, ARGS, LEASE));
      provider.failNext(Fault.FORBIDDEN);
      ProviderWorker.run(effects, provider, b, BODY);
      assertThat(effects.cancel(failed, "stop"))
          .isEqualTo(new CancelResult.AlreadyFailed(failed, FailureClass.PERMISSION_DENIED));
    }
    clock.advance(java.time.Duration.ofHours(1));
    try (OnceOnly once = open()) {
      assertThat(once.externalEffects().claim(waiting, CHARGE, ARGS, LEASE))
          .isInstanceOf(ClaimOutcome.Cancelled.class);
    }
    assertThat(row(waiting).get("state")).isEqualTo("CANCELLED");
    assertThat(row(failed).get("state")).isEqualTo("FAILED");
    assertThat(provider.effectsByKey()).isEmpty();
  }

  @Test
  void theFirstToCommitWinsTheRaceBetweenCancelAndClaim() throws Exception {
    int keys = 32;
    List<IntentKey> intents = new ArrayList<>();
    List<Future<CancelResult>> cancels = new ArrayList<>();
    List<Future<Object>> workers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(2 * keys);
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      for (int i = 0; i < 200; i++) { // warm both paths up so neither side wins by class loading
        effects.claim(IntentKey.of("warm", "claim-" + i), CHARGE, ARGS, LEASE);
        effects.cancel(IntentKey.of("warm", "cancel-" + i), "warm-up");
      }
      CountDownLatch gate = new CountDownLatch(1);
      for (int i = 0; i < keys; i++) {
        IntentKey key = IntentKey.of("u-1", "race-" + i);
        intents.add(key);
        cancels.add(
            pool.submit(
                () -> {
                  gate.await();
                  return effects.cancel(key, "race");
                }));
        workers.add(
            pool.submit(
                () -> {
                  gate.await();
                  ClaimOutcome o = effects.claim(key, CHARGE, ARGS, LEASE);
                  return o instanceof ClaimOutcome.Claimed c
                      ? ProviderWorker.run(effects, provider, c.claim(), BODY)
                      : o;
                }));
      }
      gate.countDown();
      for (int i = 0; i < keys; i++) {
        cancels.get(i).get(30, TimeUnit.SECONDS);
        workers.get(i).get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    for (int i = 0; i < keys; i++) {
      IntentKey key = intents.get(i);
      CancelResult cancel = cancels.get(i).get();
      Object worker = workers.get(i).get();
      Map<String, Object> row = row(key);
      long effectsSeen = provider.effects(ExternalEffects.downstreamKey(key));
      if (cancel instanceof CancelResult.Cancelled) {
        // The cancellation committed first: the claim was refused, nothing was sent.
        assertThat(worker).isEqualTo(new ClaimOutcome.Cancelled(key, "race"));
        assertThat(row.get("state")).isEqualTo("CANCELLED");
        assertThat(provider.received(ExternalEffects.downstreamKey(key))).isZero();
      } else if (cancel instanceof CancelResult.Requested) {
        // The claim committed first: its worker either saw the request before starting, or had
        // already passed its check and completed. Never cancelled with an effect behind it.
        assertThat(worker).isInstanceOfAny(Settlement.Cancelled.class, Settlement.Completed.class);
        String expected = worker instanceof Settlement.Cancelled ? "CANCELLED" : "COMPLETED";
        assertThat(row.get("state")).isEqualTo(expected);
        assertThat(effectsSeen).isEqualTo(expected.equals("CANCELLED") ? 0 : 1);
      } else {
        // The claim and the whole effect committed before the cancellation.
        assertThat(cancel).isInstanceOf(CancelResult.AlreadyCompleted.class);
        assertThat(row.get("state")).isEqualTo("COMPLETED");
        assertThat(effectsSeen).isEqualTo(1);
      }
    }
    assertThat(claimRows()).isEqualTo(keys + 400);
    assertNoEffectTwice(provider);
  }

  @Test
  void whenTheClaimCommitsFirstTheCancelIsARequest() {
    IntentKey key = IntentKey.of("u-1", "claim-first");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      assertThat(effects.cancel(key, "race"))
          .isEqualTo(new CancelResult.Requested(key, ClaimState.CANCEL_REQUESTED));
      assertThat(effects.abandon(claim)).isEqualTo(new Settlement.Cancelled(key, "race"));
    }
    assertThat(row(key).get("state")).isEqualTo("CANCELLED");
    assertThat(provider.requests()).isEmpty();
  }
}
