package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueLimits;
import dev.onceonly.queue.RateLimit;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * Queue limits declared the Spring way, in a real context on a SQLite file: {@code
 * onceonly.queues.<name>.*} properties and the limits of {@code @OnceOnlyHandler} are the store's,
 * so the bean's worker and a direct claim both stay under them, counted in the file's rows after
 * the context closed; a limit declared twice differently, or spelled wrongly, fails the start
 * naming where.
 */
class OnceOnlyQueueLimitsTest {
  @TempDir Path dir;

  /** Writes a row per delivery, in its own connection to the file. */
  @OnceOnlyHandler(queue = "sms", threads = 4, rateLimit = "4/1h")
  static class SmsRows implements Handler {
    static volatile Path file;

    @Override
    public void handle(Job job) throws SQLException {
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
        c.createStatement().execute("PRAGMA busy_timeout = 10000");
        try (var ps = c.prepareStatement("INSERT INTO sms_rows (id) VALUES (?)")) {
          ps.setString(1, job.payload().get("id").asText());
          ps.executeUpdate();
        }
      }
    }
  }

  @OnceOnlyHandler(queue = "sms", rateLimit = "4 per hour")
  static class BadSpelling implements Handler {
    @Override
    public void handle(Job job) {}
  }

  @OnceOnlyHandler(queue = "sms", concurrencyLimit = 100_001)
  static class TooWide implements Handler {
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
  void theHandlersRateLimitHoldsForItsWorkerOverTheWholeWindow() throws Exception {
    Path file = dir.resolve("sms.db");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      for (int i = 0; i < 10; i++) {
        once.queue().send(Message.of("sms", "s-" + i, Map.of("id", "s-" + i)));
      }
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      c.createStatement().execute("CREATE TABLE sms_rows (id TEXT NOT NULL)");
    }
    SmsRows.file = file;
    runner(file)
        .withBean("smsRows", SmsRows.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OnceOnly once = context.getBean(OnceOnly.class);
              assertThat(once.queue().limits("sms").rate())
                  .contains(RateLimit.of(4, Duration.ofHours(1)));
              Eventually.await(
                  Duration.ofSeconds(45), "four messages handled", () -> rows(file) == 4);
              // The window is an hour long and full: the next claim has to wait most of it.
              Eventually.await(
                  Duration.ofSeconds(45),
                  "the worker told to wait for the window",
                  () -> once.queue().rateLimitWait("sms").compareTo(Duration.ofMinutes(50)) > 0);
              assertThat(once.queue().receive("sms", 10, Duration.ofSeconds(30))).isEmpty();
            });

    assertThat(count(file, "SELECT COUNT(*) FROM sms_rows")).isEqualTo(4);
    assertThat(count(file, "SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'sms'"))
        .isEqualTo(6);
    assertThat(count(file, "SELECT COUNT(*) FROM onceonly_rate_claims WHERE queue = 'sms'"))
        .isEqualTo(4);
  }

  @Test
  void propertiesDeclareConcurrencyAndRateLimitsOfAQueue() throws Exception {
    Path file = dir.resolve("calls.db");
    runner(file)
        .withPropertyValues(
            "onceonly.queues.calls.concurrency-limit=2",
            "onceonly.queues.calls.rate-limit=3/1h",
            "onceonly.queues.calls.concurrency-limit-per-partition=1",
            "onceonly.queues.calls.rate-limit-per-partition=2/PT1H")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OnceOnly once = context.getBean(OnceOnly.class);
              assertThat(once.queue().limits("calls"))
                  .isEqualTo(
                      new QueueLimits(
                          OptionalInt.of(2),
                          OptionalInt.of(1),
                          Optional.of(RateLimit.of(3, Duration.ofHours(1))),
                          Optional.of(RateLimit.of(2, Duration.ofHours(1)))));
              for (int i = 0; i < 6; i++) {
                once.queue().send(Message.of("calls", "c-" + i, Map.of("n", i)));
              }
              // two leased at once at most
              List<Delivery> first = once.queue().receive("calls", 6, Duration.ofMinutes(5));
              assertThat(first).hasSize(2);
              first.forEach(d -> once.queue().ack(d.lease()));
              // three claims an hour: one more, then none
              assertThat(once.queue().receive("calls", 6, Duration.ofMinutes(5))).hasSize(1);
              assertThat(once.queue().receive("calls", 6, Duration.ofMinutes(5))).isEmpty();
            });
    assertThat(count(file, "SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'calls'"))
        .isEqualTo(4);
  }

  @Test
  void aLimitDeclaredTwiceDifferentlyFailsTheStartNamingBothPlaces() {
    runner(dir.resolve("twice.db"))
        .withPropertyValues("onceonly.queues.sms.rate-limit=5/1h")
        .withBean("smsRows", SmsRows.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining(
                      "the rate-limit of queue 'sms' is declared twice: 5/PT1H by"
                          + " onceonly.queues.sms, 4/PT1H by @OnceOnlyHandler on bean 'smsRows'");
            });
    // The same value in both places is one declaration.
    runner(dir.resolve("same.db"))
        .withPropertyValues("onceonly.queues.sms.rate-limit=4/60m")
        .withBean("smsRows", SmsRows.class)
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aBadLimitFailsTheStartNamingThePropertyOrTheBean() {
    for (String[] bad :
        new String[][] {
          {"onceonly.queues.sms.rate-limit=fast", "onceonly.queues.sms: rate limit 'fast'"},
          {"onceonly.queues.sms.rate-limit=0/1m", "claims must be between 1 and 100000"},
          {"onceonly.queues.sms.rate-limit=5/2d", "window must be between 1 ms and 1 day"},
          {"onceonly.queues.sms.rate-limit=x/1m", "'x' is not a whole number of claims"},
          {"onceonly.queues.sms.concurrency-limit=0", "maxLeased must be between 1 and 100000"}
        }) {
      runner(dir.resolve("bad.db"))
          .withPropertyValues(bad[0])
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).hasStackTraceContaining(bad[1]);
              });
    }
    runner(dir.resolve("bad-bean.db"))
        .withBean("smsRows", BadSpelling.class)
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .hasStackTraceContaining(
                        "@OnceOnlyHandler on bean 'smsRows': rate limit '4 per hour' is not"
                            + " claims/window"));
    runner(dir.resolve("wide-bean.db"))
        .withBean("smsRows", TooWide.class)
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .hasStackTraceContaining(
                        "@OnceOnlyHandler on bean 'smsRows': the concurrency-limit of queue 'sms':"
                            + " maxLeased must be between 1 and 100000"));
  }

  private static long rows(Path file) {
    try {
      return count(file, "SELECT COUNT(*) FROM sms_rows");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long count(Path file, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
