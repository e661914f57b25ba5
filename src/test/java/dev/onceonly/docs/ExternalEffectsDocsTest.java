package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimCheck;
import dev.onceonly.external.ClaimHeartbeat;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.ClaimState;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.external.Failure;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The java blocks of docs/external-effects.md, as they are written there, run on a SQLite file
 * against a provider of the test's own that remembers what it charged; the claims' states are read
 * back from a reopened store.
 */
class ExternalEffectsDocsTest extends SqliteDocsTest {
  record Charge(String id, long cents) {}

  /** The provider's 429, with the wait it requires. */
  static final class RateLimitedException extends Exception {
    private static final long serialVersionUID = 1L;

    RateLimitedException() {
      super("HTTP 429");
    }

    Duration retryAfter() {
      return Duration.ofSeconds(7);
    }
  }

  /** A payments provider: charges each downstream key once, or fails as it is told. */
  static final class Payments {
    final List<String> charged = new CopyOnWriteArrayList<>();
    String fail = "";

    Charge charge(Object args, String downstreamKey)
        throws SocketTimeoutException, RateLimitedException {
      if (fail.equals("timeout")) {
        charged.add(downstreamKey); // sent, and applied: the answer is what got lost
        throw new SocketTimeoutException("read timed out");
      }
      if (fail.equals("429")) {
        throw new RateLimitedException();
      }
      if (!charged.contains(downstreamKey)) {
        charged.add(downstreamKey);
      }
      return new Charge("ch-" + charged.indexOf(downstreamKey), 1250);
    }

    Charge charge(String downstreamKey, long amount)
        throws SocketTimeoutException, RateLimitedException {
      return charge(Map.of("cents", amount), downstreamKey);
    }
  }

  private final Payments payments = new Payments();

  private Charge chargeOnce(OnceOnly once, String userId, String requestKey, Object args)
      throws RateLimitedException {
    // ---- docs/external-effects.md, claim, call, settle ----
    ExternalEffects effects = once.externalEffects();
    ClaimOutcome outcome =
        effects.claim(IntentKey.of(userId, requestKey), "charge", args, Duration.ofSeconds(30));
    if (outcome instanceof ClaimOutcome.Claimed c) {
      Claim claim = c.claim();
      if (effects.check(claim) != ClaimCheck.ACTIVE) { // cancelled, or lease lost
        effects.abandon(claim);
      } else {
        try {
          Charge charge = payments.charge(args, claim.downstreamKey()); // Idempotency-Key header
          effects.complete(claim, charge);
        } catch (SocketTimeoutException e) {
          effects.fail(claim, Failure.unknownAfterSend(e.toString()));
        } catch (RateLimitedException e) {
          effects.fail(claim, Failure.rateLimited(e.getMessage(), e.retryAfter()));
        }
      }
    } else if (outcome instanceof ClaimOutcome.Repeated r) {
      return r.result(Charge.class); // it already happened: the stored result
    }
    // ---- end ----
    return null;
  }

  private ClaimState stateAfterReopening(IntentKey key) {
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      return once.externalEffects().find(key).orElseThrow().state();
    }
  }

  @Test
  void aChargeHappensOnceAndItsRetryGetsTheStoredResult() throws Exception {
    Map<String, Integer> args = Map.of("cents", 1250);
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      assertThat(chargeOnce(once, "u-1", "pay-1", args)).isNull(); // ran now
      assertThat(chargeOnce(once, "u-1", "pay-1", args)).isEqualTo(new Charge("ch-0", 1250));
    }
    assertThat(payments.charged).hasSize(1);
    assertThat(stateAfterReopening(IntentKey.of("u-1", "pay-1"))).isEqualTo(ClaimState.COMPLETED);
  }

  @Test
  void aTimeoutAfterSendingIsUnknownAndARateLimitWaits() throws Exception {
    Map<String, Integer> args = Map.of("cents", 1250);
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      payments.fail = "timeout";
      chargeOnce(once, "u-1", "pay-2", args);
      payments.fail = "429";
      chargeOnce(once, "u-1", "pay-3", args);
      payments.fail = "";
      assertThat(chargeOnce(once, "u-1", "pay-2", args)).isNull(); // unknown: not run again
    }
    assertThat(payments.charged).hasSize(1);
    assertThat(stateAfterReopening(IntentKey.of("u-1", "pay-2"))).isEqualTo(ClaimState.UNKNOWN);
    assertThat(stateAfterReopening(IntentKey.of("u-1", "pay-3"))).isEqualTo(ClaimState.RETRY_WAIT);
  }

  /** A provider's answer. */
  record Response(int status, String body, Duration retryAfter) {}

  private static void settle(ExternalEffects effects, Claim claim, Response response) {
    // ---- docs/external-effects.md, failure classes ----
    switch (response.status()) {
      case 400 -> effects.fail(claim, Failure.invalidArguments(response.body()));
      case 401, 403 -> effects.fail(claim, Failure.permissionDenied("HTTP " + response.status()));
      case 409, 412 -> effects.fail(claim, Failure.versionConflict(response.body()));
      case 429 -> effects.fail(claim, Failure.rateLimited("HTTP 429", response.retryAfter()));
      case 503 -> effects.fail(claim, Failure.transientFailure("HTTP 503, not forwarded"));
      default -> effects.fail(claim, Failure.unknownAfterSend("HTTP " + response.status()));
    }
    // and, for a bug before anything was sent: Failure.programmingError(exception)
    // ---- end ----
  }

  /** What docs/external-effects.md's table of failure classes says each status leaves. */
  private static ClaimState expected(int status) {
    if (status == 400 || status == 401 || status == 403 || status == 409 || status == 412) {
      return ClaimState.FAILED;
    }
    return status == 429 || status == 503 ? ClaimState.RETRY_WAIT : ClaimState.UNKNOWN;
  }

  @Test
  void everyStatusLeavesTheStateTheTableOfFailureClassesGives() {
    Random random = new Random(0x5747L);
    List<Integer> statuses = new ArrayList<>(List.of(400, 401, 403, 409, 412, 429, 500, 502, 503));
    for (int i = 0; i < 20; i++) {
      statuses.add(400 + random.nextInt(200));
    }
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      ExternalEffects effects = once.externalEffects();
      for (int i = 0; i < statuses.size(); i++) {
        IntentKey key = IntentKey.of("u-1", "status-" + i);
        Claim claim =
            ((ClaimOutcome.Claimed)
                    effects.claim(key, "charge", Map.of("i", i), Duration.ofSeconds(30)))
                .claim();
        settle(effects, claim, new Response(statuses.get(i), "refused", Duration.ofSeconds(3)));
      }
    }
    for (int i = 0; i < statuses.size(); i++) {
      assertThat(stateAfterReopening(IntentKey.of("u-1", "status-" + i)))
          .as("HTTP %d", statuses.get(i))
          .isEqualTo(expected(statuses.get(i)));
    }
  }

  @Test
  void aLongCallUnderAHeartbeatCompletesAndIsCompensatedUnderAKeyOfItsOwn() throws Exception {
    String userId = "u-1";
    String requestKey = "pay-9";
    long amount = 1250;
    Payments provider = payments;
    IntentKey chargeKey = IntentKey.of(userId, requestKey);
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      ExternalEffects effects = once.externalEffects();
      Claim claim =
          ((ClaimOutcome.Claimed)
                  effects.claim(
                      chargeKey, "charge", Map.of("cents", amount), Duration.ofSeconds(30)))
              .claim();
      Charge receipt;
      // ---- docs/external-effects.md, a heartbeat ----
      try (ClaimHeartbeat beat = effects.heartbeat(claim, Duration.ofSeconds(30))) {
        receipt = provider.charge(claim.downstreamKey(), amount); // may take minutes
        if (beat.isLost()) {
          /* taken over meanwhile: the settlement below will say Fenced */
        }
      }
      effects.complete(claim, receipt);
      // ---- end ----
      String chargeId = receipt.id();
      // ---- docs/external-effects.md, compensation ----
      ClaimOutcome o =
          effects.compensate(
              chargeKey,
              IntentKey.of(userId, "refund-" + requestKey),
              "refund",
              Map.of("charge", chargeId),
              Duration.ofSeconds(30));
      // ---- end ----
      assertThat(o).isInstanceOf(ClaimOutcome.Claimed.class);
      effects.complete(((ClaimOutcome.Claimed) o).claim(), Map.of("refunded", chargeId));
    }
    assertThat(stateAfterReopening(chargeKey)).isEqualTo(ClaimState.COMPLETED);
    assertThat(stateAfterReopening(IntentKey.of(userId, "refund-" + requestKey)))
        .isEqualTo(ClaimState.COMPLETED);
    assertThat(payments.charged).hasSize(1);
  }
}
