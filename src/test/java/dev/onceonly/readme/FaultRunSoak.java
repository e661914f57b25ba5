package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.FaultReport;
import dev.onceonly.testing.FaultRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The long fault-injection run, named only (no default include matches it): {@code mvn -B test
 * -Dtest=FaultRunSoak}, {@code -Donceonly.faultrun.soak.kills=N} (default 500) and {@code
 * -Donceonly.faultrun.seed=S}. The right charge target over many kills, eight keys per child JVM,
 * so that kills land in later keys' steps too; then the wrong one, which must be caught; then the
 * queue target, killed in its acknowledgements among other points.
 */
class FaultRunSoak {
  static final int KILLS = Integer.getInteger("onceonly.faultrun.soak.kills", 500);

  @TempDir Path dir;

  @Test
  void theRightTargetThroughManyKills() {
    FaultReport report =
        FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
            .kills(KILLS)
            .keys(4 * KILLS)
            .keysPerChild(8)
            .seed(FaultRunTest.SEED)
            .file(dir.resolve("right.db"))
            .run();
    System.out.print(report.summary());
    assertThat(report.kills()).isEqualTo(KILLS);
    assertThat(report.clean()).as(report.summary()).isTrue();
  }

  @Test
  void theWrongTargetIsCaught() {
    FaultReport report =
        FaultRun.of(ChargeTargets.OutsideTheReceiptsTransaction.class, ChargeTargets.EFFECTS)
            .kills(Math.max(10, KILLS / 10))
            .seed(FaultRunTest.SEED)
            .file(dir.resolve("wrong.db"))
            .run();
    System.out.print(report.summary());
    assertThat(report.duplicates()).as(report.summary()).isPositive();
  }

  @Test
  void theQueueTargetThroughKillsInTheAcknowledgement() {
    FaultReport report =
        FaultRun.of(ChargeTargets.ThroughTheQueue.class, ChargeTargets.EFFECTS)
            .kills(Math.max(10, KILLS / 5))
            .seed(FaultRunTest.SEED)
            .file(dir.resolve("queue.db"))
            .run();
    System.out.print(report.summary());
    assertThat(report.clean()).as(report.summary()).isTrue();
    assertThat(report.killPoints().keySet())
        .as(report.summary())
        .anyMatch(p -> p.contains("DELETE FROM onceonly_messages"));
  }
}
