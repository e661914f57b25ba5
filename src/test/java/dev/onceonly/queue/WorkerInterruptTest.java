package dev.onceonly.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handler that leaves its thread's interrupt flag set (the usual "catch InterruptedException,
 * interrupt again" pattern) does not stop the worker: only {@code close()} does.
 */
class WorkerInterruptTest {
  @TempDir Path dir;

  @Test
  void aHandlersLeftoverInterruptDoesNotEndThePollingThread() throws Exception {
    Path file = dir.resolve("interrupt.db");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      once.receipts()
          .execute(
              dev.onceonly.IntentKey.of("setup", "table"),
              "create",
              Map.of(),
              String.class,
              tx -> {
                try (Statement s = tx.createStatement()) {
                  s.execute("CREATE TABLE handled (job TEXT PRIMARY KEY)");
                }
                return "ok";
              });
      Handler handler =
          job -> {
            job.completeWith(
                tx -> {
                  try (PreparedStatement ps =
                      tx.prepareStatement("INSERT INTO handled (job) VALUES (?)")) {
                    ps.setString(1, job.delivery().key());
                    ps.executeUpdate();
                  }
                  return null;
                });
            if (job.delivery().key().equals("first")) {
              Thread.currentThread().interrupt(); // what a handler may leave behind
            }
          };
      try (Worker worker =
          Worker.builder(once.queue(), "jobs", handler)
              .threads(1)
              .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
              .build()
              .start()) {
        once.queue().send(Message.of("jobs", "first", Map.of()));
        Eventually.await(
            Duration.ofSeconds(20), "the first job handled", () -> once.queue().depth("jobs") == 0);
        for (int i = 0; i < 5; i++) {
          once.queue().send(Message.of("jobs", "after-" + i, Map.of()));
        }
        Eventually.await(
            Duration.ofSeconds(20),
            "the jobs sent after it handled by the same worker",
            () -> once.queue().depth("jobs") == 0);
      }
    }
    assertThat(Db.strings(file, "SELECT job FROM handled ORDER BY job"))
        .isEqualTo(List.of("after-0", "after-1", "after-2", "after-3", "after-4", "first"));
  }
}
