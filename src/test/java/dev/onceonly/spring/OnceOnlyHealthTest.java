package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Failure;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * The health indicator in a real context on a SQLite file: {@code DOWN} while a dead letter or an
 * unknown external outcome exceeds its bound or the schema is not current, {@code UP} again once an
 * operator resolved it, with the figures as details.
 */
class OnceOnlyHealthTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner(Path file) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                OnceOnlyAutoConfiguration.class, OnceOnlyHealthAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  @Test
  void downForADeadLetterOrAnUnknownOutcomeOverTheBoundAndUpOnceResolved() {
    runner(dir.resolve("health.db"))
        .withPropertyValues(
            "onceonly.health.max-dead-letters=0", "onceonly.health.max-unknown-outcomes=0")
        .run(
            context -> {
              OnceOnlyHealthIndicator indicator = context.getBean(OnceOnlyHealthIndicator.class);
              OnceOnly once = context.getBean(OnceOnly.class);
              assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

              once.queue().send(Message.of("mail", "m-1", Map.of("to", "x")));
              List<Delivery> got = once.queue().receive("mail", 1, Duration.ofMinutes(1));
              once.queue().deadLetter(got.get(0).lease(), "no such mailbox");
              Health down = indicator.health();
              assertThat(down.getStatus()).isEqualTo(Status.DOWN);
              assertThat(down.getDetails()).containsEntry("deadLetters", 1L);
              assertThat(down.getDetails().get("problems").toString())
                  .contains("1 dead letters, more than onceonly.health.max-dead-letters 0");

              assertThat(once.queue().requeue("mail", "m-1")).isTrue(); // the operator's fix
              assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

              IntentKey key = IntentKey.of("u-1", "pay-1");
              var claim =
                  (ClaimOutcome.Claimed)
                      once.externalEffects()
                          .claim(key, "charge", Map.of("cents", 100), Duration.ofMinutes(1));
              once.externalEffects().fail(claim.claim(), Failure.unknownAfterSend("timeout"));
              Health unknown = indicator.health();
              assertThat(unknown.getStatus()).isEqualTo(Status.DOWN);
              assertThat(unknown.getDetails()).containsEntry("unknownOutcomes", 1L);

              once.externalEffects().resolveNotDone(key); // the operator checked the provider
              Health up = indicator.health();
              assertThat(up.getStatus()).isEqualTo(Status.UP);
              assertThat(up.getDetails())
                  .containsEntry("unknownOutcomes", 0L)
                  .containsEntry("schemaVersion", up.getDetails().get("schemaVersionRequired"))
                  .doesNotContainKey("problems");
            });
  }

  @Test
  void withoutBoundsTheFiguresAreOnlyReported() {
    runner(dir.resolve("unbounded.db"))
        .run(
            context -> {
              OnceOnly once = context.getBean(OnceOnly.class);
              once.queue().send(Message.of("mail", "m-1", Map.of("to", "x")));
              var got = once.queue().receive("mail", 1, Duration.ofMinutes(1));
              once.queue().deadLetter(got.get(0).lease(), "no such mailbox");
              Health health = context.getBean(OnceOnlyHealthIndicator.class).health();
              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails()).containsEntry("deadLetters", 1L);
            });
  }

  @Test
  void downWhileTheSchemaIsNotCurrent() {
    runner(dir.resolve("empty.db"))
        .withPropertyValues("onceonly.migrations=none")
        .run(
            context -> {
              Health health = context.getBean(OnceOnlyHealthIndicator.class).health();
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails()).containsEntry("schemaVersion", 0);
              assertThat(health.getDetails().get("problems").toString())
                  .contains("schema version 0 is not the required");
            });
  }
}
