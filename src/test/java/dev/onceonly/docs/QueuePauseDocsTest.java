package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.QueuePause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The java block of docs/queue.md's "Pausing a queue", as it is written there, on a SQLite file: it
 * logs the pause it read, leaves no pause row, and the message is claimed after it; paused again, a
 * claim leases nothing while the row is there.
 */
class QueuePauseDocsTest extends SqliteDocsTest {
  /** The application's logger, as the block uses it. */
  static final class Log {
    final List<String> lines = new ArrayList<>();

    void info(String line) {
      lines.add(line);
    }
  }

  @Test
  void aPausedQueueLeasesNothingUntilResumed() {
    Log log = new Log();
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      once.queue().send("mails", "welcome-1", 1).orThrow();
      // ---- docs/queue.md, pausing a queue ----
      JobQueue queue = once.queue();
      queue.pause("mails", "ops@example.com", "mail provider down, ticket 4711");
      // ... every instance's claims of "mails" lease nothing; sends still queue messages ...
      QueuePause pause = queue.paused("mails").orElseThrow();
      log.info("paused by " + pause.pausedBy() + " at " + pause.pausedAt() + ": " + pause.reason());
      queue.resume("mails"); // the next claims lease its due messages again
      // ---- end ----
      assertThat(queue.pause("mails", "x", null)).as("paused again, then resumed").isTrue();
      assertThat(queue.receive("mails", 10, Duration.ofMinutes(1))).isEmpty();
      assertThat(rows("SELECT COUNT(*) FROM onceonly_queue_pauses WHERE queue = 'mails'")).isOne();
      assertThat(queue.resume("mails")).isTrue();
      assertThat(log.lines).singleElement().asString().startsWith("paused by ops@example.com at ");
      assertThat(once.queue().receive("mails", 10, Duration.ofMinutes(1))).hasSize(1);
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_queue_pauses")).isZero();
  }
}
