package dev.onceonly.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code onceonly.queue.pauses}, from a real store's pauses and resumes: each one that changed
 * something counts once; pausing a paused queue or resuming a running one counts nothing.
 */
class QueuePauseMetersTest {
  @TempDir Path dir;

  @Test
  void pausesAndResumesThatChangedSomethingAreCounted() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(dir.resolve("paused.db"))
            .listener(OnceOnlyMetrics.of(registry))
            .build()) {
      assertThat(once.queue().pause("mails", "ops", "provider down")).isTrue();
      assertThat(once.queue().pause("mails", "ops", "again")).isFalse();
      assertThat(once.queue().resume("mails")).isTrue();
      assertThat(once.queue().resume("mails")).isFalse();
      assertThat(once.queue().pause("mails", "ops", null)).isTrue();
      assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();
    }
    assertThat(
            registry
                .get("onceonly.queue.pauses")
                .tags("queue", "mails", "change", "paused")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(
            registry
                .get("onceonly.queue.pauses")
                .tags("queue", "mails", "change", "resumed")
                .counter()
                .count())
        .isEqualTo(1);
  }
}
