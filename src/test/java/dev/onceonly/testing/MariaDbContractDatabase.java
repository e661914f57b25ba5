package dev.onceonly.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * An empty database of its own for one test on the JVM's {@link MariaDbServer}. Every {@link
 * OnceOnly} gets a HikariCP pool of its own, as an application would configure it; "reopening"
 * opens a new instance on a new pool, so nothing survives in a connection. Every session runs in
 * {@link MariaDbServer#SESSION_TIME_ZONE}.
 *
 * <p>{@link #close()} closes every pool; call it after the instances on them are closed.
 */
public final class MariaDbContractDatabase implements ContractDatabase, AutoCloseable {
  /** Pool size per instance: enough for the suites' racing threads, small like a real pool. */
  private static final int POOL_SIZE = 8;

  private final String database;
  private final List<AutoCloseable> pools = new ArrayList<>();

  private MariaDbContractDatabase(String database) {
    this.database = database;
  }

  /** Creates a new empty database on the server (started on first use) and returns it. */
  public static MariaDbContractDatabase create() {
    return new MariaDbContractDatabase(MariaDbServer.newDatabase("contracts"));
  }

  /** Returns the database's name. */
  public String database() {
    return database;
  }

  /** Returns the JDBC URL of this database as root (for child processes and the CLI). */
  public String url() {
    return MariaDbServer.url(database);
  }

  /** Returns a new pool of {@code size} on this database, closed by {@link #close()}. */
  public synchronized HikariDataSource pool(int size) {
    HikariDataSource pool = MariaDbServer.pool(database, size);
    pools.add(pool);
    return pool;
  }

  @Override
  public Dialect dialect() {
    return Dialect.MARIADB;
  }

  @Override
  public OnceOnlyBuilder builder() {
    return OnceOnly.builder().dataSource(pool(POOL_SIZE));
  }

  /**
   * Opens a connection of the test's own on which {@code ||} concatenates, as on SQLite and
   * PostgreSQL ({@code PIPES_AS_CONCAT}), so the suites' checking queries read the same on every
   * database; the library's own pools keep the server's mode.
   */
  @Override
  public Connection connect() throws SQLException {
    Connection c = MariaDbServer.connect(database);
    try (Statement s = c.createStatement()) {
      s.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',PIPES_AS_CONCAT')");
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** Closes every pool. */
  @Override
  public synchronized void close() {
    for (AutoCloseable pool : pools) {
      try {
        pool.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot close a pool of database " + database, e);
      }
    }
    pools.clear();
  }
}
