package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.FaultReport;
import dev.onceonly.testing.FaultRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-injection kit against the two charge targets, 50 kills for the right one (each child
 * JVM killed with SIGKILL at a random statement or commit of its keys, two children at a time on
 * the one file), 10 for the wrong one: the right one loses and duplicates nothing, the wrong one is
 * caught charging twice. The long run is {@link FaultRunSoak}.
 */
class FaultRunTest {
  /** Kills of the right target: {@code -Donceonly.faultrun.kills=N}, default 50. */
  static final int KILLS = Integer.getInteger("onceonly.faultrun.kills", 50);

  /** Random seed of the kill points: {@code -Donceonly.faultrun.seed=S}, default 1. */
  static final long SEED = Long.getLong("onceonly.faultrun.seed", 1);

  @TempDir Path dir;

  @Test
  void theChargeInTheReceiptsTransactionHappensOnceThroughFiftyKills() {
    FaultReport report =
        FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
            .kills(KILLS)
            .keys(2 * KILLS)
            .seed(SEED)
            .parallel(2)
            .file(dir.resolve("right.db"))
            .run();
    System.out.print(report.summary());
    assertThat(report.kills()).as(report.summary()).isBetween(KILLS, KILLS + 1);
    assertThat(report.duplicates()).as(report.summary()).isZero();
    assertThat(report.lost()).as(report.summary()).isZero();
    assertThat(report.killPoints()).as(report.summary()).hasSizeGreaterThan(3);
    try (OnceOnly once = OnceOnly.openSqlite(report.file())) {
      assertThat(once.maintenance().status().receiptsLive()).isEqualTo(2 * KILLS);
    }
  }

  @Test
  void theChargeOutsideTheReceiptsTransactionIsCaughtChargingTwice() {
    FaultReport report =
        FaultRun.of(ChargeTargets.OutsideTheReceiptsTransaction.class, ChargeTargets.EFFECTS)
            .kills(10)
            .keys(20)
            .seed(7)
            .parallel(2)
            .file(dir.resolve("wrong.db"))
            .run();
    System.out.print(report.summary());
    assertThat(report.kills()).isBetween(10, 11);
    assertThat(report.duplicates()).as(report.summary()).isPositive();
    assertThat(report.duplicatedKeys()).isNotEmpty();
    assertThat(report.clean()).isFalse();
    assertThat(report.summary()).contains(" FAILED").contains("duplicated: k-");
  }
}
