package dev.onceonly.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * One fresh database for one measured run of {@link WorkerBenchMain}: a new SQLite file, or a new
 * database on the embedded PostgreSQL or on the tests' MariaDB server ({@link MariaDbServer}), with
 * the business table {@code done(job_key TEXT PRIMARY KEY)} ({@code VARCHAR(255)} on MariaDB, which
 * indexes no {@code TEXT} without a length) every system writes one row into per job.
 *
 * <p>Every system gets the same SQLite settings (WAL, the same {@code synchronous}, a 60 s {@code
 * busy_timeout}): OnceOnly through its builder, the peers through a HikariCP pool over a {@link
 * SQLiteDataSource} configured with the same pragmas.
 */
final class WorkerBenchStore implements AutoCloseable {
  /** The databases a case runs on. */
  enum Kind {
    SQLITE_FULL("SQLite FULL"),
    SQLITE_NORMAL("SQLite NORMAL"),
    POSTGRES("PostgreSQL"),
    MARIADB("MariaDB");

    final String title;

    Kind(String title) {
      this.title = title;
    }

    boolean sqlite() {
      return this == SQLITE_FULL || this == SQLITE_NORMAL;
    }

    String synchronous() {
      return this == SQLITE_NORMAL ? "NORMAL" : "FULL";
    }
  }

  final Kind kind;
  private final Path file;
  private final String database;
  private final List<Runnable> closers = new ArrayList<>();

  private WorkerBenchStore(Kind kind, Path file, String database) {
    this.kind = kind;
    this.file = file;
    this.database = database;
  }

  static WorkerBenchStore create(Kind kind) throws SQLException {
    WorkerBenchStore store =
        switch (kind) {
          case SQLITE_FULL, SQLITE_NORMAL -> new WorkerBenchStore(kind, BenchDb.newFile(), null);
          case POSTGRES -> new WorkerBenchStore(kind, null, EmbeddedPg.newDatabase("worker"));
          case MARIADB -> new WorkerBenchStore(kind, null, MariaDbServer.newDatabase("worker"));
        };
    try (Connection c = store.connect()) {
      BenchDb.exec(
          c,
          kind == Kind.MARIADB
              ? "CREATE TABLE done (job_key VARCHAR(255) PRIMARY KEY)"
              : "CREATE TABLE done (job_key TEXT PRIMARY KEY)");
    }
    return store;
  }

  /** A plain connection in auto-commit, for setup and counting. */
  Connection connect() throws SQLException {
    return switch (kind) {
      case SQLITE_FULL, SQLITE_NORMAL -> BenchDb.raw(file, kind.synchronous());
      case POSTGRES -> EmbeddedPg.connect(database);
      case MARIADB -> MariaDbServer.connect(database);
    };
  }

  /** A pool of {@code size} connections, closed with this store. */
  HikariDataSource pool(int size) {
    HikariDataSource pool;
    if (kind.sqlite()) {
      SQLiteConfig config = new SQLiteConfig();
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
      config.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(kind.synchronous()));
      config.setBusyTimeout(60_000);
      SQLiteDataSource sqlite = new SQLiteDataSource(config);
      sqlite.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
      HikariConfig hikari = new HikariConfig();
      hikari.setDataSource(sqlite);
      hikari.setMaximumPoolSize(size);
      hikari.setMinimumIdle(0);
      hikari.setPoolName("bench-sqlite");
      pool = new HikariDataSource(hikari);
    } else if (kind == Kind.MARIADB) {
      pool = MariaDbServer.pool(database, size);
    } else {
      pool = EmbeddedPg.pool(database, size);
    }
    closers.add(pool::close);
    return pool;
  }

  /**
   * OnceOnly on this database (PostgreSQL or MariaDB through a pool of {@code size}), closed with
   * it.
   */
  OnceOnly onceOnly(int size) {
    return onceOnly(size, b -> {});
  }

  /** As {@link #onceOnly(int)}, with the builder's settings changed by {@code settings}. */
  OnceOnly onceOnly(int size, java.util.function.Consumer<OnceOnlyBuilder> settings) {
    OnceOnlyBuilder builder =
        kind.sqlite()
            ? BenchDb.builder(file, kind.synchronous())
            : OnceOnly.builder().dataSource(pool(size));
    settings.accept(builder);
    OnceOnly once = builder.build();
    closers.add(0, once::close);
    return once;
  }

  long count(String sql) throws SQLException {
    try (Connection c = connect()) {
      return BenchDb.count(c, sql);
    }
  }

  long doneRows() throws SQLException {
    return count("SELECT COUNT(*) FROM done");
  }

  /** The one unit of business work: one row in {@code done}, on the caller's connection. */
  static void insertDone(Connection c, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO done (job_key) VALUES (?)")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
  }

  /** The same work in a transaction of its own, for the peers that hand out no connection. */
  static void insertDone(DataSource ds, String key) throws SQLException {
    try (Connection c = ds.getConnection()) {
      insertDone(c, key);
    }
  }

  @Override
  public void close() throws SQLException {
    for (Runnable c : closers) {
      c.run();
    }
    if (file != null) {
      BenchDb.delete(file);
    } else {
      try (Connection c =
          kind == Kind.MARIADB ? MariaDbServer.connect("") : EmbeddedPg.connect("postgres")) {
        BenchDb.exec(c, "DROP DATABASE IF EXISTS " + database);
      }
    }
  }
}
