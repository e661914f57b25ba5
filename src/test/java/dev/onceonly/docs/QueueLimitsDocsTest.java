package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.RateLimit;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The java block of docs/queue-limits.md, as it is written there, on a SQLite file: the message is
 * sent to its partition, handled once under the limits, and the limits read back are the ones
 * declared; the rows are counted through a fresh connection after the store closed.
 */
class QueueLimitsDocsTest extends SqliteDocsTest {
  @Test
  void theProvidersLimitsAreDeclaredAndTheMessageIsSentOnceUnderThem() throws Exception {
    Path file = file();
    Db.exec(file, "CREATE TABLE sent_sms (message_key TEXT NOT NULL, recipient TEXT NOT NULL)");
    Handler sender =
        job ->
            job.completeWith(
                tx -> {
                  try (PreparedStatement ps =
                      tx.prepareStatement(
                          "INSERT INTO sent_sms (message_key, recipient) VALUES (?, ?)")) {
                    ps.setString(1, job.lease().key());
                    ps.setString(2, job.payload().get("to").asText());
                    return ps.executeUpdate();
                  }
                });
    // ---- docs/queue-limits.md, a provider's limits ----
    OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .rateLimit("sms", RateLimit.of(100, Duration.ofMinutes(1)))
            .rateLimitPerPartition("sms", RateLimit.of(5, Duration.ofSeconds(1)))
            .concurrencyLimit("sms", 8)
            .build();
    once.queue()
        .send(Message.of("sms", "sms-1001", Map.of("to", "+15550100")).partition("tenant-42"));
    Worker worker = Worker.builder(once.queue(), "sms", sender).threads(8).build().start();
    // at most 100 claims a minute over every instance, 5 a second for tenant-42, 8 at once
    // ---- end ----
    try {
      Eventually.await(
          Duration.ofSeconds(30), "the message handled", () -> once.queue().depth("sms") == 0);
      assertThat(once.queue().limits("sms").rate())
          .contains(RateLimit.of(100, Duration.ofMinutes(1)));
      assertThat(once.queue().limits("sms").ratePerPartition())
          .isEqualTo(Optional.of(RateLimit.of(5, Duration.ofSeconds(1))));
      assertThat(once.queue().limits("sms").maxLeased()).isEqualTo(OptionalInt.of(8));
    } finally {
      worker.close();
      once.close();
    }
    assertThat(rows("SELECT COUNT(*) FROM sent_sms WHERE message_key = 'sms-1001'")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_rate_claims WHERE queue = 'sms'")).isEqualTo(1);
  }
}
