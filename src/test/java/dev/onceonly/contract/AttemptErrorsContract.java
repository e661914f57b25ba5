package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.queue.AttemptError;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each failed attempt's error is kept with its message ({@link JobQueue#attemptErrors}): written
 * with the failure, bounded in count and size, following the message into the dead letters and
 * back, and deleted with the message or its dead letter. Every check reads the store after
 * reopening it (a SQLite file reopened) and counts the {@code attempt_errors} rows directly.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class AttemptErrorsContract extends ContractSupport {
  static final String Q = "jobs";
  static final Duration LEASE = Duration.ofMinutes(1);

  /** Retries at once (the clock stands still), at most {@code attempts} deliveries. */
  static RetryPolicy failFast(int attempts) {
    return RetryPolicy.builder()
        .maxAttempts(attempts)
        .baseDelay(Duration.ZERO)
        .maxDelay(Duration.ZERO)
        .maxElapsed(Duration.ofDays(3650))
        .build();
  }

  private long rows() {
    return count("SELECT COUNT(*) FROM onceonly_attempt_errors");
  }

  private Delivery receive(JobQueue queue) {
    List<Delivery> got = queue.receive(Q, 1, LEASE);
    assertThat(got).hasSize(1);
    return got.get(0);
  }

  /** Runs one delivery through a handler that throws {@code error}, as a worker would. */
  private QueueResult failWith(JobQueue queue, RuntimeException error) {
    return Worker.handleOnce(
        queue,
        receive(queue),
        job -> {
          throw error;
        });
  }

  @Test
  void aHandlerFailingThreeTimesThenDeadLetteredLeavesThreeEntriesInOrder() {
    start();
    JobQueue queue = once.queue(failFast(3));
    queue.send(Q, "k", Map.of("n", 1));
    List<Long> leases = new ArrayList<>();
    List<Instant> times = new ArrayList<>();
    QueueResult last = null;
    for (int i = 1; i <= 3; i++) {
      clock.advance(Duration.ofMinutes(1));
      Delivery d = receive(queue);
      leases.add(d.lease().fence());
      times.add(clock.instant());
      int n = i;
      last =
          Worker.handleOnce(
              queue,
              d,
              job -> {
                throw new IllegalStateException("boom " + n);
              });
    }
    assertThat(last).isInstanceOf(QueueResult.DeadLettered.class);
    reopen();

    List<AttemptError> history = once.queue().attemptErrors(Q, "k");
    assertThat(history).extracting(AttemptError::attempt).containsExactly(1, 2, 3);
    assertThat(history).extracting(AttemptError::leaseNumber).containsExactlyElementsOf(leases);
    assertThat(history).extracting(AttemptError::at).containsExactlyElementsOf(times);
    assertThat(history)
        .extracting(AttemptError::errorClass)
        .containsOnly(Optional.of("java.lang.IllegalStateException"));
    assertThat(history)
        .extracting(AttemptError::message)
        .containsExactly("boom 1", "boom 2", "boom 3");
    for (AttemptError e : history) {
      assertThat(e.trace()).isPresent();
      assertThat(e.trace().get())
          .startsWith("\tat " + AttemptErrorsContract.class.getName())
          .doesNotContain("boom"); // the class and message are kept apart
      assertThat(e.trace().get().lines()).hasSizeLessThanOrEqualTo(AttemptError.MAX_TRACE_LINES);
    }
    assertThat(history).isUnmodifiable();
    assertThat(rows()).isEqualTo(3);
    assertThat(once.queue().findDeadLetter(Q, "k").orElseThrow().lastError())
        .isEqualTo("java.lang.IllegalStateException: boom 3");
  }

  /** The example of docs/queue.md, "Each attempt's error". */
  @Test
  void theDocsExampleReadsTheHistoryOfADeadLetter() {
    start(b -> b.attemptErrorsKept(20));
    JobQueue queue = once.queue(failFast(2));
    queue.send("reports", "r-1", Map.of("n", 1));
    Worker.handleOnce(
        queue,
        queue.receive("reports", 1, LEASE).get(0),
        job -> {
          throw new IllegalStateException("disk full");
        });
    queue.nack(queue.receive("reports", 1, LEASE).get(0).lease(), "quota exceeded");
    reopen();
    List<String> lines = new ArrayList<>();
    for (AttemptError e : once.queue().attemptErrors("reports", "r-1")) {
      lines.add(e.attempt() + " " + e.errorClass().orElse("(text)") + ": " + e.message());
    }
    assertThat(lines)
        .containsExactly(
            "1 java.lang.IllegalStateException: disk full", "2 (text): quota exceeded");
    assertThat(once.queue().findDeadLetter("reports", "r-1")).isPresent();
  }

  @Test
  void failingTheDefaultNPlusFiveTimesKeepsExactlyTheNewestN() {
    start();
    int n = AttemptError.DEFAULT_KEPT;
    JobQueue queue = once.queue(failFast(n + 5));
    queue.send(Q, "k", Map.of("n", 1));
    for (int i = 1; i <= n + 5; i++) {
      failWith(queue, new IllegalArgumentException("failure " + i));
    }
    reopen();
    assertThat(once.queue().findDeadLetter(Q, "k")).isPresent();
    List<AttemptError> history = once.queue().attemptErrors(Q, "k");
    assertThat(history)
        .extracting(AttemptError::attempt)
        .containsExactly(6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    assertThat(history.get(0).message()).isEqualTo("failure 6");
    assertThat(rows()).isEqualTo(n);
  }

  @Test
  void theBuilderSetsHowManyAreKept() {
    start(b -> b.attemptErrorsKept(2));
    JobQueue queue = once.queue(failFast(100));
    queue.send(Q, "k", Map.of("n", 1));
    for (int i = 1; i <= 5; i++) {
      failWith(queue, new IllegalStateException("f" + i));
    }
    reopen();
    assertThat(once.queue().attemptErrors(Q, "k"))
        .extracting(AttemptError::message)
        .containsExactly("f4", "f5");
    assertThat(rows()).isEqualTo(2);
  }

  @Test
  void zeroKeepsNoneAndTheBoundsAreChecked() {
    start(b -> b.attemptErrorsKept(0));
    JobQueue queue = once.queue(failFast(2));
    queue.send(Q, "k", Map.of("n", 1));
    failWith(queue, new IllegalStateException("f"));
    assertThat(once.queue().attemptErrors(Q, "k")).isEmpty();
    assertThat(rows()).isZero();
    OnceOnlyBuilder b = OnceOnly.builder();
    assertThatThrownBy(() -> b.attemptErrorsKept(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("attemptErrorsKept must be between 0 and 1000");
    assertThatThrownBy(() -> b.attemptErrorsKept(1_001))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** A failure with a long message, a deep stack and a chain of causes, one with a huge message. */
  static RuntimeException deep(int depth, String message) {
    if (depth == 0) {
      return new IllegalStateException(
          message,
          new java.io.UncheckedIOException(
              "io", new java.io.IOException("root " + "r".repeat(10_000))));
    }
    return deep(depth - 1, message);
  }

  @Test
  void aLongMessageAndTraceAreCutToTheBound() {
    start();
    JobQueue queue = once.queue(failFast(5));
    queue.send(Q, "k", Map.of("n", 1));
    failWith(queue, deep(40, "m".repeat(5_000) + "\u0000tail"));
    reopen();
    AttemptError e = once.queue().attemptErrors(Q, "k").get(0);
    assertThat(e.message())
        .hasSize(AttemptError.MAX_MESSAGE_CHARS)
        .startsWith("mmmm")
        .endsWith("\u2026");
    String trace = e.trace().orElseThrow();
    assertThat(trace).hasSize(AttemptError.MAX_TRACE_CHARS).endsWith("\u2026");
    List<String> lines = trace.lines().toList();
    assertThat(lines.subList(0, AttemptError.MAX_TRACE_LINES)).allMatch(l -> l.startsWith("\tat "));
    assertThat(lines.get(AttemptError.MAX_TRACE_LINES))
        .isEqualTo("Caused by: java.io.UncheckedIOException: io");
    assertThat(lines.get(AttemptError.MAX_TRACE_LINES + 1))
        .startsWith("Caused by: java.io.IOException: root rrrr");
    assertThat(lines).hasSize(AttemptError.MAX_TRACE_LINES + 2);
    assertThat(once.maintenance().findMessage(Q, "k").orElseThrow().lastError().orElseThrow())
        .hasSize(AttemptError.MAX_MESSAGE_CHARS);
  }

  @Test
  void aFailureGivenAsTextIsKeptWithoutClassOrTrace() {
    start();
    once.queue().send(Q, "k", Map.of("n", 1));
    Lease lease = receive(once.queue()).lease();
    assertThat(once.queue().nack(lease, "provider said 503"))
        .isInstanceOf(QueueResult.Retrying.class);
    reopen();
    AttemptError e = once.queue().attemptErrors(Q, "k").get(0);
    assertThat(e.errorClass()).isEmpty();
    assertThat(e.trace()).isEmpty();
    assertThat(e.message()).isEqualTo("provider said 503");
    assertThat(e.leaseNumber()).isEqualTo(lease.fence());
  }

  /**
   * The entry shares the failure's transaction: when it cannot be written (its table is gone), the
   * retry is not recorded either, and the message stays as its claim left it.
   */
  @Test
  void anEntryThatCannotBeWrittenRollsTheFailureBack() {
    start();
    JobQueue queue = once.queue(failFast(1));
    queue.send(Q, "k", Map.of("n", 1));
    Lease lease = receive(queue).lease();
    exec("DROP TABLE onceonly_attempt_errors");
    assertThatThrownBy(() -> queue.nack(lease, new IllegalStateException("lost")))
        .isInstanceOf(dev.onceonly.StoreException.class);
    reopen();
    assertThat(once.queue().findDeadLetter(Q, "k")).isEmpty();
    dev.onceonly.maintenance.QueuedMessage m = once.maintenance().findMessage(Q, "k").orElseThrow();
    assertThat(m.lastError()).isEmpty();
    assertThat(m.fence()).isEqualTo(lease.fence());
    assertThat(m.state()).isEqualTo(dev.onceonly.maintenance.QueuedMessage.State.LEASED);
  }

  @Test
  void aStaleLeaseRecordsNothing() {
    start();
    once.queue().send(Q, "k", Map.of("n", 1));
    Lease stale = receive(once.queue()).lease();
    clock.advance(LEASE.plusSeconds(1));
    receive(once.queue()); // taken over
    assertThat(once.queue().nack(stale, new IllegalStateException("late")))
        .isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(once.queue().deadLetter(stale, new IllegalStateException("late")))
        .isInstanceOf(QueueResult.LeaseLost.class);
    assertThat(rows()).isZero();
  }

  /**
   * Eight threads behind a start gate fail the same lease at once, each of two instances: one
   * failure is recorded, with one entry; the others find the lease gone and write none.
   */
  @Test
  void eightThreadsFailingOneLeaseAtOnceWriteOneEntry() throws Exception {
    start();
    OnceOnly other = track(open(clock, b -> {}));
    for (int round = 0; round < 5; round++) {
      String queueName = "race-" + round; // the last round's message is due again at once
      once.queue(failFast(5)).send(queueName, "k", Map.of("n", round));
      Lease lease = once.queue(failFast(5)).receive(queueName, 1, LEASE).get(0).lease();
      List<QueueResult> results =
          dev.onceonly.testing.Race.run(
              8,
              i ->
                  () ->
                      (i % 2 == 0 ? once : other)
                          .queue(failFast(5))
                          .nack(lease, new IllegalStateException("thread " + i)));
      assertThat(results).as("%s", results).anyMatch(r -> r instanceof QueueResult.Retrying);
      assertThat(once.queue().attemptErrors(queueName, "k")).as("%s", results).hasSize(1);
      assertThat(once.maintenance().findMessage(queueName, "k").orElseThrow().fence())
          .isEqualTo(lease.fence() + 1); // one retry went through
    }
    reopen();
    assertThat(rows()).isEqualTo(5);
  }

  /** Two failures, then the message of {@code key} is held under a lease again. */
  private Lease failTwiceThenHold(JobQueue queue, String key) {
    queue.send(Q, key, Map.of("n", 1));
    failWith(queue, new IllegalStateException("one"));
    failWith(queue, new IllegalStateException("two"));
    return receive(queue).lease();
  }

  @Test
  void completingOrWithdrawingAMessageDeletesItsEntries() {
    start();
    JobQueue queue = once.queue(failFast(5));
    Lease held = failTwiceThenHold(queue, "done");
    assertThat(rows()).isEqualTo(2);
    assertThat(queue.ack(held)).isInstanceOf(QueueResult.Completed.class);
    reopen();
    assertThat(once.queue().attemptErrors(Q, "done")).isEmpty();
    assertThat(rows()).isZero();

    queue = once.queue(failFast(5));
    failTwiceThenHold(queue, "gone");
    assertThat(queue.withdraw(Q, "gone")).isTrue();
    reopen();
    assertThat(rows()).isZero();

    // several at once: on PostgreSQL one statement acknowledges them all
    queue = once.queue(failFast(5));
    Lease a = failTwiceThenHold(queue, "a");
    queue.send(Q, "clean", Map.of("n", 2));
    Lease clean = receive(queue).lease();
    assertThat(rows()).isEqualTo(2);
    assertThat(queue.ackAll(List.of(a, clean))).allMatch(r -> r instanceof QueueResult.Completed);
    reopen();
    assertThat(rows()).isZero();
  }

  @Test
  void aRequeuedDeadLetterKeepsItsHistoryUntilItCompletes() {
    start();
    JobQueue queue = once.queue(failFast(2));
    queue.send(Q, "k", Map.of("n", 1));
    failWith(queue, new IllegalStateException("one"));
    assertThat(failWith(queue, new IllegalStateException("two")))
        .isInstanceOf(QueueResult.DeadLettered.class);
    assertThat(once.queue().requeue(Q, "k")).isTrue();
    reopen();
    assertThat(once.queue().attemptErrors(Q, "k"))
        .extracting(AttemptError::message)
        .containsExactly("one", "two");
    queue = once.queue(failFast(2));
    failWith(queue, new IllegalStateException("three"));
    assertThat(once.queue().attemptErrors(Q, "k"))
        .extracting(AttemptError::attempt)
        .containsExactly(1, 2, 1); // a requeue counts its deliveries from 1 again
    assertThat(queue.ack(receive(queue).lease())).isInstanceOf(QueueResult.Completed.class);
    reopen();
    assertThat(rows()).isZero();
  }

  @Test
  void aRequeuedDeadLetterThatNeverFailsAgainTakesItsHistoryWhenItCompletes() {
    start();
    JobQueue queue = once.queue(failFast(1));
    queue.send(Q, "k", Map.of("n", 1));
    failWith(queue, new IllegalStateException("one"));
    assertThat(once.queue().requeue(Q, "k")).isTrue();
    assertThat(rows()).isEqualTo(1);
    assertThat(queue.ack(receive(queue).lease())).isInstanceOf(QueueResult.Completed.class);
    reopen();
    assertThat(rows()).isZero();
  }

  @Test
  void aKeySentAgainWhileItsDeadLetterIsKeptLeavesTheDeadLettersHistory() {
    start();
    JobQueue queue = once.queue(failFast(1));
    queue.send(Q, "k", Map.of("n", 1));
    failWith(queue, new IllegalStateException("dead"));
    queue.send(Q, "k", Map.of("n", 2));
    assertThat(queue.ack(receive(queue).lease())).isInstanceOf(QueueResult.Completed.class);
    reopen();
    assertThat(once.queue().attemptErrors(Q, "k"))
        .extracting(AttemptError::message)
        .containsExactly("dead");

    // a new message of the key that fails shares the history, and its completion leaves it
    queue = once.queue(failFast(2));
    queue.send(Q, "k", Map.of("n", 3));
    failWith(queue, new IllegalStateException("again"));
    assertThat(queue.ack(receive(queue).lease())).isInstanceOf(QueueResult.Completed.class);
    reopen();
    assertThat(once.queue().attemptErrors(Q, "k"))
        .extracting(AttemptError::message)
        .containsExactly("dead", "again");
    assertThat(once.maintenance().deleteDeadLetter(Q, "k")).isTrue();
    assertThat(rows()).isZero();
  }

  @Test
  void deletingADeadLetterOneOrInBulkAndPurgingLeaveNoEntries() {
    start();
    JobQueue queue = once.queue(failFast(2));
    for (String key : List.of("one", "listed", "old")) {
      queue.send(Q, key, Map.of("n", 1));
      failWith(queue, new IllegalStateException(key + " 1"));
      failWith(queue, new IllegalStateException(key + " 2"));
    }
    assertThat(rows()).isEqualTo(6);
    assertThat(once.maintenance().deleteDeadLetter(Q, "one")).isTrue();
    Instant deadAt = once.queue().findDeadLetter(Q, "listed").orElseThrow().deadAt();
    assertThat(once.maintenance().deleteDeadLetter(Q, "listed", deadAt)).isTrue();
    reopen();
    assertThat(once.queue().attemptErrors(Q, "one")).isEmpty();
    assertThat(rows()).isEqualTo(2);
    clock.advance(Duration.ofDays(1));
    assertThat(once.maintenance().purgeDeadLetters(Duration.ofHours(1), 10, n -> {})).isOne();
    reopen();
    assertThat(rows()).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }
}
