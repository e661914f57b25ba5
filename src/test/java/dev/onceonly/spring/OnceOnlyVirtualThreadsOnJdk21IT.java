package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.VirtualThreads;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * {@code spring.threads.virtual.enabled=true} in a real context, on a JDK with virtual threads (the
 * pom's {@code jdk21-tests} profile): the {@code @OnceOnlyHandler} bean's worker runs it on virtual
 * threads named for the queue, and without the property on the worker's platform threads, as each
 * handled job's row in the SQLite file says after the context closed.
 */
class OnceOnlyVirtualThreadsOnJdk21IT {
  @TempDir Path dir;

  @OnceOnlyHandler(queue = "labels", threads = 4)
  static class Labels implements Handler {
    @Override
    public void handle(Job job) throws java.sql.SQLException {
      Thread t = Thread.currentThread();
      boolean virtual = VirtualThreads.isVirtual(t);
      job.completeWith(
          tx -> {
            try (PreparedStatement ps =
                tx.prepareStatement(
                    "INSERT INTO label_runs (label, virtual_thread, thread_name) VALUES (?, ?, ?)")) {
              ps.setString(1, job.lease().key());
              ps.setInt(2, virtual ? 1 : 0);
              ps.setString(3, t.getName());
              return ps.executeUpdate();
            }
          });
    }
  }

  @Test
  void theWorkerBeansHandlersRunOnVirtualThreadsWhenTheApplicationAsks() {
    assumeTrue(VirtualThreads.available(), "virtual threads need Java 21 or newer");
    Path on = run("on.db", true);
    assertThat(Db.count(on, "SELECT COUNT(*) FROM label_runs")).isEqualTo(20);
    assertThat(Db.count(on, "SELECT COUNT(*) FROM label_runs WHERE virtual_thread = 1"))
        .isEqualTo(20);
    assertThat(
            Db.count(
                on, "SELECT COUNT(*) FROM label_runs WHERE thread_name LIKE 'onceonly-labels-%'"))
        .isEqualTo(20);
    Path off = run("off.db", false);
    assertThat(Db.count(off, "SELECT COUNT(*) FROM label_runs WHERE virtual_thread = 0"))
        .isEqualTo(20);
  }

  private Path run(String name, boolean virtual) {
    Path file = dir.resolve(name);
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      for (int i = 0; i < 20; i++) {
        once.queue().send(Message.of("labels", "l-" + i, Map.of("n", i)));
      }
    }
    Db.exec(
        file,
        "CREATE TABLE label_runs (label TEXT NOT NULL, virtual_thread INTEGER NOT NULL,"
            + " thread_name TEXT NOT NULL)");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE))
        .withPropertyValues("spring.threads.virtual.enabled=" + virtual)
        .withBean("labels", Labels.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OnceOnly once = context.getBean(OnceOnly.class);
              Eventually.await(
                  Duration.ofSeconds(60),
                  "labels drained",
                  () -> once.queue().depth("labels") == 0);
            });
    return file;
  }
}
