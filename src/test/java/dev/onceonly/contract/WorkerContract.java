package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.onceonly.OnceOnly;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.queue.DeadLetter;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Worker;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.Eventually;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link Worker} on a {@link dev.onceonly.queue.JobQueue}: many threads and two
 * instances commit each message's effect once; failures are retried and dead-lettered; long
 * handlers keep their lease; {@code close()} is graceful and then cancels; a send wakes an idle
 * worker. Conditions are awaited with latches or {@link Eventually}, and every count is read from
 * the database after reopening it.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#withTransactionPooling")
public class WorkerContract extends QueueContractSupport {
  static final String Q = "work";
  static final Duration DRAIN = Duration.ofSeconds(45);

  @Test
  void fourThreadsProcessFiveHundredMessagesOnce() {
    sendAll(Q, "m-", 500);
    Worker worker =
        Worker.builder(once.queue(), Q, recording(once, "w"))
            .threads(4)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "queue drained", () -> once.queue().depth(Q) == 0);
    } finally {
      worker.close();
    }

    reopen();
    assertThat(effects()).isEqualTo(500);
    assertThat(db.count("SELECT COUNT(DISTINCT message_key) FROM effects")).isEqualTo(500);
    assertThat(duplicatedEffects()).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(500);
    assertThat(once.queue().depth(Q)).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  /** Two instances on one database (as two processes would be), two threads each. */
  @Test
  void twoInstancesOfTwoThreadsCommitEachOfTwoThousandEffectsOnce() {
    sendAll(Q, "m-", 2000);
    try (OnceOnly other = db.open(clock)) {
      Worker a = fastWorker(once, "a").start();
      Worker b = fastWorker(other, "b").start();
      try {
        Eventually.await(DRAIN, "queue drained", () -> once.queue().depth(Q) == 0);
      } finally {
        a.close();
        b.close();
      }
    }

    reopen();
    assertThat(effects()).isEqualTo(2000);
    assertThat(db.count("SELECT COUNT(DISTINCT message_key) FROM effects")).isEqualTo(2000);
    assertThat(duplicatedEffects()).isZero();
    assertThat(db.strings("SELECT DISTINCT holder FROM effects")).isSubsetOf("a", "b");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(2000);
    assertThat(messages(Q)).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  @Test
  void aFailingHandlerIsRetriedThenDeadLettered() {
    once.queue().send(Q, "flaky", Map.of("n", 1));
    AtomicInteger calls = new AtomicInteger();
    Handler failing =
        job -> {
          calls.incrementAndGet();
          throw new IllegalStateException("boom " + job.delivery().attempt());
        };
    runUntilDeadLettered(
        once.queue(RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ZERO).build()), failing);

    reopen();
    assertThat(calls).hasValue(3);
    assertThat(messages(Q)).isZero();
    List<DeadLetter> dead = once.queue().deadLetters(Q, 10);
    assertThat(dead).singleElement().satisfies(d -> assertThat(d.attempts()).isEqualTo(3));
    assertThat(dead.get(0).lastError()).isEqualTo("java.lang.IllegalStateException: boom 3");
  }

  /** A CancellationException the worker did not cause is a failure like any other. */
  @Test
  void aHandlersOwnCancellationIsRetriedThenDeadLettered() {
    once.queue().send(Q, "gives-up", Map.of("n", 1));
    AtomicInteger calls = new AtomicInteger();
    Handler cancelling =
        job -> {
          calls.incrementAndGet();
          throw new java.util.concurrent.CancellationException("the handler's own");
        };
    runUntilDeadLettered(
        once.queue(RetryPolicy.builder().maxAttempts(2).baseDelay(Duration.ZERO).build()),
        cancelling);
    reopen();
    assertThat(calls).hasValue(2);
    assertThat(once.queue().deadLetters(Q, 10))
        .singleElement()
        .satisfies(d -> assertThat(d.lastError()).contains("the handler's own"));
  }

  @Test
  void aHandlerRefusingItsInputDeadLettersTheMessageAtOnce() {
    once.queue().send(Q, "not-an-intent", Map.of("subject", "no scope, no key"));
    AtomicInteger calls = new AtomicInteger();
    Handler decoding =
        job -> {
          calls.incrementAndGet();
          IntentMessage.decode(job.payload()); // throws InvalidRequestException
        };
    runUntilDeadLettered(once.queue(), decoding);

    reopen();
    assertThat(calls).hasValue(1);
    assertThat(messages(Q)).isZero();
    assertThat(once.queue().deadLetters(Q, 10))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.attempts()).isEqualTo(1);
              assertThat(d.lastError()).contains("InvalidRequestException", "unknown member");
            });
  }

  /**
   * A real clock and a lease of 300 ms, a handler busy for about a second, and a second thread that
   * would claim the message the moment its lease lapsed: the worker's renewals keep it, so the
   * handler runs once and its completion holds.
   */
  @Test
  void aLongHandlerKeepsItsLeaseByRenewal() throws Exception {
    reopen(InstantSource.system());
    once.queue().send(Q, "report", Map.of("rows", 1_000_000));
    AtomicInteger calls = new AtomicInteger();
    AtomicReference<QueueResult> completion = new AtomicReference<>();
    Handler slow =
        job -> {
          calls.incrementAndGet();
          assertThat(new CountDownLatch(1).await(1, TimeUnit.SECONDS)).isFalse(); // the long work
          completion.set(job.completeWith(tx -> recordEffect(tx, job.delivery().key(), "slow")));
        };
    Worker worker =
        Worker.builder(once.queue(), Q, slow)
            .threads(2)
            .lease(Duration.ofMillis(300))
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "queue drained", () -> once.queue().depth(Q) == 0);
      assertThat(worker.leasesLost()).isZero();
    } finally {
      worker.close();
    }

    reopen();
    assertThat(calls).hasValue(1);
    assertThat(completion.get()).isEqualTo(new QueueResult.Completed("report"));
    assertThat(db.strings("SELECT holder FROM effects")).containsExactly("slow");
    assertThat(messages(Q)).isZero();
  }

  /**
   * On PostgreSQL a completion holds its message's row lock until it commits, so renewing that
   * message would wait for it, and every other job's renewal behind it on the one renewal thread.
   * Here one handler's {@code completeWith} work is busy for 1.5 s while another handler, busy as
   * long outside any transaction, lives on renewals of a 300 ms lease, and a third thread would
   * claim either message the moment its lease lapsed: neither is taken over, each effect commits
   * once. (On SQLite every renewal is a write and waits for the write lock anyway.)
   */
  @Test
  void aLongCompletionDoesNotHoldUpTheRenewalOfOtherJobs() {
    assumeTrue(db.dialect() == Dialect.POSTGRESQL, "SQLite: one writer at a time");
    reopen(InstantSource.system());
    once.queue().send(Q, "in-tx", Map.of("n", 1));
    once.queue().send(Q, "outside", Map.of("n", 2));
    Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    Handler slow =
        job -> {
          String key = job.delivery().key();
          calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          if (key.equals("in-tx")) {
            job.completeWith(
                tx -> {
                  recordEffect(tx, key, "slow");
                  return new CountDownLatch(1).await(1500, TimeUnit.MILLISECONDS); // long work
                });
          } else {
            assertThat(new CountDownLatch(1).await(1500, TimeUnit.MILLISECONDS)).isFalse();
            job.completeWith(tx -> recordEffect(tx, key, "slow"));
          }
        };
    Worker worker =
        Worker.builder(once.queue(), Q, slow)
            .threads(3)
            .lease(Duration.ofMillis(300))
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "queue drained", () -> once.queue().depth(Q) == 0);
      assertThat(worker.leasesLost()).isZero();
    } finally {
      worker.close();
    }

    reopen();
    assertThat(calls.get("in-tx")).hasValue(1);
    assertThat(calls.get("outside")).hasValue(1);
    assertThat(db.strings("SELECT message_key FROM effects ORDER BY message_key"))
        .containsExactly("in-tx", "outside");
  }

  @Test
  void closeLetsAnInFlightHandlerFinish() throws Exception {
    once.queue().send(Q, "in-flight", Map.of("n", 1));
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    AtomicBoolean cancelled = new AtomicBoolean();
    AtomicBoolean finished = new AtomicBoolean();
    Handler handler =
        job -> {
          started.countDown();
          assertThat(proceed.await(30, TimeUnit.SECONDS)).isTrue();
          cancelled.set(job.isCancelled());
          job.completeWith(tx -> recordEffect(tx, job.delivery().key(), "graceful"));
          finished.set(true);
        };
    Worker worker =
        Worker.builder(once.queue(), Q, handler).shutdownTimeout(Duration.ofSeconds(30)).build();
    worker.start();
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(worker::close, "closer");
    closer.start();
    Eventually.await(
        Duration.ofSeconds(10),
        "close() waiting for the handler",
        () -> closer.getState() == Thread.State.TIMED_WAITING);
    assertThat(finished).isFalse();
    proceed.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(closer.isAlive()).isFalse();

    assertThat(finished).as("finished before close() returned").isTrue();
    assertThat(cancelled).isFalse();
    reopen();
    assertThat(db.strings("SELECT holder FROM effects")).containsExactly("graceful");
    assertThat(messages(Q)).isZero();
  }

  @Test
  void closeCancelsAHandlerPastTheTimeoutAndReleasesItsMessageAtOnce() throws Exception {
    once.queue().send(Q, "stuck", Map.of("n", 1));
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch ended = new CountDownLatch(1);
    AtomicBoolean cancelled = new AtomicBoolean();
    Handler stuck =
        job -> {
          started.countDown();
          try {
            new CountDownLatch(1).await(); // never counted down: interrupted by close()
          } finally {
            cancelled.set(job.isCancelled());
            ended.countDown();
          }
        };
    Worker worker =
        Worker.builder(once.queue(), Q, stuck).shutdownTimeout(Duration.ofMillis(200)).build();
    worker.start();
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
    worker.close();
    assertThat(ended.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(cancelled).as("job.isCancelled() when interrupted").isTrue();

    reopen();
    assertThat(
            db.strings(
                "SELECT attempts || ' ' || COALESCE(last_error, '-') FROM onceonly_messages"
                    + " WHERE message_key = 'stuck' AND deliver_at <= ?",
                db.at(clock.millis())))
        .as("due at once, the attempt not counted, no error recorded")
        .containsExactly("0 -");
    Delivery again = only(once.queue().receive(Q, 1, Duration.ofSeconds(30)));
    assertThat(again.key()).isEqualTo("stuck");
    assertThat(again.attempt()).isEqualTo(1);
  }

  /**
   * An idle worker waits 5 s between polls; a send from the same instance wakes it, so the message
   * is handled well before the next poll would have found it.
   */
  @Test
  void aSendWakesAnIdleWorker() throws Exception {
    String queue = "wake-up";
    CountDownLatch handled = new CountDownLatch(1);
    Worker worker =
        Worker.builder(once.queue(), queue, job -> handled.countDown())
            .idleBackoff(Duration.ofSeconds(5), Duration.ofSeconds(10))
            .build()
            .start();
    try {
      Eventually.await(Duration.ofSeconds(10), "worker idle", () -> pollersIdle(queue));
      long sentAt = System.nanoTime();
      once.queue().send(queue, "wake", Map.of("n", 1));
      assertThat(handled.await(3, TimeUnit.SECONDS)).as("handled before the 5 s poll").isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - sentAt)).isLessThan(Duration.ofSeconds(3));
      Eventually.await(DRAIN, "acknowledged", () -> once.queue().depth(queue) == 0);
    } finally {
      worker.close();
    }

    reopen();
    assertThat(messages(queue)).isZero();
  }

  /**
   * A handler whose {@code ackAndSend} cannot queue its next message (the key is queued with other
   * content) fails like any other handler: the step is retried, then dead-lettered with the
   * conflict as its error. It is never acknowledged with its next step dropped.
   */
  @Test
  void aHandlerWhoseNextMessageConflictsIsRetriedThenDeadLetteredNotDropped() {
    once.queue().send("next", "step-2", Map.of("owner", "someone else"));
    once.queue().send(Q, "step-1", Map.of("step", 1));
    JobQueue q = once.queue(RetryPolicy.builder().maxAttempts(2).baseDelay(Duration.ZERO).build());
    AtomicInteger calls = new AtomicInteger();
    Handler chaining =
        job -> {
          calls.incrementAndGet();
          q.ackAndSend(job.lease(), List.of(Message.of("next", "step-2", Map.of("step", 2))));
        };
    Worker worker =
        Worker.builder(q, Q, chaining)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "step-1 settled", () -> messages(Q) == 0);
    } finally {
      worker.close();
    }

    reopen();
    assertThat(calls).hasValue(2);
    assertThat(once.queue().deadLetters(Q, 10))
        .as("the step is kept, not dropped")
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.key()).isEqualTo("step-1");
              assertThat(d.attempts()).isEqualTo(2);
              assertThat(d.lastError()).contains("SendConflictException", "next/step-2");
            });
    assertThat(db.strings("SELECT payload FROM onceonly_messages WHERE queue = 'next'"))
        .containsExactly("{\"owner\":\"someone else\"}");
  }

  @Test
  void aHandlerThatAcknowledgesAndSendsThroughItsJobIsCountedOnceAndSendsItsNextStep() {
    once.queue().send(Q, "chain", Map.of("step", 1));
    Handler chaining =
        job -> {
          int step = job.payload().get("step").asInt();
          if (step < 3) {
            job.ackAndSend(List.of(Message.of(Q, "chain", Map.of("step", step + 1))));
          }
        };
    Worker worker =
        Worker.builder(once.queue(), Q, chaining)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "the chain ran out", () -> worker.completed() == 3);
      Eventually.await(DRAIN, "the queue drained", () -> messages(Q) == 0);
    } finally {
      worker.close();
    }
    assertThat(worker.leasesLost()).as("no second acknowledgement after ackAndSend").isZero();
    assertThat(worker.completed()).isEqualTo(3);
    reopen();
    assertThat(messages(Q)).isZero();
    assertThat(once.queue().deadLetters(Q, 10)).isEmpty();
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** Sends {@code n} messages in one transaction of the caller's. */
  /** Runs a quickly polling worker with {@code handler} until the queue has a dead letter. */
  private void runUntilDeadLettered(JobQueue queue, Handler handler) {
    Worker worker =
        Worker.builder(queue, Q, handler)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "dead letter", () -> !once.queue().deadLetters(Q, 10).isEmpty());
    } finally {
      worker.close();
    }
  }

  /**
   * With a backlog the worker claims its threads plus its prefetch in one go (one commit for many
   * jobs), and no more: the rest of the backlog stays claimable by other workers.
   */
  @Test
  void aBacklogIsClaimedUpToThreadsPlusPrefetchAndNoMore() throws Exception {
    sendAll(Q, "m-", 20);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    Worker worker = heldWorker(1, 5, started, proceed, "w");
    try {
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      Eventually.await(Duration.ofSeconds(10), "six claimed", () -> claimed(Q) == 6);
      try (OnceOnly other = db.open(clock)) {
        assertThat(other.queue().receive(Q, 100, Duration.ofMinutes(5)))
            .as("what the worker left to others")
            .hasSize(14);
      }
    } finally {
      proceed.countDown();
      worker.close();
    }
  }

  /**
   * Jobs claimed ahead and not started are released at close, due at once with the attempt not
   * counted; another worker then handles every message once.
   */
  @Test
  void closeReleasesClaimedJobsNoThreadStartedAndNothingIsLostOrDoubled() throws Exception {
    sendAll(Q, "m-", 20);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    Worker worker = heldWorker(1, 5, started, proceed, "first");
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    Eventually.await(Duration.ofSeconds(10), "six claimed", () -> claimed(Q) == 6);
    Thread closing = new Thread(worker::close);
    closing.start();
    Eventually.await(Duration.ofSeconds(10), "five released", () -> claimed(Q) == 1);
    proceed.countDown();
    closing.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(closing.isAlive()).isFalse();

    reopen();
    assertThat(effects()).as("the job that had started, completed").isEqualTo(1);
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM onceonly_messages WHERE attempts = 0 AND deliver_at <= ?",
                db.at(clock.millis())))
        .as("the 14 never claimed and the 5 released: due at once, the attempt not counted")
        .isEqualTo(19);
    assertThat(claimed(Q)).as("no message left holding a counted attempt").isZero();
    Worker second = fastWorker(once, "second").start();
    try {
      Eventually.await(DRAIN, "queue drained", () -> once.queue().depth(Q) == 0);
    } finally {
      second.close();
    }
    reopen();
    assertThat(effects()).isEqualTo(20);
    assertThat(duplicatedEffects()).isZero();
    assertThat(messages(Q)).isZero();
  }

  /** With {@code prefetch(0)} a worker claims only for its idle threads. */
  @Test
  void prefetchZeroClaimsOnlyForIdleThreads() throws Exception {
    sendAll(Q, "m-", 10);
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch proceed = new CountDownLatch(1);
    Worker worker = heldWorker(2, 0, started, proceed, "w");
    try {
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      try (OnceOnly other = db.open(clock)) {
        assertThat(other.queue().receive(Q, 100, Duration.ofMinutes(5))).hasSize(8);
      }
      assertThat(claimed(Q)).isEqualTo(10);
    } finally {
      proceed.countDown();
      worker.close();
    }
  }

  /**
   * By default the prefetch follows the worker's rate: one thread on a backlog of fast jobs claims
   * them many to a transaction (more than the three that a fixed prefetch of twice the threads
   * allows), never more than 100 ahead of its thread, and commits each effect once.
   */
  @Test
  void aBacklogOfFastJobsIsClaimedManyToATransactionByDefault() {
    sendAll(Q, "m-", 3000);
    List<Integer> claims = new CopyOnWriteArrayList<>();
    try (OnceOnly listened =
        db.builder()
            .clock(clock)
            .listener(
                e -> {
                  if (e instanceof OnceOnlyEvent.MessagesClaimed c && c.queue().equals(Q)) {
                    claims.add(c.count());
                  }
                })
            .build()) {
      Worker worker =
          Worker.builder(
                  listened.queue(),
                  Q,
                  job ->
                      job.completeLater(
                          tx -> recordEffect(listened, tx, job.delivery().key(), "w")))
              .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
              .build()
              .start();
      try {
        Eventually.await(DRAIN, "queue drained", () -> listened.queue().depth(Q) == 0);
      } finally {
        worker.close();
      }
    }

    reopen();
    assertThat(effects()).isEqualTo(3000);
    assertThat(duplicatedEffects()).isZero();
    assertThat(once.queue().depth(Q)).isZero();
    assertThat(claims).as("messages per claim").allSatisfy(n -> assertThat(n).isBetween(1, 101));
    assertThat(claims.stream().mapToInt(Integer::intValue).sum()).isEqualTo(3000);
    assertThat(claims.stream().mapToInt(Integer::intValue).max().orElse(0))
        .as("the largest claim, of %d claims", claims.size())
        .isGreaterThan(3);
  }

  /**
   * Slow jobs are claimed a few at a time by default: at two jobs per 40 ms the worker's two
   * threads hold no more than twice their number ahead, and the rest of the backlog stays claimable
   * by other workers.
   */
  @Test
  void slowJobsAreClaimedAFewAtATimeByDefaultAndTheBacklogLeftToOthers() {
    sendAll(Q, "m-", 200);
    CountDownLatch done = new CountDownLatch(1);
    Handler slow =
        job -> {
          // 40 ms of the job's own work, what makes it slow; cut short once the test is done.
          done.await(40, TimeUnit.MILLISECONDS);
          recording(once, "w").handle(job);
        };
    Worker worker =
        Worker.builder(once.queue(), Q, slow)
            .threads(2)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "twelve handled", () -> effects() >= 12);
      for (int i = 0; i < 5; i++) {
        long handled = effects();
        long held = claimed(Q);
        assertThat(held).as("held by the worker after %d handled", handled).isBetween(0L, 6L);
        Eventually.await(DRAIN, "one more handled", () -> effects() > handled);
      }
    } finally {
      done.countDown(); // the jobs in flight finish without their 40 ms
      worker.close();
    }
  }

  /**
   * {@code completeLater}: the handler threads hand their effects over and go on; the worker
   * commits them with the acknowledgements in shared transactions. Each effect once, on close
   * nothing handed over is left uncommitted.
   */
  @Test
  void completeLaterCommitsEveryEffectOnceWithItsAcknowledgement() {
    sendAll(Q, "m-", 500);
    Worker worker =
        Worker.builder(
                once.queue(),
                Q,
                job ->
                    job.completeLater(tx -> recordEffect(once, tx, job.delivery().key(), "later")))
            .threads(4)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
            .build()
            .start();
    try {
      Eventually.await(DRAIN, "queue drained", () -> once.queue().depth(Q) == 0);
    } finally {
      worker.close();
    }
    assertThat(worker.completed()).isEqualTo(500);

    reopen();
    assertThat(effects()).isEqualTo(500);
    assertThat(duplicatedEffects()).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(500);
    assertThat(messages(Q)).isZero();
  }

  /** A work handed to {@code completeLater} that throws is retried, then dead-lettered. */
  @Test
  void aThrowingCompleteLaterWorkIsRetriedThenDeadLetteredWithNothingCommitted() {
    once.queue().send(Q, "bad", Map.of("n", 1));
    AtomicInteger calls = new AtomicInteger();
    Handler handler =
        job -> {
          calls.incrementAndGet();
          job.completeLater(
              tx -> {
                insertEffect(tx, job.delivery().key(), "later");
                throw new IllegalStateException("work failed " + job.delivery().attempt());
              });
        };
    runUntilDeadLettered(
        once.queue(RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ZERO).build()), handler);

    reopen();
    assertThat(calls).hasValue(3);
    assertThat(effects()).as("no effect of a rolled-back work").isZero();
    assertThat(messages(Q)).isZero();
    List<DeadLetter> dead = once.queue().deadLetters(Q, 10);
    assertThat(dead).singleElement().satisfies(d -> assertThat(d.attempts()).isEqualTo(3));
    assertThat(dead.get(0).lastError()).isEqualTo("java.lang.IllegalStateException: work failed 3");
  }

  /**
   * A started worker on {@link #Q} whose handlers count down {@code started}, wait for {@code
   * proceed}, then record their effect as {@code holder}: the test holds every thread busy while it
   * looks at what the worker claimed.
   */
  Worker heldWorker(
      int threads, int prefetch, CountDownLatch started, CountDownLatch proceed, String holder) {
    Handler held =
        job -> {
          started.countDown();
          proceed.await();
          recording(once, holder).handle(job);
        };
    return Worker.builder(once.queue(), Q, held)
        .threads(threads)
        .prefetch(prefetch)
        .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
        .build()
        .start();
  }

  /** Counts the messages of {@code queue} claimed at least once and not settled. */
  long claimed(String queue) {
    return db.count(
        "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND attempts > 0", queue);
  }

  void sendAll(String queue, String prefix, int n) {
    db.inTransaction(
        c -> {
          for (int i = 0; i < n; i++) {
            once.queue().send(c, Message.of(queue, prefix + i, Map.of("i", i)));
          }
          return null;
        });
  }

  /** A handler whose effect and acknowledgement commit together through a receipts step. */
  Handler recording(OnceOnly instance, String holder) {
    return job -> job.completeWith(tx -> recordEffect(instance, tx, job.delivery().key(), holder));
  }

  Worker fastWorker(OnceOnly instance, String holder) {
    return Worker.builder(instance.queue(), Q, recording(instance, holder))
        .threads(2)
        .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
        .build();
  }

  /**
   * Whether the worker on {@code queue} is idle: its claiming thread waits in its idle sleep
   * (timed) and every handler thread waits for a job (untimed).
   */
  static boolean pollersIdle(String queue) {
    List<Thread> threads =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("onceonly-worker-"))
            .filter(t -> t.getName().contains("-" + queue + "-"))
            .filter(t -> !t.getName().contains("-renew"))
            .toList();
    List<Thread> claimer = threads.stream().filter(t -> t.getName().contains("-claim")).toList();
    return claimer.size() == 1
        && claimer.get(0).getState() == Thread.State.TIMED_WAITING
        && threads.stream()
            .filter(t -> !t.getName().contains("-claim"))
            .allMatch(t -> t.getState() == Thread.State.WAITING);
  }
}
