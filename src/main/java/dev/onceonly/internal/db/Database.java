package dev.onceonly.internal.db;

import dev.onceonly.ConnectionLostException;
import dev.onceonly.CurrentTransaction;
import dev.onceonly.ReadOnlyTransactionException;
import dev.onceonly.StoreException;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.dialect.SqlDialect;
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
  private final SqlDialect sql;
  private final ThreadLocal<Boolean> inside = ThreadLocal.withInitial(() -> Boolean.FALSE);
  private final ThreadLocal<Connection> current = new ThreadLocal<>();
  private final ThreadLocal<Integer> savepoints = ThreadLocal.withInitial(() -> 0);
  private final ThreadLocal<Boolean> owning = new ThreadLocal<>();
  private volatile long maxStatementBytes = Long.MAX_VALUE;
  private volatile CurrentTransaction callerTransaction = CurrentTransaction.none();
  private volatile dev.onceonly.events.Events events = dev.onceonly.events.Events.none();

  protected Database(Dialect dialect) {
    this.sql = SqlDialect.of(dialect);
  }

  /** A unit of work on a connection. */
  @FunctionalInterface
  public interface Work<T> {
    /** Runs on {@code connection}; must not commit, roll back or close it. */
    T run(Connection connection) throws SQLException;
  }

  /** Returns the dialect. */
  public Dialect dialect() {
    return sql.id();
  }

  /** Returns what this database does differently from the others: the dialect seam. */
  public SqlDialect sql() {
    return sql;
  }

  /** Returns how this dialect binds and reads instants. */
  public InstantColumns times() {
    return sql.instants();
  }

  /**
   * Takes a lock on {@code (space, name)} among the tables under {@code prefix}, held until the
   * transaction ends, where the dialect needs one to keep two steps on a key apart; elsewhere does
   * nothing. See {@link dev.onceonly.internal.receipts.StoreContext#lockKey}.
   */
  public final void lockKey(Connection c, String prefix, int space, String name)
      throws SQLException {
    if (sql.locksKeys()) {
      // String.hashCode is specified: every JVM agrees
      sql.lockKey(c, prefix, space, name.hashCode());
    }
  }

  /**
   * Returns whether a failed transaction may simply run again: the first {@link SQLException} in
   * its causes is one the dialect's server rolled back on its own (see {@link
   * SqlDialect#retryable}).
   */
  protected final boolean retryable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e) {
        return sql.retryable(e);
      }
    }
    return false;
  }

  /** Runs {@code work} in a write transaction of its own and commits it. */
  public final <T> T write(Work<T> work) {
    return guarded(() -> inWriteTransaction(tracked(owned(work))));
  }

  /**
   * Marks the thread that runs {@code work} (a group commit's leader, maybe) as in {@link #write}.
   */
  private <T> Work<T> owned(Work<T> work) {
    return c -> {
      owning.set(Boolean.TRUE);
      try {
        return work.run(c);
      } finally {
        owning.remove();
      }
    };
  }

  /**
   * Returns whether the calling thread runs a unit of work of {@link #write}, in a transaction this
   * library began (at {@code READ COMMITTED} on MariaDB), rather than one the caller began at an
   * isolation of its choosing; also inside such a unit's effect joining its own connection.
   */
  public final boolean ownsTransaction() {
    return owning.get() != null;
  }

  /** Sets where the group commits are published. Set once, before the stores are used. */
  public final void events(dev.onceonly.events.Events events) {
    this.events = java.util.Objects.requireNonNull(events, "events");
  }

  /** {@return where the group commits are published} */
  protected final dev.onceonly.events.Events events() {
    return events;
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
      if (source.readOnly()) {
        throw new ReadOnlyTransactionException("this OnceOnly call");
      }
      Connection unit = current.get();
      if (unit == null || unit == transaction) {
        return join(transaction, work);
      }
      return inTransactionOfItsOwn(unit, transaction, work);
    } finally {
      source.release(transaction);
    }
  }

  /**
   * Joins {@code transaction}, a caller's transaction begun inside the unit of work that runs on
   * {@code unit} (a Spring {@code REQUIRES_NEW} method called from an effect): the call belongs to
   * that new transaction, which commits or rolls back on its own, so it runs there as any joined
   * call does, and the outer unit of work goes on after it.
   */
  private <T> T inTransactionOfItsOwn(Connection unit, Connection transaction, Work<T> work) {
    Boolean wasInside = inside.get();
    Boolean wasOwning = owning.get();
    int depth = savepoints.get();
    inside.remove();
    current.remove();
    savepoints.remove();
    owning.remove(); // the new transaction is the caller's, at its isolation
    try {
      return join(transaction, work);
    } finally {
      inside.set(wasInside);
      if (wasOwning != null) {
        owning.set(wasOwning);
      }
      current.set(unit);
      savepoints.set(depth);
    }
  }

  /**
   * Refuses the server's settings the dialect cannot work under (see {@link
   * SqlDialect#checkAtOpen}) and keeps the largest statement the server takes. Called once, when
   * the store opens.
   */
  public final void checkServer() {
    maxStatementBytes = read(sql::checkAtOpen);
  }

  /** {@return the largest statement the server takes, in bytes, as read at open} */
  public final long maxStatementBytes() {
    return maxStatementBytes;
  }

  /** Refuses a session the dialect cannot work in, on a connection's first use. */
  protected final void checkSession(Connection c) throws SQLException {
    sql.checkSession(c);
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
    refuseReadOnly(transaction);
    if (transaction != null && transaction == current.get()) {
      return underSavepoint(transaction, work); // joins the unit of work it runs in
    }
    return guarded(() -> underSavepoint(transaction, checked(tracked(work))));
  }

  /** Checks a caller's connection's session before its first unit of work. */
  private <T> Work<T> checked(Work<T> work) {
    return c -> {
      checkSession(c);
      return work.run(c);
    };
  }

  private void refuseReadOnly(Connection transaction) {
    boolean readOnly;
    try {
      readOnly = transaction.isReadOnly();
    } catch (SQLException e) {
      throw storeError("cannot read whether the caller's transaction is read-only", e);
    }
    if (readOnly) {
      throw new ReadOnlyTransactionException("this OnceOnly call");
    }
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

  /**
   * Runs {@code work} under a savepoint named for its depth: a step joined inside another step's
   * effect (a send from a receipt's effect) takes a name of its own, since MariaDB replaces a
   * savepoint of the same name instead of stacking it, as PostgreSQL and SQLite do; the inner
   * release would otherwise release the outer one.
   */
  private <T> T underSavepoint(Connection c, Work<T> work) {
    int depth = savepoints.get();
    String name = depth == 0 ? "onceonly_step" : "onceonly_step_" + depth;
    CurrentTransaction source = callerTransaction;
    try {
      source.flush(c); // the caller's pending entity writes belong before the savepoint
      execute(c, "SAVEPOINT " + name);
    } catch (SQLException e) {
      throw storeError("cannot open a savepoint in the caller's transaction", e);
    }
    savepoints.set(depth + 1);
    try {
      T result = work.run(c);
      source.flush(c); // the step's own entity writes belong inside it
      execute(c, "RELEASE SAVEPOINT " + name);
      return result;
    } catch (Throwable failure) {
      rollbackTo(c, name, failure);
      try {
        source.rolledBack(c);
      } catch (RuntimeException e) {
        failure.addSuppressed(e);
      }
      throw propagate(failure, "step failed inside the caller's transaction");
    } finally {
      savepoints.set(depth);
    }
  }

  private void rollbackTo(Connection c, String name, Throwable failure) {
    try {
      execute(c, "ROLLBACK TO SAVEPOINT " + name);
      execute(c, "RELEASE SAVEPOINT " + name);
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  /** Begins a write transaction the way the dialect wants it. */
  protected final void begin(Connection c) throws SQLException {
    sql.begin(c);
  }

  protected final void commit(Connection c) throws SQLException {
    sql.commit(c);
  }

  /** Rolls back after {@code failure}, attaching any rollback failure to it. */
  protected final void rollback(Connection c, Throwable failure) {
    try {
      sql.rollback(c);
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
    return sql.connectionLost(e)
        ? new ConnectionLostException(what, dialect().id(), e, false)
        : new StoreException(what, dialect().id(), e);
  }

  /**
   * Turns what a commit threw into the exception its caller gets: a lost connection makes the
   * outcome unknown ({@link ConnectionLostException#commitUnknown()}); anything else passes as
   * {@link #propagate} passes it.
   */
  protected final RuntimeException commitFailed(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e && sql.connectionLost(e)) {
        return new ConnectionLostException(
            "the commit got no answer: it may have committed", dialect().id(), e, true);
      }
    }
    return propagate(failure, "commit failed");
  }

  /**
   * Turns what a transaction threw before its commit into the exception its caller gets: a lost
   * connection anywhere in its causes (also under an effect's own exception) becomes a {@link
   * ConnectionLostException}, since nothing of the transaction was committed and the same work may
   * run again; anything else passes as {@link #propagate} passes it.
   */
  protected final RuntimeException lostOrPropagate(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e && sql.connectionLost(e)) {
        ConnectionLostException lost =
            new ConnectionLostException(
                "the connection was lost in the transaction; nothing was committed",
                dialect().id(),
                e,
                false);
        if (t != failure) {
          lost.addSuppressed(failure);
        }
        return lost;
      }
    }
    return propagate(failure, "write transaction failed");
  }

  /** {@return whether {@code e} says the connection is gone} */
  protected final boolean connectionLost(SQLException e) {
    return sql.connectionLost(e);
  }

  @Override
  public abstract void close();
}
