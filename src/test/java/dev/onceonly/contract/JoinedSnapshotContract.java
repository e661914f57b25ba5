package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.Outcome;
import dev.onceonly.RetryTransactionException;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.Eventually;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A receipts step joined to a caller's transaction at {@code REPEATABLE READ} or {@code
 * SERIALIZABLE}, whose snapshot was taken (the caller read something first) before a competing step
 * on the same key committed: the caller's effect must not run, and the caller is answered {@code
 * Repeated} with the competitor's result (or {@code Conflict} for other arguments) where the server
 * lets a statement see the newer receipt (MariaDB's locking reads), or {@link
 * RetryTransactionException} where it does not (PostgreSQL, whose statements all read the
 * transaction's snapshot), after which the caller's transaction run again is answered from the
 * receipt. Interleavings are generated: the isolation, whether the competitor owns its transaction
 * or joins one of its own, whether it commits before the caller's snapshot, after it, or while the
 * caller's step waits for the key's lock, and whether its arguments are the same. Rows are counted
 * through a fresh connection afterwards.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#servers")
public class JoinedSnapshotContract extends ContractSupport {
  private static final Duration GUARD = Duration.ofSeconds(60);
  private static final int TRIALS = 24;

  /** When the competitor commits, relative to the caller's transaction. */
  enum Timing {
    BEFORE_SNAPSHOT,
    AFTER_SNAPSHOT,
    WHILE_STEP_WAITS
  }

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void createTables() {
    start();
    exec(
        "CREATE TABLE effects (k VARCHAR(64) NOT NULL, holder VARCHAR(20) NOT NULL)",
        "CREATE TABLE caller_reads (n INT NOT NULL)",
        "INSERT INTO caller_reads (n) VALUES (1)");
  }

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  void aLateJoinedStepRunsNoEffectAndIsAnsweredFromTheCompetitorsReceipt() throws Exception {
    long seed = Long.getLong("onceonly.properties.seed", 0x5EED_15_0L);
    for (int trial = 0; trial < TRIALS; trial++) {
      SplittableRandom random = new SplittableRandom(seed + trial);
      int isolation =
          random.nextBoolean()
              ? Connection.TRANSACTION_REPEATABLE_READ
              : Connection.TRANSACTION_SERIALIZABLE;
      Timing timing = Timing.values()[random.nextInt(Timing.values().length)];
      boolean competitorOwns = random.nextBoolean();
      boolean same = random.nextInt(4) != 0;
      String what =
          "seed "
              + (seed + trial)
              + ": isolation "
              + (isolation == Connection.TRANSACTION_SERIALIZABLE ? "SERIALIZABLE" : "RR")
              + ", competitor "
              + (competitorOwns ? "owns its transaction" : "joins one")
              + ", commits "
              + timing
              + ", same arguments "
              + same;
      runTrial("k-" + trial, isolation, timing, competitorOwns, same, what);
    }
  }

  private void runTrial(
      String key, int isolation, Timing timing, boolean competitorOwns, boolean same, String what)
      throws Exception {
    IntentKey intent = IntentKey.of("orders", key);
    AtomicInteger callerRuns = new AtomicInteger();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(timing == Timing.WHILE_STEP_WAITS ? 1 : 0);
    Runnable competitor = () -> competitor(intent, competitorOwns, entered, release);
    Future<?> competing = null;
    if (timing == Timing.BEFORE_SNAPSHOT) {
      competitor.run();
    } else if (timing == Timing.WHILE_STEP_WAITS) {
      competing = threads.submit(competitor);
      assertThat(entered.await(GUARD.toSeconds(), TimeUnit.SECONDS)).as(what).isTrue();
    }
    List<Object> told = new ArrayList<>();
    for (int run = 1; run <= 2; run++) {
      try (Connection c = connect()) {
        c.setTransactionIsolation(isolation);
        c.setAutoCommit(false);
        count(c, "SELECT COUNT(*) FROM caller_reads"); // the snapshot
        if (run == 1 && timing == Timing.AFTER_SNAPSHOT) {
          competitor.run();
        }
        Future<Outcome<String>> step =
            threads.submit(() -> callerStep(c, intent, same ? "a" : "b", callerRuns));
        if (run == 1 && timing == Timing.WHILE_STEP_WAITS) {
          // the step waits for the competitor's key, or (where the server's locks made the
          // competitor wait instead) has already ended: either way the effect must not run twice
          Eventually.await(
              GUARD,
              what + ": the caller's step waits for the key",
              () -> aLockWaits() || step.isDone());
          release.countDown();
          competing.get(GUARD.toSeconds(), TimeUnit.SECONDS);
        }
        try {
          told.add(step.get(GUARD.toSeconds(), TimeUnit.SECONDS));
          c.commit();
          break;
        } catch (java.util.concurrent.ExecutionException e) {
          told.add(e.getCause());
          c.rollback();
          if (!(e.getCause() instanceof RetryTransactionException)) {
            break;
          }
        }
      }
    }
    assertThat(callerRuns.get()).as(what + "; told " + told).isZero();
    assertThat(countRows("SELECT COUNT(*) FROM effects WHERE k = ?", key))
        .as(what + "; told " + told)
        .isEqualTo(1);
    assertThat(countRows("SELECT COUNT(*) FROM effects WHERE k = ? AND holder = 'caller'", key))
        .as(what)
        .isZero();
    assertThat(
            countRows(
                "SELECT COUNT(*) FROM onceonly_receipts WHERE scope = 'orders' AND intent_key = ?",
                key))
        .as(what)
        .isEqualTo(1);
    boolean snapshotServer = dialect() == Dialect.POSTGRESQL && timing != Timing.BEFORE_SNAPSHOT;
    assertThat(told).as(what).hasSize(snapshotServer ? 2 : 1);
    if (snapshotServer) {
      assertThat(told.get(0)).as(what).isInstanceOf(RetryTransactionException.class);
      assertThat(((RetryTransactionException) told.get(0)).sqlState()).isEqualTo("40001");
    }
    Object last = told.get(told.size() - 1);
    if (same) {
      assertThat(last).as(what).isInstanceOf(Outcome.Repeated.class);
      assertThat(((Outcome.Repeated<?>) last).result()).as(what).isEqualTo("competitor a");
    } else {
      assertThat(last).as(what).isInstanceOf(Outcome.Conflict.class);
    }
    reopen();
    assertThat(once.receipts().find(intent)).as(what).isPresent();
  }

  /** The competitor's step on {@code intent}, arguments {@code a}, committed when it returns. */
  private void competitor(
      IntentKey intent, boolean owns, CountDownLatch entered, CountDownLatch release) {
    Effect<String, SQLException> effect = c -> competitorEffect(c, intent, entered, release);
    Map<String, String> arguments = Map.of("item", "a");
    try {
      if (owns) {
        once.receipts().execute(intent, "order", arguments, String.class, effect);
        return;
      }
      try (Connection c = connect()) {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        c.setAutoCommit(false);
        once.receipts().execute(c, intent, "order", arguments, String.class, effect);
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String competitorEffect(
      Connection c, IntentKey intent, CountDownLatch entered, CountDownLatch release)
      throws SQLException {
    insertEffect(c, intent.key(), "competitor");
    entered.countDown();
    try {
      if (!release.await(GUARD.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return "competitor a";
  }

  private Outcome<String> callerStep(
      Connection c, IntentKey intent, String item, AtomicInteger runs) throws SQLException {
    return once.receipts()
        .execute(
            c,
            intent,
            "order",
            Map.of("item", item),
            String.class,
            tx -> {
              runs.incrementAndGet();
              insertEffect(tx, intent.key(), "caller");
              return "caller " + item;
            });
  }

  private static void insertEffect(Connection c, String key, String holder) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO effects (k, holder) VALUES (?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, holder);
      ps.executeUpdate();
    }
  }

  /**
   * Whether a session waits for a lock: the caller's step behind the competitor's key lock. On
   * MariaDB this reads InnoDB's monitor, not {@code information_schema.innodb_lock_waits}: those
   * tables are served from a cache that is refreshed only when nobody read it for 100 ms, so a wait
   * polled every few milliseconds keeps it stale for good and never shows the wait.
   */
  private boolean aLockWaits() {
    if (dialect() == Dialect.POSTGRESQL) {
      return countRows("SELECT COUNT(*) FROM pg_locks WHERE NOT granted") > 0;
    }
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW ENGINE INNODB STATUS")) {
      rs.next();
      return rs.getString("Status").contains("FOR THIS LOCK TO BE GRANTED");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long countRows(String sql, Object... args) {
    try (Connection c = connect()) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i]);
        }
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
