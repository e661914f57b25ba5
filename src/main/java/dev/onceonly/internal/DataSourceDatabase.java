package dev.onceonly.internal;

import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A connection from a {@link DataSource} (usually a pool) per unit of work. The data source is the
 * caller's: it is not closed here.
 */
public final class DataSourceDatabase extends Database {
  private final DataSource dataSource;

  /**
   * Creates the database.
   *
   * @param dialect the dialect
   * @param dataSource where connections come from
   */
  public DataSourceDatabase(Dialect dialect, DataSource dataSource) {
    super(dialect);
    this.dataSource = dataSource;
  }

  @Override
  protected <T> T inWriteTransaction(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      begin(c);
      try {
        T result = work.run(c);
        commit(c);
        return result;
      } catch (Throwable failure) {
        rollback(c, failure);
        throw propagate(failure, "write transaction failed");
      } finally {
        restore(c, autoCommit);
      }
    } catch (SQLException e) {
      throw storeError("write transaction failed", e);
    }
  }

  private static void restore(Connection c, boolean autoCommit) throws SQLException {
    if (c.getAutoCommit() != autoCommit) {
      c.setAutoCommit(autoCommit);
    }
  }

  @Override
  protected <T> T inReadConnection(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw storeError("read failed", e);
    }
  }

  @Override
  public void close() {
    // The data source belongs to the caller.
  }
}
