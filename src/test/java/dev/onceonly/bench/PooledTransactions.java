package dev.onceonly.bench;

import dev.onceonly.CurrentTransaction;
import dev.onceonly.http.HandlerTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The application's transactions without Spring, as Spring's {@code DataSourceTransactionManager}
 * runs them: a connection taken from the pool for each transaction, {@code setAutoCommit(false)},
 * the work, the commit (or the rollback), auto-commit on again, the connection back to the pool.
 * OnceOnly finds the open one through {@link CurrentTransaction}.
 */
final class PooledTransactions implements HandlerTransaction, CurrentTransaction {
  private final DataSource pool;
  private final ThreadLocal<Connection> open = new ThreadLocal<>();

  /** Transactions on connections of {@code pool}. */
  PooledTransactions(DataSource pool) {
    this.pool = pool;
  }

  @Override
  public <T, X extends Exception> T inTransaction(Work<T, X> work) throws X {
    if (open.get() != null) {
      return work.run(); // joins the open transaction, as REQUIRED does
    }
    Connection c;
    try {
      c = pool.getConnection();
      c.setAutoCommit(false);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    open.set(c);
    boolean committed = false;
    try {
      T result = work.run();
      c.commit();
      committed = true;
      return result;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } finally {
      open.remove();
      try (c) {
        if (!committed) {
          c.rollback();
        }
        c.setAutoCommit(true);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public Connection connection() {
    return open.get();
  }

  @Override
  public void release(Connection connection) {
    // the transaction keeps it until it ends
  }
}
