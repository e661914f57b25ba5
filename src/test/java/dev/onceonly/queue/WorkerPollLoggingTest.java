package dev.onceonly.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker whose every poll fails the same way logs the failure at WARNING once, then at the 10th,
 * 100th... failure in a row, and the rest at DEBUG; not one WARNING per poll.
 */
class WorkerPollLoggingTest {
  @RegisterExtension final LogCapture log = LogCapture.of(Worker.class);
  @TempDir Path dir;

  @Test
  void aPollThatFailsAgainAndAgainIsLoggedAtWarningOnceThenEveryTenfold() {
    OnceOnly once = OnceOnly.openSqlite(dir.resolve("q.db"));
    JobQueue queue = once.queue();
    once.close(); // every receive now fails alike: the store is closed
    try (Worker worker =
        Worker.builder(queue, "jobs", job -> {})
            .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
            .build()
            .start()) {
      Eventually.await(Duration.ofSeconds(20), () -> pollFailures().size() >= 120);
    }
    List<LogRecord> failures = pollFailures();
    List<LogRecord> warnings =
        failures.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
    assertThat(warnings)
        .extracting(LogRecord::getMessage)
        .startsWith(
            "receive from jobs failed (the same failure again is logged at DEBUG, at WARNING"
                + " every tenfold)",
            "receive from jobs failed 10 times in a row",
            "receive from jobs failed 100 times in a row");
    assertThat(warnings.size()).isLessThanOrEqualTo(4); // 1, 10, 100 and perhaps 1,000
    assertThat(warnings).allSatisfy(r -> assertThat(r.getThrown()).isNotNull());
    assertThat(failures.stream().filter(r -> r.getLevel() == Level.FINE).count())
        .isGreaterThanOrEqualTo(failures.size() - 4);
  }

  private List<LogRecord> pollFailures() {
    return log.records().stream()
        .filter(r -> r.getMessage() != null && r.getMessage().startsWith("receive from jobs"))
        .toList();
  }
}
