package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Where one run of {@link ReceiptsBenchMain} keeps its tables: a fresh SQLite file (WAL, {@code
 * synchronous=FULL}) or a fresh database on the tests' MariaDB server ({@link MariaDbServer}), each
 * with the library's tables, the same tables under the prefix {@code raw_} for the raw loops, and
 * the business table {@code effects}.
 */
abstract class ReceiptsBenchDb implements AutoCloseable {
  /** The databases the harness runs on, chosen with {@code db=sqlite} or {@code db=mariadb}. */
  enum Kind {
    SQLITE("FULL"),
    MARIADB("MariaDB");

    final String title;

    Kind(String title) {
      this.title = title;
    }

    static Kind parse(String name) {
      return switch (name.toLowerCase(Locale.ROOT)) {
        case "sqlite" -> SQLITE;
        case "mariadb" -> MARIADB;
        default -> throw new IllegalArgumentException("db must be sqlite or mariadb: " + name);
      };
    }
  }

  /** A new, empty database of {@code kind} with every table the harness uses. */
  static ReceiptsBenchDb create(Kind kind, int connections) throws SQLException {
    ReceiptsBenchDb db =
        kind == Kind.SQLITE ? new Sqlite() : new MariaDb(MariaDbServer.newDatabase("receipts"));
    db.createTables(connections);
    return db;
  }

  /** The library on this database, opened as the harness measures it; the caller closes it. */
  abstract OnceOnly open();

  /** A plain connection in auto-commit, for the raw loops, the prefill and the counts. */
  abstract Connection raw() throws SQLException;

  /** The raw per-step loop on {@code c}, in this database's SQL. */
  abstract ReceiptBenchmark.RawLoop loop(Connection c) throws SQLException;

  abstract void createTables(int connections) throws SQLException;

  @Override
  public abstract void close() throws SQLException;

  /** A temporary SQLite file, the library opened as {@link ReceiptBenchmark} opens it. */
  static final class Sqlite extends ReceiptsBenchDb {
    static final String SYNC = "FULL";
    private final Path file = BenchDb.newFile();

    @Override
    void createTables(int connections) throws SQLException {
      BenchDb.open(file, SYNC).close();
      BenchDb.createRawTables(file, SYNC);
      try (Connection c = raw()) {
        BenchDb.exec(
            c, "CREATE TABLE effects (scope TEXT NOT NULL, k TEXT NOT NULL, v INTEGER NOT NULL)");
      }
    }

    @Override
    OnceOnly open() {
      return BenchDb.open(file, SYNC);
    }

    @Override
    Connection raw() throws SQLException {
      return BenchDb.raw(file, SYNC);
    }

    @Override
    ReceiptBenchmark.RawLoop loop(Connection c) throws SQLException {
      return new ReceiptBenchmark.RawLoop(c);
    }

    @Override
    public void close() {
      BenchDb.delete(file);
    }
  }

  /**
   * A database on the tests' {@code mariadbd}: the library through a HikariCP pool, the raw loops
   * on plain connections in {@code READ COMMITTED}, as the library runs its transactions there.
   */
  static final class MariaDb extends ReceiptsBenchDb {
    private final String database;
    private HikariDataSource pool;

    MariaDb(String database) {
      this.database = database;
    }

    @Override
    void createTables(int connections) throws SQLException {
      pool = MariaDbServer.pool(database, connections);
      OnceOnly.builder().dataSource(pool).build().close();
      OnceOnly.builder().dataSource(pool).tablePrefix("raw_").build().close();
      try (Connection c = raw()) {
        BenchDb.exec(
            c,
            "CREATE TABLE effects (scope VARCHAR(255) NOT NULL, k VARCHAR(255) NOT NULL,"
                + " v INT NOT NULL)");
      }
    }

    @Override
    OnceOnly open() {
      return OnceOnly.builder().dataSource(pool).build();
    }

    @Override
    Connection raw() throws SQLException {
      Connection c = MariaDbServer.connect(database);
      BenchDb.exec(c, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
      return c;
    }

    @Override
    ReceiptBenchmark.RawLoop loop(Connection c) throws SQLException {
      return ReceiptBenchmark.RawLoop.mariaDb(c);
    }

    @Override
    public void close() throws SQLException {
      pool.close();
      try (Connection c = MariaDbServer.connect("")) {
        BenchDb.exec(c, "DROP DATABASE IF EXISTS " + database);
      }
    }
  }
}
