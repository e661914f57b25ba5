package dev.onceonly.testing;

import dev.onceonly.CurrentTransaction;
import dev.onceonly.http.HandlerTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The application's transactions without Spring: one connection per thread, a transaction on it for
 * the duration of {@link #inTransaction}, found by OnceOnly through {@link CurrentTransaction}.
 */
public final class ThreadTransactions
    implements HandlerTransaction, CurrentTransaction, AutoCloseable {
  private final DataSource ds;
  private final ThreadLocal<Connection> cached = new ThreadLocal<>();
  private final ThreadLocal<Connection> open = new ThreadLocal<>();
  private final List<Connection> all = new ArrayList<>();

  /** Transactions on connections of {@code ds}, one per thread, closed by {@link #close}. */
  public ThreadTransactions(DataSource ds) {
    this.ds = ds;
  }

  @Override
  public <T, X extends Exception> T inTransaction(Work<T, X> work) throws X {
    Connection c = connectionOfThisThread();
    try {
      c.setAutoCommit(false);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    open.set(c);
    boolean done = false;
    try {
      T result = work.run();
      c.commit();
      done = true;
      return result;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } finally {
      open.remove();
      try {
        if (!done) {
          c.rollback();
        }
        c.setAutoCommit(true);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private Connection connectionOfThisThread() {
    Connection c = cached.get();
    if (c == null) {
      try {
        c = ds.getConnection();
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      cached.set(c);
      synchronized (all) {
        all.add(c);
      }
    }
    return c;
  }

  @Override
  public Connection connection() {
    return open.get();
  }

  @Override
  public void release(Connection connection) {
    // the transaction keeps it
  }

  @Override
  public void close() throws SQLException {
    synchronized (all) {
      for (Connection c : all) {
        c.close();
      }
    }
  }
}
