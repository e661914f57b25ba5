package dev.onceonly;

import java.sql.Connection;

/**
 * Finds the transaction the calling thread is already in, so that calls made without a {@link
 * Connection} take part in it: the seam a transaction manager (Spring's, for instance, in {@code
 * dev.onceonly.spring}) plugs into {@link OnceOnlyBuilder#currentTransaction}.
 *
 * <p>The calls that have a form taking the caller's connection look here first: {@link
 * ReceiptStore#execute(IntentKey, String, Object, Class, Effect) receipts().execute}, {@link
 * IntentStore#register(IntentKey, String, Object) intents().register}, the queue's {@code send},
 * {@code sendAll}, {@code ack}, {@code complete}, {@code ackAndSend} and {@code withdraw}, and
 * {@link OnceOnly#inTransaction}. When {@link #connection()} returns a connection, the call runs on
 * it under a savepoint, exactly as the form taking that connection would: nothing is committed
 * until the caller's transaction commits, and a rollback of it takes the call's writes with it.
 * {@link Outcome.Created} then means "written in your transaction, durable when it commits". When
 * it returns null, the call runs in a transaction of its own, as without this seam.
 *
 * <p>Calls that must commit on their own never look here: claims, renewals, retries and dead
 * letters of the queue, the claims of external effects (their record must be durable before the
 * outside world is called), and maintenance.
 *
 * <p>Implementations must be thread-safe; every method is called on the calling thread.
 */
public interface CurrentTransaction {
  /**
   * Returns the connection of the transaction the calling thread is in, on this store's database,
   * or null when it is in none (or only in one on another database). The connection must have
   * auto-commit off; OnceOnly never commits, rolls back or closes it.
   *
   * @return the transaction's connection, or null
   */
  Connection connection();

  /**
   * Gives back a connection that {@link #connection()} returned, once the call that used it is done
   * (whether it succeeded or failed); called exactly once for each connection returned.
   *
   * @param connection the connection {@link #connection()} returned
   */
  void release(Connection connection);

  /**
   * Returns whether the transaction the calling thread is in is read-only, even where its
   * connection does not say so (SQLite cannot make an open connection read-only). A call that
   * writes refuses to join it with a {@link ReadOnlyTransactionException}. Default: false; the
   * connection's own {@link Connection#isReadOnly()} is always asked as well.
   *
   * @return whether the caller's transaction is read-only
   */
  default boolean readOnly() {
    return false;
  }

  /**
   * Called on the calling thread right before a joined call sets its savepoint on {@code
   * connection}, and again right before it releases it: a persistence context bound to the
   * transaction (JPA's, for example) writes out its pending changes here, so that the savepoint
   * covers exactly the writes made inside the call. Writes made before the call are then in the
   * database before the savepoint, and a rollback to it cannot undo them; the call's own entity
   * writes are in the database before its receipt can commit. Called for every joined call, also on
   * connections this source did not return (it then does nothing unless the connection is its
   * transaction's). Default: nothing.
   *
   * @param connection the connection the call joins
   */
  default void flush(Connection connection) {}

  /**
   * Called on the calling thread after a joined call failed and its writes were rolled back to its
   * savepoint: a persistence context bound to the transaction must drop what it believes about the
   * rows written inside the call (JPA's is cleared), so that it agrees with the database again and
   * the transaction's commit does not write the failed call's entities after all. Default: nothing.
   *
   * @param connection the connection the call joined
   */
  default void rolledBack(Connection connection) {}

  /** {@return a source that never finds a transaction: every call runs in its own} */
  static CurrentTransaction none() {
    return NoTransaction.INSTANCE;
  }
}

/** The default: no caller's transaction, ever. */
enum NoTransaction implements CurrentTransaction {
  INSTANCE;

  @Override
  public Connection connection() {
    return null;
  }

  @Override
  public void release(Connection connection) {
    // nothing was lent
  }
}
