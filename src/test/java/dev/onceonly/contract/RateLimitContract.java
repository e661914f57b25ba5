package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.RateLimit;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.RateWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A queue's rate limit on every dialect, enforced by the database over every instance: a claim over
 * the limit leases nothing and charges no attempt; two instances with four worker threads each
 * never claim more than the limit in any window of the run, and claim on average at least eight
 * tenths of it per window while work waits.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class RateLimitContract extends QueueContractSupport {
  private static final String Q = "mails";
  private static final int N = 20;
  private static final Duration WINDOW = Duration.ofMillis(500);
  private static final int WINDOWS = 8;

  private OnceOnly open(RateLimit limit) {
    return db.builder().rateLimit(Q, limit).build(); // the system clock: windows pass for real
  }

  @Test
  void aClaimOverTheLimitLeasesNothingAndChargesNoAttempt() {
    OnceOnly limited = open(RateLimit.of(3, Duration.ofHours(1)));
    try {
      for (int i = 0; i < 5; i++) {
        limited.queue().send(Q, "m-" + i, i).orThrow();
      }
      assertThat(limited.queue().receive(Q, 10, Duration.ofMinutes(1))).hasSize(3);
      assertThat(limited.queue().receive(Q, 10, Duration.ofMinutes(1))).isEmpty();
      assertThat(limited.queue().rateLimitWait(Q)).isPositive();
      assertThat(
              db.count(
                  "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND attempts = 0", Q))
          .as("the two over the limit are due, never charged an attempt")
          .isEqualTo(2);
      assertThat(db.count("SELECT COUNT(*) FROM onceonly_rate_claims WHERE queue = ?", Q))
          .isEqualTo(3);
    } finally {
      limited.close();
    }
  }

  /**
   * A limit per partition holds each partition while the other partitions and the messages of no
   * partition are claimed past it; the queue's own rate limit, declared too, bounds the total.
   */
  @Test
  void aPartitionsLimitHoldsItWhileOthersGoOnAndTheQueuesLimitBoundsTheTotal() {
    OnceOnly limited =
        db.builder()
            .rateLimitPerPartition(Q, RateLimit.of(2, Duration.ofHours(1)))
            .rateLimit(Q, RateLimit.of(7, Duration.ofHours(1)))
            .build();
    try {
      for (String p : List.of("hot", "cold")) {
        for (int i = 0; i < 3; i++) {
          limited.queue().send(Message.of(Q, p + "-" + i, i).partition(p)).orThrow();
        }
      }
      for (int i = 0; i < 5; i++) {
        limited.queue().send(Q, "none-" + i, i).orThrow();
      }
      List<Delivery> first = limited.queue().receive(Q, 100, Duration.ofMinutes(1));
      assertThat(first).hasSize(7);
      assertThat(first.stream().map(d -> d.lease().key()).toList())
          .containsExactlyInAnyOrder(
              "hot-0", "hot-1", "cold-0", "cold-1", "none-0", "none-1", "none-2");
      assertThat(limited.queue().receive(Q, 100, Duration.ofMinutes(1))).isEmpty();
      assertThat(limited.queue().rateLimitWait(Q)).isPositive();
      assertThat(
              db.count(
                  "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND attempts = 0", Q))
          .as("the four left waiting are due, never charged an attempt")
          .isEqualTo(4);
    } finally {
      limited.close();
    }
  }

  /**
   * A concurrency limit and a rate limit both bound each claim, and priorities order what a claim
   * takes as without them.
   */
  @Test
  void aConcurrencyLimitAndARateLimitBothBoundEachClaimInPriorityOrder() {
    OnceOnly limited =
        db.builder()
            .concurrencyLimit(Q, 2)
            .rateLimit(Q, RateLimit.of(3, Duration.ofHours(1)))
            .build();
    try {
      for (int i = 0; i < 4; i++) {
        limited.queue().send(Q, "low-" + i, i).orThrow();
      }
      for (int i = 0; i < 2; i++) {
        limited.queue().send(Message.of(Q, "high-" + i, i).priority(5)).orThrow();
      }
      List<Delivery> first = limited.queue().receive(Q, 100, Duration.ofMinutes(1));
      assertThat(first.stream().map(d -> d.lease().key()).toList())
          .as("two at once, the higher priority first")
          .containsExactlyInAnyOrder("high-0", "high-1");
      first.forEach(d -> limited.queue().ack(d.lease()).orThrow());
      assertThat(limited.queue().receive(Q, 100, Duration.ofMinutes(1)))
          .as("room for two leases, but one claim left in the window")
          .hasSize(1);
      assertThat(limited.queue().receive(Q, 100, Duration.ofMinutes(1))).isEmpty();
      assertThat(db.count("SELECT COUNT(*) FROM onceonly_rate_claims WHERE queue = ?", Q))
          .isEqualTo(3);
    } finally {
      limited.close();
    }
  }

  /**
   * Two instances, four worker threads each, drain a backlog of {@value #WINDOWS} windows' worth.
   * Each message's claim time is read from its row while it is leased; every window of the run
   * (from any claim on) holds at most {@value #N} claims, and the whole windows from the first
   * claim to the last hold on average at least eight tenths of {@value #N} (a mean: one window in
   * which a loaded machine starved the workers is the machine's, not the limiter's).
   */
  @Test
  void twoInstancesClaimAtMostTheLimitPerWindowAndNearlyAllOfIt() throws Exception {
    for (int i = 0; i < N * WINDOWS; i++) {
      once.queue().send(Q, "m-" + i, i).orThrow();
    }
    List<Long> claimedAt = Collections.synchronizedList(new ArrayList<>());
    OnceOnly a = open(RateLimit.of(N, WINDOW));
    OnceOnly b = open(RateLimit.of(N, WINDOW));
    List<Worker> workers = new ArrayList<>();
    try {
      for (OnceOnly instance : List.of(a, b)) {
        workers.add(
            Worker.builder(instance.queue(), Q, job -> claimedAt.add(claimTime(job.delivery())))
                .threads(4)
                .build()
                .start());
      }
      Eventually.await(Duration.ofSeconds(60), "every message handled", () -> messages(Q) == 0);
    } finally {
      workers.forEach(Worker::close);
      a.close();
      b.close();
    }
    List<Long> times = new ArrayList<>(claimedAt);
    Collections.sort(times);
    assertThat(times).hasSize(N * WINDOWS);
    int most = RateWindows.mostInAnyWindow(times, WINDOW.toMillis());
    int least = RateWindows.leastInAWholeWindow(times, WINDOW.toMillis());
    double mean = RateWindows.meanInWholeWindows(times, WINDOW.toMillis());
    System.out.printf(
        java.util.Locale.ROOT,
        "rate limit [%s]: N=%d window=%s, most in any window %d, least in a whole window %d,"
            + " mean %.2f%n",
        db,
        N,
        WINDOW,
        most,
        least,
        mean);
    assertThat(most).as("claims in any window").isLessThanOrEqualTo(N);
    assertThat(times.get(times.size() - 1) - times.get(0))
        .as("the run spanned the whole windows the least is taken over")
        .isGreaterThanOrEqualTo((WINDOWS - 1) * WINDOW.toMillis());
    assertThat(mean)
        .as("claims per whole window while work waited (least %d)", least)
        .isGreaterThanOrEqualTo(0.8 * N);
  }

  /** The message's claim time, from its row (leased, so still there). */
  private long claimTime(Delivery d) {
    return db.count(
        "SELECT " + db.millis("first_claimed_at") + " FROM onceonly_messages WHERE id = ?",
        d.lease().messageId());
  }
}
