package dev.onceonly.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extension on MariaDB: each test its own tables on the caller's data source, the clock the
 * store's, a restart that keeps what was committed, and no table left once the tests are done.
 */
class OnceOnlyExtensionMariaDbTest {
  private static HikariDataSource pool;

  @BeforeAll
  static void open() {
    pool = MariaDbServer.pool(MariaDbServer.newDatabase("extension"), 4);
  }

  @AfterAll
  static void noTableIsLeft() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = DATABASE()")) {
      assertThat(rs.next()).as("a table left behind").isFalse();
    } finally {
      pool.close();
    }
  }

  @RegisterExtension final OnceOnlyExtension store = OnceOnlyExtension.mariadb(pool);

  @RepeatedTest(2)
  void everyTestStartsEmptyAndARestartKeepsTheQueue(
      OnceOnly once, MutableClock clock, Reopen reopen) {
    assertThat(once.dialect()).isEqualTo(Dialect.MARIADB);
    assertThat(once.queue().depth("q")).isZero();
    assertThat(store.file()).isEmpty();
    once.queue().send("q", "k", Map.of("n", 1));
    OnceOnly again = reopen.reopen();
    clock.advance(Duration.ofMinutes(1));
    List<DrainStep> steps = Drain.of(again.queue(), "q", job -> {}).run();
    assertThat(steps)
        .singleElement()
        .extracting(DrainStep::result)
        .isInstanceOf(QueueResult.Completed.class);
    assertThat(again.queue().depth("q")).isZero();
  }
}
