package dev.onceonly.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An empty schema of its own for one test on the JVM's {@link EmbeddedPg} server. Every {@link
 * OnceOnly} gets a HikariCP pool of its own (the {@code dataSource} path, as an application would
 * configure it); "reopening" opens a new instance on a new pool, so nothing survives in a
 * connection. Every session runs in the {@link EmbeddedPg#SESSION_TIME_ZONE}, and {@code
 * search_path} is the test's schema, so the suites' unqualified table names reach it.
 *
 * <p>{@link #close()} closes every pool; call it after the instances on them are closed.
 */
public final class PostgresContractDatabase implements ContractDatabase, AutoCloseable {
  private static final String DATABASE = "contracts";
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static String database;

  /** Pool size per instance: enough for the suites' racing threads, small like a real pool. */
  private static final int POOL_SIZE = 8;

  private final String schema;
  private final List<HikariDataSource> pools = new ArrayList<>();

  private PostgresContractDatabase(String schema) {
    this.schema = schema;
  }

  /** Creates a new empty schema and returns a database on it. */
  public static PostgresContractDatabase create() {
    String schema = "s" + SCHEMAS.incrementAndGet();
    try (Connection c = EmbeddedPg.connect(database());
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create schema " + schema, e);
    }
    return new PostgresContractDatabase(schema);
  }

  private static synchronized String database() {
    if (database == null) {
      database = EmbeddedPg.newDatabase(DATABASE);
    }
    return database;
  }

  /** Returns the schema's name. */
  public String schema() {
    return schema;
  }

  /** Returns a JDBC URL whose sessions use this schema (for child processes). */
  public String url() {
    String base = EmbeddedPg.url(database());
    return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  /** Returns a new pool of {@code size} on this schema, closed by {@link #close()}. */
  public synchronized HikariDataSource pool(int size) {
    HikariDataSource pool = EmbeddedPg.pool(database(), size, schema);
    pools.add(pool);
    return pool;
  }

  @Override
  public Dialect dialect() {
    return Dialect.POSTGRESQL;
  }

  @Override
  public OnceOnly.Builder builder() {
    return OnceOnly.builder().dataSource(pool(POOL_SIZE));
  }

  @Override
  public Connection connect() throws SQLException {
    Connection c = EmbeddedPg.connect(database());
    try (Statement s = c.createStatement()) {
      s.execute("SET search_path TO " + schema);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  @Override
  public void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
  }

  @Override
  public void commit(Connection c) throws SQLException {
    c.commit();
    c.setAutoCommit(true);
  }

  @Override
  public void rollback(Connection c) throws SQLException {
    c.rollback();
    c.setAutoCommit(true);
  }

  @Override
  public synchronized void close() {
    pools.forEach(HikariDataSource::close);
    pools.clear();
  }
}
