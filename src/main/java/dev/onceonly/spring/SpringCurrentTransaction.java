package dev.onceonly.spring;

import dev.onceonly.CurrentTransaction;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Finds the Spring-managed transaction the calling thread is in on one {@link DataSource}, so that
 * OnceOnly's calls inside a {@code @Transactional} method join it (see {@link CurrentTransaction}).
 *
 * <p>A transaction counts only when Spring has actually begun one ({@link
 * TransactionSynchronizationManager#isActualTransactionActive()}) and holds a connection of this
 * data source for it: a {@code DataSourceTransactionManager}, a {@code JdbcTransactionManager}, or
 * a {@code JpaTransactionManager} that exposes its JDBC connection. Propagation {@code SUPPORTS} or
 * {@code NOT_SUPPORTED}, a transaction on another data source, or none at all: OnceOnly's call runs
 * in a transaction of its own. The connection is taken and given back through {@link
 * DataSourceUtils}, so Spring's reference count stays right and Spring alone commits, rolls back
 * and closes it. Thread-safe.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
public final class SpringCurrentTransaction implements CurrentTransaction {
  private final DataSource dataSource;

  /**
   * Finds transactions on {@code dataSource}.
   *
   * @param dataSource the data source the application's transaction manager and OnceOnly share
   */
  public SpringCurrentTransaction(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  @Override
  public Connection connection() {
    if (!TransactionSynchronizationManager.isActualTransactionActive()
        || !TransactionSynchronizationManager.hasResource(dataSource)) {
      return null;
    }
    Connection c = DataSourceUtils.getConnection(dataSource);
    if (!DataSourceUtils.isConnectionTransactional(c, dataSource)) {
      DataSourceUtils.releaseConnection(c, dataSource);
      return null;
    }
    return c;
  }

  @Override
  public void release(Connection connection) {
    DataSourceUtils.releaseConnection(connection, dataSource);
  }
}
