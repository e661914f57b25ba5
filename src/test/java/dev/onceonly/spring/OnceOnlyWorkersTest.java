package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * Handler beans that cannot run fail the start with a message naming the bean; without any, no
 * worker runs. (Running workers: {@link PostgresWorkerBeansTest}.)
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

  @Test
  void badAnnotationsFailTheStartNamingTheBean() {
    runner()
        .withBean("mailer", NoThreads.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "@OnceOnlyHandler on bean 'mailer': threads must be > 0"));
    runner()
        .withBean("mailer", BadLease.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("@OnceOnlyHandler on bean 'mailer'")
                    .hasStackTraceContaining("soon"));
    runner()
        .withBean("mailer", NotAHandler.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "bean 'mailer' is annotated @OnceOnlyHandler but is no"
                            + " dev.onceonly.queue.Handler"));
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
