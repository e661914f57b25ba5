package dev.onceonly.bench;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Counts what reaches the tests' {@code mariadbd} per step, from the server's own general log
 * ({@code log_output = TABLE}): every command a session sends is one round trip. Six workloads,
 * each measured alone: the receipts step (new keys, then repeated ones) through the library and
 * through the raw JDBC loop of {@link ReceiptsBenchMain}, and one job of a one-thread drain through
 * the {@link dev.onceonly.queue.Worker} and through db-scheduler, as {@link WorkerBenchMain} runs
 * them. For each it prints the commands per step, grouped by their text with numbers and strings
 * replaced by {@code ?}, most frequent first.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.MariaDbRoundTripsMain -Dbench.args="steps=2000"}.
 */
public final class MariaDbRoundTripsMain {
  private MariaDbRoundTripsMain() {}

  /** Runs the four workloads and prints their commands per step. */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = WorkerBenchMain.arguments(args);
    int steps = Integer.parseInt(a.getOrDefault("steps", "2000"));
    receipts(steps);
    drain(steps, "OnceOnly Worker W=1", WorkerBenchMain.ONCEONLY);
    drain(steps, "db-scheduler W=1", WorkerBenchMain.DB_SCHEDULER);
    System.exit(0);
  }

  private static void receipts(int steps) throws Exception {
    try (ReceiptsBenchDb db = ReceiptsBenchDb.create(ReceiptsBenchDb.Kind.MARIADB, 2)) {
      OnceOnly once = db.open();
      ReceiptsBenchMain.OnceOnlyStepper ours =
          new ReceiptsBenchMain.OnceOnlyStepper(once, "warm", true, 0);
      for (int i = 0; i < 200; i++) {
        ours.step(); // the pool's connection and the statements are made before the log starts
      }
      ours = new ReceiptsBenchMain.OnceOnlyStepper(once, "u", true, 0);
      startLog();
      for (int i = 0; i < steps; i++) {
        ours.step();
      }
      print("OnceOnly receipts step (new keys)", steps);
      try (ReceiptsBenchMain.RawStepper raw =
          new ReceiptsBenchMain.RawStepper(db, db.raw(), "r", true, 0)) {
        startLog();
        for (int i = 0; i < steps; i++) {
          raw.step();
        }
        print("raw JDBC loop (new keys)", steps);
      }
      ReceiptsBenchMain.prefill(db, once, steps);
      ReceiptsBenchMain.prefill(db, null, steps);
      ReceiptsBenchMain.OnceOnlyStepper again =
          new ReceiptsBenchMain.OnceOnlyStepper(once, "hot", false, steps);
      startLog();
      for (int i = 0; i < steps; i++) {
        again.step();
      }
      print("OnceOnly receipts step (repeated keys)", steps);
      try (ReceiptsBenchMain.RawStepper raw =
          new ReceiptsBenchMain.RawStepper(db, db.raw(), "hot", false, steps)) {
        startLog();
        for (int i = 0; i < steps; i++) {
          raw.step();
        }
        print("raw JDBC loop (repeated keys)", steps);
      }
      once.close();
    }
  }

  private static void drain(int steps, String title, WorkerBenchMain.Sut sut) throws Exception {
    try (WorkerBenchStore store = WorkerBenchStore.create(WorkerBenchStore.Kind.MARIADB);
        WorkerBenchTarget target = sut.factory().open(store, 1)) {
      target.prefill(steps);
      WorkerBenchTarget.Sink sink = new WorkerBenchTarget.Sink(false);
      startLog();
      target.start(sink);
      sink.awaitDone(steps, System.nanoTime() + TimeUnit.MINUTES.toNanos(5));
      print(title + " (drain of " + steps + ", " + sink.done.sum() + " done)", steps);
      target.stop();
    }
  }

  private static void startLog() throws SQLException {
    try (Connection c = MariaDbServer.connect("");
        Statement s = c.createStatement()) {
      s.execute("SET GLOBAL general_log = 0");
      s.execute("SET GLOBAL log_output = 'TABLE'");
      s.execute("TRUNCATE TABLE mysql.general_log");
      s.execute("SET GLOBAL general_log = 1");
    }
  }

  private static void print(String title, int steps) throws SQLException {
    Map<String, Long> byText = new LinkedHashMap<>();
    long total = 0;
    try (Connection c = MariaDbServer.connect("");
        Statement s = c.createStatement()) {
      s.execute("SET GLOBAL general_log = 0");
      try (ResultSet rs =
          s.executeQuery(
              "SELECT command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log"
                  + " WHERE thread_id <> CONNECTION_ID()")) {
        while (rs.next()) {
          String text = rs.getString(1) + ": " + shape(rs.getString(2));
          byText.merge(text, 1L, Long::sum);
          total++;
        }
      }
    }
    System.out.printf(
        Locale.ROOT, "%n## %s: %.2f commands per step%n%n", title, (double) total / steps);
    byText.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(25)
        .forEach(
            e ->
                System.out.printf(
                    Locale.ROOT,
                    "%8.3f  %s%n",
                    (double) e.getValue() / steps,
                    e.getKey().length() > 220 ? e.getKey().substring(0, 220) + "…" : e.getKey()));
  }

  /** The statement's text with its literals replaced, so steps on other keys group together. */
  private static String shape(String sql) {
    return sql.replaceAll("'(?:[^'\\\\]|\\\\.)*'", "?")
        .replaceAll("\\b\\d+\\b", "?")
        .replaceAll("\\?(, \\?)+", "?, …")
        .replaceAll("\\s+", " ");
  }
}
