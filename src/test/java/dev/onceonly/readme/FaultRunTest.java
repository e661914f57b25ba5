package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.FaultReport;
import dev.onceonly.testing.FaultRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-injection kit, kept short for the build (each kill is a JVM start): the target of
 * docs/testing.md, which charges through the application's own data source with the receipt in the
 * charge's transaction, is OK and was killed in every class of points it reached, the application's
 * commits among them; the negative control, a charge on the application's connection after the
 * receipt, is caught charging twice in every run, whatever the seed. The long runs, with the
 * store-only targets, are {@link FaultRunSoak}.
 */
class FaultRunTest {
  /** Kills of the docs target: {@code -Donceonly.faultrun.kills=N}, default 8. */
  static final int KILLS = Integer.getInteger("onceonly.faultrun.kills", 8);

  /** Random seed of the kill points: {@code -Donceonly.faultrun.seed=S}, default 1. */
  static final long SEED = Long.getLong("onceonly.faultrun.seed", 1);

  @TempDir Path dir;

  @Test
  void theDocsTargetIsOkAndKilledAfterTheApplicationsCommits() throws Exception {
    FaultReport report =
        FaultRun.of(ChargeTarget.class, "SELECT order_id, COUNT(*) FROM charges GROUP BY order_id")
            .kills(KILLS)
            .parallel(2)
            .run();
    assertThat(report.ok()).as(report.summary()).isTrue();
    System.out.print(report.summary());
    assertThat(report.killPoints().keySet())
        .as(report.summary())
        .anyMatch(p -> p.startsWith("application: after COMMIT"));
    assertThat(report.reachedClasses())
        .contains("application: after commit", "point: charged, not committed");
    try (OnceOnly once = OnceOnly.openSqlite(report.file())) {
      assertThat(once.maintenance().status().receiptsLive()).isEqualTo(report.keys());
      assertThat(once.receipts().find(IntentKey.of("charges", "k-000000"))).isPresent();
    }
  }

  @Test
  void aChargeOutsideAnyReceiptOnTheApplicationsConnectionIsCaughtInEveryRun() {
    FaultReport report =
        FaultRun.of(ChargeTargets.OutsideAnyReceipt.class, ChargeTargets.EFFECTS)
            .kills(8)
            .keys(16)
            .seed(SEED)
            .parallel(2)
            .file(dir.resolve("control.db"))
            .run();
    System.out.print(report.summary());
    assertThat(report.duplicates()).as(report.summary()).isPositive();
    assertThat(report.killPoints()).containsKey("application: after INSERT INTO charges");
    assertThat(report.ok()).isFalse();
    assertThat(report.summary()).contains(" FAILED").contains("duplicated: k-");
  }

  @Test
  void aChargeThroughAPoolOfTheTargetsOwnIsIncompleteNeverOk() {
    FaultReport report =
        FaultRun.of(ChargeTargets.OwnPool.class, ChargeTargets.EFFECTS)
            .kills(8)
            .keys(16)
            .seed(SEED)
            .file(dir.resolve("own-pool.db"))
            .run();
    System.out.print(report.summary());
    assertThat(report.killedInTheApplication()).as(report.summary()).isFalse();
    assertThat(report.ok()).as(report.summary()).isFalse();
    assertThat(report.summary()).contains(" INCOMPLETE\n").doesNotContain(" OK\n");
  }

  @Test
  void aFailoverIsRefusedOnSqliteAndBeyondTheKillsAndATriggerThatThrowsFailsTheRun() {
    Runnable never = () -> {};
    FaultRun onSqlite =
        FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
            .file(dir.resolve("store.db"))
            .failover(never);
    assertThatThrownBy(onSqlite::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a failover needs a database cluster");
    assertThat(dir.resolve("store.db")).doesNotExist();
    String url = EmbeddedPg.url(EmbeddedPg.newDatabase("failover_refused"));
    FaultRun tooMany =
        FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
            .database(url, EmbeddedPg.properties())
            .failover(never)
            .kills(2)
            .failovers(3);
    assertThatThrownBy(tooMany::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failovers must be <= kills");
    assertThatThrownBy(() -> tooMany.failovers(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failovers must be between 1 and 100");
    FaultRun throwing =
        FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
            .database(url, EmbeddedPg.properties())
            .failover(
                () -> {
                  throw new IllegalStateException("no cluster here");
                })
            .kills(2)
            .keys(16)
            .failovers(1);
    assertThatThrownBy(throwing::run)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the failover trigger failed")
        .hasMessageContaining("no cluster here");
  }
}
