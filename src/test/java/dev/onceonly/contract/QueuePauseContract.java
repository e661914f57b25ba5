package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueuePause;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RateLimit;
import dev.onceonly.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pausing a queue on every dialect: a row of the store that every instance's claims obey from its
 * commit on, that survives a reopen, and that leaves the work already leased to finish.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class QueuePauseContract extends QueueContractSupport {
  private static final String Q = "mails";
  private static final String OTHER = "invoices";
  private static final Duration LEASE = Duration.ofMinutes(1);

  private long unclaimed(String queue) {
    return db.count(
        "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND attempts = 0 AND leased = 0",
        queue);
  }

  @Test
  void aPauseHoldsForEveryInstanceSurvivesAReopenAndResumeReleasesTheQueue() {
    OnceOnly a = once;
    OnceOnly b = db.open(clock);
    try {
      a.queue().send(Q, "held", 0).orThrow();
      Delivery held = only(a.queue().receive(Q, 1, LEASE));
      for (int i = 0; i < 5; i++) {
        b.queue().send(Q, "m-" + i, i).orThrow();
      }
      b.queue().send(OTHER, "o-1", 1).orThrow();

      assertThat(a.queue().pause(Q, "ops@example", "mail provider down")).isTrue();
      clock.advance(Duration.ofSeconds(5));
      assertThat(b.queue().pause(Q, "someone-else", "again"))
          .as("pausing a paused queue keeps the first pause")
          .isFalse();

      assertThat(a.queue().receive(Q, 10, LEASE)).isEmpty();
      assertThat(b.queue().receive(Q, 10, LEASE)).isEmpty();
      assertThat(unclaimed(Q)).as("no attempt charged while paused").isEqualTo(5);
      assertThat(only(b.queue().receive(OTHER, 10, LEASE)).lease().key())
          .as("other queues are claimed")
          .isEqualTo("o-1");

      // The work leased before the pause finishes.
      assertThat(b.queue().renew(held.lease(), LEASE)).isInstanceOf(QueueResult.Renewed.class);
      assertThat(a.queue().ack(held.lease())).isInstanceOf(QueueResult.Completed.class);
      assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'held'"))
          .isZero();
    } finally {
      b.close();
    }

    OnceOnly reopened = reopen();
    QueuePause pause = reopened.queue().paused(Q).orElseThrow();
    assertThat(pause)
        .isEqualTo(new QueuePause(Q, "ops@example", T0, "mail provider down"))
        .as("the first pause's author, time and reason");
    assertThat(reopened.queue().pausedQueues()).containsExactly(pause);
    assertThat(reopened.queue().paused(OTHER)).isEmpty();
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM onceonly_queue_pauses WHERE queue = ? AND paused_by = ?",
                Q,
                "ops@example"))
        .isOne();
    assertThat(reopened.queue().receive(Q, 10, LEASE)).isEmpty();

    assertThat(reopened.queue().resume(Q)).isTrue();
    assertThat(reopened.queue().resume(Q)).as("resuming a running queue").isFalse();
    assertThat(reopened.queue().resume(OTHER)).isFalse();
    assertThat(reopened.queue().pausedQueues()).isEmpty();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_queue_pauses")).isZero();
    assertThat(reopened.queue().receive(Q, 10, LEASE)).hasSize(5);
  }

  /**
   * The claims that rank priorities, take the oldest, count partitions and charge rate limits all
   * lease nothing from a paused queue, and charge no rate-limit row.
   */
  @Test
  void aPausedQueueWithLimitsPrioritiesAndPartitionsLeasesNothing() {
    OnceOnly limited =
        db.builder()
            .clock(clock)
            .rateLimit(Q, RateLimit.of(100, Duration.ofHours(1)))
            .concurrencyLimitPerPartition(Q, 10)
            .build();
    OnceOnly rated =
        db.builder().clock(clock).rateLimitPerPartition(OTHER, RateLimit.of(100, LEASE)).build();
    try {
      for (int i = 0; i < 12; i++) {
        limited
            .queue()
            .send(Message.of(Q, "m-" + i, i).priority(i % 3).partition("p-" + (i % 2)))
            .orThrow();
        once.queue().send(Message.of(OTHER, "o-" + i, i).partition("p-" + (i % 2))).orThrow();
      }
      assertThat(limited.queue().receive(Q, 1, LEASE)).hasSize(1);
      assertThat(rated.queue().receive(OTHER, 1, LEASE)).hasSize(1);
      once.queue().pause(Q, "ops", null);
      once.queue().pause(OTHER, "ops", null);
      for (int i = 0; i < 5; i++) { // past the claims after which the oldest are taken first
        assertThat(limited.queue().receive(Q, 10, LEASE)).isEmpty();
        assertThat(rated.queue().receive(OTHER, 10, LEASE)).isEmpty();
        assertThat(once.queue().receive(Q, 10, LEASE)).isEmpty();
      }
      assertThat(unclaimed(Q)).isEqualTo(11);
      assertThat(unclaimed(OTHER)).isEqualTo(11);
      assertThat(db.count("SELECT COUNT(*) FROM onceonly_rate_claims")).isEqualTo(2);

      once.queue().resume(Q);
      once.queue().resume(OTHER);
      assertThat(limited.queue().receive(Q, 20, LEASE)).hasSize(11);
      assertThat(rated.queue().receive(OTHER, 20, LEASE)).hasSize(11);
    } finally {
      limited.close();
      rated.close();
    }
  }

  /**
   * Two instances, four threads each, claim a paused queue at once, over and over: none leases a
   * message, whatever the others' claims lock meanwhile.
   */
  @Test
  void racingClaimsOfTwoInstancesLeaseNothingFromAPausedQueue() throws Exception {
    for (int i = 0; i < 20; i++) {
      once.queue().send(Q, "m-" + i, i).orThrow();
    }
    once.queue().pause(Q, "ops", "race");
    OnceOnly b = db.open(clock);
    try {
      List<Integer> claimed =
          Race.run(
              8,
              t ->
                  () -> {
                    OnceOnly instance = t % 2 == 0 ? once : b;
                    int n = 0;
                    for (int i = 0; i < 25; i++) {
                      n += instance.queue().receive(Q, 5, LEASE).size();
                    }
                    return n;
                  });
      assertThat(claimed).containsOnly(0);
    } finally {
      b.close();
    }
    assertThat(unclaimed(Q)).isEqualTo(20);
  }

  /**
   * A resume while two instances' threads race to claim the paused queue: it does not wait for the
   * claims, and after it every message is leased exactly once.
   */
  @Test
  void aResumeAmidRacingClaimsReleasesEveryMessageOnce() throws Exception {
    for (int i = 0; i < 20; i++) {
      once.queue().send(Q, "m-" + i, i).orThrow();
    }
    once.queue().pause(Q, "ops", "race");
    OnceOnly b = db.open(clock);
    Set<String> leased = ConcurrentHashMap.newKeySet();
    AtomicInteger deliveries = new AtomicInteger();
    try {
      Race.run(
          8,
          t ->
              () -> {
                OnceOnly instance = t % 2 == 0 ? once : b;
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                for (int i = 0; deliveries.get() < 20 && System.nanoTime() < deadline; i++) {
                  if (t == 1 && i == 5) {
                    assertThat(instance.queue().resume(Q)).isTrue();
                  }
                  for (Delivery d : instance.queue().receive(Q, 3, LEASE)) {
                    leased.add(d.key());
                    deliveries.incrementAndGet();
                  }
                }
                return null;
              });
    } finally {
      b.close();
    }
    assertThat(deliveries.get()).isEqualTo(20);
    assertThat(leased).hasSize(20);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_queue_pauses")).isZero();
  }

  @Test
  void badInputIsRefusedAndWritesNothing() {
    assertThatThrownBy(() -> once.queue().pause(Q, " ", null))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("pausedBy");
    assertThatThrownBy(() -> once.queue().pause(Q, null, null))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> once.queue().pause(Q, "x".repeat(256), null))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> once.queue().pause(Q, "ops", "r".repeat(1001)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("reason");
    assertThatThrownBy(() -> once.queue().pause("bad queue", "ops", null))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("queue");
    assertThatThrownBy(() -> once.queue().resume("'; DROP TABLE x; --"))
        .isInstanceOf(InvalidRequestException.class);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_queue_pauses")).isZero();

    String longest = "é".repeat(1000);
    assertThat(once.queue().pause(Q, "b".repeat(255), longest)).isTrue();
    assertThat(reopen().queue().paused(Q).orElseThrow().reason()).isEqualTo(longest);
  }
}
