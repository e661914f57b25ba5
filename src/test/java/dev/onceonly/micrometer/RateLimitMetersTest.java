package dev.onceonly.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.RateLimit;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rate limit's meters, from a real store's claims: the share of the window used after each
 * claim, and the waits of the claims that found it full.
 */
class RateLimitMetersTest {
  @TempDir Path dir;

  @Test
  void claimsOfALimitedQueueRecordTheirUseAndTheWaitOfAFullWindow() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(dir.resolve("limited.db"))
            .rateLimit("calls", RateLimit.of(2, Duration.ofHours(1)))
            .listener(OnceOnlyMetrics.of(registry))
            .build()) {
      for (int i = 0; i < 3; i++) {
        once.queue().send("calls", "c-" + i, Map.of("i", i));
      }
      assertThat(once.queue().receive("calls", 5, Duration.ofMinutes(1))).hasSize(2);
      assertThat(once.queue().receive("calls", 5, Duration.ofMinutes(1))).isEmpty();
      assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();
    }
    var use = registry.get("onceonly.queue.ratelimit.use").tags("queue", "calls").summary();
    assertThat(use.count()).isEqualTo(2);
    assertThat(use.max()).isEqualTo(1.0);
    var waits = registry.get("onceonly.queue.ratelimit.wait").tags("queue", "calls").timer();
    assertThat(waits.count()).isOne();
    assertThat(waits.max(java.util.concurrent.TimeUnit.MINUTES)).isGreaterThan(50);
  }
}
