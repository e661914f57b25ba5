package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Settlement;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two stores on one file whose clocks disagree: one runs an hour ahead of the other, or jumps. A
 * skewed clock moves when a lease looks expired (a non-guarantee, N15), but it must never let a
 * stale holder acknowledge, renew or complete, nor two holders both commit an effect: the fence and
 * the receipt decide, not the clocks.
 */
class ClockSkewTest {
  private static final String Q = "skew";
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration HOUR = Duration.ofHours(1);

  @TempDir Path dir;
  private Path file;
  private MutableClock slow;
  private MutableClock fast;
  private OnceOnly onSlow;
  private OnceOnly onFast;

  @BeforeEach
  void open() {
    file = dir.resolve("skew.db");
    slow = MutableClock.at("2026-11-30T12:00:00Z");
    fast = MutableClock.at("2026-11-30T13:00:00Z"); // an hour ahead
    onSlow = OnceOnly.builder().sqlite(file).clock(slow).safeToRepeat("notify").build();
    onFast = OnceOnly.builder().sqlite(file).clock(fast).safeToRepeat("notify").build();
    Db.exec(file, "CREATE TABLE skew_effects (intent_key TEXT NOT NULL, holder TEXT NOT NULL)");
  }

  @AfterEach
  void close() {
    onSlow.close();
    onFast.close();
  }

  @Test
  void aClockAheadTakesOverALiveLeaseButTheStaleHolderIsFencedOff() throws Exception {
    onSlow.queue().send(Q, "m-1", Map.of("n", 1));
    Lease stale = single(onSlow.queue().receive(Q, 1, LEASE)).lease();
    // To the clock an hour ahead, the lease ran out long ago: it claims the message again.
    Lease current = single(onFast.queue().receive(Q, 1, LEASE)).lease();
    assertThat(current.fence()).isGreaterThan(stale.fence());

    JobQueue q = onSlow.queue();
    assertThat(q.renew(stale, LEASE)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.ack(stale)).isInstanceOf(QueueResult.LeaseLost.class);
    AtomicBoolean ran = new AtomicBoolean();
    assertThat(q.complete(stale, tx -> effect(onSlow, tx, "m-1", "slow", ran)))
        .isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(ran).as("the stale holder's work").isFalse();

    assertThat(onFast.queue().complete(current, tx -> effect(onFast, tx, "m-1", "fast", ran)))
        .isInstanceOf(QueueResult.Completed.class);
    // The stale holder makes its effect anyway, outside complete: the receipt answers Repeated.
    assertThat(
            onSlow
                .receipts()
                .execute(
                    key("m-1"),
                    "apply",
                    Map.of("m", "m-1"),
                    String.class,
                    tx -> insert(tx, "m-1", "slow")))
        .isInstanceOf(Outcome.Repeated.class);
    assertThat(Db.strings(file, "SELECT holder FROM skew_effects")).containsExactly("fast");
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void aClockBehindCannotOutliveTheFenceOfAHolderWithTheRightTime() throws Exception {
    MutableClock behind = slow; // the roles swap: the message is claimed by the clock behind
    onFast.queue().send(Q, "m-2", Map.of("n", 2)); // due at 13:00; the slow clock reads 12:00
    assertThat(onSlow.queue().receive(Q, 1, LEASE))
        .as("not yet due for the clock behind")
        .isEmpty();
    behind.advance(HOUR); // the clock behind catches up and claims, leasing until 13:00:30
    Lease stale = single(onSlow.queue().receive(Q, 1, LEASE)).lease();
    behind.set(behind.instant().minus(HOUR)); // and then jumps back an hour
    // The holder with the right time waits for the lease to run out by its own clock, then claims.
    assertThat(onFast.queue().receive(Q, 1, LEASE)).isEmpty();
    fast.advance(LEASE.plusSeconds(1));
    Lease current = single(onFast.queue().receive(Q, 1, LEASE)).lease();

    // To the clock behind, its own lease looks valid for an hour more: still fenced off.
    assertThat(onSlow.queue().renew(stale, LEASE)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(onSlow.queue().ack(stale)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(onSlow.queue().nack(stale, "late")).isInstanceOf(QueueResult.LeaseLost.class);
    AtomicBoolean ran = new AtomicBoolean();
    assertThat(onSlow.queue().complete(stale, tx -> effect(onSlow, tx, "m-2", "behind", ran)))
        .isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(onFast.queue().complete(current, tx -> effect(onFast, tx, "m-2", "right", ran)))
        .isInstanceOf(QueueResult.Completed.class);
    assertThat(Db.strings(file, "SELECT holder FROM skew_effects")).containsExactly("right");
  }

  @Test
  void anExternalClaimTakenOverByAClockAheadFencesTheFirstHolder() {
    IntentKey key = key("notify-1");
    ClaimOutcome first = onSlow.externalEffects().claim(key, "notify", Map.of("to", "a"), LEASE);
    ClaimOutcome second = onFast.externalEffects().claim(key, "notify", Map.of("to", "a"), LEASE);
    assertThat(first).isInstanceOf(ClaimOutcome.Claimed.class);
    assertThat(second).isInstanceOf(ClaimOutcome.Claimed.class);
    var stale = ((ClaimOutcome.Claimed) first).claim();
    var current = ((ClaimOutcome.Claimed) second).claim();
    assertThat(current.fence()).isGreaterThan(stale.fence());
    assertThat(onSlow.externalEffects().complete(stale, Map.of("by", "slow")))
        .isInstanceOf(Settlement.Fenced.class);
    assertThat(onFast.externalEffects().complete(current, Map.of("by", "fast")))
        .isInstanceOf(Settlement.Completed.class);
    assertThat(
            Db.strings(
                file,
                "SELECT result FROM onceonly_claims WHERE intent_key = 'notify-1'"
                    + " AND state = 'COMPLETED'"))
        .singleElement()
        .asString()
        .contains("fast");
  }

  /**
   * Two workers on one file, one whose clock is ten minutes ahead: it takes over every lease of the
   * other that it sees, so deliveries overlap all the time. Each message's effect still commits
   * once.
   */
  @Test
  void workersWithClocksTenMinutesApartCommitEachEffectOnce() throws Exception {
    InstantSource system = Clock.systemUTC();
    InstantSource ahead = InstantSource.offset(Clock.systemUTC(), Duration.ofMinutes(10));
    int messages = 200;
    try (OnceOnly a = OnceOnly.builder().sqlite(file).clock(system).build();
        OnceOnly b = OnceOnly.builder().sqlite(file).clock(ahead).build()) {
      for (int i = 0; i < messages; i++) {
        a.queue().send(Q, "w-" + i, Map.of("n", i));
      }
      try (Worker wa = worker(a, "system").start();
          Worker wb = worker(b, "ahead").start()) {
        Eventually.await(
            Duration.ofSeconds(60),
            "every message done",
            () -> Db.count(file, "SELECT COUNT(*) FROM onceonly_messages") == 0);
      }
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM skew_effects")).isEqualTo(messages);
    assertThat(Db.count(file, "SELECT COUNT(DISTINCT intent_key) FROM skew_effects"))
        .isEqualTo(messages);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(messages);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  private Worker worker(OnceOnly once, String holder) {
    return Worker.builder(
            once.queue(),
            Q,
            job ->
                job.completeWith(
                    tx -> effect(once, tx, job.delivery().key(), holder, new AtomicBoolean())))
        .threads(2)
        .lease(Duration.ofSeconds(5))
        .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .build();
  }

  private static Outcome<String> effect(
      OnceOnly once, Connection tx, String message, String holder, AtomicBoolean ran)
      throws SQLException {
    ran.set(true);
    return once.receipts()
        .execute(
            tx,
            key(message),
            "apply",
            Map.of("m", message),
            String.class,
            c -> insert(c, message, holder));
  }

  private static String insert(Connection c, String message, String holder) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO skew_effects (intent_key, holder) VALUES (?, ?)")) {
      ps.setString(1, message);
      ps.setString(2, holder);
      ps.executeUpdate();
    }
    return holder;
  }

  private static IntentKey key(String message) {
    return IntentKey.of("skew", message);
  }

  private static Delivery single(List<Delivery> deliveries) {
    assertThat(deliveries).hasSize(1);
    return deliveries.get(0);
  }
}
