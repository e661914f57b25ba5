package dev.onceonly.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.ProviderWorker.Charge;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Claims that renew their lease while the call runs, fenced like the queue's renewals: a renewed
 * claim outlives its first lease and no one takes it over; a holder that stalled past its lease and
 * was taken over cannot renew, nor settle. The heartbeat does the renewing on a real clock.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class ClaimRenewalTest extends ExternalTestSupport {

  @Test
  void aRenewedClaimSurvivesACallLongerThanItsLease() {
    IntentKey key = IntentKey.of("u-1", "pay-long");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Claim claim = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      clock.advance(Duration.ofSeconds(20));
      Claim renewed = effects.renew(claim, LEASE).orElseThrow();
      assertThat(renewed.leaseUntil()).isEqualTo(START.plusSeconds(50));
      assertThat(renewed.fence()).isEqualTo(claim.fence());
      clock.advance(Duration.ofSeconds(25)); // past the first lease, inside the renewed one
      assertThat(effects.check(claim)).isEqualTo(ClaimCheck.ACTIVE);
      assertThat(effects.claim(key, CHARGE_SAFE, ARGS, LEASE))
          .isInstanceOf(ClaimOutcome.InProgress.class);
      assertThat(effects.complete(claim, new Charge("res-1")))
          .isInstanceOf(Settlement.Completed.class);
    }
    assertThat(num(row(key), "fence")).isEqualTo(1);
    assertThat(num(row(key), "attempts")).isEqualTo(1);
    assertThat(row(key).get("state")).isEqualTo("COMPLETED");
  }

  @Test
  void aStalledHolderPastItsLeaseIsFencedAndCannotRenew() {
    IntentKey key = IntentKey.of("u-1", "pay-stalled");
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Claim stale = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      clock.advance(LEASE.plusSeconds(1));
      Claim winner = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      assertThat(effects.renew(stale, LEASE)).isEmpty();
      assertThat(effects.complete(stale, new Charge("late"))).isInstanceOf(Settlement.Fenced.class);
      assertThat(effects.renew(winner, LEASE)).isPresent();
      effects.complete(winner, new Charge("res-1"));
      assertThat(effects.renew(winner, LEASE)).as("settled: nothing to renew").isEmpty();
      assertThatThrownBy(() -> effects.renew(winner, Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("extension must be > 0");
    }
    assertThat(num(row(key), "fence")).isEqualTo(2);
  }

  /**
   * On the real clock: a call of three leases' length under a heartbeat keeps the intent (a second
   * claim meanwhile finds it in progress); the same call without one loses it to a takeover.
   */
  @Test
  void aHeartbeatKeepsTheLeaseThroughALongCallAndWithoutOneItIsTakenOver() {
    Duration lease = Duration.ofMillis(600);
    IntentKey kept = IntentKey.of("u-1", "pay-beating");
    IntentKey taken = IntentKey.of("u-1", "pay-silent");
    try (OnceOnly once = db.builder().safeToRepeat(CHARGE_SAFE).build()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      Claim claim = claimed(effects.claim(kept, CHARGE_SAFE, ARGS, lease));
      Optional<ClaimOutcome> meanwhile;
      try (ClaimHeartbeat beat = effects.heartbeat(claim, lease)) {
        // The long call: until the renewals have carried the lease two more leases past its first
        // end.
        Instant twoLeasesOn = claim.leaseUntil().plus(lease.multipliedBy(2));
        Eventually.await(
            Duration.ofSeconds(20),
            "the heartbeat renewed the lease past " + twoLeasesOn,
            () -> beat.claim().leaseUntil().isAfter(twoLeasesOn));
        meanwhile = Optional.of(effects.claim(kept, CHARGE_SAFE, ARGS, lease));
        assertThat(beat.isLost()).isFalse();
        assertThat(beat.claim().leaseUntil()).isAfter(claim.leaseUntil());
      }
      assertThat(meanwhile.get()).isInstanceOf(ClaimOutcome.InProgress.class);
      assertThat(effects.complete(claim, new Charge("res-1")))
          .isInstanceOf(Settlement.Completed.class);

      Claim silent = claimed(effects.claim(taken, CHARGE_SAFE, ARGS, lease));
      Eventually.await(
          Duration.ofSeconds(20),
          "the silent claim's lease ran out",
          () -> effects.check(silent) == ClaimCheck.LEASE_LOST);
      assertThat(effects.claim(taken, CHARGE_SAFE, ARGS, lease))
          .isInstanceOf(ClaimOutcome.Claimed.class);
      assertThat(effects.complete(silent, new Charge("late")))
          .isInstanceOf(Settlement.Fenced.class);
    }
    assertThat(num(row(kept), "fence")).isEqualTo(1);
    assertThat(num(row(taken), "fence")).isEqualTo(2);
  }
}
