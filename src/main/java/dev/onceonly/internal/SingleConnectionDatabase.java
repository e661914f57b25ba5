package dev.onceonly.internal;

import dev.onceonly.StoreException;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection shared by every thread of this process, one unit of work at a time.
 *
 * <p>This is the embedded SQLite default: SQLite admits one writer per file anyway, so threads of
 * one process queue on a Java lock (cheap, fair) instead of on the file lock with {@code
 * busy_timeout} sleeps, which collapse throughput under contention. Other processes on the same
 * file still meet at the file lock. A connection that fails is closed and reopened on next use.
 */
public final class SingleConnectionDatabase extends Database {
  /** Opens a new connection, configured for use. */
  @FunctionalInterface
  public interface Opener {
    /** Returns a new open connection. */
    Connection open() throws SQLException;
  }

  private final ReentrantLock lock = new ReentrantLock(true);
  private final Opener opener;
  private final boolean owned;
  private Connection connection;
  private boolean closed;

  /**
   * Creates the database.
   *
   * @param dialect the dialect
   * @param opener opens the connection (again after a failure, if {@code owned})
   * @param owned whether this object opened the connection and so closes it
   */
  public SingleConnectionDatabase(Dialect dialect, Opener opener, boolean owned) {
    super(dialect);
    this.opener = opener;
    this.owned = owned;
  }

  @Override
  protected <T> T inWriteTransaction(Work<T> work) {
    lock.lock();
    try {
      Connection c = connection();
      try {
        begin(c);
      } catch (SQLException e) {
        throw storeError("cannot begin a write transaction", e);
      }
      try {
        T result = work.run(c);
        commit(c);
        return result;
      } catch (Throwable failure) {
        rollback(c, failure);
        throw propagate(failure, "write transaction failed");
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  protected <T> T inReadConnection(Work<T> work) {
    lock.lock();
    try {
      return work.run(connection());
    } catch (SQLException e) {
      throw storeError("read failed", e);
    } finally {
      lock.unlock();
    }
  }

  private Connection connection() {
    if (closed) {
      throw new IllegalStateException("OnceOnly store is closed");
    }
    try {
      if (connection == null || connection.isClosed()) {
        connection = opener.open();
      }
      return connection;
    } catch (SQLException e) {
      throw new StoreException("cannot open the database", dialect().id(), e);
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      if (owned && connection != null) {
        connection.close();
      }
    } catch (SQLException e) {
      throw storeError("cannot close the database", e);
    } finally {
      connection = null;
      lock.unlock();
    }
  }
}
