package dev.onceonly.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.SqliteContractDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link Worker} of a paused queue, on a real SQLite file shared by two instances: it claims
 * nothing and reads the pause once an interval instead of polling at its idle backoff, finishes the
 * job it held when the pause came, and claims again after another instance resumes the queue.
 *
 * <p>The worker's queue is the real one seen through a proxy that counts its polls ({@code
 * receive}) and its reads of the pause, so the test can wait for a number of reads (not for a span
 * of time) and bound the polls made meanwhile; what was handled is asserted from the rows.
 */
class WorkerPauseTest {
  private static final String Q = "mails";
  private static final Duration CHECK = Duration.ofMillis(20);

  @TempDir Path dir;

  /** The real queue, with its polls and pause reads counted. */
  private static final class Counted {
    final AtomicInteger polls = new AtomicInteger();
    final AtomicInteger pauseReads = new AtomicInteger();
    final JobQueue queue;

    Counted(JobQueue real) {
      queue =
          (JobQueue)
              Proxy.newProxyInstance(
                  JobQueue.class.getClassLoader(),
                  new Class<?>[] {JobQueue.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("receive")) {
                      polls.incrementAndGet();
                    } else if (method.getName().equals("paused") && args != null) {
                      pauseReads.incrementAndGet();
                    }
                    try {
                      return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
    }
  }

  private static long rows(SqliteContractDatabase db, String where) {
    return db.count("SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND " + where, Q);
  }

  @Test
  void aPausedQueuesWorkerReadsThePauseEachIntervalClaimsNothingAndResumes() {
    SqliteContractDatabase db = SqliteContractDatabase.in(dir);
    try (OnceOnly a = db.builder().build();
        OnceOnly b = db.builder().build()) {
      assertThat(a.queue().pause(Q, "ops", "provider down")).isTrue();
      for (int i = 0; i < 5; i++) {
        a.queue().send(Q, "m-" + i, i).orThrow();
      }
      Counted counted = new Counted(a.queue());
      Set<String> handled = ConcurrentHashMap.newKeySet();
      try (Worker worker =
          Worker.builder(counted.queue, Q, job -> handled.add(job.delivery().key()))
              .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
              .pauseCheck(CHECK)
              .build()
              .start()) {
        long started = System.nanoTime();
        Eventually.await(
            Duration.ofSeconds(60),
            "ten reads of the pause, or fifty polls",
            () -> counted.pauseReads.get() >= 10 || counted.polls.get() >= 50);
        long elapsed = System.nanoTime() - started;
        int polls = counted.polls.get();
        int reads = counted.pauseReads.get();
        System.out.printf(
            "paused worker: %d polls, %d pause reads in %d ms%n",
            polls, reads, TimeUnit.NANOSECONDS.toMillis(elapsed));
        assertThat(polls).as("polls while paused (idle backoff 1 ms)").isLessThanOrEqualTo(2);
        assertThat(elapsed)
            .as("the reads an interval apart")
            .isGreaterThanOrEqualTo((reads - 1) * CHECK.toNanos());
        assertThat(handled).isEmpty();
        assertThat(rows(db, "attempts = 0")).isEqualTo(5);

        assertThat(b.queue().resume(Q)).isTrue(); // another instance: no wake-up in this process
        Eventually.await(
            Duration.ofSeconds(60), "every message handled", () -> rows(db, "1 = 1") == 0);
        assertThat(handled).containsExactlyInAnyOrder("m-0", "m-1", "m-2", "m-3", "m-4");
      }
    }
  }

  /**
   * A pause that comes while a job is being handled: the job completes (its row goes), the next
   * message is not claimed while the queue stays paused.
   */
  @Test
  void aJobHeldWhenThePauseCameCompletesAndNothingElseIsClaimed() throws Exception {
    SqliteContractDatabase db = SqliteContractDatabase.in(dir);
    try (OnceOnly a = db.builder().build();
        OnceOnly b = db.builder().build()) {
      a.queue().send(Q, "first", 1).orThrow();
      CountDownLatch handling = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Counted counted = new Counted(a.queue());
      try (Worker worker =
          Worker.builder(
                  counted.queue,
                  Q,
                  job -> {
                    if (job.delivery().key().equals("first")) {
                      handling.countDown();
                      release.await();
                    }
                  })
              .pauseCheck(CHECK)
              .build()
              .start()) {
        assertThat(handling.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(b.queue().pause(Q, "ops", null)).isTrue();
        a.queue().send(Q, "second", 2).orThrow();
        release.countDown();
        Eventually.await(
            Duration.ofSeconds(60),
            "the held job completed and the pause read three times",
            () -> rows(db, "message_key = 'first'") == 0 && counted.pauseReads.get() >= 3);
        assertThat(rows(db, "message_key = 'second' AND attempts = 0")).isOne();
      }
    }
  }
}
