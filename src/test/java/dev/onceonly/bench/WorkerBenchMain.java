package dev.onceonly.bench;

import dev.onceonly.bench.WorkerBenchStore.Kind;
import dev.onceonly.bench.WorkerBenchTarget.Sink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@link dev.onceonly.queue.Worker} end to end against the job schedulers a user would pick
 * instead (db-scheduler, JobRunr), in one run, plus OnceOnly's own batched loop and, on PostgreSQL,
 * a raw {@code FOR UPDATE SKIP LOCKED} loop as baselines. The MariaDB cases (on the tests' {@code
 * mariadbd}, {@link dev.onceonly.testing.MariaDbServer}) run the Worker, its batched loop and
 * db-scheduler only. Every job does the same work: one row in {@code done(job_key TEXT PRIMARY
 * KEY)}.
 *
 * <p>Shapes: <b>drain</b> (N jobs queued before the clock starts, then W worker threads empty the
 * queue; the clock starts with the workers), <b>send</b> (P producer threads, one job per call, no
 * workers), <b>live</b> (workers running, P producers; the clock stops once every job sent has been
 * handled), and <b>latency</b> (one job at a time into an idle queue, from the send's return, which
 * is after its commit, to the handler's start). A figure is the jobs counted over one shared clock;
 * the count is checked against the rows in {@code done} (or, for send, against the jobs waiting in
 * the system's own tables) after the workers stopped, and a mismatch is reported loudly. Each run
 * has a fresh SQLite file, PostgreSQL database or MariaDB database.
 *
 * <p>Each case runs its systems in the order A B C C B A, and each figure is the mean of its two
 * runs, so that a load drifting over the minutes of a run is not charged to whichever ran last; the
 * load average ({@code /proc/loadavg}) is printed with every run. The table goes to {@code
 * target/benchmarks/worker.md}.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.WorkerBenchMain -Dbench.args="..."} with arguments {@code quick}
 * (a smoke run: 1 s bounds, small N, one pass), {@code seconds=10} (the time bound of each run),
 * {@code drainN=20000} (jobs queued before a drain), {@code n=10000000} (the most jobs sent in a
 * send or live run), {@code samples=200} and {@code spacingMs=100} (latency), {@code
 * only=FULL_drain,live} (cases whose title contains one of these, an underscore standing for a
 * space), {@code skip=JobRunr} (leave out the systems whose name contains one of these).
 */
public final class WorkerBenchMain {
  private WorkerBenchMain() {}

  enum Shape {
    DRAIN,
    SEND,
    LIVE,
    LATENCY
  }

  record Sut(String name, WorkerBenchTarget.Factory factory) {}

  record Case(Kind kind, Shape shape, int producers, int workers, List<Sut> systems) {
    String title() {
      String t = kind.title + " " + shape.name().toLowerCase(Locale.ROOT);
      if (producers > 0) {
        t += " P=" + producers;
      }
      if (workers > 0 && shape != Shape.LATENCY) {
        t += " W=" + workers;
      }
      if (systems.get(0) == ONCEONLY_BATCH) {
        t += " batch";
      }
      return t;
    }
  }

  /** One measured run of one system. */
  record Run(
      double rate,
      long counted,
      double seconds,
      long checked,
      long expected,
      long failed,
      long firstMillis,
      String load,
      double p50,
      double p99,
      long sent,
      double prefillSeconds,
      String perJob) {
    boolean ok() {
      return checked == expected && failed == 0;
    }
  }

  record Settings(
      boolean quick,
      int seconds,
      int drainN,
      long n,
      int samples,
      int spacingMs,
      List<String> only,
      List<String> skip) {
    static Settings parse(String[] args) {
      Map<String, String> a = WorkerBenchMain.arguments(args);
      boolean quick = a.containsKey("quick");
      return new Settings(
          quick,
          Integer.parseInt(a.getOrDefault("seconds", quick ? "1" : "10")),
          Integer.parseInt(a.getOrDefault("drainN", quick ? "1000" : "20000")),
          Long.parseLong(a.getOrDefault("n", "10000000")),
          Integer.parseInt(a.getOrDefault("samples", quick ? "10" : "200")),
          Integer.parseInt(a.getOrDefault("spacingMs", quick ? "20" : "100")),
          WorkerBenchMain.titles(a, "only"),
          WorkerBenchMain.titles(a, "skip"));
    }
  }

  static final Sut ONCEONLY =
      new Sut(
          "OnceOnly Worker",
          (store, workers) -> new OnceOnlyTargets.WorkerTarget(store, workers, false));
  static final Sut ONCEONLY_LATER =
      new Sut(
          "OnceOnly Worker (completeLater)",
          (store, workers) -> new OnceOnlyTargets.WorkerTarget(store, workers, true));
  static final Sut ONCEONLY_LIMITED =
      new Sut(
          "OnceOnly Worker (limit 100)",
          (store, workers) -> new OnceOnlyTargets.WorkerTarget(store, workers, false, 100));
  static final Sut ONCEONLY_PARTITIONED =
      new Sut(
          "OnceOnly Worker (16 partitions of 100)",
          (store, workers) -> OnceOnlyTargets.WorkerTarget.partitioned(store, workers, 100));
  static final Sut ONCEONLY_BATCH =
      new Sut("OnceOnly Worker (BatchHandler 100)", OnceOnlyTargets.BatchWorkerTarget::new);
  static final Sut DB_SCHEDULER = new Sut("db-scheduler", PeerTargets.DbSchedulerTarget::new);
  static final Sut JOBRUNR = new Sut("JobRunr", PeerTargets.JobRunrTarget::new);
  static final Sut BATCHED =
      new Sut("OnceOnly batched loop (receive 100)", OnceOnlyTargets.BatchedTarget::new);
  static final Sut RAW =
      new Sut("raw JDBC SKIP LOCKED (100)", OnceOnlyTargets.RawSkipLockedTarget::new);
  static final Sut RAW_ONE_BY_ONE =
      new Sut("raw JDBC, a commit per send and per job", OnceOnlyTargets.RawOneByOneTarget::new);

  static List<Case> cases() {
    List<Sut> peers = List.of(ONCEONLY, ONCEONLY_LATER, DB_SCHEDULER, JOBRUNR);
    List<Sut> sqliteDrain =
        List.of(
            ONCEONLY,
            ONCEONLY_LATER,
            ONCEONLY_LIMITED,
            ONCEONLY_PARTITIONED,
            DB_SCHEDULER,
            JOBRUNR,
            BATCHED);
    List<Sut> pgDrain = new java.util.ArrayList<>(sqliteDrain);
    pgDrain.add(RAW);
    List<Sut> mariaDbPeers = List.of(ONCEONLY, ONCEONLY_LATER, DB_SCHEDULER);
    List<Sut> mariaDbDrain = List.of(ONCEONLY, ONCEONLY_LATER, DB_SCHEDULER, BATCHED);
    return List.of(
        new Case(Kind.SQLITE_FULL, Shape.DRAIN, 0, 4, sqliteDrain),
        new Case(Kind.SQLITE_FULL, Shape.SEND, 4, 0, peers),
        new Case(Kind.SQLITE_FULL, Shape.LIVE, 4, 4, peers),
        new Case(Kind.SQLITE_NORMAL, Shape.LIVE, 4, 4, peers),
        new Case(Kind.POSTGRES, Shape.DRAIN, 0, 1, pgDrain),
        new Case(Kind.POSTGRES, Shape.DRAIN, 0, 8, pgDrain),
        new Case(Kind.POSTGRES, Shape.LIVE, 4, 1, peers),
        new Case(Kind.POSTGRES, Shape.LIVE, 4, 8, peers),
        new Case(Kind.SQLITE_FULL, Shape.LATENCY, 0, 1, List.of(ONCEONLY, DB_SCHEDULER)),
        // End to end one by one: one producer sending a job per call, one worker thread, against
        // the floor of two commits a job (the raw loop) and db-scheduler.
        new Case(
            Kind.SQLITE_FULL,
            Shape.LIVE,
            1,
            1,
            List.of(ONCEONLY, RAW_ONE_BY_ONE, ONCEONLY_LATER, DB_SCHEDULER)),
        // The batch handler against db-scheduler alone, A B B A: its own cases, named "batch".
        new Case(Kind.SQLITE_FULL, Shape.DRAIN, 0, 4, List.of(ONCEONLY_BATCH, DB_SCHEDULER)),
        new Case(Kind.POSTGRES, Shape.DRAIN, 0, 8, List.of(ONCEONLY_BATCH, DB_SCHEDULER)),
        // MariaDB (the tests' mariadbd): the PostgreSQL rows, without JobRunr and the raw loop.
        new Case(Kind.MARIADB, Shape.DRAIN, 0, 1, mariaDbDrain),
        new Case(Kind.MARIADB, Shape.DRAIN, 0, 8, mariaDbDrain),
        new Case(Kind.MARIADB, Shape.LIVE, 4, 1, mariaDbPeers),
        new Case(Kind.MARIADB, Shape.LIVE, 4, 8, mariaDbPeers),
        new Case(Kind.MARIADB, Shape.DRAIN, 0, 8, List.of(ONCEONLY_BATCH, DB_SCHEDULER)));
  }

  public static void main(String[] args) throws Exception {
    Settings s = Settings.parse(args);
    List<String> mismatches = new ArrayList<>();
    StringBuilder table = new StringBuilder();
    table.append(
        "| case | system | jobs/s (mean) | run 1 | run 2 | OnceOnly / this | counted = checked"
            + " | measured s | checked of sent | first job after | load avg (run 1; run 2)"
            + " | per job (MariaDB; run 1) |\n");
    table.append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|\n");
    StringBuilder latency = new StringBuilder();
    latency.append(
        "| case | system | p50 ms | p99 ms | p50 run 1; run 2 | p99 run 1; run 2 | load avg |\n");
    latency.append("|---|---|---:|---:|---|---|---|\n");
    System.out.printf(
        Locale.ROOT,
        "%s start %s, load %s, %s%n",
        WorkerBenchMain.class.getSimpleName(),
        Instant.now(),
        loadAverage(),
        s);
    String server = "";
    for (Case c : cases()) {
      if (!s.only().isEmpty() && s.only().stream().noneMatch(c.title()::contains)) {
        continue;
      }
      if (c.kind() == Kind.MARIADB && server.isEmpty()) {
        server = "MariaDB server: " + MariaDbCounters.durabilitySettings() + "\n";
        System.out.print(server);
      }
      List<Sut> systems =
          c.systems().stream()
              .filter(x -> s.skip().stream().noneMatch(x.name()::contains))
              .toList();
      List<Sut> order = new ArrayList<>(systems);
      if (!s.quick()) {
        List<Sut> back = new ArrayList<>(systems);
        java.util.Collections.reverse(back);
        order.addAll(back);
      }
      Map<Sut, List<Run>> runs = new LinkedHashMap<>();
      for (Sut sys : order) {
        Run r = run(c, sys, s);
        runs.computeIfAbsent(sys, k -> new ArrayList<>()).add(r);
        String line =
            String.format(
                Locale.ROOT,
                "%-28s %-36s %,10.0f jobs/s  counted %,d in %.2f s, checked %,d of %,d, failed %d,"
                    + " first after %d ms, sent %,d, prefill %.1f s%s  load %s%s",
                c.title(),
                sys.name(),
                r.rate(),
                r.counted(),
                r.seconds(),
                r.checked(),
                r.expected(),
                r.failed(),
                r.firstMillis(),
                r.sent(),
                r.prefillSeconds(),
                c.shape() == Shape.LATENCY
                    ? String.format(Locale.ROOT, ", p50 %.2f ms, p99 %.2f ms", r.p50(), r.p99())
                    : "",
                r.load(),
                "-".equals(r.perJob()) ? "" : "\n    per job: " + r.perJob());
        System.out.println(line);
        if (!r.ok()) {
          String m = "MISMATCH " + line;
          mismatches.add(m);
          System.out.println("!!!!!!!! " + m);
        }
      }
      // The case's first system is the one compared; skipped, the ratios say NaN.
      List<Run> first = runs.get(c.systems().get(0));
      double ours = first == null ? Double.NaN : mean(first);
      for (Map.Entry<Sut, List<Run>> e : runs.entrySet()) {
        List<Run> rs = e.getValue();
        if (c.shape() == Shape.LATENCY) {
          latency.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %.2f | %.2f | %s | %s | %s |%n",
                  c.title(),
                  e.getKey().name(),
                  rs.stream().mapToDouble(Run::p50).average().orElse(0),
                  rs.stream().mapToDouble(Run::p99).average().orElse(0),
                  join(rs, r -> String.format(Locale.ROOT, "%.2f", r.p50())),
                  join(rs, r -> String.format(Locale.ROOT, "%.2f", r.p99())),
                  join(rs, Run::load)));
          continue;
        }
        double mean = mean(rs);
        table.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %,.0f | %,.0f | %s | %.2fx | %s | %s | %s | %s | %s | %s |%n",
                c.title(),
                e.getKey().name(),
                mean,
                rs.get(0).rate(),
                rs.size() > 1 ? String.format(Locale.ROOT, "%,.0f", rs.get(1).rate()) : "-",
                ours / mean,
                rs.stream().allMatch(Run::ok) ? "yes" : "**NO**",
                join(rs, r -> String.format(Locale.ROOT, "%.1f", r.seconds())),
                join(rs, r -> String.format(Locale.ROOT, "%,d of %,d", r.expected(), r.sent())),
                join(rs, r -> r.firstMillis() < 0 ? "-" : r.firstMillis() + " ms"),
                join(rs, Run::load),
                rs.get(0).perJob()));
      }
      System.out.println(table);
    }
    String out =
        "Worker benchmark, "
            + Instant.now()
            + ", load at the end "
            + loadAverage()
            + ", "
            + s
            + "\n"
            + server
            + "\n"
            + table
            + "\n"
            + latency
            + (mismatches.isEmpty() ? "" : "\nMISMATCHES:\n" + String.join("\n", mismatches))
            + "\n";
    WorkerBenchMain.report("worker.md", out, mismatches);
  }

  /** The {@code name=value} arguments of a harness, a bare {@code name} as an empty value. */
  static Map<String, String> arguments(String[] args) {
    Map<String, String> a = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(eq < 0 ? arg : arg.substring(0, eq), eq < 0 ? "" : arg.substring(eq + 1));
    }
    return a;
  }

  /**
   * The comma-separated titles of argument {@code key} ({@code only}, {@code skip}), "_" a space.
   */
  static List<String> titles(Map<String, String> a, String key) {
    return a.containsKey(key) ? Arrays.asList(a.get(key).replace('_', ' ').split(",")) : List.of();
  }

  /**
   * Writes a harness's report to {@code target/benchmarks/<name>}, prints it, and exits: 1 if some
   * run did not add up, else 0.
   */
  static void report(String name, String out, List<String> mismatches) throws IOException {
    Path file = Path.of("target", "benchmarks", name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, out);
    System.out.println();
    System.out.println(out);
    System.out.println("written to " + file.toAbsolutePath());
    if (!mismatches.isEmpty()) {
      System.out.println("!!!!!!!! " + mismatches.size() + " run(s) did not add up, see above");
      System.exit(1);
    }
    System.exit(0);
  }

  private static double mean(List<Run> runs) {
    return runs.stream().mapToDouble(Run::rate).average().orElse(Double.NaN);
  }

  private static String join(List<Run> runs, java.util.function.Function<Run, String> f) {
    return String.join("; ", runs.stream().map(f).toList());
  }

  static Run run(Case c, Sut sys, Settings s) throws Exception {
    try (WorkerBenchStore store = WorkerBenchStore.create(c.kind());
        WorkerBenchTarget target = sys.factory().open(store, Math.max(1, c.workers()))) {
      return switch (c.shape()) {
        case DRAIN -> drain(store, target, s);
        case SEND -> send(c, target, s);
        case LIVE -> live(c, store, target, s);
        case LATENCY -> latency(store, target, s);
      };
    }
  }

  private static Run drain(WorkerBenchStore store, WorkerBenchTarget target, Settings s)
      throws Exception {
    long prefillStart = System.nanoTime();
    target.prefill(s.drainN());
    double prefill = seconds(prefillStart, System.nanoTime());
    MariaDbCounters.Snapshot before = counters(store);
    Sink sink = new Sink(false);
    long start = System.nanoTime();
    target.start(sink);
    sink.awaitDone(s.drainN(), start + s.seconds() * 1_000_000_000L);
    long end = System.nanoTime();
    long counted = sink.done.sum();
    target.stop();
    return finish(store, sink, counted, start, end, s.drainN(), prefill, before);
  }

  private static Run send(Case c, WorkerBenchTarget target, Settings s) throws Exception {
    Sink sink = new Sink(false);
    LongAdder sent = new LongAdder();
    long[] clock = produce(c.producers(), target, s, sent, sink);
    long counted = sent.sum();
    long queued = target.queued();
    return new Run(
        counted / seconds(clock[0], clock[1]),
        counted,
        seconds(clock[0], clock[1]),
        queued,
        counted,
        sink.failed.sum(),
        -1,
        loadAverage(),
        0,
        0,
        counted,
        0,
        "-");
  }

  private static Run live(Case c, WorkerBenchStore store, WorkerBenchTarget target, Settings s)
      throws Exception {
    Sink sink = new Sink(false);
    MariaDbCounters.Snapshot before = counters(store);
    target.start(sink);
    LongAdder sent = new LongAdder();
    long[] clock = produce(c.producers(), target, s, sent, sink);
    // End to end: the clock stops once every job sent has been handled (bounded, for a system
    // that stalls: the count then says how far it got).
    long hardStop = clock[0] + (2L * s.seconds() + 10) * 1_000_000_000L;
    sink.awaitDone(sent.sum(), hardStop);
    long end = System.nanoTime();
    long counted = sink.done.sum();
    target.stop();
    return finish(store, sink, counted, clock[0], end, sent.sum(), 0, before);
  }

  private static Run finish(
      WorkerBenchStore store,
      Sink sink,
      long counted,
      long start,
      long end,
      long sent,
      double prefillSeconds,
      MariaDbCounters.Snapshot before)
      throws Exception {
    long doneAfterStop = sink.done.sum();
    String perJob = before == null ? "-" : before.perJob(MariaDbCounters.take(), doneAfterStop);
    long rows = store.doneRows();
    if (sink.firstFailure.get() != null) {
      System.out.println("first failure: " + sink.firstFailure.get());
    }
    return new Run(
        counted / seconds(start, end),
        counted,
        seconds(start, end),
        rows,
        doneAfterStop,
        sink.failed.sum(),
        sink.firstDoneNanos == 0 ? -1 : (sink.firstDoneNanos - start) / 1_000_000,
        loadAverage(),
        0,
        0,
        sent,
        prefillSeconds,
        perJob);
  }

  /** The MariaDB server's counters before a run, or null on another database. */
  private static MariaDbCounters.Snapshot counters(WorkerBenchStore store) {
    return store.kind == Kind.MARIADB ? MariaDbCounters.take() : null;
  }

  /**
   * Runs {@code producers} threads behind one start gate, each sending one job per call until
   * {@code n} jobs are sent or the time bound passes; returns the clock's start and end.
   */
  private static long[] produce(
      int producers, WorkerBenchTarget target, Settings s, LongAdder sent, Sink sink)
      throws InterruptedException {
    AtomicLong next = new AtomicLong();
    CountDownLatch gate = new CountDownLatch(1);
    long[] clock = new long[2];
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  gate.await();
                  long deadline = clock[0] + s.seconds() * 1_000_000_000L;
                  long i;
                  while (System.nanoTime() < deadline && (i = next.getAndIncrement()) < s.n()) {
                    target.send("j" + i);
                    sent.increment();
                  }
                } catch (Exception e) {
                  sink.failed(e);
                }
              },
              "bench-producer-" + p);
      threads.add(t);
      t.start();
    }
    clock[0] = System.nanoTime();
    gate.countDown();
    for (Thread t : threads) {
      t.join();
    }
    clock[1] = System.nanoTime();
    return clock;
  }

  private static Run latency(WorkerBenchStore store, WorkerBenchTarget target, Settings s)
      throws Exception {
    Sink sink = new Sink(true);
    target.start(sink);
    double[] ms = new double[s.samples()];
    long start = System.nanoTime();
    for (int i = 0; i < s.samples(); i++) {
      Thread.sleep(s.spacingMs()); // the queue goes idle between samples, on purpose
      String key = "l" + i;
      target.send(key);
      long sentAt = System.nanoTime();
      sink.awaitDone(i + 1, sentAt + 10_000_000_000L);
      Long startedAt = sink.starts.get(key);
      ms[i] = startedAt == null ? Double.NaN : (startedAt - sentAt) / 1e6;
    }
    long end = System.nanoTime();
    long counted = sink.done.sum();
    target.stop();
    Run r = finish(store, sink, counted, start, end, s.samples(), 0, null);
    Arrays.sort(ms);
    return new Run(
        r.rate(),
        r.counted(),
        r.seconds(),
        r.checked(),
        r.expected(),
        r.failed() + (counted == s.samples() ? 0 : s.samples() - counted),
        r.firstMillis(),
        r.load(),
        percentile(ms, 0.50),
        percentile(ms, 0.99),
        r.sent(),
        0,
        "-");
  }

  static double percentile(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  private static double seconds(long start, long end) {
    return (end - start) / 1e9;
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "n/a";
    }
  }
}
