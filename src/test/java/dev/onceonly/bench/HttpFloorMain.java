package dev.onceonly.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.bench.HttpFloorMain
 * -Dbench.args="seconds=5"}.
 */
public final class HttpFloorMain {
  private HttpFloorMain() {}

  /** The three transactions measured. */
  enum Shape {
    A("the bare endpoint: the business row"),
    B("transactional: the row, the receipt's lookup and row"),
    C("plain, 4 clients at best: 4 claims, 4 rows, 4 completions in 6 commits");

    final String title;

    Shape(String title) {
      this.title = title;
    }
  }

  public static void main(String[] args) throws Exception {
    int seconds = Integer.parseInt(WorkerBenchMain.arguments(args).getOrDefault("seconds", "5"));
    System.out.printf(
        Locale.ROOT,
        "HttpFloorMain, load %s, seconds=%d%n",
        WorkerBenchMain.loadAverage(),
        seconds);
    for (Shape s : Shape.values()) {
      run(s, 1); // warm-up, not counted
    }
    Map<Shape, double[]> rates = new EnumMap<>(Shape.class);
    List<Shape> order = List.of(Shape.A, Shape.B, Shape.C, Shape.C, Shape.B, Shape.A);
    for (int i = 0; i < order.size(); i++) {
      rates.computeIfAbsent(order.get(i), k -> new double[2])[i < 3 ? 0 : 1] =
          run(order.get(i), seconds);
    }
    double a = mean(rates.get(Shape.A));
    StringBuilder table =
        new StringBuilder(
            "| transaction | requests/s (mean) | run 1 | run 2 | / A |\n|---|---:|---:|---:|---:|\n");
    for (Shape s : Shape.values()) {
      double[] r = rates.get(s);
      table.append(
          String.format(
              Locale.ROOT,
              "| %s: %s | %,.0f | %,.0f | %,.0f | %.2f |%n",
              s,
              s.title,
              mean(r),
              r[0],
              r[1],
              mean(r) / a));
    }
    System.out.printf(
        Locale.ROOT, "%n%s%nload at the end %s%n", table, WorkerBenchMain.loadAverage());
  }

  private static double mean(double[] r) {
    return (r[0] + r[1]) / 2;
  }

  /** One run on a fresh file; returns requests per second. */
  private static double run(Shape shape, int seconds) throws Exception {
    Path file = BenchDb.newFile();
    try {
      BenchDb.createRawTables(file, "FULL");
      try (Connection c = BenchDb.raw(file, "FULL")) {
        BenchDb.exec(
            c, "CREATE TABLE effects (scope TEXT NOT NULL, k TEXT NOT NULL, v INTEGER NOT NULL)");
        try (ReceiptBenchmark.RawLoop loop = new ReceiptBenchmark.RawLoop(c);
            Statements st = new Statements(c)) {
          String load = WorkerBenchMain.loadAverage();
          long n = 0;
          long start = System.nanoTime();
          long end = start + seconds * 1_000_000_000L;
          long now;
          while ((now = System.nanoTime()) < end) {
            switch (shape) {
              case A -> {
                st.begin.execute();
                st.row(UUID.randomUUID().toString());
                st.commit.execute();
                n++;
              }
              case B -> {
                loop.step("bench", UUID.randomUUID().toString());
                n++;
              }
              case C -> {
                n += st.plainGroup(4);
              }
            }
          }
          double rate = n / ((now - start) / 1e9);
          long rows = BenchDb.count(c, "SELECT COUNT(*) FROM effects");
          long receipts = BenchDb.count(c, "SELECT COUNT(*) FROM raw_receipts");
          long completed =
              BenchDb.count(c, "SELECT COUNT(*) FROM raw_claims WHERE state = 'COMPLETED'");
          if (rows != n
              || receipts != (shape == Shape.B ? n : 0)
              || completed != (shape == Shape.C ? n : 0)) {
            throw new IllegalStateException(
                "MISMATCH: "
                    + n
                    + " requests, "
                    + rows
                    + " rows, "
                    + receipts
                    + " receipts, "
                    + completed
                    + " completed claims");
          }
          System.out.printf(
              Locale.ROOT,
              "%s %,8.0f requests/s  %,d rows checked, load %s%n",
              shape,
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

  /** The statements of the bare row and of the plain mode's claims, on one connection. */
  private static final class Statements implements AutoCloseable {
    final PreparedStatement begin;
    final PreparedStatement commit;
    final PreparedStatement insert;
    final PreparedStatement lookup;
    final PreparedStatement claim;
    final PreparedStatement complete;

    Statements(Connection c) throws SQLException {
      begin = c.prepareStatement("BEGIN IMMEDIATE");
      commit = c.prepareStatement("COMMIT");
      insert = c.prepareStatement("INSERT INTO effects VALUES ('bench', ?, 1)");
      lookup =
          c.prepareStatement(
              "SELECT state, fence FROM raw_claims WHERE scope = 'bench' AND intent_key = ?");
      claim =
          c.prepareStatement(
              "INSERT INTO raw_claims (scope, intent_key, operation, fingerprint, arguments,"
                  + " state, fence, lease_until, attempts, downstream_key, created_at, updated_at)"
                  + " VALUES ('bench', ?, 'plain', ?, '{\"amount\":1250}', 'IN_PROGRESS', 1, ?, 1, ?,"
                  + " ?, ?)");
      complete =
          c.prepareStatement(
              "UPDATE raw_claims SET state = 'COMPLETED', result = ?, updated_at = ?,"
                  + " completed_at = ?, lease_until = NULL"
                  + " WHERE scope = 'bench' AND intent_key = ? AND fence = 1 AND state = 'IN_PROGRESS'");
    }

    void row(String key) throws SQLException {
      insert.setString(1, key);
      insert.executeUpdate();
    }

    /** Claims {@code k} keys in one commit, a row each in its own, completes them in one. */
    int plainGroup(int k) throws SQLException {
      String[] keys = new String[k];
      long now = System.currentTimeMillis();
      begin.execute();
      for (int i = 0; i < k; i++) {
        keys[i] = UUID.randomUUID().toString();
        lookup.setString(1, keys[i]);
        try (ResultSet rs = lookup.executeQuery()) {
          if (rs.next()) {
            throw new IllegalStateException("a new key was found claimed");
          }
        }
        claim.setString(1, keys[i]);
        claim.setString(2, FINGERPRINT);
        claim.setLong(3, now + 30_000);
        claim.setString(4, keys[i] + "#1");
        claim.setLong(5, now);
        claim.setLong(6, now);
        claim.executeUpdate();
      }
      commit.execute();
      for (String key : keys) {
        begin.execute();
        row(key);
        commit.execute();
      }
      begin.execute();
      for (String key : keys) {
        complete.setString(1, RESPONSE);
        complete.setLong(2, now);
        complete.setLong(3, now);
        complete.setString(4, key);
        if (complete.executeUpdate() != 1) {
          throw new IllegalStateException("a claim was not completed");
        }
      }
      commit.execute();
      return k;
    }

    @Override
    public void close() throws SQLException {
      for (PreparedStatement ps : new PreparedStatement[] {begin, commit, insert, lookup, claim}) {
        ps.close();
      }
      complete.close();
    }
  }

  static final String FINGERPRINT =
      "sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

  /** About the size of the bench's stored response: status, headers, body. */
  static final String RESPONSE =
      "{\"status\":201,\"headers\":{\"Content-Type\":[\"application/json\"]},"
          + "\"body\":\"eyJpZCI6IjEyMzQ1Njc4LTEyMzQtMTIzNC0xMjM0LTEyMzQ1Njc4OTAxMiJ9\"}";
}
