package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Drain;
import dev.onceonly.testing.DrainStep;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.OnceOnlyAssertions;
import dev.onceonly.testing.OnceOnlyTest;
import dev.onceonly.testing.Reopen;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The java blocks of docs/testing.md that are not README's ({@link ChargeHandlerTest}) or {@link
 * OnceOnlyExtensionTest}'s, run as written there; the rows are counted after a reopen.
 */
@OnceOnlyTest
class TestingDocsTest {
  @Test
  void aDrainRunsTheHandlerUntilTheQueueIsEmpty(OnceOnly once, MutableClock clock, Reopen reopen)
      throws Exception {
    Charges.createTable(once);
    once.queue().send("charges", "order-8", Map.of("order", "order-8", "cents", 990));
    // ---- docs/testing.md, drain ----
    List<DrainStep> steps =
        Drain.of(once.queue(), "charges", new ChargeHandler(once)).movingClock(clock).run();
    // ---- end ----
    assertThat(steps).extracting(DrainStep::completed).containsExactly(true);
    OnceOnlyAssertions.assertOnce(
        reopen.reopen(),
        ChargeHandler.key("order-8"),
        "SELECT COUNT(*) FROM charges WHERE order_id = ?");
  }

  @Test
  void theFaultTargetChargesAnOrderOnceHoweverOftenItRuns(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("target.db");
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(10_000);
    SQLiteDataSource application = new SQLiteDataSource(config);
    application.setUrl("jdbc:sqlite:" + file);
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      ChargeTarget target = new ChargeTarget();
      target.prepare(once, application);
      for (int run = 0; run < 3; run++) {
        target.run(once, "order-9");
      }
    }
    try (OnceOnly again = OnceOnly.openSqlite(file)) {
      OnceOnlyAssertions.assertOnce(
          again, ChargeHandler.key("order-9"), "SELECT COUNT(*) FROM charges WHERE order_id = ?");
    }
  }
}
