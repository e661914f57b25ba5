package dev.onceonly.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An empty schema of its own for one test on one of the JVM's {@link EmbeddedPg} servers (the fast
 * one unless {@link #durable()}). Every {@link OnceOnly} gets a HikariCP pool of its own (the
 * {@code dataSource} path, as an application would configure it); "reopening" opens a new instance
 * on a new pool, so nothing survives in a connection. Every session runs in the {@link
 * EmbeddedPg#SESSION_TIME_ZONE}, and {@code search_path} is the test's schema, so the suites'
 * unqualified table names reach it.
 *
 * <p>{@link #transactionPooled()} gives a variant whose instances get a {@link
 * TransactionPoolingDataSource} instead: a few physical connections, reset with {@code DISCARD ALL}
 * each time one is given back, as behind PgBouncer in transaction mode.
 *
 * <p>{@link #close()} closes every pool; call it after the instances on them are closed.
 */
public final class PostgresContractDatabase implements ContractDatabase, AutoCloseable {
  private static final String DATABASE = "contracts";
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static final Map<EmbeddedPg.Server, String> DATABASES = new HashMap<>();

  /** Pool size per instance: enough for the suites' racing threads, small like a real pool. */
  private static final int POOL_SIZE = 8;

  /** The fast server ({@code fsync} off), which the contract suites use. */
  private static final EmbeddedPg.Server FAST = EmbeddedPg.fast();

  /** Physical connections per instance in the transaction-pooled variant. */
  private static final int PHYSICAL_CONNECTIONS = 3;

  private final EmbeddedPg.Server server;
  private final String schema;
  private final boolean transactionPooled;
  private final List<AutoCloseable> pools = new ArrayList<>();

  private PostgresContractDatabase(
      EmbeddedPg.Server server, String schema, boolean transactionPooled) {
    this.server = server;
    this.schema = schema;
    this.transactionPooled = transactionPooled;
  }

  /** Creates a new empty schema on the fast server and returns a database on it. */
  public static PostgresContractDatabase create() {
    return create(FAST);
  }

  /**
   * Creates a new empty schema on the {@linkplain EmbeddedPg#durable() durable server} ({@code
   * fsync} and {@code synchronous_commit} on) and returns a database on it: for the tests that
   * claim something survives a crash, a restart or a SIGKILL.
   */
  public static PostgresContractDatabase durable() {
    return create(EmbeddedPg.durable());
  }

  private static PostgresContractDatabase create(EmbeddedPg.Server server) {
    return new PostgresContractDatabase(server, newSchema(server), false);
  }

  /**
   * Creates a new empty schema and returns a database on it whose instances get a {@link
   * TransactionPoolingDataSource} of {@value #PHYSICAL_CONNECTIONS} physical connections, seeded by
   * the schema's number.
   */
  public static PostgresContractDatabase transactionPooled() {
    return new PostgresContractDatabase(FAST, newSchema(FAST), true);
  }

  private static String newSchema(EmbeddedPg.Server server) {
    String schema = "s" + SCHEMAS.incrementAndGet();
    try (Connection c = server.connect(database(server));
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create schema " + schema, e);
    }
    return schema;
  }

  private static synchronized String database(EmbeddedPg.Server server) {
    return DATABASES.computeIfAbsent(server, s -> s.newDatabase(DATABASE));
  }

  /** Returns the schema's name. */
  public String schema() {
    return schema;
  }

  /** Returns a JDBC URL whose sessions use this schema (for child processes). */
  public String url() {
    String base = server.url(database(server));
    return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  /** Returns a new pool of {@code size} on this schema, closed by {@link #close()}. */
  public synchronized HikariDataSource pool(int size) {
    HikariDataSource pool = server.pool(database(server), size, schema);
    pools.add(pool);
    return pool;
  }

  @Override
  public Dialect dialect() {
    return Dialect.POSTGRESQL;
  }

  @Override
  public OnceOnlyBuilder builder() {
    if (!transactionPooled) {
      return OnceOnly.builder().dataSource(pool(POOL_SIZE));
    }
    long seed = Long.parseLong(schema.substring(1));
    TransactionPoolingDataSource source =
        new TransactionPoolingDataSource(url(), PHYSICAL_CONNECTIONS, seed);
    synchronized (this) {
      pools.add(source);
    }
    return OnceOnly.builder().dataSource(source);
  }

  @Override
  public Connection connect() throws SQLException {
    Connection c = server.connect(database(server));
    try (Statement s = c.createStatement()) {
      s.execute("SET search_path TO " + schema);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * Closes every pool. In the transaction-pooled variant, first fails if a connection was given
   * back with session state left on it ({@link TransactionPoolingDataSource#leftovers()}).
   */
  @Override
  public synchronized void close() {
    List<String> leftovers = new ArrayList<>();
    for (AutoCloseable pool : pools) {
      if (pool instanceof TransactionPoolingDataSource source) {
        leftovers.addAll(source.leftovers());
      }
    }
    for (AutoCloseable pool : pools) {
      try {
        pool.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot close a pool of schema " + schema, e);
      }
    }
    pools.clear();
    if (!leftovers.isEmpty()) {
      throw new AssertionError(
          "session state outlived a transaction: " + new java.util.TreeSet<>(leftovers));
    }
  }
}
