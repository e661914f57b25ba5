package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Uniqueness;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.Race;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The queue's promises under races, on every dialect, counted from the rows: a unique key whose
 * message is dead-lettered while threads of two instances send it again ends in exactly one place;
 * the no-starvation bound of priorities holds per queue whatever else the instance claims; a lease
 * that ran out on a limited queue cannot come back over the limit by a late renewal or completion.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class QueueRacesContract extends QueueContractSupport {
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final String TICKETS = "tickets";
  private static final String EXPORTS = "exports";
  private static final String REPORTS = "reports";

  @BeforeEach
  void declare() {
    once.close();
    once = open();
  }

  private OnceOnly open() {
    return db.builder()
        .clock(clock)
        .uniqueness(TICKETS, Uniqueness.whileQueued().includingDeadLetters())
        .concurrencyLimit(EXPORTS, 1)
        .concurrencyLimitPerPartition(REPORTS, 1)
        .build();
  }

  private long rows(String table, String queue, String key) {
    return db.count(
        "SELECT COUNT(*) FROM onceonly_" + table + " WHERE queue = ? AND message_key = ?",
        queue,
        key);
  }

  /**
   * Instance A dead-letters the message of a key while fifteen threads of A and B send the key
   * again, twenty rounds. After each round the key is a dead letter and not a waiting message, and
   * the requeue of the dead letter brings it back. Without a lock shared by the send, the dead
   * letter and the requeue, on PostgreSQL a send read no dead letter, waited on the row being moved
   * and went through once it was gone.
   */
  @Test
  void aKeyDeadLetteredWhileItIsSentAgainEndsInOnePlace() throws Exception {
    OnceOnly other = open();
    List<String> broken = new ArrayList<>();
    int rounds = 20;
    try {
      for (int round = 0; round < rounds; round++) {
        String key = "k-" + round;
        once.queue().send(TICKETS, key, Map.of("n", round)).orThrow();
        Lease lease = only(once.queue().receive(TICKETS, 1, LEASE)).lease();
        int n = round;
        List<Object> answers =
            Race.run(
                16,
                t ->
                    () ->
                        t == 0
                            ? (Object) once.queue().deadLetter(lease, "poison")
                            : (t % 2 == 0 ? once : other)
                                .queue()
                                .send(TICKETS, key, Map.of("n", n))
                                .status());
        long waiting = rows("messages", TICKETS, key);
        long dead = rows("dead_letters", TICKETS, key);
        boolean requeued = dead == 1 && other.queue().requeue(TICKETS, key);
        long deadAfter = rows("dead_letters", TICKETS, key);
        if (waiting != 0
            || dead != 1
            || answers.contains(SendResult.Status.SENT)
            || !requeued
            || deadAfter != 0) {
          broken.add(
              key
                  + ": waiting "
                  + waiting
                  + ", dead "
                  + dead
                  + ", requeued "
                  + requeued
                  + ", dead after "
                  + deadAfter);
        }
        // Handle every waiting message of the round, so the next round claims its own.
        for (Delivery d : once.queue().receive(TICKETS, 10, LEASE)) {
          once.queue().ack(d.lease());
        }
        assertThat(messages(TICKETS)).isZero();
      }
    } finally {
      other.close();
    }
    assertThat(broken).as("rounds of %d with the key in the wrong place", rounds).isEmpty();
  }

  /**
   * The no-starvation bound holds per queue: a low-priority message under a steady stream of higher
   * ones is claimed within four claims of its queue, whatever the instance claims between them.
   * Each trial draws what happens between two claims of the queue: claims of another queue, polls
   * of an empty queue, claims through a view with another retry policy; the claims of the queue
   * itself go through either view.
   */
  @Test
  void aLowPriorityMessageIsClaimedWithinFourClaimsOfItsQueueWhateverElseIsClaimed() {
    Random random = new Random(20261202L);
    JobQueue view = once.queue(RetryPolicy.builder().maxAttempts(3).build());
    List<String> starved = new ArrayList<>();
    int trials = 12;
    for (int trial = 0; trial < trials; trial++) {
      String q = "prio-" + trial;
      String busy = "busy-" + trial;
      once.queue().send(Message.of(q, "low", 0).priority(-1)).orThrow();
      clock.advance(Duration.ofMillis(1));
      int claims = 0;
      boolean low = false;
      while (!low && claims < 12) {
        for (String s : List.of("a", "b")) { // a steady stream: two new ones per claim of one
          once.queue().send(Message.of(q, "high-" + claims + s, 1).priority(1)).orThrow();
          clock.advance(Duration.ofMillis(1));
        }
        int between = random.nextInt(4);
        for (int i = 0; i < between; i++) {
          JobQueue by = random.nextBoolean() ? once.queue() : view;
          if (random.nextBoolean()) {
            assertThat(by.receive("idle-" + trial, 1, LEASE)).isEmpty();
          } else {
            by.send(busy, "b-" + claims + "-" + i, 1).orThrow();
            only(by.receive(busy, 1, LEASE));
          }
        }
        JobQueue by = random.nextBoolean() ? once.queue() : view;
        Delivery d = only(by.receive(q, 1, LEASE));
        by.ack(d.lease());
        claims++;
        low = d.lease().key().equals("low");
      }
      if (!low || claims > 4) {
        starved.add(q + (low ? " claimed at claim " + claims : " not claimed in " + claims));
      }
      assertThat(rows("messages", q, "low")).isEqualTo(low ? 0 : 1);
    }
    assertThat(starved).as("trials of %d past the bound of four claims", trials).isEmpty();
  }

  /**
   * With a limit of one, holder A's lease runs out and B claims the other message: A's late renewal
   * and its acknowledgement answer {@code LeaseLost}, however late, so there is never more than one
   * live lease, and A's message waits to run again. The same for a limit per partition. A lease
   * renewed before it ran out is kept.
   */
  @Test
  void aLeaseThatRanOutOnALimitedQueueCannotComeBackOverTheLimit() {
    OnceOnly other = open();
    try {
      int n = 0;
      for (String queue : List.of(EXPORTS, REPORTS)) {
        for (Duration late : List.of(Duration.ofMillis(1), Duration.ofSeconds(7), LEASE)) {
          String first = "a-" + n;
          String second = "b-" + n++;
          once.queue().send(Message.of(queue, first, 1).partition("p")).orThrow();
          once.queue().send(Message.of(queue, second, 2).partition("p")).orThrow();
          Lease a = only(once.queue().receive(queue, 5, LEASE)).lease();
          assertThat(a.key()).isEqualTo(first);
          QueueResult kept = once.queue().renew(a, LEASE);
          assertThat(kept).as("a live lease is renewed").isInstanceOf(QueueResult.Renewed.class);
          a = ((QueueResult.Renewed) kept).lease();
          clock.advance(LEASE.plus(late));
          Lease b = only(other.queue().receive(queue, 5, LEASE)).lease();
          assertThat(b.key()).isEqualTo(second);

          QueueResult renewed = once.queue().renew(a, LEASE);
          assertThat(liveLeases(queue)).as(queue + " late by " + late).isOne();
          assertThat(renewed).isInstanceOf(QueueResult.LeaseLost.class);
          assertThat(once.queue().ack(a)).isInstanceOf(QueueResult.LeaseLost.class);
          assertThat(other.queue().ack(b)).isInstanceOf(QueueResult.Completed.class);
          assertThat(rows("messages", queue, first)).as("A's message waits to run again").isOne();
          Lease again = only(other.queue().receive(queue, 5, LEASE)).lease();
          assertThat(again.key()).isEqualTo(first);
          assertThat(other.queue().ack(again)).isInstanceOf(QueueResult.Completed.class);
          assertThat(messages(queue)).isZero();
        }
      }
    } finally {
      other.close();
    }
  }

  /** Leases of {@code queue} live at the clock's time, from the rows. */
  private long liveLeases(String queue) {
    return db.count(
        "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND leased = 1 AND deliver_at > ?",
        queue,
        db.at(clock.millis()));
  }

  /**
   * A worker's handler stalls past its lease (the store's clock moves on, as after a long GC
   * pause), another instance claims the other message of a queue limited to one, then the worker's
   * renewal thread comes: it finds the lease lost and cancels the job, and the handler's completion
   * commits nothing. Without it, the renewal answered {@code Renewed} and the stalled job committed
   * its effect while the other held the only room.
   */
  @Test
  void aWorkerWhoseRenewalComesLateDoesNotCompleteOverTheLimit() throws Exception {
    once.queue().send(EXPORTS, "w-1", 1).orThrow();
    once.queue().send(EXPORTS, "w-2", 2).orThrow();
    CountDownLatch handling = new CountDownLatch(1);
    CountDownLatch claimedElsewhere = new CountDownLatch(1);
    OnceOnly other = open();
    Worker worker =
        Worker.builder(
                once.queue(),
                EXPORTS,
                job -> {
                  handling.countDown();
                  assertThat(claimedElsewhere.await(30, TimeUnit.SECONDS)).isTrue();
                  // The renewal thread comes by itself: wait until it renewed or gave up.
                  long before = job.lease().expiresAt().toEpochMilli();
                  Eventually.await(
                      Duration.ofSeconds(20),
                      "the late renewal",
                      () -> job.isCancelled() || job.lease().expiresAt().toEpochMilli() != before);
                  job.completeWith(tx -> recordEffect(once, tx, job.delivery().key(), "stalled"));
                })
            .threads(1)
            .prefetch(0)
            .lease(Duration.ofMillis(300))
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      assertThat(handling.await(30, TimeUnit.SECONDS)).isTrue();
      clock.advance(Duration.ofMinutes(10)); // the worker's lease ran out in the store's time
      Lease b = only(other.queue().receive(EXPORTS, 5, LEASE)).lease();
      assertThat(b.key()).isEqualTo("w-2");
      claimedElsewhere.countDown();
      Eventually.await(
          Duration.ofSeconds(20),
          "the stalled job settled",
          () -> worker.completed() + worker.leasesLost() + worker.retried() > 0);
      assertThat(effects()).as("effects committed while another held the only room").isZero();
      assertThat(rows("messages", EXPORTS, "w-1")).isOne();
    } finally {
      worker.close();
      other.close();
    }
  }
}
