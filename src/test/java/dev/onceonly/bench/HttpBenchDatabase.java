package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.MariaDbServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The server under {@link HttpDbBenchMain} and {@link HttpDbFloor}: the tests' embedded PostgreSQL
 * or the tests' {@code mariadbd}, started once for the run, with a fresh database for every run.
 */
enum HttpBenchDatabase {
  POSTGRESQL,
  MARIADB;

  /** Whether the server keeps every commit it answers ({@code durable=1}). */
  private static boolean durable;

  /** The server's process: MariaDB's {@code mariadbd}, PostgreSQL's postmaster. */
  private static long serverPid;

  /** The length of a clock tick of {@code /proc/PID/stat}: {@code getconf CLK_TCK} is 100. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  /** {@return the database named by {@code db=}} */
  static HttpBenchDatabase of(String name) {
    return valueOf(name.trim().toUpperCase(Locale.ROOT));
  }

  /**
   * Starts the server: {@code durable} the one that syncs every commit (PostgreSQL's {@code fsync},
   * {@code synchronous_commit} and {@code full_page_writes} on; MariaDB's {@code
   * innodb_flush_log_at_trx_commit=1}), else the tests' fast one. Returns its settings, for the
   * output.
   */
  String start(boolean durableServer) throws SQLException {
    durable = durableServer;
    if (this == MARIADB && durable) {
      System.setProperty("onceonly.test.mariadb.durable", "true"); // read when the server starts
    }
    String db = newDatabase("settings");
    try (HikariDataSource pool = pool(db, 1);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                this == POSTGRESQL
                    ? "SELECT version(), current_setting('fsync'),"
                        + " current_setting('synchronous_commit'),"
                        + " current_setting('full_page_writes'), current_setting('wal_level'),"
                        + " current_setting('shared_buffers')"
                    : "SELECT version(), @@innodb_flush_log_at_trx_commit, @@log_bin,"
                        + " @@sync_binlog, @@innodb_buffer_pool_size, @@innodb_file_per_table")) {
      rs.next();
      serverPid = this == MARIADB ? MariaDbServer.pid() : parentOf(backendPid(c));
      String[] names =
          this == POSTGRESQL
              ? new String[] {"fsync", "synchronous_commit", "full_page_writes", "wal_level"}
              : new String[] {
                "innodb_flush_log_at_trx_commit",
                "log_bin",
                "sync_binlog",
                "innodb_buffer_pool_size"
              };
      StringBuilder out = new StringBuilder(rs.getString(1).split(",")[0]);
      for (int i = 0; i < names.length; i++) {
        out.append(", ").append(names[i]).append('=').append(rs.getString(i + 2));
      }
      if (this == POSTGRESQL) {
        out.append(", shared_buffers=").append(rs.getString(6));
      } else {
        out.append(", innodb_file_per_table=").append(rs.getString(6));
      }
      return out.toString();
    } finally {
      drop(db);
    }
  }

  private static long backendPid(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Fields 4 on of {@code /proc/PID/stat} (from the state on), or null if it is gone. */
  private static String[] stat(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    } catch (IOException | RuntimeException e) {
      return null; // a process that ended while we read
    }
  }

  private static long parentOf(long pid) {
    return Long.parseLong(stat(Path.of("/proc", Long.toString(pid)))[1]);
  }

  /**
   * The server's CPU time so far, user and system: the server process and its children alive now
   * (PostgreSQL's backends, writers and launcher; {@code mariadbd} is one process). A backend that
   * ended since the last reading takes its time with it: read around a window in which the pool
   * keeps its connections.
   */
  static long serverCpuNanos() {
    long ticks = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        String[] f = stat(p);
        if (f != null && (Long.parseLong(name) == serverPid || Long.parseLong(f[1]) == serverPid)) {
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ticks * NANOS_PER_TICK;
  }

  /** This JVM's CPU time so far, user and system, read as the server's is. */
  static long jvmCpuNanos() {
    String[] f = stat(Path.of("/proc/self"));
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
  }

  /** Creates a new, empty database and returns its name. */
  String newDatabase(String hint) {
    return this == POSTGRESQL
        ? (durable ? EmbeddedPg.durable().newDatabase(hint) : EmbeddedPg.newDatabase(hint))
        : MariaDbServer.newDatabase(hint);
  }

  /** A new HikariCP pool of {@code size} on {@code database}, as the tests configure one. */
  HikariDataSource pool(String database, int size) {
    return this == POSTGRESQL
        ? (durable ? EmbeddedPg.durable() : EmbeddedPg.fast()).pool(database, size, null)
        : MariaDbServer.pool(database, size);
  }

  /** Drops {@code database} (its pools closed), so that runs do not fill the disk. */
  void drop(String database) throws SQLException {
    try (Connection c =
            this == POSTGRESQL
                ? (durable ? EmbeddedPg.durable() : EmbeddedPg.fast()).connect("postgres")
                : MariaDbServer.connect("");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE " + database);
    }
  }

  /** {@code millis} as this database's driver binds a timestamp column of the library's. */
  Object at(long millis) {
    Instant i = Instant.ofEpochMilli(millis);
    return this == POSTGRESQL
        ? OffsetDateTime.ofInstant(i, ZoneOffset.UTC)
        : LocalDateTime.ofInstant(i, ZoneOffset.UTC);
  }

  /** {@code INSERT} that does nothing where the key is taken, for a claim. */
  String insertIfAbsent(String table, String columns, String values) {
    return this == POSTGRESQL
        ? "INSERT INTO "
            + table
            + " ("
            + columns
            + ") VALUES ("
            + values
            + ") ON CONFLICT DO NOTHING"
        : "INSERT IGNORE INTO " + table + " (" + columns + ") VALUES (" + values + ")";
  }
}
