package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.Race;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A queue's concurrency limit on every dialect, enforced by the database: a claim takes at most the
 * room the live leases of every instance leave; an acknowledgement, a retry or a lease that runs
 * out frees room; sixteen threads of two instances claiming at once never hold more than the limit.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class ConcurrencyLimitContract extends QueueContractSupport {
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final String Q = "exports";

  @BeforeEach
  void declareTheLimit() {
    once.close();
    once = open();
  }

  private OnceOnly open() {
    return db.builder().clock(clock).concurrencyLimit(Q, 2).build();
  }

  private long leased() {
    return db.count(
        "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND fence > 0 AND attempts > 0"
            + " AND last_error IS NULL",
        Q);
  }

  @Test
  void aClaimTakesOnlyTheRoomTheLiveLeasesLeave() {
    for (int i = 0; i < 10; i++) {
      once.queue().send(Q, "e-" + i, i).orThrow();
    }
    once.queue().send("other", "o-1", 1).orThrow();
    List<Delivery> first = once.queue().receive(Q, 10, LEASE);
    assertThat(first).hasSize(2);
    assertThat(once.queue().receive(Q, 10, LEASE)).isEmpty();
    assertThat(once.queue().receive("other", 10, LEASE))
        .as("another queue is not limited")
        .hasSize(1);

    once.queue().ack(first.get(0).lease());
    List<Delivery> second = once.queue().receive(Q, 10, LEASE);
    assertThat(second).hasSize(1);

    once.queue().nack(second.get(0).lease(), "later"); // waiting for its retry, it holds no room
    assertThat(once.queue().receive(Q, 10, LEASE)).hasSize(1);
    assertThat(once.queue().receive(Q, 10, LEASE)).isEmpty();

    clock.advance(LEASE.plusSeconds(1)); // every lease ran out: their room is free again
    once.close();
    once = open();
    assertThat(once.queue().receive(Q, 10, LEASE)).hasSize(2);
    assertThat(leased()).isLessThanOrEqualTo(10);
  }

  /**
   * Two instances, eight threads each, claim at once: together they hold two leases. Without the
   * lock on PostgreSQL two claims count the same room and both take it.
   */
  @Test
  void sixteenThreadsOfTwoInstancesHoldNoMoreThanTheLimit() throws Exception {
    for (int i = 0; i < 50; i++) {
      once.queue().send(Q, "e-" + i, i).orThrow();
    }
    OnceOnly other = open();
    try {
      List<Integer> got =
          Race.run(16, t -> () -> (t % 2 == 0 ? once : other).queue().receive(Q, 5, LEASE).size());
      assertThat(got.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2);
    } finally {
      other.close();
    }
    assertThat(
            db.count("SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND attempts > 0", Q))
        .isEqualTo(2);
  }

  /**
   * A worker whose claims found the limit full waits at its idle backoff (30 s here); when a job of
   * its own instance settles, the instance wakes it, so the backlog drains at the limit's pace
   * instead of one backoff per free room.
   */
  @Test
  void aWorkerWaitingOnAFullLimitWakesWhenItsInstanceFreesRoom() throws Exception {
    drainsAtTheLimitsPace(
        job -> job.completeWith(tx -> recordEffect(once, tx, job.delivery().key(), "w")));
  }

  /** The same when the acknowledgements are committed in batches ({@code completeLater}). */
  @Test
  void aWorkerCompletingLaterWakesWhenItsInstanceFreesRoom() throws Exception {
    drainsAtTheLimitsPace(
        job -> job.completeLater(tx -> recordEffect(once, tx, job.delivery().key(), "w")));
  }

  /**
   * A worker whose claims found the limit full waits at its idle backoff (30 s here); when a job of
   * its own instance settles, the instance wakes it, so the backlog drains at the limit's pace
   * instead of one backoff per free room.
   */
  private void drainsAtTheLimitsPace(dev.onceonly.queue.Handler handler) throws Exception {
    for (int i = 0; i < 8; i++) {
      once.queue().send(Q, "e-" + i, i).orThrow();
    }
    try (Worker w =
        Worker.builder(once.queue(), Q, handler)
            .threads(4)
            .idleBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30))
            .build()
            .start()) {
      Eventually.await(
          Duration.ofSeconds(10),
          "eight effects at two at a time",
          () -> db.count("SELECT COUNT(*) FROM effects") == 8);
    }
    assertThat(db.count("SELECT COUNT(DISTINCT message_key) FROM effects")).isEqualTo(8);
  }

  @Test
  void aLimitMustBePositive() {
    assertThatThrownBy(() -> OnceOnly.builder().concurrencyLimit(Q, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxLeased must be between 1 and 100000");
  }
}
