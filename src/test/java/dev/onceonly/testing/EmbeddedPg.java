package dev.onceonly.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The embedded PostgreSQL servers of this test JVM, each started on first use, shared by every test
 * class, stopped by a JVM shutdown hook. Tests keep out of each other's way with a database of
 * their own ({@link #newDatabase}).
 *
 * <ul>
 *   <li>The static methods reach the <em>fast</em> server, which runs with {@code fsync}, {@code
 *       synchronous_commit} and {@code full_page_writes} off: the contract suites check what the
 *       library does, not what the disk keeps, and run about a fifth quicker so.
 *   <li>{@link #durable()} is a second server with all three on, as PostgreSQL ships: the tests
 *       that claim something survives a crash, a restart or a SIGKILL run there, so that what they
 *       prove holds on a server that keeps what it answers.
 * </ul>
 *
 * <p>Every session runs with {@code TimeZone=Pacific/Chatham} (UTC+12:45 or +13:45), so a timestamp
 * bound or read through the session's zone instead of as an instant shows up as a wrong value.
 */
public final class EmbeddedPg {
  /** The session time zone of every connection the tests open. */
  public static final String SESSION_TIME_ZONE = "Pacific/Chatham";

  /**
   * The statement that puts a new session in the test time zone. (The driver sends the JVM's zone
   * as a startup parameter, which wins over the server's setting and over {@code options}.)
   */
  public static final String SET_TIME_ZONE = "SET TIME ZONE '" + SESSION_TIME_ZONE + "'";

  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static final Server FAST = new Server("off");
  private static final Server DURABLE = new Server("on");

  private EmbeddedPg() {}

  /** Returns the running fast server, starting it on first use. */
  public static EmbeddedPostgres server() {
    return FAST.postgres();
  }

  /** Returns the fast server ({@code fsync} off), which the static methods reach. */
  public static Server fast() {
    return FAST;
  }

  /**
   * Returns the durable server ({@code fsync}, {@code synchronous_commit} and {@code
   * full_page_writes} on), started on first use.
   */
  public static Server durable() {
    return DURABLE;
  }

  /** Creates a new, empty database on the fast server and returns its name. */
  public static String newDatabase(String hint) {
    return FAST.newDatabase(hint);
  }

  /** Returns the JDBC URL of {@code database} on the fast server. */
  public static String url(String database) {
    return FAST.url(database);
  }

  /** Returns the connection properties every test connection uses. */
  public static Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    return p;
  }

  /** Opens a plain connection to {@code database} on the fast server, in the test time zone. */
  public static Connection connect(String database) throws SQLException {
    return FAST.connect(database);
  }

  /** Returns a new HikariCP pool on {@code database} of the fast server; the caller closes it. */
  public static HikariDataSource pool(String database, int size) {
    return FAST.pool(database, size, null);
  }

  /**
   * Returns a new HikariCP pool on {@code database} of the fast server whose sessions use {@code
   * schema} (null: the default); the caller closes it.
   */
  public static HikariDataSource pool(String database, int size, String schema) {
    return FAST.pool(database, size, schema);
  }

  /** One embedded server, with its durability settings; started on first use. */
  public static final class Server {
    private final String durability;
    private EmbeddedPostgres postgres;

    private Server(String durability) {
      this.durability = durability;
    }

    /** Returns the running server, starting it on first use. */
    public synchronized EmbeddedPostgres postgres() {
      if (postgres == null) {
        try {
          postgres =
              EmbeddedPostgres.builder()
                  .setServerConfig("timezone", SESSION_TIME_ZONE)
                  .setServerConfig("max_connections", "300")
                  .setServerConfig("fsync", durability)
                  .setServerConfig("synchronous_commit", durability)
                  .setServerConfig("full_page_writes", durability)
                  .setRegisterShutdownHook(true)
                  .start();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
      }
      return postgres;
    }

    /** Creates a new, empty database and returns its name. */
    public String newDatabase(String hint) {
      String name =
          "t" + DATABASES.incrementAndGet() + "_" + hint.toLowerCase(java.util.Locale.ROOT);
      name = name.replaceAll("[^a-z0-9_]", "_");
      if (name.length() > 60) {
        name = name.substring(0, 60);
      }
      try (Connection c = connect("postgres");
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + name);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create database " + name, e);
      }
      return name;
    }

    /** Returns the JDBC URL of {@code database}. */
    public String url(String database) {
      return postgres().getJdbcUrl("postgres", database);
    }

    /** Opens a plain connection to {@code database}, in auto-commit, in the test time zone. */
    public Connection connect(String database) throws SQLException {
      Connection c = DriverManager.getConnection(url(database), properties());
      try (Statement s = c.createStatement()) {
        s.execute(SET_TIME_ZONE);
      } catch (SQLException e) {
        c.close();
        throw e;
      }
      return c;
    }

    /**
     * Returns a new HikariCP pool on {@code database} whose sessions use {@code schema} (null: the
     * default); the caller closes it.
     */
    public HikariDataSource pool(String database, int size, String schema) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url(database));
      if (schema != null) {
        config.setSchema(schema);
      }
      config.setDataSourceProperties(properties());
      config.setMaximumPoolSize(size);
      config.setMinimumIdle(0);
      config.setConnectionInitSql(SET_TIME_ZONE);
      config.setPoolName("pg-" + database);
      return new HikariDataSource(config);
    }
  }
}
