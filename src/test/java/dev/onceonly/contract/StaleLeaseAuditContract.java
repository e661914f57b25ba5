package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.maintenance.Audit;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The auditor's stale leases on every dialect, after a takeover: a message whose first lease ran
 * out, claimed again by a second holder who then stays away too, is reported stale like the first.
 * (Counted by an odd fence, the second claim made it even and the audit missed it.)
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class StaleLeaseAuditContract extends QueueContractSupport {
  private static final Duration LEASE = Duration.ofMinutes(1);

  @Test
  void aLeaseTakenOverAfterAnExpiryIsReportedStaleWhenItRunsOutToo() {
    once.queue().send("mail", "m-1", 1).orThrow();
    assertThat(once.queue().receive("mail", 1, LEASE)).hasSize(1);
    clock.advance(LEASE.plusSeconds(1)); // the first holder died
    assertThat(once.queue().receive("mail", 1, LEASE)).hasSize(1); // a second holder takes over
    clock.advance(Duration.ofHours(1)); // and stays away
    reopen();
    Audit.Report report =
        once.maintenance().audit(Audit.Rules.storeOnly(Duration.ofDays(1), Duration.ofMinutes(5)));
    assertThat(report.count(Audit.Kind.STALE_LEASE)).isOne();
    assertThat(once.maintenance().status().toString()).contains("mail");
  }
}
