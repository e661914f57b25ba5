package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.MariaDbContractDatabase;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * InnoDB's own ways of refusing a transaction, raced on the build's MariaDB server: a detected
 * deadlock (1213) between receipts taken in opposite orders, which the library runs again, and the
 * gap locks of the server's default {@code REPEATABLE READ}, which the library's {@code READ
 * COMMITTED} transactions do not take, so a range held by one of them does not stop the inserts of
 * new keys into it. The rows are counted afterwards through a connection of the test's own.
 */
class MariaDbDeadlockRaceTest {
  private static final Duration GUARD = Duration.ofSeconds(60);

  private final MariaDbContractDatabase db = MariaDbContractDatabase.create();

  @AfterEach
  void closePools() {
    db.close();
  }

  /**
   * Pairs of threads, behind a start gate, each run two receipts in one transaction on the same two
   * keys in opposite orders, and wait for each other after the first: each holds the lock the other
   * needs next, and InnoDB rolls one of them back with 1213. The victim's transaction runs again;
   * no error reaches a caller, each key has one receipt and one effect row, one Created and one
   * Repeated, and the server counted at least one deadlock per pair.
   */
  @Test
  void receiptsTakenInOppositeOrdersDeadlockAndTheVictimRunsAgain() throws Exception {
    int pairs = 4;
    try (OnceOnly once = db.builder().build()) {
      db.exec("CREATE TABLE effects (k VARCHAR(64) NOT NULL)");
      long deadlocksBefore = deadlocks();
      List<CyclicBarrier> meet = new ArrayList<>();
      for (int p = 0; p < pairs; p++) {
        meet.add(new CyclicBarrier(2));
      }
      List<List<String>> answers =
          Race.run(
              2 * pairs,
              i -> {
                int pair = i / 2;
                List<String> keys =
                    i % 2 == 0
                        ? List.of("a-" + pair, "b-" + pair)
                        : List.of("b-" + pair, "a-" + pair);
                AtomicInteger runs = new AtomicInteger();
                return () ->
                    once.inTransaction(
                        tx -> {
                          List<String> told = new ArrayList<>();
                          boolean first = runs.incrementAndGet() == 1;
                          for (int k = 0; k < keys.size(); k++) {
                            told.add(step(once, tx, keys.get(k)));
                            if (k == 0 && first) {
                              await(meet.get(pair)); // both hold their first key's lock
                            }
                          }
                          return told;
                        });
              });
      for (int p = 0; p < pairs; p++) {
        List<String> told = new ArrayList<>(answers.get(2 * p));
        told.addAll(answers.get(2 * p + 1));
        assertThat(told).filteredOn("Created"::equals).hasSize(2);
        assertThat(told).filteredOn("Repeated"::equals).hasSize(2);
      }
      assertThat(deadlocks() - deadlocksBefore).isGreaterThanOrEqualTo(pairs);
    }
    for (int p = 0; p < pairs; p++) {
      for (String key : List.of("a-" + p, "b-" + p)) {
        assertThat(db.count("SELECT COUNT(*) FROM effects WHERE k = ?", key)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = ?", key))
            .isEqualTo(1);
      }
    }
  }

  /**
   * One of the library's transactions reads a range of receipts with a locking read ({@code FOR
   * UPDATE}, as a claim reads a queue) and holds it; meanwhile eight threads, two per key, run
   * receipts for new keys that fall inside that range. Under {@code REPEATABLE READ} the range's
   * gap locks would make every insert wait for the holder; the library's transactions are {@code
   * READ COMMITTED}, so the inserts all commit while the range is still held, without a deadlock
   * reaching a caller, and each key has one receipt and one effect row.
   */
  @Test
  void aHeldRangeDoesNotStopInsertsOfNewKeysIntoItsGaps() throws Exception {
    try (OnceOnly once = db.builder().build();
        Connection check = db.connect()) {
      db.exec("CREATE TABLE effects (k VARCHAR(64) NOT NULL)");
      assertThat(sessionIsolation(check)).isEqualTo("REPEATABLE-READ"); // the server's default
      for (int i = 0; i <= 40; i += 10) {
        String key = String.format("k%02d", i);
        assertThat(
                once.receipts()
                    .execute(
                        IntentKey.of("s", key), "op", Map.of(), Integer.class, c -> insert(c, key)))
            .isInstanceOf(Outcome.Created.class);
      }
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ExecutorService holder = Executors.newSingleThreadExecutor();
      try {
        Future<Integer> range =
            holder.submit(
                () ->
                    once.inTransaction(
                        tx -> {
                          int rows = lockRange(tx, "k00", "k40");
                          held.countDown();
                          release.await(GUARD.toSeconds(), TimeUnit.SECONDS);
                          return rows;
                        }));
        assertThat(held.await(GUARD.toSeconds(), TimeUnit.SECONDS)).isTrue();
        List<String> fresh = List.of("k05", "k15", "k25", "k35");
        AtomicInteger committed = new AtomicInteger();
        ExecutorService racers = Executors.newSingleThreadExecutor();
        Future<List<String>> inserts =
            racers.submit(
                () ->
                    Race.run(
                        8,
                        i -> {
                          String key = fresh.get(i / 2);
                          return () -> {
                            String told = step(once, null, key);
                            committed.incrementAndGet();
                            return told;
                          };
                        }));
        try {
          Eventually.await(
              GUARD,
              "the 8 receipts inside the held range committed while it is held",
              () -> committed.get() == 8);
        } finally {
          release.countDown();
          racers.shutdown();
        }
        assertThat(range.get(GUARD.toSeconds(), TimeUnit.SECONDS)).isEqualTo(5);
        assertThat(inserts.get(GUARD.toSeconds(), TimeUnit.SECONDS))
            .filteredOn("Created"::equals)
            .hasSize(4);
      } finally {
        holder.shutdownNow();
      }
      for (String key : List.of("k05", "k15", "k25", "k35")) {
        assertThat(db.count("SELECT COUNT(*) FROM effects WHERE k = ?", key)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = ?", key))
            .isEqualTo(1);
      }
    }
  }

  /** One receipt for {@code key}: the effect inserts its row; "Created" or "Repeated". */
  private static String step(OnceOnly once, Connection tx, String key) throws SQLException {
    IntentKey intent = IntentKey.of("s", key);
    Outcome<Integer> o =
        tx == null
            ? once.receipts().execute(intent, "op", Map.of(), Integer.class, c -> insert(c, key))
            : once.receipts()
                .execute(tx, intent, "op", Map.of(), Integer.class, c -> insert(c, key));
    return o.getClass().getSimpleName();
  }

  private static Integer insert(Connection c, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects (k) VALUES (?)")) {
      ps.setString(1, key);
      return ps.executeUpdate();
    }
  }

  /** Locks the receipts of scope {@code s} from {@code low} to {@code high}, a range. */
  private static int lockRange(Connection tx, String low, String high) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement(
            "SELECT intent_key FROM onceonly_receipts WHERE scope = 's'"
                + " AND intent_key BETWEEN ? AND ? FOR UPDATE")) {
      ps.setString(1, low);
      ps.setString(2, high);
      int rows = 0;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows++;
        }
      }
      return rows;
    }
  }

  private static void await(CyclicBarrier barrier) throws InterruptedException {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (BrokenBarrierException | TimeoutException e) {
      throw new IllegalStateException("the other thread of the pair never held its first key", e);
    }
  }

  private static String sessionIsolation(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@session.tx_isolation")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** InnoDB's count of the deadlocks it detected since the server started. */
  private long deadlocks() throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'")) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(2);
    }
  }
}
