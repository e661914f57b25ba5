package dev.onceonly.external;

import static java.util.Locale.ROOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.testing.FakeProvider;
import dev.onceonly.testing.FakeProvider.Fault;
import dev.onceonly.testing.ProviderWorker;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Each failure class has its own reaction, and retries stay inside their budget. */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class FailureClassTest extends ExternalTestSupport {
  private final FakeProvider provider = FakeProvider.notDeduplicating();

  /** Claims {@code key}, runs one attempt that meets {@code fault}, returns the settlement. */
  private Settlement attempt(ExternalEffects effects, IntentKey key, String op, Fault fault) {
    Claim claim = claimed(effects.claim(key, op, ARGS, LEASE));
    provider.failNext(fault);
    return ProviderWorker.run(effects, provider, claim, BODY);
  }

  private void assertFinalFailure(IntentKey key, FailureClass cls, String errorPart) {
    try (OnceOnly once = open()) {
      clock.advance(Duration.ofDays(1));
      ClaimOutcome later = once.externalEffects().claim(key, CHARGE, ARGS, LEASE);
      assertThat(later).isInstanceOf(ClaimOutcome.Failed.class);
      ClaimOutcome.Failed f = (ClaimOutcome.Failed) later;
      assertThat(f.failureClass()).isEqualTo(cls);
      assertThat(f.error()).contains(errorPart);
      assertThat(f.attempts()).isEqualTo(1);
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("FAILED");
    assertThat(row.get("failure_class")).isEqualTo(cls.name());
    assertThat(num(row, "maybe_applied")).isZero();
    assertThat(provider.received(ExternalEffects.downstreamKey(key))).isEqualTo(1);
    assertThat(provider.effects(ExternalEffects.downstreamKey(key))).isZero();
  }

  /** One factory per failure class, each with the reaction its class defines. */
  static Map<FailureClass, Failure> oneFailureOfEachClass() {
    Map<FailureClass, Failure> out = new EnumMap<>(FailureClass.class);
    out.put(FailureClass.INVALID_ARGUMENTS, Failure.invalidArguments("HTTP 400 amount"));
    out.put(FailureClass.PERMISSION_DENIED, Failure.permissionDenied("HTTP 403"));
    out.put(FailureClass.RATE_LIMITED, Failure.rateLimited("HTTP 429", Duration.ofSeconds(30)));
    out.put(FailureClass.VERSION_CONFLICT, Failure.versionConflict("HTTP 412 stale ETag"));
    out.put(FailureClass.UNKNOWN_AFTER_SEND, Failure.unknownAfterSend("read timed out"));
    out.put(
        FailureClass.PROGRAMMING_ERROR, Failure.programmingError(new IllegalStateException("bug")));
    out.put(FailureClass.TRANSIENT, Failure.transientFailure("connection refused"));
    return out;
  }

  @Test
  void everyFailureClassHasAFactoryWhoseFailureIsStoredWithItsReaction() {
    Map<FailureClass, Failure> failures = oneFailureOfEachClass();
    assertThat(failures.keySet()).isEqualTo(EnumSet.allOf(FailureClass.class));
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      for (Map.Entry<FailureClass, Failure> e : failures.entrySet()) {
        assertThat(e.getValue().failureClass()).isEqualTo(e.getKey());
        IntentKey key = IntentKey.of("u-1", "factory-" + e.getKey().name().toLowerCase(ROOT));
        Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
        effects.fail(claim, e.getValue());
      }
    }
    Map<FailureClass, String> expected = new EnumMap<>(FailureClass.class);
    expected.put(FailureClass.INVALID_ARGUMENTS, "FAILED");
    expected.put(FailureClass.PERMISSION_DENIED, "FAILED");
    expected.put(FailureClass.RATE_LIMITED, "RETRY_WAIT");
    expected.put(FailureClass.VERSION_CONFLICT, "FAILED");
    expected.put(FailureClass.UNKNOWN_AFTER_SEND, "UNKNOWN");
    expected.put(FailureClass.PROGRAMMING_ERROR, "FAILED");
    expected.put(FailureClass.TRANSIENT, "RETRY_WAIT");
    for (FailureClass cls : FailureClass.values()) {
      Map<String, Object> row = row(IntentKey.of("u-1", "factory-" + cls.name().toLowerCase(ROOT)));
      assertThat(row.get("failure_class")).as(cls.name()).isEqualTo(cls.name());
      assertThat(row.get("state")).as(cls.name()).isEqualTo(expected.get(cls));
      assertThat((String) row.get("last_error"))
          .as(cls.name())
          .startsWith(failures.get(cls).error());
    }
    assertThat(failures.get(FailureClass.PROGRAMMING_ERROR).error())
        .isEqualTo("java.lang.IllegalStateException: bug");
  }

  @Test
  void theFactoriesRefuseNullsAndOnlyARateLimitCarriesAWait() {
    assertThatThrownBy(() -> Failure.invalidArguments(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("error");
    assertThatThrownBy(() -> Failure.transientFailure(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("error");
    assertThat(Failure.transientFailure("HTTP 503").requiredWait()).isZero();
    assertThat(Failure.versionConflict("HTTP 409").requiredWait()).isZero();
    assertThatThrownBy(() -> Failure.rateLimited("HTTP 429", Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("requiredWait");
  }

  @Test
  void invalidArgumentsFailAtOnceAndAreReturnedToTheCaller() {
    IntentKey key = IntentKey.of("u-1", "invalid");
    try (OnceOnly once = open()) {
      Settlement s = attempt(once.externalEffects(), key, CHARGE, Fault.INVALID);
      assertThat(s)
          .isEqualTo(new Settlement.Failed(key, FailureClass.INVALID_ARGUMENTS, "HTTP 400", 1));
    }
    assertFinalFailure(key, FailureClass.INVALID_ARGUMENTS, "HTTP 400");
  }

  @Test
  void permissionDeniedStops() {
    IntentKey key = IntentKey.of("u-1", "forbidden");
    try (OnceOnly once = open()) {
      assertThat(attempt(once.externalEffects(), key, CHARGE, Fault.FORBIDDEN))
          .isEqualTo(new Settlement.Failed(key, FailureClass.PERMISSION_DENIED, "HTTP 403", 1));
    }
    assertFinalFailure(key, FailureClass.PERMISSION_DENIED, "HTTP 403");
  }

  @Test
  void versionConflictFailsAndAsksForANewIntent() {
    IntentKey key = IntentKey.of("u-1", "stale-version");
    try (OnceOnly once = open()) {
      Settlement s = attempt(once.externalEffects(), key, CHARGE, Fault.VERSION_CONFLICT);
      assertThat(((Settlement.Failed) s).error())
          .isEqualTo("HTTP 409 (re-read the resource and submit a new intent)");
    }
    assertFinalFailure(key, FailureClass.VERSION_CONFLICT, "submit a new intent");
  }

  @Test
  void programmingErrorIsRecordedAndNotRetried() {
    IntentKey key = IntentKey.of("u-1", "bug");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      Settlement s;
      try {
        Object missing = null;
        missing.toString(); // the request body could not be built: nothing was sent
        throw new AssertionError("unreachable");
      } catch (NullPointerException bug) {
        s = effects.fail(claim, Failure.programmingError(bug));
      }
      assertThat(s).isInstanceOf(Settlement.Failed.class);
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("FAILED");
    assertThat(row.get("failure_class")).isEqualTo("PROGRAMMING_ERROR");
    assertThat((String) row.get("last_error")).startsWith("java.lang.NullPointerException");
    assertThat(provider.requests()).isEmpty();
  }

  @Test
  void unknownAfterSendWaitsForReconciliationUnlessSafeToRepeat() {
    FakeProvider deduplicating = FakeProvider.deduplicating();
    IntentKey unsafe = IntentKey.of("u-1", "unknown");
    IntentKey safe = IntentKey.of("u-1", "unknown-safe");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      assertThat(attempt(effects, unsafe, CHARGE, Fault.LOSE_RESPONSE))
          .isInstanceOf(Settlement.Unknown.class);

      Claim first = claimed(effects.claim(safe, CHARGE_SAFE, ARGS, LEASE));
      deduplicating.failNext(Fault.LOSE_RESPONSE);
      Settlement s = ProviderWorker.run(effects, deduplicating, first, BODY);
      assertThat(s).isInstanceOf(Settlement.RetryScheduled.class);
      clock.set(((Settlement.RetryScheduled) s).nextAttemptAt());
      Claim second = claimed(effects.claim(safe, CHARGE_SAFE, ARGS, LEASE));
      assertThat(second.downstreamKey()).isEqualTo(first.downstreamKey());
      assertThat(ProviderWorker.run(effects, deduplicating, second, BODY))
          .isEqualTo(new Settlement.Completed(safe, 2, "{\"resource\":\"res-1\"}"));
    }
    assertThat(row(unsafe).get("state")).isEqualTo("UNKNOWN");
    assertThat(row(safe).get("state")).isEqualTo("COMPLETED");
    assertThat(deduplicating.received(ExternalEffects.downstreamKey(safe))).isEqualTo(2);
    assertThat(deduplicating.effects(ExternalEffects.downstreamKey(safe))).isEqualTo(1);
    assertNoEffectTwice(provider);
    assertNoEffectTwice(deduplicating);
  }

  @Test
  void transientFailureIsRetriedWithBackoffAndTheSameDownstreamKey() {
    IntentKey key = IntentKey.of("u-1", "unavailable");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Settlement s = attempt(effects, key, CHARGE, Fault.UNAVAILABLE);
      assertThat(s).isInstanceOf(Settlement.RetryScheduled.class);
      Settlement.RetryScheduled r = (Settlement.RetryScheduled) s;
      assertThat(r.failureClass()).isEqualTo(FailureClass.TRANSIENT);
      assertThat(r.nextAttemptAt()).isBetween(START, START.plus(POLICY.baseDelay()));
      clock.set(r.nextAttemptAt());
      Claim again = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      assertThat(again.attempt()).isEqualTo(2);
      assertThat(ProviderWorker.run(effects, provider, again, BODY))
          .isInstanceOf(Settlement.Completed.class);
    }
    assertThat(row(key).get("state")).isEqualTo("COMPLETED");
    assertThat(provider.received(ExternalEffects.downstreamKey(key))).isEqualTo(2);
    assertNoEffectTwice(provider);
  }

  @Test
  void rateLimitHonoursTheRequiredWaitWithoutSleeping() {
    IntentKey key = IntentKey.of("u-1", "limited");
    Duration wait = Duration.ofSeconds(30);
    Instant next;
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      clock.advance(Duration.ofSeconds(2));
      Instant failedAt = clock.instant();
      provider.rateLimitNext(wait);
      Settlement s = ProviderWorker.run(effects, provider, claim, BODY);
      next = ((Settlement.RetryScheduled) s).nextAttemptAt();
      assertThat(next).isAfterOrEqualTo(failedAt.plus(wait));
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("RETRY_WAIT");
    assertThat(row.get("failure_class")).isEqualTo("RATE_LIMITED");
    assertThat(num(row, "next_attempt_at")).isEqualTo(next.toEpochMilli());
    assertThat(num(row, "first_attempt_at")).isEqualTo(START.toEpochMilli());
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      clock.set(next.minusMillis(1));
      ClaimOutcome early = effects.claim(key, CHARGE, ARGS, LEASE);
      assertThat(early)
          .isEqualTo(
              new ClaimOutcome.RetryLater(
                  key,
                  next,
                  1,
                  FailureClass.RATE_LIMITED,
                  "429 Too Many Requests, Retry-After 30s"));
      clock.set(next);
      Claim due = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      assertThat(ProviderWorker.run(effects, provider, due, BODY))
          .isInstanceOf(Settlement.Completed.class);
    }
    assertThat(provider.received(ExternalEffects.downstreamKey(key))).isEqualTo(2);
    assertNoEffectTwice(provider);
  }

  @Test
  void spentAttemptBudgetGivesUpIntoFailedWithTheLastError() {
    IntentKey key = IntentKey.of("u-1", "budget");
    RetryPolicy three =
        RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ofSeconds(1)).build();
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(three);
      Settlement s = null;
      for (int attempt = 1; attempt <= 3; attempt++) {
        ClaimOutcome o = effects.claim(key, CHARGE, ARGS, LEASE);
        assertThat(claimed(o).attempt()).isEqualTo(attempt);
        provider.failNext(Fault.UNAVAILABLE);
        s = ProviderWorker.run(effects, provider, claimed(o), BODY);
        if (s instanceof Settlement.RetryScheduled r) {
          clock.set(r.nextAttemptAt());
        }
      }
      assertThat(s)
          .isEqualTo(
              new Settlement.Failed(
                  key,
                  FailureClass.TRANSIENT,
                  "retry budget spent after 3 attempts; last error: HTTP 503",
                  3));
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE)).isInstanceOf(ClaimOutcome.Failed.class);
    }
    assertThat(row(key).get("state")).isEqualTo("FAILED");
    assertThat(provider.received(ExternalEffects.downstreamKey(key))).isEqualTo(3);
    assertThat(provider.effectsByKey()).isEmpty();
  }

  @Test
  void aRequiredWaitBeyondTheTimeBudgetGivesUpAtOnce() {
    IntentKey key = IntentKey.of("u-1", "too-long");
    RetryPolicy hour = RetryPolicy.builder().maxElapsed(Duration.ofHours(1)).build();
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(hour);
      Claim claim = claimed(effects.claim(key, CHARGE, ARGS, LEASE));
      provider.rateLimitNext(Duration.ofHours(2));
      Settlement s = ProviderWorker.run(effects, provider, claim, BODY);
      assertThat(s).isInstanceOf(Settlement.Failed.class);
      assertThat(((Settlement.Failed) s).failureClass()).isEqualTo(FailureClass.RATE_LIMITED);
    }
    assertThat(row(key).get("state")).isEqualTo("FAILED");
  }

  @Test
  void aSafeOperationThatMayHaveAppliedNeverEndsAsFailed() {
    FakeProvider deduplicating = FakeProvider.deduplicating();
    IntentKey key = IntentKey.of("u-1", "maybe");
    RetryPolicy two = RetryPolicy.builder().maxAttempts(2).baseDelay(Duration.ZERO).build();
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(two);
      Claim first = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      deduplicating.failNext(Fault.TIMEOUT_AFTER_APPLY);
      assertThat(ProviderWorker.run(effects, deduplicating, first, BODY))
          .isInstanceOf(Settlement.RetryScheduled.class);
      Claim second = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      deduplicating.failNext(Fault.UNAVAILABLE);
      Settlement s = ProviderWorker.run(effects, deduplicating, second, BODY);
      assertThat(s)
          .as("budget spent, but the first attempt may have applied the effect")
          .isInstanceOf(Settlement.Unknown.class);
      assertThat(effects.unknown(10)).extracting(ClaimRecord::key).containsExactly(key);
    }
    assertThat(row(key).get("state")).isEqualTo("UNKNOWN");
    assertNoEffectTwice(deduplicating);
  }

  @Test
  void onlyARateLimitCarriesAWait() {
    assertThatThrownBy(() -> new Failure(FailureClass.TRANSIENT, "x", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("only RATE_LIMITED carries a required wait");
    assertThatThrownBy(() -> Failure.rateLimited("x", Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("requiredWait must be >= 0");
    assertThat(Failure.rateLimited("x", Duration.ofSeconds(5)).requiredWait())
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aFencedReportThrowsOnlyWhenAsked() {
    IntentKey key = IntentKey.of("u-1", "fenced");
    Settlement fenced = new Settlement.Fenced(key, 3, ClaimState.COMPLETED);
    assertThatThrownBy(fenced::orThrow)
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("fence 3");
    Settlement done = new Settlement.Completed(key, 4, "{}");
    assertThat(done.orThrow()).isSameAs(done);
  }
}
