package dev.onceonly.internal.db;

import dev.onceonly.CurrentTransaction;
import dev.onceonly.StoreException;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Runs units of work in transactions on one database, in the way its dialect needs.
 *
 * <p>Three shapes: {@link #write} owns a write transaction (on SQLite {@code BEGIN IMMEDIATE}, so
 * the write lock is taken before anything is read), {@link #read} runs in auto-commit, and {@link
 * #join} runs inside a transaction the caller owns, under a savepoint. A unit of work called from
 * inside another one on the same thread is refused instead of deadlocking, except a join on the
 * very connection the outer unit of work was given (a receipts step or a send inside {@code
 * JobQueue.complete} or {@code OnceOnly.inTransaction}): that runs under a nested savepoint of the
 * same transaction.
 */
public abstract class Database implements AutoCloseable {
  private final Dialect dialect;
  private final InstantColumns times;
  private final ThreadLocal<Boolean> inside = ThreadLocal.withInitial(() -> Boolean.FALSE);
  private final ThreadLocal<Connection> current = new ThreadLocal<>();
  private volatile CurrentTransaction callerTransaction = CurrentTransaction.none();

  protected Database(Dialect dialect) {
    this.dialect = dialect;
    this.times = InstantColumns.of(dialect);
  }

  /** A unit of work on a connection. */
  @FunctionalInterface
  public interface Work<T> {
    /** Runs on {@code connection}; must not commit, roll back or close it. */
    T run(Connection connection) throws SQLException;
  }

  /** Returns the dialect. */
  public Dialect dialect() {
    return dialect;
  }

  /** Returns how this dialect binds and reads instants. */
  public InstantColumns times() {
    return times;
  }

  /**
   * Takes a transaction-scoped lock on {@code (space, name)} on PostgreSQL (released by the
   * transaction's end, so nothing outlives it); on SQLite does nothing. See {@link
   * dev.onceonly.internal.receipts.StoreContext#lockKey}.
   */
  public final void lockKey(Connection c, int space, String name) throws SQLException {
    if (dialect != Dialect.POSTGRESQL) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?, ?)")) {
      ps.setInt(1, space);
      ps.setInt(2, name.hashCode()); // String.hashCode is specified, so every JVM agrees
      ps.execute();
    }
  }

  /**
   * Returns whether a failed transaction may simply run again: on PostgreSQL a serialization
   * failure ({@code 40001}) or a detected deadlock ({@code 40P01}); the server rolled the
   * transaction back.
   */
  protected final boolean retryable(Throwable failure) {
    if (dialect != Dialect.POSTGRESQL) {
      return false;
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state);
      }
    }
    return false;
  }

  /** Runs {@code work} in a write transaction of its own and commits it. */
  public final <T> T write(Work<T> work) {
    return guarded(() -> inWriteTransaction(tracked(work)));
  }

  /**
   * Sets where {@link #writeOrJoin} finds the transaction the calling thread is in. Set once,
   * before the stores are used.
   */
  public final void callerTransactions(CurrentTransaction source) {
    this.callerTransaction = java.util.Objects.requireNonNull(source, "source");
  }

  /**
   * Runs {@code work} inside the transaction the calling thread is in (as {@link #join} does), or,
   * when it is in none, in a write transaction of its own (as {@link #write} does). For the calls
   * whose effect may belong to the caller's transaction; see {@link CurrentTransaction}.
   */
  public final <T> T writeOrJoin(Work<T> work) {
    CurrentTransaction source = callerTransaction;
    Connection transaction = source.connection();
    if (transaction == null) {
      return write(work);
    }
    try {
      return join(transaction, work);
    } finally {
      source.release(transaction);
    }
  }

  /** Runs {@code work} in auto-commit mode (reads). */
  public final <T> T read(Work<T> work) {
    return guarded(() -> inReadConnection(work));
  }

  /**
   * Runs {@code work} inside the caller's open transaction, under a savepoint. {@code lent} may be
   * the connection an effect was lent: the work then runs on the connection under it.
   */
  public final <T> T join(Connection lent, Work<T> work) {
    Connection transaction = EffectConnection.unlent(lent); // an effect joining its own step
    if (transaction != null && transaction == current.get()) {
      return underSavepoint(transaction, work); // joins the unit of work it runs in
    }
    return guarded(() -> underSavepoint(transaction, tracked(work)));
  }

  /** Remembers the connection a unit of work runs on, so that its effect may join it. */
  private <T> Work<T> tracked(Work<T> work) {
    return c -> {
      current.set(c);
      try {
        return work.run(c);
      } finally {
        current.remove();
      }
    };
  }

  /**
   * Returns whether writes are queueing right now. A caller that would wait anyway can first try to
   * answer from a read; a lone caller goes straight to its write.
   */
  public boolean writesContended() {
    return false;
  }

  protected abstract <T> T inWriteTransaction(Work<T> work);

  protected abstract <T> T inReadConnection(Work<T> work);

  private interface Body<T> {
    T run();
  }

  private <T> T guarded(Body<T> body) {
    if (inside.get()) {
      throw new IllegalStateException(
          "OnceOnly was called from inside an effect or unit of work on the same thread; an"
              + " effect must only use the connection it is given");
    }
    inside.set(Boolean.TRUE);
    try {
      return body.run();
    } finally {
      inside.remove();
    }
  }

  private <T> T underSavepoint(Connection c, Work<T> work) {
    try {
      execute(c, "SAVEPOINT onceonly_step");
    } catch (SQLException e) {
      throw storeError("cannot open a savepoint in the caller's transaction", e);
    }
    try {
      T result = work.run(c);
      execute(c, "RELEASE SAVEPOINT onceonly_step");
      return result;
    } catch (Throwable failure) {
      rollbackTo(c, failure);
      throw propagate(failure, "step failed inside the caller's transaction");
    }
  }

  private void rollbackTo(Connection c, Throwable failure) {
    try {
      execute(c, "ROLLBACK TO SAVEPOINT onceonly_step");
      execute(c, "RELEASE SAVEPOINT onceonly_step");
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  /** Begins a write transaction the way the dialect wants it. */
  protected final void begin(Connection c) throws SQLException {
    if (dialect == Dialect.SQLITE) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true); // the driver's implicit deferred BEGIN would defeat IMMEDIATE
      }
      execute(c, "BEGIN IMMEDIATE");
    } else {
      c.setAutoCommit(false);
    }
  }

  protected final void commit(Connection c) throws SQLException {
    if (dialect == Dialect.SQLITE) {
      execute(c, "COMMIT");
    } else {
      c.commit();
      c.setAutoCommit(true);
    }
  }

  /** Rolls back after {@code failure}, attaching any rollback failure to it. */
  protected final void rollback(Connection c, Throwable failure) {
    try {
      if (dialect == Dialect.SQLITE) {
        execute(c, "ROLLBACK"); // fails harmlessly (and is attached) if SQLite already rolled back
      } else {
        c.rollback();
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  protected static void execute(Connection c, String sql) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.execute();
    }
  }

  /** Turns an SQLException into a StoreException; passes everything else through unchanged. */
  protected final RuntimeException propagate(Throwable failure, String what) {
    if (failure instanceof SQLException e) {
      return storeError(what, e);
    }
    if (failure instanceof RuntimeException e) {
      return e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(what, failure);
  }

  protected final StoreException storeError(String what, SQLException e) {
    return new StoreException(what, dialect.id(), e);
  }

  @Override
  public abstract void close();
}
