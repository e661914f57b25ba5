package dev.onceonly.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * The one MariaDB server of this test JVM, Debian's {@code mariadbd} started on first use on a free
 * loopback port with a data directory of its own in the temporary directory, and stopped (its data
 * directory deleted) by a JVM shutdown hook, like {@link EmbeddedPg}. Grants are kept, so a test
 * may create a user with fewer rights.
 *
 * <p>Without the server package the tests that need it are skipped with one line saying how to get
 * it (a JUnit abort, as an assumption that failed); with {@code CI=true} in the environment a
 * missing server fails them instead, since CI installs the package and must run them.
 *
 * <p>Every session the tests open runs with {@code time_zone = '+12:45'}, so a timestamp bound or
 * read through the session's zone instead of as UTC shows up as a wrong value.
 */
public final class MariaDbServer {
  /** The session time zone of every connection the tests open (an offset: no zone tables). */
  public static final String SESSION_TIME_ZONE = "+12:45";

  /** Where Debian's {@code mariadb-server} package puts the server. */
  private static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");

  private static final Path INSTALL_DB = Path.of("/usr/bin/mariadb-install-db");
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static int port;
  private static Process server;
  private static boolean toldMissing;

  private MariaDbServer() {}

  /**
   * Whether the server flushes its redo log at every commit ({@code
   * innodb_flush_log_at_trx_commit=1}, with {@code -Donceonly.test.mariadb.durable=true}) rather
   * than about once a second ({@code 0}, the default here: the tests do not test power loss). The
   * binary log is off either way, so {@code sync_binlog} has nothing to sync.
   *
   * @return true if every commit waits for a flush of the redo log
   */
  public static boolean durable() {
    return Boolean.getBoolean("onceonly.test.mariadb.durable");
  }

  /**
   * Returns the process id of the running server, starting it on first use, so that a benchmark can
   * read the server's CPU time.
   *
   * @return the server's process id
   */
  public static synchronized long pid() {
    port();
    return server.pid();
  }

  /**
   * Returns the port of the running server, starting it on first use.
   *
   * @throws org.opentest4j.TestAbortedException if the server is not installed and {@code CI} is
   *     not {@code true}
   */
  public static synchronized int port() {
    if (server == null) {
      requireInstalled();
      start();
    }
    return port;
  }

  private static void requireInstalled() {
    if (Files.isExecutable(MARIADBD) && Files.isExecutable(INSTALL_DB)) {
      return;
    }
    String why =
        "MariaDB tests skipped: no "
            + MARIADBD
            + " (install Debian's mariadb-server package to run them)";
    if ("true".equals(System.getenv("CI"))) {
      throw new IllegalStateException(why + "; CI must run them");
    }
    if (!toldMissing) {
      toldMissing = true; // one line per test JVM, each skipped test says it again in its report
      System.err.println(why);
    }
    Assumptions.abort(why);
  }

  private static void start() {
    Started started = launch(List.of());
    server = started.process();
    port = started.port();
  }

  /** A server this class started: its process, its port and its directory. */
  private record Started(Process process, int port, Path dir) {}

  /**
   * Starts a server of its own, with {@code options} after the ones every test server gets (a later
   * option overrides an earlier one), stopped by a JVM shutdown hook if not before.
   */
  private static Started launch(List<String> options) {
    try {
      Path dir = Files.createTempDirectory("onceonly-mariadb");
      Path data = dir.resolve("data");
      run(
          dir.resolve("install.log"),
          INSTALL_DB.toString(),
          "--no-defaults",
          "--datadir=" + data,
          "--auth-root-authentication-method=normal",
          "--skip-test-db",
          "--user=" + System.getProperty("user.name"));
      int port = freePort();
      List<String> command = new ArrayList<>();
      command.add(MARIADBD.toString());
      command.add("--no-defaults");
      command.add("--datadir=" + data);
      command.add("--socket=" + dir.resolve("mariadb.sock"));
      command.add("--pid-file=" + dir.resolve("mariadb.pid"));
      command.add("--port=" + port);
      command.add("--bind-address=127.0.0.1");
      command.add("--user=" + System.getProperty("user.name"));
      command.add("--skip-log-bin");
      command.add("--max-connections=400");
      command.add("--innodb-buffer-pool-size=64M");
      // A test server: durability on power loss is not under test, waiting for fsync is slow.
      // -Donceonly.test.mariadb.durable=true flushes the redo log at every commit instead, for a
      // benchmark that wants to see what the fsyncs cost.
      command.add("--innodb-flush-log-at-trx-commit=" + (durable() ? 1 : 0));
      // Tables in the system tablespace: each test migrates a new database, and a file per table
      // made that 0.33 s against 0.20 s here (the DDL creates and syncs one file per table).
      command.add("--innodb-file-per-table=0");
      command.add("--max-allowed-packet=64M");
      command.addAll(options);
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("server.log").toFile())
              .start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process, dir)));
      awaitReady(process, port, dir);
      return new Started(process, port, dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start mariadbd", e);
    }
  }

  /**
   * Starts a server of the caller's own on a free loopback port, with {@code options} added to
   * those of the shared one (a later option wins: {@code --log-bin}, {@code --binlog-format=ROW}),
   * for a test that changes the server's global settings; {@link Own#close()} stops it.
   *
   * @throws org.opentest4j.TestAbortedException if the server is not installed and {@code CI} is
   *     not {@code true}
   */
  public static Own own(String... options) {
    synchronized (MariaDbServer.class) {
      requireInstalled();
    }
    return new Own(launch(List.of(options)));
  }

  /** A server of one test's own ({@link #own}), with a root login and databases of its own. */
  public static final class Own implements AutoCloseable {
    private final Started started;

    private Own(Started started) {
      this.started = started;
    }

    /** {@return the server's port on the loopback address} */
    public int port() {
      return started.port();
    }

    /** Creates a new, empty database and returns its name. */
    public String newDatabase(String hint) {
      return create(started.port(), hint);
    }

    /** {@return the JDBC URL of {@code database} as root, in the test time zone} */
    public String url(String database) {
      return zoned(started.port(), database);
    }

    /** Returns a new HikariCP pool on {@code url} (one of {@link #url}); the caller closes it. */
    public HikariDataSource pool(String url, int size) {
      return MariaDbServer.pool(url, "own-" + started.port(), size);
    }

    /** Runs {@code sql} as root in auto-commit, each statement in turn. */
    public void exec(String... sql) {
      try (Connection c = DriverManager.getConnection(root(started.port(), ""));
          Statement s = c.createStatement()) {
        for (String each : sql) {
          s.execute(each);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(String.join("; ", sql), e);
      }
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public void close() {
      stop(started.process(), started.dir());
    }
  }

  private static void run(Path log, String... command) throws IOException {
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + " failed:\n" + Files.readString(log));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Waits until the server takes connections, or fails with its log if it exited. */
  private static void awaitReady(Process process, int port, Path dir) {
    Eventually.await(
        java.time.Duration.ofSeconds(120),
        "mariadbd on port " + port + " accepting connections",
        () -> {
          if (!process.isAlive()) {
            throw new IllegalStateException("mariadbd exited:\n" + log(dir));
          }
          try (Connection c = DriverManager.getConnection(root(port, ""))) {
            return c.isValid(5);
          } catch (SQLException e) {
            return false;
          }
        });
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static void stop(Process server, Path dir) {
    if (!server.isAlive() && !Files.exists(dir)) {
      return; // stopped already
    }
    server.destroy(); // SIGTERM: mariadbd shuts down cleanly
    try {
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    } catch (InterruptedException e) {
      server.destroyForcibly();
    }
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // the temporary directory is the system's to clean then
    }
  }

  private static String root(int port, String database) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=root";
  }

  /** Creates a new, empty database and returns its name. */
  public static String newDatabase(String hint) {
    return create(port(), hint);
  }

  private static String create(int port, String hint) {
    String name = "t" + DATABASES.incrementAndGet() + "_" + hint.toLowerCase(Locale.ROOT);
    name = name.replaceAll("[^a-z0-9_]", "_");
    if (name.length() > 60) {
      name = name.substring(0, 60);
    }
    try (Connection c = DriverManager.getConnection(root(port, ""));
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    return name;
  }

  /**
   * Returns the JDBC URL of {@code database} as root, whose sessions run in the test time zone.
   * (Connector/J 3 sends {@code sessionVariables} at connect, so a pool's every connection has it.)
   */
  public static String url(String database) {
    return zoned(port(), database);
  }

  private static String zoned(int port, String database) {
    return root(port, database) + "&sessionVariables=time_zone='" + SESSION_TIME_ZONE + "'";
  }

  /** Opens a plain connection to {@code database} as root, in auto-commit, in the test zone. */
  public static Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(url(database));
  }

  /** Returns a new HikariCP pool on {@code database}; the caller closes it. */
  public static HikariDataSource pool(String database, int size) {
    return pool(url(database), database, size);
  }

  private static HikariDataSource pool(String url, String database, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setPoolName("mariadb-" + database);
    return new HikariDataSource(config);
  }
}
