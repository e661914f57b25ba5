package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Completion;
import dev.onceonly.queue.DeadLetter;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.SendConflictException;
import dev.onceonly.queue.SendResult;
import dev.onceonly.sql.Dialect;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link JobQueue}: outbox sends, claims under fenced leases, retries with backoff,
 * dead letters, snoozes, acknowledge-and-send, large payloads by reference and transactional
 * completion. Time is a {@link dev.onceonly.testing.MutableClock}; every outcome is checked in the
 * rows of a fresh connection or of a reopened instance.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#withTransactionPooling")
public class JobQueueContract extends QueueContractSupport {
  static final String Q = "jobs";
  static final Duration LEASE = Duration.ofSeconds(30);

  // ---- outbox -------------------------------------------------------------------------------

  /** Queue pattern "work after a transaction commits": the user row and its welcome e-mail task. */
  @Test
  void outboxSendCommitsWithTheCallersTransaction() throws Exception {
    db.exec("CREATE TABLE users (user_id VARCHAR(20) PRIMARY KEY, user_name VARCHAR(100))");
    try (Connection c = db.connect()) {
      db.begin(c);
      insertUser(c, "124", "New User");
      SendResult sent =
          once.queue().send(c, Message.of("user-tasks", "welcome-124", Map.of("type", "welcome")));
      assertThat(sent.status()).isEqualTo(SendResult.Status.SENT);
      assertThat(once.queue().depth("user-tasks")).as("invisible before commit").isZero();
      db.commit(c);
    }

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM users")).isEqualTo(1);
    assertThat(messages("user-tasks")).isEqualTo(1);
    Delivery d = only(once.queue().receive("user-tasks", 10, LEASE));
    assertThat(d.key()).isEqualTo("welcome-124");
    assertThat(d.payload().get("type").asText()).isEqualTo("welcome");
    assertThat(d.attempt()).isEqualTo(1);
  }

  @Test
  void outboxSendRolledBackLeavesNeitherRowNorMessage() throws Exception {
    db.exec("CREATE TABLE users (user_id VARCHAR(20) PRIMARY KEY, user_name VARCHAR(100))");
    try (Connection c = db.connect()) {
      db.begin(c);
      insertUser(c, "125", "Trial User");
      assertThat(
              once.queue()
                  .send(c, Message.of("user-tasks", "welcome-125", Map.of("type", "welcome")))
                  .status())
          .isEqualTo(SendResult.Status.SENT);
      db.rollback(c);
    }

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM users")).isZero();
    assertThat(messages("user-tasks")).isZero();
    assertThat(once.queue().receive("user-tasks", 10, LEASE)).isEmpty();
  }

  @Test
  void sameKeyAndPayloadIsRepeatedOtherPayloadConflictsAndNothingIsWritten() throws Exception {
    JobQueue q = once.queue();
    assertThat(q.send(Q, "k-1", Map.of("n", 1, "label", "a")).status())
        .isEqualTo(SendResult.Status.SENT);

    Map<String, Object> reordered = new LinkedHashMap<>();
    reordered.put("label", "a");
    reordered.put("n", 1.0); // the same JSON value, spelled otherwise
    assertThat(q.send(Q, "k-1", reordered).status()).isEqualTo(SendResult.Status.REPEATED);
    assertThat(q.send(Q, "k-1", Map.of("n", 2, "label", "a")).status())
        .isEqualTo(SendResult.Status.CONFLICT);
    try (Connection c = db.connect()) {
      db.begin(c);
      assertThat(q.send(c, Message.of(Q, "k-1", Map.of("n", 1, "label", "a"))).status())
          .isEqualTo(SendResult.Status.REPEATED);
      assertThat(q.send(c, Message.of(Q, "k-1", Map.of("n", 3))).status())
          .isEqualTo(SendResult.Status.CONFLICT);
      db.commit(c);
    }
    String stored = "SELECT payload FROM onceonly_messages WHERE queue = ? AND message_key = ?";
    String before = db.strings(stored, Q, "k-1").get(0);

    reopen();
    assertThat(messages(Q)).isEqualTo(1);
    assertThat(db.strings(stored, Q, "k-1")).containsExactly(before);
    Delivery d = only(once.queue().receive(Q, 10, LEASE));
    assertThat(d.payload().get("n").asInt()).isEqualTo(1);
    assertThat(d.attempt()).isEqualTo(1);
  }

  // ---- receive ------------------------------------------------------------------------------

  @Test
  void receiveClaimsAtMostMaxOldestDueFirstInOneCall() {
    JobQueue q = once.queue();
    for (int i = 0; i < 5; i++) { // sent in key order, due in the reverse order
      q.send(new Message(Q, "m-" + i, Map.of("i", i), T0.minusSeconds(10L * i)));
    }

    assertThat(keys(q.receive(Q, 2, LEASE))).containsExactlyInAnyOrder("m-4", "m-3");
    assertThat(keys(q.receive(Q, 10, LEASE))).containsExactlyInAnyOrder("m-2", "m-1", "m-0");
    assertThat(q.receive(Q, 10, LEASE)).isEmpty();

    reopen();
    assertThat(messages(Q)).isEqualTo(5);
    assertThat(
            db.strings(
                "SELECT DISTINCT attempts || '/' || fence FROM onceonly_messages WHERE queue = ?",
                Q))
        .containsExactly("1/1");
  }

  @Test
  void receiveRefusesABatchOutOfBounds() {
    assertThatThrownBy(() -> once.queue().receive(Q, 0, LEASE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> once.queue().receive(Q, 1001, LEASE))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aMessageDueLaterIsNotDeliveredUntilTheClockPassesIt() {
    JobQueue q = once.queue();
    Instant due = T0.plus(Duration.ofDays(29)); // the trial reminder
    q.send(Message.of(Q, "trial-expire-reminder", Map.of("type", "reminder")).deliverAt(due));
    assertThat(q.nextDue(Q)).contains(due);

    assertThat(q.receive(Q, 10, LEASE)).isEmpty();
    clock.set(due.minusMillis(1));
    assertThat(q.receive(Q, 10, LEASE)).isEmpty();
    clock.set(due);
    assertThat(only(q.receive(Q, 10, LEASE)).key()).isEqualTo("trial-expire-reminder");
  }

  @Test
  void fenceGrowsWithEveryClaimAndAnExpiredLeaseMakesTheMessageDueAgain() {
    JobQueue q = once.queue();
    q.send(Q, "k", Map.of("n", 1));
    long previous = Long.MIN_VALUE;
    for (int attempt = 1; attempt <= 4; attempt++) {
      Delivery d = only(q.receive(Q, 10, LEASE));
      assertThat(d.attempt()).isEqualTo(attempt);
      assertThat(d.lease().fence()).isGreaterThan(previous);
      assertThat(d.lease().expiresAt()).isEqualTo(clock.instant().plus(LEASE));
      previous = d.lease().fence();

      clock.advance(LEASE.minusMillis(1));
      assertThat(q.receive(Q, 10, LEASE)).as("leased until it expires").isEmpty();
      clock.advance(Duration.ofMillis(1));
    }

    reopen();
    assertThat(
            db.count(
                "SELECT fence FROM onceonly_messages WHERE queue = ? AND message_key = ?", Q, "k"))
        .isEqualTo(previous);
  }

  // ---- fencing ------------------------------------------------------------------------------

  @Test
  void aStalledHolderIsFencedOffAndTheMessageTakesEffectOnce() throws Exception {
    JobQueue q = once.queue();
    q.send(Q, "pay-7", Map.of("amount", 70));
    Lease stalled = only(q.receive(Q, 1, LEASE)).lease();
    clock.advance(LEASE.plusSeconds(1)); // the first holder stalls past its lease
    Lease current = only(q.receive(Q, 1, LEASE)).lease();
    assertThat(current.fence()).isGreaterThan(stalled.fence());

    assertThat(q.renew(stalled, LEASE)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.nack(stalled, "late")).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.reschedule(stalled, T0)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.deadLetter(stalled, "late")).isInstanceOf(QueueResult.LeaseLost.class);
    AtomicBoolean ran = new AtomicBoolean();
    assertThat(q.complete(stalled, c -> ran.getAndSet(true)))
        .isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(ran).as("work of a lost lease does not run").isFalse();
    assertThat(q.ack(stalled)).isInstanceOf(QueueResult.LeaseLost.class);

    assertThat(q.complete(current, tx -> recordEffect(tx, "pay-7", "current")))
        .isEqualTo(new QueueResult.Completed("pay-7"));
    // The stalled holder wakes up and tries its effect anyway: the receipt makes it a repetition.
    Outcome<String> late =
        once.receipts()
            .execute(
                IntentKey.of("effects", "pay-7"),
                "record_effect",
                Map.of("key", "pay-7"),
                String.class,
                c -> insertEffect(c, "pay-7", "stalled"));
    assertThat(late).isInstanceOf(Outcome.Repeated.class);
    assertThat(q.ack(stalled)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.renew(stalled, LEASE)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.nack(stalled, "late")).isInstanceOf(QueueResult.LeaseLost.class);

    reopen();
    assertThat(db.strings("SELECT holder FROM effects")).containsExactly("current");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(1);
    assertThat(messages(Q)).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  @Test
  void renewExtendsTheLeaseWithTheSameFence() {
    JobQueue q = once.queue();
    q.send(Q, "long", Map.of("n", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();
    clock.advance(Duration.ofSeconds(20));
    QueueResult renewed = q.renew(lease, LEASE);
    assertThat(renewed).isInstanceOf(QueueResult.Renewed.class);
    Lease extended = ((QueueResult.Renewed) renewed).lease();
    assertThat(extended.fence()).isEqualTo(lease.fence());
    assertThat(extended.expiresAt()).isEqualTo(clock.instant().plus(LEASE));

    clock.advance(Duration.ofSeconds(20)); // past the first expiry, within the renewed one
    assertThat(q.receive(Q, 1, LEASE)).isEmpty();
    assertThat(q.ack(extended)).isEqualTo(new QueueResult.Completed("long"));
  }

  /**
   * A lease ends when its holder gives the message back (retry or snooze), not only when another
   * worker claims it: otherwise a renewal that races with the give-back (the worker renews every
   * third of the lease from another thread) would overwrite the retry time, and a holder that gave
   * a message back could still acknowledge it.
   */
  @Test
  void aLeaseEndsWhenItsHolderGivesTheMessageBack() {
    JobQueue q = once.queue(RetryPolicy.builder().baseDelay(Duration.ofMinutes(1)).build());
    q.send(Q, "k", Map.of("n", 1));

    Lease first = only(q.receive(Q, 1, LEASE)).lease();
    Instant snoozed = T0.plus(Duration.ofMinutes(10));
    assertThat(q.reschedule(first, snoozed)).isInstanceOf(QueueResult.Rescheduled.class);
    assertThat(q.renew(first, LEASE)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.ack(first)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.nextDue(Q)).contains(snoozed);

    clock.set(snoozed);
    Lease second = only(q.receive(Q, 1, LEASE)).lease();
    QueueResult retrying = q.nack(second, "boom");
    assertThat(retrying).isInstanceOf(QueueResult.Retrying.class);
    Instant next = ((QueueResult.Retrying) retrying).nextAttemptAt();
    assertThat(q.renew(second, Duration.ofDays(1))).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.ack(second)).isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(q.deadLetter(second, "late")).isInstanceOf(QueueResult.LeaseLost.class);

    reopen();
    assertThat(once.queue().nextDue(Q)).contains(next);
    assertThat(messages(Q)).isEqualTo(1);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  // ---- retries and dead letters -------------------------------------------------------------

  @Test
  void nackRetriesWithCappedFullJitterBackoff() {
    Duration base = Duration.ofSeconds(1);
    Duration cap = Duration.ofSeconds(8);
    JobQueue q =
        once.queue(RetryPolicy.builder().maxAttempts(10).baseDelay(base).maxDelay(cap).build());
    for (int m = 0; m < 6; m++) {
      String key = "flaky-" + m;
      q.send(Q, key, Map.of("m", m));
      for (int n = 1; n <= 9; n++) {
        Delivery d = only(q.receive(Q, 1, LEASE));
        assertThat(d.key()).isEqualTo(key);
        assertThat(d.attempt()).isEqualTo(n);
        Instant now = clock.instant();
        QueueResult r = q.nack(d.lease(), "boom " + n);

        long ceiling = Math.min(cap.toMillis(), base.toMillis() << (n - 1));
        assertThat(r).isInstanceOf(QueueResult.Retrying.class);
        QueueResult.Retrying retrying = (QueueResult.Retrying) r;
        assertThat(retrying.attempts()).isEqualTo(n);
        assertThat(retrying.nextAttemptAt()).isBetween(now, now.plusMillis(ceiling));
        assertThat(
                db.strings(
                    "SELECT "
                        + db.millis("deliver_at")
                        + " || ' ' || last_error FROM onceonly_messages"
                        + " WHERE message_key = ?",
                    key))
            .containsExactly(retrying.nextAttemptAt().toEpochMilli() + " boom " + n);
        if (retrying.nextAttemptAt().isAfter(now)) {
          clock.set(retrying.nextAttemptAt().minusMillis(1));
          assertThat(q.receive(Q, 1, LEASE)).isEmpty();
        }
        clock.set(retrying.nextAttemptAt());
      }
      assertThat(q.ack(only(q.receive(Q, 1, LEASE)).lease()))
          .isInstanceOf(QueueResult.Completed.class);
    }
  }

  @Test
  void aRequiredWaitIsHonouredAndCountsAgainstTheBudget() {
    JobQueue q =
        once.queue(
            RetryPolicy.builder()
                .baseDelay(Duration.ofSeconds(1))
                .maxElapsed(Duration.ofMinutes(30))
                .build());
    q.send(Q, "rate-limited", Map.of("n", 1));
    Delivery d = only(q.receive(Q, 1, LEASE));
    Duration wait = Duration.ofMinutes(2); // the provider's Retry-After
    QueueResult r = q.nack(d.lease(), "429 Too Many Requests", wait);
    assertThat(r).isInstanceOf(QueueResult.Retrying.class);
    Instant next = ((QueueResult.Retrying) r).nextAttemptAt();
    assertThat(next).isAfterOrEqualTo(T0.plus(wait));

    clock.set(next.minusMillis(1));
    assertThat(q.receive(Q, 1, LEASE)).isEmpty();
    clock.set(next);
    Delivery again = only(q.receive(Q, 1, LEASE));
    assertThat(again.attempt()).isEqualTo(2);

    QueueResult over = q.nack(again.lease(), "429 again", Duration.ofHours(1));
    assertThat(over).isInstanceOf(QueueResult.DeadLettered.class);
    assertThat(((QueueResult.DeadLettered) over).lastError()).isEqualTo("429 again");

    reopen();
    assertThat(messages(Q)).isZero();
    assertThat(once.queue().deadLetters(Q, 10))
        .extracting(DeadLetter::key)
        .contains("rate-limited");
  }

  @Test
  void afterMaxAttemptsTheMessageIsDeadLetteredWithItsLastError() {
    JobQueue q = once.queue(RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ZERO).build());
    q.send(Q, "doomed", Map.of("n", 1));
    for (int n = 1; n <= 2; n++) {
      QueueResult r = q.nack(only(q.receive(Q, 1, LEASE)).lease(), "boom " + n);
      assertThat(r).isInstanceOf(QueueResult.Retrying.class);
      assertThat(((QueueResult.Retrying) r).nextAttemptAt()).isEqualTo(clock.instant());
    }
    QueueResult last = q.nack(only(q.receive(Q, 1, LEASE)).lease(), "boom 3");
    assertThat(last).isEqualTo(new QueueResult.DeadLettered("doomed", 3, "boom 3"));
    assertThat(q.receive(Q, 1, LEASE)).isEmpty();

    reopen();
    assertThat(messages(Q)).isZero();
    List<DeadLetter> dead = once.queue().deadLetters(Q, 10);
    assertThat(dead).hasSize(1);
    assertThat(dead.get(0).key()).isEqualTo("doomed");
    assertThat(dead.get(0).attempts()).isEqualTo(3);
    assertThat(dead.get(0).lastError()).isEqualTo("boom 3");
    assertThat(dead.get(0).payload().get("n").asInt()).isEqualTo(1);
    assertThat(dead.get(0).deadAt()).isEqualTo(T0);
  }

  @Test
  void theTimeBudgetAlsoDeadLetters() {
    JobQueue q =
        once.queue(
            RetryPolicy.builder()
                .maxAttempts(100)
                .baseDelay(Duration.ofSeconds(1))
                .maxDelay(Duration.ofSeconds(1))
                .maxElapsed(Duration.ofMinutes(10))
                .build());
    q.send(Q, "slow", Map.of("n", 1));
    QueueResult first = q.nack(only(q.receive(Q, 1, LEASE)).lease(), "timeout 1");
    assertThat(first).isInstanceOf(QueueResult.Retrying.class);

    clock.set(T0.plus(Duration.ofMinutes(10)).plusMillis(1));
    QueueResult second = q.nack(only(q.receive(Q, 1, LEASE)).lease(), "timeout 2");
    assertThat(second).isEqualTo(new QueueResult.DeadLettered("slow", 2, "timeout 2"));

    reopen();
    assertThat(messages(Q)).isZero();
    assertThat(
            db.strings("SELECT last_error FROM onceonly_dead_letters WHERE message_key = 'slow'"))
        .containsExactly("timeout 2");
  }

  @Test
  void crashedDeliveriesBeyondMaxAttemptsAreDeadLetteredAtReceive() {
    JobQueue q = once.queue(RetryPolicy.builder().maxAttempts(3).build());
    q.send(Q, "crashy", Map.of("n", 1));
    for (int n = 1; n <= 3; n++) { // received, never acknowledged: the worker crashed
      assertThat(only(q.receive(Q, 10, LEASE)).attempt()).isEqualTo(n);
      clock.advance(LEASE);
    }
    q.send(Q, "healthy", Map.of("n", 2));

    assertThat(keys(q.receive(Q, 10, LEASE))).containsExactly("healthy");
    assertThat(q.receive(Q, 10, LEASE)).isEmpty();

    reopen();
    assertThat(db.strings("SELECT message_key FROM onceonly_messages WHERE queue = ?", Q))
        .containsExactly("healthy");
    List<DeadLetter> dead = once.queue().deadLetters(Q, 10);
    assertThat(dead).extracting(DeadLetter::key).containsExactly("crashy");
    assertThat(dead.get(0).attempts()).as("deliveries it had").isEqualTo(3);
    assertThat(dead.get(0).lastError()).startsWith("no attempts left after 3");
  }

  @Test
  void requeuePutsADeadLetterBackWithItsAttemptsReset() {
    JobQueue q = once.queue(RetryPolicy.builder().maxAttempts(2).baseDelay(Duration.ZERO).build());
    q.send(Q, "fixable", Map.of("n", 1));
    q.nack(only(q.receive(Q, 1, LEASE)).lease(), "boom 1");
    assertThat(q.nack(only(q.receive(Q, 1, LEASE)).lease(), "boom 2"))
        .isInstanceOf(QueueResult.DeadLettered.class);
    assertThat(q.deadLetters(Q, 10)).extracting(DeadLetter::key).containsExactly("fixable");

    assertThat(q.requeue(Q, "fixable")).isTrue();
    assertThat(q.requeue(Q, "fixable")).as("no dead letter left").isFalse();
    assertThat(q.deadLetters(Q, 10)).isEmpty();

    reopen();
    JobQueue again = once.queue(RetryPolicy.builder().maxAttempts(2).build());
    Delivery d = only(again.receive(Q, 1, LEASE));
    assertThat(d.key()).isEqualTo("fixable");
    assertThat(d.attempt()).isEqualTo(1);
    assertThat(d.payload().get("n").asInt()).isEqualTo(1);
    assertThat(again.ack(d.lease())).isInstanceOf(QueueResult.Completed.class);
    assertThat(messages(Q)).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  @Test
  void requeueRefusesAKeyInUseAgain() {
    JobQueue q = once.queue();
    q.send(Q, "k", Map.of("v", 1));
    q.deadLetter(only(q.receive(Q, 1, LEASE)).lease(), "bad");
    assertThat(q.send(Q, "k", Map.of("v", 2)).status()).isEqualTo(SendResult.Status.SENT);

    assertThat(q.requeue(Q, "k")).isFalse();

    reopen();
    assertThat(messages(Q)).isEqualTo(1);
    assertThat(only(once.queue().receive(Q, 1, LEASE)).payload().get("v").asInt()).isEqualTo(2);
    assertThat(once.queue().deadLetters(Q, 10)).extracting(DeadLetter::key).containsExactly("k");
  }

  @Test
  void deadLetterMovesAMessageAtOnce() {
    JobQueue q = once.queue();
    q.send(Q, "poison", Map.of("n", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();
    assertThat(q.deadLetter(lease, "schema not understood"))
        .isEqualTo(new QueueResult.DeadLettered("poison", 1, "schema not understood"));
    assertThat(q.ack(lease)).isInstanceOf(QueueResult.LeaseLost.class);

    reopen();
    assertThat(messages(Q)).isZero();
    assertThat(once.queue().deadLetters(Q, 10))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.key()).isEqualTo("poison");
              assertThat(d.attempts()).isEqualTo(1);
              assertThat(d.lastError()).isEqualTo("schema not understood");
            });
  }

  // ---- snooze, ack-and-send, batches --------------------------------------------------------

  @Test
  void rescheduleDoesNotCountAnAttempt() {
    JobQueue q = once.queue(RetryPolicy.builder().maxAttempts(2).build());
    q.send(Q, "join", Map.of("n", 1));
    for (int i = 0; i < 5; i++) {
      Delivery d = only(q.receive(Q, 1, LEASE));
      assertThat(d.attempt()).isEqualTo(1);
      Instant later = clock.instant().plus(Duration.ofMinutes(5));
      assertThat(q.reschedule(d.lease(), later))
          .isEqualTo(new QueueResult.Rescheduled("join", later));
      clock.set(later.minusMillis(1));
      assertThat(q.receive(Q, 1, LEASE)).isEmpty();
      clock.set(later);
    }

    reopen();
    assertThat(db.count("SELECT attempts FROM onceonly_messages WHERE message_key = 'join'"))
        .isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(only(once.queue().receive(Q, 1, LEASE)).attempt()).isEqualTo(1);
  }

  @Test
  void ackAndSendAcknowledgesAndSendsInOneTransaction() {
    JobQueue q = once.queue();
    q.send(Q, "step-1", Map.of("step", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();
    Instant later = T0.plus(Duration.ofHours(1));
    QueueResult r =
        q.ackAndSend(
            lease,
            List.of(
                Message.of(Q, "step-2", Map.of("step", 2)).deliverAt(later),
                Message.of("audit", "step-1-done", Map.of("step", 1))));
    assertThat(r).isEqualTo(new QueueResult.Completed("step-1"));

    reopen();
    assertThat(db.strings("SELECT message_key FROM onceonly_messages WHERE queue = ?", Q))
        .containsExactly("step-2");
    assertThat(once.queue().nextDue(Q)).contains(later);
    assertThat(messages("audit")).isEqualTo(1);
  }

  @Test
  void ackAndSendSendsNothingWhenTheLeaseIsLost() {
    JobQueue q = once.queue();
    q.send(Q, "step-1", Map.of("step", 1));
    Lease stalled = only(q.receive(Q, 1, LEASE)).lease();
    clock.advance(LEASE);
    Lease current = only(q.receive(Q, 1, LEASE)).lease();

    assertThat(q.ackAndSend(stalled, List.of(Message.of(Q, "step-2", Map.of("step", 2)))))
        .isInstanceOf(QueueResult.LeaseLost.class);
    assertThatThrownBy(
            () -> q.ackAndSend(current, List.of(Message.of(Q, "not a key!", Map.of("step", 2)))))
        .isInstanceOf(InvalidRequestException.class);

    reopen();
    assertThat(db.strings("SELECT message_key FROM onceonly_messages WHERE queue = ?", Q))
        .containsExactly("step-1");
    assertThat(once.queue().ack(current))
        .as("still held after the refused send")
        .isEqualTo(new QueueResult.Completed("step-1"));
  }

  @Test
  void ackAllAcknowledgesABatchAndReportsEachLease() {
    JobQueue q = once.queue();
    for (int i = 0; i < 5; i++) {
      q.send(Q, "b-" + i, Map.of("i", i));
    }
    List<Delivery> batch = q.receive(Q, 5, LEASE);
    assertThat(batch).hasSize(5);
    clock.advance(LEASE);
    String taken = only(q.receive(Q, 1, LEASE)).key(); // one lease of the batch is taken over

    List<Lease> leases = batch.stream().map(Delivery::lease).toList();
    List<QueueResult> results = q.ackAll(leases);
    assertThat(results).hasSize(5);
    for (int i = 0; i < 5; i++) {
      Class<?> expected =
          leases.get(i).key().equals(taken)
              ? QueueResult.LeaseLost.class
              : QueueResult.Completed.class;
      assertThat(results.get(i)).isInstanceOf(expected);
      assertThat(results.get(i).key()).isEqualTo(leases.get(i).key());
    }

    reopen();
    assertThat(db.strings("SELECT message_key FROM onceonly_messages WHERE queue = ?", Q))
        .containsExactly(taken);
  }

  // ---- large payloads -----------------------------------------------------------------------

  /**
   * Queue pattern "large message payloads": the body is stored out of band and read by reference.
   */
  @Test
  void aLargeBodyTravelsByReferenceAndLeavesWithTheAck() throws Exception {
    byte[] body = new byte[5 * 1024 * 1024];
    new Random(42).nextBytes(body);
    Message message =
        Message.of("images", "image-uuid-1", Map.of("user", 123, "sha256", sha256(body)));
    JobQueue q = once.queue();

    assertThat(q.sendLarge(null, message, body).status()).isEqualTo(SendResult.Status.SENT);
    assertThat(q.sendLarge(null, message, body).status()).isEqualTo(SendResult.Status.REPEATED);
    try (Connection c = db.connect()) {
      db.begin(c);
      assertThat(q.sendLarge(c, message, body).status()).isEqualTo(SendResult.Status.REPEATED);
      Message other = Message.of("images", "image-uuid-2", Map.of("user", 123));
      assertThat(q.sendLarge(c, other, body).status()).isEqualTo(SendResult.Status.SENT);
      db.rollback(c);
    }
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_payloads")).isEqualTo(1);

    reopen();
    Delivery d = only(once.queue().receive("images", 10, LEASE));
    assertThat(d.largePayload()).isTrue();
    byte[] read = once.queue().largePayload(d).orElseThrow();
    assertThat(read.length).isEqualTo(body.length);
    assertThat(sha256(read)).isEqualTo(d.payload().get("sha256").asText());
    assertThat(once.queue().ack(d.lease())).isInstanceOf(QueueResult.Completed.class);

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_payloads")).isZero();
    assertThat(messages("images")).isZero();
  }

  @Test
  void aKeyDeadLetteredTwiceKeepsOnlyTheNewestLargeBody() {
    for (int round = 1; round <= 2; round++) {
      once.queue().sendLarge(null, Message.of(Q, "big", Map.of("round", round)), new byte[] {1});
      Delivery d = only(once.queue().receive(Q, 1, LEASE));
      assertThat(once.queue().deadLetter(d.lease(), "round " + round))
          .isInstanceOf(QueueResult.DeadLettered.class);
    }
    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(1);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_payloads")).isEqualTo(1);
    assertThat(once.queue().requeue(Q, "big")).isTrue();
    Delivery again = only(once.queue().receive(Q, 1, LEASE));
    assertThat(again.payload().get("round").asInt()).isEqualTo(2);
    assertThat(once.queue().largePayload(again)).hasValueSatisfying(b -> assertThat(b).hasSize(1));
  }

  @Test
  void aPayloadJacksonCannotConvertIsRefusedAsPayloadAndNothingIsQueued() {
    assertThatThrownBy(() -> once.queue().send(Q, "opaque", new Object()))
        .isInstanceOfSatisfying(
            InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("payload"));
    reopen();
    assertThat(messages(Q)).isZero();
  }

  @Test
  void anOrdinaryMessageHasNoLargeBody() {
    once.queue().send(Q, "small", Map.of("n", 1));
    Delivery d = only(once.queue().receive(Q, 1, LEASE));
    assertThat(d.largePayload()).isFalse();
    assertThat(once.queue().largePayload(d)).isEmpty();
  }

  // ---- complete -----------------------------------------------------------------------------

  @Test
  void completeCommitsTheWorkAndTheAckTogether() throws Exception {
    JobQueue q = once.queue();
    q.send(Q, "c-1", Map.of("n", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();

    assertThat(q.complete(lease, tx -> insertEffect(tx, "c-1", "worker")))
        .isEqualTo(new QueueResult.Completed("c-1"));

    reopen();
    assertThat(effects()).isEqualTo(1);
    assertThat(messages(Q)).isZero();
  }

  @Test
  void workThatThrowsCommitsNothingAndTheMessageStaysLeased() throws Exception {
    JobQueue q = once.queue();
    q.send(Q, "c-1", Map.of("n", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();

    IOException failure = new IOException("disk full");
    assertThatThrownBy(
            () ->
                q.complete(
                    lease,
                    tx -> {
                      insertEffect(tx, "c-1", "worker");
                      throw failure;
                    }))
        .isSameAs(failure);
    assertThatThrownBy(
            () ->
                q.complete(
                    lease,
                    tx -> {
                      insertEffect(tx, "c-1", "worker");
                      throw new IllegalStateException("bug");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("bug");
    assertThat(effects()).isZero();
    assertThat(q.receive(Q, 1, LEASE)).as("still leased").isEmpty();

    reopen();
    assertThat(effects()).isZero();
    assertThat(messages(Q)).isEqualTo(1);
    clock.set(lease.expiresAt());
    Delivery again = only(once.queue().receive(Q, 1, LEASE));
    assertThat(again.attempt()).isEqualTo(2);
    assertThat(once.queue().complete(again.lease(), tx -> recordEffect(tx, "c-1", "second")))
        .isInstanceOf(QueueResult.Completed.class);
    assertThat(db.strings("SELECT holder FROM effects")).containsExactly("second");
  }

  @Test
  void workThatCommitsOrChangesTheSessionIsRefusedAndCommitsNothing() throws Exception {
    JobQueue q = once.queue();
    q.send(Q, "c-1", Map.of("n", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();
    String session =
        once.dialect() == dev.onceonly.sql.Dialect.SQLITE
            ? "PRAGMA query_only=1"
            : "SET SESSION default_transaction_read_only = on";
    for (String sql : List.of("COMMIT", session)) {
      assertThatThrownBy(
              () ->
                  q.complete(
                      lease,
                      tx -> {
                        insertEffect(tx, "c-1", "worker");
                        try (java.sql.Statement s = tx.createStatement()) {
                          return s.execute(sql);
                        }
                      }))
          .as(sql)
          .isInstanceOf(dev.onceonly.ConnectionMisuseException.class);
    }
    assertThatThrownBy(
            () ->
                q.complete(
                    lease,
                    tx -> {
                      insertEffect(tx, "c-1", "worker");
                      tx.commit();
                      return null;
                    }))
        .isInstanceOf(dev.onceonly.ConnectionMisuseException.class);
    reopen();
    assertThat(effects()).isZero();
    assertThat(messages(Q)).isEqualTo(1);
    assertThat(once.queue().complete(lease, tx -> recordEffect(tx, "c-1", "second")))
        .isInstanceOf(QueueResult.Completed.class);
    reopen();
    assertThat(db.strings("SELECT holder FROM effects")).containsExactly("second");
    assertThat(messages(Q)).isZero();
  }

  @Test
  void completeWithALostLeaseDoesNotRunTheWork() throws Exception {
    JobQueue q = once.queue();
    q.send(Q, "c-1", Map.of("n", 1));
    Lease stalled = only(q.receive(Q, 1, LEASE)).lease();
    clock.advance(LEASE);
    Lease current = only(q.receive(Q, 1, LEASE)).lease();

    AtomicBoolean ran = new AtomicBoolean();
    assertThat(
            q.complete(
                stalled,
                tx -> {
                  ran.set(true);
                  return insertEffect(tx, "c-1", "stalled");
                }))
        .isEqualTo(new QueueResult.LeaseLost("c-1", stalled.fence()));
    assertThat(ran).isFalse();

    reopen();
    assertThat(effects()).isZero();
    assertThat(once.queue().ack(current)).isInstanceOf(QueueResult.Completed.class);
  }

  /**
   * One transaction for many completions, each under its own savepoint: the one whose lease was
   * lost changes nothing, the one whose work throws is rolled back alone (its effect and its
   * acknowledgement both), and the others commit their work with their acknowledgement.
   */
  @Test
  void completeAllCommitsEachCompletionOrNoneOfItAndTheOthersStill() throws Exception {
    JobQueue q = once.queue();
    for (String key : List.of("a", "lost", "throws", "b", "ack-only")) {
      q.send(Q, key, Map.of("k", key));
    }
    Lease stalled = null;
    for (Delivery d : q.receive(Q, 5, LEASE)) {
      if (d.key().equals("lost")) {
        stalled = d.lease();
      }
    }
    clock.advance(LEASE); // every lease runs out; "lost" is claimed again by someone else
    Map<String, Lease> held = new java.util.HashMap<>();
    for (Delivery d : q.receive(Q, 5, LEASE)) {
      held.put(d.key(), d.lease());
    }
    IllegalStateException boom = new IllegalStateException("boom");
    List<QueueResult> results =
        q.completeAll(
            List.of(
                new Completion(held.get("a"), tx -> insertEffect(tx, "a", "batch")),
                new Completion(stalled, tx -> insertEffect(tx, "lost", "batch")),
                new Completion(
                    held.get("throws"),
                    tx -> {
                      insertEffect(tx, "throws", "batch");
                      throw boom;
                    }),
                new Completion(held.get("b"), tx -> insertEffect(tx, "b", "batch")),
                Completion.ack(held.get("ack-only"))));

    assertThat(results)
        .containsExactly(
            new QueueResult.Completed("a"),
            new QueueResult.LeaseLost("lost", stalled.fence()),
            new QueueResult.WorkFailed("throws", boom),
            new QueueResult.Completed("b"),
            new QueueResult.Completed("ack-only"));
    reopen();
    assertThat(db.strings("SELECT message_key FROM effects ORDER BY message_key"))
        .containsExactly("a", "b");
    assertThat(db.strings("SELECT message_key FROM onceonly_messages ORDER BY message_key"))
        .as("the lost one's new holder and the failed one's, still leased")
        .containsExactly("lost", "throws");
    assertThat(once.queue().ack(held.get("throws"))).isInstanceOf(QueueResult.Completed.class);
    assertThat(once.queue().ack(held.get("lost"))).isInstanceOf(QueueResult.Completed.class);
  }

  /**
   * A batch acknowledges its leases together (on PostgreSQL in one statement), and still each as
   * its own: a lease listed twice is acknowledged once and its work runs once, a lost lease's work
   * does not run, and the large bodies leave with the messages acknowledged while the lost one's
   * stays with its new holder.
   */
  @Test
  void completeAllAcknowledgesALeaseListedTwiceOnceAndTheLargeBodiesLeaveWithTheirMessages()
      throws Exception {
    JobQueue q = once.queue();
    for (String key : List.of("big-1", "big-2", "lost")) {
      q.sendLarge(null, Message.of(Q, key, Map.of("k", key)), new byte[] {1, 2, 3});
    }
    q.send(Q, "small", Map.of("k", "small"));
    Lease stalled = null;
    for (Delivery d : q.receive(Q, 4, LEASE)) {
      if (d.key().equals("lost")) {
        stalled = d.lease();
      }
    }
    clock.advance(LEASE); // every lease runs out; "lost" is claimed again by someone else
    Map<String, Lease> held = new java.util.HashMap<>();
    for (Delivery d : q.receive(Q, 4, LEASE)) {
      held.put(d.key(), d.lease());
    }
    List<QueueResult> results =
        q.completeAll(
            List.of(
                new Completion(held.get("big-1"), tx -> insertEffect(tx, "big-1", "first")),
                new Completion(stalled, tx -> insertEffect(tx, "lost", "stalled")),
                new Completion(held.get("big-1"), tx -> insertEffect(tx, "big-1", "again")),
                Completion.ack(held.get("big-2")),
                new Completion(held.get("small"), tx -> insertEffect(tx, "small", "batch"))));

    assertThat(results)
        .containsExactly(
            new QueueResult.Completed("big-1"),
            new QueueResult.LeaseLost("lost", stalled.fence()),
            new QueueResult.LeaseLost("big-1", held.get("big-1").fence()),
            new QueueResult.Completed("big-2"),
            new QueueResult.Completed("small"));
    reopen();
    assertThat(db.strings("SELECT holder FROM effects ORDER BY message_key"))
        .containsExactly("first", "batch");
    assertThat(db.strings("SELECT message_key FROM onceonly_messages")).containsExactly("lost");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_payloads")).isEqualTo(1);
    assertThat(once.queue().ackAll(List.of(held.get("lost"), held.get("small"))))
        .containsExactly(
            new QueueResult.Completed("lost"),
            new QueueResult.LeaseLost("small", held.get("small").fence()));
    reopen();
    assertThat(messages(Q)).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_payloads")).isZero();
  }

  /** A receipts step joined to the completion's transaction: effect, receipt and ack at once. */
  @Test
  void completeJoinsAReceiptsStepAndASend() throws Exception {
    JobQueue q = once.queue();
    q.send(Q, "c-1", Map.of("n", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();

    QueueResult r =
        q.complete(
            lease,
            tx -> {
              recordEffect(tx, "c-1", "worker");
              return q.send(tx, Message.of("follow-up", "after-c-1", Map.of("n", 1)));
            });
    assertThat(r).isEqualTo(new QueueResult.Completed("c-1"));

    reopen();
    assertThat(effects()).isEqualTo(1);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(1);
    assertThat(messages(Q)).isZero();
    assertThat(messages("follow-up")).isEqualTo(1);
  }

  /**
   * A holder whose lease runs out while its {@code complete} work runs: a second holder claims the
   * message (the clock moved past the lease) while the first one's work is still open. The work
   * inserts a plain row, with no receipt to stop a second one, so it may commit only together with
   * a successful fenced acknowledgement. On SQLite the write lock keeps the second claim out until
   * the first transaction ends; on PostgreSQL the first holder's acknowledgement, made before its
   * work, locks the message row, and the claim ({@code FOR UPDATE SKIP LOCKED}) passes it by.
   * Either way one holder's work commits, once.
   */
  @Test
  void aHolderWhoseLeaseRunsOutDuringCompleteCommitsItsWorkOnlyWithItsAck() throws Exception {
    db.exec("CREATE TABLE work_rows (message_key VARCHAR(300) NOT NULL, holder VARCHAR(20))");
    JobQueue q = once.queue();
    q.send(Q, "race-1", Map.of("n", 1));
    Lease first = only(q.receive(Q, 1, LEASE)).lease();
    boolean oneWriter = db.dialect() == Dialect.SQLITE;
    CountDownLatch working = new CountDownLatch(1);
    CountDownLatch secondReceived = new CountDownLatch(1);
    AtomicBoolean sawTheSecondReceive = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<QueueResult> firstResult =
          pool.submit(
              () ->
                  q.complete(
                      first,
                      tx -> {
                        insertWorkRow(tx, "race-1", "first");
                        working.countDown();
                        // SQLite: the second receive waits for this transaction, so this wait
                        // runs out; PostgreSQL: the second receive answers while the work runs.
                        sawTheSecondReceive.set(
                            secondReceived.await(oneWriter ? 300 : 30_000, TimeUnit.MILLISECONDS));
                        return null;
                      }));
      assertThat(working.await(30, TimeUnit.SECONDS)).isTrue();
      clock.advance(LEASE.plusSeconds(1)); // the first holder's lease runs out during its work
      List<Delivery> taken = q.receive(Q, 1, LEASE);
      secondReceived.countDown();
      QueueResult firstAnswer = firstResult.get(30, TimeUnit.SECONDS);
      assertThat(sawTheSecondReceive.get())
          .as("the second receive answered while the first work ran")
          .isEqualTo(!oneWriter);

      if (taken.isEmpty()) {
        assertThat(firstAnswer).isEqualTo(new QueueResult.Completed("race-1"));
      } else {
        assertThat(firstAnswer).isInstanceOf(QueueResult.LeaseLost.class);
        assertThat(q.complete(only(taken).lease(), tx -> insertWorkRow(tx, "race-1", "second")))
            .isEqualTo(new QueueResult.Completed("race-1"));
      }
      reopen();
      assertThat(db.strings("SELECT holder FROM work_rows"))
          .as("the work committed once, by the holder whose acknowledgement held")
          .hasSize(1);
      assertThat(taken).as("a message being completed is not claimed").isEmpty();
    } finally {
      pool.shutdownNow();
    }

    assertThat(db.strings("SELECT holder FROM work_rows")).containsExactly("first");
    assertThat(messages(Q)).isZero();
    clock.advance(LEASE.multipliedBy(3));
    assertThat(once.queue().receive(Q, 1, LEASE)).isEmpty();
  }

  /**
   * The checkpoint pattern: a step's work saves its effect and sends the next step under the same
   * key, and the acknowledgement of the current step frees that key inside the same transaction.
   */
  @Test
  void completeWithASendOfItsOwnKeyQueuesTheNextStep() throws Exception {
    JobQueue q = once.queue();
    q.send(Q, "job-1", Map.of("step", 1));
    for (int step = 1; step <= 3; step++) {
      Delivery d = only(q.receive(Q, 1, LEASE));
      assertThat(d.payload().get("step").asInt()).isEqualTo(step);
      assertThat(d.attempt()).isEqualTo(1);
      int n = step;
      AtomicReference<SendResult> sent = new AtomicReference<>();
      QueueResult r =
          q.complete(
              d.lease(),
              tx -> {
                insertEffect(tx, "job-1", "step-" + n);
                sent.set(q.send(tx, Message.of(Q, "job-1", Map.of("step", n + 1))));
                return null;
              });
      assertThat(r).isEqualTo(new QueueResult.Completed("job-1"));
      assertThat(sent.get().status()).isEqualTo(SendResult.Status.SENT);
      assertThat(q.depth(Q)).as("the next step waits").isEqualTo(1);
    }

    reopen();
    assertThat(db.strings("SELECT holder FROM effects ORDER BY holder"))
        .containsExactly("step-1", "step-2", "step-3");
    assertThat(db.strings("SELECT payload FROM onceonly_messages WHERE queue = ?", Q))
        .containsExactly("{\"step\":4}");
  }

  /**
   * A next message whose key is still queued with other content: the whole step is refused with a
   * typed exception, nothing acknowledged and nothing sent (not even the messages that could be),
   * and the lease still holds.
   */
  @Test
  void ackAndSendWithAConflictingNextMessageAcknowledgesAndSendsNothing() {
    JobQueue q = once.queue();
    q.send("next", "step-2", Map.of("owner", "someone else"));
    q.send(Q, "step-1", Map.of("step", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();

    assertThatThrownBy(
            () ->
                q.ackAndSend(
                    lease,
                    List.of(
                        Message.of("audit", "step-1-done", Map.of("step", 1)),
                        Message.of("next", "step-2", Map.of("step", 2)))))
        .isInstanceOfSatisfying(
            SendConflictException.class,
            e ->
                assertThat(e.conflicts())
                    .containsExactly(new SendResult(SendResult.Status.CONFLICT, "next", "step-2")))
        .hasMessageContaining("next/step-2");

    reopen();
    assertThat(messages(Q)).as("nothing acknowledged").isEqualTo(1);
    assertThat(messages("audit")).as("nothing sent").isZero();
    assertThat(db.strings("SELECT payload FROM onceonly_messages WHERE queue = 'next'"))
        .containsExactly("{\"owner\":\"someone else\"}");
    assertThat(once.queue().ack(lease))
        .as("the lease still holds")
        .isEqualTo(new QueueResult.Completed("step-1"));
  }

  /**
   * Inside {@code complete}, a send answers for itself; {@code orThrow()} on a {@code CONFLICT}
   * rolls the whole step back: no effect, no acknowledgement, the lease still held.
   */
  @Test
  void completeRollsTheStepBackWhenItsWorkRefusesAConflictingSend() {
    JobQueue q = once.queue();
    q.send("next", "step-2", Map.of("owner", "someone else"));
    q.send(Q, "step-1", Map.of("step", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();

    assertThatThrownBy(
            () ->
                q.complete(
                    lease,
                    tx -> {
                      insertEffect(tx, "step-1", "worker");
                      return q.send(tx, Message.of("next", "step-2", Map.of("step", 2))).orThrow();
                    }))
        .isInstanceOf(SendConflictException.class)
        .hasMessageContaining("next/step-2");

    reopen();
    assertThat(effects()).isZero();
    assertThat(messages(Q)).isEqualTo(1);
    assertThat(once.queue().ack(lease)).isEqualTo(new QueueResult.Completed("step-1"));
  }

  /** The same next message already queued, as it is: a repetition, not a refusal. */
  @Test
  void ackAndSendOfANextMessageAlreadyQueuedAsItIsCompletes() {
    JobQueue q = once.queue();
    q.send("next", "step-2", Map.of("step", 2));
    q.send(Q, "step-1", Map.of("step", 1));
    Lease lease = only(q.receive(Q, 1, LEASE)).lease();

    assertThat(q.ackAndSend(lease, List.of(Message.of("next", "step-2", Map.of("step", 2)))))
        .isEqualTo(new QueueResult.Completed("step-1"));

    reopen();
    assertThat(messages(Q)).isZero();
    assertThat(messages("next")).isEqualTo(1);
  }

  // ---- helpers ------------------------------------------------------------------------------

  static List<String> keys(List<Delivery> deliveries) {
    List<String> out = new ArrayList<>();
    deliveries.forEach(d -> out.add(d.key()));
    return out;
  }

  static Void insertWorkRow(Connection c, String key, String holder) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO work_rows (message_key, holder) VALUES (?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, holder);
      ps.executeUpdate();
    }
    return null;
  }

  static void insertUser(Connection c, String id, String name) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO users (user_id, user_name) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setString(2, name);
      ps.executeUpdate();
    }
  }

  static String sha256(byte[] bytes) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
