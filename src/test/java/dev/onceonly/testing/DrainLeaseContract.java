package dev.onceonly.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Message;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A drain with a moving clock on a queue whose concurrency limit is full of leases a crashed worker
 * took and never completed: the drain waits the leases out on the clock and handles every message
 * exactly once, counted in rows after a reopen; without the store's leases it fails and says what
 * blocks; an interrupted drain stops. Subclassed per database.
 */
abstract class DrainLeaseContract {
  static final String QUEUE = "q";
  static final int LIMIT = 2;

  /** Guards the build against a drain that never returns; the assertions are on the outcome. */
  static final Duration GUARD = Duration.ofSeconds(60);

  @RegisterExtension
  final OnceOnlyExtension store = extension().configure(b -> b.concurrencyLimit(QUEUE, LIMIT));

  private final String table = "drained_" + Long.toHexString(new Random().nextLong() >>> 1);

  /** Returns the extension on this contract's database. */
  abstract OnceOnlyExtension extension();

  @BeforeEach
  void createTable(OnceOnly once) throws SQLException {
    once.useTransaction(
        tx -> {
          try (Statement s = tx.createStatement()) {
            s.execute("CREATE TABLE " + table + " (message_key TEXT NOT NULL)");
          }
        });
  }

  /** The handler's effect, in the transaction that acknowledges the message. */
  Handler recording() {
    return job ->
        job.completeWith(
            tx -> {
              try (PreparedStatement ps =
                  tx.prepareStatement("INSERT INTO " + table + " (message_key) VALUES (?)")) {
                ps.setString(1, job.delivery().key());
                return ps.executeUpdate();
              }
            });
  }

  Map<String, Integer> handledRows(OnceOnly once) throws SQLException {
    return once.inTransaction(
        tx -> {
          Map<String, Integer> out = new TreeMap<>();
          try (Statement s = tx.createStatement();
              ResultSet rs =
                  s.executeQuery(
                      "SELECT message_key, COUNT(*) FROM " + table + " GROUP BY message_key")) {
            while (rs.next()) {
              out.put(rs.getString(1), rs.getInt(2));
            }
          }
          return out;
        });
  }

  /**
   * Many generated shapes: messages due now and later, a crashed worker holding the whole limit
   * under leases of different lengths. Every message is handled exactly once, after a reopen.
   */
  @Test
  void aLimitFullOfACrashedWorkersLeasesIsWaitedOut(OnceOnly first, MutableClock clock)
      throws SQLException {
    Random random = new Random(20261202L);
    OnceOnly once = first;
    TreeSet<String> sent = new TreeSet<>();
    for (int round = 0; round < 12; round++) {
      int messages = LIMIT + 1 + random.nextInt(6);
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < messages; i++) {
        String key = "r" + round + "-m" + i;
        Instant at = clock.instant().plusSeconds(random.nextInt(3) == 0 ? random.nextInt(900) : 0);
        batch.add(Message.of(QUEUE, key, Map.of("i", i)).deliverAt(at));
        sent.add(key);
      }
      once.queue().sendAll(batch);
      // the crashed worker: claims with leases of its own length and is never heard of again
      int held = 0;
      for (int tries = 0; held < LIMIT && tries < LIMIT; tries++) {
        List<Delivery> taken =
            once.queue().receive(QUEUE, 1, Duration.ofSeconds(1 + random.nextInt(3600)));
        held += taken.size();
      }
      OnceOnly drained = once;
      assertTimeoutPreemptively(
          GUARD,
          () ->
              Drain.of(drained.queue(), QUEUE, recording())
                  .movingClock(clock, drained.maintenance())
                  .run(),
          "the drain did not return");
      assertThat(once.queue().depth(QUEUE)).as("round %d", round).isZero();
      once = store.reopen().reopen();
    }
    Map<String, Integer> expected = new TreeMap<>();
    sent.forEach(k -> expected.put(k, 1));
    assertThat(handledRows(once)).isEqualTo(expected);
  }

  /**
   * Without the store the drain cannot see the leases that block the claim: it fails at once and
   * says so, and the leased message is still there, unhandled, after a reopen.
   */
  @Test
  void withoutTheStoreABlockedDrainFailsAndSaysWhy(OnceOnly once, MutableClock clock)
      throws SQLException {
    for (int i = 0; i <= LIMIT; i++) {
      once.queue().send(QUEUE, "m" + i, Map.of("i", i));
    }
    assertThat(once.queue().receive(QUEUE, LIMIT, Duration.ofMinutes(5))).hasSize(LIMIT);
    Instant now = clock.instant();
    assertTimeoutPreemptively(
        GUARD,
        () ->
            assertThatThrownBy(
                    () -> Drain.of(once.queue(), QUEUE, recording()).movingClock(clock).run())
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("queue q: a message due since " + now + " (now " + now)
                .hasMessageContaining("concurrency limit")
                .hasMessageContaining("movingClock(clock, once.maintenance())"));
    OnceOnly again = store.reopen().reopen();
    assertThat(handledRows(again)).isEmpty();
    assertThat(again.queue().depth(QUEUE)).isEqualTo(LIMIT + 1);
    assertThat(again.maintenance().liveLeases(QUEUE, 10))
        .extracting(Maintenance.LiveLease::until)
        .containsOnly(now.plus(Duration.ofMinutes(5)));
  }

  /** An interrupt stops the drain between deliveries; what was handled is in the rows. */
  @Test
  void anInterruptedDrainStops(OnceOnly once) throws SQLException {
    for (int i = 0; i < 5; i++) {
      once.queue().send(QUEUE, "m" + i, Map.of("i", i));
    }
    Handler interrupting =
        job -> {
          recording().handle(job);
          Thread.currentThread().interrupt();
        };
    assertThatThrownBy(() -> Drain.of(once.queue(), QUEUE, interrupting).run())
        .hasMessageContaining("interrupted");
    assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
    OnceOnly again = store.reopen().reopen();
    assertThat(handledRows(again)).hasSize(1);
    assertThat(again.queue().depth(QUEUE)).isEqualTo(4);
  }
}
