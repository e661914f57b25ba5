package dev.onceonly.spring;

import jakarta.persistence.EntityManager;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.orm.jpa.EntityManagerFactoryInfo;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The JPA persistence contexts bound to the calling thread's Spring transaction on one data source
 * (a {@code JpaTransactionManager}'s {@link EntityManagerHolder}), which a joined step flushes
 * around its savepoint and clears after it failed. Used by {@link SpringCurrentTransaction} only
 * when Spring's JPA support is on the class path; Hibernate is reached through the standard API
 * alone, so every JPA provider gets the same treatment.
 *
 * <p>Why flush and clear: a savepoint covers the database only. Entities saved before a step but
 * not yet flushed would be written inside the step's savepoint (by an auto-flush the step's queries
 * cause) and undone by its rollback, while the persistence context believes them written; entities
 * saved by a failed effect would wait in the persistence context and be written at commit, without
 * their receipt. Flushing before the savepoint is set puts the caller's writes before it; flushing
 * before it is released puts the effect's writes inside it (a flush failure then fails the step);
 * clearing after a failed step drops what the failed effect left, so the persistence context agrees
 * with the database again. The price of clearing: entities the caller loaded before the step are
 * detached after a failed one, and changes to them are no longer written unless they are merged
 * ({@code repository.save}) or loaded again.
 */
final class JpaContexts {
  private final DataSource dataSource;

  JpaContexts(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Writes out the pending changes of every persistence context of the transaction. */
  void flush() {
    for (EntityManager em : bound()) {
      em.flush();
    }
  }

  /** Detaches every entity of the transaction's persistence contexts, dropping pending changes. */
  void clear() {
    for (EntityManager em : bound()) {
      em.clear();
    }
  }

  /**
   * The open entity managers bound to this thread's transaction whose factory works on this data
   * source (or does not say which it works on).
   */
  private java.util.List<EntityManager> bound() {
    java.util.List<EntityManager> found = new java.util.ArrayList<>(1);
    for (Map.Entry<Object, Object> e :
        TransactionSynchronizationManager.getResourceMap().entrySet()) {
      if (e.getValue() instanceof EntityManagerHolder holder
          && ours(e.getKey())
          && holder.isSynchronizedWithTransaction()) {
        EntityManager em = holder.getEntityManager();
        if (em.isOpen() && em.isJoinedToTransaction()) {
          found.add(em);
        }
      }
    }
    return found;
  }

  private boolean ours(Object factory) {
    if (factory instanceof EntityManagerFactoryInfo info) {
      DataSource used = info.getDataSource();
      return used == null || used == dataSource || unwrapsTo(used);
    }
    return true;
  }

  private boolean unwrapsTo(DataSource used) {
    try {
      return used.isWrapperFor(DataSource.class) && used.unwrap(DataSource.class) == dataSource
          || dataSource.isWrapperFor(DataSource.class)
              && dataSource.unwrap(DataSource.class) == used;
    } catch (java.sql.SQLException e) {
      return false;
    }
  }
}
