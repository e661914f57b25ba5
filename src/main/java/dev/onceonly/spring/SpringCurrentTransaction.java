package dev.onceonly.spring;

import dev.onceonly.CurrentTransaction;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

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
 * and closes it.
 *
 * <p>Under a {@code JpaTransactionManager}, the persistence context bound to the transaction is
 * flushed before each joined call sets its savepoint and before it releases it, and cleared after a
 * joined call failed (see {@link #flush} and {@link #rolledBack}); a read-only transaction is
 * refused for every call that writes. Thread-safe.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
public final class SpringCurrentTransaction implements CurrentTransaction {
  /** Whether Spring's JPA support (and so Jakarta Persistence) is on the class path. */
  private static final boolean JPA =
      ClassUtils.isPresent("org.springframework.orm.jpa.EntityManagerHolder", null)
          && ClassUtils.isPresent("jakarta.persistence.EntityManager", null);

  private final DataSource dataSource;
  private final JpaContexts jpa;

  /**
   * Finds transactions on {@code dataSource}.
   *
   * @param dataSource the data source the application's transaction manager and OnceOnly share
   */
  public SpringCurrentTransaction(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.jpa = JPA ? new JpaContexts(dataSource) : null;
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

  /**
   * {@inheritDoc}
   *
   * <p>Here: Spring's {@code readOnly} flag of the current transaction, which a {@code
   * JpaTransactionManager} honours by not flushing at all.
   */
  @Override
  public boolean readOnly() {
    return TransactionSynchronizationManager.isCurrentTransactionReadOnly();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: when {@code connection} is the Spring transaction's and a JPA persistence context is
   * bound to it, the persistence context is flushed.
   */
  @Override
  public void flush(Connection connection) {
    if (jpa != null && transactional(connection)) {
      jpa.flush();
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: the persistence context bound to the Spring transaction is cleared: entities saved by
   * the failed call are not written at commit, and entities loaded before it are detached (load
   * them again, or merge them, to change them after the failure).
   */
  @Override
  public void rolledBack(Connection connection) {
    if (jpa != null && transactional(connection)) {
      jpa.clear();
    }
  }

  private boolean transactional(Connection connection) {
    return TransactionSynchronizationManager.isActualTransactionActive()
        && TransactionSynchronizationManager.hasResource(dataSource)
        && DataSourceUtils.isConnectionTransactional(connection, dataSource);
  }
}
