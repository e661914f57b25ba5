package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.sql.SqliteWriteTurns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The application's own transactions on the store's SQLite file, with and without {@link
 * SqliteWriteTurns}: {@code app} threads each run {@code BEGIN IMMEDIATE; INSERT; COMMIT} through a
 * HikariCP pool (as Spring's transaction manager does: auto-commit off, commit, auto-commit on,
 * close), while {@code store} threads each run receipts steps with new keys on a store opened with
 * {@code sqlite(file)} (its own write connection, group commit). Without the wrapper, the
 * application's writers sleep in SQLite's busy handler whenever the file's lock is taken; with it,
 * they queue in memory with the store's transactions. Each run has a fresh file in WAL mode with
 * {@code synchronous=FULL}; after each run the rows are counted and must equal the calls that
 * returned.
 *
 * <p>The two systems run in the order A B B A for {@code seconds} each, after one warm-up run of
 * each; a figure is the mean of its two runs; the load average is printed with each run.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.SqliteWriteTurnsBenchMain -Dbench.args="seconds=10 app=4
 * store=2"}.
 */
public final class SqliteWriteTurnsBenchMain {
  private SqliteWriteTurnsBenchMain() {}

  record Run(double appRate, double storeRate, String load) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new java.util.HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(eq < 0 ? arg : arg.substring(0, eq), eq < 0 ? "" : arg.substring(eq + 1));
    }
    int seconds = Integer.parseInt(a.getOrDefault("seconds", "10"));
    int app = Integer.parseInt(a.getOrDefault("app", "4"));
    int store = Integer.parseInt(a.getOrDefault("store", "2"));
    run(true, Math.min(3, seconds), app, store);
    run(false, Math.min(3, seconds), app, store);
    System.out.println("-- counted runs, A B B A --");
    Run w1 = run(true, seconds, app, store);
    Run u1 = run(false, seconds, app, store);
    Run u2 = run(false, seconds, app, store);
    Run w2 = run(true, seconds, app, store);
    double wApp = (w1.appRate + w2.appRate) / 2;
    double uApp = (u1.appRate + u2.appRate) / 2;
    double wStore = (w1.storeRate + w2.storeRate) / 2;
    double uStore = (u1.storeRate + u2.storeRate) / 2;
    System.out.printf(
        Locale.ROOT,
        "%n| pool | application tx/s | store steps/s | all writes/s | load avg (run 1; run 2) |%n"
            + "|---|---:|---:|---:|---|%n"
            + "| unwrapped (busy handler) | %.0f | %.0f | %.0f | %s; %s |%n"
            + "| SqliteWriteTurns.wrap | %.0f | %.0f | %.0f | %s; %s |%n"
            + "| wrapped / unwrapped | %.2fx | %.2fx | %.2fx | |%n",
        uApp,
        uStore,
        uApp + uStore,
        u1.load,
        u2.load,
        wApp,
        wStore,
        wApp + wStore,
        w1.load,
        w2.load,
        wApp / uApp,
        wStore / uStore,
        (wApp + wStore) / (uApp + uStore));
  }

  static Run run(boolean wrapped, int seconds, int appThreads, int storeThreads) throws Exception {
    Path dir = Files.createTempDirectory("onceonly-turns-bench");
    Path file = dir.resolve("bench.db");
    String load = HttpBenchMain.load();
    try (HikariDataSource pool = HttpBenchMain.applicationPool(file, appThreads + 1);
        OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
      DataSource ds = wrapped ? SqliteWriteTurns.wrap(pool) : pool;
      try (Connection c = ds.getConnection()) {
        c.createStatement().execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, n INTEGER)");
        c.createStatement().execute("CREATE TABLE effects (k TEXT PRIMARY KEY)");
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong appDone = new AtomicLong();
      AtomicLong storeDone = new AtomicLong();
      AtomicLong appAfter = new AtomicLong();
      AtomicLong storeAfter = new AtomicLong();
      CountDownLatch gate = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < appThreads; t++) {
        threads.add(
            new Thread(
                () -> {
                  try {
                    gate.await();
                    while (!stop.get()) {
                      try (Connection c = ds.getConnection()) {
                        c.setAutoCommit(false);
                        try (PreparedStatement ps =
                            c.prepareStatement("INSERT INTO orders (n) VALUES (1)")) {
                          ps.executeUpdate();
                        }
                        c.commit();
                        c.setAutoCommit(true);
                      }
                      (stop.get() ? appAfter : appDone).incrementAndGet();
                    }
                  } catch (Throwable e) {
                    failures.add(e);
                  }
                }));
      }
      for (int t = 0; t < storeThreads; t++) {
        String scope = "s" + t;
        threads.add(
            new Thread(
                () -> {
                  try {
                    gate.await();
                    for (int i = 0; !stop.get(); i++) {
                      String key = "k" + i;
                      once.receipts()
                          .execute(
                              IntentKey.of(scope, key),
                              "touch",
                              Map.of("i", i),
                              Integer.class,
                              c -> {
                                try (PreparedStatement ps =
                                    c.prepareStatement("INSERT INTO effects VALUES (?)")) {
                                  ps.setString(1, scope + "/" + key);
                                  return ps.executeUpdate();
                                }
                              });
                      (stop.get() ? storeAfter : storeDone).incrementAndGet();
                    }
                  } catch (Throwable e) {
                    failures.add(e);
                  }
                }));
      }
      threads.forEach(Thread::start);
      long start = System.nanoTime();
      gate.countDown();
      Thread.sleep(seconds * 1000L); // the measuring window, not a wait for a condition
      stop.set(true);
      double elapsed = (System.nanoTime() - start) / 1e9;
      for (Thread t : threads) {
        t.join();
      }
      if (!failures.isEmpty()) {
        throw new IllegalStateException("a writer failed", failures.get(0));
      }
      long orders = count(ds, "orders");
      long effects = count(ds, "effects");
      boolean ok =
          orders == appDone.get() + appAfter.get() && effects == storeDone.get() + storeAfter.get();
      Run r = new Run(appDone.get() / elapsed, storeDone.get() / elapsed, load);
      System.out.printf(
          Locale.ROOT,
          "%-9s application %6.0f tx/s, store %6.0f steps/s, rows %s, load %s%n",
          wrapped ? "wrapped" : "unwrapped",
          r.appRate,
          r.storeRate,
          ok ? "match" : "MISMATCH orders=" + orders + " effects=" + effects,
          load);
      if (!ok) {
        System.exit(1);
      }
      return r;
    }
  }

  private static long count(DataSource ds, String table) throws Exception {
    try (Connection c = ds.getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
