package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.sql.SqliteUrls;
import dev.onceonly.sql.SqliteWriteTurns;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.BusyHandler;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteDataSource;

/**
 * The application's own SQLite transactions beside the store's, through {@link SqliteWriteTurns}:
 * they queue in memory instead of meeting SQLite's busy handler, and the turn never takes away what
 * SQLite's lock already gives (a writer held up past its busy timeout fails busy as before; a turn
 * whose connection was closed behind the wrapper is taken over). Rows are counted on the reopened
 * file.
 */
class SqliteWriteTurnsRaceTest {
  private static final int APP_THREADS = 4;
  private static final int STORE_THREADS = 2;
  private static final int APP_TRANSACTIONS = 150;
  private static final int STORE_STEPS = 100;

  @TempDir Path dir;

  @Test
  void wrappedApplicationWritersNeverMeetTheBusyHandlerBesideTheStore() throws Exception {
    Race race = race(true);
    assertThat(race.rows).isEqualTo(race.committed);
    assertThat(race.busyCalls).as("busy handler calls on the application's connections").isZero();
  }

  /** The control: the same race on the bare pool does meet the busy handler. */
  @Test
  void unwrappedApplicationWritersMeetTheBusyHandler() throws Exception {
    Race race = race(false);
    assertThat(race.rows).isEqualTo(race.committed);
    assertThat(race.busyCalls).isPositive();
  }

  @Test
  void aWriterHeldUpPastItsBusyTimeoutFailsBusyAsWithoutTheTurn() throws Exception {
    Path file = dir.resolve("held.db");
    try (HikariDataSource holderPool = pool(file, 30_000, null);
        HikariDataSource waiterPool = pool(file, 200, null)) {
      DataSource holders = SqliteWriteTurns.wrap(holderPool);
      DataSource waiters = SqliteWriteTurns.wrap(waiterPool);
      createTables(holders);
      try (Connection holding = holders.getConnection()) {
        holding.setAutoCommit(false);
        insertOrder(holding, 1);
        Thread waiter =
            new Thread(
                () -> {
                  try (Connection c = waiters.getConnection()) {
                    assertThatThrownBy(() -> c.setAutoCommit(false))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("SQLITE_BUSY");
                  } catch (SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        watch(waiter, failures);
        waiter.start();
        waiter.join();
        assertThat(failures).isEmpty();
        holding.commit();
        holding.setAutoCommit(true);
      }
      try (Connection c = waiters.getConnection()) {
        c.setAutoCommit(false);
        insertOrder(c, 2);
        c.commit();
        c.setAutoCommit(true);
      }
    }
    assertThat(count(file, "orders")).isEqualTo(2);
  }

  @Test
  void aTurnWhoseConnectionWasClosedBehindTheWrapperIsTakenOver() throws Exception {
    Path file = dir.resolve("closed.db");
    try (HikariDataSource pool = pool(file, 120_000, null)) {
      DataSource app = SqliteWriteTurns.wrap(pool);
      createTables(app);
      Connection lost = app.getConnection();
      lost.setAutoCommit(false); // takes the turn
      insertOrder(lost, 1);
      lost.unwrap(SQLiteConnection.class).close(); // gone, its turn never handed back
      assertTimeoutPreemptively(
          Duration.ofSeconds(60), // far below the 120 s the turn would otherwise be waited for
          () -> {
            try (Connection next = app.getConnection()) {
              next.setAutoCommit(false);
              insertOrder(next, 2);
              next.commit();
              next.setAutoCommit(true);
            }
          });
      try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
        step(once, "s", 1); // and the store's writer
      }
    }
    assertThat(count(file, "orders")).isEqualTo(1);
    assertThat(count(file, "effects")).isEqualTo(1);
  }

  record Race(long committed, long rows, long busyCalls) {}

  private Race race(boolean wrapped) throws Exception {
    Path file = dir.resolve(wrapped ? "wrapped.db" : "bare.db");
    AtomicLong busyCalls = new AtomicLong();
    AtomicLong committed = new AtomicLong();
    try (HikariDataSource pool = pool(file, 30_000, busyCalls)) {
      DataSource app = wrapped ? SqliteWriteTurns.wrap(pool) : pool;
      createTables(app);
      List<Connection> fill = new ArrayList<>();
      for (int i = 0; i < APP_THREADS; i++) {
        fill.add(pool.getConnection()); // opened before the gate: no open meets the race
      }
      for (Connection c : fill) {
        c.close();
      }
      busyCalls.set(0);
      try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
        step(once, "warm", 0);
        CountDownLatch gate = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < APP_THREADS; t++) {
          int thread = t;
          threads.add(
              new Thread(
                  () -> {
                    await(gate);
                    for (int i = 0; i < APP_TRANSACTIONS; i++) {
                      try (Connection c = app.getConnection()) {
                        c.setAutoCommit(false);
                        insertOrder(c, thread * 1_000_000L + i);
                        c.commit();
                        c.setAutoCommit(true);
                        committed.incrementAndGet();
                      } catch (SQLException e) {
                        throw new IllegalStateException(e);
                      }
                    }
                  }));
        }
        for (int t = 0; t < STORE_THREADS; t++) {
          String scope = "s" + t;
          threads.add(
              new Thread(
                  () -> {
                    await(gate);
                    for (int i = 0; i < STORE_STEPS; i++) {
                      step(once, scope, i);
                    }
                  }));
        }
        threads.forEach(t -> watch(t, failures));
        threads.forEach(Thread::start);
        gate.countDown();
        for (Thread t : threads) {
          t.join();
        }
        assertThat(failures).isEmpty();
      }
    }
    assertThat(count(file, "effects")).isEqualTo(1 + STORE_THREADS * STORE_STEPS);
    return new Race(committed.get(), count(file, "orders"), busyCalls.get());
  }

  /** One receipts step whose effect writes one row of {@code effects}. */
  private static void step(OnceOnly once, String scope, int i) {
    String key = scope + "/" + i;
    try {
      once.receipts()
          .execute(
              IntentKey.of(scope, "k" + i),
              "touch",
              Map.of("i", i),
              Integer.class,
              c -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects VALUES (?)")) {
                  ps.setString(1, key);
                  return ps.executeUpdate();
                }
              });
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A pool of the application's connections in immediate mode; with {@code busyCalls} given, each
   * connection's busy handler counts its calls (and waits 1 ms before SQLite tries again, up to the
   * busy timeout).
   */
  private static HikariDataSource pool(Path file, int busyTimeoutMillis, AtomicLong busyCalls) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setBusyTimeout(busyTimeoutMillis);
    config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    SQLiteDataSource sqlite =
        new SQLiteDataSource(config) {
          @Override
          public SQLiteConnection getConnection(String user, String password) throws SQLException {
            SQLiteConnection c = super.getConnection(user, password);
            if (busyCalls != null) {
              BusyHandler.setHandler(c, new CountingBusyHandler(busyCalls, busyTimeoutMillis));
            }
            return c;
          }
        };
    sqlite.setUrl(SqliteUrls.jdbcUrl(file));
    HikariConfig hikari = new HikariConfig();
    hikari.setDataSource(sqlite);
    hikari.setMaximumPoolSize(APP_THREADS + 1);
    hikari.setMinimumIdle(APP_THREADS + 1);
    return new HikariDataSource(hikari);
  }

  /** Counts SQLite's calls; pauses 1 ms before each retry, as SQLite's own handler first does. */
  private static final class CountingBusyHandler extends BusyHandler {
    private final AtomicLong calls;
    private final int retries;

    CountingBusyHandler(AtomicLong calls, int timeoutMillis) {
      this.calls = calls;
      this.retries = timeoutMillis;
    }

    @Override
    protected int callback(int previous) {
      calls.incrementAndGet();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // SQLite's pause, not a test wait
      return previous < retries ? 1 : 0;
    }
  }

  private static void createTables(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)");
      s.execute("CREATE TABLE effects (k TEXT PRIMARY KEY)");
    }
  }

  private static void insertOrder(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders VALUES (?)")) {
      ps.setLong(1, id);
      ps.executeUpdate();
    }
  }

  private static long count(Path file, String table) throws SQLException {
    try (Connection c = DriverManager.getConnection(SqliteUrls.jdbcUrl(file));
        ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void await(CountDownLatch gate) {
    try {
      gate.await();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void watch(Thread t, List<Throwable> failures) {
    t.setUncaughtExceptionHandler((thread, e) -> failures.add(e));
  }
}
