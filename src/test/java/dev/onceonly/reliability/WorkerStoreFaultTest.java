package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/**
 * A {@link Worker} whose store fails at the moment it releases a job it cancelled itself (lease
 * lost, shutdown): releasing is a courtesy (the lease runs out and the message is delivered again
 * anyway), so the failure must neither end a polling thread nor keep {@code close()} from releasing
 * the other jobs and stopping the handlers. The fault is a raw connection holding {@code BEGIN
 * EXCLUSIVE} beyond the store's busy timeout; the effects are rows read after reopening.
 */
class WorkerStoreFaultTest {
  private static final String Q = "faulty";
  private static final String STUCK = "stuck";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration LEASE = Duration.ofMillis(300);

  @TempDir Path dir;
  private Path file;
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

  @BeforeEach
  void createFile() {
    file = dir.resolve("worker-faults.db");
    open().close();
    Db.exec(file, "CREATE TABLE fault_effects (intent_key TEXT NOT NULL, body BLOB)");
  }

  /**
   * One polling thread; its handler's lease is taken over by another receiver, the worker cancels
   * the job, and the release of it fails busy. The same thread must go on to handle the messages
   * sent once the lock is gone.
   */
  @Test
  void aReleaseThatFailsLeavesThePollingThreadRunning() throws Exception {
    AtomicReference<Thread> poller = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch cancelled = new CountDownLatch(1);
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch thrown = new CountDownLatch(1);
    try (OnceOnly once = open();
        OnceOnly other = open()) {
      once.queue().send(Q, "victim", Map.of("n", 0));
      Handler handler =
          job -> {
            if (!job.delivery().key().equals("victim")) {
              job.completeWith(tx -> StorageFaultTest.insertRow(tx, job.delivery().key()));
              return;
            }
            poller.set(Thread.currentThread());
            started.countDown();
            try {
              Eventually.await(WAIT, "the worker cancelled the job", job::isCancelled);
              cancelled.countDown();
              assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
              job.throwIfCancelled();
            } finally {
              thrown.countDown();
            }
          };
      Worker worker = worker(once, Q, handler, 1).start();
      try {
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        takeOverTheLease(other);
        assertThat(cancelled.await(30, TimeUnit.SECONDS)).isTrue();
        try (Connection holder = exclusiveLock()) {
          locked.countDown();
          assertThat(thrown.await(30, TimeUnit.SECONDS)).isTrue();
          Eventually.await(
              WAIT, "the release attempted under the lock", () -> !insideHandle(poller.get()));
          rollback(holder);
        }
        for (int i = 0; i < 5; i++) {
          once.queue().send(Q, "after-" + i, Map.of("n", i));
        }
        Eventually.await(
            WAIT,
            "the messages sent after the fault handled by the same worker",
            () -> Db.count(file, "SELECT COUNT(*) FROM fault_effects") == 5);
      } finally {
        worker.close();
      }
    }
    try (OnceOnly reopened = open()) {
      assertThat(reopened.queue().depth(Q)).as("the victim, leased by the other receiver").isOne();
      assertThat(Db.strings(file, "SELECT intent_key FROM fault_effects ORDER BY intent_key"))
          .containsExactly("after-0", "after-1", "after-2", "after-3", "after-4");
      assertThat(
              Db.count(
                  file, "SELECT COUNT(*) FROM onceonly_messages WHERE message_key LIKE 'after-%'"))
          .isZero();
      assertThat(Db.strings(file, "SELECT message_key FROM onceonly_messages"))
          .as("the victim stays with the receiver that took it over")
          .containsExactly("victim");
    }
  }

  /**
   * Two handlers stuck past the shutdown timeout while the store is locked: {@code close()} must
   * try to release both, interrupt both handlers and return; once the lock is gone and the leases
   * have run out, a new worker handles both messages.
   */
  @Test
  void closeReleasingUnderAFaultStillStopsEveryHandler() throws Exception {
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch ended = new CountDownLatch(2);
    Handler stuck =
        job -> {
          started.countDown();
          try {
            assertThat(new CountDownLatch(1).await(60, TimeUnit.SECONDS)).isFalse();
          } finally {
            ended.countDown();
          }
        };
    try (OnceOnly once = open()) {
      once.queue().send(STUCK, "stuck-0", Map.of("n", 0));
      once.queue().send(STUCK, "stuck-1", Map.of("n", 1));
      Worker worker =
          Worker.builder(once.queue(), STUCK, stuck)
              .threads(2)
              .lease(LEASE)
              .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
              .shutdownTimeout(Duration.ofMillis(100))
              .build()
              .start();
      assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
      try (Connection holder = exclusiveLock()) {
        worker.close();
        assertThat(ended.await(30, TimeUnit.SECONDS)).as("both handlers interrupted").isTrue();
        rollback(holder);
      }
      // A renewal or a retry still running after close() would date the message from the new time.
      Eventually.await(WAIT, "the closed worker's threads ended", () -> threadsOf(STUCK) == 0);
      clock.advance(Duration.ofMinutes(1)); // the leases the failed releases left run out
      Handler recording =
          job -> job.completeWith(tx -> StorageFaultTest.insertRow(tx, job.delivery().key()));
      Worker again = worker(once, STUCK, recording, 1).start();
      try {
        Eventually.await(WAIT, "both messages handled", () -> once.queue().depth(STUCK) == 0);
      } finally {
        again.close();
      }
    }
    try (OnceOnly reopened = open()) {
      assertThat(reopened.queue().depth(STUCK)).isZero();
      assertThat(Db.strings(file, "SELECT intent_key FROM fault_effects ORDER BY intent_key"))
          .containsExactly("stuck-0", "stuck-1");
      assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    }
  }

  private OnceOnly open() {
    return OnceOnly.builder().sqlite(file).busyTimeout(Duration.ofMillis(200)).clock(clock).build();
  }

  private static Worker worker(OnceOnly once, String queue, Handler handler, int threads) {
    return Worker.builder(once.queue(), queue, handler)
        .threads(threads)
        .lease(LEASE)
        .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .build();
  }

  /**
   * Moves the clock past the lease and claims the message through {@code other}; repeated, since a
   * renewal between the two may extend the lease from the new time.
   */
  private void takeOverTheLease(OnceOnly other) {
    AtomicReference<List<Delivery>> taken = new AtomicReference<>(List.of());
    Eventually.await(
        WAIT,
        "another receiver took the lease over",
        () -> {
          clock.advance(Duration.ofMinutes(1));
          taken.set(other.queue().receive(Q, 1, Duration.ofHours(1)));
          return !taken.get().isEmpty();
        });
    assertThat(taken.get().get(0).key()).isEqualTo("victim");
  }

  /** A connection of the test's holding the write lock until it is closed. */
  private Connection exclusiveLock() throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(10_000); // the worker may be writing a renewal
    Connection c = config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
    try (Statement s = c.createStatement()) {
      s.execute("BEGIN EXCLUSIVE");
      s.execute("INSERT INTO fault_effects (intent_key) SELECT 'held' WHERE 0");
    }
    return c;
  }

  private static void rollback(Connection holder) throws SQLException {
    try (Statement s = holder.createStatement()) {
      s.execute("ROLLBACK");
    }
  }

  /** Counts the live threads (polling and renewing) of the workers on {@code queue}. */
  private static long threadsOf(String queue) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("onceonly-worker-"))
        .filter(t -> t.getName().contains("-" + queue + "-"))
        .count();
  }

  /** Whether {@code t} is still inside the worker's handling of a delivery. */
  private static boolean insideHandle(Thread t) {
    return Arrays.stream(t.getStackTrace())
        .anyMatch(
            f ->
                f.getClassName().equals(Worker.class.getName())
                    && f.getMethodName().equals("handle"));
  }
}
