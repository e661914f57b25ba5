package dev.onceonly.bench;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The receipts step ({@code once.receipts().execute(key, "touch", arguments, Integer.class,
 * effect)}, the effect one row in {@code effects}, exactly as {@link ReceiptBenchmark} calls it)
 * against two raw JDBC loops doing the same SQL on the same kind of file, counted as the total
 * steps of all caller threads over one shared clock (not JMH's sum of per-thread rates).
 *
 * <p>Systems: <b>OnceOnly</b> (each caller thread calls the step with keys of its own), OnceOnly's
 * <b>batch form</b> (one thread joining {@value #BATCH} steps to one {@code inTransaction}, each
 * under its own savepoint, for a caller with many steps at once), the <b>raw per-step loop</b>
 * ({@link ReceiptBenchmark.RawLoop}: every caller thread on a connection of its own, {@code BEGIN
 * IMMEDIATE; SELECT receipt; INSERT effect; INSERT receipt; COMMIT}, meeting the others at SQLite's
 * file lock under {@code busy_timeout}), and the <b>raw batched-savepoint loop</b> (one thread, one
 * connection, {@value #BATCH} steps to a transaction, each step the same SQL inside a {@code
 * SAVEPOINT}/{@code RELEASE} of its own: the ceiling a group commit could reach). Cases: new keys
 * with 8 and with 32 caller threads, and repeated keys (a key drawn at random from {@code hotKeys}
 * receipts stored before the clock starts) with 4. Every run has a fresh SQLite file in WAL mode
 * with {@code synchronous=FULL}, the library opened as {@link ReceiptBenchmark} opens it ({@link
 * BenchDb#open}).
 *
 * <p>With {@code db=mariadb} every run has instead a fresh database on the tests' {@code mariadbd}
 * ({@link dev.onceonly.testing.MariaDbServer}): the library through a HikariCP pool of a connection
 * per caller thread, the raw loops ({@link ReceiptBenchmark.RawLoop#mariaDb}) on plain connections
 * in {@code READ COMMITTED} running the library's SQL there: {@code START TRANSACTION}, the row
 * lock on the key's bucket ({@code SELECT ... FOR UPDATE}), the lookup, the effect, the receipt,
 * {@code COMMIT}.
 *
 * <p>A run: the caller threads are started and wait behind one start gate; the clock starts when
 * the gate opens and stops when the stop flag is raised {@code seconds} later, and the steps that
 * returned in between are the figure. The threads then finish the step they are in (a step that
 * returns after the stop is counted apart, as returned after the stop) and are joined. The count is
 * then checked against the rows in {@code effects} and in the receipts table, read on a fresh
 * connection: for new keys both must equal the steps that returned in all (so they are at least the
 * steps counted in the window); for repeated keys both must still hold only the {@code hotKeys}
 * rows stored before (no effect ran twice) and every OnceOnly step must have answered {@link
 * Outcome.Repeated}. Any failed step or mismatch is reported loudly ({@code MISMATCH}) and the run
 * exits with 1.
 *
 * <p>Each case runs its systems in the order A B C C B A, and each figure is the mean of its two
 * runs, so that a load drifting over the minutes of a run is not charged to whichever ran last; the
 * load average ({@code /proc/loadavg}) is printed with every run. Before the first case each system
 * runs once for {@code warmup} seconds, unrecorded, on the first case's shape. The table goes to
 * {@code target/benchmarks/receipts.md}.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.ReceiptsBenchMain -Dbench.args="..."} with arguments {@code
 * quick} (a smoke run: 1 s runs, 1 s warm-up, one pass, 1,000 hot keys), {@code db=mariadb} (the
 * database, {@code sqlite} by default), {@code seconds=10} (the length of each run), {@code
 * warmup=3} (seconds per system before the first case, 0 for none), {@code hotKeys=10000} (the
 * receipts the repeated-keys case draws from), {@code only=new_keys_T=8} (cases whose title
 * contains one of these, an underscore standing for a space), {@code skip=batched} (leave out the
 * systems whose name contains one of these).
 */
public final class ReceiptsBenchMain {
  private ReceiptsBenchMain() {}

  static final int BATCH = 64;

  enum Sys {
    ONCEONLY("OnceOnly execute", OnceOnly.DEFAULT_TABLE_PREFIX + "receipts"),
    ONCEONLY_BATCH(
        "OnceOnly execute, " + BATCH + " joined in one inTransaction (1 thread)",
        OnceOnly.DEFAULT_TABLE_PREFIX + "receipts"),
    RAW("raw JDBC per-step loop", "raw_receipts"),
    BATCHED("raw JDBC batched savepoints (" + BATCH + "/tx, 1 thread)", "raw_receipts");

    final String title;
    final String receiptsTable;

    Sys(String title, String receiptsTable) {
      this.title = title;
      this.receiptsTable = receiptsTable;
    }
  }

  record Case(boolean newKeys, int threads, ReceiptsBenchDb.Kind db) {
    String title() {
      return "receipts "
          + (newKeys ? "new" : "repeated")
          + " keys T="
          + threads
          + " ("
          + db.title
          + ")";
    }
  }

  /** One measured run of one system. */
  record Run(
      double rate,
      long counted,
      long afterStop,
      double seconds,
      long effectRows,
      long receiptRows,
      long expectedRows,
      boolean newKeys,
      long failed,
      String load) {
    long returned() {
      return counted + afterStop;
    }

    boolean ok() {
      return failed == 0
          && counted > 0
          && effectRows == expectedRows
          && receiptRows == expectedRows
          && (!newKeys || (effectRows >= counted && expectedRows == returned()));
    }
  }

  record Settings(
      ReceiptsBenchDb.Kind db,
      boolean quick,
      int seconds,
      int warmup,
      int hotKeys,
      List<String> only,
      List<String> skip) {
    static Settings parse(String[] args) {
      Map<String, String> a = WorkerBenchMain.arguments(args);
      boolean quick = a.containsKey("quick");
      return new Settings(
          ReceiptsBenchDb.Kind.parse(a.getOrDefault("db", "sqlite")),
          quick,
          Integer.parseInt(a.getOrDefault("seconds", quick ? "1" : "10")),
          Integer.parseInt(a.getOrDefault("warmup", quick ? "1" : "3")),
          Integer.parseInt(a.getOrDefault("hotKeys", quick ? "1000" : "10000")),
          WorkerBenchMain.titles(a, "only"),
          WorkerBenchMain.titles(a, "skip"));
    }
  }

  static List<Case> cases(ReceiptsBenchDb.Kind db) {
    return List.of(new Case(true, 8, db), new Case(true, 32, db), new Case(false, 4, db));
  }

  public static void main(String[] args) throws Exception {
    Settings s = Settings.parse(args);
    List<String> mismatches = new ArrayList<>();
    StringBuilder table = new StringBuilder();
    table.append(
        "| case | system | steps/s (mean) | run 1 | run 2 | OnceOnly / this | counted = rows"
            + " | load avg (run 1; run 2) |\n");
    table.append("|---|---|---:|---:|---:|---:|---|---|\n");
    System.out.printf(
        Locale.ROOT,
        "%s start %s, load %s, %s%n",
        ReceiptsBenchMain.class.getSimpleName(),
        Instant.now(),
        WorkerBenchMain.loadAverage(),
        s);
    List<Case> cases =
        cases(s.db()).stream()
            .filter(c -> s.only().isEmpty() || s.only().stream().anyMatch(c.title()::contains))
            .toList();
    List<Sys> systems =
        Arrays.stream(Sys.values())
            .filter(x -> s.skip().stream().noneMatch(x.title::contains))
            .toList();
    if (s.warmup() > 0 && !cases.isEmpty()) {
      for (Sys sys : systems) {
        Run r = run(cases.get(0), sys, s.warmup(), s.hotKeys());
        System.out.println("warm-up " + describe(cases.get(0), sys, r));
        if (!r.ok()) {
          String m = "MISMATCH (warm-up) " + describe(cases.get(0), sys, r);
          mismatches.add(m);
          System.out.println("!!!!!!!! " + m);
        }
      }
    }
    for (Case c : cases) {
      List<Sys> order = new ArrayList<>(systems);
      if (!s.quick()) {
        List<Sys> back = new ArrayList<>(systems);
        Collections.reverse(back);
        order.addAll(back);
      }
      Map<Sys, List<Run>> runs = new LinkedHashMap<>();
      for (Sys sys : order) {
        Run r = run(c, sys, s.seconds(), s.hotKeys());
        runs.computeIfAbsent(sys, k -> new ArrayList<>()).add(r);
        String line = describe(c, sys, r);
        System.out.println(line);
        if (!r.ok()) {
          String m = "MISMATCH " + line;
          mismatches.add(m);
          System.out.println("!!!!!!!! " + m);
        }
      }
      List<Run> onceonly = runs.get(Sys.ONCEONLY);
      double ours = onceonly == null ? Double.NaN : mean(onceonly);
      for (Map.Entry<Sys, List<Run>> e : runs.entrySet()) {
        List<Run> rs = e.getValue();
        double mean = mean(rs);
        table.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %,.0f | %,.0f | %s | %.2fx | %s | %s |%n",
                c.title(),
                e.getKey().title,
                mean,
                rs.get(0).rate(),
                rs.size() > 1 ? String.format(Locale.ROOT, "%,.0f", rs.get(1).rate()) : "-",
                ours / mean,
                rs.stream().allMatch(Run::ok) ? "yes" : "**NO**",
                String.join("; ", rs.stream().map(Run::load).toList())));
      }
      System.out.println(table);
    }
    String out =
        "Receipts benchmark (total steps over one clock), "
            + Instant.now()
            + ", load at the end "
            + WorkerBenchMain.loadAverage()
            + ", "
            + s
            + "\n\n"
            + table
            + (mismatches.isEmpty() ? "" : "\nMISMATCHES:\n" + String.join("\n", mismatches))
            + "\n";
    WorkerBenchMain.report("receipts.md", out, mismatches);
  }

  private static String describe(Case c, Sys sys, Run r) {
    return String.format(
        Locale.ROOT,
        "%-36s %-44s %,10.0f steps/s  counted %,d in %.3f s, +%,d returned after stop,"
            + " rows effects %,d receipts %,d (expected %,d), failed %d  load %s",
        c.title(),
        sys.title,
        r.rate(),
        r.counted(),
        r.seconds(),
        r.afterStop(),
        r.effectRows(),
        r.receiptRows(),
        r.expectedRows(),
        r.failed(),
        r.load());
  }

  private static double mean(List<Run> runs) {
    return runs.stream().mapToDouble(Run::rate).average().orElse(Double.NaN);
  }

  /** One caller thread's steps; {@link #step} returns how many steps its call completed. */
  interface Stepper extends AutoCloseable {
    int step() throws Exception;

    @Override
    void close() throws Exception;
  }

  static Run run(Case c, Sys sys, int seconds, int hotKeys) throws Exception {
    try (ReceiptsBenchDb db = ReceiptsBenchDb.create(c.db(), c.threads() + 2)) {
      OnceOnly once = sys == Sys.ONCEONLY || sys == Sys.ONCEONLY_BATCH ? db.open() : null;
      try {
        if (!c.newKeys()) {
          prefill(db, once, hotKeys);
        }
        int threads = sys == Sys.BATCHED || sys == Sys.ONCEONLY_BATCH ? 1 : c.threads();
        return measure(db, once, c, sys, threads, seconds, hotKeys);
      } finally {
        if (once != null) {
          once.close();
        }
      }
    }
  }

  /**
   * Stores {@code hotKeys} receipts (and their effects) in one transaction, for repeated keys:
   * through the library if {@code once} is not null, else through the raw loop.
   */
  static void prefill(ReceiptsBenchDb db, OnceOnly once, int hotKeys) throws Exception {
    try (Connection c = db.raw()) {
      c.setAutoCommit(false);
      if (once != null) {
        for (int i = 0; i < hotKeys; i++) {
          Outcome<Integer> o =
              once.receipts()
                  .execute(
                      c,
                      IntentKey.of("hot", "k" + i),
                      "touch",
                      Map.of("i", i),
                      Integer.class,
                      tx -> ReceiptBenchmark.effect(tx, "hot", "k", 1));
          if (!(o instanceof Outcome.Created)) {
            throw new IllegalStateException("prefill " + i + ": " + o);
          }
        }
      } else {
        try (ReceiptBenchmark.RawLoop loop = db.loop(c)) {
          for (int i = 0; i < hotKeys; i++) {
            loop.body("hot", "k" + i);
          }
        }
      }
      c.commit();
    }
  }

  private static Stepper stepper(
      ReceiptsBenchDb db, OnceOnly once, Case c, Sys sys, String scope, int hotKeys)
      throws SQLException {
    return switch (sys) {
      case ONCEONLY -> new OnceOnlyStepper(once, scope, c.newKeys(), hotKeys);
      case ONCEONLY_BATCH -> new OnceOnlyBatchStepper(once, scope, c.newKeys(), hotKeys);
      case RAW -> new RawStepper(db, db.raw(), scope, c.newKeys(), hotKeys);
      case BATCHED -> new BatchedStepper(db, db.raw(), scope, c.newKeys(), hotKeys);
    };
  }

  private static Run measure(
      ReceiptsBenchDb db, OnceOnly once, Case c, Sys sys, int threads, int seconds, int hotKeys)
      throws Exception {
    LongAdder counted = new LongAdder();
    LongAdder afterStop = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch gate = new CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    String run = Long.toString(System.nanoTime(), 36);
    for (int t = 0; t < threads; t++) {
      String scope = "t" + t + "-" + run;
      Thread thread =
          new Thread(
              () -> {
                boolean opened = false;
                try (Stepper stepper = stepper(db, once, c, sys, scope, hotKeys)) {
                  opened = true;
                  ready.countDown();
                  gate.await();
                  while (!stop.get()) {
                    int n = stepper.step();
                    if (stop.get()) {
                      afterStop.add(n);
                    } else {
                      counted.add(n);
                    }
                  }
                } catch (Throwable e) {
                  failed.increment();
                  firstFailure.compareAndSet(null, e);
                } finally {
                  if (!opened) {
                    ready.countDown(); // a thread that failed to open does not hold the others
                  }
                }
              },
              "bench-caller-" + t);
      callers.add(thread);
      thread.start();
    }
    ready.await();
    long start = System.nanoTime();
    gate.countDown();
    long deadline = start + seconds * 1_000_000_000L;
    for (long left; (left = deadline - System.nanoTime()) > 0; ) {
      Thread.sleep(Math.max(1, left / 1_000_000));
    }
    stop.set(true);
    long end = System.nanoTime();
    long inWindow = counted.sum();
    for (Thread t : callers) {
      t.join();
    }
    if (firstFailure.get() != null) {
      System.out.println("first failure: " + firstFailure.get());
      firstFailure.get().printStackTrace(System.out);
    }
    long effectRows;
    long receiptRows;
    try (Connection conn = db.raw()) {
      effectRows = count(conn, "effects");
      receiptRows = count(conn, sys.receiptsTable);
    }
    long after = afterStop.sum() + (counted.sum() - inWindow);
    long expected = c.newKeys() ? inWindow + after : hotKeys;
    return new Run(
        inWindow / ((end - start) / 1e9),
        inWindow,
        after,
        (end - start) / 1e9,
        effectRows,
        receiptRows,
        expected,
        c.newKeys(),
        failed.sum(),
        WorkerBenchMain.loadAverage());
  }

  private static long count(Connection c, String table) throws SQLException {
    return BenchDb.count(c, "SELECT count(*) FROM " + table);
  }

  /** OnceOnly's step, as {@link ReceiptBenchmark} calls it. */
  static class OnceOnlyStepper implements Stepper {
    final OnceOnly once;
    final String scope;
    final boolean newKeys;
    final int hotKeys;
    int next;

    OnceOnlyStepper(OnceOnly once, String scope, boolean newKeys, int hotKeys) {
      this.once = once;
      this.scope = scope;
      this.newKeys = newKeys;
      this.hotKeys = hotKeys;
    }

    @Override
    public int step() throws SQLException {
      one(null);
      return 1;
    }

    /**
     * One step, a new key of this caller's or a stored one drawn at random, joined to {@code tx} if
     * it is not null; its outcome must be {@code Created} for a new key, {@code Repeated} else.
     */
    void one(Connection tx) throws SQLException {
      String s = newKeys ? scope : "hot";
      int i = newKeys ? ++next : ThreadLocalRandom.current().nextInt(hotKeys);
      String key = "k" + (newKeys ? i - 1 : i);
      IntentKey intent = IntentKey.of(s, key);
      Map<String, Integer> arguments = Map.of("i", i);
      Effect<Integer, SQLException> effect = c -> ReceiptBenchmark.effect(c, s, key, 1);
      Outcome<Integer> o =
          tx == null
              ? once.receipts().execute(intent, "touch", arguments, Integer.class, effect)
              : once.receipts().execute(tx, intent, "touch", arguments, Integer.class, effect);
      boolean expected = newKeys ? o instanceof Outcome.Created : o instanceof Outcome.Repeated;
      if (!expected) {
        throw new IllegalStateException(s + "/" + key + " answered " + o);
      }
    }

    @Override
    public void close() {}
  }

  /**
   * OnceOnly's batch form for a caller with many steps at once: {@value #BATCH} steps joined to one
   * {@code inTransaction}, each under its own savepoint, one commit for all of them.
   */
  static final class OnceOnlyBatchStepper extends OnceOnlyStepper {
    OnceOnlyBatchStepper(OnceOnly once, String scope, boolean newKeys, int hotKeys) {
      super(once, scope, newKeys, hotKeys);
    }

    @Override
    public int step() throws SQLException {
      return once.inTransaction(
          tx -> {
            for (int i = 0; i < BATCH; i++) {
              one(tx);
            }
            return BATCH;
          });
    }
  }

  /** The raw per-step loop: one transaction per step, on this thread's own connection. */
  static final class RawStepper implements Stepper {
    final Connection c;
    final ReceiptBenchmark.RawLoop loop;
    final String scope;
    final boolean newKeys;
    final int hotKeys;
    int next;

    RawStepper(ReceiptsBenchDb db, Connection c, String scope, boolean newKeys, int hotKeys)
        throws SQLException {
      this.c = c;
      this.loop = db.loop(c);
      this.scope = scope;
      this.newKeys = newKeys;
      this.hotKeys = hotKeys;
    }

    @Override
    public int step() throws SQLException {
      String r =
          newKeys
              ? loop.step(scope, "k" + next++)
              : loop.step("hot", "k" + ThreadLocalRandom.current().nextInt(hotKeys));
      if (!"1".equals(r)) {
        throw new IllegalStateException("raw step answered " + r);
      }
      return 1;
    }

    @Override
    public void close() throws SQLException {
      loop.close();
      c.close();
    }
  }

  /**
   * The raw batched loop: {@value #BATCH} steps to a transaction, each inside a savepoint of its
   * own, so one step's failure would roll back that step only.
   */
  static final class BatchedStepper implements Stepper {
    final Connection c;
    final ReceiptBenchmark.RawLoop loop;
    final PreparedStatement savepoint;
    final PreparedStatement release;
    final String scope;
    final boolean newKeys;
    final int hotKeys;
    int next;

    BatchedStepper(ReceiptsBenchDb db, Connection c, String scope, boolean newKeys, int hotKeys)
        throws SQLException {
      this.c = c;
      this.loop = db.loop(c);
      this.savepoint = c.prepareStatement("SAVEPOINT step");
      this.release = c.prepareStatement("RELEASE SAVEPOINT step");
      this.scope = scope;
      this.newKeys = newKeys;
      this.hotKeys = hotKeys;
    }

    @Override
    public int step() throws SQLException {
      loop.begin.execute();
      try {
        for (int i = 0; i < BATCH; i++) {
          savepoint.execute();
          String r =
              newKeys
                  ? loop.body(scope, "k" + next++)
                  : loop.body("hot", "k" + ThreadLocalRandom.current().nextInt(hotKeys));
          release.execute();
          if (!"1".equals(r)) {
            throw new IllegalStateException("batched step answered " + r);
          }
        }
        loop.commit.execute();
        return BATCH;
      } catch (SQLException | RuntimeException e) {
        try (Statement st = c.createStatement()) {
          st.execute("ROLLBACK");
        }
        throw e;
      }
    }

    @Override
    public void close() throws SQLException {
      savepoint.close();
      release.close();
      loop.close();
      c.close();
    }
  }
}
