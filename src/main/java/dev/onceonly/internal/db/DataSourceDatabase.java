package dev.onceonly.internal.db;

import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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

  /** How many times a transaction runs before its serialization failure is final. */
  static final int MAX_ATTEMPTS = 5;

  /**
   * Runs {@code work} in a transaction, again (up to {@value #MAX_ATTEMPTS} times in all) when the
   * database reports a serialization failure or a deadlock, with each earlier failure attached to
   * the final one as suppressed. The work may therefore run more than once; every run but the last
   * was rolled back. Before each new run the thread pauses (see {@link #pauseNanos}); interrupted
   * there, it gives up with the failure it has, the interrupt kept.
   */
  @Override
  protected <T> T inWriteTransaction(Work<T> work) {
    List<RuntimeException> earlier = new ArrayList<>();
    while (true) {
      try {
        return once(work);
      } catch (RuntimeException e) {
        if (!retryable(e) || earlier.size() + 1 >= MAX_ATTEMPTS) {
          earlier.forEach(e::addSuppressed);
          throw e;
        }
        try {
          TimeUnit.NANOSECONDS.sleep(pauseNanos(earlier.size() + 1));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          earlier.forEach(e::addSuppressed);
          e.addSuppressed(interrupted);
          throw e;
        }
        earlier.add(e);
      }
    }
  }

  /**
   * The pause before run {@code failures + 1}: a random time from {@code 2^(failures-1)} to {@code
   * 2^failures} milliseconds (1 to 2 ms, then 2 to 4, 4 to 8, 8 to 16; at most 30 ms over all
   * runs). Two transactions that deadlocked or conflicted and ran again at once would meet again in
   * the same order; a pause that grows, drawn at random, spreads them apart.
   */
  static long pauseNanos(int failures) {
    long floor = TimeUnit.MILLISECONDS.toNanos(1L << (failures - 1));
    return floor + ThreadLocalRandom.current().nextLong(floor + 1);
  }

  private <T> T once(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      checkSession(c);
      boolean autoCommit = c.getAutoCommit();
      begin(c);
      boolean committing = false;
      try {
        T result = work.run(c);
        committing = true;
        commit(c);
        return result;
      } catch (Throwable failure) {
        rollback(c, failure);
        throw committing ? commitFailed(failure) : lostOrPropagate(failure);
      } finally {
        restore(c, autoCommit);
      }
    } catch (SQLException e) {
      throw storeError("write transaction failed", e);
    }
  }

  /**
   * Gives the connection back as it came; on a connection that is gone there is nothing to restore
   * (the pool drops it), and the failure already under way must reach the caller, not this one.
   */
  private void restore(Connection c, boolean autoCommit) throws SQLException {
    try {
      if (c.getAutoCommit() != autoCommit) {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      if (!connectionLost(e) && !c.isClosed()) {
        throw e;
      }
    }
  }

  @Override
  protected <T> T inReadConnection(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      checkSession(c);
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
