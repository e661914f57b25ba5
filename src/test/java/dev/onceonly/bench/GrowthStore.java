package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.testing.EmbeddedPg;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * One store of {@link GrowthBenchMain}: a fresh SQLite file (opened as the docs tell users, {@code
 * OnceOnly.builder().sqlite(path)}: WAL, {@code synchronous=FULL}) or a fresh database on the
 * embedded PostgreSQL of the tests ({@link EmbeddedPg}, {@code fsync} off), with the library's
 * tables (its migrations ran when the store was first opened) and the business table {@code
 * effects} of the receipts step. The seeding writes straight into the library's tables with one
 * set-based statement per batch (SQLite a recursive CTE, PostgreSQL {@code generate_series}), rows
 * shaped like the ones the library writes: UUID-shaped keys in ascending order, {@code jcs-sha256:}
 * fingerprints of 64 hex digits, small JSON results and payloads, the default retentions.
 */
abstract class GrowthStore implements AutoCloseable {
  /** Rows a seeding statement writes, each statement its own transaction. */
  static final long SEED_BATCH = 500_000;

  static final String PREFIX = OnceOnly.DEFAULT_TABLE_PREFIX;
  static final long DAY = 86_400_000L;

  /** A new SQLite store or a new database on the embedded PostgreSQL, by {@code db}. */
  static GrowthStore create(String db) throws SQLException {
    GrowthStore s = db.equals("sqlite") ? new Sqlite() : new Postgres();
    try (OnceOnly once = s.open(b -> b)) {
      once.maintenance().status(); // the migrations ran
    }
    try (Connection c = s.raw()) {
      BenchDb.exec(
          c, "CREATE TABLE effects (scope TEXT NOT NULL, k TEXT NOT NULL, v INTEGER NOT NULL)");
    }
    return s;
  }

  /** The title of the database in tables. */
  abstract String title();

  /** The library on this store, with {@code extra} settings (a queue's limits); caller closes. */
  abstract OnceOnly open(UnaryOperator<OnceOnlyBuilder> extra);

  /** A plain connection in auto-commit. */
  abstract Connection raw() throws SQLException;

  /** The bytes this store takes on disk (files, or the database's size). */
  abstract long diskBytes() throws SQLException;

  /** Inserts receipts {@code from} to {@code to - 1} of {@code scope}; expired when asked. */
  abstract void seedReceipts(Connection c, String scope, long from, long to, boolean expired)
      throws SQLException;

  /**
   * Inserts messages {@code from} to {@code to - 1} into {@code queue}: due when {@code mix} is
   * false (in {@code partitions} partitions when above 0), else half due, a quarter leased and a
   * quarter delayed, as {@link DashboardBenchMain} writes them.
   */
  abstract void seedMessages(
      Connection c, String queue, long from, long to, int partitions, boolean mix)
      throws SQLException;

  /** The plan of {@code sql} with its figures, one line a row. */
  abstract List<String> explain(Connection c, String sql) throws SQLException;

  /** Inserts receipts in batches of {@link #SEED_BATCH}, each its own transaction. */
  void receipts(String scope, long from, long to, boolean expired) throws SQLException {
    try (Connection c = raw()) {
      for (long a = from; a < to; a += SEED_BATCH) {
        seedReceipts(c, scope, a, Math.min(to, a + SEED_BATCH), expired);
      }
    }
  }

  /** Inserts messages in batches of {@link #SEED_BATCH}, each its own transaction. */
  void messages(String queue, long from, long to, int partitions, boolean mix) throws SQLException {
    try (Connection c = raw()) {
      for (long a = from; a < to; a += SEED_BATCH) {
        seedMessages(c, queue, a, Math.min(to, a + SEED_BATCH), partitions, mix);
      }
    }
  }

  /** Refreshes the planner's statistics after a seeding, as autovacuum would in time. */
  void analyze() throws SQLException {}

  /** Runs one statement in auto-commit (so one transaction) with {@code params} bound. */
  static void update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      ps.executeUpdate();
    }
  }

  long count(String sql) throws SQLException {
    try (Connection c = raw()) {
      return BenchDb.count(c, sql);
    }
  }

  /** The SQLite file in WAL mode, in a temporary directory of its own. */
  static final class Sqlite extends GrowthStore {
    private final Path file = BenchDb.newFile();

    @Override
    String title() {
      return "SQLite FULL";
    }

    @Override
    OnceOnly open(UnaryOperator<OnceOnlyBuilder> extra) {
      return extra.apply(OnceOnly.builder().sqlite(file)).build();
    }

    @Override
    Connection raw() throws SQLException {
      Connection c = BenchDb.raw(file, "FULL");
      BenchDb.exec(c, "PRAGMA cache_size = -262144"); // 256 MB for the seeding's index pages
      return c;
    }

    @Override
    long diskBytes() {
      try (Stream<Path> files = Files.list(file.getParent())) {
        long total = 0;
        for (Path p : files.toList()) {
          total += Files.size(p);
        }
        return total;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    void seedReceipts(Connection c, String scope, long from, long to, boolean expired)
        throws SQLException {
      long now = System.currentTimeMillis();
      // created_at rises with x, one millisecond apart, and ends before now; an expired receipt
      // was created 31 days ago, so its result (30 days) is past expiry and its tombstone is not.
      long base = now - (expired ? 31 * DAY : 0) - to;
      String sql =
          "WITH RECURSIVE s(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM s WHERE x < ?)"
              + " INSERT INTO "
              + PREFIX
              + "receipts (scope, intent_key, operation, fingerprint, result, created_at,"
              + " expires_at, forget_at)"
              + " SELECT ?, printf('%08x-%04x-4%03x-a%03x-%012x', x, abs(random()) % 65536,"
              + " abs(random()) % 4096, abs(random()) % 4096, abs(random()) % 281474976710656),"
              + " 'charge', 'jcs-sha256:' || lower(hex(randomblob(32))),"
              + " '{\"status\":\"paid\",\"charge\":' || x || ',\"amount\":1999}',"
              + " ? + x, ? + x + 30 * ?, ? + x + 365 * ? FROM s";
      update(c, sql, from, to - 1, scope, base, base, DAY, base, DAY);
    }

    @Override
    void seedMessages(Connection c, String queue, long from, long to, int partitions, boolean mix)
        throws SQLException {
      long now = System.currentTimeMillis();
      String sql =
          "WITH RECURSIVE s(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM s WHERE x < ?)"
              + " INSERT INTO "
              + PREFIX
              + "messages (queue, message_key, fingerprint, payload, deliver_at, leased,"
              + " partition_key, created_at)"
              + " SELECT ?, 'order-' || x, 'jcs-sha256:' || lower(hex(randomblob(32))),"
              + " '{\"orderId\":' || x || ',\"amount\":1999,\"currency\":\"EUR\"}',"
              + (mix
                  ? "CASE WHEN x % 4 < 2 THEN ? - 1000 ELSE ? + 3600000 END,"
                  : "? - 1000 + 0 * ?,")
              + (mix ? " CASE WHEN x % 4 = 2 THEN 1 ELSE 0 END," : " 0,")
              + (partitions > 0 ? " 'tenant-' || (x % " + partitions + ")," : " NULL,")
              + " ? FROM s";
      update(c, sql, from, to - 1, queue, now, now, now);
    }

    @Override
    List<String> explain(Connection c, String sql) throws SQLException {
      List<String> lines = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
        while (rs.next()) {
          lines.add(rs.getString(4));
        }
      }
      return lines;
    }

    @Override
    public void close() {
      BenchDb.delete(file);
    }
  }

  /** A database of its own on the embedded PostgreSQL, the library through a HikariCP pool. */
  static final class Postgres extends GrowthStore {
    private final String database = EmbeddedPg.newDatabase("growth");
    private final HikariDataSource pool = EmbeddedPg.pool(database, 24);

    @Override
    String title() {
      return "PostgreSQL";
    }

    @Override
    OnceOnly open(UnaryOperator<OnceOnlyBuilder> extra) {
      return extra.apply(OnceOnly.builder().dataSource(pool)).build();
    }

    @Override
    Connection raw() throws SQLException {
      return EmbeddedPg.connect(database);
    }

    @Override
    void analyze() throws SQLException {
      try (Connection c = raw()) {
        BenchDb.exec(c, "ANALYZE");
      }
    }

    @Override
    long diskBytes() throws SQLException {
      return count("SELECT pg_database_size(current_database())");
    }

    @Override
    void seedReceipts(Connection c, String scope, long from, long to, boolean expired)
        throws SQLException {
      String sql =
          "INSERT INTO "
              + PREFIX
              + "receipts (scope, intent_key, operation, fingerprint, result, created_at,"
              + " expires_at, forget_at)"
              + " SELECT ?, lpad(to_hex(x), 8, '0') || '-' || substr(h, 1, 4) || '-4'"
              + " || substr(h, 5, 3) || '-a' || substr(h, 8, 3) || '-' || substr(h, 11, 12),"
              + " 'charge', 'jcs-sha256:' || encode(sha256(h::bytea), 'hex'),"
              + " '{\"status\":\"paid\",\"charge\":' || x || ',\"amount\":1999}',"
              + " t, t + interval '30 days', t + interval '365 days'"
              + " FROM (SELECT x, md5(x::text || ?) AS h,"
              + " now() - (? + ? - x) * interval '1 millisecond' AS t"
              + " FROM generate_series(?::bigint, ?::bigint) x) s";
      update(c, sql, scope, scope, expired ? 31 * DAY : 0, to, from, to - 1);
    }

    @Override
    void seedMessages(Connection c, String queue, long from, long to, int partitions, boolean mix)
        throws SQLException {
      String sql =
          "INSERT INTO "
              + PREFIX
              + "messages (queue, message_key, fingerprint, payload, deliver_at, leased,"
              + " partition_key, created_at)"
              + " SELECT ?, 'order-' || x, 'jcs-sha256:' || encode(sha256(x::text::bytea), 'hex'),"
              + " '{\"orderId\":' || x || ',\"amount\":1999,\"currency\":\"EUR\"}',"
              + (mix
                  ? " CASE WHEN x % 4 < 2 THEN now() - interval '1 second'"
                      + " ELSE now() + interval '1 hour' END,"
                  : " now() - interval '1 second',")
              + (mix ? " CASE WHEN x % 4 = 2 THEN 1 ELSE 0 END," : " 0,")
              + (partitions > 0 ? " 'tenant-' || (x % " + partitions + ")," : " NULL,")
              + " now() FROM generate_series(?::bigint, ?::bigint) x";
      update(c, sql, queue, from, to - 1);
    }

    @Override
    List<String> explain(Connection c, String sql) throws SQLException {
      List<String> lines = new ArrayList<>();
      try (Statement s = c.createStatement();
          // the statistics views are read as they are: their rows are the evidence, not a plan
          ResultSet rs =
              s.executeQuery(
                  sql.contains("pg_stat_user_tables")
                      ? sql
                      : "EXPLAIN (ANALYZE, BUFFERS) " + sql)) {
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          StringBuilder line = new StringBuilder();
          for (int i = 1; i <= columns; i++) {
            line.append(i > 1 ? " | " : "").append(rs.getString(i));
          }
          lines.add(line.toString());
        }
      }
      return lines;
    }

    @Override
    public void close() throws SQLException {
      pool.close();
      try (Connection c = EmbeddedPg.connect("postgres")) {
        BenchDb.exec(c, "DROP DATABASE IF EXISTS " + database);
      }
    }
  }
}
