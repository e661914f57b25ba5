package dev.onceonly.testing;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that behaves like PgBouncer in transaction mode: it owns a few physical
 * connections (opened with {@code prepareThreshold=0}, as an application behind PgBouncer older
 * than 1.21 must), and every {@link #getConnection()} hands out a thin wrapper over one of the free
 * ones, chosen at random (seeded). Closing the wrapper rolls back a transaction left open, runs
 * {@code DISCARD ALL} (PgBouncer's {@code server_reset_query}: it drops prepared statements, temp
 * tables, {@code SET}s, {@code LISTEN}s and session advisory locks) and gives the physical
 * connection back. So no session state survives from one borrowed connection to the next, and
 * consecutive borrowings of one client land on different backends. Before the reset it notes any
 * session state the client left behind ({@link #leftovers()}): PgBouncer's transaction mode runs no
 * reset by default, so such state would reach another client.
 *
 * <p>After the reset the session's time zone is set again to {@link EmbeddedPg#SESSION_TIME_ZONE}:
 * PgBouncer tracks a client's {@code TimeZone} and restores it on whichever server connection the
 * client gets. The schema is a startup parameter ({@code currentSchema}), which {@code DISCARD ALL}
 * keeps, as a database entry's {@code search_path} would be kept behind PgBouncer.
 */
public final class TransactionPoolingDataSource implements DataSource, AutoCloseable {
  /** How long a borrower waits for a free physical connection before failing. */
  private static final long WAIT_MILLIS = TimeUnit.SECONDS.toMillis(30);

  /**
   * Session state that outlives a transaction and would reach the next client of a server
   * connection behind PgBouncer (whose transaction mode does not reset by default): advisory locks,
   * {@code LISTEN}s, named prepared statements, temporary tables, settings changed with {@code SET}
   * (other than the time zone this class sets itself).
   */
  private static final String LEFTOVERS =
      "SELECT 'advisory lock ' || objid FROM pg_locks"
          + " WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
          + " UNION ALL SELECT 'LISTEN ' || c FROM pg_listening_channels() c"
          + " UNION ALL SELECT 'prepared statement ' || name FROM pg_prepared_statements"
          + " UNION ALL SELECT 'temporary table ' || relname FROM pg_class"
          + " WHERE relnamespace = pg_my_temp_schema()"
          + " UNION ALL SELECT 'SET ' || name || ' = ' || setting FROM pg_settings"
          + " WHERE source = 'session' AND name NOT IN ('TimeZone', 'application_name')";

  private final List<String> leftovers = new ArrayList<>();
  private final List<Connection> all = new ArrayList<>();
  private final List<Connection> free = new ArrayList<>();
  private final Random random;
  private boolean closed;

  /**
   * Opens {@code size} physical connections to {@code url} (which must not yet carry {@code
   * prepareThreshold}); {@code seed} drives which free connection each borrower gets.
   */
  public TransactionPoolingDataSource(String url, int size, long seed) {
    this.random = new Random(seed);
    String physical = url + (url.contains("?") ? "&" : "?") + "prepareThreshold=0";
    try {
      for (int i = 0; i < size; i++) {
        Connection c = DriverManager.getConnection(physical, EmbeddedPg.properties());
        all.add(c);
        reset(c);
        free.add(c);
      }
    } catch (SQLException e) {
      close();
      throw new IllegalStateException("cannot open physical connections to " + url, e);
    }
  }

  /**
   * What PgBouncer does to a server connection when its client's transaction is over, after noting
   * any session state the client left behind in {@link #leftovers()}.
   */
  private void reset(Connection c) throws SQLException {
    if (!c.getAutoCommit()) {
      c.rollback();
      c.setAutoCommit(true);
    }
    c.setReadOnly(false);
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery(LEFTOVERS)) {
        while (rs.next()) {
          synchronized (this) {
            leftovers.add(rs.getString(1));
          }
        }
      }
      s.execute("DISCARD ALL");
      s.execute(EmbeddedPg.SET_TIME_ZONE);
    }
  }

  /** Returns the session state found on connections given back so far (empty: none). */
  public synchronized List<String> leftovers() {
    return List.copyOf(leftovers);
  }

  @Override
  public Connection getConnection() throws SQLException {
    Connection physical = take();
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new Borrowed(physical));
  }

  private synchronized Connection take() throws SQLException {
    long deadline = System.currentTimeMillis() + WAIT_MILLIS;
    while (free.isEmpty() && !closed) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        throw new SQLException("no free physical connection within " + WAIT_MILLIS + " ms");
      }
      try {
        wait(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted while waiting for a connection", e);
      }
    }
    if (closed) {
      throw new SQLException("data source closed");
    }
    return free.remove(random.nextInt(free.size()));
  }

  private synchronized void give(Connection physical) {
    free.add(physical);
    notifyAll();
  }

  /** A borrowed connection: everything goes to the physical one until close() gives it back. */
  private final class Borrowed implements InvocationHandler {
    private final Connection physical;
    private boolean returned;

    Borrowed(Connection physical) {
      this.physical = physical;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      switch (method.getName()) {
        case "close":
          if (!returned) {
            returned = true;
            giveBack();
          }
          return null;
        case "isClosed":
          return returned;
        case "equals":
          return proxy == args[0];
        case "hashCode":
          return System.identityHashCode(proxy);
        case "toString":
          return "borrowed " + physical;
        default:
          break;
      }
      if (returned) {
        throw new SQLException("connection already closed");
      }
      try {
        return method.invoke(physical, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }

    private void giveBack() throws SQLException {
      try {
        reset(physical);
      } catch (SQLException e) {
        discard(physical);
        throw e;
      }
      give(physical);
    }
  }

  /** Replaces a physical connection whose reset failed (a broken server connection). */
  private void discard(Connection broken) {
    try {
      broken.close();
    } catch (SQLException ignored) {
      // it is being replaced anyway
    }
    synchronized (this) {
      all.remove(broken);
    }
    // The pool shrinks by one; the suites never break a connection, so this stays rare.
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (Connection c : all) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
    all.clear();
    free.clear();
    notifyAll();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("credentials are fixed");
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
