package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The floors under {@link HttpDbBenchMain}'s rows, from the database alone: raw JDBC, {@code
 * clients} threads each on a connection of its own held in a transaction ({@code autoCommit} off,
 * so a commit is the only statement a transaction adds), statements prepared once, no HTTP and no
 * library code, on the library's own tables created by its migrations in a fresh database. Keys are
 * random UUIDs, as the HTTP bench's are. After each run the rows are counted: one {@code payments}
 * row a request, and a receipt (TX) or a completed claim (PLAIN) for each.
 */
final class HttpDbFloor {
  private HttpDbFloor() {}

  /** The work of one request. */
  enum Shape {
    BARE("the bare endpoint: the row, a commit (2 round trips)"),
    TX(
        "transactional: the receipt's lookup, the row, the receipt's insert, one commit"
            + " (4 round trips)"),
    PLAIN(
        "plain: the claim and a commit, the row and a commit, the completion and a commit"
            + " (6 round trips, 3 commits)");

    final String title;

    Shape(String title) {
      this.title = title;
    }
  }

  /** A floor's run: requests per second, and the CPU a request took in this JVM and the server. */
  record Result(double rate, double jvmMs, double serverMs) {}

  /** One run of {@code seconds} on a fresh database. */
  static Result run(HttpBenchDatabase db, Shape shape, int clients, int seconds) throws Exception {
    String database = db.newDatabase("floor");
    try (HikariDataSource pool = db.pool(database, clients + 1)) {
      OnceOnly.builder().dataSource(pool).build().close(); // the library's tables, by migration
      try (Connection c = pool.getConnection()) {
        c.createStatement()
            .execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL)");
      }
      String load = WorkerBenchMain.loadAverage();
      ExecutorService threads = Executors.newFixedThreadPool(clients);
      List<Future<Long>> done = new ArrayList<>();
      long jvm = HttpBenchDatabase.jvmCpuNanos();
      long server = HttpBenchDatabase.serverCpuNanos();
      long start = System.nanoTime();
      long end = start + seconds * 1_000_000_000L;
      for (int i = 0; i < clients; i++) {
        done.add(threads.submit(() -> loop(db, pool, shape, end)));
      }
      long n = 0;
      for (Future<Long> f : done) {
        n += f.get();
      }
      double rate = n / ((System.nanoTime() - start) / 1e9);
      double jvmMs = (HttpBenchDatabase.jvmCpuNanos() - jvm) / 1e6 / Math.max(1, n);
      double serverMs = (HttpBenchDatabase.serverCpuNanos() - server) / 1e6 / Math.max(1, n);
      threads.shutdown();
      try (Connection c = pool.getConnection()) {
        long rows = BenchDb.count(c, "SELECT COUNT(*) FROM payments");
        long receipts = BenchDb.count(c, "SELECT COUNT(*) FROM onceonly_receipts");
        long completed =
            BenchDb.count(c, "SELECT COUNT(*) FROM onceonly_claims WHERE state = 'COMPLETED'");
        if (rows != n
            || receipts != (shape == Shape.TX ? n : 0)
            || completed != (shape == Shape.PLAIN ? n : 0)) {
          throw new IllegalStateException(
              String.format(
                  Locale.ROOT,
                  "FLOOR MISMATCH %s: %d requests, %d rows, %d receipts, %d completed claims",
                  shape,
                  n,
                  rows,
                  receipts,
                  completed));
        }
      }
      System.out.printf(
          Locale.ROOT,
          "floor %-5s %2d threads %8.0f requests/s  %d rows checked, CPU a request: JVM %.3f ms,"
              + " server %.3f ms; load %s%n",
          shape,
          clients,
          rate,
          n,
          jvmMs,
          serverMs,
          load);
      return new Result(rate, jvmMs, serverMs);
    } finally {
      db.drop(database);
    }
  }

  private static long loop(HttpBenchDatabase db, HikariDataSource pool, Shape shape, long end)
      throws SQLException {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement row = c.prepareStatement("INSERT INTO payments VALUES (?, 1250)");
          PreparedStatement lookup =
              c.prepareStatement(
                  "SELECT result FROM onceonly_receipts WHERE scope = 'bench' AND intent_key = ?");
          PreparedStatement receipt =
              c.prepareStatement(
                  "INSERT INTO onceonly_receipts (scope, intent_key, operation, fingerprint,"
                      + " result, created_at, expires_at, forget_at)"
                      + " VALUES ('bench', ?, 'http.tx', ?, ?, ?, ?, ?)");
          PreparedStatement claim =
              c.prepareStatement(
                  db.insertIfAbsent(
                      "onceonly_claims",
                      "scope, intent_key, operation, fingerprint, arguments, state, fence,"
                          + " lease_until, attempts, downstream_key, created_at, updated_at",
                      "'bench', ?, 'http.plain', ?, '{\"amount\":1250}', 'IN_PROGRESS', 1, ?, 1,"
                          + " ?, ?, ?"));
          PreparedStatement complete =
              c.prepareStatement(
                  "UPDATE onceonly_claims SET state = 'COMPLETED', result = ?, updated_at = ?,"
                      + " completed_at = ?, lease_until = NULL WHERE scope = 'bench'"
                      + " AND intent_key = ? AND fence = 1 AND state = 'IN_PROGRESS'")) {
        long n = 0;
        while (System.nanoTime() < end) {
          String key = UUID.randomUUID().toString();
          long now = System.currentTimeMillis();
          switch (shape) {
            case BARE -> {
              insert(row, key);
              c.commit();
            }
            case TX -> {
              lookup.setString(1, key);
              try (ResultSet rs = lookup.executeQuery()) {
                if (rs.next()) {
                  throw new IllegalStateException("a new key had a receipt");
                }
              }
              insert(row, key);
              receipt.setString(1, key);
              receipt.setString(2, HttpFloorMain.FINGERPRINT);
              receipt.setString(3, HttpFloorMain.RESPONSE);
              receipt.setObject(4, db.at(now));
              receipt.setObject(5, db.at(now + 86_400_000L));
              receipt.setObject(6, db.at(now + 30 * 86_400_000L));
              receipt.executeUpdate();
              c.commit();
            }
            case PLAIN -> {
              claim.setString(1, key);
              claim.setString(2, HttpFloorMain.FINGERPRINT);
              claim.setObject(3, db.at(now + 30_000));
              claim.setString(4, key + "#1");
              claim.setObject(5, db.at(now));
              claim.setObject(6, db.at(now));
              if (claim.executeUpdate() != 1) {
                throw new IllegalStateException("a new key was claimed already");
              }
              c.commit();
              insert(row, key);
              c.commit();
              complete.setString(1, HttpFloorMain.RESPONSE);
              complete.setObject(2, db.at(now));
              complete.setObject(3, db.at(now));
              complete.setString(4, key);
              if (complete.executeUpdate() != 1) {
                throw new IllegalStateException("a claim was not completed");
              }
              c.commit();
            }
          }
          n++;
        }
        return n;
      }
    }
  }

  private static void insert(PreparedStatement row, String key) throws SQLException {
    row.setString(1, key);
    row.executeUpdate();
  }
}
