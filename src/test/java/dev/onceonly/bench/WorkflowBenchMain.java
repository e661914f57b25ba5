package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.workflow.StepHandler;
import dev.onceonly.workflow.Workflow;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Workflows of five steps against the same five steps chained by hand, in one run: <b>workflow</b>
 * starts N runs of a five-step chain ({@code Workflows.start}) and a {@link Worker} runs them
 * through {@code Workflows.handler}; <b>chained</b> sends N messages and its handler does each step
 * as the queue's checkpoint pattern would, in one {@code completeWith}: a receipts step (the effect
 * with its receipt, so that a step is done once, as a workflow's step row ensures), then the send
 * of the next step under the same key. Every step of both writes one row in {@code done}. The clock
 * starts with the worker, after every run was started or sent, and stops when the queue is empty;
 * the rows in {@code done} are then checked to be 5 N. The figure is steps per second.
 *
 * <p>Each database runs a warm-up of each (a quarter of the runs, not counted), then A B B A
 * (workflow, chained, chained, workflow), and each figure is the mean of its two runs; the load
 * average is printed with every run. The ratio is workflow over chained. Databases: SQLite with
 * {@code synchronous=FULL} (a new file per run) and the embedded PostgreSQL (a new database per
 * run).
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.WorkflowBenchMain -Dbench.args="runs=1000 threads=4"}, with
 * {@code quick} for a smoke run and {@code db=sqlite} or {@code db=postgresql} for one database.
 */
public final class WorkflowBenchMain {
  static final String QUEUE = "bench";
  static final int STEPS = 5;
  static final Workflow FIVE = five();

  private WorkflowBenchMain() {}

  private static Workflow five() {
    Workflow.Builder b = Workflow.named("five").step("s1", QUEUE);
    for (int i = 2; i <= STEPS; i++) {
      b.step("s" + i, QUEUE).after("s" + (i - 1));
    }
    return b.build();
  }

  /** One database to run on: a fresh store per run. */
  interface Store extends AutoCloseable {
    OnceOnly open();

    @Override
    void close();
  }

  record Result(double stepsPerSecond, String load) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = WorkerBenchMain.arguments(args);
    boolean quick = a.containsKey("quick");
    int runs = Integer.parseInt(a.getOrDefault("runs", quick ? "100" : "1000"));
    int threads = Integer.parseInt(a.getOrDefault("threads", "4"));
    String only = a.getOrDefault("db", "");
    StringBuilder out = new StringBuilder();
    out.append("| database | workflow steps/s | chained steps/s | ratio | runs (load) |\n");
    out.append("|---|---|---|---|---|\n");
    for (String db : List.of("sqlite", "postgresql")) {
      if (!only.isEmpty() && !only.equals(db)) {
        continue;
      }
      try (Store warm = store(db)) { // warms the JIT; not counted
        workflows(warm, Math.max(1, runs / 4), threads);
      }
      try (Store warm = store(db)) {
        chained(warm, Math.max(1, runs / 4), threads);
      }
      List<Result> wf = new ArrayList<>();
      List<Result> chained = new ArrayList<>();
      for (String order : List.of("A", "B", "B", "A")) {
        try (Store store = store(db)) {
          Result r =
              order.equals("A") ? workflows(store, runs, threads) : chained(store, runs, threads);
          (order.equals("A") ? wf : chained).add(r);
          System.out.printf(
              Locale.ROOT,
              "%s %s: %.0f steps/s, load %s%n",
              db,
              order.equals("A") ? "workflow" : "chained",
              r.stepsPerSecond(),
              r.load());
        }
      }
      double w = mean(wf);
      double c = mean(chained);
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f | %.2f | %d x 5 steps, %d threads (%s) |%n",
              db.equals("sqlite") ? "SQLite FULL" : "PostgreSQL",
              w,
              c,
              w / c,
              runs,
              threads,
              String.join("; ", wf.get(0).load(), chained.get(0).load())));
    }
    System.out.print(out);
  }

  private static double mean(List<Result> rs) {
    return rs.stream().mapToDouble(Result::stepsPerSecond).average().orElse(0);
  }

  static Store store(String db) {
    if (db.equals("sqlite")) {
      Path file = BenchDb.newFile();
      return new Store() {
        @Override
        public OnceOnly open() {
          return BenchDb.open(file, "FULL");
        }

        @Override
        public void close() {
          BenchDb.delete(file);
        }
      };
    }
    HikariDataSource pool = EmbeddedPg.pool(EmbeddedPg.newDatabase("wfbench"), 16);
    return new Store() {
      @Override
      public OnceOnly open() {
        return OnceOnly.builder().dataSource(pool).build();
      }

      @Override
      public void close() {
        pool.close();
      }
    };
  }

  static Result workflows(Store store, int runs, int threads) throws Exception {
    try (OnceOnly once = store.open()) {
      createDone(once);
      for (int i = 0; i < runs; i++) {
        once.workflows().start(FIVE, "w-" + i, Map.of("n", i));
      }
      StepHandler step =
          (s, tx) -> {
            done(tx, s.workflowId() + ":" + s.step());
            return null;
          };
      return measure(once, once.workflows().handler(step), runs, threads);
    }
  }

  static Result chained(Store store, int runs, int threads) throws Exception {
    try (OnceOnly once = store.open()) {
      createDone(once);
      List<Message> first = new ArrayList<>();
      for (int i = 0; i < runs; i++) {
        first.add(Message.of(QUEUE, "c-" + i, Map.of("step", 1)));
        if (first.size() == 500 || i == runs - 1) {
          once.queue().sendAll(first);
          first.clear();
        }
      }
      Handler step =
          job -> {
            int n = job.payload().get("step").asInt();
            String key = job.delivery().key();
            job.completeWith(
                tx -> {
                  once.receipts()
                      .execute(
                          tx,
                          IntentKey.of("chain", key + ".s" + n),
                          "step",
                          Map.of("step", n),
                          String.class,
                          c -> {
                            done(c, key + ":s" + n);
                            return "ok";
                          });
                  if (n < STEPS) {
                    once.queue().send(tx, Message.of(QUEUE, key, Map.of("step", n + 1))).orThrow();
                  }
                  return null;
                });
          };
      return measure(once, step, runs, threads);
    }
  }

  private static Result measure(OnceOnly once, Handler handler, int runs, int threads)
      throws Exception {
    String load = WorkerBenchMain.loadAverage();
    long start = System.nanoTime();
    Worker worker =
        Worker.builder(once.queue(), QUEUE, handler)
            .threads(threads)
            .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(10))
            .build()
            .start();
    try {
      while (once.queue().depth(QUEUE) > 0) {
        Thread.sleep(2); // a harness polling for the end, not a test
      }
    } finally {
      worker.close();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long done = once.<Long, SQLException>inTransaction(WorkflowBenchMain::count);
    if (done != (long) runs * STEPS) {
      throw new IllegalStateException("done holds " + done + " rows, not " + runs * STEPS);
    }
    return new Result(runs * STEPS / seconds, load);
  }

  private static void createDone(OnceOnly once) throws SQLException {
    once.<SQLException>useTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("CREATE TABLE done (job_key VARCHAR(200) PRIMARY KEY)")) {
            ps.executeUpdate();
          }
        });
  }

  static void done(Connection c, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO done (job_key) VALUES (?)")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
  }

  private static long count(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM done");
        java.sql.ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
