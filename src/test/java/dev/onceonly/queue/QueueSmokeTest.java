package dev.onceonly.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueSmokeTest {
  @TempDir Path dir;

  @Test
  void sendReceiveAckAndFencing() {
    MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    try (OnceOnly once = OnceOnly.builder().sqlite(dir.resolve("q.db")).clock(clock).build()) {
      JobQueue q = once.queue();
      assertThat(q.send("jobs", "a", Map.of("n", 1)).status()).isEqualTo(SendResult.Status.SENT);
      assertThat(q.send("jobs", "a", Map.of("n", 1)).status())
          .isEqualTo(SendResult.Status.REPEATED);
      assertThat(q.send("jobs", "a", Map.of("n", 2)).status())
          .isEqualTo(SendResult.Status.CONFLICT);
      List<Delivery> first = q.receive("jobs", 10, Duration.ofSeconds(30));
      assertThat(first).hasSize(1);
      assertThat(q.receive("jobs", 10, Duration.ofSeconds(30))).isEmpty();
      clock.advance(Duration.ofSeconds(31));
      List<Delivery> second = q.receive("jobs", 10, Duration.ofSeconds(30));
      assertThat(second).hasSize(1);
      assertThat(second.get(0).lease().fence()).isGreaterThan(first.get(0).lease().fence());
      assertThat(q.ack(first.get(0).lease())).isInstanceOf(QueueResult.LeaseLost.class);
      assertThat(q.ack(second.get(0).lease())).isInstanceOf(QueueResult.Completed.class);
      assertThat(q.depth("jobs")).isZero();
    }
  }
}
