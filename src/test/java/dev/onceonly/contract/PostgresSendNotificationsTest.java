package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.PostgresContractDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optional LISTEN/NOTIFY wake-up: a worker of one instance, idle with a poll interval far
 * longer than the test's patience, handles a message another instance sent within seconds, which
 * only a notification across instances can explain.
 */
class PostgresSendNotificationsTest {
  private static final Duration LONG_IDLE = Duration.ofMinutes(2);
  private static final Duration DUE_IN = Duration.ofSeconds(4);

  private final PostgresContractDatabase pg = PostgresContractDatabase.create();

  @TempDir Path dir;

  @AfterEach
  void closePools() {
    pg.close();
  }

  @Test
  void anIdleWorkerWakesWhenAnotherInstanceSends() throws Exception {
    HikariDataSource direct = pg.pool(1);
    CountDownLatch handled = new CountDownLatch(1);
    try (OnceOnly sender = pg.builder().listenForSends(pg.pool(1)).build();
        OnceOnly receiver = pg.builder().listenForSends(direct).build();
        Worker worker =
            Worker.builder(receiver.queue(), "mail", job -> handled.countDown())
                .idleBackoff(LONG_IDLE, LONG_IDLE)
                .build()) {
      worker.start();
      // The worker's first poll finds nothing; from then on it waits LONG_IDLE unless woken.
      assertThat(receiver.queue().depth("mail")).isZero();
      awaitListening();
      sender.queue().send(Message.of("mail", "m-1", Map.of("to", "a@example.org")));
      assertThat(handled.await(20, TimeUnit.SECONDS))
          .as("handled long before the next poll, %s from now", LONG_IDLE)
          .isTrue();
    }
    assertThat(pg.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void withoutNotificationsTheIdleWorkerWaitsForItsNextPoll() throws Exception {
    CountDownLatch handled = new CountDownLatch(1);
    try (OnceOnly sender = pg.builder().build();
        OnceOnly receiver = pg.builder().build();
        Worker worker =
            Worker.builder(receiver.queue(), "mail", job -> handled.countDown())
                .idleBackoff(LONG_IDLE, LONG_IDLE)
                .build()) {
      // The control for the test above: the same setup, no wake-up. The message is sent before
      // the worker starts, due a few seconds later, so the worker's first poll (at its start)
      // surely finds nothing due and it goes idle for LONG_IDLE; sending after the start instead
      // would race with that first poll. Nothing wakes it when the message falls due.
      sender
          .queue()
          .send(
              Message.of("mail", "m-1", Map.of("to", "a@example.org"))
                  .deliverAt(Instant.now().plus(DUE_IN)));
      worker.start();
      assertThat(handled.await(DUE_IN.toMillis() + 3_000, TimeUnit.MILLISECONDS))
          .as("delivered although no poll was due")
          .isFalse();
    }
    assertThat(pg.count("SELECT COUNT(*) FROM onceonly_messages")).isOne();
  }

  @Test
  void listeningNeedsPostgresql() {
    assertThatThrownBy(
            () -> OnceOnly.builder().sqlite(dir.resolve("x.db")).listenForSends(pg.pool(1)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("PostgreSQL");
  }

  /** Waits until the receiver's listening session holds its LISTEN (seen from the server). */
  private void awaitListening() {
    Eventually.await(
        Duration.ofSeconds(20),
        "both instances listening",
        () -> pg.count("SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'") >= 2);
  }
}
