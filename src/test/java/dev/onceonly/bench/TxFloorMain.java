package dev.onceonly.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Locale;
import java.util.UUID;

/**
 * The floor under the transactional mode's ratio in {@link HttpBenchMain}, from the database alone:
 * raw JDBC on one thread, SQLite WAL {@code synchronous=FULL}, a fresh file per run, no HTTP and no
 * library code. <b>A</b> is the bare endpoint's transaction (one business row, one commit);
 * <b>B</b> is what the transactional mode's transaction holds besides (the same row, plus the
 * receipt's lookup and its row in the library's own {@code receipts} table with its indexes,
 * created by the library's migrations under the prefix {@code raw_}), also one commit. Keys are
 * random UUIDs, as the HTTP bench's are. B / A is the most the transactional mode can reach against
 * the bare endpoint while each request commits alone: both commit once, and B's commit writes more
 * pages.
 *
 * <p>Runs A B B A, {@code seconds} each, the load average printed with each run: {@code mvn -B
 * -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.bench.TxFloorMain
 * -Dbench.args="seconds=5"}.
 */
public final class TxFloorMain {
  private TxFloorMain() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.parseInt(WorkerBenchMain.arguments(args).getOrDefault("seconds", "5"));
    System.out.printf(
        Locale.ROOT, "TxFloorMain, load %s, seconds=%d%n", WorkerBenchMain.loadAverage(), seconds);
    run(false, 1); // warm-up, not counted
    run(true, 1);
    double a1 = run(false, seconds);
    double b1 = run(true, seconds);
    double b2 = run(true, seconds);
    double a2 = run(false, seconds);
    double a = (a1 + a2) / 2;
    double b = (b1 + b2) / 2;
    System.out.printf(
        Locale.ROOT,
        "%n| transaction | commits/s (mean) | run 1 | run 2 |%n|---|---:|---:|---:|%n"
            + "| A: the business row | %,.0f | %,.0f | %,.0f |%n"
            + "| B: the business row, the receipt's lookup and row | %,.0f | %,.0f | %,.0f |%n"
            + "%nB / A = %.2f (load at the end %s)%n",
        a,
        a1,
        a2,
        b,
        b1,
        b2,
        b / a,
        WorkerBenchMain.loadAverage());
  }

  /** One run on a fresh file; returns commits per second. */
  private static double run(boolean receipt, int seconds) throws Exception {
    Path file = BenchDb.newFile();
    try {
      BenchDb.createRawTables(file, "FULL");
      try (Connection c = BenchDb.raw(file, "FULL")) {
        BenchDb.exec(
            c, "CREATE TABLE effects (scope TEXT NOT NULL, k TEXT NOT NULL, v INTEGER NOT NULL)");
        try (ReceiptBenchmark.RawLoop loop = new ReceiptBenchmark.RawLoop(c);
            PreparedStatement begin = c.prepareStatement("BEGIN IMMEDIATE");
            PreparedStatement insert = c.prepareStatement("INSERT INTO effects VALUES (?, ?, 1)");
            PreparedStatement commit = c.prepareStatement("COMMIT")) {
          String load = WorkerBenchMain.loadAverage();
          long n = 0;
          long start = System.nanoTime();
          long end = start + seconds * 1_000_000_000L;
          long now;
          while ((now = System.nanoTime()) < end) {
            String key = UUID.randomUUID().toString();
            if (receipt) {
              loop.step("bench", key);
            } else {
              begin.execute();
              insert.setString(1, "bench");
              insert.setString(2, key);
              insert.executeUpdate();
              commit.execute();
            }
            n++;
          }
          double rate = n / ((now - start) / 1e9);
          long rows = BenchDb.count(c, "SELECT COUNT(*) FROM effects");
          long receipts = BenchDb.count(c, "SELECT COUNT(*) FROM raw_receipts");
          if (rows != n || receipts != (receipt ? n : 0)) {
            throw new IllegalStateException(
                "MISMATCH: " + n + " commits, " + rows + " rows, " + receipts + " receipts");
          }
          System.out.printf(
              Locale.ROOT,
              "%-8s %,8.0f commits/s  %,d rows checked, load %s%n",
              receipt ? "B" : "A",
              rate,
              rows,
              load);
          return rate;
        }
      }
    } finally {
      BenchDb.delete(file);
    }
  }
}
