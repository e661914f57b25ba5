package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.BatchHandler;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * {@code @OnceOnlyHandler(batch = N)} on a {@link BatchHandler} bean, in a real Spring context on a
 * SQLite file: its worker gives the bean up to N jobs at once and their rows commit with their
 * acknowledgements, counted in the file after the context closed; a batch on a bean of the other
 * kind, or a bad batch size, fails the start naming the bean.
 */
class OnceOnlyBatchHandlerTest {
  @TempDir Path dir;

  /** The sizes of the batches the bean was given, across the test. */
  static final List<Integer> SIZES = new CopyOnWriteArrayList<>();

  @OnceOnlyHandler(queue = "orders", batch = 20, threads = 2)
  static class OrderRows implements BatchHandler {
    @Override
    public void handle(Connection tx, List<Delivery> deliveries) throws SQLException {
      SIZES.add(deliveries.size());
      try (PreparedStatement ps = tx.prepareStatement("INSERT INTO order_rows (id) VALUES (?)")) {
        for (Delivery d : deliveries) {
          ps.setString(1, d.payload().get("id").asText());
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
  }

  @OnceOnlyHandler(queue = "orders")
  static class BatchWithoutSize extends OrderRows {}

  @OnceOnlyHandler(queue = "orders", batch = 1001)
  static class BatchTooLarge extends OrderRows {}

  @OnceOnlyHandler(queue = "orders", batch = -1)
  static class BatchNegative extends OrderRows {}

  @OnceOnlyHandler(queue = "orders", batch = 10)
  static class SingleWithBatch implements Handler {
    @Override
    public void handle(Job job) {}
  }

  private ApplicationContextRunner runner(Path file) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  @Test
  void theBatchHandlerBeansRowsCommitWithTheirAcknowledgements() throws Exception {
    Path file = dir.resolve("orders.db");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      for (int i = 0; i < 200; i++) {
        once.queue().send(Message.of("orders", "o-" + i, Map.of("id", "o-" + i)));
      }
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      c.createStatement().execute("CREATE TABLE order_rows (id TEXT NOT NULL)");
    }
    SIZES.clear();
    runner(file)
        .withBean("orderRows", OrderRows.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OnceOnly once = context.getBean(OnceOnly.class);
              Eventually.await(
                  Duration.ofSeconds(45),
                  "orders drained",
                  () -> once.queue().depth("orders") == 0);
            });

    assertThat(count(file, "SELECT COUNT(*) FROM order_rows")).isEqualTo(200);
    assertThat(count(file, "SELECT COUNT(DISTINCT id) FROM order_rows")).isEqualTo(200);
    assertThat(count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(SIZES).allMatch(n -> n >= 1 && n <= 20).anyMatch(n -> n > 1);
  }

  @Test
  void aBatchOnTheWrongBeanOrOfABadSizeFailsTheStartNamingTheBean() {
    assertStartFails(
        BatchWithoutSize.class,
        "bean 'orderRows' is annotated @OnceOnlyHandler but is no dev.onceonly.queue.Handler",
        "set the annotation's batch");
    assertStartFails(
        BatchTooLarge.class,
        "@OnceOnlyHandler on bean 'orderRows': maxBatch must be between 1 and 1000");
    assertStartFails(
        BatchNegative.class,
        "@OnceOnlyHandler on bean 'orderRows': maxBatch must be between 1 and 1000");
    assertStartFails(
        SingleWithBatch.class,
        "bean 'orderRows' is annotated @OnceOnlyHandler(batch = 10) but is no"
            + " dev.onceonly.queue.BatchHandler");
  }

  private void assertStartFails(Class<?> type, String... texts) {
    runner(dir.resolve("refused.db"))
        .withBean("orderRows", type)
        .run(
            context -> {
              assertThat(context).hasFailed();
              for (String text : texts) {
                assertThat(context.getStartupFailure()).hasStackTraceContaining(text);
              }
            });
  }

  private static long count(Path file, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
