package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import dev.onceonly.queue.Message;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * Handler beans that cannot run fail the start with a message naming the bean; without any, no
 * worker runs; the annotation's prefetch bounds what the worker claims, counted in the file.
 * (Running workers: {@link PostgresWorkerBeansTest}.)
 */
class OnceOnlyWorkersTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(
                    dir.resolve("workers.db"), SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  @OnceOnlyHandler(queue = "mail", threads = 0)
  static class NoThreads implements Handler {
    @Override
    public void handle(Job job) {}
  }

  @OnceOnlyHandler(queue = "mail", lease = "soon")
  static class BadLease implements Handler {
    @Override
    public void handle(Job job) {}
  }

  @OnceOnlyHandler(queue = "mail")
  static class NotAHandler {}

  @OnceOnlyHandler(queue = "mail", prefetch = 5000)
  static class BadPrefetch implements Handler {
    @Override
    public void handle(Job job) {}
  }

  @OnceOnlyHandler(queue = "mail", executionTimeout = "whenever")
  static class BadTimeout implements Handler {
    @Override
    public void handle(Job job) {}
  }

  /** Signals that a handler started, then holds it until released. */
  static volatile CountDownLatch started;

  static volatile CountDownLatch release;

  /** A handler that says it started, then waits to be released. */
  abstract static class HeldMailer implements Handler {
    @Override
    public void handle(Job job) throws InterruptedException {
      started.countDown();
      release.await();
    }
  }

  @OnceOnlyHandler(queue = "mail", prefetch = 0)
  static class StrictMailer extends HeldMailer {}

  @OnceOnlyHandler(queue = "mail")
  static class DefaultMailer extends HeldMailer {}

  @Test
  void badAnnotationsFailTheStartNamingTheBean() {
    assertStartFails(NoThreads.class, "@OnceOnlyHandler on bean 'mailer': threads must be > 0");
    assertStartFails(BadLease.class, "@OnceOnlyHandler on bean 'mailer'", "soon");
    assertStartFails(
        NotAHandler.class,
        "bean 'mailer' is annotated @OnceOnlyHandler but is no dev.onceonly.queue.Handler");
    assertStartFails(
        BadPrefetch.class,
        "@OnceOnlyHandler on bean 'mailer': prefetch must be between 0 and 1000");
    assertStartFails(BadTimeout.class, "@OnceOnlyHandler on bean 'mailer'", "whenever");
  }

  /** Starts a context with {@code type} as the bean "mailer" and expects its start to fail. */
  private void assertStartFails(Class<?> type, String... texts) {
    runner()
        .withBean("mailer", type)
        .run(
            context -> {
              assertThat(context).hasFailed();
              for (String text : texts) {
                assertThat(context.getStartupFailure()).hasStackTraceContaining(text);
              }
            });
  }

  /**
   * {@code prefetch = 0} on the annotation claims for the idle thread only: with ten messages
   * waiting in the file and the one thread's handler held, one message is leased; the default
   * (adaptive, from twice the threads) leases three in its first claim.
   */
  @Test
  void thePrefetchOfTheAnnotationBoundsWhatTheWorkerClaims() throws Exception {
    assertThat(leasedWhileTheHandlerIsHeld(StrictMailer.class, "strict.db")).isEqualTo(1);
    assertThat(leasedWhileTheHandlerIsHeld(DefaultMailer.class, "default.db")).isEqualTo(3);
  }

  private long leasedWhileTheHandlerIsHeld(Class<? extends Handler> type, String name)
      throws Exception {
    Path file = dir.resolve(name);
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      for (int i = 0; i < 10; i++) {
        once.queue().send(Message.of("mail", "m-" + i, Map.of("i", i)));
      }
    }
    started = new CountDownLatch(1);
    release = new CountDownLatch(1);
    long[] leased = {-1};
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE))
        .withBean("mailer", type)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
              try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                  ResultSet rs =
                      c.createStatement()
                          .executeQuery(
                              "SELECT COUNT(*) FROM onceonly_messages WHERE attempts > 0")) {
                rs.next();
                leased[0] = rs.getLong(1);
              } finally {
                release.countDown();
              }
            });
    return leased[0];
  }

  @Test
  void withoutHandlerBeansNoWorkerRuns() {
    runner()
        .run(
            context -> {
              OnceOnlyWorkers workers = context.getBean(OnceOnlyWorkers.class);
              assertThat(workers.isRunning()).isTrue();
              assertThat(workers.workers()).isEmpty();
            });
  }
}
