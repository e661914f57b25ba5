package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The worker's execution timeout on every dialect: a handler past its deadline is cancelled and
 * interrupted, the attempt counts as failed and the message is retried by the queue's policy, then
 * dead-lettered when its attempts are spent; a handler that returns within the deadline, or ignores
 * it and completes, is settled as it asked. Counted from the rows.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class WorkerTimeoutContract extends QueueContractSupport {
  private static final String Q = "exports";
  private static final Duration TIMEOUT = Duration.ofMillis(300);
  private static final Duration WAIT = Duration.ofSeconds(20);

  private JobQueue queue() {
    return once.queue(
        RetryPolicy.builder()
            .maxAttempts(2)
            .baseDelay(Duration.ofMinutes(1))
            .maxDelay(Duration.ofMinutes(1))
            .build());
  }

  private Worker worker(JobQueue queue, Handler handler) {
    return Worker.builder(queue, Q, handler)
        .executionTimeout(TIMEOUT)
        .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
        .build()
        .start();
  }

  @Test
  void aHandlerPastItsDeadlineIsInterruptedRetriedThenDeadLettered() {
    JobQueue queue = queue();
    queue.send(Q, "stuck", 1).orThrow();
    CountDownLatch never = new CountDownLatch(1);
    try (Worker w = worker(queue, job -> never.await())) {
      Eventually.await(
          WAIT,
          "the first attempt timed out and was retried",
          () ->
              db.count(
                      "SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'stuck'"
                          + " AND attempts = 1 AND last_error LIKE '%TimeoutException%'")
                  == 1);
      assertThat(db.strings("SELECT last_error FROM onceonly_messages WHERE message_key = 'stuck'"))
          .containsExactly(
              "java.util.concurrent.TimeoutException: the handler ran longer than PT0.3S");
      clock.advance(Duration.ofMinutes(2)); // the retry is due
      Eventually.await(
          WAIT,
          "the second attempt timed out and the message is dead",
          () ->
              db.count("SELECT COUNT(*) FROM onceonly_dead_letters WHERE message_key = 'stuck'")
                  == 1);
    }
    assertThat(messages(Q)).isZero();
    assertThat(db.strings("SELECT last_error FROM onceonly_dead_letters"))
        .singleElement()
        .asString()
        .contains("TimeoutException");
  }

  @Test
  void aHandlerWithinItsDeadlineOrIgnoringItIsSettledAsItAsked() {
    JobQueue queue = queue();
    queue.send(Q, "quick", 1).orThrow();
    queue.send(Q, "stubborn", 2).orThrow();
    AtomicBoolean interrupted = new AtomicBoolean();
    Handler handler =
        job -> {
          if (job.lease().key().equals("stubborn")) {
            long end = System.nanoTime() + TIMEOUT.multipliedBy(3).toNanos();
            while (System.nanoTime() < end) {
              if (Thread.interrupted()) {
                interrupted.set(true); // ignored: it goes on and completes
              }
            }
          }
          job.completeWith(tx -> insertEffect(tx, job.lease().key(), "worker"));
        };
    try (Worker w = worker(queue, handler)) {
      Eventually.await(WAIT, "both completed", () -> effects() == 2 && messages(Q) == 0);
    }
    assertThat(interrupted).as("the stubborn handler was interrupted at its deadline").isTrue();
    assertThat(duplicatedEffects()).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  @Test
  void theTimeoutMustBePositive() {
    assertThatThrownBy(
            () -> Worker.builder(once.queue(), Q, job -> {}).executionTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("executionTimeout must be > 0");
  }
}
