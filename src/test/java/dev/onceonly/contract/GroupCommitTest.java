package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.sql.SqliteWriteTurns;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.Race;
import dev.onceonly.testing.SqliteDataSources;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/**
 * Group commit under contention: 16 threads behind a start gate on one instance, so that steps
 * share transactions; every fifth effect fails after writing its row. A failing step must roll back
 * alone (its savepoint), its caller gets its own exception, and every other step of the same
 * transaction commits with its receipt.
 */
class GroupCommitTest {
  static final int THREADS = 16;
  static final int STEPS = 40;

  @TempDir Path dir;

  /** The exception a failing effect throws, so the caller can tell it is its own. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String key) {
      super("refused " + key);
    }
  }

  @Test
  void aFailingStepRollsBackAloneAndTheOthersCommit() throws Exception {
    Path file = SqliteFiles.file(dir);
    Db.exec(file, "CREATE TABLE effects (k TEXT NOT NULL)");
    MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    List<List<String>> refusedPerThread;
    try (OnceOnly once = SqliteFiles.open(dir, clock, b -> b.groupCommit(64, Duration.ZERO))) {
      refusedPerThread =
          Race.run(
              THREADS,
              t ->
                  () -> {
                    List<String> refused = new ArrayList<>();
                    for (int i = 0; i < STEPS; i++) {
                      String key = "t" + t + "-" + i;
                      boolean fails = (t * STEPS + i) % 5 == 0;
                      try {
                        Outcome<String> o =
                            once.receipts()
                                .execute(
                                    IntentKey.of("s", key),
                                    "touch",
                                    Map.of("i", i),
                                    String.class,
                                    c -> effect(c, key, fails));
                        assertThat(o).isInstanceOf(Outcome.Created.class);
                        assertThat(fails)
                            .as("a failing effect must not be answered Created")
                            .isFalse();
                      } catch (Refused e) {
                        assertThat(e).hasMessage("refused " + key);
                        refused.add(key);
                      }
                    }
                    return refused;
                  });
    }
    List<String> refused = refusedPerThread.stream().flatMap(List::stream).toList();
    int total = THREADS * STEPS;
    assertThat(refused).hasSize(total / 5);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects")).isEqualTo(total - refused.size());
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts"))
        .isEqualTo(total - refused.size());
    assertThat(Db.count(file, "SELECT COUNT(DISTINCT k) FROM effects"))
        .isEqualTo(total - refused.size());
    for (String key : refused) {
      assertThat(Db.count(file, "SELECT COUNT(*) FROM effects WHERE k = '" + key + "'")).isZero();
      assertThat(
              Db.count(
                  file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = '" + key + "'"))
          .isZero();
    }
    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
  }

  /**
   * A lone caller with a positive {@code maxWait} commits at once: nobody else is queued, so its
   * leader has no batch to wait for. The thread's CPU time proves it does not spin for the wait
   * either (before, it spun on the CPU for the whole two seconds).
   */
  @Test
  void aLoneCallerWithMaxWaitCommitsAtOnceWithoutSpinning() throws Exception {
    Path file = SqliteFiles.file(dir);
    Db.exec(file, "CREATE TABLE effects (k TEXT NOT NULL)");
    MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    Duration maxWait = Duration.ofSeconds(2);
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    try (OnceOnly once = SqliteFiles.open(dir, clock, b -> b.groupCommit(64, maxWait))) {
      once.receipts() // warm-up: opens the connection and compiles the statements
          .execute(IntentKey.of("s", "warm"), "touch", Map.of(), String.class, c -> "warm");
      long cpuBefore = threads.getCurrentThreadCpuTime();
      long started = System.nanoTime();
      Outcome<String> o =
          once.receipts()
              .execute(
                  IntentKey.of("s", "lone"),
                  "touch",
                  Map.of("i", 1),
                  String.class,
                  c -> effect(c, "lone", false));
      long elapsed = System.nanoTime() - started;
      long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
      assertThat(o).isInstanceOf(Outcome.Created.class);
      assertThat(Duration.ofNanos(elapsed)).isLessThan(maxWait.dividedBy(2));
      assertThat(Duration.ofNanos(cpu)).isLessThan(maxWait.dividedBy(5));
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects WHERE k = 'lone'")).isEqualTo(1);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'lone'"))
        .isEqualTo(1);
  }

  /**
   * While the application's own transaction (through {@link SqliteWriteTurns}) holds the file, the
   * store's leader waits for its turn, and the steps that queue meanwhile join its batch once it
   * has begun: one commit for the four. Before, the leader's batch was fixed before it began: its
   * own step committed alone, and the three that came later in a second commit ({@code [1, 3]}).
   */
  @Test
  void stepsThatQueueWhileTheLeaderWaitsForTheFileShareItsCommit() throws Exception {
    Path file = SqliteFiles.file(dir);
    Db.exec(file, "CREATE TABLE effects (k TEXT NOT NULL)");
    MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    List<Integer> commits = new CopyOnWriteArrayList<>();
    DataSource app =
        SqliteWriteTurns.wrap(
            SqliteDataSources.wal(file, SQLiteConfig.TransactionMode.IMMEDIATE, 30_000));
    List<Thread> callers = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    try (OnceOnly once =
        SqliteFiles.open(
            dir,
            clock,
            b ->
                b.listener(
                    e -> {
                      if (e instanceof OnceOnlyEvent.GroupCommitted g) {
                        commits.add(g.steps());
                      }
                    }))) {
      once.receipts() // opens the store's connection before the file is held
          .execute(IntentKey.of("s", "warm"), "touch", Map.of(), String.class, c -> "warm");
      once.events().drain(Duration.ofSeconds(10));
      commits.clear();
      try (Connection held = app.getConnection()) {
        held.setAutoCommit(false); // the application's transaction takes the file's turn
        effect(held, "application", false);
        for (int i = 0; i < 4; i++) {
          String key = "k" + i;
          Thread t =
              new Thread(
                  () -> {
                    try {
                      once.receipts()
                          .execute(
                              IntentKey.of("s", key),
                              "touch",
                              Map.of(),
                              String.class,
                              c -> effect(c, key, false));
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  },
                  "caller-" + i);
          t.start();
          callers.add(t);
          // The first caller leads and waits for the file; each later one queues behind it.
          String waitsIn =
              i == 0 ? "SqliteWriteTurn" : "SingleConnectionDatabase.inWriteTransaction";
          Eventually.await(
              Duration.ofSeconds(30),
              "caller " + i + " waits in " + waitsIn,
              () -> parkedIn(t, waitsIn));
        }
        held.commit();
        held.setAutoCommit(true); // gives the turn back
      }
      for (Thread t : callers) {
        t.join(60_000);
        assertThat(t.isAlive()).as(t.getName() + " still running after 60 s").isFalse();
      }
      once.events().drain(Duration.ofSeconds(10));
    }
    assertThat(failures).isEmpty();
    assertThat(commits).containsExactly(4);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects")).isEqualTo(5); // warm wrote none
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key LIKE 'k%'"))
        .isEqualTo(4);
  }

  private static boolean parkedIn(Thread t, String frame) {
    Thread.State state = t.getState();
    if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
      return false;
    }
    for (StackTraceElement e : t.getStackTrace()) {
      if ((e.getClassName() + "." + e.getMethodName()).contains(frame)) {
        return true;
      }
    }
    return false;
  }

  private static String effect(java.sql.Connection c, String key, boolean fails)
      throws SQLException, Refused {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects VALUES (?)")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
    if (fails) {
      throw new Refused(key); // after its write: the savepoint must undo it
    }
    return key;
  }
}
