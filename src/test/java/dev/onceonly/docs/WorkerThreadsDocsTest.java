package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.VirtualThreads;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The java block of docs/queue.md on the worker's threads, as it is written there, on a SQLite
 * file: the handlers run on the application's factory (virtual threads where the JDK has them, else
 * named platform threads), each job's row is there once, written on one of its threads.
 */
class WorkerThreadsDocsTest extends SqliteDocsTest {
  @Test
  void theHandlersRunOnTheApplicationsThreads() throws Exception {
    Db.exec(file(), "CREATE TABLE sent (message_key TEXT NOT NULL, thread_name TEXT NOT NULL)");
    AtomicInteger n = new AtomicInteger();
    ThreadFactory handlerThreads =
        VirtualThreads.available()
            ? VirtualThreads.factory("sms-")
            : r -> {
              Thread t = new Thread(r, "sms-" + n.getAndIncrement());
              t.setDaemon(true);
              return t;
            };
    Handler sender =
        job -> {
          String thread = Thread.currentThread().getName();
          job.completeWith(
              tx -> {
                try (PreparedStatement ps =
                    tx.prepareStatement(
                        "INSERT INTO sent (message_key, thread_name) VALUES (?, ?)")) {
                  ps.setString(1, job.lease().key());
                  ps.setString(2, thread);
                  return ps.executeUpdate();
                }
              });
        };
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      for (int i = 0; i < 50; i++) {
        once.queue().send(Message.of("sms", "sms-" + i, Map.of("n", i)));
      }
      // ---- docs/queue.md, the worker's threads ----
      Worker worker =
          Worker.builder(once.queue(), "sms", sender)
              .threads(200)
              .threadFactory(
                  handlerThreads) // Thread.ofVirtual().name("sms-", 0).factory() on Java 21
              .build()
              .start();
      // ---- end ----
      try (worker) {
        Eventually.await(
            Duration.ofSeconds(30), "every message sent", () -> once.queue().depth("sms") == 0);
      }
    }
    assertThat(rows("SELECT COUNT(DISTINCT message_key) FROM sent")).isEqualTo(50);
    assertThat(rows("SELECT COUNT(*) FROM sent")).isEqualTo(50);
    assertThat(rows("SELECT COUNT(*) FROM sent WHERE thread_name LIKE 'sms-%'")).isEqualTo(50);
  }
}
